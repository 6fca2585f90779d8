//! The block kind at the seam: a job's prepared targets (files, devices, or
//! the null engine's nothing), each thread a worker on its own engine over
//! its span. What happens before the seam (the span, passes into bytes, the
//! start delay, dropping the cache, verify's setups) is the block kind's
//! prepare; the seam measures.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use super::seam::{self, Kind, Merged, ThreadTally};
use super::{
    Live, Progress, RunError, StopFlag, pause, split, split_bytes, start_gate, thread_span, verify_pass,
};
use crate::engine::{Engine, EngineSetup, NullEngine, SyncEngine, UringEngine};
use crate::jobs::{EngineKind, Job};
use crate::metrics::collect::{DirCollector, IntervalSample};
use crate::metrics::{JobResult, OpKind, TargetFacts, Warning};
use crate::targets::{self, PreparedTarget};
use crate::worker::{WorkerOutput, WorkerPlan, make_buffers, run_worker_checked};

/// One block job on its prepared targets.
struct BlockKind<'a> {
    job: Arc<Job>,
    targets: &'a [PreparedTarget],
    stop: StopFlag,
}

/// Measures a block job on its prepared targets, completing the job as
/// it is stored (target, span, passes as bytes).
pub(super) fn measure(
    job: &mut Job,
    targets: &[PreparedTarget],
    stop: &StopFlag,
    warnings: &mut Vec<Warning>,
    progress: &Progress,
    live: Option<Live<'_>>,
) -> Result<JobResult, RunError> {
    let first = &targets[0];
    if job.target.is_none() && job.engine != EngineKind::Null {
        job.target = Some(first.path.clone());
    }
    job.size_bytes = Some(first.span_bytes);
    // With offset_increment a pass is over one thread's span (fio's clone's size).
    let thread_span = thread_span::each(job, first.span_bytes).map_err(RunError::Invalid)?;
    // Passes become bytes once the span is known, so the stored job repeats exactly.
    if let Some(passes) = job.passes.take() {
        job.io_size_bytes = Some(job.pass_bytes(thread_span).saturating_mul(passes));
    }
    if !job.start_delay.is_zero() {
        pause(job.start_delay, stop);
    }
    // fio's invalidate=1: reads of a buffered job start from the device.
    if !job.direct && !job.keep_cache && job.mem_limit_bytes.is_none() && job.engine != EngineKind::Null {
        for t in targets {
            targets::drop_cache(t)?;
        }
    }
    let mut verify_setups = verify_pass::setups(job, targets)?;
    let inputs = (0..job.threads as usize)
        .map(|t| verify_setups.get_mut(t).and_then(Option::take))
        .collect();
    // fio's steady-state stop ends the job, not the run: its threads heed
    // a flag of their own, which Ctrl-C sets too.
    let steady = super::steady_stop::Judge::of(job);
    let job_stop: StopFlag = match steady {
        Some(_) => Arc::new(std::sync::atomic::AtomicBool::new(false)),
        None => stop.clone(),
    };
    let kind = BlockKind {
        job: Arc::new(job.clone()),
        targets,
        stop: job_stop.clone(),
    };
    let Some(mut judge) = steady else {
        let cx = seam::Ctx {
            stop,
            progress,
            warnings,
            live,
            on_idle: None,
            on_point: None,
        };
        return seam::measure(&kind, job, inputs, cx);
    };
    let mut on_point = |point: &crate::metrics::IntervalPoint| {
        if judge.add(point) {
            job_stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let done = std::sync::atomic::AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        scope.spawn(|| super::steady_stop::forward_stop(stop, &job_stop, &done));
        let cx = seam::Ctx {
            stop,
            progress,
            warnings: &mut *warnings,
            live,
            on_idle: None,
            on_point: Some(&mut on_point),
        };
        let r = seam::measure(&kind, job, inputs, cx);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    warnings.push(judge.verdict(&job.name));
    result
}

impl Kind for BlockKind<'_> {
    type Thread = WorkerOutput;
    type Input = Option<verify_pass::VerifySetup>;

    fn engine_name(&self) -> &'static str {
        self.job.engine.name()
    }

    fn facts(&self) -> TargetFacts {
        self.targets[0].facts.clone()
    }

    fn judged(&self) -> bool {
        self.job.engine != EngineKind::Null
    }

    fn cached_bytes(&self) -> Option<u64> {
        // The null engine moves no data: nothing reaches the page cache.
        let buffered = !self.job.direct && self.job.engine != crate::jobs::EngineKind::Null;
        buffered.then(|| self.targets.iter().map(|t| t.span_bytes).sum())
    }

    fn evict_cache(&self) -> Result<(), RunError> {
        for t in self.targets {
            targets::drop_cache(t)?;
        }
        Ok(())
    }

    fn cache_verdict(&self) -> Option<Warning> {
        targets::scattered_cache(&self.job, self.targets)
    }

    fn run_thread(
        &self,
        thread: u32,
        verify: Self::Input,
        start: Instant,
        samples: Sender<IntervalSample>,
        start_line: &Barrier,
    ) -> WorkerOutput {
        let job = &self.job;
        let prepared = &self.targets[thread as usize % self.targets.len()];
        let (span_start, span_bytes) = thread_span::of(job, prepared, thread);
        let plan = WorkerPlan {
            job: job.clone(),
            thread,
            span_start,
            span_bytes,
            seed: job.seed.unwrap_or(0),
            start,
            ramp: job.ramp,
            runtime: job.runtime,
            op_limit: job.io_count.map(|c| split(c, job.threads, thread)),
            byte_limit: job.io_size_bytes.map(|b| {
                let one_size = job.all_bs().map(|b| b.bytes).min() == Some(job.max_bs());
                split_bytes(b, one_size.then(|| job.max_bs()), job.threads, thread)
            }),
            stop: self.stop.clone(),
            samples,
        };
        worker_thread(plan, prepared, verify, start_gate::StartGate::new(start_line))
    }

    fn tally(o: &WorkerOutput) -> ThreadTally<'_> {
        ThreadTally {
            counts: vec![("read", &o.read), ("write", &o.write), ("trim", &o.trim)],
            measured_ns: o.measured_ns,
            cpu_user_ns: o.cpu_user_ns,
            cpu_system_ns: o.cpu_system_ns,
            fatal: o.fatal.as_deref(),
        }
    }

    fn place(
        &self,
        outputs: &mut [WorkerOutput],
        merged: Merged,
        result: &mut JobResult,
        warnings: &mut Vec<Warning>,
    ) {
        let job = &self.job;
        for (thread, o) in outputs.iter().enumerate() {
            if let Some(what) = &o.below_min_rate {
                warnings.push(Warning::BelowMinRate {
                    job: job.name.clone(),
                    thread: thread as u32,
                    what: what.clone(),
                });
            }
        }
        // Outside the measured time: the read-back of what was written, and what verify found.
        verify_pass::finish(job, self.targets, outputs, warnings);
        let elapsed = merged.elapsed_ns;
        let none = DirCollector::default();
        let of = |name: &str| merged.get(name).unwrap_or(&none).result(elapsed);
        result.read = job.does_reads().then(|| of("read"));
        result.write = job.does_writes().then(|| of("write"));
        // Trims are their own kind of operation, as fio's JSON has its own `trim`.
        if job.does_trims() {
            result.operations.insert(OpKind::Trim, of("trim"));
        }
        result.syncs = outputs.iter().map(|o| o.syncs).sum();
    }

    fn verdict_after(&self, result: &JobResult) -> Option<Warning> {
        targets::verdict_after(result, self.targets)
    }

    fn watched(&self) -> Vec<std::path::PathBuf> {
        self.targets.iter().map(|t| t.path.clone()).collect()
    }
}

