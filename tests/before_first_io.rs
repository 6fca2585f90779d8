//! Suites and file sets are checked whole before the first I/O (issue 22):
//! a write a suite would be refused is refused before its reads measure; a
//! file set of another shape is checked before anything in it is removed;
//! preconditioning writes only what a write job may write. Real files, loop
//! devices and mounts; every test compares the bytes before and after.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;

/// Every entry below `dir` with its kind and, for a file, a hash of its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Option<u64>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            if meta.is_dir() {
                stack.push(e.path());
                out.insert(rel, None);
            } else {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&std::fs::read(e.path()).unwrap(), &mut h);
                out.insert(rel, Some(std::hash::Hasher::finish(&h)));
            }
        }
    }
    out
}

/// Runs stored in `db`, finished or not (0 when there is no database).
fn stored_runs(db: &Path) -> i64 {
    let Ok(conn) = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return 0;
    };
    conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap_or(0)
}

fn one_line_refusal(out: &std::process::Output) -> String {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

/// `mark disk.img` used to measure its reads for minutes, store them, then
/// refuse the writes: now the image is refused before the first read.
#[test]
fn mark_on_a_disk_image_is_refused_before_any_io_and_stores_nothing() {
    if !need(&["mkfs.ext4", "wipefs"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(32 << 20).unwrap();
    mkfs_ext4(&img);
    let before = std::fs::read(&img).unwrap();
    let out = kura(&db)
        .arg("mark")
        .arg(&img)
        .args([
            "--profile",
            "demo",
            "--runs",
            "1",
            "--runtime",
            "200ms",
            "--interval",
            "0s",
        ])
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(
        err.contains("--allow-destroy") && err.contains("disk.img"),
        "{err}"
    );
    assert_eq!(stored_runs(&db), 0, "the reads were measured and stored");
    assert!(!db.exists(), "the database was made before the refusal");
    assert!(std::fs::read(&img).unwrap() == before, "the image was written");
}

/// `suite io500` over a directory holding a `kura-fileset` kura did not make
/// used to write three phases before refusing the fourth.
#[test]
fn io500_over_a_foreign_file_set_is_refused_before_any_phase() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("kura-fileset")).unwrap();
    std::fs::write(data.join("kura-fileset/thesis.tex"), b"five years of work").unwrap();
    let before = snapshot(&data);
    let out = kura(&db)
        .args(["suite", "io500"])
        .arg(&data)
        .args([
            "--stonewall",
            "200ms",
            "--easy-size",
            "8m",
            "--easy-transfer",
            "1m",
        ])
        .args([
            "--hard-segments",
            "64",
            "--easy-files",
            "1000",
            "--hard-files",
            "64",
        ])
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(err.contains("kura-fileset"), "{err}");
    assert_eq!(snapshot(&data), before, "a phase wrote into the directory");
    assert_eq!(stored_runs(&db), 0);
    assert!(!db.exists(), "the database was made before the refusal");
}

const SET: [&str; 8] = [
    "--width",
    "2",
    "--file-size",
    "8k",
    "--mix",
    "getattr=100",
    "--io-count",
    "10",
];

/// A kept set, then a run of another shape with the user's file put inside:
/// it used to remove the set around the user's file, refuse, and leave a
/// manifest saying `state=complete` over a set that was gone.
#[test]
fn a_kept_set_of_another_shape_holding_a_users_file_is_left_whole() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    std::fs::create_dir(&anchor).unwrap();
    let kept = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(SET)
        .args(["--files", "2", "--keep"])
        .output()
        .unwrap();
    assert!(kept.status.success(), "{}", stderr_of(&kept));
    std::fs::write(anchor.join("kura-fileset/d0/notes.txt"), b"mine").unwrap();
    // A name kura uses, beyond what the manifest lists: the user's too.
    std::fs::write(anchor.join("kura-fileset/d1/f7"), b"also mine").unwrap();
    let before = snapshot(&anchor);
    let out = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(SET)
        .args(["--files", "3"])
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(err.contains("notes.txt") || err.contains("f7"), "{err}");
    assert_eq!(snapshot(&anchor), before, "the set or the user's files changed");
}

