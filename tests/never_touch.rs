//! Data kura must never touch, through the real binary: devices and images
//! that carry a signature only libblkid knows, files kura did not create,
//! links at the names kura chooses, leftovers of a failed suite, input that
//! used to panic, and output paths. Each test checks the bytes before and after.

mod common;

use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LoopDevice, have, kura, need, sh, stderr_of};

const MIB: u64 = 1 << 20;

fn write_at(path: &Path, offset: u64, bytes: &[u8]) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, offset).unwrap();
    f.sync_all().unwrap();
}

/// A pattern no test file kura writes could reproduce by chance.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// md superblock 1.0: 8 KiB before the 4 KiB-aligned end, with mdadm's checksum.
fn md_1_0(size: u64) -> (u64, Vec<u8>) {
    let off = (size & !0xfff) - 0x2000;
    let mut sb = vec![0u8; 256];
    sb[0..4].copy_from_slice(&0xa92b_4efcu32.to_le_bytes());
    sb[4..8].copy_from_slice(&1u32.to_le_bytes());
    sb[16..32].copy_from_slice(&[7u8; 16]);
    sb[32..40].copy_from_slice(b"kuratest");
    sb[136..144].copy_from_slice(&(off >> 9).to_le_bytes());
    sb[144..152].copy_from_slice(&(off >> 9).to_le_bytes());
    let sum: u64 = sb
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64)
        .sum();
    let csum = ((sum & 0xffff_ffff) + (sum >> 32)) as u32;
    sb[216..220].copy_from_slice(&csum.to_le_bytes());
    (off, sb)
}

/// md superblock 0.90: 64 KiB before the 64 KiB-aligned end.
fn md_0_90(size: u64) -> (u64, Vec<u8>) {
    let off = (size & !0xffff) - 0x10000;
    let mut sb = vec![0u8; 4096];
    let words: [u32; 11] = [
        0xa92b_4efc,
        0,
        90,
        0,
        0,
        0x1234_5678,
        0,
        1,
        (off >> 10) as u32,
        2,
        2,
    ];
    for (i, w) in words.iter().enumerate() {
        sb[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
    }
    (off, sb)
}

/// Four ZFS uberblocks in the last label (L3), as libblkid looks for them.
fn zfs_label_at_end(size: u64) -> (u64, Vec<u8>) {
    let label = size - 256 * 1024 - size % (256 * 1024);
    let mut ub = vec![0u8; 4 * 1024];
    for i in 0..4 {
        ub[i * 1024..i * 1024 + 8].copy_from_slice(&0x00ba_b10cu64.to_le_bytes());
        ub[i * 1024 + 8..i * 1024 + 16].copy_from_slice(&5000u64.to_le_bytes());
    }
    (label + 128 * 1024, ub)
}

fn format_device(kind: &str, dev: &Path, dir: &Path, size: u64) {
    let shown = dev.display();
    match kind {
        "f2fs" => {
            sh(&format!("mkfs.f2fs -q -f {shown}"));
        }
        "nilfs2" => {
            sh(&format!("mkfs.nilfs2 -q -f -B 16 {shown}"));
        }
        "squashfs" => {
            let src = dir.join("sq");
            std::fs::create_dir_all(&src).unwrap();
            std::fs::write(src.join("a"), b"hello").unwrap();
            let img = dir.join("sq.img");
            sh(&format!(
                "mksquashfs {} {} -noappend -quiet",
                src.display(),
                img.display()
            ));
            write_at(dev, 0, &std::fs::read(&img).unwrap());
        }
        "md 1.0" | "md 0.90" | "zfs" => {
            let (off, bytes) = match kind {
                "md 1.0" => md_1_0(size),
                "md 0.90" => md_0_90(size),
                _ => zfs_label_at_end(size),
            };
            write_at(dev, off, &bytes);
        }
        _ => unreachable!("{kind}"),
    }
}

#[test]
fn signatures_only_libblkid_knows_refuse_writes() {
    if !need(&["losetup", "wipefs"]) {
        return;
    }
    let size = 64 * MIB;
    for (kind, tool) in [
        ("f2fs", "mkfs.f2fs"),
        ("nilfs2", "mkfs.nilfs2"),
        ("squashfs", "mksquashfs"),
        ("md 1.0", "true"),
        ("md 0.90", "true"),
        ("zfs", "true"),
    ] {
        if !have(tool) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let lo = LoopDevice::new(dir.path(), size).unwrap();
        format_device(kind, &lo.path, dir.path(), size);
        let before = std::fs::read(&lo.path).unwrap();
        let probe = Command::new("wipefs").arg("-n").arg(&lo.path).output().unwrap();
        assert!(
            !String::from_utf8_lossy(&probe.stdout).trim().is_empty(),
            "{kind}: wipefs itself sees nothing, so the test proves nothing"
        );
        let db = dir.path().join("k.db");
        let out = kura(&db)
            .args(["run", "--rw", "write", "--io-count", "64", "--target"])
            .arg(&lo.path)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{kind}: {err}");
        assert!(
            err.contains("--allow-destroy") && err.contains("wipefs"),
            "{kind}: {err}"
        );
        assert!(
            std::fs::read(&lo.path).unwrap() == before,
            "{kind}: the device changed"
        );
    }
}

#[test]
fn a_read_job_reads_an_existing_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let file = dir.path().join("data.bin");
    let original = pattern(3 * MIB as usize);
    std::fs::write(&file, &original).unwrap();

    // A span inside the file: read, nothing resized or refilled.
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "read",
            "--size",
            "1m",
            "--io-count",
            "64",
            "--target",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        std::fs::read(&file).unwrap() == original,
        "run --size 1m changed the file"
    );

    // A span past its end: an error naming both sizes.
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "read",
            "--size",
            "4m",
            "--io-count",
            "64",
            "--target",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("3m") && err.contains("4m"), "{err}");
    assert!(std::fs::read(&file).unwrap() == original);

    // The same through a fio job file and a read-only sweep.
    let fio = dir.path().join("read.fio");
    std::fs::write(
        &fio,
        format!(
            "[r]\nfilename={}\nrw=randread\nsize=1m\nnumber_ios=64\n",
            file.display()
        ),
    )
    .unwrap();
    let out = kura(&db).arg("run").arg(&fio).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        std::fs::read(&file).unwrap() == original,
        "the fio job changed the file"
    );
    let out = kura(&db)
        .args([
            "sweep",
            "--read-pct",
            "100",
            "--bs",
            "4k",
            "--size",
            "1m",
            "--runtime",
            "1s",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        std::fs::read(&file).unwrap() == original,
        "the sweep changed the file"
    );
}

