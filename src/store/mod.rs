//! The SQLite database of runs: schema, migrations, writes and queries.
//! A run is stored whole (as JSON, so `show` prints it exactly as `run`
//! did) and per job and direction in columns that queries can use.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use thiserror::Error;

use crate::metrics::RunResult;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("cannot open database {path}: {why}")]
    Open { path: String, why: String },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("stored run {id} cannot be read: {why}")]
    Corrupt { id: i64, why: String },
    #[error("no run matches '{0}' (see `kura history`)")]
    NoSuchRun(String),
    #[error("'{spec}' matches {count} runs ({ids}); give a run id, or add --latest")]
    Ambiguous { spec: String, count: usize, ids: String },
}

/// The newest schema; `migrate` brings older databases up to it.
const SCHEMA_VERSION: i32 = 1;

const SCHEMA_V1: &str = "
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    started_unix_s INTEGER NOT NULL,
    label TEXT,
    price TEXT,
    suite TEXT,
    hostname TEXT NOT NULL,
    incomplete INTEGER NOT NULL,
    result_json TEXT NOT NULL
);
CREATE TABLE job_results (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_index INTEGER NOT NULL,
    direction TEXT NOT NULL,
    name TEXT NOT NULL,
    test TEXT,
    target_path TEXT NOT NULL,
    rw TEXT NOT NULL,
    bs TEXT NOT NULL,
    qd INTEGER NOT NULL,
    threads INTEGER NOT NULL,
    ops INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    iops REAL NOT NULL,
    bytes_per_sec REAL NOT NULL,
    lat_mean_ns REAL NOT NULL,
    lat_p99_ns INTEGER NOT NULL,
    histogram TEXT NOT NULL,
    PRIMARY KEY (run_id, job_index, direction)
);
CREATE INDEX runs_label ON runs(label);
";

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
    /// What `iops` and `bytes_per_sec` are (`report::history::represent` fills both in).
    pub figure: String,
}

/// One stored job direction's rates, for choosing the figure that represents a run.
#[derive(Debug, Clone)]
pub struct JobFigure {
    pub job_index: i64,
    pub direction: String,
    pub job_name: String,
    pub test: Option<String>,
    pub iops: f64,
    pub bytes_per_sec: f64,
}

pub struct Store {
    conn: Connection,
}

/// `$XDG_DATA_HOME/kura/kura.db`, else `~/.local/share/kura/kura.db`.
pub fn default_path() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("kura").join("kura.db")
}

impl Store {
    /// Opens (creating if needed) the database; the parent directory of the
    /// default path is created, a user-given one must exist.
    pub fn open(path: &Path, create_parent: bool) -> Result<Store, StoreError> {
        let fail = |why: String| StoreError::Open {
            path: path.display().to_string(),
            why,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if create_parent {
                std::fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
            } else if !parent.is_dir() {
                return Err(fail(format!("directory {} does not exist", parent.display())));
            }
        }
        if path.is_dir() {
            return Err(fail("it is a directory".to_string()));
        }
        let conn = Connection::open(path).map_err(|e| fail(e.to_string()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| fail(e.to_string()))?;
        // WAL lets `kura serve` read while a run writes.
        let _: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| fail(format!("not a usable SQLite database ({e})")))?;
        conn.execute_batch("PRAGMA foreign_keys=ON")
            .map_err(|e| fail(e.to_string()))?;
        let mut store = Store { conn };
        store.migrate().map_err(|e| fail(e.to_string()))?;
        Ok(store)
    }

