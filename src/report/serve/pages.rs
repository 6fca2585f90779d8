//! The web UI's own pages: the list of runs with its filters and the
//! checkboxes that open a comparison. Run and comparison pages are the
//! report's (`report::html::report`).

use crate::report::format::{rate, utc};
use crate::report::history::mb_per_sec_or_none;
use crate::report::html::table::{Cell, Table, Value};
use crate::report::html::{Exports, Page};
use crate::report::svg::esc;
use crate::store::RunSummary;

use super::query::encode;

/// Filters of the run list, as given in the query.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub label: Option<String>,
    pub suite: Option<String>,
    pub limit: usize,
}

pub fn run_list(runs: &[RunSummary], filter: &ListFilter, exports: Exports) -> Page {
    let mut page = Page::new("kura · runs", Some(exports.clone()));
    page.html("<h1>Stored runs</h1>");
    page.html(&format!(
        r#"<form class="filter" method="get" action="/">
<label>label <input type="text" name="label" value="{l}"></label>
<label>suite <input type="text" name="suite" value="{s}"></label>
<label>at most <input type="number" name="limit" min="1" max="100000" value="{n}"></label>
<button type="submit">Filter</button> <a href="/">all runs</a></form>"#,
        l = esc(filter.label.as_deref().unwrap_or("")),
        s = esc(filter.suite.as_deref().unwrap_or("")),
        n = filter.limit,
    ));
    page.html(&download_line(&exports));
    if runs.is_empty() {
        page.html(r#"<p class="note">No runs match. Store some with <code>kura mark</code> or <code>kura run</code>.</p>"#);
    }
    page.html(r#"<form class="pick" method="get" action="/compare">"#);
    let mut t = Table::new(
        "runs",
        "Runs, newest first (tick two or more to compare them)",
        &[
            "id", "date", "label", "suite", "MB/s", "IOPS", "figure", "target", "workload", "price", "status",
        ],
    )
    .with_export_columns(&[
        "id",
        "started_unix_s",
        "label",
        "suite",
        "mb_per_sec",
        "iops",
        "figure",
        "target",
        "workload",
        "price",
        "status",
    ]);
    for r in runs {
        let workload = if r.jobs > 1 {
            format!("{} (+{} jobs)", r.workload, r.jobs - 1)
        } else {
            r.workload.clone()
        };
        t.rows.push(vec![
            Cell::int(r.id).picked("run").linked(format!("/run/{}", r.id)),
            // One line a run, as `kura history`: the minute, the figure in a
            // few words; the whole of each on hover and in the downloads.
            Cell::shown(
                utc(r.started_unix_s).get(..16).unwrap_or_default(),
                Value::Int(r.started_unix_s),
            )
            .titled(utc(r.started_unix_s)),
            match &r.label {
                Some(l) => Cell::text(l.as_str()).linked(format!("/?label={}", encode(l))),
                None => Cell::empty(),
            },
            match &r.suite {
                Some(s) => Cell::text(s.as_str()).linked(format!("/?suite={}", encode(s))),
                // As `kura history` names it.
                None => Cell::shown("run", Value::Null),
            },
            Cell::num(r.bytes_per_sec / 1e6, mb_per_sec_or_none(r)),
            Cell::num(r.iops, rate(r.iops)),
            Cell::shown(r.figure_short.as_str(), Value::Text(r.figure.clone())).titled(r.figure.as_str()),
            Cell::text(r.target.as_str()).titled(r.target.as_str()),
            Cell::text(workload.as_str()).titled(workload),
            Cell::opt_text(r.price.as_deref()),
            Cell::text(if r.incomplete { "incomplete" } else { "" }),
        ]);
    }
    page.table(t);
    page.html(r#"<button type="submit">Compare the ticked runs</button></form>"#);
    page.html(r#"<p class="note">MB/s and IOPS of the figure that stands for each run (what it is: the figure column; the whole of a cell on hover, and in the downloads).</p>"#);
    page.main_table = Some("runs".to_string());
    page
}

/// Links to the whole page as JSON and as CSV (its main table).
pub fn download_line(exports: &Exports) -> String {
    format!(
        r#"<p class="dl">This page as <a href="{}">JSON</a> or <a href="{}">CSV</a></p>"#,
        esc(&exports.href("json", None)),
        esc(&exports.href("csv", None)),
    )
}

pub const NAV: &str = r#"<nav><a href="/">kura · runs</a></nav>"#;
