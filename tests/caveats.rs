//! Warnings stored with a run when its numbers cannot be the device's: real
//! sparse files, loop devices, tmpfs, a compressing btrfs, options that do
//! nothing, and a freshly written file on a virtual disk that caches writes.

mod common;

use common::{Cgroup, LoopDevice, Mount, json, kura, sh, tmp};

/// Runs `kura run ARGS --json` and returns the stored run's warnings (from `show`).
fn stored_warnings(db: &std::path::Path, args: &[&str]) -> Vec<String> {
    let out = kura(db)
        .args(["--json", "run"])
        .args(args)
        .args(["--runtime", "200ms"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed = json(&out);
    let shown = json(
        &kura(db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let stored: Vec<String> = shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(printed["warnings"], shown["warnings"], "printed and stored alike");
    stored
}

fn has(warnings: &[String], needle: &str) -> bool {
    warnings.iter().any(|w| w.contains(needle))
}

#[test]
fn a_reused_sparse_file_is_flagged_and_a_written_one_is_not() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let sparse = dir.path().join("sparse.dat");
    std::fs::File::create(&sparse).unwrap().set_len(16 << 20).unwrap();
    let t = sparse.to_str().unwrap();
    let w = stored_warnings(&db, &["--target", t, "--rw", "randread"]);
    assert!(has(&w, "is sparse"), "{w:?}");
    let full = dir.path().join("full.dat");
    std::fs::write(&full, vec![7u8; 16 << 20]).unwrap();
    let w = stored_warnings(&db, &["--target", full.to_str().unwrap(), "--rw", "randread"]);
    assert!(!has(&w, "is sparse"), "{w:?}");
}

#[test]
fn a_loop_device_over_a_sparse_file_is_flagged() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 32 << 20) else {
        return;
    };
    let w = stored_warnings(&db, &["--target", dev.path.to_str().unwrap(), "--rw", "randread"]);
    assert!(has(&w, "is a loop device over"), "{w:?}");
    assert!(has(&w, "is sparse"), "{w:?}");
}

#[test]
fn tmpfs_with_direct_io_says_it_measures_memory() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let mnt = dir.path().join("shm");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount -t tmpfs -o size=64m tmpfs {}", mnt.display()));
    let _m = Mount(mnt.clone());
    let target = mnt.join("t.dat");
    let w = stored_warnings(
        &db,
        &[
            "--target",
            target.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randread",
        ],
    );
    assert!(has(&w, "is on tmpfs"), "{w:?}");
    assert!(has(&w, "O_DIRECT was requested"), "{w:?}");
}

#[test]
fn keep_cache_with_direct_io_is_flagged() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let t = target.to_str().unwrap();
    let w = stored_warnings(&db, &["--target", t, "--size", "8m", "--keep-cache"]);
    assert!(has(&w, "keep_cache has no effect with direct I/O"), "{w:?}");
    let w = stored_warnings(
        &db,
        &["--target", t, "--size", "8m", "--keep-cache", "--buffered"],
    );
    assert!(!has(&w, "keep_cache has no effect"), "{w:?}");
}

#[test]
fn a_zero_fill_on_a_compressing_btrfs_is_flagged() {
    if !common::have("mkfs.btrfs") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 256 << 20) else {
        return;
    };
    sh(&format!("mkfs.btrfs -q -f {}", dev.path.display()));
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!(
        "mount -o compress=zstd {} {}",
        dev.path.display(),
        mnt.display()
    ));
    let _m = Mount(mnt.clone());
    let target = mnt.join("t.dat");
    let t = target.to_str().unwrap();
    let w = stored_warnings(
        &db,
        &["--target", t, "--size", "8m", "--rw", "write", "--fill", "zero"],
    );
    assert!(has(&w, "compress=zstd"), "{w:?}");
    let w = stored_warnings(&db, &["--target", t, "--size", "8m", "--rw", "write"]);
    assert!(!has(&w, "compress"), "random data is not flagged: {w:?}");
}

#[test]
fn reads_of_a_fresh_file_on_a_virtual_write_back_disk_are_flagged() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let disk = sh(&format!("df --output=source {} | tail -1", dir.path().display()));
    let name = disk
        .trim_start_matches("/dev/")
        .trim_end_matches(char::is_numeric)
        .to_string();
    let cache = std::fs::read_to_string(format!("/sys/block/{name}/queue/write_cache")).unwrap_or_default();
    if !name.starts_with("vd") || cache.trim() != "write back" {
        // The disk the tests' directory is on, not a tool: nothing can be
        // installed to make it a virtual write-back disk, so KURA_REQUIRE_ALL
        // does not ask for one. Nor is the warning's absence asserted here:
        // kura finds the disk under device mapper and by its vendor too, which
        // `df`'s name does not show.
        eprintln!("note: {disk} is not a virtio disk with a write-back cache; skipping");
        return;
    }
    let target = dir.path().join("t.dat");
    let t = target.to_str().unwrap();
    let w = stored_warnings(
        &db,
        &["--target", t, "--size", "8m", "--rw", "randread", "--keep"],
    );
    assert!(has(&w, "was written by this run"), "{w:?}");
    // The same file, kept from before, was not written by this run.
    let kept = stored_warnings(&db, &["--target", t, "--rw", "randread"]);
    assert!(!has(&kept, "was written by this run"), "{kept:?}");
}

