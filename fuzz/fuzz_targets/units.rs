#![no_main]
//! Sizes and durations: any text parses or errors, never panics, and what a
//! size or duration formats to parses back to the same value.

use kura::jobs::units::{format_duration, format_size, parse_duration, parse_size};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(bytes) = parse_size(&text) {
        assert_eq!(parse_size(&format_size(bytes)).ok(), Some(bytes), "{text:?}");
    }
    if let Ok(d) = parse_duration(&text) {
        let _ = parse_duration(&format_duration(d));
    }
});
