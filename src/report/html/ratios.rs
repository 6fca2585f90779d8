//! Several runs side by side: throughput of matching workloads and each
//! run's ratio to the first (the baseline), as a table and grouped bars.
//!
//! Seam: `kura compare`'s table (report::compare) is the one comparison
//! table kura should have; when it lands, `section` renders that table in
//! place of `ratio_table`, and the chart keeps using `ratio_rows`.

use std::collections::BTreeMap;

use super::table::{Cell, Table};
use super::{Page, figure};
use crate::metrics::RunResult;
use crate::metrics::repeats::stats;
use crate::report::format::{mb_per_sec, rate};
use crate::report::svg::{self, HBarChart};

/// One workload and direction found in the baseline run, with each run's best
/// throughput (`None` where that run did not run it).
#[derive(Debug, Clone, PartialEq)]
pub struct RatioRow {
    /// The test name within a suite (`SEQ1M Q8T1`), else the job's workload.
    pub workload: String,
    pub direction: &'static str,
    pub bytes_per_sec: Vec<Option<f64>>,
    pub iops: Vec<Option<f64>>,
}

impl RatioRow {
    /// Each run's throughput over the baseline's.
    pub fn ratios(&self) -> Vec<Option<f64>> {
        let base = self.bytes_per_sec.first().copied().flatten();
        self.bytes_per_sec
            .iter()
            .map(|v| match (v, base) {
                (Some(v), Some(b)) if b > 0.0 => Some(v / b),
                _ => None,
            })
            .collect()
    }
}

/// Jobs match across runs by test name (suites), else by workload
/// (`randread 4k qd32 x1`), never by job name, which defaults to "job"
/// everywhere. Repetitions count by their best, as CrystalDiskMark does.
pub fn ratio_rows(runs: &[RunResult]) -> Vec<RatioRow> {
    type Key = (String, &'static str);
    let per_run: Vec<BTreeMap<Key, (f64, f64)>> = runs
        .iter()
        .map(|run| {
            let mut groups: BTreeMap<Key, Vec<_>> = BTreeMap::new();
            for job in &run.jobs {
                let workload = job.test.clone().unwrap_or_else(|| job.job.summary());
                for (dir, d) in job.directions() {
                    groups.entry((workload.clone(), dir)).or_default().push(d);
                }
            }
            groups
                .into_iter()
                .filter_map(|(k, dirs)| stats(&dirs).map(|s| (k, (s.best_bytes_per_sec, s.best_iops))))
                .collect()
        })
        .collect();
    let Some(base) = runs.first() else {
        return Vec::new();
    };
    // Rows in the baseline's job order.
    let mut keys: Vec<Key> = Vec::new();
    for job in &base.jobs {
        let workload = job.test.clone().unwrap_or_else(|| job.job.summary());
        for (dir, _) in job.directions() {
            let k = (workload.clone(), dir);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.into_iter()
        .filter(|k| per_run.iter().skip(1).any(|m| m.contains_key(k)))
        .map(|k| RatioRow {
            bytes_per_sec: per_run.iter().map(|m| m.get(&k).map(|v| v.0)).collect(),
            iops: per_run.iter().map(|m| m.get(&k).map(|v| v.1)).collect(),
            workload: k.0,
            direction: k.1,
        })
        .collect()
}

pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    page.html(r#"<section id="comparison"><h2>Comparison</h2>"#);
    let rows = ratio_rows(runs);
    if rows.is_empty() {
        page.html(&format!(
            r#"<p class="note">No workload of {} ran in the other runs, so there is nothing to put side by side.</p></section>"#,
            svg::esc(&names[0])
        ));
        return;
    }
    page.html(&format!(
        r#"<p class="note">Baseline: {}. Matching workloads by test name or workload; best of the repetitions.</p>"#,
        svg::esc(&names[0])
    ));
    let ratios: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.ratios().into_iter().skip(1).flatten())
        .collect();
    let (lo, hi) = ratios
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let chart = HBarChart {
        title: format!("Throughput relative to {}", names[0]),
        x_title: "ratio to baseline (×)".to_string(),
        rows: rows
            .iter()
            .map(|r| format!("{} {}", r.workload, r.direction))
            .collect(),
        series: names
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, n)| (n.clone(), rows.iter().map(|r| r.ratios()[i]).collect()))
            .collect(),
        value_fmt: |v| format!("{v:.2}×"),
        reference: Some((1.0, names[0].clone())),
        // Ratios are products: 0.5× and 2× sit as far from 1 on a log axis.
        log: hi / lo.min(1.0) > 8.0 || hi.max(1.0) / lo > 8.0,
    };
    page.html(r#"<div class="charts">"#);
    page.html(&figure(
        &svg::hbar_chart(&chart),
        "Each run's MB/s over the baseline's, per workload and direction; above 1 is faster.",
    ));
    page.html("</div>");
    page.table(ratio_table(&rows, names));
    page.html("</section>");
}

fn ratio_table(rows: &[RatioRow], names: &[String]) -> Table {
    let mut columns = vec!["workload".to_string(), "direction".to_string()];
    for (i, n) in names.iter().enumerate() {
        columns.push(format!("{n} MB/s"));
        columns.push(format!("{n} IOPS"));
        if i > 0 {
            columns.push(format!("{n} ratio"));
        }
    }
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut t = Table::new("ratios", &format!("Relative to {}", names[0]), &cols);
    for r in rows {
        let ratios = r.ratios();
        let mut row = vec![Cell::text(r.workload.as_str()), Cell::text(r.direction)];
        for (i, ratio) in ratios.iter().enumerate() {
            match (r.bytes_per_sec[i], r.iops[i]) {
                (Some(bw), Some(iops)) => {
                    row.push(Cell::num(bw / 1e6, mb_per_sec(bw)));
                    row.push(Cell::num(iops, rate(iops)));
                }
                _ => row.extend([Cell::text("-"), Cell::text("-")]),
            }
            if i > 0 {
                row.push(match ratio {
                    Some(x) => Cell::num(*x, format!("{x:.2}")),
                    None => Cell::text("-"),
                });
            }
        }
        t.rows.push(row);
    }
    t
}
