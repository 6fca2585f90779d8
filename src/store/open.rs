//! Opening the database file: only a regular file (or a new one kura
//! creates) is handed to SQLite, the file SQLite opened is checked to be the
//! one that was checked, and the schema is created or migrated in one
//! transaction that tolerates a concurrent creator.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use crate::targets::own::open_database;

use super::schema;
use super::{Store, StoreError, interrupt_flag};

/// How long a statement waits for another process's lock before giving up.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Never creates, migrates, converts or writes anything; with no
    /// `-wal` or `-journal` to read, not even SQLite's `-wal` and `-shm`.
    Read,
    /// Reads like `Read`, for as long as the process lives (`kura serve`):
    /// through SQLite's WAL index, so runs stored meanwhile show up; SQLite
    /// may create `-wal` and `-shm` beside a WAL database for that.
    Follow,
    /// Creates a new file, and creates or migrates kura's tables.
    Write,
}

/// What a path holds, in words, when it is not a regular file.
fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("not a regular file")
    }
}

fn refused(path: &Path, why: impl Into<String>) -> StoreError {
    StoreError::Path {
        path: path.display().to_string(),
        why: why.into(),
    }
}

/// The file `checked_file` found, ready for SQLite.
struct Checked {
    /// The regular file to hand to SQLite, symlinks resolved.
    real: PathBuf,
    /// Its device and inode.
    identity: (u64, u64),
    /// Whether this call created it.
    created: bool,
    /// A non-empty `-wal` or `-journal` beside it: SQLite's own files must be
    /// read, so a reading verb cannot open the database `immutable`.
    pending: bool,
}

/// SQLite opens, writes, truncates and removes `-wal`, `-shm` and `-journal`
/// beside the database by name, even for a reader (the `-shm` index is reset
/// to 32 KiB): a file there with another name (a hard link) or another
/// owner is someone else's, and SQLite's writes would land in it.
fn check_side_file(
    path: &Path,
    side: &Path,
    m: &std::fs::Metadata,
    db: &std::fs::Metadata,
) -> Result<(), StoreError> {
    if let Some(what) = not_regular(m) {
        return Err(refused(
            path,
            format!(
                "{} beside it is {what}; SQLite would write into it",
                side.display()
            ),
        ));
    }
    if m.nlink() > 1 {
        return Err(refused(
            path,
            format!(
                "{} beside it has {} names (a hard link to another file); SQLite would write into that file: remove this name",
                side.display(),
                m.nlink()
            ),
        ));
    }
    if m.uid() != db.uid() {
        return Err(refused(
            path,
            format!(
                "{} beside it is owned by uid {}, not by the database's owner (uid {}); SQLite would write into another user's file: remove it",
                side.display(),
                m.uid(),
                db.uid()
            ),
        ));
    }
    Ok(())
}

/// The regular file to hand to SQLite and what is beside it.
fn checked_file(path: &Path, access: Access, create_parent: bool) -> Result<Checked, StoreError> {
    let mut created = false;
    // Two tries: a file that appears between the look and the exclusive create is looked at again.
    for _ in 0..2 {
        match std::fs::symlink_metadata(path) {
            Ok(_) => {
                let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
                let real = path.canonicalize().map_err(|e| refused(path, io_text(&e)))?;
                // The canonical path has no symlink left in it: lstat sees what SQLite will open.
                let meta = std::fs::symlink_metadata(&real).map_err(|e| refused(path, io_text(&e)))?;
                if let Some(what) = not_regular(&meta) {
                    let shown = if linked {
                        format!("{what} (through the symlink to {})", real.display())
                    } else {
                        what.to_string()
                    };
                    return Err(refused(
                        path,
                        format!("is {shown}; the database must be a regular file or a new file"),
                    ));
                }
                let mut pending = false;
                for suffix in ["-wal", "-shm", "-journal"] {
                    let mut side = real.clone().into_os_string();
                    side.push(suffix);
                    let side = PathBuf::from(side);
                    let Ok(m) = std::fs::symlink_metadata(&side) else {
                        continue;
                    };
                    if let Err(e) = check_side_file(path, &side, &m, &meta) {
                        if created {
                            remove_created_alone(&real, (meta.dev(), meta.ino()));
                        }
                        return Err(e);
                    }
                    // Pages not yet in the database itself, or a rollback to make first.
                    pending |= suffix != "-shm" && m.len() > 0;
                }
                return Ok(Checked {
                    real,
                    identity: (meta.dev(), meta.ino()),
                    created,
                    pending,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if access != Access::Write {
                    return Err(StoreError::Missing {
                        path: path.display().to_string(),
                    });
                }
                created = create_new(path, create_parent)?;
            }
            Err(e) => return Err(refused(path, io_text(&e))),
        }
    }
    Err(refused(path, "it changed while being opened; try again"))
}

/// Creates an empty file exclusively, never through a symlink; false when
/// another process created it first.
fn create_new(path: &Path, create_parent: bool) -> Result<bool, StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if create_parent {
            std::fs::create_dir_all(parent).map_err(|e| {
                refused(
                    path,
                    format!("cannot create directory {}: {}", parent.display(), io_text(&e)),
                )
            })?;
        } else if !parent.is_dir() {
            return Err(refused(
                path,
                crate::t!("error-no-directory", dir = parent.display().to_string()),
            ));
        }
    }
    match crate::targets::own::create_new(path, 0o644) {
        Ok(_) => Ok(true),
        // Another kura created it first: the caller looks at it again.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(refused(path, format!("cannot create it: {}", create_cause(&e)))),
    }
}

