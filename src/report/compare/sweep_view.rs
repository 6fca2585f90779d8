//! Block-size sweeps side by side as seed 2's article printed them: per
//! read/write mix, block size | each target's IOPS and MiB/s | the ratio to
//! the baseline, and with prices the ratio per unit of price. It replaces the
//! one-metric grid of `compare --by bs` (mbps or iops) when every row is a
//! sweep's point; the rows, ratios and verdicts are compare's own.

use super::shaped::Shaped;
use super::{By, Comparison, Direction, Row};
use crate::report::html::table::{Cell as Shown, Table, Value};

const MIB: f64 = (1u64 << 20) as f64;

/// Whether `test` names a point of `kura sweep` (`jobs::sweep::test_name`:
/// `bs=4k mix=100/0`, with ` qd=` or ` threads=` when those were swept).
fn is_sweep_point(test: &str) -> bool {
    test.starts_with("bs=") && test.contains(" mix=")
}

/// The seed's tables, one per section (one mix) of a by-block-size
/// comparison of sweeps; `None` for any other comparison, which keeps its
/// own grid. The CSV is the article's wide table, the mix first.
pub fn shaped(c: &Comparison) -> Option<Shaped> {
    let sections = super::render::sections(c);
    let sweeps = sections
        .iter()
        .flat_map(|(_, rows)| rows)
        .all(|r| r.test.as_deref().is_some_and(is_sweep_point));
    if c.by != By::Bs || !c.metric.is_throughput() || c.rows.is_empty() || !sweeps {
        return None;
    }
    Some(Shaped {
        section_column: "mix",
        sections: sections
            .into_iter()
            .enumerate()
            .map(|(i, (section, rows))| {
                let t = table(c, &section, &rows, i);
                (section, t)
            })
            .collect(),
        left: 1,
        stack: Vec::new(),
        notes: Vec::new(),
    })
}

/// The same tables keyed by their mix, for a report that draws each mix's
/// charts above its table: (sequential, read share %, table).
pub fn tables_by_mix(c: &Comparison) -> Vec<(bool, u8, Table)> {
    let Some(s) = shaped(c) else {
        return Vec::new();
    };
    s.sections
        .into_iter()
        .filter_map(|(section, t)| {
            let r = c.rows.iter().find(|r| r.section == section)?;
            Some((!r.workload.rw.starts_with("rand"), r.workload.read_pct, t))
        })
        .collect()
}

/// One mix: block size | each target's IOPS and MiB/s | the ratio to the
/// baseline | with prices, the ratio per unit of price.
fn table(c: &Comparison, section: &str, rows: &[&Row], i: usize) -> Table {
    let base = c.baseline;
    let others: Vec<usize> = (0..c.targets.len()).filter(|t| *t != base).collect();
    let bn = &c.targets[base].name;
    let heading = crate::i18n::heading;
    let mut header = vec![heading("block size")];
    for t in &c.targets {
        header.push(format!("{} {}", t.name, heading("IOPS")));
        header.push(format!("{} {}", t.name, heading("MiB/s")));
    }
    header.extend(others.iter().map(|t| format!("{}/{bn}", c.targets[*t].name)));
    // The price conclusion per row: performance per unit of price against the baseline's.
    let priced: Vec<usize> = match c.targets[base].price_per_month {
        Some(_) => others
            .iter()
            .copied()
            .filter(|t| c.targets[*t].price_ratio.is_some())
            .collect(),
        None => Vec::new(),
    };
    for t in &priced {
        let target = &c.targets[*t];
        header.push(crate::t!(
            "compare-per-price-ratio-heading",
            name = target.name.as_str(),
            baseline = bn.as_str(),
            currency = target.currency.as_deref().unwrap_or(""),
            ratio = format!("{:.2}", target.price_ratio.unwrap_or(0.0))
        ));
    }
    let columns: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&format!("sweep-{i}"), section, &columns);
    let rate = crate::report::format::rate;
    let dash = || Shown::shown("-", Value::Null);
    for r in shown(rows) {
        let mut line = vec![Shown::text(r.workload.bs.as_str())];
        for cell in &r.cells {
            match cell {
                Some(cell) => line.extend([
                    Shown::num(cell.iops, rate(cell.iops)),
                    Shown::num(cell.bytes_per_sec / MIB, rate(cell.bytes_per_sec / MIB)),
                ]),
                None => line.extend([dash(), dash()]),
            }
        }
        for t in &others {
            let cell = &r.cells[*t];
            let text = super::render::ratio_cell(cell);
            line.push(match cell.as_ref().and_then(|c| c.ratio) {
                Some(x) if cell.as_ref().is_some_and(|c| c.not_comparable.is_none()) => Shown::num(x, text),
                _ => Shown::shown(text, Value::Null),
            });
        }
        for t in &priced {
            line.push(
                match r.cells[*t].as_ref().and_then(|cell| cell.value_per_price_ratio) {
                    Some(v) => Shown::num(v, format!("{v:.2}x")),
                    None => dash(),
                },
            );
        }
        t.rows.push(line);
    }
    t
}

