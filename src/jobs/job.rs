//! The job model every input format is translated into. One `set` function
//! maps a key and its text value onto a `Job`, so command-line flags and TOML
//! keys are the same words with the same parsing.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::units::{UnitError, format_size, parse_size};

/// The default test file, created in the current directory.
pub const DEFAULT_TARGET: &str = "kura-test.dat";
/// The default test-file size when the target is a new file.
pub const DEFAULT_FILE_SIZE: u64 = 1 << 30;
/// How long a job runs when it names neither runtime, io_size nor io_count.
pub const DEFAULT_RUNTIME: Duration = Duration::from_secs(10);
/// Upper bounds that catch typos (qd 3200000) before they allocate.
pub const MAX_QD: u32 = 4096;
pub const MAX_THREADS: u32 = 1024;
pub const MAX_BS: u64 = 64 << 20;

#[derive(Debug, Error, PartialEq)]
pub enum SpecError {
    #[error("unknown key '{0}' (see docs/jobs.md for the keys)")]
    UnknownKey(String),
    #[error("{key}: {source}")]
    Unit {
        key: String,
        #[source]
        source: UnitError,
    },
    #[error("{key}: '{value}' is not valid: {why}")]
    Invalid { key: String, value: String, why: String },
}

impl SpecError {
    /// What is wrong with the value, for a reader that names the
    /// parameter and value in its own words (`fsd=... depth=20: ...`).
    pub fn why(&self) -> String {
        match self {
            SpecError::Invalid { why, .. } => why.clone(),
            other => other.to_string(),
        }
    }
}

use super::options::invalid;

/// Access pattern and direction, with fio's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mix of reads and writes (`read_pct`).
    Rw,
    /// Random mix of reads and writes (`read_pct`).
    RandRw,
    /// fio's trims (BLKDISCARD) of a block device: sequential, random, and
    /// each trimmed block then written (`trimwrite`, `randtrimwrite`).
    Trim,
    RandTrim,
    TrimWrite,
    RandTrimWrite,
}

impl Rw {
    pub fn parse(text: &str) -> Option<Rw> {
        Some(match text.to_ascii_lowercase().as_str() {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "rw" | "readwrite" => Rw::Rw,
            "randrw" => Rw::RandRw,
            "trim" => Rw::Trim,
            "randtrim" => Rw::RandTrim,
            "trimwrite" => Rw::TrimWrite,
            "randtrimwrite" => Rw::RandTrimWrite,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
            Rw::Rw => "rw",
            Rw::RandRw => "randrw",
            Rw::Trim => "trim",
            Rw::RandTrim => "randtrim",
            Rw::TrimWrite => "trimwrite",
            Rw::RandTrimWrite => "randtrimwrite",
        }
    }
    pub fn is_random(self) -> bool {
        matches!(
            self,
            Rw::RandRead | Rw::RandWrite | Rw::RandRw | Rw::RandTrim | Rw::RandTrimWrite
        )
    }
    /// Trims: each I/O a BLKDISCARD, or (trimwrite) a trim and then a write of the same block.
    pub fn trims(self) -> bool {
        matches!(self, Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite)
    }
    pub fn is_mixed(self) -> bool {
        matches!(self, Rw::Rw | Rw::RandRw)
    }
}

/// One block size of a split and its share of the I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSize {
    pub bytes: u64,
    /// Relative weight; the weights of a split need not add up to 100.
    pub weight: u32,
}

/// How random offsets are spread over the span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Distribution {
    Uniform,
    /// Zipf with exponent theta (fio's `zipf:THETA`).
    Zipf {
        theta: f64,
    },
    /// Pareto with shape h in (0,1) (fio's `pareto:H`).
    Pareto {
        h: f64,
    },
    /// `io_pct` % of the I/Os go to the first `space_pct` % of the span.
    Hotspot {
        io_pct: f64,
        space_pct: f64,
    },
    // fio's zoned and zoned_abs with any number of zones.
    /// fio's `zoned:60/10:30/20:10/70`: each zone, in order from the span's
    /// start, gets `io_pct` % of the I/Os spread evenly over its `space_pct` %
    /// of the span.
    Zoned {
        zones: Vec<ZonePct>,
    },
    /// fio's `zoned_abs:60/1g:40/3g`: the same with zone sizes in bytes.
    ZonedAbs {
        zones: Vec<ZoneAbs>,
    },
}

/// One zone of `zoned`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ZonePct {
    pub io_pct: f64,
    pub space_pct: f64,
}

/// One zone of `zoned_abs`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ZoneAbs {
    pub io_pct: f64,
    pub size_bytes: u64,
}

