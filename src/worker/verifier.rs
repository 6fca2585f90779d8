//! The worker's side of `verify`: stamps each write's blocks with a header
//! just before the write is queued, checks each read's blocks when it
//! completes, remembers which blocks this worker wrote (for the read-back
//! after the job) and feeds the journal. Without verify it scrambles
//! written buffers instead (`Verifier::scrambler`), so no two written
//! blocks are alike. Everything is allocated when the worker starts; per
//! I/O it only touches the I/O's own buffer.

use crate::engine::Buffers;
use crate::workload::journal::{JournalMap, JournalWriter};
use crate::workload::verify::{self, Expect, Header, Mismatch};

/// Scrambling marks every sector of this size.
const SECTOR: u64 = 512;

/// Mismatches kept with their offsets; the rest are counted.
pub const MISMATCH_SAMPLES: usize = 1000;

/// Which blocks a read checks.
#[derive(Debug)]
pub enum ReadCheck {
    /// Every block: a read job verifying data written earlier, by any job.
    All,
    /// Only blocks this worker wrote, with its own run tag (a job that reads and writes).
    Written,
    /// Only blocks the journal lists as flushed, with its tag and at least its sequence.
    Journal(JournalMap),
}

/// What the worker hands back.
#[derive(Debug, Default)]
pub struct VerifyOutput {
    pub block: u64,
    pub span_start: u64,
    /// One bit per block of the span: written by this worker.
    pub written: Vec<u64>,
    pub mismatches: Vec<Mismatch>,
    pub mismatch_count: u64,
    pub blocks_checked: u64,
    /// A journal commit that failed (the journal then claims less than was flushed).
    pub journal_error: Option<String>,
}

pub struct Verifier {
    /// Only make each written sector unique; check nothing.
    scramble_only: bool,
    block: u64,
    tag: u64,
    thread: u32,
    next_seq: u64,
    /// The sequence of the write each slot carries.
    slot_seq: Vec<u64>,
    reads: ReadCheck,
    journal: Option<JournalWriter>,
    base: *mut u8,
    stride: usize,
    out: VerifyOutput,
    /// fio's dedupe_percentage, for a scrambler.
    dedupe: Option<super::dedupe::Dedupe>,
}

