//! `kura suite tiobench|bonnie`: the classic suites with their own tables.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, stop_flag, suite_options};
use crate::bonnie::measure;
use crate::cli::{BonnieArgs, TiobenchArgs};
use crate::jobs::Job;
use crate::jobs::suites::{SuiteKind, tiobench_jobs};
use crate::report::{View, bonnie_table, emit, render_run};
use crate::runner;

/// tiobench's four tests (jobs::suites::tiobench_jobs) on DIR/kura-tiobench.dat, one file per thread.
pub fn tiobench(ctx: &Ctx, args: TiobenchArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Tiobench)?;
    let dir = std::path::PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let mut base = Job::default();
    base.set("threads", &args.threads).map_err(|e| anyhow!("--{e}"))?;
    base.set("size", &args.file_size)
        .map_err(|e| anyhow!("--file-size: {e}"))?;
    base.set("bs", &args.block).map_err(|e| anyhow!("--block: {e}"))?;
    let random_ops: u64 = args
        .random_ops
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("--random-ops: '{}' is not a positive number", args.random_ops))?;
    base.target = Some(dir.join("kura-tiobench.dat"));
    base.file_per_thread = true;
    base.direct = args.direct;
    let jobs = super::suite_jobs(tiobench_jobs(&base, random_ops, runs)?);
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    emit(&render_run(
        &result,
        &View {
            json: ctx.json,
            ..View::default()
        },
    ))?;
    Ok(exit_code(&result, stored))
}

/// bonnie++'s tests on DIR/kura-bonnie.dat and DIR/kura-bonnie.d (see bonnie::measure).
pub fn bonnie(ctx: &Ctx, args: BonnieArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Bonnie)?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite bonnie writes only files it creates in DIR");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let chunk = measure::parse_chunk(&args.chunk).map_err(|e| anyhow!("--chunk: {e}"))?;
    let memory = measure::usable_memory_bytes();
    let size = match &args.size {
        Some(text) => measure::parse_file_size(text).map_err(|e| anyhow!("--size: {e}"))?,
        None => measure::default_size(memory),
    };
    let files = measure::parse_files(&args.files).map_err(|e| anyhow!("--files: {e}"))?;
    if size == 0 && files == 0 {
        bail!("--size 0 and --files 0 leave no test to run");
    }
    let mut cfg = measure::Config::new(dir, size, chunk, files);
    cfg.runs = runs;
    cfg.label = opts.label.clone();
    measure::check_target(&cfg).map_err(|e| anyhow!(e))?;
    let cache = measure::cache_warning(size, memory);
    if let Some(w) = &cache
        && !ctx.quiet
    {
        eprintln!("kura: warning: {w}");
    }
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let header = run_header(&opts);
    let jobs: Vec<runner::SuiteJob> = measure::jobs(&cfg, measure::seed_of(header.started_unix_s))
        .into_iter()
        .map(|job| runner::SuiteJob {
            test: job.workload.bonnie().map(|p| p.test.clone()),
            job,
        })
        .collect();
    let mut rec = store.begin_run(&header)?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    result
        .warnings
        .splice(0..0, cache.map(crate::metrics::Warning::from));
    result
        .warnings
        .extend(bonnie_table::disagreement_warnings(&result));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    emit(&render_run(
        &result,
        &View {
            json: ctx.json,
            bonnie_csv: args.csv,
            ..View::default()
        },
    ))?;
    Ok(exit_code(&result, stored))
}
