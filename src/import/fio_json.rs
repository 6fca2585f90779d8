//! fio's `--output-format=json` result as a kura run. Counts, IOPS,
//! bandwidth and latency (min/mean/stddev/max of `lat_ns`, submission to
//! completion as kura measures it) are copied as fio printed them; job options
//! become a `Job` so that compare can match the run against kura's. fio's
//! JSON carries no histogram and no interval series: those stay empty.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::jobs::units::parse_duration;
use crate::jobs::{BlockSize, EngineKind, Fill, Job, Opt, Value as JobValue};
use crate::metrics::{
    DirectionResult, HostFacts, JobResult, LatencySummary, RunResult, TargetFacts, TargetKind,
};

#[derive(Debug, Error)]
pub enum FioImportError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is not a fio JSON result: {why} (write one with `fio --output-format=json --output=FILE ...`)"
    )]
    NotFio { path: String, why: String },
    #[error("{path}: job '{job}': {why}")]
    Unsupported { path: String, job: String, why: String },
}

/// The largest fio result read: far beyond what fio writes for hundreds of jobs.
const MAX_RESULT_BYTES: usize = 256 << 20;

/// Reads and translates a fio JSON result file.
pub fn import_file(path: &Path) -> Result<RunResult, FioImportError> {
    let text = crate::jobs::jobfile::read_job_file(path, MAX_RESULT_BYTES, false).map_err(|source| {
        FioImportError::Read {
            path: path.display().to_string(),
            source,
        }
    })?;
    parse(&text, &path.display().to_string())
}

/// Translates fio JSON text; `source` names it in errors and in the run's notes.
pub fn parse(text: &str, source: &str) -> Result<RunResult, FioImportError> {
    let not_fio = |why: &str| FioImportError::NotFio {
        path: source.to_string(),
        why: why.to_string(),
    };
    // fio prints some notes on stdout before the JSON document when both go to one file.
    let start = if text.trim_start().starts_with(['{', '[']) {
        Some(0)
    } else {
        text.find("\n{").map(|i| i + 1)
    };
    let doc: Value = start
        .and_then(|s| {
            serde_json::from_str(&text[s..])
                .ok()
                .or_else(|| serde_json::from_str(&null_for_nan(&text[s..])).ok())
        })
        .ok_or_else(|| not_fio("it is not a JSON document"))?;
    let top = doc
        .as_object()
        .ok_or_else(|| not_fio("the JSON is not an object"))?;
    let version = top
        .get("fio version")
        .and_then(Value::as_str)
        .ok_or_else(|| not_fio("it has no \"fio version\""))?;
    let jobs = top
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| not_fio("it has no \"jobs\" array"))?;
    let global = options(top.get("global options"));
    let mut warnings = vec![format!(
        "imported from {version} ({source}): no latency histogram or interval series"
    )];
    let entries = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| entry(i, j, &global, source))
        .collect::<Result<Vec<_>, _>>()?;
    let entries = merge_clones(entries, &mut warnings);
    if entries.iter().any(|e| e.clat_percentiles) {
        warnings.push(
            "percentiles are fio's completion latency (clat_ns, without submission time; run fio with lat_percentiles=1 for total latency); min, mean, stddev and max are total latency (lat_ns) as kura measures it"
                .into(),
        );
    }
    let mut results = Vec::new();
    for e in &entries {
        if e.read.is_none() && e.write.is_none() {
            warnings.push(format!(
                "fio job '{}' did no reads or writes; it is left out",
                e.name
            ));
            continue;
        }
        results.push(job_result(e, source, &mut warnings)?);
    }
    if results.is_empty() {
        return Err(not_fio("no job did any reads or writes"));
    }
    let incomplete = results.iter().any(|r| r.incomplete);
    // fio's timestamp is when it wrote the result.
    let started_unix_s = top.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
    if !super::kura::plausible_start(started_unix_s) {
        return Err(not_fio(&format!(
            "timestamp: {started_unix_s} is not a date fio can have written it (before 1970, or more than a year after this machine's clock)"
        )));
    }
    Ok(RunResult {
        id: None,
        kura_version: env!("CARGO_PKG_VERSION").to_string(),
        started_unix_s,
        label: None,
        price: None,
        suite: Some(crate::jobs::suites::SuiteKind::ImportFio),
        hosts: Vec::new(),
        interleaved_with: Vec::new(),
        host: HostFacts {
            hostname: entries
                .iter()
                .find_map(|e| e.hostname.clone())
                .unwrap_or_default(),
            ..HostFacts::default()
        },
        jobs: results,
        incomplete,
        warnings: warnings
            .into_iter()
            .map(|note| crate::metrics::Warning::Imported { note })
            .collect(),
    })
}

