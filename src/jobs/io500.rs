//! `kura suite io500`: an IO500-like suite (not the official harness) as
//! kura jobs, and its score. The phases, their parameters and the score are
//! IO500's (IO500/io500 at io500-isc26_v2-26-g02091cf, commit 02091cf):
//! `src/phase_ior_easy.c` (2 MiB transfers, a file per process),
//! `src/phase_ior_hard.c` (47008-byte transfers in one shared file, 10^7
//! segments), `src/phase_mdtest_easy.c` (empty files, a directory per
//! process, 10^6 per process), `src/phase_mdtest_hard.c` (3901-byte files in
//! one shared directory), the order in `src/phase-definitions.h`, the
//! stonewall of 300 s in `src/phase_dbg.c` with IOR's and mdtest's wear-out
//! (`stoneWallingWearOut=1`), and the score in `src/main.c` (`calc_score`):
//! sqrt(geomean(bandwidth phases, GiB/s) x geomean(metadata phases, kIOPS)).

use std::path::Path;
use std::time::Duration;

use super::fileset::FileSizes;
use super::job::{BlockSize, Job, Rw, SpecError};
use super::options::{Opt, Value};
use super::suites::SuiteTest;

/// IO500's stonewall time (`stonewall-time`, `src/phase_dbg.c`).
pub const STONEWALL: Duration = Duration::from_secs(300);
/// ior-easy's transfer size (`transferSize`, `src/phase_ior_easy.c`).
pub const EASY_TRANSFER: &str = "2m";
/// ior-easy's block size per process (`blockSize`).
pub const EASY_SIZE: &str = "9920000m";
/// ior-hard's transfer and block size (`-t 47008 -b 47008`, `src/phase_ior_hard.c`).
pub const HARD_TRANSFER: u64 = 47008;
/// ior-hard's segments per process (`segmentCount`).
pub const HARD_SEGMENTS: u64 = 10_000_000;
/// mdtest-easy's and mdtest-hard's files per process (`n`).
pub const FILES_PER_RANK: u64 = 1_000_000;
/// mdtest-hard's bytes written and read per file (`-w 3901 -e 3901`).
pub const HARD_FILE_BYTES: u64 = 3901;

/// What a user may shrink for a quick run; IO500's values by default.
#[derive(Debug, Clone, PartialEq)]
pub struct Io500Params {
    pub stonewall: Duration,
    /// ior-easy's transfer size and file size per rank.
    pub easy_transfer: u64,
    pub easy_size: u64,
    /// ior-hard's 47008-byte segments per rank.
    pub hard_segments: u64,
    pub easy_files: u64,
    pub hard_files: u64,
    /// Ranks that run the suite together (1 without MPI).
    pub ranks: u32,
}

/// The score groups of `src/main.c` (`IO500_SCORE_BW`, `IO500_SCORE_MD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// GiB/s.
    Bandwidth,
    /// kIOPS.
    Metadata,
}

/// One phase of IO500's standard list: where kura measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    pub name: &'static str,
    pub group: Group,
    /// The kura test (job) that measures it; `None`: not run by kura.
    pub test: Option<&'static str>,
    /// The operation of that job: `write`, `read`, `create`, `stat`, `delete`.
    pub op: &'static str,
}

const fn phase(name: &'static str, group: Group, test: Option<&'static str>, op: &'static str) -> Phase {
    Phase {
        name,
        group,
        test,
        op,
    }
}

pub const IOR_EASY_WRITE: &str = "ior-easy-write";
pub const IOR_EASY_READ: &str = "ior-easy-read";
pub const IOR_HARD_WRITE: &str = "ior-hard-write";
pub const IOR_HARD_READ: &str = "ior-hard-read";
pub const MDTEST_EASY: &str = "mdtest-easy";
pub const MDTEST_HARD: &str = "mdtest-hard";

