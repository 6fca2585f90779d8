//! The SQLite database of runs: schema, migrations, writes and queries.
//! A run is stored whole (as JSON, so `show` prints it exactly as `run`
//! did) and per job and direction in columns that queries can use.

mod open;
mod record;
mod schema;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use rusqlite::{Connection, OptionalExtension, params};
use thiserror::Error;

use crate::metrics::{IntervalPoint, JobResult, RunResult};

pub use open::{Access, LOCK_WAIT, io_text};
pub use record::Recorder;
pub use schema::SCHEMA_VERSION;

/// Every message is one line that names the database; none carries a source
/// that would print the same text again in an error chain.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("--db {path}: {why}")]
    Path { path: String, why: String },
    #[error("{}", crate::t!("error-no-database", path = path.as_str()))]
    Missing { path: String },
    #[error(
        "no place for the default database: {why} and XDG_DATA_HOME is not an absolute path; give --db PATH"
    )]
    NoDefault { why: &'static str },
    #[error("database {path} is refused: {why}")]
    Foreign { path: String, why: String },
    #[error("database {path}: {why}")]
    Db { path: String, why: String },
    #[error("stored run {id} cannot be read: {why}")]
    Corrupt { id: i64, why: String },
    #[error("{}", crate::t!("error-no-run", spec = .0.as_str()))]
    NoSuchRun(String),
    #[error("{}", crate::t!("error-ambiguous-run", spec = spec.as_str(), count = *count, ids = ids.as_str()))]
    Ambiguous { spec: String, count: usize, ids: String },
}

/// Ctrl-C: a wait for another process's lock gives up when it is set.
static INTERRUPT: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Makes lock waits of every connection end when `flag` is set (Ctrl-C).
pub fn watch_interrupt(flag: Arc<AtomicBool>) {
    let _ = INTERRUPT.set(flag);
}

fn interrupt_flag() -> Option<&'static Arc<AtomicBool>> {
    INTERRUPT.get()
}

/// SQLite's message for an error, once.
pub(crate) fn sqlite_text(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) if !msg.is_empty() => msg.clone(),
        rusqlite::Error::SqliteFailure(err, _) => err.to_string(),
        other => other.to_string(),
    }
}

fn sql_error(path: &str, interrupted: &AtomicBool, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode as C;
    let code = e.sqlite_error_code();
    // SQLite words a file system that refuses writes vaguely ("unable to open
    // database file", "disk I/O error"): the file system's state says why.
    let writes_refused = matches!(
        code,
        Some(C::CannotOpen | C::SystemIoFailure | C::ReadOnly | C::DiskFull)
    );
    let why = match code {
        _ if writes_refused && file_system_read_only(path) => READ_ONLY.to_string(),
        Some(C::DiskFull) => FULL.to_string(),
        Some(C::CannotOpen | C::SystemIoFailure) if !file_system_fails(path) && file_system_full(path) => {
            FULL.to_string()
        }
        Some(C::DatabaseBusy | C::DatabaseLocked) if interrupted.load(Ordering::Relaxed) => {
            "stopped (Ctrl-C) while waiting for another process's lock on it".to_string()
        }
        Some(C::DatabaseBusy | C::DatabaseLocked) => format!(
            "locked by another process for more than {} s",
            LOCK_WAIT.as_secs()
        ),
        Some(C::NotADatabase) => "not an SQLite database".to_string(),
        Some(C::DatabaseCorrupt | C::SystemIoFailure) if file_system_fails(path) => {
            "the file system holding it returned an I/O error (EIO: shut down or failing; see dmesg), \
             so SQLite could not read it; the database file itself may well be intact"
                .to_string()
        }
        Some(C::DatabaseCorrupt) => format!("damaged ({})", sqlite_text(&e)),
        Some(C::ReadOnly) => "cannot be written (read-only)".to_string(),
        Some(C::CannotOpen) => format!("cannot be opened ({})", sqlite_text(&e)),
        _ => sqlite_text(&e),
    };
    StoreError::Db {
        path: path.to_string(),
        why,
    }
}

