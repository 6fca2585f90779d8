//! The database kind of workload (`kura suite db`): `DbRun` owns kura's
//! directory in DIR and the database in it across the jobs of a run (one
//! job per test, `jobs::db_params`), runs each test through a timed
//! `Session`, and removes what it created. sql-bench's tests are in
//! `sqlbench`, sysbench's OLTP mix in `oltp`, SQLite in `sqlite`.

pub mod mariadb;
pub mod oltp;
pub mod pg;
pub mod pgwire;
pub mod server;
pub mod session;
pub mod sqlbench;
pub mod sqlite;

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use session::{Connector, DbError, Recorded, Session};

use crate::jobs::Job;
use crate::jobs::db_params::{DB_DIR, DbParams, DbSettings, Server, Test};
// Readable sizes (`11.4 MiB`) in the refusal: `units::format_size` writes exact ones (`11988608`).
use crate::metrics::{JobResult, TargetFacts, TargetKind};
use crate::targets::fileset::format_size;

/// Bytes the tests may need at once: sql-bench's biggest table (big-tables,
/// 140001 rows of 1000 columns, about 141 MB at full scale) and the OLTP
/// tables (about 250 bytes a row with its index), doubled for the journal.
pub fn room_needed(cfg: &DbSettings) -> u64 {
    let p = &cfg.params;
    let sqlbench = if cfg.tests.iter().any(|t| !t.is_oltp()) {
        (180e6 * p.scale()) as u64
    } else {
        0
    };
    let oltp = if cfg.tests.contains(&Test::OltpReadWrite) {
        u64::from(p.oltp_tables)
            .saturating_mul(p.oltp_table_size)
            .saturating_mul(250)
    } else {
        0
    };
    sqlbench
        .saturating_add(oltp)
        .saturating_mul(2)
        .saturating_add(8 << 20)
}

/// The runner's check of a run's db jobs before anything is made: the
/// server is installed (one line naming its package when not), and DIR
/// passes [`check_target`] for every test of the run.
pub fn check_up_front(jobs: &[&Job]) -> Result<(), String> {
    let db_jobs: Vec<(&Job, &DbParams)> = jobs
        .iter()
        .filter_map(|j| Some((*j, j.workload.database()?)))
        .collect();
    let Some(&(first, p)) = db_jobs.first() else {
        return Ok(());
    };
    if p.server != Server::Sqlite {
        server::find(p.server)?;
    }
    let mut cfg = settings_of(first, p);
    cfg.tests = Vec::new();
    for test in db_jobs.iter().filter_map(|(_, p)| Test::from_name(&p.test)) {
        if !cfg.tests.contains(&test) {
            cfg.tests.push(test);
        }
    }
    check_target(&cfg)
}

/// The settings a stored job of a run carries: DIR is the directory above
/// kura's, which holds the job's target.
fn settings_of(job: &Job, p: &DbParams) -> DbSettings {
    let file = job
        .target
        .clone()
        .unwrap_or_else(|| PathBuf::from(DB_DIR).join(sqlite::FILE));
    let dir = file
        .parent()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    DbSettings {
        dir,
        tests: Test::from_name(&p.test).into_iter().collect(),
        params: p.clone(),
        label: None,
        mem_limit_bytes: job.mem_limit_bytes,
    }
}

/// Checks made before anything is written: DIR is a directory, holds no
/// `kura-db` already (a killed kura's is removed, by its marker), and has
/// room for the scale asked.
pub fn check_target(cfg: &DbSettings) -> Result<(), String> {
    let dir = &cfg.dir;
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "{} is not a directory; kura suite db takes the directory to put its database in",
                dir.display()
            ));
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    }
    let home = cfg.home();
    if std::fs::symlink_metadata(&home).is_ok() {
        remove_leftover(&home)?;
    }
    if std::fs::symlink_metadata(&home).is_ok() {
        return Err(format!(
            "{} already exists; kura writes only files it creates: remove it (left by a --keep run?) \
             or choose another directory",
            home.display()
        ));
    }
    let c_dir = CString::new(dir.as_os_str().as_bytes()).map_err(|_| "the path contains a NUL byte")?;
    // SAFETY: statvfs is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_dir` is NUL-terminated and `st` is writable, both live for the call.
    if unsafe { libc::statvfs(c_dir.as_ptr(), &mut st) } != 0 {
        return Err(format!("{}: {}", dir.display(), std::io::Error::last_os_error()));
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    let needed = room_needed(cfg);
    if needed > free {
        return Err(format!(
            "{}: the database needs about {} at scale {} but only {} is free; give a smaller --scale \
             or --table-size, or another directory",
            dir.display(),
            format_size(needed),
            cfg.params.scale(),
            format_size(free)
        ));
    }
    Ok(())
}

