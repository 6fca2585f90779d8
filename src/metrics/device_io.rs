//! What the block devices under a job counted while it ran: the
//! target's device and every device under it, as the kernel's own I/O
//! counters (`/sys/block/DEV/stat`, read in `targets::device_counters`)
//! moved over the job. Evidence, not a guess: reads kura made that the
//! lowest device never saw were answered by a cache; bytes the device
//! wrote over the bytes kura wrote is write amplification; the share of
//! the job's time the device was busy says whether it was the limit.

use serde::{Deserialize, Serialize};

use super::{JobResult, OpKind, Warning};

/// The counters of the devices under one job, as deltas over the job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceIo {
    /// Wall time between the two readings that `reads`, `read_bytes`,
    /// `read_ticks_ns` and `busy_ns` are from: the job's ramp excluded.
    pub window_ns: u64,
    /// The target's device first, then the devices under it, each after
    /// its holder.
    pub devices: Vec<DeviceCounts>,
    /// Bytes the target's device wrote over the bytes kura wrote; `None`
    /// when kura wrote nothing it counts in bytes (a database's queries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceRole {
    /// The device the target is (a block device) or is on (a file system's).
    Target,
    /// Under the target: a loop device's backing file's device, a dm or md device's members.
    Under,
}

/// One device's counters moved over the job. Reads and busy time are over
/// the job's window; writes, flushes and discards also count what the
/// flush right after a job that wrote sent down (so the job's buffered
/// writes are counted where the device took them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceCounts {
    /// The kernel's name: `loop3`, `vda`, `dm-0`.
    pub device: String,
    pub role: DeviceRole,
    /// The device this one is under (a loop device over a file on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// Reads completed (stat field 1).
    pub reads: u64,
    /// Sectors read (field 3) in bytes: 512 a sector, whatever the device's block size.
    pub read_bytes: u64,
    /// Time reads spent from issue to completion, added up (field 4).
    pub read_ticks_ns: u64,
    pub writes: u64,
    pub write_bytes: u64,
    pub write_ticks_ns: u64,
    /// Time the device had I/O in flight (field 10, io_ticks).
    pub busy_ns: u64,
    /// Discard requests completed (field 12); 0 where the kernel does not count them.
    pub discards: u64,
    pub discard_bytes: u64,
    /// Flush requests completed (field 16).
    pub flushes: u64,
}

/// kura's reads are "served from a cache" when less than this share of
/// their bytes reached the lowest device.
pub const CACHE_SHARE: f64 = 0.1;
/// Below this many bytes read, readahead and metadata on the device are
/// as large as the job: no verdict.
const CACHE_MIN_BYTES: u64 = 16 << 20;

impl DeviceIo {
    pub fn target(&self) -> Option<&DeviceCounts> {
        self.devices.iter().find(|d| d.role == DeviceRole::Target)
    }

    /// The devices with nothing under them: where the bytes end up.
    pub fn lowest(&self) -> impl Iterator<Item = &DeviceCounts> {
        self.devices.iter().filter(|d| {
            !self
                .devices
                .iter()
                .any(|u| u.holder.as_deref() == Some(d.device.as_str()))
        })
    }

    /// The share of the window the target's device had I/O in flight.
    pub fn busy_share(&self) -> Option<f64> {
        let t = self.target()?;
        (self.window_ns > 0).then(|| (t.busy_ns as f64 / self.window_ns as f64).min(1.0))
    }

    /// The devices `device` is under, up to the target: `[loop3, loop5]` for vda.
    pub fn holders(&self, device: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut at = self.devices.iter().find(|d| d.device == device);
        while let Some(holder) = at.and_then(|d| d.holder.as_deref()) {
            if out.iter().any(|h| h == holder) {
                break;
            }
            out.push(holder.to_string());
            at = self.devices.iter().find(|d| d.device == holder);
        }
        out
    }
}

