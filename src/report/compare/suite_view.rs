//! Runs of bonnie++ and tiobench compared across targets in their own
//! shapes (seed 5): bonnie's tests as rows with each target's rate in
//! bonnie++'s unit and its worst latency (the article's test rows x device
//! columns), tiobench's tables per test as tiobench.pl prints them with a
//! row per target and thread count (report::tiobench_table). Each suite's
//! own report model gives the numbers, its CSV too; compare's rows still
//! give the guidance and the JSON.

use super::shaped::Shaped;
use super::{Row, Target};
use crate::jobs::suites::SuiteKind;
use crate::metrics::RunResult;
use crate::report::bonnie_table::{self, BonnieRow};
use crate::report::html::table::{Cell, Table, Value};
use crate::report::tiobench_table::{self, TiobenchRow};

#[derive(Debug, Clone)]
pub enum SuiteView {
    /// Each target's tiobench rows, under its name.
    Tiobench(Vec<(String, Vec<TiobenchRow>)>),
    Bonnie(Shaped),
}

/// The suite's own view when every run is of one suite that has one.
pub fn build(targets: &[Target], names: &[String], baseline: usize, rows: &[Row]) -> Option<SuiteView> {
    let all = |kind: SuiteKind| {
        targets
            .iter()
            .flat_map(|t| &t.runs)
            .all(|r| r.suite.as_ref() == Some(&kind))
    };
    if all(SuiteKind::Tiobench) {
        let rows = targets
            .iter()
            .zip(names)
            .map(|(t, n)| (n.clone(), tiobench_table::rows(&merged(t))))
            .collect();
        return Some(SuiteView::Tiobench(rows));
    }
    if all(SuiteKind::Bonnie) {
        let nothing = crate::t!("compare-nothing-completed");
        // What compare's rows hold apart (a test size, a chunk size) gets no
        // ratio here either, as its warning says.
        let apart = |test: &str, t: usize| {
            rows.iter()
                .filter(|r| r.test.as_deref() == Some(test))
                .find_map(|r| r.cells.get(t)?.as_ref()?.not_comparable.clone())
                .filter(|why| *why != nothing)
        };
        let bonnie_rows: Vec<Vec<BonnieRow>> =
            targets.iter().map(|t| bonnie_table::rows(&merged(t))).collect();
        return Some(SuiteView::Bonnie(bonnie(names, baseline, &bonnie_rows, &apart)));
    }
    None
}

/// tiobench.pl's tables for the writers without a width (Markdown, CSV,
/// HTML); the terminal fits its own (report::tiobench_table::render_targets).
pub fn tiobench(targets: &[(String, Vec<TiobenchRow>)]) -> Shaped {
    Shaped {
        section_column: "test",
        sections: tiobench_table::tables_targets(targets),
        // The identifier is a name, the thread count a number.
        left: 1,
        stack: Vec::new(),
        notes: Vec::new(),
    }
}

/// A target's runs as one run: each suite's model adds repetitions up.
fn merged(t: &Target) -> RunResult {
    let mut run = t.runs[0].clone();
    for r in &t.runs[1..] {
        run.jobs.extend(r.jobs.iter().cloned());
    }
    run
}

/// Test rows x target columns: rate in bonnie++'s unit and worst latency,
/// then each target's rate against the baseline's.
/// A test is shown by bonnie++'s own short name (its CSV's: `putc`,
/// `get_block`): the full names share their first words, and cut to fit
/// they read alike (`Se…t Per Chr` for both Output and Input).
fn bonnie(
    names: &[String],
    baseline: usize,
    rows: &[Vec<BonnieRow>],
    apart: &dyn Fn(&str, usize) -> Option<String>,
) -> Shaped {
    let others: Vec<usize> = (0..names.len()).filter(|t| *t != baseline).collect();
    let (mut shown, mut exported) = (
        vec!["test".to_string(), "unit".to_string()],
        vec!["test".to_string(), "unit".to_string()],
    );
    // The latency column after each target's rate is that target's; ratios
    // are named as the db suite's comparison names them (`xNAME`).
    for n in names {
        shown.push(n.clone());
        exported.push(format!("{n} rate"));
        shown.push(crate::i18n::heading("latency"));
        exported.push(format!("{n} lat_max_ns"));
    }
    for t in &others {
        shown.push(format!("x{}", names[*t]));
        exported.push(format!("{} ratio", names[*t]));
    }
    let title = crate::t!("compare-bonnie-heading", baseline = names[baseline].as_str());
    let columns: Vec<&str> = shown.iter().map(String::as_str).collect();
    let mut table = Table::new("bonnie", &title, &columns)
        .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    let mut tests: Vec<(String, &'static str)> = Vec::new();
    for r in rows.iter().flatten() {
        if !tests.iter().any(|(t, _)| *t == r.test) {
            tests.push((r.test.clone(), r.unit));
        }
    }
    let dash = || Cell::shown("-", Value::Null);
    let mut short = false;
    let mut reasons: Vec<String> = Vec::new();
    for (test, unit) in &tests {
        let of = |t: usize| rows[t].iter().find(|r| r.test == *test);
        let mut line = vec![
            Cell::shown(
                crate::jobs::bonnie_params::Test::from_name(test).map_or(test.as_str(), |t| t.short_name()),
                Value::Text(test.clone()),
            ),
            Cell::text(*unit),
        ];
        for t in 0..names.len() {
            match of(t) {
                Some(r) => {
                    short |= r.under_min_time;
                    let mark = if r.under_min_time { " *" } else { "" };
                    line.push(Cell::num(r.rate, format!("{:.0}{mark}", r.rate)));
                    line.push(match r.lat_max_ns {
                        0 => dash(),
                        ns => Cell::num(ns as f64, bonnie_table::latency_text(ns)),
                    });
                }
                None => line.extend([dash(), dash()]),
            }
        }
        for t in &others {
            if let Some(why) = apart(test, *t) {
                let why = crate::t!("diff-target", name = names[*t].as_str(), why = why.as_str());
                let n = match reasons.iter().position(|r| *r == why) {
                    Some(i) => i + 1,
                    None => {
                        reasons.push(why);
                        reasons.len()
                    }
                };
                line.push(Cell::shown(
                    crate::t!("compare-not-comparable-ref", n = n),
                    Value::Null,
                ));
                continue;
            }
            line.push(match (of(*t), of(baseline)) {
                (Some(r), Some(b)) if b.rate > 0.0 => {
                    let x = r.rate / b.rate;
                    Cell::num(x, format!("{x:.2}x"))
                }
                _ => dash(),
            });
        }
        table.rows.push(line);
    }
    Shaped {
        section_column: "suite",
        sections: vec![("bonnie++".to_string(), table)],
        left: 2,
        // At 80 columns the unit stands under the test's name.
        stack: vec![1],
        notes: [
            crate::t!("compare-bonnie-legend", baseline = names[baseline].as_str()),
            crate::t!("compare-bonnie-names"),
        ]
        .into_iter()
        .chain(short.then(|| crate::t!("compare-bonnie-short")))
        .chain(
            reasons
                .iter()
                .enumerate()
                .map(|(i, why)| format!("[{}] {why}", i + 1)),
        )
        .collect(),
    }
}
