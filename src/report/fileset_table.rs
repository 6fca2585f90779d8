//! The terminal report of a file-set job: per operation its rate, its share
//! of the operations and its latency (mean, p50, p99, p99.9), side by side
//! so that metadata and data operations can be told apart (on a network
//! file system they differ by orders of magnitude). Fits 80 columns.

use super::escape::term;
use super::format::{latency, mb_per_sec, percentile_label, rate};
use super::run_table::{new_table, target_line};
use crate::metrics::histogram::percentile_key;
use crate::metrics::{DirectionResult, JobResult};

/// The percentiles of each operation's latency in the table.
const SHOWN: [f64; 3] = [50.0, 99.0, 99.9];

fn pct(d: &DirectionResult, p: f64) -> String {
    d.lat_ns
        .percentiles
        .get(&percentile_key(p))
        .map(|v| latency(*v as f64))
        .unwrap_or_default()
}

pub fn render_job(job: &JobResult) -> String {
    let mut out = String::new();
    let title = match &job.test {
        Some(test) => format!("{} [{}]", term(&job.job.name), term(test)),
        None => term(&job.job.name).into_owned(),
    };
    out.push_str(&format!(
        "{title}: {}\n  on {}\n  measured {:.2} s{}, CPU user {:.2} s, system {:.2} s{}\n",
        job.job.summary(),
        target_line(job),
        job.elapsed_ns as f64 / 1e9,
        if job.ramp_ns > 0 {
            format!(" after {:.1} s ramp", job.ramp_ns as f64 / 1e9)
        } else {
            String::new()
        },
        job.cpu_user_ns as f64 / 1e9,
        job.cpu_system_ns as f64 / 1e9,
        if job.incomplete {
            format!("  ({})", super::runs::JOB_STOPPED_EARLY)
        } else {
            String::new()
        },
    ));
    out.push_str(&super::device_lines::job_lines(job));
    let total = job.total_ops().max(1) as f64;
    let mut header: Vec<String> = ["operation", "ops/s", "share", "mean"].map(String::from).to_vec();
    header.extend(SHOWN.map(percentile_label));
    let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
    let (mut ops, mut errors, mut lat_sum) = (0u64, 0u64, 0.0);
    for (name, d) in job.directions() {
        ops += d.ops;
        errors += d.errors;
        lat_sum += d.lat_ns.mean * d.ops as f64;
        let mut row = vec![
            name.to_string(),
            rate(d.iops),
            format!("{:.1} %", d.ops as f64 * 100.0 / total),
            latency(d.lat_ns.mean),
        ];
        row.extend(SHOWN.map(|p| pct(d, p)));
        t.add_row(row);
    }
    use super::figure::{all_operations, of_directions, rate as rate_of};
    t.add_row(vec![
        "all".to_string(),
        // Over the job's time: mdtest's phases have rates over their own.
        rate(rate_of([job], all_operations).ops_per_sec),
        "100 %".to_string(),
        latency(lat_sum / ops.max(1) as f64),
    ]);
    out.push_str(&super::fit::render(&t));
    out.push('\n');
    // Bytes over the job's time too, as the run's figure has them.
    let read = rate_of([job], of_directions(&["read"])).bytes_per_sec;
    let written = rate_of([job], of_directions(&["write", "create"])).bytes_per_sec;
    out.push_str(&format!(
        "  {ops} operations, {errors} errors; read {} MB/s, written {} MB/s\n",
        mb_per_sec(read),
        mb_per_sec(written)
    ));
    // Many ranks: a row per rank, the total and the spread.
    out.push_str(&super::cluster_table::render(job));
    for (name, d) in job.directions() {
        for e in &d.error_samples {
            out.push_str(&format!(
                "  {name} error: {} (errno {}) on file {}\n",
                term(&e.message),
                e.errno,
                e.offset_bytes
            ));
        }
    }
    out
}
