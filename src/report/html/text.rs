//! Strangers' text as the page shows it, and the notes that say what a capped table left out.
//!
//! Every string that comes from a log or a robots.txt file (a user-agent, a path, a host, a
//! rule) is shown through [`shown`]: control characters written visibly, as the CSVs write
//! them, and cut to [`SHOWN_CHARS`] characters, so that a 4 MiB header cannot make the page
//! large. The template escapes what it prints; these functions never produce markup.

use std::fmt::Write as _;

/// The characters of a stranger's string the page shows; the rest is cut and marked `…`.
pub const SHOWN_CHARS: usize = 200;

/// `text` as the page shows it: each control character as `\xHH` (as the CSVs write control
/// bytes), at most [`SHOWN_CHARS`] characters, then `…` when cut.
pub fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(SHOWN_CHARS * 4));
    for (count, c) in text.chars().enumerate() {
        if count == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if c.is_ascii_control() {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// What a table of `what` shows of `total` rows: "Top 100 of 2000 bots, by violations." when it
/// is capped at `shown`, "All 12 bots." when it is not, "The only bot." or "No bots." (`what` is
/// plural, its first word ending in `s` the noun).
pub fn cap_note(shown: usize, total: usize, what: &str, order: &str) -> String {
    if total == 0 {
        format!("No {what}.")
    } else if total == 1 && shown == 1 {
        format!("The only {}.", singular(what))
    } else if shown < total {
        format!("Top {shown} of {total} {what}, {order}.")
    } else {
        format!("All {total} {what}.")
    }
}

/// `what` with its first word that ends in `s` made singular: `origins with unjudged
/// requests` -> `origin with unjudged requests`, `violated rules` -> `violated rule`.
fn singular(what: &str) -> String {
    let mut done = false;
    let words: Vec<&str> = what
        .split(' ')
        .map(|word| match word.strip_suffix('s') {
            Some(one) if !done => {
                done = true;
                one
            }
            _ => word,
        })
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strangers_text_is_visible_and_bounded() {
        let cases = [
            ("plain", "plain".to_owned()),
            ("a\0b\tc\x7f", "a\\x00b\\x09c\\x7f".to_owned()),
            ("<script>&\"'", "<script>&\"'".to_owned()),
            ("ü\u{FFFD}", "ü\u{FFFD}".to_owned()),
            (&"x".repeat(SHOWN_CHARS), "x".repeat(SHOWN_CHARS)),
            (
                &"é".repeat(SHOWN_CHARS + 1),
                format!("{}…", "é".repeat(SHOWN_CHARS)),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(shown(text), want, "{text:?}");
        }
    }

    #[test]
    fn notes_say_what_was_left_out() {
        assert_eq!(
            cap_note(100, 2000, "bots", "by violations"),
            "Top 100 of 2000 bots, by violations."
        );
        assert_eq!(cap_note(12, 12, "bots", "by violations"), "All 12 bots.");
        assert_eq!(cap_note(0, 0, "bots", "by violations"), "No bots.");
        let only = [
            ("inputs", "The only input."),
            ("violated rules", "The only violated rule."),
            (
                "origins with unjudged requests",
                "The only origin with unjudged requests.",
            ),
            (
                "bot, origin and delay rows with early requests",
                "The only bot, origin and delay row with early requests.",
            ),
        ];
        for (what, note) in only {
            assert_eq!(cap_note(1, 1, what, "by requests"), note);
        }
    }
}
