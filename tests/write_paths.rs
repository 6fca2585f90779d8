//! Hostile users against the write paths added late: fio's log files
//! (`--write-bw-log` ...) and the verify journal (`--journal`). A link
//! planted at the name (to a file or a device with data), a file with data,
//! a device or FIFO given as the journal to read, a forged journal, a
//! read-only and a full file system. Each test checks the bytes of what
//! must not be written before and after; loop devices are detached and
//! mounts undone by name (tests/common), even when a test fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{LoopDevice, TempMount, kura, stderr_of, tmp};

/// `kura run` of a short job on a new test file in `dir`, with `args`.
fn run(db: &Path, dir: &Path, args: &[&str]) -> Output {
    kura(db)
        .args(["run", "--target"])
        .arg(dir.join("t.dat"))
        .args(["--size", "1m", "--io-count", "256"])
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

/// Refused before anything ran: exit 2, one line naming `what`, no run
/// stored, no test file left.
fn refused_up_front(out: &Output, db: &Path, dir: &Path, what: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(what), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!dir.join("t.dat").exists(), "the test file was left");
    if db.exists() {
        let runs = common::json(&kura(db).args(["--json", "history"]).output().unwrap().stdout);
        assert_eq!(runs["runs"].as_array().map(Vec::len), Some(0), "{runs}");
    }
}

/// A small loop device holding an ext4 file system: data kura must not touch.
fn device_with_data() -> Option<LoopDevice> {
    if !common::need(&["losetup", "mkfs.ext4"]) {
        return None;
    }
    let lo = LoopDevice::sized(8 << 20);
    lo.mkfs_ext4();
    Some(lo)
}

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

/// A small ext4 on a loop device, mounted; full when `fill`. Declared
/// device first so the mount is dropped before it.
fn small_fs(fill: bool) -> Option<(LoopDevice, TempMount)> {
    if !common::need(&["losetup", "mkfs.ext4", "mount"]) {
        return None;
    }
    let lo = LoopDevice::sized(16 << 20);
    common::run(
        std::process::Command::new("mkfs.ext4")
            .args(["-q", "-F", "-m", "0"])
            .arg(&lo.path),
    );
    let mnt = TempMount::new(&[], &lo.path);
    if fill {
        fill_up(&mnt);
    }
    Some((lo, mnt))
}

/// Writes zeros on `mnt` until ENOSPC, synced at each size so delayed
/// allocation gives back no reserve.
fn fill_up(mnt: &TempMount) {
    let d = mnt.dir.path().display();
    common::sh(&format!(
        "for bs in 1M 4k 1k; do dd if=/dev/zero of={d}/fill-$bs bs=$bs 2>/dev/null; sync; done; true"
    ));
}

fn remount_read_only(mnt: &TempMount) {
    common::run(
        std::process::Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(mnt.dir.path()),
    );
}

