//! The kind of workload a job runs, with that kind's own parameters, and
//! [`WorkloadKind`]: what each kind declares once about its jobs. Block
//! I/O's parameters are `Job`'s fields (rw, bs, qd...), as stored runs have
//! them; every other kind carries its own here.
//!
//! [`Workload::kind`] is the job model's one exhaustive match on the kind:
//! code outside a kind's own files asks the kind, never "which kind is
//! this?", so a new kind is a compile error here and in the runner's and
//! the reports' one match each (`runner::kinds`, `report::kind_views`),
//! and nowhere else (`tests/kind_places.rs` holds that).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Job;
use super::bonnie_params::BonnieParams;
use super::db_params::DbParams;
use super::fileset::FileSetParams;
use super::options::Scope;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Block I/O on one file or device: the job's rw, bs, qd and the rest.
    #[default]
    Block,
    /// One of bonnie++'s tests (`kura suite bonnie`).
    Bonnie(BonnieParams),
    /// Operations on a tree of files under an anchor directory (`--mix`).
    #[serde(rename = "fileset")]
    FileSet(FileSetParams),
    /// One of the database tests (`kura suite db`).
    Database(DbParams),
}

/// What a kind of workload says of its jobs, for everything that handles
/// jobs of any kind: the job model, the runner's checks and plans, the
/// store and the reports. Each kind implements it once, in its own file
/// (`jobs::block`, `jobs::fileset`, `jobs::bonnie_params`,
/// `jobs::db_params`).
pub trait WorkloadKind: Sync {
    /// The kind's name where a job is listed (`explain`) and in its JSON.
    fn name(&self) -> &'static str;

    /// The option scope that is the kind's own, beside run control's: an
    /// option of another kind's scope is refused on its jobs, and not
    /// stored with them.
    fn scope(&self) -> Scope;

    /// The stored job keeps the block options (`rw`, `bs`, `qd`...):
    /// they say what its jobs do. A kind whose block fields are defaults
    /// it never used leaves them out of its JSON.
    fn stores_block_fields(&self) -> bool {
        false
    }

    /// A one-line description of what the job does: `randread 4k qd32 x1`.
    fn summary(&self, job: &Job) -> String;

    /// What the run list's `rw` and `bs` columns say of the job: a kind
    /// other than block I/O names itself in `rw`, `bs` empty, rather than
    /// its unused block fields.
    fn listed_as(&self, job: &Job) -> (String, String) {
        (self.summary(job), String::new())
    }

    /// Measured in one call, on a state kept from one job of the run to
    /// the next (bonnie++'s files, the database's server), with no expected
    /// duration and no rounds until steady (bonnie++'s tests, the
    /// database's).
    fn measured_whole(&self) -> bool;

    /// Operations one thread of the job keeps in flight at most.
    fn in_flight_per_thread(&self, _job: &Job) -> u64 {
        1
    }

    /// Whether the job's queue depth is its own to set (block I/O); a
    /// kind whose thread does one operation at a time is raised by threads.
    fn has_queue(&self) -> bool {
        false
    }

    /// The target is a directory the kind makes its files under, though
    /// it is stored as a file target (`TargetKind` keeps its two kinds, so
    /// older kuras still read the runs).
    fn target_is_directory(&self) -> bool;

    /// Its results are by operation (create, stat, read...), a row each
    /// where runs are compared, rather than by direction.
    fn rows_by_operation(&self) -> bool {
        false
    }

    /// A latency-bounded search can raise its load.
    fn has_load_to_raise(&self) -> bool {
        true
    }

    /// Runs with the jobs of its group at the same time (`group=`).
    fn runs_in_groups(&self) -> bool {
        false
    }

    /// Runs on many MPI ranks at once (`kura cluster`).
    fn runs_on_ranks(&self) -> bool;

    /// How long the job is expected to measure, for progress.
    fn expected_duration(&self, job: &Job) -> Option<Duration> {
        match self.measured_whole() {
            true => None,
            false => job.runtime.map(|r| r + job.ramp),
        }
    }
}

/// Block jobs, and jobs stored before kinds existed, store no `workload`
/// key: stored runs read the same in older kuras.
pub fn stored_without_key(workload: &Workload) -> bool {
    matches!(workload, Workload::Block)
}

impl Workload {
    /// The kind of this workload: the job model's one match on it.
    pub fn kind(&self) -> &dyn WorkloadKind {
        match self {
            Workload::Block => &super::block::BlockKind,
            Workload::Bonnie(p) => p,
            Workload::FileSet(p) => p,
            Workload::Database(p) => p,
        }
    }

    /// The kind's name where a job is listed (`explain`).
    pub fn kind_name(&self) -> &'static str {
        self.kind().name()
    }

    pub fn bonnie(&self) -> Option<&BonnieParams> {
        match self {
            Workload::Bonnie(p) => Some(p),
            _ => None,
        }
    }

    pub fn fileset(&self) -> Option<&FileSetParams> {
        match self {
            Workload::FileSet(p) => Some(p),
            _ => None,
        }
    }

    pub fn database(&self) -> Option<&DbParams> {
        match self {
            Workload::Database(p) => Some(p),
            _ => None,
        }
    }
}
