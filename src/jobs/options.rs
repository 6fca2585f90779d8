//! The one table of job options. Each option is defined here once: its key,
//! aliases, type and bounds, help, the kinds of workload that use it, whether
//! it decides comparability, and how it reads and writes its `Job` field.
//! Flags and `--help` (src/cli.rs), TOML keys (`Job::set`), the typed values
//! the fio and vdbench readers hand over (`Job::apply`), docs/jobs.md, the
//! identity `compare` matches on and the summary of a job all come from it.
//!
//! Adding an option: a field on `Job` (with `#[serde(default)]`, so stored
//! jobs still read), one entry below, and the code that honours it; then
//! `KURA_BLESS=1 cargo test --lib jobs::options` regenerates docs/jobs.md.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::job::{
    BlockSize, Distribution, EngineKind, Fill, Job, MAX_BS, MAX_QD, MAX_THREADS, Rw, SpecError,
    check_distribution, parse_block_sizes, parse_distribution, parse_engine, parse_fill,
};
use super::units::{UnitError, format_duration, format_size, parse_duration, parse_size};

/// A typed option value: what readers produce and what the table stores.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Count(u64),
    Bytes(u64),
    Duration(Duration),
    Bool(bool),
    Text(String),
    Path(PathBuf),
    Rw(Rw),
    BlockSizes(Vec<BlockSize>),
    Engine(EngineKind),
    Distribution(Distribution),
    Fill(Fill),
}

/// How an option's text reads, and the bounds its typed values must keep.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    Count {
        min: u64,
        max: u64,
    },
    Bytes {
        min: u64,
        max: u64,
    },
    Duration {
        min: Duration,
    },
    Bool,
    Text,
    Path,
    Rw,
    BlockSizes,
    Engine,
    Distribution,
    Fill,
    // Latency-bounded capacity.
    /// A duration that must name its unit (`6ms`): a latency limit.
    Latency,
    /// One of these words, stored as text.
    Choice(&'static [&'static str]),
}

/// Which workloads use an option. Run control is shared by every kind;
/// file-set, bonnie++ and SQL kinds get a variant here when they arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Run control: every kind of workload.
    Run,
    /// Block I/O on one file or device.
    Block,
    /// A file set under a directory (`Workload::FileSet`).
    FileSet,
    /// bonnie++'s tests: their parameters are `kura suite bonnie`'s flags.
    Bonnie,
    /// The database tests: their parameters are `kura suite db`'s flags.
    Database,
}

impl Scope {
    /// The kinds that use an option of this scope, as docs/jobs.md lists them.
    pub fn text(self) -> &'static str {
        match self {
            Scope::Run => "every kind",
            Scope::Block => "block I/O",
            Scope::FileSet => "file sets",
            Scope::Bonnie => "bonnie++",
            Scope::Database => "databases",
        }
    }
}

/// How an option is given on the command line of `kura run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `--key VALUE`.
    Value,
    /// `--key` alone sets it to true.
    Switch,
    /// No job flag, for the reason given.
    FileOnly(&'static str),
    /// No flag of `kura run`: a flag of this suite (`suite db`), the only
    /// maker of the jobs of the option's kind, which lists it itself
    /// (`cli::SuiteFlags`).
    Suite(&'static str),
}

impl Flag {
    /// Whether the option is a flag of `kura run` (and of `explain`).
    pub fn of_run(self) -> bool {
        matches!(self, Flag::Value | Flag::Switch)
    }
}

/// How `compare` names an option that decides comparability, when two
/// measurements differ in it: `queue depth 1 vs 32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ident {
    pub noun: &'static str,
    pub show: Show,
}

/// How `compare` writes the values of an identity option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// As the key takes it; unset is `none`.
    Plain,
    /// `70 %`.
    Percent,
    /// A size in report units; unset on either side (a whole device, an
    /// unknown size) is not named as a difference.
    Size,
    /// The word for true and the word for false, without the noun.
    Words(&'static str, &'static str),
}

/// The `--help` heading an option's flag is listed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Target,
    Workload,
    Stop,
    Pacing,
    Data,
    Report,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Target,
        Group::Workload,
        Group::Stop,
        Group::Pacing,
        Group::Data,
        Group::Report,
    ];

    pub fn heading(self) -> &'static str {
        match self {
            Group::Target => "Target",
            Group::Workload => "Workload",
            Group::Stop => "When to stop",
            Group::Pacing => "Pacing",
            Group::Data => "Data and syncs",
            Group::Report => "Naming and series",
        }
    }
}

type Get = fn(&Job) -> Option<Value>;
type Set = fn(&mut Job, Value) -> Result<(), String>;

/// One option, defined once.
#[derive(Clone, Copy)]
pub struct OptionDef {
    /// The TOML key; the flag is the same word with `-` for `_`.
    pub key: &'static str,
    /// Other words accepted for the key, in files and as flags.
    pub aliases: &'static [&'static str],
    /// fio's names of the option, the first the one fio-JSON export writes:
    /// what the fio job-file reader and fio-JSON import look up. Not
    /// aliases: those become kura flags and TOML keys, and fio's value
    /// syntax (units, per-direction lists, 0/1) is its own, translated by
    /// each fio reader and writer.
    pub fio: &'static [&'static str],
    pub ty: Type,
    /// One line for `--help` and docs/jobs.md.
    pub help: &'static str,
    /// More for docs/jobs.md only.
    pub more: &'static str,
    /// What an unset option means, where `Job::default()` leaves it `None`.
    pub unset: &'static str,
    value_name: &'static str,
    pub scope: Scope,
    /// Two measurements differing in it are not comparable; how compare names it.
    pub identity: Option<Ident>,
    pub flag: Flag,
    pub group: Group,
    /// The only option whose switch excludes this one's.
    pub conflicts: Option<&'static str>,
    /// A value the key takes, for tests and docs.
    pub example: &'static str,
    /// Listed among a job's extras in `explain` when it differs from the default.
    pub extra: bool,
    /// The job's value; `None` when unset.
    pub get: Get,
    /// Stores a value the type's bounds accept; refuses what else is wrong with it.
    set: Set,
}

impl fmt::Debug for OptionDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OptionDef")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

const fn opt(key: &'static str, ty: Type, group: Group, help: &'static str, get: Get, set: Set) -> OptionDef {
    OptionDef {
        key,
        aliases: &[],
        fio: &[],
        ty,
        help,
        more: "",
        unset: "",
        value_name: "",
        scope: Scope::Block,
        identity: None,
        flag: Flag::Value,
        group,
        conflicts: None,
        extra: false,
        example: "",
        get,
        set,
    }
}

