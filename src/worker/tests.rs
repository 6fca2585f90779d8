//! The worker loop against the scripted engine: what a real device cannot
//! do on demand (out of order, short, failed, busy, EAGAIN) is counted right.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

const MS: u64 = 1_000_000;

use super::{WorkerOutput, WorkerPlan, run_worker};
use crate::engine::scripted::{ScriptedEngine, Step};
use crate::jobs::Job;
use crate::metrics::collect::IntervalSample;

const BS: u32 = 4096;

fn job(keys: &[(&str, &str)]) -> Job {
    let mut j = Job::default();
    for (k, v) in [("bs", "4k"), ("seed", "7")].iter().chain(keys) {
        j.set(k, v).unwrap();
    }
    j
}

fn plan(job: Job, stop: Arc<AtomicBool>) -> (WorkerPlan, mpsc::Receiver<IntervalSample>) {
    let (tx, rx) = mpsc::channel();
    let job = Arc::new(job);
    let plan = WorkerPlan {
        thread: 0,
        span_start: 0,
        span_bytes: 1 << 20,
        seed: job.seed.unwrap_or(0),
        start: Instant::now(),
        ramp: job.ramp,
        runtime: job.runtime,
        op_limit: job.io_count,
        byte_limit: job.io_size_bytes,
        stop,
        samples: tx,
        job,
    };
    (plan, rx)
}

fn run(job: Job, engine: &mut ScriptedEngine) -> (WorkerOutput, Vec<IntervalSample>) {
    let (plan, rx) = plan(job, Arc::new(AtomicBool::new(false)));
    let out = run_worker(plan, engine);
    (out, rx.try_iter().collect())
}

#[test]
fn out_of_order_short_failed_and_busy_completions_are_each_counted_once() {
    use Step::*;
    let script = vec![
        Full { after: 3 }, // I/O 0: completes late, after I/O 1 and 2
        Busy,              // I/O 1 is refused once...
        Short {
            bytes: 1000,
            after: 0,
        }, // ...then moves 1000 of 4096 bytes
        Fail {
            errno: libc::EIO,
            after: 1,
        }, // I/O 2 fails
        SubmitError(libc::EAGAIN), // the submit carrying I/O 3 is refused once
        Full { after: 0 }, // I/O 3
        Short { bytes: 96, after: 0 }, // the rest of I/O 1, short again
        Fail {
            errno: libc::ENOSPC,
            after: 0,
        }, // I/O 4
        Short { bytes: 0, after: 0 }, // I/O 5 moves nothing
    ];
    let mut engine = ScriptedEngine::new(script).fake_clock(MS);
    let n = 40u64;
    let (out, samples) = run(
        job(&[("rw", "randwrite"), ("qd", "4"), ("io_count", &n.to_string())]),
        &mut engine,
    );
    assert_eq!(out.fatal, None);
    let w = &out.write;
    assert_eq!(w.errors, 3, "EIO, ENOSPC and a transfer that moved nothing");
    assert_eq!(w.ops, n - 3, "every other I/O completes once");
    assert_eq!(
        w.bytes,
        (n - 3) * BS as u64,
        "short I/Os count their whole length once"
    );
    assert_eq!(w.hist.len(), w.ops, "one latency per counted I/O");
    assert_eq!(w.short, 2);
    assert_eq!(out.read.ops + out.read.errors, 0);
    assert_eq!((engine.busy_answers, engine.submit_errors), (1, 1));

    // Busy and SubmitError take no I/O, so the k-th completing step belongs to log[k].
    let log = &engine.log;
    assert_eq!(
        log.len() as u64,
        n + 2,
        "two remainders were resubmitted: {log:?}"
    );
    let failures: Vec<(i32, u64)> = w
        .error_samples
        .iter()
        .map(|e| (e.errno, e.offset_bytes))
        .collect();
    assert_eq!(
        failures
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        [
            (libc::EIO, log[2].offset),
            (libc::ENOSPC, log[5].offset),
            (libc::ENODATA, log[6].offset)
        ]
        .into(),
        "{log:?}"
    );
    // The rest of a short I/O goes out from where it stopped, in the same buffer.
    let remainders: Vec<_> = log
        .iter()
        .enumerate()
        .filter(|(_, io)| io.buf_offset > 0)
        .collect();
    assert_eq!(remainders.len(), 2);
    for (k, rest) in remainders {
        let first = log[..k]
            .iter()
            .rev()
            .find(|io| io.slot == rest.slot)
            .expect("an earlier part of the same I/O");
        let moved = rest.buf_offset - first.buf_offset;
        assert!(moved > 0 && moved < first.len);
        assert_eq!(
            (rest.offset, rest.len, rest.buf_index, rest.write),
            (
                first.offset + moved as u64,
                first.len - moved,
                first.buf_index,
                first.write
            )
        );
    }
    // Each I/O is charged for the scripted ticks it was out, from its first submission.
    assert!(
        w.hist.equivalent(w.hist.min(), MS),
        "an I/O completing inside its own submit call took one tick: {}",
        w.hist.min()
    );
    assert!(
        w.hist.max() >= 4 * MS,
        "the late I/O was out four ticks: {}",
        w.hist.max()
    );
    // The series holds the same I/Os.
    let series_ops: u64 = samples.iter().map(|s| s.write_ops).sum();
    assert_eq!(series_ops, w.ops);
}

