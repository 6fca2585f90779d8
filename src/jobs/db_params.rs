//! The database kind of workload (`kura suite db`): the tests by name (the
//! eight of MySQL's sql-bench and sysbench's `oltp_read_write`), the
//! durability settings a run is made with, the parameters a stored db job
//! carries, and a run's settings read from the flags and made into its jobs
//! (`DbSettings`). What the tests do lives in `database`; reports read this.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::options::Opt;
use super::suites::SuiteTest;
use crate::jobs::{Job, Workload};

/// The directory kura creates in DIR for the database files, and removes.
pub const DB_DIR: &str = "kura-db";
/// The SQLite database file in it: every db job's target.
pub const DB_FILE: &str = "bench.sqlite";
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
            _ => Err("expected off, normal, full or extra (or 0 to 3)".into()),
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
            _ => Err("expected delete (rollback) or wal".into()),
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
            _ => Err("expected sqlite, postgres or mariadb".into()),
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
/// The option table names the value; the error says what is wrong with it.
pub fn parse_scale(text: &str) -> Result<u32, String> {
    let v: f64 = text.trim().parse().map_err(|_| "expected a number".to_string())?;
    if !(0.001..=1.0).contains(&v) {
        return Err("must be between 0.001 and 1".into());
    }
    Ok((v * 1000.0).round() as u32)
}

/// `server_sync`'s words for any server; which of them a server takes is
/// checked once the job's server is known (`DbSettings::from_job`).
pub const SERVER_SYNC_WORDS: &[&str] = &[
    "on",
    "off",
    "local",
    "remote_write",
    "remote_apply",
    "0",
    "1",
    "2",
];

/// What a database job's parameters are before the suite sets them: the
/// defaults of `kura suite db`'s flags (the option table's `unset` texts).
impl Default for DbParams {
    fn default() -> Self {
        DbParams {
            test: String::new(),
            repetition: 0,
            runs: 1,
            server: Server::default(),
            scale_permille: (DEFAULT_SCALE * 1000.0).round() as u32,
            synchronous: Synchronous::default(),
            journal: Journal::default(),
            oltp_tables: OLTP_TABLES,
            oltp_table_size: OLTP_TABLE_SIZE,
            oltp_threads: 1,
            oltp_time_ms: OLTP_SECONDS * 1000,
            seed: 0,
            server_sync: None,
        }
    }
}

impl DbParams {
    /// A database job with the suite's defaults, for the option table to
    /// set the suite's flags on (`Job::set`): only `kura suite db` makes
    /// jobs of this kind, so its options have no other job to land on.
    pub fn template() -> Job {
        Job {
            workload: Workload::Database(DbParams::default()),
            ..Job::default()
        }
    }

    /// The job's database parameters; `None` for a job of another kind.
    pub fn of(job: &Job) -> Option<&DbParams> {
        match &job.workload {
            Workload::Database(p) => Some(p),
            _ => None,
        }
    }

    /// The job's database parameters, for an option of the database kind.
    /// Unlike a file-set option, it does not turn a block job into one:
    /// a database job needs its test, which only the suite gives.
    pub fn of_mut(job: &mut Job) -> Result<&mut DbParams, String> {
        let kind = job.workload.kind().name();
        match &mut job.workload {
            Workload::Database(p) => Ok(p),
            _ => Err(format!(
                "only kura suite db makes database jobs; a {kind} job does not take this option"
            )),
        }
    }
}

/// The stored job name of one repetition of a test: `create #2`.
pub fn job_name(test: Test, repetition: u32) -> String {
    format!("{} #{repetition}", test.name())
}

/// `kura suite db`'s flags as text, for a caller without the command
/// line (tests); each is read by the option table, as the suite's are.
#[derive(Debug, Clone, Copy)]
pub struct DbFlags<'a> {
    pub scale: &'a str,
    pub tests: &'a str,
    pub synchronous: &'a str,
    pub journal: &'a str,
    pub tables: &'a str,
    pub table_size: &'a str,
    pub server: &'a str,
    pub server_sync: Option<&'a str>,
    /// Read by the option table already (`cli::DbJobFlags`).
    pub threads: u32,
    pub time: std::time::Duration,
    pub mem_limit_bytes: Option<u64>,
}

