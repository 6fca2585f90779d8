//! One rank's part of a run that many ranks make together: the same jobs
//! on every rank (checked), each rank on its own file (the rank appended to
//! the name, as IOR's file-per-process) or on its share of one shared file,
//! the ranks meeting before preparation, before the ramp and after
//! measuring, and rank 0 merging every job as it ends and storing it.
//!
//! Every rank makes the same collective calls in the same order whatever
//! happens to it (a failure is a value it brings to the next meeting), so
//! a rank that fails ends the run on all ranks at that meeting instead of
//! leaving them waiting.

use std::cell::Cell;
use std::io::{Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::Communicator;
use super::stonewall::{self, Phase, PhaseDone};
use crate::jobs::Job;
use crate::jobs::job::DEFAULT_FILE_SIZE;
use crate::jobs::units::format_size;
use crate::metrics::cluster::{self as merging, RankJob};
use crate::metrics::collect::KEEP_INTERVAL_HISTOGRAMS;
use crate::metrics::latency_bound::{achieved_iops, verdict};
use crate::metrics::sink::RunSink;
use crate::metrics::{JobResult, RunResult, Warning};
use crate::runner::{self, FileSets, Progress, RunError, RunOptions, StopFlag, SuiteJob};
use crate::targets::{self, PreparedTarget};

/// How the ranks share the work.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    /// One shared file, each rank on its own region, instead of a file each.
    pub shared: bool,
    /// IO500's stonewall: a deadline, then wear-out to the largest count.
    pub stonewall: Option<Duration>,
    /// Per job, in the suite's order, when jobs differ (`kura suite io500`:
    /// ior-easy a file per rank, ior-hard one interleaved file); empty: the
    /// fields above for every job.
    pub jobs: Vec<JobCluster>,
}

/// How the ranks share one job of a suite whose jobs differ.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobCluster {
    pub shared: bool,
    pub stonewall: Option<Duration>,
    /// A shared sequential file in IOR's segments: rank r of N moves the
    /// block at `(s * N + r) * bs` for s = 0, 1, ... (IOR without -F).
    pub interleave: bool,
    /// IOR's `-C -Q 1` on a read: each rank reads what a rank one host
    /// away wrote (`read_shift`), so it cannot read its own writes back
    /// from its client's cache.
    pub reorder: bool,
}

impl ClusterOptions {
    /// The options of job `i`.
    fn for_job(&self, i: usize) -> (ClusterOptions, JobCluster) {
        match self.jobs.get(i) {
            Some(j) => (
                ClusterOptions {
                    shared: j.shared,
                    stonewall: j.stonewall,
                    jobs: Vec::new(),
                },
                j.clone(),
            ),
            None => (
                ClusterOptions {
                    jobs: Vec::new(),
                    ..self.clone()
                },
                JobCluster::default(),
            ),
        }
    }
}

/// How many ranks away the rank whose data a rank reads with IOR's
/// `-C -Q 1` is (hpc/ior 5fcf0ba, src/ior.c: `rankOffset =
/// (taskPerNodeOffset * shift) % numTasks`, shift 1 when ranks are dealt
/// to hosts round-robin, the number of ranks on rank 0's host when they
/// fill one host after another; src/utilities.c `QueryNodeMapping` calls
/// it the latter when rank 1 is on rank 0's host). `same_host_as_zero[r]`:
/// whether rank r runs on rank 0's host. 0 when all ranks share one host.
pub fn read_shift(same_host_as_zero: &[bool]) -> u32 {
    let size = same_host_as_zero.len() as u32;
    if size < 2 {
        return 0;
    }
    let by_host = same_host_as_zero[1];
    let shift = if by_host {
        same_host_as_zero.iter().filter(|s| **s).count() as u32
    } else {
        1
    };
    shift % size
}

/// Whether each rank runs on rank 0's host, known to every rank (its
/// hostname's hash against rank 0's, which the ranks agree on by a MAX).
fn same_host_as_zero<C: Communicator + ?Sized>(comm: &C, hostname: &str) -> Vec<bool> {
    use std::hash::{Hash, Hasher};
    // DefaultHasher::new() has fixed keys: the same name hashes the same in every rank.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hostname.hash(&mut h);
    let mine = h.finish().max(1);
    let zero = comm.all_max(if comm.rank() == 0 { mine } else { 0 });
    let same = mine == zero;
    (0..comm.size())
        .map(|r| comm.all_max(u64::from(comm.rank() == r && same)) == 1)
        .collect()
}

