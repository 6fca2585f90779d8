//! fio's `rate_min` and `rate_iops_min` for one thread, as fio's
//! `__check_min_rate` (backend.c, fio 3.33) does for one clone: nothing in
//! the first two seconds, then every second (fio's default `ratecycle`)
//! each direction that has moved data is compared with its minimum over
//! the time since the last check. Called where periods close, not per I/O.

use crate::jobs::rate_min::RateMin;

/// fio's settling time before the first check.
const SETTLE_NS: u64 = 2_000_000_000;
/// fio's default `ratecycle`.
const CYCLE_NS: u64 = 1_000_000_000;

pub(super) struct MinRateCheck {
    limits: RateMin,
    next_ns: u64,
    /// Clock and (ops, bytes) of reads and writes at the last check.
    last: Option<(u64, [(u64, u64); 2])>,
}

impl MinRateCheck {
    pub(super) fn new(limits: Option<RateMin>) -> Option<MinRateCheck> {
        limits.filter(|l| !l.is_empty()).map(|limits| MinRateCheck {
            limits,
            next_ns: SETTLE_NS,
            last: None,
        })
    }

    #[inline]
    pub(super) fn due(&self, now_ns: u64) -> bool {
        now_ns >= self.next_ns
    }

    /// Compares the rates since the last check; a sentence when one is below its minimum.
    pub(super) fn check(&mut self, now_ns: u64, totals: [(u64, u64); 2]) -> Option<String> {
        self.next_ns = now_ns + CYCLE_NS;
        // The first check only takes the counts (fio's first snapshot).
        let (then_ns, before) = self.last.replace((now_ns, totals))?;
        let spent = now_ns.saturating_sub(then_ns).max(1) as f64 / 1e9;
        let l = &self.limits;
        let mins = [
            ("read", l.read_iops, l.read_bytes_per_sec),
            ("write", l.write_iops, l.write_bytes_per_sec),
        ];
        for (i, (dir, iops_min, bytes_min)) in mins.into_iter().enumerate() {
            // fio checks only the directions that have moved data.
            if totals[i].0 == 0 {
                continue;
            }
            let iops = totals[i].0.saturating_sub(before[i].0) as f64 / spent;
            let bytes = totals[i].1.saturating_sub(before[i].1) as f64 / spent;
            if let Some(m) = iops_min
                && iops < m as f64
            {
                return Some(format!("{dir} IOPS {iops:.0} below rate_iops_min {m}"));
            }
            if let Some(m) = bytes_min
                && bytes < m as f64
            {
                return Some(format!("{dir} {bytes:.0} bytes/s below rate_min {m}"));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settles_then_checks_each_second() {
        let mut c = MinRateCheck::new(Some(RateMin {
            read_iops: Some(100),
            ..RateMin::default()
        }))
        .unwrap();
        assert!(!c.due(1_000_000_000));
        assert!(c.due(2_000_000_000));
        assert_eq!(c.check(2_000_000_000, [(500, 0), (0, 0)]), None);
        assert!(!c.due(2_500_000_000));
        // 150 reads in the second: above.
        assert_eq!(c.check(3_000_000_000, [(650, 0), (0, 0)]), None);
        // 50: below.
        let why = c.check(4_000_000_000, [(700, 0), (0, 0)]).unwrap();
        assert!(why.contains("read IOPS 50 below rate_iops_min 100"), "{why}");
        assert!(MinRateCheck::new(Some(RateMin::default())).is_none());
    }
}
