//! The block devices a job's I/O goes down through, and their own I/O
//! counters. A path's device is its file system's (st_dev) or
//! the device node's; under a loop device lies the device of its backing
//! file (or the block device it is over), as the loop driver says
//! (`stack::loop_of`); under a dm or md device, its `slaves`. Each device's
//! counters are its sysfs `stat` file, whose fields the kernel's
//! Documentation/block/stat.rst lists: 1 read I/Os, 3 read sectors, 4 read
//! ticks (ms), 5 write I/Os, 7 write sectors, 8 write ticks, 10 io_ticks
//! (ms the device had I/O in flight), 12 discard I/Os, 14 discard sectors,
//! 16 flush I/Os. Sectors are 512 bytes there, whatever the device's.

use std::collections::HashSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::stack::{loop_of, parse_devnum, sysfs_dir};
use crate::metrics::device_io::{DeviceCounts, DeviceIo, DeviceRole};

/// One device of the stack, its holder's index, and its `stat` file.
#[derive(Debug, Clone)]
struct Dev {
    name: String,
    holder: Option<usize>,
    stat: PathBuf,
}

/// The devices under a job's targets, resolved once before it runs.
#[derive(Debug, Clone, Default)]
pub struct Stack {
    devs: Vec<Dev>,
    /// How many of `devs` are the targets' own devices.
    targets: usize,
}

/// Every device's counters at one moment.
#[derive(Debug, Clone)]
pub struct Reading {
    at: Instant,
    stats: Vec<Option<[u64; 17]>>,
}

const SECTOR: u64 = 512;
const MS: u64 = 1_000_000;

impl Stack {
    /// The devices of `paths` (files, directories, device nodes) and
    /// everything under them; empty where none is a block device's (tmpfs,
    /// a network file system).
    pub fn of(paths: &[&Path]) -> Stack {
        let mut stack = Stack::default();
        let mut seen = HashSet::new();
        let mut queue = Vec::new();
        for path in paths {
            if let Some(rdev) = device_of(path)
                && seen.insert(rdev)
            {
                queue.push((rdev, None));
            }
        }
        stack.targets = queue.len();
        let mut i = 0;
        while i < queue.len() {
            let (rdev, holder) = queue[i];
            i += 1;
            let Some(sys) = sysfs_dir(rdev) else { continue };
            let Some(name) = sys.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                continue;
            };
            let me = stack.devs.len();
            stack.devs.push(Dev {
                name,
                holder,
                stat: sys.join("stat"),
            });
            for lower in under(rdev, &sys) {
                if seen.insert(lower) {
                    queue.push((lower, Some(me)));
                }
            }
        }
        stack
    }

    pub fn is_empty(&self) -> bool {
        self.devs.is_empty()
    }

    pub fn read(&self) -> Reading {
        Reading {
            at: Instant::now(),
            stats: self.devs.iter().map(|d| read_stat(&d.stat)).collect(),
        }
    }

    /// The deltas: reads and busy time from `start` to `end`; writes,
    /// flushes and discards from `start` to `flushed` (the reading after
    /// the flush that follows a job that wrote; `end` again otherwise).
    pub fn delta(&self, start: &Reading, end: &Reading, flushed: &Reading) -> Option<DeviceIo> {
        let mut devices = Vec::new();
        for (i, d) in self.devs.iter().enumerate() {
            let (Some(a), Some(b), Some(c)) = (start.stats[i], end.stats[i], flushed.stats[i]) else {
                continue;
            };
            let r = |f: usize| b[f].saturating_sub(a[f]);
            let w = |f: usize| c[f].saturating_sub(a[f]);
            devices.push(DeviceCounts {
                device: d.name.clone(),
                role: if i < self.targets {
                    DeviceRole::Target
                } else {
                    DeviceRole::Under
                },
                holder: d.holder.map(|h| self.devs[h].name.clone()),
                reads: r(0),
                read_bytes: r(2) * SECTOR,
                read_ticks_ns: r(3) * MS,
                writes: w(4),
                write_bytes: w(6) * SECTOR,
                write_ticks_ns: w(7) * MS,
                busy_ns: r(9) * MS,
                discards: w(11),
                discard_bytes: w(13) * SECTOR,
                flushes: w(15),
            });
        }
        (!devices.is_empty()).then(|| DeviceIo {
            window_ns: end.at.saturating_duration_since(start.at).as_nanos() as u64,
            devices,
            write_amplification: None,
        })
    }
}

