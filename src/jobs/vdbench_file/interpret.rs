//! Reading entries into definitions: defaults, sd, wd, rd and general
//! parameters, checked, with references resolved once every entry is read.

use super::definitions::{
    ForKind, ForLoop, Iorate, OpenFlags, Rd, Sd, Seek, Wd, Xfer, for_values, open_flags, seekpct, xfersize,
};
use super::file_system::fs_params;
use super::keywords::{GENERAL_KEYS, RD_KEYS, SD_KEYS, WD_KEYS};
use super::lex::{Entry, Kind, Param, which, wildcard};
use crate::jobs::reading::{FormatError, Loc, clip};

pub(super) struct Parsed {
    pub(super) sds: Vec<Sd>,
    pub(super) wds: Vec<Wd>,
    pub(super) rds: Vec<Rd>,
    pub(super) compratio: Option<f64>,
    pub(super) file_system: bool,
    pub(super) warnings: Vec<String>,
    // File sets.
    pub(super) fs: crate::jobs::vdbench_fs::FsDefs,
}

pub(super) fn unknown(p: &Param, kind: &str) -> FormatError {
    p.loc.error(format!("unknown {kind} keyword '{}'", clip(&p.key)))
}

pub(super) fn unsupported(p: &Param, why: &str) -> FormatError {
    p.loc.error(format!("unsupported: {}= ({why})", p.key))
}

pub(super) fn names(p: &Param) -> Result<Vec<(String, Loc)>, FormatError> {
    Ok(p.items()?.into_iter().map(|n| (n, p.value_loc.clone())).collect())
}

/// The state of reading a parameter file: what was read, and the defaults
/// (`sd=default` ...) later entries start from.
pub(super) struct Interpreter {
    pub(super) out: Parsed,
    pub(super) sd_default: Sd,
    pub(super) wd_default: Wd,
    pub(super) rd_default: Rd,
    pub(super) fsd_names: Vec<String>,
    pub(super) fwds: Vec<(String, Vec<(String, Loc)>)>,
    // File sets.
    pub(super) fs: crate::jobs::vdbench_fs::FsDefs,
}

impl Interpreter {
    /// General parameters: compression ratio, reports, data errors.
    fn general(&mut self, e: &Entry) -> Result<(), FormatError> {
        for p in &e.params {
            match which(&p.key, GENERAL_KEYS) {
                Some("compratio") => {
                    let r = p.number()?;
                    if r < 1.0 {
                        return Err(p.err("a compression ratio is at least 1"));
                    }
                    self.out.compratio = Some(r);
                }
                Some("messagescan") | Some("histogram") | Some("report") | Some("debug") => {}
                Some("data_errors") => self.out.warnings.push(format!(
                    "{}: data_errors: kura counts I/O errors and goes on",
                    p.loc.short()
                )),
                Some(_) => return Err(unsupported(p, "no kura equivalent")),
                None => return Err(unknown(p, "general")),
            }
        }
        Ok(())
    }

    /// Host definitions: this host only.
    fn hd(&mut self, e: &Entry) -> Result<(), FormatError> {
        for p in &e.params {
            if p.key == "system" && !matches!(p.value.as_str(), "localhost" | "127.0.0.1") {
                return Err(unsupported(p, "several hosts; kura runs on this host"));
            }
        }
        Ok(())
    }

