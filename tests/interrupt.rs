//! Ctrl-C mid-run: the run stops, is stored as incomplete, and the test file is gone.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{Running, default_signals, kura_command};

#[test]
fn sigint_keeps_a_stored_incomplete_run_and_no_test_file() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let test_file = dir.path().join("kura-test.dat");
    // Interrupted while measuring: the test file is whole and a first period is stored.
    let out = measuring(&db, dir.path()).signal(libc::SIGINT).finish();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = common::json(&out.stdout);
    assert_eq!(v["incomplete"], true);
    let ops = v["jobs"][0]["read"]["ops"].as_u64().unwrap();
    assert!(ops > 0, "what was measured is kept");
    // A job that ran its course reports its runtime exactly.
    let job = &v["jobs"][0];
    assert!(
        job["elapsed_ns"].as_u64().unwrap() < job["job"]["runtime_ns"].as_u64().unwrap(),
        "stopped before the runtime: {job}"
    );
    assert!(!test_file.exists(), "the test file kura created is removed");
    let stored = common::json(
        &common::kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true);
    assert_eq!(stored["jobs"][0]["read"]["ops"].as_u64().unwrap(), ops);
}

#[test]
fn sigint_during_the_pre_fill_removes_the_half_written_file() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let test_file = dir.path().join("kura-test.dat");
    let out = Running::start(kura_command(&db).current_dir(dir.path()).args([
        "run",
        "--size",
        "4g",
        "--runtime",
        "60s",
    ]))
    .wait_for("the pre-fill to begin", || test_file.exists())
    .signal(libc::SIGINT)
    .finish();
    let status = out.status;
    assert!(!status.success());
    assert!(!test_file.exists(), "the half-written test file is removed");
}

/// SIGHUP (the terminal or SSH session went away) is Ctrl-C: the run
/// stops, what was measured is stored as incomplete, the test file goes,
/// exit 1. It used to kill kura on the spot, leaving the test file.
#[test]
fn sighup_acts_as_sigint() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let test_file = dir.path().join("kura-test.dat");
    let out = measuring(&db, dir.path()).signal(libc::SIGHUP).finish();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let v = common::json(&out.stdout);
    assert_eq!(v["incomplete"], true);
    let ops = v["jobs"][0]["read"]["ops"].as_u64().unwrap();
    assert!(ops > 0, "what was measured is kept");
    assert!(!test_file.exists(), "the test file kura created is removed");
    let stored = common::json(
        &common::kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true);
    assert_eq!(stored["jobs"][0]["read"]["ops"].as_u64().unwrap(), ops);
}

/// A measuring verb whose report cannot be printed (`kura run | true`: the
/// reader is gone) says where the run is and exits 1, as for a full disk;
/// it used to exit 0 without a word.
#[test]
fn a_closed_stdout_says_where_the_run_is_and_exits_1() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let mut child = default_signals(&mut kura_command(&db))
        .current_dir(dir.path())
        .args(["run", "--engine", "null", "--runtime", "200ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before kura prints.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("the result could not be printed on stdout: Broken pipe; the run is stored: `kura show 1` prints it"),
        "{err}"
    );
    let stored = common::json(
        &common::kura(&db)
            .args(["--json", "show", "1"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], false);
}

/// `nohup kura run ...` asked for the run to outlive the terminal: an
/// ignored SIGHUP stays ignored, and the run goes on to its end.
#[test]
fn sighup_under_nohup_is_still_ignored() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let out = Running::start(
        Command::new("nohup")
            .arg(assert_cmd::cargo::cargo_bin("kura"))
            .current_dir(dir.path())
            .arg("--db")
            .arg(&db)
            .args(["--json", "--quiet", "run", "--engine", "null", "--runtime", "2s"]),
    )
    // Its signals are set up before the job's row is stored.
    .wait_for("the job to begin", || common::started_jobs(&db) > 0)
    .signal(libc::SIGHUP)
    .finish();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(common::json(&out.stdout)["incomplete"], false);
}

/// SIGHUP from a terminal that is gone (an SSH session dropped): the run
/// is stored, the test file removed, and kura ends with exit 1. Printing
/// the report to the dead terminal used to panic (exit 101).
#[test]
fn sighup_after_the_terminal_is_gone_exits_1_without_a_panic() {
    if !common::have("script") {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let kura = assert_cmd::cargo::cargo_bin("kura");
    // The shell outlives the terminal (its SIGHUP is trapped) to tell kura's
    // exit status; its hang-up ends a `wait` early, so it waits again.
    let line = format!(
        "sh -c 'trap true HUP; {} --db {} run --size 8m --runtime 60s & p=$!; echo $p > pid; \
         wait $p; st=$?; while kill -0 $p 2>/dev/null; do wait $p; st=$?; done; echo $st > rc'",
        kura.display(),
        db.display()
    );
    let test_file = dir.path().join("kura-test.dat");
    let term = Running::start(
        Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(dir.path()),
    )
    .wait_for("the run to measure (a first period stored)", || {
        common::file_of(&test_file, 8 << 20) && common::stored_periods(&db) > 0
    });
    let pid: i32 = std::fs::read_to_string(dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let rc = dir.path().join("rc");
    // A kura that outlives the test is killed, not left running.
    let _guard = KillUnlessEnded(pid, rc.clone());
    // The terminal goes away, then its hang-up reaches kura.
    term.kill();
    // SAFETY: kill sends a signal to the kura this test started.
    unsafe { libc::kill(pid, libc::SIGHUP) };
    common::wait_until("kura to end after SIGHUP", || {
        !std::fs::read_to_string(&rc).unwrap_or_default().trim().is_empty()
    });
    assert_eq!(std::fs::read_to_string(&rc).unwrap().trim(), "1");
    assert!(!test_file.exists(), "the test file kura created is removed");
    let stored = common::json(
        &common::kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true);
    assert!(stored["jobs"][0]["read"]["ops"].as_u64().unwrap() > 0);
}

/// SIGKILL on drop to the process `.0` (not this test's child) unless the
/// file `.1` says it ended.
struct KillUnlessEnded(i32, std::path::PathBuf);

impl Drop for KillUnlessEnded {
    fn drop(&mut self) {
        if !self.1.exists() {
            // SAFETY: kill(2) on the pid of the kura this test started, still running.
            unsafe { libc::kill(self.0, libc::SIGKILL) };
        }
    }
}

/// `kura --json run` of an 8 MiB test file in `dir` for 60 s, once it
/// measures: its test file is whole and a first period of its series is
/// stored (about a second in).
fn measuring(db: &Path, dir: &Path) -> Running {
    let test_file = dir.join("kura-test.dat");
    Running::start(kura_command(db).current_dir(dir).args([
        "--json",
        "run",
        "--size",
        "8m",
        "--runtime",
        "60s",
        "--qd",
        "4",
    ]))
    .wait_for("the run to measure (a first period stored)", || {
        common::file_of(&test_file, 8 << 20) && common::stored_periods(db) > 0
    })
}
