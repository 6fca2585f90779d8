//! bonnie's checks of DIR before anything is written, made by the runner's
//! one check before the first I/O (`runner::refuse_up_front`) and again when
//! the run starts.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;

use crate::jobs::Job;
use crate::jobs::bonnie_params::BonnieSettings;

const MIB: u64 = 1 << 20;

/// The runner's check of a run's bonnie jobs, which share DIR and sizes:
/// [`check_target`] of the first.
pub fn check_up_front(jobs: &[&Job]) -> Result<(), String> {
    match jobs.iter().find_map(|j| Some((*j, j.workload.bonnie()?))) {
        Some((job, p)) => check_target(&BonnieSettings::of_job(job, p)),
        None => Ok(()),
    }
}

fn human(bytes: u64) -> String {
    format!("{:.1} MiB ({bytes} bytes)", bytes as f64 / MIB as f64)
}

/// Checks made before anything is written: the directory, files left over
/// from an earlier run, and room for the test file and the small files.
pub fn check_target(cfg: &BonnieSettings) -> Result<(), String> {
    let dir = &cfg.dir;
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "{} is not a directory; kura suite bonnie takes the directory for its test files",
                dir.display()
            ));
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    for path in [cfg.data_path(), cfg.files_path()] {
        if std::fs::symlink_metadata(&path).is_ok() {
            return Err(format!(
                "{} already exists; kura writes only files it creates: remove it (left by a --keep run?) \
                 or choose another directory",
                path.display()
            ));
        }
    }
    let c_dir = CString::new(dir.as_os_str().as_bytes()).map_err(|_| "the path contains a NUL byte")?;
    // SAFETY: statvfs is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_dir` is NUL-terminated and `st` is writable, both live for the call.
    if unsafe { libc::statvfs(c_dir.as_ptr(), &mut st) } != 0 {
        return Err(format!("{}: {}", dir.display(), io::Error::last_os_error()));
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    if cfg.size_bytes > free {
        return Err(format!(
            "{}: the test file needs {} but only {} is free; give a smaller --size or another directory",
            dir.display(),
            human(cfg.size_bytes),
            human(free)
        ));
    }
    // Some file systems (btrfs) report no inode count at all; only a real shortage refuses.
    let inodes = st.f_favail as u64;
    if cfg.files > 0 && st.f_files > 0 && inodes < cfg.files + 2 {
        return Err(format!(
            "{}: the file tests need {} inodes but only {inodes} are free; give a smaller --files",
            dir.display(),
            cfg.files + 2
        ));
    }
    Ok(())
}
