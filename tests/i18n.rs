//! `--lang ja` and the locale: the terminal tables, warnings, guidance and
//! the HTML report in Japanese from the catalogue (i18n/), English by
//! default, and JSON in English whatever the language.

mod common;

use std::path::Path;

use common::tmp;

/// kura with a clean locale (nothing of the caller's), plus `env`.
fn kura(db: &Path, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut cmd = assert_cmd::Command::cargo_bin("kura").unwrap();
    cmd.env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("COLUMNS", "80")
        .current_dir(dir)
        .arg("--db")
        .arg(db)
        .arg("--quiet");
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
        "spread of the passes",
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
