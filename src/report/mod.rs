//! Everything a person reads, rendered from stored results only: terminal
//! tables, JSON, and the number formats they share.

pub mod bonnie_table;
pub mod cluster_hosts;
pub mod cluster_table;
pub mod compare;
pub mod db_table;
pub mod device_lines;
pub mod escape;
pub mod explain;
pub mod export;
pub mod figure;
pub mod fileset_table;
pub mod fio_hist_log;
pub mod fio_logs;
pub mod fio_output;
pub mod fit;
pub mod format;
pub mod history;
pub mod html;
pub mod kind_views;
pub mod latency_table;
pub mod mark_grid;
pub mod pad;
pub mod pts_table;
pub mod run_table;
pub mod runs;
pub mod serve;
pub mod span;
pub mod svg;
pub mod sweep_table;
pub mod tiobench_table;
// The IO500-like suite's page.
pub mod io500_table;
pub mod vdbench_summary;
pub mod width;

use std::io::Write;

pub use runs::{View, render_run};

/// Writes to stdout; a closed pipe (`kura ... | head`) ends quietly.
pub fn emit(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => other,
    }
}

/// The version of kura's JSON documents (docs/json.md, docs/kura.schema.json).
/// 1: before it was written (durations as `{"secs","nanos"}`, suites as
/// `{"run": ..., "tests": ...}`, history and explain as bare arrays).
pub const SCHEMA_VERSION: u32 = 2;

/// One JSON document for stdout or a file: an object gets `schema_version`
/// as its first key. Every verb's `--json` goes through here.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    let value = serde_json::to_value(value).expect("results serialize");
    let value = match value {
        serde_json::Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len() + 1);
            out.insert("schema_version".into(), SCHEMA_VERSION.into());
            out.extend(map.into_iter().filter(|(k, _)| k != "schema_version"));
            serde_json::Value::Object(out)
        }
        other => other,
    };
    let mut s = serde_json::to_string_pretty(&value).expect("results serialize");
    s.push('\n');
    s
}

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod snapshots;
