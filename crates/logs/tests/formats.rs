//! Every format end to end: fixture file -> LogReader -> Format::detect -> LineParser.

use std::path::PathBuf;

use robots_audit_logs::{FieldMap, Format, LineParser, LogReader, Scratch, SkipReason, Source};

/// A parsed request, owned and as text, so that expectations read like the log.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    line: u64,
    time: String,
    client_ip: String,
    method: String,
    target: String,
    query: Option<String>,
    status: u16,
    fetch_status: Option<i32>,
    bytes: u64,
    user_agent: String,
    origin: String,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Reads a fixture with the given format (or the detected one) and returns what every line
/// gave: rows, skips, and the number of header/blank lines.
fn read(
    name: &str,
    format: Option<Format>,
    fields: &FieldMap,
) -> (Format, Vec<Row>, Vec<(u64, SkipReason)>, u64) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", name]
        .iter()
        .collect();
    let mut reader = LogReader::open(&Source::Path(path)).expect("fixture opens");
    let (mut rows, mut skips, mut other) = (Vec::new(), Vec::new(), 0);
    let mut scratch = Scratch::new();
    let mut parser: Option<LineParser> = None;
    while let Some(block) = reader.next_block().expect("fixture reads") {
        let parser = parser.get_or_insert_with(|| match format {
            Some(format) => LineParser::new(format, fields),
            // Detected as the audit detects it: each line may be of another format.
            None => LineParser::detected(
                Format::detect(&block.data).expect("format detected"),
                fields,
            ),
        });
        let mut state = parser.block_state(&block);
        for (line, bytes) in block.lines() {
            match parser.parse(bytes, &mut state, &mut scratch) {
                Ok(Some(r)) => rows.push(Row {
                    line,
                    time: r.time.to_string(),
                    client_ip: text(r.client_ip),
                    method: text(r.method),
                    target: text(r.target),
                    query: r.query.map(text),
                    status: r.status,
                    fetch_status: r.fetch_status,
                    bytes: r.bytes,
                    user_agent: text(&r.user_agent.decode()),
                    origin: format!(
                        "{}|{}|{}",
                        r.origin.scheme.map(text).unwrap_or_default(),
                        r.origin.host.map(text).unwrap_or_default(),
                        r.origin.port.map(|p| p.to_string()).unwrap_or_default()
                    ),
                }),
                Ok(None) => other += 1,
                Err(reason) => skips.push((line, reason)),
            }
        }
    }
    (
        parser.expect("at least one block").format(),
        rows,
        skips,
        other,
    )
}

