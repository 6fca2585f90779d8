//! bonnie++ 2.0's tests, measured with kura's metrics: per-character and
//! block output, rewrite, per-character and block input, random seeks by
//! several seekers at once, and small files created, stat-ed and deleted in
//! sequential and random order. Each test is a job of the bonnie kind
//! (`jobs::bonnie_params`), run by the one runner, which calls `BonnieRun::run`
//! for it; this module only measures.
//!
//! What bonnie++ 2.00a does (bonnie++.cpp, bon_io.cpp, bon_file.cpp) and kura
//! keeps: buffered I/O on one file; the per-character tests cover only the
//! first 3 MiB (its `-f` default, DefaultByteIO), so they stay bounded
//! whatever the file size; 8192 seeks handed to 5 seekers through a pipe
//! as tickets, one seek in ten rewriting its chunk; every I/O test ends with
//! fsync and close inside the measured time; file names as bonnie++ makes them (a number in hex, with
//! up to 12 random characters after it for the sequential set and before it
//! for the random set).
//!
//! Counting, per test, in kura's two directions (documented in docs/bonnie.md):
//! - per-char: one operation per chunk's worth of one-byte read(2) or
//!   write(2) calls, the unit bonnie++ times;
//! - rewrite: the read direction holds the chunk reads alone, the write
//!   direction whole rewrites (read, lseek back, write), as bonnie++ times them;
//! - seeks: the read direction holds whole seeks (lseek and read, plus lseek
//!   and write for the rewritten ones), the write direction the rewrites alone;
//! - files: each test counts its own operation kind (create, stat, delete), 0 bytes each.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{Dir, thread_cpu_ns};
use crate::jobs::bonnie_params::BonnieParams;
pub use crate::jobs::bonnie_params::{
    CHAR_IO_BYTES, DATA_FILE, DEFAULT_CHUNK, FILES_DIR, FILES_UNIT, Kind, MAX_FILES_UNITS, MIN_TIME_NS,
    SEEKERS, SEEKS, Test, UPDATE_EVERY, job_name, repetition_of, seed_of,
};
use crate::jobs::units::parse_size;
use crate::jobs::{BlockSize, EngineKind, Fill, Job, Rw, Workload};
use crate::metrics::collect::DirCollector;
use crate::metrics::{JobResult, TargetFacts, TargetKind};

/// The chunk bonnie++ would use to fill non-empty small files; kura's are empty.
const FILE_CHUNK: u64 = 8192;
const MIB: u64 = 1 << 20;

#[derive(Debug, Clone)]
pub struct Config {
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
    /// Pause between tests.
    pub pause: Duration,
    pub keep: bool,
    pub label: Option<String>,
    pub price: Option<String>,
}

impl Config {
    pub fn new(dir: PathBuf, size_bytes: u64, chunk_bytes: u64, files: u64) -> Config {
        Config {
            dir,
            size_bytes,
            chunk_bytes,
            char_bytes: size_bytes.min(CHAR_IO_BYTES),
            seeks: SEEKS,
            seekers: SEEKERS,
            files,
            runs: 1,
            pause: Duration::ZERO,
            keep: false,
            label: None,
            price: None,
        }
    }

    pub fn data_path(&self) -> PathBuf {
        self.dir.join(DATA_FILE)
    }

    pub fn files_path(&self) -> PathBuf {
        self.dir.join(FILES_DIR)
    }

    fn chunks(&self) -> u64 {
        self.size_bytes / self.chunk_bytes
    }

    fn tests(&self) -> Vec<Test> {
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
}

/// `--chunk`: bonnie++ takes powers of two from 256 bytes to 1 MiB.
pub fn parse_chunk(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text).map_err(|e| e.to_string())?;
    if !(256..=MIB).contains(&bytes) || !bytes.is_power_of_two() {
        return Err(format!(
            "'{text}' is not valid: must be a power of two from 256 bytes to 1m, as in bonnie++"
        ));
    }
    Ok(bytes)
}

/// `--size`: whole MiB as bonnie++'s -s counts them; 0 skips the I/O tests.
pub fn parse_file_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text).map_err(|e| e.to_string())?;
    if !bytes.is_multiple_of(MIB) {
        return Err(format!(
            "'{text}' is not valid: must be a whole number of MiB (bonnie++ -s counts MiB), or 0 to skip the I/O tests"
        ));
    }
    Ok(bytes)
}

