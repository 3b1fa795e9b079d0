//! Cutting a decompressed log into blocks of whole lines.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read};
use std::sync::Arc;

use crate::directives;
use crate::gzip::Decoding;
use crate::limits::MAX_LINE_LEN;
use crate::open::{Compression, Decoder, Source};
use crate::prefix;

/// The block size [`LogReader`] aims for unless told otherwise: big enough that per-block costs
/// vanish, small enough that blocks can be handed to worker threads one by one.
pub const DEFAULT_BLOCK_SIZE: usize = 1 << 20;

/// How much is asked of the decompressor per read: big reads mean fewer system calls for plain
/// files and fewer calls into the decompressor.
const READ_SIZE: usize = 256 * 1024;

/// A run of complete lines, cut from the input at a line end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// The lines, each ending in `\n` except perhaps the input's last line.
    pub data: Vec<u8>,
    /// The number of the block's first line in the input, counting from 1.
    pub first_line: u64,
    /// The W3C/CloudFront directives in force before the block, so that header-driven formats
    /// can parse the block on its own: the last `#Fields:` line, after the last `#GMT-Offset:`
    /// line when the input has one (lines without their line ends, joined by `\n`).
    pub header: Option<Arc<[u8]>>,
    /// For the two output streams of a container runtime's records (stdout, stderr): whether
    /// the block starts inside a record of that stream that the block before it had to cut,
    /// no record ending within the line cap ([Prefixes](crate::Prefix)). Such a record is over
    /// long: its pieces here are no line of their own, and its last is skipped as too long.
    pub cut_records: [bool; 2],
    /// Whether the input ends with this block, read to its end without damage: a record of a
    /// container runtime still open after its last line will never be continued
    /// ([`LineParser::finish`](crate::LineParser::finish)).
    pub ends_input: bool,
}

impl Block {
    /// The block's lines with their numbers in the input, without the `\n` or `\r\n` that ends
    /// them.
    ///
    /// ```
    /// use robots_audit_logs::Block;
    ///
    /// let block = Block { data: b"a\r\nb\n\nc".to_vec(), first_line: 7, ..Block::default() };
    /// let lines: Vec<(u64, &[u8])> = block.lines().collect();
    /// assert_eq!(lines, [(7, &b"a"[..]), (8, b"b"), (9, b""), (10, b"c")]);
    /// ```
    pub fn lines(&self) -> Lines<'_> {
        Lines {
            rest: &self.data,
            next: self.first_line,
        }
    }

    /// How many lines the block holds.
    pub fn line_count(&self) -> u64 {
        let newlines = bytecount::count(&self.data, b'\n') as u64;
        let unterminated = self.data.last().is_some_and(|&last| last != b'\n');
        newlines + u64::from(unterminated)
    }
}

/// The lines of a [`Block`], from [`Block::lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    next: u64,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (u64, &'a [u8]);

    fn next(&mut self) -> Option<(u64, &'a [u8])> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(end) => self.rest.split_at(end + 1),
            None => (self.rest, &b""[..]),
        };
        self.rest = rest;
        let number = self.next;
        self.next += 1;
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        Some((number, line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

/// A compressed stream that is truncated or corrupt, or an input that failed to read. Every
/// complete line before the damage has been delivered; the reader is finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// What went wrong, for `inputs.csv`.
    pub message: String,
    /// Decompressed bytes delivered before the damage.
    pub offset: u64,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (after {} decompressed bytes)",
            self.message, self.offset
        )
    }
}

impl std::error::Error for ReadError {}

/// What the input has said so far.
enum Input {
    Open,
    Ended,
    Failed(io::Error),
}

