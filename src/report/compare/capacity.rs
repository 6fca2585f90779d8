//! Latency-bounded capacity scores side by side: each target's highest load
//! that held its bound, normalised to the baseline's (the seed's NAS table:
//! 1, 2.4, 4.75, 7). Two scores compare only when their bound agrees: the
//! same limit, statistic and kind of load; a target whose bound differs is
//! marked not comparable and gets no ratio. A search that never crossed its
//! limit scored a lower bound, and a ratio with one is bounded one way.

use serde::Serialize;

use super::{Comparison, Target};
use crate::jobs::latency::{LatencyLoad, LatencyStat};
use crate::metrics::latency_bound::{Curve, curves};
use crate::report::export::Grid;
use crate::report::latency_table::grouped;

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
    /// The score is a lower bound: a search it averages never crossed the
    /// limit (`Curve::lower_bound`), so the target carries at least this.
    pub lower_bound: bool,
    /// What `ratio` is, given which scores are lower bounds.
    pub ratio_bound: RatioBound,
}

/// What a ratio of two scores says when either is a lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RatioBound {
    /// Both scores found their knee.
    Exact,
    /// This target's score is a lower bound, the baseline's is not: the
    /// true ratio is at least this.
    AtLeast,
    /// The baseline's score is a lower bound, this target's is not.
    AtMost,
    /// Both are lower bounds: the ratio says nothing either way.
    Unknown,
}

impl RatioBound {
    fn of(target_lower: bool, baseline_lower: bool) -> RatioBound {
        match (target_lower, baseline_lower) {
            (false, false) => RatioBound::Exact,
            (true, false) => RatioBound::AtLeast,
            (false, true) => RatioBound::AtMost,
            (true, true) => RatioBound::Unknown,
        }
    }
}

impl Score {
    /// `4,108 IOPS`, `>= 4,108 IOPS` for a lower bound, `none held`.
    pub fn score_text(&self) -> String {
        match self.score_iops {
            Some(v) if self.lower_bound => format!(">= {} IOPS", grouped(v)),
            Some(v) => format!("{} IOPS", grouped(v)),
            None => crate::t!("capacity-none-held"),
        }
    }

    /// `2.05`, `>= 2.05`, `<= 0.49` or `? 1.30` (see `RatioBound`); `-` without a ratio.
    pub fn ratio_text(&self) -> String {
        let Some(r) = self.ratio else {
            return "-".into();
        };
        match self.ratio_bound {
            RatioBound::Exact => format!("{r:.2}"),
            RatioBound::AtLeast => format!(">= {r:.2}"),
            RatioBound::AtMost => format!("<= {r:.2}"),
            RatioBound::Unknown => format!("? {r:.2}"),
        }
    }

    /// The note column: why the score is not comparable, or that it is a lower bound.
    pub fn note_text(&self) -> String {
        match (&self.not_comparable, self.lower_bound) {
            (Some(why), _) => crate::t!("compare-not-comparable", why = why.as_str()),
            (None, true) => crate::t!("capacity-lower-bound"),
            (None, false) => String::new(),
        }
    }
}

impl Capacity {
    /// Whether any score is a lower bound (the legend then explains `>=`).
    pub fn any_lower_bound(&self) -> bool {
        self.scores.iter().any(|s| s.lower_bound)
    }

