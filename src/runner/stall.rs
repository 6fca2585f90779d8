//! Spotting a job whose I/Os stalled: on a machine whose disk is saturated
//! by other work (or throttled), a job can complete a few batches of its
//! queue in the whole runtime, each I/O waiting hundreds of milliseconds.
//! Such numbers describe the wait, not the device; the run says so.

use crate::metrics::{JobResult, Warning};

/// The fastest I/O taking this long for each I/O in flight means that none
/// ran at device speed: at queue depth 1, 100 ms; at 32, 3.2 s. A slow
/// device's steady queue (150 reads a second at depth 32: each waits 213
/// ms) is the device's speed, not a stall, and is not judged so
/// (the seeds' 150 IOPS "physical" disk was called stalled and left out of
/// every pick).
pub const STALLED_MIN_LATENCY_NS: u64 = 100_000_000;
/// Fewer completions than this many rounds of the queue...
pub const STALLED_QUEUE_ROUNDS: u64 = 4;
/// ...in at least this long measured...
pub const STALLED_MIN_ELAPSED_NS: u64 = 1_000_000_000;
/// ...at fewer than this many a second: a device this slow is stalled,
/// not merely slow (the slowest disks still serve about 75 a second).
pub const STALLED_MAX_IOPS: f64 = 10.0;

/// A warning when the job's I/Os stalled; `None` for a job that flowed.
/// Jobs that pace themselves (a rate cap, think time) are not judged by
/// their count or their idle periods.
pub fn warning(r: &JobResult) -> Option<Warning> {
    let job = &r.job;
    let ops: u64 = r.directions().map(|(_, d)| d.ops).sum();
    if ops == 0 {
        return nothing_completed(r);
    }
    let fastest = r
        .directions()
        .filter(|(_, d)| d.ops > 0)
        .map(|(_, d)| d.lat_ns.min)
        .min()?;
    let paced = job.pace_iops().is_some() || job.think_time.is_some();
    let queue = job.qd as u64 * job.threads as u64;
    let counted_out = job.io_count.is_some_and(|c| ops >= c);
    let mut why = Vec::new();
    if fastest >= STALLED_MIN_LATENCY_NS * queue.max(1) {
        why.push(format!("even the fastest I/O took {} ms", fastest / 1_000_000));
    }
    let iops = ops as f64 / (r.elapsed_ns as f64 / 1e9);
    if !paced
        && !counted_out
        && r.elapsed_ns >= STALLED_MIN_ELAPSED_NS
        && ops < STALLED_QUEUE_ROUNDS * queue
        && iops < STALLED_MAX_IOPS
    {
        why.push(format!(
            "only {ops} I/Os completed in {:.1} s with {queue} in flight at a time",
            r.elapsed_ns as f64 / 1e9
        ));
    }
    // The last period is usually partial; a full one with nothing done is a
    // stall, unless the job's own periodic fdatasync calls held it.
    let idle = if job.syncs_periodically() {
        0
    } else {
        r.series
            .iter()
            .rev()
            .skip(1)
            .filter(|p| p.read_ops + p.write_ops == 0)
            .count()
    };
    if !paced && idle > 0 {
        why.push(format!("{idle} interval(s) without a single completion"));
    }
    (!why.is_empty()).then(|| Warning::Stalled {
        job: job.name.clone(),
        reasons: why,
    })
}

