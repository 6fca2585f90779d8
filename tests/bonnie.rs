//! `kura suite bonnie` on real files: every test stored with positive rates,
//! one-byte calls counted by the kernel, bonnie++'s CSV, refusals, Ctrl-C.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::{json, kura, tmp};
use kura::bonnie::thread_io_counters;
use kura::jobs::bonnie_params::{self, BonnieSettings, Test};
use kura::runner;
use predicates::prelude::*;

/// What bonnie++ 2.00a printed here for `-s 16 -n 1 -r 0`: the layout kura's line must match.
const BONNIE_2_00A_LINE: &str = "1.98,2.00a,refhost,1,1795317187,16M,,8192,5,2334,96,+++++,+++,+++++,+++,\
4056,99,+++++,+++,+++++,+++,1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,9455us,77us,\
106us,4629us,107us,7995us,167us,53us,251us,539us,54us,20us";

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("kura-bonnie"))
        .collect()
}

#[test]
fn every_test_runs_is_stored_and_prints_like_bonnie() {
    let dir = tmp();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["suite", "bonnie"])
        .arg(&work)
        .args(["--size", "1m", "--files", "1", "--csv", "--label", "disk a,b"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    for needle in [
        "------Sequential Output------ --Sequential Input- --Random-",
        "-Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--",
        "Name:Size etc        /sec %CP",
        "------Sequential Create------ --------Random Create--------",
        "-Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--",
        "              files  /sec %CP",
        "Latency          ",
        "disk a b         1M",
        "measure memory",
    ] {
        assert!(text.contains(needle), "{needle} in\n{text}");
    }
    // The CSV line comes last, in bonnie++ 2.00a's layout.
    let csv = text.lines().last().unwrap();
    let fields: Vec<&str> = csv.split(',').collect();
    let reference: Vec<&str> = BONNIE_2_00A_LINE.split(',').collect();
    assert_eq!(fields.len(), Test::ALL.len() * 3 + 14);
    assert_eq!(fields.len(), reference.len(), "{csv}");
    assert_eq!(fields[0], "1.98");
    assert_eq!(
        (fields[2], fields[3], fields[5], fields[6]),
        ("disk a b", "1", "1M", "")
    );
    assert_eq!((fields[7], fields[8]), ("8192", "5"));
    assert_eq!(fields[21], "1", "thousands of files");
    for latency in &fields[38..] {
        assert!(
            latency.ends_with("us") || latency.ends_with("ms"),
            "{latency} in {csv}"
        );
    }
    assert!(leftovers(&work).is_empty(), "{:?}", leftovers(&work));

    let v = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["suite"], "bonnie");
    assert_eq!(v["incomplete"], false);
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["test"].as_str().unwrap()).collect();
    let all: Vec<&str> = Test::ALL.iter().map(|t| t.name()).collect();
    assert_eq!(names, all);
    let per_char = &jobs[0];
    assert_eq!(per_char["job"]["bs"][0]["bytes"], 1);
    // bonnie++ times a chunk's worth of one-byte calls at once: one operation per chunk.
    assert_eq!(
        per_char["write"]["ops"], 128,
        "1 MiB of one-byte calls, timed per 8 KiB"
    );
    assert_eq!(per_char["write"]["bytes"], 1 << 20);
    assert_eq!(jobs[1]["write"]["ops"], 128, "1 MiB in 8 KiB blocks");
    assert_eq!(jobs[3]["read"]["ops"], 128);
    let seeks = &jobs[5];
    assert_eq!(seeks["read"]["ops"], 8192);
    assert_eq!(seeks["job"]["threads"], 5);
    let rewrites = seeks["write"]["ops"].as_u64().unwrap();
    assert!(
        (600..1050).contains(&rewrites),
        "about one seek in ten rewrites: {rewrites}"
    );
    for (job, counted) in jobs[6..]
        .iter()
        .zip(["create", "stat", "delete", "create", "stat", "delete"])
    {
        assert_eq!(job["operations"][counted]["ops"], 1024, "{}", job["test"]);
        assert!(job["read"].is_null() && job["write"].is_null(), "{job}");
        assert_eq!(job["job"]["workload"]["bonnie"]["test"], job["test"]);
        assert_eq!(job["job"]["workload"]["bonnie"]["files"], 1024);
    }
    assert_eq!(seeks["job"]["workload"]["bonnie"]["seekers"], 5);
    assert_eq!(seeks["job"]["workload"]["bonnie"]["repetition"], 1);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        assert!(r["rate"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["lat_max_ns"].as_u64().unwrap() > 0, "{r}");
        assert!(r["cpu_pct"].as_f64().unwrap() >= 0.0, "{r}");
        assert_eq!(r["runs"], 1);
    }
    assert_eq!(rows[0]["unit"], "K/sec");
    assert_eq!(rows[5]["unit"], "/sec");
}

