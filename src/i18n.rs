//! The language of everything a person reads: one catalogue of messages per
//! language (Project Fluent, `i18n/<lang>/kura.ftl`, built into the binary),
//! a process-wide language set once at start-up, and `t!` to look a message up.
//!
//! JSON and stored text stay English: `--json` runs in English, and a
//! warning's stored `text` is rendered `in_english`.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use fluent_bundle::FluentResource;
use fluent_bundle::concurrent::FluentBundle;
pub use fluent_bundle::{FluentArgs, FluentValue};

/// A language kura speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// English (the default)
    En,
    /// Japanese (日本語)
    Ja,
}

/// Each language's catalogue, as built into the binary.
pub const CATALOGUES: &[(Lang, &str)] = &[
    (Lang::En, include_str!("../i18n/en/kura.ftl")),
    (Lang::Ja, include_str!("../i18n/ja/kura.ftl")),
];

impl Lang {
    /// The language's code, as HTML's `lang` attribute takes it.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }
}

static LANG: AtomicU8 = AtomicU8::new(0);

thread_local! {
    static FORCED: Cell<Option<Lang>> = const { Cell::new(None) };
}

/// Sets the language for the rest of the process (`--lang`, or the locale).
pub fn set_lang(lang: Lang) {
    LANG.store(lang as u8, Ordering::Relaxed);
}

/// The language text is rendered in now.
pub fn lang() -> Lang {
    if let Some(lang) = FORCED.with(Cell::get) {
        return lang;
    }
    match LANG.load(Ordering::Relaxed) {
        1 => Lang::Ja,
        _ => Lang::En,
    }
}

/// `f` run with English text on this thread: what is stored or read by programs.
pub fn in_english<T>(f: impl FnOnce() -> T) -> T {
    let before = FORCED.with(|c| c.replace(Some(Lang::En)));
    let out = f();
    FORCED.with(|c| c.set(before));
    out
}

/// The language the locale asks for, as POSIX ranks its variables: the
/// first non-empty of `LC_ALL`, `LC_MESSAGES` and `LANG`; `ja` or `ja_*`
/// is Japanese, anything else English.
pub fn from_env() -> Lang {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let locale = get("LC_ALL")
        .or_else(|| get("LC_MESSAGES"))
        .or_else(|| get("LANG"));
    from_locale(locale.as_deref().unwrap_or(""))
}

fn from_locale(locale: &str) -> Lang {
    let name = locale.split(['.', '@']).next().unwrap_or("");
    if name == "ja" || name.starts_with("ja_") || name.starts_with("ja-") {
        Lang::Ja
    } else {
        Lang::En
    }
}

fn bundle(lang: Lang) -> &'static FluentBundle<FluentResource> {
    static BUNDLES: [OnceLock<FluentBundle<FluentResource>>; 2] = [OnceLock::new(), OnceLock::new()];
    BUNDLES[lang as usize].get_or_init(|| {
        let (id, text) = match lang {
            Lang::En => ("en", CATALOGUES[0].1),
            Lang::Ja => ("ja", CATALOGUES[1].1),
        };
        let resource = FluentResource::try_new(text.to_string())
            .unwrap_or_else(|(_, errors)| panic!("i18n/{id}/kura.ftl does not parse: {errors:?}"));
        let mut bundle = FluentBundle::new_concurrent(vec![id.parse().expect("a language id")]);
        // Terminals show the isolation marks Fluent puts around arguments as stray characters.
        bundle.set_use_isolating(false);
        bundle
            .add_resource(resource)
            .unwrap_or_else(|errors| panic!("i18n/{id}/kura.ftl: {errors:?}"));
        bundle
    })
}

/// The message `id` in the current language, with `args`; English when the
/// language lacks it, the id itself when no catalogue has it (a test makes
/// sure every id is in both).
pub fn tr(id: &str, args: Option<&FluentArgs>) -> String {
    let lang = lang();
    format_in(lang, id, args)
        .or_else(|| format_in(Lang::En, id, args))
        .unwrap_or_else(|| id.to_string())
}

fn format_in(lang: Lang, id: &str, args: Option<&FluentArgs>) -> Option<String> {
    let bundle = bundle(lang);
    let pattern = bundle.get_message(id)?.value()?;
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, args, &mut errors);
    Some(text.into_owned())
}

/// A table's column heading or title, given in English: its `col-` message
/// (`"lat min"` is `col-lat-min`) in the current language, or the text as it
/// is when the catalogue has none (units: MB/s, IOPS, p99).
pub fn heading(text: &str) -> String {
    phrase("col", text)
}