/// `--char-size`: whole MiB, as bonnie++'s `-f SIZE`; 0 skips the
/// per-character tests, as bonnie++'s `-f` alone.
pub fn parse_char_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text).map_err(|e| e.to_string())?;
    if !bytes.is_multiple_of(MIB) {
        return Err(format!(
            "'{text}' is not valid: must be a whole number of MiB (bonnie++ -f counts MiB), or 0 to skip the per-character tests"
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
                "'{text}' is not valid: must be a whole number from 0 to {MAX_FILES_UNITS} \
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

/// The warning for a file the page cache can hold.
pub fn cache_warning(size_bytes: u64, memory_bytes: u64) -> Option<String> {
    (size_bytes > 0 && size_bytes < memory_bytes).then(|| {
        format!(
            "the {} MiB test file fits in the {} MiB of RAM kura may use: the page cache can hold it, so the \
             I/O numbers will measure memory, not the device (bonnie++ uses twice the RAM)",
            size_bytes / MIB,
            memory_bytes / MIB
        )
    })
}

/// The memory kura may use: MemTotal, or less when a cgroup (v1 memory
/// controller or v2) limits this process or one of its parents.
pub fn usable_memory_bytes() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let total = mem_total(&meminfo).unwrap_or(0);
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let limit = cgroup_limits(&cgroups, Path::new("/sys/fs/cgroup"))
        .into_iter()
        .min();
    match limit {
        Some(l) if total == 0 || l < total => l,
        _ => total,
    }
}

fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Every memory limit set on this process's cgroups and their parents.
fn cgroup_limits(proc_cgroup: &str, root: &Path) -> Vec<u64> {
    let mut out = Vec::new();
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let path = path.trim_start_matches('/');
        let places: Vec<(PathBuf, &str)> = if id == "0" && controllers.is_empty() {
            // Pure v2 mounts at the root; the hybrid layout puts v2 under `unified`.
            vec![
                (root.to_path_buf(), "memory.max"),
                (root.join("unified"), "memory.max"),
            ]
        } else if controllers.split(',').any(|c| c == "memory") {
            vec![(root.join("memory"), "memory.limit_in_bytes")]
        } else {
            continue;
        };
        for (base, file) in places {
            let mut dir = base.join(path);
            loop {
                if let Ok(text) = std::fs::read_to_string(dir.join(file))
                    && let Ok(v) = text.trim().parse::<u64>()
                {
                    out.push(v);
                }
                if dir == base || !dir.pop() {
                    break;
                }
            }
        }
    }
    out
}

fn human(bytes: u64) -> String {
    format!("{:.1} MiB ({bytes} bytes)", bytes as f64 / MIB as f64)
}

/// Checks made before anything is written: the directory, files left over
/// from an earlier run, and room for the test file and the small files.
pub fn check_target(cfg: &Config) -> Result<(), String> {
    let dir = &cfg.dir;
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "{} is not a directory; kura suite bonnie takes the directory for its test files",
                dir.display()
            ));
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    for path in [cfg.data_path(), cfg.files_path()] {
        if std::fs::symlink_metadata(&path).is_ok() {
            return Err(format!(
                "{} already exists; kura writes only files it creates: remove it (left by a --keep run?) \
                 or choose another directory",
                path.display()
            ));
        }
    }
    let c_dir = CString::new(dir.as_os_str().as_bytes()).map_err(|_| "the path contains a NUL byte")?;
    // SAFETY: statvfs is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_dir` is NUL-terminated and `st` is writable, both live for the call.
    if unsafe { libc::statvfs(c_dir.as_ptr(), &mut st) } != 0 {
        return Err(format!("{}: {}", dir.display(), io::Error::last_os_error()));
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    if cfg.size_bytes > free {
        return Err(format!(
            "{}: the test file needs {} but only {} is free; give a smaller --size or another directory",
            dir.display(),
            human(cfg.size_bytes),
            human(free)
        ));
    }
    // Some file systems (btrfs) report no inode count at all; only a real shortage refuses.
    let inodes = st.f_favail as u64;
    if cfg.files > 0 && st.f_files > 0 && inodes < cfg.files + 2 {
        return Err(format!(
            "{}: the file tests need {} inodes but only {inodes} are free; give a smaller --files",
            dir.display(),
            cfg.files + 2
        ));
    }
    Ok(())
}

/// What one test measured, before it becomes a `JobResult`.
#[derive(Default)]
struct Measured {
    read: DirCollector,
    write: DirCollector,
    elapsed_ns: u64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
    syncs: u64,
    stopped: bool,
    /// The failure that ended the test, if one did.
    error: Option<String>,
}

/// Elapsed and thread CPU time of one measuring thread.
struct Clock {
    start: Instant,
    cpu: (u64, u64),
}

impl Clock {
    fn start() -> Clock {
        Clock {
            cpu: thread_cpu_ns(),
            start: Instant::now(),
        }
    }

    fn stop(&self, m: &mut Measured) {
        m.elapsed_ns = self.start.elapsed().as_nanos() as u64;
        let (user, system) = thread_cpu_ns();
        m.cpu_user_ns += user.saturating_sub(self.cpu.0);
        m.cpu_system_ns += system.saturating_sub(self.cpu.1);
    }
}

fn errno(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// Records a failed operation and ends the test with it.
fn fail(m: &mut Measured, write: bool, what: &str, offset: u64, e: &io::Error) {
    let d = if write { &mut m.write } else { &mut m.read };
    d.failure(errno(e), offset);
    m.error = Some(format!("{what} at offset {offset}: {e}"));
}

#[inline]
fn lap(last: &mut Instant) -> u64 {
    let now = Instant::now();
    let ns = now.duration_since(*last).as_nanos() as u64;
    *last = now;
    ns
}

/// Closes a test file as bonnie++ does, inside the measured time: fsync, then close.
fn close(file: File, m: &mut Measured, path: &Path) {
    if m.stopped || m.error.is_some() {
        return;
    }
    m.syncs += 1;
    if let Err(e) = file.sync_all() {
        m.error = Some(format!("fsync of {}: {e}", path.display()));
    }
}

/// (device, inode) of the data file this run made, once it made one.
type FileId = Option<(u64, u64)>;

/// Creates the data file anew. What is at its name must be the file this run
/// made before (by device and inode; a regular file, not a symlink), which is
/// removed; anything else is left alone and the test fails.
fn create_new(path: &Path, id: &mut FileId) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && Some((m.dev(), m.ino())) == *id => std::fs::remove_file(path)?,
        Ok(_) => return Err(not_ours(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let m = file.metadata()?;
    *id = Some((m.dev(), m.ino()));
    Ok(file)
}

/// Opens the data file this run made, never through a symlink, and only
/// while the name still leads to it.
fn open_rw(path: &Path, id: FileId) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_ours(path)
            } else {
                e
            }
        })?;
    let m = file.metadata()?;
    if Some((m.dev(), m.ino())) != id {
        return Err(not_ours(path));
    }
    Ok(file)
}

fn not_ours(path: &Path) -> io::Error {
    io::Error::other(format!(
        "{} is not the file kura made (replaced, or a symlink, during the run); kura leaves it alone",
        path.display()
    ))
}

