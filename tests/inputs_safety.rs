//! Hostile input: job-file includes that are devices, FIFOs, secrets or
//! exponential; names with control characters; CSV formulas; impossible fio
//! JSON; labels that shadow run selectors; doubled error text.

mod common;

use std::path::Path;
use std::time::Duration;

use common::kura;

/// A fio job on the null engine that includes `include` from [global].
fn fio_including(dir: &Path, include: &str) -> std::path::PathBuf {
    let job = dir.join("job.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\ninclude {include}\n[a]\nioengine=null\nrw=read\nsize=1m\nio_size=64k\nfilename={}\n",
            dir.join("t.dat").display()
        ),
    )
    .unwrap();
    job
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_include_of_a_device_is_refused_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let job = fio_including(dir.path(), "/dev/zero");
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg(&job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn an_include_of_a_fifo_fails_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    common::sh(&format!("mkfifo {}", fifo.display()));
    let job = fio_including(dir.path(), "pipe");
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg(&job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "killed or wrong exit: {}",
        stderr_of(&out)
    );
    assert!(
        stderr_of(&out).contains("not a regular file"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_large_include_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.fio");
    std::fs::write(&big, "direct=1\n".repeat(200_000)).unwrap();
    let job = fio_including(dir.path(), "big.fio");
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg(&job)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("larger than 1m"), "{}", stderr_of(&out));
}

#[test]
fn includes_cannot_fan_out_exponentially() {
    // Each level includes the next twice: 2^12 includes unbounded.
    let dir = tempfile::tempdir().unwrap();
    for level in 0..12 {
        std::fs::write(
            dir.path().join(format!("l{level}.fio")),
            format!("include l{next}.fio\ninclude l{next}.fio\n", next = level + 1),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("l12.fio"), "direct=1\n").unwrap();
    let job = fio_including(dir.path(), "l0.fio");
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg(&job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("more than 64 includes"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn a_secret_file_included_is_never_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let shadow = dir.path().join("shadow");
    std::fs::write(
        &shadow,
        "root:$y$SECRETHASH0:20228:0:99999:7:::\ndaemon:*:SECRET1:0:99999:7:::\n",
    )
    .unwrap();
    let job = fio_including(dir.path(), shadow.to_str().unwrap());
    for lenient in [false, true] {
        let db = dir.path().join("k.db");
        let mut cmd = kura(&db);
        cmd.arg("run").arg(&job);
        if lenient {
            cmd.arg("--lenient");
        }
        let out = cmd.output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "lenient={lenient}: {err}");
        assert!(!err.contains("SECRET") && !err.contains("root"), "{err}");
        assert!(err.contains("shadow:1:"), "names the place: {err}");
    }
}

#[test]
fn lenient_keeps_only_key_names_and_a_bounded_list() {
    let dir = tempfile::tempdir().unwrap();
    let env = dir.path().join("env");
    let lines: String = (0..500).map(|i| format!("secret_{i}=hunter{i}\n")).collect();
    std::fs::write(&env, lines).unwrap();
    let job = fio_including(dir.path(), "env");
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .arg("run")
        .arg(&job)
        .arg("--lenient")
        .arg("--json")
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    let all = format!("{err}{}", String::from_utf8_lossy(&out.stdout));
    assert!(!all.contains("hunter"), "a value reached the output");
    let warnings = common::json(&out.stdout)["warnings"].as_array().unwrap().len();
    assert!(warnings <= 52, "{warnings} warnings stored");
    assert!(all.contains("450 more warnings not listed"), "{all}");
    let stored = std::fs::read(&db).unwrap();
    assert!(!String::from_utf8_lossy(&stored).contains("hunter"));
}

#[test]
fn a_job_file_that_is_a_device_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let out = kura(&dir.path().join("k.db"))
        .args(["run", "/dev/zero", "--format", "fio"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("larger than 16m"), "{}", stderr_of(&out));
}

fn null_run(db: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    kura(db)
        .args([
            "run",
            "--engine",
            "null",
            "--io-count",
            "100",
            "--size",
            "1m",
            "--target",
        ])
        .arg(dir.join("t.dat"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn names_with_control_characters_are_escaped_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let job = dir.path().join("e.toml");
    std::fs::write(
        &job,
        format!(
            "[[job]]\nname = \"x\\u001b[2J\\ry\\nz\"\nengine = \"null\"\nio_count = 100\nsize = \"1m\"\ntarget = \"{}\"\n",
            dir.path().join("t.dat").display()
        ),
    )
    .unwrap();
    let run = kura(&db).arg("run").arg(&job).output().unwrap();
    assert!(run.status.success(), "{}", stderr_of(&run));
    let show = kura(&db).args(["show", "latest"]).output().unwrap();
    let history = kura(&db).args(["history"]).output().unwrap();
    for out in [&run.stdout, &show.stdout, &history.stdout] {
        let text = String::from_utf8_lossy(out);
        assert!(!text.contains('\x1b') && !text.contains('\r'), "{text:?}");
        assert!(!text.contains("y\nz"), "a name started a new line: {text}");
    }
    assert!(String::from_utf8_lossy(&show.stdout).contains("x\\u{1b}[2J\\ry\\nz"));
}

#[test]
fn csv_cells_that_look_like_formulas_are_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let label = "=HYPERLINK(\"http://evil.example\",\"click\")";
    let out = null_run(&db, dir.path(), &["--label", label]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let csv = kura(&db).args(["history", "--format", "csv"]).output().unwrap();
    let text = String::from_utf8(csv.stdout).unwrap();
    let row = text.lines().nth(1).unwrap();
    assert!(
        row.contains(",\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\","),
        "{row}"
    );
}

/// A small fio JSON result, as fio 3.33 writes it, with `edit` applied.
fn fio_json(dir: &Path, edit: impl Fn(&mut serde_json::Value)) -> std::path::PathBuf {
    let d = |ops: u64| {
        serde_json::json!({
            "io_bytes": ops * 4096, "bw_bytes": 409600.0, "iops": 100.0, "runtime": 1000,
            "total_ios": ops,
            "clat_ns": { "min": 1, "max": 9, "mean": 5.0, "stddev": 1.0, "N": ops,
                         "percentile": { "50.000000": 5, "99.000000": 9 } },
            "lat_ns": { "min": 2, "max": 10, "mean": 6.0, "stddev": 1.5, "N": ops }
        })
    };
    let mut doc = serde_json::json!({
        "fio version": "fio-3.33", "timestamp": 1795318972,
        "jobs": [{
            "jobname": "mixed", "groupid": 0, "error": 0, "job_runtime": 1000,
            "usr_cpu": 1.0, "sys_cpu": 2.0, "hostname": "h",
            "job options": { "rw": "randrw", "rwmixread": "70", "bs": "4k" },
            "read": d(70), "write": d(30)
        }]
    });
    edit(&mut doc);
    let path = dir.join("r.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn impossible_fio_results_are_refused_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let good = fio_json(dir.path(), |_| {});
    let out = kura(&db).args(["import", "fio"]).arg(&good).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    for (edit, path) in [
        (
            Box::new(|d: &mut serde_json::Value| d["jobs"][0]["read"]["iops"] = (-5.0).into())
                as Box<dyn Fn(&mut serde_json::Value)>,
            "jobs[0].read.iops",
        ),
        (
            Box::new(|d: &mut serde_json::Value| d["jobs"][0]["job options"]["rwmixread"] = "150".into()),
            "rwmixread=150",
        ),
    ] {
        let bad = fio_json(dir.path(), edit);
        let out = kura(&db).args(["import", "fio"]).arg(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
        assert!(stderr_of(&out).contains(path), "{}", stderr_of(&out));
    }
    let runs = kura(&db).args(["history", "--json"]).output().unwrap();
    let runs = common::json(&runs.stdout);
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(1), "{runs}");
}

#[test]
fn imported_names_are_escaped_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let file = fio_json(dir.path(), |d| {
        d["jobs"][0]["jobname"] = "a\u{1b}]0;pwned\u{7}b".into();
        d["jobs"][0]["hostname"] = "h\rx".into();
    });
    let out = kura(&db).args(["import", "fio"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\r'),
        "{text:?}"
    );
    assert!(text.contains("a\\u{1b}]0;pwned\\u{7}b"), "{text}");
}

#[test]
fn labels_that_shadow_run_selectors_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    assert!(null_run(&db, dir.path(), &[]).status.success());
    for label in ["2", "latest"] {
        let out = null_run(&db, dir.path(), &["--label", label]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
        let out = kura(&db).args(["label", "1", label]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = stderr_of(&out);
        assert!(
            err.contains("could never be selected") || err.contains("reads as a run id"),
            "{err}"
        );
    }
    let out = kura(&db).args(["label", "1", "line\nbreak"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        kura(&db)
            .args(["label", "1", "disk 2"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let show = kura(&db).args(["show", "disk 2", "--json"]).output().unwrap();
    assert_eq!(common::json(&show.stdout)["id"], 1);
}

#[test]
fn error_causes_are_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = kura(&dir.path().join("k.db"))
        .arg("run")
        .arg(dir.path().join("missing.fio"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_file_of_many_unknown_options_is_read_in_linear_time() {
    // 100,000 unknown options under --lenient took over five minutes when
    // each looked for a "did you mean" among fio's options; the timeout is
    // a hang guard, far above the second it takes.
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("many.fio");
    let lines: String = (0..100_000).map(|i| format!("zzq{}=1\n", i % 1000)).collect();
    std::fs::write(&job, format!("[a]\nioengine=null\nsize=1m\n{lines}")).unwrap();
    let out = kura(&dir.path().join("k.db"))
        .args(["explain", "--lenient"])
        .arg(&job)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("99950 more warnings not listed"), "{text}");
}
