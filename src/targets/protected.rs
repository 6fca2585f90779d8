//! Files kura must never measure writes on: its own database (and SQLite's
//! -wal, -shm and -journal beside it). `kura run --target k.db --rw write
//! --db k.db` would otherwise write random blocks over the runs it stores.
//! The command layer names the database when it opens it; a job that
//! writes is refused when its target is that same file (device and inode,
//! so another path to it is caught too).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static PROTECTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Marks the database at `db` (and its SQLite companions) as never written by a job.
pub fn protect_database(db: &Path) {
    let mut list = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let p = PathBuf::from(p);
        if !list.contains(&p) {
            list.push(p);
        }
    }
}

/// The protected names: the database a writing verb opened and its side files.
pub fn protected_paths() -> Vec<PathBuf> {
    PROTECTED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// `Err` with a sentence when `target` is a protected file, or a loop
/// device whose backing file is one (the driver's device and inode of it,
/// so a renamed or hard-linked backing file is caught too).
pub fn check_writable(target: &Path) -> Result<(), String> {
    let Ok(t) = std::fs::metadata(target) else {
        return refuse_new_file_at_a_database_name(target);
    };
    let (identity, through) = if t.file_type().is_block_device() {
        match super::safety::loop_of(t.rdev()) {
            Some(lo) => (
                lo.backing,
                format!(" through the loop device over {}", lo.backing_name),
            ),
            None => return Ok(()),
        }
    } else {
        ((t.dev(), t.ino()), String::new())
    };
    let list = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    for p in list.iter() {
        if let Ok(m) = std::fs::metadata(p)
            && (m.dev(), m.ino()) == identity
        {
            return Err(format!(
                "{}: is kura's database ({}){through}; a job that writes would overwrite the runs stored there: give another target",
                target.display(),
                p.display()
            ));
        }
    }
    Ok(())
}

/// A new test file is never created at the database's name or at one of
/// SQLite's names beside it: SQLite would take a file at `DB-journal` for a
/// hot journal of its own and play it back into the database.
pub fn refuse_new_file_at_a_database_name(target: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(target).is_ok() {
        return Ok(());
    }
    let place = |p: &Path| -> Option<(PathBuf, std::ffi::OsString)> {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Some((dir.canonicalize().ok()?, p.file_name()?.to_os_string()))
    };
    let Some(mine) = place(target) else {
        return Ok(());
    };
    let list = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    match list.iter().find(|p| place(p).as_ref() == Some(&mine)) {
        Some(p) => Err(format!(
            "{}: is the name of kura's database or of SQLite's file beside it ({}); a test file \
             there would be taken for the database's own: give another target",
            target.display(),
            p.display()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_at_a_database_side_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("runs.db");
        protect_database(&db);
        let journal = dir.path().join("runs.db-journal");
        let err = check_writable(&journal).unwrap_err();
        assert!(err.contains("SQLite"), "{err}");
        // Spelled another way, the same name.
        let spelled = dir.path().join(".").join("runs.db-wal");
        assert!(check_writable(&spelled).is_err());
        assert!(check_writable(&dir.path().join("other.dat")).is_ok());
    }
}