/// One repetition's state shared by its tests.
struct Session<'a> {
    cfg: &'a Config,
    stop: &'a AtomicBool,
    rng: SmallRng,
    /// Names of the small files of the current create/stat/delete set.
    names: Vec<CString>,
    /// The data file this run made.
    data_id: FileId,
    /// The directory of small files the last create test made.
    files_id: FileId,
}

impl Session<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Setup failures (an open before the clock starts) are `Err`: nothing was measured.
    fn measure(&mut self, test: Test) -> io::Result<Measured> {
        match test {
            Test::PutChar => self.put_char(),
            Test::PutBlock => self.put_block(),
            Test::Rewrite => self.rewrite(),
            Test::GetChar => self.get_char(),
            Test::GetBlock => self.get_block(),
            Test::Seeks => self.seeks(),
            Test::SeqCreate => self.create(false),
            Test::RandCreate => self.create(true),
            Test::SeqStat => self.stat_sequential(),
            Test::RandStat => self.stat_random(),
            Test::SeqDelete => self.delete_sequential(),
            Test::RandDelete => self.delete_random(),
        }
    }

    /// Writes `char_bytes` with one write(2) of one byte per call: no stdio
    /// buffer in between, which is what the test is about. `File` is unbuffered.
    /// As bonnie++ 2.00a (bonnie++.cpp, `TestFileOps`, `write_block_byte`),
    /// the clock is read around each chunk's worth of calls, not each call:
    /// one operation is a chunk, and the latency is that of the chunk.
    fn put_char(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = create_new(&path, &mut self.data_id)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let chunk = self.cfg.chunk_bytes;
        let mut offset = 0u64;
        'chunks: for _ in 0..self.cfg.char_bytes / chunk {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let start = Instant::now();
            for i in 0..chunk {
                let byte = [(i & 0x7f) as u8];
                let failed = match (&file).write(&byte) {
                    Ok(1) => None,
                    Ok(_) => Some(io::Error::new(io::ErrorKind::WriteZero, "write(2) wrote nothing")),
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    if i > 0 {
                        m.write.success(i, start.elapsed().as_nanos() as u64);
                    }
                    fail(&mut m, true, "one-byte write", offset + i, &e);
                    break 'chunks;
                }
            }
            m.write.success(chunk, start.elapsed().as_nanos() as u64);
            offset += chunk;
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Writes the whole file again from scratch, a chunk per call; the chunk is
    /// zeros with one byte changed per write, as bonnie++ writes it.
    fn put_block(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = create_new(&path, &mut self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let at = i as usize % chunk;
            buf[at] = buf[at].wrapping_add(1);
            if let Err(e) = (&file).write_all(&buf) {
                fail(&mut m, true, "block write", i * chunk as u64, &e);
                break;
            }
            m.write.success(chunk as u64, lap(&mut last));
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Reads each chunk, changes one byte, seeks back and writes it.
    fn rewrite(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let mut file = open_rw(&path, self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let offset = i * chunk as u64;
            let start = last;
            if let Err(e) = file.read_exact(&mut buf) {
                fail(&mut m, false, "rewrite read", offset, &e);
                break;
            }
            m.read.success(chunk as u64, lap(&mut last));
            let at = i as usize % chunk;
            buf[at] = buf[at].wrapping_add(1);
            let written = file
                .seek(SeekFrom::Current(-(chunk as i64)))
                .and_then(|_| file.write_all(&buf));
            if let Err(e) = written {
                fail(&mut m, true, "rewrite write", offset, &e);
                break;
            }
            lap(&mut last);
            m.write
                .success(chunk as u64, last.duration_since(start).as_nanos() as u64);
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Reads `char_bytes` with one read(2) of one byte per call, timed a
    /// chunk's worth of calls at a time as bonnie++ 2.00a does (`read_block_byte`).
    fn get_char(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let file = open_rw(&path, self.data_id)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let chunk = self.cfg.chunk_bytes;
        let mut offset = 0u64;
        let mut seen = [0u64; 256];
        'chunks: for _ in 0..self.cfg.char_bytes / chunk {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            let start = Instant::now();
            for i in 0..chunk {
                let mut byte = [0u8; 1];
                let failed = match (&file).read(&mut byte) {
                    Ok(1) => {
                        // Use the byte, as bonnie++ does, so the read is not optimised away.
                        seen[byte[0] as usize] += 1;
                        None
                    }
                    Ok(_) => Some(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file ended early",
                    )),
                    Err(e) => Some(e),
                };
                if let Some(e) = failed {
                    if i > 0 {
                        m.read.success(i, start.elapsed().as_nanos() as u64);
                    }
                    fail(&mut m, false, "one-byte read", offset + i, &e);
                    break 'chunks;
                }
            }
            m.read.success(chunk, start.elapsed().as_nanos() as u64);
            offset += chunk;
        }
        std::hint::black_box(&seen);
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    fn get_block(&mut self) -> io::Result<Measured> {
        let path = self.cfg.data_path();
        let mut file = open_rw(&path, self.data_id)?;
        let chunk = self.cfg.chunk_bytes as usize;
        let mut buf = vec![0u8; chunk];
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for i in 0..self.cfg.chunks() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = file.read_exact(&mut buf) {
                fail(&mut m, false, "block read", i * chunk as u64, &e);
                break;
            }
            m.read.success(chunk as u64, lap(&mut last));
        }
        close(file, &mut m, &path);
        clock.stop(&mut m);
        Ok(m)
    }

    /// bonnie++ 2.00a's seek test (bon_io.cpp, `seek_test` and
    /// `CFileOp::action`): `seeks` tickets are drawn up front, each a chunk to
    /// lseek to and read, negative when that chunk is also rewritten (one in
    /// ten), followed by one end mark per seeker; all are written at once
    /// into a pipe from which the seekers, each with its own descriptor,
    /// read one ticket per seek. A seeker's time runs from its first ticket
    /// to its close (fsync included); the test's elapsed time from the first
    /// seeker's start to the last one's end. Its CPU, as bonnie++ counts it,
    /// is the process's (getrusage RUSAGE_SELF) over each seeker's time,
    /// summed over seekers.
    fn seeks(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let path = cfg.data_path();
        let chunks = cfg.chunks().max(1);
        let mut tickets: Vec<i32> = (0..cfg.seeks)
            .map(|_| {
                // bonnie++ draws a non-negative int; its remainder picks both the chunk and the update.
                let r = (self.rng.next_u32() & 0x7fff_ffff) as i32;
                if (r as u64).is_multiple_of(UPDATE_EVERY) {
                    -r
                } else {
                    r
                }
            })
            .collect();
        tickets.extend(std::iter::repeat_n(END_OF_SEEKS, cfg.seekers as usize));
        let bytes: Vec<u8> = tickets.iter().flat_map(|t| t.to_ne_bytes()).collect();
        let files = (0..cfg.seekers)
            .map(|_| open_rw(&path, self.data_id))
            .collect::<io::Result<Vec<File>>>()?;
        let (pipe_read, pipe_write) = pipe()?;
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<String>> = Mutex::new(None);
        let stop = self.stop;
        let outs: Vec<Seeker> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .into_iter()
                .enumerate()
                .map(|(i, file)| {
                    let (tickets, failed, error) = (&pipe_read, &failed, &error);
                    std::thread::Builder::new()
                        .name(format!("kura-seeker-{i}"))
                        .spawn_scoped(s, move || {
                            seeker(file, cfg.chunk_bytes, chunks, tickets, stop, failed, error)
                        })
                        .expect("spawning a seeker thread")
                })
                .collect();
            // Every seeker reads until its end mark, so this write always drains.
            if let Err(e) = (&File::from(pipe_write)).write_all(&bytes) {
                failed.store(true, Ordering::Relaxed);
                let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert_with(|| format!("writing the seek tickets: {e}"));
            }
            handles
                .into_iter()
                .map(|h| h.join().expect("seeker thread panicked"))
                .collect()
        });
        let mut m = Measured::default();
        let first = outs.iter().filter_map(|o| o.start).min();
        let last = outs.iter().filter_map(|o| o.end).max();
        if let (Some(first), Some(last)) = (first, last) {
            m.elapsed_ns = last.duration_since(first).as_nanos() as u64;
        }
        for o in &outs {
            m.read.merge(&o.read);
            m.write.merge(&o.write);
            m.cpu_user_ns += o.cpu.0;
            m.cpu_system_ns += o.cpu.1;
            m.syncs += o.syncs;
        }
        m.error = error.into_inner().unwrap_or_else(|e| e.into_inner());
        m.stopped = self.stopped() && m.read.ops < cfg.seeks;
        Ok(m)
    }

    /// Creates the files of a set in name order: sequential names sort as
    /// they are made, random ones start with random characters.
    fn create(&mut self, random: bool) -> io::Result<Measured> {
        let cfg = self.cfg;
        self.names = make_names(&mut self.rng, cfg.files, random);
        std::fs::DirBuilder::new().mode(0o700).create(cfg.files_path())?;
        let dir = Dir::open_own(&cfg.files_path())?;
        self.files_id = Some(dir.identity()?);
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for (i, name) in self.names.iter().enumerate() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = dir.create_empty(name) {
                fail(&mut m, true, "create", i as u64, &e);
                break;
            }
            m.write.success(0, lap(&mut last));
        }
        self.sync_fs(&dir, &mut m);
        clock.stop(&mut m);
        Ok(m)
    }

    /// Stats every file in the order readdir returns them.
    fn stat_sequential(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        let mut count = 0u64;
        match std::fs::read_dir(cfg.files_path()) {
            Err(e) => fail(&mut m, false, "opendir", 0, &e),
            Ok(entries) => {
                for entry in entries {
                    if self.stopped() {
                        m.stopped = true;
                        break;
                    }
                    // DirEntry::metadata is fstatat relative to the open directory.
                    if let Err(e) = entry.and_then(|e| e.metadata()) {
                        fail(&mut m, false, "stat", count, &e);
                        break;
                    }
                    m.read.success(0, lap(&mut last));
                    count += 1;
                }
            }
        }
        clock.stop(&mut m);
        self.check_count(&mut m, count);
        Ok(m)
    }

    fn stat_random(&mut self) -> io::Result<Measured> {
        shuffle(&mut self.rng, &mut self.names);
        let dir = self.own_files_dir()?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for (i, name) in self.names.iter().enumerate() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = dir.stat(name) {
                fail(&mut m, false, "stat", i as u64, &e);
                break;
            }
            m.read.success(0, lap(&mut last));
        }
        clock.stop(&mut m);
        Ok(m)
    }

    /// Deletes every file in readdir order, then the directory.
    fn delete_sequential(&mut self) -> io::Result<Measured> {
        let cfg = self.cfg;
        let dir = self.own_files_dir()?;
        let parent = Dir::open(&cfg.dir)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        let mut count = 0u64;
        match std::fs::read_dir(cfg.files_path()) {
            Err(e) => fail(&mut m, true, "opendir", 0, &e),
            Ok(entries) => {
                for entry in entries {
                    if self.stopped() {
                        m.stopped = true;
                        break;
                    }
                    let deleted = entry.and_then(|e| {
                        let name = CString::new(e.file_name().as_bytes()).map_err(io::Error::other)?;
                        dir.unlink(&name)
                    });
                    if let Err(e) = deleted {
                        fail(&mut m, true, "unlink", count, &e);
                        break;
                    }
                    m.write.success(0, lap(&mut last));
                    count += 1;
                }
            }
        }
        self.remove_dir(&parent, &mut m);
        clock.stop(&mut m);
        self.check_count(&mut m, count);
        Ok(m)
    }

    fn delete_random(&mut self) -> io::Result<Measured> {
        shuffle(&mut self.rng, &mut self.names);
        let cfg = self.cfg;
        let dir = self.own_files_dir()?;
        let parent = Dir::open(&cfg.dir)?;
        let mut m = Measured::default();
        let clock = Clock::start();
        let mut last = Instant::now();
        for (i, name) in self.names.iter().enumerate() {
            if self.stopped() {
                m.stopped = true;
                break;
            }
            if let Err(e) = dir.unlink(name) {
                fail(&mut m, true, "unlink", i as u64, &e);
                break;
            }
            m.write.success(0, lap(&mut last));
        }
        self.remove_dir(&parent, &mut m);
        clock.stop(&mut m);
        Ok(m)
    }

    /// The directory of small files, only while its name leads to the one
    /// the create test made (a directory swapped in is not ours).
    fn own_files_dir(&self) -> io::Result<Dir> {
        let path = self.cfg.files_path();
        let dir = Dir::open_own(&path).map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_ours(&path)
            } else {
                e
            }
        })?;
        if Some(dir.identity()?) != self.files_id {
            return Err(not_ours(&path));
        }
        Ok(dir)
    }

    /// The directory goes with its last file, inside the measured time as in bonnie++.
    fn remove_dir(&self, parent: &Dir, m: &mut Measured) {
        if m.stopped || m.error.is_some() {
            return;
        }
        if let Err(e) = std::fs::remove_dir(self.cfg.files_path()) {
            m.error = Some(format!("rmdir {}: {e}", self.cfg.files_path().display()));
            return;
        }
        self.sync_fs(parent, m);
    }

    fn sync_fs(&self, dir: &Dir, m: &mut Measured) {
        if m.stopped || m.error.is_some() {
            return;
        }
        m.syncs += 1;
        if let Err(e) = dir.sync_fs() {
            m.error = Some(format!("syncfs: {e}"));
        }
    }

    fn check_count(&self, m: &mut Measured, count: u64) {
        if !m.stopped && m.error.is_none() && count != self.cfg.files {
            m.error = Some(format!(
                "found {count} files in {}, expected {}",
                self.cfg.files_path().display(),
                self.cfg.files
            ));
        }
    }
}