impl Distribution {
    /// fio's text for it: `zoned:60/10:40/90`.
    pub fn text(&self) -> String {
        match self {
            Distribution::Uniform => "uniform".into(),
            Distribution::Zipf { theta } => format!("zipf:{theta}"),
            Distribution::Pareto { h } => format!("pareto:{h}"),
            Distribution::Hotspot { io_pct, space_pct } => format!("hotspot:{io_pct}/{space_pct}"),
            Distribution::Zoned { zones } => format!(
                "zoned:{}",
                zones
                    .iter()
                    .map(|z| format!("{}/{}", z.io_pct, z.space_pct))
                    .collect::<Vec<_>>()
                    .join(":")
            ),
            Distribution::ZonedAbs { zones } => format!(
                "zoned_abs:{}",
                zones
                    .iter()
                    .map(|z| format!("{}/{}", z.io_pct, format_size(z.size_bytes)))
                    .collect::<Vec<_>>()
                    .join(":")
            ),
        }
    }
}

/// Zones as fio writes them, `IO_PCT/SPACE:IO_PCT/SPACE...`, each space read by `space`.
pub fn parse_zones<T>(
    text: &str,
    space: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<(f64, T)>, String> {
    let mut out = Vec::new();
    for zone in text.split(':') {
        let (io, sp) = zone
            .split_once('/')
            .ok_or_else(|| format!("zone '{zone}' is not IO_PCT/SPACE"))?;
        let io: f64 = io
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && (0.0..=100.0).contains(x))
            .ok_or_else(|| format!("'{io}' is not a percentage 0-100"))?;
        out.push((io, space(sp.trim())?));
    }
    let total: f64 = out.iter().map(|z| z.0).sum();
    if (total - 100.0).abs() > 1e-6 {
        return Err(format!("the zones' I/O shares add up to {total}, not 100"));
    }
    Ok(out)
}

/// What written buffers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Fill {
    Random,
    Zero,
    /// `pct` % of each buffer compresses away (zeros), the rest is random.
    Compressible {
        pct: u8,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// Not named: io_uring for direct I/O, sync for buffered (see `for_io`).
    Auto,
    IoUring,
    Sync,
    Null,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Auto => "auto",
            EngineKind::IoUring => "io_uring",
            EngineKind::Sync => "sync",
            EngineKind::Null => "null",
        }
    }

    /// The engine that runs. Buffered I/O goes through pread/pwrite unless
    /// io_uring was named: io_uring punts buffered writes to kernel workers,
    /// which ran them at a third (sequential) to a thirtieth (4k random) of
    /// `write()`'s speed here, a speed no application calling `write()` sees.
    pub fn for_io(self, direct: bool) -> EngineKind {
        match self {
            EngineKind::Auto if direct => EngineKind::IoUring,
            EngineKind::Auto => EngineKind::Sync,
            named => named,
        }
    }
}

