//! Test files at the names kura picks itself (`kura-test.dat`, `PATH.N`,
//! `kura-tiobench.dat.N`, `kura-io500-*.dat`), through the real binary: a
//! user's file at one of them is refused and keeps its bytes, a leftover of
//! a kura killed with SIGKILL is recognised by kura's mark and removed by the
//! next run, and a second kura in the same directory refuses while the
//! first one runs.

mod common;

use std::path::{Path, PathBuf};

use common::{LoopDevice, Running, kura, kura_command, need, sh, stderr_of};

const MIB: usize = 1 << 20;

/// Bytes no test file kura writes could reproduce by chance.
fn random_bytes(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ std::process::id() as u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// kura's mark on a file, when it has one.
fn mark_of(path: &Path) -> Option<String> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut buf = vec![0u8; 1024];
    // SAFETY: `c` is NUL-terminated, `buf` is writable for its length; both live for the call.
    let n = unsafe {
        libc::lgetxattr(
            c.as_ptr(),
            c"user.kura.owner".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// A kura started in `cwd` with `args`, once it measures: each of `files`
/// is `len` bytes long and carries kura's mark (the pre-fill is done), and
/// a first period of its series is stored.
fn measuring(cwd: &Path, db: &Path, args: &[&str], files: &[&str], len: u64) -> Running {
    Running::start(kura_command(db).current_dir(cwd).args(args)).wait_for(
        "the run to measure (its files whole and marked, a first period stored)",
        || {
            files.iter().all(|f| {
                let path = cwd.join(f);
                common::file_of(&path, len) && mark_of(&path).is_some()
            }) && common::stored_periods(db) > 0
        },
    )
}

/// Runs kura in `cwd`; refused with one line naming `file` (as `shown`),
/// exit 2, and `file` holds the same bytes as before.
fn refused_and_untouched(
    cwd: &Path,
    db: &Path,
    args: &[&str],
    file: &Path,
    shown: &str,
    why: &str,
) -> String {
    let before = std::fs::read(file).unwrap();
    let out = kura(db).current_dir(cwd).args(args).output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(shown), "names the file: {err}");
    assert!(err.contains(why), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        std::fs::read(file).unwrap() == before,
        "{} was changed",
        file.display()
    );
    err
}

const NOT_OURS: &str = "is not a file kura made";

#[test]
fn a_users_file_at_the_default_name_is_refused_and_keeps_its_bytes() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let file = work.join("kura-test.dat");
    std::fs::write(&file, random_bytes(MIB)).unwrap();
    // `kura run` in the directory: the error names the relative name it chose.
    refused_and_untouched(
        &work,
        &db,
        &["run", "--rw", "write", "--size", "1m", "--io-count", "64"],
        &file,
        "kura-test.dat",
        NOT_OURS,
    );
    refused_and_untouched(
        &work,
        &db,
        &["run", "--rw", "read", "--size", "1m", "--io-count", "64"],
        &file,
        "kura-test.dat",
        NOT_OURS,
    );
    // `kura mark DIR` picks DIR/kura-test.dat.
    let d = work.to_str().unwrap();
    refused_and_untouched(
        dir.path(),
        &db,
        &[
            "mark",
            d,
            "--size",
            "1m",
            "--runs",
            "1",
            "--runtime",
            "100ms",
            "--interval",
            "0s",
        ],
        &file,
        &file.display().to_string(),
        NOT_OURS,
    );
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        1,
        "nothing else was created"
    );
}

#[test]
fn a_users_file_at_a_per_thread_name_is_refused_and_nothing_is_left() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("DATA");
    let second = dir.path().join("DATA.1");
    std::fs::write(&second, random_bytes(MIB)).unwrap();
    let t = data.to_str().unwrap();
    refused_and_untouched(
        dir.path(),
        &db,
        &[
            "run",
            "--target",
            t,
            "--file-per-thread",
            "--threads",
            "2",
            "--rw",
            "write",
            "--size",
            "1m",
            "--io-count",
            "64",
        ],
        &second,
        &second.display().to_string(),
        NOT_OURS,
    );
    assert!(
        !dir.path().join("DATA.0").exists(),
        "the file made for thread 0 is removed"
    );
}

#[test]
fn a_users_file_at_a_tiobench_name_is_refused() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("kura-tiobench.dat.0");
    std::fs::write(&file, random_bytes(MIB)).unwrap();
    let d = dir.path().to_str().unwrap();
    refused_and_untouched(
        dir.path(),
        &db,
        &[
            "suite",
            "tiobench",
            d,
            "--threads",
            "2",
            "--file-size",
            "1m",
            "--random-ops",
            "10",
        ],
        &file,
        &file.display().to_string(),
        NOT_OURS,
    );
    assert!(!dir.path().join("kura-tiobench.dat.1").exists());
}

