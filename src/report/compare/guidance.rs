//! Conclusions from measured rows only: per workload class, which target is
//! faster and by what factor (the geometric mean of the rows' ratios, so a
//! 2x row and a 0.5x row cancel), or that the runs cannot tell them apart
//! (the rows' own verdicts, rows.rs `noise`); with prices, which gives more
//! performance per money. No text here knows about devices.

use super::{
    CompareOptions, Direction, Guidance, Metric, Noise, Repeated, Row, TargetSummary, Verdict, WorkloadClass,
};

/// Factors within this share of 1 are "about the same": without repeats
/// there is no spread to judge by, and a few percent is run-to-run variation
/// on most devices.
pub const SAME_WITHIN: f64 = 0.05;

const CLASSES: [WorkloadClass; 5] = [
    WorkloadClass::SequentialLarge,
    WorkloadClass::RandomSmallQd1,
    WorkloadClass::RandomSmallDeep,
    WorkloadClass::Mixed,
    WorkloadClass::All,
];

fn in_class(row: &Row, rows: &[Row], class: WorkloadClass) -> bool {
    match class {
        // Every row once: a mixed job counts by its total, not its parts
        // too, whatever the job (a block job's read share, or a file set's
        // or a vdbench file's reads and writes).
        WorkloadClass::All => !row.part_of_a_total(rows),
        c => row.class == Some(c),
    }
}

/// One row's ratio, oriented so that above 1 the target is better, and
/// whether its repetitions overlap with no difference found.
#[derive(Debug, Clone, Copy)]
struct RowFactor {
    factor: f64,
    overlapping: bool,
    /// A row of reads (`Some(true)`) or of writes (`Some(false)`).
    reads: Option<bool>,
}

/// `repeated`: what the repetitions are, for the words (passes or runs).
pub(super) fn build(
    rows: &[Row],
    targets: &[TargetSummary],
    opts: &CompareOptions,
    repeated: Repeated,
) -> Vec<Guidance> {
    let base = opts.baseline;
    // Runs whose rows fall in no class (bonnie++'s tests, file sets,
    // databases) get "all rows" alone, not four lines of "no comparable
    // rows" for classes their kind has none of.
    let classed = rows.iter().any(|r| r.class.is_some());
    // MB/s rows beside rows of operations that move no bytes, compared in
    // ops/s (rows.rs): the factor is of each row's own rate.
    let by = if rows.iter().any(|r| r.unit != opts.metric.unit()) {
        crate::t!("metric-mbps-or-ops")
    } else {
        metric_title(opts.metric)
    };
    let mut out = Vec::new();
    for t in (0..targets.len()).filter(|t| *t != base) {
        for class in CLASSES
            .into_iter()
            .filter(|c| classed || *c == WorkloadClass::All)
        {
            let mut factors = Vec::new();
            for row in rows.iter().filter(|r| in_class(r, rows, class)) {
                let Some(cell) = &row.cells[t] else { continue };
                let Some(ratio) = cell.ratio.filter(|r| *r > 0.0 && r.is_finite()) else {
                    continue;
                };
                factors.push(RowFactor {
                    factor: if opts.metric.is_throughput() {
                        ratio
                    } else {
                        1.0 / ratio
                    },
                    overlapping: cell.noise == Some(Noise::WithinNoise),
                    reads: match row.direction {
                        Direction::Read => Some(true),
                        Direction::Write => Some(false),
                        _ => None,
                    },
                });
            }
            if factors.is_empty() && class == WorkloadClass::All {
                continue;
            }
            let on = Basis {
                metric: opts.metric,
                by: by.clone(),
                repeated,
            };
            out.push(conclude(class, t, &factors, targets, base, on));
        }
    }
    out
}

/// The rows' factors of one class, summarised.
struct Factors {
    rows: usize,
    /// Geometric mean: a 2x row and a 0.5x row cancel.
    mean: f64,
    lo: f64,
    hi: f64,
    /// Rows better (worse) by more than `SAME_WITHIN`, among those whose
    /// repetitions do not overlap without a difference: a row the runs cannot
    /// decide makes no target faster in it.
    better: usize,
    worse: usize,
    /// Rows whose repetitions overlap and the test finds no difference.
    overlapping: usize,
}

