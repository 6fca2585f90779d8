//! `kura explain`: the jobs a job file translates to, as a table or as JSON.

use serde::Serialize;

use super::escape::term;
use super::run_table::new_table;
use crate::jobs::Job;
use crate::jobs::jobfile::{Plan, PlannedJob};
use crate::jobs::units::{format_duration, format_size};

/// When a job stops, in words: `30s`, `1g`, `2 passes`, `1g or 60s`.
pub fn stop_text(job: &Job) -> String {
    let amount = job
        .io_size_bytes
        .map(format_size)
        .or(job.io_count.map(|n| crate::t!("explain-ios", count = n)))
        .or(job.passes.map(|p| crate::t!("explain-passes", passes = p)));
    match (amount, job.runtime) {
        (Some(a), Some(r)) => crate::t!("explain-or", amount = a, runtime = format_duration(r)),
        (Some(a), None) => a,
        (None, Some(r)) => format_duration(r),
        (None, None) => crate::t!("explain-default-runtime"),
    }
}

/// The table's columns, in order; the last is the target.
const HEADER: [&str; 17] = [
    "#", "job", "run", "group", "rw", "bs", "read%", "qd", "threads", "size", "offset", "stop", "ramp",
    "rate", "engine", "direct", "target",
];

pub fn render_plan(plan: &Plan, file: &str) -> String {
    let mut out = plan_heading(plan, file);
    if plan.jobs.is_empty() {
        return out;
    }
    let rows: Vec<Vec<String>> = plan.jobs.iter().enumerate().map(|(i, p)| job_row(i, p)).collect();
    push_tables(&mut out, &rows);
    if !super::width::wide() {
        // Paths are as long as they are: one line each, under the tables.
        for (i, row) in rows.iter().enumerate() {
            out.push_str(&format!(
                "  #{} {}\n",
                i + 1,
                crate::t!("explain-target", target = row[HEADER.len() - 1].as_str())
            ));
        }
    }
    for (i, p) in plan.jobs.iter().enumerate() {
        // Options outside the table's columns, as their keys, where they
        // differ from the default (the option table marks which).
        for x in p.job.extras() {
            out.push_str(&format!("  #{}: {x}\n", i + 1));
        }
    }
    out
}

/// The file, its format and job count, why it cannot run, and its notes.
fn plan_heading(plan: &Plan, file: &str) -> String {
    let mut out = format!(
        "{}\n",
        crate::t!(
            "explain-file",
            file = file,
            format = plan.format.name(),
            jobs = plan.jobs.len()
        )
    );
    if let Some(why) = &plan.cannot_run {
        out.push_str(&format!(
            "{}\n",
            crate::t!("explain-cannot-run", why = why.as_str())
        ));
    }
    for w in &plan.warnings {
        out.push_str(&super::width::wrap(&crate::t!("explain-note"), &term(w), 2));
    }
    out
}

/// The rate column: searched by a latency bound, a share of a curve's max, a cap, or none.
fn rate_text(p: &PlannedJob) -> String {
    let j = &p.job;
    let searched = j.latency_limit_ns.is_some()
        && j.latency_load.unwrap_or(crate::jobs::latency::LatencyLoad::Rate)
            == crate::jobs::latency::LatencyLoad::Rate;
    match (&p.curve, j.rate_iops) {
        _ if searched => crate::t!("explain-rate-searched"),
        (Some(c), _) => crate::t!("explain-rate-of-max", pct = c.pct.to_string()),
        (None, Some(r)) => format!("{r}/s"),
        (None, None) => match j.rate_bytes_per_sec {
            Some(b) => format!("{}/s", super::format::bytes_human(b)),
            None => crate::t!("explain-rate-max"),
        },
    }
}