/// bonnie++'s `END_SEEK_PROCESS` (INT_MIN): no more tickets for this seeker.
const END_OF_SEEKS: i32 = i32::MIN;

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// One ticket from the shared pipe; `None` when it is closed or broken.
fn next_ticket(pipe: &OwnedFd) -> Option<i32> {
    let mut buf = [0u8; 4];
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reads into the part of our own buffer not yet filled.
        let n = unsafe { libc::read(pipe.as_raw_fd(), buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        match n {
            n if n > 0 => got += n as usize,
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
    Some(i32::from_ne_bytes(buf))
}

fn process_cpu_ns() -> (u64, u64) {
    // SAFETY: rusage is plain C data; all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we pass and nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    (ns(usage.ru_utime), ns(usage.ru_stime))
}

struct Seeker {
    read: DirCollector,
    write: DirCollector,
    /// From its first ticket to its close; `None` when it got no ticket.
    start: Option<Instant>,
    end: Option<Instant>,
    cpu: (u64, u64),
    syncs: u64,
}

/// One seeker: tickets from the pipe until its end mark. After a failure or
/// Ctrl-C it keeps taking tickets without acting on them, so that the
/// writer of the pipe is never left blocked.
fn seeker(
    mut file: File,
    chunk: u64,
    chunks: u64,
    tickets: &OwnedFd,
    stop: &AtomicBool,
    failed: &AtomicBool,
    error: &Mutex<Option<String>>,
) -> Seeker {
    let mut buf = vec![0u8; chunk as usize];
    let (mut read, mut write) = (DirCollector::default(), DirCollector::default());
    let mut syncs = 0;
    let report = |what: &str, offset: u64, e: &io::Error, d: &mut DirCollector| {
        d.failure(errno(e), offset);
        failed.store(true, Ordering::Relaxed);
        let mut slot = error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert_with(|| format!("{what} at offset {offset}: {e}"));
    };
    let mut ticket = next_ticket(tickets);
    let start = Instant::now();
    let cpu0 = process_cpu_ns();
    let mut acting = ticket.is_some_and(|t| t != END_OF_SEEKS);
    while let Some(t) = ticket.filter(|t| *t != END_OF_SEEKS) {
        if acting && (stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed)) {
            acting = false;
        }
        if acting {
            let at = t.unsigned_abs() as u64 % chunks;
            let update = t < 0;
            let offset = at * chunk;
            let seek_start = Instant::now();
            let got = file
                .seek(SeekFrom::Start(offset))
                .and_then(|_| file.read_exact(&mut buf));
            match got {
                Err(e) => {
                    report("seek read", offset, &e, &mut read);
                    acting = false;
                }
                Ok(()) if update => {
                    let read_end = Instant::now();
                    let b = &mut buf[(at % chunk) as usize];
                    *b = b.wrapping_sub(1);
                    let put = file
                        .seek(SeekFrom::Start(offset))
                        .and_then(|_| file.write_all(&buf));
                    match put {
                        Err(e) => {
                            report("seek rewrite", offset, &e, &mut write);
                            acting = false;
                        }
                        Ok(()) => {
                            let end = Instant::now();
                            write.success(chunk, end.duration_since(read_end).as_nanos() as u64);
                            read.success(chunk, end.duration_since(seek_start).as_nanos() as u64);
                        }
                    }
                }
                Ok(()) => read.success(chunk, seek_start.elapsed().as_nanos() as u64),
            }
        }
        ticket = next_ticket(tickets);
    }
    if ticket.is_some() && !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
        syncs += 1;
        if let Err(e) = file.sync_all() {
            report("fsync", 0, &e, &mut write);
        }
    }
    drop(file);
    let end = Instant::now();
    let cpu1 = process_cpu_ns();
    // A seeker that found only its end mark did no seek: it adds neither time nor CPU.
    let worked = read.ops + read.errors > 0;
    Seeker {
        read,
        write,
        start: worked.then_some(start),
        end: worked.then_some(end),
        cpu: if worked {
            (cpu1.0.saturating_sub(cpu0.0), cpu1.1.saturating_sub(cpu0.1))
        } else {
            (0, 0)
        },
        syncs,
    }
}

const NAME_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NAME_EXTRA: u32 = 12;

/// bonnie++'s names: the index in 10 hex digits and 0-12 random characters,
/// after it for the sequential set, before it for the random set.
fn make_names(rng: &mut SmallRng, n: u64, random: bool) -> Vec<CString> {
    (0..n)
        .map(|i| {
            let len = rng.next_u32() % (NAME_EXTRA + 1);
            let extra: String = (0..len)
                .map(|_| NAME_CHARS[(rng.next_u32() as usize) % NAME_CHARS.len()] as char)
                .collect();
            let name = if random {
                format!("{extra}{i:010x}")
            } else {
                format!("{i:010x}{extra}")
            };
            CString::new(name).expect("names are alphanumeric")
        })
        .collect()
}

/// Fisher-Yates; bonnie++ swaps each name with a random one, which is biased.
fn shuffle<T>(rng: &mut SmallRng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
        items.swap(i, j);
    }
}

