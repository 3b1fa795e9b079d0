//! The reports: one module per CSV file, plus the summary table on standard error.
//!
//! All files are UTF-8 CSV with a header row (invalid UTF-8 in the input is replaced with
//! U+FFFD), times in RFC 3339 UTC, rates with 4 decimals (empty when the denominator is 0). Each
//! file is written under a temporary name and renamed when complete ([`atomic`]).

pub mod agent_origins;
pub mod agents;
pub mod atomic;
pub mod decisions;
pub mod inputs;
pub mod robots;
pub mod rules;
pub mod stream;
pub mod summary;
pub mod violations;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use ahash::AHashMap;
use jiff::Timestamp;
use robots_audit_engine::{GroupId, Robots};

use self::atomic::AtomicFile;
use crate::policy::{PolicySet, VersionId};

pub use self::decisions::DecisionRow;
pub use self::violations::ViolationRow;

/// Rows formatted by a worker thread into memory, handed to [`stream::StreamedReport`].
///
/// These reports get a row per violation or per judged request, so rows are written field by
/// field straight into the buffer, without allocating.
#[derive(Debug, Default)]
pub struct RowWriter {
    csv: CsvBuffer,
    /// Reused to put a field together before it is quoted.
    scratch: Vec<u8>,
    /// The last time written and its text: neighbouring rows mostly share it, and formatting a
    /// time costs far more than comparing one.
    last_time: Option<(Timestamp, String)>,
    /// Group labels already built, by version and group.
    group_labels: AHashMap<(VersionId, GroupId), String>,
    /// Version labels already built, by version (times kept apart from `last_time`, which the
    /// request times of consecutive rows share).
    version_labels: Vec<Option<String>>,
    /// The input file name of the last `source` field, and whether it needs quotes.
    source_name: String,
    source_name_quoted: bool,
}

impl RowWriter {
    /// An empty buffer of rows (no header).
    pub fn new() -> RowWriter {
        RowWriter::default()
    }

    /// The rows formatted so far, each complete. The caller may take or clear them; the rows
    /// written next go after whatever is left.
    pub fn rows(&mut self) -> &mut Vec<u8> {
        &mut self.csv.out
    }

    fn field(&mut self, bytes: &[u8]) {
        self.csv.field(bytes);
    }

    /// Input bytes as UTF-8, invalid sequences replaced as [`text`] replaces them.
    fn text_field(&mut self, bytes: &[u8]) {
        // Most fields are ASCII, which is checked faster than UTF-8 is validated.
        if bytes.is_ascii() {
            return self.csv.field(bytes);
        }
        match std::str::from_utf8(bytes) {
            Ok(valid) => self.csv.field(valid.as_bytes()),
            Err(_) => self.csv.field(String::from_utf8_lossy(bytes).as_bytes()),
        }
    }

    fn number_field(&mut self, number: impl itoa::Integer) {
        self.csv
            .plain(itoa::Buffer::new().format(number).as_bytes());
    }

    /// One of the fixed words of the reports (`allowed`, `verified`, `true`, ...).
    fn word_field(&mut self, word: &'static str) {
        self.csv.plain(word.as_bytes());
    }

    fn display_field(&mut self, value: impl std::fmt::Display) {
        self.scratch.clear();
        // Writing to a Vec cannot fail.
        let _ = io::Write::write_fmt(&mut self.scratch, format_args!("{value}"));
        self.csv.field(&self.scratch);
    }

