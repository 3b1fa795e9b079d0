//! Who counts as a bot when no catalog entry matches, and what it is called: the declared-bot
//! rule.
//!
//! A bot is a program that fetches pages on its own, for an operator who can be asked to obey
//! robots.txt. Its header says so by naming its own product next to evidence that it is a bot.
//! A person's browser, a person's own application (a desktop feed reader, a desktop search tool)
//! and generic software that any program may embed (HTTP libraries, feed-parsing libraries,
//! configuration- and package-management clients) are not bots, even when their header carries
//! their project's URL: that URL names the software, not an operator. A catalog entry can list
//! any of them when a site wants them judged.
//!
//! The header is read as words (see `words.rs`): products outside parentheses (`Mozilla/5.0`,
//! `FooBot/1.0`) and the words of each top-level comment inside them (`compatible`,
//! `FooBot/1.0`, `+http://foo.example/bot`). A *contact* is a word that is a URL (`http://...`,
//! `+https://...`, `www....`) or an e-mail address; a *product token* is a name followed by `/`
//! and a version; a *browser's header* has a browser product with a version (`Mozilla/5.0`,
//! `Gecko/20100101`) or `MSIE`.
//!
//! # The evidence
//!
//! 1. **A bot word**: a word that is not a contact and whose name contains `crawl`, `spider`,
//!    `slurp` or `searchengine` (`HonesoSearchEngine/1.0`), or `bot` not followed by a letter
//!    (`NerdyBot`, `MJ12bot`, `archive.org_bot`, `psbot-image`; not `Bottle`, `botify`). In a
//!    header that is not a browser's, a capitalised `Bot` inside a name and followed by letters
//!    counts too (`AcademicBotRTU`). Inside a comment other than a `compatible` one, a name whose
//!    only bot word is `bot` must be a product token (`Applebot/0.1`), so that phone models such
//!    as `CUBOT P30` stay browsers. This holds even next to generic software:
//!    `python-requests/2.31 MyBot/1.0` is `MyBot`. A bot word right after `like` or
//!    `compatible with` names a product the header compares itself to, not its own, and is no
//!    evidence (`FeedReader/1.2 (Linux; https://reader.example) like FooBot` is a feed reader).
//! 2. **A contact in a `compatible` comment** (`(compatible; Ezooms/1.0; help@moz.com)`).
//!    Internet Explorer's `(compatible; MSIE 7.0; ...)` counts only when the contact is a URL
//!    whose path names a bot page (a path word containing `crawl`, `spider` or `slurp`, or
//!    ending in `bot` or `bots`: `http://www.changedetection.com/bot.html`), because toolbars
//!    write other URLs into it.
//! 3. **A `+http` contact** anywhere (the `+` is how crawlers mark their contact URL).
//! 4. **Its own address**: a header that is not a browser's, whose first comment holds nothing
//!    but contacts, one of them the product's own: a host with a label that is the product's
//!    name, or a mailbox of that name, ignoring case and punctuation
//!    (`ltx71 - (http://ltx71.com/)`, `Kerrigan/2.0 (kerrigan@mashable.com)`). A project page
//!    elsewhere (`Tiny Tiny RSS/1.11 (http://tt-rss.org/)`) or a comment that also carries the
//!    platform (`Liferea/1.8.3 (Linux; en_GB.UTF-8; http://liferea.sf.net/)`, a desktop
//!    application) is not.
//!
//! Everything else is not a bot: browsers, and headers that declare nothing, such as
//! `curl/8.5.0`, `python-requests/2.31.0`, a bare `Foo/1.0`, or a contact without `+` next to
//! other words outside a `compatible` comment (a project's homepage). A request for
//! `/robots.txt` is evidence too, but not in the header: identity is decided by the header
//! alone, so that it never depends on the order of lines, threads or merged nights. The
//! application counts the robots.txt fetches of the headers that are not bots
//! (`unknown_agents.csv`), and a catalog entry (`--bots`) makes any of them a bot.
//!
//! # The name
//!
//! The bot is named by the product that declares it, as the header writes it:
//!
//! 1. **The bot word**, the first one in the header: `FooBot` in
//!    `(compatible; FooBot/1.0; ...)`, `AcademicBotRTU`.
//! 2. **The phrase of a bare bot word.** A generic bot word (`bot`, `robot`, `crawler`,
//!    `spider`, `WebCrawler`, ...) names nothing by itself: the bot is the phrase it ends, the
//!    plain words before it in the same comment separated by single spaces (`James BOT` in
//!    `Firefox/2.0.0.6 - James BOT - WebCrawler ...`, `ETI SEO bot`, `Kangaroo Bot/1.0`).
//!    Taken only when the header has no other bot word and the phrase has a word that is not
//!    generic (`web crawler` names nothing).
//! 3. **The first product that is not a browser's** (nor generic software, nor a bare bot
//!    word), with the words of its name: a product token in a `compatible` comment with the
//!    evidence (`Ezooms`; `ichiro` in a phone's
//!    `DoCoMo/2.0 P900i(c100;TB;W24H11) (compatible; ichiro/mobile goo; +http://...)`;
//!    `Ask Jeeves` in `(compatible; Ask Jeeves/Teoma; ...)`); else, in header order, a product
//!    outside comments or a product token in another comment with the evidence:
//!    `XML-Sitemaps` in
//!    `Mozilla/5.0 (compatible; XML Sitemaps Generator; www.xml-sitemaps.com) Gecko XML-Sitemaps/1.0`
//!    (never `XML`, a fragment of the comment), `PHP-Curl-Class` in
//!    `PHP-Curl-Class/4.13.0 (+https://...) PHP/7.2.24 curl/7.61.1`, `FlipboardProxy` in
//!    `Firefox/3.6 (FlipboardProxy/1.1; +http://flipboard.com/browserproxy)`,
//!    `Google-PageRenderer`, `ltx71`. The first, not the last: products are listed in order of
//!    significance (RFC 9110, section 10.1.5), and runtimes and libraries follow the product
//!    they serve.
//! 4. Without one, the first word after `compatible` (`botify` in
//!    `(compatible; botify; http://botify.com)`), for Internet Explorer the bot page's host
//!    without `www.` (`changedetection.com`); else the bare bot word itself (`WebSpider`).
//!
//! When the product that names the header (by 3 or 4) is generic software
//! ([`GENERIC_SOFTWARE`]: `node-fetch`, `UniversalFeedParser`, `Chef Client`,
//! `Google Desktop`, ...), the header is not a bot, unless it has a bare bot word, which then
//! names it.
//!
//! **One name per crawler.** A version never changes the name, whether after a `/` or written
//! into the name after a `-` (`grub-client-1.0.4` is `grub-client`). A product named without a
//! bot word whose contact URL names the same product with `bot` appended is called that way:
//! `Veooz/1.0 (+http://www.veooz.com/veoozbot.html)` is `Veoozbot`, as
//! `Mozilla/5.0 (compatible; Veoozbot/1.0; ...)` is; the operator's page is what links the two.
//! An unknown bot's robots.txt tokens follow from its name alone (`naming::tokens_of`), so every
//! header with one name is one bot with one set of tokens.

