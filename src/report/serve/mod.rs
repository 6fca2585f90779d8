//! `kura serve`: a small read-only web UI over the database, on loopback
//! unless told otherwise. One thread answers requests in turn (a person
//! clicking, not a load), and stops when the stop flag (Ctrl-C) is set.

pub mod pages;
pub mod query;
pub mod routes;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use thiserror::Error;
use tiny_http::{Header, Response, Server};

use crate::store::Store;

#[derive(Debug, Error)]
pub enum ServeError {
    #[error(
        "refusing to serve on {0}: it is not a loopback address, so anyone who can reach it could read every stored run; give `--listen {1}` to mean it"
    )]
    NotLoopback(SocketAddr, IpAddr),
    #[error("--port: '{0}' is not a port (a number, 0 for any free one) or ADDRESS:PORT")]
    BadPort(String),
    #[error("--listen: '{0}' is not an IP address, or IP:PORT")]
    BadListen(String),
    #[error("cannot listen on {addr}: {why}")]
    Bind { addr: SocketAddr, why: String },
    #[error("the server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Where to listen, and whether the user chose a non-loopback address on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listen {
    pub addr: SocketAddr,
    /// Given with `--listen`: any address, and any Host header, is accepted.
    pub explicit: bool,
}

fn parse_addr(text: &str) -> Option<SocketAddr> {
    let text = text.trim();
    if let Ok(a) = text.parse::<SocketAddr>() {
        return Some(a);
    }
    let (host, port) = text.rsplit_once(':')?;
    if host.eq_ignore_ascii_case("localhost") {
        return Some(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port.parse().ok()?));
    }
    None
}

/// `--port N` (on 127.0.0.1) or `--port ADDR:N` (a loopback ADDR only), or
/// `--listen ADDR[:N]` for any address.
pub fn listen_on(port: &str, listen: Option<&str>) -> Result<Listen, ServeError> {
    let plain_port = port.trim().parse::<u16>().ok();
    if let Some(l) = listen {
        let addr = match parse_addr(l) {
            Some(a) => a,
            None => {
                let ip: IpAddr = if l.trim().eq_ignore_ascii_case("localhost") {
                    Ipv4Addr::LOCALHOST.into()
                } else {
                    l.trim()
                        .parse()
                        .map_err(|_| ServeError::BadListen(l.to_string()))?
                };
                let port = plain_port.ok_or_else(|| ServeError::BadPort(port.to_string()))?;
                SocketAddr::new(ip, port)
            }
        };
        return Ok(Listen { addr, explicit: true });
    }
    let addr = match plain_port {
        Some(p) => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), p),
        None => parse_addr(port).ok_or_else(|| ServeError::BadPort(port.to_string()))?,
    };
    if !addr.ip().is_loopback() {
        return Err(ServeError::NotLoopback(addr, addr.ip()));
    }
    Ok(Listen {
        addr,
        explicit: false,
    })
}

/// A loopback server answers only requests that name a loopback host: a web
/// page elsewhere that rebinds its own name to 127.0.0.1 cannot read the runs.
pub fn host_allowed(host: Option<&str>) -> bool {
    let Some(host) = host.map(str::trim) else {
        return true;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host)
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("header names and values are ASCII")
}

/// Serves until `stop` is set; `ready` gets the address actually bound (port 0 picks one).
pub fn serve(
    store: &Store,
    listen: Listen,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let server = Server::http(listen.addr).map_err(|e| ServeError::Bind {
        addr: listen.addr,
        why: e.to_string(),
    })?;
    let bound = server.server_addr().to_ip().unwrap_or(listen.addr);
    ready(bound);
    while !stop.load(Ordering::Relaxed) {
        let request = match server.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        let host = request
            .headers()
            .iter()
            .find(|h| h.field.equiv("Host"))
            .map(|h| h.value.as_str().to_string());
        let reply = if listen.explicit || host_allowed(host.as_deref()) {
            routes::handle(store, request.method().as_str(), request.url())
        } else {
            routes::Reply {
                status: 403,
                content_type: "text/plain; charset=utf-8",
                body: b"403 Forbidden: this kura serves only requests addressed to a loopback host\n"
                    .to_vec(),
                filename: None,
            }
        };
        let mut response = Response::from_data(reply.body)
            .with_status_code(reply.status)
            .with_header(header("Content-Type", reply.content_type))
            .with_header(header("Cache-Control", "no-store"))
            .with_header(header("X-Content-Type-Options", "nosniff"))
            .with_header(header("Referrer-Policy", "no-referrer"))
            .with_header(header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
            ));
        if let Some(name) = reply.filename {
            response = response.with_header(header(
                "Content-Disposition",
                &format!("attachment; filename=\"{name}\""),
            ));
        }
        // A client that went away is its own problem, not the server's.
        let _ = request.respond(response);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_unless_told() {
        let l = listen_on("8070", None).unwrap();
        assert_eq!(l.addr.to_string(), "127.0.0.1:8070");
        assert!(!l.explicit);
        assert!(listen_on("127.0.0.2:0", None).is_ok());
        assert!(listen_on("[::1]:0", None).is_ok());
        assert!(listen_on("localhost:9", None).is_ok());
        assert!(matches!(
            listen_on("0.0.0.0:8070", None),
            Err(ServeError::NotLoopback(..))
        ));
        assert!(matches!(listen_on("80x", None), Err(ServeError::BadPort(_))));
        let l = listen_on("8070", Some("0.0.0.0")).unwrap();
        assert_eq!(l.addr.to_string(), "0.0.0.0:8070");
        assert!(l.explicit);
        assert_eq!(listen_on("1", Some("10.0.0.1:99")).unwrap().addr.port(), 99);
        assert!(matches!(
            listen_on("1", Some("nas")),
            Err(ServeError::BadListen(_))
        ));
    }

    #[test]
    fn hosts() {
        for ok in [
            None,
            Some("127.0.0.1:8070"),
            Some("localhost"),
            Some("LOCALHOST:1"),
            Some("[::1]:8070"),
        ] {
            assert!(host_allowed(ok), "{ok:?}");
        }
        for no in [Some("evil.example:8070"), Some("10.1.2.3"), Some("")] {
            assert!(!host_allowed(no), "{no:?}");
        }
    }
}
