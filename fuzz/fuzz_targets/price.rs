#![no_main]
//! Any text gives a price or an error, never a panic; a price is finite.

use kura::jobs::price::Price;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = Price::parse(&text) {
        assert!(p.monthly().is_finite(), "{text:?}");
    }
});
