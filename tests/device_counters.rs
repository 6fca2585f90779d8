//! The devices' own counters as evidence (issue 35): what the target's
//! block device and the devices under it counted while a job ran, on real
//! loop devices. Reads the lowest device never saw are a cache's; bytes
//! the device wrote over kura's are write amplification; a device held
//! busy by a throttle under it is busy the whole job.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Cgroup, LoopDevice, TempMount, kura, kura_in, tmp};

/// The tests read the counters of the disk under /var/tmp: one at a time,
/// so one test's I/O is not counted as another's.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

fn run_json(db: &Path, args: &[&str]) -> serde_json::Value {
    let out = kura(db).arg("--json").arg("run").args(args).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    common::json(&out.stdout)
}

fn kinds(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The device `name` in a job's `device_io`.
fn device<'a>(job: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    job["device_io"]["devices"]
        .as_array()
        .unwrap_or_else(|| panic!("no device_io: {job}"))
        .iter()
        .find(|d| d["device"] == name)
        .unwrap_or_else(|| panic!("{name} not in {}", job["device_io"]))
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A fully written backing file, so no read is of a hole.
fn written_loop(dir: &Path, bytes: usize) -> Option<LoopDevice> {
    let lo = LoopDevice::new(dir, bytes as u64)?;
    std::fs::write(&lo.backing, vec![0x5a; bytes]).unwrap();
    Some(lo)
}

#[test]
fn a_direct_read_of_a_loop_device_is_counted_by_it() {
    if !common::need(&["losetup"]) {
        return;
    }
    let _one = measuring();
    let dir = tmp();
    let Some(lo) = written_loop(dir.path(), 32 << 20) else {
        return;
    };
    let db = dir.path().join("k.db");
    let target = lo.path.display().to_string();
    let v = run_json(
        &db,
        &[
            "--target",
            &target,
            "--rw",
            "read",
            "--bs",
            "1m",
            "--direct",
            "--runtime",
            "1s",
        ],
    );
    let job = &v["jobs"][0];
    let read = num(&job["read"]["bytes"]);
    let dev = device(job, &lo.name());
    assert_eq!(dev["role"], "target");
    let seen = num(&dev["read_bytes"]);
    // Direct reads: no readahead, no cache; the device counts what kura read.
    assert!(
        (seen - read).abs() <= read * 0.05 && read > 0.0,
        "kura read {read} bytes, {} counted {seen}",
        lo.name()
    );
    assert!(num(&dev["reads"]) >= num(&job["read"]["ops"]));
    // The device under the loop (the one its backing file is on) follows it.
    let under = &job["device_io"]["devices"][1];
    assert_eq!(under["role"], "under", "{}", job["device_io"]);
    assert_eq!(under["holder"], lo.name().as_str());
}

/// ext4 on a loop device over a file on this disk: reads through the loop
/// go to the backing file, which the host's page cache holds (mkfs and the
/// pre-fill wrote it), so the disk under it sees none of them, however
/// kura read (the mark that read 10,275 MB/s). With the loop device doing
/// direct I/O on its file, direct reads reach the disk and are not flagged.
#[test]
fn reads_the_disk_under_a_loop_never_saw_are_flagged_as_cache() {
    if !common::need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let _one = measuring();
    let dir = tmp();
    let Some(lo) = LoopDevice::new(dir.path(), 128 << 20) else {
        return;
    };
    lo.mkfs_ext4();
    let file = |m: &TempMount| m.dir.path().join("t.dat").display().to_string();
    let db = dir.path().join("k.db");
    {
        let mnt = TempMount::new(&[], &lo.path);
        for how in ["--buffered", "--direct"] {
            let v = run_json(
                &db,
                &[
                    "--target",
                    &file(&mnt),
                    "--size",
                    "32m",
                    "--rw",
                    "read",
                    "--bs",
                    "1m",
                    how,
                    "--runtime",
                    "1s",
                ],
            );
            let w = v["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["kind"] == "reads_not_on_device")
                .unwrap_or_else(|| panic!("{how}: no cache verdict: {:?}", kinds(&v)));
            assert_eq!(w["holders"][0], lo.name().as_str(), "{w}");
            assert!(num(&w["device_read_bytes"]) < num(&w["read_bytes"]) * 0.1, "{w}");
            let text = w["text"].as_str().unwrap();
            assert!(text.contains("served from a cache"), "{text}");
            // The loop device itself saw the reads: they were below the file system.
            let job = &v["jobs"][0];
            assert!(num(&device(job, &lo.name())["read_bytes"]) > 0.0);
        }
        // A flagged run: compare repeats the warning beside its target.
        let shown = kura(&db).args(["show", "latest"]).output().unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.contains(&format!("device {}:", lo.name())), "{text}");
    }
    let status = Command::new("losetup")
        .args(["--direct-io=on"])
        .arg(&lo.path)
        .status()
        .unwrap();
    assert!(status.success());
    let mnt = TempMount::new(&[], &lo.path);
    let v = run_json(
        &db,
        &[
            "--target",
            &file(&mnt),
            "--size",
            "32m",
            "--rw",
            "read",
            "--bs",
            "1m",
            "--direct",
            "--runtime",
            "1s",
        ],
    );
    assert!(
        !kinds(&v).contains(&"reads_not_on_device".to_string()),
        "{:?}",
        kinds(&v)
    );
    let job = &v["jobs"][0];
    let under = &job["device_io"]["devices"][1];
    assert!(
        num(&under["read_bytes"]) >= num(&job["read"]["bytes"]) * 0.5,
        "the disk under the loop read what kura read: {}",
        job["device_io"]
    );
}

/// Files created on ext4 and flushed after the job: the device wrote at
/// least their bytes, and a little more for the file system's metadata.
#[test]
fn a_file_sets_writes_show_their_amplification() {
    if !common::need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let _one = measuring();
    let dir = tmp();
    let Some(lo) = LoopDevice::new(dir.path(), 128 << 20) else {
        return;
    };
    lo.mkfs_ext4();
    let mnt = TempMount::new(&[], &lo.path);
    let set = mnt.dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let db = dir.path().join("k.db");
    let target = set.display().to_string();
    let v = run_json(
        &db,
        &[
            "--target",
            &target,
            "--mix",
            "create=100",
            "--files",
            "20",
            "--file-size",
            "128k",
            "--runtime",
            "1s",
        ],
    );
    let job = &v["jobs"][0];
    let created = num(&job["operations"]["create"]["bytes"]);
    assert!(created > 0.0, "{job}");
    let amp = num(&job["device_io"]["write_amplification"]);
    let written = num(&device(job, &lo.name())["write_bytes"]);
    assert!((amp - written / created).abs() < 1e-9);
    assert!(
        (0.9..4.0).contains(&amp),
        "the device wrote {written} bytes for {created} of files: {amp}"
    );
    let shown = kura(&db).args(["show", "latest"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains(&format!("{amp:.2}x kura's")), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
}

/// A loop device over another whose reads a blkio throttle holds: the upper
/// device has a read in flight the whole job (a throttle on the device kura
/// reads would hold the reads before that device counts them).
#[test]
fn a_device_held_by_a_throttle_under_it_is_busy_the_whole_job() {
    if !common::need(&["losetup", "lsblk"]) {
        return;
    }
    let _one = measuring();
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let Some(lower) = written_loop(shm.path(), 16 << 20) else {
        return;
    };
    let upper = LoopDevice::over_device(&lower.path, &["--direct-io=on"]);
    let Some(cg) = Cgroup::blkio("devstat-busy") else {
        return;
    };
    let majmin = common::sh(&format!("lsblk -dno MAJ:MIN {}", lower.path.display()));
    std::fs::write(
        cg.0.join("blkio.throttle.read_iops_device"),
        format!("{} 200", majmin.trim()),
    )
    .unwrap();
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura_in(
        &cg,
        &db,
        &format!(
            "run --target {} --rw randread --bs 4k --direct --runtime 1s",
            upper.path.display()
        ),
    );
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = common::json(&out.stdout);
    let job = &v["jobs"][0];
    let io = &job["device_io"];
    let top = device(job, &upper.name());
    let share = num(&top["busy_ns"]) / num(&io["window_ns"]);
    assert!(share > 0.8, "{} busy {share}: {io}", upper.name());
    let under = device(job, &lower.name());
    assert_eq!(under["holder"], upper.name().as_str());
    // The library's answer for the latency search's diagnosis is the same share.
    let result: kura::metrics::JobResult = serde_json::from_value(job.clone()).unwrap();
    let util = kura::metrics::device_io::utilisation(&result).unwrap();
    assert!((util - share.min(1.0)).abs() < 1e-9, "{util} {share}");
    let shown = kura(&db).args(["show", "latest"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("busy 9") || text.contains("busy 8") || text.contains("busy 100"),
        "{text}"
    );
}
