//! The command line: clap definitions, the one source of `--help`.

use std::marker::PhantomData;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, Args, Parser, Subcommand};

use crate::jobs::options::{Flag, Group, OPTIONS, Opt, OptionDef, Type, Value};
use crate::jobs::{Job, SpecError};

use crate::report::compare::{By, Figure, Metric};
use crate::report::export::Format;

#[derive(Debug, Parser)]
#[command(
    name = "kura",
    version,
    about = "Storage benchmarks with honest numbers: run, store, compare."
)]
pub struct Cli {
    /// SQLite database of runs [default: $XDG_DATA_HOME/kura/kura.db]
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Print only JSON on stdout (bytes, nanoseconds, operations; see docs/json.md)
    #[arg(long, global = true)]
    pub json: bool,
    /// No progress display on stderr
    #[arg(long, short, global = true)]
    pub quiet: bool,
    // 80 columns
    /// Tables at their natural width with every column, instead of fitted into 80 columns
    #[arg(long, global = true)]
    pub wide: bool,
    #[command(subcommand)]
    pub command: Command,
    // Japanese
    /// Language of tables, warnings and reports: en or ja [default: ja when LC_ALL, LC_MESSAGES or LANG is ja_*, else en]; JSON stays English
    #[arg(long, global = true, value_enum, value_name = "LANG")]
    pub lang: Option<crate::i18n::Lang>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one workload from flags, or the jobs of a job file (kura TOML, fio or vdbench)
    Run(Box<RunArgs>),
    /// Print the jobs a job file translates to, without running them
    Explain(ExplainArgs),
    /// CrystalDiskMark: the standard read/write grid on a test file or device
    Mark(MarkArgs),
    /// Block size x read/write mix: IOPS and MiB/s per block size, one table per mix
    Sweep(SweepArgs),
    /// Suites with their own tables: tiobench, bonnie, db, io500, pts (SNIA PTS)
    #[command(subcommand)]
    Suite(SuiteCommand),
    /// List stored runs, newest first
    History(HistoryArgs),
    /// Print a stored run as `run` printed it
    Show(ShowArgs),
    /// Set the label or price of a stored run
    Label(LabelArgs),
    /// Stored runs side by side: ratios to a baseline, noise, prices and guidance
    Compare(CompareArgs),
    /// Store another tool's result as a run (fio --output-format=json)
    Import(ImportArgs),
    /// Write one self-contained HTML file with charts of stored runs
    Report(ReportArgs),
    /// Browse stored runs in a local web UI (read-only, 127.0.0.1)
    Serve(ServeArgs),
    // fio's ecosystem: shell completions and the man page, from these definitions.
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell
    Completions(CompletionsArgs),
    /// Print the man page (roff): kura's, or one verb's (`kura man run | man -l -`)
    Man(ManArgs),
    // Many ranks (docs/cluster.md).
    /// Start kura on many ranks with mpirun (`kura launch -n 4 --hostfile hosts -- run job.toml`); MPI's errors in one line
    Launch(LaunchArgs),
}

/// `kura launch`: mpirun with kura as every rank (docs/cluster.md).
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Ranks to start
    #[arg(short = 'n', long = "ranks", value_name = "N")]
    pub ranks: u32,
    /// mpirun's hostfile: the hosts and their slots
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// One more argument for mpirun, e.g. --mpirun-arg=--oversubscribe (repeatable)
    #[arg(long = "mpirun-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub mpirun_args: Vec<String>,
    /// The kura command every rank runs, after `--` (run job.toml, mark /mnt/nas, sweep ...)
    #[arg(last = true, required = true, value_name = "KURA ARGS")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell, e.g. `kura completions bash > /etc/bash_completion.d/kura`
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A verb (`run`, `suite tiobench`): its own page; without one, kura's page listing every verb
    #[arg(value_name = "VERB")]
    pub verb: Vec<String>,
}

/// Job keys as flags, made from the table of options (src/jobs/options.rs):
/// each is the TOML key of the same name (`--read-pct` = `read_pct`), its
/// help and default come from there, grouped under headings. fio's names
/// of an option (`--iodepth` for `--qd`) are flags of it too, read in
/// fio's value forms (jobs/fio_file/flags.rs); fio's options that change
/// nothing kura measures are taken without effect.
#[derive(Debug, Clone, Default)]
pub struct JobFlags {
    given: Vec<Given>,
    notes: Vec<String>,
    /// `--numjobs` without a file: a flag job's note only, as a job file
    /// names its own files (and its reader notes fio's clones' files).
    clones_note: Option<String>,
    /// `--directory` without `--filename`: the file's name is derived
    /// (`DIR/NAME.0.0`), a name kura picks, never followed through a link.
    own_name: bool,
}

/// One flag given: the job key and kura's text of its value, and the flag
/// and text as the user typed them, for errors (`--iodepth`, not `--qd`).
#[derive(Debug, Clone)]
struct Given {
    key: &'static str,
    value: String,
    flag: String,
    typed: String,
}

impl JobFlags {
    /// The flags the user gave, as (job key, value), in the table's order.
    pub fn given(&self) -> Vec<(&'static str, String)> {
        self.given.iter().map(|g| (g.key, g.value.clone())).collect()
    }

    /// Sets every flag given in `job`; what the job refuses is named by
    /// the flag and value the user typed.
    pub fn apply(&self, job: &mut Job) -> Result<(), String> {
        for g in &self.given {
            job.set(g.key, &g.value).map_err(|e| match e {
                SpecError::Invalid { why, .. } => format!("{}: '{}' is not valid: {why}", g.flag, g.typed),
                SpecError::Unit { source, .. } => format!("{}: {source}", g.flag),
                other => format!("{}: {other}", g.flag),
            })?;
        }
        job.own_name |= self.own_name;
        Ok(())
    }

    /// What a fio flag given means in kura, where it differs from fio.
    pub fn notes(&self) -> Vec<String> {
        self.notes.iter().chain(&self.clones_note).cloned().collect()
    }

    /// The notes of flags given with a job file: what they mean there.
    pub fn file_notes(&self) -> &[String] {
        &self.notes
    }
}

/// Leaked once per process for clap, which wants 'static names.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The option a definition is, for fio's readers that take an `Opt`.
fn opt_of(d: &'static OptionDef) -> Opt {
    Opt::ALL
        .iter()
        .copied()
        .find(|o| o.def().key == d.key)
        .unwrap_or(Opt::Name)
}

