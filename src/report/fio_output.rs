//! A stored run as fio 3.33 writes `--output-format=json` (and `json+`), so
//! fio-plot and scripts written against fio's JSON read a kura run. The
//! shape follows fio's stat.c (`show_thread_status_json`,
//! `add_ddir_status_json`, `add_ddir_lat_json`); what kura measures maps as
//! fio does it. kura's latency runs from the clock read before the submitting
//! call to the one after the reaping call. With kura's sync engine that is the
//! system call's time, which is fio's `clat` for psync (ioengines.c,
//! `td_io_queue`, sets `issue_time` just before a FIO_SYNCIO engine's call;
//! such engines record no `slat`): there the document has fio's default
//! shape, percentiles and json+ `bins` under `clat_ns`, `lat_ns` with the same
//! numbers and no percentiles, `slat_ns` with `N` 0. With io_uring (and null)
//! it is fio's `lat`, which includes the submission that fio's `clat` leaves
//! out: there it is written as fio does with `lat_percentiles=1
//! clat_percentiles=0`, percentiles and bins under `lat_ns`, `clat_ns` and
//! `slat_ns` with `N` 0 (kura does not measure them apart). Percentiles
//! and bins are computed from kura's HDR histogram bucketed as fio buckets
//! (`plat_val_to_idx`, `plat_idx_to_val`: 64 buckets per power of two).
//! Differences are listed in docs/json.md ("fio's JSON").

use serde_json::{Map, Value, json};

use crate::jobs::units::format_size;
use crate::jobs::{EngineKind, Job, Opt};
use crate::metrics::fio_bins::{coarse_row, plat_idx_to_val, sparse_bins};
use crate::metrics::histogram::decode;
use crate::metrics::{DirectionResult, IntervalPoint, JobResult, OpKind, RunResult};

/// fio's default `percentile_list` (options.c, fio 3.33).
const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

/// A direction's latencies in fio's bins (index -> count), from the HDR
/// histogram; `None` when the result has none (imported runs).
fn fio_buckets(d: &DirectionResult) -> Option<Vec<u64>> {
    let h = decode(&d.histogram).filter(|h| !h.is_empty())?;
    Some(coarse_row(&sparse_bins(&h), 0))
}

/// stat.c `calc_clat_percentiles`: the first bucket whose running sum reaches p% of all.
fn fio_percentiles(plat: &[u64]) -> Map<String, Value> {
    let total: u64 = plat.iter().sum();
    let mut out = Map::new();
    let mut sum = 0u64;
    let mut j = 0;
    for (i, n) in plat.iter().enumerate() {
        sum += n;
        while j < FIO_PERCENTILES.len() && sum as f64 >= FIO_PERCENTILES[j] / 100.0 * total as f64 {
            out.insert(format!("{:.6}", FIO_PERCENTILES[j]), plat_idx_to_val(i).into());
            j += 1;
        }
        if j == FIO_PERCENTILES.len() {
            break;
        }
    }
    out
}

/// The fio JSON document of a run; `plus` adds json+'s `bins`.
pub fn fio_json(run: &RunResult, plus: bool) -> Value {
    let jobs: Vec<Value> = run
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| job_json(j, i, plus))
        .collect();
    json!({
        "fio version": format!("kura-{}", run.kura_version),
        "timestamp": run.started_unix_s,
        "timestamp_ms": run.started_unix_s * 1000,
        "time": ctime(run.started_unix_s),
        "jobs": jobs,
    })
}

/// fio's "time" (ctime(3) without the newline), in UTC.
fn ctime(unix_s: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let utc = super::format::utc(unix_s); // "YYYY-MM-DD HH:MM:SS UTC"
    let (date, time) = utc.split_once(' ').unwrap_or((&utc, ""));
    let mut parts = date.split('-').map(|p| p.parse::<usize>().unwrap_or(1));
    let (y, m, d) = (
        parts.next().unwrap_or(1970),
        parts.next().unwrap_or(1),
        parts.next().unwrap_or(1),
    );
    let weekday = DAYS[unix_s.div_euclid(86_400).rem_euclid(7) as usize];
    let month = MONTHS[(m.clamp(1, 12)) - 1];
    format!("{weekday} {month} {d:2} {} {y}", time.trim_end_matches(" UTC"))
}

