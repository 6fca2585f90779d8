//! Issue 22's second hostile try at kura's inputs: `import run` of files of
//! any size and of runs no kura wrote, placeholders copied from articles as
//! targets, test files in /dev, targets in RAM, escape sequences in CSV,
//! giant names, impossible fio counts, and a file system that shut down
//! under the database.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{LoopDevice, TempMount, finished_jobs, json, kura, need, sh, stderr_of, tmp};

/// A saved kura run, as `show --json` printed it (schema 1).
const RUN: &str = include_str!("fixtures/kura-v1-run1.json");

/// Removes a file a test may have made by its own name, even when the test fails.
struct RemoveFile(PathBuf);

impl Drop for RemoveFile {
    fn drop(&mut self) {
        if std::fs::symlink_metadata(&self.0).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// A refusal: exit 2, one line on stderr, containing each of `words`.
fn refused(out: &std::process::Output, words: &[&str]) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "escape sequences are shown escaped: {err:?}"
    );
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
}

#[test]
fn import_run_refuses_files_larger_than_a_run_without_reading_them() {
    if !common::have("prlimit") || !common::have("mkfifo") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    // Sparse: 2 GB of nothing, which today's reader took into memory.
    let big = dir.path().join("big.json");
    sh(&format!("truncate -s 2G {}", big.display()));
    // 256 MiB of data segment is far less than the file; a reader that
    // reads it all runs out of memory (an abort, not exit 2).
    let out = Command::new("prlimit")
        .arg("--data=268435456")
        .arg(common::cmd::bin())
        .arg("--db")
        .arg(&db)
        .args(["import", "run"])
        .arg(&big)
        .output()
        .unwrap();
    refused(&out, &["big.json", "larger than"]);
    // A device and a FIFO without a writer: refused, never waited on.
    let fifo = dir.path().join("run.fifo");
    sh(&format!("mkfifo {}", fifo.display()));
    for path in [Path::new("/dev/zero"), fifo.as_path()] {
        let out = kura(&db)
            .args(["import", "run"])
            .arg(path)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        refused(&out, &[&path.display().to_string(), "not a regular file"]);
    }
    assert!(!db.exists(), "nothing stored, no database made");
}

#[test]
fn import_run_refuses_what_no_kura_could_have_saved() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let base: serde_json::Value = serde_json::from_str(RUN).unwrap();
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        (
            "id label",
            serde_json::json!({"label": "12"}),
            "reads as a run id",
        ),
        ("latest", serde_json::json!({"label": "latest"}), "latest"),
        (
            "control",
            serde_json::json!({"label": "a\u{1b}[2Jb"}),
            "control characters",
        ),
        (
            "future schema",
            serde_json::json!({"schema_version": 99}),
            "schema_version 99",
        ),
        (
            "far future",
            serde_json::json!({"started_unix_s": 99_999_999_999i64}),
            "started_unix_s",
        ),
        (
            "before 1970",
            serde_json::json!({"started_unix_s": -5}),
            "started_unix_s",
        ),
        (
            "price",
            serde_json::json!({"price": "9 JPY\u{1b}[2J/month"}),
            "price: '9 JPY\\u{1b}[2J/month' is not a price",
        ),
    ];
    for (what, change, why) in cases {
        let mut doc = base.clone();
        for (k, v) in change.as_object().unwrap() {
            doc[k] = v.clone();
        }
        let file = dir.path().join(format!("{}.json", what.replace(' ', "-")));
        std::fs::write(&file, doc.to_string()).unwrap();
        let out = kura(&db).args(["import", "run"]).arg(&file).output().unwrap();
        refused(&out, &[&file.display().to_string(), why]);
        assert!(!db.exists(), "{what}: nothing stored");
    }
    // The file as it was is a run, and stores.
    let file = dir.path().join("ok.json");
    std::fs::write(&file, RUN).unwrap();
    kura(&db).args(["import", "run"]).arg(&file).assert().success();
}

/// `run ARGS` must be refused (exit 2, one line naming the placeholder) and
/// leave nothing at `made`.
fn placeholder_refused(db: &Path, args: &[&str], made: &Path, shown: &str) {
    let _gone = RemoveFile(made.to_path_buf());
    let out = kura(db)
        .arg("run")
        .args(args)
        .env_remove("DEV")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let existed = made.exists();
    refused(&out, &[shown, "placeholder"]);
    assert!(!existed, "{} was created", made.display());
}

