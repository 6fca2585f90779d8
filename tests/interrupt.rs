//! Ctrl-C mid-run: the run stops, is stored as incomplete, and the test file is gone.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigint_keeps_a_stored_incomplete_run_and_no_test_file() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let child = Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args([
            "--json",
            "--quiet",
            "run",
            "--size",
            "8m",
            "--runtime",
            "60s",
            "--qd",
            "4",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the measurement runs (the test file exists at full size), then interrupt.
    let test_file = dir.path().join("kura-test.dat");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&test_file).map(|m| m.len()).unwrap_or(0) < 8 << 20 {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
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
    let elapsed = v["jobs"][0]["elapsed_ns"].as_u64().unwrap();
    assert!(elapsed < 30_000_000_000, "stopped long before the runtime");
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
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["--quiet", "run", "--size", "4g", "--runtime", "60s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let test_file = dir.path().join("kura-test.dat");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !test_file.exists() {
        assert!(Instant::now() < deadline, "the pre-fill never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kura did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
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
    let child = Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args([
            "--json",
            "--quiet",
            "run",
            "--size",
            "8m",
            "--runtime",
            "60s",
            "--qd",
            "4",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let test_file = dir.path().join("kura-test.dat");
    // Measuring: the first job's first period is stored.
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&test_file).map(|m| m.len()).unwrap_or(0) < 8 << 20 {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill sends a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    let out = child.wait_with_output().unwrap();
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
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["--quiet", "run", "--engine", "null", "--runtime", "200ms"])
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
    let child = Command::new("nohup")
        .arg(assert_cmd::cargo::cargo_bin("kura"))
        .current_dir(dir.path())
        .arg("--db")
        .arg(&db)
        .args(["--json", "--quiet", "run", "--engine", "null", "--runtime", "2s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !db.exists() {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill sends a signal to our own child process (nohup has exec'd kura).
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    let out = child.wait_with_output().unwrap();
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
    let mut term = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let test_file = dir.path().join("kura-test.dat");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::metadata(&test_file).map(|m| m.len()).unwrap_or(0) < 8 << 20 {
        if Instant::now() > deadline {
            let _ = term.kill();
            panic!("the run never started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let pid: i32 = std::fs::read_to_string(dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The terminal goes away, then its hang-up reaches kura.
    term.kill().unwrap();
    term.wait().unwrap();
    // SAFETY: kill sends a signal to the kura this test started.
    unsafe { libc::kill(pid, libc::SIGHUP) };
    let rc = dir.path().join("rc");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&rc).unwrap_or_default().trim().is_empty() {
        if Instant::now() > deadline {
            // SAFETY: as above.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("kura did not end after SIGHUP");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
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
