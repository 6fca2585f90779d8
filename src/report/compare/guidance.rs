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
