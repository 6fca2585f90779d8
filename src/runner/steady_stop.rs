//! fio's steady-state stop in the runner (jobs/steady_stop.rs): the
//! job's series is judged interval by interval, after `steady_ramp`, over
//! the last `steady_window`; once the rule holds the job's threads stop
//! and the job is whole, not cut short. Ctrl-C still stops the run.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::jobs::Job;
use crate::jobs::steady_stop::SteadyRule;
use crate::metrics::{IntervalPoint, Warning};

pub(super) struct Judge {
    rule: SteadyRule,
    /// Values the window holds: `steady_window` over the interval.
    len: usize,
    ramp_ns: u64,
    window: VecDeque<f64>,
    /// When the rule held, from the start of measurement.
    attained_ns: Option<u64>,
}

impl Judge {
    /// The judge of a job that asks for fio's steady-state stop.
    pub(super) fn of(job: &Job) -> Option<Judge> {
        let rule = job.steady_stop?;
        let interval = job.interval.as_nanos().max(1) as u64;
        let len = job.steady_window_ns.div_ceil(interval).max(1) as usize;
        Some(Judge {
            rule,
            len,
            ramp_ns: job.steady_ramp_ns,
            window: VecDeque::with_capacity(len + 1),
            attained_ns: None,
        })
    }

    /// Takes a sealed interval; true when the rule holds now.
    pub(super) fn add(&mut self, p: &IntervalPoint) -> bool {
        if self.attained_ns.is_some() || p.start_ns < self.ramp_ns {
            return false;
        }
        self.window
            .push_back(if self.rule.bw { p.bytes_per_sec } else { p.iops });
        if self.window.len() > self.len {
            self.window.pop_front();
        }
        if self.window.len() == self.len && self.rule.holds(self.window.make_contiguous()) {
            self.attained_ns = Some(p.start_ns + p.duration_ns);
            return true;
        }
        false
    }

    pub(super) fn verdict(&self, job: &str) -> Warning {
        Warning::SteadyStop {
            job: job.to_string(),
            rule: self.rule.name(),
            attained_ns: self.attained_ns,
        }
    }
}

/// Sets `job_stop` when `stop` (Ctrl-C) is, until `done`.
pub(super) fn forward_stop(stop: &AtomicBool, job_stop: &AtomicBool, done: &AtomicBool) {
    while !done.load(Ordering::Relaxed) {
        if stop.load(Ordering::Relaxed) {
            job_stop.store(true, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
