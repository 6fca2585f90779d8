//! Test files and block devices: checking the span a job may touch, creating
//! and pre-filling test files, opening targets, and evicting their cache.

use std::ffi::{CString, OsStr};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::facts::{backing_device, target_facts};
use super::owner::{self, Maker, Mark};
use super::safety::{WriteRefusal, check_writable, describe_all, find_signatures};
use super::{Guard, Identity, PreparedTarget, TargetError, TargetOptions};
use crate::jobs::Job;
use crate::jobs::fill::fill_buffer;
use crate::jobs::job::DEFAULT_FILE_SIZE;
use crate::jobs::units::format_size;
use crate::metrics::TargetKind;

/// Pre-fill writes in chunks of this size, each from its own seed.
const FILL_CHUNK: usize = 1 << 20;
/// O_DIRECT alignment when the backing device is unknown; what ext4 needs on 512-byte disks.
const DEFAULT_LOGICAL_BLOCK: u64 = 512;

fn invalid(path: &Path, why: impl Into<String>) -> TargetError {
    TargetError::Invalid {
        path: path.display().to_string(),
        why: why.into(),
    }
}

fn io_error(path: &Path, source: io::Error) -> TargetError {
    TargetError::Io {
        path: path.display().to_string(),
        source,
    }
}

pub fn prepare_file(
    path: &Path,
    job: &Job,
    opts: &TargetOptions,
    own_name: bool,
) -> Result<PreparedTarget, TargetError> {
    let existing = match std::fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(invalid(
                    path,
                    "is a symbolic link to a file that does not exist; kura does not create files \
                     through links: name the file itself",
                ));
            }
            None
        }
        Err(e) => return Err(io_error(path, e)),
    };
    let dir = parent_dir(path);
    match &existing {
        Some(meta) if meta.is_dir() => Err(invalid(path, "is a directory; give a file or a block device")),
        Some(meta) if !meta.is_file() => Err(invalid(
            path,
            "is not a regular file or a block device; give a file or a block device",
        )),
        Some(meta) if own_name => match at_own_name(path, meta)? {
            Found::Ours(lock) => prepare_existing(path, meta, job, opts, true, lock),
            Found::Leftover => prepare_file(path, job, opts, own_name),
        },
        // A kura killed at a path you named left its test file there: known by
        // kura's mark, and made anew for a job that writes. A job that only
        // reads it reads what is there (verify's read-back after a crash).
        Some(meta) if job.modifies() && named_leftover(path, meta)? => {
            prepare_file(path, job, opts, own_name)
        }
        Some(meta) => prepare_existing(path, meta, job, opts, own_name, None),
        None => {
            match std::fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Err(invalid(path, format!("{} is not a directory", dir.display()))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(invalid(
                        path,
                        crate::t!("error-no-directory", dir = dir.display().to_string()),
                    ));
                }
                Err(e) => return Err(io_error(dir, e)),
            }
            prepare_new(path, dir, job, opts, own_name)
        }
    }
}

/// A file that was there before the run is used as it is: kura never
/// truncates, grows or refills a file it did not create. Writes land inside
/// its current size, and a file that carries a signature (a disk image) is
/// refused for writing like a device.
fn prepare_existing(
    path: &Path,
    meta: &std::fs::Metadata,
    job: &Job,
    opts: &TargetOptions,
    own_name: bool,
    lock: Option<File>,
) -> Result<PreparedTarget, TargetError> {
    let len = meta.len();
    // At one of kura's own names the file is kura's, kept by an earlier run (`--keep`).
    let whose = match own_name {
        true => "the test file an earlier run kept",
        false => "a file it did not create",
    };
    if len == 0 {
        return Err(invalid(
            path,
            format!(
                "is an empty file; kura does not fill or resize {whose}: remove it to let kura \
                 create a test file there, or name another file"
            ),
        ));
    }
    // Like fio: without a size the file is used at its own size.
    let size = match job.size_bytes {
        Some(size) if size > len => {
            return Err(invalid(
                path,
                format!(
                    "is {} ({len} bytes), smaller than the size {} ({size} bytes) the job asks for; \
                     kura does not resize {whose}: give a size of at most {}, or \
                     remove the file to let kura create a test file of {}",
                    format_size(len),
                    format_size(size),
                    format_size(len),
                    format_size(size)
                ),
            ));
        }
        Some(size) => size,
        None => len,
    };
    let (span_start, span_bytes) = file_span(path, job, size)?;
    let logical = backing_device(path)
        .and_then(|d| d.logical_block_bytes())
        .unwrap_or(DEFAULT_LOGICAL_BLOCK);
    check_alignment(path, job, logical, "the backing device's")?;

    let writes = job.does_writes();
    let mut flags = libc::O_CLOEXEC;
    if own_name {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(writes)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if writes {
                invalid(
                    path,
                    format!("the job writes, but the file cannot be opened for writing: {e}"),
                )
            } else {
                io_error(path, e)
            }
        })?;
    let held = file.metadata().map_err(|e| io_error(path, e))?;
    if !held.is_file() || held.dev() != meta.dev() || held.ino() != meta.ino() {
        return Err(invalid(path, "changed while kura was checking it; try again"));
    }
    if writes {
        check_file_writable(path, &file, &held, opts.allow_destroy.as_deref(), own_name)?;
    }
    // The ranks of one run are processes of their own that share the file (`--shared`).
    let rank = super::launcher::launched_as_rank().is_some();
    if lock.is_none() && !rank && !owner::made_here(held.dev(), held.ino()) {
        lock_for_run(path, &file, &held, writes)?;
    }
    Ok(PreparedTarget {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        span_start,
        span_bytes,
        logical_block_bytes: logical,
        created: false,
        facts: target_facts(path, TargetKind::File, size, logical, false),
        identity: Some(Identity::of(&held)),
        guard: Some(Arc::new(Guard {
            held: Some(Arc::new(file)),
            lock,
            ..Guard::default()
        })),
        own_name,
    })
}

