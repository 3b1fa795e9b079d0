//! JSON-lines logs: Caddy, Cloudflare Logpush, nginx/Fastly-style JSON, and crawler fetch logs
//! in JSON, all read through one field map.
//!
//! A line is walked once with serde_json, descending only into the keys some mapped path
//! names and skipping everything else unparsed. Strings without escapes are borrowed from the
//! line; escaped strings are unescaped into the [`Scratch`](crate::Scratch), so no line
//! allocates.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::format::Format;
use crate::formats::lex;
use crate::record::{OriginParts, Request, Text};
use crate::scratch::Buffers;
use crate::skip::SkipReason;
use crate::time;

/// A request property that a JSON log's fields can be mapped to with `--field NAME=PATH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldName {
    /// When the request was made: epoch seconds/ms/µs/ns (number or string), RFC 3339, or a CLF
    /// time.
    Time,
    /// The client address.
    ClientIp,
    /// The HTTP method.
    Method,
    /// The request target: path and query.
    Target,
    /// The absolute URL (`https://host/path?q`); wins over `target`, `host` and `scheme`.
    Url,
    /// The HTTP status (number or numeric string).
    Status,
    /// Response bytes.
    Bytes,
    /// The User-Agent header (the first element when it is an array, as Caddy logs headers).
    UserAgent,
    /// The Host header.
    Host,
    /// `http` or `https`.
    Scheme,
    /// A whole request line (`GET /path HTTP/1.1`, nginx `$request`), used for the method and
    /// target when they are not mapped on their own.
    RequestLine,
}

impl FieldName {
    /// Every name, in the order `--help` lists them.
    pub const ALL: [FieldName; 11] = [
        FieldName::Time,
        FieldName::ClientIp,
        FieldName::Method,
        FieldName::Target,
        FieldName::Url,
        FieldName::Status,
        FieldName::Bytes,
        FieldName::UserAgent,
        FieldName::Host,
        FieldName::Scheme,
        FieldName::RequestLine,
    ];

    /// The name `--field` uses: `time`, `client_ip`, `method`, `target`, `url`, `status`,
    /// `bytes`, `user_agent`, `host`, `scheme`, `request_line`.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldName::Time => "time",
            FieldName::ClientIp => "client_ip",
            FieldName::Method => "method",
            FieldName::Target => "target",
            FieldName::Url => "url",
            FieldName::Status => "status",
            FieldName::Bytes => "bytes",
            FieldName::UserAgent => "user_agent",
            FieldName::Host => "host",
            FieldName::Scheme => "scheme",
            FieldName::RequestLine => "request_line",
        }
    }

    /// The field named `name` (as [`FieldName::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<FieldName> {
        FieldName::ALL
            .into_iter()
            .find(|field| field.as_str() == name)
    }
}

impl fmt::Display for FieldName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a JSON log keeps each request property: `--field` mappings such as
/// `user_agent=request.headers.User-Agent`, or a preset.
///
/// A name mapped here replaces the format's built-in paths for that name; names not mapped
/// keep them. Mapping a name twice adds a fallback path, tried when the first is absent.
///
/// ```
/// use robots_audit_logs::{FieldMap, FieldName};
///
/// let mut fields = FieldMap::new();
/// fields.parse_mapping("user_agent=request.headers.User-Agent")?;
/// fields.parse_mapping("time=ts")?;
/// assert_eq!(fields.paths(FieldName::UserAgent).collect::<Vec<_>>(), ["request.headers.User-Agent"]);
/// assert!(fields.parse_mapping("agent=ua").is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldMap {
    mappings: Vec<(FieldName, String)>,
    trust_forwarded: bool,
}

impl FieldMap {
    /// No mappings: every format uses its built-in paths.
    pub fn new() -> FieldMap {
        FieldMap::default()
    }

    /// Cloudflare Logpush `http_requests` jobs (`EdgeStartTimestamp`, `ClientRequestURI`, ...).
    /// The generic `json` format reads these names without being told; the preset makes sure
    /// no other field of the same meaning is picked up first.
    pub fn logpush() -> FieldMap {
        let mappings = [
            (FieldName::Time, "EdgeStartTimestamp"),
            (FieldName::ClientIp, "ClientIP"),
            (FieldName::Method, "ClientRequestMethod"),
            (FieldName::Host, "ClientRequestHost"),
            (FieldName::Scheme, "ClientRequestScheme"),
            (FieldName::Target, "ClientRequestURI"),
            (FieldName::Status, "EdgeResponseStatus"),
            (FieldName::Bytes, "EdgeResponseBytes"),
            (FieldName::UserAgent, "ClientRequestUserAgent"),
        ];
        FieldMap {
            mappings: mappings
                .iter()
                .map(|&(name, path)| (name, path.to_owned()))
                .collect(),
            trust_forwarded: false,
        }
    }

