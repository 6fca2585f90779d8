//! Every job of every run: the terminal's tables, then IOPS and latency
//! over time (ramp and measurement marked), the latency percentile curve
//! up to p99.999 on log scales, and the latency histogram.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::table::{Cell, Table};
use super::{Page, figure};
use crate::jobs::units::format_duration;
use crate::metrics::changes::Figure;
use crate::metrics::histogram::{PERCENTILES, decode, percentile_key};
use crate::metrics::{IntervalPoint, JobResult, RunResult};
use crate::report::format::{latency, mb_per_sec, mib_per_sec, percentile_label, rate};
use crate::report::run_table::target_line;
use crate::report::svg::{self, Axis, Band, BinChart, Line, LineChart, Scale, esc};

/// Suites with more jobs than this start with their jobs folded.
const OPEN_JOBS: usize = 6;
/// More periods than this are merged before drawing: a night at 1 s is 28,800.
const MAX_POINTS: usize = 1200;

pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    page.html(&format!(
        r#"<section id="jobs"><h2>{}</h2>"#,
        crate::t!("html-jobs")
    ));
    page.table(super::summary::results_table(runs, names));
    for (r, (run, name)) in runs.iter().zip(names).enumerate() {
        if runs.len() > 1 {
            page.html(&format!("<h3>{}</h3>", esc(name)));
        }
        if run.jobs.is_empty() {
            page.html(r#"<p class="note">This run has no jobs.</p>"#);
        }
        // A PTS run's rounds are charted on its own pages (pts.rs).
        let rounds = if run.suite == Some(crate::jobs::suites::SuiteKind::Pts) {
            Vec::new()
        } else {
            super::changes::rounds_charts(run)
        };
        if !rounds.is_empty() {
            page.html(&format!(r#"<div class="charts">{}</div>"#, rounds.concat()));
        }
        let key = run.id.map(|i| i as usize).unwrap_or(r);
        for (j, job) in run.jobs.iter().enumerate() {
            let measuring = crate::report::runs::still_measuring(run);
            job_block(
                page,
                job,
                &format!("r{key}-j{j}"),
                run.jobs.len() <= OPEN_JOBS,
                measuring,
            );
        }
    }
    page.html("</section>");
}

fn headline(job: &JobResult) -> String {
    job.directions()
        .map(|(dir, d)| {
            format!(
                "{dir} {} IOPS, {} MB/s, mean {}",
                rate(d.iops),
                mb_per_sec(d.bytes_per_sec),
                latency(d.lat_ns.mean)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

fn job_block(page: &mut Page, job: &JobResult, key: &str, open: bool, measuring: bool) {
    let title = match &job.test {
        Some(test) => format!("{} [{test}]", job.job.name),
        None => job.job.name.clone(),
    };
    let mut html = String::new();
    let _ = write!(
        html,
        r#"<details class="job" id="{key}"{open}><summary>{t} — {h}{inc}</summary><p class="meta">{w} on {target}</p><p class="meta">engine {e}, measured {m:.2} s{ramp}, CPU user {u:.2} s, system {s:.2} s{sync}</p>"#,
        open = if open { " open" } else { "" },
        t = esc(&title),
        h = esc(&headline(job)),
        inc = match crate::report::runs::job_note(job, measuring) {
            Some(note) => format!(" ({note})"),
            None => String::new(),
        },
        w = esc(&job.job.summary()),
        target = esc(&target_line(job)),
        e = esc(&job.engine),
        m = job.elapsed_ns as f64 / 1e9,
        ramp = if job.ramp_ns > 0 {
            format!(" after {:.1} s ramp", job.ramp_ns as f64 / 1e9)
        } else {
            String::new()
        },
        u = job.cpu_user_ns as f64 / 1e9,
        s = job.cpu_system_ns as f64 / 1e9,
        sync = esc(&crate::report::run_table::syncs_text(job)),
    );
    for (dir, d) in job.directions() {
        for e in &d.error_samples {
            let _ = write!(
                html,
                r#"<div class="banner error">{dir} error: {} (errno {}) at offset {}</div>"#,
                esc(&e.message),
                e.errno,
                e.offset_bytes
            );
        }
    }
    html.push_str(&super::changes::list(job));
    page.html(&html);
    page.table(direction_table(job, key, &title));
    page.table(percentile_table(job, key, &title));
    if let Some(t) = super::ranks::table(job, key, &title) {
        page.table(t);
        page.html(&super::ranks::notes(job));
    }
    page.html(r#"<div class="charts">"#);
    for chart in [
        iops_over_time(job, &title),
        latency_over_time(job, &title),
        percentile_chart(job, &title),
        histogram_chart(job, &title),
    ]
    .into_iter()
    .flatten()
    {
        page.html(&chart);
    }
    page.html("</div></details>");
}

fn direction_table(job: &JobResult, key: &str, title: &str) -> Table {
    let mut t = Table::new(
        key,
        title,
        &[
            "", "IOPS", "MB/s", "MiB/s", "ops", "errors", "lat min", "mean", "stddev", "max",
        ],
    )
    .with_export_columns(&[
        "direction",
        "iops",
        "mb_per_sec",
        "mib_per_sec",
        "ops",
        "errors",
        "lat_min_ns",
        "lat_mean_ns",
        "lat_stddev_ns",
        "lat_max_ns",
    ]);
    for (dir, d) in job.directions() {
        t.rows.push(vec![
            Cell::text(dir),
            Cell::num(d.iops, rate(d.iops)),
            Cell::num(d.bytes_per_sec / 1e6, mb_per_sec(d.bytes_per_sec)),
            Cell::num(
                d.bytes_per_sec / (1u64 << 20) as f64,
                mib_per_sec(d.bytes_per_sec),
            ),
            Cell::int(d.ops as i64),
            Cell::int(d.errors as i64),
            Cell::num(d.lat_ns.min as f64, latency(d.lat_ns.min as f64)),
            Cell::num(d.lat_ns.mean, latency(d.lat_ns.mean)),
            Cell::num(d.lat_ns.stddev, latency(d.lat_ns.stddev)),
            Cell::num(d.lat_ns.max as f64, latency(d.lat_ns.max as f64)),
        ]);
    }
    t
}

fn percentile_table(job: &JobResult, key: &str, title: &str) -> Table {
    let shown: Vec<String> = std::iter::once("percentile".to_string())
        .chain(PERCENTILES.iter().map(|p| percentile_label(*p)))
        .collect();
    let exported: Vec<String> = std::iter::once("direction".to_string())
        .chain(PERCENTILES.iter().map(|p| format!("{}_ns", percentile_label(*p))))
        .collect();
    let mut t = Table::new(
        &format!("{key}-percentiles"),
        &crate::t!("html-percentiles-table", title = title),
        &shown.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .with_export_columns(&exported.iter().map(String::as_str).collect::<Vec<_>>());
    for (dir, d) in job.directions() {
        let mut row = vec![Cell::text(dir)];
        row.extend(
            PERCENTILES
                .iter()
                .map(|q| match d.lat_ns.percentiles.get(&percentile_key(*q)) {
                    Some(v) => Cell::num(*v as f64, latency(*v as f64)),
                    None => Cell::empty(),
                }),
        );
        t.rows.push(row);
    }
    t
}

/// The series as charted: a last period cut to under a quarter of the
/// interval (the run ended just after it began) holds a handful of I/Os
/// whose rate is noise, so it is left out of the lines; the tables keep it.
pub(super) fn charted(series: &[IntervalPoint]) -> (Vec<IntervalPoint>, usize) {
    let mut points = series;
    if let [rest @ .., last] = points
        && !rest.is_empty()
        && last.duration_ns * 4 < rest[0].duration_ns
    {
        points = rest;
    }
    downsample(points)
}

/// Merges runs of `k` consecutive periods so that at most `MAX_POINTS`
/// remain: rates over the merged time, mean weighted by operations, and the
/// highest p99 (a spike must not vanish into an average).
pub fn downsample(series: &[IntervalPoint]) -> (Vec<IntervalPoint>, usize) {
    if series.len() <= MAX_POINTS {
        return (series.to_vec(), 1);
    }
    let k = series.len().div_ceil(MAX_POINTS);
    let merged = series
        .chunks(k)
        .map(|c| {
            let duration_ns: u64 = c.iter().map(|p| p.duration_ns).sum();
            let read_ops: u64 = c.iter().map(|p| p.read_ops).sum();
            let write_ops: u64 = c.iter().map(|p| p.write_ops).sum();
            let bytes: u64 = c.iter().map(|p| p.bytes).sum();
            let ops = (read_ops + write_ops) as f64;
            let secs = duration_ns as f64 / 1e9;
            IntervalPoint {
                start_ns: c[0].start_ns,
                duration_ns,
                read_ops,
                write_ops,
                bytes,
                iops: if secs > 0.0 { ops / secs } else { 0.0 },
                bytes_per_sec: if secs > 0.0 { bytes as f64 / secs } else { 0.0 },
                lat_mean_ns: if ops > 0.0 {
                    c.iter()
                        .map(|p| p.lat_mean_ns * (p.read_ops + p.write_ops) as f64)
                        .sum::<f64>()
                        / ops
                } else {
                    0.0
                },
                lat_p99_ns: c.iter().map(|p| p.lat_p99_ns).max().unwrap_or(0),
                lat_max_ns: c.iter().map(|p| p.lat_max_ns).max().unwrap_or(0),
                cpu_user_ns: c.iter().map(|p| p.cpu_user_ns).sum(),
                cpu_system_ns: c.iter().map(|p| p.cpu_system_ns).sum(),
                // Per-direction means and the stddev do not merge from means alone.
                ..IntervalPoint::default()
            }
        })
        .collect();
    (merged, k)
}

/// Seconds, minutes or hours, whichever keeps the time axis short.
pub(super) fn time_unit(span_s: f64) -> (f64, &'static str) {
    if span_s <= 300.0 {
        (1.0, "s")
    } else if span_s <= 3.0 * 3600.0 {
        (60.0, "min")
    } else {
        (3600.0, "h")
    }
}

/// Ticks at whole UTC hours (HH:MM) for runs of an hour or more whose start is
/// known; positions in the axis unit `div` seconds from the start of measurement.
fn wall_clock_ticks(start_unix_ms: u64, from_s: f64, to_s: f64, div: f64) -> Option<Vec<(f64, String)>> {
    if start_unix_ms == 0 || to_s - from_s < 3600.0 {
        return None;
    }
    let start_s = start_unix_ms as f64 / 1000.0;
    let hours = (to_s - from_s) / 3600.0;
    let step_h = [1.0, 2.0, 3.0, 6.0, 12.0, 24.0]
        .into_iter()
        .find(|s| hours / s <= 8.0)
        .unwrap_or(48.0);
    let step_s = step_h * 3600.0;
    let mut t = ((start_s + from_s) / step_s).ceil() * step_s;
    let mut ticks = Vec::new();
    while t <= start_s + to_s {
        let secs_of_day = (t as i64).rem_euclid(86_400);
        ticks.push((
            (t - start_s) / div,
            format!("{:02}:{:02}", secs_of_day / 3600, secs_of_day / 60 % 60),
        ));
        t += step_s;
    }
    Some(ticks)
}

/// The time axis and the phases of a job: ramp (before 0, not measured) and measurement.
fn time_frame(job: &JobResult) -> (Axis, Vec<Band>, Vec<(f64, String)>, f64) {
    let ramp_s = job.ramp_ns as f64 / 1e9;
    let end_s = job
        .series
        .last()
        .map(|p| (p.start_ns + p.duration_ns) as f64 / 1e9)
        .unwrap_or(0.0)
        .max(job.elapsed_ns as f64 / 1e9);
    let (div, unit) = time_unit(ramp_s + end_s);
    let axis = match wall_clock_ticks(job.measure_start_unix_ms, -ramp_s, end_s, div) {
        // Long runs read better against the clock: "IOPS rose at 02:00" (seed 4).
        Some(ticks) => Axis::custom(
            &crate::t!("html-axis-time-of-day"),
            Scale::Linear,
            -ramp_s / div,
            end_s / div,
            ticks,
        ),
        None => Axis::span(
            &crate::t!("html-axis-time", unit = unit),
            -ramp_s / div,
            end_s / div,
            svg::num_tick,
        ),
    };
    let mut bands = Vec::new();
    if ramp_s > 0.0 {
        bands.push(Band {
            from: -ramp_s / div,
            to: 0.0,
            label: crate::t!("html-band-ramp"),
            class: "ramp",
        });
    }
    bands.push(Band {
        from: 0.0,
        to: end_s / div,
        label: crate::t!("html-band-measure"),
        class: "measure",
    });
    let mut markers = Vec::new();
    if job.incomplete {
        markers.push((end_s / div, "stopped early".to_string()));
    }
    (axis, bands, markers, div)
}

pub(super) fn merged_note(k: usize) -> String {
    if k > 1 {
        format!(" Every {k} periods merged into one point (p99: the highest of them).")
    } else {
        String::new()
    }
}

fn iops_over_time(job: &JobResult, title: &str) -> Option<String> {
    if job.series.is_empty() {
        return Some(format!(
            r#"<figure><p class="note">{}: no interval series was recorded.</p></figure>"#,
            esc(title)
        ));
    }
    let (series, k) = charted(&job.series);
    let (x, bands, mut markers, div) = time_frame(job);
    markers.extend(super::changes::markers(job, Figure::Iops, div));
    let mid = |p: &IntervalPoint| (p.start_ns as f64 + p.duration_ns as f64 / 2.0) / 1e9 / div;
    let per_sec = |ops: u64, p: &IntervalPoint| {
        if p.duration_ns > 0 {
            ops as f64 / (p.duration_ns as f64 / 1e9)
        } else {
            0.0
        }
    };
    let mut lines = Vec::new();
    let reads = job.read.is_some();
    let writes = job.write.is_some();
    if reads && writes {
        for (name, f) in [
            (
                "read",
                (|p: &IntervalPoint| p.read_ops) as fn(&IntervalPoint) -> u64,
            ),
            ("write", |p: &IntervalPoint| p.write_ops),
        ] {
            lines.push(Line {
                name: crate::i18n::heading(name),
                points: series.iter().map(|p| (mid(p), per_sec(f(p), p))).collect(),
                dashed: false,
                values: Vec::new(),
            });
        }
    }
    lines.push(Line {
        name: if reads && writes {
            crate::i18n::heading("total")
        } else if writes {
            crate::t!("html-line-write-iops")
        } else if reads {
            crate::t!("html-line-read-iops")
        } else {
            // A trim job (a PTS purge): its own operation, not "read".
            let op = job.directions().next().map_or("total", |(name, _)| name);
            format!("{} IOPS", crate::i18n::heading(op))
        },
        points: series.iter().map(|p| (mid(p), p.iops)).collect(),
        dashed: reads && writes,
        values: Vec::new(),
    });
    let max = series.iter().map(|p| p.iops).fold(0.0, f64::max);
    let chart = LineChart {
        title: crate::t!("html-iops-over-time", title = title),
        x,
        y: Axis::linear("IOPS", 0.0, max * 1.1, true, svg::num_tick),
        lines,
        bands,
        y_bands: Vec::new(),
        markers,
        value_fmt: rate,
        emphasis: None,
    };
    Some(figure(
        &svg::line_chart(&chart),
        &format!(
            "{}{}",
            crate::t!("html-iops-caption", period = format_duration(job.job.interval)),
            merged_note(k)
        ),
    ))
}

/// The unit that keeps a linear latency axis's numbers short.
pub(super) fn latency_unit(max_ns: f64) -> (f64, &'static str) {
    if max_ns >= 2e9 {
        (1e9, "s")
    } else if max_ns >= 2e6 {
        (1e6, "ms")
    } else if max_ns >= 2e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// Values on an axis in `unit` (from [`latency_unit`]) written as latencies.
pub(super) fn latency_in(unit: &str) -> fn(f64) -> String {
    match unit {
        "s" => |v| latency(v * 1e9),
        "ms" => |v| latency(v * 1e6),
        "µs" => |v| latency(v * 1e3),
        _ => latency,
    }
}

fn latency_over_time(job: &JobResult, title: &str) -> Option<String> {
    if job.series.is_empty() {
        return None;
    }
    let (series, k) = charted(&job.series);
    let (x, bands, mut markers, div) = time_frame(job);
    markers.extend(super::changes::markers(job, Figure::MeanLatency, div));
    let mid = |p: &IntervalPoint| (p.start_ns as f64 + p.duration_ns as f64 / 2.0) / 1e9 / div;
    let max = series
        .iter()
        .map(|p| (p.lat_p99_ns as f64).max(p.lat_mean_ns))
        .fold(0.0, f64::max);
    let (unit_ns, unit) = latency_unit(max);
    // Periods without completions have no latency; they are left out, not drawn as 0.
    let busy = |p: &&IntervalPoint| p.read_ops + p.write_ops > 0;
    let lines = vec![
        Line {
            name: crate::i18n::heading("mean"),
            points: series
                .iter()
                .filter(busy)
                .map(|p| (mid(p), p.lat_mean_ns / unit_ns))
                .collect(),
            dashed: false,
            values: Vec::new(),
        },
        Line {
            name: "p99".into(),
            points: series
                .iter()
                .filter(busy)
                .map(|p| (mid(p), p.lat_p99_ns as f64 / unit_ns))
                .collect(),
            dashed: true,
            values: Vec::new(),
        },
    ];
    let chart = LineChart {
        title: crate::t!("html-latency-over-time", title = title),
        x,
        y: Axis::linear(
            &crate::t!("html-axis-latency-unit", unit = unit),
            0.0,
            max / unit_ns * 1.1,
            true,
            svg::num_tick,
        ),
        lines,
        bands,
        y_bands: Vec::new(),
        markers,
        value_fmt: latency_in(unit),
        emphasis: None,
    };
    Some(figure(
        &svg::line_chart(&chart),
        &format!(
            "{}{}",
            crate::t!("html-latency-over-time-caption"),
            merged_note(k)
        ),
    ))
}

/// x of the percentile chart: the number of nines, -log10(1 - p).
fn nines(p_pct: f64) -> f64 {
    -(1.0 - p_pct / 100.0).max(1e-12).log10()
}

/// Percentiles written on the curve.
const LABELLED: [f64; 4] = [50.0, 99.0, 99.9, 99.999];

fn percentile_chart(job: &JobResult, title: &str) -> Option<String> {
    let mut lines = Vec::new();
    for (dir, d) in job.directions() {
        if d.ops == 0 {
            continue;
        }
        let mut pts: Vec<(f64, f64)> = Vec::new();
        // The histogram gives a smooth curve; the stored percentiles are kept
        // as the exact points the tables show.
        if let Some(h) = decode(&d.histogram).filter(|h| !h.is_empty()) {
            for i in 0..=100 {
                let x = i as f64 * 0.05;
                let q = 1.0 - 10f64.powf(-x);
                pts.push((x, h.value_at_quantile(q) as f64));
            }
        }
        for (k, v) in &d.lat_ns.percentiles {
            if let Ok(p) = k.parse::<f64>() {
                pts.push((nines(p), *v as f64));
            }
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9);
        let values = pts
            .iter()
            .enumerate()
            .filter(|(_, (x, _))| LABELLED.iter().any(|p| (nines(*p) - x).abs() < 1e-9))
            .map(|(i, _)| i)
            .collect();
        lines.push(Line {
            name: dir.to_string(),
            points: pts,
            dashed: false,
            values,
        });
    }
    if lines.is_empty() {
        return None;
    }
    let all = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let (min, max) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let ticks = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        .iter()
        .zip(["0", "90", "99", "99.9", "99.99", "99.999"])
        .map(|(x, l)| (*x, l.to_string()))
        .collect();
    let chart = LineChart {
        title: crate::t!("html-latency-percentiles", title = title),
        x: Axis::custom(&crate::t!("html-axis-percentile"), Scale::Linear, 0.0, 5.0, ticks),
        y: Axis::log10(
            &crate::t!("html-axis-latency"),
            min.max(1.0),
            max,
            svg::latency_tick,
        ),
        lines,
        bands: Vec::new(),
        y_bands: Vec::new(),
        markers: Vec::new(),
        value_fmt: latency,
        emphasis: None,
    };
    Some(figure(
        &svg::line_chart(&chart),
        &crate::t!("html-latency-percentiles-caption"),
    ))
}

/// Bins per decade of the histogram chart.
const BINS_PER_DECADE: f64 = 10.0;

fn histogram_chart(job: &JobResult, title: &str) -> Option<String> {
    let mut series = Vec::new();
    let (mut lo, mut hi, mut top) = (f64::INFINITY, 0.0f64, 0.0f64);
    for (dir, d) in job.directions() {
        let Some(h) = decode(&d.histogram).filter(|h| !h.is_empty()) else {
            continue;
        };
        let mut bins: BTreeMap<i64, u64> = BTreeMap::new();
        for v in h.iter_recorded() {
            let value = v.value_iterated_to().max(1) as f64;
            let b = (value.log10() * BINS_PER_DECADE).floor() as i64;
            *bins.entry(b).or_default() += v.count_at_value();
        }
        let total = h.len() as f64;
        let bins: Vec<(f64, f64, f64)> = bins
            .into_iter()
            .map(|(b, n)| {
                let from = 10f64.powf(b as f64 / BINS_PER_DECADE);
                let to = 10f64.powf((b + 1) as f64 / BINS_PER_DECADE);
                (from, to, n as f64 / total * 100.0)
            })
            .collect();
        for (from, to, share) in &bins {
            lo = lo.min(*from);
            hi = hi.max(*to);
            top = top.max(*share);
        }
        series.push((dir.to_string(), bins));
    }
    if series.is_empty() {
        return None;
    }
    let chart = BinChart {
        title: crate::t!("html-latency-histogram", title = title),
        x: Axis::log10(&crate::t!("html-axis-latency"), lo, hi, svg::latency_tick),
        y: Axis::linear(
            &crate::t!("html-axis-share"),
            0.0,
            top * 1.05,
            true,
            svg::num_tick,
        ),
        series,
    };
    Some(figure(
        &svg::bin_chart(&chart),
        &crate::t!("html-latency-histogram-caption", bins = BINS_PER_DECADE),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: u64, ops: u64, p99: u64) -> IntervalPoint {
        IntervalPoint {
            start_ns: i * 1_000_000_000,
            duration_ns: 1_000_000_000,
            read_ops: ops,
            write_ops: 0,
            bytes: ops * 4096,
            iops: ops as f64,
            bytes_per_sec: (ops * 4096) as f64,
            lat_mean_ns: 1000.0,
            lat_p99_ns: p99,
            ..IntervalPoint::default()
        }
    }

    #[test]
    fn downsampling_keeps_rates_and_the_worst_p99() {
        let series: Vec<IntervalPoint> = (0..28_800).map(|i| point(i, 100 + i % 7, 5_000 + i)).collect();
        let (merged, k) = downsample(&series);
        assert_eq!(k, 24);
        assert_eq!(merged.len(), 1200);
        let ops: u64 = merged.iter().map(|p| p.read_ops).sum();
        assert_eq!(ops, series.iter().map(|p| p.read_ops).sum::<u64>());
        assert_eq!(merged[0].lat_p99_ns, 5_023);
        assert!((merged[0].iops - (0..24).map(|i| 100 + i % 7).sum::<u64>() as f64 / 24.0).abs() < 1e-9);
        let short = vec![point(0, 1, 1)];
        assert_eq!(downsample(&short).1, 1);
    }

    #[test]
    fn a_last_sliver_of_a_period_is_not_charted() {
        let mut sliver = point(3, 1, 9_000_000);
        sliver.duration_ns = 1_000_000;
        let series = vec![point(0, 100, 1), point(1, 100, 1), point(2, 100, 1), sliver];
        let job: JobResult = serde_json::from_value(serde_json::json!({
            "job": crate::jobs::Job::default(), "test": null,
            "target": {"path": "t", "kind": "file", "fs_type": null, "device": null, "device_model": null,
                       "rotational": null, "size_bytes": 1, "logical_block_bytes": 512, "created": false},
            "engine": "null", "elapsed_ns": 3_001_000_000u64, "ramp_ns": 0, "read": null, "write": null,
            "syncs": 0, "cpu_user_ns": 0, "cpu_system_ns": 0, "series": series, "incomplete": false
        }))
        .unwrap();
        assert_eq!(charted(&job.series).0.len(), 3);
    }

    #[test]
    fn nines_place_percentiles() {
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
        assert!((nines(99.999) - 5.0).abs() < 1e-6);
        assert_eq!(time_unit(60.0).1, "s");
        // A night run from 22:30 UTC for 8 h: ticks on whole hours, 23:00 half an hour in.
        let start_ms = (20 * 86_400 + 22 * 3600 + 1800) * 1000;
        let ticks = wall_clock_ticks(start_ms, 0.0, 8.0 * 3600.0, 3600.0).unwrap();
        assert_eq!(ticks[0], (0.5, "23:00".to_string()));
        assert_eq!(ticks[3], (3.5, "02:00".to_string()));
        assert_eq!(ticks.len(), 8);
        assert!(wall_clock_ticks(0, 0.0, 8.0 * 3600.0, 3600.0).is_none());
        assert!(wall_clock_ticks(start_ms, 0.0, 600.0, 60.0).is_none());
        assert_eq!(time_unit(8.0 * 3600.0).1, "h");
    }
}