/// kura's mark in the directory it made: `kura suite db`, its PID and its
/// server, written when the directory is made and removed last (or at once
/// with `--keep`, which hands the directory to the user). A later run that
/// finds the directory with this file and the PID gone knows a killed kura
/// left it, and which names in it that kura made.
pub const MARKER: &str = "kura-owner";

fn marker_text(server: Server) -> String {
    format!(
        "kura suite db\npid {}\nserver {server}\nhost {}\nboot {}\n",
        std::process::id(),
        kernel_text("hostname"),
        kernel_text("random/boot_id")
    )
}

/// A line of /proc/sys/kernel: this machine's name, or this boot's id.
fn kernel_text(name: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// What a marker says about the kura that wrote it.
struct Marker {
    pid: u32,
    server: Server,
    host: String,
    boot: String,
}

impl Marker {
    /// Whether that kura has certainly ended: this machine wrote the marker
    /// (a PID means nothing on another one sharing DIR), and it has been
    /// restarted since or the PID is gone.
    fn gone(&self) -> bool {
        self.host == kernel_text("hostname")
            && (self.boot != kernel_text("random/boot_id") || !pid_alive(self.pid))
    }
}

/// Written exclusively in the directory kura has just made.
fn write_marker(home: &Path, server: Server) -> Result<(), String> {
    use std::io::Write;
    let path = home.join(MARKER);
    crate::targets::own::create_new(&path, 0o600)
        .and_then(|mut f| f.write_all(marker_text(server).as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// What the marker in `home` says; `None` when the file is not kura's.
fn read_marker(home: &Path) -> Option<Marker> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut text = String::new();
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(home.join(MARKER))
        .ok()
        .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))?
        .take(1024)
        .read_to_string(&mut text)
        .ok()?;
    let mut lines = text.lines();
    (lines.next()? == "kura suite db").then_some(())?;
    let mut field = |key: &str| lines.next()?.strip_prefix(key).map(str::to_string);
    Some(Marker {
        pid: field("pid ")?.parse().ok()?,
        server: Server::parse(&field("server ")?).ok()?,
        host: field("host ")?,
        boot: field("boot ")?,
    })
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The server process a data directory names (PostgreSQL's
/// `postmaster.pid`, MariaDB's `run/mysqld.pid`), when it is still running
/// on that data directory (its command line names it: a PID reused by
/// another program is not it).
fn server_alive(home: &Path) -> Option<u32> {
    let data = std::path::absolute(home.join(server::DATA_DIR)).ok()?;
    let data = data.as_os_str().as_bytes();
    [
        home.join(server::DATA_DIR).join("postmaster.pid"),
        home.join(server::RUN_DIR).join("mysqld.pid"),
    ]
    .iter()
    .filter_map(|f| std::fs::read_to_string(f).ok())
    .filter_map(|t| t.lines().next()?.trim().parse::<u32>().ok())
    .find(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmd| cmd.windows(data.len()).any(|w| w == data))
    })
}

/// Removes from kura's directory the names a run with `server` makes, and
/// nothing else: a file someone put there stays, and so does the directory.
fn remove_own(home: &Path, server: Server, errors: &mut Vec<String>) {
    let mut files: Vec<&str> = Vec::new();
    if server == Server::Sqlite {
        files.extend(sqlite::COMPANIONS);
    } else {
        // A server's data directory is all its own (initdb and mariadb-install-db made it in
        // kura's own directory); remove_dir_all does not follow symlinks inside it.
        for dir in [server::DATA_DIR, server::RUN_DIR] {
            let path = home.join(dir);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
                && let Err(e) = std::fs::remove_dir_all(&path)
            {
                errors.push(format!("{}: {e}", path.display()));
            }
        }
        files.push(server::LOG_FILE);
    }
    files.push(MARKER);
    for name in files {
        let path = home.join(name);
        // Only files: a directory or link at one of these names is not what kura made.
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => errors.push(format!("{}: {e}", path.display())),
        }
    }
}

