//! `kura report`: stored runs as one self-contained HTML file, checked in
//! headless Chromium (charts, axes, numbers) with a screenshot of each kind
//! of report under target/screenshots/.

mod common;
#[path = "support/mod.rs"]
mod support;

use common::{have, json, kura};
use kura::report::format::rate;
use predicates::prelude::*;
use support::*;

fn file_url(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

/// What every report must be: one document, no script, nothing fetched.
fn assert_self_contained(html: &str) {
    let lower = html.to_lowercase();
    assert!(lower.starts_with("<!doctype html>"));
    assert!(!lower.contains("<script"), "a report carries no script");
    for fetch in ["src=\"http", "href=\"http", "<link", "@import", "url("] {
        assert!(!lower.contains(fetch), "a report fetches nothing: found {fetch}");
    }
    assert!(html.contains("Content-Security-Policy"));
}

#[test]
fn mark_report_has_bars_per_test_with_values_and_ratios() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (a, b) = seed_marks();
    let ids = store_runs(&db, &mut [a, b]);
    let out = dir.path().join("mark.html");
    kura(&db)
        .args(["report", "Physical RAID5", "Cloud fast", "-o"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&html);
    // Both targets, one colour each, on the read and write charts of the 1 GiB file.
    assert!(html.contains(r#"aria-label="Read, 1.0 GiB test file""#));
    assert!(html.contains(r#"aria-label="Write, 1.0 GiB test file""#));
    // Values on the bars, as `kura mark` prints them: best of the runs, 2 decimals.
    for v in ["363.40", "0.69", "47.40", "90.94"] {
        assert!(html.contains(&format!(">{v}<")), "bar value {v}");
    }
    // The ratio chart against the first run: 363.4 / 180.2 MB/s.
    assert!(html.contains("MB/s relative to Physical RAID5"));
    assert!(html.contains(">2.02×<"));
    assert_eq!(ids.len(), 2);
    // A real `kura mark` (null engine) gets the same charts, for its own file size.
    kura(&db)
        .args([
            "mark",
            "--engine",
            "null",
            "--runs",
            "1",
            "--runtime",
            "100ms",
            "--size",
            "8m",
        ])
        .args(["--label", "null mark", "--interval", "0s"])
        .assert()
        .success();
    let real = dir.path().join("real-mark.html");
    kura(&db)
        .args(["report", "null mark", "-o"])
        .arg(&real)
        .assert()
        .success();
    let real = std::fs::read_to_string(&real).unwrap();
    assert!(real.contains(r#"aria-label="Read, 8.0 MiB test file""#));
    assert!(real.contains(r#"data-name="null mark""#));
    if !have("chromium") {
        return;
    }
    let dom = dump_dom(&file_url(&out));
    assert!(!dom.to_lowercase().contains("<script"));
    assert!(count(&dom, "<svg") >= 3, "charts are in the DOM");
    for needle in [
        r#"class="axis y""#,
        "MB/s (10^6 bytes/s)",
        "SEQ1M Q8T1",
        "RND4K Q1T1",
        ">Cloud fast<",
        ">363.40<",
        "ratio to baseline (×)",
    ] {
        assert!(dom.contains(needle), "the DOM lacks {needle}");
    }
    screenshot(&file_url(&out), "report-mark", 2400);
}

#[test]
fn sweep_report_has_a_chart_per_mix_with_a_line_per_target() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let mut runs = [
        sweep_run("Standard HDD", "659.46 JPY/month", 203.0, true),
        sweep_run("Standard SSD", "1075.20 JPY/month", 404.0, false),
    ];
    store_runs(&db, &mut runs);
    let out = dir.path().join("sweep.html");
    kura(&db)
        .args(["report", "Standard HDD", "Standard SSD", "-o"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&html);
    for mix in [
        "random, 100 % read",
        "random, 50/50 read/write",
        "random, 100 % write",
    ] {
        assert!(html.contains(&format!("IOPS by block size, {mix}")), "{mix}");
        assert!(html.contains(&format!("MiB/s by block size, {mix}")), "{mix}");
    }
    // The seed's 4 KiB read-only row: 203 against 404 IOPS, ratio 1.99.
    assert!(html.contains(">203<") && html.contains(">404<"));
    assert!(html.contains(">1.99x<"));
    assert!(html.contains("659.46 JPY/month"));
    // Seed 2's conclusion, from kura compare's table: the SSD costs 1.63x and
    // performs 1.99x, so it gives 1.22x the performance per yen.
    assert!(html.contains(">1.63×<") && html.contains(">1.22x<"));
    assert!(html.contains("Standard SSD/Standard HDD per JPY (price 1.63x)"));
    assert!(html.contains("Guidance, from the measured rows"));
    // A real `kura sweep` (null engine) charts the same way.
    kura(&db)
        .args([
            "sweep",
            "--engine",
            "null",
            "--bs",
            "4k,64k",
            "--read-pct",
            "100,50",
        ])
        .args(["--runtime", "200ms", "--size", "8m", "--label", "null sweep"])
        .assert()
        .success();
    let real = dir.path().join("real-sweep.html");
    kura(&db)
        .args(["report", "null sweep", "-o"])
        .arg(&real)
        .assert()
        .success();
    let real = std::fs::read_to_string(&real).unwrap();
    for mix in ["random, 100 % read", "random, 50/50 read/write"] {
        assert!(real.contains(&format!("IOPS by block size, {mix}")), "{mix}");
    }
    assert!(real.contains(r#"data-name="null sweep""#));
    if !have("chromium") {
        return;
    }
    let dom = dump_dom(&file_url(&out));
    // Six sweep charts, each with one line per target.
    assert!(count(&dom, r#"<svg class="chart line-chart""#) >= 6);
    for needle in [
        ">4k<",
        ">256k<",
        "block size (bytes, log scale)",
        r#"data-name="Standard SSD""#,
    ] {
        assert!(dom.contains(needle), "the DOM lacks {needle}");
    }
    screenshot(&file_url(&out), "report-sweep", 2400);
}

#[test]
fn job_charts_show_phases_percentiles_and_the_histogram() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    // A small real run, with a ramp so that both phases show.
    let out = kura(&db)
        .args(["--json", "run", "--target"])
        .arg(&target)
        .args([
            "--size",
            "4m",
            "--rw",
            "randrw",
            "--runtime",
            "1s",
            "--ramp",
            "300ms",
        ])
        .args(["--interval", "100ms", "--qd", "4", "--label", "small real run"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let real = json(&out);
    let read_iops = real["jobs"][0]["read"]["iops"].as_f64().unwrap();
    let ids = store_runs(&db, &mut [night_run()]);
    let report = dir.path().join("jobs.html");
    kura(&db)
        .args(["report", "small real run"])
        .arg(ids[0].to_string())
        .arg("-o")
        .arg(&report)
        .assert()
        .success();
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    // Numbers as the terminal prints them.
    assert!(html.contains(&rate(read_iops)), "read IOPS {}", rate(read_iops));
    // The night run: hours on the axis, its series merged to a drawable size.
    assert!(html.contains("time from start of measurement (h)"));
    assert!(html.contains("Every 3 periods merged"));
    if !have("chromium") {
        return;
    }
    let dom = dump_dom(&file_url(&report));
    for needle in [
        "IOPS over time · job",
        "Latency over time · job",
        "Latency percentiles · job",
        "Latency histogram · job",
        "ramp (not measured)",
        ">measure<",
        ">99.999<",
        "share of I/Os (%)",
        "time from start of measurement (s)",
    ] {
        assert!(dom.contains(needle), "the DOM lacks {needle}");
    }
    // Two jobs, four charts each.
    assert!(count(&dom, "<svg") >= 8);
    screenshot(&file_url(&report), "report-jobs", 3200);
}

#[test]
fn user_strings_show_as_text_never_as_markup() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("<i>x.dat");
    kura(&db)
        .args([
            "run",
            "--engine",
            "sync",
            "--size",
            "1m",
            "--io-count",
            "200",
            "--target",
        ])
        .arg(&target)
        .args(["--label", "<script>alert(1)</script>"])
        .args(["--name", "<img src=x onerror=alert(2)>"])
        .assert()
        .success();
    let out = dir.path().join("x.html");
    kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&html);
    assert!(
        html.contains("&lt;i&gt;x.dat"),
        "the target path is shown, escaped"
    );
    for raw in ["<img", "<i>"] {
        assert!(!html.contains(raw), "{raw} reached the page unescaped");
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    if !have("chromium") {
        return;
    }
    let dom = dump_dom(&file_url(&out));
    let lower = dom.to_lowercase();
    assert!(
        !lower.contains("<script") && !lower.contains("<img"),
        "no element was made from a label"
    );
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the label shows as text"
    );
    assert!(dom.contains("&lt;img src=x onerror=alert(2)&gt;"));
}

#[test]
fn bad_runs_and_paths_fail_clearly() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let (a, _) = seed_marks();
    let ids = store_runs(&db, &mut [a]);
    kura(&db)
        .args(["report", "999"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no run matches '999'"));
    kura(&db).arg("report").assert().failure();
    kura(&db)
        .args(["report", &ids[0].to_string(), "-o", "/nonexistent-dir/r.html"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("/nonexistent-dir/r.html"));
    // --json: the report's data, every table with raw values.
    let out = kura(&db)
        .args(["--json", "report", &ids[0].to_string()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v = json(&out);
    let tables = v["tables"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for n in ["runs", "targets", "hosts", "results", "mark-1g"] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let mark = tables.iter().find(|t| t["name"] == "mark-1g").unwrap();
    assert_eq!(mark["rows"][0][0], "SEQ1M Q8T1");
    assert!((mark["rows"][0][1].as_f64().unwrap() - 180.2).abs() < 1e-6);
    assert_eq!(v["runs"][0]["id"], ids[0]);
}

/// bonnie++, tiobench and vdbench runs carry their suite's own table in the
/// report, as `kura show` prints it in the terminal.
#[test]
fn suite_runs_show_their_own_table_in_the_report() {
    let dir = common::tmp();
    let d = dir.path();
    let db = d.join("k.db");
    kura(&db)
        .args(["suite", "tiobench"])
        .arg(d)
        .args(["--threads", "2", "--file-size", "1m", "--random-ops", "100"])
        .assert()
        .success();
    kura(&db)
        .args(["suite", "bonnie"])
        .arg(d)
        .args(["--size", "4m", "--files", "1"])
        .assert()
        .success();
    let vdb = d.join("raw.vdb");
    std::fs::write(
        &vdb,
        format!(
            "sd=sd1,lun={}/v.dat,size=4m,threads=1\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
            d.display()
        ),
    )
    .unwrap();
    kura(&db).arg("run").arg(&vdb).assert().success();
    let out = d.join("suites.html");
    kura(&db)
        .args(["report", "1", "2", "3", "-o"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&html);
    let section = html
        .split(r#"<section id="suite-tables">"#)
        .nth(1)
        .expect("a section of suite tables");
    let shown = |id: &str| {
        kura(&db)
            .args(["show", id])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    for (id, needle) in [
        // At 80 columns a test name keeps its line; a heading may fold.
        ("1", "Sequential Write"),
        ("2", "Sequential Output"),
        ("3", "interval"),
    ] {
        let text = String::from_utf8_lossy(&shown(id)).into_owned();
        assert!(text.contains(needle), "run {id}: {text}");
        // The terminal's table, line for line (escaped for HTML).
        let escaped = text
            .lines()
            .map(kura::report::svg::esc)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            section.contains(escaped.trim_end()),
            "run {id}'s table in the report"
        );
    }
}

/// The CrystalDiskMark grid in the report, as the terminal prints it: each
/// direction's best MB/s with the spread of its passes beside it, a Mix
/// column for Mix profiles, the figure it shows said under it, and a device
/// named by the span measured (not its whole size).
#[test]
fn mark_grid_has_spread_per_direction_mix_and_the_device_span() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let short = ["--runtime", "50ms", "--interval", "0s", "--size", "4m"];
    kura(&db)
        .args(["mark", "--engine", "null", "--runs", "2", "--label", "two passes"])
        .args(short)
        .assert()
        .success();
    kura(&db)
        .args(["mark", "--engine", "null", "--runs", "2", "--profile", "peak-mix"])
        .args(["--label", "mixed"])
        .args(short)
        .assert()
        .success();
    let mut names = vec!["two passes", "mixed"];
    let dev = common::LoopDevice::new(d, 32 << 20);
    let dev_path = dev.as_ref().map(|l| l.path.display().to_string());
    if let Some(path) = &dev_path {
        kura(&db)
            .args(["mark", path, "--runs", "1", "--allow-destroy", path])
            .args(["--label", "device"])
            .args(short)
            .assert()
            .success();
        names.push("device");
    }
    let out = d.join("grid.html");
    kura(&db)
        .arg("report")
        .args(&names)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    let mark = html
        .split(r#"<section id="mark">"#)
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("the CrystalDiskMark section");
    // Two runs of one size: a table per direction, a column pair per run,
    // the Mix profile's mixed passes in a third (and charted).
    for column in ["two passes MB/s", "two passes ±", "mixed MB/s", "mixed ±"] {
        assert!(mark.contains(&format!(">{column}<")), "column {column}");
    }
    for title in ["read: best MB/s", "write: best MB/s", "mix: best MB/s"] {
        assert!(mark.contains(title), "{title}");
    }
    assert!(mark.contains("Mix throughput per test"), "the Mix chart");
    if dev_path.is_some() {
        // One run of its span: one grid, as CrystalDiskMark shows it.
        for column in ["read MB/s", "read ±", "write MB/s", "write ±"] {
            assert!(mark.contains(&format!(">{column}<")), "column {column}");
        }
    }
    // A spread in percent beside a value, and what the grid shows said under it.
    assert!(regex_lite_percent(mark), "a spread like 12% in the grid");
    assert!(mark.contains("the best of 2 passes and the lowest latency"));
    assert!(mark.contains("(max - min) / 2"));
    if dev_path.is_some() {
        assert!(
            mark.contains("first 4.0 MiB of a 32.0 MiB device"),
            "the device's span, not its size"
        );
        assert!(!mark.contains("32.0 MiB test file"));
    }
    if have("chromium") {
        let dom = dump_dom(&file_url(&out));
        assert!(dom.contains("mixed ±"));
        screenshot(&file_url(&out), "report-mark-grid", 3600);
    }
}

/// A table cell holding a whole percentage, `<td ...>NN%</td>`.
fn regex_lite_percent(html: &str) -> bool {
    html.split('>').any(|piece| {
        piece
            .strip_suffix("%</td")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Runs `kura ARGS` that must succeed.
fn ok(db: &std::path::Path, args: &[&str]) {
    kura(db).args(args).assert().success();
}

/// The report of `runs` (`extra` flags added), loaded in Chromium: its DOM
/// must hold every needle, and a screenshot of its comparison goes to
/// target/screenshots/NAME.png for people to look at.
fn seed_page(db: &std::path::Path, dir: &std::path::Path, name: &str, runs: &[&str], needles: &[&str]) {
    let out = dir.join(format!("{name}.html"));
    kura(db)
        .arg("report")
        .args(runs)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_self_contained(&html);
    if !have("chromium") {
        return;
    }
    let dom = dump_dom(&file_url(&out));
    for needle in needles {
        assert!(dom.contains(needle), "{name}: the DOM lacks {needle}");
    }
    screenshot(&format!("{}#comparison", file_url(&out)), name, 2200);
}

/// Seeds 1 to 3 from short real runs on two directories of this machine's
/// disk, each report's comparison in the seed's published shape.
#[test]
fn seeds_1_to_3_reports_show_their_published_tables_in_chromium() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let d = |name: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p.display().to_string()
    };
    for (target, label) in [(d("a"), "physical 8m"), (d("b"), "cloud 8m")] {
        ok(
            &db,
            &[
                "mark",
                &target,
                "--profile",
                "cdm5",
                "--size",
                "8m",
                "--runtime",
                "200ms",
                "--runs",
                "2",
                "--interval",
                "0s",
                "--label",
                label,
            ],
        );
    }
    seed_page(
        &db,
        dir.path(),
        "seed1-report",
        &["physical 8m", "cloud 8m"],
        &[
            r#"data-table="mark-grid-0""#,
            "read · MB/s, best pass · test file 8.0 MiB",
            "physical 8m (baseline)",
        ],
    );
    for (target, label, price) in [
        (d("c"), "HDD", "659.46 JPY/month"),
        (d("e"), "SSD", "1,075.20 JPY/month"),
    ] {
        ok(
            &db,
            &[
                "sweep",
                &target,
                "--bs",
                "4k,64k",
                "--read-pct",
                "100,50,0",
                "--runtime",
                "200ms",
                "--size",
                "8m",
                "--label",
                label,
                "--price",
                price,
            ],
        );
    }
    seed_page(
        &db,
        dir.path(),
        "seed2-report",
        &["HDD", "SSD"],
        &[
            r#"data-table="sweep-rand-100""#,
            "SSD/HDD per JPY (price 1.63x)",
            "MB/s relative to HDD",
        ],
    );
    for (target, label) in [(d("f"), "NAS gen1"), (d("g"), "NAS gen2")] {
        ok(
            &db,
            &[
                "run",
                "--target",
                &target,
                "--mix",
                "sfs97",
                "--threads",
                "2",
                "--files",
                "50",
                "--runtime",
                "300ms",
                "--latency-limit",
                "250us",
                "--label",
                label,
            ],
        );
    }
    seed_page(
        &db,
        dir.path(),
        "seed3-report",
        &["NAS gen1", "NAS gen2"],
        &[
            "Latency-bounded score relative to NAS gen1",
            r#"data-table="latency-bound-scores""#,
        ],
    );
}

/// Seeds 4 and 5 from short real runs on two directories: vdbench's
/// file-system file three times a target (`report --repeats`), tiobench,
/// bonnie++ and the db suite, each report's comparison in its published shape.
#[test]
fn seeds_4_and_5_reports_show_their_published_tables_in_chromium() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (name, price) in [("root", "500 JPY/month"), ("gp2", "1,200 JPY/month")] {
        let anchor = dir.path().join(name);
        std::fs::create_dir(&anchor).unwrap();
        let file = dir.path().join(format!("{name}.vdb"));
        std::fs::write(
            &file,
            format!(
                "fsd=fsd1,anchor={},depth=1,width=1,files=50,size=128k\n\
                 fwd=default,xfersize=4k,fileio=random,fileselect=random,threads=2\n\
                 fwd=fwd1,fsd=fsd1,operation=read\nfwd=fwd2,fsd=fsd1,operation=write\n\
                 rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=2,interval=1\n",
                anchor.display()
            ),
        )
        .unwrap();
        for _ in 0..3 {
            kura(&db)
                .arg("run")
                .arg(&file)
                .args(["--label", &format!("fs {name}"), "--price", price])
                .assert()
                .success();
        }
    }
    seed_page(
        &db,
        dir.path(),
        "seed4-report",
        &["fs root", "fs gp2", "--repeats"],
        &[
            r#"data-table="repeats-0""#,
            "rd1 total · IOPS of each run, and their mean · ratio to fs root",
            ">run 3<",
        ],
    );
    for name in ["HDD", "SSD"] {
        let target = dir.path().join(name).display().to_string();
        std::fs::create_dir(&target).unwrap();
        let tio = format!("tiobench {name}");
        ok(
            &db,
            &[
                "suite",
                "tiobench",
                &target,
                "--threads",
                "1,2",
                "--size",
                "4m",
                "--random-ops",
                "400",
                "--label",
                &tio,
            ],
        );
        let bon = format!("bonnie {name}");
        ok(
            &db,
            &[
                "suite",
                "bonnie",
                &target,
                "--size",
                "8m",
                "--char-size",
                "1m",
                "--files",
                "1",
                "--label",
                &bon,
            ],
        );
        let dbl = format!("db {name}");
        ok(
            &db,
            &[
                "suite",
                "db",
                &target,
                "--scale",
                "0.001",
                "--time",
                "1s",
                "--tests",
                "create,select,oltp_read_write",
                "--label",
                &dbl,
            ],
        );
    }
    seed_page(
        &db,
        dir.path(),
        "seed5-tiobench-report",
        &["tiobench HDD", "tiobench SSD"],
        &[
            r#"data-table="tiobench-0""#,
            r#"data-table="tiobench-3""#,
            ">tiobench SSD<",
        ],
    );
    seed_page(
        &db,
        dir.path(),
        "seed5-bonnie-report",
        &["bonnie HDD", "bonnie SSD"],
        &[
            r#"data-table="bonnie""#,
            "xbonnie SSD",
            "Sequential Output Block",
            "MB/s (ops/s for the rows marked so) relative to bonnie HDD",
        ],
    );
    // The ratio chart has rows in ops/s (creates, stats): not titled MB/s alone.
    let page = std::fs::read_to_string(dir.path().join("seed5-bonnie-report.html")).unwrap();
    assert!(!page.contains("MB/s relative to bonnie HDD"));
    assert!(page.contains("Sequential Create create (ops/s)"));
    seed_page(
        &db,
        dir.path(),
        "seed5-db-report",
        &["db HDD", "db SSD"],
        &[
            r#"data-table="db-compare""#,
            "Each test relative to db HDD",
            ">xdb SSD<",
        ],
    );
}
