//! fio's names typed as flags of `kura run` and `kura explain`:
//! `--iodepth=32 --numjobs=4 --ioengine=libaio --direct=1 --runtime=30`.
//! Each fio name of the option table (`OptionDef::fio`) is a flag of its
//! option (src/cli.rs) whose value is read in fio's form here (fio's units
//! with `kb_base=1024`, bare seconds, `0`/`1`, microseconds for
//! `thinktime`, fio's engine names) and handed to the table as kura's text
//! of the same value, so the job stored is the one kura's own names give.
//! The options are kura's: `size` is the file the threads share, a rate is
//! the job's. fio's options that change nothing kura measures are taken as
//! the job-file reader takes them; any other is named in one line.

use std::time::Duration;

use super::{Engine, NO_EFFECT, WITH_NOTE, fio_bool, fio_engine, fio_number, fio_time, parse_distribution};
use crate::jobs::options::{Opt, Type, Value};
use crate::jobs::{BlockSize, EngineKind};

/// fio's options a flag job takes besides the table's: `--time_based`
/// (kura's flag jobs run for their runtime), and those without effect.
pub fn flag_without_effect(name: &str) -> bool {
    name == "time_based" || NO_EFFECT.contains(&name)
}

/// fio's options a flag job takes without effect or with a note.
pub fn extra_names() -> impl Iterator<Item = &'static str> {
    std::iter::once("time_based")
        .chain(NO_EFFECT.iter().copied())
        .chain(WITH_NOTE.iter().map(|(n, _)| *n))
}

/// fio's options a flag job takes with a note (the job-file reader's notes).
pub fn flag_note(name: &str) -> Option<&'static str> {
    WITH_NOTE.iter().find(|(n, _)| *n == name).map(|(_, why)| *why)
}

/// The line for a flag kura does not know that is one of fio's: its
/// option's flag, or that kura has none. `None` for a name fio does not know.
pub fn unknown_flag(name: &str) -> Option<String> {
    let name = name.trim_start_matches('-');
    let name = name.split_once('=').map_or(name, |(n, _)| n);
    if let Some(opt) = Opt::by_fio_name(name) {
        let d = opt.def();
        return Some(format!("--{name} is fio's name; kura's is --{}", d.long()));
    }
    // fio's own flags have `-` or `_`: one spelling to match.
    match name.replace('-', "_").as_str() {
        "output_format" => Some(
            "--output-format is fio's: kura prints JSON with --json, or fio's JSON with --format fio-json"
                .into(),
        ),
        "output" => Some("--output is fio's: kura stores every run (kura show, kura report)".into()),
        "minimal" | "terse_version" | "append_terse" => Some(format!(
            "--{name} is fio's terse output: kura prints JSON with --json, or fio's JSON with --format fio-json"
        )),
        "parse_only" => Some("--parse-only is fio's: kura explain FILE prints the jobs without running them".into()),
        "readonly" => Some(
            "--readonly is fio's: kura has no such switch; a read job never writes, and a write job refuses a target holding a file system or other signature unless --allow-destroy names it"
                .into(),
        ),
        "eta" | "eta_interval" | "eta_newline" | "status_interval" => Some(format!(
            "--{name} is fio's: kura shows its progress on stderr (--quiet hides it)"
        )),
        "bandwidth_log" | "latency_log" => Some(format!(
            "--{name} is fio's: kura writes fio's logs with --write-bw-log, --write-iops-log and --write-lat-log PREFIX"
        )),
        _ if FIO_COMMAND_LINE.contains(&name) => Some(format!(
            "--{name} is one of fio's command-line options; kura has no equivalent"
        )),
        _ if super::FIO_OPTIONS.contains(&name) => Some(format!(
            "--{name}: fio's option {name} has no kura equivalent (docs/formats.md lists what kura takes)"
        )),
        _ => None,
    }
}

/// fio 3.33's own command-line options (init.c, `l_opts`) that are not
/// job options, spelled with `_` as `unknown_flag` matches them; those
/// with a kura equivalent have their own line there.
const FIO_COMMAND_LINE: &[&str] = &[
    "cmdhelp",
    "enghelp",
    "showcmd",
    "debug",
    "section",
    "inflate_log",
    "alloc_size",
    "profile",
    "warnings_fatal",
    "max_jobs",
    "server",
    "server_internal",
    "daemonize",
    "client",
    "remote_config",
    "cpuclock_test",
    "crctest",
    "memcpytest",
    "idle_prof",
    "trigger_file",
    "trigger_timeout",
    "trigger",
    "trigger_remote",
    "aux_path",
    "merge_blktrace_only",
];