    /// The preset called `name` (`logpush`), for a `--field preset=NAME` style option.
    pub fn preset(name: &str) -> Option<FieldMap> {
        (name == "logpush").then(FieldMap::logpush)
    }

    /// Adds one `NAME=dotted.path` mapping, as `--field` gives it. A path names nested keys
    /// separated by dots; a key that holds an array stands for its first element.
    ///
    /// # Errors
    ///
    /// A message for the user when the spec has no `=`, names an unknown field, or has an
    /// empty path or path segment.
    pub fn parse_mapping(&mut self, spec: &str) -> Result<(), String> {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(format!(
                "--field {spec:?}: expected NAME=JSON.PATH, e.g. user_agent=request.headers.User-Agent"
            ));
        };
        let name = name.trim();
        let Some(field) = FieldName::from_name(name) else {
            let known: Vec<&str> = FieldName::ALL.iter().map(|f| f.as_str()).collect();
            return Err(format!(
                "--field {spec:?}: unknown field name {name:?}; known names: {}",
                known.join(", ")
            ));
        };
        let path = path.trim();
        if path.is_empty() {
            return Err(format!("--field {spec:?}: the JSON path is empty"));
        }
        if path.split('.').any(str::is_empty) {
            return Err(format!(
                "--field {spec:?}: the JSON path {path:?} has an empty segment"
            ));
        }
        self.mappings.push((field, path.to_owned()));
        Ok(())
    }

    /// Builds a map from several `NAME=PATH` specs (see [`FieldMap::parse_mapping`]).
    ///
    /// # Errors
    ///
    /// The message of the first spec that does not parse.
    pub fn from_mappings<'s, I: IntoIterator<Item = &'s str>>(
        specs: I,
    ) -> Result<FieldMap, String> {
        let mut map = FieldMap::new();
        for spec in specs {
            map.parse_mapping(spec)?;
        }
        Ok(map)
    }

    /// Says whether a proxy in front of the server sets `X-Forwarded-Proto` and
    /// `X-Forwarded-Host` (`--trust-forwarded`). When it does, a Caddy line that carries them
    /// takes its scheme and host from them (the first value of each, when a chain of proxies
    /// listed several), and a line without them keeps the scheme of its TLS and its `Host`.
    /// Off by default: a client can send these headers itself.
    ///
    /// ```
    /// use robots_audit_logs::FieldMap;
    ///
    /// let mut fields = FieldMap::new();
    /// assert!(!fields.trusts_forwarded());
    /// fields.set_trust_forwarded(true);
    /// assert!(fields.trusts_forwarded());
    /// ```
    pub fn set_trust_forwarded(&mut self, trust: bool) {
        self.trust_forwarded = trust;
    }

    /// Whether `X-Forwarded-Proto` and `X-Forwarded-Host` are trusted
    /// ([`FieldMap::set_trust_forwarded`]).
    pub fn trusts_forwarded(&self) -> bool {
        self.trust_forwarded
    }

    /// The paths mapped to `name`, first choice first.
    pub fn paths(&self, name: FieldName) -> impl Iterator<Item = &str> {
        self.mappings
            .iter()
            .filter(move |(field, _)| *field == name)
            .map(|(_, path)| path.as_str())
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.mappings.is_empty()
    }
}

/// Where values are collected: one slot per [`FieldName`], plus Caddy's `tls` object whose
/// mere presence means HTTPS.
const TLS_SLOT: usize = FieldName::ALL.len();
/// Caddy behind a trusted proxy: the `X-Forwarded-Proto` and `X-Forwarded-Host` headers.
const FORWARDED_PROTO_SLOT: usize = TLS_SLOT + 1;
const FORWARDED_HOST_SLOT: usize = TLS_SLOT + 2;
const SLOTS: usize = TLS_SLOT + 3;

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

/// One node of the tree of mapped paths.
#[derive(Debug, Clone, Default)]
struct Node {
    children: Vec<(Box<str>, usize)>,
    /// The slots this node's value fills, with the preference of this path (lower wins).
    targets: Vec<(usize, u8)>,
}

