//! Per-thread accumulation while a job runs, and merging threads into a
//! `JobResult`'s directions and interval series. Recording is a counter
//! bump and one histogram record; everything else happens at the end.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

/// The most periods a job's series keeps. A series that would hold more is
/// coarsened: adjacent pairs of sealed periods merge and the period doubles,
/// again as often as needed, so a job's series (and what is built from it at
/// the job's end: the points, their JSON) stays bounded whatever the runtime,
/// a job whose end is unknown (`io_count` at a rate) included. At the cost
/// measured for a stored period (`runner::memory::PER_PERIOD_BYTES`, about
/// 4 KiB) that is 16 MiB; 4,096 periods are 68 minutes at 1 s.
pub const MAX_PERIODS: usize = 4096;

/// What a period counted, summed over threads (and periods, once merged).
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    read_ops: u64,
    write_ops: u64,
    bytes: u64,
    read_lat_ns: u64,
    write_lat_ns: u64,
    cpu_user_ns: u64,
    cpu_system_ns: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.read_ops += o.read_ops;
        self.write_ops += o.write_ops;
        self.bytes += o.bytes;
        self.read_lat_ns += o.read_lat_ns;
        self.write_lat_ns += o.write_lat_ns;
        self.cpu_user_ns += o.cpu_user_ns;
        self.cpu_system_ns += o.cpu_system_ns;
    }

    fn of(s: &IntervalSample) -> Counts {
        Counts {
            read_ops: s.read_ops,
            write_ops: s.write_ops,
            bytes: s.bytes,
            read_lat_ns: s.read_lat_ns,
            write_lat_ns: s.write_lat_ns,
            cpu_user_ns: s.cpu_user_ns,
            cpu_system_ns: s.cpu_system_ns,
        }
    }
}

/// A period the threads may still add to: its histogram (a few hundred KiB)
/// lives only until every thread has moved past it.
#[derive(Debug, Default, Clone)]
struct Open {
    counts: Counts,
    hist: Option<Histogram<u64>>,
    /// With `write_hist_log`: per direction, the period's latencies.
    dir_hists: Option<Box<[Histogram<u64>; 3]>>,
}

/// The latency figures of a final period, without its histogram; `count`
/// (the latencies behind them) lets two periods merge.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Figures {
    count: u64,
    mean: f64,
    p99: u64,
    max: u64,
    stddev: f64,
}

impl Figures {
    fn of(h: &Histogram<u64>) -> Figures {
        if h.is_empty() {
            return Figures::default();
        }
        Figures {
            count: h.len(),
            mean: h.mean(),
            p99: h.value_at_quantile(0.99),
            max: h.max(),
            stddev: h.stdev(),
        }
    }

    /// Two adjacent periods as one. Mean and standard deviation are exact
    /// (pooled: the mean of squares is each part's variance plus its mean
    /// squared); the p99 is the higher of the two, as the HTML report's
    /// charts merge periods, so a spike does not vanish into an average.
    fn merge(&self, o: &Figures) -> Figures {
        if o.count == 0 {
            return *self;
        }
        if self.count == 0 {
            return *o;
        }
        let (a, b) = (self.count as f64, o.count as f64);
        let n = a + b;
        let mean = (a * self.mean + b * o.mean) / n;
        let squares =
            (a * (self.stddev.powi(2) + self.mean.powi(2)) + b * (o.stddev.powi(2) + o.mean.powi(2))) / n;
        Figures {
            count: self.count + o.count,
            mean,
            p99: self.p99.max(o.p99),
            max: self.max.max(o.max),
            stddev: (squares - mean * mean).max(0.0).sqrt(),
        }
    }
}

/// A final period (or several merged): its counts and figures, and with
/// `write_hist_log` its latencies in fio's bins. About 100 bytes.
#[derive(Debug, Default, Clone)]
struct Sealed {
    counts: Counts,
    lat: Figures,
    fio_bins: Vec<Vec<(u16, u64)>>,
}

