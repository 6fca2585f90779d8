//! Issue 34: the write gate sees the whole block stack and pins what it
//! decided for the run. Real loop devices stacked on loop devices (this
//! kernel has no device-mapper or md), real ext4 mounted on the top or the
//! bottom of the stack; each refusal is checked by the bytes (sha256) and
//! by `e2fsck -n` of the file system that was at risk.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{LoopDevice, TempMount, kura, need, run, sh, stderr_of, tmp};

const MIB: u64 = 1 << 20;

fn sha256(path: &Path) -> String {
    sh(&format!("sha256sum '{}' | cut -d' ' -f1", path.display()))
}

/// `e2fsck -n` (look, change nothing) finds the file system clean.
fn fsck_clean(dev: &Path) {
    let out = Command::new("e2fsck")
        .arg("-n")
        .arg("-f")
        .arg(dev)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "e2fsck -n {}: {}{}",
        dev.display(),
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
}

/// `kura run` writing `target` for a moment, with more arguments.
fn write_run(db: &Path, target: &Path, more: &[&str]) -> std::process::Output {
    kura(db)
        .args([
            "run",
            "--rw",
            "randwrite",
            "--bs",
            "4k",
            "--size",
            "4m",
            "--runtime",
            "1s",
            "--target",
        ])
        .arg(target)
        .args(more)
        .output()
        .unwrap()
}

