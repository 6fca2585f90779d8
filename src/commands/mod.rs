//! One file per verb: each turns its arguments into library calls.

pub mod cluster;
pub mod compare;
pub mod completions;
pub mod explain;
pub mod history;
pub mod import;
pub mod interleave;
pub mod io500;
pub mod label;
pub mod launch;
pub mod mark;
pub mod pts;
pub mod report;
pub mod run;
pub mod run_file;
pub mod serve;
pub mod show;
pub mod sigbus;
pub mod suite;
pub mod sweep;
pub mod target_arg;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

use crate::cli::{Cli, Command, RunCommon, SuiteCommand, SuiteCommon};
use crate::jobs::price::Price;
use crate::jobs::suites::{SuiteKind, SuiteTest};
use crate::metrics::RunResult;
use crate::report::export::Format;
use crate::runner::{RunOptions, StopFlag, SuiteJob};
use crate::store::{self, Recorder, Store};
use crate::targets::TargetOptions;

/// What every verb shares: where the database is and how to print.
pub struct Ctx {
    pub db: Option<PathBuf>,
    pub json: bool,
    pub quiet: bool,
}

impl Ctx {
    /// The database path: `--db`, or the default one. Where there is no
    /// default (no absolute HOME) the empty path, which names no file: the
    /// verbs that open the database refuse first (`checked_db_path`).
    pub fn db_path(&self) -> PathBuf {
        self.checked_db_path().unwrap_or_default()
    }

    /// `--db`, or the default database; an error when there is none.
    pub fn checked_db_path(&self) -> Result<PathBuf, store::StoreError> {
        match &self.db {
            Some(p) => Ok(p.clone()),
            None => store::default_path(),
        }
    }

    /// The database for a verb that stores: created when new, migrated when old.
    pub fn store(&self) -> Result<Store> {
        let path = self.checked_db_path()?;
        crate::targets::protected::protect_database(&path);
        Ok(Store::open(&path, self.db.is_none())?)
    }

    /// The database for a verb that changes runs already stored (`label`):
    /// written, never created (a typo in `--db` is said, not made a file).
    pub fn existing_store(&self) -> Result<Store> {
        let path = self.checked_db_path()?;
        if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            return Err(store::StoreError::Missing {
                path: path.display().to_string(),
            }
            .into());
        }
        self.store()
    }

    /// The database for a verb that only reads it: never created, migrated or written.
    pub fn read_store(&self) -> Result<Store> {
        Ok(Store::open_read_only(&self.checked_db_path()?)?)
    }

    /// `read_store` for `kura serve`, which shows runs stored while it serves.
    pub fn following_store(&self) -> Result<Store> {
        Ok(Store::open_following(&self.checked_db_path()?)?)
    }
}

/// What a run stores before it is measured: who, where, when; jobs follow as they finish.
pub fn run_header(opts: &RunOptions) -> RunResult {
    RunResult {
        id: None,
        kura_version: env!("CARGO_PKG_VERSION").to_string(),
        started_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0),
        label: opts.label.clone(),
        price: opts.price.clone(),
        suite: opts.suite.clone(),
        hosts: Vec::new(),
        interleaved_with: Vec::new(),
        host: crate::targets::host_facts(),
        jobs: Vec::new(),
        incomplete: true,
        warnings: Vec::new(),
    }
}

/// What every suite verb does once its options are read, in this order:
/// its jobs made (`jobs`, from the run's header: some draw their seed from
/// its start), the one check before the database and the first I/O, the
/// run's row, the run measured and stored as it goes (kept ready as JSON for
/// a SIGBUS), `amend` (the suite's own verdicts on the whole run), and the
/// run kept: stored, or saved as JSON. Returns the run and whether it is stored.
pub fn measure_suite(
    ctx: &Ctx,
    opts: &RunOptions,
    jobs: impl FnOnce(&RunResult) -> Vec<SuiteJob>,
    amend: impl FnOnce(&mut RunResult),
) -> Result<(RunResult, bool)> {
    let jobs = jobs(&run_header(opts));
    crate::runner::check_before_io(&jobs, opts)?;
    let stop = stop_flag()?;
    let mut store = ctx.store()?;
    // Stamped now, next to the start `run_suite` gives the result: a run
    // saved as JSON finds this row again by that start (`import run`).
    let header = run_header(opts);
    let mut rec = store.begin_run(&header)?;
    let mut result = crate::runner::run_suite(
        &jobs,
        opts,
        &stop,
        &mut sigbus::Guarded::new(ctx, &mut rec, header),
    )?;
    amend(&mut result);
    let stored = keep_run(ctx, &mut rec, &mut result, &stop);
    Ok((result, stored))
}

