//! The verify journal (`journal`): what a crash or a power cut must not have
//! lost. vdbench's data validation journal (`-j`, `-jr` to recover) records
//! every block's data key so that a later run knows what each block should
//! hold; kura records, per verify block, the sequence of the newest write a
//! completed `fdatasync` made durable. That is fio's rule for a verify after
//! a crash (`verify_state_save`/`verify_state_load`: only what the saved
//! state says was done is expected): a write that completed but was not
//! flushed may or may not have reached the medium, so it is not expected;
//! one that was flushed must be there, or something newer.
//!
//! File layout, little-endian: a 64-byte header (magic `KURAJRN1`, run tag,
//! block bytes, span start, blocks), then one u64 per block: the flushed
//! sequence, 0 for none. The map is updated after the data's `fdatasync`
//! returns and is itself synced, so it never claims more than was durable.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"KURAJRN1";
const HEADER: u64 = 64;

/// What a journal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalHead {
    pub tag: u64,
    pub block: u64,
    pub span_start: u64,
    pub blocks: u64,
}

/// A journal being written by one worker.
#[derive(Debug)]
pub struct JournalWriter {
    file: File,
    head: JournalHead,
    /// Newest completed write per block, little-endian, as it goes to the file.
    completed: Vec<u64>,
    /// Blocks changed since the last commit: `lo..hi`.
    dirty: Option<(u64, u64)>,
}

fn err(path: &Path, what: &str, e: impl std::fmt::Display) -> String {
    format!("journal {}: {what}: {e}", path.display())
}

impl JournalWriter {
    /// Starts a journal in `file`, which the write gate created or let
    /// replace at `path` (`runner::verify_pass`: only an empty file or an
    /// earlier kura journal, never a job's target): its header written
    /// and its map sized and synced. On an error the caller removes what
    /// it created.
    pub fn start(file: File, path: &Path, head: JournalHead) -> Result<JournalWriter, String> {
        let mut h = [0u8; HEADER as usize];
        h[..8].copy_from_slice(&MAGIC);
        for (i, v) in [head.tag, head.block, head.span_start, head.blocks]
            .iter()
            .enumerate()
        {
            h[8 + i * 8..16 + i * 8].copy_from_slice(&v.to_le_bytes());
        }
        file.write_all_at(&h, 0)
            .map_err(|e| err(path, "cannot write", e))?;
        file.set_len(HEADER + head.blocks * 8)
            .map_err(|e| err(path, "cannot size", e))?;
        file.sync_all().map_err(|e| err(path, "cannot sync", e))?;
        Ok(JournalWriter {
            file,
            head,
            completed: vec![0; head.blocks as usize],
            dirty: None,
        })
    }

    /// A write of the blocks `offset..offset+len` with sequence `seq` completed.
    #[inline]
    pub fn note(&mut self, offset: u64, len: u64, seq: u64) {
        let first = (offset - self.head.span_start) / self.head.block;
        let last = (first + len / self.head.block).min(self.head.blocks);
        for i in first..last {
            self.completed[i as usize] = seq.to_le();
        }
        self.dirty = Some(match self.dirty {
            Some((lo, hi)) => (lo.min(first), hi.max(last)),
            None => (first, last),
        });
    }

    /// After an `fdatasync` of the data that covered every noted write:
    /// records them as flushed, and syncs the journal.
    pub fn commit(&mut self) -> io::Result<()> {
        let Some((lo, hi)) = self.dirty.take() else {
            return Ok(());
        };
        let words = &self.completed[lo as usize..hi as usize];
        // SAFETY: u64 has no padding or invalid bit patterns; the byte view
        // covers exactly the words' memory and lives only for this call.
        let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 8) };
        self.file.write_all_at(bytes, HEADER + lo * 8)?;
        self.file.sync_data()
    }
}

/// A journal read back for a verify.
#[derive(Debug)]
pub struct JournalMap {
    pub head: JournalHead,
    /// Flushed sequence per block; 0 for none.
    pub flushed: Vec<u64>,
}

impl JournalMap {
    /// Reads a journal: a regular file only (a device or a FIFO is refused
    /// on the opened descriptor, before reading), and no more of it than its
    /// header says it holds, checked against the file's size first.
    pub fn load(path: &Path) -> Result<JournalMap, String> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| err(path, "cannot read", e))?;
        let meta = file.metadata().map_err(|e| err(path, "cannot read", e))?;
        if !meta.is_file() {
            return Err(err(
                path,
                "not a regular file",
                "a journal is the file a write job with `journal` made",
            ));
        }
        let mut h = [0u8; HEADER as usize];
        if meta.len() < HEADER || file.read_exact_at(&mut h, 0).is_err() || h[..8] != MAGIC {
            return Err(err(path, "not a kura journal", "no KURAJRN1 header"));
        }
        let word = |b: &[u8], i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let head = JournalHead {
            tag: word(&h, 8),
            block: word(&h, 16),
            span_start: word(&h, 24),
            blocks: word(&h, 32),
        };
        let want = head.blocks.checked_mul(8).and_then(|b| b.checked_add(HEADER));
        match want {
            Some(want) if want <= meta.len() && head.block > 0 => {}
            _ => {
                return Err(err(
                    path,
                    "damaged or truncated",
                    format!(
                        "its header says {} blocks of {} bytes, and the file holds {} bytes",
                        head.blocks,
                        head.block,
                        meta.len()
                    ),
                ));
            }
        }
        let mut data = vec![0u8; (head.blocks * 8) as usize];
        file.read_exact_at(&mut data, HEADER)
            .map_err(|e| err(path, "cannot read", e))?;
        let flushed = data.chunks_exact(8).map(|c| word(c, 0)).collect();
        Ok(JournalMap { head, flushed })
    }

    /// The flushed sequence of the block at `offset`; 0 outside the journal.
    #[inline]
    pub fn flushed_at(&self, offset: u64) -> u64 {
        if offset < self.head.span_start {
            return 0;
        }
        let i = (offset - self.head.span_start) / self.head.block;
        self.flushed.get(i as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_committed_writes_are_in_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let head = JournalHead {
            tag: 9,
            block: 4096,
            span_start: 0,
            blocks: 16,
        };
        let mut j = JournalWriter::start(File::create(&path).unwrap(), &path, head).unwrap();
        j.note(8192, 8192, 3);
        j.commit().unwrap();
        j.note(0, 4096, 4);
        // Not committed: a crash here leaves block 0 unexpected.
        let map = JournalMap::load(&path).unwrap();
        assert_eq!(map.head, head);
        assert_eq!(
            (map.flushed_at(0), map.flushed_at(8192), map.flushed_at(12288)),
            (0, 3, 3)
        );
    }
}