impl OptionDef {
    const fn more(mut self, more: &'static str) -> Self {
        self.more = more;
        self
    }
    const fn unset(mut self, unset: &'static str) -> Self {
        self.unset = unset;
        self
    }
    const fn named(mut self, name: &'static str) -> Self {
        self.value_name = name;
        self
    }
    const fn run_control(mut self) -> Self {
        self.scope = Scope::Run;
        self
    }
    const fn identity(mut self, noun: &'static str, show: Show) -> Self {
        self.identity = Some(Ident { noun, show });
        self
    }
    const fn switch(mut self) -> Self {
        self.flag = Flag::Switch;
        self
    }
    const fn file_only(mut self, why: &'static str) -> Self {
        self.flag = Flag::FileOnly(why);
        self
    }
    const fn conflicts(mut self, key: &'static str) -> Self {
        self.conflicts = Some(key);
        self
    }
    const fn example(mut self, example: &'static str) -> Self {
        self.example = example;
        self
    }
    const fn extra(mut self) -> Self {
        self.extra = true;
        self
    }
    const fn file_set(mut self) -> Self {
        self.scope = Scope::FileSet;
        self
    }
    /// A parameter of the database tests: a flag of `kura suite db`, the
    /// only maker of database jobs, and no flag of `kura run`.
    const fn of_database(mut self) -> Self {
        self.scope = Scope::Database;
        self.flag = Flag::Suite("suite db");
        self
    }
    const fn fio(mut self, names: &'static [&'static str]) -> Self {
        self.fio = names;
        self
    }

    /// The flag's long name: the key with `-` for `_`.
    pub fn long(&self) -> String {
        self.key.replace('_', "-")
    }

    /// The placeholder of the flag's value in `--help`.
    pub fn value_name(&self) -> &'static str {
        if !self.value_name.is_empty() {
            return self.value_name;
        }
        match self.ty {
            Type::Count { .. } => "N",
            Type::Bytes { .. } | Type::BlockSizes => "SIZE",
            Type::Duration { .. } => "TIME",
            Type::Bool => "BOOL",
            Type::Text => "TEXT",
            Type::Path => "PATH",
            Type::Rw => "PATTERN",
            Type::Engine => "ENGINE",
            Type::Distribution => "SPREAD",
            Type::Fill => "DATA",
            Type::Latency => "TIME",
            Type::Choice(_) => "WORD",
        }
    }

    /// The value in `Job::default()`, as text, or what unset means.
    pub fn default_text(&self) -> Option<String> {
        match (self.get)(&Job::default()) {
            Some(v) => Some(v.to_string()),
            None if !self.unset.is_empty() => Some(self.unset.to_string()),
            None => None,
        }
    }

    /// What values the key takes, for docs/jobs.md.
    pub fn values_text(&self) -> String {
        match self.ty {
            Type::Count { min, max } if max >= u64::from(u32::MAX) => {
                if min == 0 { "number" } else { "number, at least 1" }.to_string()
            }
            Type::Count { min, max } => format!("{min}-{max}"),
            Type::Bytes { .. } => "size".into(),
            Type::Duration { .. } => "duration".into(),
            Type::Bool => "true/false".into(),
            Type::Text => "text".into(),
            Type::Path => "path".into(),
            Type::Rw => "`read` `write` `randread` `randwrite` `rw` `randrw` `trim` `randtrim` `trimwrite` `randtrimwrite`".into(),
            Type::BlockSizes => "size, or split `4k/60:64k/40`".into(),
            Type::Engine => "`io_uring` `sync` `null` `auto`".into(),
            Type::Distribution => "`uniform` `zipf:THETA` `pareto:H` `hotspot:PCT_IO/PCT_SPACE` `zoned:IO/PCT:IO/PCT...` `zoned_abs:IO/SIZE:IO/SIZE...`".into(),
            Type::Fill => "`random` `zero` `compressible:PCT`".into(),
            Type::Latency => "duration with its unit (`6ms`, `500us`)".into(),
            Type::Choice(words) => words
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Reads the option's text form (a flag's value, a TOML value).
    pub fn parse(&self, text: &str) -> Result<Value, SpecError> {
        let key = self.key;
        let unit = |source: UnitError| SpecError::Unit {
            key: key.into(),
            source,
        };
        let bad = |why: &str| invalid(key, text, why);
        Ok(match self.ty {
            Type::Count { .. } => {
                Value::Count(text.trim().parse().map_err(|_| bad("expected a whole number"))?)
            }
            Type::Bytes { .. } => Value::Bytes(parse_size(text).map_err(unit)?),
            Type::Duration { .. } => Value::Duration(parse_duration(text).map_err(unit)?),
            Type::Bool => Value::Bool(match text.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => return Err(bad("expected true or false")),
            }),
            Type::Text => Value::Text(text.to_string()),
            Type::Path => Value::Path(PathBuf::from(text)),
            Type::Rw => Value::Rw(
                Rw::parse(text)
                    .ok_or_else(|| bad("expected read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite or randtrimwrite"))?,
            ),
            Type::BlockSizes => Value::BlockSizes(parse_block_sizes(key, text)?),
            Type::Engine => {
                Value::Engine(parse_engine(text).ok_or_else(|| bad("expected io_uring, sync, null or auto"))?)
            }
            Type::Distribution => Value::Distribution(parse_distribution(key, text)?),
            Type::Fill => Value::Fill(parse_fill(key, text)?),
            Type::Latency => Value::Duration(super::latency::parse_limit(text).map_err(|w| bad(&w))?),
            Type::Choice(words) => {
                let word = text.trim().to_ascii_lowercase();
                if !words.contains(&word.as_str()) {
                    return Err(bad(&format!("expected {}", choice_list(words))));
                }
                Value::Text(word)
            }
        })
    }

    /// An error of this option without the key it begins with, for a
    /// line that names the flag instead: `--scale: '2' is not valid: ...`.
    pub fn error_text(&self, e: &SpecError) -> String {
        let text = e.to_string();
        text.strip_prefix(self.key)
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&text)
            .to_string()
    }

    /// Reads the option's text and checks it against the type's bounds: what
    /// a flag's value must pass before it reaches a job.
    pub fn read(&self, text: &str) -> Result<Value, SpecError> {
        let value = self.parse(text)?;
        self.check(&value).map_err(|why| invalid(self.key, text, why))?;
        Ok(value)
    }

    /// Checks a typed value against the type's bounds.
    fn check(&self, v: &Value) -> Result<(), String> {
        let range = |n: u64, min: u64, max: u64, show: fn(u64) -> String| {
            if n >= min && n <= max {
                Ok(())
            } else if max == u64::MAX && min == 1 {
                Err(format!("{} must be more than 0", self.key))
            } else if max == u64::MAX {
                Err(format!("must be at least {}", show(min)))
            } else {
                Err(format!("must be between {} and {}", show(min), show(max)))
            }
        };
        match (self.ty, v) {
            (Type::Count { min, max }, Value::Count(n)) => range(*n, min, max, |n| n.to_string()),
            (Type::Bytes { min, max }, Value::Bytes(n)) => range(*n, min, max, |n| match n {
                1 => "1 byte".into(),
                n => format_size(n),
            }),
            (Type::Duration { min }, Value::Duration(d)) if *d < min => {
                Err(if min == Duration::from_nanos(1) {
                    format!("{} must be more than 0", self.key)
                } else {
                    format!("{} must be at least {}", self.key, format_duration(min))
                })
            }
            (Type::BlockSizes, Value::BlockSizes(bs)) => {
                if bs.is_empty() {
                    return Err("no block size".into());
                }
                for b in bs {
                    if b.bytes == 0 || b.bytes > MAX_BS {
                        return Err(format!(
                            "block size must be between 1 byte and {}",
                            format_size(MAX_BS)
                        ));
                    }
                    if b.weight == 0 {
                        return Err("a split's weights must be at least 1".into());
                    }
                }
                Ok(())
            }
            (Type::Distribution, Value::Distribution(d)) => check_distribution(d),
            (Type::Latency, Value::Duration(d)) if d.is_zero() => {
                Err(format!("{} must be more than 0", self.key))
            }
            (Type::Choice(words), Value::Text(t)) if !words.contains(&t.as_str()) => {
                Err(format!("expected {}", choice_list(words)))
            }
            (Type::Fill, Value::Fill(Fill::Compressible { pct })) if *pct > 100 => {
                Err("compressible takes a percentage, 0 to 100".into())
            }
            (Type::Duration { .. }, Value::Duration(_))
            | (Type::Bool, Value::Bool(_))
            | (Type::Text, Value::Text(_))
            | (Type::Path, Value::Path(_))
            | (Type::Rw, Value::Rw(_))
            | (Type::Engine, Value::Engine(_))
            | (Type::Fill, Value::Fill(_))
            | (Type::Latency, Value::Duration(_))
            | (Type::Choice(_), Value::Text(_)) => Ok(()),
            (ty, v) => Err(format!("a {ty:?} value was expected, not {v:?}")),
        }
    }
}

/// `mean, p99 or p99.9`.
fn choice_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

pub(super) fn invalid(key: &str, value: &str, why: impl Into<String>) -> SpecError {
    SpecError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        why: why.into(),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Count(n) => write!(f, "{n}"),
            Value::Bytes(b) => f.write_str(&format_size(*b)),
            Value::Duration(d) => f.write_str(&format_duration(*d)),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => f.write_str(s),
            Value::Path(p) => write!(f, "{}", p.display()),
            Value::Rw(rw) => f.write_str(rw.name()),
            Value::BlockSizes(bs) => f.write_str(&super::job::block_sizes_text(bs)),
            Value::Engine(e) => f.write_str(e.name()),
            Value::Distribution(d) => f.write_str(&d.text()),
            Value::Fill(fill) => match fill {
                Fill::Random => f.write_str("random"),
                Fill::Zero => f.write_str("zero"),
                Fill::Compressible { pct } => write!(f, "compressible:{pct}"),
            },
        }
    }
}

/// Unwraps a value of the variant the option's type was checked to have.
macro_rules! take {
    ($v:expr, $variant:ident) => {
        match $v {
            Value::$variant(x) => x,
            other => return Err(format!("unexpected value {other:?}")),
        }
    };
}

fn nonzero(d: Duration) -> Option<Duration> {
    (!d.is_zero()).then_some(d)
}

/// Declares `Opt`, one variant per option, and `OPTIONS` in the same order,
/// so `OPTIONS[opt as usize]` is the definition of `opt`.
macro_rules! options {
    ($($opt:ident = $def:expr;)*) => {
        /// Every option by name in code: `job.apply(Opt::Qd, Value::Count(32))`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Opt { $($opt),* }
        /// The table, in the order of `--help` within each group and of docs/jobs.md.
        pub static OPTIONS: &[OptionDef] = &[$($def),*];
        impl Opt {
            /// Every option, in `OPTIONS` order.
            pub const ALL: &[Opt] = &[$(Opt::$opt),*];
        }
    };
}

const UNBOUNDED: u64 = u64::MAX;
const U32: u64 = u32::MAX as u64;
const ANY_TIME: Duration = Duration::ZERO;
const SOME_TIME: Duration = Duration::from_nanos(1);