#[test]
fn a_disk_image_is_refused_for_writing_unless_named() {
    if !have("mkfs.ext4") || !have("wipefs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(16 * MIB).unwrap();
    sh(&format!("mkfs.ext4 -q -F {}", img.display()));
    let before = std::fs::read(&img).unwrap();
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "randwrite",
            "--io-count",
            "64",
            "--buffered",
            "--target",
        ])
        .arg(&img)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ext4") && err.contains("--allow-destroy"), "{err}");
    assert!(std::fs::read(&img).unwrap() == before, "the image changed");
    // Named, it is the user's to destroy, and kura writes inside its size.
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "randwrite",
            "--io-count",
            "64",
            "--buffered",
            "--target",
        ])
        .arg(&img)
        .arg("--allow-destroy")
        .arg(&img)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let after = std::fs::read(&img).unwrap();
    assert_eq!(after.len(), before.len());
    assert!(after != before);
}

#[test]
fn links_at_kuras_own_names_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let victim = dir.path().join("precious.dat");
    let original = pattern(MIB as usize);
    std::fs::write(&victim, &original).unwrap();

    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::os::unix::fs::symlink(&victim, work.join("kura-test.dat")).unwrap();
    let out = kura(&db)
        .current_dir(&work)
        .args(["run", "--rw", "write", "--size", "1m", "--io-count", "64"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(std::fs::read(&victim).unwrap() == original);

    std::os::unix::fs::symlink(&victim, work.join("kura-tiobench.dat.1")).unwrap();
    let out = kura(&db)
        .args([
            "suite",
            "tiobench",
            "--threads",
            "2",
            "--file-size",
            "1m",
            "--random-ops",
            "10",
        ])
        .arg(&work)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert!(std::fs::read(&victim).unwrap() == original);
    // The file made for thread 0 before the link was met is gone too.
    assert!(!work.join("kura-tiobench.dat.0").exists());
    assert!(work.join("kura-tiobench.dat.1").is_symlink());
}

#[test]
fn tiobench_removes_the_files_it_made_when_a_later_one_fails() {
    if !need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = LoopDevice::new(dir.path(), 64 * MIB).unwrap();
    sh(&format!("mkfs.ext4 -q -F -m 0 {}", lo.path.display()));
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount {} {}", lo.path.display(), mnt.display()));
    let _mount = common::Mount(mnt.clone());
    let db = dir.path().join("k.db");
    // Four files of 20 MiB do not fit in about 55 MiB: the third one fails.
    let out = kura(&db)
        .args([
            "suite",
            "tiobench",
            "--threads",
            "4",
            "--file-size",
            "20m",
            "--random-ops",
            "10",
        ])
        .arg(&mnt)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let left: Vec<String> = std::fs::read_dir(&mnt)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("kura-tiobench"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_nul_in_a_job_name_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let toml = dir.path().join("nul.toml");
    std::fs::write(
        &toml,
        "[[job]]\nname = \"a\\u0000b\"\nrw = \"read\"\nsize = \"1m\"\nio_count = 10\n",
    )
    .unwrap();
    let fio = dir.path().join("nul.fio");
    std::fs::write(&fio, b"[a\0b]\nrw=read\nsize=1m\nnumber_ios=10\n").unwrap();
    for (file, shown) in [(&toml, "nul.toml:"), (&fio, "nul.fio:")] {
        let out = kura(&db)
            .current_dir(dir.path())
            .arg("run")
            .arg(file)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(shown) && err.contains("NUL"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.path().join("kura-test.dat").exists());
    }
}

#[test]
fn buffers_that_cannot_fit_in_memory_are_refused_before_anything_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .current_dir(dir.path())
        .args([
            "run",
            "--qd",
            "4096",
            "--bs",
            "64m",
            "--size",
            "128m",
            "--io-count",
            "10",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("memory") && err.contains("qd 4096"), "{err}");
    assert!(!dir.path().join("kura-test.dat").exists());
}

fn a_stored_run(db: &Path) {
    kura(db)
        .args(["run", "--engine", "null", "--io-count", "1000", "--size", "1m"])
        .assert()
        .success();
}

#[test]
fn report_output_refuses_devices_and_the_database_and_says_when_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    a_stored_run(&db);

    let db_before = std::fs::read(&db).unwrap();
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&db)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("database"), "{err}");
    assert!(std::fs::read(&db).unwrap() == db_before, "the database changed");

    let html = dir.path().join("r.html");
    std::fs::write(&html, b"old").unwrap();
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&html)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("replacing") && err.contains("r.html"), "{err}");
    let written = std::fs::read_to_string(&html).unwrap();
    assert!(written.contains("<html"), "{written}");

    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let link: PathBuf = dir.path().join("link.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");

    if !need(&["losetup"]) {
        return;
    }
    let lo = LoopDevice::new(dir.path(), 4 * MIB).unwrap();
    let mut f = std::fs::OpenOptions::new().write(true).open(&lo.path).unwrap();
    f.write_all(&pattern(4 * MIB as usize)).unwrap();
    f.sync_all().unwrap();
    let before = std::fs::read(&lo.path).unwrap();
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&lo.path)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("block device"), "{err}");
    assert!(std::fs::read(&lo.path).unwrap() == before, "the device changed");
}

