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
    /// Any other text: warnings stored before they were typed, kinds this
    /// kura does not know, and producers that have no kind yet.
    Other { text: String },
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
            Warning::Other { text } => f.write_str(text),
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
