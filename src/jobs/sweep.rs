//! Block-size x read/write-mix sweeps (seed section 2), and the block sizes
//! and mixes of the SNIA PTS IOPS test as a preset (`iops-matrix-quick`:
//! the matrix alone, without the PTS's purge, preconditioning and rounds).

use super::job::{Job, Rw};
use super::units::format_size;

/// SNIA Solid State Storage PTS 2.0.2, IOPS test (section 7): read shares and block sizes.
pub const PTS_READ_PCTS: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
pub const PTS_BLOCK_SIZES: [u64; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// One point of a sweep: its test name and job.
pub struct SweepPoint {
    pub test: String,
    pub job: Job,
}

pub fn mix_name(read_pct: u8) -> String {
    format!("{}/{}", read_pct, 100 - read_pct)
}

pub fn test_name(bs: u64, read_pct: u8) -> String {
    format!("bs={} mix={}", format_size(bs), mix_name(read_pct))
}

/// What a sweep varies; every combination is a point. Queue depth and
/// threads are named in a point's test only when more than one is swept,
/// so a sweep of block sizes and mixes keeps the test names it always had.
#[derive(Debug, Clone, PartialEq)]
pub struct Axes {
    pub block_sizes: Vec<u64>,
    pub mixes: Vec<u8>,
    pub qds: Vec<u32>,
    pub threads: Vec<u32>,
}

/// The sweep's points, mix by mix, block size by block size, queue depth by
/// queue depth, threads by threads, each `runs` times. An empty axis of
/// queue depths or threads keeps the base job's.
pub fn points(base: &Job, axes: &Axes, random: bool, runs: u32) -> Vec<SweepPoint> {
    let or_base = |values: &[u32], own: u32| match values {
        [] => vec![own],
        _ => values.to_vec(),
    };
    let qds = or_base(&axes.qds, base.qd);
    let threads = or_base(&axes.threads, base.threads);
    let mut out = Vec::new();
    for &read_pct in &axes.mixes {
        for &bs in &axes.block_sizes {
            for &qd in &qds {
                for &t in &threads {
                    let mut test = test_name(bs, read_pct);
                    if qds.len() > 1 {
                        test.push_str(&format!(" qd={qd}"));
                    }
                    if threads.len() > 1 {
                        test.push_str(&format!(" threads={t}"));
                    }
                    let job = Job {
                        qd,
                        threads: t,
                        ..base.clone()
                    };
                    for r in 0..runs {
                        out.push(point(&job, &test, bs, read_pct, random, r));
                    }
                }
            }
        }
    }
    out
}

fn point(base: &Job, test: &str, bs: u64, read_pct: u8, random: bool, run: u32) -> SweepPoint {
    let mut job = base.clone();
    job.rw = match (read_pct, random) {
        (100, true) => Rw::RandRead,
        (0, true) => Rw::RandWrite,
        (_, true) => Rw::RandRw,
        (100, false) => Rw::Read,
        (0, false) => Rw::Write,
        (_, false) => Rw::Rw,
    };
    job.read_pct = read_pct;
    job.bs = vec![super::BlockSize {
        bytes: bs,
        weight: 100,
    }];
    job.name = format!("{test} #{}", run + 1);
    SweepPoint {
        test: test.to_string(),
        job,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(block_sizes: &[u64], mixes: &[u8]) -> Axes {
        Axes {
            block_sizes: block_sizes.to_vec(),
            mixes: mixes.to_vec(),
            qds: vec![1],
            threads: vec![1],
        }
    }

    #[test]
    fn pts_matrix_is_seven_mixes_by_eight_sizes() {
        let p = points(&Job::default(), &axes(&PTS_BLOCK_SIZES, &PTS_READ_PCTS), true, 1);
        assert_eq!(p.len(), 56);
        assert_eq!(p[0].test, "bs=1m mix=100/0");
        assert_eq!(p[0].job.rw, Rw::RandRead);
        assert_eq!(p[8 + 7].test, "bs=512 mix=95/5");
        assert_eq!(p[8 + 7].job.rw, Rw::RandRw);
        assert_eq!(p[8 + 7].job.read_pct, 95);
        assert_eq!(p[55].job.rw, Rw::RandWrite);
    }

    #[test]
    fn one_queue_depth_sets_every_point_and_keeps_the_old_test_names() {
        let a = Axes {
            qds: vec![8],
            threads: vec![],
            ..axes(&[4096], &[100])
        };
        let base = Job {
            threads: 2,
            ..Job::default()
        };
        let p = points(&base, &a, true, 2);
        let names: Vec<&str> = p.iter().map(|p| p.job.name.as_str()).collect();
        assert_eq!(names, ["bs=4k mix=100/0 #1", "bs=4k mix=100/0 #2"]);
        assert_eq!((p[0].job.qd, p[0].job.threads), (8, 2));
    }

    #[test]
    fn several_queue_depths_and_threads_are_points_of_their_own() {
        let a = Axes {
            qds: vec![1, 4],
            threads: vec![1, 2],
            ..axes(&[4096], &[0])
        };
        let p = points(&Job::default(), &a, false, 1);
        let tests: Vec<&str> = p.iter().map(|p| p.test.as_str()).collect();
        assert_eq!(
            tests,
            [
                "bs=4k mix=0/100 qd=1 threads=1",
                "bs=4k mix=0/100 qd=1 threads=2",
                "bs=4k mix=0/100 qd=4 threads=1",
                "bs=4k mix=0/100 qd=4 threads=2",
            ]
        );
        let loads: Vec<(u32, u32)> = p.iter().map(|p| (p.job.qd, p.job.threads)).collect();
        assert_eq!(loads, [(1, 1), (1, 2), (4, 1), (4, 2)]);
        assert!(p.iter().all(|p| p.job.rw == Rw::Write));
    }
}