/// A job of any kind that ran and completed no operation at all: what
/// every kind is judged by, its operations I/Os or not (a bonnie test, a
/// database's queries).
pub fn nothing_completed(r: &JobResult) -> Option<Warning> {
    let ops: u64 = r.directions().map(|(_, d)| d.ops).sum();
    // A job stopped before its first completion (Ctrl-C) says so already.
    (ops == 0 && !r.incomplete && r.elapsed_ns > 0).then(|| Warning::Stalled {
        job: r.job.name.clone(),
        reasons: vec![format!(
            "no operation completed in {:.1} s",
            r.elapsed_ns as f64 / 1e9
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{DirectionResult, IntervalPoint};

    fn job(ops: u64, min_ns: u64, elapsed_ns: u64, series_ops: &[u64]) -> JobResult {
        let mut r: JobResult = serde_json::from_value(serde_json::json!({
            "job": serde_json::to_value(crate::jobs::Job { qd: 32, ..Default::default() }).unwrap(),
            "test": null,
            "target": {"path": "t", "kind": "file", "fs_type": null, "device": null, "device_model": null,
                       "rotational": null, "size_bytes": 0, "logical_block_bytes": 512, "created": false},
            "engine": "io_uring", "measure_start_unix_ms": 0, "elapsed_ns": elapsed_ns, "ramp_ns": 0,
            "read": null, "write": null, "syncs": 0, "cpu_user_ns": 0, "cpu_system_ns": 0,
            "series": [], "incomplete": false
        }))
        .unwrap();
        let mut d = DirectionResult {
            ops,
            bytes: ops * 4096,
            errors: 0,
            error_samples: Vec::new(),
            iops: 0.0,
            bytes_per_sec: 0.0,
            lat_ns: Default::default(),
            histogram: String::new(),
        };
        d.lat_ns.min = min_ns;
        r.read = Some(d);
        r.series = series_ops
            .iter()
            .map(|n| IntervalPoint {
                read_ops: *n,
                ..Default::default()
            })
            .collect();
        r
    }

    #[test]
    fn batches_of_the_queue_after_long_waits_are_a_stall() {
        // The runs that showed it: 64 operations at qd 32, the fastest 183 ms.
        let w = warning(&job(64, 183_000_000, 10_000_000_000, &[0, 32, 0, 32, 0]))
            .unwrap()
            .to_string();
        assert!(w.contains("only 64 I/Os completed in 10.0 s"), "{w}");
        assert!(w.contains("2 interval(s) without a single completion"), "{w}");
    }

    #[test]
    fn the_fastest_io_is_judged_per_io_in_flight() {
        // Queue depth 1: one I/O taking 150 ms is a stall.
        let mut qd1 = job(20, 150_000_000, 3_000_000_000, &[7, 7, 6]);
        qd1.job.qd = 1;
        let w = warning(&qd1).expect("a stall").to_string();
        assert!(w.contains("fastest I/O took 150 ms"), "{w}");
    }

    /// A slow disk's steady queue: 150 reads a second at depth 32, each
    /// waiting 200 ms, in a 1 s pass of 150 reads (under 4 rounds of the
    /// queue). Its numbers are the disk's: no stall (seed 1).
    #[test]
    fn a_slow_devices_steady_queue_is_not_a_stall() {
        assert_eq!(warning(&job(150, 200_000_000, 1_000_000_000, &[150])), None);
        assert_eq!(warning(&job(100, 300_000_000, 1_000_000_000, &[100])), None);
    }

    #[test]
    fn a_flowing_job_and_a_short_one_are_not() {
        assert_eq!(
            warning(&job(540_000, 40_000, 10_000_000_000, &[54_000; 10])),
            None
        );
        // 50 I/Os asked for and done in 30 ms at qd 32: nothing stalled.
        let mut short = job(50, 90_000, 30_000_000, &[50]);
        short.job.io_count = Some(50);
        assert_eq!(warning(&short), None);
    }

    #[test]
    fn a_job_that_completed_nothing_is_a_stall_unless_it_was_stopped() {
        let nothing = job(0, 0, 5_000_000_000, &[0, 0, 0, 0, 0]);
        let w = warning(&nothing).expect("a warning").to_string();
        assert!(w.contains("no operation completed in 5.0 s"), "{w}");
        let mut stopped = nothing.clone();
        stopped.incomplete = true;
        assert_eq!(warning(&stopped), None);
    }
}