#[allow(clippy::too_many_arguments)]
fn row(
    line: u64,
    time: &str,
    client_ip: &str,
    method: &str,
    target: &str,
    query: Option<&str>,
    status: u16,
    fetch_status: Option<i32>,
    bytes: u64,
    user_agent: &str,
    origin: &str,
) -> Row {
    Row {
        line,
        time: time.into(),
        client_ip: client_ip.into(),
        method: method.into(),
        target: target.into(),
        query: query.map(Into::into),
        status,
        fetch_status,
        bytes,
        user_agent: user_agent.into(),
        origin: origin.into(),
    }
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const BINGBOT: &str = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
/// IIS writes a space as `+` and leaves a real `+` alone, so `;+` + `+http` cannot be told
/// apart from two spaces.
const BINGBOT_W3C: &str = "Mozilla/5.0 (compatible; bingbot/2.0;  http://www.bing.com/bingbot.htm)";

struct Case {
    fixture: &'static str,
    format: Format,
    rows: Vec<Row>,
    skips: Vec<(u64, SkipReason)>,
    other: u64,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            fixture: "combined.log",
            format: Format::Combined,
            rows: vec![
                row(
                    1,
                    "2025-03-02T06:25:24Z",
                    "66.249.66.1",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    0,
                    GOOGLEBOT,
                    "||",
                ),
                row(
                    2,
                    "2025-03-02T06:25:31Z",
                    "66.249.66.1",
                    "GET",
                    "/private/report.pdf",
                    None,
                    200,
                    None,
                    48213,
                    GOOGLEBOT,
                    "||",
                ),
                row(
                    3,
                    "2025-03-02T06:01:02Z",
                    "203.0.113.9",
                    "POST",
                    "/login?next=%2Fhome",
                    None,
                    302,
                    None,
                    0,
                    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                    "||",
                ),
                row(
                    4,
                    "2025-03-02T12:15:44Z",
                    "198.51.100.23",
                    "GET",
                    "/",
                    None,
                    200,
                    None,
                    10479,
                    "}__probe|O:21:\"JDatabaseDriverMysqli\":3:{s:2:\"fc\";s:4:\"\\0\\0\"}",
                    "||",
                ),
                row(
                    5,
                    "2025-03-02T08:00:00Z",
                    "2001:db8::7",
                    "HEAD",
                    "/feed.xml",
                    None,
                    304,
                    None,
                    0,
                    "FeedFetcher-Test/3.1 (+https://feeds.example/bot)",
                    "||",
                ),
            ],
            skips: vec![
                (6, SkipReason::BadRequestLine),
                (7, SkipReason::BadRequestLine),
                (8, SkipReason::BadQuoting),
                (9, SkipReason::BadTime),
            ],
            other: 0,
        },
        Case {
            fixture: "common.log",
            format: Format::Common,
            rows: vec![
                row(
                    1,
                    "2000-10-10T20:55:36Z",
                    "127.0.0.1",
                    "GET",
                    "/apache_pb.gif",
                    None,
                    200,
                    None,
                    2326,
                    "",
                    "||",
                ),
                row(
                    2,
                    "2000-10-10T20:56:01Z",
                    "192.0.2.1",
                    "GET",
                    "/robots.txt",
                    None,
                    404,
                    None,
                    0,
                    "",
                    "||",
                ),
                row(
                    3,
                    "2000-10-10T20:57:12Z",
                    "192.0.2.2",
                    "GET",
                    "/index.html",
                    None,
                    200,
                    None,
                    5120,
                    "",
                    "||",
                ),
            ],
            skips: vec![],
            other: 0,
        },
        Case {
            fixture: "vhost_combined.log",
            format: Format::VhostCombined,
            rows: vec![
                row(
                    1,
                    "2025-01-05T10:00:00Z",
                    "203.0.113.5",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    512,
                    BINGBOT,
                    "|www.example.com|443",
                ),
                row(
                    2,
                    "2025-01-05T10:00:02Z",
                    "203.0.113.5",
                    "GET",
                    "/drafts/",
                    None,
                    403,
                    None,
                    301,
                    BINGBOT,
                    "|blog.example.com|80",
                ),
                row(
                    3,
                    "2025-01-05T10:00:05Z",
                    "198.51.100.2",
                    "GET",
                    "/logo.png",
                    None,
                    200,
                    None,
                    9000,
                    "",
                    "|static.example.com|",
                ),
            ],
            skips: vec![],
            other: 0,
        },
        Case {
            fixture: "nginx_xff.log",
            format: Format::Combined,
            rows: vec![
                row(
                    1,
                    "2024-01-22T00:26:14Z",
                    "54.36.149.41",
                    "GET",
                    "/filter/27|13%20%D9%85,p53",
                    None,
                    200,
                    None,
                    30577,
                    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
                    "||",
                ),
                row(
                    2,
                    "2024-01-22T00:26:16Z",
                    "10.0.0.8",
                    "GET",
                    "/image/60844/productModel/200x200",
                    None,
                    200,
                    None,
                    5667,
                    "Mozilla/5.0 (Linux; Android 14) Mobile Safari/537.36",
                    "||",
                ),
            ],
            skips: vec![],
            other: 0,
        },
        Case {
            fixture: "w3c.log",
            format: Format::W3c,
            rows: vec![
                row(
                    5,
                    "2024-06-01T00:00:03Z",
                    "157.55.39.10",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    512,
                    BINGBOT_W3C,
                    "||443",
                ),
                row(
                    6,
                    "2024-06-01T00:00:09Z",
                    "157.55.39.10",
                    "GET",
                    "/search",
                    Some("q=robots&page=2"),
                    200,
                    None,
                    20480,
                    BINGBOT_W3C,
                    "||443",
                ),
                row(
                    11,
                    "2024-06-01T12:00:01Z",
                    "192.0.2.99",
                    "GET",
                    "/account",
                    None,
                    401,
                    None,
                    1293,
                    "Mozilla/5.0 (Windows NT 10.0; Win64; x64)",
                    "|intranet.example|",
                ),
            ],
            skips: vec![(12, SkipReason::BadQuoting), (13, SkipReason::BadTime)],
            other: 8,
        },
        Case {
            fixture: "cloudfront.log",
            format: Format::Cloudfront,
            rows: vec![
                row(
                    3,
                    "2025-02-11T09:14:02Z",
                    "198.51.100.61",
                    "GET",
                    "/docs/index.html",
                    Some("lang=en"),
                    200,
                    None,
                    2143,
                    "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)",
                    "https|docs.example.org|",
                ),
                row(
                    4,
                    "2025-02-11T09:14:05Z",
                    "198.51.100.61",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    512,
                    "Mozilla/5.0 (compatible; GPTBot/1.2)",
                    "http|d1234abcd.cloudfront.net|",
                ),
            ],
            skips: vec![(5, SkipReason::BadStatus)],
            other: 2,
        },
        Case {
            fixture: "alb.log",
            format: Format::Alb,
            rows: vec![
                row(
                    1,
                    "2025-03-01T12:00:00.123456Z",
                    "203.0.113.12",
                    "GET",
                    "https://www.example.net:443/products?id=7",
                    None,
                    200,
                    None,
                    5120,
                    "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
                    "https|www.example.net|443",
                ),
                row(
                    2,
                    "2025-03-01T12:00:01Z",
                    "[2001:db8::10]",
                    "GET",
                    "http://www.example.net:80/slow",
                    None,
                    460,
                    None,
                    0,
                    "",
                    "http|www.example.net|80",
                ),
            ],
            skips: vec![(3, SkipReason::NotHttp)],
            other: 0,
        },
        Case {
            fixture: "caddy.log",
            format: Format::Caddy,
            rows: vec![
                row(
                    1,
                    "2025-01-01T12:00:00.25Z",
                    "198.51.100.201",
                    "GET",
                    "/repo/archive.tar.gz?ref=main",
                    None,
                    200,
                    None,
                    91234,
                    "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
                    "https|git.example.org|",
                ),
                row(
                    2,
                    "2025-01-01T12:00:01Z",
                    "198.51.100.202",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    64,
                    "curl/8.5.0 \"quoted\"",
                    "http|git.example.org:8080|",
                ),
            ],
            skips: vec![(3, SkipReason::BadJson)],
            other: 0,
        },
        Case {
            fixture: "json_nginx.log",
            format: Format::Json,
            rows: vec![
                row(
                    1,
                    "2024-09-10T06:00:00Z",
                    "192.0.2.10",
                    "GET",
                    "/catalog?page=3",
                    None,
                    200,
                    None,
                    1532,
                    "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
                    "|shop.example|",
                ),
                row(
                    2,
                    "2024-09-10T06:00:01Z",
                    "192.0.2.11",
                    "GET",
                    "/caf\u{e9}",
                    None,
                    404,
                    None,
                    0,
                    "",
                    "|shop.example|",
                ),
            ],
            skips: vec![(3, SkipReason::BadTime)],
            other: 0,
        },
        Case {
            fixture: "logpush.log",
            format: Format::Json,
            rows: vec![
                row(
                    1,
                    "2025-01-15T00:00:00.123Z",
                    "198.51.100.90",
                    "GET",
                    "/2025/01/story.html?utm=x",
                    None,
                    200,
                    None,
                    40960,
                    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
                    "https|news.example.com|",
                ),
                row(
                    2,
                    "2025-01-15T00:00:01Z",
                    "2001:db8::99",
                    "HEAD",
                    "/robots.txt",
                    None,
                    301,
                    None,
                    0,
                    "ia_archiver",
                    "http|news.example.com|",
                ),
            ],
            skips: vec![],
            other: 0,
        },
        Case {
            fixture: "haproxy_syslog.log",
            format: Format::Haproxy,
            rows: vec![
                row(
                    2,
                    "2026-11-20T01:00:00.125Z",
                    "192.0.2.10",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    5120,
                    "Mozilla/5.0 (compatible; ExampleBot/1.0; +https://bot.example/)",
                    "https|shop.example|",
                ),
                row(
                    3,
                    "2026-11-20T01:00:01.5Z",
                    "192.0.2.10",
                    "GET",
                    "/private/q\"x",
                    None,
                    404,
                    None,
                    310,
                    "Mozilla/5.0 (compatible; ExampleBot/1.0; +https://bot.example/)",
                    "https|shop.example|",
                ),
                row(
                    5,
                    "2026-11-20T01:00:03.25Z",
                    "203.0.113.7",
                    "GET",
                    "/",
                    None,
                    301,
                    None,
                    0,
                    "curl/8.4.0",
                    "http|shop.example|",
                ),
            ],
            skips: vec![(1, SkipReason::WrongFormat), (4, SkipReason::NotHttp)],
            other: 0,
        },
        Case {
            fixture: "envoy.log",
            format: Format::Envoy,
            rows: vec![
                row(
                    1,
                    "2026-11-20T01:00:00.125Z",
                    "192.0.2.1, 10.0.0.2",
                    "GET",
                    "/robots.txt",
                    None,
                    200,
                    None,
                    120,
                    "ExampleBot/1.0 (+https://bot.example/)",
                    "|shop.example|",
                ),
                row(
                    3,
                    "2026-11-20T01:00:02Z",
                    "",
                    "GET",
                    "/private/x",
                    None,
                    403,
                    None,
                    9,
                    "",
                    "|shop.example:8443|",
                ),
            ],
            skips: vec![(2, SkipReason::NotHttp)],
            other: 0,
        },
        Case {
            fixture: "crawl.log",
            format: Format::Crawl,
            rows: vec![
                row(
                    2,
                    "2025-04-02T10:00:00.412Z",
                    "",
                    "",
                    "http://www.example.edu/robots.txt",
                    None,
                    200,
                    None,
                    812,
                    "",
                    "http|www.example.edu|",
                ),
                row(
                    3,
                    "2025-04-02T10:00:01.95Z",
                    "",
                    "",
                    "http://www.example.edu/",
                    None,
                    200,
                    None,
                    15320,
                    "",
                    "http|www.example.edu|",
                ),
                row(
                    4,
                    "2025-04-02T10:00:02.1Z",
                    "",
                    "",
                    "http://www.example.edu/private/grades.html",
                    None,
                    0,
                    Some(-9998),
                    0,
                    "",
                    "http|www.example.edu|",
                ),
                row(
                    5,
                    "2025-04-02T10:00:03.3Z",
                    "",
                    "",
                    "https://archive.example.edu/",
                    None,
                    0,
                    Some(-61),
                    0,
                    "",
                    "https|archive.example.edu|",
                ),
                row(
                    6,
                    "2025-04-02T10:00:04Z",
                    "",
                    "",
                    "https://www.example.edu:8443/missing?x=1",
                    None,
                    404,
                    None,
                    301,
                    "",
                    "https|www.example.edu|8443",
                ),
            ],
            skips: vec![(1, SkipReason::NotHttp)],
            other: 0,
        },
        Case {
            fixture: "crawl_json.log",
            format: Format::Crawl,
            rows: vec![
                row(
                    1,
                    "2025-04-02T10:00:01.95Z",
                    "",
                    "GET",
                    "https://www.example.edu/",
                    None,
                    200,
                    None,
                    15320,
                    "ExampleCrawler/4.2 (+https://crawler.example/about)",
                    "https|www.example.edu|",
                ),
                row(
                    2,
                    "2025-04-02T10:00:02Z",
                    "",
                    "",
                    "https://www.example.edu/private/",
                    None,
                    0,
                    Some(-9998),
                    0,
                    "",
                    "https|www.example.edu|",
                ),
            ],
            skips: vec![(3, SkipReason::NotHttp)],
            other: 0,
        },
    ]
}

