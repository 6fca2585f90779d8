//! Per-thread accumulation while a job runs, and merging threads into a
//! `JobResult`'s directions and interval series. Recording is a counter
//! bump and one histogram record; everything else happens at the end.

use std::sync::atomic::{AtomicBool, Ordering};

use hdrhistogram::Histogram;

use super::histogram::{encode, new_histogram, record, summarize};
use super::result::{DirectionResult, IntervalPoint, IoErrorSample};

/// How many failed I/Os are kept with their offset and errno.
pub const ERROR_SAMPLES: usize = 8;

/// Reads or writes of one thread.
#[derive(Debug, Clone)]
pub struct DirCollector {
    pub hist: Histogram<u64>,
    pub ops: u64,
    pub bytes: u64,
    pub errors: u64,
    pub error_samples: Vec<IoErrorSample>,
    /// Transfers that moved less than asked; the rest was resubmitted (fio's rule).
    pub short: u64,
}

impl Default for DirCollector {
    fn default() -> Self {
        DirCollector {
            hist: new_histogram(),
            ops: 0,
            bytes: 0,
            errors: 0,
            error_samples: Vec::new(),
            short: 0,
        }
    }
}

impl DirCollector {
    #[inline]
    pub fn success(&mut self, bytes: u64, latency_ns: u64) {
        self.ops += 1;
        self.bytes += bytes;
        record(&mut self.hist, latency_ns);
    }

    #[cold]
    pub fn failure(&mut self, errno: i32, offset_bytes: u64) {
        self.errors += 1;
        if self.error_samples.len() < ERROR_SAMPLES {
            self.error_samples.push(IoErrorSample {
                errno,
                offset_bytes,
                message: std::io::Error::from_raw_os_error(errno).to_string(),
            });
        }
    }

    pub fn merge(&mut self, other: &DirCollector) {
        self.ops += other.ops;
        self.bytes += other.bytes;
        self.errors += other.errors;
        self.short += other.short;
        // Both histograms have the same bounds, so adding cannot fail.
        let _ = self.hist.add(&other.hist);
        for s in &other.error_samples {
            if self.error_samples.len() < ERROR_SAMPLES {
                self.error_samples.push(s.clone());
            }
        }
    }

    pub fn result(&self, elapsed_ns: u64) -> DirectionResult {
        let secs = elapsed_ns as f64 / 1e9;
        let per_sec = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
        DirectionResult {
            ops: self.ops,
            bytes: self.bytes,
            errors: self.errors,
            error_samples: self.error_samples.clone(),
            iops: per_sec(self.ops),
            bytes_per_sec: per_sec(self.bytes),
            lat_ns: summarize(&self.hist),
            histogram: encode(&self.hist),
        }
    }
}

/// One thread's numbers for one period of the series, sent to the runner.
#[derive(Debug, Clone)]
pub struct IntervalSample {
    pub thread: u32,
    pub index: u64,
    pub read_ops: u64,
    pub write_ops: u64,
    pub bytes: u64,
    pub hist: Histogram<u64>,
    /// Summed latencies per direction, for each direction's mean.
    pub read_lat_ns: u64,
    pub write_lat_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    /// With `write_hist_log`: the period's latencies per direction (read,
    /// write, trim, fio's ddir order); `None` otherwise.
    pub dir_hists: Option<Box<[Histogram<u64>; 3]>>,
}

#[derive(Debug, Default, Clone)]
struct Period {
    read_ops: u64,
    write_ops: u64,
    bytes: u64,
    read_lat_ns: u64,
    write_lat_ns: u64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
    hist: Option<Histogram<u64>>,
    /// Mean, p99, max and standard deviation of a sealed period, whose
    /// histogram (a few hundred KiB) is gone.
    sealed: Option<(f64, u64, u64, f64)>,
    /// With `write_hist_log`: per direction, the period's latencies, then
    /// (sealed) only their fio bins.
    dir_hists: Option<Box<[Histogram<u64>; 3]>>,
    fio_bins: Vec<Vec<(u16, u64)>>,
}

fn latency_figures(h: &Histogram<u64>) -> (f64, u64, u64, f64) {
    if h.is_empty() {
        return (0.0, 0, 0, 0.0);
    }
    (h.mean(), h.value_at_quantile(0.99), h.max(), h.stdev())
}

/// Merges the threads' samples into one point per period.
#[derive(Debug, Default)]
pub struct SeriesBuilder {
    periods: Vec<Period>,
}

