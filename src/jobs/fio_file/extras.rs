//! Options of job files people write today, read with fio 3.33's
//! meaning (fio.1, HOWTO.rst): `offset_increment`, `sync`, `buffer_pattern`,
//! `rate_min`/`ratemin`, `rate_iops_min`, `exitall`, writes' own block
//! sizes (`bs=R,W`, `bssplit=R,W`), `dedupe_percentage` (with `dedupe_mode`,
//! `dedupe_working_set_percentage`, `dedupe_global`), `create_on_open`;
//! and the ones kura refuses by name.

use super::{
    Entry, FioJob, FormatError, Loc, PerDir, Translator, fio_number, map_dir, per_dir, unsupported_value,
    value_err,
};
use crate::jobs::Job;
use crate::jobs::byte_pattern::{parse_pattern, pattern_hex};
use crate::jobs::open_sync::OpenSync;
use crate::jobs::options::{Opt, Value};

/// What a fio job said in these options, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioExtras {
    offset_increment: Option<(u64, Loc)>,
    open_sync: Option<(Option<OpenSync>, Loc)>,
    /// The pattern as `0x` hex.
    buffer_pattern: Option<(String, Loc)>,
    rate_min: PerDir<(u64, Loc)>,
    rate_iops_min: PerDir<(u64, Loc)>,
    pub(super) exit_all: bool,
    dedupe_pct: Option<(u64, Loc)>,
    /// `dedupe_mode=working_set`, its share of the span, `dedupe_global`.
    working_set: bool,
    working_set_pct: Option<(u64, Loc)>,
    dedupe_global: bool,
    create_on_open: Option<Loc>,
}

impl FioExtras {
    /// A verify-only job made from a writing one creates nothing.
    pub(super) fn clear_create_on_open(&mut self) {
        self.create_on_open = None;
    }
}

