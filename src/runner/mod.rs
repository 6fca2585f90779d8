//! Running jobs of every kind of workload: target preparation, threads,
//! ramp and stop conditions, progress, Ctrl-C (stop, keep what was
//! measured, clean up), storing each job as it ends (through `RunSink`),
//! and the assembly of a `RunResult` (`suite.rs`: the one loop, on one
//! process or one rank of many). Block jobs run on the workers; a bonnie
//! job is measured by `bonnie::measure::BonnieRun` inside the same loop.
//! Formats nothing for the reader.

mod block_kind;
mod fileset_measure;
mod fileset_sets;
mod group;
mod job_file;
mod kinds;
mod latency_bound;
pub(crate) mod memcg;
pub mod memory;
mod progress;
mod rounds;
mod seam;
mod stall;
mod steady_stop;
mod suite;
mod thread_span;
mod verify_pass;
mod whole_kind;
// A job's threads start their clocks together, after setup
mod start_gate;

use std::os::unix::fs::FileTypeExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use thiserror::Error;

use crate::engine::probe_io_uring;
use crate::jobs::job::{DEFAULT_FILE_SIZE, DEFAULT_RUNTIME};
use crate::jobs::{EngineKind, Job};
use crate::metrics::{JobResult, TargetFacts, TargetKind, Warning};
use crate::targets::{self, PreparedTarget, TargetError, TargetOptions};
use kinds::Kinds;

pub use crate::metrics::sink::{NoSink, RunSink};
pub use job_file::run_plan;
pub(crate) use kinds::own_names_free;
pub use latency_bound::check_search;
pub use progress::Progress;
pub use suite::{
    Bench, Lane, OneProcess, Placed, Placement, StepVerdict, run_interleaved, run_placed, run_suite,
};

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
    pub suite: Option<crate::jobs::suites::SuiteKind>,
    /// Pause between jobs (CrystalDiskMark's interval).
    pub pause: Duration,
    // mark: CrystalDiskMark pauses between tests, not between a test's passes.
    /// Pause only where the test or the direction changes, not between repetitions.
    pub pause_between_tests: bool,
}

/// Sleeps, waking early for Ctrl-C.
fn pause(total: Duration, stop: &StopFlag) {
    let until = Instant::now() + total;
    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50).min(until.saturating_duration_since(Instant::now())));
    }
}

/// The sink a job measured on its own reports to, and the suite test it belongs to.
pub struct Live<'a> {
    pub sink: &'a mut dyn RunSink,
    pub test: Option<&'a str>,
}

/// Set by Ctrl-C; workers poll it once per loop turn.
pub type StopFlag = Arc<AtomicBool>;

fn now_unix_s() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn push_once(warnings: &mut Vec<Warning>, warning: Warning) {
    if !warnings.contains(&warning) {
        warnings.push(warning);
    }
}

/// Buffered I/O over data the page cache can hold (all of the host's
/// memory, or the job's `mem_limit`) measures memory, not the device:
/// every kind that goes through the cache says so the same way. A set of
/// a few KiB reads "1 MB", not "0 MB".
pub(crate) fn page_cache_verdict(data_bytes: u64, mem_limit: Option<u64>, warnings: &mut Vec<Warning>) {
    if let Some(limit) = mem_limit {
        if data_bytes < limit {
            push_once(
                warnings,
                Warning::PageCacheHoldsDataUnderLimit {
                    data_mb: (data_bytes / 1_000_000).max(u64::from(data_bytes > 0)),
                    limit_mb: limit / 1_000_000,
                },
            );
        }
        return;
    }
    let memory = targets::host_facts().memory_bytes;
    if data_bytes < memory {
        push_once(
            warnings,
            Warning::PageCacheHoldsData {
                data_mb: (data_bytes / 1_000_000).max(u64::from(data_bytes > 0)),
                memory_mb: memory / 1_000_000,
            },
        );
    }
}

/// Fills in what the job left to defaults, so the stored job repeats exactly.
pub fn resolve(job: &Job, warnings: &mut Vec<Warning>) -> Job {
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
        push_once(warnings, Warning::IoUringUnavailable { why: why.clone() });
        job.engine = EngineKind::Sync;
    }
    if job.engine == EngineKind::Sync && job.qd > 1 && named == EngineKind::Auto && !job.direct {
        push_once(
            warnings,
            Warning::BufferedOnSyncEngine {
                job: job.name.clone(),
                qd: job.qd,
            },
        );
        job.qd = 1;
    }
    if job.engine == EngineKind::Sync && job.qd > 1 {
        warnings.push(Warning::SyncEngineQueueDepth {
            job: job.name.clone(),
            qd: job.qd,
        });
        job.qd = 1;
    }
    job
}

