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
pub mod parts;
pub mod robots;
pub mod rules;
pub mod summary;
pub mod violations;

use std::borrow::Cow;
use std::io;
use std::path::Path;

use jiff::Timestamp;

use self::atomic::AtomicFile;

pub use self::decisions::DecisionRow;
pub use self::violations::ViolationRow;

/// Rows formatted by a worker thread into memory, handed to [`parts::OrderedParts`].
#[derive(Debug)]
pub struct RowWriter {
    csv: csv::Writer<Vec<u8>>,
}

impl Default for RowWriter {
    fn default() -> RowWriter {
        RowWriter::new()
    }
}

impl RowWriter {
    /// An empty buffer of rows (no header).
    pub fn new() -> RowWriter {
        RowWriter {
            csv: csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(Vec::new()),
        }
    }

    /// The formatted rows.
    pub fn into_bytes(self) -> Vec<u8> {
        self.csv.into_inner().unwrap_or_default()
    }

    fn record<'f>(&mut self, fields: impl IntoIterator<Item = Cow<'f, str>>) {
        // Writing into a Vec cannot fail.
        let _ = self
            .csv
            .write_record(fields.into_iter().map(|f| f.into_owned().into_bytes()));
    }
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
}
