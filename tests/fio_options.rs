//! Issue 17's fio options that change the I/O, checked on real I/O: each
//! does what fio does with the same job file (fio itself runs it where the
//! effect is in the bytes written), or what fio's documentation says.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Running, json, kura, tmp};

/// The offsets of the 4 KiB blocks of `file` that hold `pattern` repeated.
fn pattern_blocks(file: &Path, pattern: &[u8]) -> Vec<u64> {
    let data = std::fs::read(file).unwrap();
    let want: Vec<u8> = pattern.iter().copied().cycle().take(4096).collect();
    data.chunks(4096)
        .enumerate()
        .filter(|(_, b)| *b == want.as_slice())
        .map(|(i, _)| i as u64 * 4096)
        .collect()
}

fn job_file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// offset_increment: clone N writes `size` bytes from N increments in, and
/// buffer_pattern: what it writes is the pattern. kura and fio, given the
/// same job, write the pattern into the same blocks.
#[test]
fn offset_increment_and_buffer_pattern_write_where_and_what_fio_writes() {
    let dir = tmp();
    let d = dir.path();
    let job = |target: &Path| {
        format!(
            "[inc]\nfilename={}\nsize=64k\nrw=write\nbs=4k\noffset_increment=256k\nnumjobs=3\n\
             buffer_pattern=0xdeadbeef\"kura\"\n",
            target.display()
        )
    };
    let pattern = [0xde, 0xad, 0xbe, 0xef, b'k', b'u', b'r', b'a'];
    let kura_target = d.join("by-kura");
    let file = job_file(d, "k.fio", &job(&kura_target));
    kura(&d.join("k.db"))
        .args(["run", "--keep"])
        .arg(&file)
        .assert()
        .success();
    let by_kura = pattern_blocks(&kura_target, &pattern);
    let expected: Vec<u64> = [0u64, 256 << 10, 512 << 10]
        .iter()
        .flat_map(|start| (0..16).map(move |i| start + i * 4096))
        .collect();
    assert_eq!(by_kura, expected, "blocks kura wrote the pattern into");
    if !common::have("fio") {
        return;
    }
    let fio_target = d.join("by-fio");
    let file = job_file(d, "f.fio", &job(&fio_target));
    let out = Command::new("fio")
        .arg("--output=/dev/null")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
    assert_eq!(
        pattern_blocks(&fio_target, &pattern),
        by_kura,
        "fio and kura differ"
    );
}

/// The open flags of the descriptor `pid` holds on `target`, from /proc.
fn open_flags(pid: u32, target: &Path) -> Vec<u32> {
    // kura may hold the file open more than once at a time (the lock on its
    // test file beside the measured descriptor): every one is read.
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter(|fd| std::fs::read_link(fd.path()).ok().as_deref() == Some(target))
        .filter_map(|fd| {
            let info =
                std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy()))
                    .ok()?;
            let flags = info.lines().find_map(|l| l.strip_prefix("flags:"))?;
            u32::from_str_radix(flags.trim(), 8).ok()
        })
        .collect()
}

/// sync=1 opens the target with O_SYNC, sync=dsync with O_DSYNC (fio.1),
/// sync=0 with neither: what the running kura's descriptor holds.
#[test]
fn sync_opens_with_o_sync_or_o_dsync() {
    let dir = tmp();
    let d = dir.path();
    for (value, want) in [
        ("1", libc::O_SYNC as u32),
        ("dsync", libc::O_DSYNC as u32),
        ("0", 0),
    ] {
        let target = d.join(format!("s{value}"));
        let file = job_file(
            d,
            &format!("s{value}.fio"),
            &format!(
                "[s]\nfilename={}\nsize=1m\nrw=write\nsync={value}\nruntime=30\ntime_based\n",
                target.display()
            ),
        );
        let running = Running::start(common::kura_command(&d.join("k.db")).arg("run").arg(&file));
        let pid = running.pid() as u32;
        let mut flags = Vec::new();
        // kura opens the target more than once (pre-fill, checks, the lock on
        // its test file, then the measured descriptor): wait for one with the
        // flags wanted, or, for sync=0, any.
        let _ = running
            .wait_for(&format!("sync={value}: the target open with its flags"), || {
                let seen = open_flags(pid, &target);
                if !seen.is_empty() {
                    flags = seen;
                }
                match want {
                    0 => !flags.is_empty(),
                    _ => flags.iter().any(|f| f & libc::O_SYNC as u32 == want),
                }
            })
            .signal(libc::SIGINT)
            .finish();
        assert!(!flags.is_empty(), "sync={value}: the target was never open");
        let shown: Vec<String> = flags.iter().map(|f| format!("{f:o}")).collect();
        if want == 0 {
            assert!(
                flags.iter().all(|f| f & libc::O_SYNC as u32 == 0),
                "sync={value}: flags {shown:?}"
            );
        } else {
            assert!(
                flags.iter().any(|f| f & libc::O_SYNC as u32 == want),
                "sync={value}: flags {shown:?}"
            );
        }
    }
}