const READ_ONLY: &str =
    "cannot be written: read-only file system (the file system holding it is mounted read-only)";
const FULL: &str = "cannot be written: no space left on device (the file system holding it is full)";

/// What statvfs(3) says of the file system holding `path` (its directory).
fn holding_file_system(path: &str) -> Option<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let dir = Path::new(path)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is plain C data; all-zero bytes are a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is NUL-terminated and `st` writable; both live for the call.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0).then_some(st)
}

fn file_system_read_only(path: &str) -> bool {
    holding_file_system(path).is_some_and(|st| st.f_flag & libc::ST_RDONLY != 0)
}

/// Whether the file system holding `path` has less room left than SQLite
/// writes at once (a WAL frame group, the `-shm` index): the free blocks
/// this process may use (root may use the reserved ones) under 1 MiB.
fn file_system_full(path: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    holding_file_system(path).is_some_and(|st| {
        let blocks = if root { st.f_bfree } else { st.f_bavail };
        blocks.saturating_mul(st.f_frsize) < 1 << 20
    })
}

/// What SQLite's refusal to open `path` means, in words (see `sql_error`).
pub(crate) fn open_error(path: &str, e: rusqlite::Error) -> StoreError {
    sql_error(path, &AtomicBool::new(false), e)
}

/// Whether reading `path` fails with EIO: after a file system shuts down
/// (xfs on an I/O error, a pulled disk), SQLite reports the pages it cannot
/// read as "database disk image is malformed", which would send someone to
/// repair a database that may be whole.
fn file_system_fails(path: &str) -> bool {
    use std::os::unix::fs::FileExt;
    let read = || -> std::io::Result<usize> { std::fs::File::open(path)?.read_at(&mut [0u8; 512], 0) };
    matches!(read(), Err(e) if e.raw_os_error() == Some(libc::EIO))
}

/// One line of `kura history`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSummary {
    pub id: i64,
    pub started_unix_s: i64,
    pub label: Option<String>,
    pub price: Option<String>,
    pub suite: Option<String>,
    pub hostname: String,
    pub incomplete: bool,
    pub jobs: u64,
    /// The first job's target and workload, for recognising the run.
    pub target: String,
    pub workload: String,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Why this row's columns cannot be read; the other fields are then placeholders.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// What `iops` and `bytes_per_sec` are (`report::history::represent` fills both in).
    pub figure: String,
    /// The same in a few words (the test and its direction), for a line of
    /// 80 columns; the terminal's and the web UI's list of runs show it.
    #[serde(skip)]
    pub figure_short: String,
}

pub struct Store {
    conn: Connection,
    /// The path as the user gave it, for messages.
    path: String,
    /// 1 for a database of kura before runs were stored job by job.
    schema: i32,
    /// Set by the busy handler when Ctrl-C ended a lock wait.
    interrupted: Arc<AtomicBool>,
    /// Cleared where a statement must not wait for another process's lock.
    wait: Arc<AtomicBool>,
    /// The file and its device and inode, when this call created it: removed
    /// again when the call ends with no run in it (`open::discard_unfilled`).
    created: Option<(PathBuf, (u64, u64))>,
}

/// `$XDG_DATA_HOME/kura/kura.db`, else `$HOME/.local/share/kura/kura.db`.
/// The XDG Base Directory spec says a relative `XDG_DATA_HOME` is invalid
/// and ignored; with no absolute `HOME` either there is no default (it used
/// to be the current directory, wherever kura happened to start).
pub fn default_path() -> Result<PathBuf, StoreError> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(base) = absolute("XDG_DATA_HOME") {
        return Ok(base.join("kura").join("kura.db"));
    }
    if let Some(home) = absolute("HOME") {
        return Ok(home.join(".local/share").join("kura").join("kura.db"));
    }
    let why = match std::env::var_os("HOME") {
        None => "HOME is not set",
        Some(h) if h.is_empty() => "HOME is empty",
        Some(_) => "HOME is not an absolute path",
    };
    Err(StoreError::NoDefault { why })
}

