//! `verify` in the runner: what each worker's verifier is given (the verify
//! block, which reads to check, the journal), the read-back after a job that
//! wrote (fio's verify phase after the write phase: every block a worker
//! wrote is read again and checked, outside the measured time), and the
//! typed warnings saying what was found.

use std::os::unix::fs::FileExt;
use std::path::Path;

use super::RunError;
use crate::engine::Buffers;
use crate::jobs::{EngineKind, Job};
use crate::metrics::{VerifyMismatch, Warning};
use crate::targets::output::{self, Destroy, Replace};
use crate::targets::{self, PreparedTarget};
use crate::worker::{MISMATCH_SAMPLES, ReadCheck, Verifier, VerifyOutput, WorkerOutput};
use crate::workload::journal::{JournalHead, JournalMap, JournalWriter};
use crate::workload::verify::{self, Expect, Mismatch};

/// What one worker's verifier starts with.
pub struct VerifySetup {
    block: u64,
    tag: u64,
    reads: ReadCheck,
    journal: Option<JournalWriter>,
}

impl VerifySetup {
    pub fn verifier(
        self,
        thread: u32,
        span_start: u64,
        span_bytes: u64,
        buffers: &Buffers,
        qd: u32,
    ) -> Verifier {
        Verifier::new(
            self.block,
            self.tag,
            thread,
            span_start,
            span_bytes,
            qd as usize,
            buffers,
            self.reads,
            self.journal,
        )
    }
}

/// One setup per thread (`None` without verify). Refuses what cannot be
/// verified before anything runs.
pub fn setups(job: &Job, targets: &[PreparedTarget]) -> Result<Vec<Option<VerifySetup>>, RunError> {
    let none = || (0..job.threads).map(|_| None).collect();
    if job.journal.is_some() && !job.verify {
        return Err(RunError::Invalid(format!("{}: journal needs verify", job.name)));
    }
    if !job.verify || job.engine == EngineKind::Null {
        return Ok(none());
    }
    let invalid = |e: String| RunError::Invalid(format!("{}: {e}", job.name));
    let mut block = verify::block_bytes(job).map_err(invalid)?;
    let tag = job.seed.unwrap_or(0);
    let mut map = None;
    if let Some(path) = &job.journal {
        if job.does_writes() && job.threads > 1 {
            return Err(invalid(
                "journal: a job that writes with a journal runs one thread (the journal orders one thread's writes)"
                    .into(),
            ));
        }
        if !job.does_writes() {
            let m = JournalMap::load(path).map_err(invalid)?;
            if job.bs.iter().any(|b| !b.bytes.is_multiple_of(m.head.block)) {
                return Err(invalid(format!(
                    "journal {}: its blocks are {} bytes; read with block sizes that are multiples of that",
                    path.display(),
                    m.head.block
                )));
            }
            block = m.head.block;
            map = Some(m);
        }
    }
    let mut out = Vec::with_capacity(job.threads as usize);
    for thread in 0..job.threads {
        let t = &targets[thread as usize % targets.len()];
        let reads = if job.does_writes() {
            ReadCheck::Written
        } else if let Some(path) = &job.journal {
            // The first thread takes the loaded map; further threads load their own copy.
            ReadCheck::Journal(match map.take() {
                Some(m) => m,
                None => JournalMap::load(path).map_err(invalid)?,
            })
        } else {
            ReadCheck::All
        };
        let journal = match (&job.journal, job.does_writes()) {
            (Some(path), true) => Some(
                journal_beside(
                    path,
                    &t.path,
                    JournalHead {
                        tag,
                        block,
                        span_start: t.span_start,
                        blocks: t.span_bytes / block,
                    },
                )
                .map_err(invalid)?,
            ),
            _ => None,
        };
        out.push(Some(VerifySetup {
            block,
            tag,
            reads,
            journal,
        }));
    }
    Ok(out)
}

