//! `kura suite io500` (docs/io500.md) in one process on a real directory:
//! every phase runs, the stored run shows and exports as printed, the score
//! is IO500's formula on the stored phase numbers, and bad input is one
//! line with exit 2. Sizes are tiny: seconds, not IO500's minutes.

mod common;

use common::*;

/// Tiny sizes: a stonewall the mdtest-easy create phase reaches.
const QUICK: [&str; 12] = [
    "--stonewall",
    "200ms",
    "--easy-size",
    "8m",
    "--easy-transfer",
    "1m",
    "--hard-segments",
    "64",
    "--easy-files",
    "100000",
    "--hard-files",
    "64",
];

fn geomean(v: &[f64]) -> f64 {
    let kept: Vec<f64> = v.iter().copied().filter(|x| *x > 0.0).collect();
    kept.iter().product::<f64>().powf(1.0 / kept.len() as f64)
}

#[test]
fn every_phase_runs_and_the_score_is_io500s_formula_on_the_stored_numbers() {
    let dir = tmp();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["suite", "io500"])
        .arg(&data)
        .args(QUICK)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr_of(&out));
    assert!(text.contains("IO500-like (not the official harness)"), "{text}");
    assert!(text.contains("find is not run"), "{text}");
    assert!(text.contains("stonewall: mdtest-easy-write"), "{text}");
    assert!(text.contains("[SCORE] Bandwidth"), "{text}");
    // Every file and set is gone.
    let left: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    // show prints what run printed; JSON carries the rows and the score.
    let shown = kura(&db).args(["show", "latest"]).output().unwrap();
    assert!(shown.status.success());
    let shown = String::from_utf8_lossy(&shown.stdout).to_string();
    let table = |t: &str| t.lines().skip(1).take(16).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&shown), table(&text));
    let j = json(
        &kura(&db)
            .args(["show", "latest", "--json"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(j["suite"], "io500");
    let rows = j["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["phase"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ior-easy-write",
            "mdtest-easy-write",
            "ior-hard-write",
            "mdtest-hard-write",
            "find",
            "ior-easy-read",
            "mdtest-easy-stat",
            "ior-hard-read",
            "mdtest-hard-stat",
            "mdtest-easy-delete",
            "mdtest-hard-read",
            "mdtest-hard-delete"
        ]
    );
    for r in rows {
        if r["phase"] == "find" {
            assert!(r["value"].is_null());
        } else {
            assert!(r["value"].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["ops"].as_u64().unwrap() > 0, "{r}");
        }
    }

    // The HTML report carries the suite's page.
    let html = dir.path().join("r.html");
    let out = kura(&db)
        .args(["report", "latest", "-o"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .contains("mdtest-hard-delete")
    );

    // The phase numbers again from the stored jobs themselves, and the score from them.
    let jobs = j["jobs"].as_array().unwrap();
    let job = |test: &str| jobs.iter().find(|x| x["test"] == test).unwrap();
    let gib = (1u64 << 30) as f64;
    let bw: Vec<f64> = [
        ("ior-easy-write", "write"),
        ("ior-hard-write", "write"),
        ("ior-easy-read", "read"),
        ("ior-hard-read", "read"),
    ]
    .iter()
    .map(|(t, d)| job(t)[d]["bytes_per_sec"].as_f64().unwrap() / gib)
    .collect();
    let op = |t: &str, o: &str| job(t)["operations"][o]["iops"].as_f64().unwrap() / 1000.0;
    let md = [
        op("mdtest-easy", "create"),
        op("mdtest-hard", "create"),
        op("mdtest-easy", "stat"),
        op("mdtest-hard", "stat"),
        op("mdtest-easy", "delete"),
        job("mdtest-hard")["read"]["iops"].as_f64().unwrap() / 1000.0,
        op("mdtest-hard", "delete"),
    ];
    let want = (geomean(&bw) * geomean(&md)).sqrt();
    let score = &j["io500"];
    assert!((score["bandwidth_gib_s"].as_f64().unwrap() - geomean(&bw)).abs() <= 1e-9 * geomean(&bw));
    assert!((score["metadata_kiops"].as_f64().unwrap() - geomean(&md)).abs() <= 1e-9 * geomean(&md));
    assert!(
        (score["score"].as_f64().unwrap() - want).abs() <= 1e-9 * want,
        "{score} vs {want}"
    );

    // The stonewall ended mdtest-easy's create phase before its 100,000 files:
    // stat and delete took exactly the files made.
    let easy = job("mdtest-easy");
    let made = easy["operations"]["create"]["ops"].as_u64().unwrap();
    assert!(
        made < 100_000,
        "the stonewall did not end the create phase: {made}"
    );
    assert_eq!(easy["operations"]["stat"]["ops"].as_u64(), Some(made));
    assert_eq!(easy["operations"]["delete"]["ops"].as_u64(), Some(made));
    let wall = &easy["cluster"]["stonewall"];
    assert_eq!(wall["ops_at_deadline"].as_u64(), Some(made), "{wall}");
    // mdtest-hard's files are written and read whole: 3901 bytes each.
    let hard = job("mdtest-hard");
    let files = hard["read"]["ops"].as_u64().unwrap();
    assert_eq!(hard["read"]["bytes"].as_u64(), Some(files * 3901));
    // ior-hard moves 47008-byte transfers.
    let w = &job("ior-hard-write")["write"];
    assert_eq!(w["bytes"].as_u64().unwrap(), w["ops"].as_u64().unwrap() * 47008);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    for (args, says) in [
        (vec![d.as_str(), "--stonewall", "0s"], "--stonewall"),
        (vec![d.as_str(), "--stonewall", "soon"], "--stonewall"),
        (
            vec![d.as_str(), "--easy-size", "1m", "--easy-transfer", "2m"],
            "--easy-size",
        ),
        (vec![d.as_str(), "--hard-files", "0"], "--hard-files"),
        (vec![d.as_str(), "--easy-files", "many"], "--easy-files"),
        (vec![d.as_str(), "--hard-segments", "1.5"], "--hard-segments"),
        (vec![file.to_str().unwrap()], "not a directory"),
        // IO500's own size does not fit here: refused before anything is written.
        (vec![d.as_str(), "--stonewall", "1s"], "free"),
    ] {
        let out = kura(&db).args(["suite", "io500"]).args(&args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "plain" && n != "k.db")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// mdtest-easy's set lives in `DIR/kura-rank-0/kura-fileset`: somebody's
/// directory there is refused before the first phase, not after ior-easy
/// has measured and been stored.
#[test]
fn a_foreign_set_at_a_ranks_name_is_refused_before_any_phase() {
    let dir = tmp();
    let data = dir.path().join("data");
    let foreign = data.join("kura-rank-0/kura-fileset");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), b"precious").unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["suite", "io500"])
        .arg(&data)
        .args(QUICK)
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr_of(&out));
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("kura-rank-0/kura-fileset") && !all.contains("jobs before it are stored"),
        "{all}"
    );
    assert!(!data.join("kura-io500-easy.dat").exists(), "a phase ran");
    assert_eq!(std::fs::read(foreign.join("notes.txt")).unwrap(), b"precious");
}