/// One workload, fully resolved: every parameter a run needs to be repeated.
// Missing fields take `Job::default()`'s: a file set's stored job has no block options (jobs/issued.rs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Job {
    pub name: String,
    /// File or block device; `None` means `kura-test.dat` in the current directory.
    pub target: Option<PathBuf>,
    pub rw: Rw,
    pub bs: Vec<BlockSize>,
    /// Share of reads in a mixed workload, 0..=100.
    pub read_pct: u8,
    pub qd: u32,
    pub threads: u32,
    /// Test-file size, or the span of a device used; `None` = whole device or default file size.
    pub size_bytes: Option<u64>,
    pub offset_bytes: u64,
    #[serde(
        rename = "runtime_ns",
        alias = "runtime",
        default,
        with = "super::duration_ns::option"
    )]
    pub runtime: Option<Duration>,
    pub io_size_bytes: Option<u64>,
    pub io_count: Option<u64>,
    /// Time run but not measured before the measurement starts.
    #[serde(rename = "ramp_ns", alias = "ramp", with = "super::duration_ns")]
    pub ramp: Duration,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    /// Buffered runs only: keep the target's cached pages instead of dropping them first.
    pub keep_cache: bool,
    pub engine: EngineKind,
    pub distribution: Distribution,
    /// Cap on I/Os per second for the whole job (all threads).
    pub rate_iops: Option<u64>,
    /// fdatasync after every N writes (per thread).
    pub fsync_every: Option<u64>,
    pub fill: Fill,
    pub label: Option<String>,
    /// Period of the interval series.
    #[serde(rename = "interval_ns", alias = "interval", with = "super::duration_ns")]
    pub interval: Duration,
    /// Each thread works on its own file, `TARGET.N` (tiobench's layout).
    #[serde(default)]
    pub file_per_thread: bool,
    /// The target is a name kura chose itself (`DIR/kura-test.dat` of
    /// `mark DIR`, a suite's file): a file there must be one kura made.
    #[serde(skip)]
    pub own_name: bool,
    /// Jobs next to each other with the same group run at the same time
    /// (fio's jobs between two stonewalls, vdbench's workloads of one run).
    #[serde(default)]
    pub group: Option<u32>,
    /// Wait this long before the job starts (fio's startdelay).
    #[serde(
        rename = "start_delay_ns",
        alias = "start_delay",
        default,
        with = "super::duration_ns"
    )]
    pub start_delay: Duration,
    /// Pause for this long after every `think_every` I/Os completed (fio's thinktime).
    #[serde(
        rename = "think_time_ns",
        alias = "think_time",
        default,
        with = "super::duration_ns::option"
    )]
    pub think_time: Option<Duration>,
    #[serde(default)]
    pub think_every: Option<u32>,
    /// fdatasync once when the job's writes are done (fio's end_fsync).
    #[serde(default)]
    pub end_fsync: bool,
    /// Stop after moving the whole span this many times, all threads together
    /// (fio's size x loops, vdbench's seekpct=eof).
    #[serde(default)]
    pub passes: Option<u64>,
    /// Random offsets are multiples of this; `None` = the smallest block size (fio's ba).
    #[serde(default)]
    pub align: Option<u64>,
    /// Share of random I/Os at a new random offset; the others continue where
    /// the previous I/O ended (fio's percentage_random, vdbench's seekpct).
    #[serde(default = "all_random")]
    pub random_pct: u8,
    /// Seed of the offsets, sizes, mix and data; `None` until the run picks
    /// one from the clock. The stored job always has the one used.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The kind of workload, with its own parameters; block I/O (the fields above) unless said.
    #[serde(default, skip_serializing_if = "super::workload::stored_without_key")]
    pub workload: super::Workload,
    /// Sequential jobs: bytes skipped after each I/O (fio's `rw=read:4k`).
    /// Left out of JSON when 0, so jobs without holes store as they always did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gap_bytes: u64,
    /// Sequential jobs: the next I/O starts this many bytes before the end
    /// of the last (fio's `rw=read:-8k`); twice the block size walks
    /// backwards. Left out of JSON when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub step_back_bytes: u64,
    /// fio's `zonemode=strided`: move this many bytes in a zone, then go on
    /// to the next; 0: no zones. Left out of JSON when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zone_size_bytes: u64,
    /// A zone's length (fio's `zonerange`); 0: `zone_size`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zone_range_bytes: u64,
    /// Bytes skipped between zones (fio's `zoneskip`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zone_skip_bytes: u64,
    // Latency-bounded capacity: see jobs/latency.rs and runner/latency_bound.rs.
    /// Search for the highest load whose latency statistic stays at or under
    /// this many nanoseconds; `None`: measure the job once, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_limit_ns: Option<u64>,
    /// The statistic the bound holds; `None` is the mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_stat: Option<super::latency::LatencyStat>,
    /// What the search raises; `None` is the offered rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_load: Option<super::latency::LatencyLoad>,
    /// Set by the runner on each measured point of a search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_step: Option<super::latency::LatencyStep>,
    // Long runs: what the interval series must show to be told
    // (metrics::changes). Unset takes the defaults there; left out of JSON
    // when unset, so jobs store as they did.
    /// Smallest sustained shift of the series told, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<u32>,
    /// Periods a level must last, before and after a shift, to be told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_periods: Option<u32>,
    /// A period whose p99 exceeds this many times the median p99 is a spike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spike_factor: Option<u32>,
    // Preconditioning and steady state.
    /// A job run before this one to put the target into a known state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precondition: Option<super::precondition::Precondition>,
    /// Run in rounds until this figure is steady by SNIA PTS 2.0.2's rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_steady: Option<crate::jobs::Tracked>,
    // Caches and verify: left out of JSON when unset, so jobs
    // without them store as they always did.
    /// Run the workload in a memory cgroup capped at this many bytes, so
    /// the page cache cannot hold more (as booting with `mem=` did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_limit_bytes: Option<u64>,
    /// Written blocks carry a verify header; reads check it; writes are read back.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// A file recording the blocks flushed, for a verify after a crash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<PathBuf>,
    /// Stop a worker after this many failed I/Os (and verify mismatches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_errors: Option<u64>,
    // fio's ecosystem: fio's log files, written after the job from
    // its interval series (report/fio_logs.rs). Left out of JSON when unset.
    /// fio's `write_bw_log`: prefix of `PREFIX_bw.N.log`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bw_log: Option<PathBuf>,
    /// fio's `write_iops_log`: prefix of `PREFIX_iops.N.log`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iops_log: Option<PathBuf>,
    /// fio's `write_lat_log`: prefix of `PREFIX_lat.N.log`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_lat_log: Option<PathBuf>,
    /// fio's `rate_process=poisson`: rate-limited I/Os at exponential gaps
    /// (mean 1/rate) instead of evenly. Left out of JSON when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rate_poisson: bool,
    // Options job files people write (jobs/open_sync.rs, byte_pattern.rs, rate_min.rs). Left out of JSON when unset.
    /// Writes' block sizes when they differ from reads' (fio's `bs=R,W`, `bssplit=R,W`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_write: Option<Vec<BlockSize>>,
    /// Thread N's span starts N times this further in (fio's `offset_increment`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset_increment_bytes: u64,
    /// Open the target with O_SYNC or O_DSYNC (fio's `sync=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_sync: Option<super::open_sync::OpenSync>,
    /// Written buffers hold this byte pattern, repeated (fio's `buffer_pattern`), as `0x` hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pattern: Option<String>,
    /// When one job of a group ends, the others stop (fio's `exitall`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub exit_all: bool,
    /// A thread below these rates fails (fio's `rate_min`, `rate_iops_min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_min: Option<super::rate_min::RateMin>,
    /// fio's `write_hist_log`: prefix of `PREFIX_clat_hist.N.log`, the
    /// latency histogram of each interval and direction in fio's bins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_hist_log: Option<PathBuf>,
    /// fio's `log_hist_coarseness`: 2^N of fio's bins summed into one (0-6).
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub hist_coarseness: u8,
    /// This share of written blocks repeat the last unique one (fio's `dedupe_percentage`).
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub dedupe_pct: u8,
    /// fio's `dedupe_mode=working_set`: a repeated block is one of a working
    /// set of this share of the span, drawn at random; 0: the last unique
    /// block (fio's `repeat`). Left out of JSON when 0.
    #[serde(default, skip_serializing_if = "is_zero_u8")]
    pub dedupe_working_set_pct: u8,
    /// fio's `dedupe_global`: every job's working set is the same blocks.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dedupe_global: bool,
    /// fio's `flow`: this job's weight in its flow's share of I/Os; 0: no
    /// flow control. Left out of JSON when 0, as the two below.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow: u64,
    /// fio's `flow_id`: jobs running together with the same id share a flow.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_id: u64,
    /// fio's `flow_sleep`: how long a thread held back by its flow waits.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flow_sleep_ns: u64,
    /// fio's steady-state stop (`ss`, jobs/steady_stop.rs): the job ends
    /// once its last `steady_window` holds this; `None`: it runs its course.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_stop: Option<super::steady_stop::SteadyRule>,
    /// fio's `ss_dur`: the window of per-interval values judged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steady_window_ns: u64,
    /// fio's `ss_ramp`: values before this are not judged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steady_ramp_ns: u64,
    /// A test file kura creates is left empty, not laid out: the measured
    /// writes grow it (fio's `create_on_open=1`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub create_on_open: bool,
    /// Cap on bytes per second for the whole job (fio's `rate`), paced as
    /// a fractional rate of I/Os. Left out of JSON when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bytes_per_sec: Option<u64>,
}

fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn all_random() -> u8 {
    100
}

impl Default for Job {
    fn default() -> Self {
        Job {
            name: "job".to_string(),
            target: None,
            rw: Rw::RandRead,
            bs: vec![BlockSize {
                bytes: 4096,
                weight: 100,
            }],
            read_pct: 50,
            qd: 1,
            threads: 1,
            size_bytes: None,
            offset_bytes: 0,
            runtime: None,
            io_size_bytes: None,
            io_count: None,
            ramp: Duration::ZERO,
            direct: true,
            keep_cache: false,
            engine: EngineKind::Auto,
            distribution: Distribution::Uniform,
            rate_iops: None,
            fsync_every: None,
            fill: Fill::Random,
            label: None,
            interval: Duration::from_secs(1),
            file_per_thread: false,
            own_name: false,
            group: None,
            start_delay: Duration::ZERO,
            think_time: None,
            think_every: None,
            end_fsync: false,
            passes: None,
            align: None,
            random_pct: 100,
            seed: None,
            workload: Default::default(),
            gap_bytes: 0,
            step_back_bytes: 0,
            zone_size_bytes: 0,
            zone_range_bytes: 0,
            zone_skip_bytes: 0,
            latency_limit_ns: None,
            latency_stat: None,
            latency_load: None,
            latency_step: None,
            change_pct: None,
            change_periods: None,
            spike_factor: None,
            precondition: None,
            until_steady: None,
            mem_limit_bytes: None,
            verify: false,
            journal: None,
            max_errors: None,
            write_bw_log: None,
            write_iops_log: None,
            write_lat_log: None,
            rate_poisson: false,
            rate_bytes_per_sec: None,
            bs_write: None,
            offset_increment_bytes: 0,
            open_sync: None,
            buffer_pattern: None,
            exit_all: false,
            rate_min: None,
            write_hist_log: None,
            hist_coarseness: 0,
            dedupe_pct: 0,
            dedupe_working_set_pct: 0,
            dedupe_global: false,
            flow: 0,
            flow_id: 0,
            flow_sleep_ns: 0,
            steady_stop: None,
            steady_window_ns: 0,
            steady_ramp_ns: 0,
            create_on_open: false,
        }
    }
}

fn size(key: &str, v: &str) -> Result<u64, SpecError> {
    parse_size(v).map_err(|source| SpecError::Unit {
        key: key.into(),
        source,
    })
}

fn count(key: &str, v: &str, min: u64, max: u64) -> Result<u64, SpecError> {
    let n: u64 = v
        .trim()
        .parse()
        .map_err(|_| invalid(key, v, "expected a whole number"))?;
    if n < min || n > max {
        return Err(invalid(key, v, format!("must be between {min} and {max}")));
    }
    Ok(n)
}

