//! The hot loop of one thread: keep `qd` I/Os in flight, replacing each as
//! it completes (fio's way, which measured 14-18 % faster here than
//! submitting the whole depth at once; direct I/O on io_uring sends the
//! replacements a few per call, `Caps::submit_batch`), and record every
//! completion. No allocation,
//! lock or log line per I/O; the clock is read once per submit call (the
//! submit time of the I/Os it carries) and once per batch of completions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::engine::{Buffers, Caps, Completion, Engine, Io, Queued, is_busy};
use crate::jobs::Job;
use crate::jobs::fill::fill_buffer;
use crate::metrics::collect::{DirCollector, IntervalSample, thread_cpu_ns};
use crate::metrics::histogram::new_histogram;
use crate::workload::Generator;

mod verifier;
pub use verifier::{MISMATCH_SAMPLES, ReadCheck, Verifier, VerifyOutput};

/// `Worker::probe_ns` when no reap is looking for completions inside their own call.
const NO_PROBE: u64 = u64::MAX;

/// How often a thread held back by its flow looks again, without `flow_sleep`.
const FLOW_WAIT_NS: u64 = 20_000;

/// Everything one worker thread needs, decided by the runner.
pub struct WorkerPlan {
    pub job: Arc<Job>,
    pub thread: u32,
    pub span_start: u64,
    pub span_bytes: u64,
    pub seed: u64,
    /// The common start of all threads of the job.
    pub start: Instant,
    /// Measurement begins here (start + ramp).
    pub ramp: Duration,
    /// Measurement ends here, for time-based jobs.
    pub runtime: Option<Duration>,
    /// This thread's share of io_count (or of io_size in I/Os).
    pub op_limit: Option<u64>,
    pub byte_limit: Option<u64>,
    pub stop: Arc<AtomicBool>,
    pub samples: Sender<IntervalSample>,
}

/// What a worker measured.
#[derive(Debug, Default)]
pub struct WorkerOutput {
    pub read: DirCollector,
    pub write: DirCollector,
    /// Trims (fio's `rw=trim`...), empty for other jobs.
    pub trim: DirCollector,
    pub syncs: u64,
    /// From the start of measurement to the last counted completion; exactly
    /// the runtime when the deadline ended the job (completions after it are
    /// not counted, as fio does).
    pub measured_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    /// An engine failure (not an I/O error) that ended the worker.
    pub fatal: Option<String>,
    // Verify and errors.
    /// What `verify` found, when the job verifies.
    pub verify: Option<VerifyOutput>,
    /// The errors (failed I/Os and verify mismatches) at which `max_errors` stopped the worker.
    pub stopped_by_errors: Option<u64>,
    /// Why `rate_min`/`rate_iops_min` stopped the worker.
    pub below_min_rate: Option<String>,
}

/// Read and write buffers are separate so that written data keeps the
/// chosen fill instead of whatever the last read brought in.
pub fn make_buffers(job: &Job, seed: u64) -> Buffers {
    let qd = job.qd as usize;
    let mut buffers = Buffers::new(qd * 2, job.max_bs() as usize);
    // fio's buffer_pattern: every written buffer holds the pattern, repeated.
    let pattern = job
        .buffer_pattern
        .as_deref()
        .and_then(|p| crate::jobs::byte_pattern::parse_pattern(p).ok());
    for slot in qd..qd * 2 {
        match &pattern {
            Some(p) => crate::jobs::byte_pattern::fill_pattern(buffers.slot_mut(slot as u32), p),
            None => fill_buffer(
                buffers.slot_mut(slot as u32),
                job.fill,
                seed.wrapping_add(slot as u64),
            ),
        }
    }
    buffers
}

/// A think time or a rate-limit pause wakes this often to notice Ctrl-C.
const NAP_SLICE: Duration = Duration::from_millis(50);
/// A submit refused with EAGAIN/EBUSY and nothing to reap is retried after this pause...
const BUSY_BACKOFF: Duration = Duration::from_micros(100);
/// ...this many times (about a second) before the worker gives up.
const BUSY_RETRIES: u32 = 10_000;

