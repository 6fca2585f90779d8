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

/// Writes `text` as the fio job file `name` in `dir`, runs it with
/// `kura --json run` (it must succeed) and returns the stored run's JSON.
fn run_fio_text(dir: &Path, name: &str, text: &str) -> serde_json::Value {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    json(
        &kura(&dir.join("k.db"))
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    )
}

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
        let jobs = jobs["jobs"].as_array().unwrap();
        assert_eq!(fio_jobs.len(), jobs.len(), "{}: job count", file.display());
        for ((name, opts), job) in fio_jobs.iter().zip(jobs) {
            let at = format!("{} [{name}]", file.display());
            // fio's file engines are file-set jobs (docs/filesets.md): clones x nrfiles files.
            if let Some(fs) = job["workload"].get("fileset") {
                let clones = num(opts, "numjobs").unwrap_or(1);
                assert_eq!(job["threads"], clones, "{at}: numjobs");
                assert_eq!(
                    fs["files"],
                    clones * num(opts, "nrfiles").unwrap_or(1),
                    "{at}: nrfiles"
                );
                compared += 1;
                continue;
            }
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
            // fio's region is offset..offset+size: kura's file size is its end.
            let size =
                num(opts, "filesize").or(num(opts, "size").map(|s| s + num(opts, "offset").unwrap_or(0)));
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
            // A latency target's steps each run latency_window (docs/latency-bound.md).
            let runtime_us = match num(opts, "latency_target") {
                Some(t) if t > 0 => num(opts, "latency_window").or(runtime_us),
                _ => runtime_us,
            };
            let ours = job["runtime_ns"].as_u64().map(|ns| ns / 1000);
            assert_eq!(ours, runtime_us, "{at}: runtime");
            compared += 1;
        }
    }
    assert!(compared >= 15, "compared only {compared} jobs with fio");
}

/// fio's shipped examples that run in kura: `explain` translates them and
/// a short run of each succeeds. Only where the files are changes: each
/// `filename` and `directory` is put in a directory of the test's own (a
/// device such as `/dev/sda` becomes a file there), and the run is short:
/// 8 MiB, 300 ms, no start delay. The ones left need an engine kura does
/// not have (rbd, http, sg, ...). The count may only grow.
const EXAMPLES_THAT_RUN: usize = 38;

