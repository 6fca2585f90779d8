//! Shared by the integration tests: the binary, temp dirs, and real loop
//! devices that are detached by their own name even when a test fails.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn kura(db: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("kura").expect("the kura binary is built");
    cmd.arg("--db").arg(db).arg("--quiet");
    cmd
}

/// True when `tool` is on PATH. Missing under `KURA_REQUIRE_ALL=1` (CI) fails the test.
pub fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !found {
        assert!(
            std::env::var("KURA_REQUIRE_ALL").is_err(),
            "{tool} is required (KURA_REQUIRE_ALL=1)"
        );
        eprintln!("note: {tool} not found; skipping");
    }
    found
}

pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(output)))
}

pub fn sh(cmd: &str) -> String {
    let out = Command::new("sh").arg("-c").arg(cmd).output().expect("sh runs");
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A loop device over a file in `dir`; detached on drop.
pub struct LoopDevice {
    pub path: PathBuf,
    pub backing: PathBuf,
}

impl LoopDevice {
    pub fn new(dir: &Path, size_bytes: u64) -> Option<LoopDevice> {
        if !have("losetup") {
            return None;
        }
        let backing = dir.join("loop-backing.img");
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(size_bytes).unwrap();
        let dev = sh(&format!("losetup -f --show {}", backing.display()));
        Some(LoopDevice {
            path: PathBuf::from(dev),
            backing,
        })
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.path).status();
    }
}

/// A mount on `dir`, unmounted on drop.
pub struct Mount(pub PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}
