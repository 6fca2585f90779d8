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
    let per_thread = r.job.workload.kind().in_flight_per_thread(&r.job);
    per_thread * u64::from(r.job.threads.max(1))
}

/// The most operations per second a closed loop of `in_flight_cap`
/// operations can complete at the step's mean latency (Little's law:
/// in flight = rate x latency); `None` when nothing completed.
pub fn closed_loop_max_iops(r: &JobResult) -> Option<f64> {
    let mean_ns = stat_ns(r, LatencyStat::Mean).filter(|m| *m > 0.0)?;
    Some(in_flight_cap(r) as f64 / (mean_ns / 1e9))
}

/// At or above this share of one core per worker thread, a step's threads
/// were busy: only then can the client's CPU have held it.
pub const CPU_BUSY_SHARE: f64 = 0.8;

/// Operations in flight at this share of what the job allows: its queue was full.
pub const QUEUE_FULL_SHARE: f64 = 0.9;

/// A step whose mean latency is this many times its search's lowest spent
/// most of it waiting behind other operations, not being served.
pub const QUEUED_GROWTH: f64 = 3.0;

/// A device busy (some I/O queued on it) this share of a step was its limit.
pub const DEVICE_BUSY_SHARE: f64 = 0.9;

/// What a step's own measurements say about what held it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evidence {
    /// CPU time of the job's threads over the step's time and its threads:
    /// 1.0 is every thread on a core all the time.
    pub cpu_per_thread: f64,
    /// Operations in flight in the step's fullest interval (Little's law:
    /// its IOPS x its mean latency), or over the whole step without a
    /// series. The fullest, because a throttle lets a burst through as a
    /// step starts and the queue fills only after it.
    pub in_flight: f64,
    /// The most the job keeps in flight (`in_flight_cap`).
    pub in_flight_cap: u64,
    /// The step's mean latency over the lowest of its search's steps.
    pub latency_growth: f64,
    /// Share of the step's time the target's device had I/O queued.
    pub device_busy: Option<f64>,
}

/// What held a step under the rate it offered, or a search under its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// The target: the operations waited there (latency far over the
    /// unloaded one), or the queue was full with the device busy. More
    /// load only queues longer: the score is the target's.
    Target,
    /// The job's operations in flight: its queue was full but the target
    /// served them at about the unloaded latency; more would offer more.
    InFlight,
    /// kura's threads were busy on the CPU and the queue was not full.
    ClientCpu,
    /// Neither the CPU nor the queue was full, and the operations did not
    /// wait at the target: kura cannot tell.
    Unknown,
}

impl Evidence {
    /// The evidence of step `r` of a search whose lowest mean latency is
    /// `least_latency_ns`; `device_busy` is the device's busy share where
    /// it is known (`device_busy`).
    pub fn of(r: &JobResult, least_latency_ns: f64, device_busy: Option<f64>) -> Evidence {
        let seconds = r.elapsed_ns as f64 / 1e9;
        let threads = f64::from(r.job.threads.max(1));
        let cpu_s = (r.cpu_user_ns + r.cpu_system_ns) as f64 / 1e9;
        let cpu_per_thread = if seconds > 0.0 {
            cpu_s / seconds / threads
        } else {
            0.0
        };
        let mean_ns = stat_ns(r, LatencyStat::Mean).unwrap_or(0.0);
        let whole = achieved_iops(r) * mean_ns / 1e9;
        // Intervals shorter than half the job's (the last, cut by the
        // deadline) hold too few operations to stand for the step.
        let longest = r.series.iter().map(|p| p.duration_ns).max().unwrap_or(0);
        let fullest = r
            .series
            .iter()
            .filter(|p| p.duration_ns * 2 >= longest)
            .map(|p| p.iops * p.lat_mean_ns / 1e9)
            .fold(whole, f64::max);
        Evidence {
            cpu_per_thread,
            in_flight: fullest,
            in_flight_cap: in_flight_cap(r),
            latency_growth: if least_latency_ns > 0.0 {
                mean_ns / least_latency_ns
            } else {
                1.0
            },
            device_busy,
        }
    }

    /// What held the step, in this order: the client's CPU when kura's
    /// threads were busy (`CPU_BUSY_SHARE`; they then also reap late, which
    /// inflates latency); the target when its operations waited there (a
    /// mean latency `QUEUED_GROWTH` times the search's lowest: latency runs
    /// from submission to completion, so only the target adds to it), or
    /// when the queue was full and the device busy all along (with more
    /// than one in flight: at one, busy only means one at a time); the
    /// job's operations in flight when its queue was full and they did not
    /// wait; otherwise unknown.
    pub fn limiter(&self) -> Limiter {
        let full = self.in_flight >= QUEUE_FULL_SHARE * self.in_flight_cap as f64;
        let device_full =
            full && self.in_flight_cap > 1 && self.device_busy.is_some_and(|b| b >= DEVICE_BUSY_SHARE);
        if self.cpu_per_thread >= CPU_BUSY_SHARE {
            Limiter::ClientCpu
        } else if self.latency_growth >= QUEUED_GROWTH || device_full {
            Limiter::Target
        } else if full {
            Limiter::InFlight
        } else {
            Limiter::Unknown
        }
    }
}

