//! A SIGBUS from the database's mapped `-shm` file (truncated under kura,
//! as a hostile or broken program, or a failing disk, can do) does not lose
//! the run: what was measured is saved as JSON beside the database, kura
//! says where and how to import it, and exits 1.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn a_sigbus_from_the_databases_shared_memory_saves_the_run_as_json() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let jobs = dir.path().join("jobs.toml");
    std::fs::write(
        &jobs,
        "[[job]]\nname = \"a\"\nengine = \"null\"\nruntime = \"300ms\"\n\
         [[job]]\nname = \"b\"\nengine = \"null\"\nruntime = \"30s\"\n",
    )
    .unwrap();
    let mut child = common::cmd::child(&db)
        .current_dir(dir.path())
        .arg("run")
        .arg(&jobs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while common::finished_jobs(&db) < 1 {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("job a was never stored");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Job b is measuring and stores its series once a second, through the mapping.
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("k.db-shm"))
        .unwrap()
        .set_len(0)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kura went on for 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(1), "{status:?} {err}");
    assert!(err.contains("failed under kura (SIGBUS"), "{err}");
    let saved: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("kura-unsaved-run-")
        })
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?} {err}");
    assert!(
        err.contains(&format!("the result is saved in {}", saved[0].display())),
        "{err}"
    );
    // What was saved is the run so far: job a with what it measured.
    let other = dir.path().join("other.db");
    common::kura(&other)
        .args(["import", "run"])
        .arg(&saved[0])
        .assert()
        .success();
    let shown = common::json(
        &common::kura(&other)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(shown["jobs"][0]["job"]["name"], "a", "{shown}");
    assert_eq!(shown["incomplete"], true);
}
