//! Memory stays bounded whatever the input: a 100 MB line without a newline must not be held
//! in memory. The allocator of this test binary counts live bytes and remembers the peak.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use flate2::write::GzEncoder;
use robots_audit_logs::{
    FieldMap, Format, LineParser, LogReader, MAX_LINE_LEN, Scratch, SkipReason,
};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, which is passed on as it is.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `length` bytes of one endless line, then `tail`, produced on the fly.
struct HugeLine {
    remaining: u64,
    tail: io::Cursor<&'static [u8]>,
}

impl Read for HugeLine {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.remaining == 0 {
            return self.tail.read(buf);
        }
        let n = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        buf[..n].fill(b'A');
        self.remaining -= n as u64;
        Ok(n)
    }
}

const TAIL: &[u8] = b"\n192.0.2.1 - - [10/Oct/2024:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"TailBot/1.0\"\n";
const HUNDRED_MB: u64 = 100_000_000;

/// The gzip case decompresses in the unoptimised test build, so its line is shorter; at four
/// times the cap it still shows that the line is not held.
const GZIP_MEGABYTES: usize = 16;

/// The counters are global: tests that measure run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads everything, parsing as it goes, and returns (line number, length, parse result) per
/// line and the peak of live heap bytes while doing so.
/// One delivered line: its number, its length, and whether it parsed to a request.
type Line = (u64, usize, Result<bool, SkipReason>);

fn read(reader: LogReader) -> (Vec<Line>, usize) {
    let mut reader = reader;
    let parser = LineParser::new(Format::Combined, &FieldMap::new());
    let mut scratch = Scratch::new();
    let mut lines = Vec::new();
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let before = LIVE.load(Ordering::Relaxed);
    while let Some(block) = reader.next_block().expect("no read error") {
        let mut state = parser.block_state(&block);
        for (number, line) in block.lines() {
            let parsed = parser
                .parse(line, &mut state, &mut scratch)
                .map(|r| r.is_some());
            lines.push((number, line.len(), parsed));
        }
    }
    (lines, PEAK.load(Ordering::Relaxed) - before)
}

/// Peak memory allowed: the over-long line's kept prefix, one block, one read and the
/// decompressor's buffers, with room to spare; a hundredth of the line.
const BOUND: usize = 3 * MAX_LINE_LEN;

#[test]
fn a_hundred_megabyte_line_without_newline_stays_bounded() {
    let _serial = serial();
    let reader = LogReader::from_reader(HugeLine {
        remaining: HUNDRED_MB,
        tail: io::Cursor::new(TAIL),
    })
    .unwrap();
    let (lines, peak) = read(reader);
    eprintln!("100 MB line, plain: peak {peak} bytes");
    assert!(peak < BOUND, "peak {peak} bytes");
    assert_eq!(
        lines,
        [
            (1, MAX_LINE_LEN, Err(SkipReason::TooLong)),
            (2, TAIL.len() - 2, Ok(true))
        ]
    );
}

fn gzip(read: &mut dyn Read) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    io::copy(read, &mut encoder).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn a_huge_line_inside_gzip_stays_bounded_too() {
    let _serial = serial();
    // One compressed megabyte of the line, repeated as gzip members (as `cat` would join
    // them), keeps the test from spending its time compressing.
    let megabyte = gzip(&mut HugeLine {
        remaining: 1 << 20,
        tail: io::Cursor::new(b""),
    });
    let mut compressed = megabyte.repeat(GZIP_MEGABYTES);
    compressed.extend(gzip(&mut io::Cursor::new(TAIL)));
    let reader = LogReader::from_reader(io::Cursor::new(compressed)).unwrap();
    let (lines, peak) = read(reader);
    eprintln!("{GZIP_MEGABYTES} MiB line, gzip: peak {peak} bytes");
    assert!(peak < BOUND, "peak {peak} bytes");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines.first().map(|l| l.2), Some(Err(SkipReason::TooLong)));
}

#[test]
fn the_final_line_without_newline_is_delivered() {
    let _serial = serial();
    let reader = LogReader::from_reader(HugeLine {
        remaining: 10,
        tail: io::Cursor::new(b""),
    })
    .unwrap();
    let (lines, _) = read(reader);
    assert_eq!(lines, [(1, 10, Err(SkipReason::WrongFormat))]);
}
