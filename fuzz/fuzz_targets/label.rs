#![no_main]
//! A label that is accepted can be selected by name and printed safely:
//! not a run id, not `latest`, no control characters.

use kura::jobs::label::parse_label;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(label) = parse_label(&text) {
        assert!(label != "latest" && label.parse::<i64>().is_err());
        assert!(!label.chars().any(char::is_control));
    }
});
