//! Issue 34, an architecture check: every writable open in `src/` goes
//! through the write gate in `src/targets/` (docs/safety.md, "The write
//! gate: where the checks live"). The source text outside `src/targets/`
//! is scanned for the ways Rust and libc open a file for writing; test
//! modules and comments are left out. A new writable open elsewhere fails
//! this test: route it through a function of the gate instead.

mod common;

use std::path::Path;

use common::source::{code_of, rust_files};

/// Text that opens, creates or replaces a file for writing, on one line.
const ONE_LINE: &[&str] = &[
    "File::create(",
    "File::options(",
    "fs::write(",
    "fs::copy(",
    "Connection::open(",
    "Connection::open_with_flags(",
    "O_WRONLY",
    "O_RDWR",
    "O_CREAT",
    "O_TRUNC",
    "O_APPEND",
    "libc::open(",
    "libc::openat(",
    "libc::creat(",
    "tempfile(",
    "NamedTempFile",
];

/// What makes an `OpenOptions` chain (up to its `.open(`) writable.
const WRITABLE_OPTIONS: &[&str] = &[".write(", ".append(", ".create(", ".create_new(", ".truncate("];

/// `(line, text)` of every writable open in `text`.
fn writable_opens(text: &str) -> Vec<(usize, String)> {
    let code = code_of(text);
    let mut found = Vec::new();
    for (k, (n, line)) in code.iter().enumerate() {
        if let Some(p) = ONE_LINE.iter().find(|p| line.contains(**p)) {
            found.push((*n, format!("{p}: {}", line.trim())));
        }
        if let Some(at) = line.find("OpenOptions::new()") {
            // The chain, across lines, to the `.open(` that ends it.
            let mut chain = line[at..].to_string();
            for (_, next) in code.iter().skip(k + 1).take(12) {
                if chain.contains(".open(") {
                    break;
                }
                chain.push_str(next);
            }
            let chain = chain.split(".open(").next().unwrap_or_default();
            if let Some(p) = WRITABLE_OPTIONS.iter().find(|p| chain.contains(**p)) {
                found.push((*n, format!("OpenOptions with {p}: {}", line.trim())));
            }
        }
    }
    found
}

#[test]
fn the_scan_finds_each_kind_of_writable_open() {
    let sample = r#"
fn a() { let _ = std::fs::File::create(p); }
fn b() { std::fs::write(p, b"x").unwrap(); }
fn c() {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(w)
        .open(p);
}
fn d() { let fd = unsafe { libc::openat(dir, name, libc::O_RDWR, 0) }; }
fn e() { let c = Connection::open_with_flags(p, flags); }
// std::fs::write(p, b"a comment is not code")
fn read_only() {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(p);
}
#[cfg(test)]
mod tests {
    fn f() { std::fs::write(p, b"a test's fixture").unwrap(); }
}
"#;
    let lines: Vec<usize> = writable_opens(sample).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, vec![2, 3, 5, 10, 11], "{:?}", writable_opens(sample));
}

#[test]
fn every_writable_open_in_src_is_in_the_write_gate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let gate = root.join("targets");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut outside = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&gate)) {
        // A module's tests in a file of their own (`#[cfg(test)] mod tests;`).
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, what) in writable_opens(&text) {
            let shown = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(file);
            outside.push(format!("{}:{n}: {what}", shown.display()));
        }
    }
    assert!(
        outside.is_empty(),
        "writable opens outside the write gate (src/targets/); route each through a function \
         there:\n{}",
        outside.join("\n")
    );
    // The gate is where the writes went: it holds writable opens of its own.
    let mut gate_files = Vec::new();
    rust_files(&gate, &mut gate_files);
    let in_gate: usize = gate_files
        .iter()
        .map(|f| writable_opens(&std::fs::read_to_string(f).unwrap()).len())
        .sum();
    assert!(
        in_gate > 0,
        "the scan found no writable open in src/targets/ either"
    );
}
