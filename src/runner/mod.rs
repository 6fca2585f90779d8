//! Running jobs: target preparation, threads, ramp and stop conditions,
//! progress, Ctrl-C (stop, keep what was measured, clean up), and the
//! assembly of a `RunResult`. Formats nothing for the reader.

mod group;
mod plan;
mod progress;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use thiserror::Error;

use crate::engine::{Engine, EngineSetup, NullEngine, SyncEngine, UringEngine, probe_io_uring};
use crate::metrics::collect::{DirCollector, SeriesBuilder};
use crate::metrics::{JobResult, RunResult, TargetFacts, TargetKind};
use crate::spec::job::{DEFAULT_FILE_SIZE, DEFAULT_RUNTIME};
use crate::spec::{EngineKind, Job};
use crate::target::{self, PreparedTarget, TargetError, TargetOptions};
use crate::worker::{WorkerOutput, WorkerPlan, make_buffers, run_worker};

pub use plan::run_plan;
pub use progress::Progress;

#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("{0}")]
    Invalid(String),
}

/// How a run behaves, apart from its jobs.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub target: TargetOptions,
    /// Keep test files kura created.
    pub keep: bool,
    pub quiet: bool,
    pub label: Option<String>,
    pub price: Option<String>,
    pub suite: Option<String>,
    /// Pause between jobs (CrystalDiskMark's interval).
    pub pause: Duration,
}

/// Sleeps, waking early for Ctrl-C.
fn pause(total: Duration, stop: &StopFlag) {
    let until = Instant::now() + total;
    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(Instant::now())));
    }
}

/// Set by Ctrl-C; workers poll it once per loop turn.
pub type StopFlag = Arc<AtomicBool>;

fn now_unix_s() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn push_once(warnings: &mut Vec<String>, warning: String) {
    if !warnings.contains(&warning) {
        warnings.push(warning);
    }
}

/// Fills in what the job left to defaults, so the stored job repeats exactly.
pub fn resolve(job: &Job, warnings: &mut Vec<String>) -> Job {
    let mut job = job.clone();
    if job.runtime.is_none() && job.io_size_bytes.is_none() && job.io_count.is_none() && job.passes.is_none()
    {
        job.runtime = Some(DEFAULT_RUNTIME);
    }
    let named = job.engine;
    job.engine = named.for_io(job.direct);
    // Picked here, not in the worker, so the stored job repeats exactly.
    if job.seed.is_none() {
        job.seed = Some(clock_seed());
    }
    // Probed once per process: the answer does not change between jobs.
    static IO_URING: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    if job.engine == EngineKind::IoUring
        && let Err(why) = IO_URING.get_or_init(probe_io_uring)
    {
        push_once(
            warnings,
            format!("io_uring is not available here ({why}); using the sync engine"),
        );
        job.engine = EngineKind::Sync;
    }
    if job.engine == EngineKind::Sync && job.qd > 1 && named == EngineKind::Auto && !job.direct {
        push_once(
            warnings,
            format!(
                "{}: buffered I/O runs on the sync engine (pread/pwrite, what applications calling write() see), one I/O in flight per thread; qd {} ran as qd 1 (--engine io_uring queues buffered I/O, which the kernel hands to worker threads)",
                job.name, job.qd
            ),
        );
        job.qd = 1;
    }
    if job.engine == EngineKind::Sync && job.qd > 1 {
        warnings.push(format!(
            "{}: the sync engine keeps one I/O in flight per thread; qd {} ran as qd 1",
            job.name, job.qd
        ));
        job.qd = 1;
    }
    job
}

/// A seed for a job that named none: differs between runs, and is stored.
fn clock_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    0x6b75_7261 ^ nanos ^ ((std::process::id() as u64) << 32)
}

fn null_target(job: &Job) -> PreparedTarget {
    let size = job.size_bytes.unwrap_or(DEFAULT_FILE_SIZE);
    PreparedTarget {
        path: "(null engine)".into(),
        kind: TargetKind::File,
        span_start: job.offset_bytes,
        span_bytes: size.saturating_sub(job.offset_bytes).max(job.max_bs()),
        logical_block_bytes: 512,
        created: false,
        facts: TargetFacts {
            path: "(null engine)".into(),
            kind: TargetKind::File,
            fs_type: None,
            device: None,
            device_model: None,
            rotational: None,
            size_bytes: size,
            logical_block_bytes: 512,
            created: false,
        },
    }
}

fn split(total: u64, parts: u32, index: u32) -> u64 {
    total / parts as u64 + u64::from((index as u64) < total % parts as u64)
}

