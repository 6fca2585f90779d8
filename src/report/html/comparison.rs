//! Several runs side by side, from `kura compare`'s `Comparison`: its
//! targets (prices), its rows (the baseline is the first run; values are
//! means of the repetitions, with their noise verdict), its guidance, and
//! the ratios as horizontal bars around 1. Only the drawing is here.

use std::fmt::Write;

use super::table::{Cell, Table, Value};
use super::{Page, figure};
use crate::report::compare::render::value_text;
use crate::report::compare::{self, CompareOptions, Comparison, Noise, Target};
use crate::report::svg::{self, HBarChart, esc};

pub fn section(page: &mut Page, targets: &[Target]) {
    page.html(&format!(
        r#"<section id="comparison"><h2>{}</h2>"#,
        crate::t!("html-comparison")
    ));
    // vdbench's figure is its i/o rate; every other kind is shown in MB/s.
    // (Sweeps' tables by block size stand under their charts, suites.rs.)
    let vdbench = targets
        .iter()
        .flat_map(|t| &t.runs)
        .all(|r| r.suite == Some(crate::jobs::suites::SuiteKind::Vdbench));
    let opts = CompareOptions {
        metric: if vdbench {
            compare::Metric::Iops
        } else {
            compare::Metric::Mbps
        },
        ..CompareOptions::default()
    };
    let c = match compare::build_targets(targets, &opts) {
        Ok(c) => c,
        Err(e) => {
            // A price stored before prices were checked must not hide the
            // comparison: compare without prices and say why.
            page.html(&format!(
                r#"<div class="banner warn">{}</div>"#,
                esc(&crate::t!("html-compare-prices-left-out", why = e.to_string()))
            ));
            let unpriced: Vec<Target> = targets
                .iter()
                .cloned()
                .map(|mut t| {
                    t.runs.iter_mut().for_each(|r| r.price = None);
                    t
                })
                .collect();
            match compare::build_targets(&unpriced, &opts) {
                Ok(c) => c,
                Err(e) => {
                    page.html(&format!(
                        r#"<p class="note">{}</p></section>"#,
                        esc(&e.to_string())
                    ));
                    return;
                }
            }
        }
    };
    if targets
        .iter()
        .flat_map(|t| &t.runs)
        .all(|r| r.suite == Some(crate::jobs::suites::SuiteKind::Db))
    {
        db(page, targets, &c);
        return;
    }
    let base = &c.targets[c.baseline].name;
    page.html(&format!(
        r#"<p class="note">{}</p>"#,
        esc(&crate::t!("html-compare-note", baseline = base.as_str()))
    ));
    // Runs of latency searches alone compare by their scores, not by rows.
    let only_scores = c.rows.is_empty() && c.latency_bound.is_some();
    if c.rows.iter().any(|r| {
        r.cells
            .iter()
            .enumerate()
            .any(|(t, cell)| t != c.baseline && cell.is_some())
    }) {
        page.html(r#"<div class="charts">"#);
        page.html(&figure(
            &svg::hbar_chart(&ratio_chart(&c)),
            &crate::t!(
                "html-compare-chart",
                metric = chart_metric(&c),
                baseline = base.as_str()
            ),
        ));
        page.html("</div>");
    } else if !only_scores && c.targets.len() > 1 {
        page.html(&format!(
            r#"<p class="note">{}</p>"#,
            esc(&crate::t!("html-compare-no-shared-row"))
        ));
    }
    page.table(targets_table(&c));
    scores(page, &c);
    // A published table's shape (seed 4's runs side by side, bonnie++'s tests
    // across targets), mark runs' grid and tiobench.pl's tables before the
    // rows, which stay for their downloads (`table=comparison`).
    if let Some(shaped) = compare::shaped(&c) {
        if compare::render::tiobench_view(&c).is_some() {
            page.html(&format!("<h3>{}</h3>", esc(&crate::t!("html-tiobench-compare"))));
        }
        for (_, t) in shaped.sections {
            page.table(t);
        }
        for n in &shaped.notes {
            page.html(&format!(r#"<p class="note">{}</p>"#, esc(n)));
        }
    }
    // Mark runs: CrystalDiskMark's published grid, a row per target and a
    // column per test, per direction and test-file size.
    for (i, (heading, grid, notes)) in compare::render::mark_tables(&c).iter().enumerate() {
        page.table(Table::from_grid(&format!("mark-grid-{i}"), heading, grid));
        for n in notes {
            page.html(&format!(r#"<p class="note">{}</p>"#, esc(n)));
        }
    }
    if !only_scores {
        page.table(rows_table(&c));
    }
    let mut notes = String::new();
    for w in &c.warnings {
        let _ = write!(notes, "<li>{}</li>", esc(w));
    }
    if !notes.is_empty() {
        page.html(&format!(r#"<ul class="warnings">{notes}</ul>"#));
    }
    if !c.guidance.is_empty() && !only_scores {
        let items: String = c
            .guidance_lines()
            .iter()
            .map(|line| format!("<li>{}</li>", esc(line)))
            .collect();
        page.html(&format!(
            r#"<h3>{}</h3><ul class="guidance">{items}</ul>"#,
            crate::t!("html-guidance")
        ));
    }
    page.html("</section>");
}

/// db runs by their own figures, as `kura compare` prints them
/// (report::db_table): seconds per sql-bench test and the OLTP mix's TPS and
/// p95, ratios to the baseline's as bars. compare's rows of such runs count
/// queries and commits, and a database moves no MB/s worth charting.
fn db(page: &mut Page, targets: &[Target], c: &Comparison) {
    // A target of several runs is shown by its newest, as `kura compare` does.
    let runs: Vec<&crate::metrics::RunResult> = targets.iter().filter_map(|t| t.runs.last()).collect();
    let names: Vec<String> = c.targets.iter().map(|t| t.name.clone()).collect();
    let base = &names[c.baseline];
    let rows = crate::report::db_table::compare_rows(&runs, c.baseline);
    let others = others(c);
    let row_name = |r: &crate::report::db_table::CompareRow| format!("{} ({})", r.test, r.unit);
    if !rows.is_empty() && !others.is_empty() {
        let chart = HBarChart {
            title: crate::t!("html-db-ratio-chart", baseline = base.as_str()),
            x_title: crate::t!("html-ratio-axis"),
            rows: rows.iter().map(row_name).collect(),
            series: others
                .iter()
                .map(|t| (names[*t].clone(), rows.iter().map(|r| r.ratios[*t]).collect()))
                .collect(),
            value_fmt: |v| format!("{v:.2}×"),
            reference: Some((1.0, base.clone())),
            log: rows
                .iter()
                .flat_map(|r| r.ratios.iter().flatten())
                .any(|x| *x > 8.0 || *x < 0.125),
        };
        page.html(r#"<div class="charts">"#);
        page.html(&figure(
            &svg::hbar_chart(&chart),
            &crate::t!("html-db-ratio-caption"),
        ));
        page.html("</div>");
    }
    page.table(targets_table(c));
    let (mut shown, mut exported) = (
        vec!["test".to_string(), "unit".to_string()],
        vec!["test".to_string(), "unit".to_string()],
    );
    for n in &names {
        shown.push(n.clone());
        exported.push(n.clone());
    }
    for t in &others {
        shown.push(format!("x{}", names[*t]));
        exported.push(format!("{} ratio", names[*t]));
    }
    let mut t = Table::new(
        "db-compare",
        &crate::t!("html-db-compare", baseline = base.as_str()),
        &shown.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for r in &rows {
        let mut line = vec![Cell::text(r.test.as_str()), Cell::text(r.unit)];
        for v in &r.values {
            line.push(match v {
                Some(v) => Cell::num(*v, format!("{v:.2}")),
                None => Cell::text("-"),
            });
        }
        for o in &others {
            line.push(match r.ratios[*o] {
                Some(x) => Cell::num(x, format!("{x:.2}")),
                None => Cell::text("-"),
            });
        }
        t.rows.push(line);
    }
    page.table(t);
    let mut notes: Vec<String> = crate::report::db_table::setting_notes(&runs);
    notes.push(crate::t!("dbrun-compare-legend", base = base.as_str()));
    for n in notes {
        page.html(&format!(r#"<p class="note">{}</p>"#, esc(&n)));
    }
    let warnings: String = c
        .warnings
        .iter()
        .map(|w| format!("<li>{}</li>", esc(w)))
        .collect();
    if !warnings.is_empty() {
        page.html(&format!(r#"<ul class="warnings">{warnings}</ul>"#));
    }
    page.html("</section>");
}

/// The latency-bounded scores: their ratios as bars, the table (lower
/// bounds marked) and what a bounded ratio means.
fn scores(page: &mut Page, c: &Comparison) {
    let Some(table) = super::latency::scores_table(c) else {
        return;
    };
    if let Some(chart) = super::latency::scores_chart(c) {
        page.html(r#"<div class="charts">"#);
        page.html(&figure(&svg::hbar_chart(&chart), &table.title));
        page.html("</div>");
    }
    page.table(table);
    for line in compare::capacity::notes(c) {
        page.html(&format!(r#"<p class="note">{}</p>"#, esc(&line)));
    }
}

fn others(c: &Comparison) -> Vec<usize> {
    (0..c.targets.len()).filter(|t| *t != c.baseline).collect()
}

fn row_name(r: &compare::Row) -> String {
    if r.section.is_empty() {
        r.label.clone()
    } else {
        format!("{}: {}", r.section, r.label)
    }
}

/// What the ratio chart's bars are ratios of: the metric, and operations
/// per second for the rows that move no bytes (bonnie's and a file set's
/// creates, stats, deletes), which are not MB/s.
fn chart_metric(c: &Comparison) -> String {
    let metric = crate::i18n::heading(c.metric.title());
    if c.rows.iter().any(|r| r.unit != c.unit) {
        crate::t!("html-ratio-metric-with-ops", metric = metric)
    } else {
        metric
    }
}

pub fn ratio_chart(c: &Comparison) -> HBarChart {
    let ratios: Vec<f64> = c
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().flatten().filter_map(|cell| cell.ratio))
        .filter(|r| *r > 0.0)
        .collect();
    let (lo, hi) = ratios
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    HBarChart {
        title: crate::t!(
            "html-ratio-chart",
            metric = chart_metric(c),
            baseline = c.targets[c.baseline].name.as_str()
        ),
        x_title: crate::t!("html-ratio-axis"),
        rows: c.rows.iter().map(row_name).collect(),
        series: others(c)
            .into_iter()
            .map(|t| {
                (
                    c.targets[t].name.clone(),
                    c.rows
                        .iter()
                        .map(|r| r.cells[t].as_ref().and_then(|cell| cell.ratio))
                        .collect(),
                )
            })
            .collect(),
        value_fmt: |v| format!("{v:.2}×"),
        reference: Some((1.0, c.targets[c.baseline].name.clone())),
        // Ratios are products: 0.5× and 2× sit as far from 1 on a log axis.
        log: hi / lo.min(1.0) > 8.0 || hi.max(1.0) / lo > 8.0,
    }
}

fn targets_table(c: &Comparison) -> Table {
    let mut t = Table::new(
        "comparison-targets",
        "Compared targets",
        &[
            "target",
            "runs",
            "path",
            "host",
            "price",
            "per month",
            "price ratio",
        ],
    )
    .with_export_columns(&[
        "target",
        "run_ids",
        "path",
        "host",
        "price",
        "price_per_month",
        "price_ratio",
    ]);
    for (i, s) in c.targets.iter().enumerate() {
        let ids: Vec<String> = s.run_ids.iter().map(|i| i.to_string()).collect();
        t.rows.push(vec![
            Cell::shown(
                if i == c.baseline {
                    crate::t!("compare-baseline-name", name = s.name.as_str())
                } else {
                    s.name.clone()
                },
                Value::Text(s.name.clone()),
            ),
            Cell::text(ids.join(", ")),
            Cell::text(match &s.device_model {
                Some(m) => format!("{} ({m})", s.path),
                None => s.path.clone(),
            }),
            Cell::text(s.hostname.as_str()),
            Cell::opt_text(s.price_text.as_deref()),
            match (s.price_per_month, &s.currency) {
                (Some(m), Some(cur)) => Cell::num(m, format!("{m:.2} {cur}")),
                _ => Cell::empty(),
            },
            match s.price_ratio {
                Some(r) => Cell::num(r, format!("{r:.2}×")),
                None => Cell::empty(),
            },
        ]);
    }
    t
}

/// The rows as `kura compare` prints them; downloads carry the numbers.
fn rows_table(c: &Comparison) -> Table {
    let base = &c.targets[c.baseline].name;
    let unit = c.metric.title();
    let mut shown: Vec<String> = vec!["row".into(), "direction".into()];
    let mut exported = shown.clone();
    for t in &c.targets {
        shown.push(format!("{} {unit}", t.name));
        exported.push(format!("{} {}", t.name, c.unit));
    }
    let others = others(c);
    let priced = others.iter().any(|t| c.targets[*t].price_ratio.is_some());
    for t in &others {
        shown.push(format!("{}/{base}", c.targets[*t].name));
        exported.push(format!("{} ratio", c.targets[*t].name));
        if priced {
            shown.push(format!("{} per price vs {base}", c.targets[*t].name));
            exported.push(format!("{} value_per_price_ratio", c.targets[*t].name));
        }
    }
    let mut t = Table::new(
        "comparison",
        &crate::t!(
            "html-relative-to",
            unit = chart_metric(c),
            baseline = base.as_str()
        ),
        &shown.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for r in &c.rows {
        let mut row = vec![
            Cell::text(row_name(r)),
            Cell::shown(
                crate::i18n::heading(r.direction.name()),
                Value::Text(r.direction.name().into()),
            ),
        ];
        for cell in &r.cells {
            row.push(match cell {
                Some(cell) if cell.repetitions == 0 => Cell::text(crate::t!("compare-nothing-completed")),
                Some(cell) => {
                    let mut text = value_text(c.metric, cell.value);
                    if let Some(h) = crate::metrics::repeats::half_range(cell.min, cell.max, cell.value)
                        && cell.repetitions > 1
                    {
                        let _ = write!(text, " ±{:.1}%", h * 100.0);
                    }
                    Cell::num(cell.value, text)
                }
                None => Cell::text("-"),
            });
        }
        for t in &others {
            let cell = r.cells[*t].as_ref();
            row.push(match cell {
                None => Cell::text("-"),
                Some(cell) => match (&cell.not_comparable, cell.ratio) {
                    (Some(why), _) => Cell::shown(
                        crate::t!("compare-not-comparable", why = why.as_str()),
                        Value::Null,
                    ),
                    (None, Some(x)) if cell.noise == Some(Noise::WithinNoise) => {
                        Cell::num(x, crate::t!("html-noise", ratio = format!("{x:.2}")))
                    }
                    (None, Some(x)) => Cell::num(x, format!("{x:.2}×")),
                    (None, None) => Cell::text("-"),
                },
            });
            if priced {
                row.push(match cell.and_then(|cell| cell.value_per_price_ratio) {
                    Some(v) => Cell::num(v, format!("{v:.2}×")),
                    None => Cell::text("-"),
                });
            }
        }
        t.rows.push(row);
    }
    t
}