/// fio prints an undefined float with printf's `%f`: `nan` or `-nan` (0/0 on
/// x86, e.g. `usr_cpu` of a job that ran for 0 ms), `inf` or `-inf`, bare,
/// which no JSON reader accepts. Outside strings they become `null`, read as
/// the field being absent.
fn null_for_nan(text: &str) -> String {
    const TOKENS: [&str; 4] = ["-nan", "nan", "-inf", "inf"];
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped, mut i) = (false, false, 0);
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if !bytes
            .get(i.wrapping_sub(1))
            .is_some_and(u8::is_ascii_alphanumeric)
            && let Some(t) = TOKENS.iter().find(|t| {
                bytes[i..].len() >= t.len()
                    && bytes[i..i + t.len()].eq_ignore_ascii_case(t.as_bytes())
                    && !bytes.get(i + t.len()).is_some_and(u8::is_ascii_alphanumeric)
            })
        {
            out.push_str("null");
            i += t.len();
            continue;
        }
        // Only ASCII is matched, so whole UTF-8 sequences are copied byte by byte.
        let end = (i + 1..=bytes.len())
            .find(|&e| text.is_char_boundary(e))
            .unwrap_or(bytes.len());
        out.push_str(&text[i..end]);
        i = end;
    }
    out
}

/// The `i`th entry of fio's `jobs` array, its options over the global ones.
fn entry(
    i: usize,
    j: &Value,
    global: &BTreeMap<String, String>,
    source: &str,
) -> Result<Entry, FioImportError> {
    let not_fio = |why: String| FioImportError::NotFio {
        path: source.to_string(),
        why,
    };
    let obj = j
        .as_object()
        .ok_or_else(|| not_fio(format!("jobs[{i}] is not an object")))?;
    let name = obj
        .get("jobname")
        .and_then(Value::as_str)
        .ok_or_else(|| not_fio(format!("jobs[{i}] has no \"jobname\"")))?;
    let mut opts = global.clone();
    opts.extend(options(obj.get("job options")));
    let dir = |key: &str| -> Result<Option<DirectionResult>, FioImportError> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => direction(v).map_err(|why| not_fio(format!("jobs[{i}].{key}.{why}"))),
        }
    };
    let (read, write) = (dir("read")?, dir("write")?);
    let cpu = |key: &str| -> Result<f64, FioImportError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(0.0),
            Some(v) => measured(v, key).map_err(|why| not_fio(format!("jobs[{i}].{why}"))),
        }
    };
    Ok(Entry {
        index: i,
        name: name.to_string(),
        group: obj.get("groupid").and_then(Value::as_i64).unwrap_or(0),
        opts,
        read,
        write,
        runtime_ms: obj.get("job_runtime").and_then(Value::as_u64),
        usr_pct: cpu("usr_cpu")?,
        sys_pct: cpu("sys_cpu")?,
        error: obj.get("error").and_then(Value::as_i64).unwrap_or(0),
        hostname: obj.get("hostname").and_then(Value::as_str).map(str::to_string),
        clat_percentiles: percentiles_source(obj),
        clones: 1,
    })
}

/// One entry of fio's `jobs` array.
struct Entry {
    /// Where it is in `jobs`, for errors.
    index: usize,
    name: String,
    group: i64,
    opts: BTreeMap<String, String>,
    read: Option<DirectionResult>,
    write: Option<DirectionResult>,
    runtime_ms: Option<u64>,
    usr_pct: f64,
    sys_pct: f64,
    error: i64,
    hostname: Option<String>,
    clat_percentiles: bool,
    /// numjobs clones merged into this entry.
    clones: u32,
}

fn options(v: Option<&Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(Value::Object(m)) = v {
        for (k, v) in m {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(k.clone(), text);
        }
    }
    out
}

fn percentiles_source(job: &Map<String, Value>) -> bool {
    ["read", "write"].iter().any(|d| {
        job.get(*d).is_some_and(|d| {
            d["total_ios"].as_u64().unwrap_or(0) > 0 && d["lat_ns"].get("percentile").is_none()
        })
    })
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("no \"{key}\""))
}

/// A count, rate or latency: a finite number, never negative. Errors start
/// with the key, so that the caller can prefix the path to it.
fn measured(v: &Value, key: &str) -> Result<f64, String> {
    let x = v.as_f64().ok_or_else(|| match v {
        Value::Null => format!("{key}: no number (fio wrote nan, null or inf)"),
        _ => format!("{key}: {v} is not a number"),
    })?;
    if !x.is_finite() || x < 0.0 {
        return Err(format!(
            "{key}: {x} is not a measurement (counts, rates, shares and latencies are finite and never negative)"
        ));
    }
    Ok(x)
}

