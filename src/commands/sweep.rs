//! `kura sweep`: block size x read/write mix on one target.

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, suite_options};
use crate::cli::SweepArgs;
use crate::jobs::Job;
use crate::jobs::suites::SuiteKind;
use crate::jobs::sweep::{PTS_BLOCK_SIZES, PTS_READ_PCTS, parse_bs_list, parse_mix_list, points};
use crate::metrics::repeats::{disagreement_warnings, summarize_tests};
use crate::report::{View, render_run};
use crate::runner::SuiteJob;

pub fn run(ctx: &Ctx, args: SweepArgs) -> Result<i32> {
    let (block_sizes, mixes) = match args.preset.as_deref() {
        Some("iops-matrix-quick") => (PTS_BLOCK_SIZES.to_vec(), PTS_READ_PCTS.to_vec()),
        // It ran under this name without the PTS's purge, preconditioning or rounds.
        Some("pts") => bail!(
            "--preset pts is now --preset iops-matrix-quick: the PTS IOPS test's 7 mixes x 8 block sizes, measured once each, without the SNIA PTS's purge, preconditioning and steady-state rounds (docs/long-runs.md)"
        ),
        Some(other) => bail!("--preset: unknown preset '{other}' (known: iops-matrix-quick)"),
        None => (
            parse_bs_list(&args.bs).map_err(|e| anyhow!("--{e}"))?,
            parse_mix_list(&args.read_pct)?,
        ),
    };
    let random = match args.pattern.as_str() {
        "rand" | "random" => true,
        "seq" | "sequential" => false,
        other => bail!("--pattern: '{other}' is not valid: expected rand or seq"),
    };
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Sweep)?;
    let mut base = Job::default();
    for (key, value) in [
        ("runtime", &args.runtime),
        ("engine", &args.engine),
        ("qd", &args.qd),
        ("threads", &args.threads),
    ] {
        base.set(key, value).map_err(|e| anyhow!("--{e}"))?;
    }
    let note = super::target_arg::apply(&mut base, args.target.as_deref(), args.size.as_deref())?;
    let jobs: Vec<SuiteJob> = points(&base, &block_sizes, &mixes, random, runs)
        .into_iter()
        .map(|p| {
            p.job.validate().map(|_| SuiteJob {
                test: Some(p.test),
                job: p.job,
            })
        })
        .collect::<Result<_, _>>()?;
    // On many ranks, rank 0 says it once.
    if let Some(note) = note
        && !ctx.quiet
        && crate::cluster::launched_rank().unwrap_or(0) == 0
    {
        eprint!(
            "{}",
            crate::report::width::wrap(&crate::t!("note-prefix"), &note, 2)
        );
    }
    let ranked = super::cluster::Ranked {
        opts: opts.clone(),
        view: View {
            json: ctx.json,
            ..View::default()
        },
        finish: &|r: &mut crate::metrics::RunResult| {
            let more = disagreement_warnings(&summarize_tests(r));
            r.warnings.extend(more);
        },
    };
    if let Some(code) = super::cluster::suite_as_rank(ctx, &jobs, &args.cluster, ranked)? {
        return Ok(code);
    }
    let (result, stored) = super::measure_suite(
        ctx,
        &opts,
        |_| jobs,
        |result| {
            let disagree = disagreement_warnings(&summarize_tests(result));
            result.warnings.extend(disagree);
        },
    )?;
    let view = View {
        json: ctx.json,
        ..View::default()
    };
    let printed = super::printed(super::print_run(&render_run(&result, &view)), &result);
    Ok(exit_code(&result, stored).max(printed))
}
