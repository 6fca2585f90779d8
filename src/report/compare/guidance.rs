//! Conclusions from measured rows only: per workload class, each target
//! against the baseline (the geometric mean of the rows' ratios, so a 2x row
//! and a 0.5x row cancel), and one pick among all targets. Which rows are
//! decided is the decision rule's (decide.rs); a target whose runs are
//! flagged (memory, stalls, stops) or that is the same storage as another
//! is never ranked. With prices, which gives more performance per money. No
//! text here knows about devices.

use super::decide::{self, RowCall, Sides};
use super::{
    CompareOptions, Direction, Guidance, Metric, Pick, PickReason, Repeated, Row, TargetSummary, Verdict,
    WorkloadClass,
};

pub use super::decide::SAME_WITHIN;

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
/// what the decision rule calls it.
#[derive(Debug, Clone, Copy)]
struct RowFactor {
    factor: f64,
    call: RowCall,
    /// A row of reads (`Some(true)`) or of writes (`Some(false)`).
    reads: Option<bool>,
    /// The fewer repetitions of the two sides.
    repetitions: usize,
}

/// The rows of `class` measured on both `t` and `u`, called by the decision
/// rule, oriented from `t`'s side.
fn pair_rows(rows: &[Row], class: WorkloadClass, t: usize, u: usize, metric: Metric) -> Vec<RowFactor> {
    let mut sides = Vec::new();
    let mut meta = Vec::new();
    for row in rows.iter().filter(|r| in_class(r, rows, class)) {
        let (Some(a), Some(b)) = (&row.cells[t], &row.cells[u]) else {
            continue;
        };
        // A cell held apart from the baseline's row (other parameters, or
        // nothing completed) has no ratio; nor is it set against another.
        let comparable = |c: &super::Cell| c.not_comparable.is_none() && c.value > 0.0 && c.repetitions > 0;
        if !comparable(a) || !comparable(b) {
            continue;
        }
        sides.push(Sides { a, b });
        meta.push(match row.direction {
            Direction::Read => Some(true),
            Direction::Write => Some(false),
            _ => None,
        });
    }
    let calls = decide::call_rows(&sides, metric.is_throughput());
    sides
        .iter()
        .zip(meta)
        .zip(calls)
        .filter_map(|((s, reads), call)| {
            Some(RowFactor {
                factor: s.factor(metric.is_throughput())?,
                call: call?,
                reads,
                repetitions: s.a.repetitions.min(s.b.repetitions),
            })
        })
        .collect()
}

/// `repeated`: what the repetitions are, for the words (passes or runs).
pub(super) fn build(
    rows: &[Row],
    targets: &[TargetSummary],
    opts: &CompareOptions,
    repeated: Repeated,
) -> (Vec<Guidance>, Vec<Pick>) {
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
    let on = Basis {
        metric: opts.metric,
        by,
        repeated,
    };
    let mut lines = Vec::new();
    let mut picks = Vec::new();
    for class in CLASSES
        .into_iter()
        .filter(|c| classed || *c == WorkloadClass::All)
    {
        for t in (0..targets.len()).filter(|t| *t != base) {
            let factors = pair_rows(rows, class, t, base, opts.metric);
            if factors.is_empty() && class == WorkloadClass::All {
                continue;
            }
            lines.push(conclude(class, t, &factors, targets, base, &on));
        }
        if let Some(p) = pick(rows, class, targets, &on) {
            picks.push(p);
        }
    }
    (lines, picks)
}

/// The rows' factors of one class, summarised.
struct Factors {
    rows: usize,
    /// Geometric mean: a 2x row and a 0.5x row cancel.
    mean: f64,
    lo: f64,
    hi: f64,
    /// Rows the decision rule decides for the target (against it).
    better: usize,
    worse: usize,
    /// Rows whose repetitions overlap and the test finds no difference.
    overlapping: usize,
    /// Rows that too few repetitions leave undecided.
    too_few: usize,
    /// The fewest repetitions a side of the undecided rows had, and how many
    /// would decide them were they as far apart as now.
    have: usize,
    need: usize,
}

