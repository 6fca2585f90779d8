//! From a request line to a reply, with no socket in sight: every page is
//! HTML at its path, JSON at `PATH.json` and CSV at `PATH.csv`; a table of a
//! page is `PATH.csv?table=NAME` (or `.json`).
//!
//! Routes: `/` (also `/runs`) the run list (`label`, `suite`, `limit`);
//! `/run/ID` one run; `/compare?run=ID&run=ID...` several runs.

use super::pages::{ListFilter, NAV, download_line, run_list};
use super::query::Query;
use crate::metrics::RunResult;
use crate::report::html::{Exports, Page, document, report};
use crate::report::svg::esc;
use crate::store::{Store, StoreError};

/// What the server sends back.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// File name offered for a download (JSON and CSV).
    pub filename: Option<String>,
}

/// Most runs one comparison page takes.
pub const MAX_COMPARE: usize = 16;
const DEFAULT_LIMIT: usize = 200;
const MAX_LIMIT: usize = 100_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Html,
    Json,
    Csv,
}

#[derive(Debug)]
pub struct HttpError {
    pub status: u16,
    pub message: String,
}

fn bad(message: impl Into<String>) -> HttpError {
    HttpError {
        status: 400,
        message: message.into(),
    }
}

fn not_found(message: impl Into<String>) -> HttpError {
    HttpError {
        status: 404,
        message: message.into(),
    }
}

impl From<StoreError> for HttpError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NoSuchRun(spec) => not_found(format!("no run {spec} in this database")),
            other => HttpError {
                status: 500,
                message: other.to_string(),
            },
        }
    }
}

pub fn handle(store: &Store, method: &str, url: &str) -> Reply {
    let (path, raw_query) = url.split_once('?').unwrap_or((url, ""));
    let (stem, format) = if let Some(s) = path.strip_suffix(".json") {
        (s, Format::Json)
    } else if let Some(s) = path.strip_suffix(".csv") {
        (s, Format::Csv)
    } else {
        (path, Format::Html)
    };
    let result = if method != "GET" && method != "HEAD" {
        Err(HttpError {
            status: 405,
            message: format!("{method}: this server only reads (GET)"),
        })
    } else {
        Query::parse(raw_query)
            .map_err(bad)
            .and_then(|q| route(store, stem, format, &q))
    };
    result.unwrap_or_else(|e| error_reply(e, format))
}

fn route(store: &Store, stem: &str, format: Format, q: &Query) -> Result<Reply, HttpError> {
    match stem {
        "/" | "/runs" | "" => list(store, format, q),
        "/compare" => compare(store, format, q),
        _ => match stem.strip_prefix("/run/") {
            Some(id) => one_run(store, id, format, q),
            None => Err(not_found(format!("no page at {stem}"))),
        },
    }
}

/// The page's own query, less `table`, for the download links.
fn exports(path: &str, q: &Query) -> Exports {
    let kept = Query(q.0.iter().filter(|(k, _)| k != "table").cloned().collect());
    Exports {
        path: path.to_string(),
        query: kept.encode(),
    }
}

fn list(store: &Store, format: Format, q: &Query) -> Result<Reply, HttpError> {
    q.only(&["label", "suite", "limit", "table"]).map_err(bad)?;
    let limit = match q.one("limit").map_err(bad)? {
        None => DEFAULT_LIMIT,
        Some(v) => v
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_LIMIT).contains(n))
            .ok_or_else(|| bad(format!("limit '{v}' must be a number from 1 to {MAX_LIMIT}")))?,
    };
    let filter = ListFilter {
        label: q.one("label").map_err(bad)?.map(str::to_string),
        suite: q.one("suite").map_err(bad)?.map(str::to_string),
        limit,
    };
    let mut runs = store.list(filter.label.as_deref(), filter.suite.as_deref(), limit)?;
    crate::report::history::represent(store, &mut runs);
    let page = run_list(&runs, &filter, exports("/runs", q));
    let data = serde_json::json!({ "runs": runs });
    render(page, format, q, data, "kura-runs", false)
}

fn one_run(store: &Store, id: &str, format: Format, q: &Query) -> Result<Reply, HttpError> {
    q.only(&["table"]).map_err(bad)?;
    let id: i64 = id
        .parse()
        .ok()
        .filter(|i| *i > 0)
        .ok_or_else(|| bad(format!("run id '{id}' is not a positive number")))?;
    let run = store.load(id)?;
    let page = report(
        std::slice::from_ref(&run),
        Some(exports(&format!("/run/{id}"), q)),
    );
    let data = serde_json::json!({ "run": run });
    render(page, format, q, data, &format!("kura-run-{id}"), true)
}

