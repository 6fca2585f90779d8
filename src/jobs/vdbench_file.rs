//! vdbench parameter files: storage (`sd=`), workload (`wd=`) and run
//! (`rd=`) definitions with `*=default` entries, continuation lines, wildcards,
//! transfer-size distributions, `iorate=max|N|curve` and `forxxx=` loops,
//! translated into `Job`s: one per workload and storage pair, the pairs of
//! one run sharing a group so they run at the same time, as in vdbench.
//! File-system definitions (`fsd=`, `fwd=`) are checked here and run as
//! file-set jobs (`vdbench_fs`).
//!
//! vdbench's own rules are kept: a keyword may be abbreviated, a line ends at
//! its first blank, a line ending in a comma continues on the next, and the
//! lines after an entry's first belong to it until the next entry starts.

use std::path::Path;
use std::time::Duration;

use super::job::{BlockSize, Distribution, EngineKind, Fill, Job, Rw, SpecError};
use super::options::{Opt, Value};

use super::reading::{
    CurvePoint, Format, FormatError, IncludeBudget, Loc, Plan, PlannedJob, Sources, clip, join_normalized,
};

/// vdbench's curve points: percentages of the max run's rate.
pub const CURVE_POINTS: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];
/// A transfer-size range expands to at most this many sizes.
const MAX_SPLIT: usize = 64;

#[derive(Debug, Clone)]
struct Param {
    key: String,
    value: String,
    loc: Loc,
    value_loc: Loc,
}

impl Param {
    fn err(&self, why: impl std::fmt::Display) -> FormatError {
        self.value_loc
            .error(format!("{}={}: {why}", self.key, self.value))
    }

    /// The values: `(a,b,c)` or a single one.
    fn items(&self) -> Result<Vec<String>, FormatError> {
        let v = self.value.trim();
        let inner = match v.strip_prefix('(') {
            Some(rest) => rest
                .strip_suffix(')')
                .ok_or_else(|| self.err("unmatched parenthesis"))?,
            None => return Ok(vec![v.to_string()]),
        };
        let mut items = Vec::new();
        let mut depth = 0;
        let mut current = String::new();
        for c in inner.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        items.push(current);
        let items: Vec<String> = items.into_iter().map(|s| s.trim().to_string()).collect();
        if items.iter().any(|s| s.is_empty()) {
            return Err(self.err("empty value in the list"));
        }
        Ok(items)
    }

    fn single(&self) -> Result<String, FormatError> {
        let items = self.items()?;
        match items.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(self.err("expects one value")),
        }
    }

    fn number(&self) -> Result<f64, FormatError> {
        number(&self.key, &self.single()?).map_err(|w| self.err(w))
    }

    fn numbers(&self) -> Result<Vec<f64>, FormatError> {
        self.items()?
            .iter()
            .map(|i| number(&self.key, i).map_err(|w| self.err(w)))
            .collect()
    }

    fn pct(&self) -> Result<f64, FormatError> {
        let n = self.number()?;
        if !(0.0..=100.0).contains(&n) {
            return Err(self.err(format!("{n} is not a percentage 0-100")));
        }
        Ok(n)
    }

    fn whole(&self, min: f64, max: f64) -> Result<u64, FormatError> {
        let n = self.number()?;
        if n.fract() != 0.0 || n < min || n > max {
            return Err(self.err(format!("expected a whole number from {min} to {max}")));
        }
        Ok(n as u64)
    }
}

fn is_time_key(key: &str) -> bool {
    ["el", "in", "pa", "wa"].iter().any(|p| key.starts_with(p))
}

/// vdbench's numbers: decimals, `k m g t` as powers of 1024 (an optional `b`
/// after them), `h` for hours; for times `m` means minutes.
fn number(key: &str, text: &str) -> Result<f64, String> {
    let t = text.trim().to_ascii_lowercase();
    if let Ok(n) = t.parse::<f64>() {
        return if n.is_finite() {
            Ok(n)
        } else {
            Err(format!("'{text}' is not a number"))
        };
    }
    let t = if t.len() > 2 && t.ends_with('b') {
        &t[..t.len() - 1]
    } else {
        &t[..]
    };
    let mut chars = t.chars();
    let tail = chars.next_back().map(String::from).unwrap_or_default();
    let front = chars.as_str();
    let mult = match tail.as_str() {
        "k" => 1024.0,
        "m" if is_time_key(key) => 60.0,
        "m" => 1024.0 * 1024.0,
        "g" => 1024.0 * 1024.0 * 1024.0,
        "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "h" => 3600.0,
        "s" if is_time_key(key) => 1.0,
        _ => return Err(format!("'{text}' is not a number (examples: 8192, 4k, 1m, 2g)")),
    };
    front
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .map(|n| n * mult)
        .ok_or_else(|| format!("'{text}' is not a number (examples: 8192, 4k, 1m, 2g)"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    General,
    Hd,
    Sd,
    Wd,
    Rd,
    Fsd,
    Fwd,
    Rg,
}

impl Kind {
    fn of(key: &str) -> Option<Kind> {
        Some(match key {
            "hd" => Kind::Hd,
            "sd" => Kind::Sd,
            "wd" => Kind::Wd,
            "rd" => Kind::Rd,
            "fsd" => Kind::Fsd,
            "fwd" => Kind::Fwd,
            "rg" => Kind::Rg,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone)]
struct Entry {
    kind: Kind,
    name: String,
    loc: Loc,
    params: Vec<Param>,
}

/// One logical line: its text and where each byte came from.
struct Logical {
    text: String,
    at: Vec<(usize, usize)>,
}

fn lex(
    text: &str,
    file: &str,
    sources: &Sources,
    base: &Path,
    budget: &mut IncludeBudget,
    nested: bool,
) -> Result<Vec<Logical>, FormatError> {
    let mut out = Vec::new();
    let mut pending: Option<Logical> = None;
    for (i, raw) in text.lines().enumerate() {
        let lead = raw.len() - raw.trim_start().len();
        let trimmed = raw.trim();
        if trimmed.starts_with("eof") {
            break;
        }
        if trimmed.is_empty() || trimmed.starts_with(['/', '#', '*']) {
            continue;
        }
        let loc = Loc {
            file: file.to_string(),
            line: i + 1,
            column: lead + 1,
        };
        if let Some(name) = trimmed.strip_prefix("include=") {
            if nested {
                return Err(loc.error("include= inside an included file (vdbench does not allow it)"));
            }
            let name = name.split_whitespace().next().unwrap_or("");
            let path = join_normalized(base.parent().unwrap_or(Path::new("")), name);
            let key = path.display().to_string();
            budget.open(&loc)?;
            let inc = (sources.read)(&path)
                .map_err(|e| loc.error(format!("cannot read included file {key}: {e}")))?;
            budget.charge(&loc, &key, &inc)?;
            out.extend(lex(&inc, &key, sources, &path, budget, true)?);
            continue;
        }
        // vdbench ends a line at its first blank outside quotes; what follows is a comment.
        let mut kept = String::new();
        let mut at = Vec::new();
        let mut quoted = false;
        for (col, (offset, c)) in raw
            .char_indices()
            .enumerate()
            .skip_while(|(_, (_, c))| c.is_whitespace())
        {
            let _ = offset;
            if c == '"' {
                quoted = !quoted;
                continue;
            }
            if c.is_whitespace() && !quoted {
                break;
            }
            for _ in 0..c.len_utf8() {
                at.push((i + 1, col + 1));
            }
            kept.push(c);
        }
        if quoted {
            return Err(loc.error("unmatched quote"));
        }
        match &mut pending {
            Some(p) => {
                p.text.push_str(&kept);
                p.at.extend(at);
            }
            None => pending = Some(Logical { text: kept, at }),
        }
        if !pending.as_ref().is_some_and(|p| p.text.ends_with(',')) {
            out.extend(pending.take());
        }
    }
    out.extend(pending.take());
    Ok(out)
}

fn split_params(line: &Logical, file: &str) -> Result<Vec<Param>, FormatError> {
    let loc_at = |byte: usize| {
        let (line_no, column) = line
            .at
            .get(byte.min(line.at.len().saturating_sub(1)))
            .copied()
            .unwrap_or((0, 1));
        Loc {
            file: file.to_string(),
            line: line_no,
            column,
        }
    };
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = line.text.as_bytes();
    for i in 0..=bytes.len() {
        let c = bytes.get(i).copied();
        match c {
            Some(b'(') => depth += 1,
            Some(b')') => {
                depth -= 1;
                if depth < 0 {
                    return Err(loc_at(i).error("unmatched parenthesis"));
                }
            }
            Some(b',') if depth == 0 => {}
            None => {}
            _ => continue,
        }
        if c.is_some() && c != Some(b',') {
            continue;
        }
        if c.is_none() && depth > 0 {
            return Err(loc_at(start).error("unmatched parenthesis"));
        }
        let piece = &line.text[start..i];
        if !piece.is_empty() {
            let Some((key, value)) = piece.split_once('=') else {
                return Err(loc_at(start).error("expected keyword=value"));
            };
            let key = key.to_ascii_lowercase();
            if !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(
                    loc_at(start).error("expected keyword=value, where a keyword is letters, digits and _")
                );
            }
            if key.len() < 2 {
                return Err(loc_at(start).error(format!(
                    "keyword '{key}' is too short (vdbench needs at least 2 characters)"
                )));
            }
            if value.is_empty() {
                return Err(loc_at(start).error(format!("{key}= has no value")));
            }
            params.push(Param {
                key,
                value: value.to_string(),
                loc: loc_at(start),
                value_loc: loc_at(start + piece.find('=').unwrap_or(0) + 1),
            });
        }
        start = i + 1;
    }
    Ok(params)
}

/// Groups parameters into entries: an entry starts at `sd=`, `wd=`, ... and
/// takes every parameter until the next one starts, as vdbench's scanner does.
fn entries(lines: &[Logical], file: &str) -> Result<Vec<Entry>, FormatError> {
    let mut out: Vec<Entry> = Vec::new();
    for line in lines {
        for p in split_params(line, file)? {
            // `sd=` inside a wd, `wd=` inside an rd, ... name what the entry uses.
            let reference = match out.last().map(|e| e.kind) {
                Some(Kind::Wd) => p.key == "sd",
                Some(Kind::Rd) => matches!(p.key.as_str(), "wd" | "sd" | "fsd" | "fwd"),
                Some(Kind::Fwd) => p.key == "fsd",
                _ => false,
            };
            match Kind::of(&p.key).filter(|_| !reference) {
                Some(kind) => {
                    let name = p.single()?;
                    out.push(Entry {
                        kind,
                        name,
                        loc: p.loc.clone(),
                        params: Vec::new(),
                    });
                }
                None => match out.last_mut() {
                    Some(e) => e.params.push(p),
                    None => out.push(Entry {
                        kind: Kind::General,
                        name: String::new(),
                        loc: p.loc.clone(),
                        params: vec![p],
                    }),
                },
            }
        }
    }
    // General parameters must come first; merge the ones that did.
    Ok(out)
}

/// vdbench's wildcard: `*` matches any run of characters.
fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && wildcard(rest, &tail[i..]))
        }
    }
}

