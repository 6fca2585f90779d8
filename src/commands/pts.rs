//! `kura suite pts DEVICE`: SNIA PTS-E/C 2.0.2's tests (jobs::pts) through
//! the one suite loop, with the purge each test ran said in the run.

use std::os::unix::fs::FileTypeExt;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, suite_options};
use crate::cli::PtsArgs;
use crate::jobs::pts::{PURGE_METHOD, PtsPlan, PtsTest, parse_scale, pts_jobs};
use crate::jobs::suites::SuiteKind;
use crate::jobs::{Job, Opt};
use crate::metrics::Warning;
use crate::runner::SuiteJob;

pub fn run(ctx: &Ctx, args: PtsArgs) -> Result<i32> {
    if let Some(code) = crate::cluster::refuse_many_ranks("kura suite pts")? {
        return Ok(code);
    }
    let tests = PtsTest::parse_list(&args.tests).map_err(|e| anyhow!(e))?;
    let scale = parse_scale(&args.scale).map_err(|e| anyhow!(e))?;
    let (_, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Pts)?;
    refuse_without_allow_destroy(&args.device, opts.target.allow_destroy.as_deref())?;
    let mut base = Job::default();
    args.job.apply(&mut base)?;
    base.set("target", &args.device).map_err(|e| anyhow!("{e}"))?;
    let (purge, own_len) = target_kind(&args.device)?;
    let span_bytes = match args.job.text(Opt::Size) {
        Some(_) => base.size_bytes.unwrap_or(own_len),
        None => own_len,
    };
    if span_bytes < 1 << 20 {
        bail!(
            "{}: {} bytes is too small for the PTS's tests (at least 1 MiB)",
            args.device,
            span_bytes
        );
    }
    let plan = PtsPlan {
        tests: tests.clone(),
        scale,
        purge,
        span_bytes,
    };
    let jobs: Vec<SuiteJob> = pts_jobs(&base, &plan)?
        .into_iter()
        .map(|s| SuiteJob {
            test: Some(s.test),
            job: s.job,
            rounds: s.rounds,
        })
        .collect();
    let mut said: Vec<Warning> = Vec::new();
    if scale < 1.0 {
        said.push(Warning::PtsNotConforming { scale });
    }
    if purge
        && let Some(state) = crate::targets::write_cache_of(std::path::Path::new(&args.device))
        && state == "write back"
    {
        said.push(Warning::PtsWriteCache {
            device: args.device.clone(),
            state,
        });
    }
    for t in &tests {
        let names: Vec<String> = match t {
            PtsTest::Tp => crate::jobs::pts::TP_BLOCK_SIZES
                .iter()
                .map(|bs| format!("TP {}", crate::jobs::units::format_size(*bs)))
                .collect(),
            other => vec![other.to_string()],
        };
        for test in names {
            said.push(Warning::PtsPurge {
                test,
                method: purge.then(|| PURGE_METHOD.to_string()),
                span_bytes: (span_bytes < own_len).then_some(span_bytes),
            });
        }
    }
    let (result, stored) = super::measure_suite(
        ctx,
        &opts,
        |_| jobs,
        |result| {
            once_per_kind(&mut result.warnings);
            result.warnings.splice(0..0, said);
        },
    )?;
    Ok(super::print_measured(ctx, &result, stored))
}

/// The PTS purges and fills its whole target whatever it holds, so it asks
/// for `--allow-destroy` naming the target every time, not only when kura
/// finds something there (the help said so before the check did).
fn refuse_without_allow_destroy(device: &str, allowed: Option<&std::path::Path>) -> Result<()> {
    // The same device by any node for it, the same file by any name (targets::Identity).
    let named_by_flag = std::fs::metadata(device).is_ok_and(|target| {
        let target = crate::targets::Identity::of(&target);
        allowed.is_some_and(|a| std::fs::metadata(a).is_ok_and(|m| target.matches(&m)))
    });
    if named_by_flag {
        return Ok(());
    }
    let named = match allowed {
        Some(other) => format!(" (--allow-destroy names {}, another one)", other.display()),
        None => String::new(),
    };
    bail!(
        "{device}: kura suite pts purges and overwrites everything on its target; pass \
         --allow-destroy {device} to say that may be lost{named}"
    )
}

/// Whether DEVICE can be purged (a block device) and its length. A regular
/// file is measured but cannot be purged; anything else is refused.
fn target_kind(device: &str) -> Result<(bool, u64)> {
    let meta = std::fs::metadata(device).map_err(|e| {
        anyhow!("{device}: {e}; kura suite pts runs on a block device (or an existing file, unpurged)")
    })?;
    if meta.file_type().is_block_device() {
        let mut dev = std::fs::File::open(device).map_err(|e| anyhow!("{device}: {e}"))?;
        let len =
            std::io::Seek::seek(&mut dev, std::io::SeekFrom::End(0)).map_err(|e| anyhow!("{device}: {e}"))?;
        Ok((true, len))
    } else if meta.is_file() {
        Ok((false, meta.len()))
    } else {
        bail!("{device}: not a block device or a regular file")
    }
}

/// Every one of the PTS's hundreds of jobs is on the one target: a caveat
/// about where its data lives (a sparse loop backing file, refilled by each
/// purge's discards) is said once, the first time, not once per job.
fn once_per_kind(warnings: &mut Vec<Warning>) {
    let mut seen = Vec::new();
    warnings.retain(|w| {
        if !w.is_data_source() {
            return true;
        }
        let kind = std::mem::discriminant(w);
        let first = !seen.contains(&kind);
        seen.push(kind);
        first
    });
}
