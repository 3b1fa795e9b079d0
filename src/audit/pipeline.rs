//! The parallel pipeline: files -> blocks of lines -> verdicts and counters.
//!
//! Every worker thread does both kinds of work: it takes the next block of lines from a file,
//! decompressing it, then parses and judges that block itself, so the block is processed on the
//! core that just wrote it. Only one thread reads a file at a time; while it processes its block
//! another thread reads the next one. So `--threads N` bounds the CPU the whole run uses, one
//! gzip file is inflated without pause while its blocks are processed in parallel, and several
//! files are inflated in parallel. Memory is bounded by the blocks in flight (one per thread)
//! and the open files (at most one per thread), never by the size of the input.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use ahash::AHashMap;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jiff::Timestamp;
use robots_audit_bots::{BotRanges, Verification, Verifier};
use robots_audit_logs::{Block, Format, LineParser, LogReader, OriginParts, Request, Scratch};

use super::identity::{AgentInfo, Identifier, IdentityCache};
use super::judge::{Decider, Judge, SelectionCache, match_path};
use super::recent::RecentKeys;
use super::stats::{AgentId, OriginId, Outcome, Stats};
use super::{AuditConfig, FileReport, Input, Sample};
use crate::origin::Origin;
use crate::policy::VersionId;
use crate::report::stream::StreamedReport;
use crate::report::{DecisionRow, RowWriter, ViolationRow};

/// At most this many skipped lines are sampled per file.
pub const SAMPLES_PER_FILE: usize = 100;

/// What the workers hand back.
pub(super) struct PipelineOutput {
    pub stats: Stats,
    pub files: Vec<FileReport>,
    pub origins: Vec<String>,
}

/// A file being read. Only one thread reads a file at a time (its mutex).
enum Slot {
    Waiting,
    Open {
        reader: Box<LogReader>,
        parser: Arc<LineParser>,
        next_seq: u64,
        counted: u64,
    },
    Finished,
}

struct Work {
    file: usize,
    seq: u64,
    block: Block,
    parser: Arc<LineParser>,
}

/// The origins of the run, numbered in order of first sight.
#[derive(Default)]
struct OriginTable {
    ids: AHashMap<String, OriginId>,
    names: Vec<String>,
}

struct Shared<'a> {
    config: &'a AuditConfig,
    inputs: &'a [Input],
    identifier: &'a Identifier<'a>,
    judge: &'a Judge<'a>,
    verifier: &'a Verifier,
    slots: Vec<Mutex<Slot>>,
    reports: Vec<Mutex<FileReport>>,
    active: Mutex<Vec<usize>>,
    next_to_open: AtomicUsize,
    unfinished: AtomicUsize,
    /// The memory of processed blocks, for the readers to fill again.
    spare_blocks: Mutex<Vec<Vec<u8>>>,
    origins: Mutex<OriginTable>,
    violations: &'a StreamedReport,
    decisions: Option<&'a StreamedReport>,
    stop: AtomicBool,
    failure: Mutex<Option<String>>,
    progress: ProgressBar,
    lines: AtomicU64,
    started: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the pipeline over every input with `config.threads` threads.