/// IO500's scored phases in its order (`src/phase-definitions.h`, the
/// standard run: the optional and unscored phases left out).
pub const PHASES: [Phase; 12] = [
    phase("ior-easy-write", Group::Bandwidth, Some(IOR_EASY_WRITE), "write"),
    phase("mdtest-easy-write", Group::Metadata, Some(MDTEST_EASY), "create"),
    phase("ior-hard-write", Group::Bandwidth, Some(IOR_HARD_WRITE), "write"),
    phase("mdtest-hard-write", Group::Metadata, Some(MDTEST_HARD), "create"),
    phase("find", Group::Metadata, None, ""),
    phase("ior-easy-read", Group::Bandwidth, Some(IOR_EASY_READ), "read"),
    phase("mdtest-easy-stat", Group::Metadata, Some(MDTEST_EASY), "stat"),
    phase("ior-hard-read", Group::Bandwidth, Some(IOR_HARD_READ), "read"),
    phase("mdtest-hard-stat", Group::Metadata, Some(MDTEST_HARD), "stat"),
    phase("mdtest-easy-delete", Group::Metadata, Some(MDTEST_EASY), "delete"),
    phase("mdtest-hard-read", Group::Metadata, Some(MDTEST_HARD), "read"),
    phase("mdtest-hard-delete", Group::Metadata, Some(MDTEST_HARD), "delete"),
];

/// What kura does differently from IO500 on purpose, printed under its table.
pub const DIFFERENCES: &str = "\
IO500-like (not the official harness). Differs on purpose: find is not run
(not in the metadata mean); each mdtest family runs its phases back to back
in one job (create, stat, [read,] delete), not between the ior phases, on
each rank's own files (mdtest -N 1 takes a neighbour's); files have fixed
sizes (--easy-size, --hard-segments), pre-filled when made, and a write
phase ends at the stonewall or at the end of its file.
";

/// The jobs of the suite in the order kura runs them: ior-easy-write,
/// mdtest-easy, ior-hard-write, mdtest-hard, ior-easy-read, ior-hard-read.
/// `dir` holds the files; on many ranks the ior-easy file and the
/// mdtest-easy set are per rank (the cluster layer names them), the
/// ior-hard file and the mdtest-hard set shared, sized here for `ranks`.
pub fn jobs(dir: &Path, p: &Io500Params) -> Result<Vec<SuiteTest>, SpecError> {
    let ranks = u64::from(p.ranks.max(1));
    let stonewall = Value::Duration(p.stonewall);
    let block = |name: &'static str, file: &str, rw: Rw, bs: u64, size: u64| -> Result<Job, SpecError> {
        let mut job = Job {
            name: name.to_string(),
            target: Some(dir.join(file)),
            own_name: true,
            rw,
            ..Job::default()
        };
        let bs = vec![BlockSize {
            bytes: bs,
            weight: 100,
        }];
        job.apply(Opt::Bs, Value::BlockSizes(bs))?;
        job.apply(Opt::Size, Value::Bytes(size))?;
        job.apply(Opt::Passes, Value::Count(1))?;
        // IO500's POSIX API without O_DIRECT, and its caches left alone
        // (`drop-caches = FALSE`, src/phase_opt.c).
        job.apply(Opt::Direct, Value::Bool(false))?;
        job.apply(Opt::KeepCache, Value::Bool(true))?;
        // IOR -e: fsync when the file is closed after writing.
        job.apply(Opt::EndFsync, Value::Bool(rw == Rw::Write))?;
        if rw == Rw::Write {
            job.apply(Opt::Runtime, stonewall.clone())?;
        }
        Ok(job)
    };
    let fileset = |name: &'static str, phases: &str, files: u64, bytes: u64| -> Result<Job, SpecError> {
        let mut job = Job {
            name: name.to_string(),
            target: Some(dir.to_path_buf()),
            ..Job::default()
        };
        job.apply(Opt::Mix, Value::Text(phases.to_string()))?;
        job.apply(Opt::Depth, Value::Count(0))?;
        job.apply(Opt::Files, Value::Count(files))?;
        job.apply(
            Opt::FileSize,
            Value::Text(FileSizes(vec![(bytes, 100)]).to_string()),
        )?;
        job.apply(Opt::Force, Value::Bool(true))?;
        job.apply(Opt::Runtime, stonewall.clone())?;
        Ok(job)
    };
    let easy_file = "kura-io500-easy.dat";
    let hard_file = "kura-io500-hard.dat";
    let hard_size = p.hard_segments * HARD_TRANSFER * ranks;
    let list = [
        (
            IOR_EASY_WRITE,
            block(IOR_EASY_WRITE, easy_file, Rw::Write, p.easy_transfer, p.easy_size)?,
        ),
        (
            MDTEST_EASY,
            fileset(MDTEST_EASY, "phases:create,getattr,delete", p.easy_files, 0)?,
        ),
        (
            IOR_HARD_WRITE,
            block(IOR_HARD_WRITE, hard_file, Rw::Write, HARD_TRANSFER, hard_size)?,
        ),
        (
            MDTEST_HARD,
            fileset(
                MDTEST_HARD,
                "phases:create,getattr,read,delete",
                p.hard_files * ranks,
                HARD_FILE_BYTES,
            )?,
        ),
        (
            IOR_EASY_READ,
            block(IOR_EASY_READ, easy_file, Rw::Read, p.easy_transfer, p.easy_size)?,
        ),
        (
            IOR_HARD_READ,
            block(IOR_HARD_READ, hard_file, Rw::Read, HARD_TRANSFER, hard_size)?,
        ),
    ];
    let mut out = Vec::new();
    for (test, job) in list {
        job.validate()?;
        out.push(SuiteTest { test, job });
    }
    Ok(out)
}

