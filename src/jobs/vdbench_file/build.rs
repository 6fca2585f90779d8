//! Definitions into `Job`s: one per workload and storage pair a run names,
//! for every pass through its for-loops and points of its curve.

use std::time::Duration;

use super::CURVE_POINTS;
use super::definitions::{ForKind, ForLoop, Iorate, Rd, Sd, Seek, Wd, Xfer};
use super::interpret::Parsed;
use super::lex::wildcard;
use crate::jobs::job::{Distribution, EngineKind, Fill, Job, Rw, SpecError};
use crate::jobs::options::{Opt, Value};
use crate::jobs::reading::{CurvePoint, FormatError, Loc, PlannedJob};

/// The overrides of one pass through a run's for-loops.
#[derive(Debug, Clone, Default)]
pub(super) struct Overrides {
    pub(super) xfersize: Option<u64>,
    pub(super) rdpct: Option<f64>,
    pub(super) threads: Option<u32>,
    pub(super) seekpct: Option<f64>,
    pub(super) iorate: Option<f64>,
    pub(super) label: Vec<String>,
}

pub(super) fn combinations(fors: &[ForLoop]) -> Vec<Overrides> {
    let mut out = vec![Overrides::default()];
    for f in fors {
        let mut next = Vec::with_capacity(out.len() * f.values.len());
        for base in &out {
            for v in &f.values {
                let mut o = base.clone();
                let text = match f.kind {
                    ForKind::Xfersize => {
                        o.xfersize = Some(*v as u64);
                        format!("xfersize={}", crate::jobs::units::format_size(*v as u64))
                    }
                    ForKind::Rdpct => {
                        o.rdpct = Some(*v);
                        format!("rdpct={v}")
                    }
                    ForKind::Threads => {
                        o.threads = Some(*v as u32);
                        format!("threads={v}")
                    }
                    ForKind::Seekpct => {
                        o.seekpct = Some(*v);
                        format!("seekpct={v}")
                    }
                    ForKind::Iorate => {
                        o.iorate = Some(*v);
                        format!("iorate={v}")
                    }
                };
                o.label.push(text);
                next.push(o);
            }
        }
        out = next;
    }
    out
}

/// The span: the sd's size and offset, narrowed by the sd's and the wd's ranges.
pub(super) fn span(job: &mut Job, w: &Wd, sd: &Sd) -> Result<(), FormatError> {
    let mut offset = sd.offset;
    let mut size = sd.size;
    for (range, loc) in [
        (sd.range, &sd.loc),
        (
            w.range.as_ref().map(|r| (r.0, r.1)),
            w.range.as_ref().map_or(&w.loc, |r| &r.2),
        ),
    ] {
        let Some((lo, hi)) = range else { continue };
        let Some(s) = size else {
            return Err(loc.error(format!(
                "unsupported: range= on sd={} without size= (kura sizes the span before it opens the lun)",
                sd.name
            )));
        };
        let align = 512u64.max(sd.align.unwrap_or(512));
        let start = ((s as f64 * lo / 100.0) as u64) / align * align;
        let end = ((s as f64 * hi / 100.0) as u64) / align * align;
        offset += start;
        size = Some(end - start);
    }
    if let Some(s) = size {
        // vdbench's size is the lun's; kura's size is the span after the offset.
        let span = if sd.range.is_none() && w.range.is_none() {
            s.saturating_sub(sd.offset)
        } else {
            s
        };
        job.apply(Opt::Size, Value::Bytes(span)).map_err(at(&sd.loc))?;
    }
    job.apply(Opt::Offset, Value::Bytes(offset))
        .map_err(at(&sd.loc))?;
    Ok(())
}

