//! The hot loop through the real binary, on real files and devices: every
//! completion is counted, buffered I/O runs on the engine applications use,
//! the seed repeats a run, measured time stops at the runtime, and a think
//! time wakes for Ctrl-C.

mod common;

use common::tmp;

use std::path::Path;

use serde_json::Value;

fn run_json(db: &Path, args: &[&str]) -> Value {
    let out = common::kura(db)
        .arg("--json")
        .arg("run")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    common::json(&out)
}

fn zero_file(path: &Path, bytes: u64) {
    std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
}

#[test]
fn fsync_every_8_at_qd_16_counts_every_write() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("f.dat");
    let target = target.to_str().unwrap();
    for engine in ["io_uring", "sync"] {
        let v = run_json(
            &db,
            &[
                "--target",
                target,
                "--size",
                "16m",
                "--rw",
                "write",
                "--bs",
                "4k",
                "--qd",
                "16",
                "--io-count",
                "20000",
                "--buffered",
                "--fsync-every",
                "8",
                "--engine",
                engine,
            ],
        );
        let job = &v["jobs"][0];
        assert_eq!(job["engine"], engine);
        assert_eq!(
            job["write"]["ops"], 20000,
            "{engine}: every write completed is counted"
        );
        assert_eq!(job["write"]["bytes"], 20000 * 4096);
        assert_eq!(job["syncs"], 20000 / 8, "{engine}: one fdatasync per 8 writes");
    }
}

#[test]
fn buffered_jobs_run_on_the_sync_engine_unless_one_is_named() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("f.dat");
    let target = target.to_str().unwrap();
    let common = [
        "--target",
        target,
        "--size",
        "4m",
        "--rw",
        "randwrite",
        "--io-count",
        "200",
    ];
    let v = run_json(&db, &[&common[..], &["--buffered", "--qd", "8"]].concat());
    let job = &v["jobs"][0];
    assert_eq!(job["engine"], "sync");
    assert_eq!(
        job["job"]["engine"], "sync",
        "the stored job names the engine that ran"
    );
    assert_eq!(job["job"]["qd"], 1);
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("sync engine"), "{warnings}");

    let v = run_json(
        &db,
        &[&common[..], &["--buffered", "--engine", "io_uring"]].concat(),
    );
    assert_eq!(v["jobs"][0]["engine"], "io_uring");
    let v = run_json(&db, &common);
    assert_eq!(v["jobs"][0]["engine"], "io_uring", "direct I/O keeps io_uring");

    // The terminal header says which engine ran.
    let out = common::kura(&db)
        .arg("run")
        .args(common)
        .arg("--buffered")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("engine sync"), "{text}");
}

/// Runs a random-write job with `seed` into a fresh zeroed file and returns the file's bytes.
fn written_with_seed(dir: &Path, name: &str, seed: Option<&str>) -> (Vec<u8>, u64) {
    let db = dir.join("k.db");
    let target = dir.join(name);
    zero_file(&target, 4 << 20);
    let mut args = vec![
        "--target",
        target.to_str().unwrap(),
        "--size",
        "4m",
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--io-count",
        "64",
    ];
    if let Some(seed) = seed {
        args.extend(["--seed", seed]);
    }
    let v = run_json(&db, &args);
    let stored = v["jobs"][0]["job"]["seed"]
        .as_u64()
        .expect("the resolved job stores its seed");
    (std::fs::read(&target).unwrap(), stored)
}

#[test]
fn the_same_seed_writes_the_same_blocks_with_the_same_data() {
    let dir = tmp();
    let (a, seed_a) = written_with_seed(dir.path(), "a.dat", Some("42"));
    let (b, seed_b) = written_with_seed(dir.path(), "b.dat", Some("42"));
    let (c, _) = written_with_seed(dir.path(), "c.dat", Some("43"));
    assert_eq!((seed_a, seed_b), (42, 42));
    assert!(a.iter().any(|x| *x != 0), "the job wrote something");
    assert!(a == b, "seed 42 twice: the same offsets and data");
    assert!(a != c, "another seed: other offsets or data");
    // Without --seed one is picked, stored, and repeats the run when given back.
    let (d, picked) = written_with_seed(dir.path(), "d.dat", None);
    let (e, _) = written_with_seed(dir.path(), "e.dat", Some(&picked.to_string()));
    assert!(d == e, "the stored seed {picked} repeats the run");
}

#[test]
fn an_io_finishing_after_the_deadline_does_not_stretch_the_measured_time() {
    let dir = tmp();
    let Some(dev) = common::LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    let Some(cg) = common::Cgroup::blkio("straggler") else {
        return;
    };
    let majmin = common::sh(&format!("lsblk -dno MAJ:MIN {}", dev.path.display()));
    // Three reads a second at qd 4: reads are always in flight when the 1 s deadline passes.
    std::fs::write(
        cg.0.join("blkio.throttle.read_iops_device"),
        format!("{} 3", majmin.trim()),
    )
    .unwrap();
    let db = dir.path().join("k.db");
    let target = dev.path.display().to_string();
    let out = common::kura_in(
        &cg,
        &db,
        &format!("run --target {target} --rw randread --qd 4 --runtime 1s"),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = common::json(&out.stdout);
    let job = &v["jobs"][0];
    let runtime_ns = 1_000_000_000u64;
    assert_eq!(
        job["elapsed_ns"].as_u64(),
        Some(runtime_ns),
        "measured time is the runtime"
    );
    let ops = job["read"]["ops"].as_u64().unwrap();
    let iops = job["read"]["iops"].as_f64().unwrap();
    assert!(
        (iops - ops as f64).abs() < 1e-6,
        "rates are over the runtime: {iops} for {ops} ops"
    );
    assert!(job["read"]["lat_ns"]["max"].as_u64().unwrap() <= runtime_ns);
}

#[test]
fn ctrl_c_ends_a_think_time_and_keeps_the_run() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let jobs = dir.path().join("think.toml");
    std::fs::write(
        &jobs,
        "[[job]]\nname = \"thinker\"\nengine = \"null\"\nruntime = \"10m\"\nthink_time = \"10m\"\n",
    )
    .unwrap();
    let running = common::Running::start(common::kura_command(&db).args(["--json", "run"]).arg(&jobs));
    // Its measuring thread issued its first I/O and fell asleep; then Ctrl-C.
    // A kura still asleep in its 10 minute think time fails `finish`'s deadline.
    let pid = running.pid();
    let out = running
        .wait_for("the thinker's thread to fall asleep", || {
            common::thread_asleep(pid, "kura-thinker-0")
        })
        .signal(libc::SIGINT)
        .finish();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = common::json(&out.stdout);
    assert_eq!(v["incomplete"], true);
    assert_eq!(
        v["jobs"][0]["read"]["ops"], 1,
        "the one I/O before the pause is kept"
    );
    let stored = common::json(
        &common::kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true);
}
