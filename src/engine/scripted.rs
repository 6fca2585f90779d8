//! A scripted engine for unit tests of the worker loop: it does what a real
//! device cannot do on demand (complete out of order, short, failed, busy,
//! refuse a submit with EAGAIN). Test-only; it allocates freely.
//!
//! Time is scripted too: with `fake_clock`, the worker's clock on this
//! thread reads a counter that each submission call advances,
//! so latencies are exact and tests never depend on the machine's speed.

use std::cell::Cell;
use std::io;

use super::{Caps, Completion, Engine, Io, Queued};

/// What the script does with one `queue` call, in the order they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Completes in full `after` submission calls after the one that submits it
    /// (0: inside that call).
    Full { after: u32 },
    /// Completes having moved only `bytes`.
    Short { bytes: u32, after: u32 },
    /// Completes with `-errno`.
    Fail { errno: i32, after: u32 },
    /// `queue` answers Busy and keeps nothing.
    Busy,
    /// The I/O is taken (by the next step), but the next submission call fails
    /// with this errno before submitting anything.
    SubmitError(i32),
}

thread_local! {
    static FAKE_NS: Cell<Option<u64>> = const { Cell::new(None) };
    /// How far each read of the fake clock moves it, so that two reads never
    /// agree and a stamp shows which read gave it.
    static READ_TICK_NS: Cell<u64> = const { Cell::new(0) };
}

/// The scripted time on this thread, when a scripted engine set one up.
pub fn fake_clock_ns() -> Option<u64> {
    let t = FAKE_NS.with(|c| c.get())?;
    let tick = READ_TICK_NS.with(|c| c.get());
    FAKE_NS.with(|c| c.set(Some(t + tick)));
    Some(t)
}

struct Flying {
    io: Io,
    step: Step,
    ticks_left: u32,
}

pub struct ScriptedEngine {
    script: Vec<Step>,
    next_step: usize,
    /// How far each submission call moves the fake clock.
    tick_ns: u64,
    queued: Vec<(Io, Step)>,
    flying: Vec<Flying>,
    done: Vec<Completion>,
    fail_next_submit: Option<i32>,
    /// Every I/O taken by `queue`, in order.
    pub log: Vec<Io>,
    /// Completions handed to the caller, in order.
    pub reaped: Vec<Completion>,
    pub busy_answers: u32,
    pub submit_errors: u32,
    pub syncs: u32,
    /// What `caps` says of `submit_batch`.
    submit_batch: u32,
    /// How many I/Os each submission call carried, in order.
    pub carried: Vec<usize>,
    /// With `async_syncs`: how many submission calls after its own a queued sync completes.
    sync_after: Option<u32>,
    /// A queued sync: not yet submitted (`Some(None)`), or flying with ticks left.
    sync: Option<Option<u32>>,
    sync_result: Option<io::Result<()>>,
    /// I/Os queued while a queued sync had not completed.
    pub queued_beside_sync: u32,
}

impl ScriptedEngine {
    /// I/Os beyond the script complete in full, inside the call that submits them.
    pub fn new(script: Vec<Step>) -> ScriptedEngine {
        ScriptedEngine {
            script,
            next_step: 0,
            tick_ns: 0,
            queued: Vec::new(),
            flying: Vec::new(),
            done: Vec::new(),
            fail_next_submit: None,
            log: Vec::new(),
            reaped: Vec::new(),
            busy_answers: 0,
            submit_errors: 0,
            syncs: 0,
            submit_batch: 1,
            carried: Vec::new(),
            sync_after: None,
            sync: None,
            sync_result: None,
            queued_beside_sync: 0,
        }
    }

    /// Takes syncs beside the I/Os in flight (`queue_sync`), each completing
    /// `after` submission calls after the one that submits it.
    pub fn async_syncs(mut self, after: u32) -> ScriptedEngine {
        self.sync_after = Some(after);
        self
    }

    /// Makes the worker's clock on this thread start at 0 and move `tick_ns`
    /// with every submission call.
    pub fn fake_clock(mut self, tick_ns: u64) -> ScriptedEngine {
        FAKE_NS.with(|c| c.set(Some(0)));
        READ_TICK_NS.with(|c| c.set(0));
        self.tick_ns = tick_ns;
        self
    }

    /// Makes every read of the fake clock move it by `ns` as well.
    pub fn clock_read_tick(self, ns: u64) -> ScriptedEngine {
        READ_TICK_NS.with(|c| c.set(ns));
        self
    }

