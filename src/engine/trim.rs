//! Trims, as fio 3.33 issues them on Linux: the BLKDISCARD ioctl on the
//! block device (os/os-linux.h, os_trim), one call per I/O, made inside the
//! submit even by its io_uring and libaio engines (engines/io_uring.c,
//! do_io_u_trim). A regular file refuses it with ENOTTY, in fio as here.

use std::os::fd::RawFd;

/// `_IO(0x12, 119)`, linux/fs.h.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Discards `len` bytes at `offset`: the completion's result, `len` or -errno.
pub fn discard(fd: RawFd, offset: u64, len: u32) -> i32 {
    let range: [u64; 2] = [offset, u64::from(len)];
    // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which
    // points at `range`, alive for the call.
    let ret = unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) };
    if ret == 0 {
        len as i32
    } else {
        -std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    }
}
