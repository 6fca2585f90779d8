//! The one loop every suite runs through, in one process or as one rank of
//! many: pauses between tests, Ctrl-C, the latency search, rounds until
//! steady, jobs that run together, storing each job as it ends, failure
//! handling (what was measured is kept, as incomplete), cleanup and the
//! `RunResult`. Where the suite runs is a `Placement`: `OneProcess` adds
//! nothing; `cluster::rank` adds what ranks add (their jobs, meetings,
//! merging) at the fixed points of the trait.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{
    Kinds, Progress, RunError, RunOptions, RunSink, Start, StopFlag, SuiteJob, check_before_io, group,
    latency_bound, now_unix_s, pause, rounds,
};
use crate::fileset::Stonewall;
use crate::jobs::fileset::FileSetParams;
use crate::jobs::{EngineKind, Job};
use crate::metrics::{JobResult, RunResult, Warning};
use crate::targets::{self, PreparedTarget};

pub use super::latency_bound::StepVerdict;

/// The suite's jobs as `run_placed` runs them here: `jobs` as the suite
/// gave them (with what runs before them placed), `own[i]` job `i` as this
/// place measures it (one rank's file or share).
pub struct Placed {
    pub jobs: Vec<SuiteJob>,
    pub own: Vec<Job>,
}

/// Where a suite runs. The runner calls it at fixed points; every rank of
/// many calls it at the same points in the same order, so a hook may meet
/// the other ranks.
pub trait Placement {
    /// Before the first job: the jobs as they run here, or why they cannot.
    /// Nothing was created yet.
    fn place(&mut self, jobs: &[SuiteJob], opts: &RunOptions) -> Result<Placed, RunError>;

    /// Whether the run stops before the next job or search step (Ctrl-C);
    /// every rank gives the same answer.
    fn stopped(&mut self, stop: &StopFlag) -> bool {
        stop.load(Ordering::Relaxed)
    }

    /// Job `i` (`job` as the suite gave it, `own` as it runs here) measured
    /// through `bench`. `Some` is the result this place keeps and stores;
    /// `None` a rank whose results rank 0 keeps. A failure after measuring
    /// goes to `Bench::fail`, and the run ends after this job.
    fn measure(
        &mut self,
        i: usize,
        job: &SuiteJob,
        own: &Job,
        bench: &mut Bench<'_>,
    ) -> Result<Option<JobResult>, RunError>;

    /// The seed every step of a latency search draws with.
    fn agree_seed(&mut self, seed: u64) -> u64 {
        seed
    }

    /// This place's part of a search step `step` of job `own`.
    fn share_step(&self, step: &Job, own: &Job) -> Job {
        let _ = own;
        step.clone()
    }

    /// The verdict on a step every place takes (`kept`: this place's, if it kept the step).
    fn agree_step(&mut self, kept: Option<StepVerdict>) -> StepVerdict {
        kept.unwrap_or(StepVerdict::NONE)
    }

    /// After the run's test files and sets are removed (or kept).
    fn cleaned_up(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        let _ = (keep, warnings);
    }

    /// The hosts the run's jobs ran on, for `RunResult::hosts`: none for one process.
    fn hosts(&self) -> Vec<crate::metrics::HostFacts> {
        Vec::new()
    }
}

/// A suite in this one process: the jobs checked before any I/O, each
/// measured with its intervals going live to the run's sink.
pub struct OneProcess;

impl Placement for OneProcess {
    fn place(&mut self, jobs: &[SuiteJob], opts: &RunOptions) -> Result<Placed, RunError> {
        // Preconditioning runs as jobs of its own, checked before anything runs like the others.
        let jobs = check_before_io(jobs, opts)?;
        let own = jobs.iter().map(|j| j.job.clone()).collect();
        Ok(Placed { jobs, own })
    }

    fn measure(
        &mut self,
        _i: usize,
        job: &SuiteJob,
        own: &Job,
        bench: &mut Bench<'_>,
    ) -> Result<Option<JobResult>, RunError> {
        bench.measure(own, job.test.as_deref()).map(Some)
    }
}

/// What a run lends a placement to measure one job with: the kinds it
/// keeps from job to job, the test files made, the warnings so far.
pub struct Bench<'a> {
    opts: &'a RunOptions,
    stop: &'a StopFlag,
    /// Shared by the runs that take turns (`run_interleaved`): one display.
    progress: &'a Progress,
    warnings: Vec<Warning>,
    created: Vec<PreparedTarget>,
    kinds: Kinds,
    /// The first failure; the run ends after the job it came with.
    failure: Option<RunError>,
    sink: &'a mut dyn RunSink,
}

