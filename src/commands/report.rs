//! `kura report RUN... [-o FILE]`: stored runs as one self-contained HTML
//! file (inline CSS and SVG, no script, no network), or its data with --json
//! (to FILE as well).

use anyhow::Result;

use super::Ctx;
use crate::cli::ReportArgs;
use crate::metrics::RunResult;
use crate::report::html::{document, report};
use crate::report::{emit, to_json};

pub fn run(ctx: &Ctx, args: ReportArgs) -> Result<i32> {
    let store = ctx.read_store()?;
    let mut runs: Vec<RunResult> = Vec::new();
    for spec in &args.runs {
        let id = store.resolve(spec, args.latest)?;
        if runs.iter().all(|r| r.id != Some(id)) {
            runs.push(store.load(id)?);
        }
    }
    let page = report(&runs, None);
    // With --json the data goes where the HTML would have gone: -o FILE or stdout.
    let html = if ctx.json {
        let value = serde_json::json!({ "title": page.title, "runs": runs, "tables": page.tables_json() });
        to_json(&value)
    } else {
        document(&page.title, "", &page.body)
    };
    match &args.output {
        Some(path) => {
            let db = ctx.db_path();
            super::write_output(path, &db, &[], html.as_bytes()).map_err(|e| anyhow::anyhow!(e))?;
            if !ctx.quiet {
                eprintln!(
                    "{}",
                    crate::t!(
                        "output-wrote-report",
                        path = path.display().to_string(),
                        runs = runs.len(),
                        kib = html.len().div_ceil(1024)
                    )
                );
            }
        }
        None => emit(&html)?,
    }
    Ok(0)
}
