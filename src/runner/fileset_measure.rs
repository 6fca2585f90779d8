//! The file-set kind measured by the runner: a job's threads (each one
//! `fileset::run_thread`, drawing operations from the mix over the set)
//! started, their samples fanned in and sealed as every kind's are
//! (`SeriesFanIn`), and their counts merged into the job's result. The kind
//! itself (`fileset/`) brings the set's thread loop and knows nothing of
//! the runner.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use super::seam::{self, Kind, Merged, ThreadTally};
use super::{Live, Progress, RunError};
use crate::fileset::{self, Stonewall, ThreadOutput, ThreadPlan, WallSync};
use crate::jobs::Job;
use crate::jobs::fileset::{FileOp, FileSetParams, Resolved};
use crate::metrics::collect::IntervalSample;
use crate::metrics::{JobResult, TargetFacts, TargetKind, Warning};
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

/// One file-set job on its set.
struct FileSetKind<'a> {
    job: &'a Job,
    r: &'a Resolved,
    set: &'a FileSet,
    stop: &'a AtomicBool,
    wall: Option<Arc<WallSync>>,
}

#[allow(clippy::too_many_arguments)]
fn measure_with(
    job: &Job,
    params: &FileSetParams,
    set: &FileSet,
    stop: &AtomicBool,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    live: Option<Live<'_>>,
    mut wall: Option<&mut Stonewall<'_>>,
) -> Result<JobResult, String> {
    let r = params.resolve()?;
    if let Some(w) = wall.as_deref_mut() {
        w.begin(job.threads, r.mix.makes_files());
    }
    let mut job = job.clone();
    job.workload = crate::jobs::Workload::FileSet(params.filled());
    job.target = Some(set.anchor.clone());
    let began = match r.mix.makes_files() {
        true => set.begin_use_making(r.files),
        false => set.begin_use(),
    };
    began.map_err(|e| e.to_string())?;
    let kind = FileSetKind {
        job: &job,
        r: &r,
        set,
        stop,
        wall: wall.as_deref().and_then(Stonewall::sync),
    };
    // A stonewall's threads wait for the agreement made here: look often.
    let mut settle = || {
        if let Some(w) = wall.as_deref_mut() {
            w.settle_when_heard();
        }
    };
    let on_idle: Option<(Duration, &mut dyn FnMut())> = match kind.wall {
        Some(_) => Some((Duration::from_millis(2), &mut settle)),
        None => None,
    };
    let cx = seam::Ctx {
        stop,
        progress,
        warnings,
        live,
        on_idle,
        on_point: None,
    };
    let inputs = (0..job.threads).map(|_| ()).collect();
    seam::measure(&kind, &job, inputs, cx).map_err(|e| e.to_string())
}

impl Kind for FileSetKind<'_> {
    type Thread = ThreadOutput;
    type Input = ();

    fn engine_name(&self) -> &'static str {
        "sync"
    }

    fn facts(&self) -> TargetFacts {
        let set = self.set;
        crate::targets::target_facts(&set.anchor, TargetKind::File, set.total_bytes(), 512, set.created)
    }

    fn judged(&self) -> bool {
        true
    }

    fn cached_bytes(&self) -> Option<u64> {
        // A set's operations are buffered: a set the page cache can hold is read from memory.
        Some(self.set.total_bytes())
    }

    fn evict_cache(&self) -> Result<(), RunError> {
        self.set.evict_cache().map_err(|e| {
            RunError::Invalid(format!(
                "{}: evicting the file set's pages: {e}",
                self.set.root.display()
            ))
        })
    }

    fn run_thread(
        &self,
        thread: u32,
        _: (),
        start: Instant,
        samples: Sender<IntervalSample>,
        start_line: &Barrier,
    ) -> ThreadOutput {
        fileset::run_thread(ThreadPlan {
            stonewall: self.wall.clone(),
            set: self.set,
            r: self.r,
            job: self.job,
            thread,
            start,
            stop: self.stop,
            samples,
            barrier: start_line,
        })
    }

    fn tally(o: &ThreadOutput) -> ThreadTally<'_> {
        ThreadTally {
            counts: FileOp::ALL.iter().map(|op| op.name()).zip(&o.ops).collect(),
            measured_ns: o.measured_ns,
            cpu_user_ns: o.cpu_user_ns,
            cpu_system_ns: o.cpu_system_ns,
            fatal: o.fatal.as_deref(),
        }
    }

    fn place(
        &self,
        outputs: &mut [ThreadOutput],
        merged: Merged,
        result: &mut JobResult,
        warnings: &mut Vec<Warning>,
    ) {
        let job = self.job;
        // mdtest's phases: each op's time is its phase's, the slowest thread's (they start together).
        let mut phase_ns = vec![0u64; FileOp::ALL.len()];
        for o in outputs.iter() {
            for (max, ns) in phase_ns.iter_mut().zip(&o.phase_ns) {
                *max = (*max).max(*ns);
            }
        }
        let mut restore_errors: Vec<String> = outputs.iter().flat_map(|o| o.restore_errors.clone()).collect();
        if restore_errors.is_empty()
            && let Err(e) = self.set.end_use()
        {
            restore_errors.push(e.to_string());
        }
        for e in restore_errors.into_iter().take(4) {
            warnings.push(Warning::TestFileNotRemoved { error: e });
        }
        let skipped: u64 = outputs.iter().map(|o| o.skipped).sum();
        if skipped > 0 {
            warnings.push(Warning::FileOpsSkipped {
                job: job.name.clone(),
                count: skipped,
            });
        }
        for op in FileOp::ALL.iter() {
            let Some(c) = merged.get(op.name()).filter(|c| c.ops > 0 || c.errors > 0) else {
                continue;
            };
            let over = match phase_ns[*op as usize] {
                0 => merged.elapsed_ns,
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
    }

    fn verdict_after(&self, _: &JobResult) -> Option<Warning> {
        // What a network or FUSE file system caches, no eviction from here reaches.
        crate::targets::unreachable_cache_at(&self.set.anchor)
    }

    fn watched(&self) -> Vec<std::path::PathBuf> {
        vec![self.set.anchor.clone()]
    }
}
