//! `--lang ja` and the locale: the terminal tables, warnings, guidance and
//! the HTML report in Japanese from the catalogue (i18n/), English by
//! default, and JSON in English whatever the language.

mod common;
#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use common::tmp;

/// kura with a clean locale (nothing of the caller's), plus `env`.
fn kura(db: &Path, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut cmd = common::kura(db);
    cmd.env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("COLUMNS", "80")
        .current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kura {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const MARK: &[&str] = &[
    "mark",
    "t.dat",
    "--size",
    "4m",
    "--runs",
    "1",
    "--runtime",
    "100ms",
    "--interval",
    "0s",
];

fn has_japanese(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c) || ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn mark_grid_and_its_notes_in_japanese_with_units_kept() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    let ja = kura(&db, d, &[], &[&["--lang", "ja"], MARK].concat());
    for word in [
        "テスト",
        "読み込み MB/s",
        "書き込み MB/s",
        "表示:",
        "1 回の測定の最高値",
        "CrystalDiskMark と意図して違う点",
        "SEQ1M Q8T1",
        "RND4K Q1T1",
    ] {
        assert!(ja.contains(word), "{word} missing:\n{ja}");
    }
    // Nothing of the English grid, captions or notes is left.
    for english in [
        "Read",
        "Write",
        "Shown:",
        "passes",
        "Differs from",
        "Every pass",
        "half the passes' range",
        " test ",
    ] {
        assert!(!ja.contains(english), "{english} left in:\n{ja}");
    }
    // English is the default, and what --lang en gives under a Japanese locale.
    let en = kura(&db, d, &[], MARK);
    assert!(
        en.contains("Read MB/s") && en.contains("Shown: the best of one pass"),
        "{en}"
    );
    assert!(!has_japanese(&en), "{en}");
    let en = kura(
        &db,
        d,
        &[("LANG", "ja_JP.UTF-8")],
        &[&["--lang", "en"], MARK].concat(),
    );
    assert!(!has_japanese(&en), "{en}");
}

#[test]
fn the_locale_picks_japanese_as_posix_ranks_its_variables() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    let run = kura(&db, d, &[("LANG", "ja_JP.UTF-8")], MARK);
    assert!(run.contains("読み込み"), "{run}");
    let show = |env: &[(&str, &str)]| kura(&db, d, env, &["show", "1"]);
    assert!(show(&[("LC_MESSAGES", "ja_JP.UTF-8")]).contains("読み込み"));
    // LC_ALL overrides LANG; an empty variable does not count.
    assert!(!has_japanese(&show(&[
        ("LANG", "ja_JP.UTF-8"),
        ("LC_ALL", "C.UTF-8")
    ])));
    assert!(show(&[("LANG", "ja_JP.UTF-8"), ("LC_ALL", "")]).contains("読み込み"));
    assert!(!has_japanese(&show(&[("LANG", "en_US.UTF-8")])));
}

#[test]
fn warnings_in_japanese_but_json_and_stored_text_in_english() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    // A buffered run on 4 MB: the page cache holds it all, a warning says so.
    let run = [
        "--lang",
        "ja",
        "run",
        "--target",
        "b.dat",
        "--size",
        "4m",
        "--rw",
        "randread",
        "--buffered",
        "--runtime",
        "100ms",
    ];
    let out = kura(&db, d, &[], &run);
    kura(&db, d, &[], &run);
    assert!(
        out.contains("警告: ") && out.contains("ページキャッシュ"),
        "{out}"
    );
    assert!(!out.contains("warning:") && !out.contains("page cache"), "{out}");
    assert!(out.contains("最小遅延") && out.contains("エンジン"), "{out}");
    for args in [
        &["--lang", "ja", "--json", "show", "1"][..],
        &["--lang", "ja", "show", "1", "--format", "json"][..],
        &["--lang", "ja", "history", "--json"][..],
        &["--lang", "ja", "compare", "1", "2", "--format", "json"][..],
    ] {
        let json = kura(&db, d, &[("LANG", "ja_JP.UTF-8")], args);
        assert!(!has_japanese(&json), "kura {}: {json}", args.join(" "));
        if args.contains(&"show") {
            assert!(json.contains("page cache"), "kura {}: {json}", args.join(" "));
        }
    }
}