/// DIR/kura-db is there before the run: when a killed kura left it (its
/// marker, its PID gone, no server of its still running), what that kura
/// made is removed and the run goes on; otherwise the caller refuses.
fn remove_leftover(home: &Path) -> Result<(), String> {
    let Some(marker) = read_marker(home) else {
        return Ok(());
    };
    let (pid, server) = (marker.pid, marker.server);
    let shown = home.display();
    if !marker.gone() {
        return Err(format!(
            "{shown} is in use by kura (pid {pid} on {}); wait for it, or choose another directory",
            crate::report::escape::term(&marker.host)
        ));
    }
    if let Some(server_pid) = server_alive(home) {
        return Err(format!(
            "{shown} was left by a kura (pid {pid}) that was killed, and its {server} server (pid \
             {server_pid}) still runs; stop it with: kill {server_pid}"
        ));
    }
    let mut errors = Vec::new();
    remove_own(home, server, &mut errors);
    if let Some(e) = errors.first() {
        return Err(format!(
            "{shown} was left by a kura (pid {pid}) that was killed; removing it failed: {e}"
        ));
    }
    if let Err(e) = std::fs::remove_dir(home) {
        let mut others: Vec<String> = std::fs::read_dir(home)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        others.sort();
        return Err(format!(
            "{shown} was left by a kura (pid {pid}) that was killed; kura removed what it made \
             there, but not {} ({e}): these are not kura's; move them and remove the directory",
            crate::report::escape::term(&others.join(", "))
        ));
    }
    eprintln!("kura: removed {shown}, left by a kura (pid {pid}) that was killed");
    Ok(())
}

/// (device, inode) of a path, not following a last symlink.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// CPU time of the whole process (the database runs inside it, in every thread).
fn process_cpu_ns() -> (u64, u64) {
    // SAFETY: rusage is plain C data; all-zero bytes are a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is writable for the call; RUSAGE_SELF needs nothing else.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return (0, 0);
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (ns(ru.ru_utime), ns(ru.ru_stime))
}

/// The state a db run keeps while the runner runs its tests one after another.
pub struct DbRun {
    home: PathBuf,
    /// Of the directory kura made: cleanup touches it only while it is still that one.
    home_id: Option<(u64, u64)>,
    connector: Box<dyn Connector + Send>,
    target: TargetFacts,
    oltp_ready: bool,
    /// The server kura started, if the run uses one; stopped at cleanup or drop.
    server: Option<server::ServerProcess>,
    /// Which names in the directory the run makes (`remove_own`).
    server_kind: Server,
    /// What the reader should know about the run, for its warnings.
    pub notes: Vec<crate::metrics::Warning>,
    /// The most bytes kura's directory held after any test (SQLite's file keeps its high-water mark).
    largest_bytes: u64,
    mem_limit_bytes: Option<u64>,
}

