//! docker's `json-file` log driver, the files under `/var/lib/docker/containers/`: one JSON
//! object per line, `{"log":"message\n","stream":"stdout","time":"..."}` (and `attrs` when
//! labels are logged). The message is a JSON string: its escapes are decoded into a buffer the
//! caller reuses. docker cuts lines longer than 16 KiB into several records; all but the last
//! lack the final `\n`: they are partial, joined like CRI's.

use super::{Record, Stream};

/// A json-file record: its stream and its message as written (still JSON-escaped).
pub(super) fn record(line: &[u8]) -> Option<Record<'_>> {
    let rest = line.strip_prefix(b"{\"log\":\"")?;
    let end = string_end(rest)?;
    let (body, rest) = rest.split_at(end);
    let rest = rest.strip_prefix(b"\",\"stream\":\"")?;
    let (stream, rest) = if let Some(rest) = rest.strip_prefix(b"stdout\"") {
        (Stream::Stdout, rest)
    } else {
        (Stream::Stderr, rest.strip_prefix(b"stderr\"")?)
    };
    let whole = rest.starts_with(b",") && rest.trim_ascii_end().ends_with(b"}");
    let timed = memchr::memmem::find(rest, b"\"time\":\"").is_some();
    (whole && timed).then_some(Record {
        stream,
        body,
        partial: !ends_with_newline(body),
        json: true,
    })
}

/// Whether a JSON string's content ends with the escape `\n` (an odd number of backslashes
/// before the `n`: `\\n` is a backslash and an `n`).
fn ends_with_newline(body: &[u8]) -> bool {
    let Some(before) = body.strip_suffix(b"n") else {
        return false;
    };
    let backslashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
    backslashes % 2 == 1
}

/// The position of the quote that ends a JSON string whose opening quote is just before
/// `string`.
fn string_end(string: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let found = memchr::memchr2(b'"', b'\\', string.get(at..)?)?;
        match string.get(at + found)? {
            b'"' => return Some(at + found),
            _ => at += found + 2,
        }
    }
}

/// Four hex digits at the start of `rest`.
fn hex4(rest: &[u8]) -> Option<u32> {
    rest.get(..4)?
        .iter()
        .try_fold(0, |unit, &b| Some(unit << 4 | char::from(b).to_digit(16)?))
}

/// Decodes the body of a JSON string (without its quotes), appending to `out`. Escapes that are
/// not JSON's are kept as written; a `\u` surrogate without its pair becomes U+FFFD.
pub(super) fn decode_into(body: &[u8], out: &mut Vec<u8>) {
    let mut rest = body;
    while let Some(at) = memchr::memchr(b'\\', rest) {
        let (plain, escape) = rest.split_at(at);
        out.extend_from_slice(plain);
        let tail = escape.get(1..).unwrap_or_default();
        let simple = match tail.first() {
            Some(b'"') => Some(b'"'),
            Some(b'\\') => Some(b'\\'),
            Some(b'/') => Some(b'/'),
            Some(b'b') => Some(0x08),
            Some(b'f') => Some(0x0c),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            rest = tail.get(1..).unwrap_or_default();
            continue;
        }
        let Some(unit) = tail.strip_prefix(b"u").and_then(hex4) else {
            out.push(b'\\');
            rest = tail;
            continue;
        };
        rest = tail.get(5..).unwrap_or_default();
        let code = match unit {
            0xD800..=0xDBFF => {
                let low = rest.strip_prefix(b"\\u").and_then(hex4);
                match low {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        rest = rest.get(6..).unwrap_or_default();
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    _ => 0xFFFD,
                }
            }
            0xDC00..=0xDFFF => 0xFFFD,
            unit => unit,
        };
        let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    out.extend_from_slice(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn records() {
        type Case = (&'static [u8], Option<(Stream, &'static [u8], bool)>);
        let cases: &[Case] = &[
            (br#"{"log":"1.2.3.4 - - [x] \"GET / HTTP/1.1\"\n","stream":"stdout","time":"2026-11-20T01:00:00.123456789Z"}"#, Some((Stream::Stdout, br#"1.2.3.4 - - [x] \"GET / HTTP/1.1\"\n"#, false))),
            (br#"{"log":"part","stream":"stderr","time":"2026-11-20T01:00:00Z","attrs":{"tag":"web"}}"#, Some((Stream::Stderr, b"part", true))),
            (br#"{"log":"ends in a backslash and n: \\n","stream":"stdout","time":"2026-11-20T01:00:00Z"}"#, Some((Stream::Stdout, br"ends in a backslash and n: \\n", true))),
            (br#"{"log":"crlf\r\n","stream":"stdout","time":"2026-11-20T01:00:00Z"}"#, Some((Stream::Stdout, br"crlf\r\n", false))),
            (br#"{"log":"x","stream":"stdin","time":"2026-11-20T01:00:00Z"}"#, None),
            (br#"{"log":"x","level":"info","time":"2026-11-20T01:00:00Z"}"#, None),
            (br#"{"log":"x","stream":"stdout"}"#, None),
            (br#"{"log":"unterminated"#, None),
        ];
        for &(line, want) in cases {
            let got = record(line).map(|r| (r.stream, r.body, r.partial));
            assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn json_escapes() {
        let cases: &[(&[u8], &[u8])] = &[
            (br#"a \"b\" \\ \/ \t\n"#, b"a \"b\" \\ / \t\n"),
            (
                br#"caf\u00e9 \ud83d\ude00"#,
                "caf\u{e9} \u{1f600}".as_bytes(),
            ),
            (
                br#"lone \ud83d x \udc00"#,
                "lone \u{fffd} x \u{fffd}".as_bytes(),
            ),
            (br#"odd \q \u12"#, br#"odd \q \u12"#),
            // `u32::from_str_radix` takes a sign; JSON's four digits do not.
            (br#"\u+041 \u-041"#, br#"\u+041 \u-041"#),
            (b"", b""),
        ];
        for &(body, want) in cases {
            let mut out = Vec::new();
            decode_into(body, &mut out);
            assert_eq!(out, want, "{}", String::from_utf8_lossy(body));
        }
    }

    proptest! {
        /// Whatever text docker writes, the record gives it back, as serde_json would.
        #[test]
        fn messages_read_back_as_written(message in "\\PC*", stderr in any::<bool>()) {
            let stream = if stderr { "stderr" } else { "stdout" };
            let line = format!(
                "{{\"log\":{},\"stream\":\"{stream}\",\"time\":\"2026-11-20T01:00:00Z\"}}",
                serde_json::to_string(&message).unwrap()
            );
            let record = record(line.as_bytes()).expect("a record");
            let mut out = Vec::new();
            decode_into(record.body, &mut out);
            prop_assert_eq!(out, message.as_bytes());
        }
    }
}
