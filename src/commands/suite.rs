//! `kura suite tiobench|bonnie|db`: the classic suites with their own tables.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::{Ctx, exit_code, suite_options};
use crate::bonnie::measure;
use crate::cli::{BonnieArgs, DbArgs, TiobenchArgs};
use crate::database;
use crate::jobs::Job;
use crate::jobs::db_params::{self, DbParams, Journal, Server, Synchronous, Test};
use crate::jobs::suites::{SuiteKind, tiobench_jobs};
use crate::metrics::RunResult;
use crate::report::{View, bonnie_table, render_run};
use crate::runner;

/// tiobench's four tests (jobs::suites::tiobench_jobs) on DIR/kura-tiobench.dat, one file per thread.
pub fn tiobench(ctx: &Ctx, args: TiobenchArgs) -> Result<i32> {
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Tiobench)?;
    let dir = std::path::PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let mut base = Job::default();
    args.job.apply(&mut base)?;
    let random_ops: u64 = args
        .random_ops
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| anyhow!("--random-ops: '{}' is not a positive number", args.random_ops))?;
    base.target = Some(dir.join("kura-tiobench.dat"));
    base.file_per_thread = true;
    let jobs = super::suite_jobs(tiobench_jobs(&base, random_ops, runs)?);
    let view = View {
        json: ctx.json,
        ..View::default()
    };
    // On ranks, each rank runs tiotest's threads on files of its own
    // (DIR/kura-tiobench.dat.RANK.THREAD), every test started together;
    // the run's rates are the ranks' totals, as tiotest's are its threads'.
    let ranked = super::cluster::Ranked {
        opts: opts.clone(),
        view,
        finish: &|_| {},
    };
    let per_rank = vec![crate::cluster::rank::JobCluster::default(); jobs.len()];
    if let Some(code) = super::cluster::suite_as_ranks_per_job(ctx, &jobs, per_rank, ranked)? {
        return Ok(code);
    }
    let (result, stored) = super::measure_suite(ctx, &opts, |_| jobs, |_| {})?;
    let printed = super::printed(super::print_run(&render_run(&result, &view)), &result);
    Ok(exit_code(&result, stored).max(printed))
}

/// bonnie++'s tests on DIR/kura-bonnie.dat and DIR/kura-bonnie.d (see bonnie::measure).
pub fn bonnie(ctx: &Ctx, args: BonnieArgs) -> Result<i32> {
    if let Some(code) = crate::cluster::refuse_many_ranks("kura suite bonnie")? {
        return Ok(code);
    }
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Bonnie)?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite bonnie writes only files it creates in DIR");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let chunk = measure::parse_chunk(&args.chunk).map_err(|e| anyhow!("--chunk: {e}"))?;
    let memory = measure::usable_memory_bytes();
    let size = match &args.size {
        Some(text) => measure::parse_file_size(text).map_err(|e| anyhow!("--size: {e}"))?,
        None => measure::default_size(memory),
    };
    let files = measure::parse_files(&args.files).map_err(|e| anyhow!("--files: {e}"))?;
    if size == 0 && files == 0 {
        bail!("--size 0 and --files 0 leave no test to run");
    }
    let mut cfg = measure::Config::new(dir, size, chunk, files);
    if let Some(text) = &args.char_size {
        let bytes = measure::parse_char_size(text).map_err(|e| anyhow!("--char-size: {e}"))?;
        cfg.char_bytes = bytes.min(size);
    }
    cfg.runs = runs;
    cfg.label = opts.label.clone();
    measure::check_target(&cfg).map_err(|e| anyhow!(e))?;
    let cache = measure::cache_warning(size, memory).map(|_| crate::metrics::Warning::BonnieFileCached {
        size_mb: size >> 20,
        memory_mb: memory >> 20,
    });
    if let Some(w) = &cache
        && !ctx.quiet
    {
        eprint!(
            "{}",
            crate::report::width::wrap(
                &format!("kura: {}", crate::t!("warning-prefix")),
                &w.to_string(),
                2
            )
        );
    }
    let jobs = |header: &RunResult| -> Vec<runner::SuiteJob> {
        measure::jobs(&cfg, measure::seed_of(header.started_unix_s))
            .into_iter()
            .map(|job| runner::SuiteJob {
                test: job.workload.bonnie().map(|p| p.test.clone()),
                job,
            })
            .collect()
    };
    let (result, stored) = super::measure_suite(ctx, &opts, jobs, |result| {
        result.warnings.splice(0..0, cache);
        let disagree = bonnie_table::disagreement_warnings(result);
        result.warnings.extend(disagree);
    })?;
    let printed = super::printed(
        super::print_run(&render_run(
            &result,
            &View {
                json: ctx.json,
                bonnie_csv: args.csv,
                ..View::default()
            },
        )),
        &result,
    );
    Ok(exit_code(&result, stored).max(printed))
}

