//! LogReader end to end: compression detection, damage, and hostile input.

use std::io::{self, Read, Write};

use flate2::write::GzEncoder;
use robots_audit_logs::{
    Block, BlockState, Compression, Decoding, FieldMap, Format, LineParser, LogReader,
    MAX_LINE_LEN, ReadError, Scratch, SkipReason, Source,
};

fn log_lines(count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..count {
        writeln!(
            out,
            r#"192.0.2.{} - - [10/Oct/2024:13:55:{:02} +0000] "GET /page/{i}?q={} HTTP/1.1" 200 {} "-" "ExampleBot/{}.0""#,
            i % 250,
            i % 60,
            i * 7,
            i * 13,
            i % 9
        )
        .unwrap();
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// Every block, then the error if the input ended in one.
fn read_all(
    input: Vec<u8>,
    block_size: usize,
) -> (Compression, Vec<Block>, Option<ReadError>, LogReader) {
    let mut reader = LogReader::from_reader(io::Cursor::new(input))
        .unwrap()
        .with_block_size(block_size);
    let compression = reader.compression();
    let mut blocks = Vec::new();
    let error = loop {
        match reader.next_block() {
            Ok(Some(block)) => blocks.push(block),
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    (compression, blocks, error, reader)
}

fn joined(blocks: &[Block]) -> Vec<u8> {
    blocks.iter().flat_map(|b| b.data.iter().copied()).collect()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    liblzma::read::XzEncoder::new(data, 3)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bzip2::read::BzEncoder::new(data, bzip2::Compression::fast())
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn plain_gzip_multi_member_gzip_and_zstd_read_the_same() {
    let data = log_lines(10_000);
    let (first, second) = data.split_at(data.len() / 3 + 17);
    let multi_member = [gzip(first), gzip(second)].concat();
    let multi_frame = [
        zstd::encode_all(first, 3).unwrap(),
        zstd::encode_all(second, 1).unwrap(),
    ]
    .concat();
    let cases = [
        (data.clone(), Compression::Plain),
        (gzip(&data), Compression::Gzip),
        (multi_member, Compression::Gzip),
        (zstd::encode_all(&data[..], 3).unwrap(), Compression::Zstd),
        (multi_frame, Compression::Zstd),
        (xz(&data), Compression::Xz),
        ([xz(first), xz(second)].concat(), Compression::Xz),
        (bzip2(&data), Compression::Bzip2),
        ([bzip2(first), bzip2(second)].concat(), Compression::Bzip2),
    ];
    for (input, want) in cases {
        let size = input.len() as u64;
        let (compression, blocks, error, reader) = read_all(input, 64 * 1024);
        assert_eq!(compression, want);
        assert_eq!(error, None, "{want}");
        assert_eq!(joined(&blocks), data, "{want}");
        assert!(blocks.len() >= 4, "{want}: {} blocks", blocks.len());
        assert_eq!(reader.bytes(), data.len() as u64);
        assert_eq!(reader.compressed_bytes_read(), size, "{want}");
        let numbers: Vec<u64> = blocks
            .iter()
            .flat_map(|b| b.lines().map(|(n, _)| n))
            .collect();
        assert_eq!(numbers, (1..=10_000).collect::<Vec<u64>>());
    }
}

/// What a reader of `path` hands out: its lines joined (blocks are cut where reads end, which
/// differs between decoders), the error it ended on, the decompressed bytes it accounted for
/// and its fingerprint.
#[derive(PartialEq)]
struct Reading {
    data: Vec<u8>,
    lines: u64,
    error: Option<ReadError>,
    bytes: u64,
    fingerprint: u128,
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} bytes of data, {} lines, {:?}, {} bytes, {:x}",
            self.data.len(),
            self.lines,
            self.error,
            self.bytes,
            self.fingerprint
        )
    }
}

fn read_file(path: &std::path::Path, decoding: &Decoding) -> Reading {
    let mut reader = LogReader::open_with(&Source::Path(path.to_path_buf()), decoding)
        .unwrap()
        .with_block_size(64 * 1024);
    let mut blocks = Vec::new();
    let error = loop {
        match reader.next_block() {
            Ok(Some(block)) => blocks.push(block),
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    let mut expected_line = 1;
    for block in &blocks {
        assert_eq!(block.first_line, expected_line);
        expected_line += block.line_count();
    }
    Reading {
        data: joined(&blocks),
        lines: expected_line - 1,
        error,
        bytes: reader.bytes(),
        fingerprint: reader.fingerprint(),
    }
}

/// Gzip files opened for the parallel decoder read as they do serially: the same blocks, the
/// same damage at the same offset, the same fingerprint. Files this small are inflated serially
/// by the decoder's own choice and handed back to flate2 (the decoder's threads are tested in
/// `crates/logs/src/gzip.rs`); standard input and other compressions never go there.
#[test]
fn the_parallel_path_reads_what_the_serial_path_reads() {
    let data = log_lines(30_000);
    let (first, second) = data.split_at(data.len() / 3 + 17);
    let whole = gzip(&data);
    let cases = [
        ("one member", whole.clone()),
        ("two members", [gzip(first), gzip(second)].concat()),
        ("cut short", whole[..whole.len() * 3 / 5].to_vec()),
        ("cut in the first kilobytes", whole[..3000].to_vec()),
        ("garbage after", [&whole[..], b"junk\n"].concat()),
        (
            "a junk header",
            vec![0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        ),
        ("zstd", zstd::encode_all(&data[..], 1).unwrap()),
        ("plain", data.clone()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let parallel = Decoding::parallel(2).parallel_from(0);
    for (what, input) in cases {
        let path = dir.path().join("access.log.gz");
        std::fs::write(&path, &input).unwrap();
        let serial = read_file(&path, &Decoding::serial());
        assert_eq!(read_file(&path, &parallel), serial, "{what}");
        if serial.error.is_none() {
            assert!(serial.data == data, "{what}");
        }
        let mut reader = LogReader::open_with(&Source::Path(path), &parallel).unwrap();
        while reader.next_block().is_ok_and(|block| block.is_some()) {}
        if serial.error.is_none() {
            assert_eq!(reader.compressed_bytes_read(), input.len() as u64, "{what}");
        }
    }
}

#[test]
fn files_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.log");
    std::fs::write(&empty, b"").unwrap();
    let mut reader = LogReader::open(&Source::Path(empty)).unwrap();
    assert_eq!(reader.compression(), Compression::Plain);
    assert_eq!(reader.next_block(), Ok(None));
    assert_eq!(reader.bytes(), 0);

    let empty_gzip = dir.path().join("empty.log.gz");
    std::fs::write(&empty_gzip, gzip(b"")).unwrap();
    let mut reader = LogReader::open(&Source::Path(empty_gzip)).unwrap();
    assert_eq!(reader.compression(), Compression::Gzip);
    assert_eq!(reader.next_block(), Ok(None));

    // The name says nothing: a gzip file called .log is gzip.
    let misnamed = dir.path().join("access.log");
    std::fs::write(&misnamed, gzip(b"a\nb\n")).unwrap();
    let mut reader = LogReader::open(&Source::Path(misnamed)).unwrap();
    assert_eq!(reader.compression(), Compression::Gzip);
    assert_eq!(
        reader.next_block().unwrap().map(|b| b.data),
        Some(b"a\nb\n".to_vec())
    );

    let missing = LogReader::open(&Source::Path(dir.path().join("missing.log")));
    assert_eq!(
        missing.map(|_| ()).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
}

/// The lines delivered before damage are exactly the complete lines at the start of `data`.
fn assert_clean_prefix(data: &[u8], blocks: &[Block], error: &ReadError) {
    let delivered = joined(blocks);
    assert!(data.starts_with(&delivered));
    assert!(delivered.is_empty() || delivered.ends_with(b"\n"));
    assert_eq!(error.offset, delivered.len() as u64);
    assert!((error.offset as usize) < data.len());
}

#[test]
fn truncated_gzip_keeps_the_lines_before_the_cut() {
    let data = log_lines(20_000);
    let compressed = gzip(&data);
    let cut = compressed.get(..compressed.len() * 3 / 5).unwrap().to_vec();
    let (compression, blocks, error, mut reader) = read_all(cut, 64 * 1024);
    assert_eq!(compression, Compression::Gzip);
    let error = error.expect("a truncated stream is an error");
    assert!(error.message.starts_with("gzip: "), "{}", error.message);
    assert_clean_prefix(&data, &blocks, &error);
    assert!(
        error.offset as usize > data.len() / 3,
        "most of the data before the cut is kept: {}",
        error.offset
    );
    assert_eq!(reader.bytes(), error.offset);
    assert_eq!(reader.next_block(), Ok(None), "finished after the error");
}

#[test]
fn truncated_and_corrupt_zstd() {
    let data = log_lines(20_000);
    let compressed = zstd::encode_all(&data[..], 3).unwrap();
    let cut = compressed.get(..compressed.len() / 2).unwrap().to_vec();
    let (_, blocks, error, _) = read_all(cut, 64 * 1024);
    let error = error.expect("truncated zstd is an error");
    assert!(error.message.starts_with("zstd: "), "{}", error.message);
    assert_clean_prefix(&data, &blocks, &error);

    let mut corrupt = compressed;
    let middle = corrupt.len() / 2;
    for byte in corrupt.get_mut(middle..middle + 64).unwrap() {
        *byte ^= 0x5a;
    }
    let (_, blocks, error, _) = read_all(corrupt, 64 * 1024);
    assert_clean_prefix(&data, &blocks, &error.expect("corrupt zstd is an error"));
}

#[test]
fn truncated_and_corrupt_xz_and_bzip2_keep_the_lines_before_the_damage() {
    // bzip2 blocks hold 100 kB with `fast`: enough lines that several blocks come before the
    // damage.
    let data = log_lines(15_000);
    type Compress = fn(&[u8]) -> Vec<u8>;
    let cases: [(Compress, &str); 2] = [(xz, "xz: "), (bzip2, "bzip2: ")];
    for (compress, prefix) in cases {
        let compressed = compress(&data);
        let cut = compressed.get(..compressed.len() * 3 / 5).unwrap().to_vec();
        let (_, blocks, error, mut reader) = read_all(cut, 64 * 1024);
        let error = error.expect("a truncated stream is an error");
        assert!(error.message.starts_with(prefix), "{}", error.message);
        assert_clean_prefix(&data, &blocks, &error);
        assert!(
            error.offset as usize > data.len() / 4,
            "{prefix}most of the data before the cut is kept: {}",
            error.offset
        );
        assert_eq!(reader.next_block(), Ok(None), "finished after the error");

        let mut corrupt = compressed;
        let middle = corrupt.len() / 2;
        for byte in corrupt.get_mut(middle..middle + 64).unwrap() {
            *byte ^= 0x5a;
        }
        let (_, blocks, error, _) = read_all(corrupt, 64 * 1024);
        let error = error.expect("a corrupt stream is an error");
        assert_clean_prefix(&data, &blocks, &error);
        // A second stream cut short after a whole first one.
        let (first, second) = data.split_at(data.len() / 2);
        let mut second = compress(second);
        second.truncate(second.len() / 2);
        let (_, blocks, error, _) = read_all([compress(first), second].concat(), 1024);
        let error = error.expect("the second stream is cut");
        assert_clean_prefix(&data, &blocks, &error);
        assert!(error.offset as usize >= first.len(), "{prefix}");
    }
}

#[test]
fn gzip_with_a_damaged_second_member() {
    let data = log_lines(2_000);
    let (first, second) = data.split_at(data.len() / 2);
    let mut second = gzip(second);
    second.truncate(second.len() / 2);
    let (_, blocks, error, _) = read_all([gzip(first), second].concat(), 1024);
    let error = error.expect("the second member is cut");
    assert_clean_prefix(&data, &blocks, &error);
    assert!(error.offset as usize >= first.len());
}

#[test]
fn a_gzip_header_followed_by_junk_is_an_error_at_offset_zero() {
    let (compression, blocks, error, _) = read_all(
        vec![0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        1024,
    );
    assert_eq!(compression, Compression::Gzip);
    assert!(blocks.is_empty());
    assert_eq!(error.map(|e| e.offset), Some(0));
}

/// A deterministic byte soup (xorshift), to stand in for binary junk.
fn junk(len: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

fn parse_all(format: Format, blocks: &[Block]) -> (u64, Vec<(u64, SkipReason)>) {
    let parser = LineParser::new(format, &FieldMap::new());
    let mut scratch = Scratch::new();
    let (mut parsed, mut skipped) = (0, Vec::new());
    for block in blocks {
        let mut state = parser.block_state(block);
        for (number, line) in block.lines() {
            match parser.parse(line, &mut state, &mut scratch) {
                Ok(Some(_)) => parsed += 1,
                Ok(None) => {}
                Err(reason) => skipped.push((number, reason)),
            }
        }
    }
    (parsed, skipped)
}

#[test]
fn binary_junk_is_read_and_skipped_by_every_parser() {
    let data = junk(3 << 20);
    let (compression, blocks, error, _) = read_all(data.clone(), 64 * 1024);
    assert_eq!((compression, error), (Compression::Plain, None));
    assert_eq!(joined(&blocks), data);
    assert_eq!(
        Format::detect(blocks.first().map_or(&[][..], |b| &b.data)),
        None
    );
    for format in Format::ALL {
        let (parsed, skipped) = parse_all(format, &blocks);
        assert_eq!(parsed, 0, "{format}");
        assert!(!skipped.is_empty(), "{format}");
    }
}

#[test]
fn a_one_mebibyte_line_is_kept_whole() {
    let long = format!(
        r#"192.0.2.1 - - [10/Oct/2024:13:55:36 +0000] "GET /{} HTTP/1.1" 200 1 "-" "LongBot/1.0""#,
        "a".repeat(1 << 20)
    );
    let data = [long.as_bytes(), b"\n", &log_lines(3)].concat();
    let (_, blocks, error, _) = read_all(data, 64 * 1024);
    assert_eq!(error, None);
    let lines: Vec<(u64, usize)> = blocks
        .iter()
        .flat_map(|b| b.lines().map(|(n, l)| (n, l.len())))
        .collect();
    assert_eq!(lines.first(), Some(&(1, long.len())));
    assert_eq!(lines.len(), 4);
    let (parsed, skipped) = parse_all(Format::Combined, &blocks);
    assert_eq!((parsed, skipped), (4, vec![]));
}

#[test]
fn an_over_long_line_is_cut_and_skipped_and_the_next_lines_survive() {
    for extra in [0, 1, 10, 300_000] {
        let data = [&vec![b'x'; MAX_LINE_LEN + extra][..], b"\n", &log_lines(2)].concat();
        let (_, blocks, error, reader) = read_all(data.clone(), 64 * 1024);
        assert_eq!(error, None);
        assert_eq!(reader.bytes(), data.len() as u64);
        let lines: Vec<(u64, usize)> = blocks
            .iter()
            .flat_map(|b| b.lines().map(|(n, l)| (n, l.len())))
            .collect();
        assert_eq!(lines.first(), Some(&(1, MAX_LINE_LEN)), "extra {extra}");
        assert_eq!(lines.len(), 3);
        let (parsed, skipped) = parse_all(Format::Combined, &blocks);
        assert_eq!(
            (parsed, skipped),
            (2, vec![(1, SkipReason::TooLong)]),
            "extra {extra}"
        );
    }
    let just_under = [&vec![b'x'; MAX_LINE_LEN - 1][..], b"\nnext\n"].concat();
    let (_, blocks, _, _) = read_all(just_under, 64 * 1024);
    let lines: Vec<usize> = blocks
        .iter()
        .flat_map(|b| b.lines().map(|(_, l)| l.len()))
        .collect();
    assert_eq!(lines, [MAX_LINE_LEN - 1, 4]);
}

#[test]
fn crlf_nul_and_invalid_utf8() {
    let lf = log_lines(50);
    let crlf: Vec<u8> = lf
        .iter()
        .flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        })
        .collect();
    let (_, lf_blocks, _, _) = read_all(lf, 1024);
    let (_, crlf_blocks, _, _) = read_all(crlf, 1024);
    assert_eq!(parse_all(Format::Combined, &crlf_blocks), (50, vec![]));
    let lf_lines: Vec<Vec<u8>> = lf_blocks
        .iter()
        .flat_map(|b| b.lines().map(|(_, l)| l.to_vec()))
        .collect();
    let crlf_lines: Vec<Vec<u8>> = crlf_blocks
        .iter()
        .flat_map(|b| b.lines().map(|(_, l)| l.to_vec()))
        .collect();
    assert_eq!(lf_lines, crlf_lines);

    let parser = LineParser::new(Format::Combined, &FieldMap::new());
    let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    let nul = b"192.0.2.1 - - [10/Oct/2024:13:55:36 +0000] \"GET /a\x00b HTTP/1.1\" 200 1 \"-\" \"Bot\x00/1\xff\xfe\"";
    let request = parser
        .parse(nul, &mut state, &mut scratch)
        .unwrap()
        .unwrap();
    assert_eq!(request.target, b"/a\x00b");
    assert_eq!(request.user_agent.raw, b"Bot\x00/1\xff\xfe");
    assert_eq!(
        parser.parse(b"\x00\x00\x00\x00", &mut state, &mut scratch),
        Err(SkipReason::WrongFormat)
    );

    let json = LineParser::new(Format::Json, &FieldMap::new());
    let line = b"{\"time\":1700000000,\"path\":\"/\xc3\x28\",\"user_agent\":\"Bot\x00\"}";
    assert_eq!(
        json.parse(line, &mut state, &mut scratch),
        Err(SkipReason::BadJson),
        "a raw NUL is not JSON"
    );
    let line = b"{\"time\":1700000000,\"path\":\"/\xc3\x28\",\"user_agent\":\"Bot\\u0000\"}";
    let request = json.parse(line, &mut state, &mut scratch).unwrap().unwrap();
    assert_eq!(request.target, "/\u{fffd}(".as_bytes());
    assert_eq!(request.user_agent.raw, b"Bot\x00");
}

#[test]
fn detection_reads_the_first_block_of_each_fixture_compressed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let cases = [
        ("combined.log", Format::Combined),
        ("w3c.log", Format::W3c),
        ("cloudfront.log", Format::Cloudfront),
        ("alb.log", Format::Alb),
        ("caddy.log", Format::Caddy),
        ("logpush.log", Format::Json),
        ("crawl.log", Format::Crawl),
    ];
    for (name, format) in cases {
        let plain = std::fs::read(dir.join(name)).unwrap();
        for input in [gzip(&plain), zstd::encode_all(&plain[..], 1).unwrap()] {
            let (_, blocks, _, _) = read_all(input, 1 << 20);
            assert_eq!(
                blocks.first().and_then(|b| Format::detect(&b.data)),
                Some(format),
                "{name}"
            );
        }
    }
}

#[test]
fn the_reader_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Send + Sync>() {}
    assert_send::<LogReader>();
    assert_send::<Block>();
    assert_sync::<LineParser>();
    let mut reader = LogReader::from_reader(io::Cursor::new(log_lines(10))).unwrap();
    let lines = std::thread::spawn(move || reader.next_block().unwrap().map(|b| b.line_count()))
        .join()
        .unwrap();
    assert_eq!(lines, Some(10));
}