/// Reads one log sequentially: opens it, sniffs the compression, decompresses and cuts blocks
/// of complete lines. Memory stays bounded by about `max(block size, MAX_LINE_LEN)` whatever
/// the input holds.
///
/// ```
/// use robots_audit_logs::LogReader;
///
/// let mut reader = LogReader::from_reader(&b"first\nsecond\nlast without newline"[..])?;
/// let block = reader.next_block()?.expect("one block");
/// assert_eq!(block.line_count(), 3);
/// assert!(reader.next_block()?.is_none());
/// assert_eq!(reader.bytes(), 33);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct LogReader {
    decoder: Decoder,
    block_size: usize,
    input: Input,
    /// The start of a line whose end has not been read yet, after the whole lines of a CRI
    /// record a block kept back for the next one.
    carry: Vec<u8>,
    /// The memory of a block handed back by [`LogReader::recycle`], for the next block.
    spare: Option<Vec<u8>>,
    /// The rest of an over-long line is being read and dropped.
    skipping: bool,
    /// An error to report once the lines before it have been delivered.
    pending_error: Option<ReadError>,
    finished: bool,
    next_line: u64,
    /// Decompressed bytes read from the decoder.
    consumed: u64,
    /// Decompressed bytes accounted for by delivered blocks.
    delivered: u64,
    header: Option<Arc<[u8]>>,
    /// The records the last block cut at the line cap, for the next block
    /// ([`Block::cut_records`]).
    cut_records: [bool; 2],
    /// Whether blocks are searched for `#Fields:` lines (see [`LogReader::ignore_headers`]).
    track_headers: bool,
    /// Blocks (and the damage after them) read ahead by [`LogReader::detect_format`], handed
    /// out before anything else.
    pub(crate) lookahead: VecDeque<Result<Block, ReadError>>,
}

