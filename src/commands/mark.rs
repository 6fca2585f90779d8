//! `kura mark`: CrystalDiskMark's grid. Each test runs `--runs` times as
//! read, then as write, on one random-filled test file; the best run is
//! reported, the mean beside it, and every repetition is stored.

use std::io::IsTerminal;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag, suite_jobs};
use crate::cli::MarkArgs;
use crate::jobs::Job;
use crate::jobs::presets::{PROFILES, mark_profile};
use crate::jobs::suites::{SuiteKind, mark_jobs};
use crate::jobs::units::parse_duration;
use crate::metrics::repeats::{disagreement_warnings, summarize_tests};
use crate::report::mark_grid::MarkUnit;
use crate::report::{View, emit, render_run};
use crate::runner;

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
    let jobs = suite_jobs(mark_jobs(tests, &base, runs)?);
    if jobs.is_empty() {
        bail!("the profile has no tests");
    }
    let stop = stop_flag()?;
    let mut opts = run_options(&args.common, ctx.quiet);
    opts.suite = Some(SuiteKind::Mark(Some(args.profile.clone())));
    opts.pause = pause;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    result
        .warnings
        .extend(disagreement_warnings(&summarize_tests(&result)));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    let view = View {
        json: ctx.json,
        unit,
        color: std::io::stdout().is_terminal(),
        ..View::default()
    };
    emit(&render_run(&result, &view))?;
    Ok(exit_code(&result, stored))
}
