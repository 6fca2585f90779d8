//! Statistics across repetitions of one test: best (CrystalDiskMark reports
//! the best run), mean, and spread, with a warning when runs disagree; and
//! two sets of repetitions set against each other (Mann-Whitney U).

use serde::Serialize;

use super::result::{DirectionResult, JobResult, RunResult};

/// Runs of one test whose spread exceeds this share of the mean get a warning.
pub const DISAGREEMENT: f64 = 0.15;

/// `±` in every view (the mark grid, compare's rows, the HTML report):
/// half the repetitions' range, as a share of the figure shown beside it
/// (docs/compare.md). `None` for a figure of 0.
pub fn half_range(min: f64, max: f64, shown: f64) -> Option<f64> {
    (shown > 0.0).then(|| (max - min).max(0.0) / 2.0 / shown)
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RepeatStats {
    pub runs: usize,
    /// The repetition with the highest throughput.
    pub best_bytes_per_sec: f64,
    pub best_iops: f64,
    /// Mean latency of that best repetition.
    pub best_lat_mean_ns: f64,
    pub mean_bytes_per_sec: f64,
    pub mean_iops: f64,
    pub min_bytes_per_sec: f64,
    /// (max - min) / mean of throughput across repetitions (the 15 %
    /// disagreement rule's measure; `±` is `half_range`).
    pub spread: f64,
    /// The lowest mean latency of any repetition (CrystalDiskMark's latency figure).
    pub min_lat_mean_ns: f64,
    /// The mean of the repetitions' mean latencies (KDiskMark's Default).
    pub mean_lat_mean_ns: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TestSummary {
    pub test: String,
    pub read: Option<RepeatStats>,
    pub write: Option<RepeatStats>,
    /// A mark Mix profile's mixed runs, reads and writes together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mix: Option<RepeatStats>,
}

/// One repetition's figures.
#[derive(Debug, Clone, Copy)]
struct Pass {
    bytes_per_sec: f64,
    iops: f64,
    lat_mean_ns: f64,
}

impl Pass {
    fn of(d: &DirectionResult) -> Pass {
        Pass {
            bytes_per_sec: d.bytes_per_sec,
            iops: d.iops,
            lat_mean_ns: d.lat_ns.mean,
        }
    }
    /// Reads and writes of one mixed job together; latency weighted by operations.
    fn mixed(job: &JobResult) -> Option<Pass> {
        let dirs: Vec<&DirectionResult> = job.read.iter().chain(job.write.iter()).collect();
        if dirs.is_empty() {
            return None;
        }
        let ops: u64 = dirs.iter().map(|d| d.ops).sum();
        let lat = if ops > 0 {
            dirs.iter().map(|d| d.lat_ns.mean * d.ops as f64).sum::<f64>() / ops as f64
        } else {
            0.0
        };
        Some(Pass {
            bytes_per_sec: dirs.iter().map(|d| d.bytes_per_sec).sum(),
            iops: dirs.iter().map(|d| d.iops).sum(),
            lat_mean_ns: lat,
        })
    }
}

pub fn stats(dirs: &[&DirectionResult]) -> Option<RepeatStats> {
    let passes: Vec<Pass> = dirs.iter().map(|d| Pass::of(d)).collect();
    pass_stats(&passes)
}

fn pass_stats(passes: &[Pass]) -> Option<RepeatStats> {
    let best = passes
        .iter()
        .max_by(|a, b| a.bytes_per_sec.total_cmp(&b.bytes_per_sec))?;
    let n = passes.len() as f64;
    let mean_bw = passes.iter().map(|d| d.bytes_per_sec).sum::<f64>() / n;
    let max_bw = best.bytes_per_sec;
    let min_bw = passes
        .iter()
        .map(|d| d.bytes_per_sec)
        .fold(f64::INFINITY, f64::min);
    // CrystalDiskMark keeps the lowest latency of the passes that moved data (`score > 0.0`).
    let min_lat = passes
        .iter()
        .filter(|p| p.bytes_per_sec > 0.0)
        .map(|p| p.lat_mean_ns)
        .fold(f64::INFINITY, f64::min);
    Some(RepeatStats {
        runs: passes.len(),
        best_bytes_per_sec: best.bytes_per_sec,
        best_iops: best.iops,
        best_lat_mean_ns: best.lat_mean_ns,
        mean_bytes_per_sec: mean_bw,
        mean_iops: passes.iter().map(|d| d.iops).sum::<f64>() / n,
        min_bytes_per_sec: min_bw,
        spread: if mean_bw > 0.0 {
            (max_bw - min_bw) / mean_bw
        } else {
            0.0
        },
        min_lat_mean_ns: if min_lat.is_finite() { min_lat } else { 0.0 },
        mean_lat_mean_ns: passes.iter().map(|d| d.lat_mean_ns).sum::<f64>() / n,
    })
}

/// A mark run's tests: read from its read-only runs, write from its
/// write-only runs, mix from its mixed runs (reads and writes together).
pub fn summarize_mark(run: &RunResult) -> Vec<TestSummary> {
    test_order(run)
        .into_iter()
        .map(|test| {
            let jobs = || {
                run.jobs
                    .iter()
                    .filter(|j| j.test.as_deref() == Some(test.as_str()))
            };
            let pure = |write: bool| {
                let passes: Vec<Pass> = jobs()
                    .filter(|j| j.job.does_writes() == write && j.job.does_reads() != write)
                    .filter_map(|j| if write { j.write.as_ref() } else { j.read.as_ref() })
                    .map(Pass::of)
                    .collect();
                pass_stats(&passes)
            };
            let mixed: Vec<Pass> = jobs()
                .filter(|j| j.job.does_reads() && j.job.does_writes())
                .filter_map(Pass::mixed)
                .collect();
            TestSummary {
                read: pure(false),
                write: pure(true),
                mix: pass_stats(&mixed),
                test,
            }
        })
        .collect()
}

fn test_order(run: &RunResult) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for j in &run.jobs {
        if let Some(t) = &j.test
            && !order.contains(t)
        {
            order.push(t.clone());
        }
    }
    order
}

/// Groups a suite run's jobs by test name, in the order tests first appear.
pub fn summarize_tests(run: &RunResult) -> Vec<TestSummary> {
    test_order(run)
        .into_iter()
        .map(|test| {
            let of = |write: bool| {
                let dirs: Vec<&DirectionResult> = run
                    .jobs
                    .iter()
                    .filter(|j| j.test.as_deref() == Some(test.as_str()))
                    .filter_map(|j| if write { j.write.as_ref() } else { j.read.as_ref() })
                    .collect();
                stats(&dirs)
            };
            TestSummary {
                read: of(false),
                write: of(true),
                mix: None,
                test,
            }
        })
        .collect()
}

/// Warnings for tests whose repetitions disagree by more than `DISAGREEMENT`.
pub fn disagreement_warnings(summaries: &[TestSummary]) -> Vec<super::Warning> {
    let mut out = Vec::new();
    for s in summaries {
        for (dir, st) in [("read", &s.read), ("write", &s.write), ("mix", &s.mix)] {
            if let Some(st) = st
                && st.runs > 1
                && st.spread > DISAGREEMENT
            {
                out.push(super::Warning::RepeatsDisagree {
                    test: s.test.clone(),
                    direction: Some(dir.to_string()),
                    runs: st.runs as u32,
                    spread_pct: st.spread * 100.0,
                    min: st.min_bytes_per_sec / 1e6,
                    max: st.best_bytes_per_sec / 1e6,
                    unit: "MB/s".to_string(),
                });
            }
        }
    }
    out
}

// Two sets of repetitions set against each other (`kura compare`, docs/compare.md).

/// Level of the two-sided rank test: below it, two sets of passes differ.
pub const SIGNIFICANCE: f64 = 0.05;

/// Above this much work (pooled size² × smaller size² × 2 additions) the
/// p-value comes from the normal approximation instead of the exact count.
const EXACT_WORK: f64 = 2e7;

/// The Mann-Whitney U test (Wilcoxon rank-sum) of passes `a` against
/// passes `b`, with Cliff's delta as the effect size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankTest {
    /// Mann and Whitney's U for `a`: pairs (a, b) with a > b, ties counted one half.
    pub u: f64,
    /// Two-sided p-value: twice the smaller tail, at most 1.
    pub p_value: f64,
    /// Whether `p_value` is exact (every split of the pooled ranks counted)
    /// rather than the normal approximation.
    pub exact: bool,
    /// Cliff's delta, P(a > b) - P(a < b) over all pairs: from -1 to 1,
    /// and ±1 exactly when every pass of one side beats every pass of the other.
    pub cliffs_delta: f64,
}