pub use crate::io_text::io_text;

/// Why a new database file cannot be made, the two common causes in the
/// words `sql_error` uses for an existing one.
fn create_cause(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EROFS) => "read-only file system (the file system holding it is mounted read-only)".into(),
        Some(libc::ENOSPC) => "no space left on device (the file system holding it is full)".into(),
        _ => io_text(e),
    }
}

/// Whether the descriptors of this process that name `real` are all the
/// checked file (and there is one): SQLite opens by name, so the file it got
/// is compared with the one that was checked before it reads or writes more.
fn sqlite_opened_checked(real: &Path, identity: (u64, u64)) -> Result<bool, std::io::Error> {
    let mut matched = false;
    for entry in std::fs::read_dir("/proc/self/fd")? {
        let entry = entry?;
        let Ok(meta) = std::fs::metadata(entry.path()) else {
            continue;
        };
        let link = std::fs::read_link(entry.path()).unwrap_or_default();
        if link == real {
            if (meta.dev(), meta.ino()) != identity || !meta.file_type().is_file() {
                return Ok(false);
            }
            matched = true;
        }
    }
    Ok(matched)
}

/// Waits for another process's lock up to `LOCK_WAIT`, giving up at Ctrl-C.
fn install_busy_handler(
    conn: &mut Connection,
    interrupted: Arc<AtomicBool>,
    wait: Arc<AtomicBool>,
) -> rusqlite::Result<()> {
    let mut started = Instant::now();
    conn.busy_handler(Some(move |count: i32| {
        if !wait.load(Ordering::Relaxed) {
            return false;
        }
        if count == 0 {
            started = Instant::now();
        }
        if interrupt_flag().is_some_and(|f| f.load(Ordering::Relaxed)) {
            interrupted.store(true, Ordering::Relaxed);
            return false;
        }
        if started.elapsed() >= LOCK_WAIT {
            return false;
        }
        std::thread::sleep(Duration::from_millis((count as u64 + 1).min(20)));
        true
    }))
}

pub fn open(path: &Path, access: Access, create_parent: bool) -> Result<Store, StoreError> {
    let checked = checked_file(path, access, create_parent)?;
    let (real, identity) = (&checked.real, checked.identity);
    // Nothing beside the file to read: SQLite reads the file alone, and creates no
    // -wal or -shm (which a read-only open of a WAL database otherwise does).
    let immutable = access == Access::Read && !checked.pending;
    let mut store = open_checked(path, real, identity, access, immutable).inspect_err(|_| {
        if checked.created {
            remove_empty_created(real, identity);
        }
    })?;
    store.created = checked.created.then(|| (real.clone(), identity));
    Ok(store)
}

/// A database this call created and never stored a run in (a target refused
/// when the run prepared it, after the database was opened) goes with the
/// call: a refusal leaves nothing behind. Only while its name still leads to
/// the file made here, and only when no run is in it.
impl Drop for Store {
    fn drop(&mut self) {
        let Some((real, identity)) = self.created.take() else {
            return;
        };
        self.wait_for_locks(false);
        let runs: Option<i64> = self
            .conn
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
            .ok();
        if runs != Some(0) {
            return;
        }
        // Closed first: SQLite removes its -wal by name when the last connection closes.
        let Ok(memory) = Connection::open_in_memory() else {
            return;
        };
        if std::mem::replace(&mut self.conn, memory).close().is_err() {
            return;
        }
        let same = std::fs::symlink_metadata(&real)
            .is_ok_and(|m| m.file_type().is_file() && (m.dev(), m.ino()) == identity);
        if same {
            remove_side_files(&real);
            let _ = std::fs::remove_file(real);
        }
    }
}

