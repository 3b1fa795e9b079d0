//! AWS Application Load Balancer access logs, and the older Classic Load Balancer layout they
//! grew from.
//!
//! ALB: `type time elb client:port target:port request_processing_time target_processing_time
//! response_processing_time elb_status_code target_status_code received_bytes sent_bytes
//! "request" "user_agent" ...`; the classic layout lacks the leading `type`. The request holds
//! the absolute URL, so scheme, host and port come from it. Fields after the user-agent vary
//! between versions and are ignored, as AWS advises.

use crate::formats::lex;
use crate::record::{Request, Text};
use crate::skip::SkipReason;
use crate::time;

/// The connection types an ALB log line starts with.
const TYPES: &[&[u8]] = &[b"http", b"https", b"h2", b"grpcs", b"ws", b"wss"];

/// Fields up to and including the user-agent in the classic layout.
const FIELDS: usize = 13;

/// Splits the line into its first fields, quoted ones unquoted.
fn fields(line: &[u8]) -> Result<([&[u8]; FIELDS + 1], usize), SkipReason> {
    let mut fields: [&[u8]; FIELDS + 1] = [&[]; FIELDS + 1];
    let mut count = 0;
    let mut rest = line;
    for slot in &mut fields {
        if rest.is_empty() {
            break;
        }
        let (value, after) = if rest.starts_with(b"\"") {
            let (value, _, after) = lex::quoted(rest)?;
            (value, after.strip_prefix(b" ").unwrap_or(after))
        } else {
            lex::token(rest)
        };
        *slot = value;
        count += 1;
        rest = after;
    }
    Ok((fields, count))
}

/// Parses one line (without its line end).
///
/// Never `Ok(None)` (the [module](crate::formats) says why it is an `Option`).
pub(crate) fn parse(line: &[u8]) -> Result<Option<Request<'_>>, SkipReason> {
    let line = line.trim_ascii_end();
    // The shape: the time (after the type, when there is one) before anything else.
    let mut tokens = line.split(|&b| b == b' ');
    let mut time_token = tokens.next().unwrap_or_default();
    if TYPES.contains(&time_token) {
        time_token = tokens.next().unwrap_or_default();
    }
    if !lex::is_timestamp_shaped(time_token) {
        return Err(SkipReason::WrongFormat);
    }
    let (all, count) = fields(line)?;
    let first = all.first().copied().unwrap_or_default();
    // The classic layout starts with the time; ALB puts the connection type first.
    let skip = usize::from(TYPES.contains(&first));
    let available = count.saturating_sub(skip);
    let field = |index: usize| all.get(skip + index).copied().unwrap_or_default();
    // The shape before the field count: a line of another shape that starts with a time (a
    // container runtime's record) is no damaged ALB line.
    let client = field(2);
    let client_ip = lex::strip_port(client);
    if client_ip.len() == client.len() || !lex::is_client(client_ip) {
        return Err(SkipReason::WrongFormat);
    }
    if available < FIELDS - 1 {
        return Err(SkipReason::MissingField);
    }
    let time = time::rfc3339(field(0)).ok_or(SkipReason::BadTime)?;
    let request = field(11);
    // TCP and SSL listeners of a classic load balancer log `- - - ` for the request.
    if request.starts_with(b"- - -") {
        return Err(SkipReason::NotHttp);
    }
    let (method, target) = lex::request_line(request)?;
    let user_agent = if available >= FIELDS {
        lex::present(field(12)).map_or_else(Text::default, Text::raw)
    } else {
        Text::default()
    };
    Ok(Some(Request {
        time,
        client_ip,
        method,
        target,
        query: None,
        status: lex::status(field(7))?,
        fetch_status: None,
        bytes: lex::bytes(field(10))?,
        user_agent,
        origin: lex::url_origin(target).unwrap_or_default(),
        zone_assumed: false,
    }))
}

