//! `kura compare A B [C ...]`: stored runs side by side (report::compare).

use anyhow::{Result, bail};

use super::{Ctx, output_format};
use crate::cli::CompareArgs;
use crate::report::compare::{self, CompareOptions, Target};
use crate::report::emit;
use crate::store::Store;

pub fn run(ctx: &Ctx, args: CompareArgs) -> Result<i32> {
    let format = output_format(ctx, args.format)?;
    let store = ctx.read_store()?;
    let targets = load_targets(&store, &args.runs, args.latest, args.repeats)?;
    if targets.len() < 2 {
        bail!("{}", crate::t!("error-compare-two-runs"));
    }
    let baseline = match &args.baseline {
        None => 0,
        Some(b) => match args.runs.iter().position(|s| s == b) {
            Some(i) => i,
            None => {
                let id = resolve_one(&store, b, args.latest)?;
                targets
                    .iter()
                    .position(|t| t.runs.iter().any(|r| r.id == Some(id)))
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "{}",
                            crate::t!("error-compare-baseline-not-compared", spec = b.as_str(), id = id)
                        )
                    })?
            }
        },
    };
    if targets.iter().all(|t| {
        t.runs
            .iter()
            .all(|r| r.suite == Some(crate::jobs::suites::SuiteKind::Db))
    }) {
        return db(&targets, baseline, format);
    }
    let opts = CompareOptions {
        metric: args.metric,
        by: args.by,
        baseline,
        figure: args.figure,
    };
    let comparison = compare::build_targets(&targets, &opts)?;
    emit(&compare::render::render(&comparison, format))?;
    Ok(0)
}

/// The targets the arguments name, each a run or, with `repeats`, every
/// run of a label (its repetitions); a run named twice is refused.
pub(super) fn load_targets(
    store: &Store,
    specs: &[String],
    latest: bool,
    repeats: bool,
) -> Result<Vec<Target>> {
    let mut targets: Vec<Target> = Vec::new();
    let mut seen: Vec<i64> = Vec::new();
    for spec in specs {
        let ids = run_ids(store, spec, latest, repeats)?;
        for id in &ids {
            if seen.contains(id) {
                bail!(
                    "{}",
                    crate::t!("error-compare-named-twice", id = *id, spec = spec.as_str())
                );
            }
            seen.push(*id);
        }
        let runs = ids
            .iter()
            .map(|id| store.load(*id))
            .collect::<Result<Vec<_>, _>>()?;
        let name = match &runs[..] {
            [one] => one
                .label
                .clone()
                .unwrap_or_else(|| crate::t!("run-id", id = ids[0])),
            _ => spec.clone(),
        };
        targets.push(Target { name, runs });
    }
    Ok(targets)
}

/// The runs one argument names: with `repeats` a label names all its runs
/// (oldest first), otherwise exactly one run.
fn run_ids(store: &Store, spec: &str, latest: bool, repeats: bool) -> Result<Vec<i64>> {
    if repeats {
        let mut ids: Vec<i64> = store
            .list(Some(spec), None, 1_000_000)?
            .iter()
            .map(|r| r.id)
            .collect();
        if !ids.is_empty() {
            ids.reverse();
            return Ok(ids);
        }
    }
    Ok(vec![resolve_one(store, spec, latest)?])
}

/// One run by id, `latest` or label; a label of several runs is refused
/// with the ways out that compare and report offer (`--repeats` too).
pub(super) fn resolve_one(store: &Store, spec: &str, latest: bool) -> Result<i64> {
    match store.resolve(spec, latest) {
        Err(crate::store::StoreError::Ambiguous { spec, count, ids }) => bail!(
            "{}",
            crate::t!(
                "error-ambiguous-run-repeats",
                spec = spec.as_str(),
                count = count,
                ids = ids.as_str()
            )
        ),
        other => Ok(other?),
    }
}

/// Runs of `kura suite db`: sql-bench's seconds and the OLTP figures per test (report::db_table).
fn db(targets: &[Target], baseline: usize, format: crate::report::export::Format) -> Result<i32> {
    use crate::report::db_table;
    use crate::report::export::Format;
    // A target of several runs (--repeats) is shown by its newest run.
    let runs: Vec<&crate::metrics::RunResult> = targets.iter().filter_map(|t| t.runs.last()).collect();
    let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
    let rows = db_table::compare_rows(&runs, baseline);
    let notes = db_table::setting_notes(&runs);
    let text = match format {
        Format::Json => crate::report::to_json(&serde_json::json!({
            "targets": names,
            "baseline": baseline,
            "rows": rows,
            "notes": notes,
        })),
        Format::Csv => db_table::render_compare_delimited(&names, baseline, &rows, false),
        Format::Markdown => {
            let mut text = db_table::render_compare_delimited(&names, baseline, &rows, true);
            for n in &notes {
                text.push_str(&format!("\n{n}\n"));
            }
            text
        }
        Format::Table => {
            let mut text = db_table::render_compare(&names, baseline, &rows);
            for n in &notes {
                text.push_str(n);
                text.push('\n');
            }
            text
        }
    };
    emit(&text)?;
    Ok(0)
}