#[test]
fn a_users_file_at_an_io500_name_is_refused() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let d = data.to_str().unwrap();
    // The ior-easy file is one per rank, `.0` in one process; the ior-hard file is shared.
    for name in ["kura-io500-easy.dat.0", "kura-io500-hard.dat"] {
        let file = data.join(name);
        std::fs::write(&file, random_bytes(MIB)).unwrap();
        refused_and_untouched(
            dir.path(),
            &db,
            &[
                "suite",
                "io500",
                d,
                "--stonewall",
                "200ms",
                "--easy-size",
                "1m",
                "--easy-transfer",
                "1m",
                "--hard-segments",
                "16",
                "--easy-files",
                "100",
                "--hard-files",
                "16",
            ],
            &file,
            &file.display().to_string(),
            NOT_OURS,
        );
        std::fs::remove_file(&file).unwrap();
        let left: Vec<PathBuf> = std::fs::read_dir(&data)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}

/// A kura killed with SIGKILL while measuring in `work` leaves its test file;
/// the next run there says whose it was, removes it and runs.
fn leftover_is_cleaned(work: &Path, db: &Path) {
    leftovers_are_cleaned(
        work,
        db,
        &[
            "run",
            "--rw",
            "randread",
            "--size",
            "4m",
            "--runtime",
            "30s",
            "--buffered",
        ],
        &["kura-test.dat"],
        &[
            "run",
            "--rw",
            "read",
            "--size",
            "1m",
            "--io-count",
            "16",
            "--buffered",
        ],
    );
}

/// `slow` (run in `work`) is killed with SIGKILL once each of `files` is
/// full and marked; `next` then says whose they were, removes them, runs
/// (exit 0) and leaves none of them.
fn leftovers_are_cleaned(work: &Path, db: &Path, slow: &[&str], files: &[&str], next: &[&str]) {
    let first = measuring(work, db, slow, files, 2 << 20);
    let pid = first.pid();
    first.kill();
    for f in files {
        let mark = mark_of(&work.join(f)).expect("the killed kura's file is left, with its mark");
        assert!(mark.contains(&format!("pid={pid};")), "{mark}");
    }

    let out = kura(db).current_dir(work).args(next).output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{next:?}: {err}");
    for f in files {
        assert!(
            err.lines()
                .any(|l| l.contains(f) && l.contains(&format!("left by kura pid {pid}"))),
            "says what it removed: {err}"
        );
        assert!(
            !work.join(f).exists(),
            "the leftover and the new test file are gone"
        );
    }
}

#[test]
fn leftovers_at_per_thread_names_and_of_mark_dir_are_removed() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    leftovers_are_cleaned(
        dir.path(),
        &db,
        &[
            "run",
            "--target",
            "DATA",
            "--file-per-thread",
            "--threads",
            "2",
            "--rw",
            "randread",
            "--size",
            "2m",
            "--runtime",
            "30s",
            "--buffered",
        ],
        &["DATA.0", "DATA.1"],
        &[
            "run",
            "--target",
            "DATA",
            "--file-per-thread",
            "--threads",
            "2",
            "--rw",
            "read",
            "--size",
            "1m",
            "--io-count",
            "16",
            "--buffered",
        ],
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let w = work.to_str().unwrap().to_string();
    leftovers_are_cleaned(
        &work,
        &db,
        &[
            "run",
            "--rw",
            "randread",
            "--size",
            "2m",
            "--runtime",
            "30s",
            "--buffered",
        ],
        &["kura-test.dat"],
        &[
            "mark",
            &w,
            "--size",
            "1m",
            "--runs",
            "1",
            "--runtime",
            "100ms",
            "--interval",
            "0s",
            "--profile",
            "demo",
        ],
    );
}

#[test]
fn a_second_kura_refuses_the_per_thread_files_of_a_running_one() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let first = measuring(
        dir.path(),
        &db,
        &[
            "run",
            "--target",
            "DATA",
            "--file-per-thread",
            "--threads",
            "2",
            "--rw",
            "randread",
            "--size",
            "2m",
            "--runtime",
            "30s",
            "--buffered",
        ],
        &["DATA.0", "DATA.1"],
        2 << 20,
    );
    let pid = first.pid();
    let out = kura(&db)
        .current_dir(dir.path())
        .args([
            "run",
            "--target",
            "DATA",
            "--file-per-thread",
            "--threads",
            "3",
            "--rw",
            "write",
            "--size",
            "2m",
            "--io-count",
            "16",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("DATA.0") && err.contains(&format!("in use by kura pid {pid}")),
        "{err}"
    );
    assert!(
        !dir.path().join("DATA.2").exists(),
        "nothing is created before the refusal"
    );
    drop(first);
}

