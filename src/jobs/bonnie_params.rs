//! bonnie++'s tests as a kind of workload: their names and order, what each
//! counts, bonnie++'s defaults, the parameters a stored bonnie job carries,
//! and a run's settings read from `kura suite bonnie`'s flags and made into
//! its jobs (`BonnieSettings`). What the tests do lives in `bonnie`; reports
//! read this.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::suites::{SuiteTest, flag_text};
use crate::jobs::{BlockSize, EngineKind, Fill, Job, OpKind, Opt, Rw, Value, Workload};

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
pub const MIN_TIME_NS: u64 = crate::metrics::warning::MIN_MEASURED_NS;
/// The chunk bonnie++ would use to fill non-empty small files; kura's are empty.
const FILE_CHUNK: u64 = 8192;
const MIB: u64 = 1 << 20;

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

    /// bonnie++'s own short name, its CSV header's (`putc`, `put_block`, ...).
    pub fn short_name(self) -> &'static str {
        match self {
            Test::PutChar => "putc",
            Test::PutBlock => "put_block",
            Test::Rewrite => "rewrite",
            Test::GetChar => "getc",
            Test::GetBlock => "get_block",
            Test::Seeks => "seeks",
            Test::SeqCreate => "seq_create",
            Test::SeqStat => "seq_stat",
            Test::SeqDelete => "seq_del",
            Test::RandCreate => "ran_create",
            Test::RandStat => "ran_stat",
            Test::RandDelete => "ran_del",
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

/// `kura suite bonnie`'s flags as typed, before they are read.
#[derive(Debug, Clone, Copy)]
pub struct BonnieFlags<'a> {
    pub size: Option<&'a str>,
    pub chunk: &'a str,
    pub files: &'a str,
    pub char_size: Option<&'a str>,
}

/// What a bonnie run is asked to do: DIR and bonnie++'s sizes, shared by
/// every test of the run (and by the bonnie kind while it measures them).
#[derive(Debug, Clone)]
pub struct BonnieSettings {
    pub dir: PathBuf,
    /// Size of the I/O test file; 0 skips the I/O tests (bonnie++ -s 0).
    pub size_bytes: u64,
    pub chunk_bytes: u64,
    /// Bytes moved one byte per call in each per-character test.
    pub char_bytes: u64,
    pub seeks: u64,
    pub seekers: u32,
    /// Number of small files; 0 skips the file tests (bonnie++ -n 0).
    pub files: u64,
    pub runs: u32,
    pub label: Option<String>,
    /// `--mem-limit`: kura runs every test inside a memory cgroup this large.
    pub mem_limit_bytes: Option<u64>,
}

impl BonnieSettings {
    pub fn new(dir: PathBuf, size_bytes: u64, chunk_bytes: u64, files: u64) -> BonnieSettings {
        BonnieSettings {
            dir,
            size_bytes,
            chunk_bytes,
            char_bytes: size_bytes.min(CHAR_IO_BYTES),
            seeks: SEEKS,
            seekers: SEEKERS,
            files,
            runs: 1,
            label: None,
            mem_limit_bytes: None,
        }
    }

    /// From the flags; without `--size`, twice `memory_bytes` as bonnie++.
    /// An error names the flag.
    pub fn from_flags(
        dir: PathBuf,
        flags: BonnieFlags<'_>,
        memory_bytes: u64,
    ) -> Result<BonnieSettings, String> {
        let chunk = parse_chunk(flags.chunk)?;
        let size = match flags.size {
            Some(text) => parse_file_size(text)?,
            None => default_size(memory_bytes),
        };
        let files = parse_files(flags.files)?;
        if size == 0 && files == 0 {
            return Err("--size 0 and --files 0 leave no test to run".into());
        }
        let mut settings = BonnieSettings::new(dir, size, chunk, files);
        if let Some(text) = flags.char_size {
            settings.char_bytes = parse_char_size(text)?.min(size);
        }
        Ok(settings)
    }

