//! Amazon CloudFront standard logs: tab-separated, laid out by `#Fields:` (the documented
//! order when a block has none), URL-encoded user-agents, the viewer's Host header in
//! `x-host-header` and the scheme in `cs-protocol`.

use std::sync::LazyLock;

use crate::formats::header::{Column, Layout, Values};
use crate::formats::lex;
use crate::record::{OriginParts, Request, Text, TextEncoding};
use crate::scratch::BlockState;
use crate::skip::SkipReason;
use crate::time;

/// The documented field order of CloudFront standard logs, used when no `#Fields:` line has
/// been seen (an input cut from the middle of a log).
const STANDARD_FIELDS: &[u8] = b"date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end";

static STANDARD: LazyLock<Layout> = LazyLock::new(|| Layout::parse(STANDARD_FIELDS));

/// Parses one line; directives update `state` and give `Ok(None)`.
pub(crate) fn parse<'a>(
    line: &'a [u8],
    state: &mut BlockState,
) -> Result<Option<Request<'a>>, SkipReason> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.starts_with(b"#") {
        if line.starts_with(b"#Fields:") {
            state.layout = Some(Layout::parse(line));
        }
        return Ok(None);
    }
    let layout = state.layout.as_ref().unwrap_or(&STANDARD);
    let mut values = Values::default();
    for (&column, value) in layout.columns().iter().zip(line.split(|&b| b == b'\t')) {
        values.set(column, value);
    }
    // The shape: the date field holds a date (another format's line has no tabs, so its
    // whole line lands in the first field).
    if values
        .get(Column::Date)
        .is_some_and(|date| !lex::is_date_shaped(date))
    {
        return Err(SkipReason::WrongFormat);
    }
    let (date, clock) = match (values.get(Column::Date), values.get(Column::Time)) {
        (Some(date), Some(clock)) => (date, clock),
        _ => return Err(SkipReason::MissingField),
    };
    let time = time::w3c(date, clock).ok_or(SkipReason::BadTime)?;
    let target = values
        .get(Column::UriStem)
        .ok_or(SkipReason::MissingField)?;
    let user_agent = values
        .get(Column::UserAgent)
        .map_or_else(Text::default, |raw| Text {
            raw,
            encoding: TextEncoding::Percent,
        });
    Ok(Some(Request {
        time,
        client_ip: values.get(Column::ClientIp).unwrap_or_default(),
        method: values.get(Column::Method).unwrap_or_default(),
        target,
        query: values.get(Column::UriQuery),
        status: values.get(Column::Status).map_or(Ok(0), lex::status)?,
        fetch_status: None,
        bytes: values.get(Column::Bytes).map_or(Ok(0), lex::bytes)?,
        user_agent,
        origin: OriginParts {
            scheme: values.get(Column::Scheme),
            host: values.get(Column::HostHeader).or(values.get(Column::Host)),
            port: None,
        },
        zone_assumed: false,
    }))
}

/// Whether `line` looks like a CloudFront data line without its header: at least twenty
/// tab-separated fields starting with a date, a time and an edge location.
pub(crate) fn looks_like(line: &[u8]) -> bool {
    let mut fields = line.split(|&b| b == b'\t');
    let (Some(date), Some(clock), Some(edge)) = (fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    let edge_like = !edge.is_empty()
        && edge.len() <= 16
        && edge.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-');
    time::w3c(date, clock).is_some() && edge_like && fields.count() >= 17
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[u8] = b"#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields";
    const LINE: &[u8] = b"2014-05-23\t01:13:11\tFRA2\t182\t192.0.2.10\tGET\td111111abcdef8.cloudfront.net\t/view/my/file.html\t200\thttps://example.com/\tMozilla/5.0%2520(Windows;%2520U)\tq=1\t-\tMiss\tID==\texample.com\thttps\t217\t0.001\t-\tTLSv1.2\tECDHE\tMiss\tHTTP/1.1\t-\t-";

    #[test]
    fn reads_a_line_under_its_header() {
        let mut state = BlockState::default();
        assert_eq!(parse(b"#Version: 1.0", &mut state), Ok(None));
        assert_eq!(parse(FIELDS, &mut state), Ok(None));
        let request = parse(LINE, &mut state).unwrap().unwrap();
        assert_eq!(request.time.to_string(), "2014-05-23T01:13:11Z");
        assert_eq!(request.client_ip, b"192.0.2.10");
        assert_eq!(request.target, b"/view/my/file.html");
        assert_eq!(request.query, Some(&b"q=1"[..]));
        assert_eq!(request.bytes, 182);
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: Some(b"https"),
                host: Some(b"example.com"),
                port: None
            }
        );
        assert_eq!(&*request.user_agent.decode(), b"Mozilla/5.0 (Windows; U)");
        assert!(looks_like(LINE));
    }

    #[test]
    fn falls_back_to_the_documented_layout_and_the_distribution_host() {
        let line = b"2014-05-23\t01:13:11\tFRA2\t182\t192.0.2.10\tGET\td1.cloudfront.net\t/a\t304\t-\t-\t-\t-\tHit\tID\t-\thttp\t1\t0.1";
        let request = parse(line, &mut BlockState::default()).unwrap().unwrap();
        assert_eq!(request.status, 304);
        assert_eq!(request.origin.host, Some(&b"d1.cloudfront.net"[..]));
        assert_eq!(request.query, None);
        assert_eq!(request.user_agent, Text::default());
    }

    #[test]
    fn damaged_lines() {
        assert_eq!(
            parse(b"2014-05-23", &mut BlockState::default()),
            Err(SkipReason::MissingField)
        );
        assert_eq!(
            parse(
                b"2014-05-23\t99:13:11\tFRA2\t1\t1.1.1.1\tGET\th\t/",
                &mut BlockState::default()
            ),
            Err(SkipReason::BadTime)
        );
        assert_eq!(
            parse(
                b"2014-05-23\t01:13:11\tFRA2\t1\t1.1.1.1\tGET\th\t/\tabc",
                &mut BlockState::default()
            ),
            Err(SkipReason::BadStatus)
        );
        assert!(!looks_like(b"2014-05-23 01:13:11 FRA2"));
    }
}
