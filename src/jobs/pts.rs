//! The SNIA Solid State Storage Performance Test Specification (PTS-E/C
//! 2.0.2)'s IOPS, Throughput, Latency and Write Saturation tests as one
//! suite's jobs: each test purged, preconditioned, then its points repeated
//! in rounds until the spec's tracked point is steady. Where each value comes
//! from, and where kura differs, is docs/pts.md.

use std::fmt;
use std::time::Duration;

use super::job::{BlockSize, Job, Rw, SpecError};
use super::precondition::Precondition;
use super::sweep::{Axes, PTS_BLOCK_SIZES, PTS_READ_PCTS, points};
use super::units::format_size;
use crate::jobs::Tracked;

/// Each point of a round runs one minute (the SNIA's IOPS, TP and LAT test
/// pages: "Each Block Size R/W combination is tested for one minute").
pub const ROUND_TIME: Duration = Duration::from_secs(60);
/// Write Saturation runs until 4x the user capacity is written or 24 hours
/// pass (TKperf `SsdWriteSatTest.runRounds`: `maxRounds = 60*24` one-minute
/// rounds, stop at `devSzB * 4`).
pub const WS_CAPACITY_TIMES: u64 = 4;
pub const WS_TIME: Duration = Duration::from_secs(24 * 3600);
/// Latency: 3 block sizes x 3 mixes at one thread, queue depth 1 (SNIA LAT
/// page; TKperf `SsdLatencyTest`: bs 8k, 4k, 512; rwmixread 100, 65, 0).
pub const LAT_BLOCK_SIZES: [u64; 3] = [8192, 4096, 512];
pub const LAT_READ_PCTS: [u8; 3] = [100, 65, 0];
/// Throughput: sequential 1024 KiB and 128 KiB, 100 % read and 100 % write
/// (SNIA TP page: PTS-E both sizes, PTS-C 1024 KiB only).
pub const TP_BLOCK_SIZES: [u64; 2] = [1 << 20, 128 << 10];
pub const TP_READ_PCTS: [u8; 2] = [100, 0];
/// Blocks of the purge's discards: one BLKDISCARD each.
const PURGE_BS: u64 = 16 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtsTest {
    Iops,
    Tp,
    Lat,
    Ws,
}

impl PtsTest {
    pub const ALL: [PtsTest; 4] = [PtsTest::Iops, PtsTest::Tp, PtsTest::Lat, PtsTest::Ws];

    pub fn name(self) -> &'static str {
        match self {
            PtsTest::Iops => "iops",
            PtsTest::Tp => "tp",
            PtsTest::Lat => "lat",
            PtsTest::Ws => "ws",
        }
    }

    /// `--tests`: a comma list of iops, tp, lat, ws (or all), run in the spec's order.
    pub fn parse_list(text: &str) -> Result<Vec<PtsTest>, String> {
        let mut asked = Vec::new();
        for item in text.split(',').map(str::trim) {
            match item.to_ascii_lowercase().as_str() {
                "all" => asked.extend(PtsTest::ALL),
                "iops" => asked.push(PtsTest::Iops),
                "tp" | "throughput" => asked.push(PtsTest::Tp),
                "lat" | "latency" => asked.push(PtsTest::Lat),
                "ws" | "wsat" => asked.push(PtsTest::Ws),
                other => {
                    return Err(format!(
                        "--tests: '{other}' is not a PTS test (known: iops, tp, lat, ws, all)"
                    ));
                }
            }
        }
        Ok(PtsTest::ALL.into_iter().filter(|t| asked.contains(t)).collect())
    }
}

impl fmt::Display for PtsTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PtsTest::Iops => "IOPS",
            PtsTest::Tp => "TP",
            PtsTest::Lat => "LAT",
            PtsTest::Ws => "WS",
        })
    }
}

/// Consecutive jobs of a suite that run as one round, repeated until every
/// point of `tracked` is steady by `figure` (metrics::steady) or 25 rounds ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixRounds {
    /// Jobs in a round, this one and those after it.
    pub points: usize,
    /// The tracked points' places in the round.
    pub tracked: TrackedPoints,
    pub figure: Tracked,
}

/// Which points of a round are tracked: bit `i` for the round's point `i`
/// (a PTS round has at most 56 points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrackedPoints(u64);

impl TrackedPoints {
    pub fn of(indices: impl IntoIterator<Item = usize>) -> TrackedPoints {
        TrackedPoints(indices.into_iter().filter(|&i| i < 64).fold(0, |m, i| m | 1 << i))
    }

