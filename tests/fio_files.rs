//! fio job files: every example Debian ships either translates or is refused
//! as unsupported, the translated parameters agree with what fio itself
//! parses from the same file, files run, and no input makes the parser panic.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{json, kura, tmp};
use kura::jobs::jobfile::{Format, Sources, parse};
use predicates::prelude::*;
use proptest::prelude::*;

const EXAMPLES: &str = "/usr/share/doc/fio/examples";
/// The values the xnvme examples document for their `${FIO_*}` variables.
const ENV: [(&str, &str); 3] = [("FIO_RW", "randread"), ("FIO_BS", "4k"), ("FIO_IODEPTH", "1")];

/// The example job files, gzipped ones unpacked into `dir`.
fn examples(dir: &Path) -> Option<Vec<PathBuf>> {
    if !common::have("fio") {
        return None;
    }
    let found = std::fs::read_dir(EXAMPLES).ok();
    assert!(
        found.is_some() || std::env::var("KURA_REQUIRE_ALL").is_err(),
        "{EXAMPLES} is missing: apt-get install fio-examples"
    );
    let mut files = Vec::new();
    for entry in found? {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with(".fio") {
            files.push(path);
        } else if let Some(stem) = name.strip_suffix(".fio.gz") {
            let out = dir.join(format!("{stem}.fio"));
            let text = Command::new("zcat").arg(&path).output().unwrap().stdout;
            std::fs::write(&out, text).unwrap();
            files.push(out);
        }
    }
    files.sort();
    Some(files)
}

/// Options as fio parsed them: the text given and the number fio made of it.
type Options = HashMap<String, (String, Option<u64>)>;

/// What fio's own parser set, per job: `fio --debug=parse --parse-only`
/// prints each option it handles with its parsed value.
fn fio_parsed(file: &Path) -> Vec<(String, Options)> {
    let out = Command::new("fio")
        .args(["--debug=parse", "--parse-only"])
        .arg(file)
        .envs(ENV)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let mut global: Options = HashMap::new();
    let mut jobs = Vec::new();
    let mut section: Option<(String, Options)> = None;
    let mut last_key: Option<String> = None;
    let finish = |section: Option<(String, Options)>, global: &mut Options, jobs: &mut Vec<_>| {
        if let Some((name, opts)) = section {
            if name == "global" {
                global.extend(opts);
            } else {
                let mut all = global.clone();
                all.extend(opts);
                jobs.push((name, all));
            }
        }
    };
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("parse") else {
            continue;
        };
        // The pid is padded to a width, so the text after it may start with blanks.
        let rest = rest
            .trim_start()
            .split_once(' ')
            .map_or("", |(_, r)| r)
            .trim_start();
        if let Some(name) = rest
            .strip_prefix("Parsing section [")
            .and_then(|r| r.strip_suffix(']'))
        {
            finish(section.take(), &mut global, &mut jobs);
            section = Some((name.to_string(), HashMap::new()));
            last_key = None;
        } else if let Some(opt) = rest.strip_prefix("handle_option=") {
            let (key, ptr) = opt.split_once(", ptr=").unwrap_or((opt, ""));
            if let Some((_, opts)) = &mut section {
                opts.insert(key.to_string(), (ptr.to_string(), None));
            }
            last_key = Some(key.to_string());
        } else if let Some(out) = rest.strip_prefix("ret=0, out=")
            && let (Some((_, opts)), Some(key)) = (&mut section, &last_key)
            && let Some(entry) = opts.get_mut(key)
            && entry.1.is_none()
        {
            entry.1 = out.trim().parse().ok();
        }
    }
    finish(section, &mut global, &mut jobs);
    jobs
}

/// The number fio made of `key` for the job, if the job set it.
fn num(opts: &Options, key: &str) -> Option<u64> {
    opts.get(key).and_then(|v| v.1)
}

#[test]
fn every_example_translates_or_is_refused_as_unsupported() {
    let dir = tmp();
    let Some(files) = examples(dir.path()) else { return };
    assert!(files.len() >= 80, "only {} example files", files.len());
    let mut translated = Vec::new();
    for file in &files {
        let out = kura(&dir.path().join("k.db"))
            .args(["--json", "explain"])
            .arg(file)
            .envs(ENV)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => translated.push((file.clone(), json(&out.stdout))),
            Some(2) => {
                let name = file.display().to_string();
                assert!(
                    stderr.contains("unsupported") && stderr.contains(&name),
                    "{name}: refused without saying what is unsupported: {stderr}"
                );
            }
            other => panic!("{}: exit {other:?}: {stderr}", file.display()),
        }
    }
    assert!(
        translated.len() >= 12,
        "only {} examples translate",
        translated.len()
    );

    // The translated parameters agree with fio's own parse of the same file.
    let mut compared = 0;
    for (file, jobs) in &translated {
        let fio_jobs = fio_parsed(file);
        let jobs = jobs.as_array().unwrap();
        assert_eq!(fio_jobs.len(), jobs.len(), "{}: job count", file.display());
        for ((name, opts), job) in fio_jobs.iter().zip(jobs) {
            let at = format!("{} [{name}]", file.display());
            let rw = opts
                .get("rw")
                .map_or("read", |v| v.0.as_str())
                .split(':')
                .next()
                .unwrap()
                .to_string();
            let rw = if rw == "readwrite" { "rw".to_string() } else { rw };
            assert_eq!(job["rw"], rw.as_str(), "{at}: rw");
            let split = opts.contains_key("bssplit") || opts.contains_key("bsrange");
            if !split {
                let bs = num(opts, "bs").unwrap_or(4096);
                assert_eq!(job["bs"].as_array().unwrap().len(), 1, "{at}: bs");
                assert_eq!(job["bs"][0]["bytes"], bs, "{at}: bs");
            }
            assert_eq!(job["qd"], num(opts, "iodepth").unwrap_or(1), "{at}: iodepth");
            assert_eq!(job["threads"], num(opts, "numjobs").unwrap_or(1), "{at}: numjobs");
            let size = num(opts, "filesize").or(num(opts, "size"));
            assert_eq!(job["size_bytes"].as_u64(), size, "{at}: size");
            if rw == "rw" || rw == "randrw" {
                let read = num(opts, "rwmixread")
                    .or(num(opts, "rwmixwrite").map(|w| 100 - w))
                    .unwrap_or(50);
                assert_eq!(job["read_pct"], read, "{at}: rwmix");
            }
            let direct = num(opts, "direct")
                .map(|d| d == 1)
                .or(num(opts, "buffered").map(|b| b == 0));
            assert_eq!(job["direct"], direct.unwrap_or(false), "{at}: direct");
            let runtime_us = num(opts, "runtime").filter(|r| *r > 0);
            let ours = job["runtime"]
                .as_object()
                .map(|r| r["secs"].as_u64().unwrap() * 1_000_000 + r["nanos"].as_u64().unwrap() / 1000);
            assert_eq!(ours, runtime_us, "{at}: runtime");
            compared += 1;
        }
    }
    assert!(compared >= 15, "compared only {compared} jobs with fio");
}

