//! Turning a path into something safe to load: test files created and
//! pre-filled, block devices opened and checked before any write, and the
//! facts about the target that a report needs. Issues no benchmark I/O.

mod caveats;
// The devices' own counters as evidence.
pub mod device_counters;
mod facts;
mod file;
pub mod fileset;
// The one write that is not the user's data: kernel settings.
pub mod kernel;
pub mod launcher;
pub mod output;
// Test files at kura's own names are recognised by kura's mark.
mod owner;
// Every file kura makes for itself (database, saved runs, logs).
pub mod own;
// A path reaches the same object for the whole run.
mod pin;
mod safety;
// The whole block stack a write reaches.
mod stack;
mod verdicts;
// Never write over kura's own database, whatever path reaches it.
pub mod protected;

pub use caveats::{Context as CaveatContext, caveats, write_cache_of};
pub use facts::{host_facts, target_facts};
pub use safety::{WriteRefusal, check_device_writable};
pub use verdicts::{
    after as verdict_after, before as verdicts_before, scattered_cache, unreachable_cache_at,
};

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use thiserror::Error;

use crate::jobs::Job;
use crate::metrics::{TargetFacts, TargetKind};

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
    /// What the path named when it was checked: every later open and the
    /// removal of a created file refuse to act on anything else.
    pub identity: Option<Identity>,
    /// Held from the check to the end of the run; see [`Guard`].
    pub guard: Option<Arc<Guard>>,
    /// A name kura chose itself (`kura-test.dat`, `PATH.N`): never followed through a symlink.
    pub own_name: bool,
}

/// Which file or device a path named: a device by its device number (any node
/// for it will do), anything else by file system and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    /// The device number of a block device; `None` for files.
    pub rdev: Option<u64>,
}

impl Identity {
    pub fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            rdev: meta.file_type().is_block_device().then(|| meta.rdev()),
        }
    }

    pub fn matches(&self, meta: &std::fs::Metadata) -> bool {
        match self.rdev {
            Some(rdev) => meta.file_type().is_block_device() && meta.rdev() == rdev,
            None => !meta.file_type().is_block_device() && meta.dev() == self.dev && meta.ino() == self.ino,
        }
    }
}

/// What a prepared target keeps open until the run ends: the descriptor that
/// was checked (a device opened with O_EXCL for writing, so nothing mounts or
/// claims it meanwhile), and for a test file kura created, the directory it
/// was created in, so that it is removed from that directory even if the path
/// now leads elsewhere (a lazy unmount, a renamed directory).
#[derive(Debug, Default)]
pub struct Guard {
    // Never read: holding it open is the point.
    #[allow(dead_code)]
    pub(crate) held: Option<Arc<File>>,
    pub(crate) dir: Option<OwnedFd>,
    pub(crate) name: Option<OsString>,
    /// A test file kura made or took over, opened and locked (`flock`) for
    /// the run: a second kura at the same name sees the lock and refuses.
    pub(crate) lock: Option<File>,
}

#[derive(Debug, Clone, Default)]
pub struct TargetOptions {
    /// `--allow-destroy DEVICE`: the one device the user allows to be overwritten.
    pub allow_destroy: Option<PathBuf>,
    /// Set by Ctrl-C: a pre-fill in progress stops and removes its file.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Told how many bytes of a new test file's pre-fill are written.
    pub fill_progress: Option<FillProgress>,
}

/// A pre-fill's progress report: called with the bytes written so far, once per chunk.
#[derive(Clone)]
pub struct FillProgress(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for FillProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FillProgress")
    }
}

pub const DEFAULT_TARGET: &str = crate::jobs::job::DEFAULT_TARGET;

/// The path a job loads: its own target or `kura-test.dat` here.
pub fn job_path(job: &Job) -> PathBuf {
    job.target
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TARGET))
}

/// Resolves, checks and (for new test files) creates and pre-fills the target.
pub fn prepare(job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    prepare_as(job, opts, job.target.is_none() || job.own_name)
}

/// [`prepare`] for a name kura derived itself (`PATH.N` of `file_per_thread`,
/// a suite's file), which is never followed through a symlink.
pub fn prepare_own(job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    prepare_as(job, opts, true)
}

fn prepare_as(job: &Job, opts: &TargetOptions, own_name: bool) -> Result<PreparedTarget, TargetError> {
    let path = job_path(job);
    pin::check(&path)?;
    let prepared = prepare_unpinned(&path, job, opts, own_name)?;
    if let Some(identity) = prepared.identity {
        pin::pin(&path, identity);
    }
    Ok(prepared)
}

fn prepare_unpinned(
    path: &Path,
    job: &Job,
    opts: &TargetOptions,
    own_name: bool,
) -> Result<PreparedTarget, TargetError> {
    let path = path.to_path_buf();
    if own_name {
        refuse_file_trims(&path, job)?;
        refuse_own_name_link(&path)?;
        refuse_new_file_in_dev(&path)?;
        return file::prepare_file(&path, job, opts, true);
    }
    if is_block_device(&path) {
        file::prepare_device(&path, job, opts)
    } else {
        refuse_file_trims(&path, job)?;
        refuse_new_file_in_dev(&path)?;
        file::prepare_file(&path, job, opts, false)
    }
}