    /// The settings a stored job of a run carries; DIR is its target's directory.
    pub fn of_job(job: &Job, p: &BonnieParams) -> BonnieSettings {
        let dir = job
            .target
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        BonnieSettings {
            char_bytes: p.char_bytes,
            seeks: p.seeks,
            seekers: p.seekers,
            runs: p.runs,
            label: job.label.clone(),
            mem_limit_bytes: job.mem_limit_bytes,
            ..BonnieSettings::new(dir, p.size_bytes, p.chunk_bytes, p.files)
        }
    }

    pub fn data_path(&self) -> PathBuf {
        self.dir.join(DATA_FILE)
    }

    pub fn files_path(&self) -> PathBuf {
        self.dir.join(FILES_DIR)
    }

    pub fn chunks(&self) -> u64 {
        self.size_bytes / self.chunk_bytes
    }

    /// Whether the page cache can hold the test file in `memory_bytes`: the
    /// I/O numbers would measure memory (bonnie++ uses twice the RAM).
    pub fn fits_in(&self, memory_bytes: u64) -> bool {
        self.size_bytes > 0 && self.size_bytes < memory_bytes
    }

    /// The tests these settings run, in bonnie++'s order.
    pub fn tests(&self) -> Vec<Test> {
        Test::ALL
            .into_iter()
            .filter(|t| match t.kind() {
                Kind::Io | Kind::Seeks => {
                    self.size_bytes > 0
                        && (self.char_bytes > 0 || !matches!(t, Test::PutChar | Test::GetChar))
                }
                Kind::Files => self.files > 0,
            })
            .collect()
    }

    /// The jobs of a run: every test `runs` times in bonnie++'s order, each
    /// a job of the bonnie kind.
    pub fn jobs(&self, seed: u32) -> Vec<SuiteTest> {
        (1..=self.runs)
            .flat_map(|repetition| {
                self.tests().into_iter().map(move |test| SuiteTest {
                    test: test.name(),
                    job: self.job(test, repetition, seed),
                })
            })
            .collect()
    }

    /// The job as stored: what the test does, in kura's job terms.
    fn job(&self, test: Test, repetition: u32, seed: u32) -> Job {
        let size = |bytes| BlockSize { bytes, weight: 100 };
        let mut job = Job {
            name: job_name(test, repetition),
            target: Some(self.data_path()),
            bs: vec![size(self.chunk_bytes)],
            size_bytes: Some(self.size_bytes),
            direct: false,
            keep_cache: true,
            engine: EngineKind::Sync,
            fill: Fill::Zero,
            label: self.label.clone(),
            mem_limit_bytes: self.mem_limit_bytes,
            workload: Workload::Bonnie(BonnieParams {
                test: test.name().to_string(),
                repetition,
                size_bytes: self.size_bytes,
                chunk_bytes: self.chunk_bytes,
                char_bytes: self.char_bytes,
                seeks: self.seeks,
                seekers: self.seekers,
                files: self.files,
                runs: self.runs,
                seed,
            }),
            ..Job::default()
        };
        let random = matches!(test, Test::RandCreate | Test::RandStat | Test::RandDelete);
        match test {
            Test::PutChar | Test::GetChar => {
                job.rw = if test == Test::PutChar {
                    Rw::Write
                } else {
                    Rw::Read
                };
                job.bs = vec![size(1)];
                job.io_size_bytes = Some(self.char_bytes);
            }
            Test::PutBlock | Test::GetBlock => {
                job.rw = if test == Test::PutBlock {
                    Rw::Write
                } else {
                    Rw::Read
                };
                job.io_size_bytes = Some(self.size_bytes);
            }
            Test::Rewrite => {
                job.rw = Rw::Rw;
                job.read_pct = 50;
                job.io_size_bytes = Some(2 * self.size_bytes);
            }
            Test::Seeks => {
                job.rw = Rw::RandRw;
                // Every seek reads; one in ten also writes: 10 reads per write.
                job.read_pct = 91;
                job.threads = self.seekers;
                job.io_count = Some(self.seeks);
            }
            _ => {
                job.rw = match (test.counts_writes(), random) {
                    (true, false) => Rw::Write,
                    (true, true) => Rw::RandWrite,
                    (false, false) => Rw::Read,
                    (false, true) => Rw::RandRead,
                };
                job.target = Some(self.files_path());
                job.bs = vec![size(FILE_CHUNK)];
                job.size_bytes = None;
                job.io_count = Some(self.files);
            }
        }
        job
    }
}

