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
//! - in a table or a note, where one name must not push everything else off the screen or make
//!   the page large, the text is also cut to a number of characters and marked `…`.
//!
//! Nothing else changes: the page's template escapes markup itself, and the CSVs follow their
//! own rule (`src/report/cells.rs`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// The characters of a stranger's string a note or the page shows; the rest is cut and marked
/// `…`.
pub const SHOWN_CHARS: usize = 200;

/// `text` with each control character written visibly, whole. Borrows `text` when it holds
/// none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(cut(text, usize::MAX))
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
        // Writing to a String cannot fail.
        if c.is_ascii_control() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else if c.is_control() {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
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
            text in "[^\\\\…]*|[\\x00-\\x{a0}&&[^\\\\]]*",
            chars in 0usize..50,
        ) {
            let out = cut(&text, chars);
            proptest::prop_assert!(!out.chars().any(char::is_control));
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