/// [`refuse_new_file_in_dev`] for every job's target, before the database
/// is opened: the refusal then leaves nothing behind, not even a new
/// database.
pub fn check_new_file_places<'a>(jobs: impl IntoIterator<Item = &'a Job>) -> Result<(), TargetError> {
    jobs.into_iter()
        .try_for_each(|job| refuse_new_file_in_dev(&job_path(job)))
}

/// A new test file is never created in /dev (or anywhere on devtmpfs): it
/// is where device nodes live, and it is RAM, so the file would fill memory
/// and its numbers would be memory's (a vdbench `lun=/dev/{device}` did
/// both). An existing file there is judged as any file is.
fn refuse_new_file_in_dev(path: &Path) -> Result<(), TargetError> {
    if std::fs::metadata(path).is_ok() {
        return Ok(());
    }
    // A dangling link is created through: judge where it leads as well.
    let mut places = vec![facts::canonical(path)];
    if let Ok(link) = std::fs::read_link(path) {
        let parent = path.parent().unwrap_or(Path::new("."));
        places.push(facts::canonical(&parent.join(link)));
    }
    for place in places {
        let devtmpfs = || facts::mount_of(&place).is_some_and(|m| m.fstype == "devtmpfs");
        if place.starts_with("/dev") || devtmpfs() {
            return Err(TargetError::Invalid {
                path: path.display().to_string(),
                why: "no such device, and kura does not create test files in /dev (device nodes live there, \
                      and it is memory, not a disk); name an existing device, or a file on the disk's file system"
                    .into(),
            });
        }
    }
    Ok(())
}

pub fn is_block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false)
}

/// Opens the target for the job's I/O; refuses when the path no longer names
/// what was checked and prepared (a symlink swapped, a file replaced).
pub fn open(target: &PreparedTarget, direct: bool, write: bool) -> Result<std::fs::File, TargetError> {
    open_with(target, direct, write, 0)
}

/// `open` with more open(2) flags (O_SYNC, O_DSYNC).
pub fn open_with(
    target: &PreparedTarget,
    direct: bool,
    write: bool,
    extra: libc::c_int,
) -> Result<std::fs::File, TargetError> {
    file::open_with(target, direct, write, extra)
}

/// Evicts the target's clean pages from the page cache, as fio's `invalidate=1` does.
pub fn drop_cache(target: &PreparedTarget) -> Result<(), TargetError> {
    file::drop_cache(target)
}

/// Removes a test file kura created, and only that file: the name is looked
/// up in the directory it was created in, without following links, and
/// removed only when it is still the inode kura created.
pub fn cleanup(target: &PreparedTarget) -> Result<(), TargetError> {
    if !target.created || target.kind != TargetKind::File {
        return Ok(());
    }
    let (Some(identity), Some(guard)) = (&target.identity, &target.guard) else {
        return Ok(());
    };
    file::remove_created(&target.path, guard, identity)?;
    pin::unpin(&target.path);
    Ok(())
}

/// Refuses now what preparing `path`, one of kura's own names, would refuse
/// later (somebody's file or a running kura's at the name), so that a suite
/// refuses before its first job rather than after it; creates nothing.
pub fn check_own_name(path: &Path) -> Result<(), TargetError> {
    refuse_own_name_link(path)?;
    file::check_own_name(path)
}

/// Our own names are never followed: a link there points at somebody's data.
fn refuse_own_name_link(path: &Path) -> Result<(), TargetError> {
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && meta.file_type().is_symlink()
    {
        return Err(TargetError::Invalid {
            path: path.display().to_string(),
            why: "is a symbolic link, and kura does not follow links at the test-file names it \
                  chooses; remove it, or name the file you mean with --target"
                .into(),
        });
    }
    Ok(())
}

/// With `--keep`: marks a test file kura created as kept, so that the next
/// run at its name uses it rather than removing it as a leftover. A file
/// that cannot be marked so is removed by that run and made afresh: only
/// its pre-fill is lost.
pub fn keep(target: &PreparedTarget) {
    if let (true, Some(guard)) = (target.created, &target.guard) {
        let _ = file::mark_kept(guard);
    }
}

/// Logical block size of the device holding `path`, or 512 when it cannot be told.
pub fn logical_block_bytes(path: &Path) -> u64 {
    facts::backing_device(path)
        .and_then(|d| d.logical_block_bytes())
        .unwrap_or(512)
}

/// fio 3.33 trims with the BLKDISCARD ioctl (os/os-linux.h, os_trim),
/// which a regular file refuses (ENOTTY: fio's job ends with err=25): kura
/// says so before the run.
fn refuse_file_trims(path: &Path, job: &Job) -> Result<(), TargetError> {
    if !job.does_trims() {
        return Ok(());
    }
    Err(TargetError::Invalid {
        path: path.display().to_string(),
        why: format!(
            "rw={} trims with the BLKDISCARD ioctl, as fio does, and only a block device takes it (fio 3.33 \
             fails on a regular file with \"Inappropriate ioctl for device\"); name a block device",
            job.rw.name()
        ),
    })
}
