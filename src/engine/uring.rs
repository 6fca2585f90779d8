//! io_uring, set up as fio sets it up (COOP_TASKRUN, SINGLE_ISSUER,
//! DEFER_TASKRUN), with the file, the buffers and the ring's own descriptor
//! registered once so the kernel does not look them up per I/O or per
//! io_uring_enter. One ring per worker thread.

use std::io;
use std::os::fd::AsRawFd;

use io_uring::{IoUring, opcode, squeue, types};

use super::{Caps, Completion, Engine, EngineSetup, Io, Queued};

/// io_uring_enter's flag to reap completions (and run deferred task work).
const IORING_ENTER_GETEVENTS: u32 = 1;

/// io_uring_enter's flag: the descriptor argument is an index into this
/// thread's registered rings (`IORING_REGISTER_RING_FDS`, Linux 5.18).
const IORING_ENTER_REGISTERED_RING: u32 = 1 << 4;
const IORING_REGISTER_RING_FDS: libc::c_uint = 20;
const IORING_UNREGISTER_RING_FDS: libc::c_uint = 21;

/// I/Os per submission call while the worker refills the queue, with direct
/// I/O. At qd 32 on this VM's virtio disk one wait here finds about 11
/// completions; submitting each refill by itself (fio's default,
/// `iodepth_batch_submit=1`) costs an io_uring_enter per I/O. Four per call:
/// 10-15 % less CPU per I/O at qd 8 and 32, IOPS unchanged (bench/NOTES.md);
/// refilling all at once lost about 11 % of IOPS, as the kernel
/// plugs a call of 3 or more SQEs (`io_submit_state_start`) and the first
/// reaches the device only when the call has issued the last. Buffered I/O
/// stays at one per call: a page-cache hit completes inside its submit call,
/// which alone must time it.
const DIRECT_SUBMIT_BATCH: u32 = 4;

/// Marks the user_data of an fsync, which has no slot.
const SYNC_TAG: u64 = u64::MAX;

pub struct UringEngine {
    ring: IoUring,
    bufs: Vec<*mut u8>,
    stride: usize,
    fixed_buffers: bool,
    queued: usize,
    /// Syncs reaped and not yet taken: how many succeeded, and the errnos of those that failed.
    syncs_done: u32,
    sync_errors: Vec<i32>,
    /// The descriptor, for trims, which go around the ring.
    fd: std::os::fd::RawFd,
    /// Trims queued, made at the next submit (after the worker's clock read).
    trims: Vec<Io>,
    /// Trims made, waiting to be reaped.
    trimmed: Vec<Completion>,
    /// io_uring_enter's descriptor argument and the flag that says what it is:
    /// the ring's index among this thread's registered rings, or its descriptor.
    enter_fd: libc::c_int,
    enter_flags: u32,
    /// The descriptor was opened O_DIRECT.
    direct: bool,
}

/// Checks that this kernel and sandbox allow io_uring; the error says why not.
pub fn probe_io_uring() -> Result<(), String> {
    let mut ring = IoUring::new(2).map_err(|e| format!("io_uring_setup failed: {e}"))?;
    let nop = opcode::Nop::new().build().user_data(7);
    // SAFETY: a NOP references no memory.
    unsafe { ring.submission().push(&nop) }.map_err(|_| "io_uring queue full".to_string())?;
    ring.submit_and_wait(1)
        .map_err(|e| format!("io_uring_enter failed: {e}"))?;
    match ring.completion().next() {
        Some(c) if c.user_data() == 7 => Ok(()),
        _ => Err("io_uring returned no completion for a NOP".to_string()),
    }
}

fn build_ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        // Kernels before 6.1 lack DEFER_TASKRUN: a plain ring still works.
        .or_else(|_| IoUring::new(entries))
}

impl UringEngine {
    pub fn new(setup: &EngineSetup) -> io::Result<UringEngine> {
        let entries = setup.queue_depth.next_power_of_two().max(2);
        let ring = build_ring(entries)?;
        ring.submitter().register_files(&[setup.fd])?;
        // Spares the kernel the ring's file lookup (an atomic get and put on
        // its file, kura being threaded) in every io_uring_enter; older kernels
        // lack it. The crate's `Submitter::register_ring_fd` keeps the index in
        // the `Submitter`, which `IoUring::submitter` makes afresh per call, so
        // its own submits never used it: kura enters the ring itself.
        let (enter_fd, enter_flags) = match register_ring_fd(&ring) {
            Some(index) => (index, IORING_ENTER_REGISTERED_RING),
            None => (ring.as_raw_fd(), 0),
        };
        let slots = setup.buffers.slots as u32;
        let bufs: Vec<*mut u8> = (0..slots).map(|s| setup.buffers.slot_ptr(s)).collect();
        let iovecs: Vec<libc::iovec> = bufs
            .iter()
            .map(|p| libc::iovec {
                iov_base: *p as *mut libc::c_void,
                iov_len: setup.buffers.stride,
            })
            .collect();
        // SAFETY: the iovecs describe the worker's buffers, which outlive the ring
        // (the worker drops the engine before the buffers).
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(UringEngine {
            ring,
            bufs,
            stride: setup.buffers.stride,
            fixed_buffers,
            queued: 0,
            syncs_done: 0,
            sync_errors: Vec::new(),
            fd: setup.fd,
            trims: Vec::new(),
            trimmed: Vec::new(),
            enter_fd,
            enter_flags,
            // SAFETY: F_GETFL reads the descriptor's flags and nothing else.
            direct: unsafe { libc::fcntl(setup.fd, libc::F_GETFL) } & libc::O_DIRECT != 0,
        })
    }