    pub fn indices(self) -> Vec<usize> {
        (0..64).filter(|i| self.0 & (1 << i) != 0).collect()
    }
}

/// The IOPS test's steady-state tracking variables (PTS 2.0.2 IOPS pseudo
/// code step 3.2.1.2.2: RND 4 KiB 0/100, RND 64 KiB 65:35 and RND 1024 KiB
/// 100/0, "where all Steady State Tracking Variables meet the Steady State
/// requirement"; PTS-E 1.1 tracked the first alone), as (block size, read %).
const IOPS_TRACKED: [(u64, u8); 3] = [(4096, 0), (64 << 10, 65), (1 << 20, 100)];

/// What the suite is asked for.
#[derive(Debug, Clone)]
pub struct PtsPlan {
    pub tests: Vec<PtsTest>,
    /// 1 is the spec; less shrinks round time and volumes ("not conforming").
    pub scale: f64,
    /// The target can be purged (a block device); a file cannot.
    pub purge: bool,
    /// The span written and measured, bytes (the user capacity).
    pub span_bytes: u64,
}

/// One job of the suite: its test, and the rounds it starts.
#[derive(Debug, Clone)]
pub struct PtsStep {
    pub test: String,
    pub job: Job,
    pub rounds: Option<MatrixRounds>,
}

/// `--scale`: a fraction above 0, at most 1.
pub fn parse_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!(
            "--scale: '{text}' is not valid: expected a fraction above 0, at most 1"
        )),
    }
}

/// The purge's stored test name, saying which purge it is.
pub const PURGE_METHOD: &str = "blkdiscard";

/// Whether a job of the suite prepares a test (its purge or its
/// workload-independent preconditioning) rather than measures it.
pub fn is_preparation(test: &str) -> bool {
    test.ends_with(&format!(" purge {PURGE_METHOD}")) || test.ends_with(" WIPC")
}

/// The suite's jobs, test by test: purge, workload-independent
/// preconditioning, then the test's rounds (Write Saturation: one long job
/// whose interval series is its curve).
pub fn pts_jobs(base: &Job, plan: &PtsPlan) -> Result<Vec<PtsStep>, SpecError> {
    let round_time = scaled_time(ROUND_TIME, plan.scale);
    let mut base = base.clone();
    base.direct = true;
    base.runtime = Some(round_time);
    base.ramp = Duration::ZERO;
    base.size_bytes = Some(plan.span_bytes);
    let mut out = Vec::new();
    for &test in &plan.tests {
        match test {
            PtsTest::Iops => {
                let axes = axes(&PTS_BLOCK_SIZES, &PTS_READ_PCTS, &base);
                let matrix = named(points(&base, &axes, true, 1), "IOPS");
                prepared(&mut out, "IOPS", &base, plan);
                rounds(&mut out, matrix, &IOPS_TRACKED, Tracked::Iops);
            }
            PtsTest::Tp => {
                // One sequential stream: threads of kura's cover the same span, so
                // more would read and write the same blocks side by side. PTS 2.0.1's
                // TP (p.36, as py-sss-pts and cloudharmony run it) is TC 1, QD 32.
                let one = Job {
                    threads: 1,
                    ..base.clone()
                };
                // Each block size is a test of its own, purged first (SNIA TP page; TKperf purges per size).
                for bs in TP_BLOCK_SIZES {
                    let name = format!("TP {}", format_size(bs));
                    let axes = axes(&[bs], &TP_READ_PCTS, &one);
                    let pair = named(points(&one, &axes, false, 1), &name);
                    prepared(&mut out, &name, &one, plan);
                    rounds(&mut out, pair, &[(bs, 0)], Tracked::Bw);
                }
            }
            PtsTest::Lat => {
                let one = Job {
                    qd: 1,
                    threads: 1,
                    ..base.clone()
                };
                let axes = axes(&LAT_BLOCK_SIZES, &LAT_READ_PCTS, &one);
                let matrix = named(points(&one, &axes, true, 1), "LAT");
                // Preconditioned at the tester's QD and TC, measured at 1 x 1
                // (cloudharmony's and TKperf's LAT; the spec's text on it was not found).
                prepared(&mut out, "LAT", &base, plan);
                rounds(&mut out, matrix, &[(4096, 0)], Tracked::Lat);
            }
            PtsTest::Ws => {
                if plan.purge {
                    out.push(purge("WS", &base));
                }
                let mut job = base.clone();
                job.name = "WS RND 4k W100".into();
                job.rw = Rw::RandWrite;
                job.read_pct = 0;
                job.bs = vec![BlockSize {
                    bytes: 4096,
                    weight: 100,
                }];
                job.runtime = Some(scaled_time(WS_TIME, plan.scale));
                job.io_size_bytes = Some(scaled_bytes(
                    plan.span_bytes * WS_CAPACITY_TIMES,
                    plan.scale,
                    4096,
                ));
                // TKperf's one-minute rounds, as the job's interval series.
                job.interval = round_time.min(job.interval.max(Duration::from_millis(100)));
                out.push(PtsStep {
                    test: job.name.clone(),
                    job,
                    rounds: None,
                });
            }
        }
    }
    for s in &out {
        s.job.validate()?;
    }
    Ok(out)
}

