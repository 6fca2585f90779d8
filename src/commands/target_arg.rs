//! What `mark` and `sweep` make of their TARGET and `--size`: a directory
//! means a test file in it (CrystalDiskMark users pick a drive), and without
//! `--size` an existing smaller file is measured at its own size.

use std::path::{Path, PathBuf};

use crate::jobs::Job;
use crate::jobs::units::format_size;
use crate::report::escape::term;

/// The size `mark` and `sweep` use when `--size` is not given.
pub const DEFAULT_SIZE: &str = "1g";
const DEFAULT_SIZE_BYTES: u64 = 1 << 30;
/// The test file kura creates in a directory given as the target.
pub const TEST_FILE: &str = "kura-test.dat";

/// Sets the job's target and size from the arguments; returns a note for the
/// user when kura chose something they did not say.
pub fn apply(base: &mut Job, target: Option<&str>, size: Option<&str>) -> anyhow::Result<Option<String>> {
    let mut note = None;
    if let Some(t) = target {
        let path = Path::new(t);
        // A directory the user named (through a link or not) is where the test file goes;
        // the file itself is then created exclusively, never through a link.
        let in_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        let chosen = if in_dir {
            path.join(TEST_FILE)
        } else {
            PathBuf::from(t)
        };
        base.set("target", &chosen.to_string_lossy())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        base.own_name = in_dir;
        if in_dir {
            note = Some(crate::t!(
                "note-testing-in-directory",
                dir = term(t).into_owned(),
                file = term(&chosen.display().to_string()).into_owned()
            ));
        }
    }
    match size {
        Some(s) => base.set("size", s).map_err(|e| anyhow::anyhow!("--{e}"))?,
        None => match smaller_file(base) {
            Some(len) => {
                // Left unset: the file is used at its own size, as `run` does.
                base.size_bytes = None;
                let path = crate::targets::job_path(base);
                let text = crate::t!(
                    "note-smaller-than-default-size",
                    path = term(&path.display().to_string()).into_owned(),
                    size = format_size(len),
                    default = DEFAULT_SIZE
                );
                note = Some(match note {
                    Some(n) => format!("{n}{}{text}", crate::t!("note-separator")),
                    None => text,
                });
            }
            None => base
                .set("size", DEFAULT_SIZE)
                .map_err(|e| anyhow::anyhow!("--{e}"))?,
        },
    }
    Ok(note)
}

/// The length of the job's target when it is an existing regular file or a
/// block device smaller than the default size, and not empty. A device of
/// 256 MiB used to be refused for the default 1 GiB, where `run` measures
/// the whole device. A link the user named is followed, as `run` follows
/// it (the run pins what it reached); a name kura picks is never a link.
fn smaller_file(job: &Job) -> Option<u64> {
    use std::os::unix::fs::FileTypeExt;
    let path = crate::targets::job_path(job);
    let meta = match job.own_name {
        true => std::fs::symlink_metadata(&path).ok()?,
        false => std::fs::metadata(&path).ok()?,
    };
    let len = if meta.is_file() {
        meta.len()
    } else if meta.file_type().is_block_device() {
        // A device is named through links (/dev/disk/by-id/...); opening one to read has no effect.
        let mut dev = std::fs::File::open(&path).ok()?;
        std::io::Seek::seek(&mut dev, std::io::SeekFrom::End(0)).ok()?
    } else {
        return None;
    };
    (len > 0 && len < DEFAULT_SIZE_BYTES).then_some(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_named_to_a_small_file_is_measured_at_its_size_as_the_file_is() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("small.dat");
        std::fs::File::create(&file).unwrap().set_len(8 << 20).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        for named in [&file, &link] {
            let mut job = Job::default();
            let note = apply(&mut job, named.to_str(), None).unwrap();
            assert_eq!(job.size_bytes, None, "{}", named.display());
            assert!(note.unwrap().contains("smaller than the default"));
        }
    }

    #[test]
    fn a_directory_means_a_test_file_in_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut job = Job::default();
        let note = apply(&mut job, dir.path().to_str(), None).unwrap();
        assert_eq!(job.target.as_deref(), Some(dir.path().join(TEST_FILE).as_path()));
        assert_eq!(job.size_bytes, Some(DEFAULT_SIZE_BYTES));
        assert!(note.unwrap().contains("test file"));
    }

    #[test]
    fn without_size_a_smaller_file_is_used_whole_and_a_given_size_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("small.dat");
        std::fs::write(&file, vec![1u8; 4096]).unwrap();
        let mut job = Job::default();
        let note = apply(&mut job, file.to_str(), None).unwrap().unwrap();
        assert_eq!(job.size_bytes, None);
        assert!(note.contains("smaller than the default --size 1g"), "{note}");
        let mut job = Job::default();
        assert!(apply(&mut job, file.to_str(), Some("8k")).unwrap().is_none());
        assert_eq!(job.size_bytes, Some(8192));
    }
}
