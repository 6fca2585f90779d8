//! The options of fio's shipped examples (`/usr/share/doc/fio/examples`,
//! fio 3.33) that kura refused until issue 26, read with fio's meaning
//! (HOWTO.rst, `fio --cmdhelp`): `wait_for`, `exit_what`, `fill_device`,
//! `zonemode=strided` with its zones, `flow`, `ss` (steady-state stop),
//! `io_submit_mode`, `ignore_error`,
//! and the placement and priority
//! options kura leaves to the tools made for them (numactl, ionice), each
//! with a note saying so.

use super::{
    Entry, FioJob, FormatError, Loc, Translator, fio_bool, fio_number, unsupported_value, value_err,
};
use crate::jobs::Job;
use crate::jobs::options::{Opt, Value};

/// What a fio job said in these options, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioMore {
    /// `wait_for=NAME`: the job starts once NAME has ended.
    pub(super) wait_for: Option<(String, Loc)>,
    /// `exit_what=all`: exitall ends every job, later groups too.
    pub(super) exit_all_run: Option<Loc>,
    fill_device: Option<Loc>,
    /// `zonemode`: `Some(true)` strided, `Some(false)` none; unset: strided when zonesize is given.
    strided: Option<bool>,
    /// zonesize, zonerange, zoneskip.
    zones: [Option<(u64, Loc)>; 3],
    /// flow, flow_id, and flow_sleep in ns.
    flow: [Option<(u64, Loc)>; 3],
    /// ss (the rule, checked), ss_dur and ss_ramp in ns.
    steady: Option<(crate::jobs::steady_stop::SteadyRule, Loc)>,
    steady_times: [Option<(u64, Loc)>; 2],
}

/// fio's zoned-device options, which change nothing without `zonemode=zbd`.
const ZBD_ONLY: &[&str] = &[
    "max_open_zones",
    "job_max_open_zones",
    "read_beyond_wp",
    "zonecapacity",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "ignore_zone_limits",
];

/// Options whose effect kura leaves to another tool, and what to run.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "numa_cpu_nodes",
        "kura leaves thread placement to the scheduler; run it under `numactl --cpunodebind=NODES`",
    ),
    (
        "numa_mem_policy",
        "kura's buffers follow the kernel's default memory policy; run it under `numactl --membind=NODES` (or --interleave)",
    ),
    (
        "prio",
        "kura's I/O runs at the process's I/O priority; run it under `ionice -c CLASS -n PRIO`",
    ),
    (
        "prioclass",
        "kura's I/O runs at the process's I/O priority; run it under `ionice -c CLASS -n PRIO`",
    ),
    (
        "cmdprio_percentage",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio_bssplit",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio_class",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "ignore_error",
        "kura counts every failed I/O with its errno and offset and goes on (max_errors stops it)",
    ),
];

impl Translator<'_> {
    pub(super) fn apply_more(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
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
                j.more.wait_for = Some((name.to_string(), at));
            }
            // kura runs one group of jobs at a time: the jobs running when
            // one ends are its group's, fio's `stonewall` and `group` alike.
            "exit_what" => match value().to_ascii_lowercase().as_str() {
                "group" | "stonewall" => j.more.exit_all_run = None,
                "all" => j.more.exit_all_run = Some(at),
                _ => return Err(value_err(e, "expected group, stonewall or all (fio's words)")),
            },
            "fill_device" | "fill_fs" => j.more.fill_device = flag()?.then_some(at),
            "zonemode" => {
                j.more.strided = match value().to_ascii_lowercase().as_str() {
                    "none" => Some(false),
                    "strided" => Some(true),
                    "zbd" => {
                        return Err(unsupported_value(
                            e,
                            "kura does not model a zoned block device (write pointers, zone resets, open-zone \
                             limits); on a conventional device or a file, remove zonemode to run the same \
                             pattern without zones",
                        ));
                    }
                    _ => return Err(value_err(e, "expected none, strided or zbd (fio's words)")),
                }
            }
            _ if [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
                .iter()
                .any(|o| e.is(*o)) =>
            {
                let i = [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
                    .iter()
                    .position(|o| e.is(*o))
                    .unwrap_or(0);
                let n = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                j.more.zones[i] = Some((n, at));
            }
            k if ZBD_ONLY.contains(&k) => {}
            _ if e.is(Opt::Flow) || e.is(Opt::FlowId) => {
                let n = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                if e.is(Opt::Flow) && n > 1000 {
                    return Err(value_err(e, "must be between 0 and 1000 (fio's range)"));
                }
                j.more.flow[usize::from(e.is(Opt::FlowId))] = Some((n, at));
            }
            _ if e.is(Opt::SteadyStop) => {
                let rule =
                    crate::jobs::steady_stop::SteadyRule::parse(value()).map_err(|w| value_err(e, w))?;
                j.more.steady = Some((rule, at));
            }
            _ if e.is(Opt::SteadyWindow) || e.is(Opt::SteadyRamp) => {
                let d = super::fio_time(value(), std::time::Duration::from_secs(1))
                    .map_err(|w| value_err(e, w))?;
                j.more.steady_times[usize::from(e.is(Opt::SteadyRamp))] = Some((d.as_nanos() as u64, at));
            }
            _ if e.is(Opt::FlowSleep) => {
                let d = super::fio_time(value(), std::time::Duration::from_micros(1))
                    .map_err(|w| value_err(e, w))?;
                j.more.flow[2] = Some((d.as_nanos() as u64, at));
            }
            "io_submit_mode" => match value().to_ascii_lowercase().as_str() {
                "inline" => {}
                "offload" => self.note(
                    &at,
                    "io_submit_mode=offload: kura submits from each job's own threads; a rate-limited job \
                     keeps its schedule however long a submit takes, which is what fio's offload is for"
                        .into(),
                ),
                _ => return Err(value_err(e, "expected inline or offload (fio's words)")),
            },
            k if ELSEWHERE.iter().any(|(n, _)| *n == k) => {
                let why = ELSEWHERE.iter().find(|(n, _)| *n == k).map_or("", |(_, w)| w);
                self.note(&at, format!("{k}: accepted; {why}"));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// fio's strided zones (`zonemode=strided`, or zonesize without a zonemode).
    pub(super) fn build_zones(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let m = &f.more;
        let size = m.zones[0].as_ref().filter(|(n, _)| *n > 0);
        if m.strided == Some(false) || size.is_none() {
            return Ok(());
        }
        for (opt, given) in [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
            .into_iter()
            .zip(&m.zones)
        {
            if let Some((n, loc)) = given
                && *n > 0
            {
                job.apply(opt, Value::Bytes(*n))
                    .map_err(|e| loc.error(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// fio's flow control: a weight, its flow, and the wait when held back.
    pub(super) fn build_flow(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let [weight, id, sleep] = &f.more.flow;
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
        let [window, ramp] = &f.more.steady_times;
        let Some((ns, loc)) = window.as_ref().filter(|(ns, _)| *ns > 0) else {
            return Ok(());
        };
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        let (rule, at) = match &f.more.steady {
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
        let at = f.more.fill_device.clone()?;
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
