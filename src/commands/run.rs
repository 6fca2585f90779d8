//! `kura run`: one job from flags; a job file goes to `run_file`.

use anyhow::{Result, anyhow};

use super::{Ctx, exit_code, run_options};
use crate::cli::RunArgs;
use crate::jobs::Job;
use crate::runner;

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<i32> {
    if args.job_file.is_some() {
        return super::run_file::run(ctx, args);
    }
    super::run_file::check_output(ctx, &args.file, false)?;
    let mut job = Job::default();
    args.job.apply(&mut job).map_err(|e| anyhow!(e))?;
    job.validate()?;
    let jobs = vec![job];
    super::run_file::check_fio_logs(ctx, &jobs, args.common.allow_destroy.as_deref())?;
    if let Some(code) = super::cluster::run_as_rank(ctx, &jobs, &args)? {
        return Ok(code);
    }
    let opts = run_options(&args.common, ctx.quiet);
    // Checked before the database, then its row written before measuring,
    // so an unusable database fails in seconds, not after the run.
    let tests = jobs.iter().cloned().map(runner::SuiteJob::plain).collect();
    let notes = args.job.notes();
    let (result, stored) = super::measure_suite(
        ctx,
        &opts,
        |_| tests,
        |r| {
            let notes = notes
                .iter()
                .map(|n| crate::metrics::Warning::FioFlag { note: n.clone() });
            r.warnings.splice(0..0, notes);
        },
    )?;
    let printed = super::printed(
        super::print_run(&super::run_file::render_result(ctx, &args.file, &result)),
        &result,
    );
    let logs = super::run_file::write_fio_logs(ctx, &result, args.common.allow_destroy.as_deref());
    Ok(exit_code(&result, stored)
        .max(printed)
        .max(if logs { 0 } else { 1 }))
}
