//! What part of its target a job measured, as every header says it: a
//! device measured on its first 1 GiB is not the whole device.

use super::format::bytes_human;
use crate::metrics::{JobResult, TargetKind};

/// "first 1.0 GiB of a 10.0 GiB device", "all of a 10.0 GiB device",
/// "1.0 GiB file", "first 64.0 MiB of a 1.0 GiB file".
pub fn span_text(j: &JobResult) -> String {
    let whole = j.target.size_bytes;
    let span = j
        .job
        .size_bytes
        .unwrap_or(whole)
        .min(whole.saturating_sub(j.job.offset_bytes));
    // A file set's anchor is stored as a file target; its size is its files'.
    let set = j.job.workload.kind().target_is_directory();
    let what = match j.target.kind {
        TargetKind::Block => crate::t!("span-kind-device"),
        TargetKind::File if set => crate::t!("span-kind-directory"),
        TargetKind::File => crate::t!("span-kind-file"),
    };
    let of = if whole == 0 || (span == whole && j.job.offset_bytes == 0) {
        return match j.target.kind {
            TargetKind::Block => crate::t!("span-all-device", size = bytes_human(whole)),
            TargetKind::File if set => crate::t!("span-directory", size = bytes_human(whole)),
            TargetKind::File => crate::t!("span-file", size = bytes_human(whole)),
        };
    } else {
        crate::t!("span-of", size = bytes_human(whole), kind = what)
    };
    if j.job.offset_bytes == 0 {
        crate::t!("span-first", span = bytes_human(span), of = of)
    } else {
        crate::t!(
            "span-at",
            span = bytes_human(span),
            offset = bytes_human(j.job.offset_bytes),
            of = of
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::job;
    use super::*;
    use crate::jobs::Rw;

    #[test]
    fn the_span_is_said_with_the_whole() {
        let mut j = job("t", Rw::RandRead, 4096, 100, Some(1), None);
        j.target.kind = TargetKind::Block;
        j.target.size_bytes = 10 << 30;
        j.job.size_bytes = Some(1 << 30);
        assert_eq!(span_text(&j), "first 1.0 GiB of a 10.0 GiB device");
        j.job.offset_bytes = 1 << 30;
        assert_eq!(span_text(&j), "1.0 GiB at 1.0 GiB of a 10.0 GiB device");
        j.job.offset_bytes = 0;
        j.job.size_bytes = Some(10 << 30);
        assert_eq!(span_text(&j), "all of a 10.0 GiB device");
        j.target.kind = TargetKind::File;
        assert_eq!(span_text(&j), "10.0 GiB file");
    }
}
