//! vdbench's file-system workloads (`fsd=`, `fwd=`, and the `rd=` that
//! names fwds) translated into file-set jobs (`jobs::fileset`). The reader
//! (`vdbench_file`) checks the file and hands each entry's parameters here
//! by their full keyword; this module owns what they mean.
//!
//! What vdbench 5.04's documentation (vdbench.pdf, "Filesystem Workload
//! Definition", "Run Definition (RD) parameters for file system testing")
//! says, and how kura takes it:
//! - fsd: anchor, depth, width, files (per directory of the last level),
//!   size or sizes=(size,pct,...) become the set's shape.
//! - fwd: operation (read, write, create, delete, open, close, getattr,
//!   setattr, access = getattr, mkdir, rmdir), xfersize, fileio, fileselect,
//!   threads, rdpct (a read fwd with rdpct=N also writes 100-N %).
//!   vdbench gives each fwd its own threads; kura runs the rd's fwds as one
//!   job whose threads (the sum) draw each operation by the fwds' shares of
//!   the threads (or their skew=). stopafter= (transfers before a file is
//!   left for another) is not kept: kura picks a file per operation.
//! - rd: fwdrate=max (no cap) or N (operations per second for the run),
//!   elapsed (the runtime), interval (the series' period), format=yes|no
//!   (kura formats a missing set and reuses a matching one either way).

use std::time::Duration;

use super::Job;
use super::fileset::{FileOp, FileSizes};
use super::options::{Opt, Value};
use super::reading::{FormatError, Loc, PlannedJob};
use super::units::parse_size;

/// One entry's parameters, by vdbench's full keyword.
#[derive(Debug, Clone, Default)]
pub struct Params(pub Vec<(String, String, Loc)>);

impl Params {
    fn get(&self, key: &str) -> Option<(&str, &Loc)> {
        self.0
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, l)| (v.as_str(), l))
    }
}

#[derive(Debug, Clone, Default)]
pub struct FsDefs {
    fsds: Vec<(String, Params)>,
    fsd_default: Params,
    fwds: Vec<(String, Params)>,
    fwd_default: Params,
    /// rd name, its fwd patterns, its own parameters, where it starts.
    rds: Vec<(String, Vec<String>, Params, Loc)>,
}

impl FsDefs {
    pub fn fsd(&mut self, name: &str, is_default: bool, p: Params) {
        if is_default {
            self.fsd_default.0.extend(p.0);
        } else {
            let mut all = self.fsd_default.clone();
            all.0.extend(p.0);
            self.fsds.push((name.to_string(), all));
        }
    }

    pub fn fwd(&mut self, name: &str, is_default: bool, p: Params) {
        if is_default {
            self.fwd_default.0.extend(p.0);
        } else {
            let mut all = self.fwd_default.clone();
            all.0.extend(p.0);
            self.fwds.push((name.to_string(), all));
        }
    }

    pub fn rd(&mut self, name: &str, fwds: Vec<String>, p: Params, loc: Loc) {
        self.rds.push((name.to_string(), fwds, p, loc));
    }
}

fn err(loc: &Loc, message: String) -> FormatError {
    loc.error(message)
}

fn whole(v: &str, loc: &Loc, key: &str) -> Result<u64, FormatError> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.fract() == 0.0 && *n >= 0.0)
        .map(|n| n as u64)
        .ok_or_else(|| err(loc, format!("{key}={v}: expected a whole number")))
}

/// vdbench's sizes are bytes unless suffixed (k, m, g).
fn size(v: &str, loc: &Loc, key: &str) -> Result<u64, FormatError> {
    parse_size(v.trim()).map_err(|e| err(loc, format!("{key}={v}: {e}")))
}

fn fileop(name: &str) -> Option<FileOp> {
    match name.trim().to_ascii_lowercase().as_str() {
        "access" => Some(FileOp::Getattr),
        other => FileOp::parse(other),
    }
}

