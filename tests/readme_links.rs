//! The README names only files that are in the repository: every markdown
//! link and every path it mentions (`docs/mark.md`, `bench/vs-fio`, `src/`)
//! exists under the repository root, and none leads out of it.

use std::path::Path;

/// Paths the README mentions: markdown link targets and words that start with a tracked directory.
fn mentioned_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        if let Some(end) = after.find(')') {
            out.push(after[..end].to_string());
        }
        rest = &rest[i + 2..];
    }
    for word in text.split(|c: char| c.is_whitespace() || "`()[],;\"'".contains(c)) {
        let word = word.trim_end_matches(['.', ':']);
        if [
            "docs/", "bench/", "src/", "tests/", ".ci/", "../", "./docs", "/work/",
        ]
        .iter()
        .any(|d| word.starts_with(d))
        {
            out.push(word.to_string());
        }
    }
    out
}

#[test]
fn the_readme_names_only_files_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut bad = Vec::new();
    for target in mentioned_paths(&readme) {
        if target.starts_with("http://127.0.0.1") || target.starts_with("http://localhost") {
            continue;
        }
        let path = target.split('#').next().unwrap_or_default();
        let inside = !path.starts_with('/') && !path.split('/').any(|c| c == "..");
        if !inside || !root.join(path).exists() {
            bad.push(target);
        }
    }
    assert!(
        bad.is_empty(),
        "README names what the repository does not hold: {bad:?}"
    );
}

#[test]
fn a_path_outside_the_repository_is_caught() {
    let found = mentioned_paths("see `../shared/docs/ARCHITECTURE.md` and [x](docs/nothing.md)");
    assert_eq!(
        found,
        [
            "docs/nothing.md",
            "../shared/docs/ARCHITECTURE.md",
            "docs/nothing.md"
        ]
    );
}
