//! A User-Agent header read as words, the shape the declared-bot rule reasons about.
//!
//! Words are separated by whitespace and the comment punctuation `(`, `)`, `;` and `,`; each
//! word knows where it starts in the header and which top-level comment (parenthesised part) it
//! is in. Words in one comment (or both outside comments) separated by exactly one space form a
//! *phrase*: a product whose name has several words (`James BOT`, `Chef Client/10.18.2`,
//! `Gluten Free Crawler/1.0`). A phrase is read backwards from its last word, the head that
//! names the product, over the words before it that are plain names: no version, no contact,
//! no browser product. So a phrase never reaches into a comment, past a `;`, a `-` or a
//! product with a version, and its text is always a substring of the header.
//!
//! Invariant: words are in header order, and `start + text.len()` of a word is never past the
//! start of the next one. Unbalanced parentheses are tolerated: an unclosed comment runs to the
//! end of the header.

use crate::naming::{is_contact, is_name_byte, is_word_break, leading_name};

/// The most words a phrase has. Real multi-word names have up to six (`WPMU DEV Broken Link
/// Checker Spider`); the bound keeps a header of many words from minting a name as long as
/// itself.
const MAX_PHRASE_WORDS: usize = 6;

/// Products of browser user-agents, which a bot's own product follows (`Gecko` in
/// `... Gecko XML-Sitemaps/1.0`). Compared ignoring ASCII case.
const BROWSER_PRODUCTS: [&str; 17] = [
    "Mozilla",
    "AppleWebKit",
    "Gecko",
    "Chrome",
    "Safari",
    "Firefox",
    "Version",
    "Mobile",
    "Edg",
    "OPR",
    "Opera",
    "Trident",
    "Presto",
    "MSIE",
    "Thunderbird",
    "SeaMonkey",
    "Netscape",
];

/// A word of a user-agent and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    /// The word's bytes, between two word breaks.
    pub(crate) text: &'a [u8],
    /// Where it starts in the header.
    pub(crate) start: usize,
    /// The top-level comment it is in (numbered from 1), or 0 outside comments.
    pub(crate) comment: usize,
}

/// The words of one header, with the header they point into.
#[derive(Debug)]
pub(crate) struct Words<'a> {
    header: &'a [u8],
    words: Vec<Word<'a>>,
}

impl<'a> Words<'a> {
    /// Splits a header into words, numbering the top-level comments they are in.
    pub(crate) fn split(header: &'a [u8]) -> Words<'a> {
        let mut words = Vec::new();
        let mut depth = 0usize;
        let mut comments = 0usize;
        let mut start: Option<usize> = None;
        let mut current_comment = 0usize;
        for (at, &byte) in header.iter().enumerate() {
            if is_word_break(byte) {
                // A word belongs to the comment it was read in, before this byte opens or
                // closes one.
                if let Some((begin, text)) = start
                    .take()
                    .and_then(|begin| Some((begin, header.get(begin..at)?)))
                {
                    words.push(Word {
                        text,
                        start: begin,
                        comment: current_comment,
                    });
                }
                match byte {
                    b'(' => {
                        if depth == 0 {
                            comments += 1;
                            current_comment = comments;
                        }
                        depth += 1;
                    }
                    b')' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            current_comment = 0;
                        }
                    }
                    _ => {}
                }
            } else if start.is_none() {
                start = Some(at);
            }
        }
        if let Some((begin, text)) = start.and_then(|begin| Some((begin, header.get(begin..)?))) {
            words.push(Word {
                text,
                start: begin,
                comment: current_comment,
            });
        }
        Words { header, words }
    }

    /// The words, in header order.
    pub(crate) fn all(&self) -> &[Word<'a>] {
        &self.words
    }

    /// Whether the header is a browser's: it has a browser product with a version
    /// (`Mozilla/5.0`, `Gecko/20100101`) or Internet Explorer's `MSIE`.
    pub(crate) fn is_browsers(&self) -> bool {
        self.words.iter().any(|word| {
            leading_name(word.text).is_some_and(|(name, has_version)| {
                is_browser_product(name) && (has_version || name.eq_ignore_ascii_case("MSIE"))
            })
        })
    }

    /// The numbers of the `(compatible; ...)` comments.
    pub(crate) fn compatible_comments(&self) -> Vec<usize> {
        let mut comments: Vec<usize> = self
            .words
            .iter()
            .filter(|word| word.comment != 0 && word.text.eq_ignore_ascii_case(b"compatible"))
            .map(|word| word.comment)
            .collect();
        comments.dedup();
        comments
    }

    /// The name of the product whose head is the word at `head` (see the module docs): the
    /// head's own name alone, or with the plain words before it. `None` when the head has no
    /// name.
    pub(crate) fn phrase(&self, head: usize) -> Option<Phrase<'a>> {
        let word = self.words.get(head)?;
        let (name, _) = leading_name(word.text)?;
        // `leading_name` starts at the first name byte.
        let name_start = word.start + word.text.iter().position(|&b| is_name_byte(b))?;
        let mut first = head;
        // A name that does not start its word (`+Foo`) has punctuation before it: no phrase.
        if name_start == word.start {
            while first > 0 && head - first + 1 < MAX_PHRASE_WORDS && self.joins(first - 1) {
                first -= 1;
            }
        }
        let start = if first == head {
            name_start
        } else {
            self.words.get(first).map_or(name_start, |word| word.start)
        };
        let text = self.header.get(start..name_start + name.len())?;
        // Name bytes and single spaces only: ASCII.
        let text = std::str::from_utf8(text).ok()?;
        Some(Phrase { text, first, head })
    }

    /// The head of the product that the plain word at `at` starts: the first word with a version
    /// it runs into through single spaces (`Client/10.18.2` for `Chef` in
    /// `Chef Client/10.18.2`), else the word itself.
    pub(crate) fn versioned_head(&self, at: usize) -> usize {
        let mut next = at;
        while next + 1 - at < MAX_PHRASE_WORDS && self.joins(next) {
            next += 1;
            let has_version = self
                .words
                .get(next)
                .and_then(|word| leading_name(word.text))
                .is_some_and(|(_, has_version)| has_version);
            if has_version {
                return next;
            }
        }
        at
    }

    /// Whether the word at `at` is a plain name that belongs to the phrase of the word after
    /// it: in the same comment, one space before it, all name bytes ending in a letter or
    /// digit, and neither a contact nor a browser product.
    fn joins(&self, at: usize) -> bool {
        let (Some(word), Some(next)) = (self.words.get(at), self.words.get(at + 1)) else {
            return false;
        };
        let end = word.start + word.text.len();
        word.comment == next.comment
            && self.header.get(end..next.start) == Some(b" ")
            && word.text.iter().all(|&b| is_name_byte(b))
            && word.text.last().is_some_and(u8::is_ascii_alphanumeric)
            && !is_contact(word.text)
            && std::str::from_utf8(word.text)
                .is_ok_and(|text| !is_browser_product(text) && text != "compatible")
    }
}

