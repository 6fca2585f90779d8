//! The file-set kind measured by the runner: a job's threads (each one
//! `fileset::run_thread`, drawing operations from the mix over the set)
//! started, their samples fanned in and sealed as every kind's are
//! (`SeriesFanIn`), and their counts merged into the job's result. The kind
//! itself (`fileset/`) brings the set's thread loop and knows nothing of
//! the runner.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use super::{Live, Progress};
use crate::fileset::{self, Stonewall, ThreadOutput, ThreadPlan};
use crate::jobs::Job;
use crate::jobs::fileset::{FileOp, FileSetParams};
use crate::metrics::collect::{DirCollector, SeriesFanIn};
use crate::metrics::{JobResult, TargetKind, Warning};
use crate::targets::fileset::FileSet;

/// Runs one file-set job on `set` and assembles its result.
pub fn measure(
    job: &Job,
    params: &FileSetParams,
    set: &FileSet,
    stop: &AtomicBool,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    live: Option<Live<'_>>,
) -> Result<JobResult, String> {
    measure_with(job, params, set, stop, progress, warnings, live, None)
}

/// A file-set job whose first phase (create) is stonewalled (IO500's
/// mdtest `-W`): see `stonewall.rs`.
#[allow(clippy::too_many_arguments)]
pub fn measure_stonewalled(
    job: &Job,
    params: &FileSetParams,
    set: &FileSet,
    stop: &AtomicBool,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    wall: &mut Stonewall<'_>,
) -> Result<JobResult, String> {
    let outcome = measure_with(job, params, set, stop, progress, warnings, None, Some(&mut *wall));
    // Every rank agrees once per job, even one that failed before its threads ran.
    wall.settle_unheard();
    outcome
}

