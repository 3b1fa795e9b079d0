//! Small pieces the text formats share: quoted fields, request lines, numbers, URLs.

use wide::i8x16;

use crate::record::OriginParts;
use crate::skip::SkipReason;

/// A quoted field whose opening `"` is the first byte of `input`: its content, whether it
/// holds backslash escapes, and what follows the closing quote.
///
/// A quote ends the field only when a space or the end of the line follows it, so that an
/// unescaped quote inside a user-agent (some servers write them) does not end the field early.
#[inline]
pub(crate) fn quoted(input: &[u8]) -> Result<(&[u8], bool, &[u8]), SkipReason> {
    quoted_by(input, |body| memchr::memchr2(b'"', b'\\', body))
}

/// [`quoted`] for a field of a few dozen bytes, such as a request line: its first quote or
/// backslash is looked for as [`memchr2_near`] does, which costs less than `memchr2`'s setup.
#[inline]
pub(crate) fn near_quoted(input: &[u8]) -> Result<(&[u8], bool, &[u8]), SkipReason> {
    quoted_by(input, |body| memchr2_near(b'"', b'\\', body))
}

/// [`quoted`], with the search for the first quote or backslash of the field's body.
#[inline(always)]
fn quoted_by(
    input: &[u8],
    first_quote_or_backslash: impl Fn(&[u8]) -> Option<usize>,
) -> Result<(&[u8], bool, &[u8]), SkipReason> {
    // Most fields hold neither quotes nor escapes, so the first quote or backslash is usually
    // the closing quote; that case is answered here, inline, and any other by the full loop.
    if let Some(body) = input.strip_prefix(b"\"")
        && let Some(close) = first_quote_or_backslash(body)
        && body.get(close) == Some(&b'"')
    {
        let (field, after) = body.split_at(close);
        let after = after.get(1..).unwrap_or_default();
        if after.is_empty() || after.first() == Some(&b' ') {
            return Ok((field, false, after));
        }
    }
    quoted_in_full(input)
}

/// [`quoted`] for any field: escapes, quotes inside, damage.
#[inline(never)]
pub(crate) fn quoted_in_full(input: &[u8]) -> Result<(&[u8], bool, &[u8]), SkipReason> {
    let body = input.strip_prefix(b"\"").ok_or(SkipReason::BadQuoting)?;
    // One pass finds the closing quote and notes escapes on the way; a backslash skips the
    // byte after it, so `\"` never closes the field.
    let mut escaped = false;
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b'"', b'\\', body.get(at..).unwrap_or_default()) {
        let position = at + found;
        if body.get(position) == Some(&b'\\') {
            escaped = true;
            at = position + 2;
            continue;
        }
        let after = body.get(position + 1..).unwrap_or_default();
        if after.is_empty() || after.first() == Some(&b' ') {
            let (field, _) = body.split_at(position);
            return Ok((field, escaped, after));
        }
        at = position + 1;
    }
    Err(SkipReason::BadQuoting)
}

/// How many bytes [`find_near`] looks at sixteen at a time before handing over to `memchr`.
const NEAR: usize = 64;

/// Sixteen bytes as the lanes of one vector, each read as a signed byte.
#[inline(always)]
fn lanes(chunk: &[u8; 16]) -> i8x16 {
    i8x16::new(chunk.map(u8::cast_signed))
}

/// The bytes of `chunk` equal to one of `needles`, as one bit each (bit `i` for byte `i`).
#[inline(always)]
fn bytes_equal<const N: usize>(chunk: &[u8; 16], needles: [u8; N]) -> u32 {
    let chunk = lanes(chunk);
    needles
        .iter()
        .fold(i8x16::ZERO, |found, &needle| {
            found | chunk.simd_eq(i8x16::splat(needle.cast_signed()))
        })
        .to_bitmask()
}

