//! What an sd, wd and rd holds once read, and the values that need more
//! than a number: open flags, transfer sizes, seek percentages, for-loops.

use super::lex::{Param, number};
use crate::jobs::job::BlockSize;
use crate::jobs::reading::{FormatError, Loc};

/// A transfer-size range expands to at most this many sizes.
const MAX_SPLIT: usize = 64;

#[derive(Debug, Clone, Default)]
pub(super) struct OpenFlags {
    pub(super) direct: bool,
    pub(super) sync: bool,
    pub(super) fsync_at_close: bool,
}

pub(super) fn open_flags(p: &Param) -> Result<OpenFlags, FormatError> {
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
pub(super) struct Sd {
    pub(super) name: String,
    pub(super) loc: Loc,
    pub(super) lun: Option<String>,
    pub(super) size: Option<u64>,
    pub(super) threads: u32,
    pub(super) hitarea: u64,
    pub(super) offset: u64,
    pub(super) align: Option<u64>,
    pub(super) range: Option<(f64, f64)>,
    pub(super) flags: OpenFlags,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Xfer {
    One(u64),
    Dist(Vec<(u64, f64)>),
    Range(u64, u64, u64),
}

impl Xfer {
    pub(super) fn largest(&self) -> u64 {
        match self {
            Xfer::One(b) => *b,
            Xfer::Dist(d) => d.iter().map(|x| x.0).max().unwrap_or(0),
            Xfer::Range(_, max, _) => *max,
        }
    }

    pub(super) fn split(&self) -> Vec<BlockSize> {
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

pub(super) fn xfersize(p: &Param) -> Result<Xfer, FormatError> {
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
pub(super) enum Seek {
    Pct(f64),
    /// Sequential, ending at the end of the lun.
    Eof,
}

pub(super) fn seekpct(p: &Param) -> Result<Seek, FormatError> {
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
pub(super) struct Wd {
    pub(super) name: String,
    pub(super) loc: Loc,
    pub(super) sds: Vec<(String, Loc)>,
    pub(super) skew: Option<f64>,
    pub(super) xfer: Xfer,
    pub(super) xfer_loc: Option<Loc>,
    pub(super) rdpct: f64,
    pub(super) seek: Seek,
    pub(super) range: Option<(f64, f64, Loc)>,
    pub(super) rhpct: Option<(f64, Loc)>,
    pub(super) whpct: Option<(f64, Loc)>,
    pub(super) flags: Option<OpenFlags>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ForKind {
    Xfersize,
    Rdpct,
    Threads,
    Seekpct,
    Iorate,
}

#[derive(Debug, Clone)]
pub(super) struct ForLoop {
    pub(super) kind: ForKind,
    pub(super) values: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Iorate {
    Missing,
    Max,
    Curve,
    Rates(Vec<f64>),
}

#[derive(Debug, Clone)]
pub(super) struct Rd {
    pub(super) name: String,
    pub(super) loc: Loc,
    pub(super) wds: Vec<(String, Loc)>,
    pub(super) iorate: Iorate,
    pub(super) curve: Option<Vec<f64>>,
    pub(super) elapsed: u64,
    pub(super) interval: u64,
    pub(super) warmup: u64,
    pub(super) pause: u64,
    pub(super) maxdata: Option<f64>,
    pub(super) fors: Vec<ForLoop>,
    pub(super) flags: Option<OpenFlags>,
    pub(super) fwds: Vec<(String, Loc)>,
    pub(super) fwdrate: bool,
    pub(super) time_loc: Loc,
    // Latency-bounded capacity: `stopcurve=` in milliseconds.
    pub(super) stopcurve: Option<(f64, Loc)>,
}

/// `(1k-64k,d)` doubles, `(10-100,10)` steps; plain lists stay as they are.
pub(super) fn for_values(p: &Param) -> Result<Vec<f64>, FormatError> {
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