/// Bytes kura itself read: block reads, bonnie's and a file set's reads.
pub fn kura_read_bytes(job: &JobResult) -> u64 {
    job.operation(OpKind::Read).map_or(0, |d| d.bytes)
}

/// Bytes kura itself wrote: block and bonnie writes, a file set's writes
/// and the files it created with their data.
pub fn kura_written_bytes(job: &JobResult) -> u64 {
    [OpKind::Write, OpKind::Create]
        .into_iter()
        .filter_map(|k| job.operation(k))
        .map(|d| d.bytes)
        .sum()
}

/// The device bytes written over kura's, from the target's device.
pub fn write_amplification(io: &DeviceIo, kura_written: u64) -> Option<f64> {
    let t = io.target()?;
    (kura_written > 0).then(|| t.write_bytes as f64 / kura_written as f64)
}

/// The share of a job's time its target's device was busy (0 to 1), from
/// the kernel's io_ticks: near 1, the device was the limit, not kura;
/// `None` for a job without counters (an older run, a target with no
/// block device). A throttle (blkio, io.max) on the device itself holds
/// I/Os before the device counts them; it shows as busy only on a device
/// above the throttled one.
pub fn utilisation(job: &JobResult) -> Option<f64> {
    job.device_io.as_ref()?.busy_share()
}

/// The verdict from the counters: a job whose reads the lowest device
/// never saw (under `CACHE_SHARE` of kura's bytes) was served from a cache.
pub fn cache_verdict(job: &JobResult) -> Option<Warning> {
    let io = job.device_io.as_ref()?;
    let read = kura_read_bytes(job);
    if read < CACHE_MIN_BYTES {
        return None;
    }
    let lowest: Vec<&DeviceCounts> = io.lowest().collect();
    let reached: u64 = lowest.iter().map(|d| d.read_bytes).sum();
    if reached as f64 >= read as f64 * CACHE_SHARE {
        return None;
    }
    let device = lowest
        .iter()
        .map(|d| d.device.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Some(Warning::ReadsNotOnDevice {
        job: job.job.name.clone(),
        read_bytes: read,
        holders: lowest.first().map(|d| io.holders(&d.device)).unwrap_or_default(),
        device,
        device_read_bytes: reached,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(
        name: &str,
        holder: Option<&str>,
        read_bytes: u64,
        write_bytes: u64,
        busy_ns: u64,
    ) -> DeviceCounts {
        DeviceCounts {
            device: name.into(),
            role: if holder.is_none() {
                DeviceRole::Target
            } else {
                DeviceRole::Under
            },
            holder: holder.map(str::to_string),
            reads: read_bytes / 4096,
            read_bytes,
            read_ticks_ns: 0,
            writes: write_bytes / 4096,
            write_bytes,
            write_ticks_ns: 0,
            busy_ns,
            discards: 0,
            discard_bytes: 0,
            flushes: 0,
        }
    }

    #[test]
    fn the_lowest_devices_and_the_chain_up_to_the_target() {
        let io = DeviceIo {
            window_ns: 2_000_000_000,
            devices: vec![
                dev("loop5", None, 4 << 30, 0, 1_000_000_000),
                dev("loop3", Some("loop5"), 4 << 30, 0, 0),
                dev("vda", Some("loop3"), 12 << 20, 0, 0),
            ],
            write_amplification: None,
        };
        let lowest: Vec<_> = io.lowest().map(|d| d.device.as_str()).collect();
        assert_eq!(lowest, ["vda"]);
        assert_eq!(io.holders("vda"), ["loop3", "loop5"]);
        assert_eq!(io.busy_share(), Some(0.5));
    }

    #[test]
    fn amplification_is_the_targets_bytes_over_kuras() {
        let io = DeviceIo {
            window_ns: 1,
            devices: vec![dev("vda", None, 0, 3 << 20, 0)],
            write_amplification: None,
        };
        assert_eq!(write_amplification(&io, 2 << 20), Some(1.5));
        assert_eq!(write_amplification(&io, 0), None);
    }
}
