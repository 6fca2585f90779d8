//! A small blocking client of PostgreSQL's wire protocol (version 3) for
//! the OLTP mix's connections, doing per statement what sysbench's libpq
//! does (`PQexecPrepared`): one write of Bind, Execute and Sync on the Unix
//! socket, parameters and results as text, one blocking read. The `postgres`
//! crate's synchronous client runs a tokio runtime per connection and cost
//! three times libpq's CPU per statement (bench/NOTES.md).
//! Trust authentication only: kura's own server is initialised with it.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;

use super::session::{Conn, DbError, Param};

/// The errors sysbench's pgsql driver ignores and retries: deadlock,
/// unique violation, serialization failure (drv_pgsql.c of 1.0.20).
const RETRY: [&str; 3] = ["40P01", "23505", "40001"];

pub struct WireConn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    out: Vec<u8>,
    body: Vec<u8>,
    /// SQL as the tests write it -> the server's statement name.
    prepared: HashMap<String, String>,
}

/// A server error: its SQLSTATE and its own words.
struct ServerError {
    code: String,
    text: String,
}

fn put_msg(out: &mut Vec<u8>, kind: u8, body: impl FnOnce(&mut Vec<u8>)) {
    out.push(kind);
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    body(out);
    let len = (out.len() - at) as i32;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
}

