//! HAProxy's `option httplog` lines, as HAProxy sends them to syslog (the prefix is the
//! reader's: see the prefixes in the line parser):
//!
//! `client_ip:port [accept_date] frontend backend/server Tq/Tw/Tc/Tr/Ta status bytes
//! request_cookie response_cookie termination_state actconn/feconn/beconn/srv_conn/retries
//! server_queue/backend_queue {captured request headers} {captured response headers}
//! "request line"`
//!
//! The accept date is HAProxy's local time without an offset: it is read in the parser's zone
//! (`--timezone`) and the request says so. A frontend whose name ends in `~` accepted TLS: the
//! scheme is `https`, else `http`. HAProxy writes `"`, `#`, control bytes and bytes above `~`
//! of the request line (and `{`, `|`, `}` of captured headers) as `#XX`; the target, the
//! user-agent and the host are decoded into the scratch buffer.
//!
//! The brace blocks are there only when `capture request header` or `capture response header`
//! is configured, and the line does not say which header each `|`-separated value is. The
//! first block is read as the request headers (HAProxy writes them first). Where the operator
//! declared the order of the `capture request header` lines ([`HaproxyCaptures`]), the
//! user-agent and the host are the values at their positions, and a block of another number of
//! values (a frontend configured otherwise) gives neither. The client writes every value but
//! cannot move one: HAProxy writes a `|` inside a value as `#7C`, and the block is split before
//! its values are decoded. Without the declaration, the values are told apart by their shape,
//! which the client chooses: the user-agent is the first value that looks like one (it starts
//! with a letter and holds a product token such as `Mozilla/5.0` or the word bot, crawler or
//! spider, and is no URL), and the host the first other value that is a host name with a
//! letter in it, with or without a port (a Host header written as an IP address cannot be told
//! from an X-Forwarded-For value, and is not taken). So a Referer that reads like another
//! crawler's user-agent, captured before the User-Agent, is taken for it.

use crate::captures::HaproxyCaptures;
use crate::formats::lex;
use crate::record::{self, OriginParts, Request, Text};
use crate::scratch::{BlockState, Buffers};
use crate::skip::SkipReason;
use crate::time;
use crate::zone::LocalZone;

/// `n` slash-separated numbers, each `-1` or digits (the last one may carry the `+` of
/// `option logasap`).
fn counters(field: &[u8], n: usize) -> bool {
    let mut parts = 0;
    for part in field.split(|&b| b == b'/') {
        let digits = part.strip_prefix(b"+").unwrap_or(part);
        if part != b"-1" && lex::number(digits).is_none() {
            return false;
        }
        parts += 1;
    }
    parts == n
}

/// The client `ip:port` and the accept date that open every HAProxy line, and what follows the
/// date: `None` unless the line has that shape.
fn opening(line: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (client, rest) = lex::near_token(line);
    let client_ip = lex::strip_port(client);
    if client_ip.len() == client.len() || !lex::is_client(client_ip) {
        return None;
    }
    let rest = rest.strip_prefix(b"[")?;
    let close = memchr::memchr(b']', rest)?;
    let (date, rest) = rest.split_at(close);
    let rest = rest.strip_prefix(b"] ")?;
    time::haproxy_wall(date)?;
    Some((client_ip, date, rest))
}

/// Whether `line` has the shape of an HAProxy log line (HTTP or TCP).
pub(crate) fn looks_like(line: &[u8]) -> bool {
    opening(line.trim_ascii_end()).is_some()
}

/// A brace block at the start of `rest` (`{a|b} `): its content and what follows it.
fn brace_block(rest: &[u8]) -> Option<(&[u8], &[u8])> {
    let body = rest.strip_prefix(b"{")?;
    let close = memchr::memchr(b'}', body)?;
    let (content, after) = body.split_at(close);
    let after = after.get(1..).unwrap_or_default();
    Some((content, after.strip_prefix(b" ").unwrap_or(after)))
}

/// Whether a captured value is a host name with a letter in it, with or without a port.
fn looks_like_host(value: &[u8]) -> bool {
    let (host, _) = lex::split_host_port(value);
    lex::is_host_name(host) && host.iter().any(u8::is_ascii_alphabetic)
}