    /// io_uring_enter with no argument struct, through the registered ring when there is one.
    #[inline]
    fn enter(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<u32> {
        // SAFETY: no argument struct is passed (null, size 0); the descriptor
        // or index names this engine's ring, registered on this thread.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd,
                to_submit,
                min_complete,
                flags | self.enter_flags,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as u32)
        }
    }

    fn entry(&self, io: Io) -> squeue::Entry {
        let fd = types::Fixed(0);
        assert!(
            io.buf_offset as usize + io.len as usize <= self.stride,
            "I/O larger than its buffer"
        );
        // SAFETY: the range [buf_offset, buf_offset + len) lies inside the slot (checked above).
        let buf = unsafe { self.bufs[io.buf_index as usize].add(io.buf_offset as usize) };
        let sqe = match (io.write, self.fixed_buffers) {
            (false, true) => opcode::ReadFixed::new(fd, buf, io.len, io.buf_index as u16)
                .offset(io.offset)
                .build(),
            (true, true) => opcode::WriteFixed::new(fd, buf, io.len, io.buf_index as u16)
                .offset(io.offset)
                .build(),
            (false, false) => opcode::Read::new(fd, buf, io.len).offset(io.offset).build(),
            (true, false) => opcode::Write::new(fd, buf, io.len).offset(io.offset).build(),
        };
        sqe.user_data(io.slot as u64)
    }
}

impl UringEngine {
    fn make_trims(&mut self) {
        for io in self.trims.drain(..) {
            self.trimmed.push(Completion {
                slot: io.slot,
                result: super::trim::discard(self.fd, io.offset, io.len),
            });
        }
    }
}

impl Engine for UringEngine {
    fn caps(&self) -> Caps {
        Caps {
            completes_inline: false,
            fixed_buffers: self.fixed_buffers,
            submit_batch: if self.direct { DIRECT_SUBMIT_BATCH } else { 1 },
        }
    }

    #[inline]
    fn queue(&mut self, io: Io) -> Queued {
        if io.trim {
            // As fio's io_uring engine: a trim is the BLKDISCARD ioctl, made synchronously.
            self.trims.push(io);
            return Queued::Queued;
        }
        let sqe = self.entry(io);
        // SAFETY: the buffer of this slot stays valid and untouched until the
        // completion is reaped (the worker's promise in `Engine::queue`).
        match unsafe { self.ring.submission().push(&sqe) } {
            Ok(()) => {
                self.queued += 1;
                Queued::Queued
            }
            // A full submission ring: the worker submits and reaps, then offers it again.
            Err(_) => Queued::Busy,
        }
    }

