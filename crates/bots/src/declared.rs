//! Recognising user-agents that declare themselves bots without being in the catalog. The rules
//! are documented on [`Catalog::identify`](crate::Catalog::identify); this module applies them to
//! the words of a user-agent: the products outside parentheses (`Mozilla/5.0`, `FooBot/1.0`) and
//! the words of the comments inside them (`compatible`, `FooBot/1.0`, `+http://foo.example/bot`).
//!
//! Generic HTTP clients (`curl/8.5.0`, `python-requests/2.31.0`, `Go-http-client/1.1`) declare
//! none of this and are not bots; a catalog entry can list them when a site wants them judged.

use crate::naming::{is_contact, is_word_break, leading_name, starts_with_ignore_case};

/// A word of a user-agent and where it stands.
struct Word<'a> {
    text: &'a [u8],
    /// The top-level comment it is in (numbered from 1), or 0 outside comments.
    comment: usize,
}

/// The name of the bot a user-agent declares, if it declares one (see the module docs).
pub(crate) fn declared_name(user_agent: &[u8]) -> Option<String> {
    let words = split_words(user_agent);
    let compatible: Vec<usize> = words
        .iter()
        .filter(|word| word.comment != 0 && word.text.eq_ignore_ascii_case(b"compatible"))
        .map(|word| word.comment)
        .collect();
    let in_compatible = |word: &Word<'_>| word.comment != 0 && compatible.contains(&word.comment);

    // 1. A product or word that says bot, crawl, spider or slurp.
    for word in &words {
        if is_contact(word.text) {
            continue;
        }
        let Some((name, has_version)) = leading_name(word.text) else {
            continue;
        };
        match bot_word(name) {
            Hit::Strong => return Some(name.to_owned()),
            Hit::Suffix if word.comment == 0 || has_version || in_compatible(word) => {
                return Some(name.to_owned());
            }
            Hit::Suffix | Hit::None => {}
        }
    }

    // 2. A contact in a `compatible` comment.
    for &comment in &compatible {
        let in_comment = || words.iter().filter(move |word| word.comment == comment);
        if !in_comment().any(|word| is_contact(word.text)) {
            continue;
        }
        let first_product = in_comment()
            .skip_while(|word| !word.text.eq_ignore_ascii_case(b"compatible"))
            .skip(1)
            .filter(|word| !is_contact(word.text))
            .find_map(|word| leading_name(word.text));
        match first_product {
            Some((name, _)) if name.eq_ignore_ascii_case("MSIE") => {}
            Some((name, _)) if has_letter(name) => return Some(name.to_owned()),
            _ => {}
        }
    }

    // 3. A `+http` contact anywhere.
    let plus_http = words
        .iter()
        .position(|word| starts_with_ignore_case(word.text, b"+http"))?;
    words
        .get(..plus_http)?
        .iter()
        .filter(|word| word.comment == 0 && !is_contact(word.text))
        .filter_map(|word| leading_name(word.text))
        .map(|(name, _)| name)
        .find(|name| {
            has_letter(name)
                && !BROWSER_PRODUCTS
                    .iter()
                    .any(|product| name.eq_ignore_ascii_case(product))
        })
        .map(str::to_owned)
}

/// The product a header names: the bot it declares, else its first product outside comments
/// that is not a browser's (`Fetchy` in `Mozilla/5.0 (X11) Fetchy/2 (http://example.org/)`).
pub(crate) fn product_of(user_agent: &[u8]) -> Option<String> {
    declared_name(user_agent).or_else(|| {
        split_words(user_agent)
            .iter()
            .filter(|word| word.comment == 0 && !is_contact(word.text))
            .filter_map(|word| leading_name(word.text))
            .map(|(name, _)| name)
            .find(|name| has_letter(name) && !is_browser_product(name))
            .map(str::to_owned)
    })
}

fn is_browser_product(name: &str) -> bool {
    BROWSER_PRODUCTS
        .iter()
        .any(|product| name.eq_ignore_ascii_case(product))
}

/// Products of browser user-agents, which a bot's own product follows.
const BROWSER_PRODUCTS: [&str; 10] = [
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
];

fn has_letter(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_alphabetic())
}

/// How strongly a name says "bot".
enum Hit {
    /// `crawl`, `spider` or `slurp`.
    Strong,
    /// `bot` not followed by a letter.
    Suffix,
    None,
}

