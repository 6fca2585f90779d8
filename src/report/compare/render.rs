//! A `Comparison` as text: the terminal table, Markdown, CSV (one line per
//! row and target, machine units) and JSON. Only formatting happens here.
//! Mark runs are shown as CrystalDiskMark comparisons are published: a row
//! per target, a column per test, a grid per direction and test-file size.

use super::{By, Cell, Comparison, Direction, Figure, Metric, Noise, Repeated, Row};
use crate::report::escape::term;
use crate::report::export::{Format, Grid, num};
use crate::report::format::{latency, rate};
use crate::report::to_json;

pub fn render(c: &Comparison, format: Format) -> String {
    match format {
        Format::Table => table(c),
        Format::Markdown => markdown(c),
        Format::Csv => csv(c),
        Format::Json => to_json(c),
    }
}

/// A value in the metric's unit, at a precision that suits its size.
pub fn value_text(metric: Metric, v: f64) -> String {
    match metric {
        Metric::Mbps | Metric::Iops => rate(v),
        Metric::LatMean | Metric::LatP99 => latency(v),
    }
}

/// Three significant digits, for per-price figures that range from 0.001 to 10^6.
pub(super) fn sig(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    if x.abs() >= 100.0 {
        return format!("{x:.0}");
    }
    let decimals = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

fn by_title(by: By) -> String {
    crate::t!(match by {
        By::Test => "compare-by-test",
        By::Bs => "compare-by-bs",
        By::Mix => "compare-by-mix",
    })
}

fn headline(c: &Comparison) -> String {
    // Which figure matters only where something was repeated.
    let repeated = c
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .flatten()
        .any(|cell| cell.repetitions > 1);
    let figure_part = if repeated {
        format!(" · {}", figure_title(c))
    } else {
        String::new()
    };
    let better = match c.better {
        super::Better::Higher => crate::t!("compare-higher-is-better"),
        super::Better::Lower => crate::t!("compare-lower-is-better"),
    };
    crate::t!(
        "compare-headline",
        metric = crate::i18n::heading(c.metric.title()),
        better = better,
        figure = figure_part,
        baseline = term(&c.targets[c.baseline].name),
        by = by_title(c.by)
    )
}

/// `best pass` or `mean of passes` (of runs, with `--repeats`), in the
/// reader's language.
pub(super) fn figure_title(c: &Comparison) -> String {
    crate::t!(match (c.figure, c.repeated) {
        (Figure::Best, Repeated::Passes) => "compare-figure-best",
        (Figure::Mean, Repeated::Passes) => "compare-figure-mean",
        (Figure::Best, Repeated::Runs) => "compare-figure-best-run",
        (Figure::Mean, Repeated::Runs) => "compare-figure-mean-runs",
    })
}

fn targets_grid(c: &Comparison) -> Grid {
    let mut g = Grid::new([
        crate::t!("compare-target"),
        crate::t!("compare-run-ids"),
        crate::t!("compare-path"),
        crate::t!("compare-host"),
        crate::t!("compare-price"),
        crate::t!("compare-per-month"),
        crate::t!("compare-price-ratio"),
    ]);
    g.left = 5;
    for (i, t) in c.targets.iter().enumerate() {
        let path = match &t.device_model {
            Some(m) => format!("{} ({m})", t.path),
            None => t.path.clone(),
        };
        g.push([
            if i == c.baseline {
                crate::t!("compare-baseline-name", name = t.name.as_str())
            } else {
                t.name.clone()
            },
            t.run_ids
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            path,
            t.hostname.clone(),
            t.price_text.clone().unwrap_or_else(|| "-".into()),
            match (t.price_per_month, &t.currency) {
                (Some(m), Some(cur)) => format!("{m:.2} {cur}"),
                _ => "-".into(),
            },
            t.price_ratio
                .map(|r| format!("{r:.2}x"))
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    g
}

/// Whether the per-price columns appear: a throughput metric and some price.
fn show_prices(c: &Comparison) -> bool {
    c.metric.is_throughput() && c.targets.iter().any(|t| t.price_per_month.is_some())
}

fn value_cell(c: &Comparison, cell: &Option<Cell>) -> String {
    match cell {
        None => "-".into(),
        // A job that completed nothing has no value, not a value of 0.
        Some(cell) if cell.repetitions == 0 => crate::t!("compare-nothing-completed"),
        Some(cell) => {
            let mut s = value_text(c.metric, cell.value);
            if let Some(h) = crate::metrics::repeats::half_range(cell.min, cell.max, cell.value)
                && cell.repetitions > 1
            {
                s.push_str(&format!(" ±{:.1}%", h * 100.0));
            }
            s
        }
    }
}

pub(super) fn ratio_cell(cell: &Option<Cell>) -> String {
    let Some(cell) = cell else { return "-".into() };
    if let Some(why) = &cell.not_comparable {
        return crate::t!("compare-not-comparable", why = why.as_str());
    }
    match cell.ratio {
        Some(r) if cell.noise == Some(Noise::WithinNoise) => {
            crate::t!("compare-noise", ratio = format!("{r:.2}"))
        }
        Some(r) => format!("{r:.2}x"),
        None => "-".into(),
    }
}

/// At 80 columns, why a row is not comparable is said under the table
/// (`not comparable [1]` in the cell, `[1] not comparable: queue depth 1
/// vs 4` below it): a sentence in a cell would be cut, or wrap the row.
fn reasons_under(mut g: Grid, rows: &[&Row]) -> (Grid, Vec<String>) {
    if crate::report::width::wide() {
        return (g, Vec::new());
    }
    let mut reasons: Vec<String> = Vec::new();
    for why in rows
        .iter()
        .flat_map(|r| &r.cells)
        .flatten()
        .filter_map(|c| c.not_comparable.as_ref())
    {
        let whole = crate::t!("compare-not-comparable", why = why.as_str());
        if !reasons.contains(&whole) {
            reasons.push(whole);
        }
    }
    for cell in g.rows.iter_mut().flatten() {
        if let Some(n) = reasons.iter().position(|r| r == cell) {
            *cell = crate::t!("compare-not-comparable-ref", n = n + 1);
        }
    }
    let notes = reasons
        .iter()
        .enumerate()
        .map(|(i, r)| format!("[{}] {r}", i + 1))
        .collect();
    (g, notes)
}

fn rows_grid(c: &Comparison, rows: &[&Row]) -> Grid {
    let base = c.baseline;
    let others: Vec<usize> = (0..c.targets.len()).filter(|t| *t != base).collect();
    let bn = &c.targets[base].name;
    let unit = crate::i18n::heading(c.metric.title());
    let mut header = vec![by_title(c.by)];
    header.extend(c.targets.iter().map(|t| format!("{} {unit}", t.name)));
    header.extend(others.iter().map(|t| format!("{}/{bn}", c.targets[*t].name)));
    let prices = show_prices(c);
    let priced: Vec<usize> = (0..c.targets.len())
        .filter(|t| c.targets[*t].price_per_month.is_some())
        .collect();
    let price_ratioed: Vec<usize> = others
        .iter()
        .copied()
        .filter(|t| c.targets[*t].price_ratio.is_some())
        .collect();
    if prices {
        for t in &priced {
            let cur = c.targets[*t].currency.as_deref().unwrap_or("");
            header.push(crate::t!(
                "compare-per-price-heading",
                name = c.targets[*t].name.as_str(),
                unit = unit.as_str(),
                currency = cur
            ));
        }
        for t in &price_ratioed {
            let tt = &c.targets[*t];
            header.push(crate::t!(
                "compare-per-price-ratio-heading",
                name = tt.name.as_str(),
                baseline = bn.as_str(),
                currency = tt.currency.as_deref().unwrap_or(""),
                ratio = format!("{:.2}", tt.price_ratio.unwrap_or(0.0))
            ));
        }
    }
    let mut g = Grid::new(header);
    for r in rows {
        let mut line = vec![r.label.clone()];
        line.extend(r.cells.iter().map(|cell| value_cell(c, cell)));
        line.extend(others.iter().map(|t| ratio_cell(&r.cells[*t])));
        if prices {
            for t in &priced {
                line.push(match &r.cells[*t] {
                    Some(cell) => match c.metric {
                        Metric::Iops => cell.iops_per_price.map(sig),
                        _ => cell.mbps_per_price.map(sig),
                    }
                    .unwrap_or_else(|| "-".into()),
                    None => "-".into(),
                });
            }
            for t in &price_ratioed {
                line.push(
                    r.cells[*t]
                        .as_ref()
                        .and_then(|cell| cell.value_per_price_ratio)
                        .map(|v| format!("{v:.2}x"))
                        .unwrap_or_else(|| "-".into()),
                );
            }
        }
        g.push(line);
    }
    g
}

/// Rows grouped by section, sections in the rows' order.
pub(super) fn sections(c: &Comparison) -> Vec<(String, Vec<&Row>)> {
    let mut out: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in &c.rows {
        match out.iter_mut().find(|(s, _)| *s == r.section) {
            Some((_, rows)) => rows.push(r),
            None => out.push((r.section.clone(), vec![r])),
        }
    }
    out
}

fn legend(c: &Comparison) -> Vec<String> {
    let better = match c.better {
        super::Better::Higher => crate::t!("compare-higher-is-better"),
        super::Better::Lower => crate::t!("compare-lower-is-better"),
    };
    let mut out = vec![crate::t!(
        "compare-legend-ratios",
        baseline = c.targets[c.baseline].name.as_str(),
        metric = crate::i18n::heading(c.metric.title()),
        better = better
    )];
    let cells = || c.rows.iter().flat_map(|r| &r.cells).flatten();
    if c.interleaved {
        let names: Vec<&str> = c.targets.iter().map(|t| t.name.as_str()).collect();
        let passes = cells().map(|cell| cell.repetitions).max().unwrap_or(0);
        out.push(crate::t!(
            "compare-legend-interleaved",
            targets = term(&names.join(", ")),
            passes = passes
        ));
    }
    if cells().any(|cell| cell.repetitions > 1) {
        let figure = figure_title(c);
        out.push(if mark_view(c) {
            crate::t!("compare-legend-passes", figure = figure)
        } else if c.repeated == Repeated::Runs {
            // Seed 4's table has a column per run and no spread.
            let mut line = crate::t!("compare-legend-runs", figure = figure);
            if super::shaped(c).is_none() {
                line = format!("{line} {}", crate::t!("compare-legend-spread"));
            }
            line
        } else {
            crate::t!("compare-legend-repetitions", figure = figure)
        });
    }
    if cells().any(|cell| cell.p_value.is_some()) {
        out.push(crate::t!(
            if mark_view(c) || super::repeats_view::applies(c) {
                "compare-legend-rank-test-marked"
            } else {
                "compare-legend-rank-test"
            },
            pct = format!("{:.0}", super::SIGNIFICANCE * 100.0),
            unit = c.repeated.key()
        ));
    }
    if c.metric == Metric::Mbps {
        out.push(crate::t!("compare-legend-mbps"));
    }
    if show_prices(c) {
        out.push(crate::t!("compare-legend-prices"));
    }
    out
}

/// The capacity scores: a heading with the bound, and a grid.
fn capacity_grid(c: &Comparison) -> Option<(String, Grid)> {
    let cap = c.latency_bound.as_ref()?;
    let heading = crate::t!(
        "capacity-heading",
        bound = cap.bound.as_str(),
        baseline = c.targets[c.baseline].name.as_str()
    );
    let mut g = Grid::new(["target", "score", "runs", "relative", "note"].map(crate::i18n::heading));
    g.left = 1;
    for s in &cap.scores {
        let t = &c.targets[s.target];
        g.push([
            if s.target == c.baseline {
                crate::t!("compare-baseline-name", name = t.name.as_str())
            } else {
                t.name.clone()
            },
            s.score_text(),
            s.repetitions.to_string(),
            s.ratio_text(),
            s.note_text(),
        ]);
    }
    Some((heading, g))
}

pub fn table(c: &Comparison) -> String {
    let mut out = crate::report::width::wrap("", &headline(c), 2);
    out.push_str(&targets_grid(c).to_table());
    if let Some((heading, g)) = capacity_grid(c) {
        out.push('\n');
        out.push_str(&crate::report::width::wrap("", &term(&heading), 2));
        out.push_str(&g.to_table());
        out.push_str(&crate::report::width::wrap("", &crate::t!("capacity-note"), 0));
        for line in super::capacity::notes(c) {
            out.push_str(&crate::report::width::wrap("", &term(&line), 0));
        }
    }
    // Runs of latency searches alone have their scores above and no rows.
    let only_scores = c.rows.is_empty() && c.latency_bound.is_some();
    if c.rows.is_empty() && !only_scores {
        out.push_str(&format!("{}\n", crate::t!("compare-no-rows")));
    }
    if let Some(targets) = tiobench_view(c) {
        out.push_str(&crate::report::tiobench_table::render_targets(targets));
    } else if let Some(shaped) = super::shaped(c) {
        out.push_str(&shaped.table());
    } else if mark_view(c) {
        for g in mark_grids(c) {
            out.push('\n');
            out.push_str(&crate::report::width::wrap("", &term(&g.heading), 2));
            out.push_str(&g.grid.to_table());
            for n in &g.notes {
                out.push_str(&crate::report::width::wrap("", &term(n), 2));
            }
        }
    } else {
        for (section, rows) in sections(c) {
            if !section.is_empty() {
                out.push_str(&format!("\n{}\n", term(&section)));
            }
            let (g, notes) = reasons_under(rows_grid(c, &rows), &rows);
            out.push_str(&g.to_table());
            for n in notes {
                out.push_str(&crate::report::width::wrap("", &term(&n), 4));
            }
        }
    }
    out.push_str(&super::hosts::table(&c.hosts));
    for w in &c.warnings {
        out.push_str(&crate::report::width::wrap(
            &crate::t!("warning-prefix"),
            &term(w),
            2,
        ));
    }
    if only_scores {
        return out;
    }
    if !c.guidance.is_empty() {
        out.push_str(&format!("\n{}\n", crate::t!("compare-guidance")));
        for line in c.guidance_lines() {
            out.push_str(&crate::report::width::wrap("  - ", &term(&line), 4));
        }
    }
    out.push('\n');
    for l in legend(c) {
        out.push_str(&crate::report::width::wrap("", &l, 0));
    }
    out
}

pub fn markdown(c: &Comparison) -> String {
    let mut out = format!("## {}\n\n", headline(c));
    out.push_str(&targets_grid(c).to_markdown());
    if let Some((heading, g)) = capacity_grid(c) {
        out.push_str(&format!("\n### {heading}\n\n"));
        out.push_str(&g.to_markdown());
        out.push('\n');
        out.push_str(&crate::t!("capacity-note"));
        out.push('\n');
        for line in super::capacity::notes(c) {
            out.push_str(&format!("\n{line}\n"));
        }
    }
    if c.rows.is_empty() && c.latency_bound.is_none() {
        out.push_str(&format!("\n{}\n", crate::t!("compare-no-rows")));
    }
    if let Some(shaped) = super::shaped(c) {
        out.push_str(&shaped.markdown());
    } else if mark_view(c) {
        for g in mark_grids(c) {
            out.push_str(&format!("\n### {}\n\n", g.heading));
            out.push_str(&g.grid.to_markdown());
            for n in &g.notes {
                out.push_str(&format!("\n{n}\n"));
            }
        }
    } else {
        for (section, rows) in sections(c) {
            out.push('\n');
            if !section.is_empty() {
                out.push_str(&format!("### {section}\n\n"));
            }
            out.push_str(&rows_grid(c, &rows).to_markdown());
        }
    }
    out.push_str(&super::hosts::markdown(&c.hosts));
    if !c.warnings.is_empty() {
        out.push('\n');
        for w in &c.warnings {
            out.push_str(&format!("- **{}**: {w}\n", crate::t!("compare-markdown-warning")));
        }
    }
    // Runs of latency searches alone have no rows for guidance to rest on.
    let only_scores = c.rows.is_empty() && c.latency_bound.is_some();
    if !c.guidance.is_empty() && !only_scores {
        out.push_str(&format!("\n### {}\n\n", crate::t!("compare-guidance-markdown")));
        for line in c.guidance_lines() {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out.push('\n');
    out.push_str(&legend(c).join("\n"));
    out.push('\n');
    out
}

/// One line per row and target, machine units, nothing but the header and
/// data; a comparison shown in a published table's shape is that table.
pub fn csv(c: &Comparison) -> String {
    if let Some(shaped) = super::shaped(c) {
        return shaped.csv();
    }
    let mut g = Grid::new([
        "section",
        "row",
        "test",
        "direction",
        "rw",
        "bs",
        "read_pct",
        "qd",
        "threads",
        "direct",
        "size_bytes",
        "target",
        "baseline",
        "repetitions",
        "metric",
        "unit",
        "value",
        "min",
        "max",
        "iops",
        "bytes_per_sec",
        "lat_mean_ns",
        "lat_p99_ns",
        "ratio",
        "better",
        "noise",
        "not_comparable",
        "price_per_month",
        "currency",
        "iops_per_price",
        "mbps_per_price",
        "value_per_price_ratio",
        "figure",
        "p_value",
        "cliffs_delta",
    ]);
    let metric = match c.metric {
        Metric::Mbps => "mbps",
        Metric::Iops => "iops",
        Metric::LatMean => "lat-mean",
        Metric::LatP99 => "lat-p99",
    };
    let better = match c.better {
        super::Better::Higher => "higher",
        super::Better::Lower => "lower",
    };
    for r in &c.rows {
        // Under MB/s, a row that moves no bytes is compared in operations
        // per second: its own unit (rows.rs).
        let metric = if r.unit == c.unit { metric } else { "iops" };
        let unit = r.unit;
        for (t, cell) in r.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            let target = &c.targets[t];
            let w = &r.workload;
            g.push([
                r.section.clone(),
                r.label.clone(),
                r.test.clone().unwrap_or_default(),
                r.direction.name().to_string(),
                w.rw.to_string(),
                w.bs.clone(),
                w.read_pct.to_string(),
                w.qd.to_string(),
                w.threads.to_string(),
                w.direct.to_string(),
                w.size_bytes.map(|s| s.to_string()).unwrap_or_default(),
                target.name.clone(),
                (t == c.baseline).to_string(),
                cell.repetitions.to_string(),
                metric.to_string(),
                unit.to_string(),
                num(Some(cell.value), 3),
                num(Some(cell.min), 3),
                num(Some(cell.max), 3),
                num(Some(cell.iops), 3),
                num(Some(cell.bytes_per_sec), 0),
                num(Some(cell.lat_mean_ns), 1),
                num(cell.lat_p99_ns, 0),
                num(cell.ratio, 4),
                better.to_string(),
                match cell.noise {
                    Some(Noise::Differs) => "differs",
                    Some(Noise::EveryPass) => "every_pass",
                    Some(Noise::WithinNoise) => "within_noise",
                    Some(Noise::SingleRun) => "single_run",
                    None => "",
                }
                .to_string(),
                cell.not_comparable.clone().unwrap_or_default(),
                num(target.price_per_month, 2),
                target.currency.clone().unwrap_or_default(),
                num(cell.iops_per_price, 6),
                num(cell.mbps_per_price, 6),
                num(cell.value_per_price_ratio, 4),
                match c.figure {
                    Figure::Best => "best",
                    Figure::Mean => "mean",
                }
                .to_string(),
                num(cell.p_value, 4),
                num(cell.cliffs_delta, 3),
            ]);
        }
    }
    super::capacity::add_csv(c, &mut g);
    g.to_csv()
}

/// tiobench runs side by side, by test: tiobench.pl's tables (seed 5).
pub fn tiobench_view(c: &Comparison) -> Option<&[(String, Vec<crate::report::tiobench_table::TiobenchRow>)]> {
    match &c.suite {
        Some(super::suite_view::SuiteView::Tiobench(t)) if c.by == By::Test => Some(t),
        _ => None,
    }
}

/// Whether the rows are shown as mark grids: every run a mark run, rows by
/// test, and every row a test's read, write or mixed total.
fn mark_view(c: &Comparison) -> bool {
    c.all_marks
        && c.by == By::Test
        && !c.rows.is_empty()
        && c.rows.iter().all(|r| {
            r.test.is_some() && matches!(r.direction, Direction::Read | Direction::Write | Direction::Total)
        })
}

/// The mark view's grids (heading, grid, notes under it), when the rows are
/// shown so: a row per target, a column per test (seed 1's published table).
pub fn mark_tables(c: &Comparison) -> Vec<(String, Grid, Vec<String>)> {
    if !mark_view(c) {
        return Vec::new();
    }
    mark_grids(c)
        .into_iter()
        .map(|g| (g.heading, g.grid, g.notes))
        .collect()
}

/// One grid of the mark view: the targets of one test-file size in one direction.
struct MarkGrid {
    heading: String,
    grid: Grid,
    /// Why a target's cells (marked `*` beside the baseline) have no ratio.
    notes: Vec<String>,
}

/// Reads and writes apart, and a Mix profile's mixed job apart from both.
fn grid_key(r: &Row) -> (bool, Direction) {
    (!r.workload.read_pct.is_multiple_of(100), r.direction)
}

fn mark_grids(c: &Comparison) -> Vec<MarkGrid> {
    let mut keys: Vec<(bool, Direction)> = Vec::new();
    for r in &c.rows {
        if !keys.contains(&grid_key(r)) {
            keys.push(grid_key(r));
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let rows: Vec<&Row> = c.rows.iter().filter(|r| grid_key(r) == key).collect();
        // A target's test size here: that of its first measured cell.
        let size_of = |t: usize| {
            rows.iter()
                .find_map(|r| r.cells[t].as_ref())
                .map(|cell| cell.size_bytes)
        };
        let mut sizes: Vec<Option<u64>> = Vec::new();
        for t in 0..c.targets.len() {
            if let Some(size) = size_of(t)
                && !sizes.contains(&size)
            {
                sizes.push(size);
            }
        }
        for size in sizes {
            let members: Vec<usize> = (0..c.targets.len())
                .filter(|t| size_of(*t) == Some(size))
                .collect();
            out.push(mark_grid(c, key, size, &rows, &members));
        }
    }
    out
}

fn mark_grid(
    c: &Comparison,
    key: (bool, Direction),
    size: Option<u64>,
    rows: &[&Row],
    members: &[usize],
) -> MarkGrid {
    let direction = crate::i18n::heading(key.1.name());
    let mut parts = vec![
        if key.0 {
            format!("{} {direction}", crate::i18n::heading("mix"))
        } else {
            direction
        },
        format!("{}, {}", crate::i18n::heading(c.metric.title()), figure_title(c)),
    ];
    if let Some(bytes) = size {
        parts.push(crate::t!(
            "compare-test-file",
            size = crate::report::format::bytes_human(bytes)
        ));
    }
    let mut header = vec![crate::t!("compare-target")];
    header.extend(
        rows.iter()
            .map(|r| crate::i18n::heading(r.test.as_deref().unwrap_or(""))),
    );
    let mut grid = Grid::new(header);
    let mut notes = Vec::new();
    let with_base = members.contains(&c.baseline);
    for &t in members {
        let name = &c.targets[t].name;
        let mut line = vec![if t == c.baseline {
            crate::t!("compare-baseline-name", name = name.as_str())
        } else {
            name.clone()
        }];
        for r in rows {
            let Some(cell) = &r.cells[t] else {
                line.push("-".into());
                continue;
            };
            // A target that completed nothing has no value: not a 0.000.
            let value = match cell.repetitions {
                0 => "-".to_string(),
                _ => value_text(c.metric, cell.value),
            };
            if let Some(why) = &cell.not_comparable {
                let note = format!(
                    "* {name}: {}",
                    crate::t!("compare-not-comparable", why = why.as_str())
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
            line.push(match (&cell.not_comparable, cell.ratio) {
                _ if t == c.baseline => value,
                // Beside the baseline, a value without its ratio needs its reason.
                (Some(_), _) if with_base => format!("{value} *"),
                (None, Some(ratio)) if cell.noise == Some(Noise::WithinNoise) => {
                    format!("{value} ~{ratio:.2}x")
                }
                (None, Some(ratio)) => format!("{value} {ratio:.2}x"),
                _ => value,
            });
        }
        grid.push(line);
    }
    grid.left = 1;
    MarkGrid {
        heading: parts.join(" · "),
        grid,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::sig;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig(0.30782), "0.308");
        assert_eq!(sig(0.0012345), "0.00123");
        assert_eq!(sig(2.34567), "2.35");
        assert_eq!(sig(23.4567), "23.5");
        assert_eq!(sig(31415.9), "31416");
    }
}
