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

/// What bash offers after `kura ARGS... CUR`: the script sourced, its
/// function called as bash calls it, run in `dir`.
fn bash_offers(script: &std::path::Path, dir: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=(kura {})\nCOMP_CWORD=${{#COMP_WORDS[@]}}\nCOMP_CWORD=$((COMP_CWORD-1))\n\
         _kura kura \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(program)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.trim().to_string())
        .collect();
    offered.sort();
    offered
}

/// kura parses its word options itself (its own messages, tests/cli.rs),
/// yet bash offers their words, not the file names in the directory.
#[test]
fn bash_offers_the_words_of_word_options_and_files_only_for_paths() {
    if !common::have_quietly("bash") {
        common::missing("bash");
        return;
    }
    let dir = common::tmp();
    let d = dir.path();
    let script = d.join("kura.bash");
    std::fs::write(&script, stdout(&["completions", "bash"])).unwrap();
    std::fs::write(d.join("afile"), "").unwrap();
    let offers = |w: &[&str]| bash_offers(&script, d, w);
    assert_eq!(offers(&["mark", "--unit", ""]), ["gbps", "iops", "mbps", "us"]);
    assert_eq!(
        offers(&["mark", "--profile", "pe"]),
        ["peak", "peak-mix", "peak-nvme"]
    );
    assert_eq!(offers(&["mark", "--setting", ""]), ["flash", "nvme", "standard"]);
    assert_eq!(offers(&["show", "1", "--figure", ""]), ["best", "mean"]);
    assert_eq!(offers(&["run", "--rw", "randt"]), ["randtrim", "randtrimwrite"]);
    assert_eq!(
        offers(&["sweep", "--engine", ""]),
        ["auto", "io_uring", "null", "sync"]
    );
    assert_eq!(offers(&["run", "--format", "fio-"]), ["fio-json", "fio-json+"]);
    assert_eq!(offers(&["suite", "db", "--journal", ""]), ["delete", "wal"]);
    assert_eq!(offers(&["--lang", ""]), ["en", "ja"]);
    // A number, size or duration: no file names.
    for w in [
        &["run", "--qd", ""][..],
        &["mark", "--size", ""],
        &["run", "--runtime", ""],
    ] {
        assert!(
            !offers(w).contains(&"afile".to_string()),
            "{w:?}: {:?}",
            offers(w)
        );
    }
    // A path still completes as one.
    assert_eq!(offers(&["run", "--target", "af"]), ["afile"]);
    assert_eq!(offers(&["report", "--output", "af"]), ["afile"]);
}

/// Completion does not change what kura accepts: a wrong word still gets
/// kura's own one-line message, not clap's list.
#[test]
fn word_options_keep_kuras_own_messages() {
    let dir = common::tmp();
    let out = kura(&dir.path().join("k.db"))
        .args(["mark", "--unit", "furlongs", "--engine", "null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("possible values"), "{err}");
    assert!(err.contains("furlongs"), "{err}");
}