/// A positive whole number for a db flag, at most `max`.
fn count_flag(flag: &str, text: &str, max: u64) -> Result<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| anyhow!("--{flag}: '{text}' is not valid: must be between 1 and {max}"))
}

/// `--tests`: names from the list, or `all`.
fn db_tests(text: &str) -> Result<Vec<Test>> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Test::ALL.to_vec());
    }
    let mut tests = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let test = Test::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Test::ALL.iter().map(|t| t.name()).collect();
            anyhow!("--tests: '{name}' is not one of {}, all", names.join(", "))
        })?;
        if !tests.contains(&test) {
            tests.push(test);
        }
    }
    if tests.is_empty() {
        bail!("--tests: name at least one test");
    }
    Ok(tests)
}

/// `--server-sync`, checked against the server it is for.
fn server_sync(server: Server, text: Option<&str>) -> Result<Option<String>> {
    let allowed: &[&str] = match server {
        Server::Sqlite => {
            if text.is_some() {
                bail!(
                    "--server-sync is for --server postgres or mariadb; SQLite takes --synchronous and --journal"
                );
            }
            return Ok(None);
        }
        Server::Postgres => &["on", "off", "local", "remote_write", "remote_apply"],
        Server::Mariadb => &["0", "1", "2"],
    };
    let value = text.unwrap_or(allowed[if server == Server::Postgres { 0 } else { 1 }]);
    if !allowed.contains(&value) {
        bail!(
            "--server-sync: '{value}' is not one of {} for {server}",
            allowed.join(", ")
        );
    }
    Ok(Some(value.to_string()))
}

/// sql-bench's tests and sysbench's OLTP mix on a database in DIR/kura-db (see `database`).
pub fn db(ctx: &Ctx, args: DbArgs) -> Result<i32> {
    if let Some(code) = crate::cluster::refuse_many_ranks("kura suite db")? {
        return Ok(code);
    }
    let (runs, opts) = suite_options(&args.suite, ctx.quiet, SuiteKind::Db)?;
    if opts.target.allow_destroy.is_some() {
        bail!("--allow-destroy does not apply: kura suite db writes only files it creates in DIR/kura-db");
    }
    let dir = PathBuf::from(args.dir.as_deref().unwrap_or("."));
    let time = crate::jobs::units::parse_duration(&args.time).map_err(|e| anyhow!("--time: {e}"))?;
    if time.is_zero() {
        bail!("--time: '{}' is not valid: must be longer than 0", args.time);
    }
    let server = Server::parse(&args.server).map_err(|e| anyhow!("--server: {e}"))?;
    let server_sync = server_sync(server, args.server_sync.as_deref())?;
    if server != Server::Sqlite {
        // Before anything is made in DIR: a missing server is one line naming its package.
        database::server::find(server).map_err(|e| anyhow!(e))?;
    }
    let params = DbParams {
        test: String::new(),
        repetition: 0,
        runs,
        server,
        scale_permille: db_params::parse_scale(&args.scale).map_err(|e| anyhow!("--scale: {e}"))?,
        synchronous: Synchronous::parse(&args.synchronous).map_err(|e| anyhow!("--synchronous: {e}"))?,
        journal: Journal::parse(&args.journal).map_err(|e| anyhow!("--journal: {e}"))?,
        oltp_tables: count_flag("tables", &args.tables, 1000)? as u32,
        oltp_table_size: count_flag("table-size", &args.table_size, 1_000_000_000)?,
        oltp_threads: count_flag("threads", &args.threads, 1024)? as u32,
        oltp_time_ms: time.as_millis() as u64,
        seed: 0,
        server_sync,
    };
    let mut cfg = database::Config {
        dir,
        tests: db_tests(&args.tests)?,
        params,
        label: opts.label.clone(),
    };
    let mem_limit = match args.mem_limit.as_deref() {
        None => None,
        Some(text) => {
            let bytes = crate::jobs::units::parse_size(text).map_err(|e| anyhow!("--mem-limit: {e}"))?;
            if bytes < 16 << 20 {
                bail!("--mem-limit: '{text}' is not valid: must be at least 16M");
            }
            Some(bytes)
        }
    };
    database::check_target(&cfg).map_err(|e| anyhow!(e))?;
    let jobs = |header: &RunResult| -> Vec<runner::SuiteJob> {
        cfg.params.seed = header.started_unix_s as u64;
        database::jobs(&cfg)
            .into_iter()
            .map(|mut job| {
                job.mem_limit_bytes = mem_limit;
                job
            })
            .map(|job| runner::SuiteJob {
                test: job.workload.database().map(|p| p.test.clone()),
                job,
            })
            .collect()
    };
    let (result, stored) = super::measure_suite(ctx, &opts, jobs, |_| {})?;
    let printed = super::printed(
        super::print_run(&render_run(
            &result,
            &View {
                json: ctx.json,
                ..View::default()
            },
        )),
        &result,
    );
    Ok(exit_code(&result, stored).max(printed))
}