/// SQLite's `-wal`, `-shm` and `-journal` beside `real`, regular files only.
fn remove_side_files(real: &Path) {
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut side = real.to_path_buf().into_os_string();
        side.push(suffix);
        let side = PathBuf::from(side);
        if std::fs::symlink_metadata(&side).is_ok_and(|m| m.file_type().is_file()) {
            let _ = std::fs::remove_file(side);
        }
    }
}

/// `file:` URI of an absolute path, every byte outside the unreserved set
/// escaped (RFC 3986), so `?`, `#` and `%` in a name stay part of it.
fn file_uri(real: &Path, query: &str) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file:");
    for &b in real.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

/// The empty database file this call created, when refused for what lies
/// beside it: removed while its name still leads to it; the file beside it
/// is someone else's and stays.
fn remove_created_alone(real: &Path, identity: (u64, u64)) {
    if std::fs::symlink_metadata(real)
        .is_ok_and(|m| m.file_type().is_file() && (m.dev(), m.ino()) == identity && m.len() == 0)
    {
        let _ = std::fs::remove_file(real);
    }
}

/// A database this run created and could not make (a full disk, say) is
/// removed again, so a failed first run leaves no empty file to puzzle over
/// or to be refused later. Only while it is still the empty file made here.
fn remove_empty_created(real: &Path, identity: (u64, u64)) {
    let Ok(meta) = std::fs::symlink_metadata(real) else {
        return;
    };
    if meta.file_type().is_file() && (meta.dev(), meta.ino()) == identity && meta.len() == 0 {
        remove_side_files(real);
        let _ = std::fs::remove_file(real);
    }
}

fn open_checked(
    path: &Path,
    real: &Path,
    identity: (u64, u64),
    access: Access,
    immutable: bool,
) -> Result<Store, StoreError> {
    let shown = path.display().to_string();
    let flags = match access {
        Access::Read | Access::Follow => OpenFlags::SQLITE_OPEN_READ_ONLY,
        Access::Write => OpenFlags::SQLITE_OPEN_READ_WRITE,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let opened = if immutable {
        // immutable=1: no locks, no -shm, no -wal; the file as it is on disk.
        open_database(file_uri(real, "immutable=1"), flags | OpenFlags::SQLITE_OPEN_URI)
    } else {
        open_database(real, flags)
    };
    let mut conn = opened.map_err(|e| super::open_error(&shown, e))?;
    match sqlite_opened_checked(real, identity) {
        Ok(true) => {}
        Ok(false) => {
            return Err(refused(
                path,
                "it was replaced while being opened; nothing was written",
            ));
        }
        Err(e) => {
            return Err(refused(
                path,
                format!("cannot check the opened file: {}", io_text(&e)),
            ));
        }
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    let wait = Arc::new(AtomicBool::new(true));
    install_busy_handler(&mut conn, interrupted.clone(), wait.clone()).map_err(|e| StoreError::Db {
        path: shown.clone(),
        why: super::sqlite_text(&e),
    })?;
    let mut store = Store {
        conn,
        path: shown,
        schema: 0,
        interrupted,
        wait,
        created: None,
    };
    store.schema = match access {
        Access::Read | Access::Follow => schema::check_readable(&store)?,
        Access::Write => schema::create_or_migrate(&mut store)?,
    };
    if access == Access::Write {
        // WAL lets `kura serve` and `history` read while a run writes; NORMAL
        // syncs at checkpoints, not at every job a run stores.
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| store.sql(e))?;
        let _ = mode;
        store
            .conn
            .execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON")
            .map_err(|e| store.sql(e))?;
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_uri_characters_reads_immutable() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a?b#c%d &e.db");
        let mut made = open(&db, Access::Write, false).unwrap();
        // Kept although no run is in it, for the reads below.
        made.created = None;
        drop(made);
        let uri = file_uri(&db, "immutable=1");
        assert!(uri.ends_with("a%3Fb%23c%25d%20%26e.db?immutable=1"), "{uri}");
        let store = open(&db, Access::Read, false).unwrap();
        assert!(store.schema > 0);
        for suffix in ["-wal", "-shm"] {
            let mut side = db.clone().into_os_string();
            side.push(suffix);
            assert!(
                !PathBuf::from(side).exists(),
                "{suffix} beside a database read immutable"
            );
        }
    }
}
