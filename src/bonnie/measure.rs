//! The bonnie kind across a run's jobs (`BonnieRun`): DIR checked once
//! more, the random draws of each repetition, the names of the current set
//! of small files, and the cleanup of exactly what the run made.

use std::ffi::CString;
use std::sync::atomic::AtomicBool;

use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::check::check_target;
use super::own_files::{FileId, cleanup};
use super::results::{describe, job_result};
use super::session::Session;
use crate::jobs::Job;
use crate::jobs::bonnie_params::{BonnieParams, BonnieSettings, Test};
use crate::metrics::{JobResult, TargetFacts, TargetKind};

/// The state bonnie's tests share while the runner runs them one after
/// another: the settings, the random draws of the current repetition, and
/// the names of the current set of small files.
pub struct BonnieRun {
    cfg: BonnieSettings,
    target: TargetFacts,
    repetition: u32,
    rng: SmallRng,
    names: Vec<CString>,
    /// The data file this run made, for the tests that open it again and for cleanup.
    data_id: FileId,
    /// The directory of small files this run made last.
    files_id: FileId,
}

impl BonnieRun {
    /// The directory its files are in.
    pub fn dir(&self) -> &std::path::Path {
        &self.cfg.dir
    }

    /// From the first job of a bonnie run; refuses a DIR that holds
    /// anything kura would overwrite, or that has no room.
    pub fn new(job: &Job, p: &BonnieParams) -> Result<BonnieRun, String> {
        let cfg = BonnieSettings::of_job(job, p);
        check_target(&cfg)?;
        let logical = crate::targets::logical_block_bytes(&cfg.dir);
        let target =
            crate::targets::target_facts(&cfg.data_path(), TargetKind::File, cfg.size_bytes, logical, true);
        Ok(BonnieRun {
            cfg,
            target,
            repetition: 0,
            rng: SmallRng::seed_from_u64(p.seed as u64),
            names: Vec::new(),
            data_id: None,
            files_id: None,
        })
    }

    /// What the job is about to do, for the progress line.
    pub fn describe(&self, p: &BonnieParams) -> String {
        let Some(test) = Test::from_name(&p.test) else {
            return p.test.clone();
        };
        let round = if p.runs > 1 {
            crate::t!("step-repetition", repetition = p.repetition, runs = p.runs)
        } else {
            String::new()
        };
        format!(
            "{}{round}: {}",
            crate::i18n::heading(test.name()),
            describe(&self.cfg, test)
        )
    }

    /// Measures one test. `Err` when nothing was measured (a setup
    /// failure); `Ok` with the failure that ended the test, if one did.
    pub fn run(
        &mut self,
        job: &Job,
        p: &BonnieParams,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String> {
        let test =
            Test::from_name(&p.test).ok_or_else(|| format!("{}: not one of bonnie++'s tests", p.test))?;
        if p.repetition != self.repetition {
            // Every repetition draws the same seeks and names, as bonnie++ -x does.
            self.repetition = p.repetition;
            self.rng = SmallRng::seed_from_u64(p.seed as u64);
            self.names.clear();
        }
        let mut session = Session {
            cfg: &self.cfg,
            stop,
            rng: self.rng.clone(),
            names: std::mem::take(&mut self.names),
            data_id: self.data_id,
            files_id: self.files_id,
        };
        let measured = session.measure(test);
        self.rng = session.rng;
        self.names = session.names;
        self.data_id = session.data_id;
        self.files_id = session.files_id;
        let m = measured.map_err(|e| format!("{}: {e}", test.name()))?;
        let error = m.error.clone().map(|e| format!("{}: {e}", test.name()));
        Ok((job_result(job, test, m, &self.target), error))
    }

    /// Removes what kura created in DIR, unless `keep`; `errors` gets what could not be removed.
    pub fn cleanup(&self, keep: bool, warnings: &mut Vec<String>) {
        if !keep {
            cleanup(&self.cfg, self.data_id, self.files_id, warnings);
        }
    }
}
