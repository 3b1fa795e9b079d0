//! Reports written while the audit runs (violations, decisions): rows leave the worker threads
//! out of order and reach the file in input order. The report and its spill files live in the
//! run's staging directory (`src/commit`), each created exclusively.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;

use crate::commit::{NewFile, with_path};

/// One CSV report streamed to disk during the run, its rows in input order: files in the order
/// given, the blocks of a file in the order they were read, whatever thread formatted them.
///
/// The rows of the earliest unfinished input go straight into the report's temporary file. An
/// input that is read at the same time as an earlier one keeps its rows in a spill file of its
/// own until every earlier input is complete; the spill is then appended inside the kernel and
/// the input goes on writing straight into the report. So a run over one file, or over files
/// read one after another, writes every row exactly once. Memory holds only the blocks that
/// finished before an earlier block of the same input: a handful per thread.
///
/// ```
/// # use robots_audit::report::stream::StreamedReport;
/// let dir = tempfile::tempdir().unwrap();
/// let report = StreamedReport::create(dir.path(), "rows.csv", "n", 2).unwrap();
/// report.submit(1, 0, &mut b"b\n".to_vec()).unwrap();
/// report.end(1, 1).unwrap();
/// report.submit(0, 0, &mut b"a\n".to_vec()).unwrap();
/// report.end(0, 1).unwrap();
/// report.finish().unwrap();
/// assert_eq!(std::fs::read(dir.path().join("rows.csv")).unwrap(), b"n\na\nb\n");
/// ```
#[derive(Debug)]
pub struct StreamedReport {
    file: Mutex<Output>,
    inputs: Vec<Mutex<InputRows>>,
}

#[derive(Debug)]
struct InputRows {
    /// The block whose rows are written next.
    next: u64,
    /// How many blocks the input has, once its reader reached the end.
    blocks: Option<u64>,
    /// Blocks that arrived before an earlier block of the same input.
    pending: BTreeMap<u64, Vec<u8>>,
    route: Route,
    spill_path: PathBuf,
}

#[derive(Debug)]
enum Route {
    /// An earlier input is unfinished: rows wait in the spill file, created with the first row.
    Spill(Option<File>),
    /// Every earlier input is in the report: rows go straight into it.
    Direct,
    /// Every row of the input is in the report.
    Done,
}

impl InputRows {
    fn complete(&self) -> bool {
        self.blocks == Some(self.next)
    }
}

impl StreamedReport {
    /// Starts `dir/name` (a staging directory's: nothing may stand under that name) with its
    /// `header` line, for `inputs` input files.
    pub fn create(
        dir: &Path,
        name: &str,
        header: &str,
        inputs: usize,
    ) -> io::Result<StreamedReport> {
        let mut file = NewFile::create(dir, name)?;
        file.write_all(header.as_bytes())?;
        file.write_all(b"\n")?;
        let inputs = (0..inputs)
            .map(|i| {
                Mutex::new(InputRows {
                    next: 0,
                    blocks: None,
                    pending: BTreeMap::new(),
                    route: if i == 0 {
                        Route::Direct
                    } else {
                        Route::Spill(None)
                    },
                    spill_path: dir.join(format!(".{name}.part-{i}")),
                })
            })
            .collect();
        Ok(StreamedReport {
            file: Mutex::new(Output {
                file,
                unsynced: 0,
                syncer: None,
            }),
            inputs,
        })
    }

    /// Hands in the rows of block `seq` of input `input`. Every block must be handed in, empty
    /// or not, so that the blocks after it can be written. `rows` is left empty: written and
    /// cleared when its turn has come, its memory kept for the caller's next block, or else
    /// taken to wait for the earlier blocks.
    pub fn submit(&self, input: usize, seq: u64, rows: &mut Vec<u8>) -> io::Result<()> {
        let completed = {
            let mut rows_of = self.lock_input(input)?;
            if seq == rows_of.next {
                self.write_next(&mut rows_of, rows)?;
                rows.clear();
            } else {
                rows_of.pending.insert(seq, std::mem::take(rows));
            }
            while let Some(rows) = {
                let next = rows_of.next;
                rows_of.pending.remove(&next)
            } {
                self.write_next(&mut rows_of, &rows)?;
            }
            self.close_if_complete(&mut rows_of)
        };
        if completed {
            self.advance(input + 1)?;
        }
        Ok(())
    }

