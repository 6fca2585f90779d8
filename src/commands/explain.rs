//! `kura explain FILE`: the jobs a job file translates to, without running them.

use anyhow::Result;

use super::Ctx;
use super::run_file::load_plan;
use crate::cli::ExplainArgs;
use crate::report::emit;
use crate::report::explain::{plan_json, render_plan};

pub fn run(ctx: &Ctx, args: ExplainArgs) -> Result<i32> {
    if super::run_file::fio_output(&args.file).is_some() {
        anyhow::bail!("--format fio-json prints a run; explain prints jobs (use --json for them as JSON)");
    }
    let mut plan = load_plan(&args.job_file, &args.file)?;
    super::run_file::apply_flags(&mut plan, &args.job)?;
    plan.warnings.extend(args.job.file_notes().iter().cloned());
    if ctx.json {
        emit(&plan_json(&plan))?;
    } else {
        emit(&render_plan(&plan, &args.job_file.display().to_string()))?;
    }
    Ok(0)
}