/// Which of `keywords` the (possibly abbreviated) key names; vdbench tries them in order.
fn which<'a>(key: &str, keywords: &[&'a str]) -> Option<&'a str> {
    keywords.iter().copied().find(|k| k.starts_with(key))
}

#[derive(Debug, Clone, Default)]
struct OpenFlags {
    direct: bool,
    sync: bool,
    fsync_at_close: bool,
}

fn open_flags(p: &Param) -> Result<OpenFlags, FormatError> {
    let mut f = OpenFlags::default();
    for item in p.items()? {
        match item.to_ascii_lowercase().as_str() {
            "o_direct" | "directio" => f.direct = true,
            "o_dsync" | "o_sync" | "o_rsync" => f.sync = true,
            "fsync" => f.fsync_at_close = true,
            "o_noatime" => {}
            other => {
                return Err(p.err(format!(
                    "unsupported open flag '{other}' (kura knows o_direct, o_dsync, o_sync, fsync)"
                )));
            }
        }
    }
    Ok(f)
}

#[derive(Debug, Clone)]
struct Sd {
    name: String,
    loc: Loc,
    lun: Option<String>,
    size: Option<u64>,
    threads: u32,
    hitarea: u64,
    offset: u64,
    align: Option<u64>,
    range: Option<(f64, f64)>,
    flags: OpenFlags,
}

#[derive(Debug, Clone, PartialEq)]
enum Xfer {
    One(u64),
    Dist(Vec<(u64, f64)>),
    Range(u64, u64, u64),
}

impl Xfer {
    fn largest(&self) -> u64 {
        match self {
            Xfer::One(b) => *b,
            Xfer::Dist(d) => d.iter().map(|x| x.0).max().unwrap_or(0),
            Xfer::Range(_, max, _) => *max,
        }
    }

    fn split(&self) -> Vec<BlockSize> {
        match self {
            Xfer::One(b) => vec![BlockSize {
                bytes: *b,
                weight: 100,
            }],
            // Weights in hundredths keep fractional percentages.
            Xfer::Dist(d) => d
                .iter()
                .filter(|x| x.1 > 0.0)
                .map(|x| BlockSize {
                    bytes: x.0,
                    weight: (x.1 * 100.0).round().max(1.0) as u32,
                })
                .collect(),
            Xfer::Range(min, max, align) => {
                let first = min.div_ceil(*align) * align;
                (0..)
                    .map(|k| first + k * align)
                    .take_while(|b| b <= max)
                    .map(|bytes| BlockSize { bytes, weight: 1 })
                    .collect()
            }
        }
    }
}

