//! The kura binary as a test starts it where `kura(db)` does not fit: no
//! database, no `--quiet`, a child to signal or wrap, a shell command line.
//! One place names the binary, so every test runs the same one.

use std::path::{Path, PathBuf};

/// The kura binary cargo built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kura"))
}

/// kura with no arguments: the test says everything, the database included.
pub fn kura_plain() -> assert_cmd::Command {
    assert_cmd::Command::from_std(child_plain())
}

/// kura on `db` without `--quiet`, so every line it prints as it runs is seen.
pub fn kura_loud(db: &Path) -> assert_cmd::Command {
    assert_cmd::Command::from_std(child_loud(db))
}

/// `kura(db)` as a std Command: for a child to spawn, signal, or hand to
/// another program (`prlimit`, `strace`, `mpirun`).
pub fn child(db: &Path) -> std::process::Command {
    let mut cmd = child_loud(db);
    cmd.arg("--quiet");
    cmd
}

/// kura on `db` without `--quiet`, as a std Command.
pub fn child_loud(db: &Path) -> std::process::Command {
    let mut cmd = child_plain();
    cmd.arg("--db").arg(db);
    cmd
}

/// kura with no arguments, as a std Command.
pub fn child_plain() -> std::process::Command {
    std::process::Command::new(bin())
}

/// `kura(db)` as the start of a `sh -c` line (`exec {line} run ...`), for a
/// test that moves the shell into a cgroup or onto a terminal first.
pub fn line(db: &Path) -> String {
    format!("{} --quiet", line_loud(db))
}

/// kura on `db` without `--quiet`, as the start of a `sh -c` line.
pub fn line_loud(db: &Path) -> String {
    format!("{} --db {}", quoted(&bin()), quoted(db))
}

/// `path` single-quoted for sh.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