const JOB_RESULT_INSERT: &str = "INSERT INTO job_results (run_id, job_index, direction, name, test,
    target_path, rw, bs, qd, threads, ops, bytes, errors, iops, bytes_per_sec, lat_mean_ns,
    lat_p99_ns, histogram)
    VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)";

/// The columns of one job, one row per kind of operation (the `direction`
/// column, named when reads and writes were all there was, holds `read`,
/// `write`, `create`, `stat`...).
fn insert_job_rows(conn: &Connection, run_id: i64, index: i64, job: &JobResult) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(JOB_RESULT_INSERT)?;
    // A kind other than block I/O names itself in `rw` (`bs` empty), so the
    // run list describes it by what it ran, not by its unused block fields.
    let listed = job.job.workload.kind().listed_as(&job.job);
    for (kind, d) in job.by_operation() {
        let direction = kind.name();
        let p99 = d.lat_ns.percentiles.get("99.000000").copied().unwrap_or(0);
        stmt.execute(params![
            run_id,
            index,
            direction,
            job.job.name,
            job.test,
            job.target.path,
            &listed.0,
            &listed.1,
            job.job.qd,
            job.job.threads,
            d.ops as i64,
            d.bytes as i64,
            d.errors as i64,
            d.iops,
            d.bytes_per_sec,
            d.lat_ns.mean,
            p99 as i64,
            d.histogram,
        ])?;
    }
    Ok(())
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Results are plain data (strings, numbers, maps with string keys): serializing cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

impl Store {
    /// Opens the database to store runs: a new file is created (with the
    /// default path's directory when `create_parent`), kura's tables are
    /// created or migrated. Only a regular file or a new one is accepted.
    pub fn open(path: &Path, create_parent: bool) -> Result<Store, StoreError> {
        open::open(path, Access::Write, create_parent)
    }