impl SeriesBuilder {
    pub fn add(&mut self, s: &IntervalSample) {
        let i = s.index as usize;
        if self.periods.len() <= i {
            self.periods.resize(i + 1, Period::default());
        }
        let p = &mut self.periods[i];
        p.read_ops += s.read_ops;
        p.write_ops += s.write_ops;
        p.bytes += s.bytes;
        p.read_lat_ns += s.read_lat_ns;
        p.write_lat_ns += s.write_lat_ns;
        p.cpu_user_ns += s.cpu_user_ns;
        p.cpu_system_ns += s.cpu_system_ns;
        if let Some(d) = &s.dir_hists {
            match &mut p.dir_hists {
                Some(mine) => {
                    for (m, h) in mine.iter_mut().zip(d.iter()) {
                        let _ = m.add(h);
                    }
                }
                None => p.dir_hists = Some(d.clone()),
            }
        }
        match &mut p.hist {
            Some(h) => {
                let _ = h.add(&s.hist);
            }
            // The runner seals a period only when every thread has moved past it.
            None if p.sealed.is_some() => debug_assert!(false, "a sample of sealed period {i}"),
            None => p.hist = Some(s.hist.clone()),
        }
    }

    /// Period `i` is final: its latency figures are kept, its histogram dropped.
    pub fn seal(&mut self, i: usize) {
        if let Some(p) = self.periods.get_mut(i)
            && let Some(h) = p.hist.take()
        {
            p.sealed = Some(latency_figures(&h));
        }
        if let Some(p) = self.periods.get_mut(i)
            && let Some(d) = p.dir_hists.take()
        {
            p.fio_bins = d.iter().map(crate::metrics::fio_bins::sparse_bins).collect();
        }
    }

    /// The series; the last period is cut at `elapsed_ns`.
    pub fn build(&self, interval_ns: u64, elapsed_ns: u64) -> Vec<IntervalPoint> {
        (0..self.periods.len())
            .filter_map(|i| self.point(i, interval_ns, elapsed_ns))
            .collect()
    }

    /// Period `i` of the series, cut at `elapsed_ns`; `None` when it is
    /// empty or starts after `elapsed_ns`.
    pub fn point(&self, i: usize, interval_ns: u64, elapsed_ns: u64) -> Option<IntervalPoint> {
        let p = self.periods.get(i)?;
        let start_ns = i as u64 * interval_ns;
        let duration_ns = interval_ns.min(elapsed_ns.saturating_sub(start_ns));
        if duration_ns == 0 {
            return None;
        }
        let secs = duration_ns as f64 / 1e9;
        let (mean, p99, max, stddev) = match (&p.hist, p.sealed) {
            (Some(h), _) => latency_figures(h),
            (None, Some(figures)) => figures,
            (None, None) => (0.0, 0, 0, 0.0),
        };
        let per_op = |sum: u64, ops: u64| if ops > 0 { sum as f64 / ops as f64 } else { 0.0 };
        Some(IntervalPoint {
            start_ns,
            duration_ns,
            read_ops: p.read_ops,
            write_ops: p.write_ops,
            bytes: p.bytes,
            iops: (p.read_ops + p.write_ops) as f64 / secs,
            bytes_per_sec: p.bytes as f64 / secs,
            lat_mean_ns: mean,
            lat_p99_ns: p99,
            read_lat_mean_ns: per_op(p.read_lat_ns, p.read_ops),
            write_lat_mean_ns: per_op(p.write_lat_ns, p.write_ops),
            lat_max_ns: max,
            lat_stddev_ns: stddev,
            cpu_user_ns: p.cpu_user_ns,
            cpu_system_ns: p.cpu_system_ns,
            histogram: match &p.hist {
                Some(h) if KEEP_INTERVAL_HISTOGRAMS.load(Ordering::Relaxed) => encode(h),
                _ => String::new(),
            },
            fio_bins: match &p.dir_hists {
                Some(d) => d.iter().map(crate::metrics::fio_bins::sparse_bins).collect(),
                None => p.fio_bins.clone(),
            },
        })
    }
}

/// The threads' samples of one job merged as they arrive, for every kind:
/// a period that every thread has moved past is final, handed once to the
/// caller (the live sink stores it) and then sealed, so a job's memory stays
/// flat over hours whatever its kind.
#[derive(Debug)]
pub struct SeriesFanIn {
    series: SeriesBuilder,
    /// The newest period each thread has reported.
    reported: Vec<Option<u64>>,
    next_final: u64,
    interval_ns: u64,
}

impl SeriesFanIn {
    pub fn new(threads: u32, interval_ns: u64) -> Self {
        SeriesFanIn {
            series: SeriesBuilder::default(),
            reported: vec![None; threads as usize],
            next_final: 0,
            interval_ns,
        }
    }

