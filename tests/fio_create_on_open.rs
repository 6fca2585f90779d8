//! fio's `create_on_open=1` (fio 3.33 filesetup.c: no layout; the file is
//! created at open and the job's writes grow it): a test file kura creates
//! is left empty, so 4 random 4 KiB writes into a 1 MiB span allocate
//! 16 KiB, in fio's file and kura's, where a laid-out file holds 1 MiB.
//! A job that reads is refused: fio reads the empty file and fails (EIO).

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use common::{kura, tmp};

fn job_file(dir: &Path, name: &str, rw: &str, extra: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let target = dir.join(format!("{name}.dat"));
    let file = dir.join(format!("{name}.fio"));
    std::fs::write(
        &file,
        format!(
            "[c]\nfilename={}\nrw={rw}\nbs=4k\nsize=1m\n{extra}\n",
            target.display()
        ),
    )
    .unwrap();
    (file, target)
}

/// Bytes the file occupies on disk.
fn allocated(file: &Path) -> u64 {
    std::fs::metadata(file).unwrap().blocks() * 512
}

#[test]
fn create_on_open_leaves_the_file_to_the_writes_as_fio_does() {
    let dir = tmp();
    let d = dir.path();
    let db = d.join("k.db");
    let (file, target) = job_file(d, "k", "randwrite", "io_size=16k\ncreate_on_open=1");
    kura(&db).args(["run", "--keep"]).arg(&file).assert().success();
    let ours = allocated(&target);
    assert!(ours <= 64 << 10, "kura's file holds {ours} bytes");
    // Without it the file is laid out first: all of the span.
    let (file, target) = job_file(d, "laid", "randwrite", "io_size=16k");
    kura(&db).args(["run", "--keep"]).arg(&file).assert().success();
    assert!(allocated(&target) >= 1 << 20);
    // A job that reads is refused, naming the option.
    let (file, _) = job_file(d, "r", "read", "create_on_open=1");
    let out = kura(&db).arg("run").arg(&file).output().unwrap();
    let err = common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("create_on_open"), "{err}");
    if !common::have("fio") {
        return;
    }
    let (file, target) = job_file(d, "f", "randwrite", "io_size=16k\ncreate_on_open=1");
    let out = Command::new("fio")
        .arg("--output=/dev/null")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
    let theirs = allocated(&target);
    assert!(theirs <= 64 << 10, "fio's file holds {theirs} bytes");
}
