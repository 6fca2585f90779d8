//! `kura run`, `mark` and `sweep` as one rank of many (`mpirun -n 4 kura
//! run job.toml`): the jobs go to `cluster::rank`, rank 0 stores the merged
//! run and prints it, the other ranks print nothing. A run that is not a
//! rank goes on as usual.

use anyhow::{Result, anyhow, bail};

use super::Ctx;
use crate::cli::{ClusterArgs, RunArgs};
use crate::cluster::rank::ClusterOptions;
use crate::jobs::Job;
use crate::metrics::RunResult;
use crate::report::View;
use crate::runner::{RunOptions, SuiteJob};

/// `Some(exit code)` when this process was a rank and the run is done;
/// `None` when it is an ordinary run.
pub fn run_as_rank(ctx: &Ctx, jobs: &[Job], args: &RunArgs) -> Result<Option<i32>> {
    let tests: Vec<SuiteJob> = jobs
        .iter()
        .map(|j| SuiteJob {
            test: None,
            job: j.clone(),
            rounds: None,
        })
        .collect();
    let rank = Ranked {
        opts: super::run_options(&args.common, ctx.quiet),
        view: View {
            json: ctx.json,
            ..View::default()
        },
        finish: &|_| {},
    };
    suite_as_rank(ctx, &tests, &args.cluster, rank)
}

/// How a verb runs as a rank: its options, how rank 0 prints the run, and
/// what it adds to the merged run before storing it (`mark`'s warnings).
pub struct Ranked<'a> {
    pub opts: RunOptions,
    pub view: View,
    pub finish: &'a dyn Fn(&mut RunResult),
}

/// A suite's jobs (`kura mark`, `sweep`) as one rank of many; `None` when
/// this process is not a rank and nothing asked for one.
pub fn suite_as_rank(
    ctx: &Ctx,
    jobs: &[SuiteJob],
    args: &ClusterArgs,
    how: Ranked<'_>,
) -> Result<Option<i32>> {
    let stonewall = match &args.stonewall {
        Some(text) => {
            Some(crate::jobs::units::parse_duration(text).map_err(|e| anyhow!("--stonewall: {e}"))?)
        }
        None => None,
    };
    let cluster = ClusterOptions {
        shared: args.shared,
        stonewall,
        jobs: Vec::new(),
    };
    let asked = cluster.shared || cluster.stonewall.is_some();
    let launched = crate::cluster::launched_as_rank();
    // A launcher's one rank needs no MPI: without it, that is an ordinary run.
    let many = launched.is_some_and(|(_, n)| n > 1 || cfg!(feature = "mpi"));
    if !asked && !many {
        return Ok(None);
    }
    // Without MPI a stale rank 0 refuses anyway (`run_ranks`); with it, MPI would wait for the others.
    if cfg!(feature = "mpi")
        && let Some((var, n)) = launched
    {
        crate::cluster::check_launcher(var, n)?;
    }
    run_ranks(ctx, jobs, how, &cluster, launched)
}

/// A suite whose jobs the ranks share each its own way (`kura suite
/// io500`); `None` when this process is not one of many ranks.
pub fn suite_as_ranks_per_job(
    ctx: &Ctx,
    jobs: &[SuiteJob],
    per_job: Vec<crate::cluster::rank::JobCluster>,
    how: Ranked<'_>,
) -> Result<Option<i32>> {
    let launched = crate::cluster::launched_as_rank();
    if !launched.is_some_and(|(_, n)| n > 1 || cfg!(feature = "mpi")) {
        return Ok(None);
    }
    if cfg!(feature = "mpi")
        && let Some((var, n)) = launched
    {
        crate::cluster::check_launcher(var, n)?;
    }
    let cluster = ClusterOptions {
        jobs: per_job,
        ..ClusterOptions::default()
    };
    run_ranks(ctx, jobs, how, &cluster, launched)
}

#[cfg(not(feature = "mpi"))]
fn run_ranks(
    _ctx: &Ctx,
    _jobs: &[SuiteJob],
    _how: Ranked<'_>,
    _cluster: &ClusterOptions,
    launched: Option<(&str, u32)>,
) -> Result<Option<i32>> {
    match launched {
        // Rank 0 says why; the others leave quietly (exit 0), so that the
        // refusal is one line and the launcher does not end rank 0 first.
        Some((var, n)) if n > 1 && crate::cluster::launched_rank().is_some_and(|r| r > 0) => {
            crate::cluster::check_launcher(var, n)?;
            Ok(Some(0))
        }
        // Without refusing, each of the N processes would measure alone and store its own run.
        // Variables without a launcher are stale, not a launch: that is said instead.
        Some((var, n)) if n > 1 => {
            crate::cluster::check_launcher(var, n)?;
            bail!(
                "an MPI launcher started kura as one of {n} ranks ({var}={n}), but this kura was \
                 built without the `mpi` feature, so each rank would measure alone: rebuild with \
                 `cargo build --release --features mpi`, or run kura without the launcher (docs/cluster.md)"
            )
        }
        _ => bail!(
            "--shared and --stonewall are for many ranks: start kura with mpirun or srun, built \
             with `--features mpi` (docs/cluster.md)"
        ),
    }
}

#[cfg(feature = "mpi")]
fn run_ranks(
    ctx: &Ctx,
    jobs: &[SuiteJob],
    how: Ranked<'_>,
    cluster: &ClusterOptions,
    _launched: Option<(&str, u32)>,
) -> Result<Option<i32>> {
    use crate::cluster::Communicator;
    use crate::cluster::mpi::MpiComm;
    use crate::cluster::rank::{self, ClusterError};
    use crate::report::render_run;

    let Some(comm) = MpiComm::init() else {
        bail!("MPI could not be initialized");
    };
    let stop = super::stop_flag()?;
    let opts = &how.opts;
    // Every rank leaves run_suite at the same meeting, whatever happened;
    // the others then wait for rank 0 to store and print (a last barrier):
    // a launcher ends every rank when one exits with an error, and would
    // otherwise cut rank 0's error line or its run short.
    if comm.rank() != 0 {
        // Only rank 0 touches the database: the others may be other hosts.
        let code = match rank::run_suite(
            &comm,
            jobs,
            opts,
            &stop,
            cluster,
            &mut crate::metrics::sink::NoSink,
        ) {
            Ok(_) => 0,
            // Rank 0 says why, once.
            Err(ClusterError::EndedByRankZero) => 2,
            Err(e) => return Err(e.into()),
        };
        comm.barrier();
        return Ok(Some(code));
    }
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&super::run_header(opts))?;
    let outcome = rank::run_suite(&comm, jobs, opts, &stop, cluster, &mut rec);
    let mut result = match outcome {
        Ok(Some(r)) => r,
        Ok(None) => bail!("rank 0 ended without a result"),
        Err(e) => {
            // main's one line, written before the last barrier; one write,
            // so mpirun forwards it whole.
            let line = format!("kura: error: {}\n", crate::report::escape::term(&e.to_string()));
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            comm.barrier();
            return Ok(Some(2));
        }
    };
    (how.finish)(&mut result);
    let stored = super::keep_run(ctx, &mut rec, &mut result, &stop);
    let printed = super::printed(super::print_run(&render_run(&result, &how.view)), &result);
    comm.barrier();
    Ok(Some(super::exit_code(&result, stored).max(printed)))
}
