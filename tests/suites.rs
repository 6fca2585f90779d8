//! Suites on real files: every repetition stored, the tables' shapes, and bad input.

mod common;

use common::{json, kura, tmp};
use predicates::prelude::*;

#[test]
fn sweep_stores_every_point_and_repetition() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .current_dir(dir.path())
            .args([
                "--json",
                "sweep",
                "--bs",
                "4k,64k",
                "--read-pct",
                "100,50,0",
                "--runtime",
                "150ms",
            ])
            .args(["--size", "16m", "--runs", "2", "--label", "disk-a"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2 * 3 * 2);
    assert_eq!(v["suite"], "sweep");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["test"], "bs=4k mix=100/0");
    assert_eq!(rows[3]["test"], "bs=64k mix=50/50");
    assert_eq!(rows[3]["bs_bytes"], 65536);
    assert_eq!(rows[3]["runs"], 2);
    // A 50/50 point reads and writes.
    let mixed = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["test"] == "bs=4k mix=50/50")
        .unwrap();
    assert!(mixed["read"]["ops"].as_u64().unwrap() > 0 && mixed["write"]["ops"].as_u64().unwrap() > 0);
    assert!(!dir.path().join("kura-test.dat").exists());
    let table = kura(&db)
        .args(["show", "disk-a"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    for needle in [
        "100 % read",
        "read/write 50/50",
        "100 % write",
        "block size",
        "MiB/s",
        "64k",
    ] {
        assert!(table.contains(needle), "{needle} in {table}");
    }
}

#[test]
fn sweep_bad_input_is_refused() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (args, msg) in [
        (vec!["sweep", "--bs", ""], "an empty item in the list"),
        (
            vec!["sweep", "--read-pct", "150"],
            "--read-pct: '150' is not valid: must be between 0 and 100",
        ),
        (vec!["sweep", "--pattern", "zigzag"], "--pattern: 'zigzag'"),
        (vec!["sweep", "--preset", "iso"], "unknown preset 'iso'"),
        (
            vec!["sweep", "--preset", "pts"],
            "--preset pts is now --preset iops-matrix-quick",
        ),
        (vec!["sweep", "--runs", "0"], "--runs: '0' is not valid"),
    ] {
        kura(&db)
            .current_dir(dir.path())
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
}

/// A suite's job flags are the option table's: a bad value gets the
/// table's message in one line that names the flag, and exit 2.
#[test]
fn suite_job_flags_are_read_by_the_option_table() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (args, msg) in [
        (
            vec!["mark", "--size", "12q"],
            "--size: '12q' is not a size (examples: 4096, 4k, 1m, 1g, 500mb)",
        ),
        (
            vec!["mark", "--engine", "libaio"],
            "--engine: 'libaio' is not valid: expected io_uring, sync, null or auto",
        ),
        (
            vec!["suite", "tiobench", "--threads", "0"],
            "--threads: '0' is not valid: must be between 1 and 1024",
        ),
        (
            vec!["suite", "tiobench", "--block", "0"],
            "--bs: '0' is not valid: block size must be between 1 byte and 64m",
        ),
        (
            vec!["sweep", "--bs", "4k,zz"],
            "--bs: 'zz' is not a size (examples: 4096, 4k, 1m, 1g, 500mb)",
        ),
        (
            vec!["sweep", "--bs", "4k/50:8k/50"],
            "--bs: '4k/50:8k/50' is not valid: a sweep point has one block size",
        ),
        (
            vec!["sweep", "--qd", "1,0"],
            "--qd: '0' is not valid: must be between 1 and 4096",
        ),
        (
            vec!["suite", "io500", "--easy-transfer", "2q"],
            "--easy-transfer: '2q' is not a size",
        ),
        (
            vec!["suite", "io500", "--stonewall", "0"],
            "--stonewall: '0' is not valid: must be more than 0",
        ),
    ] {
        let out = kura(&db)
            .current_dir(dir.path())
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(msg), "{args:?}: expected '{msg}' in: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: one line: {stderr}");
    }
    assert!(!dir.path().join("kura-test.dat").exists());
}

/// The jobs of a run, as `--json` stores them, without their seeds.
fn stored_jobs(db: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let v = json(
        &kura(db)
            .current_dir(dir)
            .args(["--json"])
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let mut job = j["job"].clone();
            job["seed"] = serde_json::Value::Null;
            job
        })
        .collect()
}

