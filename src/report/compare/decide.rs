//! The decision rule: when the repetitions of two targets decide a row, and
//! how many repetitions a side it would take when they do not
//! (docs/compare.md, "When kura picks"). Every pick and every verdict in the
//! guidance rests on these calls and nothing else.
//!
//! A row is decided only when three things hold:
//! 1. the figures differ by more than `SAME_WITHIN` (5 %);
//! 2. the Mann-Whitney U test rejects "no difference" at `SIGNIFICANCE`
//!    (5 %, two-sided), with Holm's step-down correction over the rows the
//!    verdict rests on (S. Holm, "A simple sequentially rejective multiple
//!    test procedure", Scand. J. Statist. 6 (1979) 65-70), so that a
//!    class of eight rows is not eight chances of a false pick;
//! 3. the difference is larger than either side's own run-to-run spread
//!    (its coefficient of variation): a difference the test finds but the
//!    target's runs swing by more is not a reason to choose.

use super::Cell;
use crate::metrics::repeats::{SIGNIFICANCE, rank_test};

/// Factors within this share of 1 are "about the same": a few percent is
/// run-to-run variation on most devices, and never a reason to choose.
pub const SAME_WITHIN: f64 = 0.05;

/// What the repetitions of two targets say about one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowCall {
    /// Decided: the first target is better.
    Better,
    /// Decided: the second target is better.
    Worse,
    /// Within `SAME_WITHIN`, or a difference smaller than the runs' own spread.
    Same,
    /// The repetitions overlap and the test finds no difference.
    Overlap,
    /// Every repetition of one side beats the other's, or a side has a
    /// single one, but too few of them for the test to reach its level.
    TooFew,
}

/// One row's two sides: the figures and the repetitions behind them.
pub struct Sides<'a> {
    pub a: &'a Cell,
    pub b: &'a Cell,
}

impl Sides<'_> {
    /// a over b, oriented so that above 1 the first target is better.
    pub fn factor(&self, throughput: bool) -> Option<f64> {
        let r = self.a.value / self.b.value;
        let oriented = if throughput { r } else { 1.0 / r };
        (oriented.is_finite() && oriented > 0.0).then_some(oriented)
    }
}

/// Calls every row of one verdict at once: Holm's correction needs all their
/// p-values. Rows without a factor (a zero, nothing completed) are `None`.
pub fn call_rows(rows: &[Sides], throughput: bool) -> Vec<Option<RowCall>> {
    let mut calls: Vec<Option<RowCall>> = Vec::with_capacity(rows.len());
    // (row, p) of the rows the test has to decide.
    let mut tested: Vec<(usize, f64)> = Vec::new();
    for (i, s) in rows.iter().enumerate() {
        let Some(f) = s.factor(throughput) else {
            calls.push(None);
            continue;
        };
        if same(f) {
            calls.push(Some(RowCall::Same));
            continue;
        }
        if s.a.passes.len() < 2 || s.b.passes.len() < 2 {
            calls.push(Some(RowCall::TooFew));
            continue;
        }
        match rank_test(&s.a.passes, &s.b.passes) {
            Some(t) => {
                tested.push((i, t.p_value));
                // Settled below; the fallback is for a test that rejects nothing.
                let every = t.cliffs_delta.abs() == 1.0;
                calls.push(Some(if every { RowCall::TooFew } else { RowCall::Overlap }));
            }
            None => calls.push(Some(RowCall::TooFew)),
        }
    }
    for i in holm_rejected(&tested) {
        let s = &rows[i];
        let f = s.factor(throughput).unwrap_or(1.0);
        let spread = spread(&s.a.passes).max(spread(&s.b.passes));
        calls[i] = Some(if (f.ln().abs()).exp() - 1.0 <= spread {
            RowCall::Same
        } else if f > 1.0 {
            RowCall::Better
        } else {
            RowCall::Worse
        });
    }
    calls
}

pub fn same(f: f64) -> bool {
    (1.0 / (1.0 + SAME_WITHIN)..=1.0 + SAME_WITHIN).contains(&f)
}

/// Holm's step-down: the smallest p is held against level/k, the next
/// against level/(k-1), ..., stopping at the first that fails.
fn holm_rejected(tested: &[(usize, f64)]) -> Vec<usize> {
    let mut sorted = tested.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let k = sorted.len();
    sorted
        .iter()
        .enumerate()
        .take_while(|(j, (_, p))| *p < SIGNIFICANCE / (k - j) as f64)
        .map(|(_, (i, _))| *i)
        .collect()
}

