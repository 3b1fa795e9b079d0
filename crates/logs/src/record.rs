//! The parsed request: one log line, borrowed from the block it was read from.

use std::borrow::Cow;

use jiff::Timestamp;

/// How a text field was written in the log, so that it can be decoded once per distinct value
/// (the audit caches user-agent strings by their raw bytes) instead of once per line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextEncoding {
    /// The bytes are the value.
    #[default]
    Raw,
    /// W3C extended logs: `+` stands for a space.
    Plus,
    /// URL-encoded (`%20`), as CloudFront writes user-agents; may be encoded twice (`%2520`).
    Percent,
    /// Backslash escapes inside a quoted field (`\"`, `\\`, `\xhh`), as Apache and nginx write
    /// request lines and headers that contain quotes or control bytes.
    Backslash,
}

/// A text field as it appears in the line, plus how to decode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Text<'a> {
    /// The bytes exactly as they stand in the log (after JSON unescaping, for JSON formats).
    pub raw: &'a [u8],
    /// How `raw` is encoded.
    pub encoding: TextEncoding,
}

/// Where the request went, as far as the line says. Everything is raw (not lower-cased, not
/// IDNA-converted); the audit normalises it once per distinct value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OriginParts<'a> {
    /// `http`, `https`, ... when the line carries it.
    pub scheme: Option<&'a [u8]>,
    /// The host as logged; may still carry `:port` (a Host header does).
    pub host: Option<&'a [u8]>,
    /// The server port when the format logs it separately (`vhost_combined`, W3C `s-port`).
    pub port: Option<u16>,
}

/// One request parsed from a log line. Borrowed: no allocation per line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'a> {
    /// When the request was made (or logged), in UTC.
    pub time: Timestamp,
    /// The client address as logged (`1.2.3.4`, `::ffff:1.2.3.4`, `[2001:db8::1]`, maybe a port
    /// for ALB `ip:port` already stripped). Empty when the format has none.
    pub client_ip: &'a [u8],
    /// `GET`, `HEAD`, ... Empty when unknown.
    pub method: &'a [u8],
    /// The request target as logged: a path with its query (`/a?b`), or an absolute URL
    /// (`https://host/a?b`, ALB and crawl logs). Never decoded.
    pub target: &'a [u8],
    /// The query when the format logs it in a separate field (W3C `cs-uri-query`, CloudFront);
    /// `None` when it is part of `target` or absent. Without the leading `?`.
    pub query: Option<&'a [u8]>,
    /// The HTTP status; 0 when not logged. Crawl logs may carry negative Heritrix codes, which
    /// are kept in `fetch_status`.
    pub status: u16,
    /// A crawler's own fetch outcome when it is not an HTTP status (Heritrix `-9998` = precluded
    /// by robots.txt, `-61` = robots prerequisite failed, ...). `None` for web server logs.
    pub fetch_status: Option<i32>,
    /// Response bytes; 0 when logged as `-`.
    pub bytes: u64,
    /// The User-Agent header.
    pub user_agent: Text<'a>,
    /// The origin, as far as the line says.
    pub origin: OriginParts<'a>,
    /// The line wrote its time without an offset (HAProxy's accept date, W3C `date-local` and
    /// `time-local`, a JSON date and time without one), so [`Request::time`] was read in an assumed zone: the parser's
    /// [`LineParser::local_zone`](crate::LineParser::local_zone), UTC unless the user named
    /// one. An input with such lines says which zone it was read in (`inputs.csv`'s
    /// `assumed_zone`).
    pub zone_assumed: bool,
}

/// The form of a request's target (RFC 9110 section 7.1): only the origin and absolute forms
/// name a path that robots.txt rules can apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetForm {
    /// A path with its query: `/a?b`.
    Origin,
    /// An absolute URL: `https://host/a?b`.
    Absolute,
    /// `*`, as `OPTIONS *` asks about the server as a whole.
    Asterisk,
    /// `host:port`, as `CONNECT` names the server to tunnel to.
    Authority,
}