    /// A storage definition: the lun, its size, threads and open flags.
    fn sd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut sd = self.sd_default.clone();
        sd.name = e.name.clone();
        sd.loc = e.loc.clone();
        for p in &e.params {
            match which(&p.key, SD_KEYS) {
                Some("lun") => {
                    if is_default {
                        return Err(p.loc.error("lun= is not allowed for sd=default"));
                    }
                    sd.lun = Some(p.single()?);
                }
                Some("size") => {
                    let n = p.numbers()?;
                    if n.len() != 1 || n[0] < 1.0 {
                        return Err(p.err("expected one size, e.g. size=10g"));
                    }
                    sd.size = Some(n[0] as u64);
                }
                Some("threads") => sd.threads = p.whole(1.0, 1024.0)? as u32,
                Some("hitarea") => sd.hitarea = p.whole(0.0, 1e18)?,
                Some("offset") => {
                    let o = p.whole(0.0, 1e18)?;
                    if o % 512 != 0 {
                        return Err(p.err("must be a multiple of 512 bytes"));
                    }
                    sd.offset = o;
                }
                Some("align") => {
                    let a = p.whole(512.0, 1e12)?;
                    if a % 512 != 0 {
                        return Err(p.err("must be a multiple of 512 bytes"));
                    }
                    sd.align = Some(a);
                }
                Some("openflags") => sd.flags = open_flags(p)?,
                Some("range") => {
                    let n = p.numbers()?;
                    if n.len() != 2 || n[0] < 0.0 || n[1] <= n[0] || n[1] > 100.0 {
                        return Err(p.err("expected range=(low%,high%) within 0..100"));
                    }
                    sd.range = Some((n[0], n[1]));
                }
                Some("host") => {
                    if p.items()?
                        .iter()
                        .any(|h| !matches!(h.as_str(), "localhost" | "*" | "default"))
                    {
                        return Err(unsupported(p, "several hosts; kura runs on this host"));
                    }
                }
                Some("kstat") | Some("instance") => {}
                Some(k) => {
                    return Err(unsupported(p, &format!("vdbench's {k} has no kura equivalent")));
                }
                None => return Err(unknown(p, "sd")),
            }
        }
        if is_default {
            self.sd_default = sd;
        } else {
            if sd.lun.is_none() {
                return Err(e.loc.error(format!("sd={}: no lun= given", sd.name)));
            }
            self.out.sds.push(sd);
        }
        Ok(())
    }

    /// A workload definition: its sds, transfer sizes, mix, seeks and hits.
    fn wd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut wd = self.wd_default.clone();
        wd.name = e.name.clone();
        wd.loc = e.loc.clone();
        for p in &e.params {
            if p.key == "sd" {
                wd.sds = names(p)?;
                continue;
            }
            match which(&p.key, WD_KEYS) {
                Some("skew") => wd.skew = Some(p.pct()?),
                Some("xfersize") => {
                    wd.xfer = xfersize(p)?;
                    wd.xfer_loc = Some(p.value_loc.clone());
                }
                Some("readpct") | Some("rdpct") => wd.rdpct = p.pct()?,
                Some("writepct") | Some("wrpct") => wd.rdpct = 100.0 - p.pct()?,
                Some("range") => {
                    let n = p.numbers()?;
                    if n.len() != 2 || n[0] < 0.0 || n[1] <= n[0] || n[1] > 100.0 {
                        return Err(p.err("expected range=(low%,high%) within 0..100"));
                    }
                    wd.range = Some((n[0], n[1], p.value_loc.clone()));
                }
                Some("seekpct") => wd.seek = seekpct(p)?,
                Some("rhpct") => wd.rhpct = Some((p.pct()?, p.value_loc.clone())),
                Some("whpct") => wd.whpct = Some((p.pct()?, p.value_loc.clone())),
                Some("openflags") => wd.flags = Some(open_flags(p)?),
                Some("host") => {
                    if p.items()?
                        .iter()
                        .any(|h| !matches!(h.as_str(), "localhost" | "*" | "default"))
                    {
                        return Err(unsupported(p, "several hosts; kura runs on this host"));
                    }
                }
                Some("hotband") => {
                    return Err(unsupported(
                        p,
                        "vdbench's hot-band skew has no kura equivalent; range=(low,high) limits the span",
                    ));
                }
                Some(k) => {
                    return Err(unsupported(
                        p,
                        &format!("vdbench's wd {k} has no kura equivalent"),
                    ));
                }
                None => return Err(unknown(p, "wd")),
            }
        }
        if is_default {
            self.wd_default = wd;
        } else {
            if wd.sds.is_empty() {
                return Err(e.loc.error(format!("wd={}: no sd= given", wd.name)));
            }
            self.out.wds.push(wd);
        }
        Ok(())
    }
}

