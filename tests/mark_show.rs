//! `kura show` of a mark run: the grid in the unit and figure `kura mark`
//! was given (`--unit`, `--figure`), the same lines the run printed.

mod common;

use common::{kura, tmp};

fn grid(text: &str) -> Vec<String> {
    // From the header row to the line saying what the grid shows.
    text.lines()
        .skip_while(|l| !l.contains(" test "))
        .take_while(|l| !l.starts_with("Shown:"))
        .filter(|l| !l.starts_with("warning:") && !l.starts_with("  "))
        .map(str::to_string)
        .collect()
}

#[test]
fn show_prints_a_mark_grid_in_the_unit_and_figure_it_was_run_with() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let args = ["--unit", "iops", "--figure", "mean"];
    let ran = kura(&db)
        .current_dir(dir.path())
        .args(["mark", "--engine", "null", "--size", "4m", "--runs", "2"])
        .args(["--runtime", "50ms", "--interval", "0s"])
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let ran = String::from_utf8_lossy(&ran).into_owned();
    assert!(
        ran.contains("Read IOPS") && ran.contains("Shown: the mean of 2 passes"),
        "{ran}"
    );
    let shown = kura(&db).args(["show", "1"]).args(args).assert().success();
    let shown = String::from_utf8_lossy(&shown.get_output().stdout).into_owned();
    assert_eq!(grid(&shown), grid(&ran), "show:\n{shown}\nmark:\n{ran}");
    assert!(shown.contains("Shown: the mean of 2 passes"), "{shown}");
    // Without them: CrystalDiskMark's figure, in MB/s.
    let plain = kura(&db).args(["show", "1"]).assert().success();
    let plain = String::from_utf8_lossy(&plain.get_output().stdout).into_owned();
    assert!(
        plain.contains("Read MB/s") && plain.contains("Shown: the best of 2 passes"),
        "{plain}"
    );
    // A bad value is one line naming the flag, exit 2.
    kura(&db)
        .args(["show", "1", "--figure", "median"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--figure: 'median'"));
}