    /// Tells that input `input` has `blocks` blocks: its reader reached the end of it (or could
    /// not open it: 0 blocks).
    pub fn end(&self, input: usize, blocks: u64) -> io::Result<()> {
        let completed = {
            let mut rows_of = self.lock_input(input)?;
            rows_of.blocks = Some(blocks);
            self.close_if_complete(&mut rows_of)
        };
        if completed {
            self.advance(input + 1)?;
        }
        Ok(())
    }

    /// Syncs the report. Fails if an input never ended or a block never arrived.
    pub fn finish(self) -> io::Result<()> {
        for rows_of in &self.inputs {
            let rows_of = rows_of.lock().unwrap_or_else(PoisonError::into_inner);
            if !matches!(rows_of.route, Route::Done) {
                return Err(io::Error::other("rows of an input never arrived"));
            }
        }
        self.file
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .finish()
    }

    fn lock_input(&self, input: usize) -> io::Result<std::sync::MutexGuard<'_, InputRows>> {
        self.inputs
            .get(input)
            .map(|m| m.lock().unwrap_or_else(PoisonError::into_inner))
            .ok_or_else(|| io::Error::other(format!("no input {input}")))
    }

    /// Writes the rows of the input's next block, empty or not.
    fn write_next(&self, rows_of: &mut InputRows, rows: &[u8]) -> io::Result<()> {
        rows_of.next += 1;
        if rows.is_empty() {
            return Ok(());
        }
        self.write(rows_of, rows)
    }

    fn write(&self, rows_of: &mut InputRows, rows: &[u8]) -> io::Result<()> {
        match &mut rows_of.route {
            Route::Direct => self.lock_file().write(rows),
            Route::Spill(spill) => {
                let spill = match spill {
                    Some(spill) => spill,
                    None => spill.insert(
                        OpenOptions::new()
                            .read(true)
                            .write(true)
                            .create_new(true)
                            .open(&rows_of.spill_path)
                            .map_err(|e| with_path(e, &rows_of.spill_path))?,
                    ),
                };
                spill
                    .write_all(rows)
                    .map_err(|e| with_path(e, &rows_of.spill_path))
            }
            Route::Done => Err(io::Error::other("rows after the end of an input")),
        }
    }

    /// Marks a complete input that writes into the report as done; true if it was.
    fn close_if_complete(&self, rows_of: &mut InputRows) -> bool {
        if matches!(rows_of.route, Route::Direct) && rows_of.complete() {
            rows_of.route = Route::Done;
            return true;
        }
        false
    }

    /// Every input before `first` is done: moves the spills of the inputs from `first` on into
    /// the report, up to the first input that is not complete, which then writes straight in.
    fn advance(&self, first: usize) -> io::Result<()> {
        for input in first..self.inputs.len() {
            let mut guard = self.lock_input(input)?;
            let rows_of = &mut *guard;
            if let Route::Spill(Some(spill)) = &mut rows_of.route {
                spill
                    .rewind()
                    .map_err(|e| with_path(e, &rows_of.spill_path))?;
                self.lock_file().append(spill)?;
                fs::remove_file(&rows_of.spill_path)
                    .map_err(|e| with_path(e, &rows_of.spill_path))?;
            }
            rows_of.route = Route::Direct;
            if !self.close_if_complete(rows_of) {
                break;
            }
        }
        Ok(())
    }

    fn lock_file(&self) -> std::sync::MutexGuard<'_, Output> {
        self.file.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// How many bytes are written between two background syncs.
const SYNC_EVERY: u64 = 32 << 20;

