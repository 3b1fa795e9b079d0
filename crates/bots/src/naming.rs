//! Product names: reading a bot's name out of a user-agent word, out of the place a pattern
//! matched, or out of an imported pattern's text; and finding the bot a name denotes.

use crate::bot::Bot;

/// Bytes a product name is made of. Narrower than RFC 9110's `tchar` on purpose: it keeps the
/// names that real crawlers use (`archive.org_bot`, `MJ12bot`, `Googlebot-Image`) and leaves
/// out the punctuation that surrounds names in user-agents (`+`, `!`, `(`, `:`).
pub(crate) fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.')
}

/// The product name a user-agent word starts with, after any leading punctuation: `FooBot/1.0`
/// gives `FooBot`, `(+Bar-Crawler;` gives `Bar-Crawler`, `008/0.83` gives `008`. `None` when it
/// has no letter or digit.
///
/// Also tells whether a version follows the name (`/`), as in a product token.
pub(crate) fn leading_name(word: &[u8]) -> Option<(&str, bool)> {
    let start = word.iter().position(|&b| is_name_byte(b))?;
    let rest = word.get(start..)?;
    let run = rest
        .iter()
        .position(|&b| !is_name_byte(b))
        .unwrap_or(rest.len());
    let has_version = rest.get(run) == Some(&b'/');
    let name = trim_name(rest.get(..run)?);
    if name.is_empty() {
        return None;
    }
    // Only ASCII name bytes remain, so this cannot fail.
    std::str::from_utf8(name)
        .ok()
        .map(|name| (name, has_version))
}

/// `name` without a version written into it after a `-` (`grub-client-1.0.4` is
/// `grub-client`): a dotted number, so that every version of a crawler has one name. A name
/// that would be left without a letter is kept whole.
pub(crate) fn without_version(name: &str) -> &str {
    let Some((head, tail)) = name.rsplit_once('-') else {
        return name;
    };
    let is_version = tail.contains('.')
        && tail
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    if is_version && head.bytes().any(|b| b.is_ascii_alphabetic()) {
        head
    } else {
        name
    }
}

/// Drops the punctuation a name cannot end with (`Foo.` at the end of a sentence, `Foo-` before
/// a version).
fn trim_name(name: &[u8]) -> &[u8] {
    let end = name
        .iter()
        .rposition(u8::is_ascii_alphanumeric)
        .map_or(0, |i| i + 1);
    name.get(..end).unwrap_or_default()
}

/// The name run of `bytes` that the match `start..end` begins in (or the first one inside the
/// match), extended to its full width: a match of `get` inside `WGETbot/1.0` gives `WGETbot`.
/// A match inside a URL or an e-mail address names nothing (`msnbot` in
/// `+http://search.msn.com/msnbot.htm` is not a product).
pub(crate) fn name_around(bytes: &[u8], start: usize, end: usize) -> Option<&str> {
    let inside = bytes.get(start..end)?;
    let first = start + inside.iter().position(|&b| is_name_byte(b))?;
    let before = bytes.get(..first)?;
    let word_start = before
        .iter()
        .rposition(|&b| is_word_break(b))
        .map_or(0, |i| i + 1);
    let after = bytes.get(first..)?;
    let word_end = first
        + after
            .iter()
            .position(|&b| is_word_break(b))
            .unwrap_or(after.len());
    if is_contact(bytes.get(word_start..word_end)?) {
        return None;
    }
    let begin = before
        .iter()
        .rposition(|&b| !is_name_byte(b))
        .map_or(0, |i| i + 1);
    leading_name(bytes.get(begin..)?).map(|(name, _)| name)
}

/// Bytes that separate the words of a user-agent: whitespace and the comment punctuation.
pub(crate) fn is_word_break(byte: u8) -> bool {
    byte.is_ascii_whitespace() || matches!(byte, b'(' | b')' | b';' | b',')
}

/// Whether a user-agent word is contact information (a URL or an e-mail address) rather than a
/// product: crawlers write `+http://example.com/bot.html`, `http://...`, `www.example.com` or
/// `crawler@example.com`.
pub(crate) fn is_contact(word: &[u8]) -> bool {
    let word = word.strip_prefix(b"+").unwrap_or(word);
    word.windows(3).any(|w| w == b"://")
        || word.contains(&b'@')
        || starts_with_ignore_case(word, b"http:")
        || starts_with_ignore_case(word, b"https:")
        || starts_with_ignore_case(word, b"www.")
}