#[test]
fn placeholders_are_not_paths() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    // vdbench's own example, copied from an article as it is.
    let vdb = dir.path().join("raw.vdb");
    std::fs::write(
        &vdb,
        "sd=sd1,lun=/dev/{device},openflags=o_direct,size=8m\nwd=wd1,sd=sd*,seekpct=random,rdpct=50,xfersize=8192\n\
         rd=rd1,wd=wd*,elapsed=2,interval=1,iorate=max\n",
    )
    .unwrap();
    placeholder_refused(
        &db,
        &[vdb.to_str().unwrap()],
        Path::new("/dev/{device}"),
        "/dev/{device}",
    );
    // A shell that did not expand it (single quotes), and a man page's <device>.
    for t in ["/dev/${DEV}", "/dev/$DEV", "/dev/<device>", "/dev/{DEVICE}"] {
        placeholder_refused(
            &db,
            &["--target", t, "--size", "1m", "--runtime", "1s"],
            Path::new(t),
            t,
        );
    }
    // The same in a TOML job file and in a fio job file.
    let toml = dir.path().join("j.toml");
    std::fs::write(
        &toml,
        "[[job]]\ntarget = \"/dev/<disk>\"\nsize = \"1m\"\nruntime = \"1s\"\n",
    )
    .unwrap();
    placeholder_refused(
        &db,
        &[toml.to_str().unwrap()],
        Path::new("/dev/<disk>"),
        "/dev/<disk>",
    );
    let fio = dir.path().join("j.fio");
    std::fs::write(&fio, "[a]\nfilename=/dev/{nvme}\nsize=1m\nruntime=1\nrw=read\n").unwrap();
    placeholder_refused(
        &db,
        &[fio.to_str().unwrap()],
        Path::new("/dev/{nvme}"),
        "/dev/{nvme}",
    );
    // fio expands ${DEV} itself, to nothing when it is unset: /dev/ is no target.
    let fio = dir.path().join("env.fio");
    std::fs::write(&fio, "[a]\nfilename=/dev/${DEV}\nsize=1m\nruntime=1\nrw=read\n").unwrap();
    placeholder_refused(&db, &[fio.to_str().unwrap()], Path::new("/dev/${DEV}"), "${DEV}");
    assert!(!db.exists(), "nothing stored");
}

