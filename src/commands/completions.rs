//! `kura completions SHELL` and `kura man [VERB]`: made from the same clap
//! definitions as `--help` (src/cli.rs), so they cannot drift from it.

use anyhow::{Result, bail};
use clap::builder::PossibleValuesParser;
use clap::{Arg, Command, CommandFactory, ValueHint};

use super::Ctx;
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::report::emit;

/// A script that asked for JSON is told it gets none, rather than parsing
/// a shell script or roff as JSON.
fn refuse_json(ctx: &Ctx, verb: &str, prints: &str) -> Result<()> {
    if ctx.json {
        bail!("--json: {verb} prints {prints}, not JSON");
    }
    Ok(())
}

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<i32> {
    refuse_json(ctx, "completions", "a shell script")?;
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut completion_command(), "kura", &mut out);
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<i32> {
    refuse_json(ctx, "man", "a roff page")?;
    let mut cmd = Cli::command();
    cmd.build();
    let mut page = cmd;
    let mut name = vec!["kura".to_string()];
    for verb in &args.verb {
        let Some(sub) = page.find_subcommand(verb).cloned() else {
            bail!("man: '{}' is not a verb of `{}`", verb, name.join(" "));
        };
        name.push(verb.clone());
        // build() gave it the display name `kura-suite-tiobench`, the page's title.
        page = sub;
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}

/// `--setting`, `--unit`, `--figure`: the words their parsers take
/// (presets.rs `Setting::parse`, mark_grid.rs `MarkUnit::parse`,
/// `Figure::parse`), without the aliases; tested against them below.
const SETTINGS: &[&str] = &["standard", "nvme", "flash"];
const UNITS: &[&str] = &["mbps", "gbps", "iops", "us"];
const FIGURES: &[&str] = &["best", "mean"];
const ENGINES: &[&str] = &["auto", "io_uring", "sync", "null"];
const FILE_FORMATS: &[&str] = &["toml", "fio", "vdbench"];
const RUN_FORMATS: &[&str] = &["toml", "fio", "vdbench", "fio-json", "fio-json+"];

/// The words a free-text option of kura's own takes, for completion only:
/// kura parses these strings itself (and says what went wrong in its own
/// words, tests/cli.rs), so the parsing Command keeps them as text.
fn words_of(verb: &str, long: &str) -> Option<&'static [&'static str]> {
    Some(match (verb, long) {
        ("mark", "profile") => crate::jobs::presets::PROFILE_NAMES,
        ("mark", "setting") => SETTINGS,
        ("mark" | "show", "unit") => UNITS,
        ("mark" | "show", "figure") => FIGURES,
        (_, "engine") => ENGINES,
        ("run", "format") => RUN_FORMATS,
        ("explain", "format") => FILE_FORMATS,
        ("sweep", "pattern") => &["rand", "seq"],
        ("sweep", "preset") => &["iops-matrix-quick"],
        ("db", "synchronous") => &["off", "normal", "full", "extra"],
        ("db", "journal-mode") => &["delete", "wal"],
        ("db", "server") => &["sqlite", "postgres", "mariadb"],
        (_, "rate-process") => &["linear", "poisson"],
        (_, "fileio") => &["random", "sequential"],
        _ => return None,
    })
}

/// A job option's words from the option table (src/jobs/options.rs), when
/// the argument is the table's (same id, under the table's heading).
fn table_words(arg: &Arg) -> Option<Option<Vec<String>>> {
    use crate::jobs::options::{OPTIONS, Type};
    let d = OPTIONS
        .iter()
        .find(|d| d.key == arg.get_id().as_str() && arg.get_help_heading() == Some(d.group.heading()))?;
    Some(match d.ty {
        Type::Rw => Some(
            d.values_text()
                .split('`')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Type::Engine => Some(owned(ENGINES)),
        Type::Choice(words) => Some(owned(words)),
        Type::Path => None,
        // Numbers, sizes, durations, spreads: no file names.
        _ => Some(Vec::new()),
    })
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn complete_arg(verb: &str, arg: Arg) -> Arg {
    if arg.is_positional() || !arg.get_action().takes_values() || !arg.get_possible_values().is_empty() {
        return arg;
    }
    let long = arg.get_long().unwrap_or_default().to_string();
    let words = match words_of(verb, &long) {
        Some(w) => Some(owned(w)),
        None => match table_words(&arg) {
            Some(w) => w,
            // kura's own options: a path is a PathBuf; the rest are words and numbers.
            None if arg.get_value_parser().type_id() == std::any::TypeId::of::<std::path::PathBuf>() => None,
            None => Some(Vec::new()),
        },
    };
    match words {
        None => arg,
        Some(w) if w.is_empty() => arg.value_hint(ValueHint::Other),
        // clap wants 'static words; made once, for the one script printed.
        Some(w) => arg.value_parser(PossibleValuesParser::new(
            w.into_iter().map(|w| &*Box::leak(w.into_boxed_str())),
        )),
    }
}

fn complete_command(cmd: Command) -> Command {
    let verb = cmd.get_name().to_string();
    cmd.mut_args(|a| complete_arg(&verb, a))
        .mut_subcommands(complete_command)
}

/// The Command the completion scripts are made from: `Cli::command()` with
/// the values of kura's text options offered, and no file names where a
/// number, size or word goes. Parsing keeps `Cli::command()` as it is.
pub fn completion_command() -> Command {
    complete_command(Cli::command())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::mark_grid::{Figure, MarkUnit};

    #[test]
    fn the_offered_words_are_the_ones_kura_takes() {
        for s in SETTINGS {
            assert!(crate::jobs::presets::Setting::parse(s).is_some(), "{s}");
        }
        for u in UNITS {
            assert!(MarkUnit::parse(u).is_some(), "{u}");
        }
        for f in FIGURES {
            assert!(Figure::parse(f).is_some(), "{f}");
        }
        for p in crate::jobs::presets::PROFILE_NAMES {
            assert!(crate::jobs::presets::Profile::parse(p, None).is_ok(), "{p}");
        }
        let engine = crate::jobs::options::OPTIONS
            .iter()
            .find(|d| d.key == "engine")
            .unwrap();
        for e in ENGINES {
            assert!(engine.parse(e).is_ok(), "{e}");
        }
        assert!(engine.parse("bogus").is_err());
        for f in FILE_FORMATS {
            assert!(crate::jobs::reading::Format::parse(f).is_some(), "{f}");
        }
    }

    #[test]
    fn the_completion_command_builds() {
        // clap checks every default against the offered values here.
        let mut cmd = completion_command();
        cmd.build();
        let mark = cmd.find_subcommand("mark").unwrap();
        let unit = mark.get_arguments().find(|a| a.get_id() == "unit").unwrap();
        assert_eq!(unit.get_possible_values().len(), UNITS.len());
    }
}