/// A set kura left half removed (`state=removing`) is rebuilt, and only the
/// entries its manifest lists go.
#[test]
fn a_kept_set_of_another_shape_is_rebuilt_removing_only_what_it_lists() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    std::fs::create_dir(&anchor).unwrap();
    for files in ["2", "3"] {
        let out = kura(&db)
            .arg("run")
            .arg("--target")
            .arg(&anchor)
            .args(SET)
            .args(["--files", files, "--keep"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    let manifest = std::fs::read_to_string(anchor.join("kura-fileset/kura-manifest")).unwrap();
    assert!(
        manifest.contains("files=3\n") && manifest.contains("state=complete\n"),
        "{manifest}"
    );
    assert!(anchor.join("kura-fileset/d1/f2").is_file());
}

/// Two files of one size used to hold the same bytes, so a deduplicating
/// file system stored one of them.
#[test]
fn files_of_one_size_in_a_set_differ() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(dir.path())
        .args(SET)
        .args(["--files", "2", "--keep", "--threads", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let set = dir.path().join("kura-fileset");
    let a = std::fs::read(set.join("d0/f0")).unwrap();
    let b = std::fs::read(set.join("d0/f1")).unwrap();
    let c = std::fs::read(set.join("d1/f0")).unwrap();
    assert_eq!((a.len(), b.len()), (8192, 8192));
    assert_ne!(a, b, "two files of a leaf hold the same bytes");
    assert_ne!(a, c, "files of two leaves hold the same bytes");
    // Not even one 4 KiB block in common: that is what a dedup collapses.
    assert_ne!(a[..4096], b[..4096]);
    assert_ne!(a[4096..], c[4096..]);
}

/// `--rw read --precondition seq` used to rewrite a user's file: the
/// preconditioning writes, and the read job gave no leave to write.
#[test]
fn preconditioning_a_read_job_on_a_users_file_is_refused_bytes_unchanged() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("photos.tar");
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &data).unwrap();
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "read",
            "--precondition",
            "seq",
            "--runtime",
            "100ms",
            "--target",
        ])
        .arg(&file)
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(
        err.contains("photos.tar") && err.contains("--allow-destroy"),
        "{err}"
    );
    assert!(std::fs::read(&file).unwrap() == data, "the file was rewritten");
    assert_eq!(stored_runs(&db), 0);

    // Named by --allow-destroy, the user has said it may be written.
    let out = kura(&db)
        .args([
            "run",
            "--rw",
            "read",
            "--precondition",
            "seq",
            "--runtime",
            "100ms",
        ])
        .arg("--target")
        .arg(&file)
        .arg("--allow-destroy")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        std::fs::read(&file).unwrap() != data,
        "the preconditioning wrote nothing"
    );
}

/// `mark` on a device smaller than its default 1 GiB used to refuse; it now
/// measures the whole device, as `run` does.
#[test]
fn mark_on_a_small_device_uses_the_whole_device() {
    if !need(&["losetup", "wipefs"]) {
        return;
    }
    let lo = LoopDevice::sized(256 << 20);
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .arg("--json")
        .arg("mark")
        .arg(&lo.path)
        .args([
            "--profile",
            "demo",
            "--runs",
            "1",
            "--runtime",
            "100ms",
            "--interval",
            "0s",
        ])
        .arg("--allow-destroy")
        .arg(&lo.path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let v = json(&out.stdout);
    for job in v["jobs"].as_array().unwrap() {
        assert_eq!(job["target"]["size_bytes"], 256u64 << 20, "{}", job["target"]);
        let span = &job["job"]["size_bytes"];
        assert!(span.is_null() || *span == 256u64 << 20, "{span}");
    }
}

/// A verify that checked nothing used to say every block held and exit 0.
#[test]
fn a_verify_of_no_blocks_says_so_and_exits_1() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("w.dat");
    let journal = dir.path().join("j");
    kura(&db)
        .args([
            "run",
            "--size",
            "1m",
            "--rw",
            "write",
            "--verify",
            "--io-count",
            "1",
            "--target",
        ])
        .arg(&file)
        .arg("--journal")
        .arg(&journal)
        .assert()
        .success();
    // The journal lists the first block; this span starts past it.
    let out = kura(&db)
        .args([
            "run", "--rw", "read", "--verify", "--offset", "512k", "--size", "768k",
        ])
        .args(["--runtime", "100ms", "--target"])
        .arg(&file)
        .arg("--journal")
        .arg(&journal)
        .output()
        .unwrap();
    // Warnings are printed with the report, on stdout.
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr_of(&out));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(!text.contains("every one held"), "{text}");
    assert!(text.contains("checked no block"), "{text}");
}

/// mdtest makes its files as it runs: more of them than there are free
/// inodes used to start, and fail file by file. sfs97's set was refused.
#[test]
fn mdtest_with_more_files_than_free_inodes_is_refused_up_front() {
    if !need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let lo = LoopDevice::sized(64 << 20);
    run(std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", "-N", "64"])
        .arg(&lo.path));
    let mount = TempMount::new(&["-t", "ext4"], &lo.path);
    let dir = tmp();
    let before = snapshot(mount.dir.path());
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg("--target")
        .arg(mount.dir.path())
        .args([
            "--mix",
            "mdtest",
            "--depth",
            "0",
            "--files",
            "1000",
            "--runtime",
            "1s",
        ])
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(err.contains("inodes"), "{err}");
    assert_eq!(snapshot(mount.dir.path()), before, "something was created");
}

/// io500's files are kura's names: a symlink put at one used to be followed
/// when its phase came, into the file it points at, after the phases before
/// it had run.
#[test]
fn io500_refuses_a_symlink_at_its_file_names_before_any_phase() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let victim = dir.path().join("thesis.pdf");
    let bytes: Vec<u8> = (0..(8u32 << 20)).map(|i| (i % 253) as u8).collect();
    std::fs::write(&victim, &bytes).unwrap();
    std::os::unix::fs::symlink(&victim, data.join("kura-io500-hard.dat")).unwrap();
    let before = snapshot(&data);
    let out = kura(&db)
        .args(["suite", "io500"])
        .arg(&data)
        .args([
            "--stonewall",
            "200ms",
            "--easy-size",
            "8m",
            "--easy-transfer",
            "1m",
        ])
        .args([
            "--hard-segments",
            "64",
            "--easy-files",
            "1000",
            "--hard-files",
            "64",
        ])
        .output()
        .unwrap();
    let err = one_line_refusal(&out);
    assert!(
        err.contains("kura-io500-hard.dat") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(
        std::fs::read(&victim).unwrap() == bytes,
        "the linked file was written"
    );
    assert_eq!(snapshot(&data).len(), before.len(), "a phase made a file");
    assert!(!db.exists());
}