    /// `file:line`, as the `source` columns write it.
    fn source_field(&mut self, (file, line): (&str, u64)) {
        // Rows of one block share their file: whether its name needs quotes is known already.
        if self.source_name.as_bytes() != file.as_bytes() {
            self.source_name.clear();
            self.source_name.push_str(file);
            self.source_name_quoted = needs_quotes(file.as_bytes());
        }
        if !self.source_name_quoted {
            self.csv.separate();
            self.csv.out.extend_from_slice(file.as_bytes());
            self.csv.out.push(b':');
            self.csv
                .out
                .extend_from_slice(itoa::Buffer::new().format(line).as_bytes());
            return;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(file.as_bytes());
        self.scratch.push(b':');
        self.scratch
            .extend_from_slice(itoa::Buffer::new().format(line).as_bytes());
        self.csv.field(&self.scratch);
    }

    /// A time in RFC 3339 UTC, as [`time`] writes it.
    fn time_field(&mut self, t: Timestamp) {
        let (last, formatted) = self.last_time.get_or_insert_with(|| (t, t.to_string()));
        if *last != t {
            *last = t;
            formatted.clear();
            // Writing to a String cannot fail.
            let _ = write!(formatted, "{t}");
        }
        self.csv.plain(formatted.as_bytes());
    }

    /// The label of version `id`, [`Version::label`](crate::policy::Version::label), built once
    /// per writer.
    fn version_label_field(&mut self, policy: &PolicySet, id: VersionId) {
        let slot = id as usize;
        if self.version_labels.len() <= slot {
            self.version_labels.resize(slot + 1, None);
        }
        let label = self.version_labels[slot].get_or_insert_with(|| policy.version(id).label());
        self.csv.plain(label.as_bytes());
    }

    /// The label of `group` of version `id` ([`Robots::group_label`]), built once per writer.
    fn group_field(&mut self, id: VersionId, robots: &Robots, group: GroupId) {
        let label = self
            .group_labels
            .entry((id, group))
            .or_insert_with(|| robots.group_label(group));
        self.csv.field(label.as_bytes());
    }

    fn end_row(&mut self) {
        self.csv.end_row();
    }
}

/// CSV rows being written. Fields are quoted as the `csv` crate quotes them (which
/// [`write_csv`] uses for the other reports): only when they hold a comma, a quote or a line
/// end, with quotes doubled. (The crate also quotes a row made of one empty field; the rows
/// here always have many fields.)
#[derive(Debug, Default)]
struct CsvBuffer {
    out: Vec<u8>,
    /// Whether the row has a field already, so that the next one needs a comma first.
    in_row: bool,
}

impl CsvBuffer {
    fn field(&mut self, bytes: &[u8]) {
        if !needs_quotes(bytes) {
            return self.plain(bytes);
        }
        self.separate();
        self.out.push(b'"');
        for (i, part) in bytes.split(|&b| b == b'"').enumerate() {
            if i > 0 {
                self.out.extend_from_slice(b"\"\"");
            }
            self.out.extend_from_slice(part);
        }
        self.out.push(b'"');
    }

    /// A field that cannot need quotes (a number, a time, a fixed word): written without looking.
    fn plain(&mut self, bytes: &[u8]) {
        debug_assert!(!needs_quotes(bytes), "{bytes:?}");
        self.separate();
        self.out.extend_from_slice(bytes);
    }

    fn separate(&mut self) {
        if std::mem::replace(&mut self.in_row, true) {
            self.out.push(b',');
        }
    }