    /// Adds one thread's sample; `on_final` sees each period that became
    /// final, before its histogram is dropped.
    pub fn add(&mut self, sample: &IntervalSample, mut on_final: impl FnMut(&IntervalPoint)) {
        self.series.add(sample);
        if let Some(slot) = self.reported.get_mut(sample.thread as usize) {
            *slot = Some(sample.index);
        }
        if !self.reported.iter().all(Option::is_some) {
            return;
        }
        let all_past = self.reported.iter().map(|r| r.unwrap_or(0)).min().unwrap_or(0);
        while self.next_final < all_past {
            let i = self.next_final as usize;
            if let Some(point) = self.series.point(i, self.interval_ns, u64::MAX) {
                on_final(&point);
            }
            self.series.seal(i);
            self.next_final += 1;
        }
    }

    /// The series so far, its final periods sealed.
    pub fn into_series(self) -> SeriesBuilder {
        self.series
    }
}

/// Set by a process that is one rank of many (`cluster`): its series goes to
/// rank 0 with each period's histogram, so rank 0 can read each merged
/// period's p99 off the added histograms instead of guessing it from the
/// ranks' p99s. A process-wide switch because the runner, which builds the
/// series, knows nothing of ranks; a single-host run never sets it.
pub static KEEP_INTERVAL_HISTOGRAMS: AtomicBool = AtomicBool::new(false);

/// User and system CPU time of the calling thread, in nanoseconds.
///
/// The total is the scheduler's own count (`CLOCK_THREAD_CPUTIME_ID`, exact
/// to the call); `getrusage(RUSAGE_THREAD)` alone lags by the slice running
/// now (a 2 ms busy loop read 14 µs here), so a step shorter than a tick read
/// 0. getrusage only splits the total between user and system, and the split
/// is kept from running back as Linux keeps it (`cputime_adjust` in
/// kernel/sched/cputime.c): each part never falls, and they add up to the total.
pub fn thread_cpu_ns() -> (u64, u64) {
    thread_local! {
        static LAST: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
    }
    // SAFETY: rusage is plain C data; all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we pass and nothing else.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass and nothing else.
    let clock_ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    let (ticks_user, ticks_system) = (ns(usage.ru_utime), ns(usage.ru_stime));
    let total = if clock_ok {
        (ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64).max(ticks_user + ticks_system)
    } else {
        ticks_user + ticks_system
    };
    LAST.with(|last| {
        let split = split_cpu(total, ticks_user, ticks_system, last.get());
        last.set(split);
        split
    })
}

