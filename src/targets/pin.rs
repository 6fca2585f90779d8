//! What each path named a job's target reached when this run first checked
//! it. A run (a suite, a mark's grid, a job file) prepares its target once
//! per job; a symbolic link swapped between two jobs would otherwise send
//! the later jobs to another file or device, unchecked against the first
//! decision and stored as one target. Every later preparation of the same
//! path must reach the same object, or the run stops.

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Identity, TargetError};

struct Pin {
    path: PathBuf,
    identity: Identity,
    /// An `O_PATH` descriptor of a pinned file: while it is open the inode
    /// cannot be freed, so a new file cannot take its number and pass for it.
    _held: Option<File>,
}

static PINS: Mutex<Vec<Pin>> = Mutex::new(Vec::new());

fn pins() -> std::sync::MutexGuard<'static, Vec<Pin>> {
    PINS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Refuses `path` when this run pinned it to another file or device than
/// the one it reaches now (or it reaches nothing now).
pub(super) fn check(path: &Path) -> Result<(), TargetError> {
    let pins = pins();
    let Some(pin) = pins.iter().find(|p| p.path == path) else {
        return Ok(());
    };
    let now = std::fs::metadata(path);
    if now.as_ref().is_ok_and(|m| pin.identity.matches(m)) {
        return Ok(());
    }
    let what = match (&now, pin.identity.rdev) {
        (Err(e), _) if e.kind() == io::ErrorKind::NotFound => "is gone".to_string(),
        (Err(e), _) => format!("cannot be looked at ({e})"),
        (Ok(_), Some(rdev)) => format!(
            "leads somewhere else than the device {}:{} it led to",
            libc::major(rdev),
            libc::minor(rdev)
        ),
        (Ok(_), None) => "leads to another file than the one it led to".to_string(),
    };
    Err(TargetError::Invalid {
        path: path.display().to_string(),
        why: format!(
            "{what} when this run checked it (a symbolic link changed, or the file was replaced); \
             kura stops rather than write to something it did not check, or store two targets as one"
        ),
    })
}

/// Remembers what `path` reached when it was checked, for the rest of the run.
pub(super) fn pin(path: &Path, identity: Identity) {
    let mut pins = pins();
    if pins.iter().any(|p| p.path == path) {
        return;
    }
    let held = match identity.rdev {
        Some(_) => None,
        None => std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
            .open(path)
            .ok(),
    };
    pins.push(Pin {
        path: path.to_path_buf(),
        identity,
        _held: held,
    });
}

/// Forgets a pin: a test file kura removed may be made afresh at its name.
pub(super) fn unpin(path: &Path) {
    pins().retain(|p| p.path != path);
}
