//! The progress display on a real terminal (a pty from `script`): a job's
//! line ends with the job's result, the figure the stored run holds.

mod common;

use common::{json, kura};

#[test]
fn a_finished_job_shows_its_result_not_the_tail_period() {
    if !common::have("script") {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let bin = assert_cmd::cargo::cargo_bin("kura");
    // 1.3 s at a 1 s interval leaves a 0.3 s tail period, which the last frame used to show.
    let command = format!(
        "{} --db {} run --target {} --size 8m --rw randread --runtime 1300ms",
        bin.display(),
        db.display(),
        target.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = String::from_utf8_lossy(&out.stdout);
    let line = screen
        .split(['\r', '\n'])
        .rfind(|l| l.contains("done:"))
        .unwrap_or_else(|| panic!("no final progress line in {screen:?}"));
    let shown: f64 = line
        .split("done: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no IOPS in {line:?}"));
    assert!(line.contains("the job's result"), "{line}");
    let v = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let stored = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert_eq!(shown, stored.round(), "{line}");
}

/// A suite's progress says the step of the run and the time left for all of
/// it, and a new test file's pre-fill shows its share done and its rate.
#[test]
fn mark_progress_shows_the_step_the_time_left_and_the_prefill() {
    if !common::have("script") {
        return;
    }
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let db = dir.path().join("k.db");
    let bin = assert_cmd::cargo::cargo_bin("kura");
    let command = format!(
        "{} --db {} mark {} --profile demo --runs 2 --runtime 300ms --interval 0s --size 32m",
        bin.display(),
        db.display(),
        dir.path().display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("TERM", "xterm")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = String::from_utf8_lossy(&out.stdout);
    for step in [
        "[1/4] SEQ1M Q8T1 read #1",
        "[2/4]",
        "[3/4]",
        "[4/4] SEQ1M Q8T1 write #2",
    ] {
        assert!(screen.contains(step), "{step} in {screen:?}");
    }
    assert!(screen.contains(" left"), "time left in {screen:?}");
    let fill = screen
        .split(['\r', '\n'])
        .rfind(|l| l.contains("writing kura-test.dat"))
        .unwrap_or_else(|| panic!("no pre-fill line in {screen:?}"));
    assert!(fill.contains("100%") && fill.contains("/s"), "{fill}");
}