/// The position of the first byte of `haystack` equal to one of `needles`, for a byte usually
/// found within a few dozen bytes (the end of a short field, a target's `#`): `memchr`'s
/// vectorised search costs more to set up than looking at so few bytes does. The first
/// [`NEAR`] bytes are compared sixteen at a time, a shorter end as the last sixteen bytes of the
/// haystack (or byte by byte when it is shorter than that), and the rest of a longer haystack
/// goes to `far`.
#[inline(always)]
fn find_near<const N: usize>(
    haystack: &[u8],
    needles: [u8; N],
    far: impl Fn(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let mut checked = 0;
    let mut rest = haystack;
    while checked < NEAR
        && let Some((chunk, after)) = rest.split_first_chunk::<16>()
    {
        let found = bytes_equal(chunk, needles);
        if found != 0 {
            return Some(checked + found.trailing_zeros() as usize);
        }
        checked += 16;
        rest = after;
    }
    if rest.len() >= 16 {
        return far(rest).map(|at| checked + at);
    }
    match haystack.last_chunk::<16>() {
        // The last sixteen bytes overlap those already looked at, none of which is a needle:
        // the lowest flagged byte is the first needle of the rest.
        Some(last) if !rest.is_empty() => {
            let found = bytes_equal(last, needles);
            (found != 0).then(|| haystack.len() - 16 + found.trailing_zeros() as usize)
        }
        Some(_) => None,
        None => haystack.iter().position(|b| needles.contains(b)),
    }
}

/// The position of the first `needle` in `haystack`, as `memchr::memchr` finds it, at a lower
/// cost when it is usually within a few dozen bytes (a field of a log line, a target's `#`):
/// the first 64 bytes are compared sixteen at a time in place, and only the rest of a longer
/// haystack goes to `memchr`.
///
/// ```
/// use robots_audit_logs::memchr_near;
///
/// assert_eq!(memchr_near(b'#', b"/page#top"), Some(5));
/// assert_eq!(memchr_near(b'#', b"/page"), None);
/// ```
#[inline]
pub fn memchr_near(needle: u8, haystack: &[u8]) -> Option<usize> {
    find_near(haystack, [needle], |rest| memchr::memchr(needle, rest))
}

/// `memchr::memchr2` for needles usually within a few dozen bytes (see [`find_near`]).
#[inline]
pub(crate) fn memchr2_near(needle1: u8, needle2: u8, haystack: &[u8]) -> Option<usize> {
    find_near(haystack, [needle1, needle2], |rest| {
        memchr::memchr2(needle1, needle2, rest)
    })
}

/// [`token`] for a field of a few dozen bytes at most (see [`find_near`]).
pub(crate) fn near_token(input: &[u8]) -> (&[u8], &[u8]) {
    split_at_space(input, memchr_near(b' ', input))
}

/// [`quoted`] for a field whose escapes do not matter to the caller (the request line, the
/// referer): its content and what follows the closing quote.
///
/// The closing quote is nearly always the first quote after the opening one, and a search for
/// one byte costs less than [`quoted`]'s search for two. That first quote is where [`quoted`]
/// ends the field too when a space or the line's end follows it and no backslash precedes it:
/// nothing before it could have closed the field, and no escape covers it. Anything else is
/// left to [`quoted`]'s full loop.
#[inline]
pub(crate) fn quoted_field(input: &[u8]) -> Result<(&[u8], &[u8]), SkipReason> {
    if let Some(body) = input.strip_prefix(b"\"")
        && let Some(close) = memchr::memchr(b'"', body)
    {
        let (field, after) = body.split_at(close);
        let after = after.get(1..).unwrap_or_default();
        if (after.is_empty() || after.first() == Some(&b' ')) && field.last() != Some(&b'\\') {
            return Ok((field, after));
        }
    }
    let (field, _, after) = quoted_in_full(input)?;
    Ok((field, after))
}

/// Splits `input` at its first space: the token and what follows the space (empty at the end).
pub(crate) fn token(input: &[u8]) -> (&[u8], &[u8]) {
    split_at_space(input, memchr::memchr(b' ', input))
}

/// [`token`] for fields of a few bytes (a status, a byte count, a method), where a plain loop
/// costs less than setting up a vectorised search.
pub(crate) fn short_token(input: &[u8]) -> (&[u8], &[u8]) {
    split_at_space(input, input.iter().position(|&b| b == b' '))
}

fn split_at_space(input: &[u8], space: Option<usize>) -> (&[u8], &[u8]) {
    match space {
        Some(space) => {
            let (token, rest) = input.split_at(space);
            (token, rest.get(1..).unwrap_or_default())
        }
        None => (input, &[]),
    }
}

/// An HTTP method: an RFC 9110 token of reasonable length starting with a letter, which rules
/// out the binary junk (TLS handshakes, port scans) and `-` placeholders that end up in
/// request lines.
fn is_method(method: &[u8]) -> bool {
    method.len() <= 32
        && method.first().is_some_and(u8::is_ascii_alphabetic)
        && method
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// `GET /path?q HTTP/1.1` into method and target. The target is everything between the first
/// space and the protocol, so a target with raw spaces stays whole; a request line without a
/// protocol (HTTP/0.9) is the method and the target.
pub(crate) fn request_line(line: &[u8]) -> Result<(&[u8], &[u8]), SkipReason> {
    let (method, rest) = match line.strip_prefix(b"GET ") {
        // Nearly every method is GET, which needs no checking.
        Some(rest) => (line.get(..3).unwrap_or_default(), rest),
        None => {
            let (method, rest) = short_token(line);
            if !is_method(method) {
                return Err(SkipReason::BadRequestLine);
            }
            (method, rest)
        }
    };
    let rest = rest.trim_ascii_end();
    // Nearly every request line ends in ` HTTP/1.1`, `HTTP/2.0` or the like: checked in place
    // before searching.
    if let Some(split) = rest.len().checked_sub(9) {
        let (target, protocol) = rest.split_at(split);
        if protocol.starts_with(b" HTTP/") && !target.is_empty() {
            return Ok((method, target));
        }
    }
    let target = match memchr::memrchr(b' ', rest) {
        Some(space)
            if rest
                .get(space + 1..)
                .is_some_and(|p| p.starts_with(b"HTTP/")) =>
        {
            rest.get(..space).unwrap_or_default().trim_ascii_end()
        }
        _ => rest,
    };
    if target.is_empty() || target == b"-" {
        return Err(SkipReason::BadRequestLine);
    }
    Ok((method, target))
}

/// Bytes of a host name as a DNS resolver returns it (Apache's `HostnameLookups On`), which
/// also covers IPv4 addresses: letters, digits, `-`, `.` and `_`.
static HOST_NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_';
        byte += 1;
    }
    table
};

