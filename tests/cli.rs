//! The binary on real files: exact counts, JSON, storage, and bad input.

mod common;

use common::{json, kura, tmp};
use predicates::prelude::*;

#[test]
fn io_count_gives_exact_operations_and_bytes() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    for (engine, qd) in [("io_uring", "8"), ("sync", "1")] {
        let out = kura(&db)
            .args(["--json", "run", "--target"])
            .arg(&target)
            .args([
                "--size",
                "8m",
                "--rw",
                "randread",
                "--bs",
                "4k",
                "--qd",
                qd,
                "--threads",
                "3",
            ])
            .args(["--io-count", "1001", "--engine", engine])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let v = json(&out);
        let read = &v["jobs"][0]["read"];
        assert_eq!(read["ops"], 1001, "{engine}");
        assert_eq!(read["bytes"], 1001 * 4096, "{engine}");
        assert_eq!(read["errors"], 0);
        assert!(v["jobs"][0]["write"].is_null());
        assert_eq!(v["jobs"][0]["engine"], engine);
    }
    // The test file kura created is gone after the run.
    assert!(!target.exists());
}

#[test]
fn sequential_writes_cover_the_span_exactly_once() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let out = kura(&db)
        .args(["--json", "run", "--keep", "--target"])
        .arg(&target)
        .args([
            "--size",
            "4m",
            "--rw",
            "write",
            "--bs",
            "64k",
            "--io-size",
            "4m",
            "--fill",
            "zero",
            "--qd",
            "4",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["jobs"][0]["write"]["ops"], 64);
    assert_eq!(v["jobs"][0]["write"]["bytes"], 4 << 20);
    // Pre-fill was random; one sequential pass of zero-filled writes leaves only zeros.
    let data = std::fs::read(&target).unwrap();
    assert_eq!(data.len(), 4 << 20);
    assert!(
        data.iter().all(|b| *b == 0),
        "a block was skipped or written twice elsewhere"
    );
}

/// `--gap` (fio's `rw=write:64k`): one pass writes every other block, and
/// the holes keep what the file held.
#[test]
fn a_gap_leaves_the_holes_untouched() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    std::fs::write(&target, vec![0xaa; 4 << 20]).unwrap();
    let out = kura(&db)
        .args(["--json", "run", "--keep", "--target"])
        .arg(&target)
        .args([
            "--size", "4m", "--rw", "write", "--bs", "64k", "--gap", "64k", "--passes", "1", "--fill", "zero",
        ])
        .arg("--allow-destroy")
        .arg(&target)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    assert_eq!(v["jobs"][0]["write"]["ops"], 32);
    assert_eq!(v["jobs"][0]["job"]["gap_bytes"], 64 << 10);
    let data = std::fs::read(&target).unwrap();
    for (i, block) in data.chunks(64 << 10).enumerate() {
        let want = if i % 2 == 0 { 0 } else { 0xaa };
        assert!(block.iter().all(|b| *b == want), "block {i}");
    }
}

