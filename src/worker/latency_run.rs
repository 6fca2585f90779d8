//! Completions found by one reap share its stamp, and I/Os carried by one
//! submit call share that call's, so a batch's latencies are often equal:
//! they go into the histograms as one run (`record_n`), not once each. A
//! histogram record was a quarter of the null engine's CPU per I/O.

use hdrhistogram::Histogram;

use crate::metrics::histogram::{HIGHEST_NS, LOWEST_NS};

/// Equal latencies of one direction not recorded yet.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct LatencyRun {
    /// 0 read, 1 write, 2 trim: the index of `IntervalSums::dir_hists`.
    pub dir: usize,
    pub latency_ns: u64,
    pub count: u64,
}

impl LatencyRun {
    /// Adds one latency when it continues the run; false when the run must be
    /// recorded first and a new one started.
    #[inline]
    pub fn extend(&mut self, dir: usize, latency_ns: u64) -> bool {
        if self.count > 0 && self.dir == dir && self.latency_ns == latency_ns {
            self.count += 1;
            return true;
        }
        self.count == 0 && {
            *self = LatencyRun {
                dir,
                latency_ns,
                count: 1,
            };
            true
        }
    }

    /// Records the run into `h` (clamped into range, as `histogram::record`).
    pub fn record_into(&self, h: &mut Histogram<u64>) {
        if self.count > 0 {
            // Cannot fail: the value is clamped into the histogram's range.
            let _ = h.record_n(self.latency_ns.clamp(LOWEST_NS, HIGHEST_NS), self.count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LatencyRun;
    use crate::metrics::histogram::new_histogram;

    #[test]
    fn equal_latencies_make_one_run_and_a_change_ends_it() {
        let mut run = LatencyRun::default();
        assert!(run.extend(0, 500));
        assert!(run.extend(0, 500));
        assert!(!run.extend(0, 501), "another latency");
        assert!(!run.extend(1, 500), "another direction");
        let mut h = new_histogram();
        run.record_into(&mut h);
        assert_eq!((h.len(), h.count_at(500)), (2, 2));
        // Zero is clamped into range, never dropped.
        let zero = LatencyRun {
            dir: 0,
            latency_ns: 0,
            count: 3,
        };
        zero.record_into(&mut h);
        assert_eq!(h.len(), 5);
    }
}
