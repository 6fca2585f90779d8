//! A path as first looked at, and what writing it destroys: its partitions
//! and loop devices, checked against the mount and swap tables, holders,
//! an exclusive open, and the signatures on each.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use super::mounts::{find_mounted, find_swap};
use super::signatures::{Found, find_signatures};
use super::{WriteRefusal, check_loop_backing, loop_of};
use crate::targets::stack::Member;

/// Devices this process holds open exclusively, so two jobs of one group that
/// name the same device share the claim instead of refusing each other as busy.
static HELD: Mutex<Vec<(u64, Weak<File>)>> = Mutex::new(Vec::new());

fn held_device(rdev: u64) -> Option<Arc<File>> {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.retain(|(_, w)| w.strong_count() > 0);
    held.iter()
        .find(|(r, _)| *r == rdev)
        .and_then(|(_, w)| w.upgrade())
}

fn remember_held(rdev: u64, file: &Arc<File>) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.push((rdev, Arc::downgrade(file)));
}

/// A path kura is asked to write, as first looked at, and what writing it destroys.
pub(super) struct Candidate {
    /// The path as the user gave it, for messages.
    pub(super) shown: String,
    pub(super) canonical: PathBuf,
    first_look: std::fs::Metadata,
    pub(super) is_block: bool,
    /// The device, then every partition on it and every loop device over
    /// the same file: writing to the disk destroys them all.
    members: Vec<Member>,
}

impl Candidate {
    pub(super) fn look(dev: &Path, allow_destroy: Option<&Path>) -> Result<Candidate, WriteRefusal> {
        let shown = dev.display().to_string();
        let unchecked = |source: io::Error| WriteRefusal::Unchecked {
            device: shown.clone(),
            source,
        };
        let canonical = dev.canonicalize().map_err(unchecked)?;
        let first_look = std::fs::metadata(&canonical).map_err(unchecked)?;
        let is_block = first_look.file_type().is_block_device();
        // An image behind an attached loop device is that device's data: judged
        // by the device first, since no --allow-destroy overrides a mounted one.
        if first_look.file_type().is_file() {
            check_loop_backing(dev, &first_look, allow_destroy)?;
        }
        let members = if is_block {
            crate::targets::stack::members(first_look.rdev(), &canonical)
        } else {
            vec![Member {
                path: canonical.clone(),
                ..Member::default()
            }]
        };
        Ok(Candidate {
            shown,
            canonical,
            first_look,
            is_block,
            members,
        })
    }

    pub(super) fn unchecked(&self, source: io::Error) -> WriteRefusal {
        WriteRefusal::Unchecked {
            device: self.shown.clone(),
            source,
        }
    }

    fn via(&self, member: &Member) -> String {
        via(member, &self.canonical)
    }

    /// Refuses a member the kernel's tables show mounted or used as swap.
    pub(super) fn refuse_in_use(&self) -> Result<(), WriteRefusal> {
        let tables = crate::targets::stack::mount_tables().map_err(|e| self.unchecked(e))?;
        for mountinfo in &tables {
            if let Some((member, mount_point)) = find_mounted(&self.members, mountinfo) {
                return Err(WriteRefusal::Mounted {
                    device: self.shown.clone(),
                    mount_point,
                    via: self.via(member),
                });
            }
        }
        // /proc/swaps is missing on kernels without swap support: nothing can be swap then.
        if let Ok(swaps) = std::fs::read_to_string("/proc/swaps")
            && let Some(member) = find_swap(&self.members, &swaps)
        {
            return Err(WriteRefusal::Swap {
                device: self.shown.clone(),
                via: self.via(member),
            });
        }
        Ok(())
    }

