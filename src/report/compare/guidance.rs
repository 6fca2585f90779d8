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
    let title = class.title();
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
            text: format!("{title}: no comparable rows measured on both {tn} and {bn}."),
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
        "1 row".to_string()
    } else {
        format!("{n} rows, {lo:.2}x to {hi:.2}x")
    };
    let by = metric.title();
    let (verdict, mut text) = if all_noise {
        (
            Verdict::WithinNoise,
            format!(
                "{title}: {tn} and {bn} do not differ: every row is within the runs' own spread ({rows})"
            ),
        )
    } else if same(g) && (better == 0 || worse == 0) {
        (
            Verdict::Same,
            format!(
                "{title}: {tn} and {bn} do not differ by more than {:.0} % in {by} ({g:.2}x; {rows})",
                SAME_WITHIN * 100.0
            ),
        )
    } else if better > 0 && worse > 0 {
        (
            Verdict::Mixed,
            format!(
                "{title}: neither is faster throughout: {tn} is faster in {better} row(s), {bn} in {worse} (by {by}; geometric mean {g:.2}x; {rows})"
            ),
        )
    } else if g > 1.0 {
        (
            Verdict::Better,
            format!("{title}: {tn} is {g:.2}x faster than {bn} by {by} ({rows})"),
        )
    } else {
        (
            Verdict::Worse,
            format!(
                "{title}: {bn} is {:.2}x faster than {tn} by {by} ({rows})",
                1.0 / g
            ),
        )
    };
    let price_ratio = targets[t].price_ratio;
    let value_per_price_ratio = price_ratio.map(|p| g / p);
    if let (Some(p), Some(v), Some(cur)) = (price_ratio, value_per_price_ratio, &targets[t].currency) {
        let per = if metric.is_throughput() {
            format!("the {by} per {cur}/month")
        } else {
            format!("the performance (by {by}) per {cur}/month")
        };
        let who = if same(v) {
            "they cost about the same per performance".to_string()
        } else if v > 1.0 {
            format!("{tn} is cheaper per performance")
        } else {
            format!("{bn} is cheaper per performance")
        };
        text.push_str(&format!(
            "; at {p:.2}x the price of {bn}, {tn} gives {v:.2}x {per}: {who}"
        ));
    }
    text.push('.');
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