fn worker_thread(plan: WorkerPlan, target: &PreparedTarget, engine: EngineKind) -> WorkerOutput {
    let job = plan.job.clone();
    let file = if engine == EngineKind::Null {
        None
    } else {
        match target::open(target, job.direct, job.does_writes()) {
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
    let setup = EngineSetup {
        fd,
        queue_depth: job.qd,
        buffers: &buffers,
    };
    fn go<E: Engine>(plan: WorkerPlan, mut e: E) -> WorkerOutput {
        run_worker(plan, &mut e)
    }
    match engine {
        EngineKind::Null => go(plan, NullEngine::new(job.qd)),
        EngineKind::Sync => go(plan, SyncEngine::new(&setup)),
        EngineKind::Auto => unreachable!("resolve() picks the engine"),
        EngineKind::IoUring => match UringEngine::new(&setup) {
            Ok(e) => go(plan, e),
            Err(e) => WorkerOutput {
                fatal: Some(format!("io_uring setup failed: {e}")),
                ..Default::default()
            },
        },
    }
}

/// Runs one job to completion (or until `stop`). A test file it creates is
/// added to `created`, for the caller to remove when all jobs are done.
pub fn run_job(
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    warnings: &mut Vec<String>,
    progress: &Progress,
    created: &mut Vec<PreparedTarget>,
) -> Result<JobResult, RunError> {
    let mut job = resolve(job, warnings);
    let prepared = prepare_job(&job, opts, stop, progress)?;
    let result = measure(&mut job, &prepared, stop, warnings, progress);
    created.extend(prepared.into_iter().filter(|p| p.created));
    result
}

/// The targets a resolved job loads; a pre-fill in progress stops at Ctrl-C.
fn prepare_job(
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    progress: &Progress,
) -> Result<Vec<PreparedTarget>, RunError> {
    if job.engine == EngineKind::Null {
        return Ok(vec![null_target(job)]);
    }
    progress.message(&format!(
        "{}: preparing {}",
        job.name,
        target::job_path(job).display()
    ));
    let target_opts = TargetOptions {
        stop: Some(stop.clone()),
        ..opts.target.clone()
    };
    prepare_targets(job, &target_opts)
}

/// The job's target, or with `file_per_thread` one file per thread (`PATH.N`).
fn prepare_targets(job: &Job, opts: &TargetOptions) -> Result<Vec<PreparedTarget>, RunError> {
    if !job.file_per_thread {
        return Ok(vec![target::prepare(job, opts)?]);
    }
    let base = target::job_path(job);
    if target::is_block_device(&base) {
        return Err(RunError::Invalid(format!(
            "{}: file_per_thread needs a file path, not a block device",
            base.display()
        )));
    }
    (0..job.threads)
        .map(|i| {
            let mut per_thread = job.clone();
            let mut name = base.clone().into_os_string();
            name.push(format!(".{i}"));
            per_thread.target = Some(name.into());
            Ok(target::prepare(&per_thread, opts)?)
        })
        .collect()
}

fn measure(
    job: &mut Job,
    targets: &[PreparedTarget],
    stop: &StopFlag,
    warnings: &mut Vec<String>,
    progress: &Progress,
) -> Result<JobResult, RunError> {
    let first = &targets[0];
    if job.target.is_none() && job.engine != EngineKind::Null {
        job.target = Some(first.path.clone());
    }
    job.size_bytes = Some(first.span_bytes);
    // Passes become bytes once the span is known, so the stored job repeats exactly.
    if let Some(passes) = job.passes.take() {
        job.io_size_bytes = Some(first.span_bytes.saturating_mul(passes));
    }
    if !job.start_delay.is_zero() {
        pause(job.start_delay, stop);
    }
    if !job.direct && !job.keep_cache && job.engine != EngineKind::Null {
        for t in targets {
            target::drop_cache(t)?;
        }
    }
    if !job.direct {
        let memory = target::host_facts().memory_bytes;
        let span: u64 = targets.iter().map(|t| t.span_bytes).sum();
        if span < memory {
            let warning = format!(
                "buffered I/O on {} MB of test data while the machine has {} MB of RAM: the page cache can hold it all, so the numbers may measure memory, not the device",
                span / 1_000_000,
                memory / 1_000_000
            );
            push_once(warnings, warning);
        }
    }
    let job = Arc::new(job.clone());
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    let measure_start_unix_ms = (SystemTime::now() + job.ramp)
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let engine = job.engine;
    let (outputs, series): (Vec<WorkerOutput>, SeriesBuilder) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..job.threads)
            .map(|thread| {
                let prepared = &targets[thread as usize % targets.len()];
                let plan = WorkerPlan {
                    job: job.clone(),
                    thread,
                    span_start: prepared.span_start,
                    span_bytes: prepared.span_bytes,
                    seed: job.seed.unwrap_or(0),
                    start,
                    ramp: job.ramp,
                    runtime: job.runtime,
                    op_limit: job.io_count.map(|c| split(c, job.threads, thread)),
                    byte_limit: job.io_size_bytes.map(|b| split(b, job.threads, thread)),
                    stop: stop.clone(),
                    samples: tx.clone(),
                };
                std::thread::Builder::new()
                    .name(format!("kura-{}-{thread}", job.name))
                    .spawn_scoped(scope, move || worker_thread(plan, prepared, engine))
                    .expect("spawning a worker thread")
            })
            .collect();
        drop(tx);
        let mut series = SeriesBuilder::default();
        progress.start_job(&job);
        for sample in rx.iter() {
            series.add(&sample);
            progress.sample(&sample, job.threads);
        }
        progress.finish_job();
        let outputs = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect();
        (outputs, series)
    });

    if let Some(fatal) = outputs.iter().find_map(|o| o.fatal.clone()) {
        if outputs.iter().all(|o| o.fatal.is_some()) {
            return Err(RunError::Invalid(format!("{}: {fatal}", job.name)));
        }
        warnings.push(format!("{}: a worker stopped early: {fatal}", job.name));
    }
    let mut read = DirCollector::default();
    let mut write = DirCollector::default();
    let (mut user, mut system, mut syncs, mut elapsed) = (0, 0, 0, 0);
    for o in &outputs {
        read.merge(&o.read);
        write.merge(&o.write);
        user += o.cpu_user_ns;
        system += o.cpu_system_ns;
        syncs += o.syncs;
        elapsed = elapsed.max(o.measured_ns);
    }
    for (name, d) in [("read", &read), ("write", &write)] {
        if d.errors > 0 {
            warnings.push(format!(
                "{}: {} {name} errors; first: {} at offset {}",
                job.name, d.errors, d.error_samples[0].message, d.error_samples[0].offset_bytes
            ));
        }
    }
    for (name, d) in [("read", &read), ("write", &write)] {
        if d.short > 0 {
            warnings.push(format!(
                "{}: {} short {name}s; the rest of each was resubmitted and the I/O counted once, as fio does",
                job.name, d.short
            ));
        }
    }
    let incomplete = stop.load(Ordering::Relaxed);
    Ok(JobResult {
        job: (*job).clone(),
        test: None,
        target: first.facts.clone(),
        engine: engine.name().to_string(),
        measure_start_unix_ms,
        elapsed_ns: elapsed,
        ramp_ns: job.ramp.as_nanos() as u64,
        read: job.does_reads().then(|| read.result(elapsed)),
        write: job.does_writes().then(|| write.result(elapsed)),
        syncs,
        cpu_user_ns: user,
        cpu_system_ns: system,
        series: series.build(job.interval.as_nanos() as u64, elapsed),
        incomplete,
    })
}