/// Shares that sum to 100, by largest remainder.
fn shares(weights: &[(FileOp, f64)]) -> Vec<(FileOp, u32)> {
    let total: f64 = weights.iter().map(|(_, w)| w).sum();
    let exact: Vec<f64> = weights.iter().map(|(_, w)| w * 100.0 / total.max(1e-9)).collect();
    let mut out: Vec<u32> = exact.iter().map(|x| x.floor() as u32).collect();
    let mut left = 100 - out.iter().sum::<u32>().min(100);
    let mut order: Vec<usize> = (0..exact.len()).collect();
    order.sort_by(|a, b| (exact[*b] - exact[*b].floor()).total_cmp(&(exact[*a] - exact[*a].floor())));
    for i in order {
        if left == 0 {
            break;
        }
        out[i] += 1;
        left -= 1;
    }
    // One operation named by several fwds is one share.
    let mut merged: Vec<(FileOp, u32)> = Vec::new();
    for ((op, _), pct) in weights.iter().zip(out) {
        match merged.iter_mut().find(|(o, _)| o == op) {
            Some(m) => m.1 += pct,
            None => merged.push((*op, pct)),
        }
    }
    merged.retain(|(_, p)| *p > 0);
    merged
}

/// The file-set jobs of the file's rds that name fwds, in order. Every
/// value goes through the option table (`Job::apply`), so a file set's
/// bounds (depth, width, threads...) are the table's; a value outside them
/// is refused naming the file, line and parameter.
pub fn jobs(
    defs: &FsDefs,
    wildcard: impl Fn(&str, &str) -> bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<PlannedJob>, FormatError> {
    let mut out = Vec::new();
    for (rd_name, patterns, rdp, rd_loc) in &defs.rds {
        let fwds: Vec<&(String, Params)> = defs
            .fwds
            .iter()
            .filter(|(n, _)| patterns.iter().any(|p| wildcard(p, n)))
            .collect();
        let (fsd_name, fsd) = the_fsd(defs, &fwds, &wildcard, rd_name, rd_loc)?;
        let mut job = Job::default();
        set(&mut job, Opt::Name, Value::Text(rd_name.clone()), rd_loc, "rd")?;
        shape(&mut job, fsd_name, fsd, warnings)?;
        let fwd = Fwds::read(&fwds, rd_name, rd_loc, warnings)?;
        fwd.apply(&mut job, rd_loc)?;
        run_control(&mut job, rd_name, rdp, rd_loc, warnings)?;
        out.push(PlannedJob {
            test: Some(rd_name.clone()),
            job,
            curve: None,
        });
    }
    Ok(out)
}

/// Sets one option through the table; what it refuses is an error at
/// `loc` naming vdbench's parameter.
fn set(job: &mut Job, opt: Opt, value: Value, loc: &Loc, key: &str) -> Result<(), FormatError> {
    let text = value.to_string();
    job.apply(opt, value)
        .map_err(|e| err(loc, format!("{key}={text}: {}", e.why())))
}

/// The one fsd the rd's fwds use.
fn the_fsd<'a>(
    defs: &'a FsDefs,
    fwds: &[&(String, Params)],
    wildcard: &impl Fn(&str, &str) -> bool,
    rd_name: &str,
    rd_loc: &Loc,
) -> Result<(&'a str, &'a Params), FormatError> {
    let mut fsd_names: Vec<&str> = Vec::new();
    for (_, p) in fwds {
        if let Some((v, _)) = p.get("fsd") {
            for name in v.trim_matches(|c| c == '(' || c == ')').split(',') {
                for (f, _) in defs.fsds.iter().filter(|(f, _)| wildcard(name.trim(), f)) {
                    if !fsd_names.contains(&f.as_str()) {
                        fsd_names.push(f);
                    }
                }
            }
        }
    }
    let [fsd_name] = fsd_names.as_slice() else {
        return Err(err(
            rd_loc,
            format!(
                "unsupported: rd={rd_name}: its fwds use {} fsds; kura runs the fwds of one fsd together",
                fsd_names.len()
            ),
        ));
    };
    let fsd = &defs
        .fsds
        .iter()
        .find(|(n, _)| n == fsd_name)
        .expect("found above")
        .1;
    Ok((fsd_name, fsd))
}

