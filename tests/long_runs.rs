//! Long runs: a throttle switched on mid-run is told as a cliff at the
//! period it began, stored with the run, marked on its chart and kept in
//! compare; a run still measuring shows what it has so far.

mod common;

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use common::{Cgroup, LoopDevice, json, kura, sh, tmp};

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

#[test]
fn a_throttle_switched_on_mid_run_is_reported_as_a_cliff_when_it_began() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 64 << 20) else {
        return;
    };
    let Some(group) = Cgroup::blkio("cliff") else {
        return;
    };
    let majmin = sh(&format!("lsblk -dno MAJ:MIN {}", dev.path.display()));
    let bin = assert_cmd::cargo::cargo_bin("kura");
    // kura joins the group before it starts; the group throttles nothing yet.
    let script = format!(
        "echo $$ > {} && exec {} --db {} --quiet --json run --target {} --rw randread --qd 4 --runtime 16s --interval 500ms",
        group.0.join("cgroup.procs").display(),
        bin.display(),
        db.display(),
        dev.path.display()
    );
    // The throttle comes half-way: 7 s of periods stored, about 8 s measured.
    let running = common::Running::start(Command::new("sh").arg("-c").arg(&script)).wait_for_periods(&db, 14);
    let throttled_at_ms = now_ms();
    std::fs::write(
        group.0.join("blkio.throttle.read_iops_device"),
        format!("{} 200\n", majmin.trim()),
    )
    .unwrap();
    let out = running.finish();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = json(&out.stdout);

    let steps: Vec<&serde_json::Value> = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "series_step" && w["step"]["figure"] == "iops")
        .collect();
    // Other load on this shared machine may move the rate before the throttle:
    // the level the run ended at is the throttle's.
    let last = steps
        .iter()
        .find(|w| w["step"]["to_end"] == true)
        .unwrap_or_else(|| panic!("no step that lasted: {}", run["warnings"]));
    let step = &last["step"];
    assert!(step["change_pct"].as_f64().unwrap() < -80.0, "{step}");
    // The period the throttle began in, from the run's own start of measurement.
    let start_ms = run["jobs"][0]["measure_start_unix_ms"].as_u64().unwrap();
    let expected = (throttled_at_ms - start_ms) as f64 / 500.0;
    let found = step["period"].as_f64().unwrap();
    assert!(
        (found - expected).abs() <= 2.0,
        "cliff told at period {found}, throttle began in period {expected:.1}"
    );
    let text = last["text"].as_str().unwrap();
    assert!(
        text.contains("IOPS fell") && text.contains("and stayed"),
        "{text}"
    );

    // Stored with the run, shown by `show`, marked in the report, kept in compare.
    let shown = kura(&db).args(["--wide", "show", "latest"]).assert().success();
    let shown = String::from_utf8_lossy(&shown.get_output().stdout).into_owned();
    assert!(shown.contains(text), "{shown}");
    let report = dir.path().join("r.html");
    kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&report)
        .assert()
        .success();
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains(r#"<ul class="events">"#), "no list of events");
    assert!(
        html.contains(r#"<g class="marker">"#) && html.contains(">fell "),
        "no marker"
    );
    let target = dev.path.to_str().unwrap();
    kura(&db)
        .args(["run", "--rw", "randread", "--runtime", "1s", "--target", target])
        .assert()
        .success();
    let compared = json(
        &kura(&db)
            .args(["--json", "compare", "1", "2"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(
        compared["warnings"].to_string().contains("IOPS fell"),
        "{}",
        compared["warnings"]
    );
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A long job at a short interval: with a histogram kept for every period
/// (about 265 KiB each), 600 more periods grew RSS by some 160 MB; without,
/// RSS moves by tens of MB as histograms come and go, and stays there.
#[test]
fn memory_stays_flat_as_periods_pile_up() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let running = common::Running::start(
        common::kura_command(&db)
            .args(["run", "--engine", "sync", "--rate-iops", "500", "--size", "8m"])
            .args(["--runtime", "60s", "--interval", "10ms", "--target"])
            .arg(&target),
    );
    let pid = running.pid() as u32;
    let running = running.wait_for_periods(&db, 100);
    let early = rss_kib(pid).unwrap();
    let running = running.wait_for_periods(&db, 700);
    let late = rss_kib(pid).unwrap();
    running.kill();
    assert!(
        late < early + 64 * 1024,
        "RSS grew from {early} KiB to {late} KiB over 600 periods"
    );
}

#[test]
fn a_run_still_measuring_shows_as_such_with_its_series_so_far() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let running = common::Running::start(
        common::kura_command(&db)
            .args(["run", "--engine", "sync", "--rate-iops", "500", "--size", "8m"])
            .args([
                "--runtime",
                "60s",
                "--interval",
                "100ms",
                "--name",
                "soak",
                "--target",
            ])
            .arg(&target),
    )
    .wait_for_periods(&db, 10);
    let pid = running.pid();
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let shown_terminal = kura(&db).args(["show", "latest"]).assert().success();
    let report = dir.path().join("r.html");
    kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&report)
        .assert()
        .success();
    running.kill();
    let texts = shown["warnings"].to_string();
    assert!(
        texts.contains(&format!("still measuring (kura process {pid})")),
        "{texts}"
    );
    assert!(!texts.contains("the run did not finish"), "{texts}");
    assert!(shown["jobs"][0]["series"].as_array().unwrap().len() >= 10);
    assert_eq!(shown["jobs"][0]["job"]["name"], "soak");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("still measuring"), "the report does not say so");
    assert!(html.contains("STILL MEASURING"), "no banner");
    assert!(
        !html.contains("INCOMPLETE"),
        "a run still measuring did not stop early"
    );
    let text = String::from_utf8_lossy(&shown_terminal.get_output().stdout).into_owned();
    assert!(text.contains("STILL MEASURING"), "{text}");
    // The header's line wraps at 80 columns: read it as words.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("(MEASURING: its totals come when it ends)"),
        "{text}"
    );
    assert!(!text.contains("INCOMPLETE"), "{text}");
    assert!(html.contains("IOPS over time"), "no chart of the series so far");

    // Killed, the same run is no longer taken for one still measuring.
    let after = kura(&db).args(["--json", "show", "latest"]).assert().success();
    let texts = json(&after.get_output().stdout)["warnings"].to_string();
    assert!(texts.contains("the run did not finish"), "{texts}");
    assert!(!texts.contains("still measuring"), "{texts}");
}

