//! The page-cache warning of a buffered job on many ranks, judged per
//! host: ranks on one host share its RAM, so what its page cache could
//! hold is all their data together, not one rank's. Each rank's runner
//! judges its own data against its host's memory; rank 0 judges the run.

use std::collections::BTreeMap;

use crate::jobs::EngineKind;
use crate::metrics::Warning;
use crate::metrics::cluster::RankJob;

/// A host's memory and the distinct regions (path, offset, bytes) its ranks loaded.
type HostData = (u64, Vec<(String, u64, u64)>);

/// `Warning::PageCacheHoldsData` for the run when every host's memory can
/// hold the data of its ranks (a file counted once per host however many
/// of its ranks load it), with the numbers of the host holding the most;
/// `None` when the job was not buffered or some host's data is larger
/// than its memory.
pub fn warning(parts: &[RankJob]) -> Option<Warning> {
    let first = &parts.first()?.result.job;
    if first.direct || first.mem_limit_bytes.is_some() || first.engine == EngineKind::Null {
        return None;
    }
    let mut hosts: BTreeMap<&str, HostData> = BTreeMap::new();
    for p in parts {
        let job = &p.result.job;
        let span = job.size_bytes.unwrap_or(p.result.target.size_bytes);
        // A file per thread: the rank's result names the first of them.
        let files = if job.file_per_thread {
            u64::from(job.threads.max(1))
        } else {
            1
        };
        let region = (
            p.result.target.path.clone(),
            job.offset_bytes,
            span.saturating_mul(files),
        );
        let entry = hosts
            .entry(p.host.hostname.as_str())
            .or_insert((p.host.memory_bytes, Vec::new()));
        if !entry.1.contains(&region) {
            entry.1.push(region);
        }
    }
    let mut most: Option<(u64, u64)> = None;
    for (memory, regions) in hosts.values() {
        let data: u64 = regions.iter().map(|r| r.2).sum();
        if data >= *memory {
            return None;
        }
        if most.is_none_or(|(d, _)| data > d) {
            most = Some((data, *memory));
        }
    }
    most.map(|(data, memory)| Warning::PageCacheHoldsData {
        data_mb: data / 1_000_000,
        memory_mb: memory / 1_000_000,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::HostFacts;

    fn part(rank: u32, host: &str, memory_gb: u64, path: &str, size_gb: u64) -> RankJob {
        let mut result =
            crate::report::fixtures::job("t", crate::jobs::Rw::RandRead, 4096, 100, Some(10), None);
        result.job.direct = false;
        result.job.size_bytes = Some(size_gb * 1_000_000_000);
        result.target.path = path.into();
        RankJob {
            rank,
            host: HostFacts {
                hostname: host.into(),
                memory_bytes: memory_gb * 1_000_000_000,
                ..HostFacts::default()
            },
            start_unix_ns: 0,
            result,
            ops_at_deadline: None,
            bytes_at_deadline: None,
        }
    }

    #[test]
    fn ranks_on_one_host_share_its_memory() {
        // Each rank's 10 GB fits in 16 GB, but the host holds 20 GB of files.
        let two_on_one = [part(0, "a", 16, "/d/f.0", 10), part(1, "a", 16, "/d/f.1", 10)];
        assert_eq!(warning(&two_on_one), None);
        // One rank per host: each host caches its own 10 GB.
        let one_each = [part(0, "a", 16, "/d/f.0", 10), part(1, "b", 16, "/d/f.1", 10)];
        assert_eq!(
            warning(&one_each),
            Some(Warning::PageCacheHoldsData {
                data_mb: 10_000,
                memory_mb: 16_000
            })
        );
        // One shared file loaded whole by both ranks of a host counts once.
        let shared = [part(0, "a", 16, "/d/f", 10), part(1, "a", 16, "/d/f", 10)];
        assert!(warning(&shared).is_some());
        // The host with the most data is the one named; any host that
        // cannot hold its data means no warning.
        let mixed = [part(0, "a", 64, "/d/f.0", 10), part(1, "b", 64, "/d/f.1", 30)];
        assert_eq!(
            warning(&mixed),
            Some(Warning::PageCacheHoldsData {
                data_mb: 30_000,
                memory_mb: 64_000
            })
        );
        let one_too_big = [part(0, "a", 64, "/d/f.0", 10), part(1, "b", 16, "/d/f.1", 30)];
        assert_eq!(warning(&one_too_big), None);
        let mut direct = one_each.clone();
        for p in &mut direct {
            p.result.job.direct = true;
        }
        assert_eq!(warning(&direct), None);
    }
}
