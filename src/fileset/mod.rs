//! The file-set kind: threads draw operations from the job's mix (or walk
//! mdtest's phases) over a `targets::fileset::FileSet`, time each one and
//! record it by operation. Called by the one runner for jobs of the kind;
//! `ops.rs` holds the measuring loop of one thread.

mod ops;
mod stonewall;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::jobs::Job;
use crate::jobs::fileset::{Mix, Resolved};

pub use ops::{ThreadOutput, ThreadPlan, run_thread};
pub use stonewall::{Stonewall, WallSync};

/// One rank of many on one shared set (`cluster`, `--shared`): this
/// process's threads are owners `first..first + threads` of `all` over
/// every rank (`first << 32 | all`), so no two ranks' threads own one file
/// or name one directory. 0: the set is this process's alone.
static RANK_OWNERS: AtomicU64 = AtomicU64::new(0);

/// Numbers this process's threads from `first` among `all` owners of the
/// set's files (`None`: alone again).
pub fn share_between_ranks(owners: Option<(u32, u32)>) {
    let v = owners.map_or(0, |(first, all)| (u64::from(first) << 32) | u64::from(all));
    RANK_OWNERS.store(v, Ordering::Relaxed);
}

/// Thread `thread` of `threads`: its number among the owners of the set's
/// files, and how many owners there are.
pub(crate) fn owner(thread: u32, threads: u32) -> (u32, u32) {
    match RANK_OWNERS.load(Ordering::Relaxed) {
        0 => (thread, threads),
        v => ((v >> 32) as u32 + thread, (v as u32).max(threads)),
    }
}

/// The shape of the set a job formats: mdtest's phases make their own
/// files, so its set holds only the directories.
pub fn set_shape(r: &Resolved) -> Resolved {
    let mut shape = r.clone();
    if r.mix.makes_files() {
        shape.files = 0;
    }
    shape
}

/// Refuses what cannot run before anything is created.
pub fn check(job: &Job, r: &Resolved) -> Result<(), String> {
    // Every rank's threads when ranks share the set.
    let threads = owner(0, job.threads).1;
    if let Mix::Phases { shared: false, .. } = r.mix
        && r.leaf_dirs() < u64::from(threads)
    {
        return Err(format!(
            "{}: mdtest gives each thread its own directory, but the set has {} at its last level for {} threads; \
             raise width or depth, or use mix mdtest-shared",
            job.name,
            r.leaf_dirs(),
            threads
        ));
    }
    if r.total_files() == 0 {
        return Err(format!("{}: the file set has no files (files 0)", job.name));
    }
    Ok(())
}
