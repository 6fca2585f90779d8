//! What a reader of a run should know before trusting its numbers, as typed
//! values stored with the run. Each warning's text says what happened and
//! what to do about it (as hyperfine's `Warnings` does); the producers
//! (runner, target caveats, repetition statistics, the store, importers)
//! only fill in the facts.
//!
//! Stored and printed as JSON objects: a stable `kind`, the facts, and the
//! rendered `text`, so a reader that does not know a kind still shows the
//! text. Runs stored before warnings were typed hold plain strings; those,
//! and objects of kinds this kura does not know, load as `Other`.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Warning {
    /// The kernel refused io_uring; the job ran on the sync engine.
    IoUringUnavailable { why: String },
    /// A buffered job with no engine named ran on the sync engine at qd 1.
    BufferedOnSyncEngine { job: String, qd: u32 },
    /// The sync engine keeps one I/O in flight: the asked queue depth ran as 1.
    SyncEngineQueueDepth { job: String, qd: u32 },
    /// Buffered I/O on less data than the machine's RAM.
    PageCacheHoldsData { data_mb: u64, memory_mb: u64 },
    /// keep_cache asked together with O_DIRECT.
    KeepCacheWithDirect,
    /// The target's file system keeps its files in memory.
    MemoryFileSystem {
        path: String,
        fs_type: String,
        direct: bool,
    },
    /// Reads of holes come from memory; `loop_device` when the sparse file backs one.
    SparseFile {
        path: String,
        loop_device: Option<String>,
        allocated_mb: u64,
        data_mb: u64,
    },
    /// A loop device whose backing file is in memory.
    LoopOverMemory {
        path: String,
        backing: String,
        fs_type: String,
    },
    /// A block device that is RAM: zram, or brd's /dev/ramN.
    MemoryBlockDevice { path: String, device: String },
    /// A compressible fill on a compressing file system.
    CompressedFill {
        path: String,
        fill: String,
        fs_type: String,
        option: String,
    },
    /// Reads of freshly written data that a host's write-back cache can serve.
    HostWriteBackCache {
        path: String,
        size_mb: u64,
        disk: String,
    },
    /// Some (not all) workers of a job failed; the others' numbers are kept.
    WorkerStopped { job: String, error: String },
    /// I/O that failed; the first error as a sample.
    IoErrors {
        job: String,
        direction: String,
        count: u64,
        first_error: String,
        offset_bytes: u64,
    },
    /// Short transfers, completed by resubmitting the rest.
    ShortTransfers {
        job: String,
        direction: String,
        count: u64,
    },
    /// The job's I/Os stalled, for the reasons given.
    Stalled { job: String, reasons: Vec<String> },
    /// Repetitions of one test disagree by more than the tolerated spread.
    RepeatsDisagree {
        test: String,
        /// `read` or `write`; none when the test has one figure.
        direction: Option<String>,
        runs: u32,
        spread_pct: f64,
        min: f64,
        max: f64,
        unit: String,
    },
    /// A job of a file's curve was below the lowest rate and did not run.
    CurvePointSkipped {
        job: String,
        pct: f64,
        max_iops: f64,
        min_iops: u64,
    },
    /// A test file kura created could not be removed.
    TestFileNotRemoved { error: String },
    /// A job failed after others had run; the run stops, what ran is stored.
    StoppedAfterFailure { error: String },
    /// kura stopped before storing the run's end.
    RunUnfinished { finished_jobs: u64 },
    /// A stored job of an unfinished run does not parse; the others show.
    StoredJobUnreadable { index: u64, error: String },
    /// A job was measuring when kura stopped; only its series was stored.
    JobUnfinished { job: String, periods: u64 },
    /// The job's series would have held more periods than a job keeps
    /// (`collect::MAX_PERIODS`): adjacent periods were merged, each stored
    /// period spans `period_ns`, a multiple of the job's interval.
    SeriesCoarsened {
        job: String,
        interval_ns: u64,
        period_ns: u64,
        periods: u64,
    },
    /// A note from reading the job file.
    JobFile { note: String },
    /// A note from importing another tool's results.
    Imported { note: String },
    /// What one of fio's flags given to `kura run` means in kura.
    FioFlag { note: String },
    /// fio's steady-state stop: when the job's figures held the rule, if they did.
    SteadyStop {
        job: String,
        rule: String,
        attained_ns: Option<u64>,
    },
    // Caches and verify.
    /// Buffered I/O on less data than the job's memory limit.
    PageCacheHoldsDataUnderLimit { data_mb: u64, limit_mb: u64 },
    /// Every block verify checked matched.
    VerifyPassed { job: String, blocks: u64 },
    /// Blocks that did not hold what was written: each with its offset, what was expected and found.
    VerifyFailed {
        job: String,
        count: u64,
        blocks: u64,
        mismatches: Vec<VerifyMismatch>,
    },
    /// The read-back after the writes could not be done in full.
    VerifyIncomplete { job: String, error: String },
    /// Verify read no block it could check: nothing is known of the data.
    VerifyCheckedNothing { job: String },
    /// The verify journal could not be updated after a flush.
    JournalNotWritten { job: String, error: String },
    /// `max_errors` stopped the job.
    MaxErrorsReached { job: String, errors: u64, max: u64 },
    /// Most sampled blocks of the span read as zeros.
    ReadsOfZeros {
        path: String,
        zero_blocks: u64,
        sampled: u64,
    },
    /// A write job's fill compresses or deduplicates well.
    CompressibleData { path: String, fill: String },
    /// The target's file system keeps data behind a cache kura cannot drop.
    UnreachableCache {
        path: String,
        fs_type: String,
        why: String,
    },
    /// kura runs in a container.
    InContainer { runtime: String },
    /// More bytes per second than the device's link carries.
    AboveInterface {
        job: String,
        path: String,
        device: String,
        mb_per_s: u64,
        interface: String,
        limit_mb_per_s: u64,
    },
    /// The job's writes were taken faster than the device wrote them: the
    /// flush right after the job took a large share of the job's own time.
    WritesAheadOfDevice {
        job: String,
        path: String,
        mb_per_s: u64,
        /// The bytes written over the job's time plus the flush's.
        durable_mb_per_s: u64,
        flush_ms: u64,
    },
    /// Direct writes onto a virtual disk whose host caches writes, with
    /// nothing left for the flush after the job: the host may have taken
    /// them into its memory, which the guest cannot tell from its device.
    HostWriteBackWrites { path: String, disk: String },
    /// The device counters say the job's reads never reached the
    /// lowest device under the target: a cache (the page cache, or the
    /// host's page cache under a loop device's backing file) answered them.
    ReadsNotOnDevice {
        job: String,
        /// Bytes kura read.
        read_bytes: u64,
        /// The lowest device (or devices, comma-separated).
        device: String,
        /// The devices it is under, from the nearest up to the target.
        holders: Vec<String>,
        /// Bytes the lowest device read meanwhile (anyone's).
        device_read_bytes: u64,
    },
    /// Any other text: warnings stored before they were typed, kinds this
    /// kura does not know, and producers that have no kind yet.
    Other { text: String },
    // File sets.
    /// Operations of a file-set mix found no file (or directory) in the state they need.
    FileOpsSkipped { job: String, count: u64 },
    // Long runs: what a job's interval series showed (metrics::changes).
    /// A sustained step or cliff; `start_unix_ms` dates it.
    SeriesStep {
        job: String,
        step: super::changes::Step,
        start_unix_ms: u64,
    },
    /// A slow change over the whole series, with no single step.
    SeriesDrift {
        job: String,
        drift: super::changes::Drift,
    },
    /// Periods whose p99 latency exceeded a multiple of the median p99.
    LatencySpikes {
        job: String,
        spikes: super::changes::Spikes,
        start_unix_ms: u64,
    },
    /// A figure of a job's series that moved between levels many times.
    SeriesUnsteady {
        job: String,
        unsteady: super::changes::Unsteady,
    },
    /// The rounds of a job run until steady (metrics::steady), and the verdict.
    Rounds {
        job: String,
        rounds: super::steady::Rounds,
    },
    /// The run is still being measured by this kura process (stored with an
    /// unfinished run; shown only while that process lives).
    Measuring { pid: u32, boot_id: String },
    /// `kura suite db`: the database never outgrew RAM, so its reads came from memory.
    DatabaseInMemory { data_mb: u64, memory_mb: u64 },
    /// `kura suite pts`: the purge that ran before a test, or none (a file cannot be purged).
    PtsPurge {
        test: String,
        method: Option<String>,
        /// The span purged when `--size` made it less than the device
        /// (none: the whole device, and runs stored before it was said).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        span_bytes: Option<u64>,
    },
    /// `kura suite pts --scale` below 1: round time and volumes shrunk, not the spec's.
    PtsNotConforming { scale: f64 },
    /// `kura suite pts` on a device whose volatile write cache is on (the
    /// kernel's `queue/write_cache`): PTS-E asks for it off, PTS-C on.
    PtsWriteCache { device: String, state: String },
    // mark and sweep: a part of a spinning disk is not the disk.
    /// A rotational device measured on a small part of it: short seeks.
    ShortSpanOnRotational {
        path: String,
        span_mb: u64,
        device_mb: u64,
    },
    // fio's rate_min / rate_iops_min (jobs/rate_min.rs).
    /// A thread fell below the job's minimum rate and stopped; the run fails, as fio's job does.
    BelowMinRate { job: String, thread: u32, what: String },
    // bonnie++'s page-cache warning, typed so it shows in the reader's language.
    /// bonnie++'s test file is smaller than the memory kura may use: the page cache can hold it.
    BonnieFileCached { size_mb: u64, memory_mb: u64 },
    // `suite db`'s notes, typed so they show in the reader's language.
    /// `suite db --mem-limit`: the database never outgrew the limit, so its reads may have come from memory.
    DatabaseUnderMemLimit { data_mb: u64, limit_mb: u64 },
    /// OLTP transactions that met a deadlock or a duplicate key, rolled back and run again.
    OltpRetried { job: String, count: u64 },
    /// A buffered sequential read's files held cached pages in `runs`
    /// separate places (a random write before it, a memory cap): readahead
    /// reads the gaps between them, `gap_bytes` on average, on their own.
    ScatteredCache {
        job: String,
        files: u64,
        cached_pages: u64,
        runs: u64,
        gap_bytes: u64,
        readahead_bytes: u64,
    },
    // What a job's own totals say of its figures (`of_job`).
    /// Jobs (a suite's tests) measured for less than `MIN_MEASURED_NS`:
    /// bonnie++'s rule for its +++++, for every kind. One warning a run,
    /// naming each job; `measured_ns` is the shortest.
    TooShort {
        jobs: Vec<String>,
        measured_ns: u64,
        min_ns: u64,
    },
    /// A direction whose p99 latency is more than `TAIL_RATIO` times its mean.
    LatencyTail {
        job: String,
        direction: String,
        mean_ns: f64,
        p99_ns: u64,
    },
}

