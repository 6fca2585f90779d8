//! A job's events (metrics::changes) on its page: a list of sentences above
//! the charts, and a marker at each step on the chart of the figure that
//! changed. Found again from the stored series with the job's own
//! settings, as the run did when it stored them as warnings.

use crate::metrics::changes::{self, Figure, Findings, Settings};
use crate::metrics::steady::{self, Rounds};
use crate::metrics::{JobResult, RunResult, Warning};
use crate::report::svg::{self, Axis, Band, Line, LineChart, esc};

fn findings(job: &JobResult) -> Findings {
    // As the runner: the null engine's rate follows the CPU, not a device.
    if job.engine == "null" {
        return Findings::default();
    }
    changes::find(&job.series, &Settings::of(&job.job))
}

/// Markers at the steps of `figure`, on an axis in units of `div` seconds.
pub fn markers(job: &JobResult, figure: Figure, div: f64) -> Vec<(f64, String)> {
    let f = findings(job);
    let mut out: Vec<(f64, String)> = f
        .steps
        .iter()
        .filter(|s| s.figure == figure)
        .map(|s| {
            let id = if s.change_pct > 0.0 {
                "change-marker-rose"
            } else {
                "change-marker-fell"
            };
            (
                s.at_ns as f64 / 1e9 / div,
                crate::t!(id, size = changes::size_text(s.change_pct)),
            )
        })
        .collect();
    if figure == Figure::MeanLatency
        && let Some(sp) = &f.spikes
    {
        out.push((
            sp.worst_at_ns as f64 / 1e9 / div,
            crate::t!("change-marker-worst-p99"),
        ));
    }
    out
}

/// The sentences, as a list; empty when the series showed nothing.
pub fn list(job: &JobResult) -> String {
    let f = findings(job);
    let start = job.measure_start_unix_ms;
    let mut items: Vec<String> = f.steps.iter().map(|s| changes::step_text(s, start)).collect();
    items.extend(f.unsteady.iter().map(changes::unsteady_text));
    items.extend(f.drifts.iter().map(changes::drift_text));
    items.extend(f.spikes.iter().map(|sp| changes::spikes_text(sp, start)));
    if items.is_empty() {
        return String::new();
    }
    let lis: String = items.iter().map(|t| format!("<li>{}</li>", esc(t))).collect();
    format!(r#"<ul class="events">{lis}</ul>"#)
}

/// A chart of each job run in rounds until steady: the tracked figure by
/// round, the last window judged shaded and named steady or not.
pub fn rounds_charts(run: &RunResult) -> Vec<String> {
    run.warnings
        .iter()
        .filter_map(|w| match w {
            Warning::Rounds { job, rounds } => {
                let line = (
                    rounds.tracked.unit().to_string(),
                    rounds.values.iter().copied().map(Some).collect(),
                );
                let chart = rounds_chart(
                    &crate::t!("steady-chart-title", job = job.as_str()),
                    rounds,
                    &[line],
                );
                Some(super::figure(&chart, &steady::rounds_text(rounds)))
            }
            _ => None,
        })
        .collect()
}

/// The SVG of figures by round, `lines` of (name, value in round 1, 2,
/// ...; `None` where it did not run), in `r`'s tracked unit; `r`'s last window judged
/// is shaded and named steady or not. The axis is logarithmic where the
/// lines lie more than a decade and a half apart (IOPS of 512 B and 1 MiB
/// blocks), so that each line's trend stays visible. The first line is
/// the one judged: drawn wider, over the others.
pub fn rounds_chart(title: &str, r: &Rounds, lines: &[(String, Vec<Option<f64>>)]) -> String {
    let n = lines
        .iter()
        .map(|l| l.1.len())
        .max()
        .unwrap_or(0)
        .max(r.values.len()) as f64;
    let values = || lines.iter().flat_map(|l| l.1.iter().flatten().copied());
    let max = values().fold(0.0, f64::max);
    let min = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let mut bands = Vec::new();
    if let Some(w) = &r.window {
        bands.push(Band {
            from: w.first_round as f64 - 0.5,
            to: w.last_round as f64 + 0.5,
            label: if r.steady {
                crate::t!("steady-window")
            } else {
                crate::t!("steady-last-window")
            },
            class: "measure",
        });
    }
    let unit = r.tracked.unit();
    let y = if min.is_finite() && max / min > 30.0 {
        Axis::log10(&crate::t!("html-axis-log", unit = unit), min, max, svg::num_tick)
    } else {
        Axis::linear(unit, 0.0, max * 1.1, true, svg::num_tick)
    };
    let chart = LineChart {
        title: title.to_string(),
        // Up to a dozen rounds each has its tick; more get 1-2-5 steps.
        x: if n <= 12.0 {
            Axis::custom(
                &crate::t!("steady-round"),
                svg::Scale::Linear,
                0.5,
                n + 0.5,
                (1..=n as u32).map(|r| (r as f64, r.to_string())).collect(),
            )
        } else {
            Axis::span(&crate::t!("steady-round"), 0.5, n + 0.5, svg::num_tick)
        },
        y,
        lines: lines
            .iter()
            .enumerate()
            .map(|(k, (name, values))| Line {
                name: name.clone(),
                points: values
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| ((i + 1) as f64, v)))
                    .collect(),
                // Past the palette colours repeat: the repeats are dashed.
                dashed: k >= svg::PALETTE.len(),
                values: Vec::new(),
            })
            .collect(),
        bands,
        y_bands: Vec::new(),
        markers: Vec::new(),
        value_fmt: svg::num_tick,
        emphasis: Some(0),
    };
    svg::line_chart(&chart)
}
