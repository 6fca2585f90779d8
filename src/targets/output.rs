//! The one check every file kura writes for the user goes through (`report
//! -o`, fio's logs, the verify journal, any export to a file): only regular
//! files, never through a link, never over a database, a disk image or a
//! loop device's backing file, never a new file in /dev, and a replaced file
//! is said so. `check_output` makes the same checks before a run, without
//! creating anything, so a bad path costs no benchmark time.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum OutputError {
    #[error(
        "{path} is a symbolic link (to {to}); kura does not write output through links: give the path of the file itself"
    )]
    Link { path: String, to: String },
    #[error("{path} is {what}, not a regular file; kura writes output only to regular files")]
    NotRegular { path: String, what: &'static str },
    #[error("{path} is the database kura reads ({db}); write the output somewhere else")]
    Database { path: String, db: String },
    #[error(
        "{path} has {links} names (hard links); kura would write into the file under its other names too: name a new file"
    )]
    HardLinked { path: String, links: u64 },
    #[error("{path} changed while kura was opening it; try again")]
    Changed { path: String },
    #[error("{path} exists and is not {what}; kura does not overwrite it: name a new file")]
    NotOurs { path: String, what: &'static str },
    #[error("{path} is {target}, the target of a job; kura does not write output over a target")]
    Target { path: String, target: String },
    #[error("{path}: the directory {dir} {why}")]
    Directory { path: String, dir: String, why: String },
    #[error("{path} carries {what}; kura does not replace a file that holds data with its output: {hint}")]
    Data {
        path: String,
        what: String,
        hint: String,
    },
    #[error(
        "{path} backs the loop device {device}; kura never writes output over a loop device's file, \
         not even with --allow-destroy: name a new file"
    )]
    BacksLoop { path: String, device: String },
    #[error(
        "{path}: kura does not create files in /dev (device nodes live there, and it is memory, not a disk): \
         name a file on a disk's file system"
    )]
    InDev { path: String },
    #[error("cannot look for signatures in {path} before replacing it: {why}")]
    Unchecked { path: String, why: String },
    #[error("{path}: {}{}", crate::io_text::io_text(source), fs_hint(source))]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// What to do about a file system that refuses an output, said after its errno's text.
pub(crate) fn fs_hint(e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::EROFS) => ": name a file on a file system mounted read-write",
        Some(libc::ENOSPC | libc::EDQUOT) => ": free some space, or name a file on another file system",
        _ => "",
    }
}

/// Whether the verb lets the user name an output that holds data to be
/// replaced: `run` has `--allow-destroy`, `report` has no such flag.
#[derive(Debug, Clone, Copy)]
pub enum Destroy<'a> {
    /// The verb has no `--allow-destroy`: a file that holds data is never replaced.
    NoFlag,
    /// The verb's `--allow-destroy`, as given.
    Flag(Option<&'a Path>),
}

impl Destroy<'_> {
    /// Whether `--allow-destroy` names the file `meta` is (device and inode).
    fn names(self, meta: &Metadata) -> bool {
        let Destroy::Flag(Some(allowed)) = self else {
            return false;
        };
        std::fs::metadata(allowed).is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino()))
    }

    fn hint(self, path: &Path) -> String {
        match self {
            Destroy::NoFlag => "name a new file, or remove this one first".into(),
            Destroy::Flag(_) => format!(
                "name a new file, or pass --allow-destroy {} to replace it (everything in it is lost)",
                path.display()
            ),
        }
    }
}

/// An output file, open for writing and already emptied.
#[derive(Debug)]
pub struct Output {
    pub file: File,
    /// The path named an existing file, which this output replaces.
    pub replaced: bool,
}

