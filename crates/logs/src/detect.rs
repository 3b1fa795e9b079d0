//! Detecting a log's format from its lines: [`Detector`] reads lines as they come (block by
//! block) until enough of them have voted, looking past over-long and junk lines up to a
//! bounded number of lines and bytes; [`LogReader::detect_format`] reads ahead for it and keeps
//! what it read; [`classify`] names the format of one line. Above the reader and the parsers of
//! each format, below the line parser.

use crate::chunk::{Block, LogReader};
use crate::format::Format;
use crate::formats::{alb, clf, cloudfront, crawl, envoy, haproxy, json};
use crate::limits::MAX_LINE_LEN;
use crate::prefix::{self, Assembled, OpenRecords, Prefix};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Lines that, once they have all been looked at and at least one was recognised, decide.
const DETECT_LINES: usize = 100;

/// Lines looked at, at most, before detection gives up (junk lines count).
pub const DETECT_MAX_LINES: usize = 10_000;

/// Bytes of lines looked at, at most, before detection gives up: over-long lines count with
/// the [`MAX_LINE_LEN`] bytes a block keeps of them, so a junk line of any length costs at most
/// that much memory while detection reads ahead.
pub const DETECT_MAX_BYTES: u64 = 64 << 20;

/// Votes on a log's format, line by line, over as many blocks as it takes.
///
/// A `#Fields:` directive decides at once (CloudFront when it names CloudFront's own fields
/// such as `x-edge-location`, W3C otherwise). Otherwise each data line votes for the format it
/// parses as, behind the prefix it carries (records that continue one another joined first),
/// and for that prefix ([`Detector::prefix`]). Detection decides when 100 lines have been looked at and at
/// least one was recognised, the most votes winning; lines that are blank, comments, junk or
/// over-long do not stop it, until [`DETECT_MAX_LINES`] lines or [`DETECT_MAX_BYTES`] bytes
/// have been looked at.
///
/// ```
/// use robots_audit_logs::{Detector, Format};
///
/// let mut detector = Detector::new();
/// assert_eq!(detector.feed(b"junk\n\x00\x01\n"), None);
/// let line = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "curl/8""#;
/// assert_eq!(detector.feed(line), None);
/// assert_eq!(detector.finish(), Some(Format::Combined));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Detector {
    votes: [usize; Format::ALL.len()],
    /// Recognised lines by their prefix, in [`Prefix::ALL`]'s order, the last for none.
    prefix_votes: [usize; Prefix::ALL.len() + 1],
    /// Prefixed records joined as the line parser joins them.
    open_records: OpenRecords,
    records: [Vec<u8>; 2],
    looked_at: usize,
    recognised: usize,
    bytes: u64,
    /// Set once a directive or the bounds have decided.
    decided: Option<Option<Format>>,
}

impl Detector {
    /// A detector that has seen nothing.
    pub fn new() -> Detector {
        Detector::default()
    }

    /// Looks at the lines of `data` (whole lines, such as a [`Block`](crate::Block)'s). `Some`
    /// once detection has decided: `Some(None)` when it gave up without recognising a line.
    /// Feeding more after a decision changes nothing.
    pub fn feed(&mut self, data: &[u8]) -> Option<Option<Format>> {
        if self.decided.is_some() {
            return self.decided;
        }
        for line in data.split(|&b| b == b'\n') {
            self.bytes += line.len() as u64 + 1;
            self.look_at(line);
            if self.decided.is_some() {
                break;
            }
            let enough = self.looked_at >= DETECT_LINES && self.recognised > 0;
            let bounded = self.looked_at >= DETECT_MAX_LINES || self.bytes >= DETECT_MAX_BYTES;
            if enough || self.recognised >= DETECT_LINES || bounded {
                self.decided = Some(self.best());
                break;
            }
        }
        self.decided
    }

    /// The decision on what has been fed, whether or not enough has been seen: the format
    /// with the most votes, `None` when no line was recognised.
    pub fn finish(&self) -> Option<Format> {
        self.decided.unwrap_or_else(|| self.best())
    }

    /// Whether detection has decided (or given up).
    pub fn is_decided(&self) -> bool {
        self.decided.is_some()
    }

