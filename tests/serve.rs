//! `kura serve` in a child process on an ephemeral 127.0.0.1 port: pages,
//! downloads, errors, the loopback rule, Ctrl-C, serving while another
//! process stores runs, and the pages in headless Chromium.

mod common;
#[path = "support/mod.rs"]
mod support;

use common::{have, kura};
use predicates::prelude::*;
use support::*;

fn fixture_db(dir: &std::path::Path) -> (std::path::PathBuf, Vec<i64>) {
    let db = dir.join("k.db");
    let (a, b) = seed_marks();
    let mut runs = [
        a,
        b,
        sweep_run("Standard HDD", "659.46 JPY/month", 203.0, true),
        sweep_run("Standard SSD", "1075.20 JPY/month", 404.0, false),
        night_run(),
    ];
    let ids = store_runs(&db, &mut runs);
    (db, ids)
}

#[test]
fn pages_downloads_and_errors() {
    let dir = tmp();
    let (db, ids) = fixture_db(dir.path());
    let server = Server::start(&db, &[]);
    let addr = server.addr;
    assert!(addr.ip().is_loopback());

    let list = get(addr, "/");
    assert_eq!(list.status, 200);
    assert!(list.headers.contains("text/html"));
    for label in ["Physical RAID5", "Cloud fast", "Standard SSD", "Night volume"] {
        assert!(list.body.contains(label), "{label} listed");
    }
    assert!(list.body.contains(r#"type="checkbox" name="run""#));
    // Filters.
    let marks = get(addr, "/?suite=mark%3Adefault");
    assert_eq!(marks.status, 200);
    assert!(marks.body.contains("Cloud fast") && !marks.body.contains("Standard SSD"));
    let one = get(addr, "/?label=Standard+HDD");
    assert!(one.body.contains("Standard HDD") && !one.body.contains("Cloud fast"));
    let csv = get(addr, "/runs.csv?suite=sweep");
    assert_eq!(csv.status, 200);
    assert!(csv.headers.contains("text/csv") && csv.headers.contains("attachment"));
    assert!(csv.body.starts_with("id,started_unix_s,label,suite"));
    assert_eq!(csv.body.lines().count(), 3, "{}", csv.body);
    let listed: serde_json::Value = serde_json::from_str(&get(addr, "/runs.json").body).unwrap();
    assert_eq!(listed["runs"].as_array().unwrap().len(), ids.len());

    // A run page, its JSON and its tables.
    let page = get(addr, &format!("/run/{}", ids[1]));
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<svg") && page.body.contains(">363.40<"));
    assert!(page.headers.contains("Content-Security-Policy"));
    let run: serde_json::Value =
        serde_json::from_str(&get(addr, &format!("/run/{}.json", ids[1])).body).unwrap();
    assert_eq!(run["run"]["id"], ids[1]);
    assert_eq!(run["run"]["label"], "Cloud fast");
    assert!(run["tables"].as_array().unwrap().len() >= 5);
    let results = get(addr, &format!("/run/{}.csv", ids[1]));
    assert!(
        results
            .body
            .starts_with("run_id,job,test,workload,direction,iops")
    );
    assert_eq!(results.body.lines().count(), 1 + 16);
    let mark = get(addr, &format!("/run/{}.csv?table=mark-1g", ids[1]));
    let row: Vec<&str> = mark.body.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[0], "SEQ1M Q8T1");
    assert!(
        (row[1].parse::<f64>().unwrap() - 363.4).abs() < 1e-6,
        "{}",
        mark.body
    );
    // Each direction's MB/s is followed by the spread of its passes (±), as in the grid.
    assert!(
        (row[3].parse::<f64>().unwrap() - 250.7).abs() < 1e-6,
        "{}",
        mark.body
    );
    let table: serde_json::Value =
        serde_json::from_str(&get(addr, &format!("/run/{}.json?table=hosts", ids[1])).body).unwrap();
    assert_eq!(table["rows"][0][1], "bench-vm");

    // A comparison of ticked runs, as the list's form sends it.
    let cmp = get(addr, &format!("/compare?run={}&run={}", ids[2], ids[3]));
    assert_eq!(cmp.status, 200);
    assert!(cmp.body.contains("MB/s relative to Standard HDD"));
    let ratios = get(
        addr,
        &format!("/compare.csv?run={}&run={}&table=comparison", ids[2], ids[3]),
    );
    assert_eq!(ratios.status, 200);
    assert!(ratios.body.contains("bs=4k mix=100/0 read,read,"));
    assert!(get(addr, &format!("/compare.json?runs={},{}", ids[2], ids[3])).status == 200);

    // Errors: unknown ids 404, malformed parameters 400.
    for (path, status) in [
        ("/run/99999".to_string(), 404),
        ("/run/99999.json".to_string(), 404),
        ("/run/abc".to_string(), 400),
        ("/run/-1".to_string(), 400),
        ("/nowhere".to_string(), 404),
        (format!("/compare?run={}", ids[0]), 400),
        (format!("/compare?run={}&run=x", ids[0]), 400),
        (format!("/compare?run={}&run=99999", ids[0]), 404),
        ("/?limit=0".to_string(), 400),
        ("/?limit=lots".to_string(), 400),
        ("/?bogus=1".to_string(), 400),
        ("/?label=%zz".to_string(), 400),
        ("/?label=a&label=b".to_string(), 400),
        (format!("/run/{}?table=hosts", ids[0]), 400),
        (format!("/run/{}.csv?table=nope", ids[0]), 404),
    ] {
        let r = get(addr, &path);
        assert_eq!(r.status, status, "{path}: {}", r.body);
    }
    let err: serde_json::Value = serde_json::from_str(&get(addr, "/run/99999.json").body).unwrap();
    assert_eq!(err["status"], 404);
    assert_eq!(request(addr, "POST", "/", None).status, 405);
    let head = request(addr, "HEAD", "/", None);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty(), "HEAD has no body");
    // A name that rebinds to 127.0.0.1 is not a loopback host.
    assert_eq!(request(addr, "GET", "/", Some("evil.example")).status, 403);
    assert_eq!(request(addr, "GET", "/", Some("localhost")).status, 200);

    let status = server.interrupt();
    assert!(status.success(), "Ctrl-C ends kura serve cleanly: {status:?}");
}

