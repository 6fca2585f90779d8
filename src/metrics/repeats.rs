//! Statistics across repetitions of one test: best (CrystalDiskMark reports
//! the best run), mean, and spread, with a warning when runs disagree.

use serde::Serialize;

use super::result::{DirectionResult, JobResult, RunResult};

/// Runs of one test whose spread exceeds this share of the mean get a warning.
pub const DISAGREEMENT: f64 = 0.15;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RepeatStats {
    pub runs: usize,
    /// The repetition with the highest throughput.
    pub best_bytes_per_sec: f64,
    pub best_iops: f64,
    /// Mean latency of that best repetition.
    pub best_lat_mean_ns: f64,
    pub mean_bytes_per_sec: f64,
    pub mean_iops: f64,
    pub min_bytes_per_sec: f64,
    /// (max - min) / mean of throughput across repetitions.
    pub spread: f64,
    /// The lowest mean latency of any repetition (CrystalDiskMark's latency figure).
    pub min_lat_mean_ns: f64,
    /// The mean of the repetitions' mean latencies (KDiskMark's Default).
    pub mean_lat_mean_ns: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TestSummary {
    pub test: String,
    pub read: Option<RepeatStats>,
    pub write: Option<RepeatStats>,
    /// A mark Mix profile's mixed runs, reads and writes together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mix: Option<RepeatStats>,
}

/// One repetition's figures.
#[derive(Debug, Clone, Copy)]
struct Pass {
    bytes_per_sec: f64,
    iops: f64,
    lat_mean_ns: f64,
}

impl Pass {
    fn of(d: &DirectionResult) -> Pass {
        Pass {
            bytes_per_sec: d.bytes_per_sec,
            iops: d.iops,
            lat_mean_ns: d.lat_ns.mean,
        }
    }
    /// Reads and writes of one mixed job together; latency weighted by operations.
    fn mixed(job: &JobResult) -> Option<Pass> {
        let dirs: Vec<&DirectionResult> = job.read.iter().chain(job.write.iter()).collect();
        if dirs.is_empty() {
            return None;
        }
        let ops: u64 = dirs.iter().map(|d| d.ops).sum();
        let lat = if ops > 0 {
            dirs.iter().map(|d| d.lat_ns.mean * d.ops as f64).sum::<f64>() / ops as f64
        } else {
            0.0
        };
        Some(Pass {
            bytes_per_sec: dirs.iter().map(|d| d.bytes_per_sec).sum(),
            iops: dirs.iter().map(|d| d.iops).sum(),
            lat_mean_ns: lat,
        })
    }
}

pub fn stats(dirs: &[&DirectionResult]) -> Option<RepeatStats> {
    let passes: Vec<Pass> = dirs.iter().map(|d| Pass::of(d)).collect();
    pass_stats(&passes)
}

fn pass_stats(passes: &[Pass]) -> Option<RepeatStats> {
    let best = passes
        .iter()
        .max_by(|a, b| a.bytes_per_sec.total_cmp(&b.bytes_per_sec))?;
    let n = passes.len() as f64;
    let mean_bw = passes.iter().map(|d| d.bytes_per_sec).sum::<f64>() / n;
    let max_bw = best.bytes_per_sec;
    let min_bw = passes
        .iter()
        .map(|d| d.bytes_per_sec)
        .fold(f64::INFINITY, f64::min);
    // CrystalDiskMark keeps the lowest latency of the passes that moved data (`score > 0.0`).
    let min_lat = passes
        .iter()
        .filter(|p| p.bytes_per_sec > 0.0)
        .map(|p| p.lat_mean_ns)
        .fold(f64::INFINITY, f64::min);
    Some(RepeatStats {
        runs: passes.len(),
        best_bytes_per_sec: best.bytes_per_sec,
        best_iops: best.iops,
        best_lat_mean_ns: best.lat_mean_ns,
        mean_bytes_per_sec: mean_bw,
        mean_iops: passes.iter().map(|d| d.iops).sum::<f64>() / n,
        min_bytes_per_sec: min_bw,
        spread: if mean_bw > 0.0 {
            (max_bw - min_bw) / mean_bw
        } else {
            0.0
        },
        min_lat_mean_ns: if min_lat.is_finite() { min_lat } else { 0.0 },
        mean_lat_mean_ns: passes.iter().map(|d| d.lat_mean_ns).sum::<f64>() / n,
    })
}

/// A mark run's tests: read from its read-only runs, write from its
/// write-only runs, mix from its mixed runs (reads and writes together).
pub fn summarize_mark(run: &RunResult) -> Vec<TestSummary> {
    test_order(run)
        .into_iter()
        .map(|test| {
            let jobs = || {
                run.jobs
                    .iter()
                    .filter(|j| j.test.as_deref() == Some(test.as_str()))
            };
            let pure = |write: bool| {
                let passes: Vec<Pass> = jobs()
                    .filter(|j| j.job.does_writes() == write && j.job.does_reads() != write)
                    .filter_map(|j| if write { j.write.as_ref() } else { j.read.as_ref() })
                    .map(Pass::of)
                    .collect();
                pass_stats(&passes)
            };
            let mixed: Vec<Pass> = jobs()
                .filter(|j| j.job.does_reads() && j.job.does_writes())
                .filter_map(Pass::mixed)
                .collect();
            TestSummary {
                read: pure(false),
                write: pure(true),
                mix: pass_stats(&mixed),
                test,
            }
        })
        .collect()
}

fn test_order(run: &RunResult) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for j in &run.jobs {
        if let Some(t) = &j.test
            && !order.contains(t)
        {
            order.push(t.clone());
        }
    }
    order
}

/// Groups a suite run's jobs by test name, in the order tests first appear.
pub fn summarize_tests(run: &RunResult) -> Vec<TestSummary> {
    test_order(run)
        .into_iter()
        .map(|test| {
            let of = |write: bool| {
                let dirs: Vec<&DirectionResult> = run
                    .jobs
                    .iter()
                    .filter(|j| j.test.as_deref() == Some(test.as_str()))
                    .filter_map(|j| if write { j.write.as_ref() } else { j.read.as_ref() })
                    .collect();
                stats(&dirs)
            };
            TestSummary {
                read: of(false),
                write: of(true),
                mix: None,
                test,
            }
        })
        .collect()
}

/// Warnings for tests whose repetitions disagree by more than `DISAGREEMENT`.
pub fn disagreement_warnings(summaries: &[TestSummary]) -> Vec<super::Warning> {
    let mut out = Vec::new();
    for s in summaries {
        for (dir, st) in [("read", &s.read), ("write", &s.write), ("mix", &s.mix)] {
            if let Some(st) = st
                && st.runs > 1
                && st.spread > DISAGREEMENT
            {
                out.push(super::Warning::RepeatsDisagree {
                    test: s.test.clone(),
                    direction: Some(dir.to_string()),
                    runs: st.runs as u32,
                    spread_pct: st.spread * 100.0,
                    min: st.min_bytes_per_sec / 1e6,
                    max: st.best_bytes_per_sec / 1e6,
                    unit: "MB/s".to_string(),
                });
            }
        }
    }
    out
}