/// The job as stored: what the test did, in kura's job terms.
fn job_for(cfg: &Config, test: Test, repetition: u32, seed: u32) -> Job {
    let chunk = BlockSize {
        bytes: cfg.chunk_bytes,
        weight: 100,
    };
    let one_byte = BlockSize {
        bytes: 1,
        weight: 100,
    };
    let mut job = Job {
        name: job_name(test, repetition),
        target: Some(cfg.data_path()),
        bs: vec![chunk],
        size_bytes: Some(cfg.size_bytes),
        direct: false,
        keep_cache: true,
        engine: EngineKind::Sync,
        fill: Fill::Zero,
        label: cfg.label.clone(),
        workload: Workload::Bonnie(BonnieParams {
            test: test.name().to_string(),
            repetition,
            size_bytes: cfg.size_bytes,
            chunk_bytes: cfg.chunk_bytes,
            char_bytes: cfg.char_bytes,
            seeks: cfg.seeks,
            seekers: cfg.seekers,
            files: cfg.files,
            runs: cfg.runs,
            seed,
        }),
        ..Job::default()
    };
    match test {
        Test::PutChar | Test::GetChar => {
            job.rw = if test == Test::PutChar {
                Rw::Write
            } else {
                Rw::Read
            };
            job.bs = vec![one_byte];
            job.io_size_bytes = Some(cfg.char_bytes);
        }
        Test::PutBlock | Test::GetBlock => {
            job.rw = if test == Test::PutBlock {
                Rw::Write
            } else {
                Rw::Read
            };
            job.io_size_bytes = Some(cfg.size_bytes);
        }
        Test::Rewrite => {
            job.rw = Rw::Rw;
            job.read_pct = 50;
            job.io_size_bytes = Some(2 * cfg.size_bytes);
        }
        Test::Seeks => {
            job.rw = Rw::RandRw;
            // Every seek reads; one in ten also writes: 10 reads per write.
            job.read_pct = 91;
            job.threads = cfg.seekers;
            job.io_count = Some(cfg.seeks);
        }
        _ => {
            let random = matches!(test, Test::RandCreate | Test::RandStat | Test::RandDelete);
            job.rw = match (test.counts_writes(), random) {
                (true, false) => Rw::Write,
                (true, true) => Rw::RandWrite,
                (false, false) => Rw::Read,
                (false, true) => Rw::RandRead,
            };
            job.target = Some(cfg.files_path());
            job.bs = vec![BlockSize {
                bytes: FILE_CHUNK,
                weight: 100,
            }];
            job.size_bytes = None;
            job.io_count = Some(cfg.files);
        }
    }
    job
}

