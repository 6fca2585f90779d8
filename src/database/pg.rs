//! PostgreSQL through the `postgres` crate (the synchronous client of
//! rust-postgres), over the server's private Unix socket. Statements
//! without parameters go as simple queries (one round trip, as sql-bench's
//! DBI `do`); those with parameters are prepared once per connection and
//! executed, as sysbench does.

use std::collections::HashMap;
use std::path::PathBuf;

use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls, SimpleQueryMessage, Statement};

use super::server::PG_PORT;
use super::session::{Conn, Connector, DbError, Dialect, Param};

pub struct Postgres {
    pub socket_dir: PathBuf,
}

impl Connector for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn connect(&self) -> Result<Box<dyn Conn>, DbError> {
        let client = postgres::Config::new()
            .host_path(&self.socket_dir)
            .port(PG_PORT)
            .user("kura")
            .dbname("postgres")
            .connect(NoTls)
            .map_err(|e| {
                DbError::Setup(format!(
                    "connecting to PostgreSQL in {}: {}",
                    self.socket_dir.display(),
                    message(&e)
                ))
            })?;
        Ok(Box::new(PgConn {
            client,
            prepared: HashMap::new(),
        }))
    }

    fn connect_lean(&self) -> Result<Box<dyn Conn>, DbError> {
        let conn =
            super::pgwire::WireConn::connect(&self.socket_dir, PG_PORT, "kura", "postgres").map_err(|e| {
                DbError::Setup(format!(
                    "connecting to PostgreSQL in {}: {e}",
                    self.socket_dir.display()
                ))
            })?;
        Ok(Box::new(conn))
    }
}

struct PgConn {
    client: Client,
    prepared: HashMap<String, Statement>,
}

/// The server's own words for an error ("db error" alone says nothing).
fn message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string(),
    }
}

/// `?` placeholders as PostgreSQL's `$1`, `$2`...
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push_str(&format!("${n}"));
        } else {
            out.push(c);
        }
    }
    out
}

impl Conn for PgConn {
    fn run(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        let err = |e: postgres::Error| {
            let retry = e.code().is_some_and(|c| {
                [
                    SqlState::T_R_DEADLOCK_DETECTED,
                    SqlState::UNIQUE_VIOLATION,
                    SqlState::T_R_SERIALIZATION_FAILURE,
                ]
                .contains(c)
            });
            match DbError::sql(sql, message(&e)) {
                DbError::Sql { statement, message } if retry => DbError::Retry { statement, message },
                other => other,
            }
        };
        if params.is_empty() {
            let mut rows = 0;
            let mut changed = 0;
            for m in self.client.simple_query(sql).map_err(err)? {
                match m {
                    SimpleQueryMessage::Row(_) => rows += 1,
                    SimpleQueryMessage::CommandComplete(n) => changed = n,
                    _ => {}
                }
            }
            return Ok(if rows > 0 { rows } else { changed });
        }
        if !self.prepared.contains_key(sql) {
            let stmt = self.client.prepare(&numbered(sql)).map_err(err)?;
            self.prepared.insert(sql.to_string(), stmt);
        }
        let stmt = &self.prepared[sql];
        // The server says each parameter's type; an INTEGER column takes an i32, not an i64.
        let mut ints32: Vec<i32> = Vec::with_capacity(params.len());
        let mut ints64: Vec<i64> = Vec::with_capacity(params.len());
        for (p, ty) in params.iter().zip(stmt.params()) {
            if let Param::Int(i) = p {
                if *ty == Type::INT4 {
                    ints32.push(*i as i32);
                } else {
                    ints64.push(*i);
                }
            }
        }
        let (mut i32s, mut i64s) = (ints32.iter(), ints64.iter());
        let mut bound: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(params.len());
        for (p, ty) in params.iter().zip(stmt.params()) {
            match p {
                Param::Int(_) if *ty == Type::INT4 => bound.push(i32s.next().expect("counted above")),
                Param::Int(_) => bound.push(i64s.next().expect("counted above")),
                Param::Text(t) => bound.push(t),
            }
        }
        let stmt = stmt.clone();
        if stmt.columns().is_empty() {
            return self.client.execute(&stmt, &bound).map_err(err);
        }
        let rows = self.client.query(&stmt, &bound).map_err(err)?;
        Ok(rows.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_are_numbered() {
        assert_eq!(
            super::numbered("UPDATE t SET c=? WHERE id=?"),
            "UPDATE t SET c=$1 WHERE id=$2"
        );
    }
}
