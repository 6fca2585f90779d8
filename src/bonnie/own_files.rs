//! The data file and the directory of small files as this run made them:
//! reopened and removed only while their names still lead to them.

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::Dir;
use crate::jobs::bonnie_params::BonnieSettings;

/// (device, inode) of the data file this run made, once it made one.
pub(super) type FileId = Option<(u64, u64)>;

/// Creates the data file anew. What is at its name must be the file this run
/// made before (by device and inode; a regular file, not a symlink), which is
/// removed; anything else is left alone and the test fails.
pub(super) fn create_new(path: &Path, id: &mut FileId) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && Some((m.dev(), m.ino())) == *id => std::fs::remove_file(path)?,
        Ok(_) => return Err(not_ours(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let file = crate::targets::own::create_new(path, 0o600)?;
    let m = file.metadata()?;
    *id = Some((m.dev(), m.ino()));
    Ok(file)
}

/// Opens the data file this run made, never through a symlink, and only
/// while the name still leads to it.
pub(super) fn open_rw(path: &Path, id: FileId) -> io::Result<File> {
    crate::targets::own::reopen(path, id.ok_or_else(|| not_ours(path))?)
}

pub(super) use crate::targets::own::not_ours;

/// Removes what kura created in DIR; `check_target` made sure nothing was there before.
/// The data file only while its name leads to the file this run made; the
/// directory of small files only while it is the one this run made, and in
/// it only regular files (what bonnie's tests make), never recursively.
pub(super) fn cleanup(cfg: &BonnieSettings, data_id: FileId, files_id: FileId, warnings: &mut Vec<String>) {
    let data = cfg.data_path();
    match std::fs::symlink_metadata(&data) {
        Ok(m) if m.is_file() && Some((m.dev(), m.ino())) == data_id => {
            if let Err(e) = std::fs::remove_file(&data) {
                warnings.push(format!("{}: {e}", data.display()));
            }
        }
        Ok(_) => warnings.push(not_ours(&data).to_string()),
        Err(_) => {}
    }
    let files = cfg.files_path();
    if std::fs::symlink_metadata(&files).is_err() {
        return;
    }
    let held = Dir::open_own(&files).and_then(|d| Ok((d.identity()?, d)));
    let dir = match held {
        Ok((id, dir)) if Some(id) == files_id => dir,
        _ => {
            warnings.push(not_ours(&files).to_string());
            return;
        }
    };
    let removed = dir.regular_files().and_then(|(names, other)| {
        for name in &names {
            dir.unlink(name)?;
        }
        if other {
            return Err(io::Error::other(
                "it holds entries kura did not make (left, with the directory)",
            ));
        }
        std::fs::remove_dir(&files)
    });
    if let Err(e) = removed {
        warnings.push(format!("{}: {e}", files.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_is_reopened_and_removed_only_while_it_is_the_one_kura_made() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = BonnieSettings::new(dir.path().to_path_buf(), 1 << 20, 8192, 0);
        let path = cfg.data_path();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious data").unwrap();
        let mut id = None;
        drop(create_new(&path, &mut id).unwrap());
        assert!(open_rw(&path, id).is_ok());
        // A symlink put at the name between two tests: not followed, not removed.
        std::fs::rename(&path, dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = open_rw(&path, id).unwrap_err().to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let err = create_new(&path, &mut id).unwrap_err().to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let mut warnings = Vec::new();
        cleanup(&cfg, id, None, &mut warnings);
        assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious data");
        // Another regular file put there: the same.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone's file").unwrap();
        assert!(open_rw(&path, id).is_err());
        cleanup(&cfg, id, None, &mut warnings);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone's file");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        // Its own file, put back, is removed.
        std::fs::rename(dir.path().join("moved"), &path).unwrap();
        cleanup(&cfg, id, None, &mut warnings);
        assert!(!path.exists());
    }
}
