//! The stored shape of a run: what was run, where, and what was measured.
//! Units are in the field names: bytes, nanoseconds, operations.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::spec::Job;

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
    pub suite: Option<crate::spec::suites::SuiteKind>,
    pub host: HostFacts,
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
}

/// One job's measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// The job as resolved, every parameter, so the run can be repeated.
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
    /// fdatasync calls made (fsync_every).
    pub syncs: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    pub series: Vec<IntervalPoint>,
    pub incomplete: bool,
}

impl JobResult {
    pub fn directions(&self) -> impl Iterator<Item = (&'static str, &DirectionResult)> {
        [("read", self.read.as_ref()), ("write", self.write.as_ref())]
            .into_iter()
            .filter_map(|(n, d)| d.map(|d| (n, d)))
    }
    pub fn total_ops(&self) -> u64 {
        self.directions().map(|(_, d)| d.ops).sum()
    }
}

/// Reads or writes of one job.
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
    /// Keys are percentiles as fio writes them: "50.000000", "99.900000".
    pub percentiles: BTreeMap<String, u64>,
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
}
