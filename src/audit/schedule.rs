//! Scheduling: input files -> blocks of lines, spread over worker threads.
//!
//! Every worker thread does both kinds of work: it takes the next block of lines from a file,
//! decompressing it, then hands that block to its own [`BlockHandler`], so the block is
//! processed on the core that just wrote it. Only one thread reads a file at a time (the file's
//! `Slot` mutex); while it processes its block another thread reads the next one. So
//! `--threads N` bounds the CPU the whole run uses, one gzip file is inflated without pause
//! while its blocks are processed in parallel, and several files are inflated in parallel.
//! Memory is bounded by the blocks in flight (one per thread, their buffers recycled through
//! the spare-block pool) and the open files (at most one per thread), never by the size of the
//! input. This module knows files, formats and threads; what a line means is the handler's. It
//! tells the handler of the thread that opens an input and of the thread that finishes it, as
//! events ([`InputStarted`], [`InputEnded`]): the run keeps no report of its own of any input.
//!
//! With at least [`PARALLEL_DECODING_THREADS`] threads, when fewer files are left than threads,
//! a big gzip file opened then is inflated on decoder threads (`robots_audit_logs::Decoding`)
//! instead of by the thread that reads it, so that one file keeps every core busy. The decoders
//! share the run's threads with the workers (a `Budget`): they may run only as many tasks at
//! once as there are workers without a block (the one that waits for their output among them),
//! at least one, and a worker with a block starts processing it only when the workers
//! processing and the decoding tasks running leave it a thread. So workers processing and
//! decoding tasks together keep to `--threads`, but for a task the decoders start while every
//! worker processes (the one they always keep), and for the decoders' coordinating and
//! member-scanning threads, which the budget does not count.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use robots_audit_logs::{Block, Decoding, FieldMap, Format, LineParser, LogReader};

use super::Input;
use super::error::AuditError;
use super::sink::{InputEnded, InputStarted};

/// One block of lines of one input, with the parser of its input's format.
#[derive(Debug)]
pub struct LineBlock {
    /// The input's position among the inputs.
    pub input: usize,
    /// The block's position in its input, from 0.
    pub seq: u64,
    /// The lines.
    pub block: Block,
    /// The parser of the input's format.
    pub parser: Arc<LineParser>,
}

/// Why an input whose format detection found none is not read (`inputs.csv`'s `error`).
pub const UNDETECTED: &str = "could not detect the log format; name it with --format";

/// The parser of an input's lines, chosen on `first`, its first block: of `format` when one is
/// given, else of the format detection finds in its first lines (a parser that follows a
/// stream's changes of format); `None` when detection finds none, and the input is then not
/// read ([`UNDETECTED`]). The reader of a format without directives stops looking for them.
/// The audit and `explain` both choose here, so that `explain` reads a line, or refuses it, as
/// the audit does.
pub fn input_parser(
    reader: &mut LogReader,
    first: &Block,
    format: Option<Format>,
    fields: &FieldMap,
) -> Option<LineParser> {
    let parser = match format {
        Some(format) => LineParser::new(format, fields),
        None => LineParser::detected(reader.detect_format(first)?, fields),
    };
    if !parser.format().reads_headers() {
        reader.ignore_headers();
    }
    Some(parser)
}

/// What each worker thread does with the blocks it reads and the inputs it opens and finishes.
/// An error stops the run.
pub trait BlockHandler {
    /// Processes one block; returns how many lines it had.
    fn handle(&mut self, block: &LineBlock) -> Result<u64, AuditError>;

    /// An input was opened.
    fn input_started(&mut self, started: &InputStarted<'_>) -> Result<(), AuditError>;

    /// An input has no block left to read: its reader reached its end, stopped at damage, or
    /// could not open it.
    fn input_ended(&mut self, ended: &InputEnded) -> Result<(), AuditError>;
}

/// What a worker thread takes on next.
enum Work {
    /// A block to process.
    Block(LineBlock),
    /// An input it opened.
    Started { input: usize, compression: String },
    /// An input it finished.
    Ended(InputEnded),
}

/// How to read the inputs.
#[derive(Debug, Clone, Copy)]
pub struct Schedule<'a> {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The format of every input; `None` detects it per input from its first block.
    pub format: Option<Format>,
    /// `--field` mappings for JSON formats.
    pub fields: &'a FieldMap,
    /// Show a progress bar on standard error.
    pub progress: bool,
    /// Set from a signal handler to stop the run.
    pub interrupt: Option<&'a AtomicBool>,
}

