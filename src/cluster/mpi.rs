//! The `Communicator` over MPI (cargo feature `mpi`): the ranks mpirun or
//! srun started, synchronised by MPI's own barrier, all-reduce and gather.

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator as _, CommunicatorCollectives, Root};

use super::Communicator;

/// MPI_COMM_WORLD, alive while this value is (dropping it finalizes MPI).
pub struct MpiComm {
    world: SimpleCommunicator,
    // Declared last: the communicator must not outlive MPI.
    _universe: Universe,
}

impl MpiComm {
    /// `None` when MPI was initialized already or cannot be.
    pub fn init() -> Option<MpiComm> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        Some(MpiComm {
            world,
            _universe: universe,
        })
    }
}

impl Communicator for MpiComm {
    fn rank(&self) -> u32 {
        mpi::traits::Communicator::rank(&self.world) as u32
    }
    fn size(&self) -> u32 {
        mpi::traits::Communicator::size(&self.world) as u32
    }
    fn barrier(&self) {
        self.world.barrier();
    }
    fn all_max(&self, value: u64) -> u64 {
        let mut out = 0u64;
        self.world
            .all_reduce_into(&value, &mut out, SystemOperation::max());
        out
    }
    fn all_sum(&self, value: u64) -> u64 {
        let mut out = 0u64;
        self.world
            .all_reduce_into(&value, &mut out, SystemOperation::sum());
        out
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Open MPI's MPI_Gatherv refuses (MPI_ERR_ARG) when every count is
        // zero, so each rank sends one leading byte more than it has.
        let mut framed = Vec::with_capacity(bytes.len() + 1);
        framed.push(0u8);
        framed.extend_from_slice(bytes);
        let bytes = &framed[..];
        let root = self.world.process_at_rank(0);
        let len = bytes.len() as i32;
        if self.world.rank() != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(bytes);
            return None;
        }
        let mut counts = vec![0i32; self.world.size() as usize];
        root.gather_into_root(&len, &mut counts[..]);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0i32, |acc, &c| {
                let at = *acc;
                *acc += c;
                Some(at)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut buf = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut partition);
        }
        Some(
            counts
                .iter()
                .zip(&displs)
                .map(|(&c, &d)| buf[d as usize + 1..(d + c) as usize].to_vec())
                .collect(),
        )
    }
}
