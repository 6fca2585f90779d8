//! fio job files: INI sections with `[global]` defaults, `include`, comments,
//! `${ENV}` and fio's reserved keywords, fio's units (`kb_base`) and option
//! semantics, translated into `Job`s. Jobs between two stonewalls share a
//! group and run at the same time, as in fio.
//!
//! Every fio option is one of: translated; accepted because it changes no I/O
//! (logging, reporting, seeding); or unsupported, which is an error naming the
//! option, file and line (a warning with --lenient). A name fio does not know
//! either is "unknown" (also a warning with --lenient).

use std::path::Path;
use std::time::Duration;

use super::fio_options::FIO_OPTIONS;
use super::job::{BlockSize, Distribution, Job, Rw};
use super::options::{Opt, Value};
use super::reading::{
    Format, FormatError, IncludeBudget, Loc, Plan, PlannedJob, Sources, clip, join_normalized,
};
use super::units::format_size;

// fio's latency_target: latency-bounded capacity.
mod latency;
// Options of job files people write today.
mod extras;
mod hist;
mod span;
// fio's verify options onto kura's verify, and fio's names as flags.
pub mod flags;
mod noted;
mod schedule;
mod verify;
mod zones;

/// Includes nested deeper than this are taken for a loop fio would also reject.
const MAX_INCLUDE_DEPTH: usize = 16;
/// fio allows 64 sizes per bssplit; a bsrange that expands to more is unsupported.
const MAX_SPLIT: usize = 64;

#[derive(Debug, Clone)]
struct Entry {
    key: String,
    value: Option<String>,
    loc: Loc,
    /// Column of the value, for errors about it.
    value_col: usize,
    /// Environment variables the value named that were not set.
    unset_vars: Vec<String>,
    /// The kura option this fio option sets, by the option table's fio names.
    opt: Option<Opt>,
}

impl Entry {
    /// Whether fio's option is one of the names the table gives `opt`.
    fn is(&self, opt: Opt) -> bool {
        self.opt == Some(opt)
    }
}

#[derive(Debug)]
enum Section {
    Global(Vec<Entry>),
    Job {
        name: String,
        loc: Loc,
        entries: Vec<Entry>,
    },
}

struct Lexer<'a> {
    sources: &'a Sources<'a>,
    sections: Vec<Section>,
    stack: Vec<String>,
    budget: IncludeBudget,
}

/// fio's option names are letters, digits and `_`; a line whose key is
/// anything else is not an option line, and is not quoted back.
fn is_option_name(key: &str) -> bool {
    key.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn strip_comment(line: &str) -> &str {
    // fio cuts every line at its first ';' or '#', values included.
    let end = line.find([';', '#']).unwrap_or(line.len());
    &line[..end]
}

fn column_of(raw: &str, part: &str) -> usize {
    // `part` is a subslice of `raw`; columns count characters from 1.
    let offset = (part.as_ptr() as usize).saturating_sub(raw.as_ptr() as usize);
    raw.get(..offset.min(raw.len()))
        .map_or(1, |p| p.chars().count() + 1)
}

impl Lexer<'_> {
    fn lex(&mut self, text: &str, file: &Path, in_include: bool) -> Result<(), FormatError> {
        let file_name = file.display().to_string();
        for (i, raw) in text.lines().enumerate() {
            let line = strip_comment(raw).trim();
            if line.is_empty() {
                continue;
            }
            let loc = Loc {
                file: file_name.clone(),
                line: i + 1,
                column: column_of(raw, line),
            };
            if let Some(rest) = line.strip_prefix('[') {
                if in_include {
                    return Err(loc.error("an included file may not contain [sections] (fio's rule)"));
                }
                let Some(name) = rest.strip_suffix(']') else {
                    return Err(loc.error("malformed section header: expected [name]"));
                };
                let name = name.trim();
                if name.is_empty() {
                    return Err(loc.error("empty section name: expected [global] or [job name]"));
                }
                self.sections.push(if name == "global" {
                    Section::Global(Vec::new())
                } else {
                    Section::Job {
                        name: name.to_string(),
                        loc,
                        entries: Vec::new(),
                    }
                });
                continue;
            }
            if let Some(target) = line
                .strip_prefix("include")
                .filter(|r| r.starts_with([' ', '\t']))
            {
                self.include(target.trim(), file, &loc)?;
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (line, None),
            };
            if key.is_empty() || !is_option_name(key) {
                return Err(loc.error(
                    "malformed line: expected option=value, where an option's name is letters, digits and _",
                ));
            }
            let value_col = value.map_or(loc.column, |v| column_of(raw, v));
            let mut unset_vars = Vec::new();
            let value = value.map(|v| self.substitute(v, &mut unset_vars));
            let entry = Entry {
                opt: Opt::by_fio_name(key),
                key: key.to_string(),
                value,
                loc: loc.clone(),
                value_col,
                unset_vars,
            };
            match self.sections.last_mut() {
                Some(Section::Global(entries)) | Some(Section::Job { entries, .. }) => entries.push(entry),
                None => {
                    return Err(loc.error(format!(
                        "option '{key}' before any section: put it under [global] or a [job]"
                    )));
                }
            }
        }
        Ok(())
    }

    fn include(&mut self, name: &str, from: &Path, loc: &Loc) -> Result<(), FormatError> {
        if name.is_empty() {
            return Err(loc.error("include needs a file name"));
        }
        if self.sections.is_empty() {
            return Err(loc.error("include before any section: put it under [global] or a [job]"));
        }
        let dir = from.parent().unwrap_or(Path::new(""));
        let path = join_normalized(dir, name);
        let key = path.display().to_string();
        if let Some(first) = self.stack.iter().position(|f| *f == key) {
            let chain = self.stack[first..].join(" -> ");
            return Err(loc.error(format!("include loop: {chain} -> {key}")));
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(loc.error(format!("includes nested deeper than {MAX_INCLUDE_DEPTH}")));
        }
        self.budget.open(loc)?;
        let text = (self.sources.read)(&path)
            .map_err(|e| loc.error(format!("cannot read included file {key}: {e}")))?;
        self.budget.charge(loc, &key, &text)?;
        self.stack.push(key);
        let r = self.lex(&text, &path, true);
        self.stack.pop();
        r
    }

    /// `${VAR}` from the environment (empty when unset, as fio does) and fio's
    /// reserved keywords `$pagesize`, `$mb_memory`, `$ncpus`.
    fn substitute(&self, value: &str, unset: &mut Vec<String>) -> String {
        let mut out = String::with_capacity(value.len());
        let mut rest = value;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            match after.find('}') {
                Some(end) if end > 0 => {
                    let name = &after[..end];
                    match (self.sources.env)(name) {
                        Some(v) => out.push_str(&v),
                        None => unset.push(name.to_string()),
                    }
                    rest = &after[end + 1..];
                }
                _ => {
                    out.push_str("${");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        if !out.contains('$') {
            return out;
        }
        let mut replaced = out;
        for (word, value) in reserved_keywords() {
            replaced = replaced.replace(word, &value.to_string());
        }
        evaluate_simple(&replaced).map_or(replaced, |n| n.to_string())
    }
}

fn reserved_keywords() -> [(&'static str, u64); 3] {
    // SAFETY: sysconf only reads system configuration.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
    // SAFETY: as above.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as u64;
    let mem_mb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024);
    [("$mb_memory", mem_mb), ("$pagesize", page), ("$ncpus", cpus)]
}

/// `8*1024+4`: the arithmetic fio does after replacing a reserved keyword.
fn evaluate_simple(text: &str) -> Option<u64> {
    let arithmetic = text.bytes().all(|b| b.is_ascii_digit() || b"*/+-".contains(&b));
    if text.is_empty() || !arithmetic || !text.contains(['*', '/', '+', '-']) {
        return None;
    }
    let bytes = text.as_bytes();
    let (mut total, mut sign, mut start) = (0i128, 1i128, 0);
    for i in 0..=bytes.len() {
        if i == bytes.len() || bytes[i] == b'+' || bytes[i] == b'-' {
            total = total.checked_add(sign * evaluate_term(&text[start..i])?)?;
            if i < bytes.len() {
                sign = if bytes[i] == b'+' { 1 } else { -1 };
            }
            start = i + 1;
        }
    }
    u64::try_from(total).ok()
}

fn evaluate_term(term: &str) -> Option<i128> {
    let bytes = term.as_bytes();
    let (mut value, mut op, mut start) = (None::<i128>, b'*', 0);
    for i in 0..=bytes.len() {
        if i == bytes.len() || bytes[i] == b'*' || bytes[i] == b'/' {
            let n: i128 = term[start..i].parse().ok()?;
            value = Some(match value {
                None => n,
                Some(v) if op == b'*' => v.checked_mul(n)?,
                Some(v) => v.checked_div(n)?,
            });
            if i < bytes.len() {
                op = bytes[i];
            }
            start = i + 1;
        }
    }
    value
}

/// A section's options in the order fio applies them: fio 3.33 sorts a
/// section's options by priority before parsing them (parse.c
/// `sort_options`), and `kb_base` has priority 1 (options.c), so it sets
/// the units of every value in its section, also those written above it.
fn in_fio_order(entries: &[Entry]) -> impl Iterator<Item = &Entry> {
    let first = |e: &&Entry| e.key == "kb_base";
    entries
        .iter()
        .filter(first)
        .chain(entries.iter().filter(move |e| !first(e)))
}

/// fio's size and count parser: hex, and suffixes where `k` is kb_base and
/// a suffix containing `ib` is the other base (fio's own rule, kept as it is).
pub(crate) fn fio_number(text: &str, kb_base: u64) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty value".into());
    }
    if t.starts_with('(') {
        return Err("arithmetic in parentheses is not supported".into());
    }
    if t.ends_with('%') {
        return Err("a percentage is not supported here".into());
    }
    let (digits, suffix, radix) = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
        (&hex[..end], &hex[end..], 16)
    } else {
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        (&t[..end], &t[end..], 10)
    };
    if digits.is_empty() {
        return Err(format!("'{t}' is not a number"));
    }
    if suffix.starts_with('.') {
        return Err(format!(
            "'{t}': fio reads only whole numbers (it would take the part before the dot)"
        ));
    }
    let value = u64::from_str_radix(digits, radix).map_err(|_| format!("'{t}' is too large"))?;
    let s = suffix.to_ascii_lowercase();
    let base = if s.contains("ib") {
        if kb_base == 1000 { 1024 } else { 1000 }
    } else {
        kb_base
    };
    let power = match s.as_str() {
        "" | "b" => 0,
        "k" | "kb" | "ki" | "kib" => 1,
        "m" | "mb" | "mi" | "mib" => 2,
        "g" | "gb" | "gi" | "gib" => 3,
        "t" | "tb" | "ti" | "tib" => 4,
        "p" | "pb" | "pi" | "pib" => 5,
        _ => {
            return Err(format!(
                "'{t}': unknown unit '{suffix}' (examples: 4k, 1m, 1g, 4KiB)"
            ));
        }
    };
    (0..power)
        .try_fold(value, |v, _| v.checked_mul(base))
        .ok_or_else(|| format!("'{t}' is too large"))
}

