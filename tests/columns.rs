//! Every verb and every kind of table at `COLUMNS=80`, in English and in
//! Japanese: real runs on temporary files with short runtimes (the null
//! engine where the device does not matter), every stored run shown,
//! compared and listed, and every verb's --help. A line of stdout or stderr
//! wider than 80 columns (display width: a Japanese character takes two)
//! fails the test, and so does a cell wrapped onto a second line (a
//! label or a number broken: `p99.999` as `p99.99` over `9`) or a
//! katakana word broken across lines (`バッファー` over `ド`).

mod common;

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use common::{have, tmp};
use kura::report::width::display_width;

/// What a run of kura printed that does not fit: lines too wide, cells wrapped.
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    fn check(&mut self, what: &str, text: &str) {
        for line in text.lines() {
            if display_width(line) > 80 {
                self.0
                    .push(format!("{what}: {} columns: {line}", display_width(line)));
            }
        }
        for why in wrapped(text) {
            self.0.push(format!("{what}: {why}"));
        }
    }

    fn assert_none(&self) {
        assert!(
            self.0.is_empty(),
            "{} problems:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

/// Cells broken across lines. A terminal table is drawn between lines of
/// `─` (above, under its headings, below), its columns apart by three
/// spaces or more. A row of its body with a blank first column, or with
/// nothing but its first, goes on with a cell of the row above: a cell
/// wrapped. (Headings may fold between words; they are above the second
/// rule.) Outside tables: a line that ends inside a katakana word and a
/// line that goes on with it.
fn wrapped(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let rule = |l: &str| !l.is_empty() && l.chars().all(|c| c == '─');
    let mut found = Vec::new();
    // The bodies of the tables: lines between a table's second and third rules.
    let mut bodies: Vec<Vec<&str>> = Vec::new();
    let mut part = 0;
    for line in &lines {
        if rule(line) {
            part = (part + 1) % 3;
            if part == 2 {
                bodies.push(Vec::new());
            }
        } else if part == 2 {
            bodies.last_mut().unwrap().push(line);
        }
    }
    for body in bodies {
        // Which display columns each line fills.
        let filled: Vec<Vec<bool>> = body
            .iter()
            .map(|l| {
                l.chars()
                    .flat_map(|c| {
                        let w = display_width(&c.to_string()).max(1);
                        std::iter::repeat_n(c != ' ', w)
                    })
                    .collect()
            })
            .collect();
        let width = filled.iter().map(Vec::len).max().unwrap_or(0);
        let blank = |x: usize| filled.iter().all(|f| !f.get(x).copied().unwrap_or(false));
        // Columns: runs of filled positions between gaps of three blanks or more.
        let mut columns: Vec<(usize, usize)> = Vec::new();
        let mut x = 0;
        while x < width {
            if blank(x) {
                x += 1;
                continue;
            }
            let start = x;
            let mut end = x;
            while x < width && !(blank(x) && (x..(x + 3).min(width)).all(blank)) {
                if !blank(x) {
                    end = x + 1;
                }
                x += 1;
            }
            columns.push((start, end));
        }
        if columns.len() < 2 {
            continue;
        }
        for (i, f) in filled.iter().enumerate() {
            let has = |(a, b): (usize, usize)| (a..b).any(|x| f.get(x).copied().unwrap_or(false));
            let used: Vec<bool> = columns.iter().map(|c| has(*c)).collect();
            if !used.iter().any(|u| *u) {
                continue;
            }
            if !used[0] || (used.iter().filter(|u| **u).count() == 1 && !stacked(body[i], columns[0])) {
                let above = if i > 0 { body[i - 1] } else { "" };
                found.push(format!(
                    "a cell wrapped under the row above:\n{above}\n{}",
                    body[i]
                ));
            }
        }
    }
    let katakana = |c: char| matches!(c, '\u{30A1}'..='\u{30FA}' | '\u{30FC}');
    for pair in lines.windows(2) {
        let (end, start) = (
            pair[0].trim_end().chars().last(),
            pair[1].trim_start().chars().next(),
        );
        if let (Some(a), Some(b)) = (end, start)
            && katakana(a)
            && katakana(b)
        {
            found.push(format!("a katakana word broken:\n{}\n{}", pair[0], pair[1]));
        }
    }
    found
}

/// Whether `line`, with only the first column `(start, end)` filled, is a
/// line its row has on purpose: stacked under the row's name (a unit under
/// a test, a size under a target), indented, where a wrapped cell goes on
/// at the column's left edge.
fn stacked(line: &str, (start, _): (usize, usize)) -> bool {
    // A filled line's first cell is in its first column: spaces count one each.
    line.chars().position(|c| c != ' ').is_some_and(|x| x > start)
}

/// The checker finds what it is for: the tiobench table and the bonnie line
/// as kura printed them before they were fixed.
#[test]
fn the_checker_finds_a_wrapped_cell_and_a_broken_word() {
    let tiobench = "\
─────────────────────────────────────────────
 test           MiB/s    CPU %   avg ms
─────────────────────────────────────────────
 Sequential    101.31    19.37    0.002
 Write
 Random Read   771.86   103.54    0.001
─────────────────────────────────────────────
";
    let percentiles = "\
───────────────────────
 percentile   create
───────────────────────
 p99.99       12.8 ms
 p99.99       16.1 ms
 9
───────────────────────
";
    let bonnie = "/mnt/sshfs/run (fuse.sshfs) · 1.0 GiB のファイル、小ファイル 16384 個、バッファー\n  ド\n";
    assert_eq!(wrapped(tiobench).len(), 1, "{:?}", wrapped(tiobench));
    assert_eq!(wrapped(percentiles).len(), 1);
    assert_eq!(wrapped(bonnie).len(), 1);
    // A unit stacked under a test's name, indented, is not a wrap.
    let stacked = "\
────────────────────────────────────────────
 test                       run 18   xrun 19
   unit
────────────────────────────────────────────
 Sequential Output Per Chr    1349     1.03x
   K/sec
 Random Seeks               316370     0.78x
   /sec
 シーケ…出力 文字単位         1349     1.03x
   K/sec
────────────────────────────────────────────
";
    assert!(wrapped(stacked).is_empty(), "{:?}", wrapped(stacked));
    let fine = "\
────────────────────────
 test               MiB/s
────────────────────────
 Sequential Write  101.31
────────────────────────
warning: buffered I/O on 2 MB of test data
  while the machine has 25276 MB of RAM
";
    assert!(wrapped(fine).is_empty(), "{:?}", wrapped(fine));
}

/// kura at 80 columns in one language, in one directory and store.
struct At80 {
    dir: tempfile::TempDir,
    db: PathBuf,
    lang: &'static str,
    found: Findings,
}

impl At80 {
    fn new(lang: &'static str) -> At80 {
        let dir = tmp();
        let db = dir.path().join("k.db");
        At80 {
            dir,
            db,
            lang,
            found: Findings::default(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs kura; returns stdout, after checking both streams.
    fn kura(&mut self, args: &[&str]) -> String {
        let out = common::cmd::kura_loud(&self.db)
            .env("COLUMNS", "80")
            .current_dir(self.path())
            .args(["--lang", self.lang])
            .args(args)
            .output()
            .unwrap();
        let what = format!("kura --lang {} {}", self.lang, args.join(" "));
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        // JSON is for programs: one value per line, as long as it is.
        if !args.contains(&"--json") {
            self.found.check(&what, &stdout);
        }
        self.found.check(&what, &String::from_utf8_lossy(&out.stderr));
        stdout
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path().join(name), text).unwrap();
    }
}

/// Stores a run of every kind, printing each as it runs, then shows,
/// lists and compares them; returns what `show` printed, and how many runs
/// there are.
fn every_kind(k: &mut At80) -> (String, usize) {
    let d = k.path().to_path_buf();
    k.write(
        "jobs.fio",
        "[global]\nsize=4m\nruntime=1\n[seqread]\nrw=read\nbs=128k\niodepth=16\n\
         [randmix]\nrw=randrw\nrwmixread=70\nbs=4k\nnumjobs=2\n",
    );
    k.write(
        "raw.vdb",
        &format!(
            "sd=sd1,lun={}/v.dat,size=4m,threads=2\nwd=wd1,sd=sd1,xfersize=4k,rdpct=70\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
            d.display()
        ),
    );
    std::fs::create_dir(d.join("anchor")).unwrap();
    k.write(
        "fs.vdb",
        &format!(
            "fsd=fsd1,anchor={}/anchor,depth=1,width=1,files=20,size=16k\n\
             fwd=default,xfersize=4k,fileio=random,fileselect=random,threads=2\n\
             fwd=fwd1,fsd=fsd1,operation=read\nfwd=fwd2,fsd=fsd1,operation=write\n\
             fwd=fwd3,fsd=fsd1,operation=getattr\nfwd=fwd4,fsd=fsd1,operation=create\n\
             fwd=fwd5,fsd=fsd1,operation=delete\n\
             rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=2,interval=1\n",
            d.display()
        ),
    );
    std::fs::create_dir(d.join("set")).unwrap();
    std::fs::create_dir(d.join("sql")).unwrap();
    let short = ["--runs", "1", "--runtime", "100ms", "--interval", "0s"];
    #[rustfmt::skip]
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", "--target", "t.dat", "--size", "4m", "--rw", "randrw", "--runtime", "200ms"],
        vec!["run", "--engine", "null", "--rw", "randread", "--io-count", "1000"],
        vec!["run", "jobs.fio"],
        vec!["run", "raw.vdb"],
        vec!["run", "fs.vdb"],
        vec!["run", "--target", "set", "--mix", "sfs97", "--files", "40", "--runtime", "300ms"],
        vec!["run", "--engine", "null", "--latency-limit", "1ms", "--runtime", "100ms"],
        [&["mark", ".", "--size", "4m"][..], &short].concat(),
        [&["mark", "--engine", "null", "--size", "4m", "--profile", "peak-mix", "--setting", "nvme"][..], &short].concat(),
        [&["mark", "--engine", "null", "--size", "4m", "--unit", "iops", "--figure", "mean"][..], &short].concat(),
        [&["sweep", "s.dat", "--size", "4m", "--bs", "4k,64k", "--read-pct", "100,70,0"][..], &short[..4]].concat(),
        [&["sweep", "s2.dat", "--size", "4m", "--bs", "4k,64k", "--read-pct", "100"][..], &short[..4]].concat(),
        vec!["suite", "tiobench", ".", "--file-size", "1m", "--random-ops", "100", "--threads", "2", "--runs", "1"],
        vec!["suite", "tiobench", ".", "--file-size", "1m", "--random-ops", "100", "--threads", "1,2", "--runs", "1"],
        vec!["suite", "bonnie", ".", "--size", "4m", "--files", "1", "--runs", "1"],
        vec!["suite", "db", "sql", "--scale", "0.001", "--tests", "connect,create"],
        vec!["suite", "io500", ".", "--stonewall", "100ms", "--easy-size", "2m", "--easy-transfer", "1m",
             "--hard-segments", "16", "--easy-files", "200", "--hard-files", "16"],
        // A second bonnie++ run: its comparison stacks each test's unit under its name.
        vec!["suite", "bonnie", ".", "--size", "8m", "--files", "2", "--runs", "1"],
    ];
    for r in &runs {
        k.kura(r);
    }
    let mut stored = runs.len();
    // Ranks under MPI (issue 16): a row per rank, and the hosts' table
    // (a build with MPI; tests/cluster.rs has its tests).
    if cfg!(feature = "mpi") && have("mpirun") {
        let out = std::process::Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
            .arg(common::cmd::bin())
            .arg("--db")
            .arg(&k.db)
            .args([
                "--lang",
                k.lang,
                "--quiet",
                "run",
                "--engine",
                "null",
                "--io-count",
                "2000",
            ])
            .env("COLUMNS", "80")
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mpirun: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        k.found
            .check("mpirun -n 2 kura run", &String::from_utf8_lossy(&out.stdout));
        stored += 1;
    }
    if have("fio") {
        common::sh(&format!(
            "fio --name=x --ioengine=null --size=1m --rw=randrw --output-format=json --output={}",
            d.join("fio.json").display()
        ));
        k.kura(&["import", "fio", "fio.json"]);
        stored += 1;
    }
    let saved = k.kura(&["--json", "show", "1"]);
    k.write("run1.json", &saved);
    k.kura(&["import", "run", "run1.json", "--label", "again"]);
    stored += 1;

    k.kura(&["explain", "jobs.fio"]);
    k.kura(&["explain", "raw.vdb"]);
    k.kura(&["explain", "fs.vdb"]);
    let history = k.kura(&["history"]);
    // One line a run: the rules, the headings, the runs, and what was cut.
    let rows = history
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.trim_end_matches('*').parse::<usize>().is_ok())
        })
        .count();
    if rows != stored {
        k.found.0.push(format!(
            "history: {rows} lines of runs for {stored} runs:\n{history}"
        ));
    }
    k.kura(&["history", "--suite", "mark"]);
    k.kura(&["history", "--suite", "nothing-like-it"]);
    k.kura(&["label", "1", "a label for the first run, long enough to be cut"]);
    k.kura(&["label", "3", "before"]);
    let labelled = k.kura(&["history"]);
    if labelled.lines().count() > stored + 7 {
        k.found
            .0
            .push(format!("history with labels: not one line a run:\n{labelled}"));
    }
    let mut shown = String::new();
    for id in 1..=stored {
        shown.push_str(&k.kura(&["show", &id.to_string()]));
    }
    #[rustfmt::skip]
    let comparisons: [&[&str]; 10] = [
        &["compare", "1", "3"],
        &["compare", "8", "9", "10"],
        &["compare", "11", "12"],
        &["compare", "13", "15"],
        &["compare", "13", "14"],
        &["compare", "5", "6"],
        &["compare", "16", "17"],
        &["compare", "1", "7", "2"],
        &["compare", "4", "1", "2", "3"],
        &["compare", "1", "19"],
    ];
    for c in comparisons {
        k.kura(c);
    }
    // bonnie++'s units, each under its test, indented: fitted to 80
    // columns they were cut away with the line they stand on.
    let bonnie = k.kura(&["compare", "15", "18"]);
    for unit in ["K/sec", "/sec"] {
        if !bonnie.lines().any(|l| l.trim() == unit && l.starts_with("   ")) {
            k.found
                .0
                .push(format!("compare 15 18: no {unit} under its test:\n{bonnie}"));
        }
    }
    k.kura(&["report", "1", "8", "13", "15", "-o", "r.html"]);
    (shown, stored)
}