/// Splits `total` in the proportion of getrusage's parts, neither part below
/// the last split: Linux's `cputime_adjust`. With no system time counted the
/// whole is user time, as there.
fn split_cpu(total: u64, user: u64, system: u64, last: (u64, u64)) -> (u64, u64) {
    if total <= last.0 + last.1 {
        return last;
    }
    let system = if user + system == 0 || system == 0 {
        0
    } else if user == 0 {
        total
    } else {
        (system as u128 * total as u128 / (user + system) as u128) as u64
    };
    let system = system.max(last.1);
    let user = total - system;
    if user < last.0 {
        (last.0, total - last.0)
    } else {
        (user, system)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_busy_step_reads_its_cpu_time() {
        // Far shorter than a scheduler tick (1-10 ms), which getrusage alone needs to see any.
        let (user0, system0) = thread_cpu_ns();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_micros(300) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let (user1, system1) = thread_cpu_ns();
        assert!(user1 >= user0 && system1 >= system0);
        assert!(
            user1 + system1 > user0 + system0,
            "a 300 µs busy loop read no CPU time: {user0}+{system0} then {user1}+{system1}"
        );
    }

    #[test]
    fn the_cpu_split_adds_up_and_never_runs_back() {
        // getrusage's parts in proportion, summing to the exact total.
        assert_eq!(split_cpu(1000, 30, 10, (0, 0)), (750, 250));
        // No tick landed yet: all of it is user time, as Linux counts it.
        assert_eq!(split_cpu(1000, 0, 0, (0, 0)), (1000, 0));
        assert_eq!(split_cpu(1000, 0, 5, (0, 0)), (0, 1000));
        // The proportion swings towards user time: system time stays where it was.
        assert_eq!(split_cpu(2000, 90, 10, (750, 250)), (1750, 250));
        // ...and towards system time: user time stays where it was.
        assert_eq!(split_cpu(1200, 10, 90, (750, 250)), (750, 450));
        // A total not above the last: the last split again.
        assert_eq!(split_cpu(900, 10, 90, (750, 250)), (750, 250));
    }

    #[test]
    fn series_merges_threads_and_cuts_the_last_period() {
        let mut b = SeriesBuilder::default();
        for thread in 0..2 {
            for index in 0..3 {
                let mut hist = new_histogram();
                record(&mut hist, 1000 * (thread as u64 + 1));
                b.add(&IntervalSample {
                    thread,
                    index,
                    read_ops: 10,
                    write_ops: 5,
                    bytes: 15 * 4096,
                    hist,
                    read_lat_ns: 10 * 1000,
                    write_lat_ns: 5 * 3000,
                    cpu_user_ns: 7,
                    cpu_system_ns: 3,
                    dir_hists: None,
                });
            }
        }
        let s = b.build(1_000_000_000, 2_500_000_000);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].read_ops, 20);
        assert_eq!(s[0].iops, 30.0);
        assert_eq!(s[2].duration_ns, 500_000_000);
        assert_eq!(s[2].iops, 60.0);
        assert!((s[1].lat_mean_ns - 1500.0).abs() < 2.0);
        assert_eq!(s[0].read_lat_mean_ns, 1000.0);
        assert_eq!(s[0].write_lat_mean_ns, 3000.0);
        assert_eq!(s[0].cpu_user_ns, 14);
    }

    #[test]
    fn a_sealed_period_keeps_its_figures_without_its_histogram() {
        let mut b = SeriesBuilder::default();
        for index in 0..2 {
            let mut hist = new_histogram();
            for v in 1..=100 {
                record(&mut hist, v * 1000);
            }
            b.add(&IntervalSample {
                thread: 0,
                index,
                read_ops: 100,
                write_ops: 0,
                bytes: 0,
                hist,
                read_lat_ns: 0,
                write_lat_ns: 0,
                cpu_user_ns: 0,
                cpu_system_ns: 0,
                dir_hists: None,
            });
        }
        // Per-period histograms are kept only for cluster ranks (a process-wide
        // switch other tests in this process may set): compare the figures.
        let figures = |mut points: Vec<IntervalPoint>| {
            points.iter_mut().for_each(|p| p.histogram.clear());
            points
        };
        let before = figures(b.build(1_000_000_000, 2_000_000_000));
        b.seal(0);
        assert!(b.periods[0].hist.is_none());
        assert_eq!(figures(b.build(1_000_000_000, 2_000_000_000)), before);
    }

    fn sample(thread: u32, index: u64) -> IntervalSample {
        let mut hist = new_histogram();
        record(&mut hist, 1000 + u64::from(thread));
        IntervalSample {
            thread,
            index,
            read_ops: 1,
            write_ops: 0,
            bytes: 4096,
            hist,
            read_lat_ns: 1000,
            write_lat_ns: 0,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            dir_hists: None,
        }
    }

    #[test]
    fn the_fan_in_hands_over_and_seals_a_period_once_every_thread_is_past_it() {
        let mut fan = SeriesFanIn::new(2, 1_000_000_000);
        let mut finals = Vec::new();
        // Thread 0 runs ahead: nothing is final while thread 1 has not reported.
        for index in 0..3 {
            fan.add(&sample(0, index), |p| finals.push(p.start_ns));
        }
        assert!(finals.is_empty());
        fan.add(&sample(1, 0), |p| finals.push(p.start_ns));
        assert!(finals.is_empty(), "thread 1 may still add to period 0");
        fan.add(&sample(1, 1), |p| finals.push(p.start_ns));
        assert_eq!(finals, [0]);
        fan.add(&sample(1, 2), |p| finals.push(p.start_ns));
        assert_eq!(finals, [0, 1_000_000_000]);
        let series = fan.into_series();
        // Sealed periods kept their figures but not their histograms: memory stays flat.
        assert!(series.periods[0].hist.is_none() && series.periods[1].hist.is_none());
        assert!(series.periods[2].hist.is_some());
        let points = series.build(1_000_000_000, 3_000_000_000);
        assert_eq!(points.len(), 3);
        assert_eq!(points[0].read_ops, 2);
        assert!(points[0].lat_max_ns >= 1000);
    }

    #[test]
    fn errors_keep_the_first_samples() {
        let mut d = DirCollector::default();
        for i in 0..20 {
            d.failure(libc::EIO, i * 512);
        }
        let r = d.result(1_000_000_000);
        assert_eq!(r.errors, 20);
        assert_eq!(r.error_samples.len(), ERROR_SAMPLES);
        assert_eq!(r.error_samples[1].offset_bytes, 512);
        assert_eq!(r.ops, 0);
    }
}
