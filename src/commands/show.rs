//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use std::io::IsTerminal;

use anyhow::Result;

use super::{Ctx, output_format};
use crate::cli::{ShowArgs, ShowFormat};
use crate::report::export::{self, Format};
use crate::report::{View, emit, fio_json, render_run};

pub fn run(ctx: &Ctx, args: ShowArgs) -> Result<i32> {
    let fio = match args.format {
        Some(ShowFormat::FioJson) => Some(false),
        Some(ShowFormat::FioJsonPlus) => Some(true),
        _ => None,
    };
    let format = match args.format {
        Some(ShowFormat::Table) => Some(Format::Table),
        Some(ShowFormat::Markdown) => Some(Format::Markdown),
        Some(ShowFormat::Csv) => Some(Format::Csv),
        Some(ShowFormat::Json) => Some(Format::Json),
        Some(ShowFormat::FioJson | ShowFormat::FioJsonPlus) | None => None,
    };
    if fio.is_some() && ctx.json {
        anyhow::bail!("--json and --format fio-json disagree: give one of them");
    }
    let format = output_format(ctx, format)?;
    let store = ctx.read_store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    if let Some(plus) = fio {
        emit(&fio_json::render(&run, plus))?;
        return Ok(0);
    }
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
