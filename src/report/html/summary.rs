//! The top of a report: errors and incomplete runs first, then which runs,
//! where (host and target facts), prices, warnings, and the headline
//! numbers of every job.

use std::fmt::Write;

use super::Page;
use super::table::{Cell, Table, Value};
use crate::metrics::{RunResult, TargetKind};
use crate::report::format::{bytes_human, latency, mb_per_sec, mib_per_sec, rate, utc};
use crate::report::svg::esc;

pub fn section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    page.html(&format!(
        r#"<section id="summary"><h2>{}</h2>"#,
        crate::t!("html-summary")
    ));
    banners(page, runs, names);
    page.table(runs_table(runs, names));
    page.table(targets_table(runs, names));
    page.table(hosts_table(runs, names));
    warnings(page, runs, names);
    page.html("</section>");
}

/// Errors and incomplete runs are said before any number is shown.
fn banners(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let mut html = String::new();
    for (run, name) in runs.iter().zip(names) {
        let errors: u64 = run
            .jobs
            .iter()
            .flat_map(|j| j.directions())
            .map(|(_, d)| d.errors)
            .sum();
        if errors > 0 {
            let _ = write!(
                html,
                r#"<div class="banner error">{}</div>"#,
                esc(&crate::t!(
                    "html-banner-errors",
                    name = name.as_str(),
                    errors = errors
                ))
            );
        }
        if crate::report::runs::still_measuring(run) {
            let _ = write!(
                html,
                r#"<div class="banner warn">{}: {}</div>"#,
                esc(name),
                esc(&crate::t!("still-measuring-line"))
            );
        } else if run.incomplete {
            let _ = write!(
                html,
                r#"<div class="banner warn">{}: {}</div>"#,
                esc(name),
                esc(&crate::t!("incomplete-line"))
            );
        }
    }
    page.html(&html);
}

fn run_cell(run: &RunResult, name: &str) -> Cell {
    match run.id {
        Some(id) => Cell::shown(name.to_string(), Value::Int(id)),
        None => Cell::text(name),
    }
}

fn runs_table(runs: &[RunResult], names: &[String]) -> Table {
    let mut t = Table::new(
        "runs",
        "Runs",
        &[
            "run", "id", "label", "date", "suite", "host", "jobs", "price", "kura", "status", "MB/s", "IOPS",
            "figure",
        ],
    );
    for (run, name) in runs.iter().zip(names) {
        // The figure that stands for the run, as `kura history` and the web list give it.
        let figure = crate::report::figure::of_run(run);
        t.rows.push(vec![
            Cell::text(name.as_str()),
            run.id.map(Cell::int).unwrap_or_else(Cell::empty),
            Cell::opt_text(run.label.as_deref()),
            Cell::shown(utc(run.started_unix_s), Value::Int(run.started_unix_s)),
            Cell::opt_text(run.suite.as_ref().map(|s| s.to_string()).as_deref()),
            Cell::text(run.host.hostname.as_str()),
            Cell::int(run.jobs.len() as i64),
            Cell::opt_text(run.price.as_deref()),
            Cell::text(run.kura_version.as_str()),
            {
                let status = if crate::report::runs::still_measuring(run) {
                    "measuring"
                } else if run.incomplete {
                    "incomplete"
                } else {
                    "complete"
                };
                Cell::shown(crate::i18n::heading(status), Value::Text(status.into()))
            },
        ]);
        let row = t.rows.last_mut().expect("pushed above");
        match figure {
            Some(f) => row.extend([
                Cell::num(
                    f.bytes_per_sec / 1e6,
                    crate::report::format::mb_per_sec(f.bytes_per_sec),
                ),
                Cell::num(f.iops, crate::report::format::rate(f.iops)),
                Cell::text(f.of),
            ]),
            None => row.extend([Cell::empty(), Cell::empty(), Cell::empty()]),
        }
    }
    t
}

