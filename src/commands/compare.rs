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
    let mut targets: Vec<Target> = Vec::new();
    let mut seen: Vec<i64> = Vec::new();
    for spec in &args.runs {
        let ids = run_ids(&store, spec, &args)?;
        for id in &ids {
            if seen.contains(id) {
                bail!("run {id} is named twice ('{spec}' and an earlier argument): compare distinct runs");
            }
            seen.push(*id);
        }
        let runs = ids
            .iter()
            .map(|id| store.load(*id))
            .collect::<Result<Vec<_>, _>>()?;
        let name = match &runs[..] {
            [one] => one.label.clone().unwrap_or_else(|| format!("run {}", ids[0])),
            _ => spec.clone(),
        };
        targets.push(Target { name, runs });
    }
    if targets.len() < 2 {
        bail!("give at least two runs to compare (ids, labels or `latest`)");
    }
    let baseline = match &args.baseline {
        None => 0,
        Some(b) => match args.runs.iter().position(|s| s == b) {
            Some(i) => i,
            None => {
                let id = store.resolve(b, args.latest)?;
                targets
                    .iter()
                    .position(|t| t.runs.iter().any(|r| r.id == Some(id)))
                    .ok_or_else(|| {
                        anyhow::anyhow!("--baseline '{b}' (run {id}) is not one of the compared runs")
                    })?
            }
        },
    };
    let opts = CompareOptions {
        metric: args.metric,
        by: args.by,
        baseline,
    };
    let comparison = compare::build_targets(&targets, &opts)?;
    emit(&compare::render::render(&comparison, format))?;
    Ok(0)
}

/// The runs one argument names: with --repeats a label names all its runs
/// (oldest first), otherwise exactly one run.
fn run_ids(store: &Store, spec: &str, args: &CompareArgs) -> Result<Vec<i64>> {
    if args.repeats {
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
    Ok(vec![store.resolve(spec, args.latest)?])
}
