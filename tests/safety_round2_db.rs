//! Issue 22, the database's files and other things kura must never write:
//! a user's file hard-linked at SQLite's `-wal`, `-shm` or `-journal`;
//! side files a reading verb would create; the default database's place
//! when `XDG_DATA_HOME` or `HOME` cannot be used; a hard-linked output
//! file; the verify journal at the job's target; loop devices over kura's
//! database or over an image that backs a mounted loop. Every test checks
//! the bytes it must not change, before and after; loop devices and mounts
//! are undone by their own names (tests/common), even when a test fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{LoopDevice, TempMount, kura, need, stderr_of, tmp};

fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Bytes no file format starts with, different in every call.
fn random_bytes(len: usize) -> Vec<u8> {
    let mut x = std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn side(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// A database holding two runs, with no side file left beside it.
fn database_with_a_run(dir: &Path) -> PathBuf {
    let db = dir.join("k.db");
    for _ in 0..2 {
        kura(&db)
            .args(["run", "--engine", "null", "--io-count", "100"])
            .assert()
            .success();
    }
    for suffix in ["-wal", "-shm", "-journal"] {
        assert!(!side(&db, suffix).exists(), "{suffix} left after the run");
    }
    db
}

/// Refused: exit 2, one line on stderr holding `what`, no panic.
fn refused(out: &Output, what: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(what), "wanted {what:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The verbs that open the database: readers, a writer, a measuring one.
fn every_verb(db: &Path) -> Vec<(&'static str, Output)> {
    let run = |args: &[&str]| {
        kura(db)
            .args(args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap()
    };
    vec![
        ("history", run(&["history"])),
        ("show", run(&["show", "latest"])),
        ("compare", run(&["compare", "1", "2"])),
        ("label", run(&["label", "1", "x"])),
        ("run", run(&["run", "--engine", "null", "--io-count", "10"])),
    ]
}

#[test]
fn a_user_file_hard_linked_at_a_side_file_is_refused_by_every_verb_and_unchanged() {
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    let db_before = bytes(&db);
    for suffix in ["-wal", "-shm", "-journal"] {
        let user = dir.path().join(format!("precious{suffix}.bin"));
        let data = random_bytes(200_000);
        std::fs::write(&user, &data).unwrap();
        std::fs::hard_link(&user, side(&db, suffix)).unwrap();
        for (verb, out) in every_verb(&db) {
            let err = stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{verb} with {suffix}: {err}");
            assert!(err.contains(suffix) && err.contains("link"), "{verb}: {err}");
            assert_eq!(err.lines().count(), 1, "{verb}: {err}");
            assert!(
                bytes(&user) == data,
                "{verb} wrote into the file linked at {suffix}"
            );
        }
        std::fs::remove_file(side(&db, suffix)).unwrap();
        assert_eq!(bytes(&db), db_before, "the database changed ({suffix})");
    }
}

#[test]
fn a_side_file_owned_by_someone_else_is_refused() {
    if !common::is_root() {
        return;
    }
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    let wal = side(&db, "-wal");
    let data = random_bytes(4096);
    std::fs::write(&wal, &data).unwrap();
    std::os::unix::fs::chown(&wal, Some(65534), Some(65534)).unwrap();
    for (verb, out) in every_verb(&db) {
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{verb}: {err}");
        assert!(err.contains("-wal") && err.contains("owned"), "{verb}: {err}");
        assert!(bytes(&wal) == data, "{verb} wrote into {}", wal.display());
    }
}

#[test]
fn reading_verbs_create_no_side_file_and_still_read_a_live_wal() {
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    let before = bytes(&db);
    let report = dir.path().join("r.html");
    for args in [
        vec!["history"],
        vec!["show", "latest"],
        vec!["compare", "1", "2"],
        vec!["report", "1", "-o", report.to_str().unwrap()],
    ] {
        let out = kura(&db).args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
        for suffix in ["-wal", "-shm", "-journal"] {
            assert!(!side(&db, suffix).exists(), "{args:?} created {suffix}");
        }
        assert_eq!(bytes(&db), before, "{args:?} wrote the database");
    }
    // Another process's write still in the WAL, not yet in the database: read all the same.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA wal_autocheckpoint=0; UPDATE runs SET label = 'in-the-wal'")
        .unwrap();
    assert!(std::fs::metadata(side(&db, "-wal")).unwrap().len() > 0);
    let out = kura(&db).args(["--json", "history"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let runs = common::json(&out.stdout);
    assert_eq!(runs["runs"][0]["label"], "in-the-wal", "{runs}");
    drop(conn);
}

/// `kura` without `--db`, in `cwd`, with exactly `env` for XDG_DATA_HOME and HOME.
fn default_db_run(cwd: &Path, env: &[(&str, Option<&str>)]) -> Output {
    let mut cmd = common::cmd::kura_plain();
    cmd.current_dir(cwd)
        .args(["--quiet", "run", "--engine", "null", "--io-count", "10"]);
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.output().unwrap()
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

#[test]
fn a_relative_xdg_data_home_is_ignored_and_no_usable_home_is_refused() {
    let cwd = tmp();
    let home = tmp();
    // The XDG spec: a relative path in XDG_DATA_HOME is invalid and ignored.
    let out = default_db_run(
        cwd.path(),
        &[("XDG_DATA_HOME", Some("data")), ("HOME", home.path().to_str())],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        is_empty_dir(cwd.path()),
        "a database was made in the current directory"
    );
    assert!(home.path().join(".local/share/kura/kura.db").is_file());

    for home in [None, Some(""), Some("relative/home")] {
        for xdg in [None, Some("data")] {
            let out = default_db_run(cwd.path(), &[("XDG_DATA_HOME", xdg), ("HOME", home)]);
            refused(&out, "--db");
            assert!(
                is_empty_dir(cwd.path()),
                "HOME={home:?} XDG={xdg:?} made a file here"
            );
        }
    }
}

#[test]
fn an_output_file_with_another_name_is_refused_and_unchanged() {
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    // `report -o` over a file with a second name would write through that name too.
    let user = dir.path().join("notes.txt");
    std::fs::write(&user, b"the user's notes").unwrap();
    let out_path = dir.path().join("r.html");
    std::fs::hard_link(&user, &out_path).unwrap();
    let out = kura(&db)
        .args(["report", "1", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    refused(&out, "r.html");
    assert_eq!(bytes(&user), b"the user's notes");

    // A fio log name hard-linked to a user's file.
    let log = dir.path().join("lg_iops.1.log");
    std::fs::hard_link(&user, &log).unwrap();
    let out = kura(&db)
        .args(["run", "--target"])
        .arg(dir.path().join("t.dat"))
        .args(["--size", "1m", "--io-count", "64", "--write-iops-log"])
        .arg(dir.path().join("lg"))
        .output()
        .unwrap();
    refused(&out, "lg_iops.1.log");
    assert_eq!(bytes(&user), b"the user's notes");
}

#[test]
fn the_verify_journal_is_never_the_target() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    // An earlier journal, large enough to measure: a target a user might name.
    let j = d.join("j");
    let old = d.join("old.dat");
    kura(&db)
        .args(["run", "--target"])
        .arg(&old)
        .args([
            "--size",
            "64m",
            "--rw",
            "write",
            "--io-count",
            "16",
            "--verify",
            "--journal",
        ])
        .arg(&j)
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let hard = d.join("j-hard");
    std::fs::hard_link(&j, &hard).unwrap();
    let linked_dir = d.join("linked-dir");
    std::os::unix::fs::symlink(d, &linked_dir).unwrap();
    let before = bytes(&j);
    for journal in [j.clone(), hard.clone(), linked_dir.join("j")] {
        let out = kura(&db)
            .args(["run", "--rw", "write", "--verify", "--target"])
            .arg(&j)
            .arg("--journal")
            .arg(&journal)
            .args(["--io-count", "16"])
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        refused(&out, "target");
        assert!(
            bytes(&j) == before,
            "journal {} changed the target",
            journal.display()
        );
    }
    // A new test file and the journal at the same name.
    let fresh = d.join("fresh.dat");
    let out = kura(&db)
        .args(["run", "--rw", "write", "--verify", "--size", "1m", "--target"])
        .arg(&fresh)
        .arg("--journal")
        .arg(&fresh)
        .output()
        .unwrap();
    refused(&out, "target");
    assert!(!fresh.exists(), "a file was left at {}", fresh.display());
}

#[test]
fn a_loop_device_over_kuras_database_is_refused() {
    if !need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    // kura's own store of the refusal goes through SQLite, so the file's bytes may
    // change; random blocks written through the loop device would break it.
    let lo = LoopDevice::over_file(&db);
    for allow in [false, true] {
        let mut cmd = kura(&db);
        cmd.args([
            "run",
            "--rw",
            "write",
            "--io-count",
            "16",
            "--bs",
            "512",
            "--target",
        ])
        .arg(&lo.path);
        if allow {
            cmd.arg("--allow-destroy").arg(&lo.path);
        }
        let out = cmd.output().unwrap();
        refused(&out, "kura's database");
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            check,
            "ok",
            "the database under {} was written",
            lo.path.display()
        );
        let runs: i64 = conn
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(runs, 2);
    }
    // In a job file, before the first job measures anything.
    let jobs = dir.path().join("jobs.toml");
    std::fs::write(
        &jobs,
        format!(
            "[[job]]\nname = \"r\"\nrw = \"randread\"\ntarget = \"{}\"\nsize = \"1m\"\nio_count = 64\n\n\
             [[job]]\nname = \"w\"\nrw = \"randwrite\"\nbs = \"512\"\ntarget = \"{}\"\nio_count = 16\n",
            dir.path().join("t.dat").display(),
            lo.path.display()
        ),
    )
    .unwrap();
    let out = kura(&db).arg("run").arg(&jobs).output().unwrap();
    refused(&out, "kura's database");
    assert!(
        out.stdout.is_empty(),
        "a job ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        !dir.path().join("t.dat").exists(),
        "the first job's test file was made"
    );
}

#[test]
fn an_image_that_backs_a_loop_device_is_refused_while_the_device_is_in_use() {
    if !need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    common::mkfs_ext4(&img);
    let lo = LoopDevice::over_file(&img);
    let write_img = |allow: bool| {
        let mut cmd = kura(&db);
        cmd.args(["run", "--rw", "randwrite", "--io-count", "64", "--target"])
            .arg(&img);
        if allow {
            cmd.arg("--allow-destroy").arg(&img);
        }
        cmd.output().unwrap()
    };
    {
        let mounted = TempMount::new(&[], &lo.path);
        std::fs::write(mounted.dir.path().join("f"), b"on the file system").unwrap();
        let before = bytes(&img);
        for allow in [false, true] {
            let out = write_img(allow);
            refused(&out, &lo.path.display().to_string());
            assert!(bytes(&img) == before, "the image of a mounted loop was written");
        }
    }
    // Free now, but still attached: only when --allow-destroy names the image.
    let before = bytes(&img);
    refused(&write_img(false), &lo.path.display().to_string());
    assert!(bytes(&img) == before);
    let out = write_img(true);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // A second loop device over the same image: writing to one while the other is mounted.
    let other = LoopDevice::over_file(&img);
    common::mkfs_ext4(&other.path);
    let _mounted = TempMount::new(&[], &other.path);
    let before = bytes(&img);
    let out = kura(&db)
        .args(["run", "--rw", "randwrite", "--io-count", "64", "--target"])
        .arg(&lo.path)
        .arg("--allow-destroy")
        .arg(&lo.path)
        .output()
        .unwrap();
    refused(&out, &other.path.display().to_string());
    assert!(
        bytes(&img) == before,
        "the image under a mounted loop was written"
    );
}

/// A loop device attached by the test with options `LoopDevice` does not
/// take; detached by its own name on drop.
struct Detach(PathBuf);

impl Drop for Detach {
    fn drop(&mut self) {
        let status = std::process::Command::new("losetup")
            .arg("-d")
            .arg(&self.0)
            .status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!("warning: could not detach {}: {status:?}", self.0.display());
        }
    }
}

#[test]
fn a_loop_device_with_an_offset_is_checked_through_its_whole_backing_file() {
    if !need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    common::mkfs_ext4(&img);
    // Past the file system's first superblock: the device alone shows no signature.
    let lo = Detach(PathBuf::from(common::sh(&format!(
        "losetup -f --show -o 1048576 {}",
        img.display()
    ))));
    assert!(
        lo.0.to_string_lossy().starts_with("/dev/loop"),
        "{}",
        lo.0.display()
    );
    let before = bytes(&img);
    let out = kura(&db)
        .args(["run", "--rw", "randwrite", "--io-count", "64", "--target"])
        .arg(&lo.0)
        .output()
        .unwrap();
    refused(&out, "backing file");
    assert!(
        bytes(&img) == before,
        "the image behind {} was written",
        lo.0.display()
    );
}

#[test]
fn a_new_database_beside_a_planted_side_file_is_refused_and_not_made() {
    let dir = tmp();
    let db = dir.path().join("new.db");
    let user = dir.path().join("precious.bin");
    let data = random_bytes(200_000);
    std::fs::write(&user, &data).unwrap();
    std::fs::hard_link(&user, side(&db, "-wal")).unwrap();
    let out = kura(&db)
        .args(["run", "--engine", "null", "--io-count", "10"])
        .output()
        .unwrap();
    refused(&out, "-wal");
    assert!(bytes(&user) == data, "the file linked at -wal was written");
    assert!(!db.exists(), "an empty database was left");
    assert!(side(&db, "-wal").exists(), "the user's name at -wal was removed");
}

#[test]
fn the_verify_journal_is_never_one_of_the_databases_files() {
    let dir = tmp();
    let db = database_with_a_run(dir.path());
    for suffix in ["-journal", "-wal", "-shm"] {
        let out = kura(&db)
            .args(["run", "--rw", "write", "--verify", "--size", "1m", "--target"])
            .arg(dir.path().join("t.dat"))
            .arg("--journal")
            .arg(side(&db, suffix))
            .output()
            .unwrap();
        refused(&out, "database");
        assert!(!dir.path().join("t.dat").exists(), "the test file was left");
        assert!(
            !side(&db, suffix).exists(),
            "{suffix} was left by the refused run"
        );
    }
}

/// `label` changes runs already stored: a `--db` that names no database is
/// said so, as the reading verbs say it, and no empty database is made.
#[test]
fn label_on_a_missing_database_makes_none() {
    let dir = tmp();
    let typo = dir.path().join("typo.db");
    let out = kura(&typo).args(["label", "1", "fast"]).output().unwrap();
    refused(&out, "no database at");
    assert!(!typo.exists(), "label made an empty database");
}