/// A rate-capped job is as steady as a job gets: the PTS rule holds at the
/// fifth round, and each round is stored with its own name. The sequential
/// preconditioning before it writes the span twice in 128 KiB blocks.
#[test]
fn rounds_until_steady_and_preconditioning_are_stored_and_charted() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let run = json(
        &kura(&db)
            .args([
                "--json",
                "run",
                "--engine",
                "sync",
                "--rate-iops",
                "2000",
                "--size",
                "4m",
            ])
            .args([
                "--runtime",
                "500ms",
                "--precondition",
                "seq",
                "--until-steady",
                "iops",
            ])
            .arg("--target")
            .arg(&target)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = run["jobs"].as_array().unwrap();
    let tests: Vec<&str> = jobs.iter().map(|j| j["test"].as_str().unwrap()).collect();
    // Steady at the fifth round unless other load on this machine shook one.
    let rounds_run = tests.len() - 1;
    assert!((5..=25).contains(&rounds_run), "{tests:?}");
    assert_eq!(tests[0], "precondition seq");
    for (k, t) in tests[1..].iter().enumerate() {
        assert_eq!(*t, format!("job round {}", k + 1));
    }
    let pre = &jobs[0];
    assert_eq!(pre["job"]["rw"], "write");
    assert_eq!(pre["write"]["bytes"], 2 * (4 << 20));
    let rounds = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "rounds")
        .unwrap_or_else(|| panic!("{}", run["warnings"]));
    assert_eq!(rounds["rounds"]["steady"], true, "{rounds}");
    assert_eq!(rounds["rounds"]["window"]["last_round"], rounds_run);
    assert_eq!(rounds["rounds"]["values"].as_array().unwrap().len(), rounds_run);
    assert!(
        rounds["text"]
            .as_str()
            .unwrap()
            .contains(&format!("steady state (SNIA PTS 2.0.2) after round {rounds_run}"))
    );

    let report = dir.path().join("r.html");
    kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&report)
        .assert()
        .success();
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("Rounds until steady · job"), "no rounds chart");
    assert!(html.contains("steady window"), "the window is not marked");

    // Bad values are refused with the key named, exit 2.
    for (flag, value) in [("--precondition", "sprandom"), ("--until-steady", "temperature")] {
        kura(&db)
            .args(["run", "--engine", "null", flag, value])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(flag.trim_start_matches("--")));
    }
}

/// Preconditioning writes the whole span: a read job on a device that
/// carries a file system is refused before anything runs, bytes unchanged.
#[test]
fn preconditioning_a_device_with_data_is_refused_and_leaves_it_unchanged() {
    if !common::need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tmp();
    let Some(dev) = LoopDevice::new(dir.path(), 64 << 20) else {
        return;
    };
    dev.mkfs_ext4();
    let before = std::fs::read(&dev.backing).unwrap();
    let out = kura(&dir.path().join("k.db"))
        .args([
            "run",
            "--rw",
            "randread",
            "--runtime",
            "1s",
            "--precondition",
            "seq",
            "--target",
        ])
        .arg(&dev.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr_of(&out));
    assert!(common::stderr_of(&out).contains("--allow-destroy"));
    assert!(
        std::fs::read(&dev.backing).unwrap() == before,
        "the device was written"
    );
}
