//! Latency-bounded capacity from stored results: the statistic a step's
//! operations reached, whether the step held the bound, and the curves of a
//! run's searches with the highest load that held. The runner decides each
//! step with `verdict`; reports rebuild the same curve with `curves`.

use serde::Serialize;

use super::histogram::decode;
use super::{JobResult, RunResult};
use crate::jobs::latency::{LatencyLoad, LatencyStat, Phase};

/// A rate step that delivered less than this share of the rate it offered
/// did not carry that load: it counts as crossing the bound, whatever its
/// latency (with a closed loop, too few I/Os in flight cap the rate).
pub const SHORT_SHARE: f64 = 0.95;

/// A rate step is judged on at least this many offered operations: paced
/// evenly, a step that carried its rate counts them to within one
/// (`worker/pace.rs`), and one in 20 is the 5 % that `SHORT_SHARE` leaves.
/// It is also where a Poisson count is near enough to normal for
/// `SHORT_Z` (docs/latency-bound.md cites both).
pub const MIN_STEP_OPS: f64 = 20.0;

/// With Poisson arrivals (`rate_poisson`) a step's count varies by chance:
/// it is short only when it is this many standard deviations under
/// `SHORT_SHARE` of the offered operations (one-sided, 1 %).
pub const SHORT_Z: f64 = 2.326;

/// The statistic over every operation of the job, in nanoseconds; `None`
/// when nothing completed. Means are weighted by operations; percentiles
/// and maxima come from the merged histograms.
pub fn stat_ns(r: &JobResult, stat: LatencyStat) -> Option<f64> {
    let ops: u64 = r.directions().map(|(_, d)| d.ops).sum();
    if ops == 0 {
        return None;
    }
    match stat {
        LatencyStat::Mean => {
            let sum: f64 = r.directions().map(|(_, d)| d.lat_ns.mean * d.ops as f64).sum();
            Some(sum / ops as f64)
        }
        LatencyStat::Max => r.directions().map(|(_, d)| d.lat_ns.max as f64).reduce(f64::max),
        _ => {
            let q = stat.percentile()? / 100.0;
            let mut parts = r.directions().filter(|(_, d)| d.ops > 0);
            let (_, first) = parts.next()?;
            let one_kind = parts.next().is_none();
            // One kind of operation: its stored percentiles are the answer,
            // and imported or old runs without a histogram still have them.
            if one_kind {
                let key = super::histogram::percentile_key(q * 100.0);
                if let Some(v) = first.lat_ns.percentiles.get(&key) {
                    return Some(*v as f64);
                }
            }
            let mut merged = None;
            for (_, d) in r.directions().filter(|(_, d)| d.ops > 0) {
                let h = decode(&d.histogram)?;
                match &mut merged {
                    None => merged = Some(h),
                    Some(m) => m.add(&h).ok()?,
                }
            }
            merged.map(|h| h.value_at_quantile(q) as f64)
        }
    }
}

/// How one step ended against the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Held,
    Crossed,
    /// Latency under the bound, but the step delivered less than
    /// `SHORT_SHARE` of the rate it offered: the load was not carried.
    Short,
}

impl Verdict {
    pub fn held(self) -> bool {
        self == Verdict::Held
    }
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Held => "held",
            Verdict::Crossed => "crossed",
            Verdict::Short => "short",
        }
    }
}

/// The achieved operations per second of every kind together.
pub fn achieved_iops(r: &JobResult) -> f64 {
    r.directions().map(|(_, d)| d.iops).sum()
}

/// Whether a step of a search held its job's bound; `None` for a job
/// without a limit. A step where nothing completed crossed.
pub fn verdict(r: &JobResult) -> Option<Verdict> {
    let limit = r.job.latency_limit_ns? as f64;
    let stat = r.job.latency_stat.unwrap_or(LatencyStat::Mean);
    let Some(lat) = stat_ns(r, stat) else {
        return Some(Verdict::Crossed);
    };
    if lat > limit {
        return Some(Verdict::Crossed);
    }
    if load_of(r) == LatencyLoad::Rate
        && let Some(rate) = r.job.rate_iops
        && !carried(r, rate)
    {
        return Some(Verdict::Short);
    }
    Some(Verdict::Held)
}

/// Operations of every kind the step completed.
fn ops_of(r: &JobResult) -> u64 {
    r.directions().map(|(_, d)| d.ops).sum()
}

