//! NCSA common and combined logs, Apache `vhost_combined`, and nginx's combined with extra
//! quoted fields after the user-agent.
//!
//! `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"`, optionally preceded by `%v:%p`.
//! This is the hot path of most audits, so the line is taken apart with `memchr` and nothing is
//! allocated.

use crate::format::Format;
use crate::formats::lex;
use crate::record::{self, OriginParts, Request, Text, TextEncoding};
use crate::skip::SkipReason;
use crate::time::ClfMinute;

/// Which of the CLF family a parser reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClfLayout {
    /// The line starts with `%v` or `%v:%p`.
    pub(crate) vhost: bool,
    /// The referer and user-agent must be there (combined); otherwise they are read when present.
    pub(crate) require_agent: bool,
}

impl ClfLayout {
    /// The layout of a CLF-family format. `vhost_combined` also reads Apache's `vhost_common`
    /// (no referer, no user-agent), for which there is no format of its own.
    pub(crate) fn of(format: Format) -> ClfLayout {
        ClfLayout {
            vhost: format == Format::VhostCombined,
            require_agent: format == Format::Combined,
        }
    }
}

/// The length of `10/Oct/2000:13:55:36 -0700`.
const CLF_TIME_LEN: usize = 26;

fn quoted_text(field: &[u8], escaped: bool) -> Text<'_> {
    if field == b"-" {
        return Text::default();
    }
    let encoding = if escaped {
        TextEncoding::Backslash
    } else {
        TextEncoding::Raw
    };
    Text {
        raw: field,
        encoding,
    }
}

/// The `%v:%p` (or `%v`) field that starts a `vhost_combined` line, as an origin, and the rest
/// of the line.
fn vhost_origin(line: &[u8]) -> (OriginParts<'_>, &[u8]) {
    let (host, port, rest) = match host_and_port(line) {
        Some(split) => split,
        None => {
            let (vhost, rest) = lex::token(line);
            let (host, port) = lex::split_host_port(vhost);
            (host, port, rest)
        }
    };
    let origin = OriginParts {
        scheme: None,
        host: lex::present(host),
        port,
    };
    (origin, rest)
}

/// The usual `host:443 ` at the start of `line`, found with one search for the first colon or
/// space where the general path searches three times (the field's end, the last colon, another
/// colon in the host). `None` for anything else: a host without a port, an IPv6 host, a port
/// that is not a number or too big, a field that ends the line.
fn host_and_port(line: &[u8]) -> Option<(&[u8], Option<u16>, &[u8])> {
    let colon = lex::memchr2_near(b':', b' ', line)?;
    let (host, after_colon) = line.split_at(colon);
    // The first colon or space: a colon also means the host holds no other colon.
    let (port, rest) = port_and_rest(after_colon.strip_prefix(b":")?)?;
    Some((host, Some(port), rest))
}

/// The port after a vhost's colon, up to the space that ends the field (`443 ` of
/// `host:443 1.2.3.4`), and what follows that space. `None` unless there are one to five digits
/// of a number under 65,536 and then a space.
fn port_and_rest(after_colon: &[u8]) -> Option<(u16, &[u8])> {
    let digits = after_colon
        .iter()
        .take(6)
        .position(|&b| !b.is_ascii_digit())?;
    let (port, rest) = after_colon.split_at(digits);
    let rest = rest.strip_prefix(b" ")?;
    let port = u16::try_from(lex::number(port)?).ok()?;
    Some((port, rest))
}

/// The usual vhost field, a host name with or without a port (`www.example.com:443 `), read and
/// checked in one pass: the run of host-name bytes that starts the line ends at the colon or
/// the space, so it is the host [`vhost_origin`] splits off and [`lex::is_vhost`] accepts.
/// `None` for anything else (an IPv6 host, an empty or `-` host, a port that is not one, a
/// field that ends the line), which the general path then answers.
#[inline]
fn usual_vhost(line: &[u8]) -> Option<(OriginParts<'_>, &[u8])> {
    let host_len = lex::host_name_len(line);
    if !(1..=lex::MAX_HOST_NAME_LEN).contains(&host_len) {
        return None;
    }
    let (host, after) = line.split_at(host_len);
    if host == b"-" {
        return None;
    }
    let (port, rest) = match after.split_first()? {
        (b':', after_colon) => {
            let (port, rest) = port_and_rest(after_colon)?;
            (Some(port), rest)
        }
        (b' ', rest) => (None, rest),
        _ => return None,
    };
    let origin = OriginParts {
        scheme: None,
        host: Some(host),
        port,
    };
    Some((origin, rest))
}

/// The usual client field, an address or host name followed by a space (or ending the line),
/// split off and checked in one pass as in [`usual_vhost`]: the run of host-name bytes ends at
/// the first space, so it is the field [`lex::near_token`] splits off and [`lex::is_client`]
/// accepts. `None` for anything else (IPv6 clients), which the general path then answers.
#[inline]
fn usual_client(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let client_len = lex::host_name_len(rest);
    if !(1..=lex::MAX_HOST_NAME_LEN).contains(&client_len) {
        return None;
    }
    let (client, after) = rest.split_at(client_len);
    match after.split_first() {
        None => Some((client, after)),
        Some((b' ', after)) => Some((client, after)),
        Some(_) => None,
    }
}

