//! Engines on real files and a real loop device: what is written reads back.

mod common;

use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use kura::engine::{Buffers, Completion, Engine, EngineSetup, Io, SyncEngine, UringEngine};

const BS: u32 = 4096;
const SLOTS: u32 = 8;

fn roundtrip<E: Engine>(engine: &mut E, buffers: &mut Buffers, rounds: u32) {
    // Write SLOTS distinct patterns per round at scattered offsets, then read them back.
    for round in 0..rounds {
        for slot in 0..SLOTS {
            let pattern = (round * SLOTS + slot) as u8 ^ 0xA5;
            buffers.slot_mut(SLOTS + slot)[..BS as usize].fill(pattern);
            buffers.slot_mut(SLOTS + slot)[0] = slot as u8;
        }
        for slot in 0..SLOTS {
            let offset =
                ((slot * 7 + round * 3) % 64) as u64 * BS as u64 * 2 + (round as u64 % 2) * BS as u64;
            engine.queue(Io {
                slot,
                buf_index: SLOTS + slot,
                offset,
                len: BS,
                write: true,
            });
        }
        let mut done = 0;
        while done < SLOTS {
            engine.submit_and_wait(1).unwrap();
            engine.reap(&mut |c: Completion| {
                assert_eq!(c.result, BS as i32, "write of slot {}", c.slot);
                done += 1;
            });
        }
        for slot in 0..SLOTS {
            buffers.slot_mut(slot).fill(0);
            let offset =
                ((slot * 7 + round * 3) % 64) as u64 * BS as u64 * 2 + (round as u64 % 2) * BS as u64;
            engine.queue(Io {
                slot,
                buf_index: slot,
                offset,
                len: BS,
                write: false,
            });
        }
        let mut done = 0;
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
        sync.sync_data().unwrap();
    }
}

#[test]
fn engines_read_back_what_they_wrote_on_a_file() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let path = dir.path().join("engine.dat");
    std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
    check_engines_on(&path);
}

#[test]
fn engines_read_back_what_they_wrote_on_a_loop_device() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let Some(dev) = common::LoopDevice::new(dir.path(), 4 << 20) else {
        return;
    };
    check_engines_on(&dev.path);
}

#[test]
fn io_errors_are_results_not_crashes() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
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
    uring.queue(Io {
        slot: 0,
        buf_index: 1,
        offset: 0,
        len: BS,
        write: true,
    });
    uring.submit_and_wait(1).unwrap();
    let mut results = Vec::new();
    uring.reap(&mut |c: Completion| results.push(c.result));
    assert_eq!(results, vec![-libc::EBADF]);
    let _ = &mut buffers;
}
