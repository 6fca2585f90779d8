//! `kura suite io500`: the IO500-like suite (jobs::io500) in one process,
//! or on MPI ranks (ior-easy and mdtest-easy a file or set per rank,
//! ior-hard one interleaved file, mdtest-hard one shared set).

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, run_options, stop_flag, suite_jobs};
use crate::cli::Io500Args;
use crate::cluster::ThreadComm;
use crate::cluster::rank::{self, ClusterOptions, JobCluster};
use crate::jobs::io500::{self, Io500Params};
use crate::jobs::suites::SuiteKind;
use crate::jobs::{Opt, Value};
use crate::report::{View, render_run};

/// A positive whole number for a flag.
fn count(flag: &str, text: &str) -> Result<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("--{flag}: '{text}' is not valid: must be a whole number above 0"))
}

fn params(args: &Io500Args, ranks: u32) -> Result<Io500Params> {
    let one = |opt: Opt| -> Result<Value> {
        let mut values = args.job.values(opt)?;
        values
            .pop()
            .ok_or_else(|| anyhow!("no value for {}", opt.def().key))
    };
    let Value::Duration(stonewall) = one(Opt::Runtime)? else {
        bail!("--stonewall: not a duration");
    };
    let easy_transfer = match one(Opt::Bs)? {
        Value::BlockSizes(bs) if bs.len() == 1 => bs[0].bytes,
        _ => bail!(
            "--easy-transfer: '{}' is not valid: ior-easy has one transfer size, not a split",
            args.job.text(Opt::Bs).unwrap_or_default()
        ),
    };
    let Value::Bytes(easy_size) = one(Opt::Size)? else {
        bail!("--easy-size: not a size");
    };
    if easy_size < easy_transfer {
        bail!(
            "--easy-size: '{}' is not valid: must hold at least one transfer of --easy-transfer {}",
            args.job.text(Opt::Size).unwrap_or_default(),
            args.job.text(Opt::Bs).unwrap_or_default()
        );
    }
    Ok(Io500Params {
        stonewall,
        easy_transfer,
        easy_size,
        hard_segments: count("hard-segments", &args.hard_segments)?,
        easy_files: count("easy-files", &args.easy_files)?,
        hard_files: count("hard-files", &args.hard_files)?,
        ranks,
    })
}

/// The ior files are names kura chose in DIR, but a job's target is
/// followed through a link like a path the user named: a symlink put at
/// `kura-io500-hard.dat` led the ior-hard phase into the file it points at.
fn refuse_links_at_own_names(jobs: &[crate::runner::SuiteJob]) -> Result<()> {
    for sj in jobs
        .iter()
        .filter(|sj| !sj.job.workload.kind().target_is_directory())
    {
        let path = crate::targets::job_path(&sj.job);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            bail!(
                "{}: is a symbolic link, and kura does not follow links at the file names it chooses; remove it",
                path.display()
            );
        }
    }
    Ok(())
}

pub fn run(ctx: &Ctx, args: Io500Args) -> Result<i32> {
    let launched = crate::cluster::launched_as_rank();
    let ranks = launched.map_or(1, |(_, n)| n);
    let p = params(&args, ranks)?;
    if args.common.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite io500 writes only files it creates in DIR");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    if !dir.is_dir() {
        bail!(
            "{}: not a directory; kura suite io500 takes the directory to test in",
            dir.display()
        );
    }
    let tests = io500::jobs(&dir, &p).map_err(|e| anyhow!("{e}"))?;
    let per_job: Vec<JobCluster> = tests
        .iter()
        .map(|t| JobCluster {
            shared: io500::shared(t.test),
            stonewall: io500::stonewalled(t.test).then_some(p.stonewall),
            interleave: io500::shared(t.test) && !t.job.workload.kind().target_is_directory(),
            reorder: io500::reorders(t.test),
        })
        .collect();
    let jobs = suite_jobs(tests);
    let per_job_alone = per_job.clone();
    let mut opts = run_options(&args.common, ctx.quiet);
    opts.suite = Some(SuiteKind::Io500);
    let view = View {
        json: ctx.json,
        ..View::default()
    };
    let ranked = super::cluster::Ranked {
        opts: opts.clone(),
        view,
        finish: &|_| {},
    };
    if let Some(code) = super::cluster::suite_as_ranks_per_job(ctx, &jobs, per_job, ranked)? {
        return Ok(code);
    }
    // Every phase's files and sets checked before the first phase writes:
    // a foreign `kura-fileset` used to be refused after three phases had run.
    crate::runner::check_before_io(&jobs, &opts)?;
    refuse_links_at_own_names(&jobs)?;
    // One process is one rank: the stonewall and its wear-out run as on many.
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let comm = ThreadComm::group(1).pop().ok_or_else(|| anyhow!("no rank"))?;
    let cluster = ClusterOptions {
        jobs: per_job_alone,
        ..ClusterOptions::default()
    };
    let outcome = rank::run_suite(&comm, &jobs, &opts, &stop, &cluster, &mut rec).map_err(|e| {
        // One process: there is no other rank to tell apart.
        let text = e.to_string();
        anyhow!("{}", text.strip_prefix("rank 0: ").unwrap_or(&text))
    })?;
    let Some(mut result) = outcome else {
        bail!("the suite ended without a result");
    };
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    let printed = super::printed(super::print_run(&render_run(&result, &view)), &result);
    Ok(exit_code(&result, stored).max(printed))
}
