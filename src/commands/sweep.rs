//! `kura sweep`: block size x read/write mix on one target.

use anyhow::{Result, anyhow, bail};

use super::{Ctx, interleave, suite_options};
use crate::cli::SweepArgs;
use crate::jobs::suites::SuiteKind;
use crate::jobs::sweep::{Axes, PTS_BLOCK_SIZES, PTS_READ_PCTS, points};
use crate::jobs::{Job, Opt, Value};
use crate::metrics::repeats::{disagreement_warnings, summarize_tests};
use crate::report::View;
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
            one_size_each(args.job.values(Opt::Bs)?)?,
            counts(args.job.values(Opt::ReadPct)?)?,
        ),
    };
    let random = match args.pattern.as_str() {
        "rand" | "random" => true,
        "seq" | "sequential" => false,
        other => bail!("--pattern: '{other}' is not valid: expected rand or seq"),
    };
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Sweep)?;
    let mut base = Job::default();
    args.job.apply(&mut base)?;
    let axes = Axes {
        block_sizes,
        mixes,
        qds: counts(args.job.values(Opt::Qd)?)?,
        threads: counts(args.job.values(Opt::Threads)?)?,
    };
    let labels = interleave::labels(&args.targets, &args.suite.common.label)?;
    // One list of points per target, as each would run alone.
    let mut lanes: Vec<Vec<SuiteJob>> = Vec::new();
    let mut notes = Vec::new();
    for target in interleave::targets(&args.targets) {
        let mut base = base.clone();
        notes.extend(super::target_arg::apply(
            &mut base,
            target,
            args.job.text(Opt::Size),
        )?);
        lanes.push(
            points(&base, &axes, random, runs)
                .into_iter()
                .map(|p| {
                    p.job.validate().map(|_| SuiteJob {
                        test: Some(p.test),
                        job: p.job,
                        rounds: None,
                    })
                })
                .collect::<Result<_, _>>()?,
        );
    }
    interleave::ready(&lanes, &args.cluster, notes, ctx.quiet)?;
    let mut opts = opts;
    opts.label = labels[0].clone();
    if lanes.len() > 1 {
        let kept = interleave::measure(ctx, &opts, labels, lanes, |result| {
            let disagree = disagreement_warnings(&summarize_tests(result));
            result.warnings.extend(disagree);
        })?;
        let view = View {
            json: ctx.json,
            ..View::default()
        };
        return Ok(interleave::print(ctx, &kept, &|r| {
            crate::report::render_run(r, &view)
        }));
    }
    let jobs = lanes.remove(0);
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
    Ok(super::print_measured(ctx, &result, stored))
}

/// `--bs`'s items: a sweep point has one block size, so a split is refused.
fn one_size_each(values: Vec<Value>) -> Result<Vec<u64>> {
    values
        .into_iter()
        .map(|v| match v {
            Value::BlockSizes(bs) if bs.len() == 1 => Ok(bs[0].bytes),
            Value::BlockSizes(bs) => bail!(
                "--bs: '{}' is not valid: a sweep point has one block size, not a split",
                crate::jobs::job::block_sizes_text(&bs)
            ),
            other => bail!("--bs: unexpected value {other:?}"),
        })
        .collect()
}

/// The items of a list of counts, each already within its option's bounds.
fn counts<N: TryFrom<u64>>(values: Vec<Value>) -> Result<Vec<N>> {
    values
        .into_iter()
        .map(|v| match v {
            Value::Count(n) => N::try_from(n).map_err(|_| anyhow!("{n} is out of range")),
            other => Err(anyhow!("unexpected value {other:?}")),
        })
        .collect()
}
