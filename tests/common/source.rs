//! Rust source read as text, for tests that hold the code to the
//! architecture (`gate_opens`, `kind_places`): what is code, and where it is.

use std::path::{Path, PathBuf};

/// Source without comments and `#[cfg(test)]` modules.
pub fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with("#[cfg(test)]") {
            // The item after it: a module to its closing brace, or `mod x;`.
            let mut depth = 0i64;
            let mut opened = false;
            i += 1;
            while i < lines.len() {
                let l = lines[i];
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                opened |= l.contains('{');
                i += 1;
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if !line.starts_with("//") {
            let code = match line.find(" //") {
                Some(at) if !line[..at].contains('"') => &line[..at],
                _ => line,
            };
            out.push((i + 1, code.to_string()));
        }
        i += 1;
    }
    out
}

/// Every `.rs` file under `dir`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