/// The example with its files in `dir`.
fn files_in(text: &str, dir: &Path) -> String {
    text.lines()
        .map(|line| {
            let (key, value) = line.split_once('=').unwrap_or((line, ""));
            match key.trim() {
                "filename" => {
                    let name = value.trim().trim_start_matches('/').replace('/', "_");
                    format!("filename={}/{name}", dir.display())
                }
                "directory" => format!("directory={}", dir.display()),
                _ => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_shipped_examples_that_need_no_missing_engine_run() {
    let dir = tmp();
    let d = dir.path();
    let Some(files) = examples(d) else { return };
    let mut ran = Vec::new();
    let mut refused = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let work = d.join(format!("run-{name}"));
        std::fs::create_dir(&work).unwrap();
        let copy = work.join(&name);
        std::fs::write(&copy, files_in(&std::fs::read_to_string(file).unwrap(), &work)).unwrap();
        let out = kura(&d.join("k.db"))
            .current_dir(&work)
            .args(["--json", "explain"])
            .arg(&copy)
            .envs(ENV)
            .output()
            .unwrap();
        if !out.status.success() {
            refused.push(format!("{name}: {}", common::stderr_of(&out).trim()));
            continue;
        }
        let plan = json(&out.stdout);
        let file_set = plan["jobs"][0]["workload"].get("fileset").is_some();
        let out = kura(&d.join("k.db"))
            .current_dir(&work)
            .args(["--json", "run"])
            .arg(&copy)
            .envs(ENV)
            .args(["--runtime", "300ms", "--start-delay", "0"])
            .args(if file_set {
                &[][..]
            } else {
                &["--size", "8m", "--offset", "0", "--offset-increment", "0"][..]
            })
            .output()
            .unwrap();
        if out.status.success() {
            ran.push(name);
        } else {
            refused.push(format!("{name} (run): {}", common::stderr_of(&out).trim()));
        }
    }
    eprintln!("{} examples run: {ran:?}", ran.len());
    eprintln!("refused:\n{}", refused.join("\n"));
    assert!(
        ran.len() >= EXAMPLES_THAT_RUN,
        "{} of fio's examples run, fewer than {EXAMPLES_THAT_RUN}: {refused:#?}",
        ran.len()
    );
    // Every refusal names what is missing, an engine or an option.
    for r in &refused {
        assert!(r.contains("unsupported"), "{r}");
    }
}

#[test]
fn a_job_file_runs_with_groups_stonewalls_and_fio_stop_rules() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "two.fio",
        &format!(
            "[global]\ndirectory={}\nsize=4m\nbs=4k\nioengine=psync\n\n[reader]\nrw=randread\nnumber_ios=300\n\n\
             [writer]\nrw=write\n; no time_based: one pass over the 4m file\n\n[after]\nstonewall\nrw=randrw\nrwmixread=70\n\
             runtime=300ms\ntime_based\nthinktime=100\n",
            dir.path().display()
        ),
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
            "[a]\nread_iolog=trace\n",
            "bad.fio:2:1: unsupported: fio option 'read_iolog'",
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
    std::fs::write(&file, "[a]\nioengine=null\nsize=1m\nread_iolog=t\nspeed=9\n").unwrap();
    kura(&db)
        .args(["--wide", "explain", "--lenient"])
        .arg(&file)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ignored: unsupported: fio option 'read_iolog'")
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

/// Issue 17's list of options people write in job files: each runs with
/// fio's meaning (and `explain` shows what it became) or is refused naming
/// it. fio itself accepts every one of these files (`--parse-only`).
#[test]
fn options_people_write_run_as_fio_means_or_are_refused_by_name() {
    enum Want {
        /// Runs; what it became is checked below, by key.
        Runs,
        /// Also a note in `explain` containing this.
        Noted(&'static str),
        /// Refused, exit 2, the message containing this.
        Refused(&'static str),
    }
    use Want::*;
    use serde_json::json;
    let dir = tmp();
    let d = dir.path();
    let cases: Vec<(&str, Want)> = vec![
        ("rw=read:8k", Runs),
        ("rw=randread:8k", Refused("rw=randread:8k")),
        ("rw=read:-8k", Runs),
        (
            "rw=randread\nrandom_distribution=zoned:60/10:30/20:8/30:2/40",
            Runs,
        ),
        (
            "rw=randread\nrandom_distribution=zoned_abs:60/1m:30/1m:10/2m",
            Runs,
        ),
        ("rw=randread\nrate_iops=100\nrate_process=poisson", Runs),
        ("thinktime=10\nthinktime_blocks=4", Runs),
        ("ratemin=1m", Runs),
        ("rate_iops_min=10", Runs),
        ("continue_on_error=all", Runs),
        ("continue_on_error=none", Noted("continue_on_error=none")),
        ("continue_on_error=0", Noted("continue_on_error=0:")),
        ("continue_on_error=verify", Runs),
        ("verify=0", Runs),
        ("threads=1", Noted("tiobench profile")),
        (
            "rw=write\nverify=crc32c",
            Noted("verify=crc32c: kura writes its own 48-byte header"),
        ),
        (
            "rw=write\nverify=md5\nverify_fatal=1\nverify_backlog=16",
            Noted("verify_backlog"),
        ),
        ("rw=write\nverify=crc32c\nverify_only", Noted("verify_only")),
        (
            "verify=crc32c\nverify_state_load=1",
            Refused("verify_state_load=1"),
        ),
        ("exitall", Runs),
        ("rw=write\ncreate_on_open=1", Runs),
        ("create_on_open=1", Refused("create_on_open")),
        ("create_on_open=0", Runs),
        ("rw=write\nbuffer_pattern=0xdeadbeef", Runs),
        ("rw=write\nbuffer_pattern=-12", Refused("buffer_pattern=-12")),
        ("rw=write\nbuffer_compress_percentage=50", Runs),
        ("rw=write\ndedupe_percentage=30", Runs),
        ("rw=write\ndedupe_percentage=30\ndedupe_mode=repeat", Runs),
        ("rw=write\ndedupe_percentage=30\ndedupe_mode=working_set", Runs),
        (
            "rw=write\ndedupe_percentage=30\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\ndedupe_global=1",
            Runs,
        ),
        ("rw=randrw\nbssplit=4k/50:8k/50,64k", Runs),
        ("rw=randrw\nbs=4k,64k", Runs),
        ("rw=randread\nblockalign=8k", Runs),
        ("offset_increment=1m\nnumjobs=2", Runs),
        ("offset_increment=10%\nnumjobs=2", Refused("offset_increment=10%")),
        ("startdelay=1", Runs),
        ("loops=3", Runs),
        ("rw=write\nend_fsync=1", Runs),
        ("rw=write\nfsync_on_close=1", Noted("fsync_on_close")),
        ("rw=write\nsync=0", Runs),
        ("rw=write\nsync=1", Runs),
        ("rw=write\nsync=dsync", Runs),
        // Trims run on block devices (tests/fio_trim.rs); a file is refused when the job runs.
        ("rw=trim", Runs),
        ("rw=randtrim", Runs),
        ("rw=trimwrite", Runs),
        (
            "rw=trimwrite\nbs=4k,8k",
            Refused("block sizes per direction with trims"),
        ),
        ("write_bw_log=bw\nlog_avg_msec=250", Runs),
        ("write_lat_log", Noted("log_avg_msec")),
        ("write_hist_log=h\nlog_hist_msec=100", Runs),
        (
            "write_bw_log\nlog_avg_msec=500\nwrite_hist_log=h\nlog_hist_msec=100",
            Refused("log_hist_msec=100 with log_avg_msec=500"),
        ),
    ];
    // What each that runs became, by key of `explain --json`.
    let became: HashMap<&str, Vec<(&str, serde_json::Value)>> = HashMap::from([
        ("rw=read:8k", vec![("gap_bytes", json!(8192))]),
        ("rw=read:-8k", vec![("step_back_bytes", json!(8192))]),
        (
            "rw=randread\nrate_iops=100\nrate_process=poisson",
            vec![("rate_iops", json!(100)), ("rate_poisson", json!(true))],
        ),
        (
            "thinktime=10\nthinktime_blocks=4",
            vec![("think_time_ns", json!(10_000)), ("think_every", json!(4))],
        ),
        ("rw=randread\nblockalign=8k", vec![("align", json!(8192))]),
        ("startdelay=1", vec![("start_delay_ns", json!(1_000_000_000u64))]),
        ("loops=3", vec![("passes", json!(3))]),
        ("rw=write\nend_fsync=1", vec![("end_fsync", json!(true))]),
        (
            "ratemin=1m",
            vec![("rate_min", json!({"read_bytes_per_sec": 1 << 20}))],
        ),
        ("rate_iops_min=10", vec![("rate_min", json!({"read_iops": 10}))]),
        ("exitall", vec![("exit_all", json!(true))]),
        (
            "rw=write\nbuffer_pattern=0xdeadbeef",
            vec![("buffer_pattern", json!("0xdeadbeef"))],
        ),
        (
            "rw=randrw\nbssplit=4k/50:8k/50,64k",
            vec![
                (
                    "bs",
                    json!([{"bytes": 4096, "weight": 50}, {"bytes": 8192, "weight": 50}]),
                ),
                ("bs_write", json!([{"bytes": 65536, "weight": 100}])),
            ],
        ),
        (
            "rw=randrw\nbs=4k,64k",
            vec![("bs_write", json!([{"bytes": 65536, "weight": 100}]))],
        ),
        (
            "offset_increment=1m\nnumjobs=2",
            vec![
                ("offset_increment_bytes", json!(1 << 20)),
                ("size_bytes", json!(5 << 20)),
            ],
        ),
        ("rw=write\nsync=1", vec![("open_sync", json!("sync"))]),
        ("rw=write\nsync=dsync", vec![("open_sync", json!("dsync"))]),
        ("rw=write\nfsync_on_close=1", vec![("end_fsync", json!(true))]),
        (
            "rw=write\nbuffer_compress_percentage=50",
            vec![("fill", json!({"kind": "compressible", "pct": 50}))],
        ),
        (
            "write_bw_log=bw\nlog_avg_msec=250",
            vec![
                ("write_bw_log", json!("bw")),
                ("interval_ns", json!(250_000_000u64)),
            ],
        ),
        ("write_lat_log", vec![("write_lat_log", json!("a"))]),
        (
            "write_hist_log=h\nlog_hist_msec=100",
            vec![
                ("write_hist_log", json!("h")),
                ("interval_ns", json!(100_000_000u64)),
            ],
        ),
        ("rw=write\ndedupe_percentage=30", vec![("dedupe_pct", json!(30))]),
        (
            "rw=write\ndedupe_percentage=30\ndedupe_mode=working_set",
            vec![("dedupe_pct", json!(30)), ("dedupe_working_set_pct", json!(5))],
        ),
        (
            "rw=write\ndedupe_percentage=30\ndedupe_mode=working_set\ndedupe_working_set_percentage=20\ndedupe_global=1",
            vec![
                ("dedupe_working_set_pct", json!(20)),
                ("dedupe_global", json!(true)),
            ],
        ),
        (
            "rw=write\ncreate_on_open=1",
            vec![("create_on_open", json!(true))],
        ),
        ("rw=trim", vec![("rw", json!("trim"))]),
        ("rw=write\nverify=crc32c", vec![("verify", json!(true))]),
        (
            "rw=write\nverify=md5\nverify_fatal=1\nverify_backlog=16",
            vec![("verify", json!(true)), ("max_errors", json!(1))],
        ),
        (
            "rw=write\nverify=crc32c\nverify_only",
            vec![("verify", json!(true)), ("rw", json!("read"))],
        ),
        ("rw=randtrim", vec![("rw", json!("randtrim"))]),
        ("rw=trimwrite", vec![("rw", json!("trimwrite"))]),
    ]);
    for (i, (options, want)) in cases.iter().enumerate() {
        let file = d.join(format!("case{i}.fio"));
        std::fs::write(
            &file,
            format!("[global]\nfilename={}/x\nsize=4m\n[a]\n{options}\n", d.display()),
        )
        .unwrap();
        if common::have_quietly("fio") {
            let parsed = Command::new("fio")
                .arg("--parse-only")
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                parsed.status.success(),
                "fio refuses {options:?}: {}",
                common::stderr_of(&parsed)
            );
        }
        let out = kura(&d.join("k.db"))
            .args(["--json", "explain"])
            .arg(&file)
            .output()
            .unwrap();
        let stderr = common::stderr_of(&out);
        match want {
            Refused(name) => {
                assert_eq!(out.status.code(), Some(2), "{options:?} ran: {stderr}");
                assert!(
                    stderr.contains(name) && stderr.contains("unsupported"),
                    "{options:?}: {stderr}"
                );
                assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
            }
            Runs | Noted(_) => {
                assert_eq!(out.status.code(), Some(0), "{options:?}: {stderr}");
                let v = json(&out.stdout);
                let job = &v["jobs"][0];
                if let Noted(text) = want {
                    let notes = v["notes"].to_string();
                    assert!(notes.contains(text), "{options:?}: notes {notes}");
                }
                for (key, value) in became.get(options).into_iter().flatten() {
                    assert_eq!(&job[*key], value, "{options:?}: {key} in {job}");
                }
            }
        }
    }
    // The zones as fio gives them, in kura's job.
    let zoned = d.join("zoned.fio");
    std::fs::write(
        &zoned,
        "[a]\nfilename=/dev/null\nsize=4m\nrw=randread\nrandom_distribution=zoned:60/10:30/20:8/30:2/40\n",
    )
    .unwrap();
    let v = json(
        &kura(&d.join("k.db"))
            .args(["--json", "explain"])
            .arg(&zoned)
            .output()
            .unwrap()
            .stdout,
    );
    let dist = &v["jobs"][0]["distribution"];
    assert_eq!(dist["kind"], "zoned");
    assert_eq!(dist["zones"].as_array().unwrap().len(), 4);
    assert_eq!(dist["zones"][1], json!({"io_pct": 30.0, "space_pct": 20.0}));
    let text = String::from_utf8(
        kura(&d.join("k.db"))
            .arg("explain")
            .arg(&zoned)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        text.contains("distribution zoned:60/10:30/20:8/30:2/40"),
        "{text}"
    );
}

/// Issue 26: fio's verify runs as kura's: a job that writes with
/// `verify=crc32c` reads its blocks back, and a later job that reads with
/// `verify=md5` checks the headers the first wrote.
#[test]
fn fio_verify_writes_headers_and_a_later_job_checks_them() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "v.fio",
        &format!(
            "[global]\nfilename={}/v\nsize=1m\nbs=4k\n[w]\nrw=write\nverify=crc32c\n\
             [r]\nstonewall\nrw=read\nverify=md5\nverify_fatal=1\n",
            dir.path().display()
        ),
    );
    let passed: Vec<_> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "verify_passed")
        .map(|w| {
            (
                w["job"].as_str().unwrap().to_string(),
                w["blocks"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(passed, [("w".to_string(), 256), ("r".to_string(), 256)], "{v}");
    // fio's cross-stripe-verify.fio, smaller: 16k writes from 120k with
    // 112k holes, each of three clones in a region of its own: 8k verify
    // blocks, two to a write, read back region by region.
    let v = run_fio_text(
        dir.path(),
        "v.fio",
        &format!(
            "[global]\nbs=16k\nrw=write:112k\nverify=crc32c\nfilename={}/c\nverify_backlog=1\n\
             offset_increment=1m\nio_size=256k\noffset=120k\nsize=4m\nverify_dump=1\nloops=2\n[wv]\nnumjobs=3\n",
            dir.path().display()
        ),
    );
    assert_eq!(
        v["jobs"][0]["write"]["ops"], 96,
        "16 writes a pass, 2 loops, 3 clones"
    );
    let passed = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "verify_passed");
    assert_eq!(
        passed.map(|w| w["blocks"].clone()),
        Some(serde_json::json!(192)),
        "{v}"
    );
}

/// Issue 26: fio's `rate=1250` of 4 KiB blocks (1mbs_clients.fio) is
/// 0.305 I/Os per second, one every 3.28 s: two I/Os in 5 s, as fio does,
/// where kura used to round it up to one per second.
#[test]
fn a_byte_rate_below_one_block_per_second_is_paced_as_fio_paces_it() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "r.fio",
        "[r]\nioengine=null\nsize=1m\nrw=read\nrate=1250\nruntime=5\ntime_based\n",
    );
    let file = dir.path().join("r.fio");
    let job = &v["jobs"][0];
    assert_eq!(job["job"]["rate_bytes_per_sec"], 1250);
    assert_eq!(job["read"]["ops"], 2, "{}", job["read"]);
    if common::have_quietly("fio") {
        let out = Command::new("fio")
            .current_dir(dir.path())
            .arg("--output-format=json")
            .arg(&file)
            .output()
            .unwrap();
        let fio = json(&out.stdout);
        assert_eq!(fio["jobs"][0]["read"]["total_ios"], 2, "fio's own count");
    }
}

/// Issue 26: one warning per cause a run: eight buffered jobs running
/// together on files the page cache can hold say so once; the null engine,
/// which moves no data, gets no page-cache warning.
#[test]
fn a_cause_is_warned_once_and_not_where_it_cannot_apply() {
    let dir = tmp();
    let d = dir.path();
    let file = d.join("w.fio");
    let jobs: String = (0..8)
        .map(|i| format!("[j{i}]\nsize={}k\n", 256 * (i + 1)))
        .collect();
    std::fs::write(
        &file,
        format!(
            "[global]\ndirectory={}\nioengine=psync\nrw=randread\nruntime=300ms\ntime_based\n{jobs}",
            d.display()
        ),
    )
    .unwrap();
    let kinds = |args: &[&str]| -> Vec<serde_json::Value> {
        let v = json(
            &kura(&d.join("k.db"))
                .args(["--json", "run"])
                .args(args)
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        v["warnings"].as_array().unwrap().clone()
    };
    let warnings = kinds(&[file.to_str().unwrap()]);
    let cached: Vec<_> = warnings
        .iter()
        .filter(|w| w["kind"] == "page_cache_holds_data")
        .collect();
    assert_eq!(cached.len(), 1, "{warnings:?}");
    // The largest job's data: 2 MiB.
    assert_eq!(cached[0]["data_mb"], 2, "{cached:?}");
    let null = kinds(&["--engine", "null", "--io-count", "100", "--direct=0"]);
    assert!(
        null.iter().all(|w| w["kind"] != "page_cache_holds_data"),
        "{null:?}"
    );
}

/// Issue 26: fio's flow control (flow.fio, with the null engine): jobs of
/// one flow issue I/Os in the ratio of their weights, 8 to 1, in kura as in
/// fio; a flow_sleep of 1 ms paces both, in both. `exitall`: the jobs end
/// together, so neither runs on alone, unheld, once the other has ended
/// (their starts are held by the flow's weights, counted in before either
/// starts).
#[test]
fn flow_keeps_jobs_in_the_ratio_of_their_weights_as_fio_does() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "flow.fio",
        "[global]\nnorandommap\nthread\nexitall\ntime_based\nruntime=1\nioengine=null\niodepth=4\nsize=100m\n\
         bs=8k\nflow_sleep=1000\n[job2]\nrw=write\nflow=1\n[job1]\nrw=randread\nflow=8\n",
    );
    let file = dir.path().join("flow.fio");
    let writes = v["jobs"][0]["write"]["ops"].as_f64().unwrap();
    let reads = v["jobs"][1]["read"]["ops"].as_f64().unwrap();
    assert!(
        (reads / writes - 8.0).abs() < 0.5,
        "kura: {reads} reads to {writes} writes"
    );
    if common::have_quietly("fio") {
        let out = Command::new("fio")
            .arg("--output-format=json")
            .arg(&file)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let fio = json(text[text.find('{').unwrap()..].as_bytes());
        let writes = fio["jobs"][0]["write"]["total_ios"].as_f64().unwrap();
        let reads = fio["jobs"][1]["read"]["total_ios"].as_f64().unwrap();
        assert!(
            (reads / writes - 8.0).abs() < 0.5,
            "fio: {reads} reads to {writes} writes"
        );
    }
}

/// Issue 26: fio's steady-state stop (steadystate.fio, smaller): a job
/// paced at 1000 I/Os a second is steady by `iops:10%` over 2 s and ends
/// there, whole, long before its 30 s; a rule it cannot meet lets it run
/// its course, and says so.
#[test]
fn a_steady_state_rule_ends_the_job_once_it_holds() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "ss.fio",
        "[global]\nioengine=null\nsize=16m\nrw=randread\nrate_iops=1000\ntime_based\nthreads=1\n\
         [steady]\nruntime=30\nss=iops:10%\nss_dur=2\nss_ramp=1\n\
         [never]\nstonewall\nruntime=2\nss=iops_slope:0.0000001%\nss_dur=10\n",
    );
    let verdicts: Vec<_> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "steady_stop")
        .collect();
    assert_eq!(verdicts.len(), 2, "{v}");
    let attained = verdicts[0]["attained_ns"].as_u64().expect("steady attained");
    assert!(
        attained >= 3_000_000_000,
        "after the ramp and a 2 s window: {attained}"
    );
    let job = &v["jobs"][0];
    assert_eq!(job["incomplete"], false);
    // Ended by the rule, before its runtime: a job that ran its course
    // reports its runtime exactly.
    let elapsed = job["elapsed_ns"].as_u64().unwrap();
    assert!(elapsed < job["job"]["runtime_ns"].as_u64().unwrap(), "{job}");
    assert!(elapsed >= attained, "ended once the rule held: {job}");
    assert!(verdicts[1]["attained_ns"].is_null(), "{}", verdicts[1]);
}

