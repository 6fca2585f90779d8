//! Every verb at `COLUMNS=80`: real runs on a temporary file with short
//! runtimes (the null engine where the device does not matter), every stored
//! run shown, and every verb's --help; any line of stdout or stderr wider
//! than 80 columns (display width, not bytes) fails the test.

mod common;

use std::path::Path;

use clap::CommandFactory;
use common::tmp;
use kura::report::width::display_width;

/// Runs kura at 80 columns; returns stdout, after checking both streams' widths.
fn at_80(db: &Path, dir: &Path, args: &[&str], over: &mut Vec<String>) -> String {
    let out = assert_cmd::Command::cargo_bin("kura")
        .unwrap()
        .env("COLUMNS", "80")
        .current_dir(dir)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kura {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    // JSON is for programs: one value per line, as long as it is.
    let json = args.contains(&"--json");
    for stream in [&out.stdout, &out.stderr].into_iter().skip(usize::from(json)) {
        for line in String::from_utf8_lossy(stream).lines() {
            if display_width(line) > 80 {
                over.push(format!(
                    "kura {}: {} columns: {line}",
                    args.join(" "),
                    display_width(line)
                ));
            }
        }
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_verb_fits_80_columns() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let mut over = Vec::new();
    let fio = d.join("jobs.fio");
    std::fs::write(
        &fio,
        "[global]\nsize=4m\nruntime=1\n[seqread]\nrw=read\nbs=128k\niodepth=16\n\
         [randmix]\nrw=randrw\nrwmixread=70\nbs=4k\nnumjobs=2\n",
    )
    .unwrap();
    let fio = fio.to_str().unwrap();
    let short = ["--runs", "1", "--runtime", "100ms", "--interval", "0s"];
    let mut runs: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "--target",
            "t.dat",
            "--size",
            "4m",
            "--rw",
            "randrw",
            "--runtime",
            "200ms",
        ],
        vec![
            "run",
            "--engine",
            "null",
            "--rw",
            "randread",
            "--io-count",
            "1000",
        ],
        vec!["run", fio],
        vec!["mark", ".", "--size", "4m"],
        vec![
            "mark",
            "--engine",
            "null",
            "--size",
            "4m",
            "--profile",
            "peak-mix",
            "--setting",
            "nvme",
        ],
        vec![
            "mark", "--engine", "null", "--size", "4m", "--unit", "iops", "--figure", "mean",
        ],
        vec![
            "sweep",
            "s.dat",
            "--size",
            "4m",
            "--bs",
            "4k,64k",
            "--read-pct",
            "100,70,0",
        ],
        vec![
            "suite",
            "tiobench",
            ".",
            "--file-size",
            "1m",
            "--random-ops",
            "100",
            "--threads",
            "2",
        ],
        vec!["suite", "bonnie", ".", "--size", "4m", "--files", "1"],
    ];
    for r in runs.iter_mut() {
        let flags: &[&str] = match r[0] {
            "mark" => &short,
            "sweep" => &short[..4],
            "suite" => &short[..2],
            _ => &[],
        };
        r.extend(flags);
    }
    for r in &runs {
        at_80(&db, d, r, &mut over);
    }
    #[rustfmt::skip]
    let io500 = ["suite", "io500", ".", "--stonewall", "100ms", "--easy-size", "2m", "--easy-transfer", "1m", "--hard-segments", "16", "--easy-files", "200", "--hard-files", "16"];
    at_80(&db, d, &io500, &mut over);
    at_80(&db, d, &["explain", fio], &mut over);
    at_80(&db, d, &["history"], &mut over);
    at_80(&db, d, &["history", "--suite", "mark"], &mut over);
    at_80(&db, d, &["history", "--suite", "nothing-like-it"], &mut over);
    at_80(&db, d, &["label", "1", "a label for the first run"], &mut over);
    for id in 1..=runs.len() {
        at_80(&db, d, &["show", &id.to_string()], &mut over);
    }
    at_80(&db, d, &["compare", "1", "4", "5"], &mut over);
    at_80(&db, d, &["compare", "4", "5", "6"], &mut over);
    let saved = at_80(&db, d, &["--json", "show", "1"], &mut over);
    std::fs::write(d.join("run1.json"), saved).unwrap();
    at_80(
        &db,
        d,
        &["import", "run", "run1.json", "--label", "again"],
        &mut over,
    );
    at_80(&db, d, &["report", "1", "4", "8", "9", "-o", "r.html"], &mut over);
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
        at_80(&db, d, &args, &mut over);
    }
    assert!(over.is_empty(), "lines over 80 columns:\n{}", over.join("\n"));
}

