//! Verify headers: with `verify`, every block a job writes starts with a
//! header (what it is, where it belongs, which job and which write put it
//! there, and a CRC32 of the whole block), and every block read is checked
//! against it. The layout follows fio's `struct verify_header` (verify.h:
//! magic, length, seed, offset, number of the I/O, crc32 of the block) and
//! vdbench's data validation (each block carries its lba and a data key);
//! the rest of the block is the job's fill.
//!
//! Header, little-endian, at the start of each block of `block` bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `KURAVFY1` |
//! | 8..16 | offset of the block in the file or device |
//! | 16..24 | run tag: the job's seed |
//! | 24..32 | sequence: the number of the write, from 1 in each thread |
//! | 32..36 | block length |
//! | 36..40 | thread |
//! | 40..44 | CRC32 (IEEE) of bytes 0..40 and 44..block |
//! | 44..48 | zero |
//!
//! Nothing here allocates: stamping and checking work on the caller's buffers.

use crate::jobs::Job;

pub const MAGIC: [u8; 8] = *b"KURAVFY1";
pub const HEADER_BYTES: usize = 48;
/// A block smaller than this would be mostly header.
pub const MIN_BLOCK: u64 = 512;

/// What a verify header says about its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub offset: u64,
    pub tag: u64,
    pub seq: u64,
    pub len: u32,
    pub thread: u32,
}

/// Which field of a block did not match, with what was expected and found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// No header at all: never written with verify, or overwritten.
    Magic,
    /// A header of another block: a misplaced or misdirected write.
    Offset,
    /// A header of another job (run tag).
    Run,
    /// An older write than the journal says was flushed: a lost write.
    Sequence,
    /// The block's contents changed after it was written.
    Checksum,
    /// The block length in the header is not the job's.
    Length,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Magic => "header",
            Field::Offset => "offset",
            Field::Run => "run tag",
            Field::Sequence => "sequence",
            Field::Checksum => "checksum",
            Field::Length => "block length",
        }
    }
}

/// One block that failed its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub offset: u64,
    pub field: Field,
    pub expected: u64,
    pub found: u64,
}

/// The verify block of a job: the largest size every block size, the
/// alignment, the offset, the gap and the offset increment are multiples
/// of (its smallest block size when they all are multiples of that), so
/// that every I/O covers whole blocks. fio's `cross-stripe-verify.fio`
/// writes 16k blocks from offset 120k: 8k verify blocks.
pub fn block_bytes(job: &Job) -> Result<u64, String> {
    let smallest = job.all_bs().map(|b| b.bytes).min().unwrap_or(4096);
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let block = job
        .all_bs()
        .map(|b| b.bytes)
        .chain(job.align)
        .chain([
            job.offset_bytes,
            job.gap_bytes,
            job.step_back_bytes,
            job.offset_increment_bytes,
        ])
        .fold(smallest, gcd);
    if block < MIN_BLOCK {
        let why = if block == smallest {
            format!("block size {block} is smaller than {MIN_BLOCK} bytes, too small to carry a header")
        } else {
            format!(
                "block sizes, align, offset, gap and offset_increment share no multiple of {MIN_BLOCK} bytes \
                 (the largest they all are multiples of is {block}): every I/O must cover whole verify blocks"
            )
        };
        return Err(format!("verify: {why}"));
    }
    Ok(block)
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn crc(block: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&block[..40]);
    h.update(&block[44..]);
    h.finalize()
}

/// Writes the header into one block (`block.len()` bytes) and its CRC.
pub fn stamp(block: &mut [u8], h: Header) {
    put(block, 0, &MAGIC);
    put(block, 8, &h.offset.to_le_bytes());
    put(block, 16, &h.tag.to_le_bytes());
    put(block, 24, &h.seq.to_le_bytes());
    put(block, 32, &h.len.to_le_bytes());
    put(block, 36, &h.thread.to_le_bytes());
    put(block, 44, &0u32.to_le_bytes());
    let c = crc(block);
    put(block, 40, &c.to_le_bytes());
}