fn targets_table(runs: &[RunResult], names: &[String]) -> Table {
    let mut t = Table::new(
        "targets",
        "Targets",
        &[
            "run",
            "path",
            "kind",
            "fs",
            "device",
            "model",
            "rotational",
            "size",
            "block",
            "created by kura",
            "engine",
        ],
    );
    for (run, name) in runs.iter().zip(names) {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for job in &run.jobs {
            let key = (job.target.path.as_str(), job.engine.as_str());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let f = &job.target;
            t.rows.push(vec![
                run_cell(run, name),
                Cell::text(f.path.as_str()),
                {
                    let kind = match f.kind {
                        TargetKind::File if job.job.workload.kind().target_is_directory() => "directory",
                        TargetKind::File => "file",
                        TargetKind::Block => "block device",
                    };
                    Cell::shown(crate::i18n::heading(kind), Value::Text(kind.into()))
                },
                Cell::opt_text(f.fs_type.as_deref()),
                Cell::opt_text(f.device.as_deref()),
                Cell::opt_text(f.device_model.as_deref()),
                match f.rotational.map(|r| if r { "yes" } else { "no" }) {
                    Some(r) => Cell::shown(crate::i18n::heading(r), Value::Text(r.into())),
                    None => Cell::empty(),
                },
                Cell::shown(bytes_human(f.size_bytes), Value::Int(f.size_bytes as i64)),
                Cell::int(f.logical_block_bytes as i64),
                {
                    let created = if f.created { "yes" } else { "no" };
                    Cell::shown(crate::i18n::heading(created), Value::Text(created.into()))
                },
                Cell::text(job.engine.as_str()),
            ]);
        }
    }
    t
}

fn hosts_table(runs: &[RunResult], names: &[String]) -> Table {
    let mut t = Table::new(
        "hosts",
        "Hosts",
        &["run", "hostname", "kernel", "CPU", "cores", "memory"],
    );
    for (run, name) in runs.iter().zip(names) {
        for (h, known) in run_hosts(run) {
            let facts = |cell: Cell| if known { cell } else { Cell::empty() };
            t.rows.push(vec![
                run_cell(run, name),
                Cell::text(h.hostname.as_str()),
                Cell::text(h.kernel.as_str()),
                facts(Cell::text(h.cpu_model.as_str())),
                facts(Cell::int(h.cores as i64)),
                facts(Cell::shown(
                    bytes_human(h.memory_bytes),
                    Value::Int(h.memory_bytes as i64),
                )),
            ]);
        }
    }
    t
}

/// Every host a run ran on, each with whether its CPU, cores and memory are
/// known: a run of many ranks keeps every host's (`RunResult::hosts`); one
/// stored before that names its other hosts and their kernels only in its
/// jobs' rows per rank, which are read for them.
fn run_hosts(run: &RunResult) -> Vec<(crate::metrics::HostFacts, bool)> {
    if !run.hosts.is_empty() {
        return run.hosts.iter().map(|h| (h.clone(), true)).collect();
    }
    let mut hosts = vec![(run.host.clone(), true)];
    let ranks = run
        .jobs
        .iter()
        .filter_map(|j| j.cluster.as_deref())
        .flat_map(|c| &c.ranks);
    for r in ranks {
        if !hosts.iter().any(|(h, _)| h.hostname == r.host) {
            let named = crate::metrics::HostFacts {
                hostname: r.host.clone(),
                kernel: r.kernel.clone(),
                ..Default::default()
            };
            hosts.push((named, false));
        }
    }
    hosts
}

fn warnings(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let mut items = String::new();
    for (run, name) in runs.iter().zip(names) {
        for w in &run.warnings {
            let _ = write!(items, "<li><b>{}</b>: {}</li>", esc(name), esc(&w.to_string()));
        }
    }
    if items.is_empty() {
        page.html(&format!(
            r#"<p class="note">{}</p>"#,
            crate::t!("html-no-warnings")
        ));
    } else {
        page.html(&format!(
            r#"<h3>{}</h3><ul class="warnings">{items}</ul>"#,
            crate::t!("html-warnings")
        ));
    }
}

