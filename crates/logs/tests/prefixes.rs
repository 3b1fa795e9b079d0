//! Lines behind the prefixes collectors add (syslog, journald, docker compose, Kubernetes CRI,
//! docker's json-file): read as the same requests as without them, whether the prefix is known
//! from detection, recognised per line, or changes from line to line; partial records joined
//! however they were split, across blocks as within them.

use proptest::prelude::*;
use robots_audit_logs::{
    BlockState, DEFAULT_BLOCK_SIZE, Detector, FieldMap, Format, LineParser, LogReader, Prefix,
    Request, Scratch, SkipReason,
};

/// One valid line of each format that can stand alone (W3C needs its directive).
const SAMPLES: &[(Format, &str)] = &[
    (
        Format::Combined,
        r#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /a?b=1 HTTP/1.1" 200 512 "-" "ExampleBot/1.0 (+https://bot.example/)""#,
    ),
    (
        Format::Combined,
        r#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /q\"x HTTP/1.1" 200 512 "-" "Agent \"quoted\"/1.0""#,
    ),
    (
        Format::Common,
        r#"192.0.2.1 - frank [20/Nov/2026:01:00:00 -0700] "GET /c HTTP/1.0" 304 -"#,
    ),
    (
        Format::VhostCombined,
        r#"shop.example:443 192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /v HTTP/1.1" 200 1 "-" "ExampleBot/1.0""#,
    ),
    (
        Format::Caddy,
        r#"{"level":"info","ts":1795654800.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"192.0.2.1","client_ip":"192.0.2.1","proto":"HTTP/2.0","method":"GET","host":"shop.example","uri":"/j?x=1","headers":{"User-Agent":["ExampleBot/1.0"]},"tls":{"resumed":false}},"status":200,"size":10}"#,
    ),
    (
        Format::Json,
        r#"{"time":"2026-11-20T01:00:00Z","remote_addr":"192.0.2.1","request":"GET /n HTTP/1.1","status":404,"body_bytes_sent":0,"http_user_agent":"ExampleBot/1.0","host":"shop.example"}"#,
    ),
    (
        Format::Alb,
        r#"https 2026-11-20T01:00:00.123456Z app/lb/50dc6c495c0c9188 192.0.2.1:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET https://shop.example:443/alb HTTP/1.1" "ExampleBot/1.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2"#,
    ),
    (
        Format::Haproxy,
        r#"192.0.2.1:51012 [20/Nov/2026:01:00:00.125] www~ web/app1 0/0/1/12/13 200 5120 - - ---- 3/3/1/1/0 0/0 {shop.example|ExampleBot/1.0} "GET /h HTTP/1.1""#,
    ),
    (
        Format::Envoy,
        r#"[2026-11-20T01:00:00.125Z] "GET /e HTTP/1.1" 200 - 0 5120 12 10 "192.0.2.1" "ExampleBot/1.0" "id" "shop.example" "10.1.2.3:8080""#,
    ),
    (
        Format::Crawl,
        r#"2026-11-20T01:00:00.802Z   200       1299 https://shop.example/robots.txt P https://shop.example/ text/plain #014 20261120010000574+225 sha1:YIUO - -"#,
    ),
];

/// How a collector writes a line: the prefixed lines (one, or several records of one line).
type Wrap = fn(&str, &[usize]) -> Vec<String>;

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string")
}

/// The pieces of `line` cut at `cuts` (byte offsets, on char boundaries, in order).
fn pieces<'a>(line: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut at = 0;
    let mut out = Vec::new();
    for &cut in cuts {
        let cut = cut.clamp(at, line.len());
        if line.is_char_boundary(cut) && cut > at {
            out.push(&line[at..cut]);
            at = cut;
        }
    }
    out.push(&line[at..]);
    out
}

