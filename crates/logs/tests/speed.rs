//! Rough speed measurements, ignored by default:
//! `cargo test -p robots-audit-logs --release --test tests speed:: -- --ignored --nocapture`.
//! The budget is only enforced in optimised builds.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, LogReader, Scratch};

/// Distinct combined lines, so that branch predictors cannot learn a single line.
fn combined_lines(count: usize) -> Vec<u8> {
    let agents = [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    ];
    let mut out = Vec::new();
    for i in 0..count {
        writeln!(
            out,
            r#"66.249.{}.{} - - [{:02}/May/2025:{:02}:{:02}:{:02} +0200] "GET /articles/{}/comments?page={} HTTP/1.1" 200 {} "https://www.example.com/" "{}""#,
            i % 256,
            (i * 7) % 256,
            1 + i % 28,
            i % 24,
            i % 60,
            (i * 13) % 60,
            i * 31,
            i % 9,
            1000 + i * 17,
            agents[i % agents.len()],
        )
        .unwrap();
    }
    out
}

fn report(what: &str, lines: u64, bytes: u64, elapsed: Duration) -> f64 {
    let nanos = elapsed.as_nanos() as f64 / lines as f64;
    let mb_per_s = bytes as f64 / elapsed.as_secs_f64() / 1e6;
    println!("{what}: {nanos:.0} ns/line, {mb_per_s:.0} MB/s ({lines} lines)");
    nanos
}

#[test]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
fn clf_hot_path() {
    let data = combined_lines(10_000);
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let parser = LineParser::new(Format::Combined, &FieldMap::new());
    let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    let rounds = 200;
    let started = Instant::now();
    let mut checksum = 0u64;
    for _ in 0..rounds {
        for line in &lines {
            if let Ok(Some(request)) = parser.parse(black_box(line), &mut state, &mut scratch) {
                checksum = checksum
                    .wrapping_add(request.bytes)
                    .wrapping_add(request.user_agent.raw.len() as u64);
            }
        }
    }
    let elapsed = started.elapsed();
    black_box(checksum);
    let per_line = report(
        "combined line parse",
        (lines.len() * rounds) as u64,
        (data.len() * rounds) as u64,
        elapsed,
    );
    if !cfg!(debug_assertions) {
        assert!(per_line < 200.0, "{per_line:.0} ns per line");
    }
}

#[test]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
fn read_and_parse_throughput() {
    let data = combined_lines(200_000);
    let compressed = {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&data).unwrap();
        encoder.finish().unwrap()
    };
    let zstd = zstd::encode_all(&data[..], 3).unwrap();
    for (what, input) in [
        ("plain", data.clone()),
        ("gzip", compressed),
        ("zstd", zstd),
    ] {
        let started = Instant::now();
        let mut reader = LogReader::from_reader(std::io::Cursor::new(input)).unwrap();
        let parser = LineParser::new(Format::Combined, &FieldMap::new());
        let mut scratch = Scratch::new();
        let mut parsed = 0u64;
        while let Some(block) = reader.next_block().unwrap() {
            let mut state = parser.block_state(&block);
            for (_, line) in block.lines() {
                if let Ok(Some(_)) = parser.parse(line, &mut state, &mut scratch) {
                    parsed += 1;
                }
            }
        }
        assert_eq!(parsed, 200_000);
        report(
            &format!("{what}: read + cut + parse, one thread"),
            parsed,
            data.len() as u64,
            started.elapsed(),
        );
    }
}

#[test]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
fn json_parse() {
    let line = br#"{"level":"info","ts":1716723772.6014807,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.5.1.1","remote_port":"38574","client_ip":"10.10.10.117","proto":"HTTP/2.0","method":"GET","host":"mirrors.example.net","uri":"/gentoo/distfiles/9b/a.tar.xz","headers":{"Accept":["*/*"],"User-Agent":["Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"],"Accept-Encoding":["gzip"]}},"bytes_read":0,"user_id":"","duration":0.017557019,"size":3768,"status":200,"resp_headers":{"Server":["Caddy"],"Content-Type":["application/x-xz"]}}"#;
    let parser = LineParser::new(Format::Caddy, &FieldMap::new());
    let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    let rounds = 200_000u64;
    let started = Instant::now();
    for _ in 0..rounds {
        let parsed = parser.parse(black_box(line), &mut state, &mut scratch);
        assert!(matches!(parsed, Ok(Some(_))));
    }
    report(
        "caddy JSON line parse",
        rounds,
        rounds * line.len() as u64,
        started.elapsed(),
    );
}
