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
    assert!(all.contains("ignored 450 more options"), "{all}");
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
