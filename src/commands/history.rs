//! `kura history`: stored runs, newest first.

use anyhow::Result;

use super::{Ctx, output_format};
use crate::cli::HistoryArgs;
use crate::report::export::{self, Format};
use crate::report::{emit, history, to_json};

pub fn run(ctx: &Ctx, args: HistoryArgs) -> Result<i32> {
    // First: CSV and JSON are rendered in English, the figures of the runs too.
    let format = output_format(ctx, args.format)?;
    let store = ctx.read_store()?;
    let mut runs = store.list(args.label.as_deref(), args.suite.as_deref(), args.limit)?;
    history::represent(&store, &mut runs);
    for run in &runs {
        if let Some(why) = &run.unreadable {
            eprintln!(
                "kura: warning: run {} cannot be read ({why}); the other runs are listed",
                run.id
            );
        }
    }
    if runs.is_empty() && format == Format::Table && (args.label.is_some() || args.suite.is_some()) {
        let stored = store.suite_counts()?;
        emit(&history::nothing_matched(
            args.label.as_deref(),
            args.suite.as_deref(),
            &stored,
        ))?;
        return Ok(0);
    }
    match format {
        Format::Json => emit(&to_json(&serde_json::json!({ "runs": runs })))?,
        Format::Table => emit(&history::render(&runs))?,
        Format::Markdown => emit(&export::history_markdown(&runs))?,
        Format::Csv => emit(&export::history_grid(&runs, true).to_csv())?,
    }
    Ok(0)
}