impl Interpreter {
    /// A run definition: its workloads, rate, times and for-loops.
    fn rd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        let mut rd = self.rd_default.clone();
        rd.name = e.name.clone();
        rd.loc = e.loc.clone();
        rd.time_loc = e.loc.clone();
        let mut pending_rates = None;
        for p in &e.params {
            if p.key == "wd" {
                rd.wds = names(p)?;
                continue;
            }
            if p.key == "fwd" {
                rd.fwds = names(p)?;
                continue;
            }
            if p.key == "sd" || p.key == "fsd" {
                return Err(unsupported(p, "rd-level sd=/fsd= selection"));
            }
            let key = if p.key.starts_with("maxdata") {
                "maxdata"
            } else {
                p.key.as_str()
            };
            self.rd_param(&mut rd, p, key, &mut pending_rates)?;
        }
        if let Some(rates) = pending_rates {
            rd.fors.retain(|f| f.kind != ForKind::Iorate);
            rd.fors.push(ForLoop {
                kind: ForKind::Iorate,
                values: rates,
            });
        }
        check_times(&rd)?;
        if !is_default && !rd.fwds.is_empty() {
            let patterns = rd.fwds.iter().map(|(p, _)| p.clone()).collect();
            self.fs
                .rd(&rd.name, patterns, fs_params(e, RD_KEYS), rd.loc.clone());
        }
        if is_default {
            self.rd_default = rd;
        } else {
            self.out.rds.push(rd);
        }
        Ok(())
    }

    /// One of an rd's parameters onto `rd`; a list of rates waits in
    /// `pending_rates` to become the iorate loop.
    fn rd_param(
        &mut self,
        rd: &mut Rd,
        p: &Param,
        key: &str,
        pending_rates: &mut Option<Vec<f64>>,
    ) -> Result<(), FormatError> {
        match which(key, RD_KEYS) {
            Some("iorate") => {
                let items = p.items()?;
                rd.iorate = match items.as_slice() {
                    [one] if one.eq_ignore_ascii_case("max") => Iorate::Max,
                    [one] if one.eq_ignore_ascii_case("curve") => Iorate::Curve,
                    _ => {
                        let rates = p.numbers()?;
                        if rates.iter().any(|r| *r <= 0.0) {
                            return Err(p.err("a rate must be more than 0"));
                        }
                        if rates.len() > 1 {
                            *pending_rates = Some(rates.clone());
                        }
                        Iorate::Rates(rates)
                    }
                };
            }
            Some("curve") => {
                let points = p.numbers()?;
                if points.iter().any(|x| *x <= 0.0 || *x > 100.0) {
                    return Err(p.err("curve points are percentages above 0, at most 100"));
                }
                rd.curve = Some(points);
            }
            Some("elapsed") => {
                rd.elapsed = p.whole(1.0, 366.0 * 86400.0)?;
                rd.time_loc = p.loc.clone();
            }
            Some("interval") => rd.interval = p.whole(1.0, 86400.0)?,
            Some("warmup") => rd.warmup = p.whole(0.0, 366.0 * 86400.0)?,
            Some("pause") => rd.pause = p.whole(0.0, 86400.0)?,
            Some("maxdata") => {
                if p.key != "maxdata" {
                    return Err(unsupported(p, "separate read and write limits"));
                }
                let m = p.number()?;
                if m <= 0.0 {
                    return Err(p.err("must be more than 0"));
                }
                rd.maxdata = Some(m);
            }
            Some("forxfersize") | Some("forthreads") | Some("forrdpct") | Some("forseekpct")
            | Some("foriorate") => {
                let f = for_loop(key, p)?;
                rd.fors.retain(|old| old.kind != f.kind);
                rd.fors.push(f);
            }
            Some("distribution") => {
                let v = p.single()?.to_ascii_lowercase();
                if !["exponential", "uniform", "deterministic"]
                    .iter()
                    .any(|k| k.starts_with(&v))
                {
                    return Err(p.err("expected exponential, uniform or deterministic"));
                }
                if !"deterministic".starts_with(&v) {
                    self.out.warnings.push(format!(
                        "{}: distribution={v}: kura spaces rate-limited I/Os evenly (vdbench's deterministic)",
                        p.loc.short()
                    ));
                }
            }
            Some("openflags") => rd.flags = Some(open_flags(p)?),
            Some("stopcurve") => {
                let ms = p.number()?;
                if ms <= 0.0 {
                    return Err(p.err("a response time in milliseconds, more than 0"));
                }
                rd.stopcurve = Some((ms, p.loc.clone()));
            }
            Some("fwdrate") => rd.fwdrate = true,
            Some("format") | Some("operations") | Some("foroperation") | Some("fordepth")
            | Some("forwidth") | Some("forfiles") | Some("forsizes") | Some("fortotal") | Some("forwss") => {
                if rd.fwds.is_empty() && !self.out.file_system {
                    return Err(unsupported(p, "only for file-system workloads"));
                }
            }
            Some(k) => {
                return Err(unsupported(
                    p,
                    &format!("vdbench's rd {k} has no kura equivalent"),
                ));
            }
            None => return Err(unknown(p, "rd")),
        }
        Ok(())
    }

    /// References resolve after every entry is read.
    fn resolve(self, entries: &[Entry]) -> Result<Parsed, FormatError> {
        let Interpreter {
            mut out,
            fsd_names,
            fwds,
            fs,
            ..
        } = self;
        out.fs = fs;
        for wd in &out.wds {
            for (pattern, loc) in &wd.sds {
                if !out.sds.iter().any(|s| wildcard(pattern, &s.name)) {
                    return Err(loc.error(format!("wd={}: sd={pattern} matches no sd", wd.name)));
                }
            }
        }
        for (name, refs) in &fwds {
            for (pattern, loc) in refs {
                if !fsd_names.iter().any(|f| wildcard(pattern, f)) {
                    return Err(loc.error(format!("fwd={name}: fsd={pattern} matches no fsd")));
                }
            }
        }
        for rd in &out.rds {
            for (pattern, loc) in &rd.wds {
                if !out.wds.iter().any(|w| wildcard(pattern, &w.name)) {
                    return Err(loc.error(format!("rd={}: wd={pattern} matches no wd", rd.name)));
                }
            }
            for (pattern, loc) in &rd.fwds {
                if !fwds.iter().any(|f| wildcard(pattern, &f.0)) {
                    return Err(loc.error(format!("rd={}: fwd={pattern} matches no fwd", rd.name)));
                }
            }
            if !rd.wds.is_empty() && !rd.fwds.is_empty() {
                return Err(rd
                    .loc
                    .error(format!("rd={}: wd= and fwd= cannot be mixed", rd.name)));
            }
            if rd.wds.is_empty() && rd.fwds.is_empty() {
                return Err(rd.loc.error(format!("rd={}: no wd= (or fwd=) given", rd.name)));
            }
            if !rd.wds.is_empty() && rd.iorate == Iorate::Missing {
                return Err(rd
                    .loc
                    .error(format!("rd={}: no iorate= given (max, curve or a rate)", rd.name)));
            }
            if !rd.fwds.is_empty() && !rd.fwdrate {
                return Err(rd.loc.error(format!("rd={}: no fwdrate= given", rd.name)));
            }
        }
        if out.rds.is_empty() {
            return Err(FormatError {
                file: entries.first().map_or_else(String::new, |e| e.loc.file.clone()),
                line: 0,
                column: None,
                message: "no rd= (run definition): nothing to run".into(),
            });
        }
        Ok(out)
    }
}

