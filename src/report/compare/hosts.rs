//! Per-host rows of compared runs that many ranks made: each
//! target's hosts, their rate per rank over every job of its runs and
//! against its fastest host, so a slow host stands out in a comparison.

use serde::Serialize;

use super::Target;
use crate::report::cluster_hosts::{self, HostRow};

/// One compared target's hosts, fastest first.
#[derive(Debug, Clone, Serialize)]
pub struct TargetHosts {
    pub target: String,
    pub hosts: Vec<HostRow>,
    /// The slowest host against the fastest, in words; absent with one host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<String>,
}

/// The hosts of every target whose runs many ranks made (a target of
/// repeated runs adds them up); empty when none did.
pub fn build(targets: &[Target], names: &[String]) -> Vec<TargetHosts> {
    let mut out = Vec::new();
    for (t, name) in targets.iter().zip(names) {
        // Repetitions: one run holding every job of them.
        let mut all = match t.runs.first() {
            Some(r) => r.clone(),
            None => continue,
        };
        all.jobs = t.runs.iter().flat_map(|r| r.jobs.iter().cloned()).collect();
        let rows = cluster_hosts::host_rows(&all);
        if rows.is_empty() {
            continue;
        }
        let jobs = all.jobs.iter().filter(|j| j.cluster.is_some()).count();
        out.push(TargetHosts {
            target: name.clone(),
            spread: cluster_hosts::spread_line(&rows, jobs),
            hosts: rows,
        });
    }
    out
}

/// The section of the terminal table; empty without hosts.
pub fn table(hosts: &[TargetHosts]) -> String {
    if hosts.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{}\n", crate::t!("compare-hosts-title"));
    for h in hosts {
        out.push_str(&cluster_hosts::table(&h.hosts, Some(&h.target)));
        out.push('\n');
        if let Some(line) = &h.spread {
            out.push_str(&crate::report::width::wrap("", line, 2));
        }
    }
    out
}

/// The same as Markdown.
pub fn markdown(hosts: &[TargetHosts]) -> String {
    if hosts.is_empty() {
        return String::new();
    }
    let headings = [
        "target",
        "host",
        "ranks",
        "ops",
        "ops/s per rank",
        "vs fastest",
        "slowest in",
    ]
    .map(crate::i18n::heading);
    let mut out = format!(
        "\n### {}\n\n| {} |\n|---|---|---:|---:|---:|---:|---:|\n",
        crate::t!("compare-hosts-markdown-title"),
        headings.join(" | ")
    );
    for h in hosts {
        for r in &h.hosts {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {:.0} | {:.2}x | {} |\n",
                h.target,
                r.host,
                r.ranks,
                r.ops,
                r.ops_per_sec_per_rank,
                r.vs_fastest,
                crate::t!("hosts-jobs", jobs = r.slowest_in_jobs)
            ));
        }
    }
    for h in hosts {
        if let Some(line) = &h.spread {
            out.push_str(&format!("\n{}: {line}\n", h.target));
        }
    }
    out
}
