//! A job never writes over kura's own database: `kura run --target k.db
//! --rw write` with `--db k.db` (or another name for the same file) is
//! refused before anything is written; reading it stays allowed.

mod common;

use common::{kura, tmp};

#[test]
fn a_job_that_writes_is_refused_on_the_database_itself() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    // A database with a run in it.
    kura(&db)
        .args(["run", "--engine", "null", "--io-count", "100"])
        .assert()
        .success();
    std::fs::hard_link(&db, d.join("other-name.db")).unwrap();
    let before = std::fs::read(&db).unwrap();
    let size = format!("{}", before.len() / 4096 * 4096);
    for target in [db.clone(), d.join("other-name.db")] {
        for rw in ["randwrite", "write", "randrw"] {
            let out = kura(&db)
                .args(["run", "--rw", rw, "--target"])
                .arg(&target)
                .args(["--size", &size, "--runtime", "50ms"])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{rw} on {}: {stderr}",
                target.display()
            );
            assert!(stderr.contains("is kura's database"), "{stderr}");
        }
    }
    // The database still holds its one run, readable (a written-over one is "malformed").
    let history = kura(&db).args(["--json", "history"]).assert().success();
    let history = common::json(&history.get_output().stdout);
    assert_eq!(history["runs"].as_array().map(Vec::len), Some(1), "{history}");
    // Reading it is measuring a file like any other.
    kura(&db)
        .args(["run", "--rw", "randread", "--runtime", "50ms", "--size", &size])
        .arg("--target")
        .arg(&db)
        .assert()
        .success();
}

/// SQLite takes a file at `DB-journal` for a hot journal of its own: a test
/// file is never created at one of the database's names, even to read.
#[test]
fn no_test_file_is_made_at_a_name_sqlite_uses_beside_the_database() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    for side in ["k.db-journal", "k.db-wal", "k.db-shm"] {
        let target = dir.path().join(side);
        let out = kura(&db)
            .args([
                "run",
                "--rw",
                "read",
                "--size",
                "4m",
                "--runtime",
                "1s",
                "--target",
            ])
            .arg(&target)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{side}: {err}");
        assert!(err.contains("SQLite's file beside it"), "{err}");
        assert!(!target.exists(), "{side} was created");
    }
}