fn axes(block_sizes: &[u64], mixes: &[u8], base: &Job) -> Axes {
    Axes {
        block_sizes: block_sizes.to_vec(),
        mixes: mixes.to_vec(),
        qds: vec![base.qd],
        threads: vec![base.threads],
    }
}

/// A sweep's points named as the test's: `IOPS bs=4k mix=0/100`, one job each.
fn named(points: Vec<super::sweep::SweepPoint>, test: &str) -> Vec<PtsStep> {
    points
        .into_iter()
        .map(|p| {
            let name = format!("{test} {}", p.test);
            let mut job = p.job;
            job.name = name.clone();
            PtsStep {
                test: name,
                job,
                rounds: None,
            }
        })
        .collect()
}

/// Purge (when the target allows one) and workload-independent
/// preconditioning before `test`: 2x the span in 128 KiB sequential writes
/// at the test's own QD and TC (PTS 2.0.2 IOPS pseudo code, steps 2.1-2.2,
/// and step 3.1: the stimulus's "OIO/Thread: Same as in step 2.1"). kura's
/// threads each cover the whole span, so with more than one each writes a
/// slice of its own (fio's `offset_increment`): the device is written twice
/// over, not once per thread.
fn prepared(out: &mut Vec<PtsStep>, test: &str, base: &Job, plan: &PtsPlan) {
    if plan.purge {
        out.push(purge(test, base));
    }
    const WIPC_BS: u64 = 128 << 10;
    let mut wipc = Precondition::Seq { passes: 2 }.job_before(base);
    wipc.name = format!("{test} WIPC");
    wipc.qd = base.qd;
    wipc.threads = base.threads;
    wipc.passes = None;
    wipc.runtime = None;
    wipc.io_size_bytes = Some(scaled_bytes(plan.span_bytes * 2, plan.scale, WIPC_BS));
    let slice = plan.span_bytes / u64::from(base.threads) / WIPC_BS * WIPC_BS;
    if base.threads > 1 && slice == 0 {
        // A span smaller than a block per thread: one thread writes it all.
        wipc.threads = 1;
    } else if base.threads > 1 {
        wipc.offset_increment_bytes = slice;
    }
    out.push(PtsStep {
        test: wipc.name.clone(),
        job: wipc,
        rounds: None,
    });
}

/// The whole span discarded, one BLKDISCARD per 16 MiB, as `blkdiscard` does it.
fn purge(test: &str, base: &Job) -> PtsStep {
    let mut job = base.clone();
    job.name = format!("{test} purge {PURGE_METHOD}");
    job.rw = Rw::Trim;
    job.read_pct = 0;
    job.bs = vec![BlockSize {
        bytes: PURGE_BS.min(base.size_bytes.unwrap_or(PURGE_BS)),
        weight: 100,
    }];
    job.qd = 1;
    job.threads = 1;
    job.runtime = None;
    job.passes = Some(1);
    PtsStep {
        test: job.name.clone(),
        job,
        rounds: None,
    }
}

/// The round's points, the first marked with the rounds and the points tracked.
fn rounds(out: &mut Vec<PtsStep>, mut round: Vec<PtsStep>, tracked: &[(u64, u8)], figure: Tracked) {
    let at = tracked.iter().filter_map(|&(bs, read_pct)| {
        round
            .iter()
            .position(|s| s.job.max_bs() == bs && s.job.read_pct == read_pct)
    });
    let tracked = TrackedPoints::of(at);
    let points = round.len();
    if let Some(first) = round.first_mut() {
        first.rounds = Some(MatrixRounds {
            points,
            tracked,
            figure,
        });
    }
    out.extend(round);
}

fn scaled_time(d: Duration, scale: f64) -> Duration {
    // At least 10 ms: a point must complete some I/O to be measured at all.
    d.mul_f64(scale).max(Duration::from_millis(10))
}