/// What a db run is asked to do, before it becomes jobs: DIR, the tests and
/// the settings every job of the run carries.
#[derive(Debug, Clone)]
pub struct DbSettings {
    pub dir: PathBuf,
    pub tests: Vec<Test>,
    /// Every job's parameters but its test and repetition.
    pub params: DbParams,
    pub label: Option<String>,
    pub mem_limit_bytes: Option<u64>,
}

impl DbSettings {
    /// From a database job the option table set the suite's flags on
    /// (`DbParams::template`), its `threads` the OLTP mix's connections;
    /// each test run `runs` times, the OLTP mix for `time`. The server's
    /// commit durability is checked here, once the server is known.
    pub fn from_job(
        dir: PathBuf,
        job: &Job,
        tests: Vec<Test>,
        time: std::time::Duration,
        runs: u32,
    ) -> Result<DbSettings, String> {
        let p = DbParams::of(job).ok_or("not a database job")?;
        let params = DbParams {
            test: String::new(),
            repetition: 0,
            runs,
            oltp_threads: job.threads,
            oltp_time_ms: time.as_millis() as u64,
            seed: 0,
            server_sync: server_sync(p.server, p.server_sync.as_deref())?,
            ..p.clone()
        };
        Ok(DbSettings {
            dir,
            tests,
            params,
            label: None,
            mem_limit_bytes: job.mem_limit_bytes,
        })
    }

    /// From the flags as text, each run `runs` times. An error names the flag.
    pub fn from_flags(dir: PathBuf, flags: DbFlags<'_>, runs: u32) -> Result<DbSettings, String> {
        let mut job = DbParams::template();
        let given = [
            (Opt::Server, Some(flags.server)),
            (Opt::Scale, Some(flags.scale)),
            (Opt::Synchronous, Some(flags.synchronous)),
            (Opt::JournalMode, Some(flags.journal)),
            (Opt::Tables, Some(flags.tables)),
            (Opt::TableSize, Some(flags.table_size)),
            (Opt::ServerSync, flags.server_sync),
        ];
        for (opt, text) in given {
            if let Some(text) = text {
                let d = opt.def();
                job.set(d.key, text)
                    .map_err(|e| format!("--{}: {}", d.long(), d.error_text(&e)))?;
            }
        }
        job.threads = flags.threads;
        job.mem_limit_bytes = flags.mem_limit_bytes;
        DbSettings::from_job(dir, &job, parse_tests(flags.tests)?, flags.time, runs)
    }

    /// DIR/kura-db: the directory kura makes for the database.
    pub fn home(&self) -> PathBuf {
        self.dir.join(DB_DIR)
    }

    /// The jobs of a run: every test `runs` times, each a job of the
    /// database kind, the OLTP mix drawing from `seed`.
    pub fn jobs(&self, seed: u64) -> Vec<SuiteTest> {
        let mut out = Vec::new();
        for repetition in 1..=self.params.runs {
            for &test in &self.tests {
                let job = Job {
                    name: job_name(test, repetition),
                    target: Some(self.home().join(DB_FILE)),
                    label: self.label.clone(),
                    mem_limit_bytes: self.mem_limit_bytes,
                    workload: Workload::Database(DbParams {
                        test: test.name().to_string(),
                        repetition,
                        seed,
                        ..self.params.clone()
                    }),
                    ..Job::default()
                };
                out.push(SuiteTest {
                    test: test.name(),
                    job,
                });
            }
        }
        out
    }
}

/// `--tests`: names from the list, or `all`.
pub fn parse_tests(text: &str) -> Result<Vec<Test>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Test::ALL.to_vec());
    }
    let mut tests = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let test = Test::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Test::ALL.iter().map(|t| t.name()).collect();
            format!("--tests: '{name}' is not one of {}, all", names.join(", "))
        })?;
        if !tests.contains(&test) {
            tests.push(test);
        }
    }
    if tests.is_empty() {
        return Err("--tests: name at least one test".into());
    }
    Ok(tests)
}

/// `--server-sync`, checked against the server it is for; a server's default when not given.
fn server_sync(server: Server, text: Option<&str>) -> Result<Option<String>, String> {
    let allowed: &[&str] = match server {
        Server::Sqlite if text.is_some() => {
            return Err(
                "--server-sync is for --server postgres or mariadb; SQLite takes --synchronous and --journal-mode"
                    .into(),
            );
        }
        Server::Sqlite => return Ok(None),
        Server::Postgres => &SERVER_SYNC_WORDS[..5],
        Server::Mariadb => &SERVER_SYNC_WORDS[5..],
    };
    let value = text.unwrap_or(allowed[if server == Server::Postgres { 0 } else { 1 }]);
    if !allowed.contains(&value) {
        return Err(format!(
            "--server-sync: '{value}' is not valid for {server}: expected {}",
            allowed.join(", ")
        ));
    }
    Ok(Some(value.to_string()))
}