/// Stores the end of a measured run. When that fails the run is not lost:
/// it is written as JSON beside the database (or here, or in the temporary
/// directory) and the user is told where and how to import it. Returns
/// whether the run is in the database.
pub fn keep_run(ctx: &Ctx, rec: &mut Recorder<'_>, result: &mut RunResult, stop: &StopFlag) -> bool {
    // The run is over: from here a Ctrl-C only ends a wait for a lock.
    stop.store(false, Ordering::Relaxed);
    sigbus::keep_ready(&ctx.db_path(), ctx.db.as_deref(), result);
    let finished = rec.finish(result);
    // Stored, or about to be saved below the usual way.
    sigbus::forget();
    let error = match finished {
        Ok(_) => return true,
        Err(e) => e,
    };
    say(&format!("kura: error: the run could not be stored: {error}"));
    let json = crate::report::to_json(&*result);
    match save_beside(&ctx.db_path(), result, &json) {
        Ok(file) => say(&format!(
            "kura: the result is saved in {}; {}",
            file.display(),
            import_hint(ctx.db.as_deref(), &file)
        )),
        Err(why) => {
            // Nowhere to write: stdout still carries the result (printed next).
            say(&format!(
                "kura: error: the result could not be saved as a file either ({why}); keep what is printed"
            ));
        }
    }
    false
}

/// A measured run's report on stdout. Unlike `report::emit` (for reading
/// verbs, where `kura history | head` closing the pipe is no error), a
/// closed pipe is reported: the run was measured and the user must learn
/// where it is (`printed`).
pub fn print_run(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|_| out.flush())
}

/// A measured run's report on stdout in the verb's plain view (its tables,
/// or JSON with --json), and the verb's exit code.
pub fn print_measured(ctx: &Ctx, result: &RunResult, stored: bool) -> i32 {
    let view = crate::report::View {
        json: ctx.json,
        ..crate::report::View::default()
    };
    let shown = printed(print_run(&crate::report::render_run(result, &view)), result);
    exit_code(result, stored).max(shown)
}

/// After a measured run: what printing its report to stdout gave. When
/// stdout fails (a full disk, a file that cannot grow) the run is already
/// stored, or saved as JSON and said so: kura tells where it is and exits 1,
/// not 2 as if nothing had run, and what follows (fio's logs) still happens.
pub fn printed(outcome: std::io::Result<()>, result: &RunResult) -> i32 {
    let Err(e) = outcome else {
        return 0;
    };
    let kept = match result.id {
        Some(id) => format!("the run is stored: `kura show {id}` prints it"),
        None => "the run is not in the database: see the message above for where it was saved".into(),
    };
    say(&format!(
        "kura: error: the result could not be printed on stdout: {}; {kept}",
        store::io_text(&e)
    ));
    1
}

