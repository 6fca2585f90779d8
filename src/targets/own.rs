//! The write gate for files kura makes for itself and that hold no user
//! data: the run database, a saved run's JSON, the suite database's marker
//! and server log, bonnie's data file and small files. Each is a name kura
//! picked in a directory that kura made or that the caller checked, so the
//! gate's rule is the one for names kura picks (docs/safety.md, "Names kura
//! derives are names kura picks"): created exclusively (`O_EXCL`), never
//! through a symbolic link, and afterwards opened only while the name still
//! leads to the file made. What the user names (targets, outputs) goes
//! through `file.rs` and `output.rs` instead; kernel interfaces through
//! `kernel.rs`.

use std::ffi::CStr;
use std::fs::File;
use std::io;
use std::os::fd::{OwnedFd, RawFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// Flags of every exclusive create here: a name that exists (a link
/// included) is EEXIST, never opened.
const NEW: libc::c_int = libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;

/// A new file at `path`, open for reading and writing; EEXIST when
/// anything is at the name.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// [`create_new`] relative to a directory kura holds open, write-only, mode
/// 0600: bonnie times this very call as its create.
pub fn create_new_at(dir: RawFd, name: &CStr) -> io::Result<OwnedFd> {
    super::fileset::open_at(dir, name, libc::O_WRONLY | NEW, 0o600)
}

/// [`create_new`] for a signal handler: open(2) alone, which is
/// async-signal-safe; the raw descriptor or -1.
pub fn create_new_in_handler(path: &CStr) -> libc::c_int {
    // SAFETY: `path` is NUL-terminated and outlives the call.
    unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | NEW, 0o644 as libc::c_uint) }
}

/// `path` is not the file this run made: replaced, or a link put there.
pub fn not_ours(path: &Path) -> io::Error {
    io::Error::other(format!(
        "{} is not the file kura made (replaced, or a symlink, during the run); kura leaves it alone",
        path.display()
    ))
}

/// Opens for reading and writing the file this run made at `path`, (device,
/// inode) `made`: never through a link, and only while the name leads to it.
pub fn reopen(path: &Path, made: (u64, u64)) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => not_ours(path),
            _ => e,
        })?;
    let m = file.metadata()?;
    if (m.dev(), m.ino()) != made {
        return Err(not_ours(path));
    }
    Ok(file)
}

/// Appends to a log kura made (a database server's, in kura's own
/// directory); never through a link, never creating it.
pub fn append(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens an SQLite database file. SQLite opens by name, so the caller has
/// checked the file first (`store::open` checks what the path holds and
/// then that SQLite's descriptor is that file; the suite database is in a
/// directory kura made); the gate adds that the name is never followed
/// through a link (`SQLITE_OPEN_NOFOLLOW`), whatever the caller asked.
pub fn open_database(path: impl AsRef<Path>, flags: OpenFlags) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NOFOLLOW)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_at_a_name_is_opened_by_a_create() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"data").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        for at in [&victim, &link] {
            assert_eq!(
                create_new(at, 0o600).unwrap_err().kind(),
                io::ErrorKind::AlreadyExists
            );
        }
        let c = std::ffi::CString::new(link.as_os_str().as_encoded_bytes()).unwrap();
        assert!(create_new_in_handler(&c) < 0);
        assert_eq!(std::fs::read(&victim).unwrap(), b"data");
    }

    #[test]
    fn a_file_is_reopened_only_while_its_name_leads_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("own");
        let made = create_new(&path, 0o600).unwrap().metadata().unwrap();
        assert!(reopen(&path, (made.dev(), made.ino())).is_ok());
        std::fs::remove_file(&path).unwrap();
        std::fs::write(dir.path().join("other"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("other"), &path).unwrap();
        let e = reopen(&path, (made.dev(), made.ino())).unwrap_err();
        assert!(e.to_string().contains("not the file kura made"), "{e}");
    }
}