/// Files this process locked for its run, by (device, inode): the lock is
/// held on a duplicate of the checked descriptor until the process ends, and
/// the run's later jobs on the same file find it here instead of refusing
/// themselves.
static RUN_LOCKS: std::sync::Mutex<Vec<((u64, u64), File)>> = std::sync::Mutex::new(Vec::new());

/// Two kuras measuring one file measure each other's I/O and both store it
/// as the file's: a file named as a target is locked for the run (`flock`,
/// shared for a job that only reads, exclusive for one that writes), and a
/// second kura that cannot take the lock is refused.
fn lock_for_run(path: &Path, file: &File, meta: &std::fs::Metadata, writes: bool) -> Result<(), TargetError> {
    let mut locks = RUN_LOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let key = (meta.dev(), meta.ino());
    if locks.iter().any(|(k, _)| *k == key) {
        return Ok(());
    }
    let held = file.try_clone().map_err(|e| io_error(path, e))?;
    let how = if writes { libc::LOCK_EX } else { libc::LOCK_SH };
    // SAFETY: the fd is open for the call; flock only reads its integer arguments.
    if unsafe { libc::flock(held.as_raw_fd(), how | libc::LOCK_NB) } != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            // Any program may hold a flock: kura only guesses that it is another kura.
            let why = match flock_holder(meta, &std::fs::read_to_string("/proc/locks").unwrap_or_default()) {
                Some(pid) => crate::t!("error-file-locked-pid", pid = pid),
                None => crate::t!("error-file-locked"),
            };
            return Err(invalid(path, why));
        }
        return Err(io_error(path, e));
    }
    locks.push((key, held));
    Ok(())
}

/// The process other than this one that holds a `flock` on the file `meta`
/// describes, from `/proc/locks` (`1: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE
/// 0 EOF`, the device numbers in hex; a waiter's line has `->`).
fn flock_holder(meta: &std::fs::Metadata, locks: &str) -> Option<u32> {
    let (major, minor) = super::stack::devnum(meta.dev());
    let file = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) != Some(&"FLOCK") || fields.get(5) != Some(&file.as_str()) {
            return None;
        }
        fields[4].parse().ok().filter(|pid| *pid != std::process::id())
    })
}

/// What is at a name kura chooses itself, when kura may go on.
enum Found {
    /// A file kura made: earlier in this run, or kept by an earlier run with
    /// `--keep`. Used as it is; the lock (when taken here) is held for the run.
    Ours(Option<File>),
    /// A leftover of a kura that died; it was removed, the name is free.
    Leftover,
}

/// Decides about a regular file at one of kura's own names by what kura
/// wrote on it when it created it (see `owner`): anything else is somebody's
/// data and is refused, and so is the file of a kura that is still running.
fn at_own_name(path: &Path, meta: &std::fs::Metadata) -> Result<Found, TargetError> {
    at_own_name_as(path, meta, false)
}

/// Refuses, before anything runs, what `prepare` would refuse at one of
/// kura's own names (somebody's file, a running kura's); a leftover is left
/// for `prepare` to remove, and nothing is created or removed here.
pub fn check_own_name(path: &Path) -> Result<(), TargetError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() || !meta.is_file() {
            // prepare says what it is, before anything is written.
            return Ok(());
        }
        at_own_name_as(path, &meta, true)?;
    }
    Ok(())
}

