//! HTML pages of stored runs: one self-contained document (inline CSS and
//! SVG, no script, no network) for `kura report`, and the same content for
//! the pages of `kura serve`. Every user-derived string is escaped on output.

pub mod changes;
pub mod comparison;
pub mod db;
pub mod jobs;
pub mod latency;
pub mod pts;
pub mod ranks;
pub mod suites;
pub mod summary;
pub mod table;

use std::fmt::Write;

use crate::metrics::RunResult;
use crate::report::format::utc;
use crate::report::svg::esc;
use table::Table;

/// Where a served page's tables can be downloaded: `{path}.csv?{query}table=NAME`.
#[derive(Debug, Clone)]
pub struct Exports {
    /// The page's path without extension, e.g. `/run/3`.
    pub path: String,
    /// The page's own query string, already encoded, without `?` (may be empty).
    pub query: String,
}

impl Exports {
    pub fn href(&self, ext: &str, table: Option<&str>) -> String {
        let mut q = self.query.clone();
        if let Some(t) = table {
            if !q.is_empty() {
                q.push('&');
            }
            q.push_str("table=");
            q.push_str(&url_encode(t));
        }
        if q.is_empty() {
            format!("{}.{ext}", self.path)
        } else {
            format!("{}.{ext}?{q}", self.path)
        }
    }

    fn links(&self, table: &str) -> String {
        format!(
            r#" <span class="dl"><a href="{}">CSV</a> <a href="{}">JSON</a></span>"#,
            esc(&self.href("csv", Some(table))),
            esc(&self.href("json", Some(table))),
        )
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A page being built: its markup and the tables in it, for the downloads.
#[derive(Debug, Clone)]
pub struct Page {
    pub title: String,
    pub body: String,
    pub tables: Vec<Table>,
    /// The table a page's plain `.csv` download gives.
    pub main_table: Option<String>,
    pub exports: Option<Exports>,
}

impl Page {
    pub fn new(title: &str, exports: Option<Exports>) -> Page {
        Page {
            title: title.to_string(),
            body: String::new(),
            tables: Vec::new(),
            main_table: None,
            exports,
        }
    }

    pub fn html(&mut self, html: &str) {
        self.body.push_str(html);
    }

    pub fn table(&mut self, t: Table) {
        let links = self
            .exports
            .as_ref()
            .map(|e| e.links(&t.name))
            .unwrap_or_default();
        self.body.push_str(&t.to_html(&links));
        self.tables.push(t);
    }

    pub fn find_table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The table of a plain `.csv` download: the main one, else the first.
    pub fn default_table(&self) -> Option<&Table> {
        self.main_table
            .as_deref()
            .and_then(|n| self.find_table(n))
            .or(self.tables.first())
    }

    pub fn tables_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.tables.iter().map(Table::to_json).collect())
    }
}

/// A figure: a chart with a caption that says what the numbers are.
pub fn figure(svg: &str, caption: &str) -> String {
    format!(
        r#"<figure>{svg}<figcaption>{}</figcaption></figure>"#,
        esc(caption)
    )
}

/// What names a run in legends and headings: its label, else `run ID`;
/// a label shared by several runs gets the id too.
pub fn run_names(runs: &[RunResult]) -> Vec<String> {
    let id = |i: usize, r: &RunResult| match r.id {
        Some(id) => crate::t!("run-id", id = id),
        None => crate::t!("html-run-unstored", n = i + 1),
    };
    runs.iter()
        .enumerate()
        .map(|(i, r)| match &r.label {
            Some(l) if runs.iter().filter(|o| o.label.as_ref() == Some(l)).count() > 1 => {
                format!("{l} ({})", id(i, r))
            }
            Some(l) => l.clone(),
            None => id(i, r),
        })
        .collect()
}

/// Everything about the given runs: summary, comparison (several runs),
/// suite charts, and every job's charts and tables.
pub fn report(runs: &[RunResult], exports: Option<Exports>) -> Page {
    report_targets(&crate::report::compare::each_run(runs), exports)
}

