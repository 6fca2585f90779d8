//! `--format fio-json` / `fio-json+`: a kura run as fio 3.33's JSON, checked
//! key by key against what fio itself writes, read back by `kura import fio`,
//! and drawn by fio-plot (PyPI `fio-plot`).

mod common;

use std::path::{Path, PathBuf};

use common::{have, json, kura, missing, tmp};

/// Every key path of a document, with the JSON type at it; the keys of
/// percentile and bins maps (numbers as text) are left out.
fn shape(v: &serde_json::Value, at: &str, out: &mut std::collections::BTreeMap<String, &'static str>) {
    use serde_json::Value;
    let ty = match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    out.insert(at.to_string(), ty);
    match v {
        Value::Object(map) if !at.ends_with("percentile") && !at.ends_with("bins") => {
            for (k, x) in map {
                shape(x, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(list) => {
            if let Some(first) = list.first() {
                shape(first, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

fn kura_fio_json(db: &Path, dir: &Path, qd: u32, plus: bool) -> serde_json::Value {
    let format = if plus { "fio-json+" } else { "fio-json" };
    json(
        &kura(db)
            .args([
                "run",
                "--rw",
                "randrw",
                "--bs",
                "4k",
                "--size",
                "8m",
                "--runtime",
                "300ms",
            ])
            .args(["--qd", &qd.to_string(), "--format", format, "--target"])
            .arg(dir.join("t.dat"))
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

#[test]
fn a_kura_run_has_every_key_fio_writes() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let ours = kura_fio_json(&db, d, 4, true);
    let job = &ours["jobs"][0];
    for key in ["rw", "bs", "iodepth", "numjobs"] {
        assert!(
            job["job options"][key].is_string(),
            "job options/{key} in {}",
            job["job options"]
        );
    }
    assert_eq!(job["job options"]["iodepth"], "4");
    let read = &job["read"];
    assert!(read["total_ios"].as_u64().unwrap() > 0);
    assert_eq!(
        read["io_kbytes"].as_u64().unwrap(),
        read["io_bytes"].as_u64().unwrap() >> 10
    );
    assert_eq!(
        read["bw"].as_u64().unwrap(),
        read["bw_bytes"].as_u64().unwrap() / 1024
    );
    // Percentiles as fio lists them, in numeric order, under lat_ns as with fio's lat_percentiles=1.
    let p = read["lat_ns"]["percentile"].as_object().unwrap();
    let keys: Vec<&str> = p.keys().map(String::as_str).collect();
    assert_eq!(keys.first(), Some(&"1.000000"));
    assert_eq!(keys[1], "5.000000");
    assert_eq!(keys.last(), Some(&"99.990000"));
    let values: Vec<u64> = p.values().map(|v| v.as_u64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
    // json+: the bins add up to the I/Os, and the latency buckets to 100 %.
    let bins: u64 = read["lat_ns"]["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(bins, read["lat_ns"]["N"].as_u64().unwrap());
    let buckets: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[*k].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((buckets - 100.0).abs() < 1e-6, "{buckets}");

    // The same from the stored run, plain json without bins.
    let shown = json(
        &kura(&db)
            .args(["show", "latest", "--format", "fio-json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert!(shown["jobs"][0]["read"]["lat_ns"]["bins"].is_null());
    assert_eq!(shown["jobs"][0]["read"]["total_ios"], read["total_ios"]);

    // Key by key against fio's own json+ of a like job.
    if !have("fio") {
        return;
    }
    let fio_out = d.join("fio.json");
    let ran = std::process::Command::new("fio")
        .args([
            "--name=x",
            "--rw=randrw",
            "--bs=4k",
            "--size=8m",
            "--ioengine=psync",
            "--runtime=300ms",
        ])
        .arg(format!("--filename={}", d.join("f.dat").display()))
        .args([
            "--output-format=json+",
            "--lat_percentiles=1",
            "--clat_percentiles=0",
        ])
        .arg(format!("--output={}", fio_out.display()))
        .status()
        .unwrap();
    assert!(ran.success());
    let theirs = json(&std::fs::read(&fio_out).unwrap());
    let (mut a, mut b) = (Default::default(), Default::default());
    shape(&ours, "", &mut a);
    shape(&theirs, "", &mut b);
    // disk_util needs the block device's counters, which kura does not read.
    for (key, ty) in b.iter().filter(|(k, _)| !k.starts_with("/disk_util")) {
        assert_eq!(a.get(key), Some(ty), "{key}: fio writes a {ty}");
    }

    // kura's own fio importer reads it back with the same numbers.
    let file = d.join("kura-as-fio.json");
    std::fs::write(&file, ours.to_string()).unwrap();
    let back = json(
        &kura(&db)
            .args(["--json", "import", "fio"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(back["jobs"][0]["read"]["ops"], read["total_ios"]);
    assert_eq!(back["jobs"][0]["job"]["qd"], 4);
}

#[test]
fn format_flags_that_disagree_are_refused_before_running() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args([
            "--json",
            "run",
            "--engine",
            "null",
            "--io-count",
            "10",
            "--format",
            "fio-json",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("disagree"));
    let out = kura(&db)
        .args(["run", "--engine", "null", "--io-count", "10", "--format", "fio"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("none was given"));
    assert!(!db.exists(), "nothing ran");
}

/// fio-plot from a venv under target/ (.ci/run installs it), else on PATH.
fn fio_plot() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fio-plot-venv/bin/fio-plot");
    if venv.exists() {
        return Some(venv);
    }
    if have("fio-plot") {
        return Some(PathBuf::from("fio-plot"));
    }
    None
}

#[test]
fn fio_plot_draws_a_kura_run() {
    let Some(fio_plot) = fio_plot() else {
        missing("fio-plot (pip install fio-plot into target/fio-plot-venv)");
        return;
    };
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let results = d.join("results");
    std::fs::create_dir(&results).unwrap();
    // fio-plot reads a directory of RW-IODEPTH-NUMJOBS.json files.
    for qd in [1, 2] {
        let doc = kura_fio_json(&db, d, qd, false);
        std::fs::write(results.join(format!("randrw-{qd}-1.json")), doc.to_string()).unwrap();
    }
    let png = d.join("kura.png");
    let out = std::process::Command::new(&fio_plot)
        .env("MPLBACKEND", "Agg")
        .arg("-i")
        .arg(&results)
        .args([
            "-T",
            "kura randrw",
            "-l",
            "-r",
            "randrw",
            "-d",
            "1",
            "2",
            "-n",
            "1",
            "--filter",
            "read",
        ])
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success() && png.exists(),
        "fio-plot: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "a drawn chart"
    );
    // Kept for people to look at, beside the other pictures the tests make.
    let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    if std::fs::create_dir_all(&keep).is_ok() {
        let _ = std::fs::copy(&png, keep.join("fio-plot-kura.png"));
    }
}

/// With kura's sync engine its latency is the system call's time, fio's
/// `clat` for psync: the document has fio's default shape, percentiles (and
/// json+ bins) under `clat_ns`, as a script written against fio's default
/// output reads them.
#[test]
fn a_sync_run_has_fios_default_shape_with_clat_percentiles() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let ours = json(
        &kura(&db)
            .args(["run", "--rw", "randread", "--bs", "4k", "--size", "8m"])
            .args(["--runtime", "300ms", "--engine", "sync", "--format", "fio-json+"])
            .arg("--target")
            .arg(d.join("t.dat"))
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let job = &ours["jobs"][0];
    assert_eq!(job["job options"]["ioengine"], "psync");
    assert!(
        job["job options"].get("lat_percentiles").is_none(),
        "fio's defaults are not written"
    );
    let read = &job["read"];
    let clat = &read["clat_ns"];
    let p = clat["percentile"].as_object().expect("clat_ns/percentile");
    assert_eq!(p.keys().next().map(String::as_str), Some("1.000000"));
    assert!(p["50.000000"].as_u64().unwrap() > 0);
    let bins: u64 = clat["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(bins, clat["N"].as_u64().unwrap());
    assert!(clat["N"].as_u64().unwrap() > 0);
    // lat_ns: the same numbers without percentiles, as fio writes it by default.
    for k in ["min", "max", "mean", "N"] {
        assert_eq!(read["lat_ns"][k], clat[k], "lat_ns/{k}");
    }
    assert!(read["lat_ns"].get("percentile").is_none());
    assert!(read["lat_ns"].get("bins").is_none());
    assert_eq!(read["slat_ns"]["N"], 0);

    // Key by key against fio's default json+ of a psync job.
    if !have("fio") {
        missing("fio");
        return;
    }
    let fio_out = d.join("fio.json");
    let ran = std::process::Command::new("fio")
        .args([
            "--name=x",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            "--ioengine=psync",
        ])
        .args(["--runtime=300ms", "--output-format=json+"])
        .arg(format!("--filename={}", d.join("f.dat").display()))
        .arg(format!("--output={}", fio_out.display()))
        .status()
        .unwrap();
    assert!(ran.success());
    let theirs = json(&std::fs::read(&fio_out).unwrap());
    assert!(theirs["jobs"][0]["read"]["clat_ns"]["percentile"].is_object());
    assert!(theirs["jobs"][0]["read"]["lat_ns"].get("percentile").is_none());
    let (mut a, mut b) = (Default::default(), Default::default());
    shape(&ours, "", &mut a);
    shape(&theirs, "", &mut b);
    for (key, ty) in b.iter().filter(|(k, _)| !k.starts_with("/disk_util")) {
        assert_eq!(a.get(key), Some(ty), "{key}: fio writes a {ty}");
    }

    // kura's fio importer takes the percentiles from clat_ns.
    let file = d.join("kura-as-fio.json");
    std::fs::write(&file, ours.to_string()).unwrap();
    let back = json(
        &kura(&db)
            .args(["--json", "import", "fio"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let imported = &back["jobs"][0]["read"]["lat_ns"];
    assert_eq!(imported["percentiles"]["50.000000"], p["50.000000"], "{imported}");
}
