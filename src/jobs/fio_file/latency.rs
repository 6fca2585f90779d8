//! fio's latency target (`latency_target`, `latency_window`,
//! `latency_percentile`, `latency_run`) read onto kura's latency-bounded
//! search. fio 3.33 (`io_u.c`: `lat_target_init`, `lat_target_success`,
//! `__lat_target_failed`; HOWTO.rst) starts a job at queue depth 1, doubles
//! it while each `latency_window` keeps `latency_percentile` % of I/Os (100
//! by default: all of them) under `latency_target`, bisects between the
//! last depth that held and `iodepth` or the first that failed, and reports
//! the depth it settled on. kura searches the same load (queue depth, up to
//! `iodepth`) the same way, but measures each depth as a step of its own,
//! stored with the run, for `latency_window` each.

use std::time::Duration;

use super::{Entry, FioJob, FormatError, Loc, Translator, fio_time, unsupported_value, value_err};
use crate::jobs::Job;
use crate::jobs::latency::LatencyStat;
use crate::jobs::options::{Opt, Value};

/// What a fio job said about its latency target.
#[derive(Debug, Clone, Default)]
pub(super) struct FioLatency {
    target: Option<(Duration, Loc)>,
    window: Option<(Duration, Loc)>,
    percentile: Option<(f64, Loc)>,
}

impl Translator<'_> {
    pub(super) fn apply_latency(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let value = || e.value.as_deref().ok_or_else(|| value_err(e, "needs a value"));
        match e.key.as_str() {
            // fio reads a bare number as microseconds.
            _ if e.is(Opt::LatencyLimit) => {
                let d = fio_time(value()?, Duration::from_micros(1)).map_err(|w| value_err(e, w))?;
                j.latency.target = (!d.is_zero()).then(|| (d, e.loc.clone()));
            }
            "latency_window" => {
                let d = fio_time(value()?, Duration::from_micros(1)).map_err(|w| value_err(e, w))?;
                j.latency.window = (!d.is_zero()).then(|| (d, e.loc.clone()));
            }
            "latency_percentile" => {
                let p: f64 = value()?
                    .trim()
                    .parse()
                    .map_err(|_| value_err(e, "expected a percentage, e.g. 99.9"))?;
                j.latency.percentile = Some((p, e.loc.clone()));
            }
            "latency_run" => {
                if value().map(|v| v.trim() != "0").unwrap_or(true) {
                    return Err(unsupported_value(
                        e,
                        "kura's latency search ends at the depth it finds; it does not keep adjusting",
                    ));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Sets the job's latency bound from what `f` said; nothing without a target.
    pub(super) fn apply_latency_target(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let Some((target, loc)) = &f.latency.target else {
            let stray = f.latency.window.as_ref().map(|w| &w.1);
            if let Some(at) = stray.or(f.latency.percentile.as_ref().map(|p| &p.1)) {
                let at = at.clone();
                self.note(
                    &at,
                    "latency_window and latency_percentile do nothing without latency_target (as in fio)"
                        .into(),
                );
            }
            return Ok(());
        };
        let set = |job: &mut Job, opt: Opt, value: Value, at: &Loc| {
            job.apply(opt, value).map_err(|e| at.error(e.to_string()))
        };
        set(job, Opt::LatencyLimit, Value::Duration(*target), loc)?;
        set(job, Opt::LatencyLoad, Value::Text("qd".into()), loc)?;
        let (pct, pct_loc) = f.latency.percentile.clone().unwrap_or((100.0, loc.clone()));
        let stat = LatencyStat::from_percentile(pct).ok_or_else(|| {
            pct_loc.error(format!(
                "unsupported: latency_percentile={pct}: kura's latency bound holds the mean, p90, p95, p99, p99.9, p99.99 or max (100)"
            ))
        })?;
        set(job, Opt::LatencyStat, Value::Text(stat.name().into()), &pct_loc)?;
        if let Some((w, at)) = &f.latency.window {
            set(job, Opt::Runtime, Value::Duration(*w), at)?;
        }
        self.note(
            loc,
            format!(
                "latency_target: kura searches the queue depth from 1 up to iodepth {} as fio does, but measures each depth as a stored step of {} (fio adjusts one running job each latency_window); the result is the highest depth whose {} latency held",
                job.qd,
                if f.latency.window.is_some() { "latency_window" } else { "runtime" },
                stat.name()
            ),
        );
        Ok(())
    }
}
