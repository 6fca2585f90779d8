//! `kura import fio RESULT.json`: another tool's result stored as a run.

use anyhow::Result;

use super::{Ctx, output_format};
use crate::cli::{ImportArgs, ImportSource};
use crate::import::fio;
use crate::report::export::Format;
use crate::report::{emit, run_table, to_json};

pub fn run(ctx: &Ctx, args: ImportArgs) -> Result<i32> {
    let ImportSource::Fio(a) = args.source;
    let format = output_format(ctx, None)?;
    // Parse everything before opening the database: a bad file stores nothing.
    let mut result = fio::import_file(&a.file)?;
    result.label = a.label;
    result.price = a.price;
    let mut store = ctx.store()?;
    let id = store.save(&mut result)?;
    if format == Format::Json {
        emit(&to_json(&result))?;
    } else {
        emit(&format!(
            "imported {} as run {id} ({} job{})\n\n",
            a.file.display(),
            result.jobs.len(),
            if result.jobs.len() == 1 { "" } else { "s" }
        ))?;
        emit(&run_table::render_run(&result))?;
    }
    Ok(0)
}