#[test]
fn every_verb_and_table_fits_80_columns() {
    let mut k = At80::new("en");
    let (shown, _) = every_kind(&mut k);
    // The kinds of table were all there to be checked.
    for needle in [
        "percentile",
        "Sequential Write",
        "Latency",
        "ior-easy-write",
        "operation",
        "block size",
        "SEQ1M Q8T1",
        "Starting RD=rd1",
        "queries/s",
        "step",
    ] {
        assert!(shown.contains(needle), "{needle} not shown:\n{shown}");
    }
    // Every verb's help, as clap lays it out at 80 columns.
    let cli = kura::cli::Cli::command();
    let mut helps: Vec<Vec<String>> = vec![vec![]];
    for sub in cli.get_subcommands() {
        let name = sub.get_name().to_string();
        helps.push(vec![name.clone()]);
        for inner in sub.get_subcommands() {
            helps.push(vec![name.clone(), inner.get_name().to_string()]);
        }
    }
    for h in &helps {
        let mut args: Vec<&str> = h.iter().map(String::as_str).collect();
        args.push("--help");
        k.kura(&args);
    }
    serve_line(&mut k);
    k.found.assert_none();
}

/// The same at `--lang ja`: Japanese takes two columns a character, and
/// tables and sentences are laid out by display width, not characters.
#[test]
fn every_verb_and_table_fits_80_columns_in_japanese() {
    let mut k = At80::new("ja");
    let (shown, _) = every_kind(&mut k);
    // It was Japanese that was laid out, with its warnings.
    for needle in [
        "読み込み",
        "警告: ",
        "パーセンタイル",
        "シーケンシャル",
        "レイテンシ",
    ] {
        assert!(shown.contains(needle), "{needle} not shown:\n{shown}");
    }
    k.found.assert_none();
}

