//! fio options kura accepts with a note: placement and priority, left to
//! the tools made for them (numactl, ionice), `ignore_error`, and
//! `io_submit_mode`, whose offload kura's own submission already gives.

use super::{Entry, FioJob, FormatError, Translator, value_err};

/// Options whose effect kura leaves to another tool, and what to run.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "numa_cpu_nodes",
        "kura leaves thread placement to the scheduler; run it under `numactl --cpunodebind=NODES`",
    ),
    (
        "numa_mem_policy",
        "kura's buffers follow the kernel's default memory policy; run it under `numactl --membind=NODES` (or --interleave)",
    ),
    (
        "prio",
        "kura's I/O runs at the process's I/O priority; run it under `ionice -c CLASS -n PRIO`",
    ),
    (
        "prioclass",
        "kura's I/O runs at the process's I/O priority; run it under `ionice -c CLASS -n PRIO`",
    ),
    (
        "cmdprio_percentage",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio_bssplit",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio_class",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "cmdprio",
        "kura issues every I/O at one priority (the process's, `ionice`); fio's per-I/O priorities, and its latencies per priority, are not reproduced",
    ),
    (
        "ignore_error",
        "kura counts every failed I/O with its errno and offset and goes on (max_errors stops it)",
    ),
];

impl Translator<'_> {
    pub(super) fn apply_noted(&mut self, _j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let at = e.loc.clone();
        let value = || e.value.as_deref().map(str::trim).unwrap_or("");
        match e.key.as_str() {
            "io_submit_mode" => match value().to_ascii_lowercase().as_str() {
                "inline" => {}
                "offload" => self.note(
                    &at,
                    "io_submit_mode=offload: kura submits from each job's own threads; a rate-limited job \
                     keeps its schedule however long a submit takes, which is what fio's offload is for"
                        .into(),
                ),
                _ => return Err(value_err(e, "expected inline or offload (fio's words)")),
            },
            k if ELSEWHERE.iter().any(|(n, _)| *n == k) => {
                let why = ELSEWHERE.iter().find(|(n, _)| *n == k).map_or("", |(_, w)| w);
                self.note(&at, format!("{k}: accepted; {why}"));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
