#![no_main]
//! Any text must give jobs or an error from the vdbench parser, never a
//! panic, also when every `include=` it names holds the same text.

use kura::jobs::jobfile::{Format, Sources, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = std::path::Path::new("fuzz.job");
    let _ = parse(Format::Vdbench, &text, path, false, &Sources::none());
    let same = |_: &std::path::Path| Ok(text.to_string());
    let sources = Sources {
        read: &same,
        env: &|_| None,
    };
    let _ = parse(Format::Vdbench, &text, path, true, &sources);
});