impl Factors {
    /// None for no factor: there is nothing to summarise.
    fn of(rows: &[RowFactor]) -> Option<Factors> {
        if rows.is_empty() {
            return None;
        }
        let factors = || rows.iter().map(|r| r.factor);
        let count = |c: RowCall| rows.iter().filter(|r| r.call == c).count();
        // Rows within 5 % are settled without the test; the others are the
        // family Holm's correction divides the level among.
        let tested = rows.iter().filter(|r| r.call != RowCall::Same).count();
        Some(Factors {
            rows: rows.len(),
            mean: (factors().map(f64::ln).sum::<f64>() / rows.len() as f64).exp(),
            lo: factors().fold(f64::INFINITY, f64::min),
            hi: factors().fold(f64::NEG_INFINITY, f64::max),
            better: count(RowCall::Better),
            worse: count(RowCall::Worse),
            overlapping: count(RowCall::Overlap),
            too_few: count(RowCall::TooFew),
            have: rows
                .iter()
                .filter(|r| r.call == RowCall::TooFew)
                .map(|r| r.repetitions)
                .min()
                .unwrap_or(0),
            need: decide::runs_needed(tested),
        })
    }

    fn verdict(&self) -> Verdict {
        if self.better > 0 && self.worse > 0 {
            Verdict::Mixed
        } else if self.better > 0 {
            if self.mean > 1.0 {
                Verdict::Better
            } else {
                Verdict::Mixed
            }
        } else if self.worse > 0 {
            if self.mean < 1.0 {
                Verdict::Worse
            } else {
                Verdict::Mixed
            }
        } else if self.too_few > 0 {
            Verdict::TooFewRuns
        } else if self.overlapping == self.rows {
            Verdict::WithinNoise
        } else {
            Verdict::Same
        }
    }