/// fio's names of `d` that are flags of their own: not already its key,
/// flag or an alias (`iodepth` for `qd`; not `rw`, which is both).
fn fio_flag_names(d: &'static OptionDef) -> impl Iterator<Item = &'static str> {
    let long = d.long();
    d.fio
        .iter()
        .copied()
        .filter(move |n| *n != d.key && *n != long && !d.aliases.contains(n))
}

/// Whether one of fio's names of `d` is its own flag (`--bs`, `--size`).
fn fio_shares_name(d: &'static OptionDef) -> bool {
    let long = d.long();
    d.fio.iter().any(|n| *n == d.key || *n == long)
}

/// kura's text of a value given under a name both tools use, on a command
/// line of fio's flags: fio's reading where it has one (`4kb` is 4096, as
/// fio 3.33's parse.c reads it with kb_base=1024), noted where kura alone
/// reads it otherwise (kura's `4kb` is 4000); else `value`, kura's reading.
fn fio_reading(
    d: &'static OptionDef,
    flag: &str,
    typed: &str,
    value: &str,
    notes: &mut Vec<String>,
) -> String {
    let Ok(fio) = crate::jobs::fio_file::flags::flag_text(opt_of(d), typed) else {
        return value.to_string();
    };
    if let (Ok(ours), Ok(theirs)) = (d.parse(typed), d.parse(&fio))
        && ours != theirs
    {
        notes.push(format!(
            "{flag}={typed}: {theirs} as fio reads it, among fio's flags (kura's own {typed} is {ours})"
        ));
    }
    fio
}

/// fio's options a flag job takes that the table has no option for: the
/// job-file reader's options without effect and with a note, `time_based`.
fn fio_extra_names() -> impl Iterator<Item = &'static str> {
    // Names kura's own flags of `run` have already.
    const KURA: &[&str] = &[
        "keep",
        "label",
        "price",
        "shared",
        "stonewall",
        "format",
        "lenient",
    ];
    crate::jobs::fio_file::flags::extra_names()
        .filter(|n| crate::jobs::options::find(n).is_none() && !OPTIONS.iter().any(|d| d.long() == *n))
        .filter(|n| !KURA.contains(n))
}

fn job_arg(d: &'static OptionDef) -> Option<Arg> {
    if !d.flag.of_run() {
        return None;
    }
    let long = leak(d.long());
    let fio: Vec<String> = fio_flag_names(d).map(|n| format!("--{n}")).collect();
    let help = match fio.is_empty() {
        true => d.help.to_string(),
        false => format!("{} [fio: {}]", d.help, fio.join(", ")),
    };
    let mut arg =
        option_arg(d, d.key, long, &help, d.default_text(), d.value_name()).help_heading(d.group.heading());
    if d.flag == Flag::Switch {
        // fio's `--direct=1`: a switch takes 0/1 (or true/false) after `=`.
        arg = arg
            .action(ArgAction::Set)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_name("0|1");
    }
    // A name both kura's and fio's (`--runtime`, `--verify`) reads fio's
    // value forms where kura's own do not read it (`--verify=crc32c`).
    if d.fio.iter().any(|n| *n == d.key || *n == long) {
        let opt = opt_of(d);
        arg = arg.value_parser(move |s: &str| -> Result<String, String> {
            Ok(match d.parse(s) {
                Ok(_) => s.to_string(),
                Err(_) => crate::jobs::fio_file::flags::flag_text(opt, s).unwrap_or_else(|_| s.to_string()),
            })
        });
    }
    if long != d.key && !key_is_fios(d) {
        arg = arg.alias(d.key);
    }
    for alias in d.aliases {
        arg = arg.alias(*alias);
    }
    if let Some(other) = d.conflicts {
        arg = arg.conflicts_with(other);
    }
    Some(arg)
}

/// Whether `d`'s key, spelled with `_` (`--rate_iops`), is fio's name of
/// it too: a flag of its own, so an error names the spelling typed.
fn key_is_fios(d: &'static OptionDef) -> bool {
    d.long() != d.key && d.fio.contains(&d.key)
}