/// One line on stderr that cannot panic: after SIGHUP the terminal may be
/// gone, and eprintln! panics when stderr fails (exit 101 instead of 1).
fn say(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// How to store a saved run later: `store it later with: kura --db DB import run FILE`.
pub(crate) fn import_hint(given_db: Option<&Path>, file: &Path) -> String {
    let db = match given_db {
        Some(p) => format!(
            " --db {}",
            crate::report::escape::shell_word(&p.display().to_string())
        ),
        None => String::new(),
    };
    format!(
        "store it later with: kura{db} import run {}",
        crate::report::escape::shell_word(&file.display().to_string())
    )
}

/// The file a run that could not be stored is saved in: its start and
/// kura's pid, so two runs never share one.
pub(crate) fn unsaved_run_name(result: &RunResult) -> String {
    format!(
        "kura-unsaved-run-{}-{}.json",
        result.started_unix_s,
        std::process::id()
    )
}

/// The directory holding the database, where an unsaved run goes first.
pub(crate) fn beside_db(db: &Path) -> PathBuf {
    db.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Writes a run's JSON into a new file beside the database, else in the
/// current directory, else in the temporary directory. A file it made and
/// could not fill (a full disk) is removed before the next place is tried:
/// a 0-byte file must not pass for a saved run, nor make the next try at the
/// same directory fail with "File exists". The error names every place
/// tried, with why each failed.
fn save_beside(db: &Path, result: &RunResult, json: &str) -> Result<PathBuf, String> {
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    let name = unsaved_run_name(result);
    let mut tried: Vec<PathBuf> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for dir in [beside_db(db), PathBuf::from("."), std::env::temp_dir()] {
        // The database's directory is often the current one, or the temporary one.
        let same_dir = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if tried.contains(&same_dir) {
            continue;
        }
        tried.push(same_dir);
        let path = dir.join(&name);
        let created = crate::targets::own::create_new(&path, 0o644);
        let written = created.and_then(|mut f| {
            let filled = f.write_all(json.as_bytes()).and_then(|()| f.sync_all());
            if filled.is_err() {
                // Removed only while the name still leads to the file made here.
                let made = f.metadata().map(|m| (m.dev(), m.ino())).ok();
                let here = std::fs::symlink_metadata(&path).map(|m| (m.dev(), m.ino())).ok();
                if made.is_some() && made == here {
                    let _ = std::fs::remove_file(&path);
                }
            }
            filled
        });
        match written {
            Ok(()) => return Ok(path.canonicalize().unwrap_or(path)),
            Err(e) => failures.push(format!("{}: {}", path.display(), store::io_text(&e))),
        }
    }
    Err(failures.join("; "))
}

/// Writes `bytes` as the output file `path` (a report, a log), after
/// `create_output_with`'s checks, and makes it durable: a write that fails
/// (a full disk) removes the partial file when kura created it, and the
/// error says what was left. A replaced file is said even with --quiet.
pub(crate) fn write_output(
    path: &Path,
    db: &Path,
    targets: &[PathBuf],
    destroy: crate::targets::output::Destroy,
    bytes: &[u8],
) -> Result<(), String> {
    use crate::targets::output::{Replace, create_output_with};
    let mut out =
        create_output_with(path, Some(db), Replace::Any, targets, destroy).map_err(|e| e.to_string())?;
    if out.replaced {
        eprintln!(
            "{}",
            crate::t!(
                "output-replacing",
                path = crate::report::escape::term(&path.display().to_string()).into_owned()
            )
        );
    }
    // sync_all: a file system that allocates late says ENOSPC only then.
    let written = std::io::Write::write_all(&mut out.file, bytes).and_then(|()| out.file.sync_all());
    written.map_err(|e| {
        let why = format!("{}: {}", path.display(), store::io_text(&e));
        if out.discard(path) {
            format!("{why}; the partial file was removed")
        } else if std::fs::symlink_metadata(path).is_ok() {
            format!("{why}; the file there is partial")
        } else {
            why
        }
    })
}

/// The exit code of a verb that measured: 1 when the numbers are partial,
/// include failed I/O, or the run is not in the database; else 0.
pub fn exit_code(result: &RunResult, stored: bool) -> i32 {
    let failed_io = result
        .jobs
        .iter()
        .any(|j| j.directions().any(|(_, d)| d.errors > 0));
    // Data read back that is not what was written fails the run like an I/O error.
    let bad_data = result.warnings.iter().any(|w| {
        matches!(
            w,
            crate::metrics::Warning::VerifyFailed { .. }
                | crate::metrics::Warning::BelowMinRate { .. }
                // A verify that checked nothing proved nothing: not a pass.
                | crate::metrics::Warning::VerifyCheckedNothing { .. }
        )
    });
    if result.incomplete || failed_io || bad_data || !stored {
        1
    } else {
        0
    }
}

/// Ctrl-C, SIGTERM and SIGHUP (the terminal or SSH session went away) set
/// the flag instead of killing kura, so a run can stop, store what it
/// measured and remove its test files. Every measuring verb starts here, so
/// this is also where what a killed kura left is found (`memcg`).
pub fn stop_flag() -> Result<StopFlag> {
    crate::runner::memcg::remove_leftovers();
    signal_flag()
}

/// Whether `signal` is ignored, as `nohup` leaves SIGHUP.
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: sigaction is plain C data; all-zero bytes are a valid value.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a null new action only reads the current one into `old`, which lives for the call.
    let read = unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) } == 0;
    read && old.sa_sigaction == libc::SIG_IGN
}

