//! fio's latency histogram log (`write_hist_log`, `log_hist_msec`,
//! `log_hist_coarseness`; fio 3.33 HOWTO.rst, options.c): written after
//! the job in fio's format (report/fio_hist_log.rs). The window is kura's
//! `interval`, as `log_avg_msec` is for the other logs; a job that sets
//! both to different windows is refused, since kura has one.

use std::time::Duration;

use super::{Entry, FioJob, FormatError, Loc, Translator, fio_number, value_err};
use crate::jobs::Job;
use crate::jobs::options::{Opt, Value};

/// What a fio job said about its histogram log, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioHist {
    /// The prefix (fio's default: the job's name).
    log: Option<(Option<String>, Loc)>,
    msec: Option<(u64, Loc)>,
    coarseness: Option<(u64, Loc)>,
}

impl Translator<'_> {
    pub(super) fn apply_hist(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let at = e.loc.clone();
        let value = || e.value.as_deref().map(str::trim).unwrap_or("");
        match e.key.as_str() {
            _ if e.is(Opt::WriteHistLog) => {
                let prefix = Some(value()).filter(|p| !p.is_empty()).map(str::to_string);
                j.hist.log = Some((prefix, at));
            }
            "log_hist_msec" => {
                let ms = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                j.hist.msec = Some((ms, at));
            }
            _ if e.is(Opt::HistCoarseness) => {
                let n = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                if n > 6 {
                    return Err(value_err(e, "must be between 0 and 6 (fio's range)"));
                }
                j.hist.coarseness = Some((n, at));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The log's prefix, coarseness and window onto `job`.
    pub(super) fn hist_log(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        let Some((prefix, loc)) = &f.hist.log else {
            return Ok(());
        };
        let prefix = prefix.clone().unwrap_or_else(|| f.name.clone());
        set(job, Opt::WriteHistLog, Value::Path(prefix.into()), loc)?;
        if let Some((n, loc)) = &f.hist.coarseness {
            set(job, Opt::HistCoarseness, Value::Count(*n), loc)?;
        }
        match (&f.hist.msec, &f.log_avg_msec, f.logs.iter().any(Option::is_some)) {
            (Some((ms, loc)), Some((avg, _)), true) if *avg > 0 && avg != ms => Err(loc.error(format!(
                "unsupported: {}: log_hist_msec={ms} with log_avg_msec={avg}: kura writes every log of a job per one window (its interval); give them the same value",
                f.name
            ))),
            (Some((ms, loc)), _, _) if *ms > 0 => {
                set(job, Opt::Interval, Value::Duration(Duration::from_millis(*ms)), loc)
            }
            // fio without log_hist_msec writes no histogram lines at all; kura writes one per interval.
            _ => {
                self.note(
                    loc,
                    format!(
                        "{}: write_hist_log without log_hist_msec: fio writes no histogram lines; kura writes one per {} and direction",
                        f.name,
                        crate::jobs::units::format_duration(job.interval)
                    ),
                );
                Ok(())
            }
        }
    }
}