impl Verifier {
    /// `buffers` are the worker's (see `make_buffers`); they outlive the worker.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        block: u64,
        tag: u64,
        thread: u32,
        span_start: u64,
        span_bytes: u64,
        slots: usize,
        buffers: &Buffers,
        reads: ReadCheck,
        journal: Option<JournalWriter>,
    ) -> Verifier {
        let blocks = span_bytes.div_ceil(block);
        Verifier {
            scramble_only: false,
            block,
            tag,
            thread,
            next_seq: 1,
            slot_seq: vec![0; slots],
            reads,
            journal,
            base: buffers.slot_ptr(0),
            stride: buffers.stride,
            out: VerifyOutput {
                block,
                span_start,
                written: vec![0; blocks.div_ceil(64) as usize],
                mismatches: Vec::with_capacity(MISMATCH_SAMPLES),
                ..VerifyOutput::default()
            },
            dedupe: None,
        }
    }

    /// Without verify: each write buffer is reused for every write of its
    /// slot, so a deduplicating store would keep one copy per slot. fio
    /// scrambles a few bytes of every 512 per I/O for this
    /// (`scramble_buffers=1`, its default); kura writes the sector's offset
    /// and the write's number into the first 16 bytes of each 512.
    pub fn scrambler(thread: u32, slots: usize, buffers: &Buffers) -> Verifier {
        Verifier {
            scramble_only: true,
            block: SECTOR,
            tag: 0,
            thread,
            next_seq: 1,
            slot_seq: vec![0; slots],
            reads: ReadCheck::All,
            journal: None,
            base: buffers.slot_ptr(0),
            stride: buffers.stride,
            out: VerifyOutput::default(),
            dedupe: None,
        }
    }

    /// A scrambler whose writes repeat the last unique one with this chance (fio's `dedupe_percentage`).
    pub fn with_dedupe(mut self, pct: u8, seed: u64, set: Option<super::dedupe::WorkingSet>) -> Verifier {
        if pct > 0 {
            self.dedupe = Some(super::dedupe::Dedupe::new(pct, seed, set));
        }
        self
    }

    fn buffer(&mut self, index: u32, len: u32) -> &mut [u8] {
        // SAFETY: `index` is a buffer of the worker's `Buffers` (qd x 2 of
        // `stride` bytes, len <= stride) which outlive the worker; the caller
        // passes a slot with no I/O in flight, so nothing else uses it.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(index as usize * self.stride), len as usize) }
    }

    /// Stamps the blocks of a new write in buffer `index` (slot `slot`).
    #[inline]
    pub fn stamp(&mut self, slot: u32, index: u32, offset: u64, len: u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.scramble_only {
            let mark = seq ^ (u64::from(self.thread) << 48);
            let mut dedupe = self.dedupe.take();
            let buf = self.buffer(index, len);
            if !dedupe.as_mut().is_some_and(|d| d.repeat(buf)) {
                for (i, sector) in buf.chunks_exact_mut(SECTOR as usize).enumerate() {
                    sector[..8].copy_from_slice(&(offset + i as u64 * SECTOR).to_le_bytes());
                    sector[8..16].copy_from_slice(&mark.to_le_bytes());
                }
                if let Some(d) = &mut dedupe {
                    d.unique(buf);
                }
            }
            self.dedupe = dedupe;
            return;
        }
        self.slot_seq[slot as usize] = seq;
        let (block, tag, thread) = (self.block, self.tag, self.thread);
        let buf = self.buffer(index, len);
        for (i, b) in buf.chunks_exact_mut(block as usize).enumerate() {
            verify::stamp(
                b,
                Header {
                    offset: offset + i as u64 * block,
                    tag,
                    seq,
                    len: block as u32,
                    thread,
                },
            );
        }
    }

    /// A write of slot `slot` completed in full.
    #[inline]
    pub fn written(&mut self, slot: u32, offset: u64, len: u32) {
        if self.scramble_only {
            return;
        }
        let first = (offset - self.out.span_start) / self.block;
        for i in first..first + len as u64 / self.block {
            if let Some(w) = self.out.written.get_mut((i / 64) as usize) {
                *w |= 1 << (i % 64);
            }
        }
        if let Some(j) = &mut self.journal {
            j.note(offset, len as u64, self.slot_seq[slot as usize]);
        }
    }

    /// A flush covering every completed write returned.
    pub fn flushed(&mut self) {
        if let Some(j) = &mut self.journal
            && let Err(e) = j.commit()
        {
            self.out.journal_error.get_or_insert_with(|| e.to_string());
        }
    }

    pub fn has_journal(&self) -> bool {
        self.journal.is_some()
    }

    /// Checks a completed read in buffer `index`; the mismatches found.
    #[inline]
    pub fn check_read(&mut self, index: u32, offset: u64, len: u32) -> u64 {
        if self.scramble_only {
            return 0;
        }
        let block = self.block;
        let mut bad = 0;
        for i in 0..(len as u64 / block) {
            let at = offset + i * block;
            let expect = match &self.reads {
                ReadCheck::All => Expect::default(),
                ReadCheck::Written => {
                    let b = (at - self.out.span_start) / block;
                    let set = self
                        .out
                        .written
                        .get((b / 64) as usize)
                        .is_some_and(|w| w & (1 << (b % 64)) != 0);
                    if !set {
                        continue;
                    }
                    Expect {
                        tag: Some(self.tag),
                        min_seq: 0,
                    }
                }
                ReadCheck::Journal(map) => {
                    let flushed = map.flushed_at(at);
                    if flushed == 0 {
                        continue;
                    }
                    Expect {
                        tag: Some(map.head.tag),
                        min_seq: flushed,
                    }
                }
            };
            let start = (i * block) as usize;
            let buf = self.buffer(index, len);
            let result = verify::check(&buf[start..start + block as usize], at, expect);
            self.out.blocks_checked += 1;
            if let Err(m) = result {
                bad += 1;
                self.mismatch(m);
            }
        }
        bad
    }

    fn mismatch(&mut self, m: Mismatch) {
        self.out.mismatch_count += 1;
        if self.out.mismatches.len() < MISMATCH_SAMPLES {
            self.out.mismatches.push(m);
        }
    }

    /// What verify found; nothing for a scrambler.
    pub fn finish(self) -> Option<VerifyOutput> {
        (!self.scramble_only).then_some(self.out)
    }
}
