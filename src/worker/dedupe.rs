//! fio's `dedupe_percentage` (fio 3.33 io_u.c `get_buf_state`, default
//! `dedupe_mode=repeat`): each written buffer is, with this chance, a
//! repeat of the last unique buffer written (fio regenerates it from the
//! saved random state; kura keeps a copy); the others are unique.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub struct Dedupe {
    pct: u8,
    rng: SmallRng,
    /// The last unique buffer written, `filled` bytes of it.
    template: Vec<u8>,
    filled: usize,
}

impl Dedupe {
    pub fn new(pct: u8, seed: u64) -> Dedupe {
        Dedupe {
            pct: pct.min(100),
            rng: SmallRng::seed_from_u64(seed ^ 0xdeed_0000_0000_0001),
            template: Vec::new(),
            filled: 0,
        }
    }

    /// Whether the next write of `len` bytes repeats the last unique one:
    /// then `buf` holds it and the caller writes it as it is.
    pub fn repeat(&mut self, buf: &mut [u8]) -> bool {
        // 1..=100, as fio's rand_between(1, 100).
        let draw = ((self.rng.next_u64() as u128 * 100) >> 64) as u8 + 1;
        if draw > self.pct || self.filled < buf.len() {
            return false;
        }
        buf.copy_from_slice(&self.template[..buf.len()]);
        true
    }

    /// `buf` was made unique and is written: the next repeat copies it.
    pub fn unique(&mut self, buf: &[u8]) {
        if self.template.len() < buf.len() {
            self.template.resize(buf.len(), 0);
        }
        self.template[..buf.len()].copy_from_slice(buf);
        self.filled = buf.len();
    }
}