/// A job measured for less than this gets `TooShort`: bonnie++ prints
/// +++++ for a test under 0.5 s, too short to trust (a device's or a
/// throttle's burst, the page cache's first fill, a timer's granularity
/// weigh in a fraction of a second), and kura says so for every kind.
pub const MIN_MEASURED_NS: u64 = 500_000_000;

/// A p99 latency above this multiple of the mean gets `LatencyTail`. For
/// the sojourn time of an M/M/1 queue (exponential) p99 is ln(100) = 4.6
/// times the mean, the tail of a device that only queues; above 10 times,
/// a few operations waited far longer than queueing explains: stalls near
/// a limit (a throttle's or a device's), garbage collection, retries.
pub const TAIL_RATIO: f64 = 10.0;

/// A p99 of fewer operations than this is a handful of them: not judged.
const TAIL_MIN_OPS: u64 = 100;

/// A p99 under this is not judged: a page cache's microseconds have a
/// tail of the scheduler's and the CPU's (a thread that lost its core for
/// a time slice), not of the storage's.
const TAIL_MIN_P99_NS: u64 = 1_000_000;

/// What a job's own totals and series say of its figures, as the warnings
/// stored with its run: too short, a latency tail, and what its series
/// showed (`changes::warnings`).
pub fn of_job(result: &super::JobResult) -> Vec<Warning> {
    let mut out = Vec::new();
    let job = &result.job.name;
    if result.total_ops() > 0 && result.elapsed_ns < MIN_MEASURED_NS {
        out.push(Warning::TooShort {
            jobs: vec![job.clone()],
            measured_ns: result.elapsed_ns,
            min_ns: MIN_MEASURED_NS,
        });
    }
    for (name, d) in result.directions() {
        let p99 = d
            .lat_ns
            .percentiles
            .get(&super::histogram::percentile_key(99.0))
            .copied();
        if let Some(p99) = p99
            && d.ops >= TAIL_MIN_OPS
            && p99 >= TAIL_MIN_P99_NS
            && d.lat_ns.mean > 0.0
            && p99 as f64 > TAIL_RATIO * d.lat_ns.mean
        {
            out.push(Warning::LatencyTail {
                job: job.clone(),
                direction: name.to_string(),
                mean_ns: d.lat_ns.mean,
                p99_ns: p99,
            });
        }
    }
    out.extend(super::changes::warnings(result));
    out
}