impl DbRun {
    /// kura's directory, which holds the database (and a server's data) it made.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// From the first job of a run: checks DIR and creates kura's directory in it.
    pub fn new(job: &Job, p: &DbParams, stop: &AtomicBool) -> Result<DbRun, String> {
        let file = job
            .target
            .clone()
            .unwrap_or_else(|| PathBuf::from(DB_DIR).join(sqlite::FILE));
        let home = file.parent().map(Path::to_path_buf).unwrap_or_default();
        check_target(&settings_of(job, p))?;
        // 0700: the database is nobody else's to read.
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(&home)
            .map_err(|e| format!("{}: {e}", home.display()))?;
        let home_id = identity(&home);
        if let Err(e) = write_marker(&home, p.server) {
            let _ = std::fs::remove_dir(&home);
            return Err(e);
        }
        let mut run = DbRun {
            home: home.clone(),
            home_id,
            connector: Box::new(sqlite::Sqlite {
                path: file.clone(),
                synchronous: p.synchronous,
                journal: p.journal,
            }),
            target: crate::targets::target_facts(
                &file,
                TargetKind::File,
                0,
                crate::targets::logical_block_bytes(&home),
                true,
            ),
            oltp_ready: false,
            server: None,
            server_kind: p.server,
            notes: Vec::new(),
            largest_bytes: 0,
            mem_limit_bytes: job.mem_limit_bytes,
        };
        if p.server != Server::Sqlite {
            // On failure `run` is dropped here: what was started stops, and the caller's cleanup
            // never runs, so the directory goes now.
            let started = server::ServerProcess::start(p.server, &home, p.server_sync.as_deref(), stop)
                .and_then(|proc| Ok((pg_or_mariadb(&proc)?, proc)));
            match started {
                Ok((connector, proc)) => {
                    if let Err(e) = wait_connect(&connector, &proc, stop) {
                        drop(proc);
                        let mut errors = Vec::new();
                        run.cleanup(false, &mut errors);
                        return Err(e);
                    }
                    run.connector = Box::new(connector);
                    run.target.path = home.join(server::DATA_DIR).display().to_string();
                    run.server = Some(proc);
                }
                Err(e) => {
                    let mut errors = Vec::new();
                    run.cleanup(false, &mut errors);
                    return Err(e);
                }
            }
        }
        Ok(run)
    }

    /// What the job is about to do, for the progress line.
    pub fn describe(&self, p: &DbParams) -> String {
        let what = Test::from_name(&p.test)
            .map(|t| {
                crate::t!(match t {
                    Test::Atis => "dbrun-step-atis",
                    Test::AlterTable => "dbrun-step-alter-table",
                    Test::BigTables => "dbrun-step-big-tables",
                    Test::Connect => "dbrun-step-connect",
                    Test::Create => "dbrun-step-create",
                    Test::Insert => "dbrun-step-insert",
                    Test::Select => "dbrun-step-select",
                    Test::Wisconsin => "dbrun-step-wisconsin",
                    Test::OltpReadWrite => "dbrun-step-oltp-read-write",
                })
            })
            .unwrap_or_default();
        let round = if p.runs > 1 {
            crate::t!("step-repetition", repetition = p.repetition, runs = p.runs)
        } else {
            String::new()
        };
        format!("{}{round}: {what}", p.test)
    }

    fn check_home(&self) -> Result<(), String> {
        if identity(&self.home) != self.home_id || self.home_id.is_none() {
            return Err(format!(
                "{} was replaced while the run went on; kura stops and leaves it alone",
                self.home.display()
            ));
        }
        Ok(())
    }

    /// Measures one test. `Err` when nothing was measured; `Ok` with the
    /// failure that ended the test, if one did.
    pub fn run(
        &mut self,
        job: &Job,
        p: &DbParams,
        stop: &AtomicBool,
    ) -> Result<(JobResult, Option<String>), String> {
        let test = Test::from_name(&p.test).ok_or_else(|| format!("{}: not one of the db tests", p.test))?;
        self.check_home()?;
        let connector = &*self.connector;
        if test.is_oltp() && !self.oltp_ready {
            // sysbench's `prepare` step: not measured.
            let mut s = Session::open(connector, stop).map_err(|e| e.to_string())?;
            match oltp::prepare(&mut s, p) {
                Ok(()) => self.oltp_ready = true,
                Err(DbError::Stopped) => {}
                Err(e) => return Err(format!("{}: preparing the tables: {e}", p.test)),
            }
        }
        let cpu = process_cpu_ns();
        let start = Instant::now();
        let (rec, elapsed_ns, error) = if test.is_oltp() {
            let out = oltp::run(connector, p, stop, job.interval);
            if out.retried > 0 {
                self.notes.push(crate::metrics::Warning::OltpRetried {
                    job: job.name.clone(),
                    count: out.retried,
                });
            }
            (out.rec, out.elapsed.as_nanos() as u64, out.error)
        } else {
            // sql-bench's tests are phases of different statements, one after
            // another, and sql-bench reports each test whole: a series would
            // show the phases, not the storage. The OLTP mix keeps one.
            let mut s = Session::open(connector, stop).map_err(|e| format!("{}: {e}", p.test))?;
            let result = sqlbench::run(test, &mut s, p);
            let elapsed = start.elapsed().as_nanos() as u64;
            if result.is_err() {
                // The next test starts on an empty database, as after a clean run.
                let quiet = AtomicBool::new(false);
                if let Ok(mut clean) = Session::open(connector, &quiet) {
                    sqlbench::drop_leftovers(&mut clean, sqlbench::TABLES);
                }
            }
            (s.into_recorded(), elapsed, result.err())
        };
        let cpu_after = process_cpu_ns();
        self.largest_bytes = self.largest_bytes.max(tree_bytes(&self.home));
        let stopped = matches!(error, Some(DbError::Stopped));
        let error = error.filter(|e| !matches!(e, DbError::Stopped));
        let result = self.job_result(
            job,
            test,
            &rec,
            elapsed_ns,
            cpu,
            cpu_after,
            stopped || error.is_some(),
        );
        Ok((result, error.map(|e| format!("{}: {e}", p.test))))
    }

