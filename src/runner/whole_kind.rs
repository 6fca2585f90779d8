//! The kinds that measure a job in one call, on a state they keep from one
//! job of a run to the next: bonnie's tests (its files, its random draws)
//! and a database's (the server, the tables). They have no threads for the
//! seam to own, so the runner drives them through this one trait: the
//! progress line, a test that measured and then failed (kept, and its
//! failure ends the run like a failed job's), a test that completed
//! nothing, and the notes and cleanup at the end.

use std::sync::atomic::AtomicBool;

use super::{Progress, RunError, stall};
use crate::bonnie::measure::BonnieRun;
use crate::database::DbRun;
use crate::jobs::Job;
use crate::jobs::bonnie_params::BonnieParams;
use crate::jobs::db_params::DbParams;
use crate::metrics::{JobResult, Warning};
use crate::targets::device_counters::Stack;

pub(super) trait WholeKind {
    type Params;
    /// What the job is about to do, for the progress line.
    fn describe(&self, p: &Self::Params) -> String;
    /// `Err` when nothing was measured; `Ok` with the failure that ended the test, if one did.
    fn measure_one(
        &mut self,
        job: &Job,
        p: &Self::Params,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String>;
    /// The run's notes on this kind, and what it made removed unless `keep`.
    fn finish(&mut self, keep: bool, warnings: &mut Vec<Warning>);
    /// Where its files are: the devices under it are watched.
    fn watched(&self) -> Vec<std::path::PathBuf>;
}

/// One job of a whole kind, measured and judged.
pub(super) fn measure<K: WholeKind>(
    kind: &mut K,
    job: &Job,
    p: &K::Params,
    stop: &AtomicBool,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    failure: &mut Option<RunError>,
) -> Result<JobResult, RunError> {
    progress.message(&kind.describe(p));
    let watched = kind.watched();
    let stack = Stack::of(&watched.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    let start = stack.read();
    let (mut result, error) = kind.measure_one(job, p, stop).map_err(RunError::Invalid)?;
    let end = stack.read();
    super::seam::device_evidence(&stack, &start, &end, &watched, &mut result, warnings);
    if let Some(e) = error {
        *failure = failure.take().or(Some(RunError::Invalid(e)));
    }
    warnings.extend(stall::nothing_completed(&result));
    Ok(result)
}

fn not_removed(errors: Vec<String>, warnings: &mut Vec<Warning>) {
    warnings.extend(
        errors
            .into_iter()
            .map(|error| Warning::TestFileNotRemoved { error }),
    );
}

impl WholeKind for BonnieRun {
    type Params = BonnieParams;

    fn describe(&self, p: &BonnieParams) -> String {
        BonnieRun::describe(self, p)
    }

    fn measure_one(
        &mut self,
        job: &Job,
        p: &BonnieParams,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String> {
        self.run(job, p, stop)
    }

    fn finish(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        let mut errors = Vec::new();
        self.cleanup(keep, &mut errors);
        not_removed(errors, warnings);
    }

    fn watched(&self) -> Vec<std::path::PathBuf> {
        vec![self.dir().to_path_buf()]
    }
}

impl WholeKind for DbRun {
    type Params = DbParams;

    fn describe(&self, p: &DbParams) -> String {
        DbRun::describe(self, p)
    }

    fn measure_one(
        &mut self,
        job: &Job,
        p: &DbParams,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String> {
        self.run(job, p, stop)
    }

    fn finish(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        warnings.append(&mut self.notes);
        warnings.extend(self.memory_note());
        let mut errors = Vec::new();
        self.cleanup(keep, &mut errors);
        not_removed(errors, warnings);
    }

    fn watched(&self) -> Vec<std::path::PathBuf> {
        vec![self.home().to_path_buf()]
    }
}
