//! Who counts as a bot when no catalog entry matches: the declared-bot rule.
//!
//! A bot is a program that fetches pages on its own, for an operator who can be asked to obey
//! robots.txt. Its header says so by naming its own product next to evidence that it is a bot.
//! A person's browser, a person's own application (a desktop feed reader, a desktop search tool)
//! and generic software that any program may embed (HTTP libraries, feed-parsing libraries,
//! configuration- and package-management clients) are not bots, even when their header carries
//! their project's URL: that URL names the software, not an operator. A catalog entry can list
//! any of them when a site wants them judged.
//!
//! The header is read as words: products outside parentheses (`Mozilla/5.0`, `FooBot/1.0`,
//! `node-fetch/1.0`) and the words of each top-level comment inside them (`compatible`,
//! `FooBot/1.0`, `+http://foo.example/bot`). A *contact* is a word that is a URL
//! (`http://...`, `+https://...`, `www....`) or an e-mail address; a *product token* is a name
//! followed by `/` and a version. The first of these that applies decides:
//!
//! 1. **A bot word.** A word that is not a contact and whose name contains `crawl`, `spider` or
//!    `slurp`, or `bot` not followed by a letter (`NerdyBot`, `MJ12bot`, `archive.org_bot`,
//!    `psbot-image`; not `Bottle`), declares a bot of that name. Inside a comment other than a
//!    `compatible` one, a name with only `bot` must be a product token (`Applebot/0.1`), so that
//!    phone models such as `CUBOT P30` stay browsers. This rule holds even next to generic
//!    software: `python-requests/2.31 MyBot/1.0` is `MyBot`.
//! 2. **A contact in a `compatible` comment.** A `(compatible; ...)` comment that holds a contact
//!    declares a bot named after the first product after `compatible` that has a letter or a
//!    version (`Ezooms` in `(compatible; Ezooms/1.0; help@moz.com)`, `008` in
//!    `(compatible; 008/0.83; http://www.80legs.com/webcrawler.html)`). Internet Explorer's
//!    `(compatible; MSIE 7.0; ...)` counts only when the contact is a URL whose path names a bot
//!    page (a path word containing `crawl`, `spider` or `slurp`, or ending in `bot` or `bots`:
//!    `http://www.changedetection.com/bot.html`), because toolbars write other URLs into it; the
//!    bot is then named after the URL's host without `www.` (`changedetection.com`).
//! 3. **A `+http` contact** (the `+` is how crawlers mark their contact URL) declares a bot named
//!    after the first product before it that is not a browser's (`Mozilla`, `AppleWebKit`,
//!    `Chrome`, ...): outside comments, or a product token in the contact's own comment
//!    (`FlipboardProxy` in `Firefox/3.6 (FlipboardProxy/1.1; +http://flipboard.com/browserproxy)`).
//!
//! When rule 2 or 3 picks a product of generic software ([`GENERIC_SOFTWARE`]: `node-fetch`,
//! `UniversalFeedParser`, `Chef Client`, `Google Desktop`, ...), the header is not a bot.
//! Everything else is not a bot either: browsers, and headers that declare nothing, such as
//! `curl/8.5.0`, `python-requests/2.31.0`, `Go-http-client/1.1` or
//! `Tiny Tiny RSS/1.11 (http://tt-rss.org/)` (a contact without `+` outside a `compatible`
//! comment is a project's homepage).

use crate::naming::{
    is_contact, is_name_byte, is_word_break, leading_name, starts_with_ignore_case,
};

/// A word of a user-agent and where it stands.
struct Word<'a> {
    text: &'a [u8],
    /// The top-level comment it is in (numbered from 1), or 0 outside comments.
    comment: usize,
}

