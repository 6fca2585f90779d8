//! `kura show RUN`: a stored run, printed as the verb that made it printed it.

use std::io::IsTerminal;

use anyhow::{Result, anyhow};

use super::{Ctx, output_format};
use crate::cli::{ShowArgs, ShowFormat};
use crate::report::export::{self, Format};
use crate::report::mark_grid::{Figure, MarkUnit};
use crate::report::{View, emit, fio_output, render_run};

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
    // A mark grid as `kura mark --unit U --figure F` printed it.
    let unit = match &args.unit {
        Some(u) => MarkUnit::parse(u)
            .ok_or_else(|| anyhow!("--unit: '{u}' is not a unit (mbps, gbps, iops or us)"))?,
        None => MarkUnit::MbPerSec,
    };
    let figure = match &args.figure {
        Some(f) => {
            Figure::parse(f).ok_or_else(|| anyhow!("--figure: '{f}' is not valid: expected best or mean"))?
        }
        None => Figure::Best,
    };
    let store = ctx.read_store()?;
    let id = store.resolve(&args.run, args.latest)?;
    let run = store.load(id)?;
    if let Some(plus) = fio {
        emit(&fio_output::render(&run, plus))?;
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
                unit,
                figure,
                ..View::default()
            },
        ),
    };
    emit(&text)?;
    Ok(0)
}
