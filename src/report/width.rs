//! Output that fits an 80-column terminal: tables are laid out within
//! `COLUMNS` (80 unless wider), sentences are wrapped, and `--wide` lifts
//! the limit for those who want every column on one line.

use std::sync::atomic::{AtomicBool, Ordering};

/// The width text is wrapped to, and tables are fitted into.
pub const COLUMNS: usize = 80;

static WIDE: AtomicBool = AtomicBool::new(false);

/// `--wide`: tables keep their natural width and show their wide columns.
pub fn set_wide(wide: bool) {
    WIDE.store(wide, Ordering::Relaxed);
}

pub fn wide() -> bool {
    WIDE.load(Ordering::Relaxed)
}

/// Columns a terminal gives `text`: two for East Asian wide and full-width
/// characters, none for combining marks and zero-width joiners, one for the rest.
pub fn display_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    let u = c as u32;
    match u {
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// `text` wrapped at spaces to `COLUMNS`, the first line after `first`, the
/// others indented by `indent` spaces; a word longer than a line (a path)
/// stays whole on its own line; with `--wide`, one line. Ends with a newline.
pub fn wrap(first: &str, text: &str, indent: usize) -> String {
    if wide() {
        return format!("{first}{text}\n");
    }
    let mut out = String::from(first);
    let mut line = display_width(first);
    let mut at_start = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let w = display_width(word);
        if !at_start && line + 1 + w > COLUMNS {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = indent;
            at_start = true;
        }
        if !at_start {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += w;
        at_start = false;
    }
    out.push('\n');
    out
}

/// Every line of `text` wrapped as `wrap` does, continuation lines indented by `indent`.
pub fn wrap_lines(text: &str, indent: usize) -> String {
    text.lines().map(|l| wrap("", l, indent)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_lines_fit_and_keep_every_word() {
        let text = "buffered I/O on 16 MB of test data while the machine has 25276 MB of RAM: the page cache can hold it all, so the numbers may measure memory, not the device (use --direct, or a test file larger than RAM)";
        let out = wrap("warning: ", text, 2);
        assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
        assert!(out.lines().skip(1).all(|l| l.starts_with("  ")));
        let words: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(words[1..].join(" "), text);
        assert_eq!(display_width("µs ± · 漢字"), 11);
        let long = "x".repeat(100);
        assert_eq!(wrap("", &long, 2), format!("{long}\n"));
    }
}