impl<'a> Bench<'a> {
    pub fn opts(&self) -> &'a RunOptions {
        self.opts
    }

    pub fn stop(&self) -> &'a StopFlag {
        self.stop
    }

    pub fn progress(&self) -> &Progress {
        self.progress
    }

    pub fn warnings(&mut self) -> &mut Vec<Warning> {
        &mut self.warnings
    }

    /// Ends the run after the job measuring now, keeping what it measured.
    pub fn fail(&mut self, e: RunError) {
        self.failure = self.failure.take().or(Some(e));
    }

    fn cx(&mut self) -> (&mut Kinds, rounds::Ctx<'_>, &mut Option<RunError>) {
        let cx = rounds::Ctx {
            opts: self.opts,
            stop: self.stop,
            warnings: &mut self.warnings,
            progress: self.progress,
            created: &mut self.created,
            sink: &mut *self.sink,
        };
        (&mut self.kinds, cx, &mut self.failure)
    }

    /// One job of any kind, measured at once, its intervals going live to
    /// the run's sink as test `test`.
    pub fn measure(&mut self, job: &Job, test: Option<&str>) -> Result<JobResult, RunError> {
        let (kinds, cx, failure) = self.cx();
        kinds.measure(job, Start::Now(test), cx, failure)
    }

    /// One job of any kind that many ranks measure together: `ready` runs
    /// once it is prepared, right before the ramp.
    pub fn measure_synced(
        &mut self,
        job: &Job,
        ready: &mut dyn FnMut() -> Result<(), RunError>,
    ) -> Result<JobResult, RunError> {
        let (kinds, cx, failure) = self.cx();
        kinds.measure(job, Start::Synced(ready), cx, failure)
    }

    /// A file-set job whose create phase is stonewalled (IO500's mdtest `-W`).
    pub fn measure_stonewalled(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        ready: &mut dyn FnMut() -> Result<(), RunError>,
        wall: &mut Stonewall<'_>,
    ) -> Result<JobResult, RunError> {
        let (stop, progress) = (self.stop, self.progress);
        self.kinds
            .filesets
            .run_stonewalled(job, p, stop, progress, &mut self.warnings, ready, wall)
    }

    /// Makes the target many ranks share before any of them opens it: the
    /// file set `mine` runs on, or `job`'s test file when it is missing.
    /// Removed with the run's other test files.
    pub fn prepare_shared(&mut self, job: &Job, mine: &Job) -> Result<(), RunError> {
        let (stop, progress) = (self.stop, self.progress);
        let made =
            self.kinds
                .prepare_shared(job, mine, &self.opts.target, stop, progress, &mut self.warnings)?;
        self.created.extend(made);
        Ok(())
    }
}

/// Runs a suite's jobs in order in this process, pausing `opts.pause` between them.
pub fn run_suite(
    jobs: &[SuiteJob],
    opts: &RunOptions,
    stop: &StopFlag,
    sink: &mut dyn RunSink,
) -> Result<RunResult, RunError> {
    run_placed(jobs, opts, stop, sink, &mut OneProcess)
}

/// Runs a suite's jobs in order where `place` says. A failure keeps the
/// jobs measured before it (the run is incomplete); with none measured it
/// is the error.
pub fn run_placed(
    jobs: &[SuiteJob],
    opts: &RunOptions,
    stop: &StopFlag,
    sink: &mut dyn RunSink,
    place: &mut dyn Placement,
) -> Result<RunResult, RunError> {
    let Placed { jobs, own } = place.place(jobs, opts)?;
    // Capped jobs keep one memory cgroup until the run ends (memcg.rs).
    let _memory_caps = super::memcg::RunScope::open();
    let started_unix_s = now_unix_s();
    let progress = Progress::new(opts.quiet);
    let mut run = Suite::new(opts, stop, &progress, sink);
    plan(&progress, opts, &jobs);
    let mut i = 0;
    while i < jobs.len() {
        if pauses_before(opts, &jobs, i) {
            pause(opts.pause, stop);
        }
        run.bench.progress.step(i);
        if place.stopped(stop) {
            break;
        }
        i += run.step(place, &jobs, &own, i);
        if run.bench.failure.is_some() {
            break;
        }
    }
    run.finish(place, &jobs, started_unix_s)
}

