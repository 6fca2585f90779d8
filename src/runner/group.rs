//! Jobs that run at the same time: fio's jobs between two stonewalls and
//! vdbench's workloads of one run. Targets are prepared one after another,
//! because two jobs may name the same file and must not both create it; then
//! every job measures in its own thread.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Progress, RunError, RunOptions, StopFlag, SuiteJob, block_kind, prepare_job, resolve};
use crate::metrics::JobResult;
use crate::targets::PreparedTarget;

/// How many jobs from `i` on belong to job `i`'s group (1 when it has none).
pub(super) fn len_at(jobs: &[SuiteJob], i: usize) -> usize {
    match jobs[i].job.group {
        None => 1,
        Some(g) => jobs[i..].iter().take_while(|j| j.job.group == Some(g)).count(),
    }
}

/// Runs `jobs` at the same time; one outcome per job, in order (fewer when preparing one failed).
pub(super) fn run_together(
    jobs: &[SuiteJob],
    opts: &RunOptions,
    stop: &StopFlag,
    warnings: &mut Vec<crate::metrics::Warning>,
    progress: &Progress,
    created: &mut Vec<PreparedTarget>,
) -> Vec<Result<JobResult, RunError>> {
    let all: Vec<&crate::jobs::Job> = jobs.iter().map(|sj| &sj.job).collect();
    // One process is in one memory cgroup: jobs running together cannot each have their own.
    if let Some(j) = all.iter().find(|j| j.mem_limit_bytes.is_some()) {
        return vec![Err(RunError::Invalid(format!(
            "{}: mem_limit cannot be used by jobs that run at the same time (group); run it on its own",
            j.name
        )))];
    }
    if let Err(e) = super::check_buffer_memory(&all, super::available_memory()) {
        return vec![Err(e)];
    }
    let mut ready = Vec::with_capacity(jobs.len());
    for sj in jobs {
        let job = resolve(&sj.job, warnings);
        let prepared = prepare_job(&job, opts, stop, progress);
        match prepared {
            Ok(p) => {
                super::note_caveats(&job, &p, created, warnings);
                ready.push((job, p))
            }
            Err(e) => {
                created.extend(ready.into_iter().flat_map(|(_, p)| p).filter(|p| p.created));
                return vec![Err(e)];
            }
        }
    }
    // Every flow's weights are in before the first job's threads start.
    let _flows = crate::worker::flow::announce(
        ready
            .iter()
            .filter(|(j, _)| j.flow > 0)
            .map(|(j, _)| (j.flow_id, j.flow * u64::from(j.threads))),
    );
    let names: Vec<&str> = ready.iter().map(|(j, _)| j.name.as_str()).collect();
    progress.message(&crate::t!("progress-together", jobs = names.join(", ")));
    // fio's exitall: the first job of the group to end stops the others.
    let exit_all = ready.iter().any(|(j, _)| j.exit_all);
    let group_stop: StopFlag = std::sync::Arc::new(AtomicBool::new(false));
    let jobs_done = AtomicBool::new(false);
    let job_stop = if exit_all { &group_stop } else { stop };
    // One live bar per job would make them overwrite each other's line.
    let quiet = Progress::new(true);
    let outcomes: Vec<(Result<JobResult, RunError>, Vec<crate::metrics::Warning>)> =
        std::thread::scope(|scope| {
            if exit_all {
                // Ctrl-C still stops every job: it reaches them through the group's flag.
                let (group_stop, jobs_done) = (&group_stop, &jobs_done);
                scope.spawn(move || {
                    while !jobs_done.load(Ordering::Relaxed) {
                        if stop.load(Ordering::Relaxed) {
                            group_stop.store(true, Ordering::Relaxed);
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                });
            }
            let group_stop = &group_stop;
            let handles: Vec<_> = ready
                .iter_mut()
                .map(|(job, prepared)| {
                    let quiet = &quiet;
                    let prepared = &prepared[..];
                    std::thread::Builder::new()
                        .name(super::thread_name(&job.name, ""))
                        .spawn_scoped(scope, move || {
                            let mut w = Vec::new();
                            // Jobs measured together are stored as each ends, without a live series.
                            let mut r = block_kind::measure(job, prepared, job_stop, &mut w, quiet, None);
                            if exit_all {
                                group_stop.store(true, Ordering::Relaxed);
                                // Ended by exitall, not by Ctrl-C: a whole result, as fio reports it.
                                if let Ok(res) = &mut r
                                    && !stop.load(Ordering::Relaxed)
                                {
                                    res.incomplete = false;
                                }
                            }
                            (r, w)
                        })
                })
                .collect();
            let joined: Vec<_> = handles
                .into_iter()
                .map(|h| match h.map(|h| h.join()) {
                    Ok(Ok(outcome)) => outcome,
                    Ok(Err(_)) => (Err(RunError::Invalid("a job thread panicked".into())), Vec::new()),
                    Err(e) => (
                        Err(RunError::Invalid(format!("cannot start a job thread: {e}"))),
                        Vec::new(),
                    ),
                })
                .collect();
            jobs_done.store(true, Ordering::Relaxed);
            joined
        });
    created.extend(ready.into_iter().flat_map(|(_, p)| p).filter(|p| p.created));
    outcomes
        .into_iter()
        .map(|(r, w)| {
            warnings.extend(w);
            r
        })
        .collect()
}
