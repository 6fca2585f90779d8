//! Runs stored by the kura of 2026-11-23 (main at b1274c7, schema 2) read
//! as that kura showed them: a null-engine run, a mark, a bonnie suite
//! with two runs, and a run on a real file (tests/fixtures/kura-today.*,
//! the `show --json` and bonnie table written by that kura's binary).

mod common;

use std::path::Path;

use common::{as_schema_2, differ, json, kura};

const RUNS: [(i64, &str); 4] = [
    (1, include_str!("fixtures/kura-today-show1.json")),
    (2, include_str!("fixtures/kura-today-show2.json")),
    (3, include_str!("fixtures/kura-today-show3.json")),
    (4, include_str!("fixtures/kura-today-show4.json")),
];

fn copy_fixture(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("today.db");
    std::fs::copy("tests/fixtures/kura-today.sqlite", &db).unwrap();
    db
}

fn shown(db: &Path, id: i64) -> serde_json::Value {
    json(
        &kura(db)
            .args(["--json", "show", &id.to_string()])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

/// Warnings became typed after that kura (`{"kind": ..., "text": ...}`); a
/// stored string warning shows with its text unchanged, which is what counts.
fn warning_texts(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "warnings"
                    && let Some(list) = value.as_array_mut()
                {
                    for w in list.iter_mut() {
                        if let Some(text) = w.get("text").cloned() {
                            *w = text;
                        }
                    }
                } else {
                    warning_texts(value);
                }
            }
        }
        serde_json::Value::Array(list) => list.iter_mut().for_each(warning_texts),
        _ => {}
    }
}

fn assert_shown_as_before(db: &Path) {
    for (id, expected) in RUNS {
        let expected = as_schema_2(serde_json::from_str(expected).unwrap());
        let mut shown = shown(db, id);
        warning_texts(&mut shown);
        // Added since (issue 17): a mark test's lowest and mean latency of its passes.
        let tests = shown.get_mut("tests").and_then(|t| t.as_array_mut());
        for test in tests.into_iter().flatten() {
            for dir in ["read", "write", "mix"] {
                if let Some(stats) = test.get_mut(dir).and_then(|s| s.as_object_mut()) {
                    stats.remove("min_lat_mean_ns");
                    stats.remove("mean_lat_mean_ns");
                }
            }
        }
        let mut differences = Vec::new();
        differ(&shown, &expected, String::new(), &mut differences);
        assert!(
            differences.is_empty(),
            "run {id} shows as the kura that stored it showed it, but: {differences:?}"
        );
    }
}

/// The 80-column bonnie++ blocks, as today's kura printed them for run 3.
fn assert_bonnie_table_as_before(db: &Path) {
    let out = kura(db).args(["show", "3"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let expected = include_str!("fixtures/kura-today-bonnie-table.txt");
    let table: String = expected
        .lines()
        .take_while(|l| !l.starts_with("+++++:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains(&table),
        "bonnie table of the stored run changed:\n{text}\nexpected:\n{table}"
    );
}

#[test]
fn runs_stored_by_todays_main_show_compare_and_report_unchanged() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = copy_fixture(dir.path());
    let before = std::fs::read(&db).unwrap();
    assert_shown_as_before(&db);
    assert_bonnie_table_as_before(&db);
    for id in ["1", "2", "4"] {
        kura(&db).args(["show", id]).assert().success();
    }
    let out = kura(&db).args(["--wide", "compare", "1", "4"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("randrw 4k 50% read qd1 x1 total"), "{text}");
    kura(&db).args(["compare", "1", "2"]).assert().success();
    let html = dir.path().join("r.html");
    kura(&db)
        .args(["report", "1", "2", "3", "4", "-o"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Random Seeks"),
        "the bonnie run's tests are in the report"
    );
    assert!(page.contains("SEQ1M Q8T1"), "the mark's tests are in the report");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "reading verbs left the database as it was"
    );

    // A writing verb migrates it to this kura's schema; the old runs read the same.
    kura(&db)
        .args(["run", "--engine", "null", "--io-count", "1000", "--label", "new"])
        .assert()
        .success();
    assert_shown_as_before(&db);
    assert_bonnie_table_as_before(&db);
    kura(&db).args(["compare", "1", "4"]).assert().success();

    // A bonnie run of this kura beside today's: its file tests compare by their own operations.
    let work = dir.path().join("bonnie");
    std::fs::create_dir(&work).unwrap();
    kura(&db)
        .args(["suite", "bonnie", "--size", "8m", "--files", "1"])
        .arg(&work)
        .assert()
        .success();
    let out = kura(&db)
        .args(["compare", "3", "6", "--format", "json"])
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    let text = v.to_string();
    for op in ["create", "stat", "delete"] {
        assert!(
            text.contains(&format!("\"direction\":\"{op}\"")),
            "{op} rows in {text}"
        );
    }
    assert_bonnie_table_as_before(&db);
}