#[test]
fn compare_guidance_and_the_html_report_in_japanese() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    let null = [
        "run",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--io-count",
        "20000",
    ];
    kura(&db, d, &[], &null);
    kura(&db, d, &[], &null);
    let cmp = kura(&db, d, &[], &["--lang", "ja", "compare", "1", "2"]);
    for word in [
        "kura compare",
        "基準",
        "対象",
        "助言（上の測定された行から）:",
        "比は",
    ] {
        assert!(cmp.contains(word), "{word} missing:\n{cmp}");
    }
    for english in [
        "Guidance",
        "baseline",
        "Ratios are",
        "higher is better",
        "target",
        "no comparable rows",
    ] {
        assert!(!cmp.contains(english), "{english} left in:\n{cmp}");
    }
    kura(&db, d, &[], &["--lang", "ja", "report", "1", "2", "-o", "r.html"]);
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains(r#"<html lang="ja">"#));
    for word in [
        "<h2>概要</h2>",
        "<h2>比較</h2>",
        "<h2>ジョブ</h2>",
        "<th>ホスト名</th>",
        "助言（測定された行から）",
        "kura 0.1.0 で",
    ] {
        assert!(html.contains(word), "{word} missing from the report");
    }
    for english in [
        "<h2>Summary</h2>",
        "<h2>Jobs</h2>",
        "<h3>Warnings</h3>",
        "No warnings.",
        "Guidance, from",
        "Made by kura",
        "Latency percentiles ·",
        "<th>hostname</th>",
    ] {
        assert!(!html.contains(english), "{english} left in the report");
    }
    // Downloads keep English column names: they are for programs.
    kura(&db, d, &[], &["report", "1", "2", "-o", "en.html"]);
    let en = std::fs::read_to_string(d.join("en.html")).unwrap();
    assert!(en.contains(r#"<html lang="en">"#) && en.contains("<h2>Summary</h2>"));
}

/// Every kind of warning (`Warning::examples`: one of each of the
/// `Warning::KINDS` kinds, and of each way a kind's text is told) has text
/// in English and in Japanese, with its facts filled in and nothing of
/// Fluent's syntax or a missing message's id left; the stored (English)
/// text is unchanged.
#[test]
fn every_warning_kind_has_text_in_both_languages() {
    use kura::metrics::Warning;
    let examples = Warning::examples();
    let mut kinds = std::collections::BTreeMap::new();
    for w in &examples {
        let n = w.number();
        assert!(n < Warning::KINDS, "{w:?} is kind {n} of {}", Warning::KINDS);
        let kind = serde_json::to_value(w).unwrap()["kind"].to_string();
        let first = kinds.entry(n).or_insert_with(|| kind.clone());
        assert_eq!(*first, kind, "two kinds numbered {n}");
    }
    let without: Vec<usize> = (0..Warning::KINDS).filter(|n| !kinds.contains_key(n)).collect();
    assert!(
        without.is_empty(),
        "no example in Warning::examples of kinds {without:?}"
    );
    let names: std::collections::BTreeSet<_> = kinds.values().collect();
    assert_eq!(names.len(), Warning::KINDS, "each number is its own kind");

    // A message no catalogue has shows as its id: a word of one of the
    // families a warning's text is made of (not `steady-`: fio's
    // "steady-state" is a word of the text).
    let id_in = |text: &str| {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .find(|word| {
                ["warning-", "change-", "pick-"]
                    .iter()
                    .any(|family| word.len() > family.len() && word.starts_with(family))
            })
            .map(String::from)
    };
    let unknown = kura::i18n::tr("warning-of-no-kind", None);
    assert_eq!(id_in(&unknown).as_deref(), Some("warning-of-no-kind"));
    // The process-wide language of this test binary; the other tests run kura itself.
    kura::i18n::set_lang(kura::i18n::Lang::Ja);
    for w in &examples {
        let ja = w.to_string();
        let en = kura::i18n::in_english(|| w.to_string());
        for text in [&ja, &en] {
            assert!(!text.trim().is_empty(), "{w:?}");
            assert!(!text.contains('{') && !text.contains('$'), "{w:?}: {text}");
            let id = id_in(text);
            assert!(id.is_none(), "{w:?}: {id:?} is in no catalogue: {text}");
        }
        // Another tool's or an older kura's text, shown as it was written.
        if matches!(w, Warning::Other { .. } | Warning::Imported { .. }) {
            assert_eq!(ja, en);
            continue;
        }
        assert!(has_japanese(&ja) && !has_japanese(&en), "{w:?}: {ja} / {en}");
        for fact in ["/p", "j:", "EPERM", "docker", "tmpfs"] {
            assert_eq!(ja.contains(fact), en.contains(fact), "{w:?}: {fact}: {ja} / {en}");
        }
    }
}

/// Lines of `text` wider than 80 columns (display width: a Japanese
/// character takes two).
fn over_80(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| kura::report::width::display_width(l) > 80)
        .map(String::from)
        .collect()
}

/// The keys of a JSON value, everywhere in it, with their paths.
fn keys(v: &serde_json::Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let p = format!("{path}.{k}");
                out.insert(p.clone());
                keys(v, &p, out);
            }
        }
        serde_json::Value::Array(a) => {
            for v in a {
                keys(v, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// tiobench's and bonnie++'s tables, explain's and the HTML report of the
/// suites in Japanese, at 80 columns; their JSON unchanged by the language.
#[test]
fn suite_tables_explain_and_their_report_in_japanese() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    let ja = |args: &[&str]| kura(&db, d, &[], &[&["--lang", "ja"][..], args].concat());
    let tio = ja(&[
        "suite",
        "tiobench",
        ".",
        "--file-size",
        "1m",
        "--random-ops",
        "100",
        "--threads",
        "2",
        "--runs",
        "2",
    ]);
    for word in [
        "テスト",
        "シーケンシャル",
        "ランダム",
        "書き込み",
        "読み込み",
        "平均ms",
        "各テストを 2 回実行した",
        "tiotest と意図して違う点",
        "スレッド × 1.0 MiB のファイル",
        "MiB/s",
    ] {
        assert!(tio.contains(word), "{word} missing:\n{tio}");
    }
    for english in [
        "Sequential",
        "Random",
        "Each test ran",
        "Differs from",
        " threads x ",
    ] {
        assert!(!tio.contains(english), "{english} left in:\n{tio}");
    }
    let bon = ja(&["suite", "bonnie", ".", "--size", "4m", "--files", "1"]);
    for word in [
        "シーケンシャル出力",
        "シーケンシャル入力",
        "ランダム作成",
        "名前:サイズ等",
        "ファイル数",
        "レイテンシ",
        "/sec %CP",
        "4.0 MiB のファイル",
    ] {
        assert!(bon.contains(word), "{word} missing:\n{bon}");
    }
    for english in ["Sequential", "Latency", "Name:Size", " files "] {
        assert!(!bon.contains(english), "{english} left in:\n{bon}");
    }
    // bonnie++'s columns stay where bonnie++ puts them: each heading line
    // is as wide as the English one, and the numbers line up under them.
    let en_bon = kura(&db, d, &[], &["show", "2"]);
    let widths = |t: &str| -> Vec<usize> {
        t.lines()
            .filter(|l| l.contains("/sec %CP") || l.starts_with("kura 0"))
            .map(kura::report::width::display_width)
            .collect()
    };
    assert_eq!(widths(&bon), widths(&en_bon), "{bon}\n{en_bon}");
    std::fs::write(
        d.join("j.fio"),
        "[global]\nsize=4m\nruntime=1\n[seqread]\nrw=read\nbs=128k\niodepth=16\n\
         [randmix]\nrw=randrw\nrwmixread=70\nbs=4k\nnumjobs=2\npercentage_random=50\n",
    )
    .unwrap();
    let explain = ja(&["explain", "j.fio"]);
    for word in [
        "fio ファイル、ジョブ 2 件",
        "ジョブ",
        "スレッド",
        "オフセット",
        "停止",
        "ダイレクト",
        "いいえ",
        "対象: ",
    ] {
        assert!(explain.contains(word), "{word} missing:\n{explain}");
    }
    for english in [" job(s)", "offset", "direct", " target: ", "passes", " or "] {
        assert!(!explain.contains(english), "{english} left in:\n{explain}");
    }
    let over: Vec<String> = [&tio, &bon, &explain].iter().flat_map(|t| over_80(t)).collect();
    assert!(over.is_empty(), "over 80 columns:\n{}", over.join("\n"));
    // JSON is for programs: the same keys, and English, whatever the language.
    for args in [&["show", "1"][..], &["show", "2"], &["explain", "j.fio"]] {
        let en = kura(&db, d, &[], &[&["--json"][..], args].concat());
        let ja = kura(
            &db,
            d,
            &[("LANG", "ja_JP.UTF-8")],
            &[&["--lang", "ja", "--json"][..], args].concat(),
        );
        assert!(!has_japanese(&ja), "{args:?}: {ja}");
        let (mut ke, mut kj) = Default::default();
        keys(&serde_json::from_str(&en).unwrap(), "", &mut ke);
        keys(&serde_json::from_str(&ja).unwrap(), "", &mut kj);
        assert_eq!(ke, kj, "{args:?}");
    }
    // CSV is for programs too.
    for args in [
        &["compare", "1", "2", "--format", "csv"][..],
        &["history", "--format", "csv"],
    ] {
        let csv = ja(args);
        assert!(!has_japanese(&csv), "{args:?}: {csv}");
        assert_eq!(csv, kura(&db, d, &[], args), "{args:?}");
    }
    // The report of the suite runs, with a CrystalDiskMark run for its charts.
    kura(
        &db,
        d,
        &[],
        &[
            "mark",
            "--engine",
            "null",
            "--size",
            "4m",
            "--runs",
            "1",
            "--runtime",
            "100ms",
            "--interval",
            "0s",
        ],
    );
    ja(&["report", "1", "2", "3", "-o", "r.html"]);
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    for word in [
        "シーケンシャル出力",
        "各テストを 2 回実行した",
        "MB/s（10^6 バイト/秒）",
        "実行 1",
        "レイテンシ（対数目盛）",
        "測定開始からの時間",
    ] {
        assert!(html.contains(word), "{word} missing from the report");
    }
    for english in [
        "MB/s (10^6 bytes/s)",
        // Job names stay as stored ("Sequential Output Per Chr #1"); the table does not.
        "------Sequential Output------",
        "latency (log scale)",
        "time from start of measurement",
        ">run 1<",
    ] {
        assert!(!html.contains(english), "{english} left in the report");
    }
    if common::have("chromium") {
        let shot = support::screenshot(
            &format!("file://{}", d.join("r.html").display()),
            "report-ja-suites",
            5200,
        );
        eprintln!("screenshot: {}", shot.display());
    }
}

/// The sentences a long run's series gives (steps, drifts, spikes, rounds)
/// and a latency search's result, in Japanese with their figures, English
/// when stored.
#[test]
fn change_and_steady_sentences_in_japanese() {
    use kura::metrics::Warning;
    use kura::metrics::changes::{Drift, Figure, Spikes, Step, Unsteady};
    use kura::metrics::steady::{Rounds, Tracked, Window};
    let step = |before: f64, after: f64, to_end: bool| Step {
        figure: Figure::Iops,
        period: 41,
        at_ns: 2_470_000_000_000,
        before,
        after,
        change_pct: (after / before - 1.0) * 100.0,
        lasted_periods: 7,
        to_end,
    };
    let window = Window {
        first_round: 3,
        last_round: 7,
        average: 1234.5,
        range_pct: 4.2,
        slope_pct: 1.5,
    };
    let ws = vec![
        Warning::SeriesStep {
            job: "j".into(),
            step: step(26100.0, 4960.0, true),
            start_unix_ms: 1_700_000_000_000,
        },
        Warning::SeriesStep {
            job: "j".into(),
            step: step(1000.0, 1500.0, false),
            start_unix_ms: 0,
        },
        Warning::SeriesStep {
            job: "j".into(),
            step: Step {
                figure: Figure::MeanLatency,
                ..step(1000.0, 0.0, true)
            },
            start_unix_ms: 0,
        },
        Warning::SeriesDrift {
            job: "j".into(),
            drift: Drift {
                figure: Figure::MeanLatency,
                from: 200_000.0,
                to: 400_000.0,
                change_pct: 100.0,
                over_ns: 3_600_000_000_000,
            },
        },
        Warning::LatencySpikes {
            job: "j".into(),
            spikes: Spikes {
                factor: 5.0,
                median_p99_ns: 300_000,
                count: 3,
                periods: 600,
                first_at_ns: 60_000_000_000,
                worst_at_ns: 120_000_000_000,
                worst_p99_ns: 9_000_000,
            },
            start_unix_ms: 0,
        },
        Warning::SeriesUnsteady {
            job: "j".into(),
            unsteady: Unsteady {
                figure: Figure::Iops,
                steps: 19,
                periods: 600,
                shift_pct: 20.0,
            },
        },
        Warning::Rounds {
            job: "j".into(),
            rounds: Rounds {
                tracked: Tracked::Iops,
                values: vec![1.0; 7],
                window: Some(window.clone()),
                steady: true,
            },
        },
        Warning::Rounds {
            job: "j".into(),
            rounds: Rounds {
                tracked: Tracked::Bw,
                values: vec![1.0; 25],
                window: Some(window),
                steady: false,
            },
        },
        Warning::Rounds {
            job: "j".into(),
            rounds: Rounds {
                tracked: Tracked::Lat,
                values: vec![1.0; 2],
                window: None,
                steady: false,
            },
        },
    ];
    kura::i18n::set_lang(kura::i18n::Lang::Ja);
    for w in &ws {
        let ja = w.to_string();
        let en = kura::i18n::in_english(|| w.to_string());
        assert!(has_japanese(&ja) && !has_japanese(&en), "{w:?}: {ja} / {en}");
        assert!(!ja.contains('{') && !ja.contains('$'), "{w:?}: {ja}");
        // The figures are the same in both languages.
        let figures = |t: &str| -> Vec<String> {
            t.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
                .map(String::from)
                .collect()
        };
        let (mut fe, mut fj) = (figures(&en), figures(&ja));
        fe.sort();
        fj.sort();
        assert_eq!(fe, fj, "{w:?}: {ja} / {en}");
    }
    let ja = ws[0].to_string();
    assert!(
        ja.contains("IOPS は 00:41:10 (22:54:30 UTC) に 81 % 低下した（26.1 k から 5.0 k へ）"),
        "{ja}"
    );
    assert!(
        kura::i18n::in_english(|| ws[0].to_string())
            .contains("IOPS fell 81 % at 00:41:10 (22:54:30 UTC), from 26.1 k to 5.0 k, and stayed")
    );
}

/// bonnie++'s heading lines keep bonnie++'s columns in every language:
/// each dash-framed cell as wide as the English one.
#[test]
fn bonnie_headings_keep_their_columns_in_every_language() {
    let line = |catalogue: &str, id: &str| -> String {
        catalogue
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{id} = ")))
            .unwrap_or_else(|| panic!("{id}"))
            .to_string()
    };
    let cells = |l: &str| -> Vec<usize> { l.split(' ').map(kura::report::width::display_width).collect() };
    let en = kura::i18n::CATALOGUES[0].1;
    for (_, text) in kura::i18n::CATALOGUES {
        for id in [
            "bonnie-io-groups",
            "bonnie-io-tests",
            "bonnie-file-groups",
            "bonnie-file-tests",
        ] {
            let (e, t) = (line(en, id), line(text, id));
            assert_eq!(
                kura::report::width::display_width(&e),
                kura::report::width::display_width(&t),
                "{id}: {t}"
            );
            // Japanese cells have no spaces inside; English ones may.
            if !t.contains(|c: char| c.is_ascii_alphabetic()) {
                let mut starts = Vec::new();
                let mut at = 0;
                for w in cells(&e) {
                    starts.push(at);
                    at += w + 1;
                }
                let mut at = 0;
                for w in cells(&t) {
                    assert!(starts.contains(&at), "{id}: a cell of {t} starts at column {at}");
                    at += w + 1;
                }
            }
        }
    }
}

/// The progress display on a terminal (a pty from `script`) in Japanese:
/// preparing, the pre-fill, the rate now and each job's result.
#[test]
fn progress_in_japanese_on_a_terminal() {
    if !common::have("script") {
        return;
    }
    let dir = tmp();
    let command = format!(
        "{} --lang ja run --target {} --size 8m --rw randread --runtime 1300ms",
        common::cmd::line_loud(&dir.path().join("k.db")),
        dir.path().join("t.dat").display()
    );
    let screen = common::on_terminal(&command, &[]);
    for word in ["を準備中", "書き込み中", "現在 ", "完了: ", "（ジョブの結果）"] {
        assert!(screen.contains(word), "{word} missing: {screen:?}");
    }
    for english in [
        "preparing",
        "writing ",
        "now ",
        "done:",
        "the job's result",
        " left",
    ] {
        assert!(!screen.contains(english), "{english} left in: {screen:?}");
    }
}

/// The most common errors in Japanese: one line, exit 2; English under
/// `--json` (for programs) and by default.
#[test]
fn common_errors_in_japanese() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let failed = |args: &[&str]| -> String {
        let out = common::cmd::kura_loud(&db)
            .env_remove("LANG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "kura {}", args.join(" "));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let ja = failed(&["--lang", "ja", "history"]);
    assert!(
        ja.starts_with("kura: エラー: ") && ja.contains("データベースがない"),
        "{ja}"
    );
    let ja = failed(&[
        "--lang",
        "ja",
        "run",
        "--target",
        "/nonexistent-kura/x",
        "--size",
        "1m",
    ]);
    assert!(ja.contains("ディレクトリ /nonexistent-kura がない"), "{ja}");
    kura(
        &db,
        dir.path(),
        &[],
        &["run", "--engine", "null", "--io-count", "100"],
    );
    for args in [&["show", "99"][..], &["compare", "1"]] {
        let ja = failed(&[&["--lang", "ja"][..], args].concat());
        assert!(
            ja.starts_with("kura: エラー: ") && has_japanese(&ja["kura: エラー: ".len()..]),
            "{ja}"
        );
        let json = failed(&[&["--lang", "ja", "--json"][..], args].concat());
        assert!(
            json.starts_with("kura: error: ") && !has_japanese(&json),
            "{json}"
        );
        assert!(!has_japanese(&failed(args)));
    }
}

/// `compare`'s reasons for a row that is not comparable (the parameters
/// that differ, the null engine), its capacity scores and its Markdown in
/// Japanese, at 80 columns; CSV and JSON keep them English.
#[test]
fn compare_reasons_capacity_and_markdown_in_japanese() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    let null = [
        "run",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--io-count",
        "20000",
    ];
    kura(&db, d, &[], &null);
    kura(&db, d, &[], &[&null[..], &["--qd", "4"]].concat());
    kura(
        &db,
        d,
        &[],
        &[
            "run",
            "--target",
            "t.dat",
            "--size",
            "1m",
            "--rw",
            "randread",
            "--runtime",
            "100ms",
        ],
    );
    let ja = |args: &[&str]| kura(&db, d, &[], &[&["--lang", "ja"][..], args].concat());
    let table = ja(&["compare", "1", "2", "3"]);
    let md = ja(&["compare", "1", "2", "3", "--format", "markdown"]);
    // Markdown does not wrap: the reasons are whole there.
    for word in [
        "比較できない",
        "キュー深度 1 対 4",
        "テストサイズ",
        "null エンジン（I/O なし） 対 実際の I/O",
    ] {
        assert!(md.contains(word), "{word} missing:\n{md}");
    }
    assert!(table.contains("キュー深度"), "{table}");
    for english in [
        "queue depth",
        " vs ",
        "real I/O",
        "no I/O)",
        "test size",
        "not comparable",
        "Guidance",
        "**warning**",
    ] {
        assert!(!table.contains(english), "{english} left in:\n{table}");
        assert!(!md.contains(english), "{english} left in:\n{md}");
    }
    assert!(md.contains("### 助言") && md.contains("- **警告**: "), "{md}");
    // Rows by block size and by mix: their section headings and labels.
    let bs = ja(&["compare", "1", "2", "--by", "bs"]);
    let mix = ja(&["compare", "1", "2", "--by", "mix"]);
    assert!(bs.contains("ランダム、読み込み、qd1 x1"), "{bs}");
    assert!(
        mix.contains("ランダム 4k、qd1 x1") && mix.contains(" 読み込み "),
        "{mix}"
    );
    for english in ["random", "read", "write"] {
        assert!(
            !bs.contains(english) && !mix.contains(english),
            "{english}:\n{bs}\n{mix}"
        );
    }
    assert!(
        kura(&db, d, &[], &["compare", "1", "2", "--by", "bs"]).contains("random, read, qd1 x1"),
        "English as before"
    );
    // Latency-bounded capacity: a score whose bound differs says why.
    for (label, stat) in [("a", "mean"), ("b", "p99")] {
        kura(
            &db,
            d,
            &[],
            &[
                "run",
                "--engine",
                "null",
                "--runtime",
                "200ms",
                "--latency-limit",
                "1s",
                "--latency-stat",
                stat,
                "--label",
                label,
            ],
        );
    }
    let cap = ja(&["compare", "a", "b"]);
    for word in [
        "レイテンシ上限内の性能",
        "a（基準）",
        "スコア",
        "相対",
        "注記",
        "スコア: 上限を保てた",
    ] {
        assert!(cap.contains(word), "{word} missing:\n{cap}");
    }
    for english in ["Latency-bounded", "baseline", "score", "relative", "Score:"] {
        assert!(!cap.contains(english), "{english} left in:\n{cap}");
    }
    let over: Vec<String> = [&table, &cap].iter().flat_map(|t| over_80(t)).collect();
    assert!(over.is_empty(), "over 80 columns:\n{}", over.join("\n"));
    // For programs: English, as without --lang.
    for args in [
        &["compare", "1", "2", "3", "--format", "csv"][..],
        &["compare", "a", "b", "--format", "csv"],
    ] {
        let csv = ja(args);
        assert!(
            !has_japanese(&csv) && csv.contains("queue depth 1 vs 4") == (args[1] == "1"),
            "{csv}"
        );
        assert_eq!(csv, kura(&db, d, &[], args));
    }
    // history: when nothing matches, in Japanese; its Markdown has no unnamed column.
    let none = ja(&["history", "--suite", "nope"]);
    assert!(
        none.contains("--suite nope に合う実行はない。保存されている実行は 5 件"),
        "{none}"
    );
    let md = ja(&["history", "--format", "markdown"]);
    assert!(
        md.starts_with("| id | date | label | price | suite | target | workload | IOPS | MB/s | figure |\n"),
        "{md}"
    );
    let json = kura(&db, d, &[], &["--lang", "ja", "--json", "compare", "1", "2", "3"]);
    assert!(!has_japanese(&json) && json.contains("real I/O"), "{json}");
}

/// The IO500-like suite's page in Japanese at 80 columns: its title line,
/// table headings, stonewall lines and note; phase names and IO500's
/// `[SCORE]` line as IO500 prints them; JSON unchanged.
#[test]
fn io500_page_in_japanese() {
    let dir = tmp();
    let (d, db) = (dir.path(), dir.path().join("k.db"));
    std::fs::create_dir(d.join("io")).unwrap();
    let args = [
        "suite",
        "io500",
        "io",
        "--stonewall",
        "200ms",
        "--easy-size",
        "4m",
        "--hard-segments",
        "20",
        "--easy-files",
        "50",
        "--hard-files",
        "20",
    ];
    let ja = kura(&db, d, &[], &[&["--lang", "ja"][..], &args].concat());
    for word in [
        "IO500 相当（公式のハーネスではない）· ランク 1、ストーンウォール 200ms",
        "段階",
        "値",
        "単位",
        "時間 秒",
        "操作数",
        "未実行",
        "[SCORE] Bandwidth ",
        " : IOPS ",
        " : TOTAL ",
        "ストーンウォール mdtest-easy-write: 期限 ",
        "意図して違う点: find は実行しない",
        "ior-easy-write",
        "mdtest-hard-delete",
        "GiB/s",
        "kIOPS",
    ] {
        assert!(ja.contains(word), "{word} missing:\n{ja}");
    }
    for english in [
        "IO500-like",
        "official harness",
        "rank,",
        " value ",
        " operations",
        "not run",
        "stonewall:",
        "at the deadline",
        "wear-out",
        "ended before",
        "Differs on purpose",
    ] {
        assert!(!ja.contains(english), "{english} left in:\n{ja}");
    }
    let over = over_80(&ja);
    assert!(over.is_empty(), "over 80 columns:\n{}", over.join("\n"));
    // English as before: the note is jobs::io500's text.
    let en = kura(&db, d, &[], &["show", "1"]);
    assert!(
        en.contains("IO500-like (not the official harness) · 1 rank, stonewall 200ms")
            && en.contains(kura::jobs::io500::DIFFERENCES)
            && en.contains("(IO500-like)")
            && en.contains("stonewall: mdtest-easy-write "),
        "{en}"
    );
    assert!(!has_japanese(&en), "{en}");
    let json = kura(&db, d, &[], &["--lang", "ja", "--json", "show", "1"]);
    assert!(!has_japanese(&json), "{json}");
}

/// bonnie++'s and `suite db`'s steps in the progress line, in Japanese.
#[test]
fn bonnie_steps_in_japanese_on_a_terminal() {
    if !common::have("script") {
        return;
    }
    let dir = tmp();
    let command = format!(
        "{} --lang ja suite bonnie {} --size 4m --files 1",
        common::cmd::line_loud(&dir.path().join("k.db")),
        dir.path().display()
    );
    let screen = common::on_terminal(&command, &[]);
    for word in [
        "シーケンシャル出力 文字単位: ",
        "を 1 バイトずつ書き込み中",
        "バイトのブロックで読み込み中",
        "回シーク中",
        "ファイル 1024 個",
    ] {
        assert!(screen.contains(word), "{word} missing: {screen:?}");
    }
    for english in ["one byte per", " blocks", "seekers", "rewriting", " files"] {
        assert!(!screen.contains(english), "{english} left in: {screen:?}");
    }
    // The database's steps (SQLite is built in), with the repetition.
    std::fs::create_dir(dir.path().join("db")).unwrap();
    let command = format!(
        "{} --lang ja suite db {} --server sqlite --tests connect --scale 0.01 --runs 2",
        common::cmd::line_loud(&dir.path().join("k.db")),
        dir.path().join("db").display()
    );
    let screen = common::on_terminal(&command, &[]);
    assert!(
        screen.contains("connect（2 回中 1 回目）: 接続と切断、単純な SELECT、65000 バイトの BLOB"),
        "{screen:?}"
    );
    assert!(
        !screen.contains(" of 2") && !screen.contains("disconnect"),
        "{screen:?}"
    );
    assert_eq!(
        kura::i18n::in_english(|| kura::t!("step-repetition", repetition = 2, runs = 3)),
        " (run 2 of 3)"
    );
}

/// The hosts' table of a run of many ranks (in `show` and `compare`):
/// headings and the spread sentence in Japanese, English as it was.
#[test]
fn hosts_table_of_many_ranks_in_japanese() {
    use kura::report::cluster_hosts::{HostRow, spread_line, table};
    let row = |host: &str, vs_fastest: f64, slowest_in_jobs: u32| HostRow {
        host: host.into(),
        ranks: 2,
        ops: 1000,
        ops_per_sec_per_rank: 500.0 * vs_fastest,
        vs_fastest,
        slowest_in_jobs,
    };
    let rows = [row("node0", 1.0, 1), row("node1", 0.62, 12)];
    kura::i18n::set_lang(kura::i18n::Lang::Ja);
    let ja = format!("{}\n{}", table(&rows, Some("a")), spread_line(&rows, 16).unwrap());
    for word in [
        "ランク数",
        "操作/秒/ランク",
        "最速との比",
        "最遅ランク",
        "12 ジョブ",
        "ばらつき: 最も遅いホスト node1",
        "0.62 倍",
        "16 ジョブ中 12 ジョブ",
    ] {
        assert!(ja.contains(word), "{word} missing:\n{ja}");
    }
    for english in ["ranks", "per rank", "fastest", "slowest", " jobs", "spread"] {
        assert!(!ja.contains(english), "{english} left in:\n{ja}");
    }
    assert!(over_80(&table(&rows, Some("a"))).is_empty(), "{ja}");
    let en = kura::i18n::in_english(|| spread_line(&rows, 16).unwrap());
    assert_eq!(
        en,
        "spread: the slowest host node1 ran 0.62x the fastest's rate per rank (node0); it ran the slowest rank in 12 of 16 jobs"
    );
}
