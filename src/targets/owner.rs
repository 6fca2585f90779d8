//! kura's mark on the test files it creates: an extended attribute written
//! on the descriptor right after the exclusive create, and a lock held on
//! that descriptor for the run. The mark tells a file kura made from a
//! user's file at the same name; the lock tells a running kura's file from
//! a leftover (the kernel drops it when kura dies, SIGKILL included).
//!
//! An attribute, not a header in the data: the measured writes go over
//! every byte of the file and cannot erase it.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;

const NAME: &std::ffi::CStr = c"user.kura.owner";
/// Larger than any mark kura writes; a longer value is not kura's.
const MAX_LEN: usize = 512;

/// What a mark says about the kura that made the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub pid: u32,
    /// The process's start time in clock ticks since boot (`/proc/PID/stat`),
    /// so that a pid used again by another process is not taken for kura.
    pub start: u64,
    pub host: String,
    pub boot: String,
    pub created_unix_s: u64,
    /// Left with `--keep` at the end of a run, for the next run to use.
    pub kept: bool,
}

/// How the kura that marked a file stands, seen from this process.
#[derive(Debug, PartialEq, Eq)]
pub enum Maker {
    /// This very process made it (an earlier job of this run).
    This,
    /// Another kura on this machine that is still running.
    Running,
    /// A kura on this machine that is gone (killed, or before a reboot).
    Gone,
    /// A kura on another machine (a shared file system): whether it still
    /// runs cannot be told from here.
    Elsewhere,
}

impl Mark {
    pub fn of_this_process(kept: bool) -> Mark {
        let me = me();
        Mark {
            pid: std::process::id(),
            start: me.start,
            host: me.host.clone(),
            boot: me.boot.clone(),
            created_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            kept,
        }
    }

    fn text(&self) -> String {
        format!(
            "kura test file; pid={}; start={}; host={}; boot={}; created={}; state={}",
            self.pid,
            self.start,
            self.host,
            self.boot,
            self.created_unix_s,
            if self.kept { "kept" } else { "running" }
        )
    }

    fn parse(text: &str) -> Option<Mark> {
        let rest = text.strip_prefix("kura test file; ")?;
        let mut fields = std::collections::HashMap::new();
        for part in rest.split("; ") {
            let (k, v) = part.split_once('=')?;
            fields.insert(k, v);
        }
        Some(Mark {
            pid: fields.get("pid")?.parse().ok()?,
            start: fields.get("start")?.parse().ok()?,
            host: fields.get("host")?.to_string(),
            boot: fields.get("boot")?.to_string(),
            created_unix_s: fields.get("created")?.parse().ok()?,
            kept: match *fields.get("state")? {
                "kept" => true,
                "running" => false,
                _ => return None,
            },
        })
    }

    /// Whether the kura that wrote the mark still runs. The pid alone is not
    /// enough: after a reboot or enough processes it names someone else.
    pub fn maker(&self) -> Maker {
        let me = me();
        if self.host != me.host {
            return Maker::Elsewhere;
        }
        if self.boot != me.boot {
            return Maker::Gone;
        }
        if self.pid == std::process::id() && self.start == me.start {
            return Maker::This;
        }
        match start_ticks(self.pid) {
            Some(start) if start == self.start => Maker::Running,
            _ => Maker::Gone,
        }
    }
}

/// Writes the mark on an open file.
pub fn write(file: &File, mark: &Mark) -> io::Result<()> {
    let text = mark.text();
    // SAFETY: the fd is open, NAME is NUL-terminated and `text` is valid for its length; all live for the call.
    let rc = unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            text.as_ptr().cast(),
            text.len(),
            0,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The mark on an open file: `None` when it has none (or one kura did not
/// write); an error of kind `Unsupported` when the file system keeps no
/// user attributes, so kura could not have marked it.
pub fn read(file: &File) -> io::Result<Option<Mark>> {
    let mut buf = [0u8; MAX_LEN];
    // SAFETY: the fd is open, NAME is NUL-terminated and `buf` is writable for its length; all live for the call.
    let n = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            NAME.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENODATA) | Some(libc::ERANGE) => Ok(None),
            Some(libc::ENOTSUP) => Err(io::Error::new(io::ErrorKind::Unsupported, e)),
            _ => Err(e),
        };
    }
    Ok(std::str::from_utf8(&buf[..n as usize]).ok().and_then(Mark::parse))
}

