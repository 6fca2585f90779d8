//! `kura suite io500` on 2 real Open MPI ranks (docs/io500.md): ior-easy
//! and mdtest-easy a file or set per rank, ior-hard one file of IOR's
//! interleaved segments, mdtest-hard one shared set, the stonewalls'
//! wear-out on every rank, one stored run. Needs the binary built with
//! `--features mpi` (`cargo test --features mpi --test cluster_io500`);
//! the default build has nothing to run here.
#![cfg(feature = "mpi")]

mod common;

use std::process::Command;

use common::*;

fn geomean(v: &[f64]) -> f64 {
    let kept: Vec<f64> = v.iter().copied().filter(|x| *x > 0.0).collect();
    kept.iter().product::<f64>().powf(1.0 / kept.len() as f64)
}

#[test]
fn two_ranks_run_every_phase_each_its_own_way_and_store_one_run() {
    if !need(&["mpirun"]) {
        return;
    }
    let dir = tmp();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = dir.path().join("k.db");
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
        .arg(cmd::bin())
        .arg("--db")
        .arg(&db)
        .args(["--quiet", "suite", "io500"])
        .arg(&data)
        .args([
            "--stonewall",
            "200ms",
            "--easy-size",
            "4m",
            "--easy-transfer",
            "1m",
            "--hard-segments",
            "32",
            "--easy-files",
            "100000",
            "--hard-files",
            "32",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr_of(&out));
    assert!(
        text.contains("IO500-like (not the official harness) · 2 ranks"),
        "{text}"
    );
    let left: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    let shown = kura(&db).args(["show", "latest", "--json"]).output().unwrap();
    assert!(shown.status.success(), "{}", stderr_of(&shown));
    let j = json(&shown.stdout);
    let jobs = j["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 6, "one merged job per kura test");
    let job = |test: &str| jobs.iter().find(|x| x["test"] == test).unwrap();
    let ranks = |test: &str| job(test)["cluster"]["ranks"].as_array().unwrap().clone();
    for test in ["ior-easy-write", "mdtest-easy", "ior-hard-write", "mdtest-hard"] {
        assert_eq!(ranks(test).len(), 2, "{test}");
    }
    // ior-easy: a file per rank; ior-hard: one file, all 2 x 32 segments written.
    let easy = ranks("ior-easy-write");
    assert!(
        easy[1]["target"]
            .as_str()
            .unwrap()
            .ends_with("kura-io500-easy.dat.1"),
        "{easy:?}"
    );
    // Both ranks on one host: IOR's -C -Q 1 shifts by 0, each reads its own.
    let easy_read = ranks("ior-easy-read");
    assert_eq!(easy_read[1]["target"], easy[1]["target"], "{easy_read:?}");
    let hard = ranks("ior-hard-write");
    assert_eq!(hard[0]["target"], hard[1]["target"]);
    let w = &job("ior-hard-write")["write"];
    assert_eq!(w["ops"].as_u64(), Some(64));
    assert_eq!(w["bytes"].as_u64(), Some(64 * 47008));
    assert_eq!(job("ior-hard-read")["read"]["bytes"].as_u64(), Some(64 * 47008));
    // mdtest-easy: the stonewall ended the create phase; each rank then
    // completed to the largest count, and stat and delete took those files.
    let md = job("mdtest-easy");
    let wall = &md["cluster"]["stonewall"];
    let max = wall["max_ops_at_deadline"].as_u64().unwrap();
    assert!(max > 0 && max < 100_000, "{wall}");
    assert!(wall["min_ops_at_deadline"].as_u64().unwrap() <= max);
    let created = md["operations"]["create"]["ops"].as_u64().unwrap();
    assert_eq!(created, 2 * max, "{wall}");
    assert_eq!(wall["ops_after_wear_out"].as_u64(), Some(created));
    assert_eq!(md["operations"]["delete"]["ops"].as_u64(), Some(created));
    // mdtest-hard: one set of 2 x 32 files of 3901 bytes.
    let mh = job("mdtest-hard");
    assert_eq!(mh["read"]["ops"].as_u64(), Some(64));
    assert_eq!(mh["read"]["bytes"].as_u64(), Some(64 * 3901));
    // The score from the stored rows, as IO500 computes it.
    let rows = j["rows"].as_array().unwrap();
    let of = |g: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r["group"] == g)
            .filter_map(|r| r["value"].as_f64())
            .collect()
    };
    let want = (geomean(&of("bandwidth")) * geomean(&of("metadata"))).sqrt();
    let got = j["io500"]["score"].as_f64().unwrap();
    assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
}

/// A file set whose mix is weighted has no create phase to stonewall: refused by name.
#[test]
fn a_stonewall_on_a_weighted_file_set_is_refused() {
    if !need(&["mpirun"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
        .arg(cmd::bin())
        .arg("--db")
        .arg(&db)
        .args([
            "--quiet",
            "run",
            "--mix",
            "sfs97",
            "--files",
            "10",
            "--stonewall",
            "1s",
        ])
        .arg("--target")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("--stonewall on a file set is for phases that start with create"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "k.db")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
