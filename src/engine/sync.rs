//! pread/pwrite, one I/O in flight per thread: the engine for kernels or
//! containers without io_uring, and fio's `psync` for comparisons.

use std::io;
use std::os::fd::RawFd;

use super::{Completion, Engine, EngineSetup, Io, errno_result};

pub struct SyncEngine {
    fd: RawFd,
    bufs: Vec<*mut u8>,
    pending: Vec<Io>,
    done: Vec<Completion>,
}

impl SyncEngine {
    pub fn new(setup: &EngineSetup) -> SyncEngine {
        let slots = setup.buffers.slots as u32;
        SyncEngine {
            fd: setup.fd,
            bufs: (0..slots).map(|s| setup.buffers.slot_ptr(s)).collect(),
            pending: Vec::with_capacity(slots as usize),
            done: Vec::with_capacity(slots as usize),
        }
    }
}

impl Engine for SyncEngine {
    #[inline]
    fn queue(&mut self, io: Io) {
        self.pending.push(io);
    }

    fn submit_and_wait(&mut self, _min: usize) -> io::Result<()> {
        for io in self.pending.drain(..) {
            let buf = self.bufs[io.buf_index as usize];
            // SAFETY: the buffer belongs to this slot, holds at least `len` bytes
            // (stride >= max block size) and the worker does not touch it until reaped.
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
            self.done.push(Completion {
                slot: io.slot,
                result: errno_result(ret),
            });
        }
        Ok(())
    }

    #[inline]
    fn reap(&mut self, on_complete: &mut impl FnMut(Completion)) {
        for c in self.done.drain(..) {
            on_complete(c);
        }
    }

    fn sync_data(&mut self) -> io::Result<()> {
        // SAFETY: fd is an open descriptor owned by the worker for the engine's lifetime.
        if unsafe { libc::fdatasync(self.fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
