//! `kura suite tiobench|bonnie`: the classic suites with their own tables.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, keep_run, run_header, stop_flag, suite_options};
use crate::cli::{BonnieArgs, TiobenchArgs};
use crate::fsops::bonnie;
use crate::metrics::RunResult;
use crate::report::{bonnie_table, emit, format, tiobench_table, to_json};
use crate::runner::{self, SuiteJob};
use crate::spec::{Job, Rw};

/// tiobench's four tests in its order; each thread has its own file.
///
/// As tiotest.c and tiobench.pl (mkuoppal/tiobench at 11c965c) run them:
/// - every test ends with fsync and close inside the timed part
///   (`do_generic_test`), so the write tests include the flush;
/// - the page cache is not dropped between tests (tiotest drops it only
///   with `-F`), so the reads find what the writes left in memory;
/// - `--random-ops` is for all threads together: tiobench.pl passes
///   `-r int(random/threads)` to each thread.
///
/// On purpose, kura keeps `--file-size` per thread (tiotest's `-f`, where
/// tiobench.pl's `--size` is the total) and pre-fills new files with random
/// data, where tiotest only `ftruncate`s them; `TIOBENCH_DIFFERENCES` says so in the output.
pub fn tiobench(ctx: &Ctx, args: TiobenchArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, "tiobench")?;
    let dir = std::path::PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let mut base = Job::default();
    base.set("threads", &args.threads).map_err(|e| anyhow!("--{e}"))?;
    base.set("size", &args.file_size)
        .map_err(|e| anyhow!("--file-size: {e}"))?;
    base.set("bs", &args.block).map_err(|e| anyhow!("--block: {e}"))?;
    let random_ops: u64 = args
        .random_ops
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("--random-ops: '{}' is not a positive number", args.random_ops))?;
    base.target = Some(dir.join("kura-tiobench.dat"));
    base.file_per_thread = true;
    base.direct = args.direct;
    let jobs = tiobench_jobs(&base, random_ops, runs)?;
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let mut rec = store.begin_run(&run_header(&opts))?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    print_tiobench(ctx, &result)?;
    Ok(exit_code(&result, stored))
}

/// What kura's tiobench does differently from tiotest on purpose, printed under its table.
pub const TIOBENCH_DIFFERENCES: &str = "Differs from tiotest on purpose: --file-size is per thread (tiotest -f; tiobench.pl's --size is the total); new files are pre-filled with random data (tiotest ftruncates them).\n";

/// The suite's jobs: tiotest's four tests in its order, `runs` times each.
pub fn tiobench_jobs(base: &Job, random_ops: u64, runs: u32) -> Result<Vec<SuiteJob>> {
    let threads = base.threads as u64;
    let file_bytes = base.size_bytes.unwrap_or(0);
    // tiobench.pl: `my $thread_rand=int($random_ops/$thread)`.
    let per_thread = random_ops / threads;
    if per_thread == 0 {
        bail!("--random-ops: {random_ops} random operations cannot be shared by {threads} threads");
    }
    let mut jobs = Vec::new();
    for (test, rw) in [
        ("Sequential Write", Rw::Write),
        ("Random Write", Rw::RandWrite),
        ("Sequential Read", Rw::Read),
        ("Random Read", Rw::RandRead),
    ] {
        for r in 0..runs {
            let mut job = Job {
                rw,
                name: format!("{test} #{}", r + 1),
                ..base.clone()
            };
            if rw.is_random() {
                job.io_count = Some(per_thread * threads);
            } else {
                job.io_size_bytes = Some(file_bytes * threads);
            }
            // tiotest never drops the cache unless told to (-F), and times fsync and close.
            job.keep_cache = !job.direct;
            job.end_fsync = job.does_writes();
            job.validate()?;
            jobs.push(SuiteJob {
                test: Some(test.to_string()),
                job,
            });
        }
    }
    Ok(jobs)
}

