//! Storing a run as it goes: its row is created before anything is measured
//! (which proves the database takes writes), each job is stored as it
//! finishes, and the end replaces the pieces with the whole run.

use std::time::{Duration, Instant};

use rusqlite::{TransactionBehavior, params};

use super::{Store, StoreError, insert_job_rows, to_json};
use crate::metrics::sink::RunSink;
use crate::metrics::{IntervalPoint, JobResult, RunResult};

/// A run being stored. Dropped without `finish`, it leaves the jobs it
/// stored (an unfinished run, shown as INCOMPLETE), or nothing when none was.
pub struct Recorder<'s> {
    store: &'s mut Store,
    run_id: i64,
    next_index: i64,
    stored_jobs: i64,
    /// The first failure to store a job: later jobs are not tried (each try
    /// could wait for a lock); `finish` tries once more with all of them.
    failed: Option<StoreError>,
    finished: bool,
    /// Periods of the running job not yet written, and when they last were.
    points: Vec<IntervalPoint>,
    next_period: i64,
    flushed_at: Instant,
    /// Periods of any job's series written so far: a measurement to keep.
    stored_periods: i64,
}

/// Series points are written at most this often: a few rows a second, never per I/O.
const FLUSH_EVERY: Duration = Duration::from_secs(1);

impl Store {
    /// Creates the row of a run about to be measured, marked unfinished.
    pub fn begin_run(&mut self, header: &RunResult) -> Result<Recorder<'_>, StoreError> {
        let mut skeleton = RunResult {
            id: None,
            jobs: Vec::new(),
            incomplete: true,
            ..header.clone()
        };
        // Who writes the run, so a reader can tell a run still measuring from one that died.
        skeleton.warnings.push(crate::metrics::Warning::Measuring {
            pid: std::process::id(),
            boot_id: super::boot_id(),
        });
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| super::sql_error(&self.path, &self.interrupted, e))?;
        let insert = tx
            .execute(
                "INSERT INTO runs (started_unix_s, label, price, suite, hostname, incomplete, result_json, finished)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, 0)",
                params![
                    header.started_unix_s,
                    header.label,
                    header.price,
                    header.suite.as_ref().map(|s| s.to_string()),
                    header.host.hostname,
                    to_json(&skeleton),
                ],
            )
            .and_then(|_| {
                let id = tx.last_insert_rowid();
                tx.commit().map(|_| id)
            });
        let run_id = insert.map_err(|e| self.sql(e))?;
        Ok(Recorder {
            store: self,
            run_id,
            next_index: 0,
            stored_jobs: 0,
            failed: None,
            finished: false,
            points: Vec::new(),
            next_period: 0,
            flushed_at: Instant::now(),
            stored_periods: 0,
        })
    }
}

impl Store {
    /// Stores a run that was saved to a file because the database could not
    /// take it: into the unfinished row that run began with, when exactly one
    /// matches (same start and host, its writer gone), so no empty incomplete
    /// row is left beside it; else as a new run. Returns the id and whether
    /// the run's own row was filled.
    pub fn save_unsaved(&mut self, run: &mut RunResult) -> Result<(i64, bool), StoreError> {
        let Some(id) = self.own_unfinished_row(run)? else {
            return self.save(run).map(|id| (id, false));
        };
        let mut rec = Recorder {
            store: self,
            run_id: id,
            next_index: 0,
            stored_jobs: 0,
            failed: None,
            finished: false,
            points: Vec::new(),
            next_period: 0,
            flushed_at: Instant::now(),
            stored_periods: 0,
        };
        rec.finish(run).map(|id| (id, true))
    }

    fn own_unfinished_row(&self, run: &RunResult) -> Result<Option<i64>, StoreError> {
        if self.schema < 2 || run.id.is_some() {
            return Ok(None);
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, result_json FROM runs
                 WHERE finished = 0 AND started_unix_s = ?1 AND hostname = ?2 AND suite IS ?3",
            )
            .map_err(|e| self.sql(e))?;
        let rows: Vec<(i64, String)> = stmt
            .query_map(
                params![
                    run.started_unix_s,
                    run.host.hostname,
                    run.suite.as_ref().map(|s| s.to_string())
                ],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .and_then(|rows| rows.collect())
            .map_err(|e| self.sql(e))?;
        let gone: Vec<i64> = rows
            .into_iter()
            .filter(|(_, json)| {
                serde_json::from_str::<RunResult>(json).is_ok_and(|r| {
                    !r.warnings.iter().any(|w| {
                        matches!(w, crate::metrics::Warning::Measuring { pid, boot_id }
                            if super::writer_alive(*pid, boot_id))
                    })
                })
            })
            .map(|(id, _)| id)
            .collect();
        Ok(match gone[..] {
            [id] => Some(id),
            _ => None,
        })
    }
}

impl Recorder<'_> {
    pub fn run_id(&self) -> i64 {
        self.run_id
    }

    /// The first job that could not be stored as it finished, if any.
    pub fn job_failure(&self) -> Option<&StoreError> {
        self.failed.as_ref()
    }

