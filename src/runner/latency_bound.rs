//! Latency-bounded capacity: a job with `latency_limit` runs as a series of
//! measured steps at rising load until its latency statistic crosses the
//! limit, then bisects between the highest load that held and the lowest
//! that did not. `Search` decides the next load from the verdicts alone (a
//! state machine, tested without I/O); `run_search` measures each step with
//! whatever kind of workload the job is, through the caller's `step`, on
//! one process or many ranks, and the caller stores each step as it ends. Whether a step held is
//! `metrics::latency_bound::verdict`, which the reports use too.
//!
//! The offered load is the rate (`rate_iops`, paced evenly, at the job's
//! own queue depth and threads), the queue depth or the thread count. Rate
//! searches start from a short unthrottled probe, as vdbench's
//! `iorate=curve` starts from its `iorate=max` run; queue-depth and thread
//! searches start at 1 and double, as fio's `latency_target` does
//! (fio 3.33 `io_u.c`, `lat_target_init` / `lat_target_success`).

use std::time::Duration;

use super::{Placement, RunError, StopFlag, SuiteJob};
use crate::jobs::Job;
use crate::jobs::job::{DEFAULT_RUNTIME, MAX_QD, MAX_THREADS};
use crate::jobs::latency::{LatencyLoad, LatencyStep, Phase};
use crate::metrics::JobResult;
use crate::metrics::latency_bound::{MIN_STEP_OPS, achieved_iops, verdict};

/// The rate climb starts at this share of what the probe reached.
const START_SHARE: f64 = 0.1;
/// Each rate step offers this much more than the one before.
const RATE_GROWTH: f64 = 1.5;
/// Bisections of a rate search: from a 1.5x bracket, 4 halvings leave the
/// answer within about 3 % of the knee.
const RATE_REFINES: u32 = 4;
/// A rate bracket this narrow (a share of the load that held) is close enough.
const RATE_RESOLUTION: f64 = 0.02;
/// Halvings tried when even the first step of a climb crossed.
const MAX_DESCENTS: u32 = 4;
/// No search measures more steps than this.
const MAX_STEPS: u32 = 40;
/// The probe runs at most this long: it only sets where the climb starts.
const PROBE_RUNTIME: Duration = Duration::from_secs(3);
/// Ceilings of queue-depth and thread searches on a job that gave 1.
const DEFAULT_QD_CEILING: u64 = 256;
const DEFAULT_THREADS_CEILING: u64 = 64;

/// The load of the next step: `None` is unthrottled (the probe).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Next {
    pub load: Option<u64>,
    pub phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Probe,
    Climb(u64),
    Descend(u64),
    Refine(u64),
    Done,
}

/// The search over one kind of load, driven by the verdicts of its steps.
#[derive(Debug, Clone)]
pub struct Search {
    load: LatencyLoad,
    ceiling: u64,
    state: State,
    /// The highest load that held, and the lowest that did not.
    held: Option<u64>,
    crossed: Option<u64>,
    steps: u32,
    descents: u32,
    refines: u32,
    probe_held: bool,
}

impl Search {
    /// A search of `load` up to `ceiling` (qd and threads; rates have none).
    pub fn new(load: LatencyLoad, ceiling: u64) -> Search {
        Search {
            load,
            ceiling: ceiling.max(1),
            state: match load {
                LatencyLoad::Rate => State::Probe,
                LatencyLoad::Qd | LatencyLoad::Threads => State::Climb(1),
            },
            held: None,
            crossed: None,
            steps: 0,
            descents: 0,
            refines: 0,
            probe_held: false,
        }
    }

    /// What to measure next; `None` when the search is over.
    pub fn next(&self) -> Option<Next> {
        let (load, phase) = match self.state {
            State::Probe => (None, Phase::Probe),
            State::Climb(x) => (Some(x), Phase::Climb),
            State::Descend(x) => (Some(x), Phase::Descend),
            State::Refine(x) => (Some(x), Phase::Refine),
            State::Done => return None,
        };
        Some(Next { load, phase })
    }