    #[allow(clippy::too_many_arguments)]
    fn job_result(
        &self,
        job: &Job,
        test: Test,
        rec: &Recorded,
        elapsed_ns: u64,
        cpu: (u64, u64),
        cpu_after: (u64, u64),
        incomplete: bool,
    ) -> JobResult {
        let mut operations = BTreeMap::new();
        for (kind, c) in rec.by_kind() {
            if c.ops > 0 {
                operations.insert(kind, c.result(elapsed_ns));
            }
        }
        let mut target = self.target.clone();
        if self.server.is_none() {
            target.size_bytes = std::fs::symlink_metadata(&self.target.path)
                .map(|m| m.len())
                .unwrap_or(0);
        }
        JobResult {
            job: job.clone(),
            cluster: None,
            device_io: None,
            test: Some(test.name().to_string()),
            target,
            engine: job
                .workload
                .database()
                .map_or_else(|| "sqlite".to_string(), |p| p.server.to_string()),
            measure_start_unix_ms: 0,
            elapsed_ns,
            ramp_ns: 0,
            read: (rec.read.ops > 0).then(|| rec.read.result(elapsed_ns)),
            write: None,
            operations,
            syncs: 0,
            cpu_user_ns: cpu_after.0.saturating_sub(cpu.0),
            cpu_system_ns: cpu_after.1.saturating_sub(cpu.1),
            series: crate::metrics::collect::series_of(&rec.periods, job.interval, elapsed_ns),
            incomplete,
        }
    }

    /// Removes what kura created (the database files and its directory),
    /// unless `keep`; `errors` gets what could not be removed.
    /// The warning that the database fit in memory, when it did; once per run.
    pub fn memory_note(&self) -> Option<crate::metrics::Warning> {
        if let Some(limit) = self.mem_limit_bytes {
            return (self.largest_bytes > 0 && self.largest_bytes < limit).then(|| {
                crate::metrics::Warning::DatabaseUnderMemLimit {
                    data_mb: self.largest_bytes.div_ceil(1_000_000),
                    limit_mb: limit / 1_000_000,
                }
            });
        }
        let memory = crate::targets::host_facts().memory_bytes;
        (self.largest_bytes > 0 && self.largest_bytes < memory).then(|| {
            crate::metrics::Warning::DatabaseInMemory {
                data_mb: self.largest_bytes.div_ceil(1_000_000),
                memory_mb: memory / 1_000_000,
            }
        })
    }

    pub fn cleanup(&mut self, keep: bool, errors: &mut Vec<String>) {
        if let Some(mut proc) = self.server.take()
            && let Err(e) = proc.stop()
        {
            errors.push(e);
        }
        if keep {
            // The directory is the user's now: a later run must not take it for a killed kura's.
            if self.check_home().is_ok() {
                let _ = std::fs::remove_file(self.home.join(MARKER));
            }
            return;
        }
        if let Err(e) = self.check_home() {
            errors.push(e);
            return;
        }
        remove_own(&self.home, self.server_kind, errors);
        if let Err(e) = std::fs::remove_dir(&self.home) {
            errors.push(format!(
                "{}: {e} (kura removed only the files it made there)",
                self.home.display()
            ));
        }
    }
}