    fn store_job(&mut self, index: i64, job: &JobResult, finished: bool) -> Result<(), StoreError> {
        let store = &mut *self.store;
        let run_id = self.run_id;
        let tx = store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| super::sql_error(&store.path, &store.interrupted, e))?;
        tx.execute(
            "INSERT OR REPLACE INTO run_jobs (run_id, job_index, finished, job_json) VALUES (?1, ?2, ?3, ?4)",
            params![run_id, index, finished, to_json(job)],
        )
        .and_then(|_| {
            if !finished {
                return Ok(());
            }
            // The finished job carries its whole series: the points stored as it ran go.
            tx.execute(
                "DELETE FROM run_intervals WHERE run_id = ?1 AND job_index = ?2",
                params![run_id, index],
            )?;
            tx.execute(
                "DELETE FROM job_results WHERE run_id = ?1 AND job_index = ?2",
                params![run_id, index],
            )?;
            insert_job_rows(&tx, run_id, index, job)
        })
        .and_then(|_| tx.commit())
        .map_err(|e| super::sql_error(&store.path, &store.interrupted, e))
    }

    /// Writes the buffered periods of the running job; never waits for a
    /// lock (the job is measuring), so a busy database only delays them.
    fn flush_points(&mut self) {
        if self.points.is_empty() || self.failed.is_some() {
            return;
        }
        let index = self.next_index;
        let run_id = self.run_id;
        let first_period = self.next_period;
        let store = &mut *self.store;
        store.wait_for_locks(false);
        let written = store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .and_then(|tx| {
                {
                    let mut stmt = tx.prepare_cached(
                        "INSERT OR REPLACE INTO run_intervals (run_id, job_index, period, point_json)
                         VALUES (?1, ?2, ?3, ?4)",
                    )?;
                    for (k, point) in self.points.iter().enumerate() {
                        stmt.execute(params![run_id, index, first_period + k as i64, to_json(point)])?;
                    }
                }
                tx.commit()
            });
        store.wait_for_locks(true);
        if written.is_ok() {
            self.next_period += self.points.len() as i64;
            self.stored_periods += self.points.len() as i64;
            self.points.clear();
        }
        self.flushed_at = Instant::now();
    }

    /// Stores the whole run in one transaction, sets its id, and drops the
    /// pieces stored as it went. On failure the run keeps no id.
    pub fn finish(&mut self, run: &mut RunResult) -> Result<i64, StoreError> {
        run.id = Some(self.run_id);
        let outcome = self.write_whole(run);
        match outcome {
            Ok(()) => {
                self.finished = true;
                Ok(self.run_id)
            }
            Err(e) => {
                run.id = None;
                Err(e)
            }
        }
    }

    fn write_whole(&mut self, run: &RunResult) -> Result<(), StoreError> {
        let store = &mut *self.store;
        let id = self.run_id;
        let fail = |e| super::sql_error(&store.path, &store.interrupted, e);
        let tx = store
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let json = to_json(run);
        let updated = tx
            .execute(
                "UPDATE runs SET started_unix_s = ?1, label = ?2, price = ?3, suite = ?4, hostname = ?5,
                 incomplete = ?6, result_json = ?7, finished = 1 WHERE id = ?8",
                params![
                    run.started_unix_s,
                    run.label,
                    run.price,
                    run.suite.as_ref().map(|s| s.to_string()),
                    run.host.hostname,
                    run.incomplete,
                    json,
                    id
                ],
            )
            .map_err(fail)?;
        if updated == 0 {
            // The row was deleted meanwhile (by hand): store the run under the same id again.
            tx.execute(
                "INSERT INTO runs (id, started_unix_s, label, price, suite, hostname, incomplete, result_json, finished)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1)",
                params![
                    id,
                    run.started_unix_s,
                    run.label,
                    run.price,
                    run.suite.as_ref().map(|s| s.to_string()),
                    run.host.hostname,
                    run.incomplete,
                    json
                ],
            )
            .map_err(fail)?;
        }
        tx.execute("DELETE FROM job_results WHERE run_id = ?1", [id])
            .map_err(fail)?;
        for (index, job) in run.jobs.iter().enumerate() {
            insert_job_rows(&tx, id, index as i64, job).map_err(fail)?;
        }
        tx.execute("DELETE FROM run_jobs WHERE run_id = ?1", [id])
            .map_err(fail)?;
        tx.execute("DELETE FROM run_intervals WHERE run_id = ?1", [id])
            .map_err(fail)?;
        tx.commit().map_err(fail)
    }
}

impl RunSink for Recorder<'_> {
    fn job_started(&mut self, skeleton: &JobResult) {
        self.points.clear();
        self.next_period = 0;
        self.flushed_at = Instant::now();
        if self.failed.is_some() {
            return;
        }
        if let Err(e) = self.store_job(self.next_index, skeleton, false) {
            self.failed = Some(e);
        }
    }

    fn interval(&mut self, point: &IntervalPoint) {
        self.points.push(point.clone());
        if self.flushed_at.elapsed() >= FLUSH_EVERY {
            self.flush_points();
        }
    }

    fn job_done(&mut self, job: &JobResult) {
        let index = self.next_index;
        self.points.clear();
        if self.failed.is_none() {
            match self.store_job(index, job, true) {
                Ok(()) => self.stored_jobs += 1,
                Err(e) => self.failed = Some(e),
            }
        }
        self.next_index += 1;
    }
}

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        // A run that stopped before any job finished (a refused target, a bad
        // job) leaves no empty row behind; one with stored jobs, or with
        // periods of a series stored (a long job that then panicked), stays, unfinished.
        if !self.finished && self.stored_jobs == 0 && self.stored_periods == 0 {
            // Without waiting: the lock that made storing fail may still be held.
            self.store.wait_for_locks(false);
            let _ = self.store.conn.execute_batch(&format!(
                "BEGIN IMMEDIATE; DELETE FROM run_jobs WHERE run_id = {id}; \
                 DELETE FROM run_intervals WHERE run_id = {id}; \
                 DELETE FROM job_results WHERE run_id = {id}; DELETE FROM runs WHERE id = {id}; COMMIT;",
                id = self.run_id
            ));
            if !self.store.conn.is_autocommit() {
                let _ = self.store.conn.execute_batch("ROLLBACK");
            }
            self.store.wait_for_locks(true);
        }
    }
}
