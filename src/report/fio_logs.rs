//! fio's log files (`write_bw_log`, `write_iops_log`, `write_lat_log`)
//! from a job's interval series, in fio 3.33's windowed format (fio.1,
//! "LOG FILE FORMATS"; stat.c `__add_stat_to_log`): one line per window and
//! direction, `time (ms), value, direction (0 read, 1 write), 0, 0`; block
//! size and offset are always 0 in windowed logs, the last field is the
//! command priority (0). Values: KiB/s, IOPS, mean latency in ns (fio's
//! `lat`). The window is the job's `interval` (fio's `log_avg_msec`); a
//! window's time is its end, from the start of measurement (after ramp).

use std::path::PathBuf;

use crate::metrics::{DirectionResult, JobResult, RunResult};

/// Which of fio's logs, and the suffix fio gives its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    Bw,
    Iops,
    Lat,
    /// `write_hist_log`: report/fio_hist_log.rs.
    Hist,
}

impl LogKind {
    fn suffix(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Hist => "clat_hist",
        }
    }
}

/// The log files the run's jobs asked for: path and contents. Job N (from
/// 1, in the run's order) writes `PREFIX_KIND.N.log`, as fio numbers its jobs;
/// a job's threads are one job here (fio writes one log per clone).
pub fn logs(run: &RunResult) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (i, j) in run.jobs.iter().enumerate() {
        for (kind, prefix) in [
            (LogKind::Bw, &j.job.write_bw_log),
            (LogKind::Iops, &j.job.write_iops_log),
            (LogKind::Lat, &j.job.write_lat_log),
            (LogKind::Hist, &j.job.write_hist_log),
        ] {
            if let Some(prefix) = prefix {
                out.push((path(prefix, kind, i), log(j, kind)));
            }
        }
    }
    out
}

/// The paths `logs` may write for `jobs` run in this order, before they run:
/// job N writes `PREFIX_KIND.N.log` (a search or a skipped point may shift
/// the numbers; what is written is checked again when it is opened).
pub fn planned_paths<'a>(jobs: impl IntoIterator<Item = &'a crate::jobs::Job>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (i, j) in jobs.into_iter().enumerate() {
        for (kind, prefix) in [
            (LogKind::Bw, &j.write_bw_log),
            (LogKind::Iops, &j.write_iops_log),
            (LogKind::Lat, &j.write_lat_log),
            (LogKind::Hist, &j.write_hist_log),
        ] {
            if let Some(prefix) = prefix {
                out.push(path(prefix, kind, i));
            }
        }
    }
    out
}

fn path(prefix: &std::path::Path, kind: LogKind, i: usize) -> PathBuf {
    let mut name = prefix.as_os_str().to_os_string();
    name.push(format!("_{}.{}.log", kind.suffix(), i + 1));
    PathBuf::from(name)
}

/// One log's lines for one job.
pub fn log(j: &JobResult, kind: LogKind) -> String {
    if kind == LogKind::Hist {
        return super::fio_hist_log::hist_log(j);
    }
    let dirs: Vec<(u8, &DirectionResult)> = [(0u8, j.read.as_ref()), (1, j.write.as_ref())]
        .into_iter()
        .filter_map(|(d, r)| r.map(|r| (d, r)))
        .collect();
    let mut text = String::new();
    for p in j.series.iter().filter(|p| p.duration_ns > 0) {
        let end_ms = (p.start_ns + p.duration_ns) / 1_000_000;
        let secs = p.duration_ns as f64 / 1e9;
        for (dir, d) in &dirs {
            let (ops, lat) = if *dir == 0 {
                (p.read_ops, p.read_lat_mean_ns)
            } else {
                (p.write_ops, p.write_lat_mean_ns)
            };
            let bytes_per_op = if d.ops > 0 {
                d.bytes as f64 / d.ops as f64
            } else {
                0.0
            };
            let value = match kind {
                LogKind::Bw => (ops as f64 * bytes_per_op / secs / 1024.0) as u64,
                LogKind::Iops => (ops as f64 / secs) as u64,
                // fio logs latency only for directions with I/O in the window.
                LogKind::Lat if ops == 0 => continue,
                LogKind::Lat => lat.round() as u64,
                LogKind::Hist => unreachable!("written by hist_log"),
            };
            text.push_str(&format!("{end_ms}, {value}, {dir}, 0, 0\n"));
        }
    }
    text
}