fn job_result(job: &Job, test: Test, m: Measured, target: &TargetFacts) -> JobResult {
    let mut target = target.clone();
    if test.kind() == Kind::Files {
        target.path = std::path::Path::new(&target.path)
            .with_file_name(FILES_DIR)
            .display()
            .to_string();
        target.size_bytes = 0;
    }
    let elapsed = m.elapsed_ns;
    // The file tests count creates, stats or deletes, each under its own kind of operation.
    let mut operations = std::collections::BTreeMap::new();
    if let Some(op) = test.op() {
        let counted = if test.counts_writes() { &m.write } else { &m.read };
        operations.insert(op, counted.result(elapsed));
    }
    let io = test.op().is_none();
    JobResult {
        job: job.clone(),
        test: Some(test.name().to_string()),
        target,
        engine: EngineKind::Sync.name().to_string(),
        measure_start_unix_ms: 0,
        elapsed_ns: elapsed,
        ramp_ns: 0,
        read: (io && test.has_read()).then(|| m.read.result(elapsed)),
        write: (io && test.has_write()).then(|| m.write.result(elapsed)),
        operations,
        syncs: m.syncs,
        cpu_user_ns: m.cpu_user_ns,
        cpu_system_ns: m.cpu_system_ns,
        series: Vec::new(),
        incomplete: m.stopped || m.error.is_some(),
        cluster: None,
    }
}

