//! More verdicts on where a job's data likely came from, beside
//! `caveats.rs`: reads that return zeros (never written, trimmed, or
//! written as zeros: what thin, compressing and deduplicating storage
//! serves without touching media), compressible data written, caches no
//! invalidation reaches (a network or FUSE file system's server, overlay
//! layers, a container's host), and, after the job, a throughput above
//! what the device's interface can carry, or writes a cache took faster
//! than the device wrote them. Each is a typed warning; none stops a run.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::PreparedTarget;
use super::facts::{backing_device, canonical, mount_of};
use crate::jobs::{Fill, Job};
use crate::metrics::{JobResult, TargetKind, Warning};

/// Blocks read to tell whether the span holds zeros.
const SAMPLES: u64 = 64;
const SAMPLE_BYTES: usize = 4096;
/// A span counts as zeros when this share of the samples or more is.
const ZERO_SHARE: f64 = 0.5;
/// A compressible fill with this share of zeros or more is flagged.
const COMPRESSIBLE_PCT: u8 = 50;

/// Verdicts known before the job runs.
pub fn before(job: &Job, target: &PreparedTarget, already: &[Warning]) -> Vec<Warning> {
    let mut out = Vec::new();
    let path = target.path.display().to_string();
    let fs_type = match target.kind {
        TargetKind::File => mount_of(&canonical(&target.path)).map(|m| m.fstype),
        TargetKind::Block => None,
    };
    if job.does_reads() {
        let sparse = already
            .iter()
            .any(|w| matches!(w, Warning::SparseFile { .. } | Warning::MemoryFileSystem { .. }));
        if !sparse && let Some((zeros, sampled)) = zero_blocks(target) {
            out.push(Warning::ReadsOfZeros {
                path: path.clone(),
                zero_blocks: zeros,
                sampled,
            });
        }
    }
    let compressible = match job.fill {
        Fill::Zero => true,
        Fill::Compressible { pct } => pct >= COMPRESSIBLE_PCT,
        Fill::Random => false,
    };
    let flagged_already = already
        .iter()
        .any(|w| matches!(w, Warning::CompressedFill { .. }));
    if job.does_writes() && compressible && !flagged_already {
        out.push(Warning::CompressibleData {
            path: path.clone(),
            fill: match job.fill {
                Fill::Zero => "zero".into(),
                Fill::Compressible { pct } => format!("compressible:{pct}"),
                Fill::Random => unreachable!("not compressible"),
            },
        });
    }
    if let Some(fs) = &fs_type
        && let Some(w) = unreachable_cache_on(fs, &path)
    {
        out.push(w);
    }
    if !job.direct
        && let Some(runtime) = container(
            &std::fs::read_to_string("/proc/1/cgroup").unwrap_or_default(),
            Path::new("/.dockerenv").exists() || Path::new("/run/.containerenv").exists(),
        )
    {
        out.push(Warning::InContainer { runtime });
    }
    out
}

/// The verdict for a directory a file set lives in: its file system's
/// cache cannot be dropped from here (a network or FUSE file system).
pub fn unreachable_cache_at(dir: &Path) -> Option<Warning> {
    let fs = mount_of(&canonical(dir))?.fstype;
    unreachable_cache_on(&fs, &dir.display().to_string())
}

fn unreachable_cache_on(fs_type: &str, path: &str) -> Option<Warning> {
    unreachable_cache(fs_type).map(|why| Warning::UnreachableCache {
        path: path.to_string(),
        fs_type: fs_type.to_string(),
        why: why.to_string(),
    })
}

/// A sequential read's files holding fewer separate cached runs than this
/// show no pattern worth a warning.
const SCATTERED_MIN_RUNS: u64 = 64;
/// Files larger than this are not mapped to count their cached pages.
const SCATTERED_MAX_BYTES: u64 = 64 << 30;
/// The readahead window where the device's is unknown (Linux's default).
const DEFAULT_READAHEAD_BYTES: u64 = 128 << 10;

