//! `kura suite pts` on real loop devices, throttled by cgroup v1 blkio: the
//! quick form of each of the IOPS, TP, LAT and WS tests through purge
//! (BLKDISCARD), preconditioning and rounds to a steady state, stored and
//! shown, in the terminal and in the HTML report's PTS pages (checked in
//! Chromium); and the safety checks refusing a device that carries a file
//! system.

mod common;
#[path = "support/mod.rs"]
mod support;

use common::{Cgroup, LoopDevice, TempMount, json, kura, need, tmp};
use support::{svg_chart, svg_lines};

/// The fill written over the device before a run: a block that still holds
/// it after the run was neither purged nor written.
const FILL: u8 = 0xA5;

/// What a quick PTS test's run left: its printed run, the store, and the
/// bytes the kernel counted as discarded from kura's blkio group.
struct Ran {
    run: serde_json::Value,
    db: std::path::PathBuf,
    discarded: u64,
    /// The kernel's `queue/write_cache` of the loop device, as the run began.
    write_cache: String,
    _dir: tempfile::TempDir,
}

/// Throttles of the loop device for kura's I/O: each point's rate is the
/// throttle's (blkio grants a fixed allowance per 100 ms slice), not the
/// shared VM's noise, so the tracked point is steady within the 5-round
/// minimum as on a drive past its transition.
struct Throttle {
    iops: u64,
    bps: Option<u64>,
}

