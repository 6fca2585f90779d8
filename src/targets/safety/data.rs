//! Data no signature names: a device or file is taken as empty only when it
//! reads as zeros where sampled.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::path::Path;

use super::WriteRefusal;
use super::decided::remember_writable;

/// How much of a device or file is read to tell whether it holds data: its
/// first and last MiB (where labels, tables and superblocks live) and
/// `SAMPLED_BLOCKS` blocks of 4 KiB spread evenly between.
const EDGE_BYTES: u64 = 1 << 20;
const SAMPLED_BLOCKS: u64 = 256;
const SAMPLE_BLOCK: u64 = 4096;

/// The places [`first_data`] reads, for messages.
fn sampled_places() -> String {
    format!("its first and last MiB and {SAMPLED_BLOCKS} blocks of 4 KiB spread between")
}

/// The offset of the first byte that is not zero at the places sampled, or
/// `None` when all read as zeros (a new sparse file, a fresh or discarded
/// device). A regular file with no data extent at all (`SEEK_DATA`) holds
/// nothing without a read.
fn first_data(file: &File, len: u64) -> io::Result<Option<u64>> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(None);
    }
    if file.metadata()?.is_file() {
        // SAFETY: lseek only reads its integer arguments; the descriptor is open for the call.
        let at = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_DATA) };
        if at < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) {
            return Ok(None);
        }
    }
    let mut places: Vec<(u64, u64)> = vec![(0, EDGE_BYTES.min(len)), (len.saturating_sub(EDGE_BYTES), len)];
    let step = (len / SAMPLED_BLOCKS).max(SAMPLE_BLOCK);
    let mut at = 0;
    while at < len && places.len() < SAMPLED_BLOCKS as usize + 2 {
        places.push((at, (at + SAMPLE_BLOCK).min(len)));
        at += step;
    }
    let mut buf = vec![0u8; EDGE_BYTES as usize];
    for (start, end) in places {
        let want = &mut buf[..(end - start) as usize];
        let mut filled = 0;
        while filled < want.len() {
            match file.read_at(&mut want[filled..], start + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if let Some(i) = want[..filled].iter().position(|&b| b != 0) {
            return Ok(Some(start + i as u64));
        }
    }
    Ok(None)
}

/// The length of what `file` holds: a file's size, a device's capacity.
fn length_of(file: &File, meta: &std::fs::Metadata) -> io::Result<u64> {
    match meta.file_type().is_block_device() {
        true => crate::targets::file::device_size(file),
        false => Ok(meta.len()),
    }
}

/// Refuses a device or file that holds data kura did not write, though no
/// signature names it (an encrypted container, a backup, a raw database):
/// only one that reads as zeros where sampled is taken as holding nothing.
/// What passes is remembered for the rest of the run.
pub(in crate::targets) fn refuse_data(
    shown: &str,
    file: &File,
    meta: &std::fs::Metadata,
    allow_destroy: Option<&Path>,
    what: &str,
) -> Result<(), WriteRefusal> {
    let unchecked = |source: io::Error| WriteRefusal::Unchecked {
        device: shown.to_string(),
        source,
    };
    // The ranks of one run are processes of their own: one rank's writes are data to
    // another rank still checking (docs/safety.md, "What is out of reach").
    if crate::targets::launcher::launched_as_rank().is_some() {
        return Ok(());
    }
    // A test file an earlier run made and kept (`--keep`): kura's mark is on it.
    if meta.is_file() && crate::targets::owner::read(file).is_ok_and(|mark| mark.is_some()) {
        return Ok(());
    }
    let len = length_of(file, meta).map_err(unchecked)?;
    if let Some(offset) = first_data(file, len).map_err(unchecked)? {
        let named = match allow_destroy {
            Some(other) => format!("; --allow-destroy names {}, a different {what}", other.display()),
            None => String::new(),
        };
        return Err(WriteRefusal::HoldsData {
            device: shown.to_string(),
            offset,
            sampled: sampled_places(),
            named,
        });
    }
    remember_writable(file, meta);
    Ok(())
}
