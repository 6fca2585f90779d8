//! The section of latency-bounded searches: per search, the load-latency
//! curve (achieved IOPS against the bound's statistic, SPECsfs's published
//! shape) with the limit drawn across it, and the steps as a table.

use super::table::{Cell, Table, Value};
use super::{Page, figure};
use crate::jobs::latency::LatencyLoad;
use crate::metrics::RunResult;
use crate::metrics::latency_bound::{Curve, curves};
use crate::report::compare::Comparison;
use crate::report::compare::capacity::RatioBound;
use crate::report::format::{latency, rate};
use crate::report::latency_table::{bound_text, grouped, notes, sentence};
use crate::report::svg::{self, Axis, HBarChart, Line, LineChart};

/// The chart of one search: the bound's statistic by offered load, and the
/// limit; a probe that held is drawn at the rate it reached.
pub fn curve_chart(c: &Curve, name: &str) -> String {
    let x_of = |p: &crate::metrics::latency_bound::CurvePoint| match p.load(c.load) {
        Some(l) => l as f64,
        None => p.achieved_iops,
    };
    let mut points: Vec<(f64, f64)> = c
        .points
        .iter()
        // A probe that crossed sets where the climb starts; on the curve it
        // would sit among the offered loads at a load nobody offered.
        .filter(|p| p.load(c.load).is_some() || p.verdict.held())
        .filter_map(|p| Some((x_of(p), p.latency_ns?)))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let limit = c.latency_limit_ns as f64;
    let max_x = points.iter().map(|p| p.0).fold(0.0, f64::max) * 1.08;
    let lat = points.iter().map(|p| p.1);
    let lo = lat.clone().fold(limit, f64::min);
    let hi = lat.fold(limit, f64::max);
    let best = c.best_point().and_then(|b| {
        let y = b.latency_ns?;
        points.iter().position(|p| p.0 == x_of(b) && p.1 == y)
    });
    let chart = LineChart {
        title: crate::t!(
            "search-chart-title",
            name = name,
            stat = crate::i18n::heading(c.stat.name())
        ),
        x: Axis::linear(
            &match c.load {
                LatencyLoad::Rate => crate::i18n::heading("offered IOPS"),
                LatencyLoad::Qd => crate::t!("search-axis-qd"),
                LatencyLoad::Threads => crate::i18n::heading("threads"),
            },
            0.0,
            max_x,
            true,
            svg::num_tick,
        ),
        y: Axis::log10(
            &crate::t!("search-axis-latency", stat = crate::i18n::heading(c.stat.name())),
            lo,
            hi,
            svg::latency_tick,
        ),
        lines: vec![
            Line {
                name: crate::t!("search-line-steps", name = name, steps = c.points.len()),
                points,
                dashed: false,
                values: best.into_iter().collect(),
            },
            Line {
                name: crate::t!(
                    "search-line-limit",
                    limit = crate::report::latency_table::limit_text(limit)
                ),
                points: vec![(0.0, limit), (max_x, limit)],
                dashed: true,
                values: Vec::new(),
            },
        ],
        bands: Vec::new(),
        y_bands: Vec::new(),
        markers: Vec::new(),
        value_fmt: latency,
        emphasis: None,
    };
    svg::line_chart(&chart)
}

fn steps_table(index: usize, name: &str, c: &Curve) -> Table {
    let stat = crate::t!(
        "direction-latency",
        direction = crate::i18n::heading(c.stat.name())
    );
    let mut t = Table::new(
        &format!("latency-bound-{index}"),
        &crate::t!("search-steps-table", name = name, bound = bound_text(c)),
        &[
            "step",
            "phase",
            "offered IOPS",
            "qd",
            "threads",
            "achieved IOPS",
            &stat,
            "bound",
        ],
    )
    .with_export_columns(&[
        "step",
        "phase",
        "offered_iops",
        "qd",
        "threads",
        "achieved_iops",
        "latency_ns",
        "verdict",
    ]);
    for (i, p) in c.points.iter().enumerate() {
        let verdict = if c.best == Some(i) {
            crate::t!("search-best", verdict = crate::i18n::heading(p.verdict.name()))
        } else {
            crate::i18n::heading(p.verdict.name())
        };
        t.rows.push(vec![
            Cell::int(p.step.into()),
            Cell::shown(
                crate::i18n::heading(p.phase.name()),
                Value::Text(p.phase.name().into()),
            ),
            match p.offered_iops {
                Some(r) => Cell::shown(grouped(r as f64), Value::Int(r as i64)),
                None => Cell::shown(crate::t!("search-unthrottled"), Value::Null),
            },
            Cell::int(p.qd.into()),
            Cell::int(p.threads.into()),
            Cell::num(p.achieved_iops, rate(p.achieved_iops)),
            match p.latency_ns {
                Some(ns) => Cell::num(ns, latency(ns)),
                None => Cell::empty(),
            },
            Cell::shown(verdict, Value::Text(p.verdict.name().into())),
        ]);
    }
    t
}

