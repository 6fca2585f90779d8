//! `kura suite tiobench|bonnie`: the classic suites with their own tables.

use anyhow::{Result, anyhow};

use super::{Ctx, stop_flag, suite_options};
use crate::cli::{BonnieArgs, TiobenchArgs};
use crate::metrics::RunResult;
use crate::report::{emit, format, tiobench_table, to_json};
use crate::runner::{self, SuiteJob};
use crate::spec::{Job, Rw};

/// tiobench's four tests in its order; each thread has its own file.
pub fn tiobench(ctx: &Ctx, args: TiobenchArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, "tiobench")?;
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
    let threads = base.threads as u64;
    let file_bytes = base.size_bytes.unwrap_or(0);
    let mut jobs = Vec::new();
    for (test, rw) in [
        ("Sequential Write", Rw::Write),
        ("Random Write", Rw::RandWrite),
        ("Sequential Read", Rw::Read),
        ("Random Read", Rw::RandRead),
    ] {
        for r in 0..runs {
            let mut job = Job {
                rw,
                name: format!("{test} #{}", r + 1),
                ..base.clone()
            };
            if rw.is_random() {
                job.io_count = Some(random_ops * threads);
            } else {
                job.io_size_bytes = Some(file_bytes * threads);
            }
            job.validate()?;
            jobs.push(SuiteJob {
                test: Some(test.to_string()),
                job,
            });
        }
    }
    let mut store = ctx.store()?;
    let stop = stop_flag()?;
    let mut result = runner::run_suite(&jobs, &opts, &stop)?;
    store.save(&mut result)?;
    print_tiobench(ctx, &result)?;
    Ok(if result.incomplete { 1 } else { 0 })
}

pub fn print_tiobench(ctx: &Ctx, run: &RunResult) -> Result<i32> {
    let rows = tiobench_table::rows(run);
    if ctx.json {
        emit(&to_json(&serde_json::json!({ "run": run, "rows": rows })))?;
        return Ok(0);
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura tiobench run {} · {} · {} threads x {} file, {} blocks, {}\n",
        run.id.unwrap_or(0),
        format::utc(run.started_unix_s),
        first.map(|j| j.job.threads).unwrap_or(0),
        first
            .map(|j| format::bytes_human(j.job.size_bytes.unwrap_or(0)))
            .unwrap_or_default(),
        first.map(|j| j.job.bs_text()).unwrap_or_default(),
        if first.is_some_and(|j| j.job.direct) {
            "O_DIRECT"
        } else {
            "buffered"
        },
    );
    if run.incomplete {
        out.push_str("INCOMPLETE: the run was stopped early; the numbers cover what ran.\n");
    }
    out.push_str(&tiobench_table::render(&rows));
    for w in &run.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    emit(&out)?;
    Ok(0)
}

pub fn bonnie(_ctx: &Ctx, _args: BonnieArgs) -> Result<i32> {
    anyhow::bail!("kura suite bonnie is not built yet")
}
