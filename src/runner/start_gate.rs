//! The threads of a job start their clocks together, once every one of them
//! has opened its target, filled its buffers and set up its engine: that
//! setup (a queue depth's worth of 1 MiB buffers filled with random data,
//! an io_uring ring) is not part of the measured time. fio does the same: a
//! job's threads are set up before any of them starts its runtime.

use std::sync::Barrier;
use std::time::Instant;

/// One thread's place at the start line. A thread that fails its setup
/// still takes its place (on drop), so the others never wait for it.
pub struct StartGate<'a> {
    barrier: &'a Barrier,
    passed: bool,
}

impl<'a> StartGate<'a> {
    pub fn new(barrier: &'a Barrier) -> StartGate<'a> {
        StartGate {
            barrier,
            passed: false,
        }
    }

    /// Waits for every thread of the job to be ready; returns the start.
    pub fn pass(&mut self) -> Instant {
        self.passed = true;
        self.barrier.wait();
        Instant::now()
    }
}

impl Drop for StartGate<'_> {
    fn drop(&mut self) {
        if !self.passed {
            self.barrier.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_gives_up_does_not_hold_the_others() {
        let barrier = Barrier::new(3);
        std::thread::scope(|s| {
            let quitter = s.spawn(|| drop(StartGate::new(&barrier)));
            let a = s.spawn(|| StartGate::new(&barrier).pass());
            let b = s.spawn(|| StartGate::new(&barrier).pass());
            quitter.join().unwrap();
            let (a, b) = (a.join().unwrap(), b.join().unwrap());
            assert!(a.max(b) - a.min(b) < std::time::Duration::from_secs(1));
        });
    }
}