/// The status and byte count after the request (` 200 2326 "-" ...`), and what follows them.
fn status_and_bytes(rest: &[u8]) -> Result<(u16, u64, &[u8]), SkipReason> {
    let (status_field, rest) =
        lex::short_token(rest.strip_prefix(b" ").ok_or(SkipReason::MissingField)?);
    let status = lex::status(status_field)?;
    let (bytes_field, rest) = lex::short_token(rest);
    if bytes_field.is_empty() {
        return Err(SkipReason::MissingField);
    }
    let bytes = lex::bytes(bytes_field)?;
    Ok((status, bytes, rest))
}

/// [`status_and_bytes`] for the usual three-digit status and byte count in digits, read as they
/// are found where the general path first splits the fields off and then reads them. `None`
/// for anything else (`-`, a missing field, damage), which the general path then answers.
fn usual_status_and_bytes(rest: &[u8]) -> Option<(u16, u64, &[u8])> {
    let (&[b' ', hundreds, tens, ones, b' '], rest) = rest.split_first_chunk::<5>()? else {
        return None;
    };
    let digit = |b: u8| b.is_ascii_digit().then(|| u16::from(b - b'0'));
    let status = digit(hundreds)? * 100 + digit(tens)? * 10 + digit(ones)?;
    let (bytes, digits) = match short_number(rest) {
        Some(read) => read,
        None => long_number(rest),
    };
    let rest = match rest.get(digits..).unwrap_or_default().split_first() {
        _ if digits == 0 => return None,
        None => &[],
        Some((b' ', after)) => after,
        Some(_) => return None,
    };
    Some((status, bytes, rest))
}

/// The number that the run of digits starting `input` spells and the run's length, when that
/// run is shorter than eight bytes and eight bytes are there to be read at once (a byte count
/// under ten megabytes, followed by the rest of the line): about thirty instructions where the
/// loop of [`long_number`] takes a dozen a digit. `None` otherwise.
#[inline(always)]
fn short_number(input: &[u8]) -> Option<(u64, usize)> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let word = u64::from_le_bytes(*input.first_chunk::<8>()?);
    // The high bit of each digit, found on seven-bit bytes so that no sum carries into the next
    // byte; a byte with its own high bit set is no digit.
    let seven_bits = word & !HIGHS;
    let at_least_zero = seven_bits + ONES * u64::from(0x80 - b'0');
    let above_nine = seven_bits + ONES * u64::from(0x7F - b'9');
    let digits = at_least_zero & !above_nine & !word & HIGHS;
    let len = (!digits & HIGHS).trailing_zeros() as usize / 8;
    if len == 8 {
        return None;
    }
    // The digits' values moved to the top bytes, so that the bytes below read as leading zeros,
    // then summed pairwise: two digits a byte pair, four a half, eight the whole.
    let values = (word & (ONES * 0x0F))
        .checked_shl(8 * (8 - len as u32))
        .unwrap_or(0);
    let pairs = values.wrapping_mul(1 + (10 << 8)) >> 8;
    let quads = (pairs & 0x00FF_00FF_00FF_00FF).wrapping_mul(1 + (100 << 16)) >> 16;
    let number = (quads & 0x0000_FFFF_0000_FFFF).wrapping_mul(1 + (10_000 << 32)) >> 32;
    Some((number, len))
}

/// The number that the run of digits starting `input` spells and the run's length, read digit
/// by digit; 19 digits cannot overflow a u64, and a longer run is cut there (the caller then
/// finds no space after it).
fn long_number(input: &[u8]) -> (u64, usize) {
    let (mut number, mut len) = (0u64, 0);
    for &b in input.iter().take(19) {
        if !b.is_ascii_digit() {
            break;
        }
        number = number * 10 + u64::from(b - b'0');
        len += 1;
    }
    (number, len)
}

