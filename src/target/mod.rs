//! Turning a path into something safe to load: test files created and
//! pre-filled, block devices opened and checked before any write, and the
//! facts about the target that a report needs. Issues no benchmark I/O.

mod caveats;
mod facts;
mod file;
mod safety;

pub use caveats::{Context as CaveatContext, caveats};
pub use facts::{host_facts, target_facts};
pub use safety::{WriteRefusal, check_device_writable};

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::metrics::{TargetFacts, TargetKind};
use crate::spec::Job;

#[derive(Debug, Error)]
pub enum TargetError {
    #[error("{path}: {why}")]
    Invalid { path: String, why: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Refused(#[from] WriteRefusal),
}

/// What the runner needs to know to load a target.
#[derive(Debug, Clone)]
pub struct PreparedTarget {
    pub path: PathBuf,
    pub kind: TargetKind,
    /// First byte of the span the job may touch.
    pub span_start: u64,
    /// Length of that span.
    pub span_bytes: u64,
    /// Offsets and lengths of direct I/O must be multiples of this.
    pub logical_block_bytes: u64,
    /// kura created this file for the run and removes it unless `--keep`.
    pub created: bool,
    pub facts: TargetFacts,
}

#[derive(Debug, Clone, Default)]
pub struct TargetOptions {
    /// `--allow-destroy DEVICE`: the one device the user allows to be overwritten.
    pub allow_destroy: Option<PathBuf>,
    /// Set by Ctrl-C: a pre-fill in progress stops and removes its file.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

pub const DEFAULT_TARGET: &str = crate::spec::job::DEFAULT_TARGET;

/// The path a job loads: its own target or `kura-test.dat` here.
pub fn job_path(job: &Job) -> PathBuf {
    job.target
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TARGET))
}

/// Resolves, checks and (for new test files) creates and pre-fills the target.
pub fn prepare(job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    let path = job_path(job);
    if is_block_device(&path) {
        file::prepare_device(&path, job, opts)
    } else {
        file::prepare_file(&path, job, opts)
    }
}

pub fn is_block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false)
}

/// Opens the target for the job's I/O.
pub fn open(target: &PreparedTarget, direct: bool, write: bool) -> Result<std::fs::File, TargetError> {
    file::open(&target.path, direct, write)
}

/// Evicts the target's clean pages from the page cache, as fio's `invalidate=1` does.
pub fn drop_cache(target: &PreparedTarget) -> Result<(), TargetError> {
    file::drop_cache(target)
}

/// Removes a test file kura created; leaves everything else alone.
pub fn cleanup(target: &PreparedTarget) -> Result<(), TargetError> {
    if target.created && target.kind == TargetKind::File {
        std::fs::remove_file(&target.path).map_err(|source| TargetError::Io {
            path: target.path.display().to_string(),
            source,
        })?;
    }
    Ok(())
}

/// Logical block size of the device holding `path`, or 512 when it cannot be told.
pub fn logical_block_bytes(path: &Path) -> u64 {
    facts::backing_device(path)
        .and_then(|d| d.logical_block_bytes())
        .unwrap_or(512)
}