/// The id of the flag of `d`'s key spelled with `_`, where `key_is_fios`.
fn key_id(d: &'static OptionDef) -> &'static str {
    leak(format!("key:{}", d.key))
}

/// `d`'s key as a flag (`--io_size`): kura's flag under fio's spelling,
/// hidden, read as kura's flag is.
fn key_arg(d: &'static OptionDef) -> Option<Arg> {
    let arg = job_arg(d)?
        .id(key_id(d))
        .long(d.key)
        .alias(None)
        .hide(true)
        .conflicts_with(d.key);
    Some(arg)
}

/// The flag of one of fio's names of `d`: hidden (its option's help names
/// it), read in fio's value forms, and not given with the option's own.
fn fio_arg(d: &'static OptionDef, name: &'static str) -> Arg {
    let opt = opt_of(d);
    let others: Vec<&'static str> = fio_flag_names(d)
        .filter(|n| *n != name)
        .map(|n| leak(format!("fio:{n}")))
        .chain([d.key])
        .chain(key_is_fios(d).then(|| key_id(d)))
        .collect();
    let arg = Arg::new(leak(format!("fio:{name}")))
        .long(name)
        .hide(true)
        .conflicts_with_all(others)
        .value_parser(move |s: &str| crate::jobs::fio_file::flags::flag_text(opt, s));
    match d.ty {
        // fio's switches: bare, or 0/1 after `=`.
        Type::Bool => arg
            .action(ArgAction::Set)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("1"),
        _ => arg.action(ArgAction::Set).value_name(d.value_name()),
    }
}

/// fio's `--directory`, `--rwmixwrite` and the options without effect.
fn fio_other_args() -> impl Iterator<Item = Arg> {
    let directory = Arg::new("fio:directory")
        .long("directory")
        .hide(true)
        .action(ArgAction::Set)
        .value_name("DIR");
    let rwmixwrite = Arg::new("fio:rwmixwrite")
        .long("rwmixwrite")
        .hide(true)
        .action(ArgAction::Set)
        .value_name("PCT")
        .conflicts_with_all(["read_pct", "fio:rwmixread"])
        .value_parser(|s: &str| -> Result<String, String> {
            match s.trim().parse::<u8>() {
                Ok(w) if w <= 100 => Ok((100 - w).to_string()),
                _ => Err(format!("'{s}' is not a percentage 0-100")),
            }
        });
    let extras = fio_extra_names().map(|name| {
        Arg::new(leak(format!("fio:{name}")))
            .long(name)
            .hide(true)
            .action(ArgAction::Set)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("1")
    });
    [directory, rwmixwrite].into_iter().chain(extras)
}

/// The flag of a table option as `--long`: its action, value name, choices,
/// default and the hyphen rule of its type, with `help` as its first words.
fn option_arg(
    d: &'static OptionDef,
    id: &'static str,
    long: &'static str,
    help: &str,
    default: Option<String>,
    value_name: &'static str,
) -> Arg {
    let mut help = help.to_string();
    let mut arg = Arg::new(id).long(long);
    if d.flag == Flag::Switch {
        arg = arg.action(ArgAction::SetTrue);
        if default.as_deref() == Some("true") {
            help.push_str(" (the default)");
        }
        return arg.help(help);
    }
    arg = arg.action(ArgAction::Set).value_name(value_name);
    if matches!(d.ty, Type::Rw | Type::Distribution | Type::Fill | Type::Choice(_)) {
        let choices = d.values_text().replace('`', "").replace(' ', ", ");
        help.push_str(&format!(": {choices}"));
    }
    // A negative latency limit reaches its parser and gets its own message.
    if matches!(d.ty, Type::Latency) {
        arg = arg.allow_hyphen_values(true);
    }
    if let Some(default) = default {
        help.push_str(&format!(" [default: {default}]"));
    }
    arg.help(help)
}

impl clap::FromArgMatches for JobFlags {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        let mut notes = Vec::new();
        let mut own_name = false;
        let fio = |name: &str| m.get_one::<String>(&format!("fio:{name}")).cloned();
        let raw = |id: &str| {
            m.get_raw(id)
                .and_then(|mut v| v.next())
                .map(|s| s.to_string_lossy().into_owned())
        };
        // A command line with one of fio's own names is fio's: the names
        // both tools use (`--bs`, `--size`) then read fio's units too.
        let fio_line = m.ids().any(|id| {
            id.as_str().starts_with("fio:") && m.value_source(id.as_str()) == Some(ValueSource::CommandLine)
        });
        for d in OPTIONS {
            if !d.flag.of_run() {
                continue;
            }
            let (id, flag) =
                match key_is_fios(d) && m.value_source(key_id(d)) == Some(ValueSource::CommandLine) {
                    true => (key_id(d), d.key.to_string()),
                    false => (d.key, d.long()),
                };
            if let Some(v) = m.get_one::<String>(id) {
                let typed = raw(id).unwrap_or_else(|| v.clone());
                let flag = format!("--{flag}");
                let value = match fio_line && fio_shares_name(d) {
                    true => fio_reading(d, &flag, &typed, v, &mut notes),
                    false => v.clone(),
                };
                given.push(Given {
                    key: d.key,
                    value,
                    flag,
                    typed,
                });
            }
            for name in fio_flag_names(d) {
                let id = format!("fio:{name}");
                if let Some(v) = fio(name) {
                    given.push(Given {
                        key: d.key,
                        typed: raw(&id).unwrap_or_else(|| v.clone()),
                        value: v,
                        flag: format!("--{name}"),
                    });
                    if name == "fsync" {
                        notes.push("--fsync: kura syncs with fdatasync".to_string());
                    }
                }
            }
        }
        if let Some(pct) = fio("rwmixwrite") {
            given.push(Given {
                key: Opt::ReadPct.def().key,
                typed: raw("fio:rwmixwrite").unwrap_or_default(),
                value: pct,
                flag: "--rwmixwrite".into(),
            });
        }
        // fio's file is directory/filename, or directory/NAME.0.0 without a filename.
        if let Some(dir) = fio("directory") {
            let key = Opt::Target.def().key;
            let file = given.iter().find(|g| g.key == key).map(|g| g.value.clone());
            own_name = file.is_none();
            let name = given.iter().find(|g| g.key == Opt::Name.def().key);
            let file = match (file, name) {
                (Some(f), _) if f.starts_with('/') => f,
                (Some(f), _) => format!("{}/{f}", dir.trim_end_matches('/')),
                (None, Some(n)) => format!("{}/{}.0.0", dir.trim_end_matches('/'), n.value.replace('/', "_")),
                (None, None) => format!("{}/kura-test.dat", dir.trim_end_matches('/')),
            };
            given.retain(|g| g.key != key);
            given.push(Given {
                key,
                typed: file.clone(),
                value: file,
                flag: "--directory".into(),
            });
        }
        let threads = given.iter().find(|g| g.key == Opt::Threads.def().key);
        let clones_note = (fio("numjobs").is_some()
            && threads.is_some_and(|g| g.value != "1")
            && !given.iter().any(|g| g.key == Opt::Target.def().key))
        .then(|| {
            "--numjobs: fio gives each clone a file of its own; kura's threads share one (--file-per-thread gives each its own)"
                .to_string()
        });
        for name in fio_extra_names() {
            if fio(name).is_some()
                && let Some(why) = crate::jobs::fio_file::flags::flag_note(name)
            {
                notes.push(format!("--{name}: accepted; {why}"));
            }
        }
        Ok(JobFlags {
            given,
            notes,
            clones_note,
            own_name,
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for JobFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        // By heading, so clap lists the headings in this order.
        let cmd = Group::ALL
            .iter()
            .flat_map(|g| OPTIONS.iter().filter(move |d| d.group == *g))
            .filter_map(job_arg)
            .fold(cmd, |cmd, arg| cmd.arg(arg));
        let keys = OPTIONS.iter().filter(|d| key_is_fios(d)).filter_map(key_arg);
        let fio = OPTIONS
            .iter()
            .filter(|d| d.flag.of_run())
            .flat_map(|d| fio_flag_names(d).map(move |n| fio_arg(d, n)));
        let fio = keys.chain(fio);
        fio.chain(fio_other_args()).fold(cmd, |cmd, arg| cmd.arg(arg))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// A job option as one suite's flag. The table gives its name, aliases,
/// value name, parser and errors, as for `kura run`; the suite may narrow
/// it (its own line of help, its own default, a comma list of values, the
/// option for some of its jobs under a name of its own), never redefine it.
#[derive(Debug, Clone, Copy)]
pub struct SuiteFlag {
    pub opt: Opt,
    /// The flag's name when the option is for some of the suite's jobs
    /// only (io500's `--easy-transfer` is ior-easy's `bs`).
    long: Option<&'static str>,
    /// Names the flag had in this suite before it came from the table.
    was: &'static [&'static str],
    /// What the option is in this suite, in place of the table's line.
    help: Option<&'static str>,
    default: SuiteDefault,
    /// A comma list, each item read by the table (`sweep --qd 1,4`).
    list: bool,
}

/// What a suite flag not given stands for.
#[derive(Debug, Clone, Copy)]
enum SuiteDefault {
    /// The table's, as in `Job::default()`.
    Table,
    /// The suite's own text, handed back as if it were given.
    Text(&'static str),
    /// Decided by the suite when it runs; the words say how, for `--help`.
    Told(&'static str),
}

impl SuiteFlag {
    pub const fn of(opt: Opt) -> Self {
        SuiteFlag {
            opt,
            long: None,
            was: &[],
            help: None,
            default: SuiteDefault::Table,
            list: false,
        }
    }
    /// The line of `--help`, in place of the table's.
    pub const fn help(mut self, line: &'static str) -> Self {
        self.help = Some(line);
        self
    }
    /// The suite's default, read by the table as if it were given.
    pub const fn default(mut self, text: &'static str) -> Self {
        self.default = SuiteDefault::Text(text);
        self
    }
    /// A default the suite decides when it runs, described for `--help`.
    pub const fn told(mut self, words: &'static str) -> Self {
        self.default = SuiteDefault::Told(words);
        self
    }
    /// Old names of the flag in this suite, still accepted and shown.
    pub const fn was(mut self, names: &'static [&'static str]) -> Self {
        self.was = names;
        self
    }
    /// The option for some of the suite's jobs, under its own name; the
    /// suite places its values (`SuiteFlags::values`).
    pub const fn named(mut self, long: &'static str) -> Self {
        self.long = Some(long);
        self
    }
    /// A comma list of values; the suite places them (`SuiteFlags::values`).
    pub const fn list(mut self) -> Self {
        self.list = true;
        self
    }

    /// The flag's name on the command line, without `--`.
    pub fn long(&self) -> String {
        self.long.map_or_else(|| self.opt.def().long(), str::to_string)
    }

    /// clap's name for the flag: the table's key, or the suite's own name.
    fn id(&self) -> &'static str {
        self.long.unwrap_or(self.opt.def().key)
    }

    fn arg(&self) -> Arg {
        let d = self.opt.def();
        // clap wants 'static names; these are made once per process, a few dozen bytes.
        let long: &'static str = Box::leak(self.long().into_boxed_str());
        let default = match self.default {
            SuiteDefault::Table => d.default_text(),
            SuiteDefault::Text(text) | SuiteDefault::Told(text) => Some(text.to_string()),
        };
        let value_name = match self.list {
            true => Box::leak(format!("{},..", d.value_name()).into_boxed_str()),
            false => d.value_name(),
        };
        let help = self.help.unwrap_or(d.help);
        let mut arg = option_arg(d, self.id(), long, help, default, value_name);
        if self.long.is_none() {
            if long != d.key {
                arg = arg.alias(d.key);
            }
            for alias in d.aliases {
                arg = arg.alias(*alias);
            }
        }
        arg.visible_aliases(self.was.iter().copied())
    }

    fn error(&self, e: SpecError) -> FlagError {
        let d = self.opt.def();
        let mut message = d.error_text(&e);
        // `--stonewall: '0' is not valid: must be more than 0`, not `runtime must ...`.
        if self.long.is_some() {
            message = message.replace(&format!(": {} must", d.key), ": must");
        }
        FlagError {
            flag: self.long(),
            message,
        }
    }
}

/// A bad value of a suite flag, in one line that names the flag.
#[derive(Debug, thiserror::Error)]
#[error("--{flag}: {message}")]
pub struct FlagError {
    flag: String,
    message: String,
}

/// The job options a suite takes as flags. A suite declares an empty type
/// with its list and flattens `SuiteFlags` of it into its arguments:
/// `#[command(flatten)] pub job: SuiteFlags<MarkFlags>`.
pub trait FlagSet {
    const FLAGS: &'static [SuiteFlag];
}

/// The job options given to a suite, as text, read by the table when the
/// suite's job builder asks: `apply` for the options of every job,
/// `values` for lists and options named apart.
pub struct SuiteFlags<S> {
    given: Vec<(SuiteFlag, String)>,
    set: PhantomData<S>,
}

impl<S> std::fmt::Debug for SuiteFlags<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.given.iter().map(|(flag, text)| (flag.id(), text)))
            .finish()
    }
}

