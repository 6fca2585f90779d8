//! The one figure of a run, defined once (`history` added up each
//! operation's own rate, 46 times what `show` said of an mdtest run). A
//! test's rate is its operations and bytes over its measured time, its
//! repetitions together (all their operations over all their time, as
//! tiobench's and bonnie++'s tables add runs up); what counts as an
//! operation is said per kind here. `show`'s tables, `history`, the web
//! list and the HTML report all take their numbers from these functions.

use crate::jobs::suites::SuiteKind;
use crate::metrics::latency_bound::curves;
use crate::metrics::{JobResult, RunResult};

/// The figure that stands for a run, and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub of: String,
    /// `of` in a few words: the test's short name and its direction, for
    /// a list of runs with one line a run.
    pub short: String,
    pub iops: f64,
    pub bytes_per_sec: f64,
}

/// Operations and bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rate {
    pub ops_per_sec: f64,
    pub bytes_per_sec: f64,
}

/// What `count` counts of `jobs` (operations, bytes), over all their measured time.
pub fn rate<'a>(
    jobs: impl IntoIterator<Item = &'a JobResult>,
    count: impl Fn(&JobResult) -> (u64, u64),
) -> Rate {
    let (mut ops, mut bytes, mut ns) = (0u64, 0u64, 0u64);
    for j in jobs {
        let (o, b) = count(j);
        ops += o;
        bytes += b;
        ns += j.elapsed_ns;
    }
    if ns == 0 {
        return Rate::default();
    }
    let secs = ns as f64 / 1e9;
    Rate {
        ops_per_sec: ops as f64 / secs,
        bytes_per_sec: bytes as f64 / secs,
    }
}

/// Every operation and byte of a job: its reads, writes and trims, a file
/// set's every operation (an mdtest phase's rate over its own time is not
/// the job's).
pub fn all_operations(j: &JobResult) -> (u64, u64) {
    j.directions()
        .fold((0, 0), |(o, b), (_, d)| (o + d.ops, b + d.bytes))
}

/// Operations and bytes of the named directions only (`read`; `write`, `create`).
pub fn of_directions<'a>(names: &'a [&'a str]) -> impl Fn(&JobResult) -> (u64, u64) + 'a {
    move |j| {
        j.directions()
            .filter(|(n, _)| names.contains(n))
            .fold((0, 0), |(o, b), (_, d)| (o + d.ops, b + d.bytes))
    }
}

/// A job's test: its suite test, else its name without the repetition (`randread #2`).
fn group_of(j: &JobResult) -> &str {
    match &j.test {
        Some(t) => t,
        None => j.job.name.rsplit_once(" #").map_or(&j.job.name, |(name, _)| name),
    }
}

fn jobs_of<'a>(jobs: &[&'a JobResult], test: &str) -> Vec<&'a JobResult> {
    jobs.iter().copied().filter(|j| group_of(j) == test).collect()
}

/// `one run`, `3 runs together` or `best of 3`.
fn of_n(n: usize, best: bool) -> String {
    match (n > 1, best) {
        (false, _) => crate::t!("history-one-run"),
        (true, true) => crate::t!("history-best-of", n = n),
        (true, false) => crate::t!("history-together", n = n),
    }
}

/// Directions in a word or two: `read`, `read+write` (`読み書き`).
fn directions_short(directions: &[&str]) -> String {
    if directions == ["read", "write"] {
        return crate::t!("history-short-read-write");
    }
    let words: Vec<String> = directions
        .iter()
        .map(|d| match *d {
            "read" => crate::t!("history-short-read"),
            "write" => crate::t!("history-short-write"),
            other => crate::i18n::heading(other),
        })
        .collect();
    words.join("+")
}

/// A test and its direction, the direction left out where the test's name
/// says it already (IO500's `ior-easy-write`).
fn test_short(test: &str, directions: &[&str]) -> String {
    if let [one] = directions
        && test.to_ascii_lowercase().contains(one)
    {
        return test.to_string();
    }
    format!("{test} {}", directions_short(directions))
}

