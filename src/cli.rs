//! The command line: clap definitions, the one source of `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "kura",
    version,
    about = "Storage benchmarks with honest numbers: run, store, compare."
)]
pub struct Cli {
    /// SQLite database of runs [default: $XDG_DATA_HOME/kura/kura.db]
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Print only JSON on stdout (bytes, nanoseconds, operations; see docs/json.md)
    #[arg(long, global = true)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long, short, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one workload from flags, or the jobs of a job file (kura TOML, fio or vdbench)
    Run(Box<RunArgs>),
    /// Print the jobs a job file translates to, without running them
    Explain(ExplainArgs),
    /// CrystalDiskMark: the standard read/write grid on a test file or device
    Mark(MarkArgs),
    /// List stored runs, newest first
    History(HistoryArgs),
    /// Print a stored run as `run` printed it
    Show(ShowArgs),
    /// Set the label or price of a stored run
    Label(LabelArgs),
}

/// Job keys as flags; each is the TOML key of the same name (`--read-pct` = `read_pct`).
#[derive(Debug, Args, Default)]
pub struct JobFlags {
    /// File or block device [default: ./kura-test.dat]
    #[arg(long, value_name = "PATH")]
    pub target: Option<String>,
    /// read, write, randread, randwrite, rw, randrw [default: randread]
    #[arg(long)]
    pub rw: Option<String>,
    /// Block size, or a split like 4k/60:64k/40 [default: 4k]
    #[arg(long)]
    pub bs: Option<String>,
    /// Share of reads in rw/randrw, 0-100 [default: 50]
    #[arg(long = "read-pct", alias = "read_pct", value_name = "PCT")]
    pub read_pct: Option<String>,
    /// Queue depth per thread [default: 1]
    #[arg(long)]
    pub qd: Option<String>,
    /// Worker threads, each with its own queue [default: 1]
    #[arg(long)]
    pub threads: Option<String>,
    /// Test-file size, or the span of a device to use [default: 1g for a new file, the whole device]
    #[arg(long)]
    pub size: Option<String>,
    /// Where the span starts [default: 0]
    #[arg(long)]
    pub offset: Option<String>,
    /// How long to measure, e.g. 30s, 5m [default: 10s unless io_size or io_count]
    #[arg(long)]
    pub runtime: Option<String>,
    /// Stop after this many bytes
    #[arg(long = "io-size", alias = "io_size")]
    pub io_size: Option<String>,
    /// Stop after this many I/Os
    #[arg(long = "io-count", alias = "io_count")]
    pub io_count: Option<String>,
    /// Run this long before measuring
    #[arg(long)]
    pub ramp: Option<String>,
    /// O_DIRECT, bypassing the page cache (the default)
    #[arg(long, conflicts_with = "buffered")]
    pub direct: bool,
    /// Through the page cache
    #[arg(long)]
    pub buffered: bool,
    /// Buffered runs: keep the target's cached pages instead of dropping them first
    #[arg(long = "keep-cache", alias = "keep_cache")]
    pub keep_cache: bool,
    /// io_uring, sync or null [default: io_uring]
    #[arg(long)]
    pub engine: Option<String>,
    /// uniform, zipf:THETA, pareto:H, hotspot:PCT_IO/PCT_SPACE [default: uniform]
    #[arg(long)]
    pub distribution: Option<String>,
    /// Cap on I/Os per second for the whole job
    #[arg(long = "rate-iops", alias = "rate_iops")]
    pub rate_iops: Option<String>,
    /// fdatasync after every N writes per thread
    #[arg(long = "fsync-every", alias = "fsync_every", value_name = "N")]
    pub fsync_every: Option<String>,
    /// random, zero or compressible:PCT [default: random]
    #[arg(long)]
    pub fill: Option<String>,
    /// Period of the IOPS/latency series [default: 1s]
    #[arg(long)]
    pub interval: Option<String>,
    /// Job name [default: job]
    #[arg(long)]
    pub name: Option<String>,
}

