//! Sweep tables, seed section 2's shape: one table per read/write mix, one
//! row per block size, IOPS and MiB/s (reads and writes together).

use super::format::{latency, mb_per_sec, mib_per_sec, rate};
use super::run_table::new_table;
use crate::jobs::sweep::mix_name;
use crate::jobs::units::format_size;
use crate::metrics::RunResult;
use crate::metrics::repeats::summarize_tests;

/// One row: a block size at one mix, mean of the runs.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SweepRow {
    pub test: String,
    pub bs_bytes: u64,
    pub read_pct: u8,
    /// Queue depth and threads of the row's jobs (a sweep may vary them).
    pub qd: u32,
    pub threads: u32,
    pub runs: usize,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Mean latency of reads and writes, weighted by their IOPS.
    pub lat_mean_ns: f64,
    /// Largest spread of reads or writes across runs, (max - min) / mean.
    pub spread: f64,
}

pub fn rows(run: &RunResult) -> Vec<SweepRow> {
    summarize_tests(run)
        .into_iter()
        .filter_map(|s| {
            let job = run
                .jobs
                .iter()
                .find(|j| j.test.as_deref() == Some(s.test.as_str()))?;
            let dirs: Vec<_> = [s.read.as_ref(), s.write.as_ref()]
                .into_iter()
                .flatten()
                .collect();
            let iops: f64 = dirs.iter().map(|d| d.mean_iops).sum();
            let runs = dirs.first().map(|d| d.runs).unwrap_or(0);
            // Latency of each run direction, weighted by its share of the I/Os.
            let lat = |write: bool| -> (f64, f64) {
                let ds: Vec<_> = run
                    .jobs
                    .iter()
                    .filter(|j| j.test.as_deref() == Some(s.test.as_str()))
                    .filter_map(|j| if write { j.write.as_ref() } else { j.read.as_ref() })
                    .collect();
                let ops: f64 = ds.iter().map(|d| d.ops as f64).sum();
                let weighted: f64 = ds.iter().map(|d| d.lat_ns.mean * d.ops as f64).sum();
                (weighted, ops)
            };
            let (rw, ro) = lat(false);
            let (ww, wo) = lat(true);
            Some(SweepRow {
                bs_bytes: job.job.max_bs(),
                read_pct: job.job.effective_read_pct(),
                qd: job.job.qd,
                threads: job.job.threads,
                runs,
                iops,
                bytes_per_sec: dirs.iter().map(|d| d.mean_bytes_per_sec).sum(),
                lat_mean_ns: if ro + wo > 0.0 { (rw + ww) / (ro + wo) } else { 0.0 },
                spread: dirs.iter().map(|d| d.spread).fold(0.0, f64::max),
                test: s.test,
            })
        })
        .collect()
}

pub fn render(rows: &[SweepRow]) -> String {
    let mut mixes: Vec<u8> = Vec::new();
    for r in rows {
        if !mixes.contains(&r.read_pct) {
            mixes.push(r.read_pct);
        }
    }
    let mut out = String::new();
    for mix in mixes {
        let title = match mix {
            100 => crate::t!("sweep-all-read"),
            0 => crate::t!("sweep-all-write"),
            m => crate::t!("sweep-mix", mix = mix_name(m)),
        };
        out.push_str(&format!("\n{title}\n"));
        // Queue depth and threads get a column only when the sweep varied them.
        let varies = |f: fn(&SweepRow) -> u32| rows.iter().any(|r| f(r) != f(&rows[0]));
        let (by_qd, by_threads) = (varies(|r| r.qd), varies(|r| r.threads));
        let mut head = vec!["block size"];
        head.extend(by_qd.then_some("QD"));
        head.extend(by_threads.then_some("threads"));
        head.extend(["IOPS", "MiB/s", "MB/s", "mean latency", "runs", "spread"]);
        let mut t = new_table(&head);
        for r in rows.iter().filter(|r| r.read_pct == mix) {
            let mut row = vec![format_size(r.bs_bytes)];
            row.extend(by_qd.then(|| r.qd.to_string()));
            row.extend(by_threads.then(|| r.threads.to_string()));
            row.extend([
                rate(r.iops),
                mib_per_sec(r.bytes_per_sec),
                mb_per_sec(r.bytes_per_sec),
                latency(r.lat_mean_ns),
                r.runs.to_string(),
                if r.runs > 1 {
                    format!("{:.0} %", r.spread * 100.0)
                } else {
                    String::new()
                },
            ]);
            t.add_row(row);
        }
        out.push_str(&format!("{}\n", super::fit::render(&t)));
    }
    out
}
