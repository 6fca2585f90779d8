//! One file-set thread: draws an operation from the mix (a 100-entry table,
//! no search), picks a file it owns (files are split between threads by
//! index, so no two threads race on one name), times the operation's own
//! system call(s) and records it by kind. Names and paths are built in
//! fixed buffers and data comes from one buffer made up front: nothing is
//! allocated per operation. The opens and closes an operation needs around
//! its timed call (a read's open, an fsync's open) are not timed or counted:
//! each drawn operation is one recorded operation, so the shares of a
//! result are the mix's.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::jobs::Job;
use crate::jobs::fileset::{FileIo, FileOp, FileSelect, Mix, Resolved};
use crate::metrics::collect::{DirCollector, IntervalSample, thread_cpu_ns};
use crate::metrics::histogram::{new_histogram, record};
use crate::targets::fileset::{
    FileSet, NameBuf, fill_buffer, for_each_entry, getdents, open_at, open_for_write, write_new_durable_file,
    write_new_file,
};

/// What one thread is given.
pub struct ThreadPlan<'a> {
    pub set: &'a FileSet,
    pub r: &'a Resolved,
    pub job: &'a Job,
    pub thread: u32,
    pub start: Instant,
    pub stop: &'a AtomicBool,
    pub samples: Sender<IntervalSample>,
    /// mdtest's phases start together, as its tasks do after each barrier.
    pub barrier: &'a Barrier,
    /// IO500's stonewall on the first phase, create (`stonewall.rs`).
    pub stonewall: Option<std::sync::Arc<super::stonewall::WallSync>>,
}

/// What one thread measured, by `FileOp` in `FileOp::ALL`'s order.
#[derive(Default)]
pub struct ThreadOutput {
    pub ops: Vec<DirCollector>,
    pub skipped: u64,
    pub measured_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    pub fatal: Option<String>,
    pub restore_errors: Vec<String>,
    /// mdtest: how long each phase took this thread, by `FileOp`; its rate is over that time.
    pub phase_ns: Vec<u64>,
}

enum Outcome {
    Done { ns: u64, bytes: u64 },
    Failed { errno: i32, index: u64 },
    Skipped,
}

/// The files a thread owns: slot `k` is file `first + k * step` of the set,
/// or file `k` of its own directory (mdtest's unique directories). Slots
/// from `n` on are spares, absent at the start: a create finds room in a
/// full set, and the job ends by removing them again.
struct Files {
    first: u64,
    step: u64,
    /// Slots of files the set holds.
    n: u64,
    /// All slots, spares included.
    all: u64,
    per_leaf: u64,
    leaves: u64,
    own_leaf: Option<usize>,
    live: Vec<bool>,
    live_count: u64,
}

impl Files {
    /// The slot's directory, its number there, and its index for sizes.
    fn locate(&self, k: u64) -> (usize, u64, u64) {
        if k >= self.n {
            // Spares spread over the leaves, numbered past the set's own files.
            let spare = self.first + (k - self.n) * self.step;
            return match self.own_leaf {
                Some(leaf) => (leaf, k, spare),
                None => (
                    (spare % self.leaves) as usize,
                    self.per_leaf + spare / self.leaves,
                    spare,
                ),
            };
        }
        let index = self.first + k * self.step;
        match self.own_leaf {
            Some(leaf) => (leaf, k, index),
            None => ((index / self.per_leaf) as usize, index % self.per_leaf, index),
        }
    }

    fn set_live(&mut self, k: u64, live: bool) {
        let slot = &mut self.live[k as usize];
        if *slot != live {
            *slot = live;
            if live {
                self.live_count += 1;
            } else {
                self.live_count -= 1;
            }
        }
    }
}

enum Pick {
    Random,
    Sequential {
        next: u64,
    },
    /// Cumulative shares of the slots, the first the hottest.
    Zipf {
        cdf: Vec<f64>,
    },
}

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

