//! Test files and block devices: checking the span a job may touch, creating
//! and pre-filling test files, opening targets, and evicting their cache.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use super::facts::{backing_device, target_facts};
use super::safety::check_device_writable;
use super::{PreparedTarget, TargetError, TargetOptions};
use crate::metrics::TargetKind;
use crate::spec::Job;
use crate::spec::job::DEFAULT_FILE_SIZE;
use crate::spec::units::format_size;
use crate::workload::fill::fill_buffer;

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

pub fn prepare_file(path: &Path, job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    let existing = match std::fs::metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(path, e)),
    };
    // Like fio: a file that is already there is used at its own size unless a size is given,
    // so naming an existing file never rewrites it to the default size.
    let size = match (job.size_bytes, &existing) {
        (Some(size), _) => size,
        (None, Some(meta)) if meta.is_file() && meta.len() > 0 => meta.len(),
        (None, _) => DEFAULT_FILE_SIZE,
    };
    let dir = parent_dir(path);
    match &existing {
        Some(meta) if meta.is_dir() => {
            return Err(invalid(path, "is a directory; give a file or a block device"));
        }
        Some(meta) if !meta.is_file() => {
            return Err(invalid(
                path,
                "is not a regular file or a block device; give a file or a block device",
            ));
        }
        Some(_) => {}
        None => match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(invalid(path, format!("{} is not a directory", dir.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(invalid(
                    path,
                    format!("directory {} does not exist", dir.display()),
                ));
            }
            Err(e) => return Err(io_error(dir, e)),
        },
    }

    // Checked before any byte is written: a bad span must not cost a 1 GiB pre-fill.
    let (span_start, span_bytes) = file_span(path, job, size)?;
    let logical = backing_device(if existing.is_some() { path } else { dir })
        .and_then(|d| d.logical_block_bytes())
        .unwrap_or(DEFAULT_LOGICAL_BLOCK);
    check_alignment(path, job, logical, "the backing device's")?;

    let created = match &existing {
        Some(meta) if meta.len() == size => {
            if job.does_writes() {
                open_for_writing(path)?;
            }
            false
        }
        // The user named this file: rewriting it to the asked size is theirs to ask,
        // but kura did not create it, so it stays after the run.
        Some(meta) => {
            write_test_file(path, dir, size, job, meta.blocks() * 512, false, opts)?;
            false
        }
        None => {
            write_test_file(path, dir, size, job, 0, true, opts)?;
            true
        }
    };

    Ok(PreparedTarget {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        span_start,
        span_bytes,
        logical_block_bytes: logical,
        created,
        facts: target_facts(path, TargetKind::File, size, logical, created),
    })
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
    for bs in &job.bs {
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

fn open_for_writing(path: &Path) -> Result<File, TargetError> {
    OpenOptions::new().write(true).open(path).map_err(|e| {
        invalid(
            path,
            format!("the job writes, but the file cannot be opened for writing: {e}"),
        )
    })
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

/// Writes the whole file with the job's fill pattern and makes it durable.
/// `allocated` is what the file already holds on disk and will be overwritten in place.
fn write_test_file(
    path: &Path,
    dir: &Path,
    size: u64,
    job: &Job,
    allocated: u64,
    create: bool,
    opts: &TargetOptions,
) -> Result<(), TargetError> {
    let needed = size.saturating_sub(allocated);
    let free = free_bytes(dir)?;
    if needed > free {
        return Err(invalid(
            path,
            format!(
                "the test file needs {} of new space but only {} is free in {}; give a smaller size or another directory",
                human(needed),
                human(free),
                dir.display()
            ),
        ));
    }
    let file = if create {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| io_error(path, e))?
    } else {
        open_for_writing(path)?
    };
    let filled = fill(&file, size, job, opts);
    let result = filled.and_then(|()| file.sync_data());
    if let Err(e) = result {
        drop(file);
        if create {
            // A half-written file of ours is no use to anyone; an error removing it adds nothing.
            let _ = std::fs::remove_file(path);
        }
        return Err(io_error(path, e));
    }
    Ok(())
}

fn fill(file: &File, size: u64, job: &Job, opts: &TargetOptions) -> io::Result<()> {
    // Shrinking first frees space a longer old file held; growing is filled below.
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
    }
    Ok(())
}

pub fn prepare_device(path: &Path, job: &Job, opts: &TargetOptions) -> Result<PreparedTarget, TargetError> {
    let file = OpenOptions::new()
        .read(true)
        .open(path)
        .map_err(|e| io_error(path, e))?;
    let device_bytes = device_size(&file).map_err(|e| io_error(path, e))?;
    let logical = logical_block_size(&file).map_err(|e| io_error(path, e))?;
    drop(file);

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
    if job.does_writes() {
        check_device_writable(path, opts.allow_destroy.as_deref())?;
    }

    Ok(PreparedTarget {
        path: path.to_path_buf(),
        kind: TargetKind::Block,
        span_start: offset,
        span_bytes: span,
        logical_block_bytes: logical,
        created: false,
        facts: target_facts(path, TargetKind::Block, device_bytes, logical, false),
    })
}

const BLKGETSIZE64: libc::Ioctl = libc::_IOR::<libc::size_t>(0x12, 114);

fn device_size(file: &File) -> io::Result<u64> {
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

pub fn open(path: &Path, direct: bool, write: bool) -> Result<File, TargetError> {
    let mut flags = libc::O_CLOEXEC;
    if direct {
        flags |= libc::O_DIRECT;
    }
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
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
        })
}

