//! Charts of the built-in suites, drawn the way their seed articles
//! published them: CrystalDiskMark bars per test (one colour per target),
//! and block-size sweeps as lines (one per target, one chart per mix).

use std::collections::BTreeMap;

use super::table::{Cell, Table};
use super::{Page, figure};
use crate::jobs::suites::SuiteKind;
use crate::jobs::units::format_size;
use crate::metrics::RunResult;
use crate::metrics::repeats::{RepeatStats, TestSummary, summarize_mark};
use crate::report::format::{bytes_human, rate};
use crate::report::svg::{self, Axis, BarChart, Line, LineChart, Scale};

fn is_mark(run: &RunResult) -> bool {
    matches!(run.suite, Some(SuiteKind::Mark(_)))
}

fn is_sweep(run: &RunResult) -> bool {
    run.suite.as_ref().is_some_and(|s| s.family() == "sweep")
}

/// MB/s with two decimals, as `kura mark` prints its grid.
fn mark_mb(v: f64) -> String {
    format!("{v:.2}")
}

/// The bytes a mark measured and how to say it: a whole file as "1.0 GiB
/// test file", anything else as `span_text` says it.
fn mark_span(j: &crate::metrics::JobResult) -> (u64, String) {
    let whole = j.target.size_bytes;
    let span = j.job.size_bytes.unwrap_or(whole).min(whole);
    let file = j.target.kind == crate::metrics::TargetKind::File;
    if file && span == whole && j.job.offset_bytes == 0 {
        (span, crate::t!("html-mark-size", size = bytes_human(whole)))
    } else {
        (span, crate::report::span::span_text(j))
    }
}

