//! Latency histograms. HDR with 3 significant digits over 1 ns .. 1 h: any
//! recorded value is reported within 0.1 % of itself (HdrHistogram's bound:
//! values sharing a bucket differ by less than 10^-3 of their magnitude).

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};

use super::result::LatencySummary;

pub const LOWEST_NS: u64 = 1;
pub const HIGHEST_NS: u64 = 3_600_000_000_000;
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// The percentiles every result carries.
pub const PERCENTILES: [f64; 12] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999,
];

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_DIGITS).expect("constant bounds are valid")
}

/// Records one latency; values outside the range are clamped, never dropped.
#[inline]
pub fn record(h: &mut Histogram<u64>, ns: u64) {
    let v = ns.clamp(LOWEST_NS, HIGHEST_NS);
    // Cannot fail: the value is clamped into the histogram's range.
    let _ = h.record(v);
}

pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

pub fn summarize(h: &Histogram<u64>) -> LatencySummary {
    if h.is_empty() {
        return LatencySummary::default();
    }
    let percentiles: BTreeMap<String, u64> = PERCENTILES
        .iter()
        .map(|p| (percentile_key(*p), h.value_at_quantile(p / 100.0)))
        .collect();
    LatencySummary {
        min: h.min(),
        mean: h.mean(),
        stddev: h.stdev(),
        max: h.max(),
        percentiles,
    }
}

pub fn encode(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2Serializer::new()
        .serialize(h, &mut bytes)
        .expect("serializing into memory cannot fail");
    base64_encode(&bytes)
}

pub fn decode(text: &str) -> Option<Histogram<u64>> {
    let bytes = base64_decode(text)?;
    Deserializer::new().deserialize(&mut bytes.as_slice()).ok()
}

fn base64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn percentiles_match_an_exact_sort(mut values in proptest::collection::vec(1u64..10_000_000_000, 1..2000)) {
            let mut h = new_histogram();
            for v in &values {
                record(&mut h, *v);
            }
            values.sort_unstable();
            for p in PERCENTILES {
                // The exact nearest-rank percentile of the sorted values.
                let rank = ((p / 100.0) * values.len() as f64).ceil().max(1.0) as usize;
                let exact = values[rank - 1];
                let got = h.value_at_quantile(p / 100.0);
                let tolerance = exact / 1000 + 1;
                prop_assert!(got.abs_diff(exact) <= tolerance, "p{p}: hdr {got} exact {exact}");
            }
            prop_assert_eq!(h.min(), h.lowest_equivalent(values[0]));
            prop_assert!(h.max().abs_diff(*values.last().unwrap()) <= values.last().unwrap() / 1000 + 1);
        }

        #[test]
        fn base64_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn histogram_round_trips() {
        let mut h = new_histogram();
        for v in [100, 2000, 30_000, 4_000_000] {
            record(&mut h, v);
        }
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(back.max(), h.max());
    }
}

/// Share of recorded values above `ns` (0..=1): tiobench's "% of requests over 2 s".
pub fn share_above(h: &Histogram<u64>, ns: u64) -> f64 {
    if h.is_empty() {
        return 0.0;
    }
    let above: u64 = h
        .iter_recorded()
        .filter(|v| v.value_iterated_to() > ns)
        .map(|v| v.count_at_value())
        .sum();
    above as f64 / h.len() as f64
}

#[cfg(test)]
mod share_tests {
    use super::*;

    #[test]
    fn share_above_counts_only_slower_requests() {
        let mut h = new_histogram();
        for _ in 0..97 {
            record(&mut h, 5_000_000); // 5 ms
        }
        record(&mut h, 2_500_000_000); // 2.5 s
        record(&mut h, 3_000_000_000);
        record(&mut h, 12_000_000_000); // 12 s
        assert!((share_above(&h, 2_000_000_000) - 0.03).abs() < 1e-9);
        assert!((share_above(&h, 10_000_000_000) - 0.01).abs() < 1e-9);
        assert_eq!(share_above(&h, 20_000_000_000), 0.0);
        assert_eq!(share_above(&new_histogram(), 1), 0.0);
    }
}