/// The options fio's JSON lists under "job options", by fio's names from the
/// option table and in fio's syntax; fio-plot needs `rw`, `bs`, `iodepth`
/// and `numjobs` in every job. Values fio writes as kura does come from the
/// table; the others are translated where they are put.
fn job_options(job: &Job, target: &str) -> Map<String, Value> {
    let mut o = FioOptions(Map::new());
    let as_kura = |opt: Opt| (opt.def().get)(job).map(|v| v.to_string());
    o.put(Opt::Name, as_kura(Opt::Name));
    // The path the job ran on, not the one it asked for (PATH.N, a default).
    o.put(Opt::Target, Some(target.to_string()));
    o.put(Opt::Rw, as_kura(Opt::Rw));
    // fio's `bs` is one size; a split is fio's `bssplit`, in kura's syntax.
    let smallest = job.bs.iter().map(|b| b.bytes).min().unwrap_or(4096);
    o.put(Opt::Bs, Some(format_size(smallest)));
    if job.bs.len() > 1 {
        o.put_fio("bssplit", job.bs_text());
    }
    for opt in [Opt::Qd, Opt::Threads, Opt::Size] {
        o.put(opt, as_kura(opt));
    }
    if job.offset_bytes > 0 {
        o.put(Opt::Offset, as_kura(Opt::Offset));
    }
    // fio writes its switches as 0 and 1.
    o.put(Opt::Direct, Some(u8::from(job.direct).to_string()));
    o.put(Opt::Engine, Some(fio_engine(job).to_string()));
    if job.rw.is_mixed() {
        o.put(Opt::ReadPct, as_kura(Opt::ReadPct));
    }
    o.put(Opt::Runtime, as_kura(Opt::Runtime));
    if job.runtime.is_some() && job.io_size_bytes.is_none() && job.io_count.is_none() && job.passes.is_none()
    {
        o.put_fio("time_based", "1".into());
    }
    o.put(Opt::IoSize, as_kura(Opt::IoSize));
    o.put(Opt::IoCount, as_kura(Opt::IoCount));
    if !job.ramp.is_zero() {
        o.put(Opt::Ramp, as_kura(Opt::Ramp));
    }
    for opt in [Opt::RateIops, Opt::Rate, Opt::FsyncEvery, Opt::Seed] {
        o.put(opt, as_kura(opt));
    }
    // With io_uring kura's percentiles are of fio's lat, not clat (module docs);
    // with the sync engine they are fio's default, clat.
    if !latency_is_clat(job) {
        o.put_fio("lat_percentiles", "1".into());
        o.put_fio("clat_percentiles", "0".into());
    }
    o.0
}

/// fio's "job options", in the order they are put.
struct FioOptions(Map<String, Value>);

impl FioOptions {
    /// A kura option under fio's name; `None` (unset) is left out.
    fn put(&mut self, opt: Opt, value: Option<String>) {
        if let Some(v) = value {
            self.put_fio(opt.fio_name(), v);
        }
    }

    /// One of fio's options that kura has no option for.
    fn put_fio(&mut self, name: &str, value: String) {
        self.0.insert(name.to_string(), Value::String(value));
    }
}

/// kura's engine as fio names it; `auto` is the engine it chose.
fn fio_engine(job: &Job) -> &'static str {
    match job.engine.for_io(job.direct) {
        EngineKind::IoUring => "io_uring",
        EngineKind::Null => "null",
        EngineKind::Sync | EngineKind::Auto => "psync",
    }
}

/// Whether kura's latency of this job is what fio calls `clat`: with the sync
/// engine it times the system call alone, as fio's psync `clat` does
/// (module docs).
fn latency_is_clat(job: &Job) -> bool {
    matches!(job.engine.for_io(job.direct), EngineKind::Sync | EngineKind::Auto)
}

