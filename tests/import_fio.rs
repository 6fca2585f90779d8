//! `kura import fio`: a real fio run, imported, shows fio's own numbers and
//! compares with a kura run of the same workload; other JSON stores nothing.

mod common;

use std::path::Path;
use std::process::Command;

use common::{have, json, kura, tmp};

/// Runs fio on a small file in `dir` and returns its JSON result file.
fn fio(dir: &Path, name: &str, extra: &[&str]) -> std::path::PathBuf {
    let out = dir.join(format!("{name}.json"));
    let status = Command::new("fio")
        .arg(format!("--name={name}"))
        .arg(format!("--filename={}", dir.join("fio.dat").display()))
        .args([
            "--size=16m",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--ioengine=psync",
            "--direct=1",
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ])
        .args(extra)
        .arg(format!("--output={}", out.display()))
        .status()
        .expect("fio runs");
    assert!(status.success(), "fio failed");
    out
}

#[test]
fn a_real_fio_run_imports_with_fios_numbers() {
    if !have("fio") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let result = fio(dir.path(), "fio-4k", &[]);
    let fio_json = json(&std::fs::read(&result).unwrap());
    let fio_read = &fio_json["jobs"][0]["read"];

    let printed = kura(&db)
        .args(["import", "fio"])
        .arg(&result)
        .args(["--label", "fio 4k", "--price", "659.46 JPY/month"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed = String::from_utf8(printed).unwrap();
    assert!(
        printed.starts_with(&format!("imported {} as run 1 (1 job)", result.display())),
        "{printed}"
    );

    let run = json(
        &kura(&db)
            .args(["--json", "show", "fio 4k"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(run["suite"], "import:fio");
    assert_eq!(run["price"], "659.46 JPY/month");
    let job = &run["jobs"][0];
    let read = &job["read"];
    // The same IOPS, bandwidth and mean latency fio printed, to the last digit.
    assert_eq!(read["iops"], fio_read["iops"]);
    assert_eq!(read["bytes_per_sec"].as_f64(), fio_read["bw_bytes"].as_f64());
    assert_eq!(read["lat_ns"]["mean"], fio_read["lat_ns"]["mean"]);
    assert_eq!(read["lat_ns"]["min"], fio_read["lat_ns"]["min"]);
    assert_eq!(read["lat_ns"]["max"], fio_read["lat_ns"]["max"]);
    assert_eq!(read["ops"], fio_read["total_ios"]);
    assert_eq!(read["bytes"], fio_read["io_bytes"]);
    assert_eq!(
        read["lat_ns"]["percentiles"]["99.000000"],
        fio_read["clat_ns"]["percentile"]["99.000000"]
    );
    assert_eq!(read["histogram"], "", "fio's JSON has no histogram");
    assert!(job["write"].is_null());
    assert_eq!(job["job"]["rw"], "randread");
    assert_eq!(job["job"]["qd"], 1);
    assert_eq!(job["job"]["direct"], true);
    assert_eq!(job["job"]["size_bytes"], 16 << 20);
    assert_eq!(job["engine"], "fio/psync");

    // kura's table shows fio's IOPS as kura prints any run.
    let table = String::from_utf8(
        kura(&db)
            .args(["show", "fio 4k"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    let iops = fio_read["iops"].as_f64().unwrap();
    assert!(table.contains(&kura::report::format::rate(iops)), "{table}");

    // The same workload run by kura lands in the same row.
    kura(&db)
        .current_dir(dir.path())
        .args([
            "run", "--target", "k.dat", "--size", "16m", "--rw", "randread", "--bs", "4k",
        ])
        .args([
            "--qd",
            "1",
            "--runtime",
            "2s",
            "--engine",
            "sync",
            "--label",
            "kura 4k",
        ])
        .assert()
        .success();
    let v = json(
        &kura(&db)
            .args(["--json", "compare", "fio 4k", "kura 4k", "--metric", "iops"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["label"], "randread 4k qd1 x1");
    assert!(rows[0]["not_comparable"].is_null(), "{:?}", rows[0]);
    assert_eq!(rows[0]["cells"][0]["value"], fio_read["iops"]);
    assert!(rows[0]["cells"][1]["ratio"].as_f64().unwrap() > 0.0);
}

#[test]
fn numjobs_clones_import_as_one_job_with_threads() {
    if !have("fio") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let result = fio(dir.path(), "two", &["--numjobs=2", "--runtime=1"]);
    let fio_json = json(&std::fs::read(&result).unwrap());
    assert_eq!(
        fio_json["jobs"].as_array().unwrap().len(),
        2,
        "fio wrote one entry per clone"
    );
    let sum: f64 = (0..2)
        .map(|i| fio_json["jobs"][i]["read"]["iops"].as_f64().unwrap())
        .sum();
    let run = json(
        &kura(&db)
            .args(["--json", "import", "fio"])
            .arg(&result)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(run["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(run["jobs"][0]["job"]["threads"], 2);
    let iops = run["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!((iops - sum).abs() < 1e-6, "{iops} vs {sum}");
}

/// Issue 34: fio prints an undefined float as a bare `-nan` (0/0 through
/// `%f`), and its own result was refused as "not a JSON document".
#[test]
fn fios_own_nan_is_read_as_a_field_it_could_not_compute() {
    if !have("fio") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let result = fio(dir.path(), "fio-nan", &["--runtime=1"]);
    let mut doc = json(&std::fs::read(&result).unwrap());
    let ops = doc["jobs"][0]["read"]["total_ios"].clone();
    doc["jobs"][0]["sys_cpu"] = 7777.125.into();
    doc["jobs"][0]["read"]["lat_ns"]["stddev"] = 7777.125.into();
    let text = serde_json::to_string_pretty(&doc)
        .unwrap()
        .replace("7777.125", "-nan");
    assert_eq!(text.matches(": -nan").count(), 2, "{text}");
    std::fs::write(&result, text).unwrap();
    kura(&db)
        .args(["import", "fio"])
        .arg(&result)
        .args(["--label", "nan"])
        .assert()
        .success();
    let run = json(
        &kura(&db)
            .args(["--json", "show", "nan"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let job = &run["jobs"][0];
    assert_eq!(job["read"]["ops"], ops);
    assert_eq!(job["read"]["lat_ns"]["stddev"], 0.0);
    assert_eq!(job["cpu_system_ns"], 0);
}

#[test]
fn json_that_is_not_fios_is_refused_and_nothing_is_stored() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let cases: [(&str, &str); 4] = [
        ("{\"jobs\": []}", "no \"fio version\""),
        ("{\"run\": 1}", "no \"fio version\""),
        ("hello", "is not a JSON document"),
        (
            "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"x\", \"read\": {\"total_ios\": 5}}]}",
            "jobs[0].read.lat_ns: missing",
        ),
    ];
    for (i, (text, why)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("bad{i}.json"));
        std::fs::write(&file, text).unwrap();
        let out = kura(&db)
            .args(["import", "fio"])
            .arg(&file)
            .args(["--label", "x"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not a fio JSON result"), "{err}");
        assert!(err.contains(why), "{text}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let out = kura(&db)
        .args(["import", "fio", "/nonexistent.json"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent.json"));
    let out = kura(&db)
        .args(["import", "fio", "x.json", "--price", "cheap"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("'cheap' is not a price"));
    // Nothing was stored: the database was not even created.
    assert!(!db.exists());
}
