//! Statistics across repetitions of one test: best (CrystalDiskMark reports
//! the best run), mean, and spread, with a warning when runs disagree.

use serde::Serialize;

use super::result::{DirectionResult, RunResult};

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
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TestSummary {
    pub test: String,
    pub read: Option<RepeatStats>,
    pub write: Option<RepeatStats>,
}

pub fn stats(dirs: &[&DirectionResult]) -> Option<RepeatStats> {
    let best = dirs
        .iter()
        .max_by(|a, b| a.bytes_per_sec.total_cmp(&b.bytes_per_sec))?;
    let n = dirs.len() as f64;
    let mean_bw = dirs.iter().map(|d| d.bytes_per_sec).sum::<f64>() / n;
    let max_bw = best.bytes_per_sec;
    let min_bw = dirs.iter().map(|d| d.bytes_per_sec).fold(f64::INFINITY, f64::min);
    Some(RepeatStats {
        runs: dirs.len(),
        best_bytes_per_sec: best.bytes_per_sec,
        best_iops: best.iops,
        best_lat_mean_ns: best.lat_ns.mean,
        mean_bytes_per_sec: mean_bw,
        mean_iops: dirs.iter().map(|d| d.iops).sum::<f64>() / n,
        min_bytes_per_sec: min_bw,
        spread: if mean_bw > 0.0 {
            (max_bw - min_bw) / mean_bw
        } else {
            0.0
        },
    })
}

/// Groups a suite run's jobs by test name, in the order tests first appear.
pub fn summarize_tests(run: &RunResult) -> Vec<TestSummary> {
    let mut order: Vec<String> = Vec::new();
    for j in &run.jobs {
        if let Some(t) = &j.test
            && !order.contains(t)
        {
            order.push(t.clone());
        }
    }
    order
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
                test,
            }
        })
        .collect()
}

/// Warnings for tests whose repetitions disagree by more than `DISAGREEMENT`.
pub fn disagreement_warnings(summaries: &[TestSummary]) -> Vec<super::Warning> {
    let mut out = Vec::new();
    for s in summaries {
        for (dir, st) in [("read", &s.read), ("write", &s.write)] {
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
