//! fio's trims (`rw=trim`, `randtrim`, `trimwrite`): the BLKDISCARD ioctl on
//! a block device, as fio 3.33 issues it (os/os-linux.h, os_trim). Checked
//! on a loop device over a file of 0xAA bytes (a loop device discards by
//! punching holes, so trimmed bytes read back as zeros): the span is zero
//! after, the bytes around it untouched, fio itself zeroes the same bytes,
//! and the run reports trims as fio does, in a `trim` direction of their
//! own. A regular file is refused, as fio fails on one (ENOTTY).

mod common;

use std::path::Path;
use std::process::Command;

use common::{LoopDevice, json, kura, tmp};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// A loop device over 1 MiB of 0xAA bytes, made in `dir`.
fn device(dir: &Path, name: &str) -> LoopDevice {
    let backing = dir.join(name);
    std::fs::write(&backing, vec![0xaa; MIB as usize]).unwrap();
    LoopDevice::over_file(&backing)
}

/// 4 KiB blocks of the backing file: 'A' (0xAA, untouched), '0' (zeros) or 'w' (other).
fn blocks(lo: &LoopDevice) -> String {
    let data = std::fs::read(&lo.backing).unwrap();
    data.chunks(4096)
        .map(|b| {
            if b.iter().all(|x| *x == 0xaa) {
                'A'
            } else if b.iter().all(|x| *x == 0) {
                '0'
            } else {
                'w'
            }
        })
        .collect()
}

/// `before` blocks of 'A', `span` of `mid`, then 'A' to 1 MiB.
fn expect(before: u64, span: u64, mid: char) -> String {
    let n = |bytes: u64| (bytes / 4096) as usize;
    format!(
        "{}{}{}",
        "A".repeat(n(before)),
        mid.to_string().repeat(n(span)),
        "A".repeat(n(MIB - before - span))
    )
}

fn job_file(dir: &Path, name: &str, target: &Path, rw: &str) -> std::path::PathBuf {
    let file = dir.join(name);
    std::fs::write(
        &file,
        format!(
            "[t]\nfilename={}\nrw={rw}\nbs=64k\noffset=256k\nsize=256k\n",
            target.display()
        ),
    )
    .unwrap();
    file
}

