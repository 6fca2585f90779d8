//! Running a translated job file: its jobs in order, groups together, and
//! vdbench's curve points, whose rates are shares of what the run's max jobs
//! measured, so they can only be set once those jobs have run.

use std::sync::atomic::Ordering;

use super::{RunError, RunOptions, RunSink, StopFlag, SuiteJob, refuse_up_front, run_suite};
use crate::jobs::jobfile::PlannedJob;
use crate::metrics::{JobResult, RunResult, Warning};

/// vdbench drops curve points below this many I/Os per second.
const MIN_CURVE_RATE: u64 = 10;

fn iops(r: &JobResult) -> f64 {
    r.directions().map(|(_, d)| d.iops).sum()
}

/// Runs `jobs` in order and returns one result for all of them.
pub fn run_plan(
    jobs: &[PlannedJob],
    opts: &RunOptions,
    stop: &StopFlag,
    sink: &mut dyn RunSink,
) -> Result<RunResult, RunError> {
    refuse_up_front(jobs.iter().map(|p| &p.job), opts)?;
    // What each planned job measured, once it ran.
    let mut measured: Vec<Option<f64>> = vec![None; jobs.len()];
    let mut total: Option<RunResult> = None;
    let mut i = 0;
    while i < jobs.len() && !stop.load(Ordering::Relaxed) {
        // A segment runs up to the first job that needs results not measured yet.
        let ready = |k: usize| {
            jobs[k]
                .curve
                .as_ref()
                .is_none_or(|c| c.max_jobs.iter().all(|m| *m < i))
        };
        let mut end = i;
        while end < jobs.len() && ready(end) {
            end += 1;
        }
        let end = end.max(i + 1);
        let mut suite = Vec::new();
        let mut indices = Vec::new();
        let mut skipped = Vec::new();
        for (k, planned) in jobs.iter().enumerate().take(end).skip(i) {
            let mut job = planned.job.clone();
            if let Some(c) = &planned.curve {
                let max: f64 = c.max_jobs.iter().filter_map(|m| measured[*m]).sum();
                let rate = c.rate(max);
                if rate < MIN_CURVE_RATE {
                    skipped.push(Warning::CurvePointSkipped {
                        job: planned.test.clone().unwrap_or_else(|| job.name.clone()),
                        pct: c.pct,
                        max_iops: max,
                        min_iops: MIN_CURVE_RATE,
                    });
                    continue;
                }
                let share = measured[c.repeats].unwrap_or(0.0) / max.max(f64::MIN_POSITIVE);
                job.rate_iops = Some(((rate as f64 * share).round() as u64).max(1));
            }
            suite.push(SuiteJob {
                test: planned.test.clone(),
                job,
                rounds: None,
            });
            indices.push(k);
        }
        let outcome = if suite.is_empty() {
            None
        } else {
            Some(run_suite(&suite, opts, stop, sink))
        };
        let part = match (outcome, &mut total) {
            (None, _) => None,
            (Some(Ok(r)), _) => Some(r),
            (Some(Err(e)), None) => return Err(e),
            (Some(Err(e)), Some(t)) => {
                t.warnings
                    .push(Warning::StoppedAfterFailure { error: e.to_string() });
                t.incomplete = true;
                break;
            }
        };
        if let Some(mut r) = part {
            // run_suite's results are the first of its jobs, in order.
            for (k, result) in indices.iter().zip(&r.jobs) {
                measured[*k] = Some(iops(result));
            }
            let stopped = r.incomplete;
            match &mut total {
                None => total = Some(r),
                Some(t) => {
                    t.jobs.append(&mut r.jobs);
                    t.warnings.append(&mut r.warnings);
                    t.incomplete |= r.incomplete;
                }
            }
            if stopped {
                break;
            }
        }
        if let Some(t) = &mut total {
            t.warnings.extend(skipped);
        }
        i = end;
    }
    total.ok_or_else(|| RunError::Invalid("nothing ran: every job was skipped".into()))
}