fn errno_of(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

fn last_errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn ns_since(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// The file an operation acts on: the thread's slot `k`, its directory
/// (leaf and descriptor), its name's number `j` there, its index in the set
/// and its size.
struct FileAt {
    k: u64,
    leaf: usize,
    dir: RawFd,
    j: u64,
    index: u64,
    size: u64,
}

struct Thread<'a> {
    plan: ThreadPlan<'a>,
    rng: SmallRng,
    files: Files,
    pick: Pick,
    name: NameBuf,
    name2: NameBuf,
    path: [u8; 1024],
    buf: Vec<u8>,
    dents: Vec<u8>,
    ops: Vec<DirCollector>,
    seq_offset: u64,
    extra_dirs: Vec<(usize, u64)>,
    next_extra: u64,
    skipped: u64,
    /// openat2 is missing (ENOSYS): lookups walk with fstatat instead.
    no_openat2: bool,
    phase_ns: Vec<u64>,
    measure_from: Instant,
    /// The period being summed for the interval series.
    period: Period,
    cpu_at: (u64, u64),
}

struct Period {
    index: u64,
    end: Instant,
    hist: Histogram<u64>,
    reads: u64,
    writes: u64,
    bytes: u64,
    read_lat_ns: u64,
    write_lat_ns: u64,
}

pub fn run_thread(plan: ThreadPlan<'_>) -> ThreadOutput {
    let mut t = Thread::new(plan);
    let cpu0 = thread_cpu_ns();
    let phases = matches!(t.plan.r.mix, Mix::Phases { .. });
    if phases {
        t.phases();
    } else {
        t.weighted();
    }
    let end = Instant::now();
    t.flush_periods(end, true);
    let measured_ns = end.saturating_duration_since(t.measure_from).as_nanos() as u64;
    let cpu = thread_cpu_ns();
    let restore_errors = if t.plan.r.mix.makes_files() {
        t.remove_phase_leftovers()
    } else {
        t.restore()
    };
    ThreadOutput {
        ops: std::mem::take(&mut t.ops),
        skipped: t.skipped,
        measured_ns,
        cpu_user_ns: cpu.0.saturating_sub(cpu0.0),
        cpu_system_ns: cpu.1.saturating_sub(cpu0.1),
        fatal: None,
        restore_errors,
        phase_ns: std::mem::take(&mut t.phase_ns),
    }
}

impl<'a> Thread<'a> {
    fn new(plan: ThreadPlan<'a>) -> Thread<'a> {
        let r = plan.r;
        // Over every rank's threads when ranks share the set (cluster --shared).
        let (owner, owners) = super::owner(plan.thread, plan.job.threads.max(1));
        let threads = u64::from(owners);
        let t = u64::from(owner);
        let total = r.total_files();
        let leaves = plan.set.leaf_count().max(1) as u64;
        let (first, n, own_leaf, spares) = match r.mix {
            Mix::Phases { shared, .. } => {
                let n = total / threads + u64::from(t < total % threads);
                let own = (!shared).then_some((t % leaves) as usize);
                (t, n, own, 0)
            }
            Mix::Weighted(_) => {
                let n = if t < total {
                    (total - t).div_ceil(threads)
                } else {
                    0
                };
                (t, n, None, n.max(16))
            }
        };
        let live = !r.mix.makes_files();
        let all = n + spares;
        let mut live_slots = vec![false; all as usize];
        if live {
            live_slots[..n as usize].fill(true);
        }
        let files = Files {
            first,
            step: threads,
            n,
            all,
            per_leaf: r.files.max(1),
            leaves,
            own_leaf,
            live: live_slots,
            live_count: if live { n } else { 0 },
        };
        let pick = match r.fileselect {
            FileSelect::Random => Pick::Random,
            FileSelect::Sequential => Pick::Sequential { next: 0 },
            FileSelect::Zipf { theta } => {
                let mut sum = 0.0;
                let mut cdf: Vec<f64> = (1..=files.all)
                    .map(|i| {
                        sum += (i as f64).powf(-theta);
                        sum
                    })
                    .collect();
                for c in &mut cdf {
                    *c /= sum.max(f64::MIN_POSITIVE);
                }
                Pick::Zipf { cdf }
            }
        };
        let chunk = r
            .xfersize_bytes
            .unwrap_or_else(|| r.sizes.max().min(1 << 20))
            .max(4096);
        let seed = plan.job.seed.unwrap_or(0) ^ (t << 48) ^ 0x6669_6c65;
        let measure_from = plan.start + plan.job.ramp;
        let interval = plan.job.interval.max(Duration::from_millis(10));
        Thread {
            rng: SmallRng::seed_from_u64(seed),
            buf: fill_buffer(chunk as usize, seed),
            files,
            pick,
            name: NameBuf::default(),
            name2: NameBuf::default(),
            path: [0; 1024],
            dents: vec![0; 32 * 1024],
            ops: FileOp::ALL.iter().map(|_| DirCollector::default()).collect(),
            seq_offset: 0,
            extra_dirs: Vec::with_capacity(1024),
            next_extra: 0,
            skipped: 0,
            no_openat2: false,
            phase_ns: vec![0; FileOp::ALL.len()],
            measure_from,
            period: Period {
                index: 0,
                end: measure_from + interval,
                hist: new_histogram(),
                reads: 0,
                writes: 0,
                bytes: 0,
                read_lat_ns: 0,
                write_lat_ns: 0,
            },
            cpu_at: thread_cpu_ns(),
            plan,
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.rng.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A slot whose file exists (`want_live`) or does not; `None` when there is none.
    fn select(&mut self, want_live: bool) -> Option<u64> {
        let n = self.files.all;
        let have = if want_live {
            self.files.live_count
        } else {
            n - self.files.live_count
        };
        if have == 0 {
            return None;
        }
        // Random picks draw again when they land in the wrong state, so a
        // run of absent files does not send its share to the file after it.
        let draws = if matches!(self.pick, Pick::Sequential { .. }) {
            1
        } else {
            16
        };
        let mut k = 0;
        for _ in 0..draws {
            k = self.draw(n);
            if self.files.live[k as usize] == want_live {
                return Some(k);
            }
        }
        // Bounded by `n`; reached only when most slots are in the other state.
        for _ in 0..n {
            if self.files.live[k as usize] == want_live {
                return Some(k);
            }
            k = if k + 1 == n { 0 } else { k + 1 };
        }
        None
    }

    fn draw(&mut self, n: u64) -> u64 {
        match &mut self.pick {
            Pick::Random => self.below(n),
            Pick::Sequential { next } => {
                let k = *next % n;
                *next = k + 1;
                k
            }
            Pick::Zipf { cdf } => {
                let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                (cdf.partition_point(|c| *c < u) as u64).min(n - 1)
            }
        }
    }

    fn weighted(&mut self) {
        let Mix::Weighted(weights) = &self.plan.r.mix else {
            return;
        };
        let mut table = [FileOp::Getattr; 100];
        let mut at = 0usize;
        for (op, pct) in weights {
            for _ in 0..*pct {
                if at < 100 {
                    table[at] = *op;
                    at += 1;
                }
            }
        }
        let job = self.plan.job;
        let end = job.runtime.map(|r| self.measure_from + r);
        let threads = u64::from(job.threads.max(1));
        let t = u64::from(self.plan.thread);
        let op_limit = job.io_count.map(|c| c / threads + u64::from(t < c % threads));
        // The job's rate on one grid for all threads (worker/pace.rs).
        let pace = job
            .pace_iops()
            .map(|r| crate::worker::pace::EvenPace::new(r, job.threads, self.plan.thread));
        let think_every = u64::from(job.think_every.unwrap_or(1).max(1));
        let mut issued = 0u64;
        let mut done = 0u64;
        loop {
            if self.plan.stop.load(Ordering::Relaxed) || op_limit.is_some_and(|l| done >= l) {
                break;
            }
            if let Some(p) = pace {
                let due = self.plan.start + Duration::from_nanos(p.due_ns(issued) as u64);
                self.sleep_until(due, end);
                issued += 1;
            }
            let now = Instant::now();
            if end.is_some_and(|e| now >= e) {
                break;
            }
            let op = table[self.below(100) as usize];
            let outcome = self.run_op(op, None);
            let now = Instant::now();
            self.record(op, outcome, now);
            if now >= self.measure_from {
                done += 1;
            }
            if let Some(think) = job.think_time
                && done.is_multiple_of(think_every)
            {
                std::thread::sleep(think);
            }
        }
    }

    fn sleep_until(&self, due: Instant, end: Option<Instant>) {
        let until = end.map_or(due, |e| due.min(e));
        while !self.plan.stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now >= until {
                return;
            }
            std::thread::sleep((until - now).min(Duration::from_millis(50)));
        }
    }

    /// mdtest: every owned file created, then stat-ed, read, removed; the
    /// threads start each phase together. Runs to the end of the phases
    /// (runtime does not cut them short); Ctrl-C does.
    fn phases(&mut self) {
        let Mix::Phases { phases, .. } = &self.plan.r.mix else {
            return;
        };
        // With a stonewall, the later phases take only the files the first made.
        let mut files = self.files.n;
        for (i, &phase) in phases.iter().enumerate() {
            self.plan.barrier.wait();
            let t0 = Instant::now();
            let wall = (i == 0 && phase == FileOp::Create)
                .then(|| self.plan.stonewall.clone())
                .flatten();
            let mut done = 0;
            for k in 0..files {
                if self.plan.stop.load(Ordering::Relaxed)
                    || wall.as_ref().is_some_and(|w| t0.elapsed() >= w.deadline)
                {
                    break;
                }
                let outcome = self.run_op(phase, Some(k));
                self.record(phase, outcome, Instant::now());
                done = k + 1;
            }
            if let Some(w) = wall {
                // Wear-out: up to the largest count any thread of any rank reached.
                let c = &self.ops[phase as usize];
                let target = w.report(done, c.bytes).min(files);
                while done < target && !self.plan.stop.load(Ordering::Relaxed) {
                    let outcome = self.run_op(phase, Some(done));
                    self.record(phase, outcome, Instant::now());
                    done += 1;
                }
                files = done;
            }
            self.phase_ns[phase as usize] = ns_since(t0);
        }
    }

    /// After phases that made their own files: what is left of them (a
    /// stopped run's, or phases without a delete) and the directories a
    /// mkdir phase made are removed, untimed; the set holds only directories.
    fn remove_phase_leftovers(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        for k in 0..self.files.all {
            if self.files.live[k as usize] {
                let (leaf, j, _) = self.files.locate(k);
                let dir = self.plan.set.leaf_fd(leaf);
                // SAFETY: the name is NUL-terminated and the directory open for the call.
                if unsafe { libc::unlinkat(dir, self.name.file(j).as_ptr(), 0) } != 0 {
                    errors.push(format!("removing f{j}: {}", io::Error::last_os_error()));
                }
            }
        }
        errors.extend(self.remove_extra_dirs());
        errors
    }

    /// The thread's number among the threads that own files of the set.
    fn owner(&self) -> u32 {
        super::owner(self.plan.thread, self.plan.job.threads.max(1)).0
    }

    fn remove_extra_dirs(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        while let Some((leaf, n)) = self.extra_dirs.pop() {
            let name = self.name.extra_dir(self.owner(), n);
            // SAFETY: the name is NUL-terminated and the directory open for the call.
            if unsafe { libc::unlinkat(self.plan.set.leaf_fd(leaf), name.as_ptr(), libc::AT_REMOVEDIR) } != 0
            {
                errors.push(format!(
                    "removing x{}-{n}: {}",
                    self.owner(),
                    io::Error::last_os_error()
                ));
            }
        }
        errors
    }

    fn record(&mut self, op: FileOp, outcome: Outcome, now: Instant) {
        if now < self.measure_from {
            return;
        }
        self.flush_periods(now, false);
        let c = &mut self.ops[op as usize];
        match outcome {
            Outcome::Done { ns, bytes } => {
                c.success(bytes, ns);
                record(&mut self.period.hist, ns);
                self.period.bytes += bytes;
                if op.modifies() {
                    self.period.writes += 1;
                    self.period.write_lat_ns += ns;
                } else {
                    self.period.reads += 1;
                    self.period.read_lat_ns += ns;
                }
            }
            Outcome::Failed { errno, index } => c.failure(errno, index),
            Outcome::Skipped => self.skipped += 1,
        }
    }

    /// Sends every period that ended by `now` (and, at the end, the last one, cut short).
    fn flush_periods(&mut self, now: Instant, last: bool) {
        let interval = self.plan.job.interval.max(Duration::from_millis(10));
        while now >= self.period.end || last {
            let cpu = thread_cpu_ns();
            let p = &mut self.period;
            let _ = self.plan.samples.send(IntervalSample {
                thread: self.plan.thread,
                index: p.index,
                read_ops: p.reads,
                write_ops: p.writes,
                bytes: p.bytes,
                hist: std::mem::replace(&mut p.hist, new_histogram()),
                read_lat_ns: p.read_lat_ns,
                write_lat_ns: p.write_lat_ns,
                cpu_user_ns: cpu.0.saturating_sub(self.cpu_at.0),
                cpu_system_ns: cpu.1.saturating_sub(self.cpu_at.1),
                dir_hists: None,
            });
            self.cpu_at = cpu;
            p.index += 1;
            p.end += interval;
            (p.reads, p.writes, p.bytes, p.read_lat_ns, p.write_lat_ns) = (0, 0, 0, 0, 0);
            if last {
                return;
            }
        }
    }

    /// Where a transfer of `len` in a file of `size` starts.
    fn offset(&mut self, size: u64, len: u64) -> u64 {
        if len >= size {
            return 0;
        }
        match self.plan.r.fileio {
            FileIo::Random => self.below(size / len) * len,
            FileIo::Sequential => {
                if self.seq_offset + len > size {
                    self.seq_offset = 0;
                }
                let at = self.seq_offset;
                self.seq_offset += len;
                at
            }
        }
    }

    fn run_op(&mut self, op: FileOp, slot: Option<u64>) -> Outcome {
        match op {
            // A create needs a slot whose file is absent; every other file operation one whose file is there.
            FileOp::Create => self.on_file(slot, false, Thread::create),
            FileOp::Delete => self.on_file(slot, true, Thread::delete),
            FileOp::Open => self.on_file(slot, true, Thread::open),
            FileOp::Close => self.on_file(slot, true, Thread::close),
            FileOp::Read | FileOp::Write => self.on_file(slot, true, |t, f| {
                t.transfer(op == FileOp::Write, f.dir, f.j, f.index, f.size)
            }),
            FileOp::Getattr => self.on_file(slot, true, Thread::getattr),
            FileOp::Setattr => self.on_file(slot, true, Thread::setattr),
            FileOp::Lookup => self.on_file(slot, true, |t, f| t.lookup(f.leaf, f.j, f.index)),
            FileOp::Rename => self.on_file(slot, true, Thread::rename),
            FileOp::Fsync => self.on_file(slot, true, Thread::fsync),
            FileOp::Readdir => self.readdir(),
            FileOp::Mkdir => self.mkdir(),
            FileOp::Rmdir => self.rmdir(),
        }
    }

    /// Runs `act` on the file of `slot`, or of a slot picked whose file is
    /// there (`want_live`) or not; skipped when no slot is in that state.
    fn on_file(
        &mut self,
        slot: Option<u64>,
        want_live: bool,
        act: impl FnOnce(&mut Self, &FileAt) -> Outcome,
    ) -> Outcome {
        match slot.or_else(|| self.select(want_live)) {
            Some(k) => {
                let f = self.file_at(k);
                act(self, &f)
            }
            None => Outcome::Skipped,
        }
    }

    fn file_at(&self, k: u64) -> FileAt {
        let (leaf, j, index) = self.files.locate(k);
        let set = self.plan.set;
        FileAt {
            k,
            leaf,
            dir: set.leaf_fd(leaf),
            j,
            index,
            size: set.sizes.size_of(set.seed, index),
        }
    }

    fn create(&mut self, f: &FileAt) -> Outcome {
        // Before the clock: a few bytes per 4 KiB block, so no two files share a block.
        crate::targets::fileset::stamp(&mut self.buf, self.plan.set.seed, f.index);
        let t0 = Instant::now();
        let made = match self.plan.r.fsync_on_close {
            false => write_new_file(f.dir, self.name.file(f.j), f.size, &self.buf),
            true => write_new_durable_file(f.dir, self.name.file(f.j), f.size, &self.buf),
        };
        match made {
            Ok(()) => {
                let ns = ns_since(t0);
                self.files.set_live(f.k, true);
                Outcome::Done { ns, bytes: f.size }
            }
            Err(e) => Outcome::Failed {
                errno: errno_of(&e),
                index: f.index,
            },
        }
    }

    fn delete(&mut self, f: &FileAt) -> Outcome {
        let name = self.name.file(f.j);
        let t0 = Instant::now();
        // SAFETY: the name is NUL-terminated and the directory open for the call.
        let rc = unsafe { libc::unlinkat(f.dir, name.as_ptr(), 0) };
        let ns = ns_since(t0);
        if rc == 0 {
            self.files.set_live(f.k, false);
            Outcome::Done { ns, bytes: 0 }
        } else {
            Outcome::Failed {
                errno: last_errno(),
                index: f.index,
            }
        }
    }

    /// The open alone is timed; the close is not.
    fn open(&mut self, f: &FileAt) -> Outcome {
        let t0 = Instant::now();
        match open_at(f.dir, self.name.file(f.j), libc::O_RDONLY, 0) {
            Ok(fd) => {
                let ns = ns_since(t0);
                drop(fd);
                Outcome::Done { ns, bytes: 0 }
            }
            Err(e) => Outcome::Failed {
                errno: errno_of(&e),
                index: f.index,
            },
        }
    }

    /// The close alone is timed; the open is not.
    fn close(&mut self, f: &FileAt) -> Outcome {
        match open_at(f.dir, self.name.file(f.j), libc::O_RDONLY, 0) {
            Ok(fd) => {
                let t0 = Instant::now();
                drop(fd);
                Outcome::Done {
                    ns: ns_since(t0),
                    bytes: 0,
                }
            }
            Err(e) => Outcome::Failed {
                errno: errno_of(&e),
                index: f.index,
            },
        }
    }

    fn getattr(&mut self, f: &FileAt) -> Outcome {
        // SAFETY: `stat` is plain C data; all-zero bytes are a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let name = self.name.file(f.j);
        let t0 = Instant::now();
        // SAFETY: the name is NUL-terminated, `st` writable, the directory open.
        let rc = unsafe { libc::fstatat(f.dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        self.done_or_errno(rc, t0, f.index)
    }

    fn setattr(&mut self, f: &FileAt) -> Outcome {
        // Times, not modes: fchmodat cannot refuse to follow a symlink on Linux.
        let name = self.name.file(f.j);
        let t0 = Instant::now();
        // SAFETY: a null `times` means now; the name is NUL-terminated, the directory open.
        let rc =
            unsafe { libc::utimensat(f.dir, name.as_ptr(), std::ptr::null(), libc::AT_SYMLINK_NOFOLLOW) };
        self.done_or_errno(rc, t0, f.index)
    }

    /// Away and back: the file keeps its name (and size) for the rest of the mix;
    /// the way back is not timed.
    fn rename(&mut self, f: &FileAt) -> Outcome {
        let from = self.name.file(f.j).as_ptr();
        let to = self.name2.renamed(f.j).as_ptr();
        let t0 = Instant::now();
        // SAFETY: both names are NUL-terminated in their buffers, which outlive the call.
        let rc = unsafe { libc::renameat2(f.dir, from, f.dir, to, libc::RENAME_NOREPLACE) };
        let ns = ns_since(t0);
        if rc != 0 {
            return Outcome::Failed {
                errno: last_errno(),
                index: f.index,
            };
        }
        // SAFETY: as above, the other way.
        let back = unsafe { libc::renameat2(f.dir, to, f.dir, from, libc::RENAME_NOREPLACE) };
        if back != 0 {
            self.files.set_live(f.k, false);
        }
        Outcome::Done { ns, bytes: 0 }
    }

    /// The fsync alone is timed; the open for writing is not.
    fn fsync(&mut self, f: &FileAt) -> Outcome {
        match open_for_write(f.dir, self.name.file(f.j)) {
            Ok(fd) => {
                let t0 = Instant::now();
                // SAFETY: fsync only reads the descriptor, which is open.
                let rc = unsafe { libc::fsync(fd.as_raw_fd()) };
                self.done_or_errno(rc, t0, f.index)
            }
            Err(e) => Outcome::Failed {
                errno: errno_of(&e),
                index: f.index,
            },
        }
    }

    /// Lists the directory of a random slot's file, whether that file is there or not.
    fn readdir(&mut self) -> Outcome {
        let k = self.below(self.files.all.max(1));
        let (leaf, _, index) = self.files.locate(k);
        let dir = self.plan.set.leaf_fd(leaf);
        let t0 = Instant::now();
        let fd = match open_at(dir, c".", libc::O_RDONLY | libc::O_DIRECTORY, 0) {
            Ok(fd) => fd,
            Err(e) => {
                return Outcome::Failed {
                    errno: errno_of(&e),
                    index,
                };
            }
        };
        let mut entries = 0u64;
        loop {
            match getdents(fd.as_raw_fd(), &mut self.dents) {
                Ok(0) => break,
                Ok(n) => for_each_entry(&self.dents[..n], |_| entries += 1),
                Err(e) => {
                    return Outcome::Failed {
                        errno: errno_of(&e),
                        index,
                    };
                }
            }
        }
        drop(fd);
        Outcome::Done {
            ns: ns_since(t0),
            bytes: 0,
        }
    }

    /// Makes one of the thread's extra directories, in a random leaf.
    fn mkdir(&mut self) -> Outcome {
        let set = self.plan.set;
        let leaf = self.below(set.leaf_count() as u64) as usize;
        let n = self.next_extra;
        let name = self.name.extra_dir(self.owner(), n);
        let dir = set.leaf_fd(leaf);
        let t0 = Instant::now();
        // SAFETY: the name is NUL-terminated and the directory open for the call.
        let rc = unsafe { libc::mkdirat(dir, name.as_ptr(), 0o755) };
        let ns = ns_since(t0);
        if rc != 0 {
            return Outcome::Failed {
                errno: last_errno(),
                index: n,
            };
        }
        self.next_extra += 1;
        self.extra_dirs.push((leaf, n));
        Outcome::Done { ns, bytes: 0 }
    }

    /// Removes the thread's newest extra directory; skipped when it has none.
    fn rmdir(&mut self) -> Outcome {
        let Some((leaf, n)) = self.extra_dirs.pop() else {
            return Outcome::Skipped;
        };
        let name = self.name.extra_dir(self.owner(), n);
        let t0 = Instant::now();
        // SAFETY: the name is NUL-terminated and the directory open for the call.
        let rc = unsafe { libc::unlinkat(self.plan.set.leaf_fd(leaf), name.as_ptr(), libc::AT_REMOVEDIR) };
        self.done_or_errno(rc, t0, n)
    }

    fn done_or_errno(&self, rc: libc::c_int, t0: Instant, index: u64) -> Outcome {
        let ns = ns_since(t0);
        if rc == 0 {
            Outcome::Done { ns, bytes: 0 }
        } else {
            Outcome::Failed {
                errno: last_errno(),
                index,
            }
        }
    }

    /// Resolves the file's whole path from the set's root, as a client that
    /// names it does: openat2 with O_PATH, beneath the root, through no symlink.
    fn lookup(&mut self, leaf: usize, j: u64, index: u64) -> Outcome {
        let set = self.plan.set;
        let rel = set.leaf_path(leaf);
        let name = self.name.file(j).to_bytes();
        let len = rel.len() + name.len();
        if len + 1 > self.path.len() {
            return Outcome::Failed {
                errno: libc::ENAMETOOLONG,
                index,
            };
        }
        self.path[..rel.len()].copy_from_slice(rel);
        self.path[rel.len()..len].copy_from_slice(name);
        self.path[len] = 0;
        let how = OpenHow {
            flags: (libc::O_PATH | libc::O_CLOEXEC) as u64,
            mode: 0,
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS,
        };
        if self.no_openat2 {
            // Kernels before 5.6: a walk by fstatat, which does not refuse a symlinked
            // directory on the way but only reads its attributes.
            // SAFETY: `stat` is plain C data; all-zero bytes are a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            let t0 = Instant::now();
            // SAFETY: the path is NUL-terminated in `self.path` and `st` writable for the call.
            let rc = unsafe {
                libc::fstatat(
                    set.root_fd(),
                    self.path.as_ptr().cast(),
                    &mut st,
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            };
            return self.done_or_errno(rc, t0, index);
        }
        let t0 = Instant::now();
        // SAFETY: the path is NUL-terminated in `self.path`, `how` is a valid open_how of the
        // size passed, and both outlive the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                set.root_fd(),
                self.path.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            )
        };
        let ns = ns_since(t0);
        if fd < 0 {
            let errno = last_errno();
            if errno == libc::ENOSYS {
                self.no_openat2 = true;
                return self.lookup(leaf, j, index);
            }
            return Outcome::Failed { errno, index };
        }
        // SAFETY: openat2 returned a descriptor this thread alone holds.
        unsafe { libc::close(fd as RawFd) };
        Outcome::Done { ns, bytes: 0 }
    }

    /// A read or write of `xfersize` (or the whole file) through a descriptor
    /// opened for it; the open and close are not timed.
    fn transfer(&mut self, write: bool, dir: RawFd, j: u64, index: u64, size: u64) -> Outcome {
        let opened = if write {
            open_for_write(dir, self.name.file(j))
        } else {
            open_at(dir, self.name.file(j), libc::O_RDONLY, 0)
        };
        let fd = match opened {
            Ok(fd) => fd,
            Err(e) => {
                return Outcome::Failed {
                    errno: errno_of(&e),
                    index,
                };
            }
        };
        let (offset, len) = match self.plan.r.xfersize_bytes {
            Some(x) => {
                let len = x.min(size);
                (self.offset(size, len), len)
            }
            None => (0, size),
        };
        let raw = fd.as_raw_fd();
        let t0 = Instant::now();
        let mut moved = 0u64;
        while moved < len {
            let n = (len - moved).min(self.buf.len() as u64) as usize;
            let at = (offset + moved) as libc::off_t;
            // SAFETY: `buf` holds at least `n` bytes, readable and writable, for the call.
            let rc = unsafe {
                if write {
                    libc::pwrite(raw, self.buf.as_ptr().cast(), n, at)
                } else {
                    libc::pread(raw, self.buf.as_mut_ptr().cast(), n, at)
                }
            };
            if rc < 0 {
                return Outcome::Failed {
                    errno: last_errno(),
                    index,
                };
            }
            if rc == 0 {
                break;
            }
            moved += rc as u64;
        }
        // SAFETY: fsync only reads the descriptor, which is open.
        if write && self.plan.r.fsync_on_close && unsafe { libc::fsync(raw) } != 0 {
            return Outcome::Failed {
                errno: last_errno(),
                index,
            };
        }
        let ns = ns_since(t0);
        drop(fd);
        Outcome::Done { ns, bytes: moved }
    }

    /// Puts the set back as the job found it: deleted files made again,
    /// directories made by mkdir removed. Not timed.
    fn restore(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        let set = self.plan.set;
        for k in 0..self.files.all {
            let live = self.files.live[k as usize];
            if live == (k < self.files.n) {
                continue;
            }
            let (leaf, j, index) = self.files.locate(k);
            let dir = set.leaf_fd(leaf);
            let result = if live {
                // SAFETY: the name is NUL-terminated and the directory open for the call.
                match unsafe { libc::unlinkat(dir, self.name.file(j).as_ptr(), 0) } {
                    0 => Ok(()),
                    _ => Err(io::Error::last_os_error()),
                }
            } else {
                crate::targets::fileset::stamp(&mut self.buf, set.seed, index);
                crate::targets::fileset::write_untimed_file(
                    dir,
                    self.name.file(j),
                    set.sizes.size_of(set.seed, index),
                    &self.buf,
                )
            };
            if let Err(e) = result {
                errors.push(format!(
                    "{}f{j}: putting the set back: {e}",
                    set.root
                        .join(String::from_utf8_lossy(set.leaf_path(leaf)).as_ref())
                        .display()
                ));
            }
        }
        errors.extend(self.remove_extra_dirs());
        errors
    }
}
