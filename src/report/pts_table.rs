//! `kura suite pts`'s tables from a stored run: per PTS test, the points
//! averaged over the steady-state measurement window (the rounds the
//! `rounds` verdict names), the IOPS matrix as block size rows x mix
//! columns, throughput, and latency; and what the HTML report plots (the
//! rounds' convergence, the WS job's series). Pure: a run in, rows and text out.

use serde::Serialize;

use super::format::{latency, mb_per_sec, rate};
use super::run_table::new_table;
use crate::jobs::pts::PURGE_METHOD;
use crate::jobs::sweep::mix_name;
use crate::jobs::units::format_size;
use crate::metrics::histogram::percentile_key;
use crate::metrics::steady::{Rounds, value_of};
use crate::metrics::{IntervalPoint, JobResult, RunResult, Warning};

/// One point of a test over its measurement window.
#[derive(Debug, Clone, Serialize)]
pub struct PtsPoint {
    pub point: String,
    pub bs_bytes: u64,
    pub read_pct: u8,
    /// Rounds averaged (the window's, or every round when fewer than 5 ran).
    pub rounds: usize,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Mean latency of reads and writes, weighted by their operations.
    pub lat_mean_ns: f64,
    /// The largest latency of any round in the window.
    pub lat_max_ns: u64,
    /// Percentile (fio's key, "99.000000") to nanoseconds, the window's mean.
    pub lat_percentiles_ns: Vec<(String, f64)>,
}

/// One PTS test of the run.
#[derive(Debug, Clone, Serialize)]
pub struct PtsTestRows {
    /// `IOPS`, `TP 1m`, `LAT`, `WS`.
    pub test: String,
    /// The purge that ran before it (`blkdiscard`), or none.
    pub purge: Option<String>,
    /// Rounds run, whether the tracked point was steady, and the window (first, last round).
    pub rounds: usize,
    pub steady: bool,
    pub window: Option<(u32, u32)>,
    pub points: Vec<PtsPoint>,
    /// How the rounds came to the window (tests run in rounds). Left out
    /// of JSON: the run's `rounds` warning and its jobs carry the same.
    #[serde(skip)]
    pub convergence: Option<Convergence>,
    /// WS: the job's interval series, its curve. Left out of JSON as above.
    #[serde(skip)]
    pub series: Vec<IntervalPoint>,
}

/// The PTS's convergence plot of a test: its tracked variable by round for
/// the points that decide steady state and the points charted beside them.
#[derive(Debug, Clone)]
pub struct Convergence {
    /// The points steady state is judged on (`IOPS bs=4k mix=0/100`; PTS
    /// 2.0.2's IOPS test has three), each with its verdict: the variable,
    /// its value by round, the last window.
    pub tracked: Vec<(String, Rounds)>,
    /// (point, its tracked variable in round 1, 2, ...; `None` for a round
    /// it did not run), the tracked points first, then in the order they
    /// ran: the points of the R/W mix of the tracked point with the most
    /// writes (the spec's "all block sizes" plot), or every point of a test
    /// of one block size (TP's read and write).
    pub lines: Vec<(String, Vec<Option<f64>>)>,
}

/// The percentiles shown in the latency table.
const LAT_PERCENTILES: [f64; 3] = [99.0, 99.99, 99.999];

pub fn rows(run: &RunResult) -> Vec<PtsTestRows> {
    let mut out: Vec<PtsTestRows> = tests_in_rounds(run)
        .into_iter()
        .map(|t| PtsTestRows {
            test: t.test.to_string(),
            purge: purge_of(run, t.test),
            rounds: t.rounds,
            steady: t.steady,
            window: t.window,
            points: points(run, t.test, t.span().0, t.span().1),
            convergence: Some(convergence(run, t.test, &t.tracked)),
            series: Vec::new(),
        })
        .collect();
    if let Some(ws) = run
        .jobs
        .iter()
        .find(|j| j.test.as_deref().is_some_and(|t| t.starts_with("WS RND")))
    {
        out.push(PtsTestRows {
            test: "WS".into(),
            purge: purge_of(run, "WS"),
            rounds: ws.series.len(),
            steady: false,
            window: None,
            points: vec![point(ws.test.clone().unwrap_or_default(), &[ws])],
            convergence: None,
            series: ws.series.clone(),
        });
    }
    out
}

/// A test run in rounds, from the `rounds` verdicts of its tracked points
/// (the IOPS test has three, all of which must be steady).
struct TestRounds<'r> {
    test: &'r str,
    /// Each tracked point's name and verdict.
    tracked: Vec<(&'r str, &'r Rounds)>,
    rounds: usize,
    steady: bool,
    window: Option<(u32, u32)>,
}