#[test]
fn every_fixture_is_detected_and_parsed() {
    for case in cases() {
        let (format, rows, skips, other) = read(case.fixture, None, &FieldMap::new());
        assert_eq!(format, case.format, "{}: detected format", case.fixture);
        assert_eq!(rows, case.rows, "{}: rows", case.fixture);
        assert_eq!(skips, case.skips, "{}: skipped lines", case.fixture);
        assert_eq!(
            other, case.other,
            "{}: header and blank lines",
            case.fixture
        );
    }
}

#[test]
fn a_combined_parser_rejects_common_lines_and_a_common_parser_keeps_agents() {
    let (_, rows, skips, _) = read("common.log", Some(Format::Combined), &FieldMap::new());
    assert!(rows.is_empty());
    assert_eq!(
        skips,
        [
            (1, SkipReason::WrongFormat),
            (2, SkipReason::WrongFormat),
            (3, SkipReason::WrongFormat)
        ]
    );
    let (_, rows, skips, _) = read("nginx_xff.log", Some(Format::Common), &FieldMap::new());
    assert!(skips.is_empty());
    assert_eq!(
        rows.first().map(|r| r.user_agent.as_str()),
        Some("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)")
    );
}

#[test]
fn logpush_preset_and_explicit_mappings() {
    let (_, with_preset, _, _) = read("logpush.log", Some(Format::Json), &FieldMap::logpush());
    let (_, with_defaults, _, _) = read("logpush.log", None, &FieldMap::new());
    assert_eq!(with_preset, with_defaults);
    let fields = FieldMap::from_mappings(["user_agent=RayID", "host=VerifiedBotCategory"]).unwrap();
    let (_, mapped, _, _) = read("logpush.log", Some(Format::Json), &fields);
    assert_eq!(
        mapped
            .first()
            .map(|r| (r.user_agent.as_str(), r.origin.as_str())),
        Some(("8f1a2b3c4d5e6f70", "https|Search Engine Crawler|"))
    );
    assert_eq!(
        mapped.get(1).map(|r| r.origin.as_str()),
        Some("http||"),
        "no fallback to built-in names once mapped"
    );
}