fn scaled_bytes(bytes: u64, scale: f64, unit: u64) -> u64 {
    (((bytes as f64 * scale) as u64) / unit).max(1) * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(tests: &[PtsTest], scale: f64, purge: bool) -> PtsPlan {
        PtsPlan {
            tests: tests.to_vec(),
            scale,
            purge,
            span_bytes: 64 << 20,
        }
    }

    #[test]
    fn iops_is_purge_wipc_then_a_56_point_round_tracking_the_spec_s_three_points() {
        let mut base = Job::default();
        base.set("target", "/dev/null-device").unwrap();
        base.set("qd", "32").unwrap();
        base.set("threads", "4").unwrap();
        let steps = pts_jobs(&base, &plan(&[PtsTest::Iops], 1.0, true)).unwrap();
        assert!(steps[2..].iter().all(|s| (s.job.qd, s.job.threads) == (32, 4)));
        assert_eq!(steps.len(), 2 + 56);
        assert_eq!(steps[0].job.rw, Rw::Trim);
        assert_eq!(steps[0].test, "IOPS purge blkdiscard");
        let wipc = &steps[1].job;
        assert_eq!((wipc.rw, wipc.io_size_bytes), (Rw::Write, Some(128 << 20)));
        assert_eq!(wipc.bs[0].bytes, 128 << 10);
        // The stimulus's QD and TC; four threads, each a quarter of the span.
        assert_eq!((wipc.qd, wipc.threads), (32, 4));
        assert_eq!(wipc.offset_increment_bytes, 16 << 20);
        // A span of less than a block per thread: one thread, no slices.
        let tiny = PtsPlan {
            span_bytes: 1 << 20,
            ..plan(&[PtsTest::Iops], 1.0, true)
        };
        base.set("threads", "16").unwrap();
        let steps = pts_jobs(&base, &tiny).unwrap();
        assert_eq!(
            (steps[1].job.threads, steps[1].job.offset_increment_bytes),
            (1, 0)
        );
        let r = steps[2].rounds.unwrap();
        assert_eq!(r.points, 56);
        let tracked: Vec<_> = r
            .tracked
            .indices()
            .into_iter()
            .map(|i| {
                let j = &steps[2 + i].job;
                (j.max_bs(), j.read_pct)
            })
            .collect();
        // Mixes run from all reads down, block sizes from 1024 KiB down: the order they run in.
        assert_eq!(tracked, [(1 << 20, 100), (64 << 10, 65), (4096, 0)]);
        assert_eq!(steps[2 + r.tracked.indices()[2]].job.rw, Rw::RandWrite);
        assert_eq!(steps[2].job.runtime, Some(ROUND_TIME));
        assert!(steps[3..].iter().all(|s| s.rounds.is_none()));
    }

    #[test]
    fn scale_shrinks_round_time_and_volumes_and_a_file_gets_no_purge() {
        let mut base = Job::default();
        base.set("threads", "2").unwrap();
        let all = PtsTest::parse_list("ws,lat,iops,tp").unwrap();
        assert_eq!(all, PtsTest::ALL);
        let steps = pts_jobs(&base, &plan(&all, 0.01, false)).unwrap();
        assert!(steps.iter().all(|s| s.job.rw != Rw::Trim));
        let wipc = steps.iter().find(|s| s.test == "IOPS WIPC").unwrap();
        assert_eq!(
            wipc.job.io_size_bytes,
            Some(((128u64 << 20) / 100 / (128 << 10)) * (128 << 10))
        );
        let lat = steps.iter().find(|s| s.test.starts_with("LAT bs")).unwrap();
        assert_eq!((lat.job.qd, lat.job.threads), (1, 1));
        let lat_wipc = steps.iter().find(|s| s.test == "LAT WIPC").unwrap();
        assert_eq!((lat_wipc.job.qd, lat_wipc.job.threads), (base.qd, base.threads));
        assert!(
            steps
                .iter()
                .filter(|s| s.test.starts_with("TP "))
                .all(|s| s.job.threads == 1)
        );
        assert_eq!(lat.job.runtime, Some(Duration::from_millis(600)));
        let ws = steps.last().unwrap();
        assert_eq!(ws.job.runtime, Some(Duration::from_secs(864)));
        assert_eq!(ws.job.io_size_bytes, Some((256u64 << 20) / 100 / 4096 * 4096));
        let tp: Vec<_> = steps
            .iter()
            .filter_map(|s| s.rounds.map(|r| (s.test.clone(), r)))
            .collect();
        assert_eq!(tp.len(), 4, "{tp:?}");
        assert!(PtsTest::parse_list("iops,bogus").is_err());
        assert!(parse_scale("0").is_err() && parse_scale("2").is_err());
    }
}