/// One I/O of the queue, from its first submission to its last completion.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// Clock read just before the submit call that carried its first byte.
    submit_ns: u64,
    offset: u64,
    len: u32,
    /// Bytes moved so far; less than `len` only while a short transfer's rest is out.
    done: u32,
    /// Short transfers this I/O needed.
    shorts: u32,
    write: bool,
    trim: bool,
}

/// The loop's state, apart from the engine it drives.
struct Worker<'p> {
    plan: &'p WorkerPlan,
    generator: Generator,
    /// Queue depth the engine can hold (1 for engines that complete inline).
    depth: u32,
    /// Buffer index of a slot's write buffer is `qd + slot` (see `make_buffers`).
    qd: u32,
    /// While refilling the queue, submit once this many I/Os are queued
    /// (`Caps::submit_batch`), not holding a batch until the last is queued:
    /// that measured 10-15 % fewer IOPS at qd 32 on the virtio disk here. 1
    /// (fio's way) once I/Os are seen to complete inside the call that
    /// submitted them (`done_inside_call`), which must then time each alone.
    submit_batch: u32,
    /// I/Os carried by submission calls that were watched (`probe_ns`), and
    /// how many of them completed inside their call.
    probed: u64,
    done_inside: u64,
    /// I/Os queued since the last submission call.
    unsent: u32,
    /// While a reap follows a submission call that did not wait: that call's
    /// stamp, which a completion found then carries if it finished inside the
    /// call. `NO_PROBE` otherwise.
    probe_ns: u64,
    ramp_ns: u64,
    end_ns: Option<u64>,
    interval_ns: u64,
    /// `rate_iops` or `rate`, evenly on the job's grid (`pace.rs`); `None` with
    /// Poisson arrivals or no rate.
    pace: Option<pace::EvenPace>,
    /// fio's rate_process=poisson; `None`: I/Os paced evenly.
    poisson: Option<poisson::PoissonPace>,
    fsync_every: u64,
    /// The engine runs a group's fdatasync beside the next group's writes
    /// (`Engine::queue_sync`) instead of the queue draining before it; off
    /// with `verify`, whose journal calls every write done before a sync durable.
    sync_beside: bool,
    /// Syncs queued and not reaped yet; with the writes in flight they keep
    /// within the queue depth, as each of fio's syncs takes one of its io_us.
    syncs_in_flight: u32,
    think_ns: u64,
    think_every: u64,
    /// fio's flow control (`flow.rs`): this thread's seat in its flow.
    flow: Option<flow::FlowSeat>,
    /// The flow held the last I/O back: nothing in flight waits `flow_sleep`.
    flow_held: bool,
    flow_sleep_ns: u64,

    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Slots to queue before any new I/O: the rest of a short transfer, or an
    /// I/O the engine answered Busy to.
    pending: Vec<u32>,
    /// Slots queued since the last submit call, to be stamped by it.
    unstamped: Vec<u32>,
    /// Slots not free: queued, in the engine, or pending.
    in_flight: u32,
    /// I/Os handed to the engine and not reaped yet.
    in_engine: u32,

    clock: Clock,
    now_ns: u64,
    stopping: bool,
    issued_total: u64,
    issued_measured: u64,
    bytes_issued_measured: u64,
    issued_since_think: u64,
    /// Writes issued since the last fdatasync.
    writes_since_sync: u64,
    last_completion_ns: u64,
    measuring: bool,
    cpu_at_measure: (u64, u64),

    interval_index: u64,
    interval_end_ns: u64,
    interval: IntervalSums,
    cpu_at_interval: (u64, u64),

    out: WorkerOutput,
    /// Stamps writes and checks reads, with `verify`.
    verifier: Option<Verifier>,
    /// Latencies counted but not yet in the histograms (`latency_run.rs`).
    latencies: latency_run::LatencyRun,
    /// Failed I/Os and verify mismatches so far, measured or not.
    errors_seen: u64,
    /// `max_errors`, or never.
    max_errors: u64,
    /// fio's rate_min / rate_iops_min, checked where periods close.
    min_rate: Option<min_rate::MinRateCheck>,
}