/// Refused before anything was measured, in one line that names the
/// database and says `cause`, not SQLite's vague words for it.
fn database_refused(out: &Output, name: &str, cause: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(name) && err.contains(cause), "{err}");
    for vague in ["unable to open", "disk I/O error", "File exists", "panicked"] {
        assert!(!err.contains(vague), "{err}");
    }
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// A database (an existing one, a new one) on a file system mounted
/// read-only: exit 2, one line naming it and the cause, no test file made;
/// reading it still works.
#[test]
fn a_database_on_a_read_only_file_system_is_refused_naming_the_cause() {
    let Some((_lo, mnt)) = small_fs(false) else {
        return;
    };
    let dir = tmp();
    let db = mnt.dir.path().join("k.db");
    let out = run(&db, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    remount_read_only(&mnt);
    for name in ["k.db", "new.db"] {
        let out = run(&mnt.dir.path().join(name), dir.path(), &[]);
        database_refused(&out, name, "read-only file system");
        assert!(!dir.path().join("t.dat").exists(), "a test file was left");
    }
    let out = kura(&db).arg("history").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// A database (an existing one, a new one) on a full file system: exit 2,
/// one line naming it and the cause; no new database file is left.
#[test]
fn a_database_on_a_full_file_system_is_refused_naming_the_cause() {
    let Some((_lo, mnt)) = small_fs(false) else {
        return;
    };
    let dir = tmp();
    let out = run(&mnt.dir.path().join("k.db"), dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    fill_up(&mnt);
    for name in ["k.db", "new.db"] {
        let out = run(&mnt.dir.path().join(name), dir.path(), &[]);
        database_refused(&out, name, "no space left on device");
    }
    assert!(
        !mnt.dir.path().join("new.db").exists(),
        "an empty database was left"
    );
}

/// The file system holding the database fills up while a run measures: the
/// run is printed, saved as JSON in the current directory (beside the
/// database there is no room) and said so, exit 1; the error names the
/// database and the cause.
#[test]
fn a_run_whose_database_fills_up_meanwhile_is_printed_and_saved() {
    let Some((_lo, mnt)) = small_fs(false) else {
        return;
    };
    let dir = tmp();
    let db = mnt.dir.path().join("k.db");
    let out = run(&db, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let running = common::Running::start(
        common::kura_command(&db)
            .current_dir(dir.path())
            .args(["--json", "run", "--target", "t.dat", "--size", "1m"])
            .args(["--rw", "randread", "--runtime", "8s"]),
    );
    // The run's row is in the database: it opened it, and is measuring.
    let runs = || -> Option<i64> {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let conn = rusqlite::Connection::open_with_flags(&db, flags).ok()?;
        conn.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0)).ok()
    };
    let running = running.wait_for("the run's row in the database", || runs() == Some(2));
    fill_up(&mnt);
    let out = running.finish();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("k.db") && err.contains("no space left on device"),
        "{err}"
    );
    let printed = common::json(&out.stdout);
    let saved = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("kura-unsaved-run-"))
        .unwrap_or_else(|| panic!("no saved run: {err}"));
    assert!(err.contains(&saved.display().to_string()), "{err}");
    assert_eq!(common::json(&std::fs::read(&saved).unwrap()), printed);
}

#[test]
fn a_fio_log_name_that_is_a_link_to_a_device_or_a_file_is_refused_before_the_run() {
    let Some(lo) = device_with_data() else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious data").unwrap();
    let device_before = bytes(&lo.path);
    std::os::unix::fs::symlink(&lo.path, dir.path().join("dev_bw.1.log")).unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("file_lat.1.log")).unwrap();
    for (flag, prefix) in [("--write-bw-log", "dev"), ("--write-lat-log", "file")] {
        let prefix = dir.path().join(prefix);
        let out = run(&db, dir.path(), &[flag, prefix.to_str().unwrap()]);
        refused_up_front(&out, &db, dir.path(), "is a symbolic link");
    }
    assert_eq!(bytes(&victim), b"precious data");
    assert!(bytes(&lo.path) == device_before, "the device was written");
}

#[test]
fn a_fio_log_in_a_missing_or_read_only_directory_is_refused_before_the_run() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let missing = dir.path().join("no-such-dir/lg");
    let out = run(&db, dir.path(), &["--write-bw-log", missing.to_str().unwrap()]);
    refused_up_front(&out, &db, dir.path(), "no-such-dir");

    let Some((_lo, mnt)) = small_fs(false) else {
        return;
    };
    common::run(
        std::process::Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(mnt.dir.path()),
    );
    let ro = mnt.dir.path().join("lg");
    let out = run(&db, dir.path(), &["--write-iops-log", ro.to_str().unwrap()]);
    refused_up_front(&out, &db, dir.path(), "Read-only file system");
}

#[test]
fn a_fio_log_that_does_not_fit_is_removed_and_the_run_is_kept() {
    let Some((_lo, mnt)) = small_fs(true) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let prefix = mnt.dir.path().join("lg");
    // Long enough for a few 10 ms windows: the log has lines to write.
    let out = kura(&db)
        .args(["run", "--target"])
        .arg(dir.path().join("t.dat"))
        .args([
            "--size",
            "1m",
            "--runtime",
            "300ms",
            "--interval",
            "10ms",
            "--write-bw-log",
        ])
        .arg(&prefix)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        !PathBuf::from(format!("{}_bw.1.log", prefix.display())).exists(),
        "{err}"
    );
    let runs = common::json(&kura(&db).args(["--json", "history"]).output().unwrap().stdout);
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");
}

