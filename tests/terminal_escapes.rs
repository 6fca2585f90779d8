//! Issue 34: names and paths from a job file reach the terminal, the HTML
//! report and the web UI only escaped: a job called `ESC[2J` used to clear
//! the screen from the progress line, and `ESC]0;title BEL` to retitle it.

mod common;
#[path = "support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{kura, stderr_of, tmp};

/// Clears the screen, sets the window title, and returns to the line's start.
const HOSTILE: &str = "x\x1b[2J\x1b]0;pwned\x07y\rz";
/// `HOSTILE` as kura shows it.
const SHOWN: &str = "x\\u{1b}[2J\\u{1b}]0;pwned\\u{7}y\\rz";
/// fio cuts a line at `;` (its comment), so its files cannot set a title;
/// they can still clear the screen and change colours.
const HOSTILE_FIO: &str = "x\x1b[2J\x1b[31m\x07y\rz";
const SHOWN_FIO: &str = "x\\u{1b}[2J\\u{1b}[31m\\u{7}y\\rz";

/// A target file in `dir` whose name holds `name`'s sequences.
fn hostile_target(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("t{name}.dat"))
}

/// A TOML job file: one job named `HOSTILE` reading a new 1 MiB file at a
/// hostile path (so kura creates and fills it, and names it as it goes).
fn toml_job(dir: &Path) -> PathBuf {
    let path = dir.join("j.toml");
    // JSON's string escapes (`\u001b`, `\r`) are TOML's too.
    let q = |s: &str| serde_json::to_string(s).unwrap();
    std::fs::write(
        &path,
        format!(
            "[[job]]\nname = {}\nrw = \"randread\"\nio_count = 200\nsize = \"1m\"\ntarget = {}\n",
            q(HOSTILE),
            q(&hostile_target(dir, HOSTILE).display().to_string())
        ),
    )
    .unwrap();
    path
}

/// A fio job file with the sequences, raw, in its section name and `filename=`.
fn fio_job(dir: &Path) -> PathBuf {
    let path = dir.join("j.fio");
    std::fs::write(
        &path,
        format!(
            "[global]\nioengine=psync\nsize=1m\nbs=4k\n\n[{HOSTILE_FIO}]\nrw=randread\nnumber_ios=200\nfilename={}\n\
             write_bw_log={}\n",
            hostile_target(dir, HOSTILE_FIO).display(),
            dir.join(HOSTILE_FIO).display()
        ),
    )
    .unwrap();
    path
}

/// kura with `args`, without `--quiet`, so every line it prints as it runs is seen.
fn kura_loud(db: &Path, args: &[&std::ffi::OsStr]) -> Output {
    common::cmd::kura_loud(db).args(args).output().unwrap()
}

