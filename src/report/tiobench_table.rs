//! tiobench's table: per test MiB/s, CPU %, average and maximum latency,
//! the share of requests slower than 2 s and 10 s, and CPU efficiency. A
//! run over several thread counts is printed as tiobench.pl prints it: one
//! table per test, one row per thread count.

use super::export::Grid;
use super::html::table::{Cell, Table, Value};
use super::run_table::new_table;
use crate::jobs::suites::tiobench_test_of;
use crate::metrics::RunResult;
use crate::metrics::histogram::{decode, new_histogram, share_above};

#[derive(Debug, Clone, serde::Serialize)]
pub struct TiobenchRow {
    pub test: String,
    /// Threads of the test's jobs (each on its own file).
    pub threads: u32,
    pub runs: usize,
    pub bytes_per_sec: f64,
    /// Worker CPU time over measured time, as tiobench's "CPU %".
    pub cpu_pct: f64,
    pub lat_mean_ns: f64,
    pub lat_max_ns: u64,
    pub pct_over_2s: f64,
    pub pct_over_10s: f64,
    /// MiB/s per CPU-second share: tiobench's "CPU Eff" (rate / (CPU % / 100)).
    pub cpu_efficiency: f64,
}

/// One row per test; repetitions merged (their histograms added).
pub fn rows(run: &RunResult) -> Vec<TiobenchRow> {
    let mut tests: Vec<String> = Vec::new();
    for j in &run.jobs {
        if let Some(t) = &j.test
            && !tests.contains(t)
        {
            tests.push(t.clone());
        }
    }
    tests
        .into_iter()
        .map(|test| {
            let jobs: Vec<_> = run
                .jobs
                .iter()
                .filter(|j| j.test.as_deref() == Some(test.as_str()))
                .collect();
            let mut hist = new_histogram();
            let (mut elapsed, mut cpu) = (0u64, 0u64);
            for j in &jobs {
                for (_, d) in j.directions() {
                    if let Some(h) = decode(&d.histogram) {
                        let _ = hist.add(&h);
                    }
                }
                elapsed += j.elapsed_ns;
                cpu += j.cpu_user_ns + j.cpu_system_ns;
            }
            // The run's figure is this rate (report::figure).
            let bytes_per_sec =
                super::figure::rate(jobs.iter().copied(), super::figure::all_operations).bytes_per_sec;
            let cpu_pct = if elapsed > 0 {
                cpu as f64 / elapsed as f64 * 100.0
            } else {
                0.0
            };
            let mib = bytes_per_sec / (1u64 << 20) as f64;
            TiobenchRow {
                threads: jobs.first().map_or(0, |j| j.job.threads),
                runs: jobs.len(),
                bytes_per_sec,
                cpu_pct,
                lat_mean_ns: if hist.is_empty() { 0.0 } else { hist.mean() },
                lat_max_ns: if hist.is_empty() { 0 } else { hist.max() },
                pct_over_2s: share_above(&hist, 2_000_000_000) * 100.0,
                pct_over_10s: share_above(&hist, 10_000_000_000) * 100.0,
                cpu_efficiency: if cpu_pct > 0.0 {
                    mib / (cpu_pct / 100.0)
                } else {
                    0.0
                },
                test,
            }
        })
        .collect()
}

/// The thread counts of a run, in the order they ran: `8`, or `1, 2, 4, 8`.
pub fn thread_counts(rows: &[TiobenchRow]) -> Vec<u32> {
    let mut counts: Vec<u32> = Vec::new();
    for r in rows {
        if !counts.contains(&r.threads) {
            counts.push(r.threads);
        }
    }
    counts
}

/// tiobench.pl's report order: reads before writes, sequential before random.
const REPORT_ORDER: [&str; 4] = [
    "Sequential Read",
    "Random Read",
    "Sequential Write",
    "Random Write",
];

