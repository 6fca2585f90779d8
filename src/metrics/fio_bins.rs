//! fio's log-linear latency bins (fio 3.33 stat.h: FIO_IO_U_PLAT_BITS 6,
//! FIO_IO_U_PLAT_GROUP_NR 29, so 1856 bins of nanoseconds; stat.c
//! `plat_val_to_idx`, `plat_idx_to_val`), for the histogram log
//! (`write_hist_log`) and fio's JSON (report::fio_output). kura
//! records latencies in its own HDR histogram; each of its buckets is put
//! into the fio bin its value falls in, so a bin's count is exact up to the
//! HDR histogram's own resolution (3 significant digits).

use hdrhistogram::Histogram;

const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// FIO_IO_U_PLAT_NR of fio 3.33.
pub const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// stat.c `plat_val_to_idx`.
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { 63 - val.leading_zeros() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// stat.c `plat_idx_to_val`: the middle of the bin.
pub fn plat_idx_to_val(idx: usize) -> u64 {
    if (idx as u64) < (PLAT_VAL << 1) {
        return idx as u64;
    }
    let error_bits = (idx as u64 >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = idx as u64 % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// A histogram as fio's bins, sparse: (bin, count) in rising bin order.
pub fn sparse_bins(h: &Histogram<u64>) -> Vec<(u16, u64)> {
    let mut out: Vec<(u16, u64)> = Vec::new();
    for v in h.iter_recorded() {
        let bin = plat_val_to_idx(h.median_equivalent(v.value_iterated_to())) as u16;
        match out.last_mut() {
            Some((b, n)) if *b == bin => *n += v.count_at_value(),
            _ => out.push((bin, v.count_at_value())),
        }
    }
    out
}

/// One line's bins, fio's `flush_hist_samples`: `PLAT_NR >> coarseness`
/// counts, each the sum of 2^coarseness neighbouring bins.
pub fn coarse_row(sparse: &[(u16, u64)], coarseness: u8) -> Vec<u64> {
    let shift = u32::from(coarseness.min(6));
    let mut row = vec![0u64; PLAT_NR >> shift];
    for (bin, n) in sparse {
        row[(*bin as usize) >> shift] += n;
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::histogram::{new_histogram, record};

    #[test]
    fn bins_are_fio_s() {
        // Below 128 ns a bin is one value; then 64 bins per power of two.
        assert_eq!(plat_val_to_idx(100), 100);
        assert_eq!(plat_val_to_idx(128), 128);
        assert_eq!(plat_val_to_idx(130), 129);
        // 2^19 <= 1 ms < 2^20: 13 error bits, group 14, offset (1e6 >> 13) & 63 = 58.
        assert_eq!(plat_val_to_idx(1_000_000), (14 << 6) + 58);
        assert_eq!(plat_val_to_idx(u64::MAX), PLAT_NR - 1);
        let mut h = new_histogram();
        for v in [100, 100, 1_000_000] {
            record(&mut h, v);
        }
        let sparse = sparse_bins(&h);
        assert_eq!(sparse.iter().map(|(_, n)| n).sum::<u64>(), 3);
        assert_eq!(coarse_row(&sparse, 0).len(), 1856);
        let row = coarse_row(&sparse, 2);
        assert_eq!((row.len(), row[25]), (464, 2));
    }

    #[test]
    fn a_bins_value_is_its_middle() {
        // Values below 128 are their own bin; above, 64 bins per power of two.
        for v in [0, 1, 63, 64, 127] {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v);
        }
        // 1000 ns: msb 9, 3 error bits, bin [1000, 1008) whose middle is 1004.
        assert_eq!(plat_idx_to_val(plat_val_to_idx(1000)), 1004);
        for v in [200u64, 5_000, 123_456, 9_999_999, 3_000_000_000] {
            let back = plat_idx_to_val(plat_val_to_idx(v));
            assert!(back.abs_diff(v) * 64 <= v, "{v} -> {back}");
        }
    }
}
