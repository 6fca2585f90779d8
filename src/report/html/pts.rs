//! The SNIA PTS pages of `kura suite pts` runs, as the spec's report
//! shows each test: a heading (purge, steady state, NOT CONFORMING), the
//! steady-state convergence and measurement-window plots, the test's table,
//! and its chart (the IOPS matrix by block size, throughput bars, mean and
//! maximum latency, the write-saturation curve). Drawn from
//! `report::pts_table::rows`, the model the terminal's tables come from.

use std::time::Duration;

use super::table::{Cell, Table, Value};
use super::{Page, figure};
use crate::jobs::suites::SuiteKind;
use crate::jobs::sweep::mix_name;
use crate::jobs::units::{format_duration, format_size};
use crate::metrics::changes::least_squares;
use crate::metrics::steady::{MAX_RANGE_PCT, MAX_SLOPE_PCT, Window};
use crate::metrics::{IntervalPoint, RunResult, Warning};
use crate::report::format::{latency, mb_per_sec, percentile_key_label, rate};
use crate::report::pts_table::{self, Convergence, MATRIX_CORNER, PtsPoint, PtsTestRows};
use crate::report::svg::{self, Axis, Band, BarChart, HBarChart, Line, LineChart, Scale, esc};

pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let pts: Vec<usize> = (0..runs.len())
        .filter(|i| runs[*i].suite == Some(SuiteKind::Pts))
        .collect();
    if pts.is_empty() {
        return;
    }
    page.html(&format!(
        r#"<section id="pts"><h2>{}</h2>"#,
        esc(&crate::t!("html-pts"))
    ));
    for &i in &pts {
        let run = &runs[i];
        // Several PTS runs: each test's heading names its run.
        let prefix = if pts.len() > 1 {
            format!("{} · ", names[i])
        } else {
            String::new()
        };
        let scaled = run
            .warnings
            .iter()
            .find(|w| matches!(w, Warning::PtsNotConforming { .. }));
        if let Some(w) = scaled {
            page.html(&format!(
                r#"<div class="banner warn">{}{}</div>"#,
                esc(&prefix),
                esc(&w.to_string())
            ));
        }
        let tests = pts_table::rows(run);
        if tests.is_empty() {
            page.html(&format!(
                r#"<p class="note">{}{}</p>"#,
                esc(&prefix),
                esc(&crate::t!("html-pts-no-tests"))
            ));
        }
        let key = run.id.map_or(format!("u{i}"), |id| id.to_string());
        let tp: Vec<&PtsTestRows> = tests.iter().filter(|t| is_tp(t)).collect();
        for t in &tests {
            let name = format!("pts-r{key}-{}", slug(&t.test));
            page.html(&format!(
                r#"<h3 id="{}">{}{}{}</h3>"#,
                esc(&name),
                esc(&prefix),
                esc(&pts_table::heading(t)),
                if scaled.is_some() {
                    format!(
                        r#" <span class="nc">{}</span>"#,
                        esc(&crate::t!("html-pts-not-conforming"))
                    )
                } else {
                    String::new()
                }
            ));
            if let Some(c) = &t.convergence {
                page.html(r#"<div class="charts">"#);
                page.html(&convergence_chart(t, c));
                page.html(&window_charts(t, c));
                page.html("</div>");
            }
            results(page, &name, t, &tp);
        }
    }
    page.html("</section>");
}