use crate::naming::{
    is_contact, is_name_byte, leading_name, starts_with_ignore_case, without_version,
};
use crate::words::{Word, Words, is_browser_product};

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

/// Bot words that name no product by themselves, compared with the name lower-cased and
/// without `-`, `_` and `.` (`Web-Crawler` is `webcrawler`).
const GENERIC_BOT_WORDS: [&str; 13] = [
    "bot",
    "bots",
    "robot",
    "robots",
    "crawl",
    "crawler",
    "crawlers",
    "spider",
    "spiders",
    "webbot",
    "webrobot",
    "webcrawler",
    "webspider",
];

/// Words that only qualify a generic bot word: `web crawler` names nothing either.
const QUALIFIERS: [&str; 2] = ["web", "www"];

/// The name of the bot a user-agent declares, if it declares one (see the module docs).
pub(crate) fn declared_name(user_agent: &[u8]) -> Option<String> {
    name_in(user_agent).map(|name| without_version(&name).to_owned())
}

/// [`declared_name`] before a version written into the name is dropped.
fn name_in(user_agent: &[u8]) -> Option<String> {
    let header = Header::read(user_agent);
    let mut bare = None;
    let words = header.words.all();
    for (at, word) in words.iter().enumerate() {
        let Some(name) = header.bot_word_at(word) else {
            continue;
        };
        let before = |back: usize| {
            at.checked_sub(back)
                .and_then(|index| words.get(index))
                .map_or(&b""[..], |word| word.text)
        };
        if is_comparison(before(2), before(1)) {
            continue;
        }
        if !is_generic(name) {
            return Some(name.to_owned());
        }
        bare.get_or_insert((at, name));
    }
    if let Some((at, _)) = bare
        && let Some(phrase) = header.words.phrase(at)
        && !phrase
            .text
            .split(' ')
            .all(|word| is_generic(word) || is_qualifier(word))
    {
        return Some(phrase.text.to_owned());
    }
    let evidence = header.evidence_comments();
    let plus_http = header.plus_http_comment();
    if bare.is_none() && evidence.is_empty() && plus_http.is_none() && !header.own_address() {
        return None;
    }
    // The comments whose products may name the header: the `compatible` ones first.
    let (mut compatible, mut others) = (evidence, Vec::new());
    let bare_comment = bare.and_then(|(at, _)| header.words.all().get(at).map(|word| word.comment));
    for comment in [plus_http, bare_comment].into_iter().flatten() {
        let list = if header.compatible.contains(&comment) {
            &mut compatible
        } else {
            &mut others
        };
        if comment != 0 && !list.contains(&comment) {
            list.push(comment);
        }
    }
    let bare_name = bare.map(|(_, name)| name.to_owned());
    match header.product(&compatible, &others) {
        Product::Named(name) => Some(header.fold(name)),
        Product::Generic | Product::Nothing => bare_name,
    }
}

