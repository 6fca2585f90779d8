//! `mem_limit`: the job runs in a memory cgroup so the page cache cannot
//! hold more than the limit, as booting with `mem=512M` did. cgroup v2's
//! `memory.max` where the unified hierarchy has the memory controller, v1's
//! `memory.limit_in_bytes` otherwise. The group is made beside the one kura
//! runs in (so an outer limit still holds), named for kura's PID, and
//! removed by that name when the job ends, whatever way it ends.

use std::io;
use std::path::{Path, PathBuf};

use crate::targets::kernel::write_kernel_interface;

const V1_ROOT: &str = "/sys/fs/cgroup/memory";
const V2_ROOT: &str = "/sys/fs/cgroup";

/// Which cgroup interface holds the group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// The process inside a capped group; dropping it moves the process back to
/// where it was and removes the group, unless the cap is kept for the run
/// (`kept_for_run`) while a `RunScope` is open.
#[derive(Debug)]
pub struct MemoryCap {
    limit_bytes: u64,
    group: Option<Group>,
    keep_for_run: bool,
}

/// A capped group this process is in; dropping it leaves and removes it.
#[derive(Debug)]
struct Group {
    path: PathBuf,
    /// The group the process came from, to go back to.
    home: PathBuf,
}

/// How many runs keep their caps between jobs (`RunScope`), and the cap the
/// last job of such a run left: booting with `mem=512M` caps the whole run,
/// so the next job finds what the previous one left in the capped cache, as
/// tiotest's random read finds its sequential read's last pages.
static RUN_SCOPES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static KEPT: std::sync::Mutex<Option<(u64, Group)>> = std::sync::Mutex::new(None);

fn kept_slot() -> std::sync::MutexGuard<'static, Option<(u64, Group)>> {
    KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MemoryCap {
    /// Makes a group capped at `limit_bytes` and moves this whole process
    /// (every thread) into it. Pages already cached were charged to the
    /// group that loaded them: the caller evicts the target's pages first.
    /// A cap an earlier job kept with another limit is left first.
    pub fn enter(limit_bytes: u64) -> Result<MemoryCap, String> {
        drop(kept_slot().take());
        Ok(MemoryCap {
            limit_bytes,
            group: Some(Group::enter(limit_bytes)?),
            keep_for_run: false,
        })
    }

    /// The cap an earlier job of this run kept, when it has `limit_bytes`:
    /// the process is still inside it, with the pages that job left.
    pub fn kept(limit_bytes: u64) -> Option<MemoryCap> {
        let mut slot = kept_slot();
        match slot.take() {
            Some((limit, group)) if limit == limit_bytes => Some(MemoryCap {
                limit_bytes,
                group: Some(group),
                keep_for_run: true,
            }),
            other => {
                *slot = other;
                None
            }
        }
    }

    /// Keeps the group, once this cap is dropped, for the next job of the
    /// run with the same limit (while a `RunScope` is open).
    pub fn kept_for_run(mut self) -> MemoryCap {
        self.keep_for_run = true;
        self
    }
}

impl Drop for MemoryCap {
    fn drop(&mut self) {
        let Some(group) = self.group.take() else {
            return;
        };
        if self.keep_for_run && RUN_SCOPES.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            let earlier = kept_slot().replace((self.limit_bytes, group));
            drop(earlier);
        }
    }
}

/// Held by a run while it measures its jobs: a capped job's group is kept
/// for the next capped job until the run ends, when it is left and removed.
#[derive(Debug)]
pub struct RunScope(());

impl RunScope {
    pub fn open() -> RunScope {
        RUN_SCOPES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        RunScope(())
    }
}

impl Drop for RunScope {
    fn drop(&mut self) {
        if RUN_SCOPES.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            drop(kept_slot().take());
        }
    }
}

