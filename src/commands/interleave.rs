//! Several targets in one invocation (`kura mark A B C`, `kura sweep A B`):
//! their passes take turns (runner::run_interleaved), so that the machine's
//! drift falls on every target alike, and each target's passes are stored
//! as a run of its own, as if it had been measured alone, naming the runs
//! it took turns with (`interleaved_with`). docs/mark.md.

use anyhow::{Result, anyhow, bail};

use super::{Ctx, keep_run, run_header};
use crate::cli::ClusterArgs;
use crate::metrics::RunResult;
use crate::runner::{Lane, RunOptions, SuiteJob};

/// The targets as `target_arg::apply` takes them: none given is the one
/// default target.
pub fn targets(given: &[String]) -> Vec<Option<&str>> {
    match given {
        [] => vec![None],
        _ => given.iter().map(|t| Some(t.as_str())).collect(),
    }
}

/// Each target's label from the `--label`s given. With one target (or
/// none) one label, as before; `TARGET=LABEL` names its target. With
/// several, each label is `TARGET=LABEL`, and a target without one is
/// labelled with its name as given, so that `compare` tells them apart.
pub fn labels(targets: &[String], given: &[String]) -> Result<Vec<Option<String>>> {
    // The longest target the label starts with, then `=`: `/mnt/a=b` names `/mnt/a`.
    let named = |label: &str| {
        targets
            .iter()
            .enumerate()
            .filter(|(_, t)| label.len() > t.len() + 1 && label.starts_with(t.as_str()))
            .filter(|(_, t)| label.as_bytes()[t.len()] == b'=')
            .max_by_key(|(_, t)| t.len())
            .map(|(i, t)| (i, label[t.len() + 1..].to_string()))
    };
    let twice = targets
        .iter()
        .enumerate()
        .find(|(i, t)| targets[..*i].contains(t));
    if let Some((_, t)) = twice {
        bail!("{t}: the target is named twice");
    }
    let check = |l: String| crate::jobs::label::parse_label(&l).map_err(|e| anyhow!("--label: {e}"));
    if targets.len() <= 1 {
        return match given {
            [] => Ok(vec![None]),
            [one] => Ok(vec![Some(match named(one) {
                Some((_, label)) => check(label)?,
                None => one.clone(),
            })]),
            _ => bail!(
                "--label: given {} times; one target takes one label (several targets take one each: TARGET=LABEL)",
                given.len()
            ),
        };
    }
    let mut labels: Vec<Option<String>> = vec![None; targets.len()];
    for g in given {
        let Some((i, label)) = named(g) else {
            bail!(
                "--label: '{g}' names none of the targets: with several targets each label is TARGET=LABEL, e.g. --label {}=ssd",
                targets[0]
            );
        };
        if labels[i].is_some() {
            bail!("--label: {} is labelled twice", targets[i]);
        }
        labels[i] = Some(check(label)?);
    }
    for (label, target) in labels.iter_mut().zip(targets) {
        if label.is_none() {
            // A target whose name cannot be a label (a number reads as a run id) stays unlabelled.
            *label = crate::jobs::label::parse_label(target).ok();
        }
    }
    for (i, l) in labels.iter().enumerate() {
        if let Some(l) = l
            && labels[..i].iter().flatten().any(|o| o == l)
        {
            bail!(
                "--label: two targets are labelled '{l}': compare would take them for repetitions of one target"
            );
        }
    }
    Ok(labels)
}

/// Refuses two targets that are one file (a directory named twice, a file
/// named twice): their turns would be one target's passes stored twice.
pub fn distinct(lanes: &[Vec<SuiteJob>]) -> Result<()> {
    let paths: Vec<_> = lanes
        .iter()
        .map(|jobs| jobs.first().map(|j| crate::targets::job_path(&j.job)))
        .collect();
    for (i, p) in paths.iter().enumerate() {
        if let Some(p) = p
            && paths[..i].contains(&Some(p.clone()))
        {
            bail!("{}: the target is named twice", p.display());
        }
    }
    Ok(())
}

/// Several targets take turns in one process: not as ranks of many.
/// Before anything runs: the targets are distinct, several take turns only
/// in one process, and the notes on the targets are said (by rank 0 alone
/// on many ranks).
pub fn ready(lanes: &[Vec<SuiteJob>], cluster: &ClusterArgs, notes: Vec<String>, quiet: bool) -> Result<()> {
    distinct(lanes)?;
    if lanes.len() > 1 {
        refuse_ranks(cluster)?;
    }
    if !quiet && crate::cluster::launched_rank().unwrap_or(0) == 0 {
        for note in notes {
            eprint!(
                "{}",
                crate::report::width::wrap(&crate::t!("note-prefix"), &note, 2)
            );
        }
    }
    Ok(())
}

pub fn refuse_ranks(cluster: &ClusterArgs) -> Result<()> {
    if crate::cluster::launched_rank().is_some() || cluster.shared || cluster.stonewall.is_some() {
        bail!("several targets take turns in one process; on many ranks, name one target");
    }
    Ok(())
}

