//! The check that runs before kura writes to a block device. There is no
//! udev on many test machines, so nothing here trusts lsblk, blkid caches or
//! sysfs holders alone: the kernel's own mount and swap tables, an exclusive
//! open, and the signatures on the device itself decide.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;

pub(crate) use super::stack::{LoopDevice, loop_devices, loop_of};

mod candidate;
mod data;
mod decided;
mod mounts;
mod refusal;
mod signatures;

use candidate::{Candidate, same_device};
pub(super) use data::refuse_data;
pub(super) use decided::decided_writable;
pub(super) use mounts::{Mount, parse_mountinfo, unescape};
pub use refusal::WriteRefusal;
pub(super) use signatures::{describe_all, find_signatures};

/// Whether kura may overwrite `dev`. Mounted, swap, held and busy devices are
/// refused whatever `allow_destroy` says; a device that carries a signature is
/// accepted only when `allow_destroy` names that same device.
pub fn check_device_writable(dev: &Path, allow_destroy: Option<&Path>) -> Result<(), WriteRefusal> {
    check_writable(dev, allow_destroy).map(|_| ())
}

/// The descriptor the checks ran on. For a block device it is open with
/// O_EXCL, so nothing can mount or claim the device while kura holds it; the
/// run keeps it until the end, and every later open must find the same device.
#[derive(Debug)]
pub(super) struct Checked {
    pub file: Arc<File>,
    pub meta: std::fs::Metadata,
}

/// [`check_device_writable`], returning the descriptor that was checked.
pub(super) fn check_writable(dev: &Path, allow_destroy: Option<&Path>) -> Result<Checked, WriteRefusal> {
    let c = Candidate::look(dev, allow_destroy)?;
    c.refuse_in_use()?;
    let file = if c.is_block {
        c.claim_device()?
    } else {
        Arc::new(
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
                .open(&c.canonical)
                .map_err(|e| c.unchecked(e))?,
        )
    };
    let meta = c.same_as_looked_at(&file)?;
    if allow_destroy.is_some_and(|allowed| same_device(allowed, &c.canonical, &meta))
        || decided_writable(&meta)
    {
        return Ok(Checked { file, meta });
    }
    let (found, where_found) = c.signatures(&file, &meta)?;
    if found.is_empty() {
        refuse_data(&c.shown, &file, &meta, allow_destroy, "device")?;
        return Ok(Checked { file, meta });
    }
    let named = match allow_destroy {
        Some(other) => format!("; --allow-destroy names {}, a different device", other.display()),
        None => String::new(),
    };
    Err(WriteRefusal::Signature {
        device: c.shown,
        what: format!("{}{where_found}", describe_all(&found)),
        named,
    })
}

/// A file about to be written that backs an attached loop device: refused
/// while any such device is mounted, swap, held or busy (the file is that
/// device's data, whatever `--allow-destroy` says), and while free unless
/// `--allow-destroy` names this file.
pub(super) fn check_loop_backing(
    path: &Path,
    meta: &std::fs::Metadata,
    allow_destroy: Option<&Path>,
) -> Result<(), WriteRefusal> {
    let loops: Vec<LoopDevice> = loop_devices()
        .into_iter()
        .filter(|l| l.backing == (meta.dev(), meta.ino()))
        .collect();
    let Some(first) = loops.first() else {
        return Ok(());
    };
    let shown = path.display().to_string();
    for lo in &loops {
        // The device's own checks; naming it as allowed skips only its signature probe.
        if let Err(e) = check_writable(&lo.path, Some(&lo.path)) {
            return Err(WriteRefusal::BacksLoopInUse {
                file: shown,
                device: lo.path.display().to_string(),
                why: e.to_string(),
            });
        }
    }
    let named = allow_destroy.is_some_and(|allowed| {
        std::fs::metadata(allowed).is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino()))
    });
    if named {
        return Ok(());
    }
    Err(WriteRefusal::BacksLoop {
        file: shown,
        device: first.path.display().to_string(),
    })
}