pub fn render(rows: &[TiobenchRow]) -> String {
    if thread_counts(rows).len() <= 1 {
        // A test name stays on its line (never "Sequential" over "Write").
        let names: Vec<String> = rows.iter().map(|r| crate::i18n::heading(&r.test)).collect();
        return fitted(rows, &names, FirstColumn::Test);
    }
    // tiobench.pl (mkuoppal/tiobench at 11c965c): a table per test under
    // its title, a row per thread count in the order they ran.
    let mut out = String::new();
    for test in REPORT_ORDER {
        let of_test: Vec<TiobenchRow> = rows
            .iter()
            .filter(|r| tiobench_test_of(&r.test) == test)
            .cloned()
            .collect();
        if of_test.is_empty() {
            continue;
        }
        let title = crate::i18n::heading(test);
        out.push_str(&format!("\n{title}\n"));
        let names: Vec<String> = of_test.iter().map(|r| r.threads.to_string()).collect();
        out.push_str(&fitted(&of_test, &names, FirstColumn::Threads));
    }
    out
}

/// What the first column names: the test, or (one table per test) the
/// thread count, or (targets side by side) the target and thread count.
#[derive(Clone, Copy, PartialEq)]
enum FirstColumn {
    Test,
    Threads,
    Identifier,
}

fn fitted(rows: &[TiobenchRow], names: &[String], first: FirstColumn) -> String {
    // tiobench's own decimals first; at 80 columns, when large values (a
    // page-cache rate in the thousands of MiB/s) or wider Japanese names
    // would push the row past the terminal, fewer decimals rather than a
    // wrapped line; when none fits, the most decimals that lose the fewest
    // columns (from the right).
    let fit = super::fit::Fit::new();
    let table = DECIMALS
        .iter()
        .map(|d| super::fit::fitted(&render_with(rows, names, first, *d), &fit))
        .enumerate()
        .min_by_key(|(i, (_, gone))| (*gone, *i))
        .map(|(_, (text, _))| text)
        .unwrap_or_default();
    let mut out = format!("{table}\n");
    let most = rows.iter().map(|r| r.runs).max().unwrap_or(0);
    if !super::width::wide() && most > 1 {
        out.push_str(&format!("{}\n", crate::t!("tiobench-runs-note", runs = most)));
    }
    out
}

/// Decimals of (MiB/s, shares over 2 s and 10 s, CPU eff, latencies):
/// tiobench's own, then fewer.
const DECIMALS: [(usize, usize, usize, usize); 4] = [(2, 5, 1, 3), (1, 3, 0, 3), (0, 3, 0, 3), (0, 2, 0, 1)];

/// The headings at full width (`--wide`, Markdown, HTML), in English.
const WIDE_HEADER: [&str; 8] = [
    "test",
    "MiB/s",
    "CPU %",
    "avg lat ms",
    "max lat ms",
    "% >2 s",
    "% >10 s",
    "CPU eff",
];

/// The table's heading and cells, before a writer lays them out: the
/// terminal (comfy, fitted) and Markdown show the same cells.
fn cells(
    rows: &[TiobenchRow],
    names: &[String],
    first: FirstColumn,
    decimals: (usize, usize, usize, usize),
    wide: bool,
) -> Grid {
    // At 80 columns: shorter headers, and the repetitions said under the
    // table instead of in a column.
    let runs = wide;
    let mut header = if wide {
        WIDE_HEADER.to_vec()
    } else {
        vec![
            "test", "MiB/s", "CPU %", "avg ms", "max ms", "% >2s", "% >10s", "CPU eff",
        ]
    };
    match first {
        FirstColumn::Test => {}
        FirstColumn::Threads => header[0] = "threads",
        // tiobench.pl's Identifier and Num Thr.
        FirstColumn::Identifier => header.splice(0..1, ["identifier", "thr"]).for_each(drop),
    }
    // Japanese test names are wider ("シーケンシャル"): at 80 columns the
    // efficiency column takes the heading its numbers need.
    let eff_short = crate::t!("tiobench-cpu-eff-short");
    if !wide {
        let eff = header.len() - 1;
        header[eff] = &eff_short;
    }
    if runs {
        header.push("runs");
    }
    let mut g = Grid::new(header.iter().map(|h| crate::i18n::heading(h)));
    for (i, r) in rows.iter().enumerate() {
        let (rate, share, eff, lat) = decimals;
        let mut row = match first {
            FirstColumn::Identifier => vec![names[i].clone(), r.threads.to_string()],
            // tiobench's own test names, in the reader's language.
            _ => vec![names[i].clone()],
        };
        row.extend([
            format!("{:.rate$}", r.bytes_per_sec / (1u64 << 20) as f64),
            format!("{:.2}", r.cpu_pct),
            format!("{:.lat$}", r.lat_mean_ns / 1e6),
            format!("{:.lat$}", r.lat_max_ns as f64 / 1e6),
            format!("{:.share$}", r.pct_over_2s),
            format!("{:.share$}", r.pct_over_10s),
            format!("{:.eff$}", r.cpu_efficiency),
        ]);
        if runs {
            row.push(r.runs.to_string());
        }
        g.push(row);
    }
    g
}

