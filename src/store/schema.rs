//! The schema, its version (in `PRAGMA user_version`) and migrations.
//! Creation runs inside BEGIN IMMEDIATE, so of several kuras starting on a
//! new database one creates the tables and the others find them.

use rusqlite::{Connection, TransactionBehavior};

use super::{Store, StoreError};

/// The newest schema. 1: runs and job_results. 2: runs.finished and
/// run_jobs, so a run is stored job by job as it goes.
pub const SCHEMA_VERSION: i32 = 2;

const RUNS: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started_unix_s INTEGER NOT NULL,
    label TEXT,
    price TEXT,
    suite TEXT,
    hostname TEXT NOT NULL,
    incomplete INTEGER NOT NULL,
    result_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS job_results (
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
CREATE INDEX IF NOT EXISTS runs_label ON runs(label);
";

/// Version 2: a run row exists from the start (finished = 0); each job waits
/// in run_jobs (finished = 0 while it measures, with its series so far in
/// run_intervals) until the run's end stores the whole run in result_json.
const V2: &str = "
ALTER TABLE runs ADD COLUMN finished INTEGER NOT NULL DEFAULT 1;
CREATE TABLE IF NOT EXISTS run_jobs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_index INTEGER NOT NULL,
    finished INTEGER NOT NULL,
    job_json TEXT NOT NULL,
    PRIMARY KEY (run_id, job_index)
);
CREATE TABLE IF NOT EXISTS run_intervals (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_index INTEGER NOT NULL,
    period INTEGER NOT NULL,
    point_json TEXT NOT NULL,
    PRIMARY KEY (run_id, job_index, period)
);
";

/// kura's tables, and whether the database has any others.
struct Shape {
    version: i32,
    has_runs: bool,
    has_finished: bool,
    other_tables: Vec<String>,
}

fn shape(conn: &Connection, fail: &dyn Fn(rusqlite::Error) -> StoreError) -> Result<Shape, StoreError> {
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(fail)?;
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .map_err(fail)?;
    let tables: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .and_then(|rows| rows.collect())
        .map_err(fail)?;
    let ours = ["runs", "job_results", "run_jobs", "run_intervals"];
    let has_runs = tables.iter().any(|t| t == "runs");
    let has_finished = has_runs && conn.prepare("SELECT finished FROM runs LIMIT 0").is_ok();
    Ok(Shape {
        version,
        has_runs,
        has_finished,
        other_tables: tables
            .into_iter()
            .filter(|t| !ours.contains(&t.as_str()))
            .collect(),
    })
}

/// Refuses what kura must not read or write: a newer schema, or another
/// program's SQLite database.
fn refuse_foreign(path: &str, s: &Shape) -> Result<(), StoreError> {
    let foreign = |why: String| StoreError::Foreign {
        path: path.to_string(),
        why,
    };
    if s.version > SCHEMA_VERSION {
        return Err(foreign(format!(
            "it was written by a newer kura (schema {}, this kura knows {SCHEMA_VERSION})",
            s.version
        )));
    }
    if !s.has_runs && !s.other_tables.is_empty() {
        let mut names = s.other_tables.clone();
        names.truncate(5);
        return Err(foreign(format!(
            "it is another program's SQLite database (tables {}); give kura its own file",
            names.join(", ")
        )));
    }
    if !s.has_runs && s.version != 0 {
        return Err(foreign(format!(
            "it has user_version {} but no kura tables",
            s.version
        )));
    }
    Ok(())
}

/// The schema version of a database a reading verb may read.
pub fn check_readable(store: &Store) -> Result<i32, StoreError> {
    let s = shape(&store.conn, &|e| store.sql(e))?;
    refuse_foreign(&store.path, &s)?;
    if !s.has_runs {
        return Err(StoreError::Foreign {
            path: store.path.clone(),
            why: "it holds no kura tables yet (a verb that stores a run creates them)".to_string(),
        });
    }
    // Schema 1 lacks only what an unfinished run needs; its runs read as before.
    Ok(if s.has_finished { SCHEMA_VERSION } else { 1 })
}

/// Creates or migrates the schema in one write transaction; returns the version.
pub fn create_or_migrate(store: &mut Store) -> Result<i32, StoreError> {
    let path = store.path.clone();
    let interrupted = store.interrupted.clone();
    let fail = |e| super::sql_error(&path, &interrupted, e);
    let tx = store
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(fail)?;
    // Looked at inside the transaction: a concurrent creator has committed by now.
    let s = shape(&tx, &fail)?;
    refuse_foreign(&path, &s)?;
    if !s.has_runs {
        tx.execute_batch(RUNS).map_err(fail)?;
    }
    if !s.has_finished {
        tx.execute_batch(V2).map_err(fail)?;
    }
    if s.version != SCHEMA_VERSION {
        tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
            .map_err(fail)?;
    }
    tx.commit().map_err(fail)?;
    Ok(SCHEMA_VERSION)
}