/// Whether `line` is an ALB or classic ELB line: a connection type (ALB only), an RFC 3339
/// time, the load balancer's name and a client `ip:port`.
pub(crate) fn looks_like(line: &[u8]) -> bool {
    let mut tokens = line.split(|&b| b == b' ');
    let mut first = tokens.next().unwrap_or_default();
    if TYPES.contains(&first) {
        first = tokens.next().unwrap_or_default();
    }
    let (Some(_balancer), Some(client)) = (tokens.next(), tokens.next()) else {
        return false;
    };
    first.len() >= 20
        && time::rfc3339(first).is_some()
        && lex::strip_port(client) != client
        && parse(line).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::request_of;
    use crate::record::OriginParts;

    fn parse_request(line: &[u8]) -> Result<Request<'_>, SkipReason> {
        request_of(parse(line))
    }

    const ALB: &[u8] = br#"https 2020-01-01T00:55:04.127531Z app/my-alb/abcdef 1.2.3.4:2817 10.0.0.1:80 0.001 0.102 0.000 200 200 225 24950 "GET https://www.example.com:443/path/index.html?x=1 HTTP/1.1" "Mozilla/5.0 (X11)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/g/1 "Root=1-a" "www.example.com" "arn:aws:acm:x" 0 2020-01-01T00:55:04.023000Z "forward" "-" "-" "10.1.1.1:80" "200" "-" "-" "TID_1""#;

    #[test]
    fn reads_an_alb_line() {
        let request = parse_request(ALB).unwrap();
        assert_eq!(request.time.to_string(), "2020-01-01T00:55:04.127531Z");
        assert_eq!(request.client_ip, b"1.2.3.4");
        assert_eq!(request.method, b"GET");
        assert_eq!(
            request.target,
            b"https://www.example.com:443/path/index.html?x=1"
        );
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 24950);
        assert_eq!(request.user_agent, Text::raw(b"Mozilla/5.0 (X11)"));
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: Some(b"https"),
                host: Some(b"www.example.com"),
                port: Some(443)
            }
        );
        assert!(looks_like(ALB));
    }

    #[test]
    fn reads_the_classic_layout() {
        let line = br#"2015-05-13T23:39:43.945958Z my-loadbalancer 1.2.3.4:2817 10.0.0.1:80 0.000086 0.001048 0.001337 503 - 0 57 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -"#;
        let request = parse_request(line).unwrap();
        assert_eq!(request.status, 503);
        assert_eq!(request.bytes, 57);
        assert_eq!(request.origin.port, Some(80));
        assert!(looks_like(line));
        let without_agent = br#"2015-05-13T23:39:43.945958Z lb 1.2.3.4:2817 10.0.0.1:80 0.1 0.1 0.1 200 200 0 57 "GET http://h/ HTTP/1.1""#;
        assert_eq!(
            parse_request(without_agent).unwrap().user_agent,
            Text::default()
        );
    }

    #[test]
    fn damaged_lines() {
        let tcp = br#"2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -"#;
        assert_eq!(parse_request(tcp).map(|_| ()), Err(SkipReason::NotHttp));
        let junk =
            br#"https 2020-01-01T00:55:04Z app/x 1.2.3.4:1 - 0 0 0 400 - 0 0 "\x16\x03 - -" "-""#;
        assert_eq!(
            parse_request(junk).map(|_| ()),
            Err(SkipReason::BadRequestLine)
        );
        assert_eq!(
            parse_request(b"https 2020-01-01T00:55:04Z app/x 1.2.3.4:1").map(|_| ()),
            Err(SkipReason::MissingField)
        );
        let bad_time =
            br#"https yesterday app/x 1.2.3.4:1 - 0 0 0 200 200 0 0 "GET http://h/ HTTP/1.1" "UA""#;
        assert_eq!(
            parse_request(bad_time).map(|_| ()),
            Err(SkipReason::WrongFormat)
        );
        let bad_date =
            br#"https 2020-13-01T00:55:04Z app/x 1.2.3.4:1 - 0 0 0 200 200 0 0 "GET http://h/ HTTP/1.1" "UA""#;
        assert_eq!(
            parse_request(bad_date).map(|_| ()),
            Err(SkipReason::BadTime)
        );
        let no_port =
            br#"https 2020-01-01T00:55:04Z app/x 1.2.3.4 - 0 0 0 200 200 0 0 "GET http://h/ HTTP/1.1" "UA""#;
        assert_eq!(
            parse_request(no_port).map(|_| ()),
            Err(SkipReason::WrongFormat)
        );
        let combined =
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#;
        assert_eq!(
            parse_request(combined).map(|_| ()),
            Err(SkipReason::WrongFormat)
        );
        assert!(!looks_like(
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#
        ));
    }
}
