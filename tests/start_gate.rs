//! A job's measured time starts when its threads are set up: filling a deep
//! queue's worth of large buffers with random data is not measured. Before,
//! a short pass of 1 MiB reads at a deep queue measured nothing at all
//! (the fill ate its whole runtime), as CrystalDiskMark's short passes did.

mod common;

use common::{json, kura, tmp};

#[test]
fn setup_is_not_part_of_the_measured_time() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["--json", "run", "--engine", "null", "--rw", "read", "--bs", "1m"])
        .args([
            "--qd",
            "32",
            "--threads",
            "2",
            "--size",
            "64m",
            "--runtime",
            "100ms",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let run = json(&out);
    let job = &run["jobs"][0];
    assert_eq!(job["elapsed_ns"], 100_000_000u64, "{job}");
    let ops = job["read"]["ops"].as_u64().unwrap();
    assert!(ops > 0, "1 MiB reads in the 100 ms after setup: {ops}");
}
