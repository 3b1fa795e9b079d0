//! Envoy's default access log format (and Istio's, which extends it):
//!
//! `[START_TIME] "METHOD PATH PROTOCOL" RESPONSE_CODE RESPONSE_FLAGS BYTES_RECEIVED BYTES_SENT
//! DURATION UPSTREAM_SERVICE_TIME "X-FORWARDED-FOR" "USER-AGENT" "X-REQUEST-ID" ":AUTHORITY"
//! "UPSTREAM_HOST"`
//!
//! The start time is RFC 3339 UTC. The line has no client address: the client field is the
//! X-Forwarded-For list as logged, or none; which of its addresses is the client is the
//! verifier's to say (`crates/bots/src/verify/client.rs`), as for any client field. The host is the `:authority` (HTTP/1's Host); no scheme
//! is logged. Istio's default adds unquoted and quoted fields around the byte counts and after
//! the upstream host; the five quoted fields from X-Forwarded-For to the upstream host start at
//! the first quoted field that follows four unquoted ones after the status (the byte counts, the
//! duration and the upstream time), so both layouts read alike.
//!
//! Envoy escapes nothing in a header value (envoyproxy/envoy#4191): a client that sends
//! `X-Forwarded-For: 66.249.66.1" "Googlebot/2.1` writes quoted fields of its own, and Envoy's
//! own address, which it appends to that header, lands in a later field. Before the
//! X-Forwarded-For field everything is Envoy's, and a line whose header values hold no quote
//! has exactly ten quotes from there to its end; a line with more is read, but its client
//! field cannot be told from what the client wrote, and it is given none, while its authority
//! and the end of its user-agent are counted from the line's end, where the fields are Envoy's.

use crate::formats::lex;
use crate::record::{OriginParts, Request, Text};
use crate::skip::SkipReason;
use crate::time;

/// Fields read after the request line: enough for Istio's layout up to the upstream host.
const MAX_FIELDS: usize = 16;

/// The start time that opens every line, and what follows it: `None` unless the line has that
/// shape.
fn opening(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = line.strip_prefix(b"[")?;
    let close = memchr::memchr(b']', rest)?;
    let (start, rest) = rest.split_at(close);
    if !lex::is_timestamp_shaped(start) {
        return None;
    }
    Some((start, rest.strip_prefix(b"] \"")?))
}

/// Whether `line` has the shape of an Envoy access log line.
pub(crate) fn looks_like(line: &[u8]) -> bool {
    opening(line).is_some()
}

/// One field after the request line, and whether it was quoted.
#[derive(Debug, Clone, Copy)]
struct Field<'a> {
    value: &'a [u8],
    quoted: bool,
    /// The line from the field's first byte (its opening quote) to its end.
    from: &'a [u8],
}

/// The quotes of the five fields from X-Forwarded-For to the upstream host, when no header
/// value holds one.
const RUN_QUOTES: usize = 10;

/// A quoted field at the start of `input`: its content and what follows the closing quote, the
/// first quote followed by a space or the line's end. A backslash escapes nothing: Envoy writes
/// a header value ending in one (`x\`) as it came, before its closing quote.
fn quoted(input: &[u8]) -> Result<(&[u8], &[u8]), SkipReason> {
    let body = input.strip_prefix(b"\"").ok_or(SkipReason::BadQuoting)?;
    let close = memchr::memchr_iter(b'"', body)
        .find(|&at| matches!(body.get(at + 1), None | Some(b' ')))
        .ok_or(SkipReason::BadQuoting)?;
    let (value, after) = body.split_at(close);
    Ok((value, after.get(1..).unwrap_or_default()))
}

/// The user-agent and the `:authority` of a run whose header values hold quotes, `run` being
/// the line from the X-Forwarded-For field's opening quote and `agent_at` the offset in it of
/// the user-agent field's.
///
/// Counted from the start, the fields after a quote a client wrote are its own: a user-agent
/// `GPTBot/1.0" "x" "other.example` would name the host. Counted from the end they are Envoy's:
/// the upstream host, then the authority (which Envoy refuses with a quote in it), then the
/// request id. So the authority is the second quoted field from the end, and the user-agent
/// everything from its opening quote to the request id's, the client's quotes included, so
/// that no product the client wrote is lost. `None` when the line has no such fields.
fn read_from_the_end(run: &[u8], agent_at: usize) -> Option<(&[u8], &[u8])> {
    let upstream = last_quoted(run, run.len())?;
    let authority = last_quoted(run, upstream.start)?;
    let request_id = last_quoted(run, authority.start)?;
    // The user-agent field opens at `agent_at` and closes with the quote and space before the
    // request id's opening quote.
    let agent = run.get(agent_at + 1..request_id.start.checked_sub(2)?)?;
    Some((agent, run.get(authority.start + 1..authority.end)?))
}

