//! The logs crate's own costs, one thread at a time: parsing a line of each kind, reading,
//! cutting and parsing a whole input of each compression, and inflating one big gzip file on
//! one thread against the parallel decoder on two, around the size from which the audit uses it
//! (`robots_audit_logs::PARALLEL_FROM`).
//!
//! ```text
//! cargo bench -p robots-audit-logs --bench reading
//! cargo bench -p robots-audit-logs --bench reading -- inflate
//! ```

use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use robots_audit_logs::{
    BlockState, Decoding, FieldMap, Format, LineParser, LogReader, Scratch, Source,
};

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
        .expect("writing to a vector");
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).expect("writing to a vector");
    encoder.finish().expect("writing to a vector")
}

fn parse_lines(c: &mut Criterion) {
    let data = combined_lines(10_000);
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(lines.len() as u64));
    let parser = LineParser::new(Format::Combined, &FieldMap::new());
    let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    group.bench_function("combined line", |b| {
        b.iter(|| {
            let mut parsed = 0u64;
            for line in &lines {
                if let Ok(Some(request)) = parser.parse(black_box(line), &mut state, &mut scratch) {
                    parsed += request.bytes;
                }
            }
            parsed
        })
    });
    let caddy = br#"{"level":"info","ts":1716723772.6014807,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"10.5.1.1","remote_port":"38574","client_ip":"10.10.10.117","proto":"HTTP/2.0","method":"GET","host":"mirrors.example.net","uri":"/gentoo/distfiles/9b/a.tar.xz","headers":{"Accept":["*/*"],"User-Agent":["Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"],"Accept-Encoding":["gzip"]}},"bytes_read":0,"user_id":"","duration":0.017557019,"size":3768,"status":200,"resp_headers":{"Server":["Caddy"],"Content-Type":["application/x-xz"]}}"#;
    let json = LineParser::new(Format::Caddy, &FieldMap::new());
    group.throughput(Throughput::Elements(1));
    group.bench_function("caddy JSON line", |b| {
        b.iter(|| {
            json.parse(black_box(caddy), &mut state, &mut scratch)
                .is_ok()
        })
    });
    group.finish();
}

/// Reading, cutting into blocks and parsing 200,000 lines on one thread.
fn read_and_parse(c: &mut Criterion) {
    let data = combined_lines(200_000);
    let inputs = [
        ("plain", data.clone()),
        ("gzip", gzip(&data)),
        (
            "zstd",
            zstd::encode_all(&data[..], 3).expect("zstd in memory"),
        ),
    ];
    let mut group = c.benchmark_group("read, cut and parse");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    let parser = LineParser::new(Format::Combined, &FieldMap::new());
    for (name, input) in inputs {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut reader =
                    LogReader::from_reader(std::io::Cursor::new(input.clone())).expect("opens");
                let mut scratch = Scratch::new();
                let mut parsed = 0u64;
                while let Some(block) = reader.next_block().expect("whole input") {
                    let mut state = parser.block_state(&block);
                    for (_, line) in block.lines() {
                        if let Ok(Some(_)) = parser.parse(line, &mut state, &mut scratch) {
                            parsed += 1;
                        }
                    }
                    reader.recycle(block.data);
                }
                assert_eq!(parsed, 200_000);
            })
        });
    }
    group.finish();
}

/// Access-log lines with a random client, path and size each, which compress about 6.5 to 1, as
/// real logs may (the throughput benchmark's synthetic night: 4.7 to 1), unlike
/// [`combined_lines`].
fn varied_lines(bytes: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(bytes + 512);
    while out.len() < bytes {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let [a, b, c, d, e, ..] = state.to_le_bytes();
        writeln!(
            out,
            r#"203.0.{a}.{b} - - [10/Oct/2025:13:{:02}:{:02} +0000] "GET /articles/{:x}/page-{c}.html HTTP/1.1" 200 {} "-" "Mozilla/5.0 (compatible; ExampleBot/{}.0)""#,
            d % 60,
            e % 60,
            state >> 40,
            state % 100_000,
            e % 4,
        )
        .expect("writing to a vector");
    }
    out
}

/// Every block of `path`, read with `decoding`; the lines it holds.
fn count_lines(path: &Path, decoding: &Decoding) -> u64 {
    let mut reader =
        LogReader::open_with(&Source::Path(path.to_path_buf()), decoding).expect("opens");
    let mut lines = 0;
    while let Some(block) = reader.next_block().expect("whole input") {
        lines += block.line_count();
        reader.recycle(block.data);
    }
    lines
}

/// One gzip file of 8 to 64 MiB inflated and cut into blocks on one thread, and by the parallel
/// decoder on two. Below 16 MiB the decoder does not speculate: it inflates a first chunk and
/// hands the file back to flate2 (the audit does not give it such files). Under `cargo test
/// --benches` (no `--bench` flag), one small file only, to check that the code runs.
fn inflate(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut group = c.benchmark_group("inflate");
    group.sample_size(10);
    let sizes: &[usize] = if std::env::args().any(|arg| arg == "--bench") {
        &[8, 16, 32, 64]
    } else {
        &[1]
    };
    for &mebibytes in sizes {
        // About 6.5 MiB of lines per MiB of gzip.
        let data = varied_lines(mebibytes * (13 << 19));
        let compressed = gzip(&data);
        let path = dir.path().join(format!("{mebibytes}.log.gz"));
        File::create(&path)
            .and_then(|mut file| file.write_all(&compressed))
            .expect("writing the input");
        group.throughput(Throughput::Bytes(data.len() as u64));
        let size = format!("{:.1} MiB", compressed.len() as f64 / f64::from(1 << 20));
        let serial = Decoding::serial();
        group.bench_with_input(BenchmarkId::new("serial", &size), &path, |b, path| {
            b.iter(|| count_lines(path, &serial))
        });
        let parallel = Decoding::parallel(2).parallel_from(0);
        group.bench_with_input(BenchmarkId::new("2 threads", &size), &path, |b, path| {
            b.iter(|| count_lines(path, &parallel))
        });
    }
    group.finish();
}

criterion_group!(benches, parse_lines, read_and_parse, inflate);
criterion_main!(benches);
