//! Several targets in one `kura mark` (or `sweep`): their passes take turns
//! (A, B, A, B, ...), each target's passes are stored as a run of its own
//! naming the runs it took turns with, every target passes the write gate
//! before the first I/O of any, and `compare` says the runs were
//! interleaved and pairs their passes. docs/mark.md, docs/compare.md.

mod common;

use std::path::Path;

use common::{json, kura, sh, stderr_of, tmp};

/// One stored run, as `kura show ID --json` reads it back from the database.
fn stored(db: &Path, id: i64) -> serde_json::Value {
    let out = kura(db)
        .args(["show", &id.to_string(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    json(&out.stdout)
}

/// Each job's (test and direction, pass start in ms) of a stored run.
fn passes(run: &serde_json::Value) -> Vec<(String, u64)> {
    run["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["job"]["name"].as_str().unwrap().to_string(),
                j["measure_start_unix_ms"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn two_targets_take_turns_pass_by_pass_and_are_stored_as_two_runs() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
    let (a_name, b_name) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = kura(&db)
        .args([
            "--json",
            "mark",
            a_name,
            b_name,
            "--profile",
            "demo",
            "--runs",
            "3",
        ])
        .args(["--runtime", "300ms", "--interval", "0s", "--size", "8m"])
        .arg("--label")
        .arg(format!("{a_name}=first"))
        .output()
        .unwrap();
    // Warnings (a small file, a cached disk) may make the code 0 or 1; a refusal is 2.
    assert!(out.status.code().unwrap() < 2, "{}", stderr_of(&out));
    let printed = json(&out.stdout);
    let printed = printed.as_array().expect("an array of runs, one per target");
    assert_eq!(printed.len(), 2);
    let ids: Vec<i64> = printed.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_ne!(ids[0], ids[1]);
    let (ra, rb) = (stored(&db, ids[0]), stored(&db, ids[1]));
    assert_eq!(ra["label"], "first");
    assert_eq!(
        rb["label"], b_name,
        "an unlabelled target is labelled with its name"
    );
    assert_eq!(ra["interleaved_with"], serde_json::json!([ids[1]]));
    assert_eq!(rb["interleaved_with"], serde_json::json!([ids[0]]));
    assert_eq!(ra["jobs"][0]["target"]["path"], a_name);
    assert_eq!(rb["jobs"][0]["target"]["path"], b_name);
    // Each run holds its own target's passes, all of them, as `mark A` alone would.
    let (pa, pb) = (passes(&ra), passes(&rb));
    assert_eq!(pa.len(), 6, "{pa:?}");
    assert_eq!(
        pa.iter().map(|p| &p.0).collect::<Vec<_>>(),
        pb.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    // The stored start times alternate: A1 < B1 < A2 < B2 < ...
    for i in 0..pa.len() {
        assert!(pa[i].1 > 0 && pa[i].1 < pb[i].1, "pass {i}: {pa:?} {pb:?}");
        if i + 1 < pa.len() {
            assert!(pb[i].1 < pa[i + 1].1, "pass {i}: {pa:?} {pb:?}");
        }
    }
    // Both test files were kura's and are gone.
    assert!(!a.exists() && !b.exists());
    // `show` says so.
    let shown = kura(&db).args(["show", &ids[0].to_string()]).output().unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(
        shown.contains(&format!(
            "interleaved: each pass ran in turn with the same pass of run {}",
            ids[1]
        )),
        "{shown}"
    );

    // `compare` says the runs were interleaved and pairs their passes.
    let (ia, ib) = (ids[0].to_string(), ids[1].to_string());
    let out = kura(&db)
        .args(["compare", &ia, &ib, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let c = json(&out.stdout);
    assert_eq!(c["interleaved"], true);
    let rows = c["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert_eq!(row["cells"][0]["paired"], false, "the baseline's own cell");
        assert_eq!(row["cells"][1]["paired"], true, "{row}");
        assert_eq!(row["cells"][1]["repetitions"], 3);
    }
    let out = kura(&db).args(["--wide", "compare", &ia, &ib]).output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains(&format!(
            "runs interleaved: first, {b_name} took turns, 3 passes each"
        )),
        "{table}"
    );
    // A run compared with one it did not take turns with is not interleaved.
    let out = kura(&db)
        .args(["mark", a_name, "--profile", "demo", "--runs", "2"])
        .args([
            "--runtime",
            "200ms",
            "--interval",
            "0s",
            "--size",
            "8m",
            "--label",
            "alone",
        ])
        .output()
        .unwrap();
    assert!(out.status.code().unwrap() < 2, "{}", stderr_of(&out));
    let out = kura(&db)
        .args(["compare", &ia, "alone", "--format", "json"])
        .output()
        .unwrap();
    let c = json(&out.stdout);
    assert_eq!(c["interleaved"], false);
    assert!(
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["cells"][1]["paired"] == false)
    );
}

/// The last target refused (data kura may not write over) stops the run
/// before the first target is touched: nothing written, nothing stored.
#[test]
fn a_refused_second_target_leaves_the_first_untouched() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (a, b) = (dir.path().join("a.img"), dir.path().join("b.img"));
    for f in [&a, &b] {
        sh(&format!("head -c 8388608 /dev/urandom > '{}'", f.display()));
    }
    let before = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // The first is the user's to lose (--allow-destroy names it); the second is not.
    let out = kura(&db)
        .args([
            "mark",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--profile",
            "demo",
        ])
        .args(["--runs", "1", "--runtime", "200ms", "--interval", "0s"])
        .args(["--allow-destroy", a.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("b.img") && err.contains("--allow-destroy"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        std::fs::read(&a).unwrap() == before.0,
        "the first target was written"
    );
    assert!(
        std::fs::read(&b).unwrap() == before.1,
        "the refused target was written"
    );
    assert!(!db.exists(), "a refused run left a database");
}

#[test]
fn labels_of_several_targets_name_their_target() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .current_dir(dir.path())
        .args(["mark", "a.dat", "b.dat", "--label", "ssd", "--runs", "1"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("TARGET=LABEL"), "{err}");
    let out = kura(&db)
        .current_dir(dir.path())
        .args(["mark", "a.dat", "a.dat", "--runs", "1"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("named twice"), "{err}");
    // One run takes one label.
    let out = kura(&db)
        .args(["run", "--label", "a", "--label", "b", "--engine", "null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(!db.exists());
}

#[test]
fn a_sweep_of_two_targets_takes_turns_point_by_point() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
    let out = kura(&db)
        .args(["--json", "sweep", a.to_str().unwrap(), b.to_str().unwrap()])
        .args([
            "--bs",
            "4k,64k",
            "--read-pct",
            "100",
            "--runtime",
            "200ms",
            "--size",
            "8m",
        ])
        .output()
        .unwrap();
    assert!(out.status.code().unwrap() < 2, "{}", stderr_of(&out));
    let runs = json(&out.stdout);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let ids: Vec<i64> = runs.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let (pa, pb) = (passes(&stored(&db, ids[0])), passes(&stored(&db, ids[1])));
    assert_eq!(pa.len(), 2);
    assert!(
        pa[0].1 < pb[0].1 && pb[0].1 < pa[1].1 && pa[1].1 < pb[1].1,
        "{pa:?} {pb:?}"
    );
    assert_eq!(
        stored(&db, ids[1])["interleaved_with"],
        serde_json::json!([ids[0]])
    );
}
