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
            identity: None,
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
        device_io: None,
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
        interleaved_with: Vec::new(),
        host: HostFacts::default(),
        jobs,
        incomplete: false,
        warnings: vec![],
    }
}

/// A `kura suite pts --scale` run as stored: IOPS (4k and 1m, all writes
/// and all reads) in 6 rounds, the tracked 4k write point level from round 2,
/// TP 1m (read and write) and LAT (4k, both ways) in 5 rounds each, each
/// test purged; a WS job with a 10-period series; and the scale's warning.
pub fn pts_run() -> RunResult {
    use crate::jobs::Tracked;
    use crate::metrics::steady::{Rounds, window};
    use crate::metrics::{IntervalPoint, Warning};
    let mut jobs = Vec::new();
    let mut warnings = vec![Warning::PtsNotConforming { scale: 0.001 }];
    // (test, rounds, tracked variable, its points as (rw, bs, read %)).
    type Points = &'static [(Rw, u64, u8)];
    let tests: [(&str, usize, Tracked, Points); 3] = [
        (
            "IOPS",
            6,
            Tracked::Iops,
            &[
                (Rw::RandWrite, 1 << 20, 0),
                (Rw::RandRead, 1 << 20, 100),
                (Rw::RandWrite, 4096, 0),
                (Rw::RandRead, 4096, 100),
            ],
        ),
        (
            "TP 1m",
            5,
            Tracked::Bw,
            &[(Rw::Read, 1 << 20, 100), (Rw::Write, 1 << 20, 0)],
        ),
        (
            "LAT",
            5,
            Tracked::Lat,
            &[(Rw::RandRead, 4096, 100), (Rw::RandWrite, 4096, 0)],
        ),
    ];
    for (test, rounds, tracked, points) in tests {
        jobs.push(job(
            &format!("{test} purge blkdiscard"),
            Rw::Trim,
            16 << 20,
            0,
            None,
            None,
        ));
        jobs.push(job(
            &format!("{test} WIPC"),
            Rw::Write,
            128 << 10,
            0,
            None,
            Some(10),
        ));
        let mut values = Vec::new();
        for round in 1..=rounds {
            for (rw, bs, read_pct) in points {
                // Fast in round 1 (fresh), then level; reads and 1m a little apart.
                let ops = if round == 1 { 2000 } else { 1000 } / if *bs > 4096 { 10 } else { 1 }
                    + u64::from(*read_pct);
                let name = format!(
                    "{test} bs={} mix={}/{}",
                    crate::jobs::units::format_size(*bs),
                    read_pct,
                    100 - read_pct
                );
                let (r, w) = if *read_pct == 100 {
                    (Some(ops), None)
                } else {
                    (None, Some(ops))
                };
                let j = job(&format!("{name} round {round}"), *rw, *bs, *read_pct, r, w);
                let tracked_point = if test.starts_with("TP") {
                    *read_pct == 0
                } else {
                    *bs == 4096 && *read_pct == 0
                };
                if tracked_point {
                    values.push(crate::metrics::steady::value_of(tracked, &j));
                }
                jobs.push(j);
            }
        }
        let tracked_point = match test {
            "TP 1m" => "TP 1m bs=1m mix=0/100".to_string(),
            _ => format!("{test} bs=4k mix=0/100"),
        };
        let w = window(&values);
        let steady = w.as_ref().is_some_and(|w| w.steady());
        warnings.push(Warning::Rounds {
            job: tracked_point,
            rounds: Rounds {
                tracked,
                values,
                window: w,
                steady,
            },
        });
    }
    jobs.push(job("WS purge blkdiscard", Rw::Trim, 16 << 20, 0, None, None));
    let mut ws = job("WS RND 4k W100", Rw::RandWrite, 4096, 0, None, Some(10_000));
    ws.series = (0..10u64)
        .map(|i| {
            // Falling from 2000 to 1000 IOPS over the first half, then level.
            let iops = 2000.0 - 200.0 * i.min(5) as f64;
            IntervalPoint {
                start_ns: i * 1_000_000_000,
                duration_ns: 1_000_000_000,
                write_ops: iops as u64,
                bytes: iops as u64 * 4096,
                iops,
                bytes_per_sec: iops * 4096.0,
                lat_mean_ns: 1e9 / iops,
                ..IntervalPoint::default()
            }
        })
        .collect();
    jobs.push(ws);
    let mut r = run("pts", jobs);
    r.warnings = warnings;
    r
}
