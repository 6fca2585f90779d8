//! fio's `offset` with `size`: fio's region is `offset..offset+size`
//! (fio 3.33 filesetup.c, setup_files: a file is extended to
//! `io_size + file_offset`), while kura's `size` of a file is the file's
//! size, its span `offset..size`. A device's span is `offset..offset+size`
//! in both. `filesize` is the file's size in both, its region
//! `offset..filesize`.

use super::{FioJob, Translator};
use std::os::unix::fs::FileTypeExt;

impl Translator<'_> {
    /// What to add to fio's `size` to make kura's: the offset, unless the
    /// size is a `filesize` or the target is a block device.
    pub(super) fn offset_into_size(f: &FioJob, path: &str) -> u64 {
        let Some((offset, _)) = &f.offset else {
            return 0;
        };
        if f.filesize.is_some() || is_block_device(path) {
            return 0;
        }
        *offset
    }
}

fn is_block_device(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}