impl Group {
    fn enter(limit_bytes: u64) -> Result<Group, String> {
        let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let (version, home) = where_memory_is(&cgroup).ok_or_else(|| {
            "no memory cgroup controller is mounted (cgroup v2 `memory.max` or v1 `memory.limit_in_bytes`): \
             mem_limit needs one, and root"
                .to_string()
        })?;
        remove_stale(&home);
        let path = home.join(group_name(std::process::id(), next_index()));
        let shown = path.display().to_string();
        let why = |what: &str, e: io::Error| format!("mem_limit: {what} {shown}: {e}");
        std::fs::create_dir(&path).map_err(|e| why("cannot create the memory cgroup", e))?;
        // The guard exists before anything else can fail, so the group is always removed.
        let group = Group { path, home };
        let limit_file = match version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        if version == Version::V2 {
            // Swap would let the job's own memory grow past the cap; the page cache cannot swap.
            let _ = write_kernel_interface(&group.path.join("memory.swap.max"), "0");
        }
        write_kernel_interface(&group.path.join(limit_file), &limit_bytes.to_string())
            .map_err(|e| why(&format!("cannot write {limit_file} of"), e))?;
        write_kernel_interface(&group.path.join("cgroup.procs"), &std::process::id().to_string())
            .map_err(|e| why("cannot move kura into", e))?;
        Ok(group)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = write_kernel_interface(&self.home.join("cgroup.procs"), &std::process::id().to_string());
        // A v1 group with pages still charged can be removed: they move to its parent.
        if let Err(e) = std::fs::remove_dir(&self.path) {
            eprintln!(
                "warning: could not remove the memory cgroup {}: {e}; remove it with rmdir",
                self.path.display()
            );
        }
    }
}

/// `kura-mem-PID-N`: the PID says whose it is, so a later kura can remove
/// groups a killed one left behind.
fn group_name(pid: u32, index: u32) -> String {
    format!("kura-mem-{pid}-{index}")
}

fn next_index() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Removes the groups a killed kura left beside the one this kura runs in,
/// and says so; every measuring verb calls it as it starts, so a leftover
/// does not wait for the next `mem_limit` run.
pub fn remove_leftovers() {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    if let Some((_, home)) = where_memory_is(&cgroup) {
        remove_stale(&home);
    }
}

/// Removes groups named by `group_name` (kura's marker) whose process is
/// gone (a kura killed with SIGKILL cannot remove its own). The kernel
/// refuses to remove a group that still holds a process, so a group whose
/// PID was reused by a live kura in it, or that holds a server still
/// shutting down, stays.
fn remove_stale(home: &Path) {
    let Ok(entries) = std::fs::read_dir(home) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("kura-mem-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let path = entry.path();
        match std::fs::remove_dir(&path) {
            Ok(()) => eprintln!(
                "kura: removed the memory cgroup {}, left by a kura (pid {pid}) that was killed",
                path.display()
            ),
            Err(_) => {
                // A server kura started may still be shutting down in it.
                let procs = std::fs::read_to_string(path.join("cgroup.procs")).unwrap_or_default();
                let procs: Vec<&str> = procs.split_whitespace().collect();
                if !procs.is_empty() {
                    eprintln!(
                        "kura: the memory cgroup {} of a kura (pid {pid}) that was killed still holds \
                         processes {}; once they have ended, remove it with: rmdir {}",
                        path.display(),
                        procs.join(", "),
                        path.display()
                    );
                }
            }
        }
    }
}

/// The interface with a memory controller and this process's group in it,
/// from `/proc/self/cgroup` (`4:memory:/a/b` for v1, `0::/a/b` for v2).
fn where_memory_is(proc_cgroup: &str) -> Option<(Version, PathBuf)> {
    let v1 = proc_cgroup.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.to_string())
    });
    if let Some(path) = v1 {
        let dir = Path::new(V1_ROOT).join(path.trim_start_matches('/'));
        if dir.join("memory.limit_in_bytes").exists() {
            return Some((Version::V1, dir));
        }
    }
    let v2 = proc_cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new(V2_ROOT).join(v2.trim_start_matches('/'));
    // A group holding processes cannot enable controllers for its children
    // (v2's no-internal-process rule); the memory controller must be on already.
    let controllers = std::fs::read_to_string(dir.join("cgroup.subtree_control")).ok()?;
    controllers
        .split_whitespace()
        .any(|c| c == "memory")
        .then_some((Version::V2, dir))
}