/// The best repetition of `jobs` by `count`'s bytes (then operations).
fn best(jobs: &[&JobResult], count: &dyn Fn(&JobResult) -> (u64, u64)) -> Option<Rate> {
    jobs.iter().map(|j| rate([*j], count)).max_by(|a, b| {
        a.bytes_per_sec
            .total_cmp(&b.bytes_per_sec)
            .then(a.ops_per_sec.total_cmp(&b.ops_per_sec))
    })
}

/// What stands for a run, with its rate:
/// - a latency-bounded search: its score (`search_figure`);
/// - `mark`: its first test's reads, the best pass, as CrystalDiskMark's grid shows it;
/// - `pts`: its first test's first point, the best round (its purges and
///   preconditioning are no test's figure);
/// - `bonnie`: the block read, with the block write beside it;
/// - `tiobench`: the sequential read of the thread count that read fastest, with its write;
/// - `db`: the first test's queries per second (`queries`);
/// - a vdbench parameter file: its first run definition's average line (`avg_2-N`);
/// - any other run: its first test, every operation and byte (`all_operations`).
///
/// Every rate but a best pass's or round's is of the test's repetitions together (`rate`).
pub fn of_run(run: &RunResult) -> Option<Figure> {
    if let Some(f) = search_figure(run) {
        return Some(f);
    }
    let kind = run.suite.clone();
    let jobs: Vec<&JobResult> = run
        .jobs
        .iter()
        .filter(|j| j.job.latency_step.is_none())
        // A PTS run begins with a purge and a preconditioning: the trim
        // rate of a discard is no test's figure.
        .filter(|j| kind != Some(SuiteKind::Pts) || !crate::jobs::pts::is_preparation(group_of(j)))
        .collect();
    let first = group_of(jobs.first()?).to_string();
    let mb = |bps: f64| crate::report::format::mb_per_sec(bps);
    let read = of_directions(&["read"]);
    let write = of_directions(&["write"]);
    // A read test with its write test's MB/s beside it (bonnie++, tiobench).
    let paired = |read_test: &str, write_test: &str, read_name: &str, write_name: &str, short: &str| {
        let reads = jobs_of(&jobs, read_test);
        if reads.is_empty() {
            return None;
        }
        let r = rate(reads.iter().copied(), &read);
        let writes = jobs_of(&jobs, write_test);
        let w = if writes.is_empty() {
            String::new()
        } else {
            format!(" ({write_name} {} MB/s)", mb(rate(writes, &write).bytes_per_sec))
        };
        Some(Figure {
            of: format!("{read_name}, {}{w}", of_n(reads.len(), false)),
            short: crate::t!(short),
            iops: r.ops_per_sec,
            bytes_per_sec: r.bytes_per_sec,
        })
    };
    match &kind {
        Some(SuiteKind::Mark(_)) => {
            // A Mix profile's mixed passes read too; the read figure is of the read-only passes.
            let passes: Vec<&JobResult> = jobs_of(&jobs, &first)
                .into_iter()
                .filter(|j| j.read.is_some() && !j.job.name.contains(" mix #"))
                .collect();
            let r = best(&passes, &read)?;
            return Some(Figure {
                of: format!("{first} read, {}", of_n(passes.len(), true)),
                short: test_short(&first, &["read"]),
                iops: r.ops_per_sec,
                bytes_per_sec: r.bytes_per_sec,
            });
        }
        Some(SuiteKind::Bonnie) => {
            if let Some(f) = paired(
                "Sequential Input Block",
                "Sequential Output Block",
                "block read",
                "block write",
                "history-short-block-read",
            ) {
                return Some(f);
            }
        }
        Some(SuiteKind::Tiobench) => {
            // A run of several thread counts names each test with its count
            // (`Sequential Read threads=4`): the count that read fastest
            // stands for the run, with its own write.
            let mut tests: Vec<&str> = jobs
                .iter()
                .map(|j| group_of(j))
                .filter(|t| crate::jobs::suites::tiobench_test_of(t) == "Sequential Read")
                .collect();
            tests.dedup();
            let fastest = tests.into_iter().max_by(|a, b| {
                let r = |t: &str| rate(jobs_of(&jobs, t), &read).bytes_per_sec;
                r(a).total_cmp(&r(b))
            });
            if let Some(t) = fastest {
                let w = t.replacen("Sequential Read", "Sequential Write", 1);
                if let Some(f) = paired(t, &w, t, &w, "history-short-seq-read") {
                    return Some(f);
                }
            }
        }
        Some(SuiteKind::Db) => {
            let mine = jobs_of(&jobs, &first);
            let r = rate(mine.iter().copied(), super::db_table::queries);
            return Some(Figure {
                of: format!("{first} queries, {}", of_n(mine.len(), false)),
                short: crate::t!("history-short-queries", test = first.as_str()),
                iops: r.ops_per_sec,
                bytes_per_sec: 0.0,
            });
        }
        Some(SuiteKind::Vdbench) => {
            let mine = jobs_of(&jobs, &first);
            if let Some(a) = crate::report::vdbench_summary::average(&mine) {
                let dirs: Vec<&str> = [("read", a.read_iops), ("write", a.write_iops)]
                    .into_iter()
                    .filter(|(_, r)| *r > 0.0)
                    .map(|(d, _)| d)
                    .collect();
                return Some(Figure {
                    of: format!(
                        "{first} {}, {}",
                        crate::t!("history-vdbench-average"),
                        of_n(1, false)
                    ),
                    short: test_short(&first, &dirs),
                    iops: a.read_iops + a.write_iops,
                    bytes_per_sec: a.bytes_per_sec,
                });
            }
        }
        _ => {}
    }
    let mine = jobs_of(&jobs, &first);
    let pts = kind == Some(SuiteKind::Pts);
    let r = if pts {
        best(&mine, &all_operations)?
    } else {
        rate(mine.iter().copied(), all_operations)
    };
    let directions: Vec<&str> = {
        let mut d: Vec<&str> = mine.iter().flat_map(|j| j.directions().map(|(n, _)| n)).collect();
        d.sort();
        d.dedup();
        d
    };
    // A file set's rows are its operations (create, stat, ...): a list of
    // nine names says less than "all operations" and wraps the column.
    let is_block = directions.iter().all(|d| matches!(*d, "read" | "write" | "trim"));
    let (what, short) = if is_block {
        (directions.join("+"), test_short(&first, &directions))
    } else {
        (
            "all operations".to_string(),
            crate::t!("history-short-all", test = first.as_str()),
        )
    };
    Some(Figure {
        of: format!("{first} {what}, {}", of_n(mine.len(), pts)),
        short,
        iops: r.ops_per_sec,
        bytes_per_sec: r.bytes_per_sec,
    })
}

