//! Rule patterns: escaping, the index.htm rewrite and the linear wildcard matcher of candidates
//! kept out of automata (docs/robots-txt.md: "Percent-encoding", "The index.htm rule",
//! "Pattern matching").

use std::borrow::Cow;

const UPPER_HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Normalises an allow or disallow value the way Google's `MaybeEscapePattern` does.
///
/// `%` followed by two hex digits gets its digits uppercased, every byte at or above `0x80`
/// becomes `%XX`, and everything else is kept: nothing is decoded, and reserved ASCII such as
/// space, `?` or `:` is not encoded. A pattern's priority is the length of this output.
///
/// ```
/// use robots_audit_engine::escape_pattern;
///
/// assert_eq!(&*escape_pattern(b"/a%2fb"), b"/a%2Fb");
/// assert_eq!(&*escape_pattern("/ä".as_bytes()), b"/%C3%A4");
/// assert_eq!(&*escape_pattern(b"/%zz %62"), b"/%zz %62");
/// ```
#[must_use]
pub fn escape_pattern(value: &[u8]) -> Cow<'_, [u8]> {
    let mut extra = 0usize;
    let mut lowercase_hex = false;
    let mut i = 0;
    while let Some(&byte) = value.get(i) {
        if let Some((high, low)) = percent_digits(value, i) {
            lowercase_hex |= high.is_ascii_lowercase() || low.is_ascii_lowercase();
            i += 3;
            continue;
        }
        if byte >= 0x80 {
            extra += 2;
        }
        i += 1;
    }
    if extra == 0 && !lowercase_hex {
        return Cow::Borrowed(value);
    }
    let mut escaped = Vec::with_capacity(value.len() + extra);
    let mut i = 0;
    while let Some(&byte) = value.get(i) {
        if let Some((high, low)) = percent_digits(value, i) {
            escaped.extend_from_slice(&[b'%', high.to_ascii_uppercase(), low.to_ascii_uppercase()]);
            i += 3;
            continue;
        }
        if byte >= 0x80 {
            escaped.extend_from_slice(&[
                b'%',
                UPPER_HEX[usize::from(byte >> 4)],
                UPPER_HEX[usize::from(byte & 0x0F)],
            ]);
        } else {
            escaped.push(byte);
        }
        i += 1;
    }
    Cow::Owned(escaped)
}

/// The two hex digits of a `%xx` escape starting at `at`, if there is one.
fn percent_digits(value: &[u8], at: usize) -> Option<(u8, u8)> {
    match value.get(at..at + 3)? {
        [b'%', high, low] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit() => {
            Some((*high, *low))
        }
        _ => None,
    }
}

/// For an allow pattern whose last `/` starts `/index.htm`, the length of the prefix up to and
/// including that slash: Google also allows `prefix` + `$` at priority `prefix + 1`.
pub(crate) fn index_htm_prefix(pattern: &[u8]) -> Option<usize> {
    let slash = memchr::memrchr(b'/', pattern)?;
    pattern
        .get(slash..)?
        .starts_with(b"/index.htm")
        .then_some(slash + 1)
}

/// [`glob_matches_parts`] on a whole pattern, its final `$` included.
pub(crate) fn glob_matches(pattern: &[u8], path: &[u8]) -> bool {
    match pattern.split_last() {
        Some((b'$', body)) => glob_matches_parts(body, true, path),
        _ => glob_matches_parts(pattern, false, path),
    }
}

/// Whether a pattern matches `path` under Google's rules: anchored at the path start, a prefix
/// match unless `anchored_end` (the pattern's final `$`, removed from `body`), and `*` matching
/// any run of bytes.
///
/// Each `*`-separated literal is found at its leftmost position after the previous one. An
/// earliest placement never rules out a later literal, so this needs no backtracking and costs
/// at most O(path × pattern).
pub(crate) fn glob_matches_parts(body: &[u8], anchored_end: bool, path: &[u8]) -> bool {
    let mut literals = body.split(|byte| *byte == b'*');
    let first = literals.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let Some(last) = literals.next_back() else {
        return !anchored_end || path.len() == first.len();
    };
    // With an end anchor the last literal must sit at the very end, so the middle literals
    // have to fit before it.
    let end = if anchored_end {
        match path.len().checked_sub(last.len()) {
            Some(end) if end >= first.len() && path.ends_with(last) => end,
            _ => return false,
        }
    } else {
        path.len()
    };
    let mut at = first.len();
    for literal in literals {
        let Some(found) = find(path.get(at..end).unwrap_or_default(), literal) else {
            return false;
        };
        at += found + literal.len();
    }
    anchored_end || find(path.get(at..).unwrap_or_default(), last).is_some()
}

/// Literals at least this long are found with a substring searcher ([`memchr::memmem`]).
const SEARCHER_NEEDLE_LEN: usize = 64;
/// Literals of two bytes or more are found with a substring searcher in a haystack at least
/// this long.
const SEARCHER_HAYSTACK_LEN: usize = 1024;

