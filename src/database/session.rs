//! One connection as the tests see it: statements timed one by one into
//! per-operation histograms (query, commit, transaction, connect), the
//! Ctrl-C flag checked before each statement. The database behind it is a
//! `Conn` from a `Connector` (SQLite now; servers plug in the same way).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::metrics::OpKind;
use crate::metrics::collect::{DirCollector, IntervalSample, PeriodRecorder};

#[derive(Debug, Error)]
pub enum DbError {
    /// A statement failed; `statement` is cut to its first 80 characters.
    #[error("{statement}: {message}")]
    Sql { statement: String, message: String },
    /// A deadlock or a duplicate key between concurrent transactions: the
    /// transaction is rolled back and run again, as sysbench does.
    #[error("{statement}: {message}")]
    Retry { statement: String, message: String },
    #[error("{0}")]
    Setup(String),
    /// Ctrl-C: the test stops, what it measured is kept.
    #[error("stopped")]
    Stopped,
}

impl DbError {
    pub fn sql(statement: &str, message: impl ToString) -> DbError {
        let mut s: String = statement.chars().take(80).collect();
        if s.len() < statement.len() {
            s.push_str("...");
        }
        DbError::Sql {
            statement: s,
            message: message.to_string(),
        }
    }
}

/// A value bound to a `?` of a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Int(i64),
    Text(String),
}

/// One open connection to the database under test.
pub trait Conn: Send {
    /// Runs one statement, fetching every row and column as a client would;
    /// returns the rows fetched (SELECT) or changed (the rest).
    fn run(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError>;
}

/// Where the databases' SQL differs for the statements the tests send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
    Mariadb,
}

impl Dialect {
    /// A double-precision column type (PostgreSQL has no `double`).
    pub fn double(self) -> &'static str {
        match self {
            Dialect::Postgres => "double precision",
            _ => "double",
        }
    }

    /// A column for a 65000-byte string (PostgreSQL has no `blob`).
    pub fn blob(self) -> &'static str {
        match self {
            Dialect::Postgres => "text",
            _ => "blob",
        }
    }

    /// DROP INDEX: MariaDB names the table, SQLite cannot.
    pub fn drop_index(self, index: &str, table: &str) -> String {
        match self {
            Dialect::Mariadb => format!("DROP INDEX {index} ON {table}"),
            _ => format!("DROP INDEX {index}"),
        }
    }
}

/// Opens connections; shared by the threads of the OLTP mix.
pub trait Connector: Sync {
    fn dialect(&self) -> Dialect;
    fn connect(&self) -> Result<Box<dyn Conn>, DbError>;
    /// A connection for the OLTP mix's hot loop (PostgreSQL's own small
    /// client, `pgwire`); the same as `connect` elsewhere.
    fn connect_lean(&self) -> Result<Box<dyn Conn>, DbError> {
        self.connect()
    }
    /// `BEGIN` as this database needs it for a transaction that will write.
    fn begin_write(&self) -> &'static str {
        "BEGIN"
    }
}

/// What a test measured, by kind of operation.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    /// Every statement but BEGIN and COMMIT.
    pub query: DirCollector,
    /// The statements that only read (SELECT): what a cache can answer.
    pub read: DirCollector,
    /// Each transaction from its first statement to its commit; a write in
    /// autocommit mode is a transaction of one statement.
    pub transaction: DirCollector,
    /// COMMIT, or a write in autocommit mode: where the database syncs.
    pub commit: DirCollector,
    /// Connecting (and disconnecting), as sql-bench's connect test times it.
    pub connect: DirCollector,
    /// BEGIN and COMMIT, which sysbench counts as "other" queries.
    pub other_statements: u64,
    /// The queries' interval series, by session (`Session::timed`).
    pub periods: Vec<IntervalSample>,
}

impl Recorded {
    pub fn merge(&mut self, o: &Recorded) {
        self.query.merge(&o.query);
        self.read.merge(&o.read);
        self.transaction.merge(&o.transaction);
        self.commit.merge(&o.commit);
        self.connect.merge(&o.connect);
        self.other_statements += o.other_statements;
        self.periods.extend(o.periods.iter().cloned());
    }

    /// Every kind but `read`, which a result keeps in its own field.
    pub fn by_kind(&self) -> [(OpKind, &DirCollector); 4] {
        [
            (OpKind::Query, &self.query),
            (OpKind::Transaction, &self.transaction),
            (OpKind::Commit, &self.commit),
            (OpKind::Open, &self.connect),
        ]
    }
}

fn ns(since: Instant) -> u64 {
    since.elapsed().as_nanos() as u64
}

/// A connection with its recorder; tests call `read`, `write`, `begin`, `commit`.
pub struct Session<'a> {
    conn: Box<dyn Conn>,
    connector: &'a dyn Connector,
    stop: &'a AtomicBool,
    pub rec: Recorded,
    txn_start: Option<Instant>,
    /// Set by `timed`: each query counted in the period it ended in.
    series: Option<PeriodRecorder>,
}