impl<S: FlagSet> SuiteFlags<S> {
    fn find(&self, opt: Opt) -> Option<&(SuiteFlag, String)> {
        self.given.iter().find(|(flag, _)| flag.opt == opt)
    }

    /// The text of `opt`'s flag: given, or the suite's own default.
    pub fn text(&self, opt: Opt) -> Option<&str> {
        self.find(opt).map(|(_, text)| text.as_str())
    }

    /// The values of `opt`'s flag read by the table: one, or each item of
    /// a list; the table's default when neither the user nor the suite
    /// gave one; none when the suite decides.
    pub fn values(&self, opt: Opt) -> Result<Vec<Value>, FlagError> {
        let Some((flag, text)) = self.find(opt) else {
            let flag = S::FLAGS.iter().find(|f| f.opt == opt);
            return Ok(match flag.map(|f| f.default) {
                Some(SuiteDefault::Told(_)) => Vec::new(),
                _ => (opt.def().get)(&Job::default()).into_iter().collect(),
            });
        };
        let items: Vec<&str> = match flag.list {
            true => text.split(',').map(str::trim).collect(),
            false => vec![text.as_str()],
        };
        // `1,,2` is a typo, not a list of two: an empty item is refused like an empty list.
        if items.iter().any(|t| t.is_empty()) {
            return Err(FlagError {
                flag: flag.long(),
                message: format!("'{text}' is not valid: an empty item in the list"),
            });
        }
        items
            .into_iter()
            .map(|item| opt.def().read(item).map_err(|e| flag.error(e)))
            .collect()
    }

    /// Sets on `job`, through the table, each option given or defaulted by
    /// the suite that is for every job: not a list, not named apart.
    pub fn apply(&self, job: &mut Job) -> Result<(), FlagError> {
        for (flag, text) in &self.given {
            if flag.list || flag.long.is_some() {
                continue;
            }
            job.set(flag.opt.def().key, text).map_err(|e| flag.error(e))?;
        }
        Ok(())
    }
}

