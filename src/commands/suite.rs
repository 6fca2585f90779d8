//! `kura suite tiobench|bonnie|db|io500`: the suites with their own tables.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, suite_options};
use crate::cli::{BonnieArgs, DbArgs, TiobenchArgs};
use crate::jobs::bonnie_params::{BonnieFlags, BonnieSettings, seed_of};
use crate::jobs::db_params::{DbParams, DbSettings, parse_tests};
use crate::jobs::suites::{SuiteKind, tiobench_jobs};
use crate::jobs::{Job, Opt, Value};
use crate::metrics::{RunResult, Warning};
use crate::report::{View, bonnie_table, render_run};
use crate::runner;
use crate::runner::SuiteJob;

/// tiobench's four tests (jobs::suites::tiobench_jobs) on DIR/kura-tiobench.dat, one file per thread.
pub fn tiobench(ctx: &Ctx, args: TiobenchArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Tiobench)?;
    let dir = std::path::PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let mut base = Job::default();
    args.job.apply(&mut base)?;
    let random_ops: u64 = args
        .random_ops
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("--random-ops: '{}' is not a positive number", args.random_ops))?;
    base.target = Some(dir.join("kura-tiobench.dat"));
    base.file_per_thread = true;
    let thread_counts = args
        .job
        .values(Opt::Threads)?
        .into_iter()
        .map(|v| match v {
            Value::Count(n) => u32::try_from(n).map_err(|_| anyhow!("--threads: {n} is out of range")),
            other => Err(anyhow!("--threads: unexpected value {other:?}")),
        })
        .collect::<Result<Vec<u32>>>()?;
    let jobs: Vec<SuiteJob> = tiobench_jobs(&base, &thread_counts, random_ops, runs)?
        .into_iter()
        .map(|t| SuiteJob {
            test: Some(t.test),
            job: t.job,
            rounds: None,
        })
        .collect();
    let view = View {
        json: ctx.json,
        ..View::default()
    };
    // On ranks, each rank runs tiotest's threads on files of its own
    // (DIR/kura-tiobench.dat.RANK.THREAD), every test started together;
    // the run's rates are the ranks' totals, as tiotest's are its threads'.
    let ranked = super::cluster::Ranked {
        opts: opts.clone(),
        view,
        finish: &|_| {},
    };
    let per_rank = vec![crate::cluster::rank::JobCluster::default(); jobs.len()];
    if let Some(code) = super::cluster::suite_as_ranks_per_job(ctx, &jobs, per_rank, ranked)? {
        return Ok(code);
    }
    let (result, stored) = super::measure_suite(ctx, &opts, |_| jobs, |_| {})?;
    let printed = super::printed(super::print_run(&render_run(&result, &view)), &result);
    Ok(exit_code(&result, stored).max(printed))
}

/// bonnie++'s tests on DIR/kura-bonnie.dat and DIR/kura-bonnie.d (see `bonnie`).
pub fn bonnie(ctx: &Ctx, args: BonnieArgs) -> Result<i32> {
    if let Some(code) = crate::cluster::refuse_many_ranks("kura suite bonnie")? {
        return Ok(code);
    }
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Bonnie)?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite bonnie writes only files it creates in DIR");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    // The table's flags, read by bonnie's rules (jobs::bonnie_params) on top of the table's parser.
    let flags = BonnieFlags {
        size: args.job.text(Opt::Size),
        chunk: args.job.text(Opt::Bs).unwrap_or("8k"),
        files: &args.files,
        char_size: args.char_size.as_deref(),
    };
    let mut capped = Job::default();
    args.job.apply(&mut capped)?;
    // Under a cap the cap is the memory bonnie++ would see (a kernel booted
    // with mem=): the default size and the page-cache warning follow it.
    let memory = capped
        .mem_limit_bytes
        .unwrap_or_else(runner::memory::usable_memory_bytes);
    let mut settings = BonnieSettings::from_flags(dir, flags, memory).map_err(|e| anyhow!(e))?;
    settings.runs = runs;
    settings.label = opts.label.clone();
    settings.mem_limit_bytes = capped.mem_limit_bytes;
    // The seed is the run's start, so the stored run says which it used (bonnie++'s CSV has it).
    let jobs = super::suite_jobs(settings.jobs(seed_of(super::run_header(&opts).started_unix_s)));
    // Before the warning: a DIR bonnie cannot use is one line.
    runner::refuse_up_front(jobs.iter().map(|j| &j.job), &opts)?;
    let cache = bonnie_cache_warning(&settings, memory);
    if let Some(w) = &cache
        && !ctx.quiet
    {
        eprint!(
            "{}",
            crate::report::width::wrap(
                &format!("kura: {}", crate::t!("warning-prefix")),
                &w.to_string(),
                2
            )
        );
    }
    let (result, stored) = super::measure_suite(
        ctx,
        &opts,
        |_| jobs,
        |result| {
            result.warnings.splice(0..0, cache);
            let disagree = bonnie_table::disagreement_warnings(result);
            result.warnings.extend(disagree);
        },
    )?;
    let printed = super::printed(
        super::print_run(&render_run(
            &result,
            &View {
                json: ctx.json,
                bonnie_csv: args.csv,
                ..View::default()
            },
        )),
        &result,
    );
    Ok(exit_code(&result, stored).max(printed))
}

/// The warning when the page cache can hold bonnie's test file: of the cap
/// under `--mem-limit`, in the runner's words for every kind, else of the
/// memory kura may use.
fn bonnie_cache_warning(settings: &BonnieSettings, memory_bytes: u64) -> Option<Warning> {
    match settings.mem_limit_bytes {
        Some(limit) => settings
            .fits_in(limit)
            .then_some(Warning::PageCacheHoldsDataUnderLimit {
                data_mb: settings.size_bytes / 1_000_000,
                limit_mb: limit / 1_000_000,
            }),
        None => settings
            .fits_in(memory_bytes)
            .then_some(Warning::BonnieFileCached {
                size_mb: settings.size_bytes >> 20,
                memory_mb: memory_bytes >> 20,
            }),
    }
}

/// sql-bench's tests and sysbench's OLTP mix on a database in DIR/kura-db (see `database`).
pub fn db(ctx: &Ctx, args: DbArgs) -> Result<i32> {
    if let Some(code) = crate::cluster::refuse_many_ranks("kura suite db")? {
        return Ok(code);
    }
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Db)?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite db writes only files it creates in DIR/kura-db");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    // Every flag but --tests is the table's, read onto a database job
    // (--time is its runtime by another name); the settings come from it.
    let mut read = DbParams::template();
    args.job.apply(&mut read)?;
    let time = match args.job.values(Opt::Runtime)?.first() {
        Some(Value::Duration(d)) => *d,
        other => bail!("--time: unexpected value {other:?}"),
    };
    let tests = parse_tests(&args.tests).map_err(|e| anyhow!(e))?;
    let mut settings = DbSettings::from_job(dir, &read, tests, time, runs).map_err(|e| anyhow!(e))?;
    settings.label = opts.label.clone();
    // The OLTP mix's seed is the run's start; the runner checks DIR and the server before anything is made.
    let jobs = |header: &RunResult| super::suite_jobs(settings.jobs(header.started_unix_s as u64));
    let (result, stored) = super::measure_suite(ctx, &opts, jobs, |_| {})?;
    let printed = super::printed(
        super::print_run(&render_run(
            &result,
            &View {
                json: ctx.json,
                ..View::default()
            },
        )),
        &result,
    );
    Ok(exit_code(&result, stored).max(printed))
}