    /// The faster of the two by the mean factor, the slower, and by how much.
    fn faster<'a>(&self, n: &Names<'a>) -> (&'a str, &'a str, f64) {
        if self.mean >= 1.0 {
            (n.tn, n.bn, self.mean)
        } else {
            (n.bn, n.tn, 1.0 / self.mean)
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
        Verdict::TooFewRuns => crate::t!(
            "guidance-too-few",
            title = title,
            fast = f.faster(n).0,
            slow = f.faster(n).1,
            g = format!("{:.2}", f.faster(n).2),
            by = by,
            have = f.have,
            need = f.need,
            // A single measurement a side is a run, whatever the suite repeats.
            unit = if f.have == 1 { "runs" } else { n.repeated.key() },
            rows = rows
        ),
        Verdict::Flagged | Verdict::SameTarget | Verdict::NotMeasured => not_measured_text(n),
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
    let who = if decide::same(value) {
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

/// Why `t`'s numbers cannot be ranked against `u`'s at all: one of them
/// flagged, or both the same storage.
fn unrankable(targets: &[TargetSummary], t: usize, u: usize) -> Option<(Verdict, String)> {
    for who in [t, u] {
        if let Some(why) = targets[who].flags.first() {
            return Some((
                Verdict::Flagged,
                crate::t!(
                    "guidance-flagged",
                    who = targets[who].name.as_str(),
                    why = why.as_str()
                ),
            ));
        }
    }
    let what = same_target(&targets[t], &targets[u])?;
    Some((
        Verdict::SameTarget,
        crate::t!(
            "guidance-same-target",
            tn = targets[t].name.as_str(),
            bn = targets[u].name.as_str(),
            what = what
        ),
    ))
}

/// Whether two targets are one storage: the same host and boot, and the
/// same block device (its number and diskseq) or the same file system (its
/// device number and id). Says what they share.
pub(super) fn same_target(a: &TargetSummary, b: &TargetSummary) -> Option<String> {
    let (x, y) = (a.identity.as_ref()?, b.identity.as_ref()?);
    let one_boot = a.hostname == b.hostname && x.boot_id == y.boot_id && x.device_number == y.device_number;
    if !one_boot {
        return None;
    }
    let dev = format!(
        "{}:{}",
        libc::major(x.device_number),
        libc::minor(x.device_number)
    );
    match (x.inode, y.inode) {
        (None, None) if x.diskseq == y.diskseq => Some(crate::t!(
            "same-target-device",
            dev = dev,
            volume = a.volume.as_str()
        )),
        (Some(_), Some(_)) if x.fs_id == y.fs_id => Some(crate::t!(
            "same-target-file-system",
            dev = dev,
            volume = a.volume.as_str()
        )),
        _ => None,
    }
}

fn conclude(
    class: WorkloadClass,
    t: usize,
    factors: &[RowFactor],
    targets: &[TargetSummary],
    base: usize,
    on: &Basis,
) -> Guidance {
    let names = Names {
        title: class_title(class),
        tn: &targets[t].name,
        bn: &targets[base].name,
        by: on.by.clone(),
        repeated: on.repeated,
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
            runs_needed: None,
            price_ratio,
            value_per_price_ratio: None,
            text: not_measured_text(&names),
        };
    };
    let (verdict, mut text) = match unrankable(targets, t, base) {
        Some((v, why)) => (
            v,
            crate::t!(
                "guidance-unranked",
                title = names.title.as_str(),
                fast = f.faster(&names).0,
                slow = f.faster(&names).1,
                g = format!("{:.2}", f.faster(&names).2),
                by = names.by.as_str(),
                rows = f.rows_text(on.repeated),
                why = why
            ),
        ),
        None => {
            let v = f.verdict();
            (v, verdict_text(v, &f, &names))
        }
    };
    let value_per_price_ratio = price_ratio.map(|p| f.mean / p);
    if let (Some(p), Some(v), Some(cur)) = (price_ratio, value_per_price_ratio, &targets[t].currency) {
        text.push_str(&price_text(p, v, cur, on.metric, &names));
    }
    text.push_str(&crate::t!("guidance-end"));
    Guidance {
        class,
        target: t,
        rows: f.rows,
        factor: Some(f.mean),
        min_factor: Some(f.lo),
        max_factor: Some(f.hi),
        verdict,
        runs_needed: (verdict == Verdict::TooFewRuns).then_some(f.need),
        price_ratio,
        value_per_price_ratio,
        text,
    }
}

/// One pick per class among all targets (docs/compare.md, "When kura
/// picks"): flagged targets are left out; of the rest, those no other was
/// shown faster than; of those, the one target, or the cheapest per unit of
/// performance when all are priced in one currency, or no pick and why.
fn pick(rows: &[Row], class: WorkloadClass, targets: &[TargetSummary], on: &Basis) -> Option<Pick> {
    let measured: Vec<usize> = (0..targets.len())
        .filter(|&t| {
            (0..targets.len()).any(|u| u != t && !pair_rows(rows, class, t, u, on.metric).is_empty())
        })
        .collect();
    if measured.len() < 2 {
        return None;
    }
    let (left_out, eligible): (Vec<usize>, Vec<usize>) =
        measured.iter().partition(|&&t| !targets[t].flags.is_empty());
    let verdict = |t: usize, u: usize| -> (Verdict, Option<Factors>) {
        if same_target(&targets[t], &targets[u]).is_some() {
            return (Verdict::SameTarget, None);
        }
        match Factors::of(&pair_rows(rows, class, t, u, on.metric)) {
            Some(f) => (f.verdict(), Some(f)),
            None => (Verdict::NotMeasured, None),
        }
    };
    let mut slower = vec![false; targets.len()];
    for (i, &t) in eligible.iter().enumerate() {
        for &u in &eligible[i + 1..] {
            match verdict(t, u).0 {
                Verdict::Better => slower[u] = true,
                Verdict::Worse => slower[t] = true,
                _ => {}
            }
        }
    }
    let not_slower: Vec<usize> = eligible.iter().copied().filter(|&t| !slower[t]).collect();
    let names = |ts: &[usize]| {
        ts.iter()
            .map(|&t| targets[t].name.as_str())
            .collect::<Vec<_>>()
            .join(&crate::t!("list-separator"))
    };
    let cheapest = cheapest_of_alike(targets, &not_slower);
    let (target, reason, runs_needed, mut sentence) = match not_slower.as_slice() {
        [] if eligible.is_empty() => (None, PickReason::AllFlagged, None, crate::t!("pick-all-flagged")),
        [] => (
            None,
            PickReason::Mixed,
            None,
            crate::t!("pick-circle", list = names(&eligible)),
        ),
        [only] if eligible.len() == 1 => (
            None,
            PickReason::AllFlagged,
            None,
            crate::t!("pick-alone", who = targets[*only].name.as_str()),
        ),
        [only] => {
            let value = cheapest_per_performance(rows, class, targets, &eligible, on.metric);
            let text = match value {
                Some(v) if v == *only => {
                    crate::t!("guidance-pick-faster-cheaper", who = targets[*only].name.as_str())
                }
                Some(v) => crate::t!(
                    "guidance-pick-faster-dearer",
                    who = targets[*only].name.as_str(),
                    other = targets[v].name.as_str()
                ),
                None => crate::t!("guidance-pick", who = targets[*only].name.as_str()),
            };
            (Some(*only), PickReason::Fastest, None, text)
        }
        alike => {
            let pairs: Vec<(Verdict, Option<Factors>)> = alike
                .iter()
                .enumerate()
                .flat_map(|(i, &t)| alike[i + 1..].iter().map(move |&u| (t, u)))
                .map(|(t, u)| verdict(t, u))
                .collect();
            let has = |v: Verdict| pairs.iter().any(|p| p.0 == v);
            if pairs.iter().all(|p| p.0 == Verdict::SameTarget) {
                (
                    None,
                    PickReason::SameTarget,
                    None,
                    crate::t!("pick-same-target", list = names(alike)),
                )
            } else if has(Verdict::TooFewRuns) {
                let f = pairs
                    .iter()
                    .filter(|p| p.0 == Verdict::TooFewRuns)
                    .filter_map(|p| p.1.as_ref());
                let (have, need) = f.fold((usize::MAX, 0), |(h, n), f| (h.min(f.have), n.max(f.need)));
                (
                    None,
                    PickReason::TooFewRuns,
                    Some(need),
                    crate::t!(
                        "pick-too-few",
                        list = names(alike),
                        have = have,
                        need = need,
                        unit = if have == 1 { "runs" } else { on.repeated.key() }
                    ),
                )
            } else if has(Verdict::Mixed) {
                let split = match alike {
                    [a, b] => split_by_direction(&pair_rows(rows, class, *a, *b, on.metric)).map(|a_reads| {
                        let (r, w) = if a_reads { (*a, *b) } else { (*b, *a) };
                        crate::t!(
                            "guidance-pick-by-direction",
                            reads = targets[r].name.as_str(),
                            writes = targets[w].name.as_str()
                        )
                    }),
                    _ => None,
                };
                (
                    None,
                    PickReason::Mixed,
                    None,
                    split.unwrap_or_else(|| crate::t!("guidance-pick-none")),
                )
            } else if let Some(c) = cheapest {
                (
                    Some(c),
                    PickReason::CheapestOfAlike,
                    None,
                    crate::t!(
                        "pick-cheapest",
                        who = targets[c].name.as_str(),
                        list = names(alike)
                    ),
                )
            } else {
                (
                    None,
                    PickReason::Alike,
                    None,
                    crate::t!("pick-either", list = names(alike)),
                )
            }
        }
    };
    if !left_out.is_empty() {
        let why: Vec<String> = left_out
            .iter()
            .map(|&t| format!("{} ({})", targets[t].name, targets[t].flags.join(", ")))
            .collect();
        sentence.push_str(&crate::t!(
            "pick-left-out",
            list = why.join(&crate::t!("list-separator"))
        ));
    }
    let title = class_title(class);
    Some(Pick {
        class,
        target,
        not_slower,
        left_out,
        reason,
        runs_needed,
        text: crate::t!("pick-line", title = title.as_str(), sentence = sentence.trim()),
        sentence: sentence.trim().to_string(),
    })
}

/// Of `among` (targets none of which was shown faster than another), the
/// one whose monthly price is lower than every other's by more than
/// `SAME_WITHIN`, when every one is priced in one currency. Performance the
/// runs could not tell apart counts as equal: a measured factor they did
/// not decide is noise, and must not choose between two disks of one price.
fn cheapest_of_alike(targets: &[TargetSummary], among: &[usize]) -> Option<usize> {
    let &first = among.first()?;
    if among.len() < 2 {
        return None;
    }
    let currency = targets[first].currency.as_ref()?;
    let mut prices = Vec::new();
    for &t in among {
        if targets[t].currency.as_ref() != Some(currency) {
            return None;
        }
        prices.push((t, targets[t].price_per_month.filter(|m| *m > 0.0)?));
    }
    prices.sort_by(|a, b| a.1.total_cmp(&b.1));
    (prices[1].1 > prices[0].1 * (1.0 + SAME_WITHIN)).then_some(prices[0].0)
}

/// Of `among`, the target with the lowest price per unit of the class's
/// performance (its geometric-mean factor against the first of them), when
/// every one is priced in one currency: who gives more for the money,
/// beside a pick made on speed.
fn cheapest_per_performance(
    rows: &[Row],
    class: WorkloadClass,
    targets: &[TargetSummary],
    among: &[usize],
    metric: Metric,
) -> Option<usize> {
    let &first = among.first()?;
    if among.len() < 2 {
        return None;
    }
    let currency = targets[first].currency.as_ref()?;
    let mut best: Option<(usize, f64)> = None;
    for &t in among {
        if targets[t].currency.as_ref() != Some(currency) {
            return None;
        }
        let month = targets[t].price_per_month.filter(|m| *m > 0.0)?;
        let perf = if t == first {
            1.0
        } else {
            Factors::of(&pair_rows(rows, class, t, first, metric))?.mean
        };
        let cost = month / perf;
        if best.is_none_or(|(_, c)| cost < c) {
            best = Some((t, cost));
        }
    }
    best.map(|(t, _)| t)
}

/// `Some(true)` when the decided read rows all favour the first target and
/// the write rows all the second, `Some(false)` the other way round; `None`
/// when the split is not that clean (or a direction is missing).
fn split_by_direction(rows: &[RowFactor]) -> Option<bool> {
    let decided = |reads: bool| {
        rows.iter()
            .filter(move |r| r.reads == Some(reads) && matches!(r.call, RowCall::Better | RowCall::Worse))
            .map(|r| r.call == RowCall::Better)
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
            flags: Vec::new(),
            identity: None,
        }
    }

    /// Rows decided by their factors (outside 5 % a decided row), or all
    /// overlapping.
    fn verdict_of(factors: &[f64], all_noise: bool, price_ratio: Option<f64>) -> Guidance {
        let rows: Vec<RowFactor> = factors.iter().map(|&f| row(f, all_noise, None)).collect();
        rows_verdict(&rows, price_ratio)
    }

    fn row(factor: f64, overlapping: bool, reads: Option<bool>) -> RowFactor {
        let call = if overlapping {
            RowCall::Overlap
        } else if decide::same(factor) {
            RowCall::Same
        } else if factor > 1.0 {
            RowCall::Better
        } else {
            RowCall::Worse
        };
        RowFactor {
            factor,
            call,
            reads,
            repetitions: 5,
        }
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
                &Basis {
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
        let rows = [row(3.0, false, None), row(0.8, true, None)];
        let g = rows_verdict(&rows, None);
        assert_eq!(g.verdict, Verdict::Better, "{}", g.text);
        assert!(
            g.text.ends_with("(2 rows, 0.80x to 3.00x; passes overlap in 1)."),
            "{}",
            g.text
        );
        let decided = [rows[0], row(0.8, false, None)];
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
             faster in 1 row(s), old in 1 (by MB/s; geometric mean 1.00x; 2 rows, 0.50x to 2.00x)."
        );
    }

    #[test]
    fn verdicts_follow_the_rows() {
        let cases: [(&[f64], bool, Verdict); 6] = [
            (&[1.5, 0.7], true, Verdict::WithinNoise),
            (&[1.02, 1.03], false, Verdict::Same),
            (&[1.5, 1.2], false, Verdict::Better),
            (&[0.5], false, Verdict::Worse),
            (&[1.3, 0.9], false, Verdict::Mixed),
            (&[1.04, 1.01], false, Verdict::Same),
        ];
        for (factors, all_noise, want) in cases {
            assert_eq!(verdict_of(factors, all_noise, None).verdict, want, "{factors:?}");
        }
        let too_few = RowFactor {
            call: RowCall::TooFew,
            repetitions: 3,
            ..row(1.5, false, None)
        };
        let g = rows_verdict(&[too_few, row(1.02, false, None)], None);
        assert_eq!(
            (g.verdict, g.runs_needed),
            (Verdict::TooFewRuns, Some(4)),
            "{}",
            g.text
        );
        assert!(
            g.text
                .contains("but 3 passes a side cannot tell them apart at the 5 % level; 4 would"),
            "{}",
            g.text
        );
    }

    #[test]
    fn texts_say_who_is_faster_by_how_much() {
        let text = |factors: &[f64]| verdict_of(factors, false, None).text;
        assert_eq!(
            text(&[2.0]),
            "little I/O (small random blocks, queue depth 1): new is 2.00x faster than old by MB/s \
             (1 row)."
        );
        assert_eq!(
            text(&[0.25]),
            "little I/O (small random blocks, queue depth 1): old is 4.00x faster than new by MB/s \
             (1 row)."
        );
        assert_eq!(
            text(&[1.02, 1.03]),
            "little I/O (small random blocks, queue depth 1): new and old do not differ by more than \
             5 % in MB/s (1.02x; 2 rows, 1.02x to 1.03x)."
        );
        assert_eq!(
            verdict_of(&[1.5, 0.7], true, None).text,
            "little I/O (small random blocks, queue depth 1): the runs cannot tell new from old: in \
             every row their passes overlap and the rank test finds no difference (2 rows, 0.70x to \
             1.50x)."
        );
    }

    #[test]
    fn a_price_says_which_gives_more_per_money() {
        let g = verdict_of(&[2.0], false, Some(4.0));
        assert_eq!(g.value_per_price_ratio, Some(0.5));
        assert!(
            g.text.ends_with(
                "; at 4.00x the price of old, new gives 0.50x the MB/s per USD/month: old is cheaper per \
                 performance."
            ),
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
                &[row(2.0, false, None)],
                &targets,
                0,
                &Basis {
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

    /// Targets of `passes` passes each: one run per target, a job per pass
    /// of one 4 KiB random read test at qd 1, `iops` its rate per pass.
    fn targets(passes: &[(&str, &[u64], Option<&str>)]) -> Vec<super::super::Target> {
        use crate::jobs::Rw;
        use crate::report::fixtures::{job, run};
        passes
            .iter()
            .enumerate()
            .map(|(i, (name, iops, price))| {
                let jobs = iops
                    .iter()
                    .map(|&ops| job("RND4K Q1T1", Rw::RandRead, 4096, 100, Some(ops), None))
                    .collect();
                let mut r = run("mark", jobs);
                r.id = Some(i as i64 + 1);
                r.label = Some(name.to_string());
                r.price = price.map(str::to_string);
                super::super::Target {
                    name: name.to_string(),
                    runs: vec![r],
                }
            })
            .collect()
    }

    fn picks(t: &[super::super::Target]) -> super::super::Comparison {
        let opts = CompareOptions {
            figure: Some(super::super::Figure::Mean),
            ..Default::default()
        };
        crate::i18n::in_english(|| super::super::build_targets(t, &opts).unwrap())
    }

    fn little_io(c: &super::super::Comparison) -> &Pick {
        c.picks
            .iter()
            .find(|p| p.class == WorkloadClass::RandomSmallQd1)
            .unwrap()
    }

    /// The false pick: three passes a side 1.5x apart is what the
    /// same disk does by chance one time in ten; it is not a pick.
    #[test]
    fn three_passes_a_side_give_no_pick_however_far_apart() {
        let c = picks(&targets(&[
            ("A", &[100, 101, 102], None),
            ("B", &[150, 151, 152], None),
        ]));
        let p = little_io(&c);
        assert_eq!(
            (p.target, p.reason, p.runs_needed),
            (None, PickReason::TooFewRuns, Some(4))
        );
        let lines = c.guidance_lines().join("\n");
        assert!(
            lines.contains("No pick yet: 3 passes a side cannot tell A, B apart; 4 would."),
            "{lines}"
        );
        let five = picks(&targets(&[
            ("A", &[100, 101, 102, 103, 104], None),
            ("B", &[150, 151, 152, 153, 154], None),
        ]));
        assert_eq!(
            (little_io(&five).target, little_io(&five).reason),
            (Some(1), PickReason::Fastest)
        );
    }

    /// One pick among all: gp2 and io1 alike, gp2 at 1/12 of the price: gp2,
    /// not "pick io1" from a pairwise line.
    #[test]
    fn one_pick_among_all_targets_the_cheapest_of_those_not_shown_slower() {
        let c = picks(&targets(&[
            ("hdd", &[100, 101, 102, 103, 104], Some("10 USD/month")),
            ("io1", &[300, 310, 290, 305, 295], Some("120 USD/month")),
            ("gp2", &[302, 292, 308, 298, 306], Some("10 USD/month")),
        ]));
        let p = little_io(&c);
        assert_eq!(
            (p.target, p.reason),
            (Some(2), PickReason::CheapestOfAlike),
            "{}",
            p.text
        );
        assert_eq!(p.not_slower, vec![1, 2]);
        assert!(
            p.text.contains("Pick gp2: none of io1, gp2 was shown faster"),
            "{}",
            p.text
        );
        // No line of the guidance says "Pick io1".
        assert!(!c.guidance_lines().join("\n").contains("Pick io1"));
    }

    /// A flagged run (its data was in memory) is never picked, however fast.
    #[test]
    fn a_flagged_target_is_left_out_of_the_pick() {
        let mut t = targets(&[
            ("disk", &[100, 101, 102, 103, 104], None),
            ("cached", &[900, 901, 902, 903, 904], None),
        ]);
        t[1].runs[0]
            .warnings
            .push(crate::metrics::Warning::PageCacheHoldsData {
                data_mb: 8,
                memory_mb: 24000,
            });
        let c = picks(&t);
        let p = little_io(&c);
        assert_eq!(
            (p.target, p.reason, p.left_out.clone()),
            (None, PickReason::AllFlagged, vec![1])
        );
        let g = c
            .guidance
            .iter()
            .find(|g| g.class == WorkloadClass::RandomSmallQd1)
            .unwrap();
        assert_eq!(g.verdict, Verdict::Flagged, "{}", g.text);
        assert!(
            !c.guidance_lines().join("\n").contains("Pick"),
            "{:?}",
            c.guidance_lines()
        );
    }

    /// Two labels of one device are said to be one, not ranked.
    #[test]
    fn the_same_target_under_two_labels_is_not_ranked() {
        let mut t = targets(&[
            ("A", &[100, 101, 102, 103, 104], None),
            ("B", &[150, 151, 152, 153, 154], None),
        ]);
        for target in &mut t {
            for j in &mut target.runs[0].jobs {
                j.target.identity = Some(crate::metrics::TargetIdentity {
                    boot_id: "b".into(),
                    device_number: libc::makedev(7, 3),
                    diskseq: None,
                    fs_id: Some(42),
                    inode: Some(12),
                });
            }
        }
        let c = picks(&t);
        let p = little_io(&c);
        assert_eq!((p.target, p.reason), (None, PickReason::SameTarget), "{}", p.text);
        let lines = c.guidance_lines().join("\n");
        assert!(
            lines.contains("B and A are the same target (the same file system on device 7:3"),
            "{lines}"
        );
    }

    /// Reads favour one target and writes the other: no single pick, by direction.
    #[test]
    fn a_split_by_direction_names_each_side() {
        let rows = [row(3.0, false, Some(true)), row(0.5, false, Some(false))];
        assert_eq!(split_by_direction(&rows), Some(true));
        assert_eq!(split_by_direction(&rows[..1]), None);
    }
}