impl TestRounds<'_> {
    /// The rounds its figures come from: the measurement window, else all.
    fn span(&self) -> (u32, u32) {
        self.window.unwrap_or((1, self.rounds as u32))
    }
}

fn tests_in_rounds(run: &RunResult) -> Vec<TestRounds<'_>> {
    let mut out: Vec<TestRounds<'_>> = Vec::new();
    for w in &run.warnings {
        let Warning::Rounds { job, rounds } = w else {
            continue;
        };
        let Some((test, _)) = job.split_once(" bs=") else {
            continue;
        };
        let window = rounds.window.as_ref().map(|w| (w.first_round, w.last_round));
        let n = rounds.values.len();
        match out.iter_mut().find(|t| t.test == test) {
            Some(t) => {
                t.tracked.push((job, rounds));
                t.steady &= rounds.steady;
                t.rounds = t.rounds.max(n);
                t.window = t.window.or(window);
            }
            None => out.push(TestRounds {
                test,
                tracked: vec![(job, rounds)],
                rounds: n,
                steady: rounds.steady,
                window,
            }),
        }
    }
    out
}

fn convergence(run: &RunResult, test: &str, tracked: &[(&str, &Rounds)]) -> Convergence {
    let figure = tracked
        .first()
        .map_or(crate::metrics::steady::Tracked::Iops, |t| t.1.tracked);
    // Every round's jobs, by point, in the order the points ran.
    let mut lines: Vec<(String, u8, u64, Vec<Option<f64>>)> = Vec::new();
    for (name, round, j) in rounds_of(run, test, 1, u32::MAX) {
        let round = round.max(1) as usize;
        let at = match lines.iter().position(|l| l.0 == name) {
            Some(i) => i,
            None => {
                lines.push((
                    name.to_string(),
                    j.job.effective_read_pct(),
                    j.job.max_bs(),
                    Vec::new(),
                ));
                lines.len() - 1
            }
        };
        let values = &mut lines[at].3;
        if values.len() < round {
            values.resize(round, None);
        }
        values[round - 1] = Some(value_of(figure, j));
    }
    let is_tracked = |name: &str| tracked.iter().any(|t| t.0 == name);
    let mix = lines.iter().filter(|l| is_tracked(&l.0)).map(|l| l.1).min();
    let one_size = lines.iter().all(|l| lines.first().is_some_and(|f| f.2 == l.2));
    let mut charted: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    let mut companions = Vec::new();
    for (name, read_pct, _, values) in lines {
        if is_tracked(&name) {
            charted.push((name, values));
        } else if one_size || Some(read_pct) == mix {
            companions.push((name, values));
        }
    }
    charted.extend(companions);
    Convergence {
        tracked: tracked
            .iter()
            .map(|(name, r)| (name.to_string(), (*r).clone()))
            .collect(),
        lines: charted,
    }
}

fn purge_of(run: &RunResult, test: &str) -> Option<String> {
    let name = format!("{test} purge {PURGE_METHOD}");
    run.jobs
        .iter()
        .any(|j| j.test.as_deref() == Some(name.as_str()) && !j.incomplete)
        .then(|| PURGE_METHOD.to_string())
}

/// The test's points, each averaged over rounds `first..=last`, in the order they ran.
fn points(run: &RunResult, test: &str, first: u32, last: u32) -> Vec<PtsPoint> {
    let mut names: Vec<&str> = Vec::new();
    let mut by_name: Vec<Vec<&JobResult>> = Vec::new();
    for (name, _, j) in rounds_of(run, test, first, last) {
        match names.iter().position(|n| *n == name) {
            Some(i) => by_name[i].push(j),
            None => {
                names.push(name);
                by_name.push(vec![j]);
            }
        }
    }
    names
        .into_iter()
        .zip(by_name)
        .map(|(name, js)| point(name.to_string(), &js))
        .collect()
}

/// The jobs of `test`'s rounds `first..=last`, each with its point's name
/// (its test without the round) and its round.
fn rounds_of<'r>(
    run: &'r RunResult,
    test: &str,
    first: u32,
    last: u32,
) -> impl Iterator<Item = (&'r str, u32, &'r JobResult)> {
    let prefix = format!("{test} bs=");
    run.jobs.iter().filter_map(move |j| {
        let (name, round) = j.test.as_deref()?.rsplit_once(" round ")?;
        let round = round.parse::<u32>().ok()?;
        (name.starts_with(&prefix) && (first..=last).contains(&round)).then_some((name, round, j))
    })
}

