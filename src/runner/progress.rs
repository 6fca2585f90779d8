//! Live progress on stderr: the step of the run (`[3/40]`), the job, IOPS
//! and MB/s of the last completed period and the time left for the whole
//! run; when the job ends, its line keeps the job's own result (not the
//! last, partial period). A pre-fill shows its share done and its rate.
//! Hidden when stderr is not a terminal or with --quiet. Names and paths
//! come from job files and are escaped (`report::escape::term`): a line
//! drawn many times a second would replay an escape sequence in each frame.

use std::collections::VecDeque;

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::jobs::Job;
use crate::metrics::JobResult;
use crate::metrics::collect::IntervalSample;
use crate::report::escape::term;

pub struct Progress {
    enabled: bool,
    state: Mutex<State>,
    plan: Mutex<Plan>,
}

/// The run as a whole: how many steps, which one runs, and how long the
/// ones after it are expected to take (their measuring time and pauses).
#[derive(Default)]
struct Plan {
    total: usize,
    step: usize,
    /// Expected time of each step, with the pause before it; `None` when it cannot be told.
    expected: Vec<Option<Duration>>,
}

impl Plan {
    /// Expected time of the steps after the current one; `None` when one of them cannot be told.
    fn after_current(&self) -> Option<Duration> {
        self.expected.iter().skip(self.step + 1).copied().sum()
    }
}

/// `1h02m`, `3m20s`, `45s`.
fn short_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
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
    /// Measured time the job is to run, in ms; 0 when it stops on an amount.
    total_ms: u64,
    /// Ops and bytes of the last minute's periods, newest last.
    recent: VecDeque<(u64, u64)>,
}

/// Periods of the "last minute" rate: a minute's worth, at most this many.
const RECENT_PERIODS: usize = 600;

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
            state: Mutex::new(State::default()),
            plan: Mutex::new(Plan::default()),
        }
    }

    /// The run's steps: each one's expected time (measuring and the pause before it).
    pub fn plan(&self, expected: Vec<Option<Duration>>) {
        let mut p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
        *p = Plan {
            total: expected.len(),
            step: 0,
            expected,
        };
    }

    /// The step about to run (0-based).
    pub fn step(&self, step: usize) {
        self.plan.lock().unwrap_or_else(|e| e.into_inner()).step = step;
    }

    /// `[3/40] ` while a run of several steps goes on, else nothing.
    fn step_prefix(&self) -> String {
        let p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
        if p.total > 1 {
            format!("[{}/{}] ", p.step + 1, p.total)
        } else {
            String::new()
        }
    }

    /// A bar for writing `total` bytes of a new test file: share done and rate.
    pub fn fill_bar(&self, path: &std::path::Path, total: u64) -> Option<ProgressBar> {
        if !self.enabled {
            return None;
        }
        // Hidden until the first chunk is written: most jobs find their file ready.
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        // indicatif's placeholders inside the catalogue's words: `{eta} left`, `残り {eta}`.
        let template = format!(
            // The bar takes what the terminal's width leaves (80 columns: about 10).
            "{{prefix}}{} {{msg}} [{{wide_bar}}] {{percent:>3}}% {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {}",
            crate::t!("progress-writing"),
            crate::t!("progress-left", time = "{eta}")
        );
        bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(self.step_prefix());
        bar.set_message(
            path.file_name()
                .map(|n| term(&n.to_string_lossy()).into_owned())
                .unwrap_or_default(),
        );
        Some(bar)
    }

    /// A line of its own above the bars; `text` is one line, names in it raw.
    pub fn message(&self, text: &str) {
        if self.enabled {
            eprintln!("{}", term(text));
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
            // Within the terminal's width: a short bar, and the message cut at its end.
            ProgressStyle::with_template("{prefix} [{bar:10}] {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("{}{}", self.step_prefix(), term(&job.name)));
        bar.set_message(self.left(total_ms, 0));
        bar.enable_steady_tick(Duration::from_millis(200));
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *s = State {
            bar: Some(bar),
            interval_s: job.interval.as_secs_f64(),
            total_ms,
            ..State::default()
        };
    }

    /// `· 3m20s left` for the run: the rest of this job and the steps after it.
    fn left(&self, job_total_ms: u64, job_done_ms: u64) -> String {
        let p = self.plan.lock().unwrap_or_else(|e| e.into_inner());
        match p.after_current() {
            Some(after) if job_total_ms > 0 => {
                let this = Duration::from_millis(job_total_ms.saturating_sub(job_done_ms));
                format!(
                    "· {}",
                    crate::t!("progress-left", time = short_duration(this + after))
                )
            }
            _ => String::new(),
        }
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
            let keep = ((60.0 / secs).round() as usize).clamp(1, RECENT_PERIODS);
            let (ops, bytes) = (s.ops, s.bytes);
            s.recent.push_back((ops, bytes));
            while s.recent.len() > keep {
                s.recent.pop_front();
            }
            let measured_ms = (sample.index + 1) * (secs * 1000.0) as u64;
            // The time left is the whole run's (every step after this one too).
            // Time left first: at 80 columns the message is cut at its end.
            let rate = rate_message(&s.recent, secs, keep);
            let left = self.left(s.total_ms, measured_ms);
            let msg = match left.strip_prefix("· ") {
                Some(left) => format!("{left} · {rate}"),
                None => rate,
            };
            if let Some(bar) = &s.bar {
                bar.set_message(msg);
                bar.set_position(measured_ms);
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
                        ProgressStyle::with_template("{prefix} {wide_msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    bar.finish_with_message(result_message(r));
                }
                None => bar.finish_and_clear(),
            }
        }
    }
}