/// A run's first latency-bounded search stands for the run by its score,
/// the highest load that held the bound (what `compare` sets side by side),
/// not by its fastest step, which is usually one that crossed it. A score
/// the probe set is a lower bound: even unthrottled the bound held, so the
/// target was never pushed to it.
pub fn search_figure(run: &RunResult) -> Option<Figure> {
    use crate::jobs::latency::Phase;
    let curve = curves(run).into_iter().next()?;
    let bound = crate::report::latency_table::bound_text(&curve);
    let short = |id: &str| {
        crate::t!(
            id,
            job = curve.job.as_str(),
            stat = crate::i18n::heading(curve.stat.name()),
            limit = crate::report::latency_table::limit_text(curve.latency_limit_ns as f64)
        )
    };
    let (Some(score), Some(best)) = (curve.score_iops(), curve.best_point()) else {
        return Some(Figure {
            of: crate::t!(
                "history-search-none-held",
                job = curve.job.as_str(),
                bound = bound
            ),
            short: short("history-short-search-none"),
            iops: 0.0,
            bytes_per_sec: 0.0,
        });
    };
    let step = &run.jobs[best.job_index];
    let step_rate = rate([step], all_operations);
    // The step's bytes per operation, at the score's rate.
    let bytes_per_sec = if step_rate.ops_per_sec > 0.0 {
        step_rate.bytes_per_sec * score / step_rate.ops_per_sec
    } else {
        0.0
    };
    let mut of = crate::t!("history-search-score", job = curve.job.as_str(), bound = bound);
    let lower = best.phase == Phase::Probe;
    if lower {
        of.push_str(&crate::t!("history-search-lower-bound"));
    }
    Some(Figure {
        of,
        short: short(if lower {
            "history-short-search-lower"
        } else {
            "history-short-search"
        }),
        iops: score,
        bytes_per_sec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::report::fixtures::{direction, job, run};

    /// A job of `name` in `test` that did `ops` of each direction of `bs`
    /// bytes, each direction's own rate over its own `own_ns` (an mdtest
    /// phase's), the job measured for `elapsed_ns`.
    fn j(name: &str, test: Option<&str>, dirs: &[(&str, u64, u64)], elapsed_ns: u64) -> JobResult {
        let mut r = job(name, Rw::Read, 4096, 100, None, None);
        r.test = test.map(str::to_string);
        r.elapsed_ns = elapsed_ns;
        for (dir, ops, bs) in dirs {
            let mut d = direction(*ops, *bs, &[100_000]);
            // Each direction's stored rate as if over a tenth of the job: not the job's.
            d.iops = *ops as f64 * 10.0;
            d.bytes_per_sec = (*ops * *bs) as f64 * 10.0;
            match *dir {
                "read" => r.read = Some(d),
                "write" => r.write = Some(d),
                other => {
                    use crate::jobs::OpKind::*;
                    let kind = [Trim, Create, Stat, Query, Transaction]
                        .into_iter()
                        .find(|k| k.name() == other)
                        .unwrap();
                    r.operations.insert(kind, d);
                }
            }
        }
        r
    }

    const S: u64 = 1_000_000_000;

    #[test]
    fn mark_is_its_first_tests_best_read() {
        let t = Some("SEQ1M Q8T1");
        let r = run(
            "mark:default",
            vec![
                j("SEQ1M Q8T1 read #1", t, &[("read", 582, 1_000_000)], S),
                j("SEQ1M Q8T1 read #2", t, &[("read", 833, 1_000_000)], S),
                j("SEQ1M Q8T1 write #1", t, &[("write", 1900, 1_000_000)], S),
                j(
                    "RND4K Q32T1 read #1",
                    Some("RND4K Q32T1"),
                    &[("read", 70000, 4096)],
                    S,
                ),
            ],
        );
        let f = of_run(&r).unwrap();
        assert_eq!(f.bytes_per_sec, 833e6);
        assert_eq!(f.of, "SEQ1M Q8T1 read, best of 2");
        assert_eq!(f.short, "SEQ1M Q8T1 read");
    }

    #[test]
    fn bonnie_is_block_read_with_block_write_beside_it() {
        let t = |n: &'static str| Some(n);
        let r = run(
            "bonnie",
            vec![
                j(
                    "Sequential Output Per Chr #1",
                    t("Sequential Output Per Chr"),
                    &[("write", 509, 1000)],
                    S,
                ),
                j(
                    "Sequential Output Block #1",
                    t("Sequential Output Block"),
                    &[("write", 512, 1_000_000)],
                    S,
                ),
                j(
                    "Sequential Input Block #1",
                    t("Sequential Input Block"),
                    &[("read", 770, 1_000_000)],
                    S,
                ),
            ],
        );
        let f = of_run(&r).unwrap();
        assert_eq!(f.bytes_per_sec, 770e6);
        assert!(
            f.of.starts_with("block read, one run (block write 512"),
            "{}",
            f.of
        );
        assert_eq!(f.short, "block read");
    }

    /// Several thread counts name tiobench's tests `Sequential Read
    /// threads=N`: the run is still its sequential read (the fastest
    /// count's) with that count's write, not its first test's write; and
    /// its repetitions together, as `show`'s table adds them
    /// (history gave the best repetition, 5,293 MB/s where show said 2,303 MiB/s).
    #[test]
    fn tiobench_is_its_fastest_sequential_read_as_shows_table_gives_it() {
        let mut jobs = Vec::new();
        for (threads, read, write) in [(1, 1354, 25), (2, 2794, 359)] {
            let w = format!("Sequential Write threads={threads}");
            let r = format!("Sequential Read threads={threads}");
            jobs.push(j(&format!("{w} #1"), Some(&w), &[("write", write, 1_000_000)], S));
            jobs.push(j(&format!("{r} #1"), Some(&r), &[("read", read, 1_000_000)], S));
            // A second repetition of the read, as fast in half the time.
            jobs.push(j(
                &format!("{r} #2"),
                Some(&r),
                &[("read", read, 1_000_000)],
                S / 2,
            ));
        }
        let r = run("tiobench", jobs);
        let f = of_run(&r).unwrap();
        let table = crate::report::tiobench_table::rows(&r);
        let shown = table
            .iter()
            .find(|t| t.test == "Sequential Read threads=2")
            .unwrap();
        assert_eq!(f.bytes_per_sec, shown.bytes_per_sec);
        assert!((f.bytes_per_sec - 2.0 * 2794e6 / 1.5).abs() < 1.0, "{f:?}");
        assert_eq!(
            f.of,
            "Sequential Read threads=2, 2 runs together (Sequential Write threads=2 359 MB/s)"
        );
        assert_eq!(f.short, "seq read");
    }

    #[test]
    fn a_plain_run_is_its_first_tests_operations_over_its_time() {
        let r = run(
            "run",
            vec![
                j("mix #1", None, &[("read", 700, 4000), ("write", 300, 4000)], S),
                j("mix #2", None, &[("read", 800, 4000), ("write", 350, 4000)], S),
                j("other", None, &[("read", 9000, 4000)], S),
            ],
        );
        let mut r = r;
        r.suite = None;
        let f = of_run(&r).unwrap();
        assert_eq!((f.iops, f.bytes_per_sec), (1075.0, 4.3e6));
        assert_eq!(f.of, "mix read+write, 2 runs together");
        assert_eq!(f.short, "mix read+write");
    }

    /// A PTS run's headline was its first job's, the purge's trim rate.
    #[test]
    fn a_pts_run_is_its_first_tests_best_round_not_its_purge() {
        let t = |n: &'static str| Some(n);
        let r = run(
            "pts",
            vec![
                j(
                    "IOPS purge blkdiscard",
                    t("IOPS purge blkdiscard"),
                    &[("trim", 9, 1000)],
                    S,
                ),
                j("IOPS WIPC", t("IOPS WIPC"), &[("write", 500, 1_600_000)], S),
                j(
                    "IOPS bs=4k mix=100/0",
                    t("IOPS bs=4k mix=100/0"),
                    &[("read", 50_000, 4000)],
                    S,
                ),
                j(
                    "IOPS bs=4k mix=100/0",
                    t("IOPS bs=4k mix=100/0"),
                    &[("read", 60_000, 4000)],
                    S,
                ),
            ],
        );
        let f = of_run(&r).unwrap();
        assert_eq!((f.iops, f.bytes_per_sec), (6e4, 240e6));
        assert_eq!(f.of, "IOPS bs=4k mix=100/0 read, best of 2");
        let mut prep = r.clone();
        prep.jobs.truncate(1);
        assert!(of_run(&prep).is_none());
    }

    /// An mdtest file set showed 1,522,708 IOPS in `history`
    /// (each phase's rate over its own time, added up) where `show` said
    /// 32,988 ops/s: the run is every operation over the job's time.
    #[test]
    fn a_file_set_is_all_its_operations_over_the_jobs_time() {
        let jobs = vec![j(
            "sfs97",
            None,
            &[("create", 80, 0), ("read", 1300, 4096), ("stat", 1500, 0)],
            2 * S,
        )];
        let mut r = run("run", jobs);
        r.suite = None;
        let f = of_run(&r).unwrap();
        assert_eq!(f.iops, 1440.0);
        assert_eq!(f.bytes_per_sec, 1300.0 * 4096.0 / 2.0);
        assert_eq!(f.of, "sfs97 all operations, one run");
        assert_eq!(f.short, "sfs97 all ops");
        let shown = crate::report::fileset_table::render_job(&r.jobs[0]);
        let all = shown
            .lines()
            .find(|l| l.trim_start().starts_with("all "))
            .unwrap();
        assert!(all.contains(" 1440 "), "{shown}");
    }

    /// One OLTP test read 9,593.7 queries/s in the table and
    /// 10,659.71 in sysbench's line: one count, BEGIN and COMMIT in it.
    #[test]
    fn a_db_run_is_its_first_tests_queries_as_its_table_gives_them() {
        let mut r = run(
            "db",
            vec![j(
                "oltp_read_write",
                Some("oltp_read_write"),
                &[("query", 1800, 0), ("transaction", 100, 0)],
                2 * S,
            )],
        );
        let settings = crate::jobs::db_params::DbSettings::from_flags(
            "/mnt/db".into(),
            crate::jobs::db_params::DbFlags {
                scale: "0.001",
                tests: "oltp_read_write",
                synchronous: "full",
                journal: "delete",
                tables: "1",
                table_size: "500",
                server: "sqlite",
                server_sync: None,
                threads: 1,
                time: std::time::Duration::from_secs(2),
                mem_limit_bytes: None,
            },
            1,
        )
        .unwrap();
        r.jobs[0].job.workload = settings.jobs(0).remove(0).job.workload;
        let f = of_run(&r).unwrap();
        assert_eq!((f.iops, f.bytes_per_sec), (1000.0, 0.0));
        assert_eq!(f.of, "oltp_read_write queries, one run");
        let rows = crate::report::db_table::rows(&r);
        assert_eq!(rows[0].queries_per_sec, 1000.0);
        assert_eq!(rows[0].oltp.as_ref().map(|o| o.queries_per_sec), Some(1000.0));
        // sql-bench's writes autocommit: a transaction each, and no BEGIN or COMMIT sent.
        let mut atis = r.clone();
        atis.jobs[0].test = Some("ATIS".into());
        if let crate::jobs::Workload::Database(p) = &mut atis.jobs[0].job.workload {
            p.test = "ATIS".into();
        }
        assert_eq!(of_run(&atis).unwrap().iops, 900.0);
        assert_eq!(crate::report::db_table::rows(&atis)[0].queries_per_sec, 900.0);
    }

    /// A search's steps, each `(offered rate, ops in its second, latency)`;
    /// the first is the unthrottled probe.
    fn search(steps: &[(Option<u64>, u64, u64)]) -> RunResult {
        use crate::jobs::latency::{LatencyLoad, LatencyStep, Phase};
        let jobs = steps
            .iter()
            .enumerate()
            .map(|(i, (rate, ops, lat))| {
                let mut j = job("randread", Rw::RandRead, 4096, 100, None, None);
                j.test = None;
                j.read = Some(direction(*ops, 4096, &[*lat]));
                j.job.latency_limit_ns = Some(1_000_000);
                j.job.latency_load = Some(LatencyLoad::Rate);
                j.job.rate_iops = *rate;
                j.job.latency_step = Some(LatencyStep {
                    index: i as u32,
                    phase: if i == 0 { Phase::Probe } else { Phase::Climb },
                });
                j
            })
            .collect();
        let mut r = run("run", jobs);
        r.suite = None;
        r
    }

    #[test]
    fn a_latency_search_is_its_score_not_its_fastest_step() {
        let r = search(&[
            (None, 5000, 2_000_000),
            (Some(1000), 1000, 300_000),
            (Some(2000), 2000, 500_000),
            (Some(4000), 3900, 3_000_000),
        ]);
        let f = of_run(&r).unwrap();
        assert_eq!(f.iops, 2000.0, "{}", f.of);
        assert_eq!(f.bytes_per_sec, 2000.0 * 4096.0);
        assert!(
            f.of.starts_with("randread: latency-bound score, mean latency under 1 ms"),
            "{}",
            f.of
        );
        assert!(!f.of.contains("lower bound"), "{}", f.of);
        assert_eq!(f.short, "randread at mean < 1 ms");
    }

    #[test]
    fn a_search_that_never_crossed_is_a_lower_bound() {
        let r = search(&[(None, 5000, 500_000), (Some(1000), 1000, 300_000)]);
        let f = search_figure(&r).unwrap();
        assert_eq!(f.iops, 5000.0);
        assert!(f.of.contains("a lower bound"), "{}", f.of);
        assert_eq!(f.short, "randread at mean < 1 ms unthrottled");
        let none = search_figure(&search(&[(None, 5000, 2_000_000)])).unwrap();
        assert_eq!(none.iops, 0.0);
        assert!(none.of.contains("no load held"), "{}", none.of);
    }
}
