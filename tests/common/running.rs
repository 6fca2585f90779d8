//! A kura (or a shell that execs one) running in the background: the test
//! waits for what the run itself has done (a file, a stored period, a line
//! on stderr, a finished job), never for a guessed time, then signals it,
//! and gets its output. Every wait has a deadline and panics with what it
//! waited for; a child still running when the test ends is killed.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a test waits for a running kura to get somewhere, or to end:
/// far more than it takes on a loaded machine, so only a kura that is
/// stuck fails the deadline.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// Polls `ready` until it holds; after `PATIENCE`, panics naming `what`.
pub fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "waited {} s for {what}",
            PATIENCE.as_secs()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The child starts with the signal dispositions of a fresh process:
/// SIGHUP, SIGINT, SIGTERM and SIGPIPE at their defaults and no signal
/// blocked. A test run under `nohup` (SIGHUP ignored) or from a shell's
/// background job (SIGINT ignored) would otherwise hand that on, and kura
/// rightly keeps an ignored SIGHUP ignored.
pub fn default_signals(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure only calls signal(2) and
    // sigprocmask(2), which are async-signal-safe, on local data.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM, libc::SIGPIPE] {
                if libc::signal(sig, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            if libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// The kura binary with `--db DB --quiet`, as `kura(db)` builds it, for a
/// run in the background (`Running::start`).
pub fn kura_command(db: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("kura"));
    cmd.arg("--db").arg(db).arg("--quiet");
    cmd
}

/// Stored periods of the series of the newest run's job that is still
/// measuring (0 while the store does not exist yet or is busy). kura stores
/// them about once a second while a job measures, and drops them when the
/// job ends (the finished job carries its series); a killed kura's stay.
pub fn stored_periods(db: &Path) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM run_intervals WHERE run_id = (SELECT MAX(id) FROM runs)",
                [],
                |r| r.get(0),
            )
        })
        .unwrap_or(0)
}

/// Jobs of the newest run begun, measuring or finished (0 while the store
/// does not exist yet or is busy): a job's row is stored as it starts.
pub fn started_jobs(db: &Path) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM run_jobs WHERE run_id = (SELECT MAX(id) FROM runs)",
                [],
                |r| r.get(0),
            )
        })
        .unwrap_or(0)
}

/// Whether the thread of process `pid` named `name` (`kura-JOB-0`: a job's
/// measuring thread) is asleep in nanosleep (`std::thread::sleep`), as a
/// measuring thread is only in a think time or a pace.
pub fn thread_asleep(pid: i32, name: &str) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks.flatten().any(|t| {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        comm.trim_end() == name && in_nanosleep(&t.path())
    })
}

/// Whether the main thread of process `pid` is asleep in nanosleep: kura's
/// sleeps so only while it waits for another process's lock on its
/// database (or pauses between jobs); measuring, it waits on its threads.
pub fn main_thread_asleep(pid: i32) -> bool {
    in_nanosleep(Path::new(&format!("/proc/{pid}/task/{pid}")))
}

/// `task`: a /proc/PID/task/TID directory.
fn in_nanosleep(task: &Path) -> bool {
    let read = |name: &str| std::fs::read_to_string(task.join(name)).unwrap_or_default();
    read("wchan").contains("nanosleep")
        || read("syscall").split_whitespace().next() == Some(&libc::SYS_clock_nanosleep.to_string())
}

/// Whether `path` exists and holds at least `len` bytes.
pub fn file_of(path: &Path, len: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() >= len)
}

fn drain(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    })
}

/// A child process the test started: its stdout and stderr are read as it
/// runs (a full pipe never stalls it), and it is killed on drop unless it
/// was waited for.
pub struct Running {
    child: Option<Child>,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

impl Running {
    /// Starts `cmd` with `default_signals`, stdin empty, stdout and stderr read here.
    pub fn start(cmd: &mut Command) -> Running {
        let mut child = default_signals(cmd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let readers = vec![
            drain(child.stdout.take().unwrap(), stdout.clone()),
            drain(child.stderr.take().unwrap(), stderr.clone()),
        ];
        Running {
            child: Some(child),
            stdout,
            stderr,
            readers,
        }
    }

    /// `kura --db DB --quiet ARGS`.
    pub fn kura(db: &Path, args: &[&str]) -> Running {
        Running::start(kura_command(db).args(args))
    }

    fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("the child was already waited for")
    }

