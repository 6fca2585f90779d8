//! The runner's part for file-set jobs: the sets a run has prepared (a set
//! is formatted once and reused by the run's later jobs of the same shape
//! on the same anchor), the job itself measured by `fileset_measure::measure`, and
//! removing at the end the sets this run made, unless --keep.

use std::path::PathBuf;

use super::{Kinds, Live, Progress, RunError, StopFlag, resolve};
use crate::jobs::Job;
use crate::jobs::fileset::{FileSetParams, Resolved};
use crate::metrics::{JobResult, Warning};
use crate::targets::fileset::{self as sets, FileSet};

/// The file sets a run (or one rank of many, `cluster::rank`) has open.
#[derive(Default)]
pub struct Sets {
    open: Vec<(PathBuf, Resolved, FileSet)>,
}

impl Sets {
    /// Removes the sets this run made, unless `keep`.
    pub fn cleanup(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        for (_, _, set) in self.open.drain(..) {
            if set.created && !keep {
                for error in set.remove() {
                    warnings.push(Warning::TestFileNotRemoved { error });
                }
            }
        }
    }

    /// The set `job` runs on, made (or found complete) under its anchor:
    /// its index in `open`. `job` is resolved.
    fn open_for(
        &mut self,
        job: &Job,
        r: &Resolved,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<usize, RunError> {
        crate::fileset::check(job, r).map_err(RunError::Invalid)?;
        let anchor = job.target.clone().unwrap_or_else(|| PathBuf::from("."));
        let shape = crate::fileset::set_shape(r);
        let sets = &mut self.open;
        let found = sets.iter().position(|(a, s, _)| *a == anchor && *s == shape);
        if found.is_none()
            && let Some(other) = sets.iter().position(|(a, _, _)| *a == anchor)
        {
            // Another shape on the same anchor: the old set goes (if this run made it) before the new one is made.
            let (_, _, old) = sets.remove(other);
            if old.created {
                for error in old.remove() {
                    warnings.push(Warning::TestFileNotRemoved { error });
                }
            }
        }
        match sets.iter().position(|(a, s, _)| *a == anchor && *s == shape) {
            Some(i) => Ok(i),
            None => {
                progress.message(&crate::t!(
                    "progress-preparing-file-set",
                    job = job.name.as_str(),
                    path = anchor.display().to_string()
                ));
                let report = |m: &str| progress.message(m);
                let seed = job.seed.unwrap_or(0);
                let set = sets::prepare_for(&anchor, &shape, r, seed, job.threads, stop, &report)
                    .map_err(|e| RunError::Invalid(e.to_string()))?;
                sets.push((anchor.clone(), shape, set));
                Ok(sets.len() - 1)
            }
        }
    }

    /// Makes (or finds) the set `job` runs on without measuring: rank 0
    /// of many makes a shared set before the others open it.
    pub fn prepare(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), RunError> {
        self.open_resolved(job, p, stop, progress, warnings).map(|_| ())
    }

    /// One file-set job: its set prepared, then `ready` (one rank of many
    /// meets the others there; a failure measures nothing), then measured.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
        live: Option<Live<'_>>,
        ready: &mut dyn FnMut() -> Result<(), RunError>,
    ) -> Result<JobResult, RunError> {
        let (job, index) = self.open_resolved(job, p, stop, progress, warnings)?;
        ready()?;
        let set = &self.open[index].2;
        let result = super::fileset_measure::measure(&job, p, set, stop, progress, warnings, live)
            .map_err(RunError::Invalid)?;
        Ok(result)
    }

    /// The job with its set's parameters resolved, and the index of the set
    /// it runs on, made or found.
    fn open_resolved(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<(Job, usize), RunError> {
        let job = resolve(job, warnings);
        let r = p
            .resolve()
            .map_err(|e| RunError::Invalid(format!("{}: {e}", job.name)))?;
        let index = self.open_for(&job, &r, stop, progress, warnings)?;
        Ok((job, index))
    }
}

impl Sets {
    /// One file-set job whose create phase is stonewalled (IO500's mdtest
    /// `-W`, `fileset::Stonewall`): prepared, `ready`, then measured.
    #[allow(clippy::too_many_arguments)]
    pub fn run_stonewalled(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
        ready: &mut dyn FnMut() -> Result<(), RunError>,
        wall: &mut crate::fileset::Stonewall<'_>,
    ) -> Result<JobResult, RunError> {
        let (job, index) = self.open_resolved(job, p, stop, progress, warnings)?;
        ready()?;
        let set = &self.open[index].2;
        let result =
            super::fileset_measure::measure_stonewalled(&job, p, set, stop, progress, warnings, wall)
                .map_err(RunError::Invalid)?;
        Ok(result)
    }
}

/// What `Sets::open_for` would refuse for `job`, checked before a run's
/// first I/O (`runner::refuse_up_front`); creates nothing.
pub(super) fn check_up_front(job: &Job, p: &FileSetParams) -> Result<(), RunError> {
    let job = resolve(job, &mut Vec::new());
    let r = p
        .resolve()
        .map_err(|e| RunError::Invalid(format!("{}: {e}", job.name)))?;
    crate::fileset::check(&job, &r).map_err(RunError::Invalid)?;
    let anchor = job.target.clone().unwrap_or_else(|| PathBuf::from("."));
    sets::check_before(&anchor, &crate::fileset::set_shape(&r), &r)
        .map_err(|e| RunError::Invalid(e.to_string()))
}

impl Kinds {
    pub(super) fn fileset(
        &mut self,
        job: &Job,
        p: &FileSetParams,
        stop: &StopFlag,
        progress: &Progress,
        warnings: &mut Vec<Warning>,
        live: Live<'_>,
    ) -> Result<JobResult, RunError> {
        self.filesets
            .run(job, p, stop, progress, warnings, Some(live), &mut || Ok(()))
    }
}