#[test]
fn an_existing_fio_log_is_replaced_and_kura_says_so_even_quiet() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let log = dir.path().join("lg_iops.1.log");
    std::fs::write(&log, b"an old log\n").unwrap();
    let prefix = dir.path().join("lg");
    let out = run(&db, dir.path(), &["--write-iops-log", prefix.to_str().unwrap()]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("kura: replacing {}", log.display())),
        "{err}"
    );
    assert!(!bytes(&log).starts_with(b"an old log"));
}

/// `--verify --journal PATH` of a job that writes.
fn journal_write(db: &Path, dir: &Path, journal: &Path) -> Output {
    run(
        db,
        dir,
        &[
            "--rw",
            "randwrite",
            "--verify",
            "--journal",
            journal.to_str().unwrap(),
        ],
    )
}

#[test]
fn a_journal_is_never_written_through_a_link_nor_over_data() {
    let Some(lo) = device_with_data() else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious data").unwrap();
    let device_before = bytes(&lo.path);
    let to_device = dir.path().join("dev.journal");
    std::os::unix::fs::symlink(&lo.path, &to_device).unwrap();
    let to_file = dir.path().join("file.journal");
    std::os::unix::fs::symlink(&victim, &to_file).unwrap();
    for (journal, what) in [
        (&to_device, "is a symbolic link"),
        (&to_file, "is a symbolic link"),
        (&victim, "is not a kura journal"),
        (&lo.path, "a block device"),
    ] {
        let out = journal_write(&db, dir.path(), journal);
        refused_up_front(&out, &db, dir.path(), what);
    }
    assert_eq!(bytes(&victim), b"precious data");
    assert!(bytes(&lo.path) == device_before, "the device was written");
}

#[test]
fn a_journal_on_a_full_or_read_only_file_system_is_refused_and_not_left() {
    let Some((_lo, mnt)) = small_fs(true) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let journal = mnt.dir.path().join("j");
    let out = journal_write(&db, dir.path(), &journal);
    refused_up_front(&out, &db, dir.path(), "No space left on device");
    assert!(!journal.exists(), "the journal kura could not write was left");

    common::run(
        std::process::Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(mnt.dir.path()),
    );
    let out = journal_write(&db, dir.path(), &journal);
    refused_up_front(&out, &db, dir.path(), "Read-only file system");
}

#[test]
fn a_journal_read_from_a_device_a_fifo_or_a_forged_file_is_refused_without_panic() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let fifo = dir.path().join("pipe");
    common::sh(&format!("mkfifo {}", fifo.display()));
    // Header: magic, tag, block, span start, and 2^61 blocks (a length that overflows).
    let forged = dir.path().join("forged.journal");
    let mut head = b"KURAJRN1".to_vec();
    for word in [0u64, 4096, 0, 1 << 61] {
        head.extend_from_slice(&word.to_le_bytes());
    }
    head.resize(64, 0);
    std::fs::write(&forged, &head).unwrap();
    for (journal, what) in [
        (Path::new("/dev/zero"), "not a regular file"),
        (fifo.as_path(), "not a regular file"),
        (forged.as_path(), "damaged or truncated"),
    ] {
        let out = run(
            &db,
            dir.path(),
            &[
                "--rw",
                "randread",
                "--verify",
                "--journal",
                journal.to_str().unwrap(),
            ],
        );
        refused_up_front(&out, &db, dir.path(), what);
    }
}

#[test]
fn a_run_whose_report_cannot_be_printed_is_stored_and_its_logs_written() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let prefix = dir.path().join("lg");
    // stdout on /dev/full: every write to it fails with ENOSPC.
    let out = common::kura_command(&db)
        .args(["run", "--target"])
        .arg(dir.path().join("t.dat"))
        .args([
            "--size",
            "1m",
            "--io-count",
            "256",
            "--format",
            "fio-json",
            "--write-bw-log",
        ])
        .arg(&prefix)
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    // 1: measured and kept, not 2 (nothing ran).
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("could not be printed") && err.contains("kura show 1"),
        "{err}"
    );
    assert!(
        PathBuf::from(format!("{}_bw.1.log", prefix.display())).exists(),
        "{err}"
    );
    let runs = common::json(&kura(&db).args(["--json", "history"]).output().unwrap().stdout);
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");
}