/// Like `heading`, for words other than column headings: the message
/// `PREFIX-SLUG` (`phrase("diff", "queue depth")` is `diff-queue-depth`) in
/// the current language, or the text as it is when there is none (names:
/// `rate_iops`, `xfersize`).
pub fn phrase(prefix: &str, text: &str) -> String {
    if lang() == Lang::En || text.is_empty() {
        return text.to_string();
    }
    let mut id = format!("{prefix}-");
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('-') {
            id.push('-');
        }
    }
    let id = id.trim_end_matches('-');
    format_in(lang(), id, None).unwrap_or_else(|| text.to_string())
}

/// A message of the catalogue in the current language:
/// `t!("mark-read")`, `t!("warning-sync-engine-queue-depth", job = job, qd = qd)`.
#[macro_export]
macro_rules! t {
    ($id:expr) => {
        $crate::i18n::tr($id, None)
    };
    ($id:expr, $($name:ident = $value:expr),+ $(,)?) => {
        // A match keeps the values' temporaries alive, as format_args! does.
        match ($($value,)+) {
            ($($name,)+) => {
                let mut args = $crate::i18n::FluentArgs::new();
                $(args.set(stringify!($name), $crate::i18n::FluentValue::from($name));)+
                $crate::i18n::tr($id, Some(&args))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    /// Each message id of a catalogue with the variables its text uses.
    fn messages(text: &str) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if !line.starts_with(' ')
                && let Some((id, _)) = line.split_once('=')
            {
                let id = id.trim().to_string();
                assert!(out.insert(id.clone(), BTreeSet::new()).is_none(), "{id} twice");
                current = Some(id);
            }
            let id = current.as_ref().expect("a line before any message");
            let vars = out.get_mut(id).unwrap();
            let mut rest = line;
            while let Some(at) = rest.find('$') {
                rest = &rest[at + 1..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(rest.len());
                vars.insert(rest[..end].to_string());
            }
        }
        out
    }

    #[test]
    fn every_message_is_in_both_languages_with_the_same_variables() {
        let en = messages(CATALOGUES[0].1);
        let ja = messages(CATALOGUES[1].1);
        assert!(en.len() > 20, "{}", en.len());
        for (id, vars) in &en {
            assert_eq!(
                ja.get(id),
                Some(vars),
                "{id}: Japanese lacks it or differs in variables"
            );
        }
        for id in ja.keys() {
            assert!(en.contains_key(id), "{id} is only in Japanese");
        }
        // Both parse, and every message formats without an error.
        for lang in [Lang::En, Lang::Ja] {
            let b = bundle(lang);
            for id in en.keys() {
                assert!(b.get_message(id).and_then(|m| m.value()).is_some(), "{id}");
            }
        }
    }

    /// Every id the code looks up (a literal such as `"mark-read"` in a file
    /// that calls `t!`) is in the catalogue: a typo would show the id itself.
    #[test]
    fn every_id_the_code_uses_is_in_the_catalogue() {
        let en = messages(CATALOGUES[0].1);
        let prefixes: BTreeSet<&str> = en.keys().filter_map(|id| id.split('-').next()).collect();
        let mut files = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut checked = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if path.extension().is_none_or(|e| e != "rs") || !text.contains("t!(") {
                continue;
            }
            for quoted in text.split('"').skip(1).step_by(2) {
                let ok = quoted.contains('-')
                    && quoted
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && prefixes.contains(quoted.split('-').next().unwrap());
                if ok && !quoted.starts_with("col-") {
                    assert!(
                        en.contains_key(quoted),
                        "{}: \"{quoted}\" is not in i18n/en/kura.ftl",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn the_locale_picks_japanese_only_for_ja() {
        assert_eq!(from_locale("ja_JP.UTF-8"), Lang::Ja);
        assert_eq!(from_locale("ja"), Lang::Ja);
        assert_eq!(from_locale("en_US.UTF-8"), Lang::En);
        assert_eq!(from_locale("C.UTF-8"), Lang::En);
        assert_eq!(from_locale(""), Lang::En);
        assert_eq!(from_locale("jam"), Lang::En);
    }

    #[test]
    fn english_can_be_forced_on_one_thread() {
        FORCED.with(|c| c.set(Some(Lang::Ja)));
        assert_eq!(t!("mark-read"), "読み込み");
        assert_eq!(in_english(|| t!("mark-read")), "Read");
        assert_eq!(heading("lat min"), "最小遅延");
        assert_eq!(heading("MB/s"), "MB/s");
        assert_eq!(in_english(|| heading("lat min")), "lat min");
        FORCED.with(|c| c.set(None));
    }
}
