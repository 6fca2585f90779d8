//! What one test measured, and the bookkeeping every test shares: its
//! clock, a failure that ends it, and the close inside the measured time.

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::Instant;

use super::thread_cpu_ns;
use crate::metrics::collect::DirCollector;

/// What one test measured, before it becomes a `JobResult`.
#[derive(Default)]
pub(super) struct Measured {
    pub read: DirCollector,
    pub write: DirCollector,
    pub elapsed_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    pub syncs: u64,
    pub stopped: bool,
    /// The failure that ended the test, if one did.
    pub error: Option<String>,
}

/// Elapsed and thread CPU time of one measuring thread.
pub(super) struct Clock {
    start: Instant,
    cpu: (u64, u64),
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            cpu: thread_cpu_ns(),
            start: Instant::now(),
        }
    }

    pub fn stop(&self, m: &mut Measured) {
        m.elapsed_ns = self.start.elapsed().as_nanos() as u64;
        let (user, system) = thread_cpu_ns();
        m.cpu_user_ns += user.saturating_sub(self.cpu.0);
        m.cpu_system_ns += system.saturating_sub(self.cpu.1);
    }
}

pub(super) fn errno(e: &io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// Records a failed operation and ends the test with it.
pub(super) fn fail(m: &mut Measured, write: bool, what: &str, offset: u64, e: &io::Error) {
    let d = if write { &mut m.write } else { &mut m.read };
    d.failure(errno(e), offset);
    m.error = Some(format!("{what} at offset {offset}: {e}"));
}

#[inline]
pub(super) fn lap(last: &mut Instant) -> u64 {
    let now = Instant::now();
    let ns = now.duration_since(*last).as_nanos() as u64;
    *last = now;
    ns
}

/// Closes a test file as bonnie++ does, inside the measured time: fsync, then close.
pub(super) fn close(file: File, m: &mut Measured, path: &Path) {
    if m.stopped || m.error.is_some() {
        return;
    }
    m.syncs += 1;
    if let Err(e) = file.sync_all() {
        m.error = Some(format!("fsync of {}: {e}", path.display()));
    }
}