fn same(f: f64) -> bool {
    (1.0 / (1.0 + SAME_WITHIN)..=1.0 + SAME_WITHIN).contains(&f)
}

impl Factors {
    /// None for no factor: there is nothing to summarise.
    fn of(rows: &[RowFactor]) -> Option<Factors> {
        if rows.is_empty() {
            return None;
        }
        let factors = || rows.iter().map(|r| r.factor);
        let decided = || rows.iter().filter(|r| !r.overlapping).map(|r| r.factor);
        Some(Factors {
            rows: rows.len(),
            mean: (factors().map(f64::ln).sum::<f64>() / rows.len() as f64).exp(),
            lo: factors().fold(f64::INFINITY, f64::min),
            hi: factors().fold(f64::NEG_INFINITY, f64::max),
            better: decided().filter(|f| *f > 1.0 && !same(*f)).count(),
            worse: decided().filter(|f| *f < 1.0 && !same(*f)).count(),
            overlapping: rows.iter().filter(|r| r.overlapping).count(),
        })
    }

    fn verdict(&self) -> Verdict {
        if self.overlapping == self.rows {
            Verdict::WithinNoise
        } else if same(self.mean) && (self.better == 0 || self.worse == 0) {
            Verdict::Same
        } else if self.better > 0 && self.worse > 0 {
            Verdict::Mixed
        } else if self.mean > 1.0 {
            Verdict::Better
        } else {
            Verdict::Worse
        }
    }

    /// How many rows, their range when more than one, and in how many of
    /// them the runs could not tell the targets apart.
    fn rows_text(&self, repeated: Repeated) -> String {
        let rows = if self.rows == 1 {
            crate::t!("guidance-one-row")
        } else {
            crate::t!(
                "guidance-rows",
                n = self.rows,
                lo = format!("{:.2}", self.lo),
                hi = format!("{:.2}", self.hi)
            )
        };
        if self.overlapping > 0 && self.overlapping < self.rows {
            crate::t!(
                "guidance-rows-overlapping",
                rows = rows,
                n = self.overlapping,
                unit = repeated.key()
            )
        } else {
            rows
        }
    }
}

/// Who is compared, in what, for the sentences.
struct Names<'a> {
    title: String,
    tn: &'a str,
    bn: &'a str,
    /// The metric's name.
    by: String,
    repeated: Repeated,
}

fn verdict_text(verdict: Verdict, f: &Factors, n: &Names) -> String {
    let (title, tn, bn, by) = (n.title.as_str(), n.tn, n.bn, n.by.as_str());
    let rows = f.rows_text(n.repeated);
    let g = format!("{:.2}", f.mean);
    match verdict {
        Verdict::WithinNoise => crate::t!(
            "guidance-within-noise",
            title = title,
            tn = tn,
            bn = bn,
            rows = rows,
            unit = n.repeated.key()
        ),
        Verdict::Same => crate::t!(
            "guidance-same",
            title = title,
            tn = tn,
            bn = bn,
            pct = format!("{:.0}", SAME_WITHIN * 100.0),
            by = by,
            g = g.as_str(),
            rows = rows
        ),
        Verdict::Mixed => crate::t!(
            "guidance-mixed",
            title = title,
            tn = tn,
            bn = bn,
            better = f.better,
            worse = f.worse,
            by = by,
            g = g.as_str(),
            rows = rows
        ),
        Verdict::Better => crate::t!(
            "guidance-better",
            title = title,
            tn = tn,
            bn = bn,
            g = g.as_str(),
            by = by,
            rows = rows
        ),
        Verdict::Worse => crate::t!(
            "guidance-worse",
            title = title,
            tn = tn,
            bn = bn,
            g = format!("{:.2}", 1.0 / f.mean),
            by = by,
            rows = rows
        ),
        Verdict::NotMeasured => not_measured_text(n),
    }
}

fn not_measured_text(n: &Names) -> String {
    crate::t!(
        "guidance-not-measured",
        title = n.title.as_str(),
        tn = n.tn,
        bn = n.bn
    )
}

