//! Crawler fetch logs: Heritrix `crawl.log` lines, and JSON lines with an absolute `url` (read by
//! the JSON parser with the crawl preset).
//!
//! `timestamp fetch-status size URI discovery-path referrer mime-type thread
//! fetch-begin+duration digest source annotations`, whitespace-aligned. A negative status is
//! Heritrix's own outcome (`-9998`: robots.txt precluded the fetch), kept in `fetch_status`.
//! The line names no user-agent: the audit takes the crawler's identity from its
//! configuration.

use crate::formats::lex;
use crate::record::{Request, Text};
use crate::skip::SkipReason;
use crate::time;

/// Heritrix pads its columns with runs of spaces.
fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t')
        .filter(|field| !field.is_empty())
}

/// Parses one `crawl.log` line.
///
/// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
pub(crate) fn parse(line: &[u8]) -> Result<Option<Request<'_>>, SkipReason> {
    let mut fields = fields(line);
    let (Some(timestamp), Some(status), Some(size), Some(uri)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(SkipReason::MissingField);
    };
    if !lex::is_timestamp_shaped(timestamp) {
        return Err(SkipReason::WrongFormat);
    }
    let time = time::rfc3339(timestamp).ok_or(SkipReason::BadTime)?;
    let code = match status.strip_prefix(b"-") {
        Some(digits) => lex::number(digits)
            .and_then(|n| i32::try_from(n).ok())
            .map(|n| -n),
        None => lex::number(status).and_then(|n| i32::try_from(n).ok()),
    }
    .ok_or(SkipReason::BadStatus)?;
    let target = lex::fetched_url(uri)?;
    if lex::url_origin(target).is_none() {
        return Err(SkipReason::BadUrl);
    }
    let (status, fetch_status) = match u16::try_from(code) {
        Ok(status) if (1..=999).contains(&status) => (status, None),
        _ => (0, Some(code)),
    };
    Ok(Some(Request {
        time,
        client_ip: b"",
        method: b"",
        target,
        query: None,
        status,
        fetch_status,
        bytes: lex::bytes(size)?,
        user_agent: Text::default(),
        origin: lex::url_origin(target).unwrap_or_default(),
        zone_assumed: false,
    }))
}

/// Whether `line` has the shape of a Heritrix `crawl.log` line.
pub(crate) fn looks_like(line: &[u8]) -> bool {
    let starts_with_time = fields(line)
        .next()
        .is_some_and(|first| first.len() >= 20 && first.get(10) == Some(&b'T'));
    starts_with_time && fields(line).count() >= 6 && parse(line).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;
    use crate::record::OriginParts;

    #[test]
    fn heritrix_lines() {
        type Case = (
            &'static [u8],
            Result<(u16, Option<i32>, u64, &'static [u8]), SkipReason>,
        );
        let cases: &[Case] = &[
            (b"2011-06-23T17:12:08.802Z   200       1299 http://content.example.com/robots.txt LREP http://www.example.com/a text/plain #014 20110623171208574+225 sha1:YIUOJ5 - -", Ok((200, None, 1299, b"http://content.example.com/robots.txt"))),
            (b"2011-06-23T17:12:09.100Z -9998          - http://www.example.com/private/ LL http://www.example.com/ unknown #021 - - - -", Ok((0, Some(-9998), 0, b"http://www.example.com/private/"))),
            (b"2011-06-23T17:12:09.100Z   -61          - https://www.example.com/x LLP http://www.example.com/ unknown #021 - - - -", Ok((0, Some(-61), 0, b"https://www.example.com/x"))),
            (b"2011-06-23T17:12:07.100Z     1         62 dns:www.example.com P http://www.example.com/ text/dns #010 20110623171207+5 sha1:X - -", Err(SkipReason::NotHttp)),
            (b"2011-06-23T17:12:07.100Z   200", Err(SkipReason::MissingField)),
            (b"yesterday 200 1 http://www.example.com/ L - text/html #1 - - - -", Err(SkipReason::WrongFormat)),
            (b"2011-06-23T25:12:07.100Z 200 1 http://www.example.com/ L - text/html #1 - - - -", Err(SkipReason::BadTime)),
            (br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#, Err(SkipReason::WrongFormat)),
            (b"2011-06-23T17:12:07.100Z OK 1 http://www.example.com/ L - text/html #1 - - - -", Err(SkipReason::BadStatus)),
            (b"2011-06-23T17:12:07.100Z 200 1 www.example.com/ L - text/html #1 - - - -", Err(SkipReason::BadUrl)),
        ];
        for (line, want) in cases {
            let got =
                request_of(parse(line)).map(|r| (r.status, r.fetch_status, r.bytes, r.target));
            assert_eq!(&got, want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn the_origin_and_time_come_from_the_line() {
        let line = b"2011-06-23T17:12:08.802Z 200 1299 https://www.example.com:8443/a?b L - text/html #014 - - - -";
        let request = request_of(parse(line)).unwrap();
        assert_eq!(request.time.to_string(), "2011-06-23T17:12:08.802Z");
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: Some(b"https"),
                host: Some(b"www.example.com"),
                port: Some(8443)
            }
        );
        assert_eq!(request.user_agent, Text::default());
        assert!(looks_like(line));
        assert!(!looks_like(b"2015-05-13T23:39:43.945958Z my-loadbalancer 1.2.3.4:2817 10.0.0.1:80 0.1 0.1 0.1 200 200 0 57"));
    }
}