/// compare's latency-bounded scores relative to the baseline, with the bound
/// in the title; `None` when the runs hold no search.
pub fn scores_table(c: &Comparison) -> Option<Table> {
    let cap = c.latency_bound.as_ref()?;
    let mut t = Table::new(
        "latency-bound-scores",
        &crate::t!(
            "search-capacity-title",
            bound = cap.bound.as_str(),
            baseline = c.targets[c.baseline].name.as_str()
        ),
        &["target", "score", "runs", "relative", "note", "lower bound"],
    )
    .with_export_columns(&[
        "target",
        "score_iops",
        "repetitions",
        "ratio",
        "not_comparable",
        "lower_bound",
    ]);
    for s in &cap.scores {
        t.rows.push(vec![
            Cell::text(c.targets[s.target].name.clone()),
            match s.score_iops {
                Some(v) => Cell::num(v, s.score_text()),
                None => Cell::shown(crate::t!("search-none-held-cell"), Value::Null),
            },
            Cell::int(s.repetitions as i64),
            match s.ratio {
                Some(r) => Cell::num(r, s.ratio_text()),
                None => Cell::empty(),
            },
            match &s.not_comparable {
                // Shown in the reader's language, downloaded in English.
                Some(w) => Cell::shown(
                    crate::t!("compare-not-comparable", why = w.as_str()),
                    Value::Text(format!("not comparable: {w}")),
                ),
                None => Cell::empty(),
            },
            Cell::shown(
                match s.lower_bound {
                    true => crate::t!("capacity-lower-bound"),
                    false => String::new(),
                },
                Value::Text(s.lower_bound.to_string()),
            ),
        ]);
    }
    Some(t)
}

/// The scores' ratios to the baseline as bars around 1, one bar per other
/// target; a target whose ratio is bounded says so in its name. `None`
/// when no ratio is there to draw.
pub fn scores_chart(c: &Comparison) -> Option<HBarChart> {
    let cap = c.latency_bound.as_ref()?;
    let series: Vec<(String, Vec<Option<f64>>)> = cap
        .scores
        .iter()
        .filter(|s| s.target != c.baseline && s.ratio.is_some())
        .map(|s| {
            let name = &c.targets[s.target].name;
            let name = match s.ratio_bound {
                RatioBound::Exact => name.clone(),
                _ => format!("{name} ({})", s.ratio_text().split(' ').next().unwrap_or("")),
            };
            (name, vec![s.ratio])
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    Some(HBarChart {
        // The bound is in the caption: a chart's title has one line.
        title: crate::t!(
            "html-scores-chart",
            baseline = c.targets[c.baseline].name.as_str()
        ),
        x_title: crate::t!("html-ratio-axis"),
        rows: vec![crate::i18n::heading("score")],
        series,
        value_fmt: |v| format!("{v:.2}×"),
        reference: Some((1.0, c.targets[c.baseline].name.clone())),
        log: false,
    })
}

/// Every search of the given runs; nothing when there is none.
pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let all: Vec<(usize, Curve)> = runs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| curves(r).into_iter().map(move |c| (i, c)))
        .collect();
    if all.is_empty() {
        return;
    }
    page.html(&format!(
        r#"<section id="latency-bound"><h2>{}</h2>"#,
        crate::t!("html-latency-bound")
    ));
    for (k, (run, c)) in all.iter().enumerate() {
        let name = if runs.len() > 1 {
            format!("{} · {}", names[*run], c.job)
        } else {
            c.job.clone()
        };
        page.html(&format!("<h3>{}</h3>", svg::esc(&name)));
        page.html(&format!(r#"<p class="meta">{}</p>"#, svg::esc(&sentence(c))));
        for note in notes(&runs[*run], c) {
            page.html(&format!(r#"<p class="note">{}</p>"#, svg::esc(&note)));
        }
        page.html(r#"<div class="charts">"#);
        page.html(&figure(
            &curve_chart(c, &name),
            &crate::t!("html-latency-curve-caption"),
        ));
        page.html("</div>");
        page.table(steps_table(k, &name, c));
    }
    page.html("</section>");
}
