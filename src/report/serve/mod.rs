//! `kura serve`: a small read-only web UI over the database, on loopback
//! unless told otherwise. One thread polls every connection and answers
//! requests in turn (`http`), with limits so that no client can stall the
//! others, and stops when the stop flag (Ctrl-C) is set.

pub mod http;
pub mod pages;
pub mod query;
pub mod routes;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::AtomicBool;

use thiserror::Error;

use http::{Limits, Response};

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
pub fn host_allowed(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host)
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
    ),
];

/// The reply to one request, or the refusal of its Host.
fn answer(store: &Store, listen: Listen, req: &http::Request) -> Response {
    let refused = match req.host {
        None => Some((400, "400 Bad Request: no Host header\n")),
        Some(h) if !listen.explicit && !host_allowed(h) => Some((
            403,
            "403 Forbidden: this kura serves only requests addressed to a loopback host\n",
        )),
        Some(_) => None,
    };
    let mut response = match refused {
        Some((status, text)) => Response::text(status, text),
        None => {
            let reply = routes::handle(store, req.method, req.target);
            let mut headers = vec![("Content-Type", reply.content_type.to_string())];
            if let Some(name) = reply.filename {
                headers.push(("Content-Disposition", format!("attachment; filename=\"{name}\"")));
            }
            Response {
                status: reply.status,
                headers,
                body: reply.body,
            }
        }
    };
    response
        .headers
        .extend(SECURITY_HEADERS.iter().map(|(n, v)| (*n, v.to_string())));
    response
}

/// Serves until `stop` is set; `ready` gets the address actually bound (port 0 picks one).
pub fn serve(
    store: &Store,
    listen: Listen,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let listener = TcpListener::bind(listen.addr).map_err(|e| ServeError::Bind {
        addr: listen.addr,
        why: e.to_string(),
    })?;
    ready(listener.local_addr()?);
    http::run(&listener, &Limits::default(), stop, |req| {
        answer(store, listen, req)
    })?;
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
        for ok in ["127.0.0.1:8070", "localhost", "LOCALHOST:1", "[::1]:8070"] {
            assert!(host_allowed(ok), "{ok:?}");
        }
        for no in ["evil.example:8070", "10.1.2.3", ""] {
            assert!(!host_allowed(no), "{no:?}");
        }
    }
}