/// Largest read of the read-back.
const READ_BACK_BYTES: u64 = 1 << 20;

/// After the job: reads back every block the workers wrote and checks it,
/// then turns what the workers and the read-back found into warnings.
pub fn finish(
    job: &Job,
    targets: &[PreparedTarget],
    outputs: &mut [WorkerOutput],
    warnings: &mut Vec<Warning>,
) {
    let verified: Vec<(usize, VerifyOutput)> = outputs
        .iter_mut()
        .enumerate()
        .filter_map(|(i, o)| o.verify.take().map(|v| (i, v)))
        .collect();
    for (_, v) in &verified {
        if let Some(e) = &v.journal_error {
            warnings.push(Warning::JournalNotWritten {
                job: job.name.clone(),
                error: e.clone(),
            });
        }
    }
    for o in outputs.iter() {
        if let (Some(errors), Some(max)) = (o.stopped_by_errors, job.max_errors) {
            warnings.push(Warning::MaxErrorsReached {
                job: job.name.clone(),
                errors,
                max,
            });
            break;
        }
    }
    if verified.is_empty() {
        return;
    }
    let mut mismatches: Vec<Mismatch> = Vec::new();
    let mut count = 0u64;
    let mut checked = 0u64;
    for (_, v) in &verified {
        count += v.mismatch_count;
        checked += v.blocks_checked;
        mismatches.extend(v.mismatches.iter().copied());
    }
    let mut read_back_error = None;
    if job.does_writes() {
        for (k, t) in targets.iter().enumerate() {
            let mine: Vec<&VerifyOutput> = verified
                .iter()
                .filter(|(i, _)| i % targets.len() == k)
                .map(|(_, v)| v)
                .collect();
            // Threads with spans of their own (offset_increment) each map theirs.
            let mut starts: Vec<u64> = mine.iter().map(|v| v.span_start).collect();
            starts.sort_unstable();
            starts.dedup();
            for start in starts {
                let span: Vec<&VerifyOutput> =
                    mine.iter().copied().filter(|v| v.span_start == start).collect();
                match read_back(job, t, &span, &mut mismatches) {
                    Ok((c, bad)) => {
                        checked += c;
                        count += bad;
                    }
                    Err(e) => read_back_error = read_back_error.or(Some(e)),
                }
            }
        }
    }
    if let Some(error) = read_back_error {
        warnings.push(Warning::VerifyIncomplete {
            job: job.name.clone(),
            error,
        });
    }
    mismatches.sort_by_key(|m| m.offset);
    mismatches.dedup_by_key(|m| m.offset);
    mismatches.truncate(MISMATCH_SAMPLES);
    if count == 0 && checked == 0 {
        // "every one held" of no block at all used to read as a pass.
        warnings.push(Warning::VerifyCheckedNothing {
            job: job.name.clone(),
        });
    } else if count == 0 {
        warnings.push(Warning::VerifyPassed {
            job: job.name.clone(),
            blocks: checked,
        });
    } else {
        warnings.push(Warning::VerifyFailed {
            job: job.name.clone(),
            count,
            blocks: checked,
            mismatches: mismatches.iter().map(describe).collect(),
        });
    }
}

