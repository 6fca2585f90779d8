//! User-provided text on the terminal: labels, job names, target paths and
//! imported names are shown with their control characters escaped, so that
//! a label cannot move the cursor, overwrite a line or start a new one, nor
//! a bidi override make the text after it read backwards.

use std::borrow::Cow;

/// Unicode's bidi embeddings, overrides and isolates (U+202A to U+202E,
/// U+2066 to U+2069): printed raw, `run\u{202e}txt.exe` reads as
/// `runexe.txt`, and every column after it in the row is reordered.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// `text` with every control character (C0 such as ESC, CR and LF, DEL,
/// C1) and bidi control written as Rust writes it in a string literal:
/// `\u{1b}`, `\r`, `\n`, `\u{202e}`.
pub fn term(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The most characters of one name, label or path a table shows: a
/// 100,000-character job name made `history` 36 MB. What is stored is not
/// cut (`show --json` and CSV carry all of it).
pub const SHOWN_CHARS: usize = 120;

/// [`term`] of `text` cut to `max` characters, the cut marked with `…`.
pub fn term_cut(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => term(text),
        Some((end, _)) => {
            let mut out = term(&text[..end]).into_owned();
            out.push('…');
            Cow::Owned(out)
        }
    }
}

/// `text` (a path) as one shell word, quoted only when it must be, for a
/// command the user may paste (`rm -- PATH`, `kura import run FILE`).
pub fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@".contains(&b))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert_eq!(term("Standard SSD µs"), "Standard SSD µs");
        assert!(matches!(term("plain"), Cow::Borrowed(_)));
        assert_eq!(
            term("a\x1b[2Jb\rc\nd\u{9b}e\x7f"),
            "a\\u{1b}[2Jb\\rc\\nd\\u{9b}e\\u{7f}"
        );
        assert_eq!(
            term("run\u{202e}txt.exe \u{2066}x\u{2069} \u{202a}\u{2067}"),
            "run\\u{202e}txt.exe \\u{2066}x\\u{2069} \\u{202a}\\u{2067}"
        );
        // A directional mark and a joiner are kept: they set no direction for the text after them.
        assert_eq!(term("a\u{200e}b\u{200d}c"), "a\u{200e}b\u{200d}c");
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        assert_eq!(term_cut("short", 5), "short");
        assert_eq!(term_cut("abcdef", 3), "abc…");
        assert_eq!(term_cut("日本語テキスト", 3), "日本語…");
        assert_eq!(term_cut("a\x1bbcd", 2), "a\\u{1b}…");
    }
}
