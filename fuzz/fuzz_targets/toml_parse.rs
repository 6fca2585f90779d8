#![no_main]
//! Any text must give jobs or an error from the TOML job-file reader, never a panic.

use kura::jobs::jobfile::{Format, Sources, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse(
        Format::Toml,
        &text,
        std::path::Path::new("fuzz.toml"),
        false,
        &Sources::none(),
    );
});
