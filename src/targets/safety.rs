//! The check that runs before kura writes to a block device. There is no
//! udev on many test machines, so nothing here trusts lsblk, blkid caches or
//! sysfs holders alone: the kernel's own mount and swap tables, an exclusive
//! open, and the signatures on the device itself decide.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, Weak};

use thiserror::Error;

pub(super) use super::stack::parse_devnum;
pub(crate) use super::stack::{LoopDevice, loop_devices, loop_of};
use super::stack::{Member, devnum};

#[derive(Debug, Error)]
pub enum WriteRefusal {
    #[error(
        "{device} is mounted on {mount_point}{via}; kura never writes to a mounted device, \
         not even with --allow-destroy: unmount it first"
    )]
    Mounted {
        device: String,
        mount_point: String,
        via: String,
    },
    #[error(
        "{device} is in use as swap{via}; kura never writes to active swap, \
         not even with --allow-destroy: run `swapoff` on it first"
    )]
    Swap { device: String, via: String },
    #[error(
        "{device} is held by {holders} (part of a device-mapper, RAID or LVM stack); \
         kura never writes to it, not even with --allow-destroy: take it out of the stack first"
    )]
    Held { device: String, holders: String },
    #[error(
        "{device} is busy{via}: the kernel refused an exclusive open (it is mounted, part of a stack, \
         or opened exclusively by another program); kura never writes to it, not even with \
         --allow-destroy: release it first"
    )]
    Busy { device: String, via: String },
    #[error(
        "{device} carries {what}; kura will not write to it unless you pass \
         --allow-destroy {device} (everything on it will be lost){named}"
    )]
    Signature {
        device: String,
        what: String,
        named: String,
    },
    #[error(
        "{device} holds data kura did not write (a byte that is not zero at offset {offset}; kura read \
         {sampled}) and no signature says what it is; kura will not write to it unless you pass \
         --allow-destroy {device} (everything on it will be lost){named}"
    )]
    HoldsData {
        device: String,
        offset: u64,
        sampled: String,
        named: String,
    },
    #[error("{file} backs the loop device {device}, which kura may not write: {why}")]
    BacksLoopInUse {
        file: String,
        device: String,
        why: String,
    },
    #[error(
        "{file} backs the loop device {device}; kura writes to it only when --allow-destroy names {file} \
         (whatever uses {device} loses its data)"
    )]
    BacksLoop { file: String, device: String },
    #[error(
        "cannot check {device} before writing to it: {source}; kura will not write to a device or file it cannot check"
    )]
    Unchecked {
        device: String,
        #[source]
        source: io::Error,
    },
}

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

pub(super) fn decided_writable(meta: &std::fs::Metadata) -> bool {
    let key = decision_key(meta);
    let decided = DECIDED.lock().unwrap_or_else(|e| e.into_inner());
    decided.iter().any(|(k, _)| *k == key)
}