#[test]
fn per_char_tests_make_one_system_call_per_byte() {
    let dir = tmp();
    let cfg = BonnieSettings::new(dir.path().to_path_buf(), 1 << 20, 8192, 0);
    let stop = Arc::new(AtomicBool::new(false));
    // The I/O tests run on this thread (the seekers have their own), so this
    // thread's counters in /proc hold exactly the calls kura made.
    let jobs: Vec<runner::SuiteJob> = cfg
        .jobs(1)
        .into_iter()
        .map(|t| runner::SuiteJob {
            test: Some(t.test.to_string()),
            job: t.job,
            rounds: None,
        })
        .collect();
    let opts = runner::RunOptions {
        quiet: true,
        ..Default::default()
    };
    let before = thread_io_counters().unwrap();
    let run = runner::run_suite(&jobs, &opts, &stop, &mut runner::NoSink).unwrap();
    let after = thread_io_counters().unwrap();
    let delta = |k: &str| after[k] - before[k];
    let job = |t: Test| {
        run.jobs
            .iter()
            .find(|j| j.test.as_deref() == Some(t.name()))
            .unwrap()
    };
    let put_char = job(Test::PutChar).write.as_ref().unwrap();
    assert_eq!((put_char.ops, put_char.bytes), (128, 1 << 20));
    // One write(2) per byte; bonnie++'s latency unit is a chunk's worth of them.
    let writes = put_char.bytes
        + job(Test::PutBlock).write.as_ref().unwrap().ops
        + job(Test::Rewrite).write.as_ref().unwrap().ops;
    // One more write: the seek test's tickets, 4 bytes per seek and per seeker, into a pipe.
    assert_eq!(delta("syscw"), writes + 1, "write(2) calls the kernel counted");
    assert_eq!(
        delta("wchar"),
        (3 << 20) + 4 * (8192 + 5),
        "bytes the kernel counted as written"
    );
    let get_char = job(Test::GetChar).read.as_ref().unwrap();
    assert_eq!((get_char.ops, get_char.bytes), (128, 1 << 20));
    let reads = get_char.bytes
        + job(Test::GetBlock).read.as_ref().unwrap().ops
        + job(Test::Rewrite).read.as_ref().unwrap().ops;
    // The rest are kura reading /proc and /sys for the facts of the target.
    let other_reads = delta("syscr") - reads;
    assert!(other_reads < 2000, "{other_reads} reads besides the tests");
    assert!(!run.incomplete);
    assert!(leftovers(dir.path()).is_empty());
}