/// fio's time values: `d h m s ms us` suffixes; a bare number is `bare` units.
fn fio_time(text: &str, bare: Duration) -> Result<Duration, String> {
    let t = text.trim();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(end);
    if digits.is_empty() {
        return Err(format!("'{t}' is not a time (examples: 30, 30s, 500ms, 2m)"));
    }
    if suffix.starts_with('.') {
        return Err(format!(
            "'{t}': fio reads only whole numbers (it would take the part before the dot)"
        ));
    }
    let n: u64 = digits.parse().map_err(|_| format!("'{t}' is too large"))?;
    let unit = match suffix.to_ascii_lowercase().as_str() {
        "" => bare,
        "d" => Duration::from_secs(86_400),
        "h" => Duration::from_secs(3600),
        "m" => Duration::from_secs(60),
        "s" | "sec" => Duration::from_secs(1),
        "ms" | "msec" => Duration::from_millis(1),
        "us" | "usec" => Duration::from_micros(1),
        _ => {
            return Err(format!(
                "'{t}': unknown time unit '{suffix}' (d, h, m, s, ms, us)"
            ));
        }
    };
    let nanos = (unit.as_nanos())
        .checked_mul(n as u128)
        .filter(|n| *n <= 366 * 86_400 * 1_000_000_000u128);
    nanos
        .map(|n| Duration::from_nanos(n as u64))
        .ok_or_else(|| format!("'{t}' is too long"))
}

fn fio_bool(text: &str) -> Result<bool, String> {
    match text.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        t => Err(format!("'{t}' is not 0 or 1")),
    }
}

fn fio_pct(text: &str) -> Result<u8, String> {
    let n = fio_number(text, 1024)?;
    u8::try_from(n)
        .ok()
        .filter(|p| *p <= 100)
        .ok_or_else(|| format!("'{}' is not a percentage 0-100", text.trim()))
}

/// A value given per direction, `read,write,trim`; one value sets reads and writes.
#[derive(Debug, Clone, PartialEq)]
struct PerDir<T> {
    read: Option<T>,
    write: Option<T>,
}

impl<T> Default for PerDir<T> {
    fn default() -> Self {
        PerDir {
            read: None,
            write: None,
        }
    }
}

fn per_dir<T: Clone>(
    text: &str,
    mut parse: impl FnMut(&str) -> Result<T, String>,
) -> Result<PerDir<T>, String> {
    let parts: Vec<&str> = text.split(',').collect();
    let opt = |p: &str, f: &mut dyn FnMut(&str) -> Result<T, String>| -> Result<Option<T>, String> {
        if p.trim().is_empty() {
            Ok(None)
        } else {
            f(p).map(Some)
        }
    };
    match parts.as_slice() {
        [one] => {
            let v = parse(one)?;
            Ok(PerDir {
                read: Some(v.clone()),
                write: Some(v),
            })
        }
        [r, w] | [r, w, _] => {
            if let Some(t) = parts.get(2) {
                opt(t, &mut parse)?;
            }
            Ok(PerDir {
                read: opt(r, &mut parse)?,
                write: opt(w, &mut parse)?,
            })
        }
        _ => Err("at most three values: read,write,trim".into()),
    }
}

impl<T: Clone> PerDir<T> {
    fn merge(&mut self, newer: PerDir<T>) {
        if newer.read.is_some() {
            self.read = newer.read;
        }
        if newer.write.is_some() {
            self.write = newer.write;
        }
    }
}

/// What kura does with fio's engines, for the error about any other.
const ENGINES_KURA_RUNS: &str = "kura runs io_uring, libaio and posixaio on io_uring; sync, psync, vsync, \
     pvsync and pvsync2 on sync; null; and filecreate, filestat, filedelete, dircreate, dirdelete as file sets";

