//! Fuzz target `decompress`: arbitrary bytes through `LogReader`, as a file's content.
//!
//! The reader sniffs the compression (gzip, zstd, xz, bzip2 or plain), decompresses and cuts
//! blocks until the end or an error. Checked on every input:
//!
//! - no panic; after an error the reader is finished and stays finished;
//! - blocks are non-empty, numbered consecutively, end at a line end (all but the last), and
//!   each stays within `block size + MAX_LINE_LEN + one read`: memory does not grow with the
//!   input (libFuzzer's `-rss_limit_mb` guards the rest);
//! - nothing is lost or invented: when no line reaches `MAX_LINE_LEN`, the blocks joined are
//!   exactly the stream decoded directly with flate2, zstd, liblzma or bzip2 (up to the last
//!   complete line before any damage), and `bytes()` counts them;
//! - a gzip input, written to a file and read through the parallel decoder on two threads (as
//!   `audit --threads 3` reads a big gzip file), fails exactly when the serial reading does and
//!   delivers the same lines up to where the first of the two stopped, all of them when neither
//!   fails.
//!
//! Decompression bombs are cut off after [`MAX_OUTPUT`] bytes on both sides.

#![no_main]
#![warn(missing_docs)]

use std::io::{BufReader, Cursor, Read};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use robots_audit::logs::{Compression, Decoding, LogReader, MAX_LINE_LEN, Source};

/// Small blocks, so that short inputs still cut several.
const BLOCK_SIZE: usize = 512;
/// What the reader asks of the decompressor per read (crates/logs/src/chunk.rs `READ_SIZE`).
const READ_SIZE: usize = 64 * 1024;
/// The bytes the reader sniffs before it chooses a decompressor: xz's magic is the longest
/// (crates/logs/src/open.rs `MAGIC_LEN`). Fewer would read an xz file as plain text here.
const MAGIC_LEN: usize = 6;
/// Decompressed bytes after which both sides stop.
const MAX_OUTPUT: usize = 32 << 20;
/// The most memory the reader lets the xz decoder take (crates/logs/src/open.rs
/// `XZ_MEMORY_LIMIT`): a stream whose header names a bigger dictionary is damage on both sides.
const XZ_MEMORY_LIMIT: u64 = (128 << 20) + (1 << 20);

/// The stream decoded directly, and whether decoding failed before the end.
///
/// The compressed bytes reach the decoder as the reader hands them over (the sniffed magic
/// first, then the rest through a 256 KiB buffer), because a decoder that fails drops the output
/// of the failing call, so how much comes out before damage depends on the input's chunks.
fn decode_directly(data: &[u8]) -> (Vec<u8>, bool) {
    let (magic, rest) = data.split_at(data.len().min(MAGIC_LEN));
    let input = BufReader::with_capacity(256 * 1024, Cursor::new(magic).chain(rest));
    let mut decoder: Box<dyn Read> = match Compression::sniff(magic) {
        Compression::Plain => return (data.to_vec(), false),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
        Compression::Zstd => match zstd::stream::read::Decoder::with_buffer(input) {
            Ok(decoder) => Box::new(decoder),
            Err(_) => return (Vec::new(), true),
        },
        Compression::Xz => match liblzma::stream::Stream::new_stream_decoder(
            XZ_MEMORY_LIMIT,
            liblzma::stream::CONCATENATED,
        ) {
            Ok(stream) => Box::new(liblzma::bufread::XzDecoder::new_stream(input, stream)),
            Err(_) => return (Vec::new(), true),
        },
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
    };
    let mut out = Vec::new();
    let mut buffer = vec![0; READ_SIZE];
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) => return (out, false),
            Ok(n) => {
                out.extend_from_slice(&buffer[..n]);
                if out.len() > MAX_OUTPUT {
                    return (out, true);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return (out, true),
        }
    }
}

/// The decoder threads every input shares, as the files of a run do.
fn parallel_decoding() -> &'static Decoding {
    static DECODING: OnceLock<Decoding> = OnceLock::new();
    DECODING.get_or_init(|| Decoding::parallel(2).parallel_from(0))
}

/// `data` as a file read through the parallel decoder: its blocks joined (up to about
/// [`MAX_OUTPUT`] bytes) and whether the reading failed.
fn read_in_parallel(data: &[u8]) -> (Vec<u8>, bool) {
    let path = std::env::temp_dir().join(format!("robots-audit-fuzz-{}.gz", std::process::id()));
    std::fs::write(&path, data).expect("the input is written to a file");
    let mut reader = LogReader::open_with(&Source::Path(path), parallel_decoding())
        .expect("the file opens")
        .with_block_size(BLOCK_SIZE);
    let mut joined = Vec::new();
    loop {
        match reader.next_block() {
            Ok(Some(block)) if joined.len() <= MAX_OUTPUT => joined.extend_from_slice(&block.data),
            Ok(_) => return (joined, false),
            Err(_) => return (joined, true),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut reader = LogReader::from_reader(Cursor::new(data.to_vec()))
        .expect("an in-memory source opens")
        .with_block_size(BLOCK_SIZE);
    let mut joined = Vec::new();
    let mut next_line = 1;
    let mut failed = false;
    let mut last_ended_line = true;
    loop {
        match reader.next_block() {
            Ok(Some(block)) => {
                assert!(!block.data.is_empty(), "blocks are never empty");
                assert!(
                    last_ended_line,
                    "only the last block may end without a line end"
                );
                assert!(
                    block.data.len() <= BLOCK_SIZE + MAX_LINE_LEN + READ_SIZE,
                    "block of {} bytes",
                    block.data.len()
                );
                assert_eq!(
                    block.first_line, next_line,
                    "blocks are numbered consecutively"
                );
                next_line += block.line_count();
                last_ended_line = block.data.last() == Some(&b'\n');
                if joined.len() <= MAX_OUTPUT {
                    joined.extend_from_slice(&block.data);
                } else {
                    break;
                }
            }
            Ok(None) => break,
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    if failed {
        assert_eq!(
            reader.next_block(),
            Ok(None),
            "the reader is finished after an error"
        );
    }
    if joined.len() > MAX_OUTPUT {
        return;
    }
    let (expected, damaged) = decode_directly(data);
    if expected.len() > MAX_OUTPUT
        || expected
            .split(|&b| b == b'\n')
            .any(|line| line.len() + 1 >= MAX_LINE_LEN)
    {
        return;
    }
    assert_eq!(
        failed, damaged,
        "the reader fails exactly when direct decoding does"
    );
    let complete = if damaged {
        expected
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |end| end + 1)
    } else {
        expected.len()
    };
    assert!(
        joined == expected[..complete],
        "blocks ({} bytes) differ from the decoded stream ({complete} of {} bytes)",
        joined.len(),
        expected.len()
    );
    assert_eq!(reader.bytes(), complete as u64);
    if Compression::sniff(data) == Compression::Gzip {
        let (parallel, parallel_failed) = read_in_parallel(data);
        assert_eq!(
            parallel_failed, failed,
            "the parallel path fails exactly when the serial path does"
        );
        let common = parallel.len().min(joined.len());
        assert!(
            parallel[..common] == joined[..common],
            "the parallel path delivers the same lines"
        );
        if !failed {
            assert!(parallel.len() == joined.len(), "and all of them");
        }
    }
});
