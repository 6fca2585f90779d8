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

/// Every kind of warning has Japanese text, with its facts filled in and
/// nothing of Fluent's syntax left; the stored (English) text is unchanged.
#[test]
fn every_warning_kind_has_japanese_text() {
    use kura::metrics::Warning;
    use kura::metrics::warning::VerifyMismatch;
    let s = |x: &str| x.to_string();
    let mm = |n: u64| VerifyMismatch {
        offset_bytes: n * 4096,
        field: s("checksum"),
        expected: s("ab"),
        found: s("cd"),
    };
    let ws = vec![
        Warning::IoUringUnavailable { why: s("EPERM") },
        Warning::BufferedOnSyncEngine { job: s("j"), qd: 8 },
        Warning::SyncEngineQueueDepth { job: s("j"), qd: 8 },
        Warning::PageCacheHoldsData {
            data_mb: 4,
            memory_mb: 25000,
        },
        Warning::KeepCacheWithDirect,
        Warning::MemoryFileSystem {
            path: s("/p"),
            fs_type: s("tmpfs"),
            direct: true,
        },
        Warning::MemoryFileSystem {
            path: s("/p"),
            fs_type: s("tmpfs"),
            direct: false,
        },
        Warning::SparseFile {
            path: s("/p"),
            loop_device: Some(s("/dev/loop0")),
            allocated_mb: 1,
            data_mb: 9,
        },
        Warning::SparseFile {
            path: s("/p"),
            loop_device: None,
            allocated_mb: 1,
            data_mb: 9,
        },
        Warning::LoopOverMemory {
            path: s("/dev/loop0"),
            backing: s("/b"),
            fs_type: s("tmpfs"),
        },
        Warning::CompressedFill {
            path: s("/p"),
            fill: s("zero"),
            fs_type: s("btrfs"),
            option: s("compress"),
        },
        Warning::HostWriteBackCache {
            path: s("/p"),
            size_mb: 4,
            disk: s("vda"),
        },
        Warning::WorkerStopped {
            job: s("j"),
            error: s("EIO"),
        },
        Warning::IoErrors {
            job: s("j"),
            direction: s("write"),
            count: 50,
            first_error: s("ENOSPC"),
            offset_bytes: 123456789012,
        },
        Warning::ShortTransfers {
            job: s("j"),
            direction: s("read"),
            count: 3,
        },
        Warning::Stalled {
            job: s("j"),
            reasons: vec![s("a"), s("b")],
        },
        Warning::RepeatsDisagree {
            test: s("T"),
            direction: Some(s("read")),
            runs: 3,
            spread_pct: 20.4,
            min: 1.04,
            max: 2.06,
            unit: s("MB/s"),
        },
        Warning::RepeatsDisagree {
            test: s("T"),
            direction: None,
            runs: 3,
            spread_pct: 20.5,
            min: 1.0,
            max: 2.0,
            unit: s("MB/s"),
        },
        Warning::CurvePointSkipped {
            job: s("j"),
            pct: 12.5,
            max_iops: 1234.6,
            min_iops: 7,
        },
        Warning::TestFileNotRemoved { error: s("e") },
        Warning::StoppedAfterFailure { error: s("e") },
        Warning::RunUnfinished { finished_jobs: 1 },
        Warning::RunUnfinished { finished_jobs: 2 },
        Warning::JobUnfinished {
            job: s("j"),
            periods: 1,
        },
        Warning::JobUnfinished {
            job: s("j"),
            periods: 0,
        },
        Warning::StoredJobUnreadable {
            index: 3,
            error: s("e"),
        },
        Warning::JobFile { note: s("n") },
        Warning::Imported { note: s("n") },
        Warning::PageCacheHoldsDataUnderLimit {
            data_mb: 4,
            limit_mb: 64,
        },
        Warning::VerifyPassed {
            job: s("j"),
            blocks: 1,
        },
        Warning::VerifyPassed {
            job: s("j"),
            blocks: 10,
        },
        Warning::VerifyFailed {
            job: s("j"),
            count: 1,
            blocks: 10,
            mismatches: vec![mm(1)],
        },
        Warning::VerifyFailed {
            job: s("j"),
            count: 7,
            blocks: 10,
            mismatches: (0..7).map(mm).collect(),
        },
        Warning::VerifyIncomplete {
            job: s("j"),
            error: s("e"),
        },
        Warning::JournalNotWritten {
            job: s("j"),
            error: s("e"),
        },
        Warning::MaxErrorsReached {
            job: s("j"),
            errors: 5,
            max: 5,
        },
        Warning::ReadsOfZeros {
            path: s("/p"),
            zero_blocks: 3,
            sampled: 64,
        },
        Warning::CompressibleData {
            path: s("/p"),
            fill: s("zero"),
        },
        Warning::UnreachableCache {
            path: s("/p"),
            fs_type: s("nfs"),
            why: s("w"),
        },
        Warning::InContainer { runtime: s("docker") },
        Warning::AboveInterface {
            job: s("j"),
            path: s("/p"),
            device: s("sda"),
            mb_per_s: 900,
            interface: s("SATA 3"),
            limit_mb_per_s: 600,
        },
        Warning::Other { text: s("t") },
        Warning::FileOpsSkipped {
            job: s("j"),
            count: 1,
        },
        Warning::FileOpsSkipped {
            job: s("j"),
            count: 2,
        },
        Warning::Measuring {
            pid: 42,
            boot_id: s("b"),
        },
        Warning::DatabaseInMemory {
            data_mb: 4,
            memory_mb: 25000,
        },
        Warning::ShortSpanOnRotational {
            path: s("/p"),
            span_mb: 1024,
            device_mb: 100000,
        },
    ];
    // The process-wide language of this test binary; the other tests run kura itself.
    kura::i18n::set_lang(kura::i18n::Lang::Ja);
    for w in ws
        .iter()
        .filter(|w| !matches!(w, Warning::Other { .. } | Warning::Imported { .. }))
    {
        let ja = w.to_string();
        let en = kura::i18n::in_english(|| w.to_string());
        assert!(has_japanese(&ja) && !has_japanese(&en), "{w:?}: {ja} / {en}");
        assert!(!ja.contains('{') && !ja.contains('$'), "{w:?}: {ja}");
        for fact in ["/p", "j:", "EPERM", "docker", "tmpfs"] {
            assert_eq!(ja.contains(fact), en.contains(fact), "{w:?}: {fact}: {ja} / {en}");
        }
    }
}
