//! fio's `rate_process=poisson`: I/Os arrive at exponentially distributed
//! gaps whose mean is 1/rate, instead of evenly (`linear`). fio 3.33
//! io_u.c `usec_for_io`: each I/O's due time is the last one's plus
//! `-ln(1 - U) / rate`, U uniform in [0, 1).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub struct PoissonPace {
    rng: SmallRng,
    rate_per_ns: f64,
    next_due_ns: f64,
}

impl PoissonPace {
    pub fn new(rate_per_ns: f64, seed: u64) -> PoissonPace {
        let mut p = PoissonPace {
            rng: SmallRng::seed_from_u64(seed ^ 0x5DEE_CE66_D1CE_4E5B),
            rate_per_ns,
            next_due_ns: 0.0,
        };
        p.advance();
        p
    }

    /// When the next I/O is due, in ns from the worker's start.
    #[inline]
    pub fn due_ns(&self) -> f64 {
        self.next_due_ns
    }

    /// One I/O was issued: the next is due one exponential gap later.
    #[inline]
    pub fn advance(&mut self) {
        // 53 random bits as a float in [0, 1), as the generator draws them.
        let u = (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        self.next_due_ns += -(1.0 - u).ln() / self.rate_per_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_exponential_with_the_rate_as_mean() {
        let rate_per_ns = 1000.0 / 1e9; // 1000 I/Os per second
        let mut p = PoissonPace::new(rate_per_ns, 7);
        let mut gaps = Vec::new();
        let mut last = 0.0;
        for _ in 0..100_000 {
            gaps.push(p.due_ns() - last);
            last = p.due_ns();
            p.advance();
        }
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        assert!((mean / 1e6 - 1.0).abs() < 0.02, "mean gap {mean} ns");
        // An exponential's standard deviation equals its mean; even pacing's is 0.
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((sd / mean - 1.0).abs() < 0.03, "sd {sd} mean {mean}");
        // P(gap > mean) = 1/e.
        let above = gaps.iter().filter(|g| **g > mean).count() as f64 / n;
        assert!((above - (-1f64).exp()).abs() < 0.01, "{above}");
    }
}
