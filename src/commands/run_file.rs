//! `kura run FILE`: the jobs of a kura TOML, fio or vdbench job file. Flags
//! given with the file override that key in every job.

use std::path::Path;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag};
use crate::cli::{JobFileArgs, RunArgs};
use crate::jobs::jobfile::{self, Format, LoadOptions, Plan};
use crate::metrics::Warning;
use crate::report::{View, render_run};
use crate::runner;

/// `--format fio-json` / `fio-json+`: print the run as fio's JSON (json+
/// when true); any other `--format` says how to read the job file.
pub fn fio_output(args: &JobFileArgs) -> Option<bool> {
    match args.format.as_deref()?.to_ascii_lowercase().as_str() {
        "fio-json" => Some(false),
        "fio-json+" | "fio-json-plus" => Some(true),
        _ => None,
    }
}

/// The run as `--format` and `--json` ask for it.
pub fn render_result(ctx: &Ctx, args: &JobFileArgs, result: &crate::metrics::RunResult) -> String {
    match fio_output(args) {
        Some(plus) => crate::report::fio_output::render(result, plus),
        None => render_run(
            result,
            &View {
                json: ctx.json,
                ..View::default()
            },
        ),
    }
}

/// Refuses, before anything runs, a fio log the jobs ask for that could not
/// be written: a link, a device, a database or a disk image at its name, a
/// missing or read-only directory (`targets::output::check_output`).
/// `allow_destroy` is the run's `--allow-destroy`.
pub fn check_fio_logs(ctx: &Ctx, jobs: &[crate::jobs::Job], allow_destroy: Option<&Path>) -> Result<()> {
    let db = ctx.db_path();
    let targets: Vec<_> = jobs.iter().map(crate::targets::job_path).collect();
    for path in crate::report::fio_logs::planned_paths(jobs) {
        crate::targets::output::check_output(
            &path,
            Some(&db),
            crate::targets::output::Replace::Any,
            &targets,
            crate::targets::output::Destroy::Flag(allow_destroy),
        )
        .map_err(|e| anyhow!("fio log: {e}"))?;
    }
    Ok(())
}

/// Writes the fio logs the run's jobs asked for (report/fio_logs.rs), after
/// the run is stored and printed; says which could not be written (a log
/// kura created and could not write is removed). Returns whether all were.
pub fn write_fio_logs(ctx: &Ctx, result: &crate::metrics::RunResult, allow_destroy: Option<&Path>) -> bool {
    let db = ctx.db_path();
    let targets: Vec<_> = result
        .jobs
        .iter()
        .map(|j| crate::targets::job_path(&j.job))
        .collect();
    let mut ok = true;
    for (path, text) in crate::report::fio_logs::logs(result) {
        let written = super::write_output(
            &path,
            &db,
            &targets,
            crate::targets::output::Destroy::Flag(allow_destroy),
            text.as_bytes(),
        );
        match written {
            Ok(()) if !ctx.quiet => {
                // The prefix comes from the job file (`write_bw_log=`).
                let path = crate::report::escape::term(&path.display().to_string()).into_owned();
                eprintln!("{}", crate::t!("output-wrote", path = path))
            }
            Ok(()) => {}
            Err(why) => {
                eprintln!(
                    "kura: error: the log was not written: {}",
                    crate::report::escape::term(&why)
                );
                ok = false;
            }
        }
    }
    ok
}

/// Refuses `--format` combinations before anything runs.
pub fn check_output(ctx: &Ctx, args: &JobFileArgs, has_file: bool) -> Result<()> {
    match (&args.format, fio_output(args)) {
        (Some(_), Some(_)) if ctx.json => bail!("--json and --format fio-json disagree: give one of them"),
        (Some(f), None) if !has_file => {
            bail!(
                "--format {f}: says how to read a job file, and none was given (fio-json or fio-json+ print the run as fio's JSON)"
            )
        }
        _ => Ok(()),
    }
}

pub fn load_plan(file: &Path, args: &JobFileArgs) -> Result<Plan> {
    let format = match &args.format {
        Some(_) if fio_output(args).is_some() => None,
        Some(f) => Some(
            Format::parse(f)
                .ok_or_else(|| anyhow!("--format: '{f}' is not toml, fio, vdbench, fio-json or fio-json+"))?,
        ),
        None => None,
    };
    let opts = LoadOptions {
        format,
        lenient: args.lenient,
    };
    Ok(jobfile::load(file, &opts)?)
}

/// Flags given with a job file override that key in every job, as `run`
/// and `explain` take them.
pub fn apply_flags(plan: &mut Plan, flags: &crate::cli::JobFlags) -> Result<()> {
    for planned in &mut plan.jobs {
        flags.apply(&mut planned.job).map_err(|e| anyhow!(e))?;
        planned.job.validate()?;
    }
    Ok(())
}

pub fn run(ctx: &Ctx, args: RunArgs) -> Result<i32> {
    let Some(file) = &args.job_file else {
        bail!("no job file given");
    };
    check_output(ctx, &args.file, true)?;
    let mut plan = load_plan(file, &args.file)?;
    if let Some(why) = &plan.cannot_run {
        bail!("{}: {why}", file.display());
    }
    if plan.jobs.is_empty() {
        bail!("{}: no job to run", file.display());
    }
    apply_flags(&mut plan, &args.job)?;
    let jobs: Vec<crate::jobs::Job> = plan.jobs.iter().map(|p| p.job.clone()).collect();
    check_fio_logs(ctx, &jobs, args.common.allow_destroy.as_deref())?;
    if let Some(code) = super::cluster::run_as_rank(ctx, &jobs, &args)? {
        return Ok(code);
    }
    let stop = stop_flag()?;
    let mut opts = run_options(&args.common, ctx.quiet);
    if plan.format == Format::Vdbench {
        opts.suite = Some(crate::jobs::suites::SuiteKind::Vdbench);
    }
    // Before the database: a job that would be refused leaves nothing behind.
    crate::runner::check_jobs_before_io(&jobs, &opts)?;
    // The run's row is written before measuring, so an unusable database fails in seconds, not after the run.
    let mut store = ctx.store()?;
    let header = run_header(&opts);
    let mut rec = store.begin_run(&header)?;
    let mut result = runner::run_plan(
        &plan.jobs,
        &opts,
        &stop,
        &mut super::sigbus::Guarded::new(ctx, &mut rec, header),
    )?;
    let notes = plan.warnings.iter().map(|w| Warning::JobFile { note: w.clone() });
    let flags = args
        .job
        .file_notes()
        .iter()
        .map(|n| Warning::FioFlag { note: n.clone() });
    result.warnings.splice(0..0, notes.chain(flags));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    let printed = super::printed(
        super::print_run(&render_result(ctx, &args.file, &result)),
        &result,
    );
    let logs = write_fio_logs(ctx, &result, args.common.allow_destroy.as_deref());
    Ok(exit_code(&result, stored)
        .max(printed)
        .max(if logs { 0 } else { 1 }))
}