/// rate_process=poisson paces at the rate on average.
#[test]
fn poisson_pacing_keeps_the_rate() {
    let dir = tmp();
    let v = run_fio_text(
        dir.path(),
        "p.fio",
        "[p]\nioengine=null\nsize=16m\nrw=randread\nrate_iops=2000\nrate_process=poisson\nruntime=1\ntime_based\n",
    );
    assert_eq!(v["jobs"][0]["job"]["rate_poisson"], true);
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(
        (iops - 2000.0).abs() < 200.0,
        "{iops} I/Os per second at a rate of 2000"
    );
}

/// write_bw_log, write_iops_log and write_lat_log with log_avg_msec: fio's
/// windowed log format, one line per window and direction, from a job file
/// and from flags; their numbers add up to what the run measured.
#[test]
fn fio_logs_are_written_in_fios_windowed_format() {
    let dir = tmp();
    let d = dir.path();
    let file = d.join("logs.fio");
    std::fs::write(
        &file,
        "[global]\nioengine=null\nsize=64m\nruntime=1\ntime_based\n[j]\nrw=randrw\n\
         write_bw_log=out/j\nwrite_iops_log=out/j\nwrite_lat_log=out/j\nlog_avg_msec=200\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    let v = json(
        &kura(&d.join("k.db"))
            .current_dir(d)
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let job = &v["jobs"][0];
    let line = log_line;
    let mut iops_sum = [0f64; 2];
    for kind in ["bw", "iops", "lat"] {
        let text = std::fs::read_to_string(d.join(format!("out/j_{kind}.1.log")))
            .unwrap_or_else(|e| panic!("j_{kind}.1.log: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 8, "{kind}: {text}");
        let mut last = 0;
        for l in &lines {
            assert!(line(l), "{kind}: {l:?}");
            let f: Vec<u64> = l.split(", ").map(|x| x.parse().unwrap()).collect();
            // Each window ends at most 200 ms after the one before (the last may be cut short).
            assert!(
                f[0] >= last && f[0] <= last + 200,
                "{kind}: times rise by 200 ms: {l}"
            );
            last = f[0];
            if kind == "iops" {
                iops_sum[f[2] as usize] += f[1] as f64 * 0.2;
            }
        }
    }
    // IOPS per 200 ms window, times 0.2 s, adds up to the I/Os (less the rounding down per line).
    for (i, dir) in ["read", "write"].iter().enumerate() {
        let ops = job[*dir]["ops"].as_f64().unwrap();
        assert!(
            iops_sum[i] <= ops + 1.0 && iops_sum[i] >= ops - 10.0,
            "{dir}: {} vs {ops}",
            iops_sum[i]
        );
    }
    // The same from flags.
    kura(&d.join("k.db"))
        .current_dir(d)
        .args([
            "run",
            "--engine",
            "null",
            "--io-count",
            "5000",
            "--write-iops-log",
            "flag",
            "--interval",
            "100ms",
        ])
        .assert()
        .success();
    let text = std::fs::read_to_string(d.join("flag_iops.1.log")).unwrap();
    assert!(text.lines().all(line), "{text}");
    // fio's own log of a like job has the same shape.
    if common::have_quietly("fio") {
        let out = Command::new("fio")
            .current_dir(d)
            .args([
                "--name=f",
                "--ioengine=null",
                "--size=64m",
                "--rw=randrw",
                "--runtime=1",
                "--time_based",
            ])
            .args(["--write_iops_log=fio", "--log_avg_msec=200", "--output=/dev/null"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let theirs = std::fs::read_to_string(d.join("fio_iops.1.log")).unwrap();
        assert!(theirs.lines().all(line), "fio writes the same shape: {theirs}");
    }
}

/// fio's windowed log line: `TIME, VALUE, DIRECTION (0|1), 0, 0`.
fn log_line(l: &str) -> bool {
    let f: Vec<&str> = l.split(", ").collect();
    f.len() == 5
        && f.iter()
            .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
        && (f[2] == "0" || f[2] == "1")
        && f[3] == "0"
        && f[4] == "0"
}

/// A section's `kb_base` sets the units of all its values, those above it
/// too, as fio sorts it first (parse.c `sort_options`, fio 3.33); a
/// `[global]`'s sets the jobs' after it. The numbers are fio's own parse.
#[test]
fn kb_base_applies_to_its_whole_section_as_fio_reads_it() {
    let dir = tmp();
    let d = dir.path();
    let file = d.join("kb.fio");
    let target = d.join("kb.dat");
    let text = format!(
        "[global]\nfilename={}\n[a]\nbs=4kib\nsize=1mib\nkb_base=1000\n[b]\nbs=4kib\nsize=1mb\n",
        target.display()
    );
    std::fs::write(&file, text).unwrap();
    let out = kura(&d.join("k.db"))
        .args(["--json", "explain"])
        .arg(&file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let jobs = json(&out)["jobs"].as_array().unwrap().clone();
    let ours: Vec<(u64, u64)> = jobs
        .iter()
        .map(|j| {
            (
                j["bs"][0]["bytes"].as_u64().unwrap(),
                j["size_bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ours, [(4096, 1 << 20), (4000, 1 << 20)]);
    if !common::have("fio") {
        return;
    }
    let fio: Vec<(u64, u64)> = fio_parsed(&file)
        .iter()
        .map(|(_, o)| (num(o, "bs").unwrap(), num(o, "size").unwrap()))
        .collect();
    assert_eq!(ours, fio, "fio's own parse of {}", file.display());
}
