//! What this run already found holding nothing and began to write.

use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::Mutex;

use crate::targets::stack::devnum;

/// Files and devices this run found holding nothing and began to write:
/// their later jobs find kura's own random data there, which is no reason
/// to stop the run half way. Devices by number, files by device and inode.
/// A file is remembered with a descriptor held open, so that its inode
/// cannot be freed and taken by another file; a device with its disk
/// sequence number, which the kernel changes each time a loop device is
/// attached again under the same number.
static DECIDED: Mutex<Vec<(DecisionKey, Option<File>)>> = Mutex::new(Vec::new());

/// (device, inode, 0) for a file; (`u64::MAX`, device number, disk sequence) for a device.
type DecisionKey = (u64, u64, u64);

fn decision_key(meta: &std::fs::Metadata) -> DecisionKey {
    match meta.file_type().is_block_device() {
        true => (u64::MAX, meta.rdev(), disk_sequence(meta.rdev())),
        false => (meta.dev(), meta.ino(), 0),
    }
}

/// `/sys/dev/block/M:N/diskseq` (Linux 5.15 and later); 0 where there is none.
fn disk_sequence(rdev: u64) -> u64 {
    let (major, minor) = devnum(rdev);
    std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/diskseq"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

pub(in crate::targets) fn decided_writable(meta: &std::fs::Metadata) -> bool {
    let key = decision_key(meta);
    let decided = DECIDED.lock().unwrap_or_else(|e| e.into_inner());
    decided.iter().any(|(k, _)| *k == key)
}

pub(super) fn remember_writable(file: &File, meta: &std::fs::Metadata) {
    let key = decision_key(meta);
    let held = match meta.file_type().is_block_device() {
        true => None,
        false => file.try_clone().ok(),
    };
    let mut decided = DECIDED.lock().unwrap_or_else(|e| e.into_inner());
    if !decided.iter().any(|(k, _)| *k == key) {
        decided.push((key, held));
    }
}