#[test]
fn a_server_database_in_a_relative_directory_starts_and_is_removed() {
    if !Path::new("/usr/lib/postgresql/15/bin/postgres").exists() {
        common::missing("postgresql-15");
        return;
    }
    let dir = tmp();
    // The server's own user (postgres) passes through it to its data.
    common::sh(&format!("chmod 755 {}", dir.path().display()));
    std::fs::create_dir(dir.path().join("here")).unwrap();
    let db = dir.path().join("k.db");
    // `here`, relative to kura's working directory: PostgreSQL runs in its data
    // directory, where a relative socket path names nothing.
    let out = kura(&db)
        .current_dir(dir.path())
        .args([
            "suite", "db", "here", "--server", "postgres", "--tests", "connect",
        ])
        .args(["--scale", "0.001"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path().join("here")).unwrap().count(),
        0,
        "left behind"
    );
}

#[test]
fn a_fio_log_named_like_the_file_a_job_reads_does_not_replace_it() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("data_bw.1.log");
    let bytes_before: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&data, &bytes_before).unwrap();
    // The same name, and another name for the same file.
    std::fs::hard_link(&data, dir.path().join("other_bw.1.log")).unwrap();
    for prefix in ["data", "other"] {
        let out = kura(&db)
            .args(["run", "--target"])
            .arg(&data)
            .args(["--rw", "read", "--io-count", "64", "--write-bw-log"])
            .arg(dir.path().join(prefix))
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("the target of a job"), "{err}");
    }
    assert!(
        bytes(&data) == bytes_before,
        "the file the job only read was replaced"
    );
}

#[test]
fn ctrl_c_keeps_the_run_writes_its_log_and_journal_and_removes_the_test_file() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let test_file = dir.path().join("t.dat");
    let journal = dir.path().join("j");
    let prefix = dir.path().join("lg");
    let running = common::Running::start(
        common::kura_command(&db)
            .args(["--json", "run", "--target"])
            .arg(&test_file)
            .args([
                "--size",
                "4m",
                "--rw",
                "randwrite",
                "--runtime",
                "60s",
                "--verify",
            ])
            .arg("--journal")
            .arg(&journal)
            .arg("--write-bw-log")
            .arg(&prefix),
    );
    // Ctrl-C while measuring: the journal exists and a first period is stored.
    let out = running
        .wait_for("the run to measure (a first period stored)", || {
            journal.exists() && common::stored_periods(&db) > 0
        })
        .signal(libc::SIGINT)
        .finish();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(common::json(&out.stdout)["incomplete"], true);
    let stored = common::json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(stored["incomplete"], true, "{stored}");
    assert!(!test_file.exists(), "the test file kura created is removed");
    assert!(bytes(&journal).starts_with(b"KURAJRN1"));
    let log = bytes(&PathBuf::from(format!("{}_bw.1.log", prefix.display())));
    assert!(!log.is_empty(), "{err}");
}

#[test]
fn a_new_database_on_a_full_disk_is_refused_and_leaves_no_empty_file() {
    let Some((_lo, mnt)) = small_fs(true) else {
        return;
    };
    let dir = tmp();
    let db = mnt.dir.path().join("k.db");
    let out = run(&db, dir.path(), &[]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("k.db"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!db.exists(), "an empty database file was left: {err}");
    for side in ["k.db-wal", "k.db-shm", "k.db-journal"] {
        assert!(!mnt.dir.path().join(side).exists(), "{side} was left");
    }
}

/// `kura report -o` onto a full file system: exit 2, one line naming the
/// file and the cause, and no partial report left at the name.
#[test]
fn a_report_that_does_not_fit_is_removed_and_the_error_says_so() {
    let Some((_lo, mnt)) = small_fs(true) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = run(&db, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report = mnt.dir.path().join("r.html");
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&report)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("the partial file was removed"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!report.exists(), "a partial report was left: {err}");
}