/// The same at `--lang ja`: Japanese takes two columns a character, and
/// tables and sentences are laid out by display width, not characters.
#[test]
fn japanese_fits_80_columns() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let mut over = Vec::new();
    let short = ["--runs", "2", "--runtime", "100ms", "--interval", "0s"];
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "run",
            "--target",
            "t.dat",
            "--size",
            "4m",
            "--rw",
            "randrw",
            "--runtime",
            "200ms",
            "--buffered",
        ],
        vec![
            "run",
            "--engine",
            "null",
            "--rw",
            "randread",
            "--io-count",
            "1000",
        ],
        [&["mark", ".", "--size", "4m"][..], &short].concat(),
        [
            &[
                "mark",
                "--engine",
                "null",
                "--size",
                "4m",
                "--profile",
                "peak-mix",
            ][..],
            &short,
        ]
        .concat(),
        [
            &[
                "sweep",
                "s.dat",
                "--size",
                "4m",
                "--bs",
                "4k,64k",
                "--read-pct",
                "100,70",
            ][..],
            &short[..4],
        ]
        .concat(),
        vec![
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
            "1",
        ],
    ];
    let mut out = String::new();
    for r in &runs {
        out.push_str(&at_80(&db, d, &[&["--lang", "ja"][..], r].concat(), &mut over));
    }
    at_80(&db, d, &["--lang", "ja", "history"], &mut over);
    for id in 1..=runs.len() {
        out.push_str(&at_80(
            &db,
            d,
            &["--lang", "ja", "show", &id.to_string()],
            &mut over,
        ));
    }
    out.push_str(&at_80(
        &db,
        d,
        &["--lang", "ja", "compare", "1", "3", "4"],
        &mut over,
    ));
    at_80(
        &db,
        d,
        &["--lang", "ja", "report", "1", "3", "-o", "r.html"],
        &mut over,
    );
    // It was Japanese that was laid out, with its warnings.
    assert!(out.contains("読み込み") && out.contains("警告: "), "{out}");
    assert!(over.is_empty(), "lines over 80 columns:\n{}", over.join("\n"));
}

/// The verbs and kinds of run the test above leaves out: a vdbench file, a
/// file set, a latency-bounded search, `suite db`, `import fio`, `serve`'s
/// line and `launch` without MPI, each shown again by `show`. (`completions`
/// and `man` print a shell script and roff, read by a shell and by man.)
#[test]
fn other_verbs_and_kinds_of_run_fit_80_columns() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let mut over = Vec::new();
    std::fs::write(
        d.join("raw.vdb"),
        format!(
            "sd=sd1,lun={}/v.dat,size=4m,threads=2\nwd=wd1,sd=sd1,xfersize=4k,rdpct=70\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
            d.display()
        ),
    )
    .unwrap();
    std::fs::create_dir(d.join("set")).unwrap();
    std::fs::create_dir(d.join("sql")).unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", "raw.vdb"],
        vec![
            "run",
            "--target",
            "set",
            "--mix",
            "sfs97",
            "--files",
            "40",
            "--runtime",
            "300ms",
        ],
        vec![
            "run",
            "--engine",
            "null",
            "--latency-limit",
            "1ms",
            "--runtime",
            "100ms",
        ],
        vec![
            "suite",
            "db",
            "sql",
            "--scale",
            "0.001",
            "--tests",
            "connect,create",
        ],
    ];
    for r in &runs {
        at_80(&db, d, r, &mut over);
    }
    for id in 1..=runs.len() {
        at_80(&db, d, &["show", &id.to_string()], &mut over);
    }
    if common::have("fio") {
        common::sh(&format!(
            "fio --name=x --ioengine=null --size=1m --rw=randrw --output-format=json --output={}",
            d.join("fio.json").display()
        ));
        at_80(&db, d, &["import", "fio", "fio.json"], &mut over);
        at_80(&db, d, &["show", "latest"], &mut over);
    }
    at_80(&db, d, &["history"], &mut over);
    at_80(&db, d, &["compare", "1", "2", "3"], &mut over);

    // serve: the line it prints when it listens.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kura"))
        .env("COLUMNS", "80")
        .arg("--db")
        .arg(&db)
        .args(["serve", "--port", "0"])
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
    if display_width(line.trim_end()) > 80 {
        over.push(format!("kura serve: {line}"));
    }
    assert!(over.is_empty(), "lines over 80 columns:\n{}", over.join("\n"));
}
