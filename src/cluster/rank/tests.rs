//! Ranks as threads of this process, running real jobs (the null engine,
//! or real files in a temporary directory) through the real runner.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::*;
use crate::cluster::ThreadComm;
use crate::metrics::sink::NoSink;

fn job(keys: &[(&str, &str)]) -> Job {
    let mut j = Job::default();
    for (k, v) in keys {
        j.set(k, v).unwrap();
    }
    j
}

fn opts() -> RunOptions {
    RunOptions {
        quiet: true,
        ..RunOptions::default()
    }
}

/// Each rank's jobs (usually the same) run on `ranks` threads; rank 0's outcome first.
fn run_threads(jobs: Vec<Vec<Job>>, cluster: ClusterOptions) -> Vec<Result<Option<RunResult>, ClusterError>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = ThreadComm::group(jobs.len() as u32)
            .into_iter()
            .zip(&jobs)
            .map(|(c, jobs)| {
                let cluster = cluster.clone();
                s.spawn(move || {
                    let stop: StopFlag = Arc::new(AtomicBool::new(false));
                    run(&c, jobs, &opts(), &stop, &cluster, &mut NoSink)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn ranks_store_one_run_with_a_part_each() {
    let j = job(&[
        ("engine", "null"),
        ("runtime", "300ms"),
        ("interval", "100ms"),
        ("bs", "4k"),
    ]);
    let out = run_threads(vec![vec![j.clone()]; 3], ClusterOptions::default());
    let run = out[0].as_ref().unwrap().as_ref().unwrap();
    assert!(out[1..].iter().all(|o| matches!(o, Ok(None))));
    assert_eq!(run.jobs.len(), 1);
    let merged = &run.jobs[0];
    let c = merged.cluster.as_ref().unwrap();
    assert_eq!(c.ranks.len(), 3);
    assert_eq!(c.ranks.iter().map(|r| r.ops).sum::<u64>(), merged.total_ops());
    assert!(merged.total_ops() > 0);
    assert_eq!(c.last_done.ops, merged.total_ops());
    assert!(c.first_done.ops <= c.last_done.ops);
    let series_ops: u64 = merged.series.iter().map(|p| p.read_ops + p.write_ops).sum();
    assert_eq!(series_ops, merged.total_ops());
    assert!(merged.series.iter().all(|p| p.histogram.is_empty()));
    assert!(!run.incomplete);
}

#[test]
fn different_jobs_are_refused_naming_the_ranks() {
    let a = job(&[("engine", "null"), ("runtime", "100ms")]);
    let b = job(&[("engine", "null"), ("runtime", "200ms")]);
    let out = run_threads(vec![vec![a.clone()], vec![a], vec![b]], ClusterOptions::default());
    let Err(ClusterError::Refused(why)) = &out[0] else {
        panic!("{:?}", out[0].as_ref().map(|_| ()))
    };
    assert!(why.starts_with("ranks 2 ("), "{why}");
    assert!(why.contains("other jobs than rank 0"), "{why}");
    assert!(matches!(out[1], Err(ClusterError::EndedByRankZero)));
}

#[test]
fn another_kura_version_is_named() {
    let id = |kura: &str, host: &str| {
        serde_json::to_vec(&Identity {
            kura: kura.into(),
            jobs: "[]".into(),
            host: host.into(),
        })
        .unwrap()
    };
    let why = check_identities(&[
        id("0.1.0", "a"),
        id("0.2.0", "b"),
        id("0.1.0", "c"),
        id("0.3.0", "d"),
    ])
    .unwrap_err();
    assert!(
        why.starts_with("ranks 1 (b), 3 (d) run another kura version than rank 0's 0.1.0"),
        "{why}"
    );
    assert!(check_identities(&[id("0.1.0", "a"), id("0.1.0", "b")]).is_ok());
}

#[test]
fn file_per_rank_and_shared_files_are_made_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    let j = job(&[
        ("target", path.to_str().unwrap()),
        ("size", "1m"),
        ("engine", "sync"),
        ("rw", "randwrite"),
        ("io_count", "64"),
        ("bs", "4k"),
    ]);
    let out = run_threads(vec![vec![j.clone()]; 2], ClusterOptions::default());
    let run = out[0].as_ref().unwrap().as_ref().unwrap();
    let c = run.jobs[0].cluster.as_ref().unwrap();
    assert_eq!(c.ranks[1].target, format!("{}.1", path.display()));
    assert_eq!(run.jobs[0].write.as_ref().unwrap().ops, 128);
    assert_eq!(run.jobs[0].job.target.as_deref(), Some(path.as_path()));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "test files left: {left:?}");

    let shared = ClusterOptions {
        shared: true,
        ..ClusterOptions::default()
    };
    let out = run_threads(vec![vec![j.clone()]; 2], shared);
    let run = out[0].as_ref().unwrap().as_ref().unwrap();
    let c = run.jobs[0].cluster.as_ref().unwrap();
    assert!(c.shared);
    assert_eq!(c.ranks[1].target, path.display().to_string());
    assert_eq!(run.jobs[0].write.as_ref().unwrap().ops, 128);
    // Stored as the user gave it, not as rank 0's share.
    assert_eq!(
        (run.jobs[0].job.offset_bytes, run.jobs[0].job.size_bytes),
        (0, Some(1 << 20))
    );
    assert!(!path.exists(), "the shared test file is removed");
}

#[test]
fn a_rank_that_cannot_prepare_ends_the_run_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    // Rank 1's file name is taken by a directory.
    std::fs::create_dir(dir.path().join("t.dat.1")).unwrap();
    let j = job(&[
        ("target", path.to_str().unwrap()),
        ("size", "1m"),
        ("engine", "sync"),
        ("runtime", "1s"),
    ]);
    let out = run_threads(vec![vec![j.clone()]; 3], ClusterOptions::default());
    let Err(ClusterError::Refused(why)) = &out[0] else {
        panic!("rank 0 did not refuse")
    };
    assert!(why.starts_with("rank 1: "), "{why}");
    assert_eq!(
        why.matches("rank ").count(),
        1,
        "one rank failed, and it is named once: {why}"
    );
    assert!(why.contains("is a directory"), "{why}");
    assert!(
        out[1..]
            .iter()
            .all(|o| matches!(o, Err(ClusterError::EndedByRankZero)))
    );
    assert!(!dir.path().join("t.dat.0").exists());
    assert!(!dir.path().join("t.dat.2").exists());
}

#[test]
fn a_shared_file_too_small_for_its_shares_is_refused() {
    let j = job(&[("target", "/nonexistent/x"), ("size", "8k"), ("bs", "4k")]);
    let why = rank_job(&j, 0, 4, true).unwrap_err();
    assert!(
        why.contains("shared by 4 ranks leaves each less than the block size 4k"),
        "{why}"
    );
    let two = rank_job(&j, 1, 2, true).unwrap();
    assert_eq!((two.offset_bytes, two.size_bytes), (4096, Some(8192)));
}

#[test]
fn ranks_that_disagree_on_the_cluster_flags_are_refused() {
    let j = job(&[("engine", "null"), ("runtime", "100ms")]);
    let out = std::thread::scope(|s| {
        let handles: Vec<_> = ThreadComm::group(2)
            .into_iter()
            .map(|c| {
                let j = j.clone();
                s.spawn(move || {
                    let cluster = ClusterOptions {
                        stonewall: (c.rank() == 1).then_some(std::time::Duration::from_secs(1)),
                        ..ClusterOptions::default()
                    };
                    let stop: StopFlag = Arc::new(AtomicBool::new(false));
                    run(&c, &[j], &opts(), &stop, &cluster, &mut NoSink)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    let Err(ClusterError::Refused(why)) = &out[0] else {
        panic!("not refused")
    };
    assert!(why.contains("ranks 1 ("), "{why}");
}

/// Ctrl-C that reached one rank alone stops every rank at the same point
/// of the runner's loop (before the next job), as one process stops.
#[test]
fn a_stop_on_one_rank_stops_every_rank_at_the_same_job() {
    let j = job(&[("engine", "null"), ("runtime", "200ms")]);
    let out = std::thread::scope(|s| {
        let handles: Vec<_> = ThreadComm::group(3)
            .into_iter()
            .map(|c| {
                let jobs = vec![j.clone(), j.clone(), j.clone()];
                s.spawn(move || {
                    // Rank 2 was interrupted (Ctrl-C reached it alone).
                    let stop: StopFlag = Arc::new(AtomicBool::new(c.rank() == 2));
                    let out = run(&c, &jobs, &opts(), &stop, &ClusterOptions::default(), &mut NoSink);
                    (out, stop.load(std::sync::atomic::Ordering::Relaxed))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    assert!(
        out.iter().all(|(_, stopped)| *stopped),
        "every rank took the stop"
    );
    let run = out[0].0.as_ref().unwrap().as_ref().unwrap();
    assert!(run.jobs.is_empty(), "no rank measured a job the others skipped");
    assert!(run.incomplete);
    assert!(out[1..].iter().all(|(o, _)| matches!(o, Ok(None))));
}

#[test]
fn a_reordered_read_shifts_by_a_host_as_ior_does() {
    // IOR's -C -Q 1: one host over, however the ranks were dealt to hosts.
    assert_eq!(read_shift(&[true]), 0, "one rank reads its own");
    assert_eq!(read_shift(&[true, true, true, true]), 0, "one host: its own");
    // Round-robin over 4 hosts (rank 1 on another host): the next rank.
    assert_eq!(read_shift(&[true, false, false, false]), 1);
    // Round-robin over 2 hosts, 2 each: still the next rank, on the other host.
    assert_eq!(read_shift(&[true, false, true, false]), 1);
    // Host after host, 2 ranks each: two ranks on, the other host's first.
    assert_eq!(read_shift(&[true, true, false, false]), 2);
    assert_eq!(read_shift(&[true, true, true, false, false, false]), 3);
}

#[test]
fn ranks_learn_which_of_them_share_rank_zeros_host() {
    let hosts = ["a", "b", "a", "c"];
    let seen: Vec<Vec<bool>> = std::thread::scope(|s| {
        let handles: Vec<_> = ThreadComm::group(4)
            .into_iter()
            .map(|c| s.spawn(move || same_host_as_zero(&c, hosts[c.rank() as usize])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for each in seen {
        assert_eq!(each, vec![true, false, true, false]);
    }
}

/// The runner's one loop decides what a failure keeps, on one process and
/// on many ranks alike: the job before it is stored, the run is incomplete
/// and says why, and the job after it never runs.
#[test]
fn a_failing_job_keeps_the_jobs_before_it_on_one_process_and_on_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    // The target of one process and of ranks 0 and 1 is a directory: preparing it fails.
    for name in ["t.dat", "t.dat.0", "t.dat.1"] {
        std::fs::create_dir(dir.path().join(name)).unwrap();
    }
    let jobs = vec![
        job(&[("name", "first"), ("engine", "null"), ("runtime", "100ms")]),
        job(&[
            ("name", "broken"),
            ("target", path.to_str().unwrap()),
            ("engine", "sync"),
            ("rw", "read"),
            ("runtime", "100ms"),
        ]),
        job(&[("name", "after"), ("engine", "null"), ("runtime", "100ms")]),
    ];
    let stop: StopFlag = Arc::new(AtomicBool::new(false));
    let suite: Vec<SuiteJob> = jobs.iter().cloned().map(SuiteJob::plain).collect();
    let one = runner::run_suite(&suite, &opts(), &stop, &mut NoSink).unwrap();
    let ranks = run_threads(vec![jobs; 2], ClusterOptions::default());
    assert!(matches!(ranks[1], Err(ClusterError::EndedByRankZero)));
    let two = ranks[0].as_ref().unwrap().as_ref().unwrap();
    for run in [&one, two] {
        let names: Vec<&str> = run.jobs.iter().map(|j| j.job.name.as_str()).collect();
        assert_eq!(names, ["first"]);
        assert!(run.incomplete);
        let why: Vec<&String> = run
            .warnings
            .iter()
            .filter_map(|w| match w {
                Warning::StoppedAfterFailure { error } => Some(error),
                _ => None,
            })
            .collect();
        assert_eq!(why.len(), 1, "{:?}", run.warnings);
        assert!(why[0].contains("is a directory"), "{why:?}");
    }
    assert!(two.jobs[0].cluster.is_some(), "the ranks' job is merged");
}

/// Jobs that run together or in rounds would each run alone on every rank:
/// refused by name on every rank, before anything is made.
#[test]
fn group_and_until_steady_are_refused_on_ranks() {
    for (key, value) in [("group", "1"), ("until_steady", "iops")] {
        let j = job(&[("engine", "null"), ("runtime", "100ms"), (key, value)]);
        let out = run_threads(vec![vec![j]; 2], ClusterOptions::default());
        let Err(ClusterError::Refused(why)) = &out[0] else {
            panic!("{key} was not refused")
        };
        assert!(
            why.contains("group and until_steady do not run on many ranks yet"),
            "{why}"
        );
        assert!(matches!(out[1], Err(ClusterError::EndedByRankZero)));
    }
}