/// The report's file, synced to disk by a thread of its own while it is written, so that the
/// sync at the commit waits only for the last bytes instead of the whole file (hundreds of
/// megabytes with `--decisions`).
#[derive(Debug)]
struct Output {
    file: NewFile,
    /// Bytes written since the last background sync was asked for.
    unsynced: u64,
    /// Started with the first background sync.
    syncer: Option<Syncer>,
}

#[derive(Debug)]
struct Syncer {
    /// Asks for one more sync; holds at most one request, as one sync covers every write
    /// before it.
    wake: mpsc::SyncSender<()>,
    thread: JoinHandle<io::Result<()>>,
}

impl Output {
    fn write(&mut self, rows: &[u8]) -> io::Result<()> {
        self.file.write_all(rows)?;
        self.written(rows.len() as u64)
    }

    fn append(&mut self, spill: &mut File) -> io::Result<()> {
        let bytes = self.file.append_file(spill)?;
        self.written(bytes)
    }

    fn written(&mut self, bytes: u64) -> io::Result<()> {
        self.unsynced += bytes;
        if self.unsynced < SYNC_EVERY {
            return Ok(());
        }
        self.unsynced = 0;
        if self.syncer.is_none() {
            self.syncer = Some(Syncer::start(self.file.second_handle()?)?);
        }
        if let Some(syncer) = &self.syncer {
            // Full: a sync is asked for already, and it will cover these bytes too.
            // Disconnected: the thread stopped on an error, which the commit reports.
            let _ = syncer.wake.try_send(());
        }
        Ok(())
    }

    fn finish(self) -> io::Result<()> {
        if let Some(syncer) = self.syncer {
            drop(syncer.wake);
            syncer
                .thread
                .join()
                .map_err(|_| io::Error::other("the thread syncing a report failed"))??;
        }
        self.file.finish()
    }
}

