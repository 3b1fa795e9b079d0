//! W3C extended logs as IIS, NetScaler and Oracle Web Cache write them: fields separated by
//! runs of spaces or tabs, laid out by the last `#Fields:` directive, `-` for an empty field,
//! `+` for a space in an unquoted user-agent. Times are UTC (`date`, `time`), or local at the
//! offset a `#GMT-Offset:` directive declares (Oracle Web Cache), or local in an assumed zone
//! (IIS Advanced Logging's `date-local`, `time-local`).

use crate::formats::header::{Column, Layout, Values};
use crate::formats::lex;
use crate::record::{OriginParts, Request, Text, TextEncoding};
use crate::scratch::BlockState;
use crate::skip::SkipReason;
use crate::time;
use crate::zone::LocalZone;

/// Whether `b` separates fields.
fn is_separator(b: &u8) -> bool {
    matches!(b, b' ' | b'\t')
}

/// Whether the writer a `#Software:` directive names (`Microsoft Internet Information Services
/// 10.0`) never quotes a field: IIS writes a space in a header as `+` and a quote as it came, so
/// a quote in its log is the client's, never the start of a field holding spaces.
pub(crate) fn never_quotes(software: &[u8]) -> bool {
    const IIS: &[u8] = b"Microsoft Internet Information Services";
    software
        .get(..IIS.len())
        .is_some_and(|name| name.eq_ignore_ascii_case(IIS))
}

/// A field that starts `input` (no separator before it): its value, whether it was quoted, and
/// what follows it and the separators after it. Unless the writer never quotes (`unquoted`), a
/// quoted field may hold spaces (Oracle Web Cache writes user-agents that way); its closing
/// quote is one followed by a separator or the line's end.
fn field(input: &[u8], unquoted: bool) -> Result<(&[u8], bool, &[u8]), SkipReason> {
    let quoted_body = match input.strip_prefix(b"\"") {
        Some(body) if !unquoted => Some(body),
        _ => None,
    };
    let (value, quoted, after) = match quoted_body {
        Some(body) => {
            let close = memchr::memchr_iter(b'"', body)
                .find(|&at| body.get(at + 1).is_none_or(is_separator))
                .ok_or(SkipReason::BadQuoting)?;
            let (value, after) = body.split_at(close);
            (value, true, after.get(1..).unwrap_or_default())
        }
        None => {
            let end = input.iter().position(is_separator).unwrap_or(input.len());
            let (value, after) = input.split_at(end);
            (value, false, after)
        }
    };
    let gap = after.iter().take_while(|b| is_separator(b)).count();
    Ok((value, quoted, after.get(gap..).unwrap_or_default()))
}

/// Reads the fields of a data line into the columns `layout` names, and says whether the line
/// held no more fields than that (a line with fields past the 64th the layout keeps always
/// does).
fn fields<'a>(
    line: &'a [u8],
    layout: &Layout,
    unquoted: bool,
) -> Result<(Values<'a>, bool), SkipReason> {
    let mut values = Values::default();
    let gap = line.iter().take_while(|b| is_separator(b)).count();
    let mut rest = line.get(gap..).unwrap_or_default();
    for &column in layout.columns() {
        if rest.is_empty() {
            break;
        }
        let (value, quoted, after) = field(rest, unquoted)?;
        values.set(column, value);
        if column == Column::UserAgent {
            values.agent_quoted = quoted;
        }
        rest = after;
    }
    Ok((values, rest.is_empty() || layout.may_be_cut()))
}

/// The fields of a data line. IIS writes a space in a field as `+`, so a line of IIS's own
/// holds exactly the fields its `#Fields:` line names; one with more was rewritten by a tool
/// that quotes fields holding spaces (`"a=1; b=2"`), and read as IIS writes, every column after
/// such a field would shift. Its quotes are then read as quotes, when that makes the fields fit;
/// a line that fits as IIS writes keeps its quotes as the client's.
fn line_fields<'a>(line: &'a [u8], state: &BlockState) -> Result<Values<'a>, SkipReason> {
    let layout = state.layout.as_ref().ok_or(SkipReason::NoFieldsHeader)?;
    let (values, fits) = fields(line, layout, state.unquoted)?;
    if fits || !state.unquoted {
        return Ok(values);
    }
    match fields(line, layout, false) {
        Ok((quoted, true)) => Ok(quoted),
        _ => Ok(values),
    }
}