    pub fn pid(&self) -> i32 {
        self.child
            .as_ref()
            .expect("the child was already waited for")
            .id() as i32
    }

    /// What the child wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Waits until `ready` holds. Panics, with the child's stderr, when the
    /// child ends first or after `PATIENCE`.
    pub fn wait_for(mut self, what: &str, mut ready: impl FnMut() -> bool) -> Running {
        let deadline = Instant::now() + PATIENCE;
        while !ready() {
            if let Some(status) = self.child().try_wait().unwrap() {
                // Its last words, once the pipes are read to their end.
                self.join_readers();
                panic!("ended ({status}) before {what}: {}", self.stderr());
            }
            assert!(
                Instant::now() < deadline,
                "waited {} s for {what}: {}",
                PATIENCE.as_secs(),
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self
    }

    /// Waits until `path` exists and holds at least `len` bytes.
    pub fn wait_for_file(self, path: &Path, len: u64) -> Running {
        let what = format!("{} of {len} bytes or more", path.display());
        self.wait_for(&what, || file_of(path, len))
    }

    /// Waits until `n` periods of a measuring job's series are stored in
    /// `db`: the job has measured for `n` intervals (and about a second).
    pub fn wait_for_periods(self, db: &Path, n: i64) -> Running {
        let what = format!("{n} stored periods in {}", db.display());
        self.wait_for(&what, || stored_periods(db) >= n)
    }

    /// Waits until `n` jobs are stored as finished in `db`.
    pub fn wait_for_finished_jobs(self, db: &Path, n: i64) -> Running {
        let what = format!("{n} finished jobs in {}", db.display());
        self.wait_for(&what, || super::finished_jobs(db) >= n)
    }

    /// Waits until a line on the child's stderr contains `text`.
    pub fn wait_for_stderr(self, text: &str) -> Running {
        let stderr = self.stderr.clone();
        self.wait_for(&format!("{text:?} on stderr"), || {
            String::from_utf8_lossy(&stderr.lock().unwrap()).contains(text)
        })
    }

    /// Sends `signal` (`libc::SIGINT`, ...) to the child.
    pub fn signal(mut self, signal: libc::c_int) -> Running {
        let pid = self.child().id() as libc::pid_t;
        // SAFETY: kill(2) on the pid of our own child, not yet reaped.
        let rc = unsafe { libc::kill(pid, signal) };
        assert_eq!(rc, 0, "kill {pid}: {}", std::io::Error::last_os_error());
        self
    }

    fn join_readers(&mut self) {
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }

    /// Waits for the child to end, up to `PATIENCE` (then kills it and
    /// panics); its status and everything it wrote.
    pub fn finish(self) -> Output {
        self.finish_sending(None)
    }

    /// `signal` every 100 ms until the child ends, as `finish`: for a
    /// signal that is taken only at some point the test cannot see.
    pub fn finish_signalling(self, signal: libc::c_int) -> Output {
        self.finish_sending(Some(signal))
    }

    fn finish_sending(mut self, signal: Option<libc::c_int>) -> Output {
        let deadline = Instant::now() + PATIENCE;
        let mut polls = 0u32;
        let status = loop {
            if let Some(status) = self.child().try_wait().unwrap() {
                break status;
            }
            if let Some(signal) = signal.filter(|_| polls.is_multiple_of(5)) {
                // SAFETY: kill(2) on the pid of our own child, not yet reaped.
                unsafe { libc::kill(self.child().id() as libc::pid_t, signal) };
            }
            polls += 1;
            if Instant::now() > deadline {
                let _ = self.child().kill();
                panic!("did not end within {} s: {}", PATIENCE.as_secs(), self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.child = None;
        self.join_readers();
        Output {
            status,
            stdout: std::mem::take(&mut *self.stdout.lock().unwrap()),
            stderr: std::mem::take(&mut *self.stderr.lock().unwrap()),
        }
    }

    /// SIGKILL: nothing of the child runs after it; its status once reaped.
    pub fn kill(mut self) -> ExitStatus {
        let mut child = self.child.take().expect("the child was already waited for");
        child.kill().unwrap();
        child.wait().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