/// Issue 34: docs/safety.md's table named `DIR/kura-io500-easy.dat` and
/// the mdtest sets in `DIR/kura-fileset`; one process writes
/// `kura-io500-easy.dat.0` and `kura-rank-0/kura-fileset`. Every name a
/// kept run leaves in DIR (and in its `kura-rank-*` directories) is in the
/// suite's row.
#[test]
fn every_name_one_process_writes_is_in_the_safety_table() {
    let dir = tmp();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = dir.path().join("k.db");
    let out = kura(&db)
        .args(["suite", "io500"])
        .arg(&data)
        .args(QUICK)
        .arg("--keep")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/safety.md")).unwrap();
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `suite io500 [DIR]` |"))
        .expect("the suite's row");
    let made = row.split(" | ").nth(1).unwrap();
    let mut names = Vec::new();
    for e in std::fs::read_dir(&data).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        if name.starts_with("kura-rank-") {
            for inner in std::fs::read_dir(data.join(&name)).unwrap() {
                names.push(format!("{name}/{}", inner.unwrap().file_name().to_string_lossy()));
            }
        }
        names.push(name);
    }
    assert!(names.len() >= 5, "{names:?}");
    for name in &names {
        assert!(
            made.contains(&format!("`DIR/{name}`")),
            "{name} is not in: {made}"
        );
    }
}
