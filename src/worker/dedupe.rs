//! fio's `dedupe_percentage` (fio 3.33 io_u.c `get_buf_state`): each
//! written buffer is, with this chance, a repeat; the others are unique.
//! A repeat is the last unique buffer written (`dedupe_mode=repeat`, fio's
//! default: fio regenerates it from the saved random state; kura keeps a
//! copy), or one of a working set of blocks drawn at random
//! (`dedupe_mode=working_set`, dedupe.c: fio keeps the seeds of
//! `size x dedupe_working_set_percentage / bs` blocks and regenerates one;
//! kura fills the block from its number's seed, shared by every job and
//! thread with `dedupe_global`).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::jobs::Fill;

/// fio's working set: how many blocks, what fills them, and the seed of
/// block 0 (the same for every job and thread with `dedupe_global`).
pub struct WorkingSet {
    pub blocks: u64,
    pub fill: Fill,
    pub seed: u64,
}

pub struct Dedupe {
    pct: u8,
    rng: SmallRng,
    /// The last unique buffer written, `filled` bytes of it.
    template: Vec<u8>,
    filled: usize,
    set: Option<WorkingSet>,
}

impl Dedupe {
    pub fn new(pct: u8, seed: u64, set: Option<WorkingSet>) -> Dedupe {
        Dedupe {
            pct: pct.min(100),
            rng: SmallRng::seed_from_u64(seed ^ 0xdeed_0000_0000_0001),
            template: Vec::new(),
            filled: 0,
            set,
        }
    }

    /// Whether the next write of `len` bytes repeats a block: then `buf`
    /// holds it and the caller writes it as it is.
    pub fn repeat(&mut self, buf: &mut [u8]) -> bool {
        // 1..=100, as fio's rand_between(1, 100).
        let draw = ((self.rng.next_u64() as u128 * 100) >> 64) as u8 + 1;
        if draw > self.pct {
            return false;
        }
        if let Some(set) = &self.set {
            let i = ((self.rng.next_u64() as u128 * u128::from(set.blocks.max(1))) >> 64) as u64;
            crate::jobs::fill::fill_buffer(buf, set.fill, set.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            return true;
        }
        if self.filled < buf.len() {
            return false;
        }
        buf.copy_from_slice(&self.template[..buf.len()]);
        true
    }

    /// `buf` was made unique and is written: the next repeat copies it.
    pub fn unique(&mut self, buf: &[u8]) {
        if self.set.is_some() {
            return;
        }
        if self.template.len() < buf.len() {
            self.template.resize(buf.len(), 0);
        }
        self.template[..buf.len()].copy_from_slice(buf);
        self.filled = buf.len();
    }
}