pub fn mark_section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let by_span = marks_by_span(runs);
    if by_span.is_empty() {
        return;
    }
    page.html(r#"<section id="mark"><h2>CrystalDiskMark</h2>"#);
    for ((size, size_text), idx) in by_span {
        let group = MarkGroup::new(runs, size, size_text, idx);
        page.html(&format!("<h3>{}</h3>", svg::esc(&group.size_text)));
        group.charts(page, names);
        group.tables(page, names);
        // Which figure the grid shows, and what ± is, as under the terminal's grid.
        let note = format!(
            "{} {}",
            crate::report::mark_grid::Figure::Best.caption(group.best_runs),
            crate::t!("mark-spread-note")
        );
        page.html(&format!(r#"<p class="note">{}</p>"#, svg::esc(&note)));
    }
    page.html("</section>");
}

/// The mark runs grouped by the span they measured, in run order: the seed
/// article publishes one table per test-file size, since a 4 GiB file
/// defeats a controller cache that a 1 GiB file fits in. A device is
/// grouped and named by the span measured ("first 1.0 GiB of a 931.5 GiB
/// device"), as the terminal's header says it.
fn marks_by_span(runs: &[RunResult]) -> Vec<((u64, String), Vec<usize>)> {
    let mut by_span: Vec<((u64, String), Vec<usize>)> = Vec::new();
    for (i, run) in runs.iter().enumerate().filter(|(_, r)| is_mark(r)) {
        let key = run.jobs.first().map(mark_span).unwrap_or_default();
        match by_span.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => by_span.push((key, vec![i])),
        }
    }
    by_span
}

/// A direction of a mark test, as an index into `[read, write, mix]`
/// (mix: a Mix profile's mixed passes).
type Dir = usize;

/// One column pair of a mark grid: a run's (`run`, an index into the
/// group's runs) direction, with its heading shown and downloaded.
struct GridColumn {
    run: usize,
    dir: Dir,
    shown: String,
    exported: String,
}

/// The mark runs that measured one span: one heading, its charts and grids.
struct MarkGroup {
    size: u64,
    size_text: String,
    /// Indices into the page's runs.
    idx: Vec<usize>,
    summaries: Vec<Vec<TestSummary>>,
    /// Every test of any of the runs, in run order.
    tests: Vec<String>,
    /// The most passes any figure is the best of.
    best_runs: usize,
    /// Whether a run has a Mix profile's mixed passes.
    mixed: bool,
}

impl MarkGroup {
    fn new(runs: &[RunResult], size: u64, size_text: String, idx: Vec<usize>) -> MarkGroup {
        let summaries: Vec<_> = idx.iter().map(|i| summarize_mark(&runs[*i])).collect();
        let mut tests: Vec<String> = Vec::new();
        for s in summaries.iter().flatten() {
            if !tests.contains(&s.test) {
                tests.push(s.test.clone());
            }
        }
        let best_runs = summaries
            .iter()
            .flatten()
            .flat_map(|s| [&s.read, &s.write])
            .flatten()
            .map(|st| st.runs)
            .max()
            .unwrap_or(0);
        let mixed = summaries.iter().flatten().any(|s| s.mix.is_some());
        MarkGroup {
            size,
            size_text,
            idx,
            summaries,
            tests,
            best_runs,
            mixed,
        }
    }

    /// Run `k`'s (of the group) figures for `test` in direction `dir`.
    fn stats(&self, k: usize, test: &str, dir: Dir) -> Option<RepeatStats> {
        let s = self.summaries[k].iter().find(|s| s.test == test)?;
        [&s.read, &s.write, &s.mix][dir].clone()
    }

    /// A bar chart per direction, a bar per test and run.
    fn charts(&self, page: &mut Page, names: &[String]) {
        page.html(r#"<div class="charts">"#);
        // A Mix profile's mixed passes get a chart too, reads and writes together.
        let mut charted = vec![(0, crate::t!("mark-read")), (1, crate::t!("mark-write"))];
        if self.mixed {
            charted.push((2, crate::t!("mark-mix")));
        }
        for (d, dir) in charted {
            let value = |k: usize, test: &str| self.stats(k, test, d).map(|st| st.best_bytes_per_sec / 1e6);
            let chart = BarChart {
                title: format!("{dir}, {}", self.size_text),
                y_title: crate::t!("html-axis-mbps"),
                groups: self.tests.clone(),
                series: self
                    .idx
                    .iter()
                    .enumerate()
                    .map(|(k, i)| {
                        (
                            names[*i].clone(),
                            self.tests.iter().map(|t| value(k, t)).collect(),
                        )
                    })
                    .collect(),
                value_fmt: mark_mb,
                reference: None,
            };
            page.html(&figure(
                &svg::bar_chart(&chart),
                &crate::t!("html-mark-chart", dir = dir.as_str(), runs = self.best_runs),
            ));
        }
        page.html("</div>");
    }

    /// As the terminal's grid: each direction's best MB/s and `±` beside
    /// it, half the range of its passes (`repeats::half_range`); a Mix column for Mix
    /// profiles. Shown in the reader's language, downloaded with English
    /// names. One run is one grid, as CrystalDiskMark shows it; several
    /// runs get a table per direction (as the charts), so that a column
    /// pair per run still fits a page.
    fn tables(&self, page: &mut Page, names: &[String]) {
        let dirs: &[(Dir, &str)] = if self.mixed {
            &[(0, "read"), (1, "write"), (2, "mix")]
        } else {
            &[(0, "read"), (1, "write")]
        };
        let name = format!("mark-{}", format_size(self.size));
        if self.idx.len() == 1 {
            let columns = dirs
                .iter()
                .map(|(d, dir)| GridColumn {
                    run: 0,
                    dir: *d,
                    shown: crate::i18n::heading(dir),
                    exported: dir.to_string(),
                })
                .collect();
            let title = crate::t!("html-mark-table", size = self.size_text.as_str());
            page.table(self.grid(name, title, columns));
        } else {
            for (d, dir) in dirs {
                let columns = self
                    .idx
                    .iter()
                    .enumerate()
                    .map(|(k, i)| GridColumn {
                        run: k,
                        dir: *d,
                        shown: names[*i].clone(),
                        exported: names[*i].clone(),
                    })
                    .collect();
                let title = crate::t!(
                    "html-mark-table-dir",
                    size = self.size_text.as_str(),
                    dir = crate::i18n::heading(dir)
                );
                page.table(self.grid(format!("{name}-{dir}"), title, columns));
            }
        }
    }

    /// A grid of the tests by `columns`: MB/s and ± of each.
    fn grid(&self, name: String, title: String, columns: Vec<GridColumn>) -> Table {
        let mut shown = vec![crate::i18n::heading("test")];
        let mut exported = vec!["test".to_string()];
        for c in &columns {
            shown.extend([format!("{} MB/s", c.shown), format!("{} ±", c.shown)]);
            exported.extend([format!("{} MB/s", c.exported), format!("{} ±", c.exported)]);
        }
        let cols: Vec<&str> = shown.iter().map(String::as_str).collect();
        let export: Vec<&str> = exported.iter().map(String::as_str).collect();
        let mut t = Table::new(&name, &title, &cols).with_export_columns(&export);
        for test in &self.tests {
            let mut row = vec![Cell::text(test.as_str())];
            for c in &columns {
                match self.stats(c.run, test, c.dir) {
                    Some(st) => {
                        let v = st.best_bytes_per_sec / 1e6;
                        row.push(Cell::num(v, mark_mb(v)));
                        let half = crate::metrics::repeats::half_range(
                            st.min_bytes_per_sec,
                            st.best_bytes_per_sec,
                            st.best_bytes_per_sec,
                        );
                        row.push(match half {
                            Some(h) if st.runs > 1 => Cell::num(h * 100.0, format!("{:.0}%", h * 100.0)),
                            _ => Cell::text(""),
                        });
                    }
                    None => row.extend([Cell::text("-"), Cell::text("")]),
                }
            }
            t.rows.push(row);
        }
        t
    }
}

/// A sweep's read/write mix: random or not, and the share of reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mix {
    /// 100 - read %, so that sorting puts read-only first, as the seed table does.
    writes_pct: u8,
    sequential: bool,
}

impl Mix {
    pub fn label(self) -> String {
        let reads = 100 - self.writes_pct;
        let kind = if self.sequential {
            crate::t!("sweep-sequential")
        } else {
            crate::t!("sweep-random")
        };
        let mix = match reads {
            100 => crate::t!("sweep-all-read"),
            0 => crate::t!("sweep-all-write"),
            r => crate::t!("html-sweep-mix", mix = format!("{r}/{}", 100 - r)),
        };
        format!("{kind}{}{mix}", crate::t!("list-separator"))
    }
}

/// (mix -> block size -> (IOPS, bytes/s)), read and write added together,
/// repetitions averaged. Jobs with a block-size split have no place on the
/// x axis and are left out.
pub type SweepCurves = BTreeMap<Mix, BTreeMap<u64, (f64, f64)>>;

pub fn sweep_curves(run: &RunResult) -> SweepCurves {
    let mut sums: BTreeMap<Mix, BTreeMap<u64, (f64, f64, u32)>> = BTreeMap::new();
    for job in &run.jobs {
        let [bs] = job.job.bs.as_slice() else { continue };
        let mix = Mix {
            writes_pct: 100 - job.job.effective_read_pct(),
            sequential: !job.job.rw.is_random(),
        };
        let e = sums.entry(mix).or_default().entry(bs.bytes).or_default();
        e.0 += job.directions().map(|(_, d)| d.iops).sum::<f64>();
        e.1 += job.directions().map(|(_, d)| d.bytes_per_sec).sum::<f64>();
        e.2 += 1;
    }
    sums.into_iter()
        .map(|(mix, m)| {
            let m = m
                .into_iter()
                .map(|(bs, (iops, bw, n))| (bs, (iops / n as f64, bw / n as f64)))
                .collect();
            (mix, m)
        })
        .collect()
}

const MIB: f64 = (1u64 << 20) as f64;

pub fn sweep_section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let sweeps: Vec<usize> = (0..runs.len()).filter(|i| is_sweep(&runs[*i])).collect();
    if sweeps.is_empty() {
        return;
    }
    let curves: Vec<SweepCurves> = sweeps.iter().map(|i| sweep_curves(&runs[*i])).collect();
    let mut mixes: Vec<Mix> = curves.iter().flat_map(|c| c.keys().copied()).collect();
    mixes.sort();
    mixes.dedup();
    page.html(&format!(
        r#"<section id="sweep"><h2>{}</h2>"#,
        crate::t!("html-sweep")
    ));
    let sweep_runs: Vec<RunResult> = sweeps.iter().map(|i| runs[*i].clone()).collect();
    let mut tables = sweep_tables(&sweep_runs);
    // Values on every point stay readable for up to three lines.
    let label_points = sweeps.len() <= 3;
    for mix in mixes {
        let mut sizes: Vec<u64> = curves
            .iter()
            .filter_map(|c| c.get(&mix))
            .flat_map(|m| m.keys().copied())
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let (Some(&first), Some(&last)) = (sizes.first(), sizes.last()) else {
            continue;
        };
        let ticks: Vec<(f64, String)> = sizes.iter().map(|s| (*s as f64, format_size(*s))).collect();
        let x = Axis::custom(
            &crate::t!("html-sweep-axis"),
            Scale::Log2,
            first as f64 / 1.4,
            last as f64 * 1.4,
            ticks,
        );
        let lines = |f: fn(&(f64, f64)) -> f64| -> Vec<Line> {
            sweeps
                .iter()
                .zip(&curves)
                .filter_map(|(i, c)| {
                    let m = c.get(&mix)?;
                    let points: Vec<(f64, f64)> = m.iter().map(|(bs, v)| (*bs as f64, f(v))).collect();
                    Some(Line {
                        name: names[*i].clone(),
                        values: if label_points {
                            (0..points.len()).collect()
                        } else {
                            Vec::new()
                        },
                        points,
                        dashed: false,
                    })
                })
                .collect()
        };
        let max_of = |ls: &[Line]| {
            ls.iter()
                .flat_map(|l| l.points.iter().map(|p| p.1))
                .fold(0.0, f64::max)
        };
        let iops_lines = lines(|v| v.0);
        let mib_lines = lines(|v| v.1 / MIB);
        let label = mix.label();
        page.html(&format!("<h3>{}</h3>", svg::esc(&label)));
        page.html(r#"<div class="charts">"#);
        for (what, unit, ls, fmt) in [
            ("IOPS", "IOPS".to_string(), iops_lines, rate as fn(f64) -> String),
            (
                "MiB/s",
                crate::t!("html-axis-mibps"),
                mib_lines,
                rate as fn(f64) -> String,
            ),
        ] {
            let max = max_of(&ls) * 1.12;
            let chart = LineChart {
                title: crate::t!("html-sweep-chart", what = what, mix = label.as_str()),
                x: x.clone(),
                y: Axis::linear(&unit, 0.0, max, true, svg::num_tick),
                lines: ls,
                bands: Vec::new(),
                y_bands: Vec::new(),
                markers: Vec::new(),
                value_fmt: fmt,
                emphasis: None,
            };
            page.html(&figure(
                &svg::line_chart(&chart),
                &crate::t!("html-sweep-caption", what = what),
            ));
        }
        page.html("</div>");
        let reads = 100 - mix.writes_pct;
        if let Some(i) = tables
            .iter()
            .position(|(sequential, read_pct, _)| *sequential == mix.sequential && *read_pct == reads)
        {
            let (_, _, mut t) = tables.remove(i);
            t.name = format!("sweep-{}-{reads}", if mix.sequential { "seq" } else { "rand" });
            t.title = crate::t!("html-sweep-table", mix = label.as_str());
            page.table(t);
        }
    }
    page.html("</section>");
}

/// The seed article's tables, one per mix, as `kura compare --by bs
/// --metric iops` prints them (report::compare's sweep view): block size,
/// each target's IOPS and MiB/s, its ratio to the first target and, with
/// prices, the ratio per unit of price.
fn sweep_tables(runs: &[RunResult]) -> Vec<(bool, u8, Table)> {
    use crate::report::compare::{self, By, CompareOptions, Metric};
    let opts = CompareOptions {
        metric: Metric::Iops,
        by: By::Bs,
        ..CompareOptions::default()
    };
    let c = compare::build(runs, &opts).or_else(|_| {
        // A price kura cannot read leaves prices out (the comparison says why).
        let unpriced: Vec<RunResult> = runs
            .iter()
            .cloned()
            .map(|mut r| {
                r.price = None;
                r
            })
            .collect();
        compare::build(&unpriced, &opts)
    });
    c.map(|c| compare::sweep_view::tables_by_mix(&c))
        .unwrap_or_default()
}

/// bonnie++, tiobench, vdbench and IO500 runs: their suite's own table,
/// as the terminal prints it (`kura show`), so the report carries the
/// numbers in the shape their users read them. (PTS runs have pages of
/// their own, pts.rs.)
pub fn suite_tables_section(page: &mut Page, runs: &[RunResult], names: &[String]) {
    let own: Vec<usize> = (0..runs.len())
        .filter(|i| {
            matches!(
                runs[*i].suite,
                Some(SuiteKind::Bonnie | SuiteKind::Tiobench | SuiteKind::Vdbench | SuiteKind::Io500)
            )
        })
        .collect();
    if own.is_empty() {
        return;
    }
    page.html(&format!(
        r#"<section id="suite-tables"><h2>{}</h2>"#,
        crate::t!("html-suite-tables")
    ));
    for i in own {
        let suite = runs[i].suite.as_ref().map(|s| s.to_string()).unwrap_or_default();
        let mut text = crate::report::render_run(&runs[i], &crate::report::View::default());
        if crate::i18n::lang() == crate::i18n::Lang::Ja {
            // Japanese monospace fonts (the page's `:lang(ja)` font) draw box
            // lines two columns wide, as East Asian text does; a hyphen is one.
            text = text.replace('─', "-");
        }
        page.html(&format!(
            r#"<h3>{} · {}</h3><pre class="suite">{}</pre>"#,
            svg::esc(&names[i]),
            svg::esc(&suite),
            // The table's own lines; the names in it are escaped already, as on the terminal.
            text.lines().map(svg::esc).collect::<Vec<_>>().join("\n")
        ));
    }
    page.html("</section>");
}
