//! `kura report RUN... [-o FILE]`: stored runs as one self-contained HTML
//! file (inline CSS and SVG, no script, no network), or its data with --json
//! (to FILE as well).

use anyhow::Result;

use super::Ctx;
use crate::cli::ReportArgs;
use crate::metrics::RunResult;
use crate::report::html::{document, report, report_targets};
use crate::report::{emit, to_json};

pub fn run(ctx: &Ctx, args: ReportArgs) -> Result<i32> {
    let store = ctx.read_store()?;
    let page;
    let runs: Vec<RunResult>;
    if args.repeats {
        // Runs of one label are the repetitions of one target, as compare takes them.
        let targets = super::compare::load_targets(&store, &args.runs, false, true)?;
        runs = targets.iter().flat_map(|t| t.runs.iter().cloned()).collect();
        page = report_targets(&targets, None);
    } else {
        let mut loaded: Vec<RunResult> = Vec::new();
        for spec in &args.runs {
            let id = super::compare::resolve_one(&store, spec, args.latest)?;
            if loaded.iter().all(|r| r.id != Some(id)) {
                loaded.push(store.load(id)?);
            }
        }
        page = report(&loaded, None);
        runs = loaded;
    }
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
            super::write_output(
                path,
                &db,
                &[],
                crate::targets::output::Destroy::NoFlag,
                html.as_bytes(),
            )
            .map_err(|e| anyhow::anyhow!(e))?;
            if !ctx.quiet {
                eprintln!(
                    "{}",
                    crate::t!(
                        "output-wrote-report",
                        path = crate::report::escape::term(&path.display().to_string()).into_owned(),
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
