//! The database kind of workload (`kura suite db`): the tests by name (the
//! eight of MySQL's sql-bench and sysbench's `oltp_read_write`), the
//! durability settings a run is made with, and the parameters a stored db
//! job carries. What the tests do lives in `database`; reports read this.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The directory kura creates in DIR for the database files, and removes.
pub const DB_DIR: &str = "kura-db";
/// sql-bench's loop counts are multiplied by this unless `--scale` says otherwise.
pub const DEFAULT_SCALE: f64 = 0.01;
/// sysbench's defaults (oltp_common.lua, 1.0.20): `--tables`, `--table-size`, `--time`.
pub const OLTP_TABLES: u32 = 1;
pub const OLTP_TABLE_SIZE: u64 = 10_000;
pub const OLTP_SECONDS: u64 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    Atis,
    AlterTable,
    BigTables,
    Connect,
    Create,
    Insert,
    Select,
    Wisconsin,
    OltpReadWrite,
}

impl Test {
    /// sql-bench's run-all-tests order (alphabetical), then the OLTP mix.
    pub const ALL: [Test; 9] = [
        Test::Atis,
        Test::AlterTable,
        Test::BigTables,
        Test::Connect,
        Test::Create,
        Test::Insert,
        Test::Select,
        Test::Wisconsin,
        Test::OltpReadWrite,
    ];

    /// The name sql-bench gives the test (its script is `test-NAME`), or sysbench's.
    pub fn name(self) -> &'static str {
        match self {
            Test::Atis => "ATIS",
            Test::AlterTable => "alter-table",
            Test::BigTables => "big-tables",
            Test::Connect => "connect",
            Test::Create => "create",
            Test::Insert => "insert",
            Test::Select => "select",
            Test::Wisconsin => "wisconsin",
            Test::OltpReadWrite => "oltp_read_write",
        }
    }

    pub fn from_name(name: &str) -> Option<Test> {
        Test::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name) || (name == "oltp" && *t == Test::OltpReadWrite))
    }

    /// What the test does, in a few words, for the progress line and the docs.
    pub fn what(self) -> &'static str {
        match self {
            Test::Atis => "airline tables: create, load row by row, joins and groups",
            Test::AlterTable => "add and drop columns and indexes one ALTER at a time",
            Test::BigTables => "a table with 1000 columns: select and insert whole rows",
            Test::Connect => "connect and disconnect, simple selects, a 65000-byte blob",
            Test::Create => "create, count and drop many tables; create+drop in a loop",
            Test::Insert => "insert 3 x N rows one commit each, selects, updates, deletes",
            Test::Select => "selects on keys of many parts: ranges, min/max, groups",
            Test::Wisconsin => "the Wisconsin benchmark's tables and queries",
            Test::OltpReadWrite => "sysbench's oltp_read_write transactions",
        }
    }

    pub fn is_oltp(self) -> bool {
        self == Test::OltpReadWrite
    }
}

/// SQLite's `PRAGMA synchronous`: when it calls fsync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    Off,
    Normal,
    /// SQLite's default: every commit is synced.
    #[default]
    Full,
    Extra,
}

impl Synchronous {
    pub fn parse(text: &str) -> Result<Synchronous, String> {
        match text.to_ascii_lowercase().as_str() {
            "off" | "0" => Ok(Synchronous::Off),
            "normal" | "1" => Ok(Synchronous::Normal),
            "full" | "2" => Ok(Synchronous::Full),
            "extra" | "3" => Ok(Synchronous::Extra),
            _ => Err(format!("'{text}' is not one of off, normal, full, extra")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Synchronous::Off => "off",
            Synchronous::Normal => "normal",
            Synchronous::Full => "full",
            Synchronous::Extra => "extra",
        }
    }
}

/// SQLite's `PRAGMA journal_mode`: a rollback journal (`delete`, the default) or a write-ahead log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Journal {
    #[default]
    Delete,
    Wal,
}

