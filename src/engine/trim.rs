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
    let mut tries = 0;
    loop {
        // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which
        // points at `range`, alive for the call.
        let ret = unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) };
        if ret == 0 {
            return len as i32;
        }
        let errno = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        // The kernel drops the device's cached pages over the range first
        // (block/ioctl.c blk_ioctl_discard, truncate_bdev_range): through a
        // descriptor that is not the exclusive one, a page it cannot drop yet
        // (dirty, or held by another reader of the device) fails the discard
        // with EBUSY before any of it reaches the device. Written back, the
        // pages can go: a PTS purge failed so on a loop device just filled.
        if errno != libc::EBUSY || tries == 10 {
            return -errno;
        }
        tries += 1;
        // SAFETY: fdatasync on a descriptor this worker holds open.
        unsafe { libc::fdatasync(fd) };
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
