//! A job's latency bound (`latency_limit`, `latency_stat`, `latency_load`):
//! the types the option table stores, how a limit reads, and the rules the
//! three keep together. The search that honours them is `runner::latency_bound`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The latency statistic a bound holds, over every operation of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LatencyStat {
    #[serde(rename = "mean")]
    Mean,
    #[serde(rename = "p90")]
    P90,
    #[serde(rename = "p95")]
    P95,
    #[serde(rename = "p99")]
    P99,
    #[serde(rename = "p99.9")]
    P99_9,
    #[serde(rename = "p99.99")]
    P99_99,
    /// Every operation under the limit: fio's default `latency_percentile=100`.
    #[serde(rename = "max")]
    Max,
}

/// The words `latency_stat` takes, in the order `--help` lists them.
pub const STAT_NAMES: &[&str] = &["mean", "p90", "p95", "p99", "p99.9", "p99.99", "max"];

impl LatencyStat {
    pub const ALL: [LatencyStat; 7] = [
        LatencyStat::Mean,
        LatencyStat::P90,
        LatencyStat::P95,
        LatencyStat::P99,
        LatencyStat::P99_9,
        LatencyStat::P99_99,
        LatencyStat::Max,
    ];

    pub fn name(self) -> &'static str {
        STAT_NAMES[Self::ALL.iter().position(|s| *s == self).unwrap_or(0)]
    }

    pub fn parse(text: &str) -> Option<LatencyStat> {
        let t = text.trim().to_ascii_lowercase();
        let i = STAT_NAMES.iter().position(|n| *n == t)?;
        Some(Self::ALL[i])
    }

    /// The percentile it is, for the percentile statistics.
    pub fn percentile(self) -> Option<f64> {
        match self {
            LatencyStat::Mean | LatencyStat::Max => None,
            LatencyStat::P90 => Some(90.0),
            LatencyStat::P95 => Some(95.0),
            LatencyStat::P99 => Some(99.0),
            LatencyStat::P99_9 => Some(99.9),
            LatencyStat::P99_99 => Some(99.99),
        }
    }

    /// The statistic for a percentile of operations (fio's `latency_percentile`).
    pub fn from_percentile(p: f64) -> Option<LatencyStat> {
        if (p - 100.0).abs() < 1e-9 {
            return Some(LatencyStat::Max);
        }
        Self::ALL
            .into_iter()
            .find(|s| s.percentile().is_some_and(|q| (q - p).abs() < 1e-9))
    }
}

/// What a latency-bounded search raises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LatencyLoad {
    /// The offered rate (`rate_iops`), at the job's queue depth and threads.
    Rate,
    /// The queue depth of each thread, closed loop (fio's `latency_target`).
    Qd,
    /// The number of threads, closed loop.
    Threads,
}

/// The words `latency_load` takes.
pub const LOAD_NAMES: &[&str] = &["rate", "qd", "threads"];

impl LatencyLoad {
    pub fn name(self) -> &'static str {
        match self {
            LatencyLoad::Rate => "rate",
            LatencyLoad::Qd => "qd",
            LatencyLoad::Threads => "threads",
        }
    }

    pub fn parse(text: &str) -> Option<LatencyLoad> {
        match text.trim().to_ascii_lowercase().as_str() {
            "rate" => Some(LatencyLoad::Rate),
            "qd" => Some(LatencyLoad::Qd),
            "threads" => Some(LatencyLoad::Threads),
            _ => None,
        }
    }

    /// How a load of this kind is written: `1,200 IOPS`, `qd 8`, `4 threads`.
    pub fn unit(self) -> &'static str {
        match self {
            LatencyLoad::Rate => "IOPS",
            LatencyLoad::Qd => "qd",
            LatencyLoad::Threads => "threads",
        }
    }
}

/// Where a measured point stands in its search; set by the runner on the
/// job of each step, so a stored run keeps its curve in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyStep {
    /// 0 for the first point of a search; a new search starts at 0 again.
    pub index: u32,
    pub phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Unthrottled, to learn the rate the target reaches.
    Probe,
    /// Raising the load geometrically until the bound is crossed.
    Climb,
    /// Lowering it when even the first step crossed.
    Descend,
    /// Bisecting between the highest load that held and the lowest that did not.
    Refine,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Probe => "probe",
            Phase::Climb => "climb",
            Phase::Descend => "descend",
            Phase::Refine => "refine",
        }
    }
}