/// The signals of `stop_flag`, for a verb that measures nothing (`serve`).
pub fn signal_flag() -> Result<StopFlag> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        // `nohup kura run ...` asked for the run to outlive the terminal.
        if signal == signal_hook::consts::SIGHUP && ignored(signal) {
            continue;
        }
        signal_hook::flag::register(signal, stop.clone()).context("installing the Ctrl-C handler")?;
    }
    store::watch_interrupt(stop.clone());
    Ok(stop)
}

pub fn run_options(common: &RunCommon, quiet: bool) -> RunOptions {
    RunOptions {
        target: TargetOptions {
            allow_destroy: common.allow_destroy.clone(),
            ..TargetOptions::default()
        },
        keep: common.keep,
        quiet,
        // More than one only with several targets (`interleave::labels`); refused elsewhere (`dispatch`).
        label: common.label.first().cloned(),
        price: common.price.clone(),
        ..RunOptions::default()
    }
}

/// `--runs`: how often each test of a suite runs.
pub fn parse_runs(text: &str) -> Result<u32> {
    text.parse()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| anyhow::anyhow!("--runs: '{text}' is not valid: must be between 1 and 1000"))
}

/// Run options of a suite, and its repetitions.
pub fn suite_options(suite: &SuiteCommon, quiet: bool, kind: SuiteKind) -> Result<(u32, RunOptions)> {
    let runs = parse_runs(&suite.runs)?;
    let mut opts = run_options(&suite.common, quiet);
    opts.pause = crate::jobs::units::parse_duration(&suite.interval)
        .map_err(|e| anyhow::anyhow!("--interval: {e}"))?;
    opts.suite = Some(kind);
    Ok((runs, opts))
}

/// A suite's tests as the runner takes them.
pub fn suite_jobs(tests: Vec<SuiteTest>) -> Vec<SuiteJob> {
    tests
        .into_iter()
        .map(|t| SuiteJob {
            test: Some(t.test.to_string()),
            job: t.job,
            rounds: None,
        })
        .collect()
}

/// `--format`, with `--json` meaning `--format json`; the two must not disagree.
pub fn output_format(ctx: &Ctx, format: Option<Format>) -> Result<Format> {
    let format = match (ctx.json, format) {
        (true, Some(f)) if f != Format::Json => {
            anyhow::bail!("--json and --format {} disagree: give one of them", f.name())
        }
        (true, _) => Ok(Format::Json),
        (false, f) => Ok(f.unwrap_or(Format::Table)),
    };
    // JSON and CSV are for programs: their text stays English whatever the language.
    if matches!(format, Ok(Format::Json | Format::Csv)) {
        crate::i18n::set_lang(crate::i18n::Lang::En);
    }
    format
}