#[test]
fn caddy_mappings_override_the_preset() {
    let fields = FieldMap::from_mappings(["client_ip=request.remote_ip"]).unwrap();
    let (_, rows, _, _) = read("caddy.log", Some(Format::Caddy), &fields);
    assert_eq!(rows.first().map(|r| r.client_ip.as_str()), Some("10.0.0.2"));
}

/// The status, byte count, host and user-agent `line` gives under `directives`.
fn w3c_fields(directives: &[&str], line: &str) -> (u16, u64, String, String) {
    let parser = LineParser::new(Format::W3c, &FieldMap::new());
    let (mut state, mut scratch) = (robots_audit_logs::BlockState::new(), Scratch::new());
    for directive in directives {
        assert_eq!(
            parser.parse(directive.as_bytes(), &mut state, &mut scratch),
            Ok(None)
        );
    }
    let request = parser
        .parse(line.as_bytes(), &mut state, &mut scratch)
        .expect("parses")
        .expect("a request");
    (
        request.status,
        request.bytes,
        text(request.origin.host.unwrap_or_default()),
        text(&request.user_agent.decode()),
    )
}

#[test]
fn iis_lines_with_more_fields_than_their_header_read_their_quotes() {
    // A log that says it is IIS's but quotes a cookie holding spaces (as log rewriters and
    // hand-edited samples do): read as IIS writes, the cookie is three fields and every column
    // after it shifts (status `-`, host a piece of the cookie). IIS itself never writes more
    // fields than its `#Fields:` line names, so such a line's quotes are a quoting writer's.
    let fields = "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port c-ip cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes";
    let software = "#Software: Microsoft Internet Information Services 7.5";
    let line = r#"2026-11-20 01:00:00 192.0.2.1 GET /a - 80 198.51.100.7 ExampleBot/1.0+(+https://bot.example/) "sid=1; lang=en; theme=dark" - shop.example 200 0 0 5120"#;
    assert_eq!(
        w3c_fields(&[software, fields], line),
        (
            200,
            5120,
            "shop.example".to_owned(),
            "ExampleBot/1.0 ( https://bot.example/)".to_owned()
        )
    );
    // A line that fits its header is read as IIS writes it, the client's quotes kept: the
    // crawler's `"x` and its cookie's `y"` do not join the fields between them.
    let fitting = r#"2026-11-20 01:00:00 192.0.2.1 GET /a - 80 198.51.100.7 "ExampleBot/1.0 y" - shop.example 200 0 0 5120"#;
    assert_eq!(
        w3c_fields(&[software, fields], fitting),
        (
            200,
            5120,
            "shop.example".to_owned(),
            "\"ExampleBot/1.0".to_owned()
        )
    );
}

#[test]
fn caddy_times_are_the_digits_caddy_wrote() {
    // Caddy writes `ts` as the shortest decimal that reads back as its double. The double
    // nearest 1716723830.5081363 is 1716723830.50813651..., whose rounding to the microsecond
    // is .508137, a microsecond away from what the log says.
    let parser = LineParser::new(Format::Caddy, &FieldMap::new());
    let (mut state, mut scratch) = (robots_audit_logs::BlockState::new(), Scratch::new());
    let times = [
        ("1716723830.5081363", "2024-05-26T11:43:50.508136Z"),
        ("1716723772.6014807", "2024-05-26T11:42:52.601481Z"),
        ("1716723772.25", "2024-05-26T11:42:52.25Z"),
    ];
    for (ts, time) in times {
        let line = format!(
            r#"{{"ts":{ts},"msg":"handled request","request":{{"client_ip":"192.0.2.1","method":"GET","host":"shop.example","uri":"/a","headers":{{"User-Agent":["ExampleBot/1.0"]}}}},"status":200,"size":5}}"#
        );
        let request = parser
            .parse(line.as_bytes(), &mut state, &mut scratch)
            .expect("parses")
            .expect("a request");
        assert_eq!(request.time.to_string(), time, "ts {ts}");
    }
}