/// One block verify found wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyMismatch {
    pub offset_bytes: u64,
    /// What differed: header, offset, run tag, sequence, checksum, block length.
    pub field: String,
    pub expected: String,
    pub found: String,
}

impl fmt::Display for VerifyMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::t!(
            "warning-verify-mismatch",
            offset_bytes = self.offset_bytes.to_string(),
            field = self.field.as_str(),
            expected = self.expected.as_str(),
            found = self.found.as_str()
        ))
    }
}

/// Mismatches a warning's text lists; all of them are in its JSON.
const MISMATCHES_SHOWN: usize = 5;

impl Warning {
    /// Whether the warning says the numbers may not be the device's (a cache,
    /// memory, holes, compression): what `compare` repeats beside a target.
    pub fn is_data_source(&self) -> bool {
        matches!(
            self,
            Warning::PageCacheHoldsData { .. }
                | Warning::PageCacheHoldsDataUnderLimit { .. }
                | Warning::MemoryFileSystem { .. }
                | Warning::SparseFile { .. }
                | Warning::LoopOverMemory { .. }
                | Warning::MemoryBlockDevice { .. }
                | Warning::CompressedFill { .. }
                | Warning::HostWriteBackCache { .. }
                | Warning::ReadsOfZeros { .. }
                | Warning::CompressibleData { .. }
                | Warning::UnreachableCache { .. }
                | Warning::InContainer { .. }
                | Warning::AboveInterface { .. }
                | Warning::WritesAheadOfDevice { .. }
                | Warning::HostWriteBackWrites { .. }
                | Warning::ReadsNotOnDevice { .. }
                | Warning::BonnieFileCached { .. }
                | Warning::DatabaseInMemory { .. }
                | Warning::DatabaseUnderMemLimit { .. }
        )
    }
}

impl Warning {
    /// Why a run with this warning gives no pick in `compare`
    /// (docs/compare.md, "When kura picks"): its numbers are of memory
    /// rather than the target, of a job that stalled or stopped, or of too
    /// little time. `None`: the warning leaves the numbers the target's.
    pub fn voids_a_pick(&self) -> Option<String> {
        let key = match self {
            Warning::PageCacheHoldsData { .. }
            | Warning::PageCacheHoldsDataUnderLimit { .. }
            | Warning::MemoryFileSystem { .. }
            | Warning::SparseFile { .. }
            | Warning::LoopOverMemory { .. }
            | Warning::MemoryBlockDevice { .. }
            | Warning::AboveInterface { .. }
            | Warning::BonnieFileCached { .. }
            | Warning::DatabaseInMemory { .. }
            | Warning::DatabaseUnderMemLimit { .. }
            | Warning::ReadsNotOnDevice { .. } => "pick-void-memory",
            Warning::WritesAheadOfDevice { .. } => "pick-void-writes-ahead",
            Warning::Stalled { .. } => "pick-void-stalled",
            Warning::WorkerStopped { .. }
            | Warning::StoppedAfterFailure { .. }
            | Warning::RunUnfinished { .. }
            | Warning::JobUnfinished { .. } => "pick-void-stopped",
            Warning::IoErrors { .. } => "pick-void-errors",
            Warning::TooShort { .. } => "pick-void-short",
            _ => return None,
        };
        Some(crate::t!(key))
    }