/// The same, of targets whose runs are repetitions of each other
/// (`kura report --repeats`): compared as `kura compare --repeats` does,
/// every run's own charts and tables after.
pub fn report_targets(targets: &[crate::report::compare::Target], exports: Option<Exports>) -> Page {
    let runs: Vec<RunResult> = targets.iter().flat_map(|t| t.runs.iter().cloned()).collect();
    let runs = &runs[..];
    let names = run_names(runs);
    let title = match runs {
        [one] => {
            format!("kura · {}", names[0])
                + &one.suite.as_ref().map(|s| format!(" · {s}")).unwrap_or_default()
        }
        // Repetitions of one target are named once, with their count.
        _ if targets.iter().any(|t| t.runs.len() > 1) => crate::t!(
            "html-title-runs",
            count = runs.len(),
            names = targets
                .iter()
                .map(|t| crate::t!("html-target-runs", name = t.name.as_str(), count = t.runs.len()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => crate::t!("html-title-runs", count = runs.len(), names = names.join(", ")),
    };
    let mut page = Page::new(&title, exports);
    page.html(&format!("<h1>{}</h1>", esc(&title)));
    summary::section(&mut page, runs, &names);
    if runs.len() > 1 {
        comparison::section(&mut page, targets);
    }
    // many ranks
    ranks::hosts_section(&mut page, runs, &names);
    suites::mark_section(&mut page, runs, &names);
    suites::sweep_section(&mut page, runs, &names);
    pts::section(&mut page, runs, &names);
    latency::section(&mut page, runs, &names);
    db::section(&mut page, runs, &names);
    suites::suite_tables_section(&mut page, runs, &names);
    jobs::section(&mut page, runs, &names);
    page.main_table = Some("results".to_string());
    page
}

const CSS: &str = r#"
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 0; background: #fafafa; }
main { max-width: 1280px; margin: 0 auto; padding: 12px 24px 48px; }
nav { background: #1f3a5a; padding: 8px 24px; }
nav a { color: #fff; margin-right: 18px; text-decoration: none; font-weight: 600; }
h1 { font-size: 22px; margin: 12px 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 2px solid #1f3a5a; padding-bottom: 2px; overflow-wrap: anywhere; }
h3 { font-size: 15px; margin: 18px 0 6px; overflow-wrap: anywhere; }
p.meta, .note { color: #555; margin: 4px 0; }
.banner { padding: 8px 12px; border-radius: 4px; margin: 8px 0; font-weight: 600; }
.banner.error { background: #fde2e1; color: #8a1c13; border: 1px solid #e8a29b; }
.banner.warn { background: #fff4d6; color: #6b4e00; border: 1px solid #e9cf7d; }
ul.warnings { margin: 6px 0; padding-left: 20px; }
ul.warnings li { color: #6b4e00; overflow-wrap: anywhere; }
.table { margin: 10px 0 16px; overflow-x: auto; }
.table-title { font-weight: 600; margin-bottom: 4px; }
.dl { font-weight: 400; font-size: 12px; margin-left: 8px; }
.dl a { margin-right: 6px; }
p.dl { margin: 2px 0 8px; font-size: 13px; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e3e3e3; text-align: left; }
th, td.n, td.pick { white-space: nowrap; }
th { background: #eef2f6; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td { max-width: 420px; overflow-wrap: break-word; }
/* What names a row (`run 1`, a host, a test) stays on one line: a narrow window scrolls the
   table rather than break the name into what reads as two rows. */
td:first-child { white-space: nowrap; }
/* The web UI's list of runs (not a report's table of runs, whose dates were cut): one line a
   run; a long cell ends in "…" and shows whole on hover. */
form.pick table[data-table="runs"] td { white-space: nowrap; max-width: 11em; overflow: hidden; text-overflow: ellipsis; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 12px; }
figure { margin: 0; background: #fff; border: 1px solid #e3e3e3; border-radius: 4px; padding: 6px; break-inside: avoid; }
figcaption { color: #555; font-size: 12px; padding: 2px 6px 4px; }
svg.chart { width: 100%; height: auto; display: block; }
.chart .bg { fill: #fff; }
.chart text { font: 11px system-ui, sans-serif; fill: #222; }
.chart .chart-title { font-size: 13px; font-weight: 600; }
.chart .axis-title { font-size: 11.5px; fill: #444; }
.chart .grid { stroke: #e6e6e6; }
.chart .axis-line, .chart .tickmark { stroke: #444; }
.chart .value { font-size: 10px; font-variant-numeric: tabular-nums; }
.chart .band.ramp rect { fill: #f3e3b5; fill-opacity: 0.7; }
.chart .band.ramp text { fill: #7a5c00; }
.chart .band.measure rect { fill: #e4eef8; fill-opacity: 0.45; }
.chart .band.measure text { fill: #3a5f85; }
.chart .band.tol20 rect { fill: #e6f2e6; }
.chart .band.tol10 rect { fill: #c9e6c9; }
.chart .band.tol20 text, .chart .band.tol10 text { fill: #2f5f2f; }
.chart .marker line { stroke: #777; stroke-dasharray: 4 3; }
.nc { font-size: 12px; font-weight: 700; color: #8a1c13; background: #fde2e1; border: 1px solid #e8a29b; border-radius: 3px; padding: 0 5px; margin-left: 6px; white-space: nowrap; }
.events li { color: #8a3b00; }
.chart .marker text { fill: #555; }
pre.suite { background: #fff; border: 1px solid #e3e3e3; border-radius: 4px; padding: 8px 12px; overflow-x: auto; font: 12px/1.35 ui-monospace, "SF Mono", Menlo, monospace; }
html:lang(ja) pre.suite { font-family: "IPAGothic", "Noto Sans Mono CJK JP", "MS Gothic", "Osaka-Mono", monospace; }
details.job { background: #fff; border: 1px solid #e3e3e3; border-radius: 4px; margin: 8px 0; padding: 4px 12px; }
details.job > summary { cursor: pointer; font-weight: 600; padding: 4px 0; overflow-wrap: anywhere; }
form.filter input[type=text] { width: 160px; }
form.filter, form.pick { margin: 8px 0; }
button { padding: 3px 12px; }
@media print {
  nav, form.filter, .dl, button { display: none; }
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  .charts { grid-template-columns: 1fr 1fr; }
  h2 { break-after: avoid; }
  /* Paper does not scroll: wide tables shrink and wrap instead. */
  .table { overflow: visible; }
  table { font-size: 9.5px; }
  th, td { padding: 2px 4px; }
  th { white-space: normal; }
  /* Folded jobs print unfolded: paper has no click. */
  details.job::details-content { content-visibility: visible; display: block; }
  details.job > summary { list-style: none; }
}
"#;

/// A whole HTML document; `nav` is trusted markup (links of the web UI).
/// The policy forbids scripts and every fetch, so the page works offline
/// and a string that slipped past escaping still could not run.
pub fn document(title: &str, nav: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + CSS.len() + 512);
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'">
<meta name="generator" content="kura {v}">
<title>{t}</title><style>{CSS}</style></head>
<body>{nav}<main>
{body}
<p class="note">{made}</p>
</main></body></html>
"#,
        t = esc(title),
        v = env!("CARGO_PKG_VERSION"),
        lang = crate::i18n::lang().code(),
        made = esc(&crate::t!(
            "html-made-by",
            version = env!("CARGO_PKG_VERSION"),
            date = utc(now_unix_s())
        )),
    );
    out
}

fn now_unix_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_links_keep_the_page_query() {
        let e = Exports {
            path: "/compare".into(),
            query: "run=1&run=2".into(),
        };
        assert_eq!(
            e.href("csv", Some("ratios")),
            "/compare.csv?run=1&run=2&table=ratios"
        );
        assert_eq!(e.href("json", None), "/compare.json?run=1&run=2");
        let plain = Exports {
            path: "/run/3".into(),
            query: String::new(),
        };
        assert_eq!(plain.href("csv", Some("a b")), "/run/3.csv?table=a%20b");
    }

    #[test]
    fn document_escapes_the_title() {
        let d = document("<script>alert(1)</script>", "", "");
        assert!(d.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>"));
        assert!(!d.contains("<script>"));
    }
}
