//! `kura mark`: CrystalDiskMark's grid. Each test runs `--runs` scored
//! passes after an unscored preparation, all reads before all writes (see
//! jobs::presets for the source); every pass is stored, and the grid shows
//! the best or the mean.

use std::io::IsTerminal;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, interleave, run_options, suite_jobs, target_arg};
use crate::cli::MarkArgs;
use crate::jobs::presets::Profile;
use crate::jobs::suites::{SuiteKind, mark_jobs};
use crate::jobs::units::parse_duration;
use crate::jobs::{Job, Opt};
use crate::metrics::repeats::{disagreement_warnings, summarize_mark};
use crate::report::mark_grid::{Figure, MarkUnit};
use crate::report::{View, render_run};

pub fn run(ctx: &Ctx, args: MarkArgs) -> Result<i32> {
    let profile =
        Profile::parse(&args.profile, args.setting.as_deref()).map_err(|e| match e.starts_with("--") {
            true => anyhow!(e),
            false => anyhow!("--profile: {e}"),
        })?;
    let unit = MarkUnit::parse(&args.unit)
        .ok_or_else(|| anyhow!("--unit: '{}' is not a unit (mbps, gbps, iops or us)", args.unit))?;
    let figure = Figure::parse(&args.figure)
        .ok_or_else(|| anyhow!("--figure: '{}' is not valid: expected best or mean", args.figure))?;
    let runs = super::parse_runs(&args.runs)?;
    let pause = match &args.interval {
        Some(text) => parse_duration(text).map_err(|e| anyhow!("--interval: {e}"))?,
        None => profile.setting.interval(),
    };
    let mut base = Job {
        runtime: Some(profile.setting.measure()),
        ..Job::default()
    };
    args.job.apply(&mut base)?;
    let labels = interleave::labels(&args.targets, &args.common.label)?;
    // One list of jobs per target, as each would run alone.
    let mut lanes = Vec::new();
    let mut notes = Vec::new();
    for target in interleave::targets(&args.targets) {
        let mut base = base.clone();
        notes.extend(target_arg::apply(&mut base, target, args.job.text(Opt::Size))?);
        lanes.push(suite_jobs(mark_jobs(&profile, &base, runs)?));
    }
    if lanes.iter().any(Vec::is_empty) {
        bail!("the profile has no tests");
    }
    interleave::ready(&lanes, &args.cluster, notes, ctx.quiet)?;
    let mut opts = run_options(&args.common, ctx.quiet);
    opts.label = labels[0].clone();
    opts.suite = Some(SuiteKind::Mark(Some(profile.name())));
    opts.pause = pause;
    opts.pause_between_tests = true;
    let view = View {
        json: ctx.json,
        unit,
        color: std::io::stdout().is_terminal(),
        figure,
        ..View::default()
    };
    if lanes.len() > 1 {
        let kept = interleave::measure(ctx, &opts, labels, lanes, |result| {
            let disagree = disagreement_warnings(&summarize_mark(result));
            result.warnings.extend(disagree);
        })?;
        return Ok(interleave::print(ctx, &kept, &|r| render_run(r, &view)));
    }
    let jobs = lanes.remove(0);
    let ranked = super::cluster::Ranked {
        opts: opts.clone(),
        view,
        finish: &|r: &mut crate::metrics::RunResult| {
            let more = disagreement_warnings(&summarize_mark(r));
            r.warnings.extend(more);
        },
    };
    if let Some(code) = super::cluster::suite_as_rank(ctx, &jobs, &args.cluster, ranked)? {
        return Ok(code);
    }
    // Before the database: a write that would be refused is refused before any read is measured.
    let (result, stored) = super::measure_suite(
        ctx,
        &opts,
        |_| jobs,
        |result| {
            let disagree = disagreement_warnings(&summarize_mark(result));
            result.warnings.extend(disagree);
        },
    )?;
    let printed = super::printed(super::print_run(&render_run(&result, &view)), &result);
    Ok(exit_code(&result, stored).max(printed))
}
