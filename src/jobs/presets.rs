//! CrystalDiskMark's profiles and settings as kura's `mark` runs them.
//!
//! Source: hiyohiyo/CrystalDiskMark 9.0.1 (bf00fa6), read beside 8.0.6
//! (8f3cd04). `DiskMarkDlg.cpp`: `SettingsQueuesThreads` fills nine test
//! slots per setting (Default, "NVMe SSD Ver.8", Flash Memory) and sets the
//! measuring time and interval (5 s and 5 s; Flash Memory 1 s and 30 s);
//! `TestCount` defaults to index 2, three passes (8.0.6: index 4, five);
//! `TestMix` defaults to index 6, `MixRatio` 30: DiskSpd `-w30`, reads and
//! writes 70/30. `DiskBench.cpp`: `ExecDiskBenchAll` (Default profile, slots
//! 0-3), `...AllPeak` (4-5), `...AllReal` (6-7) and `...AllDemo` (8) run
//! every test's read, then every test's write, then with a Mix profile every
//! test mixed, with `Interval` (the pause) between tests; `DiskSpd` runs a
//! test `TestCount + 1` times, pass 0 "Preparing..." and not scored, and
//! keeps the highest score and, separately, the lowest latency of the others.

use super::job::{BlockSize, Job, Rw};
use std::time::Duration;

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

/// The nine slots of the Default and Flash Memory settings (`SettingsQueuesThreads`, cases 0 and 2).
const STANDARD_SLOTS: [MarkTest; 9] = [
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("SEQ1M Q1T1", true, M, 1, 1),
    t("RND4K Q32T1", false, 4 * K, 32, 1),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("RND4K Q32T1", false, 4 * K, 32, 1),
    t("SEQ1M Q1T1", true, M, 1, 1),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
    t("SEQ1M Q8T1", true, M, 8, 1),
];
/// The nine slots of the "NVMe SSD Ver.8" setting (`SettingsQueuesThreads`, case 1).
const NVME_SLOTS: [MarkTest; 9] = [
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("SEQ128K Q32T1", true, 128 * K, 32, 1),
    t("RND4K Q32T16", false, 4 * K, 32, 16),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
    t("SEQ1M Q8T1", true, M, 8, 1),
    t("RND4K Q32T16", false, 4 * K, 32, 16),
    t("SEQ1M Q1T1", true, M, 1, 1),
    t("RND4K Q1T1", false, 4 * K, 1, 1),
    t("SEQ1M Q8T1", true, M, 8, 1),
];

/// CrystalDiskMark 8/9 "Default" profile, Default setting (slots 0-3).
pub const DEFAULT: &[MarkTest] = &[
    STANDARD_SLOTS[0],
    STANDARD_SLOTS[1],
    STANDARD_SLOTS[2],
    STANDARD_SLOTS[3],
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

/// CrystalDiskMark's setting (its Settings menu): which tests fill the slots,
/// how long each pass measures and how long it pauses between tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Standard,
    Nvme,
    Flash,
}

impl Setting {
    pub fn parse(text: &str) -> Option<Setting> {
        match text {
            "standard" | "default" => Some(Setting::Standard),
            "nvme" => Some(Setting::Nvme),
            "flash" => Some(Setting::Flash),
            _ => None,
        }
    }
    fn slots(self) -> &'static [MarkTest; 9] {
        match self {
            Setting::Standard | Setting::Flash => &STANDARD_SLOTS,
            Setting::Nvme => &NVME_SLOTS,
        }
    }
    /// `m_MeasureTime`: how long each pass measures.
    pub fn measure(self) -> Duration {
        match self {
            Setting::Flash => Duration::from_secs(1),
            _ => Duration::from_secs(5),
        }
    }
    /// `m_IntervalTime`: the pause between tests.
    pub fn interval(self) -> Duration {
        match self {
            Setting::Flash => Duration::from_secs(30),
            _ => Duration::from_secs(5),
        }
    }
}

/// CrystalDiskMark's profile (its Profile menu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileKind {
    Default,
    Peak,
    RealWorld,
    Demo,
    /// CrystalDiskMark 5's set (kura's `cdm5`, for the seed comparison).
    Cdm5,
}

/// A profile under a setting, with or without CrystalDiskMark's mixed tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub kind: ProfileKind,
    /// A Mix profile: every test also runs mixed, reads and writes 70/30.
    pub mix: bool,
    pub setting: Setting,
}

/// What kura's mark does differently from CrystalDiskMark on purpose, printed under its grid.
pub const MARK_DIFFERENCES: &str = "\
Differs from CrystalDiskMark on purpose: Linux I/O (io_uring or pread/pwrite,
O_DIRECT) in place of DiskSpd; the preparation pass is a ramp before the first
pass; the test file is filled with random data, not one repeated 1 MiB block.
";

