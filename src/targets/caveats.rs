//! Facts about a prepared target that make a job's numbers something other
//! than the device's: holes read as memory, memory file systems, compression
//! of the written pattern, options that do nothing, and reads of freshly
//! written data that a host cache can serve. Each becomes a typed warning
//! (metrics::Warning) stored with the run; none stops it.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::PreparedTarget;
use super::facts::{backing_device, canonical, mount_of};
use super::safety::unescape;
use crate::jobs::{Fill, Job};
use crate::metrics::{TargetKind, Warning};

/// A rotational device measured on less than this share of it gets a warning.
const SHORT_SPAN_SHARE: f64 = 0.5;

/// A file counts as sparse when this share of its span or more has no blocks.
const SPARSE_SHARE: f64 = 0.05;

/// File systems that keep files in RAM. devtmpfs is /dev: a test file made
/// there from a placeholder (`lun=/dev/{device}`) measured memory as a disk.
const MEMORY_FILE_SYSTEMS: &[&str] = &["tmpfs", "ramfs", "devtmpfs"];

/// What a warning needs to know about the host and the run beyond the target.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// The machine's RAM.
    pub memory_bytes: u64,
    /// The target's data was written by this run (pre-fill or an earlier job).
    pub freshly_written: bool,
}

/// The warnings for one job on one prepared target.
pub fn caveats(job: &Job, target: &PreparedTarget, cx: Context) -> Vec<Warning> {
    let mut out = Vec::new();
    let path = target.path.display().to_string();
    if job.keep_cache && job.direct {
        out.push(Warning::KeepCacheWithDirect);
    }
    let mount = match target.kind {
        TargetKind::File => mount_options(&target.path),
        TargetKind::Block => None,
    };
    if let Some((fstype, _)) = &mount
        && MEMORY_FILE_SYSTEMS.contains(&fstype.as_str())
    {
        out.push(Warning::MemoryFileSystem {
            path: path.clone(),
            fs_type: fstype.clone(),
            direct: job.direct,
        });
    }
    if job.does_reads() {
        if target.kind == TargetKind::File
            && let Some(w) = sparse_warning(&target.path, target.span_bytes, None)
        {
            out.push(w);
        }
        if let Some(backing) = loop_backing_file(target)
            && let Some(w) = sparse_warning(&backing, target.span_bytes, Some(&path))
        {
            out.push(w);
        }
    }
    // Writes to it land in RAM as much as reads come from it. A file on a
    // file system made on such a device is in RAM too: the device is named.
    let device = backing_device(&target.path);
    let device_path = match (target.kind, &device) {
        (TargetKind::File, Some(dev)) => format!("/dev/{}", dev.name),
        _ => path.clone(),
    };
    if let Some(dev) = &device
        && let Some(backing) = loop_backing(&dev.disk)
        && let Some((fstype, _)) = mount_options(&backing)
        && MEMORY_FILE_SYSTEMS.contains(&fstype.as_str())
    {
        out.push(Warning::LoopOverMemory {
            path: device_path.clone(),
            backing: backing.display().to_string(),
            fs_type: fstype,
        });
    }
    if let Some(dev) = device
        && is_memory_disk(&dev.disk)
    {
        out.push(Warning::MemoryBlockDevice {
            path: device_path,
            device: dev.disk,
        });
    }
    if job.fill != Fill::Random
        && let Some((fstype, options)) = &mount
        && let Some(option) = compression_option(options)
    {
        out.push(Warning::CompressedFill {
            path: path.clone(),
            fill: fill_name(job.fill),
            fs_type: fstype.clone(),
            option: option.to_string(),
        });
    }
    if job.direct
        && job.does_reads()
        && cx.freshly_written
        && target.kind == TargetKind::File
        && target.span_bytes < cx.memory_bytes
        && let Some(disk) = virtual_write_back_disk(&target.path)
    {
        out.push(Warning::HostWriteBackCache {
            path: path.clone(),
            size_mb: target.span_bytes / 1_000_000,
            disk: disk.to_string(),
        });
    }
    // A disk's head moves across the span only: random I/O on a small span seeks less.
    if target.kind == TargetKind::Block
        && target.facts.rotational == Some(true)
        && (target.span_bytes as f64) < target.facts.size_bytes as f64 * SHORT_SPAN_SHARE
    {
        out.push(Warning::ShortSpanOnRotational {
            path,
            span_mb: target.span_bytes / 1_000_000,
            device_mb: target.facts.size_bytes / 1_000_000,
        });
    }
    out
}

