//! `kura history`: one line per stored run, with the figure that represents
//! the run and what that figure is.

use super::escape::{SHOWN_CHARS, term, term_cut};
use super::format::{mb_per_sec, rate, utc};
use super::run_table::new_table;
use crate::jobs::latency::Phase;
use crate::jobs::suites::SuiteKind;
use crate::metrics::RunResult;
use crate::metrics::latency_bound::curves;
use crate::store::{JobFigure, RunSummary, Store};

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

/// Replaces each summary's first-job figure with the one that represents its run.
/// A run whose rows cannot be read keeps the first job's figure: one bad
/// row must not hide the other runs.
pub fn represent(store: &Store, runs: &mut [RunSummary]) {
    for r in runs.iter_mut().filter(|r| r.unreadable.is_none()) {
        let Ok(figures) = store.job_figures(r.id) else {
            continue;
        };
        // A search's bound and verdicts are not in the figures: a run that
        // holds one is read whole, and only such a run.
        let searched = store
            .holds_latency_search(r.id)
            .unwrap_or(false)
            .then(|| store.load(r.id).ok())
            .flatten()
            .and_then(|run| search_figure(&run));
        if let Some(f) = searched.or_else(|| representative(r.suite.as_deref(), &figures)) {
            (r.figure, r.figure_short) = (f.of, f.short);
            (r.iops, r.bytes_per_sec) = (f.iops, f.bytes_per_sec);
        }
    }
}