/// kura's engine for one of fio's, by fio's name.
fn fio_engine(name: &str) -> Option<Engine> {
    Some(match name {
        "io_uring" | "libaio" | "posixaio" => Engine::Uring,
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" => Engine::Sync,
        "null" => Engine::Null,
        n => Engine::Files(super::fio_fs::ENGINES.into_iter().find(|e| *e == n)?),
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Engine {
    Uring,
    Sync,
    Null,
    // fio's file engines (filecreate, filestat...), run as file sets (`fio_fs`).
    Files(&'static str),
}

#[derive(Debug, Clone, PartialEq)]
enum BsSpec {
    /// min and max, as bs and bsrange set them.
    Range(u64, u64),
    Split(Vec<(u64, Option<u32>)>),
}

/// fio's settings of one job as its options set them, each with where it was set.
#[derive(Debug, Clone)]
struct FioJob {
    name: String,
    kb_base: u64,
    filename: Option<(String, Loc)>,
    directory: Option<(String, Loc)>,
    filename_format: Option<String>,
    rw: (Rw, Option<Loc>),
    /// The offset modifier of a sequential `rw=read:4k`: bytes skipped after each I/O.
    rw_gap: u64,
    /// `rw=read:-8k`: the next I/O starts this many bytes before the last one's end.
    rw_back: u64,
    bs: PerDir<(BsSpec, Loc)>,
    bssplit: PerDir<(BsSpec, Loc)>,
    ba: PerDir<(u64, Loc)>,
    iodepth: (u64, Option<Loc>),
    numjobs: (u64, Option<Loc>),
    size: Option<(u64, Loc)>,
    filesize: Option<(u64, Loc)>,
    offset: Option<(u64, Loc)>,
    io_size: Option<(u64, Loc)>,
    number_ios: Option<(u64, Loc)>,
    runtime: Option<(Duration, Loc)>,
    time_based: bool,
    ramp: Duration,
    loops: u64,
    startdelay: Duration,
    direct: bool,
    read_pct: u8,
    distribution: PerDir<(Distribution, Loc)>,
    random_pct: PerDir<(u8, Loc)>,
    rate_iops: PerDir<(u64, Loc)>,
    rate: PerDir<(u64, Loc)>,
    thinktime: Option<Duration>,
    thinktime_blocks: Option<u64>,
    fsync: u64,
    fdatasync: u64,
    end_fsync: bool,
    engine: (Engine, Option<Loc>),
    compress_pct: Option<u8>,
    zero_buffers: bool,
    keep_cache: bool,
    stonewall: bool,
    // Latency-bounded capacity: fio_file/latency.rs.
    latency: latency::FioLatency,
    // File sets.
    nrfiles: (u64, Option<Loc>),
    // fio's log files; the prefix (None: bare, the job's name) and where.
    /// write_bw_log, write_iops_log, write_lat_log.
    logs: [Option<(Option<String>, Loc)>; 3],
    log_avg_msec: Option<(u64, Loc)>,
    /// fio's `rate_process` word, for the table's `rate_process`.
    rate_process: Option<(String, Loc)>,
    // Options of job files people write today: fio_file/extras.rs.
    extras: extras::FioExtras,
    hist: hist::FioHist,
    verify: verify::FioVerify,
    schedule: schedule::FioSchedule,
    zones: zones::FioZones,
    /// bs, bsrange or bssplit gave values per direction (`R,W,T`).
    sizes_per_dir: bool,
}

impl FioJob {
    fn fio_defaults() -> FioJob {
        FioJob {
            name: String::new(),
            kb_base: 1024,
            filename: None,
            directory: None,
            filename_format: None,
            rw: (Rw::Read, None),
            rw_gap: 0,
            rw_back: 0,
            bs: PerDir::default(),
            bssplit: PerDir::default(),
            ba: PerDir::default(),
            iodepth: (1, None),
            numjobs: (1, None),
            size: None,
            filesize: None,
            offset: None,
            io_size: None,
            number_ios: None,
            runtime: None,
            time_based: false,
            ramp: Duration::ZERO,
            loops: 1,
            startdelay: Duration::ZERO,
            direct: false,
            read_pct: 50,
            distribution: PerDir::default(),
            random_pct: PerDir::default(),
            rate_iops: PerDir::default(),
            rate: PerDir::default(),
            thinktime: None,
            thinktime_blocks: None,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            // fio's default engine on Linux is psync.
            engine: (Engine::Sync, None),
            nrfiles: (1, None),
            compress_pct: None,
            zero_buffers: false,
            keep_cache: false,
            stonewall: false,
            latency: latency::FioLatency::default(),
            logs: [None, None, None],
            log_avg_msec: None,
            rate_process: None,
            extras: extras::FioExtras::default(),
            hist: hist::FioHist::default(),
            verify: verify::FioVerify::default(),
            schedule: schedule::FioSchedule::default(),
            zones: zones::FioZones::default(),
            sizes_per_dir: false,
        }
    }
}

/// Options that change nothing kura measures: output, logs, seeds, process model.
const NO_EFFECT: &[&str] = &[
    "description",
    "group_reporting",
    "new_group",
    "thread",
    "randrepeat",
    "random_generator",
    "norandommap",
    "softrandommap",
    "log_max_value",
    "log_offset",
    "log_compression",
    "log_store_compressed",
    "log_unix_epoch",
    "log_alternate_epoch",
    "log_prio",
    "per_job_logs",
    "bwavgtime",
    "iopsavgtime",
    "percentile_list",
    "clat_percentiles",
    "lat_percentiles",
    "slat_percentiles",
    "significant_figures",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "disable_bw",
    "gtod_reduce",
    "gtod_cpu",
    "clocksource",
    "unified_rw_reporting",
    "unit_base",
    "allow_file_create",
    "create_serialize",
    "error_dump",
    "fallocate",
    "stats",
];

/// Options accepted with a caveat the reader is told about.
const WITH_NOTE: &[(&str, &str)] = &[
    ("refill_buffers", "kura fills write buffers once per thread"),
    ("scramble_buffers", "kura fills write buffers once per thread"),
    (
        "buffer_compress_chunk",
        "kura makes each 4 KiB segment compressible by the given share",
    ),
    (
        "iodepth_batch",
        "kura submits each I/O as a slot frees (fio's default), direct I/O on io_uring 4 per call",
    ),
    (
        "iodepth_batch_submit",
        "kura submits each I/O as a slot frees (fio's default), direct I/O on io_uring 4 per call",
    ),
    ("iodepth_batch_complete", "kura reaps completions as they come"),
    (
        "iodepth_batch_complete_min",
        "kura reaps completions as they come",
    ),
    (
        "iodepth_batch_complete_max",
        "kura reaps completions as they come",
    ),
    ("iodepth_low", "kura refills the queue as each I/O completes"),
    ("thinktime_spin", "kura sleeps for the whole think time"),
    (
        "cpus_allowed_policy",
        "kura leaves thread placement to the scheduler",
    ),
    ("unlink", "kura removes the test files it created unless --keep"),
    // fio 3.33 registers its tiobench profile's options with every job
    // (profiles/tiobench.c): `threads` is that profile's thread count.
    (
        "threads",
        "fio's tiobench profile's thread count, which fio ignores without profile=tiobench; numjobs sets kura's threads",
    ),
];

/// fio's logs, in `FioJob::logs` order.
const LOGS: [Opt; 3] = [Opt::WriteBwLog, Opt::WriteIopsLog, Opt::WriteLatLog];

/// At most this many warnings are listed; the rest are counted. Warnings
/// are stored with the run, and a file of 100,000 ignored options must not
/// put every line into the database (nor take minutes to list them).
const MAX_WARNINGS_LISTED: usize = 50;

struct Translator<'a> {
    lenient: bool,
    warnings: Vec<String>,
    /// Every warning given, listed or not: a [global] note applies to every job.
    seen: std::collections::HashSet<String>,
    unlisted: usize,
    sources: &'a Sources<'a>,
}

/// fio turns an unset `${VAR}` into nothing; in a file name that leaves a
/// different path (`/dev/${DEV}` is `/dev/`), so the variable is a
/// placeholder nobody filled in, and kura does not guess the target.
fn refuse_unset_in_path(e: &Entry) -> Result<(), FormatError> {
    if e.unset_vars.is_empty() {
        return Ok(());
    }
    Err(value_err(
        e,
        "a placeholder that was not filled in: fio would put nothing in its place and test another path; \
         set the variable or write the path",
    ))
}

fn value_err(e: &Entry, why: impl Into<String>) -> FormatError {
    let mut message = format!("{}: {}", e.key, why.into());
    if !e.unset_vars.is_empty() {
        message.push_str(&format!(
            " (the environment does not set {})",
            e.unset_vars
                .iter()
                .map(|v| format!("${{{v}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    FormatError {
        file: e.loc.file.clone(),
        line: e.loc.line,
        column: Some(e.value_col),
        message,
    }
}

fn unsupported_value(e: &Entry, why: &str) -> FormatError {
    let value = e.value.as_deref().unwrap_or("");
    let mut err = value_err(e, why);
    err.message = format!("unsupported: {}={} ({why})", e.key, clip(value));
    err
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The readers of an option's value that every group of `apply` uses:
/// `need()` the text, `flag()` a bare or 0/1 switch, `num(kb)` a number.
macro_rules! entry_readers {
    ($e:ident, $j:ident, $key:ident, $v:ident, $need:ident, $flag:ident, $num:ident, $kb:ident, $at:ident) => {
        let $key = $e.key.as_str();
        let $v = $e.value.as_deref();
        #[allow(unused)]
        let $need = || -> Result<&str, FormatError> {
            match $v {
                Some(v) if !v.is_empty() => Ok(v),
                _ => Err(value_err($e, "needs a value")),
            }
        };
        // Options fio takes bare (`time_based`) or with 0/1.
        #[allow(unused)]
        let $flag = || -> Result<bool, FormatError> {
            match $v {
                None => Ok(true),
                Some(v) => fio_bool(v).map_err(|w| value_err($e, w)),
            }
        };
        #[allow(unused)]
        let $num =
            |kb: u64| -> Result<u64, FormatError> { fio_number($need()?, kb).map_err(|w| value_err($e, w)) };
        #[allow(unused)]
        let $kb = $j.kb_base;
        #[allow(unused)]
        let $at = $e.loc.clone();
    };
}

impl Translator<'_> {
    fn skip_or_fail(&mut self, e: &Entry, message: String) -> Result<(), FormatError> {
        if self.lenient {
            self.warn(format!("{}: ignored: {message}", e.loc.short()));
            Ok(())
        } else {
            Err(e.loc.error(format!("{message}; --lenient ignores it")))
        }
    }

    fn note(&mut self, loc: &Loc, text: String) {
        self.warn(format!("{}: {text}", loc.short()));
    }

    fn warn(&mut self, line: String) {
        if self.warnings.len() >= MAX_WARNINGS_LISTED {
            if self.seen.insert(line) {
                self.unlisted += 1;
            }
        } else if self.seen.insert(line.clone()) {
            self.warnings.push(line);
        }
    }

    /// Whether a warning given now would be listed: what is not listed need
    /// not be worked out (a "did you mean" costs a search of every fio option).
    fn would_list(&self) -> bool {
        !self.lenient || self.warnings.len() < MAX_WARNINGS_LISTED
    }

    /// Applies one option to `j`, in file order, as fio does.
    fn apply(&mut self, j: &mut FioJob, e: &Entry) -> Result<(), FormatError> {
        // Each group says whether it knew the option; what none knows is judged last.
        for group in [
            Self::apply_extras,
            Self::apply_hist,
            Self::apply_verify,
            Self::apply_schedule,
            Self::apply_zones,
            Self::apply_noted,
            Self::apply_file,
            Self::apply_pattern,
            Self::apply_amount,
            Self::apply_mix,
            Self::apply_data,
            Self::apply_latency,
        ] {
            if group(self, j, e)? {
                return Ok(());
            }
        }
        self.apply_other(e)
    }

    /// The job's name and where its file is.
    fn apply_file(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        entry_readers!(e, j, key, v, need, flag, num, kb, at);
        match key {
            _ if e.is(Opt::Name) => {
                let n = need()?;
                j.name = n.to_string();
            }
            "kb_base" => {
                j.kb_base = match need()? {
                    "1000" => 1000,
                    "1024" => 1024,
                    _ => return Err(value_err(e, "must be 1000 or 1024")),
                }
            }
            _ if e.is(Opt::Target) => {
                let n = need()?;
                refuse_unset_in_path(e)?;
                let unescaped_colon = n.replace("\\:", "").contains(':');
                if unescaped_colon {
                    return Err(unsupported_value(e, "several files in one job"));
                }
                j.filename = Some((n.replace("\\:", ":"), at));
            }
            "directory" => {
                let d = need()?;
                refuse_unset_in_path(e)?;
                if d.replace("\\:", "").contains(':') {
                    return Err(unsupported_value(e, "several directories in one job"));
                }
                j.directory = Some((d.replace("\\:", ":"), at));
            }
            "filename_format" => j.filename_format = Some(need()?.to_string()),
            // Checked when the job is built: fio's file engines take several.
            "nrfiles" | "nr_files" => j.nrfiles = (num(kb)?, Some(at)),
            "openfiles" => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Pattern and block sizes.
    fn apply_pattern(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        entry_readers!(e, j, key, v, need, flag, num, kb, at);
        match key {
            _ if e.is(Opt::Rw) => {
                let text = need()?;
                let (mode, modifier) = text.split_once(':').unwrap_or((text, ""));
                // fio's patterns are kura's: read with the option's own
                // parser, which takes any case; fio refuses `rw=READ`.
                let lower = !mode.bytes().any(|b| b.is_ascii_uppercase());
                let rw = match Opt::Rw.def().parse(mode.trim()) {
                    Ok(Value::Rw(rw)) if lower => rw,
                    _ => {
                        return Err(value_err(
                            e,
                            format!(
                                "'{}' is not an I/O pattern (read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite, randtrimwrite)",
                                mode.trim()
                            ),
                        ));
                    }
                };
                let modifier = modifier.trim();
                // `-8k`: the next I/O starts 8k before the end of the last (backwards).
                let (back, size) = match modifier.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, modifier),
                };
                let n = if size.is_empty() {
                    Ok(0)
                } else {
                    fio_number(size, kb)
                };
                (j.rw_gap, j.rw_back) = match n {
                    // `:1` is fio's "every I/O", what kura does anyway.
                    _ if modifier == "1" => (0, 0),
                    Ok(0) => (0, 0),
                    Ok(n) if !rw.is_random() && back => (0, n),
                    Ok(n) if !rw.is_random() => (n, 0),
                    Ok(_) => {
                        return Err(unsupported_value(
                            e,
                            "a random job's modifier is fio's runs of sequential I/O between random ones; \
                             kura's percentage_random gives a share of sequential I/O instead",
                        ));
                    }
                    Err(w) => return Err(value_err(e, w)),
                };
                j.rw = (rw, Some(at));
            }
            _ if e.is(Opt::Bs) => {
                // bs replaces any split given before it, as below.
                j.sizes_per_dir = need()?.contains(',');
                let pd = per_dir(need()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.bs.merge(map_dir(pd, |b| (BsSpec::Range(b, b), at.clone())));
                j.bssplit = PerDir::default();
            }
            "bsrange" | "blocksize_range" => {
                j.sizes_per_dir |= need()?.contains(',');
                let pd = per_dir(need()?, |t| {
                    let (lo, hi) = t.split_once(['-', ':']).ok_or("expected MIN-MAX, e.g. 4k-64k")?;
                    let (lo, hi) = (fio_number(lo, kb)?, fio_number(hi, kb)?);
                    Ok((lo.min(hi), lo.max(hi)))
                })
                .map_err(|w| value_err(e, w))?;
                j.bs.merge(map_dir(pd, |(lo, hi)| (BsSpec::Range(lo, hi), at.clone())));
                j.bssplit = PerDir::default();
            }
            "bssplit" => {
                j.sizes_per_dir |= need()?.contains(',');
                let pd = per_dir(need()?, |t| {
                    let mut parts = Vec::new();
                    for item in t.split(':') {
                        let (size, pct) = item.split_once('/').unwrap_or((item, ""));
                        let size = fio_number(size, kb)?;
                        let pct = if pct.trim().is_empty() {
                            None
                        } else {
                            Some(fio_pct(pct)? as u32)
                        };
                        parts.push((size, pct));
                    }
                    if parts.len() > MAX_SPLIT {
                        return Err(format!("at most {MAX_SPLIT} sizes"));
                    }
                    Ok(BsSpec::Split(parts))
                })
                .map_err(|w| value_err(e, w))?;
                j.bssplit.merge(map_dir(pd, |s| (s, at.clone())));
            }
            _ if e.is(Opt::Align) => {
                let pd = per_dir(need()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.ba.merge(map_dir(pd, |b| (b, at.clone())));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Queue, threads, span and when to stop.
    fn apply_amount(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        entry_readers!(e, j, key, v, need, flag, num, kb, at);
        match key {
            _ if e.is(Opt::Qd) => j.iodepth = (num(kb)?, Some(at)),
            _ if e.is(Opt::Threads) => j.numjobs = (num(kb)?, Some(at)),
            _ if e.is(Opt::Size) => j.size = Some((num(kb)?, at)),
            "filesize" => {
                let t = need()?;
                if t.contains(['-', ':']) {
                    return Err(unsupported_value(e, "a range of file sizes"));
                }
                j.filesize = Some((num(kb)?, at));
            }
            _ if e.is(Opt::Offset) => j.offset = Some((num(kb)?, at)),
            _ if e.is(Opt::IoSize) => j.io_size = Some((num(kb)?, at)),
            _ if e.is(Opt::IoCount) => j.number_ios = Some((num(kb)?, at)),
            _ if e.is(Opt::Runtime) => {
                let d = fio_time(need()?, Duration::from_secs(1)).map_err(|w| value_err(e, w))?;
                j.runtime = (!d.is_zero()).then_some((d, at));
            }
            "time_based" => j.time_based = flag()?,
            _ if e.is(Opt::Ramp) => {
                j.ramp = fio_time(need()?, Duration::from_secs(1)).map_err(|w| value_err(e, w))?
            }
            "loops" => {
                let n = num(kb)?;
                if n == 0 {
                    return Err(value_err(e, "must be at least 1"));
                }
                j.loops = n;
            }
            _ if e.is(Opt::StartDelay) => {
                let t = need()?;
                if t.contains(['-', ':']) {
                    return Err(unsupported_value(e, "a random start delay from a range"));
                }
                j.startdelay = fio_time(t, Duration::from_secs(1)).map_err(|w| value_err(e, w))?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Direct or buffered, the read/write mix, the spread of offsets and pacing.
    fn apply_mix(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        entry_readers!(e, j, key, v, need, flag, num, kb, at);
        match key {
            _ if e.is(Opt::Direct) => j.direct = fio_bool(need()?).map_err(|w| value_err(e, w))?,
            _ if e.is(Opt::Buffered) => j.direct = !fio_bool(need()?).map_err(|w| value_err(e, w))?,
            _ if e.is(Opt::ReadPct) => j.read_pct = fio_pct(need()?).map_err(|w| value_err(e, w))?,
            "rwmixwrite" => j.read_pct = 100 - fio_pct(need()?).map_err(|w| value_err(e, w))?,
            _ if e.is(Opt::Distribution) => {
                let pd = per_dir(need()?, parse_distribution).map_err(|w| {
                    if w.starts_with("unsupported") {
                        let mut err = value_err(e, "");
                        err.message = format!("{w} in {}={}", e.key, clip(v.unwrap_or("")));
                        err
                    } else {
                        value_err(e, w)
                    }
                })?;
                j.distribution.merge(map_dir(pd, |d| (d, at.clone())));
            }
            "percentage_random" | "percentage_sequential" => {
                let sequential = key == "percentage_sequential";
                let pd = per_dir(need()?, fio_pct).map_err(|w| value_err(e, w))?;
                j.random_pct.merge(map_dir(pd, |p| {
                    (if sequential { 100 - p } else { p }, at.clone())
                }));
            }
            _ if e.is(Opt::RateIops) => {
                let pd = per_dir(need()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.rate_iops.merge(map_dir(pd, |r| (r, at.clone())));
            }
            "rate" => {
                let pd = per_dir(need()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.rate.merge(map_dir(pd, |r| (r, at.clone())));
            }
            _ if e.is(Opt::RateProcess) => {
                let word = need()?.to_string();
                // Checked where it is given, though only a rate uses it.
                Job::default()
                    .apply(Opt::RateProcess, Value::Text(word.clone()))
                    .map_err(|w| value_err(e, w.why()))?;
                j.rate_process = Some((word, at));
            }
            _ if e.is(Opt::ThinkTime) => {
                let d = fio_time(need()?, Duration::from_micros(1)).map_err(|w| value_err(e, w))?;
                j.thinktime = (!d.is_zero()).then_some(d);
            }
            _ if e.is(Opt::ThinkEvery) => {
                let n = num(kb)?;
                j.thinktime_blocks = Some(n.max(1));
            }
            _ if LOGS.iter().any(|o| e.is(*o)) => {
                let i = LOGS.iter().position(|o| e.is(*o)).unwrap_or(0);
                let prefix = v.filter(|p| !p.is_empty()).map(str::to_string);
                j.logs[i] = Some((prefix, at));
            }
            "log_avg_msec" => j.log_avg_msec = Some((num(kb)?, at)),
            // fio stops a job at its first failed I/O unless told to go on;
            // kura always counts failed I/Os (errno, offset) and verify
            // mismatches, and goes on unless max_errors says otherwise.
            "continue_on_error" => match need()?.to_ascii_lowercase().as_str() {
                "read" | "write" | "io" | "verify" | "all" | "1" => {}
                w @ ("none" | "0") => self.note(
                    &at,
                    format!(
                        "{}: continue_on_error={w}: kura does not stop a job at its first failed I/O; it counts failed I/Os and exits 1",
                        j.name
                    ),
                ),
                _ => {
                    return Err(value_err(
                        e,
                        "expected none, read, write, io, verify, all, 0 or 1 (fio's words)",
                    ));
                }
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Syncs, the engine, written data, groups.
    fn apply_data(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        entry_readers!(e, j, key, v, need, flag, num, kb, at);
        match key {
            // The table's first fio name is fdatasync, kura's sync; fio's fsync is noted.
            _ if e.is(Opt::FsyncEvery) && key == Opt::FsyncEvery.fio_name() => j.fdatasync = num(kb)?,
            _ if e.is(Opt::FsyncEvery) => j.fsync = num(kb)?,
            _ if e.is(Opt::EndFsync) => j.end_fsync = fio_bool(need()?).map_err(|w| value_err(e, w))?,
            // fio syncs each file as it closes it, at the job's end: one
            // fdatasync then, kura's end_fsync (it used to be only noted).
            "fsync_on_close" => {
                if flag()? {
                    j.end_fsync = true;
                    self.note(
                        &at,
                        "fsync_on_close: kura syncs once at the end of the job (end_fsync, with fdatasync)"
                            .to_string(),
                    );
                }
            }
            _ if e.is(Opt::Engine) => {
                let name = need()?;
                let engine = fio_engine(name).ok_or_else(|| unsupported_value(e, ENGINES_KURA_RUNS))?;
                j.engine = (engine, Some(at));
            }
            "buffer_compress_percentage" => {
                j.compress_pct = Some(fio_pct(need()?).map_err(|w| value_err(e, w))?)
            }
            "zero_buffers" => j.zero_buffers = flag()?,
            _ if e.is(Opt::KeepCache) => j.keep_cache = !fio_bool(need()?).map_err(|w| value_err(e, w))?,
            "stonewall" | "wait_for_previous" => j.stonewall = flag()?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Options kura takes without effect or with a note, and the unsupported and unknown.
    fn apply_other(&mut self, e: &Entry) -> Result<(), FormatError> {
        match e.key.as_str() {
            // fio's seed draws fio's numbers: the same seed would not repeat
            // fio's offsets in kura, so the run keeps a seed of its own.
            _ if e.is(Opt::Seed) => {}
            k if NO_EFFECT.contains(&k) => {}
            k if WITH_NOTE.iter().any(|(n, _)| *n == k) => {
                let why = WITH_NOTE.iter().find(|(n, _)| *n == k).map_or("", |(_, w)| w);
                self.note(&e.loc, format!("{k}: accepted; {why}"));
            }
            k if FIO_OPTIONS.contains(&k) => {
                self.skip_or_fail(e, format!("unsupported: fio option '{k}' has no kura equivalent"))?;
            }
            k => {
                let near = FIO_OPTIONS
                    .iter()
                    // Two edits change the length by two at most: skip the rest unmeasured.
                    .filter(|o| self.would_list() && o.len().abs_diff(k.len()) <= 2)
                    .filter(|o| edit_distance(o, k) <= 2)
                    .min_by_key(|o| edit_distance(o, k));
                let hint = near.map(|n| format!("; did you mean '{n}'?")).unwrap_or_default();
                let k = clip(k);
                self.skip_or_fail(e, format!("unknown option '{k}': fio has no such option{hint}"))?;
            }
        }
        Ok(())
    }
}

/// Sets one option through the table, an error naming where fio set it.
fn set(job: &mut Job, opt: Opt, value: Value, loc: &Loc) -> Result<(), FormatError> {
    job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
}

fn map_dir<T, U>(pd: PerDir<T>, mut f: impl FnMut(T) -> U) -> PerDir<U> {
    PerDir {
        read: pd.read.map(&mut f),
        write: pd.write.map(&mut f),
    }
}

fn parse_distribution(text: &str) -> Result<Distribution, String> {
    let t = text.trim();
    let (kind, rest) = t.split_once(':').unwrap_or((t, ""));
    let number = |s: &str| -> Result<f64, String> {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("'{s}' is not a number"))
    };
    match kind {
        "random" if rest.is_empty() => Ok(Distribution::Uniform),
        "zipf" | "pareto" => {
            if rest.contains(':') {
                return Err("unsupported: a distribution centre".into());
            }
            let x = number(rest)?;
            if kind == "zipf" {
                if x <= 0.0 || x == 1.0 || x > 100.0 {
                    return Err("zipf theta must be > 0 and not 1".into());
                }
                Ok(Distribution::Zipf { theta: x })
            } else {
                if x <= 0.0 || x >= 1.0 {
                    return Err("pareto h must be between 0 and 1".into());
                }
                Ok(Distribution::Pareto { h: x })
            }
        }
        "zoned" => {
            // Two zones, the second covering the rest, is kura's hot spot.
            let zones: Vec<&str> = rest.split(':').collect();
            match zones.as_slice() {
                [hot, cold] => {
                    let (io, space) = hot.split_once('/').ok_or("zones are IO_PCT/SPACE_PCT")?;
                    let (io, space) = (number(io)?, number(space)?);
                    let (cold_io, cold_space) = cold.split_once('/').unwrap_or((cold, ""));
                    let cold_io = number(cold_io)?;
                    let cold_space = if cold_space.trim().is_empty() {
                        100.0 - space
                    } else {
                        number(cold_space)?
                    };
                    if (io + cold_io - 100.0).abs() > 1e-9 || (space + cold_space - 100.0).abs() > 1e-9 {
                        return Err("zone percentages must add up to 100".into());
                    }
                    if !(0.0..=100.0).contains(&io) || space <= 0.0 || space >= 100.0 {
                        return Err("zone percentages must be within 0..100".into());
                    }
                    Ok(Distribution::Hotspot {
                        io_pct: io,
                        space_pct: space,
                    })
                }
                _ => {
                    // A blank last share is the rest of the span (fio's `20/`).
                    let given = crate::jobs::job::parse_zones(rest, |sp| {
                        if sp.is_empty() {
                            return Ok(None);
                        }
                        number(sp).and_then(|x| {
                            if x > 0.0 && x <= 100.0 {
                                Ok(Some(x))
                            } else {
                                Err(format!("'{sp}' is not a share of the span 0-100"))
                            }
                        })
                    })?;
                    let named: f64 = given.iter().filter_map(|z| z.1).sum();
                    let last = given.len() - 1;
                    let mut zones = Vec::with_capacity(given.len());
                    for (i, (io, sp)) in given.into_iter().enumerate() {
                        let sp = match sp {
                            Some(x) => x,
                            None if i == last && named < 100.0 => 100.0 - named,
                            None => {
                                return Err("only the last zone may leave its share blank (the rest)".into());
                            }
                        };
                        zones.push((io, sp));
                    }
                    let space: f64 = zones.iter().map(|z| z.1).sum();
                    if space > 100.0 + 1e-9 {
                        return Err(format!("the zones cover {space} % of the span, more than 100"));
                    }
                    Ok(Distribution::Zoned {
                        zones: zones
                            .into_iter()
                            .map(|(io_pct, space_pct)| crate::jobs::ZonePct { io_pct, space_pct })
                            .collect(),
                    })
                }
            }
        }
        "zoned_abs" => {
            let zones = crate::jobs::job::parse_zones(rest, |sp| {
                fio_number(sp, 1024).and_then(|b| {
                    if b == 0 {
                        Err("a zone of 0 bytes".to_string())
                    } else {
                        Ok(b)
                    }
                })
            })?;
            Ok(Distribution::ZonedAbs {
                zones: zones
                    .into_iter()
                    .map(|(io_pct, size_bytes)| crate::jobs::ZoneAbs { io_pct, size_bytes })
                    .collect(),
            })
        }
        "normal" => Err(format!("unsupported: the {kind} distribution")),
        _ => Err(format!(
            "'{t}' is not a distribution (random, zipf:THETA, pareto:H, zoned:...)"
        )),
    }
}

/// Sizes and weights of a split; weights left blank share what is left, as fio does.
fn resolve_split(parts: &[(u64, Option<u32>)]) -> Result<Vec<BlockSize>, String> {
    let given: u32 = parts.iter().filter_map(|p| p.1).sum();
    if given > 100 {
        return Err(format!("percentages add up to {given}, more than 100"));
    }
    let blank = parts.iter().filter(|p| p.1.is_none()).count() as u32;
    let share = (100 - given).checked_div(blank).unwrap_or(0);
    let out: Vec<BlockSize> = parts
        .iter()
        .map(|(bytes, pct)| BlockSize {
            bytes: *bytes,
            weight: pct.unwrap_or(share),
        })
        .filter(|b| b.weight > 0)
        .collect();
    if out.is_empty() {
        return Err("every share is 0".into());
    }
    Ok(out)
}

/// fio picks a size in [min, max] and rounds it down to a multiple of min:
/// each multiple's weight is how many byte values round to it.
fn range_split(lo: u64, hi: u64) -> Result<Vec<BlockSize>, String> {
    if lo == hi {
        return Ok(vec![BlockSize {
            bytes: lo,
            weight: 100,
        }]);
    }
    if lo == 0 || !lo.is_power_of_two() {
        return Err(format!(
            "a size range from {} that is not a power of two",
            format_size(lo)
        ));
    }
    let count = hi / lo;
    if count as usize > MAX_SPLIT {
        return Err(format!("a size range of more than {MAX_SPLIT} sizes"));
    }
    Ok((1..=count)
        .map(|k| {
            let bytes = k * lo;
            let last = (bytes + lo - 1).min(hi);
            BlockSize {
                bytes,
                weight: u32::try_from(last - bytes + 1).unwrap_or(u32::MAX),
            }
        })
        .collect())
}

impl Translator<'_> {
    /// The value for the directions the job issues; reads and writes must agree.
    fn pick<T: Clone + PartialEq>(
        &self,
        pd: &PerDir<(T, Loc)>,
        job: &Job,
        what: &str,
    ) -> Result<Option<(T, Loc)>, FormatError> {
        let (r, w) = (job.does_reads(), job.does_writes());
        Ok(match (r, w) {
            (true, false) => pd.read.clone(),
            (false, true) => pd.write.clone(),
            _ => match (&pd.read, &pd.write) {
                (Some(a), Some(b)) if a.0 != b.0 => {
                    return Err(b.1.error(format!(
                        "unsupported: different {what} for reads and writes in a mixed job"
                    )));
                }
                (a, b) => a.clone().or(b.clone()),
            },
        })
    }

    /// One fio job as a kura job: each value through the option table
    /// (`Job::apply`), after fio's meaning is translated where it differs.
    fn build_job(&mut self, f: &FioJob, header: &Loc) -> Result<Job, FormatError> {
        // fio's file engines are file-set jobs.
        if let Engine::Files(engine) = f.engine.0 {
            return self.file_engine_job(f, engine, header);
        }
        if f.nrfiles.0 != 1 {
            let at = f.nrfiles.1.clone().unwrap_or_else(|| header.clone());
            return Err(at.error(format!(
                "unsupported: nrfiles={}: kura runs one file per job (fio's file engines take several)",
                f.nrfiles.0
            )));
        }
        // What fio does differently from the options as given: a
        // verify-only job reads, fill_device writes the span once.
        let mut changed = Self::verify_only_job(f);
        if let Some(once) = self.fill_device_job(changed.as_ref().unwrap_or(f)) {
            changed = Some(once);
        }
        let f = changed.as_ref().unwrap_or(f);
        let mut job = Job::default();
        self.pattern(f, &mut job, header)?;
        self.block_sizes(f, &mut job, header)?;
        self.offsets(f, &mut job)?;
        let path = self.target(f, &mut job, header)?;
        self.amount(f, &mut job, header, &path)?;
        self.pacing(f, &mut job, header)?;
        // The histogram's window first: the other logs' note tells the interval.
        self.hist_log(f, &mut job)?;
        self.logs(f, &mut job)?;
        self.data(f, &mut job, header)?;
        self.apply_latency_target(f, &mut job)?;
        self.build_extras(f, &mut job, header)?;
        self.build_verify(f, &mut job)?;
        self.build_zones(f, &mut job)?;
        self.build_flow(f, &mut job)?;
        self.build_steady(f, &mut job)?;
        job.validate()
            .map_err(|e| header.error(format!("{}: {e}", f.name)))?;
        Ok(job)
    }

    /// fio's file engines (filecreate, filestat, ...) as a file-set job.
    fn file_engine_job(
        &mut self,
        f: &FioJob,
        engine: &'static str,
        header: &Loc,
    ) -> Result<Job, FormatError> {
        let mut notes = Vec::new();
        let job = super::fio_fs::job(
            &super::fio_fs::FileEngineJob {
                name: &f.name,
                engine,
                directory: f.directory.as_ref().map(|d| d.0.as_str()),
                nrfiles: f.nrfiles.0,
                numjobs: f.numjobs.0,
                filesize: f.filesize.as_ref().or(f.size.as_ref()).map(|s| s.0),
                header,
            },
            &mut notes,
        )?;
        for n in notes {
            self.note(header, n);
        }
        Ok(job)
    }

    /// The name, pattern, mix, engine, queue and threads.
    fn pattern(&mut self, f: &FioJob, job: &mut Job, header: &Loc) -> Result<(), FormatError> {
        let at = |loc: &Option<Loc>| loc.clone().unwrap_or_else(|| header.clone());
        set(job, Opt::Name, Value::Text(f.name.clone()), header)?;
        set(job, Opt::Rw, Value::Rw(f.rw.0), &at(&f.rw.1))?;
        for (opt, value) in [
            (Opt::ReadPct, Value::Count(f.read_pct.into())),
            (Opt::Direct, Value::Bool(f.direct)),
            (Opt::KeepCache, Value::Bool(f.keep_cache)),
            (Opt::Ramp, Value::Duration(f.ramp)),
            (Opt::StartDelay, Value::Duration(f.startdelay)),
            (Opt::EndFsync, Value::Bool(f.end_fsync)),
            // fio's status interval is kura's series period: one second.
            (Opt::Interval, Value::Duration(Duration::from_secs(1))),
        ] {
            set(job, opt, value, header)?;
        }
        let engine = match f.engine.0 {
            Engine::Uring => super::EngineKind::IoUring,
            Engine::Sync | Engine::Files(_) => super::EngineKind::Sync,
            Engine::Null => super::EngineKind::Null,
        };
        set(job, Opt::Engine, Value::Engine(engine), &at(&f.engine.1))?;
        set(job, Opt::Qd, Value::Count(f.iodepth.0), &at(&f.iodepth.1))?;
        set(job, Opt::Threads, Value::Count(f.numjobs.0), &at(&f.numjobs.1))?;
        if f.rw_gap > 0 {
            set(job, Opt::Gap, Value::Bytes(f.rw_gap), &at(&f.rw.1))?;
        }
        if f.rw_back > 0 {
            set(job, Opt::StepBack, Value::Bytes(f.rw_back), &at(&f.rw.1))?;
        }
        Ok(())
    }

    /// Block sizes, per direction: a split wins over bs/bsrange, as in fio.
    fn block_sizes(&mut self, f: &FioJob, job: &mut Job, header: &Loc) -> Result<(), FormatError> {
        let sizes_of = |split: &Option<(BsSpec, Loc)>,
                        range: &Option<(BsSpec, Loc)>|
         -> Result<Option<(Vec<BlockSize>, Loc)>, FormatError> {
            Ok(match (split, range) {
                (Some((BsSpec::Split(parts), loc)), _) => Some((
                    resolve_split(parts).map_err(|w| loc.error(format!("bssplit: {w}")))?,
                    loc.clone(),
                )),
                (_, Some((BsSpec::Range(lo, hi), loc))) => Some((
                    range_split(*lo, *hi).map_err(|w| loc.error(format!("unsupported: {w}")))?,
                    loc.clone(),
                )),
                _ => None,
            })
        };
        let fio_default = || {
            (
                vec![BlockSize {
                    bytes: 4096,
                    weight: 100,
                }],
                header.clone(),
            )
        };
        // fio's trims take the third value (`bs=R,W,T`); kura's take `bs`, one for every direction.
        if job.does_trims() && f.sizes_per_dir {
            return Err(header.error(format!(
                "unsupported: {}: rw={}: block sizes per direction with trims (kura trims, and trimwrite writes, in one size: give bs one value)",
                f.name,
                job.rw.name()
            )));
        }
        let reads = sizes_of(&f.bssplit.read, &f.bs.read)?;
        let writes = sizes_of(&f.bssplit.write, &f.bs.write)?.unwrap_or_else(fio_default);
        let (sizes, bs_loc) = if job.does_reads() {
            reads.unwrap_or_else(fio_default)
        } else {
            writes.clone()
        };
        set(job, Opt::Bs, Value::BlockSizes(sizes), &bs_loc)?;
        // A mix whose writes have sizes of their own (fio's `bs=R,W`, `bssplit=R,W`).
        if job.does_reads() && job.does_writes() && writes.0 != job.bs {
            set(job, Opt::BsWrite, Value::BlockSizes(writes.0), &writes.1)?;
        }
        if let Some((ba, loc)) = self.pick(&f.ba, job, "alignments (blockalign)")? {
            let min_bs = job.bs.iter().map(|b| b.bytes).min().unwrap_or(4096);
            if ba != min_bs {
                set(job, Opt::Align, Value::Bytes(ba), &loc)?;
            }
        }
        Ok(())
    }

    /// The spread of random offsets and the share that seeks.
    fn offsets(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        if let Some((d, loc)) =
            self.pick(&f.distribution, job, "random distributions (random_distribution)")?
        {
            set(job, Opt::Distribution, Value::Distribution(d), &loc)?;
        }
        if let Some((p, loc)) = self.pick(&f.random_pct, job, "random percentages (percentage_random)")? {
            if !job.rw.is_random() && p != 100 {
                self.note(
                    &loc,
                    "percentage_random: only random patterns use it (fio's rule)".into(),
                );
            } else {
                set(job, Opt::RandomPct, Value::Count(p.into()), &loc)?;
            }
        }
        Ok(())
    }

    /// Where: fio's file name is directory/filename, or
    /// directory/$jobname.$jobnum.$filenum. Returns the path.
    fn target(&mut self, f: &FioJob, job: &mut Job, header: &Loc) -> Result<String, FormatError> {
        let dir = f.directory.as_ref().map(|d| d.0.clone());
        let path = match &f.filename {
            Some((name, _)) if name.starts_with('/') => name.clone(),
            Some((name, _)) => match &dir {
                Some(d) => format!("{d}/{name}"),
                None => name.clone(),
            },
            None => {
                let format = f
                    .filename_format
                    .as_deref()
                    .unwrap_or("$jobname.$jobnum.$filenum");
                let name = format
                    .replace("$jobname", &f.name.replace('/', "_"))
                    .replace("$jobnum", "0")
                    .replace("$filenum", "0")
                    .replace("$clientuid", "0");
                // A name fio derives is a name kura picks: never followed through a
                // link planted there, created exclusively, taken over only with kura's mark.
                job.own_name = true;
                match &dir {
                    Some(d) => format!("{d}/{name}"),
                    None => name,
                }
            }
        };
        set(job, Opt::Target, Value::Path(path.clone().into()), header)?;
        let threads = job.threads;
        if threads > 1 && f.filename.is_none() {
            self.note(
                header,
                format!(
                    "{}: fio gives each of its {threads} clones a file of its own; kura's {threads} threads share one",
                    f.name
                ),
            );
        }
        Ok(path)
    }

    /// How much: the file (span), and when to stop. fio's amounts are per
    /// clone and repeat `loops` times; kura's are the job's.
    fn amount(&mut self, f: &FioJob, job: &mut Job, header: &Loc, path: &str) -> Result<(), FormatError> {
        let threads = u64::from(job.threads);
        let span = f.filesize.as_ref().or(f.size.as_ref());
        if let Some((s, loc)) = span {
            // With offset_increment the last clone's region ends further in.
            let s = s.saturating_add(Self::extra_span(f));
            let s = s.saturating_add(Self::offset_into_size(f, path));
            set(job, Opt::Size, Value::Bytes(s), loc)?;
        }
        if let Some((o, loc)) = &f.offset {
            set(job, Opt::Offset, Value::Bytes(*o), loc)?;
        }
        if let Some((r, loc)) = &f.runtime {
            set(job, Opt::Runtime, Value::Duration(*r), loc)?;
        }
        let passes = Value::Count(f.loops.saturating_mul(threads));
        if f.time_based {
            if f.runtime.is_none() {
                return Err(header.error(format!(
                    "unsupported: {}: time_based without runtime runs until it is interrupted; give runtime",
                    f.name
                )));
            }
        } else if let Some((n, loc)) = &f.number_ios {
            set(job, Opt::IoCount, Value::Count(n.saturating_mul(threads)), loc)?;
        } else {
            let amount = f.io_size.as_ref().or(f.size.as_ref()).or(f.filesize.as_ref());
            match (amount, span) {
                (Some((a, _)), Some((s, loc))) if a == s => set(job, Opt::Passes, passes, loc)?,
                (Some((a, loc)), _) => {
                    let total = a.saturating_mul(f.loops).saturating_mul(threads);
                    set(job, Opt::IoSize, Value::Bytes(total), loc)?;
                }
                (None, _) => set(job, Opt::Passes, passes, header)?,
            }
        }
        Ok(())
    }

    /// Rates (fio's are per clone and per direction; kura's are the job's)
    /// and think time. `rate` stays in bytes: kura paces it as a fraction
    /// of an I/O per second where it is one (fio's `rate=1250` of 4 KiB).
    fn pacing(&mut self, f: &FioJob, job: &mut Job, header: &Loc) -> Result<(), FormatError> {
        let threads = job.threads as f64;
        let (iops, bytes) = self.job_rate(f, job);
        if let Some(r) = iops {
            let iops = ((r * threads).floor() as u64).max(1);
            set(job, Opt::RateIops, Value::Count(iops), header)?;
        }
        if let Some(b) = bytes {
            let bytes = ((b * threads).round() as u64).max(1);
            set(job, Opt::Rate, Value::Bytes(bytes), header)?;
        }
        if (iops.is_some() || bytes.is_some())
            && let Some((word, loc)) = &f.rate_process
        {
            set(job, Opt::RateProcess, Value::Text(word.clone()), loc)?;
        }
        if let Some(t) = f.thinktime {
            set(job, Opt::ThinkTime, Value::Duration(t), header)?;
            if let Some(b) = f.thinktime_blocks {
                set(job, Opt::ThinkEvery, Value::Count(b.min(u32::MAX as u64)), header)?;
            }
        }
        Ok(())
    }

    /// Syncs and written data.
    fn data(&mut self, f: &FioJob, job: &mut Job, header: &Loc) -> Result<(), FormatError> {
        let syncs = [f.fsync, f.fdatasync].into_iter().filter(|n| *n > 0).min();
        if let Some(n) = syncs {
            set(job, Opt::FsyncEvery, Value::Count(n), header)?;
            if f.fsync > 0 {
                self.note(header, format!("{}: fsync: kura syncs with fdatasync", f.name));
            }
        }
        let fill = if f.zero_buffers {
            super::Fill::Zero
        } else {
            match f.compress_pct {
                Some(0) | None => super::Fill::Random,
                Some(p) => super::Fill::Compressible { pct: p },
            }
        };
        set(job, Opt::Fill, Value::Fill(fill), header)
    }

    /// fio's bandwidth, IOPS and latency logs, written from the interval
    /// series: `log_avg_msec` is the interval. fio without it logs every
    /// I/O, which kura does not (no work per I/O beyond the I/O): one line
    /// per second and direction then, and a note says so.
    fn logs(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let opts = [Opt::WriteBwLog, Opt::WriteIopsLog, Opt::WriteLatLog];
        let mut any = None;
        for (slot, opt) in f.logs.iter().zip(opts) {
            if let Some((prefix, loc)) = slot {
                // fio's default prefix is the job's name.
                let prefix = prefix.clone().unwrap_or_else(|| f.name.clone());
                set(job, opt, Value::Path(prefix.into()), loc)?;
                any = Some(loc);
            }
        }
        match (&f.log_avg_msec, any) {
            (Some((ms, loc)), Some(_)) if *ms > 0 => {
                set(job, Opt::Interval, Value::Duration(Duration::from_millis(*ms)), loc)?;
            }
            (_, Some(loc)) => self.note(
                loc,
                format!(
                    "{}: fio logs every I/O without log_avg_msec; kura writes the log's average per {} and direction (fio's windowed format)",
                    f.name,
                    crate::jobs::units::format_duration(job.interval)
                ),
            ),
            _ => {}
        }
        Ok(())
    }

    /// One clone's caps from rate_iops (I/Os per second) and rate (bytes
    /// per second), each over the whole mix: the direction that reaches
    /// its cap first holds the mix back.
    fn job_rate(&mut self, f: &FioJob, job: &Job) -> (Option<f64>, Option<f64>) {
        let read_share = f64::from(job.effective_read_pct()) / 100.0;
        let mean = |bs: &[super::BlockSize]| {
            let weights: f64 = bs.iter().map(|b| f64::from(b.weight)).sum();
            bs.iter()
                .map(|b| b.bytes as f64 * f64::from(b.weight))
                .sum::<f64>()
                / weights.max(1.0)
        };
        let read_bs = mean(&job.bs);
        let write_bs = job.bs_write.as_deref().map_or(read_bs, mean);
        // Per direction: whether it issues, its share of I/Os and of bytes.
        let all_bytes = job.mean_io_bytes().max(1.0);
        let dirs = [
            (job.does_reads(), read_share, read_share * read_bs / all_bytes),
            (
                job.does_writes(),
                1.0 - read_share,
                (1.0 - read_share) * write_bs / all_bytes,
            ),
        ];
        let cap = |limits: &PerDir<(u64, Loc)>, in_bytes: bool| {
            let mut cap: Option<f64> = None;
            for (i, limit) in [&limits.read, &limits.write].into_iter().enumerate() {
                let (issues, ops_share, bytes_share) = dirs[i];
                let share = if in_bytes { bytes_share } else { ops_share };
                let Some((value, _)) = limit else { continue };
                if !issues || *value == 0 || share <= 0.0 {
                    continue;
                }
                let total = *value as f64 / share;
                cap = Some(cap.map_or(total, |c: f64| c.min(total)));
            }
            cap
        };
        let bytes = cap(&f.rate, true);
        if bytes.is_some() && job.all_bs().count() > 1 {
            let loc = f
                .rate
                .read
                .as_ref()
                .or(f.rate.write.as_ref())
                .map(|r| r.1.clone());
            if let Some(loc) = loc {
                self.note(
                    &loc,
                    "rate: kura paces I/Os of the mean block size; bytes per second hold on average over the block size split"
                        .into(),
                );
            }
        }
        (cap(&f.rate_iops, false), bytes)
    }
}

/// Parses a fio job file; `path` names it in errors and anchors includes.
pub fn parse(text: &str, path: &Path, lenient: bool, sources: &Sources) -> Result<Plan, FormatError> {
    let file = path.display().to_string();
    let mut lexer = Lexer {
        sources,
        sections: Vec::new(),
        stack: vec![file.clone()],
        budget: IncludeBudget::default(),
    };
    lexer.lex(text, path, false)?;
    let mut t = Translator {
        lenient,
        warnings: Vec::new(),
        seen: Default::default(),
        unlisted: 0,
        sources,
    };
    let _ = t.sources;
    let mut global = FioJob::fio_defaults();
    let mut jobs: Vec<(Job, bool)> = Vec::new();
    // Per job: wait_for's job and where, exit_what=all's where.
    type Waits = (Option<(String, Loc)>, Option<Loc>);
    let mut waits: Vec<Waits> = Vec::new();
    for section in &lexer.sections {
        match section {
            Section::Global(entries) => {
                for e in in_fio_order(entries) {
                    t.apply(&mut global, e)?;
                }
            }
            Section::Job { name, loc, entries } => {
                let mut j = global.clone();
                j.name = name.clone();
                // stonewall set in [global] applies to every job (fio's rule), so it is kept.
                for e in in_fio_order(entries) {
                    t.apply(&mut j, e)?;
                }
                let job = t.build_job(&j, loc)?;
                if let Some((name, at)) = &j.schedule.wait_for
                    && !jobs.iter().any(|(earlier, _)| earlier.name == *name)
                {
                    return Err(at.error(format!(
                        "wait_for={}: no job of that name before this one (fio waits only for an earlier job)",
                        clip(name)
                    )));
                }
                // wait_for: the job starts after the group it waits for, as after a stonewall.
                jobs.push((job, j.stonewall || j.schedule.wait_for.is_some()));
                waits.push((j.schedule.wait_for.clone(), j.schedule.exit_all_run.clone()));
            }
        }
    }
    // fio's exitall is one switch for the whole run: any job's stops every group.
    if jobs.iter().any(|(j, _)| j.exit_all) {
        for (j, _) in &mut jobs {
            j.exit_all = true;
        }
    }
    if jobs.is_empty() {
        return Err(FormatError {
            file,
            line: 0,
            column: None,
            message: "no job: a fio job file needs at least one [section] besides [global]".into(),
        });
    }
    // Jobs run together until a stonewall; a group of one needs no group.
    let mut group = 0u32;
    let mut groups = Vec::with_capacity(jobs.len());
    for (i, (_, stonewall)) in jobs.iter().enumerate() {
        if i > 0 && *stonewall {
            group += 1;
        }
        groups.push(group);
    }
    // Groups are numbered in order, so one pass counts their members.
    let mut members = vec![0usize; group as usize + 1];
    for g in &groups {
        members[*g as usize] += 1;
    }
    for (i, (wait, all)) in waits.iter().enumerate() {
        if let Some((name, at)) = wait {
            let waited = jobs[..i].iter().rposition(|(j, _)| j.name == *name);
            let exact =
                waited.is_some_and(|w| groups[w] + 1 == groups[i] && members[groups[w] as usize] == 1);
            if !exact {
                t.note(
                    at,
                    format!(
                        "{}: wait_for={name}: kura starts it when every job of the group before it has ended (a stonewall)",
                        jobs[i].0.name
                    ),
                );
            }
        }
        if let Some(at) = all
            && groups[i] < group
        {
            return Err(at.error(
                "unsupported: exit_what=all with jobs after this group: kura's exitall stops the jobs running \
                 with the one that ended, and the later groups still run; put them in a file of their own",
            ));
        }
    }
    let planned = jobs
        .into_iter()
        .zip(&groups)
        .map(|((mut job, _), g)| {
            job.group = (members[*g as usize] > 1).then_some(*g);
            PlannedJob::plain(job)
        })
        .collect();
    if t.unlisted > 0 {
        t.warnings
            .push(format!("{file}: {} more warnings not listed", t.unlisted));
    }
    Ok(Plan {
        format: Format::Fio,
        jobs: planned,
        warnings: t.warnings,
        cannot_run: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::EngineKind;

    fn jobs(text: &str) -> Vec<Job> {
        parse(text, Path::new("t.fio"), false, &Sources::none())
            .unwrap_or_else(|e| panic!("{e}"))
            .jobs
            .into_iter()
            .map(|p| p.job)
            .collect()
    }

    fn error(text: &str) -> String {
        parse(text, Path::new("t.fio"), false, &Sources::none())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn units_follow_fio() {
        assert_eq!(fio_number("4k", 1024), Ok(4096));
        assert_eq!(fio_number("4kb", 1024), Ok(4096));
        assert_eq!(fio_number("4ki", 1024), Ok(4096));
        assert_eq!(fio_number("4kib", 1024), Ok(4000));
        assert_eq!(fio_number("4KiB", 1000), Ok(4096));
        assert_eq!(fio_number("4ki", 1000), Ok(4000));
        assert_eq!(fio_number("0x10", 1024), Ok(16));
        assert_eq!(fio_number("1t", 1024), Ok(1 << 40));
        assert!(fio_number("1.5k", 1024).is_err());
        assert!(fio_number("4q", 1024).is_err());
        assert_eq!(
            fio_time("2m", Duration::from_secs(1)),
            Ok(Duration::from_secs(120))
        );
        assert_eq!(
            fio_time("2000", Duration::from_micros(1)),
            Ok(Duration::from_millis(2))
        );
        assert_eq!(
            fio_time("2d", Duration::from_secs(1)),
            Ok(Duration::from_secs(172_800))
        );
        assert_eq!(evaluate_simple("8*1024"), Some(8192));
        assert_eq!(evaluate_simple("8*1024+4-2"), Some(8194));
        assert_eq!(evaluate_simple("abc"), None);
    }

    #[test]
    fn global_defaults_then_jobs_with_fio_defaults() {
        let j = jobs(
            "; comment\n[global]\nrw=randrw\nrwmixwrite=30\nbs=8k ; inline\nsize=64m\n\n[a]\niodepth=16\nnumjobs=2\nioengine=libaio\ndirect=1\n[b]\nrw=read\n",
        );
        assert_eq!(j.len(), 2);
        assert_eq!(j[0].name, "a");
        assert_eq!(j[0].rw, Rw::RandRw);
        assert_eq!(j[0].read_pct, 70);
        assert_eq!(j[0].bs[0].bytes, 8192);
        assert_eq!((j[0].qd, j[0].threads), (16, 2));
        assert_eq!(j[0].engine, EngineKind::IoUring);
        assert!(j[0].direct);
        assert_eq!(j[0].passes, Some(2));
        assert_eq!(j[0].target.as_deref(), Some(Path::new("a.0.0")));
        // fio's defaults: psync, buffered, iodepth 1.
        assert_eq!(j[1].engine, EngineKind::Sync);
        assert!(!j[1].direct);
        assert_eq!(j[1].qd, 1);
        // Without stonewalls, fio runs both at once.
        assert_eq!(j[0].group, Some(0));
        assert_eq!(j[1].group, Some(0));
    }

    #[test]
    fn stonewalls_split_groups_and_time_based_runs_for_runtime() {
        let j = jobs(
            "[global]\nsize=1g\nruntime=30\ntime_based\n[a]\n[b]\n[c]\nstonewall\n[d]\nwait_for_previous\n",
        );
        let groups: Vec<_> = j.iter().map(|j| j.group).collect();
        assert_eq!(groups, vec![Some(0), Some(0), None, None]);
        assert_eq!(j[0].runtime, Some(Duration::from_secs(30)));
        assert_eq!((j[0].passes, j[0].io_size_bytes), (None, None));
    }

    #[test]
    fn without_time_based_the_job_stops_after_size_or_runtime() {
        let j = jobs("[a]\nsize=8m\nio_size=2m\nloops=3\nnumjobs=2\nruntime=60\n");
        assert_eq!(j[0].io_size_bytes, Some(12 << 20));
        assert_eq!(j[0].runtime, Some(Duration::from_secs(60)));
        let j = jobs("[a]\nfilename=/dev/sdz\nloops=2\n");
        assert_eq!(j[0].passes, Some(2));
        assert_eq!(j[0].size_bytes, None);
    }

    #[test]
    fn splits_ranges_rates_and_distributions() {
        let j = jobs("[a]\nrw=randread\nbssplit=4k/50:1k/:32k/\n");
        let weights: Vec<_> = j[0].bs.iter().map(|b| (b.bytes, b.weight)).collect();
        assert_eq!(weights, vec![(4096, 50), (1024, 25), (32768, 25)]);
        let j = jobs("[a]\nbsrange=4k-8k\n");
        let weights: Vec<_> = j[0].bs.iter().map(|b| (b.bytes, b.weight)).collect();
        assert_eq!(weights, vec![(4096, 4096), (8192, 1)]);
        let j = jobs("[a]\nrw=randrw\nrwmixread=75\nrate_iops=300\nnumjobs=2\n");
        // Reads reach 300/s first: 300 / 0.75 = 400 I/Os per clone.
        assert_eq!(j[0].rate_iops, Some(800));
        let j = jobs("[a]\nrw=write\nbs=4k\nrate=1m\n");
        assert_eq!((j[0].rate_iops, j[0].rate_bytes_per_sec), (None, Some(1 << 20)));
        assert_eq!(j[0].pace_iops(), Some(256.0));
        // fio's 1mbs_clients.fio: 1250 bytes per second of 4 KiB reads is 0.305 I/Os per second.
        let j = jobs("[a]\nrw=read\nrate=1250\nnumjobs=2\n");
        assert_eq!(j[0].rate_bytes_per_sec, Some(2500));
        assert!((j[0].pace_iops().unwrap() - 2500.0 / 4096.0).abs() < 1e-9);
        // Reads capped at 1m of a 50/50 mix: the mix moves 2m.
        let j = jobs("[a]\nrw=randrw\nbs=4k\nrate=1m,\n");
        assert_eq!(j[0].rate_bytes_per_sec, Some(2 << 20));
        let j = jobs("[a]\nrw=randread\nrandom_distribution=zoned:80/20:20/\n");
        assert_eq!(
            j[0].distribution,
            Distribution::Hotspot {
                io_pct: 80.0,
                space_pct: 20.0
            }
        );
        let j = jobs("[a]\nrw=randread\nrandom_distribution=zipf:1.2\npercentage_random=70\nba=8k\n");
        assert_eq!(j[0].distribution, Distribution::Zipf { theta: 1.2 });
        assert_eq!(j[0].random_pct, 70);
        assert_eq!(j[0].align, Some(8192));
        let j = jobs(
            "[a]\nrw=write\nthinktime=2000\nthinktime_blocks=4\nstartdelay=3\nend_fsync=1\nfdatasync=8\n",
        );
        assert_eq!(j[0].think_time, Some(Duration::from_millis(2)));
        assert_eq!(j[0].think_every, Some(4));
        assert_eq!(j[0].start_delay, Duration::from_secs(3));
        assert!(j[0].end_fsync);
        assert_eq!((Opt::FsyncEvery.def().get)(&j[0]), Some(Value::Count(8)));
    }

    #[test]
    fn a_sequential_offset_modifier_is_a_gap() {
        let j = jobs("[a]\nrw=write:8k\nsize=1m\n");
        assert_eq!((j[0].rw, j[0].gap_bytes), (Rw::Write, 8192));
        let err = error("[a]\nrw=randread:8\nsize=1m\n");
        assert!(err.contains("percentage_random"), "{err}");
        let j = jobs("[a]\nrw=read:-8k\nsize=1m\n");
        assert_eq!(
            (j[0].rw, j[0].step_back_bytes, j[0].gap_bytes),
            (Rw::Read, 8192, 0)
        );
        let err = error("[a]\nrw=read:100\nsize=1m\n");
        assert!(
            err.contains("gap: '100' is not valid: must be a multiple of 512 bytes"),
            "{err}"
        );
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            error("[a]\nrw=read\niodeptj=4\n"),
            "t.fio:3:1: unknown option 'iodeptj': fio has no such option; did you mean 'iodepth'?; --lenient ignores it"
        );
        assert_eq!(
            error("[a]\nread_iolog=trace\n"),
            "t.fio:2:1: unsupported: fio option 'read_iolog' has no kura equivalent; --lenient ignores it"
        );
        assert_eq!(
            error("[a]\nioengine=rbd\n"),
            "t.fio:2:10: unsupported: ioengine=rbd (kura runs io_uring, libaio and posixaio on io_uring; sync, psync, vsync, pvsync and pvsync2 on sync; null; and filecreate, filestat, filedelete, dircreate, dirdelete as file sets)"
        );
        assert_eq!(
            error("[a]\n  bs = 4q\n"),
            "t.fio:2:8: bs: '4q': unknown unit 'q' (examples: 4k, 1m, 1g, 4KiB)"
        );
        assert!(error("[a\nbs=4k\n").starts_with("t.fio:1:1: malformed section header"));
        assert!(error("bs=4k\n").contains("before any section"));
        assert!(error("[global]\nbs=4k\n").contains("no job"));
        assert!(error("[a]\nrw=${NOPE}\n").contains("the environment does not set ${NOPE}"));
        assert!(error("[a]\nrw=randread\nrwmixread=150\n").contains("percentage"));
        assert_eq!(jobs("[a]\nrw=trim\n")[0].rw, Rw::Trim);
        assert_eq!(jobs("[a]\nrw=randtrimwrite\nbs=8k\n")[0].rw, Rw::RandTrimWrite);
        assert!(error("[a]\nrw=trimwrite\nbs=4k,8k\n").contains("block sizes per direction with trims"));
        assert!(error("[a]\nrw=trim\nbs=,,64k\n").contains("block sizes per direction with trims"));
    }

    fn notes(text: &str) -> Vec<String> {
        parse(text, Path::new("t.fio"), false, &Sources::none())
            .unwrap_or_else(|e| panic!("{e}"))
            .warnings
    }

    /// fio's verify options onto kura's verify.
    #[test]
    fn verify_options_map_to_kuras_verify() {
        for off in ["verify=0", "verify=none", "do_verify=0", "verify_backlog=16"] {
            let j = jobs(&format!("[a]\nrw=write\n{off}\n"));
            assert!(!j[0].verify, "{off}");
        }
        for kind in ["crc32c", "md5", "sha256", "meta", "pattern", "xxhash"] {
            let text = format!("[a]\nrw=randwrite\nverify={kind}\n");
            assert!(jobs(&text)[0].verify, "{kind}");
            let n = notes(&text);
            assert!(
                n.iter()
                    .any(|w| w.contains(&format!("verify={kind}: kura")) && w.contains("CRC32")),
                "{kind}: {n:?}"
            );
        }
        assert!(!jobs("[a]\nrw=write\nverify=null\n")[0].verify);
        let j = jobs("[a]\nrw=write\nverify=crc32c\nverify_fatal=1\nverify_pattern=0xaa555aa5\n");
        assert_eq!(j[0].max_errors, Some(1));
        assert_eq!(j[0].buffer_pattern.as_deref(), Some("0xaa555aa5"));
        // verify_only: the writing job becomes a read of its span that checks every block.
        let text = "[a]\nrw=randwrite\nbs=8k\nverify=md5\nverify_only\n";
        let j = jobs(text);
        assert_eq!((j[0].rw, j[0].verify, j[0].bs[0].bytes), (Rw::Read, true, 8192));
        assert!(
            notes(text)
                .iter()
                .any(|n| n.contains("rw=randwrite becomes read"))
        );
        let err = error("[a]\nrw=read\nverify=crc32c\nverify_state_load=1\n");
        assert!(err.contains("--journal FILE"), "{err}");
        assert!(error("[a]\nverify=crc99\n").contains("not one of fio's verify kinds"));
        let err = error("[a]\ncontinue_on_error=maybe\n");
        assert!(!err.contains("does not verify"), "{err}");
        assert!(
            err.contains("expected none, read, write, io, verify, all"),
            "{err}"
        );
        assert_eq!(jobs("[a]\ncontinue_on_error=verify\n").len(), 1);
    }

    /// `threads` (fio's steadystate.fio and waitfor.fio) is the
    /// tiobench profile's option, which changes nothing in a plain job.
    #[test]
    fn threads_is_accepted_and_changes_nothing() {
        let text = "[global]\nthreads=1\n[a]\nnumjobs=2\n[b]\n";
        let j = jobs(text);
        assert_eq!((j[0].threads, j[1].threads), (2, 1));
        let n = notes(text);
        assert_eq!(
            n.iter().filter(|w| w.contains("threads: accepted")).count(),
            1,
            "{n:?}"
        );
    }

    /// Options of fio's shipped examples.
    #[test]
    fn wait_for_exit_what_fill_device_and_notes() {
        // waitfor.fio: each job waits for the one before, alone in its group.
        let text = "[w]\nsize=1m\n[r]\nwait_for=w\nsize=1m\n[x]\nsize=1m\n[y]\nwait_for=w\nsize=1m\n";
        let j = jobs(text);
        let groups: Vec<_> = j.iter().map(|j| j.group).collect();
        assert_eq!(groups, [None, Some(1), Some(1), None]);
        let n = notes(text);
        assert!(
            n.iter()
                .any(|w| w.contains("y: wait_for=w: kura starts it when every job")),
            "{n:?}"
        );
        assert!(!n.iter().any(|w| w.contains("r: wait_for")), "{n:?}");
        assert!(error("[a]\nwait_for=b\n[b]\n").contains("no job of that name before this one"));
        // exit_what: stonewall is kura's group; all only where no group follows.
        let j = jobs("[a]\nexitall\nexit_what=stonewall\n[b]\n");
        assert!(j[0].exit_all && j[1].exit_all);
        assert_eq!(jobs("[a]\nexitall\nexit_what=all\n[b]\n").len(), 2);
        let err = error("[a]\nexitall\nexit_what=all\n[b]\nstonewall\n");
        assert!(
            err.contains("unsupported: exit_what=all with jobs after this group"),
            "{err}"
        );
        // fill_device writes the span once, whatever io_size said.
        let j = jobs("[a]\nrw=write\nfill_device=1\nio_size=10g\n");
        assert_eq!(
            (j[0].passes, j[0].io_size_bytes, j[0].size_bytes),
            (Some(1), None, None)
        );
        for (option, said) in [
            ("io_submit_mode=offload", "io_submit_mode=offload"),
            ("numa_cpu_nodes=0", "numactl --cpunodebind"),
            ("prioclass=1", "ionice"),
            ("ignore_error=,ENOSPC", "counts every failed I/O"),
        ] {
            let n = notes(&format!("[a]\n{option}\n"));
            assert!(n.iter().any(|w| w.contains(said)), "{option}: {n:?}");
        }
        assert!(notes("[a]\nio_submit_mode=inline\n").is_empty());
        // disk-zone-profile.fio: strided zones; zbd is refused saying what to do.
        let j = jobs("[a]\nzonemode=strided\nzonesize=256m\nzoneskip=2g\nmax_open_zones=4\n");
        assert_eq!(
            (j[0].zone_size_bytes, j[0].zone_range_bytes, j[0].zone_skip_bytes),
            (256 << 20, 0, 2 << 30)
        );
        assert_eq!(jobs("[a]\nzonesize=1m\n")[0].zone_size_bytes, 1 << 20);
        assert_eq!(jobs("[a]\nzonemode=none\nzonesize=1m\n")[0].zone_size_bytes, 0);
        let err = error("[a]\nzonemode=zbd\nzonesize=256m\n");
        assert!(
            err.contains("unsupported: zonemode=zbd") && err.contains("remove zonemode"),
            "{err}"
        );
    }

    #[test]
    fn lenient_lists_what_it_ignored() {
        let plan = parse(
            "[a]\nread_iolog=t\nspeed=9\n",
            Path::new("t.fio"),
            true,
            &Sources::none(),
        )
        .unwrap();
        assert_eq!(plan.jobs.len(), 1);
        assert_eq!(plan.warnings.len(), 2, "{:?}", plan.warnings);
        assert!(plan.warnings[1].starts_with("t.fio:3: ignored: unknown option 'speed'"));
    }

    #[test]
    fn includes_env_and_loops() {
        let read = |p: &Path| -> std::io::Result<String> {
            match p.to_str() {
                Some("dir/inc.fio") => Ok("iodepth=${QD}\n".into()),
                Some("dir/loop.fio") => Ok("include loop2.fio\n".into()),
                Some("dir/loop2.fio") => Ok("include loop.fio\n".into()),
                _ => Err(std::io::ErrorKind::NotFound.into()),
            }
        };
        let env = |n: &str| (n == "QD").then(|| "8".to_string());
        let sources = Sources {
            read: &read,
            env: &env,
        };
        let plan = parse(
            "[a]\ninclude inc.fio\n",
            Path::new("dir/main.fio"),
            false,
            &sources,
        )
        .unwrap();
        assert_eq!(plan.jobs[0].job.qd, 8);
        let err = parse(
            "[a]\ninclude loop.fio\n",
            Path::new("dir/main.fio"),
            false,
            &sources,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("include loop: dir/loop.fio -> dir/loop2.fio -> dir/loop.fio"),
            "{err}"
        );
        assert!(err.starts_with("dir/loop2.fio:1:1:"), "{err}");
    }

    #[test]
    fn includes_are_bounded_in_count_and_size() {
        // Level n includes level n+1 twice: 2^12 includes unbounded, each a new path.
        let read_levels = |p: &Path| -> std::io::Result<String> {
            let level: usize = p.to_str().unwrap()[1..].trim_end_matches(".fio").parse().unwrap();
            Ok(match level {
                12 => "direct=1\n".into(),
                n => format!("include l{m}.fio\ninclude l{m}.fio\n", m = n + 1),
            })
        };
        let read = |_: &Path| -> std::io::Result<String> { Ok("direct=1\n".repeat(200_000)) };
        let env = |_: &str| None;
        let levels = Sources {
            read: &read_levels,
            env: &env,
        };
        let err = parse("[a]\ninclude l0.fio\n", Path::new("m.fio"), false, &levels)
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 64 includes"), "{err}");
        let sources = Sources {
            read: &read,
            env: &env,
        };
        let err = parse("[a]\ninclude big.fio\n", Path::new("m.fio"), false, &sources)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "m.fio:2:1: included file big.fio is larger than 1m");
    }

    #[test]
    fn lines_that_are_not_options_are_not_echoed() {
        let err = parse(
            "[a]\nroot:$y$SECRET:1:::\n",
            Path::new("t.fio"),
            true,
            &Sources::none(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            !err.contains("SECRET") && err.starts_with("t.fio:2:1: malformed line"),
            "{err}"
        );
        let long = "x".repeat(500);
        let plan = parse(
            &format!("[a]\n{long}=1\n"),
            Path::new("t.fio"),
            true,
            &Sources::none(),
        )
        .unwrap();
        assert!(plan.warnings[0].len() < 150, "{:?}", plan.warnings);
    }
}
