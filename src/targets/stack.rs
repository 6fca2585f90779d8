//! What writing one block device reaches: the whole stack around it. Loop
//! devices to any depth (a loop over a loop over a disk), partitions and
//! the disk they are cut from, other loop devices over the same file, and
//! loop devices stacked on top of the device at any offset. There is no
//! udev on many test machines and the loop driver records no holders, so
//! the stack is read from sysfs and from the loop driver itself.

use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// One block device whose bytes writing the target may change, or whose
/// bytes contain the target's.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Member {
    pub path: PathBuf,
    /// `(major, minor)`; `None` when the path is not a block device.
    pub devnum: Option<(u32, u32)>,
    /// How it relates to the device named, when not as its own partition.
    pub note: Option<String>,
    /// The disk a partition in the stack is cut from: its other partitions
    /// are not written, and a claim on one of them makes the disk refuse
    /// an exclusive open, so it is checked by the tables only.
    pub container: bool,
    /// Its bytes lie within the device named (its partitions, loops over the
    /// same file, loops stacked on it): a signature on it is the device's data.
    /// The disk a partition is cut from and the device under a loop hold
    /// bytes of others too, and what is reached through them.
    pub inside: bool,
}

pub(crate) fn devnum(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

pub(crate) fn sysfs_dir(rdev: u64) -> Option<PathBuf> {
    let (major, minor) = devnum(rdev);
    std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()
}

pub(crate) fn parse_devnum(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

fn node_of(sys: &Path) -> Option<(PathBuf, u64)> {
    let (major, minor) = parse_devnum(std::fs::read_to_string(sys.join("dev")).ok()?.trim())?;
    Some((
        Path::new("/dev").join(sys.file_name()?),
        libc::makedev(major, minor),
    ))
}

/// The partitions of disk `rdev`: the children of its sysfs directory that
/// have a `partition` file.
pub(crate) fn partitions(rdev: u64) -> Vec<(PathBuf, u64)> {
    let Some(dir) = sysfs_dir(rdev) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, u64)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|child| child.join("partition").exists())
        .filter_map(|child| node_of(&child))
        .collect();
    out.sort();
    out
}

/// The disk partition `rdev` is cut from, when it is a partition.
fn disk_of(rdev: u64) -> Option<(PathBuf, u64)> {
    let sys = sysfs_dir(rdev)?;
    if !sys.join("partition").exists() {
        return None;
    }
    node_of(sys.parent()?)
}

/// `LOOP_GET_STATUS64` and its answer, `struct loop_info64` of
/// `linux/loop.h` (the libc crate has neither).
const LOOP_GET_STATUS64: u32 = 0x4C05;

#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

/// An attached loop device and the file behind it.
#[derive(Debug, Clone)]
pub(crate) struct LoopDevice {
    pub path: PathBuf,
    pub rdev: u64,
    /// Device and inode of the backing file (for a device node, of the node).
    pub backing: (u64, u64),
    /// The device number of the backing file when it is a block device: a
    /// loop over a loop, or over a disk or partition.
    pub backing_rdev: Option<u64>,
    /// The backing file's name as the kernel keeps it (it may have been renamed since).
    pub backing_name: String,
}

/// The kernel reports device numbers in its "huge" encoding (new_encode_dev).
fn huge_decode(d: u64) -> u64 {
    let major = ((d & 0xfff00) >> 8) as u32;
    let minor = ((d & 0xff) | ((d >> 12) & 0xfff00)) as u32;
    libc::makedev(major, minor)
}

