//! kura on real loop devices: reads and writes, the safety refusal, and
//! block-size and size checks against the device.

mod common;

use common::{LoopDevice, Mount, json, kura, sh, tmp};
use predicates::prelude::*;

#[test]
fn a_loop_device_is_read_and_written() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    let v = json(
        &kura(&db)
            .args(["--json", "run", "--target"])
            .arg(&dev.path)
            .args(["--rw", "randrw", "--qd", "4", "--io-count", "2000"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let job = &v["jobs"][0];
    assert_eq!(job["target"]["kind"], "block");
    assert_eq!(job["target"]["size_bytes"], 16 << 20);
    assert_eq!(job["target"]["logical_block_bytes"], 512);
    let ops = job["read"]["ops"].as_u64().unwrap() + job["write"]["ops"].as_u64().unwrap();
    assert_eq!(ops, 2000);
    assert!(dev.path.exists(), "a device is never removed");
}

#[test]
fn a_device_with_a_file_system_is_refused_until_allow_destroy() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    if !common::have("mkfs.ext4") {
        return;
    }
    sh(&format!("mkfs.ext4 -q -F {}", dev.path.display()));
    let before = std::fs::read(&dev.backing).unwrap();
    kura(&db)
        .args(["run", "--target"])
        .arg(&dev.path)
        .args(["--rw", "randwrite", "--io-count", "100"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ext4").and(predicate::str::contains("--allow-destroy")));
    assert!(
        std::fs::read(&dev.backing).unwrap() == before,
        "nothing was written"
    );
    // Reading a device that holds data is always allowed.
    kura(&db)
        .args(["run", "--target"])
        .arg(&dev.path)
        .args(["--io-count", "100"])
        .assert()
        .success();
    // Naming another device does not allow this one.
    kura(&db)
        .args(["run", "--allow-destroy", "/dev/loop-other", "--target"])
        .arg(&dev.path)
        .args(["--rw", "randwrite", "--io-count", "100"])
        .assert()
        .code(2);
    kura(&db)
        .args(["run", "--allow-destroy"])
        .arg(&dev.path)
        .arg("--target")
        .arg(&dev.path)
        .args(["--rw", "randwrite", "--io-count", "100"])
        .assert()
        .success();
}

#[test]
fn a_mounted_device_is_refused_even_with_allow_destroy() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    if !common::have("mkfs.ext4") {
        return;
    }
    sh(&format!("mkfs.ext4 -q -F {}", dev.path.display()));
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount {} {}", dev.path.display(), mnt.display()));
    let _mount = Mount(mnt.clone());
    kura(&db)
        .args(["run", "--allow-destroy"])
        .arg(&dev.path)
        .arg("--target")
        .arg(&dev.path)
        .args(["--rw", "randwrite", "--io-count", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("mounted"));
}

#[test]
fn device_geometry_is_checked() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 16 << 20) else {
        return;
    };
    kura(&db)
        .args(["run", "--target"])
        .arg(&dev.path)
        .args(["--bs", "1000", "--io-count", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("1000").and(predicate::str::contains("512")));
    kura(&db)
        .args(["run", "--target"])
        .arg(&dev.path)
        .args(["--size", "1g", "--io-count", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than"));
}

#[test]
fn a_target_that_cannot_be_written_is_refused_for_writes() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    if !common::have("mount") {
        return;
    }
    let mnt = dir.path().join("ro");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount -t tmpfs -o size=8m tmpfs {}", mnt.display()));
    let _mount = Mount(mnt.clone());
    let file = mnt.join("t.dat");
    std::fs::write(&file, vec![1u8; 1 << 20]).unwrap();
    sh(&format!("mount -o remount,ro {}", mnt.display()));
    kura(&db)
        .args(["run", "--buffered", "--target"])
        .arg(&file)
        .args(["--rw", "randwrite", "--io-count", "10"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("t.dat"));
    // Reads from it still work.
    kura(&db)
        .args(["run", "--buffered", "--target"])
        .arg(&file)
        .args(["--io-count", "10"])
        .assert()
        .success();
}

#[test]
fn io_errors_during_a_run_are_counted_and_reported() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    if !common::have("fallocate") {
        return;
    }
    // A full tmpfs and a test file whose blocks were punched out: every write needs
    // a page the file system cannot give, so each one fails with ENOSPC.
    let mnt = dir.path().join("full");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount -t tmpfs -o size=8m tmpfs {}", mnt.display()));
    let _mount = Mount(mnt.clone());
    let file = mnt.join("t.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    sh(&format!(
        "fallocate --punch-hole --offset 0 --length 4194304 {}",
        file.display()
    ));
    let _ = std::fs::write(mnt.join("filler"), vec![0u8; 8 << 20]);
    let out = kura(&db)
        .args([
            "--json",
            "run",
            "--buffered",
            "--rw",
            "randwrite",
            "--io-count",
            "50",
            "--target",
        ])
        .arg(&file)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let write = &v["jobs"][0]["write"];
    assert_eq!(write["errors"], 50);
    assert_eq!(write["ops"], 0);
    assert_eq!(write["error_samples"][0]["errno"], libc::ENOSPC);
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["text"].as_str().unwrap().contains("50 write errors"))
    );
    // The human report says so at the top, before the tables.
    let text = kura(&db)
        .args(["show", "latest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&text);
    let warning_at = text.find("50 write errors").expect("warning in the report");
    assert!(warning_at < text.find("IOPS").unwrap(), "{text}");
}

/// mark on a device uses its first --size bytes: the header says the span,
/// not only the device's size, and a rotational disk measured on a small
/// part of it is warned about (short seeks make random I/O look faster).
#[test]
fn mark_on_a_rotational_device_says_its_span_and_warns_of_short_seeks() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let Some(dev) = LoopDevice::new(dir.path(), 64 << 20) else {
        return;
    };
    let name = dev.path.file_name().unwrap().to_string_lossy().to_string();
    let rotational = format!("/sys/block/{name}/queue/rotational");
    if std::fs::write(&rotational, "1").is_err() {
        common::missing("a writable queue/rotational");
        return;
    }
    let out = kura(&db)
        .arg("mark")
        .arg(&dev.path)
        .args(["--profile", "demo", "--runs", "1", "--runtime", "100ms"])
        .args(["--size", "8m", "--interval", "0s", "--allow-destroy"])
        .arg(&dev.path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("first 8.0 MiB of a 64.0 MiB device"), "{out}");
    assert!(
        out.contains("is a rotational disk measured on 8 MB of its 67 MB"),
        "{out}"
    );
    // The whole device: no warning.
    let out = kura(&db)
        .args(["run", "--rw", "randread", "--io-count", "100", "--target"])
        .arg(&dev.path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains("all of a 64.0 MiB device"), "{out}");
    assert!(!out.contains("rotational disk measured"), "{out}");
}
