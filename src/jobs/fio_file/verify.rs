//! fio's verify options (fio 3.33, HOWTO.rst "Verification", `fio
//! --cmdhelp=verify`) read onto kura's verify (docs/verify.md).
//!
//! kura writes its own 48-byte header and a CRC32 of the whole block, not
//! fio's `verify_header` followed by the checksum `verify=` names: every
//! checksum fio offers is kura's one header, and data fio wrote does not
//! verify in kura, nor kura's in fio. `verify=0` (fio's default) and
//! `verify=none` (which fio 3.33 refuses) verify nothing.

use super::{Entry, FioJob, FormatError, Loc, Translator, fio_bool, unsupported_value, value_err};
use crate::jobs::byte_pattern::{parse_pattern, pattern_hex};
use crate::jobs::options::{Opt, Value};
use crate::jobs::{Job, Rw};

/// fio's checksums and modes that kura's header stands in for.
pub(super) const KINDS: &[&str] = &[
    "md5",
    "crc64",
    "crc32",
    "crc32c",
    "crc32c-intel",
    "crc16",
    "crc7",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "xxhash",
    "meta",
    "pattern",
];

/// Options fio uses to tune how or when it checks, which kura checks its
/// own way: accepted, and the reader told how.
const NOTED: &[(&str, &str)] = &[
    (
        "verify_backlog",
        "kura reads a job's writes back after the job, not every N writes",
    ),
    (
        "verify_backlog_batch",
        "kura reads a job's writes back after the job, not every N writes",
    ),
    (
        "verify_interval",
        "kura's header starts each verify block (the job's smallest block size)",
    ),
    (
        "verify_offset",
        "kura's header starts each verify block (the job's smallest block size)",
    ),
    (
        "verify_dump",
        "kura stores each bad block's offset, field, expected and found values; it dumps no blocks to files",
    ),
    ("verify_async", "kura checks blocks in the thread that read them"),
    (
        "verify_async_cpus",
        "kura checks blocks in the thread that read them",
    ),
    ("verifysort", "kura reads written blocks back in offset order"),
    ("verifysort_nr", "kura reads written blocks back in offset order"),
    (
        "experimental_verify",
        "kura reads back the blocks it recorded as written",
    ),
];

/// What a fio job said about verifying, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioVerify {
    /// `verify=`'s word; `None` for 0, none or unset.
    kind: Option<(String, Loc)>,
    /// `do_verify=0`: fio writes headers and skips its verify phase.
    no_verify_phase: Option<Loc>,
    only: Option<Loc>,
    fatal: Option<Loc>,
    /// `verify_pattern`, as `0x` hex.
    pattern: Option<(String, Loc)>,
    state_load: Option<Loc>,
    /// The pattern of the writing job a verify-only job was made from.
    read_for: Option<Rw>,
}

impl FioVerify {
    fn on(&self) -> bool {
        self.kind.as_ref().is_some_and(|(k, _)| k != "null")
    }
}