impl<S: FlagSet> clap::FromArgMatches for SuiteFlags<S> {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for flag in S::FLAGS {
            let id = flag.id();
            let text = match flag.opt.def().flag {
                Flag::Switch => m.get_flag(id).then(|| "true".to_string()),
                _ => m.get_one::<String>(id).cloned(),
            };
            let text = text.or(match flag.default {
                SuiteDefault::Text(t) => Some(t.to_string()),
                _ => None,
            });
            if let Some(text) = text {
                given.push((*flag, text));
            }
        }
        Ok(SuiteFlags {
            given,
            set: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<S: FlagSet> clap::Args for SuiteFlags<S> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        S::FLAGS.iter().fold(cmd, |cmd, flag| cmd.arg(flag.arg()))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// Options every measuring verb shares.
#[derive(Debug, Args, Default)]
pub struct RunCommon {
    /// Name the run, e.g. "Standard SSD E10"; with several targets (`mark A B`) one per target, TARGET=LABEL (each defaults to its TARGET)
    #[arg(long, value_name = "LABEL", action = ArgAction::Append, value_parser = crate::jobs::label::parse_label)]
    pub label: Vec<String>,
    /// Price of the target, e.g. "1075.20 JPY/month" (AMOUNT CURRENCY/month|year|day|hour)
    #[arg(long)]
    pub price: Option<String>,
    /// Keep test files kura created
    #[arg(long)]
    pub keep: bool,
    /// Allow writing to this device or file although it carries data (a file system, RAID member or partition table)
    #[arg(long = "allow-destroy", value_name = "DEVICE")]
    pub allow_destroy: Option<PathBuf>,
}

/// How to read a job file (docs/formats.md).
#[derive(Debug, Args, Default)]
pub struct JobFileArgs {
    /// How to read the job file: toml, fio or vdbench [default: told from the file's name and text]; `kura run` also takes fio-json or fio-json+ to print the run as fio's --output-format=json/json+
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// fio: turn unknown and unsupported options into listed warnings instead of errors
    #[arg(long, requires = "job_file")]
    pub lenient: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A kura TOML job file, fio job file or vdbench parameter file
    pub job_file: PathBuf,
    #[command(flatten)]
    pub file: JobFileArgs,
    /// The overrides `kura run FILE` takes: each sets that key in every job
    #[command(flatten)]
    pub job: JobFlags,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A job file: kura TOML (docs/jobs.md), fio or vdbench (docs/formats.md); without it the flags describe one job
    pub job_file: Option<PathBuf>,
    #[command(flatten)]
    pub file: JobFileArgs,
    #[command(flatten)]
    pub job: JobFlags,
    #[command(flatten)]
    pub common: RunCommon,
    // Many ranks at once (docs/cluster.md).
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Many ranks at once: `mpirun -n 4 kura run job.toml` (docs/cluster.md).
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Many ranks (MPI, docs/cluster.md)")]
pub struct ClusterArgs {
    /// Every rank on its own region of one shared file, instead of a file each (PATH.RANK, IOR's file-per-process)
    #[arg(long)]
    pub shared: bool,
    /// IO500's stonewall: stop every rank at this deadline, then let each complete up to the largest count any rank reached
    #[arg(long, value_name = "DURATION")]
    pub stonewall: Option<String>,
}

/// `kura mark`'s job options; its profile sets the rest.
#[derive(Debug)]
pub enum MarkFlags {}

impl FlagSet for MarkFlags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Size).told("1g, or an existing file's own size when smaller"),
        SuiteFlag::of(Opt::Runtime)
            .help("Measuring time of each pass")
            .told("5s; 1s under --setting flash"),
        SuiteFlag::of(Opt::Engine),
    ];
}

#[derive(Debug, Args)]
pub struct MarkArgs {
    /// File, block device, or directory (a test file in it) [default: ./kura-test.dat]; several take turns pass by pass, each stored as its own run (docs/mark.md)
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// CrystalDiskMark 9's profiles: default, peak, realworld, demo, and default-mix, peak-mix, realworld-mix (reads and writes 70/30); nvme and peak-nvme are default and peak under --setting nvme; cdm5 is CrystalDiskMark 5's set (see docs/mark.md)
    #[arg(long, default_value = "default")]
    pub profile: String,
    /// CrystalDiskMark's setting: standard, nvme (NVMe SSD) or flash (Flash Memory: 1 s measurements, 30 s pauses)
    #[arg(long)]
    pub setting: Option<String>,
    /// Scored passes of each test, after one unscored preparation pass (CrystalDiskMark 9 defaults to 3, 8 to 5)
    #[arg(long, default_value = "3")]
    pub runs: String,
    #[command(flatten)]
    pub job: SuiteFlags<MarkFlags>,
    /// Pause between tests, as CrystalDiskMark's interval (not the job option interval, the period of the series) [default: 5s; 30s under --setting flash]
    #[arg(long)]
    pub interval: Option<String>,
    /// mbps (MB/s), gbps (GB/s), iops or us (latency, µs)
    #[arg(long, default_value = "mbps")]
    pub unit: String,
    /// best: the best pass and the lowest latency, as CrystalDiskMark; mean: the mean of the passes, as KDiskMark's Default profile
    #[arg(long, default_value = "best")]
    pub figure: String,
    #[command(flatten)]
    pub common: RunCommon,
    // Many ranks at once (docs/cluster.md).
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// `history --limit`: 0 would list nothing, and an empty list reads as an
/// empty database.
fn runs_to_list(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("a number of runs, 1 or more".to_string()),
    }
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only runs with this label
    #[arg(long)]
    pub label: Option<String>,
    /// Only runs of this suite: mark (any profile), mark:peak, sweep, tiobench, bonnie, ...
    #[arg(long)]
    pub suite: Option<String>,
    /// At most this many runs
    #[arg(long, default_value_t = 50, value_parser = runs_to_list)]
    pub limit: usize,
    /// table, markdown, csv or json [default: table]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id, label, or `latest`
    pub run: String,
    /// With a label shared by several runs, take the newest
    #[arg(long)]
    pub latest: bool,
    /// table, markdown, csv, json, or fio-json / fio-json+ (fio's --output-format=json/json+) [default: table]
    #[arg(long, value_enum)]
    pub format: Option<ShowFormat>,
    // A mark run's grid in the unit and figure it was run with
    /// A mark run's grid: mbps (MB/s), gbps (GB/s), iops or us (latency, µs) [default: mbps]
    #[arg(long)]
    pub unit: Option<String>,
    /// A mark run's grid: best (the best pass, as CrystalDiskMark) or mean (KDiskMark's Default) [default: best]
    #[arg(long)]
    pub figure: Option<String>,
}

/// What `show --format` takes: the formats every verb has, and fio's JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowFormat {
    /// Aligned columns for a terminal
    Table,
    /// GitHub-flavoured Markdown tables
    Markdown,
    /// Comma-separated values
    Csv,
    /// kura's JSON (docs/json.md)
    Json,
    /// fio's --output-format=json (docs/json.md, "fio's JSON")
    #[value(name = "fio-json")]
    FioJson,
    /// fio's --output-format=json+: with the latency histogram's bins
    #[value(name = "fio-json+", alias = "fio-json-plus")]
    FioJsonPlus,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    /// Run id, label, or `latest`
    pub run: String,
    /// The new label
    #[arg(value_parser = crate::jobs::label::parse_label)]
    pub label: Option<String>,
    /// Price, e.g. "1075.20 JPY/month" (AMOUNT CURRENCY/month|year|day|hour)
    #[arg(long)]
    pub price: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run ids, labels, or `latest`; with several, the first is the baseline
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// Write the HTML here [default: stdout]
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With a label shared by several runs, take the newest
    #[arg(long, conflicts_with = "repeats")]
    pub latest: bool,
    /// A label shared by several runs stands for all of them, as repetitions of one target
    #[arg(long)]
    pub repeats: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0: any free one), or LOOPBACK-ADDRESS:PORT
    #[arg(long, default_value = "8070")]
    pub port: String,
    /// Listen on this address (IP or IP:PORT) even if it is not loopback; anyone who can reach it reads every stored run
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs to compare: ids, labels or `latest`; the first is the baseline unless --baseline
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,
    /// The run the others are set against (one of RUN)
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// mbps, iops, lat-mean or lat-p99
    #[arg(long, value_enum, default_value = "mbps")]
    pub metric: Metric,
    /// Rows by test, by block size (a section per mix) or by mix (a section per block size)
    #[arg(long, value_enum, default_value = "test")]
    pub by: By,
    /// Which figure of repeated passes is compared: best (CrystalDiskMark's) or mean [default: the suite's own: best for mark runs, else mean]
    #[arg(long, value_enum)]
    pub figure: Option<Figure>,
    /// With a label shared by several runs, take the newest
    #[arg(long, conflicts_with = "repeats")]
    pub latest: bool,
    /// A label shared by several runs stands for all of them, as repetitions of one target
    #[arg(long)]
    pub repeats: bool,
    /// table, markdown, csv or json [default: table]
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub source: ImportSource,
}

#[derive(Debug, Subcommand)]
pub enum ImportSource {
    /// A fio result written with --output-format=json
    Fio(ImportFileArgs),
    /// A kura run saved as JSON (`kura show --json`, or the file kura writes when it cannot store a run)
    Run(ImportFileArgs),
}

#[derive(Debug, Args)]
pub struct ImportFileArgs {
    /// The result file
    pub file: PathBuf,
    /// Name the run, e.g. "Standard HDD S10"
    #[arg(long, value_parser = crate::jobs::label::parse_label)]
    pub label: Option<String>,
    /// Price of the target, e.g. "659.46 JPY/month" (AMOUNT CURRENCY/month|year|day|hour)
    #[arg(long)]
    pub price: Option<String>,
}

