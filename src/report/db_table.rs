//! `kura suite db`'s tables: sql-bench's seconds per test with the rates and
//! commit latencies behind them, sysbench's OLTP figures, and the same rows
//! set side by side for `kura compare` (test rows, run columns, ratios).
//! Pure: from stored runs to rows to text.

use serde::Serialize;

use super::export::Grid;
use super::format::{latency, utc};
use crate::jobs::db_params::Test;
use crate::metrics::{DirectionResult, JobResult, OpKind, RunResult};

/// One test of one run, the mean of its repetitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DbRow {
    pub test: String,
    pub repetitions: usize,
    /// Wall time of the test, as sql-bench's "Time for ..." total.
    pub seconds: f64,
    /// Statements per second, each OLTP transaction's BEGIN and COMMIT
    /// among them as sysbench counts them (`queries` below).
    pub queries_per_sec: f64,
    /// Commits, explicit or one per write in autocommit mode.
    pub commits: u64,
    pub commit_p50_ns: Option<u64>,
    pub commit_p99_ns: Option<u64>,
    /// The median SELECT: what the page cache answers whatever the storage.
    pub select_p50_ns: Option<u64>,
    /// sysbench's figures, for the OLTP mix.
    pub oltp: Option<OltpFigures>,
    pub incomplete: bool,
}

/// What sysbench prints for oltp_read_write: transactions and queries per
/// second (queries include BEGIN and COMMIT, as sysbench's "other"), and
/// the latency of whole transactions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OltpFigures {
    pub tables: u32,
    pub table_size: u64,
    pub threads: u32,
    pub transactions: u64,
    pub transactions_per_sec: f64,
    pub queries_per_sec: f64,
    pub lat_min_ns: u64,
    pub lat_mean_ns: f64,
    pub lat_p95_ns: Option<u64>,
    pub lat_p99_ns: Option<u64>,
    pub lat_max_ns: u64,
}