/// Read and write hits go to the first `hitarea` bytes: kura's hot spot.
pub(super) fn hot_spot(job: &mut Job, w: &Wd, sd: &Sd) -> Result<(), FormatError> {
    let hits = match (job.does_reads(), job.does_writes(), &w.rhpct, &w.whpct) {
        (_, _, None, None) => None,
        (true, false, Some(r), _) => Some(r.clone()),
        (false, true, _, Some(wh)) => Some(wh.clone()),
        (true, true, Some(r), Some(wh)) if (r.0 - wh.0).abs() < 1e-9 => Some(r.clone()),
        (_, _, r, wh) => {
            let loc = r.as_ref().or(wh.as_ref()).map_or(&w.loc, |x| &x.1);
            return Err(loc.error(format!(
                "unsupported: wd={}: different read and write hit percentages (kura's hot spot serves both)",
                w.name
            )));
        }
    };
    if let Some((pct, loc)) = hits
        && pct > 0.0
    {
        let Some(span) = job.size_bytes else {
            return Err(loc.error(format!(
                "unsupported: rhpct/whpct on sd={} without size= (the hit area's share of the lun must be known)",
                sd.name
            )));
        };
        let space = sd.hitarea as f64 / span as f64 * 100.0;
        if space <= 0.0 || space >= 100.0 {
            return Err(loc.error(format!(
                "wd={}: the hit area must be smaller than the span",
                w.name
            )));
        }
        let hotspot = Distribution::Hotspot {
            io_pct: pct,
            space_pct: space,
        };
        job.apply(Opt::Distribution, Value::Distribution(hotspot))
            .map_err(at(&loc))?;
        if !job.rw.is_random() {
            let random = if job.does_reads() && job.does_writes() {
                Rw::RandRw
            } else if job.does_reads() {
                Rw::RandRead
            } else {
                Rw::RandWrite
            };
            job.apply(Opt::Rw, Value::Rw(random)).map_err(at(&loc))?;
        }
    }
    Ok(())
}

pub(super) struct Builder<'a> {
    pub(super) parsed: &'a Parsed,
    pub(super) jobs: Vec<PlannedJob>,
    pub(super) warnings: Vec<String>,
    pub(super) group: u32,
}

