//! An architecture check: outside a kind's own files, code asks the kind
//! (`jobs::workload::WorkloadKind`), never "which kind is this job?"
//! (docs/architecture.md, "Kinds of workload"). The job model, the runner
//! and the reports each match on `Workload` in one place, exhaustively, so
//! a new kind is a compile error there; this test finds the questions
//! that would let a new kind fall through to block I/O's behaviour
//! silently: `_ =>` arms, `if let`, `.fileset().is_some()`.

mod common;

use std::path::Path;

use common::source::{code_of, rust_files};

/// Text that asks which kind a job is.
const ASKS: &[&str] = &[
    "Workload::",
    ".fileset()",
    ".bonnie()",
    ".database()",
    "FileSetParams::of(",
    "SuiteKind::Db",
];

/// A kind's own files, and the one match of each layer.
const KINDS_OWN: &[&str] = &[
    // The job model: the kinds and their declarations.
    "src/jobs/workload.rs",
    "src/jobs/block.rs",
    "src/jobs/fileset.rs",
    "src/jobs/bonnie_params.rs",
    "src/jobs/db_params.rs",
    "src/jobs/suites.rs",
    // The runner: its one match, and each kind's measuring.
    "src/runner/kinds.rs",
    "src/runner/block_kind.rs",
    "src/runner/fileset_sets.rs",
    "src/runner/fileset_measure.rs",
    "src/runner/whole_kind.rs",
    "src/fileset/",
    "src/bonnie/",
    "src/database/",
    // The reports: their one match, and each kind's own tables.
    "src/report/kind_views.rs",
    "src/report/fileset_table.rs",
    "src/report/bonnie_table.rs",
    "src/report/db_table.rs",
    "src/report/html/db.rs",
];

/// Questions still asked outside a kind's files: each a file and how many,
/// with why it is left. The test fails on any other, and on fewer (so the
/// list shrinks as they go).
const STILL_ASKING: &[(&str, usize, &str)] = &[
    (
        "src/cluster/rank.rs",
        3,
        "a file set on many ranks: mdtest's stonewall and one set shared by ranks",
    ),
    (
        "src/metrics/cluster.rs",
        1,
        "mdtest's phases merged across ranks by the longest task's time",
    ),
    (
        "src/commands/compare.rs",
        1,
        "database runs are compared by their own table: compare's rows are keyed by block fields",
    ),
    ("src/report/html/comparison.rs", 1, "the same, in the HTML report"),
    ("src/commands/suite.rs", 1, "`kura suite db` names its suite"),
    (
        "src/report/runs.rs",
        1,
        "a run's page chosen by its suite, one arm a suite",
    ),
    (
        "src/report/figure.rs",
        1,
        "a run's figure chosen by its suite, one arm a suite",
    ),
];

/// `(file, line, text)` of every kind question outside the kinds' files.
fn questions(root: &Path) -> Vec<(String, usize, String)> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        if KINDS_OWN.iter().any(|own| shown.starts_with(own)) || shown.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code_of(&text) {
            if ASKS.iter().any(|a| line.contains(a)) {
                found.push((shown.clone(), n, line.trim().to_string()));
            }
        }
    }
    found
}

#[test]
fn outside_a_kinds_own_files_code_asks_the_kind_not_which_kind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = questions(root);
    let mut unexpected = Vec::new();
    let mut files: Vec<&str> = found.iter().map(|(f, ..)| f.as_str()).collect();
    files.dedup();
    for file in &files {
        let here: Vec<_> = found.iter().filter(|(f, ..)| f == file).collect();
        let allowed = STILL_ASKING
            .iter()
            .find(|(f, ..)| f == file)
            .map_or(0, |(_, n, _)| *n);
        if here.len() != allowed {
            for (f, n, line) in &here {
                unexpected.push(format!("{f}:{n}: {line}"));
            }
            unexpected.push(format!(
                "  ({} here, {allowed} listed in STILL_ASKING)",
                here.len()
            ));
        }
    }
    for (file, n, _) in STILL_ASKING {
        if !files.contains(file) {
            unexpected.push(format!("{file}: {n} listed in STILL_ASKING, none found"));
        }
    }
    eprintln!("{} kind questions outside the kinds' own files", found.len());
    assert!(
        unexpected.is_empty(),
        "code outside a kind's own files asks which kind a job is; ask the kind \
         (WorkloadKind) or add the case to the layer's one match:\n{}",
        unexpected.join("\n")
    );
}