/// One target's run among several that take turns (`run_interleaved`):
/// its jobs as `run_suite` takes them, its options (its label) and where
/// its jobs are stored as they end.
pub struct Lane<'a> {
    pub jobs: Vec<SuiteJob>,
    pub opts: &'a RunOptions,
    pub sink: &'a mut dyn RunSink,
}

/// Runs several targets' suites taking turns, step by step (`kura mark A B
/// C`: pass 1 of A, of B, of C, then pass 2 of each...), so that what
/// drifts on the machine while they run falls on every target alike. Each
/// lane is the run its target would get alone, measured by the same loop
/// and stored in its own sink as each job ends. Every lane's jobs pass the
/// checks before the first I/O (`check_before_io`) before any lane starts:
/// a refusal of the last target leaves the first untouched. A failure of
/// one lane ends them all (the turns would no longer alternate); the others
/// keep what they measured, as incomplete. One outcome per lane, in order.
pub fn run_interleaved(
    lanes: Vec<Lane<'_>>,
    stop: &StopFlag,
) -> Result<Vec<Result<RunResult, RunError>>, RunError> {
    let placed: Vec<Placed> = lanes
        .iter()
        .map(|l| OneProcess.place(&l.jobs, l.opts))
        .collect::<Result<_, _>>()?;
    let Some(opts) = lanes.first().map(|l| l.opts) else {
        return Ok(Vec::new());
    };
    let _memory_caps = super::memcg::RunScope::open();
    let started_unix_s = now_unix_s();
    let progress = Progress::new(opts.quiet);
    let turns = turns(&placed);
    // The job each turn starts with, in the order they run: pauses and the
    // plan are `run_suite`'s, over the runs' steps as they alternate.
    let firsts: Vec<SuiteJob> = turns.iter().map(|&(l, i)| placed[l].jobs[i].clone()).collect();
    plan(&progress, opts, &firsts);
    let mut runs: Vec<Suite> = lanes
        .into_iter()
        .map(|l| Suite::new(l.opts, stop, &progress, l.sink))
        .collect();
    for (n, &(l, i)) in turns.iter().enumerate() {
        if pauses_before(opts, &firsts, n) {
            pause(opts.pause, stop);
        }
        progress.step(n);
        if stop.load(Ordering::Relaxed) {
            break;
        }
        runs[l].step(&mut OneProcess, &placed[l].jobs, &placed[l].own, i);
        if runs[l].bench.failure.is_some() {
            break;
        }
    }
    let failed = runs.iter().enumerate().find_map(|(l, r)| {
        r.bench.failure.as_ref().map(|e| {
            let target = placed[l].jobs.first().map(|j| targets::job_path(&j.job));
            match target {
                Some(t) => format!("{}: {e}", t.display()),
                None => e.to_string(),
            }
        })
    });
    let mut outcomes: Vec<Result<RunResult, RunError>> = runs
        .into_iter()
        .zip(&placed)
        .map(|(r, p)| r.finish(&mut OneProcess, &p.jobs, started_unix_s))
        .collect();
    if let Some(why) = failed {
        for r in outcomes.iter_mut().flatten() {
            if r.warnings
                .iter()
                .any(|w| matches!(w, Warning::StoppedAfterFailure { .. }))
            {
                continue;
            }
            r.incomplete = true;
            r.warnings
                .push(Warning::StoppedAfterFailure { error: why.clone() });
        }
    }
    Ok(outcomes)
}

/// The order lanes take their steps in: each lane one step in turn, a step
/// being what `Suite::step` measures at once (a job, a group, a round).
fn turns(placed: &[Placed]) -> Vec<(usize, usize)> {
    let mut at = vec![0; placed.len()];
    let mut turns = Vec::new();
    loop {
        let before = turns.len();
        for (l, p) in placed.iter().enumerate() {
            if at[l] < p.jobs.len() {
                turns.push((l, at[l]));
                at[l] += step_len(&p.jobs, at[l]);
            }
        }
        if turns.len() == before {
            return turns;
        }
    }
}

/// How many jobs of the list the step at `i` measures: its group (jobs that
/// run together, a latency search's), or a PTS test's round of points.
fn step_len(jobs: &[SuiteJob], i: usize) -> usize {
    match jobs[i].rounds {
        Some(m) if jobs[i].job.latency_limit_ns.is_none() => (i + m.points).min(jobs.len()) - i,
        _ => group::len_at(jobs, i),
    }
}

