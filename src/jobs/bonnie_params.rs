//! bonnie++'s tests as a kind of workload: their names and order, what each
//! counts, bonnie++'s defaults, and the parameters a stored bonnie job
//! carries. What the tests do lives in `bonnie::measure`; reports read this.

use serde::{Deserialize, Serialize};

use crate::jobs::OpKind;

/// Test files in DIR, named like kura's other test files.
pub const DATA_FILE: &str = "kura-bonnie.dat";
pub const FILES_DIR: &str = "kura-bonnie.d";
/// bonnie++'s defaults (bonnie.h of 2.00a).
pub const DEFAULT_CHUNK: u64 = 8192;
pub const CHAR_IO_BYTES: u64 = 3 << 20;
pub const SEEKS: u64 = 8192;
pub const SEEKERS: u32 = 5;
pub const UPDATE_EVERY: u64 = 10;
pub const FILES_UNIT: u64 = 1024;
/// bonnie++ refuses sizes that would need more than 1 GiB for file names; kura stops at 1 M files.
pub const MAX_FILES_UNITS: u64 = 1024;
/// bonnie++ prints `+++++` for tests shorter than this: too short to trust.
pub const MIN_TIME_NS: u64 = 500_000_000;
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    PutChar,
    PutBlock,
    Rewrite,
    GetChar,
    GetBlock,
    Seeks,
    SeqCreate,
    SeqStat,
    SeqDelete,
    RandCreate,
    RandStat,
    RandDelete,
}

/// What a test's rate counts: KiB for I/O, seeks, or files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Io,
    Seeks,
    Files,
}

impl Test {
    /// bonnie++'s order, which is also its CSV's.
    pub const ALL: [Test; 12] = [
        Test::PutChar,
        Test::PutBlock,
        Test::Rewrite,
        Test::GetChar,
        Test::GetBlock,
        Test::Seeks,
        Test::SeqCreate,
        Test::SeqStat,
        Test::SeqDelete,
        Test::RandCreate,
        Test::RandStat,
        Test::RandDelete,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Test::PutChar => "Sequential Output Per Chr",
            Test::PutBlock => "Sequential Output Block",
            Test::Rewrite => "Sequential Output Rewrite",
            Test::GetChar => "Sequential Input Per Chr",
            Test::GetBlock => "Sequential Input Block",
            Test::Seeks => "Random Seeks",
            Test::SeqCreate => "Sequential Create",
            Test::SeqStat => "Sequential Stat",
            Test::SeqDelete => "Sequential Delete",
            Test::RandCreate => "Random Create",
            Test::RandStat => "Random Stat",
            Test::RandDelete => "Random Delete",
        }
    }

    pub fn from_name(name: &str) -> Option<Test> {
        Test::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn kind(self) -> Kind {
        match self {
            Test::PutChar | Test::PutBlock | Test::Rewrite | Test::GetChar | Test::GetBlock => Kind::Io,
            Test::Seeks => Kind::Seeks,
            _ => Kind::Files,
        }
    }

    /// Whether the write direction holds the operations and latencies that
    /// make the test's rate and worst latency (see the module comment).
    pub fn counts_writes(self) -> bool {
        matches!(
            self,
            Test::PutChar
                | Test::PutBlock
                | Test::Rewrite
                | Test::SeqCreate
                | Test::SeqDelete
                | Test::RandCreate
                | Test::RandDelete
        )
    }

    pub fn has_read(self) -> bool {
        !self.counts_writes() || self == Test::Rewrite
    }

    pub fn has_write(self) -> bool {
        self.counts_writes() || self == Test::Seeks
    }
}

/// The stored job name of one repetition of a test: `Random Seeks #2`.
pub fn job_name(test: Test, repetition: u32) -> String {
    format!("{} #{repetition}", test.name())
}

/// The repetition number of a stored job name.
pub fn repetition_of(job_name: &str) -> Option<u32> {
    job_name.rsplit_once(" #")?.1.parse().ok()
}

/// The seed of a run's random choices; derived from its start so that the
/// stored run says which seed it used (bonnie++'s CSV has a seed column).
pub fn seed_of(started_unix_s: i64) -> u32 {
    started_unix_s as u32
}

impl Test {
    /// The kind of operation a file test counts; `None` for the I/O tests,
    /// which count reads and writes.
    pub fn op(self) -> Option<OpKind> {
        match self {
            Test::SeqCreate | Test::RandCreate => Some(OpKind::Create),
            Test::SeqStat | Test::RandStat => Some(OpKind::Stat),
            Test::SeqDelete | Test::RandDelete => Some(OpKind::Delete),
            _ => None,
        }
    }
}

/// What one stored bonnie job was: the test, its repetition and the run's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BonnieParams {
    /// bonnie++'s name of the test (`Random Seeks`).
    pub test: String,
    /// 1 for the first run of every test, 2 for the second...
    pub repetition: u32,
    /// Size of the I/O test file; 0 when the I/O tests were skipped.
    pub size_bytes: u64,
    pub chunk_bytes: u64,
    /// Bytes moved one byte per call in each per-character test.
    pub char_bytes: u64,
    pub seeks: u64,
    pub seekers: u32,
    /// Number of small files; 0 when the file tests were skipped.
    pub files: u64,
    /// Repetitions of every test in the run.
    pub runs: u32,
    /// Seed of the seeks and file names.
    pub seed: u32,
}