impl Output {
    /// After a failed write: removes the file when this output created it and
    /// the path still leads to it (a file that was replaced is left, emptied
    /// or partial, and the caller says so). Returns whether it was removed.
    pub fn discard(self, path: &Path) -> bool {
        if self.replaced {
            return false;
        }
        let Ok(mine) = self.file.metadata() else {
            return false;
        };
        let same =
            std::fs::symlink_metadata(path).is_ok_and(|m| (m.dev(), m.ino()) == (mine.dev(), mine.ino()));
        same && std::fs::remove_file(path).is_ok()
    }
}

/// What an existing file at an output path may be replaced when it is.
#[derive(Debug, Clone, Copy)]
pub enum Replace {
    /// Any regular file (an export, a report: the user named it to be written).
    Any,
    /// Only an empty file or one kura wrote before, told by the bytes it
    /// starts with (the verify journal's magic): anything else is data.
    Only {
        what: &'static str,
        magic: &'static [u8],
    },
}

/// What a file type is, with its article, for an error message.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// The database and the files SQLite keeps beside it.
fn database_files(db: &Path) -> Vec<PathBuf> {
    let mut out = vec![db.to_path_buf()];
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = db.as_os_str().to_os_string();
        name.push(suffix);
        out.push(name.into());
    }
    out
}

/// The look at the path itself, before opening: a symbolic link and
/// anything but a regular file are refused. The metadata of what is there.
fn look(path: &Path) -> Result<Option<Metadata>, OutputError> {
    let shown = path.display().to_string();
    let before = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(OutputError::Io { path: shown, source }),
    };
    if before.file_type().is_symlink() {
        let to = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return Err(OutputError::Link { path: shown, to });
    }
    if !before.is_file() {
        return Err(OutputError::NotRegular {
            path: shown,
            what: kind_of(&before),
        });
    }
    Ok(Some(before))
}

/// An existing file with a second name is someone's file under that name
/// (a log name hard-linked to their notes): emptying it empties both.
fn single_name(path: &Path, meta: &Metadata) -> Result<(), OutputError> {
    if meta.nlink() > 1 {
        return Err(OutputError::HardLinked {
            path: path.display().to_string(),
            links: meta.nlink(),
        });
    }
    Ok(())
}

/// The database `db` and the one a writing verb of this process opened
/// (`targets::protected`), with SQLite's files beside them.
fn all_database_files(db: Option<&Path>) -> Vec<PathBuf> {
    let mut all = db.map(database_files).unwrap_or_default();
    all.extend(super::protected::protected_paths());
    all
}