    #[inline]
    fn submit_and_wait(&mut self, min: usize) -> io::Result<()> {
        self.make_trims();
        let min = min.saturating_sub(self.trimmed.len());
        loop {
            let to_submit = self.ring.submission().len() as u32;
            match self.enter(to_submit, min as u32, IORING_ENTER_GETEVENTS) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
        self.queued = 0;
        Ok(())
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        // GETEVENTS with no minimum, as fio's commit does: under DEFER_TASKRUN it also
        // runs the deferred completion work, so finished I/Os are visible at once.
        self.make_trims();
        while self.queued > 0 {
            match self.enter(self.queued as u32, 0, IORING_ENTER_GETEVENTS) {
                Ok(n) => self.queued -= (n as usize).min(self.queued),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    #[inline]
    fn has_completions(&mut self) -> bool {
        !self.trimmed.is_empty() || !self.ring.completion().is_empty()
    }

    #[inline]
    fn reap(&mut self, on_complete: &mut impl FnMut(Completion)) {
        for c in self.trimmed.drain(..) {
            on_complete(c);
        }
        for cqe in self.ring.completion() {
            if cqe.user_data() == SYNC_TAG {
                match cqe.result() {
                    r if r < 0 => self.sync_errors.push(-r),
                    _ => self.syncs_done += 1,
                }
                continue;
            }
            on_complete(Completion {
                slot: cqe.user_data() as u32,
                result: cqe.result(),
            });
        }
    }

    fn sync_data(&mut self, on_complete: &mut impl FnMut(Completion)) -> io::Result<()> {
        let sqe = sync_entry();
        // SAFETY: an fsync references no buffer.
        while unsafe { self.ring.submission().push(&sqe) }.is_err() {
            // The ring is full of queued I/Os: send them first.
            self.submit()?;
            self.reap(on_complete);
        }
        self.queued += 1;
        // The caller has no sync of its own in flight, so the next one reaped is this one.
        loop {
            if let Some(result) = self.take_sync_result() {
                return result;
            }
            self.submit_and_wait(1)?;
            // I/Os still in flight complete here too; they belong to the caller.
            self.reap(on_complete);
        }
    }

    fn queue_sync(&mut self) -> Option<Queued> {
        // SAFETY: an fsync references no buffer.
        Some(match unsafe { self.ring.submission().push(&sync_entry()) } {
            Ok(()) => {
                self.queued += 1;
                Queued::Queued
            }
            Err(_) => Queued::Busy,
        })
    }

    fn take_sync_result(&mut self) -> Option<io::Result<()>> {
        if let Some(errno) = self.sync_errors.pop() {
            return Some(Err(io::Error::from_raw_os_error(errno)));
        }
        (self.syncs_done > 0).then(|| {
            self.syncs_done -= 1;
            Ok(())
        })
    }
}

/// Registers the ring's descriptor for the calling thread (registered rings
/// are per thread: the worker that drives the ring sets it up); its index.
fn register_ring_fd(ring: &IoUring) -> Option<libc::c_int> {
    let mut update = RsrcUpdate {
        offset: u32::MAX,
        resv: 0,
        data: ring.as_raw_fd() as u64,
    };
    // SAFETY: one io_uring_rsrc_update, which the kernel reads and writes the index into.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring.as_raw_fd(),
            IORING_REGISTER_RING_FDS,
            &mut update as *mut RsrcUpdate,
            1u32,
        )
    };
    (r == 1).then_some(update.offset as libc::c_int)
}

/// The kernel's `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        // The registration holds the ring open until the thread exits: let it
        // go with the engine (before the ring's own drop closes it).
        if self.enter_flags & IORING_ENTER_REGISTERED_RING != 0 {
            let update = RsrcUpdate {
                offset: self.enter_fd as u32,
                resv: 0,
                data: 0,
            };
            // SAFETY: one io_uring_rsrc_update naming the index registered in `new`.
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    self.ring.as_raw_fd(),
                    IORING_UNREGISTER_RING_FDS,
                    &update as *const RsrcUpdate,
                    1u32,
                )
            };
        }
    }
}

/// An fdatasync of the registered file, told apart from I/Os by its tag.
fn sync_entry() -> squeue::Entry {
    opcode::Fsync::new(types::Fixed(0))
        .flags(types::FsyncFlags::DATASYNC)
        .build()
        .user_data(SYNC_TAG)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Buffers;

    /// 16 is the kernel's limit of registered rings per thread
    /// (`IO_RINGFD_REG_MAX`): rings made one after another on one thread keep
    /// entering through a registered index only if each engine lets its own go.
    #[test]
    fn every_ring_enters_through_its_registered_index_and_lets_it_go() {
        let file = tempfile::tempfile().unwrap();
        file.set_len(1 << 20).unwrap();
        let buffers = Buffers::new(2, 4096);
        let setup = EngineSetup {
            fd: file.as_raw_fd(),
            queue_depth: 1,
            buffers: &buffers,
        };
        for round in 0..20 {
            let mut engine = UringEngine::new(&setup).unwrap();
            assert_eq!(
                engine.enter_flags, IORING_ENTER_REGISTERED_RING,
                "ring {round} was not registered"
            );
            let io = Io {
                slot: 0,
                buf_index: 0,
                buf_offset: 0,
                offset: 4096 * round,
                len: 4096,
                write: false,
                trim: false,
            };
            assert_eq!(engine.queue(io), Queued::Queued);
            engine.submit_and_wait(1).unwrap();
            let mut results = Vec::new();
            engine.reap(&mut |c| results.push(c.result));
            assert_eq!(results, [4096], "ring {round}");
        }
    }

    /// Direct I/O completes by interrupt, after its call: the worker may send
    /// a few per call. Buffered I/O may complete inside it: one per call.
    #[test]
    fn only_direct_io_is_submitted_in_batches() {
        // Unnamed, in the worktree's file system (tmpfs has no O_DIRECT).
        let file = tempfile::tempfile_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let buffers = Buffers::new(8, 4096);
        let setup = EngineSetup {
            fd: file.as_raw_fd(),
            queue_depth: 4,
            buffers: &buffers,
        };
        assert_eq!(UringEngine::new(&setup).unwrap().caps().submit_batch, 1);
        // SAFETY: F_SETFL on our own descriptor.
        let set = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, libc::O_DIRECT) };
        assert_eq!(set, 0, "O_DIRECT: {}", io::Error::last_os_error());
        assert_eq!(
            UringEngine::new(&setup).unwrap().caps().submit_batch,
            DIRECT_SUBMIT_BATCH
        );
    }
}
