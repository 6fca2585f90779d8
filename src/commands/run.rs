//! `kura run`: one job from flags; a job file goes to `run_file`.

use anyhow::{Result, anyhow};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag};
use crate::cli::RunArgs;
use crate::jobs::Job;
use crate::report::{View, emit, render_run};
use crate::runner;

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
    let stop = stop_flag()?;
    let opts = run_options(&args.common, ctx.quiet);
    // The run's row is written before measuring, so an unusable database fails in seconds, not after the run.
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run(&jobs, &opts, &stop, &mut rec)?;
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