/// One period of the series for this thread.
struct IntervalSums {
    hist: hdrhistogram::Histogram<u64>,
    reads: u64,
    writes: u64,
    bytes: u64,
    read_lat_ns: u64,
    write_lat_ns: u64,
    /// With `write_hist_log`: latencies per direction (read, write, trim).
    dir_hists: Option<Box<[hdrhistogram::Histogram<u64>; 3]>>,
}

impl IntervalSums {
    fn new(per_direction: bool) -> IntervalSums {
        IntervalSums {
            dir_hists: per_direction.then(|| Box::new([new_histogram(), new_histogram(), new_histogram()])),
            hist: new_histogram(),
            reads: 0,
            writes: 0,
            bytes: 0,
            read_lat_ns: 0,
            write_lat_ns: 0,
        }
    }
}

/// The TSC with a conversion calibrated once against the OS clock (`quanta`;
/// bench/NOTES.md says why this crate): a read costs about 20 ns here, where
/// `Instant::now` costs 55-70 ns, and the hot loop reads it twice per batch.
/// Without an invariant TSC quanta reads the OS clock instead.
fn tsc() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// Calibrates the worker's clock (about 0.6 ms here, at most 200 ms) before
/// a job's start is taken, so that no worker pays it inside its measured time.
pub fn calibrate_clock() {
    tsc();
}

/// Nanoseconds since the job's common start, read from the TSC.
struct Clock {
    tsc: quanta::Clock,
    origin_raw: u64,
    /// Nanoseconds from the job's start to `origin_raw`.
    origin_ns: u64,
}

impl Clock {
    fn new(start: Instant) -> Clock {
        let tsc = tsc().clone();
        let origin_raw = tsc.raw();
        Clock {
            origin_ns: start.elapsed().as_nanos() as u64,
            origin_raw,
            tsc,
        }
    }

    #[cfg(not(test))]
    #[inline]
    fn elapsed_ns(&self) -> u64 {
        self.origin_ns + self.tsc.delta_as_nanos(self.origin_raw, self.tsc.raw())
    }

    /// Unit tests may script time along with the engine.
    #[cfg(test)]
    fn elapsed_ns(&self) -> u64 {
        crate::engine::scripted::fake_clock_ns()
            .unwrap_or_else(|| self.origin_ns + self.tsc.delta_as_nanos(self.origin_raw, self.tsc.raw()))
    }
}

pub fn run_worker<E: Engine>(plan: WorkerPlan, engine: &mut E) -> WorkerOutput {
    run_worker_checked(plan, engine, None)
}

/// `run_worker` with a verifier stamping writes and checking reads.
pub fn run_worker_checked<E: Engine>(
    plan: WorkerPlan,
    engine: &mut E,
    verifier: Option<Verifier>,
) -> WorkerOutput {
    let mut w = Worker::new(&plan, engine.caps());
    w.sync_beside = verifier.is_none();
    w.verifier = verifier;
    w.run(engine);
    w.finish(engine)
}