fn fraction(key: &str, v: &str, text: &str) -> Result<f64, SpecError> {
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| invalid(key, v, format!("'{text}' is not a number")))
}

/// `4k`, or a split `4k/60:64k/40`.
pub fn block_sizes_text(bs: &[BlockSize]) -> String {
    if bs.len() == 1 {
        format_size(bs[0].bytes)
    } else {
        bs.iter()
            .map(|b| format!("{}/{}", format_size(b.bytes), b.weight))
            .collect::<Vec<_>>()
            .join(":")
    }
}

pub(super) fn parse_engine(text: &str) -> Option<EngineKind> {
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "io_uring" | "iouring" | "uring" => EngineKind::IoUring,
        "sync" | "psync" => EngineKind::Sync,
        "null" => EngineKind::Null,
        "auto" => EngineKind::Auto,
        _ => return None,
    })
}

/// Parses `4k`, or a split `4k/60:64k/40`.
pub fn parse_block_sizes(key: &str, v: &str) -> Result<Vec<BlockSize>, SpecError> {
    // fio's `bs=4k,64k` (reads, writes) or a list a sweep takes.
    if v.contains(',') {
        return Err(invalid(
            key,
            v,
            "one block size per job: writes' own is bs_write (--bs-write; fio's bs=READ,WRITE), \
             several to sweep is kura sweep --bs 4k,64k",
        ));
    }
    let mut out = Vec::new();
    for part in v.split(':') {
        let (bs_text, weight) = match part.split_once('/') {
            Some((b, w)) => (b, count(key, w, 1, 1_000_000)? as u32),
            None => (part, 100),
        };
        let bytes = size(key, bs_text)?;
        if bytes == 0 || bytes > MAX_BS {
            return Err(invalid(
                key,
                v,
                format!("block size must be between 1 byte and {}", format_size(MAX_BS)),
            ));
        }
        out.push(BlockSize { bytes, weight });
    }
    Ok(out)
}

pub(super) fn parse_distribution(key: &str, v: &str) -> Result<Distribution, SpecError> {
    let lower = v.trim().to_ascii_lowercase();
    let (kind, arg) = lower.split_once(':').unwrap_or((lower.as_str(), ""));
    let d = match kind {
        "uniform" | "random" if arg.is_empty() => Distribution::Uniform,
        "zipf" => Distribution::Zipf {
            theta: fraction(key, v, arg)?,
        },
        "pareto" => Distribution::Pareto {
            h: fraction(key, v, arg)?,
        },
        "zoned" => {
            let zones = parse_zones(arg, |sp| {
                sp.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0 && *x <= 100.0)
                    .ok_or_else(|| format!("'{sp}' is not a share of the span 0-100"))
            })
            .map_err(|why| invalid(key, v, why))?;
            Distribution::Zoned {
                zones: zones
                    .into_iter()
                    .map(|(io_pct, space_pct)| ZonePct { io_pct, space_pct })
                    .collect(),
            }
        }
        "zoned_abs" => {
            let zones = parse_zones(arg, |sp| {
                parse_size(sp).map_err(|e| e.to_string()).and_then(|b| {
                    if b == 0 {
                        Err("a zone of 0 bytes".into())
                    } else {
                        Ok(b)
                    }
                })
            })
            .map_err(|why| invalid(key, v, why))?;
            Distribution::ZonedAbs {
                zones: zones
                    .into_iter()
                    .map(|(io_pct, size_bytes)| ZoneAbs { io_pct, size_bytes })
                    .collect(),
            }
        }
        "hotspot" => {
            let (io, space) = arg
                .split_once('/')
                .ok_or_else(|| invalid(key, v, "expected hotspot:PCT_IO/PCT_SPACE, e.g. hotspot:80/20"))?;
            Distribution::Hotspot {
                io_pct: fraction(key, v, io)?,
                space_pct: fraction(key, v, space)?,
            }
        }
        _ => {
            return Err(invalid(
                key,
                v,
                "expected uniform, zipf:THETA, pareto:H, hotspot:PCT_IO/PCT_SPACE, zoned:IO/SPACE:IO/SPACE... or zoned_abs:IO/SIZE:IO/SIZE...",
            ));
        }
    };
    check_distribution(&d).map_err(|why| invalid(key, v, why))?;
    Ok(d)
}

