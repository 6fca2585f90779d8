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
    /// A note from reading the job file.
    JobFile { note: String },
    /// A note from importing another tool's results.
    Imported { note: String },
    // Caches and verify (issue 14).
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
    /// Any other text: warnings stored before they were typed, kinds this
    /// kura does not know, and producers that have no kind yet.
    Other { text: String },
    // file sets (issue 13)
    /// Operations of a file-set mix found no file (or directory) in the state they need.
    FileOpsSkipped { job: String, count: u64 },
    // Long runs (issue 14): what a job's interval series showed (metrics::changes).
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
    // mark and sweep (issue 17): a part of a spinning disk is not the disk.
    /// A rotational device measured on a small part of it: short seeks.
    ShortSpanOnRotational {
        path: String,
        span_mb: u64,
        device_mb: u64,
    },
    // Issue 17: fio's rate_min / rate_iops_min (jobs/extras.rs).
    /// A thread fell below the job's minimum rate and stopped; the run fails, as fio's job does.
    BelowMinRate { job: String, thread: u32, what: String },
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
        write!(
            f,
            "offset {}: {} expected {}, found {}",
            self.offset_bytes, self.field, self.expected, self.found
        )
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
                | Warning::CompressedFill { .. }
                | Warning::HostWriteBackCache { .. }
                | Warning::ReadsOfZeros { .. }
                | Warning::CompressibleData { .. }
                | Warning::UnreachableCache { .. }
                | Warning::InContainer { .. }
                | Warning::AboveInterface { .. }
        )
    }
}

