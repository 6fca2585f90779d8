//! One renderer for any stored run: `render_run` picks the page of the suite
//! that made it (mark grid, sweep tables, tiobench, bonnie, vdbench, or the
//! plain run table), as text or JSON, and owns the lines every page shares:
//! the INCOMPLETE note and the warnings.

use std::path::Path;

use super::escape::term;
use super::format::{bytes_human, utc};
use super::mark_grid::{self, Figure, MarkUnit};
use super::span::span_text;
use super::{bonnie_table, run_table, sweep_table, tiobench_table, to_json, vdbench_summary};
use crate::jobs::presets::Profile;
use crate::jobs::suites::SuiteKind;
use crate::metrics::RunResult;
use crate::metrics::repeats::summarize_mark;

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
    // mark
    /// Which figure of a mark test's passes the grid shows.
    pub figure: Figure,
}

impl Default for View {
    fn default() -> View {
        View {
            json: false,
            unit: MarkUnit::MbPerSec,
            bonnie_csv: false,
            color: false,
            figure: Figure::Best,
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
        Some(SuiteKind::Db) => db(run, view.json),
        Some(SuiteKind::Io500) => io500(run, view.json),
        Some(SuiteKind::Pts) => pts(run, view.json),
        _ if view.json => run_json(run),
        Some(SuiteKind::Vdbench) => with_searches(vdbench_summary::render(run), run),
        _ => run_table::render_run(run),
    }
}

/// A suite's page, then the curves of its latency-bounded searches (vdbench's `stopcurve=`).
fn with_searches(mut page: String, run: &RunResult) -> String {
    let searches = super::latency_table::render(run);
    if !searches.is_empty() {
        page.push('\n');
        page.push_str(&searches);
    }
    page
}

/// A run as JSON; with latency-bounded searches, their curves and results
/// beside its fields (`"latency_bound": [...]`, as suites add their tables).
fn run_json(run: &RunResult) -> String {
    let curves = crate::metrics::latency_bound::curves(run);
    if curves.is_empty() {
        return to_json(run);
    }
    let searches: Vec<serde_json::Value> = curves
        .iter()
        .map(|c| {
            let best = c.best_point();
            serde_json::json!({
                "job": c.job,
                "test": c.test,
                "latency_limit_ns": c.latency_limit_ns,
                "stat": c.stat,
                "load": c.load,
                "points": c.points,
                "best_step": best.map(|p| p.step),
                "best_offered_iops": best.and_then(|p| p.offered_iops),
                "best_qd": best.map(|p| p.qd),
                "best_threads": best.map(|p| p.threads),
                "best_achieved_iops": best.map(|p| p.achieved_iops),
                "best_latency_ns": best.and_then(|p| p.latency_ns),
                // What the target delivered at the best step: the score compare uses.
                "score_iops": c.score_iops(),
                // No step crossed the limit: the target carries at least this.
                "lower_bound": c.lower_bound(),
                // What kept the search under its limit (null: a step above the best crossed it).
                "limited_by": c.limited_by(),
                // Read by programs: English, whatever the language shown.
                "result": crate::i18n::in_english(|| super::latency_table::sentence(c)),
            })
        })
        .collect();
    to_json(&run_with(run, &[("latency_bound", serde_json::json!(searches))]))
}

/// A run whose kura is still measuring it (long runs, docs/long-runs.md).
pub fn still_measuring(run: &RunResult) -> bool {
    run.warnings
        .iter()
        .any(|w| matches!(w, crate::metrics::Warning::Measuring { .. }))
}

/// The note beside one job: stopped early, or still measuring (a run in
/// progress, whose job has no totals until it ends), or nothing.
pub fn job_note(job: &crate::metrics::JobResult, measuring: bool) -> Option<String> {
    match (job.incomplete, measuring) {
        (false, _) => None,
        (true, true) => Some(crate::t!("job-measuring")),
        (true, false) => Some(crate::t!("job-stopped-early")),
    }
}

/// The run object with a suite's own table beside its fields (`tests` of a
/// mark, `rows` of a sweep, tiobench or bonnie run): every verb that prints
/// a run prints this one shape, which `kura import run` reads back.
fn run_with(run: &RunResult, extra: &[(&str, serde_json::Value)]) -> serde_json::Value {
    let mut v = serde_json::to_value(run).expect("results serialize");
    if let Some(map) = v.as_object_mut() {
        for (k, x) in extra {
            map.insert((*k).to_string(), x.clone());
        }
    }
    v
}

/// "INCOMPLETE: ..." and its newline for a stopped run, else nothing.
pub fn incomplete_line(run: &RunResult) -> String {
    if still_measuring(run) {
        format!("{}\n", crate::t!("still-measuring-line"))
    } else if run.incomplete {
        format!("{}\n", crate::t!("incomplete-line"))
    } else {
        String::new()
    }
}

/// For a run whose passes took turns with other runs' (`kura mark A B`):
/// which, and its newline; else nothing.
pub fn interleaved_line(run: &RunResult) -> String {
    if run.interleaved_with.is_empty() {
        return String::new();
    }
    let runs: Vec<String> = run.interleaved_with.iter().map(i64::to_string).collect();
    let line = crate::t!("interleaved-line", runs = runs.join(", "));
    super::width::wrap("", &line, 2)
}

/// One "warning: ..." line per warning of the run, made safe for a terminal.
pub fn warning_lines(run: &RunResult) -> String {
    run.warnings
        .iter()
        .map(|w| super::width::wrap(&crate::t!("warning-prefix"), &term(&w.to_string()), 2))
        .collect()
}

fn label_part(run: &RunResult) -> String {
    run.label
        .as_ref()
        .map(|l| crate::t!("run-label", label = term(l)))
        .unwrap_or_default()
}

fn mark(run: &RunResult, view: &View) -> String {
    let summaries = summarize_mark(run);
    if view.json {
        return to_json(&run_with(run, &[("tests", serde_json::json!(summaries))]));
    }
    let first = run.jobs.first();
    let id = run
        .id
        .map(|i| crate::t!("mark-run-id", id = i))
        .unwrap_or_default();
    let profile = match &run.suite {
        Some(SuiteKind::Mark(Some(name))) => Profile::parse(name, None).ok(),
        _ => None,
    };
    let mut out = format!(
        "kura mark {id}{} · {}",
        utc(run.started_unix_s),
        run.suite.as_ref().map(|s| s.to_string()).unwrap_or_default(),
    );
    out.push_str(&label_part(run));
    out.push('\n');
    if let Some(j) = first {
        out.push_str(&format!(
            "{}: {} · {}\n",
            term(&j.target.path),
            span_text(j),
            crate::t!("mark-engine", engine = j.engine.as_str())
        ));
    }
    if let Some(short) = mark_grid::short_passes(run, profile) {
        out.push_str(&format!("{short}\n"));
    }
    out.push_str(&incomplete_line(run));
    out.push_str(&interleaved_line(run));
    let grid = mark_grid::Layout {
        unit: view.unit,
        figure: view.figure,
        random_in_three_units: profile.is_some_and(|p| p.random_in_three_units()),
        color: view.color,
        demo: profile.is_some_and(|p| p.kind == crate::jobs::presets::ProfileKind::Demo),
    };
    out.push_str(&mark_grid::render(&summaries, &grid));
    // Many ranks: each host's part, so a slow one stands out.
    out.push_str(&super::cluster_hosts::render(run));
    out.push_str(&warning_lines(run));
    out.push_str(&view.figure.caption(mark_grid::passes(&summaries)));
    out.push_str(&format!("\n{}\n", crate::t!("mark-spread-note")));
    out.push_str(&format!("{}\n", crate::t!("mark-differences")));
    if let Some(id) = run.id {
        out.push_str(&format!("{}\n", crate::t!("mark-every-pass", id = id)));
    }
    out
}

/// A sweep's values of one job field, each once in the order run: `1,4`.
fn distinct(run: &RunResult, field: fn(&crate::metrics::JobResult) -> u32) -> String {
    let mut seen: Vec<u32> = Vec::new();
    for v in run.jobs.iter().map(field) {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

fn sweep(run: &RunResult, json: bool) -> String {
    let rows = sweep_table::rows(run);
    if json {
        return to_json(&run_with(run, &[("rows", serde_json::json!(rows))]));
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura sweep {} · {} · {}\n{}{}",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        utc(run.started_unix_s),
        first
            .map(|j| format!(
                "{} qd{} x{} {}",
                if j.job.rw.is_random() {
                    crate::t!("sweep-random")
                } else {
                    crate::t!("sweep-sequential")
                },
                distinct(run, |j| j.job.qd),
                distinct(run, |j| j.job.threads),
                j.engine
            ))
            .unwrap_or_default(),
        first
            .map(|j| crate::t!("sweep-on", path = term(&j.target.path)))
            .unwrap_or_default(),
        first.map(|j| format!(" ({})", span_text(j))).unwrap_or_default(),
    );
    out.push_str(&label_part(run));
    out.push('\n');
    out.push_str(&incomplete_line(run));
    out.push_str(&interleaved_line(run));
    out.push_str(&sweep_table::render(&rows));
    // Many ranks: each host's part, so a slow one stands out.
    out.push_str(&super::cluster_hosts::render(run));
    out.push_str(&warning_lines(run));
    out.push_str(&format!("{}\n", crate::t!("sweep-note")));
    out
}

/// A suite run under `--mem-limit` says so in its header: the cap is what
/// its page cache could hold (`mem=` in the classic suites' days).
fn mem_limit_text(run: &RunResult) -> Option<String> {
    let limit = run.jobs.first()?.job.mem_limit_bytes?;
    Some(crate::t!("suite-mem-limit", limit = bytes_human(limit)))
}

fn tiobench(run: &RunResult, json: bool) -> String {
    let rows = tiobench_table::rows(run);
    if json {
        return to_json(&run_with(run, &[("rows", serde_json::json!(rows))]));
    }
    let first = run.jobs.first();
    let mut setup = vec![crate::t!(
        "tiobench-setup",
        threads = tiobench_table::thread_counts(&rows)
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        size = first
            .map(|j| bytes_human(j.job.size_bytes.unwrap_or(0)))
            .unwrap_or_default(),
        bs = first.map(|j| j.job.bs_text()).unwrap_or_default(),
        io = if first.is_some_and(|j| j.job.direct) {
            "O_DIRECT".to_string()
        } else {
            crate::t!("io-buffered")
        },
        engine = first.map(|j| j.engine.as_str()).unwrap_or_default()
    )];
    setup.extend(mem_limit_text(run));
    let mut out = format!(
        "kura tiobench {} · {}\n",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        utc(run.started_unix_s),
    );
    out.push_str(&super::width::wrap(
        "",
        &setup.join(&crate::t!("list-separator")),
        2,
    ));
    out.push_str(&incomplete_line(run));
    out.push_str(&tiobench_table::render(&rows));
    // Many ranks: each host's part, so a slow one stands out.
    out.push_str(&super::cluster_hosts::render(run));
    out.push_str(&format!("{}\n", crate::t!("tiobench-differences")));
    out.push_str(&warning_lines(run));
    out
}

fn io500(run: &RunResult, json: bool) -> String {
    use super::io500_table;
    let rows = io500_table::rows(run);
    let score = io500_table::score(&rows);
    if json {
        return to_json(&run_with(
            run,
            &[
                ("rows", serde_json::json!(rows)),
                ("io500", serde_json::json!(score)),
            ],
        ));
    }
    let ranks = run
        .jobs
        .first()
        .and_then(|j| j.cluster.as_ref())
        .map_or(1, |c| c.ranks.len());
    let mut out = format!(
        "kura io500 {} · {}\n{}\n",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        utc(run.started_unix_s),
        crate::t!(
            "io500-title",
            ranks = ranks,
            stonewall = run
                .jobs
                .iter()
                .find_map(|j| j.job.runtime)
                .map_or("-".to_string(), |d| format!("{:?}", d)),
        )
    );
    out.push_str(&incomplete_line(run));
    out.push_str(&io500_table::render(&rows, &score));
    // English keeps the note as jobs::io500 wrote it; the catalogue's is the same text.
    out.push_str(&format!("{}\n", crate::t!("io500-differences")));
    out.push_str(&warning_lines(run));
    out
}

fn pts(run: &RunResult, json: bool) -> String {
    let tests = super::pts_table::rows(run);
    if json {
        return to_json(&run_with(run, &[("pts", serde_json::json!(tests))]));
    }
    let mut out = format!(
        "kura suite pts {} · {}\n",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        super::run_table::run_facts(run)
    );
    if let Some(j) = run.jobs.first() {
        out.push_str(&format!("{}: {}\n", term(&j.target.path), span_text(j)));
    }
    out.push_str(&incomplete_line(run));
    out.push_str(&warning_lines(run));
    out.push_str(&super::pts_table::render(&tests));
    out
}

fn db(run: &RunResult, json: bool) -> String {
    let rows = super::db_table::rows(run);
    if json {
        return to_json(&run_with(run, &[("tests", serde_json::json!(rows))]));
    }
    let mut out = super::db_table::header(run);
    out.push_str(&incomplete_line(run));
    out.push_str(&super::db_table::render(&rows));
    out.push_str(&format!("{}\n", crate::t!("dbrun-differences")));
    out.push_str(&super::device_lines::by_test(run));
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
        let mut extra = vec![("rows", serde_json::json!(rows))];
        if view.bonnie_csv {
            extra.push(("csv", serde_json::json!(lines)));
        }
        return to_json(&run_with(run, &extra));
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
        what.push(crate::t!("bonnie-file", size = bytes_human(size)));
    }
    if let Some(n) = files {
        what.push(crate::t!("bonnie-small-files", count = n));
    }
    what.extend(mem_limit_text(run));
    let mut out = format!(
        "kura bonnie {} · {}\n",
        crate::t!("run-id", id = run.id.unwrap_or(0)),
        utc(run.started_unix_s),
    );
    // Wrapped: a long directory and Japanese words can pass 80 columns.
    let place = format!(
        "{}{} · {}{}{}",
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
        what.join(&crate::t!("list-separator")),
        crate::t!("list-separator"),
        crate::t!("io-buffered"),
    );
    out.push_str(&super::width::wrap("", &place, 2));
    out.push_str(&incomplete_line(run));
    out.push_str(&bonnie_table::render(run));
    out.push_str(&super::device_lines::by_test(run));
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
        assert!(text("tiobench").contains(crate::jobs::suites::TIOBENCH_DIFFERENCES));
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
        assert_eq!(v["suite"], "sweep");
        assert_eq!(v["schema_version"], crate::report::SCHEMA_VERSION);
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(1));
    }
}
