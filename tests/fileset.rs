//! File sets (issue 13): real runs of the binary on ext4, xfs and btrfs
//! loop file systems and on a directory of the test disk; the sfs97 mix's
//! shares; what is left behind with and without --keep; symlinks planted
//! inside the set; bad input refused before anything is made.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use common::{LoopDevice, TempMount, json, kura, need, run, tmp};

const MIB: u64 = 1 << 20;

/// Every path below `dir`, relative, with its kind and size: what "exactly
/// what existed before" compares.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            out.push(format!("{rel} {:?} {}", meta.file_type(), meta.len()));
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Operations of the run's first job by name, from `kura --json run`.
fn op_counts(v: &serde_json::Value) -> Vec<(String, u64)> {
    let job = &v["jobs"][0];
    let mut out = Vec::new();
    for dir in ["read", "write"] {
        if let Some(ops) = job[dir]["ops"].as_u64() {
            out.push((dir.to_string(), ops));
        }
    }
    if let Some(map) = job["operations"].as_object() {
        for (k, d) in map {
            out.push((k.clone(), d["ops"].as_u64().unwrap()));
        }
    }
    out
}

/// sfs97's shares as kura maps them (src/jobs/fileset.rs), by stored name.
const SFS97: [(&str, f64); 9] = [
    ("lookup", 35.0),
    ("read", 18.0),
    ("write", 9.0),
    ("stat", 19.0),
    ("readdir", 11.0),
    ("create", 1.0),
    ("delete", 1.0),
    ("setattr", 1.0),
    ("fsync", 5.0),
];

fn sfs97_on(dir: &Path, db: &Path) {
    let before = listing(dir);
    let out = kura(db)
        .arg("--json")
        .args(["run", "--target"])
        .arg(dir)
        .args([
            "--mix",
            "sfs97",
            "--threads",
            "2",
            "--width",
            "4",
            "--files",
            "100",
        ])
        .args(["--io-count", "6000", "--seed", "7"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    let counts = op_counts(&v);
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 6000, "io_count counts every operation once: {counts:?}");
    for (name, want) in SFS97 {
        let got = counts.iter().find(|(n, _)| n == name).map_or(0, |(_, n)| *n) as f64 * 100.0 / total as f64;
        // 6000 draws: a share's standard deviation is under 0.7 points.
        assert!(
            (got - want).abs() < 2.5,
            "{name}: {got:.2} % of operations, want {want} %: {counts:?}"
        );
    }
    let job = &v["jobs"][0];
    assert_eq!(job["job"]["workload"]["fileset"]["mix"], "sfs97");
    assert_eq!(job["target"]["created"], true);
    // 400 KB of files, buffered: the page cache holds them, as a block job would be told.
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("page_cache_holds_data"), "{warnings}");
    assert_eq!(listing(dir), before, "the set is removed, and nothing else");
}

fn on_loop_fs(mkfs: &[&str], fstype: &str) {
    if !need(&["losetup", "mount", mkfs[0]]) {
        return;
    }
    let lo = LoopDevice::sized(320 * MIB);
    run(Command::new(mkfs[0]).args(&mkfs[1..]).arg(&lo.path));
    let mount = TempMount::new(&["-t", fstype], &lo.path);
    let db = tmp();
    sfs97_on(mount.dir.path(), &db.path().join("k.db"));
}

#[test]
fn sfs97_shares_hold_on_ext4() {
    on_loop_fs(&["mkfs.ext4", "-q", "-F", "-m", "0"], "ext4");
}

#[test]
fn sfs97_shares_hold_on_xfs() {
    on_loop_fs(&["mkfs.xfs", "-q", "-f"], "xfs");
}

#[test]
fn sfs97_shares_hold_on_btrfs() {
    on_loop_fs(&["mkfs.btrfs", "-q", "-f"], "btrfs");
}