/// Seekers take their work as bonnie++'s do: one 4-byte ticket per seek from
/// a shared pipe, then one end mark each (bon_io.cpp, `CFileOp::action`).
#[test]
fn seekers_take_tickets_from_a_pipe_as_bonnie_does() {
    if !common::have("strace") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let log = dir.path().join("strace.log");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // --seccomp-bpf stops kura only at reads, not at the million per-char
    // writes too: minutes under plain ptrace on a loaded machine.
    let out = Command::new("strace")
        .args([
            "--seccomp-bpf",
            "-f",
            "-qq",
            "-e",
            "trace=read",
            "-e",
            "signal=none",
            "-o",
        ])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("kura"))
        .arg("--db")
        .arg(&db)
        .args(["--quiet", "suite", "bonnie"])
        .arg(&work)
        // No per-char tests (bonnie++ -f): their million one-byte reads,
        // each a stop under strace, took two minutes here.
        .args(["--size", "1m", "--files", "0", "--char-size", "0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    // strace pads the result column: `read(12, "\261\351\240\f", 4)     = 4`.
    let tickets = text
        .lines()
        .filter(|l| {
            l.rsplit_once(", 4)")
                .is_some_and(|(_, rest)| rest.trim() == "= 4")
        })
        .count();
    assert_eq!(tickets, 8192 + 5, "a ticket per seek and an end mark per seeker");
}

#[test]
fn bonnies_own_tools_read_the_csv() {
    if !common::have("bon_csv2txt") || !common::have("bon_csv2html") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let v = json(
        &kura(&db)
            .args(["--json", "suite", "bonnie"])
            .arg(dir.path())
            .args([
                "--size", "2m", "--files", "0", "--chunk", "4k", "--csv", "--runs", "2",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let lines: Vec<&str> = v["csv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one line per run");
    for line in &lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 50);
        assert_eq!((f[5], f[6]), ("2M", "4k"));
        assert!(f[21..38].iter().all(|x| x.is_empty()), "no file tests: {line}");
    }
    let input = lines.join("\n") + "\n";
    for (tool, expect) in [("bon_csv2txt", "2M:4k"), ("bon_csv2html", "<td")] {
        let mut child = Command::new(tool)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(stderr.is_empty(), "{tool} complained: {stderr}");
        assert!(stdout.contains(expect), "{tool}: {stdout}");
    }
    assert_eq!(v["rows"][0]["runs"], 2);
}

#[test]
fn a_directory_without_room_is_refused_before_writing() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    if !common::have("mount") {
        return;
    }
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    common::sh(&format!("mount -t tmpfs -o size=4m tmpfs {}", mnt.display()));
    let _m = common::Mount(mnt.clone());
    for size in [&["--size", "64m"][..], &[]] {
        let out = kura(&db)
            .args(["suite", "bonnie"])
            .arg(&mnt)
            .args(size)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "but only 4.0 MiB (4194304 bytes) is free",
            ))
            .get_output()
            .stderr
            .clone();
        assert_eq!(String::from_utf8_lossy(&out).trim().lines().count(), 1);
    }
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "nothing written");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    std::fs::write(dir.path().join("w").join(bonnie_params::DATA_FILE), b"mine").unwrap();
    let d = dir.path().to_str().unwrap();
    let w = dir.path().join("w");
    let w = w.to_str().unwrap();
    for (args, msg) in [
        (vec![d, "--chunk", "3k"], "--chunk: '3k' is not valid"),
        (vec![d, "--chunk", "128"], "power of two from 256 bytes to 1m"),
        (vec![d, "--files", "x"], "--files: 'x' is not valid"),
        (vec![d, "--files", "2000"], "from 0 to 1024"),
        (vec![d, "--size", "1500k"], "--size: '1500k' is not valid"),
        (vec![d, "--size", "1q"], "--size: '1q' is not a size"),
        (vec![d, "--size", "0", "--files", "0"], "no test to run"),
        (vec![d, "--char-size", "1k"], "--char-size: '1k' is not valid"),
        (vec![d, "--char-size", "x"], "--char-size: 'x'"),
        (vec![d, "--runs", "0"], "--runs: '0' is not valid"),
        (vec![file.to_str().unwrap()], "is not a directory"),
        (vec!["/nonexistent/dir"], "No such file"),
        (vec![w, "--size", "1m"], "already exists"),
        (
            vec![d, "--allow-destroy", "/dev/vda"],
            "--allow-destroy does not apply",
        ),
    ] {
        let out = kura(&db)
            .args(["suite", "bonnie"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg))
            .get_output()
            .stderr
            .clone();
        assert_eq!(
            String::from_utf8_lossy(&out).trim().lines().count(),
            1,
            "{args:?}"
        );
    }
    assert_eq!(
        std::fs::read(dir.path().join("w").join(bonnie_params::DATA_FILE)).unwrap(),
        b"mine"
    );
}

