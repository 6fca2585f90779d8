//! A test's measurement as a stored `JobResult`, and what the progress line
//! says a test is about to do.

use super::measured::Measured;
use crate::jobs::EngineKind;
use crate::jobs::Job;
use crate::jobs::bonnie_params::{BonnieSettings, FILES_DIR, Kind, Test};
use crate::metrics::{JobResult, TargetFacts};

const MIB: u64 = 1 << 20;

pub(super) fn job_result(job: &Job, test: Test, m: Measured, target: &TargetFacts) -> JobResult {
    let mut target = target.clone();
    if test.kind() == Kind::Files {
        target.path = std::path::Path::new(&target.path)
            .with_file_name(FILES_DIR)
            .display()
            .to_string();
        target.size_bytes = 0;
    }
    let elapsed = m.elapsed_ns;
    // The file tests count creates, stats or deletes, each under its own kind of operation.
    let mut operations = std::collections::BTreeMap::new();
    if let Some(op) = test.op() {
        let counted = if test.counts_writes() { &m.write } else { &m.read };
        operations.insert(op, counted.result(elapsed));
    }
    let io = test.op().is_none();
    JobResult {
        job: job.clone(),
        test: Some(test.name().to_string()),
        target,
        engine: EngineKind::Sync.name().to_string(),
        measure_start_unix_ms: 0,
        elapsed_ns: elapsed,
        ramp_ns: 0,
        read: (io && test.has_read()).then(|| m.read.result(elapsed)),
        write: (io && test.has_write()).then(|| m.write.result(elapsed)),
        operations,
        syncs: m.syncs,
        cpu_user_ns: m.cpu_user_ns,
        cpu_system_ns: m.cpu_system_ns,
        series: Vec::new(),
        incomplete: m.stopped || m.error.is_some(),
        cluster: None,
        device_io: None,
    }
}

pub(super) fn describe(cfg: &BonnieSettings, test: Test) -> String {
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / MIB as f64);
    match test {
        Test::PutChar => crate::t!("bonnie-step-put-char", size = mib(cfg.char_bytes)),
        Test::PutBlock => crate::t!(
            "bonnie-step-put-block",
            size = mib(cfg.size_bytes),
            block = cfg.chunk_bytes
        ),
        Test::Rewrite => crate::t!("bonnie-step-rewrite", size = mib(cfg.size_bytes)),
        Test::GetChar => crate::t!("bonnie-step-get-char", size = mib(cfg.char_bytes)),
        Test::GetBlock => crate::t!(
            "bonnie-step-get-block",
            size = mib(cfg.size_bytes),
            block = cfg.chunk_bytes
        ),
        Test::Seeks => crate::t!("bonnie-step-seeks", seeks = cfg.seeks, seekers = cfg.seekers),
        _ => crate::t!("bonnie-step-files", files = cfg.files),
    }
}