/// The repetitions' coefficient of variation: sample standard deviation
/// over the mean; 0 for fewer than two.
fn spread(passes: &[f64]) -> f64 {
    let n = passes.len();
    if n < 2 {
        return 0.0;
    }
    let mean = passes.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = passes.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    var.sqrt() / mean
}

/// The fewest repetitions a side with which `rows` rows that never overlap
/// can reach the level under Holm's correction: the smallest two-sided
/// p-value of n against n is 2 / C(2n, n), and the first row is held
/// against level / rows.
pub fn runs_needed(rows: usize) -> usize {
    let level = SIGNIFICANCE / rows.max(1) as f64;
    (2..64).find(|&n| 2.0 / binomial(2 * n, n) < level).unwrap_or(64)
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(passes: &[f64]) -> Cell {
        let value = passes.iter().sum::<f64>() / passes.len() as f64;
        Cell {
            value,
            min: value,
            max: value,
            repetitions: passes.len(),
            iops: value,
            bytes_per_sec: value,
            lat_mean_ns: value,
            lat_p99_ns: None,
            ratio: None,
            noise: None,
            p_value: None,
            cliffs_delta: None,
            not_comparable: None,
            iops_per_price: None,
            mbps_per_price: None,
            value_per_price_ratio: None,
            per_run: Vec::new(),
            size_bytes: None,
            passes: passes.to_vec(),
            paired: false,
            pass_starts: Vec::new(),
        }
    }

    fn calls(pairs: &[(&[f64], &[f64])]) -> Vec<Option<RowCall>> {
        let cells: Vec<(Cell, Cell)> = pairs.iter().map(|(a, b)| (cell(a), cell(b))).collect();
        let sides: Vec<Sides> = cells.iter().map(|(a, b)| Sides { a, b }).collect();
        call_rows(&sides, true)
    }

    #[test]
    fn three_passes_a_side_never_decide_however_far_apart() {
        // The false pick: the same disk, 1.5x apart by chance.
        let c = calls(&[(&[150.0, 151.0, 152.0], &[100.0, 101.0, 102.0])]);
        assert_eq!(c, vec![Some(RowCall::TooFew)]);
        assert_eq!(runs_needed(1), 4);
    }

    #[test]
    fn four_passes_a_side_that_never_overlap_decide_one_row() {
        let c = calls(&[(&[150.0, 151.0, 152.0, 153.0], &[100.0, 101.0, 102.0, 103.0])]);
        assert_eq!(c, vec![Some(RowCall::Better)]);
    }

    #[test]
    fn holm_asks_more_of_each_row_when_a_verdict_rests_on_several() {
        let a: &[f64] = &[150.0, 151.0, 152.0, 153.0];
        let b: &[f64] = &[100.0, 101.0, 102.0, 103.0];
        // p = 0.029 each: enough alone, not against 0.05/2.
        assert_eq!(calls(&[(a, b), (a, b)]), vec![Some(RowCall::TooFew); 2]);
        assert_eq!(runs_needed(2), 5);
        assert_eq!(runs_needed(8), 6);
        let a5: &[f64] = &[150.0, 151.0, 152.0, 153.0, 154.0];
        let b5: &[f64] = &[100.0, 101.0, 102.0, 103.0, 104.0];
        assert_eq!(
            calls(&[(a5, b5), (b5, a5)]),
            vec![Some(RowCall::Better), Some(RowCall::Worse)]
        );
    }

    #[test]
    fn a_difference_inside_the_runs_own_spread_is_not_a_pick() {
        // Never overlapping, but one side swings by far more than the gap.
        let a: &[f64] = &[106.0, 106.5, 107.0, 107.5, 108.0, 400.0];
        let b: &[f64] = &[100.0, 101.0, 102.0, 103.0, 104.0, 105.0];
        let c = calls(&[(a, b)]);
        assert_eq!(c, vec![Some(RowCall::Same)], "spread {}", spread(a));
    }

    #[test]
    fn within_five_percent_is_the_same_and_overlap_is_noise() {
        let c = calls(&[
            (
                &[103.0, 103.5, 104.0, 104.5, 105.0],
                &[100.0, 100.5, 101.0, 101.5, 102.0],
            ),
            (&[100.0, 120.0, 140.0], &[110.0, 130.0, 150.0]),
        ]);
        assert_eq!(c, vec![Some(RowCall::Same), Some(RowCall::Overlap)]);
    }

    #[test]
    fn latency_is_better_when_lower() {
        let cells = [cell(&[1.0, 1.1, 1.2, 1.3]), cell(&[2.0, 2.1, 2.2, 2.3])];
        let sides = [Sides {
            a: &cells[0],
            b: &cells[1],
        }];
        assert_eq!(call_rows(&sides, false), vec![Some(RowCall::Better)]);
    }
}