/// What every suite takes besides its own options.
#[derive(Debug, Args, Default)]
pub struct SuiteCommon {
    /// Repetitions of each test; every one is stored
    #[arg(long, default_value = "1")]
    pub runs: String,
    /// Pause between tests
    #[arg(long, default_value = "0s")]
    pub interval: String,
    #[command(flatten)]
    pub common: RunCommon,
}

/// `kura sweep`'s job options: lists are swept, the others set every point.
#[derive(Debug)]
pub enum SweepFlags {}

impl FlagSet for SweepFlags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Bs)
            .help("Block sizes, comma-separated")
            .default("4k,8k,16k,32k,64k,256k")
            .list(),
        SuiteFlag::of(Opt::ReadPct)
            .help("Read shares of the mixes, comma-separated (100 = read only, 0 = write only)")
            .default("100,50,0")
            .list(),
        SuiteFlag::of(Opt::Qd)
            .help("Queue depths per thread, comma-separated; several are swept")
            .list(),
        SuiteFlag::of(Opt::Threads)
            .help("Worker threads, comma-separated; several are swept")
            .list(),
        SuiteFlag::of(Opt::Size).told("1g, or an existing file's own size when smaller"),
        SuiteFlag::of(Opt::Runtime)
            .help("Measuring time of each point")
            .default("5s"),
        SuiteFlag::of(Opt::Engine),
    ];
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// File, block device, or directory (a test file in it) [default: ./kura-test.dat]; several take turns point by point, each stored as its own run (docs/mark.md)
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub job: SuiteFlags<SweepFlags>,
    /// rand or seq
    #[arg(long, default_value = "rand")]
    pub pattern: String,
    /// iops-matrix-quick: the block sizes and mixes of the SNIA PTS IOPS test (7 mixes x 8 sizes), each measured once, without the PTS's purge, preconditioning or rounds; replaces --bs and --read-pct
    #[arg(long)]
    pub preset: Option<String>,
    #[command(flatten)]
    pub suite: SuiteCommon,
    // Many ranks at once (docs/cluster.md).
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// tiobench: sequential and random write and read, each thread on its own file
    Tiobench(TiobenchArgs),
    /// bonnie++: per-character and block I/O, rewrite, seeks, small files
    Bonnie(BonnieArgs),
    /// A real database on DIR: sql-bench's tests and sysbench's OLTP mix (SQLite)
    Db(DbArgs),
    /// IO500-like (not the official harness): ior-easy/hard, mdtest-easy/hard and the score
    Io500(Io500Args),
    /// SNIA PTS-E/C 2.0.2 on a device: purge, precondition, rounds until steady (docs/pts.md)
    Pts(PtsArgs),
}

/// `kura suite pts`'s job options, from the option table.
#[derive(Debug)]
pub enum PtsFlags {}

impl FlagSet for PtsFlags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Qd)
            .help("Queue depth per thread of the IOPS, TP and WS tests and every preconditioning (the PTS's OIO/thread, the tester's choice: PTS-E recommends 32, PTS-C 16; LAT runs at 1)")
            .default("32"),
        SuiteFlag::of(Opt::Threads)
            .help("Threads of the IOPS and WS tests and every preconditioning (the PTS's TC, the tester's choice: PTS-E recommends 4, PTS-C 2; TP and LAT run 1)")
            .default("4"),
        SuiteFlag::of(Opt::Size).told("the whole device (the PTS's user capacity)"),
        SuiteFlag::of(Opt::Engine),
    ];
}

/// `kura suite pts` (docs/pts.md).
#[derive(Debug, Args)]
pub struct PtsArgs {
    /// The device to test: everything on it is destroyed (needs --allow-destroy DEVICE)
    pub device: String,
    /// Tests to run, comma-separated: iops, tp, lat, ws, or all
    #[arg(long, default_value = "all")]
    pub tests: String,
    /// Fraction of the spec's round time and volumes, above 0 and at most 1; below 1 the result is labelled not conforming
    #[arg(long, default_value = "1")]
    pub scale: String,
    #[command(flatten)]
    pub job: SuiteFlags<PtsFlags>,
    #[command(flatten)]
    pub suite: SuiteCommon,
}

/// `kura suite tiobench`'s job options, under tiotest's defaults.
#[derive(Debug)]
pub enum TiobenchFlags {}

impl FlagSet for TiobenchFlags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Threads)
            .help("Threads, each on its own file (tiobench -t); a comma list runs every count in turn, as tiobench.pl --threads 1 --threads 2 ...")
            .default("8")
            .list(),
        SuiteFlag::of(Opt::Size)
            .help("File size per thread (tiobench -f, in MiB there)")
            .default("128m")
            .was(&["file-size"]),
        SuiteFlag::of(Opt::Bs)
            .help("Block size (tiobench -b)")
            .default("4k")
            .was(&["block"]),
        SuiteFlag::of(Opt::Direct)
            .help("O_DIRECT instead of tiobench's buffered I/O")
            .default("false"),
        SuiteFlag::of(Opt::MemLimit).help(MEM_LIMIT_HELP),
    ];
}

/// A suite's `--mem-limit`, in the words of booting with `mem=` that it stands for.
const MEM_LIMIT_HELP: &str = "Cap the memory (and so the page cache) kura may use, in a memory cgroup (at least 16M), as booting with mem=512M did";

/// `kura suite bonnie`'s job options; its own flags set the rest.
#[derive(Debug)]
pub enum BonnieJobFlags {}

impl FlagSet for BonnieJobFlags {
    // --size and --chunk are read by bonnie's own rules too (whole MiB, 0
    // skips the I/O tests; a power of two from 256 bytes to 1m): named apart,
    // so no table bound refuses bonnie++'s `-s 0` first.
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Size)
            .named("size")
            .told("twice the RAM (or the --mem-limit cap), as bonnie++")
            .help("File size for the I/O tests, whole MiB; 0 skips them (bonnie++ -s SIZE)"),
        SuiteFlag::of(Opt::Bs)
            .named("chunk")
            .default("8k")
            .help("Block size of the block tests (bonnie++ -s SIZE:CHUNK)"),
        SuiteFlag::of(Opt::MemLimit).help(MEM_LIMIT_HELP),
    ];
}

#[derive(Debug, Args)]
pub struct TiobenchArgs {
    /// Directory for the test files [default: .]
    pub dir: Option<String>,
    #[command(flatten)]
    pub job: SuiteFlags<TiobenchFlags>,
    /// Random operations of all threads together, split evenly (tiobench.pl --random)
    #[arg(long = "random-ops", default_value = "4000")]
    pub random_ops: String,
    #[command(flatten)]
    pub suite: SuiteCommon,
}