/// A parser for one JSON preset: the mapped paths as a tree.
#[derive(Debug, Clone)]
pub(crate) struct JsonParser {
    nodes: Vec<Node>,
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
            nodes: vec![Node::default()],
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
                parser.add(
                    path,
                    name as usize,
                    u8::try_from(preference).unwrap_or(u8::MAX),
                );
            }
        }
        if parser.tls_scheme {
            parser.add("request.tls", TLS_SLOT, 0);
            if fields.trusts_forwarded() {
                parser.add("request.headers.X-Forwarded-Proto", FORWARDED_PROTO_SLOT, 0);
                parser.add("request.headers.X-Forwarded-Host", FORWARDED_HOST_SLOT, 0);
            }
        }
        parser
    }

    fn add(&mut self, path: &str, slot: usize, preference: u8) {
        let mut node = 0;
        for segment in path.split('.') {
            let existing = self
                .nodes
                .get(node)
                .and_then(|n| n.children.iter().find(|(key, _)| &**key == segment))
                .map(|&(_, child)| child);
            node = match existing {
                Some(child) => child,
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(Node::default());
                    if let Some(parent) = self.nodes.get_mut(node) {
                        parent.children.push((segment.into(), child));
                    }
                    child
                }
            };
        }
        if let Some(leaf) = self.nodes.get_mut(node) {
            leaf.targets.push((slot, preference));
        }
    }

    /// Parses one line.
    pub(crate) fn parse<'a>(
        &self,
        line: &'a [u8],
        buffers: &'a mut Buffers,
    ) -> Result<Request<'a>, SkipReason> {
        if !line.trim_ascii_start().starts_with(b"{") {
            return Err(SkipReason::WrongFormat);
        }
        let Buffers { lossy, unescaped } = buffers;
        unescaped.clear();
        let mut found = Found::default();
        if self.walk(line, &mut found, unescaped).is_err() {
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
            self.walk(lossy, &mut found, unescaped)
                .map_err(|_| SkipReason::BadJson)?;
        }
        let unescaped: &'a [u8] = unescaped;
        self.request(&found, unescaped)
    }

    fn walk<'a>(
        &self,
        input: &'a [u8],
        found: &mut Found<'a>,
        unescaped: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        if input.trim_ascii_start().first() != Some(&b'{') {
            return Err(de::Error::custom("not an object"));
        }
        let mut deserializer = serde_json::Deserializer::from_slice(input);
        Walk {
            parser: self,
            node: 0,
            found,
            unescaped,
        }
        .deserialize(&mut deserializer)?;
        deserializer.end()
    }

    fn request<'a>(
        &self,
        found: &Found<'a>,
        unescaped: &'a [u8],
    ) -> Result<Request<'a>, SkipReason> {
        let text = |name: FieldName| found.text(name as usize, unescaped);
        let time = match found.value(FieldName::Time as usize) {
            Some(value) => value.time(unescaped).ok_or(SkipReason::BadTime)?,
            None if self.crawl => jiff::Timestamp::UNIX_EPOCH,
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
        Ok(Request {
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
        })
    }
}

/// A string value: borrowed from the line, or unescaped into the scratch buffer.
#[derive(Debug, Clone, Copy)]
enum Str<'a> {
    Line(&'a [u8]),
    Unescaped { start: usize, end: usize },
}

impl<'a> Str<'a> {
    fn bytes(self, unescaped: &'a [u8]) -> &'a [u8] {
        match self {
            Str::Line(bytes) => bytes,
            Str::Unescaped { start, end } => unescaped.get(start..end).unwrap_or_default(),
        }
    }
}

/// A scalar found at a mapped path.
#[derive(Debug, Clone, Copy)]
enum Value<'a> {
    Str(Str<'a>),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    /// A boolean, object or other value that is there but is no text or number.
    Present,
}

impl<'a> Value<'a> {
    fn time(self, unescaped: &'a [u8]) -> Option<jiff::Timestamp> {
        match self {
            Value::Str(text) => time::any(text.bytes(unescaped)),
            Value::Unsigned(n) => time::epoch_integer(i64::try_from(n).ok()?),
            Value::Signed(n) => time::epoch_integer(n),
            Value::Float(f) => time::epoch_float(f),
            Value::Present => None,
        }
    }

    fn integer(self, unescaped: &'a [u8]) -> Option<i64> {
        match self {
            Value::Str(text) => {
                let text = text.bytes(unescaped).trim_ascii();
                match text.strip_prefix(b"-") {
                    Some(digits) => lex::number(digits)
                        .and_then(|n| i64::try_from(n).ok())
                        .map(|n| -n),
                    None => lex::number(text).and_then(|n| i64::try_from(n).ok()),
                }
            }
            Value::Unsigned(n) => i64::try_from(n).ok(),
            Value::Signed(n) => Some(n),
            // Whole floats only (`200.0`); the cast is exact below 2^53.
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            Value::Float(_) | Value::Present => None,
        }
    }

