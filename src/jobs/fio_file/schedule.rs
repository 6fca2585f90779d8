//! When a fio job starts and stops and how it shares the rate with others,
//! read with fio 3.33's meaning (HOWTO.rst, `fio --cmdhelp`): `wait_for`,
//! `exit_what`, `fill_device`, `flow` and `ss` (steady-state stop).

use super::{Entry, FioJob, FormatError, Loc, Translator, fio_bool, fio_number, value_err};
use crate::jobs::Job;
use crate::jobs::options::{Opt, Value};

/// What a fio job said about its start, end and pace, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioSchedule {
    /// `wait_for=NAME`: the job starts once NAME has ended.
    pub(super) wait_for: Option<(String, Loc)>,
    /// `exit_what=all`: exitall ends every job, later groups too.
    pub(super) exit_all_run: Option<Loc>,
    fill_device: Option<Loc>,
    /// flow, flow_id, and flow_sleep in ns.
    flow: [Option<(u64, Loc)>; 3],
    /// ss (the rule, checked), ss_dur and ss_ramp in ns.
    steady: Option<(crate::jobs::steady_stop::SteadyRule, Loc)>,
    steady_times: [Option<(u64, Loc)>; 2],
}

impl Translator<'_> {
    pub(super) fn apply_schedule(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let at = e.loc.clone();
        let value = || e.value.as_deref().map(str::trim).unwrap_or("");
        let flag = || match e.value.as_deref() {
            None => Ok(true),
            Some(v) => fio_bool(v).map_err(|w| value_err(e, w)),
        };
        match e.key.as_str() {
            "wait_for" => {
                let name = value();
                if name.is_empty() {
                    return Err(value_err(e, "needs the name of a job"));
                }
                j.schedule.wait_for = Some((name.to_string(), at));
            }
            // kura runs one group of jobs at a time: the jobs running when
            // one ends are its group's, fio's `stonewall` and `group` alike.
            "exit_what" => match value().to_ascii_lowercase().as_str() {
                "group" | "stonewall" => j.schedule.exit_all_run = None,
                "all" => j.schedule.exit_all_run = Some(at),
                _ => return Err(value_err(e, "expected group, stonewall or all (fio's words)")),
            },
            "fill_device" | "fill_fs" => j.schedule.fill_device = flag()?.then_some(at),
            _ if e.is(Opt::Flow) || e.is(Opt::FlowId) => {
                let n = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                if e.is(Opt::Flow) && n > 1000 {
                    return Err(value_err(e, "must be between 0 and 1000 (fio's range)"));
                }
                j.schedule.flow[usize::from(e.is(Opt::FlowId))] = Some((n, at));
            }
            _ if e.is(Opt::SteadyStop) => {
                let rule =
                    crate::jobs::steady_stop::SteadyRule::parse(value()).map_err(|w| value_err(e, w))?;
                j.schedule.steady = Some((rule, at));
            }
            _ if e.is(Opt::SteadyWindow) || e.is(Opt::SteadyRamp) => {
                let d = super::fio_time(value(), std::time::Duration::from_secs(1))
                    .map_err(|w| value_err(e, w))?;
                j.schedule.steady_times[usize::from(e.is(Opt::SteadyRamp))] = Some((d.as_nanos() as u64, at));
            }
            _ if e.is(Opt::FlowSleep) => {
                let d = super::fio_time(value(), std::time::Duration::from_micros(1))
                    .map_err(|w| value_err(e, w))?;
                j.schedule.flow[2] = Some((d.as_nanos() as u64, at));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// fio's flow control: a weight, its flow, and the wait when held back.
    pub(super) fn build_flow(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let [weight, id, sleep] = &f.schedule.flow;
        let Some((w, loc)) = weight.as_ref().filter(|(w, _)| *w > 0) else {
            return Ok(());
        };
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        set(job, Opt::Flow, Value::Count(*w), loc)?;
        if let Some((n, loc)) = id {
            set(job, Opt::FlowId, Value::Count(*n), loc)?;
        }
        if let Some((ns, loc)) = sleep {
            set(
                job,
                Opt::FlowSleep,
                Value::Duration(std::time::Duration::from_nanos(*ns)),
                loc,
            )?;
        }
        Ok(())
    }

    /// fio's steady-state stop: on with `ss_dur`, fio's default rule
    /// `iops_slope:0.01%` when `ss` is not given.
    pub(super) fn build_steady(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let [window, ramp] = &f.schedule.steady_times;
        let Some((ns, loc)) = window.as_ref().filter(|(ns, _)| *ns > 0) else {
            return Ok(());
        };
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        let (rule, at) = match &f.schedule.steady {
            Some((rule, at)) => (rule.name(), at),
            None => ("iops_slope:0.01%".to_string(), loc),
        };
        set(job, Opt::SteadyStop, Value::Text(rule), at)?;
        set(
            job,
            Opt::SteadyWindow,
            Value::Duration(std::time::Duration::from_nanos(*ns)),
            loc,
        )?;
        if let Some((ns, loc)) = ramp {
            set(
                job,
                Opt::SteadyRamp,
                Value::Duration(std::time::Duration::from_nanos(*ns)),
                loc,
            )?;
        }
        Ok(())
    }

    /// fio's `fill_device`: write until the device (or file system) is
    /// full. kura writes the span once (`size`, else a device whole, an
    /// existing file at its size); it does not grow a file until ENOSPC.
    pub(super) fn fill_device_job(&mut self, f: &FioJob) -> Option<FioJob> {
        let at = f.schedule.fill_device.clone()?;
        self.note(
            &at,
            format!(
                "{}: fill_device: kura writes the span once (size, else a device whole, an existing file at \
                 its size, a new file of 1g); it does not grow a file until the file system is full",
                f.name
            ),
        );
        let mut once = f.clone();
        once.io_size = None;
        once.number_ios = None;
        once.time_based = false;
        Some(once)
    }
}