/// The parameters a distribution's formula accepts, however it was read.
pub(super) fn check_distribution(d: &Distribution) -> Result<(), String> {
    let zoned_io = |io: &mut dyn Iterator<Item = f64>| {
        let total: f64 = io.sum();
        if (total - 100.0).abs() > 1e-6 {
            Err(format!("the zones' I/O shares add up to {total}, not 100"))
        } else {
            Ok(())
        }
    };
    match d {
        Distribution::Zoned { zones } => {
            let space: f64 = zones.iter().map(|z| z.space_pct).sum();
            if zones.is_empty() || space > 100.0 + 1e-6 || zones.iter().any(|z| z.space_pct <= 0.0) {
                return Err("zones need a share of the span each, adding up to 100 at most".into());
            }
            return zoned_io(&mut zones.iter().map(|z| z.io_pct));
        }
        Distribution::ZonedAbs { zones } => {
            if zones.is_empty() || zones.iter().any(|z| z.size_bytes == 0) {
                return Err("zones need a size each".into());
            }
            return zoned_io(&mut zones.iter().map(|z| z.io_pct));
        }
        _ => {}
    }
    match *d {
        Distribution::Uniform => Ok(()),
        Distribution::Zipf { theta } if theta <= 0.0 || theta == 1.0 || theta > 100.0 || theta.is_nan() => {
            Err("zipf theta must be > 0 and not 1 (fio's rule), e.g. zipf:1.2".into())
        }
        Distribution::Pareto { h } if h.is_nan() || h <= 0.0 || h >= 1.0 => {
            Err("pareto h must be between 0 and 1, e.g. pareto:0.9".into())
        }
        Distribution::Hotspot { io_pct, space_pct }
            if !((0.0..=100.0).contains(&io_pct) && space_pct > 0.0 && space_pct < 100.0) =>
        {
            Err("percentages must be within 0..100 (space strictly)".into())
        }
        _ => Ok(()),
    }
}

pub(super) fn parse_fill(key: &str, v: &str) -> Result<Fill, SpecError> {
    let lower = v.trim().to_ascii_lowercase();
    match lower.split_once(':') {
        None if lower == "random" => Ok(Fill::Random),
        None if lower == "zero" => Ok(Fill::Zero),
        Some(("compressible", pct)) => {
            let pct = count(key, pct, 0, 100)? as u8;
            Ok(Fill::Compressible { pct })
        }
        _ => Err(invalid(key, v, "expected random, zero or compressible:PCT")),
    }
}

