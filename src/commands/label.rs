//! `kura label RUN [LABEL] [--price P]`: name or price a stored run later.

use anyhow::{Result, bail};

use super::Ctx;
use crate::cli::LabelArgs;
use crate::report::{emit, to_json};

pub fn run(ctx: &Ctx, args: LabelArgs) -> Result<i32> {
    if args.label.is_none() && args.price.is_none() {
        bail!("give a label, --price, or both");
    }
    let mut store = ctx.existing_store()?;
    let id = store.resolve(&args.run, false)?;
    store.set_label(id, args.label.as_deref(), args.price.as_deref())?;
    let run = store.load(id)?;
    if ctx.json {
        emit(&to_json(
            &serde_json::json!({ "id": id, "label": run.label, "price": run.price }),
        ))?;
    } else {
        emit(&format!(
            "run {id}: label {}, price {}\n",
            run.label.as_deref().unwrap_or("(none)"),
            run.price.as_deref().unwrap_or("(none)")
        ))?;
    }
    Ok(0)
}
