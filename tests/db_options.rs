//! `kura suite db`'s parameters are entries of the option table
//! (`Scope::Database`), read through it onto the suite's database job: a
//! bad value is one line naming the flag, exit 2, nothing made; a value
//! given is the stored job's; `--help` lists each with its line; `compare`
//! names the table's settings the runs differ in. SQLite only: nothing to
//! install.

mod common;

use common::{json, kura, tmp};

#[test]
fn a_bad_value_is_one_line_naming_the_flag_and_makes_nothing() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let cases: [(&[&str], &str); 6] = [
        (
            &["--scale", "2"],
            "--scale: '2' is not valid: must be between 0.001 and 1",
        ),
        (
            &["--synchronous", "maybe"],
            "--synchronous: 'maybe' is not valid: expected off, normal, full or extra",
        ),
        (
            &["--table-size", "0"],
            "--table-size: '0' is not valid: must be between 1 and 1000000000",
        ),
        (
            &["--tables", "x"],
            "--tables: 'x' is not valid: expected a whole number",
        ),
        // The flag's old name is read, and the table's name is given.
        (&["--journal", "memory"], "--journal-mode: 'memory' is not valid"),
        // Checked against the server once both are read, whatever their order.
        (
            &["--server-sync", "on", "--server", "mariadb"],
            "--server-sync: 'on' is not valid for mariadb: expected 0, 1, 2",
        ),
    ];
    for (args, says) in cases {
        let out = kura(&db)
            .args(["suite", "db"])
            .arg(dir.path())
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!dir.path().join("kura-db").exists());
}

#[test]
fn help_lists_every_parameter_with_its_line_and_default() {
    let dir = tmp();
    let out = kura(&dir.path().join("k.db"))
        .args(["suite", "db", "--help"])
        .assert()
        .success()
        .get_output()
        .clone();
    let help = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "--scale <SCALE> Fraction of sql-bench's loop and row counts, 0.001 to 1 [default: 0.01]",
        "--synchronous <MODE> SQLite's PRAGMA synchronous: off, normal, full or extra [default: full]",
        "--journal-mode <MODE> SQLite's journal mode: delete (rollback journal) or wal [default: delete] [alias: --journal]",
        "--tables <N> OLTP mix: tables (sysbench --tables) [default: 1]",
        "--table-size <ROWS> OLTP mix: rows per table (sysbench --table-size) [default: 10000]",
        "--server <SERVER> sqlite (embedded), or a server kura starts",
        "--server-sync <MODE> A server's commit durability",
        "--tests <TESTS> Tests to run",
    ] {
        assert!(help.contains(want), "{want:?} not in {help}");
    }
    // Not flags of `kura run`: only the suite makes database jobs.
    kura(&dir.path().join("k.db"))
        .args(["run", "--table-size", "10"])
        .assert()
        .code(2);
}

/// The OLTP mix for a second on SQLite, with `args`; the run as JSON.
fn oltp(dir: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = kura(&dir.join("k.db"))
        .args(["--json", "suite", "db"])
        .arg(dir)
        .args(["--tests", "oltp", "--time", "1s"])
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    json(&out.stdout)
}

#[test]
fn values_given_to_the_suite_are_the_stored_jobs_and_compare_names_them() {
    let dir = tmp();
    let first = oltp(
        dir.path(),
        &["--table-size", "300", "--tables", "2", "--journal", "wal"],
    );
    let second = oltp(dir.path(), &["--table-size", "700", "--synchronous", "normal"]);
    let db = dir.path().join("k.db");
    for (run, size, tables, journal, sync) in [
        (&first, 300, 2, "wal", "full"),
        (&second, 700, 1, "delete", "normal"),
    ] {
        let id = run["id"].as_i64().unwrap().to_string();
        let out = kura(&db)
            .args(["--json", "show", &id])
            .assert()
            .success()
            .get_output()
            .clone();
        let stored = json(&out.stdout);
        let p = &stored["jobs"][0]["job"]["workload"]["database"];
        assert_eq!(p["test"], "oltp_read_write", "{stored}");
        assert_eq!(p["oltp_table_size"], size, "{p}");
        assert_eq!(p["oltp_tables"], tables, "{p}");
        assert_eq!(p["journal"], journal, "{p}");
        assert_eq!(p["synchronous"], sync, "{p}");
        // The flags not given keep the suite's defaults.
        assert_eq!(
            (p["server"].as_str(), p["scale_permille"].as_u64()),
            (Some("sqlite"), Some(10))
        );
    }
    let out = kura(&db)
        .args(["compare", "1", "2"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    for note in [
        "note: the runs differ in synchronous (full, normal)",
        "note: the runs differ in journal (wal, delete)",
        "note: the runs differ in tables (2, 1)",
        "note: the runs differ in table size (300, 700)",
    ] {
        assert!(text.contains(note), "{note:?} not in {text}");
    }
    assert!(!text.contains("differ in scale"), "{text}");
    assert!(!dir.path().join("kura-db").exists());
}