fn describe(cfg: &Config, test: Test) -> String {
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / MIB as f64);
    match test {
        Test::PutChar => crate::t!("bonnie-step-put-char", size = mib(cfg.char_bytes)),
        Test::PutBlock => crate::t!(
            "bonnie-step-put-block",
            size = mib(cfg.size_bytes),
            block = cfg.chunk_bytes
        ),
        Test::Rewrite => crate::t!("bonnie-step-rewrite", size = mib(cfg.size_bytes)),
        Test::GetChar => crate::t!("bonnie-step-get-char", size = mib(cfg.char_bytes)),
        Test::GetBlock => crate::t!(
            "bonnie-step-get-block",
            size = mib(cfg.size_bytes),
            block = cfg.chunk_bytes
        ),
        Test::Seeks => crate::t!("bonnie-step-seeks", seeks = cfg.seeks, seekers = cfg.seekers),
        _ => crate::t!("bonnie-step-files", files = cfg.files),
    }
}

/// Removes what kura created in DIR; `check_target` made sure nothing was there before.
/// The data file only while its name leads to the file this run made; the
/// directory of small files only while it is the one this run made, and in
/// it only regular files (what bonnie's tests make), never recursively.
fn cleanup(cfg: &Config, data_id: FileId, files_id: FileId, warnings: &mut Vec<String>) {
    let data = cfg.data_path();
    match std::fs::symlink_metadata(&data) {
        Ok(m) if m.is_file() && Some((m.dev(), m.ino())) == data_id => {
            if let Err(e) = std::fs::remove_file(&data) {
                warnings.push(format!("{}: {e}", data.display()));
            }
        }
        Ok(_) => warnings.push(not_ours(&data).to_string()),
        Err(_) => {}
    }
    let files = cfg.files_path();
    if std::fs::symlink_metadata(&files).is_err() {
        return;
    }
    let held = Dir::open_own(&files).and_then(|d| Ok((d.identity()?, d)));
    let dir = match held {
        Ok((id, dir)) if Some(id) == files_id => dir,
        _ => {
            warnings.push(not_ours(&files).to_string());
            return;
        }
    };
    let removed = dir.regular_files().and_then(|(names, other)| {
        for name in &names {
            dir.unlink(name)?;
        }
        if other {
            return Err(io::Error::other(
                "it holds entries kura did not make (left, with the directory)",
            ));
        }
        std::fs::remove_dir(&files)
    });
    if let Err(e) = removed {
        warnings.push(format!("{}: {e}", files.display()));
    }
}

/// The jobs of a bonnie run, for the one runner: every test `cfg.runs`
/// times in bonnie++'s order, each a job of the bonnie kind.
pub fn jobs(cfg: &Config, seed: u32) -> Vec<Job> {
    (1..=cfg.runs)
        .flat_map(|repetition| {
            cfg.tests()
                .into_iter()
                .map(move |test| job_for(cfg, test, repetition, seed))
        })
        .collect()
}

/// The state bonnie's tests share while the runner runs them one after
/// another: the settings, the random draws of the current repetition, and
/// the names of the current set of small files.
pub struct BonnieRun {
    cfg: Config,
    target: TargetFacts,
    repetition: u32,
    rng: SmallRng,
    names: Vec<CString>,
    /// The data file this run made, for the tests that open it again and for cleanup.
    data_id: FileId,
    /// The directory of small files this run made last.
    files_id: FileId,
}

impl BonnieRun {
    /// From the first job of a bonnie run; refuses a DIR that holds
    /// anything kura would overwrite, or that has no room.
    pub fn new(job: &Job, p: &BonnieParams) -> Result<BonnieRun, String> {
        let dir = job
            .target
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut cfg = Config::new(dir, p.size_bytes, p.chunk_bytes, p.files);
        cfg.char_bytes = p.char_bytes;
        cfg.seeks = p.seeks;
        cfg.seekers = p.seekers;
        cfg.runs = p.runs;
        cfg.label = job.label.clone();
        check_target(&cfg)?;
        let logical = crate::targets::logical_block_bytes(&cfg.dir);
        let target =
            crate::targets::target_facts(&cfg.data_path(), TargetKind::File, cfg.size_bytes, logical, true);
        Ok(BonnieRun {
            cfg,
            target,
            repetition: 0,
            rng: SmallRng::seed_from_u64(p.seed as u64),
            names: Vec::new(),
            data_id: None,
            files_id: None,
        })
    }

    /// What the job is about to do, for the progress line.
    pub fn describe(&self, p: &BonnieParams) -> String {
        let Some(test) = Test::from_name(&p.test) else {
            return p.test.clone();
        };
        let round = if p.runs > 1 {
            crate::t!("step-repetition", repetition = p.repetition, runs = p.runs)
        } else {
            String::new()
        };
        format!(
            "{}{round}: {}",
            crate::i18n::heading(test.name()),
            describe(&self.cfg, test)
        )
    }