#[test]
fn a_throttled_run_whose_ios_stall_says_so() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 64 << 20) else {
        return;
    };
    let Some(group) = Cgroup::blkio("stall") else {
        return;
    };
    let root = group.0.parent().unwrap().to_path_buf();
    let majmin = sh(&format!("lsblk -dno MAJ:MIN {}", dev.path.display()));
    std::fs::write(
        group.0.join("blkio.throttle.read_iops_device"),
        format!("{} 4\n", majmin.trim()),
    )
    .unwrap();
    let run = |procs: &std::path::Path| {
        let script = format!(
            "echo $$ > {} && exec {} --json run --target {} --rw randread --qd 8 --runtime 2s",
            procs.display(),
            common::cmd::line(&db),
            dev.path.display()
        );
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        json(&out.stdout)
    };
    let throttled = run(&group.0.join("cgroup.procs"));
    let warnings = throttled["warnings"].to_string();
    assert!(warnings.contains("the I/Os stalled"), "{warnings}");
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(
        shown["warnings"].to_string().contains("the I/Os stalled"),
        "stored too"
    );
    // The same run outside the group flows.
    let free = run(&root.join("cgroup.procs"));
    assert!(
        !free["warnings"].to_string().contains("stalled"),
        "{}",
        free["warnings"]
    );
}

#[test]
fn warnings_are_stored_typed_and_runs_with_string_warnings_still_show() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = dir.path().join("t.dat");
    let t = t.to_str().unwrap();
    // A buffered job with qd 4 on the sync engine: one typed warning, stored.
    let printed = json(
        &kura(&db)
            .args(["--json", "run", "--engine", "sync", "--buffered", "--qd", "4"])
            .args(["--size", "1m", "--runtime", "100ms", "--target", t])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let w = printed["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "sync_engine_queue_depth")
        .unwrap_or_else(|| panic!("{}", printed["warnings"]));
    assert_eq!(w["qd"], 4);
    assert!(w["text"].as_str().unwrap().contains("qd 4 ran as qd 1"), "{w}");

    // A run stored before warnings were typed holds plain strings.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: String = conn
        .query_row("SELECT result_json FROM runs", [], |r| r.get(0))
        .unwrap();
    let mut old: serde_json::Value = serde_json::from_str(&stored).unwrap();
    old["warnings"] = serde_json::json!(["an old warning, as text"]);
    conn.execute("UPDATE runs SET result_json = ?1", [old.to_string()])
        .unwrap();
    drop(conn);
    let shown = kura(&db).args(["show", "latest"]).assert().success();
    let text = String::from_utf8_lossy(&shown.get_output().stdout).into_owned();
    assert!(text.contains("warning: an old warning, as text"), "{text}");
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(shown["warnings"][0]["kind"], "other");
    assert_eq!(shown["warnings"][0]["text"], "an old warning, as text");
}

/// The stored run's warnings of one kind (`too_short`), from `show --json`.
fn warnings_of_kind(db: &std::path::Path, kind: &str) -> Vec<serde_json::Value> {
    let shown = json(
        &kura(db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == kind)
        .cloned()
        .collect()
}

/// Issue 35: a tiobench test of a fraction of a second (a random read of
/// 100 operations) read "86 MiB/s" against a 19.5 MiB/s cap with no word
/// of warning; bonnie++'s 0.5 s rule now holds for every job of every
/// kind, in one warning naming each job, and not for a job long enough.
#[test]
fn a_job_measured_under_half_a_second_is_warned_of_in_every_kind() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    kura(&db)
        .args(["suite", "tiobench"])
        .arg(&work)
        .args([
            "--file-size",
            "1m",
            "--random-ops",
            "100",
            "--threads",
            "1",
            "--runs",
            "1",
        ])
        .assert()
        .success();
    let short = warnings_of_kind(&db, "too_short");
    assert_eq!(short.len(), 1, "one warning for the run: {short:?}");
    let jobs: Vec<&str> = short[0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_str().unwrap())
        .collect();
    assert!(jobs.iter().any(|j| j.contains("Random Read")), "{jobs:?}");
    assert!(
        short[0]["measured_ns"].as_u64().unwrap() < 500_000_000,
        "{short:?}"
    );
    assert_eq!(short[0]["min_ns"], 500_000_000);
    assert!(
        short[0]["text"].as_str().unwrap().contains("under 0.5 s"),
        "{short:?}"
    );

    // A file set's job, as short.
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
            "50",
            "--file-size",
            "0",
        ])
        .assert()
        .success();
    let short = warnings_of_kind(&db, "too_short");
    assert_eq!(short.len(), 1, "{short:?}");

    // A job measured for a second is long enough.
    kura(&db)
        .args(["run", "--target"])
        .arg(dir.path().join("file"))
        .args(["--size", "4m", "--rw", "randread", "--runtime", "1s"])
        .assert()
        .success();
    assert_eq!(
        warnings_of_kind(&db, "too_short"),
        Vec::<serde_json::Value>::new()
    );
}
