//! The stored shape of a run: what was run, where, and what was measured.
//! Units are in the field names: bytes, nanoseconds, operations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::jobs::Job;

/// One invocation of kura: one or more jobs on their targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Database id; `None` until the run is stored.
    pub id: Option<i64>,
    pub kura_version: String,
    /// Start of the run, seconds since the Unix epoch (UTC).
    pub started_unix_s: i64,
    pub label: Option<String>,
    /// Price as the user gave it, e.g. `1075.20 JPY/month`.
    pub price: Option<String>,
    /// Built-in suite that produced the run (`mark`, `sweep`, ...), if any.
    pub suite: Option<crate::jobs::suites::SuiteKind>,
    pub host: HostFacts,
    /// Every host a run of many ranks ran on, rank 0's first (`host`), then
    /// in the order of their first ranks; empty for one process and for
    /// runs stored before it was kept (their other hosts are only named, in
    /// each job's `cluster.ranks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostFacts>,
    /// The runs this one took turns with, pass by pass (`kura mark A B`,
    /// docs/mark.md): each target's run is stored alone, and these are the
    /// others of its invocation, in the order they took turns. Empty for a
    /// run made alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interleaved_with: Vec<i64>,
    pub jobs: Vec<JobResult>,
    /// Stopped early (Ctrl-C or a fatal error): the numbers cover what ran.
    pub incomplete: bool,
    /// Things the reader should know before trusting the numbers.
    #[serde(with = "super::warning::list")]
    pub warnings: Vec<super::Warning>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct HostFacts {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cores: u32,
    pub memory_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    File,
    Block,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetFacts {
    pub path: String,
    pub kind: TargetKind,
    /// File system holding a file target (`ext4`, `xfs`, `tmpfs`, ...).
    pub fs_type: Option<String>,
    /// Block device holding the target (`vda`, `loop3`).
    pub device: Option<String>,
    pub device_model: Option<String>,
    pub rotational: Option<bool>,
    /// Size of the file, or of the whole device.
    pub size_bytes: u64,
    pub logical_block_bytes: u64,
    /// kura created (and pre-filled) this test file for the run.
    pub created: bool,
    /// What names the storage itself, so that compare can tell two labels
    /// of one target (docs/compare.md); absent in runs stored before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<TargetIdentity>,
}

/// The numbers that name a target's storage on its host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetIdentity {
    /// /proc/sys/kernel/random/boot_id: device numbers name the same device
    /// only within one boot.
    pub boot_id: String,
    /// A block device's own number (st_rdev), or the number of the device a
    /// file's file system is on (st_dev).
    pub device_number: u64,
    /// The block device's `diskseq` (/sys/dev/block/MAJ:MIN/diskseq): a
    /// loop device attached again, to another file, gets a new one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diskseq: Option<u64>,
    /// A file's file system's id (statvfs f_fsid; ext4 and xfs derive it from
    /// the file system's UUID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs_id: Option<u64>,
    /// A file target's inode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inode: Option<u64>,
}

/// One job's measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// The job as resolved, every parameter, so the run can be repeated;
    /// `read_pct` as issued (100 for a pure read, 0 for a pure write).
    #[serde(serialize_with = "crate::jobs::issued::serialize")]
    pub job: Job,
    /// Test name within a suite (`SEQ1M Q8T1`), if any.
    pub test: Option<String>,
    pub target: TargetFacts,
    /// Engine that actually ran (io_uring may fall back to sync).
    pub engine: String,
    /// Wall-clock start of measurement (after the ramp), milliseconds since the
    /// Unix epoch; 0 when unknown (imported runs, runs stored before it existed).
    #[serde(default)]
    pub measure_start_unix_ms: u64,
    /// Measured time, ramp excluded.
    pub elapsed_ns: u64,
    pub ramp_ns: u64,
    pub read: Option<DirectionResult>,
    pub write: Option<DirectionResult>,
    /// Operations other than block reads and writes (file-set, metadata,
    /// SQL), each with the same statistics as `read` and `write`. Empty for
    /// block jobs, whose JSON keeps its read/write shape; `operation` looks
    /// up any kind, reads and writes included.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub operations: BTreeMap<OpKind, DirectionResult>,
    /// fdatasync calls made: the job's periodic syncs and its end_fsync.
    pub syncs: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    pub series: Vec<IntervalPoint>,
    pub incomplete: bool,
    /// Set when many ranks (MPI processes) ran the job at once: their
    /// per-rank breakdown; the numbers above are their merged total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Box<super::cluster::ClusterResult>>,
    /// What the target's block device and the devices under it counted
    /// while the job ran (`device_io.rs`); none where the target is on no
    /// block device, and for runs stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_io: Option<super::device_io::DeviceIo>,
}

impl JobResult {
    /// A job's result before anything is counted, for every kind: what the
    /// live sink is told as the job starts (marked incomplete), and what a
    /// kind fills in as the job ends.
    pub fn blank(job: Job, target: TargetFacts, engine: &str, measure_start_unix_ms: u64) -> JobResult {
        JobResult {
            ramp_ns: job.ramp.as_nanos() as u64,
            job,
            test: None,
            target,
            engine: engine.to_string(),
            measure_start_unix_ms,
            elapsed_ns: 0,
            read: None,
            write: None,
            operations: Default::default(),
            syncs: 0,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            series: Vec::new(),
            incomplete: true,
            cluster: None,
            device_io: None,
        }
    }