/// One row per job and direction: what the terminal prints for each job.
pub fn results_table(runs: &[RunResult], names: &[String]) -> Table {
    let mut t = Table::new(
        "results",
        "Results per job and direction",
        &[
            "run",
            "job",
            "test",
            "workload",
            "direction",
            "IOPS",
            "MB/s",
            "MiB/s",
            "ops",
            "errors",
            "lat mean",
            "p99",
            "max",
        ],
    )
    .with_export_columns(&[
        "run_id",
        "job",
        "test",
        "workload",
        "direction",
        "iops",
        "mb_per_sec",
        "mib_per_sec",
        "ops",
        "errors",
        "lat_mean_ns",
        "lat_p99_ns",
        "lat_max_ns",
    ]);
    for (run, name) in runs.iter().zip(names) {
        for job in &run.jobs {
            for (dir, d) in job.directions() {
                let p99 = d.lat_ns.percentiles.get("99.000000").copied().unwrap_or(0);
                t.rows.push(vec![
                    run_cell(run, name),
                    Cell::text(job.job.name.as_str()),
                    // Shown in the reader's language, downloaded as stored.
                    match job.test.as_deref() {
                        Some(t) => Cell::shown(crate::i18n::heading(t), Value::Text(t.into())),
                        None => Cell::empty(),
                    },
                    Cell::text(job.job.summary()),
                    Cell::shown(crate::i18n::heading(dir), Value::Text(dir.into())),
                    Cell::num(d.iops, rate(d.iops)),
                    Cell::num(d.bytes_per_sec / 1e6, mb_per_sec(d.bytes_per_sec)),
                    Cell::num(
                        d.bytes_per_sec / (1u64 << 20) as f64,
                        mib_per_sec(d.bytes_per_sec),
                    ),
                    Cell::int(d.ops as i64),
                    Cell::int(d.errors as i64),
                    Cell::num(d.lat_ns.mean, latency(d.lat_ns.mean)),
                    Cell::num(p99 as f64, latency(p99 as f64)),
                    Cell::num(d.lat_ns.max as f64, latency(d.lat_ns.max as f64)),
                ]);
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::metrics::HostFacts;
    use crate::metrics::cluster::{ClusterResult, RankSummary};
    use crate::report::fixtures;

    /// A run of 4 ranks, 2 on node0 (rank 0's host) and 2 on node1.
    fn two_hosts() -> RunResult {
        let mut j = fixtures::job("t", Rw::RandRead, 4096, 100, Some(1000), None);
        let ranks = (0..4u32)
            .map(|r| RankSummary {
                rank: r,
                host: format!("node{}", r / 2),
                kernel: format!("6.{}", r / 2),
                ..RankSummary::default()
            })
            .collect();
        j.cluster = Some(Box::new(ClusterResult {
            ranks,
            ..ClusterResult::default()
        }));
        let mut run = fixtures::run("run", vec![j]);
        run.host = HostFacts {
            hostname: "node0".into(),
            kernel: "6.0".into(),
            cpu_model: "EPYC".into(),
            cores: 2,
            memory_bytes: 1 << 30,
        };
        run
    }

    fn rows(run: &RunResult) -> Vec<String> {
        let names = [String::from("r")];
        let csv = hosts_table(std::slice::from_ref(run), &names).to_csv();
        csv.lines().skip(1).map(str::to_string).collect()
    }

    /// The Hosts table of a 4-rank run on two hosts named node0 alone.
    #[test]
    fn the_hosts_table_has_a_row_per_host_the_ranks_ran_on() {
        let mut run = two_hosts();
        // Stored before every host was kept (7: the fixture's run id): node1
        // named by its ranks, its
        // CPU, cores and memory left blank rather than shown as node0's.
        assert_eq!(rows(&run), ["7,node0,6.0,EPYC,2,1073741824", "7,node1,6.1,,,"]);
        let node1 = HostFacts {
            hostname: "node1".into(),
            kernel: "6.1".into(),
            cpu_model: "Xeon".into(),
            cores: 8,
            memory_bytes: 2 << 30,
        };
        run.hosts = vec![run.host.clone(), node1];
        assert_eq!(
            rows(&run),
            ["7,node0,6.0,EPYC,2,1073741824", "7,node1,6.1,Xeon,8,2147483648"]
        );
        // One process: its host alone, as before.
        let one = fixtures::run(
            "run",
            vec![fixtures::job("t", Rw::RandRead, 4096, 100, Some(1), None)],
        );
        assert_eq!(rows(&one).len(), 1);
    }
}
