//! Facts about the host and the target that a report prints next to the
//! numbers, read from /proc and /sys. Each one is best-effort: a missing
//! fact is `None` or empty, never an error, because it must not stop a run.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::safety::{Mount, parse_mountinfo};
use crate::metrics::{HostFacts, TargetFacts, TargetIdentity, TargetKind};

pub fn host_facts() -> HostFacts {
    let uts = uname();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    HostFacts {
        hostname: uts.as_ref().map(|u| u.nodename.clone()).unwrap_or_default(),
        kernel: uts.as_ref().map(|u| u.release.clone()).unwrap_or_default(),
        cpu_model: cpu_model(&cpuinfo)
            .or_else(|| uts.as_ref().map(|u| u.machine.clone()))
            .unwrap_or_default(),
        cores: std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1),
        memory_bytes: mem_total(&meminfo).unwrap_or(0),
    }
}

pub fn target_facts(
    path: &Path,
    kind: TargetKind,
    size_bytes: u64,
    logical_block_bytes: u64,
    created: bool,
) -> TargetFacts {
    let canonical = canonical(path);
    let (fs_type, device) = match kind {
        TargetKind::Block => (
            None,
            std::fs::metadata(&canonical)
                .ok()
                .and_then(|m| BlockDevice::from_rdev(m.rdev())),
        ),
        TargetKind::File => match mount_of(&canonical) {
            Some(mount) => {
                let device = BlockDevice::of_mount(&mount);
                (Some(mount.fstype), device)
            }
            None => (None, None),
        },
    };
    TargetFacts {
        path: canonical.display().to_string(),
        kind,
        fs_type,
        device_model: device.as_ref().and_then(|d| d.model()),
        rotational: device.as_ref().and_then(|d| d.rotational()),
        device: device.map(|d| d.name),
        size_bytes,
        logical_block_bytes,
        created,
        identity: identity(&canonical, kind),
    }
}

/// The numbers that name the storage under `path` (TargetIdentity).
fn identity(path: &Path, kind: TargetKind) -> Option<TargetIdentity> {
    let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let meta = std::fs::metadata(path).ok()?;
    let block = kind == TargetKind::Block && meta.file_type().is_block_device();
    let device_number = if block { meta.rdev() } else { meta.dev() };
    let diskseq = block
        .then(|| {
            let (major, minor) = (libc::major(device_number), libc::minor(device_number));
            std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/diskseq")).ok()
        })
        .flatten()
        .and_then(|s| s.trim().parse().ok());
    let fs_id = if block { None } else { fs_id(path) };
    Some(TargetIdentity {
        boot_id: boot_id.trim().to_string(),
        device_number,
        diskseq,
        fs_id,
        inode: (!block).then(|| meta.ino()),
    })
}

/// statvfs's f_fsid; `None` where the file system gives none (0).
fn fs_id(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut v = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path and `v` has room for one statvfs,
    // which the call fills completely when it returns 0.
    let v = unsafe {
        if libc::statvfs(c.as_ptr(), v.as_mut_ptr()) != 0 {
            return None;
        }
        v.assume_init()
    };
    Some(v.f_fsid as u64).filter(|id| *id != 0)
}

/// The block device under a path: itself for a device, the mounted one for a file.
pub(super) fn backing_device(path: &Path) -> Option<BlockDevice> {
    let canonical = canonical(path);
    let meta = std::fs::metadata(&canonical).ok();
    if let Some(meta) = &meta
        && meta.file_type().is_block_device()
    {
        return BlockDevice::from_rdev(meta.rdev());
    }
    BlockDevice::of_mount(&mount_of(&canonical)?)
}

