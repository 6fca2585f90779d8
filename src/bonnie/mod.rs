//! bonnie++ 2.0's tests, measured with kura's metrics: per-character and
//! block output, rewrite, per-character and block input, random seeks by
//! several seekers at once, and small files created, stat-ed and deleted in
//! sequential and random order. Each test is a job of the bonnie kind
//! (`jobs::bonnie_params`), run by the one runner, which checks DIR first
//! (`check_up_front`) and calls `BonnieRun::run` for each test (`measure.rs`).
//!
//! What bonnie++ 2.00a does (bonnie++.cpp, bon_io.cpp, bon_file.cpp) and kura
//! keeps: buffered I/O on one file; the per-character tests cover only the
//! first 3 MiB (its `-f` default, DefaultByteIO), so they stay bounded
//! whatever the file size; 8192 seeks handed to 5 seekers through a pipe
//! as tickets, one seek in ten rewriting its chunk; every I/O test ends with
//! fsync and close inside the measured time; file names as bonnie++ makes them (a number in hex, with
//! up to 12 random characters after it for the sequential set and before it
//! for the random set).
//!
//! Counting, per test, in kura's two directions (documented in docs/bonnie.md):
//! - per-char: one operation per chunk's worth of one-byte read(2) or
//!   write(2) calls, the unit bonnie++ times;
//! - rewrite: the read direction holds the chunk reads alone, the write
//!   direction whole rewrites (read, lseek back, write), as bonnie++ times them;
//! - seeks: the read direction holds whole seeks (lseek and read, plus lseek
//!   and write for the rewritten ones), the write direction the rewrites alone;
//! - files: each test counts its own operation kind (create, stat, delete), 0 bytes each.
//!
//! The tests on the data file are in `session.rs`, the seekers in
//! `seeker.rs`, the small files in `small_files.rs`; `own_files.rs` reopens
//! and removes only what the run made; `results.rs` makes a test's
//! `JobResult`. This file holds the file-system calls they share
//! (directories, per-thread I/O counters).

mod check;
pub mod measure;
mod measured;
mod own_files;
mod results;
mod seeker;
mod session;
mod small_files;

pub use check::check_up_front;

pub use crate::metrics::collect::thread_cpu_ns;

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

/// A directory held open, so file operations name entries relative to it as
/// bonnie++ does after its chdir: no path walk from `/` on every operation.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

impl Dir {
    pub fn open(path: &Path) -> io::Result<Dir> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY)
            .open(path)?;
        Ok(Dir { fd: file.into() })
    }

    /// `open` of a directory kura made itself: a symlink put in its place is
    /// not followed (ELOOP).
    pub fn open_own(path: &Path) -> io::Result<Dir> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
            .open(path)?;
        Ok(Dir { fd: file.into() })
    }

    /// (device, inode) of the directory held.
    pub fn identity(&self) -> io::Result<(u64, u64)> {
        // SAFETY: `stat` is plain C data; all-zero bytes are a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the fd is open and `st` is writable for the call.
        check(unsafe { libc::fstat(self.fd.as_raw_fd(), &mut st) })?;
        Ok((st.st_dev as u64, st.st_ino as u64))
    }

    /// The names of the regular files in the directory, and whether it holds
    /// anything else (read through the held descriptor, not the path).
    pub fn regular_files(&self) -> io::Result<(Vec<std::ffi::CString>, bool)> {
        let listing = Path::new("/proc/self/fd").join(self.fd.as_raw_fd().to_string());
        let mut files = Vec::new();
        let mut other = false;
        for entry in std::fs::read_dir(listing)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                use std::os::unix::ffi::OsStrExt;
                files.push(std::ffi::CString::new(entry.file_name().as_bytes()).map_err(io::Error::other)?);
            } else {
                other = true;
            }
        }
        Ok((files, other))
    }

    /// Creates an empty file that must not exist yet, and closes it.
    pub fn create_empty(&self, name: &CStr) -> io::Result<()> {
        crate::targets::own::create_new_at(self.fd.as_raw_fd(), name).map(drop)
    }

    /// stat(2) of an entry; returns its size.
    pub fn stat(&self, name: &CStr) -> io::Result<u64> {
        // SAFETY: `stat` is plain C data; all-zero bytes are a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: the fd is open, `name` is NUL-terminated and `st` is writable for the call.
        check(unsafe { libc::fstatat(self.fd.as_raw_fd(), name.as_ptr(), &mut st, 0) })?;
        Ok(st.st_size as u64)
    }

    pub fn unlink(&self, name: &CStr) -> io::Result<()> {
        // SAFETY: the fd is open and `name` is NUL-terminated for the call.
        check(unsafe { libc::unlinkat(self.fd.as_raw_fd(), name.as_ptr(), 0) })?;
        Ok(())
    }

    /// Writes back the whole file system holding the directory: bonnie++
    /// calls sync(2) at the end of its create and delete tests, which would
    /// also flush every other file system's dirty data into the measurement.
    pub fn sync_fs(&self) -> io::Result<()> {
        // SAFETY: syncfs only reads the fd, which is open.
        check(unsafe { libc::syncfs(self.fd.as_raw_fd()) })?;
        Ok(())
    }
}

/// The calling thread's counters from /proc/thread-self/io (`syscw`, `syscr`,
/// ...): what the kernel counted, independent of what kura thinks it did.
pub fn thread_io_counters() -> io::Result<std::collections::BTreeMap<String, u64>> {
    let text = std::fs::read_to_string("/proc/thread-self/io")?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_string(), v.trim().parse().ok()?))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_operations_work_relative_to_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        dir.create_empty(c"a").unwrap();
        assert_eq!(
            dir.create_empty(c"a").unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(dir.stat(c"a").unwrap(), 0);
        dir.unlink(c"a").unwrap();
        assert!(dir.stat(c"a").is_err());
        dir.sync_fs().unwrap();
        assert!(Dir::open(&tmp.path().join("missing")).is_err());
    }

    #[test]
    fn thread_counters_see_this_threads_writes() {
        let tmp = tempfile::tempdir().unwrap();
        let before = thread_io_counters().unwrap()["syscw"];
        std::fs::write(tmp.path().join("f"), b"x").unwrap();
        let after = thread_io_counters().unwrap()["syscw"];
        assert!(after > before);
        // A fresh thread may have run for less than the clock's resolution: spin a little.
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while thread_cpu_ns() == (0, 0) && start.elapsed().as_secs() < 5 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let (user, system) = thread_cpu_ns();
        assert!(user + system > 0);
    }
}
