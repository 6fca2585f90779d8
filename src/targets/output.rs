//! The one check every file kura writes for the user goes through (`report
//! -o`, and any export to a file): only regular files, never through a link,
//! never over the database being read, and a replaced file is said so.

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
    #[error("{path} changed while kura was opening it; try again")]
    Changed { path: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// An output file, open for writing and already emptied.
#[derive(Debug)]
pub struct Output {
    pub file: File,
    /// The path named an existing file, which this output replaces.
    pub replaced: bool,
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

/// Opens `path` for an output file after checking it: a new file, or an
/// existing regular file that is replaced. Refuses devices, pipes and other
/// non-regular files (opening some of them has effects of its own), a symbolic
/// link at the path, and the database `db` (with its WAL and journal files).
pub fn create_output(path: &Path, db: Option<&Path>) -> Result<Output, OutputError> {
    let shown = path.display().to_string();
    let io_err = |source: io::Error| OutputError::Io {
        path: shown.clone(),
        source,
    };
    let before = match std::fs::symlink_metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_err(e)),
    };
    if let Some(meta) = &before {
        if meta.file_type().is_symlink() {
            let to = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            return Err(OutputError::Link { path: shown, to });
        }
        if !meta.is_file() {
            return Err(OutputError::NotRegular {
                path: shown,
                what: kind_of(meta),
            });
        }
    }
    // O_NOFOLLOW and O_NONBLOCK: a link or a pipe swapped in since the look above
    // fails or returns at once instead of being followed or blocking.
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                OutputError::Changed { path: shown.clone() }
            } else {
                io_err(e)
            }
        })?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(OutputError::NotRegular {
            path: shown,
            what: kind_of(&meta),
        });
    }
    if let Some(old) = &before
        && (old.dev(), old.ino()) != (meta.dev(), meta.ino())
    {
        return Err(OutputError::Changed { path: shown });
    }
    if let Some(db) = db {
        for protected in database_files(db) {
            if std::fs::metadata(&protected).is_ok_and(|p| (p.dev(), p.ino()) == (meta.dev(), meta.ino())) {
                return Err(OutputError::Database {
                    path: shown,
                    db: protected.display().to_string(),
                });
            }
        }
    }
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
}
