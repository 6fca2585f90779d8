//! One value of every kind of warning, for the tests that check each kind's
//! text in every language (tests/i18n.rs). `Warning::number` has no
//! wildcard, so a new kind does not compile until it is numbered there,
//! and the tests fail until `examples` holds one of it.

use super::changes::{Drift, Figure, Spikes, Step, Unsteady};
use super::steady::{Tracked, Window};
use super::{VerifyMismatch, Warning};

impl Warning {
    /// How many kinds of warning there are: one more than the last `number`.
    pub const KINDS: usize = 62;

    /// The kind's place in the enum, from 0: what tells the tests a kind
    /// has no example. A new kind takes `KINDS`, and `KINDS` grows by one.
    pub fn number(&self) -> usize {
        use Warning::*;
        match self {
            IoUringUnavailable { .. } => 0,
            BufferedOnSyncEngine { .. } => 1,
            SyncEngineQueueDepth { .. } => 2,
            PageCacheHoldsData { .. } => 3,
            KeepCacheWithDirect => 4,
            MemoryFileSystem { .. } => 5,
            SparseFile { .. } => 6,
            LoopOverMemory { .. } => 7,
            MemoryBlockDevice { .. } => 8,
            CompressedFill { .. } => 9,
            HostWriteBackCache { .. } => 10,
            WorkerStopped { .. } => 11,
            IoErrors { .. } => 12,
            ShortTransfers { .. } => 13,
            Stalled { .. } => 14,
            RepeatsDisagree { .. } => 15,
            CurvePointSkipped { .. } => 16,
            TestFileNotRemoved { .. } => 17,
            StoppedAfterFailure { .. } => 18,
            RunUnfinished { .. } => 19,
            StoredJobUnreadable { .. } => 20,
            JobUnfinished { .. } => 21,
            SeriesCoarsened { .. } => 22,
            JobFile { .. } => 23,
            Imported { .. } => 24,
            FioFlag { .. } => 25,
            SteadyStop { .. } => 26,
            PageCacheHoldsDataUnderLimit { .. } => 27,
            VerifyPassed { .. } => 28,
            VerifyFailed { .. } => 29,
            VerifyIncomplete { .. } => 30,
            VerifyCheckedNothing { .. } => 31,
            JournalNotWritten { .. } => 32,
            MaxErrorsReached { .. } => 33,
            ReadsOfZeros { .. } => 34,
            CompressibleData { .. } => 35,
            UnreachableCache { .. } => 36,
            InContainer { .. } => 37,
            AboveInterface { .. } => 38,
            WritesAheadOfDevice { .. } => 39,
            HostWriteBackWrites { .. } => 40,
            ReadsNotOnDevice { .. } => 41,
            Other { .. } => 42,
            FileOpsSkipped { .. } => 43,
            SeriesStep { .. } => 44,
            SeriesDrift { .. } => 45,
            LatencySpikes { .. } => 46,
            SeriesUnsteady { .. } => 47,
            Rounds { .. } => 48,
            Measuring { .. } => 49,
            DatabaseInMemory { .. } => 50,
            PtsPurge { .. } => 51,
            PtsNotConforming { .. } => 52,
            PtsWriteCache { .. } => 53,
            ShortSpanOnRotational { .. } => 54,
            BelowMinRate { .. } => 55,
            BonnieFileCached { .. } => 56,
            DatabaseUnderMemLimit { .. } => 57,
            OltpRetried { .. } => 58,
            ScatteredCache { .. } => 59,
            TooShort { .. } => 60,
            LatencyTail { .. } => 61,
        }
    }