/// A size flag read by the option table's parser for `opt`.
fn flag_bytes(flag: &str, opt: Opt, text: &str) -> Result<u64, String> {
    match flag_text(flag, opt, text)? {
        Value::Bytes(bytes) => Ok(bytes),
        Value::BlockSizes(sizes) if sizes.len() == 1 => Ok(sizes[0].bytes),
        _ => Err(format!("{flag}: '{text}' is not valid: give one size")),
    }
}

/// `--chunk`, a block size: bonnie++ takes powers of two from 256 bytes to 1 MiB.
pub fn parse_chunk(text: &str) -> Result<u64, String> {
    let bytes = flag_bytes("--chunk", Opt::Bs, text)?;
    if !(256..=MIB).contains(&bytes) || !bytes.is_power_of_two() {
        return Err(format!(
            "--chunk: '{text}' is not valid: must be a power of two from 256 bytes to 1m, as in bonnie++"
        ));
    }
    Ok(bytes)
}

/// `--size`: whole MiB as bonnie++'s -s counts them; 0 skips the I/O tests.
pub fn parse_file_size(text: &str) -> Result<u64, String> {
    whole_mib("--size", "-s", "the I/O tests", text)
}

/// `--char-size`: whole MiB, as bonnie++'s `-f SIZE`; 0 skips the
/// per-character tests, as bonnie++'s `-f` alone.
pub fn parse_char_size(text: &str) -> Result<u64, String> {
    whole_mib("--char-size", "-f", "the per-character tests", text)
}

/// A size bonnie++ counts in whole MiB (its option `letter`), 0 skipping `tests`.
fn whole_mib(flag: &str, letter: &str, tests: &str, text: &str) -> Result<u64, String> {
    let bytes = flag_bytes(flag, Opt::Size, text)?;
    if !bytes.is_multiple_of(MIB) {
        return Err(format!(
            "{flag}: '{text}' is not valid: must be a whole number of MiB (bonnie++ {letter} counts MiB), or 0 to skip {tests}"
        ));
    }
    Ok(bytes)
}

/// `--files`: thousands (1024) of files as bonnie++'s -n counts them; 0 skips the file tests.
pub fn parse_files(text: &str) -> Result<u64, String> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n <= MAX_FILES_UNITS)
        .map(|n| n * FILES_UNIT)
        .ok_or_else(|| {
            format!(
                "--files: '{text}' is not valid: must be a whole number from 0 to {MAX_FILES_UNITS} \
                 (multiples of 1024 files, as bonnie++ -n; 0 skips the file tests)"
            )
        })
}

/// bonnie++'s default file size: twice the RAM, rounded up to a whole GiB
/// when more than half a GiB over one (bonnie++.cpp).
pub fn default_size(memory_bytes: u64) -> u64 {
    let mut mib = 2 * (memory_bytes / MIB);
    if mib % 1024 > 512 {
        mib += 1024 - mib % 1024;
    }
    mib.max(1) * MIB
}