    fn end_row(&mut self) {
        self.out.push(b'\n');
        self.in_row = false;
    }
}

fn needs_quotes(bytes: &[u8]) -> bool {
    let special = |b: &u8| matches!(b, b',' | b'"' | b'\n' | b'\r');
    // A few bytes (a method, a number) are looked at one by one. Longer fields are looked at
    // sixteen bytes at a time, without an early exit inside a block, which the compiler turns
    // into vector compares; the last block overlaps the one before it rather than leaving a
    // remainder to a byte loop.
    let Some(last) = bytes.last_chunk::<16>() else {
        return bytes.iter().any(special);
    };
    let block = |block: &[u8; 16]| {
        block.iter().fold(false, |found, &b| {
            found | (b == b',') | (b == b'"') | (b == b'\n') | (b == b'\r')
        })
    };
    bytes
        .chunks_exact(16)
        .filter_map(<[u8]>::first_chunk::<16>)
        .any(block)
        || block(last)
}

/// Text from the input, as valid UTF-8.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// A time in RFC 3339 UTC, or empty.
pub fn time(t: Option<Timestamp>) -> String {
    t.map(|t| t.to_string()).unwrap_or_default()
}

/// `num / den` with 4 decimals, or empty when `den` is 0.
pub fn rate(num: u64, den: u64) -> String {
    if den == 0 {
        String::new()
    } else {
        format!("{:.4}", num as f64 / den as f64)
    }
}

/// Writes one complete CSV file atomically: the header, then `rows`.
pub fn write_csv<R, I>(dir: &Path, name: &str, header: &str, rows: I) -> io::Result<()>
where
    I: IntoIterator<Item = R>,
    R: IntoIterator,
    R::Item: AsRef<[u8]>,
{
    let mut file = AtomicFile::create(dir, name)?;
    {
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(&mut file);
        csv.write_record(header.split(','))?;
        for row in rows {
            csv.write_record(row)?;
        }
        csv.flush()?;
    }
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_times() {
        assert_eq!(rate(1, 3), "0.3333");
        assert_eq!(rate(0, 0), "");
        assert_eq!(rate(2, 2), "1.0000");
        assert_eq!(time(None), "");
        assert_eq!(
            time(Some(Timestamp::from_second(0).unwrap())),
            "1970-01-01T00:00:00Z"
        );
        assert_eq!(text(b"a\xFFb"), "a\u{FFFD}b");
    }

    /// What the `csv` crate writes for `rows`, as [`write_csv`] writes them.
    fn csv_crate(rows: &[Vec<Vec<u8>>]) -> Vec<u8> {
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_writer(Vec::new());
        for row in rows {
            csv.write_record(row).unwrap();
        }
        csv.into_inner().unwrap()
    }

    fn ours(rows: &[Vec<Vec<u8>>]) -> Vec<u8> {
        let mut buffer = CsvBuffer::default();
        for row in rows {
            for field in row {
                buffer.field(field);
            }
            buffer.end_row();
        }
        buffer.out
    }

    #[test]
    fn fields_are_quoted_as_the_csv_crate_quotes_them() {
        let rows: Vec<Vec<Vec<u8>>> = [
            &[&b"plain"[..], b""][..],
            &[b"a,b", b"say \"hi\"", b"line\nend", b"cr\r", b"\""],
            &[b"", b"", b"\xC3\xA4 \xFF"],
        ]
        .iter()
        .map(|row| row.iter().map(|field| field.to_vec()).collect())
        .collect();
        let ours = ours(&rows);
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&csv_crate(&rows))
        );
        assert_eq!(
            ours,
            b"plain,\n\"a,b\",\"say \"\"hi\"\"\",\"line\nend\",\"cr\r\",\"\"\"\"\n,,\xC3\xA4 \xFF\n"
        );
    }

    #[test]
    fn times_and_sources_are_written_like_the_other_reports() {
        let t = |s| Timestamp::from_second(s).unwrap();
        let mut rows = RowWriter::new();
        for (time, file, line) in [
            (t(0), "logs/a,b.log", 1),
            (t(0), "logs/a,b.log", 2),
            (t(61), "logs/plain.log", 3),
            (t(0), "logs/a,b.log", 40),
        ] {
            rows.time_field(time);
            rows.source_field((file, line));
            rows.number_field(u16::MAX);
            rows.end_row();
        }
        assert_eq!(
            String::from_utf8(std::mem::take(rows.rows())).unwrap(),
            "1970-01-01T00:00:00Z,\"logs/a,b.log:1\",65535\n\
             1970-01-01T00:00:00Z,\"logs/a,b.log:2\",65535\n\
             1970-01-01T00:01:01Z,logs/plain.log:3,65535\n\
             1970-01-01T00:00:00Z,\"logs/a,b.log:40\",65535\n"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_rows_are_quoted_as_the_csv_crate_quotes_them(
            rows in proptest::collection::vec(
                proptest::collection::vec("[a,\"\r\n \u{e4}-]{0,6}", 2..6),
                0..8,
            )
        ) {
            let rows: Vec<Vec<Vec<u8>>> = rows
                .into_iter()
                .map(|row| row.into_iter().map(String::into_bytes).collect())
                .collect();
            proptest::prop_assert_eq!(ours(&rows), csv_crate(&rows));
        }

        #[test]
        fn the_quoting_check_finds_a_special_byte_anywhere(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    40 => proptest::strategy::Just(b'a'),
                    1 => proptest::strategy::Just(b','),
                    1 => proptest::strategy::Just(b'"'),
                    1 => proptest::strategy::Just(b'\n'),
                    1 => proptest::strategy::Just(b'\r'),
                    4 => proptest::num::u8::ANY,
                ],
                0..100,
            )
        ) {
            let slow = bytes.iter().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
            proptest::prop_assert_eq!(needs_quotes(&bytes), slow);
        }
    }
}
