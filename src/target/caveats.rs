//! Facts about a prepared target that make a job's numbers something other
//! than the device's: holes read as memory, memory file systems, compression
//! of the written pattern, options that do nothing, and reads of freshly
//! written data that a host cache can serve. Each becomes a warning string
//! stored with the run; none stops it.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::PreparedTarget;
use super::facts::{backing_device, canonical, mount_of};
use super::safety::unescape;
use crate::metrics::TargetKind;
use crate::spec::{Fill, Job};

/// A file counts as sparse when this share of its span or more has no blocks.
const SPARSE_SHARE: f64 = 0.05;

/// What a warning needs to know about the host and the run beyond the target.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// The machine's RAM.
    pub memory_bytes: u64,
    /// The target's data was written by this run (pre-fill or an earlier job).
    pub freshly_written: bool,
}

/// The warnings for one job on one prepared target.
pub fn caveats(job: &Job, target: &PreparedTarget, cx: Context) -> Vec<String> {
    let mut out = Vec::new();
    let path = target.path.display();
    if job.keep_cache && job.direct {
        out.push(
            "keep_cache has no effect with direct I/O (O_DIRECT bypasses the page cache); use --buffered --keep-cache to measure from the cache".to_string(),
        );
    }
    let mount = match target.kind {
        TargetKind::File => mount_options(&target.path),
        TargetKind::Block => None,
    };
    if let Some((fstype, _)) = &mount
        && matches!(fstype.as_str(), "tmpfs" | "ramfs")
    {
        let direct = if job.direct {
            " O_DIRECT was requested and the file system accepted it, but there is no device below it;"
        } else {
            ""
        };
        out.push(format!(
            "{path} is on {fstype}, which keeps files in memory:{direct} the numbers measure RAM, not a storage device"
        ));
    }
    if job.does_reads() {
        if target.kind == TargetKind::File
            && let Some(w) = sparse_warning(&target.path, target.span_bytes, "it")
        {
            out.push(w);
        }
        if let Some(backing) = loop_backing_file(target) {
            if let Some(w) = sparse_warning(&backing, target.span_bytes, "the loop device's backing file") {
                out.push(format!("{path} is a loop device over {}: {w}", backing.display()));
            }
            if let Some((fstype, _)) = mount_options(&backing)
                && matches!(fstype.as_str(), "tmpfs" | "ramfs")
            {
                out.push(format!(
                    "{path} is a loop device over {} on {fstype}: the numbers measure RAM, not a storage device",
                    backing.display()
                ));
            }
        }
    }
    if job.fill != Fill::Random
        && let Some((fstype, options)) = &mount
        && let Some(option) = compression_option(options)
    {
        out.push(format!(
            "fill {} on {path}, {fstype} mounted with {option}: the written pattern compresses away, so the device moves far fewer bytes than the numbers say; use --fill random",
            fill_name(job.fill)
        ));
    }
    if job.direct
        && job.does_reads()
        && cx.freshly_written
        && target.kind == TargetKind::File
        && target.span_bytes < cx.memory_bytes
        && let Some(disk) = virtual_write_back_disk(&target.path)
    {
        out.push(format!(
            "{path} ({} MB) was written by this run onto {disk}, a virtual disk with a write-back cache, and is smaller than this machine's RAM: the host's cache may serve its reads faster than the device can (use a file larger than the host's cache, or one written long before)",
            target.span_bytes / 1_000_000
        ));
    }
    out
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
fn sparse_warning(path: &Path, span_bytes: u64, what: &str) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let allocated = meta.blocks().saturating_mul(512);
    let covered = span_bytes.min(meta.len());
    let missing = covered.saturating_sub(allocated);
    (covered > 0 && missing as f64 >= covered as f64 * SPARSE_SHARE).then(|| {
        format!(
            "{} is sparse: {what} has {} MB of storage for {} MB of data; reads of the holes return zeros from memory without reading the device (write it in full first, or let kura create a new test file)",
            path.display(),
            allocated / 1_000_000,
            covered / 1_000_000
        )
    })
}

/// The backing file of a loop device target (`/sys/block/loopN/loop/backing_file`).
fn loop_backing_file(target: &PreparedTarget) -> Option<PathBuf> {
    if target.kind != TargetKind::Block {
        return None;
    }
    let dev = backing_device(&target.path)?;
    let text = std::fs::read_to_string(format!("/sys/block/{}/loop/backing_file", dev.disk)).ok()?;
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
fn virtual_write_back_disk(path: &Path) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_file_with_holes_is_sparse_and_a_written_one_is_not() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let holes = dir.path().join("holes");
        std::fs::File::create(&holes).unwrap().set_len(8 << 20).unwrap();
        assert!(sparse_warning(&holes, 8 << 20, "it").is_some());
        let full = dir.path().join("full");
        std::fs::write(&full, vec![1u8; 8 << 20]).unwrap();
        assert!(sparse_warning(&full, 8 << 20, "it").is_none());
    }
}