impl Sealed {
    fn of(p: &Open) -> Sealed {
        Sealed {
            counts: p.counts,
            lat: p.hist.as_ref().map(Figures::of).unwrap_or_default(),
            fio_bins: p
                .dir_hists
                .as_ref()
                .map(|d| d.iter().map(crate::metrics::fio_bins::sparse_bins).collect())
                .unwrap_or_default(),
        }
    }

    fn merge(&mut self, o: &Sealed) {
        self.counts.add(&o.counts);
        self.lat = self.lat.merge(&o.lat);
        if self.fio_bins.is_empty() {
            self.fio_bins = o.fio_bins.clone();
        } else {
            for (mine, theirs) in self.fio_bins.iter_mut().zip(&o.fio_bins) {
                *mine = merge_bins(mine, theirs);
            }
        }
    }
}

/// Two sparse rows of fio's bins (rising bin order) as one.
fn merge_bins(a: &[(u16, u64)], b: &[(u16, u64)]) -> Vec<(u16, u64)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1 + y.1));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                out.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                out.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// Merges the threads' samples into one point per period. Final periods
/// keep only their figures, at most `cap` of them: past that they are
/// coarsened (pairs merged, the period doubled), see [`MAX_PERIODS`].
#[derive(Debug)]
pub struct SeriesBuilder {
    /// Final periods, each `1 << shift` of the job's intervals.
    sealed: Vec<Sealed>,
    shift: u32,
    /// The periods from `first_open` on, which threads may still add to.
    open: VecDeque<Open>,
    first_open: u64,
    cap: usize,
}

impl Default for SeriesBuilder {
    fn default() -> Self {
        SeriesBuilder::with_cap(MAX_PERIODS)
    }
}

impl SeriesBuilder {
    /// A series that keeps at most `cap` final periods (at least 2).
    pub fn with_cap(cap: usize) -> Self {
        SeriesBuilder {
            sealed: Vec::new(),
            shift: 0,
            open: VecDeque::new(),
            first_open: 0,
            cap: cap.max(2),
        }
    }

