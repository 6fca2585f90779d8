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
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
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
    /// Creates the journal, or replaces an earlier kura journal. Refuses
    /// anything else at the path (a file with other data, a device, a
    /// symlink): the journal is the only file written there.
    pub fn create(path: &Path, head: JournalHead) -> Result<JournalWriter, String> {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            let t = meta.file_type();
            if t.is_symlink() || t.is_block_device() || !t.is_file() {
                return Err(err(
                    path,
                    "exists and is not a regular file",
                    "refusing to write it",
                ));
            }
            if meta.len() > 0 {
                let mut magic = [0u8; 8];
                let f = File::open(path).map_err(|e| err(path, "cannot open", e))?;
                if f.read_exact_at(&mut magic, 0).is_err() || magic != MAGIC {
                    return Err(err(
                        path,
                        "exists and is not a kura journal",
                        "refusing to overwrite it (name a new file)",
                    ));
                }
            }
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| err(path, "cannot create", e))?;
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
    pub fn load(path: &Path) -> Result<JournalMap, String> {
        let data = std::fs::read(path).map_err(|e| err(path, "cannot read", e))?;
        if data.len() < HEADER as usize || data[..8] != MAGIC {
            return Err(err(path, "not a kura journal", "no KURAJRN1 header"));
        }
        let word = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&data[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let head = JournalHead {
            tag: word(8),
            block: word(16),
            span_start: word(24),
            blocks: word(32),
        };
        let want = HEADER as usize + head.blocks as usize * 8;
        if data.len() < want || head.block == 0 {
            return Err(err(
                path,
                "truncated",
                format!("{} bytes, {want} expected", data.len()),
            ));
        }
        let flushed = (0..head.blocks as usize)
            .map(|i| word(HEADER as usize + i * 8))
            .collect();
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
        let mut j = JournalWriter::create(&path, head).unwrap();
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
        std::fs::write(dir.path().join("other"), b"data").unwrap();
        let refused = JournalWriter::create(&dir.path().join("other"), head).unwrap_err();
        assert!(refused.contains("not a kura journal"), "{refused}");
    }
}