/// Parses one line (without its line end). `minute` carries the time of the line before, which
/// the next line usually shares its minute with; a target the server escaped is unescaped into
/// `unescaped` (see [`unescaped_target`]).
///
/// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
pub(crate) fn parse<'a>(
    line: &'a [u8],
    layout: ClfLayout,
    minute: &mut ClfMinute,
    unescaped: &'a mut Vec<u8>,
) -> Result<Option<Request<'a>>, SkipReason> {
    let line = line.trim_ascii_end();
    let (origin, rest) = if !layout.vhost {
        (OriginParts::default(), line)
    } else if let Some(read) = usual_vhost(line) {
        read
    } else {
        let (origin, rest) = vhost_origin(line);
        if !origin.host.is_some_and(lex::is_vhost) {
            return Err(SkipReason::WrongFormat);
        }
        (origin, rest)
    };
    let (client_ip, rest) = match usual_client(rest) {
        Some(split) => split,
        None => {
            let (client_ip, rest) = lex::near_token(rest);
            if !lex::is_client(client_ip) {
                return Err(SkipReason::WrongFormat);
            }
            (client_ip, rest)
        }
    };
    // The identity and user fields are skipped by looking for the time's bracket, which also
    // copes with a user name that holds a space; they are nearly always `- - `.
    let after_open = match rest.strip_prefix(b"- - [") {
        Some(after_open) => after_open,
        None => {
            let open = rest
                .iter()
                .position(|&b| b == b'[')
                .ok_or(SkipReason::WrongFormat)?;
            if !identity_fits(rest.get(..open).unwrap_or_default()) {
                return Err(SkipReason::WrongFormat);
            }
            rest.get(open + 1..).unwrap_or_default()
        }
    };
    // `10/Oct/2000:13:55:36 -0700` is 26 bytes; other lengths (fractions) are searched for.
    let close = match after_open.get(CLF_TIME_LEN) {
        Some(b']') => CLF_TIME_LEN,
        _ => memchr::memchr(b']', after_open).ok_or(SkipReason::BadTime)?,
    };
    let (time_field, rest) = after_open.split_at(close);
    let time = minute.clf(time_field).ok_or(SkipReason::BadTime)?;
    let rest = rest.strip_prefix(b"] ").ok_or(SkipReason::MissingField)?;
    if !rest.starts_with(b"\"") {
        return Err(SkipReason::BadRequestLine);
    }
    // Searched for its closing quote and for backslashes at once: a request line without one
    // (nearly all) holds a target that needs no unescaping and no search of its own.
    let (request, escaped, rest) = lex::near_quoted(rest)?;
    let (method, target) = lex::request_line(request)?;
    let target = if escaped {
        unescaped_target(target, unescaped)
    } else {
        target
    };
    let (status, bytes, rest) = match usual_status_and_bytes(rest) {
        Some(read) => read,
        None => status_and_bytes(rest)?,
    };
    let user_agent = if rest.starts_with(b"\"") {
        // The referer is not kept, so its escapes do not matter; most referers are `-`.
        let rest = match rest.strip_prefix(b"\"-\" ") {
            Some(rest) => rest,
            None => {
                let (_referer, rest) = lex::quoted_field(rest)?;
                rest.strip_prefix(b" ").unwrap_or_default()
            }
        };
        if rest.starts_with(b"\"") {
            let (agent, escaped, _extra_fields) = lex::quoted(rest)?;
            Some(quoted_text(agent, escaped))
        } else {
            None
        }
    } else {
        None
    };
    let user_agent = match user_agent {
        Some(agent) => agent,
        // Nothing after the byte count: a common line, not a damaged combined one.
        None if layout.require_agent && rest.is_empty() => return Err(SkipReason::WrongFormat),
        None if layout.require_agent => return Err(SkipReason::MissingField),
        None => Text::default(),
    };
    Ok(Some(Request {
        time,
        client_ip,
        method,
        target,
        query: None,
        status,
        fetch_status: None,
        bytes,
        user_agent,
        origin,
        zone_assumed: false,
    }))
}

/// The target as the client sent it. Apache writes a `"` or `\\` of the request line as `\\"` and
/// `\\\\`, and control bytes as `\\xhh`; nginx writes all three (and bytes above `~`) as `\\xHH`.
/// A backslash in the logged line is therefore always an escape, and the target is decoded as
/// the user-agent is ([`TextEncoding::Backslash`]), into `buffer`, so that it is judged as the
/// path the client asked for (`check '/q"x'` and the audit of `GET /q\\"x` agree).
#[cold]
fn unescaped_target<'a>(target: &'a [u8], buffer: &'a mut Vec<u8>) -> &'a [u8] {
    if memchr::memchr(b'\\', target).is_none() {
        return target;
    }
    buffer.clear();
    record::backslash_decode_into(target, buffer);
    buffer
}

/// The identity and user fields before the time's bracket (`- - `, `ident user `): two
/// fields and the space before the bracket. A user name may hold a space only after the usual
/// `-` identity, so that a vhost line's client is never taken for an identity.
fn identity_fits(identity: &[u8]) -> bool {
    let Some(fields) = identity.strip_suffix(b" ") else {
        return false;
    };
    let (ident, user) = lex::token(fields);
    !ident.is_empty()
        && !user.trim_ascii().is_empty()
        && (ident == b"-" || memchr::memchr(b' ', user).is_none())
}