/// The share of a step's time its target's device was busy, from the job's
/// stored device counters (`device_io`): the one place the diagnosis reads it.
pub fn device_busy(r: &JobResult) -> Option<f64> {
    crate::metrics::device_io::utilisation(r)
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
    /// What the step's own measurements say held it (`Evidence`).
    pub evidence: Evidence,
    pub limited_by: Limiter,
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

    /// The score compare sets side by side, in I/Os per second: what the
    /// target delivered at the highest load that held (the achieved IOPS of
    /// that step; a rate step may carry a little under what it offered).
    pub fn score_iops(&self) -> Option<f64> {
        Some(self.best_point()?.achieved_iops)
    }

    /// Whether the score is a lower bound: the search never found the
    /// knee, because no step it offered above the best crossed the limit.
    /// That is an unthrottled probe that held, a queue depth or thread
    /// search whose ceiling held, or a rate search whose steps above the
    /// best were all short: the job's closed loop could offer no more. A
    /// probe that crossed bounds nothing here: unpaced, its I/Os queue
    /// behind each other, so a paced step at its rate may still hold.
    ///
    /// Unless the target itself was the limit (`limited_by`): then no load
    /// could hold above the score, which is the most the target delivers.
    pub fn lower_bound(&self) -> bool {
        self.limited_by().is_some_and(|l| l != Limiter::Target)
    }

    /// What kept the search from crossing its limit above its best step,
    /// from the evidence of the step that shows it (`Evidence::limiter`):
    /// the highest short step above the best, else the best step itself
    /// (the probe that held, a ceiling that held). `None` when a step above
    /// the best crossed the limit, or none held.
    pub fn limited_by(&self) -> Option<Limiter> {
        self.limiting_point().map(|p| p.limited_by)
    }

    /// The step whose evidence says what kept the search under its limit
    /// (`limited_by`).
    pub fn limiting_point(&self) -> Option<&CurvePoint> {
        let best = self.best_point()?;
        let Some(at) = best.load(self.load) else {
            // The unthrottled probe held: no load is higher.
            return Some(best);
        };
        let above = |p: &&CurvePoint| p.load(self.load).is_some_and(|l| l > at);
        if self
            .points
            .iter()
            .filter(above)
            .any(|p| p.verdict == Verdict::Crossed)
        {
            return None;
        }
        let short = self
            .points
            .iter()
            .filter(above)
            .filter(|p| p.verdict == Verdict::Short)
            .max_by_key(|p| p.load(self.load));
        Some(short.unwrap_or(best))
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
                match self.limited_by() {
                    Some(Limiter::Target) => "search-never-crossed-target",
                    _ => "search-never-crossed",
                },
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
                    // The score is what the target delivered; what was
                    // offered beside it where the two differ.
                    LatencyLoad::Rate => {
                        let offered = fmt_count(p.offered_iops.unwrap_or(0) as f64);
                        match fmt_count(p.achieved_iops) == offered {
                            true => format!("{} IOPS", count(p.achieved_iops)),
                            false => crate::t!(
                                "search-rate-delivered",
                                iops = count(p.achieved_iops),
                                offered = offered
                            ),
                        }
                    }
                    LatencyLoad::Qd => format!("qd {} ({} IOPS)", p.qd, count(p.achieved_iops)),
                    LatencyLoad::Threads => crate::t!(
                        "search-threads-iops",
                        threads = p.threads,
                        iops = count(p.achieved_iops)
                    ),
                };
                let key = match self.limited_by() {
                    Some(Limiter::Target) => "search-highest-target",
                    Some(_) => "search-highest-lower-bound",
                    None => "search-highest",
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
            // Set below, once the search's lowest latency is known.
            evidence: Evidence::of(r, 0.0, None),
            limited_by: Limiter::Unknown,
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
        let least = c
            .points
            .iter()
            .filter_map(|p| stat_ns(&run.jobs[p.job_index], LatencyStat::Mean))
            .filter(|m| *m > 0.0)
            .fold(f64::INFINITY, f64::min);
        for p in &mut c.points {
            let r = &run.jobs[p.job_index];
            p.evidence = Evidence::of(r, if least.is_finite() { least } else { 0.0 }, device_busy(r));
            p.limited_by = p.evidence.limiter();
        }
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
