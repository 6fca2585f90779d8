//! The progress display on a real terminal (a pty from `script`): a job's
//! line ends with the job's result, the figure the stored run holds.

mod common;

use common::{json, kura};

#[test]
fn a_finished_job_shows_its_result_not_the_tail_period() {
    if !common::have("script") {
        return;
    }
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let target = dir.path().join("t.dat");
    // 1.3 s at a 1 s interval leaves a 0.3 s tail period, which the last frame used to show.
    let command = format!(
        "{} run --target {} --size 8m --rw randread --runtime 1300ms",
        common::cmd::line_loud(&db),
        target.display()
    );
    let screen = common::on_terminal(&command, &[]);
    let line = screen
        .split(['\r', '\n'])
        .rfind(|l| l.contains("done:"))
        .unwrap_or_else(|| panic!("no final progress line in {screen:?}"));
    let shown: f64 = line
        .split("done: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no IOPS in {line:?}"));
    assert!(line.contains("the job's result"), "{line}");
    let v = json(
        &kura(&db)
            .args(["--json", "show", "latest"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let stored = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert_eq!(shown, stored.round(), "{line}");
}

/// A suite's progress says the step of the run and the time left for all of
/// it, and a new test file's pre-fill shows its share done and its rate.
#[test]
fn mark_progress_shows_the_step_the_time_left_and_the_prefill() {
    if !common::have("script") {
        return;
    }
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let command = format!(
        "{} mark {} --profile demo --runs 2 --runtime 300ms --interval 0s --size 32m",
        common::cmd::line_loud(&db),
        dir.path().display()
    );
    let screen = common::on_terminal(&command, &[("COLUMNS", "100")]);
    for step in [
        "[1/4] SEQ1M Q8T1 read #1",
        "[2/4]",
        "[3/4]",
        "[4/4] SEQ1M Q8T1 write #2",
    ] {
        assert!(screen.contains(step), "{step} in {screen:?}");
    }
    assert!(screen.contains(" left"), "time left in {screen:?}");
    let fill = screen
        .split(['\r', '\n'])
        .rfind(|l| l.contains("writing kura-test.dat"))
        .unwrap_or_else(|| panic!("no pre-fill line in {screen:?}"));
    assert!(fill.contains("100%") && fill.contains("/s"), "{fill}");
}

/// On an 80-column terminal every progress line fits: the pre-fill bar and a
/// job's bar shrink to what the line leaves, and a finished job's line is
/// short enough after the longest CrystalDiskMark step name.
#[test]
fn progress_lines_fit_an_80_column_terminal() {
    if !common::have("script") || !common::have("stty") {
        return;
    }
    let dir = common::tmp();
    let db = dir.path().join("k.db");
    let command = format!(
        "stty cols 80 rows 24; {} mark {} --setting nvme --runs 1 --runtime 1200ms --interval 0s --size 32m",
        common::cmd::line_loud(&db),
        dir.path().display()
    );
    let screen = common::on_terminal(&command, &[]);
    // Lines as the terminal shows them: split at line moves, colours dropped.
    let mut plain = String::new();
    let mut chars = screen.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ params final-letter; a cursor move ends a line.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            plain.push('\n');
        } else {
            plain.push(c);
        }
    }
    // A step's line ("[3/8] ...") starts a line of its own, also right after
    // a previous line that filled all 80 columns (the terminal wraps there).
    let plain = split_at_steps(&plain);
    let mut over = Vec::new();
    for line in plain.split(['\r', '\n']) {
        // indicatif pads a line to the width; what follows the padding is the next line.
        let mut rest = line;
        while kura::report::width::display_width(rest) > 80 {
            let cut: usize = rest.char_indices().nth(80).map(|(i, _)| i).unwrap_or(rest.len());
            if rest[..cut].ends_with(' ') {
                rest = &rest[cut..];
            } else {
                over.push(rest.to_string());
                break;
            }
        }
    }
    assert!(screen.contains("RND4K Q32T16"), "the longest test name ran");
    assert!(screen.contains("writing kura-test.dat"), "the pre-fill showed");
    assert!(over.is_empty(), "progress lines over 80 columns: {over:#?}");
}

/// `text` with a newline before every `[N/M] ` step prefix.
fn split_at_steps(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '[' {
            let tail = &text[i + 1..];
            let digits = |s: &str| s.chars().take_while(char::is_ascii_digit).count();
            let a = digits(tail);
            if a > 0 && tail[a..].starts_with('/') {
                let b = digits(&tail[a + 1..]);
                if b > 0 && tail[a + 1 + b..].starts_with("] ") {
                    out.push('\n');
                }
            }
        }
        out.push(c);
    }
    out
}