fn pct(d: &DirectionResult, key: &str) -> Option<u64> {
    d.lat_ns.percentiles.get(key).copied()
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn secs(j: &JobResult) -> f64 {
    j.elapsed_ns as f64 / 1e9
}

/// The tests of a db run in the order they ran, repetitions averaged.
pub fn rows(run: &RunResult) -> Vec<DbRow> {
    let mut tests: Vec<&str> = Vec::new();
    for j in &run.jobs {
        if let Some(t) = j.test.as_deref()
            && !tests.contains(&t)
        {
            tests.push(t);
        }
    }
    tests
        .into_iter()
        .map(|test| {
            let jobs: Vec<&JobResult> = run
                .jobs
                .iter()
                .filter(|j| j.test.as_deref() == Some(test))
                .collect();
            let ops = |j: &JobResult, k: OpKind| j.operation(k).map_or(0, |d| d.ops);
            let last = jobs.last().copied();
            let commit = last.and_then(|j| j.operation(OpKind::Commit));
            let oltp = (Test::from_name(test) == Some(Test::OltpReadWrite))
                .then(|| last.and_then(oltp_figures))
                .flatten();
            DbRow {
                test: test.to_string(),
                repetitions: jobs.len(),
                seconds: mean(jobs.iter().map(|j| secs(j))),
                // The run's figure is this rate (`queries`).
                queries_per_sec: super::figure::rate(jobs.iter().copied(), queries).ops_per_sec,
                commits: last.map_or(0, |j| ops(j, OpKind::Commit)),
                commit_p50_ns: commit.and_then(|d| pct(d, "50.000000")),
                commit_p99_ns: commit.and_then(|d| pct(d, "99.000000")),
                select_p50_ns: last
                    .and_then(|j| j.operation(OpKind::Read))
                    .and_then(|d| pct(d, "50.000000")),
                oltp,
                incomplete: jobs.iter().any(|j| j.incomplete),
            }
        })
        .collect()
}

fn oltp_figures(j: &JobResult) -> Option<OltpFigures> {
    let p = j.job.workload.database()?;
    let txn = j.operation(OpKind::Transaction)?;
    let s = secs(j);
    let rate = |n: u64| if s > 0.0 { n as f64 / s } else { 0.0 };
    Some(OltpFigures {
        tables: p.oltp_tables,
        table_size: p.oltp_table_size,
        threads: p.oltp_threads,
        transactions: txn.ops,
        transactions_per_sec: rate(txn.ops),
        queries_per_sec: super::figure::rate([j], queries).ops_per_sec,
        lat_min_ns: txn.lat_ns.min,
        lat_mean_ns: txn.lat_ns.mean,
        lat_p95_ns: pct(txn, "95.000000"),
        lat_p99_ns: pct(txn, "99.000000"),
        lat_max_ns: txn.lat_ns.max,
    })
}

fn opt_lat(ns: Option<u64>) -> String {
    ns.map(|n| latency(n as f64)).unwrap_or_else(|| "-".into())
}

/// Where kura's tests differ from sql-bench's and sysbench's, said under every table.
pub const DB_DIFFERENCES: &str = "\
Seconds per test as sql-bench's total; counts are sql-bench's times --scale,
in each database's dialect (docs/db.md says what differs). The commit
columns are where the storage shows (every write outside a transaction is
a commit); SELECTs are mostly answered from cache.
";

/// The table's columns: English heading and width; a translated heading
/// wider than its column widens it (Japanese takes two columns a character).
const COLUMNS: [(&str, usize); 7] = [
    ("test", 15),
    ("seconds", 9),
    ("queries/s", 9),
    ("commits", 7),
    ("commit p50", 11),
    ("commit p99", 11),
    ("select p50", 11),
];

/// The table of tests (80 columns), then sysbench's OLTP lines. Laid out
/// by hand, not by export::Grid: at 80 columns its fitting cut
/// `oltp_read_write` or dropped a column, where these widths hold all.
pub fn render(rows: &[DbRow]) -> String {
    use super::pad::{cut, left, right};
    let headings: Vec<String> = COLUMNS.iter().map(|(h, _)| crate::i18n::heading(h)).collect();
    let widths: Vec<usize> = COLUMNS
        .iter()
        .zip(&headings)
        .map(|((_, w), h)| (*w).max(super::width::display_width(h)))
        .collect();
    let line = |cells: [String; 7]| {
        let mut out = left(&cells[0], widths[0]);
        for (c, w) in cells[1..].iter().zip(&widths[1..]) {
            out.push(' ');
            out.push_str(&right(c, *w));
        }
        out.push('\n');
        out
    };
    let mut out = line(std::array::from_fn(|i| headings[i].clone()));
    for r in rows {
        let mark = if r.incomplete { "*" } else { "" };
        // Escaped before it is cut, so that an escape is cut as it is shown.
        let name = cut(&format!("{}{mark}", super::escape::term(&r.test)), widths[0]);
        out.push_str(&line([
            name,
            format!("{:.2}", r.seconds),
            format!("{:.1}", r.queries_per_sec),
            r.commits.to_string(),
            opt_lat(r.commit_p50_ns),
            opt_lat(r.commit_p99_ns),
            opt_lat(r.select_p50_ns),
        ]));
    }
    if rows.iter().any(|r| r.incomplete) {
        out.push_str(&format!("{}\n", crate::t!("dbrun-stopped-early")));
    }
    for r in rows {
        if let Some(o) = &r.oltp {
            out.push_str(&oltp_lines(o, r.seconds));
        }
    }
    out
}

fn oltp_lines(o: &OltpFigures, seconds: f64) -> String {
    format!(
        "\n{}\n  {}\n  {}\n  {}\n",
        crate::t!(
            "dbrun-oltp-shape",
            tables = o.tables,
            rows = o.table_size,
            threads = o.threads,
            seconds = format!("{seconds:.1}")
        ),
        crate::t!(
            "dbrun-oltp-transactions",
            transactions = o.transactions,
            tps = format!("{:.2}", o.transactions_per_sec),
            qps = format!("{:.2}", o.queries_per_sec)
        ),
        crate::t!(
            "dbrun-oltp-latency",
            min = latency(o.lat_min_ns as f64),
            avg = latency(o.lat_mean_ns),
            max = latency(o.lat_max_ns as f64)
        ),
        crate::t!(
            "dbrun-oltp-percentiles",
            p95 = opt_lat(o.lat_p95_ns),
            p99 = opt_lat(o.lat_p99_ns)
        ),
    )
}

/// The first line of a db run's page: where, with which durability settings.
pub fn header(run: &RunResult) -> String {
    let first = run.jobs.first();
    let p = first.and_then(|j| j.job.workload.database());
    let place = first
        .map(|j| {
            let mut s = super::escape::term(&j.target.path).into_owned();
            if let Some(fs) = &j.target.fs_type {
                s.push_str(&format!(" ({}", super::escape::term(fs)));
                if let Some(dev) = &j.target.device {
                    s.push_str(&format!(
                        " {}",
                        crate::t!("target-on", dev = super::escape::term(dev))
                    ));
                }
                s.push(')');
            }
            s
        })
        .unwrap_or_default();
    let settings = p
        .map(|p| {
            let sync = match (p.server, &p.server_sync) {
                (crate::jobs::db_params::Server::Postgres, Some(v)) => format!("synchronous_commit {v}"),
                (crate::jobs::db_params::Server::Mariadb, Some(v)) => {
                    format!("innodb_flush_log_at_trx_commit {v}")
                }
                _ => format!(
                    "synchronous {}, journal {}",
                    p.synchronous.name(),
                    p.journal.name()
                ),
            };
            format!("{sync}, scale {}", p.scale())
        })
        .unwrap_or_default();
    let server = p.map(|p| p.server.to_string()).unwrap_or_default();
    let label = run
        .label
        .as_ref()
        .map(|l| crate::t!("run-label", label = super::escape::term(l)))
        .unwrap_or_default();
    format!(
        "kura db {} · {}{label}\n{}\n{settings}\n",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        utc(run.started_unix_s),
        crate::t!("dbrun-server-in", server = server, place = place)
    )
}

/// One compared quantity of one test: seconds, or the OLTP mix's TPS and p95.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    pub test: String,
    /// `s`, `tps` or `p95 ms`.
    pub unit: &'static str,
    /// Whether a larger value is better (TPS) or worse (seconds, latency).
    pub higher_is_better: bool,
    /// One per run, in the order given; `None` where a run lacks the test.
    pub values: Vec<Option<f64>>,
    /// value / the baseline's, per run.
    pub ratios: Vec<Option<f64>>,
}