/// Whether a captured value looks like a User-Agent header (see the module's documentation).
fn looks_like_user_agent(value: &[u8]) -> bool {
    if !value.first().is_some_and(u8::is_ascii_alphabetic)
        || looks_like_host(value)
        || lex::url_origin(value).is_some()
    {
        return false;
    }
    let product = value
        .windows(2)
        .any(|pair| pair[0] == b'/' && pair[1].is_ascii_digit());
    let lower = |word: &[u8]| {
        value
            .windows(word.len())
            .any(|window| window.eq_ignore_ascii_case(word))
    };
    product || lower(b"bot") || lower(b"crawl") || lower(b"spider")
}

/// The user-agent and the host among the captured request headers, guessed by their shape.
fn guessed(headers: &[u8]) -> (Option<&[u8]>, Option<&[u8]>) {
    let (mut agent, mut host) = (None, None);
    for value in headers.split(|&b| b == b'|') {
        if agent.is_none() && looks_like_user_agent(value) {
            agent = Some(value);
        } else if host.is_none() && looks_like_host(value) {
            host = Some(value);
        }
    }
    (agent, host)
}

/// The user-agent and the host among the captured request headers, at the positions the
/// operator declared. Nothing from a block of another number of values: its positions are
/// another configuration's. An empty value is a header the request did not carry.
fn declared<'a>(
    headers: &'a [u8],
    captures: &HaproxyCaptures,
) -> (Option<&'a [u8]>, Option<&'a [u8]>) {
    let (mut agent, mut host, mut values) = (None, None, 0);
    for (at, value) in headers.split(|&b| b == b'|').enumerate() {
        if Some(at) == captures.user_agent() {
            agent = Some(value);
        } else if Some(at) == captures.host() {
            host = Some(value);
        }
        values += 1;
    }
    if values != captures.values() {
        return (None, None);
    }
    let sent = |value: &&[u8]| !value.is_empty();
    (agent.filter(sent), host.filter(sent))
}