/// The longest host name: 253 bytes.
pub(crate) const MAX_HOST_NAME_LEN: usize = 253;

/// A host name or IPv4 address: at most [`MAX_HOST_NAME_LEN`] bytes of [`HOST_NAME_BYTE`]s.
pub(crate) fn is_host_name(field: &[u8]) -> bool {
    !field.is_empty()
        && field.len() <= MAX_HOST_NAME_LEN
        && field.iter().all(|&b| HOST_NAME_BYTE[usize::from(b)])
}

/// The bytes of `chunk` that are not [`HOST_NAME_BYTE`]s, as one bit each (bit `i` for byte
/// `i`). Sixteen bytes are compared at once (SSE2 on x86-64, about 20 instructions where the
/// table takes four a byte); the test beside it holds it to the table for every byte.
#[inline(always)]
fn non_host_name_bytes(chunk: &[u8; 16]) -> u32 {
    let bytes = lanes(chunk);
    // The bytes within `low..=high`: moved so that `low` is the smallest signed byte, then
    // compared once.
    let within = |x: i8x16, low: u8, high: u8| {
        let moved = x - i8x16::splat((low ^ 0x80).cast_signed());
        i8x16::splat(((high - low + 1) ^ 0x80).cast_signed()).simd_gt(moved)
    };
    // `| 0x20` lowers the case of a letter and turns no other byte into a letter.
    let letters = within(bytes | i8x16::splat(0x20), b'a', b'z');
    let host = letters
        | within(bytes, b'0', b'9')
        | within(bytes, b'-', b'.')
        | bytes.simd_eq(i8x16::splat(b'_'.cast_signed()));
    !host.to_bitmask() & 0xFFFF
}