    /// Opens an existing kura database only to read it: nothing is created,
    /// migrated, converted or written, and runs stored meanwhile by another
    /// process show up (WAL).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        open::open(path, Access::Read, false)
    }

    /// `open_read_only` for a reader that lives on (`kura serve`): runs
    /// stored later show up, through SQLite's WAL index (`-shm`), which
    /// SQLite may create for that.
    pub fn open_following(path: &Path) -> Result<Store, StoreError> {
        open::open(path, Access::Follow, false)
    }

    fn wait_for_locks(&self, wait: bool) {
        self.wait.store(wait, Ordering::Relaxed);
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    fn sql(&self, e: rusqlite::Error) -> StoreError {
        sql_error(&self.path, &self.interrupted, e)
    }

    /// Stores a finished run (an import) in one transaction and sets its id.
    pub fn save(&mut self, run: &mut RunResult) -> Result<i64, StoreError> {
        let mut rec = self.begin_run(run)?;
        rec.finish(run)
    }

    pub fn load(&self, id: i64) -> Result<RunResult, StoreError> {
        let finished = if self.schema >= 2 { "finished" } else { "1" };
        let row: Option<(String, Option<String>, Option<String>, bool)> =
            self.conn
                .query_row(
                    &format!("SELECT result_json, label, price, {finished} FROM runs WHERE id = ?1"),
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()
                .map_err(|e| match e {
                    rusqlite::Error::FromSqlConversionFailure(..)
                    | rusqlite::Error::InvalidColumnType(..) => StoreError::Corrupt {
                        id,
                        why: sqlite_text(&e),
                    },
                    e => self.sql(e),
                })?;
        let (json, label, price, finished) = row.ok_or_else(|| StoreError::NoSuchRun(id.to_string()))?;
        let corrupt = |e: serde_json::Error| StoreError::Corrupt {
            id,
            why: e.to_string(),
        };
        let mut run: RunResult = serde_json::from_str(&json).map_err(corrupt)?;
        if !finished {
            self.load_unfinished(id, &mut run)?;
        }
        run.id = Some(id);
        // Labels and prices can change after the run (`kura label`); the columns are current.
        run.label = label;
        run.price = price;
        Ok(run)
    }

    /// A run whose end was never stored: the jobs it stored as they finished,
    /// and the one that was measuring with the periods of its series stored.
    fn load_unfinished(&self, id: i64, run: &mut RunResult) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT job_index, finished, job_json FROM run_jobs WHERE run_id = ?1 ORDER BY job_index",
            )
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(i64, bool, String)> = stmt
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        run.jobs.clear();
        let mut finished_jobs = 0;
        let mut notes = Vec::new();
        for (index, finished, json) in rows {
            let mut job = match serde_json::from_str::<JobResult>(&json) {
                Ok(job) => job,
                Err(e) => {
                    notes.push(crate::metrics::Warning::StoredJobUnreadable {
                        index: index as u64,
                        error: e.to_string(),
                    });
                    continue;
                }
            };
            if finished {
                finished_jobs += 1;
            } else {
                job.series = self.stored_series(id, index)?;
                job.elapsed_ns = job.series.iter().map(|p| p.duration_ns).sum();
                notes.push(crate::metrics::Warning::JobUnfinished {
                    job: job.job.name.clone(),
                    periods: job.series.len() as u64,
                });
            }
            run.jobs.push(job);
        }
        run.incomplete = true;
        // Long runs: one still measuring says so, and what its series shows so far.
        let measuring = run.warnings.iter().find(|w| {
            matches!(w, crate::metrics::Warning::Measuring { pid, boot_id } if writer_alive(*pid, boot_id))
        });
        let measuring = measuring.cloned();
        run.warnings
            .retain(|w| !matches!(w, crate::metrics::Warning::Measuring { .. }));
        match measuring {
            Some(w) => run.warnings.insert(0, w),
            None => run
                .warnings
                .push(crate::metrics::Warning::RunUnfinished { finished_jobs }),
        }
        // The run's own warnings are stored at its end: what the series of its jobs showed is found again.
        for job in run.jobs.iter().filter(|j| j.engine != "null") {
            notes.extend(crate::metrics::warning::of_job(job));
        }
        run.warnings.extend(notes);
        Ok(())
    }

    fn stored_series(&self, id: i64, index: i64) -> Result<Vec<IntervalPoint>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT point_json FROM run_intervals WHERE run_id = ?1 AND job_index = ?2 ORDER BY period",
            )
            .map_err(|e| self.sql(e))?;
        let points: Vec<String> = stmt
            .query_map(params![id, index], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        Ok(points
            .iter()
            .filter_map(|p| serde_json::from_str(p).ok())
            .collect())
    }

    /// Finds a run by id, `latest`, or label (newest wins only when `latest_of_label`).
    pub fn resolve(&self, spec: &str, latest_of_label: bool) -> Result<i64, StoreError> {
        if spec == "latest" {
            return self
                .conn
                .query_row("SELECT id FROM runs ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
                .optional()
                .map_err(|e| self.sql(e))?
                .ok_or_else(|| StoreError::NoSuchRun(spec.to_string()));
        }
        if let Ok(id) = spec.parse::<i64>() {
            let found: Option<i64> = self
                .conn
                .query_row("SELECT id FROM runs WHERE id = ?1", [id], |r| r.get(0))
                .optional()
                .map_err(|e| self.sql(e))?;
            if let Some(id) = found {
                return Ok(id);
            }
        }
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM runs WHERE label = ?1 ORDER BY id DESC")
            .map_err(|e| self.sql(e))?;
        let ids: Vec<i64> = stmt
            .query_map([spec], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        match ids.len() {
            0 => Err(StoreError::NoSuchRun(spec.to_string())),
            1 => Ok(ids[0]),
            _ if latest_of_label => Ok(ids[0]),
            n => Err(StoreError::Ambiguous {
                spec: spec.to_string(),
                count: n,
                ids: ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    pub fn set_label(&mut self, id: i64, label: Option<&str>, price: Option<&str>) -> Result<(), StoreError> {
        if let Some(label) = label {
            self.conn
                .execute("UPDATE runs SET label = ?1 WHERE id = ?2", params![label, id])
                .map_err(|e| self.sql(e))?;
        }
        if let Some(price) = price {
            self.conn
                .execute("UPDATE runs SET price = ?1 WHERE id = ?2", params![price, id])
                .map_err(|e| self.sql(e))?;
        }
        Ok(())
    }

    /// Runs, newest first, optionally only those with this label or suite (a
    /// suite's family matches its variants: `mark` finds `mark:default`). A
    /// row whose columns cannot be read is listed as unreadable (its id and
    /// why) instead of hiding every other run.
    pub fn list(
        &self,
        label: Option<&str>,
        suite: Option<&str>,
        limit: usize,
    ) -> Result<Vec<RunSummary>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.started_unix_s, r.label, r.price, r.suite, r.hostname, r.incomplete,
                    (SELECT COUNT(DISTINCT job_index) FROM job_results j WHERE j.run_id = r.id),
                    COALESCE((SELECT target_path FROM job_results j WHERE j.run_id = r.id ORDER BY job_index LIMIT 1), ''),
                    COALESCE((SELECT CASE WHEN bs = '' THEN rw ELSE rw || ' ' || bs || ' qd' || qd || ' x' || threads END FROM job_results j
                              WHERE j.run_id = r.id ORDER BY job_index LIMIT 1), ''),
                    COALESCE((SELECT SUM(iops) FROM job_results j WHERE j.run_id = r.id AND j.job_index = 0), 0),
                    COALESCE((SELECT SUM(bytes_per_sec) FROM job_results j WHERE j.run_id = r.id AND j.job_index = 0), 0)
             FROM runs r
             WHERE (?1 IS NULL OR r.label = ?1)
               AND (?2 IS NULL OR r.suite = ?2 OR substr(r.suite, 1, length(?2) + 1) = ?2 || ':')
             ORDER BY r.id DESC LIMIT ?3",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![label, suite, limit as i64], |r| {
                let id: i64 = r.get(0)?;
                Ok(summary(r).unwrap_or_else(|e| RunSummary::unreadable(id, sqlite_text(&e))))
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    // history: what a filter that matched nothing left out.
    /// How many runs are stored under each suite name (`None`: plain runs).
    pub fn suite_counts(&self) -> Result<Vec<(Option<String>, u64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT suite, COUNT(*) FROM runs GROUP BY suite ORDER BY suite")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}

fn summary(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: r.get(0)?,
        started_unix_s: r.get(1)?,
        label: r.get(2)?,
        price: r.get(3)?,
        suite: r.get(4)?,
        hostname: r.get(5)?,
        incomplete: r.get(6)?,
        jobs: r.get::<_, i64>(7)? as u64,
        target: r.get(8)?,
        workload: r.get(9)?,
        iops: r.get(10)?,
        bytes_per_sec: r.get(11)?,
        unreadable: None,
        figure: "first job".to_string(),
        figure_short: "first job".to_string(),
    })
}

impl RunSummary {
    fn unreadable(id: i64, why: String) -> RunSummary {
        RunSummary {
            id,
            started_unix_s: 0,
            label: None,
            price: None,
            suite: None,
            hostname: String::new(),
            incomplete: true,
            jobs: 0,
            target: "(unreadable row)".to_string(),
            workload: why.clone(),
            iops: 0.0,
            bytes_per_sec: 0.0,
            unreadable: Some(why),
            figure: String::new(),
            figure_short: String::new(),
        }
    }
}

/// This boot of this machine, so a process id is not taken for one of an earlier boot.
pub(crate) fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Whether the kura process that began a run is still running on this machine.
pub(crate) fn writer_alive(pid: u32, boot: &str) -> bool {
    if boot.is_empty() || boot != boot_id() || pid == std::process::id() {
        return false;
    }
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim() == "kura")
}