/// The block device `path` is, or whose file system holds it.
fn device_of(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    if sysfs_dir(dev).is_some() {
        return Some(dev);
    }
    // btrfs's synthetic device numbers: the device its mount names.
    let name = super::facts::backing_device(path)?.name;
    let text = std::fs::read_to_string(Path::new("/sys/class/block").join(name).join("dev")).ok()?;
    let (major, minor) = parse_devnum(text.trim())?;
    Some(libc::makedev(major, minor))
}

/// The devices directly under `rdev`: a loop device's backing, a dm or md device's slaves.
fn under(rdev: u64, sys: &Path) -> Vec<u64> {
    let mut out = Vec::new();
    if let Some(lo) = loop_of(rdev) {
        match lo.backing_rdev {
            Some(lower) => out.push(lower),
            None => {
                if sysfs_dir(lo.backing.0).is_some() {
                    out.push(lo.backing.0);
                } else if let Some(dev) = device_of(Path::new(&lo.backing_name)) {
                    out.push(dev);
                }
            }
        }
    }
    if let Ok(slaves) = std::fs::read_dir(sys.join("slaves")) {
        for s in slaves.flatten() {
            let text = std::fs::read_to_string(s.path().join("dev")).unwrap_or_default();
            if let Some((major, minor)) = parse_devnum(text.trim()) {
                out.push(libc::makedev(major, minor));
            }
        }
    }
    out
}

/// A `stat` file's fields; those an older kernel lacks read as 0.
fn read_stat(path: &Path) -> Option<[u64; 17]> {
    parse_stat(&std::fs::read_to_string(path).ok()?)
}

fn parse_stat(text: &str) -> Option<[u64; 17]> {
    let mut out = [0u64; 17];
    let mut n = 0;
    for (slot, field) in out.iter_mut().zip(text.split_whitespace()) {
        *slot = field.parse().ok()?;
        n += 1;
    }
    (n >= 11).then_some(out)
}

/// Makes what a job wrote reach the devices, so their write counters hold
/// it: `fdatasync` on a device node, `syncfs` on a file system.
pub fn flush(paths: &[&Path]) {
    use std::os::fd::AsRawFd;
    for path in paths {
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        let block = file.metadata().is_ok_and(|m| m.file_type().is_block_device());
        if block {
            let _ = file.sync_data();
        } else {
            // SAFETY: the descriptor is open for the call.
            unsafe { libc::syncfs(file.as_raw_fd()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_of_17_fields_and_an_older_one_of_11() {
        let new = " 8174121 2403 429034782 793763 3564754 316009 194032996 733829 0 396444 1682200 337 0 22678798 124 75869 154482\n";
        let s = parse_stat(new).unwrap();
        assert_eq!((s[0], s[2], s[9], s[15]), (8174121, 429034782, 396444, 75869));
        let old = "1 2 3 4 5 6 7 8 0 10 11";
        assert_eq!(parse_stat(old).unwrap()[12], 0);
        assert!(parse_stat("1 2 3").is_none());
    }

    #[test]
    fn the_root_file_system_has_a_device_or_none() {
        // Where / is on a block device, its stat file reads.
        let stack = Stack::of(&[Path::new("/")]);
        let reading = stack.read();
        assert!(reading.stats.iter().all(Option::is_some), "{stack:?}");
    }
}
