//! Stored-run fixtures for the report snapshot tests: fixed numbers, no I/O.

use crate::jobs::{BlockSize, Job, Rw};
use crate::metrics::histogram::{encode, new_histogram, record, summarize};
use crate::metrics::{DirectionResult, HostFacts, JobResult, RunResult, TargetFacts, TargetKind};

/// A direction that did `ops` I/Os of `bs` bytes in one second, every one taking `lat_ns`.
pub fn direction(ops: u64, bs: u64, lat_ns: &[u64]) -> DirectionResult {
    let mut h = new_histogram();
    for (i, _) in (0..ops).enumerate() {
        record(&mut h, lat_ns[i % lat_ns.len()]);
    }
    DirectionResult {
        ops,
        bytes: ops * bs,
        errors: 0,
        error_samples: vec![],
        iops: ops as f64,
        bytes_per_sec: (ops * bs) as f64,
        lat_ns: summarize(&h),
        histogram: encode(&h),
    }
}

pub fn job(test: &str, rw: Rw, bs: u64, read_pct: u8, read: Option<u64>, write: Option<u64>) -> JobResult {
    let lat = [100_000, 200_000, 400_000];
    JobResult {
        job: Job {
            name: test.to_string(),
            rw,
            read_pct,
            bs: vec![BlockSize {
                bytes: bs,
                weight: 100,
            }],
            ..Job::default()
        },
        test: Some(test.to_string()),
        target: TargetFacts {
            path: "/mnt/ssd/kura-test.dat".into(),
            kind: TargetKind::File,
            fs_type: Some("ext4".into()),
            device: Some("sdb".into()),
            device_model: None,
            rotational: Some(false),
            size_bytes: 1 << 30,
            logical_block_bytes: 512,
            created: true,
        },
        engine: "io_uring".into(),
        measure_start_unix_ms: 0,
        elapsed_ns: 1_000_000_000,
        ramp_ns: 0,
        read: read.map(|ops| direction(ops, bs, &lat)),
        write: write.map(|ops| direction(ops, bs, &lat)),
        operations: Default::default(),
        syncs: 0,
        cpu_user_ns: 100_000_000,
        cpu_system_ns: 150_000_000,
        series: vec![],
        incomplete: false,
        cluster: None,
    }
}

pub fn run(suite: &str, jobs: Vec<JobResult>) -> RunResult {
    RunResult {
        id: Some(7),
        kura_version: "0.1.0".into(),
        started_unix_s: 1_795_316_411,
        label: Some("ssd".into()),
        price: None,
        suite: Some(suite.into()),
        hosts: Vec::new(),
        host: HostFacts::default(),
        jobs,
        incomplete: false,
        warnings: vec![],
    }
}