impl From<String> for Warning {
    fn from(text: String) -> Warning {
        Warning::Other { text }
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 { one.into() } else { many.into() }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::IoUringUnavailable { why } => write!(
                f,
                "io_uring is not available here ({why}); using the sync engine. Containers often block io_uring: allow it (seccomp) to measure with a deep queue"
            ),
            Warning::BufferedOnSyncEngine { job, qd } => write!(
                f,
                "{job}: buffered I/O runs on the sync engine (pread/pwrite, what applications calling write() see), one I/O in flight per thread; qd {qd} ran as qd 1 (--engine io_uring queues buffered I/O, which the kernel hands to worker threads)"
            ),
            Warning::SyncEngineQueueDepth { job, qd } => write!(
                f,
                "{job}: the sync engine keeps one I/O in flight per thread; qd {qd} ran as qd 1 (use --engine io_uring, or more --threads, for more I/O in flight)"
            ),
            Warning::PageCacheHoldsData { data_mb, memory_mb } => write!(
                f,
                "buffered I/O on {data_mb} MB of test data while the machine has {memory_mb} MB of RAM: the page cache can hold it all, so the numbers may measure memory, not the device (use --direct, or a test file larger than RAM)"
            ),
            Warning::KeepCacheWithDirect => f.write_str(
                "keep_cache has no effect with direct I/O (O_DIRECT bypasses the page cache); use --buffered --keep-cache to measure from the cache",
            ),
            Warning::MemoryFileSystem {
                path,
                fs_type,
                direct,
            } => {
                let direct = if *direct {
                    " O_DIRECT was requested and the file system accepted it, but there is no device below it;"
                } else {
                    ""
                };
                write!(
                    f,
                    "{path} is on {fs_type}, which keeps files in memory:{direct} the numbers measure RAM, not a storage device (put the test file on the device's file system)"
                )
            }
            Warning::SparseFile {
                path,
                loop_device,
                allocated_mb,
                data_mb,
            } => {
                if let Some(dev) = loop_device {
                    write!(f, "{dev} is a loop device over {path}: ")?;
                }
                let what = if loop_device.is_some() {
                    "the loop device's backing file"
                } else {
                    "it"
                };
                write!(
                    f,
                    "{path} is sparse: {what} has {allocated_mb} MB of storage for {data_mb} MB of data; reads of the holes return zeros from memory without reading the device (write it in full first, or let kura create a new test file)"
                )
            }
            Warning::LoopOverMemory {
                path,
                backing,
                fs_type,
            } => write!(
                f,
                "{path} is a loop device over {backing} on {fs_type}: the numbers measure RAM, not a storage device (back the loop device with a file on a disk)"
            ),
            Warning::CompressedFill {
                path,
                fill,
                fs_type,
                option,
            } => write!(
                f,
                "fill {fill} on {path}, {fs_type} mounted with {option}: the written pattern compresses away, so the device moves far fewer bytes than the numbers say; use --fill random"
            ),
            Warning::HostWriteBackCache {
                path,
                size_mb,
                disk,
            } => write!(
                f,
                "{path} ({size_mb} MB) was written by this run onto {disk}, a virtual disk with a write-back cache, and is smaller than this machine's RAM: the host's cache may serve its reads faster than the device can (use a file larger than the host's cache, or one written long before)"
            ),
            Warning::WorkerStopped { job, error } => write!(
                f,
                "{job}: a worker stopped early: {error}; the job's figures cover only the workers that ran to the end"
            ),
            Warning::IoErrors {
                job,
                direction,
                count,
                first_error,
                offset_bytes,
            } => write!(
                f,
                "{job}: {count} {direction} errors; first: {first_error} at offset {offset_bytes}. The figures count only I/O that succeeded: check the device (dmesg) and the job before trusting them"
            ),
            Warning::ShortTransfers {
                job,
                direction,
                count,
            } => write!(
                f,
                "{job}: {count} short {direction}s; the rest of each was resubmitted and the I/O counted once, as fio does"
            ),
            Warning::Stalled { job, reasons } => write!(
                f,
                "{job}: the I/Os stalled ({}): the figures are not the device's steady rate; look for other load on the device or a throttle, and run again",
                reasons.join("; ")
            ),
            Warning::RepeatsDisagree {
                test,
                direction,
                runs,
                spread_pct,
                min,
                max,
                unit,
            } => {
                let dir = direction.as_ref().map(|d| format!(" {d}")).unwrap_or_default();
                write!(
                    f,
                    "{test}{dir}: the {runs} runs disagree by {spread_pct:.0} % (from {min:.1} to {max:.1} {unit}); the device is not steady, consider more runs or a longer runtime"
                )
            }
            Warning::CurvePointSkipped {
                job,
                pct,
                max_iops,
                min_iops,
            } => write!(
                f,
                "{job}: curve point {pct}% of {max_iops:.0} I/O per second is below {min_iops}; skipped, as vdbench does"
            ),
            Warning::TestFileNotRemoved { error } => write!(
                f,
                "could not remove test file: {error}; remove it by hand"
            ),
            Warning::StoppedAfterFailure { error } => write!(
                f,
                "stopped after a failed job: {error}; the jobs before it are stored, fix the failure and run again for the rest"
            ),
            Warning::RunUnfinished { finished_jobs } => write!(
                f,
                "the run did not finish: kura stopped before storing its end (killed, crashed, or still running); {finished_jobs} finished job{} stored",
                plural(*finished_jobs, " was", "s were")
            ),
            Warning::JobUnfinished { job, periods } => write!(
                f,
                "{job}: was measuring when kura stopped; {periods} period{} of its series {} stored, no totals",
                plural(*periods, "", "s"),
                plural(*periods, "is", "are")
            ),
            Warning::StoredJobUnreadable { index, error } => write!(
                f,
                "stored job {index} of this run cannot be read: {error}"
            ),
            Warning::JobFile { note } => write!(f, "job file: {note}"),
            Warning::Imported { note } => f.write_str(note),
            Warning::PageCacheHoldsDataUnderLimit { data_mb, limit_mb } => write!(
                f,
                "buffered I/O on {data_mb} MB of test data under a memory limit of {limit_mb} MB: the page cache can still hold it all, so the numbers may measure memory, not the device (lower --mem-limit below the data, or use a larger test file)"
            ),
            Warning::VerifyPassed { job, blocks } => write!(
                f,
                "{job}: verify checked {blocks} block{} and every one held what was written",
                plural(*blocks, "", "s")
            ),
            Warning::VerifyFailed {
                job,
                count,
                blocks,
                mismatches,
            } => {
                write!(
                    f,
                    "{job}: verify found {count} bad block{} of {blocks} checked: the data read back is not what was written. ",
                    plural(*count, "", "s")
                )?;
                let shown: Vec<String> = mismatches.iter().take(MISMATCHES_SHOWN).map(ToString::to_string).collect();
                f.write_str(&shown.join("; "))?;
                if mismatches.len() > MISMATCHES_SHOWN {
                    write!(f, "; and {} more (all offsets are in the JSON)", mismatches.len() - MISMATCHES_SHOWN)?;
                }
                Ok(())
            }
            Warning::VerifyIncomplete { job, error } => write!(
                f,
                "{job}: the verify read-back stopped: {error}; blocks after it were not checked"
            ),
            Warning::JournalNotWritten { job, error } => write!(
                f,
                "{job}: the verify journal could not be updated after a flush ({error}); it lists less than was flushed, so a verify with it checks less"
            ),
            Warning::MaxErrorsReached { job, errors, max } => write!(
                f,
                "{job}: stopped after {errors} errors (max_errors {max}); what was measured until then is kept"
            ),
            Warning::ReadsOfZeros {
                path,
                zero_blocks,
                sampled,
            } => write!(
                f,
                "{path}: {zero_blocks} of {sampled} blocks sampled across the span read as zeros (never written, trimmed, or written as zeros): thin-provisioned, compressing and deduplicating storage, and SSDs for unmapped blocks, return such reads without reading media, so the numbers may be far better than the device's (write the span with random data first)"
            ),
            Warning::CompressibleData { path, fill } => write!(
                f,
                "fill {fill} on {path}: data this compressible is stored cheaply by devices and volumes that compress or deduplicate (SSD controllers, ZFS, VDO, thin volumes, storage arrays), so writes may look faster than they are; use --fill random"
            ),
            Warning::UnreachableCache { path, fs_type, why } => write!(
                f,
                "{path} is on {fs_type}, {why}: the numbers may come from that cache, not the storage (measure on the server, or with a data set larger than its memory)"
            ),
            Warning::InContainer { runtime } => write!(
                f,
                "kura runs in a container ({runtime}): buffered I/O shares the host's page cache with everything else on it, the container's memory limit sizes what it can cache, and caches below its storage (overlay layers, volumes) are out of reach; use --direct, or --mem-limit to fix the cache's size"
            ),
            Warning::AboveInterface {
                job,
                path,
                device,
                mb_per_s,
                interface,
                limit_mb_per_s,
            } => write!(
                f,
                "{job}: {mb_per_s} MB/s on {path}, but {device}'s link ({interface} carries at most {limit_mb_per_s} MB/s) cannot move that much: the data came from a cache (page cache, or the device's own), not through the link"
            ),
            Warning::Other { text } => f.write_str(text),
            Warning::FileOpsSkipped { job, count } => write!(
                f,
                "{job}: {count} {} found no file in the state they need (a delete with every file \
                 gone, a create with none): the mix ran with fewer of them than asked; give the set more files",
                plural(*count, "operation", "operations")
            ),
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
            } => write!(f, "{job}: {}", super::changes::spikes_text(spikes, *start_unix_ms)),
            Warning::SeriesUnsteady { job, unsteady } => {
                write!(f, "{job}: {}", super::changes::unsteady_text(unsteady))
            }
            Warning::Rounds { job, rounds } => {
                write!(f, "{job}: {}", super::steady::rounds_text(rounds))
            }
            Warning::Measuring { pid, .. } => write!(
                f,
                "still measuring (kura process {pid}): what shows is what the run has stored so far, its series a period at a time; the totals of the job measuring now come when it ends"
            ),
            Warning::DatabaseInMemory { data_mb, memory_mb } => write!(
                f,
                "the database directory held at most {data_mb} MB between tests and the machine has {memory_mb} MB of RAM: its SELECTs were answered from memory, while its commits (fsync) reached the storage; a --scale or --table-size larger than RAM makes the reads reach it too"
            ),
            Warning::ShortSpanOnRotational {
                path,
                span_mb,
                device_mb,
            } => write!(
                f,
                "{path} is a rotational disk measured on {span_mb} MB of its {device_mb} MB: seeks this short make random I/O faster than on the whole disk (give --size to measure more of it)"
            ),
            Warning::BelowMinRate { job, thread, what } => write!(
                f,
                "{job}: thread {thread} stopped: {what} (fio's rate_min/rate_iops_min fail the job); lower the minimum or find what slowed the device"
            ),
        }
    }
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
                map.insert("text".into(), w.to_string().into());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Stored {
        #[serde(with = "list")]
        warnings: Vec<Warning>,
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
    }
}
