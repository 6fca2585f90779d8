//! Output formats as pure functions from a grid of cells to text: the
//! terminal table, Markdown, CSV (RFC 4180). Reports build a `Grid` once and
//! pick the writer, so every format shows the same rows.

use comfy_table::CellAlignment;

use super::escape::term;
use super::format::{mb_per_sec, rate, utc};
use super::run_table::new_table;
use crate::metrics::RunResult;
use crate::store::RunSummary;

/// What `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns for a terminal
    Table,
    /// GitHub-flavoured Markdown tables
    Markdown,
    /// Comma-separated values, one header line (RFC 4180 quoting)
    Csv,
    /// One JSON document (docs/json.md)
    Json,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Json => "json",
        }
    }
}

/// A header and rows of text cells; the first `left` columns (names) are
/// left-aligned, the others (numbers) right-aligned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub left: usize,
    /// The terminal shows each cell's lines one under another (a target's
    /// facts stacked under its name). Only the writer of the grid puts a
    /// line break in a cell: it escapes what it stacks (`term`) first.
    pub stacked: bool,
}

impl Grid {
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Grid {
        Grid {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
            left: 1,
            stacked: false,
        }
    }

    pub fn push<S: Into<String>>(&mut self, row: impl IntoIterator<Item = S>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    pub fn to_table(&self) -> String {
        /// Cells up to this width never wrap.
        const SHORT_CELL: usize = 14;
        let shown = |c: &str| -> String {
            if self.stacked {
                c.split('\n')
                    .map(|l| term(l).into_owned())
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                term(c).into_owned()
            }
        };
        // A heading may be a target's name: escaped as the cells are.
        let header: Vec<String> = self.header.iter().map(|h| term(h).into_owned()).collect();
        let mut t = new_table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        for row in &self.rows {
            t.add_row(row.iter().map(|c| shown(c)));
        }
        for i in 0..self.left {
            if let Some(c) = t.column_mut(i) {
                c.set_cell_alignment(CellAlignment::Left);
            }
        }
        // At 80 columns, short cells (numbers, short words) keep their width
        // and the columns of longer text are cut, never wrapped.
        // A cell made of lines on purpose (size/plan under a name) by its widest.
        let fits = |c: &String| {
            c.split('\n')
                .all(|l| super::width::display_width(l) <= SHORT_CELL)
        };
        // (A long heading over short cells folds between its words instead.)
        // The first column names the rows: it gets its room back first.
        let long: Vec<usize> = (0..self.header.len())
            .filter(|&i| !self.rows.iter().all(|r| r.get(i).is_none_or(fits)))
            .collect();
        format!(
            "{}\n",
            super::fit::render_with(&t, &super::fit::Fit::new().cut(&long))
        )
    }

    pub fn to_markdown(&self) -> String {
        self.to_markdown_aligned(|i| i < self.left)
    }

    /// Markdown with the columns `left` says read from the left (words),
    /// the others aligned right (numbers).
    pub fn to_markdown_aligned(&self, left: impl Fn(usize) -> bool) -> String {
        let cell = |s: &str| term(s).replace('|', "\\|");
        let mut out = String::new();
        out.push_str(&format!(
            "| {} |\n",
            self.header
                .iter()
                .map(|h| cell(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        let rule: Vec<&str> = (0..self.header.len())
            .map(|i| if left(i) { "---" } else { "--:" })
            .collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out
    }

    /// CSV with a header line; no trailing commentary, so the output loads as is.
    pub fn to_csv(&self) -> String {
        self.to_csv_lines("\n")
    }

    /// CSV with each line ended by `eol` (`\r\n`, RFC 4180's, for the
    /// HTML report's downloads; `\n` on stdout, as other tools print it).
    pub fn to_csv_lines(&self, eol: &str) -> String {
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            out.push_str(&row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
            out.push_str(eol);
        }
        out
    }
}

/// One CSV cell, quoted when RFC 4180 needs it. A cell a spreadsheet would
/// take for a formula (starting with `=`, `+`, `-`, `@`, tab or CR: a label
/// such as `=HYPERLINK(...)`) gets a leading `'` and quotes, as OWASP's
/// "CSV injection" advice says, so that it opens as text; a plain number
/// such as `-3.5` is left as it is. Control characters are escaped as the
/// tables escape them (`\u{1b}`): a CSV is read in terminals too (`cat`,
/// `column`), where a label's escape sequence would rewrite the screen.
pub fn csv_field(raw: &str) -> String {
    let formula = raw.starts_with(['=', '+', '-', '@', '\t', '\r']) && raw.parse::<f64>().is_err();
    let s = term(raw);
    if formula {
        format!("\"'{}\"", s.replace('"', "\"\""))
    } else if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A number for CSV: fixed decimals, no unit, empty when absent.
pub fn num(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.decimals$}"),
        _ => String::new(),
    }
}

/// `kura history` as a grid; `raw` keeps machine units (CSV), else human units.
pub fn history_grid(runs: &[RunSummary], raw: bool) -> Grid {
    if raw {
        let mut g = Grid::new([
            "id",
            "started_unix_s",
            "label",
            "price",
            "suite",
            "hostname",
            "jobs",
            "target",
            "workload",
            "iops",
            "bytes_per_sec",
            "figure",
            "incomplete",
        ]);
        for r in runs {
            g.push([
                r.id.to_string(),
                r.started_unix_s.to_string(),
                r.label.clone().unwrap_or_default(),
                r.price.clone().unwrap_or_default(),
                r.suite.clone().unwrap_or_default(),
                r.hostname.clone(),
                r.jobs.to_string(),
                r.target.clone(),
                r.workload.clone(),
                num(Some(r.iops), 3),
                num(Some(r.bytes_per_sec), 0),
                r.figure.clone(),
                r.incomplete.to_string(),
            ]);
        }
        return g;
    }
    // A run that stopped early or cannot be read says so after its figure,
    // as the terminal table does, not in a column of its own with no name.
    let mut g = Grid::new([
        "id", "date", "label", "price", "suite", "target", "workload", "IOPS", "MB/s", "figure",
    ]);
    g.left = 7;
    // For reading: a giant imported name is cut (CSV above keeps all of it).
    let cut = |s: &str| super::escape::term_cut(s, super::escape::SHOWN_CHARS).into_owned();
    for r in runs {
        g.push([
            r.id.to_string(),
            utc(r.started_unix_s),
            cut(r.label.as_deref().unwrap_or_default()),
            cut(r.price.as_deref().unwrap_or_default()),
            cut(r.suite.as_deref().unwrap_or_default()),
            cut(&r.target),
            if r.jobs > 1 {
                format!("{} (+{} jobs)", cut(&r.workload), r.jobs - 1)
            } else {
                cut(&r.workload)
            },
            rate(r.iops),
            mb_per_sec(r.bytes_per_sec),
            {
                let mut figure = match &r.unreadable {
                    Some(why) => crate::t!("history-unreadable", why = why.as_str()),
                    None => cut(&r.figure),
                };
                if r.incomplete {
                    figure.push_str(&crate::t!("history-incomplete"));
                }
                figure
            },
        ]);
    }
    g
}

/// `history --format markdown`: the grid, its figure (words) read from the left.
pub fn history_markdown(runs: &[RunSummary]) -> String {
    let g = history_grid(runs, false);
    let figure = g.header.len() - 1;
    g.to_markdown_aligned(|i| i < g.left || i == figure)
}

/// One stored run as one row per job and direction.
pub fn run_grid(run: &RunResult, raw: bool) -> Grid {
    let p = |d: &crate::metrics::DirectionResult, key: &str| d.lat_ns.percentiles.get(key).copied();
    if raw {
        let mut g = Grid::new([
            "run_id",
            "job",
            "test",
            "direction",
            "target",
            "rw",
            "bs",
            "read_pct",
            "qd",
            "threads",
            "direct",
            "engine",
            "elapsed_ns",
            "ops",
            "bytes",
            "errors",
            "iops",
            "bytes_per_sec",
            "lat_min_ns",
            "lat_mean_ns",
            "lat_stddev_ns",
            "lat_max_ns",
            "lat_p50_ns",
            "lat_p99_ns",
            "lat_p99.9_ns",
        ]);
        for j in &run.jobs {
            for (dir, d) in j.directions() {
                let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
                g.push([
                    run.id.map(|i| i.to_string()).unwrap_or_default(),
                    j.job.name.clone(),
                    j.test.clone().unwrap_or_default(),
                    dir.to_string(),
                    j.target.path.clone(),
                    j.job.rw.name().to_string(),
                    j.job.bs_text(),
                    j.job.effective_read_pct().to_string(),
                    j.job.qd.to_string(),
                    j.job.threads.to_string(),
                    j.job.direct.to_string(),
                    j.engine.clone(),
                    j.elapsed_ns.to_string(),
                    d.ops.to_string(),
                    d.bytes.to_string(),
                    d.errors.to_string(),
                    num(Some(d.iops), 3),
                    num(Some(d.bytes_per_sec), 0),
                    d.lat_ns.min.to_string(),
                    num(Some(d.lat_ns.mean), 1),
                    num(Some(d.lat_ns.stddev), 1),
                    d.lat_ns.max.to_string(),
                    opt(p(d, "50.000000")),
                    opt(p(d, "99.000000")),
                    opt(p(d, "99.900000")),
                ]);
            }
        }
        return g;
    }
    use super::format::{latency, mib_per_sec};
    let mut g = Grid::new([
        "job",
        "test",
        "direction",
        "workload",
        "IOPS",
        "MB/s",
        "MiB/s",
        "errors",
        "lat mean",
        "p99",
        "max",
    ]);
    g.left = 4;
    for j in &run.jobs {
        for (dir, d) in j.directions() {
            g.push([
                j.job.name.clone(),
                j.test.clone().unwrap_or_default(),
                dir.to_string(),
                j.job.summary(),
                rate(d.iops),
                mb_per_sec(d.bytes_per_sec),
                mib_per_sec(d.bytes_per_sec),
                d.errors.to_string(),
                latency(d.lat_ns.mean),
                p(d, "99.000000").map(|v| latency(v as f64)).unwrap_or_default(),
                latency(d.lat_ns.max as f64),
            ]);
        }
    }
    g
}

/// The lines above a Markdown run table: what, where, when.
pub fn run_heading(run: &RunResult) -> String {
    let mut out = format!(
        "## kura run {} · {}",
        run.id.map(|i| i.to_string()).unwrap_or_default(),
        super::run_table::run_facts(run)
    );
    out.push_str("\n\n");
    if run.incomplete {
        out.push_str(&format!("**INCOMPLETE**: {}\n\n", super::runs::STOPPED_EARLY));
    }
    for w in &run.warnings {
        out.push_str(&format!("- warning: {w}\n"));
    }
    if !run.warnings.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_what_needs_it() {
        let mut g = Grid::new(["a", "b"]);
        g.push(["x,y", "say \"hi\""]);
        g.push(["plain", ""]);
        assert_eq!(g.to_csv(), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\nplain,\n");
    }

    #[test]
    fn csv_cells_that_would_be_formulas_open_as_text() {
        for (cell, out) in [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"",
            ),
            ("+1+2", "\"'+1+2\""),
            ("-2+3+cmd|' /C calc'!A0", "\"'-2+3+cmd|' /C calc'!A0\""),
            ("@SUM(A1)", "\"'@SUM(A1)\""),
            ("\tx", "\"'\\tx\""),
            ("a\u{1b}[2Jb\r\n", "a\\u{1b}[2Jb\\r\\n"),
            ("-3.5", "-3.5"),
            ("+7", "+7"),
            ("1e-3", "1e-3"),
            ("a=b", "a=b"),
        ] {
            assert_eq!(csv_field(cell), out, "{cell}");
        }
    }

    #[test]
    fn markdown_escapes_pipes_and_aligns_numbers_right() {
        let mut g = Grid::new(["test", "MB/s"]);
        g.push(["a|b", "1.0"]);
        assert_eq!(g.to_markdown(), "| test | MB/s |\n|---|--:|\n| a\\|b | 1.0 |\n");
    }

    /// `history --format markdown` had a last column with no name, empty
    /// but for "incomplete": every column is named now, the figure reads from
    /// the left, and a run that stopped early says so after its figure.
    #[test]
    fn history_markdown_names_every_column() {
        let run = |id: i64, incomplete: bool| RunSummary {
            id,
            started_unix_s: 1_795_316_411,
            label: None,
            price: None,
            suite: Some("mark:default".into()),
            hostname: "vm".into(),
            incomplete,
            jobs: 1,
            target: "/t".into(),
            workload: "read 1m qd8 x1".into(),
            iops: 100.0,
            bytes_per_sec: 1e8,
            unreadable: None,
            figure: "SEQ1M Q8T1 read, one run".into(),
            figure_short: "SEQ1M Q8T1 read".into(),
        };
        let md = history_markdown(&[run(2, true), run(1, false)]);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[..2],
            [
                "| id | date | label | price | suite | target | workload | IOPS | MB/s | figure |",
                "|---|---|---|---|---|---|---|--:|--:|---|",
            ],
            "{md}"
        );
        let cells = |l: &str| l.matches('|').count();
        assert!(lines.iter().all(|l| cells(l) == cells(lines[0])), "{md}");
        assert!(
            lines[0]
                .split(" | ")
                .all(|h| !h.trim_matches('|').trim().is_empty()),
            "{md}"
        );
        assert!(
            lines[2].ends_with("| SEQ1M Q8T1 read, one run (incomplete) |"),
            "{md}"
        );
        assert!(lines[3].ends_with("| SEQ1M Q8T1 read, one run |"), "{md}");
    }
}