fn number(v: &Value, key: &str) -> Result<f64, String> {
    measured(field(v, key).map_err(|_| format!("{key}: missing"))?, key)
}

/// A count (operations, bytes, nanoseconds) as an integer. Beyond what the
/// database stores (SQLite's 64-bit signed integer) it cannot be a
/// measurement; `as u64` would clamp it without a word.
fn count(v: &Value, key: &str) -> Result<u64, String> {
    let x = number(v, key)?;
    if x >= i64::MAX as f64 {
        return Err(format!(
            "{key}: {x} is larger than any count kura can store ({}): not a measurement",
            i64::MAX
        ));
    }
    Ok(x as u64)
}

/// A direction with no operations is `None`: fio writes zeros for directions a job does not do.
fn direction(v: &Value) -> Result<Option<DirectionResult>, String> {
    let ops = count(v, "total_ios")?;
    if ops == 0 {
        return Ok(None);
    }
    let lat =
        field(v, "lat_ns").map_err(|_| "lat_ns: missing (fio before 3.0 is not supported)".to_string())?;
    let (pct_name, pct_source) = if lat.get("percentile").is_some() {
        ("lat_ns", lat)
    } else {
        (
            "clat_ns",
            field(v, "clat_ns").map_err(|_| "clat_ns: missing".to_string())?,
        )
    };
    let mut percentiles = BTreeMap::new();
    if let Some(Value::Object(m)) = pct_source.get("percentile") {
        for (k, p) in m {
            let at = format!("{pct_name}.percentile.{k}");
            if !k.parse::<f64>().is_ok_and(|q| (0.0..=100.0).contains(&q)) {
                return Err(format!("{at}: not a percentile from 0 to 100"));
            }
            let p = measured(p, &at)?;
            if p >= i64::MAX as f64 {
                return Err(format!("{at}: {p} is larger than any latency kura can store"));
            }
            percentiles.insert(k.clone(), p as u64);
        }
    }
    let lat_number = |key: &str| number(lat, key).map_err(|e| format!("lat_ns.{e}"));
    Ok(Some(DirectionResult {
        ops,
        bytes: count(v, "io_bytes")?,
        errors: 0,
        error_samples: Vec::new(),
        iops: number(v, "iops")?,
        bytes_per_sec: number(v, "bw_bytes")?,
        lat_ns: LatencySummary {
            min: count(lat, "min").map_err(|e| format!("lat_ns.{e}"))?,
            mean: lat_number("mean")?,
            // fio's own word for a deviation it cannot compute (one sample) is 0.
            stddev: match lat.get("stddev") {
                Some(Value::Null) => 0.0,
                _ => lat_number("stddev")?,
            },
            max: count(lat, "max").map_err(|e| format!("lat_ns.{e}"))?,
            percentiles,
        },
        histogram: String::new(),
    }))
}

/// Without `group_reporting`, fio writes one entry per numjobs clone; they ran
/// at once, so they are one kura job with that many threads, not repetitions.
fn merge_clones(entries: Vec<Entry>, warnings: &mut Vec<String>) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut lost_percentiles = false;
    for e in entries {
        if let Some(last) = out.last_mut()
            && last.name == e.name
            && last.group == e.group
            && last.opts == e.opts
            && e.opt(Opt::Threads)
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(1)
                > last.clones
        {
            last.read = merge_dir(last.read.take(), e.read);
            last.write = merge_dir(last.write.take(), e.write);
            last.runtime_ms = last.runtime_ms.max(e.runtime_ms);
            // CPU shares are of each clone's own runtime: add them.
            last.usr_pct += e.usr_pct;
            last.sys_pct += e.sys_pct;
            last.error = if last.error != 0 { last.error } else { e.error };
            last.clones += 1;
            lost_percentiles = true;
            continue;
        }
        out.push(e);
    }
    if lost_percentiles {
        warnings.push(
            "fio wrote one entry per numjobs clone: they are added up per job, and percentiles cannot be added, so they are left out; run fio with --group_reporting to keep them"
                .into(),
        );
    }
    out
}