/// A buffered sequential read whose files hold cached pages scattered
/// through them (tiobench's random write leaves one every few dozen
/// pages, and under `--mem-limit` the sequential write's pages are gone):
/// readahead stops at each cached page and reads the gap before it
/// on its own, so the device gets reads no larger than the gaps. On a
/// disk limited in IOPS the read then runs at that limit times the gaps'
/// size, not at the disk's bandwidth; fio's default `invalidate=1` starts
/// from an empty cache and does not see it. Counted with mincore(2).
pub fn scattered_cache(job: &Job, targets: &[PreparedTarget]) -> Option<Warning> {
    if job.direct || !job.does_reads() || job.rw.is_random() {
        return None;
    }
    let page = page_bytes();
    let (mut cached, mut runs, mut span_pages, mut files) = (0, 0, 0, 0u64);
    for t in targets.iter().filter(|t| t.kind == TargetKind::File) {
        let (c, r) = cached_runs(&t.path, t.span_bytes, page)?;
        cached += c;
        runs += r;
        span_pages += t.span_bytes.div_ceil(page);
        files += 1;
    }
    if runs < SCATTERED_MIN_RUNS {
        return None;
    }
    // Each file's runs leave one more gap than there are runs, at most.
    let gap_bytes = span_pages.saturating_sub(cached) * page / (runs + files);
    let readahead_bytes = readahead_bytes(&targets.first()?.path).unwrap_or(DEFAULT_READAHEAD_BYTES);
    (gap_bytes < readahead_bytes).then(|| Warning::ScatteredCache {
        job: job.name.clone(),
        files,
        cached_pages: cached,
        runs,
        gap_bytes,
        readahead_bytes,
    })
}

/// The page size, 4 KiB where sysconf does not say.
fn page_bytes() -> u64 {
    // SAFETY: sysconf reads a constant of the system.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as u64 } else { 4096 }
}

/// Pages of the first `len` bytes of `path` in the page cache, and the
/// number of separate runs they make; `None` when it cannot be mapped.
fn cached_runs(path: &Path, len: u64, page: u64) -> Option<(u64, u64)> {
    if len == 0 || len > SCATTERED_MAX_BYTES {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let len = len.min(file.metadata().ok()?.len()) as usize;
    if len == 0 {
        return None;
    }
    use std::os::fd::AsRawFd;
    // SAFETY: a read-only shared mapping of an open file, `len` bytes
    // within its size, only passed to mincore and unmapped below.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if at == libc::MAP_FAILED {
        return None;
    }
    let mut resident = vec![0u8; len.div_ceil(page as usize)];
    // SAFETY: `resident` holds one byte per page of the mapping.
    let ok = unsafe { libc::mincore(at, len, resident.as_mut_ptr()) } == 0;
    // SAFETY: the mapping made above, not used after this.
    unsafe { libc::munmap(at, len) };
    if !ok {
        return None;
    }
    let mut cached = 0;
    let mut runs = 0;
    let mut before = false;
    for r in resident.iter().map(|b| b & 1 == 1) {
        cached += u64::from(r);
        runs += u64::from(r && !before);
        before = r;
    }
    Some((cached, runs))
}

/// The readahead window of the device under `path` (its `read_ahead_kb`).
fn readahead_bytes(path: &Path) -> Option<u64> {
    let dev = backing_device(path)?;
    let kb = std::fs::read_to_string(format!("/sys/block/{}/queue/read_ahead_kb", dev.disk)).ok()?;
    kb.trim().parse::<u64>().ok().map(|kb| kb << 10)
}

/// Verdicts that need the job's numbers.
pub fn after(result: &JobResult, targets: &[PreparedTarget]) -> Option<Warning> {
    let first = targets.first()?;
    above_interface(result, first).or_else(|| writes_ahead_of_device(result, targets))
}

fn above_interface(result: &JobResult, first: &PreparedTarget) -> Option<Warning> {
    let dev = backing_device(&first.path)?;
    let limit = interface_limit(Path::new("/sys"), &dev.disk)?;
    let rate: f64 = [&result.read, &result.write]
        .iter()
        .filter_map(|d| d.as_ref())
        .map(|d| d.bytes_per_sec)
        .sum();
    exceeded(&result.job.name, rate, &first.path, &dev.disk, limit)
}