    /// Says it batches submissions, the whole depth at once, as the null engine does.
    pub fn batched(mut self) -> ScriptedEngine {
        self.submit_batch = u32::MAX;
        self
    }

    /// Says it takes `n` I/Os per submission call while the queue is refilled,
    /// as io_uring does with direct I/O.
    pub fn submit_batch(mut self, n: u32) -> ScriptedEngine {
        self.submit_batch = n;
        self
    }

    fn step(&mut self) -> Step {
        let s = self
            .script
            .get(self.next_step)
            .copied()
            .unwrap_or(Step::Full { after: 0 });
        self.next_step += 1;
        s
    }

    /// One submission call: queued I/Os fly, and those due complete.
    fn tick(&mut self) {
        for (io, step) in self.queued.drain(..) {
            let ticks_left = match step {
                Step::Full { after } | Step::Short { after, .. } | Step::Fail { after, .. } => after,
                Step::Busy | Step::SubmitError(_) => unreachable!("never queued"),
            };
            self.flying.push(Flying { io, step, ticks_left });
        }
        FAKE_NS.with(|c| c.set(c.get().map(|t| t + self.tick_ns)));
        match self.sync {
            Some(None) => self.sync = Some(self.sync_after),
            Some(Some(0)) => {
                self.sync = None;
                self.syncs += 1;
                self.sync_result = Some(Ok(()));
            }
            Some(Some(n)) => self.sync = Some(Some(n - 1)),
            None => {}
        }
        let mut i = 0;
        while i < self.flying.len() {
            if self.flying[i].ticks_left == 0 {
                let f = self.flying.remove(i);
                let result = match f.step {
                    Step::Full { .. } => f.io.len as i32,
                    Step::Short { bytes, .. } => bytes.min(f.io.len) as i32,
                    Step::Fail { errno, .. } => -errno,
                    Step::Busy | Step::SubmitError(_) => unreachable!("never flying"),
                };
                self.done.push(Completion {
                    slot: f.io.slot,
                    result,
                });
            } else {
                self.flying[i].ticks_left -= 1;
                i += 1;
            }
        }
    }
}

impl Engine for ScriptedEngine {
    fn caps(&self) -> Caps {
        Caps {
            completes_inline: false,
            fixed_buffers: false,
            submit_batch: self.submit_batch,
        }
    }

    fn queue(&mut self, io: Io) -> Queued {
        let mut step = self.step();
        if step == Step::Busy {
            self.busy_answers += 1;
            return Queued::Busy;
        }
        while let Step::SubmitError(errno) = step {
            self.fail_next_submit = Some(errno);
            step = self.step();
        }
        self.log.push(io);
        self.queued_beside_sync += u32::from(self.sync.is_some());
        self.queued.push((io, step));
        Queued::Queued
    }

    fn submit_and_wait(&mut self, min: usize) -> io::Result<()> {
        if let Some(errno) = self.fail_next_submit.take() {
            self.submit_errors += 1;
            return Err(io::Error::from_raw_os_error(errno));
        }
        self.carried.push(self.queued.len());
        self.tick();
        while self.done.len() + usize::from(self.sync_result.is_some()) < min
            && (!self.flying.is_empty() || self.sync.is_some())
        {
            self.tick();
        }
        Ok(())
    }

    fn has_completions(&mut self) -> bool {
        !self.done.is_empty() || self.sync_result.is_some()
    }

    fn reap(&mut self, on_complete: &mut impl FnMut(Completion)) {
        for c in std::mem::take(&mut self.done) {
            self.reaped.push(c);
            on_complete(c);
        }
    }

    fn sync_data(&mut self, on_complete: &mut impl FnMut(Completion)) -> io::Result<()> {
        self.syncs += 1;
        while !self.queued.is_empty() || !self.flying.is_empty() {
            self.submit_and_wait(1)?;
            self.reap(on_complete);
        }
        self.reap(on_complete);
        Ok(())
    }

    fn queue_sync(&mut self) -> Option<Queued> {
        self.sync_after?;
        if self.sync.is_some() {
            return Some(Queued::Busy);
        }
        self.sync = Some(None);
        Some(Queued::Queued)
    }

    fn take_sync_result(&mut self) -> Option<io::Result<()>> {
        self.sync_result.take()
    }
}
