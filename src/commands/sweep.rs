//! `kura sweep`: block size x read/write mix on one target.

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, stop_flag, suite_options};
use crate::cli::SweepArgs;
use crate::metrics::RunResult;
use crate::metrics::repeats::{disagreement_warnings, summarize_tests};
use crate::report::{emit, format, sweep_table, to_json};
use crate::runner::{self, SuiteJob};
use crate::spec::Job;
use crate::spec::sweep::{PTS_BLOCK_SIZES, PTS_READ_PCTS, parse_bs_list, parse_mix_list, points};

pub fn run(ctx: &Ctx, args: SweepArgs) -> Result<i32> {
    let (block_sizes, mixes) = match args.preset.as_deref() {
        Some("pts") => (PTS_BLOCK_SIZES.to_vec(), PTS_READ_PCTS.to_vec()),
        Some(other) => bail!("--preset: unknown preset '{other}' (known: pts)"),
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
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, "sweep")?;
    let mut base = Job::default();
    for (key, value) in [
        ("size", &args.size),
        ("runtime", &args.runtime),
        ("engine", &args.engine),
        ("qd", &args.qd),
        ("threads", &args.threads),
    ] {
        base.set(key, value).map_err(|e| anyhow!("--{e}"))?;
    }
    if let Some(t) = &args.target {
        base.set("target", t)?;
    }
    let jobs: Vec<SuiteJob> = points(&base, &block_sizes, &mixes, random, runs)
        .into_iter()
        .map(|p| {
            p.job.validate().map(|_| SuiteJob {
                test: Some(p.test),
                job: p.job,
            })
        })
        .collect::<Result<_, _>>()?;
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    result
        .warnings
        .extend(disagreement_warnings(&summarize_tests(&result)));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    print(ctx, &result)?;
    Ok(exit_code(&result, stored))
}

/// Prints a sweep run: a table per mix, or JSON with the run and its rows.
pub fn print(ctx: &Ctx, run: &RunResult) -> Result<i32> {
    let rows = sweep_table::rows(run);
    if ctx.json {
        emit(&to_json(&serde_json::json!({ "run": run, "rows": rows })))?;
        return Ok(0);
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura sweep run {} · {} · {} on {}",
        run.id.unwrap_or(0),
        format::utc(run.started_unix_s),
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
        first.map(|j| j.target.path.clone()).unwrap_or_default(),
    );
    if let Some(label) = &run.label {
        out.push_str(&format!(" · label \"{label}\""));
    }
    out.push('\n');
    if run.incomplete {
        out.push_str("INCOMPLETE: the run was stopped early; the numbers cover what ran.\n");
    }
    out.push_str(&sweep_table::render(&rows));
    for w in &run.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out.push_str(
        "IOPS and throughput are reads and writes together, mean of the runs; MiB/s = 2^20 bytes/s.\n",
    );
    emit(&out)?;
    Ok(0)
}
