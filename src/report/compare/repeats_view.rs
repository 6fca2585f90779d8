//! Targets run several times, as seed 4's article printed them (vdbench run
//! 3 times on each volume): a row per target with its size/plan, each run's
//! figure in a column of its own, their mean and its ratio to the
//! baseline's, the mean response time over the runs and the monthly price.
//! One table per compared row, a mixed job by its reads and writes
//! together. The rows, ratios and verdicts are compare's own.

use super::shaped::Shaped;
use super::{By, Comparison, Figure, Metric, Noise, Row};
use crate::report::format::latency;
use crate::report::html::table::{Cell, Table, Value};

/// Whether the comparison is shown so: a target of several runs (`--repeats`),
/// rows by test, and neither mark runs (their passes have their own
/// grids) nor bonnie++ or tiobench runs (their suites' tables add repetitions up).
pub fn applies(c: &Comparison) -> bool {
    c.by == By::Test
        && !c.all_marks
        && c.suite.is_none()
        && !c.rows.is_empty()
        && c.targets.iter().any(|t| t.run_ids.len() > 1)
}

/// The seed's tables, one per shown row; `None` for other comparisons.
pub fn shaped(c: &Comparison) -> Option<Shaped> {
    if !applies(c) {
        return None;
    }
    let sections = shown(&c.rows)
        .into_iter()
        .enumerate()
        .map(|(i, r)| (r.label.clone(), table(c, r, i)))
        .collect();
    // At 80 columns a target's size/plan and price stand under its name.
    let price = c.targets.iter().any(|t| t.currency.is_some());
    let runs = c.targets.iter().map(|t| t.run_ids.len()).max().unwrap_or(1);
    let mut stack = vec![1];
    if price {
        stack.push(runs + 5);
    }
    Some(Shaped {
        section_column: "row",
        sections,
        left: 2,
        stack,
        notes: Vec::new(),
    })
}

/// A mixed job's reads and writes are in its total: the figure vdbench's
/// summary and the article give for a run.
fn shown(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| !r.part_of_a_total(rows)).collect()
}

/// The metric's name in download column names: `run_1_iops`, `mean_mbps`.
fn key(metric: Metric) -> &'static str {
    match metric {
        Metric::Mbps => "mbps",
        Metric::Iops => "iops",
        Metric::LatMean => "lat_mean_ns",
        Metric::LatP99 => "lat_p99_ns",
    }
}

fn table(c: &Comparison, r: &Row, i: usize) -> Table {
    let runs = c.targets.iter().map(|t| t.run_ids.len()).max().unwrap_or(1);
    let metric = crate::i18n::heading(c.metric.title());
    let figure = match c.figure {
        Figure::Best => "best",
        Figure::Mean => "mean",
    };
    let mut shown = vec!["target".to_string(), "size/plan".to_string()];
    let mut exported = vec!["target".to_string(), "volume".to_string()];
    for n in 1..=runs {
        shown.push(crate::t!("compare-run-n", n = n));
        exported.push(format!("run_{n}_{}", key(c.metric)));
    }
    shown.extend([figure.to_string(), "ratio".to_string(), "resp time".to_string()]);
    exported.extend([
        format!("{figure}_{}", key(c.metric)),
        "ratio".to_string(),
        "resp_time_ns".to_string(),
    ]);
    // One currency, or none at all: the price column says it once.
    let mut currencies: Vec<&str> = c.targets.iter().filter_map(|t| t.currency.as_deref()).collect();
    currencies.sort_unstable();
    currencies.dedup();
    let prices = !currencies.is_empty();
    if prices {
        shown.push("per month".to_string());
        exported.push(match currencies[..] {
            [one] => format!("{one}_per_month"),
            _ => "price_per_month".to_string(),
        });
    }
    let title = crate::t!(
        "compare-repeats-heading",
        row = r.label.as_str(),
        metric = metric.as_str(),
        figure = crate::i18n::heading(figure),
        baseline = c.targets[c.baseline].name.as_str()
    );
    let columns: Vec<&str> = shown.iter().map(String::as_str).collect();
    let mut t = Table::new(&format!("repeats-{i}"), &title, &columns)
        .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for (ti, target) in c.targets.iter().enumerate() {
        let cell = r.cells[ti].as_ref();
        let mut line = vec![
            Cell::shown(
                if ti == c.baseline {
                    crate::t!("compare-baseline-name", name = target.name.as_str())
                } else {
                    target.name.clone()
                },
                Value::Text(target.name.clone()),
            ),
            Cell::text(target.volume.as_str()),
        ];
        let number = |v: Option<f64>| match v {
            Some(v) => Cell::num(v, super::render::value_text(c.metric, v)),
            None => Cell::shown("-", Value::Null),
        };
        for n in 0..runs {
            line.push(number(
                cell.and_then(|cell| cell.per_run.get(n).copied().flatten()),
            ));
        }
        let measured = cell.filter(|cell| cell.repetitions > 0);
        line.push(number(measured.map(|cell| cell.value)));
        line.push(match measured {
            None => Cell::shown("-", Value::Null),
            Some(_) if ti == c.baseline => Cell::shown("", Value::Null),
            Some(cell) => match (&cell.not_comparable, cell.ratio) {
                (Some(why), _) => Cell::shown(
                    crate::t!("compare-not-comparable", why = why.as_str()),
                    Value::Null,
                ),
                (None, Some(x)) if cell.noise == Some(Noise::WithinNoise) => {
                    Cell::num(x, format!("~{x:.2}x"))
                }
                (None, Some(x)) => Cell::num(x, format!("{x:.2}x")),
                (None, None) => Cell::shown("-", Value::Null),
            },
        });
        line.push(match measured {
            Some(cell) => Cell::num(cell.lat_mean_ns, latency(cell.lat_mean_ns)),
            None => Cell::shown("-", Value::Null),
        });
        if prices {
            line.push(match (target.price_per_month, &target.currency) {
                (Some(m), Some(cur)) => Cell::num(m, format!("{} {cur}", super::render::sig(m))),
                _ => Cell::shown("-", Value::Null),
            });
        }
        t.rows.push(line);
    }
    t
}
