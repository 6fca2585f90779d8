//! One trait for "submit these I/Os, tell me which completed", and its
//! engines: io_uring, sync (pread/pwrite) and null (no I/O, measures kura).
//! Engines know nothing of jobs, statistics or output.

mod null;
#[cfg(test)]
pub mod scripted;
mod sync;
mod trim;
mod uring;

use std::io;
use std::os::fd::RawFd;

pub use null::NullEngine;
pub use sync::SyncEngine;
pub use uring::{UringEngine, probe_io_uring};

/// One I/O handed to an engine. The data lives in the worker's buffer for `slot`.
#[derive(Debug, Clone, Copy)]
pub struct Io {
    /// Identifies the I/O in its completion.
    pub slot: u32,
    /// Which of the worker's buffers holds the data.
    pub buf_index: u32,
    /// Where in that buffer the data starts: 0, or the bytes already moved when
    /// the rest of a short transfer is resubmitted.
    pub buf_offset: u32,
    pub offset: u64,
    pub len: u32,
    pub write: bool,
    /// A trim (BLKDISCARD) of `offset..offset+len`; no buffer, `write` false.
    pub trim: bool,
}

/// Buffers owned by the worker: `slots` buffers of `stride` bytes, aligned
/// for O_DIRECT. Engines get their addresses once, at setup.
pub struct Buffers {
    ptr: *mut u8,
    layout: std::alloc::Layout,
    pub stride: usize,
    pub slots: usize,
}

/// O_DIRECT needs the logical block size; 4096 covers every device we meet.
pub const BUFFER_ALIGN: usize = 4096;

impl Buffers {
    pub fn new(slots: usize, stride: usize) -> Buffers {
        let stride = stride.div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN;
        let layout = std::alloc::Layout::from_size_align(slots * stride, BUFFER_ALIGN)
            .expect("buffer size fits in memory");
        // SAFETY: the layout has a non-zero size (slots and stride are at least 1).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Buffers {
            ptr,
            layout,
            stride,
            slots,
        }
    }

    pub fn slot_ptr(&self, slot: u32) -> *mut u8 {
        assert!((slot as usize) < self.slots);
        // SAFETY: slot < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(slot as usize * self.stride) }
    }

    pub fn slot_mut(&mut self, slot: u32) -> &mut [u8] {
        let p = self.slot_ptr(slot);
        // SAFETY: the slot's range lies inside the allocation and `&mut self` excludes other borrows.
        unsafe { std::slice::from_raw_parts_mut(p, self.stride) }
    }

    pub fn slot(&self, slot: u32) -> &[u8] {
        // SAFETY: as slot_mut; shared borrow of self.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(slot), self.stride) }
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this same layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

// SAFETY: Buffers owns its allocation exclusively; moving it between threads is sound.
unsafe impl Send for Buffers {}

/// A completed I/O: its slot and the kernel's result (bytes, or -errno).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i32,
}

/// What `queue` did with an I/O (fio's `FIO_Q_QUEUED` / `FIO_Q_BUSY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Queued {
    /// Taken: it goes out with the next submit.
    Queued,
    /// Not taken: reap completions, then offer the same I/O again.
    Busy,
}

/// What an engine can and cannot do, after fio's engine flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Every I/O finishes inside the call that submits it, so only one can be
    /// in flight (fio's `FIO_SYNCIO`).
    pub completes_inline: bool,
    /// The kernel uses buffers registered once, instead of pinning each I/O's buffer.
    pub fixed_buffers: bool,
    /// How many I/Os the worker gathers into one submission call while it
    /// refills the queue (those queued last always go with the call that
    /// waits); each call's I/Os share its clock read. 1: each as it is
    /// queued, fio's way. `u32::MAX`: the whole depth in one call, for
    /// engines with no device that waits for each I/O (null: kura's own
    /// cost, batched as io_uring is meant to be driven).
    pub submit_batch: u32,
}

/// The engine protocol, after fio's `queue` / `commit` / `getevents`. The
/// caller timestamps: engines never read the clock.
pub trait Engine {
    fn caps(&self) -> Caps;
    /// Adds one I/O to the next submission, or answers `Busy` and keeps
    /// nothing of it. The caller keeps at most `queue_depth` I/Os in flight
    /// and does not touch the slot's buffer until its completion was reaped.
    fn queue(&mut self, io: Io) -> Queued;
    /// Submits what was queued and waits until at least `min` I/Os completed.
    /// EAGAIN and EBUSY mean "reap completions, then call again".
    fn submit_and_wait(&mut self, min: usize) -> io::Result<()>;
    /// Submits what was queued without waiting.
    fn submit(&mut self) -> io::Result<()> {
        self.submit_and_wait(0)
    }
    /// True when `reap` would hand over at least one completion now.
    fn has_completions(&mut self) -> bool;
    /// Hands every completion available now to `on_complete`.
    fn reap(&mut self, on_complete: &mut impl FnMut(Completion));
    /// Flushes written data to stable storage (fdatasync). Completions of
    /// I/Os that finish meanwhile go to `on_complete`, never lost.
    fn sync_data(&mut self, on_complete: &mut impl FnMut(Completion)) -> io::Result<()>;
    /// Adds an fdatasync to the next submission, to run beside the I/Os in
    /// flight: it covers the writes completed before it starts (fio's
    /// `fdatasync=N` on io_uring). `None`: this engine has no such sync, and
    /// the caller drains the queue and calls `sync_data`.
    fn queue_sync(&mut self) -> Option<Queued> {
        None
    }
    /// The result of one sync `queue_sync` queued, once a reap found it; call
    /// again for the next.
    fn take_sync_result(&mut self) -> Option<io::Result<()>> {
        None
    }
}

/// True for the submit errors that mean "the kernel is short of room: reap, then retry".
pub fn is_busy(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EBUSY))
}

/// The file descriptor and buffers an engine works on.
pub struct EngineSetup<'a> {
    pub fd: RawFd,
    pub queue_depth: u32,
    pub buffers: &'a Buffers,
}

pub(crate) fn errno_result(ret: isize) -> i32 {
    if ret < 0 {
        -io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
    } else {
        ret as i32
    }
}
