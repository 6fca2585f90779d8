//! Job files in every format kura reads (native TOML, fio job files, vdbench
//! parameter files), told apart and translated into `Job`s before anything
//! runs. Errors name the file, the line and, where it helps, the column.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::job::Job;
use super::toml_file::{JobFileError, parse_jobs};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Fio,
    Vdbench,
}

impl Format {
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text.to_ascii_lowercase().as_str() {
            "toml" => Format::Toml,
            "fio" => Format::Fio,
            "vdbench" | "vdb" => Format::Vdbench,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Toml => "toml",
            Format::Fio => "fio",
            Format::Vdbench => "vdbench",
        }
    }
}

/// A problem at a place in a job file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct FormatError {
    pub file: String,
    /// 1-based; 0 when the problem is the file as a whole.
    pub line: usize,
    /// 1-based, in characters.
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, Some(col)) => write!(f, "{}:{line}:{col}: {}", self.file, self.message),
            (line, None) => write!(f, "{}:{line}: {}", self.file, self.message),
        }
    }
}

/// A place in a job file: which file (includes have their own), line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl Loc {
    pub fn error(&self, message: impl Into<String>) -> FormatError {
        FormatError {
            file: self.file.clone(),
            line: self.line,
            column: Some(self.column),
            message: message.into(),
        }
    }

    /// `file:line`, for warnings.
    pub fn short(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// A job whose rate is a share of what earlier jobs measured: vdbench's
/// `iorate=curve` runs at percentages of the rate its `max` run reached.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// Indices (into the plan) of the jobs of the max run.
    pub max_jobs: Vec<usize>,
    /// The job of the max run this one repeats; its share of the max run's I/Os
    /// is this job's share of the rate.
    pub repeats: usize,
    /// Percent of the max run's total rate.
    pub pct: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlannedJob {
    /// What the job belongs to (a vdbench run name), shown and stored as its test.
    pub test: Option<String>,
    pub job: Job,
    pub curve: Option<CurvePoint>,
}

impl PlannedJob {
    pub fn plain(job: Job) -> PlannedJob {
        PlannedJob {
            test: None,
            job,
            curve: None,
        }
    }
}

/// A job file translated: its jobs in order, and what the reader should know.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub format: Format,
    pub jobs: Vec<PlannedJob>,
    /// Options accepted without their full effect, or ignored under --lenient.
    pub warnings: Vec<String>,
    /// Set when the file is valid but kura cannot run it yet.
    pub cannot_run: Option<String>,
}

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
/// The most one included file may hold.
pub const MAX_INCLUDE_BYTES: usize = 1 << 20;
/// The most includes one job file may pull in, counting repeats: two includes
/// of a file that includes itself twice, nested, would otherwise fan out
/// exponentially.
pub const MAX_INCLUDES: usize = 64;
/// The most bytes all includes of one job file may hold together.
pub const MAX_INCLUDED_BYTES: usize = 16 << 20;
/// Names quoted back in errors and warnings are cut to this many characters,
/// so a file that is not a job file is never echoed at length.
const MAX_QUOTED_CHARS: usize = 40;

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

/// What a job file's includes have used of their budget ([`MAX_INCLUDES`],
/// [`MAX_INCLUDED_BYTES`]); a reader charges each include before lexing it.
#[derive(Debug, Default)]
pub struct IncludeBudget {
    count: usize,
    bytes: usize,
}

impl IncludeBudget {
    /// Counts one more include before it is read.
    pub fn open(&mut self, at: &Loc) -> Result<(), FormatError> {
        self.count += 1;
        if self.count > MAX_INCLUDES {
            return Err(at.error(format!(
                "more than {MAX_INCLUDES} includes in all (is a file included over and over?)"
            )));
        }
        Ok(())
    }

    /// Counts an included file's text once read; `name` is the included file.
    pub fn charge(&mut self, at: &Loc, name: &str, text: &str) -> Result<(), FormatError> {
        if text.len() > MAX_INCLUDE_BYTES {
            return Err(at.error(format!(
                "included file {name} is larger than {}",
                super::units::format_size(MAX_INCLUDE_BYTES as u64)
            )));
        }
        self.bytes += text.len();
        if self.bytes > MAX_INCLUDED_BYTES {
            return Err(at.error(format!(
                "includes hold more than {} in all",
                super::units::format_size(MAX_INCLUDED_BYTES as u64)
            )));
        }
        Ok(())
    }
}

/// A name or value for an error or warning, cut to a few dozen characters
/// and with control characters escaped: what is quoted may come from any file.
pub fn clip(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i == MAX_QUOTED_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
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

/// What a parser may look at besides the text: included files and the environment.
pub struct Sources<'a> {
    pub read: &'a dyn Fn(&Path) -> std::io::Result<String>,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

impl Sources<'_> {
    /// No files and an empty environment: for parsing text alone.
    pub fn none() -> Sources<'static> {
        Sources {
            read: &|_| Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            env: &|_| None,
        }
    }
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
        Format::Fio => super::fio::parse(text, path, lenient, sources)?,
        Format::Vdbench => super::vdbench::parse(text, path, sources)?,
    })
}

/// `dir/name` without touching the disk: `..` and `.` resolved by text.
pub fn join_normalized(dir: &Path, name: &str) -> PathBuf {
    let joined = dir.join(name);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
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
