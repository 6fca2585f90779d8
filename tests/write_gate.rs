//! Issue 34: the write gate sees the whole block stack and pins what it
//! decided for the run. Real loop devices stacked on loop devices (this
//! kernel has no device-mapper or md), real ext4 mounted on the top or the
//! bottom of the stack; each refusal is checked by the bytes (sha256) and
//! by `e2fsck -n` of the file system that was at risk.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{LoopDevice, TempMount, kura, need, run, sh, stderr_of, tmp};

const MIB: u64 = 1 << 20;

fn sha256(path: &Path) -> String {
    sh(&format!("sha256sum '{}' | cut -d' ' -f1", path.display()))
}

/// `e2fsck -n` (look, change nothing) finds the file system clean.
fn fsck_clean(dev: &Path) {
    let out = Command::new("e2fsck")
        .arg("-n")
        .arg("-f")
        .arg(dev)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "e2fsck -n {}: {}{}",
        dev.display(),
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
}

/// `kura run` writing `target` for a moment, with more arguments.
fn write_run(db: &Path, target: &Path, more: &[&str]) -> std::process::Output {
    kura(db)
        .args([
            "run",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "4m",
            "--runtime",
            "1s",
            "--target",
        ])
        .arg(target)
        .args(more)
        .output()
        .unwrap()
}

fn refused(out: &std::process::Output, why: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(why), "expected {why:?} in: {err}");
}

#[test]
fn a_device_under_a_mounted_loop_at_an_offset_is_never_written() {
    if !need(&["losetup", "mkfs.ext4", "e2fsck", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let lower = LoopDevice::sized(64 * MIB);
    let upper = LoopDevice::over_device(&lower.path, &["-o", "16M", "--sizelimit", "32M"]);
    upper.mkfs_ext4();
    {
        // Read-only: a mount writes nothing of its own, so any change is kura's.
        let _mounted = TempMount::new(&["-o", "ro"], &upper.path);
        let before = sha256(&lower.path);
        let out = write_run(&db, &lower.path, &[]);
        refused(&out, "mounted");
        assert!(
            stderr_of(&out).contains(&upper.path.display().to_string()),
            "{}",
            stderr_of(&out)
        );
        // Not even when the user allows destroying the lower device.
        let lower_name = lower.path.display().to_string();
        let out = write_run(&db, &lower.path, &["--allow-destroy", &lower_name]);
        refused(&out, "mounted");
        assert_eq!(sha256(&lower.path), before, "the lower device was written");
    }
    fsck_clean(&upper.path);
}

#[test]
fn a_two_level_chain_over_a_mounted_device_is_never_written() {
    if !need(&["losetup", "mkfs.ext4", "e2fsck", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let bottom = LoopDevice::sized(64 * MIB);
    bottom.mkfs_ext4();
    let middle = LoopDevice::over_device(&bottom.path, &[]);
    let top = LoopDevice::over_device(&middle.path, &["-o", "1M"]);
    {
        let _mounted = TempMount::new(&["-o", "ro"], &bottom.path);
        let before = sha256(&bottom.path);
        for target in [&top.path, &middle.path] {
            let out = write_run(&db, target, &[]);
            refused(&out, "mounted");
            let name = target.display().to_string();
            let out = write_run(&db, target, &["--allow-destroy", &name]);
            refused(&out, "mounted");
        }
        let err = stderr_of(&write_run(&db, &top.path, &[]));
        assert!(
            err.contains(&bottom.path.display().to_string()),
            "names the mounted device: {err}"
        );
        assert_eq!(sha256(&bottom.path), before, "the mounted device was written");
    }
    fsck_clean(&bottom.path);
    // Unmounted, the same chain is the user's to write when they name it.
    let name = top.path.display().to_string();
    let out = write_run(&db, &top.path, &["--allow-destroy", &name]);
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn a_loop_over_a_partition_sees_the_disk_it_is_cut_from() {
    if !need(&["losetup", "mkfs.ext4", "sfdisk", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let disk = LoopDevice::over(64 * MIB, &[], true);
    run(Command::new("sh").arg("-c").arg(format!(
        "printf 'label: dos\\n,24M\\n,24M\\n' | sfdisk -q {}",
        disk.path.display()
    )));
    run(Command::new("partx").args(["-u"]).arg(&disk.path));
    let p1 = Path::new(&format!("{}p1", disk.path.display())).to_path_buf();
    let p2 = Path::new(&format!("{}p2", disk.path.display())).to_path_buf();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(p1.exists() && p2.exists()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    common::mkfs_ext4(&p1);
    // A loop over the whole disk covers the mounted partition's bytes.
    let over_disk = LoopDevice::over_device(&disk.path, &["-o", "1M"]);
    {
        let _mounted = TempMount::new(&["-o", "ro"], &p1);
        let before = sha256(&p1);
        let name = over_disk.path.display().to_string();
        let out = write_run(&db, &over_disk.path, &["--allow-destroy", &name]);
        refused(&out, "mounted");
        // The other partition holds other bytes: it stays the user's to write.
        let out = write_run(&db, &p2, &[]);
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(sha256(&p1), before, "the mounted partition was written");
    }
}

/// `mark LINK` measures several tests one after another; a link swapped
/// while the first runs must not send the later ones to another file.
#[test]
fn a_link_swapped_during_a_run_stops_it_before_the_other_file_is_touched() {
    if !need(&["sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let first = dir.path().join("first.dat");
    let other = dir.path().join("other.dat");
    for file in [&first, &other] {
        std::fs::File::create(file).unwrap().set_len(16 * MIB).unwrap();
    }
    std::fs::write(&other, vec![0x5a; 16 * MIB as usize]).unwrap();
    let before = sha256(&other);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let link_name = link.display().to_string();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .arg("--db")
        .arg(&db)
        .arg("--quiet")
        .args([
            "mark",
            &link_name,
            "--size",
            "8m",
            "--runs",
            "2",
            "--runtime",
            "1s",
            "--interval",
            "0s",
        ])
        .args(["--allow-destroy", &link_name])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Swap once the first test is stored: the rest of the grid is still to run.
    let deadline = Instant::now() + Duration::from_secs(120);
    while common::finished_jobs(&db) < 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let swapped = dir.path().join("link.new");
    std::os::unix::fs::symlink(&other, &swapped).unwrap();
    std::fs::rename(&swapped, &link).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr_of(&out));
    assert_ne!(
        out.status.code(),
        Some(0),
        "the run went on through the swapped link: {err}"
    );
    assert!(err.contains("when this run checked it"), "{err}");
    assert_eq!(
        sha256(&other),
        before,
        "the file the link was swapped to was written"
    );
}