/// The test's table and chart, by its kind; TP's chart of every block
/// size (`tp`, the run's TP tests) under the last TP test.
fn results(page: &mut Page, name: &str, t: &PtsTestRows, tp: &[&PtsTestRows]) {
    let charts = if t.test == "IOPS" {
        page.table(iops_table(name, t));
        vec![iops_chart(t)]
    } else if is_tp(t) {
        page.table(throughput_table(name, t));
        if tp.last().is_some_and(|last| last.test == t.test) {
            vec![throughput_chart(tp)]
        } else {
            Vec::new()
        }
    } else if t.test == "WS" {
        let title = crate::t!("html-pts-ws-table", test = t.test.as_str());
        page.table(latency_table(name, &title, t));
        ws_charts(&t.series)
    } else {
        let title = crate::t!("html-pts-lat-table", test = t.test.as_str());
        page.table(latency_table(name, &title, t));
        vec![latency_chart(t)]
    };
    if !charts.is_empty() {
        page.html(&format!(r#"<div class="charts">{}</div>"#, charts.concat()));
    }
}

fn is_tp(t: &PtsTestRows) -> bool {
    t.test.starts_with("TP")
}

/// `TP 1m` as `tp-1m`, for ids and table names.
fn slug(test: &str) -> String {
    test.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A point's name without its test: `bs=4k mix=0/100`.
fn short(test: &str, point: &str) -> String {
    point
        .strip_prefix(test)
        .map_or(point, str::trim_start)
        .to_string()
}

/// `4k 65/35`: a point by its block size and R/W mix.
fn point_label(p: &PtsPoint) -> String {
    format!("{} {}", format_size(p.bs_bytes), mix_name(p.read_pct))
}

/// The tracked variable of the tracked points and their companions, by
/// round, the window shaded (changes::rounds_chart, as every job run in
/// rounds), named steady only when every tracked point is.
fn convergence_chart(t: &PtsTestRows, c: &Convergence) -> String {
    let tracked = |point: &str| c.tracked.iter().any(|(p, _)| p == point);
    let lines: Vec<(String, Vec<Option<f64>>)> = c
        .lines
        .iter()
        .map(|(point, values)| {
            let name = short(&t.test, point);
            let name = if tracked(point) {
                crate::t!("html-pts-tracked", point = name.as_str())
            } else {
                name
            };
            (name, values.clone())
        })
        .collect();
    let Some((_, first)) = c.tracked.first() else {
        return String::new();
    };
    let mut judged = first.clone();
    judged.steady = c.tracked.iter().all(|(_, r)| r.steady);
    let chart = super::changes::rounds_chart(
        &crate::t!("html-pts-convergence", test = t.test.as_str()),
        &judged,
        &lines,
    );
    let verdicts: Vec<String> = c
        .tracked
        .iter()
        .map(|(point, r)| {
            format!(
                "{}: {}",
                short(&t.test, point),
                crate::metrics::steady::rounds_text(r)
            )
        })
        .collect();
    figure(
        &chart,
        &crate::t!(
            "html-pts-convergence-caption",
            verdict = verdicts.join("; "),
            unit = first.tracked.unit()
        ),
    )
}

/// The window's rounds of each tracked point: their values, their
/// average, the ±10 % and ±20 % bands around it and the least-squares
/// line, the two things the PTS's rule measures (range within 20 %, the
/// line's excursion within 10 %); one plot per tracking variable, as PTS
/// 2.0.2's report has one per IOPS tracking variable.
fn window_charts(t: &PtsTestRows, c: &Convergence) -> String {
    c.tracked
        .iter()
        .map(|(point, rounds)| window_chart(t, point, rounds))
        .collect()
}

fn window_chart(t: &PtsTestRows, point: &str, rounds: &crate::metrics::steady::Rounds) -> String {
    let title = crate::t!("html-pts-window", test = point);
    let Some(w) = &rounds.window else {
        return format!(
            r#"<figure><p class="note">{}: {}</p></figure>"#,
            esc(&title),
            esc(&crate::metrics::steady::rounds_text(rounds))
        );
    };
    let Window {
        first_round: first,
        last_round: last,
        average: a,
        ..
    } = *w;
    let values: Vec<(f64, f64)> = rounds
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1) as f64, *v))
        .filter(|(r, _)| (first as f64..=last as f64).contains(r))
        .collect();
    let ys: Vec<f64> = values.iter().map(|p| p.1).collect();
    let (slope, intercept, _) = least_squares(&ys);
    let fit_end = intercept + slope * (ys.len().max(1) - 1) as f64;
    let (lo, hi) = ys
        .iter()
        .chain([&intercept, &fit_end])
        .fold((a * 0.7, a * 1.3), |(lo, hi), v| {
            (lo.min(*v * 0.95), hi.max(*v * 1.05))
        });
    let (x0, x1) = (first as f64, last as f64);
    let unit = rounds.tracked.unit();
    let chart = LineChart {
        title,
        // A round's width of room right of the last round: the bands'
        // labels stand there, clear of the values written over the points.
        x: Axis::custom(
            &crate::t!("steady-round"),
            Scale::Linear,
            x0 - 0.5,
            x1 + 1.0,
            (first..=last).map(|r| (r as f64, r.to_string())).collect(),
        ),
        y: Axis::linear(unit, lo.max(0.0), hi, false, svg::num_tick),
        lines: vec![
            Line {
                name: short(&t.test, point),
                values: (0..values.len()).collect(),
                points: values,
                dashed: false,
            },
            Line {
                name: crate::t!("html-pts-average", average = rate(a)),
                points: vec![(x0, a), (x1, a)],
                dashed: true,
                values: Vec::new(),
            },
            Line {
                name: crate::t!("html-pts-fit"),
                points: vec![(x0, intercept), (x1, fit_end)],
                dashed: false,
                values: Vec::new(),
            },
        ],
        bands: Vec::new(),
        y_bands: [(MAX_RANGE_PCT, "tol20"), (MAX_SLOPE_PCT, "tol10")]
            .into_iter()
            .map(|(pct, class)| Band {
                from: a * (1.0 - pct / 100.0),
                to: a * (1.0 + pct / 100.0),
                label: format!("±{pct:.0} %"),
                class,
            })
            .collect(),
        markers: Vec::new(),
        value_fmt: rate,
        emphasis: Some(0),
    };
    figure(
        &svg::line_chart(&chart),
        &crate::t!(
            "html-pts-window-caption",
            first = first,
            last = last,
            unit = unit,
            average = rate(a),
            range = format!("{:.1}", w.range_pct),
            slope = format!("{:.1}", w.slope_pct),
            verdict = if rounds.steady {
                crate::t!("html-pts-holds")
            } else {
                crate::t!("html-pts-fails")
            }
        ),
    )
}

