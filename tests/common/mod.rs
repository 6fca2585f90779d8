//! Shared by the integration tests: the binary, temp dirs, the rule for
//! missing tools, and the real things a test sets up (loop devices, mounts,
//! cgroups), each undone by its own name on drop even when a test fails.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod cmd;
pub mod nshosts;
mod running;
pub mod source;

// Each test file is its own crate: one that starts nothing in the background uses none of it.
#[allow(unused_imports)]
pub use running::*;

pub fn kura(db: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("kura").expect("the kura binary is built");
    cmd.arg("--db").arg(db).arg("--quiet");
    cmd
}

/// A fresh directory for a test, on a disk (`/var/tmp`, or `KURA_TEST_DIR`):
/// not on tmpfs, whose memory would change what the numbers mean.
pub fn tmp() -> tempfile::TempDir {
    tempfile::tempdir_in(std::env::var("KURA_TEST_DIR").unwrap_or_else(|_| "/var/tmp".into())).unwrap()
}

/// What a test needs is missing: under `KURA_REQUIRE_ALL` (CI) the test
/// fails; otherwise it says so and the caller skips.
pub fn missing(what: &str) {
    assert!(
        std::env::var("KURA_REQUIRE_ALL").is_err(),
        "{what} is required (KURA_REQUIRE_ALL=1)"
    );
    eprintln!("note: {what} not found; skipping");
}

/// True when `tool` is on PATH; see `missing` for when it is not.
pub fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        missing(tool);
    }
    found
}

/// True when running as root; see `missing` for when not.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        missing("root");
    }
    root
}

/// Root and every tool: whether a test that sets up devices can run.
pub fn need(tools: &[&str]) -> bool {
    is_root() && tools.iter().all(|t| have(t))
}

pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(output)))
}

pub fn sh(cmd: &str) -> String {
    let out = Command::new("sh").arg("-c").arg(cmd).output().expect("sh runs");
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Runs a command that must succeed; its stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn mkfs_ext4(dev: &Path) {
    run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(dev));
}

/// A loop device over a file; detached by its own name on drop.
pub struct LoopDevice {
    pub path: PathBuf,
    pub backing: PathBuf,
    /// The backing file when the device made it in /tmp (removed after the detach).
    _temp: Option<tempfile::NamedTempFile>,
}

impl LoopDevice {
    /// A device over a new sparse file in `dir`; `None` (skip) without losetup.
    pub fn new(dir: &Path, size_bytes: u64) -> Option<LoopDevice> {
        if !have("losetup") {
            return None;
        }
        let backing = dir.join("loop-backing.img");
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(size_bytes).unwrap();
        Some(LoopDevice::attach(backing, None, false))
    }

    /// A device over a new sparse temp file in /tmp; the caller checked for losetup.
    pub fn sized(bytes: u64) -> LoopDevice {
        LoopDevice::over(bytes, &[], false)
    }

    /// `prefix` is written at the start of the backing file; `partscan` asks for partition devices.
    pub fn over(bytes: u64, prefix: &[u8], partscan: bool) -> LoopDevice {
        let temp = tempfile::Builder::new()
            .prefix("kura-loop-")
            .tempfile_in("/tmp")
            .unwrap();
        std::fs::write(temp.path(), prefix).unwrap();
        temp.as_file().set_len(bytes).unwrap();
        LoopDevice::attach(temp.path().to_path_buf(), Some(temp), partscan)
    }

    /// A device over an existing file the test made (and removes).
    pub fn over_file(backing: &Path) -> LoopDevice {
        LoopDevice::attach(backing.to_path_buf(), None, false)
    }

