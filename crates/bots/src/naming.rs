//! Product names: reading a bot's name out of a user-agent word or out of an imported pattern.

use regex_automata::nfa::thompson::Compiler;
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_syntax::hir::Hir;

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

/// Drops the punctuation a name cannot end with (`Foo.` at the end of a sentence, `Foo-` before
/// a version).
fn trim_name(name: &[u8]) -> &[u8] {
    let end = name
        .iter()
        .rposition(u8::is_ascii_alphanumeric)
        .map_or(0, |i| i + 1);
    name.get(..end).unwrap_or_default()
}

/// The bot name for an imported crawler-user-agents pattern: the product name that the pattern
/// hits in most of its example `instances` (the earliest on a tie), or, when it hits none, the
/// longest name-like word of the pattern itself. `Googlebot\/` with instance
/// `Googlebot/2.1 (+http://www.google.com/bot.html)` gives `Googlebot`.
pub(crate) fn imported_name(pattern: &str, hir: &Hir, instances: &[String]) -> Option<String> {
    let mut votes: Vec<(&str, usize)> = Vec::new();
    // A bare NFA simulation: an import names about 1,500 patterns, each searched in a couple of
    // short strings, where building a full `meta::Regex` per pattern would cost far more time.
    let matcher = Compiler::new()
        .build_from_hir(hir)
        .ok()
        .filter(|_| !instances.is_empty())
        .and_then(|nfa| PikeVM::new_from_nfa(nfa).ok());
    if let Some(vm) = matcher {
        let mut cache = vm.create_cache();
        for instance in instances {
            let bytes = instance.as_bytes();
            let Some(found) = vm.find(&mut cache, bytes) else {
                continue;
            };
            let Some(name) = name_around(bytes, found.start(), found.end()) else {
                continue;
            };
            match votes.iter_mut().find(|(seen, _)| *seen == name) {
                Some((_, count)) => *count += 1,
                None => votes.push((name, 1)),
            }
        }
    }
    // `max_by_key` keeps the last of equal maxima; reversing keeps the earliest.
    if let Some((name, _)) = votes.iter().rev().max_by_key(|(_, count)| *count) {
        return Some((*name).to_owned());
    }
    longest_word(pattern)
}

/// The name run of `bytes` that the match `start..end` begins in (or the first one inside the
/// match), extended to its full width: a match of `get` inside `WGETbot/1.0` gives `WGETbot`.
/// A match inside a URL or an e-mail address names nothing (`msnbot` in
/// `+http://search.msn.com/msnbot.htm` is not a product).
fn name_around(bytes: &[u8], start: usize, end: usize) -> Option<&str> {
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
fn longest_word(pattern: &str) -> Option<String> {
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
        if let Some((name, _)) = leading_name(tail.get(..len).unwrap_or_default()) {
            if best.is_none_or(|best| name.len() > best.len()) {
                best = Some(name);
            }
        }
        rest = tail.get(len..).unwrap_or_default();
    }
    best.map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::compile_pattern;

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
    fn imported_names() {
        let cases: &[(&str, &[&str], &str)] = &[
            (
                "Googlebot\\/",
                &["Googlebot/2.1 (+http://www.google.com/bot.html)"],
                "Googlebot",
            ),
            (
                "[wW]get",
                &[
                    "WGETbot/1.0 (+http://wget.alanreed.org)",
                    "Wget/1.14 (linux-gnu)",
                    "Wget/1.21",
                ],
                "Wget",
            ),
            (
                "msnbot",
                &[
                    "adidxbot/1.1 (+http://search.msn.com/msnbot.htm)",
                    "msnbot/2.0b",
                    "msnbot-media/1.1",
                ],
                "msnbot",
            ),
            (
                "AdsBot-Google([^-]|$)",
                &["AdsBot-Google (+http://www.google.com/adsbot.html)"],
                "AdsBot-Google",
            ),
            (
                "Slurp",
                &[
                    "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
                ],
                "Slurp",
            ),
            ("archive\\.org_bot", &[], "archive.org_bot"),
            ("^Seekbot", &["nothing that matches"], "Seekbot"),
            ("Mediapartners \\(Googlebot\\)", &[], "Mediapartners"),
            (
                "008\\/",
                &["Mozilla/5.0 (compatible; 008/0.83; http://www.80legs.com/webcrawler.html)"],
                "008",
            ),
        ];
        for &(pattern, instances, expected) in cases {
            let compiled = compile_pattern(pattern).unwrap();
            let instances: Vec<String> = instances.iter().map(|s| (*s).to_owned()).collect();
            assert_eq!(
                imported_name(pattern, &compiled.hir, &instances).as_deref(),
                Some(expected),
                "{pattern}"
            );
        }
    }

    #[test]
    fn a_pattern_without_letters_or_digits_has_no_name() {
        let compiled = compile_pattern("\\d+\\.\\d+").unwrap();
        assert_eq!(imported_name("\\d+\\.\\d+", &compiled.hir, &[]), None);
    }
}