    fn look_at(&mut self, line: &[u8]) {
        let untrimmed = line.strip_prefix(BOM).unwrap_or(line);
        // A record's piece keeps its blanks: the next piece continues right after them.
        let untrimmed = untrimmed.strip_suffix(b"\r").unwrap_or(untrimmed);
        let line = untrimmed.trim_ascii_end();
        if line.trim_ascii_start().is_empty() {
            return;
        }
        if let Some(names) = line.strip_prefix(b"#Fields:") {
            let cloudfront = [
                &b"x-edge-location"[..],
                b"x-host-header",
                b"x-edge-request-id",
            ]
            .iter()
            .any(|name| memchr::memmem::find(names, name).is_some());
            self.decided = Some(Some(if cloudfront {
                Format::Cloudfront
            } else {
                Format::W3c
            }));
            return;
        }
        if line.starts_with(b"#") {
            return;
        }
        self.looked_at += 1;
        // An over-long line is cut to the cap by the reader and skipped by every parser.
        if line.len() >= MAX_LINE_LEN {
            return;
        }
        let (prefix, message) = match Prefix::detect(untrimmed) {
            Some((prefix, record)) => {
                match prefix::assemble(record, &mut self.open_records, &mut self.records) {
                    Assembled::Message(message) => (Some(prefix), message),
                    Assembled::Pending | Assembled::TooLong => return,
                }
            }
            None => (None, line),
        };
        if let Some(format) = classify(message)
            && let Some(count) = self.votes.get_mut(format as usize)
        {
            *count += 1;
            self.recognised += 1;
            let slot = prefix.map_or(Prefix::ALL.len(), |prefix| {
                Prefix::ALL
                    .iter()
                    .position(|&p| p == prefix)
                    .unwrap_or_default()
            });
            if let Some(count) = self.prefix_votes.get_mut(slot) {
                *count += 1;
            }
        }
    }

    /// The prefix most of the recognised lines had, `None` when most had none (or none was
    /// recognised).
    ///
    /// ```
    /// use robots_audit_logs::{Detector, Format, Prefix};
    ///
    /// let mut detector = Detector::new();
    /// detector.feed(br#"web-1  | 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "-" "UA""#);
    /// assert_eq!((detector.finish(), detector.prefix()), (Some(Format::Combined), Some(Prefix::Compose)));
    /// ```
    pub fn prefix(&self) -> Option<Prefix> {
        let mut best: Option<(Option<Prefix>, usize)> = None;
        let choices = Prefix::ALL.iter().copied().map(Some).chain([None]);
        for (prefix, &count) in choices.zip(&self.prefix_votes) {
            if count > 0 && best.is_none_or(|(_, most)| count > most) {
                best = Some((prefix, count));
            }
        }
        best.and_then(|(prefix, _)| prefix)
    }

    fn best(&self) -> Option<Format> {
        let mut best: Option<(Format, usize)> = None;
        for (format, &count) in Format::ALL.iter().zip(&self.votes) {
            if count > 0 && best.is_none_or(|(_, most)| count > most) {
                best = Some((*format, count));
            }
        }
        best.map(|(format, _)| format)
    }
}

impl Format {
    /// The format of a log, judged from its first lines (`sample` is the start of the
    /// decompressed input) by a [`Detector`]. `None` when no line is recognised.
    ///
    /// Cloudflare Logpush lines are detected as [`Format::Json`]: the generic JSON parser knows
    /// Logpush's field names.
    ///
    /// ```
    /// use robots_audit_logs::Format;
    ///
    /// let combined = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "curl/8""#;
    /// assert_eq!(Format::detect(combined), Some(Format::Combined));
    /// assert_eq!(Format::detect(b"#Software: IIS\n#Fields: date time cs-uri-stem\n"), Some(Format::W3c));
    /// assert_eq!(Format::detect(b"\x00\x01binary"), None);
    /// ```
    pub fn detect(sample: &[u8]) -> Option<Format> {
        let mut detector = Detector::new();
        detector.feed(sample);
        detector.finish()
    }
}

