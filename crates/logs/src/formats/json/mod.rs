//! JSON-lines logs: Caddy, Cloudflare Logpush, nginx/Fastly-style JSON, and crawler fetch logs
//! in JSON, all read through one field map.
//!
//! A line is walked once with serde_json, descending only into the keys some mapped path
//! names and skipping everything else unparsed. Strings without escapes are borrowed from the
//! line; escaped strings are unescaped into the [`Scratch`](crate::Scratch), so no line
//! allocates.

use self::walk::{FORWARDED_HOST_SLOT, FORWARDED_PROTO_SLOT, Found, PathTree, TLS_SLOT};
use crate::format::Format;
use crate::formats::lex;
use crate::record::{OriginParts, Request, Text};
use crate::scratch::Buffers;
use crate::skip::SkipReason;
use crate::zone::{LocalZone, ZoneMinute};

mod fields;
mod walk;

pub use self::fields::{FieldMap, FieldName};

/// Built-in paths of the generic `json` format: the names nginx, Fastly, Logpush and common
/// logging libraries use, in order of preference.
const GENERIC: &[(FieldName, &[&str])] = &[
    (
        FieldName::Time,
        &[
            "time",
            "timestamp",
            "@timestamp",
            "ts",
            "date",
            "datetime",
            "time_iso8601",
            "time_local",
            "EdgeStartTimestamp",
            "start_time",
        ],
    ),
    (
        FieldName::ClientIp,
        &[
            "client_ip",
            "remote_addr",
            "remote_ip",
            "ip",
            "clientip",
            "client",
            "ClientIP",
            "c-ip",
        ],
    ),
    (
        FieldName::Method,
        &["method", "request_method", "verb", "ClientRequestMethod"],
    ),
    (
        FieldName::Target,
        &[
            "uri",
            "request_uri",
            "path",
            "ClientRequestURI",
            "cs-uri-stem",
        ],
    ),
    (FieldName::Url, &["url", "request_url"]),
    (
        FieldName::Status,
        &[
            "status",
            "status_code",
            "response_status",
            "EdgeResponseStatus",
            "sc-status",
        ],
    ),
    (
        FieldName::Bytes,
        &[
            "bytes",
            "body_bytes_sent",
            "bytes_sent",
            "size",
            "length",
            "response_body_size",
            "EdgeResponseBytes",
            "sc-bytes",
        ],
    ),
    (
        FieldName::UserAgent,
        &[
            "user_agent",
            "http_user_agent",
            "userAgent",
            "useragent",
            "agent",
            "ua",
            "request_user_agent",
            "ClientRequestUserAgent",
        ],
    ),
    (
        FieldName::Host,
        &[
            "host",
            "http_host",
            "server_name",
            "hostname",
            "vhost",
            "ClientRequestHost",
        ],
    ),
    (
        FieldName::Scheme,
        &["scheme", "request_scheme", "ClientRequestScheme"],
    ),
    (FieldName::RequestLine, &["request"]),
];

/// Caddy v2 `http.log.access`.
const CADDY: &[(FieldName, &[&str])] = &[
    (FieldName::Time, &["ts"]),
    (
        FieldName::ClientIp,
        &["request.client_ip", "request.remote_ip"],
    ),
    (FieldName::Method, &["request.method"]),
    (FieldName::Target, &["request.uri"]),
    (FieldName::Host, &["request.host"]),
    (FieldName::UserAgent, &["request.headers.User-Agent"]),
    (FieldName::Status, &["status"]),
    (FieldName::Bytes, &["size"]),
];

/// A crawler's fetch log in JSON: an absolute `url` and what else it records.
const CRAWL: &[(FieldName, &[&str])] = &[
    (FieldName::Url, &["url", "uri"]),
    (FieldName::Time, &["time", "timestamp", "ts"]),
    (FieldName::Status, &["status", "status_code"]),
    (FieldName::UserAgent, &["user_agent", "userAgent"]),
    (FieldName::Method, &["method"]),
    (FieldName::Bytes, &["bytes", "size"]),
    (FieldName::ClientIp, &["client_ip", "ip"]),
];

/// A parser for one JSON preset: the mapped paths as a tree.
#[derive(Debug, Clone)]
pub(crate) struct JsonParser {
    tree: PathTree,
    /// Caddy: the scheme is `https` when `request.tls` is there, `http` otherwise.
    tls_scheme: bool,
    /// Crawl logs: a line without a time is dated at the Unix epoch instead of skipped, and a
    /// status of zero or below is the crawler's own outcome (Heritrix `-9998`).
    crawl: bool,
}

