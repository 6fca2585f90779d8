//! Many ranks (MPI processes, usually on many hosts) running one job at
//! once: the `Communicator` they synchronise through, IO500's stonewall,
//! and one rank's part of a run (`rank.rs`), whose results rank 0 merges
//! with `metrics::cluster`. Only `mpi.rs` needs MPI (cargo feature `mpi`);
//! the rest runs in the default build, with threads standing in for ranks.

pub mod comm;
pub mod launch;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod page_cache;
pub mod rank;
pub mod stonewall;

pub use comm::{Communicator, ThreadComm};

pub use crate::targets::launcher::launched_as_rank;

/// The variables naming this process's rank, in the order of
/// `targets::launcher`'s size variables.
const LAUNCHER_RANK_VARS: [&str; 4] = ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"];

/// This process's rank as its launcher numbered it, when it says.
pub fn launched_rank() -> Option<u32> {
    LAUNCHER_RANK_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// The names MPI launchers and their per-host daemons run under (Open MPI's
/// mpirun/orted/prted, MPICH's hydra, Slurm, Flux, Cray, LSF); a rank is
/// always a descendant of one of them.
const LAUNCHER_PROCESSES: [&str; 16] = [
    "mpirun",
    "mpiexec",
    "orterun",
    "orted",
    "prterun",
    "prted",
    "prte",
    "hydra_pmi_proxy",
    "pmi_proxy",
    "slurmstepd",
    "srun",
    "flux-shell",
    "flux-broker",
    "aprun",
    "jsrun",
    "palsd",
];

/// Whether a process named in `LAUNCHER_PROCESSES` is among this process's
/// ancestors.
fn launcher_is_an_ancestor() -> bool {
    let mut pid = std::process::id();
    // A loop in /proc cannot happen, but a bound costs nothing.
    for _ in 0..64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // `PID (comm) S PPID ...`: comm may hold spaces and parentheses.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            return false;
        };
        let comm = head.split_once('(').map_or("", |(_, c)| c);
        if pid != std::process::id() && LAUNCHER_PROCESSES.iter().any(|l| comm.starts_with(l)) {
            return true;
        }
        match tail.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) {
            Some(ppid) if ppid > 1 => pid = ppid,
            _ => return false,
        }
    }
    false
}

/// Launcher variables without a launcher: left in the shell from an
/// earlier `salloc` or a copied environment. Without this check a process
/// that believes it is rank 1 of 4 leaves at once with exit 0, having done
/// nothing and said nothing, waiting for a rank 0 that does not exist.
pub fn check_launcher(var: &str, n: u32) -> anyhow::Result<()> {
    if launcher_is_an_ancestor() {
        return Ok(());
    }
    let rank = LAUNCHER_RANK_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok().map(|r| format!(" {v}={}", r.trim())))
        .unwrap_or_default();
    anyhow::bail!(
        "{var}={n}{rank} is set but no MPI launcher (mpirun, mpiexec, srun, ...) started kura: \
         these variables are stale; unset them, or start kura with mpirun or srun (docs/cluster.md)"
    )
}

/// A verb that does not run on many ranks (`kura suite bonnie`, `db`,
/// `tiobench`) started as one of several: each process would measure alone
/// and store its own run. `Ok(None)` when this is one process (or one
/// rank); otherwise rank 0 (or a rank whose number is unknown) refuses
/// naming the verb, and the other ranks end at once without a word and
/// with exit 0, so the refusal is one line and a launcher does not end
/// rank 0 (as it ends every rank when one fails) before it has said why.
pub fn refuse_many_ranks(verb: &str) -> anyhow::Result<Option<i32>> {
    let Some((var, n)) = launched_as_rank().filter(|(_, n)| *n > 1) else {
        return Ok(None);
    };
    check_launcher(var, n)?;
    if launched_rank().is_some_and(|r| r > 0) {
        return Ok(Some(0));
    }
    anyhow::bail!(
        "{verb} does not run on many ranks (started as one of {n}, {var}={n}): only `kura run`, \
         `mark`, `sweep`, `suite tiobench` and `suite io500` do (docs/cluster.md); run it on one host"
    )
}
