//! Prefixes that container tools write before each line of a container's output.
//!
//! - docker compose (`docker compose logs`, `docker compose up`): the service's container name
//!   padded with spaces, then `| ` (`web-1  | message`); with `--timestamps`, an RFC 3339 time
//!   follows the bar.
//! - Kubernetes' CRI log files (containerd, CRI-O): `TIME STREAM TAG message`, the time in
//!   RFC 3339 with nanoseconds, the stream `stdout` or `stderr`, the tag `F` for a full line or
//!   `P` for a partial one that the next records of the same stream continue.

use super::{Record, Stream};
use crate::formats::lex;

/// The longest container name read as a compose prefix.
const MAX_NAME: usize = 128;

/// The message after a docker compose prefix.
pub(super) fn compose(line: &[u8]) -> Option<&[u8]> {
    let name = line
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        .count();
    if name == 0 || name > MAX_NAME {
        return None;
    }
    let rest = line.get(name..)?;
    let padding = rest.iter().take_while(|&&b| b == b' ').count();
    let rest = rest
        .get(padding..)?
        .strip_prefix(b"|")
        .filter(|_| padding > 0)?;
    let message = match rest.strip_prefix(b" ") {
        Some(message) => message,
        None if rest.is_empty() => rest,
        None => return None,
    };
    // `--timestamps` puts the container's time first.
    if lex::is_timestamp_shaped(message) {
        let (time, after) = lex::token(message);
        if crate::time::rfc3339(time).is_some() {
            return Some(after);
        }
    }
    Some(message)
}

/// A CRI record: its stream, whether it is partial, and its message.
pub(super) fn cri(line: &[u8]) -> Option<Record<'_>> {
    if !lex::is_timestamp_shaped(line) {
        return None;
    }
    let (_time, rest) = lex::near_token(line);
    let (stream, rest) = match rest.split_at_checked(7)? {
        (b"stdout ", rest) => (Stream::Stdout, rest),
        (b"stderr ", rest) => (Stream::Stderr, rest),
        _ => return None,
    };
    let (partial, rest) = match rest.split_first()? {
        (b'P', rest) => (true, rest),
        (b'F', rest) => (false, rest),
        _ => return None,
    };
    let body = match rest.strip_prefix(b" ") {
        Some(body) => body,
        None if rest.is_empty() => rest,
        None => return None,
    };
    Some(Record {
        stream,
        body,
        partial,
        json: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_lines() {
        let cases: &[(&[u8], Option<&[u8]>)] = &[
            (b"caddy  | {\"ts\":1}", Some(b"{\"ts\":1}")),
            (b"web-1      | 1.2.3.4 - - [", Some(b"1.2.3.4 - - [")),
            (
                b"shop_web_1 | 2026-11-20T01:00:00.123456789Z 1.2.3.4 - - [",
                Some(b"1.2.3.4 - - ["),
            ),
            (b"web-1  |", Some(b"")),
            // not compose
            (b"web-1| x", None),
            (b"web 1  | x", None),
            (b"web-1  |x", None),
            (
                b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a|b HTTP/1.0\" 200 1",
                None,
            ),
        ];
        for &(line, want) in cases {
            assert_eq!(compose(line), want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn cri_lines() {
        type Case = (&'static [u8], Option<(Stream, bool, &'static [u8])>);
        let cases: &[Case] = &[
            (
                b"2026-11-20T01:00:00.123456789Z stdout F 1.2.3.4 - - [",
                Some((Stream::Stdout, false, b"1.2.3.4 - - [")),
            ),
            (
                b"2026-11-20T01:00:00.123456789+01:00 stderr P {\"ts\":",
                Some((Stream::Stderr, true, b"{\"ts\":")),
            ),
            (
                b"2026-11-20T01:00:00Z stdout F",
                Some((Stream::Stdout, false, b"")),
            ),
            (b"2026-11-20T01:00:00Z stdin F x", None),
            (b"2026-11-20T01:00:00Z stdout X x", None),
            (b"2026-11-20T01:00:00Z stdout Fx", None),
            (b"2026-11-20 stdout F x", None),
        ];
        for &(line, want) in cases {
            let got = cri(line).map(|r| (r.stream, r.partial, r.body));
            assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
        }
    }
}
