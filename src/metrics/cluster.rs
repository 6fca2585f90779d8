//! One job measured by many ranks (processes, often on many hosts) at once,
//! merged into one result: histograms added bucket by bucket, interval
//! series added interval by interval on the shared clock, totals summed.
//! Percentiles are read off the merged histogram, never averaged, so the
//! total p99 is the p99 of every rank's I/Os pooled. Also the per-rank
//! breakdown, elbencho's first-done / last-done pair and IO500's stonewall
//! numbers that are stored with the merged job.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::collect::ERROR_SAMPLES;
use super::histogram::{decode, encode, new_histogram, summarize};
use super::result::{DirectionResult, HostFacts, IntervalPoint, JobResult, OpKind};

/// What a job measured by many ranks adds to its merged result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ClusterResult {
    /// Each rank's part, in rank order.
    pub ranks: Vec<RankSummary>,
    /// The total when the first rank finished (elbencho's "first done"):
    /// what a straggler-free system would have shown.
    pub first_done: DonePoint,
    /// The total when the last rank finished (elbencho's "last done"); the
    /// job's own numbers are this one.
    pub last_done: DonePoint,
    /// Ranks shared one target (each its own region) rather than a file each.
    #[serde(default)]
    pub shared: bool,
    /// Set when the job ran with a stonewall deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<StonewallResult>,
}

/// One rank's part of a merged job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RankSummary {
    pub rank: u32,
    pub host: String,
    #[serde(default)]
    pub kernel: String,
    /// The target this rank loaded (its own file, or the shared one).
    pub target: String,
    /// Start of the rank's measurement after the earliest rank's start.
    pub start_skew_ns: u64,
    /// End of the rank's measurement after the earliest rank's end.
    pub stop_skew_ns: u64,
    /// The rank's own measured time.
    pub elapsed_ns: u64,
    pub ops: u64,
    pub bytes: u64,
    #[serde(default)]
    pub errors: u64,
    /// p99 of this rank's operations, all kinds together.
    pub lat_p99_ns: u64,
    /// Operations done when the stonewall deadline passed; `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_at_deadline: Option<u64>,
    #[serde(default)]
    pub incomplete: bool,
}

impl RankSummary {
    pub fn iops(&self) -> f64 {
        per_sec(self.ops, self.elapsed_ns)
    }
    pub fn bytes_per_sec(&self) -> f64 {
        per_sec(self.bytes, self.elapsed_ns)
    }
}

/// All ranks' operations up to one moment of the shared clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct DonePoint {
    /// From the earliest start to the moment.
    pub elapsed_ns: u64,
    pub ops: u64,
    pub bytes: u64,
}

impl DonePoint {
    pub fn iops(&self) -> f64 {
        per_sec(self.ops, self.elapsed_ns)
    }
    pub fn bytes_per_sec(&self) -> f64 {
        per_sec(self.bytes, self.elapsed_ns)
    }
}

/// IO500's stonewalling with wear-out (IOR `-D N -O stoneWallingWearOut=1`):
/// at the deadline every rank stops, the largest count any rank reached is
/// agreed, and every rank then completes up to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct StonewallResult {
    pub deadline_ns: u64,
    /// Fewest and most operations a rank had done at the deadline.
    pub min_ops_at_deadline: u64,
    pub max_ops_at_deadline: u64,
    /// All ranks' operations and bytes at the deadline, and the rate over
    /// the deadline (the number that leaves the stragglers out).
    pub ops_at_deadline: u64,
    pub bytes_at_deadline: u64,
    /// Every rank's count after wear-out: `max_ops_at_deadline` each.
    pub ops_after_wear_out: u64,
}

impl StonewallResult {
    pub fn bytes_per_sec_at_deadline(&self) -> f64 {
        per_sec(self.bytes_at_deadline, self.deadline_ns)
    }
    pub fn iops_at_deadline(&self) -> f64 {
        per_sec(self.ops_at_deadline, self.deadline_ns)
    }
}

fn per_sec(x: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        x as f64 / (ns as f64 / 1e9)
    }
}

/// One rank's measured job, as it travels to rank 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankJob {
    pub rank: u32,
    pub host: HostFacts,
    /// Start of the rank's measurement (after the ramp) on the wall clock,
    /// nanoseconds since the Unix epoch. Hosts' clocks are assumed in step
    /// (NTP); skews below their difference mean nothing.
    pub start_unix_ns: u64,
    /// Its series carries each period's histogram (`IntervalPoint::histogram`).
    pub result: JobResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_at_deadline: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_at_deadline: Option<u64>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MergeError {
    #[error("no rank sent a result")]
    Empty,
    #[error("rank {rank}: {what} histogram cannot be read")]
    BadHistogram { rank: u32, what: String },
}