fn worker_thread(
    plan: WorkerPlan,
    target: &PreparedTarget,
    verify: Option<verify_pass::VerifySetup>,
    gate: start_gate::StartGate<'_>,
) -> WorkerOutput {
    let job = plan.job.clone();
    let engine = job.engine;
    let file = if engine == EngineKind::Null {
        None
    } else {
        let sync = crate::jobs::open_sync::OpenSync::flag(job.open_sync);
        match targets::open_with(target, job.direct, job.modifies(), sync) {
            Ok(f) => Some(f),
            Err(e) => {
                return WorkerOutput {
                    fatal: Some(e.to_string()),
                    ..Default::default()
                };
            }
        }
    };
    let fd = file.as_ref().map(std::os::fd::AsRawFd::as_raw_fd).unwrap_or(-1);
    let buffers = make_buffers(&job, plan.seed);
    let verifier = match verify {
        Some(v) => Some(v.verifier(plan.thread, plan.span_start, plan.span_bytes, &buffers, job.qd)),
        // Written data reaches a device: make every written block unique (fio's scramble_buffers).
        // A buffer_pattern is written as given (fio writes it unscrambled).
        None if engine != EngineKind::Null
            && job.does_writes()
            && job.fill != crate::jobs::Fill::Zero
            && job.buffer_pattern.is_none() =>
        {
            Some(
                crate::worker::Verifier::scrambler(plan.thread, job.qd as usize, &buffers).with_dedupe(
                    job.dedupe_pct,
                    plan.seed ^ u64::from(plan.thread),
                    working_set(&job, &plan),
                ),
            )
        }
        None => None,
    };
    let setup = EngineSetup {
        fd,
        queue_depth: job.qd,
        buffers: &buffers,
    };
    // The clock starts when every thread of the job is set up (start_gate.rs).
    fn go<E: Engine>(
        mut plan: WorkerPlan,
        mut e: E,
        v: Option<crate::worker::Verifier>,
        mut gate: start_gate::StartGate<'_>,
    ) -> WorkerOutput {
        plan.start = gate.pass();
        run_worker_checked(plan, &mut e, v)
    }
    match engine {
        EngineKind::Null => go(plan, NullEngine::new(job.qd), verifier, gate),
        EngineKind::Sync => go(plan, SyncEngine::new(&setup), verifier, gate),
        EngineKind::Auto => unreachable!("resolve() picks the engine"),
        EngineKind::IoUring => match UringEngine::new(&setup) {
            Ok(e) => go(plan, e, verifier, gate),
            Err(e) => WorkerOutput {
                fatal: Some(format!("io_uring setup failed: {e}")),
                ..Default::default()
            },
        },
    }
}

/// fio's dedupe working set of the thread: `span x PCT / smallest write`
/// blocks, seeded by the job and thread, or by nothing with `dedupe_global`.
fn working_set(job: &crate::jobs::Job, plan: &WorkerPlan) -> Option<crate::worker::dedupe::WorkingSet> {
    (job.dedupe_working_set_pct > 0).then(|| {
        let bs = job.all_bs().map(|b| b.bytes).min().unwrap_or(4096).max(1);
        crate::worker::dedupe::WorkingSet {
            blocks: (plan.span_bytes * u64::from(job.dedupe_working_set_pct) / 100 / bs).max(1),
            fill: job.fill,
            seed: if job.dedupe_global {
                0x6465_6475_7065
            } else {
                plan.seed ^ u64::from(plan.thread).rotate_left(32)
            },
        }
    })
}