fn xfersize(p: &Param) -> Result<Xfer, FormatError> {
    let n = p.numbers()?;
    let whole = |x: f64| -> Result<u64, FormatError> {
        if x.fract() != 0.0 || x < 1.0 {
            return Err(p.err(format!("{x} is not a transfer size")));
        }
        Ok(x as u64)
    };
    match n.len() {
        1 => Ok(Xfer::One(whole(n[0])?)),
        3 => {
            let (min, max, align) = (whole(n[0])?, whole(n[1])?, whole(n[2])?);
            if min >= max {
                return Err(p.err("(min,max,align): min must be smaller than max"));
            }
            if align % 512 != 0 {
                return Err(p.err("(min,max,align): align must be a multiple of 512"));
            }
            let x = Xfer::Range(min, max, align);
            if x.split().len() > MAX_SPLIT || x.split().is_empty() {
                return Err(p.err(format!("unsupported: more than {MAX_SPLIT} sizes in the range")));
            }
            Ok(x)
        }
        k if k % 2 == 0 => {
            let mut dist = Vec::new();
            for pair in n.chunks(2) {
                let size = whole(pair[0])?;
                if size % 512 != 0 {
                    return Err(p.err(format!("transfer size {size} is not a multiple of 512")));
                }
                if !(0.0..=100.0).contains(&pair[1]) {
                    return Err(p.err(format!("{} is not a percentage", pair[1])));
                }
                dist.push((size, pair[1]));
            }
            let total: f64 = dist.iter().map(|d| d.1).sum();
            if total.round() as i64 != 100 {
                return Err(p.err(format!("the percentages add up to {total}, not 100")));
            }
            if dist.len() > MAX_SPLIT {
                return Err(p.err(format!("unsupported: more than {MAX_SPLIT} sizes")));
            }
            Ok(Xfer::Dist(dist))
        }
        _ => Err(p.err("expected a size, (size,pct,size,pct,...) or (min,max,align)")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Seek {
    Pct(f64),
    /// Sequential, ending at the end of the lun.
    Eof,
}

fn seekpct(p: &Param) -> Result<Seek, FormatError> {
    let v = p.single()?.to_ascii_lowercase();
    if !v.is_empty() && "sequential".starts_with(&v) {
        return Ok(Seek::Pct(0.0));
    }
    if v == "eof" {
        return Ok(Seek::Eof);
    }
    if !v.is_empty() && "random".starts_with(&v) {
        return Ok(Seek::Pct(100.0));
    }
    if "poisson".starts_with(&v) && !v.is_empty() {
        return Err(p.err("unsupported: poisson seeks"));
    }
    Ok(Seek::Pct(p.pct()?))
}

#[derive(Debug, Clone)]
struct Wd {
    name: String,
    loc: Loc,
    sds: Vec<(String, Loc)>,
    skew: Option<f64>,
    xfer: Xfer,
    xfer_loc: Option<Loc>,
    rdpct: f64,
    seek: Seek,
    range: Option<(f64, f64, Loc)>,
    rhpct: Option<(f64, Loc)>,
    whpct: Option<(f64, Loc)>,
    flags: Option<OpenFlags>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ForKind {
    Xfersize,
    Rdpct,
    Threads,
    Seekpct,
    Iorate,
}

#[derive(Debug, Clone)]
struct ForLoop {
    kind: ForKind,
    values: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
enum Iorate {
    Missing,
    Max,
    Curve,
    Rates(Vec<f64>),
}

#[derive(Debug, Clone)]
struct Rd {
    name: String,
    loc: Loc,
    wds: Vec<(String, Loc)>,
    iorate: Iorate,
    curve: Option<Vec<f64>>,
    elapsed: u64,
    interval: u64,
    warmup: u64,
    pause: u64,
    maxdata: Option<f64>,
    fors: Vec<ForLoop>,
    flags: Option<OpenFlags>,
    fwds: Vec<(String, Loc)>,
    fwdrate: bool,
    time_loc: Loc,
    // Latency-bounded capacity (issue 13): `stopcurve=` in milliseconds.
    stopcurve: Option<(f64, Loc)>,
}

/// `(1k-64k,d)` doubles, `(10-100,10)` steps; plain lists stay as they are.
fn for_values(p: &Param) -> Result<Vec<f64>, FormatError> {
    let items = p.items()?;
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let item = &items[i];
        match item.get(1..).and_then(|s| s.find('-')).map(|k| k + 1) {
            Some(dash) => {
                let lo = number(&p.key, &item[..dash]).map_err(|w| p.err(w))?;
                let hi = number(&p.key, &item[dash + 1..]).map_err(|w| p.err(w))?;
                let step = items
                    .get(i + 1)
                    .ok_or_else(|| p.err("a range needs an increment or 'd', e.g. (1k-64k,d)"))?;
                let double = step.eq_ignore_ascii_case("d");
                let inc = if double {
                    0.0
                } else {
                    number(&p.key, step).map_err(|w| p.err(w))?
                };
                if lo <= 0.0 && double || !double && inc <= 0.0 || hi < lo {
                    return Err(p.err("a range needs low <= high and a positive increment"));
                }
                let mut x = lo;
                while x <= hi + 1e-9 {
                    out.push(x);
                    if out.len() > 10_000 {
                        return Err(p.err("the range has more than 10000 values"));
                    }
                    x = if double { x * 2.0 } else { x + inc };
                }
                i += 2;
            }
            None => {
                out.push(number(&p.key, item).map_err(|w| p.err(w))?);
                i += 1;
            }
        }
    }
    Ok(out)
}

const SD_KEYS: &[&str] = &[
    "host",
    "lun",
    "count",
    "size",
    "threads",
    "hitarea",
    "offset",
    "align",
    "kstat",
    "instance",
    "replay",
    "journal",
    "resetlun",
    "resetbus",
    "openflags",
    "range",
    "dedup",
    "streams",
];
const WD_KEYS: &[&str] = &[
    "skew",
    "xfersize",
    "readpct",
    "rdpct",
    "writepct",
    "wrpct",
    "range",
    "hotband",
    "seekpct",
    "stride",
    "priority",
    "iorate",
    "rhpct",
    "whpct",
    "host",
    "openflags",
    "user",
    "threads",
    "streams",
];
const RD_KEYS: &[&str] = &[
    "iorate",
    "maxdata",
    "curve",
    "stopcurve",
    "elapsed",
    "interval",
    "warmup",
    "replay",
    "pause",
    "forxfersize",
    "forthreads",
    "forrdpct",
    "forseekpct",
    "foriorate",
    "forrhpct",
    "forwhpct",
    "forhitarea",
    "forcompratio",
    "foroperation",
    "fordepth",
    "forwidth",
    "forfiles",
    "forsizes",
    "fortotal",
    "forwss",
    "distribution",
    "startcmd",
    "start_cmd",
    "endcmd",
    "end_cmd",
    "fwdrate",
    "operations",
    "format",
    "openflags",
    "mount",
];
const FSD_KEYS: &[&str] = &[
    "anchor",
    "depth",
    "width",
    "files",
    "sizes",
    "size",
    "openflags",
    "shared",
    "distribution",
    "count",
    "totalsize",
    "workingsetsize",
    "wss",
    "mask",
    "journal",
    "host",
];
const FWD_KEYS: &[&str] = &[
    "fsd",
    "operation",
    "xfersizes",
    "xfersize",
    "fileio",
    "fileselect",
    "threads",
    "skew",
    "rdpct",
    "stopafter",
    "openflags",
    "host",
    "poisson",
];
const GENERAL_KEYS: &[&str] = &[
    "compratio",
    "messagescan",
    "histogram",
    "report",
    "data_errors",
    "validate",
    "dedupratio",
    "dedupunit",
    "concatenatesds",
    "debug",
    "showlba",
    "create_anchors",
    "formatsds",
    "formatxfersize",
    "journal",
    "fwd_thread_adjust",
    "loop",
    "port",
    "timeout",
];

struct Parsed {
    sds: Vec<Sd>,
    wds: Vec<Wd>,
    rds: Vec<Rd>,
    compratio: Option<f64>,
    file_system: bool,
    warnings: Vec<String>,
    // file sets (issue 13)
    fs: super::vdbench_fs::FsDefs,
}

fn unknown(p: &Param, kind: &str) -> FormatError {
    p.loc.error(format!("unknown {kind} keyword '{}'", clip(&p.key)))
}

fn unsupported(p: &Param, why: &str) -> FormatError {
    p.loc.error(format!("unsupported: {}= ({why})", p.key))
}

fn names(p: &Param) -> Result<Vec<(String, Loc)>, FormatError> {
    Ok(p.items()?.into_iter().map(|n| (n, p.value_loc.clone())).collect())
}

/// The state of reading a parameter file: what was read, and the defaults
/// (`sd=default` ...) later entries start from.
struct Interpreter {
    out: Parsed,
    sd_default: Sd,
    wd_default: Wd,
    rd_default: Rd,
    fsd_names: Vec<String>,
    fwds: Vec<(String, Vec<(String, Loc)>)>,
    // file sets (issue 13)
    fs: super::vdbench_fs::FsDefs,
}

/// An entry's parameters by full keyword, for `vdbench_fs`.
fn fs_params(e: &Entry, keys: &[&str]) -> super::vdbench_fs::Params {
    super::vdbench_fs::Params(
        e.params
            .iter()
            .map(|p| {
                let key = which(&p.key, keys).unwrap_or(p.key.as_str()).to_string();
                (key, p.value.clone(), p.value_loc.clone())
            })
            .collect(),
    )
}

impl Interpreter {
    /// General parameters: compression ratio, reports, data errors.
    fn general(&mut self, e: &Entry) -> Result<(), FormatError> {
        for p in &e.params {
            match which(&p.key, GENERAL_KEYS) {
                Some("compratio") => {
                    let r = p.number()?;
                    if r < 1.0 {
                        return Err(p.err("a compression ratio is at least 1"));
                    }
                    self.out.compratio = Some(r);
                }
                Some("messagescan") | Some("histogram") | Some("report") | Some("debug") => {}
                Some("data_errors") => self.out.warnings.push(format!(
                    "{}: data_errors: kura counts I/O errors and goes on",
                    p.loc.short()
                )),
                Some(_) => return Err(unsupported(p, "no kura equivalent")),
                None => return Err(unknown(p, "general")),
            }
        }
        Ok(())
    }

    /// Host definitions: this host only.
    fn hd(&mut self, e: &Entry) -> Result<(), FormatError> {
        for p in &e.params {
            if p.key == "system" && !matches!(p.value.as_str(), "localhost" | "127.0.0.1") {
                return Err(unsupported(p, "several hosts; kura runs on this host"));
            }
        }
        Ok(())
    }

    /// A storage definition: the lun, its size, threads and open flags.
    fn sd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut sd = self.sd_default.clone();
        sd.name = e.name.clone();
        sd.loc = e.loc.clone();
        for p in &e.params {
            match which(&p.key, SD_KEYS) {
                Some("lun") => {
                    if is_default {
                        return Err(p.loc.error("lun= is not allowed for sd=default"));
                    }
                    sd.lun = Some(p.single()?);
                }
                Some("size") => {
                    let n = p.numbers()?;
                    if n.len() != 1 || n[0] < 1.0 {
                        return Err(p.err("expected one size, e.g. size=10g"));
                    }
                    sd.size = Some(n[0] as u64);
                }
                Some("threads") => sd.threads = p.whole(1.0, 1024.0)? as u32,
                Some("hitarea") => sd.hitarea = p.whole(0.0, 1e18)?,
                Some("offset") => {
                    let o = p.whole(0.0, 1e18)?;
                    if o % 512 != 0 {
                        return Err(p.err("must be a multiple of 512 bytes"));
                    }
                    sd.offset = o;
                }
                Some("align") => {
                    let a = p.whole(512.0, 1e12)?;
                    if a % 512 != 0 {
                        return Err(p.err("must be a multiple of 512 bytes"));
                    }
                    sd.align = Some(a);
                }
                Some("openflags") => sd.flags = open_flags(p)?,
                Some("range") => {
                    let n = p.numbers()?;
                    if n.len() != 2 || n[0] < 0.0 || n[1] <= n[0] || n[1] > 100.0 {
                        return Err(p.err("expected range=(low%,high%) within 0..100"));
                    }
                    sd.range = Some((n[0], n[1]));
                }
                Some("host") => {
                    if p.items()?
                        .iter()
                        .any(|h| !matches!(h.as_str(), "localhost" | "*" | "default"))
                    {
                        return Err(unsupported(p, "several hosts; kura runs on this host"));
                    }
                }
                Some("kstat") | Some("instance") => {}
                Some(k) => {
                    return Err(unsupported(p, &format!("vdbench's {k} has no kura equivalent")));
                }
                None => return Err(unknown(p, "sd")),
            }
        }
        if is_default {
            self.sd_default = sd;
        } else {
            if sd.lun.is_none() {
                return Err(e.loc.error(format!("sd={}: no lun= given", sd.name)));
            }
            self.out.sds.push(sd);
        }
        Ok(())
    }

    /// A workload definition: its sds, transfer sizes, mix, seeks and hits.
    fn wd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut wd = self.wd_default.clone();
        wd.name = e.name.clone();
        wd.loc = e.loc.clone();
        for p in &e.params {
            if p.key == "sd" {
                wd.sds = names(p)?;
                continue;
            }
            match which(&p.key, WD_KEYS) {
                Some("skew") => wd.skew = Some(p.pct()?),
                Some("xfersize") => {
                    wd.xfer = xfersize(p)?;
                    wd.xfer_loc = Some(p.value_loc.clone());
                }
                Some("readpct") | Some("rdpct") => wd.rdpct = p.pct()?,
                Some("writepct") | Some("wrpct") => wd.rdpct = 100.0 - p.pct()?,
                Some("range") => {
                    let n = p.numbers()?;
                    if n.len() != 2 || n[0] < 0.0 || n[1] <= n[0] || n[1] > 100.0 {
                        return Err(p.err("expected range=(low%,high%) within 0..100"));
                    }
                    wd.range = Some((n[0], n[1], p.value_loc.clone()));
                }
                Some("seekpct") => wd.seek = seekpct(p)?,
                Some("rhpct") => wd.rhpct = Some((p.pct()?, p.value_loc.clone())),
                Some("whpct") => wd.whpct = Some((p.pct()?, p.value_loc.clone())),
                Some("openflags") => wd.flags = Some(open_flags(p)?),
                Some("host") => {
                    if p.items()?
                        .iter()
                        .any(|h| !matches!(h.as_str(), "localhost" | "*" | "default"))
                    {
                        return Err(unsupported(p, "several hosts; kura runs on this host"));
                    }
                }
                Some("hotband") => {
                    return Err(unsupported(
                        p,
                        "vdbench's hot-band skew has no kura equivalent; range=(low,high) limits the span",
                    ));
                }
                Some(k) => {
                    return Err(unsupported(
                        p,
                        &format!("vdbench's wd {k} has no kura equivalent"),
                    ));
                }
                None => return Err(unknown(p, "wd")),
            }
        }
        if is_default {
            self.wd_default = wd;
        } else {
            if wd.sds.is_empty() {
                return Err(e.loc.error(format!("wd={}: no sd= given", wd.name)));
            }
            self.out.wds.push(wd);
        }
        Ok(())
    }

    /// A file system definition: checked, not run.
    fn fsd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        self.out.file_system = true;
        let mut anchor = false;
        for p in &e.params {
            match which(&p.key, FSD_KEYS) {
                Some("anchor") => anchor = true,
                Some("depth") | Some("width") | Some("files") => {
                    p.whole(0.0, 1e12)?;
                }
                Some("sizes") | Some("size") | Some("totalsize") | Some("workingsetsize") | Some("wss") => {
                    p.numbers()?;
                }
                Some("openflags") => {
                    open_flags(p)?;
                }
                Some(_) => {}
                None => return Err(unknown(p, "fsd")),
            }
        }
        if !is_default {
            if !anchor {
                return Err(e.loc.error(format!("fsd={}: no anchor= given", e.name)));
            }
            self.fsd_names.push(e.name.clone());
        }
        self.fs.fsd(&e.name, is_default, fs_params(e, FSD_KEYS));
        Ok(())
    }

    /// A file system workload: checked, not run.
    fn fwd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        self.out.file_system = true;
        let mut refs = Vec::new();
        for p in &e.params {
            match which(&p.key, FWD_KEYS) {
                Some("fsd") => refs = names(p)?,
                Some("xfersizes") | Some("xfersize") => {
                    p.numbers()?;
                }
                Some("threads") | Some("stopafter") => {
                    p.whole(0.0, 1e12)?;
                }
                Some("rdpct") | Some("skew") => {
                    p.pct()?;
                }
                Some("operation") => {
                    let ops = [
                        "read", "write", "create", "delete", "open", "close", "getattr", "setattr", "access",
                        "mkdir", "rmdir", "copy", "move",
                    ];
                    for op in p.items()? {
                        if !ops.contains(&op.to_ascii_lowercase().as_str()) {
                            return Err(p.err(format!("unknown operation '{op}'")));
                        }
                    }
                }
                Some("fileio") => {
                    let v = p.items()?.first().cloned().unwrap_or_default();
                    if !["random", "sequential"]
                        .iter()
                        .any(|k| k.starts_with(&v.to_ascii_lowercase()))
                    {
                        return Err(p.err("expected random or sequential"));
                    }
                }
                Some("openflags") => {
                    open_flags(p)?;
                }
                Some(_) => {}
                None => return Err(unknown(p, "fwd")),
            }
        }
        if !is_default {
            self.fwds.push((e.name.clone(), refs));
        }
        self.fs.fwd(&e.name, is_default, fs_params(e, FWD_KEYS));
        Ok(())
    }

    /// A run definition: its workloads, rate, times and for-loops.
    fn rd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut rd = self.rd_default.clone();
        rd.name = e.name.clone();
        rd.loc = e.loc.clone();
        rd.time_loc = e.loc.clone();
        let mut pending_rates = None;
        for p in &e.params {
            if p.key == "wd" {
                rd.wds = names(p)?;
                continue;
            }
            if p.key == "fwd" {
                rd.fwds = names(p)?;
                continue;
            }
            if p.key == "sd" || p.key == "fsd" {
                return Err(unsupported(p, "rd-level sd=/fsd= selection"));
            }
            let key = if p.key.starts_with("maxdata") {
                "maxdata"
            } else {
                p.key.as_str()
            };
            self.rd_param(&mut rd, p, key, &mut pending_rates)?;
        }
        if let Some(rates) = pending_rates {
            rd.fors.retain(|f| f.kind != ForKind::Iorate);
            rd.fors.push(ForLoop {
                kind: ForKind::Iorate,
                values: rates,
            });
        }
        check_times(&rd)?;
        if !is_default && !rd.fwds.is_empty() {
            let patterns = rd.fwds.iter().map(|(p, _)| p.clone()).collect();
            self.fs
                .rd(&rd.name, patterns, fs_params(e, RD_KEYS), rd.loc.clone());
        }
        if is_default {
            self.rd_default = rd;
        } else {
            self.out.rds.push(rd);
        }
        Ok(())
    }

    /// One of an rd's parameters onto `rd`; a list of rates waits in
    /// `pending_rates` to become the iorate loop.
    fn rd_param(
        &mut self,
        rd: &mut Rd,
        p: &Param,
        key: &str,
        pending_rates: &mut Option<Vec<f64>>,
    ) -> Result<(), FormatError> {
        match which(key, RD_KEYS) {
            Some("iorate") => {
                let items = p.items()?;
                rd.iorate = match items.as_slice() {
                    [one] if one.eq_ignore_ascii_case("max") => Iorate::Max,
                    [one] if one.eq_ignore_ascii_case("curve") => Iorate::Curve,
                    _ => {
                        let rates = p.numbers()?;
                        if rates.iter().any(|r| *r <= 0.0) {
                            return Err(p.err("a rate must be more than 0"));
                        }
                        if rates.len() > 1 {
                            *pending_rates = Some(rates.clone());
                        }
                        Iorate::Rates(rates)
                    }
                };
            }
            Some("curve") => {
                let points = p.numbers()?;
                if points.iter().any(|x| *x <= 0.0 || *x > 100.0) {
                    return Err(p.err("curve points are percentages above 0, at most 100"));
                }
                rd.curve = Some(points);
            }
            Some("elapsed") => {
                rd.elapsed = p.whole(1.0, 366.0 * 86400.0)?;
                rd.time_loc = p.loc.clone();
            }
            Some("interval") => rd.interval = p.whole(1.0, 86400.0)?,
            Some("warmup") => rd.warmup = p.whole(0.0, 366.0 * 86400.0)?,
            Some("pause") => rd.pause = p.whole(0.0, 86400.0)?,
            Some("maxdata") => {
                if p.key != "maxdata" {
                    return Err(unsupported(p, "separate read and write limits"));
                }
                let m = p.number()?;
                if m <= 0.0 {
                    return Err(p.err("must be more than 0"));
                }
                rd.maxdata = Some(m);
            }
            Some("forxfersize") | Some("forthreads") | Some("forrdpct") | Some("forseekpct")
            | Some("foriorate") => {
                let f = for_loop(key, p)?;
                rd.fors.retain(|old| old.kind != f.kind);
                rd.fors.push(f);
            }
            Some("distribution") => {
                let v = p.single()?.to_ascii_lowercase();
                if !["exponential", "uniform", "deterministic"]
                    .iter()
                    .any(|k| k.starts_with(&v))
                {
                    return Err(p.err("expected exponential, uniform or deterministic"));
                }
                if !"deterministic".starts_with(&v) {
                    self.out.warnings.push(format!(
                        "{}: distribution={v}: kura spaces rate-limited I/Os evenly (vdbench's deterministic)",
                        p.loc.short()
                    ));
                }
            }
            Some("openflags") => rd.flags = Some(open_flags(p)?),
            Some("stopcurve") => {
                let ms = p.number()?;
                if ms <= 0.0 {
                    return Err(p.err("a response time in milliseconds, more than 0"));
                }
                rd.stopcurve = Some((ms, p.loc.clone()));
            }
            Some("fwdrate") => rd.fwdrate = true,
            Some("format") | Some("operations") | Some("foroperation") | Some("fordepth")
            | Some("forwidth") | Some("forfiles") | Some("forsizes") | Some("fortotal") | Some("forwss") => {
                if rd.fwds.is_empty() && !self.out.file_system {
                    return Err(unsupported(p, "only for file-system workloads"));
                }
            }
            Some(k) => {
                return Err(unsupported(
                    p,
                    &format!("vdbench's rd {k} has no kura equivalent"),
                ));
            }
            None => return Err(unknown(p, "rd")),
        }
        Ok(())
    }

    /// References resolve after every entry is read.
    fn resolve(self, entries: &[Entry]) -> Result<Parsed, FormatError> {
        let Interpreter {
            mut out,
            fsd_names,
            fwds,
            fs,
            ..
        } = self;
        out.fs = fs;
        for wd in &out.wds {
            for (pattern, loc) in &wd.sds {
                if !out.sds.iter().any(|s| wildcard(pattern, &s.name)) {
                    return Err(loc.error(format!("wd={}: sd={pattern} matches no sd", wd.name)));
                }
            }
        }
        for (name, refs) in &fwds {
            for (pattern, loc) in refs {
                if !fsd_names.iter().any(|f| wildcard(pattern, f)) {
                    return Err(loc.error(format!("fwd={name}: fsd={pattern} matches no fsd")));
                }
            }
        }
        for rd in &out.rds {
            for (pattern, loc) in &rd.wds {
                if !out.wds.iter().any(|w| wildcard(pattern, &w.name)) {
                    return Err(loc.error(format!("rd={}: wd={pattern} matches no wd", rd.name)));
                }
            }
            for (pattern, loc) in &rd.fwds {
                if !fwds.iter().any(|f| wildcard(pattern, &f.0)) {
                    return Err(loc.error(format!("rd={}: fwd={pattern} matches no fwd", rd.name)));
                }
            }
            if !rd.wds.is_empty() && !rd.fwds.is_empty() {
                return Err(rd
                    .loc
                    .error(format!("rd={}: wd= and fwd= cannot be mixed", rd.name)));
            }
            if rd.wds.is_empty() && rd.fwds.is_empty() {
                return Err(rd.loc.error(format!("rd={}: no wd= (or fwd=) given", rd.name)));
            }
            if !rd.wds.is_empty() && rd.iorate == Iorate::Missing {
                return Err(rd
                    .loc
                    .error(format!("rd={}: no iorate= given (max, curve or a rate)", rd.name)));
            }
            if !rd.fwds.is_empty() && !rd.fwdrate {
                return Err(rd.loc.error(format!("rd={}: no fwdrate= given", rd.name)));
            }
        }
        if out.rds.is_empty() {
            return Err(FormatError {
                file: entries.first().map_or_else(String::new, |e| e.loc.file.clone()),
                line: 0,
                column: None,
                message: "no rd= (run definition): nothing to run".into(),
            });
        }
        Ok(out)
    }
}

