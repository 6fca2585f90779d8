//! Block I/O as a kind of workload: its parameters are `Job`'s own fields
//! (rw, bs, qd, direct...), read by the worker's hot loop.

use super::Job;
use super::options::Scope;
use super::workload::WorkloadKind;

/// Block I/O on one file or device (`Workload::Block`).
pub struct BlockKind;

impl WorkloadKind for BlockKind {
    fn name(&self) -> &'static str {
        "block"
    }

    fn scope(&self) -> Scope {
        Scope::Block
    }

    fn stores_block_fields(&self) -> bool {
        true
    }

    fn summary(&self, job: &Job) -> String {
        let mut s = format!(
            "{} {} qd{} x{}",
            job.rw.name(),
            job.bs_text(),
            job.qd,
            job.threads
        );
        if job.rw.is_mixed() {
            s.push_str(&format!(" {}% read", job.read_pct));
        }
        if !job.direct {
            s.push_str(" buffered");
        }
        s
    }

    fn listed_as(&self, job: &Job) -> (String, String) {
        (job.rw.name().to_string(), job.bs_text())
    }

    fn measured_whole(&self) -> bool {
        false
    }

    fn in_flight_per_thread(&self, job: &Job) -> u64 {
        u64::from(job.qd.max(1))
    }

    fn has_queue(&self) -> bool {
        true
    }

    fn target_is_directory(&self) -> bool {
        false
    }

    fn runs_in_groups(&self) -> bool {
        true
    }

    fn runs_on_ranks(&self) -> bool {
        true
    }
}
