//! One renderer for any stored run: `render_run` picks the page of the suite
//! that made it (mark grid, sweep tables, tiobench, bonnie, vdbench, or the
//! plain run table), as text or JSON, and owns the lines every page shares:
//! the INCOMPLETE note and the warnings.

use std::path::Path;

use super::escape::term;
use super::format::{bytes_human, utc};
use super::mark_grid::{self, MarkUnit};
use super::{bonnie_table, run_table, sweep_table, tiobench_table, to_json, vdbench_summary};
use crate::jobs::suites::{SuiteKind, TIOBENCH_DIFFERENCES};
use crate::metrics::RunResult;
use crate::metrics::repeats::summarize_tests;

/// Why a stopped run's numbers are partial, as every report says it.
pub const STOPPED_EARLY: &str = "the run was stopped early; the numbers cover what ran.";
/// The short note beside one job that was stopped early.
pub const JOB_STOPPED_EARLY: &str = "INCOMPLETE: stopped early";

/// How a run is to be shown: the choices a verb's flags make.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub json: bool,
    /// The unit of a mark grid.
    pub unit: MarkUnit,
    /// bonnie++'s CSV lines under its table (`kura suite bonnie --csv`).
    pub bonnie_csv: bool,
    /// Colours for a terminal.
    pub color: bool,
}

impl Default for View {
    fn default() -> View {
        View {
            json: false,
            unit: MarkUnit::MbPerSec,
            bonnie_csv: false,
            color: false,
        }
    }
}

/// The run as the verb that made it printed it.
pub fn render_run(run: &RunResult, view: &View) -> String {
    match run.suite.as_ref() {
        Some(SuiteKind::Mark(_)) => mark(run, view),
        Some(SuiteKind::Sweep) => sweep(run, view.json),
        Some(SuiteKind::Tiobench) => tiobench(run, view.json),
        Some(SuiteKind::Bonnie) => bonnie(run, view),
        _ if view.json => to_json(run),
        Some(SuiteKind::Vdbench) => vdbench_summary::render(run),
        _ => run_table::render_run(run),
    }
}

/// "INCOMPLETE: ..." and its newline for a stopped run, else nothing.
pub fn incomplete_line(run: &RunResult) -> String {
    if run.incomplete {
        format!("INCOMPLETE: {STOPPED_EARLY}\n")
    } else {
        String::new()
    }
}

/// One "warning: ..." line per warning of the run, made safe for a terminal.
pub fn warning_lines(run: &RunResult) -> String {
    run.warnings
        .iter()
        .map(|w| format!("warning: {}\n", term(&w.to_string())))
        .collect()
}

fn label_part(run: &RunResult) -> String {
    run.label
        .as_ref()
        .map(|l| format!(" · label \"{}\"", term(l)))
        .unwrap_or_default()
}

fn mark(run: &RunResult, view: &View) -> String {
    let summaries = summarize_tests(run);
    if view.json {
        return to_json(&serde_json::json!({ "run": run, "tests": summaries }));
    }
    let first = run.jobs.first();
    let id = run.id.map(|i| format!("run {i}")).unwrap_or_default();
    let mut out = format!(
        "kura mark {id} · {} · {} on {} ({}) · engine {}",
        utc(run.started_unix_s),
        run.suite.as_ref().map(|s| s.to_string()).unwrap_or_default(),
        first
            .map(|j| term(&j.target.path).into_owned())
            .unwrap_or_default(),
        first
            .map(|j| bytes_human(j.target.size_bytes))
            .unwrap_or_default(),
        first.map(|j| j.engine.as_str()).unwrap_or_default(),
    );
    out.push_str(&label_part(run));
    out.push('\n');
    out.push_str(&incomplete_line(run));
    out.push_str(&mark_grid::render(&summaries, view.unit, view.color));
    out.push_str(&warning_lines(run));
    out.push_str(
        "MB/s = 10^6 bytes/s. The best run is shown, as CrystalDiskMark does, the mean beside it.\n",
    );
    if let Some(id) = run.id {
        out.push_str(&format!(
            "Every repetition with latency percentiles: kura show {id} --json\n"
        ));
    }
    out
}

fn sweep(run: &RunResult, json: bool) -> String {
    let rows = sweep_table::rows(run);
    if json {
        return to_json(&serde_json::json!({ "run": run, "rows": rows }));
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura sweep run {} · {} · {} on {}",
        run.id.unwrap_or(0),
        utc(run.started_unix_s),
        first
            .map(|j| format!(
                "{} qd{} x{} {}",
                if j.job.rw.is_random() {
                    "random"
                } else {
                    "sequential"
                },
                j.job.qd,
                j.job.threads,
                j.engine
            ))
            .unwrap_or_default(),
        first
            .map(|j| term(&j.target.path).into_owned())
            .unwrap_or_default(),
    );
    out.push_str(&label_part(run));
    out.push('\n');
    out.push_str(&incomplete_line(run));
    out.push_str(&sweep_table::render(&rows));
    out.push_str(&warning_lines(run));
    out.push_str(
        "IOPS and throughput are reads and writes together, mean of the runs; MiB/s = 2^20 bytes/s.\n",
    );
    out
}

