//! The ground-truth suite: stand-in disks of known speed, against which
//! kura's verdicts are proven (issue 35, docs/compare.md "When kura picks").
//! A stand-in is a loop device over a file on the machine's disk, read with
//! direct I/O, throttled by a cgroup v1 blkio group to a set number of reads
//! a second; kura runs inside that group. Runs of the targets are made in
//! turns (A, B, C, A, B, C, ...) so that the machine's drift falls on all.
//!
//! What must hold: identical stand-ins are never picked apart; one twice as
//! fast is picked, at the set ratio; the same device under two labels is
//! said to be one; a run from the page cache gives no pick.

mod common;

use std::path::Path;

use common::{Cgroup, LoopDevice, json, tmp};

/// Stand-ins share the disk under /tmp and the blkio groups: one test at a time.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Stand-in disks in one blkio group, each throttled to its own reads a second.
struct StandIns {
    devs: Vec<LoopDevice>,
    cg: Cgroup,
}

fn stand_ins(name: &str, iops: &[u32]) -> Option<StandIns> {
    if !common::need(&["losetup"]) {
        return None;
    }
    let cg = Cgroup::blkio(name)?;
    let mut devs = Vec::new();
    let mut rules = Vec::new();
    for &rate in iops {
        let dev = LoopDevice::direct(16 << 20, 0x5a);
        rules.push(format!("{} {rate}", dev.majmin()));
        devs.push(dev);
    }
    for rule in rules {
        std::fs::write(cg.0.join("blkio.throttle.read_iops_device"), rule).unwrap();
    }
    Some(StandIns { devs, cg })
}

/// One second of 4 KiB random reads at queue depth 4, direct.
const READS: &str = "--rw randread --bs 4k --qd 4 --runtime 1s --direct";

/// `runs` runs of each (label, target), in turns.
fn in_turns(cg: &Cgroup, db: &Path, targets: &[(&str, &Path)], runs: usize) {
    let priced: Vec<(&str, &Path, &str)> = targets.iter().map(|(l, t)| (*l, *t, "")).collect();
    priced_in_turns(cg, db, &priced, runs);
}

/// The same, each (label, target, price) with its price ("" for none).
fn priced_in_turns(cg: &Cgroup, db: &Path, targets: &[(&str, &Path, &str)], runs: usize) {
    for _ in 0..runs {
        for (label, target, price) in targets {
            let price = if price.is_empty() {
                String::new()
            } else {
                format!("--price '{price}'")
            };
            let args = format!(
                "run --target {} --label {label} {price} {READS}",
                target.display()
            );
            let out = common::kura_in(cg, db, &args);
            assert!(out.status.success(), "kura {args}: {}", common::stderr_of(&out));
        }
    }
}

fn compare(db: &Path, labels: &[&str]) -> serde_json::Value {
    let out = common::kura(db)
        .args(["--json", "compare", "--repeats"])
        .args(labels)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    json(&out.stdout)
}

fn all_rows<'a>(v: &'a serde_json::Value, key: &str) -> Vec<&'a serde_json::Value> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["class"] == "all")
        .collect()
}