#[test]
fn tiobench_old_flag_names_make_the_same_jobs() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let d = dir.path().to_str().unwrap();
    let common = ["--threads", "2", "--random-ops", "100"];
    let old = stored_jobs(
        &db,
        dir.path(),
        &[
            &["suite", "tiobench", d, "--block", "8k", "--file-size", "1m"][..],
            &common,
        ]
        .concat(),
    );
    let new = stored_jobs(
        &db,
        dir.path(),
        &[
            &["suite", "tiobench", d, "--bs", "8k", "--size", "1m"][..],
            &common,
        ]
        .concat(),
    );
    assert_eq!(old, new);
    assert_eq!(old[0]["bs"][0]["bytes"], 8192);
    assert_eq!(old[0]["size_bytes"], 1 << 20);
    assert_eq!(old[0]["direct"], false);
}

#[test]
fn mark_size_and_sweep_queue_depths_set_their_jobs() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let quick = ["--engine", "null", "--runtime", "50ms", "--size", "3m"];
    let mark = stored_jobs(
        &db,
        dir.path(),
        &[
            &["mark", "--profile", "demo", "--runs", "1", "--interval", "0s"][..],
            &quick,
        ]
        .concat(),
    );
    assert!(
        mark.iter()
            .all(|j| j["size_bytes"] == 3 << 20 && j["engine"] == "null")
    );
    let sweep = stored_jobs(
        &db,
        dir.path(),
        &[
            &["sweep", "--bs", "4k", "--read-pct", "100", "--qd", "1,4"][..],
            &quick,
        ]
        .concat(),
    );
    let points: Vec<(&str, u64)> = sweep
        .iter()
        .map(|j| (j["name"].as_str().unwrap(), j["qd"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        points,
        [("bs=4k mix=100/0 qd=1 #1", 1), ("bs=4k mix=100/0 qd=4 #1", 4)]
    );
    assert!(
        sweep
            .iter()
            .all(|j| j["size_bytes"] == 3 << 20 && j["runtime_ns"] == 50_000_000)
    );
    // One queue depth is every point's, and the test names stay as they were.
    let one = stored_jobs(
        &db,
        dir.path(),
        &[
            &["sweep", "--bs", "4k", "--read-pct", "0", "--qd", "4"][..],
            &quick,
        ]
        .concat(),
    );
    assert_eq!(one[0]["name"], "bs=4k mix=0/100 #1");
    assert_eq!(one[0]["qd"], 4);
}

#[test]
fn tiobench_gives_each_thread_its_own_file_and_tiobench_columns() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .args(["--json", "suite", "tiobench"])
            .arg(dir.path())
            .args([
                "--threads",
                "3",
                "--file-size",
                "2m",
                "--random-ops",
                "100",
                "--runs",
                "2",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4 * 2);
    let seq_write = &jobs[0];
    assert_eq!(seq_write["test"], "Sequential Write");
    // Each of 3 threads writes its whole 2 MiB file once.
    assert_eq!(seq_write["write"]["bytes"], 3 * (2 << 20));
    // tiotest times fsync and close as part of each test, and keeps the page cache.
    for j in jobs {
        let writes = j["write"].is_object();
        assert_eq!(j["job"]["end_fsync"], writes, "{}", j["job"]["name"]);
        assert_eq!(j["syncs"], if writes { 3 } else { 0 }, "{}", j["job"]["name"]);
        assert_eq!(j["job"]["keep_cache"], true, "{}", j["job"]["name"]);
    }
    // --random-ops is for all threads, as tiobench.pl's --random: int(100 / 3) each.
    let random_read = &jobs[7];
    assert_eq!(random_read["test"], "Random Read");
    assert_eq!(random_read["read"]["ops"], 99);
    let rows = v["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["test"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "Sequential Write",
            "Random Write",
            "Sequential Read",
            "Random Read"
        ]
    );
    for r in rows {
        assert_eq!(r["runs"], 2);
        assert!(r["bytes_per_sec"].as_f64().unwrap() > 0.0);
        assert!(r["lat_max_ns"].as_u64().unwrap() as f64 >= r["lat_mean_ns"].as_f64().unwrap());
        assert_eq!(r["pct_over_10s"], 0.0);
    }
    // The per-thread files are gone afterwards.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("kura-tiobench"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // --wide: tiobench's own headers, and the runs column.
    let table = kura(&db)
        .args(["--wide", "show", "latest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    for needle in [
        "MiB/s",
        "CPU %",
        "runs",
        "avg lat ms",
        "max lat ms",
        "% >2 s",
        "% >10 s",
        "CPU eff",
        "Random Read",
        "Differs from tiotest on purpose",
    ] {
        assert!(table.contains(needle), "{needle} in {table}");
    }
}

#[test]
fn a_file_system_without_room_is_refused_before_writing() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    if !common::have("mount") {
        return;
    }
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    common::sh(&format!("mount -t tmpfs -o size=4m tmpfs {}", mnt.display()));
    let _m = common::Mount(mnt.clone());
    kura(&db)
        .current_dir(&mnt)
        .args(["mark", "--size", "64m", "--runs", "1", "--runtime", "100ms"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("free"));
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "nothing written");
}