pub(super) fn interpret(entries: &[Entry]) -> Result<Parsed, FormatError> {
    let out = Parsed {
        sds: Vec::new(),
        wds: Vec::new(),
        rds: Vec::new(),
        compratio: None,
        file_system: false,
        warnings: Vec::new(),
        fs: Default::default(),
    };
    let placeholder = Loc {
        file: String::new(),
        line: 0,
        column: 0,
    };
    let sd_default = Sd {
        name: "default".into(),
        loc: placeholder.clone(),
        lun: None,
        size: None,
        threads: 8,
        hitarea: 1 << 20,
        offset: 0,
        align: None,
        range: None,
        flags: OpenFlags::default(),
    };
    let wd_default = Wd {
        name: "default".into(),
        loc: placeholder.clone(),
        sds: Vec::new(),
        skew: None,
        xfer: Xfer::One(4096),
        xfer_loc: None,
        rdpct: 100.0,
        seek: Seek::Pct(100.0),
        range: None,
        rhpct: None,
        whpct: None,
        flags: None,
    };
    let rd_default = Rd {
        name: "default".into(),
        loc: placeholder.clone(),
        wds: Vec::new(),
        iorate: Iorate::Missing,
        curve: None,
        elapsed: 30,
        interval: 1,
        warmup: 0,
        pause: 0,
        maxdata: None,
        fors: Vec::new(),
        flags: None,
        fwds: Vec::new(),
        fwdrate: false,
        time_loc: placeholder,
        stopcurve: None,
    };
    let mut it = Interpreter {
        out,
        sd_default,
        wd_default,
        rd_default,
        fsd_names: Vec::new(),
        fwds: Vec::new(),
        fs: Default::default(),
    };
    let mut seen = std::collections::HashSet::new();
    for e in entries {
        let is_default = e.name == "default";
        if !is_default && e.kind != Kind::General && !seen.insert((e.kind as u8, e.name.clone())) {
            return Err(e.loc.error(format!("duplicate name '{}'", e.name)));
        }
        match e.kind {
            Kind::General => it.general(e)?,
            Kind::Hd => it.hd(e)?,
            Kind::Rg => return Err(e.loc.error("unsupported: rg= (replay groups)")),
            Kind::Sd => it.sd(e, is_default)?,
            Kind::Wd => it.wd(e, is_default)?,
            Kind::Fsd => it.fsd(e, is_default)?,
            Kind::Fwd => it.fwd(e, is_default)?,
            Kind::Rd => it.rd(e, is_default)?,
        }
    }
    it.resolve(entries)
}

