//! fio's strided zones (`zonemode=strided`, `zonesize`, `zonerange`,
//! `zoneskip`), read with fio 3.33's meaning (HOWTO.rst); the zoned-device
//! options, which change nothing without `zonemode=zbd`, are accepted.

use super::{Entry, FioJob, FormatError, Loc, Translator, fio_number, unsupported_value, value_err};
use crate::jobs::Job;
use crate::jobs::options::{Opt, Value};

/// What a fio job said about zones, each with where.
#[derive(Debug, Clone, Default)]
pub(super) struct FioZones {
    /// `zonemode`: `Some(true)` strided, `Some(false)` none; unset: strided when zonesize is given.
    strided: Option<bool>,
    /// zonesize, zonerange, zoneskip.
    zones: [Option<(u64, Loc)>; 3],
}

/// fio's zoned-device options, which change nothing without `zonemode=zbd`.
const ZBD_ONLY: &[&str] = &[
    "max_open_zones",
    "job_max_open_zones",
    "read_beyond_wp",
    "zonecapacity",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "ignore_zone_limits",
];

impl Translator<'_> {
    pub(super) fn apply_zones(&mut self, j: &mut FioJob, e: &Entry) -> Result<bool, FormatError> {
        let at = e.loc.clone();
        let value = || e.value.as_deref().map(str::trim).unwrap_or("");
        match e.key.as_str() {
            "zonemode" => {
                j.zones.strided = match value().to_ascii_lowercase().as_str() {
                    "none" => Some(false),
                    "strided" => Some(true),
                    "zbd" => {
                        return Err(unsupported_value(
                            e,
                            "kura does not model a zoned block device (write pointers, zone resets, open-zone \
                             limits); on a conventional device or a file, remove zonemode to run the same \
                             pattern without zones",
                        ));
                    }
                    _ => return Err(value_err(e, "expected none, strided or zbd (fio's words)")),
                }
            }
            _ if [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
                .iter()
                .any(|o| e.is(*o)) =>
            {
                let i = [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
                    .iter()
                    .position(|o| e.is(*o))
                    .unwrap_or(0);
                let n = fio_number(value(), j.kb_base).map_err(|w| value_err(e, w))?;
                j.zones.zones[i] = Some((n, at));
            }
            k if ZBD_ONLY.contains(&k) => {}
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// fio's strided zones (`zonemode=strided`, or zonesize without a zonemode).
    pub(super) fn build_zones(&mut self, f: &FioJob, job: &mut Job) -> Result<(), FormatError> {
        let m = &f.zones;
        let size = m.zones[0].as_ref().filter(|(n, _)| *n > 0);
        if m.strided == Some(false) || size.is_none() {
            return Ok(());
        }
        for (opt, given) in [Opt::ZoneSize, Opt::ZoneRange, Opt::ZoneSkip]
            .into_iter()
            .zip(&m.zones)
        {
            if let Some((n, loc)) = given
                && *n > 0
            {
                job.apply(opt, Value::Bytes(*n))
                    .map_err(|e| loc.error(e.to_string()))?;
            }
        }
        Ok(())
    }
}