fn merge_dir(a: Option<DirectionResult>, b: Option<DirectionResult>) -> Option<DirectionResult> {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => return a.or(b),
    };
    let n = (a.ops + b.ops) as f64;
    let mean = (a.lat_ns.mean * a.ops as f64 + b.lat_ns.mean * b.ops as f64) / n;
    // Pooled standard deviation of the union of both clones' samples.
    let var = (a.ops as f64 * (a.lat_ns.stddev.powi(2) + (a.lat_ns.mean - mean).powi(2))
        + b.ops as f64 * (b.lat_ns.stddev.powi(2) + (b.lat_ns.mean - mean).powi(2)))
        / n;
    Some(DirectionResult {
        ops: a.ops + b.ops,
        bytes: a.bytes + b.bytes,
        errors: a.errors + b.errors,
        error_samples: Vec::new(),
        iops: a.iops + b.iops,
        bytes_per_sec: a.bytes_per_sec + b.bytes_per_sec,
        lat_ns: LatencySummary {
            min: a.lat_ns.min.min(b.lat_ns.min),
            mean,
            stddev: var.sqrt(),
            max: a.lat_ns.max.max(b.lat_ns.max),
            percentiles: BTreeMap::new(),
        },
        histogram: String::new(),
    })
}

/// A size as fio reads it with its default kb_base=1024: `4k` and `4kb` are
/// 4096, `4kib` is 4000 (fio's compatibility rule), a bare number is bytes;
/// the job-file reader's parser, so both read fio's sizes alike.
pub fn fio_size(text: &str, kb_base_1000: bool) -> Option<u64> {
    crate::jobs::fio_file::fio_number(text, if kb_base_1000 { 1000 } else { 1024 }).ok()
}

impl Entry {
    /// The value fio gave the option under any of its fio names (the option table's).
    fn opt(&self, opt: Opt) -> Option<&str> {
        opt.def()
            .fio
            .iter()
            .find_map(|name| self.opts.get(*name))
            .map(String::as_str)
    }

    /// One of fio's options that kura has no option for.
    fn fio_only(&self, name: &str) -> Option<&str> {
        self.opts.get(name).map(String::as_str)
    }

    fn unsupported(&self, source: &str, why: String) -> FioImportError {
        FioImportError::Unsupported {
            path: source.to_string(),
            job: self.name.clone(),
            why,
        }
    }

    /// A share that is there must be one: clamping 150 to 100 would store a guess.
    fn share(&self, name: &str, source: &str) -> Result<Option<u8>, FioImportError> {
        match self.fio_only(name) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<u8>() {
                Ok(p) if p <= 100 => Ok(Some(p)),
                _ => Err(FioImportError::NotFio {
                    path: source.to_string(),
                    why: format!(
                        "jobs[{}] option {name}={v}: not a share from 0 to 100",
                        self.index
                    ),
                }),
            },
        }
    }

    /// A whole number fio gave the option, by its fio names.
    fn whole(&self, opt: Opt) -> Option<u64> {
        self.opt(opt).and_then(|v| v.trim().parse::<u64>().ok())
    }

    /// fio's switches: 1, true, on or yes.
    fn flag(&self, name: &str) -> Option<bool> {
        self.fio_only(name)
            .map(|v| matches!(v.trim(), "1" | "true" | "on" | "yes"))
    }
}

/// Sets an option through the table's bounds; a value kura cannot hold is
/// left at kura's default, with a warning that says so.
fn set(job: &mut Job, opt: Opt, value: JobValue, warnings: &mut Vec<String>) {
    let fio_value = value.to_string();
    if let Err(e) = job.apply(opt, value) {
        warnings.push(format!(
            "fio job '{}': {}={fio_value}: {e}; stored as kura's default",
            job.name,
            opt.fio_name()
        ));
    }
}

/// fio's `rw` and block sizes.
fn shape(e: &Entry, source: &str, job: &mut Job, warnings: &mut Vec<String>) -> Result<(), FioImportError> {
    let kb1000 = e.fio_only("kb_base") == Some("1000");
    let size = |v: &str| fio_size(v, kb1000);
    let rw_text = e.opt(Opt::Rw).unwrap_or("read");
    // `randread:8` and similar add an offset modifier; the pattern is before the colon.
    let rw_name = rw_text.split(':').next().unwrap_or("").trim();
    let rw = match Opt::Rw.def().parse(rw_name) {
        Ok(JobValue::Rw(rw)) => rw,
        _ => return Err(e.unsupported(source, format!("rw={rw_text} has no kura equivalent"))),
    };
    if rw.trims() {
        return Err(e.unsupported(
            source,
            format!("rw={rw_text}: kura does not import fio's trim results"),
        ));
    }
    set(job, Opt::Rw, JobValue::Rw(rw), warnings);
    if let Some(split) = e.fio_only("bssplit") {
        let first = split.split(',').next().unwrap_or("");
        let mut bs = Vec::new();
        for part in first.split(':') {
            let (b, w) = part.split_once('/').unwrap_or((part, "100"));
            let bytes =
                size(b).ok_or_else(|| e.unsupported(source, format!("bssplit={split} is not understood")))?;
            let weight = w.trim().parse().unwrap_or(0);
            bs.push(BlockSize { bytes, weight });
        }
        job.bs = bs;
    } else if let Some(bs_text) = e.opt(Opt::Bs) {
        let parts: Vec<&str> = bs_text.split(',').collect();
        let bytes =
            size(parts[0]).ok_or_else(|| e.unsupported(source, format!("bs={bs_text} is not understood")))?;
        if parts.len() > 1 && parts[1..].iter().any(|p| !p.is_empty() && size(p) != Some(bytes)) {
            warnings.push(format!(
                "fio job '{}': bs={bs_text} differs per direction; stored as {bytes} bytes",
                e.name
            ));
        }
        job.bs = vec![BlockSize { bytes, weight: 100 }];
    }
    Ok(())
}