/// `now 26104 IOPS 106.9 MB/s · last min 25980 IOPS 106.4 MB/s`: the last
/// period, and the last minute once a minute of periods is in. The time
/// left is the plan's (`Progress::left`), appended by the caller.
fn rate_message(recent: &VecDeque<(u64, u64)>, period_s: f64, minute: usize) -> String {
    let mut msg = String::new();
    if let Some((ops, bytes)) = recent.back() {
        msg.push_str(&crate::t!(
            "progress-now",
            iops = format!("{:.0}", *ops as f64 / period_s),
            mbps = format!("{:.1}", *bytes as f64 / period_s / 1e6)
        ));
    }
    if minute > 1 && recent.len() >= minute {
        let (ops, bytes) = recent.iter().fold((0, 0), |(o, b), (po, pb)| (o + po, b + pb));
        let secs = period_s * recent.len() as f64;
        msg.push_str(&format!(
            " · {}",
            crate::t!(
                "progress-last-min",
                iops = format!("{:.0}", ops as f64 / secs),
                mbps = format!("{:.1}", bytes as f64 / secs / 1e6)
            )
        ));
    }
    msg
}

/// The line a finished job leaves: what the job measured, named as its result.
pub fn result_message(r: &JobResult) -> String {
    let (iops, bytes_per_sec) = r
        .directions()
        .fold((0.0, 0.0), |(i, b), (_, d)| (i + d.iops, b + d.bytes_per_sec));
    // Short enough for 80 columns after "[12/24] RND4K Q32T16 write #1";
    // the measured time is in the table that follows.
    crate::t!(
        "progress-done",
        iops = format!("{iops:.0}"),
        mbps = format!("{:.1}", bytes_per_sec / 1e6)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_has_the_last_period_and_the_last_minute() {
        let mut recent = VecDeque::new();
        recent.push_back((1000, 4_096_000));
        assert_eq!(rate_message(&recent, 1.0, 60), "now 1000 IOPS 4.1 MB/s");
        for _ in 0..59 {
            recent.push_back((500, 2_048_000));
        }
        assert_eq!(
            rate_message(&recent, 1.0, 60),
            "now 500 IOPS 2.0 MB/s · last min 508 IOPS 2.1 MB/s"
        );
    }

    #[test]
    fn time_left_is_the_rest_of_the_job_and_the_steps_after_it() {
        let p = Progress::new(true);
        let s = |n| Some(Duration::from_secs(n));
        p.plan(vec![s(10), s(15), s(15), s(60)]);
        p.step(1);
        assert_eq!(p.step_prefix(), "[2/4] ");
        // 15 s job, 5 s done: 10 s of it and 75 s after it.
        assert_eq!(p.left(15_000, 5_000), "· 1m25s left");
        p.plan(vec![s(10), None]);
        assert_eq!(p.left(10_000, 0), "", "unknown when a later step cannot be told");
        assert_eq!(short_duration(Duration::from_secs(3725)), "1h02m");
    }
}
