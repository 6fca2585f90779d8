//! The write-safety check and target preparation against real block devices:
//! loop devices over temp files, file systems made and mounted on them. Needs
//! root and util-linux/e2fsprogs; without them each test prints a note and
//! passes, unless KURA_REQUIRE_ALL=1 makes a missing tool a failure.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use kura::jobs::{BlockSize, Job, Rw};
use kura::metrics::TargetKind;
use kura::targets::{self, TargetOptions, check_device_writable};

use common::{LoopDevice, TempMount, mkfs_ext4, need, run};

const MIB: u64 = 1 << 20;

/// Active swap on a device, turned off on drop.
struct Swap {
    dev: PathBuf,
}

impl Drop for Swap {
    fn drop(&mut self) {
        let _ = Command::new("swapoff").arg(&self.dev).status();
    }
}

fn job(target: &Path, rw: Rw) -> Job {
    Job {
        target: Some(target.to_path_buf()),
        rw,
        ..Job::default()
    }
}

fn allow(dev: &Path) -> TargetOptions {
    TargetOptions {
        allow_destroy: Some(dev.to_path_buf()),
        ..TargetOptions::default()
    }
}

#[test]
fn a_fresh_zeroed_device_is_writable() {
    if !need(&["losetup"]) {
        return;
    }
    let lo = LoopDevice::sized(64 * MIB);
    check_device_writable(&lo.path, None).unwrap();
    let prepared = targets::prepare(&job(&lo.path, Rw::RandWrite), &TargetOptions::default()).unwrap();
    assert_eq!(prepared.kind, TargetKind::Block);
    assert!(!prepared.created);
}