/// The `--price` a verb was given, if any.
fn given_price(command: &Command) -> Option<&str> {
    match command {
        Command::Run(a) => a.common.price.as_deref(),
        Command::Mark(a) => a.common.price.as_deref(),
        Command::Sweep(a) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Tiobench(a)) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Bonnie(a)) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Db(a)) => a.suite.common.price.as_deref(),
        Command::Suite(SuiteCommand::Io500(a)) => a.common.price.as_deref(),
        Command::Suite(SuiteCommand::Pts(a)) => a.suite.common.price.as_deref(),
        Command::Label(a) => a.price.as_deref(),
        Command::Import(a) => match &a.source {
            crate::cli::ImportSource::Fio(f) | crate::cli::ImportSource::Run(f) => f.price.as_deref(),
        },
        _ => None,
    }
}

/// The `--label`s a verb was given, and whether it measures several targets.
fn given_labels(command: &Command) -> (&[String], bool) {
    match command {
        Command::Run(a) => (&a.common.label, false),
        Command::Mark(a) => (&a.common.label, a.targets.len() > 1),
        Command::Sweep(a) => (&a.suite.common.label, a.targets.len() > 1),
        Command::Suite(SuiteCommand::Tiobench(a)) => (&a.suite.common.label, false),
        Command::Suite(SuiteCommand::Bonnie(a)) => (&a.suite.common.label, false),
        Command::Suite(SuiteCommand::Db(a)) => (&a.suite.common.label, false),
        Command::Suite(SuiteCommand::Io500(a)) => (&a.common.label, false),
        Command::Suite(SuiteCommand::Pts(a)) => (&a.suite.common.label, false),
        _ => (&[], false),
    }
}

/// Runs the verb; the returned code is the process's exit code.
pub fn dispatch(cli: Cli) -> Result<i32> {
    // Checked before anything runs or is stored, so a typo costs no benchmark time.
    if let Some(price) = given_price(&cli.command) {
        Price::parse(price).map_err(|e| anyhow::anyhow!("--price: {e}"))?;
    }
    // One run, one label; `mark A B` and `sweep A B` read theirs per target.
    if let (labels, false) = given_labels(&cli.command)
        && labels.len() > 1
    {
        anyhow::bail!(
            "--label: given {} times; one run takes one label (`kura mark A B` takes one per target: --label A=LABEL)",
            labels.len()
        );
    }
    crate::report::width::set_wide(cli.wide);
    // JSON is for programs: its text stays English whatever the language.
    crate::i18n::set_lang(match (cli.json, cli.lang) {
        (true, _) => crate::i18n::Lang::En,
        (false, Some(lang)) => lang,
        (false, None) => crate::i18n::from_env(),
    });
    let ctx = Ctx {
        db: cli.db,
        json: cli.json,
        quiet: cli.quiet,
    };
    // Named before any check runs: a job that would write over the database is
    // refused as that, before the database is opened or any other probe speaks.
    if let Ok(path) = ctx.checked_db_path() {
        crate::targets::protected::protect_database(&path);
    }
    match cli.command {
        Command::Run(args) => run::run(&ctx, *args),
        Command::Explain(args) => explain::run(&ctx, args),
        Command::Mark(args) => mark::run(&ctx, args),
        Command::Sweep(args) => sweep::run(&ctx, args),
        Command::Suite(SuiteCommand::Tiobench(args)) => suite::tiobench(&ctx, args),
        Command::Suite(SuiteCommand::Bonnie(args)) => suite::bonnie(&ctx, args),
        Command::Suite(SuiteCommand::Db(args)) => suite::db(&ctx, args),
        Command::Suite(SuiteCommand::Io500(args)) => io500::run(&ctx, args),
        Command::Suite(SuiteCommand::Pts(args)) => pts::run(&ctx, args),
        Command::History(args) => history::run(&ctx, args),
        Command::Show(args) => show::run(&ctx, args),
        Command::Label(args) => label::run(&ctx, args),
        Command::Compare(args) => compare::run(&ctx, args),
        Command::Import(args) => import::run(&ctx, args),
        Command::Report(args) => report::run(&ctx, args),
        Command::Serve(args) => serve::run(&ctx, args),
        Command::Completions(args) => completions::completions(&ctx, args),
        Command::Man(args) => completions::man(&ctx, args),
        Command::Launch(args) => launch::run(&ctx, args),
    }
}