/// The fsd's anchor and shape: depth, width, files and sizes.
fn shape(job: &mut Job, fsd_name: &str, fsd: &Params, warnings: &mut Vec<String>) -> Result<(), FormatError> {
    if let Some((anchor, loc)) = fsd.get("anchor") {
        set(job, Opt::Target, Value::Path(anchor.trim().into()), loc, "anchor")?;
    }
    // The bounds are the table's; a set kura cannot make is refused, never
    // made smaller than the file asks (a smaller set measures another tree).
    for (key, opt) in [
        ("depth", Opt::Depth),
        ("width", Opt::Width),
        ("files", Opt::Files),
    ] {
        if let Some((v, loc)) = fsd.get(key) {
            set(job, opt, Value::Count(whole(v, loc, key)?), loc, key)?;
        }
    }
    if let Some((v, loc)) = fsd.get("sizes").or_else(|| fsd.get("size")) {
        let key = if fsd.get("sizes").is_some() {
            "sizes"
        } else {
            "size"
        };
        // vdbench's `sizes=(4k,50,...)` list is the option's own syntax.
        let sizes = FileSizes::parse(v).map_err(|e| err(loc, format!("sizes={v}: {e}")))?;
        set(job, Opt::FileSize, Value::Text(sizes.to_string()), loc, key)?;
    }
    for key in [
        "totalsize",
        "workingsetsize",
        "wss",
        "openflags",
        "shared",
        "distribution",
    ] {
        if fsd.get(key).is_some() {
            warnings.push(format!(
                "fsd={fsd_name}: {key}= is not kept: kura makes the whole set"
            ));
        }
    }
    Ok(())
}

/// What an rd's fwds say together: the operations' weights, the threads,
/// and the first fwd's transfers.
struct Fwds {
    weights: Vec<(FileOp, f64)>,
    threads: u64,
    xfersize: Option<(u64, Loc)>,
    fileio: Option<(String, Loc)>,
    fileselect: Option<(String, Loc)>,
}

impl Fwds {
    fn read(
        fwds: &[&(String, Params)],
        rd_name: &str,
        rd_loc: &Loc,
        warnings: &mut Vec<String>,
    ) -> Result<Fwds, FormatError> {
        let mut all = Fwds {
            weights: Vec::new(),
            threads: 0,
            xfersize: None,
            fileio: None,
            fileselect: None,
        };
        let mut first: Option<(Option<u64>, Option<String>, Option<String>)> = None;
        for (fwd_name, p) in fwds {
            let t = match p.get("threads") {
                Some((v, loc)) => whole(v, loc, "threads")?.max(1),
                None => 1,
            };
            all.threads += t;
            let weight = match p.get("skew") {
                Some((v, loc)) => v
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| err(loc, format!("skew={v}: expected a percentage")))?,
                None => t as f64,
            };
            all.operations(fwd_name, p, weight, rd_loc)?;
            let xfer = match p.get("xfersize").or_else(|| p.get("xfersizes")) {
                Some((v, loc)) => Some((size(v, loc, "xfersize")?, loc.clone())),
                None => None,
            };
            let fileio = p.get("fileio").map(|(v, l)| (v.to_string(), l.clone()));
            let fileselect = p.get("fileselect").map(|(v, l)| (v.to_string(), l.clone()));
            let this = (
                xfer.as_ref().map(|x| x.0),
                fileio.as_ref().map(|x| x.0.clone()),
                fileselect.as_ref().map(|x| x.0.clone()),
            );
            match &first {
                None => {
                    first = Some(this);
                    (all.xfersize, all.fileio, all.fileselect) = (xfer, fileio, fileselect);
                }
                Some(f) if *f != this => warnings.push(format!(
                    "rd={rd_name}: its fwds differ in xfersize, fileio or fileselect; kura uses fwd={}'s",
                    fwds[0].0
                )),
                Some(_) => {}
            }
            if p.get("stopafter").is_some() {
                let text =
                    format!("fwd={fwd_name}: stopafter= is not kept: kura picks a file for every operation");
                if !warnings.contains(&text) {
                    warnings.push(text);
                }
            }
        }
        Ok(all)
    }

    /// A fwd's operations, sharing its weight; a read or write fwd with
    /// rdpct=N reads N % and writes the rest.
    fn operations(
        &mut self,
        fwd_name: &str,
        p: &Params,
        weight: f64,
        rd_loc: &Loc,
    ) -> Result<(), FormatError> {
        let (op_text, op_loc) = p
            .get("operation")
            .ok_or_else(|| err(rd_loc, format!("fwd={fwd_name}: no operation= given")))?;
        let ops: Vec<&str> = op_text
            .trim_matches(|c| c == '(' || c == ')')
            .split(',')
            .map(str::trim)
            .collect();
        let each = weight / ops.len() as f64;
        for name in ops {
            let op = fileop(name).ok_or_else(|| {
                err(
                    op_loc,
                    format!("unsupported: operation={name} (kura runs read, write, create, delete, open, close, getattr, setattr, access, mkdir, rmdir)"),
                )
            })?;
            match (op, p.get("rdpct")) {
                (FileOp::Read | FileOp::Write, Some((v, loc))) => {
                    let pct: f64 = v
                        .trim()
                        .parse()
                        .ok()
                        .filter(|x| (0.0..=100.0).contains(x))
                        .ok_or_else(|| err(loc, format!("rdpct={v}: expected 0 to 100")))?;
                    self.weights.push((FileOp::Read, each * pct / 100.0));
                    self.weights.push((FileOp::Write, each * (100.0 - pct) / 100.0));
                }
                _ => self.weights.push((op, each)),
            }
        }
        Ok(())
    }

    /// The mix, threads and transfers onto the job.
    fn apply(&self, job: &mut Job, rd_loc: &Loc) -> Result<(), FormatError> {
        let mix = shares(&self.weights)
            .iter()
            .map(|(op, p)| format!("{}={p}", op.name()))
            .collect::<Vec<_>>()
            .join(",");
        set(job, Opt::Mix, Value::Text(mix), rd_loc, "operation")?;
        set(
            job,
            Opt::Threads,
            Value::Count(self.threads.max(1)),
            rd_loc,
            "threads",
        )?;
        if let Some((n, loc)) = &self.xfersize {
            set(job, Opt::Xfersize, Value::Bytes(*n), loc, "xfersize")?;
        }
        if let Some((v, loc)) = &self.fileio {
            set(job, Opt::Fileio, Value::Text(v.clone()), loc, "fileio")?;
        }
        if let Some((v, loc)) = &self.fileselect {
            set(job, Opt::Fileselect, Value::Text(v.clone()), loc, "fileselect")?;
        }
        Ok(())
    }
}