/// Reads a directive: `#Fields:` lays out the lines after it, `#GMT-Offset:` says the offset
/// of their times, `#Software:` whether their fields can be quoted.
fn directive(line: &[u8], state: &mut BlockState) {
    if line.starts_with(b"#Fields:") {
        state.layout = Some(Layout::parse(line));
    } else if let Some(offset) = line.strip_prefix(b"#GMT-Offset:") {
        state.gmt_offset = Some(time::offset_seconds(offset.trim_ascii()));
    } else if let Some(software) = line.strip_prefix(b"#Software:") {
        state.unquoted = never_quotes(software.trim_ascii());
    }
}

/// The time of a line, and whether it was read in an assumed zone.
fn line_time(
    values: &Values<'_>,
    state: &mut BlockState,
    zone: &LocalZone,
) -> Result<(jiff::Timestamp, bool), SkipReason> {
    let utc = (values.get(Column::Date), values.get(Column::Time));
    let local = (values.get(Column::LocalDate), values.get(Column::LocalTime));
    let (date, clock, declared) = match (utc, local) {
        ((Some(date), Some(clock)), _) => (date, clock, true),
        (_, (Some(date), Some(clock))) => (date, clock, state.gmt_offset.is_some()),
        _ => return Err(SkipReason::MissingField),
    };
    let wall = time::w3c_wall(date, clock).ok_or(SkipReason::BadTime)?;
    let time = match (declared, state.gmt_offset) {
        (true, None) => wall.at_offset(0),
        (true, Some(offset)) => wall.at_offset(offset.ok_or(SkipReason::BadTime)?),
        (false, _) => zone.timestamp(wall, &mut state.zone_minute),
    };
    Ok((time.ok_or(SkipReason::BadTime)?, !declared))
}