/// Job `i`'s cells, one per column of `HEADER`.
fn job_row(i: usize, p: &PlannedJob) -> Vec<String> {
    let j = &p.job;
    let mut bs = j.bs_text();
    if j.rw.is_random() && j.random_pct < 100 {
        bs.push_str(&crate::t!("explain-seek", pct = j.random_pct));
    }
    // Another kind's job (a file set, bonnie, a database) keeps the
    // block fields at their defaults: they say nothing of what it does,
    // so its kind is named and its own keys follow under the tables.
    let block = j.workload.kind().scope() == crate::jobs::options::Scope::Block;
    let for_block = |text: String| if block { text } else { "-".to_string() };
    vec![
        (i + 1).to_string(),
        term(&j.name).into_owned(),
        term(p.test.as_deref().unwrap_or_default()).into_owned(),
        j.group.map(|g| g.to_string()).unwrap_or_else(|| "-".into()),
        if block {
            j.rw.name().to_string()
        } else {
            j.workload.kind_name().to_string()
        },
        for_block(bs),
        for_block(if j.rw.is_mixed() {
            j.read_pct.to_string()
        } else {
            j.effective_read_pct().to_string()
        }),
        for_block(j.qd.to_string()),
        j.threads.to_string(),
        for_block(j.size_bytes.map(format_size).unwrap_or_else(|| "-".into())),
        for_block(format_size(j.offset_bytes)),
        stop_text(j),
        format_duration(j.ramp),
        rate_text(p),
        for_block(j.engine.for_io(j.direct).name().to_string()),
        for_block(crate::i18n::heading(if j.direct { "yes" } else { "no" })),
        j.target
            .as_ref()
            .map(|t| term(&t.display().to_string()).into_owned())
            .unwrap_or_else(|| "./kura-test.dat".into()),
    ]
}

/// The rows as one table under `--wide`; else, at 80 columns, two: what runs,
/// and where and how long, each with the job number (targets follow apart).
fn push_tables(out: &mut String, rows: &[Vec<String>]) {
    let parts: Vec<Vec<usize>> = if super::width::wide() {
        vec![(0..HEADER.len()).collect()]
    } else {
        vec![
            (0..9).collect(),
            [0].into_iter().chain(9..HEADER.len() - 1).collect(),
        ]
    };
    // `read%` has a heading of its own: `heading` would read it as `read`.
    let read_pct = crate::t!("explain-read-pct");
    for cols in parts {
        let header: Vec<&str> = cols
            .iter()
            .map(|c| {
                if HEADER[*c] == "read%" {
                    read_pct.as_str()
                } else {
                    HEADER[*c]
                }
            })
            .collect();
        let mut t = new_table(&header);
        for row in rows {
            t.add_row(cols.iter().map(|c| row[*c].clone()).collect::<Vec<_>>());
        }
        // Numbers and short words keep their width; a long job name is cut.
        let name: Vec<usize> = cols.iter().position(|c| *c == 1).into_iter().collect();
        out.push_str(&super::fit::render_with(&t, &super::fit::Fit::new().cut(&name)));
        out.push('\n');
    }
}

#[derive(Serialize)]
struct JsonJob<'a> {
    #[serde(flatten)]
    job: &'a Job,
    /// The vdbench run the job belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    test: Option<&'a str>,
    /// vdbench curve point: percent of the rate the run's max jobs reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    curve_pct: Option<f64>,
}

/// The plan as JSON: the file's format, its notes, why it cannot run (or
/// null) and its `Job`s, each with `test` and `curve_pct` where they apply.
pub fn plan_json(plan: &Plan) -> String {
    // A read-only or write-only job stores the mix it was given (50 unless
    // said) although it never mixes: say what runs, as the table does.
    let jobs: Vec<Job> = plan
        .jobs
        .iter()
        .map(|p| Job {
            read_pct: p.job.effective_read_pct(),
            ..p.job.clone()
        })
        .collect();
    let list: Vec<JsonJob> = plan
        .jobs
        .iter()
        .zip(&jobs)
        .map(|(p, job)| JsonJob {
            job,
            test: p.test.as_deref(),
            curve_pct: p.curve.as_ref().map(|c| c.pct),
        })
        .collect();
    super::to_json(&serde_json::json!({
        "format": plan.format.name(),
        "notes": plan.warnings,
        "cannot_run": plan.cannot_run,
        "jobs": list,
    }))
}
