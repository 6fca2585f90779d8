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

/// A value kura refuses is named by the flag the user typed, fio's name
/// or kura's, with the value as typed, on `run` and on `explain FILE`.
#[test]
fn a_refused_value_names_the_flag_typed() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let file = d.join("j.fio");
    std::fs::write(&file, "[a]\nrw=read\nsize=1m\n").unwrap();
    for (args, want) in [
        ("--iodepth=0", "--iodepth: '0' is not valid"),
        ("--iodepth=0x0", "--iodepth: '0x0' is not valid"),
        ("--qd=0", "--qd: '0' is not valid"),
        ("--numjobs=0", "--numjobs: '0' is not valid"),
        ("--numjobs=99999", "--numjobs: '99999' is not valid"),
        ("--blocksize=0", "--blocksize: '0' is not valid"),
        ("--bs=0", "--bs: '0' is not valid"),
        ("--size=0", "--size: '0' is not valid"),
        ("--runtime=0", "--runtime: '0' is not valid"),
        ("--runtime=-5", "--runtime: '-5' is not a duration"),
        ("--rwmixread=150", "--rwmixread: '150' is not valid"),
        ("--rate_iops=0", "--rate_iops: '0' is not valid"),
        ("--rate-iops=0", "--rate-iops: '0' is not valid"),
        ("--io_size=0", "--io_size: '0' is not valid"),
        ("--blockalign=0", "--blockalign: '0' is not valid"),
        ("--filename=", "--filename: '' is not valid"),
        ("--numjobs=abc", "'abc' for '--numjobs"),
        ("--iodepth=-1", "'-1' for '--iodepth"),
    ] {
        for verb in [&["run", "--engine", "null", "--io-count", "5"][..], &["explain"]] {
            let mut cmd = kura(&db);
            cmd.args(verb);
            if verb[0] == "explain" {
                cmd.arg(&file);
            }
            let out = cmd.arg(args).output().unwrap();
            let err = common::stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{verb:?} {args}: {err}");
            assert!(err.starts_with("kura: error: "), "{verb:?} {args}: {err}");
            assert!(err.contains(want), "{verb:?} {args}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{verb:?} {args}: {err}");
        }
    }
}

/// Sizes given under the names both tools use (`--bs`, `--size`) read
/// kura's units alone, and fio's among fio's flags (fio 3.33's parse.c:
/// `4kb` is 4096 and `4kib` 4000 with kb_base=1024), with a note; fio's
/// own names (`--blocksize`) read fio's units always.
#[test]
fn shared_names_read_fios_units_among_fios_flags() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let job = |args: &[&str]| {
        let out = kura(&db)
            .args(["--json", "run", "--engine", "null", "--io-count", "4"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", common::stderr_of(&out));
        let v = json(&out.stdout);
        let j = &v["jobs"][0]["job"];
        let notes: Vec<String> = v["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(v["jobs"][0]["warnings"].as_array().into_iter().flatten())
            .map(|w| w.to_string())
            .filter(|w| w.contains("as fio reads it"))
            .collect();
        (
            j["bs"][0]["bytes"].as_u64().unwrap(),
            j["size_bytes"].as_u64(),
            notes,
        )
    };
    let (bs, size, notes) = job(&["--bs=4kb", "--size=1mb"]);
    assert_eq!((bs, size), (4000, Some(1_000_000)), "kura's units alone");
    assert!(notes.is_empty(), "{notes:?}");
    let (bs, size, notes) = job(&["--bs=4kb", "--size=1mb", "--iodepth=1"]);
    assert_eq!((bs, size), (4096, Some(1 << 20)), "fio's among fio's flags");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("--bs=4kb: 4k as fio reads it"), "{notes:?}");
    let (bs, _, _) = job(&["--bs=4kib", "--group_reporting"]);
    assert_eq!(bs, 4000);
    let (bs, _, _) = job(&["--bs=4kib"]);
    assert_eq!(bs, 4096);
    let (bs, _, _) = job(&["--blocksize=4kb"]);
    assert_eq!(bs, 4096);
}

/// fio's own command-line options (not job options) get a line saying what
/// kura does instead, not clap's tip of a similar flag.
#[test]
fn fios_command_line_options_are_named_in_one_line() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (flag, want) in [
        ("--minimal", "--json"),
        ("--readonly", "a read job never writes"),
        ("--eta=never", "--quiet"),
        ("--parse-only", "kura explain"),
        ("--section=a", "fio's command-line options"),
        ("--latency-log", "--write-lat-log"),
    ] {
        let out = kura(&db).args(["run", "--rw=randwrite", flag]).output().unwrap();
        let err = common::stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(want) && !err.contains("tip:"), "{flag}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{flag}: {err}");
    }
}

/// Hostile targets and job files under fio's names: one line, exit 2,
/// nothing created.
#[test]
fn hostile_paths_are_refused_in_one_line() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let dangling = d.join("dangling");
    std::os::unix::fs::symlink(d.join("nowhere"), &dangling).unwrap();
    let at = |p: &std::path::Path| format!("--filename={}", p.display());
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![at(&sub)], "is a directory"),
        (vec![at(&dangling)], "symbolic link"),
        (vec![at(&d.join("no/such/dir/f"))], "does not exist"),
        (
            vec![format!("--directory={}", d.join("nodir").display())],
            "does not exist",
        ),
        (vec![d.join("nope.fio").display().to_string()], "cannot read"),
        (vec![sub.display().to_string()], "is a directory"),
    ];
    for (args, want) in cases {
        for verb in ["run", "explain"] {
            if verb == "explain" && args[0].starts_with("--") {
                continue;
            }
            let out = kura(&db)
                .args([verb, "--name=x", "--rw=write", "--size=1m", "--runtime=1"])
                .args(&args)
                .output()
                .unwrap();
            let err = common::stderr_of(&out);
            assert_eq!(out.status.code(), Some(2), "{verb} {args:?}: {err}");
            assert!(err.contains(want), "{verb} {args:?}: {err}");
            assert!(!err.contains("panicked"), "{err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{verb} {args:?}: {err}");
        }
    }
    assert!(!d.join("nowhere").exists(), "nothing written through the link");
    assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 0);
}