impl TargetForm {
    /// Whether the target names a path (origin or absolute form), so that the request can be
    /// judged against robots.txt rules. The others are counted, never judged.
    pub fn is_path(self) -> bool {
        matches!(self, TargetForm::Origin | TargetForm::Absolute)
    }
}

impl Request<'_> {
    /// The form of [`Request::target`]. A target in no form (`a.html`, as broken clients send
    /// it) counts as a path, read as the server reads it.
    ///
    /// ```
    /// use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch, TargetForm};
    ///
    /// let parser = LineParser::new(Format::Common, &FieldMap::new());
    /// let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    /// let line = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "OPTIONS * HTTP/1.1" 200 0"#;
    /// let request = parser.parse(line, &mut state, &mut scratch).unwrap().unwrap();
    /// assert_eq!(request.target_form(), TargetForm::Asterisk);
    /// assert!(!request.target_form().is_path());
    /// ```
    pub fn target_form(&self) -> TargetForm {
        let target = self.target;
        if target.starts_with(b"/") {
            return TargetForm::Origin;
        }
        if target == b"*" {
            return TargetForm::Asterisk;
        }
        if self.method.eq_ignore_ascii_case(b"CONNECT") || is_authority(target) {
            return TargetForm::Authority;
        }
        if is_absolute(target) {
            return TargetForm::Absolute;
        }
        TargetForm::Origin
    }
}

/// `scheme://...`.
fn is_absolute(target: &[u8]) -> bool {
    let Some(end) = memchr::memmem::find(target, b"://") else {
        return false;
    };
    let scheme = target.get(..end).unwrap_or_default();
    scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
}

/// `host:port` and nothing else: what a `CONNECT` names even when its method is not logged.
fn is_authority(target: &[u8]) -> bool {
    let Some(colon) = memchr::memrchr(b':', target) else {
        return false;
    };
    let (host, port) = target.split_at(colon);
    let port = port.get(1..).unwrap_or_default();
    (1..=5).contains(&port.len())
        && port.iter().all(u8::is_ascii_digit)
        && !host.is_empty()
        && host
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-._[]:%".contains(&b))
}

impl TextEncoding {
    /// Decodes `raw` into the bytes it stands for. Borrows when there is nothing to decode.
    ///
    /// `Percent` decoding runs a second time when the first pass still leaves escapes, because
    /// CloudFront encodes some user-agents twice (`%2520` for a space); it never runs a third
    /// time, so a value cannot be decoded into something its writer did not mean. Malformed
    /// escapes (`%zz`, a lone `%`) are kept as they are.
    ///
    /// ```
    /// use robots_audit_logs::TextEncoding;
    ///
    /// assert_eq!(&*TextEncoding::Plus.decode(b"Mozilla/5.0+(compatible)"), b"Mozilla/5.0 (compatible)");
    /// assert_eq!(&*TextEncoding::Percent.decode(b"Slackbot%25201.0"), b"Slackbot 1.0");
    /// assert_eq!(&*TextEncoding::Backslash.decode(br#"a \"b\" \x41"#), br#"a "b" A"#);
    /// ```
    pub fn decode(self, raw: &[u8]) -> Cow<'_, [u8]> {
        match self {
            TextEncoding::Raw => Cow::Borrowed(raw),
            TextEncoding::Plus => decode_plus(raw),
            TextEncoding::Percent => match percent_decode(raw) {
                Cow::Borrowed(_) => Cow::Borrowed(raw),
                Cow::Owned(once) => match percent_decode(&once) {
                    Cow::Borrowed(_) => Cow::Owned(once),
                    Cow::Owned(twice) => Cow::Owned(twice),
                },
            },
            TextEncoding::Backslash => backslash_decode(raw),
        }
    }
}

impl<'a> Text<'a> {
    /// A field whose bytes are its value.
    pub const fn raw(raw: &'a [u8]) -> Text<'a> {
        Text {
            raw,
            encoding: TextEncoding::Raw,
        }
    }

    /// The decoded value (see [`TextEncoding::decode`]).
    pub fn decode(&self) -> Cow<'a, [u8]> {
        self.encoding.decode(self.raw)
    }
}

