//! kura's native job file: TOML with an optional `[global]` table of defaults
//! and one `[[job]]` table per job. Keys are the same words as the flags.

use std::path::Path;

use thiserror::Error;

use super::job::{Job, SpecError};

#[derive(Debug, Error)]
pub enum JobFileError {
    #[error("{file}: cannot read: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {message}")]
    At {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Whole { file: String, message: String },
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// TOML values as the text a flag would carry, so `qd = 32` and `--qd 32` parse alike.
fn value_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

type Table = toml::map::Map<String, toml::Value>;

/// Which table of the file a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Section {
    Top,
    Global,
    Job(usize),
    Other,
}

/// Line numbers of keys per table. toml's values keep no positions, and a
/// job file is flat (`key = value` under `[global]` and `[[job]]`), so a
/// scan of the lines finds them.
fn key_lines(text: &str) -> std::collections::HashMap<(Section, String), usize> {
    let mut lines = std::collections::HashMap::new();
    let mut section = Section::Top;
    let mut jobs = 0;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("[[") {
            section = if l.trim_start_matches("[[").trim_start().starts_with("job") {
                jobs += 1;
                Section::Job(jobs - 1)
            } else {
                Section::Other
            };
        } else if l.starts_with('[') {
            section = if l.trim_start_matches('[').trim_start().starts_with("global") {
                Section::Global
            } else {
                Section::Other
            };
        } else if let Some((key, _)) = l.split_once('=') {
            let key = key.trim().trim_matches('"').to_string();
            lines.entry((section, key)).or_insert(i + 1);
        }
    }
    lines
}

fn apply_table(
    job: &mut Job,
    table: &Table,
    section: Section,
    lines: &std::collections::HashMap<(Section, String), usize>,
    file: &str,
) -> Result<(), JobFileError> {
    for (key, value) in table {
        let line = lines.get(&(section, key.clone())).copied().unwrap_or(1);
        let at = |message: String| JobFileError::At {
            file: file.to_string(),
            line,
            message,
        };
        let Some(v) = value_text(value) else {
            return Err(at(format!("{key}: expected a string, number or boolean")));
        };
        job.set(key, &v).map_err(|e| at(e.to_string()))?;
    }
    Ok(())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    global: Option<Table>,
    #[serde(default)]
    job: Vec<Table>,
}

/// Parses job file text; `file` names it in errors.
pub fn parse_jobs(text: &str, file: &str, base: &Job) -> Result<Vec<Job>, JobFileError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        let message = e.message().replace('\n', " ");
        let message = if message.contains("unknown field") {
            format!("{message} (a job file has a [global] table and [[job]] tables)")
        } else {
            message
        };
        JobFileError::At {
            file: file.to_string(),
            line,
            message,
        }
    })?;
    if raw.job.is_empty() {
        return Err(JobFileError::Whole {
            file: file.to_string(),
            message: "no [[job]] table: a job file needs at least one".to_string(),
        });
    }
    let lines = key_lines(text);
    let mut global = base.clone();
    if let Some(g) = &raw.global {
        apply_table(&mut global, g, Section::Global, &lines, file)?;
    }
    let job_headers: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim().starts_with("[["))
        .map(|(i, _)| i + 1)
        .collect();
    let mut jobs = Vec::new();
    for (i, table) in raw.job.iter().enumerate() {
        let mut job = global.clone();
        job.name = format!("job{}", i + 1);
        apply_table(&mut job, table, Section::Job(i), &lines, file)?;
        job.validate().map_err(|e: SpecError| JobFileError::At {
            file: file.to_string(),
            line: job_headers.get(i).copied().unwrap_or(1),
            message: e.to_string(),
        })?;
        jobs.push(job);
    }
    Ok(jobs)
}

pub fn load_jobs(path: &Path, base: &Job) -> Result<Vec<Job>, JobFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| JobFileError::Read {
        file: file.clone(),
        source,
    })?;
    parse_jobs(&text, &file, base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::job::Rw;

    #[test]
    fn global_defaults_and_jobs() {
        let text = "[global]\nsize = \"64m\"\nqd = 8\n\n[[job]]\nname = \"a\"\nrw = \"randread\"\n\n[[job]]\nrw = \"write\"\nqd = 1\nbs = \"1m\"\n";
        let jobs = parse_jobs(text, "j.toml", &Job::default()).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].name, "a");
        assert_eq!(jobs[0].qd, 8);
        assert_eq!(jobs[0].size_bytes, Some(64 << 20));
        assert_eq!(jobs[1].name, "job2");
        assert_eq!(jobs[1].rw, Rw::Write);
        assert_eq!(jobs[1].qd, 1);
        assert_eq!(jobs[1].bs[0].bytes, 1 << 20);
    }

    #[test]
    fn errors_name_line_and_key() {
        let text = "[[job]]\nrw = \"randread\"\nqd = 0\n";
        let err = parse_jobs(text, "j.toml", &Job::default())
            .unwrap_err()
            .to_string();
        assert_eq!(err, "j.toml:3: qd: '0' is not valid: must be between 1 and 4096");
        let text = "[[job]]\nrw = \"randread\"\nspeed = 3\n";
        let err = parse_jobs(text, "j.toml", &Job::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("j.toml:3: unknown key 'speed'"), "{err}");
        let text = "[[job]]\nrw = \"randread\nqd = 1\n";
        let err = parse_jobs(text, "j.toml", &Job::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("j.toml:2:"), "{err}");
        let err = parse_jobs("", "j.toml", &Job::default()).unwrap_err().to_string();
        assert!(err.contains("no [[job]]"), "{err}");
    }
}