/// The rd's elapsed, interval, fwdrate and format.
fn run_control(
    job: &mut Job,
    rd_name: &str,
    rdp: &Params,
    rd_loc: &Loc,
    warnings: &mut Vec<String>,
) -> Result<(), FormatError> {
    // vdbench's default elapsed is 30 seconds.
    let (elapsed, loc) = match rdp.get("elapsed") {
        Some((v, loc)) => (whole(v, loc, "elapsed")?.max(1), loc),
        None => (30, rd_loc),
    };
    set(
        job,
        Opt::Runtime,
        Value::Duration(Duration::from_secs(elapsed)),
        loc,
        "elapsed",
    )?;
    if let Some((v, loc)) = rdp.get("interval") {
        let secs = whole(v, loc, "interval")?.max(1);
        set(
            job,
            Opt::Interval,
            Value::Duration(Duration::from_secs(secs)),
            loc,
            "interval",
        )?;
    }
    if let Some((v, loc)) = rdp.get("fwdrate") {
        let v = v.trim();
        if !v.eq_ignore_ascii_case("max") {
            let rate = whole(v, loc, "fwdrate")?;
            if rate > 0 {
                set(job, Opt::RateIops, Value::Count(rate), loc, "fwdrate")?;
            }
        }
    }
    if let Some((v, _)) = rdp.get("format")
        && !matches!(v.trim().to_ascii_lowercase().as_str(), "yes" | "no" | "y" | "n")
    {
        warnings.push(format!(
            "rd={rd_name}: format={v}: kura formats a missing set and reuses a matching one"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_100_and_merge() {
        let s = shares(&[(FileOp::Read, 8.0), (FileOp::Write, 8.0)]);
        assert_eq!(s, vec![(FileOp::Read, 50), (FileOp::Write, 50)]);
        let s = shares(&[(FileOp::Read, 1.0), (FileOp::Write, 1.0), (FileOp::Read, 1.0)]);
        assert_eq!(s.iter().map(|(_, p)| p).sum::<u32>(), 100);
        assert_eq!(s.len(), 2);
    }
}
