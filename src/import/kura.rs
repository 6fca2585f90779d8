//! A kura run saved as JSON: what `kura show --json` and `kura run --json`
//! print, or the file kura writes when it cannot store a run. The run comes
//! back as it was measured; only its database id is new.

use std::io::Read;
use std::path::Path;

use thiserror::Error;

use crate::metrics::RunResult;

/// Runs with long series are a few MB; anything far larger is not a run.
const MAX_BYTES: u64 = 1 << 30;

#[derive(Debug, Error)]
pub enum KuraImportError {
    #[error("{path}: {why}")]
    Read { path: String, why: String },
    #[error("{path}: not a kura run: {why}")]
    NotRun { path: String, why: String },
}

pub fn import_file(path: &Path) -> Result<RunResult, KuraImportError> {
    let shown = path.display().to_string();
    let read_err = |why: String| KuraImportError::Read {
        path: shown.clone(),
        why,
    };
    let file = std::fs::File::open(path).map_err(|e| read_err(crate::store::io_text(&e)))?;
    let meta = file.metadata().map_err(|e| read_err(crate::store::io_text(&e)))?;
    if !meta.is_file() {
        return Err(read_err("not a regular file".to_string()));
    }
    let mut text = String::new();
    file.take(MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| read_err(crate::store::io_text(&e)))?;
    if text.len() as u64 > MAX_BYTES {
        return Err(read_err("larger than 1 GiB: not a run".to_string()));
    }
    parse(&text, &shown)
}

/// A run's JSON, bare or as the `run` member of what `show --json` prints
/// for suites (`{"run": ..., "tests": ...}`).
pub fn parse(text: &str, source: &str) -> Result<RunResult, KuraImportError> {
    let not_run = |why: String| KuraImportError::NotRun {
        path: source.to_string(),
        why,
    };
    let mut doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| not_run(format!("not JSON ({e})")))?;
    if let Some(inner) = doc.get_mut("run").filter(|v| v.is_object()) {
        doc = inner.take();
    }
    let mut run: RunResult = serde_json::from_value(doc).map_err(|e| not_run(e.to_string()))?;
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
        assert!(
            parse("{\"jobs\": 3}", "x")
                .unwrap_err()
                .to_string()
                .contains("not a kura run")
        );
    }
}
