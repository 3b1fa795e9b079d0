//! Syslog prefixes as log collectors write them to files.
//!
//! - RFC 3164 (BSD syslog), as rsyslog and syslog-ng write it: `<PRI>Jul  4 12:00:01 host
//!   tag[pid]: message`, the `<PRI>` usually left out on disk, the day padded with a space.
//!   journald's default `short` output has the same shape without `<PRI>`, and its
//!   `short-precise` and `short-iso` outputs, and rsyslog's high-precision file format, write
//!   the time with a fraction or in RFC 3339 instead (`2026-11-20T01:00:00.123456+00:00 host
//!   tag: message`).
//! - RFC 5424: `<PRI>1 TIME HOST APP PROCID MSGID STRUCTURED-DATA message`, any of the fields
//!   after the version `-` when absent, the structured data `-` or `[id param="value"]...`.

use crate::formats::lex;

/// Month names as syslog writes them.
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// The longest tag (RFC 3164 allows 32 bytes; journald writes longer unit names).
const MAX_TAG: usize = 64;

/// `<PRI>` at the start of `line`, when there is one: what follows it.
fn after_priority(line: &[u8]) -> &[u8] {
    let Some(rest) = line.strip_prefix(b"<") else {
        return line;
    };
    let digits = rest
        .iter()
        .take(4)
        .take_while(|b| b.is_ascii_digit())
        .count();
    match rest.get(digits) {
        Some(b'>') if (1..=3).contains(&digits) => rest.get(digits + 1..).unwrap_or_default(),
        _ => line,
    }
}

/// `Jul  4 12:00:01 ` or `Jul 04 12:00:01.123456 `: what follows it.
fn after_bsd_time(rest: &[u8]) -> Option<&[u8]> {
    let (month, rest) = rest.split_first_chunk::<3>()?;
    if !MONTHS.contains(&month) {
        return None;
    }
    let rest = rest.strip_prefix(b" ")?;
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    let day = rest
        .iter()
        .take(3)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(1..=2).contains(&day) {
        return None;
    }
    let rest = rest.get(day..)?.strip_prefix(b" ")?;
    let (clock, rest) = rest.split_at_checked(8)?;
    let shaped = matches!(clock, [h1, h2, b':', m1, m2, b':', s1, s2]
        if [h1, h2, m1, m2, s1, s2].iter().all(|b| b.is_ascii_digit()));
    if !shaped {
        return None;
    }
    let rest = match rest.strip_prefix(b".") {
        Some(fraction) => {
            let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
            fraction.get(digits..).filter(|_| digits > 0)?
        }
        None => rest,
    };
    rest.strip_prefix(b" ")
}

/// An RFC 3339 time token (`2026-11-20T01:00:00.123+00:00 `): what follows it.
fn after_iso_time(rest: &[u8]) -> Option<&[u8]> {
    if !lex::is_timestamp_shaped(rest) {
        return None;
    }
    let (time, rest) = lex::token(rest);
    crate::time::rfc3339(time)?;
    Some(rest)
}

/// `tag[pid]: ` or `tag: `: what follows it (the message, possibly empty).
fn after_tag(rest: &[u8]) -> Option<&[u8]> {
    let name = rest
        .iter()
        .take(MAX_TAG + 1)
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"-_./@".contains(&b))
        .count();
    if name == 0 || name > MAX_TAG {
        return None;
    }
    let mut rest = rest.get(name..)?;
    if let Some(pid) = rest.strip_prefix(b"[") {
        let digits = pid.iter().take_while(|b| b.is_ascii_digit()).count();
        rest = pid
            .get(digits..)?
            .strip_prefix(b"]")
            .filter(|_| digits > 0)?;
    }
    let rest = rest.strip_prefix(b":")?;
    match rest.strip_prefix(b" ") {
        Some(message) => Some(message),
        None => rest.is_empty().then_some(rest),
    }
}

/// The message of an RFC 3164 (or journald, or rsyslog RFC 3339) line.
pub(super) fn bsd(line: &[u8]) -> Option<&[u8]> {
    let rest = after_priority(line);
    let rest = after_bsd_time(rest).or_else(|| after_iso_time(rest))?;
    let (host, rest) = lex::token(rest);
    if host.is_empty() {
        return None;
    }
    after_tag(rest)
}