#[test]
fn completions_reaped_around_an_fsync_are_counted() {
    // Writes complete late, so many are in flight whenever an fsync comes due.
    let script = (0..400).map(|k| Step::Full { after: k % 5 }).collect();
    let mut engine = ScriptedEngine::new(script);
    let (out, _) = run(
        job(&[
            ("rw", "write"),
            ("qd", "16"),
            ("io_count", "2000"),
            ("fsync_every", "8"),
        ]),
        &mut engine,
    );
    assert_eq!(out.fatal, None);
    assert_eq!(out.write.ops, 2000);
    assert_eq!(engine.reaped.len(), 2000);
    assert_eq!(
        out.syncs,
        2000 / 8,
        "one fdatasync after every 8 writes issued, as fio's fsync=8"
    );
    assert_eq!(engine.syncs, 250);
}

#[test]
fn writes_go_on_beside_a_sync_and_each_group_still_gets_one() {
    // Each sync takes 3 submission calls: with the queue drained first, no
    // write could be queued meanwhile.
    let script = (0..400).map(|k| Step::Full { after: k % 5 }).collect();
    let mut engine = ScriptedEngine::new(script).async_syncs(3);
    let (out, _) = run(
        job(&[
            ("rw", "write"),
            ("qd", "16"),
            ("io_count", "2000"),
            ("fsync_every", "8"),
        ]),
        &mut engine,
    );
    assert_eq!(out.fatal, None);
    assert_eq!(out.write.ops, 2000);
    assert_eq!(engine.reaped.len(), 2000);
    assert_eq!(
        (out.syncs, engine.syncs),
        (250, 250),
        "one fdatasync per 8 writes issued"
    );
    assert!(
        engine.queued_beside_sync >= 1000,
        "writes waited for the syncs: {} of 2000 queued beside one",
        engine.queued_beside_sync
    );
}

/// With `verify`, a sync promises every write done before it: the queue drains first.
#[test]
fn a_verifying_job_drains_the_queue_before_each_sync() {
    let mut engine = ScriptedEngine::new(vec![Step::Full { after: 2 }; 64]).async_syncs(3);
    let job = job(&[
        ("rw", "write"),
        ("qd", "8"),
        ("io_count", "64"),
        ("fsync_every", "8"),
    ]);
    let buffers = super::make_buffers(&job, 7);
    let (plan, _rx) = plan(job, Arc::new(AtomicBool::new(false)));
    let verifier = super::Verifier::new(
        4096,
        1,
        0,
        0,
        1 << 20,
        8,
        &buffers,
        super::ReadCheck::Written,
        None,
    );
    let out = super::run_worker_checked(plan, &mut engine, Some(verifier));
    assert_eq!(out.write.ops, 64);
    assert_eq!(out.syncs, 8);
    assert_eq!(engine.queued_beside_sync, 0);
}

#[test]
fn an_io_finishing_after_the_deadline_is_not_counted_and_time_stops_at_the_runtime() {
    // Each I/O takes 30 ms: the fourth is in flight when the 100 ms deadline passes.
    let mut engine = ScriptedEngine::new(vec![]).fake_clock(30 * MS);
    let (out, samples) = run(job(&[("rw", "randread"), ("runtime", "100ms")]), &mut engine);
    assert_eq!(
        out.measured_ns,
        100 * MS,
        "elapsed is the runtime, not the straggler's end"
    );
    assert_eq!(engine.reaped.len(), 4);
    assert_eq!(out.read.ops, 3, "the I/O that ended at 120 ms is not counted");
    let series_ops: u64 = samples.iter().map(|s| s.read_ops).sum();
    assert_eq!(series_ops, out.read.ops);
}