/// The backing file's identity from the driver itself, exact even when the
/// file was renamed or the name now leads elsewhere: its (device, inode),
/// and its device number when it is a block device.
fn loop_status(file: &File) -> io::Result<((u64, u64), Option<u64>)> {
    use std::os::fd::AsRawFd;
    // SAFETY: LoopInfo64 is plain integers and arrays, for which all zeroes is a valid value.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: the descriptor is open for the call, and `info` is a live, writable
    // `struct loop_info64`, the size LOOP_GET_STATUS64 writes.
    let rc = unsafe {
        libc::ioctl(
            file.as_raw_fd(),
            LOOP_GET_STATUS64 as _,
            &mut info as *mut LoopInfo64,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // A regular file's st_rdev is 0; a device node's is the device it stands for.
    let rdev = (info.lo_rdevice != 0).then(|| huge_decode(info.lo_rdevice));
    Ok(((huge_decode(info.lo_device), info.lo_inode), rdev))
}

/// The loop device of sysfs name `name`, when it is attached.
fn loop_device(name: &std::ffi::OsStr) -> Option<LoopDevice> {
    let sys = Path::new("/sys/block").join(name);
    let backing_name = std::fs::read_to_string(sys.join("loop/backing_file")).ok()?;
    let backing_name = backing_name.trim_end_matches('\n').to_string();
    let (path, rdev) = node_of(&sys)?;
    let from_driver = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(&path)
        .ok()
        .filter(|f| {
            f.metadata()
                .is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev)
        })
        .and_then(|f| loop_status(&f).ok());
    // Without a node in /dev, the name sysfs gives (a file removed since matches nothing).
    let (backing, backing_rdev) = match from_driver {
        Some(b) => b,
        None => {
            let m = std::fs::metadata(&backing_name).ok()?;
            let rdev = m.file_type().is_block_device().then(|| m.rdev());
            ((m.dev(), m.ino()), rdev)
        }
    };
    Some(LoopDevice {
        path,
        rdev,
        backing,
        backing_rdev,
        backing_name,
    })
}

/// Every attached loop device.
pub(crate) fn loop_devices() -> Vec<LoopDevice> {
    let Ok(entries) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut out: Vec<LoopDevice> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("loop"))
        .filter_map(|e| loop_device(&e.file_name()))
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The loop device `rdev` is, when it is an attached one.
pub(crate) fn loop_of(rdev: u64) -> Option<LoopDevice> {
    let sys = sysfs_dir(rdev)?;
    loop_device(sys.file_name()?)
}

/// A device found in the walk, waiting to be expanded.
struct Visit {
    rdev: u64,
    path: PathBuf,
    /// What it is to the device named ("a loop device over /dev/loop5"); empty for the device itself.
    relation: String,
    container: bool,
    inside: bool,
}

/// Every block device that shares bytes with block device `rdev` (named
/// `path`), the device itself first: its partitions; the disk it is cut
/// from; when it is a loop device, the device under it (to any depth) and
/// every other loop device over the same file; every loop device stacked
/// on any of them, at any offset; and all of theirs in turn. Offsets are
/// not compared: a loop over the first 8 MiB of a disk is counted as
/// sharing bytes with the whole disk.
pub(crate) fn members(rdev: u64, path: &Path) -> Vec<Member> {
    let loops = loop_devices();
    let mut seen: HashSet<u64> = HashSet::from([rdev]);
    let mut out = Vec::new();
    let mut queue = VecDeque::from([Visit {
        rdev,
        path: path.to_path_buf(),
        relation: String::new(),
        container: false,
        inside: true,
    }]);
    while let Some(visit) = queue.pop_front() {
        for next in neighbours(&visit, &loops) {
            if seen.insert(next.rdev) {
                queue.push_back(next);
            }
        }
        let note = match (visit.relation.is_empty(), visit.rdev == rdev) {
            (_, true) => None,
            // The device's own partitions read as before: "(its partition X)".
            (false, false) if visit.relation == OWN_PARTITION => None,
            _ => Some(format!("through {}, {}", visit.path.display(), visit.relation)),
        };
        out.push(Member {
            path: visit.path,
            devnum: Some(devnum(visit.rdev)),
            note,
            container: visit.container,
            inside: visit.inside,
        });
    }
    out
}

const OWN_PARTITION: &str = "its partition";

/// The devices one step from `visit` in the stack.
fn neighbours(visit: &Visit, loops: &[LoopDevice]) -> Vec<Visit> {
    let shown = visit.path.display().to_string();
    let then = |relation: String| {
        if visit.relation.is_empty() || visit.relation == OWN_PARTITION {
            relation
        } else {
            format!("{relation}, {}", visit.relation)
        }
    };
    let mut out = Vec::new();
    // The other partitions of a disk reached from one of them hold other bytes.
    if !visit.container {
        for (path, rdev) in partitions(visit.rdev) {
            let relation = if visit.relation.is_empty() {
                OWN_PARTITION.to_string()
            } else {
                then(format!("a partition of {shown}"))
            };
            out.push(Visit {
                rdev,
                path,
                relation,
                container: false,
                inside: visit.inside,
            });
        }
    }
    if let Some((path, rdev)) = disk_of(visit.rdev) {
        out.push(Visit {
            rdev,
            path,
            relation: then(format!("the disk {shown} is a partition of")),
            container: true,
            inside: false,
        });
    }
    let me = loops.iter().find(|l| l.rdev == visit.rdev);
    if let Some(me) = me {
        if let Some(lower) = me.backing_rdev {
            out.push(Visit {
                rdev: lower,
                path: PathBuf::from(&me.backing_name),
                relation: then(format!("the device under the loop device {shown}")),
                container: false,
                inside: false,
            });
        }
        for other in loops
            .iter()
            .filter(|o| o.rdev != me.rdev && o.backing == me.backing)
        {
            out.push(Visit {
                rdev: other.rdev,
                path: other.path.clone(),
                relation: then(format!("a loop device over the same file {}", me.backing_name)),
                container: false,
                inside: visit.inside,
            });
        }
    }
    for upper in loops.iter().filter(|l| l.backing_rdev == Some(visit.rdev)) {
        out.push(Visit {
            rdev: upper.rdev,
            path: upper.path.clone(),
            relation: then(format!("a loop device over {shown}")),
            container: false,
            inside: visit.inside,
        });
    }
    out
}

/// Every mount table this machine has: this process's first, then one per
/// other mount namespace (a container's, or a `unshare -m` shell's), read
/// through a process in it. A namespace whose processes cannot be read is
/// still covered for the device itself by the exclusive open.
pub(crate) fn mount_tables() -> io::Result<Vec<String>> {
    let mut tables = vec![std::fs::read_to_string("/proc/self/mountinfo")?];
    let mut namespaces: HashSet<u64> = HashSet::new();
    if let Ok(me) = std::fs::metadata("/proc/self/ns/mnt") {
        namespaces.insert(me.ino());
    }
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Ok(tables);
    };
    for entry in procs.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(ns) = std::fs::metadata(entry.path().join("ns/mnt")) else {
            continue;
        };
        if namespaces.insert(ns.ino())
            && let Ok(text) = std::fs::read_to_string(entry.path().join("mountinfo"))
        {
            tables.push(text);
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_encoding_round_trips() {
        // new_encode_dev: minor's low byte, major, then minor's high bits.
        let encoded = |major: u64, minor: u64| (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12);
        for (major, minor) in [(7u64, 0u64), (7, 5), (259, 3), (8, 300), (253, 70000)] {
            assert_eq!(
                huge_decode(encoded(major, minor)),
                libc::makedev(major as u32, minor as u32)
            );
        }
    }

    #[test]
    fn this_namespace_is_always_read() {
        let tables = mount_tables().unwrap();
        assert!(tables[0].contains(" / "), "{}", tables[0]);
    }
}
