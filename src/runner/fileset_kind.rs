//! The runner's part for file-set jobs: the sets a run has prepared (a set
//! is formatted once and reused by the run's later jobs of the same shape
//! on the same anchor), the job itself measured by `fileset::measure`, and
//! removing at the end the sets this run made, unless --keep.

use std::path::PathBuf;

use super::{Kinds, Live, Progress, RunError, StopFlag, resolve};
use crate::jobs::Job;
use crate::jobs::fileset::{FileSetParams, Resolved};
use crate::metrics::{JobResult, Warning};
use crate::targets::fileset::{self as sets, FileSet};

#[derive(Default)]
pub(super) struct Sets {
    open: Vec<(PathBuf, Resolved, FileSet)>,
}

impl Sets {
    pub(super) fn cleanup(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        for (_, _, set) in self.open.drain(..) {
            if set.created && !keep {
                for error in set.remove() {
                    warnings.push(Warning::TestFileNotRemoved { error });
                }
            }
        }
    }
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
        let job = resolve(job, warnings);
        let r = p
            .resolve()
            .map_err(|e| RunError::Invalid(format!("{}: {e}", job.name)))?;
        crate::fileset::check(&job, &r).map_err(RunError::Invalid)?;
        let anchor = job.target.clone().unwrap_or_else(|| PathBuf::from("."));
        let shape = crate::fileset::set_shape(&r);
        let sets = &mut self.filesets.open;
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
        let index = match sets.iter().position(|(a, s, _)| *a == anchor && *s == shape) {
            Some(i) => i,
            None => {
                progress.message(&format!(
                    "{}: preparing the file set in {}",
                    job.name,
                    anchor.display()
                ));
                let report = |m: &str| progress.message(m);
                let set = sets::prepare(&anchor, &shape, job.seed.unwrap_or(0), job.threads, stop, &report)
                    .map_err(|e| RunError::Invalid(e.to_string()))?;
                sets.push((anchor.clone(), shape, set));
                sets.len() - 1
            }
        };
        let set = &sets[index].2;
        crate::fileset::measure(&job, p, set, stop, progress, warnings, Some(live)).map_err(RunError::Invalid)
    }
}
