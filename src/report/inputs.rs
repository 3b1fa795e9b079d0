//! `inputs.csv` (one row per input file, in argument order) and `skipped_lines.csv` (up to 100
//! sampled skipped lines per file).

use std::io;
use std::path::Path;

use super::{View, files, time, write_csv};
use crate::audit::file_report::{FileReport, Sample};

/// The header of `inputs.csv`.
pub const HEADER: &str = "file,format,compression,bytes_read,bytes,lines,parsed,skipped,bot_requests,other_requests,first_time,last_time,error,assumed_zone";

/// The header of `skipped_lines.csv`.
pub const SKIPPED_HEADER: &str = "file,line,reason,excerpt";

/// One input's row of `inputs.csv`, in [`HEADER`]'s order (before the cells rule).
pub fn row(f: &FileReport) -> Vec<String> {
    vec![
        f.name.clone(),
        f.format.unwrap_or_default().to_owned(),
        f.compression.clone().unwrap_or_default(),
        f.bytes_read.to_string(),
        f.bytes.to_string(),
        f.lines.to_string(),
        f.parsed.to_string(),
        f.skipped.to_string(),
        f.bot_requests.to_string(),
        f.other_requests.to_string(),
        time(f.first_time),
        time(f.last_time),
        f.error.clone().unwrap_or_default(),
        f.assumed_zone.clone().unwrap_or_default(),
    ]
}

/// One skipped line's row of `skipped_lines.csv`, in [`SKIPPED_HEADER`]'s order (before the
/// cells rule).
pub fn sample_row(f: &FileReport, s: &Sample) -> [String; 4] {
    [
        f.name.clone(),
        s.line.to_string(),
        s.reason.to_owned(),
        s.excerpt.clone(),
    ]
}

/// Writes `inputs.csv` and `skipped_lines.csv` into `dir`.
pub fn write(dir: &Path, view: &View<'_>) -> io::Result<()> {
    let rows = view.files().map(row);
    write_csv(dir, files::INPUTS, HEADER, view.raw_csv(), rows)?;
    let samples = view
        .files()
        .flat_map(|f| f.samples.iter().map(move |s| sample_row(f, s)));
    write_csv(
        dir,
        files::SKIPPED_LINES,
        SKIPPED_HEADER,
        view.raw_csv(),
        samples,
    )
}