/// None when a side has no pass. Ties get midranks; the exact p-value is
/// then conditional on them, as HypothesisTests.jl's ExactMannWhitneyUTest
/// computes it by enumeration (here by counting rank sums instead).
pub fn rank_test(a: &[f64], b: &[f64]) -> Option<RankTest> {
    let (m, n) = (a.len(), b.len());
    if m == 0 || n == 0 {
        return None;
    }
    let (mut above, mut below) = (0usize, 0usize);
    for x in a {
        for y in b {
            match x.total_cmp(y) {
                std::cmp::Ordering::Greater => above += 1,
                std::cmp::Ordering::Less => below += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
    }
    let pairs = (m * n) as f64;
    let u = above as f64 + (m * n - above - below) as f64 / 2.0;
    let ranks = doubled_midranks(a, b);
    let total = m + n;
    let k = m.min(n);
    let exact = 2.0 * (total * total) as f64 * (k * k) as f64 <= EXACT_WORK;
    let p_value = if exact {
        // The smaller side's rank sum; its distribution holds both tails.
        let side = if m <= n { &ranks[..m] } else { &ranks[m..] };
        exact_two_sided(&ranks, side.iter().sum(), k)
    } else {
        normal_two_sided(u, m, n, &ranks)
    };
    Some(RankTest {
        u,
        p_value,
        exact,
        cliffs_delta: (above as f64 - below as f64) / pairs,
    })
}

/// Ranks of `a` then `b` in the pooled sample, ties at their mean rank, all
/// doubled so that a midrank (k + 0.5) stays an integer.
fn doubled_midranks(a: &[f64], b: &[f64]) -> Vec<u64> {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let mut order: Vec<usize> = (0..pooled.len()).collect();
    order.sort_by(|&i, &j| pooled[i].total_cmp(&pooled[j]));
    let mut ranks = vec![0u64; pooled.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && pooled[order[end]].total_cmp(&pooled[order[start]]).is_eq() {
            end += 1;
        }
        // Ranks start+1 ..= end (1-based); twice their mean is start + end + 1.
        for &i in &order[start..end] {
            ranks[i] = (start + end + 1) as u64;
        }
        start = end;
    }
    ranks
}

/// Under the null hypothesis every choice of `k` of the pooled ranks is as
/// likely as any other: count the choices by their rank sum (a subset-sum
/// count, which holds for tied ranks too) and take twice the smaller tail at
/// the observed sum.
fn exact_two_sided(ranks: &[u64], observed: u64, k: usize) -> f64 {
    let mut largest: Vec<u64> = ranks.to_vec();
    largest.sort_unstable_by(|a, b| b.cmp(a));
    let max_sum: u64 = largest[..k].iter().sum();
    let width = max_sum as usize + 1;
    // ways[j][s]: ways to choose j of the ranks seen so far with sum s.
    let mut ways = vec![vec![0f64; width]; k + 1];
    ways[0][0] = 1.0;
    for (seen, &r) in ranks.iter().enumerate() {
        let r = r as usize;
        for j in (1..=k.min(seen + 1)).rev() {
            let (lower, upper) = ways.split_at_mut(j);
            for s in (r..width).rev() {
                upper[0][s] += lower[j - 1][s - r];
            }
        }
    }
    let dist = &ways[k];
    let all: f64 = dist.iter().sum();
    let at_most: f64 = dist[..=(observed as usize).min(width - 1)].iter().sum();
    let at_least: f64 = dist[(observed as usize).min(width)..].iter().sum();
    (2.0 * at_most.min(at_least) / all).min(1.0)
}

/// The normal approximation with the tie correction of the variance and a
/// continuity correction of one half, as scipy.stats.mannwhitneyu's
/// `asymptotic` method and HypothesisTests.jl's ApproximateMannWhitneyUTest.
fn normal_two_sided(u: f64, m: usize, n: usize, doubled: &[u64]) -> f64 {
    let (mf, nf) = (m as f64, n as f64);
    let total = mf + nf;
    let mut sorted = doubled.to_vec();
    sorted.sort_unstable();
    let ties: f64 = sorted
        .chunk_by(|a, b| a == b)
        .map(|g| {
            let t = g.len() as f64;
            t * t * t - t
        })
        .sum();
    let variance = mf * nf / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - mf * nf / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

/// The complementary error function, fractional error below 1.2e-7
/// everywhere: Press et al., Numerical Recipes in C, 2nd ed., §6.2 (`erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.26551223,
        1.00002368,
        0.37409196,
        0.09678418,
        -0.18628806,
        0.27886807,
        -1.13520398,
        1.48851587,
        -0.82215223,
        0.17087277,
    ]
    .iter()
    .rev()
    .fold(0.0, |acc, c| acc * t + c);
    let ans = t * (-z * z + poly).exp();
    if x >= 0.0 { ans } else { 2.0 - ans }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: &[f64], b: &[f64]) -> f64 {
        rank_test(a, b).unwrap().p_value
    }

    /// scipy.stats.mannwhitneyu's documented example (exact, two-sided), and
    /// the exact cases statrs 0.19 checks against scipy (stats_tests/mannwhitneyu.rs).
    #[test]
    fn exact_p_values_match_scipy() {
        let male = [19.0, 22.0, 16.0, 29.0, 24.0];
        let female = [20.0, 11.0, 17.0, 12.0];
        let t = rank_test(&male, &female).unwrap();
        assert_eq!(t.u, 17.0);
        assert!(t.exact);
        assert!((t.p_value - 0.1111111111111111).abs() < 1e-12, "{}", t.p_value);
        assert_eq!(rank_test(&female, &male).unwrap().u, 3.0);
        let x = [5.0, 2.0, 7.0, 8.0, 9.0, 3.0, 11.0, 12.0];
        let y = [1.0, 6.0, 10.0, 4.0];
        assert_eq!(rank_test(&x, &y).unwrap().u, 21.0);
        assert!((p(&x, &y) - 0.46060606060606063).abs() < 1e-12);
    }

    /// HypothesisTests.jl's tests of ExactMannWhitneyUTest (test/mann_whitney.jl),
    /// with ties counted exactly given the midranks.
    #[test]
    fn exact_p_values_match_hypothesis_tests_jl_with_and_without_ties() {
        let ones: Vec<f64> = (1..=10).map(f64::from).collect();
        let odd: Vec<f64> = (0..10).map(|i| 2.1 + 2.0 * i as f64).collect();
        assert!((p(&ones, &odd) - 0.0232).abs() <= 1e-4);
        assert!((p(&odd, &ones) - 0.0232).abs() <= 1e-4);
        let tens: Vec<f64> = (0..10).map(|i| 1.5 + 10.0 * i as f64).collect();
        assert!((p(&tens, &odd) - 0.0068).abs() <= 1e-4);
        assert!((p(&ones, &ones) - 1.0).abs() <= 1e-4);
        let shifted: Vec<f64> = (2..=11).map(f64::from).collect();
        assert!((p(&ones, &shifted) - 0.5096).abs() <= 1e-4);
        assert!((p(&shifted, &ones) - 0.5096).abs() <= 1e-4);
    }

    /// What few passes can say: the smallest two-sided p-value is 2 / C(m+n, m),
    /// reached only when the sides do not overlap.
    #[test]
    fn few_passes_have_a_floor_under_the_p_value() {
        let separated = |m: usize, n: usize| {
            let a: Vec<f64> = (0..m).map(|i| 100.0 + i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| i as f64).collect();
            rank_test(&a, &b).unwrap()
        };
        for (m, n, floor) in [
            (2, 2, 2.0 / 6.0),
            (3, 3, 0.1),
            (3, 5, 2.0 / 56.0),
            (4, 4, 2.0 / 70.0),
            (5, 5, 2.0 / 252.0),
        ] {
            let t = separated(m, n);
            assert!((t.p_value - floor).abs() < 1e-12, "{m} vs {n}: {}", t.p_value);
            assert_eq!(t.cliffs_delta, 1.0);
        }
        assert_eq!(separated(3, 3).u, 9.0);
    }

    #[test]
    fn cliffs_delta_counts_pairs_and_ties_count_half_in_u() {
        let t = rank_test(&[1.0, 2.0, 3.0], &[2.0, 2.0, 4.0]).unwrap();
        // Pairs above: 3>2, 3>2 (2); below: 1<2,1<2,1<4,2<4,3<4 (5); ties: 2=2 twice.
        assert_eq!(t.u, 3.0);
        assert!((t.cliffs_delta - (2.0 - 5.0) / 9.0).abs() < 1e-12);
        assert_eq!(rank_test(&[], &[1.0]), None);
    }

    /// Past the exact count's budget the normal approximation takes over; on
    /// samples where both are computable they agree to a few thousandths.
    #[test]
    fn the_normal_approximation_agrees_with_the_exact_count() {
        let a: Vec<f64> = (0..30).map(|i| (i * 7 % 31) as f64 + 0.5).collect();
        let b: Vec<f64> = (0..30).map(|i| (i * 11 % 37) as f64).collect();
        let exact = p(&a, &b);
        let ranks = doubled_midranks(&a, &b);
        let u = rank_test(&a, &b).unwrap().u;
        let approx = normal_two_sided(u, a.len(), b.len(), &ranks);
        assert!((exact - approx).abs() < 0.005, "exact {exact}, normal {approx}");
        let big: Vec<f64> = (0..200).map(f64::from).collect();
        let t = rank_test(&big, &big).unwrap();
        assert!(!t.exact);
        assert!((t.p_value - 1.0).abs() < 1e-6);
    }

    /// Abramowitz and Stegun, Table 7.1: erfc(0.5) = 0.479500122, erfc(1) =
    /// 0.157299207, erfc(2) = 0.004677735.
    #[test]
    fn erfc_is_within_its_stated_error() {
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479500122),
            (1.0, 0.157299207),
            (2.0, 0.004677735),
        ] {
            assert!(
                ((erfc(x) - want) / want).abs() < 1.2e-7 + 1e-9,
                "erfc({x}) = {}",
                erfc(x)
            );
            assert!((erfc(-x) - (2.0 - want)).abs() < 1e-7);
        }
    }
}
