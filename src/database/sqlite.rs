//! SQLite, embedded: the database file in kura's own directory on the
//! target, opened with the run's `synchronous` and journal mode.

use std::path::PathBuf;
use std::time::Duration;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags};

use super::session::{Conn, Connector, DbError, Dialect, Param};
use crate::jobs::db_params::{Journal, Synchronous};

/// The database file's name inside kura's directory; SQLite adds
/// `-journal`, `-wal` and `-shm` beside it. Every db job names it as its target.
pub const FILE: &str = crate::jobs::db_params::DB_FILE;
pub const COMPANIONS: [&str; 4] = [
    "bench.sqlite",
    "bench.sqlite-journal",
    "bench.sqlite-wal",
    "bench.sqlite-shm",
];

pub struct Sqlite {
    pub path: PathBuf,
    pub synchronous: Synchronous,
    pub journal: Journal,
}

impl Connector for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn connect(&self) -> Result<Box<dyn Conn>, DbError> {
        let setup = |e: rusqlite::Error| DbError::Setup(format!("{}: {e}", self.path.display()));
        // NOFOLLOW: the file kura made is the file it opens, never a link put in its place.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = crate::targets::own::open_database(&self.path, flags).map_err(setup)?;
        // The OLTP threads wait for each other's locks as a server's sessions would.
        conn.busy_timeout(Duration::from_secs(60)).map_err(setup)?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", self.journal.name(), |r| r.get(0))
            .map_err(setup)?;
        if !mode.eq_ignore_ascii_case(self.journal.name()) {
            return Err(DbError::Setup(format!(
                "{}: SQLite kept journal_mode {mode} where {} was asked",
                self.path.display(),
                self.journal.name()
            )));
        }
        conn.pragma_update(None, "synchronous", self.synchronous.name())
            .map_err(setup)?;
        // sql-bench's statements differ by their literal values: keep the few that repeat.
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Box::new(SqliteConn { conn }))
    }

    /// A deferred BEGIN would take its write lock at the first UPDATE and
    /// fail at once (no wait) when another thread holds a read lock then.
    fn begin_write(&self) -> &'static str {
        "BEGIN IMMEDIATE"
    }
}

struct SqliteConn {
    conn: Connection,
}

fn to_value(p: &Param) -> Value {
    match p {
        Param::Int(i) => Value::Integer(*i),
        Param::Text(s) => Value::Text(s.clone()),
    }
}

impl Conn for SqliteConn {
    fn run(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        let err = |e: rusqlite::Error| DbError::sql(sql, e);
        let mut stmt = self.conn.prepare_cached(sql).map_err(err)?;
        let columns = stmt.column_count();
        if columns == 0 {
            let n = stmt
                .execute(rusqlite::params_from_iter(params.iter().map(to_value)))
                .map_err(err)?;
            return Ok(n as u64);
        }
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter().map(to_value)))
            .map_err(err)?;
        let mut n = 0u64;
        let mut bytes = 0usize;
        while let Some(row) = rows.next().map_err(err)? {
            n += 1;
            // Every column is read, as a client fetching the rows reads them.
            for i in 0..columns {
                bytes += match row.get_ref(i).map_err(err)? {
                    ValueRef::Text(t) | ValueRef::Blob(t) => t.len(),
                    _ => 8,
                };
            }
        }
        std::hint::black_box(bytes);
        Ok(n)
    }
}
