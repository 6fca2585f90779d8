//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use anyhow::Result;

use super::{Ctx, mark};
use crate::cli::ShowArgs;
use crate::report::{emit, run_table, to_json};

pub fn run(ctx: &Ctx, args: ShowArgs) -> Result<i32> {
    let store = ctx.store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    if run.suite.as_deref().is_some_and(|s| s.starts_with("mark")) {
        return mark::print(ctx, &run, crate::report::mark_grid::MarkUnit::MbPerSec);
    }
    if ctx.json {
        emit(&to_json(&run))?;
    } else if run.suite.as_deref() == Some("vdbench") {
        emit(&crate::report::vdbench::render(&run))?;
    } else {
        emit(&run_table::render_run(&run))?;
    }
    Ok(0)
}