    pub fn add(&mut self, s: &IntervalSample) {
        if s.index < self.first_open {
            // The runner seals a period only when every thread has moved past it.
            debug_assert!(false, "a sample of sealed period {}", s.index);
            if let Some(p) = self.sealed.get_mut((s.index >> self.shift) as usize) {
                p.counts.add(&Counts::of(s));
            }
            return;
        }
        let k = (s.index - self.first_open) as usize;
        if self.open.len() <= k {
            self.open.resize_with(k + 1, Open::default);
        }
        let p = &mut self.open[k];
        p.counts.add(&Counts::of(s));
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
            None => p.hist = Some(s.hist.clone()),
        }
    }

    /// Periods up to `i` are final: their figures are kept, their histograms
    /// dropped, and past `cap` periods the series is coarsened.
    pub fn seal(&mut self, i: usize) {
        self.seal_each(i, 0, None);
    }

    /// As [`seal`](Self::seal); `on_final` sees each period as a point of
    /// `interval_ns`, uncut, before its histogram is dropped. Its figures are
    /// read off the histogram once, for both.
    fn seal_each(
        &mut self,
        i: usize,
        interval_ns: u64,
        mut on_final: Option<&mut dyn FnMut(&IntervalPoint)>,
    ) {
        while self.first_open <= i as u64 {
            let p = self.open.pop_front().unwrap_or_default();
            let index = self.first_open;
            self.first_open += 1;
            let sealed = Sealed::of(&p);
            if let Some(f) = &mut on_final
                && let Some(point) = point(index, interval_ns, u64::MAX, &sealed, p.hist.as_ref())
            {
                f(&point);
            }
            if (index >> self.shift) as usize >= self.sealed.len() && self.sealed.len() >= self.cap {
                self.coarsen();
            }
            match self.sealed.get_mut((index >> self.shift) as usize) {
                Some(last) => last.merge(&sealed),
                None => self.sealed.push(sealed),
            }
        }
    }

    /// Merges adjacent pairs of final periods: half as many, twice as long.
    fn coarsen(&mut self) {
        let n = self.sealed.len();
        for k in 0..n.div_ceil(2) {
            let mut merged = std::mem::take(&mut self.sealed[2 * k]);
            if let Some(next) = self.sealed.get(2 * k + 1) {
                merged.merge(next);
            }
            self.sealed[k] = merged;
        }
        self.sealed.truncate(n.div_ceil(2));
        self.shift += 1;
    }

    /// How many of the job's intervals each period of the series spans: 1
    /// unless the series was coarsened.
    pub fn periods_merged(&self) -> u64 {
        1u64.checked_shl(self.shift).unwrap_or(u64::MAX)
    }

    /// The series; the last period is cut at `elapsed_ns`. Periods that were
    /// not final when the job ended join the (coarsened) period they fall in.
    pub fn build(&self, interval_ns: u64, elapsed_ns: u64) -> Vec<IntervalPoint> {
        let span_ns = interval_ns.saturating_mul(self.periods_merged());
        // The open periods folded by coarse index; each keeps its histogram
        // only while it is one period of the job's interval.
        let mut tail: Vec<(u64, Sealed, Option<&Histogram<u64>>)> = Vec::new();
        for (k, p) in self.open.iter().enumerate() {
            let c = (self.first_open + k as u64) >> self.shift;
            match tail.last_mut() {
                Some((last, s, hist)) if *last == c => {
                    s.merge(&Sealed::of(p));
                    *hist = None;
                }
                _ => tail.push((c, Sealed::of(p), p.hist.as_ref().filter(|_| self.shift == 0))),
            }
        }
        let n = self.sealed.len() as u64;
        let mut points = Vec::with_capacity(self.sealed.len() + tail.len());
        for (c, s) in self.sealed.iter().enumerate() {
            let c = c as u64;
            match tail.first() {
                Some((t, rest, _)) if *t == c => {
                    let mut s = s.clone();
                    s.merge(rest);
                    points.extend(point(c, span_ns, elapsed_ns, &s, None));
                }
                _ => points.extend(point(c, span_ns, elapsed_ns, s, None)),
            }
        }
        for (c, s, hist) in &tail {
            if *c >= n {
                points.extend(point(*c, span_ns, elapsed_ns, s, *hist));
            }
        }
        points
    }
}

/// The point of period `c` of `span_ns`, cut at `elapsed_ns`; `None` when it
/// starts after `elapsed_ns`. `hist` is the period's own histogram, sent
/// with it where ranks merge (`KEEP_INTERVAL_HISTOGRAMS`).
fn point(
    c: u64,
    span_ns: u64,
    elapsed_ns: u64,
    s: &Sealed,
    hist: Option<&Histogram<u64>>,
) -> Option<IntervalPoint> {
    let start_ns = c.saturating_mul(span_ns);
    let duration_ns = span_ns.min(elapsed_ns.saturating_sub(start_ns));
    if duration_ns == 0 {
        return None;
    }
    let secs = duration_ns as f64 / 1e9;
    let p = &s.counts;
    let per_op = |sum: u64, ops: u64| if ops > 0 { sum as f64 / ops as f64 } else { 0.0 };
    Some(IntervalPoint {
        start_ns,
        duration_ns,
        read_ops: p.read_ops,
        write_ops: p.write_ops,
        bytes: p.bytes,
        iops: (p.read_ops + p.write_ops) as f64 / secs,
        bytes_per_sec: p.bytes as f64 / secs,
        lat_mean_ns: s.lat.mean,
        lat_p99_ns: s.lat.p99,
        read_lat_mean_ns: per_op(p.read_lat_ns, p.read_ops),
        write_lat_mean_ns: per_op(p.write_lat_ns, p.write_ops),
        lat_max_ns: s.lat.max,
        lat_stddev_ns: s.lat.stddev,
        cpu_user_ns: p.cpu_user_ns,
        cpu_system_ns: p.cpu_system_ns,
        histogram: match hist {
            Some(h) if KEEP_INTERVAL_HISTOGRAMS.load(Ordering::Relaxed) => encode(h),
            _ => String::new(),
        },
        fio_bins: s.fio_bins.clone(),
    })
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
        if self.next_final < all_past {
            self.series
                .seal_each(all_past as usize - 1, self.interval_ns, Some(&mut on_final));
            self.next_final = all_past;
        }
    }

    /// The series so far, its final periods sealed.
    pub fn into_series(self) -> SeriesBuilder {
        self.series
    }
}