fn tiobench(run: &RunResult, json: bool) -> String {
    let rows = tiobench_table::rows(run);
    if json {
        return to_json(&serde_json::json!({ "run": run, "rows": rows }));
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura tiobench run {} · {} · {} threads x {} file, {} blocks, {}, engine {}\n",
        run.id.unwrap_or(0),
        utc(run.started_unix_s),
        first.map(|j| j.job.threads).unwrap_or(0),
        first
            .map(|j| bytes_human(j.job.size_bytes.unwrap_or(0)))
            .unwrap_or_default(),
        first.map(|j| j.job.bs_text()).unwrap_or_default(),
        if first.is_some_and(|j| j.job.direct) {
            "O_DIRECT"
        } else {
            "buffered"
        },
        first.map(|j| j.engine.as_str()).unwrap_or_default(),
    );
    out.push_str(&incomplete_line(run));
    out.push_str(&tiobench_table::render(&rows));
    out.push_str(TIOBENCH_DIFFERENCES);
    out.push_str(&warning_lines(run));
    out
}

fn bonnie(run: &RunResult, view: &View) -> String {
    let rows = bonnie_table::rows(run);
    let lines = if view.bonnie_csv {
        bonnie_table::csv_lines(run)
    } else {
        Vec::new()
    };
    if view.json {
        let mut v = serde_json::json!({ "run": run, "rows": rows });
        if view.bonnie_csv {
            v["csv"] = serde_json::json!(lines);
        }
        return to_json(&v);
    }
    let first = run.jobs.first();
    let io = run.jobs.iter().find_map(|j| j.job.size_bytes.filter(|s| *s > 0));
    let files = run
        .jobs
        .iter()
        .find(|j| j.job.size_bytes.is_none())
        .and_then(|j| j.job.io_count);
    let mut what = Vec::new();
    if let Some(size) = io {
        what.push(format!("{} file", bytes_human(size)));
    }
    if let Some(n) = files {
        what.push(format!("{n} small files"));
    }
    let mut out = format!(
        "kura bonnie run {} · {} · {}{} · {}, buffered\n",
        run.id.unwrap_or(0),
        utc(run.started_unix_s),
        first
            .map(|j| term(
                &Path::new(&j.target.path)
                    .parent()
                    .unwrap_or(Path::new(""))
                    .display()
                    .to_string()
            )
            .into_owned())
            .unwrap_or_default(),
        first
            .and_then(|j| j.target.fs_type.as_deref())
            .map(|fs| format!(" ({})", term(fs)))
            .unwrap_or_default(),
        what.join(", "),
    );
    out.push_str(&incomplete_line(run));
    out.push_str(&bonnie_table::render(run));
    out.push_str(&warning_lines(run));
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{job, run};
    use super::*;
    use crate::jobs::Rw;

    fn text(suite: &str) -> String {
        let mut r = run(
            suite,
            vec![job("Random Read", Rw::RandRead, 4096, 100, Some(500), None)],
        );
        r.id = Some(7);
        r.incomplete = true;
        render_run(&r, &View::default())
    }

    #[test]
    fn each_stored_suite_gets_its_own_page_with_the_shared_lines_once() {
        for (suite, head) in [
            ("mark:default", "kura mark run 7 "),
            ("sweep", "kura sweep run 7 "),
            ("tiobench", "kura tiobench run 7 "),
            ("vdbench", "kura run 7 · vdbench-style report"),
            ("custom", "kura run 7 · "),
        ] {
            let out = text(suite);
            assert!(out.starts_with(head), "{suite}: {out}");
            assert_eq!(
                out.matches("INCOMPLETE: the run was stopped early").count(),
                1,
                "{out}"
            );
        }
        assert!(text("tiobench").contains(TIOBENCH_DIFFERENCES));
    }

    #[test]
    fn json_of_a_suite_run_carries_its_rows_beside_the_run() {
        let r = run(
            "sweep",
            vec![job("bs=4k mix=100/0", Rw::RandRead, 4096, 100, Some(404), None)],
        );
        let json = render_run(
            &r,
            &View {
                json: true,
                ..View::default()
            },
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["run"]["suite"], "sweep");
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(1));
    }
}