fn interpret(entries: &[Entry]) -> Result<Parsed, FormatError> {
    let out = Parsed {
        sds: Vec::new(),
        wds: Vec::new(),
        rds: Vec::new(),
        compratio: None,
        file_system: false,
        warnings: Vec::new(),
        fs: Default::default(),
    };
    let placeholder = Loc {
        file: String::new(),
        line: 0,
        column: 0,
    };
    let sd_default = Sd {
        name: "default".into(),
        loc: placeholder.clone(),
        lun: None,
        size: None,
        threads: 8,
        hitarea: 1 << 20,
        offset: 0,
        align: None,
        range: None,
        flags: OpenFlags::default(),
    };
    let wd_default = Wd {
        name: "default".into(),
        loc: placeholder.clone(),
        sds: Vec::new(),
        skew: None,
        xfer: Xfer::One(4096),
        xfer_loc: None,
        rdpct: 100.0,
        seek: Seek::Pct(100.0),
        range: None,
        rhpct: None,
        whpct: None,
        flags: None,
    };
    let rd_default = Rd {
        name: "default".into(),
        loc: placeholder.clone(),
        wds: Vec::new(),
        iorate: Iorate::Missing,
        curve: None,
        elapsed: 30,
        interval: 1,
        warmup: 0,
        pause: 0,
        maxdata: None,
        fors: Vec::new(),
        flags: None,
        fwds: Vec::new(),
        fwdrate: false,
        time_loc: placeholder,
        stopcurve: None,
    };
    let mut it = Interpreter {
        out,
        sd_default,
        wd_default,
        rd_default,
        fsd_names: Vec::new(),
        fwds: Vec::new(),
        fs: Default::default(),
    };
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        let is_default = e.name == "default";
        if !is_default && e.kind != Kind::General && !seen.insert((e.kind as u8, e.name.clone())) {
            return Err(e.loc.error(format!("duplicate name '{}'", e.name)));
        }
        match e.kind {
            Kind::General => it.general(e)?,
            Kind::Hd => it.hd(e)?,
            Kind::Rg => return Err(e.loc.error("unsupported: rg= (replay groups)")),
            Kind::Sd => it.sd(e, is_default)?,
            Kind::Wd => it.wd(e, is_default)?,
            Kind::Fsd => it.fsd(e, is_default)?,
            Kind::Fwd => it.fwd(e, is_default)?,
            Kind::Rd => it.rd(e, is_default)?,
        }
    }
    it.resolve(entries)
}

