//! Just enough HTTP/1.1 for the web UI, on one thread: every connection is
//! non-blocking and polled, so a client that never finishes its request or
//! never reads its reply holds only its own socket and never another's turn.
//! Requests are answered in turn by the caller (the store is one SQLite
//! connection, and pages take milliseconds); each connection carries one
//! request and closes after its reply.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a closing connection may keep sending what we no longer read.
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// What one client may hold of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Open connections at most; a new one closes the oldest still sending
    /// its request (then the oldest of any kind).
    pub max_connections: usize,
    /// The request line and headers, in bytes; more gets 431.
    pub max_header_bytes: usize,
    /// From accepting a connection to its whole request.
    pub read_timeout: Duration,
    /// Longest a reply may go without the client taking a byte of it.
    pub write_stall: Duration,
    /// Longest a reply may take in all.
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 256,
            max_header_bytes: 16 << 10,
            read_timeout: Duration::from_secs(10),
            write_stall: Duration::from_secs(10),
            write_timeout: Duration::from_secs(60),
        }
    }
}

/// A parsed request: what the caller needs to answer it.
#[derive(Debug, PartialEq, Eq)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The request target as sent: path and query.
    pub target: &'a str,
    /// The Host header; `None` when there is none.
    pub host: Option<&'a str>,
}

/// A reply before it is framed.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn text(status: u16, body: &str) -> Response {
        Response {
            status,
            headers: vec![("Content-Type", "text/plain; charset=utf-8".into())],
            body: body.as_bytes().to_vec(),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "",
    }
}

/// Status line, headers and (unless `head`) the body, with Content-Length
/// and Connection: close.
fn frame(r: Response, head: bool) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (name, value) in &r.headers {
        // Values come from the routes; a line break would start a new header.
        let value: String = value.chars().filter(|c| !c.is_control()).collect();
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        r.body.len()
    ));
    let mut bytes = out.into_bytes();
    if !head {
        bytes.extend_from_slice(&r.body);
    }
    bytes
}

/// Parses the head of a request (everything before the blank line).
pub fn parse_head(head: &[u8]) -> Option<Request<'_>> {
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let mut parts = lines.next()?.split(' ');
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some()
        || method.is_empty()
        || !target.starts_with('/')
        || !version.starts_with("HTTP/1.")
    {
        return None;
    }
    let mut host = None;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        if name.eq_ignore_ascii_case("host") {
            if host.is_some() {
                return None;
            }
            host = Some(value.trim());
        }
    }
    Some(Request { method, target, host })
}

enum State {
    /// Receiving the request head.
    Reading(Vec<u8>),
    /// Sending the reply; `last` is when the client last took bytes.
    Writing {
        bytes: Vec<u8>,
        sent: usize,
        last: Instant,
    },
    /// Reply sent and our side shut (at the instant given): reading what
    /// the client still sends until it closes, so that closing does not
    /// reset the reply away.
    Draining(Instant),
}

struct Conn {
    stream: TcpStream,
    since: Instant,
    state: State,
}

impl Conn {
    /// Eviction order when full: idle requesters first, then the oldest.
    fn rank(&self) -> (u8, Instant) {
        let kind = match self.state {
            State::Reading(_) => 0,
            State::Draining(_) => 1,
            State::Writing { .. } => 2,
        };
        (kind, self.since)
    }

    fn reply(&mut self, r: Response, head: bool) {
        self.state = State::Writing {
            bytes: frame(r, head),
            sent: 0,
            last: Instant::now(),
        };
    }