/// Takes the run's lock on the file without waiting: `false` when another
/// process holds it (a kura that is running on it).
pub fn lock(file: &File) -> io::Result<bool> {
    // SAFETY: the fd is open for the call; flock only reads its integer arguments.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        return Ok(false);
    }
    Err(e)
}

/// The test files this process created (device, inode), still at their
/// names: an earlier job's file is this run's even where no mark could be
/// written (a file system without user attributes).
fn made() -> &'static std::sync::Mutex<Vec<(u64, u64)>> {
    static MADE: OnceLock<std::sync::Mutex<Vec<(u64, u64)>>> = OnceLock::new();
    MADE.get_or_init(Default::default)
}

pub fn remember(dev: u64, ino: u64) {
    if let Ok(mut m) = made().lock() {
        m.push((dev, ino));
    }
}

pub fn forget(dev: u64, ino: u64) {
    if let Ok(mut m) = made().lock() {
        m.retain(|d| *d != (dev, ino));
    }
}

pub fn made_here(dev: u64, ino: u64) -> bool {
    made().lock().is_ok_and(|m| m.contains(&(dev, ino)))
}

struct Me {
    start: u64,
    host: String,
    boot: String,
}

fn me() -> &'static Me {
    static ME: OnceLock<Me> = OnceLock::new();
    ME.get_or_init(|| Me {
        start: start_ticks(std::process::id()).unwrap_or(0),
        host: host_name(),
        boot: std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    })
}

/// Field 22 of `/proc/PID/stat`, counted after the command name, which may
/// itself hold spaces and parentheses.
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    // The mark's fields are split at "; " and "=": a host name never has them, but a mark must parse.
    name.trim().replace([';', '=', ' '], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_and_names_this_process() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let file = File::create(dir.path().join("t")).unwrap();
        assert_eq!(read(&file).unwrap(), None);
        let mark = Mark::of_this_process(false);
        write(&file, &mark).unwrap();
        let back = read(&file).unwrap().unwrap();
        assert_eq!(back, mark);
        assert_eq!(back.maker(), Maker::This);
    }

    #[test]
    fn a_gone_pid_or_another_boot_is_gone_and_another_host_is_elsewhere() {
        let mut m = Mark::of_this_process(false);
        // pid_max is at most 2^22: this pid is nobody.
        m.pid = (1 << 22) + 1;
        assert_eq!(m.maker(), Maker::Gone);
        // pid 1 runs, but did not start when this mark says.
        m.pid = 1;
        m.start = u64::MAX;
        assert_eq!(m.maker(), Maker::Gone);
        m.start = start_ticks(1).unwrap();
        assert_eq!(m.maker(), Maker::Running);
        m.boot = "another".into();
        assert_eq!(m.maker(), Maker::Gone);
        m.host = "elsewhere".into();
        assert_eq!(m.maker(), Maker::Elsewhere);
    }

    #[test]
    fn text_that_is_not_a_whole_mark_is_no_mark() {
        assert_eq!(Mark::parse("hello"), None);
        assert_eq!(Mark::parse("kura test file; pid=1"), None);
        let mut text = Mark::of_this_process(true).text();
        assert!(Mark::parse(&text).unwrap().kept);
        text = text.replace("state=kept", "state=odd");
        assert_eq!(Mark::parse(&text), None);
    }

    #[test]
    fn a_second_lock_on_the_file_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("t");
        let a = File::create(&path).unwrap();
        assert!(lock(&a).unwrap());
        let b = File::open(&path).unwrap();
        assert!(!lock(&b).unwrap());
        drop(a);
        assert!(lock(&b).unwrap());
    }
}