    /// One sentence per ratio that involves a lower bound, saying which way
    /// it is bounded: what guidance can say about those targets.
    pub fn conclusions(&self, names: &[String], baseline: usize) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.scores.iter().filter(|s| s.target != baseline) {
            let Some(r) = s.ratio else { continue };
            let key = match s.ratio_bound {
                RatioBound::Exact => continue,
                RatioBound::AtLeast => "capacity-conclusion-at-least",
                RatioBound::AtMost => "capacity-conclusion-at-most",
                RatioBound::Unknown => "capacity-conclusion-unknown",
            };
            out.push(crate::t!(
                key,
                target = names[s.target].as_str(),
                baseline = names[baseline].as_str(),
                ratio = format!("{r:.2}"),
                bound = self.bound.as_str()
            ));
        }
        out
    }
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
                // A mean with one lower bound in it is a lower bound of the mean.
                lower_bound: cs.iter().any(Curve::lower_bound),
                ratio_bound: RatioBound::Exact,
            }
        })
        .collect();
    let base = scores[baseline]
        .score_iops
        .filter(|_| scores[baseline].not_comparable.is_none());
    let base_lower = scores[baseline].lower_bound;
    for s in &mut scores {
        if s.not_comparable.is_none()
            && let (Some(v), Some(b)) = (s.score_iops, base)
            && b > 0.0
        {
            s.ratio = Some(v / b);
            s.ratio_bound = match s.target == baseline {
                true => RatioBound::Exact,
                false => RatioBound::of(s.lower_bound, base_lower),
            };
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

/// compare's CSV, when the runs hold searches (else it is left as it was):
/// a `lower_bound` column after the others (empty on the rows), then one
/// line per target's score, in the rows' columns:
/// `section` `latency_bound`, `row` the bound (`mean under 6 ms by rate`), `metric` `latency-bound`,
/// `unit` `IOPS`. Columns are found by name, so rows may gain columns.
pub fn add_csv(c: &Comparison, g: &mut Grid) {
    let Some(cap) = &c.latency_bound else { return };
    g.header.push("lower_bound".into());
    for row in &mut g.rows {
        row.push(String::new());
    }
    // Machine text, the same in every language: `mean under 6 ms by rate`.
    let bound = format!(
        "{} under {} by {}",
        cap.stat.name(),
        crate::report::latency_table::limit_text(cap.latency_limit_ns as f64),
        cap.load.name()
    );
    for s in &cap.scores {
        let mut row = vec![String::new(); g.header.len()];
        let mut set = |column: &str, value: String| {
            if let Some(i) = g.header.iter().position(|h| h == column) {
                row[i] = value;
            }
        };
        set("section", "latency_bound".into());
        set("row", bound.clone());
        set("target", c.targets[s.target].name.clone());
        set("baseline", (s.target == c.baseline).to_string());
        set("repetitions", s.repetitions.to_string());
        set("metric", "latency-bound".into());
        set("unit", "IOPS".into());
        set("better", "higher".into());
        if let Some(v) = s.score_iops {
            set("value", format!("{v:.3}"));
            set("iops", format!("{v:.3}"));
        }
        if let Some(r) = s.ratio {
            set("ratio", format!("{r:.4}"));
        }
        set("not_comparable", s.not_comparable.clone().unwrap_or_default());
        set("lower_bound", s.lower_bound.to_string());
        g.rows.push(row);
    }
}

/// What follows the scores: the legend of `>=` and one sentence per ratio
/// bounded by a lower bound; nothing when no score is one.
pub fn notes(c: &Comparison) -> Vec<String> {
    let Some(cap) = c.latency_bound.as_ref().filter(|cap| cap.any_lower_bound()) else {
        return Vec::new();
    };
    let names: Vec<String> = c.targets.iter().map(|t| t.name.clone()).collect();
    let mut out = vec![crate::t!("capacity-lower-bound-note")];
    out.extend(cap.conclusions(&names, c.baseline));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::latency::Phase;
    use crate::report::compare::{CompareOptions, build_targets, render};
    use crate::report::fixtures::run;
    use crate::report::latency_table::tests::step;

    /// `a` found its knee at 200 IOPS; `b`'s unthrottled probe held at 900,
    /// so its score is a lower bound and so is b / a; a / b is an upper one.
    fn targets() -> Vec<Target> {
        let a = run(
            "",
            vec![
                step(0, Phase::Probe, None, 2000, 5_000_000),
                step(1, Phase::Climb, Some(200), 200, 300_000),
                step(2, Phase::Climb, Some(300), 300, 2_000_000),
            ],
        );
        let b = run("", vec![step(0, Phase::Probe, None, 900, 300_000)]);
        vec![
            Target {
                name: "a".into(),
                runs: vec![a],
            },
            Target {
                name: "b".into(),
                runs: vec![b],
            },
        ]
    }

    #[test]
    fn a_ratio_with_a_lower_bound_is_bounded_one_way() {
        let c = build_targets(&targets(), &CompareOptions::default()).unwrap();
        let cap = c.latency_bound.as_ref().unwrap();
        let (a, b) = (&cap.scores[0], &cap.scores[1]);
        assert!(!a.lower_bound && b.lower_bound);
        assert_eq!(
            (a.score_text(), b.score_text()),
            ("200 IOPS".into(), ">= 900 IOPS".into())
        );
        assert_eq!(b.ratio_bound, RatioBound::AtLeast);
        assert_eq!(b.ratio_text(), ">= 4.50");
        assert_eq!(a.ratio_text(), "1.00", "the baseline against itself");
        let notes = notes(&c).join(" ");
        assert!(
            notes.contains("b carries at least 4.50x the load of a"),
            "{notes}"
        );

        let against_b = CompareOptions {
            baseline: 1,
            ..CompareOptions::default()
        };
        let c = build_targets(&targets(), &against_b).unwrap();
        let a = &c.latency_bound.as_ref().unwrap().scores[0];
        assert_eq!(
            (a.ratio_bound, a.ratio_text()),
            (RatioBound::AtMost, "<= 0.22".into())
        );
        let text = render::table(&c);
        assert!(text.contains(">= 900 IOPS") && text.contains("<= 0.22"), "{text}");
    }

    /// compare's CSV carries the scores (it printed only its header for
    /// runs of searches alone), each with `lower_bound`.
    #[test]
    fn csv_has_a_line_per_score() {
        let c = build_targets(&targets(), &CompareOptions::default()).unwrap();
        let csv = render::csv(&c);
        let lines: Vec<&str> = csv.lines().collect();
        let header: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(header.last(), Some(&"lower_bound"));
        let rows: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 2, "{csv}");
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        for (row, (target, value, lower)) in rows
            .iter()
            .zip([("a", "200.000", "false"), ("b", "900.000", "true")])
        {
            assert_eq!(row.len(), header.len());
            assert_eq!(row[col("section")], "latency_bound");
            assert_eq!(row[col("row")], "mean under 1 ms by rate");
            assert_eq!(row[col("target")], target);
            assert_eq!(row[col("value")], value);
            assert_eq!(row[col("unit")], "IOPS");
            assert_eq!(row[col("lower_bound")], lower);
        }
        assert_eq!(rows[1][col("ratio")], "4.5000");
    }
}