    /// The block device, opened exclusively (or this run's claim on it
    /// already), once no member is held by a stack or busy.
    pub(super) fn claim_device(&self) -> Result<Arc<File>, WriteRefusal> {
        let holders = holders(&self.members);
        if !holders.is_empty() {
            return Err(WriteRefusal::Held {
                device: self.shown.clone(),
                holders: holders.join(", "),
            });
        }
        // Already claimed by this run: the partitions cannot be claimed by anyone else meanwhile.
        if let Some(file) = held_device(self.first_look.rdev()) {
            return Ok(file);
        }
        let busy = |member: &Member| WriteRefusal::Busy {
            device: self.shown.clone(),
            via: self.via(member),
        };
        // The kernel's own answer covers users that leave no trace in the tables above,
        // such as mounts in another mount namespace. Partitions first: once kura
        // claims the whole disk, its own claim would make them look busy.
        for member in &self.members[1..] {
            // A device of the stack that this run already holds is one the user named;
            // a disk a partition is cut from looks busy whenever a sibling is claimed.
            if member.container
                || member
                    .devnum
                    .is_some_and(|(ma, mi)| held_device(libc::makedev(ma, mi)).is_some())
            {
                continue;
            }
            match open_exclusive(&member.path) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Err(busy(member)),
                // A partition with no node under /dev cannot be checked this way; the tables above still cover it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.unchecked(e)),
            }
        }
        let file = match open_exclusive(&self.canonical) {
            Ok(f) => Arc::new(f),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Err(busy(&self.members[0])),
            Err(e) => return Err(self.unchecked(e)),
        };
        remember_held(self.first_look.rdev(), &file);
        Ok(file)
    }

    /// The opened file's metadata, when it is still what was looked at.
    pub(super) fn same_as_looked_at(&self, file: &File) -> Result<std::fs::Metadata, WriteRefusal> {
        let meta = file.metadata().map_err(|e| self.unchecked(e))?;
        let same = if self.is_block {
            meta.file_type().is_block_device() && meta.rdev() == self.first_look.rdev()
        } else {
            meta.dev() == self.first_look.dev() && meta.ino() == self.first_look.ino()
        };
        if !same {
            return Err(self.unchecked(io::Error::other("the path changed while it was being checked")));
        }
        Ok(meta)
    }

    /// The signatures on the device, else on a partition the kernel still
    /// knows, else in a loop device's backing file; and where they were, when not on the device.
    pub(super) fn signatures(
        &self,
        file: &File,
        meta: &std::fs::Metadata,
    ) -> Result<(Vec<Found>, String), WriteRefusal> {
        let found = find_signatures(file).map_err(|e| self.unchecked(e))?;
        if !found.is_empty() {
            return Ok((found, String::new()));
        }
        // A partition the kernel still knows keeps its data even when the disk's table is gone.
        // Only what lies within the device: the disk a partition is cut from keeps
        // its table and other partitions outside it.
        for member in self.members[1..].iter().filter(|m| m.inside) {
            let part = match File::open(&member.path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(self.unchecked(e)),
            };
            let found = find_signatures(&part).map_err(|e| self.unchecked(e))?;
            if !found.is_empty() {
                return Ok((found, self.via(member)));
            }
        }
        if self.is_block
            && let Some(lo) = loop_of(meta.rdev())
        {
            // A loop device with an offset or a size limit shows part of its file: what
            // lies outside (a partition table before the offset) is data all the same.
            let backing = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK)
                .open(&lo.backing_name)
                .ok()
                .filter(|f| f.metadata().is_ok_and(|m| (m.dev(), m.ino()) == lo.backing));
            if let Some(backing) = backing {
                let found = find_signatures(&backing).map_err(|e| self.unchecked(e))?;
                return Ok((found, format!(" (in its backing file {})", lo.backing_name)));
            }
        }
        Ok((Vec::new(), String::new()))
    }
}

fn open_exclusive(path: &Path) -> io::Result<File> {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_EXCL | libc::O_CLOEXEC)
            .open(path)
    };
    // A claim can outlive its close for a moment: a child forked by another thread holds
    // the descriptor until it runs exec. A mount or a stack holds it for good.
    for _ in 0..10 {
        match open() {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            other => return other,
        }
    }
    open()
}

fn via(member: &Member, device: &Path) -> String {
    if let Some(note) = &member.note {
        format!(" ({note})")
    } else if member.path == device {
        String::new()
    } else {
        format!(" (its partition {})", member.path.display())
    }
}

pub(super) fn same_device(allowed: &Path, canonical: &Path, meta: &std::fs::Metadata) -> bool {
    let Ok(allowed_canonical) = allowed.canonicalize() else {
        return false;
    };
    if allowed_canonical == canonical {
        return true;
    }
    // Two device nodes for one device (mknod copies, container /dev) are the same device.
    let Ok(allowed_meta) = std::fs::metadata(&allowed_canonical) else {
        return false;
    };
    meta.file_type().is_block_device()
        && allowed_meta.file_type().is_block_device()
        && allowed_meta.rdev() == meta.rdev()
}

fn holders(members: &[Member]) -> Vec<String> {
    let mut out = Vec::new();
    for member in members {
        let Some((major, minor)) = member.devnum else {
            continue;
        };
        let dir = format!("/sys/dev/block/{major}:{minor}/holders");
        if let Ok(entries) = std::fs::read_dir(dir) {
            out.extend(
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned()),
            );
        }
    }
    out.sort();
    out.dedup();
    out
}