/// Reads a latency limit: a positive number with its unit (`6ms`, `500us`,
/// `0.5ms`, `2s`). A bare number is refused: `6` could be seconds (kura's
/// durations), microseconds (fio's `latency_target`) or milliseconds
/// (vdbench's `stopcurve`).
pub fn parse_limit(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err("must be more than 0 (a latency limit cannot be negative)".into());
    }
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| "expected a number with a unit, e.g. 6ms or 500us".to_string())?;
    let ns_per_unit = match unit.trim().to_ascii_lowercase().as_str() {
        "" => return Err("needs a unit: ns, us, ms or s (e.g. 6ms)".into()),
        "ns" => 1.0,
        "us" | "µs" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        other => return Err(format!("unknown unit '{other}': use ns, us, ms or s")),
    };
    let ns = value * ns_per_unit;
    if !ns.is_finite() || ns > 3600e9 {
        return Err("must be at most 1 hour".into());
    }
    if ns < 1.0 {
        return Err("must be more than 0".into());
    }
    Ok(Duration::from_nanos(ns.round() as u64))
}

/// The rules the three keys keep together.
pub fn validate(job: &super::Job) -> Result<(), super::SpecError> {
    use super::options::invalid;
    let Some(limit) = job.latency_limit_ns else {
        if let Some(s) = job.latency_stat {
            return Err(invalid("latency_stat", s.name(), "needs latency_limit"));
        }
        if let Some(l) = job.latency_load {
            return Err(invalid("latency_load", l.name(), "needs latency_limit"));
        }
        return Ok(());
    };
    let limit_text = super::units::format_duration(Duration::from_nanos(limit));
    if !job.workload.kind().has_load_to_raise() {
        return Err(invalid(
            "latency_limit",
            &limit_text,
            format!("a {} job has no load to raise", job.workload.kind().name()),
        ));
    }
    if job.latency_step.is_none()
        && job.latency_load.unwrap_or(LatencyLoad::Rate) == LatencyLoad::Rate
        && let Some(rate) = job.rate_iops
    {
        return Err(invalid(
            "rate_iops",
            &rate.to_string(),
            "the latency search sets the rate itself; drop rate_iops, or search on qd or threads (latency_load)",
        ));
    }
    if job.latency_step.is_none()
        && job.latency_load.unwrap_or(LatencyLoad::Rate) == LatencyLoad::Rate
        && let Some(rate) = job.rate_bytes_per_sec
    {
        return Err(invalid(
            "rate",
            &rate.to_string(),
            "the latency search sets the rate itself; drop rate, or search on qd or threads (latency_load)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_need_a_unit_and_a_positive_value() {
        assert_eq!(parse_limit("6ms"), Ok(Duration::from_millis(6)));
        assert_eq!(parse_limit("0.5ms"), Ok(Duration::from_micros(500)));
        assert_eq!(parse_limit("250us"), Ok(Duration::from_micros(250)));
        assert!(parse_limit("6").unwrap_err().contains("needs a unit"));
        assert!(parse_limit("-6ms").unwrap_err().contains("negative"));
        assert!(parse_limit("0ms").unwrap_err().contains("more than 0"));
        assert!(parse_limit("6 parsecs").unwrap_err().contains("unknown unit"));
        assert!(parse_limit("ms").is_err());
    }

    #[test]
    fn stats_read_back_and_map_fio_percentiles() {
        for s in LatencyStat::ALL {
            assert_eq!(LatencyStat::parse(s.name()), Some(s));
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
        }
        assert_eq!(LatencyStat::parse("median"), None);
        assert_eq!(LatencyStat::from_percentile(100.0), Some(LatencyStat::Max));
        assert_eq!(LatencyStat::from_percentile(99.9), Some(LatencyStat::P99_9));
        assert_eq!(LatencyStat::from_percentile(97.0), None);
    }
}
