//! W3C extended logs as IIS (and NetScaler) write them: space-separated, laid out by the last
//! `#Fields:` directive, `-` for an empty field, `+` for a space in the user-agent, UTC times.

use crate::formats::header::{Column, Layout, Values};
use crate::formats::lex;
use crate::record::{OriginParts, Request, Text, TextEncoding};
use crate::scratch::BlockState;
use crate::skip::SkipReason;
use crate::time;

/// Reads the fields of a data line into the columns `layout` names. A field may be quoted when
/// it holds spaces (IIS writes cookies that way).
fn fields<'a>(line: &'a [u8], layout: &Layout) -> Result<Values<'a>, SkipReason> {
    let mut values = Values::default();
    let mut rest = line;
    for &column in layout.columns() {
        if rest.is_empty() {
            break;
        }
        let (value, quoted, after) = if rest.starts_with(b"\"") {
            let (value, _, after) = lex::quoted(rest)?;
            (value, true, after.strip_prefix(b" ").unwrap_or(after))
        } else {
            let (value, after) = lex::token(rest);
            (value, false, after)
        };
        values.set(column, value);
        if column == Column::UserAgent {
            values.agent_quoted = quoted;
        }
        rest = after;
    }
    Ok(values)
}

/// Parses one line; directives update `state` and give `Ok(None)`.
pub(crate) fn parse<'a>(
    line: &'a [u8],
    state: &mut BlockState,
) -> Result<Option<Request<'a>>, SkipReason> {
    let line = line.trim_ascii_end();
    if line.starts_with(b"#") {
        if line.starts_with(b"#Fields:") {
            state.layout = Some(Layout::parse(line));
        }
        return Ok(None);
    }
    let layout = state.layout.as_ref().ok_or(SkipReason::NoFieldsHeader)?;
    let values = fields(line, layout)?;
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
        .or(values.get(Column::Uri))
        .ok_or(SkipReason::MissingField)?;
    let user_agent = match values.get(Column::UserAgent) {
        Some(raw) => Text {
            raw,
            encoding: if values.agent_quoted {
                TextEncoding::Raw
            } else {
                TextEncoding::Plus
            },
        },
        None => Text::default(),
    };
    let port = values
        .get(Column::Port)
        .and_then(lex::number)
        .and_then(|port| u16::try_from(port).ok());
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
            scheme: None,
            host: values.get(Column::Host),
            port,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const IIS_FIELDS: &[u8] = b"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken";

    fn state(fields: &[u8]) -> BlockState {
        let mut state = BlockState::default();
        assert_eq!(parse(fields, &mut state), Ok(None));
        state
    }

    #[test]
    fn iis_default_layout() {
        let mut state = state(IIS_FIELDS);
        let line = b"2015-01-13 00:32:17 100.79.192.81 GET /robots.txt q=1 80 - 157.55.39.146 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm) - 404 0 2 1405 242 283";
        let request = parse(line, &mut state).unwrap().unwrap();
        assert_eq!(request.time.to_string(), "2015-01-13T00:32:17Z");
        assert_eq!(request.client_ip, b"157.55.39.146");
        assert_eq!(request.method, b"GET");
        assert_eq!(request.target, b"/robots.txt");
        assert_eq!(request.query, Some(&b"q=1"[..]));
        assert_eq!(request.status, 404);
        assert_eq!(request.bytes, 1405);
        assert_eq!(
            request.origin,
            OriginParts {
                scheme: None,
                host: None,
                port: Some(80)
            }
        );
        assert_eq!(request.user_agent.encoding, TextEncoding::Plus);
        assert_eq!(
            &*request.user_agent.decode(),
            b"Mozilla/5.0 (compatible; bingbot/2.0;  http://www.bing.com/bingbot.htm)"
        );
    }

    #[test]
    fn fields_change_mid_block_and_quoted_fields_hold_spaces() {
        let mut state = state(IIS_FIELDS);
        assert_eq!(
            parse(
                b"#Software: Microsoft Internet Information Services 6.0",
                &mut state
            ),
            Ok(None)
        );
        assert_eq!(
            parse(b"#Fields: date time cs-method cs-uri-stem cs-uri-query c-ip cs(User-Agent) cs(Cookie) cs-host sc-status", &mut state),
            Ok(None)
        );
        let line = br#"2012-04-01 00:00:13 GET /foo/bar - 1.2.3.4 "Mozilla/5.0 (X11)" "a=b; c=d" example.com 200"#;
        let request = parse(line, &mut state).unwrap().unwrap();
        assert_eq!(request.query, None);
        assert_eq!(request.user_agent, Text::raw(b"Mozilla/5.0 (X11)"));
        assert_eq!(request.origin.host, Some(&b"example.com"[..]));
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 0);
    }

    #[test]
    fn damaged_lines() {
        let cases: &[(&[u8], SkipReason)] = &[
            (
                b"2015-01-13 25:32:17 1.1.1.1 GET / - 80 - 2.2.2.2 UA - 200 0 0 1 1 1",
                SkipReason::BadTime,
            ),
            (
                b"2015-01-13 00:32:17 1.1.1.1 GET - - 80 - 2.2.2.2 UA - 200 0 0 1 1 1",
                SkipReason::MissingField,
            ),
            (b"2015-01-13", SkipReason::MissingField),
            (
                b"2015-01-13 00:32:17 1.1.1.1 GET / - 80 - 2.2.2.2 UA - 2000 0 0 1 1 1",
                SkipReason::BadStatus,
            ),
            (
                b"2015-01-13 00:32:17 1.1.1.1 GET / - 80 - 2.2.2.2 \"UA - 200",
                SkipReason::BadQuoting,
            ),
        ];
        for (line, want) in cases {
            let mut state = state(IIS_FIELDS);
            assert_eq!(
                parse(line, &mut state),
                Err(*want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            parse(b"2015-01-13 00:32:17 GET /", &mut BlockState::default()),
            Err(SkipReason::NoFieldsHeader)
        );
    }
}
