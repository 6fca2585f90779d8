//! Conclusions from measured rows only: per workload class, which target is
//! faster and by what factor (the geometric mean of the rows' ratios, so a
//! 2x row and a 0.5x row cancel), or that they do not differ; with prices,
//! which gives more performance per money. No text here knows about devices.

use super::{CompareOptions, Guidance, Metric, Noise, Row, TargetSummary, Verdict, WorkloadClass};

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

fn in_class(row: &Row, class: WorkloadClass) -> bool {
    match class {
        // Every row once: a mixed job counts by its total, not its parts too.
        WorkloadClass::All => {
            row.class == Some(WorkloadClass::Mixed) || row.workload.read_pct.is_multiple_of(100)
        }
        c => row.class == Some(c),
    }
}

pub(super) fn build(rows: &[Row], targets: &[TargetSummary], opts: &CompareOptions) -> Vec<Guidance> {
    let base = opts.baseline;
    let mut out = Vec::new();
    for t in (0..targets.len()).filter(|t| *t != base) {
        for class in CLASSES {
            let mut factors = Vec::new();
            let mut all_noise = true;
            for row in rows.iter().filter(|r| in_class(r, class)) {
                let Some(cell) = &row.cells[t] else { continue };
                let Some(ratio) = cell.ratio.filter(|r| *r > 0.0 && r.is_finite()) else {
                    continue;
                };
                factors.push(if opts.metric.is_throughput() {
                    ratio
                } else {
                    1.0 / ratio
                });
                all_noise &= cell.noise == Some(Noise::WithinNoise);
            }
            if factors.is_empty() && class == WorkloadClass::All {
                continue;
            }
            out.push(conclude(
                class,
                t,
                &factors,
                all_noise,
                targets,
                base,
                opts.metric,
            ));
        }
    }
    out
}

