//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use anyhow::Result;

use super::{Ctx, mark, suite, sweep};
use crate::cli::ShowArgs;
use crate::report::{emit, run_table, to_json};

pub fn run(ctx: &Ctx, args: ShowArgs) -> Result<i32> {
    let store = ctx.store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    match run.suite.as_deref() {
        Some(s) if s.starts_with("mark") => {
            return mark::print(ctx, &run, crate::report::mark_grid::MarkUnit::MbPerSec);
        }
        Some("sweep") => return sweep::print(ctx, &run),
        Some("tiobench") => return suite::print_tiobench(ctx, &run),
        Some("bonnie") => return suite::print_bonnie(ctx, &run, false),
        _ => {}
    }
    if ctx.json {
        emit(&to_json(&run))?;
    } else {
        emit(&run_table::render_run(&run))?;
    }
    Ok(0)
}
