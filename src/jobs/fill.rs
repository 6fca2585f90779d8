//! Buffer contents for writes and pre-fill: random (defeats compression and
//! dedup), zeros, or a chosen share of zeros in each 4 KiB segment.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::jobs::Fill;

/// Fills `buf` according to `fill`; the same seed gives the same bytes.
pub fn fill_buffer(buf: &mut [u8], fill: Fill, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    match fill {
        Fill::Zero => buf.fill(0),
        Fill::Random => rng.fill_bytes(buf),
        Fill::Compressible { pct } => {
            for segment in buf.chunks_mut(4096) {
                let zeros = segment.len() * pct as usize / 100;
                let (zero, random) = segment.split_at_mut(zeros);
                zero.fill(0);
                rng.fill_bytes(random);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressible_share_is_zero() {
        let mut buf = vec![1u8; 8192];
        fill_buffer(&mut buf, Fill::Compressible { pct: 25 }, 7);
        assert!(buf[..1024].iter().all(|b| *b == 0));
        assert!(buf[4096..5120].iter().all(|b| *b == 0));
        let nonzero = buf[1024..4096].iter().filter(|b| **b != 0).count();
        assert!(nonzero > 3000, "{nonzero}");
    }

    #[test]
    fn random_is_repeatable_and_not_constant() {
        let mut a = vec![0u8; 4096];
        let mut b = vec![0u8; 4096];
        fill_buffer(&mut a, Fill::Random, 1);
        fill_buffer(&mut b, Fill::Random, 1);
        assert_eq!(a, b);
        assert!(a.iter().filter(|x| **x == 0).count() < 100);
    }
}