/// A fio entry's options as a kura job, read by fio's names in the option table.
fn fio_job(e: &Entry, source: &str, warnings: &mut Vec<String>) -> Result<Job, FioImportError> {
    let mut job = Job::default();
    set(&mut job, Opt::Name, JobValue::Text(e.name.clone()), warnings);
    shape(e, source, &mut job, warnings)?;
    let kb1000 = e.fio_only("kb_base") == Some("1000");
    let size = |opt: Opt| e.opt(opt).and_then(|v| fio_size(v, kb1000));
    let read_pct = match (
        e.share(Opt::ReadPct.fio_name(), source)?,
        e.share("rwmixwrite", source)?,
    ) {
        (Some(r), _) => r,
        (None, Some(w)) => 100 - w,
        (None, None) => 50,
    };
    set(&mut job, Opt::ReadPct, JobValue::Count(read_pct.into()), warnings);
    // An imported job records what fio ran, even a queue or clones beyond
    // what kura runs (MAX_QD, MAX_THREADS): compare must not take fio's
    // iodepth=8192 for kura's default, so these two skip the table's bounds.
    job.qd = e.whole(Opt::Qd).unwrap_or(1).max(1) as u32;
    job.threads = (e.whole(Opt::Threads).unwrap_or(1).max(1) as u32).max(e.clones);
    if let Some(n) = size(Opt::Size) {
        set(&mut job, Opt::Size, JobValue::Bytes(n), warnings);
    }
    if let Some(n) = size(Opt::Offset) {
        set(&mut job, Opt::Offset, JobValue::Bytes(n), warnings);
    }
    if let Some(d) = e.opt(Opt::Runtime).and_then(fio_duration) {
        set(&mut job, Opt::Runtime, JobValue::Duration(d), warnings);
    }
    let ramp = e.opt(Opt::Ramp).and_then(fio_duration).unwrap_or(Duration::ZERO);
    set(&mut job, Opt::Ramp, JobValue::Duration(ramp), warnings);
    // fio's default is buffered I/O, kura's is direct: take fio's.
    let direct =
        e.flag(Opt::Direct.fio_name()).unwrap_or(false) || e.flag(Opt::Buffered.fio_name()) == Some(false);
    set(&mut job, Opt::Direct, JobValue::Bool(direct), warnings);
    let engine = match e.opt(Opt::Engine).unwrap_or("psync") {
        "io_uring" => EngineKind::IoUring,
        "null" => EngineKind::Null,
        _ => EngineKind::Sync,
    };
    set(&mut job, Opt::Engine, JobValue::Engine(engine), warnings);
    if let Some(d) = e.opt(Opt::Distribution) {
        // fio's distribution names are kura's: read with the option's own parser.
        match Opt::Distribution.def().parse(d) {
            Ok(parsed @ JobValue::Distribution(_)) => set(&mut job, Opt::Distribution, parsed, warnings),
            _ => warnings.push(format!(
                "fio job '{}': random_distribution={d} has no kura equivalent and is stored as uniform",
                e.name
            )),
        }
    }
    // fio's 0 is no cap.
    if let Some(n) = e.whole(Opt::RateIops).filter(|n| *n > 0) {
        set(&mut job, Opt::RateIops, JobValue::Count(n), warnings);
    }
    // fio's fsync and fdatasync both: the smaller period, as the job-file reader takes it.
    let syncs = Opt::FsyncEvery
        .def()
        .fio
        .iter()
        .filter_map(|n| e.fio_only(n)?.trim().parse::<u64>().ok());
    if let Some(n) = syncs.filter(|n| *n > 0).min() {
        set(&mut job, Opt::FsyncEvery, JobValue::Count(n), warnings);
    }
    let fill = if e.flag("zero_buffers") == Some(true) {
        Fill::Zero
    } else if let Some(pct) = e.share("buffer_compress_percentage", source)? {
        Fill::Compressible { pct }
    } else {
        Fill::Random
    };
    let path = e
        .opt(Opt::Target)
        .map(|f| f.split(':').next().unwrap_or(f).to_string())
        .or_else(|| e.fio_only("directory").map(|d| format!("{d}/{}", e.name)))
        .unwrap_or_default();
    set(&mut job, Opt::Fill, JobValue::Fill(fill), warnings);
    if !path.is_empty() {
        set(
            &mut job,
            Opt::Target,
            JobValue::Path(PathBuf::from(&path)),
            warnings,
        );
    }
    Ok(job)
}