#[derive(Debug, Args)]
pub struct BonnieArgs {
    /// Directory for the test files [default: .]
    pub dir: Option<String>,
    /// Small files for the create/stat/delete tests, in multiples of 1024 (bonnie++ -n)
    #[arg(long, default_value = "16")]
    pub files: String,
    /// Bytes moved one byte per call in each per-character test, whole MiB (bonnie++ -f SIZE); 0 skips them (bonnie++ -f) [default: 3m, as bonnie++ 2.0's code, at most --size]
    #[arg(long = "char-size")]
    pub char_size: Option<String>,
    /// Also print bonnie++'s CSV line (format version 2), for bon_csv2html
    #[arg(long)]
    pub csv: bool,
    #[command(flatten)]
    pub job: SuiteFlags<BonnieJobFlags>,
    #[command(flatten)]
    pub suite: SuiteCommon,
}

/// The job options `kura suite db` takes, from the option table: the
/// database kind's own (`Scope::Database`), set on `DbParams::template`,
/// and the table's threads, runtime (as `--time`) and mem_limit.
#[derive(Debug)]
pub enum DbJobFlags {}

impl FlagSet for DbJobFlags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Scale),
        SuiteFlag::of(Opt::Synchronous),
        SuiteFlag::of(Opt::JournalMode).was(&["journal"]),
        SuiteFlag::of(Opt::Tables),
        SuiteFlag::of(Opt::TableSize),
        SuiteFlag::of(Opt::Server),
        SuiteFlag::of(Opt::ServerSync),
        SuiteFlag::of(Opt::Threads)
            .default("1")
            .help("OLTP mix: connections running transactions at once (sysbench --threads)"),
        SuiteFlag::of(Opt::Runtime)
            .named("time")
            .default("10s")
            .help("OLTP mix: how long it runs (sysbench --time)"),
        SuiteFlag::of(Opt::MemLimit).help(
            "Cap the memory (and so the page cache) of kura and of the server it starts, in a memory cgroup (at least 16M)",
        ),
    ];
}

/// `kura suite db` (the database kind, docs/db.md).
#[derive(Debug, Args)]
pub struct DbArgs {
    /// Directory for the database (kura makes DIR/kura-db) [default: .]
    pub dir: Option<String>,
    // Not an option of the table: it chooses which jobs the suite makes,
    // each of which carries its own test.
    /// Tests to run, comma-separated: ATIS, alter-table, big-tables, connect, create, insert, select, wisconsin, oltp_read_write, or all
    #[arg(long, default_value = "all")]
    pub tests: String,
    #[command(flatten)]
    pub job: SuiteFlags<DbJobFlags>,
    #[command(flatten)]
    pub suite: SuiteCommon,
}

/// `kura suite io500`'s job options, each for some of its phases.
#[derive(Debug)]
pub enum Io500Flags {}

impl FlagSet for Io500Flags {
    const FLAGS: &'static [SuiteFlag] = &[
        SuiteFlag::of(Opt::Runtime)
            .named("stonewall")
            .help("IO500's stonewall: the runtime of each write phase (300 s in a valid IO500 run)")
            .default("300s"),
        SuiteFlag::of(Opt::Bs)
            .named("easy-transfer")
            .help("ior-easy: transfer size, its bs (IO500 transferSize)")
            .default("2m"),
        SuiteFlag::of(Opt::Size)
            .named("easy-size")
            .help("ior-easy: file size per rank, its size (IO500 blockSize)")
            .default("9920000m"),
    ];
}

