//! `kura run`: one job from flags; a job file goes to `run_file`.

use anyhow::{Result, anyhow};

use super::{Ctx, run_options, stop_flag};
use crate::cli::RunArgs;
use crate::report::{emit, run_table, to_json};
use crate::runner;
use crate::spec::Job;

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<i32> {
    if args.job_file.is_some() {
        return super::run_file::run(ctx, args);
    }
    let flags = args.job.given();
    let mut job = Job::default();
    for (key, value) in &flags {
        job.set(key, value).map_err(|e| anyhow!("--{}", e))?;
    }
    job.validate()?;
    let jobs = vec![job];
    // Open the database before measuring, so a bad --db fails in a second, not after the run.
    let mut store = ctx.store()?;
    let stop = stop_flag()?;
    let opts = run_options(&args.common, ctx.quiet);
    let mut result = runner::run(&jobs, &opts, &stop)?;
    store.save(&mut result)?;
    if ctx.json {
        emit(&to_json(&result))?;
    } else {
        emit(&run_table::render_run(&result))?;
    }
    // Scripts learn from the exit code that the numbers are partial or include failed I/O.
    let failed_io = result
        .jobs
        .iter()
        .any(|j| j.directions().any(|(_, d)| d.errors > 0));
    Ok(if result.incomplete || failed_io { 1 } else { 0 })
}
