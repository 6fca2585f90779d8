//! A kura run saved as JSON: what `kura show --json` and `kura run --json`
//! print, or the file kura writes when it cannot store a run. The run comes
//! back as it was measured; only its database id is new.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use thiserror::Error;

use crate::metrics::RunResult;

/// The largest saved run read. A run's JSON grows by about 550 bytes per
/// interval period of each job (measured: 2,000 periods of one job at 10 ms,
/// 1.1 MB), so 256 MiB holds some 480,000 periods: 5.5 days of one job at
/// 1 s periods, 55 of the 8-hour runs docs/long-runs.md describes. It is
/// also what `import fio` reads.
pub const MAX_BYTES: u64 = 256 << 20;

/// Clock skew tolerated in a run's start: a year past this machine's clock.
const FUTURE_SKEW_S: i64 = 366 * 86_400;

#[derive(Debug, Error)]
pub enum KuraImportError {
    #[error("{path}: {why}")]
    Read { path: String, why: String },
    #[error("{path}: not a kura run: {why}")]
    NotRun { path: String, why: String },
    #[error("{path}: {why}; nothing was stored")]
    Invalid { path: String, why: String },
}

pub fn import_file(path: &Path) -> Result<RunResult, KuraImportError> {
    use std::os::unix::fs::OpenOptionsExt;
    let shown = path.display().to_string();
    let read_err = |why: String| KuraImportError::Read {
        path: shown.clone(),
        why,
    };
    // O_NONBLOCK: a FIFO without a writer would hang the open itself; its
    // type is then told from the descriptor, before anything is read.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| read_err(crate::store::io_text(&e)))?;
    let meta = file.metadata().map_err(|e| read_err(crate::store::io_text(&e)))?;
    if !meta.is_file() {
        return Err(read_err(
            "not a regular file (a saved run is a file, not a device, FIFO or directory)".to_string(),
        ));
    }
    let too_large = || {
        read_err(format!(
            "larger than {}, more than any saved run holds; nothing was read",
            crate::jobs::units::format_size(MAX_BYTES)
        ))
    };
    if meta.len() > MAX_BYTES {
        return Err(too_large());
    }
    // The file may grow after the check: never read more than the cap.
    let mut text = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| read_err(crate::store::io_text(&e)))?;
    if text.len() as u64 > MAX_BYTES {
        return Err(too_large());
    }
    parse_bytes(&text, &shown)
}

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Whether a run can have started at `unix_s`: not before 1970, not more
/// than a year after this machine's clock.
pub(crate) fn plausible_start(unix_s: i64) -> bool {
    (0..=now_s().saturating_add(FUTURE_SKEW_S)).contains(&unix_s)
}

/// What is read before the run itself: its schema and whether it is wrapped.
#[derive(Deserialize)]
struct Head {
    schema_version: Option<u64>,
    run: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Wrapped {
    run: RunResult,
}

/// A run's JSON, bare or as the `run` member of what `show --json` prints
/// for suites (`{"run": ..., "tests": ...}`).
pub fn parse(text: &str, source: &str) -> Result<RunResult, KuraImportError> {
    parse_bytes(text.as_bytes(), source)
}

fn parse_bytes(text: &[u8], source: &str) -> Result<RunResult, KuraImportError> {
    let not_run = |why: String| KuraImportError::NotRun {
        path: source.to_string(),
        why,
    };
    // Straight into the run's types: a tree of JSON values first would take
    // several times the file's size in memory.
    let head: Head = serde_json::from_slice(text).map_err(|e| not_run(format!("not JSON ({e})")))?;
    let invalid = |why: String| KuraImportError::Invalid {
        path: source.to_string(),
        why,
    };
    // Before the run's types are tried: a newer kura's run may not fit them.
    if let Some(v) = head.schema_version
        && v > u64::from(crate::report::SCHEMA_VERSION)
    {
        return Err(invalid(format!(
            "schema_version {v} is newer than this kura's ({}); import it with the kura that wrote it",
            crate::report::SCHEMA_VERSION
        )));
    }
    let mut run = if head.run.is_some() {
        serde_json::from_slice::<Wrapped>(text)
            .map_err(|e| not_run(e.to_string()))?
            .run
    } else {
        serde_json::from_slice::<RunResult>(text).map_err(|e| not_run(e.to_string()))?
    };
    if let Some(label) = &run.label {
        crate::jobs::label::parse_label(label).map_err(|e| invalid(e.to_string()))?;
    }
    // As `--price` is checked: compare reads it back, and would fail there.
    if let Some(price) = &run.price {
        crate::jobs::price::Price::parse(price)
            .map_err(|e| invalid(format!("price: {}", crate::report::escape::term(&e.to_string()))))?;
    }
    let now = now_s();
    if !plausible_start(run.started_unix_s) {
        return Err(invalid(format!(
            "started_unix_s {} is not a date a run can have started (before 1970, or more than a year after this machine's clock)",
            run.started_unix_s
        )));
    }
    let latest_ms = now.saturating_add(FUTURE_SKEW_S).saturating_mul(1000) as u64;
    if let Some((i, j)) = run
        .jobs
        .iter()
        .enumerate()
        .find(|(_, j)| j.measure_start_unix_ms > latest_ms)
    {
        return Err(invalid(format!(
            "jobs[{i}].measure_start_unix_ms {} is more than a year after this machine's clock",
            j.measure_start_unix_ms
        )));
    }
    run.id = None;
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_run_and_a_suite_wrapper_both_read_back() {
        let text = include_str!("../../tests/fixtures/kura-v1-run1.json");
        let run = parse(text, "x").unwrap();
        assert_eq!(run.id, None);
        assert_eq!(run.label.as_deref(), Some("first"));
        let wrapped = format!("{{\"run\": {text}, \"tests\": []}}");
        assert_eq!(parse(&wrapped, "x").unwrap(), run);
        let mut doc: serde_json::Value = serde_json::from_str(text).unwrap();
        doc["jobs"][0]["measure_start_unix_ms"] = serde_json::json!(u64::MAX / 2);
        let err = parse(&doc.to_string(), "x").unwrap_err().to_string();
        assert!(err.contains("jobs[0].measure_start_unix_ms"), "{err}");
        let future = "{\"schema_version\": 3, \"jobs\": \"a shape this kura does not know\"}";
        let err = parse(future, "x").unwrap_err().to_string();
        assert!(err.contains("schema_version 3 is newer"), "{err}");
        assert!(
            parse("{\"jobs\": 3}", "x")
                .unwrap_err()
                .to_string()
                .contains("not a kura run")
        );
    }
}