fn render_with(
    rows: &[TiobenchRow],
    names: &[String],
    first: FirstColumn,
    decimals: (usize, usize, usize, usize),
) -> comfy_table::Table {
    let g = cells(rows, names, first, decimals, super::width::wide());
    let header: Vec<&str> = g.header.iter().map(String::as_str).collect();
    let mut t = new_table(&header);
    for row in &g.rows {
        t.add_row(row.iter().map(|c| super::escape::term(c).into_owned()));
    }
    t
}

/// Several targets' runs side by side as tiobench.pl prints them (its
/// `SEQ_READS` ... `RAND_WRITES` formats, mkuoppal/tiobench at 1153401):
/// one table per test in its report order, a row per identifier (here the
/// target's name) and thread count. tiobench.pl lists one identifier's
/// thread counts in turn; kura puts the targets of one thread count next to
/// each other, so that the devices compared sit on adjacent lines.
pub fn render_targets(targets: &[(String, Vec<TiobenchRow>)]) -> String {
    let mut out = String::new();
    for (test, rows, names) in per_test(targets) {
        out.push_str(&format!("\n{}\n", crate::i18n::heading(test)));
        out.push_str(&fitted(&rows, &names, FirstColumn::Identifier));
    }
    out
}

/// The same tables for writers without a width (Markdown, CSV, HTML):
/// tiobench's own decimals and full headings shown, the values behind them
/// in machine units (latencies in ns, rates in MiB/s as tiobench gives
/// them), each under its test's name as tiobench.pl titles it.
pub fn tables_targets(targets: &[(String, Vec<TiobenchRow>)]) -> Vec<(String, Table)> {
    let mut columns = vec!["identifier", "thr"];
    columns.extend(&WIDE_HEADER[1..]);
    columns.push("runs");
    let exported = [
        "identifier",
        "threads",
        "mib_per_sec",
        "cpu_pct",
        "lat_mean_ns",
        "lat_max_ns",
        "pct_over_2s",
        "pct_over_10s",
        "cpu_efficiency",
        "runs",
    ];
    per_test(targets)
        .into_iter()
        .enumerate()
        .map(|(i, (test, rows, names))| {
            let shown = cells(&rows, &names, FirstColumn::Identifier, DECIMALS[0], true);
            let mut t = Table::new(&format!("tiobench-{i}"), &crate::i18n::heading(test), &columns)
                .with_export_columns(&exported);
            for ((r, name), text) in rows.iter().zip(&names).zip(&shown.rows) {
                let values = [
                    Value::Text(name.clone()),
                    Value::Int(r.threads.into()),
                    Value::Num(r.bytes_per_sec / (1u64 << 20) as f64),
                    Value::Num(r.cpu_pct),
                    Value::Num(r.lat_mean_ns),
                    Value::Int(r.lat_max_ns as i64),
                    Value::Num(r.pct_over_2s),
                    Value::Num(r.pct_over_10s),
                    Value::Num(r.cpu_efficiency),
                    Value::Int(r.runs as i64),
                ];
                t.rows
                    .push(text.iter().zip(values).map(|(s, v)| Cell::shown(s, v)).collect());
            }
            (test.to_string(), t)
        })
        .collect()
}