impl<'p> Worker<'p> {
    fn new(plan: &'p WorkerPlan, caps: Caps) -> Worker<'p> {
        let job = &plan.job;
        let qd = job.qd;
        let depth = if caps.completes_inline { 1 } else { qd };
        let ramp_ns = plan.ramp.as_nanos() as u64;
        let interval_ns = job.interval.as_nanos() as u64;
        let cpu = thread_cpu_ns();
        Worker {
            plan,
            generator: Generator::new(job, plan.span_start, plan.span_bytes, plan.seed, plan.thread),
            depth,
            qd,
            submit_batch: if depth > 1 { caps.submit_batch.max(1) } else { 1 },
            unsent: 0,
            probe_ns: NO_PROBE,
            probed: 0,
            done_inside: 0,
            ramp_ns,
            end_ns: plan.runtime.map(|r| ramp_ns + r.as_nanos() as u64),
            interval_ns,
            pace: job
                .pace_iops()
                .filter(|_| !job.rate_poisson)
                .map(|r| pace::EvenPace::new(r, job.threads, plan.thread)),
            poisson: job
                .pace_iops()
                .filter(|_| job.rate_poisson)
                .map(|r| poisson::PoissonPace::new(r / job.threads as f64 / 1e9, plan.seed)),
            fsync_every: job.fsync_every.unwrap_or(0),
            sync_beside: true,
            syncs_in_flight: 0,
            think_ns: job.think_time.map_or(0, |d| d.as_nanos() as u64),
            think_every: job.think_every.unwrap_or(1).max(1) as u64,
            flow: (job.flow > 0).then(|| flow::FlowSeat::join(job.flow_id, job.flow, job.exit_all)),
            flow_held: false,
            flow_sleep_ns: job.flow_sleep_ns,
            slots: vec![Slot::default(); depth as usize],
            free: (0..depth).rev().collect(),
            pending: Vec::with_capacity(depth as usize),
            unstamped: Vec::with_capacity(depth as usize),
            in_flight: 0,
            in_engine: 0,
            clock: Clock::new(plan.start),
            now_ns: 0,
            stopping: false,
            issued_total: 0,
            issued_measured: 0,
            bytes_issued_measured: 0,
            issued_since_think: 0,
            writes_since_sync: 0,
            last_completion_ns: ramp_ns,
            measuring: ramp_ns == 0,
            cpu_at_measure: cpu,
            interval_index: 0,
            interval_end_ns: ramp_ns + interval_ns,
            interval: IntervalSums::new(job.write_hist_log.is_some()),
            cpu_at_interval: cpu,
            out: WorkerOutput::default(),
            verifier: None,
            latencies: latency_run::LatencyRun::default(),
            errors_seen: 0,
            max_errors: job.max_errors.unwrap_or(u64::MAX),
            min_rate: min_rate::MinRateCheck::new(job.rate_min),
        }
    }

    #[inline]
    fn clock(&mut self) -> u64 {
        // A TSC read after a move to another core may lag the last one by a
        // few cycles: time must not run back under a stamp already given.
        self.now_ns = self.now_ns.max(self.clock.elapsed_ns());
        self.now_ns
    }

    fn past_deadline(&self) -> bool {
        self.end_ns.is_some_and(|e| self.now_ns >= e)
    }

    fn check_stop(&mut self) {
        if self.plan.stop.load(Ordering::Relaxed) || self.past_deadline() {
            self.stopping = true;
        }
    }

    fn run<E: Engine>(&mut self, engine: &mut E) {
        self.clock();
        loop {
            let busy = match self.fill(engine) {
                Ok(busy) => busy,
                Err(()) => return,
            };
            if self.in_flight == 0 {
                if self.sync_due() {
                    if self.syncs_in_flight > 0 {
                        // The syncs before hold the queue: wait for one.
                        if self.submit(engine, 1).is_err() {
                            return;
                        }
                        self.reap(engine);
                        continue;
                    }
                    // Every write issued before the sync has completed and was counted.
                    self.writes_since_sync = 0;
                    self.sync_data(engine);
                    continue;
                }
                if self.stopping {
                    return;
                }
                if self.think_ns > 0 && self.issued_since_think >= self.think_every {
                    self.nap(self.think_ns);
                    self.issued_since_think = 0;
                    continue;
                }
                // Only a rate limit leaves nothing in flight: sleep until the next I/O is due.
                if let Some(due_ns) = self.next_due_ns() {
                    self.nap((due_ns as u64).saturating_sub(self.now_ns));
                    continue;
                }
                // Held back by its flow: wait for the other jobs of the flow.
                if std::mem::take(&mut self.flow_held) {
                    self.nap(self.flow_sleep_ns.max(FLOW_WAIT_NS));
                    continue;
                }
                // Limits reached: `fill` has set `stopping`.
                continue;
            }
            if self.in_engine == 0 {
                // Everything in flight waits to be queued, yet the engine takes none.
                debug_assert!(busy);
                self.out.fatal = Some("the engine refused an I/O with none in flight".to_string());
                return;
            }
            // Slots freed while filling (completions reaped after each submit) are
            // refilled at once: waiting for yet another completion would leave them idle.
            let queue_full = self.pending.is_empty() && !self.may_issue();
            if queue_full {
                if self.submit(engine, 1).is_err() {
                    return;
                }
                self.reap(engine);
            } else {
                if self.submit(engine, 0).is_err() {
                    return;
                }
                self.reap_ready(engine);
                self.clock();
            }
            self.check_stop();
        }
    }

    /// Whether a new I/O may be issued now; sets `stopping` when a limit is reached.
    fn may_issue(&mut self) -> bool {
        if self.stopping || self.free.is_empty() {
            return false;
        }
        let plan = self.plan;
        if plan.op_limit.is_some_and(|l| self.issued_measured >= l)
            || plan.byte_limit.is_some_and(|l| self.bytes_issued_measured >= l)
        {
            self.stopping = true;
            return false;
        }
        if self.next_due_ns().is_some_and(|due| due > self.now_ns as f64) {
            return false;
        }
        // An fsync is due: it goes first, beside the writes in flight or after them.
        if self.sync_due()
            || (self.syncs_in_flight > 0 && self.in_flight + self.syncs_in_flight >= self.depth)
        {
            return false;
        }
        if self.think_ns > 0 && self.issued_since_think >= self.think_every {
            return false;
        }
        if let Some(f) = &self.flow
            && !f.may_issue()
        {
            self.flow_held = true;
            return false;
        }
        true
    }

    #[inline]
    fn sync_due(&self) -> bool {
        self.fsync_every > 0 && self.writes_since_sync >= self.fsync_every
    }

    /// Queues the due sync beside the writes in flight, when the engine can
    /// and the last group's sync is done; otherwise the queue drains first.
    fn queue_sync<E: Engine>(&mut self, engine: &mut E) {
        if !self.sync_beside || self.in_flight + self.syncs_in_flight >= self.depth {
            return;
        }
        match engine.queue_sync() {
            None => self.sync_beside = false,
            Some(Queued::Busy) => {}
            Some(Queued::Queued) => {
                self.syncs_in_flight += 1;
                self.writes_since_sync = 0;
            }
        }
    }

    /// Counts the queued syncs a reap found.
    fn note_sync<E: Engine>(&mut self, engine: &mut E) {
        while self.syncs_in_flight > 0
            && let Some(result) = engine.take_sync_result()
        {
            self.syncs_in_flight -= 1;
            match result {
                Ok(()) => self.out.syncs += 1,
                Err(e) => self.out.write.failure(e.raw_os_error().unwrap_or(libc::EIO), 0),
            }
        }
    }

    /// Submits and reaps until the queued syncs are done.
    fn wait_sync<E: Engine>(&mut self, engine: &mut E) -> Result<(), ()> {
        while self.syncs_in_flight > 0 {
            self.submit(engine, 1)?;
            self.reap(engine);
        }
        Ok(())
    }

    /// When a rate-limited job's next I/O is due, in ns from the start.
    #[inline]
    fn next_due_ns(&self) -> Option<f64> {
        match (&self.pace, &self.poisson) {
            (Some(p), _) => Some(p.due_ns(self.issued_total)),
            (None, Some(p)) => Some(p.due_ns()),
            (None, None) => None,
        }
    }

    /// A slot with a new I/O from the generator, counted as issued.
    fn take_new(&mut self) -> Option<u32> {
        if !self.may_issue() {
            return None;
        }
        let slot = self.free.pop()?;
        let next = self.generator.next_io();
        self.slots[slot as usize] = Slot {
            submit_ns: 0,
            offset: next.offset,
            len: next.len,
            done: 0,
            shorts: 0,
            write: next.write,
            trim: next.trim,
        };
        if next.write
            && let Some(v) = &mut self.verifier
        {
            v.stamp(slot, self.qd + slot, next.offset, next.len);
        }
        self.in_flight += 1;
        self.issued_total += 1;
        if let Some(f) = &mut self.flow {
            f.issued();
        }
        if let Some(p) = &mut self.poisson {
            p.advance();
        }
        self.writes_since_sync += next.write as u64;
        self.issued_since_think += 1;
        if self.now_ns >= self.ramp_ns {
            self.issued_measured += 1;
            self.bytes_issued_measured += next.len as u64;
        }
        Some(slot)
    }

    /// The part of a slot's I/O still to move.
    fn io(&self, slot: u32) -> Io {
        let s = &self.slots[slot as usize];
        Io {
            slot,
            buf_index: if s.write { self.qd + slot } else { slot },
            buf_offset: s.done,
            offset: s.offset + s.done as u64,
            len: s.len - s.done,
            write: s.write,
            trim: s.trim,
        }
    }

    /// Queues at most `depth` I/Os, pending ones first. Returns whether the
    /// engine answered Busy; Err when the worker must end.
    fn fill<E: Engine>(&mut self, engine: &mut E) -> Result<bool, ()> {
        let mut budget = self.depth;
        while budget > 0 {
            if self.sync_due() {
                self.queue_sync(engine);
            }
            let Some(slot) = self.pending.pop().or_else(|| self.take_new()) else {
                break;
            };
            match engine.queue(self.io(slot)) {
                Queued::Busy => {
                    self.pending.push(slot);
                    return Ok(true);
                }
                Queued::Queued => {
                    self.in_engine += 1;
                    self.unsent += 1;
                    if self.slots[slot as usize].done == 0 {
                        self.unstamped.push(slot);
                    }
                    budget -= 1;
                }
            }
            // The last ones go with the wait, saving a system call.
            if budget > 0
                && self.unsent >= self.submit_batch
                && (!self.pending.is_empty() || self.may_issue())
            {
                let stamped = self.unstamped.len() as u64;
                self.submit(engine, 0)?;
                if stamped > 0 && self.submit_batch > 1 && self.submit_batch != u32::MAX {
                    self.probe_ns = self.now_ns;
                    self.probed += stamped;
                }
                self.reap_ready(engine);
                self.probe_ns = NO_PROBE;
            }
        }
        Ok(false)
    }

    /// Stamps what was queued since the last call with the clock read now, and
    /// submits it; a kernel short of room (EAGAIN, EBUSY) gets completions
    /// reaped and the call again.
    fn submit<E: Engine>(&mut self, engine: &mut E, min: usize) -> Result<(), ()> {
        let mut retries = 0;
        loop {
            if !self.unstamped.is_empty() {
                let t = self.clock();
                for &slot in &self.unstamped {
                    self.slots[slot as usize].submit_ns = t;
                }
            }
            let result = if min == 0 {
                engine.submit()
            } else {
                engine.submit_and_wait(min)
            };
            match result {
                Ok(()) => {
                    self.unstamped.clear();
                    self.unsent = 0;
                    return Ok(());
                }
                Err(e) if is_busy(&e) && retries < BUSY_RETRIES => {
                    retries += 1;
                    if !self.reap_ready(engine) {
                        std::thread::sleep(BUSY_BACKOFF);
                    }
                }
                Err(e) => {
                    self.out.fatal = Some(format!("submitting I/O failed: {e}"));
                    return Err(());
                }
            }
        }
    }

    /// Records the completions available now, if any, without waiting.
    fn reap_ready<E: Engine>(&mut self, engine: &mut E) -> bool {
        if !engine.has_completions() {
            return false;
        }
        self.reap(engine);
        true
    }

    /// Records every completion available now, stamped by one clock read.
    fn reap<E: Engine>(&mut self, engine: &mut E) {
        let now = self.clock();
        self.advance(now);
        engine.reap(&mut |c| self.complete(c, now));
        self.note_sync(engine);
    }

    /// Records the latencies held back as a run into the totals and the current period.
    fn record_latencies(&mut self) {
        let run = std::mem::take(&mut self.latencies);
        let dir = match run.dir {
            0 => &mut self.out.read,
            1 => &mut self.out.write,
            _ => &mut self.out.trim,
        };
        run.record_into(&mut dir.hist);
        run.record_into(&mut self.interval.hist);
        if let Some(d) = &mut self.interval.dir_hists {
            run.record_into(&mut d[run.dir]);
        }
    }

    /// Starts measuring after the ramp and closes the periods that ended by `now`.
    /// Called before each reap's completions are recorded.
    fn advance(&mut self, now: u64) {
        // The run held back belongs to the period its completions were counted in.
        self.record_latencies();
        if let Some(m) = &mut self.min_rate
            && m.due(now)
        {
            let totals = [
                (self.out.read.ops, self.out.read.bytes),
                (self.out.write.ops, self.out.write.bytes),
            ];
            if let Some(why) = m.check(now, totals) {
                self.out.below_min_rate = Some(why);
                self.min_rate = None;
                self.stopping = true;
            }
        }
        if !self.measuring && now >= self.ramp_ns {
            self.measuring = true;
            self.cpu_at_measure = thread_cpu_ns();
            self.cpu_at_interval = self.cpu_at_measure;
        }
        // Periods after the deadline hold nothing: completions there are not counted.
        while self.measuring
            && now >= self.interval_end_ns
            && self.end_ns.is_none_or(|e| self.interval_end_ns <= e)
        {
            let sums = std::mem::replace(
                &mut self.interval,
                IntervalSums::new(self.plan.job.write_hist_log.is_some()),
            );
            self.send_sample(sums);
            self.interval_index += 1;
            self.interval_end_ns += self.interval_ns;
        }
    }

    fn send_sample(&mut self, sums: IntervalSums) {
        let cpu = thread_cpu_ns();
        let _ = self.plan.samples.send(IntervalSample {
            thread: self.plan.thread,
            index: self.interval_index,
            read_ops: sums.reads,
            write_ops: sums.writes,
            bytes: sums.bytes,
            hist: sums.hist,
            read_lat_ns: sums.read_lat_ns,
            write_lat_ns: sums.write_lat_ns,
            cpu_user_ns: cpu.0.saturating_sub(self.cpu_at_interval.0),
            cpu_system_ns: cpu.1.saturating_sub(self.cpu_at_interval.1),
            dir_hists: sums.dir_hists,
        });
        self.cpu_at_interval = cpu;
    }

    /// One completion, seen at `now`. A short transfer's rest is resubmitted
    /// (fio's rule), and the I/O counts once, when all of it has moved.
    // Called once per I/O from inside the engine's reap loop: inlined there,
    // the null engine measured about 2 % less CPU per I/O.
    #[inline(always)]
    fn complete(&mut self, c: Completion, now: u64) {
        self.in_engine -= 1;
        let past_deadline = self.end_ns.is_some_and(|e| now > e);
        let s = &mut self.slots[c.slot as usize];
        let left = s.len - s.done;
        if c.result > 0 && (c.result as u32) < left && !past_deadline {
            s.done += c.result as u32;
            s.shorts += 1;
            self.pending.push(c.slot);
            return;
        }
        let s = *s;
        if s.submit_ns == self.probe_ns {
            self.done_inside_call();
        }
        self.free.push(c.slot);
        self.in_flight -= 1;
        let mut bad = u64::from(c.result <= 0);
        if c.result > 0
            && c.result as u32 >= left
            && let Some(v) = &mut self.verifier
        {
            if s.write {
                v.written(c.slot, s.offset, s.len);
            } else if !s.trim {
                bad = v.check_read(c.slot, s.offset, s.len);
            }
        }
        if bad > 0 {
            self.count_errors(bad);
        }
        if s.submit_ns < self.ramp_ns || past_deadline {
            return;
        }
        let dir = if s.trim {
            &mut self.out.trim
        } else if s.write {
            &mut self.out.write
        } else {
            &mut self.out.read
        };
        dir.short += s.shorts as u64;
        if c.result <= 0 {
            // Nothing moved is an error too (fio's "full resid"): ENODATA says so
            // where fio's EIO would suggest a failing device.
            let errno = if c.result < 0 { -c.result } else { libc::ENODATA };
            dir.failure(errno, s.offset + s.done as u64);
            return;
        }
        let latency = now - s.submit_ns;
        dir.ops += 1;
        dir.bytes += s.len as u64;
        let run_dir = if s.trim { 2 } else { usize::from(s.write) };
        if !self.latencies.extend(run_dir, latency) {
            self.record_latencies();
            let _ = self.latencies.extend(run_dir, latency);
        }
        self.interval.bytes += s.len as u64;
        // The series counts trims with writes: both change the target.
        if s.write || s.trim {
            self.interval.writes += 1;
            self.interval.write_lat_ns += latency;
        } else {
            self.interval.reads += 1;
            self.interval.read_lat_ns += latency;
        }
        self.last_completion_ns = now;
    }

    /// An I/O completed inside the submission call that carried it. A device
    /// that does this for many (a RAM disk; buffered I/O is never batched)
    /// would have each timed by the others' submission too: submit each from
    /// then on. A few are no reason (on this VM's virtio disk 0.1-1 % of
    /// batched direct reads complete during the call's doorbell, the host
    /// answering from its cache), and they reached the device at the call's
    /// end anyway, the kernel having plugged the batch.
    #[cold]
    fn done_inside_call(&mut self) {
        self.done_inside += 1;
        if self.done_inside >= 8 && self.done_inside * 8 > self.probed {
            self.submit_batch = 1;
        }
    }

    /// `max_errors`: the worker stops once this many I/Os failed or blocks mismatched.
    fn count_errors(&mut self, n: u64) {
        self.errors_seen += n;
        if self.errors_seen >= self.max_errors {
            self.stopping = true;
            self.out.stopped_by_errors.get_or_insert(self.errors_seen);
        }
    }

    fn sync_data<E: Engine>(&mut self, engine: &mut E) {
        let result = engine.sync_data(&mut |c| {
            let now = self.clock();
            self.advance(now);
            self.complete(c, now)
        });
        match result {
            Ok(()) => {
                self.out.syncs += 1;
                if let Some(v) = &mut self.verifier {
                    v.flushed();
                }
            }
            Err(e) => self.out.write.failure(e.raw_os_error().unwrap_or(libc::EIO), 0),
        }
    }

    /// Sleeps up to `ns` (never past the deadline), waking for Ctrl-C.
    fn nap(&mut self, ns: u64) {
        let left = self.end_ns.map_or(u64::MAX, |e| e.saturating_sub(self.now_ns));
        let until = Instant::now() + Duration::from_nanos(ns.min(left));
        loop {
            let now = Instant::now();
            if now >= until || self.plan.stop.load(Ordering::Relaxed) {
                break;
            }
            std::thread::sleep(NAP_SLICE.min(until - now));
        }
        self.clock();
        self.check_stop();
    }

    fn finish<E: Engine>(mut self, engine: &mut E) -> WorkerOutput {
        let plan = self.plan;
        let job = &plan.job;
        if self.wait_sync(engine).is_err() {
            self.syncs_in_flight = 0;
        }
        if job.end_fsync && job.does_writes() && self.out.fatal.is_none() {
            self.sync_data(engine);
            // The flush is part of the job's time, as in fio (runtime ends after
            // end_fsync) and tiotest (fsync before timer_stop).
            self.last_completion_ns = self.clock();
        }
        // An orderly end is a flush point for the journal: what was written is durable.
        if !job.end_fsync
            && job.does_writes()
            && self.out.fatal.is_none()
            && self.verifier.as_ref().is_some_and(Verifier::has_journal)
        {
            self.sync_data(engine);
        }
        let end_ns = match self.end_ns {
            Some(e) if self.now_ns >= e => e,
            _ => self.last_completion_ns,
        };
        self.out.measured_ns = end_ns.saturating_sub(self.ramp_ns);
        self.record_latencies();
        if self.measuring {
            let sums = std::mem::replace(
                &mut self.interval,
                IntervalSums::new(self.plan.job.write_hist_log.is_some()),
            );
            self.send_sample(sums);
            let (user, system) = thread_cpu_ns();
            self.out.cpu_user_ns = user.saturating_sub(self.cpu_at_measure.0);
            self.out.cpu_system_ns = system.saturating_sub(self.cpu_at_measure.1);
        }
        self.out.verify = self.verifier.take().and_then(Verifier::finish);
        self.out
    }
}

pub(crate) mod dedupe;
pub(crate) mod flow;
mod latency_run;
mod min_rate;
pub(crate) mod pace;
mod poisson;
#[cfg(test)]
mod tests;