/// `serve`'s line when it listens.
fn serve_line(k: &mut At80) {
    let mut child = common::cmd::child_loud(&k.db)
        .env("COLUMNS", "80")
        .args(["--lang", k.lang, "serve", "--port", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let read = std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    );
    let _ = child.kill();
    let _ = child.wait();
    read.unwrap();
    assert!(line.contains("http://127.0.0.1:"), "serve says where: {line:?}");
    k.found.check("kura serve", &line);
}

/// Hostile widths and arguments: `COLUMNS` of 20, 0 or a word changes no
/// table (they are laid out for 80 columns) and panics nothing; `history
/// --limit 0` and `show` of a run that is not there are one line each,
/// exit 2 (an empty list read as an empty database before).
#[test]
fn hostile_widths_and_arguments_get_a_line_not_a_panic() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let kura = |columns: &str, args: &[&str]| {
        common::cmd::kura_loud(&db)
            .env("COLUMNS", columns)
            .args(args)
            .output()
            .unwrap()
    };
    let stored = kura("80", &["run", "--engine", "null", "--io-count", "500"]);
    assert!(
        stored.status.success(),
        "{}",
        String::from_utf8_lossy(&stored.stderr)
    );
    for (args, names) in [
        (&["history", "--limit", "0"][..], "--limit"),
        (&["show", "999"][..], "999"),
        (&["--lang", "ja", "show", "999"][..], "999"),
    ] {
        let out = kura("80", args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(names) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    for columns in ["20", "0", "abc", "-5", "99999999999999999999"] {
        for args in [
            &["history"][..],
            &["show", "1"],
            &["suite", "--help"],
            &["history", "--limit", "x"],
        ] {
            let out = kura(columns, args);
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert!(
                !stderr.contains("panicked"),
                "COLUMNS={columns} {args:?}: {stderr}"
            );
            if args[0] != "suite" && args.len() < 3 {
                assert!(out.status.success(), "COLUMNS={columns} {args:?}: {stderr}");
                assert!(
                    stdout.lines().all(|l| display_width(l) <= 80),
                    "COLUMNS={columns} {args:?}:\n{stdout}"
                );
            }
            if args.len() == 3 {
                assert_eq!(out.status.code(), Some(2));
                assert_eq!(stderr.lines().count(), 1, "{stderr}");
            }
        }
    }
}