#[test]
fn a_new_test_file_is_never_created_in_dev() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = PathBuf::from(format!("/dev/kura-test-{}.dat", std::process::id()));
    let _gone = RemoveFile(target.clone());
    let out = kura(&db)
        .args(["run", "--target"])
        .arg(&target)
        .args(["--size", "1m", "--runtime", "1s"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let existed = target.exists();
    refused(&out, &[&target.display().to_string(), "/dev"]);
    assert!(!existed, "a test file was created in /dev");
    assert!(
        !db.exists(),
        "nothing created before the refusal, not even the database"
    );
    // The suites make their test files the same way.
    let mark = PathBuf::from(format!("/dev/kura-test-mark-{}.dat", std::process::id()));
    let _mark = RemoveFile(mark.clone());
    let _tio: Vec<RemoveFile> = (0..8)
        .map(|i| RemoveFile(PathBuf::from(format!("/dev/kura-tiobench.dat.{i}"))))
        .collect();
    for args in [
        vec!["mark", mark.to_str().unwrap(), "--size", "1m"],
        vec!["sweep", mark.to_str().unwrap(), "--size", "1m"],
        vec!["suite", "tiobench", "/dev", "--file-size", "1m"],
    ] {
        let out = kura(&db)
            .args(&args)
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        let made = mark.exists() || Path::new("/dev/kura-tiobench.dat.0").exists();
        refused(&out, &["/dev"]);
        assert!(!made, "{args:?}: a test file was created in /dev");
        assert!(!db.exists(), "{args:?}: nothing created, not even the database");
    }
}

/// The stored run's warnings of `kind`, and what the terminal said.
fn memory_warnings(db: &Path, target: &Path) -> (Vec<serde_json::Value>, String) {
    warnings_of(db, target, "memory_file_system")
}

fn warnings_of(db: &Path, target: &Path, kind: &str) -> (Vec<serde_json::Value>, String) {
    let out = kura(db)
        .args(["run", "--target"])
        .arg(target)
        .args(["--rw", "randread", "--runtime", "1s"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let terminal = String::from_utf8_lossy(&out.stdout).into_owned();
    let shown = json(
        &kura(db)
            .args(["show", "latest", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    let warnings = shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .chain(
            shown["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|j| j["warnings"].as_array().into_iter().flatten()),
        )
        .filter(|w| w["kind"] == kind)
        .cloned()
        .collect();
    (warnings, terminal)
}

#[test]
fn a_target_in_ram_is_flagged_as_memory() {
    if !need(&["mount"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let mnt = TempMount::new(&["-t", "tmpfs", "-o", "size=16m"], Path::new("tmpfs"));
    let file = mnt.dir.path().join("t.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let (w, terminal) = memory_warnings(&db, &file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["fs_type"], "tmpfs");
    assert!(terminal.contains("is on tmpfs"), "{terminal}");
    // A file left in /dev (devtmpfs) by an earlier run: RAM too.
    let file = PathBuf::from(format!("/dev/kura-test-mem-{}.dat", std::process::id()));
    let _gone = RemoveFile(file.clone());
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let (w, terminal) = memory_warnings(&db, &file);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["fs_type"], "devtmpfs");
    assert!(terminal.contains("is on devtmpfs"), "{terminal}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        vec![7u8; 4 << 20],
        "read, never written"
    );
}

#[test]
fn writes_to_a_loop_device_over_ram_are_flagged_too() {
    if !need(&["mount", "losetup"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let mnt = TempMount::new(&["-t", "tmpfs", "-o", "size=24m"], Path::new("tmpfs"));
    let backing = mnt.dir.path().join("disk.img");
    std::fs::File::create(&backing)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let dev = LoopDevice::over_file(&backing);
    let out = kura(&db)
        .args(["run", "--target"])
        .arg(&dev.path)
        .args(["--rw", "randwrite", "--runtime", "1s"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let shown = json(
        &kura(&db)
            .args(["show", "latest", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    let jobs = shown["jobs"].as_array().unwrap();
    let kinds: Vec<&str> = shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .chain(
            jobs.iter()
                .flat_map(|j| j["warnings"].as_array().into_iter().flatten()),
        )
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"loop_over_memory"), "{kinds:?}");
    drop(dev);
}

/// A zram device of this test's own, reset and removed on drop.
struct Zram(u32);

impl Zram {
    fn new(bytes: u64) -> Option<Zram> {
        let control = Path::new("/sys/class/zram-control/hot_add");
        if !control.exists() {
            common::missing("zram (/sys/class/zram-control)");
            return None;
        }
        let n: u32 = std::fs::read_to_string(control).unwrap().trim().parse().unwrap();
        let z = Zram(n);
        std::fs::write(format!("/sys/block/zram{n}/disksize"), bytes.to_string()).unwrap();
        Some(z)
    }

    fn path(&self) -> PathBuf {
        PathBuf::from(format!("/dev/zram{}", self.0))
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Just after kura exits or the file system on it is unmounted, the
        // kernel may still hold the device for a moment: reset and
        // hot_remove answer EBUSY, and a single try left one zram device
        // behind per run (37 were found on this machine).
        let mut last = None;
        for _ in 0..100 {
            let _ = std::fs::write(format!("/sys/block/zram{}/reset", self.0), "1");
            match std::fs::write("/sys/class/zram-control/hot_remove", self.0.to_string()) {
                Ok(()) => return,
                Err(e) => last = Some(e),
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if let Some(e) = last {
            eprintln!("warning: could not remove zram{}: {e}", self.0);
        }
    }
}

#[test]
fn a_zram_device_is_flagged_as_memory() {
    if !common::is_root() {
        return;
    }
    let Some(zram) = Zram::new(16 << 20) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (w, terminal) = warnings_of(&db, &zram.path(), "memory_block_device");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["device"], format!("zram{}", zram.0));
    assert!(terminal.contains("a block device kept in RAM"), "{terminal}");
}

/// A file on a file system made on a memory disk is in RAM as much as the
/// disk is: the device is named in the warning.
#[test]
fn a_file_on_a_file_system_on_a_loop_device_over_ram_is_flagged() {
    if !need(&["mount", "losetup", "mkfs.ext4"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    // Dropped in reverse: the ext4 mount, the loop device, then the tmpfs.
    let ram = TempMount::new(&["-t", "tmpfs", "-o", "size=40m"], Path::new("tmpfs"));
    let backing = ram.dir.path().join("disk.img");
    std::fs::File::create(&backing)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let dev = LoopDevice::over_file(&backing);
    sh(&format!("mkfs.ext4 -q {}", dev.path.display()));
    let fs = TempMount::new(&[], &dev.path);
    let file = fs.dir.path().join("t.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let (w, terminal) = warnings_of(&db, &file, "loop_over_memory");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["path"], dev.path.display().to_string());
    assert_eq!(w[0]["fs_type"], "tmpfs");
    let words = terminal.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("the numbers measure RAM"), "{terminal}");
    drop(fs);
    drop(dev);
}

#[test]
fn a_file_on_a_file_system_on_zram_is_flagged() {
    if !common::is_root() || !need(&["mount", "mkfs.ext4"]) {
        return;
    }
    let Some(zram) = Zram::new(32 << 20) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    sh(&format!("mkfs.ext4 -q {}", zram.path().display()));
    let fs = TempMount::new(&[], &zram.path());
    let file = fs.dir.path().join("t.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let (w, terminal) = warnings_of(&db, &file, "memory_block_device");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["device"], format!("zram{}", zram.0));
    assert!(terminal.contains("a block device kept in RAM"), "{terminal}");
    drop(fs);
}

/// A run JSON with `host.hostname` and the first job's name replaced.
fn run_named(dir: &Path, hostname: &str, job: &str) -> PathBuf {
    let mut doc: serde_json::Value = serde_json::from_str(RUN).unwrap();
    doc["host"]["hostname"] = hostname.into();
    doc["jobs"][0]["job"]["name"] = job.into();
    doc["label"] = serde_json::Value::Null;
    let file = dir.join(format!("run-{}.json", job.len()));
    std::fs::write(&file, doc.to_string()).unwrap();
    file
}

#[test]
fn csv_escapes_control_characters_as_the_tables_do() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = run_named(dir.path(), "vm\u{1b}]0;owned\u{7}", "job\u{1b}[2J\r");
    kura(&db).args(["import", "run"]).arg(&file).assert().success();
    // A label stored by a kura that took anything.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE runs SET label = 'l\u{1b}[31m\u{9b}1m'", [])
        .unwrap();
    drop(conn);
    for args in [
        &["history", "--format", "csv"][..],
        &["show", "1", "--format", "csv"],
    ] {
        let out = kura(&db).args(args).output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\r', '\u{9b}']),
            "{args:?}: {text:?}"
        );
        assert!(text.contains("\\u{1b}"), "{args:?}: {text}");
    }
}

#[test]
fn a_giant_imported_name_is_cut_for_display() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let name = "n".repeat(100_000);
    let file = run_named(dir.path(), "vm", &name);
    kura(&db).args(["import", "run"]).arg(&file).output().unwrap();
    let out = kura(&db).args(["history", "--wide"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.len() < 8_000, "history is {} bytes", text.len());
    assert!(text.contains('…'), "{text}");
    // The run's own table shows the name's start too.
    let out = kura(&db).args(["show", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.len() < 8_000, "show is {} bytes", text.len());
    assert!(text.contains('…'), "{text}");
    // Stored as it was.
    let shown = json(&kura(&db).args(["show", "1", "--json"]).output().unwrap().stdout);
    assert_eq!(shown["jobs"][0]["job"]["name"], name.as_str());
}

#[test]
fn a_fio_count_beyond_any_integer_is_refused() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("fio.json");
    let dir_json = |io_bytes: f64| {
        serde_json::json!({
            "io_bytes": io_bytes, "bw_bytes": 4096.0, "iops": 1.0, "runtime": 1000,
            "total_ios": 1,
            "lat_ns": { "min": 2, "max": 10, "mean": 5.0, "stddev": 1.5, "N": 1,
                        "percentile": { "50.000000": 5 } }
        })
    };
    std::fs::write(
        &file,
        serde_json::json!({
            "fio version": "fio-3.33", "timestamp": 1795318972,
            "jobs": [{ "jobname": "a", "job options": { "rw": "read" },
                       "read": dir_json(2f64.powi(70)) }]
        })
        .to_string(),
    )
    .unwrap();
    let out = kura(&db).args(["import", "fio"]).arg(&file).output().unwrap();
    refused(&out, &["jobs[0].read.io_bytes"]);
    assert!(!db.exists(), "nothing stored");
}

#[test]
fn a_file_system_shut_down_under_the_database_is_an_io_error_not_damage() {
    if !need(&["losetup", "mkfs.xfs", "xfs_io", "mount"]) {
        return;
    }
    let dir = tmp();
    let Some(dev) = LoopDevice::new(dir.path(), 320 << 20) else {
        return;
    };
    common::run(Command::new("mkfs.xfs").arg("-q").arg(&dev.path));
    let mnt = TempMount::new(&[], &dev.path);
    let db = mnt.dir.path().join("k.db");
    let jobs = dir.path().join("two.toml");
    let job = |n: &str| {
        format!(
            "[[job]]\nname = \"{n}\"\nengine = \"null\"\ntarget = \"{}\"\nsize = \"1m\"\nruntime = \"3s\"\ninterval = \"100ms\"\n",
            dir.path().join(format!("{n}.dat")).display()
        )
    };
    std::fs::write(&jobs, job("a") + &job("b")).unwrap();
    let child = common::cmd::child(&db)
        .arg("run")
        .arg(&jobs)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first job is stored; the file system stops under the second.
    let mut waited = 0;
    while finished_jobs(&db) < 1 && waited < 600 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    sh(&format!("xfs_io -x -c shutdown {}", mnt.dir.path().display()));
    let out = child.wait_with_output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("I/O error"), "{err}");
    assert!(!err.contains("malformed") && !err.contains("damaged"), "{err}");
    // The run is not lost: it is saved beside, in the current directory.
    assert!(err.contains("kura-unsaved-run-"), "{err}");
}
