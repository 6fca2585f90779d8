//! A job as it was issued, for its stored and printed JSON: `read_pct` is
//! the share of reads the job made (100 for `read`/`randread`, 0 for
//! `write`/`randwrite`), not the unused default a pure job carries, so a
//! script reading `rw` and `read_pct` gets one answer. A file
//! set's or a database's job carries only the options of its kind and of
//! run control: the table's block options (`rw`, `bs`, `qd`, `direct`...)
//! describe nothing it did, so they are left out, not stored as `randread`.

use serde::ser::Error as _;
use serde::{Serialize, Serializer};

use super::Job;
use super::options::{OPTIONS, Scope};

/// Serializes `job` with its effective read share (`serialize_with`).
pub fn serialize<S: Serializer>(job: &Job, s: S) -> Result<S::Ok, S::Error> {
    if !job.workload.kind().stores_block_fields() {
        let mut v = serde_json::to_value(job).map_err(S::Error::custom)?;
        if let Some(fields) = v.as_object_mut() {
            for d in OPTIONS.iter().filter(|d| d.scope == Scope::Block) {
                for field in [
                    d.key.to_string(),
                    format!("{}_bytes", d.key),
                    format!("{}_ns", d.key),
                ] {
                    fields.remove(&field);
                }
            }
        }
        return v.serialize(s);
    }
    let read_pct = job.effective_read_pct();
    if read_pct == job.read_pct {
        return job.serialize(s);
    }
    let mut issued = job.clone();
    issued.read_pct = read_pct;
    issued.serialize(s)
}

#[cfg(test)]
mod tests {
    use crate::jobs::{Job, Rw};

    #[derive(serde::Serialize)]
    struct Wrap(#[serde(serialize_with = "super::serialize")] Job);

    fn read_pct(rw: Rw, read_pct: u8) -> serde_json::Value {
        let job = Job {
            rw,
            read_pct,
            ..Job::default()
        };
        serde_json::to_value(Wrap(job)).unwrap()["read_pct"].clone()
    }

    #[test]
    fn a_pure_job_says_what_it_issued_and_a_mix_its_share() {
        assert_eq!(read_pct(Rw::RandRead, 50), 100);
        assert_eq!(read_pct(Rw::Read, 50), 100);
        assert_eq!(read_pct(Rw::Write, 50), 0);
        assert_eq!(read_pct(Rw::RandWrite, 70), 0);
        assert_eq!(read_pct(Rw::RandRw, 70), 70);
        assert_eq!(read_pct(Rw::Rw, 50), 50);
    }
}