/// The product a header names: the bot it declares, else its first product outside comments
/// that is not a browser's (`Fetchy` in `Mozilla/5.0 (X11) Fetchy/2 (http://example.org/)`).
pub(crate) fn product_of(user_agent: &[u8]) -> Option<String> {
    declared_name(user_agent).or_else(|| {
        Words::split(user_agent)
            .all()
            .iter()
            .filter(|word| word.comment == 0 && !is_contact(word.text))
            .filter_map(|word| leading_name(word.text))
            .map(|(name, _)| name)
            .find(|name| has_letter(name) && !is_browser_product(name))
            .map(str::to_owned)
    })
}

/// What names a header that has evidence but no bot word of its own (rules 3 and 4 of the
/// module docs).
enum Product {
    /// The product's name.
    Named(String),
    /// Generic software names it: not a bot (unless a bare bot word says otherwise).
    Generic,
    /// Nothing names it.
    Nothing,
}

/// A header read for the rule.
struct Header<'a> {
    words: Words<'a>,
    /// The numbers of its `(compatible; ...)` comments.
    compatible: Vec<usize>,
    /// Whether it is a browser's header.
    browser: bool,
}

impl<'a> Header<'a> {
    fn read(user_agent: &'a [u8]) -> Header<'a> {
        let words = Words::split(user_agent);
        Header {
            compatible: words.compatible_comments(),
            browser: words.is_browsers(),
            words,
        }
    }

    fn in_compatible(&self, word: &Word<'_>) -> bool {
        word.comment != 0 && self.compatible.contains(&word.comment)
    }

    /// The name of `word` when it is a bot word where it stands (rule 1 of the evidence).
    fn bot_word_at(&self, word: &Word<'a>) -> Option<&'a str> {
        if is_contact(word.text) {
            return None;
        }
        let (name, has_version) = leading_name(word.text)?;
        let stands = word.comment == 0 || has_version || self.in_compatible(word);
        let placed = match bot_word(name) {
            Hit::Strong => true,
            Hit::Suffix => stands,
            Hit::Embedded => stands && !self.browser,
            Hit::None => false,
        };
        placed.then_some(name)
    }

    /// The `compatible` comments that hold a contact (rule 2 of the evidence): for Internet
    /// Explorer's, only with a bot page.
    fn evidence_comments(&self) -> Vec<usize> {
        self.compatible
            .iter()
            .copied()
            .filter(|&comment| {
                let mut contacts = self.contacts_in(comment).peekable();
                match self.first_after_compatible(comment) {
                    Some((_, name)) if name.eq_ignore_ascii_case("MSIE") => {
                        contacts.any(|contact| bot_page_host(contact).is_some())
                    }
                    _ => contacts.peek().is_some(),
                }
            })
            .collect()
    }

    /// The comment of the first `+http` contact (rule 3 of the evidence): 0 outside comments,
    /// `None` without one.
    fn plus_http_comment(&self) -> Option<usize> {
        self.words
            .all()
            .iter()
            .find(|word| starts_with_ignore_case(word.text, b"+http"))
            .map(|word| word.comment)
    }

    /// Whether the header gives its product's own address (rule 4 of the evidence).
    fn own_address(&self) -> bool {
        if self.browser {
            return false;
        }
        let words = self.words.all();
        let Some(first_comment) = words.iter().position(|word| word.comment != 0) else {
            return false;
        };
        let product = words
            .get(..first_comment)
            .unwrap_or_default()
            .iter()
            .rev()
            .filter(|word| !is_contact(word.text))
            .find_map(|word| leading_name(word.text));
        let (Some((product, _)), Some(comment)) = (product, words.get(first_comment)) else {
            return false;
        };
        let mut in_comment = words.iter().filter(|word| word.comment == comment.comment);
        in_comment.clone().all(|word| is_contact(word.text))
            && in_comment.any(|word| is_own_contact(word.text, product))
    }

    fn contacts_in(&self, comment: usize) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.words
            .all()
            .iter()
            .filter(move |word| word.comment == comment && is_contact(word.text))
            .map(|word| word.text)
    }

    /// The first word after `compatible` in `comment` that is not a contact nor a generic bot
    /// word (or a word that qualifies one), and has a letter or a version, with its index and
    /// name.
    fn first_after_compatible(&self, comment: usize) -> Option<(usize, &'a str)> {
        self.words
            .all()
            .iter()
            .enumerate()
            .filter(|(_, word)| word.comment == comment)
            .skip_while(|(_, word)| !word.text.eq_ignore_ascii_case(b"compatible"))
            .skip(1)
            .filter(|(_, word)| !is_contact(word.text))
            .find_map(|(at, word)| {
                leading_name(word.text)
                    .filter(|&(name, has_version)| {
                        (has_letter(name) || has_version)
                            && !is_generic(name)
                            && !is_qualifier(name)
                    })
                    .map(|(name, _)| (at, name))
            })
    }

    /// The product that names a header with evidence but no bot word of its own (rules 3 and 4
    /// of the name): in the `compatible` comments that hold the evidence, else outside comments
    /// or in the `others` comments that hold it (the `+http` contact, the bare bot word).
    fn product(&self, compatible: &[usize], others: &[usize]) -> Product {
        let words = self.words.all();
        let mut generic = false;
        // 3. The first product token in a `compatible` comment with the evidence: a bot that adds
        // its comment to a phone's or a browser's header is named there, before the device.
        // Then the first product outside comments, or product token in another comment with the
        // evidence, in header order. Neither a browser's nor generic software.
        let in_compatible = words
            .iter()
            .enumerate()
            .filter(|(_, word)| word.comment != 0 && compatible.contains(&word.comment));
        let in_header = words
            .iter()
            .enumerate()
            .filter(|(_, word)| word.comment == 0 || others.contains(&word.comment));
        for (at, word) in in_compatible.chain(in_header) {
            let Some((name, has_version)) = leading_name(word.text) else {
                continue;
            };
            let product = (has_version || (word.comment == 0 && has_letter(name)))
                && !is_contact(word.text)
                && !is_browser_product(name)
                && !is_generic(name);
            if !product {
                continue;
            }
            let head = if has_version {
                at
            } else {
                self.words.versioned_head(at)
            };
            let Some(phrase) = self.words.phrase(head) else {
                continue;
            };
            let (text, first) = if head == at || phrase.first <= at {
                (phrase.text, phrase.first.min(at))
            } else {
                (name, at)
            };
            if self.is_generic_software(first, head) {
                generic = true;
                continue;
            }
            return Product::Named(text.to_owned());
        }
        if generic {
            return Product::Generic;
        }
        // 4. A word after `compatible`, or the host of Internet Explorer's bot page.
        for &comment in compatible {
            match self.first_after_compatible(comment) {
                Some((_, name)) if name.eq_ignore_ascii_case("MSIE") => {
                    if let Some(host) = self.contacts_in(comment).find_map(bot_page_host) {
                        return Product::Named(host);
                    }
                }
                Some((at, name)) => {
                    return if self.is_generic_software(at, at) {
                        Product::Generic
                    } else {
                        Product::Named(name.to_owned())
                    };
                }
                None => {}
            }
        }
        Product::Nothing
    }

    /// Whether the words `first..=last` name generic software ([`GENERIC_SOFTWARE`]): a name of
    /// the list spelled by the words from `first` on, or by the words ending at `last`.
    fn is_generic_software(&self, first: usize, last: usize) -> bool {
        let name_at = |at: usize| {
            self.words
                .all()
                .get(at)
                .and_then(|word| leading_name(word.text))
                .map_or("", |(name, _)| name)
        };
        GENERIC_SOFTWARE.iter().any(|software| {
            let parts: Vec<&str> = software.split(' ').collect();
            let matches_from = |start: usize| {
                parts
                    .iter()
                    .enumerate()
                    .all(|(i, part)| part.eq_ignore_ascii_case(name_at(start + i)))
            };
            let count = parts.len();
            matches_from(first)
                || (last + 1)
                    .checked_sub(count)
                    .is_some_and(|start| start >= first && matches_from(start))
        })
    }

    /// `name`, or its bot when the header's contact names the product with `bot` appended
    /// (`Veooz` with `http://www.veooz.com/veoozbot.html` is `Veoozbot`).
    fn fold(&self, name: String) -> String {
        let keep = !matches!(bot_word(&name), Hit::None)
            || !name.bytes().all(|b| b.is_ascii_alphanumeric())
            || !self.words.all().iter().any(|word| {
                is_contact(word.text)
                    && word
                        .text
                        .split(|b| !b.is_ascii_alphanumeric())
                        .any(|part| is_name_plus_bot(part, &name))
            });
        if keep { name } else { format!("{name}bot") }
    }
}

/// Whether `part` is `name` followed by `bot`, ignoring ASCII case.
fn is_name_plus_bot(part: &[u8], name: &str) -> bool {
    part.len() == name.len() + 3
        && part
            .get(..name.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(name.as_bytes()))
        && part
            .get(name.len()..)
            .is_some_and(|tail| tail.eq_ignore_ascii_case(b"bot"))
}

/// Whether `contact` is the address of `product`: a host label, a mailbox or a mail domain
/// label that is the product's name, compared ignoring case and anything but letters and
/// digits.
fn is_own_contact(contact: &[u8], product: &str) -> bool {
    let key = squeezed(product.as_bytes());
    if key.is_empty() {
        return false;
    }
    let contact = contact.strip_prefix(b"+").unwrap_or(contact);
    let contact = if starts_with_ignore_case(contact, b"mailto:") {
        contact.get(7..).unwrap_or_default()
    } else {
        contact
    };
    let labels_match = |host: &[u8]| {
        host.split(|&b| b == b'.')
            .any(|label| squeezed(label) == key)
    };
    if let Some(at) = contact.iter().position(|&b| b == b'@') {
        let (mailbox, domain) = contact.split_at(at);
        return squeezed(mailbox) == key || labels_match(domain.get(1..).unwrap_or_default());
    }
    let after_scheme = contact
        .windows(3)
        .position(|w| w == b"://")
        .and_then(|at| contact.get(at + 3..))
        .unwrap_or(contact);
    let host_end = after_scheme
        .iter()
        .position(|&b| matches!(b, b'/' | b':' | b'?' | b'#'))
        .unwrap_or(after_scheme.len());
    labels_match(after_scheme.get(..host_end).unwrap_or_default())
}

/// The letters (lower-cased) and digits of `bytes`.
fn squeezed(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect()
}

/// Whether a name is a generic bot word (see [`GENERIC_BOT_WORDS`]).
fn is_generic(name: &str) -> bool {
    let squeezed = squeezed(name.as_bytes());
    GENERIC_BOT_WORDS
        .iter()
        .any(|word| word.as_bytes() == squeezed.as_slice())
}

/// Whether a bot word after these two words names another product that the header compares
/// itself to (`like FooBot`, `compatible with FooBot`), not the one that sends it. A bare
/// `with` does not: `built with StormCrawler` names the crawler's framework, and its header is
/// still a crawler's.
fn is_comparison(second_before: &[u8], before: &[u8]) -> bool {
    before.eq_ignore_ascii_case(b"like")
        || (before.eq_ignore_ascii_case(b"with")
            && second_before.eq_ignore_ascii_case(b"compatible"))
}

fn is_qualifier(word: &str) -> bool {
    QUALIFIERS
        .iter()
        .any(|qualifier| word.eq_ignore_ascii_case(qualifier))
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

fn has_letter(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_alphabetic())
}

/// How a name says "bot".
enum Hit {
    /// `crawl`, `spider`, `slurp` or `searchengine`.
    Strong,
    /// `bot` not followed by a letter.
    Suffix,
    /// A capitalised `Bot` inside the name, followed by letters (`AcademicBotRTU`).
    Embedded,
    None,
}

fn bot_word(name: &str) -> Hit {
    let lower = name.to_ascii_lowercase();
    if ["crawl", "spider", "slurp", "searchengine"]
        .iter()
        .any(|word| lower.contains(word))
    {
        return Hit::Strong;
    }
    let mut embedded = false;
    for (at, _) in lower.match_indices("bot") {
        if !lower
            .as_bytes()
            .get(at + 3)
            .is_some_and(u8::is_ascii_alphabetic)
        {
            return Hit::Suffix;
        }
        let inside = at
            .checked_sub(1)
            .and_then(|before| name.as_bytes().get(before))
            .is_some_and(u8::is_ascii_alphanumeric);
        embedded |= inside && name.get(at..at + 3) == Some("Bot");
    }
    if embedded { Hit::Embedded } else { Hit::None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Strategy, any, prop_oneof};

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
            // Named by the product token that declares it, never by a fragment of a comment.
            (
                "Mozilla/5.0 (compatible; XML Sitemaps Generator; www.xml-sitemaps.com) Gecko XML-Sitemaps/1.0",
                Some("XML-Sitemaps"),
            ),
            (
                "Mozilla/5.0 (compatible; XML Sitemaps Generator; http://www.xml-sitemaps.com) Gecko XML-Sitemaps/1.0",
                Some("XML-Sitemaps"),
            ),
            (
                "Mozilla/5.0 (compatible; Ask Jeeves/Teoma; +http://about.ask.com/en/docs/about/webmasters.shtml)",
                Some("Ask Jeeves"),
            ),
            (
                "Mozilla/5.0 (compatible; U; AnyEvent-HTTP/2.24; +http://software.schmorp.de/pkg/AnyEvent)",
                Some("AnyEvent-HTTP"),
            ),
            (
                "Mozilla/5.0 (compatible; Y!J SearchMonkey/1.0 (Y!J-AGENT; http://help.yahoo.co.jp/help/jp/search/indexing/indexing-15.html))",
                Some("SearchMonkey"),
            ),
            // A bot's comment in a phone's header: the bot, not the phone.
            (
                "DoCoMo/2.0 P900i(c100;TB;W24H11) (compatible; ichiro/mobile goo; +http://help.goo.ne.jp/door/crawler.html)",
                Some("ichiro"),
            ),
            // The first product, not a runtime or a library after it.
            (
                "PHP-Curl-Class/4.13.0 (+https://github.com/php-curl-class/php-curl-class) PHP/7.2.24 curl/7.61.1",
                Some("PHP-Curl-Class"),
            ),
            (
                "Svix-Webhooks/1.65.0 (sender-9YMgn; +https://www.svix.com/http-sender/)Webhooks/1.65.0 (sender-9YMgn)",
                Some("Svix-Webhooks"),
            ),
            (
                "Fedineko (crabo/0.3.1; +https://fedineko.org/about)",
                Some("Fedineko"),
            ),
            // A bare bot word names nothing: the phrase it ends does.
            (
                "Mozilla/5.0 (Windows; U; Windows NT 5.1; en-US; rv:1.8.1.6) Gecko/20070725 Firefox/2.0.0.6 - James BOT - WebCrawler http://cognitiveseo.com/bot.html",
                Some("James BOT"),
            ),
            ("ETI SEO bot", Some("ETI SEO bot")),
            (
                "Mozilla/5.0 (compatible; ETI SEO bot; +https://eti.example/seo)",
                Some("ETI SEO bot"),
            ),
            (
                "Mozilla/5.0 (compatible; Kangaroo Bot/1.0; +http://www.kangaroo.com)",
                Some("Kangaroo Bot"),
            ),
            (
                "Linguee Bot (http://www.linguee.com/bot; bot@linguee.com)",
                Some("Linguee Bot"),
            ),
            (
                "Mozilla/5.0 (compatible; Some web crawler)",
                Some("Some web crawler"),
            ),
            (
                "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:15.0) Xing Bot",
                Some("Xing Bot"),
            ),
            (
                "Sogou News Spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)",
                Some("Sogou News Spider"),
            ),
            // ... and a phrase of generic words names nothing either: the product does.
            (
                "Claude-Web/1.0 (web crawler; +https://www.anthropic.com/; bots@anthropic.com)",
                Some("Claude-Web"),
            ),
            (
                "Mozilla/4.0 (compatible; Vagabondo/4.0Beta; webcrawler at wise-guys dot nl)",
                Some("Vagabondo"),
            ),
            ("Grover/Grover-1.18 (Web Crawler)", Some("Grover")),
            (
                "Netvibes (crawler/bot; http://www.netvibes.com)",
                Some("Netvibes"),
            ),
            ("robot;Owler;sthiyagarajan@owler-inc.com", Some("Owler")),
            (
                "Mozilla/5.0 (compatible; YandexUserproxy; robot; +http://yandex.com/bots",
                Some("YandexUserproxy"),
            ),
            (
                "Mozilla/5.0 (compatible; web crawler; +http://crawler.example/)",
                Some("crawler"),
            ),
            (
                "Mozilla/5.0 (Windows; U; Windows NT 5.0; en-US; rv:1.7.10) Gecko/20050716 Thunderbird/1.0.6 - WebCrawler http://cognitiveseo.com/bot.html",
                Some("WebCrawler"),
            ),
            ("python-requests/2.31 (web crawler)", Some("crawler")),
            (")))Bot", Some("Bot")),
            // A version written into the name is no part of it.
            (
                "Mozilla/4.0 (compatible; grub-client-1.0.4; Crawl your own stuff with http://grub.org)",
                Some("grub-client"),
            ),
            // One name across spellings: the operator's page links `Veooz` to `Veoozbot`.
            (
                "Veooz/1.0 (+http://www.veooz.com/veoozbot.html)",
                Some("Veoozbot"),
            ),
            (
                "Mozilla/5.0 (compatible; Veooz/1.0; +http://www.veooz.com/veoozbot.html)",
                Some("Veoozbot"),
            ),
            (
                "Mozilla/5.0 (compatible; Veoozbot/1.0; +http://www.veooz.com/veoozbot.html)",
                Some("Veoozbot"),
            ),
            (
                "Veooz/1.0 (+http://www.veooz.com/about.html)",
                Some("Veooz"),
            ),
            // Crawlers that were missed.
            (
                "AcademicBotRTU (https://academicbot.rtu.lv; mailto:caps@rtu.lv)",
                Some("AcademicBotRTU"),
            ),
            ("HonesoSearchEngine/1.0", Some("HonesoSearchEngine")),
            ("ltx71 - (http://ltx71.com/)", Some("ltx71")),
            ("Kerrigan/2.0 (kerrigan@mashable.com)", Some("Kerrigan")),
            (
                "CommaFeed/1.0 (http://www.commafeed.com)",
                Some("CommaFeed"),
            ),
            (
                "WikiDo/1.1 (http://wikido.com; crawler@wikido.com)",
                Some("WikiDo"),
            ),
            // ... and what stays unnamed: a browser's `...Bot...`, a project page, a desktop
            // application's platform, a bare product.
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 AcademicBotRTU",
                None,
            ),
            ("Abbott/2.0 (+abbott)", None),
            ("Tiny Tiny RSS/1.11 (http://tt-rss.org/)", None),
            (
                "Liferea/1.8.3 (Linux; en_GB.UTF-8; http://liferea.sf.net/)",
                None,
            ),
            (
                "HTTP_Request2/2.1.1 (http://pear.php.net/package/http_request2) PHP/5.3.2-1ubuntu4.18",
                None,
            ),
            (
                "Superblock-Denim (http://den.im/; support@superblock.net)",
                None,
            ),
            ("Kerrigan/2.0", None),
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
            (
                "Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1; TencentTraveler ; EmbeddedWB 14.52 from: http://www.bsalsa.com/ EmbeddedWB 14.52; .NET CLR 2.0.50727)",
                None,
            ),
            ("Mozilla/5.0 (compatible; VSAgent/2.0)", None),
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
            ("curl/8.5.0 (curl@curl.se)", None),
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