/// Parses one line (without its line end). `zone` is the zone of the accept date, `captures`
/// the declared order of the captured request headers.
///
/// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
pub(crate) fn parse<'a>(
    line: &'a [u8],
    state: &mut BlockState,
    buffers: &'a mut Buffers,
    zone: &LocalZone,
    captures: Option<&HaproxyCaptures>,
) -> Result<Option<Request<'a>>, SkipReason> {
    let line = line.trim_ascii_end();
    let (client_ip, date, rest) = opening(line).ok_or(SkipReason::WrongFormat)?;
    let wall = time::haproxy_wall(date).ok_or(SkipReason::BadTime)?;
    let time = zone
        .timestamp(wall, &mut state.zone_minute)
        .ok_or(SkipReason::BadTime)?;
    let mut fields = rest.splitn(11, |&b| b == b' ');
    let mut next = || fields.next().ok_or(SkipReason::MissingField);
    let frontend = next()?;
    let _backend_server = next()?;
    let timers = next()?;
    if counters(timers, 3) {
        // `option tcplog`: a connection, no HTTP request.
        return Err(SkipReason::NotHttp);
    }
    if !counters(timers, 5) {
        return Err(SkipReason::MissingField);
    }
    let status = match next()? {
        b"-1" => 0,
        status => lex::status(status)?,
    };
    let bytes_field = next()?;
    let bytes = lex::bytes(bytes_field.strip_prefix(b"+").unwrap_or(bytes_field))?;
    let (_request_cookie, _response_cookie, _termination) = (next()?, next()?, next()?);
    let (connections, queues) = (next()?, next()?);
    if !counters(connections, 5) || !counters(queues, 2) {
        return Err(SkipReason::MissingField);
    }
    let mut rest = next()?;
    let mut request_headers = None;
    if let Some((headers, after)) = brace_block(rest) {
        request_headers = Some(headers);
        rest = brace_block(after).map_or(after, |(_response_headers, after)| after);
    }
    let request = rest
        .strip_prefix(b"\"")
        .and_then(|r| r.strip_suffix(b"\""))
        .ok_or(SkipReason::BadRequestLine)?;
    let (method, target) = lex::request_line(request)?;
    let (agent, host) = match (request_headers, captures) {
        (Some(headers), Some(captures)) => declared(headers, captures),
        (Some(headers), None) => guessed(headers),
        (None, _) => (None, None),
    };
    let Buffers { unescaped, .. } = buffers;
    unescaped.clear();
    let mut decoded = |raw: &'a [u8]| {
        if memchr::memchr(b'#', raw).is_none() {
            return Err(raw);
        }
        let start = unescaped.len();
        record::hash_decode_into(raw, unescaped);
        Ok(start..unescaped.len())
    };
    let target = decoded(target);
    let agent = agent.map(&mut decoded);
    let host = host.map(&mut decoded);
    let unescaped: &'a [u8] = unescaped;
    let text = |read: Result<std::ops::Range<usize>, &'a [u8]>| match read {
        Ok(range) => unescaped.get(range).unwrap_or_default(),
        Err(raw) => raw,
    };
    let scheme: &'static [u8] = if frontend.ends_with(b"~") {
        b"https"
    } else {
        b"http"
    };
    Ok(Some(Request {
        time,
        client_ip,
        method,
        target: text(target),
        query: None,
        status,
        fetch_status: None,
        bytes,
        user_agent: agent.map(text).map_or_else(Text::default, Text::raw),
        origin: OriginParts {
            scheme: Some(scheme),
            host: host.map(text),
            port: None,
        },
        zone_assumed: true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;

    /// A line read: time, client, target, status, bytes, user-agent, scheme, host.
    type Read = (
        String,
        Vec<u8>,
        Vec<u8>,
        u16,
        u64,
        Vec<u8>,
        Vec<u8>,
        Option<Vec<u8>>,
    );

    fn read(
        line: &[u8],
        zone: &LocalZone,
        captures: Option<&HaproxyCaptures>,
    ) -> Result<Read, SkipReason> {
        let mut buffers = Buffers::default();
        let mut state = BlockState::default();
        let request = request_of(parse(line, &mut state, &mut buffers, zone, captures))?;
        assert!(request.zone_assumed);
        Ok((
            request.time.to_string(),
            request.client_ip.to_vec(),
            request.target.to_vec(),
            request.status,
            request.bytes,
            request.user_agent.raw.to_vec(),
            request.origin.scheme.unwrap_or_default().to_vec(),
            request.origin.host.map(<[u8]>::to_vec),
        ))
    }

    #[test]
    fn lines() {
        let utc = LocalZone::default();
        let paris = LocalZone::named("Europe/Paris").unwrap();
        type Case<'z> = (
            &'static [u8],
            &'z LocalZone,
            Result<
                (
                    &'static str,
                    &'static [u8],
                    &'static [u8],
                    u16,
                    u64,
                    &'static [u8],
                    &'static [u8],
                    Option<&'static [u8]>,
                ),
                SkipReason,
            >,
        );
        let cases: &[Case<'_>] = &[
            // the default line, nothing captured
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 5120 - - ---- 3/3/1/1/0 0/0 \"GET /index.html HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/index.html", 200, 5120, b"", b"http", None))),
            // a TLS frontend; Host and User-Agent captured
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www~ web/app1 0/0/1/12/13 404 310 - - ---- 3/3/1/1/0 0/0 {shop.example|Mozilla/5.0 (compatible; ExampleBot/1.0; +https://bot.example/)} \"GET /private/x?y=1 HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/private/x?y=1", 404, 310, b"Mozilla/5.0 (compatible; ExampleBot/1.0; +https://bot.example/)", b"https", Some(b"shop.example")))),
            // captures in another order, with X-Forwarded-For and a Referer, and a response block
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www~ web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 {198.51.100.7|https://ref.example/2024/x|ExampleBot/2.1|shop.example:8443} {text/html|nginx/1.25.3} \"GET / HTTP/2.0\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/", 200, 1, b"ExampleBot/2.1", b"https", Some(b"shop.example:8443")))),
            // no user-agent sent: an empty value; a crawler without a version
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 {shop.example|} \"GET / HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/", 200, 1, b"", b"http", Some(b"shop.example")))),
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 {Some Crawler|shop.example} \"GET / HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/", 200, 1, b"Some Crawler", b"http", Some(b"shop.example")))),
            // HAProxy's escapes in the target and a captured header
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 {ExampleBot/1.0 #7B#7C#7D} \"GET /q#22x#23y#20z#zz HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/q\"x#y z#zz", 200, 1, b"ExampleBot/1.0 {|}", b"http", None))),
            // option logasap: `+` before the total time and the bytes; a server that never answered
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/-1/+13 -1 +0 - - CH-- 3/3/1/1/0 0/0 \"GET /slow HTTP/1.1\"",
             &utc, Ok(("2026-11-20T01:00:00.125Z", b"192.0.2.10", b"/slow", 0, 0, b"", b"http", None))),
            // an IPv6 client; the accept date in the named zone (UTC+1 in November)
            (b"2001:db8::7:40000 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 \"HEAD /a HTTP/1.1\"",
             &paris, Ok(("2026-11-20T00:00:00.125Z", b"2001:db8::7", b"/a", 200, 1, b"", b"http", None))),
            // not requests: a TCP connection, a request HAProxy could not parse
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] tcp-in app/srv1 0/0/5007 212 -- 1/1/1/1/0 0/0", &utc, Err(SkipReason::NotHttp)),
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www www/<NOSRV> -1/-1/-1/-1/0 400 187 - - CR-- 1/1/0/0/0 0/0 \"<BADREQ>\"", &utc, Err(SkipReason::BadRequestLine)),
            // damage and other formats' lines
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 OK 1 - - ---- 3/3/1/1/0 0/0 \"GET / HTTP/1.1\"", &utc, Err(SkipReason::BadStatus)),
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1", &utc, Err(SkipReason::MissingField)),
            (b"192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 \"GET / HTTP/1.1", &utc, Err(SkipReason::BadRequestLine)),
            (b"192.0.2.10:51012 [31/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 \"GET / HTTP/1.1\"", &utc, Err(SkipReason::WrongFormat)),
            (br#"192.0.2.10 - - [20/Nov/2026:01:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#, &utc, Err(SkipReason::WrongFormat)),
        ];
        for (line, zone, want) in cases {
            let want = (*want).map(
                |(time, client, target, status, bytes, agent, scheme, host)| {
                    (
                        time.to_owned(),
                        client.to_vec(),
                        target.to_vec(),
                        status,
                        bytes,
                        agent.to_vec(),
                        scheme.to_vec(),
                        host.map(<[u8]>::to_vec),
                    )
                },
            );
            assert_eq!(
                read(line, zone, None),
                want,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn captured_values_are_told_apart() {
        type Case = (&'static [u8], Option<&'static [u8]>, Option<&'static [u8]>);
        let cases: &[Case] = &[
            (b"shop.example|curl/8.4.0", Some(b"curl/8.4.0"), Some(b"shop.example")),
            (b"Googlebot/2.1 (+http://www.google.com/bot.html)|en-US,en;q=0.9|text/html,*/*;q=0.8", Some(b"Googlebot/2.1 (+http://www.google.com/bot.html)"), None),
            (b"https://ref.example/2024/|localhost:8080", None, Some(b"localhost:8080")),
            (b"203.0.113.9|203.0.113.9, 10.0.0.1", None, None),
            (b"", None, None),
            // What the shape cannot tell: a Referer written as a crawler's user-agent ahead of
            // the real one, a host-shaped X-Forwarded-For ahead of the real Host.
            (b"Mozilla/5.0 (compatible; bingbot/2.0)|curl/8.4.0|shop.example", Some(b"Mozilla/5.0 (compatible; bingbot/2.0)"), Some(b"shop.example")),
            (b"other.example|shop.example|curl/8.4.0", Some(b"curl/8.4.0"), Some(b"other.example")),
        ];
        for &(headers, agent, host) in cases {
            assert_eq!(
                guessed(headers),
                (agent, host),
                "{}",
                String::from_utf8_lossy(headers)
            );
        }
    }

    #[test]
    fn declared_values_are_read_by_position() {
        type Case = (
            &'static str,
            &'static [u8],
            Option<&'static [u8]>,
            Option<&'static [u8]>,
        );
        let cases: &[Case] = &[
            // what the guess was fooled by, read by position
            (
                "referer,user-agent,host",
                b"Mozilla/5.0 (compatible; bingbot/2.0)|curl/8.4.0|shop.example",
                Some(b"curl/8.4.0"),
                Some(b"shop.example"),
            ),
            (
                "x-forwarded-for,host,user-agent",
                b"other.example|shop.example|curl/8.4.0",
                Some(b"curl/8.4.0"),
                Some(b"shop.example"),
            ),
            // values of any shape: an IP address for a host, a user-agent the guess would not take
            (
                "host,user-agent",
                b"203.0.113.9:8080|Some Tool",
                Some(b"Some Tool"),
                Some(b"203.0.113.9:8080"),
            ),
            ("user-agent", b"-", Some(b"-"), None),
            ("host", b"shop.example", None, Some(b"shop.example")),
            // headers the request did not carry
            (
                "host,user-agent",
                b"|Mozilla/5.0",
                Some(b"Mozilla/5.0"),
                None,
            ),
            (
                "host,user-agent",
                b"shop.example|",
                None,
                Some(b"shop.example"),
            ),
            ("host,user-agent", b"|", None, None),
            ("user-agent", b"", None, None),
            // values cut at `capture ... len`
            (
                "user-agent,host",
                b"Mozilla/5.0 (compatible; Googleb|shop.exam",
                Some(b"Mozilla/5.0 (compatible; Googleb"),
                Some(b"shop.exam"),
            ),
            // a `|` the client sent, escaped by HAProxy: no value of its own (decoded later)
            (
                "host,user-agent",
                b"shop.example|curl/8.4.0 #7Cother.example",
                Some(b"curl/8.4.0 #7Cother.example"),
                Some(b"shop.example"),
            ),
            (
                "referer,host,user-agent",
                b"https://ref.example/#7C#7B#7D|shop.example|curl/8.4.0",
                Some(b"curl/8.4.0"),
                Some(b"shop.example"),
            ),
            // another configuration's block: nothing from it
            (
                "host,user-agent",
                b"shop.example|curl/8.4.0|text/html",
                None,
                None,
            ),
            (
                "referer,host,user-agent",
                b"shop.example|curl/8.4.0",
                None,
                None,
            ),
            ("host,user-agent", b"shop.example", None, None),
            ("host,user-agent", b"", None, None),
        ];
        for &(spec, headers, agent, host) in cases {
            let captures: HaproxyCaptures = spec.parse().unwrap();
            assert_eq!(
                declared(headers, &captures),
                (agent, host),
                "{spec}: {}",
                String::from_utf8_lossy(headers)
            );
        }
    }

    /// Whole lines read with a declared order: the first block is the request headers, its
    /// values are decoded after they are told apart.
    #[test]
    fn lines_with_declared_captures() {
        let utc = LocalZone::default();
        let line = |blocks: &str| {
            format!(
                "192.0.2.10:51012 [20/Nov/2026:01:00:00.125] www web/app1 0/0/1/12/13 200 1 - - ---- 3/3/1/1/0 0/0 {blocks}\"GET / HTTP/1.1\""
            )
        };
        type Case = (
            &'static str,
            &'static str,
            &'static [u8],
            Option<&'static [u8]>,
        );
        let cases: &[Case] = &[
            (
                "referer,user-agent,host",
                "{Googlebot/2.1|curl/8.4.0|shop.example} ",
                b"curl/8.4.0",
                Some(b"shop.example"),
            ),
            // a response block after it changes nothing
            (
                "host,user-agent",
                "{shop.example|curl/8.4.0} {nginx/1.25.3} ",
                b"curl/8.4.0",
                Some(b"shop.example"),
            ),
            // escapes decoded within the value they stand in
            (
                "host,user-agent",
                "{shop.example|curl/8.4.0 #7Cother.example#7D} ",
                b"curl/8.4.0 |other.example}",
                Some(b"shop.example"),
            ),
            (
                "user-agent,host",
                "{curl/8.4.0|shop#2Eexample} ",
                b"curl/8.4.0",
                Some(b"shop.example"),
            ),
            // no block, or another configuration's: neither
            ("host,user-agent", "", b"", None),
            ("host,user-agent", "{shop.example} {curl/8.4.0} ", b"", None),
        ];
        for &(spec, blocks, agent, host) in cases {
            let captures: HaproxyCaptures = spec.parse().unwrap();
            let line = line(blocks);
            let read = read(line.as_bytes(), &utc, Some(&captures)).unwrap();
            assert_eq!(
                (read.2.as_slice(), read.5.as_slice(), read.7.as_deref()),
                (&b"/"[..], agent, host),
                "{spec}: {line}"
            );
        }
    }
}
