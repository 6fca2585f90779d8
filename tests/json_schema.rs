//! Every verb's `--json` output against the one schema, docs/kura.schema.json
//! (schema_version 2, docs/json.md), on real runs stored in a real database;
//! and the JSON fixes of issue 17 one by one.

mod common;
#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use common::{json, kura, tmp};

fn schema() -> serde_json::Value {
    serde_json::from_str(include_str!("../docs/kura.schema.json")).expect("the schema is JSON")
}

/// Checks `doc` against the schema's definition `def`, and that it is that
/// document and no other of the schema's `oneOf`.
fn assert_valid(def: &str, doc: &serde_json::Value, what: &str) {
    let mut s = schema();
    let map = s.as_object_mut().unwrap();
    map.remove("oneOf");
    map.insert("$ref".into(), format!("#/$defs/{def}").into());
    let v = jsonschema::validator_for(&s).expect("the schema compiles");
    let errors: Vec<String> = v
        .iter_errors(doc)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: not a valid {def}:\n{}",
        errors.join("\n")
    );
    let whole = jsonschema::validator_for(&schema()).unwrap();
    assert!(
        whole.is_valid(doc),
        "{what}: matches none or several of the documents"
    );
}

fn stdout_json(cmd: &mut assert_cmd::Command) -> serde_json::Value {
    json(&cmd.assert().success().get_output().stdout)
}

fn durations_are_ns(job: &serde_json::Value) {
    for key in ["runtime", "ramp", "interval", "start_delay", "think_time"] {
        assert!(job.get(key).is_none(), "{key} without _ns in {job}");
        let v = &job[format!("{key}_ns")];
        assert!(v.is_u64() || v.is_null(), "{key}_ns is {v}");
    }
}

fn percentile_keys_in_numeric_order(text: &str) {
    // The document's text, not a parsed map: the order is what a reader sees.
    let at = |k: &str| text.find(&format!("\"{k}\":"));
    let five = at("5.000000").expect("p5 in the document");
    let twenty_five = at("25.000000").expect("p25 in the document");
    assert!(five < twenty_five, "5 before 25");
}