/// What a comparison of PTS runs weighs, each job named by its test point
/// (`IOPS bs=4k mix=0/100`, no round): the rounds of each test's
/// measurement window (every round when it has none), and the WS job.
/// Purges, preconditioning and the rounds before the window are left out,
/// as the spec reports only the window.
pub fn window_jobs(run: &RunResult) -> Vec<(String, &JobResult)> {
    let mut out: Vec<(String, &JobResult)> = tests_in_rounds(run)
        .into_iter()
        .flat_map(|t| rounds_of(run, t.test, t.span().0, t.span().1).map(|(n, _, j)| (n.to_string(), j)))
        .collect();
    out.extend(run.jobs.iter().filter_map(|j| {
        j.test
            .as_deref()
            .filter(|t| t.starts_with("WS RND"))
            .map(|t| (t.to_string(), j))
    }));
    out
}

fn point(name: String, js: &[&JobResult]) -> PtsPoint {
    let n = js.len().max(1) as f64;
    let dirs = || js.iter().flat_map(|j| j.directions().map(|(_, d)| d));
    let ops: f64 = dirs().map(|d| d.ops as f64).sum();
    let weighted = |f: &dyn Fn(&crate::metrics::DirectionResult) -> Option<f64>| -> f64 {
        let (sum, count) = dirs().fold((0.0, 0.0), |(s, c), d| match f(d) {
            Some(v) => (s + v * d.ops as f64, c + d.ops as f64),
            None => (s, c),
        });
        if count > 0.0 { sum / count } else { 0.0 }
    };
    let job = &js[0].job;
    PtsPoint {
        point: name,
        bs_bytes: job.max_bs(),
        read_pct: job.effective_read_pct(),
        rounds: js.len(),
        iops: js
            .iter()
            .map(|j| j.directions().map(|(_, d)| d.iops).sum::<f64>())
            .sum::<f64>()
            / n,
        bytes_per_sec: js
            .iter()
            .map(|j| j.directions().map(|(_, d)| d.bytes_per_sec).sum::<f64>())
            .sum::<f64>()
            / n,
        lat_mean_ns: if ops > 0.0 {
            weighted(&|d| Some(d.lat_ns.mean))
        } else {
            0.0
        },
        lat_max_ns: dirs().map(|d| d.lat_ns.max).max().unwrap_or(0),
        lat_percentiles_ns: LAT_PERCENTILES
            .iter()
            .map(|p| {
                let key = percentile_key(*p);
                let v = weighted(&|d| d.lat_ns.percentiles.get(&key).map(|v| *v as f64));
                (key, v)
            })
            .collect(),
    }
}

/// A block size of the IOPS matrix, and its point under each mix.
pub type MatrixRow<'p> = (u64, Vec<Option<&'p PtsPoint>>);

