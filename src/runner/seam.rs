//! The one seam every measured kind goes through. A kind (block I/O on
//! prepared targets, a file set) brings what only it knows: the body of one
//! thread, what its threads counted, and how those counts become its
//! result. The seam owns the rest, once for every kind: the memory cap
//! (the target's pages evicted before it), the page-cache verdict, the live
//! sink's skeleton, the threads and their common start line, the sample
//! fan-in with each interval sealed as it completes (and the series kept
//! under `collect::MAX_PERIODS`, said with the run), merging the threads'
//! counts, the errors and short transfers, a thread that stopped, CPU
//! time, stalls and zero completions, and the verdict on where the numbers
//! came from, with the counters of the devices under the target.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::{Duration, Instant, SystemTime};

use super::{Live, Progress, RunError, memcg, page_cache_verdict, stall};
use crate::jobs::Job;
use crate::metrics::collect::{DirCollector, IntervalSample, SeriesFanIn};
use crate::metrics::{JobResult, OpKind, TargetFacts, Warning, device_io};
use crate::targets::device_counters::{self, Reading, Stack};

/// What one thread of any kind counted, as the seam reads it.
pub(crate) struct ThreadTally<'a> {
    /// Counts by the name of the operation (`read`, `write`, `create`...).
    pub counts: Vec<(&'static str, &'a DirCollector)>,
    pub measured_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    /// A failure (not an I/O error) that ended the thread.
    pub fatal: Option<&'a str>,
}

/// The threads' counts merged by operation, in the order they first came.
pub(crate) struct Merged {
    pub counts: Vec<(&'static str, DirCollector)>,
    /// The slowest thread's measured time: the job's.
    pub elapsed_ns: u64,
}

impl Merged {
    pub fn get(&self, name: &str) -> Option<&DirCollector> {
        self.counts.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
}

/// A kind of workload as the seam measures it.
pub(crate) trait Kind: Sync {
    /// What one thread hands back.
    type Thread: Send;
    /// What one thread takes with it (a block thread's verify setup).
    type Input: Send;