/// A product's name of one or more words (see [`Words::phrase`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Phrase<'a> {
    /// The name as the header writes it: words separated by single spaces.
    pub(crate) text: &'a str,
    /// The index of its first word.
    pub(crate) first: usize,
    /// The index of its last word, the head.
    pub(crate) head: usize,
}

/// Whether `name` is a browser's product (`Mozilla`, `Gecko`, `MSIE`, ...), ignoring case.
pub(crate) fn is_browser_product(name: &str) -> bool {
    BROWSER_PRODUCTS
        .iter()
        .any(|product| name.eq_ignore_ascii_case(product))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(header: &str) -> Vec<(&str, usize)> {
        Words::split(header.as_bytes())
            .all()
            .iter()
            .map(|word| (std::str::from_utf8(word.text).unwrap(), word.comment))
            .collect()
    }

    #[test]
    fn words_and_comments() {
        assert_eq!(
            texts("Mozilla/5.0 (compatible; FooBot/1.0; +http://x) Gecko (a (b) c) d"),
            [
                ("Mozilla/5.0", 0),
                ("compatible", 1),
                ("FooBot/1.0", 1),
                ("+http://x", 1),
                ("Gecko", 0),
                ("a", 2),
                ("b", 2),
                ("c", 2),
                ("d", 0),
            ]
        );
        assert_eq!(texts("((("), []);
        assert_eq!(texts("a (b"), [("a", 0), ("b", 1)]);
    }

    #[test]
    fn phrases() {
        // (header, the head word's index, the phrase).
        let cases: &[(&str, usize, Option<&str>)] = &[
            ("James BOT - WebCrawler", 1, Some("James BOT")),
            ("Firefox/2.0 - James BOT", 3, Some("James BOT")),
            (
                "Mozilla/5.0 (compatible; ETI SEO bot)",
                4,
                Some("ETI SEO bot"),
            ),
            ("Chef Client/10.18.2 (ruby)", 1, Some("Chef Client")),
            (
                "Mozilla/5.0 (X11) Gecko XML-Sitemaps/1.0",
                3,
                Some("XML-Sitemaps"),
            ),
            ("a; Kangaroo Bot/1.0", 2, Some("Kangaroo Bot")),
            ("Foo  Bot", 1, Some("Bot")),
            ("(Foo) Bot", 1, Some("Bot")),
            ("www.foo.com Bot", 1, Some("Bot")),
            ("Foo. Bot", 1, Some("Bot")),
            ("Foo +Bot/1.0", 1, Some("Bot")),
            ("a b c d e f g Bot", 7, Some("c d e f g Bot")),
            (
                "HetrixTools Uptime Monitoring Bot. https://x",
                3,
                Some("HetrixTools Uptime Monitoring Bot"),
            ),
            ("+++", 0, None),
        ];
        for &(header, head, expected) in cases {
            let words = Words::split(header.as_bytes());
            assert_eq!(
                words.phrase(head).map(|phrase| phrase.text),
                expected,
                "{header}"
            );
        }
    }

    #[test]
    fn browsers() {
        let cases: &[(&str, bool)] = &[
            (
                "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/115.0",
                true,
            ),
            ("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)", true),
            (
                "AcademicBotRTU (https://academicbot.rtu.lv; mailto:caps@rtu.lv)",
                false,
            ),
            ("Audisto Crawler (mobile; +https://audisto.com/bot)", false),
            ("Foo/1.0 (like Gecko)", false),
        ];
        for &(header, expected) in cases {
            assert_eq!(
                Words::split(header.as_bytes()).is_browsers(),
                expected,
                "{header}"
            );
        }
    }
}
