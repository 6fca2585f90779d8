//! fio's latency histogram log (`write_hist_log`), in fio 3.33's format
//! (iolog.c `flush_hist_samples`, stat.c `add_clat_sample`): one line per
//! window and direction that had completions,
//! `time (ms), direction (0 read, 1 write, 2 trim), block size, bins...`,
//! the bins being the window's completions in each of fio's 1856
//! log-linear latency bins (stat.h FIO_IO_U_PLAT_NR), each `2^coarseness`
//! of them summed into one (`log_hist_coarseness`). fio's own
//! tools/hist/fiologparser_hist.py reads it (`--group_nr 29`).
//!
//! What differs from fio: the window is the job's `interval` (fio's
//! `log_hist_msec`), its time the window's end from the start of
//! measurement, and every window is written, the last one (cut short by
//! the end of the run) too, where fio writes a window when a completion
//! arrives after it ended. The latency is kura's (fio's `lat`, from submit
//! to completion, where fio's log holds `clat`), binned from kura's HDR
//! histogram by fio's bin edges (metrics/fio_bins.rs). The block size is
//! the direction's smallest, where fio writes the completing I/O's.

use crate::metrics::JobResult;
use crate::metrics::fio_bins::coarse_row;

/// The log's lines for one job.
pub fn hist_log(j: &JobResult) -> String {
    let bs = |dir: usize| {
        let sizes = match (dir, &j.job.bs_write) {
            (1, Some(w)) => w,
            _ => &j.job.bs,
        };
        sizes.iter().map(|b| b.bytes).min().unwrap_or(4096)
    };
    let mut text = String::new();
    for p in j.series.iter().filter(|p| p.duration_ns > 0) {
        let end_ms = (p.start_ns + p.duration_ns) / 1_000_000;
        for (dir, sparse) in p.fio_bins.iter().enumerate() {
            if sparse.is_empty() {
                continue;
            }
            let row = coarse_row(sparse, j.job.hist_coarseness);
            text.push_str(&format!("{end_ms}, {dir}, {}, ", bs(dir)));
            let counts: Vec<String> = row.iter().map(u64::to_string).collect();
            text.push_str(&counts.join(", "));
            text.push('\n');
        }
    }
    text
}