fn bot_word(name: &str) -> Hit {
    let lower = name.to_ascii_lowercase();
    if ["crawl", "spider", "slurp"]
        .iter()
        .any(|word| lower.contains(word))
    {
        return Hit::Strong;
    }
    let bot_ends_a_word = lower.match_indices("bot").any(|(at, _)| {
        !lower
            .as_bytes()
            .get(at + 3)
            .is_some_and(u8::is_ascii_alphabetic)
    });
    if bot_ends_a_word {
        Hit::Suffix
    } else {
        Hit::None
    }
}

/// Splits a user-agent into words, numbering the top-level comments they are in. Unbalanced
/// parentheses are tolerated: an unclosed comment runs to the end.
fn split_words(user_agent: &[u8]) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut depth = 0usize;
    let mut comments = 0usize;
    let mut start: Option<usize> = None;
    let mut current_comment = 0usize;
    for (at, &byte) in user_agent.iter().enumerate() {
        if is_word_break(byte) {
            // A word belongs to the comment it was read in, before this byte opens or closes one.
            if let Some(text) = start.take().and_then(|begin| user_agent.get(begin..at)) {
                words.push(Word {
                    text,
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
    if let Some(text) = start.and_then(|begin| user_agent.get(begin..)) {
        words.push(Word {
            text,
            comment: current_comment,
        });
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_names() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Mozilla/5.0 (compatible; FooBot/1.0; +http://foo.example/bot)",
                Some("FooBot"),
            ),
            ("NerdyBot", Some("NerdyBot")),
            (
                "Mozilla/5.0 (compatible; Adsbot/3.1; +https://seostar.co/robot/)",
                Some("Adsbot"),
            ),
            (
                "Mozilla/5.0 (compatible; Ezooms/1.0; help@moz.com)",
                Some("Ezooms"),
            ),
            (
                "UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/",
                Some("UniversalFeedParser"),
            ),
            ("Scrapy/2.11.0 (+https://scrapy.org)", Some("Scrapy")),
            (
                "Mozilla/5.0 (compatible; Some web crawler)",
                Some("crawler"),
            ),
            (
                "Mozilla/5.0 (compatible; botify; http://botify.com)",
                Some("botify"),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64; WebSpider)",
                Some("WebSpider"),
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) Chrome/120 MyCrawler",
                Some("MyCrawler"),
            ),
            ("Mozilla/5.0 (iPhone) (SmartBot/2.0)", Some("SmartBot")),
            (
                "Mozilla/5.0 (compatible; archive.org_bot +http://www.archive.org/details/archive.org_bot)",
                Some("archive.org_bot"),
            ),
            ("Foo-Bot_v2/1.0", Some("Foo-Bot_v2")),
            ("Mozilla/5.0 (compatible; FooBot/1.0", Some("FooBot")),
            ("\u{feff}TestBot", Some("TestBot")),
            // Browsers, phones and HTTP libraries.
            (
                "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
                None,
            ),
            (
                "Mozilla/5.0 (Linux; Android 10; CUBOT_X30 Build/QP1A) Chrome/86.0 Mobile Safari/537.36",
                None,
            ),
            ("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)", None),
            ("Mozilla/5.0 (compatible; VSAgent/2.0)", None),
            ("Tiny Tiny RSS/1.11 (http://tt-rss.org/)", None),
            ("python-requests/2.18.4", None),
            ("curl/8.5.0", None),
            ("Go-http-client/1.1", None),
            ("Bottle/0.12", None),
            ("Mozilla/5.0 (+http://example.com)", None),
            (
                "Chef Client/10.18.2 (ruby-1.9.3-p327; ohai-6.16.0; x86_64-linux; +http://opscode.com)",
                Some("Chef"),
            ),
            (
                "feedfinder/1.371 Python-urllib/1.17 +http://www.aaronsw.com/2002/feedfinder/",
                Some("feedfinder"),
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/56.0.2924.87 Safari/537.36 Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)",
                Some("Google-PageRenderer"),
            ),
            (
                "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1; http://www.example.com/ )",
                None,
            ),
            ("Mozilla/5.0 (compatible; 5.0; +http://example.com)", None),
            (
                "Mozilla/5.0 (compatible; 008/0.83; http://www.80legs.com/webcrawler.html)",
                None,
            ),
            ("", None),
            ("-", None),
            ("((((", None),
            (")))Bot", Some("Bot")),
        ];
        for &(ua, expected) in cases {
            assert_eq!(declared_name(ua.as_bytes()).as_deref(), expected, "{ua}");
        }
    }

    #[test]
    fn invalid_utf8_is_data() {
        assert_eq!(
            declared_name(b"\xff\xfe FooBot/1.0 \x00").as_deref(),
            Some("FooBot")
        );
        assert_eq!(declared_name(b"\xc3\x28 Mozilla/5.0").as_deref(), None);
    }
}