fn job_result(e: &Entry, source: &str, warnings: &mut Vec<String>) -> Result<JobResult, FioImportError> {
    let job = fio_job(e, source, warnings)?;
    let path = job
        .target
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let elapsed_ns = e.runtime_ms.unwrap_or(0).saturating_mul(1_000_000);
    let incomplete = e.error != 0;
    if incomplete {
        warnings.push(format!(
            "fio job '{}' ended with error {} ({}); its numbers cover what ran",
            e.name,
            e.error,
            std::io::Error::from_raw_os_error(e.error as i32)
        ));
    }
    Ok(JobResult {
        test: None,
        target: TargetFacts {
            kind: if path.starts_with("/dev/") {
                TargetKind::Block
            } else {
                TargetKind::File
            },
            path,
            fs_type: None,
            device: None,
            device_model: None,
            rotational: None,
            size_bytes: job.size_bytes.unwrap_or(0),
            logical_block_bytes: 0,
            created: false,
            identity: None,
        },
        engine: format!("fio/{}", e.opt(Opt::Engine).unwrap_or("psync")),
        measure_start_unix_ms: 0,
        elapsed_ns,
        ramp_ns: job.ramp.as_nanos() as u64,
        read: e.read.clone(),
        write: e.write.clone(),
        operations: Default::default(),
        syncs: 0,
        cpu_user_ns: (e.usr_pct / 100.0 * elapsed_ns as f64) as u64,
        cpu_system_ns: (e.sys_pct / 100.0 * elapsed_ns as f64) as u64,
        series: Vec::new(),
        incomplete,
        job,
        cluster: None,
        device_io: None,
    })
}