pub(super) fn run(
    config: &AuditConfig,
    inputs: &[Input],
    identifier: &Identifier<'_>,
    judge: &Judge<'_>,
    verifier: &Verifier,
    violations: &StreamedReport,
    decisions: Option<&StreamedReport>,
) -> Result<PipelineOutput, String> {
    let threads = config.threads.max(1);
    let shared = Shared {
        config,
        inputs,
        identifier,
        judge,
        verifier,
        slots: inputs.iter().map(|_| Mutex::new(Slot::Waiting)).collect(),
        reports: inputs
            .iter()
            .map(|i| Mutex::new(FileReport::new(&i.name)))
            .collect(),
        active: Mutex::new(Vec::new()),
        next_to_open: AtomicUsize::new(0),
        unfinished: AtomicUsize::new(inputs.len()),
        spare_blocks: Mutex::new(Vec::new()),
        origins: Mutex::new(OriginTable::default()),
        violations,
        decisions,
        stop: AtomicBool::new(false),
        failure: Mutex::new(None),
        progress: progress_bar(config, inputs),
        lines: AtomicU64::new(0),
        started: Instant::now(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("audit-{i}"))
        .build()
        .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?;
    let results: Vec<Worker> = pool.broadcast(|_| {
        let mut worker = Worker::default();
        worker.run(&shared);
        worker
    });
    shared.progress.finish_and_clear();
    if let Some(failure) = lock(&shared.failure).take() {
        return Err(failure);
    }
    if config.interrupted() {
        return Err("interrupted".to_owned());
    }
    let mut stats = Stats::default();
    let mut files: Vec<FileReport> = shared
        .reports
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect();
    for worker in results {
        stats.merge(worker.stats);
        for (report, counts) in files.iter_mut().zip(worker.files) {
            report.merge(counts);
        }
    }
    for report in &mut files {
        report.samples.sort_by_key(|s| s.line);
        report.samples.truncate(SAMPLES_PER_FILE);
    }
    let origins = shared
        .origins
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .names;
    Ok(PipelineOutput {
        stats,
        files,
        origins,
    })
}

fn progress_bar(config: &AuditConfig, inputs: &[Input]) -> ProgressBar {
    if !config.progress {
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
    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.config.interrupted()
    }

    fn fail(&self, message: String) {
        lock(&self.failure).get_or_insert(message);
        self.stop.store(true, Ordering::Relaxed);
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
            if active.len() < self.config.threads.max(1) {
                let file = self.next_to_open.fetch_add(1, Ordering::Relaxed);
                if file < self.inputs.len() {
                    let mut slot = lock(&self.slots[file]);
                    self.open(file, &mut slot);
                    if let Some(work) = self.read_from(file, &mut slot) {
                        return Some(work);
                    }
                    continue;
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

    fn open(&self, file: usize, slot: &mut Slot) {
        let input = &self.inputs[file];
        match LogReader::open(&input.source) {
            Ok(reader) => {
                let reader = Box::new(reader);
                lock(&self.reports[file]).compression = Some(reader.compression().to_string());
                let format = self.config.format;
                *slot = Slot::Open {
                    reader,
                    parser: Arc::new(LineParser::new(
                        format.unwrap_or(Format::Combined),
                        &self.config.fields,
                    )),
                    next_seq: 0,
                    counted: 0,
                };
                lock(&self.active).push(file);
            }
            Err(e) => self.finish(file, slot, Some(format!("cannot open: {e}"))),
        }
    }

    fn read_from(&self, file: usize, slot: &mut Slot) -> Option<Work> {
        let Slot::Open {
            reader,
            parser,
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
                    let format = match self.config.format {
                        Some(format) => format,
                        None => match Format::detect(&block.data) {
                            Some(format) => {
                                *parser = Arc::new(LineParser::new(format, &self.config.fields));
                                if self.config.progress {
                                    self.progress.println(format!(
                                        "{}: {} format",
                                        self.inputs[file].name,
                                        format.name()
                                    ));
                                }
                                format
                            }
                            None => {
                                self.finish(
                                    file,
                                    slot,
                                    Some(
                                        "could not detect the log format; name it with --format"
                                            .to_owned(),
                                    ),
                                );
                                return None;
                            }
                        },
                    };
                    lock(&self.reports[file]).format = Some(format.name());
                    if !format.reads_headers() {
                        reader.ignore_headers();
                    }
                }
                let work = Work {
                    file,
                    seq: *next_seq,
                    block,
                    parser: Arc::clone(parser),
                };
                *next_seq += 1;
                Some(work)
            }
            Ok(None) => {
                self.finish(file, slot, None);
                None
            }
            Err(e) => {
                let message = format!("stopped after {} bytes: {}", e.offset, e.message);
                self.finish(file, slot, Some(message));
                None
            }
        }
    }

    fn finish(&self, file: usize, slot: &mut Slot, error: Option<String>) {
        let blocks = match slot {
            Slot::Open { next_seq, .. } => *next_seq,
            _ => 0,
        };
        let ended = self
            .violations
            .end(file, blocks)
            .and_then(|()| self.decisions.map_or(Ok(()), |d| d.end(file, blocks)));
        if let Err(e) = ended {
            self.fail(format!("cannot write reports: {e}"));
        }
        {
            let mut report = lock(&self.reports[file]);
            if let Slot::Open { reader, .. } = &*slot {
                report.bytes_read = reader.compressed_bytes_read();
                report.bytes = reader.bytes();
            }
            report.error = error;
        }
        *slot = Slot::Finished;
        lock(&self.active).retain(|&f| f != file);
        self.unfinished.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The per-file counters one worker gathered.
#[derive(Debug, Clone, Default)]
pub(super) struct FileCounts {
    pub lines: u64,
    pub parsed: u64,
    pub skipped: u64,
    pub bot_requests: u64,
    pub other_requests: u64,
    pub first_time: Option<Timestamp>,
    pub last_time: Option<Timestamp>,
    pub samples: Vec<Sample>,
}

/// A resolved origin: its id, its name (empty when the line named none) and its robots versions.
type OriginEntry = (OriginId, Arc<str>, Arc<[VersionId]>);

/// Caps each thread's cache of origins, so that a log of millions of distinct hosts does not
/// grow memory without bound.
const CACHE_LIMIT: usize = 100_000;

/// One thread's cache of resolved origins, keyed by the scheme, host and port as the line has
/// them: normalising and interning happen once per distinct spelling and thread.
#[derive(Default)]
struct OriginCache {
    /// Index into `entries` by key.
    ids: AHashMap<Box<[u8]>, usize>,
    /// Recent keys, looked at before `ids`: most lines name one of a few origins.
    recent: RecentKeys<usize>,
    entries: Vec<OriginEntry>,
    /// The origin of lines that name none: `--origin`, or the empty origin.
    default: Option<OriginEntry>,
    /// Reused to build keys.
    key: Vec<u8>,
}

impl OriginCache {
    fn resolve(&mut self, shared: &Shared<'_>, parts: OriginParts<'_>) -> &OriginEntry {
        let Some(host) = parts.host.filter(|h| !h.is_empty() && *h != b"-") else {
            return self
                .default
                .get_or_insert_with(|| intern(shared, shared.config.origin.as_ref()));
        };
        self.key.clear();
        self.key.extend_from_slice(parts.scheme.unwrap_or_default());
        self.key.push(0);
        self.key.extend_from_slice(host);
        self.key.push(0);
        self.key
            .extend_from_slice(&parts.port.unwrap_or(0).to_le_bytes());
        if let Some(index) = self.recent.get(&self.key) {
            return &self.entries[index];
        }
        let index = match self.ids.get(self.key.as_slice()) {
            Some(&index) => index,
            None => {
                if self.entries.len() >= CACHE_LIMIT {
                    self.ids.clear();
                    self.entries.clear();
                    self.recent.clear();
                }
                let origin = Origin::from_parts(parts.scheme, host, parts.port).ok();
                self.entries.push(intern(shared, origin.as_ref()));
                let index = self.entries.len() - 1;
                self.ids.insert(self.key.as_slice().into(), index);
                index
            }
        };
        self.recent.insert(&self.key, index);
        &self.entries[index]
    }
}

/// One thread's knowledge of which agents have published ranges. Most crawlers publish none,
/// and then every request is unverified: the address need not even be parsed.
#[derive(Default)]
struct AgentRanges {
    /// By [`AgentId`]: the `--verify` ranges that apply to the agent, merged; `None` until
    /// asked.
    by_agent: Vec<Option<BotRanges>>,
}

impl AgentRanges {
    fn verify(
        &mut self,
        verifier: &Verifier,
        (agent, info): (AgentId, &AgentInfo),
        client_ip: &[u8],
    ) -> Verification {
        let slot = agent as usize;
        if self.by_agent.len() <= slot {
            self.by_agent.resize(slot + 1, None);
        }
        let ranges = self.by_agent[slot].get_or_insert_with(|| verifier.ranges_for(&info.bot));
        if ranges.is_empty() {
            // Not even the address needs reading.
            Verification::Unverified
        } else {
            ranges.verify(client_ip)
        }
    }
}

/// One worker thread's state: caches in front of the shared tables, and its own counters.
#[derive(Default)]
struct Worker {
    stats: Stats,
    files: Vec<FileCounts>,
    identities: IdentityCache,
    selections: SelectionCache,
    origins: OriginCache,
    ranges: AgentRanges,
    path: Vec<u8>,
    scratch: Scratch,
    /// Rows for the streamed reports, kept from block to block with their memory and caches.
    violation_rows: RowWriter,
    decision_rows: RowWriter,
}

impl Worker {
    fn run(&mut self, shared: &Shared<'_>) {
        while let Some(work) = shared.read_next() {
            self.process(shared, work);
        }
    }

    fn process(&mut self, shared: &Shared<'_>, work: Work) {
        if self.files.len() < shared.inputs.len() {
            self.files
                .resize_with(shared.inputs.len(), FileCounts::default);
        }
        let mut violations = std::mem::take(&mut self.violation_rows);
        let mut decisions = std::mem::take(&mut self.decision_rows);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut state = work.parser.block_state(&work.block);
        let mut lines = 0u64;
        for (line_no, line) in work.block.lines() {
            lines += 1;
            // Matched by reference: binding the request by value copied it, field by field
            // (about 60 instructions a line), only to lend it to `handle`.
            match &work.parser.parse(line, &mut state, &mut scratch) {
                Ok(Some(request)) => self.handle(
                    shared,
                    &work,
                    line_no,
                    request,
                    &mut violations,
                    shared.decisions.map(|_| &mut decisions),
                ),
                Ok(None) => {}
                &Err(reason) => {
                    let counts = &mut self.files[work.file];
                    counts.skipped += 1;
                    keep_sample(
                        &mut counts.samples,
                        Sample::new(line_no, reason.as_str(), line),
                    );
                }
            }
        }
        self.scratch = scratch;
        self.files[work.file].lines += lines;
        let total = shared.lines.fetch_add(lines, Ordering::Relaxed) + lines;
        if shared.config.progress {
            let secs = shared.started.elapsed().as_secs_f64().max(1e-3);
            let files = shared.inputs.len();
            let done = files - shared.unfinished.load(Ordering::Relaxed);
            shared.progress.set_message(format!(
                "{done}/{files} files, {total} lines, {:.0} lines/s",
                total as f64 / secs
            ));
        }
        let submitted = shared
            .violations
            .submit(work.file, work.seq, violations.rows())
            .and_then(|()| match shared.decisions {
                Some(report) => report.submit(work.file, work.seq, decisions.rows()),
                None => Ok(()),
            });
        self.violation_rows = violations;
        self.decision_rows = decisions;
        if let Err(e) = submitted {
            shared.fail(format!("cannot write reports: {e}"));
        }
        let mut spare = lock(&shared.spare_blocks);
        // As many as can be in flight: one per thread.
        if spare.len() < shared.config.threads.max(1) {
            spare.push(work.block.data);
        }
    }

    fn handle(
        &mut self,
        shared: &Shared<'_>,
        work: &Work,
        line_no: u64,
        request: &Request<'_>,
        violations: &mut RowWriter,
        decisions: Option<&mut RowWriter>,
    ) {
        let counts = &mut self.files[work.file];
        counts.parsed += 1;
        counts.first_time = Some(
            counts
                .first_time
                .map_or(request.time, |t| t.min(request.time)),
        );
        counts.last_time = Some(
            counts
                .last_time
                .map_or(request.time, |t| t.max(request.time)),
        );
        // A crawler's own "not fetched" outcome (Heritrix -9998 etc.) is no request to the site.
        if request.fetch_status.is_some_and(|s| s < 0) {
            counts.other_requests += 1;
            return;
        }
        let fallback = shared.config.fallback_user_agent.as_deref();
        let Some((agent, info)) =
            self.identities
                .resolve(shared.identifier, request.user_agent, fallback)
        else {
            counts.other_requests += 1;
            return;
        };
        if info.is_bot {
            counts.bot_requests += 1;
        } else {
            counts.other_requests += 1;
        }
        let (origin_id, origin_name, versions) = self.origins.resolve(shared, request.origin);
        let path = match_path(request.target, request.query, &mut self.path);
        let judgement = shared.judge.judge(
            &mut self.selections,
            (agent, info),
            versions,
            request.time,
            path,
        );
        let verification = if info.is_bot {
            self.ranges
                .verify(shared.verifier, (agent, info), request.client_ip)
        } else {
            Verification::Unverified
        };
        let counts = self.stats.pair(agent, *origin_id);
        counts.record(request.time, judgement.outcome, request.status);
        match verification {
            Verification::Verified => counts.verified += 1,
            Verification::Spoofed => counts.spoofed += 1,
            Verification::Unverified => counts.unverified += 1,
        }
        let judged = matches!(
            judgement.outcome,
            Outcome::Allowed | Outcome::Disallowed | Outcome::Grace
        );
        if !judged {
            return;
        }
        if let Some(version) = judgement.version {
            let rule = match judgement.decider {
                Decider::Rule(rule) => Some((version, Some(rule))),
                Decider::Status => Some((version, None)),
                Decider::Nothing => None,
            };
            if let Some(rule) = rule {
                self.stats
                    .rule_decided(rule, agent, judgement.outcome == Outcome::Disallowed);
            }
        }
        let source = (shared.inputs[work.file].name.as_str(), line_no);
        let policy = shared.judge.policy();
        if judgement.outcome == Outcome::Disallowed {
            violations.violation(&ViolationRow {
                request,
                origin: origin_name,
                agent: &info.bot.name,
                verification,
                path,
                judgement: &judgement,
                policy,
                source,
            });
        }
        if let Some(decisions) = decisions {
            decisions.decision(&DecisionRow {
                request,
                origin: origin_name,
                agent: &info.bot.name,
                path,
                judgement: &judgement,
                policy,
                source,
            });
        }
    }
}

/// Numbers an origin in the run's table; `None` (a line with no usable origin and no
/// `--origin`) becomes the empty origin, whose requests stay unjudged.
fn intern(shared: &Shared<'_>, origin: Option<&Origin>) -> OriginEntry {
    let name = origin.map(Origin::to_string).unwrap_or_default();
    let versions: Arc<[VersionId]> = origin
        .map(|o| shared.judge.policy().versions_of(o))
        .unwrap_or_default()
        .into();
    let mut table = lock(&shared.origins);
    let next = OriginId::try_from(table.names.len()).unwrap_or(OriginId::MAX);
    let id = *table.ids.entry(name.clone()).or_insert(next);
    if id == next {
        table.names.push(name.clone());
    }
    (id, Arc::from(name), versions)
}

/// Keeps the [`SAMPLES_PER_FILE`] lowest-numbered samples, so that the union over threads holds
/// the first ones of the file whatever order blocks were processed in.
fn keep_sample(samples: &mut Vec<Sample>, sample: Sample) {
    if samples.len() < SAMPLES_PER_FILE {
        samples.push(sample);
        return;
    }
    if let Some((i, worst)) = samples.iter().enumerate().max_by_key(|(_, s)| s.line)
        && worst.line > sample.line
    {
        samples[i] = sample;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use robots_audit_bots::{Bot, Catalog};

    fn agent(catalog: &Catalog, name: &str) -> AgentInfo {
        let bot = catalog
            .bots()
            .iter()
            .find(|bot| bot.name == name)
            .cloned()
            .unwrap_or_else(|| Bot {
                name: name.to_owned(),
                tokens: vec![name.to_ascii_lowercase()],
                operator: String::new(),
                category: robots_audit_bots::Category::Other,
                policy: Default::default(),
            });
        AgentInfo { bot, is_bot: true }
    }

    #[test]
    fn verifications_agree_with_the_verifier() {
        let catalog = Catalog::builtin();
        let mut verifier = Verifier::new();
        verifier
            .add_ranges(
                "Googlebot",
                b"66.249.64.0/19\n2001:4860:4801::/48\n",
                "google.txt",
            )
            .unwrap();
        verifier
            .add_ranges("Microsoft", b"157.55.39.0/24\n", "bing.txt")
            .unwrap();
        let agents = [
            agent(&catalog, "Googlebot"),
            agent(&catalog, "Bingbot"),
            agent(&catalog, "GPTBot"),
            agent(&catalog, "NoSuchBot"),
        ];
        let addresses: [&[u8]; 7] = [
            b"66.249.66.1",
            b"157.55.39.7:443",
            b"[2001:4860:4801::1]",
            b"203.0.113.9",
            b"",
            b"-",
            b"not an address",
        ];
        let mut ranges = AgentRanges::default();
        for round in 0..2 {
            for (id, info) in agents.iter().enumerate() {
                let id = AgentId::try_from(id).unwrap();
                for address in addresses {
                    assert_eq!(
                        ranges.verify(&verifier, (id, info), address),
                        verifier.verify(&info.bot, address),
                        "round {round}, {} from {}",
                        info.bot.name,
                        String::from_utf8_lossy(address)
                    );
                }
            }
        }
        let ranged: Vec<bool> = ranges
            .by_agent
            .iter()
            .map(|r| r.as_ref().is_some_and(|r| !r.is_empty()))
            .collect();
        assert_eq!(ranged, [true, true, false, false]);
    }
}