const WRAPS: &[(Prefix, &str, Wrap)] = &[
    (Prefix::Syslog, "RFC 3164", |line, _| {
        vec![format!("Nov 20 01:00:00 web nginx[712]: {line}")]
    }),
    (Prefix::Syslog, "RFC 3164 with PRI", |line, _| {
        vec![format!("<190>Nov  2 01:00:00 web haproxy[14389]: {line}")]
    }),
    (Prefix::Syslog, "journald short-precise", |line, _| {
        vec![format!("Nov 20 01:00:00.123456 web caddy[2140]: {line}")]
    }),
    (Prefix::Syslog, "rsyslog RFC 3339", |line, _| {
        vec![format!(
            "2026-11-20T01:00:00.123456+00:00 web apache2: {line}"
        )]
    }),
    (Prefix::Rfc5424, "RFC 5424", |line, _| {
        vec![format!(
            "<134>1 2026-11-20T01:00:00.817934+02:00 - haproxy 266980 - - {line}"
        )]
    }),
    (
        Prefix::Rfc5424,
        "RFC 5424 with structured data",
        |line, _| {
            vec![format!(
                "<165>1 2026-11-20T01:00:00.003Z web.example nginx 7 ACCESS [meta sequenceId=\"1\" note=\"a \\] b\"] {line}"
            )]
        },
    ),
    (Prefix::Compose, "docker compose", |line, _| {
        vec![format!("web-1      | {line}")]
    }),
    (Prefix::Compose, "docker compose --timestamps", |line, _| {
        vec![format!(
            "shop_web_1 | 2026-11-20T01:00:00.123456789Z {line}"
        )]
    }),
    (Prefix::Cri, "Kubernetes CRI", |line, cuts| {
        let pieces = pieces(line, cuts);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let tag = if i == last { 'F' } else { 'P' };
                format!("2026-11-20T01:00:00.{i:09}Z stdout {tag} {piece}")
            })
            .collect()
    }),
    (Prefix::DockerJson, "docker json-file", |line, cuts| {
        let pieces = pieces(line, cuts);
        let last = pieces.len() - 1;
        pieces
            .iter()
            .enumerate()
            .map(|(i, piece)| {
                let end = if i == last { "\n" } else { "" };
                format!(
                    r#"{{"log":{},"stream":"stdout","time":"2026-11-20T01:00:00.{i:09}Z"}}"#,
                    json_string(&format!("{piece}{end}"))
                )
            })
            .collect()
    }),
];

/// A docker compose line's message that starts with an RFC 3339 time (Heritrix's crawl.log)
/// cannot be told from compose's `--timestamps`: the time is read as compose's (documented).
fn ambiguous(wrap: &str, format: Format) -> bool {
    wrap.starts_with("docker compose") && format == Format::Crawl
}

/// A request, owned, to compare.
fn owned(request: &Request<'_>) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {} {:?} {} {:?} {:?} {:?} {:?}",
        request.time,
        String::from_utf8_lossy(request.client_ip),
        String::from_utf8_lossy(request.method),
        String::from_utf8_lossy(request.target),
        request.query.map(String::from_utf8_lossy),
        request.status,
        request.fetch_status,
        request.bytes,
        String::from_utf8_lossy(&request.user_agent.decode()),
        request.origin.scheme.map(String::from_utf8_lossy),
        request.origin.host.map(String::from_utf8_lossy),
        request.origin.port,
    )
}

/// What each line of `lines` reads as, one state for all (one block).
fn read_all(parser: &LineParser, lines: &[String]) -> Vec<Result<Option<String>, SkipReason>> {
    let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    if let Some(prefix) = parser.prefix() {
        // As a block of a detected input starts.
        let block = robots_audit_logs::Block::default();
        state = parser.block_state(&block);
        assert!(parser.prefix() == Some(prefix));
    }
    lines
        .iter()
        .map(|line| {
            parser
                .parse(line.as_bytes(), &mut state, &mut scratch)
                .map(|read| read.as_ref().map(owned))
        })
        .collect()
}

/// The bare sample as its own format reads it.
fn bare(format: Format, line: &str) -> String {
    let parser = LineParser::new(format, &FieldMap::new());
    let read = read_all(&parser, &[line.to_owned()]);
    match &read[..] {
        [Ok(Some(request))] => request.clone(),
        other => panic!("{format} sample does not read: {other:?}"),
    }
}

/// The three parsers a prefixed input may meet: a named format, a detected one recognising the
/// prefix per line, a detected one told the prefix.
fn parsers(format: Format, prefix: Prefix) -> [LineParser; 3] {
    [
        LineParser::new(format, &FieldMap::new()),
        LineParser::detected(format, &FieldMap::new()),
        LineParser::detected(format, &FieldMap::new()).with_prefix(Some(prefix)),
    ]
}

