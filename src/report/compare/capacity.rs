//! Latency-bounded capacity scores side by side: each target's highest load
//! that held its bound, normalised to the baseline's (the seed's NAS table:
//! 1, 2.4, 4.75, 7). Two scores compare only when their bound agrees: the
//! same limit, statistic and kind of load; a target whose bound differs is
//! marked not comparable and gets no ratio.

use serde::Serialize;

use super::Target;
use crate::jobs::latency::{LatencyLoad, LatencyStat};
use crate::metrics::latency_bound::{Curve, curves};

/// The scores of every target, against the baseline's bound.
#[derive(Debug, Clone, Serialize)]
pub struct Capacity {
    /// The baseline's bound (or the first target's with a search, when the
    /// baseline has none): what every score here is held to.
    pub latency_limit_ns: u64,
    pub stat: LatencyStat,
    pub load: LatencyLoad,
    /// `mean latency under 6 ms, raising the offered rate`.
    pub bound: String,
    pub scores: Vec<Score>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Score {
    /// Index into the comparison's `targets`.
    pub target: usize,
    /// The highest load that held, in I/Os per second (the offered rate of
    /// a rate search; the achieved IOPS at the best queue depth or thread
    /// count of the others), the mean of the target's runs; `None` when no
    /// load held or the target has no search.
    pub score_iops: Option<f64>,
    /// Runs whose searches the score averages.
    pub repetitions: usize,
    /// score / the baseline's score (1 for the baseline).
    pub ratio: Option<f64>,
    /// Why this target's score cannot be set against the baseline's.
    pub not_comparable: Option<String>,
}

fn bound_of(c: &Curve) -> String {
    crate::report::latency_table::bound_text(c)
}

/// `p99 under 5 ms, by rate`: a bound in a few words, for notes.
fn short_bound(c: &Curve) -> String {
    crate::t!(
        "capacity-short-bound",
        stat = crate::i18n::heading(c.stat.name()),
        limit = crate::report::latency_table::limit_text(c.latency_limit_ns as f64),
        load = c.load.name()
    )
}

/// `None` when no compared run holds a latency-bounded search.
pub fn build(targets: &[Target], baseline: usize) -> Option<Capacity> {
    // Each run's first search: a run with several compares by its first.
    let per_target: Vec<Vec<Curve>> = targets
        .iter()
        .map(|t| {
            t.runs
                .iter()
                .filter_map(|r| curves(r).into_iter().next())
                .collect()
        })
        .collect();
    let reference = per_target[baseline]
        .first()
        .or_else(|| per_target.iter().find_map(|c| c.first()))?
        .clone();
    let agrees = |c: &Curve| {
        c.latency_limit_ns == reference.latency_limit_ns
            && c.stat == reference.stat
            && c.load == reference.load
    };
    let mut scores: Vec<Score> = per_target
        .iter()
        .enumerate()
        .map(|(i, cs)| {
            let differing = cs.iter().find(|c| !agrees(c));
            let not_comparable = match (cs.is_empty(), differing) {
                (true, _) => Some(crate::t!("capacity-no-search")),
                (false, Some(c)) => Some(crate::t!(
                    "capacity-other-bound",
                    bound = short_bound(c),
                    baseline = short_bound(&reference)
                )),
                (false, None) => None,
            };
            let held: Vec<f64> = cs.iter().filter_map(Curve::score_iops).collect();
            let score_iops = (!held.is_empty()).then(|| held.iter().sum::<f64>() / held.len() as f64);
            Score {
                target: i,
                score_iops,
                repetitions: cs.len(),
                ratio: None,
                not_comparable,
            }
        })
        .collect();
    let base = scores[baseline]
        .score_iops
        .filter(|_| scores[baseline].not_comparable.is_none());
    for s in &mut scores {
        if s.not_comparable.is_none()
            && let (Some(v), Some(b)) = (s.score_iops, base)
            && b > 0.0
        {
            s.ratio = Some(v / b);
        }
    }
    Some(Capacity {
        latency_limit_ns: reference.latency_limit_ns,
        stat: reference.stat,
        load: reference.load,
        bound: bound_of(&reference),
        scores,
    })
}
