//! pread/pwrite, one I/O in flight per thread: what an application that
//! calls `read()`/`write()` sees (fio's `psync`), the default for buffered
//! jobs, and the engine for kernels or containers without io_uring.

use std::io;
use std::os::fd::RawFd;

use super::{Caps, Completion, Engine, EngineSetup, Io, Queued, errno_result};

pub struct SyncEngine {
    fd: RawFd,
    bufs: Vec<*mut u8>,
    stride: usize,
    pending: Option<Io>,
    done: Option<Completion>,
}

impl SyncEngine {
    pub fn new(setup: &EngineSetup) -> SyncEngine {
        let slots = setup.buffers.slots as u32;
        SyncEngine {
            fd: setup.fd,
            bufs: (0..slots).map(|s| setup.buffers.slot_ptr(s)).collect(),
            stride: setup.buffers.stride,
            pending: None,
            done: None,
        }
    }
}

impl Engine for SyncEngine {
    fn caps(&self) -> Caps {
        Caps {
            completes_inline: true,
            fixed_buffers: false,
            submit_batch: 1,
        }
    }

    #[inline]
    fn queue(&mut self, io: Io) -> Queued {
        // One I/O per call: a second before the first was submitted and reaped waits its turn.
        if self.pending.is_some() || self.done.is_some() {
            return Queued::Busy;
        }
        assert!(
            io.buf_offset as usize + io.len as usize <= self.stride,
            "I/O larger than its buffer"
        );
        self.pending = Some(io);
        Queued::Queued
    }

    fn submit_and_wait(&mut self, _min: usize) -> io::Result<()> {
        let Some(io) = self.pending.take() else {
            return Ok(());
        };
        // SAFETY: buf_index < slots (the worker's buffer indices), and the data range
        // lies inside the slot (checked in `queue`).
        let buf = unsafe { self.bufs[io.buf_index as usize].add(io.buf_offset as usize) };
        if io.trim {
            self.done = Some(Completion {
                slot: io.slot,
                result: super::trim::discard(self.fd, io.offset, io.len),
            });
            return Ok(());
        }
        // SAFETY: the buffer belongs to this slot, holds `len` bytes from `buf` and the
        // worker does not touch it until the completion is reaped.
        let ret = unsafe {
            if io.write {
                libc::pwrite(
                    self.fd,
                    buf as *const libc::c_void,
                    io.len as usize,
                    io.offset as i64,
                )
            } else {
                libc::pread(
                    self.fd,
                    buf as *mut libc::c_void,
                    io.len as usize,
                    io.offset as i64,
                )
            }
        };
        self.done = Some(Completion {
            slot: io.slot,
            result: errno_result(ret),
        });
        Ok(())
    }

    #[inline]
    fn has_completions(&mut self) -> bool {
        self.done.is_some()
    }

    #[inline]
    fn reap(&mut self, on_complete: &mut impl FnMut(Completion)) {
        if let Some(c) = self.done.take() {
            on_complete(c);
        }
    }

    fn sync_data(&mut self, on_complete: &mut impl FnMut(Completion)) -> io::Result<()> {
        self.submit_and_wait(1)?;
        self.reap(on_complete);
        // SAFETY: fd is an open descriptor owned by the worker for the engine's lifetime.
        if unsafe { libc::fdatasync(self.fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
