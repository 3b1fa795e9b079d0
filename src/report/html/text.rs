//! The notes under the page's capped tables, which say what a table left out.
//!
//! Strangers' text on the page (a user-agent, a path, a host, a rule) goes through
//! [`crate::shown::shown`]: control characters written visibly, and cut to
//! [`crate::shown::SHOWN_CHARS`] characters, so that a 4 MiB header cannot make the page large.
//! The template escapes what it prints; nothing here produces markup.

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
