//! Outputs (`report -o`, fio's logs, the verify journal) get the checks a
//! target gets: a disk image, a loop device's backing file, any SQLite
//! database and a new file in /dev are refused with exit 2 and left byte for
//! byte, and an unsaved run's JSON that does not fit leaves no empty file.
//! Images are real ext4 file systems made with mkfs.ext4 on plain files;
//! loop devices are detached and mounts undone by name (tests/common), even
//! when a test fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{LoopDevice, TempMount, kura, stderr_of, tmp};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// An ext4 file system in the plain file `path`, 16 MiB, its inode tables
/// and journal written now so that a mount does not write them later.
fn ext4_image(path: &Path) {
    let f = std::fs::File::create(path).unwrap();
    f.set_len(16 << 20).unwrap();
    common::run(
        Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
            .arg(path),
    );
}

/// `e2fsck -n` finds the image clean (it changes nothing).
fn fsck_clean(path: &Path) {
    let out = Command::new("e2fsck").arg("-fn").arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "e2fsck -n {}: {}{}",
        path.display(),
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
}

/// A quick run stored in `db`, for `report` to have something to render.
fn store_a_run(db: &Path) {
    let out = kura(db)
        .args(["run", "--engine", "null", "--io-count", "1000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// The number of runs `db` holds.
fn runs_in(db: &Path) -> usize {
    let out = kura(db).args(["--json", "history"]).output().unwrap();
    common::json(&out.stdout)["runs"].as_array().map_or(0, Vec::len)
}

/// Refused: exit 2, one line naming `what`, no panic.
fn refused(out: &Output, what: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(what), "expected {what:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn report_to(db: &Path, output: &Path) -> Output {
    kura(db)
        .args(["report", "latest", "-o"])
        .arg(output)
        .output()
        .unwrap()
}

/// `kura run` of a tiny job on a new test file in `dir`, with `args`.
fn tiny_run(db: &Path, dir: &Path, args: &[&str]) -> Output {
    kura(db)
        .args(["run", "--target"])
        .arg(dir.join("t.dat"))
        .args(["--size", "4m", "--runtime", "1s"])
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

#[test]
fn report_over_an_image_that_backs_a_mounted_loop_device_is_refused() {
    if !common::need(&["losetup", "mkfs.ext4", "mount", "e2fsck"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_run(&db);
    let image = dir.path().join("disk.img");
    ext4_image(&image);
    {
        let lo = LoopDevice::over_file(&image);
        let mnt = TempMount::new(&[], &lo.path);
        std::fs::write(mnt.dir.path().join("notes.txt"), b"kept").unwrap();
        common::sh("sync");
        let before = bytes(&image);
        let out = report_to(&db, &image);
        refused(&out, "backs the loop device");
        assert!(
            bytes(&image) == before,
            "the image behind a mounted loop device was written"
        );
        // Declared device first: the mount goes before the device.
        drop(mnt);
        drop(lo);
    }
    fsck_clean(&image);

    // Detached, it is still a disk image: `report` has no --allow-destroy to name it.
    let before = bytes(&image);
    let out = report_to(&db, &image);
    refused(&out, "an ext4 file system");
    assert!(stderr_of(&out).contains("name a new file"), "{}", stderr_of(&out));
    assert!(
        !stderr_of(&out).contains("--allow-destroy"),
        "{}",
        stderr_of(&out)
    );
    assert!(bytes(&image) == before, "the disk image was written");
    fsck_clean(&image);

    // An empty file and a file with text are replaced, as before.
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, b"").unwrap();
    let old = dir.path().join("old.html");
    std::fs::write(&old, b"<p>an old report</p>").unwrap();
    for path in [&empty, &old] {
        let out = report_to(&db, path);
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        assert!(bytes(path).starts_with(b"<!DOCTYPE html>"), "{}", path.display());
    }
}

#[test]
fn report_over_another_kura_database_is_refused() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_run(&db);
    let other = dir.path().join("other.db");
    store_a_run(&other);
    store_a_run(&other);
    let before = bytes(&other);
    let out = report_to(&db, &other);
    refused(&out, "an SQLite database");
    assert!(bytes(&other) == before, "the other database was written");
    assert_eq!(runs_in(&other), 2);

    // A fio log named like one is refused before the run, with the flag that would allow it named.
    let log = dir.path().join("lg_bw.1.log");
    std::fs::copy(&other, &log).unwrap();
    let before = bytes(&log);
    let prefix = dir.path().join("lg");
    let out = tiny_run(&db, dir.path(), &["--write-bw-log", prefix.to_str().unwrap()]);
    refused(&out, "an SQLite database");
    assert!(stderr_of(&out).contains("--allow-destroy"), "{}", stderr_of(&out));
    assert!(
        bytes(&log) == before,
        "the database at the log's name was written"
    );
    assert!(!dir.path().join("t.dat").exists(), "the run started");
    assert_eq!(runs_in(&db), 1);
}

#[test]
fn a_fio_log_over_an_ext4_image_is_refused_before_the_run() {
    if !common::need(&["losetup", "mkfs.ext4", "e2fsck"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let prefix = dir.path().join("q");
    let image = dir.path().join("q_bw.1.log");
    ext4_image(&image);
    let before = bytes(&image);
    let out = tiny_run(&db, dir.path(), &["--write-bw-log", prefix.to_str().unwrap()]);
    refused(&out, "an ext4 file system");
    assert!(bytes(&image) == before, "the image at the log's name was written");
    assert!(!dir.path().join("t.dat").exists(), "the run started");
    assert!(!db.exists() || runs_in(&db) == 0, "a run was stored");
    fsck_clean(&image);

    // Backing a loop device, it is refused even with --allow-destroy naming it.
    {
        let _lo = LoopDevice::over_file(&image);
        let out = tiny_run(
            &db,
            dir.path(),
            &[
                "--write-bw-log",
                prefix.to_str().unwrap(),
                "--allow-destroy",
                image.to_str().unwrap(),
            ],
        );
        refused(&out, "backs the loop device");
        assert!(bytes(&image) == before, "the loop device's file was written");
    }
    fsck_clean(&image);

    // Named by --allow-destroy and attached nowhere, it is the user's to lose.
    let out = tiny_run(
        &db,
        dir.path(),
        &[
            "--engine",
            "null",
            "--write-bw-log",
            prefix.to_str().unwrap(),
            "--allow-destroy",
            image.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(bytes(&image) != before, "the named file was not replaced");
}

/// Removes the files a refused output would have left in /dev, by name,
/// even when the test fails.
struct Leftovers(Vec<PathBuf>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[test]
fn outputs_are_never_new_files_in_dev() {
    if !common::is_root() {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    store_a_run(&db);
    let pid = std::process::id();
    let report = PathBuf::from(format!("/dev/kura-test-report-{pid}.html"));
    let journal = PathBuf::from(format!("/dev/kura-test-journal-{pid}"));
    let log_prefix = PathBuf::from(format!("/dev/kura-test-log-{pid}"));
    let log = PathBuf::from(format!("{}_bw.1.log", log_prefix.display()));
    let _left = Leftovers(vec![report.clone(), journal.clone(), log.clone()]);

    let out = report_to(&db, &report);
    refused(&out, "does not create files in /dev");
    assert!(!report.exists(), "a report was made in /dev");

    let out = tiny_run(
        &db,
        dir.path(),
        &[
            "--rw",
            "randwrite",
            "--verify",
            "--journal",
            journal.to_str().unwrap(),
        ],
    );
    refused(&out, "does not create files in /dev");
    assert!(!journal.exists(), "a journal was made in /dev");

    let out = tiny_run(&db, dir.path(), &["--write-bw-log", log_prefix.to_str().unwrap()]);
    refused(&out, "does not create files in /dev");
    assert!(!log.exists(), "a log was made in /dev");
    assert_eq!(runs_in(&db), 1, "a refused run was stored");
}

/// A small ext4 file system, mounted; declared device first so the mount is
/// dropped before it.
fn small_fs() -> Option<(LoopDevice, TempMount)> {
    if !common::need(&["losetup", "mkfs.ext4", "mount"]) {
        return None;
    }
    let lo = LoopDevice::sized(16 << 20);
    common::run(
        Command::new("mkfs.ext4")
            .args(["-q", "-F", "-m", "0"])
            .arg(&lo.path),
    );
    let mnt = TempMount::new(&[], &lo.path);
    Some((lo, mnt))
}

#[test]
fn an_unsaved_run_that_does_not_fit_leaves_no_empty_file_and_says_why() {
    let Some((_lo, mnt)) = small_fs() else {
        return;
    };
    let here = mnt.dir.path();
    let db = here.join("k.db");
    store_a_run(&db);
    // The database's directory, the current one and $TMPDIR are one full file system.
    let child = common::cmd::child(&db)
        .current_dir(here)
        .env("TMPDIR", here)
        .args(["--json", "run", "--engine", "null", "--runtime", "3s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run's row is written when measuring starts; then the disk fills.
    let deadline = Instant::now() + Duration::from_secs(30);
    while runs_in(&db) < 2 {
        assert!(Instant::now() < deadline, "the run never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    common::sh(&format!(
        "for bs in 1M 4k 1k; do dd if=/dev/zero of={}/fill-$bs bs=$bs 2>/dev/null; sync; done; true",
        here.display()
    ));
    let out = child.wait_with_output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("could not be saved as a file either"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(!err.contains("File exists"), "{err}");
    let left: Vec<PathBuf> = std::fs::read_dir(here)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("kura-unsaved-run-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}; {err}");
}