#[test]
fn json_has_the_documented_shape_and_nothing_else() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .current_dir(dir.path())
        .args([
            "--json",
            "run",
            "--size",
            "4m",
            "--rw",
            "randrw",
            "--read-pct",
            "70",
            "--runtime",
            "1s",
        ])
        .args(["--interval", "200ms", "--qd", "4"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let job = &v["jobs"][0];
    for dir in ["read", "write"] {
        let d = &job[dir];
        for key in ["ops", "bytes", "errors", "iops", "bytes_per_sec"] {
            assert!(d[key].is_number(), "{dir}.{key}");
        }
        for key in ["min", "mean", "stddev", "max"] {
            assert!(d["lat_ns"][key].is_number(), "{dir}.lat_ns.{key}");
        }
        assert_eq!(d["lat_ns"]["percentiles"].as_object().unwrap().len(), 12);
        assert!(d["lat_ns"]["percentiles"]["99.900000"].is_number());
    }
    let reads = job["read"]["ops"].as_f64().unwrap();
    let writes = job["write"]["ops"].as_f64().unwrap();
    let share = reads / (reads + writes);
    assert!((share - 0.7).abs() < 0.05, "read share {share}");
    let series = job["series"].as_array().unwrap();
    assert!(series.len() >= 4, "{} periods", series.len());
    let series_ops: u64 = series
        .iter()
        .map(|p| p["read_ops"].as_u64().unwrap() + p["write_ops"].as_u64().unwrap())
        .sum();
    assert_eq!(
        series_ops as f64,
        reads + writes,
        "the series adds up to the totals"
    );
    assert!(v["id"].is_number());
    assert!(
        job["job"]["runtime_ns"].is_u64(),
        "the resolved job keeps its runtime"
    );
}

#[test]
fn runs_are_stored_and_shown_as_printed() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let printed = kura(&db)
        .current_dir(dir.path())
        .args(["run", "--size", "4m", "--io-count", "500", "--label", "ssd-a"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let shown = kura(&db)
        .args(["show", "ssd-a"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8_lossy(&printed), String::from_utf8_lossy(&shown));
    let history = kura(&db)
        .args(["--json", "history"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let h = json(&history)["runs"].clone();
    assert_eq!(h[0]["label"], "ssd-a");
    assert_eq!(h[0]["workload"], "randread 4k qd1 x1");
    // The stored run holds the histogram itself, and host facts.
    let run = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(run["jobs"][0]["read"]["histogram"].as_str().unwrap().len() > 20);
    assert!(run["host"]["cores"].as_u64().unwrap() >= 1);
    assert!(!run["host"]["kernel"].as_str().unwrap().is_empty());
    kura(&db)
        .args(["label", "latest", "ssd-b", "--price", "10 USD/month"])
        .assert()
        .success();
    let run = json(
        &kura(&db)
            .args(["--json", "show", "ssd-b"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(run["price"], "10 USD/month");
    kura(&db)
        .args(["show", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no run matches 'nope'"));
}

/// Each bad input: exit 2, one line naming the problem, no panic.
fn refused(dir: &std::path::Path, args: &[&str], message: &str) {
    let db = dir.join("k.db");
    let out = kura(&db)
        .current_dir(dir)
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(message),
        "{args:?}: expected '{message}' in: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn bad_flags_are_refused_clearly() {
    let dir = tmp();
    let d = dir.path();
    refused(d, &["run", "--rw", "sideways"], "rw: 'sideways' is not valid");
    refused(d, &["run", "--qd", "0"], "qd: '0' is not valid");
    refused(d, &["run", "--qd", "100000"], "qd: '100000' is not valid");
    refused(d, &["run", "--threads", "0"], "threads: '0' is not valid");
    refused(d, &["run", "--threads", "99999"], "threads");
    refused(d, &["run", "--bs", "4q"], "bs: '4q' is not a size");
    refused(d, &["run", "--size", "1m", "--bs", "2m"], "larger than size 1m");
    refused(
        d,
        &["run", "--runtime", "soon"],
        "runtime: 'soon' is not a duration",
    );
    refused(d, &["run", "--engine", "libaio"], "engine: 'libaio' is not valid");
    refused(
        d,
        &["run", "--target", "/nonexistent-dir/x.dat"],
        "directory /nonexistent-dir does not exist",
    );
    refused(d, &["mark", "--profile", "fast"], "unknown profile 'fast'");
    refused(d, &["mark", "--runs", "0"], "--runs: '0' is not valid");
    refused(
        d,
        &["mark", "--setting", "ssd"],
        "--setting: 'ssd' is not a setting",
    );
    refused(
        d,
        &["mark", "--profile", "nvme", "--setting", "flash"],
        "disagree",
    );
    refused(
        d,
        &["mark", "--profile", "demo-mix"],
        "unknown profile 'demo-mix'",
    );
    refused(
        d,
        &["mark", "--figure", "median"],
        "--figure: 'median' is not valid",
    );
    refused(d, &["mark", "--unit", "kbps"], "--unit: 'kbps' is not a unit");
    refused(d, &["run", "--bogus"], "unexpected argument '--bogus'");
    refused(
        d,
        &["compare", "1", "2", "--metric", "zz"],
        "invalid value 'zz' for '--metric",
    );
    assert!(!d.join("kura-test.dat").exists(), "no test file is left behind");
}

#[test]
fn a_database_that_cannot_be_opened_is_refused_before_running() {
    let dir = tmp();
    let out = common::cmd::kura_plain()
        .current_dir(dir.path())
        .args(["--db", "/nonexistent-dir/k.db", "run", "--size", "1m"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--db /nonexistent-dir/k.db: directory /nonexistent-dir does not exist")
    );
    assert!(
        !dir.path().join("kura-test.dat").exists(),
        "refused before creating the test file"
    );
    let not_db = dir.path().join("not.db");
    std::fs::write(&not_db, vec![b'x'; 4096]).unwrap();
    kura(&not_db)
        .args(["history"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not an SQLite database"));
}

#[test]
fn malformed_job_files_name_line_and_key() {
    let dir = tmp();
    let file = dir.path().join("jobs.toml");
    std::fs::write(
        &file,
        "[global]\nsize = \"4m\"\n\n[[job]]\nrw = \"randread\"\nqd = 0\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    refused(dir.path(), &["run", f], &format!("{f}:6: qd: '0' is not valid"));
    std::fs::write(&file, "[[job]]\nrw = \"randread\"\nspeed = \"fast\"\n").unwrap();
    refused(dir.path(), &["run", f], &format!("{f}:3: unknown key 'speed'"));
    std::fs::write(&file, "[[job]\nrw = 1\n").unwrap();
    refused(dir.path(), &["run", f], &format!("{f}:1:"));
    refused(
        dir.path(),
        &["run", "/nonexistent.toml"],
        "/nonexistent.toml: cannot read",
    );
}

#[test]
fn a_job_file_runs_every_job() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("jobs.toml");
    let target = dir.path().join("t.dat");
    std::fs::write(
        &file,
        format!(
            "[global]\ntarget = \"{}\"\nsize = \"4m\"\nio_count = 200\n\n[[job]]\nname = \"r\"\nrw = \"randread\"\n\n[[job]]\nname = \"w\"\nrw = \"randwrite\"\nbs = \"8k\"\nfsync_every = 50\n",
            target.display()
        ),
    )
    .unwrap();
    let v = json(
        &kura(&db)
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["job"]["name"], "r");
    assert_eq!(jobs[0]["read"]["ops"], 200);
    assert_eq!(jobs[1]["write"]["bytes"], 200 * 8192);
    assert_eq!(jobs[1]["syncs"], 4);
    // A flag overrides the file's key in every job.
    let v = json(
        &kura(&db)
            .args(["--json", "run"])
            .arg(&file)
            .args(["--io-count", "7"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["jobs"][1]["write"]["ops"], 7);
}

#[test]
fn null_engine_measures_kura_itself() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .current_dir(dir.path())
            .args([
                "--json",
                "run",
                "--engine",
                "null",
                "--qd",
                "32",
                "--io-count",
                "200000",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["jobs"][0]["read"]["ops"], 200000);
    assert!(
        !dir.path().join("kura-test.dat").exists(),
        "the null engine needs no test file"
    );
}

#[test]
fn rate_iops_caps_the_rate() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .current_dir(dir.path())
            .args([
                "--json",
                "run",
                "--engine",
                "null",
                "--rate-iops",
                "500",
                "--runtime",
                "1s",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let ops = v["jobs"][0]["read"]["ops"].as_u64().unwrap();
    assert!((400..=600).contains(&ops), "{ops} I/Os in 1 s at 500 IOPS");
}

#[test]
fn mark_runs_every_test_and_stores_every_repetition() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .current_dir(dir.path())
            .args([
                "--json",
                "mark",
                "--size",
                "8m",
                "--runtime",
                "200ms",
                "--runs",
                "2",
                "--profile",
                "realworld",
                "--interval",
                "0s",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2 * 2 * 2);
    assert_eq!(v["suite"], "mark:realworld");
    // CrystalDiskMark 9's order: every test's read before any write; the
    // first pass of each test starts with its preparation (a ramp as long as a pass).
    let names: Vec<&str> = jobs.iter().map(|j| j["job"]["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "SEQ1M Q1T1 read #1",
            "SEQ1M Q1T1 read #2",
            "RND4K Q1T1 read #1",
            "RND4K Q1T1 read #2",
            "SEQ1M Q1T1 write #1",
            "SEQ1M Q1T1 write #2",
            "RND4K Q1T1 write #1",
            "RND4K Q1T1 write #2"
        ]
    );
    let ramps: Vec<u64> = jobs.iter().map(|j| j["ramp_ns"].as_u64().unwrap()).collect();
    assert_eq!(
        ramps,
        [200_000_000, 0, 200_000_000, 0, 200_000_000, 0, 200_000_000, 0]
    );
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests[0]["test"], "SEQ1M Q1T1");
    assert_eq!(tests[0]["read"]["runs"], 2);
    assert!(tests[1]["write"]["best_bytes_per_sec"].as_f64().unwrap() > 0.0);
    assert!(!dir.path().join("kura-test.dat").exists());
    let grid = kura(&db)
        .args(["show", "latest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let grid = String::from_utf8_lossy(&grid);
    // Real World shows its random test in MB/s, IOPS and µs, as CrystalDiskMark does.
    for row in [
        "SEQ1M Q1T1 MB/s",
        "RND4K Q1T1 MB/s",
        "RND4K Q1T1 IOPS",
        "RND4K Q1T1 µs",
    ] {
        assert!(grid.contains(row), "{row} in {grid}");
    }
    assert!(grid.contains("best of 2 passes"), "{grid}");
}