/// bonnie++'s tests as a kind of workload, each measured whole on the
/// files the run's first test made.
impl super::workload::WorkloadKind for BonnieParams {
    fn name(&self) -> &'static str {
        "bonnie"
    }

    fn scope(&self) -> super::options::Scope {
        super::options::Scope::Bonnie
    }

    /// Each test is described in block terms (`job` above): its `rw`, `bs`
    /// and `io_size` say what it moved.
    fn stores_block_fields(&self) -> bool {
        true
    }

    fn summary(&self, _job: &Job) -> String {
        format!("bonnie++ {}", self.test)
    }

    fn measured_whole(&self) -> bool {
        true
    }

    fn target_is_directory(&self) -> bool {
        false
    }

    /// A test does what bonnie++ does: nothing to raise.
    fn has_load_to_raise(&self) -> bool {
        false
    }

    fn runs_on_ranks(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_bonnies_rules() {
        assert_eq!(parse_chunk("8k"), Ok(8192));
        assert_eq!(parse_chunk("256"), Ok(256));
        assert_eq!(parse_chunk("1m"), Ok(1 << 20));
        for bad in ["128", "3k", "2m", "x", "4k/50:8k/50"] {
            let e = parse_chunk(bad).unwrap_err();
            assert!(e.starts_with(&format!("--chunk: '{bad}'")), "{e}");
        }
        assert_eq!(parse_file_size("4m"), Ok(4 << 20));
        assert_eq!(parse_file_size("0"), Ok(0));
        assert!(
            parse_file_size("1500k")
                .unwrap_err()
                .contains("whole number of MiB")
        );
        // The table's own words for a size it cannot read.
        assert!(
            parse_file_size("1q")
                .unwrap_err()
                .starts_with("--size: '1q' is not a size")
        );
        assert_eq!(parse_char_size("0"), Ok(0));
        assert!(
            parse_char_size("1k")
                .unwrap_err()
                .starts_with("--char-size: '1k' is not valid")
        );
        assert_eq!(parse_files("16"), Ok(16 * 1024));
        assert_eq!(parse_files("0"), Ok(0));
        assert!(parse_files("-1").is_err() && parse_files("2000").is_err() && parse_files("1k").is_err());
    }

    #[test]
    fn default_size_is_twice_the_ram_rounded_like_bonnie() {
        const GIB: u64 = 1 << 30;
        assert_eq!(default_size(24 * GIB), 48 * GIB);
        // 2 x 1.3 GiB = 2.6 GiB: more than half a GiB over 2 GiB, so 3 GiB.
        assert_eq!(default_size(1331 * MIB), 3 * GIB);
        // 2 x 1.1 GiB = 2.2 GiB stays.
        assert_eq!(default_size(1126 * MIB), 2252 * MIB);
        assert_eq!(default_size(0), MIB);
        let settings = BonnieSettings::new(PathBuf::from("d"), 16 * MIB, 8192, 0);
        assert!(settings.fits_in(GIB));
        assert!(!BonnieSettings::new(PathBuf::from("d"), 2 * GIB, 8192, 0).fits_in(GIB));
    }

    #[test]
    fn flags_make_the_tests_they_ask_for_and_the_jobs_carry_them_back() {
        let flags = BonnieFlags {
            size: Some("4m"),
            chunk: "16k",
            files: "0",
            char_size: Some("0"),
        };
        let mut settings = BonnieSettings::from_flags(PathBuf::from("/d"), flags, 0).unwrap();
        settings.runs = 2;
        let jobs = settings.jobs(7);
        // No per-character and no file tests: put block, rewrite, get block, seeks; twice.
        assert_eq!(jobs.len(), 8);
        assert_eq!(jobs[3].test, "Random Seeks");
        assert_eq!(jobs[7].job.name, "Random Seeks #2");
        let Workload::Bonnie(p) = &jobs[3].job.workload else {
            panic!("not a bonnie job");
        };
        let back = BonnieSettings::of_job(&jobs[3].job, p);
        assert_eq!(
            (back.dir, back.size_bytes, back.chunk_bytes),
            (PathBuf::from("/d"), 4 * MIB, 16 << 10)
        );
        assert_eq!(p.seed, 7);
        let none = BonnieFlags {
            size: Some("0"),
            files: "0",
            ..flags
        };
        assert!(
            BonnieSettings::from_flags(PathBuf::from("/d"), none, 0)
                .unwrap_err()
                .contains("no test to run")
        );
        let default = BonnieFlags { size: None, ..flags };
        assert_eq!(
            BonnieSettings::from_flags(PathBuf::from("/d"), default, 3 * MIB)
                .unwrap()
                .size_bytes,
            6 * MIB
        );
    }

    #[test]
    fn repetitions_round_trip_through_job_names() {
        assert_eq!(repetition_of(&job_name(Test::Seeks, 12)), Some(12));
        assert_eq!(repetition_of("job"), None);
        for t in Test::ALL {
            assert_eq!(Test::from_name(t.name()), Some(t));
        }
    }
}