impl Syncer {
    fn start(file: File) -> io::Result<Syncer> {
        let (wake, requests) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("report-sync".to_owned())
            .spawn(move || {
                while requests.recv().is_ok() {
                    file.sync_data()?;
                }
                Ok(())
            })?;
        Ok(Syncer { wake, thread })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[derive(Debug, Clone, Copy)]
    enum Event {
        Submit { input: usize, seq: u64 },
        End { input: usize, blocks: u64 },
    }

    fn rows(input: usize, seq: u64, count: usize) -> Vec<u8> {
        (0..count)
            .flat_map(|row| format!("{input}:{seq}:{row}\n").into_bytes())
            .collect()
    }

    /// The events of a run over inputs with `shape[i]` = (blocks, rows per block), in `order`
    /// (indices into the natural list, used as sort keys).
    fn events(shape: &[(u64, usize)], order: &[u32]) -> Vec<Event> {
        let mut events: Vec<Event> = shape
            .iter()
            .enumerate()
            .flat_map(|(input, &(blocks, _))| {
                (0..blocks)
                    .map(move |seq| Event::Submit { input, seq })
                    .chain([Event::End { input, blocks }])
            })
            .collect();
        let mut keyed: Vec<(u32, Event)> = events
            .drain(..)
            .enumerate()
            .map(|(i, e)| (order.get(i).copied().unwrap_or(0), e))
            .collect();
        keyed.sort_by_key(|(key, _)| *key);
        keyed.into_iter().map(|(_, e)| e).collect()
    }

    fn expected(shape: &[(u64, usize)]) -> Vec<u8> {
        let mut out = b"h\n".to_vec();
        for (input, &(blocks, count)) in shape.iter().enumerate() {
            for seq in 0..blocks {
                out.extend(rows(input, seq, count));
            }
        }
        out
    }

    fn apply(report: &StreamedReport, shape: &[(u64, usize)], event: Event) {
        match event {
            Event::Submit { input, seq } => report
                .submit(input, seq, &mut rows(input, seq, shape[input].1))
                .unwrap(),
            Event::End { input, blocks } => report.end(input, blocks).unwrap(),
        }
    }

    proptest! {
        /// Whatever order blocks and ends arrive in, the report holds every row once, in input
        /// order, and no spill file is left.
        #[test]
        fn any_arrival_order_gives_input_order(
            shape in prop::collection::vec((0u64..5, 0usize..3), 0..5),
            order in prop::collection::vec(any::<u32>(), 30),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let report = StreamedReport::create(dir.path(), "r.csv", "h", shape.len()).unwrap();
            for event in events(&shape, &order) {
                apply(&report, &shape, event);
            }
            report.finish().unwrap();
            prop_assert_eq!(fs::read(dir.path().join("r.csv")).unwrap(), expected(&shape));
            prop_assert_eq!(entries(dir.path()), vec!["r.csv".to_owned()]);
        }
    }

    #[test]
    fn threads_handing_in_blocks_at_once_keep_input_order() {
        let shape: Vec<(u64, usize)> = (0..6).map(|i| (20 + i, 50)).collect();
        let order: Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let events = events(&shape, &order);
        let dir = tempfile::tempdir().unwrap();
        let report = StreamedReport::create(dir.path(), "r.csv", "h", shape.len()).unwrap();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    while let Some(&event) =
                        events.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        apply(&report, &shape, event);
                    }
                });
            }
        });
        report.finish().unwrap();
        assert_eq!(
            fs::read(dir.path().join("r.csv")).unwrap(),
            expected(&shape)
        );
    }

    #[test]
    fn a_later_input_spills_until_the_earlier_one_ends() {
        let dir = tempfile::tempdir().unwrap();
        let report = StreamedReport::create(dir.path(), "r.csv", "h", 2).unwrap();
        report.submit(1, 0, &mut b"second\n".to_vec()).unwrap();
        let spill = ".r.csv.part-1".to_owned();
        assert!(entries(dir.path()).contains(&spill));
        report.submit(0, 0, &mut b"first\n".to_vec()).unwrap();
        report.end(0, 1).unwrap();
        assert!(!entries(dir.path()).contains(&spill));
        report.submit(1, 1, &mut b"third\n".to_vec()).unwrap();
        report.end(1, 2).unwrap();
        report.finish().unwrap();
        assert_eq!(
            fs::read(dir.path().join("r.csv")).unwrap(),
            b"h\nfirst\nsecond\nthird\n"
        );
    }

    #[test]
    fn a_large_report_is_synced_while_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let report = StreamedReport::create(dir.path(), "r.csv", "h", 1).unwrap();
        let mut block = vec![b'x'; 1 << 20];
        block[(1 << 20) - 1] = b'\n';
        let blocks = SYNC_EVERY / (1 << 20) + 8;
        for seq in 0..blocks {
            report.submit(0, seq, &mut block.clone()).unwrap();
        }
        assert!(report.lock_file().syncer.is_some());
        report.end(0, blocks).unwrap();
        report.finish().unwrap();
        let written = fs::metadata(dir.path().join("r.csv")).unwrap().len();
        assert_eq!(written, 2 + blocks * (1 << 20));
        assert_eq!(entries(dir.path()), vec!["r.csv".to_owned()]);
    }

    #[test]
    fn a_missing_block_fails_the_report() {
        let dir = tempfile::tempdir().unwrap();
        let report = StreamedReport::create(dir.path(), "r.csv", "h", 2).unwrap();
        report.submit(1, 0, &mut b"spilled\n".to_vec()).unwrap();
        report.submit(0, 1, &mut b"late\n".to_vec()).unwrap();
        report.end(0, 2).unwrap();
        report.end(1, 1).unwrap();
        assert!(report.finish().is_err());
    }

    #[test]
    fn a_spill_that_cannot_be_created_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let spill = ".r.csv.part-1".to_owned();
        fs::create_dir(dir.path().join(&spill)).unwrap();
        let report = StreamedReport::create(dir.path(), "r.csv", "h", 2).unwrap();
        let error = report.submit(1, 0, &mut b"x\n".to_vec()).unwrap_err();
        assert!(error.to_string().contains(&spill), "{error}");
        drop(report);
        assert_eq!(entries(dir.path()), vec![spill, "r.csv".to_owned()]);
    }
}
