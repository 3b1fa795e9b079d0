//! Strangers' text as a person reads it: in the terminal (the summary, notes, warnings and
//! errors on standard error, `check` and `explain` on standard output) and on the page.
//!
//! A user-agent, a path, a host, a robots.txt line, a PTR name or a string of a report
//! directory's `state.json` may hold any character. Shown to a person:
//!
//! - every control character (C0, DEL and C1, which terminals act on: an escape sequence can
//!   recolour, retitle or clear the terminal, a line feed can fake a line of the tool's own) is
//!   written visibly: `\x1b` for an ASCII one, as the CSVs write control bytes, `\u{9b}` for a
//!   C1 one, which is a character of its own in UTF-8;
//! - so is every character that reorders or breaks the text around it ([`is_hidden`]): a
//!   bidirectional control (U+202E shows the rest of the line backwards, so a count of `12`
//!   after a name reads `21`) and the line and paragraph separators, as `\u{202e}`;
//! - in a table or a note, where one name must not push everything else off the screen or make
//!   the page large, the text is also cut to a number of characters and marked `…`.
//!
//! Nothing else changes: the page's template escapes markup itself, and the CSVs follow their
//! own rule (`src/report/cells.rs`).

use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// The characters of a stranger's string a note or the page shows; the rest is cut and marked
/// `…`.
pub const SHOWN_CHARS: usize = 200;

/// Whether `c` is written visibly: a control character (C0, DEL, C1), or one that changes
/// how the text around it is laid out without showing itself: the bidirectional controls
/// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the line and paragraph
/// separators (U+2028, U+2029).
#[inline]
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// A [hidden](is_hidden) character as it is written visibly, wherever it is: `\x1b` for an
/// ASCII control (two lower-case hex digits, as the CSVs write control bytes), `\u{202e}` for
/// any other.
#[derive(Debug, Clone, Copy)]
pub struct Escaped(pub char);

impl fmt::Display for Escaped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = u32::from(self.0);
        if self.0.is_ascii() {
            write!(f, "\\x{code:02x}")
        } else {
            write!(f, "\\u{{{code:x}}}")
        }
    }
}

/// `text` with each [hidden](is_hidden) character written visibly, whole. Borrows `text` when
/// it holds none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(cut(text, usize::MAX))
}

