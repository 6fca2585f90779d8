//! One rank's part of a run that many ranks make together: the same jobs
//! on every rank (checked), each rank on its own file (the rank appended to
//! the name, as IOR's file-per-process) or on its share of one shared file,
//! the ranks meeting before preparation, before the ramp and after
//! measuring, and rank 0 merging every job as it ends. The suite's loop is
//! the runner's (`runner::run_placed`); `Ranks` is what ranks add to it.
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
use crate::metrics::sink::RunSink;
use crate::metrics::{JobResult, RunResult, Warning};
use crate::runner::{self, Bench, Placed, Placement, RunError, RunOptions, StepVerdict, StopFlag, SuiteJob};
use crate::targets;

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
    if job.workload.kind().target_is_directory() {
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
    let tests: Vec<SuiteJob> = jobs.iter().cloned().map(SuiteJob::plain).collect();
    run_suite(comm, &tests, opts, stop, cluster, sink)
}

/// Refuses what many ranks cannot run yet, before anything starts.
fn check_kind(job: &Job, cluster: &ClusterOptions) -> Result<(), String> {
    if !job.workload.kind().runs_on_ranks() {
        return Err(format!(
            "{}: {} jobs do not run on many ranks yet; run them on one host",
            job.name,
            job.workload.kind().name()
        ));
    }
    // Each rank would measure alone what should run together or in rounds.
    if job.group.is_some() || job.until_steady.is_some() {
        return Err(format!(
            "{}: group and until_steady do not run on many ranks yet; run the job on one host",
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

/// A suite's jobs (`kura mark`, `sweep`, `suite io500`: each job with its
/// test) on many ranks, through the runner's one loop (`runner::run_placed`),
/// which pauses, stops, fails and cleans up as on one process.
pub fn run_suite<C: Communicator + ?Sized>(
    comm: &C,
    jobs: &[SuiteJob],
    opts: &RunOptions,
    stop: &StopFlag,
    cluster: &ClusterOptions,
    sink: &mut dyn RunSink,
) -> Result<Option<RunResult>, ClusterError> {
    let rank = comm.rank();
    // Rank 0 alone shows progress: the others may be other hosts' terminals.
    let opts = RunOptions {
        quiet: opts.quiet || rank != 0,
        ..opts.clone()
    };
    let mut ranks = Ranks {
        comm,
        cluster,
        each: Vec::new(),
        host: targets::host_facts(),
        hosts: Vec::new(),
        rank_dirs: Vec::new(),
        failure: None,
    };
    match runner::run_placed(jobs, &opts, stop, sink, &mut ranks) {
        Ok(run) => Ok((rank == 0).then_some(run)),
        Err(e) => Err(ranks.failure.take().unwrap_or(match rank {
            0 => ClusterError::Refused(e.to_string()),
            _ => ClusterError::EndedByRankZero,
        })),
    }
}

/// What one rank adds to the runner's loop, and keeps from job to job.
struct Ranks<'a, C: Communicator + ?Sized> {
    comm: &'a C,
    cluster: &'a ClusterOptions,
    /// How the ranks share each job, in the suite's order.
    each: Vec<ClusterOptions>,
    host: crate::metrics::HostFacts,
    /// At rank 0, every host the ranks' results came from, rank 0's first:
    /// the run's `hosts` (the report's Hosts table named rank 0's alone).
    hosts: Vec<crate::metrics::HostFacts>,
    /// The directories this rank made for its own file sets (`ANCHOR/kura-rank-R`).
    rank_dirs: Vec<PathBuf>,
    /// Why the run ended, as this rank says it (rank 0 names the ranks).
    failure: Option<ClusterError>,
}

impl<C: Communicator + ?Sized> Ranks<'_, C> {
    /// Keeps `e` for `run_suite` to return, and hands the runner its text.
    fn fail(&mut self, e: ClusterError) -> RunError {
        let text = e.to_string();
        self.failure = self.failure.take().or(Some(e));
        RunError::Invalid(text)
    }

    /// Every rank proves it runs the same kura on the same jobs with the
    /// same flags; rank 0 names the ranks that do not.
    fn check_identity(&self, jobs: &[SuiteJob], opts: &RunOptions) -> Result<(), ClusterError> {
        let comm = self.comm;
        let tests: Vec<&Option<String>> = jobs.iter().map(|j| &j.test).collect();
        let plain: Vec<&Job> = jobs.iter().map(|j| &j.job).collect();
        let cluster = self.cluster;
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
            host: self.host.hostname.clone(),
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
        Ok(())
    }

    /// Each job as this rank runs it, once every rank could derive its own.
    fn own_jobs(&mut self, jobs: &[SuiteJob], opts: &RunOptions) -> Result<Vec<Job>, ClusterError> {
        let (comm, rank, size) = (self.comm, self.comm.rank(), self.comm.size());
        let each: Vec<(ClusterOptions, JobCluster)> =
            (0..jobs.len()).map(|i| self.cluster.for_job(i)).collect();
        // Every rank takes this branch or none: the jobs were checked equal.
        let shift = if each.iter().any(|(_, j)| j.reorder) {
            read_shift(&same_host_as_zero(comm, &self.host.hostname))
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
        // What this rank's jobs will write, at the names the rank gives them
        // (`ANCHOR/kura-rank-R`, `PATH.R`), is checked before the first job:
        // somebody's file or set there is refused before any phase has measured.
        // A rank's own directory not made yet holds nothing to refuse (the rank makes it);
        // what the ranks share, rank 0 makes while the others look.
        let unmade = |j: &Job| {
            j.workload.kind().target_is_directory() && j.target.as_ref().is_some_and(|t| !t.exists())
        };
        let own = mine.iter().zip(&each).try_for_each(|(j, (c, _))| {
            runner::own_names_free(j).map_err(|e| e.to_string())?;
            if c.shared || unmade(j) {
                return Ok(());
            }
            runner::refuse_up_front(std::iter::once(j), opts).map_err(|e| e.to_string())
        });
        settle(comm, own)?;
        self.each = each.into_iter().map(|(c, _)| c).collect();
        Ok(mine)
    }
}

impl<C: Communicator + ?Sized> Placement for Ranks<'_, C> {
    fn place(&mut self, jobs: &[SuiteJob], opts: &RunOptions) -> Result<Placed, RunError> {
        let own = self
            .check_identity(jobs, opts)
            .and_then(|()| self.own_jobs(jobs, opts))
            .map_err(|e| self.fail(e))?;
        // Never switched off again: the process is a rank until it exits.
        KEEP_INTERVAL_HISTOGRAMS.store(true, Ordering::Relaxed);
        Ok(Placed {
            jobs: jobs.to_vec(),
            own,
        })
    }

    /// Ctrl-C may reach some ranks only: all stop at the same point, or none.
    fn stopped(&mut self, stop: &StopFlag) -> bool {
        let any = self.comm.all_max(u64::from(stop.load(Ordering::Relaxed))) != 0;
        if any {
            stop.store(true, Ordering::Relaxed);
        }
        any
    }

    fn measure(
        &mut self,
        i: usize,
        job: &SuiteJob,
        own: &Job,
        bench: &mut Bench<'_>,
    ) -> Result<Option<JobResult>, RunError> {
        let cluster = self.each.get(i).cloned().unwrap_or_default();
        if cluster.shared {
            // A shared test file or set is made once, by rank 0, before any rank opens it.
            let made = match self.comm.rank() {
                0 => bench.prepare_shared(&job.job, own).map_err(|e| e.to_string()),
                _ => Ok(()),
            };
            settle(self.comm, made).map_err(|e| self.fail(e))?;
        }
        if own.workload.kind().target_is_directory() && !cluster.shared {
            self.own_directory(own);
        }
        self.one_job(&job.job, own, &cluster, bench)
    }

    /// Rank 0's seed, for every rank's steps.
    fn agree_seed(&mut self, seed: u64) -> u64 {
        self.comm.all_max(if self.comm.rank() == 0 { seed } else { 0 })
    }

    /// The offered rate is the total over the ranks: each offers its share.
    fn share_step(&self, step: &Job, own: &Job) -> Job {
        let (rank, size) = (u64::from(self.comm.rank()), u64::from(self.comm.size()));
        let mut mine = own.clone();
        mine.seed = step.seed;
        mine.latency_step = step.latency_step;
        mine.runtime = step.runtime;
        mine.qd = step.qd;
        mine.threads = step.threads;
        mine.rate_iops = step.rate_iops.map(|r| r / size + u64::from(rank < r % size));
        mine
    }

    /// Rank 0 judged the merged step: every rank's search takes its verdict.
    fn agree_step(&mut self, kept: Option<StepVerdict>) -> StepVerdict {
        let comm = self.comm;
        let zero = comm.rank() == 0;
        let v = kept.unwrap_or(StepVerdict::NONE);
        StepVerdict {
            held: comm.all_max(u64::from(zero && v.held)) != 0,
            achieved_iops: f64::from_bits(comm.all_max(if zero { v.achieved_iops.to_bits() } else { 0 })),
            incomplete: comm.all_max(u64::from(zero && v.incomplete)) != 0,
        }
    }

    fn hosts(&self) -> Vec<crate::metrics::HostFacts> {
        self.hosts.clone()
    }

    /// The ranks' own directories go once their sets did; then no rank
    /// leaves before every rank has cleaned up: a launcher ends the others
    /// when the first one exits with an error.
    fn cleaned_up(&mut self, keep: bool, warnings: &mut Vec<Warning>) {
        if !keep {
            for d in self.rank_dirs.iter().rev() {
                // Only when empty: what is not kura's stays, as a set's cleanup leaves it.
                if let Err(e) = std::fs::remove_dir(d) {
                    warnings.push(Warning::TestFileNotRemoved {
                        error: format!("{}: {e}", d.display()),
                    });
                }
            }
        }
        self.comm.barrier();
    }
}

impl<C: Communicator + ?Sized> Ranks<'_, C> {
    /// One job measured by every rank (`job` as the user gave it, `mine`
    /// this rank's part) and gathered at rank 0, which returns it merged.
    fn one_job(
        &mut self,
        job: &Job,
        mine: &Job,
        cluster: &ClusterOptions,
        bench: &mut Bench<'_>,
    ) -> Result<Option<JobResult>, RunError> {
        let (comm, rank, size) = (self.comm, self.comm.rank(), self.comm.size());
        if cluster.shared && mine.workload.fileset().is_some() {
            crate::fileset::share_between_ranks(Some((rank * mine.threads, size * mine.threads)));
        }
        let warned_before = bench.warnings().len();
        let outcome = measure(comm, mine, cluster, bench);
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
        let (parts, failed) = comm.gather(&bytes).as_deref().map(unpack).unwrap_or_default();
        for p in &parts {
            if !self.hosts.iter().any(|h| h.hostname == p.host.hostname) {
                self.hosts.push(p.host.clone());
            }
        }
        // A part rank 0 could not read ends the run too: every rank hears it here.
        let any_failed = comm.all_max(u64::from(payload.is_err() || !failed.is_empty())) != 0;
        if rank != 0 {
            return match any_failed {
                true => Err(self.fail(ClusterError::EndedByRankZero)),
                false => Ok(None),
            };
        }
        let merged = match parts.is_empty() {
            true => None,
            false => merge_at_zero(
                job,
                &parts,
                !failed.is_empty(),
                cluster,
                bench.warnings(),
                warned_before,
            ),
        };
        if any_failed {
            let why = match failed.is_empty() {
                // Every failed rank stopped for another's failure, which that one named.
                true => "a rank stopped the run".to_string(),
                false => failed.join("; "),
            };
            let e = self.fail(ClusterError::Refused(why));
            match merged {
                // What the ranks measured is kept, and the run ends after it.
                Some(_) => bench.fail(e),
                None => return Err(e),
            }
        }
        Ok(merged)
    }

    /// This rank's own directory for a file set (`ANCHOR/kura-rank-R`),
    /// made when missing and removed at the end when empty.
    fn own_directory(&mut self, mine: &Job) {
        let dir = targets::job_path(mine);
        if !dir.exists() && std::fs::create_dir(&dir).is_ok() {
            self.rank_dirs.push(dir);
        }
    }
}

/// Rank 0's merge of the ranks' `parts` of `job` (the job as the user gave
/// it), with the page cache judged per host instead of on rank 0's host
/// alone (the warnings from `warned_before` on are this job's).
fn merge_at_zero(
    job: &Job,
    parts: &[RankJob],
    some_failed: bool,
    cluster: &ClusterOptions,
    warnings: &mut Vec<Warning>,
    warned_before: usize,
) -> Option<JobResult> {
    let mut i = warned_before;
    while i < warnings.len() {
        if matches!(warnings[i], Warning::PageCacheHoldsData { .. }) {
            warnings.remove(i);
        } else {
            i += 1;
        }
    }
    if let Some(w) = crate::cluster::page_cache::warning(parts)
        && !warnings.contains(&w)
    {
        warnings.push(w);
    }
    let shared = cluster.shared;
    let mut merged = match merging::merge(parts, shared, cluster.stonewall.map(|d| d.as_nanos() as u64)) {
        Ok(m) => m,
        Err(e) => {
            warnings.push(Warning::StoppedAfterFailure { error: e.to_string() });
            return None;
        }
    };
    merged.incomplete |= some_failed;
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
    Some(merged)
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
fn measure<C: Communicator + ?Sized>(
    comm: &C,
    job: &Job,
    cluster: &ClusterOptions,
    bench: &mut Bench<'_>,
) -> Result<Measured, Option<String>> {
    let start = Cell::new(0u64);
    let others_failed = Cell::new(false);
    let synced_run = |job: &Job, bench: &mut Bench<'_>| {
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
        let r = bench.measure_synced(job, &mut ready);
        if let Err(e) = &r
            && !met.get()
        {
            // Prepared nothing: the others are waiting to hear it at the ramp's meeting.
            let _ = settle(comm, Err(e.to_string()));
        }
        r.map_err(|e| (!others_failed.get()).then(|| e.to_string()))
    };
    if let (Some(deadline), Some(p)) = (cluster.stonewall, job.workload.fileset()) {
        return stonewalled_fileset(comm, job, p, deadline, bench);
    }
    let Some(deadline) = cluster.stonewall else {
        let result = synced_run(job, bench)?;
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
                synced_run(&j, bench)
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
                bench
                    .measure_synced(&j, &mut || Ok(()))
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
fn stonewalled_fileset<C: Communicator + ?Sized>(
    comm: &C,
    job: &Job,
    p: &crate::jobs::fileset::FileSetParams,
    deadline: Duration,
    bench: &mut Bench<'_>,
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
    let r = bench.measure_stonewalled(job, p, &mut ready, &mut wall);
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
