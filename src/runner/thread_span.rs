//! Where each thread works: the target's span, or with fio's
//! `offset_increment` a span of its own, thread N's starting N increments
//! further in (fio's clones: `offset + offset_increment * N`). Each such
//! span is the job's span less the `(threads - 1)` increments the last
//! thread is moved by, so every thread's span has the same length.

use crate::jobs::Job;
use crate::jobs::units::format_size;
use crate::targets::PreparedTarget;

/// The length of each thread's span, from the job's span: an error when
/// the increments leave a thread no room for its largest I/O.
pub(super) fn each(job: &Job, span: u64) -> Result<u64, String> {
    if job.offset_increment_bytes == 0 {
        return Ok(span);
    }
    let moved = job
        .offset_increment_bytes
        .saturating_mul(u64::from(job.threads.saturating_sub(1)));
    let left = span.saturating_sub(moved);
    if left < job.max_bs() {
        return Err(format!(
            "{}: offset_increment {} x {} threads leaves the last thread {} of the span of {}, less than one block of {}",
            job.name,
            format_size(job.offset_increment_bytes),
            job.threads,
            format_size(left),
            format_size(span),
            format_size(job.max_bs())
        ));
    }
    Ok(left)
}

/// Thread `thread`'s span start and length on `target`.
pub(super) fn of(job: &Job, target: &PreparedTarget, thread: u32) -> (u64, u64) {
    if job.offset_increment_bytes == 0 {
        return (target.span_start, target.span_bytes);
    }
    let length = each(job, target.span_bytes).unwrap_or(target.span_bytes);
    let start = target.span_start + job.offset_increment_bytes * u64::from(thread);
    (start, length)
}
