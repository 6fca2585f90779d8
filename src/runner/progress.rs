//! Live progress on stderr: the job, time left, IOPS and MB/s of the last
//! completed period; when the job ends, its line keeps the job's own result
//! (not the last, partial period). Hidden when stderr is not a terminal or
//! with --quiet.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::jobs::Job;
use crate::metrics::JobResult;
use crate::metrics::collect::IntervalSample;

pub struct Progress {
    enabled: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    bar: Option<ProgressBar>,
    /// Period being summed, its ops, bytes and how many threads reported it.
    index: u64,
    ops: u64,
    bytes: u64,
    reported: u32,
    interval_s: f64,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
            state: Mutex::new(State::default()),
        }
    }

    pub fn message(&self, text: &str) {
        if self.enabled {
            eprintln!("{text}");
        }
    }

    pub fn start_job(&self, job: &Job) {
        if !self.enabled {
            return;
        }
        let total_ms = super::expected_duration(job)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let bar = if total_ms > 0 {
            ProgressBar::new(total_ms)
        } else {
            ProgressBar::new_spinner()
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{bar:30}] {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("{} ({})", job.name, job.summary()));
        bar.enable_steady_tick(Duration::from_millis(200));
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *s = State {
            bar: Some(bar),
            interval_s: job.interval.as_secs_f64(),
            ..State::default()
        };
    }

    pub fn sample(&self, sample: &IntervalSample, threads: u32) {
        if !self.enabled {
            return;
        }
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if sample.index != s.index {
            (s.index, s.ops, s.bytes, s.reported) = (sample.index, 0, 0, 0);
        }
        s.ops += sample.read_ops + sample.write_ops;
        s.bytes += sample.bytes;
        s.reported += 1;
        if s.reported == threads {
            let secs = s.interval_s.max(1e-3);
            let msg = format!(
                "{:.0} IOPS  {:.1} MB/s",
                s.ops as f64 / secs,
                s.bytes as f64 / secs / 1e6
            );
            if let Some(bar) = &s.bar {
                bar.set_message(msg);
                bar.set_position((sample.index + 1) * (secs * 1000.0) as u64);
            }
        }
    }

    /// Ends the job's bar with its result: the run's figures over its measured
    /// time, where the last sample alone is the tail period (often a fraction
    /// of one, so a few ops read as a tiny rate).
    pub fn finish_job(&self, result: Option<&JobResult>) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bar) = s.bar.take() {
            match result {
                Some(r) => {
                    bar.set_style(
                        ProgressStyle::with_template("{prefix} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    bar.finish_with_message(result_message(r));
                }
                None => bar.finish_and_clear(),
            }
        }
    }
}

/// The line a finished job leaves: what the job measured, named as its result.
pub fn result_message(r: &JobResult) -> String {
    let secs = r.elapsed_ns as f64 / 1e9;
    let (iops, bytes_per_sec) = r
        .directions()
        .fold((0.0, 0.0), |(i, b), (_, d)| (i + d.iops, b + d.bytes_per_sec));
    format!(
        "done: {iops:.0} IOPS  {:.1} MB/s over {secs:.2} s (the job's result)",
        bytes_per_sec / 1e6
    )
}
