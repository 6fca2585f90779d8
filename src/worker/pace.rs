//! Even pacing of a rate-limited job (`rate_iops`, fio's `rate_process=linear`)
//! across its threads. The job as a whole offers one operation every
//! 1/rate seconds; thread `t` of `n` takes every n-th of them, starting at
//! the t-th, so the threads interleave on the job's grid instead of all
//! firing at the same instants.
//!
//! Why the job's grid and not one per thread: a window of T seconds holds
//! rate x T points of the job's grid to within one, whatever the thread
//! count. Threads paced each from their own start at rate/n all hit the
//! window's edges alike, so each lost (or gained) the same fraction of an
//! operation: with 8-18 operations per thread a step that carried its load
//! measured up to 10 % under it, and latency searches called it short.
//! The division is in floating point, so a per-thread rate of
//! 5.5 per second is 5.5, not 5 or 6.

/// When each operation of one thread is due.
#[derive(Debug, Clone, Copy)]
pub struct EvenPace {
    /// This thread's rate, operations per nanosecond.
    rate_per_ns: f64,
    /// Where this thread's first operation sits on the job's grid, in
    /// this thread's own periods: `thread / threads`.
    offset: f64,
}

impl EvenPace {
    /// Thread `thread` (0-based) of `threads` of a job offering `rate_iops`
    /// operations per second in all, a fraction of one included
    /// (`Job::pace_iops`).
    pub fn new(rate_iops: f64, threads: u32, thread: u32) -> EvenPace {
        let threads = threads.max(1);
        // A rate of nothing at all would never issue: one per day is the floor.
        let rate = rate_iops.max(1.0 / 86_400.0);
        EvenPace {
            rate_per_ns: rate / f64::from(threads) / 1e9,
            offset: f64::from(thread % threads) / f64::from(threads),
        }
    }

    /// When this thread's operation number `k` (0-based, counted from the
    /// job's start, ramp included) is due, in nanoseconds after the start.
    #[inline]
    pub fn due_ns(&self, k: u64) -> f64 {
        (k as f64 + self.offset) / self.rate_per_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Operations of all threads due in [from, from + len), in ns.
    fn due_in(rate: u64, threads: u32, from: f64, len: f64) -> u64 {
        (0..threads)
            .map(|t| {
                let p = EvenPace::new(rate as f64, threads, t);
                (0..)
                    .map(|k| p.due_ns(k))
                    .take_while(|d| *d < from + len)
                    .filter(|d| *d >= from)
                    .count() as u64
            })
            .sum()
    }

    /// The job's count in any window is rate x window to within one
    /// operation, for thread counts that do and do not divide the rate.
    #[test]
    fn the_threads_together_offer_the_jobs_rate_in_any_window() {
        for (rate, threads) in [(44, 8), (44, 1), (175, 16), (7, 3), (1000, 64), (3, 10)] {
            for (from_s, len_s) in [(0.0, 3.0), (0.37, 3.0), (1.01, 1.0), (2.5, 10.0)] {
                let got = due_in(rate, threads, from_s * 1e9, len_s * 1e9);
                let want = rate as f64 * len_s;
                assert!(
                    (got as f64 - want).abs() <= 1.0,
                    "{rate}/s on {threads} threads from {from_s} s for {len_s} s: {got}, want {want}"
                );
            }
        }
    }

    /// fio's `rate=1250` of 4 KiB blocks: 0.305 operations per second,
    /// one every 3.28 s, not one a second.
    #[test]
    fn a_rate_below_one_per_second_is_paced_as_it_is() {
        let p = EvenPace::new(1250.0 / 4096.0, 1, 0);
        let gap_s = (p.due_ns(1) - p.due_ns(0)) / 1e9;
        assert!((gap_s - 4096.0 / 1250.0).abs() < 1e-9, "{gap_s}");
        assert_eq!(due_in_f(1250.0 / 4096.0, 1, 0.0, 33.0e9), 11);
    }

    fn due_in_f(rate: f64, threads: u32, from: f64, len: f64) -> u64 {
        (0..threads)
            .map(|t| {
                let p = EvenPace::new(rate, threads, t);
                (0..)
                    .map(|k| p.due_ns(k))
                    .take_while(|d| *d < from + len)
                    .filter(|d| *d >= from)
                    .count() as u64
            })
            .sum()
    }

    /// The grid is the job's: one operation every 1/rate, thread after thread.
    #[test]
    fn threads_interleave_on_one_grid() {
        let mut due: Vec<f64> = (0..4)
            .flat_map(|t| {
                let p = EvenPace::new(100.0, 4, t);
                (0..5).map(move |k| p.due_ns(k))
            })
            .collect();
        due.sort_by(f64::total_cmp);
        for (i, d) in due.iter().enumerate() {
            assert!((d - i as f64 * 1e7).abs() < 1.0, "operation {i} due at {d} ns");
        }
    }
}
