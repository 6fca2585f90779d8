//! A database server started by kura the way users run one, with its data
//! directory and a private socket inside kura's directory on the target,
//! no TCP listener (so no port to collide with), and stopped on every exit
//! path: `stop`, `Drop`, and the kernel's parent-death signal when kura
//! itself is killed. PostgreSQL (Debian's postgresql-15) and MariaDB
//! (Debian's mariadb-server).

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::jobs::db_params::Server;

/// Inside kura's directory: the server's data, its socket, its log.
pub const DATA_DIR: &str = "data";
pub const RUN_DIR: &str = "run";
pub const LOG_FILE: &str = "server.log";
/// PostgreSQL names its socket after the port; nothing listens on TCP.
pub const PG_PORT: u16 = 5432;
pub const MARIADB_SOCKET: &str = "mysqld.sock";
/// How long a server may take to start or to stop before kura gives up.
const WAIT: Duration = Duration::from_secs(90);

/// The programs a server needs, found on this machine.
#[derive(Debug, Clone)]
pub struct Binaries {
    pub init: PathBuf,
    pub server: PathBuf,
}

fn first_existing(candidates: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|p| p.is_file())
}

fn on_path(name: &str) -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(name)).collect())
        .unwrap_or_default()
}

/// PostgreSQL's newest installed version under /usr/lib/postgresql, then PATH.
fn pg_bin(name: &str) -> Option<PathBuf> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    versions.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    first_existing(
        versions
            .into_iter()
            .rev()
            .map(|v| v.join("bin").join(name))
            .chain(on_path(name)),
    )
}

/// The programs, or the one-line error naming the package to install.
pub fn find(kind: Server) -> Result<Binaries, String> {
    let (init, server, package) = match kind {
        Server::Postgres => (pg_bin("initdb"), pg_bin("postgres"), "postgresql-15"),
        Server::Mariadb => (
            first_existing(on_path("mariadb-install-db")),
            first_existing(
                [PathBuf::from("/usr/sbin/mariadbd")]
                    .into_iter()
                    .chain(on_path("mariadbd")),
            ),
            "mariadb-server",
        ),
        Server::Sqlite => return Err("SQLite is embedded: it has no server to start".into()),
    };
    match (init, server) {
        (Some(init), Some(server)) => Ok(Binaries { init, server }),
        (init, _) => Err(format!(
            "--server {kind}: {} not found; install the package {package} (apt install {package})",
            if init.is_none() {
                match kind {
                    Server::Postgres => "initdb",
                    _ => "mariadb-install-db",
                }
            } else {
                match kind {
                    Server::Postgres => "postgres",
                    _ => "mariadbd",
                }
            }
        )),
    }
}

/// The account a server runs as: PostgreSQL refuses root, so as root kura
/// runs it as the package's `postgres` user; otherwise as kura's own user.
fn pg_account() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let name = c"postgres";
    // SAFETY: `name` is NUL-terminated; getpwnam returns NULL or a pointer valid until the next call.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return None;
    }
    // SAFETY: checked non-null above; read once, before any other getpw* call.
    Some(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

fn chown(path: &Path, owner: Option<(u32, u32)>) -> Result<(), String> {
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::lchown(path, Some(uid), Some(gid))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The server's own lines that say why it failed (its errors and warnings,
/// else its last lines), for a one-line error.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            ["FATAL", "ERROR", "WARNING", "PANIC"]
                .iter()
                .any(|k| l.contains(k))
        })
        .collect();
    if lines.is_empty() {
        lines = text.lines().filter(|l| !l.trim().is_empty()).collect();
    }
    let tail = &lines[lines.len().saturating_sub(3)..];
    if tail.is_empty() {
        "(its log is empty)".into()
    } else {
        tail.join(" | ")
    }
}