fn decode_plus(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'+', raw).is_none() {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(
        raw.iter()
            .map(|&b| if b == b'+' { b' ' } else { b })
            .collect(),
    )
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// The byte a two-digit hex escape at the start of `rest` stands for.
fn hex_pair(rest: &[u8]) -> Option<u8> {
    match rest {
        [high, low, ..] => Some(hex_value(*high)? << 4 | hex_value(*low)?),
        _ => None,
    }
}

/// One pass of `%XX` decoding; `Borrowed` when the value holds no valid escape.
fn percent_decode(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr_iter(b'%', raw)
        .find(|&at| hex_pair(raw.get(at + 1..).unwrap_or_default()).is_some())
    else {
        return Cow::Borrowed(raw);
    };
    let mut out = Vec::with_capacity(raw.len());
    out.extend_from_slice(raw.get(..first).unwrap_or_default());
    let mut rest = raw.get(first..).unwrap_or_default();
    while let Some((&byte, tail)) = rest.split_first() {
        match (byte, hex_pair(tail)) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                rest = tail.get(2..).unwrap_or_default();
            }
            _ => {
                out.push(byte);
                rest = tail;
            }
        }
    }
    Cow::Owned(out)
}

/// Undoes the escaping Apache (`\"`, `\\`, `\n`, `\xhh`) and nginx (`\xHH`) apply to logged
/// request lines and headers. An unknown escape is kept as written.
fn backslash_decode(raw: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(b'\\', raw).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    backslash_decode_into(raw, &mut out);
    Cow::Owned(out)
}

/// [`backslash_decode`] appending to `out`, so that a caller can decode into a buffer it
/// reuses from line to line.
pub(crate) fn backslash_decode_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut rest = raw;
    while let Some(at) = memchr::memchr(b'\\', rest) {
        let (plain, escape) = rest.split_at(at);
        out.extend_from_slice(plain);
        let tail = escape.get(1..).unwrap_or_default();
        let (decoded, used) = match tail {
            [b'"', ..] => (Some(b'"'), 1),
            [b'\\', ..] => (Some(b'\\'), 1),
            [b'n', ..] => (Some(b'\n'), 1),
            [b'r', ..] => (Some(b'\r'), 1),
            [b't', ..] => (Some(b'\t'), 1),
            [b'b', ..] => (Some(0x08), 1),
            [b'v', ..] => (Some(0x0b), 1),
            [b'x', hex @ ..] => (hex_pair(hex), 3),
            _ => (None, 0),
        };
        match decoded {
            Some(decoded) => {
                out.push(decoded);
                rest = tail.get(used..).unwrap_or_default();
            }
            None => {
                out.push(b'\\');
                rest = tail;
            }
        }
    }
    out.extend_from_slice(rest);
}