    /// Every kind of operation measured, by name: `read` and `write` for
    /// block jobs, then `create`, `stat`... for the kinds that have them.
    pub fn directions(&self) -> impl Iterator<Item = (&'static str, &DirectionResult)> {
        self.by_operation().map(|(k, d)| (k.name(), d))
    }
    pub fn total_ops(&self) -> u64 {
        self.directions().map(|(_, d)| d.ops).sum()
    }
    /// The I/Os in flight on average while measuring, all threads together,
    /// by Little's law: the counted I/Os' latencies (from their submit call)
    /// added up over the measured time. Syncs, timed by no latency here, and
    /// failed I/Os are left out. None before anything was measured.
    pub fn mean_in_flight(&self) -> Option<f64> {
        (self.elapsed_ns > 0).then(|| {
            self.directions()
                .map(|(_, d)| d.ops as f64 * d.lat_ns.mean)
                .sum::<f64>()
                / self.elapsed_ns as f64
        })
    }
    /// The statistics of one kind of operation, wherever the result keeps it.
    pub fn operation(&self, kind: OpKind) -> Option<&DirectionResult> {
        match kind {
            OpKind::Read => self.read.as_ref(),
            OpKind::Write => self.write.as_ref(),
            _ => self.operations.get(&kind),
        }
    }
    /// Every kind of operation the job measured, reads and writes first.
    pub fn by_operation(&self) -> impl Iterator<Item = (OpKind, &DirectionResult)> {
        [
            (OpKind::Read, self.read.as_ref()),
            (OpKind::Write, self.write.as_ref()),
        ]
        .into_iter()
        .filter_map(|(k, d)| d.map(|d| (k, d)))
        .chain(self.operations.iter().map(|(k, d)| (*k, d)))
    }
}

// The job model names a kind's operations (a file set's mix, bonnie's
// tests); results count by them. Defined with the jobs, so the job model
// needs no result type.
pub use crate::jobs::OpKind;

/// One kind of operation of one job (its reads, its writes, its creates...).
/// Named for block I/O's two directions before other kinds existed; `OpResult` says what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionResult {
    /// Operations that completed without error.
    pub ops: u64,
    /// Bytes moved by successful operations.
    pub bytes: u64,
    /// Failed operations.
    pub errors: u64,
    /// The first few failures.
    pub error_samples: Vec<IoErrorSample>,
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub lat_ns: LatencySummary,
    /// The latency histogram, HDR V2 serialized and base64 encoded.
    pub histogram: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoErrorSample {
    pub errno: i32,
    pub offset_bytes: u64,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LatencySummary {
    pub min: u64,
    pub mean: f64,
    pub stddev: f64,
    pub max: u64,
    /// Keys are percentiles as fio writes them: "50.000000", "99.900000";
    /// written in numeric order (5 before 25), as fio lists them.
    #[serde(serialize_with = "by_number")]
    pub percentiles: BTreeMap<String, u64>,
}

/// A map keyed by numbers as text, in the numbers' order; keys that are not
/// numbers (none are written today) go last, in text order.
fn by_number<S: serde::Serializer>(map: &BTreeMap<String, u64>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut entries: Vec<(&String, &u64)> = map.iter().collect();
    entries.sort_by(|a, b| {
        let n = |k: &str| k.trim().parse::<f64>().ok();
        match (n(a.0), n(b.0)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.0.cmp(b.0),
        }
    });
    let mut out = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        out.serialize_entry(k, v)?;
    }
    out.end()
}

/// One period of the interval series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct IntervalPoint {
    /// Start of the period, from the start of measurement.
    pub start_ns: u64,
    pub duration_ns: u64,
    pub read_ops: u64,
    pub write_ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub lat_mean_ns: f64,
    pub lat_p99_ns: u64,
    #[serde(default)]
    pub read_lat_mean_ns: f64,
    #[serde(default)]
    pub write_lat_mean_ns: f64,
    #[serde(default)]
    pub lat_max_ns: u64,
    #[serde(default)]
    pub lat_stddev_ns: f64,
    /// CPU time of the job's threads in this period.
    #[serde(default)]
    pub cpu_user_ns: u64,
    #[serde(default)]
    pub cpu_system_ns: u64,
    /// The period's latency histogram (HDR V2, base64), kept only while a
    /// rank's series travels to rank 0 to be merged; never stored.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub histogram: String,
    /// With `write_hist_log`: per direction (read, write, trim), the
    /// period's completions in fio's latency bins, sparse (bin, count),
    /// for the histogram log written after the run; never stored.
    #[serde(skip)]
    pub fio_bins: Vec<Vec<(u16, u64)>>,
}

/// The statistics of one kind of operation.
pub type OpResult = DirectionResult;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_written_in_numeric_order() {
        let mut l = LatencySummary::default();
        for (k, v) in [
            ("25.000000", 3),
            ("5.000000", 2),
            ("99.990000", 5),
            ("1.000000", 1),
            ("99.900000", 4),
        ] {
            l.percentiles.insert(k.to_string(), v);
        }
        let json = serde_json::to_string(&l).unwrap();
        let at = |k: &str| json.find(k).unwrap();
        assert!(at("\"1.000000\"") < at("\"5.000000\""), "{json}");
        assert!(at("\"5.000000\"") < at("\"25.000000\""), "{json}");
        assert!(at("\"99.900000\"") < at("\"99.990000\""), "{json}");
        let back: LatencySummary = serde_json::from_str(&json).unwrap();
        assert_eq!(back, l);
    }
}