/// The sentence on performance per money: `price` the target's price over
/// the baseline's, `value` its performance over that.
fn price_text(price: f64, value: f64, currency: &str, metric: Metric, n: &Names) -> String {
    let by = n.by.as_str();
    let per = if metric.is_throughput() {
        crate::t!("guidance-per-throughput", by = by, cur = currency)
    } else {
        crate::t!("guidance-per-performance", by = by, cur = currency)
    };
    let who = if same(value) {
        crate::t!("guidance-same-value")
    } else if value > 1.0 {
        crate::t!("guidance-cheaper", who = n.tn)
    } else {
        crate::t!("guidance-cheaper", who = n.bn)
    };
    crate::t!(
        "guidance-price",
        p = format!("{price:.2}"),
        bn = n.bn,
        tn = n.tn,
        v = format!("{value:.2}"),
        per = per,
        who = who
    )
}

/// What the factors are of: the metric, its name in the sentences, and
/// what the repetitions are.
struct Basis {
    metric: Metric,
    by: String,
    repeated: Repeated,
}

fn conclude(
    class: WorkloadClass,
    t: usize,
    factors: &[RowFactor],
    targets: &[TargetSummary],
    base: usize,
    on: Basis,
) -> Guidance {
    let Basis { metric, by, repeated } = on;
    let names = Names {
        title: class_title(class),
        tn: &targets[t].name,
        bn: &targets[base].name,
        by,
        repeated,
    };
    let price_ratio = targets[t].price_ratio;
    let Some(f) = Factors::of(factors) else {
        return Guidance {
            class,
            target: t,
            rows: 0,
            factor: None,
            min_factor: None,
            max_factor: None,
            verdict: Verdict::NotMeasured,
            price_ratio,
            value_per_price_ratio: None,
            text: not_measured_text(&names),
        };
    };
    let verdict = f.verdict();
    let mut text = verdict_text(verdict, &f, &names);
    let value_per_price_ratio = price_ratio.map(|p| f.mean / p);
    if let (Some(p), Some(v), Some(cur)) = (price_ratio, value_per_price_ratio, &targets[t].currency) {
        text.push_str(&price_text(p, v, cur, metric, &names));
    }
    text.push_str(&crate::t!("guidance-end"));
    let per_price = value_per_price_ratio.filter(|_| targets[t].currency.is_some());
    text.push_str(&pick_text(verdict, factors, per_price, &names));
    Guidance {
        class,
        target: t,
        rows: f.rows,
        factor: Some(f.mean),
        min_factor: Some(f.lo),
        max_factor: Some(f.hi),
        verdict,
        price_ratio,
        value_per_price_ratio,
        text,
    }
}

/// Which target to pick for the class's work, a sentence to paste into a
/// report (the published CrystalDiskMark comparison ends with this advice
/// per workload class). `per_price`: the target's performance per money
/// over the baseline's, when both have prices.
fn pick_text(verdict: Verdict, rows: &[RowFactor], per_price: Option<f64>, n: &Names) -> String {
    let cheaper = |v: f64| (!same(v)).then_some(v > 1.0);
    match verdict {
        Verdict::Better => pick_faster(n.tn, n.bn, per_price.and_then(cheaper)),
        Verdict::Worse => pick_faster(n.bn, n.tn, per_price.and_then(cheaper).map(|t| !t)),
        Verdict::Mixed => match split_by_direction(rows) {
            Some(true) => crate::t!("guidance-pick-by-direction", reads = n.tn, writes = n.bn),
            Some(false) => crate::t!("guidance-pick-by-direction", reads = n.bn, writes = n.tn),
            None => crate::t!("guidance-pick-none"),
        },
        Verdict::Same | Verdict::WithinNoise => match per_price.and_then(cheaper) {
            Some(true) => crate::t!("guidance-pick-cheaper", who = n.tn),
            Some(false) => crate::t!("guidance-pick-cheaper", who = n.bn),
            None => crate::t!("guidance-pick-either"),
        },
        Verdict::NotMeasured => String::new(),
    }
}

/// `fast` is faster; `fast_is_cheaper` whether it also costs less per performance.
fn pick_faster(fast: &str, slow: &str, fast_is_cheaper: Option<bool>) -> String {
    match fast_is_cheaper {
        Some(true) => crate::t!("guidance-pick-faster-cheaper", who = fast),
        Some(false) => crate::t!("guidance-pick-faster-dearer", who = fast, other = slow),
        None => crate::t!("guidance-pick", who = fast),
    }
}