    fn is_dash(self, unescaped: &'a [u8]) -> bool {
        matches!(self, Value::Str(text) if matches!(text.bytes(unescaped), b"-" | b""))
    }
}

/// The best value found so far for each slot, with the preference of the path it came from.
#[derive(Debug, Default)]
struct Found<'a> {
    slots: [Option<(u8, Value<'a>)>; SLOTS],
}

impl<'a> Found<'a> {
    fn value(&self, slot: usize) -> Option<Value<'a>> {
        self.slots
            .get(slot)
            .copied()
            .flatten()
            .map(|(_, value)| value)
    }

    /// The slot as text: strings as they are, numbers not (a numeric user-agent is no
    /// user-agent). Empty strings and `-` count as absent.
    fn text(&self, slot: usize, unescaped: &'a [u8]) -> Option<&'a [u8]> {
        match self.value(slot)? {
            Value::Str(text) => lex::present(text.bytes(unescaped)),
            _ => None,
        }
    }

    fn record(&mut self, targets: &[(usize, u8)], value: Value<'a>) {
        for &(slot, preference) in targets {
            if let Some(entry) = self.slots.get_mut(slot)
                && entry.is_none_or(|(existing, _)| preference < existing)
            {
                *entry = Some((preference, value));
            }
        }
    }
}

/// Walks one JSON value at one node of the path tree.
struct Walk<'p, 'w, 'a> {
    parser: &'p JsonParser,
    node: usize,
    found: &'w mut Found<'a>,
    unescaped: &'w mut Vec<u8>,
}

impl<'a> Walk<'_, '_, 'a> {
    fn record(self, value: Value<'a>) {
        let targets = self
            .parser
            .nodes
            .get(self.node)
            .map_or(&[][..], |node| &node.targets);
        self.found.record(targets, value);
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<(), E> {
        self.record(Value::Str(Str::Line(value.as_bytes())));
        Ok(())
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<(), E> {
        let targets = self
            .parser
            .nodes
            .get(self.node)
            .map_or(&[][..], |node| &node.targets);
        if !targets.is_empty() {
            let start = self.unescaped.len();
            self.unescaped.extend_from_slice(value.as_bytes());
            self.found.record(
                targets,
                Value::Str(Str::Unescaped {
                    start,
                    end: self.unescaped.len(),
                }),
            );
        }
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<(), E> {
        self.record(Value::Unsigned(value));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<(), E> {
        self.record(Value::Signed(value));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        self.record(Value::Float(value));
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.record(Value::Present);
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // An array stands for its first element: Caddy logs each header as a list of values.
        let Walk {
            parser,
            node,
            found,
            unescaped,
        } = self;
        seq.next_element_seed(Walk {
            parser,
            node,
            found,
            unescaped,
        })?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Walk {
            parser,
            node,
            found,
            unescaped,
        } = self;
        let Some(current) = parser.nodes.get(node) else {
            return Ok(());
        };
        found.record(&current.targets, Value::Present);
        while let Some(child) = map.next_key_seed(Key {
            children: &current.children,
        })? {
            match child {
                Some(child) => map.next_value_seed(Walk {
                    parser,
                    node: child,
                    found: &mut *found,
                    unescaped: &mut *unescaped,
                })?,
                None => map.next_value::<IgnoredAny>().map(|_| ())?,
            }
        }
        Ok(())
    }
}

/// Reads an object key and looks it up among a node's children without allocating.
struct Key<'p> {
    children: &'p [(Box<str>, usize)],
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<usize>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self
            .children
            .iter()
            .find(|(name, _)| &**name == key)
            .map(|&(_, child)| child))
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
    use crate::scratch::Scratch;

    fn parse<'a>(
        format: Format,
        fields: &FieldMap,
        line: &'a [u8],
        scratch: &'a mut Scratch,
    ) -> Result<Request<'a>, SkipReason> {
        JsonParser::new(format, fields).parse(line, &mut scratch.first)
    }

    const CADDY_LINE: &[u8] = br#"{"level":"info","ts":1716723772.6014807,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.5.1.1","remote_port":"38574","client_ip":"10.10.10.117","proto":"HTTP/2.0","method":"GET","host":"mirrors.example.net:400","uri":"/gentoo/a.tar.xz?x=1","headers":{"Accept":["*/*"],"User-Agent":["facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"]},"tls":{"resumed":false}},"bytes_read":0,"duration":0.01,"size":3768,"status":200,"resp_headers":{"Server":["Caddy"]}}"#;

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

    #[test]
    fn mapping_errors_are_clear() {
        let mut fields = FieldMap::new();
        let cases = [
            ("user_agent", "expected NAME=JSON.PATH"),
            (
                "agent=ua",
                "unknown field name \"agent\"; known names: time, client_ip",
            ),
            ("time=", "the JSON path is empty"),
            ("time=a..b", "has an empty segment"),
        ];
        for (spec, message) in cases {
            let error = fields.parse_mapping(spec).unwrap_err();
            assert!(error.contains(message), "{spec}: {error}");
        }
        assert!(fields.is_empty());
        assert_eq!(FieldMap::preset("logpush"), Some(FieldMap::logpush()));
        assert_eq!(FieldMap::preset("nope"), None);
        for name in FieldName::ALL {
            assert_eq!(FieldName::from_name(name.as_str()), Some(name));
        }
    }
}