/// A seed for a job that named none: differs between runs, and is stored.
pub(crate) fn clock_seed() -> u64 {
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
            identity: None,
        },
        identity: None,
        guard: None,
        own_name: false,
    }
}

fn split(total: u64, parts: u32, index: u32) -> u64 {
    total / parts as u64 + u64::from((index as u64) < total % parts as u64)
}

/// Thread `index`'s share of `total` bytes, in whole blocks of `block`
/// when the total is whole blocks: the threads together then move exactly
/// `total`. Split byte by byte, 327 blocks over 4 threads was 81.75 blocks
/// each, and each thread's last write went past its share: 328 in all.
fn split_bytes(total: u64, block: Option<u64>, parts: u32, index: u32) -> u64 {
    match block {
        Some(b) if b > 0 && total.is_multiple_of(b) => split(total / b, parts, index) * b,
        _ => split(total, parts, index),
    }
}

/// Runs one job to completion (or until `stop`). A test file it creates is
/// added to `created`, for the caller to remove when all jobs are done.
pub fn run_job(
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    warnings: &mut Vec<Warning>,
    progress: &Progress,
    created: &mut Vec<PreparedTarget>,
    live: Option<Live<'_>>,
) -> Result<JobResult, RunError> {
    let mut job = resolve(job, warnings);
    let prepared = prepare_job(&job, opts, stop, progress)?;
    note_caveats(&job, &prepared, created, warnings);
    let result = block_kind::measure(&mut job, &prepared, stop, warnings, progress, live);
    created.extend(prepared.into_iter().filter(|p| p.created));
    result
}

/// [`run_job`] for one rank of many (`cluster`): `ready` runs once the
/// target is prepared, right before the ramp, so the ranks can start
/// together; when it fails (another rank could not prepare) nothing is
/// measured. Test files made are added to `created` either way.
pub fn run_job_synced(
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    warnings: &mut Vec<Warning>,
    progress: &Progress,
    created: &mut Vec<PreparedTarget>,
    ready: &mut dyn FnMut() -> Result<(), RunError>,
) -> Result<JobResult, RunError> {
    let mut job = resolve(job, warnings);
    let prepared = prepare_job(&job, opts, stop, progress)?;
    note_caveats(&job, &prepared, created, warnings);
    let result =
        ready().and_then(|()| block_kind::measure(&mut job, &prepared, stop, warnings, progress, None));
    created.extend(prepared.into_iter().filter(|p| p.created));
    result
}

/// Warns when the job's numbers cannot be the device's (targets::caveats);
/// `created` holds the test files earlier jobs of this run wrote.
fn note_caveats(
    job: &Job,
    targets: &[PreparedTarget],
    created: &[PreparedTarget],
    warnings: &mut Vec<Warning>,
) {
    if job.engine == EngineKind::Null {
        return;
    }
    let memory_bytes = targets::host_facts().memory_bytes;
    for t in targets {
        let cx = targets::CaveatContext {
            memory_bytes,
            freshly_written: t.created || created.iter().any(|c| c.path == t.path),
        };
        for w in targets::caveats(job, t, cx) {
            push_once(warnings, w);
        }
        for w in targets::verdicts_before(job, t, warnings) {
            push_once(warnings, w);
        }
    }
}

/// The targets a resolved job loads; a pre-fill in progress stops at Ctrl-C.
fn prepare_job(
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    progress: &Progress,
) -> Result<Vec<PreparedTarget>, RunError> {
    // Before anything is created: a job whose buffers cannot fit would abort the process.
    check_buffer_memory(&[job], available_memory())?;
    crate::worker::calibrate_clock();
    if job.engine == EngineKind::Null {
        return Ok(vec![null_target(job)]);
    }
    if job.modifies() {
        targets::protected::check_writable(&targets::job_path(job)).map_err(RunError::Invalid)?;
    }
    progress.message(&crate::t!(
        "progress-preparing",
        job = job.name.as_str(),
        path = targets::job_path(job).display().to_string()
    ));
    // A new test file's pre-fill shows its share done and its rate (file targets only).
    let path = targets::job_path(job);
    let bar = (!targets::is_block_device(&path))
        .then(|| {
            progress.fill_bar(
                &path,
                job.size_bytes.unwrap_or(crate::jobs::job::DEFAULT_FILE_SIZE),
            )
        })
        .flatten();
    let target_opts = TargetOptions {
        stop: Some(stop.clone()),
        fill_progress: bar.clone().map(|b| {
            targets::FillProgress(Arc::new(move |done| {
                if b.is_hidden() {
                    b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                }
                b.set_position(done)
            }))
        }),
        ..opts.target.clone()
    };
    let prepared = prepare_targets(job, &target_opts);
    if let Some(b) = bar {
        // Left on screen only when a file was written.
        if !b.is_hidden() {
            b.finish();
        } else {
            b.finish_and_clear();
        }
    }
    prepared
}