/// A file being read. Only one thread reads a file at a time (its mutex).
enum Slot {
    Waiting,
    Open {
        reader: Box<LogReader>,
        parser: Arc<LineParser>,
        format: Option<Format>,
        next_seq: u64,
        counted: u64,
    },
    Finished,
}

struct Shared<'a> {
    schedule: Schedule<'a>,
    inputs: &'a [Input],
    /// The decoder threads big gzip files share.
    decoding: Decoding,
    /// The run's threads, shared by the workers and the decoders' tasks.
    budget: Budget,
    slots: Vec<Mutex<Slot>>,
    active: Mutex<Vec<usize>>,
    next_to_open: AtomicUsize,
    unfinished: AtomicUsize,
    /// The memory of processed blocks, for the readers to fill again.
    spare_blocks: Mutex<Vec<Vec<u8>>>,
    stop: AtomicBool,
    failure: Mutex<Option<AuditError>>,
    progress: ProgressBar,
    lines: AtomicU64,
    started: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads every input with `schedule.threads` threads, each with the handler `new_handler`
/// makes, and returns the handlers, to collect what they gathered. Fails when a handler fails,
/// or with [`AuditError::Interrupted`] when `schedule.interrupt` was raised.
pub fn run<H>(
    schedule: Schedule<'_>,
    inputs: &[Input],
    new_handler: impl Fn() -> H + Sync,
) -> Result<Vec<H>, AuditError>
where
    H: BlockHandler + Send,
{
    let threads = schedule.threads.max(1);
    let shared = Shared {
        schedule,
        inputs,
        decoding: decoding(
            threads,
            parallel_from().map_err(|e| AuditError::Fatal(e.to_string()))?,
        ),
        budget: Budget::new(threads),
        slots: inputs.iter().map(|_| Mutex::new(Slot::Waiting)).collect(),
        active: Mutex::new(Vec::new()),
        next_to_open: AtomicUsize::new(0),
        unfinished: AtomicUsize::new(inputs.len()),
        spare_blocks: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        progress: progress_bar(schedule.progress, inputs),
        lines: AtomicU64::new(0),
        started: Instant::now(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("audit-{i}"))
        .build()
        .map_err(|e| AuditError::Fatal(format!("cannot start {threads} worker threads: {e}")))?;
    let handlers: Vec<H> = pool.broadcast(|_| {
        let mut handler = new_handler();
        while let Some(work) = shared.read_next() {
            shared.process(&mut handler, work);
        }
        handler
    });
    shared.progress.finish_and_clear();
    if shared.interrupted() {
        return Err(AuditError::Interrupted);
    }
    if let Some(failure) = lock(&shared.failure).take() {
        return Err(failure);
    }
    Ok(handlers)
}

/// How long a worker waits before it looks again whether the decoders' tasks have left it a
/// thread: a task inflates a span of 1 to 8 MiB of compressed input, a few milliseconds.
const DECODERS_POLL: Duration = Duration::from_micros(100);

/// The run's `--threads`, shared by the workers that process blocks and the decoders' tasks.
///
/// A worker with a block *claims* a thread, and the decoders are lent the threads not claimed
/// (at least one, which `Decoding::lend_threads` keeps, or a worker waiting for their output
/// would wait for ever). The worker then *starts* only when the workers processing, itself and
/// the decoding tasks running fit in the budget. Without that wait the two together were more
/// than the threads for 7 to 53 % of a run on files of gzip members (BENCHMARKS.md, "Version 3:
/// workers and decoders in one budget"): a task goes on when its lend is lowered under it, and
/// the decoders keep their one thread while every worker has a block.
///
/// Invariant: `processing <= claimed <= threads`, and a worker starts only while `processing`
/// plus the decoding tasks it was told of stay within `threads`.
#[derive(Debug)]
struct Budget {
    threads: usize,
    /// Workers with a block, processing it or waiting to.
    claimed: AtomicUsize,
    /// Workers processing a block.
    processing: AtomicUsize,
}

impl Budget {
    fn new(threads: usize) -> Budget {
        Budget {
            threads: threads.max(1),
            claimed: AtomicUsize::new(0),
            processing: AtomicUsize::new(0),
        }
    }

    /// A worker has a block to process: the threads left to lend the decoders.
    fn claim(&self) -> usize {
        let claimed = self.claimed.fetch_add(1, Ordering::AcqRel) + 1;
        self.threads.saturating_sub(claimed)
    }

    /// The claiming worker starts processing, unless the workers processing, itself and
    /// `decoding` tasks would be more than the threads: then nothing changes, and it returns
    /// false.
    fn try_start(&self, decoding: usize) -> bool {
        let mut processing = self.processing.load(Ordering::Acquire);
        while processing + 1 + decoding <= self.threads {
            match self.processing.compare_exchange_weak(
                processing,
                processing + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => processing = now,
            }
        }
        false
    }

    /// A worker is done with its block: the threads left to lend the decoders.
    fn finish(&self) -> usize {
        self.processing.fetch_sub(1, Ordering::AcqRel);
        let claimed = self.claimed.fetch_sub(1, Ordering::AcqRel) - 1;
        self.threads.saturating_sub(claimed)
    }
}

/// The fewest threads with which a run inflates a big gzip file on decoder threads. With two,
/// both are busy processing blocks and the decoders have nothing to run on: on 2 cores the
/// parallel decoder never made an audit faster, kept a single-stream file on one thread after
/// timing a stretch of it both ways, and made files of many small members up to 2.6 times
/// slower (BENCHMARKS.md, "Many small gzip members").
pub const PARALLEL_DECODING_THREADS: usize = 3;

/// How a run of `threads` threads inflates its gzip files: on decoder threads from
/// [`PARALLEL_DECODING_THREADS`] on, for files of at least `parallel_from` compressed bytes.
fn decoding(threads: usize, parallel_from: u64) -> Decoding {
    let decoding = if threads >= PARALLEL_DECODING_THREADS {
        Decoding::parallel(threads)
    } else {
        Decoding::serial()
    };
    decoding.parallel_from(parallel_from)
}

/// The environment variable that sets the smallest gzip file inflated on several threads, in
/// compressed bytes (`robots_audit_logs::PARALLEL_FROM` without it): for tests that put small
/// files on that path, and to keep every file off it (a number larger than any file).
const PARALLEL_GZIP_FROM: &str = "ROBOTS_AUDIT_PARALLEL_GZIP_FROM";

/// A [`PARALLEL_GZIP_FROM`] that is not a number of bytes.
#[derive(Debug, thiserror::Error)]
enum ParallelFromError {
    /// Text that is not a number.
    #[error("{PARALLEL_GZIP_FROM}={0:?} is not a number of bytes")]
    NotANumber(String),
    /// Bytes that are not even text.
    #[error("{PARALLEL_GZIP_FROM}={0:?} is not a number of bytes")]
    NotUnicode(std::ffi::OsString),
}

fn parallel_from() -> Result<u64, ParallelFromError> {
    match std::env::var(PARALLEL_GZIP_FROM) {
        Err(std::env::VarError::NotPresent) => Ok(robots_audit_logs::PARALLEL_FROM),
        Ok(bytes) => bytes
            .trim()
            .parse()
            .map_err(|_| ParallelFromError::NotANumber(bytes)),
        Err(std::env::VarError::NotUnicode(bytes)) => Err(ParallelFromError::NotUnicode(bytes)),
    }
}

fn progress_bar(show: bool, inputs: &[Input]) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let total: u64 = inputs.iter().filter_map(|i| i.size).sum();
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {binary_bytes}/{binary_total_bytes} {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

impl Shared<'_> {
    fn interrupted(&self) -> bool {
        self.schedule
            .interrupt
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.interrupted()
    }

    fn fail(&self, error: AuditError) {
        lock(&self.failure).get_or_insert(error);
        self.stop.store(true, Ordering::Relaxed);
    }

    fn process(&self, handler: &mut impl BlockHandler, work: Work) {
        let work = match work {
            Work::Block(block) => block,
            Work::Started { input, compression } => {
                let started = InputStarted {
                    input,
                    compression: &compression,
                };
                if let Err(e) = handler.input_started(&started) {
                    self.fail(e);
                }
                return;
            }
            Work::Ended(ended) => {
                if let Err(e) = handler.input_ended(&ended) {
                    self.fail(e);
                }
                return;
            }
        };
        // Counted at every thread count, though without decoder threads nothing is lent and
        // nothing waits: a branch around the count kept `handle` from being inlined here and
        // cost more (16 M instructions over 1,000,000 lines, BENCHMARKS.md) than the count does.
        self.decoding.lend_threads(self.budget.claim());
        while !self.budget.try_start(self.decoding.busy_threads()) {
            std::thread::sleep(DECODERS_POLL);
        }
        let handled = handler.handle(&work);
        self.decoding.lend_threads(self.budget.finish());
        let lines = match handled {
            Ok(lines) => lines,
            Err(e) => {
                self.fail(e);
                0
            }
        };
        let total = self.lines.fetch_add(lines, Ordering::Relaxed) + lines;
        if self.schedule.progress {
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            let files = self.inputs.len();
            let done = files - self.unfinished.load(Ordering::Relaxed);
            self.progress.set_message(format!(
                "{done}/{files} files, {total} lines, {:.0} lines/s",
                total as f64 / secs
            ));
        }
        let mut spare = lock(&self.spare_blocks);
        // As many as can be in flight: one per thread.
        if spare.len() < self.schedule.threads.max(1) {
            spare.push(work.block.data);
        }
    }

    /// The next block for the calling thread to process: from an open file nobody is reading,
    /// from a file it opens when fewer than one per thread are open, or else from a file another
    /// thread is reading, as soon as that thread is done with it. `None` when every file is
    /// finished or the run is stopping.
    fn read_next(&self) -> Option<Work> {
        while !self.halted() {
            let active: Vec<usize> = lock(&self.active).clone();
            for &file in &active {
                let Ok(mut slot) = self.slots[file].try_lock() else {
                    continue;
                };
                if let Some(work) = self.read_from(file, &mut slot) {
                    return Some(work);
                }
            }
            if active.len() < self.schedule.threads.max(1) {
                let file = self.next_to_open.fetch_add(1, Ordering::Relaxed);
                if file < self.inputs.len() {
                    let mut slot = lock(&self.slots[file]);
                    return Some(self.open(file, &mut slot));
                }
            }
            if self.unfinished.load(Ordering::Acquire) == 0 {
                return None;
            }
            match active.first() {
                // Every open file is being read: wait for the first one.
                Some(&file) => {
                    let mut slot = lock(&self.slots[file]);
                    if let Some(work) = self.read_from(file, &mut slot) {
                        return Some(work);
                    }
                }
                // The last files are being opened by other threads (standard input may take
                // its time to show its first bytes).
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        None
    }

    /// Opens input `file`: the event that says so, or that it could not be opened.
    fn open(&self, file: usize, slot: &mut Slot) -> Work {
        let input = &self.inputs[file];
        // With as many files left as threads, each thread has a file of its own to inflate.
        let serial = Decoding::serial();
        let decoding = if self.unfinished.load(Ordering::Acquire) < self.schedule.threads.max(1) {
            &self.decoding
        } else {
            &serial
        };
        match LogReader::open_with(&input.source, decoding) {
            Ok(reader) => {
                let reader = Box::new(reader);
                let compression = reader.compression().to_string();
                let format = self.schedule.format;
                *slot = Slot::Open {
                    reader,
                    parser: Arc::new(LineParser::new(
                        format.unwrap_or(Format::Combined),
                        self.schedule.fields,
                    )),
                    format: None,
                    next_seq: 0,
                    counted: 0,
                };
                lock(&self.active).push(file);
                Work::Started {
                    input: file,
                    compression,
                }
            }
            Err(e) => Work::Ended(self.finish(file, slot, Some(format!("cannot open: {e}")))),
        }
    }

    fn read_from(&self, file: usize, slot: &mut Slot) -> Option<Work> {
        let Slot::Open {
            reader,
            parser,
            format: detected,
            next_seq,
            counted,
        } = slot
        else {
            return None;
        };
        if let Some(spare) = lock(&self.spare_blocks).pop() {
            reader.recycle(spare);
        }
        let result = reader.next_block();
        let read = reader.compressed_bytes_read();
        self.progress.inc(read.saturating_sub(*counted));
        *counted = read;
        match result {
            Ok(Some(block)) => {
                if *next_seq == 0 {
                    let Some(chosen) =
                        input_parser(reader, &block, self.schedule.format, self.schedule.fields)
                    else {
                        return Some(Work::Ended(self.finish(
                            file,
                            slot,
                            Some(UNDETECTED.to_owned()),
                        )));
                    };
                    if self.schedule.progress && self.schedule.format.is_none() {
                        self.progress.println(format!(
                            "{}: {} format",
                            self.inputs[file].name,
                            chosen.format().name()
                        ));
                    }
                    *detected = Some(chosen.format());
                    *parser = Arc::new(chosen);
                }
                let work = LineBlock {
                    input: file,
                    seq: *next_seq,
                    block,
                    parser: Arc::clone(parser),
                };
                *next_seq += 1;
                Some(Work::Block(work))
            }
            Ok(None) => Some(Work::Ended(self.finish(file, slot, None))),
            Err(e) => {
                let message = format!("stopped after {} bytes: {}", e.offset, e.message);
                Some(Work::Ended(self.finish(file, slot, Some(message))))
            }
        }
    }

    /// Closes input `file`: what its reader knows, for the handler of the calling thread.
    fn finish(&self, file: usize, slot: &mut Slot, error: Option<String>) -> InputEnded {
        let mut ended = InputEnded {
            input: file,
            error,
            ..InputEnded::default()
        };
        if let Slot::Open {
            reader,
            format,
            next_seq,
            ..
        } = &*slot
        {
            ended.blocks = *next_seq;
            ended.format = *format;
            ended.compression = Some(reader.compression().to_string());
            ended.bytes_read = reader.compressed_bytes_read();
            ended.bytes = reader.bytes();
            // An input of no content (empty, compressed or not, or damaged before its first
            // line) holds nothing to count twice: it has no fingerprint, so that such inputs
            // are never taken for one another.
            ended.fingerprint = (ended.bytes > 0).then(|| reader.fingerprint());
        }
        *slot = Slot::Finished;
        lock(&self.active).retain(|&f| f != file);
        self.unfinished.fetch_sub(1, Ordering::AcqRel);
        ended
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A budget of `threads` with `processing` workers started, none of them waited.
    fn started(threads: usize, processing: usize) -> Budget {
        let budget = Budget::new(threads);
        for _ in 0..processing {
            budget.claim();
            assert!(budget.try_start(0));
        }
        budget
    }

    #[test]
    fn the_decoders_are_lent_the_threads_no_worker_claims() {
        let budget = Budget::new(3);
        assert_eq!(budget.claim(), 2);
        assert_eq!(budget.claim(), 1);
        assert_eq!(budget.claim(), 0);
        assert!(budget.try_start(0));
        assert_eq!(budget.finish(), 1);
        // A worker that waits to start claims its thread all the same.
        assert_eq!(budget.finish(), 2);
        assert_eq!(budget.finish(), 3);
        assert_eq!(Budget::new(0).claim(), 0);
    }

    #[test]
    fn a_worker_starts_only_beside_the_decoding_tasks_the_budget_leaves_room_for() {
        // threads, workers processing, decoding tasks busy, whether one more worker starts
        let cases = [
            (3, 0, 0, true),
            (3, 2, 0, true),
            (3, 1, 1, true),
            (3, 2, 1, false),
            (3, 0, 3, false),
            (3, 0, 2, true),
            (4, 1, 2, true),
            (4, 2, 2, false),
            (1, 0, 0, true),
            (1, 0, 1, false),
        ];
        for (threads, processing, decoding, starts) in cases {
            let budget = started(threads, processing);
            budget.claim();
            assert_eq!(
                budget.try_start(decoding),
                starts,
                "{threads} threads, {processing} processing, {decoding} decoding"
            );
            let expected = processing + usize::from(starts);
            assert_eq!(budget.processing.load(Ordering::Relaxed), expected);
        }
    }

    /// One step of the workers or the decoders, for the model below.
    #[derive(Debug, Clone)]
    enum Step {
        Claim(usize),
        Start(usize),
        Finish(usize),
        DecoderStarts,
        DecoderFinishes,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..8usize).prop_map(Step::Claim),
            (0..8usize).prop_map(Step::Start),
            (0..8usize).prop_map(Step::Finish),
            Just(Step::DecoderStarts),
            Just(Step::DecoderFinishes),
        ]
    }

    proptest! {
        /// Workers and decoders interleaved any way, the decoders starting a task only within
        /// what they were last lent (at least one, as `Decoding::lend_threads` keeps): a worker
        /// starts only while the workers processing and the decoding tasks fit in the threads,
        /// and every worker that claimed a thread starts once the decoders are idle.
        #[test]
        fn workers_start_within_the_threads_the_decoders_leave(
            threads in 1..8usize,
            steps in proptest::collection::vec(step(), 0..200),
        ) {
            #[derive(Clone, Copy, PartialEq)]
            enum Worker { Idle, Claimed, Processing }
            let budget = Budget::new(threads);
            let mut workers = vec![Worker::Idle; threads];
            let mut lent = threads;
            let mut decoding = 0;
            for step in steps {
                match step {
                    Step::Claim(w) if w < threads && workers[w] == Worker::Idle => {
                        lent = budget.claim();
                        workers[w] = Worker::Claimed;
                    }
                    Step::Start(w) if w < threads && workers[w] == Worker::Claimed => {
                        let processing = budget.processing.load(Ordering::Relaxed);
                        let starts = budget.try_start(decoding);
                        prop_assert_eq!(starts, processing + 1 + decoding <= threads);
                        if starts {
                            workers[w] = Worker::Processing;
                        }
                    }
                    Step::Finish(w) if w < threads && workers[w] == Worker::Processing => {
                        lent = budget.finish();
                        workers[w] = Worker::Idle;
                    }
                    Step::DecoderStarts if decoding < lent.clamp(1, threads) => decoding += 1,
                    Step::DecoderFinishes if decoding > 0 => decoding -= 1,
                    _ => {}
                }
                let count = |state| workers.iter().filter(|&&w| w == state).count();
                let processing = count(Worker::Processing);
                prop_assert_eq!(budget.processing.load(Ordering::Relaxed), processing);
                prop_assert_eq!(
                    budget.claimed.load(Ordering::Relaxed),
                    processing + count(Worker::Claimed)
                );
                prop_assert_eq!(lent, threads - processing - count(Worker::Claimed));
            }
            for worker in workers.iter_mut().filter(|w| **w == Worker::Claimed) {
                prop_assert!(budget.try_start(0));
                *worker = Worker::Processing;
            }
        }
    }

    #[test]
    fn gzip_files_go_to_decoder_threads_only_with_threads_to_spare() {
        for threads in 1..PARALLEL_DECODING_THREADS {
            assert_eq!(decoding(threads, 0).threads(), 1, "{threads}");
        }
        for threads in PARALLEL_DECODING_THREADS..8 {
            assert_eq!(decoding(threads, 0).threads(), threads, "{threads}");
        }
    }
}