/// rate_iops_min: a thread below the minimum fails the run (exit 1), naming
/// the option, after fio's two-second settling time; above it, the run passes.
#[test]
fn rate_iops_min_fails_the_job_below_the_minimum() {
    let dir = tmp();
    let d = dir.path();
    let run = |min: u32| {
        let file = job_file(
            d,
            &format!("r{min}.fio"),
            &format!(
                "[r]\nfilename={}\nsize=1m\nrw=randread\nrate_iops=20\nrate_iops_min={min}\nruntime=5\ntime_based\n",
                d.join("r").display()
            ),
        );
        kura(&d.join("k.db"))
            .args(["--json", "run"])
            .arg(&file)
            .output()
            .unwrap()
    };
    let below = run(100);
    assert_eq!(below.status.code(), Some(1), "{}", common::stderr_of(&below));
    let v = json(&below.stdout);
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("below_min_rate"), "{warnings}");
    assert!(warnings.contains("rate_iops_min 100"), "{warnings}");
    // Stopped at a check after settling, before the runtime: a job that
    // ran its course reports its runtime exactly.
    let job = &v["jobs"][0];
    assert!(
        job["elapsed_ns"].as_u64().unwrap() < job["job"]["runtime_ns"].as_u64().unwrap(),
        "{job}"
    );
    let above = run(2);
    assert_eq!(above.status.code(), Some(0), "{}", common::stderr_of(&above));
}

/// exitall: when the short job of a group ends, the long one stops too,
/// and both are whole results.
#[test]
fn exitall_stops_the_group_when_one_job_ends() {
    let dir = tmp();
    let d = dir.path();
    let file = job_file(
        d,
        "x.fio",
        &format!(
            "[global]\nfilename={}\nsize=1m\nrw=randread\nexitall\n\
             [short]\nruntime=1\ntime_based\n[long]\nruntime=60\ntime_based\n",
            d.join("x").display()
        ),
    );
    let v = json(
        &kura(&d.join("k.db"))
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    // The long job stopped before its runtime: one that ran its course
    // reports its runtime exactly.
    let long = &v["jobs"][1];
    assert!(
        long["elapsed_ns"].as_u64().unwrap() < long["job"]["runtime_ns"].as_u64().unwrap(),
        "{long}"
    );
    assert_eq!(v["incomplete"], false);
}

/// bssplit=R,W: reads and writes of a mix each take their own sizes.
#[test]
fn a_mix_reads_and_writes_with_their_own_block_sizes() {
    let dir = tmp();
    let d = dir.path();
    let file = job_file(
        d,
        "b.fio",
        &format!(
            "[b]\nfilename={}\nsize=4m\nrw=randrw\nbssplit=4k/50:8k/50,64k/100\nnumber_ios=400\n",
            d.join("b").display()
        ),
    );
    let v = json(
        &kura(&d.join("k.db"))
            .args(["--json", "run"])
            .arg(&file)
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let j = &v["jobs"][0];
    let per_op = |dir: &str| j[dir]["bytes"].as_f64().unwrap() / j[dir]["ops"].as_f64().unwrap();
    assert_eq!(per_op("write"), 65536.0);
    let read = per_op("read");
    assert!(read > 4096.0 && read < 8192.0, "{read} bytes per read");
}