/// Per test in tiobench.pl's order: its rows, thread count by thread
/// count, and each row's identifier.
fn per_test(targets: &[(String, Vec<TiobenchRow>)]) -> Vec<(&'static str, Vec<TiobenchRow>, Vec<String>)> {
    let mut counts: Vec<u32> = Vec::new();
    for (_, rows) in targets {
        for c in thread_counts(rows) {
            if !counts.contains(&c) {
                counts.push(c);
            }
        }
    }
    let mut out = Vec::new();
    for test in REPORT_ORDER {
        let (mut rows, mut names) = (Vec::new(), Vec::new());
        for threads in &counts {
            for (name, of_target) in targets {
                let found = of_target
                    .iter()
                    .find(|r| r.threads == *threads && tiobench_test_of(&r.test) == test);
                if let Some(r) = found {
                    rows.push(r.clone());
                    names.push(name.clone());
                }
            }
        }
        if !rows.is_empty() {
            out.push((test, rows, names));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(test: &str, mib: f64, cpu_pct: f64, max_ms: f64, slow_pct: f64) -> TiobenchRow {
        let bytes_per_sec = mib * (1u64 << 20) as f64;
        TiobenchRow {
            test: test.into(),
            threads: 8,
            runs: 1,
            bytes_per_sec,
            cpu_pct,
            lat_mean_ns: 2.5e6,
            lat_max_ns: (max_ms * 1e6) as u64,
            pct_over_2s: slow_pct,
            pct_over_10s: slow_pct,
            cpu_efficiency: mib / (cpu_pct / 100.0),
        }
    }

    #[test]
    fn large_values_take_fewer_decimals_rather_than_wrap_at_80_columns() {
        let small = render(&[row("Random Write", 123.4, 50.0, 12.0, 0.0)]);
        assert!(small.contains(" 0.00000 "), "tiobench's decimals kept:\n{small}");
        // The longest name stays on its line; a heading folds instead.
        let long = render(&[row("Sequential Write", 123.4, 50.0, 12.0, 0.0)]);
        assert!(long.contains("\n Sequential Write "), "{long}");
        assert!(!long.contains("\n Write "), "{long}");
        assert!(
            long.lines().all(|l| super::super::width::display_width(l) <= 80),
            "{long}"
        );
        let large = render(&[
            row("Sequential Write", 23456.78, 5.0, 12345.678, 100.0),
            row("Random Read", 19999.99, 4.0, 9999.0, 0.0),
        ]);
        for line in large.lines() {
            assert!(super::super::width::display_width(line) <= 80, "{line}\n{large}");
        }
        assert!(!large.contains("100.00000"), "{large}");
    }

    #[test]
    fn several_thread_counts_print_a_table_per_test_in_tiobench_pl_order() {
        let mut rows = Vec::new();
        for threads in [1, 2, 4, 8] {
            for test in [
                "Sequential Write",
                "Random Write",
                "Sequential Read",
                "Random Read",
            ] {
                let mut r = row(
                    &format!("{test} threads={threads}"),
                    100.0 + threads as f64,
                    50.0,
                    3.0,
                    0.0,
                );
                r.threads = threads;
                rows.push(r);
            }
        }
        let text = render(&rows);
        let titles: Vec<&str> = text
            .lines()
            .filter(|l| ["Sequential", "Random"].iter().any(|w| l.starts_with(w)))
            .collect();
        assert_eq!(
            titles,
            [
                "Sequential Read",
                "Random Read",
                "Sequential Write",
                "Random Write"
            ],
            "{text}"
        );
        // Under each title, a row per thread count in the order they ran.
        let reads = &text[..text.find("Random Read").unwrap()];
        let counts: Vec<&str> = reads
            .lines()
            .filter_map(|l| l.trim_start_matches(['|', ' ']).split(' ').next())
            .filter(|w| w.parse::<u32>().is_ok())
            .collect();
        assert_eq!(counts, ["1", "2", "4", "8"], "{text}");
        assert!(reads.contains("108.00"), "{text}");
        for line in text.lines() {
            assert!(super::super::width::display_width(line) <= 80, "{line}");
        }
    }
}
