//! Built-in suites. CrystalDiskMark's profiles with its own definitions:
//! each test is run as read and as write, on one random-filled test file.
//!
//! Source: hiyohiyo/CrystalDiskMark, `DiskMarkDlg.cpp` at 8.0.6 (8f3cd04) and
//! 9.0.1 (bf00fa6), identical here. `UpdateQueuesThreads` fills nine test
//! slots per setting ("Default" and "NVMe SSD Ver.8"); the Default profile
//! shows slots 0-3, Peak slots 4-5 and Real World slots 6-7 (`SetMeter` calls
//! under `PROFILE_PEAK` / `PROFILE_REAL`). So Peak is SEQ1M Q8T1 + RND4K
//! Q32T1 under the Default setting and RND4K Q32T16 only under NVMe SSD.

use super::job::{BlockSize, Job, Rw};

/// One CrystalDiskMark test: `SEQ1M Q8T1` and its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkTest {
    pub name: &'static str,
    pub sequential: bool,
    pub bs_bytes: u64,
    pub qd: u32,
    pub threads: u32,
}

const fn t(name: &'static str, sequential: bool, bs_bytes: u64, qd: u32, threads: u32) -> MarkTest {
    MarkTest {
        name,
        sequential,
        bs_bytes,
        qd,
        threads,
    }
}

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

/// CrystalDiskMark 8/9 "Default" profile, Default setting (slots 0-3).
pub const DEFAULT: &[MarkTest] = &[
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("SEQ1M Q1T1", true, M, 1, 1),
    t("RND4K Q32T1", false, 4 * K, 32, 1),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
];
/// CrystalDiskMark 8/9 "Default" profile, "NVMe SSD Ver.8" setting (slots 0-3).
pub const NVME: &[MarkTest] = &[
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("SEQ128K Q32T1", true, 128 * K, 32, 1),
    t("RND4K Q32T16", false, 4 * K, 32, 16),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
];
/// CrystalDiskMark 8/9 "Peak Performance" profile, Default setting (slots 4-5).
pub const PEAK: &[MarkTest] = &[
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("RND4K Q32T1", false, 4 * K, 32, 1),
];
/// CrystalDiskMark 8/9 "Peak Performance" profile, "NVMe SSD Ver.8" setting (slots 4-5).
pub const PEAK_NVME: &[MarkTest] = &[
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("RND4K Q32T16", false, 4 * K, 32, 16),
];
/// CrystalDiskMark 8/9 "Real World Performance" profile (slots 6-7, the same in both settings).
pub const REALWORLD: &[MarkTest] = &[
    t("SEQ1M Q1T1", true, M, 1, 1),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
];
/// CrystalDiskMark 5's default set, as in the seed comparison of cloud drives
/// (5.x predates the public repository, which starts at 7.0; block sizes as
/// its help text gives them: Seq Q32T1 128 KiB, Seq 1 MiB).
pub const CDM5: &[MarkTest] = &[
    t("Seq Q32T1", true, 128 * K, 32, 1),
    t("4K Q32T1", false, 4 * K, 32, 1),
    t("Seq", true, M, 1, 1),
    t("4K", false, 4 * K, 1, 1),
];

pub const PROFILES: &[(&str, &[MarkTest])] = &[
    ("default", DEFAULT),
    ("nvme", NVME),
    ("peak", PEAK),
    ("peak-nvme", PEAK_NVME),
    ("realworld", REALWORLD),
    ("cdm5", CDM5),
];

pub fn mark_profile(name: &str) -> Option<&'static [MarkTest]> {
    PROFILES.iter().find(|(n, _)| *n == name).map(|(_, tests)| *tests)
}

impl MarkTest {
    /// The job for one direction of this test, on top of `base` (target, size, runtime).
    pub fn job(&self, base: &Job, write: bool) -> Job {
        let rw = match (self.sequential, write) {
            (true, false) => Rw::Read,
            (true, true) => Rw::Write,
            (false, false) => Rw::RandRead,
            (false, true) => Rw::RandWrite,
        };
        Job {
            name: format!("{} {}", self.name, if write { "write" } else { "read" }),
            rw,
            bs: vec![BlockSize {
                bytes: self.bs_bytes,
                weight: 100,
            }],
            qd: self.qd,
            threads: self.threads,
            ..base.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_expand_to_crystaldiskmark_definitions() {
        let base = Job::default();
        let expect = |tests: &[MarkTest], rows: &[(&str, Rw, Rw, u64, u32, u32)]| {
            assert_eq!(tests.len(), rows.len());
            for (test, (name, read_rw, write_rw, bs, qd, threads)) in tests.iter().zip(rows) {
                assert_eq!(test.name, *name);
                for (write, rw) in [(false, read_rw), (true, write_rw)] {
                    let j = test.job(&base, write);
                    assert_eq!(
                        (j.rw, j.bs[0].bytes, j.qd, j.threads),
                        (*rw, *bs, *qd, *threads),
                        "{name}"
                    );
                }
            }
        };
        use Rw::{RandRead, RandWrite, Read, Write};
        expect(
            mark_profile("default").unwrap(),
            &[
                ("SEQ1M Q8T1", Read, Write, 1 << 20, 8, 1),
                ("SEQ1M Q1T1", Read, Write, 1 << 20, 1, 1),
                ("RND4K Q32T1", RandRead, RandWrite, 4096, 32, 1),
                ("RND4K Q1T1", RandRead, RandWrite, 4096, 1, 1),
            ],
        );
        expect(
            mark_profile("nvme").unwrap(),
            &[
                ("SEQ1M Q8T1", Read, Write, 1 << 20, 8, 1),
                ("SEQ128K Q32T1", Read, Write, 128 << 10, 32, 1),
                ("RND4K Q32T16", RandRead, RandWrite, 4096, 32, 16),
                ("RND4K Q1T1", RandRead, RandWrite, 4096, 1, 1),
            ],
        );
        expect(
            mark_profile("peak").unwrap(),
            &[
                ("SEQ1M Q8T1", Read, Write, 1 << 20, 8, 1),
                ("RND4K Q32T1", RandRead, RandWrite, 4096, 32, 1),
            ],
        );
        expect(
            mark_profile("peak-nvme").unwrap(),
            &[
                ("SEQ1M Q8T1", Read, Write, 1 << 20, 8, 1),
                ("RND4K Q32T16", RandRead, RandWrite, 4096, 32, 16),
            ],
        );
        expect(
            mark_profile("realworld").unwrap(),
            &[
                ("SEQ1M Q1T1", Read, Write, 1 << 20, 1, 1),
                ("RND4K Q1T1", RandRead, RandWrite, 4096, 1, 1),
            ],
        );
        expect(
            mark_profile("cdm5").unwrap(),
            &[
                ("Seq Q32T1", Read, Write, 128 << 10, 32, 1),
                ("4K Q32T1", RandRead, RandWrite, 4096, 32, 1),
                ("Seq", Read, Write, 1 << 20, 1, 1),
                ("4K", RandRead, RandWrite, 4096, 1, 1),
            ],
        );
        assert!(mark_profile("fast").is_none());
    }
}