    fn engine_name(&self) -> &'static str;
    fn facts(&self) -> TargetFacts;
    /// Whether the numbers are a device's, to be judged (not the null engine's).
    fn judged(&self) -> bool;
    /// Bytes the job reads and writes through the page cache; `None` when it bypasses it.
    fn cached_bytes(&self) -> Option<u64>;
    /// Drops the target's cached pages, which stay charged to the group that
    /// loaded them, outside a memory cap entered afterwards.
    fn evict_cache(&self) -> Result<(), RunError>;
    /// Verdicts on what the page cache holds of the target as the job
    /// starts, once a memory cap has been entered (`targets::scattered_cache`).
    fn cache_verdict(&self) -> Option<Warning> {
        None
    }
    /// The body of thread `thread`: it waits at `start_line` once set up.
    fn run_thread(
        &self,
        thread: u32,
        input: Self::Input,
        start: Instant,
        samples: Sender<IntervalSample>,
        start_line: &Barrier,
    ) -> Self::Thread;
    fn tally(out: &Self::Thread) -> ThreadTally<'_>;
    /// Puts the merged counts (and whatever else the threads brought) into `result`.
    fn place(
        &self,
        outputs: &mut [Self::Thread],
        merged: Merged,
        result: &mut JobResult,
        warnings: &mut Vec<Warning>,
    );
    /// Where the numbers came from, judged on the result (a cache, RAM).
    fn verdict_after(&self, result: &JobResult) -> Option<Warning>;
    /// The paths whose block devices (and the devices under them) the job's I/O reaches.
    fn watched(&self) -> Vec<std::path::PathBuf>;
}

/// What the seam needs of the runner for one job.
pub(crate) struct Ctx<'a, 'b> {
    pub stop: &'a AtomicBool,
    pub progress: &'a Progress,
    pub warnings: &'a mut Vec<Warning>,
    pub live: Option<Live<'b>>,
    /// Called when no sample came for `poll_every` (a stonewall's agreement).
    pub on_idle: Option<(Duration, &'a mut dyn FnMut())>,
    /// Called with each interval of the job's series as it is sealed (fio's
    /// steady-state stop judges them).
    pub on_point: Option<&'a mut dyn FnMut(&crate::metrics::IntervalPoint)>,
}

/// Measures `job` as `kind`, one thread for each input.
pub(crate) fn measure<K: Kind>(
    kind: &K,
    job: &Job,
    inputs: Vec<K::Input>,
    mut cx: Ctx<'_, '_>,
) -> Result<JobResult, RunError> {
    // Held until the threads are joined; dropping it leaves and removes the group.
    // An earlier job of the run may have kept its cap: its pages stay, as
    // under `mem=512M`; else the target's pages go before the cap is entered.
    let _memory_cap = match job.mem_limit_bytes {
        Some(limit) if kind.judged() => match memcg::MemoryCap::kept(limit) {
            Some(cap) => Some(cap),
            None => {
                kind.evict_cache()?;
                Some(
                    memcg::MemoryCap::enter(limit)
                        .map_err(RunError::Invalid)?
                        .kept_for_run(),
                )
            }
        },
        _ => None,
    };
    if let Some(bytes) = kind.cached_bytes() {
        page_cache_verdict(bytes, job.mem_limit_bytes, cx.warnings);
    }
    if let Some(w) = kind.cache_verdict() {
        super::push_once(cx.warnings, w);
    }
    let measure_start_unix_ms = (SystemTime::now() + job.ramp)
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let blank = || {
        JobResult::blank(
            job.clone(),
            kind.facts(),
            kind.engine_name(),
            measure_start_unix_ms,
        )
    };
    if let Some(live) = &mut cx.live {
        live.sink.job_started(&JobResult {
            test: live.test.map(str::to_string),
            ..blank()
        });
    }
    let interval_ns = job.interval.as_nanos() as u64;
    let watched = kind.watched();
    let stack = kind
        .judged()
        .then(|| Stack::of(&watched.iter().map(|p| p.as_path()).collect::<Vec<_>>()))
        .filter(|s| !s.is_empty());
    let (mut outputs, series, readings) =
        run_threads(kind, job, inputs, interval_ns, &mut cx, stack.as_ref());
    let mut merged = Merged {
        counts: Vec::new(),
        elapsed_ns: 0,
    };
    let (mut user, mut system) = (0, 0);
    let mut fatal = Vec::new();
    for o in &outputs {
        let t = K::tally(o);
        for (name, c) in t.counts {
            match merged.counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, sum)) => sum.merge(c),
                None => merged.counts.push((name, c.clone())),
            }
        }
        user += t.cpu_user_ns;
        system += t.cpu_system_ns;
        merged.elapsed_ns = merged.elapsed_ns.max(t.measured_ns);
        fatal.extend(t.fatal.map(str::to_string));
    }
    if let Some(first) = fatal.first() {
        let nothing_done = merged.counts.iter().all(|(_, c)| c.ops == 0 && c.errors == 0);
        if fatal.len() == outputs.len() && nothing_done {
            cx.progress.finish_job(None);
            return Err(RunError::Invalid(format!("{}: {first}", job.name)));
        }
        cx.warnings.push(Warning::WorkerStopped {
            job: job.name.clone(),
            error: first.clone(),
        });
    }
    count_failures(job, &merged, cx.warnings);
    let series_points = series.build(interval_ns, merged.elapsed_ns);
    if series.periods_merged() > 1 {
        cx.warnings.push(Warning::SeriesCoarsened {
            job: job.name.clone(),
            interval_ns,
            period_ns: interval_ns.saturating_mul(series.periods_merged()),
            periods: series_points.len() as u64,
        });
    }
    let mut result = JobResult {
        elapsed_ns: merged.elapsed_ns,
        cpu_user_ns: user,
        cpu_system_ns: system,
        series: series_points,
        incomplete: cx.stop.load(Ordering::Relaxed),
        ..blank()
    };
    kind.place(&mut outputs, merged, &mut result, cx.warnings);
    cx.progress.finish_job(Some(&result));
    if kind.judged() {
        cx.warnings.extend(stall::warning(&result));
        // Jobs on one target share its verdict: said once.
        if let Some(w) = kind.verdict_after(&result)
            && !cx.warnings.contains(&w)
        {
            cx.warnings.push(w);
        }
    }
    if let (Some(stack), Some((start, end))) = (&stack, readings) {
        device_evidence(stack, &start, &end, &watched, &mut result, cx.warnings);
    }
    Ok(result)
}

