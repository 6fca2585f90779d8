//! Writes to kernel interfaces: the control files of the memory cgroup a
//! `mem_limit` job runs in (`memory.max`, `memory.swap.max`,
//! `cgroup.procs`). They are exempt from the write gate's checks because
//! they hold no data: a write there sets a kernel setting, and the files
//! are the kernel's, not the user's. Exempt, not unchecked: the file is
//! opened without creating or truncating anything, and written only when
//! the opened descriptor is on cgroupfs, cgroup2, proc or sysfs
//! (`fstatfs`), so a path that led anywhere else is refused untouched.

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// `f_type` of the file systems that are kernel interfaces (linux/magic.h).
const KERNEL_FS: [i64; 4] = [
    0x0027_e0eb, // CGROUP_SUPER_MAGIC
    0x6367_7270, // CGROUP2_SUPER_MAGIC
    0x0000_9fa0, // PROC_SUPER_MAGIC
    0x6265_6572, // SYSFS_MAGIC
];

/// Writes `text` to the kernel interface file `path`; refused (nothing
/// written) when the file is not on a kernel interface file system.
pub fn write_kernel_interface(path: &Path, text: &str) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    // SAFETY: `statfs` is plain C data; all-zero bytes are a valid value.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: the fd is open and `fs` is writable for the call.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if !KERNEL_FS.contains(&(fs.f_type as i64)) {
        return Err(io::Error::other(format!(
            "{} is not a kernel interface (cgroup, proc or sysfs); kura does not write it",
            path.display()
        )));
    }
    file.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_kernel_interface_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.max");
        std::fs::write(&path, b"data").unwrap();
        let e = write_kernel_interface(&path, "0").unwrap_err();
        assert!(e.to_string().contains("not a kernel interface"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"data");
    }
}
