//! `kura import fio RESULT.json`: another tool's result stored as a run;
//! `kura import run RUN.json`: a kura run saved as JSON stored again.

use anyhow::Result;

use super::{Ctx, output_format};
use crate::cli::{ImportArgs, ImportSource};
use crate::import::{fio_json, kura};
use crate::report::export::Format;
use crate::report::{emit, run_table, to_json};

pub fn run(ctx: &Ctx, args: ImportArgs) -> Result<i32> {
    let format = output_format(ctx, None)?;
    // Parse everything before opening the database: a bad file stores nothing.
    let (mut result, a, saved_run) = match args.source {
        ImportSource::Fio(a) => (fio_json::import_file(&a.file)?, a, false),
        ImportSource::Run(a) => (kura::import_file(&a.file)?, a, true),
    };
    // A saved kura run keeps its own label and price unless new ones are given.
    if a.label.is_some() {
        result.label = a.label;
    }
    if a.price.is_some() {
        result.price = a.price;
    }
    let mut store = ctx.store()?;
    // A run kura could not store goes back into the row it began with.
    let (id, own_row) = if saved_run {
        store.save_unsaved(&mut result)?
    } else {
        (store.save(&mut result)?, false)
    };
    if format == Format::Json {
        emit(&to_json(&result))?;
    } else {
        let row = if own_row {
            " (the row it began with, left unfinished when it could not be stored)"
        } else {
            ""
        };
        emit(&format!(
            "imported {} as run {id}{row} ({} job{})\n\n",
            a.file.display(),
            result.jobs.len(),
            if result.jobs.len() == 1 { "" } else { "s" }
        ))?;
        emit(&run_table::render_run(&result))?;
    }
    Ok(0)
}