/// A run's first latency-bounded search stands for the run by its score,
/// the highest load that held the bound (what `compare` sets side by side),
/// not by its fastest step, which is usually one that crossed it. A score
/// the probe set is a lower bound: even unthrottled the bound held, so the
/// target was never pushed to it.
pub fn search_figure(run: &RunResult) -> Option<Figure> {
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
    let step_bytes: f64 = step.directions().map(|(_, d)| d.bytes_per_sec).sum();
    // The step's bytes per operation, at the score's rate.
    let bytes_per_sec = if best.achieved_iops > 0.0 {
        step_bytes * score / best.achieved_iops
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

/// A job's test: its suite test, else its name without the repetition (`randread #2`).
fn group_of(j: &JobFigure) -> &str {
    match &j.test {
        Some(t) => t,
        None => j.job_name.rsplit_once(" #").map_or(&j.job_name, |(name, _)| name),
    }
}

/// The best repetition of one test in one direction: (bytes/s, IOPS, repetitions).
fn best(jobs: &[JobFigure], test: &str, direction: &str) -> Option<(f64, f64, usize)> {
    let runs: Vec<&JobFigure> = jobs
        .iter()
        .filter(|j| group_of(j) == test && j.direction == direction)
        .collect();
    let top = runs
        .iter()
        .max_by(|a, b| a.bytes_per_sec.total_cmp(&b.bytes_per_sec))?;
    Some((top.bytes_per_sec, top.iops, runs.len()))
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

fn of_n(n: usize) -> String {
    if n > 1 {
        crate::t!("history-best-of", n = n)
    } else {
        crate::t!("history-one-run")
    }
}

/// What stands for a run: CrystalDiskMark's first test read (SEQ1M Q8T1 in
/// its default profile), the block tests of bonnie++ and the sequential
/// tests of tiobench, else the first test's read and write together; the
/// best repetition, as the suites' own tables report it.
pub fn representative(suite: Option<&str>, jobs: &[JobFigure]) -> Option<Figure> {
    // A PTS run begins with a purge and a preconditioning: the trim rate of
    // a discard is no test's figure.
    let measured: Vec<JobFigure>;
    let jobs = match suite.map(SuiteKind::parse) {
        Some(SuiteKind::Pts) => {
            measured = jobs
                .iter()
                .filter(|j| !crate::jobs::pts::is_preparation(group_of(j)))
                .cloned()
                .collect();
            &measured[..]
        }
        _ => jobs,
    };
    let first = group_of(jobs.first()?).to_string();
    let paired = |read_test: &str, write_test: &str, read_name: &str, write_name: &str, short: &str| {
        let (bps, iops, n) = best(jobs, read_test, "read")?;
        let write = best(jobs, write_test, "write")
            .map(|(w, _, _)| format!(" ({write_name} {} MB/s)", mb_per_sec(w)))
            .unwrap_or_default();
        Some(Figure {
            of: format!("{read_name}, {}{write}", of_n(n)),
            short: crate::t!(short),
            iops,
            bytes_per_sec: bps,
        })
    };
    match suite.map(SuiteKind::parse) {
        Some(SuiteKind::Mark(_)) => {
            // A Mix profile's mixed passes read too; the read figure is of the read-only passes.
            let reads: Vec<JobFigure> = jobs
                .iter()
                .filter(|j| !j.job_name.contains(" mix #"))
                .cloned()
                .collect();
            let (bps, iops, n) = best(&reads, &first, "read")?;
            return Some(Figure {
                of: format!("{first} read, {}", of_n(n)),
                short: test_short(&first, &["read"]),
                iops,
                bytes_per_sec: bps,
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
            let read = jobs
                .iter()
                .filter(|j| j.direction == "read")
                .filter(|j| crate::jobs::suites::tiobench_test_of(group_of(j)) == "Sequential Read")
                .max_by(|a, b| a.bytes_per_sec.total_cmp(&b.bytes_per_sec))
                .map(|j| group_of(j).to_string());
            if let Some(read) = read {
                let write = read.replacen("Sequential Read", "Sequential Write", 1);
                if let Some(f) = paired(&read, &write, &read, &write, "history-short-seq-read") {
                    return Some(f);
                }
            }
        }
        _ => {}
    }
    // Each repetition's directions add up (a mixed job reads and writes at once).
    let mut totals: Vec<(i64, f64, f64)> = Vec::new();
    for j in jobs.iter().filter(|j| group_of(j) == first) {
        match totals.iter_mut().find(|t| t.0 == j.job_index) {
            Some(t) => (t.1, t.2) = (t.1 + j.bytes_per_sec, t.2 + j.iops),
            None => totals.push((j.job_index, j.bytes_per_sec, j.iops)),
        }
    }
    let n = totals.len();
    let (_, bps, iops) = totals
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))?;
    let directions: Vec<&str> = {
        let mut d: Vec<&str> = jobs
            .iter()
            .filter(|j| group_of(j) == first)
            .map(|j| j.direction.as_str())
            .collect();
        d.dedup();
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
        of: format!("{first} {what}, {}", of_n(n)),
        short,
        iops,
        bytes_per_sec: bps,
    })
}

/// What `history` says when its filter matched nothing: the filter, and
/// what is stored (runs per suite), so an empty answer is not read as an empty store.
pub fn nothing_matched(label: Option<&str>, suite: Option<&str>, stored: &[(Option<String>, u64)]) -> String {
    let mut filter = Vec::new();
    if let Some(l) = label {
        filter.push(format!("--label \"{}\"", term(l)));
    }
    if let Some(s) = suite {
        filter.push(format!("--suite {}", term(s)));
    }
    let total: u64 = stored.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return format!("{}\n", crate::t!("history-none-stored"));
    }
    let suites: Vec<String> = stored
        .iter()
        .map(|(s, n)| format!("{} ({n})", term(s.as_deref().unwrap_or("run"))))
        .collect();
    super::width::wrap(
        "",
        &crate::t!(
            "history-none-matched",
            filter = filter.join(" "),
            total = total,
            suites = suites.join(", ")
        ),
        2,
    )
}

/// A run's MB/s, or "-" for one that moved no bytes but did operations
/// (a database's queries): "0.000" would read as a device that stalled.
pub fn mb_per_sec_or_none(r: &RunSummary) -> String {
    if r.bytes_per_sec == 0.0 && r.iops > 0.0 {
        "-".to_string()
    } else {
        mb_per_sec(r.bytes_per_sec)
    }
}

pub fn render(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return format!("{}\n", crate::t!("history-none-stored"));
    }
    let wide = super::width::wide();
    // At 80 columns: what tells runs apart and their figure; the target and
    // workload with --wide (and in `kura show`). A label column only when a run has one.
    let labels = wide || runs.iter().any(|r| r.label.is_some());
    // Runs of one year need not say it on every line: the heading says it.
    let year = |r: &RunSummary| utc(r.started_unix_s).get(..4).map(str::to_string);
    let one_year = match runs.iter().map(year).collect::<Vec<_>>().as_slice() {
        [first, rest @ ..] if !wide && first.is_some() && rest.iter().all(|y| y == first) => first.clone(),
        _ => None,
    };
    let date_heading = match &one_year {
        Some(y) => format!("{y} (UTC)"),
        None => "date (UTC)".to_string(),
    };
    let mut header = vec!["id", date_heading.as_str(), "suite"];
    if labels {
        header.push("label");
    }
    if wide {
        header.extend(["target", "workload"]);
    }
    header.extend(["MB/s", "IOPS", "figure"]);
    let mut t = new_table(&header);
    let figure_col = header.len() - 1;
    // Words read from the left; numbers line up on the right.
    let words = header.len() - 3;
    for i in (1..words).chain([figure_col]) {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(comfy_table::CellAlignment::Left);
        }
    }
    for r in runs {
        let date = utc(r.started_unix_s);
        // A run stopped early is starred, and the line under the table says why.
        let starred = !wide && r.incomplete && r.unreadable.is_none();
        let mut row = vec![
            if starred {
                format!("{}*", r.id)
            } else {
                r.id.to_string()
            },
            // Minutes tell runs apart; the seconds and the zone are in the header and in `show`.
            date.get(if one_year.is_some() { 5..16 } else { 0..16 })
                .unwrap_or(&date)
                .to_string(),
            term_cut(r.suite.as_deref().unwrap_or("run"), SHOWN_CHARS).into_owned(),
        ];
        if labels {
            row.push(term_cut(r.label.as_deref().unwrap_or_default(), SHOWN_CHARS).into_owned());
        }
        if wide {
            row.push(term_cut(&r.target, SHOWN_CHARS).into_owned());
            row.push(if r.jobs > 1 {
                format!("{} (+{} jobs)", term_cut(&r.workload, SHOWN_CHARS), r.jobs - 1)
            } else {
                term_cut(&r.workload, SHOWN_CHARS).into_owned()
            });
        }
        let figure = match &r.unreadable {
            Some(why) => crate::t!("history-unreadable", why = term(why).into_owned()),
            // The whole sentence, as `show` and JSON have it.
            None if wide && r.incomplete => format!(
                "{}{}",
                term_cut(&r.figure, SHOWN_CHARS),
                crate::t!("history-incomplete")
            ),
            None if wide => term_cut(&r.figure, SHOWN_CHARS).into_owned(),
            None => term_cut(&r.figure_short, SHOWN_CHARS).into_owned(),
        };
        row.extend([mb_per_sec_or_none(r), rate(r.iops), figure]);
        t.add_row(row);
    }
    // The figure, the suite and a label are cut (with "…") rather than
    // wrapped; room goes back to them in that order: the figure says what
    // the numbers on its line are.
    let mut cut = vec![figure_col, 2];
    if labels {
        cut.push(3);
    }
    let mut out = format!(
        "{}\n",
        super::fit::render_with(&t, &super::fit::Fit::new().cut(&cut).drop_first(&[]))
    );
    if !wide && runs.iter().any(|r| r.incomplete && r.unreadable.is_none()) {
        out.push_str(&super::width::wrap("", &crate::t!("history-incomplete-star"), 2));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(index: i64, direction: &str, name: &str, test: Option<&str>, iops: f64, mbps: f64) -> JobFigure {
        JobFigure {
            job_index: index,
            direction: direction.to_string(),
            job_name: name.to_string(),
            test: test.map(str::to_string),
            iops,
            bytes_per_sec: mbps * 1e6,
        }
    }

    #[test]
    fn mark_is_its_first_tests_best_read() {
        let t = Some("SEQ1M Q8T1");
        let jobs = [
            j(0, "read", "SEQ1M Q8T1 read #1", t, 582.0, 582.0),
            j(1, "read", "SEQ1M Q8T1 read #2", t, 833.0, 833.0),
            j(2, "write", "SEQ1M Q8T1 write #1", t, 1900.0, 1900.0),
            j(
                3,
                "read",
                "RND4K Q32T1 read #1",
                Some("RND4K Q32T1"),
                70000.0,
                290.0,
            ),
        ];
        let f = representative(Some("mark:default"), &jobs).unwrap();
        assert_eq!(f.bytes_per_sec, 833e6);
        assert_eq!(f.of, "SEQ1M Q8T1 read, best of 2");
        assert_eq!(f.short, "SEQ1M Q8T1 read");
    }

    #[test]
    fn bonnie_is_block_read_with_block_write_beside_it() {
        let jobs = [
            j(
                0,
                "write",
                "Sequential Output Per Chr #1",
                Some("Sequential Output Per Chr"),
                0.0,
                0.509,
            ),
            j(
                1,
                "write",
                "Sequential Output Block #1",
                Some("Sequential Output Block"),
                0.0,
                512.0,
            ),
            j(
                2,
                "read",
                "Sequential Input Block #1",
                Some("Sequential Input Block"),
                0.0,
                770.0,
            ),
        ];
        let f = representative(Some("bonnie"), &jobs).unwrap();
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
    /// count's) with that count's write, not its first test's write.
    #[test]
    fn tiobench_of_several_thread_counts_is_its_best_sequential_read() {
        let t = |n: &str| Some(n.to_string());
        let mut jobs = Vec::new();
        for (k, (threads, read, write)) in [(1, 1354.0, 25.0), (2, 2794.0, 359.0)].into_iter().enumerate() {
            let k = k as i64 * 2;
            let w = format!("Sequential Write threads={threads}");
            let r = format!("Sequential Read threads={threads}");
            jobs.push(j(k, "write", &format!("{w} #1"), t(&w).as_deref(), 1.0, write));
            jobs.push(j(k + 1, "read", &format!("{r} #1"), t(&r).as_deref(), 1.0, read));
        }
        let f = representative(Some("tiobench"), &jobs).unwrap();
        assert_eq!(f.bytes_per_sec, 2794e6);
        assert_eq!(
            f.of,
            "Sequential Read threads=2, one run (Sequential Write threads=2 359 MB/s)"
        );
        assert_eq!(f.short, "seq read");
    }

    #[test]
    fn a_plain_run_is_its_first_jobs_total_best_repetition() {
        let jobs = [
            j(0, "read", "mix #1", None, 700.0, 2.8),
            j(0, "write", "mix #1", None, 300.0, 1.2),
            j(1, "read", "mix #2", None, 800.0, 3.2),
            j(1, "write", "mix #2", None, 350.0, 1.4),
            j(2, "read", "other", None, 9e9, 9e9),
        ];
        let f = representative(None, &jobs).unwrap();
        assert_eq!((f.iops, f.bytes_per_sec), (1150.0, 4.6e6));
        assert_eq!(f.of, "mix read+write, best of 2");
        assert_eq!(f.short, "mix read+write");
    }

    /// Issue 34: a PTS run's headline was its first job's, the purge's trim rate.
    #[test]
    fn a_pts_run_is_its_first_tests_figure_not_its_purge() {
        let t = |n: &str| Some(n.to_string());
        let jobs = [
            j(
                0,
                "trim",
                "IOPS purge blkdiscard",
                t("IOPS purge blkdiscard").as_deref(),
                9.0,
                9e3,
            ),
            j(1, "write", "IOPS WIPC", t("IOPS WIPC").as_deref(), 500.0, 800.0),
            j(
                2,
                "read",
                "IOPS bs=4k mix=100/0",
                t("IOPS bs=4k mix=100/0").as_deref(),
                5e4,
                200.0,
            ),
            j(
                3,
                "read",
                "IOPS bs=4k mix=100/0",
                t("IOPS bs=4k mix=100/0").as_deref(),
                6e4,
                240.0,
            ),
        ];
        let f = representative(Some("pts"), &jobs).unwrap();
        assert_eq!((f.iops, f.bytes_per_sec), (6e4, 240e6));
        assert_eq!(f.of, "IOPS bs=4k mix=100/0 read, best of 2");
        assert!(representative(Some("pts"), &jobs[..2]).is_none());
    }

    /// A search's steps, each `(offered rate, ops in its second, latency)`;
    /// the first is the unthrottled probe.
    fn search(steps: &[(Option<u64>, u64, u64)]) -> RunResult {
        use crate::jobs::latency::{LatencyLoad, LatencyStep};
        use crate::report::fixtures::{direction, job, run};
        let jobs = steps
            .iter()
            .enumerate()
            .map(|(i, (rate, ops, lat))| {
                let mut j = job("randread", crate::jobs::Rw::RandRead, 4096, 100, None, None);
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
        let f = search_figure(&r).unwrap();
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

    #[test]
    fn a_file_set_is_all_its_operations_together() {
        let jobs = [
            j(0, "create", "sfs97", None, 80.0, 0.0),
            j(0, "read", "sfs97", None, 1300.0, 5.5),
            j(0, "stat", "sfs97", None, 1500.0, 0.0),
        ];
        let f = representative(None, &jobs).unwrap();
        assert_eq!(f.iops, 2880.0);
        assert_eq!(f.of, "sfs97 all operations, one run");
        assert_eq!(f.short, "sfs97 all ops");
    }

    fn summary(id: i64, suite: &str, figure: &str, short: &str) -> RunSummary {
        RunSummary {
            id,
            started_unix_s: 1_795_316_411 + id,
            label: None,
            price: None,
            suite: Some(suite.into()),
            hostname: "vm".into(),
            incomplete: id % 7 == 0,
            jobs: 4,
            target: "/mnt/a/rather/long/path/to/kura-test.dat".into(),
            workload: "randrw 4k qd32 x4".into(),
            iops: 123_456.0 * id as f64,
            bytes_per_sec: 1.5e9,
            unreadable: None,
            figure: figure.into(),
            figure_short: short.into(),
        }
    }

    /// Issue 28: 50 runs printed 367 lines, the figure wrapped in a column
    /// five characters wide. One line a run, at 80 columns, whatever the kind.
    #[test]
    fn fifty_runs_are_fifty_lines() {
        let kinds = [
            (
                "tiobench",
                "Sequential Read, one run (Sequential Write 106 MB/s)",
                "seq read",
            ),
            ("mark:default", "SEQ1M Q8T1 read, best of 5", "SEQ1M Q8T1 read"),
            (
                "bonnie",
                "block read, one run (block write 289 MB/s)",
                "block read",
            ),
            ("sweep", "bs=4k mix=100/0 read, best of 3", "bs=4k mix=100/0 read"),
            ("io500", "ior-easy-write write, one run", "ior-easy-write"),
            ("db", "connect all operations, one run", "connect all ops"),
        ];
        let mut runs: Vec<RunSummary> = (1..=50)
            .map(|id| {
                let (suite, figure, short) = kinds[id as usize % kinds.len()];
                summary(id, suite, figure, short)
            })
            .collect();
        for labelled in [false, true] {
            if labelled {
                runs[3].label = Some("a label long enough to be cut at 80 columns".into());
            }
            let text = render(&runs);
            let lines: Vec<&str> = text.lines().collect();
            assert!(
                lines.iter().all(|l| super::super::width::display_width(l) <= 80),
                "{text}"
            );
            let rows = lines
                .iter()
                .filter(|l| {
                    l.split_whitespace()
                        .next()
                        .is_some_and(|w| w.trim_end_matches('*').parse::<i64>().is_ok())
                })
                .count();
            assert_eq!(rows, 50, "{text}");
            assert!(lines.len() <= 50 + 6, "{} lines:\n{text}", lines.len());
            assert!(
                text.contains(" seq read ") && text.contains(" SEQ1M Q8T1 read "),
                "{text}"
            );
            // Runs of one year: the year is said once, in the heading.
            assert!(
                lines[1].contains(" 2026 (UTC) ") && !lines[3].contains("2026-"),
                "{text}"
            );
            assert!(text.contains(" 7* ") && text.contains("*: INCOMPLETE"), "{text}");
        }
    }

    /// The figure says what the numbers on its line are: it keeps its few
    /// words before a long suite name or a label does (a profile's suite
    /// name, a label, a rate of the page cache).
    #[test]
    fn the_figure_gets_its_room_first() {
        let mut runs: Vec<RunSummary> = (1..=3)
            .map(|id| {
                let mut r = summary(
                    id,
                    "mark:peak-mix-nvme",
                    "SEQ1M Q8T1 read, one run",
                    "SEQ1M Q8T1 read",
                );
                (r.iops, r.bytes_per_sec) = (806_350.0, 3.3e9);
                r
            })
            .collect();
        runs[1].figure_short = "bs=4k mix=100/0 read".into();
        // A database's queries move no bytes.
        runs[0].bytes_per_sec = 0.0;
        runs[2].label = Some("a long label for a run to see how it is cut".into());
        let text = render(&runs);
        assert!(
            text.lines().all(|l| super::super::width::display_width(l) <= 80),
            "{text}"
        );
        assert!(text.contains(" SEQ1M Q8T1 read "), "{text}");
        assert!(text.contains(" bs=4k mix=100/0 read "), "{text}");
        assert!(text.contains(" mark:"), "{text}");
        assert!(
            text.contains("   -   806350 ") && !text.contains("0.000"),
            "{text}"
        );
    }
}
