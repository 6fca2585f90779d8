//! Job files in every format kura reads (native TOML, fio job files, vdbench
//! parameter files), told apart and translated into `Job`s before anything
//! runs. Errors name the file, the line and, where it helps, the column.

use std::path::Path;

use thiserror::Error;

use super::job::Job;
use super::toml_file::{JobFileError, parse_jobs};

// The readers' shared types live in `reading`; these paths stay for callers.
pub use super::reading::{
    CurvePoint, Format, FormatError, IncludeBudget, Loc, MAX_INCLUDE_BYTES, MAX_INCLUDED_BYTES, MAX_INCLUDES,
    Plan, PlannedJob, Sources, clip, join_normalized,
};

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{file}: cannot read: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Toml(#[from] JobFileError),
    #[error(transparent)]
    Format(#[from] FormatError),
}

/// How to read a job file.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// `None`: tell from the name and the text.
    pub format: Option<Format>,
    /// Unknown and unsupported fio options become warnings instead of errors.
    pub lenient: bool,
}

/// vdbench's first words; a parameter file's first real line starts with one.
const VDBENCH_KEYWORDS: &[&str] = &[
    "sd",
    "wd",
    "rd",
    "hd",
    "fsd",
    "fwd",
    "rg",
    "include",
    "data_errors",
    "messagescan",
    "compratio",
    "dedupratio",
    "dedupunit",
    "validate",
    "journal",
    "histogram",
    "report",
    "concatenatesds",
    "debug",
    "showlba",
    "create_anchors",
    "formatsds",
    "formatxfersize",
];

/// Tells the format from the file name, then from the text.
pub fn detect(path: &Path, text: &str) -> Option<Format> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("toml") => return Some(Format::Toml),
        Some("fio") | Some("ini") => return Some(Format::Fio),
        Some("vdb") | Some("vdbench") | Some("parm") | Some("prm") => return Some(Format::Vdbench),
        _ => {}
    }
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(['#', ';', '*', '/']));
    // The first real line decides.
    let line = lines.next()?;
    if line.starts_with("[[") {
        return Some(Format::Toml);
    }
    if line.starts_with('[') {
        // fio sections and TOML tables look alike; TOML job files need [[job]].
        let toml = text.lines().any(|l| l.trim_start().starts_with("[["));
        return Some(if toml { Format::Toml } else { Format::Fio });
    }
    let word = line
        .split(['=', ','])
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if line.contains('=') && VDBENCH_KEYWORDS.contains(&word.as_str()) {
        return Some(Format::Vdbench);
    }
    None
}

/// The most a job file named on the command line may hold. Job files are
/// small; the bound keeps `kura run /dev/zero` from filling memory.
pub const MAX_JOB_FILE_BYTES: usize = 16 << 20;
/// Reads a job file as UTF-8 text, at most `limit` bytes. With
/// `regular_only` (includes, which the job file names and not the user) a
/// device, FIFO or directory is refused after opening and before reading:
/// opening with O_NONBLOCK keeps a FIFO without a writer from hanging the
/// open, and the type is taken from the descriptor that is then read.
pub fn read_job_file(path: &Path, limit: usize, regular_only: bool) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    use std::os::unix::fs::OpenOptionsExt;
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    if regular_only {
        open.custom_flags(libc::O_NONBLOCK);
    }
    let file = open.open(path)?;
    let kind = file.metadata()?.file_type();
    if regular_only && !kind.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (an include must be a job file, not a device, FIFO or directory)",
        ));
    }
    if kind.is_dir() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "is a directory, not a job file",
        ));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!(
                "larger than {}, the most kura reads",
                super::units::format_size(limit as u64)
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Reads, detects and translates a job file.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Plan, LoadError> {
    let file = path.display().to_string();
    let text = read_job_file(path, MAX_JOB_FILE_BYTES, false).map_err(|source| LoadError::Read {
        file: file.clone(),
        source,
    })?;
    let format = match opts.format.or_else(|| detect(path, &text)) {
        Some(f) => f,
        None => {
            return Err(FormatError {
                file,
                line: 0,
                column: None,
                message: "cannot tell whether this is a TOML job file, a fio job file or a vdbench \
                          parameter file; give --format toml|fio|vdbench"
                    .into(),
            }
            .into());
        }
    };
    let read = |p: &Path| read_job_file(p, MAX_INCLUDE_BYTES, true);
    let env = |name: &str| std::env::var(name).ok();
    let sources = Sources {
        read: &read,
        env: &env,
    };
    parse(format, &text, path, opts.lenient, &sources)
}

/// Translates `text` (the contents of `path`) in the given format.
pub fn parse(
    format: Format,
    text: &str,
    path: &Path,
    lenient: bool,
    sources: &Sources,
) -> Result<Plan, LoadError> {
    let file = path.display().to_string();
    Ok(match format {
        Format::Toml => Plan {
            format,
            jobs: parse_jobs(text, &file, &Job::default())?
                .into_iter()
                .map(PlannedJob::plain)
                .collect(),
            warnings: Vec::new(),
            cannot_run: None,
        },
        Format::Fio => super::fio_file::parse(text, path, lenient, sources)?,
        Format::Vdbench => super::vdbench_file::parse(text, path, sources)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart() {
        let p = Path::new("x");
        assert_eq!(detect(p, "[global]\nrw=read\n[a]\n"), Some(Format::Fio));
        assert_eq!(detect(p, "# c\n[global]\nqd = 1\n[[job]]\n"), Some(Format::Toml));
        assert_eq!(detect(p, "* c\nsd=sd1,lun=/dev/x\n"), Some(Format::Vdbench));
        assert_eq!(detect(p, "hello world\n"), None);
        assert_eq!(detect(Path::new("a.fio"), ""), Some(Format::Fio));
    }

    #[test]
    fn errors_show_line_and_column() {
        let e = FormatError {
            file: "a.fio".into(),
            line: 3,
            column: Some(5),
            message: "bad".into(),
        };
        assert_eq!(e.to_string(), "a.fio:3:5: bad");
    }
}
