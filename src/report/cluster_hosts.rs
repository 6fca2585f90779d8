//! Per host, over a whole run many ranks made (`kura mark`, `sweep`, and
//! `compare`): each host's ranks, operations and rate per rank across
//! every job, against the fastest host's, so a slow host stands out where
//! the per-job tables are too many to read (a mark run has dozens of jobs).

use std::collections::BTreeMap;

use serde::Serialize;

use super::escape::term;
use super::format::rate;
use super::run_table::new_table;
use crate::metrics::RunResult;

/// One host's part of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostRow {
    pub host: String,
    /// Distinct ranks that ran on the host.
    pub ranks: u32,
    /// Operations of every job, all its ranks together.
    pub ops: u64,
    /// Operations per second of one rank: `ops` over the ranks' measured
    /// time added up, every job together.
    pub ops_per_sec_per_rank: f64,
    /// That rate over the fastest host's (1 for the fastest).
    pub vs_fastest: f64,
    /// Jobs in which this host ran the slowest rank.
    pub slowest_in_jobs: u32,
}

/// The hosts of a run made by many ranks, fastest first; empty for a run
/// of one process.
pub fn host_rows(run: &RunResult) -> Vec<HostRow> {
    #[derive(Default)]
    struct Acc {
        ranks: std::collections::BTreeSet<u32>,
        ops: u64,
        ns: u64,
        slowest: u32,
    }
    let mut hosts: BTreeMap<&str, Acc> = BTreeMap::new();
    for job in &run.jobs {
        let Some(c) = job.cluster.as_deref() else {
            continue;
        };
        for r in &c.ranks {
            let a = hosts.entry(r.host.as_str()).or_default();
            a.ranks.insert(r.rank);
            a.ops += r.ops;
            a.ns += r.elapsed_ns;
        }
        if let Some((_, slowest)) = super::cluster_table::spread(c)
            && c.ranks.len() > 1
        {
            hosts.entry(slowest.host.as_str()).or_default().slowest += 1;
        }
    }
    let mut rows: Vec<HostRow> = hosts
        .into_iter()
        .map(|(host, a)| HostRow {
            host: host.to_string(),
            ranks: a.ranks.len() as u32,
            ops: a.ops,
            ops_per_sec_per_rank: if a.ns > 0 {
                a.ops as f64 * 1e9 / a.ns as f64
            } else {
                0.0
            },
            vs_fastest: 0.0,
            slowest_in_jobs: a.slowest,
        })
        .collect();
    let fastest = rows.iter().map(|r| r.ops_per_sec_per_rank).fold(0.0, f64::max);
    for r in &mut rows {
        r.vs_fastest = if fastest > 0.0 {
            r.ops_per_sec_per_rank / fastest
        } else {
            0.0
        };
    }
    rows.sort_by(|a, b| b.ops_per_sec_per_rank.total_cmp(&a.ops_per_sec_per_rank));
    rows
}

/// The hosts' table with a line naming the slowest host; empty for a run
/// of one process.
pub fn render(run: &RunResult) -> String {
    let rows = host_rows(run);
    if rows.is_empty() {
        return String::new();
    }
    let ranks: u32 = rows.iter().map(|r| r.ranks).sum();
    let jobs = run.jobs.iter().filter(|j| j.cluster.is_some()).count();
    let mut out = format!(
        "\n{}\n",
        crate::t!("hosts-title", ranks = ranks, hosts = rows.len())
    );
    out.push_str(&table(&rows, None));
    out.push('\n');
    if let Some(line) = spread_line(&rows, jobs) {
        out.push_str(&super::width::wrap("", &line, 2));
    }
    out
}