#[test]
fn keep_leaves_the_set_a_second_run_reuses_it_and_cleanup_leaves_what_was_there() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    std::fs::create_dir(&anchor).unwrap();
    std::fs::write(anchor.join("users-file"), b"mine").unwrap();
    let before = listing(&anchor);
    let args = [
        "--mix",
        "swbuild",
        "--width",
        "3",
        "--files",
        "20",
        "--io-count",
        "500",
    ];
    let first = kura(&db)
        .arg("--json")
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(args)
        .arg("--keep")
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", common::stderr_of(&first));
    assert_eq!(json(&first.stdout)["jobs"][0]["target"]["created"], true);
    let kept = listing(&anchor);
    assert!(kept.len() > before.len() + 60, "{kept:?}");
    assert!(anchor.join("kura-fileset/kura-manifest").exists());
    // The mix deleted and created files and made directories; the kept set is the set as formatted.
    assert!(!kept.iter().any(|l| l.contains("/x0-")), "{kept:?}");

    let second = kura(&db)
        .arg("--json")
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(args)
        .output()
        .unwrap();
    assert!(second.status.success(), "{}", common::stderr_of(&second));
    assert_eq!(
        json(&second.stdout)["jobs"][0]["target"]["created"],
        false,
        "the kept set of the same shape is reused"
    );
    assert_eq!(listing(&anchor), kept, "a set kura found is left as it was found");

    let fresh = dir.path().join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::write(fresh.join("users-file"), b"mine").unwrap();
    let before = listing(&fresh);
    kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&fresh)
        .args([
            "--mix",
            "create=30,delete=30,rename=10,mkdir=15,rmdir=15",
            "--io-count",
            "800",
        ])
        .args(["--width", "2", "--files", "10", "--threads", "2"])
        .assert()
        .success();
    assert_eq!(
        listing(&fresh),
        before,
        "without --keep exactly what was there is left"
    );
    assert_eq!(std::fs::read(fresh.join("users-file")).unwrap(), b"mine");
}