/// One thread's interval series, for a kind that measures on threads of
/// its own rather than the seam's (the database's sessions): each
/// operation counts in the period its end falls in, a period of
/// `interval` from `start`. Finished periods are kept as the samples a
/// seam thread would have sent, to be merged with [`series_of`].
#[derive(Debug, Clone)]
pub struct PeriodRecorder {
    thread: u32,
    start: Instant,
    interval_ns: u64,
    current: Option<IntervalSample>,
    cpu_at: (u64, u64),
    done: Vec<IntervalSample>,
}

impl PeriodRecorder {
    pub fn new(thread: u32, start: Instant, interval: Duration) -> PeriodRecorder {
        PeriodRecorder {
            thread,
            start,
            interval_ns: (interval.as_nanos() as u64).max(1),
            current: None,
            cpu_at: thread_cpu_ns(),
            done: Vec::new(),
        }
    }

    /// One operation that ended at `end` after `latency_ns`.
    pub fn record(&mut self, end: Instant, write: bool, bytes: u64, latency_ns: u64) {
        let index = end.saturating_duration_since(self.start).as_nanos() as u64 / self.interval_ns;
        if self.current.as_ref().is_some_and(|c| c.index != index) {
            self.close();
        }
        let (thread, cpu_at) = (self.thread, self.cpu_at);
        let p = self.current.get_or_insert_with(|| IntervalSample {
            thread,
            index,
            read_ops: 0,
            write_ops: 0,
            bytes: 0,
            hist: new_histogram(),
            read_lat_ns: 0,
            write_lat_ns: 0,
            cpu_user_ns: cpu_at.0,
            cpu_system_ns: cpu_at.1,
            dir_hists: None,
        });
        record(&mut p.hist, latency_ns);
        p.bytes += bytes;
        match write {
            true => (p.write_ops, p.write_lat_ns) = (p.write_ops + 1, p.write_lat_ns + latency_ns),
            false => (p.read_ops, p.read_lat_ns) = (p.read_ops + 1, p.read_lat_ns + latency_ns),
        }
    }

    /// Ends the open period: its CPU time is the thread's since the last one closed.
    fn close(&mut self) {
        if let Some(mut p) = self.current.take() {
            let cpu = thread_cpu_ns();
            p.cpu_user_ns = cpu.0.saturating_sub(p.cpu_user_ns);
            p.cpu_system_ns = cpu.1.saturating_sub(p.cpu_system_ns);
            self.cpu_at = cpu;
            self.done.push(p);
        }
    }

    /// The thread's periods, the open one closed.
    pub fn finish(mut self) -> Vec<IntervalSample> {
        self.close();
        self.done
    }
}

