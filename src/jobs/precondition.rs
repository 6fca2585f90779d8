//! Preconditioning before a job measures, as the SNIA Solid State Storage
//! Performance Test Specification (PTS) 2.0.2 puts a device into a known
//! state: workload-independent preconditioning writes the whole span
//! sequentially with 128 KiB blocks, twice by default (`seq`, `seq:N`);
//! workload-dependent preconditioning runs 4 KiB random writes in rounds
//! until their IOPS are steady by the PTS's rule (`random`, see
//! metrics::steady). Each becomes a job of its own, run before the one it
//! prepares and stored with the run, so its series and rounds show.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::job::{BlockSize, Job, Rw};
use crate::jobs::Tracked;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Precondition {
    /// Write the span sequentially `passes` times with 128 KiB blocks.
    Seq { passes: u32 },
    /// 4 KiB random writes, in rounds as long as the job's runtime, until steady.
    Random,
}

impl Precondition {
    pub fn parse(text: &str) -> Result<Precondition, String> {
        let t = text.trim().to_ascii_lowercase();
        match t.split_once(':') {
            None if t == "seq" => Ok(Precondition::Seq { passes: 2 }),
            None if t == "random" => Ok(Precondition::Random),
            Some(("seq", n)) => match n.parse::<u32>() {
                Ok(passes) if (1..=100).contains(&passes) => Ok(Precondition::Seq { passes }),
                _ => Err("seq:N takes a number of passes from 1 to 100".into()),
            },
            _ => Err("expected seq, seq:N or random".into()),
        }
    }

    /// The job that preconditions `job`'s target: same target, span, engine
    /// and seed; its own name and workload.
    pub fn job_before(self, job: &Job) -> Job {
        let mut pre = job.clone();
        pre.precondition = None;
        pre.until_steady = None;
        pre.group = None;
        pre.direct = true;
        pre.fsync_every = None;
        pre.rate_iops = None;
        pre.rate_bytes_per_sec = None;
        pre.think_time = None;
        pre.think_every = None;
        pre.io_count = None;
        pre.io_size_bytes = None;
        pre.gap_bytes = 0;
        pre.random_pct = 100;
        pre.read_pct = 0;
        pre.qd = 32;
        pre.threads = 1;
        pre.ramp = std::time::Duration::ZERO;
        match self {
            Precondition::Seq { passes } => {
                pre.name = format!("{} precondition", job.name);
                pre.rw = Rw::Write;
                pre.bs = vec![BlockSize {
                    bytes: 128 << 10,
                    weight: 100,
                }];
                pre.passes = Some(passes.into());
                pre.runtime = None;
            }
            Precondition::Random => {
                pre.name = format!("{} precondition", job.name);
                pre.rw = Rw::RandWrite;
                pre.bs = vec![BlockSize {
                    bytes: 4 << 10,
                    weight: 100,
                }];
                pre.passes = None;
                pre.until_steady = Some(Tracked::Iops);
            }
        }
        pre
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Precondition::Seq { passes: 2 } => f.write_str("seq"),
            Precondition::Seq { passes } => write!(f, "seq:{passes}"),
            Precondition::Random => f.write_str("random"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_and_write_back() {
        for text in ["seq", "seq:3", "random"] {
            assert_eq!(Precondition::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Precondition::parse("seq:2").unwrap().to_string(), "seq");
        for bad in ["seq:0", "seq:x", "sprandom", ""] {
            assert!(Precondition::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seq_writes_the_span_twice_in_128k_and_random_writes_4k_until_steady() {
        let mut job = Job::default();
        job.set("rw", "randread").unwrap();
        job.set("size", "64m").unwrap();
        let seq = Precondition::Seq { passes: 2 }.job_before(&job);
        assert_eq!(
            (seq.rw, seq.bs[0].bytes, seq.passes),
            (Rw::Write, 128 << 10, Some(2))
        );
        assert_eq!(seq.size_bytes, Some(64 << 20));
        assert!(seq.validate().is_ok());
        let random = Precondition::Random.job_before(&job);
        assert_eq!((random.rw, random.bs[0].bytes), (Rw::RandWrite, 4096));
        assert_eq!(random.until_steady, Some(Tracked::Iops));
        assert_eq!(random.precondition, None);
    }
}