/// Reads back the blocks the workers of one target wrote: the blocks checked and the bad ones.
fn read_back(
    job: &Job,
    target: &PreparedTarget,
    outputs: &[&VerifyOutput],
    mismatches: &mut Vec<Mismatch>,
) -> Result<(u64, u64), String> {
    let Some(first) = outputs.first() else {
        return Ok((0, 0));
    };
    let (block, start) = (first.block, first.span_start);
    let words = outputs.iter().map(|o| o.written.len()).max().unwrap_or(0);
    let written: Vec<u64> = (0..words)
        .map(|w| {
            outputs
                .iter()
                .fold(0, |acc, o| acc | o.written.get(w).copied().unwrap_or(0))
        })
        .collect();
    let is_set = |b: u64| {
        written
            .get((b / 64) as usize)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    };
    if !job.direct {
        // From the device, not from the pages the writes left in memory.
        targets::drop_cache(target).map_err(|e| e.to_string())?;
    }
    let file = targets::open(target, job.direct, false).map_err(|e| e.to_string())?;
    let mut buf = Buffers::new(1, READ_BACK_BYTES.max(block) as usize);
    let per_read = (buf.stride as u64 / block).max(1);
    let blocks = words as u64 * 64;
    let (mut checked, mut bad) = (0, 0);
    let mut b = 0;
    while b < blocks {
        if !is_set(b) {
            b += 1;
            continue;
        }
        let mut n = 1;
        while n < per_read && b + n < blocks && is_set(b + n) {
            n += 1;
        }
        let offset = start + b * block;
        let data = &mut buf.slot_mut(0)[..(n * block) as usize];
        file.read_exact_at(data, offset)
            .map_err(|e| format!("reading back {} at offset {offset}: {e}", target.path.display()))?;
        for i in 0..n {
            let at = offset + i * block;
            let chunk = &data[(i * block) as usize..((i + 1) * block) as usize];
            checked += 1;
            if let Err(m) = verify::check(
                chunk,
                at,
                Expect {
                    tag: job.seed,
                    min_seq: 0,
                },
            ) {
                bad += 1;
                if mismatches.len() < MISMATCH_SAMPLES * 2 {
                    mismatches.push(m);
                }
            }
        }
        b += n;
    }
    Ok((checked, bad))
}

fn describe(m: &Mismatch) -> VerifyMismatch {
    let show = |v: u64| match m.field {
        verify::Field::Offset | verify::Field::Sequence | verify::Field::Length => v.to_string(),
        _ => format!("{v:#x}"),
    };
    VerifyMismatch {
        offset_bytes: m.offset,
        field: m.field.name().to_string(),
        expected: show(m.expected),
        found: show(m.found),
    }
}
/// What may be replaced at a journal's path: an empty file or a kura journal.
pub(super) const JOURNAL: Replace = Replace::Only {
    what: "a kura journal",
    magic: &crate::workload::journal::MAGIC,
};

/// The journal of a verify job's writes, made through the write gate at
/// `path`: an empty file or an earlier kura journal is replaced, anything
/// else refused, and never the job's `target` (by device and inode): the
/// journal must never be written over the data it checks.
fn journal_beside(path: &Path, target: &Path, head: JournalHead) -> Result<JournalWriter, String> {
    let out = output::create_output_with(path, None, JOURNAL, &[target.to_path_buf()], Destroy::NoFlag)
        .map_err(|e| format!("journal: {e}"))?;
    let started = out
        .file
        .try_clone()
        .map_err(|e| format!("journal {}: {e}", path.display()))
        .and_then(|file| JournalWriter::start(file, path, head));
    if started.is_err() {
        // A journal kura could not write is not left for a later verify to trust.
        out.discard(path);
    }
    started
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The journal replaces only an empty file or a kura journal, and never
    /// the target it checks.
    #[test]
    fn a_journal_replaces_only_a_journal_and_never_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let head = JournalHead {
            tag: 9,
            block: 4096,
            span_start: 0,
            blocks: 16,
        };
        let (journal, target, other) = (dir.path().join("j"), dir.path().join("t"), dir.path().join("o"));
        std::fs::write(&target, b"data").unwrap();
        std::fs::write(&other, b"data").unwrap();
        drop(journal_beside(&journal, &target, head).unwrap());
        // An earlier journal is replaced.
        drop(journal_beside(&journal, &target, head).unwrap());
        let refused = journal_beside(&other, &target, head).err().unwrap();
        assert!(refused.contains("not a kura journal"), "{refused}");
        assert_eq!(std::fs::read(&other).unwrap(), b"data");
        let refused = journal_beside(&target, &target, head).err().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"data", "{refused}");
    }
}