/// A target's run as kept: measured (and whether it is in the database),
/// or why it measured nothing.
pub type Kept = std::result::Result<(RunResult, bool), String>;

/// What `measure_suite` does for one run, for runs that take turns: every
/// lane checked before the database and before the first I/O of any, a
/// row per run, the runs measured in turn and stored job by job as they
/// go, `amend`, and each run kept naming the others (`interleaved_with`).
pub fn measure(
    ctx: &Ctx,
    opts: &RunOptions,
    labels: Vec<Option<String>>,
    lanes: Vec<Vec<SuiteJob>>,
    amend: impl Fn(&mut RunResult),
) -> Result<Vec<Kept>> {
    let opts: Vec<RunOptions> = labels
        .into_iter()
        .map(|label| RunOptions {
            label,
            ..opts.clone()
        })
        .collect();
    for (o, jobs) in opts.iter().zip(&lanes) {
        crate::runner::check_before_io(jobs, o)?;
    }
    let stop = super::stop_flag()?;
    // One connection a run: a recorder holds its store while the runs go on.
    let mut stores = Vec::with_capacity(lanes.len());
    for _ in &lanes {
        stores.push(ctx.store()?);
    }
    let mut recs = Vec::with_capacity(lanes.len());
    for (store, o) in stores.iter_mut().zip(&opts) {
        recs.push(store.begin_run(&run_header(o))?);
    }
    let ids: Vec<i64> = recs.iter().map(|r| r.run_id()).collect();
    let outcomes = {
        let lanes = lanes
            .into_iter()
            .zip(&opts)
            .zip(recs.iter_mut())
            .map(|((jobs, opts), sink)| Lane { jobs, opts, sink })
            .collect();
        crate::runner::run_interleaved(lanes, &stop)?
    };
    let mut kept = Vec::with_capacity(outcomes.len());
    for ((outcome, rec), id) in outcomes.into_iter().zip(recs.iter_mut()).zip(&ids) {
        kept.push(match outcome {
            Ok(mut result) => {
                result.interleaved_with = ids.iter().copied().filter(|o| o != id).collect();
                amend(&mut result);
                let stored = keep_run(ctx, rec, &mut result, &stop);
                Ok((result, stored))
            }
            Err(e) => Err(e.to_string()),
        });
    }
    Ok(kept)
}

/// Each run's report, in the order of the targets (with `--json` an array
/// of the runs), and the verb's exit code: the worst of the runs'; a
/// target that measured nothing is said on stderr and exits 1.
pub fn print(ctx: &Ctx, kept: &[Kept], render: &dyn Fn(&RunResult) -> String) -> i32 {
    let mut code = 0;
    let mut pages = Vec::new();
    for k in kept {
        match k {
            Ok((result, stored)) => {
                code = code.max(super::exit_code(result, *stored));
                pages.push(render(result));
            }
            Err(why) => {
                super::say(&format!("kura: error: {why}"));
                code = code.max(1);
            }
        }
    }
    let text = match ctx.json {
        true => {
            let runs: Vec<serde_json::Value> = pages
                .iter()
                .filter_map(|p| serde_json::from_str(p).ok())
                .collect();
            crate::report::to_json(&runs)
        }
        false => pages.join("\n"),
    };
    let printed = super::print_run(&text);
    // The first stored run names where the others are.
    let first = kept.iter().flatten().map(|(r, _)| r).next();
    match first {
        Some(r) => code.max(super::printed(printed, r)),
        None => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn several_targets_take_target_equals_label_and_default_to_their_names() {
        let targets = s(&["/dev/sdb", "/mnt/ssd", "/mnt/ssd2"]);
        let l = labels(&targets, &s(&["/mnt/ssd2=fast=one", "/dev/sdb=hdd"])).unwrap();
        assert_eq!(
            l,
            [
                Some("hdd".into()),
                Some("/mnt/ssd".into()),
                Some("fast=one".into())
            ]
        );
        let err = labels(&targets, &s(&["hdd"])).unwrap_err().to_string();
        assert!(err.contains("TARGET=LABEL"), "{err}");
        let err = labels(&targets, &s(&["/dev/sdb=a", "/mnt/ssd=a"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("two targets are labelled 'a'"), "{err}");
        let err = labels(&targets, &s(&["/dev/sdb=12"])).unwrap_err().to_string();
        assert!(err.contains("run id"), "{err}");
    }

    #[test]
    fn one_target_keeps_its_label_as_given() {
        let one = s(&["a.dat"]);
        assert_eq!(labels(&one, &s(&["x=y"])).unwrap(), [Some("x=y".into())]);
        assert_eq!(labels(&one, &s(&["a.dat=ssd"])).unwrap(), [Some("ssd".into())]);
        assert_eq!(labels(&[], &[]).unwrap(), [None]);
        assert!(labels(&one, &s(&["a", "b"])).is_err());
    }
}