impl JobFlags {
    /// The flags the user gave, as (job key, value).
    pub fn given(&self) -> Vec<(&'static str, String)> {
        let text = [
            ("name", &self.name),
            ("target", &self.target),
            ("rw", &self.rw),
            ("bs", &self.bs),
            ("read_pct", &self.read_pct),
            ("qd", &self.qd),
            ("threads", &self.threads),
            ("size", &self.size),
            ("offset", &self.offset),
            ("runtime", &self.runtime),
            ("io_size", &self.io_size),
            ("io_count", &self.io_count),
            ("ramp", &self.ramp),
            ("engine", &self.engine),
            ("distribution", &self.distribution),
            ("rate_iops", &self.rate_iops),
            ("fsync_every", &self.fsync_every),
            ("fill", &self.fill),
            ("interval", &self.interval),
        ];
        let mut out: Vec<(&'static str, String)> = text
            .into_iter()
            .filter_map(|(k, v)| v.clone().map(|v| (k, v)))
            .collect();
        for (key, on) in [
            ("direct", self.direct),
            ("buffered", self.buffered),
            ("keep_cache", self.keep_cache),
        ] {
            if on {
                out.push((key, "true".to_string()));
            }
        }
        out
    }
}

/// Options every measuring verb shares.
#[derive(Debug, Args, Default)]
pub struct RunCommon {
    /// Name the run, e.g. "Standard SSD E10"
    #[arg(long)]
    pub label: Option<String>,
    /// Price of the target, e.g. "1075.20 JPY/month"
    #[arg(long)]
    pub price: Option<String>,
    /// Keep test files kura created
    #[arg(long)]
    pub keep: bool,
    /// Allow writing to this device although it carries data (a file system or partition table)
    #[arg(long = "allow-destroy", value_name = "DEVICE")]
    pub allow_destroy: Option<PathBuf>,
}

/// How to read a job file (docs/formats.md).
#[derive(Debug, Args, Default)]
pub struct JobFileArgs {
    /// toml, fio or vdbench [default: told from the file's name and text]
    #[arg(long, value_name = "FORMAT", requires = "job_file")]
    pub format: Option<String>,
    /// fio: turn unknown and unsupported options into listed warnings instead of errors
    #[arg(long, requires = "job_file")]
    pub lenient: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A kura TOML job file, fio job file or vdbench parameter file
    pub job_file: PathBuf,
    #[command(flatten)]
    pub file: JobFileArgs,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A job file: kura TOML (docs/jobs.md), fio or vdbench (docs/formats.md); without it the flags describe one job
    pub job_file: Option<PathBuf>,
    #[command(flatten)]
    pub file: JobFileArgs,
    #[command(flatten)]
    pub job: JobFlags,
    #[command(flatten)]
    pub common: RunCommon,
}

#[derive(Debug, Args)]
pub struct MarkArgs {
    /// File or block device [default: ./kura-test.dat]
    pub target: Option<String>,
    /// default, nvme, peak, realworld or cdm5
    #[arg(long, default_value = "default")]
    pub profile: String,
    /// Repetitions of each test; the best is reported, as CrystalDiskMark does
    #[arg(long, default_value = "5")]
    pub runs: String,
    /// Test-file size
    #[arg(long, default_value = "1g")]
    pub size: String,
    /// Measuring time of each repetition
    #[arg(long, default_value = "5s")]
    pub runtime: String,
    /// Pause between repetitions
    #[arg(long, default_value = "0s")]
    pub interval: String,
    /// mbps (MB/s), iops or us (mean latency)
    #[arg(long, default_value = "mbps")]
    pub unit: String,
    /// Engine: io_uring, sync or null
    #[arg(long, default_value = "io_uring")]
    pub engine: String,
    #[command(flatten)]
    pub common: RunCommon,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only runs with this label
    #[arg(long)]
    pub label: Option<String>,
    /// Only runs of this suite (mark, ...)
    #[arg(long)]
    pub suite: Option<String>,
    /// At most this many runs
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id, label, or `latest`
    pub run: String,
    /// With a label shared by several runs, take the newest
    #[arg(long)]
    pub latest: bool,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    /// Run id, label, or `latest`
    pub run: String,
    /// The new label
    pub label: Option<String>,
    /// Price, e.g. "1075.20 JPY/month"
    #[arg(long)]
    pub price: Option<String>,
}