    /// A product name, some of them saying bot.
    fn product() -> impl Strategy<Value = String> {
        (
            "[A-Z][a-z]{2,7}",
            prop_oneof!["", "Bot", "bot", "Crawler", "Spider"],
        )
            .prop_map(|(stem, suffix)| format!("{stem}{suffix}"))
    }

    /// A header around a product: `{}` stands where the product token is.
    fn template() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            proptest::strategy::Just("{} (+https://example.org/about)"),
            proptest::strategy::Just("Mozilla/5.0 (compatible; {}; +https://example.org/about)"),
            proptest::strategy::Just("Mozilla/5.0 (compatible; {}; help@example.org)"),
            proptest::strategy::Just("Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 {}"),
            proptest::strategy::Just("{}"),
            proptest::strategy::Just("Web {} - http://example.org/"),
        ]
    }

    proptest::proptest! {
        /// Whatever the bytes, the name is a part of the header (ignoring ASCII case): read in
        /// it, never made up.
        #[test]
        fn the_name_is_in_the_header(header in proptest::collection::vec(any::<u8>(), 0..120)) {
            if let Some(name) = declared_name(&header) {
                let header = header.to_ascii_lowercase();
                let name = name.to_ascii_lowercase();
                proptest::prop_assert!(!name.is_empty());
                proptest::prop_assert!(
                    header.windows(name.len()).any(|w| w == name.as_bytes()),
                    "{:?} in {:?}", name, String::from_utf8_lossy(&header)
                );
            }
        }

        /// The same for headers shaped like real ones.
        #[test]
        fn the_name_is_in_a_real_shaped_header(
            words in proptest::collection::vec(
                prop_oneof![
                    product(),
                    proptest::strategy::Just("Mozilla/5.0".to_owned()),
                    proptest::strategy::Just("(compatible;".to_owned()),
                    proptest::strategy::Just("+https://example.org/bot)".to_owned()),
                    proptest::strategy::Just("bot".to_owned()),
                    proptest::strategy::Just("-".to_owned()),
                    proptest::strategy::Just("/1.0".to_owned()),
                ],
                0..8,
            ),
        ) {
            let header = words.concat();
            if let Some(name) = declared_name(header.as_bytes()) {
                proptest::prop_assert!(
                    header.to_ascii_lowercase().contains(&name.to_ascii_lowercase()),
                    "{name:?} in {header:?}"
                );
            }
        }

        /// A version never changes the name: `Foo` and `Foo/2.1` are one bot.
        #[test]
        fn a_version_never_changes_the_name(
            name in product(),
            shape in template(),
            version in "[0-9]{1,2}\\.[0-9]{1,3}",
        ) {
            let without = shape.replace("{}", &name);
            let with = shape.replace("{}", &format!("{name}/{version}"));
            let dashed = shape.replace("{}", &format!("{name}-{version}"));
            let names = [&without, &with, &dashed].map(|header| declared_name(header.as_bytes()));
            let named: Vec<&String> = names.iter().flatten().collect();
            proptest::prop_assert!(
                named.windows(2).all(|pair| pair[0] == pair[1]),
                "{without:?} {with:?} {dashed:?}: {names:?}"
            );
        }
    }
}
