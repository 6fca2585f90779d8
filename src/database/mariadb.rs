//! MariaDB through the `mysql` crate (its synchronous client, built
//! without TLS), over the server's private socket, as root in a database
//! `kura` that kura creates. Statements without parameters go as text
//! queries (sql-bench's DBI `do`); those with parameters as prepared
//! statements, cached per connection (sysbench).

use std::path::PathBuf;

use mysql::prelude::Queryable;
use mysql::{Conn as MyConn, OptsBuilder, Value};

use super::session::{Conn, Connector, DbError, Dialect, Param};

/// The database the tests' tables go in.
const DATABASE: &str = "kura";
/// The errors sysbench's MySQL driver ignores and retries by default
/// (`--mysql-ignore-errors`: deadlock, record changed, lock wait timeout).
const RETRY: [u16; 3] = [1213, 1020, 1205];

pub struct Mariadb {
    pub socket: PathBuf,
}

impl Mariadb {
    fn opts(&self, db: Option<&str>) -> OptsBuilder {
        OptsBuilder::new()
            .socket(Some(self.socket.display().to_string()))
            .user(Some("root"))
            .db_name(db)
            .prefer_socket(true)
            .stmt_cache_size(64)
    }

    /// Creates kura's database once the server takes connections.
    pub fn create_database(&self) -> Result<(), DbError> {
        let mut conn = MyConn::new(self.opts(None)).map_err(|e| setup(&self.socket, e))?;
        conn.query_drop(format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))
            .map_err(|e| setup(&self.socket, e))
    }
}

fn setup(socket: &std::path::Path, e: mysql::Error) -> DbError {
    DbError::Setup(format!("connecting to MariaDB at {}: {e}", socket.display()))
}

impl Connector for Mariadb {
    fn dialect(&self) -> Dialect {
        Dialect::Mariadb
    }

    fn connect(&self) -> Result<Box<dyn Conn>, DbError> {
        let conn = MyConn::new(self.opts(Some(DATABASE))).map_err(|e| setup(&self.socket, e))?;
        Ok(Box::new(MariadbConn { conn }))
    }
}

struct MariadbConn {
    conn: MyConn,
}

fn error(sql: &str, e: mysql::Error) -> DbError {
    match &e {
        mysql::Error::MySqlError(m) if RETRY.contains(&m.code) => DbError::Retry {
            statement: sql.chars().take(80).collect(),
            message: m.message.clone(),
        },
        _ => DbError::sql(sql, e),
    }
}

impl Conn for MariadbConn {
    fn run(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        let mut rows = 0u64;
        if params.is_empty() {
            let mut result = self.conn.query_iter(sql).map_err(|e| error(sql, e))?;
            let mut changed = 0;
            while let Some(set) = result.iter() {
                for row in set {
                    row.map_err(|e| error(sql, e))?;
                    rows += 1;
                }
            }
            changed += result.affected_rows();
            return Ok(if rows > 0 { rows } else { changed });
        }
        let values: Vec<Value> = params
            .iter()
            .map(|p| match p {
                Param::Int(i) => Value::Int(*i),
                Param::Text(t) => Value::Bytes(t.as_bytes().to_vec()),
            })
            .collect();
        let stmt = self.conn.prep(sql).map_err(|e| error(sql, e))?;
        let mut result = self.conn.exec_iter(&stmt, values).map_err(|e| error(sql, e))?;
        while let Some(set) = result.iter() {
            for row in set {
                row.map_err(|e| error(sql, e))?;
                rows += 1;
            }
        }
        Ok(if rows > 0 { rows } else { result.affected_rows() })
    }
}