impl Job {
    /// Checks that hold between keys, after every key is set.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.check_scope()?;
        // Names reach thread names and C strings, where a NUL cannot go.
        if self.name.contains('\0') {
            return Err(invalid(
                "name",
                &self.name.escape_debug().to_string(),
                "contains a NUL character",
            ));
        }
        if let Some(target) = &self.target {
            let shown = target.to_string_lossy();
            if let Some(p) = super::placeholder::find(&shown) {
                return Err(invalid(
                    "target",
                    &shown.escape_debug().to_string(),
                    format!(
                        "{p} is a placeholder, not a name: put the device or file to test in its place \
                         (kura creates and writes nothing named after a placeholder)"
                    ),
                ));
            }
        }
        // A runtime may cap an amount of I/O (whichever comes first, as fio
        // does without time_based); two amounts would contradict each other.
        let amounts = [
            self.io_size_bytes.is_some(),
            self.io_count.is_some(),
            self.passes.is_some(),
        ];
        if amounts.iter().filter(|s| **s).count() > 1 {
            return Err(invalid(
                "io_size",
                &self.io_size_bytes.map(format_size).unwrap_or_default(),
                "give only one of io_size, io_count and passes (runtime may cap any of them)",
            ));
        }
        if let Some(size) = self.size_bytes {
            let bs = self.max_bs();
            if bs > size {
                return Err(invalid(
                    "bs",
                    &format_size(bs),
                    format!("larger than size {}", format_size(size)),
                ));
            }
        }
        super::latency::validate(self)?;
        // fio reads the empty file it created and fails (EIO, "full resid").
        if self.create_on_open && self.does_reads() {
            return Err(invalid(
                "create_on_open",
                "true",
                "leaves a new test file empty, and a job that reads it reads nothing (fio fails with EIO); use it with write jobs",
            ));
        }
        // Zones start at multiples of range + skip: direct I/O needs them on sectors.
        if let Some((_, range, skip)) = self.zones() {
            if !range.is_multiple_of(512) || !skip.is_multiple_of(512) {
                return Err(invalid(
                    "zone_range",
                    &format_size(range),
                    "zone_range and zone_skip must be multiples of 512 bytes",
                ));
            }
            if range < self.max_bs() {
                return Err(invalid(
                    "zone_range",
                    &format_size(range),
                    format!("smaller than the block size {}", format_size(self.max_bs())),
                ));
            }
        }
        if self.steady_stop.is_some() && self.steady_window_ns == 0 {
            return Err(invalid(
                "steady_window",
                "0s",
                "steady_stop judges a window: give steady_window (fio's ss_dur)",
            ));
        }
        // One offset modifier, as fio's `rw=read:N` has one.
        if self.gap_bytes > 0 && self.step_back_bytes > 0 {
            return Err(invalid(
                "step_back",
                &format_size(self.step_back_bytes),
                "cannot be used with gap: give one of them",
            ));
        }
        // A trimmed block reads back as zeros or as it was: nothing to verify.
        if self.verify && self.does_trims() {
            return Err(invalid(
                "rw",
                self.rw.name(),
                "cannot be used with verify (a trimmed block's contents are the device's choice)",
            ));
        }
        // Verified blocks carry unique headers; a repeated block would not.
        if self.verify && self.dedupe_pct > 0 {
            return Err(invalid(
                "dedupe_pct",
                &self.dedupe_pct.to_string(),
                "cannot be used with verify",
            ));
        }
        Ok(())
    }

    /// Bytes one pass over a span of `span` bytes moves: all of it, less the
    /// holes a sequential `gap` leaves.
    pub fn pass_bytes(&self, span: u64) -> u64 {
        // Strided zones: `zone_size` of each zone, zones every range + skip;
        // a last zone cut short by the span's end gives what it holds, where
        // fio's pass ends (io_u.c get_next_seq_offset past the file's end).
        if let Some((size, range, skip)) = self.zones() {
            let step = range + skip;
            let zones = span.div_ceil(step).max(1);
            let last = span.saturating_sub((zones - 1) * step);
            let last = if size <= range { size.min(last) } else { size };
            return (zones - 1).saturating_mul(size).saturating_add(last);
        }
        // trimwrite: a pass trims the span and writes it, as fio's `size` does.
        if matches!(self.rw, Rw::TrimWrite | Rw::RandTrimWrite) {
            let rw = if self.rw.is_random() {
                Rw::RandTrim
            } else {
                Rw::Trim
            };
            let trims = Job { rw, ..self.clone() }.pass_bytes(span);
            return trims.saturating_mul(2);
        }
        if self.gap_bytes == 0 || self.rw.is_random() {
            return span;
        }
        let weights: u64 = self.bs.iter().map(|b| u64::from(b.weight)).sum();
        let moved: u64 = self.bs.iter().map(|b| b.bytes * u64::from(b.weight)).sum();
        let mean = (moved / weights.max(1)).max(1);
        // Whole I/Os only, as the generator issues them.
        (span / (mean + self.gap_bytes)).max(1) * mean
    }

    /// The mean bytes of one I/O: each direction's split by its weights,
    /// the directions by the read share.
    pub fn mean_io_bytes(&self) -> f64 {
        let mean = |bs: &[BlockSize]| {
            let weights: f64 = bs.iter().map(|b| f64::from(b.weight)).sum();
            bs.iter()
                .map(|b| b.bytes as f64 * f64::from(b.weight))
                .sum::<f64>()
                / weights.max(1.0)
        };
        let reads = mean(&self.bs);
        let writes = self.bs_write.as_deref().map_or(reads, mean);
        let share = f64::from(self.effective_read_pct()) / 100.0;
        reads * share + writes * (1.0 - share)
    }

    /// The job's offered I/Os per second when it is paced: `rate_iops`, or
    /// `rate` over the mean I/O (fractional: fio's `rate=1250` of 4 KiB
    /// blocks is 0.3 per second), whichever is lower.
    pub fn pace_iops(&self) -> Option<f64> {
        let bytes = self
            .rate_bytes_per_sec
            .map(|b| b as f64 / self.mean_io_bytes().max(1.0));
        match (self.rate_iops.map(|r| r as f64), bytes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// fio's strided zones: bytes moved in each zone, its length, the
    /// bytes skipped after it; `None` without zones.
    pub fn zones(&self) -> Option<(u64, u64, u64)> {
        (self.zone_size_bytes > 0).then(|| {
            let range = match self.zone_range_bytes {
                0 => self.zone_size_bytes,
                r => r,
            };
            (self.zone_size_bytes, range, self.zone_skip_bytes)
        })
    }

    /// The largest block size of the split: buffers are allocated at this size.
    pub fn max_bs(&self) -> u64 {
        self.all_bs().map(|b| b.bytes).max().unwrap_or(4096)
    }

    /// Every block size the job issues, reads' and (with `bs_write`) writes'.
    pub fn all_bs(&self) -> impl Iterator<Item = &BlockSize> {
        self.bs.iter().chain(self.bs_write.iter().flatten())
    }

    pub fn does_reads(&self) -> bool {
        match self.rw {
            Rw::Read | Rw::RandRead => true,
            Rw::Write | Rw::RandWrite => false,
            Rw::Rw | Rw::RandRw => self.read_pct > 0,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => false,
        }
    }

    /// Whether the job's threads fdatasync every so many writes: a period
    /// with no I/O may be one sync's wait, not a stall.
    pub fn syncs_periodically(&self) -> bool {
        self.fsync_every.is_some()
    }

    pub fn does_writes(&self) -> bool {
        match self.rw {
            Rw::Read | Rw::RandRead => false,
            Rw::Write | Rw::RandWrite => true,
            Rw::Rw | Rw::RandRw => self.read_pct < 100,
            Rw::Trim | Rw::RandTrim => false,
            Rw::TrimWrite | Rw::RandTrimWrite => true,
        }
    }

    /// Trims (fio's `rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`).
    pub fn does_trims(&self) -> bool {
        self.rw.trims()
    }

    /// Writes or trims: the target's data changes, and the safety checks of writes apply.
    pub fn modifies(&self) -> bool {
        self.does_writes() || self.does_trims()
    }

    /// The share of reads this job issues, 0..=100, whatever `rw` says.
    pub fn effective_read_pct(&self) -> u8 {
        match self.rw {
            Rw::Read | Rw::RandRead => 100,
            Rw::Write | Rw::RandWrite => 0,
            Rw::Rw | Rw::RandRw => self.read_pct,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => 0,
        }
    }

    pub fn bs_text(&self) -> String {
        match &self.bs_write {
            // Reads', then writes', as fio's `bs=R,W`.
            Some(w) if *w != self.bs => format!("{},{}", block_sizes_text(&self.bs), block_sizes_text(w)),
            _ => block_sizes_text(&self.bs),
        }
    }

    /// A one-line description of what the job does, by its kind: `randread 4k qd32 x1`.
    pub fn summary(&self) -> String {
        self.workload.kind().summary(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's `bs=4k,64k` (reads, writes) typed as a flag is no size: the
    /// error says where each of its meanings lives in kura.
    #[test]
    fn a_comma_in_a_block_size_points_at_bs_write_and_sweep() {
        let why = parse_block_sizes("bs", "4k,64k").unwrap_err().to_string();
        assert!(why.contains("--bs-write") && why.contains("kura sweep"), "{why}");
        assert_eq!(parse_block_sizes("bs", "4k/60:64k/40").unwrap().len(), 2);
    }

    #[test]
    fn every_key_is_settable() {
        let mut job = Job::default();
        // A database option needs a database job, which only the suite
        // makes: options::tests sets those on one.
        let not_db =
            |d: &&super::super::options::OptionDef| d.scope != super::super::options::Scope::Database;
        for d in super::super::options::OPTIONS.iter().filter(not_db) {
            job.set(d.key, d.example)
                .unwrap_or_else(|e| panic!("{}={}: {e}", d.key, d.example));
        }
        assert_eq!(
            job.bs,
            vec![
                BlockSize {
                    bytes: 4096,
                    weight: 60
                },
                BlockSize {
                    bytes: 65536,
                    weight: 40
                }
            ]
        );
        assert_eq!(job.distribution, Distribution::Zipf { theta: 1.2 });
        assert_eq!(job.fill, Fill::Compressible { pct: 50 });
        assert!(!job.direct);
        assert_eq!(job.seed, Some(42));
    }

    #[test]
    fn buffered_jobs_run_on_sync_unless_an_engine_is_named() {
        assert_eq!(EngineKind::Auto.for_io(true), EngineKind::IoUring);
        assert_eq!(EngineKind::Auto.for_io(false), EngineKind::Sync);
        assert_eq!(EngineKind::IoUring.for_io(false), EngineKind::IoUring);
        assert_eq!(EngineKind::Null.for_io(false), EngineKind::Null);
        assert_eq!(Job::default().engine, EngineKind::Auto);
    }

    #[test]
    fn bad_values_name_the_key() {
        let mut job = Job::default();
        for (k, v) in [
            ("qd", "0"),
            ("qd", "100000"),
            ("threads", "0"),
            ("rw", "sideways"),
            ("bs", "4q"),
            ("bs", "0"),
            ("read_pct", "150"),
            ("distribution", "zipf:x"),
            ("distribution", "pareto:2"),
            ("engine", "libaio"),
            ("fill", "compressible:200"),
            ("size", "0"),
        ] {
            let err = job.set(k, v).unwrap_err().to_string();
            assert!(err.starts_with(k), "{err}");
        }
        assert_eq!(job.set("bogus", "1"), Err(SpecError::UnknownKey("bogus".into())));
    }

    /// Jobs stored before `gap` existed read as jobs without holes.
    #[test]
    fn a_job_stored_without_the_newer_keys_still_reads() {
        let mut v = serde_json::to_value(Job::default()).unwrap();
        let map = v.as_object_mut().unwrap();
        for newer in ["gap_bytes", "seed", "random_pct", "align", "passes"] {
            map.remove(newer);
        }
        let job: Job = serde_json::from_value(v).unwrap();
        assert_eq!(job, Job::default());
    }

    #[test]
    fn a_pass_with_gaps_moves_the_blocks_between_the_holes() {
        let mut job = Job::default();
        job.set("rw", "write").unwrap();
        assert_eq!(job.pass_bytes(1 << 20), 1 << 20);
        job.set("bs", "8k").unwrap();
        job.set("gap", "8k").unwrap();
        assert_eq!(job.pass_bytes(1 << 20), 512 << 10);
    }

    #[test]
    fn only_one_amount_but_runtime_may_cap_it() {
        let mut job = Job::default();
        job.set("runtime", "1s").unwrap();
        job.set("io_count", "5").unwrap();
        assert!(job.validate().is_ok());
        job.set("io_size", "1m").unwrap();
        assert!(job.validate().is_err());
    }
}