    /// The verdict of the step `next` asked for, and the rate it achieved.
    pub fn record(&mut self, held: bool, achieved_iops: f64) {
        self.steps += 1;
        let state = self.state;
        self.state = State::Done;
        if self.steps >= MAX_STEPS {
            return;
        }
        match state {
            State::Done => {}
            State::Probe if held => self.probe_held = true,
            State::Probe => {
                let start = (achieved_iops * START_SHARE).round();
                if start >= 1.0 {
                    self.state = State::Climb(start as u64);
                }
            }
            State::Climb(x) if held => {
                self.held = Some(x);
                if x < self.ceiling {
                    self.state = State::Climb(self.grow(x).min(self.ceiling));
                }
            }
            State::Climb(x) if self.held.is_none() => {
                self.crossed = Some(x);
                if x > 1 && self.load == LatencyLoad::Rate {
                    self.state = State::Descend(x / 2);
                }
            }
            State::Descend(x) if !held => {
                self.crossed = Some(x);
                self.descents += 1;
                if x > 1 && self.descents < MAX_DESCENTS {
                    self.state = State::Descend(x / 2);
                }
            }
            State::Climb(x) | State::Descend(x) | State::Refine(x) => {
                if matches!(state, State::Refine(_)) {
                    self.refines += 1;
                }
                if held {
                    self.held = Some(x);
                } else {
                    self.crossed = Some(x);
                }
                self.refine();
            }
        }
    }

    fn grow(&self, x: u64) -> u64 {
        match self.load {
            LatencyLoad::Rate => ((x as f64 * RATE_GROWTH).ceil() as u64).max(x + 1),
            LatencyLoad::Qd | LatencyLoad::Threads => x.saturating_mul(2),
        }
    }

    /// Bisects between the highest load that held and the lowest that did not.
    fn refine(&mut self) {
        let (Some(lo), Some(hi)) = (self.held, self.crossed) else {
            return;
        };
        let (resolution, most) = match self.load {
            LatencyLoad::Rate => (((lo as f64) * RATE_RESOLUTION).max(1.0) as u64, RATE_REFINES),
            LatencyLoad::Qd | LatencyLoad::Threads => (1, MAX_STEPS),
        };
        if hi <= lo || hi - lo <= resolution || self.refines >= most {
            return;
        }
        self.state = State::Refine(lo + (hi - lo) / 2);
    }

    /// The highest load that held; `Some(None)` when the unthrottled probe
    /// held. Reports take it from the stored steps (`metrics::latency_bound`).
    #[cfg(test)]
    pub fn best(&self) -> Option<Option<u64>> {
        if self.probe_held {
            return Some(None);
        }
        self.held.map(Some)
    }
}

/// The highest queue depth or thread count a search of `job` tries: the
/// job's own when it gave more than 1 (fio's `iodepth` caps its search the
/// same way), else a default.
fn ceiling(job: &Job, load: LatencyLoad) -> u64 {
    match load {
        LatencyLoad::Rate => u64::MAX,
        LatencyLoad::Qd if job.qd > 1 => job.qd.into(),
        LatencyLoad::Qd => DEFAULT_QD_CEILING.min(MAX_QD as u64),
        LatencyLoad::Threads if job.threads > 1 => job.threads.into(),
        LatencyLoad::Threads => DEFAULT_THREADS_CEILING.min(MAX_THREADS as u64),
    }
}