#[test]
fn every_verb_prints_json_of_the_one_schema() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");

    // run from flags: the run document, durations in ns, percentiles in order.
    let out = kura(&db)
        .args([
            "--json",
            "run",
            "--engine",
            "null",
            "--io-count",
            "3000",
            "--rw",
            "randrw",
            "--label",
            "a",
        ])
        .args(["--ramp", "0s", "--runtime", "5s"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let run = json(text.as_bytes());
    assert_valid("run", &run, "run");
    assert_eq!(run["schema_version"], 2);
    durations_are_ns(&run["jobs"][0]["job"]);
    assert_eq!(run["jobs"][0]["job"]["runtime_ns"], 5_000_000_000u64);
    percentile_keys_in_numeric_order(&text);

    // mark, sweep, tiobench, bonnie: the run document with its table beside.
    let mark = stdout_json(
        kura(&db)
            .args([
                "--json",
                "mark",
                "--engine",
                "null",
                "--size",
                "4m",
                "--runtime",
                "50ms",
                "--runs",
                "1",
            ])
            .arg(d.join("m.dat")),
    );
    assert_valid("run", &mark, "mark");
    assert!(mark["tests"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(mark.get("run").is_none(), "no {{run, tests}} wrapper");
    let old_shape = serde_json::json!({ "run": mark.clone(), "tests": [] });
    let whole = jsonschema::validator_for(&schema()).unwrap();
    assert!(
        !whole.is_valid(&old_shape),
        "the schema tells the old shape apart"
    );
    let sweep = stdout_json(
        kura(&db)
            .args([
                "--json",
                "sweep",
                "--engine",
                "null",
                "--size",
                "4m",
                "--runtime",
                "50ms",
            ])
            .args(["--bs", "4k", "--read-pct", "100"])
            .arg(d.join("s.dat")),
    );
    assert_valid("run", &sweep, "sweep");
    let tio = stdout_json(
        kura(&db)
            .args([
                "--json",
                "suite",
                "tiobench",
                "--threads",
                "1",
                "--file-size",
                "1m",
                "--random-ops",
                "10",
            ])
            .arg(d),
    );
    assert_valid("run", &tio, "tiobench");
    let bonnie_dir = d.join("bonnie");
    std::fs::create_dir(&bonnie_dir).unwrap();
    let bonnie = stdout_json(
        kura(&db)
            .args([
                "--json", "suite", "bonnie", "--size", "4m", "--files", "1", "--csv",
            ])
            .arg(&bonnie_dir),
    );
    assert_valid("run", &bonnie, "bonnie");
    let io500_dir = d.join("io500");
    std::fs::create_dir(&io500_dir).unwrap();
    #[rustfmt::skip]
    let quick = ["--json", "suite", "io500", "--stonewall", "100ms", "--easy-size", "2m", "--easy-transfer", "1m", "--hard-segments", "16", "--easy-files", "200", "--hard-files", "16"];
    let io500 = stdout_json(kura(&db).args(quick).arg(&io500_dir));
    assert_valid("run", &io500, "io500");

    // A fio job file: run and explain.
    let fio = d.join("j.fio");
    std::fs::write(
        &fio,
        "[global]\nioengine=null\nsize=4m\n[r]\nrw=randread\nnumber_ios=500\n[w]\nrw=write\nnumber_ios=500\n",
    )
    .unwrap();
    let from_file = stdout_json(kura(&db).args(["--json", "run"]).arg(&fio));
    assert_valid("run", &from_file, "run FILE");
    let explained = stdout_json(kura(&db).args(["--json", "explain"]).arg(&fio));
    assert_valid("explain", &explained, "explain");
    assert_eq!(explained["format"], "fio");
    // A randread reads only: the JSON says 100, as the table does.
    assert_eq!(explained["jobs"][0]["read_pct"], 100);
    assert_eq!(explained["jobs"][1]["read_pct"], 0);

    // show of each stored run is the run document; a mark's too.
    let ids: Vec<i64> = [&run, &mark, &sweep, &tio, &bonnie, &from_file, &io500]
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    for id in &ids {
        let shown = stdout_json(kura(&db).args(["--json", "show", &id.to_string()]));
        assert_valid("run", &shown, &format!("show {id}"));
    }
    let shown = stdout_json(kura(&db).args(["show", &ids[1].to_string(), "--format", "json"]));
    assert_eq!(shown["suite"], "mark:default");
    assert!(shown["jobs"].is_array() && shown["tests"].is_array());

    // history, compare, label.
    let history = stdout_json(kura(&db).args(["--json", "history"]));
    assert_valid("history", &history, "history");
    assert_eq!(history["runs"].as_array().unwrap().len(), ids.len());
    let compare = stdout_json(kura(&db).args([
        "compare",
        &ids[0].to_string(),
        &ids[5].to_string(),
        "--format",
        "json",
    ]));
    assert_valid("compare", &compare, "compare");
    let label = stdout_json(kura(&db).args(["--json", "label", &ids[0].to_string(), "renamed"]));
    assert_valid("label", &label, "label");

    // import fio, import run (of a show), both runs.
    if common::have("fio") {
        let result = d.join("fio.json");
        common::sh(&format!(
            "fio --name=x --ioengine=null --size=1m --rw=randread --output-format=json --output={}",
            result.display()
        ));
        let imported = stdout_json(kura(&db).args(["--json", "import", "fio"]).arg(&result));
        assert_valid("run", &imported, "import fio");
    }
    let saved = d.join("mark.json");
    std::fs::write(&saved, mark.to_string()).unwrap();
    let again = stdout_json(kura(&db).args(["--json", "import", "run"]).arg(&saved));
    assert_valid("run", &again, "import run");
    assert_eq!(
        again["tests"],
        serde_json::Value::Null,
        "import prints the run it stored"
    );
    assert_eq!(
        again["jobs"].as_array().unwrap().len(),
        mark["jobs"].as_array().unwrap().len()
    );

    report_json_goes_to_the_named_file(&db, d, &ids);
    serve_json_prints_one_json_line(&db);
}

/// `report --json -o FILE` writes FILE and leaves stdout empty.
fn report_json_goes_to_the_named_file(db: &Path, d: &Path, ids: &[i64]) {
    let file = d.join("report.json");
    let out = kura(db)
        .args(["--json", "report", &ids[0].to_string(), &ids[1].to_string(), "-o"])
        .arg(&file)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let written = json(&std::fs::read(&file).expect("the report file was written"));
    assert_valid("report", &written, "report --json -o");
    assert_eq!(written["runs"].as_array().unwrap().len(), 2);
    let printed = stdout_json(kura(db).args(["--json", "report", &ids[0].to_string()]));
    assert_valid("report", &printed, "report --json");
}

fn serve_json_prints_one_json_line(db: &Path) {
    /// Stops the server even when an assertion fails first.
    struct Child(std::process::Child);
    impl Drop for Child {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Child(
        common::cmd::child(db)
            .args(["--json", "serve", "--port", "0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.0.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    assert_valid("serve", &doc, "serve --json");
    let addr = doc["url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    assert_eq!(
        support::get(addr.parse().unwrap(), "/").status,
        200,
        "it serves where it says"
    );
}

/// Runs stored by an older kura (schema 1: durations as {secs, nanos}) show
/// in schema 2.
#[test]
fn runs_stored_before_schema_2_show_in_it() {
    let dir = tmp();
    for fixture in ["kura-v1.sqlite", "kura-today.sqlite"] {
        let db = dir.path().join(fixture);
        std::fs::copy(format!("tests/fixtures/{fixture}"), &db).unwrap();
        let history = stdout_json(kura(&db).args(["--json", "history"]));
        assert_valid("history", &history, fixture);
        for run in history["runs"].as_array().unwrap() {
            let id = run["id"].to_string();
            let shown = stdout_json(kura(&db).args(["--json", "show", &id]));
            assert_valid("run", &shown, &format!("{fixture} run {id}"));
            for job in shown["jobs"].as_array().unwrap() {
                durations_are_ns(&job["job"]);
            }
        }
    }
}

/// Runs of every other kind validate too: a file set (its `lookup` and
/// `close`), `suite db` (its `commit`), a vdbench file, a latency-bounded
/// search; and a pure job's `read_pct` is what it issued, 100 or 0.
#[test]
fn runs_of_every_kind_are_of_the_one_schema() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let set = d.join("set");
    std::fs::create_dir(&set).unwrap();
    let fileset = stdout_json(kura(&db).args(["--json", "run", "--target"]).arg(&set).args([
        "--mix",
        "sfs97",
        "--files",
        "40",
        "--runtime",
        "300ms",
    ]));
    assert_valid("run", &fileset, "run --mix sfs97");
    let ops = fileset["jobs"][0]["operations"].as_object().unwrap();
    assert!(ops.contains_key("lookup"), "sfs97 looks up: {:?}", ops.keys());

    let dbdir = d.join("db");
    std::fs::create_dir(&dbdir).unwrap();
    let sql = stdout_json(
        kura(&db)
            .args(["--json", "suite", "db", "--scale", "0.001", "--tests", "connect"])
            .arg(&dbdir),
    );
    assert_valid("run", &sql, "suite db");
    assert!(sql["jobs"][0]["operations"].get("commit").is_some());

    let vdb = d.join("raw.vdb");
    std::fs::write(
        &vdb,
        format!(
            "sd=sd1,lun={}/v.dat,size=4m,threads=1\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1\n",
            d.display()
        ),
    )
    .unwrap();
    let vdbench = stdout_json(kura(&db).args(["--json", "run"]).arg(&vdb));
    assert_valid("run", &vdbench, "run FILE.vdb");

    let bound = stdout_json(kura(&db).args([
        "--json",
        "run",
        "--engine",
        "null",
        "--latency-limit",
        "1ms",
        "--runtime",
        "100ms",
    ]));
    assert_valid("run", &bound, "run --latency-limit");
    assert!(bound["latency_bound"].is_array());

    // A pure read says 100, a pure write 0, in the run and when shown.
    for (rw, pct) in [("randread", 100), ("write", 0)] {
        let run = stdout_json(kura(&db).args([
            "--json",
            "run",
            "--engine",
            "null",
            "--io-count",
            "100",
            "--rw",
            rw,
        ]));
        assert_eq!(run["jobs"][0]["job"]["read_pct"], pct, "{rw}");
        let shown = stdout_json(kura(&db).args(["--json", "show", &run["id"].to_string()]));
        assert_eq!(shown["jobs"][0]["job"]["read_pct"], pct, "show of {rw}");
    }
}