#[test]
fn a_symlink_planted_in_the_set_is_not_followed() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&anchor).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim");
    std::fs::write(&victim, vec![7u8; 8192]).unwrap();
    let shape = ["--width", "2", "--files", "4", "--file-size", "8k"];
    kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(shape)
        .args(["--mix", "getattr=100", "--io-count", "10", "--keep"])
        .assert()
        .success();
    let planted = anchor.join("kura-fileset/d0/f1");
    std::fs::remove_file(&planted).unwrap();
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let mtime = std::fs::metadata(&victim).unwrap().mtime_nsec();

    // Every file in turn: f1 is read, written, touched and fsynced through kura's names.
    let out = kura(&db)
        .arg("--json")
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args(shape)
        .args(["--mix", "read=20,write=20,setattr=20,fsync=20,open=20"])
        .args(["--fileselect", "sequential", "--io-count", "400"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "failed operations: exit 1; {}",
        common::stderr_of(&out)
    );
    let v = json(&out.stdout);
    let errors: u64 = ["read", "write"]
        .iter()
        .map(|d| v["jobs"][0][d]["errors"].as_u64().unwrap())
        .sum();
    assert!(errors > 0, "opening the symlink with O_NOFOLLOW fails");
    assert_eq!(std::fs::read(&victim).unwrap(), vec![7u8; 8192]);
    assert_eq!(std::fs::metadata(&victim).unwrap().mtime_nsec(), mtime);
    assert!(
        std::fs::symlink_metadata(&planted)
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // Another shape: the old set holds a symlink kura did not make, so kura
    // removes nothing of it (it used to remove the set around the link).
    let out = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&anchor)
        .args([
            "--width",
            "3",
            "--files",
            "4",
            "--mix",
            "getattr=100",
            "--io-count",
            "10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr_of(&out);
    assert!(err.contains("f1 (a symlink or another kind of file)"), "{err}");
    assert!(
        anchor.join("kura-fileset/d0/f0").is_file(),
        "the set was removed around the link"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        std::fs::symlink_metadata(&planted)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&victim).unwrap(), vec![7u8; 8192]);

    // A symlink in place of the set's root is refused, and what it points at is not touched.
    let anchor2 = dir.path().join("anchor2");
    std::fs::create_dir(&anchor2).unwrap();
    std::os::unix::fs::symlink(&outside, anchor2.join("kura-fileset")).unwrap();
    let before = listing(&outside);
    let out = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(&anchor2)
        .args(["--mix", "sfs97", "--io-count", "10"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr_of(&out).contains("a symlink"),
        "{}",
        common::stderr_of(&out)
    );
    assert_eq!(listing(&outside), before);
}

#[test]
fn bad_input_exits_2_with_one_line_and_creates_nothing() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    std::fs::create_dir(&anchor).unwrap();
    let file = anchor.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let before = listing(&anchor);
    let cases: [(Vec<String>, &[&str]); 7] = [
        (
            vec![
                "--target".into(),
                anchor.join("missing").display().to_string(),
                "--mix".into(),
                "sfs97".into(),
            ],
            &["no such directory"],
        ),
        (
            vec![
                "--target".into(),
                file.display().to_string(),
                "--mix".into(),
                "sfs97".into(),
            ],
            &["not a directory"],
        ),
        (
            vec![
                "--target".into(),
                anchor.display().to_string(),
                "--mix".into(),
                "read=50,frob=50".into(),
            ],
            &["unknown operation 'frob'"],
        ),
        (
            vec![
                "--target".into(),
                anchor.display().to_string(),
                "--mix".into(),
                "read=50,write=30".into(),
            ],
            &["sum to 80, not 100"],
        ),
        (
            vec![
                "--target".into(),
                anchor.display().to_string(),
                "--width".into(),
                "100".into(),
                "--depth".into(),
                "2".into(),
                "--files".into(),
                "11".into(),
            ],
            &["110000 files", "10100 directories", "inodes free", "--force"],
        ),
        (
            vec![
                "--target".into(),
                anchor.display().to_string(),
                "--file-size".into(),
                "(4k,50,1m,40)".into(),
            ],
            &["sum to 90, not 100"],
        ),
        // A block option a file set would ignore.
        (
            vec![
                "--target".into(),
                anchor.display().to_string(),
                "--mix".into(),
                "sfs97".into(),
                "--qd".into(),
                "32".into(),
            ],
            &["qd", "block I/O", "a fileset job does not use it"],
        ),
    ];
    for (args, want) in cases {
        let out = kura(&db).arg("run").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = common::stderr_of(&out);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        for w in want {
            assert!(err.contains(w), "{args:?}: {err}");
        }
        assert_eq!(listing(&anchor), before, "{args:?} created something");
    }
}

#[test]
fn mdtest_phases_create_stat_read_and_delete_every_file() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let before = listing(dir.path());
    for mix in ["mdtest", "mdtest-shared"] {
        let out = kura(&db)
            .arg("--json")
            .arg("run")
            .arg("--target")
            .arg(dir.path())
            .args(["--mix", mix, "--threads", "2", "--width", "2", "--files", "50"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
        let v = json(&out.stdout);
        let mut counts = op_counts(&v);
        counts.sort();
        assert_eq!(
            counts,
            [("create", 100), ("delete", 100), ("read", 100), ("stat", 100)].map(|(n, c)| (n.to_string(), c)),
            "{mix}"
        );
    }
    // Phases of one's own: on the formatted files (stat, delete), or making their own (create, mkdir).
    for (mix, want) in [
        ("phases:stat,delete", vec![("delete", 100), ("stat", 100)]),
        (
            "phases:create,mkdir,stat",
            vec![("create", 100), ("mkdir", 100), ("stat", 100)],
        ),
    ] {
        let out = kura(&db)
            .arg("--json")
            .arg("run")
            .arg("--target")
            .arg(dir.path())
            .args(["--mix", mix, "--threads", "2", "--width", "2", "--files", "50"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
        let mut counts = op_counts(&json(&out.stdout));
        counts.sort();
        assert_eq!(
            counts,
            want.into_iter()
                .map(|(n, c)| (n.to_string(), c))
                .collect::<Vec<_>>(),
            "{mix}"
        );
    }
    let mut after = listing(dir.path());
    after.retain(|l| !l.starts_with("k.db"));
    let mut want = before;
    want.retain(|l| !l.starts_with("k.db"));
    assert_eq!(after, want);
    // Each thread its own directory needs as many directories as threads.
    let out = kura(&db)
        .arg("run")
        .arg("--target")
        .arg(dir.path())
        .args(["--mix", "mdtest", "--threads", "4", "--width", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr_of(&out).contains("mdtest-shared"));
}

#[test]
fn show_prints_the_per_operation_table_within_80_columns() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    kura(&db)
        .arg("run")
        .arg("--target")
        .arg(dir.path())
        .args([
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "20",
            "--io-count",
            "500",
        ])
        .assert()
        .success();
    let out = kura(&db).args(["show", "latest"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for op in ["lookup", "read", "write", "stat", "readdir", "fsync"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(op)),
            "{op}: {text}"
        );
    }
    assert!(text.contains("p99.9"), "{text}");
    for l in text.lines() {
        assert!(l.chars().count() <= 80, "wider than 80 columns: {l}");
    }
    // compare takes file-set runs too.
    kura(&db)
        .arg("run")
        .arg("--target")
        .arg(dir.path())
        .args([
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "20",
            "--io-count",
            "500",
        ])
        .assert()
        .success();
    let out = kura(&db)
        .args(["--wide", "compare", "1", "2", "--metric", "iops"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for op in ["lookup", "stat", "readdir"] {
        assert!(
            text.lines()
                .any(|l| l.contains("file set sfs97") && l.contains(op)),
            "a compare row per operation, {op}: {text}"
        );
    }
}

/// fio's file engines run as file-set phases: each clone's nrfiles, once.
#[test]
fn fio_file_engines_translate_to_phases() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let anchor = dir.path().join("anchor");
    std::fs::create_dir(&anchor).unwrap();
    let file = dir.path().join("files.fio");
    std::fs::write(
        &file,
        format!(
            "[global]\ndirectory={}\nnrfiles=50\nnumjobs=2\nfilesize=4k\nopenfiles=1\n\
             [create]\nioengine=filecreate\n[stat]\nstonewall\nioengine=filestat\n\
             [del]\nstonewall\nioengine=filedelete\n[dirs]\nstonewall\nioengine=dirdelete\n",
            anchor.display()
        ),
    )
    .unwrap();
    let out = kura(&db).arg("--json").arg("run").arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    let jobs = v["jobs"].as_array().unwrap();
    let want = [
        vec![("create", 100)],
        vec![("stat", 100)],
        vec![("delete", 100)],
        vec![("mkdir", 100), ("rmdir", 100)],
    ];
    assert_eq!(jobs.len(), want.len());
    for (job, want) in jobs.iter().zip(want) {
        let mut counts = op_counts(&serde_json::json!({ "jobs": [job] }));
        counts.sort();
        let want: Vec<(String, u64)> = want.into_iter().map(|(n, c)| (n.to_string(), c)).collect();
        assert_eq!(counts, want);
    }
    assert_eq!(listing(&anchor), Vec::<String>::new());
    // Other engines with several files are still refused, by line.
    std::fs::write(&file, "[a]\nnrfiles=4\nsize=1m\n").unwrap();
    let out = kura(&db).arg("run").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr_of(&out).contains("nrfiles=4"),
        "{}",
        common::stderr_of(&out)
    );
}

/// An sshd in a network namespace of its own, standing in for a NAS; the
/// daemon killed and the namespace deleted, by their names, on drop.
struct Sshd {
    ns: String,
    child: std::process::Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).status();
    }
}

/// sfs97 on sshfs: a network file system, each operation's latency of its
/// own order; the set removed over the network, nothing left on the server.
#[test]
fn sfs97_runs_on_sshfs_and_leaves_the_export_as_it_was() {
    if !need(&["ip", "sshd", "sshfs", "ssh-keygen"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for key in ["host", "client"] {
        run(Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", ""])
            .arg("-f")
            .arg(d.join(key)));
    }
    std::fs::copy(d.join("client.pub"), d.join("authorized_keys")).unwrap();
    let export = d.join("export");
    let mnt = d.join("mnt");
    std::fs::create_dir(&export).unwrap();
    std::fs::create_dir(&mnt).unwrap();
    std::fs::write(export.join("on-the-nas"), b"theirs").unwrap();
    std::fs::create_dir_all("/run/sshd").unwrap();
    let ns = format!("kura-sshfs-{}", std::process::id());
    run(Command::new("ip").args(["netns", "add", &ns]));
    let log = std::fs::File::create(d.join("sshd.log")).unwrap();
    let child = Command::new("ip")
        .args([
            "netns",
            "exec",
            &ns,
            "/usr/sbin/sshd",
            "-D",
            "-e",
            "-f",
            "/dev/null",
        ])
        .arg("-o")
        .arg(format!("HostKey={}", d.join("host").display()))
        .arg("-o")
        .arg(format!(
            "AuthorizedKeysFile={}",
            d.join("authorized_keys").display()
        ))
        .args([
            "-o",
            "ListenAddress=127.0.0.1",
            "-o",
            "Port=2222",
            "-o",
            "StrictModes=no",
        ])
        .args([
            "-o",
            "UsePAM=no",
            "-o",
            "PermitRootLogin=yes",
            "-o",
            "Subsystem=sftp internal-sftp",
        ])
        .arg("-o")
        .arg(format!("PidFile={}", d.join("sshd.pid").display()))
        .stderr(log)
        .spawn()
        .unwrap();
    let _sshd = Sshd {
        ns: ns.clone(),
        child,
    };
    run(Command::new("ip").args(["-n", &ns, "link", "set", "lo", "up"]));
    let mut up = false;
    for _ in 0..100 {
        if std::fs::read_to_string(d.join("sshd.log"))
            .unwrap_or_default()
            .contains("Server listening")
        {
            up = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        up,
        "sshd: {}",
        std::fs::read_to_string(d.join("sshd.log")).unwrap_or_default()
    );
    // Only the ssh client enters the namespace; the FUSE mount stays in this mount namespace.
    run(Command::new("sshfs")
        .arg(format!("root@127.0.0.1:{}", export.display()))
        .arg(&mnt)
        .args([
            "-o",
            "port=2222",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
        ])
        .arg("-o")
        .arg(format!("IdentityFile={}", d.join("client").display()))
        .arg("-o")
        .arg(format!("ssh_command=ip netns exec {ns} ssh")));
    let _mount = common::Mount(mnt.clone());
    let before = listing(&export);
    let db = tmp();
    let out = kura(&db.path().join("k.db"))
        .arg("--json")
        .args(["run", "--target"])
        .arg(&mnt)
        .args([
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "20",
            "--io-count",
            "400",
            "--threads",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    assert_eq!(v["jobs"][0]["target"]["fs_type"], "fuse.sshfs");
    // The server's cache is out of kura's reach, as for a block job on sshfs.
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("unreachable_cache"), "{warnings}");
    let counts = op_counts(&v);
    assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 400);
    for op in ["lookup", "stat", "read", "readdir"] {
        assert!(counts.iter().any(|(n, c)| n == op && *c > 0), "{op}: {counts:?}");
    }
    assert_eq!(
        listing(&export),
        before,
        "the set is removed over the network, and only it"
    );
}

/// Rounds until steady are measured as any job of their kind: a file set's
/// rounds run on its set (they used to go down the block path and were
/// refused: "is a directory; give a file or a block device").
#[test]
fn a_file_set_runs_in_rounds_until_steady() {
    let dir = tmp();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let out = kura(&dir.path().join("k.db"))
        .arg("--json")
        .args(["run", "--target"])
        .arg(&set)
        .args(["--mix", "sfs97", "--files", "20", "--width", "2"])
        .args(["--until-steady", "iops", "--runtime", "100ms"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    let jobs = v["jobs"].as_array().unwrap();
    assert!(jobs.len() >= 5, "PTS's window needs 5 rounds: {}", jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        assert_eq!(j["test"], format!("job round {}", i + 1));
        assert_eq!(j["job"]["workload"]["fileset"]["mix"], "sfs97");
        let ops = op_counts(&serde_json::json!({ "jobs": [j] }));
        assert!(ops.iter().map(|(_, n)| n).sum::<u64>() > 0, "{ops:?}");
    }
    assert!(
        v["warnings"].to_string().contains("\"rounds\""),
        "{}",
        v["warnings"]
    );
    assert_eq!(
        listing(&set),
        Vec::<String>::new(),
        "the set is removed once, at the end"
    );
}

/// explain lists a file-set job as one: not as the randread 4k qd1 on
/// io_uring, direct, that its unused block fields would say.
#[test]
fn explain_names_a_file_set_job_by_its_kind() {
    let dir = tmp();
    let file = dir.path().join("fs.toml");
    std::fs::write(
        &file,
        "[[job]]\nname = \"fs\"\ntarget = \"/mnt/nas\"\nmix = \"sfs97\"\nfiles = 20\n",
    )
    .unwrap();
    let out = kura(&dir.path().join("k.db"))
        .arg("explain")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("fileset"), "{text}");
    assert!(text.contains("mix sfs97"), "{text}");
    for block_only in ["randread", "io_uring", "4k"] {
        assert!(!text.contains(block_only), "{block_only} in:\n{text}");
    }
}

/// A file-set job is stored (and printed as JSON) with run control and its
/// set's parameters only: none of the block options that would call it a
/// `randread` on io_uring, direct. Stored, it still shows and compares.
#[test]
fn a_file_set_job_is_stored_without_block_options() {
    let dir = tmp();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let db = dir.path().join("k.db");
    for _ in 0..2 {
        let out = kura(&db)
            .arg("--json")
            .args(["run", "--target"])
            .arg(&set)
            .args([
                "--mix",
                "create=20,stat=40,read=40",
                "--files",
                "20",
                "--width",
                "2",
            ])
            .args(["--threads", "2", "--runtime", "300ms"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
        let job = &json(&out.stdout)["jobs"][0]["job"];
        for block_only in [
            "rw",
            "bs",
            "read_pct",
            "qd",
            "direct",
            "engine",
            "fill",
            "random_pct",
        ] {
            assert!(job.get(block_only).is_none(), "{block_only} in {job}");
        }
        assert_eq!(job["threads"], 2, "{job}");
        assert_eq!(job["workload"]["fileset"]["mix"], "create=20,stat=40,read=40");
    }
    let shown = kura(&db).args(["--json", "show", "1"]).output().unwrap();
    assert!(shown.status.success(), "{}", common::stderr_of(&shown));
    assert!(json(&shown.stdout)["jobs"][0]["job"].get("rw").is_none());
    let compared = kura(&db).args(["compare", "1", "2"]).output().unwrap();
    assert!(compared.status.success(), "{}", common::stderr_of(&compared));
    let text = String::from_utf8_lossy(&compared.stdout);
    assert!(!text.contains("randread"), "{text}");
}

/// `--fsync-on-close` (an option added through the table, the field and
/// the operation only): every create and write of the set is followed by an
/// fsync of its file, seen by strace; without it the mix makes none.
#[test]
fn fsync_on_close_syncs_every_file_a_create_or_write_changed() {
    if !need(&["strace"]) {
        return;
    }
    let dir = tmp();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let db = dir.path().join("k.db");
    let fsyncs = |extra: &[&str]| -> (u64, u64) {
        let trace = dir.path().join("trace");
        let out = Command::new("strace")
            // -y: each descriptor's path, so the store's own syncs are told apart.
            .args(["-f", "-qq", "-y", "-e", "trace=fsync", "-o"])
            .arg(&trace)
            .arg(common::cmd::bin())
            .arg("--db")
            .arg(&db)
            .arg("--json")
            .args(["run", "--target"])
            .arg(&set)
            .args(["--mix", "create=50,write=50", "--files", "40", "--width", "2"])
            .args(["--io-count", "60"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
        let v = json(&out.stdout);
        let done: u64 = op_counts(&v)
            .iter()
            .filter(|(op, _)| op == "create" || op == "write")
            .map(|(_, n)| n)
            .sum();
        let traced = std::fs::read_to_string(&trace).unwrap();
        let calls = traced
            .lines()
            .filter(|l| l.contains("fsync(") && l.contains("kura-fileset") && l.contains("= 0"))
            .count();
        (done, calls as u64)
    };
    let (done, calls) = fsyncs(&["--fsync-on-close"]);
    assert!(done > 0);
    assert!(calls >= done, "{calls} fsync calls for {done} creates and writes");
    let (done, calls) = fsyncs(&[]);
    assert!(done > 0);
    assert_eq!(calls, 0, "no fsync without the option");
}

/// The block kind's verdicts reach a file set through the one seam: a mix
/// that can complete nothing (rmdir with no directory made) is said to
/// have stalled, beside the skipped operations and the page-cache verdict.
#[test]
fn a_file_set_that_completed_nothing_is_said_so() {
    let dir = tmp();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let out = kura(&dir.path().join("k.db"))
        .arg("--json")
        .args(["run", "--target"])
        .arg(&set)
        .args([
            "--mix",
            "rmdir=100",
            "--files",
            "10",
            "--width",
            "1",
            "--runtime",
            "500ms",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    let kinds: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    for want in ["stalled", "file_ops_skipped", "page_cache_holds_data"] {
        assert!(kinds.contains(&want), "{want} in {kinds:?}");
    }
    assert!(v["warnings"].to_string().contains("no operation completed"));
}

/// compare shows each kind's own figure: an operation that moves no bytes
/// (a stat) is compared in operations per second, labelled so, not as
/// 0.000 MB/s.
#[test]
fn compare_shows_a_stat_in_ops_per_second_not_zero_mb_s() {
    let dir = tmp();
    let set = dir.path().join("set");
    std::fs::create_dir(&set).unwrap();
    let db = dir.path().join("k.db");
    for _ in 0..2 {
        let out = kura(&db)
            .args(["run", "--target"])
            .arg(&set)
            .args([
                "--mix",
                "getattr=100",
                "--files",
                "20",
                "--width",
                "2",
                "--runtime",
                "300ms",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
    }
    let out = kura(&db).args(["--json", "compare", "1", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let v = json(&out.stdout);
    let row = &v["rows"][0];
    assert!(row["label"].as_str().unwrap().ends_with("(ops/s)"), "{row}");
    let value = row["cells"][0]["value"].as_f64().unwrap();
    assert!(value > 100.0, "a stat rate, not MB/s: {row}");
}
