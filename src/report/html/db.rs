//! `kura suite db` in the HTML report: sql-bench's seconds per test as bars
//! (one colour per run, as the seed's table has a column per device), the
//! same as a table, and sysbench's OLTP figures per run.

use super::table::{Cell, Table};
use super::{Page, figure};
use crate::jobs::suites::SuiteKind;
use crate::metrics::RunResult;
use crate::report::db_table::{self, DbRow};
use crate::report::format::latency;
use crate::report::svg::{self, BarChart};

fn seconds(v: f64) -> String {
    format!("{v:.2}")
}

pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let idx: Vec<usize> = (0..runs.len())
        .filter(|i| runs[*i].suite == Some(SuiteKind::Db))
        .collect();
    if idx.is_empty() {
        return;
    }
    let rows: Vec<Vec<DbRow>> = idx.iter().map(|i| db_table::rows(&runs[*i])).collect();
    let mut tests: Vec<String> = Vec::new();
    for r in rows.iter().flatten() {
        if !tests.contains(&r.test) {
            tests.push(r.test.clone());
        }
    }
    let value = |k: usize, test: &str| rows[k].iter().find(|r| r.test == test).map(|r| r.seconds);
    page.html(&format!(r#"<section id="db"><h2>{}</h2>"#, crate::t!("html-db")));
    let chart = BarChart {
        title: crate::t!("html-db-chart"),
        y_title: crate::i18n::heading("seconds"),
        groups: tests.clone(),
        series: idx
            .iter()
            .enumerate()
            .map(|(k, i)| (names[*i].clone(), tests.iter().map(|t| value(k, t)).collect()))
            .collect(),
        value_fmt: seconds,
        reference: None,
    };
    page.html(r#"<div class="charts">"#);
    page.html(&figure(
        &svg::bar_chart(&chart),
        &crate::t!("html-db-chart-caption"),
    ));
    page.html("</div>");
    // Shown in the reader's language, downloaded with English names.
    let (mut shown, mut exported) = (vec!["test".to_string()], vec!["test".to_string()]);
    for i in &idx {
        shown.push(format!("{} s", names[*i]));
        exported.push(format!("{} s", names[*i]));
        shown.push(format!("{} {}", names[*i], crate::i18n::heading("commit p99")));
        exported.push(format!("{} commit p99", names[*i]));
    }
    let cols: Vec<&str> = shown.iter().map(String::as_str).collect();
    let export: Vec<&str> = exported.iter().map(String::as_str).collect();
    let mut t = Table::new(
        "db-tests",
        "Seconds per test, and the 99th percentile of commits",
        &cols,
    )
    .with_export_columns(&export);
    for test in &tests {
        let mut row = vec![Cell::text(test.as_str())];
        for r in &rows {
            match r.iter().find(|r| &r.test == test) {
                Some(r) => {
                    row.push(Cell::num(r.seconds, seconds(r.seconds)));
                    row.push(match r.commit_p99_ns {
                        Some(ns) => Cell::num(ns as f64, latency(ns as f64)),
                        None => Cell::text("-"),
                    });
                }
                None => {
                    row.push(Cell::text("-"));
                    row.push(Cell::text("-"));
                }
            }
        }
        t.rows.push(row);
    }
    page.table(t);
    let mut t = Table::new(
        "db-oltp",
        "OLTP mix (sysbench oltp_read_write)",
        &[
            "run",
            "tables x rows",
            "threads",
            "transactions/s",
            "queries/s",
            "p95",
            "p99",
            "max",
        ],
    );
    for (k, i) in idx.iter().enumerate() {
        for r in &rows[k] {
            let Some(o) = &r.oltp else { continue };
            let lat = |ns: Option<u64>| match ns {
                Some(ns) => Cell::num(ns as f64, latency(ns as f64)),
                None => Cell::text("-"),
            };
            t.rows.push(vec![
                Cell::text(names[*i].as_str()),
                Cell::text(format!("{} x {}", o.tables, o.table_size)),
                Cell::int(i64::from(o.threads)),
                Cell::num(o.transactions_per_sec, format!("{:.2}", o.transactions_per_sec)),
                Cell::num(o.queries_per_sec, format!("{:.2}", o.queries_per_sec)),
                lat(o.lat_p95_ns),
                lat(o.lat_p99_ns),
                lat(Some(o.lat_max_ns)),
            ]);
        }
    }
    if !t.rows.is_empty() {
        page.table(t);
    }
    page.html("</section>");
}