/// zram's `zramN` and brd's `ramN`: block devices whose blocks are RAM.
fn is_memory_disk(disk: &str) -> bool {
    let numbered = |prefix: &str| {
        disk.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    numbered("zram") || numbered("ram")
}

fn fill_name(fill: Fill) -> String {
    match fill {
        Fill::Random => "random".into(),
        Fill::Zero => "zero".into(),
        Fill::Compressible { pct } => format!("compressible:{pct}"),
    }
}

/// "holes" when a file has much less storage than its span: reads of a hole
/// come from memory (zeros) without touching the device.
fn sparse_warning(path: &Path, span_bytes: u64, loop_device: Option<&str>) -> Option<Warning> {
    let meta = std::fs::metadata(path).ok()?;
    let allocated = meta.blocks().saturating_mul(512);
    let covered = span_bytes.min(meta.len());
    let missing = covered.saturating_sub(allocated);
    (covered > 0 && missing as f64 >= covered as f64 * SPARSE_SHARE).then(|| Warning::SparseFile {
        path: path.display().to_string(),
        loop_device: loop_device.map(str::to_string),
        allocated_mb: allocated / 1_000_000,
        data_mb: covered / 1_000_000,
    })
}

/// The backing file of a loop device target.
fn loop_backing_file(target: &PreparedTarget) -> Option<PathBuf> {
    if target.kind != TargetKind::Block {
        return None;
    }
    loop_backing(&backing_device(&target.path)?.disk)
}

/// A loop disk's backing file (`/sys/block/loopN/loop/backing_file`).
fn loop_backing(disk: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(format!("/sys/block/{disk}/loop/backing_file")).ok()?;
    let file = text.trim();
    (!file.is_empty()).then(|| PathBuf::from(file))
}

/// The file system type and all mount options (per mount and super block)
/// of the mount holding `path`.
fn mount_options(path: &Path) -> Option<(String, String)> {
    let mount = mount_of(&canonical(path))?;
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let options = text
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let left: Vec<&str> = left.split(' ').collect();
            let right: Vec<&str> = right.split(' ').collect();
            (left.len() >= 6 && right.len() >= 3 && unescape(left[4]) == mount.mount_point)
                .then(|| format!("{},{}", left[5], right[2]))
        })
        .next_back()?;
    Some((mount.fstype, options))
}

/// `compress=zstd:3`, `compress-force`, f2fs's `compress_algorithm=lz4`: the
/// mount options that make a file system compress what it writes.
fn compression_option(options: &str) -> Option<String> {
    options
        .split(',')
        .find(|o| o.starts_with("compress") && !o.starts_with("compress_extension"))
        .map(str::to_string)
}

/// The disk under `path` when it is virtual (virtio or Xen) and caches
/// writes: reads of what was just written may come from the host's memory.
pub(super) fn virtual_write_back_disk(path: &Path) -> Option<String> {
    let dev = backing_device(path)?;
    let sys = Path::new("/sys/block").join(&dev.disk);
    let virtio = std::fs::read_to_string(sys.join("device/vendor"))
        .map(|v| v.trim() == "0x1af4")
        .unwrap_or(false)
        || std::fs::read_link(sys.join("device/driver"))
            .map(|d| d.ends_with("virtio_blk"))
            .unwrap_or(false)
        || dev.disk.starts_with("vd")
        || dev.disk.starts_with("xvd");
    let write_back = std::fs::read_to_string(sys.join("queue/write_cache"))
        .map(|c| c.trim() == "write back")
        .unwrap_or(false);
    (virtio && write_back).then(|| format!("/dev/{}", dev.disk))
}

/// The kernel's view of a block device's volatile write cache
/// (`queue/write_cache`: "write back" or "write through"); a partition
/// answers with its disk's.
pub fn write_cache_of(device: &Path) -> Option<String> {
    backing_device(device)?.disk_attr("queue/write_cache")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block device's write cache is what its disk's sysfs says, for
    /// every disk of this machine that has a node in /dev.
    #[test]
    fn the_write_cache_is_the_disks_own() {
        let mut seen = 0;
        for e in std::fs::read_dir("/sys/block").unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let dev = Path::new("/dev").join(&name);
            let Ok(state) = std::fs::read_to_string(e.path().join("queue/write_cache")) else {
                continue;
            };
            if !dev.exists() {
                continue;
            }
            assert_eq!(write_cache_of(&dev).as_deref(), Some(state.trim()), "{name}");
            seen += 1;
        }
        assert!(seen > 0, "no block device with a write cache state");
    }

    #[test]
    fn compression_options_are_found_among_the_others() {
        assert_eq!(
            compression_option("rw,relatime,rw,compress=zstd:3,ssd,space_cache=v2").as_deref(),
            Some("compress=zstd:3")
        );
        assert_eq!(
            compression_option("rw,compress-force=lzo").as_deref(),
            Some("compress-force=lzo")
        );
        assert_eq!(compression_option("rw,relatime,ssd,space_cache=v2"), None);
        assert_eq!(compression_option("rw,compress_extension=txt"), None);
    }

    #[test]
    fn zram_and_brd_are_memory_and_disks_are_not() {
        for disk in ["zram0", "ram0", "ram15"] {
            assert!(is_memory_disk(disk), "{disk}");
        }
        for disk in ["ram", "zram", "nvme0n1", "sda", "loop0", "ramdisk", "vda"] {
            assert!(!is_memory_disk(disk), "{disk}");
        }
    }

    #[test]
    fn a_file_with_holes_is_sparse_and_a_written_one_is_not() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let holes = dir.path().join("holes");
        std::fs::File::create(&holes).unwrap().set_len(8 << 20).unwrap();
        assert!(sparse_warning(&holes, 8 << 20, None).is_some());
        let full = dir.path().join("full");
        std::fs::write(&full, vec![1u8; 8 << 20]).unwrap();
        assert!(sparse_warning(&full, 8 << 20, None).is_none());
    }
}
