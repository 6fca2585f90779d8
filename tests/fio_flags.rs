//! fio's flags typed at `kura run` and `kura explain` (issue 26): fio's names
//! of kura's options with fio's value forms, the same job as kura's own
//! names store, one line for a fio flag kura has no equivalent for, and the
//! overrides `run` takes given to `explain`.

mod common;

use common::{json, kura, tmp};

/// The same job, typed with fio's names and with kura's, is stored alike,
/// and `compare` matches the two runs in one row.
#[test]
fn fio_names_store_the_job_kuras_names_store() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let file = d.join("f.dat");
    let file = file.to_str().unwrap();
    let fio = [
        "--name=x",
        &format!("--filename={file}"),
        "--rw=randread",
        "--blocksize=4k",
        "--size=4m",
        "--iodepth=4",
        "--numjobs=2",
        "--direct=1",
        "--ioengine=libaio",
        "--runtime=1",
        "--time_based",
        "--group_reporting",
        "--randseed=7",
        "--thinktime=50",
        "--invalidate=1",
    ];
    let ours = [
        "--name",
        "x",
        "--target",
        file,
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--size",
        "4m",
        "--qd",
        "4",
        "--threads",
        "2",
        "--direct",
        "--engine",
        "io_uring",
        "--runtime",
        "1s",
        "--seed",
        "7",
        "--think-time",
        "50us",
    ];
    let mut jobs = Vec::new();
    for args in [&fio[..], &ours[..]] {
        let v = json(
            &kura(&db)
                .args(["--json", "run"])
                .args(args)
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        jobs.push(v["jobs"][0]["job"].clone());
    }
    assert_eq!(jobs[0], jobs[1]);
    assert_eq!(jobs[0]["qd"], 4);
    assert_eq!(jobs[0]["engine"], "io_uring");
    let v = json(
        &kura(&db)
            .args(["--json", "compare", "1", "2"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "one row for both runs: {rows:?}");
    let cells = rows[0]["cells"].as_array().unwrap();
    assert!(
        cells.iter().all(|c| c["value"].as_f64().is_some_and(|x| x > 0.0)),
        "{cells:?}"
    );
}

/// fio's value forms under fio's names; what kura cannot take, in one line.
#[test]
fn fio_flags_read_fios_values_and_refuse_in_one_line() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let job = |args: &[&str]| {
        let out = kura(&db)
            .args(["--json", "run", "--engine", "null", "--io-count", "10"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", common::stderr_of(&out));
        json(&out.stdout)["jobs"][0]["job"].clone()
    };
    let j = job(&["--rwmixwrite=30", "--rw=randrw"]);
    assert_eq!(j["read_pct"], 70);
    let j = job(&["--direct=0", "--invalidate=0"]);
    assert_eq!(
        (j["direct"].as_bool(), j["keep_cache"].as_bool()),
        (Some(false), Some(true))
    );
    let j = job(&["--directory", d.to_str().unwrap(), "--name=j"]);
    assert_eq!(j["target"], format!("{}/j.0.0", d.display()));
    let j = job(&["--fsync=8", "--rw=write"]);
    assert_eq!(j["fsync_every"], 8);
    let j = job(&["--rate=1m"]);
    assert_eq!(j["rate_bytes_per_sec"], 1 << 20);
    // A flag fio knows and kura has nothing for; fio's name of a kura flag
    // without its value; a fio value kura cannot run: one line each, exit 2.
    for (args, want) in [
        (
            &["--zonemode=zbd"][..],
            "--zonemode: fio's option zonemode has no kura equivalent",
        ),
        (&["--iodepth"][..], "--iodepth"),
        (
            &["--ioengine=rbd"][..],
            "kura runs io_uring, libaio and posixaio on io_uring",
        ),
        (&["--output-format=json"][..], "--format fio-json"),
        (&["--iodepth=4", "--qd=8"][..], "cannot be used with"),
    ] {
        let out = kura(&db).arg("run").args(args).output().unwrap();
        let err = common::stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !err.contains("--depth"),
            "{args:?}: the file-set depth is no tip: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    // The help lists fio's names beside kura's.
    let help = String::from_utf8(kura(&db).args(["run", "--help"]).output().unwrap().stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for name in ["--iodepth", "--numjobs", "--ioengine", "--filename"] {
        assert!(help.contains(&format!("[fio: {name}")), "{name} in {help}");
    }
    assert!(help.contains("--direct[=<0|1>]"), "{help}");
}

/// `explain FILE` takes the overrides `run FILE` takes, fio's names included.
#[test]
fn explain_takes_the_overrides_run_takes() {
    let dir = tmp();
    let d = dir.path();
    let file = d.join("j.fio");
    std::fs::write(&file, "[a]\nrw=randread\nsize=1g\nfilename=/dev/sdz\n").unwrap();
    let out = kura(&d.join("k.db"))
        .args(["--json", "explain"])
        .arg(&file)
        .args(["--target", "/var/tmp/x", "--runtime", "5s", "--iodepth=8"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let j = &json(&out.stdout)["jobs"][0];
    assert_eq!(j["target"], "/var/tmp/x");
    assert_eq!(j["runtime_ns"], 5_000_000_000u64);
    assert_eq!(j["qd"], 8);
}