#[test]
fn history_shows_the_figure_that_represents_the_run_and_names_it() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .current_dir(dir.path())
            .args(["--json", "mark", "--engine", "null", "--profile", "peak"])
            .args([
                "--runs",
                "3",
                "--runtime",
                "100ms",
                "--size",
                "8m",
                "--interval",
                "0s",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let best = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["test"] == "SEQ1M Q8T1" && j["read"].is_object())
        .map(|j| j["read"]["bytes_per_sec"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let h = json(
        &kura(&db)
            .args(["--json", "history"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["runs"]
        .clone();
    assert_eq!(h[0]["figure"], "SEQ1M Q8T1 read, best of 3");
    assert_eq!(h[0]["bytes_per_sec"].as_f64().unwrap(), best);
    let table = kura(&db)
        .args(["--wide", "history"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&table).contains("SEQ1M Q8T1 read, best of 3"));
    // The help's own example: a suite's family finds its runs (stored as `mark:peak`).
    let found = json(
        &kura(&db)
            .args(["--json", "history", "--suite", "mark"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(found["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(found["runs"][0]["suite"], "mark:peak");
    // The full name still finds it; `mark:pea` is not a family and finds nothing.
    for (suite, n) in [("mark:peak", 1), ("mark:pea", 0)] {
        let v = json(
            &kura(&db)
                .args(["--json", "history", "--suite", suite])
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        assert_eq!(v["runs"].as_array().map(Vec::len), Some(n), "{suite}");
    }
    // A filter that matches nothing says so, and what is stored.
    kura(&db)
        .args(["history", "--suite", "mar"])
        .assert()
        .success()
        .stdout("no runs match --suite mar; 1 run is stored: mark:peak (1)\n");
}

/// `kura mark /mnt/nas`, as the README says it: a directory means a test file in it.
#[test]
fn mark_of_a_directory_measures_a_test_file_in_it_and_removes_it() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let nas = dir.path().join("nas");
    std::fs::create_dir(&nas).unwrap();
    let out = common::cmd::kura_loud(&db)
        .arg("mark")
        .arg(&nas)
        .args(["--profile", "demo", "--runs", "1", "--runtime", "100ms"])
        .args(["--size", "4m", "--interval", "0s"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let file = nas.join("kura-test.dat");
    assert!(
        stdout.contains(&format!("{}: 4.0 MiB file", file.display())),
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("test file"),
        "the note says where"
    );
    assert!(!file.exists(), "the test file is removed");
    assert_eq!(std::fs::read_dir(&nas).unwrap().count(), 0);
}

/// Without --size, an existing test file smaller than the default is used whole, untouched.
#[test]
fn mark_and_sweep_use_an_existing_smaller_file_at_its_own_size() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("old-test.dat");
    let data: Vec<u8> = (0..(4u32 << 20))
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&file, &data).unwrap();
    for verb in [
        vec!["mark", "--profile", "demo", "--interval", "0s"],
        vec!["sweep", "--bs", "4k", "--read-pct", "100"],
    ] {
        let out = common::cmd::kura_loud(&db)
            .arg("--json")
            .args(&verb)
            .arg(&file)
            .args(["--runs", "1", "--runtime", "100ms"])
            .args(["--allow-destroy", file.to_str().unwrap()])
            .assert()
            .success()
            .get_output()
            .clone();
        let v = json(&out.stdout);
        assert_eq!(v["jobs"][0]["job"]["size_bytes"], 4 << 20, "{verb:?}");
        // The note is wrapped at 80 columns: read it as words.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stderr = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            stderr.contains("smaller than the default --size 1g: measuring all of it"),
            "{verb:?}: {stderr}"
        );
        assert!(file.exists(), "the user's file stays");
    }
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 4 << 20, "not resized");
}

/// tiobench.pl's `--threads 1 --threads 2`: one stored run, tiotest's four
/// tests for each count in turn, printed as tiobench.pl prints them (a
/// table per test, reads first, a row per count).
#[test]
fn tiobench_over_a_thread_list_stores_one_run_in_tiobench_pl_order() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .args(["--json", "suite", "tiobench"])
            .arg(dir.path())
            .args(["--threads", "1,2", "--size", "1m", "--random-ops", "40"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = v["jobs"].as_array().unwrap();
    let tests: Vec<(&str, u64)> = jobs
        .iter()
        .map(|j| (j["test"].as_str().unwrap(), j["job"]["threads"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        tests,
        [
            ("Sequential Write threads=1", 1),
            ("Random Write threads=1", 1),
            ("Sequential Read threads=1", 1),
            ("Random Read threads=1", 1),
            ("Sequential Write threads=2", 2),
            ("Random Write threads=2", 2),
            ("Sequential Read threads=2", 2),
            ("Random Read threads=2", 2),
        ]
    );
    // Each count shares --random-ops as tiobench.pl does: int(40 / 2) per thread.
    assert_eq!(jobs[7]["read"]["ops"], 40);
    assert_eq!(jobs[4]["write"]["bytes"], 2 * (1 << 20));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    assert_eq!(rows[5]["threads"], 2);
    let table = kura(&db)
        .args(["show", "latest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    assert!(table.contains("1, 2 threads"), "{table}");
    let titles: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("Sequential ") || l.starts_with("Random "))
        .collect();
    assert_eq!(
        titles,
        [
            "Sequential Read",
            "Random Read",
            "Sequential Write",
            "Random Write"
        ],
        "{table}"
    );
    for line in table.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
}

/// Seed 2's one command: two sweeps compared by block size print, per mix,
/// each target's IOPS and MiB/s, the ratio and the ratio per price, in 80
/// columns; the CSV keeps both figures on every line.
#[test]
fn two_sweeps_compared_by_block_size_give_seed_2s_table() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (label, price) in [("HDD", "659.46 JPY/month"), ("SSD", "1,075.20 JPY/month")] {
        kura(&db)
            .current_dir(dir.path())
            .args(["sweep", "--engine", "null", "--bs", "4k,64k"])
            .args(["--read-pct", "100,50,0", "--runtime", "100ms", "--size", "16m"])
            .args(["--label", label, "--price", price])
            .assert()
            .success();
    }
    let table = kura(&db)
        .args(["compare", "HDD", "SSD", "--metric", "iops", "--by", "bs"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8_lossy(&table);
    // The mixes' tables; the targets' grid above them is compare's own.
    let mixes = &table[table.find("random, read").unwrap_or(0)..];
    for line in mixes.lines() {
        assert!(line.chars().count() <= 80, "{line}\n{table}");
    }
    // Headings fold between their words to fit 80 columns.
    for needle in ["HDD", "IOPS", "MiB/s", "SSD/HDD", "per JPY", "random, 50 % read"] {
        assert!(table.contains(needle), "{needle}:\n{table}");
    }
    // One row per block size in every mix: the 50/50 point by its reads and writes together.
    let rows = table
        .lines()
        .filter(|l| l.trim_start().starts_with("4k "))
        .count();
    assert_eq!(rows, 3, "{table}");
    let md = kura(&db)
        .args(["compare", "HDD", "SSD", "--by", "bs", "--format", "markdown"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8_lossy(&md);
    assert!(
        md.contains("| block size | HDD IOPS | HDD MiB/s | SSD IOPS | SSD MiB/s | SSD/HDD |"),
        "{md}"
    );
    let csv = kura(&db)
        .args(["compare", "HDD", "SSD", "--by", "bs", "--format", "csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = String::from_utf8_lossy(&csv);
    // The article's wide table, a line per mix and block size (JSON keeps compare's rows).
    assert!(
        csv.starts_with("mix,block size,HDD IOPS,HDD MiB/s,SSD IOPS,SSD MiB/s,SSD/HDD,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
}

/// The memory cgroup kura runs in (v1), where its capped groups are made.
fn memory_home() -> Option<std::path::PathBuf> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = text
        .lines()
        .find_map(|l| l.split_once(":memory:").map(|(_, p)| p.to_string()))?;
    let dir = std::path::Path::new("/sys/fs/cgroup/memory").join(path.trim_start_matches('/'));
    dir.join("memory.limit_in_bytes").exists().then_some(dir)
}

/// Runs kura with `args`, watching whether it entered a capped group of its
/// own while it measured; returns the printed run once the group is gone.
fn run_capped(db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let home = memory_home().unwrap();
    let mut child = common::cmd::child(db)
        .arg("--json")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let group = format!("kura-mem-{pid}-");
    // Every capped group kura was seen in: one for the whole run, as one
    // boot with mem=512M caps every test of tiotest or bonnie++.
    let mut seen = std::collections::BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
        seen.extend(
            cgroup
                .lines()
                .filter(|l| l.contains(":memory:") && l.contains(&group))
                .map(|l| l.rsplit('/').next().unwrap_or(l).to_string()),
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!seen.is_empty(), "{args:?}: kura never entered its capped group");
    assert_eq!(
        seen.len(),
        1,
        "{args:?}: one capped group for the run, not one per test: {seen:?}"
    );
    let left: Vec<String> = std::fs::read_dir(&home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&group))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    json(&out.stdout)
}

/// Seed 5 booted with mem=512M; `--mem-limit` stands for it on tiobench and
/// bonnie as on `kura run`: each measures inside one capped group for the
/// whole run (a test finds the pages the one before it left, under the
/// cap), stores the cap with its jobs, and its page-cache warning speaks of
/// the cap.
#[test]
fn tiobench_and_bonnie_measure_inside_the_capped_group() {
    if memory_home().is_none() {
        common::missing("cgroup v1 memory");
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let d = dir.path().to_str().unwrap();
    let tiobench = run_capped(
        &db,
        &[
            "suite",
            "tiobench",
            d,
            "--threads",
            "2",
            "--size",
            "4m",
            "--random-ops",
            "200",
            "--mem-limit",
            "64m",
        ],
    );
    let bonnie = run_capped(
        &db,
        &[
            "suite",
            "bonnie",
            d,
            "--size",
            "8m",
            "--files",
            "0",
            "--char-size",
            "0",
            "--mem-limit",
            "64m",
        ],
    );
    for v in [&tiobench, &bonnie] {
        let jobs = v["jobs"].as_array().unwrap();
        assert!(!jobs.is_empty());
        for j in jobs {
            assert_eq!(j["job"]["mem_limit_bytes"], 64 << 20, "{}", j["job"]["name"]);
        }
        let warnings = v["warnings"].to_string();
        assert!(
            warnings.contains("page_cache_holds_data_under_limit"),
            "{warnings}"
        );
        assert!(!warnings.contains("bonnie_file_cached"), "{warnings}");
        // The header says the run was capped, and by how much.
        let id = v["id"].to_string();
        let shown = kura(&db)
            .args(["show", &id])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        // Wrapped at 80 columns: read it as words.
        let words = String::from_utf8_lossy(&shown)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            words.contains("memory capped at 64.0 MiB (--mem-limit)"),
            "{words}"
        );
    }
    // Without --size, bonnie++ takes twice the memory it sees: under a cap, twice the cap.
    let out = kura(&db)
        .args([
            "--json",
            "suite",
            "bonnie",
            d,
            "--files",
            "0",
            "--mem-limit",
            "16m",
        ])
        .args(["--char-size", "0"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&out)["jobs"][0]["job"]["size_bytes"], 32 << 20);
}

/// Issue 35: under `--mem-limit`, tiobench's random write leaves its pages
/// scattered through files the cap could not keep whole, and the
/// sequential read after it reads around each (readahead stops at a cached
/// page): the device gets small reads, which an IOPS-limited disk caps.
/// kura counts the cached pages (mincore) as the read starts and says so,
/// with the gaps' size; a few random writes leave too few to matter.
#[test]
fn a_sequential_read_over_scattered_cached_pages_is_flagged() {
    if memory_home().is_none() {
        common::missing("cgroup v1 memory");
        return;
    }
    if !common::need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    // ext4 on a loop device: a disk's page cache, files bigger than the cap.
    let dev = common::LoopDevice::sized(512 << 20);
    dev.mkfs_ext4();
    let mnt = common::TempMount::new(&[], &dev.path);
    let db = mnt.dir.path().join("k.db");
    let scattered = |random_ops: &str| {
        let d = mnt.dir.path().join(format!("ops-{random_ops}"));
        std::fs::create_dir(&d).unwrap();
        let v = run_capped(
            &db,
            &[
                "suite",
                "tiobench",
                d.to_str().unwrap(),
                "--threads",
                "2",
                "--size",
                "64m",
                "--random-ops",
                random_ops,
                "--mem-limit",
                "64m",
            ],
        );
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["kind"] == "scattered_cache")
            .cloned()
    };
    let w = scattered("2000").expect("the sequential read over the random write's pages is flagged");
    assert_eq!(w["job"], "Sequential Read #1", "{w}");
    assert_eq!(w["files"], 2, "{w}");
    assert!(w["runs"].as_u64().unwrap() >= 64, "{w}");
    assert!(
        w["gap_bytes"].as_u64().unwrap() < w["readahead_bytes"].as_u64().unwrap(),
        "{w}"
    );
    assert!(
        w["text"]
            .as_str()
            .unwrap()
            .contains("readahead reads around each"),
        "{w}"
    );
    assert_eq!(
        scattered("20"),
        None,
        "20 random writes leave too few pages to matter"
    );
}

/// Issue 35: one run, one figure in every view. `history` added up each
/// operation's own rate (an mdtest run: 1,522,708 IOPS where `show` said
/// 32,988 ops/s) and took tiobench's best repetition (5,293 MB/s where
/// `show` said 2,303.1 MiB/s); the figure is now what `show` gives, and
/// the HTML report's list of runs says the same.
#[test]
fn one_run_one_figure_in_history_show_and_the_report() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    kura(&db)
        .args(["run", "--target"])
        .arg(&set)
        .args([
            "--mix",
            "mdtest",
            "--depth",
            "0",
            "--files",
            "300",
            "--file-size",
            "0",
        ])
        .assert()
        .success();
    let tio = dir.path().join("tio");
    std::fs::create_dir(&tio).unwrap();
    kura(&db)
        .args(["suite", "tiobench"])
        .arg(&tio)
        .args([
            "--file-size",
            "2m",
            "--random-ops",
            "100",
            "--threads",
            "1",
            "--runs",
            "2",
        ])
        .assert()
        .success();
    let out = |args: &[&str]| {
        kura(&db)
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let history = json(&out(&["--json", "history"]));
    let listed = |id: i64| {
        history["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap()
    };

    // The file set: every operation over the job's measured time, `show`'s "all" row.
    let run = json(&out(&["--json", "show", "1"]));
    let job = &run["jobs"][0];
    let ops: f64 = job["operations"]
        .as_object()
        .unwrap()
        .values()
        .chain(job["read"].as_object().map(|_| &job["read"]))
        .map(|d| d["ops"].as_f64().unwrap())
        .sum();
    let all = ops / (job["elapsed_ns"].as_f64().unwrap() / 1e9);
    let iops = listed(1)["iops"].as_f64().unwrap();
    assert!((iops - all).abs() <= 1e-6 * all, "history {iops} vs show {all}");
    let shown = String::from_utf8(out(&["show", "1"])).unwrap();
    let row = shown
        .lines()
        .find(|l| l.trim_start().starts_with("all "))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(
        row.contains(&format!(" {} ", kura::report::format::rate(all))),
        "{row}"
    );

    // tiobench: its table's rate of the sequential read, both repetitions together.
    let run = json(&out(&["--json", "show", "2"]));
    let seq = run["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["test"] == "Sequential Read")
        .cloned()
        .unwrap_or_else(|| panic!("{run}"));
    assert_eq!(seq["runs"], 2);
    let table = seq["bytes_per_sec"].as_f64().unwrap();
    let listed_bps = listed(2)["bytes_per_sec"].as_f64().unwrap();
    assert!(
        (listed_bps - table).abs() <= 1e-6 * table,
        "history {listed_bps} vs show {table}"
    );
    let figure = listed(2)["figure"].as_str().unwrap().to_string();
    assert!(figure.starts_with("Sequential Read, 2 runs together"), "{figure}");

    // The HTML report's list of runs: the same figure.
    let page = dir.path().join("r.html");
    kura(&db)
        .args(["report", "1", "2", "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(&format!(">{}<", kura::report::format::rate(all))),
        "file set's IOPS"
    );
    assert!(html.contains(&figure), "{figure}");
}
