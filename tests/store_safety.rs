//! The database: kura opens only a regular file (or a new one), reading
//! verbs never create or convert anything, and a measured run is never lost
//! (stored job by job, kept as JSON when the store fails at the end).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{LoopDevice, Running, have, json, kura, sh, stderr_of, tmp};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// One line, no doubled text, naming the database.
fn assert_one_line(err: &str, names: &str) {
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(names), "names {names}: {err}");
    assert!(!err.contains("os error"), "no errno tail: {err}");
}

fn store_a_null_run(db: &Path, label: &str) -> serde_json::Value {
    json(
        &kura(db)
            .args([
                "--json",
                "run",
                "--engine",
                "null",
                "--io-count",
                "2000",
                "--label",
                label,
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

fn read_conn(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

#[test]
fn a_device_given_as_the_database_is_refused_and_left_unchanged() {
    if !have("mkfs.ext4") {
        return;
    }
    let dir = tmp();
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    sh(&format!("mkfs.ext4 -q -F {}", dev.path.display()));
    let before = bytes(&dev.path);
    let link = dir.path().join("db-link");
    std::os::unix::fs::symlink(&dev.path, &link).unwrap();
    // The same file system as a disk image in a regular file: not SQLite, so not touched either.
    let image = dir.path().join("image.db");
    std::fs::write(&image, &before).unwrap();
    let verbs: [&[&str]; 5] = [
        &["history"],
        &["show", "latest"],
        &["run", "--engine", "null", "--io-count", "100"],
        &["label", "1", "x"],
        &["report", "latest"],
    ];
    for db in [&dev.path, &link] {
        for args in verbs {
            let out = kura(db).args(args).assert().code(2).get_output().clone();
            assert!(out.stdout.is_empty(), "{args:?}");
            let err = stderr_of(&out);
            assert_one_line(&err, &db.display().to_string());
            assert!(err.contains("block device"), "{args:?}: {err}");
        }
    }
    for args in verbs {
        let out = kura(&image).args(args).assert().code(2).get_output().clone();
        assert_one_line(&stderr_of(&out), "image.db");
        assert!(
            stderr_of(&out).contains("not an SQLite database"),
            "{}",
            stderr_of(&out)
        );
    }
    assert!(bytes(&dev.path) == before, "the device's bytes are unchanged");
    assert!(bytes(&image) == before, "the image's bytes are unchanged");
    assert!(!dir.path().join("image.db-wal").exists());

    // Neither a directory, a FIFO nor a character device is opened (a FIFO would hang a reader).
    let fifo = dir.path().join("fifo");
    sh(&format!("mkfifo {}", fifo.display()));
    for (db, what) in [
        (dir.path().to_path_buf(), "a directory"),
        (fifo, "a FIFO"),
        (PathBuf::from("/dev/null"), "a character device"),
    ] {
        let out = kura(&db)
            .args(["run", "--engine", "null", "--io-count", "100"])
            .timeout(Duration::from_secs(60))
            .assert()
            .code(2)
            .get_output()
            .clone();
        assert_one_line(&stderr_of(&out), what);
    }
}

#[test]
fn reading_verbs_never_create_migrate_or_convert_a_database() {
    let dir = tmp();
    let typo = dir.path().join("typo.db");
    for args in [
        &["history"][..],
        &["show", "latest"],
        &["compare", "1", "2"],
        &["report", "1"],
    ] {
        let out = kura(&typo).args(args).assert().code(2).get_output().clone();
        assert_one_line(&stderr_of(&out), &format!("no database at {}", typo.display()));
        assert!(!typo.exists(), "{args:?} created {}", typo.display());
    }

    // Another program's database, in rollback-journal mode.
    let foreign = dir.path().join("notes.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
            .unwrap();
    }
    let before = bytes(&foreign);
    for args in [
        &["history"][..],
        &["show", "latest"],
        &["report", "1"],
        &["run", "--engine", "null", "--io-count", "100"],
        &["import", "run", "tests/fixtures/kura-v1-run1.json"],
    ] {
        let out = kura(&foreign).args(args).assert().code(2).get_output().clone();
        let err = stderr_of(&out);
        assert_one_line(&err, "notes.db");
        assert!(
            err.contains("another program's SQLite database (tables notes)"),
            "{err}"
        );
    }
    assert!(
        bytes(&foreign) == before,
        "the foreign database's bytes are unchanged"
    );
    let c = read_conn(&foreign);
    let mode: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "delete", "not converted to WAL");
    let tables: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1, "no kura table was added");
}

#[test]
fn a_database_written_by_the_previous_kura_reads_and_migrates() {
    let dir = tmp();
    let db = dir.path().join("old.db");
    std::fs::copy("tests/fixtures/kura-v1.sqlite", &db).unwrap();
    let before = bytes(&db);
    let listed = json(
        &kura(&db)
            .args(["--json", "history"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["runs"]
        .clone();
    let ids: Vec<i64> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [3, 2, 1]);
    let expected =
        common::as_schema_2(serde_json::from_str(include_str!("fixtures/kura-v1-run1.json")).unwrap());
    let shown = |db: &Path| {
        let mut v = json(
            &kura(db)
                .args(["--json", "show", "1"])
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        // Jobs gained a seed after this kura; a job stored without one shows `"seed": null`
        // (tests/stored_today.rs holds that shape for the runs of the kura before this one).
        for job in v["jobs"].as_array_mut().unwrap() {
            let seed = job["job"].as_object_mut().unwrap().remove("seed");
            assert_eq!(seed, Some(serde_json::Value::Null));
        }
        v
    };
    let mut differences = Vec::new();
    common::differ(&shown(&db), &expected, String::new(), &mut differences);
    assert!(
        differences.is_empty(),
        "shown as the old kura showed it, but: {differences:?}"
    );
    kura(&db).args(["show", "3"]).assert().success();
    kura(&db).args(["compare", "1", "2"]).assert().success();
    let html = dir.path().join("r.html");
    kura(&db)
        .args(["report", "1", "2", "3", "-o"])
        .arg(&html)
        .assert()
        .success();
    assert!(html.exists());
    assert!(
        bytes(&db) == before,
        "reading verbs left the old database as it was"
    );
    let version: i32 = read_conn(&db)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 1);

    // A writing verb migrates it, and the old runs read the same.
    store_a_null_run(&db, "new");
    let version: i32 = read_conn(&db)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 2);
    let mut differences = Vec::new();
    common::differ(&shown(&db), &expected, String::new(), &mut differences);
    assert!(differences.is_empty(), "after the migration: {differences:?}");
    kura(&db).args(["show", "latest"]).assert().success();
}

#[test]
fn eight_concurrent_first_runs_on_a_new_database_all_store() {
    let dir = tmp();
    let db = dir.path().join("new.db");
    let children: Vec<_> = (0..8)
        .map(|_| {
            Running::start(common::kura_command(&db).args(["run", "--engine", "null", "--io-count", "10"]))
        })
        .collect();
    for child in children {
        let out = child.finish();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    let runs: i64 = read_conn(&db)
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 8);
}

#[test]
fn a_column_added_by_hand_does_not_break_storing() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_null_run(&db, "first");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "ALTER TABLE runs ADD COLUMN note TEXT; ALTER TABLE job_results ADD COLUMN checked INTEGER DEFAULT 0;",
        )
        .unwrap();
    let run = store_a_null_run(&db, "second");
    assert!(run["id"].as_i64().is_some());
    kura(&db).args(["show", "second"]).assert().success();
}

/// Holds a write lock on `db` from another connection until dropped.
struct WriteLock {
    release: std::sync::mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WriteLock {
    fn take(db: &Path) -> WriteLock {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (taken, is_taken) = std::sync::mpsc::channel::<()>();
        let db = db.to_path_buf();
        let thread = std::thread::spawn(move || {
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
            taken.send(()).unwrap();
            let _ = wait.recv();
            c.execute_batch("ROLLBACK").unwrap();
        });
        is_taken.recv().unwrap();
        WriteLock {
            release,
            thread: Some(thread),
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = self.release.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn a_locked_database_fails_before_measuring() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_null_run(&db, "first");
    let lock = WriteLock::take(&db);
    // 60 s of measuring would follow if the lock were found only at the end.
    let out = kura(&db)
        .args(["run", "--engine", "null", "--runtime", "60s"])
        .timeout(Duration::from_secs(45))
        .assert()
        .code(2)
        .get_output()
        .clone();
    drop(lock);
    assert!(out.stdout.is_empty(), "nothing was measured");
    let err = stderr_of(&out);
    assert_one_line(&err, "k.db");
    assert!(err.contains("locked by another process"), "{err}");
}

#[test]
fn a_run_the_database_cannot_take_at_the_end_is_saved_as_json_and_imports() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_null_run(&db, "first");
    // The run's row appears when measuring starts; then another process locks the database.
    let child = Running::start(common::kura_command(&db).current_dir(dir.path()).args([
        "--json",
        "run",
        "--engine",
        "null",
        "--runtime",
        "1s",
        "--label",
        "late",
    ]))
    .wait_for("the run's row", || runs(&db) == 2);
    let lock = WriteLock::take(&db);
    let out = child.finish();
    drop(lock);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the run could not be stored") && err.contains("locked by another process"),
        "{err}"
    );
    // The result is printed as usual, and saved beside the database.
    let printed = json(&out.stdout);
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("kura-unsaved-run-"))
        .collect();
    assert_eq!(saved.len(), 1, "{err}");
    let file = &saved[0];
    assert!(err.contains(&format!("import run {}", file.display())), "{err}");
    assert_eq!(json(&bytes(file)), printed);
    // The row the run began stays unfinished and empty while the lock is held: no numbers in it.
    let listed = json(
        &kura(&db)
            .args(["--json", "history"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["runs"]
        .clone();
    for row in &listed.as_array().unwrap()[..listed.as_array().unwrap().len() - 1] {
        assert_eq!(row["incomplete"], true);
        assert_eq!(row["jobs"], 0);
    }

    let imported = json(
        &kura(&db)
            .args(["--json", "import", "run"])
            .arg(file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let id = imported["id"].as_i64().unwrap();
    let shown = json(
        &kura(&db)
            .args(["--json", "show", &id.to_string()])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let mut expected = printed.clone();
    expected["id"] = serde_json::json!(id);
    assert_eq!(shown, expected, "the numbers round-trip");
    assert_eq!(shown["label"], "late");
    assert!(shown["jobs"][0]["read"]["ops"].as_u64().unwrap() > 0);
}

/// Runs in the database, begun or finished.
fn runs(db: &Path) -> i64 {
    read_conn(db)
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap()
}

/// Distinct jobs stored so far for the newest run.
fn stored_jobs(db: &Path) -> i64 {
    read_conn(db)
        .query_row(
            "SELECT COUNT(DISTINCT job_index) FROM job_results WHERE run_id = (SELECT MAX(id) FROM runs)",
            [],
            |r| r.get(0),
        )
        .unwrap_or(0)
}

#[test]
fn a_killed_run_keeps_the_jobs_that_finished() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    // mark's default profile: 8 jobs of 1 s each on the null engine.
    Running::start(common::kura_command(&db).args([
        "mark",
        "--interval",
        "0s",
        "--engine",
        "null",
        "--runtime",
        "1s",
        "--size",
        "1m",
        "--runs",
        "1",
    ]))
    .wait_for("two finished jobs", || db.exists() && stored_jobs(&db) >= 2)
    .kill(); // SIGKILL: nothing runs after it.
    let stored = stored_jobs(&db);
    assert!((2..8).contains(&stored), "{stored} jobs stored");
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let run = &shown;
    assert_eq!(run["incomplete"], true);
    // The finished jobs with their numbers; the one measuring when killed, if any, without totals.
    let jobs = run["jobs"].as_array().unwrap();
    let with_totals = jobs
        .iter()
        .filter(|j| !j["read"].is_null() || !j["write"].is_null());
    assert_eq!(with_totals.count() as i64, stored);
    assert!(jobs.len() as i64 - stored <= 1, "{run}");
    assert!(run["jobs"][0]["read"]["ops"].as_u64().unwrap() > 0);
    assert!(
        run["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["text"].as_str().unwrap().contains("did not finish")),
        "{run}"
    );
    let text = String::from_utf8(
        kura(&db)
            .args(["show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(text.contains("INCOMPLETE"), "{text}");
    let listed = json(
        &kura(&db)
            .args(["--json", "history"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["runs"]
        .clone();
    assert_eq!(listed[0]["incomplete"], true);
    assert_eq!(listed[0]["jobs"].as_i64().unwrap(), stored);
    // A later run on the same database stores normally.
    store_a_null_run(&db, "after");
}

#[test]
fn one_malformed_row_does_not_hide_the_other_runs() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for label in ["a", "b", "c"] {
        store_a_null_run(&db, label);
    }
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("UPDATE runs SET started_unix_s = 'garbage', hostname = x'00ff' WHERE id = 2")
        .unwrap();
    let listed = json(
        &kura(&db)
            .args(["--json", "history"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["runs"]
        .clone();
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["label"], "c");
    assert_eq!(rows[2]["label"], "a");
    assert_eq!(rows[1]["id"], 2);
    assert!(rows[1]["unreadable"].as_str().is_some(), "{listed}");
    let text = String::from_utf8(
        kura(&db)
            .arg("history")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(text.contains("unreadable"), "{text}");
}

#[test]
fn every_failed_io_makes_job_files_and_sweeps_exit_1() {
    if !have("fallocate") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    // A full tmpfs and a file whose blocks were punched out: every write fails with ENOSPC.
    let mnt = dir.path().join("full");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount -t tmpfs -o size=8m tmpfs {}", mnt.display()));
    let _mount = common::Mount(mnt.clone());
    let file = mnt.join("t.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    sh(&format!(
        "fallocate --punch-hole --offset 0 --length 4194304 {}",
        file.display()
    ));
    let _ = std::fs::write(mnt.join("filler"), vec![0u8; 8 << 20]);
    let jobs = dir.path().join("jobs.toml");
    std::fs::write(
        &jobs,
        format!(
            "[[job]]\nname = \"w\"\ntarget = \"{}\"\nsize = \"4m\"\nrw = \"randwrite\"\nbuffered = true\nio_count = 50\n",
            file.display()
        ),
    )
    .unwrap();
    let out = kura(&db)
        .args(["--json", "run"])
        .arg(&jobs)
        .assert()
        .code(1)
        .get_output()
        .clone();
    assert_eq!(json(&out.stdout)["jobs"][0]["write"]["errors"], 50);
    let out = kura(&db)
        .args([
            "--json",
            "sweep",
            "--bs",
            "4k",
            "--read-pct",
            "0",
            "--size",
            "4m",
            "--runtime",
            "300ms",
        ])
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let run = &json(&out.stdout);
    assert!(run["jobs"][0]["write"]["errors"].as_u64().unwrap() > 0, "{run}");
    assert_eq!(run["jobs"][0]["write"]["ops"], 0);
}

#[test]
fn mark_refuses_a_write_to_a_device_with_data_before_any_test_runs() {
    if !have("mkfs.ext4") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    sh(&format!("mkfs.ext4 -q -F {}", dev.path.display()));
    let before = bytes(&dev.path);
    let out = kura(&db)
        .args(["mark", "--runs", "1", "--runtime", "200ms", "--size", "1m"])
        .arg(&dev.path)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        out.stdout.is_empty(),
        "no test ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        stderr_of(&out).trim_end().lines().count(),
        1,
        "{}",
        stderr_of(&out)
    );
    assert!(bytes(&dev.path) == before);
    // Refused before the database is opened: nothing stored, not even a new file made.
    assert!(!db.exists(), "the database was made before the refusal");
}

#[test]
fn ctrl_c_ends_a_wait_for_a_lock_and_the_run_is_saved() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_null_run(&db, "first");
    let child = Running::start(common::kura_command(&db).current_dir(dir.path()).args([
        "--json",
        "run",
        "--engine",
        "null",
        "--runtime",
        "1s",
    ]))
    .wait_for("the run's row", || runs(&db) == 2);
    let lock = WriteLock::take(&db);
    // The first Ctrl-C ends the wait to store the job (its row as it begins,
    // or the finished job), the second the wait to store the run. kura's
    // main thread sleeps only in such a wait. A Ctrl-C between the two waits
    // would be taken as the first one's, so it comes again until kura ends.
    let pid = child.pid();
    let out = child
        .wait_for("kura to wait for the lock", || common::main_thread_asleep(pid))
        .signal(libc::SIGINT)
        .finish_signalling(libc::SIGINT);
    drop(lock);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // Not "locked by another process for more than 10 s": Ctrl-C ended the wait.
    assert!(err.contains("stopped (Ctrl-C)"), "{err}");
    let printed = json(&out.stdout);
    let saved = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("kura-unsaved-run-"))
        .unwrap_or_else(|| panic!("no saved run: {err}"));
    assert_eq!(json(&bytes(&saved)), printed);
    // Stored later, it fills the row it began with: no empty incomplete run is left beside it.
    let out = kura(&db).arg("import").arg("run").arg(&saved).assert().success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("as run 2 (the row it began with"), "{said}");
    let runs: i64 = read_conn(&db)
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 2);
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "2"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(shown["jobs"], printed["jobs"]);
    // The same file imported again is a new run: the row it began with is taken.
    let again = kura(&db).arg("import").arg("run").arg(&saved).assert().success();
    let said = String::from_utf8_lossy(&again.get_output().stdout).to_string();
    assert!(said.contains("as run 3 ("), "{said}");
}

#[test]
fn a_killed_run_keeps_the_series_of_the_job_that_was_measuring() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    Running::start(common::kura_command(&db).args([
        "run",
        "--engine",
        "null",
        "--runtime",
        "60s",
        "--interval",
        "100ms",
        "--name",
        "long",
    ]))
    .wait_for_periods(&db, 5)
    .kill();
    let stored = common::stored_periods(&db);
    let run = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(run["incomplete"], true);
    let job = &run["jobs"][0];
    assert_eq!(job["job"]["name"], "long");
    let series = job["series"].as_array().unwrap();
    assert_eq!(series.len() as i64, stored);
    assert!(
        series.iter().all(|p| p["read_ops"].as_u64().unwrap() > 0),
        "{series:?}"
    );
    assert!(
        run["warnings"].as_array().unwrap().iter().any(|w| w["text"]
            .as_str()
            .unwrap()
            .contains("long: was measuring when kura stopped")),
        "{run}"
    );
    kura(&db).args(["show", "latest"]).assert().success();
}

/// Issue 34: a target refused when the run prepared it (after the database
/// was opened) left a new empty database behind. The call that made it
/// removes it with its side files; a database with a run in it stays.
#[test]
fn a_refusal_leaves_no_new_database_behind() {
    let dir = tmp();
    let d = dir.path();
    std::fs::create_dir(d.join("adir")).unwrap();
    let cases: [(&str, String, &str); 3] = [
        ("dir.db", d.join("adir").display().to_string(), "is a directory"),
        (
            "missing.db",
            d.join("no/such/x.dat").display().to_string(),
            "does not exist",
        ),
        (
            "self.db",
            d.join("self.db").display().to_string(),
            "kura's database",
        ),
    ];
    for (name, target, says) in &cases {
        let db = d.join(name);
        let out = kura(&db)
            .args(["run", "--target", target, "--rw", "write", "--size", "1m"])
            .args(["--runtime", "1s"])
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{target}: {err}");
        assert!(err.contains(says), "{target}: {err}");
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with(name))
            .collect();
        assert!(left.is_empty(), "{target}: left behind {left:?}");
    }
    // A database that holds a run stays after a later refusal.
    let db = d.join("kept.db");
    store_a_null_run(&db, "first");
    let out = kura(&db)
        .args(["run", "--target"])
        .arg(d.join("adir"))
        .args(["--rw", "write", "--size", "1m", "--runtime", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(db.exists());
}