/// Checks that the prefixed records of `line` read as the bare line does, pieces as nothing.
fn check_wrapped(format: Format, line: &str, prefix: Prefix, name: &str, wrapped: &[String]) {
    let want = bare(format, line);
    for parser in parsers(format, prefix) {
        let read = read_all(&parser, wrapped);
        let (last, pieces) = read.split_last().expect("a record");
        assert_eq!(
            last,
            &Ok(Some(want.clone())),
            "{name} {format}: {wrapped:#?}"
        );
        assert!(pieces.iter().all(|p| *p == Ok(None)), "{name}: {read:?}");
    }
}

#[test]
fn every_prefix_before_every_format_reads_as_without_it() {
    for &(format, line) in SAMPLES {
        for &(prefix, name, wrap) in WRAPS {
            if ambiguous(name, format) {
                continue;
            }
            check_wrapped(format, line, prefix, name, &wrap(line, &[]));
            // Detection sees through the prefix, and names it.
            let mut detector = Detector::new();
            let wrapped = wrap(line, &[]).join("\n");
            detector.feed(wrapped.as_bytes());
            let detected = Format::detect(line.as_bytes());
            assert_eq!(detector.finish(), detected, "{name} {format}");
            assert_eq!(detector.prefix(), Some(prefix), "{name} {format}");
        }
    }
}

#[test]
fn a_stream_whose_prefix_changes_reads_every_line_as_without_it() {
    // Each sample behind a prefix (a CRI or docker line split in two), then bare, the prefix
    // changing from line to line: the prefixed line reads as the bare one after it does.
    let lines: Vec<(bool, String)> = SAMPLES
        .iter()
        .zip(WRAPS.iter().cycle())
        .flat_map(|(&(_, line), &(_, _, wrap))| {
            let wrapped = wrap(line, &[line.len() / 2]).into_iter().map(|l| (true, l));
            wrapped.chain([(false, line.to_owned())])
        })
        .collect();
    let text: Vec<String> = lines.iter().map(|(_, line)| line.clone()).collect();
    for parser in [
        LineParser::detected(Format::Combined, &FieldMap::new()),
        LineParser::detected(Format::Haproxy, &FieldMap::new()).with_prefix(Some(Prefix::Cri)),
    ] {
        let read = read_all(&parser, &text);
        let mut read_ok = 0;
        let mut pending = None;
        for ((prefixed, line), read) in lines.iter().zip(read) {
            match (prefixed, read) {
                (true, Ok(None)) => {}
                (true, read) => pending = Some(read),
                (false, read) => {
                    assert_eq!(pending.take(), Some(read.clone()), "{line}");
                    read_ok += usize::from(matches!(read, Ok(Some(_))));
                }
            }
        }
        assert!(read_ok >= SAMPLES.len() - 1, "{read_ok}");
    }
}

#[test]
fn prefixed_junk_is_skipped_as_junk() {
    let parser = LineParser::detected(Format::Combined, &FieldMap::new());
    let lines = [
        "Nov 20 01:00:00 lb haproxy[14389]: Proxy www started.".to_owned(),
        "web-1  | Attaching to web-1".to_owned(),
        "2026-11-20T01:00:00Z stderr F panic: at the disco".to_owned(),
        "Nov 20 01:00:00 web kernel: [12.5] eth0: link up".to_owned(),
    ];
    assert!(
        read_all(&parser, &lines)
            .iter()
            .all(|read| *read == Err(SkipReason::WrongFormat))
    );
}

/// Reads `input` through the reader with small blocks, detecting format and prefix, and
/// returns every request.
fn read_input(input: &[u8], block_size: usize) -> Vec<String> {
    let mut reader = LogReader::from_reader(std::io::Cursor::new(input.to_vec()))
        .unwrap()
        .with_block_size(block_size);
    let (mut parser, mut scratch, mut read) = (None::<LineParser>, Scratch::new(), Vec::new());
    while let Some(block) = reader.next_block().unwrap() {
        let parser = parser.get_or_insert_with(|| {
            let detection = reader.detect(&block).expect("detected");
            LineParser::detected(detection.format, &FieldMap::new()).with_prefix(detection.prefix)
        });
        let mut state = parser.block_state(&block);
        for (_, line) in block.lines() {
            if let Ok(Some(request)) = parser.parse(line, &mut state, &mut scratch) {
                read.push(owned(&request));
            }
        }
    }
    read
}

/// Every line of `input` read through the reader as the audit reads it, block by block: what
/// each line that is no piece of a record read as (a request's target, or why it was skipped).
fn outcomes(input: &[u8]) -> Vec<Result<String, SkipReason>> {
    outcomes_in_blocks(input, DEFAULT_BLOCK_SIZE)
}