/// The read share of CrystalDiskMark's mixed tests (`MixRatio` 30 % writes).
pub const MIX_READ_PCT: u8 = 70;

/// The profile names `--profile` takes, as `docs/mark.md` lists them.
pub const PROFILE_NAMES: &[&str] = &[
    "default",
    "peak",
    "realworld",
    "demo",
    "default-mix",
    "peak-mix",
    "realworld-mix",
    "nvme",
    "peak-nvme",
    "cdm5",
];

impl Profile {
    /// `--profile` and `--setting`: `nvme` and `peak-nvme` are kura's older
    /// names for default and peak under the NVMe setting; a name may also end
    /// in `-nvme`, `-flash` or `-standard` (as stored runs name it).
    pub fn parse(name: &str, setting: Option<&str>) -> Result<Profile, String> {
        let unknown = || format!("unknown profile '{name}' (known: {})", PROFILE_NAMES.join(", "));
        let (mut rest, mut from_name) = (name, None);
        for (suffix, s) in [
            ("-nvme", Setting::Nvme),
            ("-flash", Setting::Flash),
            ("-standard", Setting::Standard),
        ] {
            if let Some(r) = name.strip_suffix(suffix) {
                (rest, from_name) = (r, Some(s));
            }
        }
        if rest == "nvme" {
            (rest, from_name) = ("default", Some(Setting::Nvme));
        }
        let (rest, mix) = match rest.strip_suffix("-mix") {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let kind = match rest {
            "default" => ProfileKind::Default,
            "peak" => ProfileKind::Peak,
            "realworld" => ProfileKind::RealWorld,
            "demo" if !mix => ProfileKind::Demo,
            "cdm5" if !mix && from_name.is_none() => ProfileKind::Cdm5,
            _ => return Err(unknown()),
        };
        let given =
            match setting {
                Some(text) => Some(Setting::parse(text).ok_or_else(|| {
                    format!("--setting: '{text}' is not a setting (standard, nvme or flash)")
                })?),
                None => None,
            };
        let setting = match (from_name, given) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!(
                    "profile '{name}' and --setting {} disagree: give one of them",
                    setting.unwrap_or_default()
                ));
            }
            (a, b) => a.or(b).unwrap_or(Setting::Standard),
        };
        if kind == ProfileKind::Cdm5 && setting != Setting::Standard {
            return Err("profile 'cdm5' has no --setting: it is CrystalDiskMark 5's own set".into());
        }
        Ok(Profile { kind, mix, setting })
    }

    /// The name stored with the run (`mark:NAME`); `parse` reads it back.
    pub fn name(&self) -> String {
        let base = match self.kind {
            ProfileKind::Default => "default",
            ProfileKind::Peak => "peak",
            ProfileKind::RealWorld => "realworld",
            ProfileKind::Demo => "demo",
            ProfileKind::Cdm5 => "cdm5",
        };
        let mix = if self.mix { "-mix" } else { "" };
        match (self.kind, self.mix, self.setting) {
            (ProfileKind::Default, false, Setting::Nvme) => "nvme".into(),
            (_, _, Setting::Standard) => format!("{base}{mix}"),
            (_, _, Setting::Nvme) => format!("{base}{mix}-nvme"),
            (_, _, Setting::Flash) => format!("{base}{mix}-flash"),
        }
    }

    /// The profile's tests, in CrystalDiskMark's order.
    pub fn tests(&self) -> Vec<MarkTest> {
        let slots = self.setting.slots();
        match self.kind {
            ProfileKind::Default => slots[0..4].to_vec(),
            ProfileKind::Peak => slots[4..6].to_vec(),
            ProfileKind::RealWorld => slots[6..8].to_vec(),
            ProfileKind::Demo => slots[8..9].to_vec(),
            ProfileKind::Cdm5 => CDM5.to_vec(),
        }
    }

    /// Peak and Real World show their random test three times, in MB/s,
    /// IOPS and µs, whatever unit is chosen (`SetMeter` under `PROFILE_PEAK`).
    pub fn random_in_three_units(&self) -> bool {
        matches!(self.kind, ProfileKind::Peak | ProfileKind::RealWorld)
    }
}

/// The direction of one of a test's runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkDir {
    Read,
    Write,
    /// Reads and writes mixed, `MIX_READ_PCT` reads.
    Mix,
}

impl MarkDir {
    pub fn name(self) -> &'static str {
        match self {
            MarkDir::Read => "read",
            MarkDir::Write => "write",
            MarkDir::Mix => "mix",
        }
    }
}

