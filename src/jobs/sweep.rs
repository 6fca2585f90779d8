//! Block-size x read/write-mix sweeps (seed section 2), and the block sizes
//! and mixes of the SNIA PTS IOPS test as a preset (`iops-matrix-quick`:
//! the matrix alone, without the PTS's purge, preconditioning and rounds).

use super::job::{Job, Rw, SpecError, parse_block_sizes};
use super::units::format_size;

/// SNIA Solid State Storage PTS 2.0.2, IOPS test (section 7): read shares and block sizes.
pub const PTS_READ_PCTS: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
pub const PTS_BLOCK_SIZES: [u64; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// One point of a sweep: its test name and job.
pub struct SweepPoint {
    pub test: String,
    pub job: Job,
}

pub fn mix_name(read_pct: u8) -> String {
    format!("{}/{}", read_pct, 100 - read_pct)
}

pub fn test_name(bs: u64, read_pct: u8) -> String {
    format!("bs={} mix={}", format_size(bs), mix_name(read_pct))
}

/// Parses `--bs 4k,8k` into sizes.
pub fn parse_bs_list(text: &str) -> Result<Vec<u64>, SpecError> {
    let sizes: Vec<u64> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse_block_sizes("bs", s).map(|b| b[0].bytes))
        .collect::<Result<_, _>>()?;
    if sizes.is_empty() {
        return Err(SpecError::Invalid {
            key: "bs".into(),
            value: text.into(),
            why: "the list is empty".into(),
        });
    }
    Ok(sizes)
}

/// Parses `--read-pct 100,50,0`.
pub fn parse_mix_list(text: &str) -> Result<Vec<u8>, SpecError> {
    let bad = |why: &str| SpecError::Invalid {
        key: "read-pct".into(),
        value: text.into(),
        why: why.into(),
    };
    let mixes: Vec<u8> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<u8>()
                .ok()
                .filter(|p| *p <= 100)
                .ok_or_else(|| bad("each mix must be 0..100"))
        })
        .collect::<Result<_, _>>()?;
    if mixes.is_empty() {
        return Err(bad("the list is empty"));
    }
    Ok(mixes)
}

/// The sweep's points, mix by mix, block size by block size, each `runs` times.
pub fn points(base: &Job, block_sizes: &[u64], mixes: &[u8], random: bool, runs: u32) -> Vec<SweepPoint> {
    let mut out = Vec::new();
    for &read_pct in mixes {
        for &bs in block_sizes {
            for r in 0..runs {
                let mut job = base.clone();
                job.rw = match (read_pct, random) {
                    (100, true) => Rw::RandRead,
                    (0, true) => Rw::RandWrite,
                    (_, true) => Rw::RandRw,
                    (100, false) => Rw::Read,
                    (0, false) => Rw::Write,
                    (_, false) => Rw::Rw,
                };
                job.read_pct = read_pct;
                job.bs = vec![super::BlockSize {
                    bytes: bs,
                    weight: 100,
                }];
                let test = test_name(bs, read_pct);
                job.name = format!("{test} #{}", r + 1);
                out.push(SweepPoint { test, job });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pts_matrix_is_seven_mixes_by_eight_sizes() {
        let p = points(&Job::default(), &PTS_BLOCK_SIZES, &PTS_READ_PCTS, true, 1);
        assert_eq!(p.len(), 56);
        assert_eq!(p[0].test, "bs=1m mix=100/0");
        assert_eq!(p[0].job.rw, Rw::RandRead);
        assert_eq!(p[8 + 7].test, "bs=512 mix=95/5");
        assert_eq!(p[8 + 7].job.rw, Rw::RandRw);
        assert_eq!(p[8 + 7].job.read_pct, 95);
        assert_eq!(p[55].job.rw, Rw::RandWrite);
    }

    #[test]
    fn lists_parse_and_refuse() {
        assert_eq!(parse_bs_list("4k, 8k,256k").unwrap(), vec![4096, 8192, 256 << 10]);
        assert!(parse_bs_list("").is_err());
        assert!(parse_bs_list("4k,zz").is_err());
        assert_eq!(parse_mix_list("100,50,0").unwrap(), vec![100, 50, 0]);
        assert!(parse_mix_list("150").is_err());
        assert!(parse_mix_list(",").is_err());
    }
}