/// `dry`: only look (the lock is taken and dropped at once, a leftover stays).
fn at_own_name_as(path: &Path, meta: &std::fs::Metadata, dry: bool) -> Result<Found, TargetError> {
    // O_NONBLOCK: a FIFO swapped in since the check must not hang the open.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| io_error(path, e))?;
    let held = file.metadata().map_err(|e| io_error(path, e))?;
    if !held.is_file() || held.dev() != meta.dev() || held.ino() != meta.ino() {
        return Err(invalid(path, "changed while kura was checking it; try again"));
    }
    // An earlier job of this run made it (io500's read phases read the write phases' files).
    if owner::made_here(held.dev(), held.ino()) {
        return Ok(Found::Ours(None));
    }
    // The ranks of one cluster run share the files other ranks made, each
    // rank a process of its own: while the run goes on (not in the check
    // before its first job), a file that is kura's or cannot be told is theirs.
    let rank = !dry && super::launcher::launched_as_rank().is_some();
    let shown = crate::report::escape::shell_word(&path.display().to_string());
    let mark = match owner::read(&file) {
        Ok(Some(mark)) => mark,
        Ok(None) => {
            return Err(invalid(
                path,
                "is not a file kura made; kura does not write into files at the names it chooses \
                 itself: remove it, or name it with --target",
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::Unsupported && rank => return Ok(Found::Ours(None)),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => {
            return Err(invalid(
                path,
                format!(
                    "is at a name kura chooses itself, and its file system keeps no extended \
                     attributes, so kura cannot tell whether it made it; if it is a test file \
                     kura left behind, remove it with: rm -- {shown}; to use it, name it with --target"
                ),
            ));
        }
        Err(e) => return Err(io_error(path, e)),
    };
    let maker = mark.maker();
    if maker == Maker::This || rank {
        return Ok(Found::Ours(None));
    }
    let in_use = || {
        invalid(
            path,
            format!(
                "is in use by kura pid {} (its test file); wait for it to finish, or run in another directory",
                mark.pid
            ),
        )
    };
    // Ranks check the same shared names at the same moment: their probes
    // of the lock would take each other for a running kura.
    let probe = !(dry && super::launcher::launched_as_rank().is_some());
    if probe && !owner::lock(&file).map_err(|e| io_error(path, e))? {
        return Err(in_use());
    }
    match maker {
        Maker::This => Ok(Found::Ours(None)),
        // Its lock is free, yet the process runs: locks may not work here; kura does not guess.
        Maker::Running => Err(in_use()),
        Maker::Elsewhere => Err(invalid(
            path,
            format!(
                "is a test file of kura pid {} on host {}, which kura cannot check from here; if no \
                 kura runs there, remove it with: rm -- {shown}",
                mark.pid, mark.host
            ),
        )),
        Maker::Gone if mark.kept => Ok(Found::Ours(Some(file))),
        Maker::Gone if dry => Ok(Found::Leftover),
        Maker::Gone => {
            remove_leftover(path, &held, &mark)?;
            Ok(Found::Leftover)
        }
    }
}

/// Whether the file at `path`, a path the user named, is the test file of a
/// kura that was killed there (SIGKILL) before it could remove it: kura's
/// mark names a kura on this machine that is gone and did not keep the file
/// (`--keep`), and no process holds its lock. Such a file is removed, as at
/// kura's own names, and the run makes its own. A kept file, a running
/// kura's (its lock is refused later, in `lock_for_run`) and anything that
/// cannot be told stay for `prepare_existing` to judge.
fn named_leftover(path: &Path, meta: &std::fs::Metadata) -> Result<bool, TargetError> {
    // Through a link, the name freed would be the link's, not the file's.
    let plain = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    // The ranks of one run share a named file; one rank's file is not another's leftover.
    if !plain || super::launcher::launched_as_rank().is_some() || owner::made_here(meta.dev(), meta.ino()) {
        return Ok(false);
    }
    // O_NONBLOCK: a FIFO swapped in since the check must not hang the open.
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    else {
        return Ok(false);
    };
    let held = file.metadata().map_err(|e| io_error(path, e))?;
    if !held.is_file() || held.dev() != meta.dev() || held.ino() != meta.ino() {
        return Ok(false);
    }
    let Ok(Some(mark)) = owner::read(&file) else {
        return Ok(false);
    };
    if mark.kept || mark.maker() != Maker::Gone || !owner::lock(&file).map_err(|e| io_error(path, e))? {
        return Ok(false);
    }
    remove_leftover(path, &held, &mark)?;
    Ok(true)
}

/// Removes the test file a kura that died left at `path` (the inode checked
/// in `held`), and says so: the name is then free for a new test file.
fn remove_leftover(path: &Path, held: &std::fs::Metadata, mark: &Mark) -> Result<(), TargetError> {
    let name = path
        .file_name()
        .ok_or_else(|| invalid(path, "does not end in a file name"))?
        .to_os_string();
    let dir = parent_dir(path);
    let guard = Guard {
        dir: Some(open_dir(dir).map_err(|e| io_error(dir, e))?),
        name: Some(name),
        ..Guard::default()
    };
    remove_created(path, &guard, &Identity::of(held))?;
    eprintln!(
        "kura: removed {}, a test file left by kura pid {} (created at {} Unix time), which did not finish",
        crate::report::escape::term(&path.display().to_string()),
        mark.pid,
        mark.created_unix_s
    );
    Ok(())
}

/// A new test file, created exclusively (never through a link) in a directory
/// kura keeps open, so that it can later remove exactly this file.
fn prepare_new(
    path: &Path,
    dir: &Path,
    job: &Job,
    opts: &TargetOptions,
    own_name: bool,
) -> Result<PreparedTarget, TargetError> {
    let size = job.size_bytes.unwrap_or(DEFAULT_FILE_SIZE);
    // Checked before any byte is written: a bad span must not cost a 1 GiB pre-fill.
    let (span_start, span_bytes) = file_span(path, job, size)?;
    let logical = backing_device(dir)
        .and_then(|d| d.logical_block_bytes())
        .unwrap_or(DEFAULT_LOGICAL_BLOCK);
    check_alignment(path, job, logical, "the backing device's")?;
    let free = free_bytes(dir)?;
    if size > free {
        return Err(invalid(
            path,
            format!(
                "the test file needs {} of new space but only {} is free in {}; give a smaller size or another directory",
                human(size),
                human(free),
                dir.display()
            ),
        ));
    }
    let name = path
        .file_name()
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .ok_or_else(|| invalid(path, "does not end in a file name; name a file or a block device"))?
        .to_os_string();
    let dir_fd = open_dir(dir).map_err(|e| io_error(dir, e))?;
    let file = create_at(&dir_fd, &name).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            invalid(
                path,
                "appeared while kura was preparing it; kura creates only new files: try again",
            )
        } else {
            io_error(path, e)
        }
    })?;
    let identity = Identity::of(&file.metadata().map_err(|e| io_error(path, e))?);
    owner::remember(identity.dev, identity.ino);
    let guard = Guard {
        held: None,
        dir: Some(dir_fd),
        name: Some(name),
        lock: None,
    };
    // Marked before any byte is written: a kura killed during the pre-fill
    // leaves a file the next run recognises.
    let marked = mark_new(&file);
    // fio's create_on_open: the file is left empty and the measured writes grow it.
    let filled = marked.and_then(|()| {
        if job.create_on_open {
            Ok(())
        } else {
            fill(&file, size, job, opts)
                .and_then(|()| file.sync_data())
                .map(|()| forget_fill(&file))
        }
    });
    if let Err(e) = filled {
        // A half-written file of ours is no use to anyone; an error removing it adds nothing.
        let _ = remove_created(path, &guard, &identity);
        return Err(io_error(path, e));
    }
    Ok(PreparedTarget {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        span_start,
        span_bytes,
        logical_block_bytes: logical,
        created: true,
        facts: target_facts(path, TargetKind::File, size, logical, true),
        identity: Some(identity),
        guard: Some(Arc::new(Guard {
            lock: Some(file),
            ..guard
        })),
        own_name,
    })
}