fn assert_no_raw_controls(what: &str, bytes: &[u8]) {
    for (b, name) in [(0x1b, "ESC"), (0x07, "BEL"), (0x0d, "CR")] {
        assert!(
            !bytes.contains(&b),
            "{what} holds a raw {name}: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn hostile_names_and_paths_are_escaped_on_stdout_and_stderr() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (job, name, shown) in [
        (toml_job(dir.path()), HOSTILE, SHOWN),
        (fio_job(dir.path()), HOSTILE_FIO, SHOWN_FIO),
    ] {
        let out = kura_loud(&db, &["run".as_ref(), job.as_os_str()]);
        assert!(out.status.success(), "{}: {}", job.display(), stderr_of(&out));
        assert_no_raw_controls("stdout", &out.stdout);
        assert_no_raw_controls("stderr", &out.stderr);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(shown),
            "the name is shown, escaped: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        if name == HOSTILE_FIO {
            // `write_bw_log=`'s file, named when written.
            assert!(
                stderr_of(&out).contains(&format!("{SHOWN_FIO}_bw")),
                "{}",
                stderr_of(&out)
            );
        }
        let _ = std::fs::remove_file(hostile_target(dir.path(), name));
    }
    // `mark DIR` says which test file it makes in the directory.
    let hostile_dir = dir.path().join(HOSTILE);
    std::fs::create_dir(&hostile_dir).unwrap();
    let out = kura_loud(
        &db,
        &[
            "mark".as_ref(),
            hostile_dir.as_os_str(),
            "--profile".as_ref(),
            "demo".as_ref(),
            "--runs".as_ref(),
            "1".as_ref(),
            "--runtime".as_ref(),
            "100ms".as_ref(),
            "--interval".as_ref(),
            "0s".as_ref(),
            "--size".as_ref(),
            "1m".as_ref(),
        ],
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_no_raw_controls("mark's stdout", &out.stdout);
    assert_no_raw_controls("mark's stderr", &out.stderr);
    assert!(stderr_of(&out).contains(SHOWN), "{}", stderr_of(&out));
    // A refusal that quotes the path: a new test file in /dev.
    let target = format!("/dev/kura-test{HOSTILE}");
    let out = kura_loud(
        &db,
        &[
            "run".as_ref(),
            "--io-count".as_ref(),
            "10".as_ref(),
            "--target".as_ref(),
            target.as_ref(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(!Path::new(&target).exists());
    assert_no_raw_controls("the refusal", &out.stderr);
    assert!(stderr_of(&out).contains(SHOWN), "{}", stderr_of(&out));
}

/// On a terminal the progress line draws with its own cursor codes; the
/// job's sequences must not be among them.
#[test]
fn the_progress_line_shows_hostile_names_escaped() {
    if !common::have("script") {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    for (job, name) in [
        (toml_job(dir.path()), HOSTILE),
        (fio_job(dir.path()), HOSTILE_FIO),
    ] {
        let command = format!("{} run {}", common::cmd::line_loud(&db), job.display());
        let screen = common::on_terminal(&command, &[]);
        for raw in ["\x1b[2J", "\x1b]0;", "\x1b[31m", "\x07"] {
            assert!(!screen.contains(raw), "{raw:?} reached the terminal: {screen:?}");
        }
        // The bar's own codes move the cursor up or down and erase a line; any other is the name's.
        for code in screen.split('\x1b').skip(1) {
            let digits = code
                .strip_prefix('[')
                .map(|c| c.trim_start_matches(|d: char| d.is_ascii_digit()));
            assert!(
                digits.is_some_and(|rest| rest.starts_with(['A', 'B', 'K'])),
                "ESC{} is not the bar's: {screen:?}",
                code.chars().take(8).collect::<String>()
            );
        }
        assert!(screen.contains("x\\u{1b}[2J"), "the name, escaped: {screen:?}");
        let _ = std::fs::remove_file(hostile_target(dir.path(), name));
    }
}

/// A run whose job name and target hold the sequences, stored.
fn stored_hostile_run(dir: &Path, db: &Path) {
    let out = kura(db).arg("run").arg(toml_job(dir)).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let _ = std::fs::remove_file(hostile_target(dir, HOSTILE));
}

#[test]
fn the_html_report_shows_control_characters_escaped() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    stored_hostile_run(dir.path(), &db);
    // Written twice: the second time says it replaces the file, naming it.
    let html = dir.path().join(format!("r{HOSTILE}.html"));
    for _ in 0..2 {
        let out = kura_loud(
            &db,
            &[
                "report".as_ref(),
                "latest".as_ref(),
                "-o".as_ref(),
                html.as_os_str(),
            ],
        );
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_no_raw_controls("report's stderr", &out.stderr);
        assert!(stderr_of(&out).contains(SHOWN), "{}", stderr_of(&out));
    }
    let page = std::fs::read(&html).unwrap();
    assert_no_raw_controls("the report", &page);
    assert!(String::from_utf8_lossy(&page).contains(SHOWN));
}

#[test]
fn the_web_ui_shows_control_characters_escaped() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    stored_hostile_run(dir.path(), &db);
    let server = support::Server::start(&db, &[]);
    for path in ["/", "/run/1"] {
        let reply = support::get(server.addr, path);
        assert_eq!(reply.status, 200, "{path}");
        assert_no_raw_controls(path, reply.body.as_bytes());
    }
    assert!(support::get(server.addr, "/run/1").body.contains(SHOWN));
}

/// A bidi override makes what follows it read backwards (`disk\u{202e}3 DSS`
/// shows as `diskSSD 3`): refused as a label wherever one is given.
#[test]
fn labels_with_bidi_overrides_are_refused() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let label = "disk\u{202e}3 DSS";
    let refused = |out: Output| {
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(err.contains("bidi"), "{err}");
        assert!(!err.contains('\u{202e}'), "{err}");
    };
    let null_run = |extra: &[&str]| {
        kura(&db)
            .args(["run", "--engine", "null", "--io-count", "10", "--target"])
            .arg(dir.path().join("t.dat"))
            .args(extra)
            .output()
            .unwrap()
    };
    refused(null_run(&["--label", label]));
    let job = dir.path().join("l.toml");
    std::fs::write(
        &job,
        format!(
            "[[job]]\nname = \"a\"\nengine = \"null\"\nio_count = 10\ntarget = {}\nlabel = {}\n",
            serde_json::to_string(&dir.path().join("t.dat")).unwrap(),
            serde_json::to_string(label).unwrap()
        ),
    )
    .unwrap();
    refused(kura(&db).arg("run").arg(&job).output().unwrap());
    assert!(!db.exists(), "nothing stored");
    let out = null_run(&[]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    refused(kura(&db).args(["label", "latest", label]).output().unwrap());
}