/// Puts the devices' counters into `result` and judges them: after a job
/// that wrote, its writes are flushed first (after `verdict_after` timed
/// its own flush), so the devices' write counters hold them.
pub(crate) fn device_evidence(
    stack: &Stack,
    start: &Reading,
    end: &Reading,
    watched: &[std::path::PathBuf],
    result: &mut JobResult,
    warnings: &mut Vec<Warning>,
) {
    let wrote = result.by_operation().any(|(k, _)| k != OpKind::Read);
    let flushed = match wrote {
        true => {
            device_counters::flush(&watched.iter().map(|p| p.as_path()).collect::<Vec<_>>());
            stack.read()
        }
        false => end.clone(),
    };
    let Some(mut io) = stack.delta(start, end, &flushed) else {
        return;
    };
    io.write_amplification = device_io::write_amplification(&io, device_io::kura_written_bytes(result));
    result.device_io = Some(io);
    if let Some(w) = device_io::cache_verdict(result) {
        warnings.push(w);
    }
}

/// The job's threads, started together, their samples fanned in and each
/// interval sealed (and handed to the live sink) as it completes.
fn run_threads<K: Kind>(
    kind: &K,
    job: &Job,
    inputs: Vec<K::Input>,
    interval_ns: u64,
    cx: &mut Ctx<'_, '_>,
    stack: Option<&Stack>,
) -> (
    Vec<K::Thread>,
    crate::metrics::collect::SeriesBuilder,
    Option<(Reading, Reading)>,
) {
    let threads = inputs.len() as u32;
    let (tx, rx) = mpsc::channel();
    let start_line = Barrier::new(threads as usize);
    let start = Instant::now();
    let stop = cx.stop;
    std::thread::scope(|scope| {
        // The devices' counters are read as the ramp ends, as the threads' own counts start.
        let opening = stack.map(|stack| {
            let ramp_end = start + job.ramp;
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let left = ramp_end.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    std::thread::sleep(left.min(Duration::from_millis(50)));
                }
                stack.read()
            })
        });
        let handles: Vec<_> = inputs
            .into_iter()
            .enumerate()
            .map(|(thread, input)| {
                let samples = tx.clone();
                let start_line = &start_line;
                std::thread::Builder::new()
                    .name(super::thread_name(&job.name, &format!("-{thread}")))
                    .spawn_scoped(scope, move || {
                        kind.run_thread(thread as u32, input, start, samples, start_line)
                    })
                    .expect("spawning a measuring thread")
            })
            .collect();
        drop(tx);
        let mut fan_in = SeriesFanIn::new(threads, interval_ns);
        cx.progress.start_job(job);
        let poll = cx
            .on_idle
            .as_ref()
            .map_or(Duration::from_secs(1), |(every, _)| *every);
        loop {
            let sample = match rx.recv_timeout(poll) {
                Ok(sample) => sample,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some((_, idle)) = &mut cx.on_idle {
                        idle();
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if let Some((_, idle)) = &mut cx.on_idle {
                idle();
            }
            cx.progress.sample(&sample, threads);
            fan_in.add(&sample, |point| {
                if let Some(live) = &mut cx.live {
                    live.sink.interval(point);
                }
                if let Some(judge) = &mut cx.on_point {
                    judge(point);
                }
            });
        }
        let outputs = handles
            .into_iter()
            .map(|h| h.join().expect("a measuring thread panicked"))
            .collect();
        let readings = stack.zip(opening).map(|(stack, opening)| {
            let end = stack.read();
            (opening.join().expect("reading device counters"), end)
        });
        (outputs, fan_in.into_series(), readings)
    })
}

/// Failed and short operations, each kind of operation once.
fn count_failures(job: &Job, merged: &Merged, warnings: &mut Vec<Warning>) {
    for (name, c) in &merged.counts {
        if c.errors > 0 {
            warnings.push(Warning::IoErrors {
                job: job.name.clone(),
                direction: name.to_string(),
                count: c.errors,
                first_error: c.error_samples[0].message.clone(),
                offset_bytes: c.error_samples[0].offset_bytes,
            });
        }
    }
    for (name, c) in &merged.counts {
        if c.short > 0 {
            warnings.push(Warning::ShortTransfers {
                job: job.name.clone(),
                direction: name.to_string(),
                count: c.short,
            });
        }
    }
}