/// Block sizes down, R/W mixes across, IOPS in the cells, as the terminal.
fn iops_table(name: &str, t: &PtsTestRows) -> Table {
    let (mixes, rows) = pts_table::matrix(&t.points);
    let shown: Vec<String> = std::iter::once(MATRIX_CORNER.to_string())
        .chain(mixes.iter().map(|m| mix_name(*m)))
        .collect();
    let exported: Vec<String> = std::iter::once("bs_bytes".to_string())
        .chain(mixes.iter().map(|m| format!("iops {}", mix_name(*m))))
        .collect();
    let mut table = Table::new(
        name,
        &crate::t!("html-pts-iops-table", test = t.test.as_str()),
        &shown.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for (bs, cells) in rows {
        let mut row = vec![Cell::shown(format_size(bs), Value::Int(bs as i64))];
        row.extend(cells.iter().map(|c| match c {
            Some(p) => Cell::num(p.iops, rate(p.iops)),
            None => Cell::empty(),
        }));
        table.rows.push(row);
    }
    table
}

/// IOPS against block size, a line per R/W mix, both axes logarithmic:
/// the PTS's 2D IOPS plot.
fn iops_chart(t: &PtsTestRows) -> String {
    let (mixes, rows) = pts_table::matrix(&t.points);
    let sizes: Vec<u64> = rows.iter().map(|r| r.0).collect();
    let (first, last) = (
        *sizes.first().unwrap_or(&512) as f64,
        *sizes.last().unwrap_or(&512) as f64,
    );
    let lines: Vec<Line> = mixes
        .iter()
        .enumerate()
        .map(|(m, mix)| Line {
            name: format!("R/W {}", mix_name(*mix)),
            points: rows
                .iter()
                .filter_map(|(bs, cells)| cells[m].filter(|p| p.iops > 0.0).map(|p| (*bs as f64, p.iops)))
                .collect(),
            dashed: false,
            values: Vec::new(),
        })
        .collect();
    let all = || lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let chart = LineChart {
        title: crate::t!("html-pts-iops-chart", test = t.test.as_str()),
        x: Axis::custom(
            &crate::t!("html-sweep-axis"),
            Scale::Log2,
            first / 1.4,
            last * 1.4,
            sizes.iter().map(|s| (*s as f64, format_size(*s))).collect(),
        ),
        y: Axis::log10(
            &crate::t!("html-axis-log", unit = "IOPS"),
            all().fold(f64::INFINITY, f64::min),
            all().fold(0.0, f64::max),
            svg::num_tick,
        ),
        lines,
        bands: Vec::new(),
        y_bands: Vec::new(),
        markers: Vec::new(),
        value_fmt: rate,
        emphasis: None,
    };
    figure(&svg::line_chart(&chart), &crate::t!("html-pts-iops-caption"))
}

fn throughput_table(name: &str, t: &PtsTestRows) -> Table {
    let mut table = Table::new(
        name,
        &crate::t!("html-pts-tp-table", test = t.test.as_str()),
        &["block size", "R/W", "MB/s", "IOPS"],
    )
    .with_export_columns(&["bs_bytes", "read_pct", "bytes_per_sec", "iops"]);
    for p in &t.points {
        table.rows.push(vec![
            Cell::shown(format_size(p.bs_bytes), Value::Int(p.bs_bytes as i64)),
            Cell::shown(mix_name(p.read_pct), Value::Int(p.read_pct as i64)),
            Cell::num(p.bytes_per_sec, mb_per_sec(p.bytes_per_sec)),
            Cell::num(p.iops, rate(p.iops)),
        ]);
    }
    table
}

/// MB/s per block size (groups, largest first as the tests ran) and direction (bars).
fn throughput_chart(tests: &[&PtsTestRows]) -> String {
    let points: Vec<&PtsPoint> = tests.iter().flat_map(|t| &t.points).collect();
    let mut sizes: Vec<u64> = Vec::new();
    for p in &points {
        if !sizes.contains(&p.bs_bytes) {
            sizes.push(p.bs_bytes);
        }
    }
    let series = [("read", 100u8), ("write", 0u8)]
        .into_iter()
        .filter(|(_, pct)| points.iter().any(|p| p.read_pct == *pct))
        .map(|(dir, pct)| {
            let values = sizes
                .iter()
                .map(|bs| {
                    points
                        .iter()
                        .find(|p| p.bs_bytes == *bs && p.read_pct == pct)
                        .map(|p| p.bytes_per_sec / 1e6)
                })
                .collect();
            (crate::i18n::heading(dir), values)
        })
        .collect();
    let chart = BarChart {
        title: crate::t!("html-pts-tp-chart"),
        y_title: crate::t!("html-axis-mbps"),
        groups: sizes.iter().map(|s| format_size(*s)).collect(),
        series,
        value_fmt: rate,
        reference: None,
    };
    figure(&svg::bar_chart(&chart), &crate::t!("html-pts-tp-caption"))
}

fn latency_table(name: &str, title: &str, t: &PtsTestRows) -> Table {
    let pcts: Vec<String> = t
        .points
        .first()
        .map(|p| p.lat_percentiles_ns.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut shown: Vec<String> = ["block size", "R/W", "IOPS", "mean"].map(String::from).to_vec();
    shown.extend(pcts.iter().map(|k| percentile_key_label(k)));
    shown.push("max".into());
    let mut exported: Vec<String> = ["bs_bytes", "read_pct", "iops", "lat_mean_ns"]
        .map(String::from)
        .to_vec();
    exported.extend(pcts.iter().map(|k| format!("{}_ns", percentile_key_label(k))));
    exported.push("lat_max_ns".into());
    let mut table = Table::new(name, title, &shown.iter().map(String::as_str).collect::<Vec<_>>())
        .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for p in &t.points {
        let mut row = vec![
            Cell::shown(format_size(p.bs_bytes), Value::Int(p.bs_bytes as i64)),
            Cell::shown(mix_name(p.read_pct), Value::Int(p.read_pct as i64)),
            Cell::num(p.iops, rate(p.iops)),
            Cell::num(p.lat_mean_ns, latency(p.lat_mean_ns)),
        ];
        row.extend(
            pcts.iter()
                .map(|k| match p.lat_percentiles_ns.iter().find(|(pk, _)| pk == k) {
                    Some((_, v)) => Cell::num(*v, latency(*v)),
                    None => Cell::empty(),
                }),
        );
        row.push(Cell::num(p.lat_max_ns as f64, latency(p.lat_max_ns as f64)));
        table.rows.push(row);
    }
    table
}

/// Mean and maximum latency of each point, on a log axis: a maximum can
/// be a hundred times the mean.
fn latency_chart(t: &PtsTestRows) -> String {
    let top = t.points.iter().map(|p| p.lat_mean_ns).fold(0.0, f64::max);
    let (div, unit) = super::jobs::latency_unit(top);
    let value = move |ns: f64| (ns > 0.0).then_some(ns / div);
    let chart = HBarChart {
        title: crate::t!("html-pts-lat-chart", test = t.test.as_str()),
        x_title: crate::t!("html-axis-log", unit = unit),
        rows: t.points.iter().map(point_label).collect(),
        series: vec![
            (
                crate::i18n::heading("mean"),
                t.points.iter().map(|p| value(p.lat_mean_ns)).collect(),
            ),
            (
                crate::i18n::heading("max"),
                t.points.iter().map(|p| value(p.lat_max_ns as f64)).collect(),
            ),
        ],
        value_fmt: super::jobs::latency_in(unit),
        reference: None,
        log: true,
    };
    figure(&svg::hbar_chart(&chart), &crate::t!("html-pts-lat-caption"))
}

/// The write-saturation curve: IOPS of each period of the WS job against
/// time, and against the bytes written by the middle of the period.
fn ws_charts(series: &[IntervalPoint]) -> Vec<String> {
    if series.is_empty() {
        return vec![format!(
            r#"<figure><p class="note">{}</p></figure>"#,
            esc(&crate::t!("html-pts-ws-no-series"))
        )];
    }
    let (points, k) = super::jobs::charted(series);
    let end_s = points
        .last()
        .map_or(0.0, |p| (p.start_ns + p.duration_ns) as f64 / 1e9);
    let (div, unit) = super::jobs::time_unit(end_s);
    let max = points.iter().map(|p| p.iops).fold(0.0, f64::max);
    let y = Axis::linear("IOPS", 0.0, max * 1.1, true, svg::num_tick);
    let line = |name: String, xs: Vec<f64>| Line {
        name,
        points: xs.into_iter().zip(points.iter().map(|p| p.iops)).collect(),
        dashed: false,
        values: Vec::new(),
    };
    let at_time: Vec<f64> = points
        .iter()
        .map(|p| (p.start_ns as f64 + p.duration_ns as f64 / 2.0) / 1e9 / div)
        .collect();
    let mut written = 0u64;
    let at_bytes: Vec<f64> = points
        .iter()
        .map(|p| {
            let mid = written as f64 + p.bytes as f64 / 2.0;
            written += p.bytes;
            mid
        })
        .collect();
    let (bdiv, bunit) = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB")]
        .into_iter()
        .find(|(d, _)| written as f64 >= 2.0 * d)
        .unwrap_or((1e6, "MB"));
    // The job's interval: its longest period (the last may be cut short), to the millisecond.
    let longest = series.iter().map(|p| p.duration_ns).max().unwrap_or(0);
    let period = format_duration(Duration::from_millis(longest.div_ceil(1_000_000)));
    let charts = [
        (
            crate::t!("html-pts-ws-time"),
            Axis::span(
                &crate::t!("html-axis-time", unit = unit),
                0.0,
                end_s / div,
                svg::num_tick,
            ),
            at_time,
            crate::t!("html-pts-ws-time-caption", period = period.as_str()),
        ),
        (
            crate::t!("html-pts-ws-written"),
            Axis::span(
                &crate::t!("html-axis-written", unit = bunit),
                0.0,
                written as f64 / bdiv,
                svg::num_tick,
            ),
            at_bytes.into_iter().map(|b| b / bdiv).collect(),
            crate::t!("html-pts-ws-written-caption", period = period.as_str()),
        ),
    ];
    charts
        .into_iter()
        .map(|(title, x, xs, caption)| {
            let chart = LineChart {
                title,
                x,
                y: y.clone(),
                lines: vec![line(crate::t!("html-line-write-iops"), xs)],
                bands: Vec::new(),
                y_bands: Vec::new(),
                markers: Vec::new(),
                value_fmt: rate,
                emphasis: None,
            };
            figure(
                &svg::line_chart(&chart),
                &format!("{caption}{}", super::jobs::merged_note(k)),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    mod svg_inspect {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/support/svg_inspect.rs"
        ));
    }
    use svg_inspect::{svg_chart as chart, svg_lines as lines};

    #[test]
    fn each_test_has_its_heading_plots_table_and_chart() {
        let run = crate::report::fixtures::pts_run();
        let mut page = Page::new("t", None);
        crate::i18n::in_english(|| section(&mut page, &[run], &["ssd".into()]));
        let html = &page.body;
        let table = |test: &str| page.find_table(&format!("pts-r7-{test}")).unwrap();
        assert_eq!(
            html.matches(r#"<span class="nc">NOT CONFORMING</span>"#).count(),
            4
        );
        assert!(html.contains("IOPS · purged (blkdiscard) · steady, window rounds 2-6 of 6"));
        assert!(html.contains("TP 1m · purged (blkdiscard) · NOT steady after 5 rounds"));
        // Convergence: the tracked point (drawn last, over the others) and
        // its mix's other block size, 6 rounds, the window shaded.
        let conv = chart(html, "Steady-state convergence · IOPS");
        assert_eq!(
            lines(conv),
            [
                ("bs=1m mix=0/100".to_string(), 6),
                ("bs=4k mix=0/100 (tracked)".to_string(), 6)
            ]
        );
        assert!(conv.contains(r#"stroke-width="3""#));
        assert!(conv.contains(r#"<g class="band measure">"#) && conv.contains("steady window"));
        // The window: its 5 values, the average and the fitted line; both bands.
        let win = chart(html, "Steady-state measurement window · IOPS bs=4k mix=0/100");
        let l = lines(win);
        assert_eq!((l[0].0.as_str(), l[0].1), ("average 1000", 2));
        assert_eq!((l[1].0.as_str(), l[1].1), ("least-squares line", 2));
        assert_eq!(l[2], ("bs=4k mix=0/100".to_string(), 5));
        assert!(win.contains(r#"<g class="band tol20">"#) && win.contains(">±20 %<"));
        assert!(win.contains(r#"<g class="band tol10">"#) && win.contains(">±10 %<"));
        // The IOPS matrix and its chart: a line per mix over both block sizes.
        let t = table("iops");
        assert_eq!(t.columns, ["bs \\ R/W", "0/100", "100/0"]);
        assert_eq!(t.rows.len(), 2);
        let by_bs = chart(html, "IOPS: IOPS by block size, one line per R/W mix");
        assert_eq!(
            lines(by_bs),
            [("R/W 0/100".to_string(), 2), ("R/W 100/0".to_string(), 2)]
        );
        // TP: a bar per direction and block size; LAT: mean and max per point.
        let tp = chart(html, "TP: MB/s by block size and direction");
        assert_eq!(tp.matches(r#"class="bar""#).count(), 2);
        assert_eq!(table("tp-1m").rows.len(), 2);
        let lat = chart(html, "LAT: mean and maximum latency per point");
        assert_eq!(lat.matches(r#"class="bar""#).count(), 4);
        assert_eq!(table("lat").columns.len(), 8);
        // WS: its 10 periods over time and over bytes written (1000 to 2000 IOPS of 4 KiB).
        for title in ["WS: IOPS over time", "WS: IOPS over data written"] {
            assert_eq!(lines(chart(html, title)), [("write IOPS".to_string(), 10)]);
        }
        assert!(chart(html, "WS: IOPS over data written").contains(">written (MB)<"));
    }

    /// Two PTS runs side by side: a comparison row per test point of the
    /// measurement windows (and the WS job), no table left empty, and each
    /// run's pages under headings that name it.
    #[test]
    fn two_pts_runs_compare_by_test_point_with_no_empty_table() {
        let a = crate::report::fixtures::pts_run();
        let mut b = crate::report::fixtures::pts_run();
        b.id = Some(8);
        b.label = Some("ssd b".into());
        let page = crate::i18n::in_english(|| super::super::report(&[a, b], None));
        let shown = page
            .tables
            .iter()
            .filter(|t| t.name.starts_with("comparison") || t.name.starts_with("pts"));
        assert_eq!(
            shown.clone().count(),
            2 + 2 * 4,
            "{:?}",
            page.tables.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
        for t in shown {
            assert!(!t.rows.is_empty(), "table {} is empty", t.name);
        }
        let rows: Vec<String> = page
            .find_table("comparison")
            .unwrap()
            .rows
            .iter()
            .map(|r| r[0].text.clone())
            .collect();
        assert_eq!(
            rows,
            [
                "IOPS bs=1m mix=0/100 write",
                "IOPS bs=1m mix=100/0 read",
                "IOPS bs=4k mix=0/100 write",
                "IOPS bs=4k mix=100/0 read",
                "TP 1m bs=1m mix=100/0 read",
                "TP 1m bs=1m mix=0/100 write",
                "LAT bs=4k mix=100/0 read",
                "LAT bs=4k mix=0/100 write",
                "WS RND 4k W100 write",
            ]
        );
        for name in ["ssd", "ssd b"] {
            let heading = format!(">{name} · IOPS · purged (blkdiscard) · steady");
            assert_eq!(page.body.matches(&heading).count(), 1, "{heading}");
        }
    }
}
