//! `kura run FILE`: the jobs of a kura TOML, fio or vdbench job file. Flags
//! given with the file override that key in every job.

use std::path::Path;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag};
use crate::cli::{JobFileArgs, RunArgs};
use crate::jobs::jobfile::{self, Format, LoadOptions, Plan};
use crate::metrics::Warning;
use crate::report::{View, emit, render_run};
use crate::runner;

pub fn load_plan(file: &Path, args: &JobFileArgs) -> Result<Plan> {
    let format = match &args.format {
        Some(f) => {
            Some(Format::parse(f).ok_or_else(|| anyhow!("--format: '{f}' is not toml, fio or vdbench"))?)
        }
        None => None,
    };
    let opts = LoadOptions {
        format,
        lenient: args.lenient,
    };
    Ok(jobfile::load(file, &opts)?)
}

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<i32> {
    let Some(file) = &args.job_file else {
        bail!("no job file given");
    };
    let mut plan = load_plan(file, &args.file)?;
    if let Some(why) = &plan.cannot_run {
        bail!("{}: {why}", file.display());
    }
    if plan.jobs.is_empty() {
        bail!("{}: no job to run", file.display());
    }
    let flags = args.job.given();
    for planned in &mut plan.jobs {
        for (key, value) in &flags {
            planned
                .job
                .set(key, value)
                .map_err(|e| anyhow!("--{}: {e}", key.replace('_', "-")))?;
        }
        planned.job.validate()?;
    }
    let stop = stop_flag()?;
    let mut opts = run_options(&args.common, ctx.quiet);
    if plan.format == Format::Vdbench {
        opts.suite = Some(crate::jobs::suites::SuiteKind::Vdbench);
    }
    // The run's row is written before measuring, so an unusable database fails in seconds, not after the run.
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_plan(&plan.jobs, &opts, &stop, &mut rec)?;
    let notes = plan.warnings.iter().map(|w| Warning::JobFile { note: w.clone() });
    result.warnings.splice(0..0, notes);
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
