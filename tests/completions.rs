//! `kura completions SHELL` and `kura man`: generated from the clap
//! definitions, they run and name every verb.

mod common;

use clap::CommandFactory;
use common::kura;

fn stdout(args: &[&str]) -> String {
    let dir = common::tmp();
    let out = kura(&dir.path().join("k.db")).args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

fn verbs() -> Vec<String> {
    kura::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|v| v != "help")
        .collect()
}

#[test]
fn completions_name_every_verb_and_parse_in_their_shell() {
    assert!(verbs().len() >= 14, "{:?}", verbs());
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&["completions", shell]);
        for verb in verbs() {
            assert!(script.contains(&verb), "{shell} completion lacks {verb}");
        }
        // Options of a verb come from the option table: --qd of run.
        assert!(script.contains("qd"), "{shell}: no --qd");
        // The shell itself reads the script without a syntax error, where it is installed.
        if common::have_quietly(shell) {
            let file = common::tmp();
            let path = file.path().join("kura.completion");
            std::fs::write(&path, &script).unwrap();
            let status = std::process::Command::new(shell)
                .arg("-n")
                .arg(&path)
                .status()
                .unwrap();
            assert!(status.success(), "{shell} -n rejects the script");
        }
    }
    let dir = common::tmp();
    kura(&dir.path().join("k.db"))
        .args(["completions", "tcsh"])
        .assert()
        .code(2);
}

#[test]
fn the_man_page_lists_every_verb_and_each_verb_has_its_own() {
    let page = stdout(&["man"]);
    assert!(page.starts_with(".ie") || page.contains(".TH kura 1"), "{page}");
    for verb in verbs() {
        assert!(page.contains(&format!("kura\\-{verb}")), "man page lacks {verb}");
        let own = stdout(&["man", &verb]);
        assert!(own.contains(&format!(".TH kura-{verb} 1")), "{verb}: {own}");
    }
    assert!(stdout(&["man", "run"]).contains("\\-\\-qd"));
    assert!(stdout(&["man", "suite", "bonnie"]).contains(".TH kura-suite-bonnie 1"));
    let dir = common::tmp();
    let out = kura(&dir.path().join("k.db"))
        .args(["man", "bogus"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("'bogus' is not a verb"));
}

/// A script that asks `completions` or `man` for JSON is refused in one
/// line (exit 2) rather than handed a shell script or roff to parse.
#[test]
fn completions_and_man_refuse_json_in_one_line() {
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    for (args, prints) in [
        (&["--json", "completions", "bash"][..], "a shell script"),
        (&["completions", "zsh", "--json"][..], "a shell script"),
        (&["--json", "man"][..], "a roff page"),
        (&["--json", "man", "run"][..], "a roff page"),
    ] {
        let out = kura(&db).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("{prints}, not JSON")), "{err}");
        assert!(err.trim_end().chars().count() <= 80, "{err}");
    }
    assert!(!db.exists());
}