    /// A device over a new temp file in /tmp written in full with `fill`,
    /// reading it with direct I/O (`losetup --direct-io=on`): its reads reach
    /// the disk under /tmp, not the host's page cache, as a real disk's do.
    pub fn direct(bytes: usize, fill: u8) -> LoopDevice {
        let temp = tempfile::Builder::new()
            .prefix("kura-loop-")
            .tempfile_in("/tmp")
            .unwrap();
        std::fs::write(temp.path(), vec![fill; bytes]).unwrap();
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show", "--direct-io=on"]);
        LoopDevice::attach_with(cmd, temp.path().to_path_buf(), Some(temp))
    }

    /// `MAJ:MIN` of the device, as blkio's throttle files take it.
    pub fn majmin(&self) -> String {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.path).unwrap().rdev();
        format!("{}:{}", libc::major(rdev), libc::minor(rdev))
    }

    /// A loop device stacked on the block device `dev`, with more losetup
    /// arguments (`-o 16M --sizelimit 8M`): a stack of loops, as a disk
    /// carved up by a tool that leaves no holders would be.
    pub fn over_device(dev: &Path, args: &[&str]) -> LoopDevice {
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show"]).args(args);
        LoopDevice::attach_with(cmd, dev.to_path_buf(), None)
    }

    fn attach(backing: PathBuf, temp: Option<tempfile::NamedTempFile>, partscan: bool) -> LoopDevice {
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show"]);
        if partscan {
            cmd.arg("-P");
        }
        LoopDevice::attach_with(cmd, backing, temp)
    }

    fn attach_with(mut cmd: Command, backing: PathBuf, temp: Option<tempfile::NamedTempFile>) -> LoopDevice {
        let path = PathBuf::from(run(cmd.arg(&backing)).trim());
        // The guard exists before any check can panic, so the device is always detached.
        let lo = LoopDevice {
            path,
            backing,
            _temp: temp,
        };
        assert!(
            lo.path.to_string_lossy().starts_with("/dev/loop"),
            "{:?}",
            lo.path
        );
        lo
    }

    pub fn mkfs_ext4(&self) {
        mkfs_ext4(&self.path);
    }

    /// `loop3` for /dev/loop3.
    pub fn name(&self) -> String {
        self.path.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let status = Command::new("losetup").arg("-d").arg(&self.path).status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!("warning: could not detach {}: {status:?}", self.path.display());
        }
    }
}

/// A mount on `dir`, unmounted (lazily, so a busy one goes too) on drop.
pub struct Mount(pub PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let status = Command::new("umount").arg("-l").arg(&self.0).status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!("warning: could not unmount {}: {status:?}", self.0.display());
        }
    }
}

/// A mount on a fresh temp dir: unmounted, then the dir removed, on drop.
/// Declare it after the `LoopDevice` it mounts, so it is dropped first.
pub struct TempMount {
    // Fields drop in order: the mount before its directory.
    _mount: Mount,
    pub dir: tempfile::TempDir,
}

impl TempMount {
    /// `mount ARGS SOURCE DIR`.
    pub fn new(args: &[&str], source: &Path) -> TempMount {
        let dir = tempfile::tempdir().unwrap();
        run(Command::new("mount").args(args).arg(source).arg(dir.path()));
        TempMount {
            _mount: Mount(dir.path().to_path_buf()),
            dir,
        }
    }
}

/// A cgroup v1 blkio group, removed by its own name on drop.
pub struct Cgroup(pub PathBuf);

impl Cgroup {
    /// A new blkio group named for the test and this process; `None` (skip)
    /// where cgroup v1 blkio is not available.
    pub fn blkio(name: &str) -> Option<Cgroup> {
        let root = Path::new("/sys/fs/cgroup/blkio");
        if !root.join("cgroup.procs").exists() {
            missing("cgroup v1 blkio");
            return None;
        }
        let group = Cgroup(root.join(format!("kura-test-{name}-{}", std::process::id())));
        std::fs::create_dir(&group.0).unwrap();
        Some(group)
    }
}