/// The overrides of one pass through a run's for-loops.
#[derive(Debug, Clone, Default)]
struct Overrides {
    xfersize: Option<u64>,
    rdpct: Option<f64>,
    threads: Option<u32>,
    seekpct: Option<f64>,
    iorate: Option<f64>,
    label: Vec<String>,
}

fn combinations(fors: &[ForLoop]) -> Vec<Overrides> {
    let mut out = vec![Overrides::default()];
    for f in fors {
        let mut next = Vec::with_capacity(out.len() * f.values.len());
        for base in &out {
            for v in &f.values {
                let mut o = base.clone();
                let text = match f.kind {
                    ForKind::Xfersize => {
                        o.xfersize = Some(*v as u64);
                        format!("xfersize={}", super::units::format_size(*v as u64))
                    }
                    ForKind::Rdpct => {
                        o.rdpct = Some(*v);
                        format!("rdpct={v}")
                    }
                    ForKind::Threads => {
                        o.threads = Some(*v as u32);
                        format!("threads={v}")
                    }
                    ForKind::Seekpct => {
                        o.seekpct = Some(*v);
                        format!("seekpct={v}")
                    }
                    ForKind::Iorate => {
                        o.iorate = Some(*v);
                        format!("iorate={v}")
                    }
                };
                o.label.push(text);
                next.push(o);
            }
        }
        out = next;
    }
    out
}

/// The span: the sd's size and offset, narrowed by the sd's and the wd's ranges.
fn span(job: &mut Job, w: &Wd, sd: &Sd) -> Result<(), FormatError> {
    let mut offset = sd.offset;
    let mut size = sd.size;
    for (range, loc) in [
        (sd.range, &sd.loc),
        (
            w.range.as_ref().map(|r| (r.0, r.1)),
            w.range.as_ref().map_or(&w.loc, |r| &r.2),
        ),
    ] {
        let Some((lo, hi)) = range else { continue };
        let Some(s) = size else {
            return Err(loc.error(format!(
                "unsupported: range= on sd={} without size= (kura sizes the span before it opens the lun)",
                sd.name
            )));
        };
        let align = 512u64.max(sd.align.unwrap_or(512));
        let start = ((s as f64 * lo / 100.0) as u64) / align * align;
        let end = ((s as f64 * hi / 100.0) as u64) / align * align;
        offset += start;
        size = Some(end - start);
    }
    if let Some(s) = size {
        // vdbench's size is the lun's; kura's size is the span after the offset.
        let span = if sd.range.is_none() && w.range.is_none() {
            s.saturating_sub(sd.offset)
        } else {
            s
        };
        job.apply(Opt::Size, Value::Bytes(span)).map_err(at(&sd.loc))?;
    }
    job.apply(Opt::Offset, Value::Bytes(offset))
        .map_err(at(&sd.loc))?;
    Ok(())
}