/// `kura suite pts` of `tests` on a 32 MiB loop device filled with FILL,
/// run inside a blkio group that throttles it; `None` (skip) without losetup
/// or blkio.
fn quick(name: &str, tests: &str, scale: &str, throttle: Throttle, extra: &[&str]) -> Option<Ran> {
    if !need(&["losetup", "lsblk"]) {
        return None;
    }
    let cg = Cgroup::blkio(&format!("pts-{name}"))?;
    // The store in memory: a loop device's I/O is what is measured, not /tmp's disk.
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(32 << 20);
    let dev = lo.path.to_str().unwrap().to_string();
    std::fs::write(&lo.path, vec![FILL; 32 << 20]).unwrap();
    let majmin = common::sh(&format!("lsblk -dno MAJ:MIN {dev}"))
        .trim()
        .to_string();
    let write_cache = std::fs::read_to_string(format!("/sys/dev/block/{majmin}/queue/write_cache"))
        .unwrap_or_default()
        .trim()
        .to_string();
    let set = |file: &str, value: u64| {
        std::fs::write(cg.0.join(file), format!("{majmin} {value}")).unwrap();
    };
    set("blkio.throttle.read_iops_device", throttle.iops);
    set("blkio.throttle.write_iops_device", throttle.iops);
    if let Some(bps) = throttle.bps {
        set("blkio.throttle.read_bps_device", bps);
        set("blkio.throttle.write_bps_device", bps);
    }
    let script = format!(
        "echo $$ > {} && exec {} --json suite pts {dev} --tests {tests} --scale {scale} --allow-destroy {dev} {}",
        cg.0.join("cgroup.procs").display(),
        common::cmd::line(&db),
        extra.join(" ")
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    if !out.status.success() {
        // --json --quiet: what went wrong is in the run's warnings and flags.
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        panic!(
            "exit {:?}: {} incomplete {} warnings {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr),
            v["incomplete"],
            v["warnings"]
        );
    }
    let stats = std::fs::read_to_string(cg.0.join("blkio.throttle.io_service_bytes")).unwrap();
    let discarded = stats
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{majmin} Discard ")))
        .map_or(0, |n| n.trim().parse().unwrap());
    // Every 4 KiB block was discarded by the purge (reads zeros) or written since.
    let now = std::fs::read(&lo.path).unwrap();
    let kept = now.chunks(4096).filter(|b| b.iter().all(|&x| x == FILL)).count();
    assert_eq!(
        kept, 0,
        "{kept} blocks still hold the fill: the purge did not reach them"
    );
    Some(Ran {
        run: json(&out.stdout),
        db,
        discarded,
        write_cache,
        _dir: dir,
    })
}

fn test_of(j: &serde_json::Value) -> String {
    j["test"].as_str().unwrap_or("").to_string()
}

/// The checks every quick test shares, for one PTS test `name` whose round
/// has `points` points: purge, WIPC, whole rounds to a steady state, stored
/// and shown again.
fn purged_preconditioned_and_steady(ran: &Ran, name: &str, points: usize) -> serde_json::Value {
    let jobs = ran.run["jobs"].as_array().unwrap();
    let at = jobs
        .iter()
        .position(|j| test_of(j) == format!("{name} purge blkdiscard"))
        .unwrap_or_else(|| panic!("no purge of {name}"));
    assert_eq!(jobs[at]["job"]["rw"], "trim");
    let trims = jobs[at]["operations"]["trim"]["bytes"].as_u64().unwrap_or(0);
    assert_eq!(trims, 32 << 20, "{}", jobs[at]["operations"]);
    // Then the workload-independent preconditioning: 2x the capacity, scaled.
    assert_eq!(test_of(&jobs[at + 1]), format!("{name} WIPC"));
    assert!(jobs[at + 1]["write"]["bytes"].as_u64().unwrap() >= 128 << 10);
    let pts = ran.run["pts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["test"] == name)
        .unwrap_or_else(|| panic!("no {name} in {}", ran.run["pts"]))
        .clone();
    assert_eq!(pts["purge"], "blkdiscard");
    let rounds = pts["rounds"].as_u64().unwrap();
    assert_eq!(pts["steady"], true, "{pts}");
    assert!((5..=25).contains(&rounds), "{pts}");
    assert_eq!(pts["window"], serde_json::json!([rounds - 4, rounds]), "{pts}");
    for r in 1..=rounds {
        let n = jobs
            .iter()
            .filter(|j| {
                test_of(j).starts_with(&format!("{name} bs=")) && test_of(j).ends_with(&format!(" round {r}"))
            })
            .count();
        assert_eq!(n, points, "round {r} of {name}");
    }
    // No round of this test past the last (TP's other block size has rounds of its own).
    assert!(!jobs.iter().any(|j| {
        test_of(j).starts_with(&format!("{name} bs="))
            && test_of(j).ends_with(&format!(" round {}", rounds + 1))
    }));
    assert_eq!(pts["points"].as_array().unwrap().len(), points, "{pts}");
    pts
}

/// The run stored: every job in the store, and shown again from it, 80 columns wide.
fn stored_and_shown(ran: &Ran, heading: &str) -> String {
    let jobs = ran.run["jobs"].as_array().unwrap();
    let stored = kura(&ran.db).args(["--json", "show", "1"]).output().unwrap();
    let stored = json(&stored.stdout);
    assert_eq!(stored["jobs"].as_array().unwrap().len(), jobs.len());
    assert_eq!(stored["pts"], ran.run["pts"]);
    let kinds: Vec<&str> = ran.run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"pts_not_conforming"), "{kinds:?}");
    let shown = kura(&ran.db).args(["show", "1"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout).to_string();
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(text.contains(heading), "{text}");
    assert!(text.contains("NOT CONFORMING"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    text
}

/// The run's PTS pages in its HTML report (`kura report 1 -o FILE`): the
/// section, after checking that the run's scale is said on top and in every
/// test's heading; with Chromium, the page as loaded holds at least `charts`
/// charts and the PTS headings, and its picture is in target/screenshots.
fn pts_pages(ran: &Ran, name: &str, tests: usize, charts: usize) -> String {
    let file = ran.db.with_file_name(format!("pts-{name}.html"));
    let out = kura(&ran.db)
        .args(["report", "1", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&file).unwrap();
    let section = page
        .split(r#"<section id="pts">"#)
        .nth(1)
        .expect("the report has PTS pages");
    let section = section[..section.find("</section>").unwrap()].to_string();
    assert!(section.contains(r#"<div class="banner warn">NOT CONFORMING to SNIA PTS 2.0.2"#));
    let headings: Vec<&str> = section.split("<h3").skip(1).collect();
    assert_eq!(headings.len(), tests, "{headings:?}");
    for h in &headings {
        assert!(
            h.contains(r#"<span class="nc">NOT CONFORMING</span></h3>"#),
            "{h}"
        );
    }
    // The terminal's text is not repeated: the pages have the tables.
    assert!(!page.contains(r#"<pre class="suite">"#));
    if common::have("chromium") {
        let url = format!("file://{}", file.display());
        let dom = support::dump_dom(&url);
        let drawn = support::count(&dom, r#"<svg class="chart"#);
        assert!(drawn >= charts, "{drawn} charts drawn, {charts} expected");
        assert!(dom.contains(r#"<section id="pts">"#) && dom.contains("NOT CONFORMING"));
        support::screenshot(&url, &format!("report-pts-{name}"), 2400);
    }
    section
}

/// The rows of the table named `name` in `html`.
fn table_rows(html: &str, name: &str) -> usize {
    let at = html
        .find(&format!(r#"data-table="{name}""#))
        .unwrap_or_else(|| panic!("no table {name}"));
    let table = &html[at..at + html[at..].find("</table>").unwrap()];
    table.split("<tbody>").nth(1).unwrap().matches("<tr>").count()
}

/// A test's convergence plot (`lines` lines of `rounds` points, each of
/// `tracked` among them, the window shaded) and a window plot per tracked
/// point (its 5 window rounds, their average and least-squares line, the
/// ±10 % and ±20 % bands).
fn steady_plots(section: &str, name: &str, rounds: u64, lines: usize, tracked: &[&str]) {
    let conv = svg_chart(section, &format!("Steady-state convergence · {name}"));
    let l = svg_lines(conv);
    assert_eq!(l.len(), lines, "{name}: {l:?}");
    assert!(l.iter().all(|(_, n)| *n as u64 == rounds), "{name}: {l:?}");
    for t in tracked {
        assert!(
            l.iter().any(|(n, _)| *n == format!("{t} (tracked)")),
            "{name}: {l:?}"
        );
    }
    assert!(conv.contains(r#"<g class="band measure">"#) && conv.contains(">steady window<"));
    for t in tracked {
        let win = svg_chart(section, &format!("Steady-state measurement window · {name} {t}"));
        let l = svg_lines(win);
        assert!(l.contains(&(t.to_string(), 5)), "{name}: {l:?}");
        assert!(
            l.iter().any(|(n, p)| n.starts_with("average ") && *p == 2),
            "{l:?}"
        );
        assert!(l.contains(&("least-squares line".to_string(), 2)), "{l:?}");
        for (band, label) in [("tol20", "±20 %"), ("tol10", "±10 %")] {
            assert!(
                win.contains(&format!(r#"<g class="band {band}">"#)) && win.contains(&format!(">{label}<")),
                "{name}: no {label} band"
            );
        }
    }
}

#[test]
fn the_quick_iops_test_purges_preconditions_and_runs_rounds_to_steady_state() {
    // 300 ms points at 200 IOPS and QD 1: each point is the throttle's
    // rate, 1 MiB reads too. At 60 ms and 1000 IOPS the 1 MiB points
    // measured the loop device's noise; at the default 32 x 4, 128 throttled
    // 1 MiB reads in flight completed none in 300 ms. (The default QD and
    // TC are held by the WS test.)
    let Some(ran) = quick(
        "iops",
        "iops",
        "0.005",
        Throttle { iops: 200, bps: None },
        &["--qd", "1", "--threads", "1"],
    ) else {
        return;
    };
    assert_eq!(ran.discarded, 32 << 20);
    let pts = purged_preconditioned_and_steady(&ran, "IOPS", 56);
    assert_eq!(test_of(&ran.run["jobs"][0]), "IOPS purge blkdiscard");
    let rounds = pts["rounds"].as_u64().unwrap();
    assert_eq!(ran.run["jobs"].as_array().unwrap().len() as u64, 2 + 56 * rounds);
    assert!(
        pts["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["iops"].as_f64().unwrap() > 0.0)
    );
    // PTS 2.0.2's three tracking variables, each judged, all steady.
    let verdicts: Vec<&serde_json::Value> = ran.run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "rounds")
        .collect();
    let tracked: Vec<&str> = verdicts.iter().filter_map(|w| w["job"].as_str()).collect();
    assert_eq!(
        tracked,
        [
            "IOPS bs=1m mix=100/0",
            "IOPS bs=64k mix=65/35",
            "IOPS bs=4k mix=0/100"
        ],
        "{verdicts:?}"
    );
    assert!(
        verdicts.iter().all(|w| w["rounds"]["steady"] == true),
        "{verdicts:?}"
    );
    // The stimulus and its preconditioning at the tester's QD and TC.
    let jobs = ran.run["jobs"].as_array().unwrap();
    assert!(
        jobs[1..]
            .iter()
            .all(|j| j["job"]["qd"] == 1 && j["job"]["threads"] == 1)
    );
    // The loop device's write cache: said when on (PTS-E asks for it off).
    let said = ran.run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["kind"] == "pts_write_cache" && w["state"] == "write back");
    assert_eq!(said, ran.write_cache == "write back", "{}", ran.write_cache);
    let text = stored_and_shown(&ran, "IOPS · purged (blkdiscard) · steady, window rounds");
    // The matrix: one row per block size, 1 MiB first.
    let rows = text.lines().filter(|l| l.trim_start().starts_with("1m ")).count();
    assert_eq!(rows, 1, "{text}");
    // The HTML pages: the 8 block sizes at all writes by round, the window;
    // the matrix (8 block sizes by 7 mixes) as a table and a line per mix.
    let html = pts_pages(&ran, "iops", 1, 3);
    // The three tracked points and the other block sizes of all writes.
    steady_plots(
        &html,
        "IOPS",
        rounds,
        10,
        &["bs=1m mix=100/0", "bs=64k mix=65/35", "bs=4k mix=0/100"],
    );
    assert_eq!(table_rows(&html, "pts-r1-iops"), 8);
    let by_bs = svg_lines(svg_chart(&html, "IOPS: IOPS by block size, one line per R/W mix"));
    assert_eq!(by_bs.len(), 7, "{by_bs:?}");
    assert!(by_bs.iter().all(|(_, n)| *n == 8), "{by_bs:?}");
}

#[test]
fn the_quick_throughput_test_purges_before_each_block_size() {
    // Bytes, not I/Os, set a sequential point's rate; at QD 4 what a point
    // leaves queued at the throttle is the same every round.
    let throttle = Throttle {
        iops: 1000,
        bps: Some(50 << 20),
    };
    let Some(ran) = quick("tp", "tp", "0.005", throttle, &["--qd", "4"]) else {
        return;
    };
    assert_eq!(ran.discarded, 2 * (32 << 20));
    for name in ["TP 1m", "TP 128k"] {
        let pts = purged_preconditioned_and_steady(&ran, name, 2);
        let points = pts["points"].as_array().unwrap();
        assert!(
            points.iter().all(|p| p["bytes_per_sec"].as_f64().unwrap() > 0.0),
            "{pts}"
        );
    }
    stored_and_shown(&ran, "TP 128k · purged (blkdiscard) · steady");
    // Each block size's pages: read and write by round; one bar chart of both.
    let html = pts_pages(&ran, "tp", 2, 5);
    for (name, bs) in [("TP 1m", "1m"), ("TP 128k", "128k")] {
        let pts = ran.run["pts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["test"] == name)
            .unwrap();
        let rounds = pts["rounds"].as_u64().unwrap();
        steady_plots(&html, name, rounds, 2, &[&format!("bs={bs} mix=0/100")]);
        assert_eq!(table_rows(&html, &format!("pts-r1-tp-{bs}")), 2);
    }
    assert_eq!(
        support::count(&html, r#"aria-label="TP: MB/s by block size and direction""#),
        1
    );
    let bars = svg_chart(&html, "TP: MB/s by block size and direction");
    assert_eq!(support::count(bars, r#"class="bar""#), 4);
}

#[test]
fn the_quick_latency_test_reaches_steady_mean_latency_at_qd1() {
    // 20 I/Os a slice at once, then a wait for the next: the mean is the throttle's.
    let Some(ran) = quick("lat", "lat", "0.00833", Throttle { iops: 200, bps: None }, &[]) else {
        return;
    };
    assert_eq!(ran.discarded, 32 << 20);
    let pts = purged_preconditioned_and_steady(&ran, "LAT", 9);
    for p in pts["points"].as_array().unwrap() {
        let mean = p["lat_mean_ns"].as_f64().unwrap_or(0.0);
        assert!(mean > 0.0 && p["lat_max_ns"].as_f64().unwrap() >= mean, "{p}");
    }
    let jobs = ran.run["jobs"].as_array().unwrap();
    let at_qd1 = jobs
        .iter()
        .filter(|j| test_of(j).contains(" round "))
        .all(|j| j["job"]["qd"] == 1);
    assert!(at_qd1);
    stored_and_shown(&ran, "LAT · purged (blkdiscard) · steady");
    // The pages: the 3 block sizes at all writes by round, the window; a
    // row per point with mean, percentiles and max; mean and max bars.
    let rounds = pts["rounds"].as_u64().unwrap();
    let html = pts_pages(&ran, "lat", 1, 3);
    assert!(html.contains("LAT · purged (blkdiscard) · steady"));
    steady_plots(&html, "LAT", rounds, 3, &["bs=4k mix=0/100"]);
    assert_eq!(table_rows(&html, "pts-r1-lat"), 9);
    for column in ["<th>mean</th>", "<th>p99.999</th>", "<th>max</th>"] {
        assert!(html.contains(column), "{column}");
    }
    let bars = svg_chart(&html, "LAT: mean and maximum latency per point");
    assert_eq!(support::count(bars, r#"class="bar""#), 18);
}

#[test]
fn the_quick_write_saturation_test_is_purged_and_writes_its_scaled_volume() {
    // 50 IOPS: the scaled volume (1.3 MB) takes ~6.5 s, about 11 periods
    // of the scaled round time (0.6 s), a curve rather than a point.
    let Some(ran) = quick("ws", "ws", "0.01", Throttle { iops: 50, bps: None }, &[]) else {
        return;
    };
    assert_eq!(ran.discarded, 32 << 20);
    let jobs = ran.run["jobs"].as_array().unwrap();
    assert_eq!(test_of(&jobs[0]), "WS purge blkdiscard");
    assert_eq!(test_of(&jobs[1]), "WS RND 4k W100");
    // PTS-E's recommended QD and TC, kura's default.
    assert_eq!(
        (jobs[1]["job"]["qd"].as_u64(), jobs[1]["job"]["threads"].as_u64()),
        (Some(32), Some(4))
    );
    // 4x the capacity, scaled, in 4 KiB random writes; its series is the curve.
    let written = jobs[1]["write"]["bytes"].as_u64().unwrap();
    assert_eq!(written, (4 * (32u64 << 20)) / 100 / 4096 * 4096);
    let series = jobs[1]["series"].as_array().unwrap();
    let ops: u64 = series.iter().map(|p| p["write_ops"].as_u64().unwrap()).sum();
    assert_eq!(ops, written / 4096, "{series:?}");
    stored_and_shown(&ran, "WS · purged (blkdiscard)");
    // The curve: a point per period, over time and over bytes written (a
    // last period cut to under a quarter of the first is not charted, as
    // on every job's chart).
    let html = pts_pages(&ran, "ws", 1, 2);
    let first = series[0]["duration_ns"].as_u64().unwrap();
    let periods = series
        .iter()
        .filter(|p| p["duration_ns"].as_u64().unwrap() * 4 >= first)
        .count();
    assert!(periods >= 5, "{series:?}");
    assert_eq!(table_rows(&html, "pts-r1-ws"), 1);
    for title in ["WS: IOPS over time", "WS: IOPS over data written"] {
        let lines = svg_lines(svg_chart(&html, title));
        assert_eq!(lines, [("write IOPS".to_string(), periods)], "{title}");
    }
}

#[test]
fn a_device_with_a_file_system_is_refused_and_never_purged() {
    if !need(&["losetup", "mkfs.ext4", "blkid"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(32 << 20);
    lo.mkfs_ext4();
    let dev = lo.path.to_str().unwrap();
    let out = kura(&db)
        .args(["suite", "pts", dev, "--tests", "iops", "--scale", "0.0005"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(dev) && err.contains("--allow-destroy"), "{err}");
    // Mounted, even --allow-destroy does not let it be purged.
    let mount = TempMount::new(&[], &lo.path);
    let out = kura(&db)
        .args(["suite", "pts", dev, "--tests", "iops", "--scale", "0.0005"])
        .args(["--allow-destroy", dev])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(mount);
    // No discard reached it: the file system is still there.
    let fs = common::sh(&format!("blkid -p -o value -s TYPE {dev}"));
    assert_eq!(fs.trim(), "ext4");
}

/// Issue 34: under `--size` the purge warning said "whole device" while
/// only the span was discarded.
#[test]
fn a_purge_of_a_span_says_the_span_not_the_whole_device() {
    if !need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(16 << 20);
    let dev = lo.path.to_str().unwrap();
    let out = kura(&db)
        .args(["--json", "suite", "pts", dev, "--tests", "ws", "--scale", "0.001"])
        .args(["--size", "2m", "--allow-destroy", dev])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = json(&out.stdout);
    let purge = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "pts_purge")
        .cloned()
        .unwrap_or_default();
    let text = purge["text"].as_str().unwrap_or_default();
    assert!(text.contains("over the first 2m of the device"), "{purge}");
    assert!(!text.contains("whole device"), "{text}");
    assert_eq!(purge["span_bytes"], 2 << 20);
}

/// Issue 34: a PTS run's figure in `kura history` (and the web list) was
/// its first job's, the purge's trim rate.
#[test]
fn a_runs_figure_in_history_is_a_tests_not_its_purge() {
    if !need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("pts.db");
    let lo = LoopDevice::sized(16 << 20);
    let dev = lo.path.to_str().unwrap();
    kura(&db)
        .args(["suite", "pts", dev, "--tests", "ws", "--scale", "0.001"])
        .args(["--size", "2m", "--allow-destroy", dev])
        .assert()
        .success();
    let out = kura(&db).args(["--json", "history"]).assert().success();
    let runs = json(&out.get_output().stdout);
    let figure = runs["runs"][0]["figure"].as_str().unwrap_or_default();
    assert!(figure.starts_with("WS RND 4k W100 write"), "{}", runs["runs"][0]);
    assert!(!figure.contains("purge"), "{figure}");
}