/// Whether a step paced at `rate` delivered it: its operations against
/// `SHORT_SHARE` of rate x its measured time, less what the count of a step
/// that did carry it may still lack (`shortfall_allowed`).
pub fn carried(r: &JobResult, rate: u64) -> bool {
    let seconds = r.elapsed_ns as f64 / 1e9;
    if seconds <= 0.0 {
        // No measured time (imported runs): the rate is all there is.
        return achieved_iops(r) >= rate as f64 * SHORT_SHARE;
    }
    let offered = rate as f64 * seconds;
    ops_of(r) as f64 + shortfall_allowed(r, rate, offered) >= SHORT_SHARE * offered
}

/// Operations a step that carried `rate` for `offered` operations may
/// still miss: one where the measured window cuts the pacing grid, the
/// I/Os the deadline caught in flight (rate x mean latency, Little's law),
/// and with Poisson arrivals `SHORT_Z` standard deviations of the count.
fn shortfall_allowed(r: &JobResult, rate: u64, offered: f64) -> f64 {
    let mean_s = stat_ns(r, LatencyStat::Mean).unwrap_or(0.0) / 1e9;
    let cut = 1.0 + rate as f64 * mean_s;
    let chance = if r.job.rate_poisson {
        SHORT_Z * (SHORT_SHARE * offered).sqrt()
    } else {
        0.0
    };
    cut + chance
}

/// Operations a job can have in flight at once: `qd` per thread where the
/// engine keeps several (a file set's thread does one operation at a time;
/// the stored `qd` of a sync engine is already 1).
pub fn in_flight_cap(r: &JobResult) -> u64 {
    let per_thread = match r.job.workload {
        crate::jobs::Workload::Block => u64::from(r.job.qd.max(1)),
        _ => 1,
    };
    per_thread * u64::from(r.job.threads.max(1))
}

/// The most operations per second a closed loop of `in_flight_cap`
/// operations can complete at the step's mean latency (Little's law:
/// in flight = rate x latency); `None` when nothing completed.
pub fn closed_loop_max_iops(r: &JobResult) -> Option<f64> {
    let mean_ns = stat_ns(r, LatencyStat::Mean).filter(|m| *m > 0.0)?;
    Some(in_flight_cap(r) as f64 / (mean_ns / 1e9))
}

fn load_of(r: &JobResult) -> LatencyLoad {
    r.job.latency_load.unwrap_or(LatencyLoad::Rate)
}

/// The load a step offered: its rate (`None`: unthrottled), queue depth or threads.
pub fn offered(r: &JobResult) -> Option<u64> {
    match load_of(r) {
        LatencyLoad::Rate => r.job.rate_iops,
        LatencyLoad::Qd => Some(r.job.qd.into()),
        LatencyLoad::Threads => Some(r.job.threads.into()),
    }
}

/// One measured step of a search, as reports and JSON show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Index of the step's job in the run's `jobs`.
    pub job_index: usize,
    pub step: u32,
    pub phase: Phase,
    /// The rate offered, in I/Os per second; `None`: unthrottled (the probe)
    /// or a search on queue depth or threads.
    pub offered_iops: Option<u64>,
    /// Queue depth per thread during the step.
    pub qd: u32,
    pub threads: u32,
    /// Operations per second the step achieved, all kinds together.
    pub achieved_iops: f64,
    /// The bound's statistic over the step's operations, in nanoseconds.
    pub latency_ns: Option<f64>,
    pub verdict: Verdict,
}

impl CurvePoint {
    /// The load this point offered, in the search's unit; `None`: unthrottled.
    pub fn load(&self, load: LatencyLoad) -> Option<u64> {
        match load {
            LatencyLoad::Rate => self.offered_iops,
            LatencyLoad::Qd => Some(self.qd.into()),
            LatencyLoad::Threads => Some(self.threads.into()),
        }
    }
}

/// One search of a run: its bound, its points in the order measured, and
/// the highest load that held.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// The searched job's name.
    pub job: String,
    pub test: Option<String>,
    pub latency_limit_ns: u64,
    pub stat: LatencyStat,
    pub load: LatencyLoad,
    pub points: Vec<CurvePoint>,
    /// Index into `points` of the highest load that held; `None` when none held.
    pub best: Option<usize>,
}

impl Curve {
    pub fn best_point(&self) -> Option<&CurvePoint> {
        self.best.map(|i| &self.points[i])
    }

    /// The score compare sets side by side, in I/Os per second: the highest
    /// rate that held (a probe that held: the rate it reached); for a queue
    /// depth or thread search, the IOPS achieved at the best depth or count.
    pub fn score_iops(&self) -> Option<f64> {
        let p = self.best_point()?;
        Some(match (self.load, p.offered_iops) {
            (LatencyLoad::Rate, Some(r)) => r as f64,
            _ => p.achieved_iops,
        })
    }