/// The length of the run of [`HOST_NAME_BYTE`]s that starts `input`, looked at sixteen bytes at
/// a time: what [`is_host_name`] checks byte by byte, found together with the byte that ends
/// the field, so that a line's usual host and client fields are checked and split in one pass.
#[inline]
pub(crate) fn host_name_len(input: &[u8]) -> usize {
    let mut checked = 0;
    let mut rest = input;
    while let Some((chunk, after)) = rest.split_first_chunk::<16>() {
        let others = non_host_name_bytes(chunk);
        if others != 0 {
            return checked + others.trailing_zeros() as usize;
        }
        checked += 16;
        rest = after;
    }
    // The tail, padded with a byte that ends the run.
    let mut padded = [0u8; 16];
    padded
        .get_mut(..rest.len())
        .unwrap_or_default()
        .copy_from_slice(rest);
    checked + non_host_name_bytes(&padded).trailing_zeros() as usize
}

/// The shape of an IPv6 address, bare or in brackets, maybe with a zone (`fe80::1%eth0`): at
/// most 45 bytes of hex digits, `:` and `.` (an embedded IPv4 address), at least two of them
/// colons. A shape, not a parse: it tells an address from a `host:port`, which has one colon
/// and letters past `f`, at a few instructions per line; whether the address is valid is the
/// verifier's question (crates/bots/src/verify.rs), and an invalid one is never `spoofed`.
pub(crate) fn is_ipv6(field: &[u8]) -> bool {
    let field = field
        .strip_prefix(b"[")
        .and_then(|f| f.strip_suffix(b"]"))
        .unwrap_or(field);
    let address = match memchr::memchr(b'%', field) {
        Some(zone) => field.get(..zone).unwrap_or_default(),
        None => field,
    };
    if address.len() > 45 {
        return false;
    }
    // One pass without a branch per byte: hex digits and letters alternate unpredictably in an
    // address, and a test per byte mispredicted often enough to cost more than the rest of the
    // line's shape checks.
    let (colons, others) = address.iter().fold((0usize, 0u8), |(colons, others), &b| {
        (
            colons + usize::from(b == b':'),
            others | u8::from(!IPV6_BYTE[usize::from(b)]),
        )
    });
    colons >= 2 && others == 0
}

/// Bytes of an IPv6 address, as [`HOST_NAME_BYTE`] is of a host name: hex digits, `:` and `.`
/// (an embedded IPv4 address).
static IPV6_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_hexdigit() || b == b':' || b == b'.';
        byte += 1;
    }
    table
};

/// The shape of a logged client (`%h`): an address, a host name, or `-`.
#[inline]
pub(crate) fn is_client(field: &[u8]) -> bool {
    is_host_name(field) || (memchr::memchr(b':', field).is_some() && is_ipv6(field))
}

/// The shape of a logged virtual host (`%v`): a host name, an IPv4 or IPv6 address.
pub(crate) fn is_vhost(host: &[u8]) -> bool {
    is_host_name(host) || is_ipv6(host)
}