/// `kura suite io500` (docs/io500.md): IO500's parameters by default; shrink them for a quick run.
#[derive(Debug, Args)]
pub struct Io500Args {
    /// Directory for the test files and sets [default: .]
    pub dir: Option<String>,
    #[command(flatten)]
    pub job: SuiteFlags<Io500Flags>,
    /// ior-hard: 47008-byte segments per rank (IO500 segmentCount)
    #[arg(long = "hard-segments", default_value = "10000000")]
    pub hard_segments: String,
    /// mdtest-easy: empty files per rank (IO500 n)
    #[arg(long = "easy-files", default_value = "1000000")]
    pub easy_files: String,
    /// mdtest-hard: 3901-byte files per rank (IO500 n)
    #[arg(long = "hard-files", default_value = "1000000")]
    pub hard_files: String,
    #[command(flatten)]
    pub common: RunCommon,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kura suite --help` said "Classic suites: tiobench, bonnie" over a
    /// list of four: its line names every suite it lists.
    #[test]
    fn suite_help_names_every_suite() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let suite = cli.find_subcommand("suite").unwrap();
        let about = suite.get_about().unwrap().to_string();
        let names: Vec<&str> = suite.get_subcommands().map(|s| s.get_name()).collect();
        assert!(names.len() >= 4, "{names:?}");
        for name in names {
            assert!(about.contains(name), "{name} missing from {about:?}");
        }
    }

    fn run_flags(args: &[&str]) -> Vec<(&'static str, String)> {
        let cli = Cli::try_parse_from([&["kura", "run"], args].concat()).unwrap();
        match cli.command {
            Command::Run(run) => run.job.given(),
            other => panic!("{other:?}"),
        }
    }

    fn parse(args: &[&str]) -> Command {
        Cli::try_parse_from([&["kura"], args].concat())
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
            .command
    }

    fn tiobench(args: &[&str]) -> SuiteFlags<TiobenchFlags> {
        match parse(&[&["suite", "tiobench"], args].concat()) {
            Command::Suite(SuiteCommand::Tiobench(t)) => t.job,
            other => panic!("{other:?}"),
        }
    }

    fn sweep(args: &[&str]) -> SuiteFlags<SweepFlags> {
        match parse(&[&["sweep"], args].concat()) {
            Command::Sweep(s) => s.job,
            other => panic!("{other:?}"),
        }
    }

    /// A suite's flag is the table's: its name and value name, the key and
    /// the table's aliases accepted, one flag per option.
    fn check_suite_flags(verb: &[&str], flags: &[SuiteFlag]) {
        let cmd = <Cli as clap::CommandFactory>::command();
        let sub = verb.iter().fold(&cmd, |c, name| c.find_subcommand(name).unwrap());
        for (i, flag) in flags.iter().enumerate() {
            let d = flag.opt.def();
            assert!(!matches!(d.flag, Flag::FileOnly(_)), "{}", d.key);
            assert!(
                flags[..i].iter().all(|f| f.opt != flag.opt),
                "{verb:?}: {} twice",
                d.key
            );
            let arg = sub
                .get_arguments()
                .find(|a| a.get_id() == flag.id())
                .unwrap_or_else(|| panic!("{verb:?}: no --{}", flag.long()));
            assert_eq!(arg.get_long(), Some(flag.long().as_str()));
            if flag.long.is_none() {
                assert_eq!(flag.long(), d.long());
                let aliases = arg.get_all_aliases().unwrap_or_default();
                for alias in d.aliases.iter().chain((d.key != d.long()).then_some(&d.key)) {
                    assert!(aliases.contains(alias), "{verb:?} --{}: {alias}", d.key);
                }
            }
            if d.flag != Flag::Switch {
                let name = arg.get_value_names().unwrap()[0].to_string();
                assert!(name.starts_with(d.value_name()), "{verb:?} --{}: {name}", d.key);
            }
        }
    }

    #[test]
    fn every_suite_flag_is_a_table_option() {
        check_suite_flags(&["mark"], MarkFlags::FLAGS);
        check_suite_flags(&["sweep"], SweepFlags::FLAGS);
        check_suite_flags(&["suite", "tiobench"], TiobenchFlags::FLAGS);
        check_suite_flags(&["suite", "bonnie"], BonnieJobFlags::FLAGS);
        check_suite_flags(&["suite", "db"], DbJobFlags::FLAGS);
        check_suite_flags(&["suite", "io500"], Io500Flags::FLAGS);
        check_suite_flags(&["suite", "pts"], PtsFlags::FLAGS);
    }

    #[test]
    fn tiobench_old_names_set_the_same_job_as_the_table_names() {
        let jobs: Vec<Job> = [
            &["--block", "8k", "--file-size", "2m"],
            &["--bs", "8k", "--size", "2m"],
        ]
        .iter()
        .map(|args| {
            let mut job = Job::default();
            tiobench(*args).apply(&mut job).unwrap();
            job
        })
        .collect();
        assert_eq!(jobs[0], jobs[1]);
        assert_eq!(
            jobs[0].bs,
            vec![crate::jobs::BlockSize {
                bytes: 8192,
                weight: 100
            }]
        );
        assert_eq!(jobs[0].size_bytes, Some(2 << 20));
        // tiotest's defaults where the table's differ: 8 threads, buffered.
        assert_eq!(tiobench(&[]).values(Opt::Threads).unwrap(), [Value::Count(8)]);
        assert!(!jobs[0].direct);
        // A list of thread counts is tiobench.pl's, each count read by the table.
        assert_eq!(
            tiobench(&["--threads", "1,2,4,8"]).values(Opt::Threads).unwrap(),
            [1, 2, 4, 8].map(Value::Count)
        );
        let mut direct = Job::default();
        tiobench(&["--direct"]).apply(&mut direct).unwrap();
        assert!(direct.direct);
    }

    #[test]
    fn sweep_lists_are_read_item_by_item_by_the_table() {
        let flags = sweep(&["--qd", "1, 4", "--bs", "4k,1m"]);
        assert_eq!(flags.values(Opt::Qd).unwrap(), [Value::Count(1), Value::Count(4)]);
        assert_eq!(flags.values(Opt::Bs).unwrap().len(), 2);
        // Not given: the suite's default list, or the table's default.
        assert_eq!(flags.values(Opt::ReadPct).unwrap().len(), 3);
        assert_eq!(flags.values(Opt::Threads).unwrap(), [Value::Count(1)]);
        // Lists are the sweep's to place: `apply` leaves them to it.
        let mut job = Job::default();
        sweep(&["--qd", "32", "--runtime", "2s"]).apply(&mut job).unwrap();
        assert_eq!(
            (job.qd, job.runtime),
            (1, Some(std::time::Duration::from_secs(2)))
        );
    }

    #[test]
    fn a_bad_value_names_the_flag_once() {
        let err = |e: FlagError| e.to_string();
        assert_eq!(
            err(sweep(&["--bs", "4k,zz"]).values(Opt::Bs).unwrap_err()),
            "--bs: 'zz' is not a size (examples: 4096, 4k, 1m, 1g, 500mb)"
        );
        assert_eq!(
            err(sweep(&["--qd", "1,0"]).values(Opt::Qd).unwrap_err()),
            "--qd: '0' is not valid: must be between 1 and 4096"
        );
        assert_eq!(
            err(sweep(&["--read-pct", ","]).values(Opt::ReadPct).unwrap_err()),
            "--read-pct: ',' is not valid: an empty item in the list"
        );
        assert_eq!(
            err(tiobench(&["--threads", "1,,2"]).values(Opt::Threads).unwrap_err()),
            "--threads: '1,,2' is not valid: an empty item in the list"
        );
        assert_eq!(
            err(tiobench(&["--threads", "1,0"]).values(Opt::Threads).unwrap_err()),
            "--threads: '0' is not valid: must be between 1 and 1024"
        );
        // db's OLTP flags are the table's threads, runtime (as --time) and mem_limit.
        let db = |args: &[&str]| match parse(&[&["suite", "db"], args].concat()) {
            Command::Suite(SuiteCommand::Db(a)) => a.job,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(db(&["--threads", "0"]).apply(&mut Job::default()).unwrap_err()),
            "--threads: '0' is not valid: must be between 1 and 1024"
        );
        assert!(err(db(&["--time", "soon"]).values(Opt::Runtime).unwrap_err()).starts_with("--time: 'soon'"),);
        assert!(
            err(db(&["--mem-limit", "8m"]).apply(&mut Job::default()).unwrap_err())
                .starts_with("--mem-limit: '8m' is not valid")
        );
        // Its database parameters are the table's too, set on the suite's database job.
        let template = crate::jobs::db_params::DbParams::template;
        assert_eq!(
            err(db(&["--scale", "2"]).apply(&mut template()).unwrap_err()),
            "--scale: '2' is not valid: must be between 0.001 and 1"
        );
        assert_eq!(
            err(db(&["--journal", "memory"]).apply(&mut template()).unwrap_err()),
            "--journal-mode: 'memory' is not valid: expected delete (rollback) or wal"
        );
        let mut job = template();
        db(&["--table-size", "500", "--journal", "wal"])
            .apply(&mut job)
            .unwrap();
        let p = crate::jobs::db_params::DbParams::of(&job).unwrap();
        assert_eq!((p.oltp_table_size, p.journal.name()), (500, "wal"));
        let io500 = match parse(&["suite", "io500", "--stonewall", "0"]) {
            Command::Suite(SuiteCommand::Io500(a)) => a.job,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(io500.values(Opt::Runtime).unwrap_err()),
            "--stonewall: '0' is not valid: must be more than 0"
        );
        // Named apart, the option's own flag is not taken.
        assert!(Cli::try_parse_from(["kura", "suite", "io500", "--runtime", "1s"]).is_err());
    }

    #[test]
    fn every_key_but_the_file_only_ones_is_a_flag() {
        let cmd = <Cli as clap::CommandFactory>::command();
        let run = cmd.find_subcommand("run").unwrap();
        for d in OPTIONS {
            let has = run
                .get_arguments()
                .any(|a| a.get_id() == d.key && a.get_help_heading() == Some(d.group.heading()));
            assert_eq!(has, d.flag.of_run(), "{}", d.key);
        }
    }

    #[test]
    fn flags_come_back_as_keys_with_their_text() {
        let given = run_flags(&[
            "--qd",
            "32",
            "--read_pct",
            "70",
            "--think-time",
            "1ms",
            "--end-fsync",
            "--random-pct",
            "80",
        ]);
        for want in [
            ("qd", "32"),
            ("read_pct", "70"),
            ("think_time", "1ms"),
            ("end_fsync", "true"),
            ("random_pct", "80"),
        ] {
            assert!(
                given.contains(&(want.0, want.1.to_string())),
                "{want:?} in {given:?}"
            );
        }
        assert!(Cli::try_parse_from(["kura", "run", "--direct", "--buffered"]).is_err());
    }
}
