//! The part of a URL that robots.txt rules are matched against (docs/robots-txt.md, "URL to path").

use std::borrow::Cow;

/// The path, parameters and query of `url`, without the fragment, as Google's
/// `GetPathParamsQuery` extracts them.
///
/// The URL is never normalised or decoded, the scheme and host are not inspected, and anything
/// without a path gives `/`. A leading `//` starts a network path, a first segment without a
/// scheme is taken as the host, and a result that would begin with `?` or `;` gets a `/` in
/// front, which is the only case that allocates.
///
/// ```
/// use robots_audit_engine::path_params_query;
///
/// assert_eq!(&*path_params_query(b"https://example.com/a/b?c=d#frag"), b"/a/b?c=d");
/// assert_eq!(&*path_params_query(b"example.com?a"), b"/?a");
/// assert_eq!(&*path_params_query(b"//host/b/c"), b"/b/c");
/// assert_eq!(&*path_params_query(b""), b"/");
/// ```
#[must_use]
pub fn path_params_query(url: &[u8]) -> Cow<'_, [u8]> {
    let search_start = if url.starts_with(b"//") { 2 } else { 0 };
    let tail = url.get(search_start..).unwrap_or_default();
    let Some(early_path) = find_path_start(tail) else {
        return Cow::Borrowed(b"/");
    };
    // `://` only marks a scheme when it comes before any path, parameter or query; its first
    // slash is then the first of those bytes.
    let has_scheme = early_path > 0
        && tail.get(early_path - 1) == Some(&b':')
        && tail.get(early_path..early_path + 2) == Some(b"//".as_slice());
    let path_start = if has_scheme {
        let authority = early_path + 2;
        match tail.get(authority..).and_then(find_path_start) {
            Some(offset) => authority + offset,
            None => return Cow::Borrowed(b"/"),
        }
    } else {
        early_path
    };
    let path_end = match memchr::memchr(b'#', tail) {
        Some(hash) if hash < path_start => return Cow::Borrowed(b"/"),
        Some(hash) => hash,
        None => tail.len(),
    };
    let path = tail.get(path_start..path_end).unwrap_or_default();
    if path.first() == Some(&b'/') {
        Cow::Borrowed(path)
    } else {
        let mut prefixed = Vec::with_capacity(path.len() + 1);
        prefixed.push(b'/');
        prefixed.extend_from_slice(path);
        Cow::Owned(prefixed)
    }
}

/// The first `/`, `?` or `;`.
fn find_path_start(bytes: &[u8]) -> Option<usize> {
    memchr::memchr3(b'/', b'?', b';', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_cases() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b"/"),
            (b"http://www.example.com", b"/"),
            (b"http://www.example.com/", b"/"),
            (b"http://www.example.com/a", b"/a"),
            (b"http://www.example.com/a/", b"/a/"),
            (
                b"http://www.example.com/a/b?c=http://d.e/",
                b"/a/b?c=http://d.e/",
            ),
            (
                b"http://www.example.com/a/b?c=d&e=f#fragment",
                b"/a/b?c=d&e=f",
            ),
            (b"example.com", b"/"),
            (b"example.com/", b"/"),
            (b"example.com/a", b"/a"),
            (b"example.com/a/", b"/a/"),
            (b"example.com/a/b?c=d&e=f#fragment", b"/a/b?c=d&e=f"),
            (b"a", b"/"),
            (b"a/", b"/"),
            (b"/a", b"/a"),
            (b"a/b", b"/b"),
            (b"example.com?a", b"/?a"),
            (b"example.com;a", b"/;a"),
            (b"example.com/a;b#c", b"/a;b"),
            (b"//a/b/c", b"/b/c"),
            (b"http://h#/a", b"/"),
            (b"http://h/a#", b"/a"),
            (b"http://user:pw@h:8080/A%2f?Q#f", b"/A%2f?Q"),
            (b"/a?b=http://c/d", b"/a?b=http://c/d"),
            (b"h?x://y", b"/?x://y"),
            (b"//", b"/"),
            (b"///a", b"/a"),
            (b"http:///a", b"/a"),
            (b"#/a", b"/"),
            (b"/\xFF\x00", b"/\xFF\x00"),
            (b"http:/a", b"/a"),
            (b"a:///b", b"/b"),
            (b"://x", b"/"),
            (b"x://", b"/"),
            (b"a:/b://c/d", b"/b://c/d"),
            (b"ftp://h?q", b"/?q"),
        ];
        for (url, expected) in cases {
            assert_eq!(&*path_params_query(url), *expected, "url {url:?}");
        }
    }

    #[test]
    fn only_a_prefixed_slash_allocates() {
        assert!(matches!(path_params_query(b"http://h/a"), Cow::Borrowed(_)));
        assert!(matches!(path_params_query(b"h?a"), Cow::Owned(_)));
    }
}