/// kura's text of `opt`'s value, given in fio's form under fio's `name`.
pub fn flag_text(opt: Opt, text: &str) -> Result<String, String> {
    let t = text.trim();
    let secs = Duration::from_secs(1);
    let micros = Duration::from_micros(1);
    let value = match opt {
        // invalidate=1, fio's default, is kura's default of dropping the cache.
        Opt::KeepCache => Value::Bool(!fio_bool(t)?),
        Opt::Engine => Value::Engine(match fio_engine(t) {
            Some(Engine::Uring) => EngineKind::IoUring,
            Some(Engine::Sync) => EngineKind::Sync,
            Some(Engine::Null) => EngineKind::Null,
            Some(Engine::Files(_)) => {
                return Err(format!(
                    "kura runs fio's {t} engine from a job file; a flag job's file set is --mix and --target DIRECTORY (docs/filesets.md)"
                ));
            }
            None => return Err(super::ENGINES_KURA_RUNS.into()),
        }),
        Opt::Verify => Value::Bool(match t.to_ascii_lowercase().as_str() {
            "0" | "none" | "null" => false,
            "1" => true,
            w if super::verify::KINDS.contains(&w) => true,
            _ => return Err(format!("'{t}' is not one of fio's verify kinds")),
        }),
        Opt::Rw => {
            if t.contains(':') {
                return Err(
                    "offset modifiers are for job files; kura's --gap leaves holes in a sequential job"
                        .into(),
                );
            }
            Opt::Rw.def().parse(t).map_err(|e| e.why())?
        }
        Opt::Bs => {
            if t.contains(',') {
                return Err(crate::jobs::job::parse_block_sizes("bs", t).unwrap_err().why());
            }
            Value::BlockSizes(vec![BlockSize {
                bytes: fio_number(t, 1024)?,
                weight: 100,
            }])
        }
        Opt::Target if t.replace("\\:", "").contains(':') => {
            return Err("several files in one job: kura runs one target per job".into());
        }
        Opt::Distribution => Value::Distribution(parse_distribution(t)?),
        Opt::ThinkTime | Opt::LatencyLimit | Opt::FlowSleep => Value::Duration(fio_time(t, micros)?),
        Opt::StartDelay if t.contains(['-', ':']) => {
            return Err("a random start delay from a range is for job files".into());
        }
        _ => match opt.def().ty {
            Type::Count { .. } => Value::Count(fio_number(t, 1024)?),
            Type::Bytes { .. } => Value::Bytes(fio_number(t, 1024)?),
            Type::Duration { .. } => Value::Duration(fio_time(t, secs)?),
            Type::Bool => Value::Bool(fio_bool(t)?),
            _ => return Ok(text.to_string()),
        },
    };
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_values_become_kuras_text() {
        let text = |opt, v| flag_text(opt, v).unwrap();
        assert_eq!(text(Opt::Qd, "0x10"), "16");
        assert_eq!(text(Opt::Threads, "4"), "4");
        assert_eq!(text(Opt::Engine, "libaio"), "io_uring");
        assert_eq!(text(Opt::Engine, "psync"), "sync");
        assert_eq!(text(Opt::KeepCache, "0"), "true");
        assert_eq!(text(Opt::Runtime, "30"), "30s");
        assert_eq!(text(Opt::ThinkTime, "10"), "10us");
        assert_eq!(text(Opt::Bs, "4kib"), "4000");
        assert_eq!(text(Opt::Verify, "crc32c"), "true");
        assert_eq!(text(Opt::Verify, "0"), "false");
        assert!(flag_text(Opt::Engine, "rbd").is_err());
        assert!(flag_text(Opt::Bs, "4k,64k").unwrap_err().contains("--bs-write"));
        assert!(flag_text(Opt::Rw, "read:8k").unwrap_err().contains("--gap"));
        assert!(flag_without_effect("group_reporting") && flag_without_effect("time_based"));
        assert!(!flag_without_effect("zonemode"));
        assert!(
            unknown_flag("--zonemode=zbd")
                .unwrap()
                .contains("no kura equivalent")
        );
        assert!(unknown_flag("--iodepth").unwrap().contains("--qd"));
        assert_eq!(unknown_flag("--nosuch"), None);
        for flag in [
            "--minimal",
            "--readonly",
            "--eta=never",
            "--parse-only",
            "--section=a",
            "--debug=io",
        ] {
            assert!(unknown_flag(flag).is_some(), "{flag}");
        }
    }
}
