//! Jobs that run more than once: a job's preconditioning placed before it
//! (jobs::precondition), and jobs repeated in rounds until steady by SNIA
//! PTS 2.0.2's rule (metrics::steady). Each round is stored as a job of its
//! own, as it ends, so a long convergence loses nothing.

use std::sync::atomic::Ordering;

use super::{Progress, RunError, RunOptions, RunSink, StopFlag, SuiteJob};
use crate::jobs::EngineKind;
use crate::metrics::steady::{self, MAX_ROUNDS, Rounds, Tracked};
use crate::metrics::{JobResult, Warning};
use crate::targets::PreparedTarget;

/// The suite with each job's preconditioning placed before it.
pub(super) fn expand(jobs: &[SuiteJob]) -> Result<Vec<SuiteJob>, RunError> {
    let mut out = Vec::with_capacity(jobs.len());
    for sj in jobs {
        if sj.job.until_steady.is_some() && sj.job.group.is_some() {
            return Err(RunError::Invalid(format!(
                "{}: until_steady with group: jobs that run together cannot each be repeated until steady; run it on its own",
                sj.job.name
            )));
        }
        if let Some(p) = sj.job.precondition {
            if sj.job.group.is_some() {
                return Err(RunError::Invalid(format!(
                    "{}: precondition with group: jobs that run together share one preconditioning; give it to a job of its own before them",
                    sj.job.name
                )));
            }
            out.push(SuiteJob {
                test: Some(format!("precondition {p}")),
                job: p.job_before(&sj.job),
                rounds: None,
            });
        }
        out.push(sj.clone());
    }
    Ok(out)
}

/// Preconditioning writes the whole span. A job that writes has been handed
/// its target for writing and is checked as any write; a job that only reads
/// has not: its preconditioning may write a test file kura creates, but a
/// file or device that is already there only when `--allow-destroy` names it
/// (it used to rewrite a user's file that `--rw read` was asked to read).
pub(super) fn refuse_preconditioning_reads(jobs: &[SuiteJob], opts: &RunOptions) -> Result<(), RunError> {
    for sj in jobs {
        let job = &sj.job;
        if job.precondition.is_none() || job.modifies() || job.engine == EngineKind::Null {
            continue;
        }
        let path = crate::targets::job_path(job);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let named = opts
            .target
            .allow_destroy
            .as_deref()
            .and_then(|a| std::fs::metadata(a).ok())
            .is_some_and(|a| crate::targets::Identity::of(&a).matches(&meta));
        if !named {
            return Err(RunError::Invalid(format!(
                "{}: {} only reads, but its preconditioning would write over all of it, and kura did not \
                 create it; pass --allow-destroy {} to let it be overwritten (everything in it will be lost)",
                path.display(),
                job.name,
                path.display()
            )));
        }
    }
    Ok(())
}

/// What a run's loop lends to the rounds of one job.
pub(super) struct Ctx<'a> {
    pub opts: &'a RunOptions,
    pub stop: &'a StopFlag,
    pub warnings: &'a mut Vec<Warning>,
    pub progress: &'a Progress,
    pub created: &'a mut Vec<PreparedTarget>,
    pub sink: &'a mut dyn RunSink,
}

/// Measures one round of a job, whatever its kind (`Kinds::measure`), as
/// test `test`, storing its intervals through the sink.
pub(super) type MeasureRound<'m> = dyn FnMut(&crate::jobs::Job, &str, &mut dyn RunSink, &mut Vec<Warning>) -> Result<JobResult, RunError>
    + 'm;

