//! `kura mark`: CrystalDiskMark's grid. Each test runs `--runs` times as
//! read, then as write, on one random-filled test file; the best run is
//! reported, the mean beside it, and every repetition is stored.

use std::io::IsTerminal;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag};
use crate::cli::MarkArgs;
use crate::metrics::RunResult;
use crate::metrics::repeats::{disagreement_warnings, summarize_tests};
use crate::report::mark_grid::{self, MarkUnit};
use crate::report::{emit, to_json};
use crate::runner::{self, SuiteJob};
use crate::spec::Job;
use crate::spec::presets::{PROFILES, mark_profile};
use crate::spec::units::parse_duration;

pub fn run(ctx: &Ctx, args: MarkArgs) -> Result<i32> {
    let tests = mark_profile(&args.profile).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|(n, _)| *n).collect();
        anyhow!(
            "--profile: unknown profile '{}' (known: {})",
            args.profile,
            names.join(", ")
        )
    })?;
    let unit = MarkUnit::parse(&args.unit)
        .ok_or_else(|| anyhow!("--unit: '{}' is not a unit (mbps, iops or us)", args.unit))?;
    let runs = super::parse_runs(&args.runs)?;
    let pause = parse_duration(&args.interval).map_err(|e| anyhow!("--interval: {e}"))?;
    let mut base = Job::default();
    for (key, value) in [
        ("size", &args.size),
        ("runtime", &args.runtime),
        ("engine", &args.engine),
    ] {
        base.set(key, value).map_err(|e| anyhow!("--{e}"))?;
    }
    if let Some(t) = &args.target {
        base.set("target", t).map_err(|e| anyhow!("{e}"))?;
    }
    let mut jobs = Vec::new();
    for test in tests {
        for write in [false, true] {
            for r in 0..runs {
                let mut job = test.job(&base, write);
                job.name = format!("{} #{}", job.name, r + 1);
                job.validate().map_err(|e| anyhow!("{}: {e}", test.name))?;
                jobs.push(SuiteJob {
                    test: Some(test.name.to_string()),
                    job,
                });
            }
        }
    }
    if jobs.is_empty() {
        bail!("the profile has no tests");
    }
    let stop = stop_flag()?;
    let mut opts = run_options(&args.common, ctx.quiet);
    opts.suite = Some(format!("mark:{}", args.profile));
    opts.pause = pause;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    result
        .warnings
        .extend(disagreement_warnings(&summarize_tests(&result)));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    print(ctx, &result, unit)?;
    Ok(exit_code(&result, stored))
}

/// Prints a mark run: the grid, or JSON with the run and its per-test summary.
pub fn print(ctx: &Ctx, run: &RunResult, unit: MarkUnit) -> Result<i32> {
    let summaries = summarize_tests(run);
    if ctx.json {
        emit(&to_json(&serde_json::json!({ "run": run, "tests": summaries })))?;
        return Ok(0);
    }
    let mut out = String::new();
    let id = run.id.map(|i| format!("run {i}")).unwrap_or_default();
    let target = run
        .jobs
        .first()
        .map(|j| j.target.path.clone())
        .unwrap_or_default();
    let size = run
        .jobs
        .first()
        .map(|j| crate::report::format::bytes_human(j.target.size_bytes))
        .unwrap_or_default();
    out.push_str(&format!(
        "kura mark {id} · {} · {} on {target} ({size}) · engine {}",
        crate::report::format::utc(run.started_unix_s),
        run.suite.as_deref().unwrap_or("mark"),
        run.jobs.first().map(|j| j.engine.as_str()).unwrap_or_default(),
    ));
    if let Some(label) = &run.label {
        out.push_str(&format!(" · label \"{label}\""));
    }
    out.push('\n');
    if run.incomplete {
        out.push_str("INCOMPLETE: the run was stopped early; the numbers cover what ran.\n");
    }
    out.push_str(&mark_grid::render(
        &summaries,
        unit,
        std::io::stdout().is_terminal(),
    ));
    for w in &run.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push_str(
        "MB/s = 10^6 bytes/s. The best run is shown, as CrystalDiskMark does, the mean beside it.\n",
    );
    if let Some(id) = run.id {
        out.push_str(&format!(
            "Every repetition with latency percentiles: kura show {id} --json\n"
        ));
    }
    emit(&out)?;
    Ok(0)
}
