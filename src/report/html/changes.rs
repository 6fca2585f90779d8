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
            Warning::Rounds { job, rounds } => Some(rounds_chart(job, rounds)),
            _ => None,
        })
        .collect()
}

fn rounds_chart(job: &str, r: &Rounds) -> String {
    let n = r.values.len() as f64;
    let max = r.values.iter().copied().fold(0.0, f64::max);
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
    let chart = LineChart {
        title: crate::t!("steady-chart-title", job = job),
        x: Axis::span(&crate::t!("steady-round"), 0.5, n + 0.5, svg::num_tick),
        y: Axis::linear(r.tracked.unit(), 0.0, max * 1.1, true, svg::num_tick),
        lines: vec![Line {
            name: r.tracked.unit().into(),
            points: r
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| ((i + 1) as f64, *v))
                .collect(),
            dashed: false,
            values: Vec::new(),
        }],
        bands,
        markers: Vec::new(),
        value_fmt: svg::num_tick,
    };
    super::figure(&svg::line_chart(&chart), &steady::rounds_text(r))
}