/// kura started in the background on `db` with `args`, its output piped.
fn spawn_kura(db: &Path, args: &[&str]) -> std::process::Child {
    common::cmd::child(db)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits, at most a minute or two, until `ready` holds.
fn wait_until(mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !ready() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Until a kura holds `file`'s lock: a shared lock of ours is then refused.
fn wait_locked(file: &Path) {
    wait_until(|| {
        use std::os::fd::AsRawFd;
        let Ok(probe) = std::fs::File::open(file) else {
            return false;
        };
        // SAFETY: the descriptor is open for the call; flock only reads its integer arguments.
        let free = unsafe { libc::flock(probe.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0;
        !free
    });
}

fn refused(out: &std::process::Output, why: &str) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(why), "expected {why:?} in: {err}");
}

#[test]
fn a_device_under_a_mounted_loop_at_an_offset_is_never_written() {
    if !need(&["losetup", "mkfs.ext4", "e2fsck", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let lower = LoopDevice::sized(64 * MIB);
    let upper = LoopDevice::over_device(&lower.path, &["-o", "16M", "--sizelimit", "32M"]);
    upper.mkfs_ext4();
    {
        // Read-only: a mount writes nothing of its own, so any change is kura's.
        let _mounted = TempMount::new(&["-o", "ro"], &upper.path);
        let before = sha256(&lower.path);
        let out = write_run(&db, &lower.path, &[]);
        refused(&out, "mounted");
        assert!(
            stderr_of(&out).contains(&upper.path.display().to_string()),
            "{}",
            stderr_of(&out)
        );
        // Not even when the user allows destroying the lower device.
        let lower_name = lower.path.display().to_string();
        let out = write_run(&db, &lower.path, &["--allow-destroy", &lower_name]);
        refused(&out, "mounted");
        assert_eq!(sha256(&lower.path), before, "the lower device was written");
    }
    fsck_clean(&upper.path);
}

#[test]
fn a_two_level_chain_over_a_mounted_device_is_never_written() {
    if !need(&["losetup", "mkfs.ext4", "e2fsck", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let bottom = LoopDevice::sized(64 * MIB);
    bottom.mkfs_ext4();
    let middle = LoopDevice::over_device(&bottom.path, &[]);
    let top = LoopDevice::over_device(&middle.path, &["-o", "1M"]);
    {
        let _mounted = TempMount::new(&["-o", "ro"], &bottom.path);
        let before = sha256(&bottom.path);
        for target in [&top.path, &middle.path] {
            let out = write_run(&db, target, &[]);
            refused(&out, "mounted");
            let name = target.display().to_string();
            let out = write_run(&db, target, &["--allow-destroy", &name]);
            refused(&out, "mounted");
        }
        let err = stderr_of(&write_run(&db, &top.path, &[]));
        assert!(
            err.contains(&bottom.path.display().to_string()),
            "names the mounted device: {err}"
        );
        assert_eq!(sha256(&bottom.path), before, "the mounted device was written");
    }
    fsck_clean(&bottom.path);
    // Unmounted, the same chain is the user's to write when they name it.
    let name = top.path.display().to_string();
    let out = write_run(&db, &top.path, &["--allow-destroy", &name]);
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn a_loop_over_a_partition_sees_the_disk_it_is_cut_from() {
    if !need(&["losetup", "mkfs.ext4", "sfdisk", "sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let disk = LoopDevice::over(64 * MIB, &[], true);
    run(Command::new("sh").arg("-c").arg(format!(
        "printf 'label: dos\\n,24M\\n,24M\\n' | sfdisk -q {}",
        disk.path.display()
    )));
    run(Command::new("partx").args(["-u"]).arg(&disk.path));
    let p1 = Path::new(&format!("{}p1", disk.path.display())).to_path_buf();
    let p2 = Path::new(&format!("{}p2", disk.path.display())).to_path_buf();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(p1.exists() && p2.exists()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    common::mkfs_ext4(&p1);
    // A loop over the whole disk covers the mounted partition's bytes.
    let over_disk = LoopDevice::over_device(&disk.path, &["-o", "1M"]);
    {
        let _mounted = TempMount::new(&["-o", "ro"], &p1);
        let before = sha256(&p1);
        let name = over_disk.path.display().to_string();
        let out = write_run(&db, &over_disk.path, &["--allow-destroy", &name]);
        refused(&out, "mounted");
        // The other partition holds other bytes: it stays the user's to write.
        let out = write_run(&db, &p2, &[]);
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert_eq!(sha256(&p1), before, "the mounted partition was written");
    }
}

/// `mark LINK` measures several tests one after another; a link swapped
/// while the first runs must not send the later ones to another file.
#[test]
fn a_link_swapped_during_a_run_stops_it_before_the_other_file_is_touched() {
    if !need(&["sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let first = dir.path().join("first.dat");
    let other = dir.path().join("other.dat");
    for file in [&first, &other] {
        std::fs::File::create(file).unwrap().set_len(16 * MIB).unwrap();
    }
    std::fs::write(&other, vec![0x5a; 16 * MIB as usize]).unwrap();
    let before = sha256(&other);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let link_name = link.display().to_string();
    let args = [
        "mark",
        &link_name,
        "--size",
        "8m",
        "--runs",
        "2",
        "--runtime",
        "1s",
        "--interval",
        "0s",
    ];
    let child = spawn_kura(&db, &[&args[..], &["--allow-destroy", &link_name]].concat());
    // Swap once the first test is stored: the rest of the grid is still to run.
    wait_until(|| common::finished_jobs(&db) >= 1);
    let swapped = dir.path().join("link.new");
    std::os::unix::fs::symlink(&other, &swapped).unwrap();
    std::fs::rename(&swapped, &link).unwrap();
    let out = child.wait_with_output().unwrap();
    // The warning is wrapped at 80 columns wherever the temporary path puts the break.
    let err = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr_of(&out)).replace("\n  ", " ");
    assert_ne!(
        out.status.code(),
        Some(0),
        "the run went on through the swapped link: {err}"
    );
    // Caught by the next job's pin, or by the next open of the job running when the link changed.
    assert!(
        err.contains("when this run checked it") || err.contains("no longer names the file"),
        "{err}"
    );
    assert_eq!(
        sha256(&other),
        before,
        "the file the link was swapped to was written"
    );
}

/// A file of random bytes (an encrypted container, a backup) carries no
/// signature: every verb that writes refuses it unless `--allow-destroy`
/// names it, and its bytes stay as they were.
#[test]
fn data_without_a_signature_is_written_only_when_allow_destroy_names_it() {
    if !need(&["sha256sum", "fio"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let secret = dir.path().join("secret.img");
    sh(&format!("head -c 8388608 /dev/urandom > '{}'", secret.display()));
    let before = sha256(&secret);
    let name = secret.display().to_string();
    let fio = dir.path().join("job.fio");
    std::fs::write(
        &fio,
        format!("[w]\nfilename={name}\nrw=randwrite\nbs=4k\nruntime=1\ntime_based\n"),
    )
    .unwrap();
    let toml = dir.path().join("job.toml");
    std::fs::write(
        &toml,
        format!("[[job]]\nname = \"w\"\ntarget = \"{name}\"\nrw = \"write\"\nruntime = \"1s\"\n"),
    )
    .unwrap();
    let attempts: Vec<Vec<&str>> = vec![
        vec!["run", "--target", &name, "--rw", "write", "--runtime", "1s"],
        vec!["run", fio.to_str().unwrap()],
        vec!["run", toml.to_str().unwrap()],
        vec![
            "mark",
            &name,
            "--runs",
            "1",
            "--runtime",
            "1s",
            "--interval",
            "0s",
        ],
        vec!["sweep", &name, "--runtime", "1s"],
        vec!["suite", "pts", &name, "--tests", "iops", "--scale", "0.0005"],
    ];
    for args in &attempts {
        let out = kura(&db).args(args).output().unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--allow-destroy"), "{args:?}: {err}");
        assert_eq!(sha256(&secret), before, "{args:?} wrote the file");
    }
    // Named, it is the user's to lose.
    let out = kura(&db)
        .args([
            "run",
            "--target",
            &name,
            "--rw",
            "randwrite",
            "--runtime",
            "1s",
            "--allow-destroy",
            &name,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_ne!(sha256(&secret), before);
}

/// What holds nothing needs no permission: a sparse file, a device of
/// zeros. A run that writes one decides once: its later tests find kura's
/// own data there and go on.
#[test]
fn what_holds_nothing_is_written_and_the_decision_lasts_the_run() {
    if !need(&["losetup"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let lo = LoopDevice::sized(32 * MIB);
    let dev = lo.path.display().to_string();
    let out = kura(&db)
        .args([
            "mark",
            &dev,
            "--size",
            "8m",
            "--runs",
            "1",
            "--runtime",
            "1s",
            "--interval",
            "0s",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let grid = String::from_utf8_lossy(&out.stdout);
    assert!(
        !grid.contains("INCOMPLETE") && grid.contains("RND4K Q1T1"),
        "{grid}"
    );
    // The next run finds data kura did not write in this run: refused, named.
    let out = write_run(&db, &lo.path, &[]);
    refused(&out, "holds data kura did not write");
    let sparse = dir.path().join("sparse.img");
    std::fs::File::create(&sparse).unwrap().set_len(8 * MIB).unwrap();
    let out = write_run(&db, &sparse, &[]);
    assert!(out.status.success(), "{}", stderr_of(&out));
}

/// fio's `directory=` with no `filename=` makes kura derive the name
/// (`DIR/JOB.0.0`): a name kura picks, so a link planted there is refused,
/// even to a file that holds nothing.
#[test]
fn a_link_at_a_name_derived_from_a_fio_file_is_never_followed() {
    if !need(&["sha256sum"]) {
        return;
    }
    let dir = tmp();
    let db = dir.path().join("k.db");
    let files = dir.path().join("f");
    std::fs::create_dir(&files).unwrap();
    let victim = dir.path().join("victim.img");
    std::fs::File::create(&victim).unwrap().set_len(8 * MIB).unwrap();
    std::os::unix::fs::symlink(&victim, files.join("w.0.0")).unwrap();
    let fio = dir.path().join("job.fio");
    std::fs::write(
        &fio,
        format!(
            "[w]\ndirectory={}\nrw=randwrite\nbs=4k\nsize=4m\nruntime=1\ntime_based\n",
            files.display()
        ),
    )
    .unwrap();
    let out = kura(&db).arg("run").arg(&fio).output().unwrap();
    refused(&out, "symbolic link");
    assert_eq!(
        std::fs::metadata(&victim).unwrap().blocks(),
        0,
        "the link's target was written"
    );
    // The same through fio's flag.
    let out = kura(&db)
        .args([
            "run",
            "--name=w",
            "--rw=randwrite",
            "--bs=4k",
            "--size=4m",
            "--runtime=1",
            "--time_based",
        ])
        .arg(format!("--directory={}", files.display()))
        .output()
        .unwrap();
    refused(&out, "symbolic link");
    assert_eq!(
        std::fs::metadata(&victim).unwrap().blocks(),
        0,
        "the link's target was written"
    );
}

/// Two kuras on one named file would each measure the other's I/O: the
/// second is refused while the first holds the file.
#[test]
fn a_second_kura_on_the_same_file_is_refused() {
    let dir = tmp();
    let file = dir.path().join("shared.img");
    std::fs::File::create(&file).unwrap().set_len(32 * MIB).unwrap();
    let name = file.display().to_string();
    let a_db = dir.path().join("a.db");
    let args = [
        "run",
        "--target",
        &name,
        "--rw",
        "randwrite",
        "--runtime",
        "30s",
        "--allow-destroy",
        &name,
    ];
    let mut first = spawn_kura(&a_db, &args);
    wait_locked(&file);
    let db = dir.path().join("b.db");
    let mut outs = Vec::new();
    for rw in ["randread", "randwrite"] {
        outs.push(
            kura(&db)
                .args([
                    "run",
                    "--target",
                    &name,
                    "--rw",
                    rw,
                    "--runtime",
                    "1s",
                    "--allow-destroy",
                    &name,
                ])
                .output()
                .unwrap(),
        );
    }
    let pid = first.id();
    let _ = first.kill();
    for out in &outs {
        refused(
            out,
            &format!("another process (pid {pid}) holds a lock on it (another kura run?)"),
        );
    }
    let _ = first.wait();
}

/// A kura killed with SIGKILL leaves its test file at the path it was
/// named. The next run there knows it by kura's mark as that kura's
/// leftover, not as data kura did not write: it removes it, says so, makes
/// its own test file (larger here) and removes that at its end.
#[test]
fn a_test_file_a_killed_kura_left_at_a_named_path_is_known_by_its_mark() {
    let dir = tmp();
    let file = dir.path().join("new.dat");
    let name = file.display().to_string();
    let db = dir.path().join("k.db");
    let mut first = spawn_kura(
        &db,
        &[
            "run",
            "--target",
            &name,
            "--size",
            "8m",
            "--rw",
            "randwrite",
            "--runtime",
            "60s",
        ],
    );
    wait_locked(&file);
    let pid = first.id();
    first.kill().unwrap();
    let _ = first.wait();
    assert!(file.exists(), "SIGKILL left no test file to find");
    let out = kura(&db)
        .args([
            "run",
            "--target",
            &name,
            "--size",
            "16m",
            "--rw",
            "randwrite",
            "--runtime",
            "1s",
        ])
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("a test file left by kura pid {pid}")),
        "{err}"
    );
    assert!(!file.exists(), "the test file this run made was left");
}

/// A lock another program holds (here this test, with flock(2)) refuses
/// the run the same way, and the words do not claim it is a kura: they name
/// the process that holds it, from /proc/locks.
#[test]
fn a_lock_another_program_holds_is_named_as_a_process_lock() {
    use std::os::fd::AsRawFd;
    let dir = tmp();
    let file = dir.path().join("locked.img");
    std::fs::File::create(&file).unwrap().set_len(8 * MIB).unwrap();
    let before = sha256(&file);
    let holder = std::fs::File::open(&file).unwrap();
    // SAFETY: the descriptor is open for the call; flock only reads its integer arguments.
    let locked = unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(locked, 0);
    let name = file.display().to_string();
    let out = write_run(&dir.path().join("k.db"), &file, &["--allow-destroy", &name]);
    let err = stderr_of(&out);
    refused(
        &out,
        &format!(
            "another process (pid {}) holds a lock on it (another kura run?)",
            std::process::id()
        ),
    );
    assert!(!err.contains("in use by another kura"), "{err}");
    drop(holder);
    assert_eq!(sha256(&file), before, "the locked file was written");
}