/// One row per block size: a mixed point by its reads and writes together
/// (the figure the article gives for its 50/50 case), a pure one by its
/// only direction.
fn shown<'a>(rows: &[&'a Row]) -> Vec<&'a Row> {
    let has_total = |bs: &str| {
        rows.iter()
            .any(|o| o.direction == Direction::Total && o.workload.bs == bs)
    };
    rows.iter()
        .copied()
        .filter(|r| r.direction == Direction::Total || !has_total(&r.workload.bs))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Rw;
    use crate::report::compare::{CompareOptions, Metric, build};
    use crate::report::fixtures::{job, run};
    use crate::report::width::display_width;

    /// Seed 2's two disks over three block sizes and three mixes: the 4 KiB
    /// read-only figures (203 and 404 IOPS) and the prices are the article's.
    fn sweep(label: &str, price: &str, iops: [u64; 3]) -> crate::metrics::RunResult {
        let mut jobs = Vec::new();
        for (i, bs) in [4096u64, 65536, 262144].into_iter().enumerate() {
            let size = crate::jobs::units::format_size(bs);
            let name = |mix: &str| format!("bs={size} mix={mix}");
            jobs.push(job(&name("100/0"), Rw::RandRead, bs, 100, Some(iops[i]), None));
            let half = iops[i] / 2;
            jobs.push(job(&name("50/50"), Rw::RandRw, bs, 50, Some(half), Some(half)));
            jobs.push(job(&name("0/100"), Rw::RandWrite, bs, 0, None, Some(iops[i])));
        }
        let mut r = run("sweep", jobs);
        r.label = Some(label.into());
        r.price = Some(price.into());
        r.id = Some(if label == "HDD" { 1 } else { 2 });
        r
    }

    fn compared(metric: Metric) -> Comparison {
        let runs = [
            sweep("HDD", "659.46 JPY/month", [203, 152, 98]),
            sweep("SSD", "1,075.20 JPY/month", [404, 382, 240]),
        ];
        let opts = CompareOptions {
            metric,
            by: By::Bs,
            baseline: 0,
            figure: None,
        };
        build(&runs, &opts).unwrap()
    }

    #[test]
    fn sweeps_by_block_size_show_both_figures_and_the_price_ratio_within_80_columns() {
        let c = compared(Metric::Iops);
        let text = super::super::render::table(&c);
        for line in text.lines() {
            assert!(
                display_width(line) <= 80,
                "{} columns: {line}\n{text}",
                display_width(line)
            );
        }
        // Headings fold between their words to fit.
        for needle in [
            "HDD",
            "IOPS",
            "MiB/s",
            "SSD",
            "SSD/HDD",
            "per JPY",
            "(price 1.63x)",
        ] {
            assert!(text.contains(needle), "{needle}:\n{text}");
        }
        // 4 KiB read-only: 203 against 404 IOPS, 0.793 and 1.578 MiB/s, ratio 1.99.
        let row = text
            .lines()
            .find(|l| l.contains(" 203 ") && l.contains(" 404 "))
            .unwrap_or_else(|| panic!("{text}"));
        for cell in ["4k", "0.793", "1.578", "1.99x"] {
            assert!(row.contains(cell), "{cell} in {row}");
        }
        // Per JPY: 1.99x the IOPS at 1.63x the price.
        assert!(row.contains("1.22x"), "{row}\n{text}");
        // A 50/50 point is one row, its reads and writes together.
        let md = super::super::render::markdown(&c);
        let mixed = md.split("50 % read").nth(1).unwrap().split("###").next().unwrap();
        assert_eq!(
            mixed.lines().filter(|l| l.starts_with("| 4k |")).count(),
            1,
            "{md}"
        );
        assert!(
            mixed.contains("| 4k | 202 | 0.789 | 404 | 1.578 | 2.00x |"),
            "{md}"
        );
    }

    #[test]
    fn other_comparisons_keep_their_own_grid() {
        assert!(shaped(&compared(Metric::LatMean)).is_none());
        let mut plain = compared(Metric::Iops);
        plain.rows.iter_mut().for_each(|r| r.test = None);
        assert!(shaped(&plain).is_none());
    }

    #[test]
    fn every_sweep_test_name_is_recognised() {
        for read_pct in [100, 50, 0] {
            assert!(is_sweep_point(&crate::jobs::sweep::test_name(4096, read_pct)));
        }
        assert!(!is_sweep_point("SEQ1M Q8T1"));
    }
}
