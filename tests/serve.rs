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
    assert!(
        (row[2].parse::<f64>().unwrap() - 250.7).abs() < 1e-6,
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