fn compare(store: &Store, format: Format, q: &Query) -> Result<Reply, HttpError> {
    q.only(&["run", "runs", "table"]).map_err(bad)?;
    let mut ids: Vec<i64> = Vec::new();
    let given = q
        .all("run")
        .chain(q.all("runs").flat_map(|v| v.split(',')))
        .map(str::trim)
        .filter(|v| !v.is_empty());
    for v in given {
        let id: i64 = v
            .parse()
            .ok()
            .filter(|i| *i > 0)
            .ok_or_else(|| bad(format!("run id '{v}' is not a positive number")))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() < 2 {
        return Err(bad("tick two or more runs to compare (run=ID&run=ID)"));
    }
    if ids.len() > MAX_COMPARE {
        return Err(bad(format!("at most {MAX_COMPARE} runs at once")));
    }
    let runs: Vec<RunResult> = ids.iter().map(|id| store.load(*id)).collect::<Result<_, _>>()?;
    let page = report(&runs, Some(exports("/compare", q)));
    let name = format!(
        "kura-compare-{}",
        ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join("-")
    );
    let data = serde_json::json!({ "runs": runs });
    render(page, format, q, data, &name, true)
}

/// The page as asked: HTML, the page's JSON (its data and every table), or one table.
fn render(
    page: Page,
    format: Format,
    q: &Query,
    mut data: serde_json::Value,
    filename: &str,
    download_line_on_top: bool,
) -> Result<Reply, HttpError> {
    let table_name = q.one("table").map_err(bad)?;
    let table = |name: &str| {
        page.find_table(name).ok_or_else(|| {
            let names: Vec<&str> = page.tables.iter().map(|t| t.name.as_str()).collect();
            not_found(format!(
                "no table '{name}' on this page (tables: {})",
                names.join(", ")
            ))
        })
    };
    let suffix = table_name.map(|t| format!("-{t}")).unwrap_or_default();
    match format {
        Format::Html => {
            if table_name.is_some() {
                return Err(bad(
                    "'table' picks a download: use PAGE.csv?table=NAME or PAGE.json?table=NAME",
                ));
            }
            let mut body = page.body.clone();
            if download_line_on_top && let Some(e) = &page.exports {
                // Under the page's heading.
                let at = body.find("</h1>").map(|i| i + 5).unwrap_or(0);
                body.insert_str(at, &download_line(e));
            }
            Ok(Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: document(&page.title, NAV, &body).into_bytes(),
                filename: None,
            })
        }
        Format::Json => {
            let value = match table_name {
                Some(name) => table(name)?.to_json(),
                None => {
                    data["title"] = page.title.clone().into();
                    data["tables"] = page.tables_json();
                    data
                }
            };
            let mut body = serde_json::to_vec_pretty(&value).expect("pages serialize");
            body.push(b'\n');
            Ok(Reply {
                status: 200,
                content_type: "application/json",
                body,
                filename: Some(format!("{filename}{suffix}.json")),
            })
        }
        Format::Csv => {
            let t = match table_name {
                Some(name) => table(name)?,
                None => page
                    .default_table()
                    .ok_or_else(|| not_found("this page has no table"))?,
            };
            let suffix = format!("-{}", t.name);
            Ok(Reply {
                status: 200,
                content_type: "text/csv; charset=utf-8",
                body: t.to_csv().into_bytes(),
                filename: Some(format!("{filename}{suffix}.csv")),
            })
        }
    }
}

fn error_reply(e: HttpError, format: Format) -> Reply {
    let reason = reason(e.status);
    match format {
        Format::Html => Reply {
            status: e.status,
            content_type: "text/html; charset=utf-8",
            body: document(
                &format!("kura · {} {reason}", e.status),
                NAV,
                &format!(
                    r#"<h1>{} {reason}</h1><p class="error-message">{}</p><p><a href="/">Back to the runs</a></p>"#,
                    e.status,
                    esc(&e.message)
                ),
            )
            .into_bytes(),
            filename: None,
        },
        Format::Json => Reply {
            status: e.status,
            content_type: "application/json",
            body: serde_json::to_vec(&serde_json::json!({ "status": e.status, "error": e.message }))
                .expect("errors serialize"),
            filename: None,
        },
        Format::Csv => Reply {
            status: e.status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{} {reason}: {}\n", e.status, e.message).into_bytes(),
            filename: None,
        },
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Internal Server Error",
    }
}