/// Refuses what a search cannot honour, before anything runs.
fn check(job: &Job, together: usize) -> Result<(), RunError> {
    if together > 1 {
        return Err(RunError::Invalid(format!(
            "{}: latency_limit: the job runs at the same time as others (group); a latency search raises one job's load",
            job.name
        )));
    }
    let load = job.latency_load.unwrap_or(LatencyLoad::Rate);
    let resolved = super::resolve(job, &mut Vec::new());
    if load == LatencyLoad::Qd && resolved.engine == crate::jobs::EngineKind::Sync {
        return Err(RunError::Invalid(format!(
            "{}: latency_load qd: the sync engine keeps one I/O in flight per thread; use engine io_uring with direct I/O, or latency_load threads",
            job.name
        )));
    }
    Ok(())
}

/// Measures one step of a search where the suite runs and keeps it:
/// `None` ends the search, `Some(None)` is a rank whose steps rank 0 keeps.
pub(super) type MeasureStep<'m> = dyn FnMut(&mut dyn Placement, Job) -> Option<Option<StepVerdict>> + 'm;

/// Measures the steps of `sj`'s search one by one, each through `step`
/// (any kind of workload, on one process or many ranks), which stores the
/// step it keeps and says how it went: `None` ends the search (a failure,
/// kept by the caller), `Some(None)` is a rank whose steps rank 0 keeps.
/// Every place takes the same verdict (`Placement::agree_step`) and stops
/// at the same step on Ctrl-C, keeping the steps measured.
pub(super) fn run_search(
    sj: &SuiteJob,
    together: usize,
    place: &mut dyn Placement,
    stop: &StopFlag,
    step: &mut MeasureStep<'_>,
) -> Result<(), RunError> {
    check(&sj.job, together)?;
    // Every rank's steps draw with one seed, rank 0's.
    let seed = place.agree_seed(sj.job.seed.unwrap_or_else(super::clock_seed));
    drive_search(&sj.job, seed, &mut |job| {
        if place.stopped(stop) {
            return None;
        }
        let kept = step(&mut *place, job)?;
        let v = place.agree_step(kept);
        (!v.incomplete).then_some((v.held, v.achieved_iops))
    })
}

/// Why a rate step is too short to tell whether it carried its rate:
/// fewer than `MIN_STEP_OPS` operations offered over its runtime; `None`
/// when it is long enough, or not a rate step.
fn too_short(job: &Job) -> Option<String> {
    let (Some(rate), Some(step)) = (job.rate_iops, job.latency_step) else {
        return None;
    };
    // A step bounded by a count of I/Os rather than time offers that count.
    let runtime = super::resolve(job, &mut Vec::new())
        .runtime
        .filter(|_| job.io_count.is_none())?;
    let offered = rate as f64 * runtime.as_secs_f64();
    if offered >= MIN_STEP_OPS {
        return None;
    }
    let needed_s = (MIN_STEP_OPS / rate as f64).ceil();
    Some(format!(
        "{}: latency search step {} ({}) would offer {rate} IOPS for {}: {offered:.0} operations, too few to tell whether the target carried that rate (at least {MIN_STEP_OPS:.0}); a runtime of {needed_s:.0}s or more would judge it",
        job.name,
        step.index,
        step.phase.name(),
        crate::jobs::units::format_duration(runtime),
    ))
}

/// How one measured step went, for the search's next load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepVerdict {
    pub held: bool,
    pub achieved_iops: f64,
    pub incomplete: bool,
}

impl StepVerdict {
    /// A step nobody kept: it did not hold, and ends the search.
    pub const NONE: StepVerdict = StepVerdict {
        held: false,
        achieved_iops: 0.0,
        incomplete: true,
    };

    pub fn of(r: &JobResult) -> StepVerdict {
        StepVerdict {
            held: verdict(r).is_some_and(|v| v.held()),
            achieved_iops: achieved_iops(r),
            incomplete: r.incomplete,
        }
    }
}

