//! The per-rank part of a job many ranks ran (MPI): a row per rank with its
//! host, rate, p99 and start/stop skew, the total, the spread that makes a
//! slow host stand out, elbencho's first-done / last-done pair and IO500's
//! stonewall numbers. Nothing for a job one process ran.

use super::escape::term;
use super::format::{latency, mb_per_sec, rate};
use super::run_table::new_table;
use crate::metrics::JobResult;
use crate::metrics::cluster::{ClusterResult, RankSummary};

fn ms(ns: u64) -> String {
    format!("{:.1} ms", ns as f64 / 1e6)
}

/// The fastest rank's IOPS over the slowest one's, and the slowest rank.
pub fn spread(c: &ClusterResult) -> Option<(f64, &RankSummary)> {
    let slowest = c.ranks.iter().min_by(|a, b| a.iops().total_cmp(&b.iops()))?;
    let fastest = c.ranks.iter().map(RankSummary::iops).fold(0.0, f64::max);
    let ratio = if slowest.iops() > 0.0 {
        fastest / slowest.iops()
    } else {
        f64::INFINITY
    };
    Some((ratio, slowest))
}

pub fn render(job: &JobResult) -> String {
    let Some(c) = job.cluster.as_deref() else {
        return String::new();
    };
    let mut hosts: Vec<&str> = c.ranks.iter().map(|r| r.host.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let placed = match (c.shared, job.job.workload.kind().target_is_directory()) {
        (true, false) => crate::t!("ranks-share-file"),
        (false, false) => crate::t!("ranks-own-file"),
        (true, true) => crate::t!("ranks-share-set"),
        (false, true) => crate::t!("ranks-own-set"),
    };
    let mut out = lines(&crate::t!(
        "ranks-on-hosts",
        ranks = c.ranks.len(),
        hosts = hosts.len(),
        placed = placed
    ));
    let mut t = new_table(&[
        "rank",
        "host",
        "target",
        "IOPS",
        "MB/s",
        "ops",
        "p99",
        "start skew",
        "stop skew",
    ]);
    for r in &c.ranks {
        t.add_row(vec![
            format!("{}{}", r.rank, if r.incomplete { "*" } else { "" }),
            term(&r.host).into_owned(),
            term(&r.target).into_owned(),
            rate(r.iops()),
            mb_per_sec(r.bytes_per_sec()),
            r.ops.to_string(),
            latency(r.lat_p99_ns as f64),
            ms(r.start_skew_ns),
            ms(r.stop_skew_ns),
        ]);
    }
    // Pooled as each rank's is, so the total sits among the ranks' p99s.
    let p99 = crate::metrics::cluster::pooled_p99_ns(job).unwrap_or(0);
    t.add_row(vec![
        "total".to_string(),
        String::new(),
        String::new(),
        rate(c.last_done.iops()),
        mb_per_sec(c.last_done.bytes_per_sec()),
        c.last_done.ops.to_string(),
        latency(p99 as f64),
        String::new(),
        String::new(),
    ]);
    // A long host name or path is cut before a number's column goes.
    out.push_str(&super::fit::render_with(&t, &super::fit::Fit::new().cut(&[2, 1])));
    out.push('\n');
    if let Some((ratio, slowest)) = spread(c) {
        out.push_str(&lines(&crate::t!(
            "ranks-spread",
            ratio = format!("{ratio:.2}"),
            rank = slowest.rank,
            host = term(&slowest.host).into_owned()
        )));
    }
    out.push_str(&lines(&crate::t!(
        "ranks-first-last",
        first_s = format!("{:.2}", c.first_done.elapsed_ns as f64 / 1e9),
        first_iops = rate(c.first_done.iops()),
        first_mbs = mb_per_sec(c.first_done.bytes_per_sec()),
        last_s = format!("{:.2}", c.last_done.elapsed_ns as f64 / 1e9),
        last_iops = rate(c.last_done.iops()),
        last_mbs = mb_per_sec(c.last_done.bytes_per_sec())
    )));
    if let Some(s) = &c.stonewall {
        out.push_str(&lines(&crate::t!(
            "ranks-stonewall",
            deadline_s = format!("{:.1}", s.deadline_ns as f64 / 1e9),
            min = s.min_ops_at_deadline,
            max = s.max_ops_at_deadline,
            iops = rate(s.iops_at_deadline()),
            mbs = mb_per_sec(s.bytes_per_sec_at_deadline()),
            last_iops = rate(c.last_done.iops()),
            last_mbs = mb_per_sec(c.last_done.bytes_per_sec())
        )));
    }
    out
}

/// A line under the ranks' table, indented and wrapped at 80 columns.
fn lines(text: &str) -> String {
    super::width::wrap("  ", text, 4)
}

#[cfg(test)]
mod tests {
    use crate::jobs::Rw;
    use crate::metrics::OpKind;
    use crate::metrics::cluster::ClusterResult;
    use crate::report::fixtures::{direction, job};

    /// The total row's p99 is every operation's pooled, not the slowest kind's.
    #[test]
    fn the_total_p99_is_of_every_kind_pooled() {
        let mut j = job("mix", Rw::RandRead, 4096, 100, None, None);
        j.read = Some(direction(990, 4096, &[20_000_000]));
        j.operations
            .insert(OpKind::Create, direction(10, 0, &[56_000_000]));
        j.cluster = Some(Box::new(ClusterResult::default()));
        let table = super::render(&j);
        let total = table.lines().find(|l| l.contains("total")).unwrap();
        assert!(total.contains("20.0"), "{table}");
        assert!(!total.contains("56."), "{table}");
    }
}