/// Products of software that many unrelated programs send, or that people run for themselves:
/// their contact URL is the project's homepage, not an operator's. Names of several words are
/// matched word by word; all ignoring ASCII case.
pub(crate) const GENERIC_SOFTWARE: [&str; 45] = [
    // HTTP libraries and command-line clients.
    "curl",
    "libcurl",
    "PycURL",
    "Wget",
    "wget2",
    "python-requests",
    "Python-urllib",
    "urllib3",
    "aiohttp",
    "python-httpx",
    "HTTPie",
    "node-fetch",
    "axios",
    "undici",
    "got",
    "Go-http-client",
    "okhttp",
    "Java",
    "Apache-HttpClient",
    "Jakarta Commons-HttpClient",
    "libwww-perl",
    "lwp-trivial",
    "LWP",
    "Ruby",
    "Faraday",
    "rest-client",
    "GuzzleHttp",
    "Guzzle",
    "reqwest",
    "PostmanRuntime",
    "WinHttp",
    "CFNetwork",
    "Dalvik",
    // Feed-parsing libraries.
    "UniversalFeedParser",
    "feedparser",
    "feedfinder",
    "SimplePie",
    "MagpieRSS",
    "Rome Client",
    // Configuration- and package-management clients.
    "Chef Client",
    "Puppet",
    "Ansible",
    "Debian APT-HTTP",
    "urlgrabber",
    // People's own desktop applications.
    "Google Desktop",
];

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
        let in_comment: Vec<(usize, &Word<'_>)> = words
            .iter()
            .enumerate()
            .filter(|(_, word)| word.comment == comment)
            .collect();
        let contacts = || {
            in_comment
                .iter()
                .filter(|(_, word)| is_contact(word.text))
                .map(|(_, word)| word.text)
        };
        if contacts().next().is_none() {
            continue;
        }
        let first_product = in_comment
            .iter()
            .skip_while(|(_, word)| !word.text.eq_ignore_ascii_case(b"compatible"))
            .skip(1)
            .filter(|(_, word)| !is_contact(word.text))
            .find_map(|&(at, word)| {
                leading_name(word.text)
                    .filter(|&(name, has_version)| has_letter(name) || has_version)
                    .map(|(name, _)| (at, name))
            });
        match first_product {
            Some((at, _)) if is_generic(&words, at) => return None,
            Some((_, name)) if !name.eq_ignore_ascii_case("MSIE") => {
                return Some(name.to_owned());
            }
            _ => {
                if let Some(host) = contacts().find_map(bot_page_host) {
                    return Some(host);
                }
            }
        }
    }

    // 3. A `+http` contact anywhere.
    let plus_http = words
        .iter()
        .position(|word| starts_with_ignore_case(word.text, b"+http"))?;
    let contact_comment = words.get(plus_http)?.comment;
    let (at, name) = words
        .get(..plus_http)?
        .iter()
        .enumerate()
        .filter(|(_, word)| !is_contact(word.text))
        .filter_map(|(at, word)| {
            let (name, has_version) = leading_name(word.text)?;
            let stands = word.comment == 0 || (word.comment == contact_comment && has_version);
            stands.then_some((at, name))
        })
        .find(|(_, name)| has_letter(name) && !is_browser_product(name))?;
    (!is_generic(&words, at)).then(|| name.to_owned())
}

/// Whether the words from `at` on name generic software ([`GENERIC_SOFTWARE`]).
fn is_generic(words: &[Word<'_>], at: usize) -> bool {
    let names = || {
        words
            .get(at..)
            .unwrap_or_default()
            .iter()
            .map(|word| leading_name(word.text).map_or("", |(name, _)| name))
    };
    GENERIC_SOFTWARE.iter().any(|software| {
        let parts = software.split(' ');
        parts.clone().count() <= names().count()
            && parts
                .zip(names())
                .all(|(part, name)| part.eq_ignore_ascii_case(name))
    })
}

/// The host of a contact URL whose path names a bot page (see the module docs), without `www.`:
/// `http://www.changedetection.com/bot.html` gives `changedetection.com`.
fn bot_page_host(contact: &[u8]) -> Option<String> {
    let contact = contact.strip_prefix(b"+").unwrap_or(contact);
    let after_scheme = contact
        .windows(3)
        .position(|w| w == b"://")
        .and_then(|at| contact.get(at + 3..))
        .unwrap_or(contact);
    let host_end = after_scheme
        .iter()
        .position(|&b| matches!(b, b'/' | b':' | b'?' | b'#'))
        .unwrap_or(after_scheme.len());
    let (host, path) = after_scheme.split_at(host_end);
    let names_a_bot = path
        .split(|b| !b.is_ascii_alphanumeric())
        .map(<[u8]>::to_ascii_lowercase)
        .any(|word| {
            [&b"crawl"[..], b"spider", b"slurp"]
                .iter()
                .any(|needle| word.windows(needle.len()).any(|w| w == *needle))
                || word.ends_with(b"bot")
                || word.ends_with(b"bots")
        });
    let host = host
        .strip_prefix(b"www.")
        .or_else(|| host.strip_prefix(b"WWW."))
        .unwrap_or(host);
    if !names_a_bot
        || !host.iter().any(u8::is_ascii_alphabetic)
        || !host.iter().all(|&b| is_name_byte(b))
    {
        return None;
    }
    std::str::from_utf8(host).ok().map(str::to_ascii_lowercase)
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
            // Generic software with its project's URL: not bots.
            (
                "Chef Client/10.18.2 (ruby-1.9.3-p327; ohai-6.16.0; x86_64-linux; +http://opscode.com)",
                None,
            ),
            (
                "feedfinder/1.371 Python-urllib/1.17 +http://www.aaronsw.com/2002/feedfinder/",
                None,
            ),
            (
                "UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/",
                None,
            ),
            (
                "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
                None,
            ),
            (
                "Mozilla/5.0 (compatible; Google Desktop/5.9.1005.12335; http://desktop.google.com/)",
                None,
            ),
            ("python-requests/2.31 MyBot/1.0", Some("MyBot")),
            ("Wget/1.21 (+https://example.org/archiver)", None),
            ("curly/1.0 (+https://curly.example/about)", Some("curly")),
            // A bot page in Internet Explorer's comment: named after the page's host.
            (
                "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1;  http://www.changedetection.com/bot.html )",
                Some("changedetection.com"),
            ),
            (
                "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; +http://crawl.example.net/)",
                None,
            ),
            (
                "Mozilla/4.0 (compatible; MSIE 7.0; http://ex.example/robots/info)",
                Some("ex.example"),
            ),
            // A product token in the contact's own comment.
            (
                "Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10.6; en-US; rv:1.9.2) Gecko/20100115 Firefox/3.6 (FlipboardProxy/1.1; +http://flipboard.com/browserproxy)",
                Some("FlipboardProxy"),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64; +http://example.com/)",
                None,
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
                Some("008"),
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
