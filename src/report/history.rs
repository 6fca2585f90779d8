//! `kura history`: one line per stored run, with the figure that represents
//! the run and what that figure is.

use super::escape::{SHOWN_CHARS, term, term_cut};
use super::format::{mb_per_sec, rate, utc};
use super::run_table::new_table;
use crate::store::{RunSummary, Store};

/// Replaces each summary's first-job figure with the one that represents
/// its run (`figure::of_run`, the figure `show` gives). A run that cannot
/// be read keeps the first job's figure: one bad row must not hide the
/// other runs.
pub fn represent(store: &Store, runs: &mut [RunSummary]) {
    for r in runs.iter_mut().filter(|r| r.unreadable.is_none()) {
        let Ok(run) = store.load(r.id) else {
            continue;
        };
        if let Some(f) = super::figure::of_run(&run) {
            (r.figure, r.figure_short) = (f.of, f.short);
            (r.iops, r.bytes_per_sec) = (f.iops, f.bytes_per_sec);
        }
    }
}

/// What `history` says when its filter matched nothing: the filter, and
/// what is stored (runs per suite), so an empty answer is not read as an empty store.
pub fn nothing_matched(label: Option<&str>, suite: Option<&str>, stored: &[(Option<String>, u64)]) -> String {
    let mut filter = Vec::new();
    if let Some(l) = label {
        filter.push(format!("--label \"{}\"", term(l)));
    }
    if let Some(s) = suite {
        filter.push(format!("--suite {}", term(s)));
    }
    let total: u64 = stored.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return format!("{}\n", crate::t!("history-none-stored"));
    }
    let suites: Vec<String> = stored
        .iter()
        .map(|(s, n)| format!("{} ({n})", term(s.as_deref().unwrap_or("run"))))
        .collect();
    super::width::wrap(
        "",
        &crate::t!(
            "history-none-matched",
            filter = filter.join(" "),
            total = total,
            suites = suites.join(", ")
        ),
        2,
    )
}

/// A run's MB/s, or "-" for one that moved no bytes but did operations
/// (a database's queries): "0.000" would read as a device that stalled.
pub fn mb_per_sec_or_none(r: &RunSummary) -> String {
    if r.bytes_per_sec == 0.0 && r.iops > 0.0 {
        "-".to_string()
    } else {
        mb_per_sec(r.bytes_per_sec)
    }
}

