//! Stonewalling as IO500 does it (IOR `-D SECONDS -O stoneWallingWearOut=1`;
//! `WriteOrRead` in hpc/ior `src/ior.c`, commit c702a98): every rank runs
//! until the deadline, the ranks agree on the largest count any of them
//! reached (an all-reduce MAX, with the MIN reported beside it), and every
//! rank then completes up to that count ("wear-out"), so each rank has done
//! the same work and the slowest one's time is in the total. Both numbers
//! are kept: the rate at the deadline and the rate after wear-out.
//!
//! Where kura differs: IOR continues at the next offset of its precomputed
//! list; kura runs the remaining count as a second pass of the job's access
//! pattern on the same prepared target (for random patterns the same; a
//! sequential one starts again at the start of its region).

use std::time::Duration;

use super::Communicator;

/// What a rank is asked to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Until the deadline (or the job's own end, whichever is first).
    UntilDeadline(Duration),
    /// This many more operations, after the deadline.
    WearOut(u64),
}

/// What one phase did on this rank.
#[derive(Debug)]
pub struct PhaseDone<R> {
    pub result: Option<R>,
    pub ops: u64,
    pub bytes: u64,
}

/// One rank's stonewalled job.
#[derive(Debug)]
pub struct Stonewalled<R> {
    pub until_deadline: R,
    /// `None` when this rank had reached the largest count itself.
    pub wear_out: Option<R>,
    pub ops_at_deadline: u64,
    pub bytes_at_deadline: u64,
    /// Fewest and most operations any rank had done at the deadline.
    pub min_ops: u64,
    pub max_ops: u64,
}

/// Why a stonewalled job ended without a result on this rank.
#[derive(Debug, PartialEq, Eq)]
pub enum StonewallError {
    /// This rank's phase failed (its `run` returned no result).
    Failed,
    /// Another rank's phase failed; this one stopped with it.
    OtherRankFailed,
}

/// Runs one rank's part. Every rank must call it with the same deadline:
/// it holds two agreements (failure, then the counts) after each phase.
pub fn run<C, R>(
    comm: &C,
    deadline: Duration,
    mut phase: impl FnMut(Phase) -> PhaseDone<R>,
) -> Result<Stonewalled<R>, StonewallError>
where
    C: Communicator + ?Sized,
{
    let first = phase(Phase::UntilDeadline(deadline));
    agree(comm, first.result.is_none())?;
    let Some(until_deadline) = first.result else {
        unreachable!("agree returned an error for a rank without a result")
    };
    let max_ops = comm.all_max(first.ops);
    let min_ops = comm.all_min(first.ops);
    let (wear_out, failed) = if first.ops < max_ops {
        let second = phase(Phase::WearOut(max_ops - first.ops));
        let failed = second.result.is_none();
        (second.result, failed)
    } else {
        (None, false)
    };
    // Every rank joins this agreement, including those with nothing to wear out.
    agree(comm, failed)?;
    Ok(Stonewalled {
        until_deadline,
        wear_out,
        ops_at_deadline: first.ops,
        bytes_at_deadline: first.bytes,
        min_ops,
        max_ops,
    })
}

/// All ranks learn whether any failed; each rank calls it once per phase.
fn agree<C: Communicator + ?Sized>(comm: &C, failed: bool) -> Result<(), StonewallError> {
    let any = comm.all_max(u64::from(failed));
    match (failed, any) {
        (true, _) => Err(StonewallError::Failed),
        (false, 0) => Ok(()),
        (false, _) => Err(StonewallError::OtherRankFailed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ThreadComm;

    /// A rank that does `rate` operations a second, without sleeping: the
    /// logic is tested, not the clock.
    fn simulated(rate: u64, fail_in_wear_out: bool) -> impl FnMut(Phase) -> PhaseDone<(Phase, u64)> {
        move |p| match p {
            Phase::UntilDeadline(d) => {
                let ops = rate * d.as_secs();
                PhaseDone {
                    result: Some((p, ops)),
                    ops,
                    bytes: ops * 4096,
                }
            }
            Phase::WearOut(n) => PhaseDone {
                result: (!fail_in_wear_out).then_some((p, n)),
                ops: n,
                bytes: n * 4096,
            },
        }
    }

    fn run_ranks(
        rates: &[u64],
        failing: Option<u32>,
    ) -> Vec<Result<Stonewalled<(Phase, u64)>, StonewallError>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = ThreadComm::group(rates.len() as u32)
                .into_iter()
                .zip(rates)
                .map(|(c, rate)| {
                    s.spawn(move || {
                        let fail = failing == Some(c.rank());
                        run(&c, Duration::from_secs(10), simulated(*rate, fail))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn every_rank_completes_up_to_the_largest_count() {
        // Rank 2 is the straggler: 100 ops/s against 1000.
        let out = run_ranks(&[1000, 1000, 100, 900], None);
        for (rank, r) in out.iter().enumerate() {
            let r = r.as_ref().unwrap();
            assert_eq!((r.min_ops, r.max_ops), (1000, 10_000));
            let worn = r.wear_out.as_ref().map_or(0, |w| w.1);
            assert_eq!(r.ops_at_deadline + worn, 10_000, "rank {rank}");
        }
        assert_eq!(
            out[2].as_ref().unwrap().wear_out.as_ref().unwrap().0,
            Phase::WearOut(9_000)
        );
        assert!(out[0].as_ref().unwrap().wear_out.is_none());
        assert_eq!(out[3].as_ref().unwrap().bytes_at_deadline, 9_000 * 4096);
    }

    #[test]
    fn a_rank_failing_in_wear_out_ends_the_job_on_every_rank() {
        let out = run_ranks(&[1000, 100, 1000], Some(1));
        assert_eq!(out[1].as_ref().unwrap_err(), &StonewallError::Failed);
        assert_eq!(out[0].as_ref().unwrap_err(), &StonewallError::OtherRankFailed);
        assert_eq!(out[2].as_ref().unwrap_err(), &StonewallError::OtherRankFailed);
    }
}