/// Rank `rank` of `size` on its blocks of a shared file in IOR's segments
/// (`interleave`): the whole file, starting at its own block and skipping
/// the others' after each one, as many blocks as its share.
fn interleaved(job: &Job, rank: u32, size: u32) -> Result<Job, String> {
    let mut mine = job.clone();
    let bs = job.max_bs();
    let total = job
        .size_bytes
        .unwrap_or(DEFAULT_FILE_SIZE)
        .saturating_sub(job.offset_bytes);
    let segments = total / bs / u64::from(size);
    if segments == 0 {
        return Err(format!(
            "{}: {} shared by {size} ranks leaves each less than the block size {}",
            targets::job_path(job).display(),
            format_size(total),
            format_size(bs)
        ));
    }
    mine.target = Some(targets::job_path(job));
    mine.offset_bytes = job.offset_bytes + u64::from(rank) * bs;
    mine.gap_bytes = u64::from(size - 1) * bs;
    mine.passes = None;
    mine.io_size_bytes = None;
    mine.io_count = Some(segments);
    Ok(mine)
}

#[derive(Debug, Error)]
pub enum ClusterError {
    /// Rank 0's account of why the run cannot go on (names the ranks).
    #[error("{0}")]
    Refused(String),
    /// The same refusal seen from another rank: rank 0 says why.
    #[error("rank 0 ended the run")]
    EndedByRankZero,
}

/// What a rank proves it is running before anything starts.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Identity {
    kura: String,
    jobs: String,
    host: String,
}