    /// At least one warning of every kind, and one of each way a kind's
    /// text is told (a loop device or none, a purge or none, ...). The facts
    /// repeat across kinds: job `j`, paths under `/p`, `tmpfs`, `EPERM`.
    pub fn examples() -> Vec<Warning> {
        use Warning::*;
        let s = |x: &str| x.to_string();
        let mismatch = |n: u64| VerifyMismatch {
            offset_bytes: n * 4096,
            field: s("checksum"),
            expected: s("ab"),
            found: s("cd"),
        };
        let step = |figure, to_end| Step {
            figure,
            period: 41,
            at_ns: 2_470_000_000_000,
            before: 26100.0,
            after: 4960.0,
            change_pct: -81.0,
            lasted_periods: 7,
            to_end,
        };
        // The steady state's rounds, not the warning of the same name.
        let rounds = |tracked, n: usize, steady| super::steady::Rounds {
            tracked,
            values: vec![1.0; n],
            window: (n >= 5).then_some(Window {
                first_round: 3,
                last_round: 7,
                average: 1234.5,
                range_pct: 4.2,
                slope_pct: 1.5,
            }),
            steady,
        };
        let purge = |method: Option<&str>, span_bytes| PtsPurge {
            test: s("IOPS"),
            method: method.map(s),
            span_bytes,
        };
        vec![
            IoUringUnavailable { why: s("EPERM") },
            BufferedOnSyncEngine { job: s("j"), qd: 8 },
            SyncEngineQueueDepth { job: s("j"), qd: 8 },
            PageCacheHoldsData {
                data_mb: 4,
                memory_mb: 8000,
            },
            KeepCacheWithDirect,
            MemoryFileSystem {
                path: s("/p/t.dat"),
                fs_type: s("tmpfs"),
                direct: true,
            },
            MemoryFileSystem {
                path: s("/p/t.dat"),
                fs_type: s("tmpfs"),
                direct: false,
            },
            SparseFile {
                path: s("/p/t.dat"),
                loop_device: None,
                allocated_mb: 0,
                data_mb: 8,
            },
            SparseFile {
                path: s("/p/loop0"),
                loop_device: Some(s("/dev/loop0")),
                allocated_mb: 1,
                data_mb: 8,
            },
            LoopOverMemory {
                path: s("/p/loop0"),
                backing: s("/p/b.img"),
                fs_type: s("tmpfs"),
            },
            MemoryBlockDevice {
                path: s("/p/zram0"),
                device: s("zram"),
            },
            CompressedFill {
                path: s("/p/t.dat"),
                fill: s("zero"),
                fs_type: s("btrfs"),
                option: s("compress=zstd"),
            },
            HostWriteBackCache {
                path: s("/p/t.dat"),
                size_mb: 8,
                disk: s("/dev/vda"),
            },
            WorkerStopped {
                job: s("j"),
                error: s("EPERM"),
            },
            IoErrors {
                job: s("j"),
                direction: s("write"),
                count: 50,
                first_error: s("EPERM"),
                offset_bytes: 0,
            },
            ShortTransfers {
                job: s("j"),
                direction: s("read"),
                count: 3,
            },
            Stalled {
                job: s("j"),
                reasons: vec![s("x")],
            },
            RepeatsDisagree {
                test: s("Sequential Output Block"),
                direction: None,
                runs: 3,
                spread_pct: 20.0,
                min: 1.0,
                max: 2.0,
                unit: s("MB/s"),
            },
            RepeatsDisagree {
                test: s("SEQ1M Q1T1"),
                direction: Some(s("write")),
                runs: 5,
                spread_pct: 90.0,
                min: 31.7,
                max: 84.5,
                unit: s("MB/s"),
            },
            CurvePointSkipped {
                job: s("j"),
                pct: 10.0,
                max_iops: 900.0,
                min_iops: 100,
            },
            TestFileNotRemoved { error: s("EPERM") },
            StoppedAfterFailure { error: s("EPERM") },
            RunUnfinished { finished_jobs: 1 },
            StoredJobUnreadable {
                index: 2,
                error: s("EPERM"),
            },
            JobUnfinished {
                job: s("j"),
                periods: 3,
            },
            SeriesCoarsened {
                job: s("j"),
                interval_ns: 1_000_000_000,
                period_ns: 4_000_000_000,
                periods: 100_000,
            },
            JobFile { note: s("n") },
            Imported { note: s("n") },
            FioFlag { note: s("n") },
            SteadyStop {
                job: s("j"),
                rule: s("iops:2%"),
                attained_ns: Some(30_000_000_000),
            },
            SteadyStop {
                job: s("j"),
                rule: s("iops:2%"),
                attained_ns: None,
            },
            PageCacheHoldsDataUnderLimit {
                data_mb: 4,
                limit_mb: 64,
            },
            VerifyPassed {
                job: s("j"),
                blocks: 100,
            },
            VerifyFailed {
                job: s("j"),
                count: 7,
                blocks: 100,
                mismatches: (0..7).map(mismatch).collect(),
            },
            VerifyIncomplete {
                job: s("j"),
                error: s("EPERM"),
            },
            VerifyCheckedNothing { job: s("j") },
            JournalNotWritten {
                job: s("j"),
                error: s("EPERM"),
            },
            MaxErrorsReached {
                job: s("j"),
                errors: 10,
                max: 10,
            },
            ReadsOfZeros {
                path: s("/p/t.dat"),
                zero_blocks: 60,
                sampled: 64,
            },
            CompressibleData {
                path: s("/p/t.dat"),
                fill: s("zero"),
            },
            UnreachableCache {
                path: s("/p/t.dat"),
                fs_type: s("nfs"),
                why: s("a network file system"),
            },
            InContainer { runtime: s("docker") },
            AboveInterface {
                job: s("j"),
                path: s("/p/t.dat"),
                device: s("sda"),
                mb_per_s: 900,
                interface: s("SATA 3"),
                limit_mb_per_s: 600,
            },
            WritesAheadOfDevice {
                job: s("j"),
                path: s("/p/t.dat"),
                mb_per_s: 900,
                durable_mb_per_s: 100,
                flush_ms: 4500,
            },
            HostWriteBackWrites {
                path: s("/p/t.dat"),
                disk: s("/dev/vda"),
            },
            ReadsNotOnDevice {
                job: s("j"),
                read_bytes: 64 << 20,
                device: s("vda"),
                holders: vec![],
                device_read_bytes: 0,
            },
            ReadsNotOnDevice {
                job: s("j"),
                read_bytes: 64 << 20,
                device: s("vda"),
                holders: vec![s("loop0")],
                device_read_bytes: 4096,
            },
            Other { text: s("t") },
            FileOpsSkipped {
                job: s("j"),
                count: 3,
            },
            SeriesStep {
                job: s("j"),
                step: step(Figure::Iops, true),
                start_unix_ms: 1_700_000_000_000,
            },
            SeriesStep {
                job: s("j"),
                step: step(Figure::MeanLatency, false),
                start_unix_ms: 0,
            },
            SeriesDrift {
                job: s("j"),
                drift: Drift {
                    figure: Figure::MeanLatency,
                    from: 200_000.0,
                    to: 400_000.0,
                    change_pct: 100.0,
                    over_ns: 3_600_000_000_000,
                },
            },
            LatencySpikes {
                job: s("j"),
                spikes: Spikes {
                    factor: 5.0,
                    median_p99_ns: 300_000,
                    count: 3,
                    periods: 600,
                    first_at_ns: 60_000_000_000,
                    worst_at_ns: 120_000_000_000,
                    worst_p99_ns: 9_000_000,
                },
                start_unix_ms: 0,
            },
            SeriesUnsteady {
                job: s("j"),
                unsteady: Unsteady {
                    figure: Figure::Iops,
                    steps: 19,
                    periods: 600,
                    shift_pct: 20.0,
                },
            },
            Rounds {
                job: s("j"),
                rounds: rounds(Tracked::Iops, 7, true),
            },
            Rounds {
                job: s("j"),
                rounds: rounds(Tracked::Bw, 25, false),
            },
            Rounds {
                job: s("j"),
                rounds: rounds(Tracked::Lat, 2, false),
            },
            Measuring {
                pid: 42,
                boot_id: s("b"),
            },
            DatabaseInMemory {
                data_mb: 40,
                memory_mb: 8000,
            },
            purge(Some("blkdiscard"), None),
            purge(Some("blkdiscard"), Some(64 << 20)),
            purge(None, None),
            PtsNotConforming { scale: 0.01 },
            PtsWriteCache {
                device: s("/dev/vda"),
                state: s("write back"),
            },
            ShortSpanOnRotational {
                path: s("/p/sda"),
                span_mb: 1024,
                device_mb: 4_000_000,
            },
            BelowMinRate {
                job: s("j"),
                thread: 1,
                what: s("100 IOPS"),
            },
            BonnieFileCached {
                size_mb: 4,
                memory_mb: 8000,
            },
            DatabaseUnderMemLimit {
                data_mb: 4,
                limit_mb: 64,
            },
            OltpRetried {
                job: s("j"),
                count: 3,
            },
            ScatteredCache {
                job: s("j"),
                files: 2,
                cached_pages: 1000,
                runs: 500,
                gap_bytes: 64 << 10,
                readahead_bytes: 128 << 10,
            },
            TooShort {
                jobs: vec![s("j"), s("k")],
                measured_ns: 100_000_000,
                min_ns: super::warning::MIN_MEASURED_NS,
            },
            LatencyTail {
                job: s("j"),
                direction: s("read"),
                mean_ns: 4_000_000.0,
                p99_ns: 90_000_000,
            },
        ]
    }
}
