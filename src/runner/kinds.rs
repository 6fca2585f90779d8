//! The runner's one match on a job's kind of workload: how a job of each
//! kind is checked before a run's first I/O, prepared where many ranks
//! share it, and measured, and what each kind keeps from one job of a run
//! to the next. Everything else in the runner asks the kind
//! (`jobs::workload::WorkloadKind`), so a new kind is a compile error here
//! until it is handled.

use super::whole_kind::{self, WholeKind as _};
use super::{Live, RunError, Start, fileset_sets, memcg, rounds, run_job, run_job_synced};
use crate::bonnie::measure::BonnieRun;
use crate::jobs::bonnie_params::BonnieParams;
use crate::jobs::{EngineKind, Job, Workload};
use crate::metrics::{JobResult, Warning};
use crate::targets::{self, TargetError};

/// What the kinds of workload other than block I/O keep from one job of a
/// run to the next (bonnie's small files, its random draws); the runner's
/// loop, pauses, Ctrl-C, storing and cleanup are the same for every kind.
#[derive(Default)]
pub(super) struct Kinds {
    bonnie: Option<BonnieRun>,
    pub(super) filesets: fileset_sets::Sets,
    database: Option<crate::database::DbRun>,
    /// The memory cap of a run of a whole kind (`suite db --mem-limit`,
    /// `suite bonnie --mem-limit`): entered before the kind's state is made
    /// (the database's server starts capped too; bonnie's test file is
    /// made inside it), left once that state is cleaned up. The runner's,
    /// not the kind's: a kind never reaches back. Kinds with threads are
    /// capped by the seam, job by job.
    whole_cap: Option<memcg::MemoryCap>,
}

impl Kinds {
    /// One job measured once, whatever its kind: the one place the runner
    /// picks a kind, for the main loop and the latency search alike.
    pub(super) fn measure(
        &mut self,
        job: &Job,
        start: Start<'_>,
        cx: rounds::Ctx<'_>,
        failure: &mut Option<RunError>,
    ) -> Result<JobResult, RunError> {
        let (stop, progress) = (cx.stop, cx.progress);
        match (&job.workload, start) {
            (Workload::Bonnie(p), Start::Now(_)) => self.bonnie(job, p, cx, failure),
            (Workload::Database(p), Start::Now(_)) => self.database(job, p, cx, failure),
            (Workload::Bonnie(_) | Workload::Database(_), Start::Synced(_)) => Err(not_on_ranks(job)),
            (Workload::FileSet(p), Start::Now(test)) => {
                let live = Live { sink: cx.sink, test };
                self.fileset(job, p, stop, progress, cx.warnings, live)
            }
            (Workload::FileSet(p), Start::Synced(ready)) => {
                self.filesets
                    .run(job, p, stop, progress, cx.warnings, None, ready)
            }
            (Workload::Block, Start::Now(test)) => {
                let live = Live { sink: cx.sink, test };
                run_job(job, cx.opts, stop, cx.warnings, progress, cx.created, Some(live))
            }
            (Workload::Block, Start::Synced(ready)) => {
                run_job_synced(job, cx.opts, stop, cx.warnings, progress, cx.created, ready)
            }
        }
    }

    /// One bonnie test, on the files the run's first bonnie test made.
    fn bonnie(
        &mut self,
        job: &Job,
        p: &BonnieParams,
        cx: rounds::Ctx<'_>,
        failure: &mut Option<RunError>,
    ) -> Result<JobResult, RunError> {
        let run = started(&mut self.bonnie, &mut self.whole_cap, job, || {
            BonnieRun::new(job, p)
        })?;
        whole_kind::measure(run, job, p, cx.stop, cx.progress, cx.warnings, failure)
    }

    /// One database test, on the server (or file) the run's first one started.
    fn database(
        &mut self,
        job: &Job,
        p: &crate::jobs::db_params::DbParams,
        cx: rounds::Ctx<'_>,
        failure: &mut Option<RunError>,
    ) -> Result<JobResult, RunError> {
        let run = started(&mut self.database, &mut self.whole_cap, job, || {
            crate::database::DbRun::new(job, p, cx.stop)
        })?;
        whole_kind::measure(run, job, p, cx.stop, cx.progress, cx.warnings, failure)
    }

