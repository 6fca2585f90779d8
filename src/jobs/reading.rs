//! What every job-file reader shares: the formats, a position in a file and
//! the error that names it, the plan a reader produces, the sources it may
//! read (includes, environment) and their bounds. The TOML, fio and vdbench
//! readers use this module; none of them uses another.

use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::job::Job;

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

impl CurvePoint {
    /// The point's rate given what the max run measured. vdbench rounds
    /// curve rates up: to 100 above 1000, to 10 below.
    pub fn rate(&self, max_rate: f64) -> u64 {
        let rate = (max_rate as u64).saturating_mul(self.pct as u64) / 100;
        if rate > 1000 {
            rate.div_ceil(100) * 100
        } else {
            rate.div_ceil(10) * 10
        }
    }
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