/// [`outcomes`] through blocks of `block_size` bytes, the records left open where the input
/// ends read last.
fn outcomes_in_blocks(input: &[u8], block_size: usize) -> Vec<Result<String, SkipReason>> {
    let mut reader = LogReader::from_reader(std::io::Cursor::new(input.to_vec()))
        .unwrap()
        .with_block_size(block_size);
    let parser = LineParser::new(Format::Combined, &FieldMap::new()).with_prefix(Some(Prefix::Cri));
    let (mut scratch, mut read) = (Scratch::new(), Vec::new());
    let outcome = |parsed: Result<Option<Request<'_>>, SkipReason>| match parsed {
        Ok(Some(request)) => Some(Ok(String::from_utf8_lossy(request.target).into())),
        Ok(None) => None,
        Err(reason) => Some(Err(reason)),
    };
    while let Some(block) = reader.next_block().unwrap() {
        let mut state = parser.block_state(&block);
        for (_, line) in block.lines() {
            read.extend(outcome(parser.parse(line, &mut state, &mut scratch)));
        }
        if block.ends_input {
            while let Some(parsed) = parser.finish(&mut state, &mut scratch) {
                read.extend(outcome(parsed));
            }
        }
    }
    read
}

#[test]
fn records_left_open_where_the_input_ends_are_read_as_lines() {
    // A log rotated between partial records and their continuations: stdout's record holds a
    // whole line, stderr's is cut inside its user-agent. Whatever the blocks, each is read
    // once, as what was joined of it, after the lines before.
    let (whole, cut) = (SAMPLES[0].1, &SAMPLES[0].1[..100]);
    let input = format!(
        "2026-11-20T01:00:00Z stdout F {whole}\n\
         2026-11-20T01:00:01Z stdout P {}\n\
         2026-11-20T01:00:01Z stderr P {cut}\n\
         2026-11-20T01:00:01Z stdout P {}\n",
        &whole[..40],
        &whole[40..],
    );
    for block_size in [1, 64, 200, DEFAULT_BLOCK_SIZE] {
        assert_eq!(
            outcomes_in_blocks(input.as_bytes(), block_size),
            [
                Ok("/a?b=1".to_owned()),
                Ok("/a?b=1".to_owned()),
                Err(SkipReason::BadQuoting)
            ],
            "blocks of {block_size} bytes"
        );
    }
    // A record closed before the end is read where it closes, and nothing is left.
    let closed = format!("{input}2026-11-20T01:00:02Z stderr F {}\n", &whole[100..]);
    assert_eq!(
        outcomes_in_blocks(closed.as_bytes(), 64),
        [
            Ok("/a?b=1".to_owned()),
            Ok("/a?b=1".to_owned()),
            Ok("/a?b=1".to_owned())
        ]
    );
}

#[test]
fn a_record_joined_past_the_line_cap_is_skipped_once_whatever_the_blocks() {
    // One line of stdout cut by the runtime into 16 KiB records whose lines hold more than a
    // block may (4 MiB), the other stream writing between them: the block is cut inside the
    // record, and what the next block holds of it is no line of its own. Its records each
    // start like a request, so that a piece read on its own would be one.
    let piece = format!(
        r#"192.0.2.1 - - [20/Nov/2026:01:00:00 +0000] "GET /forged HTTP/1.1" 200 1 "-" "{}"#,
        "x".repeat(16 * 1024)
    );
    let mut input = String::new();
    for i in 0..(5 << 20) / piece.len() {
        input.push_str(&format!("2026-11-20T01:00:00Z stdout P {piece}\n"));
        if i % 7 == 0 {
            input.push_str("2026-11-20T01:00:00Z stderr F warning\n");
        }
    }
    input.push_str("2026-11-20T01:00:00Z stdout F \"\n");
    input.push_str(&format!("2026-11-20T01:00:01Z stdout F {}\n", SAMPLES[0].1));
    let read = outcomes(input.as_bytes());
    let warnings = read
        .iter()
        .filter(|r| **r == Err(SkipReason::WrongFormat))
        .count();
    let rest: Vec<_> = read
        .iter()
        .filter(|r| **r != Err(SkipReason::WrongFormat))
        .collect();
    assert!(warnings > 0);
    assert_eq!(rest, [&Err(SkipReason::TooLong), &Ok("/a?b=1".to_owned())]);
}