/// Test rows across runs, with ratios to `baseline`.
pub fn compare_rows(runs: &[&RunResult], baseline: usize) -> Vec<CompareRow> {
    let per_run: Vec<Vec<DbRow>> = runs.iter().map(|r| rows(r)).collect();
    let mut tests: Vec<String> = Vec::new();
    for rows in &per_run {
        for r in rows {
            if !tests.contains(&r.test) {
                tests.push(r.test.clone());
            }
        }
    }
    let mut out = Vec::new();
    type Pick = fn(&DbRow) -> Option<f64>;
    for test in &tests {
        let mut kinds: Vec<(&'static str, bool, Pick)> = vec![("s", false, |r| Some(r.seconds))];
        if Test::from_name(test) == Some(Test::OltpReadWrite) {
            kinds.push(("tps", true, |r| r.oltp.as_ref().map(|o| o.transactions_per_sec)));
            kinds.push(("p95 ms", false, |r| {
                r.oltp.as_ref()?.lat_p95_ns.map(|n| n as f64 / 1e6)
            }));
        }
        for (unit, higher, pick) in kinds {
            let values: Vec<Option<f64>> = per_run
                .iter()
                .map(|rows| rows.iter().find(|r| &r.test == test).and_then(pick))
                .collect();
            let base = values.get(baseline).copied().flatten();
            let ratios = values
                .iter()
                .map(|v| match (v, base) {
                    (Some(v), Some(b)) if b > 0.0 => Some(v / b),
                    _ => None,
                })
                .collect();
            out.push(CompareRow {
                test: test.clone(),
                unit,
                higher_is_better: higher,
                values,
                ratios,
            });
        }
    }
    out
}

/// Settings that differ between the compared runs, one line each: such
/// runs do not measure the same work, and their ratios say so only here.
/// The settings are the database options that decide comparability in the
/// option table (`Job::identity_in`), then the OLTP mix's threads: the table's
/// `threads`, which the suite keeps in `DbParams` (the job's own stays 1).
pub fn setting_notes(runs: &[&RunResult]) -> Vec<String> {
    use crate::jobs::options::{Scope, Value};
    let none = crate::jobs::Job::default();
    // Per run, each setting's name (compare's noun) and value; `-` where a run has none.
    let per_run: Vec<Vec<(&str, String)>> = runs
        .iter()
        .map(|r| {
            let job = r.jobs.first().map_or(&none, |j| &j.job);
            let threads = job
                .workload
                .database()
                .map(|p| Value::Count(p.oltp_threads.into()));
            job.identity_in(Scope::Database)
                .map(|(d, v)| (d.identity.map_or(d.key, |i| i.noun), v))
                .chain([("threads", threads)])
                .map(|(name, v)| (name, v.map_or_else(|| "-".to_string(), |v| v.to_string())))
                .collect()
        })
        .collect();
    let Some(first) = per_run.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, (name, _)) in first.iter().enumerate() {
        let values: Vec<&str> = per_run.iter().map(|r| r[i].1.as_str()).collect();
        if values.iter().any(|v| v != &values[0]) {
            out.push(crate::t!(
                "dbrun-runs-differ",
                setting = crate::i18n::phrase("diff", name),
                values = values.join(", ")
            ));
        }
    }
    out
}