/// What a check expects of a block beyond a sound header at its own offset.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect {
    /// The run tag, when the writer is known.
    pub tag: Option<u64>,
    /// The oldest write acceptable (a journal's flushed sequence).
    pub min_seq: u64,
}

/// Checks one block read at `offset`; the header it holds when it is sound.
pub fn check(block: &[u8], offset: u64, expect: Expect) -> Result<Header, Mismatch> {
    let miss = |field, expected, found| Mismatch {
        offset,
        field,
        expected,
        found,
    };
    if block[..8] != MAGIC {
        return Err(miss(Field::Magic, u64::from_le_bytes(MAGIC), u64_at(block, 0)));
    }
    let h = Header {
        offset: u64_at(block, 8),
        tag: u64_at(block, 16),
        seq: u64_at(block, 24),
        len: u32_at(block, 32),
        thread: u32_at(block, 36),
    };
    let stored = u32_at(block, 40);
    let computed = crc(block);
    if stored != computed {
        return Err(miss(Field::Checksum, stored.into(), computed.into()));
    }
    if h.offset != offset {
        return Err(miss(Field::Offset, offset, h.offset));
    }
    if h.len as usize != block.len() {
        return Err(miss(Field::Length, block.len() as u64, h.len.into()));
    }
    if let Some(tag) = expect.tag
        && h.tag != tag
    {
        return Err(miss(Field::Run, tag, h.tag));
    }
    if h.seq < expect.min_seq {
        return Err(miss(Field::Sequence, expect.min_seq, h.seq));
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(offset: u64) -> Vec<u8> {
        let mut b = vec![0u8; 4096];
        crate::jobs::fill::fill_buffer(&mut b, crate::jobs::Fill::Random, 3);
        stamp(
            &mut b,
            Header {
                offset,
                tag: 77,
                seq: 5,
                len: 4096,
                thread: 0,
            },
        );
        b
    }

    #[test]
    fn a_stamped_block_checks_and_each_kind_of_damage_is_named() {
        let b = block(8192);
        let any = Expect::default();
        assert_eq!(check(&b, 8192, any).unwrap().seq, 5);
        let mut flipped = b.clone();
        flipped[3000] ^= 1;
        assert_eq!(check(&flipped, 8192, any).unwrap_err().field, Field::Checksum);
        let moved = check(&b, 4096, any).unwrap_err();
        assert_eq!(
            (moved.field, moved.expected, moved.found),
            (Field::Offset, 4096, 8192)
        );
        let other = check(
            &b,
            8192,
            Expect {
                tag: Some(1),
                min_seq: 0,
            },
        )
        .unwrap_err();
        assert_eq!((other.field, other.found), (Field::Run, 77));
        let lost = check(
            &b,
            8192,
            Expect {
                tag: Some(77),
                min_seq: 9,
            },
        )
        .unwrap_err();
        assert_eq!((lost.field, lost.expected, lost.found), (Field::Sequence, 9, 5));
        assert_eq!(check(&vec![0u8; 4096], 0, any).unwrap_err().field, Field::Magic);
    }

    #[test]
    fn the_verify_block_is_what_every_io_covers_whole() {
        let mut job = Job::default();
        job.set("bs", "4k/50:16k/50").unwrap();
        assert_eq!(block_bytes(&job), Ok(4096));
        // 6k I/Os and 4k ones: 2k blocks, three and two to an I/O.
        job.set("bs", "4k/50:6k/50").unwrap();
        assert_eq!(block_bytes(&job), Ok(2048));
        // fio's cross-stripe-verify.fio: 16k blocks from 120k, every 112k.
        job.set("bs", "16k").unwrap();
        job.set("offset", "120k").unwrap();
        job.set("gap", "112k").unwrap();
        assert_eq!(block_bytes(&job), Ok(8192));
        job.set("bs", "4k/50:4100/50").unwrap();
        assert!(
            block_bytes(&job)
                .unwrap_err()
                .contains("share no multiple of 512")
        );
        job.set("bs", "256").unwrap();
        job.set("offset", "0").unwrap();
        job.set("gap", "0").unwrap();
        assert!(
            block_bytes(&job)
                .unwrap_err()
                .contains("too small to carry a header")
        );
    }
}