    /// Opens an existing database only to read it (`kura serve`): nothing is
    /// created, migrated or written, and runs stored meanwhile by another
    /// process show up (WAL).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let fail = |why: String| StoreError::Open {
            path: path.display().to_string(),
            why,
        };
        if !path.is_file() {
            return Err(fail("no such database (store a run first)".to_string()));
        }
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| fail(e.to_string()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| fail(e.to_string()))?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| fail(format!("not a usable SQLite database ({e})")))?;
        if version > SCHEMA_VERSION {
            return Err(fail(format!(
                "written by a newer kura (schema {version}, this kura knows {SCHEMA_VERSION})"
            )));
        }
        if version < 1 {
            return Err(fail("not a kura database".to_string()));
        }
        Ok(Store { conn })
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: i32 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Open {
                path: self.conn.path().unwrap_or("").to_string(),
                why: format!("written by a newer kura (schema {version}, this kura knows {SCHEMA_VERSION})"),
            });
        }
        if version < 1 {
            let tx = self.conn.transaction()?;
            tx.execute_batch(SCHEMA_V1)?;
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Stores a run in one transaction and sets its id.
    pub fn save(&mut self, run: &mut RunResult) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO runs (started_unix_s, label, price, suite, hostname, incomplete, result_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, '')",
            params![
                run.started_unix_s,
                run.label,
                run.price,
                run.suite,
                run.host.hostname,
                run.incomplete
            ],
        )?;
        let id = tx.last_insert_rowid();
        run.id = Some(id);
        let json = serde_json::to_string(run).expect("a run serializes");
        tx.execute(
            "UPDATE runs SET result_json = ?1 WHERE id = ?2",
            params![json, id],
        )?;
        for (index, job) in run.jobs.iter().enumerate() {
            for (direction, d) in job.directions() {
                let p99 = d.lat_ns.percentiles.get("99.000000").copied().unwrap_or(0);
                tx.execute(
                    "INSERT INTO job_results VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
                    params![
                        id,
                        index as i64,
                        direction,
                        job.job.name,
                        job.test,
                        job.target.path,
                        job.job.rw.name(),
                        job.job.bs_text(),
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
                    ],
                )?;
            }
        }
        tx.commit()?;
        Ok(id)
    }

    pub fn load(&self, id: i64) -> Result<RunResult, StoreError> {
        let row: Option<(String, Option<String>, Option<String>)> = self
            .conn
            .query_row(
                "SELECT result_json, label, price FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let (json, label, price) = row.ok_or_else(|| StoreError::NoSuchRun(id.to_string()))?;
        let mut run: RunResult = serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
            id,
            why: e.to_string(),
        })?;
        // Labels and prices can change after the run (`kura label`); the columns are current.
        run.label = label;
        run.price = price;
        Ok(run)
    }

    /// Finds a run by id, `latest`, or label (newest wins only when `latest_of_label`).
    pub fn resolve(&self, spec: &str, latest_of_label: bool) -> Result<i64, StoreError> {
        if spec == "latest" {
            return self
                .conn
                .query_row("SELECT id FROM runs ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
                .optional()?
                .ok_or_else(|| StoreError::NoSuchRun(spec.to_string()));
        }
        if let Ok(id) = spec.parse::<i64>() {
            let found: Option<i64> = self
                .conn
                .query_row("SELECT id FROM runs WHERE id = ?1", [id], |r| r.get(0))
                .optional()?;
            if let Some(id) = found {
                return Ok(id);
            }
        }
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM runs WHERE label = ?1 ORDER BY id DESC")?;
        let ids: Vec<i64> = stmt.query_map([spec], |r| r.get(0))?.collect::<Result<_, _>>()?;
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
                .execute("UPDATE runs SET label = ?1 WHERE id = ?2", params![label, id])?;
        }
        if let Some(price) = price {
            self.conn
                .execute("UPDATE runs SET price = ?1 WHERE id = ?2", params![price, id])?;
        }
        Ok(())
    }

    /// Runs, newest first, optionally only those with this label or suite.
    pub fn list(
        &self,
        label: Option<&str>,
        suite: Option<&str>,
        limit: usize,
    ) -> Result<Vec<RunSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT r.id, r.started_unix_s, r.label, r.price, r.suite, r.hostname, r.incomplete,
                    (SELECT COUNT(DISTINCT job_index) FROM job_results j WHERE j.run_id = r.id),
                    COALESCE((SELECT target_path FROM job_results j WHERE j.run_id = r.id ORDER BY job_index LIMIT 1), ''),
                    COALESCE((SELECT rw || ' ' || bs || ' qd' || qd || ' x' || threads FROM job_results j
                              WHERE j.run_id = r.id ORDER BY job_index LIMIT 1), ''),
                    COALESCE((SELECT SUM(iops) FROM job_results j WHERE j.run_id = r.id AND j.job_index = 0), 0),
                    COALESCE((SELECT SUM(bytes_per_sec) FROM job_results j WHERE j.run_id = r.id AND j.job_index = 0), 0)
             FROM runs r
             WHERE (?1 IS NULL OR r.label = ?1) AND (?2 IS NULL OR r.suite = ?2)
             ORDER BY r.id DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![label, suite, limit as i64], |r| {
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
                figure: "first job".to_string(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every job direction's rates of one run, in job order.
    pub fn job_figures(&self, run_id: i64) -> Result<Vec<JobFigure>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT job_index, direction, name, test, iops, bytes_per_sec
             FROM job_results WHERE run_id = ?1 ORDER BY job_index, direction",
        )?;
        let rows = stmt.query_map([run_id], |r| {
            Ok(JobFigure {
                job_index: r.get(0)?,
                direction: r.get(1)?,
                job_name: r.get(2)?,
                test: r.get(3)?,
                iops: r.get(4)?,
                bytes_per_sec: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