/// A flush shorter than this says nothing: a journal commit takes as long.
const MIN_FLUSH_NS: u64 = 100_000_000;
/// A flush taking this share of the job's time or more: the measured rate
/// is at least 1.5 times what reached the device.
const FLUSH_SHARE: f64 = 0.5;

/// Whether a write-back cache took the job's writes faster than the device
/// writes them. No sysfs file says what a virtual disk's host, or any
/// device behind a cache, can write; what can be measured is what the job
/// left unwritten: the targets are flushed right after the job (the next
/// job's cache drop would flush them anyway) and the flush is timed. A
/// flush as long as half the job means the job's rate counted bytes the
/// device had not taken.
fn writes_ahead_of_device(result: &JobResult, targets: &[PreparedTarget]) -> Option<Warning> {
    let written = result.write.as_ref().filter(|w| w.ops > 0 && w.bytes > 0)?;
    if result.incomplete || result.elapsed_ns == 0 {
        return None;
    }
    let started = std::time::Instant::now();
    for t in targets {
        let file = super::open(t, false, false).ok()?;
        file.sync_data().ok()?;
    }
    let flush_ns = started.elapsed().as_nanos() as u64;
    let path = &targets.first()?.path;
    ahead_of_device(&result.job.name, path, written.bytes, result.elapsed_ns, flush_ns).or_else(|| {
        // Nothing was left to flush: on a virtual disk whose host caches
        // writes, the host may have acknowledged them from its memory and
        // answered the flush without writing (QEMU's cache=unsafe).
        let disk = super::caveats::virtual_write_back_disk(path).filter(|_| result.job.direct)?;
        // No job or numbers in it: said once for every job on the target.
        Some(Warning::HostWriteBackWrites {
            path: path.display().to_string(),
            disk,
        })
    })
}

fn ahead_of_device(job: &str, path: &Path, bytes: u64, elapsed_ns: u64, flush_ns: u64) -> Option<Warning> {
    if flush_ns < MIN_FLUSH_NS || (flush_ns as f64) < elapsed_ns as f64 * FLUSH_SHARE {
        return None;
    }
    let rate = |ns: u64| (bytes as f64 / (ns as f64 / 1e9) / 1e6).round() as u64;
    Some(Warning::WritesAheadOfDevice {
        job: job.to_string(),
        path: path.display().to_string(),
        mb_per_s: rate(elapsed_ns),
        durable_mb_per_s: rate(elapsed_ns + flush_ns),
        flush_ms: flush_ns / 1_000_000,
    })
}

fn exceeded(job: &str, rate: f64, path: &Path, disk: &str, limit: Interface) -> Option<Warning> {
    (rate > limit.bytes_per_sec as f64).then(|| Warning::AboveInterface {
        job: job.to_string(),
        path: path.display().to_string(),
        device: format!("/dev/{disk}"),
        mb_per_s: (rate / 1e6).round() as u64,
        interface: limit.name,
        limit_mb_per_s: limit.bytes_per_sec / 1_000_000,
    })
}

/// How much of the span reads as zeros: (zero blocks, sampled), read
/// directly where the target allows it, so no cached page answers.
fn zero_blocks(target: &PreparedTarget) -> Option<(u64, u64)> {
    let file = super::open(target, true, false)
        .or_else(|_| super::open(target, false, false))
        .ok()?;
    let mut buf = crate::engine::Buffers::new(1, SAMPLE_BYTES);
    let blocks = target.span_bytes / SAMPLE_BYTES as u64;
    if blocks == 0 {
        return None;
    }
    let step = (blocks / SAMPLES).max(1);
    let (mut zeros, mut sampled) = (0, 0);
    for i in (0..blocks).step_by(step as usize).take(SAMPLES as usize) {
        let data = &mut buf.slot_mut(0)[..SAMPLE_BYTES];
        if file
            .read_exact_at(data, target.span_start + i * SAMPLE_BYTES as u64)
            .is_err()
        {
            return None;
        }
        sampled += 1;
        zeros += u64::from(data.iter().all(|b| *b == 0));
    }
    (sampled > 0 && zeros as f64 >= sampled as f64 * ZERO_SHARE).then_some((zeros, sampled))
}

