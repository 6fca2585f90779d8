//! IO500's stonewall on mdtest's create phase (mdtest `-W SECONDS` with
//! IO500's wear-out, `src/phase_mdtest_easy_write.c` in IO500/io500 at
//! 02091cf): every thread creates files until the deadline, the threads
//! (and, through `agree`, every rank) agree on the largest count any of
//! them reached, and each then creates up to that count (at most its own
//! files); the later phases stat, read and remove the files made. The
//! agreement runs on the thread that called `measure` (MPI's), never on a
//! worker thread.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// What the worker threads share: each reports its count at the deadline
/// and waits for the agreed one.
pub struct WallSync {
    pub deadline: Duration,
    state: Mutex<State>,
    decided: Condvar,
}

#[derive(Default)]
struct State {
    /// Each reporting thread's (creates, bytes) at the deadline.
    heard: Vec<(u64, u64)>,
    target: Option<u64>,
}

impl WallSync {
    /// A thread's count at the deadline; returns the agreed count.
    pub fn report(&self, ops: u64, bytes: u64) -> u64 {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.heard.push((ops, bytes));
        loop {
            if let Some(t) = s.target {
                return t;
            }
            s = self.decided.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// One stonewalled file-set job: the deadline, how this process agrees
/// with the others (`all_max`; the identity alone), and what it counted
/// at the deadline.
pub struct Stonewall<'a> {
    sync: Arc<WallSync>,
    agree: &'a mut dyn FnMut(u64) -> u64,
    threads: u32,
    /// The mix starts with create: the threads will report.
    reporting: bool,
    decided: bool,
    /// This process's creates and bytes at the deadline.
    pub at_deadline: (u64, u64),
    /// The count every thread completed up to.
    pub agreed: u64,
}

impl<'a> Stonewall<'a> {
    pub fn new(deadline: Duration, agree: &'a mut dyn FnMut(u64) -> u64) -> Stonewall<'a> {
        Stonewall {
            sync: Arc::new(WallSync {
                deadline,
                state: Mutex::new(State::default()),
                decided: Condvar::new(),
            }),
            agree,
            threads: 0,
            reporting: false,
            decided: false,
            at_deadline: (0, 0),
            agreed: 0,
        }
    }

    pub fn begin(&mut self, threads: u32, makes_files: bool) {
        self.threads = threads;
        self.reporting = makes_files;
    }

    /// What the threads share, when they will report.
    pub fn sync(&self) -> Option<Arc<WallSync>> {
        self.reporting.then(|| self.sync.clone())
    }

    /// Once every thread has reported: agree, and let them go on.
    pub fn settle_when_heard(&mut self) {
        if self.decided || !self.reporting {
            return;
        }
        let heard: Vec<(u64, u64)> = {
            let s = self.sync.state.lock().unwrap_or_else(|e| e.into_inner());
            if s.heard.len() < self.threads as usize {
                return;
            }
            s.heard.clone()
        };
        let local = heard.iter().map(|h| h.0).max().unwrap_or(0);
        self.at_deadline = (heard.iter().map(|h| h.0).sum(), heard.iter().map(|h| h.1).sum());
        self.agreed = (self.agree)(local);
        self.decided = true;
        let mut s = self.sync.state.lock().unwrap_or_else(|e| e.into_inner());
        s.target = Some(self.agreed);
        self.sync.decided.notify_all();
    }

    /// After the job: a process whose threads never reported (it failed
    /// first, or its mix makes no files) still agrees once, as every rank must.
    pub fn settle_unheard(&mut self) {
        if !self.decided {
            self.agreed = (self.agree)(0);
            self.decided = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_wait_for_the_agreed_count_and_the_process_keeps_its_own() {
        let mut others = |local: u64| local.max(50);
        let mut wall = Stonewall::new(Duration::from_millis(1), &mut others);
        wall.begin(2, true);
        let sync = wall.sync().unwrap();
        std::thread::scope(|s| {
            let a = {
                let sync = sync.clone();
                s.spawn(move || sync.report(10, 100))
            };
            let b = s.spawn(move || sync.report(30, 300));
            while !wall.decided {
                wall.settle_when_heard();
                std::thread::yield_now();
            }
            assert_eq!(a.join().unwrap(), 50);
            assert_eq!(b.join().unwrap(), 50);
        });
        assert_eq!(wall.at_deadline, (40, 400));
        assert_eq!(wall.agreed, 50);
    }
}