/// Each step's expected time (its pause before it included), for progress.
fn plan(progress: &Progress, opts: &RunOptions, jobs: &[SuiteJob]) {
    let each = jobs.iter().enumerate().map(|(i, j)| {
        let pause = match pauses_before(opts, jobs, i) {
            true => opts.pause,
            false => Duration::ZERO,
        };
        j.job.workload.kind().expected_duration(&j.job).map(|d| d + pause)
    });
    progress.plan(each.collect());
}

/// Whether a pause comes before job `i`: CrystalDiskMark's pause between
/// tests (`pause_between_tests`), not between a test's passes.
fn pauses_before(opts: &RunOptions, jobs: &[SuiteJob], i: usize) -> bool {
    i > 0 && !opts.pause.is_zero() && (!opts.pause_between_tests || new_test(jobs, i))
}

/// Whether job `i` starts another test or direction than the job before it.
fn new_test(jobs: &[SuiteJob], i: usize) -> bool {
    let (a, b) = (&jobs[i - 1], &jobs[i]);
    a.test != b.test || a.job.rw != b.job.rw
}

/// One run of the loop: the bench and what it kept.
struct Suite<'a> {
    bench: Bench<'a>,
    results: Vec<JobResult>,
}

impl<'a> Suite<'a> {
    fn new(
        opts: &'a RunOptions,
        stop: &'a StopFlag,
        progress: &'a Progress,
        sink: &'a mut dyn RunSink,
    ) -> Self {
        Suite {
            bench: Bench {
                opts,
                stop,
                progress,
                warnings: Vec::new(),
                created: Vec::new(),
                kinds: Kinds::default(),
                failure: None,
                sink,
            },
            results: Vec::new(),
        }
    }

    /// Measures job `i` the way it asks (a search, rounds, a group, once);
    /// how many jobs of the list that took.
    fn step(&mut self, place: &mut dyn Placement, jobs: &[SuiteJob], own: &[Job], i: usize) -> usize {
        // Neighbours with the same group run at the same time, as fio's jobs between stonewalls do.
        let together = step_len(jobs, i);
        let job = &jobs[i].job;
        if job.latency_limit_ns.is_some() {
            // Latency-bounded capacity: one job, measured at many loads.
            self.search(place, i, &jobs[i], &own[i], together);
            return together;
        }
        if let Some(m) = jobs[i].rounds {
            // A PTS test's points, each round all of them (jobs::pts).
            self.rounds(&jobs[i..i + together], &m.tracked.indices(), m.figure);
            return together;
        }
        if let (Some(tracked), 1) = (job.until_steady, together)
            && !job.workload.kind().measured_whole()
        {
            self.rounds(std::slice::from_ref(&jobs[i]), &[0], tracked);
            return 1;
        }
        if together == 1 || !job.workload.kind().runs_in_groups() {
            match place.measure(i, &jobs[i], &own[i], &mut self.bench) {
                Ok(Some(r)) => self.keep(r, &jobs[i].test),
                Ok(None) => {}
                Err(e) => self.bench.fail(e),
            }
            return together;
        }
        let group = &jobs[i..i + together];
        let b = &mut self.bench;
        let outcomes =
            group::run_together(group, b.opts, b.stop, &mut b.warnings, b.progress, &mut b.created);
        for (sj, outcome) in group.iter().zip(outcomes) {
            match outcome {
                Ok(r) => self.keep(r, &sj.test),
                Err(e) => self.bench.fail(e),
            }
        }
        together
    }

    /// A measured job, judged for changes over its run, stored and kept.
    fn keep(&mut self, mut r: JobResult, test: &Option<String>) {
        r.test = test.clone();
        // The null engine's rate follows the CPU kura gets, not a device.
        if r.job.engine != EngineKind::Null {
            self.bench.warnings.extend(crate::metrics::warning::of_job(&r));
        }
        self.bench.sink.job_done(&r);
        self.results.push(r);
    }