#[test]
fn submit_times_are_read_per_submit_call_not_borrowed() {
    // Every submit call that completes something takes 1 ms. With the clock read
    // at each submit call, no I/O is charged for calls that carried other I/Os.
    let mut script = vec![Step::Full { after: 2 }];
    script.extend((0..100).map(|_| Step::Full { after: 0 }));
    let mut engine = ScriptedEngine::new(script).fake_clock(MS);
    let (out, _) = run(
        job(&[("rw", "randread"), ("qd", "8"), ("io_count", "64")]),
        &mut engine,
    );
    assert_eq!(out.read.ops, 64);
    let h = &out.read.hist;
    assert_eq!(
        h.count_between(MS, MS),
        63,
        "inline completions take their own call (min {} max {})",
        h.min(),
        h.max()
    );
    assert!(
        h.max() >= 2 * MS && h.max() < 3 * MS + MS / 100,
        "the delayed I/O: {}",
        h.max()
    );
}

#[test]
fn buffered_qd1_on_an_inline_engine_is_timed_per_io() {
    // The sync engine's shape: one in flight, each completing inside its submit call.
    let mut engine = ScriptedEngine::new(vec![]).fake_clock(MS);
    let (out, _) = run(
        job(&[("rw", "write"), ("io_count", "10"), ("buffered", "true")]),
        &mut engine,
    );
    assert_eq!(out.write.ops, 10);
    assert_eq!(out.write.hist.count_between(MS, MS), 10);
    assert_eq!(out.measured_ns, 10 * MS);
}

#[test]
fn an_engine_that_stays_busy_with_nothing_in_flight_ends_the_worker() {
    let mut engine = ScriptedEngine::new(vec![Step::Busy; 10]);
    let (out, _) = run(job(&[("io_count", "5")]), &mut engine);
    assert!(
        out.fatal.as_deref().unwrap_or("").contains("refused"),
        "{:?}",
        out.fatal
    );
}

#[test]
fn think_time_wakes_for_ctrl_c() {
    let stop = Arc::new(AtomicBool::new(false));
    let (plan, _rx) = plan(
        job(&[("rw", "randread"), ("runtime", "1h"), ("think_time", "1h")]),
        stop.clone(),
    );
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let mut engine = ScriptedEngine::new(vec![]);
    // Before the fix this slept for the hour; the test would not return.
    let out = run_worker(plan, &mut engine);
    setter.join().unwrap();
    assert_eq!(out.read.ops, 1);
}

/// The rule: one clock read per submit call stamps every I/O it
/// carries, one per reap stamps every completion it finds. Each read of the
/// fake clock moves it 1 ns, so an I/O stamped by a read of its own would
/// show a latency off by a few ns.
#[test]
fn a_submit_call_stamps_all_it_carries_and_a_reap_all_it_finds() {
    let mut engine = ScriptedEngine::new(vec![Step::Full { after: 1 }; 8])
        .fake_clock(MS)
        .clock_read_tick(1)
        .batched();
    let (out, samples) = run(
        job(&[("rw", "randread"), ("qd", "4"), ("io_count", "8")]),
        &mut engine,
    );
    assert_eq!(out.read.ops, 8);
    // Each batch of 4 went out in one call and came back in one reap.
    assert_eq!(engine.carried, vec![4, 4]);
    assert_eq!(engine.reaped.len(), 8);
    // Submit read at t, two submission ticks, reap read at t + 2 ms + 1 ns
    // (the submit read's own tick): the same latency for all eight.
    let each = 2 * MS + 1;
    let lat: u64 = samples.iter().map(|s| s.read_lat_ns).sum();
    assert_eq!(lat, 8 * each, "some I/O was stamped by a clock read of its own");
    assert_eq!(out.read.hist.count_at(each), 8, "latencies differ within a batch");
}