/// Parses one line; directives update `state` and give `Ok(None)`. `zone` is the zone of
/// `date-local` and `time-local`.
pub(crate) fn parse<'a>(
    line: &'a [u8],
    state: &mut BlockState,
    zone: &LocalZone,
) -> Result<Option<Request<'a>>, SkipReason> {
    let line = line.trim_ascii_end();
    if line.starts_with(b"#") {
        directive(line, state);
        return Ok(None);
    }
    let values = line_fields(line, state)?;
    let shaped = [Column::Date, Column::LocalDate]
        .iter()
        .filter_map(|&column| values.get(column))
        .all(lex::is_date_shaped);
    if !shaped {
        return Err(SkipReason::WrongFormat);
    }
    let (time, zone_assumed) = line_time(&values, state, zone)?;
    // `cs-uri` is the whole target, its query included.
    let (target, query) = match (values.get(Column::UriStem), values.get(Column::Uri)) {
        (Some(stem), _) => (stem, values.get(Column::UriQuery)),
        (None, Some(uri)) => (uri, None),
        (None, None) => return Err(SkipReason::MissingField),
    };
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
        query,
        status: values.get(Column::Status).map_or(Ok(0), lex::status)?,
        fetch_status: None,
        bytes: values.get(Column::Bytes).map_or(Ok(0), lex::bytes)?,
        user_agent,
        origin: OriginParts {
            scheme: None,
            host: values.get(Column::Host),
            port,
        },
        zone_assumed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const IIS_FIELDS: &[u8] = b"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken";

    fn state(fields: &[u8]) -> BlockState {
        let mut state = BlockState::default();
        assert_eq!(parse(fields, &mut state, &LocalZone::default()), Ok(None));
        state
    }

    #[test]
    fn iis_default_layout() {
        let mut state = state(IIS_FIELDS);
        let line = b"2015-01-13 00:32:17 100.79.192.81 GET /robots.txt q=1 80 - 157.55.39.146 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm) - 404 0 2 1405 242 283";
        let request = parse(line, &mut state, &LocalZone::default())
            .unwrap()
            .unwrap();
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
                b"#Software: Oracle Web Cache",
                &mut state,
                &LocalZone::default()
            ),
            Ok(None)
        );
        assert_eq!(
            parse(b"#Fields: date time cs-method cs-uri-stem cs-uri-query c-ip cs(User-Agent) cs(Cookie) cs-host sc-status", &mut state, &LocalZone::default()),
            Ok(None)
        );
        let line = br#"2012-04-01 00:00:13 GET /foo/bar - 1.2.3.4 "Mozilla/5.0 (X11)" "a=b; c=d" example.com 200"#;
        let request = parse(line, &mut state, &LocalZone::default())
            .unwrap()
            .unwrap();
        assert_eq!(request.query, None);
        assert_eq!(request.user_agent, Text::raw(b"Mozilla/5.0 (X11)"));
        assert_eq!(request.origin.host, Some(&b"example.com"[..]));
        assert_eq!(request.status, 200);
        assert_eq!(request.bytes, 0);
    }

    #[test]
    fn iis_quotes_are_the_clients() {
        // IIS 8.0's layout with a host: the client wrote a quote at the start of its
        // user-agent and at the end of its cookie, which a quoting writer's reader would take
        // for one field, shifting `cs-host` onto `sc-status` and `sc-status` onto
        // `sc-substatus`; and a user-agent with a quote that no field closes.
        let fields: &[u8] = b"#Fields: date time s-sitename cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken";
        let lines: [&[u8]; 2] = [
            br#"2014-01-01 02:01:09 W3SVC1 GET /private - 443 - 192.0.2.7 "ExampleBot/1.0+(+https://bot.example/) a=b" - www.sample.com 200 0 0 5120 300 15"#,
            br#"2014-01-01 02:01:09 W3SVC1 GET /private - 443 - 192.0.2.7 "ExampleBot/1.0 - - www.sample.com 200 0 0 5120 300 15"#,
        ];
        let agents: [&[u8]; 2] = [
            br#""ExampleBot/1.0 ( https://bot.example/)"#,
            br#""ExampleBot/1.0"#,
        ];
        for (line, agent) in lines.into_iter().zip(agents) {
            let mut state = BlockState::default();
            for directive in [
                &b"#Software: Microsoft Internet Information Services 8.0"[..],
                fields,
            ] {
                assert_eq!(
                    parse(directive, &mut state, &LocalZone::default()),
                    Ok(None)
                );
            }
            let request = parse(line, &mut state, &LocalZone::default())
                .unwrap()
                .unwrap();
            assert_eq!(request.origin.host, Some(&b"www.sample.com"[..]));
            assert_eq!(request.status, 200);
            assert_eq!(request.bytes, 5120);
            assert_eq!(&*request.user_agent.decode(), agent);
        }
    }

    /// One line under its directives, read in `zone`: its time, target, query, user-agent, and
    /// whether its time was read in an assumed zone.
    fn read_under(
        directives: &[&[u8]],
        line: &[u8],
        zone: &LocalZone,
    ) -> (String, Vec<u8>, Option<Vec<u8>>, Vec<u8>, bool) {
        let mut state = BlockState::default();
        for directive in directives {
            assert_eq!(parse(directive, &mut state, zone), Ok(None));
        }
        let request = parse(line, &mut state, zone)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(line)))
            .unwrap();
        (
            request.time.to_string(),
            request.target.to_vec(),
            request.query.map(<[u8]>::to_vec),
            request.user_agent.decode().into_owned(),
            request.zone_assumed,
        )
    }

    #[test]
    fn variants() {
        let paris = LocalZone::named("Europe/Paris").unwrap();
        let utc = LocalZone::default();
        type Case<'z> = (
            &'static str,
            &'static [&'static [u8]],
            &'static [u8],
            &'z LocalZone,
            (
                &'static str,
                &'static [u8],
                Option<&'static [u8]>,
                &'static [u8],
                bool,
            ),
        );
        let cases: &[Case<'_>] = &[
            (
                "runs of spaces and tabs between fields",
                &[b"#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)"],
                b"2026-11-20   01:00:00\t\t198.51.100.7  GET \t/a  200   ExampleBot/1.0+(https://bot.example/)   ",
                &utc,
                ("2026-11-20T01:00:00Z", b"/a", None, b"ExampleBot/1.0 (https://bot.example/)", false),
            ),
            (
                "Oracle Web Cache: cs-uri whole, #GMT-Offset, header names without parentheses",
                &[b"#Software: Oracle Web Cache", b"#Fields: date time c-ip cs-method cs-uri sc-status bytes csUser-Agent csHost", b"#GMT-Offset: -0800"],
                b"2026-11-20 17:00:00 198.51.100.7 GET /catalog/item?id=7&x=1 200 512 \"ExampleBot/1.0 (+https://bot.example/)\" shop.example",
                &paris,
                ("2026-11-21T01:00:00Z", b"/catalog/item?id=7&x=1", None, b"ExampleBot/1.0 (+https://bot.example/)", false),
            ),
            (
                "IIS Advanced Logging: date-local and time-local in the named zone",
                &[b"#Fields: date-local time-local c-ip cs-method cs-uri-stem cs-uri-query sc-status cs(User-Agent)"],
                b"2026-07-01 12:00:00.5 198.51.100.7 GET /p q=1 200 ExampleBot/1.0",
                &paris,
                ("2026-07-01T10:00:00.5Z", b"/p", Some(b"q=1"), b"ExampleBot/1.0", true),
            ),
            (
                "date-local without --timezone: UTC, and said so",
                &[b"#Fields: date-local time-local cs-uri-stem"],
                b"2026-07-01 12:00:00 /p",
                &utc,
                ("2026-07-01T12:00:00Z", b"/p", None, b"", true),
            ),
            (
                "date and time win over their local twins",
                &[b"#Fields: date time date-local time-local cs-uri-stem"],
                b"2026-07-01 10:00:00 2026-07-01 12:00:00 /p",
                &paris,
                ("2026-07-01T10:00:00Z", b"/p", None, b"", false),
            ),
            (
                "a #GMT-Offset also declares date-local",
                &[b"#GMT-Offset: +0530", b"#Fields: date-local time-local cs-uri-stem"],
                b"2026-07-01 12:00:00 /p",
                &paris,
                ("2026-07-01T06:30:00Z", b"/p", None, b"", false),
            ),
        ];
        for (name, directives, line, zone, (time, target, query, agent, assumed)) in cases {
            let got = read_under(directives, line, zone);
            let want = (
                time.to_string(),
                target.to_vec(),
                query.map(<[u8]>::to_vec),
                agent.to_vec(),
                *assumed,
            );
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn a_gmt_offset_that_is_no_offset_reads_no_time() {
        // Oracle Web Cache's times are local: read as UTC they would move by the offset.
        for offset in [&b"+9999"[..], b"-2400", b"+0860", b"PST", b""] {
            let mut state = state(b"#Fields: date time cs-uri");
            let directive = [&b"#GMT-Offset: "[..], offset].concat();
            assert_eq!(
                parse(&directive, &mut state, &LocalZone::default()),
                Ok(None)
            );
            assert_eq!(
                parse(b"2026-11-20 17:00:00 /x", &mut state, &LocalZone::default()),
                Err(SkipReason::BadTime),
                "{}",
                String::from_utf8_lossy(offset)
            );
            // A valid one after it applies again.
            parse(b"#GMT-Offset: -0800", &mut state, &LocalZone::default()).unwrap();
            let request = parse(b"2026-11-20 17:00:00 /x", &mut state, &LocalZone::default());
            assert_eq!(
                request.unwrap().unwrap().time.to_string(),
                "2026-11-21T01:00:00Z"
            );
        }
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
                parse(line, &mut state, &LocalZone::default()),
                Err(*want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            parse(
                b"2015-01-13 00:32:17 GET /",
                &mut BlockState::default(),
                &LocalZone::default()
            ),
            Err(SkipReason::NoFieldsHeader)
        );
    }
}