/// `Some(true)` when the decided read rows all favour the target and the
/// write rows all the baseline, `Some(false)` the other way round; `None`
/// when the split is not that clean (or a direction is missing).
fn split_by_direction(rows: &[RowFactor]) -> Option<bool> {
    let decided = |reads: bool| {
        rows.iter()
            .filter(move |r| r.reads == Some(reads) && !r.overlapping && !same(r.factor))
            .map(|r| r.factor > 1.0)
            .collect::<Vec<bool>>()
    };
    let (reads, writes) = (decided(true), decided(false));
    if reads.is_empty() || writes.is_empty() {
        return None;
    }
    let all = |v: &[bool], b: bool| v.iter().all(|x| *x == b);
    match (
        all(&reads, true) && all(&writes, false),
        all(&reads, false) && all(&writes, true),
    ) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// The class's title in the current language (`WorkloadClass::title` is English).
fn class_title(class: WorkloadClass) -> String {
    crate::t!(match class {
        WorkloadClass::SequentialLarge => "class-sequential-large",
        WorkloadClass::RandomSmallQd1 => "class-random-small-qd1",
        WorkloadClass::RandomSmallDeep => "class-random-small-deep",
        WorkloadClass::Mixed => "class-mixed",
        WorkloadClass::All => "class-all",
    })
}

/// The metric's name in the current language (`Metric::title` is English).
fn metric_title(metric: Metric) -> String {
    crate::t!(match metric {
        Metric::Mbps => "metric-mbps",
        Metric::Iops => "metric-iops",
        Metric::LatMean => "metric-lat-mean",
        Metric::LatP99 => "metric-lat-p99",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(name: &str, price_ratio: Option<f64>) -> TargetSummary {
        TargetSummary {
            name: name.into(),
            run_ids: vec![1],
            label: None,
            price_text: None,
            price: None,
            price_per_month: None,
            currency: price_ratio.map(|_| "USD".to_string()),
            price_ratio,
            path: String::new(),
            device_model: None,
            volume: String::new(),
            hostname: String::new(),
            incomplete: false,
        }
    }

    fn verdict_of(factors: &[f64], all_noise: bool, price_ratio: Option<f64>) -> Guidance {
        let rows: Vec<RowFactor> = factors
            .iter()
            .map(|&factor| RowFactor {
                factor,
                overlapping: all_noise,
                reads: None,
            })
            .collect();
        rows_verdict(&rows, price_ratio)
    }

    fn rows_verdict(rows: &[RowFactor], price_ratio: Option<f64>) -> Guidance {
        let targets = [target("old", Some(1.0)), target("new", price_ratio)];
        crate::i18n::in_english(|| {
            conclude(
                WorkloadClass::RandomSmallQd1,
                1,
                rows,
                &targets,
                0,
                Basis {
                    metric: Metric::Mbps,
                    by: metric_title(Metric::Mbps),
                    repeated: Repeated::Passes,
                },
            )
        })
    }

    /// "All rows" counts a job that reads and writes once, by its total,
    /// whatever kind of job it is: a vdbench file-system run's reads and
    /// writes (a file set, read share unset) are not three rows.
    #[test]
    fn all_rows_count_a_reading_and_writing_job_once() {
        use crate::jobs::{Rw, Workload};
        use crate::report::fixtures::{job, run};
        let fs = |id: i64, ops: u64| {
            let mut j = job("rd1", Rw::RandRead, 4096, 100, Some(ops), Some(ops));
            j.job.workload = Workload::FileSet(Default::default());
            let mut r = run("vdbench", vec![j]);
            (r.id, r.label) = (Some(id), Some(format!("fs {id}")));
            r
        };
        let c = crate::i18n::in_english(|| {
            crate::report::compare::build(&[fs(1, 1000), fs(2, 2000)], &Default::default()).unwrap()
        });
        let dirs: Vec<Direction> = c.rows.iter().map(|r| r.direction).collect();
        assert_eq!(dirs, [Direction::Read, Direction::Write, Direction::Total]);
        let all = c.guidance.iter().find(|g| g.class == WorkloadClass::All).unwrap();
        assert_eq!((all.rows, all.factor), (1, Some(2.0)), "{}", all.text);
        assert!(all.text.contains("(1 row)"), "{}", all.text);
    }

    /// Rows of a kind with no workload class (bonnie++'s tests) get "all
    /// rows" alone, and their rates are named as what they are: MB/s
    /// beside ops/s for a create or a stat.
    #[test]
    fn rows_outside_every_class_are_all_rows_by_their_own_rates() {
        use crate::jobs::{Rw, Workload};
        use crate::report::fixtures::{direction, job, run};
        let bonnie = |id: i64, ops: u64| {
            let mut j = job("Sequential Create", Rw::RandRead, 4096, 100, Some(ops), None);
            j.job.workload = Workload::FileSet(Default::default());
            j.read = None;
            j.operations
                .insert(crate::jobs::OpKind::Create, direction(ops, 0, &[1_000_000]));
            let mut r = run("bonnie", vec![j]);
            (r.id, r.label) = (Some(id), Some(format!("disk {id}")));
            r
        };
        let c = crate::i18n::in_english(|| {
            crate::report::compare::build(&[bonnie(1, 1000), bonnie(2, 2000)], &Default::default()).unwrap()
        });
        assert!(c.rows.iter().all(|r| r.class.is_none()), "{:?}", c.rows);
        // A program reading the JSON learns each row's unit from the row.
        assert_eq!(c.unit, "MB/s");
        assert!(c.rows.iter().all(|r| r.unit == "IOPS"), "{:?}", c.rows);
        let classes: Vec<WorkloadClass> = c.guidance.iter().map(|g| g.class).collect();
        assert_eq!(classes, [WorkloadClass::All]);
        assert!(c.guidance[0].text.contains("ops/s"), "{}", c.guidance[0].text);
    }

    /// A row whose passes overlap says neither target is faster in it: it
    /// does not make the class "mixed", though its ratio counts in the mean.
    #[test]
    fn an_undecided_row_is_not_a_row_the_baseline_wins() {
        let rows = [
            RowFactor {
                factor: 3.0,
                overlapping: false,
                reads: None,
            },
            RowFactor {
                factor: 0.8,
                overlapping: true,
                reads: None,
            },
        ];
        let g = rows_verdict(&rows, None);
        assert_eq!(g.verdict, Verdict::Better, "{}", g.text);
        assert!(
            g.text
                .ends_with("(2 rows, 0.80x to 3.00x; passes overlap in 1). Pick new for this work."),
            "{}",
            g.text
        );
        let decided = [
            rows[0],
            RowFactor {
                overlapping: false,
                reads: None,
                ..rows[1]
            },
        ];
        assert_eq!(rows_verdict(&decided, None).verdict, Verdict::Mixed);
    }

    #[test]
    fn no_factor_is_not_measured() {
        let g = verdict_of(&[], false, None);
        assert_eq!(g.verdict, Verdict::NotMeasured);
        assert_eq!((g.rows, g.factor), (0, None));
        assert_eq!(
            g.text,
            "little I/O (small random blocks, queue depth 1): no comparable rows measured on both new \
             and old."
        );
    }

    #[test]
    fn the_factor_is_the_geometric_mean_so_opposite_rows_cancel() {
        let g = verdict_of(&[2.0, 0.5], false, None);
        assert!((g.factor.unwrap() - 1.0).abs() < 1e-12);
        assert_eq!((g.min_factor, g.max_factor), (Some(0.5), Some(2.0)));
        assert_eq!(g.verdict, Verdict::Mixed);
        assert_eq!(
            g.text,
            "little I/O (small random blocks, queue depth 1): neither is faster throughout: new is \
             faster in 1 row(s), old in 1 (by MB/s; geometric mean 1.00x; 2 rows, 0.50x to 2.00x). \
             No single pick: choose by the rows above that match your workload."
        );
    }

    #[test]
    fn verdicts_follow_the_rows() {
        let cases: [(&[f64], bool, Verdict); 6] = [
            (&[1.5, 0.7], true, Verdict::WithinNoise),
            (&[1.02, 1.03], false, Verdict::Same),
            // Within 5 % overall and no row worse: the same, though one row is better.
            (&[1.0, 1.08], false, Verdict::Same),
            (&[1.5, 1.2], false, Verdict::Better),
            (&[0.5], false, Verdict::Worse),
            (&[1.3, 0.9], false, Verdict::Mixed),
        ];
        for (factors, all_noise, want) in cases {
            assert_eq!(verdict_of(factors, all_noise, None).verdict, want, "{factors:?}");
        }
    }

    #[test]
    fn texts_say_who_is_faster_by_how_much() {
        let text = |factors: &[f64]| verdict_of(factors, false, None).text;
        assert_eq!(
            text(&[2.0]),
            "little I/O (small random blocks, queue depth 1): new is 2.00x faster than old by MB/s \
             (1 row). Pick new for this work."
        );
        assert_eq!(
            text(&[0.25]),
            "little I/O (small random blocks, queue depth 1): old is 4.00x faster than new by MB/s \
             (1 row). Pick old for this work."
        );
        assert_eq!(
            text(&[1.02, 1.03]),
            "little I/O (small random blocks, queue depth 1): new and old do not differ by more than \
             5 % in MB/s (1.02x; 2 rows, 1.02x to 1.03x). Either will do."
        );
        assert_eq!(
            verdict_of(&[1.5, 0.7], true, None).text,
            "little I/O (small random blocks, queue depth 1): the runs cannot tell new from old: in \
             every row their passes overlap and the rank test finds no difference (2 rows, 0.70x to \
             1.50x). Either will do."
        );
    }

    #[test]
    fn a_price_says_which_gives_more_per_money() {
        let g = verdict_of(&[2.0], false, Some(4.0));
        assert_eq!(g.value_per_price_ratio, Some(0.5));
        assert!(
            g.text.ends_with(
                "; at 4.00x the price of old, new gives 0.50x the MB/s per USD/month: old is cheaper per \
                 performance. Pick new for speed; old gives more per money."
            ),
            "{}",
            g.text
        );
        let g = verdict_of(&[2.0], false, Some(1.0));
        assert!(
            g.text.ends_with(
                ": new is cheaper per performance. Pick new: faster, and cheaper per performance."
            ),
            "{}",
            g.text
        );
        let g = verdict_of(&[2.0], false, Some(2.0));
        assert!(
            g.text
                .ends_with(": they cost about the same per performance. Pick new for this work."),
            "{}",
            g.text
        );
    }

    #[test]
    fn latency_is_priced_as_performance() {
        let targets = [target("old", Some(1.0)), target("new", Some(1.0))];
        let g = crate::i18n::in_english(|| {
            conclude(
                WorkloadClass::All,
                1,
                &[RowFactor {
                    factor: 2.0,
                    overlapping: false,
                    reads: None,
                }],
                &targets,
                0,
                Basis {
                    metric: Metric::LatP99,
                    by: metric_title(Metric::LatP99),
                    repeated: Repeated::Passes,
                },
            )
        });
        assert!(
            g.text
                .contains("gives 2.00x the performance (by p99 latency) per USD/month"),
            "{}",
            g.text
        );
    }

    /// The advice per class names a target: by direction when reads favour
    /// one and writes the other, and by money when both are priced.
    #[test]
    fn each_class_ends_with_which_target_to_pick() {
        let row = |factor: f64, reads: Option<bool>| RowFactor {
            factor,
            overlapping: false,
            reads,
        };
        let split = rows_verdict(&[row(3.0, Some(true)), row(0.5, Some(false))], None);
        assert_eq!(split.verdict, Verdict::Mixed);
        assert!(
            split
                .text
                .ends_with("No single pick: new where reads dominate, old where writes do."),
            "{}",
            split.text
        );
        let cheap_and_fast = rows_verdict(&[row(2.0, None)], Some(1.5));
        assert!(
            cheap_and_fast
                .text
                .ends_with("Pick new: faster, and cheaper per performance."),
            "{}",
            cheap_and_fast.text
        );
        let fast_but_dear = rows_verdict(&[row(2.0, None)], Some(4.0));
        assert!(
            fast_but_dear
                .text
                .ends_with("Pick new for speed; old gives more per money."),
            "{}",
            fast_but_dear.text
        );
        let slower = rows_verdict(&[row(0.25, None)], Some(0.1));
        assert!(
            slower
                .text
                .ends_with("Pick old for speed; new gives more per money."),
            "{}",
            slower.text
        );
        let same = rows_verdict(&[row(1.01, None)], Some(0.5));
        assert!(
            same.text
                .ends_with("Either will do; new costs less per performance."),
            "{}",
            same.text
        );
    }
}