/// A header field of RFC 5424 (`-` or printable ASCII up to 255 bytes) and what follows it.
fn header_field(rest: &[u8]) -> Option<&[u8]> {
    let (field, rest) = lex::token(rest);
    let printable = field.iter().all(|b| b.is_ascii_graphic());
    (!field.is_empty() && field.len() <= 255 && printable).then_some(rest)
}

/// RFC 5424 structured data at the start of `rest` (`-` or `[...]...`): what follows it.
fn after_structured_data(rest: &[u8]) -> Option<&[u8]> {
    if let Some(after) = rest.strip_prefix(b"-") {
        return (after.is_empty() || after.starts_with(b" ")).then_some(after);
    }
    let mut at = 0;
    while rest.get(at) == Some(&b'[') {
        // Inside an element, `]` ends it unless it is in a quoted value; in values `\"`, `\\`
        // and `\]` are escapes.
        let mut quoted = false;
        at += 1;
        loop {
            match rest.get(at)? {
                b'\\' if quoted => at += 2,
                b'"' => {
                    quoted = !quoted;
                    at += 1;
                }
                b']' if !quoted => {
                    at += 1;
                    break;
                }
                _ => at += 1,
            }
        }
    }
    let after = rest.get(at..)?;
    (at > 0 && (after.is_empty() || after.starts_with(b" "))).then_some(after)
}

/// The message of an RFC 5424 line.
pub(super) fn rfc5424(line: &[u8]) -> Option<&[u8]> {
    let rest = after_priority(line).strip_prefix(b"1 ")?;
    let rest = match rest.strip_prefix(b"- ") {
        Some(rest) => rest,
        None => after_iso_time(rest)?,
    };
    // host, app, procid, msgid
    let rest = header_field(rest)?;
    let rest = header_field(rest)?;
    let rest = header_field(rest)?;
    let rest = header_field(rest)?;
    let rest = after_structured_data(rest)?;
    let message = rest.strip_prefix(b" ").unwrap_or(rest);
    Some(message.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bsd_lines() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (
                b"Jul  4 12:00:01 web caddy[2140]: {\"a\":1}",
                Some(b"{\"a\":1}"),
            ),
            (
                b"<134>Jul 14 12:00:01 lb haproxy[14389]: 10.0.1.2:33317 [x]",
                Some(b"10.0.1.2:33317 [x]"),
            ),
            (
                b"Nov 20 01:00:00.123456 web nginx: 1.2.3.4 - - [",
                Some(b"1.2.3.4 - - ["),
            ),
            (
                b"2026-11-20T01:00:00.123456+00:00 web apache2[7]: line",
                Some(b"line"),
            ),
            (b"Jul  4 12:00:01 web systemd-journald.service:", Some(b"")),
            // not syslog
            (b"Jul  4 12:00:01 web no colon here", None),
            (b"Foo  4 12:00:01 web tag: x", None),
            (b"Jul  4 12:0:01 web tag: x", None),
            (b"Jul  4 12:00:01 web tag[]: x", None),
            (b"2026-11-20T01:00:00 web tag: x", None),
            (
                b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1",
                None,
            ),
            (b"<13>", None),
            (b"", None),
        ];
        for &(line, want) in cases {
            assert_eq!(bsd(line), want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn rfc5424_lines() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (b"<134>1 2026-11-20T01:00:00.817934+02:00 - haproxy 266980 - - 127.0.0.1:50516 [x]", Some(b"127.0.0.1:50516 [x]")),
            (b"<165>1 2026-11-20T01:00:00.003Z web.example caddy 1234 ID47 [exampleSDID@32473 iut=\"3\" eventSource=\"App\\\"] x\"] \xEF\xBB\xBFmessage", Some(b"message")),
            (b"1 - - - - - - message", Some(b"message")),
            (b"<14>1 2026-11-20T01:00:00Z host app - - [a][b c=\"d\"]", Some(b"")),
            // not RFC 5424
            (b"<14>2 2026-11-20T01:00:00Z host app - - - x", None),
            (b"<14>1 2026-11-20T01:00:00Z host app - - [unterminated x", None),
            (b"<14>1 2026-11-20T01:00:00Z host app - - x", None),
            (b"<14>1 yesterday host app - - - x", None),
        ];
        for &(line, want) in cases {
            assert_eq!(rfc5424(line), want, "{}", String::from_utf8_lossy(line));
        }
    }
}