pub fn render(runs: &[RunSummary]) -> String {
    if runs.is_empty() {
        return format!("{}\n", crate::t!("history-none-stored"));
    }
    let wide = super::width::wide();
    // At 80 columns: what tells runs apart and their figure; the target and
    // workload with --wide (and in `kura show`). A label column only when a run has one.
    let labels = wide || runs.iter().any(|r| r.label.is_some());
    // Runs of one year need not say it on every line: the heading says it.
    let year = |r: &RunSummary| utc(r.started_unix_s).get(..4).map(str::to_string);
    let one_year = match runs.iter().map(year).collect::<Vec<_>>().as_slice() {
        [first, rest @ ..] if !wide && first.is_some() && rest.iter().all(|y| y == first) => first.clone(),
        _ => None,
    };
    let date_heading = match &one_year {
        Some(y) => format!("{y} (UTC)"),
        None => "date (UTC)".to_string(),
    };
    let mut header = vec!["id", date_heading.as_str(), "suite"];
    if labels {
        header.push("label");
    }
    if wide {
        header.extend(["target", "workload"]);
    }
    header.extend(["MB/s", "IOPS", "figure"]);
    let mut t = new_table(&header);
    let figure_col = header.len() - 1;
    // Words read from the left; numbers line up on the right.
    let words = header.len() - 3;
    for i in (1..words).chain([figure_col]) {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(comfy_table::CellAlignment::Left);
        }
    }
    for r in runs {
        let date = utc(r.started_unix_s);
        // A run stopped early is starred, and the line under the table says why.
        let starred = !wide && r.incomplete && r.unreadable.is_none();
        let mut row = vec![
            if starred {
                format!("{}*", r.id)
            } else {
                r.id.to_string()
            },
            // Minutes tell runs apart; the seconds and the zone are in the header and in `show`.
            date.get(if one_year.is_some() { 5..16 } else { 0..16 })
                .unwrap_or(&date)
                .to_string(),
            term_cut(r.suite.as_deref().unwrap_or("run"), SHOWN_CHARS).into_owned(),
        ];
        if labels {
            row.push(term_cut(r.label.as_deref().unwrap_or_default(), SHOWN_CHARS).into_owned());
        }
        if wide {
            row.push(term_cut(&r.target, SHOWN_CHARS).into_owned());
            row.push(if r.jobs > 1 {
                format!("{} (+{} jobs)", term_cut(&r.workload, SHOWN_CHARS), r.jobs - 1)
            } else {
                term_cut(&r.workload, SHOWN_CHARS).into_owned()
            });
        }
        let figure = match &r.unreadable {
            Some(why) => crate::t!("history-unreadable", why = term(why).into_owned()),
            // The whole sentence, as `show` and JSON have it.
            None if wide && r.incomplete => format!(
                "{}{}",
                term_cut(&r.figure, SHOWN_CHARS),
                crate::t!("history-incomplete")
            ),
            None if wide => term_cut(&r.figure, SHOWN_CHARS).into_owned(),
            None => term_cut(&r.figure_short, SHOWN_CHARS).into_owned(),
        };
        row.extend([mb_per_sec_or_none(r), rate(r.iops), figure]);
        t.add_row(row);
    }
    // The figure, the suite and a label are cut (with "…") rather than
    // wrapped; room goes back to them in that order: the figure says what
    // the numbers on its line are.
    let mut cut = vec![figure_col, 2];
    if labels {
        cut.push(3);
    }
    let mut out = format!(
        "{}\n",
        super::fit::render_with(&t, &super::fit::Fit::new().cut(&cut).drop_first(&[]))
    );
    if !wide && runs.iter().any(|r| r.incomplete && r.unreadable.is_none()) {
        out.push_str(&super::width::wrap("", &crate::t!("history-incomplete-star"), 2));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: i64, suite: &str, figure: &str, short: &str) -> RunSummary {
        RunSummary {
            id,
            started_unix_s: 1_795_316_411 + id,
            label: None,
            price: None,
            suite: Some(suite.into()),
            hostname: "vm".into(),
            incomplete: id % 7 == 0,
            jobs: 4,
            target: "/mnt/a/rather/long/path/to/kura-test.dat".into(),
            workload: "randrw 4k qd32 x4".into(),
            iops: 123_456.0 * id as f64,
            bytes_per_sec: 1.5e9,
            unreadable: None,
            figure: figure.into(),
            figure_short: short.into(),
        }
    }

    /// 50 runs printed 367 lines, the figure wrapped in a column
    /// five characters wide. One line a run, at 80 columns, whatever the kind.
    #[test]
    fn fifty_runs_are_fifty_lines() {
        let kinds = [
            (
                "tiobench",
                "Sequential Read, one run (Sequential Write 106 MB/s)",
                "seq read",
            ),
            ("mark:default", "SEQ1M Q8T1 read, best of 5", "SEQ1M Q8T1 read"),
            (
                "bonnie",
                "block read, one run (block write 289 MB/s)",
                "block read",
            ),
            ("sweep", "bs=4k mix=100/0 read, best of 3", "bs=4k mix=100/0 read"),
            ("io500", "ior-easy-write write, one run", "ior-easy-write"),
            ("db", "connect all operations, one run", "connect all ops"),
        ];
        let mut runs: Vec<RunSummary> = (1..=50)
            .map(|id| {
                let (suite, figure, short) = kinds[id as usize % kinds.len()];
                summary(id, suite, figure, short)
            })
            .collect();
        for labelled in [false, true] {
            if labelled {
                runs[3].label = Some("a label long enough to be cut at 80 columns".into());
            }
            let text = render(&runs);
            let lines: Vec<&str> = text.lines().collect();
            assert!(
                lines.iter().all(|l| super::super::width::display_width(l) <= 80),
                "{text}"
            );
            let rows = lines
                .iter()
                .filter(|l| {
                    l.split_whitespace()
                        .next()
                        .is_some_and(|w| w.trim_end_matches('*').parse::<i64>().is_ok())
                })
                .count();
            assert_eq!(rows, 50, "{text}");
            assert!(lines.len() <= 50 + 6, "{} lines:\n{text}", lines.len());
            assert!(
                text.contains(" seq read ") && text.contains(" SEQ1M Q8T1 read "),
                "{text}"
            );
            // Runs of one year: the year is said once, in the heading.
            assert!(
                lines[1].contains(" 2026 (UTC) ") && !lines[3].contains("2026-"),
                "{text}"
            );
            assert!(text.contains(" 7* ") && text.contains("*: INCOMPLETE"), "{text}");
        }
    }

    /// The figure says what the numbers on its line are: it keeps its few
    /// words before a long suite name or a label does (a profile's suite
    /// name, a label, a rate of the page cache).
    #[test]
    fn the_figure_gets_its_room_first() {
        let mut runs: Vec<RunSummary> = (1..=3)
            .map(|id| {
                let mut r = summary(
                    id,
                    "mark:peak-mix-nvme",
                    "SEQ1M Q8T1 read, one run",
                    "SEQ1M Q8T1 read",
                );
                (r.iops, r.bytes_per_sec) = (806_350.0, 3.3e9);
                r
            })
            .collect();
        runs[1].figure_short = "bs=4k mix=100/0 read".into();
        // A database's queries move no bytes.
        runs[0].bytes_per_sec = 0.0;
        runs[2].label = Some("a long label for a run to see how it is cut".into());
        let text = render(&runs);
        assert!(
            text.lines().all(|l| super::super::width::display_width(l) <= 80),
            "{text}"
        );
        assert!(text.contains(" SEQ1M Q8T1 read "), "{text}");
        assert!(text.contains(" bs=4k mix=100/0 read "), "{text}");
        assert!(text.contains(" mark:"), "{text}");
        assert!(
            text.contains("   -   806350 ") && !text.contains("0.000"),
            "{text}"
        );
    }
}