impl JsonParser {
    /// The parser for `format` (`Caddy`, `Json` or `Crawl`) with `fields` replacing the
    /// preset's paths name by name.
    pub(crate) fn new(format: Format, fields: &FieldMap) -> JsonParser {
        let preset = match format {
            Format::Caddy => CADDY,
            Format::Crawl => CRAWL,
            _ => GENERIC,
        };
        let mut parser = JsonParser {
            tree: PathTree::new(),
            tls_scheme: format == Format::Caddy,
            crawl: format == Format::Crawl,
        };
        for name in FieldName::ALL {
            let mapped: Vec<&str> = fields.paths(name).collect();
            let builtin = preset
                .iter()
                .find(|(field, _)| *field == name)
                .map_or(&[][..], |(_, paths)| *paths);
            let paths = if mapped.is_empty() {
                builtin
            } else {
                &mapped[..]
            };
            for (preference, path) in paths.iter().enumerate() {
                parser.tree.add(
                    path,
                    name as usize,
                    u8::try_from(preference).unwrap_or(u8::MAX),
                );
            }
        }
        if parser.tls_scheme {
            parser.tree.add("request.tls", TLS_SLOT, 0);
            if fields.trusts_forwarded() {
                parser
                    .tree
                    .add("request.headers.X-Forwarded-Proto", FORWARDED_PROTO_SLOT, 0);
                parser
                    .tree
                    .add("request.headers.X-Forwarded-Host", FORWARDED_HOST_SLOT, 0);
            }
        }
        parser
    }

    /// Parses one line. A time written without an offset is read in `zone` (`minute`
    /// remembers the zone's offset of the last minute read so), and the request says so.
    ///
    /// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
    pub(crate) fn parse<'a>(
        &self,
        line: &'a [u8],
        buffers: &'a mut Buffers,
        zone: &LocalZone,
        minute: &mut ZoneMinute,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        if !line.trim_ascii_start().starts_with(b"{") {
            return Err(SkipReason::WrongFormat);
        }
        let Buffers { lossy, unescaped } = buffers;
        unescaped.clear();
        let mut found = Found::default();
        if self.tree.walk(line, &mut found, unescaped).is_err() {
            if std::str::from_utf8(line).is_ok() {
                return Err(SkipReason::BadJson);
            }
            // Invalid UTF-8 inside a string: the line is read again with the damage replaced
            // by U+FFFD rather than lost.
            lossy.clear();
            for chunk in line.utf8_chunks() {
                lossy.extend_from_slice(chunk.valid().as_bytes());
                if !chunk.invalid().is_empty() {
                    lossy.extend_from_slice(
                        char::REPLACEMENT_CHARACTER
                            .encode_utf8(&mut [0; 4])
                            .as_bytes(),
                    );
                }
            }
            let lossy: &'a [u8] = lossy;
            found = Found::default();
            unescaped.clear();
            self.tree
                .walk(lossy, &mut found, unescaped)
                .map_err(|_| SkipReason::BadJson)?;
        }
        let unescaped: &'a [u8] = unescaped;
        self.request(&found, unescaped, zone, minute)
    }

    fn request<'a>(
        &self,
        found: &Found<'a>,
        unescaped: &'a [u8],
        zone: &LocalZone,
        minute: &mut ZoneMinute,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        let text = |name: FieldName| found.text(name as usize, unescaped);
        let (time, zone_assumed) = match found.value(FieldName::Time as usize) {
            Some(value) => value
                .time(unescaped, zone, minute)
                .ok_or(SkipReason::BadTime)?,
            None if self.crawl => (jiff::Timestamp::UNIX_EPOCH, false),
            None => return Err(SkipReason::MissingField),
        };
        let request_line = text(FieldName::RequestLine).map(lex::request_line);
        let (line_method, line_target) = match request_line {
            Some(Ok((method, target))) => (Some(method), Some(target)),
            _ => (None, None),
        };
        let url = text(FieldName::Url).map(lex::fetched_url);
        let target = match url
            .and_then(Result::ok)
            .or(text(FieldName::Target))
            .or(line_target)
        {
            Some(target) => target,
            // Nothing usable: the most telling reason is the one the URL or request line gave.
            None => {
                return Err(match (url, request_line) {
                    (Some(Err(reason)), _) | (_, Some(Err(reason))) => reason,
                    _ => SkipReason::MissingField,
                });
            }
        };
        let (status, fetch_status) = match found.value(FieldName::Status as usize) {
            None => (0, None),
            Some(value) => match value.integer(unescaped).ok_or(SkipReason::BadStatus)? {
                code if code <= 0 && self.crawl => (
                    0,
                    Some(i32::try_from(code).map_err(|_| SkipReason::BadStatus)?),
                ),
                code => (
                    u16::try_from(code)
                        .ok()
                        .filter(|&c| c <= 999)
                        .ok_or(SkipReason::BadStatus)?,
                    None,
                ),
            },
        };
        let bytes = match found.value(FieldName::Bytes as usize) {
            None => 0,
            Some(value) if value.is_dash(unescaped) => 0,
            Some(value) => value
                .integer(unescaped)
                .and_then(|b| u64::try_from(b).ok())
                .ok_or(SkipReason::BadBytes)?,
        };
        let origin = match url.and_then(Result::ok).and_then(lex::url_origin) {
            Some(origin) => origin,
            None => {
                let tls = found.value(TLS_SLOT).is_some();
                let implied: Option<&'static [u8]> =
                    self.tls_scheme
                        .then_some(if tls { b"https" } else { b"http" });
                // A proxy chain lists one value per hop; the first is what the client asked.
                let forwarded = |slot| {
                    found
                        .text(slot, unescaped)
                        .map(|value| value.split(|&b| b == b',').next().unwrap_or_default())
                        .and_then(|value| lex::present(value.trim_ascii()))
                };
                OriginParts {
                    scheme: forwarded(FORWARDED_PROTO_SLOT)
                        .or(text(FieldName::Scheme))
                        .or(implied),
                    host: forwarded(FORWARDED_HOST_SLOT).or(text(FieldName::Host)),
                    port: None,
                }
            }
        };
        Ok(Some(Request {
            time,
            client_ip: text(FieldName::ClientIp).unwrap_or_default(),
            method: text(FieldName::Method).or(line_method).unwrap_or_default(),
            target,
            query: None,
            status,
            fetch_status,
            bytes,
            user_agent: text(FieldName::UserAgent).map_or_else(Text::default, Text::raw),
            origin,
            zone_assumed,
        }))
    }
}