fn zero_lat() -> Value {
    json!({ "min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0 })
}

/// Mean and sample standard deviation (n - 1, as fio's `calc_lat`), min, max.
fn sample_stats(xs: &[f64]) -> (f64, f64, f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let dev = if xs.len() > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max, mean, dev)
}

/// One direction as fio's `add_ddir_status_json` writes it. The bandwidth
/// and IOPS samples are kura's interval series (one per `interval`, fio's
/// `bw_avg_time`/`iops_avg_time`), the direction's bytes per interval taken
/// as its operations times its mean transfer size.
fn direction_json(
    d: Option<&DirectionResult>,
    elapsed_ns: u64,
    series: &[IntervalPoint],
    reads: bool,
    plus: bool,
    clat: bool,
) -> Value {
    let Some(d) = d else {
        return empty_direction();
    };
    let runtime_ms = elapsed_ns / 1_000_000;
    let bw_bytes = d.bytes_per_sec as u64;
    let bytes_per_op = if d.ops > 0 {
        d.bytes as f64 / d.ops as f64
    } else {
        0.0
    };
    let iops_samples: Vec<f64> = series
        .iter()
        .filter(|p| p.duration_ns > 0)
        .map(|p| {
            let ops = if reads { p.read_ops } else { p.write_ops };
            ops as f64 * 1e9 / p.duration_ns as f64
        })
        .collect();
    let bw_samples: Vec<f64> = iops_samples.iter().map(|i| i * bytes_per_op / 1024.0).collect();
    let (bw_min, bw_max, bw_mean, bw_dev) = sample_stats(&bw_samples);
    let (iops_min, iops_max, iops_mean, iops_dev) = sample_stats(&iops_samples);
    let bw_kib = bw_bytes / 1024;
    let mut lat = json!({
        "min": d.lat_ns.min,
        "max": d.lat_ns.max,
        "mean": d.lat_ns.mean,
        "stddev": d.lat_ns.stddev,
        "N": d.ops,
    });
    match fio_buckets(d) {
        Some(plat) => {
            lat["percentile"] = Value::Object(fio_percentiles(&plat));
            if plus {
                let bins: Map<String, Value> = plat
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(i, n)| (plat_idx_to_val(i).to_string(), (*n).into()))
                    .collect();
                lat["bins"] = Value::Object(bins);
            }
        }
        // An imported run has no histogram: its stored percentiles, as they were.
        None if !d.lat_ns.percentiles.is_empty() => {
            lat["percentile"] = json!(d.lat_ns.percentiles);
        }
        None => {}
    }
    // fio's default shape: the percentiles under clat_ns, lat_ns the same numbers without.
    let (clat_ns, lat_ns) = if clat {
        let mut total = lat.clone();
        if let Some(o) = total.as_object_mut() {
            o.remove("percentile");
            o.remove("bins");
        }
        (lat, total)
    } else {
        (zero_lat(), lat)
    };
    json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes >> 10,
        "bw_bytes": bw_bytes,
        "bw": bw_kib,
        "iops": d.iops,
        "runtime": runtime_ms,
        "total_ios": d.ops + d.errors,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": zero_lat(),
        "clat_ns": clat_ns,
        "lat_ns": lat_ns,
        "bw_min": bw_min as u64,
        "bw_max": bw_max as u64,
        "bw_agg": if bw_kib > 0 { bw_mean * 100.0 / bw_kib as f64 } else { 0.0 },
        "bw_mean": bw_mean,
        "bw_dev": bw_dev,
        "bw_samples": bw_samples.len(),
        "iops_min": iops_min as u64,
        "iops_max": iops_max as u64,
        "iops_mean": iops_mean,
        "iops_stddev": iops_dev,
        "iops_samples": iops_samples.len(),
    })
}

fn empty_direction() -> Value {
    json!({
        "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
        "total_ios": 0, "short_ios": 0, "drop_ios": 0,
        "slat_ns": zero_lat(), "clat_ns": zero_lat(), "lat_ns": zero_lat(),
        "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
        "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0,
    })
}

/// fio's `latency_ns`/`latency_us`/`latency_ms` maps (stat.c
/// `add_lat_buckets`, io_u.c `io_u_mark_lat_*`): the share in percent of
/// all I/Os of the job whose latency is below each key and at least the
/// key before it.
fn latency_buckets(job: &JobResult) -> (Value, Value, Value) {
    const NS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    const MS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];
    let mut ns = [0u64; 10];
    let mut us = [0u64; 10];
    let mut ms = [0u64; 12];
    let mut total = 0u64;
    let trim = job.operation(OpKind::Trim);
    for d in [job.read.as_ref(), job.write.as_ref(), trim]
        .into_iter()
        .flatten()
    {
        let Some(h) = decode(&d.histogram) else { continue };
        for v in h.iter_recorded() {
            let value = h.median_equivalent(v.value_iterated_to());
            let n = v.count_at_value();
            total += n;
            let slot = |edges: &[u64], x: u64| edges.iter().position(|e| x < *e);
            if value < 1000 {
                ns[slot(&NS, value).unwrap_or(9)] += n;
            } else if value < 1_000_000 {
                us[slot(&NS, value / 1000).unwrap_or(9)] += n;
            } else {
                ms[slot(&MS, value / 1_000_000).unwrap_or(11)] += n;
            }
        }
    }
    let pct = |n: u64| {
        if total == 0 {
            0.0
        } else {
            n as f64 * 100.0 / total as f64
        }
    };
    let map = |edges: &[u64], counts: &[u64], last: Option<&str>| {
        let mut m = Map::new();
        for (e, n) in edges.iter().zip(counts) {
            m.insert(e.to_string(), pct(*n).into());
        }
        if let Some(last) = last {
            m.insert(last.to_string(), pct(counts[counts.len() - 1]).into());
        }
        Value::Object(m)
    };
    (
        map(&NS, &ns, None),
        map(&NS, &us, None),
        map(&MS, &ms, Some(">=2000")),
    )
}

