//! Whether an MPI launcher started this process. The ranks of one run are
//! processes of their own sharing their targets, so the checks that tell a
//! file kura made from another process's data must know it; it lives here,
//! below `cluster`, which re-exports it.

/// The environment variables MPI launchers set in every rank they start
/// (Open MPI's mpirun, PMIx, Slurm's srun, MPICH's hydra).
const LAUNCHER_SIZE_VARS: [&str; 4] = ["OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"];

/// The launcher's variable and the number of ranks when a launcher started
/// this process (one rank included: `mpirun -n 1` is the one-rank point of
/// a scaling series), so a build without MPI can refuse instead of storing
/// one run per rank.
pub fn launched_as_rank() -> Option<(&'static str, u32)> {
    LAUNCHER_SIZE_VARS.iter().find_map(|var| {
        let n: u32 = std::env::var(var).ok()?.trim().parse().ok()?;
        // srun sets SLURM_NTASKS in the batch shell too; PMI/OMPI variables only in ranks.
        if *var == "SLURM_NTASKS" && std::env::var_os("SLURM_PROCID").is_none() {
            return None;
        }
        (n >= 1).then_some((*var, n))
    })
}