impl Journal {
    pub fn parse(text: &str) -> Result<Journal, String> {
        match text.to_ascii_lowercase().as_str() {
            "delete" | "rollback" => Ok(Journal::Delete),
            "wal" => Ok(Journal::Wal),
            _ => Err(format!("'{text}' is not one of delete (rollback), wal")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Journal::Delete => "delete",
            Journal::Wal => "wal",
        }
    }
}

/// The database the tests talk to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Server {
    /// SQLite embedded in kura: nothing to install.
    #[default]
    Sqlite,
    /// PostgreSQL (Debian's postgresql-15), started by kura with its data on the target.
    Postgres,
    /// MariaDB (Debian's mariadb-server), started by kura with its data on the target.
    Mariadb,
}

impl Server {
    pub fn parse(text: &str) -> Result<Server, String> {
        match text.to_ascii_lowercase().as_str() {
            "sqlite" => Ok(Server::Sqlite),
            "postgres" | "postgresql" => Ok(Server::Postgres),
            "mariadb" | "mysql" => Ok(Server::Mariadb),
            _ => Err(format!("'{text}' is not one of sqlite, postgres, mariadb")),
        }
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Server::Sqlite => "sqlite",
            Server::Postgres => "postgres",
            Server::Mariadb => "mariadb",
        })
    }
}

/// What one stored db job was: the test, its repetition and the run's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DbParams {
    /// sql-bench's name of the test (`create`), or `oltp_read_write`.
    pub test: String,
    /// 1 for the first run of every test, 2 for the second...
    pub repetition: u32,
    /// Repetitions of every test in the run.
    pub runs: u32,
    pub server: Server,
    /// sql-bench's loop counts times this, in thousandths (1000 = sql-bench's full size).
    pub scale_permille: u32,
    pub synchronous: Synchronous,
    pub journal: Journal,
    /// sysbench `--tables`.
    pub oltp_tables: u32,
    /// sysbench `--table-size`: rows per table.
    pub oltp_table_size: u64,
    /// sysbench `--threads`: connections running transactions at once.
    pub oltp_threads: u32,
    /// sysbench `--time`, in milliseconds.
    pub oltp_time_ms: u64,
    /// Seed of the OLTP mix's random ids and strings.
    pub seed: u64,
    /// A server's commit durability: PostgreSQL's `synchronous_commit`
    /// (on, off, local, remote_write) or MariaDB's
    /// `innodb_flush_log_at_trx_commit` (0, 1, 2); `None` for SQLite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_sync: Option<String>,
}

impl DbParams {
    pub fn scale(&self) -> f64 {
        self.scale_permille as f64 / 1000.0
    }

    /// A sql-bench loop count at this run's scale; never below `min`.
    pub fn scaled(&self, full: u64, min: u64) -> u64 {
        ((full as f64 * self.scale()).round() as u64).max(min)
    }
}

/// `--scale`: a fraction of sql-bench's sizes, 0.001 to 1, in steps of 0.001.
pub fn parse_scale(text: &str) -> Result<u32, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if !(0.001..=1.0).contains(&v) {
        return Err(format!("'{text}' is not between 0.001 and 1"));
    }
    Ok((v * 1000.0).round() as u32)
}

/// The stored job name of one repetition of a test: `create #2`.
pub fn job_name(test: Test, repetition: u32) -> String {
    format!("{} #{repetition}", test.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_settings_parse() {
        for t in Test::ALL {
            assert_eq!(Test::from_name(t.name()), Some(t));
        }
        assert_eq!(Test::from_name("atis"), Some(Test::Atis));
        assert_eq!(Test::from_name("oltp"), Some(Test::OltpReadWrite));
        assert_eq!(Test::from_name("nope"), None);
        assert_eq!(Synchronous::parse("NORMAL"), Ok(Synchronous::Normal));
        assert!(Synchronous::parse("fast").is_err());
        assert_eq!(Journal::parse("wal"), Ok(Journal::Wal));
        assert_eq!(Journal::parse("rollback"), Ok(Journal::Delete));
        assert_eq!(parse_scale("0.01"), Ok(10));
        assert_eq!(parse_scale("1"), Ok(1000));
        for bad in ["0", "2", "x", "0.0001"] {
            assert!(parse_scale(bad).is_err(), "{bad}");
        }
    }
}
