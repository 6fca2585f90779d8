//! `kura history`: stored runs, newest first.

use anyhow::Result;

use super::Ctx;
use crate::cli::HistoryArgs;
use crate::report::{emit, history, to_json};

pub fn run(ctx: &Ctx, args: HistoryArgs) -> Result<i32> {
    let store = ctx.store()?;
    let runs = store.list(args.label.as_deref(), args.suite.as_deref(), args.limit)?;
    if ctx.json {
        emit(&to_json(&runs))?;
    } else {
        emit(&history::render(&runs))?;
    }
    Ok(0)
}
