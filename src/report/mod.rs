//! Everything a person reads, rendered from stored results only: terminal
//! tables, JSON, and the number formats they share.

pub mod bonnie_table;
pub mod compare;
pub mod escape;
pub mod explain;
pub mod export;
pub mod format;
pub mod history;
pub mod html;
pub mod mark_grid;
pub mod run_table;
pub mod runs;
pub mod serve;
pub mod svg;
pub mod sweep_table;
pub mod tiobench_table;
pub mod vdbench_summary;

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

pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("results serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod snapshots;