    /// Whether the score is a lower bound: the search never found the
    /// knee, because no step it offered above the best crossed the limit.
    /// That is an unthrottled probe that held, a queue depth or thread
    /// search whose ceiling held, or a rate search whose steps above the
    /// best were all short: the job's closed loop could offer no more. A
    /// probe that crossed bounds nothing here: unpaced, its I/Os queue
    /// behind each other, so a paced step at its rate may still hold.
    pub fn lower_bound(&self) -> bool {
        let Some(best) = self.best_point() else {
            return false;
        };
        let Some(at) = best.load(self.load) else {
            // The unthrottled probe held: no load is higher.
            return true;
        };
        !self
            .points
            .iter()
            .any(|p| p.verdict == Verdict::Crossed && p.load(self.load).is_some_and(|l| l > at))
    }

    /// The result in one sentence: "highest rate holding mean latency under
    /// 6 ms: 12,400 IOPS"; a lower bound says so (">= 12,400 IOPS").
    pub fn sentence(&self, fmt_latency: fn(f64) -> String, fmt_count: fn(f64) -> String) -> String {
        let limit = fmt_latency(self.latency_limit_ns as f64);
        let what = match self.load {
            LatencyLoad::Rate => crate::t!("search-load-rate"),
            LatencyLoad::Qd => crate::t!("search-load-qd"),
            LatencyLoad::Threads => crate::t!("search-load-threads"),
        };
        let stat = crate::i18n::heading(self.stat.name());
        match self.best_point() {
            Some(p) if p.phase == Phase::Probe => crate::t!(
                "search-never-crossed",
                stat = stat,
                limit = limit,
                iops = fmt_count(p.achieved_iops),
                latency = p.latency_ns.map(fmt_latency).unwrap_or_default()
            ),
            Some(p) => {
                let lower_bound = self.lower_bound();
                let count = |x: f64| match lower_bound {
                    true => format!(">= {}", fmt_count(x)),
                    false => fmt_count(x),
                };
                let load = match self.load {
                    LatencyLoad::Rate => format!("{} IOPS", count(p.offered_iops.unwrap_or(0) as f64)),
                    LatencyLoad::Qd => format!("qd {} ({} IOPS)", p.qd, count(p.achieved_iops)),
                    LatencyLoad::Threads => crate::t!(
                        "search-threads-iops",
                        threads = p.threads,
                        iops = count(p.achieved_iops)
                    ),
                };
                let key = if lower_bound {
                    "search-highest-lower-bound"
                } else {
                    "search-highest"
                };
                crate::t!(key, what = what, stat = stat, limit = limit, load = load)
            }
            None => crate::t!("search-none-held", what = what, stat = stat, limit = limit),
        }
    }
}

/// The searches of a run, each with its curve. A search is a run of
/// consecutive jobs whose steps count up from 0.
pub fn curves(run: &RunResult) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for (i, r) in run.jobs.iter().enumerate() {
        let (Some(step), Some(limit)) = (r.job.latency_step, r.job.latency_limit_ns) else {
            continue;
        };
        let Some(verdict) = verdict(r) else { continue };
        let stat = r.job.latency_stat.unwrap_or(LatencyStat::Mean);
        let load = load_of(r);
        let point = CurvePoint {
            job_index: i,
            step: step.index,
            phase: step.phase,
            offered_iops: r.job.rate_iops,
            qd: r.job.qd,
            threads: r.job.threads,
            achieved_iops: achieved_iops(r),
            latency_ns: stat_ns(r, stat),
            verdict,
        };
        let continues = out.last().is_some_and(|c| {
            step.index > 0
                && c.job == r.job.name
                && c.latency_limit_ns == limit
                && c.points.last().is_some_and(|p| p.step < step.index)
        });
        if !continues {
            out.push(Curve {
                job: r.job.name.clone(),
                test: r.test.clone(),
                latency_limit_ns: limit,
                stat,
                load,
                points: Vec::new(),
                best: None,
            });
        }
        let Some(curve) = out.last_mut() else { continue };
        curve.points.push(point);
    }
    for c in &mut out {
        c.best = best(&c.points, c.load);
    }
    out
}

/// The highest load that held; the unthrottled probe counts as the highest
/// of all when it held.
fn best(points: &[CurvePoint], load: LatencyLoad) -> Option<usize> {
    let key = |p: &CurvePoint| p.load(load).unwrap_or(u64::MAX);
    points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.verdict.held())
        .max_by_key(|(_, p)| key(p))
        .map(|(i, _)| i)
}
