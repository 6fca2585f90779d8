//! `kura suite pts` on real loop devices: the quick form of the IOPS test
//! through purge (BLKDISCARD), preconditioning and rounds to a stored run,
//! and the safety checks refusing a device that carries a file system.

mod common;

use common::{LoopDevice, TempMount, json, kura, need, tmp};

#[test]
#[ignore = "5 to 25 rounds of 56 points: over 9 minutes on the shared VM (per-job overhead); run with --ignored"]
fn the_quick_iops_test_purges_preconditions_and_runs_rounds_to_a_stored_run() {
    if !need(&["losetup"]) {
        return;
    }
    // The store in memory: its sync after each of the hundreds of jobs is not what is tested.
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(32 << 20);
    let dev = lo.path.to_str().unwrap();
    let out = kura(&db)
        .args([
            "--json", "suite", "pts", dev, "--tests", "iops", "--scale", "0.0005",
        ])
        .args(["--allow-destroy", dev])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = json(&out.stdout);
    assert_eq!(run["suite"], "pts");
    let jobs = run["jobs"].as_array().unwrap();
    let test = |j: &serde_json::Value| j["test"].as_str().unwrap_or("").to_string();
    // The purge ran first, as discards of the whole device.
    assert_eq!(test(&jobs[0]), "IOPS purge blkdiscard");
    assert_eq!(jobs[0]["job"]["rw"], "trim");
    let trims = jobs[0]["operations"]["trim"]["bytes"].as_u64().unwrap_or(0);
    assert_eq!(trims, 32 << 20, "{}", jobs[0]["operations"]);
    // Then the workload-independent preconditioning: 2x the capacity, scaled
    // (here below one block, so one 128 KiB write).
    assert_eq!(test(&jobs[1]), "IOPS WIPC");
    let written = jobs[1]["write"]["bytes"].as_u64().unwrap();
    assert_eq!(written, 128 << 10);
    // Then whole rounds of the 7 x 8 matrix, each point stored.
    let pts = &run["pts"][0];
    assert_eq!(pts["test"], "IOPS");
    assert_eq!(pts["purge"], "blkdiscard");
    let rounds = pts["rounds"].as_u64().unwrap();
    assert!((5..=25).contains(&rounds), "{pts}");
    for r in 1..=rounds {
        let n = jobs
            .iter()
            .filter(|j| test(j).ends_with(&format!(" round {r}")))
            .count();
        assert_eq!(n, 56, "round {r}");
    }
    assert_eq!(jobs.len() as u64, 2 + 56 * rounds);
    // Steady by the window, or said not to be after the spec's 25 rounds.
    match pts["steady"].as_bool().unwrap() {
        true => assert_eq!(pts["window"][1].as_u64(), Some(rounds)),
        false => assert_eq!(rounds, 25, "{pts}"),
    }
    let points = pts["points"].as_array().unwrap();
    assert_eq!(points.len(), 56);
    assert!(points.iter().all(|p| p["iops"].as_f64().unwrap() > 0.0));
    let kinds: Vec<&str> = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"pts_not_conforming"), "{kinds:?}");
    assert!(kinds.contains(&"rounds"), "{kinds:?}");
    // Stored: the table is rendered again from the store, 80 columns wide.
    assert_eq!(common::finished_jobs(&db), jobs.len() as i64);
    let shown = kura(&db).args(["show", "1"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(text.contains("IOPS · purged (blkdiscard)"), "{text}");
    assert!(text.contains("NOT CONFORMING"), "{text}");
    let rows = text.lines().filter(|l| l.trim_start().starts_with("1m ")).count();
    assert_eq!(rows, 1, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

#[test]
fn a_device_with_a_file_system_is_refused_and_never_purged() {
    if !need(&["losetup", "mkfs.ext4", "blkid"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(32 << 20);
    lo.mkfs_ext4();
    let dev = lo.path.to_str().unwrap();
    let out = kura(&db)
        .args(["suite", "pts", dev, "--tests", "iops", "--scale", "0.0005"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(dev) && err.contains("--allow-destroy"), "{err}");
    // Mounted, even --allow-destroy does not let it be purged.
    let mount = TempMount::new(&[], &lo.path);
    let out = kura(&db)
        .args(["suite", "pts", dev, "--tests", "iops", "--scale", "0.0005"])
        .args(["--allow-destroy", dev])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(mount);
    // No discard reached it: the file system is still there.
    let fs = common::sh(&format!("blkid -p -o value -s TYPE {dev}"));
    assert_eq!(fs.trim(), "ext4");
}