/// Runs kura inside `cg` (the throttle applies to the I/O its threads issue), with `--json`.
pub fn kura_in(cg: &Cgroup, db: &Path, args: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("kura");
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} --db {} --json --quiet {args}",
        cg.0.display(),
        bin.display(),
        db.display(),
    );
    Command::new("sh").arg("-c").arg(&script).output().unwrap()
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A run as an older kura printed it, in today's JSON (schema 2, docs/json.md): a
/// suite's run is the run object with its table beside the fields, not
/// `{"run": ..., "tests": ...}`; durations are `*_ns` integers, not
/// `{"secs","nanos"}`; the document says its `schema_version`. Nothing else changed.
pub fn as_schema_2(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(run) = v.get("run").cloned() {
        let mut flat = run.as_object().unwrap().clone();
        for (k, x) in v.as_object().unwrap() {
            if k != "run" {
                flat.insert(k.clone(), x.clone());
            }
        }
        v = serde_json::Value::Object(flat);
    }
    for job in v["jobs"].as_array_mut().unwrap() {
        let job = job["job"].as_object_mut().unwrap();
        for key in ["runtime", "ramp", "interval", "start_delay", "think_time"] {
            if let Some(d) = job.remove(key) {
                let ns = d
                    .as_object()
                    .map(|d| d["secs"].as_u64().unwrap() * 1_000_000_000 + d["nanos"].as_u64().unwrap());
                job.insert(format!("{key}_ns"), serde_json::json!(ns));
            }
        }
        // read_pct as issued: a pure read 100, a pure write 0 (issue 17).
        let issued = match job["rw"].as_str() {
            Some("read" | "randread") => Some(100),
            Some("write" | "randwrite") => Some(0),
            _ => None,
        };
        if let Some(pct) = issued {
            job.insert("read_pct".into(), serde_json::json!(pct));
        }
    }
    v["schema_version"] = serde_json::json!(2);
    v
}

/// The paths where two documents differ, at most 10.
pub fn differ(a: &serde_json::Value, b: &serde_json::Value, at: String, out: &mut Vec<String>) {
    use serde_json::Value::{Array, Object};
    if out.len() >= 10 {
        return;
    }
    match (a, b) {
        (Object(x), Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => differ(u, v, format!("{at}/{k}"), out),
                    (u, v) => out.push(format!("{at}/{k}: {u:?} vs {v:?}")),
                }
            }
        }
        (Array(x), Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differ(u, v, format!("{at}[{i}]"), out);
            }
        }
        // That kura parsed stored numbers without serde_json's float_roundtrip,
        // one unit in the last place off; this one reads them exactly.
        (serde_json::Value::Number(x), serde_json::Value::Number(y))
            if x.is_f64()
                && y.is_f64()
                && (x.as_f64().unwrap() - y.as_f64().unwrap()).abs()
                    <= 4.0 * f64::EPSILON * x.as_f64().unwrap().abs() => {}
        _ if a != b => out.push(format!("{at}: {a} vs {b}")),
        _ => {}
    }
}

/// True when `tool` is on PATH; nothing said or required when it is not
/// (for optional extra checks, such as a shell parsing a completion script).
pub fn have_quietly(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// How many jobs of the store's runs have finished, read while kura is
/// still running (0 while the store does not exist yet or is busy): tests
/// send Ctrl-C once a first job is stored, not after a guessed sleep.
pub fn finished_jobs(db: &Path) -> i64 {
    let Ok(conn) = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return 0;
    };
    conn.query_row("SELECT COUNT(*) FROM run_jobs WHERE finished = 1", [], |r| {
        r.get(0)
    })
    .unwrap_or(0)
}

/// Runs a shell command line on a pseudo-terminal (`script`), as someone at
/// a terminal would, with `env` set and the locale variables unset (the
/// language is the command's own); returns what the terminal was sent.
/// The command must succeed.
pub fn on_terminal(command: &str, env: &[(&str, &str)]) -> String {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env("TERM", "xterm")
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