impl LogReader {
    /// Detects the log's format from `first`, the first block [`LogReader::next_block`]
    /// returned, and as many blocks after it as detection needs (see [`Detector`]): a log
    /// that starts with over-long or junk lines is read on, up to
    /// [`DETECT_MAX_LINES`](crate::DETECT_MAX_LINES) lines and
    /// [`DETECT_MAX_BYTES`](crate::DETECT_MAX_BYTES) bytes. The blocks read ahead, and any
    /// damage met, are handed out by the next calls of [`LogReader::next_block`] as if nothing
    /// had been read, so memory stays bounded by those limits. `None` when no line was
    /// recognised.
    ///
    /// ```
    /// use robots_audit_logs::{Format, LogReader};
    ///
    /// let mut log = b"junk\n".repeat(5_000);
    /// log.extend_from_slice(br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "-" "UA""#);
    /// let mut reader = LogReader::from_reader(std::io::Cursor::new(log))?.with_block_size(4096);
    /// let first = reader.next_block()?.expect("a block");
    /// assert_eq!(reader.detect_format(&first), Some(Format::Combined));
    /// let mut lines = first.line_count();
    /// while let Some(block) = reader.next_block()? {
    ///     lines += block.line_count();
    /// }
    /// assert_eq!(lines, 5_001);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn detect_format(&mut self, first: &Block) -> Option<Format> {
        self.detect(first).map(|detection| detection.format)
    }

    /// [`LogReader::detect_format`], with the prefix the log's lines carry ([`Detector::prefix`]),
    /// for [`LineParser::with_prefix`](crate::LineParser::with_prefix).
    ///
    /// ```
    /// use robots_audit_logs::{Detection, Format, LogReader, Prefix};
    ///
    /// let log = b"Jul  4 12:00:01 web nginx: 1.2.3.4 - - [04/Jul/2026:12:00:01 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"UA\"\n";
    /// let mut reader = LogReader::from_reader(&log[..])?;
    /// let first = reader.next_block()?.expect("a block");
    /// assert_eq!(
    ///     reader.detect(&first),
    ///     Some(Detection { format: Format::Combined, prefix: Some(Prefix::Syslog) })
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn detect(&mut self, first: &Block) -> Option<Detection> {
        let mut detector = Detector::new();
        let detection = |detector: &Detector, format: Option<Format>| {
            format.map(|format| Detection {
                format,
                prefix: detector.prefix(),
            })
        };
        if let Some(decided) = detector.feed(&first.data) {
            return detection(&detector, decided);
        }
        // Blocks already read ahead were fed by an earlier call; only new ones are read.
        for read in &self.lookahead {
            if let Ok(block) = read
                && let Some(decided) = detector.feed(&block.data)
            {
                return detection(&detector, decided);
            }
        }
        while !detector.is_decided() {
            match self.read_block() {
                Ok(Some(block)) => {
                    let decided = detector.feed(&block.data);
                    self.lookahead.push_back(Ok(block));
                    if let Some(decided) = decided {
                        return detection(&detector, decided);
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    self.lookahead.push_back(Err(error));
                    break;
                }
            }
        }
        let format = detector.finish();
        detection(&detector, format)
    }
}

/// What detection found of a log: its format, and the prefix its lines carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detection {
    /// The format of the lines (behind their prefix).
    pub format: Format,
    /// The prefix most lines carry, if any.
    pub prefix: Option<Prefix>,
}

/// The format one data line (without its line end) parses as, if any. W3C lines are never
/// recognised on their own: they need their `#Fields:` directive.
pub(crate) fn classify(line: &[u8]) -> Option<Format> {
    if line.trim_ascii_start().starts_with(b"{") {
        return json::classify(line);
    }
    clf::classify(line)
        .or_else(|| haproxy::looks_like(line).then_some(Format::Haproxy))
        .or_else(|| envoy::looks_like(line).then_some(Format::Envoy))
        .or_else(|| alb::looks_like(line).then_some(Format::Alb))
        .or_else(|| crawl::looks_like(line).then_some(Format::Crawl))
        .or_else(|| cloudfront::looks_like(line).then_some(Format::Cloudfront))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMON: &[u8] = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#;
    const COMBINED: &[u8] =
        br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#;

    #[test]
    fn detection_votes() {
        let mostly_common = [COMMON, COMMON, COMBINED, b"junk"].join(&b'\n');
        assert_eq!(Format::detect(&mostly_common), Some(Format::Common));
        let mostly_combined = [COMBINED, b"", COMBINED, COMMON].join(&b'\n');
        assert_eq!(Format::detect(&mostly_combined), Some(Format::Combined));
        assert_eq!(Format::detect(b""), None);
        assert_eq!(
            Format::detect(b"#Version: 1.0\n#Fields: date time x-edge-location c-ip\n"),
            Some(Format::Cloudfront)
        );
    }

    #[test]
    fn looks_past_junk_and_over_long_lines_across_feeds() {
        let mut detector = Detector::new();
        let mut over_long = vec![b'x'; MAX_LINE_LEN];
        over_long.push(b'\n');
        assert_eq!(detector.feed(&over_long), None);
        let junk = b"\x00\x01 junk\n".repeat(500);
        assert_eq!(detector.feed(&junk), None);
        let good = [COMBINED, b"\n"].concat().repeat(3);
        assert_eq!(detector.feed(&good), Some(Some(Format::Combined)));
        assert!(detector.is_decided());
        // A decision stands whatever follows.
        assert_eq!(detector.feed(COMMON), Some(Some(Format::Combined)));
    }

    #[test]
    fn gives_up_after_bounded_lines_and_bytes() {
        let mut detector = Detector::new();
        let junk = b"junk\n".repeat(DETECT_MAX_LINES - 1);
        assert_eq!(detector.feed(&junk), None);
        assert_eq!(detector.feed(b"more junk\n"), Some(None));
        assert_eq!(detector.feed(COMBINED), Some(None));

        let mut detector = Detector::new();
        let mut over_long = vec![b'x'; MAX_LINE_LEN];
        over_long.push(b'\n');
        let mut decided = None;
        for _ in 0..DETECT_MAX_BYTES / MAX_LINE_LEN as u64 {
            decided = detector.feed(&over_long);
        }
        assert_eq!(decided, Some(None));
    }
}