    /// The warning less what differs between instances of one cause: a page
    /// cache that can hold the data is one cause however many jobs' data it
    /// holds (the largest is kept), a file system or a disk one for every
    /// test file in the same directory.
    fn cause(&self) -> Warning {
        let dir = |path: &mut String| {
            let parent = std::path::Path::new(path.as_str())
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            *path = parent;
        };
        let mut c = self.clone();
        match &mut c {
            Warning::PageCacheHoldsData { data_mb, .. }
            | Warning::PageCacheHoldsDataUnderLimit { data_mb, .. }
            | Warning::BonnieFileCached { size_mb: data_mb, .. } => *data_mb = 0,
            Warning::TooShort {
                jobs, measured_ns, ..
            } => {
                jobs.clear();
                *measured_ns = 0;
            }
            Warning::HostWriteBackCache { path, size_mb, .. } => {
                dir(path);
                *size_mb = 0;
            }
            Warning::MemoryFileSystem { path, .. }
            | Warning::UnreachableCache { path, .. }
            | Warning::CompressedFill { path, .. }
            | Warning::CompressibleData { path, .. }
            | Warning::HostWriteBackWrites { path, .. } => dir(path),
            // One device stack under a cache, for every read job of the run
            // (each job's counters stay in its `device_io`).
            Warning::ReadsNotOnDevice {
                job,
                read_bytes,
                device_read_bytes,
                ..
            } => {
                job.clear();
                (*read_bytes, *device_read_bytes) = (0, 0);
            }
            _ => {}
        }
        c
    }
}

/// One warning per cause in a run, in the order first given: a file of 32
/// buffered jobs need not say 32 times that the page cache could hold its
/// data. Of the page cache's, the one with the most data is kept.
pub fn one_per_cause(warnings: Vec<Warning>) -> Vec<Warning> {
    let mut kept: Vec<(Warning, Warning)> = Vec::with_capacity(warnings.len());
    for w in warnings {
        let cause = w.cause();
        match kept.iter_mut().find(|(c, _)| *c == cause) {
            Some((_, first)) => {
                let more = match (&*first, &w) {
                    (
                        Warning::PageCacheHoldsData { data_mb: a, .. },
                        Warning::PageCacheHoldsData { data_mb: b, .. },
                    )
                    | (
                        Warning::PageCacheHoldsDataUnderLimit { data_mb: a, .. },
                        Warning::PageCacheHoldsDataUnderLimit { data_mb: b, .. },
                    ) => b > a,
                    _ => false,
                };
                // Jobs too short are one warning naming each, with the shortest time.
                if let (
                    Warning::TooShort {
                        jobs, measured_ns, ..
                    },
                    Warning::TooShort {
                        jobs: other,
                        measured_ns: ns,
                        ..
                    },
                ) = (&mut *first, &w)
                {
                    jobs.extend(other.iter().cloned());
                    *measured_ns = (*measured_ns).min(*ns);
                }
                if more {
                    *first = w;
                }
            }
            None => kept.push((cause, w)),
        }
    }
    kept.into_iter().map(|(_, w)| w).collect()
}