pub fn drop_cache(target: &PreparedTarget) -> Result<(), TargetError> {
    let path = &target.path;
    let file = File::open(path).map_err(|e| io_error(path, e))?;
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
    use crate::spec::{BlockSize, Rw};

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
        let target = prepare_file(&path, &job(&path, size), &TargetOptions::default()).unwrap();
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
    fn a_wrong_size_file_is_rewritten_but_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        std::fs::write(&path, vec![7u8; 3 << 20]).unwrap();
        let target = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default()).unwrap();
        assert!(!target.created);
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 1 << 20);
        assert!(data.iter().filter(|b| **b == 7).count() < data.len() / 100);
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
        let target = prepare_file(&path, &j, &TargetOptions::default()).unwrap();
        assert_eq!((target.span_bytes, target.created), (64 << 10, false));
        assert!(std::fs::read(&path).unwrap().iter().all(|b| *b == 7));
    }

    #[test]
    fn spans_and_block_sizes_must_fit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let mut j = job(&path, 1 << 20);
        j.offset_bytes = 1 << 20;
        let err = prepare_file(&path, &j, &TargetOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("offset 1m"), "{err}");
        j.offset_bytes = (1 << 20) - 4096;
        j.bs = vec![BlockSize {
            bytes: 8192,
            weight: 100,
        }];
        let err = prepare_file(&path, &j, &TargetOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bs 8k"), "{err}");
        assert!(!path.exists(), "nothing is written for a job that cannot run");
        j.bs = vec![BlockSize {
            bytes: 1000,
            weight: 100,
        }];
        let err = prepare_file(&path, &j, &TargetOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("bs 1000") && err.contains("--buffered"), "{err}");
        j.direct = false;
        let target = prepare_file(&path, &j, &TargetOptions::default()).unwrap();
        assert_eq!((target.span_start, target.span_bytes), ((1 << 20) - 4096, 4096));
    }

    #[test]
    fn directories_and_missing_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = prepare_file(dir.path(), &job(dir.path(), 1 << 20), &TargetOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("is a directory; give a file or a block device"),
            "{err}"
        );
        let path = dir.path().join("missing/t.dat");
        let err = prepare_file(&path, &job(&path, 1 << 20), &TargetOptions::default())
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
    fn open_names_the_path_and_drop_cache_works() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.dat");
        let mut j = job(&path, 1 << 20);
        j.rw = Rw::Write;
        let target = prepare_file(&path, &j, &TargetOptions::default()).unwrap();
        let file = open(&target.path, false, true).unwrap();
        file.write_all_at(&[1u8; 4096], 0).unwrap();
        drop_cache(&target).unwrap();
        let missing = dir.path().join("nope");
        let err = open(&missing, false, false).unwrap_err().to_string();
        assert!(
            err.contains(&missing.display().to_string()) && err.contains("cannot open"),
            "{err}"
        );
        super::super::cleanup(&target).unwrap();
        assert!(!path.exists());
    }
}
