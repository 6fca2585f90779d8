//! Where results go as they are measured: the seam between the runner,
//! which produces them, and the store, which keeps them. It lives here,
//! beside the result types, so the store needs nothing from the runner.

use super::{IntervalPoint, JobResult};

/// Where each job's result goes the moment it finishes, so that a run that
/// dies later keeps it (the store implements it; the runner knows no store).
pub trait RunSink {
    /// A job starts measuring on its prepared target: `skeleton` has the
    /// job, its test, target and engine, and no numbers yet.
    fn job_started(&mut self, _skeleton: &JobResult) {}
    /// One period of the running job's series, once every thread has moved
    /// past it (the last, partial period arrives only with `job_done`).
    fn interval(&mut self, _point: &IntervalPoint) {}
    /// A finished job, in the order of the run's jobs.
    fn job_done(&mut self, job: &JobResult);
}

/// For runs kept only in memory (tests, tools).
pub struct NoSink;

impl RunSink for NoSink {
    fn job_done(&mut self, _job: &JobResult) {}
}
