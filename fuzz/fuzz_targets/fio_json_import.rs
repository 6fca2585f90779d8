#![no_main]
//! Any text must give a run or an error from `kura import fio`'s reader,
//! never a panic; a run it accepts has no negative or non-finite numbers.

use kura::import::fio_json::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(run) = parse(&text, "fuzz.json") {
        for job in &run.jobs {
            assert!(job.job.read_pct <= 100);
            for d in job.read.iter().chain(job.write.iter()) {
                for x in [d.iops, d.bytes_per_sec, d.lat_ns.mean, d.lat_ns.stddev] {
                    assert!(x.is_finite() && x >= 0.0, "{x}");
                }
            }
        }
    }
});