/// Two stand-ins throttled alike, and two at twice their rate priced 12
/// to 1 (io1 against gp2: the same disk at 1/12 of the price), five runs
/// each in turns: the identical pairs are never picked apart, the fast ones
/// are found at the set ratio, and the one pick is the cheaper fast one.
#[test]
fn identical_stand_ins_are_never_picked_apart_and_the_cheaper_2x_one_is_picked() {
    let _m = measuring();
    let Some(s) = stand_ins("truth", &[300, 300, 600, 600]) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let targets = [
        ("A", s.devs[0].path.as_path(), "10 USD/month"),
        ("A2", s.devs[1].path.as_path(), "10 USD/month"),
        ("io1", s.devs[2].path.as_path(), "120 USD/month"),
        ("gp2", s.devs[3].path.as_path(), "10 USD/month"),
    ];
    priced_in_turns(&s.cg, &db, &targets, 5);
    let v = compare(&db, &["A", "A2", "io1", "gp2"]);
    let lines = all_rows(&v, "guidance");
    let text = |g: &serde_json::Value| g["text"].as_str().unwrap().to_string();
    let a2 = lines.iter().find(|g| g["target"] == 1).unwrap();
    assert!(
        !matches!(a2["verdict"].as_str(), Some("better" | "worse" | "mixed")),
        "identical stand-ins picked apart: {}",
        text(a2)
    );
    for fast in [2, 3] {
        let g = lines.iter().find(|g| g["target"] == fast).unwrap();
        assert_eq!(g["verdict"], "better", "{}", text(g));
        let factor = g["factor"].as_f64().unwrap();
        assert!(
            (1.7..=2.3).contains(&factor),
            "set 2.0x, found {factor:.2}x: {}",
            text(g)
        );
    }
    let pick = all_rows(&v, "picks")[0];
    assert_eq!(
        (pick["target"].as_u64(), pick["reason"].as_str()),
        (Some(3), Some("cheapest_of_alike")),
        "{}",
        pick["text"]
    );
    assert_eq!(pick["not_slower"], serde_json::json!([2, 3]), "{}", pick["text"]);
    // Without the cheap one, the fast one is picked as the fastest.
    let v = compare(&db, &["A", "A2", "io1"]);
    let pick = all_rows(&v, "picks")[0];
    assert_eq!(
        (pick["target"].as_u64(), pick["reason"].as_str()),
        (Some(2), Some("fastest")),
        "{}",
        pick["text"]
    );
    // A and A2 tell each other apart in neither direction.
    let v = compare(&db, &["A2", "A"]);
    let pick = all_rows(&v, "picks")[0];
    assert_eq!(pick["target"], serde_json::Value::Null, "{}", pick["text"]);
}

/// The same stand-in run under two labels: compare says they are one
/// target (its device number and diskseq), and ranks neither.
#[test]
fn the_same_stand_in_under_two_labels_is_said_to_be_one() {
    let _m = measuring();
    let Some(s) = stand_ins("same", &[300]) else {
        return;
    };
    let dir = tmp();
    let db = dir.path().join("k.db");
    let dev = s.devs[0].path.as_path();
    in_turns(&s.cg, &db, &[("X", dev), ("Y", dev)], 2);
    let v = compare(&db, &["X", "Y"]);
    let line = all_rows(&v, "guidance")[0];
    assert_eq!(line["verdict"], "same_target", "{}", line["text"]);
    let text = line["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("the same block device {}", s.devs[0].majmin())),
        "{text}"
    );
    assert_eq!(all_rows(&v, "picks")[0]["reason"], "same_target");
}

/// A loop device over a file in /dev/shm runs at memory speed: that run
/// is flagged (kura warns of it) and left out of the pick, though it is many
/// times faster than the disk it is compared with.
#[test]
fn a_run_from_memory_gives_no_pick() {
    let _m = measuring();
    let Some(s) = stand_ins("memory", &[300]) else {
        return;
    };
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let Some(memory) = LoopDevice::new(shm.path(), 16 << 20) else {
        return;
    };
    std::fs::write(&memory.backing, vec![0x5a; 16 << 20]).unwrap();
    let dir = tmp();
    let db = dir.path().join("k.db");
    let targets = [
        ("disk", s.devs[0].path.as_path()),
        ("memory", memory.path.as_path()),
    ];
    in_turns(&s.cg, &db, &targets, 4);
    let v = compare(&db, &["disk", "memory"]);
    let line = all_rows(&v, "guidance")[0];
    assert_eq!(line["verdict"], "flagged", "{}", line["text"]);
    assert!(line["factor"].as_f64().unwrap() > 2.0, "{}", line["text"]);
    let pick = all_rows(&v, "picks")[0];
    assert_eq!(pick["target"], serde_json::Value::Null, "{}", pick["text"]);
    assert_eq!(pick["left_out"], serde_json::json!([1]), "{}", pick["text"]);
    assert!(
        pick["text"]
            .as_str()
            .unwrap()
            .contains("memory (its data was in memory)"),
        "{}",
        pick["text"]
    );
}