/// Merges the ranks' results of one job. The merged job is rank 0's job
/// with every count summed, histograms and series merged, and elapsed the
/// window from the earliest start to the latest end (IOR's rule for its
/// aggregate bandwidth). `stonewall_ns` is the deadline when there was one.
pub fn merge(parts: &[RankJob], shared: bool, stonewall_ns: Option<u64>) -> Result<JobResult, MergeError> {
    let first = parts.first().ok_or(MergeError::Empty)?;
    let window_start = parts.iter().map(|p| p.start_unix_ns).min().unwrap_or(0);
    let ends: Vec<u64> = parts
        .iter()
        .map(|p| p.start_unix_ns + p.result.elapsed_ns)
        .collect();
    let window_end = ends.iter().copied().max().unwrap_or(window_start);
    let first_end = ends.iter().copied().min().unwrap_or(window_start);
    let elapsed = window_end - window_start;

    let mut kinds: BTreeMap<OpKind, Vec<(u32, &DirectionResult)>> = BTreeMap::new();
    for p in parts {
        for (kind, d) in p.result.by_operation() {
            kinds.entry(kind).or_default().push((p.rank, d));
        }
    }
    let mut merged_kinds = BTreeMap::new();
    // mdtest's phases: each operation's rate is over its own phase, on the
    // slowest rank (a rank's phase time is its ops over its rate), as
    // mdtest divides the items of all tasks by the longest task's time.
    let phases = first
        .result
        .job
        .workload
        .fileset()
        .and_then(|p| p.resolve().ok())
        .is_some_and(|r| matches!(r.mix, crate::jobs::fileset::Mix::Phases { .. }));
    for (kind, ds) in &kinds {
        let over = match phases {
            true => ds
                .iter()
                .filter(|(_, d)| d.iops > 0.0)
                .map(|(_, d)| (d.ops as f64 / d.iops * 1e9) as u64)
                .max()
                .unwrap_or(elapsed),
            false => elapsed,
        };
        merged_kinds.insert(*kind, merge_direction(ds, kind.name(), over)?);
    }
    let mut result = first.result.clone();
    result.read = merged_kinds.remove(&OpKind::Read);
    result.write = merged_kinds.remove(&OpKind::Write);
    result.operations = merged_kinds;
    result.elapsed_ns = elapsed;
    result.measure_start_unix_ms = window_start / 1_000_000;
    result.syncs = parts.iter().map(|p| p.result.syncs).sum();
    result.cpu_user_ns = parts.iter().map(|p| p.result.cpu_user_ns).sum();
    result.cpu_system_ns = parts.iter().map(|p| p.result.cpu_system_ns).sum();
    result.incomplete = parts.iter().any(|p| p.result.incomplete);
    let interval_ns = first.result.job.interval.as_nanos() as u64;
    result.series = merge_series(parts, window_start, interval_ns.max(1), elapsed)?;

    let mut ranks = Vec::with_capacity(parts.len());
    for (p, end) in parts.iter().zip(&ends) {
        ranks.push(RankSummary {
            rank: p.rank,
            host: p.host.hostname.clone(),
            kernel: p.host.kernel.clone(),
            target: p.result.target.path.clone(),
            start_skew_ns: p.start_unix_ns - window_start,
            stop_skew_ns: end - first_end,
            elapsed_ns: p.result.elapsed_ns,
            ops: p.result.total_ops(),
            bytes: p.result.directions().map(|(_, d)| d.bytes).sum(),
            errors: p.result.directions().map(|(_, d)| d.errors).sum(),
            lat_p99_ns: rank_p99(p)?,
            ops_at_deadline: p.ops_at_deadline,
            incomplete: p.result.incomplete,
        });
    }
    let stonewall = stonewall_ns.map(|deadline_ns| {
        let at: Vec<u64> = parts.iter().map(|p| p.ops_at_deadline.unwrap_or(0)).collect();
        let max = at.iter().copied().max().unwrap_or(0);
        StonewallResult {
            deadline_ns,
            min_ops_at_deadline: at.iter().copied().min().unwrap_or(0),
            max_ops_at_deadline: max,
            ops_at_deadline: at.iter().sum(),
            bytes_at_deadline: parts.iter().map(|p| p.bytes_at_deadline.unwrap_or(0)).sum(),
            ops_after_wear_out: max * parts.len() as u64,
        }
    });
    let last_done = DonePoint {
        elapsed_ns: elapsed,
        ops: ranks.iter().map(|r| r.ops).sum(),
        bytes: ranks.iter().map(|r| r.bytes).sum(),
    };
    let first_done = done_at(parts, window_start, first_end);
    result.cluster = Some(Box::new(ClusterResult {
        ranks,
        first_done,
        last_done,
        shared,
        stonewall,
    }));
    Ok(result)
}