/// The comparison as text: test rows, a column per run, then ratio columns.
/// At 80 columns names are cut to fit; `--wide` shows them whole.
pub fn render_compare(names: &[String], baseline: usize, rows: &[CompareRow]) -> String {
    let wide = super::width::wide();
    let mut out = compare_grid(names, baseline, rows, Style::Table { wide }).to_table();
    let base = names.get(baseline).map_or("baseline", String::as_str);
    let base = super::escape::term_cut(base, if wide { usize::MAX } else { 30 });
    out.push_str(&format!("{}\n", crate::t!("dbrun-compare-legend", base = base)));
    out
}

/// The comparison as Markdown (`md`) or CSV: the same columns, full names, values unrounded in CSV.
pub fn render_compare_delimited(names: &[String], baseline: usize, rows: &[CompareRow], md: bool) -> String {
    if md {
        compare_grid(names, baseline, rows, Style::Markdown).to_markdown()
    } else {
        compare_grid(names, baseline, rows, Style::Csv).to_csv()
    }
}

/// Which writer a comparison's grid is for: its names and numbers differ.
#[derive(Clone, Copy)]
enum Style {
    /// Names cut to their columns at 80 columns (not with `wide`), values rounded.
    Table {
        wide: bool,
    },
    Markdown,
    Csv,
}

/// Test rows, a column per run, then a ratio column per run but the baseline.
fn compare_grid(names: &[String], baseline: usize, rows: &[CompareRow], style: Style) -> Grid {
    // Translated on the terminal only (Grid::to_table); CSV and Markdown keep English.
    let mut header = vec!["test".to_string(), "unit".to_string()];
    match style {
        Style::Table { wide } => {
            // Cut once escaped, so that an escape is cut as it is shown.
            let shown = |n: &str, narrow: usize| {
                let n = super::escape::term(n);
                if wide {
                    n.into_owned()
                } else {
                    super::pad::cut(&n, narrow)
                }
            };
            header.extend(names.iter().map(|n| shown(n, 10)));
            for (i, n) in names.iter().enumerate() {
                if i != baseline {
                    header.push(format!("x{}", shown(n, 7)));
                }
            }
        }
        Style::Markdown | Style::Csv => {
            header.extend(names.iter().cloned());
            for (i, n) in names.iter().enumerate() {
                if i != baseline {
                    header.push(format!("{n} / {}", names[baseline]));
                }
            }
        }
    }
    let num = |v: Option<f64>| match (v, style) {
        (Some(v), Style::Csv) => v.to_string(),
        (Some(v), _) => format!("{v:.2}"),
        (None, Style::Table { .. }) => "-".to_string(),
        (None, _) => String::new(),
    };
    let mut g = Grid::new(header);
    g.left = 2;
    for r in rows {
        let mut cells = vec![r.test.clone(), r.unit.to_string()];
        cells.extend(r.values.iter().map(|v| num(*v)));
        for (i, x) in r.ratios.iter().enumerate() {
            if i != baseline {
                cells.push(num(*x));
            }
        }
        g.push(cells);
    }
    g
}