#[test]
fn a_job_file_runs_with_groups_stonewalls_and_fio_stop_rules() {
    let dir = tmp();
    let file = dir.path().join("two.fio");
    std::fs::write(
        &file,
        format!(
            "[global]\ndirectory={}\nsize=4m\nbs=4k\nioengine=psync\n\n[reader]\nrw=randread\nnumber_ios=300\n\n\
             [writer]\nrw=write\n; no time_based: one pass over the 4m file\n\n[after]\nstonewall\nrw=randrw\nrwmixread=70\n\
             runtime=300ms\ntime_based\nthinktime=100\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let v = json(
        &kura(&dir.path().join("k.db"))
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    assert_eq!(jobs[0]["job"]["group"], 0);
    assert_eq!(jobs[1]["job"]["group"], 0);
    assert!(jobs[2]["job"]["group"].is_null());
    assert_eq!(jobs[0]["read"]["ops"], 300);
    assert_eq!(jobs[1]["write"]["bytes"], 4 << 20);
    let think_ops = jobs[2]["read"]["ops"].as_u64().unwrap() + jobs[2]["write"]["ops"].as_u64().unwrap();
    // 100 µs of think time after each I/O caps 300 ms at about 3000 I/Os.
    assert!(think_ops > 10 && think_ops < 3100, "{think_ops}");
    // fio's test files are named jobname.0.0 in the directory; kura removes the ones it made.
    assert!(!dir.path().join("reader.0.0").exists());
}

#[test]
fn bad_files_fail_with_file_line_and_exit_2() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let cases = [
        (
            "[a]\nrw=randread\niodeptj=4\n",
            "bad.fio:3:1: unknown option 'iodeptj'",
        ),
        (
            "[a]\nverify=crc32c\n",
            "bad.fio:2:1: unsupported: fio option 'verify'",
        ),
        ("[a]\nrw=randrw\nrwmixread=150\n", "bad.fio:3:11: rwmixread"),
        ("[a\nrw=read\n", "bad.fio:1:1: malformed section header"),
        ("[a]\ninclude bad.fio\n", "include loop"),
    ];
    for (text, expected) in cases {
        let file = dir.path().join("bad.fio");
        std::fs::write(&file, text).unwrap();
        kura(&db)
            .arg("run")
            .arg(&file)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expected));
    }
    // --lenient lists what it ignored and goes on.
    let file = dir.path().join("lenient.fio");
    std::fs::write(&file, "[a]\nioengine=null\nsize=1m\nverify=md5\nspeed=9\n").unwrap();
    kura(&db)
        .args(["explain", "--lenient"])
        .arg(&file)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ignored: unsupported: fio option 'verify'")
                .and(predicate::str::contains("ignored: unknown option 'speed'")),
        );
    // Forced formats are honoured.
    kura(&db)
        .args(["explain", "--format", "vdbench"])
        .arg(&file)
        .assert()
        .code(2);
}

fn no_panic(text: &str) {
    let _ = parse(Format::Fio, text, Path::new("f.fio"), false, &Sources::none());
    let _ = parse(Format::Fio, text, Path::new("f.fio"), true, &Sources::none());
}

fn example_texts() -> Vec<String> {
    std::fs::read_dir(EXAMPLES)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().extension().is_some_and(|x| x == "fio"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_parser_never_panics_on_arbitrary_text(text in "\\PC*") {
        no_panic(&text);
    }

    #[test]
    fn the_parser_never_panics_on_fio_like_lines(
        lines in proptest::collection::vec(
            prop_oneof![
                "\\[[a-z ]{0,6}\\]?",
                "(rw|bs|bssplit|bsrange|size|iodepth|numjobs|rate|rate_iops|runtime|thinktime|random_distribution|kb_base|offset|ba|percentage_random|rwmixread|filename|include)=[-0-9a-zA-Z:/,.%${}]{0,14}",
                "[a-z_]{1,12}",
                ";.*",
            ],
            0..12,
        )
    ) {
        no_panic(&lines.join("\n"));
    }

    #[test]
    fn the_parser_never_panics_on_mutated_examples(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let texts = example_texts();
        if texts.is_empty() {
            return Ok(());
        }
        let mut bytes = texts[pick.index(texts.len())].clone().into_bytes();
        for (at, b) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            bytes[i] = b" =,:/[]#;$k0-%{}\nx"[b as usize % 18];
        }
        no_panic(&String::from_utf8_lossy(&bytes));
    }
}