impl Builder<'_> {
    fn note(&mut self, text: String) {
        if !self.warnings.contains(&text) {
            self.warnings.push(text);
        }
    }

    /// The jobs of one run: one per (wd, sd) pair, with the total rate split by skew.
    fn run_jobs(&mut self, rd: &Rd, o: &Overrides, rate: Option<f64>) -> Result<Vec<Job>, FormatError> {
        let p = self.parsed;
        let wds: Vec<&Wd> = p
            .wds
            .iter()
            .filter(|w| rd.wds.iter().any(|(pat, _)| wildcard(pat, &w.name)))
            .collect();
        let explicit: f64 = wds.iter().filter_map(|w| w.skew).sum();
        let unskewed = wds.iter().filter(|w| w.skew.is_none()).count();
        if explicit > 100.0 + 1e-9 || (unskewed == 0 && (explicit - 100.0).abs() > 1e-6) {
            return Err(rd.loc.error(format!(
                "rd={}: the skews of its workloads add up to {explicit}, not 100",
                rd.name
            )));
        }
        if rate.is_none() && explicit > 0.0 && wds.len() > 1 {
            return Err(rd.loc.error(format!(
                "unsupported: rd={}: skew= with iorate=max (kura cannot hold a mix of uncapped workloads to shares)",
                rd.name
            )));
        }
        // SDs shared by several workloads share their threads, as vdbench's do.
        let mut users: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        for w in &wds {
            for sd in p
                .sds
                .iter()
                .filter(|s| w.sds.iter().any(|(pat, _)| wildcard(pat, &s.name)))
            {
                *users.entry(sd.name.as_str()).or_default() += 1;
            }
        }
        let mut jobs = Vec::new();
        for w in &wds {
            let share = w.skew.unwrap_or((100.0 - explicit) / unskewed.max(1) as f64) / 100.0;
            let sds: Vec<&Sd> = p
                .sds
                .iter()
                .filter(|s| w.sds.iter().any(|(pat, _)| wildcard(pat, &s.name)))
                .collect();
            for sd in &sds {
                let mut job = self.job(rd, w, sd, o, users.get(sd.name.as_str()).copied().unwrap_or(1))?;
                if let Some(r) = rate {
                    let iops = ((r * share / sds.len() as f64).round() as u64).max(1);
                    job.apply(Opt::RateIops, Value::Count(iops))
                        .map_err(at(&rd.loc))?;
                }
                jobs.push(job);
            }
        }
        if let Some(m) = rd.maxdata {
            let n = jobs.len() as f64;
            if n > 1.0 {
                self.note(format!(
                    "{}: maxdata is split evenly over the run's {n} workload and storage pairs",
                    rd.loc.short()
                ));
            }
            // vdbench's maxdata below 100 counts passes over the span; above, bytes.
            let (opt, value) = if m < 100.0 {
                (Opt::Passes, Value::Count(m.ceil().max(1.0) as u64))
            } else {
                (Opt::IoSize, Value::Bytes(((m / n) as u64).max(1)))
            };
            for job in &mut jobs {
                job.apply(opt, value.clone()).map_err(at(&rd.loc))?;
            }
        }
        Ok(jobs)
    }

    fn job(&mut self, rd: &Rd, w: &Wd, sd: &Sd, o: &Overrides, users: u32) -> Result<Job, FormatError> {
        let lun = sd.lun.clone().unwrap_or_default();
        let flags = rd.flags.as_ref().or(w.flags.as_ref()).unwrap_or(&sd.flags);
        if lun.starts_with("/dev/") && !flags.direct {
            return Err(sd.loc.error(format!(
                "sd={}: vdbench requires openflags=o_direct for a lun under /dev on Linux",
                sd.name
            )));
        }
        let xfer = match o.xfersize {
            Some(b) => Xfer::One(b),
            None => w.xfer.clone(),
        };
        let xfer_loc = w.xfer_loc.clone().unwrap_or_else(|| w.loc.clone());
        if let Some(size) = sd.size
            && xfer.largest() > size
        {
            return Err(xfer_loc.error(format!(
                "wd={}: xfersize {} is larger than sd={} ({} bytes)",
                w.name,
                xfer.largest(),
                sd.name,
                size
            )));
        }
        let rdpct = o.rdpct.unwrap_or(w.rdpct);
        let seek = o.seekpct.map(Seek::Pct).unwrap_or(w.seek);
        let random = matches!(seek, Seek::Pct(p) if p > 0.0);
        let rw = match (random, rdpct) {
            (true, r) if r >= 100.0 => Rw::RandRead,
            (true, r) if r <= 0.0 => Rw::RandWrite,
            (true, _) => Rw::RandRw,
            (false, r) if r >= 100.0 => Rw::Read,
            (false, r) if r <= 0.0 => Rw::Write,
            (false, _) => Rw::Rw,
        };
        let threads = o.threads.unwrap_or(sd.threads);
        let threads = if users > 1 {
            self.note(format!(
                "{}: sd={} serves {users} workloads; its {threads} threads are split between them",
                sd.loc.short(),
                sd.name
            ));
            (threads / users).max(1)
        } else {
            threads
        };
        let random_pct = match seek {
            Seek::Pct(p) if p > 0.0 => p.round().clamp(1.0, 100.0) as u8,
            _ => 100,
        };
        let mut job = Job::default();
        for (opt, value, loc) in [
            (Opt::Name, Value::Text(format!("{}.{}", w.name, sd.name)), &w.loc),
            (Opt::Target, Value::Path(lun.into()), &sd.loc),
            (Opt::Rw, Value::Rw(rw), &w.loc),
            (Opt::Bs, Value::BlockSizes(xfer.split()), &xfer_loc),
            (Opt::ReadPct, Value::Count(rdpct.round() as u64), &w.loc),
            (Opt::Qd, Value::Count(1), &w.loc),
            (Opt::Threads, Value::Count(threads.into()), &sd.loc),
            // vdbench's threads each do one synchronous I/O at a time.
            (Opt::Engine, Value::Engine(EngineKind::Sync), &sd.loc),
            (Opt::Direct, Value::Bool(flags.direct), &sd.loc),
            (
                Opt::Ramp,
                Value::Duration(Duration::from_secs(rd.warmup)),
                &rd.time_loc,
            ),
            (
                Opt::Runtime,
                Value::Duration(Duration::from_secs(rd.elapsed - rd.warmup)),
                &rd.time_loc,
            ),
            (
                Opt::Interval,
                Value::Duration(Duration::from_secs(rd.interval)),
                &rd.loc,
            ),
            (Opt::RandomPct, Value::Count(random_pct.into()), &w.loc),
        ] {
            job.apply(opt, value).map_err(at(loc))?;
        }
        if let Some(a) = sd.align {
            job.apply(Opt::Align, Value::Bytes(a)).map_err(at(&sd.loc))?;
        }
        if seek == Seek::Eof {
            job.apply(Opt::Passes, Value::Count(1)).map_err(at(&w.loc))?;
        }
        if flags.sync {
            job.apply(Opt::FsyncEvery, Value::Count(1)).map_err(at(&sd.loc))?;
            self.note(format!(
                "{}: o_dsync/o_sync: kura writes, then fdatasync after each write (the sync time is not in the write's latency)",
                sd.loc.short()
            ));
        }
        job.apply(Opt::EndFsync, Value::Bool(flags.fsync_at_close))
            .map_err(at(&sd.loc))?;
        if let Some(r) = self.parsed.compratio
            && r > 1.0
        {
            let pct = ((1.0 - 1.0 / r) * 100.0).round().clamp(0.0, 100.0) as u8;
            job.apply(Opt::Fill, Value::Fill(Fill::Compressible { pct }))
                .map_err(at(&sd.loc))?;
        }
        span(&mut job, w, sd)?;
        hot_spot(&mut job, w, sd)?;
        job.validate()
            .map_err(|e| w.loc.error(format!("wd={} on sd={}: {e}", w.name, sd.name)))?;
        Ok(job)
    }

    /// `iorate=curve,stopcurve=MS`: vdbench runs the `curve=` points (10, 50,
    /// 70, 80, 90, 100 % of the max run by default) and stops after the first
    /// whose mean response time is over MS milliseconds (Vdbench 5.04 users
    /// guide, `stopcurve=`). kura maps that onto its latency search on rate:
    /// the same max run as a probe, then rising rates refined near the limit.
    fn stopcurve_jobs(
        &mut self,
        rd: &Rd,
        o: &Overrides,
        ms: f64,
        loc: &Loc,
    ) -> Result<Vec<Job>, FormatError> {
        let mut jobs = self.run_jobs(rd, o, None)?;
        if jobs.len() != 1 {
            return Err(loc.error(format!(
                "unsupported: rd={}: stopcurve= with {} workloads at once: kura's latency search raises the rate of one job",
                rd.name,
                jobs.len()
            )));
        }
        let limit = std::time::Duration::from_secs_f64(ms / 1000.0);
        for job in &mut jobs {
            job.group = None;
            job.apply(
                crate::jobs::Opt::LatencyLimit,
                crate::jobs::Value::Duration(limit),
            )
            .map_err(|e| loc.error(e.to_string()))?;
        }
        self.note(format!(
            "{}: iorate=curve,stopcurve={ms}: kura searches the rate (a probe at max, rising rates, then bisection near {ms} ms mean latency) instead of running {}; every step is stored",
            loc.short(),
            if rd.curve.is_some() { "the curve= points" } else { "vdbench's points 10,50,70,80,90,100 %" }
        ));
        Ok(jobs)
    }

    fn push_run(&mut self, test: String, jobs: Vec<Job>) -> Vec<usize> {
        let together = jobs.len() > 1;
        let mut indices = Vec::new();
        for mut job in jobs {
            job.group = together.then_some(self.group);
            indices.push(self.jobs.len());
            self.jobs.push(PlannedJob {
                test: Some(test.clone()),
                job,
                curve: None,
            });
        }
        self.group += 1;
        indices
    }

    pub(super) fn build(&mut self) -> Result<(), FormatError> {
        let rds = self.parsed.rds.clone();
        for rd in rds.iter().filter(|r| !r.wds.is_empty()) {
            let combos = combinations(&rd.fors);
            for o in &combos {
                let label = if o.label.is_empty() {
                    rd.name.clone()
                } else {
                    format!("{} ({})", rd.name, o.label.join(" "))
                };
                let pause = Duration::from_secs(rd.pause);
                let rate = o.iorate.or(match &rd.iorate {
                    Iorate::Rates(r) => r.first().copied(),
                    _ => None,
                });
                if rd.iorate == Iorate::Curve
                    && o.iorate.is_none()
                    && let Some((ms, loc)) = &rd.stopcurve
                {
                    let jobs = self.stopcurve_jobs(rd, o, *ms, loc)?;
                    self.push_run(label.clone(), jobs);
                } else if let Some((_, loc)) = rd.stopcurve.as_ref().filter(|_| rd.iorate != Iorate::Curve) {
                    let note = format!(
                        "{}: stopcurve= applies to iorate=curve only; ignored, as vdbench does",
                        loc.short()
                    );
                    self.note(note);
                    let jobs = self.run_jobs(rd, o, rate)?;
                    self.push_run(label, jobs);
                } else if rd.iorate == Iorate::Curve && o.iorate.is_none() {
                    let max_jobs = self.run_jobs(rd, o, None)?;
                    let max = self.push_run(format!("{label} max"), max_jobs.clone());
                    let points = rd.curve.clone().unwrap_or_else(|| CURVE_POINTS.to_vec());
                    for pct in points {
                        let indices = self.push_run(format!("{label} {pct}%"), max_jobs.clone());
                        for (k, i) in indices.into_iter().enumerate() {
                            self.jobs[i].curve = Some(CurvePoint {
                                max_jobs: max.clone(),
                                repeats: max[k],
                                pct,
                            });
                        }
                    }
                } else {
                    let jobs = self.run_jobs(rd, o, rate)?;
                    self.push_run(label, jobs);
                }
                if !pause.is_zero() {
                    let first = self.jobs.len();
                    let _ = first;
                    self.note(format!(
                        "{}: pause={}: kura goes on to the next run without pausing",
                        rd.loc.short(),
                        rd.pause
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Turns a job's refusal of a value into an error at the line that gave it.
pub(super) fn at(loc: &Loc) -> impl Fn(SpecError) -> FormatError + '_ {
    move |e| loc.error(e.to_string())
}