/// The last quoted field of `line[..end]` that ends with a quote followed by a space (or the
/// line's end) and opens with a quote at the start or after a space: from its opening quote up
/// to its closing one.
fn last_quoted(line: &[u8], end: usize) -> Option<std::ops::Range<usize>> {
    let head = line.get(..end)?;
    let close = memchr::memrchr_iter(b'"', head)
        .find(|&at| matches!(line.get(at + 1), None | Some(b' ')))?;
    let open = memchr::memrchr_iter(b'"', head.get(..close)?)
        .find(|&at| at == 0 || line.get(at - 1) == Some(&b' '))?;
    Some(open..close)
}

/// Parses one line (without its line end).
///
/// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
pub(crate) fn parse(line: &[u8]) -> Result<Option<Request<'_>>, SkipReason> {
    let line = line.trim_ascii_end();
    let (start, _) = opening(line).ok_or(SkipReason::WrongFormat)?;
    let time = time::rfc3339(start).ok_or(SkipReason::BadTime)?;
    let quoted_request = line
        .get(start.len() + 3..)
        .ok_or(SkipReason::MissingField)?;
    let (request, mut rest) = quoted(quoted_request)?;
    // A TCP proxy's entry has no request.
    if request == b"- - -" {
        return Err(SkipReason::NotHttp);
    }
    let (method, target) = lex::request_line(request)?;
    let mut fields = [Field {
        value: &[],
        quoted: false,
        from: &[],
    }; MAX_FIELDS];
    let mut count = 0;
    for slot in &mut fields {
        rest = rest.trim_ascii_start();
        if rest.is_empty() {
            break;
        }
        *slot = if rest.starts_with(b"\"") {
            let (value, after) = quoted(rest)?;
            let from = rest;
            rest = after;
            Field {
                value,
                quoted: true,
                from,
            }
        } else {
            let (value, after) = lex::token(rest);
            rest = after;
            Field {
                value,
                quoted: false,
                from: &[],
            }
        };
        count += 1;
    }
    let fields = fields.get(..count).unwrap_or_default();
    let status = lex::status(fields.first().ok_or(SkipReason::MissingField)?.value)?;
    // The run starts where Envoy's own fields end, never where a client's quote made it; its
    // five fields must be there, all quoted.
    let run = (5..fields.len())
        .find(|&at| {
            fields.get(at).is_some_and(|field| field.quoted)
                && fields
                    .get(at - 4..at)
                    .is_some_and(|before| before.iter().all(|field| !field.quoted))
        })
        .ok_or(SkipReason::MissingField)?;
    let run_fields = fields.get(run..run + 5).ok_or(SkipReason::MissingField)?;
    if !run_fields.iter().all(|field| field.quoted) {
        return Err(SkipReason::BadQuoting);
    }
    // Before the run: the byte counts, the duration and the upstream time, unquoted.
    let bytes_sent = run
        .checked_sub(3)
        .and_then(|at| fields.get(at))
        .ok_or(SkipReason::MissingField)?;
    let bytes = lex::bytes(bytes_sent.value)?;
    let value_at = |offset: usize| run_fields.get(offset).map_or(&[][..], |f| f.value);
    let forwarded_for = value_at(0).trim_ascii();
    let from = run_fields.first().map_or(&[][..], |field| field.from);
    let quotes = memchr::memchr_iter(b'"', from).count();
    let (client_ip, user_agent, host) = if quotes == RUN_QUOTES {
        (
            lex::present(forwarded_for).unwrap_or_default(),
            value_at(1),
            value_at(3),
        )
    } else {
        let agent_from = run_fields.get(1).map_or(&[][..], |field| field.from);
        let (user_agent, host) = read_from_the_end(from, from.len() - agent_from.len())
            .unwrap_or((value_at(1), value_at(3)));
        (&[][..], user_agent, host)
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
        user_agent: lex::present(user_agent).map_or_else(Text::default, Text::raw),
        origin: OriginParts {
            scheme: None,
            host: lex::present(host),
            port: None,
        },
        zone_assumed: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;

    /// A line read: time, client, method, target, status, bytes, user-agent, host.
    type Read = (
        String,
        Vec<u8>,
        Vec<u8>,
        Vec<u8>,
        u16,
        u64,
        Vec<u8>,
        Option<Vec<u8>>,
    );
    type Want = (
        &'static str,
        &'static [u8],
        &'static [u8],
        &'static [u8],
        u16,
        u64,
        &'static [u8],
        Option<&'static [u8]>,
    );

    fn read(line: &[u8]) -> Result<Read, SkipReason> {
        let r = request_of(parse(line))?;
        Ok((
            r.time.to_string(),
            r.client_ip.to_vec(),
            r.method.to_vec(),
            r.target.to_vec(),
            r.status,
            r.bytes,
            r.user_agent.raw.to_vec(),
            r.origin.host.map(<[u8]>::to_vec),
        ))
    }

    #[test]
    fn lines() {
        let cases: &[(&[u8], Result<Want, SkipReason>)] = &[
            // the default format
            (br#"[2026-11-20T01:00:00.125Z] "GET /private/x?y=1 HTTP/1.1" 200 - 0 5120 12 10 "198.51.100.7, 10.0.0.2" "ExampleBot/1.0 (+https://bot.example/)" "4bf92f35-77b3-4da6-a3ce-929d0e0e4736" "shop.example" "10.1.2.3:8080""#,
             Ok(("2026-11-20T01:00:00.125Z", b"198.51.100.7, 10.0.0.2", b"GET", b"/private/x?y=1", 200, 5120, b"ExampleBot/1.0 (+https://bot.example/)", Some(b"shop.example")))),
            // no X-Forwarded-For, no user-agent, no upstream answer
            (br#"[2026-11-20T01:00:00.125Z] "HEAD / HTTP/2" 503 UF 0 91 3 - "-" "-" "id" "shop.example:8443" "-""#,
             Ok(("2026-11-20T01:00:00.125Z", b"", b"HEAD", b"/", 503, 91, b"", Some(b"shop.example:8443")))),
            // Istio's default, which adds fields around the byte counts and after the upstream host
            (br#"[2026-11-20T01:00:00.125Z] "GET /a HTTP/1.1" 404 NR route_not_found - "-" 0 9 0 - "203.0.113.9" "curl/8.4.0" "id" "api.example" "-" - - 10.0.0.5:80 10.0.0.9:51234 - -"#,
             Ok(("2026-11-20T01:00:00.125Z", b"203.0.113.9", b"GET", b"/a", 404, 9, b"curl/8.4.0", Some(b"api.example")))),
            // a TCP proxy's entry, damage, and another format's line
            (br#"[2026-11-20T01:00:00.125Z] "- - -" 0 - 212 1024 5007 - "-" "-" "-" "-" "10.1.2.3:5432""#, Err(SkipReason::NotHttp)),
            (br#"[2026-11-20T01:00:00.125Z] "GET / HTTP/1.1" OK - 0 1 1 - "-" "-" "-" "-" "-""#, Err(SkipReason::BadStatus)),
            (br#"[2026-11-20T01:00:00.125Z] "GET / HTTP/1.1" 200 - 0 1 1 -"#, Err(SkipReason::MissingField)),
            (br#"[2026-11-31T01:00:00.125Z] "GET / HTTP/1.1" 200 - 0 1 1 - "-" "-" "-" "-" "-""#, Err(SkipReason::BadTime)),
            (br#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "UA""#, Err(SkipReason::WrongFormat)),
        ];
        for (line, want) in cases {
            let want = want.map(
                |(time, client, method, target, status, bytes, agent, host)| {
                    (
                        time.to_owned(),
                        client.to_vec(),
                        method.to_vec(),
                        target.to_vec(),
                        status,
                        bytes,
                        agent.to_vec(),
                        host.map(<[u8]>::to_vec),
                    )
                },
            );
            assert_eq!(read(line), want, "{}", String::from_utf8_lossy(line));
        }
    }

    /// A crawler's quotes in its own user-agent neither choose the host nor hide its product:
    /// the authority and the end of the user-agent are counted from the line's end, where the
    /// fields are Envoy's (and Istio's unquoted ones follow).
    #[test]
    fn quotes_in_the_user_agent_never_choose_the_host() {
        let cases: &[(&[u8], &[u8], &[u8])] = &[
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "198.51.100.7" "GPTBot/1.2" "x" "zzz.example" "id" "shop.example" "10.1.2.3:8080""#,
             br#"GPTBot/1.2" "x" "zzz.example"#, b"shop.example"),
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "198.51.100.7" "GPTBot/1.2" "x" "id" "shop.example" "10.1.2.3:8080""#,
             br#"GPTBot/1.2" "x"#, b"shop.example"),
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "198.51.100.7" "Mozilla/5.0 (X11)" "x" "shop.example" "u" "GPTBot/1.2" "id" "shop.example" "10.1.2.3:8080""#,
             br#"Mozilla/5.0 (X11)" "x" "shop.example" "u" "GPTBot/1.2"#, b"shop.example"),
            (br#"[2026-11-20T01:00:00.125Z] "GET /a HTTP/1.1" 404 NR route_not_found - "-" 0 9 0 - "203.0.113.9" "GPTBot/1.2" "zzz.example" "id" "api.example" "-" - - 10.0.0.5:80 10.0.0.9:51234 - -"#,
             br#"GPTBot/1.2" "zzz.example"#, b"api.example"),
        ];
        for (line, agent, host) in cases {
            let (_, client, .., got_agent, got_host) = read(line).unwrap();
            let shown = String::from_utf8_lossy(line);
            assert_eq!(client, b"", "{shown}");
            assert_eq!(got_agent, *agent, "{shown}");
            assert_eq!(got_host.as_deref(), Some(*host), "{shown}");
        }
    }

    /// Envoy writes header values unescaped, so a stranger at 203.0.113.5 who sends
    /// `X-Forwarded-For: 66.249.66.1" "Googlebot/2.1` writes quoted fields of its own, and the
    /// address Envoy appends (`,203.0.113.5`) lands in a later one. Such a line keeps its
    /// request but has no client, so that it is never checked as Google's address.
    #[test]
    fn quotes_in_header_values_never_choose_the_client() {
        /// A line, and its client and user-agent as read.
        type Case = (
            &'static [u8],
            Result<(&'static [u8], &'static [u8]), SkipReason>,
        );
        let client = |line: &[u8]| read(line).map(|r| (r.1, r.6));
        let cases: &[Case] = &[
            // As Envoy logs it when no header holds a quote.
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "66.249.66.1,203.0.113.5" "Googlebot/2.1" "id" "shop.example" "10.1.2.3:8080""#,
             Ok((b"66.249.66.1,203.0.113.5", b"Googlebot/2.1"))),
            // One split of X-Forwarded-For, two more fields after the upstream host: the
            // user-agent runs up to the request id, so the real one (`curl/8`) is in it.
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "66.249.66.1" "Googlebot/2.1" "r" "shop.example" "u,203.0.113.5" "curl/8" "id" "shop.example" "10.1.2.3:8080""#,
             Ok((b"", br#"Googlebot/2.1" "r" "shop.example" "u,203.0.113.5" "curl/8"#))),
            // A split of X-Forwarded-For and a user-agent ending in a backslash, which used to
            // join the user-agent and the request id into one field, leaving five.
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "66.249.66.1" "Googlebot/2.1 ,203.0.113.5" "x\" "id" "shop.example" "10.1.2.3:8080""#,
             Ok((b"", br#"Googlebot/2.1 ,203.0.113.5" "x\"#))),
            // A whole run of five made up inside the Host header, after an unquoted word.
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "203.0.113.5" "curl/8" "id" "h" 1 2 3 4 "66.249.66.1" "Googlebot/2.1" "r" "h2" "10.1.2.3:8080""#,
             Err(SkipReason::BadQuoting)),
            // A backslash escapes nothing: the user-agent ends in one.
            (br#"[2026-11-20T01:00:00.125Z] "GET /p HTTP/1.1" 200 - 0 1 1 1 "66.249.66.1" "x\" "id" "shop.example" "10.1.2.3:8080""#,
             Ok((b"66.249.66.1", br"x\"))),
        ];
        for (line, want) in cases {
            let want = want.map(|(client, agent)| (client.to_vec(), agent.to_vec()));
            assert_eq!(client(line), want, "{}", String::from_utf8_lossy(line));
        }
    }
}
