//! The built-in suites beside CrystalDiskMark's profiles (presets.rs): which
//! suite made a run (`SuiteKind`, stored with it under today's names), and
//! tiobench's four tests as jobs; bonnie's sizes read by the option
//! table's parser under bonnie's own rules (`flag_text`).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::job::{Job, Rw, SpecError};
use super::options::{Opt, Value};
use super::presets::{MarkDir, Profile};

/// The built-in suite (or importer) that produced a run. Stored as the text
/// kura has always written (`mark:default`, `sweep`, `tiobench`, ...), so
/// every stored run loads; a name this kura does not know stays `Other`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum SuiteKind {
    /// `kura mark`, with its profile (`mark:default`; plain `mark` without one).
    Mark(Option<String>),
    Sweep,
    Tiobench,
    Bonnie,
    /// A vdbench parameter file run with `kura run -f`.
    Vdbench,
    /// `kura import fio`.
    ImportFio,
    Other(String),
    /// `kura suite db`.
    Db,
    /// `kura suite io500` (IO500-like, docs/io500.md).
    Io500,
    /// `kura suite pts` (SNIA PTS 2.0.2, docs/pts.md).
    Pts,
}

impl SuiteKind {
    pub fn parse(text: &str) -> SuiteKind {
        match text {
            "mark" => SuiteKind::Mark(None),
            "sweep" => SuiteKind::Sweep,
            "tiobench" => SuiteKind::Tiobench,
            "bonnie" => SuiteKind::Bonnie,
            "vdbench" => SuiteKind::Vdbench,
            "import:fio" => SuiteKind::ImportFio,
            "db" => SuiteKind::Db,
            "io500" => SuiteKind::Io500,
            "pts" => SuiteKind::Pts,
            _ => match text.strip_prefix("mark:") {
                Some(profile) => SuiteKind::Mark(Some(profile.to_string())),
                None => SuiteKind::Other(text.to_string()),
            },
        }
    }

    /// The suite's family without its variant: `mark` for `mark:peak`.
    pub fn family(&self) -> &str {
        match self {
            SuiteKind::Mark(_) => "mark",
            SuiteKind::Sweep => "sweep",
            SuiteKind::Tiobench => "tiobench",
            SuiteKind::Bonnie => "bonnie",
            SuiteKind::Vdbench => "vdbench",
            SuiteKind::ImportFio => "import",
            SuiteKind::Other(s) => s.split_once(':').map_or(s.as_str(), |(name, _)| name),
            SuiteKind::Db => "db",
            SuiteKind::Io500 => "io500",
            SuiteKind::Pts => "pts",
        }
    }
}

impl fmt::Display for SuiteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuiteKind::Mark(Some(profile)) => write!(f, "mark:{profile}"),
            SuiteKind::Mark(None) => f.write_str("mark"),
            SuiteKind::ImportFio => f.write_str("import:fio"),
            SuiteKind::Other(s) => f.write_str(s),
            other => f.write_str(other.family()),
        }
    }
}

impl From<String> for SuiteKind {
    fn from(text: String) -> SuiteKind {
        SuiteKind::parse(&text)
    }
}

impl From<&str> for SuiteKind {
    fn from(text: &str) -> SuiteKind {
        SuiteKind::parse(text)
    }
}