options! {
    Name = opt("name", Type::Text, Group::Report, "Job name, shown in reports",
        |j| Some(Value::Text(j.name.clone())),
        |j, v| {
            let s = take!(v, Text);
            if s.trim().is_empty() {
                return Err("a job name cannot be empty".into());
            }
            j.name = s;
            Ok(())
        })
        .run_control()
        .more(" (`jobN` in a file)")
        .example("x")
        .fio(&["name"]);
    Target = opt("target", Type::Path, Group::Target, "File or block device",
        |j| j.target.clone().map(Value::Path),
        |j, v| {
            let p = take!(v, Path);
            if p.as_os_str().is_empty() {
                return Err("empty path".into());
            }
            j.target = Some(p);
            Ok(())
        })
        .named("PATH")
        .run_control()
        .unset("./kura-test.dat")
        .more(": a file (created and pre-filled when missing, the pre-fill's pages then dropped from the page cache \
               so the job starts with nothing cached, as tiotest's and fio's new files; an existing file is used as it \
               is, never resized) or a block device")
        .example("/tmp/x")
        .fio(&["filename"]);
    Rw = opt("rw", Type::Rw, Group::Workload, "Pattern and direction; rw/randrw mix reads and writes",
        |j| Some(Value::Rw(j.rw)),
        |j, v| { j.rw = take!(v, Rw); Ok(()) })
        .identity("access", Show::Plain)
        .more("; trim/randtrim discard blocks (fio's BLKDISCARD ioctl, block devices only) and destroy data as writes do; trimwrite/randtrimwrite write each block after trimming it")
        .example("randrw")
        .fio(&["rw", "readwrite"]);
    Bs = opt("bs", Type::BlockSizes, Group::Workload, "Block size, or a split like 4k/60:64k/40",
        |j| Some(Value::BlockSizes(j.bs.clone())),
        |j, v| { j.bs = take!(v, BlockSizes); Ok(()) })
        .identity("block size", Show::Plain)
        .more("; a split gives each size a share of the I/Os by weight")
        .example("4k/60:64k/40")
        .fio(&["bs", "blocksize"]);
    ReadPct = opt("read_pct", Type::Count { min: 0, max: 100 }, Group::Workload, "Share of reads in rw/randrw",
        |j| Some(Value::Count(j.read_pct.into())),
        |j, v| { j.read_pct = take!(v, Count) as u8; Ok(()) })
        .named("PCT")
        .identity("read share", Show::Percent)
        .example("70")
        .fio(&["rwmixread"]);
    Qd = opt("qd", Type::Count { min: 1, max: MAX_QD as u64 }, Group::Workload, "I/Os in flight per thread (queue depth)",
        |j| Some(Value::Count(j.qd.into())),
        |j, v| { j.qd = take!(v, Count) as u32; Ok(()) })
        .identity("queue depth", Show::Plain)
        .example("32")
        .fio(&["iodepth"]);
    Threads = opt("threads", Type::Count { min: 1, max: MAX_THREADS as u64 }, Group::Workload, "Worker threads, each with its own queue and file descriptor",
        |j| Some(Value::Count(j.threads.into())),
        |j, v| { j.threads = take!(v, Count) as u32; Ok(()) })
        .identity("threads", Show::Plain)
        .example("4")
        .fio(&["numjobs"])
        .run_control();
    Direct = opt("direct", Type::Bool, Group::Workload, "O_DIRECT, bypassing the page cache",
        |j| Some(Value::Bool(j.direct)),
        |j, v| { j.direct = take!(v, Bool); Ok(()) })
        .switch()
        .conflicts("buffered")
        .identity("", Show::Words("direct", "buffered"))
        .example("false")
        .fio(&["direct"]);
    Buffered = opt("buffered", Type::Bool, Group::Workload, "Through the page cache: the opposite of direct",
        |j| Some(Value::Bool(!j.direct)),
        |j, v| { j.direct = !take!(v, Bool); Ok(()) })
        .switch()
        .example("true")
        .fio(&["buffered"]);
    KeepCache = opt("keep_cache", Type::Bool, Group::Workload, "Buffered runs: keep the target's cached pages instead of dropping them first",
        |j| Some(Value::Bool(j.keep_cache)),
        |j, v| { j.keep_cache = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .more(" (by default they are dropped first, as fio's `invalidate=1` does)")
        .example("true")
        .fio(&["invalidate"]);
    Size = opt("size", Type::Bytes { min: 1, max: UNBOUNDED }, Group::Target, "Test-file size, or the span of a device used",
        |j| j.size_bytes.map(Value::Bytes),
        |j, v| { j.size_bytes = Some(take!(v, Bytes)); Ok(()) })
        .unset("1g for a new file; the file's size; the whole device")
        .identity("test size", Show::Size)
        .example("1g")
        .fio(&["size"]);
    Offset = opt("offset", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Target, "Where the span starts",
        |j| Some(Value::Bytes(j.offset_bytes)),
        |j, v| { j.offset_bytes = take!(v, Bytes); Ok(()) })
        .example("1m")
        .fio(&["offset", "fileoffset"]);
    Runtime = opt("runtime", Type::Duration { min: SOME_TIME }, Group::Stop, "How long to measure, e.g. 30s, 5m",
        |j| j.runtime.map(Value::Duration),
        |j, v| { j.runtime = Some(take!(v, Duration)); Ok(()) })
        .run_control()
        .unset("10s unless io_size, io_count or passes")
        .more(" (with io_size, io_count or passes: whichever comes first)")
        .example("5s")
        .fio(&["runtime", "timeout"]);
    IoSize = opt("io_size", Type::Bytes { min: 1, max: UNBOUNDED }, Group::Stop, "Stop after this many bytes (split over threads)",
        |j| j.io_size_bytes.map(Value::Bytes),
        |j, v| { j.io_size_bytes = Some(take!(v, Bytes)); Ok(()) })
        .example("1g")
        .fio(&["io_size", "io_limit"]);
    IoCount = opt("io_count", Type::Count { min: 1, max: UNBOUNDED }, Group::Stop, "Stop after exactly this many I/Os (split over threads)",
        |j| j.io_count.map(Value::Count),
        |j, v| { j.io_count = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .run_control()
        .example("100")
        .fio(&["number_ios"]);
    Passes = opt("passes", Type::Count { min: 1, max: U32 }, Group::Stop, "Stop after moving the whole span this many times, all threads together",
        |j| j.passes.map(Value::Count),
        |j, v| { j.passes = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .more(" (fio's default stop: `size` x `loops`)")
        .example("2");
    Ramp = opt("ramp", Type::Duration { min: ANY_TIME }, Group::Stop, "Run this long before measuring; those I/Os are not counted",
        |j| Some(Value::Duration(j.ramp)),
        |j, v| { j.ramp = take!(v, Duration); Ok(()) })
        .run_control()
        .example("1s")
        .fio(&["ramp_time"]);
    Engine = opt("engine", Type::Engine, Group::Workload, "io_uring, sync, null or auto (io_uring for direct I/O, sync for buffered)",
        |j| Some(Value::Engine(j.engine)),
        |j, v| { j.engine = take!(v, Engine); Ok(()) })
        .more(": io_uring hands buffered writes to kernel worker threads, which ran them at a third (sequential) to a thirtieth (4k random) of `write()`'s speed; name `io_uring` to measure that anyway. `sync` is pread/pwrite with one I/O in flight per thread (fio's `psync`); `null` does no I/O and measures kura itself (never comparable with a device)")
        .example("sync")
        .fio(&["ioengine"]);
    Distribution = opt("distribution", Type::Distribution, Group::Workload, "Spread of random offsets",
        |j| Some(Value::Distribution(j.distribution.clone())),
        |j, v| { j.distribution = take!(v, Distribution); Ok(()) })
        .identity("distribution", Show::Plain)
        .extra()
        .more("; zipf and pareto as fio computes them; `hotspot:80/20` sends 80 % of I/Os to the first 20 % of the span; `zoned:60/10:30/20:10/70` and `zoned_abs:60/1g:40/3g` as fio's zones, any number of them, laid out from the span's start")
        .example("zipf:1.2")
        .fio(&["random_distribution"]);
    RandomPct = opt("random_pct", Type::Count { min: 0, max: 100 }, Group::Workload, "Share of random I/Os that seek; the others continue where the previous I/O ended",
        |j| Some(Value::Count(j.random_pct.into())),
        |j, v| { j.random_pct = take!(v, Count) as u8; Ok(()) })
        .named("PCT")
        .extra()
        .more(" (fio's `percentage_random`, vdbench's `seekpct`)")
        .example("80")
        .fio(&["percentage_random"]);
    Align = opt("align", Type::Bytes { min: 1, max: MAX_BS }, Group::Workload, "Random offsets are multiples of this",
        |j| j.align.map(Value::Bytes),
        |j, v| { j.align = Some(take!(v, Bytes)); Ok(()) })
        .unset("smallest block size")
        .extra()
        .more(" (fio's `ba`, vdbench's `align`)")
        .example("4k")
        .fio(&["ba", "blockalign"]);
    Gap = opt("gap", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Workload, "Sequential jobs: skip this many bytes after each I/O",
        |j| Some(Value::Bytes(j.gap_bytes)),
        |j, v| {
            let gap = take!(v, Bytes);
            // Offsets of direct I/O must stay multiples of the sector size.
            if !gap.is_multiple_of(512) {
                return Err("must be a multiple of 512 bytes".into());
            }
            j.gap_bytes = gap;
            Ok(())
        })
        .identity("gap", Show::Plain)
        .extra()
        .more(", leaving holes (fio's `rw=read:4k` offset modifier); random jobs ignore it")
        .example("4k");
    // fio's backwards offset modifier (`rw=read:-8k`, backwards-read.fio).
    StepBack = opt("step_back", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Workload, "Sequential jobs: start each I/O this many bytes before the end of the last; twice the block size goes backwards",
        |j| Some(Value::Bytes(j.step_back_bytes)),
        |j, v| {
            let back = take!(v, Bytes);
            // Offsets of direct I/O must stay multiples of the sector size.
            if !back.is_multiple_of(512) {
                return Err("must be a multiple of 512 bytes".into());
            }
            j.step_back_bytes = back;
            Ok(())
        })
        .identity("step back", Show::Plain)
        .extra()
        .more(" (fio's `rw=read:-8k` offset modifier); before the span's start the next I/O wraps to the span's end less this, as fio's does; random jobs ignore it")
        .example("8k");
    // fio's zonemode=strided (disk-zone-profile.fio).
    ZoneSize = opt("zone_size", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Workload, "Zones: move this many bytes in a zone, then go on to the next (0: no zones)",
        |j| Some(Value::Bytes(j.zone_size_bytes)),
        |j, v| { j.zone_size_bytes = take!(v, Bytes); Ok(()) })
        .identity("zone size", Show::Plain)
        .extra()
        .more(" (fio's `zonemode=strided` with `zonesize`): sequential jobs go on from each zone's start, random ones stay inside the zone; a profile of speed across a disk")
        .example("256m")
        .fio(&["zonesize"]);
    ZoneRange = opt("zone_range", Type::Bytes { min: 1, max: UNBOUNDED }, Group::Workload, "Zones: a zone's length",
        |j| (j.zone_range_bytes > 0).then_some(Value::Bytes(j.zone_range_bytes)),
        |j, v| { j.zone_range_bytes = take!(v, Bytes); Ok(()) })
        .identity("zone range", Show::Plain)
        .unset("zone_size")
        .extra()
        .more(" (fio's `zonerange`): shorter than zone_size, the zone is moved through again until zone_size bytes are done")
        .example("128m")
        .fio(&["zonerange"]);
    ZoneSkip = opt("zone_skip", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Workload, "Zones: bytes skipped after each zone",
        |j| Some(Value::Bytes(j.zone_skip_bytes)),
        |j, v| { j.zone_skip_bytes = take!(v, Bytes); Ok(()) })
        .identity("zone skip", Show::Plain)
        .extra()
        .more(" (fio's `zoneskip`); past the span's end the zones start again from its start")
        .example("2g")
        .fio(&["zoneskip"]);
    FilePerThread = opt("file_per_thread", Type::Bool, Group::Target, "Each thread works on its own file TARGET.0, TARGET.1, ...",
        |j| Some(Value::Bool(j.file_per_thread)),
        |j, v| { j.file_per_thread = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .more(" (tiobench's layout; `kura suite tiobench` sets it)")
        .example("true");
    RateIops = opt("rate_iops", Type::Count { min: 1, max: UNBOUNDED }, Group::Pacing, "Cap on I/Os per second for the whole job",
        |j| j.rate_iops.map(Value::Count),
        |j, v| { j.rate_iops = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .run_control()
        .identity("rate_iops", Show::Plain)
        .example("1000")
        .fio(&["rate_iops"]);
    // fio's `rate`, paced as a fractional rate of I/Os.
    Rate = opt("rate", Type::Bytes { min: 1, max: UNBOUNDED }, Group::Pacing, "Cap on bytes per second for the whole job",
        |j| j.rate_bytes_per_sec.map(Value::Bytes),
        |j, v| { j.rate_bytes_per_sec = Some(take!(v, Bytes)); Ok(()) })
        .named("SIZE")
        .run_control()
        .identity("rate", Show::Plain)
        .more(": paced as I/Os per second of the mean block size, a fraction of one included (fio's `rate`; `1250` of 4k blocks is one I/O every 3.3 s); with `rate_iops` the lower cap holds")
        .example("1m")
        .fio(&["rate"]);
    StartDelay = opt("start_delay", Type::Duration { min: ANY_TIME }, Group::Pacing, "Wait this long before the job starts",
        |j| Some(Value::Duration(j.start_delay)),
        |j, v| { j.start_delay = take!(v, Duration); Ok(()) })
        .run_control()
        .extra()
        .more(" (fio's `startdelay`)")
        .example("1s")
        .fio(&["startdelay"]);
    ThinkTime = opt("think_time", Type::Duration { min: ANY_TIME }, Group::Pacing, "Pause this long after every think_every I/Os completed",
        |j| j.think_time.map(Value::Duration),
        |j, v| { j.think_time = nonzero(take!(v, Duration)); Ok(()) })
        .extra()
        .more(" (fio's `thinktime`)")
        .example("2ms")
        .fio(&["thinktime"])
        .run_control();
    ThinkEvery = opt("think_every", Type::Count { min: 1, max: U32 }, Group::Pacing, "I/Os between pauses",
        |j| j.think_every.map(|n| Value::Count(n.into())),
        |j, v| { j.think_every = Some(take!(v, Count) as u32); Ok(()) })
        .named("N")
        .unset("1")
        .extra()
        .more(" (fio's `thinktime_blocks`)")
        .example("4")
        .fio(&["thinktime_blocks"])
        .run_control();
    FsyncEvery = opt("fsync_every", Type::Count { min: 1, max: UNBOUNDED }, Group::Data, "fdatasync after every N writes issued per thread",
        |j| j.fsync_every.map(Value::Count),
        |j, v| { j.fsync_every = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .identity("fsync_every", Show::Plain)
        .extra()
        .more(", as fio's `fsync=N`. On io_uring the sync runs beside the next writes, \
               which keeps the queue full, and covers the writes completed before it starts (fio's \
               semantics); other engines, and jobs that verify, let the writes in flight complete, \
               counted, first. Exactly one sync per N writes: fio 3.33 on io_uring at an iodepth above 1 \
               queues another at every chance until one completes (io_u.c `get_rw_ddir`), about one per 2 \
               writes at iodepth 16 (bench/NOTES.md). Above qd 1 the run's header says how many reads and \
               writes were in flight on average (Little's law over their latencies), as the syncs may hold \
               the queue")
        .example("8")
        .fio(&["fdatasync", "fsync"]);
    EndFsync = opt("end_fsync", Type::Bool, Group::Data, "fdatasync once when the job's writes are done",
        |j| Some(Value::Bool(j.end_fsync)),
        |j, v| { j.end_fsync = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .example("true")
        .fio(&["end_fsync"]);
    Fill = opt("fill", Type::Fill, Group::Data, "Data written, and the test file's pre-fill",
        |j| Some(Value::Fill(j.fill)),
        |j, v| { j.fill = take!(v, Fill); Ok(()) })
        .extra()
        .example("compressible:50");
    Seed = opt("seed", Type::Count { min: 0, max: UNBOUNDED }, Group::Data, "Seed of offsets, block sizes, the read/write mix and written data",
        |j| j.seed.map(Value::Count),
        |j, v| { j.seed = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .run_control()
        .unset("from the clock, stored with the run")
        .more("; the run stores the seed it used, and the same seed repeats them")
        .example("42")
        .fio(&["randseed"]);
    Label = opt("label", Type::Text, Group::Report, "The run's label",
        |j| j.label.clone().map(Value::Text),
        |j, v| {
            j.label = Some(super::label::parse_label(&take!(v, Text)).map_err(|e| e.to_string())?);
            Ok(())
        })
        .run_control()
        .file_only("the run's own `--label` sets it")
        .example("ssd");
    Interval = opt("interval", Type::Duration { min: Duration::from_millis(10) }, Group::Report, "Period of the IOPS/latency series",
        |j| Some(Value::Duration(j.interval)),
        |j, v| { j.interval = take!(v, Duration); Ok(()) })
        .run_control()
        .extra()
        .example("500ms");
    JobGroup = opt("group", Type::Count { min: 0, max: U32 }, Group::Report, "Jobs next to each other with the same group run at the same time",
        |j| j.group.map(|g| Value::Count(g.into())),
        |j, v| { j.group = Some(take!(v, Count) as u32); Ok(()) })
        .run_control()
        .file_only("it joins neighbouring jobs of a file; flags describe one job")
        .more(" (fio's jobs between stonewalls, a vdbench run's workloads)")
        .example("2");
    // Latency-bounded capacity: runner/latency_bound.rs searches; docs/latency-bound.md.
    LatencyLimit = opt("latency_limit", Type::Latency, Group::Pacing, "Find the highest load whose latency stays under this bound, e.g. 6ms",
        |j| j.latency_limit_ns.map(|ns| Value::Duration(Duration::from_nanos(ns))),
        |j, v| {
            let d = take!(v, Duration);
            j.latency_limit_ns = Some(u64::try_from(d.as_nanos()).map_err(|_| "too long".to_string())?);
            Ok(())
        })
        .run_control()
        .unset("none: the job runs once at the load given")
        .extra()
        .more(": the job runs as a series of measured steps at rising load (latency_load), refined near the limit; every step is stored (the load-latency curve) and the highest load that held is the result. A unit is required")
        .example("6ms")
        .fio(&["latency_target"]);
    LatencyStat = opt("latency_stat", Type::Choice(super::latency::STAT_NAMES), Group::Pacing, "The latency statistic the limit holds",
        |j| j.latency_stat.map(|s| Value::Text(s.name().to_string())),
        |j, v| {
            let t = take!(v, Text);
            j.latency_stat = Some(super::latency::LatencyStat::parse(&t).ok_or("unknown statistic")?);
            Ok(())
        })
        .named("STAT")
        .run_control()
        .unset("mean")
        .extra()
        .more(", over every operation of a step (`max`: every operation under the limit, fio's `latency_percentile=100`)")
        .example("p99");
    LatencyLoad = opt("latency_load", Type::Choice(super::latency::LOAD_NAMES), Group::Pacing, "What the latency search raises: the offered rate, the queue depth or the threads",
        |j| j.latency_load.map(|l| Value::Text(l.name().to_string())),
        |j, v| {
            let t = take!(v, Text);
            j.latency_load = Some(super::latency::LatencyLoad::parse(&t).ok_or("unknown load")?);
            Ok(())
        })
        .named("LOAD")
        .run_control()
        .unset("rate")
        .extra()
        .more(": `rate` starts from a short unthrottled probe, `qd` and `threads` double from 1 up to the job's own qd or threads (256 and 64 when those are 1)")
        .example("qd");
    // File sets: each sets the job's `FileSetParams`, making a block job a file-set job.
    Mix = opt("mix", Type::Text, Group::Workload, "File-set operation mix: sfs97, swbuild, mdtest, mdtest-shared or OP=PCT,...",
        |j| fs_get(j, |p| p.mix.clone().map(Value::Text)),
        |j, v| {
            let text = take!(v, Text);
            super::fileset::Mix::parse(&text).map_err(|e| e.to_string())?;
            fs_mut(j)?.mix = Some(text);
            Ok(())
        })
        .named("MIX")
        .file_set()
        .extra()
        .identity("mix", Show::Plain)
        .unset("sfs97 when the job is a file set")
        .more(": a directory `target` with a mix is a file set in it (docs/filesets.md); OPs: create, delete, open, close, read, write, getattr, setattr, lookup, readdir, rename, mkdir, rmdir, fsync; the shares sum to 100")
        .example("read=50,write=50");
    Depth = opt("depth", Type::Count { min: 0, max: 16 }, Group::Target, "File sets: levels of directories",
        |j| fs_get(j, |p| p.depth.map(|n| Value::Count(n.into()))),
        |j, v| { fs_mut(j)?.depth = Some(take!(v, Count) as u32); Ok(()) })
        .file_set()
        .extra()
        .identity("depth", Show::Plain)
        .unset("1")
        .more(" (vdbench's `depth`)")
        .example("2");
    Width = opt("width", Type::Count { min: 1, max: 100_000 }, Group::Target, "File sets: directories in each directory",
        |j| fs_get(j, |p| p.width.map(|n| Value::Count(n.into()))),
        |j, v| { fs_mut(j)?.width = Some(take!(v, Count) as u32); Ok(()) })
        .file_set()
        .extra()
        .identity("width", Show::Plain)
        .unset("10")
        .more(" (vdbench's `width`)")
        .example("4");
    Files = opt("files", Type::Count { min: 0, max: U32 }, Group::Target, "File sets: files in each directory of the last level",
        |j| fs_get(j, |p| p.files.map(Value::Count)),
        |j, v| { fs_mut(j)?.files = Some(take!(v, Count)); Ok(()) })
        .file_set()
        .extra()
        .identity("files per directory", Show::Plain)
        .unset("100")
        .more(" (vdbench's `files`); more than 100,000 in all needs `force`")
        .example("50");
    FileSize = opt("file_size", Type::Text, Group::Target, "File sets: file size, or a distribution (4k,50,1m,50)",
        |j| fs_get(j, |p| p.file_size.clone().map(Value::Text)),
        |j, v| {
            let text = take!(v, Text);
            let sizes = super::fileset::FileSizes::parse(&text)?;
            fs_mut(j)?.file_size = Some(sizes.to_string());
            Ok(())
        })
        .named("SIZE")
        .file_set()
        .extra()
        .identity("file size", Show::Plain)
        .unset("4k")
        .more(" (vdbench's `size` and `sizes`: sizes with their percentages of the files)")
        .example("64k");
    Xfersize = opt("xfersize", Type::Bytes { min: 1, max: MAX_BS }, Group::Workload, "File sets: bytes per read or write",
        |j| fs_get(j, |p| p.xfersize_bytes.map(Value::Bytes)),
        |j, v| { fs_mut(j)?.xfersize_bytes = Some(take!(v, Bytes)); Ok(()) })
        .file_set()
        .extra()
        .identity("xfersize", Show::Plain)
        .unset("the whole file")
        .more(" (vdbench's `xfersize`)")
        .example("8k");
    Fileio = opt("fileio", Type::Text, Group::Workload, "File sets: random or sequential offsets of xfersize transfers",
        |j| fs_get(j, |p| p.fileio.map(|f| Value::Text(f.name().to_string()))),
        |j, v| {
            let text = take!(v, Text);
            let io = super::fileset::FileIo::parse(&text).ok_or("expected random or sequential")?;
            fs_mut(j)?.fileio = Some(io);
            Ok(())
        })
        .named("ORDER")
        .file_set()
        .extra()
        .identity("fileio", Show::Plain)
        .unset("random")
        .more(" (vdbench's `fileio`)")
        .example("sequential");
    Fileselect = opt("fileselect", Type::Text, Group::Workload, "File sets: which file next: random, sequential, zipf or zipf:THETA",
        |j| fs_get(j, |p| p.fileselect.map(|f| Value::Text(f.to_string()))),
        |j, v| {
            let text = take!(v, Text);
            let sel = super::fileset::FileSelect::parse(&text)
                .ok_or("expected random, sequential, zipf or zipf:THETA (THETA more than 0)")?;
            fs_mut(j)?.fileselect = Some(sel);
            Ok(())
        })
        .named("ORDER")
        .file_set()
        .extra()
        .identity("fileselect", Show::Plain)
        .unset("random")
        .more(" (vdbench's `fileselect`; zipf's THETA defaults to 1.2)")
        .example("sequential");
    Force = opt("force", Type::Bool, Group::Target, "File sets: allow more than 100,000 files",
        |j| Some(Value::Bool(super::fileset::FileSetParams::get(j, |p| Some(p.force)).unwrap_or(false))),
        |j, v| super::fileset::FileSetParams::set_switch(j, take!(v, Bool), |p| &mut p.force))
        .switch()
        .file_set()
        .example("true");
    FsyncOnClose = opt("fsync_on_close", Type::Bool, Group::Data, "File sets: fsync each file a create or write changed before closing it, inside the timed operation",
        |j| Some(Value::Bool(super::fileset::FileSetParams::get(j, |p| Some(p.fsync_on_close)).unwrap_or(false))),
        |j, v| super::fileset::FileSetParams::set_switch(j, take!(v, Bool), |p| &mut p.fsync_on_close))
        .switch()
        .file_set()
        .extra()
        .identity("fsync on close", Show::Plain)
        .more(" (fio's `fsync_on_close` on its file engines; vdbench's `fwd` with `openflags=o_sync` syncs every write instead)")
        .example("true");
    // The database tests (`kura suite db`): each sets the job's `DbParams`;
    // only the suite makes database jobs, from `DbParams::template`.
    Server = opt("server", Type::Text, Group::Target, "sqlite (embedded), or a server kura starts with its data in DIR: postgres, mariadb",
        |j| db_get(j, |p| Value::Text(p.server.to_string())),
        |j, v| { db_mut(j)?.server = super::db_params::Server::parse(&take!(v, Text))?; Ok(()) })
        .named("SERVER")
        .of_database()
        .identity("server", Show::Plain)
        .unset("sqlite")
        .more(" (docs/db.md)")
        .example("postgres");
    Scale = opt("scale", Type::Text, Group::Workload, "Fraction of sql-bench's loop and row counts, 0.001 to 1",
        |j| db_get(j, |p| Value::Text(p.scale().to_string())),
        |j, v| { db_mut(j)?.scale_permille = super::db_params::parse_scale(&take!(v, Text))?; Ok(()) })
        .named("SCALE")
        .of_database()
        .identity("scale", Show::Plain)
        .unset("0.01")
        .more(", in steps of 0.001 (1 is sql-bench's full size)")
        .example("0.1");
    Synchronous = opt("synchronous", Type::Text, Group::Data, "SQLite's PRAGMA synchronous: off, normal, full or extra",
        |j| db_get(j, |p| Value::Text(p.synchronous.name().to_string())),
        |j, v| { db_mut(j)?.synchronous = super::db_params::Synchronous::parse(&take!(v, Text))?; Ok(()) })
        .named("MODE")
        .of_database()
        .identity("synchronous", Show::Plain)
        .unset("full")
        .more(" (or SQLite's 0 to 3)")
        .example("normal");
    JournalMode = opt("journal_mode", Type::Text, Group::Data, "SQLite's journal mode: delete (rollback journal) or wal",
        |j| db_get(j, |p| Value::Text(p.journal.name().to_string())),
        |j, v| { db_mut(j)?.journal = super::db_params::Journal::parse(&take!(v, Text))?; Ok(()) })
        .named("MODE")
        .of_database()
        .identity("journal", Show::Plain)
        .unset("delete")
        .more(" (SQLite's `PRAGMA journal_mode`; `--journal` in `kura suite db` too)")
        .example("wal");
    ServerSync = opt("server_sync", Type::Text, Group::Data, "A server's commit durability: PostgreSQL's synchronous_commit (on, off, local, remote_write, remote_apply), MariaDB's innodb_flush_log_at_trx_commit (0, 1, 2)",
        |j| super::db_params::DbParams::of(j).and_then(|p| p.server_sync.clone()).map(Value::Text),
        |j, v| { db_mut(j)?.server_sync = Some(super::db_params::server_sync_word(&take!(v, Text))?); Ok(()) })
        .named("MODE")
        .of_database()
        .identity("server sync", Show::Plain)
        .unset("on (postgres), 1 (mariadb)")
        .more("; SQLite takes `synchronous` and `journal_mode` instead")
        .example("off");
    Tables = opt("tables", Type::Count { min: 1, max: 1000 }, Group::Workload, "OLTP mix: tables (sysbench --tables)",
        |j| db_get(j, |p| Value::Count(p.oltp_tables.into())),
        |j, v| { db_mut(j)?.oltp_tables = take!(v, Count) as u32; Ok(()) })
        .of_database()
        .identity("tables", Show::Plain)
        .unset("1")
        .example("4");
    TableSize = opt("table_size", Type::Count { min: 1, max: 1_000_000_000 }, Group::Workload, "OLTP mix: rows per table (sysbench --table-size)",
        |j| db_get(j, |p| Value::Count(p.oltp_table_size)),
        |j, v| { db_mut(j)?.oltp_table_size = take!(v, Count); Ok(()) })
        .named("ROWS")
        .of_database()
        .identity("table size", Show::Plain)
        .unset("10000")
        .example("100000");
    // Long runs: what the interval series must show to be told.
    ChangePct = opt("change_pct", Type::Count { min: 1, max: 1000 }, Group::Report, "Tell a step of the series larger than this, in percent",
        |j| j.change_pct.map(|n| Value::Count(n.into())),
        |j, v| { j.change_pct = Some(take!(v, Count) as u32); Ok(()) })
        .named("PCT")
        .run_control()
        .unset("20")
        .extra()
        .more(": a sustained shift of IOPS (or of latency at a steady rate) is reported as a sentence, stored with the run and marked on the chart (docs/long-runs.md)")
        .example("30");
    ChangePeriods = opt("change_periods", Type::Count { min: 2, max: 100_000 }, Group::Report, "A level must last this many periods, before and after a step, to be told",
        |j| j.change_periods.map(|n| Value::Count(n.into())),
        |j, v| { j.change_periods = Some(take!(v, Count) as u32); Ok(()) })
        .named("N")
        .run_control()
        .unset("5")
        .extra()
        .example("10");
    SpikeFactor = opt("spike_factor", Type::Count { min: 2, max: 10_000 }, Group::Report, "A period whose p99 latency exceeds this many times the median p99 is a spike",
        |j| j.spike_factor.map(|n| Value::Count(n.into())),
        |j, v| { j.spike_factor = Some(take!(v, Count) as u32); Ok(()) })
        .named("N")
        .run_control()
        .unset("5")
        .extra()
        .more("; the share of such periods, the first and the worst are reported")
        .example("10");
    // Preconditioning and steady state.
    Precondition = opt("precondition", Type::Text, Group::Stop, "Before measuring: seq (write the span twice in 128k), seq:N, or random (4k random writes until steady)",
        |j| j.precondition.map(|p| Value::Text(p.to_string())),
        |j, v| {
            j.precondition = Some(super::precondition::Precondition::parse(&take!(v, Text))?);
            Ok(())
        })
        .named("KIND")
        .unset("none")
        .extra()
        .more(": SNIA PTS 2.0.2's workload-independent (seq) and workload-dependent (random) preconditioning; the preconditioning runs as a job of its own, stored with the run (docs/long-runs.md)")
        .example("seq:3");
    UntilSteady = opt("until_steady", Type::Text, Group::Stop, "Repeat the job in rounds until iops, bw or lat is steady (SNIA PTS 2.0.2: 5 rounds within 20 %, slope within 10 %)",
        |j| j.until_steady.map(|t| Value::Text(t.name().into())),
        |j, v| {
            let text = take!(v, Text);
            j.until_steady = Some(
                crate::jobs::Tracked::parse(&text).ok_or("expected iops, bw or lat")?,
            );
            Ok(())
        })
        .named("FIGURE")
        .unset("one round")
        .extra()
        .more("; each round is the job with its runtime, stored as `ROUND N`; at most 25 rounds")
        .example("iops")
        .run_control();
    // Caches and verify.
    MemLimit = opt("mem_limit", Type::Bytes { min: 16 << 20, max: UNBOUNDED }, Group::Workload, "Cap the memory (and so the page cache) the job may use",
        |j| j.mem_limit_bytes.map(Value::Bytes),
        |j, v| { j.mem_limit_bytes = Some(take!(v, Bytes)); Ok(()) })
        .identity("memory limit", Show::Plain)
        .extra()
        .more(": the job runs in a memory cgroup of this size after the target's cached pages are dropped, as booting with `mem=512M` did; see docs/caches.md")
        .example("512m")
        .run_control();
    Verify = opt("verify", Type::Bool, Group::Data, "Written blocks carry a checked header; reads check it and writes are read back",
        |j| Some(Value::Bool(j.verify)),
        |j, v| { j.verify = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .more(" (fio's `verify=crc32c`, vdbench's data validation); a read job verifies data written earlier; see docs/verify.md")
        .example("true")
        .fio(&["verify"]);
    Journal = opt("journal", Type::Path, Group::Data, "With verify: record the blocks each flush made durable, for a verify after a crash",
        |j| j.journal.clone().map(Value::Path),
        |j, v| { j.journal = Some(take!(v, Path)); Ok(()) })
        .extra()
        .more(" (vdbench's `-j`, with fio's rule that only flushed writes are expected); a read job with a journal checks what it lists")
        .example("/var/tmp/kura.journal");
    MaxErrors = opt("max_errors", Type::Count { min: 1, max: UNBOUNDED }, Group::Stop, "Stop a thread after this many failed I/Os or verify mismatches",
        |j| j.max_errors.map(Value::Count),
        |j, v| { j.max_errors = Some(take!(v, Count)); Ok(()) })
        .named("N")
        .unset("never: errors are counted and the job goes on")
        .extra()
        .example("10");
    // fio's ecosystem: fio's log files (report/fio_logs.rs).
    WriteBwLog = opt("write_bw_log", Type::Path, Group::Report, "Write fio's bandwidth log PREFIX_bw.N.log (KiB/s per interval and direction)",
        |j| j.write_bw_log.clone().map(Value::Path),
        |j, v| { j.write_bw_log = Some(log_prefix(take!(v, Path))?); Ok(()) })
        .run_control()
        .named("PREFIX")
        .extra()
        .more(": fio's windowed log format, one line per `interval` (fio's `log_avg_msec`) and direction")
        .example("ssd")
        .fio(&["write_bw_log"]);
    WriteIopsLog = opt("write_iops_log", Type::Path, Group::Report, "Write fio's IOPS log PREFIX_iops.N.log",
        |j| j.write_iops_log.clone().map(Value::Path),
        |j, v| { j.write_iops_log = Some(log_prefix(take!(v, Path))?); Ok(()) })
        .run_control()
        .named("PREFIX")
        .extra()
        .example("ssd")
        .fio(&["write_iops_log"]);
    WriteLatLog = opt("write_lat_log", Type::Path, Group::Report, "Write fio's latency log PREFIX_lat.N.log (mean ns per interval and direction)",
        |j| j.write_lat_log.clone().map(Value::Path),
        |j, v| { j.write_lat_log = Some(log_prefix(take!(v, Path))?); Ok(()) })
        .run_control()
        .named("PREFIX")
        .extra()
        .more(" (kura's latency is fio's `lat`; fio's `clat` and `slat` logs are not written)")
        .example("ssd")
        .fio(&["write_lat_log"]);
    RateProcess = opt("rate_process", Type::Text, Group::Pacing, "How rate-limited I/Os are spaced: linear (evenly) or poisson (exponential gaps, mean 1/rate)",
        |j| Some(Value::Text(if j.rate_poisson { "poisson" } else { "linear" }.into())),
        |j, v| { j.rate_poisson = rate_process(take!(v, Text))?; Ok(()) })
        .run_control()
        .named("PROCESS")
        .extra()
        .more(" (fio's `rate_process`; with `rate_iops`)")
        .example("poisson")
        .fio(&["rate_process"]);
    // Options job files people write (jobs/open_sync.rs, byte_pattern.rs, rate_min.rs).
    BsWrite = opt("bs_write", Type::BlockSizes, Group::Workload, "Writes' block size or split, when it differs from reads' (bs)",
        |j| j.bs_write.clone().map(Value::BlockSizes),
        |j, v| { j.bs_write = Some(take!(v, BlockSizes)); Ok(()) })
        .unset("bs")
        .extra()
        .more(" (fio's `bs=R,W` and `bssplit=R,W`)")
        .example("64k");
    OffsetIncrement = opt("offset_increment", Type::Bytes { min: 0, max: UNBOUNDED }, Group::Target, "Thread N's span starts N times this further in",
        |j| Some(Value::Bytes(j.offset_increment_bytes)),
        |j, v| {
            let inc = take!(v, Bytes);
            if !inc.is_multiple_of(512) {
                return Err("must be a multiple of 512 bytes".into());
            }
            j.offset_increment_bytes = inc;
            Ok(())
        })
        .extra()
        .more("; each thread's span is the job's less `(threads - 1)` increments (fio's `offset_increment`, each clone's region)")
        .example("1m")
        .fio(&["offset_increment"]);
    OpenSync = opt("open_sync", Type::Choice(super::open_sync::OPEN_SYNC_WORDS), Group::Data, "Open the target with O_SYNC (sync) or O_DSYNC (dsync): each write returns once durable",
        |j| Some(Value::Text(super::open_sync::OpenSync::name(j.open_sync).into())),
        |j, v| { j.open_sync = super::open_sync::OpenSync::parse(&take!(v, Text))?; Ok(()) })
        .identity("synchronous writes", Show::Plain)
        .extra()
        .more(" (fio's `sync=1` and `sync=dsync`)")
        .example("dsync")
        .fio(&["sync"]);
    BufferPattern = opt("buffer_pattern", Type::Text, Group::Data, "Written blocks hold this byte pattern, repeated: 0xHEX and \"text\" parts",
        |j| j.buffer_pattern.clone().map(Value::Text),
        |j, v| {
            let bytes = super::byte_pattern::parse_pattern(&take!(v, Text))?;
            j.buffer_pattern = Some(super::byte_pattern::pattern_hex(&bytes));
            Ok(())
        })
        .named("PATTERN")
        .extra()
        .more(" (fio's `buffer_pattern`; it replaces `fill` for written blocks)")
        .example("0xdeadbeef")
        .fio(&["buffer_pattern"]);
    ExitAll = opt("exit_all", Type::Bool, Group::Stop, "When one job of a group ends, stop the others",
        |j| Some(Value::Bool(j.exit_all)),
        |j, v| { j.exit_all = take!(v, Bool); Ok(()) })
        .run_control()
        .switch()
        .extra()
        .more(" (fio's `exitall`)")
        .example("true")
        .fio(&["exitall"]);
    RateMin = opt("rate_min", Type::Text, Group::Pacing, "Each thread fails below this many bytes per second, R,W",
        |j| j.rate_min.and_then(|r| super::rate_min::per_dir_text(r.read_bytes_per_sec, r.write_bytes_per_sec, format_size)).map(Value::Text),
        |j, v| {
            let (r, w) = super::rate_min::parse_per_dir(&take!(v, Text), |t| parse_size(t).map_err(|e| e.to_string()))?;
            let m = j.rate_min.get_or_insert_with(Default::default);
            (m.read_bytes_per_sec, m.write_bytes_per_sec) = (r, w);
            Ok(())
        })
        .named("R,W")
        .extra()
        .more(": checked every second after two (fio's `rate_min`, per clone); the run fails")
        .example("1m,")
        .fio(&["rate_min", "ratemin"]);
    RateIopsMin = opt("rate_iops_min", Type::Text, Group::Pacing, "Each thread fails below this many I/Os per second, R,W",
        |j| j.rate_min.and_then(|r| super::rate_min::per_dir_text(r.read_iops, r.write_iops, |n| n.to_string())).map(Value::Text),
        |j, v| {
            let (r, w) = super::rate_min::parse_per_dir(&take!(v, Text), |t| t.parse::<u64>().map_err(|_| format!("'{t}' is not a whole number")))?;
            let m = j.rate_min.get_or_insert_with(Default::default);
            (m.read_iops, m.write_iops) = (r, w);
            Ok(())
        })
        .named("R,W")
        .extra()
        .more(": checked every second after two (fio's `rate_iops_min`, per clone); the run fails")
        .example("100")
        .fio(&["rate_iops_min"]);
    WriteHistLog = opt("write_hist_log", Type::Path, Group::Report, "Write fio's latency histogram log PREFIX_clat_hist.N.log: per interval and direction, the completions in each of fio's 1856 log-linear latency bins",
        |j| j.write_hist_log.clone().map(Value::Path),
        |j, v| { j.write_hist_log = Some(log_prefix(take!(v, Path))?); Ok(()) })
        .run_control()
        .named("PREFIX")
        .extra()
        .more(" (fio's format, read by its tools/hist/fiologparser_hist.py; the window is `interval`, fio's `log_hist_msec`; kura's latency is fio's `lat`, binned from its own histogram by fio's bin edges)")
        .example("ssd")
        .fio(&["write_hist_log"]);
    HistCoarseness = opt("hist_coarseness", Type::Count { min: 0, max: 6 }, Group::Report, "Histogram log: sum each 2^N of fio's bins into one (fio's `log_hist_coarseness`)",
        |j| Some(Value::Count(j.hist_coarseness.into())),
        |j, v| { j.hist_coarseness = take!(v, Count) as u8; Ok(()) })
        .extra()
        .example("2")
        .fio(&["log_hist_coarseness"]);
    DedupePct = opt("dedupe_pct", Type::Count { min: 0, max: 100 }, Group::Data, "Share of written blocks that repeat the last unique block written, so a deduplicating device stores them once",
        |j| Some(Value::Count(j.dedupe_pct.into())),
        |j, v| { j.dedupe_pct = take!(v, Count) as u8; Ok(()) })
        .extra()
        .more(" (fio's `dedupe_percentage` with its default `dedupe_mode=repeat`: each write is drawn a repeat with this chance; the others are unique)")
        .example("30")
        .fio(&["dedupe_percentage"]);
    // fio's dedupe_mode=working_set and dedupe_global (dedupe-global.fio).
    DedupeWorkingSet = opt("dedupe_working_set", Type::Count { min: 0, max: 100 }, Group::Data, "Repeated blocks are drawn from a working set of this share of the span (0: the last unique block)",
        |j| Some(Value::Count(j.dedupe_working_set_pct.into())),
        |j, v| { j.dedupe_working_set_pct = take!(v, Count) as u8; Ok(()) })
        .named("PCT")
        .extra()
        .more(" (fio's `dedupe_mode=working_set` with `dedupe_working_set_percentage`: a repeat is one of span x PCT / block size blocks, at random)")
        .example("5")
        .fio(&["dedupe_working_set_percentage"]);
    DedupeGlobal = opt("dedupe_global", Type::Bool, Group::Data, "Every job's and thread's dedupe working set is the same blocks",
        |j| Some(Value::Bool(j.dedupe_global)),
        |j, v| { j.dedupe_global = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .more(" (fio's `dedupe_global`): a deduplicating device finds repeats across jobs")
        .example("true")
        .fio(&["dedupe_global"]);
    // fio's flow control (flow.fio, butterfly.fio), worker/flow.rs.
    Flow = opt("flow", Type::Count { min: 0, max: 1000 }, Group::Pacing, "Weight of this job in its flow: jobs running together with the same flow_id issue I/Os in the ratio of their weights",
        |j| Some(Value::Count(j.flow)),
        |j, v| { j.flow = take!(v, Count); Ok(()) })
        .named("WEIGHT")
        .run_control()
        .identity("flow", Show::Plain)
        .extra()
        .more(" (fio's token-based `flow`: a thread whose share of the flow's I/Os is above its share of the weights waits; 0: no flow control)")
        .example("8")
        .fio(&["flow"]);
    FlowId = opt("flow_id", Type::Count { min: 0, max: UNBOUNDED }, Group::Pacing, "The flow a job with a flow weight is in",
        |j| Some(Value::Count(j.flow_id)),
        |j, v| { j.flow_id = take!(v, Count); Ok(()) })
        .named("N")
        .run_control()
        .extra()
        .example("2")
        .fio(&["flow_id"]);
    FlowSleep = opt("flow_sleep", Type::Duration { min: ANY_TIME }, Group::Pacing, "How long a thread held back by its flow waits before it tries again",
        |j| Some(Value::Duration(Duration::from_nanos(j.flow_sleep_ns))),
        |j, v| { j.flow_sleep_ns = u64::try_from(take!(v, Duration).as_nanos()).map_err(|_| "too long".to_string())?; Ok(()) })
        .run_control()
        .extra()
        .more(" (fio's `flow_sleep`, microseconds when bare in a fio file; 0: until the others have caught up, checked every 20 us)")
        .example("1ms")
        .fio(&["flow_sleep"]);
    // fio's steady-state stop (steadystate.fio), jobs/steady_stop.rs.
    SteadyStop = opt("steady_stop", Type::Text, Group::Stop, "End the job once its last steady_window of IOPS or bandwidth holds this: iops:10%, iops_slope:0.01%, bw:..., bw_slope:1%",
        |j| j.steady_stop.map(|r| Value::Text(r.name())),
        |j, v| { j.steady_stop = Some(super::steady_stop::SteadyRule::parse(&take!(v, Text))?); Ok(()) })
        .named("RULE")
        .run_control()
        .unset("none: the job runs its course")
        .extra()
        .more(" (fio's `ss`: `iops`/`bw` the largest deviation from the window's mean, `_slope` the slope of its least-squares line, a share of the mean with `%`; judged every interval on the job's per-interval figures, after steady_ramp; whether and when it held is told)")
        .example("iops:10%")
        .fio(&["steadystate", "ss"]);
    SteadyWindow = opt("steady_window", Type::Duration { min: ANY_TIME }, Group::Stop, "The window steady_stop judges",
        |j| Some(Value::Duration(Duration::from_nanos(j.steady_window_ns))),
        |j, v| { j.steady_window_ns = u64::try_from(take!(v, Duration).as_nanos()).map_err(|_| "too long".to_string())?; Ok(()) })
        .run_control()
        .extra()
        .more(" (fio's `ss_dur`)")
        .example("30s")
        .fio(&["steadystate_duration", "ss_dur"]);
    SteadyRamp = opt("steady_ramp", Type::Duration { min: ANY_TIME }, Group::Stop, "Figures before this are not judged by steady_stop",
        |j| Some(Value::Duration(Duration::from_nanos(j.steady_ramp_ns))),
        |j, v| { j.steady_ramp_ns = u64::try_from(take!(v, Duration).as_nanos()).map_err(|_| "too long".to_string())?; Ok(()) })
        .run_control()
        .extra()
        .more(" (fio's `ss_ramp`)")
        .example("10s")
        .fio(&["steadystate_ramp_time", "ss_ramp"]);
    CreateOnOpen = opt("create_on_open", Type::Bool, Group::Target, "A test file kura creates is left empty instead of laid out (pre-filled): the measured writes grow it, file allocation included; an existing file is used as it is",
        |j| Some(Value::Bool(j.create_on_open)),
        |j, v| { j.create_on_open = take!(v, Bool); Ok(()) })
        .switch()
        .extra()
        .more(" (fio's `create_on_open=1`; write jobs only)")
        .example("true")
        .fio(&["create_on_open"]);
}

/// A database parameter of the job; `None` for other kinds.
fn db_get(j: &Job, f: impl Fn(&super::db_params::DbParams) -> Value) -> Option<Value> {
    super::db_params::DbParams::of(j).map(f)
}

fn db_mut(j: &mut Job) -> Result<&mut super::db_params::DbParams, String> {
    super::db_params::DbParams::of_mut(j)
}

/// A file-set parameter of the job; `None` for other kinds.
fn fs_get(j: &Job, f: impl Fn(&super::fileset::FileSetParams) -> Option<Value>) -> Option<Value> {
    super::fileset::FileSetParams::get(j, f)
}

fn fs_mut(j: &mut Job) -> Result<&mut super::fileset::FileSetParams, String> {
    super::fileset::FileSetParams::of_mut(j)
}

/// `rate_process`: fio's two words.
fn rate_process(text: String) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "linear" => Ok(false),
        "poisson" => Ok(true),
        _ => Err("must be linear or poisson".into()),
    }
}

/// A log prefix: a path whose last part names the files (`dir/ssd` ->
/// `dir/ssd_bw.1.log`), not a directory.
fn log_prefix(p: PathBuf) -> Result<PathBuf, String> {
    let text = p.to_string_lossy();
    if text.is_empty() || text.ends_with('/') {
        return Err("needs a file name prefix, such as `logs/ssd`".into());
    }
    Ok(p)
}

impl Opt {
    pub fn def(self) -> &'static OptionDef {
        &OPTIONS[self as usize]
    }

    /// fio's name of the option, as fio-JSON export writes it.
    pub fn fio_name(self) -> &'static str {
        self.def().fio.first().copied().unwrap_or(self.def().key)
    }

    /// The option fio calls `name`, for fio's job files and fio-JSON.
    pub fn by_fio_name(name: &str) -> Option<Opt> {
        Opt::ALL.iter().copied().find(|o| o.def().fio.contains(&name))
    }
}

/// The option a key or alias names.
pub fn find(key: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|d| d.key == key || d.aliases.contains(&key))
}

impl Job {
    /// Sets one key from its text form. Flags and TOML job files land here.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), SpecError> {
        let def = find(key).ok_or_else(|| SpecError::UnknownKey(key.to_string()))?;
        let value = def.parse(text)?;
        def.check(&value)
            .and_then(|()| (def.set)(self, value))
            .map_err(|why| invalid(def.key, text, why))
    }

    /// Sets one option from a typed value: what the fio and vdbench readers
    /// hand over. The same bounds hold as for text.
    pub fn apply(&mut self, opt: Opt, value: Value) -> Result<(), SpecError> {
        let def = opt.def();
        let text = value.to_string();
        def.check(&value)
            .and_then(|()| (def.set)(self, value))
            .map_err(|why| invalid(def.key, &text, why))
    }

    /// An option of another kind's scope, set on this job: its kind would
    /// ignore it, so it is refused (`bs` on a file-set job).
    pub fn check_scope(&self) -> Result<(), SpecError> {
        let kind = self.workload.kind();
        let base = Job::default();
        for d in OPTIONS.iter() {
            let own = d.scope == Scope::Run
                || d.scope == kind.scope()
                || (d.scope == Scope::Block && kind.stores_block_fields());
            let value = (d.get)(self);
            if own || value.is_none() || value == (d.get)(&base) {
                continue;
            }
            let text = value.map(|v| v.to_string()).unwrap_or_default();
            let why = format!(
                "is an option of {}; a {} job does not use it",
                d.scope.text(),
                kind.name()
            );
            return Err(invalid(d.key, &text, why));
        }
        Ok(())
    }

    /// The options that decide comparability, with this job's values: what
    /// compare's rows match on, the same list for a job of any kind (compare
    /// zips two jobs' lists). The database kind's are its own table's
    /// (`identity_in`, report/db_table.rs): compare's rows, keyed by block
    /// fields, do not set db runs' tests side by side.
    pub fn identity(&self) -> impl Iterator<Item = (&'static OptionDef, Option<Value>)> + '_ {
        OPTIONS
            .iter()
            .filter(|d| d.identity.is_some() && d.scope != Scope::Database)
            .map(|d| (d, (d.get)(self)))
    }

    /// The options of `scope` that decide comparability, with this job's values.
    pub fn identity_in(
        &self,
        scope: Scope,
    ) -> impl Iterator<Item = (&'static OptionDef, Option<Value>)> + '_ {
        OPTIONS
            .iter()
            .filter(move |d| d.identity.is_some() && d.scope == scope)
            .map(|d| (d, (d.get)(self)))
    }

    /// The extras of `explain`: `key value` for each option marked extra that
    /// differs from the default.
    pub fn extras(&self) -> Vec<String> {
        let base = Job::default();
        OPTIONS
            .iter()
            .filter(|d| d.extra)
            .filter_map(|d| {
                let v = (d.get)(self)?;
                ((d.get)(&base).as_ref() != Some(&v)).then(|| format!("{} {v}", d.key))
            })
            .collect()
    }
}

/// docs/jobs.md's table of keys, rendered from the table.
pub fn markdown() -> String {
    let mut out =
        String::from("| key | values | default | flag | used by | meaning |\n|---|---|---|---|---|---|\n");
    let base = Job::default();
    for d in OPTIONS {
        let flag = match d.flag {
            Flag::Value | Flag::Switch => format!("`--{}`", d.long()),
            Flag::FileOnly(why) => format!("none: {why}"),
            Flag::Suite(verb) => format!("`kura {verb} --{}`", d.long()),
        };
        let default = match (d.get)(&base) {
            Some(v) => format!("`{v}`"),
            None => d.unset.to_string(),
        };
        let scope = d.scope.text();
        let mut meaning = format!("{}{}", d.help, d.more);
        if d.identity.is_some() {
            meaning.push_str("; runs that differ in it are not compared");
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            d.key,
            d.values_text(),
            default,
            flag,
            scope,
            meaning.replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "<!-- options: generated from src/jobs/options.rs -->\n";
    const END: &str = "<!-- options: end -->\n";

    #[test]
    fn opt_indexes_its_definition() {
        assert_eq!(Opt::Qd.def().key, "qd");
        assert_eq!(Opt::FsyncEvery.def().key, "fsync_every");
        assert_eq!(Opt::JobGroup.def().key, "group");
        let mut keys: Vec<&str> = OPTIONS
            .iter()
            .flat_map(|d| d.aliases.iter().copied().chain([d.key]))
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "a key or alias is defined twice");
    }

    #[test]
    fn each_fio_name_names_one_option_and_is_an_option_of_fio() {
        let mut seen = std::collections::HashSet::new();
        for &opt in Opt::ALL {
            for name in opt.def().fio {
                assert!(seen.insert(*name), "fio's {name} names two options");
                assert!(
                    super::super::fio_options::FIO_OPTIONS.contains(name),
                    "{name} is not an option of fio"
                );
                assert_eq!(Opt::by_fio_name(name), Some(opt));
            }
        }
        assert_eq!(Opt::Qd.fio_name(), "iodepth");
        assert_eq!(Opt::FsyncEvery.fio_name(), "fdatasync");
        assert_eq!(Opt::by_fio_name("qd"), None, "kura's own keys are not fio's");
    }

    #[test]
    fn every_default_is_within_its_bounds_and_reads_back() {
        let job = Job::default();
        for d in OPTIONS {
            if let Some(v) = (d.get)(&job) {
                d.check(&v).unwrap_or_else(|e| panic!("{}: {e}", d.key));
                let mut j = Job::default();
                j.set(d.key, &v.to_string())
                    .unwrap_or_else(|e| panic!("{}: {e}", d.key));
                assert_eq!((d.get)(&j), Some(v), "{}", d.key);
            }
        }
    }

    /// The job an option of `scope` is set on: a database option has no
    /// job but the suite's to land on.
    fn base(scope: Scope) -> Job {
        match scope {
            Scope::Database => super::super::db_params::DbParams::template(),
            _ => Job::default(),
        }
    }

    /// Each option's example sets the field its `get` reads: no setter
    /// writes another option's field.
    #[test]
    fn every_option_sets_what_it_reads() {
        for d in OPTIONS {
            assert!(!d.example.is_empty(), "{}: no example", d.key);
            let mut job = base(d.scope);
            job.set(d.key, d.example)
                .unwrap_or_else(|e| panic!("{}: {e}", d.key));
            let want = d.parse(d.example).unwrap();
            assert_eq!((d.get)(&job), Some(want), "{}", d.key);
            assert_ne!(
                (d.get)(&job),
                (d.get)(&base(d.scope)),
                "{}: the example is the default",
                d.key
            );
            for other in OPTIONS
                .iter()
                .filter(|o| o.key != d.key && !(o.key == "direct" || o.key == "buffered"))
            {
                assert_eq!(
                    (other.get)(&job),
                    (other.get)(&base(d.scope)),
                    "{} changed {}",
                    d.key,
                    other.key
                );
            }
        }
    }

    /// A database option's `unset` text is what the suite's job has when
    /// the flag is not given (`--help`'s default), and it is refused on a
    /// job of another kind rather than making one of a job without a test.
    #[test]
    fn database_options_default_to_their_unset_text_and_need_a_database_job() {
        let job = base(Scope::Database);
        for d in OPTIONS.iter().filter(|d| d.scope == Scope::Database) {
            assert_eq!(d.flag, Flag::Suite("suite db"), "{}", d.key);
            assert!(d.identity.is_some(), "{}", d.key);
            match (d.get)(&job) {
                Some(v) => assert_eq!(v.to_string(), d.unset, "{}", d.key),
                None => assert_eq!(d.key, "server_sync", "the server's own default"),
            }
            let err = Job::default().set(d.key, d.example).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!(
                    "{}: '{}' is not valid: only kura suite db",
                    d.key, d.example
                )),
                "{err}"
            );
        }
        let mut job = base(Scope::Database);
        job.check_scope().unwrap();
        job.set("qd", "8").unwrap();
        assert!(job.check_scope().is_err(), "qd is block I/O's");
        let err = |key: &str, text: &str| base(Scope::Database).set(key, text).unwrap_err().to_string();
        assert_eq!(
            err("scale", "2"),
            "scale: '2' is not valid: must be between 0.001 and 1"
        );
        assert_eq!(
            err("synchronous", "maybe"),
            "synchronous: 'maybe' is not valid: expected off, normal, full or extra (or 0 to 3)"
        );
        assert!(err("table_size", "0").ends_with("must be between 1 and 1000000000"));
        assert!(err("server_sync", "sometimes").contains("expected on, off"));
    }

    #[test]
    fn typed_values_keep_the_bounds_of_text() {
        let mut job = Job::default();
        let err = job.apply(Opt::Qd, Value::Count(0)).unwrap_err().to_string();
        assert_eq!(err, "qd: '0' is not valid: must be between 1 and 4096");
        assert!(job.apply(Opt::Qd, Value::Bytes(4)).is_err());
        job.apply(Opt::FsyncEvery, Value::Count(8)).unwrap();
        assert_eq!(job.fsync_every, Some(8));
        let huge = vec![BlockSize {
            bytes: MAX_BS + 1,
            weight: 1,
        }];
        assert!(job.apply(Opt::Bs, Value::BlockSizes(huge)).is_err());
        assert!(
            job.apply(
                Opt::Distribution,
                Value::Distribution(Distribution::Zipf { theta: 1.0 })
            )
            .is_err()
        );
    }

    #[test]
    fn extras_name_what_differs_from_the_default() {
        let mut job = Job::default();
        assert!(job.extras().is_empty());
        job.set("fsync_every", "8").unwrap();
        job.set("think_time", "2ms").unwrap();
        job.set("qd", "32").unwrap();
        assert_eq!(job.extras(), ["think_time 2ms", "fsync_every 8"]);
    }

    /// docs/jobs.md's table is this table; regenerate with
    /// `KURA_BLESS=1 cargo test --lib jobs::options`.
    #[test]
    fn docs_jobs_md_is_generated_from_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/jobs.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (start, end) = match (doc.find(START), doc.find(END)) {
            (Some(s), Some(e)) if s < e => (s + START.len(), e),
            _ => panic!("docs/jobs.md lacks the markers {START:?} and {END:?}"),
        };
        let want = markdown();
        if doc[start..end] == want {
            return;
        }
        if std::env::var_os("KURA_BLESS").is_some() {
            std::fs::write(path, format!("{}{want}{}", &doc[..start], &doc[end..])).unwrap();
            return;
        }
        panic!("docs/jobs.md is stale: regenerate it with `KURA_BLESS=1 cargo test --lib jobs::options`");
    }
}