/// A database test's queries: the statements it sent, BEGIN and COMMIT
/// among them, as sysbench counts its queries (its "other"). Only the OLTP
/// mix sends them, one of each a transaction (`database::oltp`); sql-bench's
/// writes autocommit and send neither. No bytes: a query's size is not the
/// storage's.
pub fn queries(j: &JobResult) -> (u64, u64) {
    let ops = |k: OpKind| j.operation(k).map_or(0, |d| d.ops);
    let test = j
        .job
        .workload
        .database()
        .map(|p| p.test.as_str())
        .or(j.test.as_deref());
    let explicit = test.and_then(Test::from_name) == Some(Test::OltpReadWrite);
    (
        ops(OpKind::Query) + if explicit { 2 * ops(OpKind::Transaction) } else { 0 },
        0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(test: &str, seconds: f64) -> DbRow {
        DbRow {
            test: test.into(),
            repetitions: 1,
            seconds,
            queries_per_sec: 1000.0,
            commits: 10,
            commit_p50_ns: Some(1_500_000),
            commit_p99_ns: Some(9_000_000),
            select_p50_ns: Some(12_345),
            oltp: None,
            incomplete: false,
        }
    }

    #[test]
    fn the_table_fits_80_columns() {
        let mut rows = vec![row("create", 1234.5), row("alter-table", 0.1)];
        rows[1].incomplete = true;
        rows.push(DbRow {
            oltp: Some(OltpFigures {
                tables: 4,
                table_size: 1_000_000,
                threads: 16,
                transactions: 123_456,
                transactions_per_sec: 12_345.67,
                queries_per_sec: 246_913.4,
                lat_min_ns: 999_990_000,
                lat_mean_ns: 999_990_000.0,
                lat_p95_ns: Some(999_990_000),
                lat_p99_ns: Some(999_990_000),
                lat_max_ns: 999_990_000,
            }),
            ..row("oltp_read_write", 10.0)
        });
        let text = render(&rows) + DB_DIFFERENCES;
        assert!(text.contains("create"), "{text}");
        assert!(text.contains("alter-table*"), "{text}");
        assert!(
            text.contains("transactions: 123456 (12345.67 per sec.)"),
            "{text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
        let names = vec![
            "hdd".to_string(),
            "ssd".to_string(),
            "a long name here".to_string(),
        ];
        let cmp = vec![CompareRow {
            test: "create".into(),
            unit: "s",
            higher_is_better: false,
            values: vec![Some(10.0), Some(2.5), None],
            ratios: vec![Some(1.0), Some(0.25), None],
        }];
        let text = render_compare(&names, 0, &cmp);
        assert!(text.contains("0.25"), "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
        // --wide: every name whole, its column as wide as it.
        let wide = compare_grid(&names, 0, &cmp, Style::Table { wide: true }).to_table();
        let header = wide.lines().nth(1).unwrap();
        assert!(header.contains(" a long name here"), "{wide}");
        assert!(header.contains(" xa long name here"), "{wide}");
        let values = wide.lines().nth(3).unwrap();
        let col = header.find(" a long name here").unwrap() + " a long name here".len();
        assert!(
            values[..col].ends_with(" -"),
            "its value right under its name's end:\n{wide}"
        );
        let csv = render_compare_delimited(&names, 0, &cmp, false);
        assert_eq!(
            csv,
            "test,unit,hdd,ssd,a long name here,ssd / hdd,a long name here / hdd\ncreate,s,10,2.5,,0.25,\n"
        );
        let md = render_compare_delimited(&names, 0, &cmp, true);
        assert!(
            md.contains("|---|---|--:|--:|--:|--:|--:|")
                && md.contains("| create | s | 10.00 | 2.50 |  | 0.25 |  |"),
            "{md}"
        );
    }

    /// A label is a compared run's name, a test's name comes from the
    /// stored (or imported) run: each reaches CSV as text a spreadsheet
    /// does not run, Markdown with its pipes escaped, and every format with
    /// its control characters escaped (they used to reach them raw).
    #[test]
    fn hostile_names_are_neutralised_in_every_format() {
        const FORMULA: &str = "=cmd|' /C calc'!A0";
        let names = vec![FORMULA.to_string(), "a\x1b[2Jb|c".to_string()];
        let test = "t\x1b]0;x\x07|y";
        let cmp = vec![CompareRow {
            test: test.into(),
            unit: "s",
            higher_is_better: false,
            values: vec![Some(10.0), Some(2.5)],
            ratios: vec![Some(1.0), Some(0.25)],
        }];
        let raw = |text: &str| text.contains(['\x1b', '\x07']);

        let csv = render_compare_delimited(&names, 0, &cmp, false);
        assert!(!raw(&csv), "{csv:?}");
        let header = csv.lines().next().unwrap();
        assert!(header.starts_with("test,unit,\"'=cmd|' /C calc'!A0\","), "{csv}");
        assert!(csv.contains("a\\u{1b}[2Jb|c / =cmd|"), "{csv}");
        assert!(csv.contains("t\\u{1b}]0;x\\u{7}|y,s,"), "{csv}");

        let md = render_compare_delimited(&names, 0, &cmp, true);
        assert!(!raw(&md), "{md:?}");
        assert!(md.contains("| =cmd\\|' /C calc'!A0 | a\\u{1b}[2Jb\\|c |"), "{md}");
        assert!(md.contains("| t\\u{1b}]0;x\\u{7}\\|y | s |"), "{md}");
        // Every line has the header's cells: no pipe of a name splits one.
        let cells = |l: &str| l.replace("\\|", "").matches('|').count();
        assert!(md.lines().all(|l| cells(l) == 6), "{md}");

        let table = render_compare(&names, 0, &cmp);
        assert!(!raw(&table), "{table:?}");
        assert!(table.contains("a\\u{1b}[2"), "{table}");
        let mut row = self::row(test, 1.0);
        row.test = test.into();
        let text = render(&[row]);
        assert!(!raw(&text), "{text:?}");
        assert!(text.contains("t\\u{1b}]0;x"), "{text}");
    }
}
