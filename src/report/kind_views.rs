//! The reports' one match on a job's kind of workload: the table that
//! shows one job of each kind. Everything else in the reports asks the kind
//! (`jobs::workload::WorkloadKind`); suites with pages of their own (bonnie,
//! db) are chosen by the suite that made the run (`runs::render_run`).

use crate::jobs::Workload;
use crate::metrics::{JobResult, RunResult};

/// One job's table in a run's page.
pub fn job_table(job: &JobResult, run: &RunResult) -> String {
    match &job.job.workload {
        Workload::FileSet(_) => super::fileset_table::render_job(job),
        // bonnie's and the database's jobs are named in block terms where
        // a page of no suite shows them (a run imported or filtered).
        Workload::Block | Workload::Bonnie(_) | Workload::Database(_) => {
            super::run_table::render_job(job, super::runs::still_measuring(run))
        }
    }
}
