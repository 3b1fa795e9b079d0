//! Invariants over generated input: parsers never panic and never invent data, generated lines
//! of each layout parse back to the values they were written from.

use proptest::prelude::*;
use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch, TextEncoding};

fn parsers() -> Vec<LineParser> {
    Format::ALL
        .iter()
        .map(|&format| LineParser::new(format, &FieldMap::new()))
        .collect()
}

/// Whether `part` lies inside `whole` (a borrowed slice of it).
fn within(part: &[u8], whole: &[u8]) -> bool {
    let range = whole.as_ptr_range();
    part.is_empty() || (range.start <= part.as_ptr() && part.as_ptr_range().end <= range.end)
}

/// Lines that look roughly like log lines, with hostile bytes sprinkled in.
fn noisy_line() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop_oneof![
        Just(b"1.2.3.4 - - ".to_vec()),
        Just(b"[10/Oct/2000:13:55:36 -0700] ".to_vec()),
        Just(b"\"GET /a?b HTTP/1.1\" ".to_vec()),
        Just(b"200 ".to_vec()),
        Just(b"\"-\" ".to_vec()),
        Just(b"\\\"".to_vec()),
        Just(b"{\"url\":\"http://h/\",".to_vec()),
        Just(b"\"time\":1,".to_vec()),
        Just(b"}".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"#Fields: date time cs-uri-stem\n".to_vec()),
        Just(b"2015-01-13 00:32:17 ".to_vec()),
        Just(b"https 2020-01-01T00:55:04Z app/x 1.2.3.4:1 ".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..8),
    ];
    proptest::collection::vec(pieces, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn parsers_never_panic_and_borrow_from_the_line(line in noisy_line()) {
        let mut scratch = Scratch::new();
        for parser in parsers() {
            let mut state = BlockState::new();
            // Each line is parsed twice: once as the directive it may be, once as data.
            for _ in 0..2 {
                if let Ok(Some(request)) = parser.parse(&line, &mut state, &mut scratch) {
                    let json = matches!(parser.format(), Format::Json | Format::Caddy | Format::Crawl);
                    prop_assert!(!request.target.is_empty());
                    if !json {
                        prop_assert!(within(request.target, &line));
                        prop_assert!(within(request.client_ip, &line));
                        prop_assert!(within(request.user_agent.raw, &line));
                    }
                }
            }
        }
    }

    #[test]
    fn detection_never_panics(sample in proptest::collection::vec(noisy_line(), 0..20)) {
        let _ = Format::detect(&sample.join(&b'\n'));
    }

    #[test]
    fn combined_lines_parse_back(
        ip in prop_oneof![
            "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}",
            any::<std::net::Ipv6Addr>().prop_map(|ip| ip.to_string()),
        ],
        path in "/[A-Za-z0-9/._~%?=&+-]{0,40}",
        method in "GET|HEAD|POST|PROPFIND",
        status in 100u16..600,
        bytes in proptest::option::of(0u64..10_000_000_000),
        agent in "[ -~]{0,60}",
        extra in proptest::option::of("[0-9., ]{0,20}"),
    ) {
        // Apache escapes quotes and backslashes inside quoted fields.
        let escaped = agent.replace('\\', "\\\\").replace('"', "\\\"");
        let bytes_field = bytes.map_or("-".to_owned(), |b| b.to_string());
        let mut line = format!(r#"{ip} - - [10/Oct/2000:13:55:36 -0700] "{method} {path} HTTP/1.1" {status} {bytes_field} "-" "{escaped}""#);
        if let Some(extra) = extra {
            line.push_str(&format!(r#" "{extra}""#));
        }
        let parser = LineParser::new(Format::Combined, &FieldMap::new());
        let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
        let request = parser.parse(line.as_bytes(), &mut state, &mut scratch);
        let request = request.map_err(|reason| TestCaseError::fail(format!("{reason}: {line}")))?;
        let request = request.ok_or_else(|| TestCaseError::fail("no request"))?;
        prop_assert_eq!(request.client_ip, ip.as_bytes());
        prop_assert_eq!(request.method, method.as_bytes());
        prop_assert_eq!(request.target, path.as_bytes());
        prop_assert_eq!(request.status, status);
        prop_assert_eq!(request.bytes, bytes.unwrap_or(0));
        let want_agent = if agent == "-" { "" } else { agent.as_str() };
        prop_assert_eq!(&*request.user_agent.decode(), want_agent.as_bytes());
        prop_assert_eq!(request.user_agent.encoding == TextEncoding::Backslash, escaped != agent);
    }

    #[test]
    fn w3c_lines_parse_back_under_any_field_order(
        order in Just(vec!["date", "time", "c-ip", "cs-method", "cs-uri-stem", "cs-uri-query", "sc-status", "sc-bytes", "cs(User-Agent)", "s-port", "x-extra"]).prop_shuffle(),
        stem in "/[a-z0-9/._-]{0,20}",
        query in proptest::option::of("[a-z0-9=&]{1,20}"),
        agent in "[A-Za-z0-9/.;()]{1,10}( [A-Za-z0-9/.;()]{1,10}){0,4}",
        status in 100u16..600,
        bytes in 0u64..1_000_000,
        port in 1u16..,
    ) {
        let value = |name: &str| -> String {
            match name {
                "date" => "2024-02-29".into(),
                "time" => "23:59:58".into(),
                "c-ip" => "192.0.2.7".into(),
                "cs-method" => "GET".into(),
                "cs-uri-stem" => stem.clone(),
                "cs-uri-query" => query.clone().unwrap_or_else(|| "-".into()),
                "sc-status" => status.to_string(),
                "sc-bytes" => bytes.to_string(),
                "cs(User-Agent)" => agent.replace(' ', "+"),
                "s-port" => port.to_string(),
                _ => "ignored".into(),
            }
        };
        let header = format!("#Fields: {}", order.join(" "));
        let line = order.iter().map(|name| value(name)).collect::<Vec<_>>().join(" ");
        let parser = LineParser::new(Format::W3c, &FieldMap::new());
        let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
        prop_assert_eq!(parser.parse(header.as_bytes(), &mut state, &mut scratch), Ok(None));
        let request = parser.parse(line.as_bytes(), &mut state, &mut scratch);
        let request = request.map_err(|reason| TestCaseError::fail(format!("{reason}: {line}")))?;
        let request = request.ok_or_else(|| TestCaseError::fail("no request"))?;
        prop_assert_eq!(request.time.to_string(), "2024-02-29T23:59:58Z");
        prop_assert_eq!(request.target, stem.as_bytes());
        prop_assert_eq!(request.query, query.as_deref().map(str::as_bytes));
        prop_assert_eq!(request.status, status);
        prop_assert_eq!(request.bytes, bytes);
        prop_assert_eq!(request.origin.port, Some(port));
        prop_assert_eq!(&*request.user_agent.decode(), agent.as_bytes());
    }
}