/// Which CLF layout `line` is written in, if any: a line that fits the plain layout is plain
/// (common or combined, by its quoted user-agent), one that fits only the vhost layout is
/// `vhost_combined`.
pub(crate) fn classify(line: &[u8]) -> Option<Format> {
    let fits = |vhost, require_agent| {
        let layout = ClfLayout {
            vhost,
            require_agent,
        };
        parse(line, layout, &mut ClfMinute::default(), &mut Vec::new()).is_ok()
    };
    if fits(false, false) {
        Some(if fits(false, true) {
            Format::Combined
        } else {
            Format::Common
        })
    } else {
        fits(true, false).then_some(Format::VhostCombined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;
    use proptest::prelude::*;

    fn parse_request<'a>(
        line: &'a [u8],
        layout: ClfLayout,
        minute: &mut ClfMinute,
        unescaped: &'a mut Vec<u8>,
    ) -> Result<Request<'a>, SkipReason> {
        request_of(parse(line, layout, minute, unescaped))
    }

    const COMBINED: ClfLayout = ClfLayout {
        vhost: false,
        require_agent: true,
    };
    const COMMON: ClfLayout = ClfLayout {
        vhost: false,
        require_agent: false,
    };
    const VHOST: ClfLayout = ClfLayout {
        vhost: true,
        require_agent: false,
    };

    #[test]
    fn the_apache_documentation_example() {
        let line = br#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)""#;
        let mut unescaped = Vec::new();
        let request =
            parse_request(line, COMBINED, &mut ClfMinute::default(), &mut unescaped).unwrap();
        assert_eq!(request.time.to_string(), "2000-10-10T20:55:36Z");
        assert_eq!(request.client_ip, b"127.0.0.1");
        assert_eq!(request.method, b"GET");
        assert_eq!(request.target, b"/apache_pb.gif");
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 2326);
        assert_eq!(
            request.user_agent,
            Text::raw(b"Mozilla/4.08 [en] (Win98; I ;Nav)")
        );
        assert_eq!(request.origin, OriginParts::default());
    }

    #[test]
    fn layouts_and_quirks() {
        type Case = (
            &'static [u8],
            ClfLayout,
            Result<(&'static [u8], &'static [u8], u16, u64, &'static [u8]), SkipReason>,
        );
        let cases: &[Case] = &[
            // common: no referer, no user-agent
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#, COMMON, Ok((b"1.2.3.4", b"/", 200, 2326, b""))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#, COMBINED, Err(SkipReason::WrongFormat)),
            // `-` bytes, trailing space, `-` user-agent
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /robots.txt HTTP/1.1" 304 - "-" "-" "#, COMBINED, Ok((b"1.2.3.4", b"/robots.txt", 304, 0, b""))),
            // nginx with X-Forwarded-For after the user-agent
            (br#"1.2.3.4 - - [22/Jan/2019:03:56:14 +0330] "GET /a HTTP/1.1" 200 5 "-" "Bot/1.0" "5.6.7.8, 9.9.9.9""#, COMBINED, Ok((b"1.2.3.4", b"/a", 200, 5, b"Bot/1.0"))),
            // Traefik: CLF, then the request count, router, server URL and duration
            (br#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /t HTTP/1.1" 200 512 "-" "ExampleBot/1.0" 42 "web-router@docker" "http://10.0.0.5:80" 3ms"#, COMBINED, Ok((b"192.0.2.1", b"/t", 200, 512, b"ExampleBot/1.0"))),
            (br#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /t HTTP/1.1" 499 0 "-" "-" 43 "-" "-" 0ms"#, COMBINED, Ok((b"192.0.2.1", b"/t", 499, 0, b""))),
            // escaped quotes inside the user-agent
            (br#"1.2.3.4 - - [17/Oct/2019:14:30:07 +0200] "GET / HTTP/1.1" 200 10 "-" "}__test|O:21:\"JDatabase\":3:{s:2:\"fc\"}""#, COMBINED, Ok((b"1.2.3.4", b"/", 200, 10, br#"}__test|O:21:\"JDatabase\":3:{s:2:\"fc\"}"#))),
            // a user name with a space, CRLF already stripped, IPv6 client
            (br#"2001:db8::1 - john doe [10/Oct/2000:13:55:36 +0000] "HEAD /x HTTP/1.1" 404 0 "-" "curl/8""#, COMBINED, Ok((b"2001:db8::1", b"/x", 404, 0, b"curl/8"))),
            // vhost_combined
            (br#"www.example.com:443 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, VHOST, Ok((b"1.2.3.4", b"/v", 200, 1, b"UA"))),
            // the fast paths' fallbacks: an identity, a `-` byte count, a referer with escaped
            // quotes, a quote inside the user-agent, a referer that ends the line
            (br#"1.2.3.4 ident - [10/Oct/2000:13:55:36 +0000] "GET /i HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"1.2.3.4", b"/i", 200, 1, b"UA"))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /b HTTP/1.1" 200 - "-" "UA""#, COMBINED, Ok((b"1.2.3.4", b"/b", 200, 0, b"UA"))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /r HTTP/1.1" 200 1 "http://x/\"y\"" "UA""#, COMBINED, Ok((b"1.2.3.4", b"/r", 200, 1, b"UA"))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /q HTTP/1.1" 200 1 "-" "a "b"c""#, COMBINED, Ok((b"1.2.3.4", b"/q", 200, 1, br#"a "b"c"#))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /e HTTP/1.1" 200 1 "-""#, COMBINED, Err(SkipReason::MissingField)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /e HTTP/1.1" 200 1 "-""#, COMMON, Ok((b"1.2.3.4", b"/e", 200, 1, b""))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /a\" HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"1.2.3.4", br#"/a""#, 200, 1, b"UA"))),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "POST /p HTTP/1.1" 201 2 "-" "UA""#, COMBINED, Ok((b"1.2.3.4", b"/p", 201, 2, b"UA"))),
            // damage
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 1 "-" "unterminated"#, COMBINED, Err(SkipReason::BadQuoting)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 1 "unterminated "UA""#, COMBINED, Err(SkipReason::MissingField)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 1 "-" "UA\""#, COMBINED, Err(SkipReason::BadQuoting)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1 200 1 "-" "UA""#, COMBINED, Err(SkipReason::BadStatus)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1"200 1 "-" "UA""#, COMBINED, Err(SkipReason::BadStatus)),
            (br#"1.2.3.4 - - 10/Oct/2000:13:55:36 +0000] "GET /x HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::WrongFormat)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] GET /x HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::BadRequestLine)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000]"GET /x HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::MissingField)),
            (br#"1.2.3.4 - - [20/May/2015:12:05:17 +0000] "GET /x HTTP/1.1" 200 235 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html"#, COMBINED, Err(SkipReason::BadQuoting)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36] "GET / HTTP/1.0" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::BadTime)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700 "GET / HTTP/1.0" 200 1"#, COMBINED, Err(SkipReason::BadTime)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 408 0 "-" "-""#, COMBINED, Err(SkipReason::BadRequestLine)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01" 400 0 "-" "-""#, COMBINED, Err(SkipReason::BadRequestLine)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" OK 1 "-" "UA""#, COMBINED, Err(SkipReason::BadStatus)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1k "-" "UA""#, COMBINED, Err(SkipReason::BadBytes)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200"#, COMMON, Err(SkipReason::MissingField)),
            (b"\x00\x01\x02 binary junk", COMBINED, Err(SkipReason::WrongFormat)),
            (b"", COMBINED, Err(SkipReason::WrongFormat)),
            // another format's shape
            (br#"www.example.com:443 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::WrongFormat)),
            (br#"www.example.com 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::WrongFormat)),
            (br#"[2001:db8::1]:443 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, COMMON, Err(SkipReason::WrongFormat)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, VHOST, Err(SkipReason::WrongFormat)),
            (br#"2001:db8::1 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, VHOST, Err(SkipReason::WrongFormat)),
            (br#"h:8080 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, VHOST, Err(SkipReason::WrongFormat)),
            (br#"{"ts":1,"request":{"uri":"/"}}"#, COMBINED, Err(SkipReason::WrongFormat)),
            (b"2015-01-13 00:32:17 1.2.3.4 GET / - 80", COMBINED, Err(SkipReason::WrongFormat)),
            (br#"a,b - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Err(SkipReason::WrongFormat)),
            // the client shapes that fit: a host name (HostnameLookups On), `-`, IPv6 forms
            (br#"crawl-66-249-66-1.googlebot.com - - [10/Oct/2000:13:55:36 +0000] "GET /n HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"crawl-66-249-66-1.googlebot.com", b"/n", 200, 1, b"UA"))),
            (br#"- - - [10/Oct/2000:13:55:36 +0000] "GET /n HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"-", b"/n", 200, 1, b"UA"))),
            (br#"::ffff:1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /n HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"::ffff:1.2.3.4", b"/n", 200, 1, b"UA"))),
            (br#"[fe80::1%eth0] - - [10/Oct/2000:13:55:36 +0000] "GET /n HTTP/1.1" 200 1 "-" "UA""#, COMBINED, Ok((b"[fe80::1%eth0]", b"/n", 200, 1, b"UA"))),
            (br#"[2001:db8::1]:443 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET /v HTTP/1.1" 200 1 "-" "UA""#, VHOST, Ok((b"1.2.3.4", b"/v", 200, 1, b"UA"))),
        ];
        for (line, layout, want) in cases {
            let (mut unescaped, mut reference_unescaped) = (Vec::new(), Vec::new());
            let request = parse_request(line, *layout, &mut ClfMinute::default(), &mut unescaped);
            let reference = reference_parse(
                line,
                *layout,
                &mut ClfMinute::default(),
                &mut reference_unescaped,
            );
            assert_eq!(request, reference, "{}", String::from_utf8_lossy(line));
            let got = request.map(|r| (r.client_ip, r.target, r.status, r.bytes, r.user_agent.raw));
            assert_eq!(&got, want, "{}", String::from_utf8_lossy(line));
        }
    }

    /// The parser as it was before its fast paths: every field taken apart by the general
    /// helpers, each quoted field by the full loop.
    fn reference_parse<'a>(
        line: &'a [u8],
        layout: ClfLayout,
        minute: &mut ClfMinute,
        unescaped: &'a mut Vec<u8>,
    ) -> Result<Request<'a>, SkipReason> {
        let line = line.trim_ascii_end();
        let (origin, rest) = if layout.vhost {
            let (vhost, rest) = lex::token(line);
            let (host, port) = lex::split_host_port(vhost);
            let host = lex::present(host);
            if !host.is_some_and(lex::is_vhost) {
                return Err(SkipReason::WrongFormat);
            }
            let origin = OriginParts {
                scheme: None,
                host,
                port,
            };
            (origin, rest)
        } else {
            (OriginParts::default(), line)
        };
        let (client_ip, rest) = lex::token(rest);
        if !lex::is_client(client_ip) {
            return Err(SkipReason::WrongFormat);
        }
        let open = rest
            .iter()
            .position(|&b| b == b'[')
            .ok_or(SkipReason::WrongFormat)?;
        if !identity_fits(&rest[..open]) {
            return Err(SkipReason::WrongFormat);
        }
        let after_open = rest.get(open + 1..).unwrap_or_default();
        let close = match after_open.get(CLF_TIME_LEN) {
            Some(b']') => CLF_TIME_LEN,
            _ => memchr::memchr(b']', after_open).ok_or(SkipReason::BadTime)?,
        };
        let (time_field, rest) = after_open.split_at(close);
        let time = minute.clf(time_field).ok_or(SkipReason::BadTime)?;
        let rest = rest.strip_prefix(b"] ").ok_or(SkipReason::MissingField)?;
        if !rest.starts_with(b"\"") {
            return Err(SkipReason::BadRequestLine);
        }
        let (request, _, rest) = lex::quoted_in_full(rest)?;
        let (method, target) = lex::request_line(request)?;
        let target = match TextEncoding::Backslash.decode(target) {
            std::borrow::Cow::Borrowed(target) => target,
            std::borrow::Cow::Owned(decoded) => {
                *unescaped = decoded;
                &unescaped[..]
            }
        };
        let (status, bytes, rest) = status_and_bytes(rest)?;
        let mut user_agent = None;
        if rest.starts_with(b"\"") {
            let (_referer, _, rest) = lex::quoted_in_full(rest)?;
            let rest = rest.strip_prefix(b" ").unwrap_or_default();
            if rest.starts_with(b"\"") {
                let (agent, escaped, _extra_fields) = lex::quoted_in_full(rest)?;
                user_agent = Some(quoted_text(agent, escaped));
            }
        }
        let user_agent = match user_agent {
            Some(agent) => agent,
            // Nothing after the byte count: a common line, not a damaged combined one.
            None if layout.require_agent && rest.is_empty() => return Err(SkipReason::WrongFormat),
            None if layout.require_agent => return Err(SkipReason::MissingField),
            None => Text::default(),
        };
        Ok(Request {
            time,
            client_ip,
            method,
            target,
            query: None,
            status,
            fetch_status: None,
            bytes,
            user_agent,
            origin,
            zone_assumed: false,
        })
    }

    /// Lines built from pieces that are mostly well formed and sometimes sit on the edges of
    /// the fast paths: ports, quotes and backslashes, digits and dashes, spaces where they do
    /// and do not belong.
    fn edgy_line() -> impl Strategy<Value = Vec<u8>> {
        let vhost = prop_oneof![
            3 => Just(String::new()),
            3 => "[a-z.]{1,12}(:[0-9]{1,6})? ",
            1 => "[a-z:0-9\\[\\] ]{0,24} ",
        ];
        let client = prop_oneof![
            4 => "[0-9]{1,3}(\\.[0-9]{1,3}){3}",
            1 => "[0-9a-f.: ]{0,20}",
        ];
        let identity = prop_oneof![4 => Just("- - ".to_owned()), 1 => "[-a-z \\[]{0,8}"];
        let time = prop_oneof![
            6 => "\\[10/Oct/2000:13:5[0-9]:[0-5][0-9] [-+]0[0-9]00\\] ",
            1 => "\\[10/Oct/2000:13:5[0-9]:6[0-9] \\+0000\\] ",
            1 => Just("[10/Oct/2000:13:55:36.123 -0700] ".to_owned()),
            1 => "\\[[0-9/a-zA-Z: +-]{0,28}\\]? ?",
        ];
        let request = prop_oneof![
            4 => "\"(GET|HEAD|POST) /[a-z/?=]{0,20} HTTP/(1\\.1|2\\.0)\"",
            1 => "\"?(GET|HEAD|POST|-|get|G\"T)? ?[/a-z \"\\\\]{0,16}( HTTP/1\\.1| HTTP/2| HTTP/)?\"?",
        ];
        let status_bytes = prop_oneof![
            4 => " [1-5][0-9]{2} [0-9]{1,7}",
            1 => " ?[0-9]{3} [0-9]{0,21}",
            1 => "[0-9 k-]{0,12}",
        ];
        let agent_byte = prop_oneof![
            40 => "[A-Za-z0-9/.;() +:-]",
            1 => Just("\\\"".to_owned()),
            1 => Just("\\\\".to_owned()),
            1 => Just("\"".to_owned()),
        ];
        let agent = proptest::collection::vec(agent_byte, 0..40).prop_map(|bytes| bytes.concat());
        let referer = prop_oneof![
            3 => Just("-".to_owned()),
            2 => "https?://[a-z./]{0,20}",
            1 => "[-a-z /\"\\\\]{0,12}",
        ];
        let fields =
            (referer, agent).prop_map(|(referer, agent)| format!(" \"{referer}\" \"{agent}\""));
        let tail = prop_oneof![
            6 => fields,
            1 => Just(String::new()),
            1 => "( ?\"[-a-z /;()\"\\\\]{0,20}\"?){0,3}",
        ];
        let extra = prop_oneof![4 => Just(String::new()), 1 => " \"[0-9., ]{0,10}\""];
        let end = prop_oneof![6 => Just(String::new()), 1 => "[ \t]{1,2}"];
        (
            vhost,
            client,
            identity,
            time,
            request,
            status_bytes,
            tail,
            extra,
            end,
        )
            .prop_map(
                |(vhost, client, identity, time, request, status_bytes, tail, extra, end)| {
                    format!(
                        "{vhost}{client} {identity}{time}{request}{status_bytes}{tail}{extra}{end}"
                    )
                    .into_bytes()
                },
            )
    }

    proptest::proptest! {
        #[test]
        fn the_fast_paths_agree_with_the_reference(line in edgy_line()) {
            for layout in [COMBINED, COMMON, VHOST] {
                let (mut minute, mut reference_minute) = (ClfMinute::default(), ClfMinute::default());
                let (mut unescaped, mut reference_unescaped) = (Vec::new(), Vec::new());
                proptest::prop_assert_eq!(
                    parse_request(&line, layout, &mut minute, &mut unescaped),
                    reference_parse(&line, layout, &mut reference_minute, &mut reference_unescaped),
                    "{}", String::from_utf8_lossy(&line)
                );
            }
        }
    }

    /// Bytes of the first two fields: host-name bytes, the bytes of IPv6 addresses and ports,
    /// the space that ends a field, and any byte at all.
    fn field_bytes() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            12 => proptest::sample::select(&b"az09AZ-._"[..]),
            4 => proptest::sample::select(&b":[]%f "[..]),
            1 => any::<u8>(),
        ];
        proptest::collection::vec(byte, 0..40)
    }

    proptest::proptest! {
        /// The one-pass shape checks of the vhost and client fields reject and split exactly
        /// as the general path's `is_vhost` and `is_client` after their searches do.
        #[test]
        fn the_shape_checks_agree_with_the_reference_on_any_bytes(
            vhost in prop_oneof![
                6 => field_bytes(),
                1 => "-(:[0-9]{1,3})?".prop_map(String::into_bytes),
                1 => "[a-z]{0,3}:[0-9]{0,7}".prop_map(String::into_bytes),
                1 => "[a-z]{250,256}".prop_map(String::into_bytes),
            ],
            client in field_bytes(),
            line in edgy_line(),
        ) {
            let tail = br#" - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "-" "UA""#;
            let lines = [
                [&vhost[..], b" ", &client[..], tail].concat(),
                [&client[..], tail].concat(),
                [&vhost[..], &line[..]].concat(),
                vhost.clone(),
                [&vhost[..], b" ", &client[..]].concat(),
            ];
            for line in &lines {
                for layout in [COMBINED, COMMON, VHOST] {
                    let (mut minute, mut reference_minute) =
                        (ClfMinute::default(), ClfMinute::default());
                    let (mut unescaped, mut reference_unescaped) = (Vec::new(), Vec::new());
                    proptest::prop_assert_eq!(
                        parse_request(line, layout, &mut minute, &mut unescaped),
                        reference_parse(line, layout, &mut reference_minute, &mut reference_unescaped),
                        "{}", String::from_utf8_lossy(line)
                    );
                }
            }
        }
    }

    #[test]
    fn vhost_fields_become_the_origin() {
        let line = br#"www.example.com:8080 1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#;
        let mut unescaped = Vec::new();
        let request =
            parse_request(line, VHOST, &mut ClfMinute::default(), &mut unescaped).unwrap();
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: None,
                host: Some(b"www.example.com"),
                port: Some(8080)
            }
        );
        let line = br#"www.example.com 1.2.3.4 - theuser [10/Feb/2012:16:42:07 -0500] "GET / HTTP/1.0" 301 368"#;
        let mut unescaped = Vec::new();
        let request =
            parse_request(line, VHOST, &mut ClfMinute::default(), &mut unescaped).unwrap();
        assert_eq!(request.origin.host, Some(&b"www.example.com"[..]));
        assert_eq!(ClfLayout::of(Format::VhostCombined), VHOST);
        assert_eq!(ClfLayout::of(Format::Combined), COMBINED);
        assert_eq!(ClfLayout::of(Format::Common), COMMON);
        assert_eq!(request.origin.port, None);
    }

    #[test]
    fn vhost_fast_path_agrees_with_the_general_split() {
        type Case = (
            &'static [u8],
            Option<(&'static [u8], Option<u16>, &'static [u8])>,
        );
        let cases: &[Case] = &[
            // the fast path
            (
                b"www.example.com:443 1.2.3.4",
                Some((b"www.example.com", Some(443), b"1.2.3.4")),
            ),
            (b"h:8080 x", Some((b"h", Some(8080), b"x"))),
            (b":80 x", Some((b"", Some(80), b"x"))),
            (b"h:65535 ", Some((b"h", Some(65535), b""))),
            (b"h:00080 x", Some((b"h", Some(80), b"x"))),
            // left to the general path
            (b"h:65536 x", None),
            (b"h:000080 x", None),
            (b"h: x", None),
            (b"h:44a x", None),
            (b"h:443", None),
            (b"h:443:1 x", None),
            (b"www.example.com 1.2.3.4", None),
            (b"[2001:db8::1]:443 x", None),
            (b"2001:db8::1 x", None),
            (b"", None),
        ];
        for &(line, want) in cases {
            let shown = String::from_utf8_lossy(line);
            assert_eq!(host_and_port(line), want, "{shown}");
            let (vhost, rest) = lex::token(line);
            let (host, port) = lex::split_host_port(vhost);
            let general = OriginParts {
                scheme: None,
                host: lex::present(host),
                port,
            };
            assert_eq!(vhost_origin(line), (general, rest), "{shown}");
        }
    }

    #[test]
    fn usual_status_and_bytes_agree_with_the_general_path() {
        type Case = (&'static [u8], Option<(u16, u64, &'static [u8])>);
        let cases: &[Case] = &[
            // the fast path
            (
                b" 200 5123 \"-\" \"UA\"",
                Some((200, 5123, b"\"-\" \"UA\"")),
            ),
            (b" 304 0", Some((304, 0, b""))),
            (b" 099 1 x", Some((99, 1, b"x"))),
            (b" 200 1 ", Some((200, 1, b""))),
            (
                b" 200 1234567890123456789 x",
                Some((200, 1_234_567_890_123_456_789, b"x")),
            ),
            // left to the general path
            (b" 200 - \"-\"", None),
            (b" 200 12345678901234567890 x", None),
            (b" 200 99999999999999999999 x", None),
            (b" 200 1k x", None),
            (b" 200  x", None),
            (b" 200 ", None),
            (b" 200", None),
            (b" 20 1 x", None),
            (b" 2000 1 x", None),
            (b" 2x0 1 x", None),
            (b" - 0 x", None),
            (b"200 1 x", None),
            (b"", None),
        ];
        for &(rest, want) in cases {
            let shown = String::from_utf8_lossy(rest);
            assert_eq!(usual_status_and_bytes(rest), want, "{shown}");
            if let Some(fast) = want {
                assert_eq!(status_and_bytes(rest), Ok(fast), "{shown}");
            }
        }
    }

    #[test]
    fn short_numbers_end_at_every_byte_that_is_no_digit() {
        for len in 0..8 {
            for end in 0..=255u8 {
                let mut input = b"98765432".get(..len).unwrap_or_default().to_vec();
                input.push(end);
                input.resize(9, b'5');
                let want = long_number(&input);
                match short_number(&input) {
                    Some(short) => assert_eq!(short, want, "{input:?}"),
                    None => assert!(want.1 >= 8, "{input:?}"),
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn short_numbers_agree_with_the_digit_loop(
            number in proptest::prop_oneof![0u64..10, 0u64..10_000_000, proptest::prelude::any::<u64>()],
            leading_zeros in 0usize..3,
            after in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..10),
        ) {
            let mut input = vec![b'0'; leading_zeros];
            input.extend_from_slice(number.to_string().as_bytes());
            input.extend_from_slice(&after);
            if let Some(short) = short_number(&input) {
                proptest::prop_assert_eq!(short, long_number(&input));
            } else {
                let run = input.iter().take_while(|b| b.is_ascii_digit()).count();
                proptest::prop_assert!(input.len() < 8 || run >= 8);
            }
        }
    }

    #[test]
    fn escaped_targets_are_unescaped() {
        let cases: &[(&[u8], &[u8])] = &[
            // Apache: `\"`, `\\` and control bytes as `\xhh`
            (br#"/q\"x"#, br#"/q"x"#),
            (br"/back\\slash", br"/back\slash"),
            (br"/tab\x09and\x0anewline", b"/tab\tand\nnewline"),
            // nginx: the same bytes, and those above `~`, as `\xHH`
            (br"/q\x22x", br#"/q"x"#),
            (br"/caf\xC3\xA9?x=\x5C", "/caf\u{e9}?x=\\".as_bytes()),
            // no escape: the target is the line's own bytes
            (b"/plain?a=b", b"/plain?a=b"),
            // what no server writes is kept as written
            (br"/odd\q\x4", br"/odd\q\x4"),
        ];
        for &(logged, want) in cases {
            let line = [
                &br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET "#[..],
                logged,
                br#" HTTP/1.1" 200 1 "-" "UA""#,
            ]
            .concat();
            let mut unescaped = Vec::new();
            let request = parse_request(&line, COMBINED, &mut ClfMinute::default(), &mut unescaped);
            assert_eq!(
                request.map(|r| r.target),
                Ok(want),
                "{}",
                String::from_utf8_lossy(&line)
            );
        }
    }

    /// A target as Apache writes it in a request line: `"` and `\` escaped with a backslash,
    /// control bytes as `\xhh`.
    fn apache_escaped(target: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in target {
            match b {
                b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
                0..0x20 | 0x7f => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
                _ => out.push(b),
            }
        }
        out
    }

    /// A target as nginx writes it: `"`, `\` and every byte outside `!`..=`~` as `\xHH`.
    fn nginx_escaped(target: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in target {
            match b {
                b'"' | b'\\' | 0..0x20 | 0x7f.. => {
                    out.extend_from_slice(format!("\\x{b:02X}").as_bytes());
                }
                _ => out.push(b),
            }
        }
        out
    }

    proptest::proptest! {
        /// Whatever bytes a client put in its target, the parser reads back exactly those
        /// bytes from either server's escaping.
        #[test]
        fn escaped_targets_read_back_as_sent(
            target in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(&b"/abc?=&%"[..]),
                    2 => proptest::sample::select(&b"\"\\\t\n\x00\x7f"[..]),
                    1 => 0x21u8..=0xff,
                ],
                0..40,
            ),
            nginx in proptest::bool::ANY,
        ) {
            let target = [&b"/"[..], &target].concat();
            let logged = if nginx { nginx_escaped(&target) } else { apache_escaped(&target) };
            let line = [
                &br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET "#[..],
                &logged,
                br#" HTTP/1.1" 200 1 "-" "UA""#,
            ]
            .concat();
            let mut unescaped = Vec::new();
            let request = parse_request(&line, COMBINED, &mut ClfMinute::default(), &mut unescaped);
            proptest::prop_assert_eq!(request.map(|r| r.target), Ok(&target[..]));
        }
    }

    #[test]
    fn escaped_user_agents_say_so() {
        let line =
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 1 "-" "a \"b\"""#;
        let mut unescaped = Vec::new();
        let agent = parse_request(line, COMBINED, &mut ClfMinute::default(), &mut unescaped)
            .unwrap()
            .user_agent;
        assert_eq!(agent.encoding, TextEncoding::Backslash);
        assert_eq!(&*agent.decode(), br#"a "b""#);
    }

    #[test]
    fn classification() {
        let cases: &[(&[u8], Option<Format>)] = &[
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#, Some(Format::Common)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#, Some(Format::Combined)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "-""#, Some(Format::Combined)),
            (br#"h:80 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#, Some(Format::VhostCombined)),
            (br#"www.example.com 1.2.3.4 - theuser [10/Feb/2012:16:42:07 -0500] "GET / HTTP/1.0" 301 368"#, Some(Format::VhostCombined)),
            (br#"owner bucket [10/Feb/2012:16:42:07 -0500] 1.2.3.4 arn "GET / HTTP/1.1" 200"#, None),
            (b"2015-01-13 00:32:17 1.2.3.4 GET / - 80", None),
            (br#"1.2.3.4 - john doe [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#, Some(Format::Combined)),
            (br#"www.example.com:443 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#, Some(Format::VhostCombined)),
        ];
        for (line, want) in cases {
            assert_eq!(classify(line), *want, "{}", String::from_utf8_lossy(line));
        }
    }
}