impl From<String> for Warning {
    fn from(text: String) -> Warning {
        Warning::Other { text }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::t;
        match self {
            Warning::IoUringUnavailable { why } => {
                f.write_str(&t!("warning-io-uring-unavailable", why = why))
            }
            Warning::BufferedOnSyncEngine { job, qd } => {
                f.write_str(&t!("warning-buffered-on-sync-engine", job = job, qd = qd))
            }
            Warning::SyncEngineQueueDepth { job, qd } => {
                f.write_str(&t!("warning-sync-engine-queue-depth", job = job, qd = qd))
            }
            Warning::PageCacheHoldsData { data_mb, memory_mb } => f.write_str(&t!(
                "warning-page-cache-holds-data",
                data_mb = data_mb,
                memory_mb = memory_mb
            )),
            Warning::KeepCacheWithDirect => f.write_str(&t!("warning-keep-cache-with-direct")),
            Warning::MemoryFileSystem {
                path,
                fs_type,
                direct,
            } => {
                let id = if *direct {
                    "warning-memory-file-system-direct"
                } else {
                    "warning-memory-file-system"
                };
                f.write_str(&t!(id, path = path, fs_type = fs_type))
            }
            Warning::SparseFile {
                path,
                loop_device,
                allocated_mb,
                data_mb,
            } => f.write_str(&sparse_file_text(
                path,
                loop_device.as_deref(),
                *allocated_mb,
                *data_mb,
            )),
            Warning::LoopOverMemory {
                path,
                backing,
                fs_type,
            } => f.write_str(&t!(
                "warning-loop-over-memory",
                path = path,
                backing = backing,
                fs_type = fs_type
            )),
            Warning::MemoryBlockDevice { path, device } => {
                f.write_str(&t!("warning-memory-block-device", path = path, device = device))
            }
            Warning::CompressedFill {
                path,
                fill,
                fs_type,
                option,
            } => f.write_str(&t!(
                "warning-compressed-fill",
                fill = fill,
                path = path,
                fs_type = fs_type,
                option = option
            )),
            Warning::HostWriteBackCache { path, size_mb, disk } => f.write_str(&t!(
                "warning-host-write-back-cache",
                path = path,
                size_mb = size_mb,
                disk = disk
            )),
            Warning::WorkerStopped { job, error } => {
                f.write_str(&t!("warning-worker-stopped", job = job, error = error))
            }
            Warning::IoErrors {
                job,
                direction,
                count,
                first_error,
                offset_bytes,
            } => f.write_str(&t!(
                "warning-io-errors",
                job = job,
                count = count,
                direction = crate::i18n::heading(direction),
                first_error = first_error,
                offset_bytes = offset_bytes.to_string()
            )),
            Warning::ShortTransfers {
                job,
                direction,
                count,
            } => f.write_str(&t!(
                "warning-short-transfers",
                job = job,
                count = count,
                direction = crate::i18n::heading(direction)
            )),
            Warning::Stalled { job, reasons } => {
                f.write_str(&t!("warning-stalled", job = job, reasons = reasons.join("; ")))
            }
            Warning::RepeatsDisagree {
                test,
                direction,
                runs,
                spread_pct,
                min,
                max,
                unit,
            } => f.write_str(&t!(
                // A suite's test with read and write figures (mark, sweep)
                // repeats in passes; bonnie's tests, with one figure, in runs.
                if direction.is_some() {
                    "warning-passes-disagree"
                } else {
                    "warning-repeats-disagree"
                },
                test = test,
                dir = direction_suffix(direction.as_deref()),
                runs = runs,
                spread_pct = format!("{spread_pct:.0}"),
                min = format!("{min:.1}"),
                max = format!("{max:.1}"),
                unit = unit
            )),
            Warning::CurvePointSkipped {
                job,
                pct,
                max_iops,
                min_iops,
            } => f.write_str(&t!(
                "warning-curve-point-skipped",
                job = job,
                pct = pct.to_string(),
                max_iops = format!("{max_iops:.0}"),
                min_iops = min_iops
            )),
            Warning::TestFileNotRemoved { error } => {
                f.write_str(&t!("warning-test-file-not-removed", error = error))
            }
            Warning::StoppedAfterFailure { error } => {
                f.write_str(&t!("warning-stopped-after-failure", error = error))
            }
            Warning::RunUnfinished { finished_jobs } => {
                f.write_str(&t!("warning-run-unfinished", finished_jobs = finished_jobs))
            }
            Warning::JobUnfinished { job, periods } => {
                f.write_str(&t!("warning-job-unfinished", job = job, periods = periods))
            }
            Warning::SeriesCoarsened {
                job,
                interval_ns,
                period_ns,
                periods,
            } => {
                let d = |ns: u64| crate::jobs::units::format_duration(std::time::Duration::from_nanos(ns));
                f.write_str(&t!(
                    "warning-series-coarsened",
                    job = job.as_str(),
                    periods = periods,
                    period = d(*period_ns),
                    interval = d(*interval_ns),
                    max = super::collect::MAX_PERIODS as u64
                ))
            }
            Warning::StoredJobUnreadable { index, error } => {
                f.write_str(&t!("warning-stored-job-unreadable", index = index, error = error))
            }
            Warning::JobFile { note } => f.write_str(&t!("warning-job-file", note = note)),
            Warning::Imported { note } => f.write_str(note),
            Warning::FioFlag { note } => f.write_str(&t!("warning-fio-flag", note = note)),
            Warning::SteadyStop {
                job,
                rule,
                attained_ns: Some(ns),
            } => f.write_str(&t!(
                "warning-steady-stop-attained",
                job = job.as_str(),
                rule = rule.as_str(),
                secs = format!("{:.1}", *ns as f64 / 1e9)
            )),
            Warning::SteadyStop {
                job,
                rule,
                attained_ns: None,
            } => f.write_str(&t!(
                "warning-steady-stop-not-attained",
                job = job.as_str(),
                rule = rule.as_str()
            )),
            Warning::PageCacheHoldsDataUnderLimit { data_mb, limit_mb } => f.write_str(&t!(
                "warning-page-cache-holds-data-under-limit",
                data_mb = data_mb,
                limit_mb = limit_mb
            )),
            Warning::VerifyPassed { job, blocks } => {
                f.write_str(&t!("warning-verify-passed", job = job, blocks = blocks))
            }
            Warning::VerifyFailed {
                job,
                count,
                blocks,
                mismatches,
            } => {
                f.write_str(&t!(
                    "warning-verify-failed",
                    job = job,
                    count = count,
                    blocks = blocks
                ))?;
                f.write_str(&mismatches_text(mismatches))
            }
            Warning::VerifyIncomplete { job, error } => {
                f.write_str(&t!("warning-verify-incomplete", job = job, error = error))
            }
            Warning::VerifyCheckedNothing { job } => {
                f.write_str(&t!("warning-verify-checked-nothing", job = job))
            }
            Warning::JournalNotWritten { job, error } => {
                f.write_str(&t!("warning-journal-not-written", job = job, error = error))
            }
            Warning::MaxErrorsReached { job, errors, max } => f.write_str(&t!(
                "warning-max-errors-reached",
                job = job,
                errors = errors,
                max = max
            )),
            Warning::ReadsOfZeros {
                path,
                zero_blocks,
                sampled,
            } => f.write_str(&t!(
                "warning-reads-of-zeros",
                path = path,
                zero_blocks = zero_blocks,
                sampled = sampled
            )),
            Warning::CompressibleData { path, fill } => {
                f.write_str(&t!("warning-compressible-data", fill = fill, path = path))
            }
            Warning::UnreachableCache { path, fs_type, why } => f.write_str(&t!(
                "warning-unreachable-cache",
                path = path,
                fs_type = fs_type,
                why = why
            )),
            Warning::InContainer { runtime } => f.write_str(&t!("warning-in-container", runtime = runtime)),
            Warning::AboveInterface {
                job,
                path,
                device,
                mb_per_s,
                interface,
                limit_mb_per_s,
            } => f.write_str(&t!(
                "warning-above-interface",
                job = job,
                mb_per_s = mb_per_s,
                path = path,
                device = device,
                interface = interface,
                limit_mb_per_s = limit_mb_per_s
            )),
            Warning::WritesAheadOfDevice {
                job,
                path,
                mb_per_s,
                durable_mb_per_s,
                flush_ms,
            } => f.write_str(&t!(
                "warning-writes-ahead-of-device",
                job = job,
                path = path,
                mb_per_s = mb_per_s,
                durable_mb_per_s = durable_mb_per_s,
                flush_s = format!("{:.1}", *flush_ms as f64 / 1000.0)
            )),
            Warning::HostWriteBackWrites { path, disk } => {
                f.write_str(&t!("warning-host-write-back-writes", path = path, disk = disk))
            }
            Warning::ReadsNotOnDevice {
                job,
                read_bytes,
                device,
                holders,
                device_read_bytes,
            } => {
                let human = crate::report::format::bytes_human;
                let key = match holders.is_empty() {
                    true => "warning-reads-not-on-device",
                    false => "warning-reads-not-on-device-under",
                };
                f.write_str(&t!(
                    key,
                    job = job,
                    read = human(*read_bytes),
                    reached = human(*device_read_bytes),
                    device = device,
                    holders = holders.join(", ")
                ))
            }
            Warning::Other { text } => f.write_str(text),
            Warning::FileOpsSkipped { job, count } => {
                f.write_str(&t!("warning-file-ops-skipped", job = job, count = count))
            }
            Warning::SeriesStep {
                job,
                step,
                start_unix_ms,
            } => write!(f, "{job}: {}", super::changes::step_text(step, *start_unix_ms)),
            Warning::SeriesDrift { job, drift } => {
                write!(f, "{job}: {}", super::changes::drift_text(drift))
            }
            Warning::LatencySpikes {
                job,
                spikes,
                start_unix_ms,
            } => write!(
                f,
                "{job}: {}",
                super::changes::spikes_text(spikes, *start_unix_ms)
            ),
            Warning::SeriesUnsteady { job, unsteady } => {
                write!(f, "{job}: {}", super::changes::unsteady_text(unsteady))
            }
            Warning::Rounds { job, rounds } => {
                write!(f, "{job}: {}", super::steady::rounds_text(rounds))
            }
            Warning::Measuring { pid, .. } => f.write_str(&t!("warning-measuring", pid = pid)),
            Warning::PtsPurge {
                test,
                method: Some(m),
                span_bytes: None,
            } => f.write_str(&t!(
                "warning-pts-purge",
                test = test.as_str(),
                method = m.as_str()
            )),
            Warning::PtsPurge {
                test,
                method: Some(m),
                span_bytes: Some(span),
            } => f.write_str(&t!(
                "warning-pts-purge-span",
                test = test.as_str(),
                method = m.as_str(),
                span = crate::jobs::units::format_size(*span)
            )),
            Warning::PtsPurge {
                test, method: None, ..
            } => f.write_str(&t!("warning-pts-no-purge", test = test.as_str())),
            Warning::PtsNotConforming { scale } => {
                f.write_str(&t!("warning-pts-not-conforming", scale = scale_text(*scale)))
            }
            Warning::PtsWriteCache { device, state } => f.write_str(&t!(
                "warning-pts-write-cache",
                device = device.as_str(),
                state = state.as_str()
            )),
            Warning::DatabaseInMemory { data_mb, memory_mb } => f.write_str(&t!(
                "warning-database-in-memory",
                data_mb = data_mb,
                memory_mb = memory_mb
            )),
            Warning::ShortSpanOnRotational {
                path,
                span_mb,
                device_mb,
            } => f.write_str(&t!(
                "warning-short-span-on-rotational",
                path = path,
                span_mb = span_mb,
                device_mb = device_mb
            )),
            Warning::BelowMinRate { job, thread, what } => f.write_str(&t!(
                "warning-below-min-rate",
                job = job,
                thread = thread,
                what = what
            )),
            Warning::BonnieFileCached { size_mb, memory_mb } => f.write_str(&t!(
                "warning-bonnie-file-cached",
                size_mb = size_mb,
                memory_mb = memory_mb
            )),
            Warning::DatabaseUnderMemLimit { data_mb, limit_mb } => f.write_str(&t!(
                "warning-database-under-mem-limit",
                data_mb = data_mb,
                limit_mb = limit_mb
            )),
            Warning::OltpRetried { job, count } => {
                f.write_str(&t!("warning-oltp-retried", job = job, count = count))
            }
            Warning::ScatteredCache {
                job,
                files,
                cached_pages,
                runs,
                gap_bytes,
                readahead_bytes,
            } => f.write_str(&t!(
                "warning-scattered-cache",
                job = job,
                files = files,
                pages = cached_pages,
                runs = runs,
                gap_kib = gap_bytes >> 10,
                readahead_kib = readahead_bytes >> 10
            )),
            Warning::TooShort {
                jobs,
                measured_ns,
                min_ns,
            } => f.write_str(&t!(
                "warning-too-short",
                count = jobs.len(),
                jobs = names_text(jobs),
                measured = format!("{:.2}", *measured_ns as f64 / 1e9),
                min = format!("{}", *min_ns as f64 / 1e9)
            )),
            Warning::LatencyTail {
                job,
                direction,
                mean_ns,
                p99_ns,
            } => f.write_str(&t!(
                "warning-latency-tail",
                job = job_name(job),
                direction = crate::i18n::heading(direction),
                mean = crate::report::format::latency(*mean_ns),
                p99 = crate::report::format::latency(*p99_ns as f64),
                ratio = format!("{:.0}", *p99_ns as f64 / mean_ns),
                limit = format!("{TAIL_RATIO:.0}")
            )),
        }
    }
}