    /// Measures one test. `Err` when nothing was measured (a setup
    /// failure); `Ok` with the failure that ended the test, if one did.
    pub fn run(
        &mut self,
        job: &Job,
        p: &BonnieParams,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String> {
        let test =
            Test::from_name(&p.test).ok_or_else(|| format!("{}: not one of bonnie++'s tests", p.test))?;
        if p.repetition != self.repetition {
            // Every repetition draws the same seeks and names, as bonnie++ -x does.
            self.repetition = p.repetition;
            self.rng = SmallRng::seed_from_u64(p.seed as u64);
            self.names.clear();
        }
        let mut session = Session {
            cfg: &self.cfg,
            stop,
            rng: self.rng.clone(),
            names: std::mem::take(&mut self.names),
            data_id: self.data_id,
            files_id: self.files_id,
        };
        let measured = session.measure(test);
        self.rng = session.rng;
        self.names = session.names;
        self.data_id = session.data_id;
        self.files_id = session.files_id;
        let m = measured.map_err(|e| format!("{}: {e}", test.name()))?;
        let error = m.error.clone().map(|e| format!("{}: {e}", test.name()));
        Ok((job_result(job, test, m, &self.target), error))
    }

    /// Removes what kura created in DIR, unless `keep`; `errors` gets what could not be removed.
    pub fn cleanup(&self, keep: bool, warnings: &mut Vec<String>) {
        if !keep {
            cleanup(&self.cfg, self.data_id, self.files_id, warnings);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_in_creation_order_only_when_sequential() {
        let mut rng = SmallRng::seed_from_u64(7);
        let seq = make_names(&mut rng, 300, false);
        let mut sorted = seq.clone();
        sorted.sort();
        assert_eq!(seq, sorted);
        assert!(seq[17].to_str().unwrap().starts_with("0000000011"));
        let random = make_names(&mut rng, 300, true);
        let mut sorted = random.clone();
        sorted.sort();
        assert_ne!(random, sorted);
        assert!(random.iter().all(|n| {
            let n = n.to_bytes();
            n.len() >= 10 && n.len() <= 22
        }));
    }

    #[test]
    fn the_data_file_is_reopened_and_removed_only_while_it_is_the_one_kura_made() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::new(dir.path().to_path_buf(), 1 << 20, 8192, 0);
        let path = cfg.data_path();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious data").unwrap();
        let mut id = None;
        drop(create_new(&path, &mut id).unwrap());
        assert!(open_rw(&path, id).is_ok());
        // A symlink put at the name between two tests: not followed, not removed.
        std::fs::rename(&path, dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = open_rw(&path, id).unwrap_err().to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let err = create_new(&path, &mut id).unwrap_err().to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let mut warnings = Vec::new();
        cleanup(&cfg, id, None, &mut warnings);
        assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious data");
        // Another regular file put there: the same.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone's file").unwrap();
        assert!(open_rw(&path, id).is_err());
        cleanup(&cfg, id, None, &mut warnings);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone's file");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        // Its own file, put back, is removed.
        std::fs::rename(dir.path().join("moved"), &path).unwrap();
        cleanup(&cfg, id, None, &mut warnings);
        assert!(!path.exists());
    }

    #[test]
    fn the_small_files_directory_is_removed_only_while_it_is_the_one_kura_made() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::new(dir.path().to_path_buf(), 1 << 20, 8192, 1);
        let stop = AtomicBool::new(false);
        let mut session = Session {
            cfg: &cfg,
            stop: &stop,
            rng: SmallRng::seed_from_u64(1),
            names: Vec::new(),
            data_id: None,
            files_id: None,
        };
        let m = session.create(false).unwrap();
        assert!(m.error.is_none(), "{:?}", m.error);
        let files = cfg.files_path();
        let made = session.files_id;
        // A real directory with someone's data swapped in between two tests.
        std::fs::rename(&files, dir.path().join("moved")).unwrap();
        std::fs::create_dir(&files).unwrap();
        std::fs::write(files.join("precious"), b"data").unwrap();
        let Err(err) = session.measure(Test::SeqDelete) else {
            panic!("the delete test ran in a directory kura did not make");
        };
        let err = err.to_string();
        assert!(err.contains("not the file kura made"), "{err}");
        let mut warnings = Vec::new();
        cleanup(&cfg, None, made, &mut warnings);
        assert_eq!(std::fs::read(files.join("precious")).unwrap(), b"data");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // Its own directory put back: its files and it are removed.
        std::fs::remove_file(files.join("precious")).unwrap();
        std::fs::remove_dir(&files).unwrap();
        std::fs::rename(dir.path().join("moved"), &files).unwrap();
        cleanup(&cfg, None, made, &mut warnings);
        assert!(!files.exists(), "{warnings:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn shuffle_keeps_every_item() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut v: Vec<u32> = (0..1000).collect();
        shuffle(&mut rng, &mut v);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        v.sort();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn sizes_follow_bonnies_rules() {
        assert_eq!(parse_chunk("8k"), Ok(8192));
        assert_eq!(parse_chunk("256"), Ok(256));
        assert_eq!(parse_chunk("1m"), Ok(1 << 20));
        for bad in ["128", "3k", "2m", "x"] {
            assert!(parse_chunk(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_file_size("4m"), Ok(4 << 20));
        assert_eq!(parse_file_size("0"), Ok(0));
        assert!(
            parse_file_size("1500k")
                .unwrap_err()
                .contains("whole number of MiB")
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
        assert!(cache_warning(16 * MIB, GIB).unwrap().contains("measure memory"));
        assert_eq!(cache_warning(2 * GIB, GIB), None);
    }

    #[test]
    fn cgroup_limits_of_v1_and_v2_with_parents() {
        let root = tempfile::tempdir().unwrap();
        let v1 = root.path().join("memory/a/b");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "536870912\n").unwrap();
        std::fs::write(
            root.path().join("memory/memory.limit_in_bytes"),
            "9223372036854771712\n",
        )
        .unwrap();
        let v2 = root.path().join("unified/c");
        std::fs::create_dir_all(&v2).unwrap();
        std::fs::write(v2.join("memory.max"), "max\n").unwrap();
        std::fs::write(root.path().join("unified/memory.max"), "1073741824\n").unwrap();
        let text = "4:memory:/a/b\n3:cpu:/x\n0::/c\n";
        let mut limits = cgroup_limits(text, root.path());
        limits.sort();
        assert_eq!(limits, vec![1 << 29, 1 << 30, 9223372036854771712]);
        assert_eq!(mem_total("MemTotal:  1024 kB\n"), Some(1 << 20));
        assert!(usable_memory_bytes() > 0);
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
