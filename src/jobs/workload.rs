//! The kind of workload a job runs, with that kind's own parameters. Block
//! I/O's parameters are `Job`'s fields (rw, bs, qd...), as stored runs have
//! them; every other kind carries its own here.

use serde::{Deserialize, Serialize};

use super::bonnie_params::BonnieParams;
use super::db_params::DbParams;
use super::fileset::FileSetParams;

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Block I/O on one file or device: the job's rw, bs, qd and the rest.
    #[default]
    Block,
    /// One of bonnie++'s tests (`kura suite bonnie`).
    Bonnie(BonnieParams),
    // file sets (issue 13)
    /// Operations on a tree of files under an anchor directory (`--mix`).
    #[serde(rename = "fileset")]
    FileSet(FileSetParams),
    /// One of the database tests (`kura suite db`).
    Database(DbParams),
}

impl Workload {
    /// Jobs stored before kinds existed, and block jobs now, store no `workload` key.
    pub fn is_block(&self) -> bool {
        matches!(self, Workload::Block)
    }

    /// The kind's name where a job is listed (`explain`): the block
    /// fields of a job of another kind are defaults, not what it does.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Workload::Block => "block",
            Workload::Bonnie(_) => "bonnie",
            Workload::FileSet(_) => "fileset",
            Workload::Database(_) => "db",
        }
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
