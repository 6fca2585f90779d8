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
use super::fileset::{FileOp, FileSetParams, FileSizes};
use super::reading::{FormatError, Loc, PlannedJob};
use super::units::parse_size;
use super::workload::Workload;

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

/// The file-set jobs of the file's rds that name fwds, in order.
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
        let mut fsd_names: Vec<String> = Vec::new();
        for (_, p) in &fwds {
            if let Some((v, _)) = p.get("fsd") {
                for name in v.trim_matches(|c| c == '(' || c == ')').split(',') {
                    for (f, _) in defs.fsds.iter().filter(|(f, _)| wildcard(name.trim(), f)) {
                        if !fsd_names.contains(f) {
                            fsd_names.push(f.clone());
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
        let mut job = Job {
            name: rd_name.clone(),
            ..Job::default()
        };
        let mut params = FileSetParams::default();
        if let Some((anchor, _)) = fsd.get("anchor") {
            job.target = Some(anchor.trim().into());
        }
        for key in ["depth", "width", "files"] {
            if let Some((v, loc)) = fsd.get(key) {
                let n = whole(v, loc, key)?;
                match key {
                    "depth" => params.depth = Some(n.min(16) as u32),
                    "width" => params.width = Some(n.clamp(1, 100_000) as u32),
                    _ => params.files = Some(n),
                }
            }
        }
        if let Some((v, loc)) = fsd.get("sizes").or_else(|| fsd.get("size")) {
            let sizes = FileSizes::parse(v).map_err(|e| err(loc, format!("sizes={v}: {e}")))?;
            params.file_size = Some(sizes.to_string());
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
        let mut weights: Vec<(FileOp, f64)> = Vec::new();
        let mut threads = 0u64;
        let mut first: Option<(Option<u64>, Option<String>, Option<String>)> = None;
        for (fwd_name, p) in &fwds {
            let t = match p.get("threads") {
                Some((v, loc)) => whole(v, loc, "threads")?.max(1),
                None => 1,
            };
            threads += t;
            let weight = match p.get("skew") {
                Some((v, loc)) => v
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| err(loc, format!("skew={v}: expected a percentage")))?,
                None => t as f64,
            };
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
                        weights.push((FileOp::Read, each * pct / 100.0));
                        weights.push((FileOp::Write, each * (100.0 - pct) / 100.0));
                    }
                    _ => weights.push((op, each)),
                }
            }
            let xfer = match p.get("xfersize").or_else(|| p.get("xfersizes")) {
                Some((v, loc)) => Some(size(v, loc, "xfersize")?),
                None => None,
            };
            let fileio = p.get("fileio").map(|(v, _)| v.to_string());
            let fileselect = p.get("fileselect").map(|(v, _)| v.to_string());
            let this = (xfer, fileio, fileselect);
            match &first {
                None => first = Some(this),
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
        let mix = shares(&weights);
        params.mix = Some(
            mix.iter()
                .map(|(op, p)| format!("{}={p}", op.name()))
                .collect::<Vec<_>>()
                .join(","),
        );
        if let Some((xfer, fileio, fileselect)) = first {
            params.xfersize_bytes = xfer;
            if let Some(v) = fileio {
                params.fileio = Some(
                    super::fileset::FileIo::parse(&v)
                        .ok_or_else(|| err(rd_loc, format!("fileio={v}: expected random or sequential")))?,
                );
            }
            if let Some(v) = fileselect {
                params.fileselect =
                    Some(super::fileset::FileSelect::parse(&v).ok_or_else(|| {
                        err(rd_loc, format!("fileselect={v}: expected random or sequential"))
                    })?);
            }
        }
        job.threads = threads.clamp(1, u64::from(super::job::MAX_THREADS)) as u32;
        if let Some((v, loc)) = rdp.get("elapsed") {
            job.runtime = Some(Duration::from_secs(whole(v, loc, "elapsed")?.max(1)));
        } else {
            // vdbench's default elapsed.
            job.runtime = Some(Duration::from_secs(30));
        }
        if let Some((v, loc)) = rdp.get("interval") {
            job.interval = Duration::from_secs(whole(v, loc, "interval")?.max(1));
        }
        if let Some((v, loc)) = rdp.get("fwdrate") {
            let v = v.trim();
            if !v.eq_ignore_ascii_case("max") {
                let rate = whole(v, loc, "fwdrate")?;
                if rate > 0 {
                    job.rate_iops = Some(rate);
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
        job.workload = Workload::FileSet(params);
        out.push(PlannedJob {
            test: Some(rd_name.clone()),
            job,
            curve: None,
        });
    }
    Ok(out)
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