/// File systems whose data lives behind a cache kura cannot drop.
fn unreachable_cache(fs_type: &str) -> Option<&'static str> {
    let fs = fs_type.split('.').next().unwrap_or(fs_type);
    Some(match fs {
        "nfs" | "nfs4" | "cifs" | "smb3" | "9p" | "ceph" | "glusterfs" | "lustre" => {
            "a network file system: the server's memory caches what it serves, and dropping this host's pages does not reach it"
        }
        "fuse" | "fuseblk" | "virtiofs" => {
            "a FUSE or virtio file system: the process or host serving it keeps its own cache, which dropping this host's pages does not reach"
        }
        "overlay" => {
            "overlayfs (a container's file system): its files live on a lower file system whose cache and device are the host's"
        }
        _ => return None,
    })
}

/// The container runtime kura runs in, from PID 1's cgroups or a runtime's marker file.
fn container(proc1_cgroup: &str, marker: bool) -> Option<String> {
    for name in ["docker", "kubepods", "containerd", "libpod", "lxc"] {
        if proc1_cgroup.contains(name) {
            return Some(name.to_string());
        }
    }
    marker.then(|| "container".to_string())
}

/// The fastest transfer a device's link allows.
#[derive(Debug, Clone, PartialEq)]
struct Interface {
    name: String,
    bytes_per_sec: u64,
}