    /// Moves the connection on with what the socket allows; false: close it.
    fn step(&mut self, limits: &Limits, answer: &mut dyn FnMut(&Request) -> Response) -> bool {
        match &mut self.state {
            State::Reading(buf) => {
                let mut chunk = [0u8; 4096];
                loop {
                    match self.stream.read(&mut chunk) {
                        Ok(0) => return false,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(_) => return false,
                    }
                    if buf.len() > limits.max_header_bytes {
                        break;
                    }
                }
                let end = buf.windows(4).position(|w| w == b"\r\n\r\n");
                let response = match end {
                    Some(end) if end <= limits.max_header_bytes => {
                        let buf = std::mem::take(buf);
                        match parse_head(&buf[..end]) {
                            Some(req) => {
                                let head = req.method == "HEAD";
                                let r = answer(&req);
                                self.reply(r, head);
                                return self.step(limits, answer);
                            }
                            None => Response::text(400, "400 Bad Request: malformed request\n"),
                        }
                    }
                    _ if buf.len() > limits.max_header_bytes => Response::text(
                        431,
                        &format!(
                            "431: the request head is larger than {} bytes\n",
                            limits.max_header_bytes
                        ),
                    ),
                    _ => return true,
                };
                self.reply(response, false);
                self.step(limits, answer)
            }
            State::Writing { bytes, sent, last } => {
                while *sent < bytes.len() {
                    match self.stream.write(&bytes[*sent..]) {
                        Ok(0) => return false,
                        Ok(n) => {
                            *sent += n;
                            *last = Instant::now();
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(_) => return false,
                    }
                }
                let _ = self.stream.shutdown(Shutdown::Write);
                self.state = State::Draining(Instant::now());
                self.step(limits, answer)
            }
            State::Draining(_) => {
                let mut chunk = [0u8; 4096];
                loop {
                    match self.stream.read(&mut chunk) {
                        Ok(0) => return false,
                        Ok(_) => {}
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(_) => return false,
                    }
                }
            }
        }
    }

    fn timed_out(&self, limits: &Limits, now: Instant) -> bool {
        let age = now.duration_since(self.since);
        match &self.state {
            State::Reading(_) => age > limits.read_timeout,
            State::Draining(at) => now.duration_since(*at) > DRAIN_TIME,
            State::Writing { last, .. } => {
                now.duration_since(*last) > limits.write_stall || age > limits.write_timeout
            }
        }
    }

    fn events(&self) -> libc::c_short {
        match self.state {
            State::Writing { .. } => libc::POLLOUT,
            _ => libc::POLLIN,
        }
    }
}

/// Closes the connection `evict` ranks first, if any; true when one was closed.
fn evict_one(conns: &mut Vec<Conn>) -> bool {
    let victim = conns
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| c.rank())
        .map(|(i, _)| i);
    victim.map(|i| conns.swap_remove(i)).is_some()
}

/// Serves `listener` until `stop` is set, answering each request with `answer`.
pub fn run(
    listener: &TcpListener,
    limits: &Limits,
    stop: &AtomicBool,
    mut answer: impl FnMut(&Request) -> Response,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut conns: Vec<Conn> = Vec::new();
    let mut fds: Vec<libc::pollfd> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        fds.clear();
        fds.push(libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        fds.extend(conns.iter().map(|c| libc::pollfd {
            fd: c.stream.as_raw_fd(),
            events: c.events(),
            revents: 0,
        }));
        // SAFETY: `fds` is a live, initialised array of `fds.len()` pollfd
        // structs that poll may write `revents` into; it outlives the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 200) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                continue;
            }
            // More connections than poll may watch (RLIMIT_NOFILE, lowered or
            // never high enough): give the idlest back until they fit; the
            // server lives on, as when accept runs out of descriptors.
            if e.raw_os_error() == Some(libc::EINVAL) && evict_one(&mut conns) {
                continue;
            }
            return Err(e);
        }
        let now = Instant::now();
        // Back to front, so that removing one keeps the others' indices.
        for i in (0..conns.len()).rev() {
            // A client trickling bytes is always ready: time it out all the same.
            let ready = fds[i + 1].revents != 0;
            let keep = (!ready || conns[i].step(limits, &mut answer)) && !conns[i].timed_out(limits, now);
            if !keep {
                conns.swap_remove(i);
            }
        }
        if fds[0].revents != 0 {
            accept_all(listener, limits, &mut conns);
        }
    }
    Ok(())
}

fn accept_all(listener: &TcpListener, limits: &Limits, conns: &mut Vec<Conn>) {
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                if stream.set_nonblocking(true).is_err() {
                    continue;
                }
                if conns.len() >= limits.max_connections {
                    evict_one(conns);
                }
                conns.push(Conn {
                    stream,
                    since: Instant::now(),
                    state: State::Reading(Vec::new()),
                });
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == ErrorKind::Interrupted || e.kind() == ErrorKind::ConnectionAborted => {}
            // Out of descriptors or memory: give one back and try again on
            // the next round; the server lives on.
            Err(_) => {
                if !evict_one(conns) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let r = parse_head(b"GET /run/1?x=2 HTTP/1.1\r\nHost: localhost:80\r\nAccept: */*").unwrap();
        assert_eq!(
            r,
            Request {
                method: "GET",
                target: "/run/1?x=2",
                host: Some("localhost:80")
            }
        );
        assert_eq!(parse_head(b"GET / HTTP/1.0").unwrap().host, None);
        for bad in [
            &b"GET /"[..],
            b"GET http://x/ HTTP/1.1",
            b"GET / HTTP/1.1\r\nno colon",
            b"GET / HTTP/1.1\r\nHost: a\r\nHost: b",
            b"GET  / HTTP/1.1",
            b"\xff / HTTP/1.1",
        ] {
            assert!(parse_head(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn framing_strips_line_breaks_from_values() {
        let r = Response {
            status: 200,
            headers: vec![("X-A", "a\r\nSet-Cookie: b".into())],
            body: b"hi".to_vec(),
        };
        let text = String::from_utf8(frame(r, false)).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\nX-A: aSet-Cookie: b\r\nContent-Length: 2\r\n"));
        assert!(text.ends_with("\r\n\r\nhi"));
    }
}