/// What a step measures, for progress: `db: latency step 2 (climb): 300 IOPS`.
pub(super) fn step_message(job: &Job) -> String {
    let load = job.latency_load.unwrap_or(LatencyLoad::Rate);
    let Some(step) = job.latency_step else {
        return job.name.clone();
    };
    let offered = match load {
        LatencyLoad::Rate => job.rate_iops,
        LatencyLoad::Qd => Some(job.qd.into()),
        LatencyLoad::Threads => Some(job.threads.into()),
    };
    crate::t!(
        "progress-latency-step",
        job = job.name.as_str(),
        step = step.index,
        phase = crate::i18n::heading(step.phase.name()),
        load = match (step.phase, offered) {
            (Phase::Probe, _) | (_, None) => crate::t!("search-unthrottled"),
            (_, Some(n)) => match load {
                LatencyLoad::Threads => crate::t!("search-threads", threads = n),
                _ => format!("{n} {}", load.unit()),
            },
        }
    )
}

/// The search of `job`'s latency bound: each step's job (its load set, the
/// same `seed` for every step, so steps differ only in load) goes to
/// `step`, which measures it and says whether it held and the rate it
/// achieved, or `None` to end the search there.
fn drive_search(
    job: &Job,
    seed: u64,
    step: &mut dyn FnMut(Job) -> Option<(bool, f64)>,
) -> Result<(), RunError> {
    let load = job.latency_load.unwrap_or(LatencyLoad::Rate);
    let mut base = job.clone();
    base.seed = Some(seed);
    let mut search = Search::new(load, ceiling(&base, load));
    let mut index = 0;
    while let Some(next) = search.next() {
        let mut job = base.clone();
        job.latency_step = Some(LatencyStep {
            index,
            phase: next.phase,
        });
        match (load, next.load) {
            (LatencyLoad::Rate, None) => {
                job.rate_iops = None;
                let runtime = job.runtime.unwrap_or(DEFAULT_RUNTIME);
                job.runtime = Some(runtime.min(PROBE_RUNTIME));
            }
            (LatencyLoad::Rate, Some(r)) => job.rate_iops = Some(r),
            (LatencyLoad::Qd, n) => job.qd = n.unwrap_or(1) as u32,
            (LatencyLoad::Threads, n) => job.threads = n.unwrap_or(1) as u32,
        }
        // The rates are known only once the probe set them: a climb that
        // would start too low to judge is refused, the steps measured kept;
        // a descent ends at the lowest rate a step can judge.
        if let Some(why) = too_short(&job) {
            if next.phase == Phase::Descend {
                break;
            }
            return Err(RunError::Invalid(why));
        }
        let Some((held, achieved)) = step(job) else {
            break;
        };
        search.record(held, achieved);
        index += 1;
    }
    Ok(())
}