#[test]
fn without_user_attributes_a_file_at_an_own_name_is_refused_with_the_command_that_removes_it() {
    if !common::is_root() {
        return;
    }
    // ramfs keeps no user extended attributes (ENOTSUP), as some network file systems.
    let dir = common::tmp();
    let mnt = dir.path().join("ramfs");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount -t ramfs ramfs {}", mnt.display()));
    let _mount = common::Mount(mnt.clone());
    let file = mnt.join("kura-test.dat");
    std::fs::write(&file, random_bytes(64 << 10)).unwrap();
    let err = refused_and_untouched(
        &mnt,
        &dir.path().join("k.db"),
        &[
            "run",
            "--rw",
            "write",
            "--size",
            "64k",
            "--io-count",
            "16",
            "--buffered",
        ],
        &file,
        "kura-test.dat",
        "keeps no extended attributes",
    );
    assert!(err.contains("rm -- kura-test.dat"), "{err}");
}

#[test]
fn a_leftover_of_a_killed_kura_is_recognised_and_removed() {
    let dir = common::tmp();
    leftover_is_cleaned(dir.path(), &dir.path().join("k.db"));
}

#[test]
fn a_leftover_on_ext4_is_recognised_and_removed() {
    if !need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = common::tmp();
    let lo = LoopDevice::new(dir.path(), 64 << 20).unwrap();
    sh(&format!("mkfs.ext4 -q -F -m 0 {}", lo.path.display()));
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(&format!("mount {} {}", lo.path.display(), mnt.display()));
    let _mount = common::Mount(mnt.clone());
    leftover_is_cleaned(&mnt, &dir.path().join("k.db"));
}

#[test]
fn a_second_kura_in_the_same_directory_refuses_while_the_first_runs() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("kura-test.dat");
    let first = measuring(
        dir.path(),
        &db,
        &[
            "run",
            "--rw",
            "randread",
            "--size",
            "4m",
            "--runtime",
            "30s",
            "--buffered",
        ],
        &["kura-test.dat"],
        4 << 20,
    );
    let pid = first.pid();
    for args in [
        &["run", "--rw", "write", "--size", "4m", "--io-count", "64"][..],
        &["run", "--rw", "read", "--size", "1m", "--io-count", "64"][..],
    ] {
        let out = kura(&db).current_dir(dir.path()).args(args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("kura-test.dat") && err.contains(&format!("in use by kura pid {pid}")),
            "{err}"
        );
    }
    // The first one goes on and removes its own file at the end.
    let out = first.signal(libc::SIGINT).finish();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(!file.exists());
}

#[test]
fn a_file_kept_with_keep_is_used_by_the_next_run() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("kura-test.dat");
    let args = [
        "run",
        "--rw",
        "write",
        "--size",
        "1m",
        "--io-count",
        "16",
        "--keep",
    ];
    kura(&db).current_dir(dir.path()).args(args).assert().success();
    let mark = mark_of(&file).expect("a kept file keeps kura's mark");
    assert!(mark.contains("kept"), "{mark}");
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&file).unwrap());
    // Used again, not refilled: the same inode, still there afterwards.
    kura(&db)
        .current_dir(dir.path())
        .args(["run", "--rw", "read", "--size", "1m", "--io-count", "16"])
        .assert()
        .success();
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::ino(&meta), ino);
    assert!(mark_of(&file).unwrap().contains("kept"));
}

#[test]
fn a_link_at_an_io500_name_is_refused_before_any_phase_runs() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let victim = dir.path().join("precious.dat");
    std::fs::write(&victim, random_bytes(MIB)).unwrap();
    std::os::unix::fs::symlink(&victim, data.join("kura-io500-hard.dat")).unwrap();
    let d = data.to_str().unwrap();
    refused_and_untouched(
        dir.path(),
        &db,
        &[
            "suite",
            "io500",
            d,
            "--stonewall",
            "200ms",
            "--easy-size",
            "1m",
            "--easy-transfer",
            "1m",
            "--hard-segments",
            "16",
            "--easy-files",
            "100",
            "--hard-files",
            "16",
        ],
        &victim,
        "kura-io500-hard.dat",
        "symbolic link",
    );
    let left: Vec<PathBuf> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        left,
        [data.join("kura-io500-hard.dat")],
        "the ior-easy phase never ran"
    );
    // Nothing measured, nothing stored: no database, or one without runs.
    let history = kura(&db).args(["--json", "history"]).output().unwrap();
    if history.status.success() {
        let runs = common::json(&history.stdout)["runs"].clone();
        assert_eq!(runs.as_array().map(Vec::len), Some(0), "{runs}");
    }
}