/// Read and write hits go to the first `hitarea` bytes: kura's hot spot.
fn hot_spot(job: &mut Job, w: &Wd, sd: &Sd) -> Result<(), FormatError> {
    let hits = match (job.does_reads(), job.does_writes(), &w.rhpct, &w.whpct) {
        (_, _, None, None) => None,
        (true, false, Some(r), _) => Some(r.clone()),
        (false, true, _, Some(wh)) => Some(wh.clone()),
        (true, true, Some(r), Some(wh)) if (r.0 - wh.0).abs() < 1e-9 => Some(r.clone()),
        (_, _, r, wh) => {
            let loc = r.as_ref().or(wh.as_ref()).map_or(&w.loc, |x| &x.1);
            return Err(loc.error(format!(
                "unsupported: wd={}: different read and write hit percentages (kura's hot spot serves both)",
                w.name
            )));
        }
    };
    if let Some((pct, loc)) = hits
        && pct > 0.0
    {
        let Some(span) = job.size_bytes else {
            return Err(loc.error(format!(
                "unsupported: rhpct/whpct on sd={} without size= (the hit area's share of the lun must be known)",
                sd.name
            )));
        };
        let space = sd.hitarea as f64 / span as f64 * 100.0;
        if space <= 0.0 || space >= 100.0 {
            return Err(loc.error(format!(
                "wd={}: the hit area must be smaller than the span",
                w.name
            )));
        }
        let hotspot = Distribution::Hotspot {
            io_pct: pct,
            space_pct: space,
        };
        job.apply(Opt::Distribution, Value::Distribution(hotspot))
            .map_err(at(&loc))?;
        if !job.rw.is_random() {
            let random = if job.does_reads() && job.does_writes() {
                Rw::RandRw
            } else if job.does_reads() {
                Rw::RandRead
            } else {
                Rw::RandWrite
            };
            job.apply(Opt::Rw, Value::Rw(random)).map_err(at(&loc))?;
        }
    }
    Ok(())
}

struct Builder<'a> {
    parsed: &'a Parsed,
    jobs: Vec<PlannedJob>,
    warnings: Vec<String>,
    group: u32,
}