/// Refuses a search that cannot run (one rank of many checks it before
/// anything starts).
pub fn check_search(job: &Job) -> Result<(), RunError> {
    check(job, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search against a model of a target: `held(load)` says whether
    /// a step at that load (`None`: unthrottled) holds, `iops` what it achieves.
    fn drive(
        mut s: Search,
        held: impl Fn(Option<u64>) -> bool,
        iops: impl Fn(Option<u64>) -> f64,
    ) -> (Search, Vec<Next>) {
        let mut steps = Vec::new();
        while let Some(n) = s.next() {
            steps.push(n);
            s.record(held(n.load), iops(n.load));
            assert!(steps.len() < 100, "the search does not end");
        }
        (s, steps)
    }

    /// A target that carries 2,000 IOPS with latency under the limit up to
    /// 1,200 IOPS and over it beyond: the search ends within 3 % below the knee.
    #[test]
    fn rate_search_finds_the_knee() {
        let knee = 1200;
        let capacity = 2000.0;
        let (s, steps) = drive(
            Search::new(LatencyLoad::Rate, u64::MAX),
            |load| load.is_some_and(|l| l <= knee),
            |load| load.map_or(capacity, |l| (l as f64).min(capacity)),
        );
        let best = s.best().unwrap().unwrap();
        assert!(
            best <= knee && best as f64 >= knee as f64 * 0.97,
            "best {best}, steps {steps:?}"
        );
        assert_eq!(steps[0].phase, Phase::Probe);
        assert_eq!(
            steps[1].load,
            Some(200),
            "the climb starts at a tenth of the probe"
        );
        assert!(steps.iter().any(|n| n.phase == Phase::Refine));
        assert!(steps.len() <= 14, "{} steps", steps.len());
    }

    #[test]
    fn qd_search_finds_the_exact_knee() {
        for knee in [1u64, 3, 12, 16, 100] {
            let (s, steps) = drive(
                Search::new(LatencyLoad::Qd, 256),
                |load| load.unwrap() <= knee,
                |load| load.unwrap() as f64 * 1000.0,
            );
            assert_eq!(s.best(), Some(Some(knee)), "knee {knee}: {steps:?}");
            assert_eq!(steps[0].load, Some(1));
        }
    }

    #[test]
    fn a_bound_never_crossed_or_always_crossed() {
        let (s, steps) = drive(Search::new(LatencyLoad::Rate, u64::MAX), |_| true, |_| 500.0);
        assert_eq!(s.best(), Some(None), "the probe held: it is the answer");
        assert_eq!(steps.len(), 1);
        let (s, steps) = drive(Search::new(LatencyLoad::Threads, 8), |_| true, |_| 1.0);
        assert_eq!(s.best(), Some(Some(8)), "the ceiling held");
        assert_eq!(steps.last().unwrap().load, Some(8));
        let (s, steps) = drive(Search::new(LatencyLoad::Rate, u64::MAX), |_| false, |_| 5000.0);
        assert_eq!(s.best(), None);
        assert!(steps.iter().any(|n| n.phase == Phase::Descend));
        assert!(steps.len() <= 2 + MAX_DESCENTS as usize);
        let (s, _) = drive(Search::new(LatencyLoad::Qd, 64), |_| false, |_| 1.0);
        assert_eq!(s.best(), None);
    }

    /// A step offered fewer than 20 operations cannot be judged: a climb
    /// that would start there is refused, naming the runtime that would
    /// judge it; a descent stops above it.
    #[test]
    fn steps_too_short_to_judge_are_refused_or_not_descended_to() {
        let job = Job {
            runtime: Some(Duration::from_secs(1)),
            latency_limit_ns: Some(1_000_000),
            ..Job::default()
        };
        let mut rates = Vec::new();
        // The probe reached 150 IOPS: the climb would start at 15, 15 operations in 1 s.
        let err = drive_search(&job, 1, &mut |j| {
            rates.push(j.rate_iops);
            Some((false, 150.0))
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("step 1 (climb) would offer 15 IOPS for 1s: 15 operations")
                && err.ends_with("a runtime of 2s or more would judge it"),
            "{err}"
        );
        assert_eq!(rates, [None], "nothing measured after the probe");
        // From 1,000 the climb starts at 100 and crosses; it halves to 50 and
        // 25, and 12 would be too short to judge: the search ends there.
        let mut rates = Vec::new();
        drive_search(&job, 1, &mut |j| {
            rates.push(j.rate_iops);
            Some((false, 1000.0))
        })
        .unwrap();
        assert_eq!(rates, [None, Some(100), Some(50), Some(25)]);
    }

    /// Even the first rate step crossed, a lower one held: the search
    /// descends, then bisects between the two.
    #[test]
    fn rate_search_descends_below_a_crossed_start() {
        let knee = 60;
        let (s, steps) = drive(
            Search::new(LatencyLoad::Rate, u64::MAX),
            |load| load.is_some_and(|l| l <= knee),
            |load| load.map_or(5000.0, |l| l as f64),
        );
        let best = s.best().unwrap().unwrap();
        assert!(
            best <= knee && best as f64 >= knee as f64 * 0.9,
            "best {best}: {steps:?}"
        );
    }
}