#[test]
fn sigint_keeps_what_was_measured_and_removes_the_files() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join(bonnie_params::DATA_FILE);
    // Ctrl-C in the first test, once it has written 8 chunks of its new file
    // one byte at a time: it counts an operation a chunk.
    let out = bonnie_64m(&db, dir.path())
        .wait_for_file(&data, 64 << 10)
        .signal(libc::SIGINT)
        .finish();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["incomplete"], true);
    let jobs = v["jobs"].as_array().unwrap();
    assert!(!jobs.is_empty() && jobs.len() < 12, "{} tests ran", jobs.len());
    let last = jobs.last().unwrap();
    assert_eq!(last["incomplete"], true);
    let ops = |d: &serde_json::Value| d["ops"].as_u64().unwrap_or(0);
    let file_ops: u64 = last["operations"]
        .as_object()
        .map(|m| m.values().map(ops).sum())
        .unwrap_or(0);
    assert!(ops(&last["read"]) + ops(&last["write"]) + file_ops > 0);
    assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
    let stored = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true);
    assert_eq!(stored["jobs"].as_array().unwrap().len(), jobs.len());
}

/// `kura --json suite bonnie DIR --size 64m --files 4` in the background.
fn bonnie_64m(db: &Path, dir: &Path) -> common::Running {
    common::Running::start(
        common::kura_command(db)
            .args(["--json", "suite", "bonnie"])
            .arg(dir)
            .args(["--size", "64m", "--files", "4"]),
    )
}

/// bonnie's tests are jobs of the one runner, stored as each ends: while the
/// run goes on, the database already holds the tests that finished.
#[test]
fn each_test_is_stored_as_it_ends() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    // The run goes on (a test that ends it panics `wait_for`) while a finished test is stored.
    let out = bonnie_64m(&db, dir.path())
        .wait_for_finished_jobs(&db, 1)
        .signal(libc::SIGINT)
        .finish();
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr_of(&out));
    assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
}

/// `--char-size` is bonnie++'s `-f SIZE`: the per-char tests move that many
/// bytes; 0 leaves them out (bonnie++'s `-f`), blank in the table and CSV.
#[test]
fn char_size_sets_or_skips_the_per_char_tests() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let run = |char_size: &str| {
        json(
            &kura(&db)
                .args(["--json", "suite", "bonnie"])
                .arg(dir.path())
                .args(["--size", "4m", "--files", "0", "--char-size", char_size])
                .assert()
                .success()
                .get_output()
                .stdout
                .clone(),
        )
    };
    let tests = |v: &serde_json::Value| -> Vec<String> {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["test"].as_str().unwrap().to_string())
            .collect()
    };
    let two = run("2m");
    let put = two["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["test"] == Test::PutChar.name())
        .unwrap();
    assert_eq!(put["write"]["bytes"], 2 << 20, "2 MiB one byte at a time");
    let none = run("0");
    let names = tests(&none);
    assert!(!names.contains(&Test::PutChar.name().to_string()), "{names:?}");
    assert!(!names.contains(&Test::GetChar.name().to_string()), "{names:?}");
    assert!(names.contains(&Test::PutBlock.name().to_string()), "{names:?}");
    let out = kura(&db)
        .args(["suite", "bonnie"])
        .arg(dir.path())
        .args(["--size", "4m", "--files", "0", "--char-size", "0", "--csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out).to_string();
    // bonnie++'s CSV after -f: the per-char fields (rate and %CPU, output
    // and input, and their latencies) are empty; the block ones are not.
    let fields: Vec<&str> = text.lines().last().unwrap().split(',').collect();
    assert_eq!(fields.len(), Test::ALL.len() * 3 + 14, "{text}");
    for i in [9, 10, 15, 16, 38, 41] {
        assert_eq!(fields[i], "", "field {i} in {text}");
    }
    for i in [11, 17, 39, 42] {
        assert_ne!(fields[i], "", "field {i} in {text}");
    }
}
