//! The memory guard and what a killed kura leaves: a job too big for the
//! memory cgroup kura runs in, or for its own `--mem-limit`, is refused
//! before anything is created (not killed by the kernel half way); the
//! `--mem-limit` cgroup of a kura killed with SIGKILL is removed by the
//! next run, which says so. Each test runs kura inside a real cgroup v1
//! memory group made under this test's own, so even the code before the
//! guard (which allocated until the kernel killed it) cannot harm the
//! machine.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{kura, stderr_of, tmp};

/// This process's cgroup v1 memory group; `None` (skip) without one.
fn memory_home() -> Option<PathBuf> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let rel = cgroup.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.to_string())
    });
    let home = rel.map(|r| Path::new("/sys/fs/cgroup/memory").join(r.trim_start_matches('/')));
    match home.filter(|h| h.join("memory.limit_in_bytes").exists()) {
        Some(h) if common::is_root() => Some(h),
        Some(_) => None,
        None => {
            common::missing("cgroup v1 memory");
            None
        }
    }
}

/// A memory group under this test's own, removed by its name on drop (its
/// processes have ended by then).
struct MemGroup(PathBuf);

impl MemGroup {
    fn new(home: &Path, name: &str, limit: u64) -> MemGroup {
        let g = MemGroup(home.join(format!("kura-test-{name}-{}", std::process::id())));
        std::fs::create_dir(&g.0).unwrap();
        std::fs::write(g.0.join("memory.limit_in_bytes"), limit.to_string()).unwrap();
        g
    }

    /// kura with `args`, started inside this group.
    fn kura(&self, dir: &Path, db: &Path, args: &[&str]) -> std::process::Output {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo $$ > {}/cgroup.procs && exec \"$0\" \"$@\"",
                self.0.display()
            ))
            .arg(common::cmd::bin())
            .arg("--db")
            .arg(db)
            .arg("--quiet")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    }
}

impl Drop for MemGroup {
    fn drop(&mut self) {
        // A capped group a killed kura left inside (kura's own name for it) goes first.
        for e in std::fs::read_dir(&self.0).into_iter().flatten().flatten() {
            if e.file_name().to_string_lossy().starts_with("kura-mem-") {
                let _ = std::fs::remove_dir(e.path());
            }
        }
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The groups named for `pid` (kura's marker) under `home`.
fn kura_groups(home: &Path, pid: u32) -> Vec<PathBuf> {
    std::fs::read_dir(home)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("kura-mem-{pid}-"))
        })
        .map(|e| e.path())
        .collect()
}

/// 256 threads x qd 256 x 4 KiB: 512 MiB of buffers and as much again of
/// per-slot state; the group allows 192 MiB. The guard used to count the
/// buffers only, and only against MemAvailable: kura started, and the
/// kernel killed it inside the group.
#[test]
fn a_job_too_big_for_the_cgroup_kura_runs_in_is_refused_before_anything_is_made() {
    let Some(home) = memory_home() else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let group = MemGroup::new(&home, "too-small", 192 << 20);
    let out = group.kura(
        dir.path(),
        &db,
        &[
            "run",
            "--threads",
            "256",
            "--qd",
            "256",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--runtime",
            "2s",
        ],
    );
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("the job needs about 1.5 GiB of memory"), "{err}");
    assert!(
        err.contains(&format!(
            "left under the memory cgroup limit of {} (memory.limit_in_bytes 192.0 MiB)",
            group.0.display()
        )),
        "{err}"
    );
    assert!(
        names(dir.path()).is_empty(),
        "nothing is created: {:?}",
        names(dir.path())
    );
}

/// `--mem-limit` puts kura itself in the capped group: a job whose threads
/// and buffers cannot fit there is refused, not killed there with its test
/// file and group left behind.
#[test]
fn a_job_too_big_for_its_own_mem_limit_is_refused_and_leaves_no_group() {
    let Some(home) = memory_home() else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    // The outer group keeps the old code's failure inside this test.
    let group = MemGroup::new(&home, "own-limit", 1 << 30);
    let out = group.kura(
        dir.path(),
        &db,
        &[
            "run",
            "--mem-limit",
            "64m",
            "--threads",
            "32",
            "--qd",
            "256",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--runtime",
            "2s",
        ],
    );
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("but mem_limit allows 64.0 MiB"), "{err}");
    assert!(
        names(dir.path()).is_empty(),
        "nothing is created: {:?}",
        names(dir.path())
    );
    let left: Vec<_> = std::fs::read_dir(&group.0)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("kura-mem-"))
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 34: 470 s at 10 ms periods in a 60 MiB group was accepted (the
/// series counted at 512 bytes a period, about 4 KiB measured) and killed by
/// the kernel at 299 s. A series that does not fit is now refused before
/// anything is made, naming the interval (not threads x qd x bs) and the
/// interval and runtime that fit.
#[test]
fn a_series_too_long_for_the_mem_limit_is_refused_naming_the_interval() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    let out = kura(&db)
        .args(["run", "--mem-limit", "16m", "--size", "8m", "--runtime", "470s"])
        .args(["--interval", "10ms", "--target"])
        .arg(&target)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("of it for the interval series ("), "{err}");
    assert!(
        err.contains("47001 periods of --interval 10ms, kept as 4096 at most"),
        "{err}"
    );
    assert!(
        err.contains("; the interval series is the cause: give --interval 132ms or more, or --runtime 35s or less, or raise mem_limit"),
        "{err}"
    );
    assert!(!err.contains("lower qd, bs or threads"), "{err}");
    assert!(
        names(dir.path()).is_empty(),
        "nothing is created: {:?}",
        names(dir.path())
    );
}

/// The capped group a kura killed with SIGKILL left behind is removed by
/// the next run (any run, not only a capped one), which names it; the
/// group is kura's by its name (`kura-mem-PID-N`) and its PID is gone.
#[test]
fn the_group_of_a_killed_kura_is_removed_by_the_next_run() {
    let Some(home) = memory_home() else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let mut child = common::cmd::child(&db)
        .current_dir(dir.path())
        .args(["run", "--mem-limit", "64m", "--size", "8m", "--runtime", "60s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Removed by name whatever happens below.
    struct Leftovers(PathBuf, u32);
    impl Drop for Leftovers {
        fn drop(&mut self) {
            for g in kura_groups(&self.0, self.1) {
                let _ = std::fs::remove_dir(g);
            }
        }
    }
    let _guard = Leftovers(home.clone(), pid);
    let deadline = Instant::now() + Duration::from_secs(60);
    while kura_groups(&home, pid).is_empty() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kura never entered its memory cgroup");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left = kura_groups(&home, pid);
    assert_eq!(left.len(), 1, "{left:?}");
    let out = kura(&db)
        .args(["run", "--engine", "null", "--runtime", "100ms"])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "kura: removed the memory cgroup {}, left by a kura (pid {pid}) that was killed",
            left[0].display()
        )),
        "{err}"
    );
    assert!(!left[0].exists(), "{} is still there", left[0].display());
}
