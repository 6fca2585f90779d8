//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use std::io::IsTerminal;

use anyhow::Result;

use super::{Ctx, output_format};
use crate::cli::ShowArgs;
use crate::report::export::{self, Format};
use crate::report::{View, emit, render_run};

pub fn run(ctx: &Ctx, args: ShowArgs) -> Result<i32> {
    let format = output_format(ctx, args.format)?;
    let store = ctx.read_store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    let text = match format {
        Format::Markdown => export::run_heading(&run) + &export::run_grid(&run, false).to_markdown(),
        Format::Csv => export::run_grid(&run, true).to_csv(),
        Format::Table | Format::Json => render_run(
            &run,
            &View {
                json: format == Format::Json,
                color: std::io::stdout().is_terminal(),
                ..View::default()
            },
        ),
    };
    emit(&text)?;
    Ok(0)
}