/// Whether the suite's job `test` shares one file or set between the ranks
/// (ior-hard, mdtest-hard) rather than one per rank (ior-easy, mdtest-easy).
pub fn shared(test: &str) -> bool {
    test == IOR_HARD_WRITE || test == IOR_HARD_READ || test == MDTEST_HARD
}

/// Whether the suite's job `test` reads what another host's rank wrote
/// (IOR's `-C -Q 1`, which IO500 gives both ior families: `src/phase_ior_easy.c`,
/// `src/phase_ior_hard.c`).
pub fn reorders(test: &str) -> bool {
    test == IOR_EASY_READ || test == IOR_HARD_READ
}

/// Whether the suite's job `test` is stonewalled (the write phases).
pub fn stonewalled(test: &str) -> bool {
    test == IOR_EASY_WRITE || test == IOR_HARD_WRITE || test == MDTEST_EASY || test == MDTEST_HARD
}

/// IO500's score of one group: the geometric mean of its phases' values
/// above 0 (`calc_score` skips the others), 0 when there are none.
pub fn geomean(values: &[f64]) -> f64 {
    let kept: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    if kept.is_empty() {
        return 0.0;
    }
    kept.iter().product::<f64>().powf(1.0 / kept.len() as f64)
}

/// IO500's total: sqrt(bandwidth score x metadata score).
pub fn score(bandwidth_gib_s: f64, metadata_kiops: f64) -> f64 {
    (bandwidth_gib_s * metadata_kiops).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Io500Params {
        Io500Params {
            stonewall: Duration::from_secs(2),
            easy_transfer: 1 << 20,
            easy_size: 8 << 20,
            hard_segments: 100,
            easy_files: 50,
            hard_files: 40,
            ranks: 2,
        }
    }

    #[test]
    fn the_jobs_follow_io500_order_with_its_parameters() {
        let jobs = jobs(Path::new("/tmp/x"), &params()).unwrap();
        let tests: Vec<&str> = jobs.iter().map(|t| t.test).collect();
        assert_eq!(
            tests,
            [
                IOR_EASY_WRITE,
                MDTEST_EASY,
                IOR_HARD_WRITE,
                MDTEST_HARD,
                IOR_EASY_READ,
                IOR_HARD_READ
            ]
        );
        let hard = &jobs[2].job;
        assert_eq!(hard.max_bs(), 47008);
        assert_eq!(hard.size_bytes, Some(100 * 47008 * 2));
        assert_eq!(hard.runtime, Some(Duration::from_secs(2)));
        assert_eq!(jobs[4].job.runtime, None);
        let md = jobs[3].job.workload.fileset().unwrap().resolve().unwrap();
        assert_eq!(md.total_files(), 80);
        assert!(shared(MDTEST_HARD) && !shared(MDTEST_EASY));
    }

    #[test]
    fn the_score_is_io500s_formula() {
        assert!((geomean(&[2.0, 8.0]) - 4.0).abs() < 1e-12);
        assert_eq!(geomean(&[0.0, -1.0]), 0.0);
        assert!((geomean(&[4.0, 0.0]) - 4.0).abs() < 1e-12);
        assert!((score(4.0, 9.0) - 6.0).abs() < 1e-12);
    }
}