/// kura's mark and the run's lock on a file it has just created.
fn mark_new(file: &File) -> io::Result<()> {
    match owner::write(file, &Mark::of_this_process(false)) {
        // Some file systems keep no user attributes; the file is still kura's, unmarked.
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTSUP)) => {}
        other => other?,
    }
    // Nobody else can hold the lock on a file this process has just created.
    owner::lock(file).map(|_| ())
}

/// Writes the `--keep` state into the mark of a test file this run created,
/// so the next run uses it instead of taking it for a leftover.
pub(super) fn mark_kept(guard: &Guard) -> io::Result<()> {
    let Some(file) = &guard.lock else {
        return Ok(());
    };
    match owner::read(file) {
        Ok(Some(_)) => owner::write(file, &Mark::of_this_process(true)),
        Ok(None) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => Ok(()),
        Err(e) => Err(e),
    }
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::other("the name contains a NUL byte"))
}

fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let c_dir = c_name(dir.as_os_str())?;
    // SAFETY: `c_dir` is NUL-terminated and lives for the call; the returned fd is checked below.
    let fd = unsafe { libc::open(c_dir.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn create_at(dir: &OwnedFd, name: &OsStr) -> io::Result<File> {
    let c = c_name(name)?;
    // O_EXCL with O_CREAT never follows a link at the name; O_NOFOLLOW says so twice.
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: the dir fd is open and `c` is NUL-terminated; both live for the call.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags, 0o644 as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

fn open_at(dir: &OwnedFd, name: &OsStr, flags: libc::c_int) -> io::Result<File> {
    let c = c_name(name)?;
    // SAFETY: the dir fd is open and `c` is NUL-terminated; both live for the call.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Removes the file kura created at `guard`'s name in `guard`'s directory,
/// only while that name still leads to the inode kura created.
pub(super) fn remove_created(path: &Path, guard: &Guard, identity: &Identity) -> Result<(), TargetError> {
    let (Some(dir), Some(name)) = (&guard.dir, &guard.name) else {
        return Ok(());
    };
    let c = c_name(name).map_err(|e| io_error(path, e))?;
    // SAFETY: libc::stat is plain C data; all-zero bytes are a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: the dir fd is open, `c` is NUL-terminated and `st` writable; all live for the call.
    let rc = unsafe { libc::fstatat(dir.as_raw_fd(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::NotFound {
            return Ok(());
        }
        return Err(io_error(path, e));
    }
    let is_file = st.st_mode & libc::S_IFMT == libc::S_IFREG;
    if !is_file || st.st_dev != identity.dev || st.st_ino != identity.ino {
        return Err(invalid(
            path,
            "was left alone: the name now leads to another file than the test file kura created \
             (it was replaced during the run), and kura removes only what it created",
        ));
    }
    // SAFETY: as for fstatat above.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
        return Err(io_error(path, io::Error::last_os_error()));
    }
    owner::forget(identity.dev, identity.ino);
    Ok(())
}

/// A regular file the job would write into: refused when it carries a
/// signature, like a device, or holds data kura did not write (see
/// `safety::refuse_data`), unless `--allow-destroy` names it.
fn check_file_writable(
    path: &Path,
    file: &File,
    meta: &std::fs::Metadata,
    allow_destroy: Option<&Path>,
    ours: bool,
) -> Result<(), TargetError> {
    super::safety::check_loop_backing(path, meta, allow_destroy)?;
    if let Some(allowed) = allow_destroy
        && std::fs::metadata(allowed).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    {
        return Ok(());
    }
    // kura's own test file (marked, kept or made in this run), or one this run already found holding nothing.
    if ours || owner::made_here(meta.dev(), meta.ino()) || super::safety::decided_writable(meta) {
        return Ok(());
    }
    let shown = path.display().to_string();
    let found = find_signatures(file).map_err(|source| WriteRefusal::Unchecked {
        device: shown.clone(),
        source,
    })?;
    if found.is_empty() {
        super::safety::refuse_data(&shown, file, meta, allow_destroy, "file")?;
        return Ok(());
    }
    let named = match allow_destroy {
        Some(other) => format!("; --allow-destroy names {}, a different file", other.display()),
        None => String::new(),
    };
    Err(WriteRefusal::Signature {
        device: shown,
        what: describe_all(&found),
        named,
    }
    .into())
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_span(path: &Path, job: &Job, size: u64) -> Result<(u64, u64), TargetError> {
    let offset = job.offset_bytes;
    if offset >= size {
        return Err(invalid(
            path,
            format!(
                "offset {} is not below the file size {}",
                format_size(offset),
                format_size(size)
            ),
        ));
    }
    let span = size - offset;
    check_bs_fits(path, job, span)?;
    Ok((offset, span))
}

fn check_bs_fits(path: &Path, job: &Job, span: u64) -> Result<(), TargetError> {
    let bs = job.max_bs();
    if bs > span {
        return Err(invalid(
            path,
            format!(
                "bs {} is larger than the {} the job may use (size minus offset {})",
                format_size(bs),
                format_size(span),
                format_size(job.offset_bytes)
            ),
        ));
    }
    Ok(())
}

/// O_DIRECT fails with EINVAL on unaligned I/O; say so before the run instead.
fn check_alignment(path: &Path, job: &Job, logical: u64, whose: &str) -> Result<(), TargetError> {
    if !job.direct {
        return Ok(());
    }
    for bs in job.all_bs() {
        if !bs.bytes.is_multiple_of(logical) {
            return Err(invalid(
                path,
                format!(
                    "bs {} is not a multiple of {whose} logical block size ({logical} bytes), which direct \
                     I/O requires; use a multiple of {logical} or --buffered",
                    format_size(bs.bytes)
                ),
            ));
        }
    }
    if !job.offset_bytes.is_multiple_of(logical) {
        return Err(invalid(
            path,
            format!(
                "offset {} is not a multiple of {whose} logical block size ({logical} bytes), which direct \
                 I/O requires; use a multiple of {logical} or --buffered",
                format_size(job.offset_bytes)
            ),
        ));
    }
    Ok(())
}

/// Free bytes for an unprivileged writer: the root reserve is left alone.
fn free_bytes(dir: &Path) -> Result<u64, TargetError> {
    let c_dir = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| invalid(dir, "path contains a NUL byte"))?;
    // SAFETY: statvfs is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_dir` is a NUL-terminated string and `st` a writable statvfs, both live for the call.
    if unsafe { libc::statvfs(c_dir.as_ptr(), &mut st) } != 0 {
        return Err(io_error(dir, io::Error::last_os_error()));
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

fn human(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (unit, name) in UNITS {
        if bytes >= unit {
            return format!("{:.1} {name} ({bytes} bytes)", bytes as f64 / unit as f64);
        }
    }
    format!("{bytes} bytes")
}

/// Drops the pre-fill's pages from the page cache (they are clean after its
/// sync), so a new test file starts with nothing cached, as tiotest's
/// (ftruncated) and fio's (`invalidate=1`) do, `--keep-cache` or not. Kept,
/// the pre-fill's 1 MiB writes hold the file in large folios, and a job's
/// small buffered writes into them cost the kernel a walk of every block of
/// the folio (`ext4_block_write_begin`): tiobench's random write measured
/// 38 µs a call there against 2.6 µs on pages the job's own writes brought
/// in. A file system that ignores the advice leaves the pages; no harm.
fn forget_fill(file: &File) {
    // SAFETY: posix_fadvise only reads its integer arguments; the fd is open for the call.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// Writes the whole new file with the job's fill pattern.
fn fill(file: &File, size: u64, job: &Job, opts: &TargetOptions) -> io::Result<()> {
    file.set_len(size)?;
    // Seeds differ per file too, so two test files never deduplicate against each other.
    let base = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ ((std::process::id() as u64) << 32);
    let mut buf = vec![0u8; FILL_CHUNK];
    let mut offset = 0u64;
    let mut chunk = 0u64;
    while offset < size {
        // Ctrl-C during a long pre-fill stops it within one chunk.
        if opts
            .stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "interrupted while writing the test file",
            ));
        }
        let len = (size - offset).min(FILL_CHUNK as u64) as usize;
        fill_buffer(&mut buf[..len], job.fill, base.wrapping_add(chunk));
        file.write_all_at(&buf[..len], offset)?;
        offset += len as u64;
        chunk += 1;
        if let Some(report) = &opts.fill_progress {
            (report.0)(offset);
        }
    }
    Ok(())
}

pub fn prepare_device(path: &Path, job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    // For writing, the descriptor the safety check ran on (held with O_EXCL) is the one measured.
    let (file, meta) = if job.modifies() {
        let checked = check_writable(path, opts.allow_destroy.as_deref())?;
        (checked.file, checked.meta)
    } else {
        let file = File::open(path).map_err(|e| io_error(path, e))?;
        let meta = file.metadata().map_err(|e| io_error(path, e))?;
        (Arc::new(file), meta)
    };
    let device_bytes = device_size(&file).map_err(|e| io_error(path, e))?;
    let logical = logical_block_size(&file).map_err(|e| io_error(path, e))?;

    let shown = path.display();
    let offset = job.offset_bytes;
    let span = match job.size_bytes {
        Some(size) if size > device_bytes => {
            return Err(invalid(
                path,
                format!(
                    "size {} is larger than {shown} ({})",
                    format_size(size),
                    format_size(device_bytes)
                ),
            ));
        }
        Some(size) if offset.saturating_add(size) > device_bytes => {
            return Err(invalid(
                path,
                format!(
                    "offset {} plus size {} goes past the end of {shown} ({})",
                    format_size(offset),
                    format_size(size),
                    format_size(device_bytes)
                ),
            ));
        }
        Some(size) => size,
        None if offset >= device_bytes => {
            return Err(invalid(
                path,
                format!(
                    "offset {} is not below the size of {shown} ({})",
                    format_size(offset),
                    format_size(device_bytes)
                ),
            ));
        }
        None => device_bytes - offset,
    };
    check_bs_fits(path, job, span)?;
    check_alignment(path, job, logical, &format!("{shown}'s"))?;

    Ok(PreparedTarget {
        path: path.to_path_buf(),
        kind: TargetKind::Block,
        span_start: offset,
        span_bytes: span,
        logical_block_bytes: logical,
        created: false,
        facts: target_facts(path, TargetKind::Block, device_bytes, logical, false),
        identity: Some(Identity::of(&meta)),
        guard: Some(Arc::new(Guard {
            held: Some(file),
            ..Guard::default()
        })),
        own_name: false,
    })
}

const BLKGETSIZE64: libc::Ioctl = libc::_IOR::<libc::size_t>(0x12, 114);

pub(super) fn device_size(file: &File) -> io::Result<u64> {
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid for the call.
    if unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64, &mut bytes as *mut u64) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(bytes)
}

fn logical_block_size(file: &File) -> io::Result<u64> {
    let mut bytes: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer, which is valid for the call.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::BLKSSZGET, &mut bytes as *mut libc::c_int) } != 0 {
        return Err(io::Error::last_os_error());
    }
    u64::try_from(bytes)
        .ok()
        .filter(|b| *b > 0)
        .ok_or_else(|| io::Error::other(format!("the device reports a logical block size of {bytes}")))
}

pub fn open(target: &PreparedTarget, direct: bool, write: bool) -> Result<File, TargetError> {
    open_with(target, direct, write, 0)
}

/// `open` with more flags: O_SYNC or O_DSYNC for fio's `sync=`.
pub fn open_with(
    target: &PreparedTarget,
    direct: bool,
    write: bool,
    extra: libc::c_int,
) -> Result<File, TargetError> {
    let path = &target.path;
    let mut flags = if write { libc::O_RDWR } else { libc::O_RDONLY };
    flags |= extra;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if target.own_name {
        flags |= libc::O_NOFOLLOW;
    }
    let guard = target.guard.as_deref();
    // A file kura created is opened in the directory it was created in, by name, without following links.
    let opened = match guard.and_then(|g| g.dir.as_ref().zip(g.name.as_ref())) {
        Some((dir, name)) => open_at(dir, name, flags),
        None => OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags((flags & !libc::O_ACCMODE) | libc::O_CLOEXEC)
            .open(path),
    };
    let file = opened.map_err(|e| {
        let mode = if write { "reading and writing" } else { "reading" };
        let hint = if direct && e.raw_os_error() == Some(libc::EINVAL) {
            "; the file system may not support direct I/O (O_DIRECT): try --buffered"
        } else {
            ""
        };
        let direct = if direct { " with direct I/O" } else { "" };
        io_error(
            path,
            io::Error::new(e.kind(), format!("cannot open for {mode}{direct}: {e}{hint}")),
        )
    })?;
    if let Some(identity) = &target.identity {
        let meta = file.metadata().map_err(|e| io_error(path, e))?;
        if !identity.matches(&meta) {
            return Err(invalid(
                path,
                "no longer names the file or device kura checked before the run (it was replaced \
                 or a link was changed); kura stops rather than touch something it did not check",
            ));
        }
    }
    Ok(file)
}

pub fn drop_cache(target: &PreparedTarget) -> Result<(), TargetError> {
    let path = &target.path;
    let file = open(target, false, false)?;
    // Dirty pages are not evicted by DONTNEED; write them back first.
    file.sync_data().map_err(|e| io_error(path, e))?;
    // SAFETY: posix_fadvise only reads its integer arguments; the fd is open for the call.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(io_error(path, io::Error::from_raw_os_error(rc)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{BlockSize, Rw};

    fn job(path: &Path, size: u64) -> Job {
        Job {
            target: Some(path.to_path_buf()),
            size_bytes: Some(size),
            ..Job::default()
        }
    }

    #[test]
    fn creates_a_filled_file_of_the_exact_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let size = (2 << 20) + 4096;
        let target = prepare_file(&path, &job(&path, size), &TargetOptions::default(), false).unwrap();
        assert!(target.created);
        assert_eq!(target.span_start, 0);
        assert_eq!(target.span_bytes, size);
        assert_eq!(target.facts.size_bytes, size);
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len() as u64, size);
        assert!(data.iter().filter(|b| **b == 0).count() < data.len() / 100);
        assert_ne!(data[..4096], data[1 << 20..(1 << 20) + 4096], "chunks repeat");
        assert_ne!(data[..4096], data[2 << 20..], "chunks repeat");
    }

    #[test]
    fn a_file_of_another_size_is_never_resized_or_refilled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        std::fs::write(&path, vec![7u8; 3 << 20]).unwrap();
        // The file holds data: a job writes it only when --allow-destroy names it.
        let allowed = TargetOptions {
            allow_destroy: Some(path.clone()),
            ..TargetOptions::default()
        };
        for rw in [Rw::Read, Rw::RandWrite] {
            // Larger than asked: the job uses the first 1 MiB and the file stays as it was.
            let mut j = job(&path, 1 << 20);
            j.rw = rw;
            let target = prepare_file(&path, &j, &allowed, false).unwrap();
            assert_eq!((target.created, target.span_bytes), (false, 1 << 20));
            assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 3 << 20]);
            // Smaller than asked: an error naming both sizes, the file untouched.
            j.size_bytes = Some(4 << 20);
            let err = prepare_file(&path, &j, &TargetOptions::default(), false)
                .unwrap_err()
                .to_string();
            assert!(err.contains("is 3m") && err.contains("size 4m"), "{err}");
            assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 3 << 20]);
        }
        std::fs::write(&path, b"").unwrap();
        let err = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("empty file"), "{err}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    }

    #[test]
    fn a_kept_test_file_too_small_is_called_kuras_not_someone_elses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kura-test.dat");
        std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let j = job(&path, 4 << 20);
        let err = prepare_existing(&path, &meta, &j, &TargetOptions::default(), true, None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("the test file an earlier run kept") && !err.contains("did not create"),
            "{err}"
        );
        let err = prepare_existing(&path, &meta, &j, &TargetOptions::default(), false, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("did not create"), "{err}");
    }

    #[test]
    fn an_existing_file_without_a_size_is_used_at_its_own_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        std::fs::write(&path, vec![7u8; 64 << 10]).unwrap();
        let j = Job {
            target: Some(path.clone()),
            ..Job::default()
        };
        let target = prepare_file(&path, &j, &TargetOptions::default(), false).unwrap();
        assert_eq!((target.span_bytes, target.created), (64 << 10, false));
        assert!(std::fs::read(&path).unwrap().iter().all(|b| *b == 7));
    }

    #[test]
    fn spans_and_block_sizes_must_fit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let mut j = job(&path, 1 << 20);
        j.offset_bytes = 1 << 20;
        let err = prepare_file(&path, &j, &TargetOptions::default(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("offset 1m"), "{err}");
        j.offset_bytes = (1 << 20) - 4096;
        j.bs = vec![BlockSize {
            bytes: 8192,
            weight: 100,
        }];
        let err = prepare_file(&path, &j, &TargetOptions::default(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bs 8k"), "{err}");
        assert!(!path.exists(), "nothing is written for a job that cannot run");
        j.bs = vec![BlockSize {
            bytes: 1000,
            weight: 100,
        }];
        let err = prepare_file(&path, &j, &TargetOptions::default(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bs 1000") && err.contains("--buffered"), "{err}");
        j.direct = false;
        let target = prepare_file(&path, &j, &TargetOptions::default(), false).unwrap();
        assert_eq!((target.span_start, target.span_bytes), ((1 << 20) - 4096, 4096));
    }

    #[test]
    fn directories_and_missing_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = prepare_file(
            dir.path(),
            &job(dir.path(), 1 << 20),
            &TargetOptions::default(),
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("is a directory; give a file or a block device"),
            "{err}"
        );
        let path = dir.path().join("missing/t.dat");
        let err = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default(), false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "directory {} does not exist",
                dir.path().join("missing").display()
            )),
            "{err}"
        );
    }

    #[test]
    fn a_file_this_process_made_is_its_own_even_without_a_mark() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("kura-test.dat");
        let first = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default(), true).unwrap();
        // As on a file system that keeps no user attributes (sshfs, some NFS).
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: both strings are NUL-terminated and live for the call.
        let removed = unsafe { libc::removexattr(c.as_ptr(), c"user.kura.owner".as_ptr()) };
        assert_eq!(removed, 0);
        let again = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default(), true).unwrap();
        assert_eq!((again.created, again.identity), (false, first.identity));
        super::super::cleanup(&first).unwrap();
        // Removed, it is forgotten: a file put at the name afterwards is somebody's.
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let err = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default(), true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a file kura made"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 1 << 20]);
    }

    /// Pages of `path` in the page cache, by mincore(2) over a mapping of it.
    fn resident_pages(path: &Path) -> usize {
        let file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        // SAFETY: a read-only shared mapping of an open file of `len` bytes, unmapped below.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        assert_ne!(at, libc::MAP_FAILED);
        let mut pages = vec![0u8; len.div_ceil(4096)];
        // SAFETY: `pages` holds one byte per 4 KiB page of the mapping.
        assert_eq!(unsafe { libc::mincore(at, len, pages.as_mut_ptr()) }, 0);
        // SAFETY: the mapping made above, not used after this.
        unsafe { libc::munmap(at, len) };
        pages.iter().filter(|p| **p & 1 == 1).count()
    }

    #[test]
    fn a_new_test_file_starts_with_none_of_its_pre_fill_cached() {
        // On disk, not tmpfs, where nothing leaves the page cache.
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("kura-test.dat");
        let mut j = job(&path, 8 << 20);
        j.keep_cache = true;
        let target = prepare_file(&path, &j, &TargetOptions::default(), true).unwrap();
        // Read back, it is all there: the check can see cached pages.
        std::fs::read(&path).unwrap();
        assert_eq!(resident_pages(&path), 2048);
        drop_cache(&target).unwrap();
        super::super::cleanup(&target).unwrap();
        let target = prepare_file(&path, &j, &TargetOptions::default(), true).unwrap();
        let left = resident_pages(&path);
        assert!(left < 64, "{left} of the pre-fill's 2048 pages still cached");
        super::super::cleanup(&target).unwrap();
    }

    #[test]
    fn open_names_the_path_and_drop_cache_works() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let mut j = job(&path, 1 << 20);
        j.rw = Rw::Write;
        let target = prepare_file(&path, &j, &TargetOptions::default(), false).unwrap();
        let file = open(&target, false, true).unwrap();
        file.write_all_at(&[1u8; 4096], 0).unwrap();
        drop_cache(&target).unwrap();
        let missing = dir.path().join("nope");
        let mut gone = target.clone();
        gone.path = missing.clone();
        gone.guard = None;
        let err = open(&gone, false, false).unwrap_err().to_string();
        assert!(
            err.contains(&missing.display().to_string()) && err.contains("cannot open"),
            "{err}"
        );
        super::super::cleanup(&target).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn the_holder_of_a_flock_is_read_from_proc_locks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let (major, minor) = super::super::stack::devnum(meta.dev());
        let id = format!("{major:02x}:{minor:02x}:{}", meta.ino());
        let locks = format!(
            "1: POSIX  ADVISORY  WRITE 7 {id} 0 EOF\n2: FLOCK  ADVISORY  WRITE 4242 {id} 0 EOF\n\
             2: -> FLOCK  ADVISORY  WRITE 99 {id} 0 EOF\n3: FLOCK  ADVISORY  READ 5 00:01:1 0 EOF\n"
        );
        assert_eq!(flock_holder(&meta, &locks), Some(4242));
        assert_eq!(
            flock_holder(&meta, "1: POSIX  ADVISORY  WRITE 7 00:01:1 0 EOF\n"),
            None
        );
    }
}