/// The client side of a started server.
enum ServerClient {
    Postgres(pg::Postgres),
    Mariadb(mariadb::Mariadb),
}

impl Connector for ServerClient {
    fn dialect(&self) -> session::Dialect {
        match self {
            ServerClient::Postgres(c) => c.dialect(),
            ServerClient::Mariadb(c) => c.dialect(),
        }
    }

    fn connect(&self) -> Result<Box<dyn session::Conn>, DbError> {
        match self {
            ServerClient::Postgres(c) => c.connect(),
            ServerClient::Mariadb(c) => c.connect(),
        }
    }

    fn connect_lean(&self) -> Result<Box<dyn session::Conn>, DbError> {
        match self {
            ServerClient::Postgres(c) => c.connect_lean(),
            ServerClient::Mariadb(c) => c.connect(),
        }
    }
}

fn pg_or_mariadb(proc: &server::ServerProcess) -> Result<ServerClient, String> {
    match proc.kind {
        Server::Postgres => Ok(ServerClient::Postgres(pg::Postgres {
            socket_dir: proc.run_dir.clone(),
        })),
        Server::Mariadb => Ok(ServerClient::Mariadb(mariadb::Mariadb {
            socket: proc.socket(),
        })),
        Server::Sqlite => Err("SQLite has no server".into()),
    }
}

/// A server's socket opens before it takes connections ("the database
/// system is starting up"): kura waits until one connect succeeds.
fn wait_connect(
    connector: &ServerClient,
    proc: &server::ServerProcess,
    stop: &AtomicBool,
) -> Result<(), String> {
    let deadline = Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let attempt = match connector {
            ServerClient::Mariadb(m) => m.create_database().and_then(|()| connector.connect()),
            ServerClient::Postgres(_) => connector.connect(),
        };
        match attempt {
            Ok(_) => return Ok(()),
            Err(e) if Instant::now() > deadline || stop.load(std::sync::atomic::Ordering::Relaxed) => {
                return Err(format!("the {} server takes no connections: {e}", proc.kind));
            }
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    }
}

/// Bytes of the files under `dir`, not following symlinks (a server's data directory included).
fn tree_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).ok()?;
            Some(if meta.is_dir() {
                tree_bytes(&e.path())
            } else if meta.is_file() {
                meta.len()
            } else {
                0
            })
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(marker: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MARKER), marker).unwrap();
        dir
    }

    #[test]
    fn only_a_marker_of_this_machine_with_its_pid_gone_is_a_leftover() {
        let host = kernel_text("hostname");
        let boot = kernel_text("random/boot_id");
        // No PID is that large (pid_max is at most 2^22); this process is alive.
        let gone = home_with(&format!(
            "kura suite db\npid 999999999\nserver sqlite\nhost {host}\nboot {boot}\n"
        ));
        assert!(read_marker(gone.path()).unwrap().gone());
        let alive = home_with(&format!(
            "kura suite db\npid {}\nserver postgres\nhost {host}\nboot {boot}\n",
            std::process::id()
        ));
        let m = read_marker(alive.path()).unwrap();
        assert_eq!(m.server, Server::Postgres);
        assert!(!m.gone());
        // A PID on another machine sharing DIR says nothing here.
        let elsewhere = home_with(&format!(
            "kura suite db\npid 999999999\nserver sqlite\nhost not-{host}\nboot {boot}\n"
        ));
        assert!(!read_marker(elsewhere.path()).unwrap().gone());
        assert!(
            remove_leftover(elsewhere.path())
                .unwrap_err()
                .contains("in use by kura")
        );
        // After a reboot every PID of the last boot is gone.
        let rebooted = home_with(&format!(
            "kura suite db\npid {}\nserver sqlite\nhost {host}\nboot other\n",
            std::process::id()
        ));
        assert!(read_marker(rebooted.path()).unwrap().gone());
        // Not kura's: no marker at all, or another text.
        assert!(read_marker(home_with("hello\n").path()).is_none());
        let plain = tempfile::tempdir().unwrap();
        assert!(read_marker(plain.path()).is_none());
        assert!(remove_leftover(plain.path()).is_ok());
        assert!(
            plain.path().exists(),
            "a directory without the marker is left alone"
        );
    }
}
