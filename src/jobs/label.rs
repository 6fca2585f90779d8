//! Run labels: the names a person gives runs and later selects them by.
//! A label that reads as another selector (a run id, `latest`) could never
//! be selected, and one with control characters would rewrite the terminal
//! it is printed on, one with a bidi override reorder the row it is shown
//! in; all are refused where a label is given.

use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum LabelError {
    #[error(
        "label '{0}' reads as a run id: selecting it would find run {0}, never this label; add a word, e.g. 'disk {0}'"
    )]
    RunId(String),
    #[error("label 'latest' names the newest run: a run labelled so could never be selected by its label")]
    Latest,
    #[error("a label cannot contain control characters (line breaks, tabs, escape sequences)")]
    Control,
    #[error(
        "a label cannot contain bidi controls (U+202A to U+202E, U+2066 to U+2069): they make the text after them read in another order"
    )]
    Bidi,
}

/// `text` as a label, or why it cannot be one.
pub fn parse_label(text: &str) -> Result<String, LabelError> {
    if text == "latest" {
        return Err(LabelError::Latest);
    }
    // What the store takes for a run id before it looks at labels.
    if text.parse::<i64>().is_ok() {
        return Err(LabelError::RunId(text.to_string()));
    }
    if text.chars().any(char::is_control) {
        return Err(LabelError::Control);
    }
    if text.chars().any(crate::report::escape::is_bidi_control) {
        return Err(LabelError::Bidi);
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_control_characters_are_refused() {
        for ok in ["Standard SSD E10", "disk 3", "Latest", "3.5", "", " 3", "ラベル"] {
            assert_eq!(parse_label(ok).as_deref(), Ok(ok));
        }
        assert_eq!(parse_label("latest"), Err(LabelError::Latest));
        for id in ["3", "-1", "+7", "007"] {
            assert_eq!(parse_label(id), Err(LabelError::RunId(id.into())));
        }
        for bad in ["a\nb", "a\rb", "\x1b[2J", "tab\there"] {
            assert_eq!(parse_label(bad), Err(LabelError::Control));
        }
        for bad in ["disk\u{202e}3 DSS", "\u{202a}a", "b\u{2066}", "\u{2069}"] {
            assert_eq!(parse_label(bad), Err(LabelError::Bidi));
        }
        assert_eq!(parse_label("a\u{200f}b").as_deref(), Ok("a\u{200f}b"));
    }
}
