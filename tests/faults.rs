//! Fault survival on a FUSE file system the test serves (common/faultfs.rs):
//! EIO at chosen offsets, ENOSPC after N bytes, latency spikes, silent
//! corruption. kura counts errors with errno and offset, stops at
//! `--max-errors`, stores what it measured, removes its test file, and
//! `--verify` finds every corrupted block with its offset.

mod common;
#[path = "common/faultfs.rs"]
mod faultfs;

use common::{json, kura, tmp};
use faultfs::{FaultMount, Faults};

const MIB: u64 = 1 << 20;

fn mount(faults: Faults) -> Option<FaultMount> {
    if !common::is_root() || !std::path::Path::new("/dev/fuse").exists() {
        common::missing("/dev/fuse");
        return None;
    }
    Some(FaultMount::new(faults).expect("mounting the fault file system"))
}

fn run(db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    run_code(db, args, 0)
}

/// `kura run`, which must exit with `code` (1 when I/O failed or data did not verify).
fn run_code(db: &std::path::Path, args: &[&str], code: i32) -> serde_json::Value {
    let out = kura(db).args(["--json", "run"]).args(args).assert().code(code);
    json(&out.get_output().stdout)
}

fn shown(db: &std::path::Path) -> serde_json::Value {
    json(
        &kura(db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

#[test]
fn eio_at_chosen_offsets_is_counted_with_errno_and_offset_and_the_file_is_removed() {
    let Some(fs) = mount(Faults {
        eio_reads: vec![40960..40961, 409600..409601 + 4096],
        ..Faults::default()
    }) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = fs.dir.join("t.dat");
    let r = run_code(
        &db,
        &[
            "--target",
            t.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "read",
            "--passes",
            "1",
            "--engine",
            "sync",
        ],
        1,
    );
    let read = &r["jobs"][0]["read"];
    // Blocks 10, 100 and 101 touch the failing ranges; every other block read fine.
    assert_eq!(read["errors"], 3, "{read}");
    assert_eq!(read["ops"], 256 - 3);
    let samples: Vec<(i64, u64)> = read["error_samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["errno"].as_i64().unwrap(), s["offset_bytes"].as_u64().unwrap()))
        .collect();
    assert_eq!(samples, vec![(5, 40960), (5, 409600), (5, 413696)]);
    assert!(
        r["warnings"]
            .to_string()
            .contains("3 read errors; first: Input/output error")
    );
    assert_eq!(shown(&db)["jobs"][0]["read"]["errors"], 3, "stored as measured");
    assert!(
        fs.files().is_empty(),
        "the test file is removed: {:?}",
        fs.files()
    );
    // The measured reads, and kura's sample of the span for zeros before them.
    assert!(fs.seen().eio >= 3);
    // The process serving the file system caches as it likes: kura says so.
    assert!(
        r["warnings"].to_string().contains("a FUSE or virtio file system"),
        "{}",
        r["warnings"]
    );
}

#[test]
fn enospc_stops_the_job_at_max_errors_and_what_was_measured_is_stored() {
    let Some(fs) = mount(Faults {
        enospc_after: Some(MIB + 256 * 1024),
        ..Faults::default()
    }) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = fs.dir.join("t.dat");
    let r = run_code(
        &db,
        &[
            "--target",
            t.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "write",
            "--passes",
            "8",
            "--max-errors",
            "10",
        ],
        1,
    );
    let write = &r["jobs"][0]["write"];
    assert_eq!(write["ops"], 64, "256 KiB of 4 KiB writes fit: {write}");
    let errors = write["errors"].as_u64().unwrap();
    assert!((10..=11).contains(&errors), "stopped at max_errors: {errors}");
    assert_eq!(write["error_samples"][0]["errno"], 28);
    assert_eq!(write["error_samples"][0]["offset_bytes"], 256 * 1024);
    let w = r["warnings"].to_string();
    assert!(w.contains("max_errors_reached"), "{w}");
    assert!(w.contains("No space left on device"), "{w}");
    assert_eq!(shown(&db)["jobs"][0]["write"]["ops"], 64);
    assert!(fs.files().is_empty(), "{:?}", fs.files());
}

#[test]
fn latency_spikes_show_in_the_tail_not_the_median() {
    let Some(fs) = mount(Faults {
        delay: Some((25, std::time::Duration::from_millis(200))),
        ..Faults::default()
    }) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = fs.dir.join("t.dat");
    let r = run(
        &db,
        &[
            "--target",
            t.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "randread",
            "--io-count",
            "200",
        ],
    );
    let lat = &r["jobs"][0]["read"]["lat_ns"];
    assert!(lat["max"].as_u64().unwrap() >= 200_000_000, "{lat}");
    assert!(
        lat["percentiles"]["50.000000"].as_u64().unwrap() < 100_000_000,
        "{lat}"
    );
    assert!(fs.seen().delayed >= 8);
}

#[test]
fn verify_finds_every_silently_corrupted_block_with_its_offset() {
    let chosen = [5 * 4096 + 7, 77 * 4096, 200 * 4096 + 4095];
    let Some(fs) = mount(Faults {
        after_bytes: MIB,
        corrupt: chosen.to_vec(),
        ..Faults::default()
    }) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = fs.dir.join("t.dat");
    let r = run_code(
        &db,
        &[
            "--target",
            t.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "write",
            "--passes",
            "1",
            "--verify",
        ],
        1,
    );
    assert_eq!(fs.seen().corrupted, 3, "the file system flipped the chosen bytes");
    let w = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "verify_failed")
        .unwrap_or_else(|| panic!("{}", r["warnings"]));
    let offsets: Vec<u64> = w["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["offset_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(
        offsets,
        chosen.iter().map(|c| c / 4096 * 4096).collect::<Vec<_>>()
    );
    assert_eq!(w["count"], 3);
    assert_eq!(
        r["jobs"][0]["write"]["errors"], 0,
        "the writes themselves succeeded"
    );
    assert!(fs.files().is_empty(), "{:?}", fs.files());
}

#[test]
fn a_mount_that_vanishes_mid_run_stops_at_max_errors_and_the_run_is_stored() {
    let Some(mut fs) = mount(Faults::default()) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let t = fs.dir.join("t.dat");
    let running = common::Running::start(
        common::kura_command(&db)
            .args([
                "--json",
                "run",
                "--size",
                "1m",
                "--rw",
                "randrw",
                "--runtime",
                "20s",
            ])
            .args(["--max-errors", "5", "--target"])
            .arg(&t),
    );
    // Measuring: the file exists and a first period of I/O is stored; then the server is gone.
    let running = running.wait_for("the run to measure (a first period stored)", || {
        !fs.files().is_empty() && common::stored_periods(&db) > 0
    });
    fs.vanish();
    let out = running.finish();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out.stdout);
    let job = &r["jobs"][0];
    let errors = job["read"]["errors"].as_u64().unwrap() + job["write"]["errors"].as_u64().unwrap();
    assert!(errors >= 5, "{job}");
    assert!(
        job["read"]["ops"].as_u64().unwrap() > 0,
        "what ran before is measured"
    );
    let w = r["warnings"].to_string();
    assert!(w.contains("max_errors_reached"), "{w}");
    // The file cannot be removed from a mount that is gone: kura says so instead of failing.
    assert!(w.contains("test_file_not_removed"), "{w}");
    // A job that ran its course reports its runtime exactly.
    assert!(
        job["elapsed_ns"].as_u64().unwrap() < job["job"]["runtime_ns"].as_u64().unwrap(),
        "max_errors ended the job before its runtime: {job}"
    );
    assert_eq!(shown(&db)["jobs"][0]["read"]["ops"], job["read"]["ops"], "stored");
}