/// MemAvailable from /proc/meminfo, in bytes; `None` when the kernel does not say.
pub(super) fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses jobs (one, or a group that runs at the same time) whose memory
/// does not fit in what the machine (`available`), kura's memory cgroup or
/// `mem_limit` allows (`memory.rs`): the kernel would kill kura half way.
pub(super) fn check_buffer_memory(jobs: &[&Job], available: Option<u64>) -> Result<(), RunError> {
    memory::check(jobs, &memory::rooms(available)).map_err(RunError::Invalid)
}

/// The same check for each job on its own, made by [`check_before_io`]
/// before the database is opened, so a refusal creates nothing.
fn check_memory<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> Result<(), RunError> {
    let rooms = memory::rooms(available_memory());
    for job in jobs {
        memory::check(&[job], &rooms).map_err(RunError::Invalid)?;
    }
    Ok(())
}

/// A thread name from a job name: std panics on an interior NUL, which a job name may hold.
pub(crate) fn thread_name(job_name: &str, suffix: &str) -> String {
    format!("kura-{}{suffix}", job_name.replace('\0', "\u{fffd}"))
}

/// Thread `i`'s file of a `file_per_thread` job: `PATH.i`.
fn per_thread_path(base: &std::path::Path, i: u32) -> std::path::PathBuf {
    let mut name = base.to_path_buf().into_os_string();
    name.push(format!(".{i}"));
    name.into()
}

/// The paths a job's I/O goes to: its target, or with `file_per_thread`
/// one file per thread (`PATH.0` ... `PATH.N-1`).
pub(super) fn target_paths(job: &Job) -> Vec<std::path::PathBuf> {
    let base = targets::job_path(job);
    match job.file_per_thread {
        true => (0..job.threads).map(|i| per_thread_path(&base, i)).collect(),
        false => vec![base],
    }
}

/// The job's target, or with `file_per_thread` one file per thread (`PATH.N`).
fn prepare_targets(job: &Job, opts: &TargetOptions) -> Result<Vec<PreparedTarget>, RunError> {
    if !job.file_per_thread {
        return Ok(vec![targets::prepare(job, opts)?]);
    }
    let base = targets::job_path(job);
    if targets::is_block_device(&base) {
        return Err(RunError::Invalid(format!(
            "{}: file_per_thread needs a file path, not a block device",
            base.display()
        )));
    }
    let mut prepared = Vec::with_capacity(job.threads as usize);
    for i in 0..job.threads {
        let mut per_thread = job.clone();
        per_thread.target = Some(per_thread_path(&base, i));
        match targets::prepare_own(&per_thread, opts) {
            Ok(t) => prepared.push(t),
            Err(e) => {
                // The files made so far are no use without the rest; left behind, a later run
                // would take them for the user's.
                for t in &prepared {
                    let _ = targets::cleanup(t);
                }
                return Err(e.into());
            }
        }
    }
    Ok(prepared)
}

/// A job of a suite, with the test it belongs to (`SEQ1M Q8T1`).
#[derive(Debug, Clone, Default)]
pub struct SuiteJob {
    pub test: Option<String>,
    pub job: Job,
    /// This job and the ones after it run as one round, repeated until
    /// steady (the SNIA PTS's tests, jobs::pts).
    pub rounds: Option<crate::jobs::pts::MatrixRounds>,
}

impl SuiteJob {
    /// A job of no suite (`kura run`, a job file).
    pub fn plain(job: Job) -> SuiteJob {
        SuiteJob {
            test: None,
            job,
            rounds: None,
        }
    }
}