/// fio's `iodepth_level` buckets (io_u.c `io_u_mark_depth`). kura does not
/// sample the depth: the configured queue depth gets 100 %.
fn depth_levels(qd: u32) -> Value {
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let at = match qd {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    };
    Value::Object(
        keys.iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), json!(if i == at { 100.0 } else { 0.0 })))
            .collect(),
    )
}

/// `iodepth_submit`/`iodepth_complete`: not measured by kura, all zero.
fn zero_depths() -> Value {
    Value::Object(
        ["0", "4", "8", "16", "32", "64", ">=64"]
            .iter()
            .map(|k| (k.to_string(), json!(0.0)))
            .collect(),
    )
}

fn job_json(j: &JobResult, index: usize, plus: bool) -> Value {
    let runtime_ms = j.elapsed_ns / 1_000_000;
    let cpu_pct = |ns: u64| {
        if j.elapsed_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / j.elapsed_ns as f64
        }
    };
    let (lat_n, lat_u, lat_m) = latency_buckets(j);
    let error = j
        .directions()
        .find_map(|(_, d)| d.error_samples.first().map(|e| e.errno))
        .unwrap_or(0);
    let name = j.test.clone().unwrap_or_else(|| j.job.name.clone());
    let clat = latency_is_clat(&j.job);
    json!({
        "jobname": name,
        "groupid": j.job.group.map(u64::from).unwrap_or(index as u64),
        "error": error,
        "eta": 0,
        "elapsed": (j.elapsed_ns + j.ramp_ns).div_ceil(1_000_000_000),
        "job options": Value::Object(job_options(&j.job, &j.target.path)),
        "read": direction_json(j.read.as_ref(), j.elapsed_ns, &j.series, true, plus, clat),
        "write": direction_json(j.write.as_ref(), j.elapsed_ns, &j.series, false, plus, clat),
        // Trims: the series counts them with writes, so their samples are writes' too.
        "trim": direction_json(j.operation(OpKind::Trim), j.elapsed_ns, &j.series, false, plus, clat),
        "sync": { "total_ios": j.syncs, "lat_ns": zero_lat() },
        "job_runtime": runtime_ms,
        "usr_cpu": cpu_pct(j.cpu_user_ns),
        "sys_cpu": cpu_pct(j.cpu_system_ns),
        "ctx": 0,
        "majf": 0,
        "minf": 0,
        "iodepth_level": depth_levels(j.job.qd),
        "iodepth_submit": zero_depths(),
        "iodepth_complete": zero_depths(),
        "latency_ns": lat_n,
        "latency_us": lat_u,
        "latency_ms": lat_m,
        "latency_depth": j.job.qd,
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    })
}

/// The document as text: fio's JSON is printed with tabs in fio, any
/// indentation reads the same.
pub fn render(run: &RunResult, plus: bool) -> String {
    let mut s = serde_json::to_string_pretty(&fio_json(run, plus)).expect("values serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fio_bins::PLAT_NR;

    #[test]
    fn percentiles_take_the_first_bucket_reaching_the_share() {
        let mut plat = vec![0u64; PLAT_NR];
        plat[10] = 50;
        plat[20] = 49;
        plat[100] = 1;
        let p = fio_percentiles(&plat);
        assert_eq!(p["50.000000"], 10);
        assert_eq!(p["60.000000"], 20);
        assert_eq!(p["99.000000"], 20);
        assert_eq!(p["99.500000"], 100);
        assert_eq!(p.len(), FIO_PERCENTILES.len());
    }

    #[test]
    fn ctime_as_fio_prints_it() {
        assert_eq!(ctime(1_795_423_109), "Mon Nov 23 08:38:29 2026");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
    }
}
