//! fio's `offset` with `size` and with `filesize`: where fio's region lies
//! (fio 3.33 filesetup.c: a file of `offset + size`, I/O in
//! `offset..offset+size`; with `filesize`, a file of `filesize`, I/O in
//! `offset..filesize`), checked against fio itself on a file and on a
//! loop device: both write a pattern into the same blocks.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LoopDevice, json, kura, tmp};

const PATTERN: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];

/// The offsets of the 4 KiB blocks of `file` that hold PATTERN repeated.
fn pattern_blocks(file: &Path) -> Vec<u64> {
    let data = std::fs::read(file).unwrap();
    let want: Vec<u8> = PATTERN.iter().copied().cycle().take(4096).collect();
    data.chunks(4096)
        .enumerate()
        .filter(|(_, b)| *b == want.as_slice())
        .map(|(i, _)| i as u64 * 4096)
        .collect()
}

fn job_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

fn job(target: &Path, sizes: &str) -> String {
    format!(
        "[span]\nfilename={}\n{sizes}\nrw=write\nbs=4k\nbuffer_pattern=0xdeadbeef\n",
        target.display()
    )
}

fn by_kura(d: &Path, name: &str, text: &str, extra: &[&str]) {
    let file = job_file(d, &format!("{name}.fio"), text);
    kura(&d.join("k.db"))
        .args(["run", "--keep"])
        .args(extra)
        .arg(&file)
        .assert()
        .success();
}

fn by_fio(d: &Path, name: &str, text: &str) {
    let file = job_file(d, &format!("{name}.fio"), text);
    let out = Command::new("fio")
        .arg("--output=/dev/null")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
}

fn blocks(from: u64, to: u64) -> Vec<u64> {
    (from..to).step_by(4096).collect()
}

/// On a file: `offset=256k size=128k` writes 256k..384k of a 384k file;
/// `offset=256k filesize=384k` writes 256k..384k of a 384k file too. kura
/// and fio write the same blocks and leave files of the same size.
#[test]
fn offset_and_size_on_a_file_are_fio_s_region() {
    let dir = tmp();
    let d = dir.path();
    let have_fio = common::have("fio");
    for (name, sizes) in [
        ("size", "offset=256k\nsize=128k"),
        ("filesize", "offset=256k\nfilesize=384k"),
    ] {
        let target = d.join(format!("k-{name}"));
        by_kura(d, &format!("k-{name}"), &job(&target, sizes), &[]);
        assert_eq!(
            pattern_blocks(&target),
            blocks(256 << 10, 384 << 10),
            "{name}: blocks kura wrote"
        );
        assert_eq!(
            std::fs::metadata(&target).unwrap().len(),
            384 << 10,
            "{name}: file size"
        );
        // explain says the span: size is the file's, offset where I/O starts.
        let out = kura(&d.join("k.db"))
            .args(["--json", "explain"])
            .arg(d.join(format!("k-{name}.fio")))
            .output()
            .unwrap();
        let j = json(&out.stdout);
        assert_eq!(j["jobs"][0]["size_bytes"], 384 << 10, "{name}: explain");
        assert_eq!(j["jobs"][0]["offset_bytes"], 256 << 10, "{name}: explain");
        if !have_fio {
            continue;
        }
        let fio_target = d.join(format!("f-{name}"));
        by_fio(d, &format!("f-{name}"), &job(&fio_target, sizes));
        assert_eq!(
            pattern_blocks(&fio_target),
            pattern_blocks(&target),
            "{name}: fio and kura differ"
        );
        assert_eq!(
            std::fs::metadata(&fio_target).unwrap().len(),
            384 << 10,
            "{name}: fio's file size"
        );
    }
}

/// On a block device `offset=256k size=128k` is 256k..384k too, and the
/// bytes around it stay as they were.
#[test]
fn offset_and_size_on_a_device_are_fio_s_region() {
    if !common::need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let d = dir.path();
    let sizes = "offset=256k\nsize=128k";
    let lo = LoopDevice::sized(1 << 20);
    by_kura(d, "k-dev", &job(&lo.path, sizes), &[]);
    assert_eq!(pattern_blocks(&lo.backing), blocks(256 << 10, 384 << 10), "kura");
    if !common::have("fio") {
        return;
    }
    let lo = LoopDevice::sized(1 << 20);
    by_fio(d, "f-dev", &job(&lo.path, sizes));
    assert_eq!(pattern_blocks(&lo.backing), blocks(256 << 10, 384 << 10), "fio");
}
