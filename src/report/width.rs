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
/// characters, none for combining marks and zero-width joiners, one for the
/// rest (the `unicode-width` crate, as comfy-table counts its cells).
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
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
        // Japanese has no spaces: a word of wide characters breaks between them.
        let mut word = word;
        while !at_start && line + 1 + display_width(word) > COLUMNS && has_wide(word) {
            let Some((head, tail)) = split_to_fit(word, COLUMNS.saturating_sub(line + 1)) else {
                // No break fits here: the word starts the next line.
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                line = indent;
                at_start = true;
                break;
            };
            out.push(' ');
            out.push_str(head);
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = indent;
            at_start = true;
            word = tail;
        }
        while at_start && line + display_width(word) > COLUMNS && has_wide(word) {
            let Some((head, tail)) = split_to_fit(word, COLUMNS.saturating_sub(line)) else {
                break;
            };
            out.push_str(head);
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = indent;
            word = tail;
        }
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

fn has_wide(word: &str) -> bool {
    display_width(word) > word.chars().count()
}

/// Katakana, the long-vowel mark with them: a run of them is one word
/// (`バッファード`), never broken across lines.
fn katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}')
}

/// `word` cut where its head fills at most `room` columns, at a character
/// boundary where Japanese allows a break (not before 、。）」 and the like,
/// not after （「, not inside a katakana word); None when no head fits.
fn split_to_fit(word: &str, room: usize) -> Option<(&str, &str)> {
    const NO_START: &str = "、。，．）」』】〕・ー…ぁぃぅぇぉっゃゅょァィゥェォッャュョ:;,.)]%";
    const NO_END: &str = "（「『【〔([";
    let mut best = None;
    let mut used = 0;
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    for (i, &(_, c)) in chars.iter().enumerate() {
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used > room {
            break;
        }
        let Some(&(next_at, next)) = chars.get(i + 1) else {
            break;
        };
        let wide_edge = display_width(&c.to_string()) == 2 || display_width(&next.to_string()) == 2;
        let one_word = katakana(c) && katakana(next);
        if wide_edge && !one_word && !NO_START.contains(next) && !NO_END.contains(c) {
            best = Some(next_at);
        }
    }
    best.map(|at| word.split_at(at))
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

    #[test]
    fn japanese_breaks_between_characters_and_not_before_a_full_stop() {
        let text = "テストデータ 4 MB に対しバッファード I/O、マシンの RAM は 25276 MB: ページキャッシュに全部入るので、数値はデバイスではなくメモリを測っているかもしれない（--direct を使うか、RAM より大きいテストファイルを使う）";
        let out = wrap("警告: ", text, 2);
        assert!(out.lines().count() > 1, "{out}");
        assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
        assert!(
            out.lines()
                .skip(1)
                .all(|l| l.starts_with("  ") && !l.trim_start().starts_with(['、', '。', '）'])),
            "{out}"
        );
        let joined: String = out.lines().map(str::trim_start).collect::<Vec<_>>().join("");
        assert_eq!(joined.replace(' ', ""), format!("警告:{text}").replace(' ', ""));
    }

    /// bonnie's line under its title broke `バッファード` into `バッファー` and `ド`.
    #[test]
    fn a_katakana_word_is_never_broken() {
        for pad in 0..40 {
            let text = format!(
                "/mnt/{} (ext4) · 1.0 GiB のファイル、小ファイル 16384 個、バッファード、シーケンシャル",
                "d".repeat(pad)
            );
            let out = wrap("", &text, 2);
            assert!(out.lines().all(|l| display_width(l) <= COLUMNS), "{out}");
            for word in ["バッファード", "シーケンシャル", "ファイル"] {
                assert_eq!(out.matches(word).count(), text.matches(word).count(), "{out}");
            }
        }
    }
}