impl Translator<'_> {
    pub(super) fn apply_verify(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let at = e.loc.clone();
        let value = || e.value.as_deref().map(str::trim).unwrap_or("");
        // fio's booleans here take a bare name as 1.
        let flag = || match e.value.as_deref() {
            None => Ok(true),
            Some(v) => fio_bool(v).map_err(|w| value_err(e, w)),
        };
        let v = &mut j.verify;
        match e.key.as_str() {
            _ if e.is(Opt::Verify) => {
                let word = value().to_ascii_lowercase();
                v.kind = match word.as_str() {
                    "0" | "none" => None,
                    w if KINDS.contains(&w) || w == "null" => Some((word, at)),
                    _ => {
                        return Err(value_err(
                            e,
                            format!(
                                "'{}' is not one of fio's verify kinds (0, {}, null)",
                                value(),
                                KINDS.join(", ")
                            ),
                        ));
                    }
                };
            }
            "do_verify" => v.no_verify_phase = (!flag()?).then_some(at),
            "verify_only" => v.only = flag()?.then_some(at),
            "verify_fatal" => v.fatal = flag()?.then_some(at),
            "verify_pattern" => {
                let bytes = parse_pattern(value()).map_err(|w| {
                    if let Some(why) = w.strip_prefix("unsupported: ") {
                        unsupported_value(e, why)
                    } else {
                        value_err(e, w)
                    }
                })?;
                v.pattern = Some((pattern_hex(&bytes), at));
            }
            // fio's default is 1, and it saves state only when a job is cut short.
            "verify_state_save" => {
                flag()?;
            }
            "verify_state_load" => v.state_load = flag()?.then_some(at),
            k if NOTED.iter().any(|(n, _)| *n == k) => {
                let why = NOTED.iter().find(|(n, _)| *n == k).map_or("", |(_, w)| w);
                self.note(&at, format!("{k}: accepted; {why}"));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A verify-only job reads what the job that wrote wrote: fio replays
    /// the write job's offsets; kura reads the span once in order, which
    /// checks every block a job that covered its span wrote.
    pub(super) fn verify_only_job(f: &FioJob) -> Option<FioJob> {
        if !f.verify.on() || f.verify.only.is_none() || matches!(f.rw.0, Rw::Read | Rw::RandRead) {
            return None;
        }
        let mut read = f.clone();
        read.rw.0 = Rw::Read;
        read.verify.read_for = Some(f.rw.0);
        // Reads of the blocks the writes wrote, in the writes' sizes.
        if f.bs.write.is_some() {
            read.bs.read = f.bs.write.clone();
        }
        if f.bssplit.write.is_some() {
            read.bssplit.read = f.bssplit.write.clone();
        }
        read.extras.clear_create_on_open();
        Some(read)
    }

    /// Sets kura's verify on `job`, after its pattern and amount are set.
    pub(super) fn build_verify(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let set = |job: &mut Job, opt: Opt, value: Value, loc: &Loc| {
            job.apply(opt, value).map_err(|e| loc.error(e.to_string()))
        };
        let v = &f.verify;
        let Some((kind, loc)) = &v.kind else {
            return Ok(());
        };
        if kind == "null" {
            self.note(
                loc,
                "verify=null: fio pretends to verify (it reads back and checks nothing); kura does not verify"
                    .into(),
            );
            return Ok(());
        }
        if let Some(at) = &v.state_load {
            return Err(at.error(
                "unsupported: verify_state_load=1: kura checks against its own journal, not fio's verify state \
                 files; run the writing job and this one with `kura run --journal FILE`",
            ));
        }
        set(job, Opt::Verify, Value::Bool(true), loc)?;
        let header_text = if kind == "pattern" {
            "compares its own header and a CRC32 of the block, pattern included, instead of the bare pattern"
                .to_string()
        } else {
            format!(
                "writes its own 48-byte header with a CRC32 of the block instead of fio's header and {kind}"
            )
        };
        self.note(
            loc,
            format!(
                "verify={kind}: kura {header_text} (docs/verify.md); data fio wrote does not verify in kura"
            ),
        );
        if let Some((p, at)) = &v.pattern
            && job.does_writes()
        {
            set(job, Opt::BufferPattern, Value::Text(p.clone()), at)?;
        }
        if let Some(at) = &v.fatal {
            set(job, Opt::MaxErrors, Value::Count(1), at)?;
        }
        if let Some(at) = &v.no_verify_phase
            && job.does_writes()
        {
            self.note(
                at,
                "do_verify=0: kura reads a verifying job's writes back after it anyway, outside the measured time"
                    .into(),
            );
        }
        if let Some(at) = &v.only {
            let became = v
                .read_for
                .map(|rw| format!(" (rw={} becomes read)", rw.name()))
                .unwrap_or_default();
            self.note(
                at,
                format!(
                    "{}: verify_only: kura reads the span once in order and checks every block it reads{became}; \
                     fio replays the writing job's own offsets",
                    f.name
                ),
            );
        }
        Ok(())
    }
}