impl fmt::Debug for LogReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LogReader")
            .field("compression", &self.compression())
            .field("block_size", &self.block_size)
            .field("next_line", &self.next_line)
            .field("bytes", &self.delivered)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl LogReader {
    /// Opens a file or standard input, inflating on the thread that reads it. Fails only when
    /// the input cannot be opened or its first bytes cannot be read; damage further on is
    /// reported by [`LogReader::next_block`].
    pub fn open(source: &Source) -> io::Result<LogReader> {
        LogReader::open_with(source, &Decoding::serial())
    }

    /// Opens a file or standard input like [`LogReader::open`], a big gzip file inflated on the
    /// threads `decoding` gives it.
    pub fn open_with(source: &Source, decoding: &Decoding) -> io::Result<LogReader> {
        Ok(LogReader::with_decoder(Decoder::open(source, decoding)?))
    }

    /// Reads from any byte stream (a socket, a test buffer), sniffing its compression like
    /// [`LogReader::open`].
    pub fn from_reader<R: Read + Send + 'static>(reader: R) -> io::Result<LogReader> {
        Ok(LogReader::with_decoder(Decoder::new(Box::new(reader))?))
    }

    fn with_decoder(decoder: Decoder) -> LogReader {
        LogReader {
            decoder,
            block_size: DEFAULT_BLOCK_SIZE,
            input: Input::Open,
            carry: Vec::new(),
            spare: None,
            skipping: false,
            pending_error: None,
            finished: false,
            next_line: 1,
            consumed: 0,
            delivered: 0,
            header: None,
            cut_records: [false; 2],
            track_headers: true,
            lookahead: VecDeque::new(),
        }
    }

    /// Sets the size blocks aim for (at least 1 byte). A block is cut at the last line end
    /// read once it holds this many bytes of complete lines, so every block but the last is at
    /// least this big and at most one read (256 KiB) bigger, or one over-long line; in a
    /// Kubernetes CRI log, the cut moves back or on to the end of a record that no partial
    /// record continues.
    pub fn with_block_size(mut self, bytes: usize) -> LogReader {
        self.block_size = bytes.max(1);
        self
    }

    /// Stops looking for `#Fields:` lines: for a format that reads none
    /// ([`Format::reads_headers`](crate::Format::reads_headers)), searching every block for
    /// one is wasted work. Blocks read afterwards carry no header.
    pub fn ignore_headers(&mut self) {
        self.track_headers = false;
        self.header = None;
    }

    /// How the input is compressed.
    pub fn compression(&self) -> Compression {
        self.decoder.compression()
    }

    /// Bytes read from the input so far: compressed bytes for a compressed input, including
    /// what the decompressor has read ahead. For progress bars and `inputs.csv` `bytes_read`.
    pub fn compressed_bytes_read(&self) -> u64 {
        self.decoder.compressed_bytes_read()
    }

    /// The content fingerprint of the input (XXH3-128 of its bytes once decompressed, not of its
    /// name nor of its compressed bytes): complete once the reader reached the end.
    pub fn fingerprint(&self) -> u128 {
        self.decoder.fingerprint()
    }

    /// Decompressed bytes delivered in blocks so far, counting the dropped tails of over-long
    /// lines: the position in the decompressed input up to which everything has been handed
    /// out.
    pub fn bytes(&self) -> u64 {
        self.delivered
    }

    /// The next block of complete lines, `Ok(None)` at the end of the input. After damage, the
    /// complete lines before it come first, then the `Err`; the reader is finished after either.
    pub fn next_block(&mut self) -> Result<Option<Block>, ReadError> {
        match self.lookahead.pop_front() {
            Some(read) => read.map(Some),
            None => self.read_block(),
        }
    }

    /// Reads the next block from the input (see [`LogReader::next_block`]).
    pub(crate) fn read_block(&mut self) -> Result<Option<Block>, ReadError> {
        if let Some(error) = self.pending_error.take() {
            self.finished = true;
            return Err(error);
        }
        if self.finished {
            return Ok(None);
        }
        // `data[..filled]` is the block so far; bytes after it are scratch space that has been
        // written before (a recycled block's memory), so reads need not clear it first.
        let mut data = self.spare.take().unwrap_or_default();
        let wanted = self.block_size.min(MAX_LINE_LEN) + READ_SIZE;
        data.reserve(wanted.saturating_sub(data.len()));
        let mut filled = 0;
        put(&mut data, &mut filled, &self.carry);
        self.carry.clear();
        // Where the line being read starts: everything before it is complete (the carry may
        // hold whole lines a block kept back, see below).
        let mut line_start = memchr::memrchr(b'\n', &self.carry).map_or(0, |end| end + 1);
        let mut cut_records = [false; 2];
        loop {
            if filled - line_start >= MAX_LINE_LEN {
                filled = line_start + MAX_LINE_LEN;
                put(&mut data, &mut filled, b"\n");
                line_start = filled;
                self.skipping = true;
            }
            if !matches!(self.input, Input::Open) {
                break;
            }
            if line_start >= self.block_size {
                // A block ends after whole records: never between a container runtime's
                // partial record and its continuation, unless they reach the line cap.
                let lines = data.get(..line_start).unwrap_or_default();
                let whole = prefix::whole_records_end(lines);
                if whole > 0 {
                    line_start = whole;
                    break;
                }
                if line_start >= MAX_LINE_LEN {
                    // No record ends within the cap: the next block is told which it starts
                    // inside of, so that their pieces there are not read as lines.
                    cut_records = prefix::open_at_end(lines);
                    break;
                }
            }
            self.read_more(&mut data, &mut filled, &mut line_start);
        }
        if matches!(self.input, Input::Open) {
            self.carry
                .extend_from_slice(data.get(line_start..filled).unwrap_or_default());
            filled = line_start;
        } else if let Input::Failed(error) = std::mem::replace(&mut self.input, Input::Ended) {
            // The line being read when the damage came is incomplete: it is dropped.
            let damaged = filled - line_start;
            filled = line_start;
            self.consumed -= damaged as u64;
            self.pending_error = Some(ReadError {
                message: format!("{}: {error}", self.compression()),
                offset: self.consumed,
            });
        } else {
            self.finished = true;
        }
        data.truncate(filled);
        self.delivered = self.consumed - self.carry.len() as u64;
        if data.is_empty() {
            // Nothing was left before the end or the damage.
            self.spare = Some(data);
            return match self.pending_error.take() {
                Some(error) => {
                    self.finished = true;
                    Err(error)
                }
                None => Ok(None),
            };
        }
        let block = Block {
            data,
            first_line: self.next_line,
            header: self.header.clone(),
            cut_records: std::mem::replace(&mut self.cut_records, cut_records),
            ends_input: self.finished,
        };
        self.next_line += block.line_count();
        if self.track_headers {
            self.remember_header(&block.data);
        }
        Ok(Some(block))
    }

    /// Hands back the data of a block that has been dealt with, so that the next block is read
    /// into its memory instead of into a fresh allocation that has to be cleared first.
    ///
    /// ```
    /// use robots_audit_logs::LogReader;
    ///
    /// let mut reader = LogReader::from_reader(&b"a\nb\n"[..])?;
    /// let mut lines = 0;
    /// while let Some(block) = reader.next_block()? {
    ///     lines += block.line_count();
    ///     reader.recycle(block.data);
    /// }
    /// assert_eq!(lines, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recycle(&mut self, data: Vec<u8>) {
        if self
            .spare
            .as_ref()
            .is_none_or(|spare| spare.capacity() < data.capacity())
        {
            self.spare = Some(data);
        }
    }

    /// Reads once more into `data` after `filled`, dropping what belongs to an over-long line
    /// and moving `line_start` past the last line end read.
    fn read_more(&mut self, data: &mut Vec<u8>, filled: &mut usize, line_start: &mut usize) {
        let old = *filled;
        if data.len() < old + READ_SIZE {
            data.resize(old + READ_SIZE, 0);
        }
        let result = loop {
            match self
                .decoder
                .read(data.get_mut(old..old + READ_SIZE).unwrap_or_default())
            {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match result {
            Ok(0) => self.input = Input::Ended,
            Ok(n) => {
                *filled = old + n;
                self.consumed += n as u64;
                if self.skipping {
                    match memchr::memchr(b'\n', data.get(old..*filled).unwrap_or_default()) {
                        Some(end) => {
                            data.copy_within(old + end + 1..*filled, old);
                            *filled -= end + 1;
                            self.skipping = false;
                        }
                        None => *filled = old,
                    }
                }
                // The line that was partial may have ended in this read past the cap: it is cut
                // to the cap like a line that is still growing. It was shorter than the cap
                // before this read, so the cut is inside the new bytes.
                if let Some(end) = memchr::memchr(b'\n', data.get(old..*filled).unwrap_or_default())
                {
                    let cap = *line_start + MAX_LINE_LEN;
                    if old + end > cap {
                        data.copy_within(old + end..*filled, cap);
                        *filled -= old + end - cap;
                    }
                }
                if let Some(end) =
                    memchr::memrchr(b'\n', data.get(old..*filled).unwrap_or_default())
                {
                    *line_start = old + end + 1;
                }
            }
            Err(error) => self.input = Input::Failed(error),
        }
    }

    /// Keeps the W3C directives in force after `data` for the next block (see
    /// [`directives::in_force`]).
    fn remember_header(&mut self, data: &[u8]) {
        if let Some(header) = directives::in_force(self.header.as_deref(), data) {
            self.header = Some(header);
        }
    }
}

/// Writes `bytes` at `data[*filled..]`, growing `data` when it is too short.
fn put(data: &mut Vec<u8>, filled: &mut usize, bytes: &[u8]) {
    let end = *filled + bytes.len();
    if data.len() < end {
        data.resize(end, 0);
    }
    if let Some(target) = data.get_mut(*filled..end) {
        target.copy_from_slice(bytes);
    }
    *filled = end;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use proptest::prelude::*;

    /// Hands out at most `step` bytes per read, as a pipe or a slow decompressor may.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let rest = self.data.get(self.at..).unwrap_or_default();
            let n = rest.len().min(self.step).min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            Ok(n)
        }
    }

    fn trickled(input: &[u8], step: usize, block_size: usize) -> Vec<Block> {
        read_trickling(input, step, block_size, false)
    }

    /// Like [`trickled`], handing every block's memory back dirty, as the audit does.
    fn recycled(input: &[u8], step: usize, block_size: usize) -> Vec<Block> {
        read_trickling(input, step, block_size, true)
    }

    fn read_trickling(input: &[u8], step: usize, block_size: usize, recycle: bool) -> Vec<Block> {
        let trickle = Trickle {
            data: input.to_vec(),
            at: 0,
            step,
        };
        let mut reader = LogReader::from_reader(trickle)
            .unwrap()
            .with_block_size(block_size);
        let mut blocks = Vec::new();
        while let Some(block) = reader.next_block().unwrap() {
            if recycle {
                let mut dirty = block.data.clone();
                dirty.fill(b'\n');
                dirty.extend_from_slice(b"#Fields: stale\n");
                reader.recycle(dirty);
            }
            blocks.push(block);
        }
        assert_eq!(reader.bytes(), input.len() as u64);
        blocks
    }

    #[test]
    fn recycled_memory_never_shows_through_an_over_long_line() {
        let mut input = vec![b'x'; MAX_LINE_LEN + READ_SIZE + 10];
        input.extend_from_slice(b"\nshort\n");
        input.extend(vec![b'y'; MAX_LINE_LEN - 1]);
        input.extend_from_slice(b"z\nlast");
        let fresh = trickled(&input, READ_SIZE, 1 << 20);
        let reused = recycled(&input, READ_SIZE, 1 << 20);
        assert_eq!(fresh, reused);
        let joined: Vec<u8> = reused.iter().flat_map(|b| b.data.iter().copied()).collect();
        let lines: Vec<usize> = joined.split(|&b| b == b'\n').map(<[u8]>::len).collect();
        assert_eq!(lines, [MAX_LINE_LEN, 5, MAX_LINE_LEN, 4]);
    }

    /// How many lines `input` holds, counted by splitting it, apart from the reader's count:
    /// the pieces between line ends, less the empty one after a last line end.
    fn lines_split(input: &[u8]) -> u64 {
        input.split(|&b| b == b'\n').count() as u64
            - u64::from(input.last() == Some(&b'\n') || input.is_empty())
    }

    fn blocks(input: &[u8], block_size: usize) -> Vec<Block> {
        let mut reader = LogReader::from_reader(io::Cursor::new(input.to_vec()))
            .unwrap()
            .with_block_size(block_size);
        let mut blocks = Vec::new();
        while let Some(block) = reader.next_block().unwrap() {
            blocks.push(block);
        }
        assert_eq!(reader.bytes(), input.len() as u64);
        blocks
    }

    #[test]
    fn cuts_at_line_ends() {
        let got = trickled(b"aa\nbb\ncc\ndd", 2, 4);
        let data: Vec<&[u8]> = got.iter().map(|b| &b.data[..]).collect();
        assert_eq!(data, [&b"aa\nbb\n"[..], b"cc\ndd"]);
        assert_eq!(got.iter().map(|b| b.first_line).collect::<Vec<_>>(), [1, 3]);
        // The first read hands over the six bytes read to sniff the compression.
        let whole = blocks(b"aa\nbb\ncc\ndd", 4);
        assert_eq!(
            whole.iter().map(|b| &b.data[..]).collect::<Vec<_>>(),
            [&b"aa\nbb\n"[..], b"cc\ndd"]
        );
    }

    #[test]
    fn detection_reads_past_an_over_long_junk_line_and_loses_nothing() {
        let good =
            b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"-\" \"UA\"\n";
        let mut input = vec![b'j'; MAX_LINE_LEN * 3];
        input.push(b'\n');
        for _ in 0..50 {
            input.extend_from_slice(good);
        }
        let trickle = Trickle {
            data: input.clone(),
            at: 0,
            step: READ_SIZE,
        };
        let mut reader = LogReader::from_reader(trickle)
            .unwrap()
            .with_block_size(1 << 20);
        let first = reader.next_block().unwrap().unwrap();
        assert_eq!(first.line_count(), 1);
        assert_eq!(Format::detect(&first.data), None);
        assert_eq!(reader.detect_format(&first), Some(Format::Combined));
        // Asking again reads nothing more and decides the same.
        assert_eq!(reader.detect_format(&first), Some(Format::Combined));
        let mut blocks = vec![first];
        while let Some(block) = reader.next_block().unwrap() {
            blocks.push(block);
        }
        let lines: u64 = blocks.iter().map(Block::line_count).sum();
        assert_eq!(lines, 51);
        assert_eq!(blocks[1].first_line, 2);
        assert_eq!(reader.bytes(), input.len() as u64);
    }

    #[test]
    fn damage_met_while_detecting_comes_after_the_lines_before_it() {
        let mut log = b"junk\n".repeat(150);
        log.extend_from_slice(
            b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1\n",
        );
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gzip, &log).unwrap();
        let mut compressed = gzip.finish().unwrap();
        compressed.truncate(compressed.len() - 4);
        let mut reader = LogReader::from_reader(io::Cursor::new(compressed))
            .unwrap()
            .with_block_size(64);
        let first = reader.next_block().unwrap().unwrap();
        assert_eq!(reader.detect_format(&first), Some(Format::Common));
        let mut lines = first.line_count();
        let error = loop {
            match reader.next_block() {
                Ok(Some(block)) => lines += block.line_count(),
                Ok(None) => panic!("the damage is reported"),
                Err(error) => break error,
            }
        };
        assert_eq!(lines, 151);
        assert_eq!(error.offset, log.len() as u64);
        assert_eq!(reader.next_block(), Ok(None));
    }

    #[test]
    fn empty_input_has_no_block() {
        assert!(blocks(b"", 10).is_empty());
    }

    #[test]
    fn header_is_the_last_fields_line_before_the_block() {
        let input = b"#Fields: a b\n1 2\n#Fields: c\n3\n4\n";
        let got = trickled(input, 1, 1);
        let headers: Vec<Option<&[u8]>> = got.iter().map(|b| b.header.as_deref()).collect();
        assert_eq!(
            headers,
            [
                None,
                Some(&b"#Fields: a b"[..]),
                Some(b"#Fields: a b"),
                Some(b"#Fields: c"),
                Some(b"#Fields: c")
            ]
        );
    }

    #[test]
    fn ignored_headers_are_neither_searched_nor_carried() {
        let trickle = Trickle {
            data: b"#Fields: a b\n1 2\n#Fields: c\n3\n".to_vec(),
            at: 0,
            step: 1,
        };
        let mut reader = LogReader::from_reader(trickle).unwrap().with_block_size(1);
        let first = reader.next_block().unwrap().unwrap();
        assert_eq!(first.data, b"#Fields: a b\n");
        assert!(reader.next_block().unwrap().unwrap().header.is_some());
        reader.ignore_headers();
        let mut headers = Vec::new();
        while let Some(block) = reader.next_block().unwrap() {
            headers.push(block.header);
        }
        assert_eq!(headers, [None, None]);
    }

    #[test]
    fn header_after_a_bom_and_with_crlf() {
        let got = trickled(b"\xEF\xBB\xBF#Fields: x\r\n1\r\n", 1, 1);
        assert_eq!(
            got.get(1).and_then(|b| b.header.as_deref()),
            Some(&b"#Fields: x"[..])
        );
    }

    #[test]
    fn fields_inside_a_line_is_not_a_header() {
        let got = blocks(b"GET /#Fields: x\n1\n", 1);
        assert!(got.iter().all(|b| b.header.is_none()));
    }

    proptest! {
        #[test]
        fn blocks_concatenate_to_the_input(
            lines in proptest::collection::vec("[a-z#: ]{0,20}", 0..40),
            newline_at_end in any::<bool>(),
            block_size in 1usize..64,
            step in 1usize..16,
        ) {
            let mut input = lines.join("\n").into_bytes();
            if newline_at_end && !input.is_empty() {
                input.push(b'\n');
            }
            let got = trickled(&input, step, block_size);
            prop_assert_eq!(&recycled(&input, step, block_size), &got);
            let joined: Vec<u8> = got.iter().flat_map(|b| b.data.iter().copied()).collect();
            prop_assert_eq!(&joined, &input);
            let mut expected_line = 1;
            for (index, block) in got.iter().enumerate() {
                prop_assert_eq!(block.first_line, expected_line);
                prop_assert!(!block.data.is_empty());
                if index + 1 < got.len() {
                    prop_assert_eq!(block.data.last(), Some(&b'\n'));
                    prop_assert!(block.data.len() >= block_size);
                    prop_assert!(block.data.len() < block_size + step + 21);
                }
                expected_line += block.line_count();
            }
            prop_assert_eq!(expected_line - 1, lines_split(&input));
        }

        /// Long blocks too, whose count runs through the vector loop and its partial sums
        /// (`bytecount` adds up 255 vectors' comparisons at a time).
        #[test]
        fn line_count_is_the_number_of_lines(
            len in 0usize..20_000,
            share_of_line_ends in 0u64..=256,
            seed in any::<u64>(),
        ) {
            // Drawn from a seed: drawn byte by byte, the test took half a minute in a debug
            // build.
            let mut state = seed | 1;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // An odd byte is never `\n`.
                    if state % 256 < share_of_line_ends { b'\n' } else { state as u8 | 1 }
                })
                .collect();
            let lines = lines_split(&data);
            let block = Block { data, first_line: 1, ..Block::default() };
            prop_assert_eq!(block.line_count(), lines);
            prop_assert_eq!(block.line_count(), block.lines().count() as u64);
        }
    }

    #[test]
    fn a_block_of_line_ends_only_counts_each() {
        // Around the 32 bytes of a vector, and past the partial sums of 255 and of 128 vectors
        // that `bytecount` adds up.
        let lengths = [
            31,
            32,
            33,
            255 * 32,
            255 * 32 + 1,
            (255 + 128) * 32 + 5,
            100_003,
        ];
        for len in lengths {
            let block = Block {
                data: vec![b'\n'; len],
                first_line: 1,
                ..Block::default()
            };
            assert_eq!(block.line_count(), len as u64, "{len}");
        }
    }
}