impl From<SuiteKind> for String {
    fn from(kind: SuiteKind) -> String {
        kind.to_string()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("--random-ops: {ops} random operations cannot be shared by {threads} threads")]
    TooFewRandomOps { ops: u64, threads: u64 },
    #[error(transparent)]
    Job(#[from] SpecError),
    #[error("{test}: {source}")]
    Test { test: &'static str, source: SpecError },
}

/// A suite's flag read by the option table's parser for `opt`, so its units
/// and its words for a bad value are the table's; the error names the flag
/// (`--chunk`), not the key (`bs`). Bounds are the suite's to add: a suite
/// may take what the table would not (`--size 0` skips bonnie's I/O tests).
pub fn flag_text(flag: &str, opt: Opt, text: &str) -> Result<Value, String> {
    opt.def().parse(text).map_err(|e| flag_error(flag, text, e))
}

/// The table's error with the flag in place of the key, quoting what was typed.
fn flag_error(flag: &str, text: &str, e: SpecError) -> String {
    match e {
        SpecError::Unit { source, .. } => format!("{flag}: {source}"),
        SpecError::Invalid { why, .. } => format!("{flag}: '{text}' is not valid: {why}"),
        SpecError::UnknownKey(_) => format!("{flag}: {e}"),
    }
}

/// `kura mark`'s jobs in CrystalDiskMark 9's order: every test's read, then
/// every test's write, then (Mix profiles) every test mixed; `runs` scored
/// passes each. The first pass of each starts with a ramp as long as its
/// measurement: CrystalDiskMark's unscored preparation pass (`DiskSpd`, j = 0).
pub fn mark_jobs(profile: &Profile, base: &Job, runs: u32) -> Result<Vec<SuiteTest>, SuiteError> {
    let tests = profile.tests();
    let mut dirs = vec![MarkDir::Read, MarkDir::Write];
    if profile.mix {
        dirs.push(MarkDir::Mix);
    }
    let mut jobs = Vec::new();
    for dir in dirs {
        for test in &tests {
            for r in 0..runs {
                let mut job = test.job(base, dir);
                job.name = format!("{} #{}", job.name, r + 1);
                if r == 0 {
                    job.ramp = job.runtime.unwrap_or(crate::jobs::job::DEFAULT_RUNTIME);
                }
                job.validate().map_err(|source| SuiteError::Test {
                    test: test.name,
                    source,
                })?;
                jobs.push(SuiteTest { test: test.name, job });
            }
        }
    }
    Ok(jobs)
}

/// One test of a suite as a job; the test name groups its repetitions.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteTest {
    pub test: &'static str,
    pub job: Job,
}

/// What kura's tiobench does differently from tiotest on purpose, printed under its table.
pub const TIOBENCH_DIFFERENCES: &str = "\
Differs from tiotest on purpose: --file-size is per thread (tiotest -f;
tiobench.pl's --size is the total); new files are pre-filled with random
data (tiotest ftruncates them).
";

/// tiobench's four tests, in the order tiotest runs them.
pub const TIOBENCH_TESTS: [(&str, Rw); 4] = [
    ("Sequential Write", Rw::Write),
    ("Random Write", Rw::RandWrite),
    ("Sequential Read", Rw::Read),
    ("Random Read", Rw::RandRead),
];

/// One job of a tiobench run and the test it repeats.
#[derive(Debug, Clone, PartialEq)]
pub struct TiobenchJob {
    pub test: String,
    pub job: Job,
}

/// The stored test name: tiobench's, with the thread count when a run has
/// several (`Random Read threads=4`), as a sweep names its points, so each
/// count is a test of its own wherever tests are matched (compare, tables).
pub fn tiobench_test_name(test: &str, threads: u32, several: bool) -> String {
    match several {
        true => format!("{test} threads={threads}"),
        false => test.to_string(),
    }
}

/// tiobench's test of a stored test name, without its thread count.
pub fn tiobench_test_of(name: &str) -> &str {
    name.split_once(" threads=").map_or(name, |(test, _)| test)
}

/// tiobench's four tests for each thread count in turn, `runs` times each;
/// each thread has its own file.
///
/// As tiotest.c and tiobench.pl (mkuoppal/tiobench at 11c965c, tiotest
/// v0.4.2) run them:
/// - tiobench.pl runs tiotest once per thread count, in the order given
///   (`foreach $thread (@threads)`), and `--numruns` times in a row for
///   each (`foreach $run_number (1..$num_runs)`); each tiotest run does the
///   four tests in its order (write, random write, read, random read);
/// - every test ends with fsync and close inside the timed part
///   (`do_generic_test`), so the write tests include the flush;
/// - the page cache is not dropped between tests (tiotest drops it only
///   with `-F`), so the reads find what the writes left in memory;
/// - `--random-ops` is for all threads together: tiobench.pl passes
///   `-r int(random/threads)` to each thread.
///
/// On purpose, kura keeps `--file-size` per thread (tiotest's `-f`, where
/// tiobench.pl's `--size` is the total) and pre-fills new files with random
/// data, where tiotest only `ftruncate`s them; `TIOBENCH_DIFFERENCES` says so in the output.
pub fn tiobench_jobs(
    base: &Job,
    thread_counts: &[u32],
    random_ops: u64,
    runs: u32,
) -> Result<Vec<TiobenchJob>, SuiteError> {
    let several = thread_counts.len() > 1;
    let mut jobs = Vec::new();
    for &count in thread_counts {
        let threads = count as u64;
        let file_bytes = base.size_bytes.unwrap_or(0);
        // tiobench.pl: `my $thread_rand=int($random_ops/$thread)`.
        let per_thread = random_ops / threads;
        if per_thread == 0 {
            return Err(SuiteError::TooFewRandomOps {
                ops: random_ops,
                threads,
            });
        }
        for r in 0..runs {
            for (test, rw) in TIOBENCH_TESTS {
                let test = tiobench_test_name(test, count, several);
                let mut job = Job {
                    rw,
                    threads: count,
                    name: format!("{test} #{}", r + 1),
                    ..base.clone()
                };
                if rw.is_random() {
                    job.io_count = Some(per_thread * threads);
                } else {
                    job.io_size_bytes = Some(file_bytes * threads);
                }
                // tiotest never drops the cache unless told to (-F), and times fsync and close.
                job.keep_cache = !job.direct;
                job.end_fsync = job.does_writes();
                job.validate()?;
                jobs.push(TiobenchJob { test, job });
            }
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_stored_today_reads_back_as_itself() {
        for name in [
            "mark:default",
            "mark:peak",
            "mark",
            "sweep",
            "tiobench",
            "bonnie",
            "vdbench",
            "import:fio",
            "pts",
            "custom:x",
        ] {
            let kind = SuiteKind::parse(name);
            assert_eq!(kind.to_string(), name);
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<SuiteKind>(&json).unwrap(), kind);
        }
        assert_eq!(
            SuiteKind::parse("mark:peak"),
            SuiteKind::Mark(Some("peak".into()))
        );
        assert_eq!(SuiteKind::parse("custom:x").family(), "custom");
    }

    #[test]
    fn mark_runs_all_reads_then_all_writes_with_a_preparation_ramp_on_each_first_pass() {
        let base = Job {
            runtime: Some(std::time::Duration::from_secs(2)),
            ..Job::default()
        };
        let profile = Profile::parse("peak-mix", None).unwrap();
        let jobs = mark_jobs(&profile, &base, 2).unwrap();
        let names: Vec<&str> = jobs.iter().map(|j| j.job.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SEQ1M Q8T1 read #1",
                "SEQ1M Q8T1 read #2",
                "RND4K Q32T1 read #1",
                "RND4K Q32T1 read #2",
                "SEQ1M Q8T1 write #1",
                "SEQ1M Q8T1 write #2",
                "RND4K Q32T1 write #1",
                "RND4K Q32T1 write #2",
                "SEQ1M Q8T1 mix #1",
                "SEQ1M Q8T1 mix #2",
                "RND4K Q32T1 mix #1",
                "RND4K Q32T1 mix #2",
            ]
        );
        let ramps: Vec<u64> = jobs.iter().map(|j| j.job.ramp.as_secs()).collect();
        assert_eq!(ramps, [2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0]);
        assert_eq!(jobs[2].test, "RND4K Q32T1");
    }

    #[test]
    fn tiobench_runs_its_four_tests_per_repetition_with_the_random_ops_shared() {
        let base = Job {
            size_bytes: Some(1 << 20),
            ..Job::default()
        };
        let jobs = tiobench_jobs(&base, &[4], 1000, 2).unwrap();
        let tests: Vec<&str> = jobs.iter().map(|t| t.test.as_str()).collect();
        // tiobench.pl repeats tiotest, which runs the four tests each time.
        assert_eq!(
            tests,
            [
                "Sequential Write",
                "Random Write",
                "Sequential Read",
                "Random Read",
                "Sequential Write",
                "Random Write",
                "Sequential Read",
                "Random Read"
            ]
        );
        assert_eq!(jobs[4].job.name, "Sequential Write #2");
        assert_eq!(jobs[1].job.io_count, Some(1000));
        assert_eq!(jobs[0].job.io_size_bytes, Some(4 << 20));
        assert!(matches!(
            tiobench_jobs(&base, &[4], 3, 1),
            Err(SuiteError::TooFewRandomOps { ops: 3, threads: 4 })
        ));
    }

    #[test]
    fn several_thread_counts_run_in_turn_each_a_test_of_its_own() {
        let base = Job {
            size_bytes: Some(1 << 20),
            ..Job::default()
        };
        let jobs = tiobench_jobs(&base, &[1, 2, 8], 4000, 1).unwrap();
        let tests: Vec<(&str, u32)> = jobs.iter().map(|t| (t.test.as_str(), t.job.threads)).collect();
        assert_eq!(tests.len(), 12);
        assert_eq!(tests[0], ("Sequential Write threads=1", 1));
        assert_eq!(tests[3], ("Random Read threads=1", 1));
        assert_eq!(tests[4], ("Sequential Write threads=2", 2));
        assert_eq!(tests[11], ("Random Read threads=8", 8));
        // int(4000 / 8) random operations each, as tiobench.pl hands tiotest.
        assert_eq!(jobs[11].job.io_count, Some(500 * 8));
        assert_eq!(jobs[8].job.io_size_bytes, Some(8 << 20));
        assert_eq!(tiobench_test_of(&jobs[11].test), "Random Read");
        assert_eq!(tiobench_test_of("Random Read"), "Random Read");
        // The count that leaves a thread no random operation is refused.
        assert!(matches!(
            tiobench_jobs(&base, &[1, 8], 7, 1),
            Err(SuiteError::TooFewRandomOps { ops: 7, threads: 8 })
        ));
    }
}