fn hist_of(rank: u32, what: &str, encoded: &str) -> Result<Histogram<u64>, MergeError> {
    decode(encoded).ok_or_else(|| MergeError::BadHistogram {
        rank,
        what: what.to_string(),
    })
}

fn merge_direction(
    ds: &[(u32, &DirectionResult)],
    name: &str,
    elapsed_ns: u64,
) -> Result<DirectionResult, MergeError> {
    let mut hist = new_histogram();
    let (mut ops, mut bytes, mut errors) = (0, 0, 0);
    let mut error_samples = Vec::new();
    for (rank, d) in ds {
        // Same bounds on every rank (one kura version), so adding cannot fail.
        let _ = hist.add(hist_of(*rank, name, &d.histogram)?);
        ops += d.ops;
        bytes += d.bytes;
        errors += d.errors;
        for s in &d.error_samples {
            if error_samples.len() < ERROR_SAMPLES {
                error_samples.push(s.clone());
            }
        }
    }
    Ok(DirectionResult {
        ops,
        bytes,
        errors,
        error_samples,
        iops: per_sec(ops, elapsed_ns),
        bytes_per_sec: per_sec(bytes, elapsed_ns),
        lat_ns: summarize(&hist),
        histogram: encode(&hist),
    })
}

fn rank_p99(p: &RankJob) -> Result<u64, MergeError> {
    p99_of_every_kind(&p.result, p.rank)
}

/// The p99 of a job's operations of every kind pooled in one histogram: for
/// a merged job, of every rank's I/Os, the figure each rank's `lat_p99_ns`
/// is for that rank. The highest of the kinds' own p99s is not it: a rare
/// slow kind (a file set's creates) sets that one alone.
pub fn pooled_p99_ns(job: &JobResult) -> Option<u64> {
    p99_of_every_kind(job, 0).ok()
}

fn p99_of_every_kind(r: &JobResult, rank: u32) -> Result<u64, MergeError> {
    let mut hist = new_histogram();
    for (name, d) in r.directions() {
        let _ = hist.add(hist_of(rank, name, &d.histogram)?);
    }
    Ok(if hist.is_empty() {
        0
    } else {
        hist.value_at_quantile(0.99)
    })
}

#[derive(Default)]
struct Slot {
    read_ops: u64,
    write_ops: u64,
    bytes: u64,
    read_lat_sum: f64,
    write_lat_sum: f64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
    max_ns: u64,
    hist: Option<Histogram<u64>>,
}