    /// Makes the target many ranks share before any of them opens it: the
    /// file set `mine` runs on, or `job`'s test file when it is missing
    /// (returned, to be removed with the run's other test files).
    pub(super) fn prepare_shared(
        &mut self,
        job: &Job,
        mine: &Job,
        opts: &targets::TargetOptions,
        stop: &super::StopFlag,
        progress: &super::Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<targets::PreparedTarget>, RunError> {
        match &mine.workload {
            Workload::FileSet(p) => {
                self.filesets.prepare(mine, p, stop, progress, warnings)?;
                Ok(None)
            }
            Workload::Block if !targets::job_path(job).exists() => Ok(Some(targets::prepare(job, opts)?)),
            Workload::Block => Ok(None),
            Workload::Bonnie(_) | Workload::Database(_) => Err(not_on_ranks(job)),
        }
    }

    pub(super) fn cleanup(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        self.filesets.cleanup(keep, warnings);
        if let Some(d) = &mut self.database {
            d.finish(keep, warnings);
        }
        if let Some(b) = &mut self.bonnie {
            b.finish(keep, warnings);
        }
        // The server has stopped and bonnie's files are gone: kura leaves the
        // capped group and removes it.
        self.whole_cap = None;
    }
}

/// Somebody's file, or a running kura's, at a name this job's test files
/// would take (`kura-test.dat`, `PATH.N`, a suite's names): refused before
/// the first job of a run, where preparing the job would refuse it later.
pub(crate) fn own_names_free(job: &Job) -> Result<(), TargetError> {
    let own = job.target.is_none() || job.own_name || job.file_per_thread;
    let block = match job.workload {
        Workload::Block => true,
        // Their files are at names of their own (`bonnie`, `database`, `fileset`).
        Workload::Bonnie(_) | Workload::Database(_) | Workload::FileSet(_) => false,
    };
    if !own || job.engine == EngineKind::Null || !block {
        return Ok(());
    }
    super::target_paths(job)
        .iter()
        .try_for_each(|path| targets::check_own_name(path))
}

/// A file-set job's checks before the run's first I/O; `true` for a job
/// whose target is then checked as a block job's test file or device is
/// (`runner::refuse_up_front`). bonnie's and the database's files are
/// checked as test files too, besides their own checks of their
/// directory (`bonnie::check_up_front`, `database::check_up_front`).
pub(super) fn checked_as_a_test_file(job: &Job) -> Result<bool, RunError> {
    match &job.workload {
        Workload::FileSet(p) => fileset_sets::check_up_front(job, p).map(|()| false),
        Workload::Block | Workload::Bonnie(_) | Workload::Database(_) => Ok(true),
    }
}

/// A kind that does not run on many ranks (`WorkloadKind::runs_on_ranks`).
fn not_on_ranks(job: &Job) -> RunError {
    RunError::Invalid(format!(
        "{}: {} jobs do not run on many ranks yet; run them on one host",
        job.name,
        job.workload.kind().name()
    ))
}

/// The state of a whole kind, made at the run's first job of that kind,
/// inside the memory cap the job asks for (left again when it cannot be made).
fn started<'s, K>(
    state: &'s mut Option<K>,
    cap: &mut Option<memcg::MemoryCap>,
    job: &Job,
    make: impl FnOnce() -> Result<K, String>,
) -> Result<&'s mut K, RunError> {
    if state.is_none() {
        if let Some(limit) = job.mem_limit_bytes {
            *cap = Some(memcg::MemoryCap::enter(limit).map_err(RunError::Invalid)?);
        }
        match make() {
            Ok(made) => *state = Some(made),
            Err(e) => {
                *cap = None;
                return Err(RunError::Invalid(e));
            }
        }
    }
    Ok(state.as_mut().expect("made above"))
}