/// `json` (serialised by `serde_json`, which escapes the C0 controls of its strings) with
/// every other [hidden](is_hidden) character escaped as JSON escapes it, `\u007f`, `\u009b`,
/// `\u202e`: the same value for a program, nothing that acts on a terminal for a person.
/// Outside its strings, JSON text is ASCII (a C0 control there is the line feed and indent of
/// pretty output, left alone), so each such character is inside a string, where the escape is
/// valid. Borrows `json` when it holds none.
pub fn json_visible(json: &str) -> Cow<'_, str> {
    let escaped = |c: char| !c.is_ascii_control() && is_hidden(c) || c == '\u{7f}';
    if !json.chars().any(escaped) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if escaped(c) {
            // Every hidden character is in the Basic Multilingual Plane: one `\uXXXX`.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as a note or the page shows it: [`visible`], at most [`SHOWN_CHARS`] characters of
/// it, then `…` when cut.
pub fn shown(text: &str) -> String {
    cut(text, SHOWN_CHARS)
}

/// `text` [`visible`], at most `chars` characters of the original, then `…` when cut.
pub fn cut(text: &str, chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(chars.saturating_mul(4)));
    for (count, c) in text.chars().enumerate() {
        if count == chars {
            out.push('…');
            break;
        }
        if is_hidden(c) {
            // Writing to a String cannot fail.
            let _ = write!(out, "{}", Escaped(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strangers_text_is_visible_and_bounded() {
        let cases = [
            ("plain", "plain".to_owned()),
            ("a\0b\tc\x7f", "a\\x00b\\x09c\\x7f".to_owned()),
            (
                "\x1b]0;title\x07\x1b[2J",
                "\\x1b]0;title\\x07\\x1b[2J".to_owned(),
            ),
            (
                "line\nverdict: allowed",
                "line\\x0averdict: allowed".to_owned(),
            ),
            ("c1 \u{9b}31m \u{85}", "c1 \\u{9b}31m \\u{85}".to_owned()),
            (
                "bidi \u{202e}21\u{202c} \u{2067}x\u{2069}\u{200f}\u{61c}",
                "bidi \\u{202e}21\\u{202c} \\u{2067}x\\u{2069}\\u{200f}\\u{61c}".to_owned(),
            ),
            ("a\u{2028}b\u{2029}c", "a\\u{2028}b\\u{2029}c".to_owned()),
            (
                "\u{200d}\u{2060}\u{feff}",
                "\u{200d}\u{2060}\u{feff}".to_owned(),
            ),
            ("<script>&\"'", "<script>&\"'".to_owned()),
            ("ü\u{FFFD}\u{a0}", "ü\u{FFFD}\u{a0}".to_owned()),
            (&"x".repeat(SHOWN_CHARS), "x".repeat(SHOWN_CHARS)),
            (
                &"é".repeat(SHOWN_CHARS + 1),
                format!("{}…", "é".repeat(SHOWN_CHARS)),
            ),
            (
                &"\x1b".repeat(SHOWN_CHARS + 1),
                format!("{}…", "\\x1b".repeat(SHOWN_CHARS)),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(shown(text), want, "{text:?}");
        }
    }

    #[test]
    fn visible_text_is_whole_and_borrowed_when_clean() {
        let long = "a".repeat(SHOWN_CHARS * 2);
        assert!(matches!(visible(&long), Cow::Borrowed(_)));
        assert_eq!(visible(&format!("{long}\x1b")), format!("{long}\\x1b"));
        assert_eq!(cut("abc\x07def", 4), "abc\\x07…");
        assert_eq!(cut("abc", 0), "…");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn json_keeps_its_values_and_hides_nothing() {
        let value = serde_json::json!({
            "ua": "a\u{1b}[2J\u{7f}\u{9b}31m\u{202e}21\u{2028}\"\\ü",
            "plain": "x",
        });
        for text in [
            value.to_string(),
            serde_json::to_string_pretty(&value).unwrap(),
        ] {
            let shown = json_visible(&text);
            assert!(!shown.chars().any(|c| is_hidden(c) && c != '\n'), "{shown}");
            assert!(shown.contains(r"\u007f\u009b31m\u202e21\u2028"), "{shown}");
            let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
            assert_eq!(back, value);
        }
        assert!(matches!(json_visible("{\"a\":\"b\"}"), Cow::Borrowed(_)));
    }

    /// `shown` text read back: each `\xHH` and `\u{H..}` as the character it stands for.
    fn read_back(shown: &str) -> String {
        let mut out = String::new();
        let mut rest = shown;
        while let Some(at) = rest.find('\\') {
            out.push_str(&rest[..at]);
            let escape = &rest[at..];
            let (hex, len) = match escape.strip_prefix("\\u{") {
                Some(after) => {
                    let close = after.find('}').unwrap();
                    (&after[..close], 4 + close)
                }
                None => (&escape[2..4], 4),
            };
            out.push(char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap());
            rest = &escape[len..];
        }
        out.push_str(rest);
        out
    }

    proptest::proptest! {
        /// Whatever the text (without backslashes, so that the escapes read back), what is
        /// shown holds no control character, and reads back as the text's first `chars`
        /// characters, then `…` when there were more.
        #[test]
        fn nothing_shown_acts_on_a_terminal(
            text in "[^\\\\…]*|[\\x00-\\x{a0}\\x{202a}-\\x{202e}\\x{2028}\\x{2029}&&[^\\\\]]*",
            chars in 0usize..50,
        ) {
            let out = cut(&text, chars);
            proptest::prop_assert!(!out.chars().any(is_hidden));
            let kept: String = text.chars().take(chars).collect();
            let (body, mark) = match out.strip_suffix('…') {
                Some(body) => (body, true),
                None => (out.as_str(), false),
            };
            proptest::prop_assert_eq!(read_back(body), kept);
            proptest::prop_assert_eq!(mark, text.chars().count() > chars);
        }
    }
}