/// The link the disk hangs off, from sysfs under `sys`: PCIe (NVMe) from
/// `current_link_speed` and `current_link_width`, SATA from its ata link's
/// `sata_spd`, USB from the device's `speed` (Mbit/s). `None` for devices
/// with no such link (virtio, loop, zram): no limit is claimed.
fn interface_limit(sys: &Path, disk: &str) -> Option<Interface> {
    let device = std::fs::canonicalize(sys.join("block").join(disk).join("device")).ok()?;
    let read = |p: PathBuf| std::fs::read_to_string(p).ok().map(|t| t.trim().to_string());
    let mut dir = Some(device.as_path());
    while let Some(d) = dir {
        if let (Some(speed), Some(width)) = (
            read(d.join("current_link_speed")),
            read(d.join("current_link_width")),
        ) {
            let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
            let lanes: u64 = width.parse().ok()?;
            // 8b/10b below 8 GT/s, 128b/130b from there on.
            let per_lane = if gts < 8.0 {
                gts * 1e9 * 0.8 / 8.0
            } else {
                gts * 1e9 * 128.0 / 130.0 / 8.0
            };
            return Some(Interface {
                name: format!("PCIe {speed} x{lanes}"),
                bytes_per_sec: (per_lane * lanes as f64) as u64,
            });
        }
        if let Some(name) = d.file_name().and_then(|n| n.to_str())
            && let Some(port) = name.strip_prefix("ata")
            && port.chars().all(|c| c.is_ascii_digit())
            && let Some(spd) = read(
                sys.join("class/ata_link")
                    .join(format!("link{port}"))
                    .join("sata_spd"),
            )
        {
            let gbps: f64 = spd.split_whitespace().next()?.parse().ok()?;
            return Some(Interface {
                name: format!("SATA {spd}"),
                // 8b/10b: 6 Gbit/s carries 600 MB/s.
                bytes_per_sec: (gbps * 1e9 / 10.0) as u64,
            });
        }
        if d.join("bMaxPacketSize0").exists()
            && let Some(mbps) = read(d.join("speed")).and_then(|s| s.parse::<f64>().ok())
        {
            return Some(Interface {
                name: format!("USB {mbps} Mbit/s"),
                bytes_per_sec: (mbps * 1e6 / 8.0) as u64,
            });
        }
        dir = d.parent().filter(|p| p.starts_with(sys));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysfs tree made of real files: /sys/block/DISK/device -> a device
    /// under /sys/devices whose ancestors describe the link.
    fn tree(sys: &Path, disk: &str, device_dir: &str, files: &[(&str, &str)]) {
        let dev = sys.join(device_dir);
        std::fs::create_dir_all(&dev).unwrap();
        for (rel, text) in files {
            let p = sys.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(sys.join("block").join(disk)).unwrap();
        std::os::unix::fs::symlink(&dev, sys.join("block").join(disk).join("device")).unwrap();
    }

    #[test]
    fn pcie_sata_and_usb_links_give_their_limits_and_virtio_none() {
        let d = tempfile::tempdir().unwrap();
        let sys = d.path().canonicalize().unwrap();
        tree(
            &sys,
            "nvme0n1",
            "devices/pci0000:00/0000:00:01.0/nvme/nvme0/nvme0n1",
            &[
                (
                    "devices/pci0000:00/0000:00:01.0/current_link_speed",
                    "8.0 GT/s PCIe\n",
                ),
                ("devices/pci0000:00/0000:00:01.0/current_link_width", "4\n"),
            ],
        );
        let nvme = interface_limit(&sys, "nvme0n1").unwrap();
        assert_eq!(nvme.name, "PCIe 8.0 GT/s PCIe x4");
        assert_eq!(nvme.bytes_per_sec / 1_000_000, 3938);
        tree(
            &sys,
            "sda",
            "devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0",
            &[("class/ata_link/link3/sata_spd", "3.0 Gbps\n")],
        );
        assert_eq!(interface_limit(&sys, "sda").unwrap().bytes_per_sec, 300_000_000);
        tree(
            &sys,
            "sdb",
            "devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host5/target5:0:0/5:0:0:0",
            &[
                ("devices/pci0000:00/0000:00:14.0/usb2/2-1/speed", "480\n"),
                ("devices/pci0000:00/0000:00:14.0/usb2/2-1/bMaxPacketSize0", "64\n"),
            ],
        );
        assert_eq!(interface_limit(&sys, "sdb").unwrap().bytes_per_sec, 60_000_000);
        tree(
            &sys,
            "vda",
            "devices/pci0000:00/0000:00:02.0/virtio1/block/vda",
            &[],
        );
        assert_eq!(interface_limit(&sys, "vda"), None);
    }

    #[test]
    fn a_rate_above_the_link_is_flagged_and_one_below_is_not() {
        let sata = Interface {
            name: "SATA 6.0 Gbps".into(),
            bytes_per_sec: 600_000_000,
        };
        let w = exceeded("j", 900e6, Path::new("/dev/sda"), "sda", sata.clone()).unwrap();
        assert!(w.to_string().contains("900 MB/s"), "{w}");
        assert!(
            w.to_string().contains("SATA 6.0 Gbps carries at most 600 MB/s"),
            "{w}"
        );
        assert!(exceeded("j", 500e6, Path::new("/dev/sda"), "sda", sata).is_none());
    }

    #[test]
    fn a_flush_as_long_as_half_the_job_means_a_cache_took_the_writes() {
        let p = Path::new("/var/tmp/t.dat");
        // 2,238 MB in 1 s, then 3.5 s to flush: about 497 MB/s reached the device.
        let w = ahead_of_device("SEQ1M Q1T1 write", p, 2_238_000_000, 1_000_000_000, 3_500_000_000).unwrap();
        assert_eq!(
            w,
            Warning::WritesAheadOfDevice {
                job: "SEQ1M Q1T1 write".into(),
                path: "/var/tmp/t.dat".into(),
                mb_per_s: 2238,
                durable_mb_per_s: 497,
                flush_ms: 3500,
            }
        );
        assert!(w.to_string().contains("took 3.5 s more"), "{w}");
        // A flush of a tenth of the job, or a short one, is no verdict.
        assert_eq!(ahead_of_device("j", p, 1 << 30, 5_000_000_000, 500_000_000), None);
        assert_eq!(ahead_of_device("j", p, 1 << 20, 10_000_000, 90_000_000), None);
    }

    #[test]
    fn containers_are_told_by_pid_1s_cgroups_or_a_marker() {
        assert_eq!(container("0::/docker/abc\n", false).as_deref(), Some("docker"));
        assert_eq!(
            container("12:memory:/kubepods/burstable/pod1\n", false).as_deref(),
            Some("kubepods")
        );
        assert_eq!(container("0::/init.scope\n", true).as_deref(), Some("container"));
        assert_eq!(container("0::/init.scope\n", false), None);
    }
}