impl MarkTest {
    /// The job for one direction of this test, on top of `base` (target, size, runtime).
    pub fn job(&self, base: &Job, dir: MarkDir) -> Job {
        let rw = match (self.sequential, dir) {
            (true, MarkDir::Read) => Rw::Read,
            (true, MarkDir::Write) => Rw::Write,
            (true, MarkDir::Mix) => Rw::Rw,
            (false, MarkDir::Read) => Rw::RandRead,
            (false, MarkDir::Write) => Rw::RandWrite,
            (false, MarkDir::Mix) => Rw::RandRw,
        };
        let mut job = Job {
            name: format!("{} {}", self.name, dir.name()),
            rw,
            bs: vec![BlockSize {
                bytes: self.bs_bytes,
                weight: 100,
            }],
            qd: self.qd,
            threads: self.threads,
            ..base.clone()
        };
        if dir == MarkDir::Mix {
            job.read_pct = MIX_READ_PCT;
        }
        job
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(p: &str, setting: Option<&str>) -> Vec<(&'static str, u64, u32, u32)> {
        Profile::parse(p, setting)
            .unwrap()
            .tests()
            .iter()
            .map(|t| (t.name, t.bs_bytes, t.qd, t.threads))
            .collect()
    }

    #[test]
    fn profiles_expand_to_crystaldiskmark_definitions() {
        let default = [
            ("SEQ1M Q8T1", 1 << 20, 8, 1),
            ("SEQ1M Q1T1", 1 << 20, 1, 1),
            ("RND4K Q32T1", 4096, 32, 1),
            ("RND4K Q1T1", 4096, 1, 1),
        ];
        assert_eq!(shape("default", None), default);
        assert_eq!(shape("default", Some("flash")), default);
        assert_eq!(shape("default-mix", None), default);
        assert_eq!(
            shape("nvme", None),
            [
                ("SEQ1M Q8T1", 1 << 20, 8, 1),
                ("SEQ128K Q32T1", 128 << 10, 32, 1),
                ("RND4K Q32T16", 4096, 32, 16),
                ("RND4K Q1T1", 4096, 1, 1),
            ]
        );
        assert_eq!(shape("default", Some("nvme")), shape("nvme", None));
        assert_eq!(
            shape("peak", None),
            [("SEQ1M Q8T1", 1 << 20, 8, 1), ("RND4K Q32T1", 4096, 32, 1)]
        );
        assert_eq!(
            shape("peak-nvme", None),
            [("SEQ1M Q8T1", 1 << 20, 8, 1), ("RND4K Q32T16", 4096, 32, 16)]
        );
        let real = [("SEQ1M Q1T1", 1 << 20, 1, 1), ("RND4K Q1T1", 4096, 1, 1)];
        assert_eq!(shape("realworld", None), real);
        assert_eq!(shape("realworld-mix", Some("nvme")), real);
        assert_eq!(shape("demo", None), [("SEQ1M Q8T1", 1 << 20, 8, 1)]);
        assert_eq!(
            shape("cdm5", None),
            [
                ("Seq Q32T1", 128 << 10, 32, 1),
                ("4K Q32T1", 4096, 32, 1),
                ("Seq", 1 << 20, 1, 1),
                ("4K", 4096, 1, 1),
            ]
        );
        let base = Job::default();
        let t = Profile::parse("peak-mix", None).unwrap().tests()[1];
        let (r, w, m) = (
            t.job(&base, MarkDir::Read),
            t.job(&base, MarkDir::Write),
            t.job(&base, MarkDir::Mix),
        );
        assert_eq!(
            (r.rw, w.rw, m.rw, m.read_pct),
            (Rw::RandRead, Rw::RandWrite, Rw::RandRw, 70)
        );
        assert_eq!(m.name, "RND4K Q32T1 mix");
    }

    #[test]
    fn settings_set_measuring_time_and_interval_and_names_read_back() {
        let flash = Profile::parse("default", Some("flash")).unwrap();
        assert_eq!(flash.setting.measure(), Duration::from_secs(1));
        assert_eq!(flash.setting.interval(), Duration::from_secs(30));
        assert_eq!(Setting::Standard.interval(), Duration::from_secs(5));
        for name in PROFILE_NAMES.iter().chain(&["peak-mix-flash", "demo-nvme"]) {
            let p = Profile::parse(name, None).unwrap();
            assert_eq!(p.name(), *name);
        }
        assert_eq!(Profile::parse("peak", Some("nvme")).unwrap().name(), "peak-nvme");
        for (name, setting, why) in [
            ("fast", None, "unknown profile 'fast'"),
            ("demo-mix", None, "unknown profile"),
            ("nvme", Some("flash"), "disagree"),
            ("default", Some("ssd"), "--setting: 'ssd'"),
            ("cdm5", Some("nvme"), "no --setting"),
        ] {
            let e = Profile::parse(name, setting).unwrap_err();
            assert!(e.contains(why), "{name}: {e}");
        }
    }
}
