//! Engines on real files and a real loop device: what is written reads back.

mod common;

use common::tmp;

use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use kura::engine::{Buffers, Completion, Engine, EngineSetup, Io, Queued, SyncEngine, UringEngine};

const BS: u32 = 4096;
const SLOTS: u32 = 8;

/// Queues `io`; an engine that answers Busy (sync holds one I/O) gets its
/// completions reaped and the same I/O again, as the worker does.
fn queue_or_reap<E: Engine>(engine: &mut E, io: Io, on_complete: &mut impl FnMut(Completion)) {
    while engine.queue(io) == Queued::Busy {
        engine.submit_and_wait(1).unwrap();
        engine.reap(on_complete);
    }
}

fn roundtrip<E: Engine>(engine: &mut E, buffers: &mut Buffers, rounds: u32) {
    // Write SLOTS distinct patterns per round at scattered offsets, then read them back.
    for round in 0..rounds {
        for slot in 0..SLOTS {
            let pattern = (round * SLOTS + slot) as u8 ^ 0xA5;
            buffers.slot_mut(SLOTS + slot)[..BS as usize].fill(pattern);
            buffers.slot_mut(SLOTS + slot)[0] = slot as u8;
        }
        let mut done = 0;
        let mut check = |c: Completion| {
            assert_eq!(c.result, BS as i32, "write of slot {}", c.slot);
            done += 1;
        };
        for slot in 0..SLOTS {
            let offset =
                ((slot * 7 + round * 3) % 64) as u64 * BS as u64 * 2 + (round as u64 % 2) * BS as u64;
            let io = Io {
                slot,
                buf_index: SLOTS + slot,
                buf_offset: 0,
                offset,
                len: BS,
                write: true,
                trim: false,
            };
            queue_or_reap(engine, io, &mut check);
        }
        while done < SLOTS {
            engine.submit_and_wait(1).unwrap();
            engine.reap(&mut |c: Completion| {
                assert_eq!(c.result, BS as i32, "write of slot {}", c.slot);
                done += 1;
            });
        }
        for slot in 0..SLOTS {
            buffers.slot_mut(slot).fill(0);
        }
        let mut done = 0;
        let mut check = |c: Completion| {
            assert_eq!(c.result, BS as i32);
            done += 1;
        };
        for slot in 0..SLOTS {
            let offset =
                ((slot * 7 + round * 3) % 64) as u64 * BS as u64 * 2 + (round as u64 % 2) * BS as u64;
            let io = Io {
                slot,
                buf_index: slot,
                buf_offset: 0,
                offset,
                len: BS,
                write: false,
                trim: false,
            };
            queue_or_reap(engine, io, &mut check);
        }
        while done < SLOTS {
            engine.submit_and_wait(1).unwrap();
            engine.reap(&mut |c: Completion| {
                assert_eq!(c.result, BS as i32);
                done += 1;
            });
        }
        for slot in 0..SLOTS {
            assert_eq!(
                &buffers.slot(slot)[..BS as usize],
                &buffers.slot(SLOTS + slot)[..BS as usize],
                "round {round} slot {slot} reads back what was written"
            );
        }
    }
}

fn check_engines_on(path: &Path) {
    for direct in [true, false] {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(if direct { libc::O_DIRECT } else { 0 })
            .open(path)
            .unwrap();
        let mut buffers = Buffers::new(SLOTS as usize * 2, BS as usize);
        let setup = EngineSetup {
            fd: file.as_raw_fd(),
            queue_depth: SLOTS,
            buffers: &buffers,
        };
        let mut uring = UringEngine::new(&setup).expect("io_uring works here");
        roundtrip(&mut uring, &mut buffers, 4);
        drop(uring);
        let setup = EngineSetup {
            fd: file.as_raw_fd(),
            queue_depth: SLOTS,
            buffers: &buffers,
        };
        let mut sync = SyncEngine::new(&setup);
        roundtrip(&mut sync, &mut buffers, 4);
        sync.sync_data(&mut |_| panic!("nothing was in flight")).unwrap();
    }
}