impl Builder<'_> {
    fn note(&mut self, text: String) {
        if !self.warnings.contains(&text) {
            self.warnings.push(text);
        }
    }

    /// The jobs of one run: one per (wd, sd) pair, with the total rate split by skew.
    fn run_jobs(&mut self, rd: &Rd, o: &Overrides, rate: Option<f64>) -> Result<Vec<Job>, FormatError> {
        let p = self.parsed;
        let wds: Vec<&Wd> = p
            .wds
            .iter()
            .filter(|w| rd.wds.iter().any(|(pat, _)| wildcard(pat, &w.name)))
            .collect();
        let explicit: f64 = wds.iter().filter_map(|w| w.skew).sum();
        let unskewed = wds.iter().filter(|w| w.skew.is_none()).count();
        if explicit > 100.0 + 1e-9 || (unskewed == 0 && (explicit - 100.0).abs() > 1e-6) {
            return Err(rd.loc.error(format!(
                "rd={}: the skews of its workloads add up to {explicit}, not 100",
                rd.name
            )));
        }
        if rate.is_none() && explicit > 0.0 && wds.len() > 1 {
            return Err(rd.loc.error(format!(
                "unsupported: rd={}: skew= with iorate=max (kura cannot hold a mix of uncapped workloads to shares)",
                rd.name
            )));
        }
        // SDs shared by several workloads share their threads, as vdbench's do.
        let mut users: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        for w in &wds {
            for sd in p
                .sds
                .iter()
                .filter(|s| w.sds.iter().any(|(pat, _)| wildcard(pat, &s.name)))
            {
                *users.entry(sd.name.as_str()).or_default() += 1;
            }
        }
        let mut jobs = Vec::new();
        for w in &wds {
            let share = w.skew.unwrap_or((100.0 - explicit) / unskewed.max(1) as f64) / 100.0;
            let sds: Vec<&Sd> = p
                .sds
                .iter()
                .filter(|s| w.sds.iter().any(|(pat, _)| wildcard(pat, &s.name)))
                .collect();
            for sd in &sds {
                let mut job = self.job(rd, w, sd, o, users.get(sd.name.as_str()).copied().unwrap_or(1))?;
                if let Some(r) = rate {
                    let iops = ((r * share / sds.len() as f64).round() as u64).max(1);
                    job.apply(Opt::RateIops, Value::Count(iops))
                        .map_err(at(&rd.loc))?;
                }
                jobs.push(job);
            }
        }
        if let Some(m) = rd.maxdata {
            let n = jobs.len() as f64;
            if n > 1.0 {
                self.note(format!(
                    "{}: maxdata is split evenly over the run's {n} workload and storage pairs",
                    rd.loc.short()
                ));
            }
            // vdbench's maxdata below 100 counts passes over the span; above, bytes.
            let (opt, value) = if m < 100.0 {
                (Opt::Passes, Value::Count(m.ceil().max(1.0) as u64))
            } else {
                (Opt::IoSize, Value::Bytes(((m / n) as u64).max(1)))
            };
            for job in &mut jobs {
                job.apply(opt, value.clone()).map_err(at(&rd.loc))?;
            }
        }
        Ok(jobs)
    }

    fn job(&mut self, rd: &Rd, w: &Wd, sd: &Sd, o: &Overrides, users: u32) -> Result<Job, FormatError> {
        let lun = sd.lun.clone().unwrap_or_default();
        let flags = rd.flags.as_ref().or(w.flags.as_ref()).unwrap_or(&sd.flags);
        if lun.starts_with("/dev/") && !flags.direct {
            return Err(sd.loc.error(format!(
                "sd={}: vdbench requires openflags=o_direct for a lun under /dev on Linux",
                sd.name
            )));
        }
        let xfer = match o.xfersize {
            Some(b) => Xfer::One(b),
            None => w.xfer.clone(),
        };
        let xfer_loc = w.xfer_loc.clone().unwrap_or_else(|| w.loc.clone());
        if let Some(size) = sd.size
            && xfer.largest() > size
        {
            return Err(xfer_loc.error(format!(
                "wd={}: xfersize {} is larger than sd={} ({} bytes)",
                w.name,
                xfer.largest(),
                sd.name,
                size
            )));
        }
        let rdpct = o.rdpct.unwrap_or(w.rdpct);
        let seek = o.seekpct.map(Seek::Pct).unwrap_or(w.seek);
        let random = matches!(seek, Seek::Pct(p) if p > 0.0);
        let rw = match (random, rdpct) {
            (true, r) if r >= 100.0 => Rw::RandRead,
            (true, r) if r <= 0.0 => Rw::RandWrite,
            (true, _) => Rw::RandRw,
            (false, r) if r >= 100.0 => Rw::Read,
            (false, r) if r <= 0.0 => Rw::Write,
            (false, _) => Rw::Rw,
        };
        let threads = o.threads.unwrap_or(sd.threads);
        let threads = if users > 1 {
            self.note(format!(
                "{}: sd={} serves {users} workloads; its {threads} threads are split between them",
                sd.loc.short(),
                sd.name
            ));
            (threads / users).max(1)
        } else {
            threads
        };
        let random_pct = match seek {
            Seek::Pct(p) if p > 0.0 => p.round().clamp(1.0, 100.0) as u8,
            _ => 100,
        };
        let mut job = Job::default();
        for (opt, value, loc) in [
            (Opt::Name, Value::Text(format!("{}.{}", w.name, sd.name)), &w.loc),
            (Opt::Target, Value::Path(lun.into()), &sd.loc),
            (Opt::Rw, Value::Rw(rw), &w.loc),
            (Opt::Bs, Value::BlockSizes(xfer.split()), &xfer_loc),
            (Opt::ReadPct, Value::Count(rdpct.round() as u64), &w.loc),
            (Opt::Qd, Value::Count(1), &w.loc),
            (Opt::Threads, Value::Count(threads.into()), &sd.loc),
            // vdbench's threads each do one synchronous I/O at a time.
            (Opt::Engine, Value::Engine(EngineKind::Sync), &sd.loc),
            (Opt::Direct, Value::Bool(flags.direct), &sd.loc),
            (
                Opt::Ramp,
                Value::Duration(Duration::from_secs(rd.warmup)),
                &rd.time_loc,
            ),
            (
                Opt::Runtime,
                Value::Duration(Duration::from_secs(rd.elapsed - rd.warmup)),
                &rd.time_loc,
            ),
            (
                Opt::Interval,
                Value::Duration(Duration::from_secs(rd.interval)),
                &rd.loc,
            ),
            (Opt::RandomPct, Value::Count(random_pct.into()), &w.loc),
        ] {
            job.apply(opt, value).map_err(at(loc))?;
        }
        if let Some(a) = sd.align {
            job.apply(Opt::Align, Value::Bytes(a)).map_err(at(&sd.loc))?;
        }
        if seek == Seek::Eof {
            job.apply(Opt::Passes, Value::Count(1)).map_err(at(&w.loc))?;
        }
        if flags.sync {
            job.apply(Opt::FsyncEvery, Value::Count(1)).map_err(at(&sd.loc))?;
            self.note(format!(
                "{}: o_dsync/o_sync: kura writes, then fdatasync after each write (the sync time is not in the write's latency)",
                sd.loc.short()
            ));
        }
        job.apply(Opt::EndFsync, Value::Bool(flags.fsync_at_close))
            .map_err(at(&sd.loc))?;
        if let Some(r) = self.parsed.compratio
            && r > 1.0
        {
            let pct = ((1.0 - 1.0 / r) * 100.0).round().clamp(0.0, 100.0) as u8;
            job.apply(Opt::Fill, Value::Fill(Fill::Compressible { pct }))
                .map_err(at(&sd.loc))?;
        }
        span(&mut job, w, sd)?;
        hot_spot(&mut job, w, sd)?;
        job.validate()
            .map_err(|e| w.loc.error(format!("wd={} on sd={}: {e}", w.name, sd.name)))?;
        Ok(job)
    }

    /// `iorate=curve,stopcurve=MS`: vdbench runs the `curve=` points (10, 50,
    /// 70, 80, 90, 100 % of the max run by default) and stops after the first
    /// whose mean response time is over MS milliseconds (Vdbench 5.04 users
    /// guide, `stopcurve=`). kura maps that onto its latency search on rate:
    /// the same max run as a probe, then rising rates refined near the limit.
    fn stopcurve_jobs(
        &mut self,
        rd: &Rd,
        o: &Overrides,
        ms: f64,
        loc: &Loc,
    ) -> Result<Vec<Job>, FormatError> {
        let mut jobs = self.run_jobs(rd, o, None)?;
        if jobs.len() != 1 {
            return Err(loc.error(format!(
                "unsupported: rd={}: stopcurve= with {} workloads at once: kura's latency search raises the rate of one job",
                rd.name,
                jobs.len()
            )));
        }
        let limit = std::time::Duration::from_secs_f64(ms / 1000.0);
        for job in &mut jobs {
            job.group = None;
            job.apply(
                crate::jobs::Opt::LatencyLimit,
                crate::jobs::Value::Duration(limit),
            )
            .map_err(|e| loc.error(e.to_string()))?;
        }
        self.note(format!(
            "{}: iorate=curve,stopcurve={ms}: kura searches the rate (a probe at max, rising rates, then bisection near {ms} ms mean latency) instead of running {}; every step is stored",
            loc.short(),
            if rd.curve.is_some() { "the curve= points" } else { "vdbench's points 10,50,70,80,90,100 %" }
        ));
        Ok(jobs)
    }

    fn push_run(&mut self, test: String, jobs: Vec<Job>) -> Vec<usize> {
        let together = jobs.len() > 1;
        let mut indices = Vec::new();
        for mut job in jobs {
            job.group = together.then_some(self.group);
            indices.push(self.jobs.len());
            self.jobs.push(PlannedJob {
                test: Some(test.clone()),
                job,
                curve: None,
            });
        }
        self.group += 1;
        indices
    }

    fn build(&mut self) -> Result<(), FormatError> {
        let rds = self.parsed.rds.clone();
        for rd in rds.iter().filter(|r| !r.wds.is_empty()) {
            let combos = combinations(&rd.fors);
            for o in &combos {
                let label = if o.label.is_empty() {
                    rd.name.clone()
                } else {
                    format!("{} ({})", rd.name, o.label.join(" "))
                };
                let pause = Duration::from_secs(rd.pause);
                let rate = o.iorate.or(match &rd.iorate {
                    Iorate::Rates(r) => r.first().copied(),
                    _ => None,
                });
                if rd.iorate == Iorate::Curve
                    && o.iorate.is_none()
                    && let Some((ms, loc)) = &rd.stopcurve
                {
                    let jobs = self.stopcurve_jobs(rd, o, *ms, loc)?;
                    self.push_run(label.clone(), jobs);
                } else if let Some((_, loc)) = rd.stopcurve.as_ref().filter(|_| rd.iorate != Iorate::Curve) {
                    let note = format!(
                        "{}: stopcurve= applies to iorate=curve only; ignored, as vdbench does",
                        loc.short()
                    );
                    self.note(note);
                    let jobs = self.run_jobs(rd, o, rate)?;
                    self.push_run(label, jobs);
                } else if rd.iorate == Iorate::Curve && o.iorate.is_none() {
                    let max_jobs = self.run_jobs(rd, o, None)?;
                    let max = self.push_run(format!("{label} max"), max_jobs.clone());
                    let points = rd.curve.clone().unwrap_or_else(|| CURVE_POINTS.to_vec());
                    for pct in points {
                        let indices = self.push_run(format!("{label} {pct}%"), max_jobs.clone());
                        for (k, i) in indices.into_iter().enumerate() {
                            self.jobs[i].curve = Some(CurvePoint {
                                max_jobs: max.clone(),
                                repeats: max[k],
                                pct,
                            });
                        }
                    }
                } else {
                    let jobs = self.run_jobs(rd, o, rate)?;
                    self.push_run(label, jobs);
                }
                if !pause.is_zero() {
                    let first = self.jobs.len();
                    let _ = first;
                    self.note(format!(
                        "{}: pause={}: kura goes on to the next run without pausing",
                        rd.loc.short(),
                        rd.pause
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Parses a vdbench parameter file; `path` names it in errors and anchors `include=`.
pub fn parse(text: &str, path: &Path, sources: &Sources) -> Result<Plan, FormatError> {
    let file = path.display().to_string();
    let lines = lex(text, &file, sources, path, &mut IncludeBudget::default(), false)?;
    let entries = entries(&lines, &file)?;
    if entries.is_empty() {
        return Err(FormatError {
            file,
            line: 0,
            column: None,
            message: "no parameters: a vdbench file needs sd=, wd= and rd= lines".into(),
        });
    }
    let parsed = interpret(&entries)?;
    let mut b = Builder {
        parsed: &parsed,
        jobs: Vec::new(),
        warnings: parsed.warnings.clone(),
        group: 0,
    };
    b.build()?;
    let (mut jobs, mut warnings) = (b.jobs, b.warnings);
    // file sets (issue 13): the rds that name fwds, as file-set jobs.
    jobs.extend(super::vdbench_fs::jobs(&parsed.fs, wildcard, &mut warnings)?);
    let cannot_run = None;
    Ok(Plan {
        format: Format::Vdbench,
        jobs,
        warnings,
        cannot_run,
    })
}

/// One of a run's for-loops (`forxfersize=(4k,8k)` ...), its values checked.
fn for_loop(key: &str, p: &Param) -> Result<ForLoop, FormatError> {
    let kind = match which(key, RD_KEYS) {
        Some("forxfersize") => ForKind::Xfersize,
        Some("forthreads") => ForKind::Threads,
        Some("forrdpct") => ForKind::Rdpct,
        Some("forseekpct") => ForKind::Seekpct,
        _ => ForKind::Iorate,
    };
    let values = for_values(p)?;
    let ok = match kind {
        ForKind::Rdpct | ForKind::Seekpct => values.iter().all(|v| (0.0..=100.0).contains(v)),
        ForKind::Threads => values
            .iter()
            .all(|v| v.fract() == 0.0 && (1.0..=1024.0).contains(v)),
        ForKind::Xfersize => values.iter().all(|v| v.fract() == 0.0 && *v >= 1.0),
        ForKind::Iorate => values.iter().all(|v| *v > 0.0),
    };
    if !ok {
        return Err(p.err("a value is out of range"));
    }
    Ok(ForLoop { kind, values })
}

/// vdbench's rules between a run's elapsed, interval and warmup.
fn check_times(rd: &Rd) -> Result<(), FormatError> {
    if rd.elapsed / rd.interval < 2 {
        return Err(rd.time_loc.error(format!(
            "rd={}: elapsed={} must be at least twice interval={} (vdbench's rule)",
            rd.name, rd.elapsed, rd.interval
        )));
    }
    if !rd.elapsed.is_multiple_of(rd.interval) || !rd.warmup.is_multiple_of(rd.interval) {
        return Err(rd.time_loc.error(format!(
            "rd={}: elapsed and warmup must be multiples of interval={} (vdbench's rule)",
            rd.name, rd.interval
        )));
    }
    if rd.warmup >= rd.elapsed {
        return Err(rd
            .time_loc
            .error(format!("rd={}: warmup must be shorter than elapsed", rd.name)));
    }
    Ok(())
}

/// Turns a job's refusal of a value into an error at the line that gave it.
fn at(loc: &Loc) -> impl Fn(SpecError) -> FormatError + '_ {
    move |e| loc.error(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        parse(text, Path::new("p.vdb"), &Sources::none()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn error(text: &str) -> String {
        parse(text, Path::new("p.vdb"), &Sources::none())
            .unwrap_err()
            .to_string()
    }

    const SEED_RAW: &str = "sd=sd1,lun=/dev/{device},openflags=o_direct\n\
                            wd=wd1,sd=sd*,seekpct=random,rdpct=50,xfersize=8192\n\
                            rd=rd1,wd=wd*,elapsed=300,interval=60,iorate=max\n";

    #[test]
    fn the_seed_raw_file_translates() {
        // As printed, the seed names a placeholder, which is no target.
        let err = error(SEED_RAW);
        assert!(err.contains("{device} is a placeholder"), "{err}");
        let p = plan(&SEED_RAW.replace("{device}", "sdb"));
        assert_eq!(p.jobs.len(), 1);
        let j = &p.jobs[0].job;
        assert_eq!(j.rw, Rw::RandRw);
        assert_eq!(j.read_pct, 50);
        assert_eq!(
            j.bs,
            vec![BlockSize {
                bytes: 8192,
                weight: 100
            }]
        );
        assert_eq!((j.threads, j.qd, j.engine), (8, 1, EngineKind::Sync));
        assert!(j.direct);
        assert_eq!(j.runtime, Some(Duration::from_secs(300)));
        assert_eq!(j.interval, Duration::from_secs(60));
        assert_eq!(j.rate_iops, None);
        assert_eq!(j.target.as_deref(), Some(Path::new("/dev/sdb")));
        assert_eq!(p.jobs[0].test.as_deref(), Some("rd1"));
        assert!(p.cannot_run.is_none());
    }

    #[test]
    fn defaults_continuations_distributions_and_abbreviations() {
        let p = plan(
            "* comment\nsd=default,threads=4\nsd=sd1,lun=/tmp/a,size=1g\nsd=sd2,lun=/tmp/b,size=1g,\n  threads=2   trailing comment\n\
             wd=default,xf=(4k,50,64k,50)\nwd=wd1,sd=(sd1,sd2),seek=30,rdpct=70\n\
             rd=rd1,wd=wd1,iorate=1000,el=1m,in=5,warmup=10\n",
        );
        assert_eq!(p.jobs.len(), 2);
        let a = &p.jobs[0].job;
        assert_eq!(a.threads, 4);
        assert_eq!(p.jobs[1].job.threads, 2);
        assert_eq!(a.rw, Rw::RandRw);
        assert_eq!(a.random_pct, 30);
        assert_eq!(
            a.bs.iter().map(|b| b.bytes).collect::<Vec<_>>(),
            vec![4096, 65536]
        );
        assert_eq!(a.rate_iops, Some(500));
        assert_eq!(a.runtime, Some(Duration::from_secs(50)));
        assert_eq!(a.ramp, Duration::from_secs(10));
        assert_eq!(a.group, Some(0));
        assert_eq!(a.size_bytes, Some(1 << 30));
    }

    #[test]
    fn for_loops_and_curves_make_several_runs() {
        let p = plan(
            "sd=sd1,lun=/tmp/a,size=1g\nwd=wd1,sd=sd1\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=4,interval=1,forxfersize=(4k-16k,d),forrdpct=(0,100)\n\
             rd=rd2,wd=wd1,iorate=curve,curve=(50,100),elapsed=4,interval=1\n",
        );
        let tests: Vec<_> = p.jobs.iter().map(|j| j.test.clone().unwrap()).collect();
        assert_eq!(
            tests,
            vec![
                "rd1 (xfersize=4k rdpct=0)",
                "rd1 (xfersize=4k rdpct=100)",
                "rd1 (xfersize=8k rdpct=0)",
                "rd1 (xfersize=8k rdpct=100)",
                "rd1 (xfersize=16k rdpct=0)",
                "rd1 (xfersize=16k rdpct=100)",
                "rd2 max",
                "rd2 50%",
                "rd2 100%",
            ]
        );
        assert_eq!(p.jobs[0].job.rw, Rw::RandWrite);
        assert_eq!(p.jobs[5].job.bs[0].bytes, 16384);
        let point = p.jobs[7].curve.clone().unwrap();
        assert_eq!(
            (point.max_jobs.clone(), point.repeats, point.pct),
            (vec![6], 6, 50.0)
        );
        assert_eq!(point.rate(2345.0), 1200);
        let ten = CurvePoint { pct: 10.0, ..point };
        assert_eq!(ten.rate(2345.0), 240);
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(
            error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,rdpct=150\nrd=rd1,wd=wd1,iorate=max\n"),
            "p.vdb:2:21: rdpct=150: 150 is not a percentage 0-100"
        );
        assert!(
            error("sd=sd1,lun=/tmp/a,size=4k\nwd=wd1,sd=sd1,xfersize=8k\nrd=rd1,wd=wd1,iorate=max\n")
                .contains("xfersize 8192 is larger than sd=sd1")
        );
        assert!(
            error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=disk*\nrd=rd1,wd=wd1,iorate=max\n")
                .contains("p.vdb:2:11: wd=wd1: sd=disk* matches no sd")
        );
        assert!(
            error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd9,iorate=max\n").contains("matches no wd")
        );
        assert!(error("sd=sd1,lun=/tmp/a,bogus=1\n").contains("unknown sd keyword 'bogus'"));
        assert!(error("sd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n").contains("o_direct"));
        assert!(
            error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,xfersize=(4k,50,8k,40)\nrd=rd1,wd=wd1,iorate=max\n")
                .contains("add up to 90")
        );
        assert!(error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1\n").contains("no iorate="));
        assert!(error("sd=sd1,lun=(/tmp/a\n").contains("unmatched parenthesis"));
        assert!(
            error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=5,interval=2\n")
                .contains("multiples of interval")
        );
    }

    #[test]
    fn found_by_fuzzing() {
        // A unit that is not ASCII once split a character in two.
        assert!(error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,rdpct=5m`\u{fffd}\n").contains("not a number"));
    }

    #[test]
    fn file_system_definitions_run_as_a_file_set() {
        let text = "fsd=fsd1,anchor=/bench,depth=1,width=1,files=1000,size=128k\n\
                    fwd=default,xfersize=4k,fileio=random,fileselect=random,threads=8,\n\
                    stopafter=100\n\
                    fwd=fwd1,fsd=fsd1,operation=read\n\
                    fwd=fwd2,fsd=fsd1,operation=write\n\
                    rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=300,interval=60\n";
        let p = plan(text);
        assert!(p.cannot_run.is_none());
        let [one] = p.jobs.as_slice() else {
            panic!("one job: {:?}", p.jobs)
        };
        let fs = one.job.workload.fileset().expect("a file-set job");
        assert_eq!(fs.mix.as_deref(), Some("read=50,write=50"));
        assert_eq!((fs.depth, fs.width, fs.files), (Some(1), Some(1), Some(1000)));
        assert_eq!(fs.file_size.as_deref(), Some("128k"));
        assert_eq!(fs.xfersize_bytes, Some(4096));
        assert_eq!(one.job.threads, 16);
        assert_eq!(one.job.runtime, Some(Duration::from_secs(300)));
        assert_eq!(one.job.interval, Duration::from_secs(60));
        assert_eq!(one.job.target.as_deref(), Some(Path::new("/bench")));
        assert!(p.warnings.iter().any(|w| w.contains("stopafter")));
        let weighted = text
            .replace(
                "fsd=fsd1,operation=write",
                "fsd=fsd1,operation=getattr,threads=24",
            )
            .replace("fwdrate=max", "fwdrate=500");
        let p = plan(&weighted);
        let fs = p.jobs[0].job.workload.fileset().unwrap();
        assert_eq!(fs.mix.as_deref(), Some("read=25,getattr=75"));
        assert_eq!(p.jobs[0].job.rate_iops, Some(500));
        let copy = text.replace("operation=write", "operation=copy");
        assert!(error(&copy).contains("operation=copy"), "{}", error(&copy));
        let bad = text.replace("fsd=fsd1,operation=read", "fsd=nope,operation=read");
        assert!(error(&bad).contains("fsd=nope matches no fsd"));
        // A set kura cannot make is refused where it is given, never made smaller.
        let deep = text.replace("depth=1", "depth=17");
        assert_eq!(error(&deep), "p.vdb:1:30: depth=17: must be between 0 and 16");
        let flat = text.replace("width=1", "width=0");
        assert!(error(&flat).starts_with("p.vdb:1:"), "{}", error(&flat));
        assert!(
            error(&flat).contains("width=0: must be between 1 and 100000"),
            "{}",
            error(&flat)
        );
    }
}