fn remember_writable(file: &File, meta: &std::fs::Metadata) {
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

/// How much of a device or file is read to tell whether it holds data: its
/// first and last MiB (where labels, tables and superblocks live) and
/// `SAMPLED_BLOCKS` blocks of 4 KiB spread evenly between.
const EDGE_BYTES: u64 = 1 << 20;
const SAMPLED_BLOCKS: u64 = 256;
const SAMPLE_BLOCK: u64 = 4096;

/// The places [`first_data`] reads, for messages.
pub(super) fn sampled_places() -> String {
    format!("its first and last MiB and {SAMPLED_BLOCKS} blocks of 4 KiB spread between")
}

/// The offset of the first byte that is not zero at the places sampled, or
/// `None` when all read as zeros (a new sparse file, a fresh or discarded
/// device). A regular file with no data extent at all (`SEEK_DATA`) holds
/// nothing without a read.
pub(super) fn first_data(file: &File, len: u64) -> io::Result<Option<u64>> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(None);
    }
    if file.metadata()?.is_file() {
        // SAFETY: lseek only reads its integer arguments; the descriptor is open for the call.
        let at = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_DATA) };
        if at < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
            return Ok(None);
        }
    }
    let mut places: Vec<(u64, u64)> = vec![(0, EDGE_BYTES.min(len)), (len.saturating_sub(EDGE_BYTES), len)];
    let step = (len / SAMPLED_BLOCKS).max(SAMPLE_BLOCK);
    let mut at = 0;
    while at < len && places.len() < SAMPLED_BLOCKS as usize + 2 {
        places.push((at, (at + SAMPLE_BLOCK).min(len)));
        at += step;
    }
    let mut buf = vec![0u8; EDGE_BYTES as usize];
    for (start, end) in places {
        let want = &mut buf[..(end - start) as usize];
        let mut filled = 0;
        while filled < want.len() {
            match file.read_at(&mut want[filled..], start + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if let Some(i) = want[..filled].iter().position(|&b| b != 0) {
            return Ok(Some(start + i as u64));
        }
    }
    Ok(None)
}

/// The length of what `file` holds: a file's size, a device's capacity.
fn length_of(file: &File, meta: &std::fs::Metadata) -> io::Result<u64> {
    match meta.file_type().is_block_device() {
        true => super::file::device_size(file),
        false => Ok(meta.len()),
    }
}

/// Refuses a device or file that holds data kura did not write, though no
/// signature names it (an encrypted container, a backup, a raw database):
/// only one that reads as zeros where sampled is taken as holding nothing.
/// What passes is remembered for the rest of the run.
pub(super) fn refuse_data(
    shown: &str,
    file: &File,
    meta: &std::fs::Metadata,
    allow_destroy: Option<&Path>,
    what: &str,
) -> Result<(), WriteRefusal> {
    let unchecked = |source: io::Error| WriteRefusal::Unchecked {
        device: shown.to_string(),
        source,
    };
    // The ranks of one run are processes of their own: one rank's writes are data to
    // another rank still checking (docs/safety.md, "What is out of reach").
    if crate::cluster::launched_as_rank().is_some() {
        return Ok(());
    }
    // A test file an earlier run made and kept (`--keep`): kura's mark is on it.
    if meta.is_file() && super::owner::read(file).is_ok_and(|mark| mark.is_some()) {
        return Ok(());
    }
    let len = length_of(file, meta).map_err(unchecked)?;
    if let Some(offset) = first_data(file, len).map_err(unchecked)? {
        let named = match allow_destroy {
            Some(other) => format!("; --allow-destroy names {}, a different {what}", other.display()),
            None => String::new(),
        };
        return Err(WriteRefusal::HoldsData {
            device: shown.to_string(),
            offset,
            sampled: sampled_places(),
            named,
        });
    }
    remember_writable(file, meta);
    Ok(())
}

/// A path kura is asked to write, as first looked at, and what writing it destroys.
struct Candidate {
    /// The path as the user gave it, for messages.
    shown: String,
    canonical: PathBuf,
    first_look: std::fs::Metadata,
    is_block: bool,
    /// The device, then every partition on it and every loop device over
    /// the same file: writing to the disk destroys them all.
    members: Vec<Member>,
}

impl Candidate {
    fn look(dev: &Path, allow_destroy: Option<&Path>) -> Result<Candidate, WriteRefusal> {
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
            super::stack::members(first_look.rdev(), &canonical)
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

    fn unchecked(&self, source: io::Error) -> WriteRefusal {
        WriteRefusal::Unchecked {
            device: self.shown.clone(),
            source,
        }
    }

    fn via(&self, member: &Member) -> String {
        via(member, &self.canonical)
    }

    /// Refuses a member the kernel's tables show mounted or used as swap.
    fn refuse_in_use(&self) -> Result<(), WriteRefusal> {
        let tables = super::stack::mount_tables().map_err(|e| self.unchecked(e))?;
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
    fn claim_device(&self) -> Result<Arc<File>, WriteRefusal> {
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
    fn same_as_looked_at(&self, file: &File) -> Result<std::fs::Metadata, WriteRefusal> {
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
    fn signatures(
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

fn same_device(allowed: &Path, canonical: &Path, meta: &std::fs::Metadata) -> bool {
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

/// Undoes the octal escapes (`\040` for a space) the kernel writes in mountinfo and swaps.
pub(super) fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4].iter().all(|b| (b'0'..=b'7').contains(b))
        {
            let value = bytes[i + 1..i + 4]
                .iter()
                .fold(0u32, |acc, b| acc * 8 + (b - b'0') as u32);
            out.push(value as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One line of /proc/self/mountinfo, the fields kura needs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Mount {
    pub devnum: Option<(u32, u32)>,
    pub mount_point: String,
    pub fstype: String,
    pub source: String,
}

pub(super) fn parse_mountinfo(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let mut right = right.split(' ');
        let (Some(fstype), Some(source)) = (right.next(), right.next()) else {
            continue;
        };
        if left.len() < 5 {
            continue;
        }
        out.push(Mount {
            devnum: parse_devnum(left[2]),
            mount_point: unescape(left[4]),
            fstype: unescape(fstype),
            source: unescape(source),
        });
    }
    out
}

/// Whether a mount or swap source path names `member`, by path or by device number.
fn names_member(source: &str, member: &Member) -> bool {
    if !source.starts_with('/') {
        return false;
    }
    let Ok(canonical) = Path::new(source).canonicalize() else {
        return false;
    };
    if canonical == member.path {
        return true;
    }
    match (member.devnum, std::fs::metadata(&canonical)) {
        (Some(devnum_), Ok(meta)) => meta.file_type().is_block_device() && devnum(meta.rdev()) == devnum_,
        _ => false,
    }
}

fn find_mounted<'m>(members: &'m [Member], mountinfo: &str) -> Option<(&'m Member, String)> {
    let mounts = parse_mountinfo(mountinfo);
    for member in members {
        for mount in &mounts {
            // btrfs reports a synthetic 0:NN device number, so the source path is checked as well.
            let by_number = member.devnum.is_some() && mount.devnum == member.devnum;
            if by_number || names_member(&mount.source, member) {
                return Some((member, mount.mount_point.clone()));
            }
        }
    }
    None
}

fn find_swap<'m>(members: &'m [Member], swaps: &str) -> Option<&'m Member> {
    // The first line is a header; the file name is the first column.
    let names: Vec<String> = swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape)
        .collect();
    members
        .iter()
        .find(|m| names.iter().any(|name| names_member(name, m)))
}

/// A signature found on a device or file: what was there before kura.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signature {
    Ext2,
    Ext3,
    Ext4,
    Xfs,
    Btrfs,
    Swap,
    Lvm,
    Luks,
    MdRaid,
    Gpt,
    Mbr,
}

impl Signature {
    /// The thing the signature belongs to, with its article: "an ext4 file system".
    pub fn describe(self) -> String {
        match self {
            Signature::Ext2 => "an ext2 file system",
            Signature::Ext3 => "an ext3 file system",
            Signature::Ext4 => "an ext4 file system",
            Signature::Xfs => "an xfs file system",
            Signature::Btrfs => "a btrfs file system",
            Signature::Swap => "a swap area",
            Signature::Lvm => "an LVM physical volume",
            Signature::Luks => "a LUKS encrypted volume",
            Signature::MdRaid => "an md RAID member",
            Signature::Gpt => "a GPT partition table",
            Signature::Mbr => "an MBR partition table or boot sector",
        }
        .to_string()
    }
}

/// One signature found by a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// kura's own probe of the first bytes.
    Hand(Signature),
    /// util-linux's libblkid, through `wipefs`: the type it names and the byte offset of its magic.
    Wipefs { kind: String, offset: String },
}

pub(super) fn describe_all(found: &[Found]) -> String {
    let hand: Vec<String> = found
        .iter()
        .filter_map(|f| match f {
            Found::Hand(s) => Some(format!("{} signature", s.describe())),
            Found::Wipefs { .. } => None,
        })
        .collect();
    let tool: Vec<String> = found
        .iter()
        .filter_map(|f| match f {
            Found::Wipefs { kind, offset } => Some(format!("{kind} at offset {offset}")),
            Found::Hand(_) => None,
        })
        .collect();
    match (hand.is_empty(), tool.is_empty()) {
        (false, true) => hand.join(", "),
        (true, false) => format!("a signature wipefs reports as {}", tool.join(", ")),
        _ => format!("{} (wipefs: {})", hand.join(", "), tool.join(", ")),
    }
}

/// Every signature on the device or file behind `file`: kura's own probe of
/// the first 68 KiB and libblkid's full probe through `wipefs`, which also
/// reads the end of the device (md 0.90/1.0, ZFS labels) and knows every file
/// system util-linux knows. Either finding something is enough to refuse; a
/// probe that cannot run is an error, because "nothing found" would be a guess.
pub(super) fn find_signatures(file: &File) -> io::Result<Vec<Found>> {
    let mut found: Vec<Found> = detect_in(file)?.map(Found::Hand).into_iter().collect();
    found.extend(wipefs(file, &WIPEFS)?);
    Ok(found)
}

/// Where util-linux keeps wipefs when `/usr/sbin` is not on the PATH (a non-root shell).
const WIPEFS: [&str; 3] = ["wipefs", "/usr/sbin/wipefs", "/sbin/wipefs"];

fn wipefs(file: &File, tools: &[&str]) -> io::Result<Vec<Found>> {
    // An empty file has no bytes to carry a signature, and libblkid refuses to probe it.
    if file.metadata()?.len() == 0 && file.metadata()?.is_file() {
        return Ok(Vec::new());
    }
    let mut last = None;
    for &tool in tools {
        // The probe reads the descriptor kura checked, handed over as stdin, not the path again.
        let out = Command::new(tool)
            .args(["--no-act", "--json", "/proc/self/fd/0"])
            .env("LC_ALL", "C")
            .stdin(Stdio::from(file.try_clone()?))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output();
        match out {
            Ok(out) if out.status.success() => return parse_wipefs(&out.stdout),
            Ok(out) => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let first = stderr.lines().next().unwrap_or("").trim();
                return Err(io::Error::other(format!(
                    "{tool} --no-act failed ({}{}{first}), so its signatures could not be read; \
                     pass --allow-destroy naming it if everything on it may be lost",
                    out.status,
                    if first.is_empty() { "" } else { ": " }
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => last = Some(e),
            Err(e) => return Err(io::Error::other(format!("cannot run {tool}: {e}"))),
        }
    }
    Err(io::Error::other(format!(
        "wipefs (util-linux) is needed to look for signatures and was not found ({}); install util-linux, \
         or pass --allow-destroy naming it if everything on it may be lost",
        last.map(|e| e.to_string()).unwrap_or_default()
    )))
}

fn parse_wipefs(stdout: &[u8]) -> io::Result<Vec<Found>> {
    // Older util-linux prints nothing at all when there is nothing to report.
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    // util-linux writes a label's bytes as they are on the device, which may
    // be no UTF-8 at all (a label in a legacy code page, or the bytes of a
    // signature that random data happened to carry): read them lossily, as
    // only the signature's type and offset are used.
    let text = String::from_utf8_lossy(stdout);
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| io::Error::other(format!("wipefs printed something other than JSON: {e}")))?;
    let Some(list) = value.get("signatures").and_then(|s| s.as_array()) else {
        return Err(io::Error::other("wipefs's JSON has no \"signatures\" list"));
    };
    Ok(list
        .iter()
        .map(|s| Found::Wipefs {
            kind: s
                .get("type")
                .and_then(|t| t.as_str())
                .unwrap_or("unknown")
                .to_string(),
            offset: s
                .get("offset")
                .and_then(|t| t.as_str())
                .unwrap_or("?")
                .to_string(),
        })
        .collect())
}

/// Far enough to reach the btrfs superblock (0x10040) and swap headers up to 64 KiB pages.
const PROBE_BYTES: usize = 0x10000 + 0x1000;

/// Looks for file-system, volume and partition-table signatures in the first
/// bytes of `path`, which may be any readable file or device.
#[cfg(test)]
fn detect_signature(path: &Path) -> io::Result<Option<Signature>> {
    detect_in(&File::open(path)?)
}

fn detect_in(file: &File) -> io::Result<Option<Signature>> {
    let mut buf = vec![0u8; PROBE_BYTES];
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(signature_in(&buf))
}

fn at(buf: &[u8], offset: usize, magic: &[u8]) -> bool {
    buf.get(offset..offset + magic.len()) == Some(magic)
}

fn le32(buf: &[u8], offset: usize) -> u32 {
    buf.get(offset..offset + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant and has no memory effects.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096)
}

/// File systems before partition tables: a FAT or NTFS volume also ends its
/// first sector with 55 AA, and a GPT disk carries a protective MBR.
fn signature_in(buf: &[u8]) -> Option<Signature> {
    // ext2/3/4 superblock at 1024, magic 0xEF53 little-endian at +0x38.
    if at(buf, 0x438, &[0x53, 0xEF]) {
        return Some(ext_flavour(buf));
    }
    if at(buf, 0, b"XFSB") {
        return Some(Signature::Xfs);
    }
    if at(buf, 0x10040, b"_BHRfS_M") {
        return Some(Signature::Btrfs);
    }
    // The swap header fills the first page; other architectures' page sizes are checked too.
    let mut pages = vec![page_size(), 4096, 8192, 16384, 65536];
    pages.dedup();
    if pages
        .iter()
        .any(|p| *p >= 10 && (at(buf, p - 10, b"SWAPSPACE2") || at(buf, p - 10, b"SWAP-SPACE")))
    {
        return Some(Signature::Swap);
    }
    if (0..4).any(|sector| at(buf, sector * 512, b"LABELONE")) {
        return Some(Signature::Lvm);
    }
    if at(buf, 0, b"LUKS\xba\xbe") {
        return Some(Signature::Luks);
    }
    // md superblock 1.1 at 0 and 1.2 at 4 KiB (0.90 and 1.0 sit at the end and are not probed).
    const MD_MAGIC: u32 = 0xa92b_4efc;
    if le32(buf, 0) == MD_MAGIC || le32(buf, 4096) == MD_MAGIC {
        return Some(Signature::MdRaid);
    }
    // GPT header in LBA 1: at 512 on 512-byte-sector disks, at 4096 on 4K-sector disks.
    if at(buf, 512, b"EFI PART") || at(buf, 4096, b"EFI PART") {
        return Some(Signature::Gpt);
    }
    if at(buf, 0x1FE, &[0x55, 0xAA]) {
        return Some(Signature::Mbr);
    }
    None
}

/// blkid's rule: ext4-only features make ext4, a journal makes ext3.
fn ext_flavour(buf: &[u8]) -> Signature {
    const SB: usize = 1024;
    let compat = le32(buf, SB + 0x5C);
    let incompat = le32(buf, SB + 0x60);
    let ro_compat = le32(buf, SB + 0x64);
    const COMPAT_HAS_JOURNAL: u32 = 0x4;
    // extents, 64bit, mmp, flex_bg, ea_inode, dirdata, csum_seed, large_dir, inline_data, encrypt, casefold
    const INCOMPAT_EXT4: u32 =
        0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000;
    // huge_file, gdt_csum, dir_nlink, extra_isize, quota, bigalloc, metadata_csum
    const RO_COMPAT_EXT4: u32 = 0x8 | 0x10 | 0x20 | 0x40 | 0x100 | 0x200 | 0x400;
    if incompat & INCOMPAT_EXT4 != 0 || ro_compat & RO_COMPAT_EXT4 != 0 {
        Signature::Ext4
    } else if compat & COMPAT_HAS_JOURNAL != 0 {
        Signature::Ext3
    } else {
        Signature::Ext2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(len: usize, writes: &[(usize, &[u8])]) -> tempfile::NamedTempFile {
        let mut data = vec![0u8; len];
        for (offset, bytes) in writes {
            data[*offset..*offset + bytes.len()].copy_from_slice(bytes);
        }
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&data).unwrap();
        file.flush().unwrap();
        file
    }

    fn detect(len: usize, writes: &[(usize, &[u8])]) -> Option<Signature> {
        detect_signature(file_with(len, writes).path()).unwrap()
    }

    const LEN: usize = 128 << 10;

    #[test]
    fn zeros_and_short_files_carry_nothing() {
        assert_eq!(detect(LEN, &[]), None);
        assert_eq!(detect(100, &[]), None);
        assert_eq!(detect(0, &[]), None);
    }

    #[test]
    fn ext_magic_and_flavour() {
        assert_eq!(detect(LEN, &[(0x438, &[0x53, 0xEF])]), Some(Signature::Ext2));
        assert_eq!(
            detect(LEN, &[(0x438, &[0x53, 0xEF]), (0x45C, &[0x04])]),
            Some(Signature::Ext3)
        );
        assert_eq!(
            detect(LEN, &[(0x438, &[0x53, 0xEF]), (0x460, &[0x40])]),
            Some(Signature::Ext4)
        );
        // The magic one byte off is no superblock.
        assert_eq!(detect(LEN, &[(0x439, &[0x53, 0xEF])]), None);
    }

    #[test]
    fn other_file_systems_and_volumes() {
        assert_eq!(detect(LEN, &[(0, b"XFSB")]), Some(Signature::Xfs));
        assert_eq!(detect(LEN, &[(0x10040, b"_BHRfS_M")]), Some(Signature::Btrfs));
        assert_eq!(
            detect(LEN, &[(page_size() - 10, b"SWAPSPACE2")]),
            Some(Signature::Swap)
        );
        assert_eq!(detect(LEN, &[(65536 - 10, b"SWAPSPACE2")]), Some(Signature::Swap));
        for sector in 0..4 {
            assert_eq!(detect(LEN, &[(sector * 512, b"LABELONE")]), Some(Signature::Lvm));
        }
        assert_eq!(detect(LEN, &[(4 * 512, b"LABELONE")]), None);
        assert_eq!(detect(LEN, &[(0, b"LUKS\xba\xbe")]), Some(Signature::Luks));
        assert_eq!(
            detect(LEN, &[(4096, &0xa92b_4efcu32.to_le_bytes())]),
            Some(Signature::MdRaid)
        );
    }

    #[test]
    fn partition_tables() {
        assert_eq!(detect(LEN, &[(0x1FE, &[0x55, 0xAA])]), Some(Signature::Mbr));
        assert_eq!(
            detect(LEN, &[(0x1FE, &[0x55, 0xAA]), (512, b"EFI PART")]),
            Some(Signature::Gpt)
        );
        assert_eq!(detect(LEN, &[(4096, b"EFI PART")]), Some(Signature::Gpt));
        assert_eq!(detect(LEN, &[(0x1FE, &[0xAA, 0x55])]), None);
    }

    #[test]
    fn a_file_system_wins_over_its_boot_sector() {
        assert_eq!(
            detect(LEN, &[(0x1FE, &[0x55, 0xAA]), (0, b"XFSB")]),
            Some(Signature::Xfs)
        );
    }

    #[test]
    fn wipefs_json_is_read_and_garbage_is_an_error() {
        let json = br#"{"signatures": [{"device": "stdin", "offset": "0x3ffe000",
            "type": "linux_raid_member", "uuid": null, "label": null}]}"#;
        assert_eq!(
            parse_wipefs(json).unwrap(),
            vec![Found::Wipefs {
                kind: "linux_raid_member".into(),
                offset: "0x3ffe000".into()
            }]
        );
        assert!(
            parse_wipefs(b"{\n \"signatures\": [\n\n ]\n}\n")
                .unwrap()
                .is_empty()
        );
        assert!(parse_wipefs(b"\n").unwrap().is_empty());
        // A label of bytes that are no UTF-8, as wipefs prints them.
        let latin1 = b"{\"signatures\": [{\"device\":\"x\", \"offset\":\"0x3\", \"type\":\"vfat\", \"label\":\"caf\xe9\xff\"}]}";
        let found = parse_wipefs(latin1).unwrap();
        assert!(matches!(&found[..], [Found::Wipefs { kind, offset }] if kind == "vfat" && offset == "0x3"));
        assert!(parse_wipefs(b"DEVICE OFFSET TYPE").is_err());
        assert!(parse_wipefs(b"{}").is_err());
        let both = describe_all(&[
            Found::Hand(Signature::Mbr),
            Found::Wipefs {
                kind: "dos".into(),
                offset: "0x1fe".into(),
            },
        ]);
        assert!(
            both.contains("MBR") && both.contains("dos at offset 0x1fe"),
            "{both}"
        );
    }

    #[test]
    fn a_missing_or_failing_wipefs_is_an_error_not_a_clean_bill() {
        let file = file_with(LEN, &[]);
        let err = wipefs(file.as_file(), &["/nonexistent/wipefs"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("was not found") && err.contains("util-linux"),
            "{err}"
        );
        let err = wipefs(file.as_file(), &["false"]).unwrap_err().to_string();
        assert!(err.contains("false --no-act failed"), "{err}");
    }

    #[test]
    fn the_probe_finds_what_only_libblkid_knows() {
        // f2fs's magic at 0x400 is not in kura's own list; wipefs must report it.
        let file = file_with(LEN, &[(0x400, &0xF2F5_2010u32.to_le_bytes())]);
        assert_eq!(detect_signature(file.path()).unwrap(), None);
        let found = find_signatures(file.as_file()).unwrap();
        assert_eq!(
            found,
            vec![Found::Wipefs {
                kind: "f2fs".into(),
                offset: "0x400".into()
            }]
        );
    }

    #[test]
    fn unreadable_paths_are_errors() {
        assert!(detect_signature(Path::new("/nonexistent/kura")).is_err());
    }

    #[test]
    fn mountinfo_fields_and_escapes() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n\
                    90 27 0:55 / /mnt/my\\040disk rw - btrfs /dev/loop5 rw,space_cache\n\
                    garbage line\n";
        let mounts = parse_mountinfo(text);
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].devnum, Some((254, 0)));
        assert_eq!(mounts[0].fstype, "ext4");
        assert_eq!(mounts[1].mount_point, "/mnt/my disk");
        assert_eq!(mounts[1].source, "/dev/loop5");
        assert_eq!(unescape("a\\134b"), "a\\b");
        assert_eq!(unescape("tail\\04"), "tail\\04");
    }

    #[test]
    fn mounted_by_number_or_by_source() {
        let member = Member {
            path: PathBuf::from("/dev/null"),
            devnum: Some((250, 7)),
            ..Member::default()
        };
        let by_number = "30 1 250:7 / /mnt/a rw - ext4 /dev/whatever rw\n";
        let by_source = "30 1 0:99 / /mnt/b rw - btrfs /dev/null rw\n";
        let unrelated = "30 1 0:99 / /mnt/c rw - tmpfs tmpfs rw\n";
        let members = [member];
        assert_eq!(find_mounted(&members, by_number).unwrap().1, "/mnt/a");
        assert_eq!(find_mounted(&members, by_source).unwrap().1, "/mnt/b");
        assert!(find_mounted(&members, unrelated).is_none());
    }

    #[test]
    fn swap_by_path() {
        let file = file_with(16, &[]);
        let path = file.path().canonicalize().unwrap();
        let swaps = format!(
            "Filename Type Size Used Priority\n{} file 1024 0 -2\n",
            path.display()
        );
        let members = [Member {
            path: path.clone(),
            ..Member::default()
        }];
        assert!(find_swap(&members, &swaps).is_some());
        assert!(find_swap(&members, "Filename Type Size Used Priority\n").is_none());
    }

    #[test]
    fn signatures_on_plain_files_are_refused_unless_named() {
        let file = file_with(LEN, &[(0x438, &[0x53, 0xEF]), (0x460, &[0x40])]);
        let err = check_device_writable(file.path(), None).unwrap_err().to_string();
        assert!(err.contains("ext4") && err.contains("--allow-destroy"), "{err}");
        check_device_writable(file.path(), Some(file.path())).unwrap();
        let other = file_with(16, &[]);
        let err = check_device_writable(file.path(), Some(other.path()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("different device"), "{err}");
        let clean = file_with(LEN, &[]);
        check_device_writable(clean.path(), None).unwrap();
    }
}