pub(crate) fn starts_with_ignore_case(haystack: &[u8], prefix: &[u8]) -> bool {
    haystack
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// The longest name-like word of a pattern's source, after undoing `\` escapes of punctuation
/// (`archive\.org_bot` reads as `archive.org_bot`).
pub(crate) fn longest_word(pattern: &str) -> Option<String> {
    let mut unescaped = Vec::with_capacity(pattern.len());
    let mut bytes = pattern.bytes();
    while let Some(byte) = bytes.next() {
        if byte != b'\\' {
            unescaped.push(byte);
            continue;
        }
        match bytes.next() {
            Some(next) if next.is_ascii_punctuation() => unescaped.push(next),
            // `\d`, `\w`, ...: a class, never part of a name.
            _ => unescaped.push(b' '),
        }
    }
    let mut best: Option<&str> = None;
    let mut rest = unescaped.as_slice();
    while let Some(start) = rest.iter().position(|&b| is_name_byte(b)) {
        let Some(tail) = rest.get(start..) else { break };
        let len = tail
            .iter()
            .position(|&b| !is_name_byte(b))
            .unwrap_or(tail.len());
        if let Some((name, _)) = leading_name(tail.get(..len).unwrap_or_default())
            && best.is_none_or(|best| name.len() > best.len())
        {
            best = Some(name);
        }
        rest = tail.get(len..).unwrap_or_default();
    }
    best.map(str::to_owned)
}

/// The robots.txt tokens of a bot that no catalog entry documents, in fallback order, from its
/// name alone (so that every header with that name gets the same): the name in lower case, its
/// words run together when it has several (`James BOT` is `jamesbot`); then what a robots.txt
/// group written as the name reduces to, its first word (`james`, and sites write
/// `User-agent: linguee` for `Linguee Bot`); or, for a name of one word ending in `bot` or
/// `robot`, the name without it when that leaves three bytes or more (`Veoozbot` also answers to
/// `veooz`, as its operator documents; robots.txt files name crawlers so as often as not:
/// `omgili` beside `omgilibot`, `seokicks` beside `seokicks-robot`).
///
/// ```text
/// XML-Sitemaps  -> xml-sitemaps
/// James BOT     -> jamesbot, james
/// Veoozbot      -> veoozbot, veooz
/// ```
pub(crate) fn tokens_of(name: &str) -> Vec<String> {
    let joined: String = name.split(' ').collect::<String>().to_ascii_lowercase();
    let mut tokens = vec![joined.clone()];
    let mut add = |token: String| {
        if !token.is_empty() && !tokens.contains(&token) {
            tokens.push(token);
        }
    };
    match name.split_once(' ') {
        Some((first, _)) => add(first.to_ascii_lowercase()),
        None => {
            let stem = ["robot", "bot"]
                .iter()
                .find_map(|suffix| joined.strip_suffix(suffix))
                .map(|stem| stem.trim_end_matches(['-', '_', '.']));
            if let Some(stem) = stem.filter(|stem| stem.len() >= 3) {
                add(stem.to_owned());
            }
        }
    }
    tokens
}

/// The bot whose name, or first robots.txt token, is `name` (ignoring ASCII case): the bot a
/// product of that name is.
pub(crate) fn find_bot(bots: &[Bot], name: &str) -> Option<usize> {
    bots.iter().position(|bot| {
        bot.name.eq_ignore_ascii_case(name)
            || bot
                .tokens
                .first()
                .is_some_and(|token| token.eq_ignore_ascii_case(name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_names() {
        let cases: &[(&str, Option<(&str, bool)>)] = &[
            ("FooBot/1.0", Some(("FooBot", true))),
            ("NerdyBot", Some(("NerdyBot", false))),
            ("(+Bar-Crawler;", Some(("Bar-Crawler", false))),
            ("archive.org_bot", Some(("archive.org_bot", false))),
            ("Yahoo!", Some(("Yahoo", false))),
            ("Foo-/2", Some(("Foo", true))),
            ("008/0.83", Some(("008", true))),
            ("+++", None),
            ("", None),
        ];
        for &(word, expected) in cases {
            assert_eq!(leading_name(word.as_bytes()), expected, "{word:?}");
        }
    }

    #[test]
    fn tokens_of_names() {
        let cases: &[(&str, &[&str])] = &[
            ("XML-Sitemaps", &["xml-sitemaps"]),
            ("James BOT", &["jamesbot", "james"]),
            ("ETI SEO bot", &["etiseobot", "eti"]),
            ("Veoozbot", &["veoozbot", "veooz"]),
            ("seokicks-robot", &["seokicks-robot", "seokicks"]),
            ("archive.org_bot", &["archive.org_bot", "archive.org"]),
            ("spbot", &["spbot"]),
            ("Bot", &["bot"]),
            ("AcademicBotRTU", &["academicbotrtu"]),
            ("changedetection.com", &["changedetection.com"]),
            ("008", &["008"]),
        ];
        for &(name, expected) in cases {
            assert_eq!(tokens_of(name), expected, "{name}");
        }
    }

    #[test]
    fn versions_in_names() {
        let cases: &[(&str, &str)] = &[
            ("grub-client-1.0.4", "grub-client"),
            ("Grover-1.18", "Grover"),
            ("Foo-Bot_v2", "Foo-Bot_v2"),
            ("psbot-image", "psbot-image"),
            ("Y-2.0", "Y"),
            ("1-2.0", "1-2.0"),
            ("foo-1.", "foo-1."),
            ("foo-1", "foo-1"),
        ];
        for &(name, expected) in cases {
            assert_eq!(without_version(name), expected, "{name}");
        }
    }

    #[test]
    fn longest_words_of_patterns() {
        let cases: &[(&str, Option<&str>)] = &[
            ("archive\\.org_bot", Some("archive.org_bot")),
            ("^Seekbot", Some("Seekbot")),
            ("Mediapartners \\(Googlebot\\)", Some("Mediapartners")),
            ("\\d+\\.\\d+", None),
        ];
        for &(pattern, expected) in cases {
            assert_eq!(longest_word(pattern).as_deref(), expected, "{pattern}");
        }
    }
}