impl<'a> Session<'a> {
    /// Counts each query in an interval series from `start`, as thread
    /// `thread` of the test: the OLTP mix's jobs get a series as the
    /// seam's kinds do (sysbench's `--report-interval`), and their drifts
    /// and cliffs are found in it.
    pub fn timed(mut self, thread: u32, start: Instant, interval: Duration) -> Session<'a> {
        self.series = Some(PeriodRecorder::new(thread, start, interval));
        self
    }

    /// What the session measured, its series' last period closed.
    pub fn into_recorded(mut self) -> Recorded {
        if let Some(series) = self.series.take() {
            self.rec.periods.extend(series.finish());
        }
        std::mem::take(&mut self.rec)
    }

    /// One query that ended now after `lat` ns; `read` for a statement that only reads.
    fn queried(&mut self, lat: u64, read: bool) {
        self.rec.query.success(0, lat);
        if read {
            self.rec.read.success(0, lat);
        }
        if let Some(series) = &mut self.series {
            series.record(Instant::now(), !read, 0, lat);
        }
    }
    pub fn open(connector: &'a dyn Connector, stop: &'a AtomicBool) -> Result<Session<'a>, DbError> {
        Ok(Session {
            conn: connector.connect()?,
            connector,
            stop,
            rec: Recorded::default(),
            txn_start: None,
            series: None,
        })
    }

    /// `open` with `Connector::connect_lean` (the OLTP mix's threads).
    pub fn open_lean(connector: &'a dyn Connector, stop: &'a AtomicBool) -> Result<Session<'a>, DbError> {
        Ok(Session {
            conn: connector.connect_lean()?,
            connector,
            stop,
            rec: Recorded::default(),
            txn_start: None,
            series: None,
        })
    }

    pub fn dialect(&self) -> Dialect {
        self.connector.dialect()
    }

    fn check_stop(&self) -> Result<(), DbError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(DbError::Stopped)
        } else {
            Ok(())
        }
    }

    /// A statement that only reads; returns the rows fetched.
    pub fn read(&mut self, sql: &str) -> Result<u64, DbError> {
        self.read_with(sql, &[])
    }

    pub fn read_with(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        self.check_stop()?;
        let t = Instant::now();
        let rows = self.conn.run(sql, params)?;
        self.queried(ns(t), true);
        Ok(rows)
    }

    /// A statement that writes (DML or DDL); outside a transaction it is
    /// its own transaction and commit, as in sql-bench's autocommit mode.
    pub fn write(&mut self, sql: &str) -> Result<u64, DbError> {
        self.write_with(sql, &[])
    }

    pub fn write_with(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        self.check_stop()?;
        let t = Instant::now();
        let rows = self.conn.run(sql, params)?;
        self.written(t);
        Ok(rows)
    }

    /// A write that must fail (sql-bench's duplicate keys); an error if it succeeds.
    pub fn write_must_fail(&mut self, sql: &str) -> Result<(), DbError> {
        self.check_stop()?;
        let t = Instant::now();
        match self.conn.run(sql, &[]) {
            Ok(_) => Err(DbError::sql(sql, "succeeded where a duplicate key must fail")),
            Err(DbError::Sql { .. } | DbError::Retry { .. }) => {
                self.queried(ns(t), false);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn written(&mut self, t: Instant) {
        let lat = ns(t);
        self.queried(lat, false);
        if self.txn_start.is_none() {
            self.rec.commit.success(0, lat);
            self.rec.transaction.success(0, lat);
        }
    }

    /// Starts a transaction that will write.
    pub fn begin(&mut self) -> Result<(), DbError> {
        self.check_stop()?;
        let t = Instant::now();
        let begin = self.connector.begin_write();
        self.conn.run(begin, &[])?;
        self.rec.other_statements += 1;
        self.txn_start = Some(t);
        Ok(())
    }

    pub fn commit(&mut self) -> Result<(), DbError> {
        let t = Instant::now();
        let result = self.conn.run("COMMIT", &[]);
        let start = self.txn_start.take();
        result?;
        self.rec.other_statements += 1;
        self.rec.commit.success(0, ns(t));
        if let Some(start) = start {
            self.rec.transaction.success(0, ns(start));
        }
        Ok(())
    }

    /// Ends a transaction a failure or Ctrl-C cut short; not measured.
    pub fn rollback(&mut self) {
        if self.txn_start.take().is_some() {
            let _ = self.conn.run("ROLLBACK", &[]);
        }
    }

    /// Closes the connection and opens a new one, timed as one connect.
    pub fn reconnect(&mut self) -> Result<(), DbError> {
        self.check_stop()?;
        let t = Instant::now();
        // The old connection closes before the new one opens, as a client's disconnect does.
        self.conn = Box::new(Closed);
        self.conn = self.connector.connect()?;
        self.rec.connect.success(0, ns(t));
        Ok(())
    }

    /// A connection opened and closed without a statement (sql-bench's first connect loop).
    pub fn connect_disconnect(&mut self) -> Result<(), DbError> {
        self.check_stop()?;
        let t = Instant::now();
        drop(self.connector.connect()?);
        self.rec.connect.success(0, ns(t));
        Ok(())
    }
}

/// Stands in for a connection between a close and the next open.
struct Closed;

impl Conn for Closed {
    fn run(&mut self, sql: &str, _: &[Param]) -> Result<u64, DbError> {
        Err(DbError::sql(sql, "not connected"))
    }
}