#[test]
fn binds_loopback_only_unless_told() {
    let dir = tmp();
    let (db, _) = fixture_db(dir.path());
    kura(&db)
        .args(["serve", "--port", "0.0.0.0:0"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a loopback address").and(predicate::str::contains("--listen")));
    kura(&db)
        .args(["serve", "--port", "http"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--port"));
    // A database that does not exist is not created.
    let missing = dir.path().join("missing.db");
    kura(&missing)
        .args(["serve", "--port", "0"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no database at"));
    assert!(!missing.exists());
    // An explicit --listen is taken as given (here still loopback: tests stay on it).
    let server = Server::start(&db, &["--listen", "127.0.0.1"]);
    assert_eq!(server.addr.ip().to_string(), "127.0.0.1");
    assert_eq!(get(server.addr, "/").status, 200);
}

#[test]
fn serves_while_another_process_stores_runs() {
    let dir = tmp();
    let (db, ids) = fixture_db(dir.path());
    let server = Server::start(&db, &[]);
    let addr = server.addr;
    const WRITES: usize = 4;
    let writer_db = db.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..WRITES {
            kura(&writer_db)
                .args(["run", "--engine", "null", "--io-count", "20000"])
                .args(["--label", &format!("written meanwhile {i}")])
                .timeout(std::time::Duration::from_secs(60))
                .assert()
                .success();
        }
    });
    // Read all along, a bounded number of times.
    let mut seen = 0;
    for _ in 0..400 {
        let r = get(addr, "/runs.json");
        assert_eq!(r.status, 200, "{}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        seen = v["runs"].as_array().unwrap().len();
        let newest = v["runs"][0]["id"].as_i64().unwrap();
        assert_eq!(get(addr, &format!("/run/{newest}")).status, 200);
        if writer.is_finished() && seen == ids.len() + WRITES {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    writer.join().unwrap();
    let list = get(addr, "/");
    for i in 0..WRITES {
        assert!(list.body.contains(&format!("written meanwhile {i}")));
    }
    assert_eq!(seen, ids.len() + WRITES);
}

#[test]
fn served_pages_in_chromium() {
    if !have("chromium") {
        return;
    }
    let dir = tmp();
    let (db, ids) = fixture_db(dir.path());
    kura(&db)
        .args(["run", "--engine", "null", "--io-count", "2000"])
        .args(["--label", "<script>alert(1)</script>"])
        .assert()
        .success();
    let server = Server::start(&db, &[]);
    let base = format!("http://{}", server.addr);

    let list = dump_dom(&format!("{base}/"));
    assert!(list.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!list.to_lowercase().contains("<script"));
    assert!(count(&list, r#"type="checkbox""#) >= ids.len());
    assert!(list.contains("Compare the ticked runs"));
    // One line a run (issue 28): the figure in a few words, the whole on
    // hover; cells that would wrap end in "…" instead.
    assert!(list.contains(r#"table[data-table="runs"] td { white-space: nowrap;"#));
    assert!(list.contains(">SEQ1M Q8T1 read</td>"), "{list}");
    assert!(list.contains(r#"title="SEQ1M Q8T1 read, "#), "{list}");
    screenshot(&format!("{base}/"), "serve-list", 1100);

    let run = dump_dom(&format!("{base}/run/{}", ids[4]));
    for needle in [
        "Night volume",
        "IOPS over time · night",
        "ramp (not measured)",
        "1200 JPY/month",
    ] {
        assert!(run.contains(needle), "run page lacks {needle}");
    }
    assert!(count(&run, "<svg") >= 4);
    screenshot(&format!("{base}/run/{}", ids[4]), "serve-run", 2600);

    let url = format!("{base}/compare?run={}&run={}", ids[0], ids[1]);
    let cmp = dump_dom(&url);
    for needle in [
        "MB/s relative to Physical RAID5",
        "Read, 1.0 GiB test file",
        ">2.02×<",
    ] {
        assert!(cmp.contains(needle), "comparison lacks {needle}");
    }
    screenshot(&url, "serve-compare", 2400);

    let missing = dump_dom(&format!("{base}/run/99999"));
    assert!(missing.contains("404 Not Found"));
}

/// A run whose JSON page is tens of megabytes: far more than the socket
/// buffers between a server and a client that does not read.
fn large_run_db(dir: &std::path::Path) -> (std::path::PathBuf, i64) {
    let db = dir.join("large.db");
    let mut run = night_run();
    let points = run.jobs[0].series.clone();
    let mut series = Vec::new();
    while series.len() < 30_000 {
        series.extend(points.iter().cloned());
    }
    run.jobs[0].series = series;
    let ids = store_runs(&db, &mut [run]);
    (db, ids[0])
}

/// Raises this process's descriptor limit (the server inherits it) so that
/// the test, not the limit, decides how many connections are open.
fn raise_fd_limit(want: u64) -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write and read the one struct given.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_cur.max(want.min(lim.rlim_max));
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
    lim.rlim_cur
}

fn send(addr: std::net::SocketAddr, raw: &[u8]) -> std::net::TcpStream {
    use std::io::Write;
    let mut s = std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    s.write_all(raw).unwrap();
    s
}

fn status_of(mut s: std::net::TcpStream) -> u16 {
    use std::io::Read;
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"))
}

#[test]
fn a_client_that_never_reads_does_not_block_others() {
    let dir = tmp();
    let (db, id) = large_run_db(dir.path());
    let server = Server::start(&db, &[]);
    let addr = server.addr;
    let page = format!("/run/{id}.json");
    let size = get(addr, &page).body.len();
    assert!(size > 12 << 20, "the page is only {size} bytes");
    // Two clients ask for it and never read a byte; their receive buffers are
    // locked small, so most of the page waits at the server.
    let stalled: Vec<_> = (0..2)
        .map(|_| {
            let s = send(
                addr,
                format!("GET {page} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes(),
            );
            let small: libc::c_int = 4096;
            // SAFETY: setsockopt reads one c_int from a live local, on our own socket.
            unsafe {
                libc::setsockopt(
                    std::os::fd::AsRawFd::as_raw_fd(&s),
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUF,
                    (&small as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
            }
            s
        })
        .collect();
    // The server is writing the page to each of them: its first bytes wait
    // in their receive queues. A server stuck on the first never starts the second.
    for (i, s) in stalled.iter().enumerate() {
        common::wait_until(&format!("the page's first bytes at stalled client {i}"), || {
            queued(s) > 0
        });
    }
    // `get` gives up after 30 s: a server stuck writing to the others fails here.
    let r = get(addr, "/runs.json");
    assert_eq!(r.status, 200);
    drop(stalled);
    assert_eq!(get(addr, "/").status, 200);
}

/// Bytes received on `s` and not yet read (FIONREAD).
fn queued(s: &std::net::TcpStream) -> libc::c_int {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int to the live local given, on our own socket.
    let rc = unsafe { libc::ioctl(std::os::fd::AsRawFd::as_raw_fd(s), libc::FIONREAD, &mut n) };
    assert_eq!(rc, 0, "FIONREAD: {}", std::io::Error::last_os_error());
    n
}

/// Sets the server's descriptor limit, as a machine with fewer would have.
fn limit_fds_of(server: &Server, n: u64) {
    let lim = libc::rlimit {
        rlim_cur: n,
        rlim_max: n,
    };
    // SAFETY: prlimit reads the one struct given and writes nothing (null old).
    let rc = unsafe {
        libc::prlimit(
            server.child.id() as libc::pid_t,
            libc::RLIMIT_NOFILE,
            &lim,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
}

fn open_idle(addr: std::net::SocketAddr, count: usize) -> Vec<std::net::TcpStream> {
    (0..count)
        .map(|i| {
            // A full accept queue is the kernel's answer, not the server's: a
            // refused connect is tried again; the requests after this are what
            // show whether the server still accepts and answers.
            let mut last = None;
            let s = (0..100)
                .find_map(|_| {
                    std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
                        .inspect_err(|e| {
                            last = Some(e.to_string());
                            std::thread::sleep(std::time::Duration::from_millis(20))
                        })
                        .ok()
                })
                .unwrap_or_else(|| panic!("the server keeps accepting: connection {i}: {last:?}"));
            if i % 2 == 0 {
                // Half send the start of a request and stop there.
                use std::io::Write;
                let _ = (&s).write_all(b"GET / HTTP/1.1\r\nHost: loc");
            }
            s
        })
        .collect()
}

#[test]
fn idle_connections_neither_starve_nor_kill_the_server() {
    let dir = tmp();
    let (db, _) = fixture_db(dir.path());
    let limit = raise_fd_limit(2300);
    let idle_count = 2000.min(limit.saturating_sub(200) as usize);
    let server = Server::start(&db, &[]);
    let addr = server.addr;
    // More idle connections than the server keeps open.
    limit_fds_of(&server, 1024);
    let idle = open_idle(addr, idle_count);
    assert_eq!(
        get(addr, "/").status,
        200,
        "answered with {idle_count} idle connections open"
    );
    drop(idle);
    // More than the server has descriptors for: accepting fails with EMFILE.
    limit_fds_of(&server, 64);
    let idle = open_idle(addr, 300);
    assert_eq!(
        get(addr, "/runs.json").status,
        200,
        "answered after running out of descriptors"
    );
    drop(idle);
    assert_eq!(get(addr, "/").status, 200);
}

#[test]
fn requests_without_host_or_with_huge_heads_are_refused() {
    let dir = tmp();
    let (db, _) = fixture_db(dir.path());
    let server = Server::start(&db, &[]);
    let addr = server.addr;
    assert_eq!(status_of(send(addr, b"GET / HTTP/1.1\r\n\r\n")), 400);
    assert_eq!(status_of(send(addr, b"GET / HTTP/1.0\r\n\r\n")), 400);
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: {}\r\n\r\n",
        "a".repeat(64 << 10)
    );
    assert_eq!(status_of(send(addr, huge.as_bytes())), 431);
    assert_eq!(status_of(send(addr, b"not http\r\n\r\n")), 400);
    assert_eq!(get(addr, "/").status, 200);
}
