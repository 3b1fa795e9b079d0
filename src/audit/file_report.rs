//! What one input came to, as `inputs.csv` and `skipped_lines.csv` show it and `state.json`
//! keeps it: the reader's facts (format, compression, sizes, error, fingerprint), the line
//! counts, and the first skipped lines.

use jiff::Timestamp;
use robots_audit_logs::{Format, SkipReason};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::limits;

/// At most this many skipped lines are sampled per file.
pub const SAMPLES_PER_FILE: usize = 100;

/// A skipped line, sampled for `skipped_lines.csv`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Its line number.
    pub line: u64,
    /// Why it was skipped (read back only as one of the parser's reasons).
    #[serde(deserialize_with = "skip_reason")]
    pub reason: Label,
    /// Its first [`limits::EXCERPT`] bytes, as UTF-8.
    pub excerpt: String,
}

impl Sample {
    /// Samples `line`.
    pub fn new(line_no: u64, reason: &'static str, line: &[u8]) -> Sample {
        let cut = &line[..line.len().min(limits::EXCERPT)];
        Sample {
            line: line_no,
            reason,
            excerpt: String::from_utf8_lossy(cut).into_owned(),
        }
    }
}

/// The skipped lines of one reason in one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasonCount {
    /// The reason (read back only as one of the parser's reasons).
    #[serde(deserialize_with = "skip_reason")]
    pub reason: Label,
    /// Lines skipped for it.
    pub lines: u64,
}

/// A name from a fixed list (a format's, a skip reason's). Named so that serde's derive reads it
/// through the functions below instead of borrowing it from the input, which a `&'static str`
/// written out would make it try.
pub type Label = &'static str;

/// A skip reason read back from `state.json`: one of the parser's, or an error.
fn skip_reason<'de, D: Deserializer<'de>>(deserializer: D) -> Result<&'static str, D::Error> {
    let reason = String::deserialize(deserializer)?;
    SkipReason::ALL
        .iter()
        .map(SkipReason::as_str)
        .find(|r| *r == reason)
        .ok_or_else(|| D::Error::custom(format!("unknown skip reason {reason:?}")))
}

/// A log format's name read back from `state.json`: one of the formats', or an error.
fn format_name<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'static str>, D::Error> {
    Option::<String>::deserialize(deserializer)?
        .map(|name| {
            Format::from_name(&name)
                .map(|f| f.name())
                .ok_or_else(|| D::Error::custom(format!("unknown log format {name:?}")))
        })
        .transpose()
}

/// What happened to one input file (`inputs.csv`), as `state.json` keeps it too.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReport {
    /// As shown in reports.
    pub name: String,
    /// The format used (read back only as one of the formats' names).
    #[serde(deserialize_with = "format_name")]
    pub format: Option<Label>,
    /// gzip, zstd or plain.
    pub compression: Option<String>,
    /// Bytes read from the file (compressed).
    pub bytes_read: u64,
    /// Bytes after decompression.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines parsed into requests.
    pub parsed: u64,
    /// Lines skipped as malformed.
    pub skipped: u64,
    /// The skipped lines by reason, sorted by reason: they add up to `skipped` (the samples
    /// keep only the first lines). Left out of `state.json` when no line was skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_by_reason: Vec<ReasonCount>,
    /// Requests from bots.
    pub bot_requests: u64,
    /// Other requests.
    pub other_requests: u64,
    /// Earliest request time.
    pub first_time: Option<Timestamp>,
    /// Latest request time.
    pub last_time: Option<Timestamp>,
    /// Why reading stopped early, if it did.
    pub error: Option<String>,
    /// The zone its times without an offset were read in (`--timezone`, else UTC); `None`
    /// when every time carried its offset.
    pub assumed_zone: Option<String>,
    /// The content fingerprint of the bytes read (XXH3-128; see `LogReader::fingerprint`);
    /// `None` when no byte was read. Not shown in `inputs.csv`: `merge` counts an input held
    /// by two reports once by it (the state keeps it beside the file, in hex).
    #[serde(skip)]
    pub fingerprint: Option<u128>,
    /// The first skipped lines.
    pub samples: Vec<Sample>,
}

impl FileReport {
    /// Counts `lines` skipped lines of `reason`.
    pub fn count_skipped(&mut self, reason: Label, lines: u64) {
        self.skipped += lines;
        match self
            .skipped_by_reason
            .binary_search_by(|count| count.reason.cmp(reason))
        {
            Ok(at) => self.skipped_by_reason[at].lines += lines,
            Err(at) => self
                .skipped_by_reason
                .insert(at, ReasonCount { reason, lines }),
        }
    }

    /// The counters the summary and `report.html` add over every input, in no particular
    /// order: `bytes_read`, `bytes`, `lines`, `parsed`, `skipped`, `bot_requests`,
    /// `other_requests` and the skipped lines of all reasons (a reason's own total is at most
    /// theirs). `None` when the reasons alone pass `u64::MAX`.
    pub fn summed_counters(&self) -> Option<[u64; 8]> {
        let reasons = self
            .skipped_by_reason
            .iter()
            .try_fold(0u64, |sum, count| sum.checked_add(count.lines))?;
        Some([
            self.bytes_read,
            self.bytes,
            self.lines,
            self.parsed,
            self.skipped,
            self.bot_requests,
            self.other_requests,
            reasons,
        ])
    }

    /// Adds what another worker thread counted of the same input: line counts add, times
    /// combine, samples join (the caller keeps the first ones), and the reader's facts come
    /// from whichever side has them (one thread ends each input).
    pub fn merge(&mut self, other: FileReport) {
        self.lines += other.lines;
        self.parsed += other.parsed;
        for count in &other.skipped_by_reason {
            self.count_skipped(count.reason, count.lines);
        }
        self.bot_requests += other.bot_requests;
        self.other_requests += other.other_requests;
        self.first_time = [self.first_time, other.first_time]
            .into_iter()
            .flatten()
            .min();
        self.last_time = [self.last_time, other.last_time]
            .into_iter()
            .flatten()
            .max();
        self.samples.extend(other.samples);
        self.format = self.format.or(other.format);
        self.compression = self.compression.take().or(other.compression);
        self.bytes_read = self.bytes_read.max(other.bytes_read);
        self.bytes = self.bytes.max(other.bytes);
        self.error = self.error.take().or(other.error);
        self.assumed_zone = self.assumed_zone.take().or(other.assumed_zone);
        self.fingerprint = self.fingerprint.or(other.fingerprint);
    }
}