/// Rank 0's verdict on the ranks' identities: the ranks whose kura version
/// or jobs differ from rank 0's, named.
fn check_identities(all: &[Vec<u8>]) -> Result<(), String> {
    let ids: Vec<Option<Identity>> = all.iter().map(|b| serde_json::from_slice(b).ok()).collect();
    let Some(Some(zero)) = ids.first() else {
        return Err("rank 0 sent no identity".into());
    };
    let mut problems = Vec::new();
    let differ = |f: &dyn Fn(&Identity) -> bool| -> Vec<String> {
        ids.iter()
            .enumerate()
            .filter(|(_, id)| id.as_ref().is_none_or(f))
            .map(|(r, id)| match id {
                Some(id) => format!("{r} ({})", id.host),
                None => r.to_string(),
            })
            .collect()
    };
    let versions = differ(&|id| id.kura != zero.kura);
    if !versions.is_empty() {
        problems.push(format!(
            "ranks {} run another kura version than rank 0's {}",
            versions.join(", "),
            zero.kura
        ));
    }
    let jobs = differ(&|id| id.kura == zero.kura && id.jobs != zero.jobs);
    if !jobs.is_empty() {
        problems.push(format!(
            "ranks {} were given other jobs than rank 0 (a different job file or flags)",
            jobs.join(", ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}; every rank must run the same kura on the same job",
            problems.join("; ")
        ))
    }
}

/// All ranks learn whether any rank failed; rank 0 gets every failed
/// rank's reason, named. Each rank calls it at the same points.
fn settle<C: Communicator + ?Sized>(comm: &C, outcome: Result<(), String>) -> Result<(), ClusterError> {
    let text = outcome.as_ref().err().cloned().unwrap_or_default();
    let gathered = comm.gather(text.as_bytes());
    let failed = comm.all_max(u64::from(outcome.is_err()));
    if failed == 0 {
        return Ok(());
    }
    match gathered {
        Some(all) => Err(ClusterError::Refused(name_failures(&all))),
        None => Err(ClusterError::EndedByRankZero),
    }
}

fn name_failures(all: &[Vec<u8>]) -> String {
    all.iter()
        .enumerate()
        .filter(|(_, t)| !t.is_empty())
        .map(|(r, t)| format!("rank {r}: {}", String::from_utf8_lossy(t)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The job as one rank runs it: on `PATH.RANK`, or on its share of the
/// shared target.
pub fn rank_job(job: &Job, rank: u32, size: u32, shared: bool) -> Result<Job, String> {
    let mut mine = job.clone();
    if job.workload.fileset().is_some() {
        // A file set's target is its anchor directory: each rank makes its
        // set in a directory of its own there (mdtest's unique directory
        // per task), or every rank loads its share of one set's files.
        if !shared {
            let anchor = job.target.clone().unwrap_or_else(|| PathBuf::from("."));
            mine.target = Some(anchor.join(format!("kura-rank-{rank}")));
        }
        return Ok(mine);
    }
    let path = targets::job_path(job);
    if !shared {
        if targets::is_block_device(&path) {
            return Err(format!(
                "{}: a block device cannot take a file per rank; give --shared to give each rank \
                 its own region of it",
                path.display()
            ));
        }
        let mut name = path.into_os_string();
        name.push(format!(".{rank}"));
        mine.target = Some(PathBuf::from(name));
        return Ok(mine);
    }
    let total = match job.size_bytes {
        Some(s) => s,
        None => match std::fs::File::open(&path) {
            // The end of a device or file is its size (lseek works on both).
            Ok(mut f) => f
                .seek(SeekFrom::End(0))
                .map_err(|e| format!("{}: {e}", path.display()))?,
            Err(_) => DEFAULT_FILE_SIZE,
        },
    };
    let base = job.offset_bytes;
    let bs = job.max_bs().max(4096);
    let share = total.saturating_sub(base) / u64::from(size) / bs * bs;
    if share == 0 {
        return Err(format!(
            "{}: {} shared by {size} ranks leaves each less than the block size {}; give a \
             larger --size or run fewer ranks",
            path.display(),
            format_size(total.saturating_sub(base)),
            format_size(bs)
        ));
    }
    mine.target = Some(path);
    mine.offset_bytes = base + u64::from(rank) * share;
    mine.size_bytes = Some(mine.offset_bytes + share);
    Ok(mine)
}

fn now_unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// One rank's measurement of one job, before it travels to rank 0.
struct Measured {
    result: JobResult,
    start_unix_ns: u64,
    at_deadline: Option<(u64, u64)>,
}

fn ops_and_bytes(r: &JobResult) -> (u64, u64) {
    (r.total_ops(), r.directions().map(|(_, d)| d.bytes).sum())
}

/// Runs this rank's part of the jobs. Rank 0 returns the merged run (each
/// merged job also went to `sink` as it ended); the other ranks `None`.
pub fn run<C: Communicator + ?Sized>(
    comm: &C,
    jobs: &[Job],
    opts: &RunOptions,
    stop: &StopFlag,
    cluster: &ClusterOptions,
    sink: &mut dyn RunSink,
) -> Result<Option<RunResult>, ClusterError> {
    let tests: Vec<SuiteJob> = jobs
        .iter()
        .map(|j| SuiteJob {
            test: None,
            job: j.clone(),
        })
        .collect();
    run_suite(comm, &tests, opts, stop, cluster, sink)
}

/// Refuses what many ranks cannot run yet, before anything starts.
fn check_kind(job: &Job, cluster: &ClusterOptions) -> Result<(), String> {
    if job.workload.bonnie().is_some() || job.workload.database().is_some() {
        return Err(format!(
            "{}: bonnie and database jobs do not run on many ranks yet; run them on one host",
            job.name
        ));
    }
    if cluster.stonewall.is_some()
        && let Some(p) = job.workload.fileset()
        && !p.resolve().is_ok_and(|r| r.mix.makes_files())
    {
        return Err(format!(
            "{}: --stonewall on a file set is for phases that start with create (mix mdtest, \
             mdtest-shared or phases:create,...); a mixed file-set job ends at its runtime or io_count",
            job.name
        ));
    }
    if cluster.stonewall.is_some() && job.latency_limit_ns.is_some() {
        return Err(format!(
            "{}: --stonewall and latency_limit do not go together: a latency search sets each step's load",
            job.name
        ));
    }
    if job.latency_limit_ns.is_some() {
        runner::check_search(job).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A suite's jobs (`kura mark`, `sweep`: each job with its test) on many
/// ranks, paused between tests as `runner::run_suite` pauses.
pub fn run_suite<C: Communicator + ?Sized>(
    comm: &C,
    jobs: &[SuiteJob],
    opts: &RunOptions,
    stop: &StopFlag,
    cluster: &ClusterOptions,
    sink: &mut dyn RunSink,
) -> Result<Option<RunResult>, ClusterError> {
    let (rank, size) = (comm.rank(), comm.size());
    let host = targets::host_facts();
    let tests: Vec<&Option<String>> = jobs.iter().map(|j| &j.test).collect();
    let plain: Vec<&Job> = jobs.iter().map(|j| &j.job).collect();
    let identity = Identity {
        kura: env!("CARGO_PKG_VERSION").to_string(),
        // The cluster flags too: ranks that disagree on them would not meet
        // at the same points (a stonewall's extra meetings), and wait forever.
        jobs: format!(
            "{} tests={} shared={} stonewall={:?} pause={:?} jobs={:?}",
            serde_json::to_string(&plain).unwrap_or_default(),
            serde_json::to_string(&tests).unwrap_or_default(),
            cluster.shared,
            cluster.stonewall,
            opts.pause,
            cluster.jobs
        ),
        host: host.hostname.clone(),
    };
    let verdict = comm
        .gather(&serde_json::to_vec(&identity).unwrap_or_default())
        .map(|all| check_identities(&all));
    if comm.all_max(u64::from(matches!(verdict, Some(Err(_))))) != 0 {
        return Err(match verdict {
            Some(Err(why)) => ClusterError::Refused(why),
            _ => ClusterError::EndedByRankZero,
        });
    }
    let each: Vec<(ClusterOptions, JobCluster)> = (0..jobs.len()).map(|i| cluster.for_job(i)).collect();
    // Every rank takes this branch or none: the jobs were checked equal above.
    let shift = if each.iter().any(|(_, j)| j.reorder) {
        read_shift(&same_host_as_zero(comm, &host.hostname))
    } else {
        0
    };
    let mine: Result<Vec<Job>, String> = jobs
        .iter()
        .zip(&each)
        .map(|(j, (c, how))| {
            check_kind(&j.job, c)?;
            // The rank whose file or segments this one moves.
            let as_rank = if how.reorder { (rank + shift) % size } else { rank };
            match how.interleave {
                true => interleaved(&j.job, as_rank, size),
                false => rank_job(&j.job, as_rank, size, c.shared),
            }
        })
        .collect();
    settle(comm, mine.as_ref().map(|_| ()).map_err(Clone::clone))?;
    let mine = mine.unwrap_or_default();
    // Somebody's file at one of the suite's own names is refused before the
    // first job, not after the jobs before it have measured.
    let own = mine
        .iter()
        .try_for_each(runner::own_names_free)
        .map_err(|e| e.to_string());
    settle(comm, own)?;

    // Never switched off again: the process is a rank until it exits.
    KEEP_INTERVAL_HISTOGRAMS.store(true, Ordering::Relaxed);
    let started_unix_s = (now_unix_ns() / 1_000_000_000) as i64;
    let mut r = Rank {
        comm,
        opts,
        stop,
        cluster,
        host: host.clone(),
        progress: Progress::new(opts.quiet || rank != 0),
        warnings: Vec::new(),
        created: Vec::new(),
        sets: FileSets::default(),
        rank_dirs: Vec::new(),
        merged: Vec::new(),
        failure: None,
    };
    for (i, (sj, my_job)) in jobs.iter().zip(&mine).enumerate() {
        r.cluster = &each[i].0;
        let new_test = i > 0 && (jobs[i - 1].test != sj.test || jobs[i - 1].job.rw != sj.job.rw);
        if i > 0 && !opts.pause.is_zero() && (!opts.pause_between_tests || new_test) {
            pause(opts.pause, stop);
        }
        let go_on = if sj.job.latency_limit_ns.is_some() {
            r.search(sj, my_job, sink)
        } else {
            r.one_job(&sj.job, my_job, sj.test.as_deref(), sink).go_on
        };
        if !go_on {
            break;
        }
    }
    let Rank {
        mut warnings,
        created,
        mut sets,
        rank_dirs,
        merged: merged_jobs,
        failure,
        ..
    } = r;
    // Every rank is past its last I/O (the gather after each job), so a
    // shared file or set can go.
    sets.cleanup(opts.keep, &mut warnings);
    if opts.keep {
        created.iter().for_each(targets::keep);
    } else {
        for t in created.iter().rev() {
            if let Err(e) = targets::cleanup(t) {
                warnings.push(Warning::TestFileNotRemoved { error: e.to_string() });
            }
        }
        for d in rank_dirs.iter().rev() {
            // Only when empty: what is not kura's stays, as a set's cleanup leaves it.
            if let Err(e) = std::fs::remove_dir(d) {
                warnings.push(Warning::TestFileNotRemoved {
                    error: format!("{}: {e}", d.display()),
                });
            }
        }
    }
    // No rank leaves before every rank has cleaned up: a launcher ends the
    // others when the first one exits with an error.
    comm.barrier();
    if rank != 0 {
        return match failure {
            Some(_) => Err(ClusterError::EndedByRankZero),
            None => Ok(None),
        };
    }
    let incomplete =
        failure.is_some() || stop.load(Ordering::Relaxed) || merged_jobs.iter().any(|j| j.incomplete);
    if let Some(e) = failure {
        if merged_jobs.is_empty() {
            return Err(e);
        }
        // What the ranks measured before the failure is kept, as incomplete.
        warnings.push(Warning::StoppedAfterFailure { error: e.to_string() });
    }
    Ok(Some(RunResult {
        id: None,
        kura_version: env!("CARGO_PKG_VERSION").to_string(),
        started_unix_s,
        label: opts
            .label
            .clone()
            .or_else(|| jobs.iter().find_map(|j| j.job.label.clone())),
        price: opts.price.clone(),
        suite: opts.suite.clone(),
        host,
        jobs: merged_jobs,
        incomplete,
        warnings,
    }))
}

fn pause(total: Duration, stop: &StopFlag) {
    let until = std::time::Instant::now() + total;
    while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < until {
        std::thread::sleep(
            Duration::from_millis(50).min(until.saturating_duration_since(std::time::Instant::now())),
        );
    }
}

/// What one rank keeps from job to job.
struct Rank<'a, C: Communicator + ?Sized> {
    comm: &'a C,
    opts: &'a RunOptions,
    stop: &'a StopFlag,
    cluster: &'a ClusterOptions,
    host: crate::metrics::HostFacts,
    progress: Progress,
    warnings: Vec<Warning>,
    created: Vec<PreparedTarget>,
    sets: FileSets,
    /// The directories this rank made for its own file sets (`ANCHOR/kura-rank-R`).
    rank_dirs: Vec<PathBuf>,
    /// Rank 0: the jobs merged so far.
    merged: Vec<JobResult>,
    failure: Option<ClusterError>,
}

/// How one job on every rank ended.
struct JobDone {
    /// Every rank goes on to the next job (none failed or was stopped).
    go_on: bool,
    /// Rank 0: the merged job, also pushed and given to the sink.
    merged: Option<JobResult>,
}

impl<C: Communicator + ?Sized> Rank<'_, C> {
    /// One job measured by every rank (`job` as the user gave it, `mine`
    /// this rank's part), merged at rank 0 and given to `sink`.
    fn one_job(&mut self, job: &Job, mine: &Job, test: Option<&str>, sink: &mut dyn RunSink) -> JobDone {
        let (comm, rank, size) = (self.comm, self.comm.rank(), self.comm.size());
        let shared = self.cluster.shared;
        let fileset = mine.workload.fileset();
        // A shared test file or set is made once, by rank 0, before any rank opens it.
        if shared {
            let made = match fileset {
                _ if rank != 0 => Ok(()),
                Some(p) => self
                    .sets
                    .prepare(mine, p, self.stop, &self.progress, &mut self.warnings)
                    .map_err(|e| e.to_string()),
                None if !targets::job_path(job).exists() => targets::prepare(job, &self.opts.target)
                    .map(|t| self.created.push(t))
                    .map_err(|e| e.to_string()),
                None => Ok(()),
            };
            if let Err(e) = settle(comm, made) {
                self.failure = Some(e);
                return JobDone {
                    go_on: false,
                    merged: None,
                };
            }
        }
        if fileset.is_some() && !shared {
            self.own_directory(mine);
        }
        if fileset.is_some() && shared {
            crate::fileset::share_between_ranks(Some((rank * mine.threads, size * mine.threads)));
        }
        let warned_before = self.warnings.len();
        let outcome = measure(
            comm,
            mine,
            self.opts,
            self.stop,
            self.cluster,
            &mut self.warnings,
            &self.progress,
            &mut self.created,
            &mut self.sets,
        );
        crate::fileset::share_between_ranks(None);
        let payload: Result<RankJob, Option<String>> = outcome.map(|m| RankJob {
            rank,
            host: self.host.clone(),
            start_unix_ns: m.start_unix_ns,
            ops_at_deadline: m.at_deadline.map(|a| a.0),
            bytes_at_deadline: m.at_deadline.map(|a| a.1),
            result: m.result,
        });
        let bytes = serde_json::to_vec(&payload).unwrap_or_default();
        let gathered = comm.gather(&bytes);
        let any_failed = comm.all_max(u64::from(payload.is_err()));
        // Ctrl-C may reach some ranks only: all stop after this job, or none.
        let any_stopped = comm.all_max(u64::from(self.stop.load(Ordering::Relaxed)));
        let mut out = None;
        if let Some(all) = gathered {
            let (parts, failed) = unpack(&all);
            if !parts.is_empty() {
                // Rank 0's runner judged its own data against its host's
                // memory; the run's page cache is judged per host.
                let mut i = warned_before;
                while i < self.warnings.len() {
                    if matches!(self.warnings[i], Warning::PageCacheHoldsData { .. }) {
                        self.warnings.remove(i);
                    } else {
                        i += 1;
                    }
                }
                if let Some(w) = crate::cluster::page_cache::warning(&parts)
                    && !self.warnings.contains(&w)
                {
                    self.warnings.push(w);
                }
                let cluster = self.cluster;
                match merging::merge(&parts, shared, cluster.stonewall.map(|d| d.as_nanos() as u64)) {
                    Ok(mut merged) => {
                        merged.incomplete |= !failed.is_empty();
                        merged.test = test.map(str::to_string);
                        // The job as the user gave it, not rank 0's share or first phase.
                        merged.job.target = job.target.clone();
                        merged.job.rate_iops = job.rate_iops;
                        if shared {
                            merged.job.offset_bytes = job.offset_bytes;
                            merged.job.size_bytes = job.size_bytes;
                            merged.job.gap_bytes = job.gap_bytes;
                            merged.job.io_count = job.io_count;
                            merged.job.passes = job.passes;
                        }
                        if cluster.stonewall.is_some() {
                            merged.job.runtime = job.runtime.or(merged.job.runtime);
                        }
                        sink.job_done(&merged);
                        self.merged.push(merged.clone());
                        out = Some(merged);
                    }
                    Err(e) => failed_push(&mut self.warnings, e.to_string()),
                }
            }
            if !failed.is_empty() {
                self.failure = Some(ClusterError::Refused(failed.join("; ")));
            }
        } else if any_failed != 0 {
            self.failure = Some(ClusterError::EndedByRankZero);
        }
        if any_stopped != 0 {
            self.stop.store(true, Ordering::Relaxed);
        }
        JobDone {
            go_on: any_failed == 0 && any_stopped == 0,
            merged: out,
        }
    }

    /// This rank's own directory for a file set (`ANCHOR/kura-rank-R`),
    /// made when missing and removed at the end when empty.
    fn own_directory(&mut self, mine: &Job) {
        let dir = targets::job_path(mine);
        if !dir.exists() && std::fs::create_dir(&dir).is_ok() {
            self.rank_dirs.push(dir);
        }
    }

    /// A latency-bounded search on every rank: the offered rate is the
    /// total over the ranks (each rank offers its share); rank 0 judges
    /// each merged step and every rank's search takes its verdict.
    fn search(&mut self, sj: &SuiteJob, mine: &Job, sink: &mut dyn RunSink) -> bool {
        let (comm, rank, size) = (self.comm, self.comm.rank(), self.comm.size());
        // Every rank's steps draw with rank 0's seed.
        let seed = comm.all_max(if rank == 0 {
            sj.job.seed.unwrap_or_else(runner::clock_seed)
        } else {
            0
        });
        let mut go_on = true;
        let mut mine_base = mine.clone();
        mine_base.seed = Some(seed);
        runner::drive_search(&sj.job, seed, &mut |step| {
            if rank == 0 {
                self.progress.message(&runner::step_message(&step));
            }
            let mut my_step = mine_base.clone();
            my_step.latency_step = step.latency_step;
            my_step.runtime = step.runtime;
            my_step.qd = step.qd;
            my_step.threads = step.threads;
            // This rank's share of the total rate.
            my_step.rate_iops = step
                .rate_iops
                .map(|r| r / u64::from(size) + u64::from(u64::from(rank) < r % u64::from(size)));
            let done = self.one_job(&step, &my_step, sj.test.as_deref(), sink);
            let (held, achieved, incomplete) = match &done.merged {
                Some(m) => (
                    verdict(m).is_some_and(|v| v.held()),
                    achieved_iops(m),
                    m.incomplete,
                ),
                None => (false, 0.0, true),
            };
            // Rank 0's verdict, to every rank.
            let held = comm.all_max(u64::from(rank == 0 && held)) != 0;
            let achieved = f64::from_bits(comm.all_max(if rank == 0 { achieved.to_bits() } else { 0 }));
            let incomplete = comm.all_max(u64::from(rank == 0 && incomplete)) != 0;
            if !done.go_on {
                go_on = false;
                return None;
            }
            (!incomplete).then_some((held, achieved))
        });
        go_on
    }
}

fn failed_push(warnings: &mut Vec<Warning>, error: String) {
    warnings.push(Warning::StoppedAfterFailure { error });
}

/// The ranks' results as rank 0 received them, and the failures named.
fn unpack(all: &[Vec<u8>]) -> (Vec<RankJob>, Vec<String>) {
    let mut parts = Vec::new();
    let mut failed = Vec::new();
    for (r, bytes) in all.iter().enumerate() {
        match serde_json::from_slice::<Result<RankJob, Option<String>>>(bytes) {
            Ok(Ok(part)) => parts.push(part),
            Ok(Err(Some(why))) => failed.push(format!("rank {r}: {why}")),
            // It stopped because another rank failed; that one says why.
            Ok(Err(None)) => {}
            Err(e) => failed.push(format!("rank {r}: its result could not be read: {e}")),
        }
    }
    (parts, failed)
}

/// This rank's measurement of one job, meeting the other ranks before the
/// ramp (and, with a stonewall, at the deadline). Every rank meets them the
/// same number of times whether or not it got that far. Fails with the
/// rank's own error, or `None` when it stopped because another rank failed.
#[allow(clippy::too_many_arguments)]
fn measure<C: Communicator + ?Sized>(
    comm: &C,
    job: &Job,
    opts: &RunOptions,
    stop: &StopFlag,
    cluster: &ClusterOptions,
    warnings: &mut Vec<Warning>,
    progress: &Progress,
    created: &mut Vec<PreparedTarget>,
    sets: &mut FileSets,
) -> Result<Measured, Option<String>> {
    let start = Cell::new(0u64);
    let others_failed = Cell::new(false);
    let mut synced_run = |job: &Job, warnings: &mut Vec<Warning>, created: &mut Vec<PreparedTarget>| {
        let met = Cell::new(false);
        let mut ready = || -> Result<(), RunError> {
            met.set(true);
            settle(comm, Ok(())).map_err(|e| {
                others_failed.set(true);
                RunError::Invalid(e.to_string())
            })?;
            start.set(now_unix_ns() + job.ramp.as_nanos() as u64);
            Ok(())
        };
        let r = match job.workload.fileset() {
            Some(p) => sets.run(job, p, stop, progress, warnings, None, &mut ready),
            None => runner::run_job_synced(job, opts, stop, warnings, progress, created, &mut ready),
        };
        if let Err(e) = &r
            && !met.get()
        {
            // Prepared nothing: the others are waiting to hear it at the ramp's meeting.
            let _ = settle(comm, Err(e.to_string()));
        }
        r.map_err(|e| (!others_failed.get()).then(|| e.to_string()))
    };
    if let (Some(deadline), Some(p)) = (cluster.stonewall, job.workload.fileset()) {
        return stonewalled_fileset(comm, job, p, deadline, stop, progress, warnings, sets);
    }
    let Some(deadline) = cluster.stonewall else {
        let result = synced_run(job, warnings, created)?;
        return Ok(Measured {
            result,
            start_unix_ns: start.get(),
            at_deadline: None,
        });
    };
    let mut error = None;
    let outcome = stonewall::run(comm, deadline, |phase| {
        let r = match phase {
            Phase::UntilDeadline(d) => {
                let mut j = job.clone();
                j.runtime = Some(j.runtime.map_or(d, |r| r.min(d)));
                synced_run(&j, warnings, created)
            }
            Phase::WearOut(n) => {
                // The rest of the count on the target the first phase prepared: no ramp, no pause.
                let mut j = job.clone();
                j.runtime = None;
                j.io_size_bytes = None;
                j.passes = None;
                j.io_count = Some(n);
                j.ramp = Duration::ZERO;
                j.start_delay = Duration::ZERO;
                j.target = Some(targets::job_path(job));
                runner::run_job(&j, opts, stop, warnings, progress, created, None)
                    .map_err(|e| Some(e.to_string()))
            }
        };
        match r {
            Ok(result) => {
                let (ops, bytes) = ops_and_bytes(&result);
                PhaseDone {
                    result: Some(result),
                    ops,
                    bytes,
                }
            }
            Err(e) => {
                error = Some(e);
                PhaseDone {
                    result: None,
                    ops: 0,
                    bytes: 0,
                }
            }
        }
    });
    match outcome {
        Ok(s) => {
            let mut result = s.until_deadline;
            if let Some(more) = &s.wear_out {
                merging::append(&mut result, more).map_err(|e| Some(e.to_string()))?;
            }
            Ok(Measured {
                result,
                start_unix_ns: start.get(),
                at_deadline: Some((s.ops_at_deadline, s.bytes_at_deadline)),
            })
        }
        Err(stonewall::StonewallError::Failed) => Err(error.flatten()),
        Err(stonewall::StonewallError::OtherRankFailed) => Err(None),
    }
}

/// A file-set job whose create phase is stonewalled (`fileset::Stonewall`):
/// the ranks meet before the ramp, then agree on the largest count inside
/// the job (an all-reduce MAX; the MIN beside it is the merge's).
#[allow(clippy::too_many_arguments)]
fn stonewalled_fileset<C: Communicator + ?Sized>(
    comm: &C,
    job: &Job,
    p: &crate::jobs::fileset::FileSetParams,
    deadline: Duration,
    stop: &StopFlag,
    progress: &Progress,
    warnings: &mut Vec<Warning>,
    sets: &mut FileSets,
) -> Result<Measured, Option<String>> {
    let start = Cell::new(0u64);
    let others_failed = Cell::new(false);
    let met = Cell::new(false);
    let mut ready = || -> Result<(), RunError> {
        met.set(true);
        settle(comm, Ok(())).map_err(|e| {
            others_failed.set(true);
            RunError::Invalid(e.to_string())
        })?;
        start.set(now_unix_ns() + job.ramp.as_nanos() as u64);
        Ok(())
    };
    let mut agree = |local: u64| comm.all_max(local);
    let mut wall = crate::fileset::Stonewall::new(deadline, &mut agree);
    let r = sets.run_stonewalled(job, p, stop, progress, warnings, &mut ready, &mut wall);
    if let Err(e) = &r
        && !met.get()
    {
        let _ = settle(comm, Err(e.to_string()));
    }
    let at_deadline = Some(wall.at_deadline);
    let result = r.map_err(|e| (!others_failed.get()).then(|| e.to_string()))?;
    Ok(Measured {
        result,
        start_unix_ns: start.get(),
        at_deadline,
    })
}

#[cfg(test)]
mod tests;