/// fio's time values: a bare number is seconds.
fn fio_duration(text: &str) -> Option<Duration> {
    parse_duration(text).ok().filter(|d| !d.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;

    #[test]
    fn sizes_follow_fio_kb_base() {
        assert_eq!(fio_size("4k", false), Some(4096));
        assert_eq!(fio_size("4K", false), Some(4096));
        assert_eq!(fio_size("4kb", false), Some(4096));
        assert_eq!(fio_size("4kib", false), Some(4000));
        assert_eq!(fio_size("4kib", true), Some(4096));
        assert_eq!(fio_size("1M", false), Some(1 << 20));
        assert_eq!(fio_size("16m", false), Some(16 << 20));
        assert_eq!(fio_size("4096", false), Some(4096));
        assert_eq!(fio_size("50%", false), None);
        assert_eq!(fio_size("4q", false), None);
    }

    #[test]
    fn other_json_is_refused_with_the_reason() {
        for (text, why) in [
            ("not json", "not a JSON document"),
            ("[1, 2]", "not an object"),
            ("{\"jobs\": []}", "no \"fio version\""),
            ("{\"fio version\": \"fio-3.33\"}", "no \"jobs\""),
            (
                "{\"fio version\": \"fio-3.33\", \"jobs\": [{}]}",
                "no \"jobname\"",
            ),
            ("{\"fio version\": \"fio-3.33\", \"jobs\": []}", "no job did any"),
        ] {
            let err = parse(text, "x.json").unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
            assert!(err.starts_with("x.json is not a fio JSON result"), "{err}");
        }
    }

    /// fio's own `-nan` (0/0 printed by `%f`) must not refuse the whole result.
    #[test]
    fn fios_bare_nan_and_inf_are_read_as_absent_and_strings_keep_theirs() {
        let text = serde_json::json!({
            "fio version": "fio-3.33", "timestamp": 1795318972,
            "jobs": [{
                "jobname": "nan -nan inf\\\"nan", "job_runtime": 1000, "usr_cpu": 1.0, "sys_cpu": 2.0,
                "job options": { "rw": "randread", "filename": "/tmp/-nan" },
                "read": dir(700, 700.0, 1234.5),
            }]
        })
        .to_string()
        .replace("\"usr_cpu\":1.0", "\"usr_cpu\":-nan")
        .replace("\"sys_cpu\":2.0", "\"sys_cpu\":NaN")
        .replace("\"stddev\":1.5", "\"stddev\":-nan")
        .replace("\"stddev\":1.0", "\"stddev\":inf");
        assert_eq!(text.matches("nan").count(), 6, "{text}");
        let run = parse(&text, "r.json").unwrap();
        let j = &run.jobs[0];
        assert_eq!(j.job.name, "nan -nan inf\\\"nan");
        assert_eq!(j.target.path, "/tmp/-nan");
        assert_eq!(j.cpu_user_ns, 0);
        let r = j.read.as_ref().unwrap();
        assert_eq!((r.ops, r.lat_ns.mean, r.lat_ns.stddev), (700, 1234.5, 0.0));
        let bad = text.replace("\"iops\":700.0", "\"iops\":-nan");
        let err = parse(&bad, "r.json").unwrap_err().to_string();
        assert!(
            err.contains("jobs[0].read.iops: no number (fio wrote nan"),
            "{err}"
        );
    }

    fn dir(ops: u64, iops: f64, mean: f64) -> Value {
        serde_json::json!({
            "io_bytes": ops * 4096, "bw_bytes": iops * 4096.0, "iops": iops, "runtime": 1000,
            "total_ios": ops,
            "clat_ns": { "min": 1, "max": 9, "mean": 5.0, "stddev": 1.0, "N": ops,
                         "percentile": { "50.000000": 5, "99.000000": 9 } },
            "lat_ns": { "min": 2, "max": 10, "mean": mean, "stddev": 1.5, "N": ops }
        })
    }

    #[test]
    fn a_fio_job_becomes_a_kura_job() {
        let doc = serde_json::json!({
            "fio version": "fio-3.33", "timestamp": 1795318972,
            "global options": { "direct": "1", "size": "16m" },
            "jobs": [{
                "jobname": "mixed", "groupid": 0, "error": 0, "job_runtime": 1000,
                "usr_cpu": 10.0, "sys_cpu": 20.0,
                "job options": { "rw": "randrw", "rwmixread": "70", "bs": "8k", "iodepth": "16",
                                 "ioengine": "libaio", "filename": "/dev/vdb" },
                "read": dir(700, 700.0, 1234.5),
                "write": dir(300, 300.0, 2000.0),
                "trim": dir(0, 0.0, 0.0)
            }]
        });
        let run = parse(&doc.to_string(), "r.json").unwrap();
        assert_eq!(run.started_unix_s, 1795318972);
        assert_eq!(run.suite, Some(crate::jobs::suites::SuiteKind::ImportFio));
        let j = &run.jobs[0];
        assert_eq!(j.job.rw, Rw::RandRw);
        assert_eq!(j.job.read_pct, 70);
        assert_eq!(j.job.bs[0].bytes, 8192);
        assert_eq!((j.job.qd, j.job.threads), (16, 1));
        assert!(j.job.direct);
        assert_eq!(j.job.size_bytes, Some(16 << 20));
        assert_eq!(j.target.kind, TargetKind::Block);
        assert_eq!(j.engine, "fio/libaio");
        assert_eq!(j.elapsed_ns, 1_000_000_000);
        assert_eq!(j.cpu_user_ns, 100_000_000);
        let r = j.read.as_ref().unwrap();
        assert_eq!(
            (r.ops, r.iops, r.lat_ns.mean, r.lat_ns.min),
            (700, 700.0, 1234.5, 2)
        );
        assert_eq!(
            r.lat_ns.percentiles["99.000000"], 9,
            "clat percentiles when lat has none"
        );
        assert!(r.histogram.is_empty());
        assert!(run.warnings.iter().any(|w| w.to_string().contains("clat_ns")));
    }

    #[test]
    fn options_are_read_by_the_tables_fio_names() {
        let doc = serde_json::json!({
            "fio version": "fio-3.33", "timestamp": 1795318972,
            "jobs": [{
                "jobname": "w", "job options": { "readwrite": "write", "blocksize": "16k",
                    "fsync": "8", "fdatasync": "4", "rate_iops": "0", "timeout": "5" },
                "write": dir(10, 10.0, 1.0)
            }]
        });
        let run = parse(&doc.to_string(), "r.json").unwrap();
        let j = &run.jobs[0].job;
        assert_eq!((j.rw, j.bs[0].bytes), (Rw::Write, 16384));
        // fio's fsync and fdatasync both given: the shorter period, as the job-file reader takes it.
        assert_eq!((Opt::FsyncEvery.def().get)(j), Some(JobValue::Count(4)));
        assert_eq!(j.rate_iops, None, "fio's rate_iops=0 is no cap");
        assert_eq!(j.runtime, Some(Duration::from_secs(5)));
    }

    #[test]
    fn numjobs_clones_become_threads_of_one_job() {
        let entry = |mean: f64| {
            serde_json::json!({
                "jobname": "r", "groupid": 0, "error": 0, "job_runtime": 1000,
                "job options": { "rw": "randread", "numjobs": "2" },
                "read": dir(100, 100.0, mean), "write": dir(0, 0.0, 0.0)
            })
        };
        let doc = serde_json::json!({ "fio version": "fio-3.33", "jobs": [entry(100.0), entry(300.0)] });
        let run = parse(&doc.to_string(), "r.json").unwrap();
        assert_eq!(run.jobs.len(), 1);
        let j = &run.jobs[0];
        assert_eq!(j.job.threads, 2);
        assert!(!j.job.direct, "fio's default is buffered");
        let r = j.read.as_ref().unwrap();
        assert_eq!((r.ops, r.iops, r.lat_ns.mean), (200, 200.0, 200.0));
        // Pooled: each clone sd 1.5 around means 100 and 300.
        assert!((r.lat_ns.stddev - (1.5f64.powi(2) + 100.0f64.powi(2)).sqrt()).abs() < 1e-9);
        assert!(r.lat_ns.percentiles.is_empty());
        assert!(j.write.is_none());
    }

    #[test]
    fn impossible_numbers_are_refused_naming_their_path() {
        let doc = |edit: &dyn Fn(&mut Value)| {
            let mut d = serde_json::json!({ "fio version": "fio-3.33", "jobs": [{
                "jobname": "m", "usr_cpu": 1.0, "job options": { "rw": "randrw", "rwmixread": "70" },
                "read": dir(5, 5.0, 1.0), "write": dir(5, 5.0, 1.0) }] });
            edit(&mut d);
            parse(&d.to_string(), "m.json")
        };
        assert!(doc(&|_| {}).is_ok());
        type Edit<'a> = &'a dyn Fn(&mut Value);
        let cases: [(Edit, &str); 11] = [
            (
                &|d| d["jobs"][0]["read"]["iops"] = (-5.0).into(),
                "jobs[0].read.iops: -5 is not a measurement",
            ),
            (
                &|d| d["jobs"][0]["write"]["lat_ns"]["mean"] = (-1.0).into(),
                "jobs[0].write.lat_ns.mean: -1",
            ),
            (
                &|d| d["jobs"][0]["read"]["total_ios"] = (-3).into(),
                "jobs[0].read.total_ios: -3",
            ),
            (
                &|d| d["jobs"][0]["read"]["bw_bytes"] = "fast".into(),
                "jobs[0].read.bw_bytes: \"fast\" is not a number",
            ),
            (
                &|d| d["jobs"][0]["usr_cpu"] = (-0.5).into(),
                "jobs[0].usr_cpu: -0.5",
            ),
            (
                &|d| d["jobs"][0]["job options"]["rwmixread"] = "150".into(),
                "jobs[0] option rwmixread=150: not a share from 0 to 100",
            ),
            (
                &|d| d["jobs"][0]["read"]["clat_ns"]["percentile"]["150.0"] = 3.into(),
                "jobs[0].read.clat_ns.percentile.150.0: not a percentile",
            ),
            (
                &|d| d["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"] = (-9).into(),
                "jobs[0].read.clat_ns.percentile.99.000000: -9",
            ),
            (
                &|d| d["jobs"][0]["read"]["io_bytes"] = 2f64.powi(70).into(),
                "jobs[0].read.io_bytes: 1180591620717411300000 is larger than any count",
            ),
            (
                &|d| d["jobs"][0]["write"]["lat_ns"]["max"] = 1e30.into(),
                "jobs[0].write.lat_ns.max: 1000000000000000000000000000000 is larger",
            ),
            (
                &|d| d["timestamp"] = (-86_400).into(),
                "timestamp: -86400 is not a date",
            ),
        ];
        for (edit, path) in cases {
            let err = doc(edit).unwrap_err().to_string();
            assert!(err.contains(path), "{path}: {err}");
        }
    }

    #[test]
    fn trim_jobs_are_refused() {
        let doc = serde_json::json!({ "fio version": "fio-3.33", "jobs": [{
            "jobname": "t", "job options": { "rw": "trim" }, "read": dir(5, 5.0, 1.0) }] });
        let err = parse(&doc.to_string(), "t.json").unwrap_err().to_string();
        assert!(
            err.contains("rw=trim: kura does not import fio's trim results"),
            "{err}"
        );
    }
}