#[test]
fn an_ext4_device_needs_allow_destroy_naming_it() {
    if !need(&["losetup", "mkfs.ext4"]) {
        return;
    }
    let lo = LoopDevice::sized(64 * MIB);
    let other = LoopDevice::sized(MIB);
    lo.mkfs_ext4();
    let shown = lo.path.display().to_string();

    let err = check_device_writable(&lo.path, None).unwrap_err().to_string();
    assert!(err.contains("ext4"), "{err}");
    assert!(err.contains(&format!("--allow-destroy {shown}")), "{err}");

    check_device_writable(&lo.path, Some(&lo.path)).unwrap();

    let err = check_device_writable(&lo.path, Some(&other.path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ext4") && err.contains(&other.path.display().to_string()),
        "{err}"
    );

    // The same rules through prepare; reading needs no permission at all.
    let err = targets::prepare(&job(&lo.path, Rw::Write), &TargetOptions::default()).unwrap_err();
    assert!(matches!(err, targets::TargetError::Refused(_)), "{err}");
    targets::prepare(&job(&lo.path, Rw::Write), &allow(&lo.path)).unwrap();
    targets::prepare(&job(&lo.path, Rw::RandRead), &TargetOptions::default()).unwrap();
}

#[test]
fn a_mounted_device_is_refused_even_with_allow_destroy() {
    if !need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let lo = LoopDevice::sized(64 * MIB);
    lo.mkfs_ext4();
    let mount = TempMount::new(&["-t", "ext4"], &lo.path);
    let err = check_device_writable(&lo.path, Some(&lo.path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mounted on") && err.contains(&mount.dir.path().display().to_string()),
        "{err}"
    );
    assert!(err.contains("not even with --allow-destroy"), "{err}");
    let err = targets::prepare(&job(&lo.path, Rw::RandRw), &allow(&lo.path))
        .unwrap_err()
        .to_string();
    assert!(err.contains("mounted"), "{err}");
}

#[test]
fn a_disk_with_a_mounted_partition_is_refused() {
    if !need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    // One Linux partition from sector 2048 to the end, in a hand-made MBR.
    let sectors = (64 * MIB / 512) as u32;
    let mut mbr = vec![0u8; 512];
    mbr[0x1BE + 4] = 0x83;
    mbr[0x1BE + 8..0x1BE + 12].copy_from_slice(&2048u32.to_le_bytes());
    mbr[0x1BE + 12..0x1BE + 16].copy_from_slice(&(sectors - 2048).to_le_bytes());
    mbr[0x1FE] = 0x55;
    mbr[0x1FF] = 0xAA;
    let lo = LoopDevice::over(64 * MIB, &mbr, true);
    let err = check_device_writable(&lo.path, None).unwrap_err().to_string();
    assert!(err.contains("MBR partition table"), "{err}");
    check_device_writable(&lo.path, Some(&lo.path)).unwrap();

    let part = PathBuf::from(format!("{}p1", lo.path.display()));
    let in_sysfs = Path::new("/sys/class/block").join(format!("{}p1", lo.name()));
    if !in_sysfs.exists() {
        // The kernel's build, not a tool: one without CONFIG_MSDOS_PARTITION
        // finds no partition (the 6.18 "-fc" kernel these tests were run on
        // is one), and nothing .ci/run installs can add it, so this half
        // stays skipped even under KURA_REQUIRE_ALL. The table's check
        // above ran either way.
        eprintln!(
            "note: this kernel found no partition on {}; mounted-partition half skipped",
            lo.path.display()
        );
        return;
    }
    // devtmpfs creates the node; give it a moment.
    for _ in 0..50 {
        if part.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        part.exists(),
        "{} is in sysfs but has no device node",
        part.display()
    );

    mkfs_ext4(&part);
    let _mount = TempMount::new(&["-t", "ext4"], &part);
    let err = check_device_writable(&lo.path, Some(&lo.path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mounted") && err.contains(&part.display().to_string()),
        "{err}"
    );
}

#[test]
fn active_swap_is_refused_even_with_allow_destroy() {
    if !need(&["losetup", "mkswap", "swapon"]) {
        return;
    }
    let lo = LoopDevice::sized(16 * MIB);
    run(Command::new("mkswap").arg(&lo.path));
    let err = check_device_writable(&lo.path, None).unwrap_err().to_string();
    assert!(err.contains("swap area"), "{err}");
    let on = Command::new("swapon").arg(&lo.path).output().unwrap();
    if !on.status.success() {
        // A container that forbids root swapon (seccomp) withholds what the
        // tests need root for, as one that forbids losetup or mount would:
        // required under KURA_REQUIRE_ALL. The signature check above ran.
        common::missing(&format!(
            "swapon on a loop device (refused: {})",
            String::from_utf8_lossy(&on.stderr).trim()
        ));
        return;
    }
    let _swap = Swap { dev: lo.path.clone() };
    let err = check_device_writable(&lo.path, Some(&lo.path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("swap") && err.contains("not even with --allow-destroy"),
        "{err}"
    );
}

#[test]
fn prepare_device_reports_size_and_block_and_checks_the_span() {
    if !need(&["losetup"]) {
        return;
    }
    let lo = LoopDevice::sized(64 * MIB);
    let opts = TargetOptions::default();
    let t = targets::prepare(&job(&lo.path, Rw::RandRead), &opts).unwrap();
    assert_eq!((t.span_start, t.span_bytes), (0, 64 * MIB));
    assert_eq!(t.logical_block_bytes, 512);
    assert_eq!(t.facts.size_bytes, 64 * MIB);
    assert_eq!(t.facts.kind, TargetKind::Block);
    assert_eq!(t.facts.device.as_deref(), Some(lo.name().as_str()));
    assert_eq!(t.facts.fs_type, None);

    let mut j = job(&lo.path, Rw::RandRead);
    j.offset_bytes = MIB;
    j.size_bytes = Some(8 * MIB);
    let t = targets::prepare(&j, &opts).unwrap();
    assert_eq!((t.span_start, t.span_bytes), (MIB, 8 * MIB));

    j.offset_bytes = 0;
    j.size_bytes = Some(2 << 30);
    let err = targets::prepare(&j, &opts).unwrap_err().to_string();
    assert!(
        err.contains(&format!("size 2g is larger than {} (64m)", lo.path.display())),
        "{err}"
    );

    j.size_bytes = None;
    j.bs = vec![BlockSize {
        bytes: 1000,
        weight: 100,
    }];
    let err = targets::prepare(&j, &opts).unwrap_err().to_string();
    assert!(err.contains("bs 1000") && err.contains("512"), "{err}");
    j.direct = false;
    targets::prepare(&j, &opts).unwrap();
}

#[test]
fn prepare_file_creates_a_random_file_of_the_exact_size() {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let path = dir.path().join("kura-test.dat");
    let size = 5 * MIB + 512;
    let mut j = job(&path, Rw::RandRead);
    j.size_bytes = Some(size);
    let t = targets::prepare(&j, &TargetOptions::default()).unwrap();
    assert!(t.created);
    assert_eq!(t.kind, TargetKind::File);
    assert_eq!((t.span_start, t.span_bytes), (0, size));
    assert_eq!(t.logical_block_bytes % 512, 0);
    assert!(t.facts.fs_type.is_some());
    let data = std::fs::read(&path).unwrap();
    assert_eq!(data.len() as u64, size);
    let zeros = data.iter().filter(|b| **b == 0).count();
    assert!(zeros < data.len() / 100, "{zeros} zero bytes of {}", data.len());
    targets::cleanup(&t).unwrap();
    assert!(!path.exists());
}

#[test]
fn prepare_file_reuses_a_right_sized_file_as_is() {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let path = dir.path().join("kura-test.dat");
    let mut j = job(&path, Rw::RandWrite);
    j.size_bytes = Some(2 * MIB);
    targets::prepare(&j, &TargetOptions::default()).unwrap();
    let marker = b"kura was here, do not rewrite";
    let mut data = std::fs::read(&path).unwrap();
    data[..marker.len()].copy_from_slice(marker);
    std::fs::write(&path, &data).unwrap();
    let before = std::fs::metadata(&path).unwrap();

    let t = targets::prepare(&j, &TargetOptions::default()).unwrap();
    assert!(!t.created, "a file that was there is not ours to delete");
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (before.mtime(), before.mtime_nsec()),
        (after.mtime(), after.mtime_nsec())
    );
    assert_eq!(std::fs::read(&path).unwrap(), data);
    targets::cleanup(&t).unwrap();
    assert!(path.exists());
}

#[test]
fn prepare_file_needs_an_existing_directory() {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let missing = dir.path().join("no-such-dir");
    let err = targets::prepare(&job(&missing.join("t.dat"), Rw::Read), &TargetOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("directory {} does not exist", missing.display())),
        "{err}"
    );
    assert!(!missing.exists());
}

#[test]
fn prepare_file_refuses_when_free_space_is_short() {
    if !need(&["mount"]) {
        return;
    }
    let tmpfs = TempMount::new(&["-t", "tmpfs", "-o", "size=8m"], Path::new("tmpfs"));
    let path = tmpfs.dir.path().join("kura-test.dat");
    let mut j = job(&path, Rw::Read);
    j.size_bytes = Some(64 * MIB);
    let err = targets::prepare(&j, &TargetOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("free") && err.contains(&(64 * MIB).to_string()),
        "{err}"
    );
    assert!(err.contains(&(8 * MIB).to_string()), "{err}");
    assert!(!path.exists(), "nothing is left behind");
}

#[test]
fn a_read_only_file_is_refused_for_writes_only() {
    if !need(&["mount"]) {
        return;
    }
    let tmpfs = TempMount::new(&["-t", "tmpfs", "-o", "size=8m"], Path::new("tmpfs"));
    let path = tmpfs.dir.path().join("t.dat");
    std::fs::write(&path, vec![1u8; MIB as usize]).unwrap();
    run(Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(tmpfs.dir.path()));

    let err = targets::prepare(&job(&path, Rw::RandWrite), &TargetOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("cannot be opened for writing"),
        "{err}"
    );

    // No size given: the file is used at its own size, not rewritten to the default.
    let t = targets::prepare(&job(&path, Rw::RandRead), &TargetOptions::default()).unwrap();
    assert_eq!((t.span_bytes, t.created), (MIB, false));
    targets::drop_cache(&t).unwrap();
    targets::open(&t, false, false).unwrap();
}

#[test]
fn a_file_replaced_after_preparing_is_neither_opened_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dat");
    let mut j = job(&path, Rw::RandWrite);
    j.size_bytes = Some(MIB);
    let t = targets::prepare(&j, &TargetOptions::default()).unwrap();
    assert!(t.created);
    targets::open(&t, false, true).unwrap();

    // Somebody puts their own file at the name while the run goes on.
    let theirs = dir.path().join("theirs");
    std::fs::write(&theirs, b"their data").unwrap();
    std::fs::rename(&theirs, &path).unwrap();

    let err = targets::open(&t, false, true).unwrap_err().to_string();
    assert!(err.contains("no longer names"), "{err}");
    let err = targets::cleanup(&t).unwrap_err().to_string();
    assert!(err.contains("left alone"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"their data");
}

#[test]
fn a_link_swapped_to_another_device_after_the_check_is_refused_at_open() {
    if !need(&["losetup"]) {
        return;
    }
    let checked = LoopDevice::sized(4 * MIB);
    let other = LoopDevice::over(4 * MIB, &[0x5a; 4096], false);
    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("disk");
    std::os::unix::fs::symlink(&checked.path, &link).unwrap();
    let t = targets::prepare(&job(&link, Rw::RandWrite), &TargetOptions::default()).unwrap();

    let swapped = links.path().join("disk.new");
    std::os::unix::fs::symlink(&other.path, &swapped).unwrap();
    std::fs::rename(&swapped, &link).unwrap();
    let before = std::fs::read(&other.path).unwrap();
    let err = targets::open(&t, false, true).unwrap_err().to_string();
    assert!(err.contains("no longer names"), "{err}");
    assert!(std::fs::read(&other.path).unwrap() == before);
}

#[test]
fn a_device_checked_for_writing_stays_claimed_until_the_run_ends() {
    if !need(&["losetup", "mkfs.ext4", "mount"]) {
        return;
    }
    let lo = LoopDevice::sized(64 * MIB);
    let t = targets::prepare(&job(&lo.path, Rw::RandWrite), &TargetOptions::default()).unwrap();
    // While kura holds it, nothing can mount it.
    mkfs_ext4_forced(&lo.path);
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("mount")
        .arg(&lo.path)
        .arg(dir.path())
        .output()
        .unwrap();
    if status.status.success() {
        let _ = Command::new("umount").arg(dir.path()).status();
        panic!("mounted a device kura held for writing");
    }
    drop(t);
    let _mount = TempMount::new(&["-t", "ext4"], &lo.path);
}

/// mkfs.ext4 opens the device exclusively too; with kura holding it, write the superblock by hand.
fn mkfs_ext4_forced(dev: &Path) {
    let img = tempfile::NamedTempFile::new().unwrap();
    img.as_file().set_len(64 * MIB).unwrap();
    mkfs_ext4(img.path());
    let bytes = std::fs::read(img.path()).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(dev).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&bytes, 0).unwrap();
    f.sync_all().unwrap();
}

#[test]
fn a_file_system_in_a_partition_the_kernel_still_knows_is_found_after_the_table_is_wiped() {
    if !need(&["losetup", "mkfs.ext4", "wipefs"]) {
        return;
    }
    let sectors = (64 * MIB / 512) as u32;
    let mut mbr = vec![0u8; 512];
    mbr[0x1BE + 4] = 0x83;
    mbr[0x1BE + 8..0x1BE + 12].copy_from_slice(&2048u32.to_le_bytes());
    mbr[0x1BE + 12..0x1BE + 16].copy_from_slice(&(sectors - 2048).to_le_bytes());
    mbr[0x1FE] = 0x55;
    mbr[0x1FF] = 0xAA;
    let lo = LoopDevice::over(64 * MIB, &mbr, true);
    let part = PathBuf::from(format!("{}p1", lo.path.display()));
    for _ in 0..50 {
        if part.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if !part.exists() {
        // The kernel's build, as in a_disk_with_a_mounted_partition_is_refused:
        // skipped even under KURA_REQUIRE_ALL.
        eprintln!(
            "note: this kernel found no partition on {}; skipped",
            lo.path.display()
        );
        return;
    }
    mkfs_ext4(&part);
    // The table goes; the kernel keeps the partition until someone asks it to re-read.
    {
        use std::os::unix::fs::FileExt;
        let disk = std::fs::OpenOptions::new().write(true).open(&lo.path).unwrap();
        disk.write_all_at(&[0u8; 512], 0).unwrap();
        disk.sync_all().unwrap();
    }
    assert!(part.exists());
    let before = std::fs::read(&lo.path).unwrap();
    let err = check_device_writable(&lo.path, None).unwrap_err().to_string();
    assert!(
        err.contains("ext4") && err.contains(&format!("its partition {}", part.display())),
        "{err}"
    );
    let err = targets::prepare(&job(&lo.path, Rw::Write), &TargetOptions::default()).unwrap_err();
    assert!(matches!(err, targets::TargetError::Refused(_)), "{err}");
    assert!(std::fs::read(&lo.path).unwrap() == before);
}