/// A path made absolute with symlinks resolved, even when its last part does not exist yet.
pub(super) fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = path.canonicalize() {
        return c;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (parent.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

pub(super) fn mount_of(canonical: &Path) -> Option<Mount> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    longest_mount(parse_mountinfo(&text), canonical)
}

/// The mount that holds `path`: the longest mount point above it; of equal
/// ones the last, since a later mount hides an earlier one on the same point.
fn longest_mount(mounts: Vec<Mount>, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for mount in mounts {
        if !path.starts_with(&mount.mount_point) {
            continue;
        }
        let longer = best.as_ref().is_none_or(|b| {
            Path::new(&mount.mount_point).components().count()
                >= Path::new(&b.mount_point).components().count()
        });
        if longer {
            best = Some(mount);
        }
    }
    best
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct BlockDevice {
    /// Kernel name: `vda`, `vda1`, `loop3`.
    pub name: String,
    /// The whole disk: the same as `name` unless it is a partition.
    pub disk: String,
}

impl BlockDevice {
    fn from_devnum(major: u32, minor: u32) -> Option<BlockDevice> {
        let dir = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
        let name = dir.file_name()?.to_string_lossy().into_owned();
        let disk = if dir.join("partition").exists() {
            dir.parent()?.file_name()?.to_string_lossy().into_owned()
        } else {
            name.clone()
        };
        Some(BlockDevice { name, disk })
    }

    fn from_rdev(rdev: u64) -> Option<BlockDevice> {
        BlockDevice::from_devnum(libc::major(rdev), libc::minor(rdev))
    }

    /// By device number; failing that (btrfs's synthetic numbers) by the source path.
    fn of_mount(mount: &Mount) -> Option<BlockDevice> {
        if let Some((major, minor)) = mount.devnum
            && let Some(dev) = BlockDevice::from_devnum(major, minor)
        {
            return Some(dev);
        }
        if !mount.source.starts_with('/') {
            return None;
        }
        let meta = std::fs::metadata(&mount.source).ok()?;
        meta.file_type()
            .is_block_device()
            .then(|| BlockDevice::from_rdev(meta.rdev()))
            .flatten()
    }

    pub(super) fn disk_attr(&self, attr: &str) -> Option<String> {
        let text = std::fs::read_to_string(Path::new("/sys/block").join(&self.disk).join(attr)).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }

    pub fn model(&self) -> Option<String> {
        self.disk_attr("device/model")
    }

    pub fn rotational(&self) -> Option<bool> {
        self.disk_attr("queue/rotational").map(|t| t == "1")
    }

    pub fn logical_block_bytes(&self) -> Option<u64> {
        self.disk_attr("queue/logical_block_size")?
            .parse()
            .ok()
            .filter(|n| *n > 0)
    }
}

struct Uname {
    nodename: String,
    release: String,
    machine: String,
}

fn uname() -> Option<Uname> {
    // SAFETY: utsname is plain C data; all-zero bytes are a valid value.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `uts` is a valid, writable utsname for the kernel to fill.
    if unsafe { libc::uname(&mut uts) } != 0 {
        return None;
    }
    let text = |field: &[libc::c_char]| {
        let bytes: Vec<u8> = field.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some(Uname {
        nodename: text(&uts.nodename),
        release: text(&uts.release),
        machine: text(&uts.machine),
    })
}

/// x86 says `model name`; arm64 and others use one of the later keys, if any.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    for key in [
        "model name",
        "Model",
        "Hardware",
        "cpu model",
        "cpu",
        "Processor",
        "uarch",
    ] {
        for line in cpuinfo.lines() {
            if let Some((k, v)) = line.split_once(':')
                && k.trim() == key
                && !v.trim().is_empty()
            {
                return Some(v.trim().to_string());
            }
        }
    }
    None
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_facts_are_filled() {
        let host = host_facts();
        assert!(!host.hostname.is_empty());
        assert!(!host.kernel.is_empty());
        assert!(host.cores >= 1);
        assert!(host.memory_bytes > 0);
    }

    #[test]
    fn cpu_and_memory_parsing() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
        assert_eq!(cpu_model(x86).unwrap(), "Intel(R) Xeon(R) CPU @ 2.20GHz");
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\nModel\t: Raspberry Pi 4\n";
        assert_eq!(cpu_model(arm).unwrap(), "Raspberry Pi 4");
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(
            mem_total("MemTotal:       16384 kB\nMemFree: 1 kB\n"),
            Some(16 << 20)
        );
    }

    #[test]
    fn longest_mount_point_wins_by_component() {
        let text = "1 0 254:0 / / rw - ext4 /dev/vda rw\n\
                    2 1 0:40 / /mnt/a rw - tmpfs tmpfs rw\n\
                    3 1 0:41 / /mnt/ab rw - xfs /dev/loop1 rw\n\
                    4 1 0:42 / /mnt/a rw - btrfs /dev/loop2 rw\n";
        let at = |p: &str| longest_mount(parse_mountinfo(text), Path::new(p)).unwrap().fstype;
        assert_eq!(at("/mnt/ab/file"), "xfs");
        assert_eq!(at("/mnt/a/file"), "btrfs");
        assert_eq!(at("/mnt/abc"), "ext4");
        assert_eq!(at("/"), "ext4");
    }

    #[test]
    fn a_file_in_tmp_has_a_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let facts = target_facts(&path, TargetKind::File, 1, 512, true);
        assert!(facts.fs_type.is_some());
        assert_eq!(facts.path, path.canonicalize().unwrap().display().to_string());
        assert_eq!(facts.size_bytes, 1);
        assert!(facts.created);
    }

    #[test]
    fn a_missing_file_still_resolves_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not-yet");
        assert_eq!(
            canonical(&path),
            dir.path().canonicalize().unwrap().join("not-yet")
        );
    }
}