/// A suite's test in the reader's language (`Sequential Read #1`), as its table names it.
fn job_name(job: &str) -> String {
    match job.rsplit_once(" #") {
        Some((test, n)) => format!("{} #{n}", crate::i18n::heading(test)),
        None => crate::i18n::heading(job),
    }
}

/// Names of jobs, the first few of a long list and how many more.
fn names_text(jobs: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut text = jobs
        .iter()
        .take(SHOWN)
        .map(|j| job_name(j))
        .collect::<Vec<_>>()
        .join(", ");
    if jobs.len() > SHOWN {
        text.push_str(&crate::t!("warning-and-more", count = jobs.len() - SHOWN));
    }
    text
}

/// `SparseFile`'s text: the loop device it backs named first when there is one.
fn sparse_file_text(path: &str, loop_device: Option<&str>, allocated_mb: u64, data_mb: u64) -> String {
    match loop_device {
        Some(dev) => crate::t!(
            "warning-sparse-file-loop",
            dev = dev,
            path = path,
            allocated_mb = allocated_mb,
            data_mb = data_mb
        ),
        None => crate::t!(
            "warning-sparse-file",
            path = path,
            allocated_mb = allocated_mb,
            data_mb = data_mb
        ),
    }
}

/// ` read` or ` write` after a test's name; nothing for a test with one figure.
fn direction_suffix(direction: Option<&str>) -> String {
    direction
        .map(|d| format!(" {}", crate::i18n::heading(d)))
        .unwrap_or_default()
}