#[test]
fn after_a_lazy_unmount_cleanup_leaves_the_file_now_at_that_name() {
    if !need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = LoopDevice::new(dir.path(), 64 * MIB).unwrap();
    sh(&format!("mkfs.ext4 -q -F -m 0 {}", lo.path.display()));
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount {} {}", lo.path.display(), mnt.display()));
    let _mount = common::Mount(mnt.clone());
    let target = mnt.join("t.dat");
    let db = dir.path().join("k.db");
    let child = common::cmd::child(&db)
        .args([
            "run",
            "--rw",
            "randread",
            "--size",
            "4m",
            "--runtime",
            "5s",
            "--target",
        ])
        .arg(&target)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the test file is made, then pull the file system away from under the run.
    for _ in 0..500 {
        if std::fs::metadata(&target).is_ok_and(|m| m.len() == 4 * MIB) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    sh(&format!("umount -l {}", mnt.display()));
    // The same name on the file system underneath: somebody else's file.
    let original = pattern(MIB as usize);
    std::fs::write(&target, &original).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(
        std::fs::read(&target).unwrap() == original,
        "kura's cleanup touched a file it did not create"
    );
}

/// A file system whose label is bytes that are no UTF-8 (a legacy code
/// page): libblkid prints them raw in its JSON; kura still reads the
/// signature and refuses by its name, instead of failing on the label.
#[test]
fn a_label_that_is_no_utf8_still_refuses_by_the_signature() {
    if !need(&["losetup", "wipefs", "mkfs.ext4", "e2label"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lo = LoopDevice::new(dir.path(), 16 * MIB).unwrap();
    sh(&format!("mkfs.ext4 -q -F {}", lo.path.display()));
    sh(&format!(
        "e2label {} \"$(printf 'caf\\351\\377')\"",
        lo.path.display()
    ));
    let probe = Command::new("wipefs")
        .args(["--no-act", "--json"])
        .arg(&lo.path)
        .output()
        .unwrap();
    assert!(
        std::str::from_utf8(&probe.stdout).is_err(),
        "wipefs printed UTF-8, so the test proves nothing"
    );
    let before = std::fs::read(&lo.path).unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["run", "--rw", "write", "--io-count", "64", "--target"])
        .arg(&lo.path)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ext4") && err.contains("--allow-destroy"), "{err}");
    assert!(!err.contains("other than JSON"), "{err}");
    assert!(std::fs::read(&lo.path).unwrap() == before, "the device changed");
}