/// Which JSON format a line is in: Caddy (a `request` object with a `uri`), a crawl log (an
/// absolute `url` and no `request` object), or generic JSON (Logpush and everything else).
pub(crate) fn classify(line: &[u8]) -> Option<Format> {
    let lossy;
    let line = match std::str::from_utf8(line) {
        Ok(_) => line,
        Err(_) => {
            lossy = String::from_utf8_lossy(line).into_owned();
            lossy.as_bytes()
        }
    };
    let serde_json::Value::Object(object) =
        serde_json::from_slice::<serde_json::Value>(line).ok()?
    else {
        return None;
    };
    let request = object.get("request");
    if request.and_then(|r| r.get("uri")).is_some() {
        return Some(Format::Caddy);
    }
    let absolute_url = object
        .get("url")
        .and_then(serde_json::Value::as_str)
        .is_some_and(|url| lex::url_origin(url.as_bytes()).is_some());
    if absolute_url && !request.is_some_and(serde_json::Value::is_object) {
        return Some(Format::Crawl);
    }
    Some(Format::Json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;
    use crate::scratch::Scratch;

    fn parse<'a>(
        format: Format,
        fields: &FieldMap,
        line: &'a [u8],
        scratch: &'a mut Scratch,
    ) -> Result<Request<'a>, SkipReason> {
        let (zone, mut minute) = (LocalZone::default(), ZoneMinute::default());
        request_of(JsonParser::new(format, fields).parse(
            line,
            &mut scratch.first,
            &zone,
            &mut minute,
        ))
    }

    const CADDY_LINE: &[u8] = br#"{"level":"info","ts":1716723772.6014807,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.5.1.1","remote_port":"38574","client_ip":"10.10.10.117","proto":"HTTP/2.0","method":"GET","host":"mirrors.example.net:400","uri":"/gentoo/a.tar.xz?x=1","headers":{"Accept":["*/*"],"User-Agent":["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"]},"tls":{"resumed":false}},"bytes_read":0,"duration":0.01,"size":3768,"status":200,"resp_headers":{"Server":["Caddy"]}}"#;

    #[test]
    fn a_time_without_an_offset_is_read_in_the_assumed_zone_and_says_so() {
        use crate::{BlockState, LineParser, LocalZone};
        // Python's `asctime`, as JSON logging libraries write it: the server's local time.
        let line = br#"{"time":"2026-07-01 12:00:00,250","url":"https://shop.example/p"}"#;
        let with_offset = br#"{"time":"2026-07-01T12:00:00+02:00","url":"https://shop.example/p"}"#;
        let epoch = br#"{"time":1782900000,"url":"https://shop.example/p"}"#;
        let paris = LocalZone::named("Europe/Paris").unwrap();
        let cases: [(&[u8], &LocalZone, &str, bool); 4] = [
            (line, &LocalZone::default(), "2026-07-01T12:00:00.25Z", true),
            (line, &paris, "2026-07-01T10:00:00.25Z", true),
            (with_offset, &paris, "2026-07-01T10:00:00Z", false),
            (epoch, &paris, "2026-07-01T10:00:00Z", false),
        ];
        for (line, zone, want, assumed) in cases {
            for format in [Format::Json, Format::Crawl] {
                let mut fields = FieldMap::new();
                fields.set_local_zone(zone.clone());
                let parser = LineParser::new(format, &fields);
                let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
                let request = parser
                    .parse(line, &mut state, &mut scratch)
                    .unwrap()
                    .unwrap();
                let got = (request.time.to_string(), request.zone_assumed);
                assert_eq!(got, (want.to_owned(), assumed), "{format} {}", zone.name());
            }
        }
    }

    #[test]
    fn caddy() {
        let mut scratch = Scratch::new();
        let request = parse(Format::Caddy, &FieldMap::new(), CADDY_LINE, &mut scratch).unwrap();
        assert_eq!(request.time.to_string(), "2024-05-26T11:42:52.601481Z");
        assert_eq!(request.client_ip, b"10.10.10.117");
        assert_eq!(request.method, b"GET");
        assert_eq!(request.target, b"/gentoo/a.tar.xz?x=1");
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 3768);
        assert_eq!(
            request.user_agent,
            Text::raw(b"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)")
        );
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: Some(b"https"),
                host: Some(b"mirrors.example.net:400"),
                port: None
            }
        );
        assert_eq!(classify(CADDY_LINE), Some(Format::Caddy));
    }

    #[test]
    fn caddy_behind_a_trusted_proxy_takes_the_forwarded_scheme_and_host() {
        let behind = br#"{"ts":1716723772,"request":{"remote_ip":"10.0.0.2","method":"GET","host":"backend:8080","uri":"/a","headers":{"X-Forwarded-Proto":["https"],"X-Forwarded-Host":["www.example.com, proxy.internal"],"User-Agent":["UA"]}},"status":200,"size":1}"#;
        let direct = br#"{"ts":1716723772,"request":{"remote_ip":"10.0.0.2","method":"GET","host":"backend:8080","uri":"/a","headers":{"User-Agent":["UA"]},"tls":{}},"status":200,"size":1}"#;
        let empty = br#"{"ts":1716723772,"request":{"method":"GET","host":"backend","uri":"/a","headers":{"X-Forwarded-Proto":[" "],"X-Forwarded-Host":[""]}},"status":200}"#;
        let mut trusting = FieldMap::new();
        trusting.set_trust_forwarded(true);
        type Case = (&'static [u8], bool, &'static [u8], &'static [u8]);
        let cases: &[Case] = &[
            (behind, true, b"https", b"www.example.com"),
            // untrusted: the headers could come from anyone
            (behind, false, b"http", b"backend:8080"),
            // trusted but absent or empty: the line's own scheme and host
            (direct, true, b"https", b"backend:8080"),
            (empty, true, b"http", b"backend"),
        ];
        for &(line, trust, scheme, host) in cases {
            let fields = if trust { &trusting } else { &FieldMap::new() };
            let mut scratch = Scratch::new();
            let request = parse(Format::Caddy, fields, line, &mut scratch).unwrap();
            assert_eq!(
                (request.origin.scheme, request.origin.host),
                (Some(scheme), Some(host)),
                "{trust} {}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn caddy_without_tls_is_http_and_remote_ip_is_the_fallback() {
        let line = br#"{"ts":1716723772,"request":{"remote_ip":"10.5.1.1","method":"GET","host":"h","uri":"/","headers":{}},"status":404,"size":0}"#;
        let mut scratch = Scratch::new();
        let request = parse(Format::Caddy, &FieldMap::new(), line, &mut scratch).unwrap();
        assert_eq!(request.origin.scheme, Some(&b"http"[..]));
        assert_eq!(request.client_ip, b"10.5.1.1");
        assert_eq!(request.user_agent, Text::default());
    }

    #[test]
    fn logpush_and_its_timestamp_forms() {
        let lines: &[&[u8]] = &[
            br#"{"ClientIP":"198.51.100.7","ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestScheme":"https","ClientRequestURI":"/a?b=1","ClientRequestUserAgent":"GPTBot/1.2","EdgeResponseBytes":512,"EdgeResponseStatus":200,"EdgeStartTimestamp":1716723772000000000,"RayID":"8"}"#,
            br#"{"ClientIP":"198.51.100.7","ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestScheme":"https","ClientRequestURI":"/a?b=1","ClientRequestUserAgent":"GPTBot/1.2","EdgeResponseBytes":512,"EdgeResponseStatus":200,"EdgeStartTimestamp":1716723772}"#,
            br#"{"ClientIP":"198.51.100.7","ClientRequestHost":"example.com","ClientRequestMethod":"GET","ClientRequestScheme":"https","ClientRequestURI":"/a?b=1","ClientRequestUserAgent":"GPTBot/1.2","EdgeResponseBytes":512,"EdgeResponseStatus":200,"EdgeStartTimestamp":"2024-05-26T11:42:52Z"}"#,
        ];
        for fields in [FieldMap::new(), FieldMap::logpush()] {
            for line in lines {
                let mut scratch = Scratch::new();
                let request = parse(Format::Json, &fields, line, &mut scratch).unwrap();
                assert_eq!(request.time.to_string(), "2024-05-26T11:42:52Z");
                assert_eq!(request.client_ip, b"198.51.100.7");
                assert_eq!(request.target, b"/a?b=1");
                assert_eq!(
                    request.origin,
                    OriginParts {
                        scheme: Some(b"https"),
                        host: Some(b"example.com"),
                        port: None
                    }
                );
                assert_eq!(request.user_agent.raw, b"GPTBot/1.2");
                assert_eq!((request.status, request.bytes), (200, 512));
                assert_eq!(classify(line), Some(Format::Json));
            }
        }
    }

    #[test]
    fn generic_json_with_defaults_and_string_numbers() {
        let line = br#"{"idsite":1,"ip": "1.2.3.4","host": "www.example.org","path": "/p.php?a=1","status": "200","referrer": "http://x/","user_agent": "Mozilla/5.0 (Windows NT 6.1)","length": 192,"date": "2013-10-10T16:52:00+02:00"}"#;
        let mut scratch = Scratch::new();
        let request = parse(Format::Json, &FieldMap::new(), line, &mut scratch).unwrap();
        assert_eq!(request.time.to_string(), "2013-10-10T14:52:00Z");
        assert_eq!(request.client_ip, b"1.2.3.4");
        assert_eq!(request.target, b"/p.php?a=1");
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 192);
        assert_eq!(request.origin.host, Some(&b"www.example.org"[..]));
    }

    #[test]
    fn nginx_request_line_and_escaped_values() {
        let line = br#"{"time_local":"10/Oct/2000:13:55:36 -0700","remote_addr":"1.2.3.4","request":"GET /a\u0020b?q HTTP/1.1","status":301,"body_bytes_sent":"-","http_user_agent":"Bot \"quoted\"/1.0"}"#;
        let mut scratch = Scratch::new();
        let request = parse(Format::Json, &FieldMap::new(), line, &mut scratch).unwrap();
        assert_eq!(request.method, b"GET");
        assert_eq!(request.target, b"/a b?q");
        assert_eq!(request.bytes, 0);
        assert_eq!(request.user_agent.raw, br#"Bot "quoted"/1.0"#);
        assert_eq!(request.time.to_string(), "2000-10-10T20:55:36Z");
    }

    #[test]
    fn explicit_mappings_replace_the_builtin_paths() {
        let fields = FieldMap::from_mappings([
            "time=t.sec",
            "target=req.path",
            "user_agent=req.h.ua",
            "user_agent=ua2",
        ])
        .unwrap();
        let line = br#"{"t":{"sec":0},"time":"2020-01-01T00:00:00Z","req":{"path":"/mapped","h":{"other":1}},"path":"/builtin","ua2":"fallback"}"#;
        let mut scratch = Scratch::new();
        let request = parse(Format::Json, &fields, line, &mut scratch).unwrap();
        assert_eq!(request.time, jiff::Timestamp::UNIX_EPOCH);
        assert_eq!(request.target, b"/mapped");
        assert_eq!(request.user_agent.raw, b"fallback");
    }

    #[test]
    fn crawl_json() {
        let line = br#"{"url":"https://example.com/private/x?y=1","timestamp":"2026-01-02T03:04:05Z","status":-9998,"user_agent":"ExampleBot/2.0"}"#;
        let mut scratch = Scratch::new();
        let request = parse(Format::Crawl, &FieldMap::new(), line, &mut scratch).unwrap();
        assert_eq!(request.target, b"https://example.com/private/x?y=1");
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: Some(b"https"),
                host: Some(b"example.com"),
                port: None
            }
        );
        assert_eq!((request.status, request.fetch_status), (0, Some(-9998)));
        assert_eq!(classify(line), Some(Format::Crawl));
        let fallback = br#"{"time":1,"url":"not a url","path":"/p"}"#;
        let request = parse(Format::Json, &FieldMap::new(), fallback, &mut scratch).unwrap();
        assert_eq!(request.target, b"/p");
        let undated = br#"{"url":"http://example.com/","status":200}"#;
        let request = parse(Format::Crawl, &FieldMap::new(), undated, &mut scratch).unwrap();
        assert_eq!(request.time, jiff::Timestamp::UNIX_EPOCH);
        assert_eq!(request.status, 200);
    }

    #[test]
    fn damaged_lines() {
        let cases: &[(Format, &[u8], SkipReason)] = &[
            (Format::Json, b"{\"time\":1,", SkipReason::BadJson),
            (Format::Json, b"[{\"time\":1}]", SkipReason::WrongFormat),
            (Format::Json, b"not json", SkipReason::WrongFormat),
            (
                Format::Json,
                b"{\"time\":1,\"path\":\"/\"} trailing",
                SkipReason::BadJson,
            ),
            (Format::Json, br#"{"path":"/"}"#, SkipReason::MissingField),
            (
                Format::Json,
                br#"{"time":"soon","path":"/"}"#,
                SkipReason::BadTime,
            ),
            (
                Format::Json,
                br#"{"time":1,"path":"/","status":"OK"}"#,
                SkipReason::BadStatus,
            ),
            (
                Format::Json,
                br#"{"time":1,"path":"/","status":70000}"#,
                SkipReason::BadStatus,
            ),
            (
                Format::Json,
                br#"{"time":1,"path":"/","bytes":-5}"#,
                SkipReason::BadBytes,
            ),
            (
                Format::Json,
                br#"{"time":1,"request":"\\x16\\x03"}"#,
                SkipReason::BadRequestLine,
            ),
            (Format::Json, br#"{"time":1}"#, SkipReason::MissingField),
            (
                Format::Crawl,
                br#"{"url":"dns:example.com"}"#,
                SkipReason::NotHttp,
            ),
            (
                Format::Crawl,
                br#"{"url":"example.com/x"}"#,
                SkipReason::BadUrl,
            ),
            (
                Format::Caddy,
                br#"{"ts":1,"request":{"uri":"/"},"status":-1}"#,
                SkipReason::BadStatus,
            ),
        ];
        for (format, line, want) in cases {
            let mut scratch = Scratch::new();
            assert_eq!(
                parse(*format, &FieldMap::new(), line, &mut scratch).map(|_| ()),
                Err(*want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn invalid_utf8_is_read_lossily() {
        let line = b"{\"time\":1,\"path\":\"/caf\xe9\",\"user_agent\":\"Bot\xff/1\"}";
        let mut scratch = Scratch::new();
        let request = parse(Format::Json, &FieldMap::new(), line, &mut scratch).unwrap();
        assert_eq!(request.target, "/caf\u{fffd}".as_bytes());
        assert_eq!(request.user_agent.raw, "Bot\u{fffd}/1".as_bytes());
        assert_eq!(classify(line), Some(Format::Json));
    }
}