/// When a job's measuring starts once it is prepared.
enum Start<'a> {
    /// At once, its intervals going live to the run's sink as test `.0`.
    Now(Option<&'a str>),
    /// After `ready`: one rank of many meets the others there, and a
    /// failure (another rank could not prepare) measures nothing.
    Synced(&'a mut dyn FnMut() -> Result<(), RunError>),
}

/// A suite's jobs, each preconditioning placed before its job, once every
/// one passed [`refuse_up_front`]. The suites call it before they open the
/// database, so a refusal leaves nothing behind; `run_suite` calls it again
/// for every other caller.
pub fn check_before_io(jobs: &[SuiteJob], opts: &RunOptions) -> Result<Vec<SuiteJob>, RunError> {
    // Memory first: a job the kernel would kill half way is refused before any file is looked at.
    check_memory(jobs.iter().map(|j| &j.job))?;
    targets::check_new_file_places(jobs.iter().map(|j| &j.job))?;
    rounds::refuse_preconditioning_reads(jobs, opts)?;
    // Preconditioning runs as jobs of its own, checked like the others.
    let jobs = rounds::expand(jobs)?;
    refuse_up_front(jobs.iter().map(|j| &j.job), opts)?;
    Ok(jobs)
}

/// [`check_before_io`] for jobs of no suite (`kura run`, a job file), before
/// the database is opened, so a refusal leaves nothing behind.
pub fn check_jobs_before_io(jobs: &[Job], opts: &RunOptions) -> Result<(), RunError> {
    let jobs: Vec<SuiteJob> = jobs.iter().cloned().map(SuiteJob::plain).collect();
    check_before_io(&jobs, opts).map(|_| ())
}

/// Every job of a run checked before the first one does any I/O: a write
/// that would be refused (a device or file that carries data, kura's own
/// database or a loop device over it, a journal that is not kura's or is a
/// job's target, a read job's preconditioning over a file kura did not
/// make), a file set that would be refused (not kura's, of another shape
/// holding what kura did not make, too large for its file system) and a
/// DIR bonnie or the database cannot use (not a directory, their files
/// there already, no room, no server installed). A suite used to measure
/// its reads for minutes and store them before its first write was
/// refused. Creates and writes nothing; removes only a database directory
/// a killed kura left (by its marker).
pub fn refuse_up_front<'a>(
    jobs: impl IntoIterator<Item = &'a Job>,
    opts: &RunOptions,
) -> Result<(), RunError> {
    let jobs: Vec<&Job> = jobs.into_iter().collect();
    crate::bonnie::check_up_front(&jobs).map_err(RunError::Invalid)?;
    crate::database::check_up_front(&jobs).map_err(RunError::Invalid)?;
    let allowed = opts.target.allow_destroy.as_deref();
    // A journal written over a target truncates it: the verify then reports the damage as bad blocks.
    let all_targets: Vec<_> = jobs.iter().map(|j| targets::job_path(j)).collect();
    // A suite writes one target in many jobs: probed once.
    let mut probed: Vec<std::path::PathBuf> = Vec::new();
    for job in jobs {
        kinds::own_names_free(job)?;
        if job.engine == EngineKind::Null {
            continue;
        }
        if !kinds::checked_as_a_test_file(job)? {
            continue;
        }
        // A read job creates its test file too, and SQLite would take one at `DB-journal` for its own.
        targets::protected::refuse_new_file_at_a_database_name(&targets::job_path(job))
            .map_err(RunError::Invalid)?;
        if !job.modifies() {
            continue;
        }
        // The verify journal is written too: checked now, before any target is prepared.
        if let (Some(journal), true) = (&job.journal, job.verify) {
            targets::output::check_output(
                journal,
                None,
                verify_pass::JOURNAL,
                &all_targets,
                targets::output::Destroy::NoFlag,
            )
            .map_err(|e| RunError::Invalid(format!("{}: journal: {e}", job.name)))?;
        }
        // kura's database (or a loop device over it) as a later job's target stops the run before the first job.
        targets::protected::check_writable(&targets::job_path(job)).map_err(RunError::Invalid)?;
        // At kura's own names only kura's files pass (own_names_free), and they hold kura's data.
        if job.target.is_none() || job.own_name || job.file_per_thread {
            continue;
        }
        for path in target_paths(job) {
            // A new test file is kura's; an existing file or a device is probed as `prepare` would.
            let exists =
                std::fs::metadata(&path).is_ok_and(|m| m.is_file() || m.file_type().is_block_device());
            // Trims on a regular file are refused by `prepare` for what they are, before any I/O.
            let file_trims = job.does_trims() && std::fs::metadata(&path).is_ok_and(|m| m.is_file());
            if exists && !file_trims && !probed.contains(&path) {
                targets::check_device_writable(&path, allowed).map_err(TargetError::from)?;
                probed.push(path);
            }
        }
    }
    Ok(())
}

/// How long a job is expected to measure, for progress display.
pub fn expected_duration(job: &Job) -> Option<Duration> {
    job.runtime.map(|r| r + job.ramp)
}

#[cfg(test)]
mod split_tests {
    use super::split_bytes;

    #[test]
    fn a_byte_total_of_whole_blocks_is_split_in_whole_blocks() {
        let shares: Vec<u64> = (0..4)
            .map(|i| split_bytes(327 * 4096, Some(4096), 4, i))
            .collect();
        assert_eq!(shares, [82 * 4096, 82 * 4096, 82 * 4096, 81 * 4096]);
        assert_eq!(shares.iter().sum::<u64>(), 327 * 4096);
        // Not whole blocks, or sizes that vary: by bytes, as before.
        assert_eq!(split_bytes(10_001, Some(4096), 2, 0), 5_001);
        assert_eq!(split_bytes(10_001, None, 2, 1), 5_000);
    }
}