#[test]
fn trims_zero_the_span_of_a_device_as_fio_does() {
    if !common::need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    for rw in ["trim", "randtrim"] {
        let lo = device(d, &format!("{rw}.img"));
        let file = job_file(d, &format!("{rw}.fio"), &lo.path, rw);
        let explained = json(
            &kura(&db)
                .args(["--json", "explain"])
                .arg(&file)
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        assert_eq!(explained["jobs"][0]["rw"], rw, "explain");
        // The device holds the pattern the test wrote: the user's to lose, named.
        let out = kura(&db)
            .args(["run", "--format", "fio-json", "--allow-destroy"])
            .arg(&lo.path)
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        // kura keeps no random map (docs/formats.md): randtrim's 4 trims may repeat a block.
        let after = blocks(&lo);
        if rw == "trim" {
            assert_eq!(
                after,
                expect(256 * KIB, 256 * KIB, '0'),
                "{rw}: blocks after kura"
            );
        } else {
            let outside = |s: &str| format!("{}{}", &s[..64], &s[128..]);
            assert_eq!(
                outside(&after),
                outside(&expect(0, 0, 'A')),
                "{rw}: outside the span"
            );
            assert!(after[64..128].contains("0000000000000000"), "{rw}: {after}");
        }
        let job = &json(&out)["jobs"][0];
        // Sequential: the span once; random: as many trims, wherever they fell.
        assert_eq!(job["trim"]["total_ios"], 4, "{rw}: {job}");
        assert_eq!(job["trim"]["io_bytes"], 256 * KIB, "{rw}");
        assert!(job["trim"]["lat_ns"]["mean"].as_f64().unwrap() > 0.0, "{rw}");
        assert_eq!(job["read"]["total_ios"], 0);
        assert_eq!(job["write"]["total_ios"], 0);
        assert_eq!(job["job options"]["rw"], rw);
    }
    // kura's own JSON: trims under operations, neither read nor write.
    let shown = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let job = &shown["jobs"][0];
    assert_eq!(job["operations"]["trim"]["ops"], 4, "{job}");
    assert!(job["read"].is_null() && job["write"].is_null(), "{job}");
    // Flags, direct I/O on io_uring, 4 in flight: the trims go around the ring, as fio's.
    let lo = device(d, "uring.img");
    let run = kura(&db)
        .args([
            "--json", "run", "--rw", "trim", "--bs", "64k", "--offset", "256k", "--size", "256k",
        ])
        .args(["--passes", "1", "--engine", "io_uring", "--qd", "4", "--target"])
        .arg(&lo.path)
        .arg("--allow-destroy")
        .arg(&lo.path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let job = &json(&run)["jobs"][0];
    assert_eq!(job["engine"], "io_uring", "{job}");
    assert_eq!(job["operations"]["trim"]["ops"], 4, "{job}");
    assert_eq!(blocks(&lo), expect(256 * KIB, 256 * KIB, '0'), "io_uring");
    if !common::have("fio") {
        return;
    }
    let lo = device(d, "fio.img");
    let file = job_file(d, "fio.fio", &lo.path, "trim");
    let out = Command::new("fio")
        .arg("--output-format=json")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
    assert_eq!(blocks(&lo), expect(256 * KIB, 256 * KIB, '0'), "blocks after fio");
    assert_eq!(json(&out.stdout)["jobs"][0]["trim"]["total_ios"], 4);
}

/// trimwrite: each block trimmed, then written: the span holds written data.
#[test]
fn trimwrite_writes_each_block_it_trims() {
    if !common::need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let d = dir.path();
    let lo = device(d, "tw.img");
    let file = job_file(d, "tw.fio", &lo.path, "trimwrite");
    let out = kura(&d.join("k.db"))
        .args(["run", "--format", "fio-json", "--allow-destroy"])
        .arg(&lo.path)
        .arg(&file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(blocks(&lo), expect(256 * KIB, 256 * KIB, 'w'));
    let job = &json(&out)["jobs"][0];
    // As fio: the span trimmed once and written once, 4 of each for 256k.
    assert_eq!(job["trim"]["total_ios"], 4, "{job}");
    assert_eq!(job["write"]["total_ios"], 4, "{job}");
}

/// A regular file: refused before anything runs, naming the reason.
#[test]
fn trims_on_a_regular_file_are_refused() {
    let dir = tmp();
    let d = dir.path();
    let target = d.join("plain.dat");
    std::fs::write(&target, vec![0xaa; MIB as usize]).unwrap();
    let file = job_file(d, "f.fio", &target, "trim");
    let out = kura(&d.join("k.db")).arg("run").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr_of(&out));
    let err = common::stderr_of(&out);
    assert!(err.contains("BLKDISCARD") && err.contains("plain.dat"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), vec![0xaa; MIB as usize]);
    // Nothing to verify in a trimmed block: refused before anything runs.
    let out = kura(&d.join("k.db"))
        .args(["run", "--rw", "trimwrite", "--verify", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    let err = common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("verify") && err.contains("trimwrite"), "{err}");
}

/// Trims destroy data as writes do: a device with a file system is refused
/// without `--allow-destroy`, and left as it was.
#[test]
fn trims_need_allow_destroy_on_a_device_with_a_file_system() {
    if !common::need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tmp();
    let lo = LoopDevice::sized(16 * MIB);
    lo.mkfs_ext4();
    let before = std::fs::read(&lo.backing).unwrap();
    let out = kura(&dir.path().join("k.db"))
        .args([
            "run", "--rw", "trim", "--bs", "64k", "--size", "1m", "--passes", "1", "--target",
        ])
        .arg(&lo.path)
        .output()
        .unwrap();
    let err = common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--allow-destroy"), "{err}");
    assert!(
        std::fs::read(&lo.backing).unwrap() == before,
        "the device changed"
    );
}