/// Whether `field` starts like a date, `YYYY-MM-DD`: the first field of W3C, CloudFront, ALB
/// and Heritrix lines. Whether the date is valid is the time parser's question.
pub(crate) fn is_date_shaped(field: &[u8]) -> bool {
    match field.get(..10) {
        Some([y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2]) => [y1, y2, y3, y4, m1, m2, d1, d2]
            .iter()
            .all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// Whether `field` starts like an ISO 8601 date and time, `YYYY-MM-DDT`.
pub(crate) fn is_timestamp_shaped(field: &[u8]) -> bool {
    is_date_shaped(field) && matches!(field.get(10), Some(b'T' | b't'))
}

/// The value of a run of ASCII digits, `None` for anything else or an overflow.
pub(crate) fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// An HTTP status code; `-` (no response) is 0.
pub(crate) fn status(field: &[u8]) -> Result<u16, SkipReason> {
    // Nearly every status is three digits.
    if let &[
        hundreds @ b'0'..=b'9',
        tens @ b'0'..=b'9',
        ones @ b'0'..=b'9',
    ] = field
    {
        return Ok(u16::from(hundreds - b'0') * 100
            + u16::from(tens - b'0') * 10
            + u16::from(ones - b'0'));
    }
    if field == b"-" {
        return Ok(0);
    }
    number(field)
        .filter(|&s| s <= 999)
        .and_then(|s| u16::try_from(s).ok())
        .ok_or(SkipReason::BadStatus)
}

/// A byte count; `-` (nothing sent) is 0.
pub(crate) fn bytes(field: &[u8]) -> Result<u64, SkipReason> {
    if field == b"-" || field.is_empty() {
        return Ok(0);
    }
    number(field).ok_or(SkipReason::BadBytes)
}

/// `None` for the empty value marker `-` and for an empty field.
pub(crate) fn present(field: &[u8]) -> Option<&[u8]> {
    (!field.is_empty() && field != b"-").then_some(field)
}

/// Splits `host:port` (or `[v6]:port`) when the part after the last colon is a port number;
/// a bare IPv6 address is left whole.
pub(crate) fn split_host_port(authority: &[u8]) -> (&[u8], Option<u16>) {
    let Some(colon) = memchr::memrchr(b':', authority) else {
        return (authority, None);
    };
    let (host, port) = authority.split_at(colon);
    let port = port.get(1..).unwrap_or_default();
    let bracketed = host.starts_with(b"[") && host.ends_with(b"]");
    if memchr::memchr(b':', host).is_some() && !bracketed {
        return (authority, None);
    }
    match number(port).and_then(|p| u16::try_from(p).ok()) {
        Some(port) => (host, Some(port)),
        None => (authority, None),
    }
}

/// The client address of an `ip:port` field (ALB, ELB), without the port.
pub(crate) fn strip_port(client: &[u8]) -> &[u8] {
    match memchr::memrchr(b':', client) {
        Some(colon) if number(client.get(colon + 1..).unwrap_or_default()).is_some() => {
            client.get(..colon).unwrap_or_default()
        }
        _ => client,
    }
}

/// The scheme of an absolute URL (`https` of `https://host/`), when it has one.
pub(crate) fn url_scheme(url: &[u8]) -> Option<&[u8]> {
    let colon = memchr::memchr(b':', url)?;
    let scheme = url.get(..colon)?;
    let valid = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    valid.then_some(scheme)
}

/// Scheme, host and port of an absolute `scheme://authority/...` URL; `None` for a path.
pub(crate) fn url_origin(url: &[u8]) -> Option<OriginParts<'_>> {
    let scheme = url_scheme(url)?;
    let rest = url.get(scheme.len() + 1..)?.strip_prefix(b"//")?;
    let end = rest
        .iter()
        .position(|b| b"/?#".contains(b))
        .unwrap_or(rest.len());
    let authority = rest.get(..end)?;
    // Credentials (`user:pass@`) are not part of the origin.
    let authority = match memchr::memrchr(b'@', authority) {
        Some(at) => authority.get(at + 1..)?,
        None => authority,
    };
    if authority.is_empty() {
        return None;
    }
    let (host, port) = split_host_port(authority);
    Some(OriginParts {
        scheme: Some(scheme),
        host: Some(host),
        port,
    })
}

/// A URL a crawler or CDN logged: an absolute `http`, `https` or `ftp` URL, or a path (Fastly
/// logs the path under `url`).
///
/// # Errors
///
/// [`SkipReason::NotHttp`] for other schemes (Heritrix logs its `dns:` lookups), and
/// [`SkipReason::BadUrl`] for anything that is neither a URL nor a path.
pub(crate) fn fetched_url(url: &[u8]) -> Result<&[u8], SkipReason> {
    if url.starts_with(b"/") {
        return Ok(url);
    }
    let Some(scheme) = url_scheme(url) else {
        return Err(SkipReason::BadUrl);
    };
    let fetched = [&b"http"[..], b"https", b"ftp", b"ftps"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme));
    match (fetched, url_origin(url)) {
        (true, Some(_)) => Ok(url),
        (true, None) => Err(SkipReason::BadUrl),
        (false, _) => Err(SkipReason::NotHttp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_shapes() {
        let cases: [(&[u8], bool); 14] = [
            (b"192.0.2.1", true),
            (b"crawl-66-249-66-1.googlebot.com", true),
            (b"-", true),
            (b"2001:db8::1", true),
            (b"[2001:db8::1]", true),
            (b"fe80::1%eth0", true),
            (b"::ffff:192.0.2.1", true),
            (b"::", true),
            (b"www.example.com:443", false),
            (b"cafe.de:443", false),
            (b"", false),
            (b"2001:db8::g", false),
            (b"a b", false),
            (b"1:2:3:4:5:6:7:8:9:0:1:2:3:4:5:6:7:8:9:0:1:2:3:4:5", false),
        ];
        for (field, expected) in cases {
            assert_eq!(
                is_client(field),
                expected,
                "{:?}",
                String::from_utf8_lossy(field)
            );
        }
    }

    #[test]
    fn quoted_fields() {
        type Case = (
            &'static [u8],
            Result<(&'static [u8], bool, &'static [u8]), SkipReason>,
        );
        let cases: &[Case] = &[
            (
                b"\"GET / HTTP/1.1\" 200",
                Ok((b"GET / HTTP/1.1", false, b" 200")),
            ),
            (b"\"\"", Ok((b"", false, b""))),
            (br#""a \"b\" c" x"#, Ok((br#"a \"b\" c"#, true, b" x"))),
            (br#""ends in \\" x"#, Ok((br"ends in \\", true, b" x"))),
            (
                br#""say "hi"there" x"#,
                Ok((br#"say "hi"there"#, false, b" x")),
            ),
            // An unescaped quote before a space cannot be told from the field's end.
            (
                br#""say "hi" there""#,
                Ok((br#"say "hi"#, false, br#" there""#)),
            ),
            (b"\"unterminated", Err(SkipReason::BadQuoting)),
            (b"\"escaped end\\\"", Err(SkipReason::BadQuoting)),
            (b"no quote", Err(SkipReason::BadQuoting)),
        ];
        for (input, want) in cases {
            assert_eq!(&quoted(input), want, "{:?}", String::from_utf8_lossy(input));
            assert_eq!(
                &near_quoted(input),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        // Closing quotes and backslashes on both sides of the sixteen-at-a-time part.
        for len in 0..=NEAR + 20 {
            for at in 0..len {
                for byte in [b'"', b'\\'] {
                    let mut input = vec![b'"'];
                    input.extend(std::iter::repeat_n(b'#', len));
                    input[1 + at] = byte;
                    input.extend_from_slice(b"\" x");
                    assert_eq!(near_quoted(&input), quoted(&input), "{len} {at} {byte}");
                }
            }
        }
    }

    proptest::proptest! {
        /// The one pass of [`is_ipv6`] says what its definition says: at most 45 bytes of hex
        /// digits, `:` and `.`, two colons or more (brackets and a zone aside).
        #[test]
        fn ipv6_shapes_agree_with_the_definition(
            field in proptest::collection::vec(
                proptest::sample::select(b"09afAFgG:.[]% \xff".to_vec()),
                0..50,
            ),
        ) {
            let inner = field
                .strip_prefix(b"[")
                .and_then(|f| f.strip_suffix(b"]"))
                .unwrap_or(&field);
            let address = inner.split(|&b| b == b'%').next().unwrap_or_default();
            let defined = address.len() <= 45
                && address.iter().filter(|&&b| b == b':').count() >= 2
                && address
                    .iter()
                    .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
            proptest::prop_assert_eq!(is_ipv6(&field), defined);
        }

        #[test]
        fn near_searches_of_any_bytes(
            haystack in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            needle in proptest::prelude::any::<u8>(),
        ) {
            proptest::prop_assert_eq!(memchr_near(needle, &haystack), memchr::memchr(needle, &haystack));
            proptest::prop_assert_eq!(
                memchr2_near(needle, b'#', &haystack),
                memchr::memchr2(needle, b'#', &haystack)
            );
        }
    }

    #[test]
    fn near_searches_agree_with_memchr() {
        // Every length up to past the sixteen-at-a-time part, with the needle at every place,
        // bytes next to the needles' values, and bytes with the high bit set.
        let filler = b"!#\x1f\x21\x3b\x39\xa0\xff\xba\xbbab";
        for len in 0..=NEAR + 20 {
            let haystack: Vec<u8> = filler.iter().copied().cycle().take(len).collect();
            assert_eq!(memchr_near(b' ', &haystack), None);
            assert_eq!(memchr2_near(b':', b' ', &haystack), None);
            for at in 0..len {
                for needle in [b' ', b':', b'"', 0x00, 0x80, 0xff] {
                    let mut haystack = haystack.clone();
                    haystack[at] = needle;
                    // a second match further on must not be found first
                    if at + 3 < len {
                        haystack[at + 3] = needle;
                    }
                    let want = memchr::memchr(needle, &haystack);
                    assert_eq!(memchr_near(needle, &haystack), want, "{len} {at} {needle}");
                    let want = memchr::memchr2(needle, b' ', &haystack);
                    assert_eq!(memchr2_near(needle, b' ', &haystack), want);
                }
            }
        }
        assert_eq!(
            near_token(b"1.2.3.4 - - ["),
            (&b"1.2.3.4"[..], &b"- - ["[..])
        );
        assert_eq!(near_token(b"1.2.3.4"), (&b"1.2.3.4"[..], &b""[..]));
    }

    #[test]
    fn quoted_fields_without_escapes_agree_with_quoted() {
        let cases: &[&[u8]] = &[
            // the first quote closes the field
            b"\"GET / HTTP/1.1\" 200",
            b"\"-\" \"UA\"",
            b"\"\"",
            b"\"\" x",
            b"\"ends the line\"",
            // left to `quoted`: escapes before the end, a quote inside, an escaped quote
            br#""a \"b\" c" x"#,
            br#""ends in \\" x"#,
            br#""say "hi"there" x"#,
            br#""say "hi" there""#,
            br#""\" x" y"#,
            b"\"unterminated",
            b"\"escaped end\\\"",
            b"\"quote then text\"x",
            b"no quote",
            b"",
        ];
        for input in cases {
            let want = quoted(input).map(|(field, _, after)| (field, after));
            assert_eq!(
                quoted_field(input),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn request_lines() {
        type Case = (
            &'static [u8],
            Result<(&'static [u8], &'static [u8]), SkipReason>,
        );
        let cases: &[Case] = &[
            (b"GET /a?b HTTP/1.1", Ok((b"GET", b"/a?b"))),
            (b"GET / HTTP/1.1", Ok((b"GET", b"/"))),
            (b"GET  HTTP/1.1", Err(SkipReason::BadRequestLine)),
            (b"GET /x HTTP/2", Ok((b"GET", b"/x"))),
            (
                b"GET https://h:443/p HTTP/2.0",
                Ok((b"GET", b"https://h:443/p")),
            ),
            (b"GET /a b HTTP/1.0", Ok((b"GET", b"/a b"))),
            (b"GET /", Ok((b"GET", b"/"))),
            (b"M-SEARCH * HTTP/1.1", Ok((b"M-SEARCH", b"*"))),
            (b"-", Err(SkipReason::BadRequestLine)),
            (b"- - - ", Err(SkipReason::BadRequestLine)),
            (br"\x16\x03\x01\x00", Err(SkipReason::BadRequestLine)),
            (b"GET", Err(SkipReason::BadRequestLine)),
            (b"GET ", Err(SkipReason::BadRequestLine)),
            (b"GET - HTTP/1.1", Ok((b"GET", b"-"))),
            (b"GET -", Err(SkipReason::BadRequestLine)),
            (b"GETX /a HTTP/1.1", Ok((b"GETX", b"/a"))),
            (b"get /a HTTP/1.1", Ok((b"get", b"/a"))),
            (b"GET /a HTTP/1.1 ", Ok((b"GET", b"/a"))),
            (b"GET\t/a HTTP/1.1", Err(SkipReason::BadRequestLine)),
            (b"", Err(SkipReason::BadRequestLine)),
        ];
        for (input, want) in cases {
            assert_eq!(
                &request_line(input),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(status(b"200"), Ok(200));
        assert_eq!(status(b"-"), Ok(0));
        assert_eq!(status(b"1000"), Err(SkipReason::BadStatus));
        assert_eq!(status(b"2x0"), Err(SkipReason::BadStatus));
        assert_eq!(status(b"099"), Ok(99));
        assert_eq!(status(b"42"), Ok(42));
        assert_eq!(status(b""), Err(SkipReason::BadStatus));
        assert_eq!(bytes(b"-"), Ok(0));
        assert_eq!(bytes(b"12345"), Ok(12345));
        assert_eq!(bytes(b"99999999999999999999999"), Err(SkipReason::BadBytes));
        assert_eq!(bytes(b"12k"), Err(SkipReason::BadBytes));
    }

    #[test]
    fn hosts_and_ports() {
        type Case = (&'static [u8], (&'static [u8], Option<u16>));
        let cases: &[Case] = &[
            (b"example.com:8080", (b"example.com", Some(8080))),
            (b"example.com", (b"example.com", None)),
            (b"[2001:db8::1]:443", (b"[2001:db8::1]", Some(443))),
            (b"2001:db8::1", (b"2001:db8::1", None)),
            (b"host:99999", (b"host:99999", None)),
            (b"host:", (b"host:", None)),
        ];
        for (input, want) in cases {
            assert_eq!(
                &split_host_port(input),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        assert_eq!(strip_port(b"1.2.3.4:2817"), b"1.2.3.4");
        assert_eq!(strip_port(b"2001:db8::1:2817"), b"2001:db8::1");
        assert_eq!(strip_port(b"1.2.3.4"), b"1.2.3.4");
        assert_eq!(strip_port(b"-"), b"-");
    }

    #[test]
    fn url_origins() {
        let origin = |scheme: &'static [u8], host: &'static [u8], port| {
            Some(OriginParts {
                scheme: Some(scheme),
                host: Some(host),
                port,
            })
        };
        let cases: &[(&[u8], Option<OriginParts<'static>>)] = &[
            (
                b"https://www.example.com:443/path?q",
                origin(b"https", b"www.example.com", Some(443)),
            ),
            (b"http://example.com", origin(b"http", b"example.com", None)),
            (
                b"http://u:p@example.com?x",
                origin(b"http", b"example.com", None),
            ),
            (b"http://[::1]:8080/", origin(b"http", b"[::1]", Some(8080))),
            (b"/path", None),
            (b"dns:example.com", None),
            (b"http:///path", None),
        ];
        for (input, want) in cases {
            assert_eq!(
                &url_origin(input),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
        assert_eq!(url_scheme(b"dns:example.com"), Some(&b"dns"[..]));
        assert_eq!(
            fetched_url(b"HTTPS://example.com/a"),
            Ok(&b"HTTPS://example.com/a"[..])
        );
        assert_eq!(fetched_url(b"/path?q"), Ok(&b"/path?q"[..]));
        assert_eq!(fetched_url(b"dns:example.com"), Err(SkipReason::NotHttp));
        assert_eq!(
            fetched_url(b"whois://whois.example/x"),
            Err(SkipReason::NotHttp)
        );
        assert_eq!(fetched_url(b"http:/nohost"), Err(SkipReason::BadUrl));
        assert_eq!(fetched_url(b"example.com/x"), Err(SkipReason::BadUrl));
        assert_eq!(url_scheme(b"/a:b"), None);
    }

    /// Every byte value at every position of a chunk, among host-name bytes and among others.
    #[test]
    fn non_host_name_bytes_is_exact_for_every_byte() {
        for filler in [b'a', b'Z', b'7', b'-', b' ', 0xFF, 0x00] {
            for position in 0..16 {
                for byte in 0..=255u8 {
                    let mut chunk = [filler; 16];
                    chunk[position] = byte;
                    let want = chunk.iter().enumerate().fold(0u32, |mask, (i, &b)| {
                        if HOST_NAME_BYTE[usize::from(b)] {
                            mask
                        } else {
                            mask | (1 << i)
                        }
                    });
                    assert_eq!(non_host_name_bytes(&chunk), want, "{chunk:?}");
                }
            }
        }
    }

    /// Host-name bytes, the bytes that end a field, and a few others, so that runs are long.
    fn hosty_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let byte = prop_oneof![
            12 => proptest::sample::select(&b"az09AZ-._"[..]),
            2 => proptest::sample::select(&b" :[]%/@`{~\x7f"[..]),
            1 => any::<u8>(),
        ];
        proptest::collection::vec(byte, 0..300)
    }

    proptest::proptest! {
        #[test]
        fn host_name_len_agrees_with_the_byte_table(
            input in proptest::prop_oneof![hosty_bytes(), proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40)]
        ) {
            let want = input.iter().take_while(|&&b| HOST_NAME_BYTE[usize::from(b)]).count();
            proptest::prop_assert_eq!(host_name_len(&input), want);
            let field = input.get(..want).unwrap_or_default();
            proptest::prop_assert_eq!(
                is_host_name(field),
                (1..=MAX_HOST_NAME_LEN).contains(&want)
            );
        }
    }
}