/// Runs jobs one after another. Stops at Ctrl-C, keeping what was measured.
pub fn run(jobs: &[Job], opts: &RunOptions, stop: &StopFlag) -> Result<RunResult, RunError> {
    let tests: Vec<SuiteJob> = jobs
        .iter()
        .map(|j| SuiteJob {
            test: None,
            job: j.clone(),
        })
        .collect();
    run_suite(&tests, opts, stop)
}

/// A job of a suite, with the test it belongs to (`SEQ1M Q8T1`).
#[derive(Debug, Clone)]
pub struct SuiteJob {
    pub test: Option<String>,
    pub job: Job,
}

/// Runs a suite's jobs in order, pausing `opts.pause` between them.
pub fn run_suite(jobs: &[SuiteJob], opts: &RunOptions, stop: &StopFlag) -> Result<RunResult, RunError> {
    let started_unix_s = now_unix_s();
    let progress = Progress::new(opts.quiet);
    let mut warnings = Vec::new();
    let mut results = Vec::new();
    let mut created = Vec::new();
    let mut failure = None;
    let mut i = 0;
    while i < jobs.len() {
        if i > 0 && !opts.pause.is_zero() {
            pause(opts.pause, stop);
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // Neighbours with the same group run at the same time, as fio's jobs between stonewalls do.
        let together = group::len_at(jobs, i);
        let outcomes = if together == 1 {
            vec![run_job(
                &jobs[i].job,
                opts,
                stop,
                &mut warnings,
                &progress,
                &mut created,
            )]
        } else {
            let group = &jobs[i..i + together];
            group::run_together(group, opts, stop, &mut warnings, &progress, &mut created)
        };
        for (SuiteJob { test, .. }, outcome) in jobs[i..i + together].iter().zip(outcomes) {
            match outcome {
                Ok(mut r) => {
                    r.test = test.clone();
                    results.push(r)
                }
                Err(e) => failure = failure.or(Some(e)),
            }
        }
        if failure.is_some() {
            break;
        }
        i += together;
    }
    if !opts.keep {
        for t in &created {
            if let Err(e) = target::cleanup(t) {
                warnings.push(format!("could not remove test file: {e}"));
            }
        }
    }
    if let Some(e) = failure {
        if results.is_empty() {
            return Err(e);
        }
        // Keep what the earlier jobs measured: the run is stored as incomplete.
        warnings.push(format!("stopped after a failed job: {e}"));
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
        host: target::host_facts(),
        incomplete: stop.load(Ordering::Relaxed) || results.iter().any(|r| r.incomplete),
        jobs: results,
        warnings,
    })
}

/// How long a job is expected to measure, for progress display.
pub fn expected_duration(job: &Job) -> Option<Duration> {
    job.runtime.map(|r| r + job.ramp)
}