/// Undoes HAProxy's escaping of logged request lines and captured headers, appending to `out`:
/// `#` and two hex digits for `"`, `#` itself, control bytes and bytes above `~` (and `{`, `|`,
/// `}` in headers). A `#` not followed by two hex digits is kept as written.
pub(crate) fn hash_decode_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut rest = raw;
    while let Some(at) = memchr::memchr(b'#', rest) {
        let (plain, escape) = rest.split_at(at);
        out.extend_from_slice(plain);
        let tail = escape.get(1..).unwrap_or_default();
        match hex_pair(tail) {
            Some(decoded) => {
                out.push(decoded);
                rest = tail.get(2..).unwrap_or_default();
            }
            None => {
                out.push(b'#');
                rest = tail;
            }
        }
    }
    out.extend_from_slice(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decodes_every_encoding() {
        let cases: &[(TextEncoding, &[u8], &[u8])] = &[
            (TextEncoding::Raw, b"a+b%20c", b"a+b%20c"),
            (
                TextEncoding::Plus,
                b"Mozilla/5.0+(compatible;+bingbot/2.0)",
                b"Mozilla/5.0 (compatible; bingbot/2.0)",
            ),
            (TextEncoding::Plus, b"no-plus", b"no-plus"),
            (TextEncoding::Percent, b"Slackbot%201.0", b"Slackbot 1.0"),
            (
                TextEncoding::Percent,
                b"Mozilla/5.0%2520(Windows)",
                b"Mozilla/5.0 (Windows)",
            ),
            (TextEncoding::Percent, b"x%252520y", b"x%20y"),
            (TextEncoding::Percent, b"100%", b"100%"),
            (TextEncoding::Percent, b"%zz%4", b"%zz%4"),
            (TextEncoding::Percent, b"%e2%82%ac", "\u{20ac}".as_bytes()),
            (
                TextEncoding::Backslash,
                br#"}__test|O:21:\"JDatabase\""#,
                br#"}__test|O:21:"JDatabase""#,
            ),
            (TextEncoding::Backslash, br"a\\b", br"a\b"),
            (TextEncoding::Backslash, br"\x16\x03\x01", b"\x16\x03\x01"),
            (TextEncoding::Backslash, br"tab\there\n", b"tab\there\n"),
            (TextEncoding::Backslash, br"odd\q\x4", br"odd\q\x4"),
            (TextEncoding::Backslash, br"end\", br"end\"),
        ];
        for &(encoding, raw, want) in cases {
            assert_eq!(
                &*encoding.decode(raw),
                want,
                "{encoding:?} {:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn target_forms() {
        let request = |method: &'static [u8], target: &'static [u8]| Request {
            time: jiff::Timestamp::UNIX_EPOCH,
            client_ip: b"",
            method,
            target,
            query: None,
            status: 200,
            fetch_status: None,
            bytes: 0,
            user_agent: Text::default(),
            origin: OriginParts::default(),
            zone_assumed: false,
        };
        let cases: &[(&[u8], &[u8], TargetForm)] = &[
            (b"GET", b"/a?b", TargetForm::Origin),
            (b"GET", b"/", TargetForm::Origin),
            (b"GET", b"https://example.com/a", TargetForm::Absolute),
            (b"GET", b"http://example.com:8080", TargetForm::Absolute),
            (b"OPTIONS", b"*", TargetForm::Asterisk),
            (b"CONNECT", b"example.com:443", TargetForm::Authority),
            (b"connect", b"[2001:db8::1]:443", TargetForm::Authority),
            (b"CONNECT", b"example.com", TargetForm::Authority),
            (b"", b"example.com:443", TargetForm::Authority),
            (b"", b"10.0.0.1:25", TargetForm::Authority),
            (b"GET", b"a.html", TargetForm::Origin),
            (b"GET", b"*/a", TargetForm::Origin),
        ];
        for &(method, target, want) in cases {
            let form = request(method, target).target_form();
            assert_eq!(form, want, "{}", String::from_utf8_lossy(target));
            assert_eq!(
                form.is_path(),
                matches!(want, TargetForm::Origin | TargetForm::Absolute)
            );
        }
    }

    #[test]
    fn borrows_when_nothing_changes() {
        assert!(matches!(
            TextEncoding::Percent.decode(b"plain"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            TextEncoding::Plus.decode(b"plain"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            TextEncoding::Backslash.decode(b"plain"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(Text::raw(b"x").decode(), Cow::Borrowed(b"x")));
    }

    proptest! {
        #[test]
        fn percent_encoding_round_trips(value in proptest::collection::vec(any::<u8>(), 0..64)) {
            // A value that itself reads as an escape (`%41`) is decoded a second time, by design.
            prop_assume!(matches!(percent_decode(&value), Cow::Borrowed(_)));
            let encoded: Vec<u8> = value.iter().flat_map(|b| format!("%{b:02X}").into_bytes()).collect();
            prop_assert_eq!(&*TextEncoding::Percent.decode(&encoded), &value[..]);
        }

        #[test]
        fn decoding_never_grows(raw in proptest::collection::vec(any::<u8>(), 0..64)) {
            for encoding in [TextEncoding::Raw, TextEncoding::Plus, TextEncoding::Percent, TextEncoding::Backslash] {
                prop_assert!(encoding.decode(&raw).len() <= raw.len());
            }
        }
    }
}