/// Runs a setup program (initdb, mariadb-install-db) to completion; its output goes to the log.
fn run_setup(cmd: &mut Command, log: &Path, what: &str) -> Result<(), String> {
    let out = crate::targets::own::append(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let status = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .status()
        .map_err(|e| format!("{what}: {e}"))?;
    if !status.success() {
        return Err(format!("{what} failed ({status}): {}", log_tail(log)));
    }
    Ok(())
}

/// A running server; stopped (and waited for) when dropped.
pub struct ServerProcess {
    pub kind: Server,
    child: Option<Child>,
    pub run_dir: PathBuf,
    pub log: PathBuf,
}

impl ServerProcess {
    /// Initialises a data directory in `home` and starts the server on it.
    /// `sync` is `synchronous_commit` or `innodb_flush_log_at_trx_commit`.
    pub fn start(
        kind: Server,
        home: &Path,
        sync: Option<&str>,
        stop: &AtomicBool,
    ) -> Result<ServerProcess, String> {
        let bins = find(kind)?;
        // The server runs in its data directory: a relative DIR would name another place
        // there (PostgreSQL's socket lock `DIR/kura-db/run/...` was not found).
        let home = &std::path::absolute(home).map_err(|e| format!("{}: {e}", home.display()))?;
        let data = home.join(DATA_DIR);
        let run_dir = home.join(RUN_DIR);
        let log = home.join(LOG_FILE);
        let owner = match kind {
            Server::Postgres => pg_account(),
            _ => None,
        };
        for dir in [&data, &run_dir] {
            std::fs::create_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            chown(dir, owner)?;
        }
        crate::targets::own::create_new(&log, 0o644).map_err(|e| format!("{}: {e}", log.display()))?;
        chown(&log, owner)?;
        if owner.is_some() {
            // The server's own user must pass through kura's directory to reach its data.
            std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o711))
                .map_err(|e| format!("{}: {e}", home.display()))?;
        }
        let as_owner = |cmd: &mut Command| {
            if let Some((uid, gid)) = owner {
                cmd.uid(uid).gid(gid);
            }
        };
        let mut server = match kind {
            Server::Postgres => {
                let mut init = Command::new(&bins.init);
                init.arg("-D")
                    .arg(&data)
                    .args(["-U", "kura", "--auth=trust", "-E", "UTF8", "--no-sync"])
                    .env("LC_ALL", "C");
                as_owner(&mut init);
                run_setup(&mut init, &log, "initdb")?;
                let mut cmd = Command::new(&bins.server);
                cmd.arg("-D")
                    .arg(&data)
                    .arg("-k")
                    .arg(&run_dir)
                    .args(["-p", &PG_PORT.to_string()])
                    .args(["-c", "listen_addresses="])
                    .args(["-c", "fsync=on"])
                    .args(["-c", &format!("synchronous_commit={}", sync.unwrap_or("on"))])
                    .args(["-c", "max_connections=1100"]);
                as_owner(&mut cmd);
                cmd
            }
            Server::Mariadb => {
                let mut init = Command::new(&bins.init);
                init.arg("--no-defaults")
                    .arg(format!("--datadir={}", data.display()))
                    .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
                // SAFETY: geteuid has no preconditions.
                if unsafe { libc::geteuid() } == 0 {
                    init.arg("--user=root");
                }
                run_setup(&mut init, &log, "mariadb-install-db")?;
                let mut cmd = Command::new(&bins.server);
                cmd.arg("--no-defaults")
                    .arg(format!("--datadir={}", data.display()))
                    .arg(format!("--socket={}", run_dir.join(MARIADB_SOCKET).display()))
                    .arg(format!("--pid-file={}", run_dir.join("mysqld.pid").display()))
                    .arg(format!("--log-error={}", log.display()))
                    .arg("--skip-networking")
                    .arg(format!(
                        "--innodb-flush-log-at-trx-commit={}",
                        sync.unwrap_or("1")
                    ))
                    .arg("--max-connections=1100");
                // SAFETY: geteuid has no preconditions.
                if unsafe { libc::geteuid() } == 0 {
                    cmd.arg("--user=root");
                }
                cmd
            }
            Server::Sqlite => unreachable!("find() refused it"),
        };
        let out = crate::targets::own::append(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        server.stdin(Stdio::null()).stdout(out).stderr(err);
        // Its own process group: Ctrl-C reaches kura only, and kura stops the server in order.
        server.process_group(0);
        // SAFETY: prctl is async-signal-safe; between fork and exec it only sets this child's
        // parent-death signal, so a killed kura does not leave the server running.
        unsafe {
            server.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = server
            .spawn()
            .map_err(|e| format!("{}: {e}", bins.server.display()))?;
        let mut proc = ServerProcess {
            kind,
            child: Some(child),
            run_dir,
            log,
        };
        proc.wait_ready(stop)?;
        Ok(proc)
    }

    /// The socket a client connects to.
    pub fn socket(&self) -> PathBuf {
        match self.kind {
            Server::Postgres => self.run_dir.join(format!(".s.PGSQL.{PG_PORT}")),
            _ => self.run_dir.join(MARIADB_SOCKET),
        }
    }

    /// Waits for the socket; a server that exits first fails with its own log lines.
    fn wait_ready(&mut self, stop: &AtomicBool) -> Result<(), String> {
        let start = Instant::now();
        let socket = self.socket();
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                self.child = None;
                return Err(format!(
                    "the {} server exited at start ({status}): {}",
                    self.kind,
                    log_tail(&self.log)
                ));
            }
            if socket.exists() && self.kind != Server::Mariadb {
                return Ok(());
            }
            if socket.exists() && std::os::unix::net::UnixStream::connect(&socket).is_ok() {
                return Ok(());
            }
            if stop.load(Ordering::Relaxed) {
                return Err(format!("the {} server was stopped while starting", self.kind));
            }
            if start.elapsed() > WAIT {
                return Err(format!(
                    "the {} server did not open {} within {} s: {}",
                    self.kind,
                    socket.display(),
                    WAIT.as_secs(),
                    log_tail(&self.log)
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (PostgreSQL's fast shutdown, MariaDB's normal one)
    /// and waits for it; kills it when it does not stop in time.
    pub fn stop(&mut self) -> Result<(), String> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let signal = match self.kind {
            Server::Postgres => libc::SIGINT,
            _ => libc::SIGTERM,
        };
        // SAFETY: kill sends a signal to our own child, which has not been waited for yet.
        unsafe { libc::kill(child.id() as i32, signal) };
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if start.elapsed() < WAIT => std::thread::sleep(Duration::from_millis(50)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "the {} server did not stop within {} s and was killed",
                        self.kind,
                        WAIT.as_secs()
                    ));
                }
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("kura: {}{e}", crate::t!("warning-prefix"));
        }
    }
}