/// The rows as a table; with `target`, a first column naming it (compare).
pub fn table(rows: &[HostRow], target: Option<&str>) -> String {
    let mut header = Vec::new();
    if target.is_some() {
        header.push("target");
    }
    header.extend([
        "host",
        "ranks",
        "ops",
        "ops/s per rank",
        "vs fastest",
        "slowest in",
    ]);
    let mut t = new_table(&header);
    for r in rows {
        let mut row = Vec::new();
        if let Some(name) = target {
            row.push(term(name).into_owned());
        }
        row.extend([
            term(&r.host).into_owned(),
            r.ranks.to_string(),
            r.ops.to_string(),
            rate(r.ops_per_sec_per_rank),
            format!("{:.2}x", r.vs_fastest),
            crate::t!("hosts-jobs", jobs = r.slowest_in_jobs),
        ]);
        t.add_row(row);
    }
    // A long target or host name is cut before a number's column goes.
    let names: Vec<usize> = if target.is_some() { vec![0, 1] } else { vec![0] };
    super::fit::render_with(&t, &super::fit::Fit::new().cut(&names))
}

/// `spread: the slowest host node1 ran 0.62x the fastest's rate per rank
/// (node0); it ran the slowest rank in 12 of 16 jobs`.
pub fn spread_line(rows: &[HostRow], jobs: usize) -> Option<String> {
    if rows.len() < 2 {
        return None;
    }
    let (fastest, slowest) = (rows.first()?, rows.last()?);
    Some(crate::t!(
        "hosts-spread",
        slowest = term(&slowest.host).into_owned(),
        ratio = format!("{:.2}", slowest.vs_fastest),
        fastest = term(&fastest.host).into_owned(),
        count = slowest.slowest_in_jobs,
        jobs = jobs
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::metrics::cluster::{ClusterResult, RankSummary};
    use crate::report::fixtures;

    /// A job of 4 ranks on 2 hosts; `slow` did a quarter of the others' ops.
    fn job(slow: &str) -> crate::metrics::JobResult {
        let mut j = fixtures::job("t", Rw::RandRead, 4096, 100, Some(1000), None);
        let ranks = (0..4u32)
            .map(|r| {
                let host = if r < 2 { "node0" } else { "node1" };
                RankSummary {
                    rank: r,
                    host: host.into(),
                    elapsed_ns: 1_000_000_000,
                    ops: if host == slow { 100 } else { 400 },
                    ..RankSummary::default()
                }
            })
            .collect();
        j.cluster = Some(Box::new(ClusterResult {
            ranks,
            ..ClusterResult::default()
        }));
        j
    }

    #[test]
    fn a_slow_host_stands_out() {
        let run = fixtures::run("mark", vec![job("node1"), job("node1"), job("node0")]);
        let rows = host_rows(&run);
        assert_eq!(rows.len(), 2);
        // node0: 400+400+100 per rank over 3 s; node1: 100+100+400.
        assert_eq!(rows[0].host, "node0");
        assert_eq!(rows[0].ranks, 2);
        assert_eq!(rows[0].ops, 2 * 900);
        assert!((rows[0].ops_per_sec_per_rank - 300.0).abs() < 1e-9);
        assert!((rows[1].vs_fastest - 200.0 / 300.0).abs() < 1e-9);
        assert_eq!((rows[0].slowest_in_jobs, rows[1].slowest_in_jobs), (1, 2));
        let text = render(&run);
        assert!(text.contains("4 ranks on 2 hosts"), "{text}");
        assert!(
            text.replace("\n  ", " ").contains("the slowest host node1 ran 0.67x the fastest's rate per rank (node0); it ran the slowest rank in 2 of 3 jobs"),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        // compare: a per-host section for a target of many ranks, none for others.
        let plain = fixtures::run(
            "mark",
            vec![fixtures::job("t", Rw::RandRead, 4096, 100, Some(1000), None)],
        );
        let c = crate::report::compare::build(&[run, plain], &Default::default()).unwrap();
        assert_eq!(c.hosts.len(), 1);
        assert_eq!(c.hosts[0].hosts, rows);
        let table = crate::report::compare::render::table(&c);
        assert!(table.contains("Per host (runs of many ranks)"), "{table}");
    }
}