/// The first occurrence of `needle` in `haystack`. Paths and literals are short, so checking
/// each occurrence of the first byte beats building a substring searcher per call. But that
/// compares up to the literal's length at each occurrence, and a path can hold its first byte
/// everywhere. So two cases go to a searcher, whose prefilter skips ahead on the literal's
/// rarer bytes and whose worst case is linear in the two lengths:
/// - a literal of [`SEARCHER_NEEDLE_LEN`] or more bytes: `/*aaaa...ab` against `/aaaa...a`,
///   both a stranger's (the rule in a robots.txt, the path in a log line), would cost the
///   product of their lengths;
/// - a haystack of [`SEARCHER_HAYSTACK_LEN`] or more bytes: a linear match costs each rule the
///   path's length, and a path of 100 KB of `z` would stop at each byte for every rule
///   `/*z*zq<n>` of a robots.txt.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    if needle.len() >= SEARCHER_NEEDLE_LEN
        || (!rest.is_empty() && haystack.len() >= SEARCHER_HAYSTACK_LEN)
    {
        return memchr::memmem::find(haystack, needle);
    }
    memchr::memchr_iter(first, haystack).find(|&at| {
        haystack
            .get(at + 1..)
            .is_some_and(|tail| tail.starts_with(rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_maybe_escape_pattern() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b""),
            (b"/a/b", b"/a/b"),
            (b"%aa", b"%AA"),
            (b"%aA", b"%AA"),
            (b"/%2f%2F", b"/%2F%2F"),
            (b"/%62%61%7A", b"/%62%61%7A"),
            (b"/%", b"/%"),
            (b"/%a", b"/%a"),
            (b"/%zz", b"/%zz"),
            (b"/%%2f", b"/%%2F"),
            (b"/\xC3\xA4", b"/%C3%A4"),
            (b"/\xFF\x80", b"/%FF%80"),
            (b"/a b?c:d\"", b"/a b?c:d\""),
            (b"*$", b"*$"),
        ];
        for (value, expected) in cases {
            assert_eq!(&*escape_pattern(value), *expected, "value {value:?}");
        }
        assert!(matches!(escape_pattern(b"/plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn index_htm_prefix_needs_the_last_segment() {
        let cases: &[(&[u8], Option<usize>)] = &[
            (b"/index.html", Some(1)),
            (b"/d/index.htm", Some(3)),
            (b"/d/index.htm5", Some(3)),
            (b"/d/index.htm*", Some(3)),
            (b"/*/index.html$", Some(3)),
            (b"/d/Index.html", None),
            (b"/index.html/x", None),
            (b"/d/x/index.ht", None),
            (b"index.html", None),
        ];
        for (pattern, expected) in cases {
            assert_eq!(index_htm_prefix(pattern), *expected, "pattern {pattern:?}");
        }
    }

    #[test]
    fn glob_matches_wildcards_and_anchor() {
        let cases: &[(&[u8], &[u8], bool)] = &[
            (b"", b"/", true),
            (b"/", b"/anything", true),
            (b"/a", b"/", false),
            (b"/*ab", b"/aab", true),
            (b"/*a*a*a", b"/aaa", true),
            (b"/*a*a*a", b"/aa", false),
            (b"/a$", b"/a", true),
            (b"/a$", b"/ab", false),
            (b"/*$", b"/x", true),
            (b"/*.php$", b"/a.php", true),
            (b"/*.php$", b"/a.php5", false),
            (b"/*.php$", b"/a.php.php", true),
            (b"/a*b$", b"/ab", true),
            (b"/ab*b$", b"/ab", false),
            (b"/a$b", b"/a$bc", true),
            (b"/a$$", b"/a$", true),
            (b"/a$$", b"/a$$", false),
            (b"$", b"/", false),
            (b"$", b"", true),
            (b"**", b"/", true),
            (b"a", b"/a", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(
                glob_matches(pattern, path),
                *expected,
                "pattern {pattern:?} path {path:?}"
            );
        }
    }

    /// The first occurrence by brute force: every position, every byte.
    fn first_window(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        (0..=haystack.len()).find(|&at| {
            haystack
                .get(at..)
                .is_some_and(|tail| tail.starts_with(needle))
        })
    }

    #[test]
    fn a_long_literal_is_found_where_it_first_is() {
        let long = [b"a".repeat(4_990), b"b".to_vec()].concat();
        let path = [b"/".to_vec(), b"a".repeat(100_000), b"b".to_vec()].concat();
        assert_eq!(find(&path, &long), Some(path.len() - long.len()));
        assert_eq!(find(&path[..path.len() - 1], &long), None);
        let pattern = [b"/*".to_vec(), long.clone()].concat();
        assert!(glob_matches(&pattern, &path));
        assert!(!glob_matches(&pattern, &path[..path.len() - 1]));
        assert!(glob_matches(&[pattern.as_slice(), b"$"].concat(), &path));
    }

    proptest::proptest! {
        /// Short literals and long ones (at and past [`SEARCHER_NEEDLE_LEN`]), in haystacks short
        /// and long (at and past [`SEARCHER_HAYSTACK_LEN`]), of two bytes, one of them rare, so
        /// that near misses abound: the first occurrence, as brute force finds it.
        #[test]
        fn find_agrees_with_brute_force(
            haystack in proptest::collection::vec(proptest::sample::select(b"aaab".to_vec()), 0..1600),
            needle in proptest::collection::vec(proptest::sample::select(b"aaab".to_vec()), 0..130),
            cut in 0usize..1600,
        ) {
            proptest::prop_assert_eq!(find(&haystack, &needle), first_window(&haystack, &needle));
            // The needle twice, inside the haystack and at its end: found where it first is.
            let at = cut.min(haystack.len());
            let planted = [&haystack[..at], &needle, &haystack[at..], &needle].concat();
            proptest::prop_assert_eq!(find(&planted, &needle), first_window(&planted, &needle));
        }
    }
}