/// Runs `round` (one job, or a PTS test's points) in rounds until every
/// point of `tracked_at` is steady by `tracked` (PTS 2.0.2's IOPS test
/// tracks three points, all of which must be steady), or 25 rounds ran;
/// each point of each round is handed to the sink and pushed to `results`
/// as it ends, as test `POINT round N`. Each tracked point gets its own
/// `rounds` verdict.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_rounds(
    round: &[SuiteJob],
    tracked_at: &[usize],
    tracked: Tracked,
    stop: &StopFlag,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    sink: &mut dyn RunSink,
    results: &mut Vec<JobResult>,
    measure: &mut MeasureRound<'_>,
) -> Result<(), RunError> {
    let followed: Vec<(usize, &SuiteJob)> = tracked_at
        .iter()
        .filter_map(|&at| round.get(at).map(|sj| (at, sj)))
        .collect();
    if followed.is_empty() {
        return Ok(());
    }
    // The tracked values of each followed point, round by round.
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); followed.len()];
    let mut outcome = Ok(());
    'rounds: for n in 1..=MAX_ROUNDS {
        for (at, sj) in round.iter().enumerate() {
            if stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            progress.message(&crate::t!(
                "progress-round",
                job = sj.job.name.as_str(),
                round = n,
                tracked = tracked.name()
            ));
            let base = sj.test.clone().unwrap_or_else(|| sj.job.name.clone());
            let test = format!("{base} round {n}");
            let mut r = match measure(&sj.job, &test, &mut *sink, warnings) {
                Ok(r) => r,
                Err(e) => {
                    outcome = Err(e);
                    break 'rounds;
                }
            };
            r.test = Some(test);
            if r.job.engine != EngineKind::Null {
                warnings.extend(crate::metrics::warning::of_job(&r));
            }
            sink.job_done(&r);
            let incomplete = r.incomplete;
            if let Some(k) = followed.iter().position(|(f, _)| *f == at) {
                values[k].push(steady::value_of(tracked, &r));
            }
            results.push(r);
            if incomplete {
                break 'rounds;
            }
        }
        if values
            .iter()
            .all(|v| steady::window(v).is_some_and(|w| w.steady()))
        {
            break;
        }
    }
    for ((_, sj), values) in followed.iter().zip(values) {
        if values.is_empty() {
            continue;
        }
        let window = steady::window(&values);
        let steady = window.as_ref().is_some_and(|w| w.steady());
        warnings.push(Warning::Rounds {
            job: sj.job.name.clone(),
            rounds: Rounds {
                tracked,
                values,
                window,
                steady,
            },
        });
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Job;

    fn sj(job: Job) -> SuiteJob {
        SuiteJob {
            test: None,
            job,
            rounds: None,
        }
    }

    #[test]
    fn preconditioning_goes_just_before_its_job_and_groups_are_refused() {
        let mut a = Job::default();
        a.set("name", "a").unwrap();
        let mut b = Job::default();
        b.set("name", "b").unwrap();
        b.set("precondition", "seq:3").unwrap();
        let out = expand(&[sj(a.clone()), sj(b.clone())]).unwrap();
        let names: Vec<&str> = out.iter().map(|s| s.job.name.as_str()).collect();
        assert_eq!(names, ["a", "b precondition", "b"]);
        assert_eq!(out[1].test.as_deref(), Some("precondition seq:3"));
        assert_eq!(out[1].job.passes, Some(3));
        b.set("group", "1").unwrap();
        let err = expand(&[sj(b)]).unwrap_err().to_string();
        assert!(err.starts_with("b: precondition with group"), "{err}");
        a.set("until_steady", "lat").unwrap();
        a.set("group", "1").unwrap();
        assert!(expand(&[sj(a)]).is_err());
    }

    /// Runs a round of jobs a, b, c tracking b, whose IOPS at round n is `b_iops(n)`; `incomplete_at` ends one early.
    fn run(
        b_iops: impl Fn(u32) -> u64,
        incomplete_at: Option<(u32, &str)>,
    ) -> (Vec<JobResult>, Vec<Warning>) {
        use crate::jobs::Rw;
        use crate::report::fixtures;
        let round: Vec<SuiteJob> = ["a", "b", "c"]
            .iter()
            .map(|n| {
                let mut j = Job::default();
                j.set("name", n).unwrap();
                sj(j)
            })
            .collect();
        let (stop, progress) = (StopFlag::default(), Progress::new(true));
        let (mut warnings, mut results) = (Vec::new(), Vec::new());
        let mut measure = |job: &Job, test: &str, _: &mut dyn RunSink, _: &mut Vec<Warning>| {
            let n: u32 = test.rsplit(' ').next().unwrap().parse().unwrap();
            let ops = if job.name == "b" {
                b_iops(n)
            } else {
                1000 + n as u64 * 300
            };
            let mut r = fixtures::job(&job.name, Rw::RandWrite, 4096, 0, None, Some(ops));
            r.job = job.clone();
            r.incomplete = incomplete_at == Some((n, job.name.as_str()));
            Ok(r)
        };
        run_rounds(
            &round,
            &[1],
            Tracked::Iops,
            &stop,
            &progress,
            &mut warnings,
            &mut crate::metrics::sink::NoSink,
            &mut results,
            &mut measure,
        )
        .unwrap();
        (results, warnings)
    }

    fn rounds_of(w: &[Warning]) -> &Rounds {
        match w.iter().find(|w| matches!(w, Warning::Rounds { .. })) {
            Some(Warning::Rounds { job, rounds }) => {
                assert_eq!(job, "b");
                rounds
            }
            _ => panic!("no rounds warning in {w:?}"),
        }
    }

    #[test]
    fn a_round_of_many_jobs_repeats_until_its_tracked_point_is_steady() {
        // a and c drift by 30 % a round; only b, tracked, decides.
        let (results, warnings) = run(|_| 5000, None);
        let tests: Vec<&str> = results.iter().filter_map(|r| r.test.as_deref()).collect();
        assert_eq!(tests.len(), 15);
        assert_eq!(&tests[..4], ["a round 1", "b round 1", "c round 1", "a round 2"]);
        assert_eq!(tests[14], "c round 5");
        let r = rounds_of(&warnings);
        assert!(r.steady);
        assert_eq!(r.values, [5000.0; 5]);

        let (results, warnings) = run(|n| 1000 * n as u64, None);
        assert_eq!(results.len(), 3 * MAX_ROUNDS as usize);
        let r = rounds_of(&warnings);
        assert!(!r.steady && r.values.len() == MAX_ROUNDS as usize);
    }

    #[test]
    fn a_point_that_stops_early_ends_the_rounds_with_what_was_measured() {
        let (results, warnings) = run(|n| 1000 * n as u64, Some((2, "c")));
        assert_eq!(results.len(), 6);
        assert_eq!(rounds_of(&warnings).values, [1000.0, 2000.0]);
        // Stopped before the tracked point: its round's value is not counted.
        let (results, warnings) = run(|n| 1000 * n as u64, Some((3, "a")));
        assert_eq!(results.len(), 7);
        assert_eq!(rounds_of(&warnings).values, [1000.0, 2000.0]);
    }
}
