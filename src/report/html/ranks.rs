//! The per-rank rows of a job many ranks ran (MPI): one row per rank and
//! host, the total, and the spread, first-done / last-done and stonewall
//! lines beneath, so a slow host stands out. Nothing for other jobs.

use super::table::{Cell, Table};
use crate::metrics::JobResult;
use crate::report::cluster_table::spread;
use crate::report::format::{latency, mb_per_sec, rate};
use crate::report::svg::esc;

pub fn table(job: &JobResult, key: &str, title: &str) -> Option<Table> {
    let c = job.cluster.as_deref()?;
    let mut t = Table::new(
        &format!("{key}-ranks"),
        &format!("{title}: per rank"),
        &[
            "rank",
            "host",
            "kernel",
            "target",
            "IOPS",
            "MB/s",
            "ops",
            "p99",
            "start skew",
            "stop skew",
        ],
    )
    .with_export_columns(&[
        "rank",
        "host",
        "kernel",
        "target",
        "iops",
        "mb_per_sec",
        "ops",
        "lat_p99_ns",
        "start_skew_ns",
        "stop_skew_ns",
    ]);
    let skew = |ns: u64| Cell::num(ns as f64, format!("{:.1} ms", ns as f64 / 1e6));
    for r in &c.ranks {
        t.rows.push(vec![
            Cell::int(i64::from(r.rank)),
            Cell::text(r.host.clone()),
            Cell::text(r.kernel.clone()),
            Cell::text(r.target.clone()),
            Cell::num(r.iops(), rate(r.iops())),
            Cell::num(r.bytes_per_sec() / 1e6, mb_per_sec(r.bytes_per_sec())),
            Cell::int(r.ops as i64),
            Cell::num(r.lat_p99_ns as f64, latency(r.lat_p99_ns as f64)),
            skew(r.start_skew_ns),
            skew(r.stop_skew_ns),
        ]);
    }
    let total = &c.last_done;
    t.rows.push(vec![
        Cell::text("total"),
        Cell::empty(),
        Cell::empty(),
        Cell::empty(),
        Cell::num(total.iops(), rate(total.iops())),
        Cell::num(total.bytes_per_sec() / 1e6, mb_per_sec(total.bytes_per_sec())),
        Cell::int(total.ops as i64),
        Cell::empty(),
        Cell::empty(),
        Cell::empty(),
    ]);
    Some(t)
}

/// The lines under the table, as HTML.
pub fn notes(job: &JobResult) -> String {
    let Some(c) = job.cluster.as_deref() else {
        return String::new();
    };
    let mut out = String::new();
    if let Some((ratio, slowest)) = spread(c) {
        out.push_str(&format!(
            r#"<p class="meta">spread: the fastest rank did {ratio:.2}x the slowest (rank {} on {}); the total p99 is of all ranks' I/Os pooled</p>"#,
            slowest.rank,
            esc(&slowest.host)
        ));
    }
    out.push_str(&format!(
        r#"<p class="meta">first done at {:.2} s: {} IOPS, {} MB/s · last done at {:.2} s: {} IOPS, {} MB/s</p>"#,
        c.first_done.elapsed_ns as f64 / 1e9,
        rate(c.first_done.iops()),
        mb_per_sec(c.first_done.bytes_per_sec()),
        c.last_done.elapsed_ns as f64 / 1e9,
        rate(c.last_done.iops()),
        mb_per_sec(c.last_done.bytes_per_sec()),
    ));
    if let Some(s) = &c.stonewall {
        out.push_str(&format!(
            r#"<p class="meta">stonewall {:.1} s: ops per rank at the deadline min {} max {}; {} MB/s at the deadline, {} MB/s after wear-out</p>"#,
            s.deadline_ns as f64 / 1e9,
            s.min_ops_at_deadline,
            s.max_ops_at_deadline,
            mb_per_sec(s.bytes_per_sec_at_deadline()),
            mb_per_sec(c.last_done.bytes_per_sec()),
        ));
    }
    out
}

/// Per host, for each run many ranks made: its hosts' ranks, operations
/// and rate per rank over every job, against the fastest host. Nothing for
/// runs of one process.
pub fn hosts_section(page: &mut super::Page, runs: &[crate::metrics::RunResult], names: &[String]) {
    use crate::report::cluster_hosts::{host_rows, spread_line};
    let mut first = true;
    for (i, (run, name)) in runs.iter().zip(names).enumerate() {
        let rows = host_rows(run);
        if rows.is_empty() {
            continue;
        }
        if first {
            page.html("<h2>Per host</h2>");
            first = false;
        }
        let mut t = Table::new(
            &format!("hosts-{i}"),
            &format!("{name}: per host, every job together"),
            &[
                "host",
                "ranks",
                "ops",
                "ops/s per rank",
                "vs fastest",
                "slowest rank in",
            ],
        )
        .with_export_columns(&[
            "host",
            "ranks",
            "ops",
            "ops_per_sec_per_rank",
            "vs_fastest",
            "slowest_in_jobs",
        ]);
        for r in &rows {
            t.rows.push(vec![
                Cell::text(r.host.clone()),
                Cell::int(i64::from(r.ranks)),
                Cell::int(r.ops as i64),
                Cell::num(r.ops_per_sec_per_rank, rate(r.ops_per_sec_per_rank)),
                Cell::num(r.vs_fastest, format!("{:.2}x", r.vs_fastest)),
                Cell::num(
                    f64::from(r.slowest_in_jobs),
                    format!("{} jobs", r.slowest_in_jobs),
                ),
            ]);
        }
        page.table(t);
        let jobs = run.jobs.iter().filter(|j| j.cluster.is_some()).count();
        if let Some(line) = spread_line(&rows, jobs) {
            page.html(&format!(r#"<p class="meta">{}</p>"#, esc(&line)));
        }
    }
}