/// The ranks' series on the shared clock: each rank's period goes to the
/// shared period holding its midpoint (a rank's periods start at its own
/// start, at most one period of skew away), and periods are added there.
fn merge_series(
    parts: &[RankJob],
    window_start: u64,
    interval_ns: u64,
    elapsed_ns: u64,
) -> Result<Vec<IntervalPoint>, MergeError> {
    let mut slots: Vec<Slot> = Vec::new();
    for p in parts {
        let offset = p.start_unix_ns - window_start;
        for point in &p.result.series {
            let mid = offset + point.start_ns + point.duration_ns / 2;
            let k = (mid / interval_ns) as usize;
            if slots.len() <= k {
                slots.resize_with(k + 1, Slot::default);
            }
            let s = &mut slots[k];
            s.read_ops += point.read_ops;
            s.write_ops += point.write_ops;
            s.bytes += point.bytes;
            s.read_lat_sum += point.read_lat_mean_ns * point.read_ops as f64;
            s.write_lat_sum += point.write_lat_mean_ns * point.write_ops as f64;
            s.cpu_user_ns += point.cpu_user_ns;
            s.cpu_system_ns += point.cpu_system_ns;
            s.max_ns = s.max_ns.max(point.lat_max_ns);
            if point.histogram.is_empty() {
                continue;
            }
            let h = hist_of(p.rank, "interval", &point.histogram)?;
            match &mut s.hist {
                Some(m) => {
                    let _ = m.add(&h);
                }
                None => s.hist = Some(h),
            }
        }
    }
    let mut out = Vec::with_capacity(slots.len());
    for (k, s) in slots.into_iter().enumerate() {
        let start_ns = k as u64 * interval_ns;
        let duration_ns = interval_ns.min(elapsed_ns.saturating_sub(start_ns));
        if duration_ns == 0 {
            continue;
        }
        let ops = s.read_ops + s.write_ops;
        let mean = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { 0.0 };
        let (lat_mean_ns, lat_p99_ns, lat_stddev_ns) = match &s.hist {
            Some(h) if !h.is_empty() => (h.mean(), h.value_at_quantile(0.99), h.stdev()),
            _ => (mean(s.read_lat_sum + s.write_lat_sum, ops), 0, 0.0),
        };
        out.push(IntervalPoint {
            start_ns,
            duration_ns,
            read_ops: s.read_ops,
            write_ops: s.write_ops,
            bytes: s.bytes,
            iops: per_sec(ops, duration_ns),
            bytes_per_sec: per_sec(s.bytes, duration_ns),
            lat_mean_ns,
            lat_p99_ns,
            read_lat_mean_ns: mean(s.read_lat_sum, s.read_ops),
            write_lat_mean_ns: mean(s.write_lat_sum, s.write_ops),
            lat_max_ns: s.max_ns,
            lat_stddev_ns,
            cpu_user_ns: s.cpu_user_ns,
            cpu_system_ns: s.cpu_system_ns,
            histogram: String::new(),
            fio_bins: Vec::new(),
        });
    }
    Ok(out)
}

/// All ranks' operations up to `until` on the shared clock: whole periods
/// before it, and the straddling period pro rata (elbencho reads live
/// counters at that moment; kura has the series, so this is exact to
/// within one period's rate).
fn done_at(parts: &[RankJob], window_start: u64, until: u64) -> DonePoint {
    let (mut ops, mut bytes) = (0u64, 0u64);
    for p in parts {
        let offset = p.start_unix_ns - window_start;
        let until = until - window_start;
        if offset + p.result.elapsed_ns <= until {
            ops += p.result.total_ops();
            bytes += p.result.directions().map(|(_, d)| d.bytes).sum::<u64>();
            continue;
        }
        for point in &p.result.series {
            let start = offset + point.start_ns;
            let end = start + point.duration_ns;
            if end <= until {
                ops += point.read_ops + point.write_ops;
                bytes += point.bytes;
            } else if start < until && point.duration_ns > 0 {
                let share = (until - start) as f64 / point.duration_ns as f64;
                ops += ((point.read_ops + point.write_ops) as f64 * share) as u64;
                bytes += (point.bytes as f64 * share) as u64;
            }
        }
    }
    DonePoint {
        elapsed_ns: until - window_start,
        ops,
        bytes,
    }
}

/// Runs measured one after the other on one rank (the stonewall's two
/// phases): the second's counts and histograms are added to the first's
/// and its series continues where the first one's ended.
pub fn append(first: &mut JobResult, second: &JobResult) -> Result<(), MergeError> {
    let elapsed = first.elapsed_ns + second.elapsed_ns;
    for kind in [OpKind::Read, OpKind::Write] {
        let (a, b) = match kind {
            OpKind::Read => (first.read.take(), second.read.as_ref()),
            _ => (first.write.take(), second.write.as_ref()),
        };
        let merged = match (a, b) {
            (Some(a), Some(b)) => Some(merge_direction(&[(0, &a), (0, b)], kind.name(), elapsed)?),
            (a, _) => a,
        };
        match kind {
            OpKind::Read => first.read = merged,
            _ => first.write = merged,
        }
    }
    for (kind, b) in &second.operations {
        let merged = match first.operations.get(kind) {
            Some(a) => merge_direction(&[(0, a), (0, b)], kind.name(), elapsed)?,
            None => b.clone(),
        };
        first.operations.insert(*kind, merged);
    }
    let shift = first.elapsed_ns;
    first.series.extend(second.series.iter().map(|p| IntervalPoint {
        start_ns: p.start_ns + shift,
        ..p.clone()
    }));
    first.elapsed_ns = elapsed;
    first.syncs += second.syncs;
    first.cpu_user_ns += second.cpu_user_ns;
    first.cpu_system_ns += second.cpu_system_ns;
    first.incomplete |= second.incomplete;
    Ok(())
}

#[cfg(test)]
mod tests;