/// Refuses `path` when it names the database or one of SQLite's files beside
/// it, existing or not: SQLite creates `-journal`, `-wal` and `-shm` when it
/// needs them, and would take a file kura put there for its own.
fn not_a_database_name(path: &Path, db: Option<&Path>) -> Result<(), OutputError> {
    match all_database_files(db).into_iter().find(|p| same_name(path, p)) {
        Some(protected) => Err(OutputError::Database {
            path: path.display().to_string(),
            db: protected.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// Refuses `meta` when it is the database `db` or one of SQLite's files beside it.
fn not_the_database(path: &Path, meta: &Metadata, db: Option<&Path>) -> Result<(), OutputError> {
    for protected in all_database_files(db) {
        if std::fs::metadata(&protected).is_ok_and(|p| (p.dev(), p.ino()) == (meta.dev(), meta.ino())) {
            return Err(OutputError::Database {
                path: path.display().to_string(),
                db: protected.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Refuses `meta` when it is one of `targets` (files jobs read or write):
/// a log named like the file a job only reads must not replace it.
fn not_a_target(path: &Path, meta: &Metadata, targets: &[PathBuf]) -> Result<(), OutputError> {
    for target in targets {
        if std::fs::metadata(target).is_ok_and(|t| (t.dev(), t.ino()) == (meta.dev(), meta.ino())) {
            return Err(OutputError::Target {
                path: path.display().to_string(),
                target: target.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Whether two paths name the same entry of the same directory (the
/// directories resolved, so a symlink or `..` on the way does not hide it).
fn same_name(a: &Path, b: &Path) -> bool {
    let split = |p: &Path| -> Option<(PathBuf, std::ffi::OsString)> {
        let dir = match p.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        };
        Some((dir.canonicalize().ok()?, p.file_name()?.to_os_string()))
    };
    match (split(a), split(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Refuses an existing file `replace` does not allow, reading its first bytes from `file`.
fn may_replace(path: &Path, file: &File, len: u64, replace: Replace) -> Result<(), OutputError> {
    let Replace::Only { what, magic } = replace else {
        return Ok(());
    };
    if len == 0 {
        return Ok(());
    }
    let mut head = vec![0u8; magic.len()];
    let ours = std::os::unix::fs::FileExt::read_exact_at(file, &mut head, 0).is_ok() && head == magic;
    if ours {
        Ok(())
    } else {
        Err(OutputError::NotOurs {
            path: path.display().to_string(),
            what,
        })
    }
}

/// The SQLite file header: a database of any program, kura's included.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses a file that backs an attached loop device (by device and inode,
/// as the driver reports them): it is that device's data, mounted or not,
/// and no `--allow-destroy` makes it an output.
fn not_a_loop_backing(path: &Path, meta: &Metadata) -> Result<(), OutputError> {
    match super::safety::loop_devices()
        .into_iter()
        .find(|l| l.backing == (meta.dev(), meta.ino()))
    {
        Some(lo) => Err(OutputError::BacksLoop {
            path: path.display().to_string(),
            device: lo.path.display().to_string(),
        }),
        None => Ok(()),
    }
}

/// Refuses a file that holds data: a database (SQLite's header) or
/// anything kura's probe or `wipefs` finds a signature of (a disk image), read
/// from the descriptor `file`. An empty file holds nothing; `--allow-destroy`
/// naming the file lets it go, where the verb has that flag.
fn holds_no_data(path: &Path, file: &File, meta: &Metadata, destroy: Destroy) -> Result<(), OutputError> {
    if meta.len() == 0 || destroy.names(meta) {
        return Ok(());
    }
    let shown = path.display().to_string();
    let mut head = [0u8; SQLITE_HEADER.len()];
    if std::os::unix::fs::FileExt::read_exact_at(file, &mut head, 0).is_ok() && &head == SQLITE_HEADER {
        return Err(OutputError::Data {
            path: shown,
            what: "an SQLite database's header (a database of kura's or of another program)".into(),
            hint: destroy.hint(path),
        });
    }
    let found = super::safety::find_signatures(file).map_err(|e| OutputError::Unchecked {
        path: shown.clone(),
        why: crate::io_text::io_text(&e),
    })?;
    if found.is_empty() {
        return Ok(());
    }
    Err(OutputError::Data {
        path: shown,
        what: super::safety::describe_all(&found),
        hint: destroy.hint(path),
    })
}

/// A new output is never made in /dev, nor anywhere on devtmpfs: device
/// nodes live there and it is memory (`report -o /dev/sdb1` with the disk
/// unplugged would leave a page of HTML in RAM, named like the disk). A
/// file system mounted below /dev for files (`/dev/shm`) is a place like
/// any other.
fn not_a_new_file_in_dev(path: &Path) -> Result<(), OutputError> {
    let place = super::facts::canonical(path);
    let mount = super::facts::mount_of(&place);
    let devtmpfs = mount.as_ref().is_some_and(|m| m.fstype == "devtmpfs");
    let mounted_below_dev = mount
        .as_ref()
        .is_some_and(|m| Path::new(&m.mount_point).starts_with("/dev") && m.mount_point != "/dev");
    if devtmpfs || (place.starts_with("/dev") && !mounted_below_dev) {
        return Err(OutputError::InDev {
            path: path.display().to_string(),
        });
    }
    Ok(())
}

/// Every check of an existing file (or of one just created, still empty),
/// made on the opened descriptor `file` whose `fstat` is `meta`.
fn judge(
    path: &Path,
    file: &File,
    meta: &Metadata,
    db: Option<&Path>,
    replace: Replace,
    targets: &[PathBuf],
    destroy: Destroy,
) -> Result<(), OutputError> {
    if !meta.is_file() {
        return Err(OutputError::NotRegular {
            path: path.display().to_string(),
            what: kind_of(meta),
        });
    }
    not_the_database(path, meta, db)?;
    not_a_target(path, meta, targets)?;
    single_name(path, meta)?;
    may_replace(path, file, meta.len(), replace)?;
    not_a_loop_backing(path, meta)?;
    holds_no_data(path, file, meta, destroy)
}

/// The checks `create_output_with` makes, before a run, creating and
/// changing nothing: the path is a new name in an existing directory kura
/// may write (not on a read-only file system, not in /dev), or a file it
/// may replace. The checks are made again when the file is opened.
pub fn check_output(
    path: &Path,
    db: Option<&Path>,
    replace: Replace,
    targets: &[PathBuf],
    destroy: Destroy,
) -> Result<(), OutputError> {
    let shown = path.display().to_string();
    not_a_database_name(path, db)?;
    match look(path)? {
        Some(before) => {
            let io_err = |source| OutputError::Io {
                path: shown.clone(),
                source,
            };
            let file = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(path)
                .map_err(io_err)?;
            let meta = file.metadata().map_err(io_err)?;
            if (before.dev(), before.ino()) != (meta.dev(), meta.ino()) {
                return Err(OutputError::Changed { path: shown });
            }
            judge(path, &file, &meta, db, replace, targets, destroy)?;
            writable(path, path)
        }
        None => {
            let dir = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(p) => p.to_path_buf(),
                None => PathBuf::from("."),
            };
            // A target that does not exist yet is created at its name before the outputs are.
            if let Some(target) = targets.iter().find(|t| same_name(path, t)) {
                return Err(OutputError::Target {
                    path: shown,
                    target: target.display().to_string(),
                });
            }
            not_a_new_file_in_dev(path)?;
            match std::fs::metadata(&dir) {
                Ok(m) if m.is_dir() => writable(path, &dir),
                Ok(_) => Err(OutputError::Directory {
                    path: shown,
                    dir: dir.display().to_string(),
                    why: "is not a directory".into(),
                }),
                Err(e) => Err(OutputError::Directory {
                    path: shown,
                    dir: dir.display().to_string(),
                    why: format!("cannot be used: {}", crate::io_text::io_text(&e)),
                }),
            }
        }
    }
}

/// `access(W_OK)`: refuses a read-only file system (EROFS, even for root)
/// and a directory or file this user may not write.
fn writable(path: &Path, what: &Path) -> Result<(), OutputError> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(what.as_os_str().as_bytes()) else {
        return Err(OutputError::Io {
            path: path.display().to_string(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "the path holds a NUL byte"),
        });
    };
    // SAFETY: `c` is NUL-terminated and lives for the call.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if what == path {
        Err(OutputError::Io {
            path: path.display().to_string(),
            source: e,
        })
    } else {
        Err(OutputError::Directory {
            path: path.display().to_string(),
            dir: what.display().to_string(),
            why: format!(
                "cannot be written: {}{}",
                crate::io_text::io_text(&e),
                fs_hint(&e)
            ),
        })
    }
}

/// Opens `path` for an output file after checking it: a new file, or an
/// existing regular file that is replaced. Refuses devices, pipes and other
/// non-regular files (opening some of them has effects of its own), a symbolic
/// link at the path, the database `db` (with its WAL and journal files), any
/// file that holds data, and a loop device's backing file. For a verb without
/// `--allow-destroy` (`report`).
pub fn create_output(path: &Path, db: Option<&Path>) -> Result<Output, OutputError> {
    create_output_with(path, db, Replace::Any, &[], Destroy::NoFlag)
}

/// `create_output`, with what an existing file must be to be replaced, the
/// targets of the run's jobs, which are never replaced, and the verb's
/// `--allow-destroy`. Every check is made on the opened descriptor before
/// the file is emptied.
pub fn create_output_with(
    path: &Path,
    db: Option<&Path>,
    replace: Replace,
    targets: &[PathBuf],
    destroy: Destroy,
) -> Result<Output, OutputError> {
    let shown = path.display().to_string();
    let io_err = |source: io::Error| OutputError::Io {
        path: shown.clone(),
        source,
    };
    not_a_database_name(path, db)?;
    let before = look(path)?;
    if before.is_none() {
        not_a_new_file_in_dev(path)?;
    }
    // O_NOFOLLOW and O_NONBLOCK: a link or a pipe swapped in since the look above
    // fails or returns at once instead of being followed or blocking.
    let file = OpenOptions::new()
        // Read as well: the signature probe reads the descriptor that is then emptied.
        .read(true)
        .write(true)
        // A new name is created exclusively, an existing file opened without creating:
        // a file put at the name, or one removed, since the look is not taken over.
        .create_new(before.is_none())
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::EEXIST)) {
                OutputError::Changed { path: shown.clone() }
            } else {
                io_err(e)
            }
        })?;
    let meta = file.metadata().map_err(io_err)?;
    if let Some(old) = &before
        && (old.dev(), old.ino()) != (meta.dev(), meta.ino())
    {
        return Err(OutputError::Changed { path: shown });
    }
    judge(path, &file, &meta, db, replace, targets, destroy)?;
    file.set_len(0).map_err(io_err)?;
    Ok(Output {
        file,
        replaced: before.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_and_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.html");
        let out = create_output(&path, None).unwrap();
        assert!(!out.replaced);
        std::fs::write(&path, b"old contents").unwrap();
        let out = create_output(&path, None).unwrap();
        assert!(out.replaced);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    }

    #[test]
    fn links_devices_pipes_and_the_database_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        let link = dir.path().join("link.html");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let err = create_output(&link, None).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");

        let err = create_output(Path::new("/dev/null"), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("character device"), "{err}");
        let err = create_output(dir.path(), None).unwrap_err().to_string();
        assert!(err.contains("a directory"), "{err}");

        let db = dir.path().join("kura.db");
        std::fs::write(&db, b"SQLite format 3\0").unwrap();
        let err = create_output(&db, Some(&db)).unwrap_err().to_string();
        assert!(err.contains("the database kura reads"), "{err}");
        // Another name for the same file is the same file.
        let hard = dir.path().join("hard.html");
        std::fs::hard_link(&db, &hard).unwrap();
        let err = create_output(&hard, Some(&db)).unwrap_err().to_string();
        assert!(err.contains("the database kura reads"), "{err}");
        assert_eq!(std::fs::read(&db).unwrap(), b"SQLite format 3\0");
    }

    #[test]
    fn a_file_with_a_second_name_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        std::fs::write(&notes, b"keep me").unwrap();
        let log = dir.path().join("x_bw.1.log");
        std::fs::hard_link(&notes, &log).unwrap();
        let err = check_output(&log, None, Replace::Any, &[], Destroy::NoFlag)
            .unwrap_err()
            .to_string();
        assert!(err.contains("2 names"), "{err}");
        let err = create_output(&log, None).unwrap_err().to_string();
        assert!(err.contains("2 names"), "{err}");
        assert_eq!(std::fs::read(&notes).unwrap(), b"keep me");
        // A new file at the name of a target not created yet is that target.
        let target = dir.path().join("t.dat");
        let spelled = dir.path().join(".").join("t.dat");
        let err = check_output(
            &spelled,
            None,
            Replace::Any,
            std::slice::from_ref(&target),
            Destroy::NoFlag,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("the target of a job"), "{err}");
    }

    #[test]
    fn only_what_replace_allows_is_replaced_and_checks_create_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let only = Replace::Only {
            what: "a test file",
            magic: b"MAGIC",
        };
        let data = dir.path().join("data");
        std::fs::write(&data, b"user data").unwrap();
        let err = check_output(&data, None, only, &[], Destroy::NoFlag)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a test file"), "{err}");
        let err = create_output_with(&data, None, only, &[], Destroy::NoFlag)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a test file"), "{err}");
        assert_eq!(std::fs::read(&data).unwrap(), b"user data");
        let ours = dir.path().join("ours");
        std::fs::write(&ours, b"MAGIC and more").unwrap();
        assert!(
            create_output_with(&ours, None, only, &[], Destroy::NoFlag)
                .unwrap()
                .replaced
        );
        // A target of the run is never an output, whatever it holds.
        let err = check_output(
            &ours,
            None,
            Replace::Any,
            std::slice::from_ref(&ours),
            Destroy::NoFlag,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("the target of a job"), "{err}");

        let new = dir.path().join("new");
        check_output(&new, None, only, &[], Destroy::NoFlag).unwrap();
        assert!(!new.exists(), "a check created the file");
        let err = check_output(
            &dir.path().join("no/such"),
            None,
            Replace::Any,
            &[],
            Destroy::NoFlag,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("the directory"), "{err}");
        // A file this output created, and could not fill, is removed; a replaced one is not.
        let out = create_output(&new, None).unwrap();
        assert!(out.discard(&new) && !new.exists());
        let out = create_output(&data, None).unwrap();
        assert!(!out.discard(&data) && data.exists());
    }

    #[test]
    fn files_that_hold_data_are_replaced_only_when_allow_destroy_names_them() {
        let dir = tempfile::tempdir().unwrap();
        let other_db = dir.path().join("other.db");
        let mut sqlite = b"SQLite format 3\0".to_vec();
        sqlite.resize(4096, 0);
        std::fs::write(&other_db, &sqlite).unwrap();
        // The ext2/3/4 magic where kura's own probe looks (superblock at 1024, s_magic at 56).
        let image = dir.path().join("disk.img");
        let mut ext = vec![0u8; 64 << 10];
        ext[1024 + 56..1024 + 58].copy_from_slice(&0xEF53u16.to_le_bytes());
        std::fs::write(&image, &ext).unwrap();
        for (path, before) in [(&other_db, &sqlite), (&image, &ext)] {
            let err = check_output(path, None, Replace::Any, &[], Destroy::NoFlag)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("remove this one") && !err.contains("--allow-destroy"),
                "{err}"
            );
            let err = create_output(path, None).unwrap_err().to_string();
            assert!(err.contains("name a new file"), "{err}");
            let err = create_output_with(path, None, Replace::Any, &[], Destroy::Flag(None))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("--allow-destroy {}", path.display())),
                "{err}"
            );
            assert_eq!(&std::fs::read(path).unwrap(), before);
        }
        let err = create_output(&other_db, None).unwrap_err().to_string();
        assert!(err.contains("an SQLite database"), "{err}");
        // Named, it is the user's to lose; naming another file allows nothing.
        let err = create_output_with(&image, None, Replace::Any, &[], Destroy::Flag(Some(&other_db)))
            .unwrap_err()
            .to_string();
        assert!(err.contains("carries"), "{err}");
        check_output(&image, None, Replace::Any, &[], Destroy::Flag(Some(&image))).unwrap();
        let out = create_output_with(&image, None, Replace::Any, &[], Destroy::Flag(Some(&image))).unwrap();
        assert!(out.replaced && std::fs::read(&image).unwrap().is_empty());
        // An empty file holds nothing.
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(create_output(&empty, None).unwrap().replaced);
    }

    #[test]
    fn no_new_output_in_dev() {
        let path = PathBuf::from(format!("/dev/kura-unit-{}.html", std::process::id()));
        let err = check_output(&path, None, Replace::Any, &[], Destroy::NoFlag)
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not create files in /dev"), "{err}");
        let err = create_output(&path, None).unwrap_err().to_string();
        assert!(err.contains("does not create files in /dev"), "{err}");
        assert!(!path.exists());
    }
}