#[allow(clippy::too_many_arguments)]
fn measure_with(
    job: &Job,
    params: &FileSetParams,
    set: &FileSet,
    stop: &AtomicBool,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    mut live: Option<Live<'_>>,
    mut wall: Option<&mut Stonewall<'_>>,
) -> Result<JobResult, String> {
    let r = params.resolve()?;
    if let Some(w) = wall.as_deref_mut() {
        w.begin(job.threads, r.mix.makes_files());
    }
    let mut job = job.clone();
    job.workload = crate::jobs::Workload::FileSet(params.filled());
    job.target = Some(set.anchor.clone());
    let target =
        crate::targets::target_facts(&set.anchor, TargetKind::File, set.total_bytes(), 512, set.created);
    // The memory cap, as for a block job: the set's pages evicted first,
    // then kura in a capped group until its threads are joined.
    let _memory_cap = match job.mem_limit_bytes {
        Some(limit) => {
            set.evict_cache()
                .map_err(|e| format!("{}: evicting the file set's pages: {e}", set.root.display()))?;
            Some(super::memcg::MemoryCap::enter(limit)?)
        }
        None => None,
    };
    let began = match r.mix.makes_files() {
        true => set.begin_use_making(r.files),
        false => set.begin_use(),
    };
    began.map_err(|e| e.to_string())?;
    let start = Instant::now();
    let measure_start_unix_ms = (SystemTime::now() + job.ramp)
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let blank = |incomplete| JobResult {
        incomplete,
        ..JobResult::blank(job.clone(), target.clone(), "sync", measure_start_unix_ms)
    };
    if let Some(live) = &mut live {
        live.sink.job_started(&JobResult {
            test: live.test.map(str::to_string),
            ..blank(true)
        });
    }
    let interval_ns = job.interval.as_nanos() as u64;
    let (tx, rx) = mpsc::channel();
    let threads = job.threads;
    let barrier = std::sync::Barrier::new(threads as usize);
    let wall_sync = wall.as_deref().and_then(Stonewall::sync);
    progress.start_job(&job);
    let (outputs, series) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let plan = ThreadPlan {
                    stonewall: wall_sync.clone(),
                    set,
                    r: &r,
                    job: &job,
                    thread,
                    start,
                    stop,
                    samples: tx.clone(),
                    barrier: &barrier,
                };
                std::thread::Builder::new()
                    .name(super::thread_name(&job.name, &format!("-{thread}")))
                    .spawn_scoped(scope, move || fileset::run_thread(plan))
                    .expect("spawning a file-set thread")
            })
            .collect();
        drop(tx);
        let mut fan_in = SeriesFanIn::new(threads, interval_ns);
        loop {
            // A stonewall's threads wait for the agreement made here: look often.
            let poll = match wall {
                Some(_) => std::time::Duration::from_millis(2),
                None => std::time::Duration::from_secs(1),
            };
            let sample = match rx.recv_timeout(poll) {
                Ok(sample) => sample,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(w) = wall.as_deref_mut() {
                        w.settle_when_heard();
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if let Some(w) = wall.as_deref_mut() {
                w.settle_when_heard();
            }
            progress.sample(&sample, threads);
            fan_in.add(&sample, |point| {
                if let Some(live) = &mut live {
                    live.sink.interval(point);
                }
            });
        }
        let outputs: Vec<ThreadOutput> = handles
            .into_iter()
            .map(|h| h.join().expect("file-set thread panicked"))
            .collect();
        (outputs, fan_in.into_series())
    });
    let mut by_op: Vec<DirCollector> = FileOp::ALL.iter().map(|_| DirCollector::default()).collect();
    // mdtest's phases: each op's time is its phase's, the slowest thread's (they start together).
    let mut phase_ns = vec![0u64; FileOp::ALL.len()];
    for o in &outputs {
        for (max, ns) in phase_ns.iter_mut().zip(&o.phase_ns) {
            *max = (*max).max(*ns);
        }
    }
    let (mut user, mut system, mut elapsed, mut skipped) = (0, 0, 0, 0);
    let mut restore_errors = Vec::new();
    for o in &outputs {
        for (sum, c) in by_op.iter_mut().zip(&o.ops) {
            sum.merge(c);
        }
        user += o.cpu_user_ns;
        system += o.cpu_system_ns;
        elapsed = elapsed.max(o.measured_ns);
        skipped += o.skipped;
        restore_errors.extend(o.restore_errors.iter().cloned());
    }
    if let Some(fatal) = outputs.iter().find_map(|o| o.fatal.clone()) {
        warnings.push(Warning::WorkerStopped {
            job: job.name.clone(),
            error: fatal,
        });
    }
    if restore_errors.is_empty()
        && let Err(e) = set.end_use()
    {
        restore_errors.push(e.to_string());
    }
    for e in restore_errors.into_iter().take(4) {
        warnings.push(Warning::TestFileNotRemoved { error: e });
    }
    if skipped > 0 {
        warnings.push(Warning::FileOpsSkipped {
            job: job.name.clone(),
            count: skipped,
        });
    }
    let mut result = blank(stop.load(Ordering::Relaxed));
    result.elapsed_ns = elapsed;
    result.cpu_user_ns = user;
    result.cpu_system_ns = system;
    result.series = series.build(interval_ns, elapsed);
    for (op, c) in FileOp::ALL.iter().zip(&by_op) {
        if c.ops == 0 && c.errors == 0 {
            continue;
        }
        if c.errors > 0 {
            warnings.push(Warning::IoErrors {
                job: job.name.clone(),
                direction: op.name().to_string(),
                count: c.errors,
                first_error: c.error_samples[0].message.clone(),
                offset_bytes: c.error_samples[0].offset_bytes,
            });
        }
        let over = match phase_ns[*op as usize] {
            0 => elapsed,
            ns => ns,
        };
        let d = c.result(over);
        match op {
            FileOp::Read => result.read = Some(d),
            FileOp::Write => result.write = Some(d),
            _ => {
                result.operations.insert(op.kind(), d);
            }
        }
    }
    progress.finish_job(Some(&result));
    Ok(result)
}
