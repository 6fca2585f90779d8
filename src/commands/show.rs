//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use anyhow::Result;

use super::{Ctx, mark, output_format, suite, sweep};
use crate::cli::ShowArgs;
use crate::report::export::{self, Format};
use crate::report::{emit, run_table, to_json};

pub fn run(ctx: &Ctx, args: ShowArgs) -> Result<i32> {
    let format = output_format(ctx, args.format)?;
    let store = ctx.read_store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    match format {
        Format::Markdown => {
            emit(&(export::run_heading(&run) + &export::run_grid(&run, false).to_markdown()))?;
            return Ok(0);
        }
        Format::Csv => {
            emit(&export::run_grid(&run, true).to_csv())?;
            return Ok(0);
        }
        Format::Table | Format::Json => {}
    }
    let json = format == Format::Json;
    let ctx = Ctx {
        db: ctx.db.clone(),
        json,
        quiet: ctx.quiet,
    };
    match run.suite.as_deref() {
        Some(s) if s.starts_with("mark") => {
            return mark::print(&ctx, &run, crate::report::mark_grid::MarkUnit::MbPerSec);
        }
        Some("sweep") => return sweep::print(&ctx, &run),
        Some("tiobench") => return suite::print_tiobench(&ctx, &run),
        Some("bonnie") => return suite::print_bonnie(&ctx, &run, false),
        _ => {}
    }
    if json {
        emit(&to_json(&run))?;
    } else if run.suite.as_deref() == Some("vdbench") {
        emit(&crate::report::vdbench::render(&run))?;
    } else {
        emit(&run_table::render_run(&run))?;
    }
    Ok(0)
}