/// Driven one I/O per submit call (io_uring's way here), each SQE still gets
/// the stamp of the call that carried it, and completions found together
/// share their reap's stamp.
#[test]
fn completions_reaped_together_share_the_reaps_stamp_when_submitting_each() {
    // I/O 0 completes two calls after its own, with I/O 2 (carried by the third call).
    let script = vec![
        Step::Full { after: 2 },
        Step::Full { after: 3 },
        Step::Full { after: 0 },
    ];
    let mut engine = ScriptedEngine::new(script).fake_clock(MS).clock_read_tick(1);
    let (out, samples) = run(
        job(&[("rw", "randread"), ("qd", "3"), ("io_count", "3")]),
        &mut engine,
    );
    assert_eq!(out.read.ops, 3);
    assert!(
        engine.carried.iter().all(|&n| n <= 1),
        "one SQE per submit call: {:?}",
        engine.carried
    );
    let done = |slot| crate::engine::Completion {
        slot,
        result: BS as i32,
    };
    assert_eq!(engine.reaped, vec![done(0), done(2), done(1)]);
    // Submit reads at 1, 1 ms + 2 and 2 ms + 3 stamp I/Os 0, 1 and 2; the
    // reap read at 3 ms + 4 finds 0 and 2, the one at 5 ms + 5 finds 1 (the
    // last call carried nothing, so read no clock).
    let lat: u64 = samples.iter().map(|s| s.read_lat_ns).sum();
    assert_eq!(lat, (3 * MS + 3) + (MS + 1) + (4 * MS + 3));
}

#[test]
fn a_job_shorter_than_a_scheduler_tick_reports_its_cpu_time() {
    // A few hundred I/Os on the null engine: well under a millisecond of
    // CPU, all of it the worker's own, on a thread of its own.
    let (plan, _rx) = plan(
        job(&[("rw", "randread"), ("qd", "4"), ("io_count", "300")]),
        Arc::new(AtomicBool::new(false)),
    );
    let out = std::thread::spawn(move || {
        let mut engine = crate::engine::NullEngine::new(4);
        run_worker(plan, &mut engine)
    })
    .join()
    .unwrap();
    assert_eq!(out.read.ops, 300);
    assert!(
        out.cpu_user_ns + out.cpu_system_ns > 0,
        "300 I/Os read no CPU time: {out:?}"
    );
}

/// Direct I/O on io_uring refills the queue a few I/Os per submit call
/// (`Caps::submit_batch`): each call stamps all it carries with one clock
/// read, and completions found by one reap share its read.
#[test]
fn refills_go_out_a_batch_per_call_each_stamped_by_its_call() {
    let mut engine = ScriptedEngine::new(vec![Step::Full { after: 1 }; 16])
        .fake_clock(MS)
        .clock_read_tick(1)
        .submit_batch(4);
    let (out, samples) = run(
        job(&[("rw", "randread"), ("qd", "8"), ("io_count", "16")]),
        &mut engine,
    );
    assert_eq!(out.read.ops, 16);
    assert_eq!(
        engine
            .carried
            .iter()
            .filter(|&&n| n > 0)
            .copied()
            .collect::<Vec<_>>(),
        vec![4; 4],
        "calls and the I/Os each carried"
    );
    // Each call's 4 I/Os complete one call later, together. Submit reads at
    // 1, MS + 2, 2 MS + 4 and 3 MS + 6; reap reads at 2 MS + 3, 3 MS + 5,
    // 4 MS + 7 and 5 MS + 8 (the last call carried nothing, so read no
    // clock). An I/O stamped or reaped by a read of its own would be off by
    // a few ns.
    let lat: u64 = samples.iter().map(|s| s.read_lat_ns).sum();
    assert_eq!(
        lat,
        4 * ((2 * MS + 2) + (2 * MS + 3) + (2 * MS + 3) + (2 * MS + 2))
    );
}

/// I/Os that complete inside the call that submitted them (a RAM disk) must
/// each be timed by their own call: once they are seen to, the worker goes
/// back to one I/O per call, as fio does.
#[test]
fn completions_inside_their_own_call_turn_batched_submits_off() {
    let mut engine = ScriptedEngine::new(vec![]).fake_clock(MS).submit_batch(4);
    let (out, _) = run(
        job(&[("rw", "randread"), ("qd", "8"), ("io_count", "200")]),
        &mut engine,
    );
    assert_eq!(out.read.ops, 200);
    let batched = engine.carried.iter().filter(|&&n| n > 1).count();
    assert!(
        (1..=4).contains(&batched),
        "batched calls before the worker saw inline completions: {:?}",
        engine.carried
    );
    let tail = &engine.carried[engine.carried.len() - 100..];
    assert!(tail.iter().all(|&n| n <= 1), "still batching: {tail:?}");
    // Each I/O submitted alone is timed by its own call: one tick.
    assert!(
        out.read.hist.count_between(MS, MS) >= 190,
        "{} of 200 took one tick",
        out.read.hist.count_between(MS, MS)
    );
}
