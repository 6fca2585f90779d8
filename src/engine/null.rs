//! No I/O at all: every I/O completes at once with its full length. What a
//! run on `null` measures is kura's own cost per I/O.

use std::io;

use super::{Caps, Completion, Engine, Io, Queued};

pub struct NullEngine {
    done: Vec<Completion>,
}

impl NullEngine {
    pub fn new(queue_depth: u32) -> NullEngine {
        NullEngine {
            done: Vec::with_capacity(queue_depth as usize),
        }
    }
}

impl Engine for NullEngine {
    fn caps(&self) -> Caps {
        Caps {
            completes_inline: false,
            fixed_buffers: false,
            submit_batch: u32::MAX,
        }
    }
    #[inline]
    fn queue(&mut self, io: Io) -> Queued {
        // Capacity is the queue depth and the caller keeps within it: this never reallocates.
        self.done.push(Completion {
            slot: io.slot,
            result: io.len as i32,
        });
        Queued::Queued
    }
    fn submit_and_wait(&mut self, _min: usize) -> io::Result<()> {
        Ok(())
    }
    #[inline]
    fn has_completions(&mut self) -> bool {
        !self.done.is_empty()
    }
    #[inline]
    fn reap(&mut self, on_complete: &mut impl FnMut(Completion)) {
        for c in self.done.drain(..) {
            on_complete(c);
        }
    }
    fn sync_data(&mut self, on_complete: &mut impl FnMut(Completion)) -> io::Result<()> {
        self.reap(on_complete);
        Ok(())
    }
}