impl Translator<'_> {
    pub(super) fn apply_extras(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let kb = j.kb_base;
        let value = || {
            e.value
                .as_deref()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| value_err(e, "needs a value"))
        };
        let at = e.loc.clone();
        match e.key.as_str() {
            _ if e.is(Opt::OffsetIncrement) => {
                let t = value()?;
                if t.trim_end().ends_with(['%', 'z']) {
                    return Err(unsupported_value(
                        e,
                        "an increment as a share of the file or in zones; give bytes",
                    ));
                }
                let n = fio_number(t, kb).map_err(|w| value_err(e, w))?;
                j.extras.offset_increment = (n > 0).then_some((n, at));
            }
            _ if e.is(Opt::OpenSync) => {
                let s = OpenSync::parse(value()?).map_err(|w| value_err(e, w))?;
                j.extras.open_sync = Some((s, at));
            }
            _ if e.is(Opt::BufferPattern) => {
                let bytes = parse_pattern(value()?).map_err(|w| {
                    if let Some(why) = w.strip_prefix("unsupported: ") {
                        unsupported_value(e, why)
                    } else {
                        value_err(e, w)
                    }
                })?;
                j.extras.buffer_pattern = Some((pattern_hex(&bytes), at));
            }
            _ if e.is(Opt::RateMin) => {
                let pd = per_dir(value()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.extras.rate_min.merge(map_dir(pd, |r| (r, at.clone())));
            }
            _ if e.is(Opt::RateIopsMin) => {
                let pd = per_dir(value()?, |t| fio_number(t, kb)).map_err(|w| value_err(e, w))?;
                j.extras.rate_iops_min.merge(map_dir(pd, |r| (r, at.clone())));
            }
            // fio's exitall is one switch for the whole run (exitall_on_terminate).
            _ if e.is(Opt::ExitAll) => j.extras.exit_all = true,
            _ if e.is(Opt::CreateOnOpen) => {
                let on = match e.value.as_deref() {
                    None => true,
                    Some(v) => super::fio_bool(v).map_err(|w| value_err(e, w))?,
                };
                j.extras.create_on_open = on.then_some(at);
            }
            _ if e.is(Opt::DedupePct) => {
                let n = fio_number(value()?, kb).map_err(|w| value_err(e, w))?;
                if n > 100 {
                    return Err(value_err(e, "must be between 0 and 100"));
                }
                j.extras.dedupe_pct = Some((n, at));
            }
            "dedupe_mode" => {
                j.extras.working_set = match value()?.trim().to_ascii_lowercase().as_str() {
                    "repeat" => false,
                    "working_set" => true,
                    _ => return Err(value_err(e, "expected repeat or working_set (fio's words)")),
                }
            }
            _ if e.is(Opt::DedupeWorkingSet) => {
                let n = fio_number(value()?, kb).map_err(|w| value_err(e, w))?;
                if n > 100 {
                    return Err(value_err(e, "must be between 0 and 100"));
                }
                j.extras.working_set_pct = Some((n, at));
            }
            _ if e.is(Opt::DedupeGlobal) => {
                j.extras.dedupe_global = match e.value.as_deref() {
                    None => true,
                    Some(v) => super::fio_bool(v).map_err(|w| value_err(e, w))?,
                };
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Sets on `job` what these options said; after the pattern, threads and span are set.
    pub(super) fn build_extras(
        &mut self,
        f: &FioJob,
        job: &mut Job,
        header: &Loc,
    ) -> Result<(), FormatError> {
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        let x = &f.extras;
        if let Some((inc, loc)) = &x.offset_increment
            && job.threads > 1
        {
            set(job, Opt::OffsetIncrement, Value::Bytes(*inc), loc)?;
        }
        if let Some((s, loc)) = &x.open_sync
            && job.does_writes()
        {
            set(job, Opt::OpenSync, Value::Text(OpenSync::name(*s).into()), loc)?;
        }
        if let Some((p, loc)) = &x.buffer_pattern
            && job.does_writes()
        {
            set(job, Opt::BufferPattern, Value::Text(p.clone()), loc)?;
        }
        let text = |r: Option<u64>, w: Option<u64>| {
            format!(
                "{},{}",
                r.map(|n| n.to_string()).unwrap_or_default(),
                w.map(|n| n.to_string()).unwrap_or_default()
            )
        };
        let dirs = (job.does_reads(), job.does_writes());
        let only = |pd: &PerDir<(u64, Loc)>| {
            let r = pd.read.as_ref().filter(|_| dirs.0).map(|v| v.0);
            let w = pd.write.as_ref().filter(|_| dirs.1).map(|v| v.0);
            let loc = pd.read.as_ref().or(pd.write.as_ref()).map(|v| v.1.clone());
            (r, w, loc)
        };
        let (r, w, loc) = only(&x.rate_iops_min);
        if r.is_some() || w.is_some() {
            let loc = loc.unwrap_or_else(|| header.clone());
            set(job, Opt::RateIopsMin, Value::Text(text(r, w)), &loc)?;
        }
        let (r, w, loc) = only(&x.rate_min);
        if r.is_some() || w.is_some() {
            let loc = loc.unwrap_or_else(|| header.clone());
            set(job, Opt::RateMin, Value::Text(text(r, w)), &loc)?;
        }
        if x.exit_all {
            set(job, Opt::ExitAll, Value::Bool(true), header)?;
        }
        if let Some((n, loc)) = &x.dedupe_pct
            && job.does_writes()
        {
            set(job, Opt::DedupePct, Value::Count(*n), loc)?;
            if x.working_set {
                // fio's default dedupe_working_set_percentage is 5.
                let (pct, at) = x.working_set_pct.clone().unwrap_or((5, loc.clone()));
                set(job, Opt::DedupeWorkingSet, Value::Count(pct.max(1)), &at)?;
                if x.dedupe_global {
                    set(job, Opt::DedupeGlobal, Value::Bool(true), loc)?;
                }
            }
        }
        if let Some(loc) = &x.create_on_open {
            if job.does_reads() {
                return Err(loc.error(format!(
                    "unsupported: create_on_open=1 with rw={}: the new file is empty and fio 3.33 fails reading it (EIO); kura runs it with write jobs",
                    job.rw.name()
                )));
            }
            set(job, Opt::CreateOnOpen, Value::Bool(true), loc)?;
        }
        Ok(())
    }

    /// The file size the job needs with `offset_increment`: the last clone's
    /// region starts `(numjobs - 1)` increments in.
    pub(super) fn extra_span(f: &FioJob) -> u64 {
        match &f.extras.offset_increment {
            Some((inc, _)) => inc.saturating_mul(f.numjobs.0.saturating_sub(1)),
            None => 0,
        }
    }
}