fn cstr(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

impl WireConn {
    /// Connects to the socket `dir/.s.PGSQL.port` as `user` to `database`.
    pub fn connect(dir: &Path, port: u16, user: &str, database: &str) -> Result<WireConn, String> {
        let path = dir.join(format!(".s.PGSQL.{port}"));
        let stream = UnixStream::connect(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let writer = stream.try_clone().map_err(|e| e.to_string())?;
        let mut conn = WireConn {
            reader: BufReader::with_capacity(64 * 1024, stream),
            writer,
            out: Vec::with_capacity(4096),
            body: Vec::with_capacity(4096),
            prepared: HashMap::new(),
        };
        // StartupMessage: no type byte; protocol 3.0.
        let mut m = vec![0u8; 4];
        m.extend_from_slice(&196_608i32.to_be_bytes());
        for (k, v) in [
            ("user", user),
            ("database", database),
            ("client_encoding", "UTF8"),
        ] {
            cstr(&mut m, k);
            cstr(&mut m, v);
        }
        m.push(0);
        let len = m.len() as i32;
        m[..4].copy_from_slice(&len.to_be_bytes());
        conn.writer.write_all(&m).map_err(|e| e.to_string())?;
        loop {
            match conn.read_msg().map_err(|e| e.to_string())? {
                b'R' => {
                    let code = conn
                        .body
                        .get(..4)
                        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                    if code != Some(0) {
                        return Err(format!(
                            "the server asks for authentication method {code:?}; kura's client speaks only trust"
                        ));
                    }
                }
                b'E' => {
                    let e = conn.error();
                    return Err(e.text);
                }
                b'Z' => return Ok(conn),
                _ => {}
            }
        }
    }

    /// Reads one message into `body`; returns its type.
    fn read_msg(&mut self) -> std::io::Result<u8> {
        let mut head = [0u8; 5];
        self.reader.read_exact(&mut head)?;
        let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        self.body.resize(len.saturating_sub(4), 0);
        self.reader.read_exact(&mut self.body)?;
        Ok(head[0])
    }

    /// The fields of an ErrorResponse in `body`.
    fn error(&self) -> ServerError {
        let mut code = String::new();
        let (mut severity, mut message) = (String::new(), String::new());
        for field in self.body.split(|b| *b == 0) {
            let Some((&kind, text)) = field.split_first() else {
                continue;
            };
            let text = String::from_utf8_lossy(text).into_owned();
            match kind {
                b'C' => code = text,
                b'S' => severity = text,
                b'M' => message = text,
                _ => {}
            }
        }
        ServerError {
            code,
            text: format!("{severity}: {message}"),
        }
    }

    fn send(&mut self) -> std::io::Result<()> {
        let r = self.writer.write_all(&self.out);
        self.out.clear();
        r
    }

    /// Reads up to ReadyForQuery: rows fetched and the count of the command tag.
    fn results(&mut self) -> std::io::Result<Result<(u64, u64), ServerError>> {
        let (mut rows, mut changed, mut failed) = (0, 0, None);
        loop {
            match self.read_msg()? {
                b'D' => rows += 1,
                b'C' => {
                    let tag = self.body.strip_suffix(&[0]).unwrap_or(&self.body);
                    changed = std::str::from_utf8(tag)
                        .ok()
                        .and_then(|t| t.rsplit(' ').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                }
                b'E' => failed = failed.or(Some(self.error())),
                b'Z' => return Ok(failed.map_or(Ok((rows, changed)), Err)),
                _ => {}
            }
        }
    }
}

/// `?` placeholders as PostgreSQL's `$1`, `$2`...
fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

impl Conn for WireConn {
    fn run(&mut self, sql: &str, params: &[Param]) -> Result<u64, DbError> {
        let io = |e: std::io::Error| DbError::sql(sql, format!("the connection failed: {e}"));
        let fail = |e: ServerError| {
            if RETRY.contains(&e.code.as_str()) {
                DbError::Retry {
                    statement: sql.chars().take(80).collect(),
                    message: e.text,
                }
            } else {
                DbError::sql(sql, e.text)
            }
        };
        if params.is_empty() {
            put_msg(&mut self.out, b'Q', |b| cstr(b, sql));
            self.send().map_err(io)?;
            let (rows, changed) = self.results().map_err(io)?.map_err(fail)?;
            return Ok(if rows > 0 { rows } else { changed });
        }
        if !self.prepared.contains_key(sql) {
            let name = format!("kura{}", self.prepared.len());
            let text = numbered(sql);
            put_msg(&mut self.out, b'P', |b| {
                cstr(b, &name);
                cstr(b, &text);
                b.extend_from_slice(&0i16.to_be_bytes());
            });
            put_msg(&mut self.out, b'S', |_| {});
            self.send().map_err(io)?;
            self.results().map_err(io)?.map_err(fail)?;
            self.prepared.insert(sql.to_string(), name);
        }
        let name = &self.prepared[sql];
        let out = &mut self.out;
        put_msg(out, b'B', |b| {
            cstr(b, "");
            cstr(b, name);
            b.extend_from_slice(&0i16.to_be_bytes()); // every parameter as text
            b.extend_from_slice(&(params.len() as i16).to_be_bytes());
            let mut num = itoa_buf();
            for p in params {
                let bytes: &[u8] = match p {
                    Param::Int(i) => {
                        num.clear();
                        let _ = write!(num, "{i}");
                        &num
                    }
                    Param::Text(t) => t.as_bytes(),
                };
                b.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                b.extend_from_slice(bytes);
            }
            b.extend_from_slice(&0i16.to_be_bytes()); // every result column as text
        });
        put_msg(out, b'E', |b| {
            cstr(b, "");
            b.extend_from_slice(&0i32.to_be_bytes());
        });
        put_msg(out, b'S', |_| {});
        self.send().map_err(io)?;
        let (rows, changed) = self.results().map_err(io)?.map_err(fail)?;
        Ok(if rows > 0 { rows } else { changed })
    }
}

fn itoa_buf() -> Vec<u8> {
    Vec::with_capacity(24)
}

impl Drop for WireConn {
    fn drop(&mut self) {
        // Terminate: the server ends the backend at once.
        put_msg(&mut self.out, b'X', |_| {});
        let _ = self.send();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_carry_their_length_and_placeholders_are_numbered() {
        let mut out = Vec::new();
        super::put_msg(&mut out, b'Q', |b| super::cstr(b, "BEGIN"));
        assert_eq!(out, b"Q\0\0\0\x0aBEGIN\0");
        assert_eq!(
            super::numbered("SELECT c FROM t WHERE id BETWEEN ? AND ?"),
            "SELECT c FROM t WHERE id BETWEEN $1 AND $2"
        );
    }
}