/// One of a run's for-loops (`forxfersize=(4k,8k)` ...), its values checked.
pub(super) fn for_loop(key: &str, p: &Param) -> Result<ForLoop, FormatError> {
    let kind = match which(key, RD_KEYS) {
        Some("forxfersize") => ForKind::Xfersize,
        Some("forthreads") => ForKind::Threads,
        Some("forrdpct") => ForKind::Rdpct,
        Some("forseekpct") => ForKind::Seekpct,
        _ => ForKind::Iorate,
    };
    let values = for_values(p)?;
    let ok = match kind {
        ForKind::Rdpct | ForKind::Seekpct => values.iter().all(|v| (0.0..=100.0).contains(v)),
        ForKind::Threads => values
            .iter()
            .all(|v| v.fract() == 0.0 && (1.0..=1024.0).contains(v)),
        ForKind::Xfersize => values.iter().all(|v| v.fract() == 0.0 && *v >= 1.0),
        ForKind::Iorate => values.iter().all(|v| *v > 0.0),
    };
    if !ok {
        return Err(p.err("a value is out of range"));
    }
    Ok(ForLoop { kind, values })
}

/// vdbench's rules between a run's elapsed, interval and warmup.
pub(super) fn check_times(rd: &Rd) -> Result<(), FormatError> {
    if rd.elapsed / rd.interval < 2 {
        return Err(rd.time_loc.error(format!(
            "rd={}: elapsed={} must be at least twice interval={} (vdbench's rule)",
            rd.name, rd.elapsed, rd.interval
        )));
    }
    if !rd.elapsed.is_multiple_of(rd.interval) || !rd.warmup.is_multiple_of(rd.interval) {
        return Err(rd.time_loc.error(format!(
            "rd={}: elapsed and warmup must be multiples of interval={} (vdbench's rule)",
            rd.name, rd.interval
        )));
    }
    if rd.warmup >= rd.elapsed {
        return Err(rd
            .time_loc
            .error(format!("rd={}: warmup must be shorter than elapsed", rd.name)));
    }
    Ok(())
}
