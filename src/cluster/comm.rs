//! What ranks need from each other: a barrier, agreement on a maximum or
//! a sum, and rank 0 collecting each rank's bytes. MPI provides it
//! (`cluster::mpi`); `ThreadComm` provides it between threads of one
//! process, so the per-rank logic is tested without MPI.

use std::sync::{Arc, Barrier, Mutex};

/// Collective operations: every rank calls each one, in the same order.
pub trait Communicator {
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    fn barrier(&self);
    /// The largest `value` any rank passed.
    fn all_max(&self, value: u64) -> u64;
    /// The sum of every rank's `value`.
    fn all_sum(&self, value: u64) -> u64;
    /// The smallest `value` any rank passed.
    fn all_min(&self, value: u64) -> u64 {
        u64::MAX - self.all_max(u64::MAX - value)
    }
    /// Every rank's bytes, in rank order, at rank 0; `None` on the others.
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
}

/// Ranks as threads of one process (tests, and `kura` without MPI when a
/// stand-in is wanted).
pub struct ThreadComm {
    rank: u32,
    shared: Arc<Shared>,
}

struct Shared {
    size: u32,
    barrier: Barrier,
    slots: Mutex<Vec<Vec<u8>>>,
}

impl ThreadComm {
    /// One communicator per rank; hand each to its own thread.
    pub fn group(size: u32) -> Vec<ThreadComm> {
        let shared = Arc::new(Shared {
            size,
            barrier: Barrier::new(size as usize),
            slots: Mutex::new(vec![Vec::new(); size as usize]),
        });
        (0..size)
            .map(|rank| ThreadComm {
                rank,
                shared: shared.clone(),
            })
            .collect()
    }

    /// Every rank's bytes, on every rank: post, wait for all, read, and
    /// wait again so no rank overwrites a slot another has not read yet.
    fn exchange(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        self.lock()[self.rank as usize] = bytes.to_vec();
        self.shared.barrier.wait();
        let all = self.lock().clone();
        self.shared.barrier.wait();
        all
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        // A rank thread that panicked poisons the lock; the slots stay usable.
        self.shared.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn as_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

impl Communicator for ThreadComm {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.shared.size
    }
    fn barrier(&self) {
        self.shared.barrier.wait();
    }
    fn all_max(&self, value: u64) -> u64 {
        let all = self.exchange(&value.to_le_bytes());
        all.iter().map(|b| as_u64(b)).max().unwrap_or(value)
    }
    fn all_sum(&self, value: u64) -> u64 {
        let all = self.exchange(&value.to_le_bytes());
        all.iter().map(|b| as_u64(b)).sum()
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let all = self.exchange(bytes);
        (self.rank == 0).then_some(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_agree_like_ranks() {
        let out: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = ThreadComm::group(4)
                .into_iter()
                .map(|c| {
                    s.spawn(move || {
                        let r = u64::from(c.rank());
                        c.barrier();
                        let max = c.all_max(r * 10);
                        let min = c.all_min(r + 5);
                        let sum = c.all_sum(r);
                        let gathered = c.gather(format!("rank{r}").as_bytes());
                        (max, min, sum, gathered)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (rank, (max, min, sum, gathered)) in out.into_iter().enumerate() {
            assert_eq!((max, min, sum), (30, 5, 6));
            match gathered {
                Some(all) => {
                    assert_eq!(rank, 0);
                    assert_eq!(all[3], b"rank3");
                }
                None => assert_ne!(rank, 0),
            }
        }
    }
}