/// The first `MISMATCHES_SHOWN` mismatches, and how many more the JSON holds.
fn mismatches_text(mismatches: &[VerifyMismatch]) -> String {
    let shown: Vec<String> = mismatches
        .iter()
        .take(MISMATCHES_SHOWN)
        .map(ToString::to_string)
        .collect();
    let mut text = shown.join("; ");
    if mismatches.len() > MISMATCHES_SHOWN {
        text.push_str(&crate::t!(
            "warning-verify-failed-more",
            more = mismatches.len() - MISMATCHES_SHOWN
        ));
    }
    text
}

/// A run's warnings as stored: each its kind, facts and rendered text;
/// plain strings (runs stored before) and unknown kinds read as `Other`.
pub mod list {
    use serde::Deserialize;
    use serde::de::Deserializer;
    use serde::ser::{SerializeSeq, Serializer};

    use super::Warning;

    pub fn serialize<S: Serializer>(warnings: &[Warning], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(warnings.len()))?;
        for w in warnings {
            let mut value = serde_json::to_value(w).map_err(serde::ser::Error::custom)?;
            if let Some(map) = value.as_object_mut() {
                // Stored and read by programs: English, whatever the language shown.
                map.insert("text".into(), crate::i18n::in_english(|| w.to_string()).into());
            }
            seq.serialize_element(&value)?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Warning>, D::Error> {
        let values = Vec::<serde_json::Value>::deserialize(d)?;
        Ok(values.into_iter().map(read).collect())
    }

    fn read(value: serde_json::Value) -> Warning {
        if let serde_json::Value::String(text) = value {
            return Warning::Other { text };
        }
        match Warning::deserialize(&value) {
            Ok(w) => w,
            Err(_) => Warning::Other {
                text: match value.get("text").and_then(|t| t.as_str()) {
                    Some(t) => t.to_string(),
                    None => value.to_string(),
                },
            },
        }
    }
}

/// `--scale` in three significant digits: `1e-300` as typed would print as
/// a 300-digit fraction that no terminal can wrap.
fn scale_text(scale: f64) -> String {
    if scale >= 1e-3 {
        let decimals = (2 - scale.log10().floor() as i32).max(0) as usize;
        let text = format!("{scale:.decimals$}");
        match text.contains('.') {
            true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
            false => text,
        }
    } else {
        let text = format!("{scale:.2e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let mantissa = match mantissa.contains('.') {
            true => mantissa.trim_end_matches('0').trim_end_matches('.'),
            false => mantissa,
        };
        format!("{mantissa}e{exponent}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--scale 1e-300` must not print a 300-digit number.
    #[test]
    fn the_scale_is_said_in_three_significant_digits() {
        let said = |scale| Warning::PtsNotConforming { scale }.to_string();
        assert!(said(1e-300).contains("--scale 1e-300 "), "{}", said(1e-300));
        assert!(said(1.5e-5).contains("--scale 1.5e-5 "));
        assert!(said(0.0005).contains("--scale 5e-4 "));
        assert!(said(0.001).contains("--scale 0.001 "));
        assert!(said(0.123456).contains("--scale 0.123 "));
        assert!(said(0.05).contains("--scale 0.05 "));
        assert!(said(1.0).contains("--scale 1 "));
        assert!(said(1e-300).len() < 200);
    }

    /// Under `--size` the purge says the span, not "whole device".
    #[test]
    fn a_purge_of_a_span_says_the_span() {
        let purge = |span_bytes| Warning::PtsPurge {
            test: "IOPS".into(),
            method: Some("blkdiscard".into()),
            span_bytes,
        };
        let said = purge(Some(64 << 20)).to_string();
        assert!(said.contains("over the first 64m of the device"), "{said}");
        assert!(!said.contains("whole device"), "{said}");
        assert!(purge(None).to_string().contains("whole device"));
        let old = serde_json::json!({"kind": "pts_purge", "test": "IOPS", "method": "blkdiscard"});
        assert_eq!(serde_json::from_value::<Warning>(old).unwrap(), purge(None));
    }

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Stored {
        #[serde(with = "list")]
        warnings: Vec<Warning>,
    }

    /// One warning per cause in a run.
    #[test]
    fn a_cause_is_told_once_a_run() {
        let cached = |data_mb| Warning::PageCacheHoldsData {
            data_mb,
            memory_mb: 8000,
        };
        let tmpfs = |path: &str| Warning::MemoryFileSystem {
            path: path.into(),
            fs_type: "tmpfs".into(),
            direct: false,
        };
        let stalled = |job: &str| Warning::Stalled {
            job: job.into(),
            reasons: vec!["x".into()],
        };
        let out = one_per_cause(vec![
            cached(1),
            stalled("a"),
            cached(4),
            tmpfs("/run/x/a.0.0"),
            cached(2),
            tmpfs("/run/x/b.0.0"),
            tmpfs("/run/y/c.0.0"),
            stalled("b"),
            stalled("a"),
        ]);
        assert_eq!(
            out,
            vec![
                cached(4),
                stalled("a"),
                tmpfs("/run/x/a.0.0"),
                tmpfs("/run/y/c.0.0"),
                stalled("b"),
            ]
        );
    }

    #[test]
    fn a_warning_is_stored_with_its_kind_facts_and_text_and_reads_back() {
        let w = Warning::SyncEngineQueueDepth {
            job: "j".into(),
            qd: 8,
        };
        let json = serde_json::to_value(Stored {
            warnings: vec![w.clone()],
        })
        .unwrap();
        assert_eq!(json["warnings"][0]["kind"], "sync_engine_queue_depth");
        assert_eq!(json["warnings"][0]["qd"], 8);
        assert_eq!(json["warnings"][0]["text"], w.to_string());
        let back: Stored = serde_json::from_value(json).unwrap();
        assert_eq!(back.warnings, vec![w]);
    }

    #[test]
    fn plain_strings_of_old_runs_and_unknown_kinds_still_show_their_text() {
        let back: Stored = serde_json::from_value(serde_json::json!({
            "warnings": ["an old warning", {"kind": "from_the_future", "text": "a newer warning"}, {"kind": "io_errors"}]
        }))
        .unwrap();
        let texts: Vec<String> = back.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(texts[0], "an old warning");
        assert_eq!(texts[1], "a newer warning");
        assert!(texts[2].contains("io_errors"), "{}", texts[2]);
    }

    #[test]
    fn every_text_says_what_to_do_or_why_it_is_harmless() {
        let w = Warning::IoErrors {
            job: "j".into(),
            direction: "write".into(),
            count: 50,
            first_error: "ENOSPC".into(),
            offset_bytes: 0,
        };
        assert!(
            w.to_string()
                .starts_with("j: 50 write errors; first: ENOSPC at offset 0")
        );
        assert!(w.to_string().contains("check the device"));
        let r = Warning::RepeatsDisagree {
            test: "Sequential Output Block".into(),
            direction: None,
            runs: 3,
            spread_pct: 20.0,
            min: 1.0,
            max: 2.0,
            unit: "MB/s".into(),
        };
        assert!(
            r.to_string()
                .starts_with("Sequential Output Block: the 3 runs disagree by 20 %")
        );
        // A mark test's repetitions are passes, as its grid calls them.
        let mark = Warning::RepeatsDisagree {
            test: "SEQ1M Q1T1".into(),
            direction: Some("write".into()),
            runs: 5,
            spread_pct: 90.0,
            min: 31.7,
            max: 84.5,
            unit: "MB/s".into(),
        };
        let text = mark.to_string();
        assert!(
            text.starts_with("SEQ1M Q1T1 write: the 5 passes disagree by 90 %"),
            "{text}"
        );
        assert!(text.contains("more passes"), "{text}");
    }

    /// A disk at its throttle's limit answers in 4 ms on average but
    /// 80-97 ms at p99, which must not pass unflagged. p99 over 10 times the mean
    /// is named with both figures; an exponential tail (p99 4.6x) is not.
    #[test]
    fn a_p99_over_ten_times_the_mean_is_named_with_both() {
        use crate::report::fixtures::{direction, job};
        let mut spiky = job("randread", crate::jobs::Rw::RandRead, 4096, 100, None, None);
        // 97 of 100 at 1.5 ms, 3 at 90 ms: mean 4.2 ms, p99 90 ms.
        let mut lat = vec![1_500_000u64; 97];
        lat.extend([90_000_000; 3]);
        spiky.read = Some(direction(1000, 4096, &lat));
        spiky.elapsed_ns = 2_000_000_000;
        let w = of_job(&spiky);
        let tail = w
            .iter()
            .find(|w| matches!(w, Warning::LatencyTail { .. }))
            .unwrap_or_else(|| panic!("{w:?}"));
        let text = crate::i18n::in_english(|| tail.to_string());
        assert!(text.starts_with("randread: read p99 latency 90."), "{text}");
        assert!(
            text.contains("its mean 4.1") || text.contains("its mean 4.2"),
            "{text}"
        );
        assert!(!w.iter().any(|w| matches!(w, Warning::TooShort { .. })), "{w:?}");

        // Exponential latencies with a 4 ms mean: p99 near 18 ms, 4.6x.
        let exp: Vec<u64> = (0..1000)
            .map(|i| (-(1.0 - (i as f64 + 0.5) / 1000.0).ln() * 4e6) as u64)
            .collect();
        let mut queued = spiky.clone();
        queued.read = Some(direction(1000, 4096, &exp));
        assert!(
            !of_job(&queued)
                .iter()
                .any(|w| matches!(w, Warning::LatencyTail { .. })),
            "an exponential tail is a queue's"
        );
    }

    #[test]
    fn jobs_too_short_are_one_warning_naming_each() {
        use crate::report::fixtures::job;
        let mut out = Vec::new();
        for (name, ns) in [("a", 300_000_000), ("b", 100_000_000), ("c", 900_000_000)] {
            let mut j = job(name, crate::jobs::Rw::Read, 4096, 100, Some(10), None);
            j.elapsed_ns = ns;
            out.extend(of_job(&j));
        }
        let out = one_per_cause(out);
        let short: Vec<&Warning> = out
            .iter()
            .filter(|w| matches!(w, Warning::TooShort { .. }))
            .collect();
        assert_eq!(
            short,
            [&Warning::TooShort {
                jobs: vec!["a".into(), "b".into()],
                measured_ns: 100_000_000,
                min_ns: MIN_MEASURED_NS,
            }]
        );
    }
}