#[test]
fn engines_read_back_what_they_wrote_on_a_file() {
    let dir = tmp();
    let path = dir.path().join("engine.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    check_engines_on(&path);
}

#[test]
fn engines_read_back_what_they_wrote_on_a_loop_device() {
    let dir = tmp();
    let Some(dev) = common::LoopDevice::new(dir.path(), 4 << 20) else {
        return;
    };
    check_engines_on(&dev.path);
}

#[test]
fn io_errors_are_results_not_crashes() {
    let dir = tmp();
    let path = dir.path().join("small.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    // Opened read-only: every write fails with EBADF, which the engine reports per I/O.
    let file = std::fs::File::open(&path).unwrap();
    let mut buffers = Buffers::new(2, BS as usize);
    let setup = EngineSetup {
        fd: file.as_raw_fd(),
        queue_depth: 1,
        buffers: &buffers,
    };
    let mut uring = UringEngine::new(&setup).unwrap();
    let queued = uring.queue(Io {
        slot: 0,
        buf_index: 1,
        buf_offset: 0,
        offset: 0,
        len: BS,
        write: true,
        trim: false,
    });
    assert_eq!(queued, Queued::Queued);
    uring.submit_and_wait(1).unwrap();
    let mut results = Vec::new();
    uring.reap(&mut |c: Completion| results.push(c.result));
    assert_eq!(results, vec![-libc::EBADF]);
    let _ = &mut buffers;
}

#[test]
fn an_fsync_hands_back_the_completions_it_reaps() {
    let dir = tmp();
    let path = dir.path().join("sync.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let buffers = Buffers::new(2 * SLOTS as usize, BS as usize);
    let setup = EngineSetup {
        fd: file.as_raw_fd(),
        queue_depth: SLOTS,
        buffers: &buffers,
    };
    let mut uring = UringEngine::new(&setup).unwrap();
    for slot in 0..SLOTS {
        let io = Io {
            slot,
            buf_index: SLOTS + slot,
            buf_offset: 0,
            offset: slot as u64 * BS as u64,
            len: BS,
            write: true,
            trim: false,
        };
        assert_eq!(uring.queue(io), Queued::Queued);
    }
    // Writes still queued or in flight when the fsync is asked for complete during it.
    let mut seen = Vec::new();
    uring.sync_data(&mut |c: Completion| seen.push(c)).unwrap();
    uring.reap(&mut |c: Completion| seen.push(c));
    seen.sort_by_key(|c| c.slot);
    let expected: Vec<Completion> = (0..SLOTS)
        .map(|slot| Completion {
            slot,
            result: BS as i32,
        })
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn a_full_ring_answers_busy_instead_of_dropping_the_io() {
    let dir = tmp();
    let path = dir.path().join("busy.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let buffers = Buffers::new(8, BS as usize);
    let setup = EngineSetup {
        fd: file.as_raw_fd(),
        queue_depth: 4,
        buffers: &buffers,
    };
    let mut uring = UringEngine::new(&setup).unwrap();
    let io = |slot: u32| Io {
        slot,
        buf_index: slot % 4,
        buf_offset: 0,
        offset: slot as u64 * BS as u64,
        len: BS,
        write: false,
        trim: false,
    };
    // The ring has 4 entries: the fifth unsubmitted I/O does not fit.
    let answers: Vec<Queued> = (0..5).map(|slot| uring.queue(io(slot))).collect();
    assert_eq!(answers[..4], [Queued::Queued; 4]);
    assert_eq!(answers[4], Queued::Busy);
    uring.submit_and_wait(4).unwrap();
    let mut n = 0;
    uring.reap(&mut |c: Completion| {
        assert_eq!(c.result, BS as i32);
        n += 1;
    });
    assert_eq!(n, 4, "the refused I/O was not half-queued");
    assert_eq!(uring.queue(io(4)), Queued::Queued);
}