/// The IOPS matrix's layout: the R/W mixes across (all writes first, as
/// the PTS's table), and per block size (smallest first) its point under
/// each mix, where one ran.
pub fn matrix(points: &[PtsPoint]) -> (Vec<u8>, Vec<MatrixRow<'_>>) {
    let mut mixes: Vec<u8> = points.iter().map(|p| p.read_pct).collect();
    mixes.sort_unstable();
    mixes.dedup();
    let mut sizes: Vec<u64> = points.iter().map(|p| p.bs_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let rows = sizes
        .into_iter()
        .map(|bs| {
            let cells = mixes
                .iter()
                .map(|m| points.iter().find(|p| p.bs_bytes == bs && p.read_pct == *m))
                .collect();
            (bs, cells)
        })
        .collect();
    (mixes, rows)
}

/// The tables, one per test, under a line on its purge and steady state.
pub fn render(tests: &[PtsTestRows]) -> String {
    let mut out = String::new();
    for t in tests {
        out.push_str(&format!("\n{}\n", heading(t)));
        let body = if t.test == "IOPS" {
            iops_matrix(&t.points)
        } else if t.test.starts_with("TP") {
            throughput(&t.points)
        } else {
            latencies(&t.points)
        };
        out.push_str(&format!("{body}\n"));
    }
    out
}

/// `IOPS · purged (blkdiscard) · steady, window rounds 3-7 of 7`.
pub fn heading(t: &PtsTestRows) -> String {
    let purge = match &t.purge {
        Some(p) => crate::t!("pts-purged", method = p.as_str()),
        None => crate::t!("pts-not-purged"),
    };
    let state = match (t.test.as_str(), t.window) {
        ("WS", _) => crate::t!("pts-ws-intervals", intervals = t.rounds),
        (_, Some((first, last))) if t.steady => {
            crate::t!("pts-steady", first = first, last = last, rounds = t.rounds)
        }
        _ => crate::t!("pts-not-steady", rounds = t.rounds),
    };
    format!("{} · {purge} · {state}", t.test)
}

/// The matrix's top left cell: what runs down and across.
pub const MATRIX_CORNER: &str = "bs \\ R/W";

/// Block sizes down, mixes across from all writes to all reads, as the
/// PTS's IOPS table (R/W from left (W) to right (R)).
fn iops_matrix(points: &[PtsPoint]) -> String {
    let (mixes, rows) = matrix(points);
    let heads: Vec<String> = mixes.iter().map(|m| mix_name(*m)).collect();
    let mut head = vec![MATRIX_CORNER];
    head.extend(heads.iter().map(String::as_str));
    let mut t = new_table(&head);
    for (bs, cells) in rows {
        let mut row = vec![format_size(bs)];
        row.extend(cells.iter().map(|c| c.map_or_else(String::new, |p| rate(p.iops))));
        t.add_row(row);
    }
    super::fit::render(&t)
}

fn throughput(points: &[PtsPoint]) -> String {
    let mut t = new_table(&["block size", "R/W", "MB/s", "IOPS"]);
    for p in points {
        t.add_row(vec![
            format_size(p.bs_bytes),
            mix_name(p.read_pct),
            mb_per_sec(p.bytes_per_sec),
            rate(p.iops),
        ]);
    }
    super::fit::render(&t)
}

fn latencies(points: &[PtsPoint]) -> String {
    let mut header: Vec<String> = ["block size", "R/W", "IOPS", "mean"].map(String::from).to_vec();
    header.extend(LAT_PERCENTILES.map(super::format::percentile_label));
    header.push("max".into());
    let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
    for p in points {
        let mut row = vec![
            format_size(p.bs_bytes),
            mix_name(p.read_pct),
            rate(p.iops),
            latency(p.lat_mean_ns),
        ];
        row.extend(p.lat_percentiles_ns.iter().map(|(_, v)| latency(*v)));
        row.push(latency(p.lat_max_ns as f64));
        t.add_row(row);
    }
    // The spec's mean and maximum stay; the deepest percentiles go first.
    super::fit::render_with(&t, &super::fit::Fit::new().drop_first(&[6, 5, 4]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convergence_charts_the_tracked_points_mix_or_a_single_sizes_every_point() {
        let tests = rows(&crate::report::fixtures::pts_run());
        let names: Vec<&str> = tests.iter().map(|t| t.test.as_str()).collect();
        assert_eq!(names, ["IOPS", "TP 1m", "LAT", "WS"]);
        let iops = tests[0].convergence.as_ref().unwrap();
        assert_eq!(iops.tracked.len(), 1);
        assert_eq!(iops.tracked[0].0, "IOPS bs=4k mix=0/100");
        // The tracked point first, then the other block size at all writes; no reads.
        let lines: Vec<&str> = iops.lines.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(lines, ["IOPS bs=4k mix=0/100", "IOPS bs=1m mix=0/100"]);
        assert_eq!(
            iops.lines[0].1,
            [2000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0].map(Some)
        );
        assert_eq!(
            iops.lines[0].1,
            iops.tracked[0]
                .1
                .values
                .iter()
                .map(|v| Some(*v))
                .collect::<Vec<_>>()
        );
        assert_eq!(iops.lines[1].1.len(), 6);
        assert_eq!((tests[0].window, tests[0].steady), (Some((2, 6)), true));
        // TP's one block size: both directions, in MB/s.
        let tp = tests[1].convergence.as_ref().unwrap();
        let lines: Vec<&str> = tp.lines.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(lines, ["TP 1m bs=1m mix=0/100", "TP 1m bs=1m mix=100/0"]);
        assert!(!tests[1].steady);
        // WS: no rounds, its series.
        assert!(tests[3].convergence.is_none());
        assert_eq!(tests[3].series.len(), 10);
        // The matrix: smallest block size first, all writes first.
        let (mixes, rows) = matrix(&tests[0].points);
        assert_eq!(mixes, [0, 100]);
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), [4096, 1 << 20]);
        assert_eq!(rows[0].1[0].unwrap().iops, 1000.0);
    }
}