    /// A latency-bounded search: each step measured through `place`, kept
    /// as a job of its own.
    fn search(&mut self, place: &mut dyn Placement, i: usize, sj: &SuiteJob, own: &Job, together: usize) {
        let stop = self.bench.stop;
        let mut step = |place: &mut dyn Placement, job: Job| {
            self.bench.progress.message(&latency_bound::step_message(&job));
            let mine = place.share_step(&job, own);
            let step = SuiteJob {
                test: sj.test.clone(),
                job,
                rounds: None,
            };
            let kept = match place.measure(i, &step, &mine, &mut self.bench) {
                Ok(kept) => kept,
                Err(e) => {
                    self.bench.fail(e);
                    return None;
                }
            };
            let verdict = kept.map(|mut r| {
                let verdict = StepVerdict::of(&r);
                r.test = sj.test.clone();
                self.bench.sink.job_done(&r);
                self.results.push(r);
                verdict
            });
            // A step that measured and then failed is kept, and ends the search.
            self.bench.failure.is_none().then_some(verdict)
        };
        if let Err(e) = latency_bound::run_search(sj, together, place, stop, &mut step) {
            self.bench.fail(e);
        }
    }

    /// A round of jobs repeated until every one at `tracked_at` is steady,
    /// each through the one dispatch of kinds (a file set's rounds run on its set).
    fn rounds(&mut self, round: &[SuiteJob], tracked_at: &[usize], tracked: crate::metrics::steady::Tracked) {
        let Bench {
            opts,
            stop,
            progress,
            warnings,
            created,
            kinds,
            failure,
            sink,
        } = &mut self.bench;
        let mut measure = |job: &Job, test: &str, sink: &mut dyn RunSink, warnings: &mut Vec<Warning>| {
            let cx = rounds::Ctx {
                opts,
                stop,
                warnings,
                progress,
                created,
                sink,
            };
            kinds.measure(job, Start::Now(Some(test)), cx, failure)
        };
        let outcome = rounds::run_rounds(
            round,
            tracked_at,
            tracked,
            stop,
            progress,
            warnings,
            &mut **sink,
            &mut self.results,
            &mut measure,
        );
        if let Err(e) = outcome {
            self.bench.fail(e);
        }
    }

    /// Cleanup, then the run: what was measured is kept after a failure.
    fn finish(
        self,
        place: &mut dyn Placement,
        jobs: &[SuiteJob],
        started_unix_s: i64,
    ) -> Result<RunResult, RunError> {
        let Suite {
            bench:
                Bench {
                    opts,
                    stop,
                    mut warnings,
                    created,
                    mut kinds,
                    failure,
                    ..
                },
            results,
        } = self;
        kinds.cleanup(opts.keep, &mut warnings);
        if !opts.keep {
            for t in &created {
                if let Err(e) = targets::cleanup(t) {
                    warnings.push(Warning::TestFileNotRemoved { error: e.to_string() });
                }
            }
        } else {
            created.iter().for_each(targets::keep);
        }
        place.cleaned_up(opts.keep, &mut warnings);
        if let Some(e) = failure {
            if results.is_empty() {
                return Err(e);
            }
            // Keep what the earlier jobs measured: the run is stored as incomplete.
            warnings.push(Warning::StoppedAfterFailure { error: e.to_string() });
            stop.store(true, Ordering::Relaxed);
        }
        let label = opts
            .label
            .clone()
            .or_else(|| jobs.iter().find_map(|j| j.job.label.clone()));
        Ok(RunResult {
            id: None,
            kura_version: env!("CARGO_PKG_VERSION").to_string(),
            started_unix_s,
            label,
            price: opts.price.clone(),
            suite: opts.suite.clone(),
            host: targets::host_facts(),
            hosts: place.hosts(),
            interleaved_with: Vec::new(),
            incomplete: stop.load(Ordering::Relaxed) || results.iter().any(|r| r.incomplete),
            jobs: results,
            warnings: crate::metrics::warning::one_per_cause(warnings),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;

    #[test]
    fn mark_pauses_where_the_test_or_direction_changes_not_between_passes() {
        let at = |test: &str, rw: Rw| SuiteJob {
            test: Some(test.into()),
            job: Job { rw, ..Job::default() },
            rounds: None,
        };
        let jobs = [
            at("SEQ1M Q8T1", Rw::Read),
            at("SEQ1M Q8T1", Rw::Read),
            at("RND4K Q1T1", Rw::RandRead),
            at("SEQ1M Q8T1", Rw::Write),
            at("SEQ1M Q8T1", Rw::Rw),
        ];
        let pauses: Vec<bool> = (1..jobs.len()).map(|i| new_test(&jobs, i)).collect();
        assert_eq!(pauses, [false, true, true, true]);
    }
}