fn sample_line() -> impl Strategy<Value = (Format, &'static str)> {
    proptest::sample::select(SAMPLES)
}

proptest! {
    /// Any line, split into records anywhere, by CRI or docker, read through blocks of any
    /// size: the same requests as the bare lines, none lost at a block's end.
    #[test]
    fn partial_records_join_across_blocks(
        (format, _) in sample_line(),
        records in proptest::collection::vec(
            (any::<proptest::sample::Index>(), proptest::collection::vec(0usize..400, 0..6), any::<bool>()),
            1..12,
        ),
        noise in proptest::collection::vec(any::<bool>(), 64),
        block_size in 1usize..600,
    ) {
        // The lines of one input are of one format, each split into records anywhere, by CRI
        // or docker, with the other stream's lines (not requests) between records anywhere.
        let samples: Vec<&str> = SAMPLES.iter().filter(|(f, _)| *f == format).map(|(_, l)| *l).collect();
        let mut input = String::new();
        let mut want = Vec::new();
        for (index, mut cuts, docker) in records {
            let line = *index.get(&samples);
            cuts.sort_unstable();
            let wrap = if docker { WRAPS[9].2 } else { WRAPS[8].2 };
            for record in wrap(line, &cuts) {
                input.push_str(&record);
                input.push('\n');
                if noise[input.len() % noise.len()] {
                    input.push_str(if docker {
                        r#"{"log":"warning: slow\n","stream":"stderr","time":"2026-11-20T01:00:00Z"}"#
                    } else {
                        "2026-11-20T01:00:00Z stderr F warning: slow"
                    });
                    input.push('\n');
                }
            }
            want.push(bare(format, line));
        }
        prop_assert_eq!(read_input(input.as_bytes(), block_size), want);
    }

    /// A prefix added to any valid line, split anywhere where the prefix can, reads as the
    /// line does.
    #[test]
    fn a_prefix_added_to_any_line_reads_the_same(
        (format, line) in sample_line(),
        wrap in 0..WRAPS.len(),
        mut cuts in proptest::collection::vec(0usize..400, 0..8),
    ) {
        cuts.sort_unstable();
        let (prefix, name, wrap) = WRAPS[wrap];
        prop_assume!(!ambiguous(name, format));
        check_wrapped(format, line, prefix, name, &wrap(line, &cuts));
    }
}

/// The shared data folder: `ROBOTS_AUDIT_DATA`, or `../shared/data` beside the repository.
fn data_root() -> std::path::PathBuf {
    match std::env::var_os("ROBOTS_AUDIT_DATA") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    }
}

/// Real logs (the shared data folder's, when it is there) behind every prefix, long lines cut
/// into partial records, read through blocks: the same requests as the bare logs.
#[test]
fn real_logs_behind_every_prefix_read_as_without_it() {
    let files = [
        "logs/elastic_apache_logs_semicomplete_2015.log",
        "logs/almhuette_raith_2019-10_last10000.log",
        "logs/caddy_json_mirrors_tnonline.log",
    ];
    for file in files {
        let path = data_root().join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!(
                "skipped: {} is absent (the shared data is not in the repository)",
                path.display()
            );
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().take(2_000).collect();
        let bare_input = lines.join("\n");
        let want = read_input(bare_input.as_bytes(), 1 << 16);
        assert!(
            want.len() * 100 >= lines.len() * 99,
            "{file}: {} of {}",
            want.len(),
            lines.len()
        );
        for &(_, name, wrap) in WRAPS {
            let mut input = String::new();
            for (i, line) in lines.iter().enumerate() {
                // Every third line cut into records of about 100 bytes where the prefix can.
                let cuts: Vec<usize> = if i % 3 == 0 {
                    (1..=line.len() / 100).map(|k| k * 100).collect()
                } else {
                    Vec::new()
                };
                for record in wrap(line, &cuts) {
                    input.push_str(&record);
                    input.push('\n');
                }
            }
            for block_size in [4096, 1 << 20] {
                let got = read_input(input.as_bytes(), block_size);
                let first_difference = got.iter().zip(&want).position(|(g, w)| g != w);
                assert_eq!(
                    (got.len(), first_difference.map(|i| (&got[i], &want[i]))),
                    (want.len(), None),
                    "{file} behind {name}, blocks of {block_size}"
                );
            }
        }
    }
}