/// The series of periods recorded by threads of their own
/// ([`PeriodRecorder`]), merged as the seam merges its threads'.
pub fn series_of(samples: &[IntervalSample], interval: Duration, elapsed_ns: u64) -> Vec<IntervalPoint> {
    let mut series = SeriesBuilder::default();
    let mut in_order: Vec<&IntervalSample> = samples.iter().collect();
    in_order.sort_by_key(|s| s.index);
    for s in in_order {
        series.add(s);
    }
    series.build((interval.as_nanos() as u64).max(1), elapsed_ns)
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

    const SECOND: u64 = 1_000_000_000;

    /// Two threads' operations, each in the period its end falls in,
    /// merge into one series: every operation once, by direction.
    #[test]
    fn a_period_recorder_counts_each_operation_in_the_period_it_ended_in() {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut a = PeriodRecorder::new(0, start, Duration::from_secs(1));
        let mut b = PeriodRecorder::new(1, start, Duration::from_secs(1));
        a.record(at(100), false, 0, 1_000);
        a.record(at(900), true, 0, 3_000);
        a.record(at(2_500), false, 0, 2_000);
        b.record(at(1_200), false, 0, 5_000);
        b.record(at(2_900), true, 0, 7_000);
        let samples: Vec<IntervalSample> = a.finish().into_iter().chain(b.finish()).collect();
        let indexes: Vec<(u32, u64)> = samples.iter().map(|s| (s.thread, s.index)).collect();
        assert_eq!(indexes, [(0, 0), (0, 2), (1, 1), (1, 2)]);
        let series = series_of(&samples, Duration::from_secs(1), 3 * SECOND);
        let ops: Vec<(u64, u64)> = series.iter().map(|p| (p.read_ops, p.write_ops)).collect();
        assert_eq!(ops, [(1, 1), (1, 0), (1, 1)]);
        // The period's mean, off its histogram: within HDR's 3 digits.
        assert!(
            (series[2].lat_mean_ns - 4_500.0).abs() <= 4.5,
            "{}",
            series[2].lat_mean_ns
        );
    }

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
        assert_eq!((b.sealed.len(), b.first_open, b.open.len()), (1, 1, 1));
        assert!(b.open[0].hist.is_some());
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
        assert_eq!((series.sealed.len(), series.first_open), (2, 2));
        assert!(series.open.len() == 1 && series.open[0].hist.is_some());
        let points = series.build(1_000_000_000, 3_000_000_000);
        assert_eq!(points.len(), 3);
        assert_eq!(points[0].read_ops, 2);
        assert!(points[0].lat_max_ns >= 1000);
    }

    /// Period `index` of one thread: `1 + index % 3` reads of `latency_ns`.
    fn reads(index: u64, latency_ns: u64) -> IntervalSample {
        let ops = 1 + index % 3;
        let mut hist = new_histogram();
        for _ in 0..ops {
            record(&mut hist, latency_ns);
        }
        IntervalSample {
            thread: 0,
            index,
            read_ops: ops,
            write_ops: 0,
            bytes: ops * 4096,
            hist,
            read_lat_ns: ops * latency_ns,
            write_lat_ns: 0,
            cpu_user_ns: 1,
            cpu_system_ns: 0,
            dir_hists: None,
        }
    }

    #[test]
    fn a_long_series_is_coarsened_and_stays_under_its_cap() {
        // A job whose end is unknown (io_count at a rate) seals periods for
        // as long as it runs: the series must not grow with them.
        let cap = 8;
        let mut b = SeriesBuilder::with_cap(cap);
        let (mut ops, mut lat_sum, mut worst) = (0u64, 0u64, 0u64);
        for index in 0..1000u64 {
            // A spike every 97 periods: its p99 and max must survive merging.
            let latency = if index % 97 == 0 { 90_000 } else { 1000 + index };
            let s = reads(index, latency);
            ops += s.read_ops;
            lat_sum += s.read_lat_ns;
            worst = worst.max(latency);
            b.add(&s);
            b.seal(index as usize);
            assert!(b.sealed.len() <= cap, "{} periods after {index}", b.sealed.len());
        }
        // 1000 periods in at most 8: each spans 128 of the job's intervals.
        assert_eq!(b.periods_merged(), 128);
        let points = b.build(SECOND, 1000 * SECOND);
        assert_eq!(points.len(), 8);
        for (k, p) in points.iter().enumerate() {
            assert_eq!(p.start_ns, k as u64 * 128 * SECOND);
        }
        assert_eq!(points[0].duration_ns, 128 * SECOND);
        assert_eq!(points[7].duration_ns, (1000 - 7 * 128) * SECOND);
        assert_eq!(points.iter().map(|p| p.read_ops).sum::<u64>(), ops);
        assert_eq!(points.iter().map(|p| p.cpu_user_ns).sum::<u64>(), 1000);
        assert!(
            points.iter().all(|p| p.lat_p99_ns >= 89_000),
            "a spike in every 128 periods"
        );
        let max = points.iter().map(|p| p.lat_max_ns).max().unwrap();
        assert!(max.abs_diff(worst) * 1000 <= worst, "{max} against {worst}");
        let mean: f64 = points
            .iter()
            .map(|p| p.lat_mean_ns * p.read_ops as f64)
            .sum::<f64>()
            / ops as f64;
        let exact = lat_sum as f64 / ops as f64;
        assert!((mean - exact).abs() <= exact * 1e-3, "{mean} against {exact}");
        // Rates are over the merged time.
        assert_eq!(points[0].iops, points[0].read_ops as f64 / 128.0);
    }

    #[test]
    fn a_series_under_its_cap_is_kept_period_by_period() {
        let mut capped = SeriesBuilder::with_cap(8);
        let mut wide = SeriesBuilder::with_cap(1 << 20);
        for index in 0..8 {
            for b in [&mut capped, &mut wide] {
                b.add(&reads(index, 1000 + index));
                b.seal(index as usize);
            }
        }
        assert_eq!(capped.periods_merged(), 1);
        assert_eq!(capped.build(SECOND, 8 * SECOND), wide.build(SECOND, 8 * SECOND));
    }

    #[test]
    fn periods_still_open_at_the_end_join_their_coarse_period() {
        let mut b = SeriesBuilder::with_cap(4);
        for index in 0..10 {
            b.add(&reads(index, 1000));
        }
        // Threads had moved past 0..=6 only: 7 final periods, coarsened to 4 of 2.
        b.seal(6);
        assert_eq!((b.sealed.len(), b.periods_merged()), (4, 2));
        let points = b.build(SECOND, 10 * SECOND);
        let spans: Vec<_> = points
            .iter()
            .map(|p| (p.start_ns / SECOND, p.duration_ns / SECOND))
            .collect();
        assert_eq!(spans, [(0, 2), (2, 2), (4, 2), (6, 2), (8, 2)]);
        let ops: u64 = (0..10).map(|i| 1 + i % 3).sum();
        assert_eq!(points.iter().map(|p| p.read_ops).sum::<u64>(), ops);
        // Period 6 (sealed) and 7 (open) are one point.
        assert_eq!(points[3].read_ops, 1 + 2);
    }

    #[test]
    fn merged_figures_are_those_of_the_added_histograms() {
        let (mut a, mut b) = (new_histogram(), new_histogram());
        for v in 1..=300u64 {
            record(&mut a, v * 1000);
        }
        for v in 1..=50u64 {
            record(&mut b, 900_000 + v * 7000);
        }
        let merged = Figures::of(&a).merge(&Figures::of(&b));
        let mut both = a.clone();
        both.add(&b).unwrap();
        let exact = Figures::of(&both);
        assert_eq!(merged.count, exact.count);
        assert_eq!(merged.max, exact.max);
        assert!((merged.mean - exact.mean).abs() <= exact.mean * 1e-9);
        assert!((merged.stddev - exact.stddev).abs() <= exact.stddev * 1e-6);
        // The higher p99: never below the p99 of the whole.
        assert!(merged.p99 >= exact.p99);
        assert_eq!(Figures::default().merge(&exact), exact);
        assert_eq!(
            merge_bins(&[(1, 2), (5, 1)], &[(1, 1), (3, 4), (9, 1)]),
            [(1, 3), (3, 4), (5, 1), (9, 1)]
        );
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
