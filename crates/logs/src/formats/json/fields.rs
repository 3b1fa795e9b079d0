//! How a JSON log names each request property: the names `--field` knows ([`FieldName`]) and
//! the mappings and reading options every parser is built with ([`FieldMap`]: also whether
//! forwarded headers are trusted, the zone of times without an offset and the order of
//! HAProxy's captured headers). Below the parsers.

use std::fmt;

use crate::captures::HaproxyCaptures;
use crate::error::Error;
use crate::zone::LocalZone;

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
/// # Ok::<(), robots_audit_logs::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldMap {
    mappings: Vec<(FieldName, String)>,
    trust_forwarded: bool,
    local_zone: LocalZone,
    haproxy_captures: Option<HaproxyCaptures>,
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
            ..FieldMap::default()
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
    /// [`Error`] for the user when the spec has no `=`, names an unknown field, or has an
    /// empty path or path segment.
    pub fn parse_mapping(&mut self, spec: &str) -> Result<(), Error> {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(Error::MappingWithoutPath {
                spec: spec.to_owned(),
            });
        };
        let name = name.trim();
        let Some(field) = FieldName::from_name(name) else {
            let known: Vec<&str> = FieldName::ALL.iter().map(|f| f.as_str()).collect();
            return Err(Error::UnknownFieldName {
                spec: spec.to_owned(),
                name: name.to_owned(),
                known: known.join(", "),
            });
        };
        let path = path.trim();
        if path.is_empty() {
            return Err(Error::EmptyPath {
                spec: spec.to_owned(),
            });
        }
        if path.split('.').any(str::is_empty) {
            return Err(Error::EmptyPathSegment {
                spec: spec.to_owned(),
                path: path.to_owned(),
            });
        }
        self.mappings.push((field, path.to_owned()));
        Ok(())
    }

    /// Builds a map from several `NAME=PATH` specs (see [`FieldMap::parse_mapping`]).
    ///
    /// # Errors
    ///
    /// The error of the first spec that does not parse.
    pub fn from_mappings<'s, I: IntoIterator<Item = &'s str>>(specs: I) -> Result<FieldMap, Error> {
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

    /// Names the zone that times written without an offset are read in (`--timezone`):
    /// HAProxy's accept date, IIS Advanced Logging's `date-local` and `time-local`, a JSON date
    /// and time without one. UTC unless set. A request read this way says so ([`Request::zone_assumed`](crate::Request::zone_assumed)).
    ///
    /// ```
    /// use robots_audit_logs::{FieldMap, LocalZone};
    ///
    /// let mut fields = FieldMap::new();
    /// assert_eq!(fields.local_zone().name(), "UTC");
    /// fields.set_local_zone(LocalZone::named("Europe/Paris")?);
    /// assert_eq!(fields.local_zone().name(), "Europe/Paris");
    /// # Ok::<(), robots_audit_logs::Error>(())
    /// ```
    pub fn set_local_zone(&mut self, zone: LocalZone) {
        self.local_zone = zone;
    }

    /// The zone times without an offset are read in ([`FieldMap::set_local_zone`]).
    pub fn local_zone(&self) -> &LocalZone {
        &self.local_zone
    }

    /// Declares the request headers HAProxy captures, in their configured order
    /// (`--haproxy-captures`): the `haproxy` format then reads the user-agent and the host of
    /// its first brace block by position, and a block of another number of values gives
    /// neither. Without it, they are told apart by their shape, which the client chooses.
    ///
    /// ```
    /// use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch};
    ///
    /// let line = b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - \
    ///     ---- 3/3/1/1/0 0/0 {Mozilla/5.0 (compatible; bingbot/2.0)|shop.example|curl/8.4.0} \
    ///     \"GET / HTTP/1.1\"";
    /// let mut fields = FieldMap::new();
    /// fields.set_haproxy_captures(Some("referer,host,user-agent".parse()?));
    /// let parser = LineParser::new(Format::Haproxy, &fields);
    /// let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    /// let request = parser.parse(line, &mut state, &mut scratch).unwrap().unwrap();
    /// assert_eq!(request.user_agent.raw, b"curl/8.4.0");
    /// assert_eq!(request.origin.host, Some(&b"shop.example"[..]));
    /// # Ok::<(), robots_audit_logs::Error>(())
    /// ```
    pub fn set_haproxy_captures(&mut self, captures: Option<HaproxyCaptures>) {
        self.haproxy_captures = captures;
    }

    /// The request headers HAProxy captures, when declared
    /// ([`FieldMap::set_haproxy_captures`]).
    pub fn haproxy_captures(&self) -> Option<&HaproxyCaptures> {
        self.haproxy_captures.as_ref()
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

#[cfg(test)]
mod tests {
    use super::*;

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
            let error = fields.parse_mapping(spec).unwrap_err().to_string();
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