pub fn print_tiobench(ctx: &Ctx, run: &RunResult) -> Result<i32> {
    let rows = tiobench_table::rows(run);
    if ctx.json {
        emit(&to_json(&serde_json::json!({ "run": run, "rows": rows })))?;
        return Ok(0);
    }
    let first = run.jobs.first();
    let mut out = format!(
        "kura tiobench run {} · {} · {} threads x {} file, {} blocks, {}, engine {}\n",
        run.id.unwrap_or(0),
        format::utc(run.started_unix_s),
        first.map(|j| j.job.threads).unwrap_or(0),
        first
            .map(|j| format::bytes_human(j.job.size_bytes.unwrap_or(0)))
            .unwrap_or_default(),
        first.map(|j| j.job.bs_text()).unwrap_or_default(),
        if first.is_some_and(|j| j.job.direct) {
            "O_DIRECT"
        } else {
            "buffered"
        },
        first.map(|j| j.engine.as_str()).unwrap_or_default(),
    );
    if run.incomplete {
        out.push_str("INCOMPLETE: the run was stopped early; the numbers cover what ran.\n");
    }
    out.push_str(&tiobench_table::render(&rows));
    out.push_str(TIOBENCH_DIFFERENCES);
    for w in &run.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    emit(&out)?;
    Ok(0)
}

/// bonnie++'s tests on DIR/kura-bonnie.dat and DIR/kura-bonnie.d (see fsops::bonnie).
pub fn bonnie(ctx: &Ctx, args: BonnieArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, "bonnie")?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite bonnie writes only files it creates in DIR");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let chunk = bonnie::parse_chunk(&args.chunk).map_err(|e| anyhow!("--chunk: {e}"))?;
    let memory = bonnie::usable_memory_bytes();
    let size = match &args.size {
        Some(text) => bonnie::parse_file_size(text).map_err(|e| anyhow!("--size: {e}"))?,
        None => bonnie::default_size(memory),
    };
    let files = bonnie::parse_files(&args.files).map_err(|e| anyhow!("--files: {e}"))?;
    if size == 0 && files == 0 {
        bail!("--size 0 and --files 0 leave no test to run");
    }
    let mut cfg = bonnie::Config::new(dir, size, chunk, files);
    cfg.runs = runs;
    cfg.label = opts.label.clone();
    bonnie::check_target(&cfg).map_err(|e| anyhow!(e))?;
    let cache = bonnie::cache_warning(size, memory);
    if let Some(w) = &cache
        && !ctx.quiet
    {
        eprintln!("kura: warning: {w}");
    }
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    let header = run_header(&opts);
    let jobs: Vec<runner::SuiteJob> = bonnie::jobs(&cfg, bonnie::seed_of(header.started_unix_s))
        .into_iter()
        .map(|job| runner::SuiteJob {
            test: job.workload.bonnie().map(|p| p.test.clone()),
            job,
        })
        .collect();
    let mut rec = store.begin_run(&header)?;
    let mut result = runner::run_suite(&jobs, &opts, &stop, &mut rec)?;
    result.warnings.splice(0..0, cache);
    result
        .warnings
        .extend(bonnie_table::disagreement_warnings(&result));
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    print_bonnie(ctx, &result, args.csv)?;
    Ok(exit_code(&result, stored))
}

pub fn print_bonnie(ctx: &Ctx, run: &RunResult, csv: bool) -> Result<i32> {
    let rows = bonnie_table::rows(run);
    let lines = if csv {
        bonnie_table::csv_lines(run)
    } else {
        Vec::new()
    };
    if ctx.json {
        let mut v = serde_json::json!({ "run": run, "rows": rows });
        if csv {
            v["csv"] = serde_json::json!(lines);
        }
        emit(&to_json(&v))?;
        return Ok(0);
    }
    let first = run.jobs.first();
    let io = run.jobs.iter().find_map(|j| j.job.size_bytes.filter(|s| *s > 0));
    let files = run
        .jobs
        .iter()
        .find(|j| j.job.size_bytes.is_none())
        .and_then(|j| j.job.io_count);
    let mut what = Vec::new();
    if let Some(size) = io {
        what.push(format!("{} file", format::bytes_human(size)));
    }
    if let Some(n) = files {
        what.push(format!("{n} small files"));
    }
    let mut out = format!(
        "kura bonnie run {} · {} · {}{} · {}, buffered\n",
        run.id.unwrap_or(0),
        format::utc(run.started_unix_s),
        first
            .map(|j| std::path::Path::new(&j.target.path)
                .parent()
                .unwrap_or(std::path::Path::new(""))
                .display()
                .to_string())
            .unwrap_or_default(),
        first
            .and_then(|j| j.target.fs_type.as_deref())
            .map(|fs| format!(" ({fs})"))
            .unwrap_or_default(),
        what.join(", "),
    );
    if run.incomplete {
        out.push_str("INCOMPLETE: the run was stopped early; the numbers cover what ran.\n");
    }
    out.push_str(&bonnie_table::render(run));
    for w in &run.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    emit(&out)?;
    Ok(0)
}
