//! File-system definitions (`fsd=`, `fwd=`): checked here, handed to
//! `vdbench_fs` to run as file-set jobs.

use super::definitions::open_flags;
use super::interpret::{Interpreter, names, unknown};
use super::keywords::{FSD_KEYS, FWD_KEYS};
use super::lex::{Entry, which};
use crate::jobs::reading::FormatError;

/// An entry's parameters by full keyword, for `vdbench_fs`.
pub(super) fn fs_params(e: &Entry, keys: &[&str]) -> crate::jobs::vdbench_fs::Params {
    crate::jobs::vdbench_fs::Params(
        e.params
            .iter()
            .map(|p| {
                let key = which(&p.key, keys).unwrap_or(p.key.as_str()).to_string();
                (key, p.value.clone(), p.value_loc.clone())
            })
            .collect(),
    )
}

impl Interpreter {
    /// A file system definition: checked, not run.
    pub(super) fn fsd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        self.out.file_system = true;
        let mut anchor = false;
        for p in &e.params {
            match which(&p.key, FSD_KEYS) {
                Some("anchor") => anchor = true,
                Some("depth") | Some("width") | Some("files") => {
                    p.whole(0.0, 1e12)?;
                }
                Some("sizes") | Some("size") | Some("totalsize") | Some("workingsetsize") | Some("wss") => {
                    p.numbers()?;
                }
                Some("openflags") => {
                    open_flags(p)?;
                }
                Some(_) => {}
                None => return Err(unknown(p, "fsd")),
            }
        }
        if !is_default {
            if !anchor {
                return Err(e.loc.error(format!("fsd={}: no anchor= given", e.name)));
            }
            self.fsd_names.push(e.name.clone());
        }
        self.fs.fsd(&e.name, is_default, fs_params(e, FSD_KEYS));
        Ok(())
    }

    /// A file system workload: checked, not run.
    pub(super) fn fwd(&mut self, e: &Entry, is_default: bool) -> Result<(), FormatError> {
        self.out.file_system = true;
        let mut refs = Vec::new();
        for p in &e.params {
            match which(&p.key, FWD_KEYS) {
                Some("fsd") => refs = names(p)?,
                Some("xfersizes") | Some("xfersize") => {
                    p.numbers()?;
                }
                Some("threads") | Some("stopafter") => {
                    p.whole(0.0, 1e12)?;
                }
                Some("rdpct") | Some("skew") => {
                    p.pct()?;
                }
                Some("operation") => {
                    let ops = [
                        "read", "write", "create", "delete", "open", "close", "getattr", "setattr", "access",
                        "mkdir", "rmdir", "copy", "move",
                    ];
                    for op in p.items()? {
                        if !ops.contains(&op.to_ascii_lowercase().as_str()) {
                            return Err(p.err(format!("unknown operation '{op}'")));
                        }
                    }
                }
                Some("fileio") => {
                    let v = p.items()?.first().cloned().unwrap_or_default();
                    if !["random", "sequential"]
                        .iter()
                        .any(|k| k.starts_with(&v.to_ascii_lowercase()))
                    {
                        return Err(p.err("expected random or sequential"));
                    }
                }
                Some("openflags") => {
                    open_flags(p)?;
                }
                Some(_) => {}
                None => return Err(unknown(p, "fwd")),
            }
        }
        if !is_default {
            self.fwds.push((e.name.clone(), refs));
        }
        self.fs.fwd(&e.name, is_default, fs_params(e, FWD_KEYS));
        Ok(())
    }
}