/// A `server_sync` word of some server, as stored: the server's own check
/// waits for the job's server (`server_sync`).
pub fn server_sync_word(text: &str) -> Result<String, String> {
    let word = text.trim().to_ascii_lowercase();
    match SERVER_SYNC_WORDS.contains(&word.as_str()) {
        true => Ok(word),
        false => Err(
            "expected on, off, local, remote_write or remote_apply (postgres), 0, 1 or 2 (mariadb)".into(),
        ),
    }
}

/// The database tests as a kind of workload, each measured whole on the
/// server (or SQLite file) the run's first test started.
impl super::workload::WorkloadKind for DbParams {
    fn name(&self) -> &'static str {
        "db"
    }

    fn scope(&self) -> super::options::Scope {
        super::options::Scope::Database
    }

    fn summary(&self, _job: &Job) -> String {
        match self.test.starts_with("oltp") {
            true => format!("{} {} x{}", self.server, self.test, self.oltp_threads),
            false => format!("{} {}", self.server, self.test),
        }
    }

    fn measured_whole(&self) -> bool {
        true
    }

    fn target_is_directory(&self) -> bool {
        false
    }

    fn runs_on_ranks(&self) -> bool {
        false
    }
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

    fn flags() -> DbFlags<'static> {
        DbFlags {
            scale: "0.01",
            tests: "create,oltp,create",
            synchronous: "full",
            journal: "delete",
            tables: "1",
            table_size: "10000",
            server: "sqlite",
            server_sync: None,
            threads: 4,
            time: std::time::Duration::from_secs(2),
            mem_limit_bytes: Some(64 << 20),
        }
    }

    #[test]
    fn flags_become_one_job_per_test_and_repetition() {
        let settings = DbSettings::from_flags(PathBuf::from("/d"), flags(), 2).unwrap();
        assert_eq!(settings.tests, [Test::Create, Test::OltpReadWrite]);
        let jobs = settings.jobs(99);
        let names: Vec<&str> = jobs.iter().map(|j| j.job.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "create #1",
                "oltp_read_write #1",
                "create #2",
                "oltp_read_write #2"
            ]
        );
        let job = &jobs[1].job;
        assert_eq!(job.target, Some(PathBuf::from("/d/kura-db/bench.sqlite")));
        assert_eq!(job.mem_limit_bytes, Some(64 << 20));
        let Workload::Database(p) = &job.workload else {
            panic!("not a db job");
        };
        assert_eq!(
            (p.oltp_threads, p.oltp_time_ms, p.seed, p.repetition),
            (4, 2000, 99, 1)
        );
    }

    #[test]
    fn bad_flags_are_named_with_the_tables_words() {
        let bad = |f: DbFlags<'static>| DbSettings::from_flags(PathBuf::from("/d"), f, 1).unwrap_err();
        assert!(
            bad(DbFlags {
                tables: "0",
                ..flags()
            })
            .starts_with("--tables: '0' is not valid")
        );
        assert!(
            bad(DbFlags {
                tests: "nope",
                ..flags()
            })
            .starts_with("--tests: 'nope' is not one of")
        );
        assert!(
            bad(DbFlags {
                server_sync: Some("on"),
                ..flags()
            })
            .contains("--server-sync is for")
        );
        let pg = DbSettings::from_flags(
            PathBuf::from("/d"),
            DbFlags {
                server: "postgres",
                ..flags()
            },
            1,
        )
        .unwrap();
        assert_eq!(pg.params.server_sync.as_deref(), Some("on"));
        assert_eq!(
            bad(DbFlags {
                scale: "2",
                ..flags()
            }),
            "--scale: '2' is not valid: must be between 0.001 and 1"
        );
        assert_eq!(
            bad(DbFlags {
                synchronous: "maybe",
                ..flags()
            }),
            "--synchronous: 'maybe' is not valid: expected off, normal, full or extra (or 0 to 3)"
        );
        assert_eq!(
            bad(DbFlags {
                server: "mariadb",
                server_sync: Some("on"),
                ..flags()
            }),
            "--server-sync: 'on' is not valid for mariadb: expected 0, 1, 2"
        );
    }
}