fn conclude(
    class: WorkloadClass,
    t: usize,
    factors: &[f64],
    all_noise: bool,
    targets: &[TargetSummary],
    base: usize,
    metric: Metric,
) -> Guidance {
    let (tn, bn) = (&targets[t].name, &targets[base].name);
    let title = class_title(class);
    if factors.is_empty() {
        return Guidance {
            class,
            target: t,
            rows: 0,
            factor: None,
            min_factor: None,
            max_factor: None,
            verdict: Verdict::NotMeasured,
            price_ratio: targets[t].price_ratio,
            value_per_price_ratio: None,
            text: crate::t!("guidance-not-measured", title = title, tn = tn, bn = bn),
        };
    }
    let n = factors.len();
    let g = (factors.iter().map(|f| f.ln()).sum::<f64>() / n as f64).exp();
    let lo = factors.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = factors.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let same = |f: f64| (1.0 / (1.0 + SAME_WITHIN)..=1.0 + SAME_WITHIN).contains(&f);
    let better = factors.iter().filter(|f| **f > 1.0 && !same(**f)).count();
    let worse = factors.iter().filter(|f| **f < 1.0 && !same(**f)).count();
    let rows = if n == 1 {
        crate::t!("guidance-one-row")
    } else {
        crate::t!(
            "guidance-rows",
            n = n,
            lo = format!("{lo:.2}"),
            hi = format!("{hi:.2}")
        )
    };
    let by = metric_title(metric);
    let g2 = format!("{g:.2}");
    let (verdict, mut text) = if all_noise {
        (
            Verdict::WithinNoise,
            crate::t!(
                "guidance-within-noise",
                title = title,
                tn = tn,
                bn = bn,
                rows = rows
            ),
        )
    } else if same(g) && (better == 0 || worse == 0) {
        (
            Verdict::Same,
            crate::t!(
                "guidance-same",
                title = title,
                tn = tn,
                bn = bn,
                pct = format!("{:.0}", SAME_WITHIN * 100.0),
                by = by.as_str(),
                g = g2.as_str(),
                rows = rows
            ),
        )
    } else if better > 0 && worse > 0 {
        (
            Verdict::Mixed,
            crate::t!(
                "guidance-mixed",
                title = title,
                tn = tn,
                bn = bn,
                better = better,
                worse = worse,
                by = by.as_str(),
                g = g2.as_str(),
                rows = rows
            ),
        )
    } else if g > 1.0 {
        (
            Verdict::Better,
            crate::t!(
                "guidance-better",
                title = title,
                tn = tn,
                bn = bn,
                g = g2.as_str(),
                by = by.as_str(),
                rows = rows
            ),
        )
    } else {
        (
            Verdict::Worse,
            crate::t!(
                "guidance-worse",
                title = title,
                tn = tn,
                bn = bn,
                g = format!("{:.2}", 1.0 / g),
                by = by.as_str(),
                rows = rows
            ),
        )
    };
    let price_ratio = targets[t].price_ratio;
    let value_per_price_ratio = price_ratio.map(|p| g / p);
    if let (Some(p), Some(v), Some(cur)) = (price_ratio, value_per_price_ratio, &targets[t].currency) {
        let per = if metric.is_throughput() {
            crate::t!("guidance-per-throughput", by = by.as_str(), cur = cur)
        } else {
            crate::t!("guidance-per-performance", by = by.as_str(), cur = cur)
        };
        let who = if same(v) {
            crate::t!("guidance-same-value")
        } else if v > 1.0 {
            crate::t!("guidance-cheaper", who = tn)
        } else {
            crate::t!("guidance-cheaper", who = bn)
        };
        text.push_str(&crate::t!(
            "guidance-price",
            p = format!("{p:.2}"),
            bn = bn,
            tn = tn,
            v = format!("{v:.2}"),
            per = per,
            who = who
        ));
    }
    text.push_str(&crate::t!("guidance-end"));
    Guidance {
        class,
        target: t,
        rows: n,
        factor: Some(g),
        min_factor: Some(lo),
        max_factor: Some(hi),
        verdict,
        price_ratio,
        value_per_price_ratio,
        text,
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
            hostname: String::new(),
            incomplete: false,
        }
    }

    fn verdict_of(factors: &[f64], all_noise: bool, price_ratio: Option<f64>) -> Guidance {
        let targets = [target("old", Some(1.0)), target("new", price_ratio)];
        crate::i18n::in_english(|| {
            conclude(
                WorkloadClass::RandomSmallQd1,
                1,
                factors,
                all_noise,
                &targets,
                0,
                Metric::Mbps,
            )
        })
    }

    #[test]
    fn no_factor_is_not_measured() {
        let g = verdict_of(&[], false, None);
        assert_eq!(g.verdict, Verdict::NotMeasured);
        assert_eq!((g.rows, g.factor), (0, None));
        assert_eq!(
            g.text,
            "random small-block, queue depth 1: no comparable rows measured on both new and old."
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
            "random small-block, queue depth 1: neither is faster throughout: new is faster in 1 row(s), \
             old in 1 (by MB/s; geometric mean 1.00x; 2 rows, 0.50x to 2.00x)."
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
            "random small-block, queue depth 1: new is 2.00x faster than old by MB/s (1 row)."
        );
        assert_eq!(
            text(&[0.25]),
            "random small-block, queue depth 1: old is 4.00x faster than new by MB/s (1 row)."
        );
        assert_eq!(
            text(&[1.02, 1.03]),
            "random small-block, queue depth 1: new and old do not differ by more than 5 % in MB/s \
             (1.02x; 2 rows, 1.02x to 1.03x)."
        );
        assert_eq!(
            verdict_of(&[1.5, 0.7], true, None).text,
            "random small-block, queue depth 1: new and old do not differ: every row is within the \
             runs' own spread (2 rows, 0.70x to 1.50x)."
        );
    }

    #[test]
    fn a_price_says_which_gives_more_per_money() {
        let g = verdict_of(&[2.0], false, Some(4.0));
        assert_eq!(g.value_per_price_ratio, Some(0.5));
        assert!(
            g.text.ends_with(
                "; at 4.00x the price of old, new gives 0.50x the MB/s per USD/month: old is cheaper per performance."
            ),
            "{}",
            g.text
        );
        let g = verdict_of(&[2.0], false, Some(1.0));
        assert!(g.text.ends_with(": new is cheaper per performance."), "{}", g.text);
        let g = verdict_of(&[2.0], false, Some(2.0));
        assert!(
            g.text.ends_with(": they cost about the same per performance."),
            "{}",
            g.text
        );
    }

    #[test]
    fn latency_is_priced_as_performance() {
        let targets = [target("old", Some(1.0)), target("new", Some(1.0))];
        let g = crate::i18n::in_english(|| {
            conclude(WorkloadClass::All, 1, &[2.0], false, &targets, 0, Metric::LatP99)
        });
        assert!(
            g.text.contains("gives 2.00x the performance (by p99 latency) per USD/month"),
            "{}",
            g.text
        );
    }
}
