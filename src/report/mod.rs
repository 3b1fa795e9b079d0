//! The reports: one module per CSV file, plus the page and the summary on standard error.
//!
//! Every report renders from a [`State`] (through a [`View`]: the state and its inputs summed),
//! whether the state is an audit's or the sum `merge` made, except the streamed reports, which
//! the audit writes while it runs ([`output`]). All files are UTF-8 CSV with a header row
//! (invalid UTF-8 in the input is replaced with U+FFFD), times in RFC 3339 UTC, rates with 4
//! decimals (empty when the denominator is 0). They are written into the run's staging
//! directory, each created exclusively ([`NewFile`]), and committed as one set
//! (`src/commit`); [`files`] is the one table of their names.

pub mod agent_origins;
pub mod agents;
pub mod cells;
pub mod crawl_rate;
pub mod decisions;
pub mod files;
pub mod hourly;
pub mod html;
pub mod inputs;
pub mod notes;
pub mod output;
pub mod preference_conflicts;
pub mod robots;
pub mod rules;
pub mod stream;
pub mod summary;
pub mod unknown_agents;
pub mod violations;

use std::borrow::Cow;
use std::io;
use std::path::Path;

use ahash::AHashMap;
use jiff::Timestamp;
use robots_audit_engine::{GroupId, Robots};
use robots_audit_logs::Text;

use self::agents::AgentTotals;
use crate::audit::file_report::FileReport;
use crate::audit::identity::HeaderKey;
use crate::audit::judge::{Decider, Judgement, Outcome};
use crate::commit::NewFile;
use crate::ids::{AgentId, IdHashMap, OriginId, VersionId};
use crate::state::{State, StateError, Totals};
use crate::versions::VersionSet;

pub use self::output::{Reports, RowSink};

/// What the reports show of a [`State`]: the state, the counters of its inputs summed, and
/// each agent's counters over its origins.
#[derive(Debug)]
pub struct View<'s> {
    /// The state.
    pub state: &'s State,
    /// Its inputs summed.
    pub totals: Totals<'s>,
    /// Each agent's totals over its origins, by name.
    pub agents: Vec<AgentTotals>,
}

impl<'s> View<'s> {
    /// The view of `state`; an error names what in it is inconsistent, or a sum that overflows.
    pub fn of(state: &'s State) -> Result<View<'s>, StateError> {
        let totals = state.totals()?;
        let agents = agents::totals(state, &totals.stats)?;
        Ok(View {
            state,
            totals,
            agents,
        })
    }

    /// Whether cells are written as read (`--raw-csv`), not by the [`cells`] rule.
    pub fn raw_csv(&self) -> bool {
        self.state.settings.raw_csv
    }

    /// Each input's `inputs.csv` row, in input order.
    pub fn files(&self) -> impl Iterator<Item = &'s FileReport> + use<'s> {
        self.state.inputs.iter().map(|input| &input.file)
    }
}

/// Rows formatted by a worker thread into memory, handed to [`stream::StreamedReport`].
///
/// These reports get a row per violation or per judged request, so rows are written field by
/// field straight into the buffer, without allocating.
#[derive(Debug, Default)]
pub struct RowWriter {
    csv: CsvBuffer,
    /// Reused to put a field together before it is quoted.
    scratch: Vec<u8>,
    /// The text of the last time written, its second, and the first second of its minute when
    /// it is a whole second written as `YYYY-MM-DDTHH:MM:SSZ`: rows mostly share their minute
    /// with the row before, and then only the seconds' digits change.
    time_text: Vec<u8>,
    time_second: i64,
    time_minute: Option<i64>,
    /// Group labels already built, by version and group.
    group_labels: AHashMap<(VersionId, GroupId), String>,
    /// Version labels already built, by version (kept apart from `time_text`, which the request
    /// times of consecutive rows share).
    version_labels: Vec<Option<String>>,
    /// The input of the last `source` field, its file name followed by `:`, whether the name
    /// needs quotes, and whether the cells rule leaves it as it is ([`cells`]).
    source_input: Option<usize>,
    source_prefix: Vec<u8>,
    source_quoted: bool,
    source_plain: bool,
    /// The agent and user-agent cells written so far.
    user_agents: HeaderCells,
    /// The verdict cells of `decisions.csv` written so far.
    verdicts: VerdictCells,
    /// The origin and agent cells written last, by id.
    origins: NameCells,
    agents: NameCells,
    /// `--raw-csv`: cells as read, without the [`cells`] rule.
    raw: bool,
}

/// The cells of user-agent headers a [`RowWriter`] has written, each after its agent's, by the
/// header's key in the worker's identity cache ([`HeaderKey`]): a bot sends one header on line
/// after line, and its cell (a hundred bytes or more, most often quoted for its commas) is the
/// costliest of a row to check and format, so it is formatted once and then copied.
#[derive(Debug, Default)]
struct HeaderCells {
    /// The epoch of the keys kept: a key of another epoch may name another header.
    epoch: Option<u32>,
    /// Where each key's cells stand in `cells`, by the key's index.
    spans: Vec<Option<Span>>,
    cells: KeptBytes,
}

/// The most bytes of cells a [`HeaderCells`] keeps: at that it starts again empty, so that a log
/// of many long headers cannot grow it past this.
const HEADER_CELL_BYTES: usize = 1 << 20;

impl HeaderCells {
    /// The cells kept for `key`, if any. A key of a new epoch first empties the cache: the
    /// identity cache has forgotten the headers its keys named.
    fn get(&mut self, key: HeaderKey) -> Option<&[u8]> {
        if self.epoch != Some(key.epoch()) {
            self.spans.clear();
            self.cells.bytes.clear();
            self.epoch = Some(key.epoch());
            return None;
        }
        self.cells.get((*self.spans.get(key.index())?)?)
    }

    /// Keeps `cells` for `key` (of the epoch [`Self::get`] last saw).
    fn keep(&mut self, key: HeaderKey, cells: &[u8]) {
        let Some((span, emptied)) = self.cells.push(cells, HEADER_CELL_BYTES) else {
            return;
        };
        if emptied {
            self.spans.clear();
        }
        let at = key.index();
        if self.spans.len() <= at {
            self.spans.resize(at + 1, None);
        }
        self.spans[at] = Some(span);
    }
}

/// Where kept cells stand in a [`KeptBytes`]: start and length.
type Span = (u32, u32);

/// The bytes of kept cells, one after another, within a bound.
#[derive(Debug, Default)]
struct KeptBytes {
    bytes: Vec<u8>,
}

impl KeptBytes {
    fn get(&self, (start, len): Span) -> Option<&[u8]> {
        self.bytes
            .get(start as usize..start as usize + len as usize)
    }

    /// Appends `cells`, and says where they stand and whether every cell before them was
    /// dropped to keep the bytes within `bound` (their spans then name nothing). Cells longer
    /// than `bound` are not kept.
    fn push(&mut self, cells: &[u8], bound: usize) -> Option<(Span, bool)> {
        if cells.len() > bound {
            return None;
        }
        let emptied = self.bytes.len() + cells.len() > bound;
        let start = if emptied { 0 } else { self.bytes.len() };
        let span = (u32::try_from(start).ok()?, u32::try_from(cells.len()).ok()?);
        if emptied {
            self.bytes.clear();
        }
        self.bytes.extend_from_slice(cells);
        Some((span, emptied))
    }
}

/// The cells of the names rows repeat (an origin, an agent), a few of them, each in the slot its
/// id picks. The name is kept beside its cell and compared before the cell is used: an id that
/// stands for several names (a fold row, `src/audit/fold.rs`) never lends one name's cell to
/// another.
#[derive(Debug, Default)]
struct NameCells {
    /// `(name, cell)` by slot; made on first use, and each slot's memory reused.
    slots: Vec<(Vec<u8>, Vec<u8>)>,
}

/// The kinds of names whose cells a [`RowWriter`] keeps.
#[derive(Debug, Clone, Copy)]
enum Name {
    Origin,
    Agent,
}

/// Slots of a [`NameCells`]: a night's origins and agents are mostly fewer than this, and
/// names longer than [`NAME_CELL_MAX`] are not kept, so its memory is bounded.
const NAME_SLOTS: usize = 64;
/// The longest name, and the longest cell, a slot of a [`NameCells`] keeps.
const NAME_CELL_MAX: usize = 256;

impl NameCells {
    /// The cell of `name` (of id `index`), if its slot holds it.
    fn get(&self, index: usize, name: &[u8]) -> Option<&[u8]> {
        let (kept, cell) = self.slots.get(index % NAME_SLOTS)?;
        (kept.as_slice() == name && !cell.is_empty()).then_some(cell.as_slice())
    }

    /// Keeps `cell` for `name` (of id `index`) in its slot, in place of what the slot held.
    fn keep(&mut self, index: usize, name: &[u8], cell: &[u8]) {
        if name.len() > NAME_CELL_MAX || cell.len() > NAME_CELL_MAX {
            return;
        }
        if self.slots.is_empty() {
            self.slots.resize_with(NAME_SLOTS, Default::default);
        }
        if let Some((kept, kept_cell)) = self.slots.get_mut(index % NAME_SLOTS) {
            kept.clear();
            kept.extend_from_slice(name);
            kept_cell.clear();
            kept_cell.extend_from_slice(cell);
        }
    }
}

/// The cells a judgement comes to in `decisions.csv` (`verdict,rule,rule_line,robots_version`),
/// by what they are made of: the outcome, the version in force and what decided. A night's
/// requests come to a few hundred of these, so each is formatted once and then copied.
#[derive(Debug, Default)]
struct VerdictCells {
    /// Where each judgement's cells stand in `cells`. The key is made of the run's ids, which
    /// no log can choose, so it is hashed as the id-keyed maps are.
    spans: IdHashMap<VerdictKey, Span>,
    cells: KeptBytes,
}

/// What the verdict cells of a judgement are made of.
type VerdictKey = (Outcome, Option<VersionId>, Decider);

/// The most bytes of cells a [`VerdictCells`] keeps: at that it starts again empty, so that
/// robots.txt files of many long rules cannot grow it past this.
const VERDICT_CELL_BYTES: usize = 64 << 10;

impl VerdictCells {
    fn get(&self, key: &VerdictKey) -> Option<&[u8]> {
        self.cells.get(*self.spans.get(key)?)
    }

    fn keep(&mut self, key: VerdictKey, cells: &[u8]) {
        let Some((span, emptied)) = self.cells.push(cells, VERDICT_CELL_BYTES) else {
            return;
        };
        if emptied {
            self.spans.clear();
        }
        self.spans.insert(key, span);
    }
}

/// The length of `2026-11-20T00:00:`, the minute of a time as RFC 3339 writes it.
const MINUTE_TEXT_LEN: usize = 17;

impl RowWriter {
    /// An empty buffer of rows (no header); `raw`: cells as read (`--raw-csv`), else by the
    /// [`cells`] rule.
    pub fn new(raw: bool) -> RowWriter {
        RowWriter {
            raw,
            ..RowWriter::default()
        }
    }

    /// The rows formatted so far, each complete. The caller may take or clear them; the rows
    /// written next go after whatever is left.
    pub fn rows(&mut self) -> &mut Vec<u8> {
        &mut self.csv.out
    }

    /// A cell of text from the input or a robots.txt file (UTF-8), by the [`cells`] rule: the
    /// scan that decides the quotes also finds control bytes, and only the first byte is looked
    /// at for a formula.
    fn field(&mut self, bytes: &[u8]) {
        if self.raw {
            return self.csv.field(bytes);
        }
        let classes = scan(bytes);
        if classes & CONTROL != 0
            || cells::starts_formula(bytes)
            || (classes & NOT_ASCII != 0 && cells::has_hidden(bytes))
        {
            self.scratch.clear();
            cells::write_safe(bytes, &mut self.scratch);
            return self.csv.field(&self.scratch);
        }
        if classes & SPECIAL == 0 {
            self.csv.plain(bytes)
        } else {
            self.csv.quoted(bytes)
        }
    }

    /// Input bytes as UTF-8, invalid sequences replaced as [`text`] replaces them.
    fn text_field(&mut self, bytes: &[u8]) {
        // One look answers every question for the usual field, which is ASCII: UTF-8 is
        // validated only when a byte above ASCII was seen.
        let classes = scan(bytes);
        if classes & NOT_ASCII == 0 {
            if self.raw || (classes & CONTROL == 0 && !cells::starts_formula(bytes)) {
                return if classes & SPECIAL == 0 {
                    self.csv.plain(bytes)
                } else {
                    self.csv.quoted(bytes)
                };
            }
            return self.field(bytes);
        }
        match std::str::from_utf8(bytes) {
            Ok(valid) => self.field(valid.as_bytes()),
            Err(_) => self.field(String::from_utf8_lossy(bytes).as_bytes()),
        }
    }

    /// `agent,user_agent`: the name of agent `agent` as [`Self::agent_field`] writes it, and
    /// the user-agent header `user_agent` (of key `key`), decoded, as [`Self::text_field`]
    /// writes it. A key names one header, which the audit resolved to one agent, so both cells
    /// are formatted once per header, then copied.
    fn agent_and_user_agent_fields(
        &mut self,
        key: HeaderKey,
        (agent, name): (AgentId, &str),
        user_agent: Text<'_>,
    ) {
        if let Some(cells) = self.user_agents.get(key) {
            return self.csv.kept(cells);
        }
        let start = self.csv.next_start();
        self.agent_field(agent, name);
        // Decoding borrows the header from the block unless it is escaped in the log.
        self.text_field(&user_agent.decode());
        if let Some(cells) = self.csv.out.get(start..) {
            self.user_agents.keep(key, cells);
        }
    }

    /// `verdict,rule,rule_line,robots_version` of `judgement` (`decisions.csv`): formatted once
    /// per outcome, version and decider, then copied.
    fn verdict_fields(&mut self, robots: &VersionSet, judgement: &Judgement) {
        let key = (judgement.outcome, judgement.version, judgement.decider);
        if let Some(cells) = self.verdicts.get(&key) {
            return self.csv.kept(cells);
        }
        let start = self.csv.next_start();
        self.word_field(judgement.outcome.as_str());
        self.rule_fields(robots, judgement, false);
        self.version_field(robots, judgement);
        if let Some(cells) = self.csv.out.get(start..) {
            self.verdicts.keep(key, cells);
        }
    }

    /// The name of origin `origin`, as [`Self::field`] writes it.
    fn origin_field(&mut self, origin: OriginId, name: &str) {
        self.name_field(Name::Origin, origin.index(), name.as_bytes());
    }

    /// The name of agent `agent`, as [`Self::field`] writes it.
    fn agent_field(&mut self, agent: AgentId, name: &str) {
        self.name_field(Name::Agent, agent.index(), name.as_bytes());
    }

    /// `name` (of id `index`) as [`Self::field`] writes it: copied from the cell kept for it
    /// when it was the last name of its kind in its slot. `kind` picks the cells twice, around
    /// `field`'s borrow of the whole writer; taking them out of the writer instead cost 36 M
    /// more instructions over 491,000 decision rows.
    fn name_field(&mut self, kind: Name, index: usize, name: &[u8]) {
        let cells = match kind {
            Name::Origin => &self.origins,
            Name::Agent => &self.agents,
        };
        if let Some(cell) = cells.get(index, name) {
            return self.csv.kept(cell);
        }
        let start = self.csv.next_start();
        self.field(name);
        let cells = match kind {
            Name::Origin => &mut self.origins,
            Name::Agent => &mut self.agents,
        };
        if let Some(cell) = self.csv.out.get(start..) {
            cells.keep(index, name, cell);
        }
    }

    /// The request's method, as [`Self::text_field`] writes it: `GET`, nearly every row's, is a
    /// cell that needs no look.
    #[inline]
    fn method_field(&mut self, method: &[u8]) {
        if method == b"GET" {
            self.csv.plain(b"GET");
        } else {
            self.text_field(method);
        }
    }

    /// An HTTP status, as [`Self::number_field`] writes it: the usual three digits are written
    /// in place, without formatting a number and copying its text.
    #[inline]
    fn status_field(&mut self, status: u16) {
        match u8::try_from(status / 100) {
            Ok(hundreds @ 1..=9) => {
                let rest = status % 100;
                // `rest` is under 100, so each digit is under 10.
                self.csv.plain(&[
                    b'0' + hundreds,
                    b'0' + (rest / 10) as u8,
                    b'0' + (rest % 10) as u8,
                ]);
            }
            _ => self.number_field(status),
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

    /// `file:line`, as the `source` columns write it; `input` is the file's position among the
    /// inputs, which names it.
    fn source_field(&mut self, input: usize, (file, line): (&str, u64)) {
        // Rows of one block share their file: its `file:` and whether the cell needs quotes are
        // known already.
        if self.source_input != Some(input) {
            self.source_input = Some(input);
            self.source_prefix.clear();
            self.source_prefix.extend_from_slice(file.as_bytes());
            self.source_prefix.push(b':');
            self.source_quoted = needs_quotes(file.as_bytes());
            // The rule looks at the cell's start, so `file:` decides for every line number:
            // standard input's `-` is left alone, but its cells (`-:1`) are no number.
            self.source_plain = self.raw || !cells::changes(&self.source_prefix);
        }
        debug_assert_eq!(self.source_prefix.strip_suffix(b":"), Some(file.as_bytes()));
        let mut digits = itoa::Buffer::new();
        let line = digits.format(line).as_bytes();
        if self.source_plain && !self.source_quoted {
            self.csv.separate();
            self.csv.out.extend_from_slice(&self.source_prefix);
            self.csv.out.extend_from_slice(line);
            return;
        }
        let mut cell = std::mem::take(&mut self.scratch);
        cell.clear();
        cell.extend_from_slice(&self.source_prefix);
        cell.extend_from_slice(line);
        if self.source_plain {
            self.csv.field(&cell);
        } else {
            self.field(&cell);
        }
        self.scratch = cell;
    }

    /// A time in RFC 3339 UTC, as [`time`] writes it.
    fn time_field(&mut self, t: Timestamp) {
        let second = t.as_second();
        let whole = t.subsec_nanosecond() == 0;
        if whole
            && let Some(minute) = self.time_minute
            && second.wrapping_sub(minute).cast_unsigned() < 60
        {
            if second != self.time_second {
                let in_minute = (second - minute) as u8;
                if let Some(digits) = self.time_text.get_mut(MINUTE_TEXT_LEN..MINUTE_TEXT_LEN + 2) {
                    digits.copy_from_slice(&[b'0' + in_minute / 10, b'0' + in_minute % 10]);
                }
                self.time_second = second;
            }
            return self.csv.kept(&self.time_text);
        }
        self.time_text.clear();
        // Writing to a Vec cannot fail.
        let _ = io::Write::write_fmt(&mut self.time_text, format_args!("{t}"));
        let usual = self.time_text.len() == MINUTE_TEXT_LEN + 3
            && self.time_text.get(MINUTE_TEXT_LEN - 1) == Some(&b':');
        self.time_minute = (whole && usual).then(|| second - second.rem_euclid(60));
        self.time_second = second;
        self.csv.plain(&self.time_text);
    }

    /// The label of version `id`, [`Version::label`](crate::versions::Version::label), built once
    /// per writer.
    fn version_label_field(&mut self, robots: &VersionSet, id: VersionId) {
        let slot = id.index();
        if self.version_labels.len() <= slot {
            self.version_labels.resize(slot + 1, None);
        }
        let label = self.version_labels[slot].get_or_insert_with(|| robots.version(id).label());
        self.csv.plain(label.as_bytes());
    }

    /// The label of `group` of version `id` ([`Robots::group_label`]), built once per writer
    /// (by the [`cells`] rule: a label is a robots.txt file's text).
    fn group_field(&mut self, id: VersionId, robots: &Robots, group: GroupId) {
        let raw = self.raw;
        let label = self.group_labels.entry((id, group)).or_insert_with(|| {
            let label = robots.group_label(group);
            if raw {
                label
            } else {
                String::from_utf8_lossy(&cells::safe(label.as_bytes())).into_owned()
            }
        });
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
        if needs_quotes(bytes) {
            self.quoted(bytes);
        } else {
            self.plain(bytes);
        }
    }

    /// A field in quotes, its quotes doubled.
    fn quoted(&mut self, bytes: &[u8]) {
        self.separate();
        self.out.push(b'"');
        // Most quoted fields hold a comma and no quote: one search, one copy.
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'"', rest) {
            let (before, after) = rest.split_at(at + 1);
            self.out.extend_from_slice(before);
            self.out.push(b'"');
            rest = after;
        }
        self.out.extend_from_slice(rest);
        self.out.push(b'"');
    }

    /// A field that cannot need quotes (a number, a time, a fixed word): written without looking.
    fn plain(&mut self, bytes: &[u8]) {
        debug_assert!(!needs_quotes(bytes), "{bytes:?}");
        self.separate();
        self.out.extend_from_slice(bytes);
    }

    /// Cells written before and kept (one or more, with the commas between them), written
    /// again as the next ones.
    fn kept(&mut self, cells: &[u8]) {
        self.separate();
        self.out.extend_from_slice(cells);
    }

    /// Where the next field starts, after the comma before it: the cells written from here on
    /// can be kept and written again with [`Self::kept`].
    fn next_start(&self) -> usize {
        self.out.len() + usize::from(self.in_row)
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

/// Fields shorter than this are looked at byte by byte, longer ones in blocks of this size.
const SHORT_FIELD: usize = 16;

/// [`byte_classes`] bits.
const SPECIAL: u8 = 1;
const NOT_ASCII: u8 = 2;
const CONTROL: u8 = 4;

/// The class bits of each byte value: a comma, quote or line end needs quotes; a byte above
/// ASCII needs UTF-8 checking; a control byte is written visibly ([`cells`]).
const BYTE_CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 256 {
        classes[b] = match b as u8 {
            b',' | b'"' => SPECIAL,
            b'\n' | b'\r' => SPECIAL | CONTROL,
            0x00..=0x1F | 0x7F => CONTROL,
            0x80..=0xFF => NOT_ASCII,
            _ => 0,
        };
        b += 1;
    }
    classes
};

/// The classes of `bytes`, as [`byte_classes`] finds them: longer fields in blocks of sixteen
/// bytes without an early exit, as [`needs_quotes`] looks at them, so every question costs one
/// pass.
fn scan(bytes: &[u8]) -> u8 {
    let Some(last) = bytes.last_chunk::<SHORT_FIELD>() else {
        return byte_classes(bytes);
    };
    // Each class is one fold of booleans over the block, which the compiler turns into
    // vector compares; folding the classes into one byte per input byte kept it scalar (about
    // fourteen instructions a byte instead of three: the decision rows' cells).
    let block = |block: &[u8; SHORT_FIELD]| {
        let special = block.iter().fold(false, |found, &b| {
            found | (b == b',') | (b == b'"') | (b == b'\n') | (b == b'\r')
        });
        let control = block
            .iter()
            .fold(false, |found, &b| found | (b < 0x20) | (b == 0x7F));
        let not_ascii = block.iter().fold(false, |found, &b| found | (b >= 0x80));
        (u8::from(special) * SPECIAL)
            | (u8::from(control) * CONTROL)
            | (u8::from(not_ascii) * NOT_ASCII)
    };
    bytes
        .chunks_exact(SHORT_FIELD)
        .filter_map(<[u8]>::first_chunk::<SHORT_FIELD>)
        .fold(block(last), |classes, chunk| classes | block(chunk))
}

/// The classes found among a few bytes, one table load per byte and no branch.
fn byte_classes(bytes: &[u8]) -> u8 {
    bytes
        .iter()
        .fold(0, |classes, &b| classes | BYTE_CLASSES[usize::from(b)])
}

fn needs_quotes(bytes: &[u8]) -> bool {
    // Longer fields are looked at sixteen bytes at a time, without an early exit inside a
    // block, which the compiler turns into vector compares; the last block overlaps the one
    // before it rather than leaving a remainder to a byte loop.
    let Some(last) = bytes.last_chunk::<SHORT_FIELD>() else {
        return byte_classes(bytes) & SPECIAL != 0;
    };
    let block = |block: &[u8; SHORT_FIELD]| {
        block.iter().fold(false, |found, &b| {
            found | (b == b',') | (b == b'"') | (b == b'\n') | (b == b'\r')
        })
    };
    bytes
        .chunks_exact(SHORT_FIELD)
        .filter_map(<[u8]>::first_chunk::<SHORT_FIELD>)
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

/// Writes one complete CSV file into `dir` (a staging directory), synced: the header, then
/// `rows`, each cell by the [`cells`] rule unless `raw` (`--raw-csv`).
pub fn write_csv<R, I>(dir: &Path, name: &str, header: &str, raw: bool, rows: I) -> io::Result<()>
where
    I: IntoIterator<Item = R>,
    R: IntoIterator,
    R::Item: AsRef<[u8]>,
{
    let mut file = NewFile::create(dir, name)?;
    {
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(&mut file);
        csv.write_record(header.split(','))?;
        for row in rows {
            if raw {
                csv.write_record(row)?;
            } else {
                let row: Vec<R::Item> = row.into_iter().collect();
                csv.write_record(row.iter().map(|cell| cells::safe(cell.as_ref())))?;
            }
        }
        csv.flush()?;
    }
    file.finish()
}

#[cfg(test)]
mod tests {
    use robots_audit_bots::Catalog;
    use robots_audit_logs::TextEncoding;

    use super::*;
    use crate::audit::identity::{Identifier, IdentityCache};
    use crate::versions::FetchStatus;

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

    /// Every status is written as the general number cell writes it, with the fields around it
    /// separated as before.
    #[test]
    fn statuses_are_written_as_numbers_are() {
        for status in 0..=u16::MAX {
            let (mut fast, mut general) = (RowWriter::new(false), RowWriter::new(false));
            for rows in [&mut fast, &mut general] {
                rows.word_field("x");
            }
            fast.status_field(status);
            general.number_field(status);
            assert_eq!(fast.rows(), general.rows(), "status {status}");
        }
    }

    /// Methods, `GET` and others, alone in a row or after a field, and with either cell mode,
    /// are written as any text field is: `GET` is only a shortcut.
    #[test]
    fn methods_are_written_as_text_fields_are() {
        let methods: [&[u8]; 9] = [
            b"GET", b"GETS", b"GE", b"get", b"POST", b"-", b"=GET", b"G,ET", b"G\xc3T",
        ];
        for raw in [false, true] {
            for method in methods {
                for after_field in [false, true] {
                    let (mut fast, mut general) = (RowWriter::new(raw), RowWriter::new(raw));
                    for rows in [&mut fast, &mut general] {
                        if after_field {
                            rows.word_field("x");
                        }
                    }
                    fast.method_field(method);
                    general.text_field(method);
                    assert_eq!(fast.rows(), general.rows(), "{method:?}, raw {raw}");
                }
            }
        }
    }

    /// The block scan of long fields finds what the byte table says, for every byte value at
    /// every position of fields of one, two and a half blocks (the last one overlapping).
    #[test]
    fn scan_agrees_with_the_byte_table_for_every_byte_anywhere() {
        for len in [
            SHORT_FIELD,
            2 * SHORT_FIELD,
            2 * SHORT_FIELD + SHORT_FIELD / 2,
        ] {
            for at in 0..len {
                for byte in 0..=u8::MAX {
                    let mut field = vec![b'a'; len];
                    field[at] = byte;
                    assert_eq!(
                        scan(&field),
                        byte_classes(&field),
                        "byte {byte:#04x} at {at} of {len}"
                    );
                    assert_eq!(
                        needs_quotes(&field),
                        byte_classes(&field) & SPECIAL != 0,
                        "byte {byte:#04x} at {at} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn times_and_sources_are_written_like_the_other_reports() {
        let t = |s| Timestamp::from_second(s).unwrap();
        let mut rows = RowWriter::new(true);
        for (time, input, file, line) in [
            (t(0), 0, "logs/a,b.log", 1),
            (t(0), 0, "logs/a,b.log", 2),
            (t(61), 1, "logs/plain.log", 3),
            (t(0), 0, "logs/a,b.log", 40),
        ] {
            rows.time_field(time);
            rows.source_field(input, (file, line));
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

    /// User-agent headers of every kind a cell can come from: a bot's with commas, a formula,
    /// quotes, control and invalid bytes, escapes that decode differently by encoding, empty.
    const USER_AGENTS: [&[u8]; 7] = [
        b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        b"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)",
        b"=HYPERLINK(\"http://x\")",
        b"curl/8.0",
        b"a\"b,c\xFF\x00d\r\n",
        b"",
        b"Googlebot+%2C\\x22/2.1",
    ];

    /// Origin and agent names of every kind a cell can come from (`None`: longer than a slot
    /// keeps).
    const NAMES: [Option<&str>; 7] = [
        Some("https://www.example.com"),
        Some("https://shop.example.org:8443"),
        Some("Googlebot"),
        Some("=cmd|' /C calc'!A0"),
        Some("a,\"b\""),
        Some(""),
        None,
    ];

    /// The cache of user-agent cells keeps at most its bound in bytes, whatever the headers:
    /// one longer than the bound is written and not kept, and many distinct ones restart it.
    #[test]
    fn user_agent_cells_stay_within_their_bound() {
        let catalog = Catalog::builtin();
        let identifier = Identifier::new(&catalog, false);
        let mut identities = IdentityCache::default();
        let mut writer = RowWriter::new(false);
        let agent = (AgentId::from_index(0).unwrap(), "x");
        let huge = vec![b'x'; HEADER_CELL_BYTES + 1];
        let key = identities.resolve(&identifier, &Text::raw(&huge), None).key;
        writer.agent_and_user_agent_fields(key, agent, Text::raw(&huge));
        writer.end_row();
        assert_eq!(writer.rows().len(), 2 + huge.len() + 1);
        assert!(writer.user_agents.cells.bytes.is_empty());
        writer.rows().clear();
        for n in 0..3_000 {
            let header = format!("{n:04}{}", "y".repeat(1_000));
            let header = Text::raw(header.as_bytes());
            let key = identities.resolve(&identifier, &header, None).key;
            writer.agent_and_user_agent_fields(key, agent, header);
            writer.end_row();
            assert!(writer.rows().strip_suffix(b"\n") == Some(&[b"x,", header.raw].concat()[..]));
            writer.rows().clear();
            assert!(writer.user_agents.cells.bytes.len() <= HEADER_CELL_BYTES);
        }
        assert!(writer.user_agents.cells.bytes.len() > HEADER_CELL_BYTES / 2);
    }

    proptest::proptest! {
        /// Times as rows bring them: runs within a few minutes, whole and fractional seconds,
        /// around years that RFC 3339 writes with a sign and more digits.
        #[test]
        fn row_times_are_written_as_jiff_writes_them(
            runs in proptest::collection::vec(
                (
                    proptest::prop_oneof![
                        1_700_000_000i64..1_700_000_200,
                        -377_705_116_800i64..-377_705_116_000,
                        -62_167_219_300i64..-62_167_219_100,
                        -100i64..100,
                        253_402_300_000i64..253_402_300_799,
                    ],
                    proptest::collection::vec(
                        (
                            0i64..150,
                            proptest::prop_oneof![
                                4 => proptest::strategy::Just(0i32),
                                1 => 0i32..1_000_000_000,
                            ],
                        ),
                        1..12,
                    ),
                ),
                1..6,
            )
        ) {
            let mut rows = RowWriter::new(true);
            let mut expected = String::new();
            for (base, offsets) in runs {
                for (offset, nanosecond) in offsets {
                    let Ok(t) = Timestamp::new(base + offset, nanosecond) else {
                        continue;
                    };
                    rows.time_field(t);
                    rows.end_row();
                    expected.push_str(&time(Some(t)));
                    expected.push('\n');
                }
            }
            proptest::prop_assert_eq!(String::from_utf8(std::mem::take(rows.rows())).unwrap(), expected);
        }

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

        /// Input bytes of any kind, short and long: text fields write the lossy UTF-8 of the
        /// bytes, quoted as the csv crate quotes it.
        #[test]
        fn text_fields_are_lossy_utf8_quoted_as_the_csv_crate_quotes_them(
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::collection::vec(
                        proptest::prop_oneof![
                            8 => proptest::strategy::Just(b'a'),
                            1 => proptest::strategy::Just(b','),
                            1 => proptest::strategy::Just(b'"'),
                            1 => proptest::strategy::Just(b'\r'),
                            1 => proptest::strategy::Just(0xC3u8),
                            1 => proptest::strategy::Just(0xA4u8),
                            2 => proptest::num::u8::ANY,
                        ],
                        0..40,
                    ),
                    2..5,
                ),
                0..6,
            )
        ) {
            let mut writer = RowWriter::new(true);
            for row in &rows {
                for field in row {
                    writer.text_field(field);
                }
                writer.end_row();
            }
            let lossy: Vec<Vec<Vec<u8>>> = rows
                .iter()
                .map(|row| row.iter().map(|f| text(f).into_owned().into_bytes()).collect())
                .collect();
            proptest::prop_assert_eq!(std::mem::take(writer.rows()), csv_crate(&lossy));
        }

        /// A header's cells copied from the writer's cache are the cells `field` writes for
        /// its agent's name and `text_field` for the decoded header afresh, whatever the order
        /// of the headers, their encodings, their agents, their place in the row, and the
        /// identity cache starting new epochs (whose keys name other headers).
        #[test]
        fn user_agent_cells_from_the_cache_are_the_cells_written_afresh(
            raw in proptest::bool::ANY,
            requests in proptest::collection::vec(
                (
                    0..USER_AGENTS.len(),
                    0usize..4,
                    proptest::bool::ANY,
                    proptest::bool::weighted(0.1),
                ),
                1..80,
            ),
        ) {
            let encodings = [
                TextEncoding::Raw,
                TextEncoding::Plus,
                TextEncoding::Percent,
                TextEncoding::Backslash,
            ];
            let catalog = Catalog::builtin();
            let identifier = Identifier::new(&catalog, true);
            let mut identities = IdentityCache::default();
            let (mut cached, mut fresh) = (RowWriter::new(raw), RowWriter::new(raw));
            for (header, encoding, first, forget) in requests {
                if forget {
                    identities.forget();
                }
                let header = Text {
                    raw: USER_AGENTS[header],
                    encoding: encodings[encoding],
                };
                let identified = identities.resolve(&identifier, &header, None);
                let (agent, info) = identified.agent.expect("every header is judged");
                let agent = (agent, info.bot.name.as_str());
                for writer in [&mut cached, &mut fresh] {
                    if !first {
                        writer.word_field("GET");
                    }
                }
                cached.agent_and_user_agent_fields(identified.key, agent, header);
                fresh.field(agent.1.as_bytes());
                fresh.text_field(&header.decode());
                for writer in [&mut cached, &mut fresh] {
                    writer.word_field("200");
                    writer.end_row();
                }
            }
            proptest::prop_assert_eq!(cached.rows(), fresh.rows());
        }

        /// An origin's or agent's cell copied from the writer's slots is the cell `field`
        /// writes afresh, whatever the ids and the place in the row: ids sharing a slot, an id
        /// standing for several names (a fold row), names that need quotes or neutralising,
        /// empty and long names.
        #[test]
        fn name_cells_from_the_slots_are_the_cells_written_afresh(
            raw in proptest::bool::ANY,
            names in proptest::collection::vec(
                (0u32..200, 0..NAMES.len(), proptest::bool::ANY, proptest::bool::ANY),
                1..120,
            ),
        ) {
            let long = "x".repeat(NAME_CELL_MAX + 1);
            let (mut cached, mut fresh) = (RowWriter::new(raw), RowWriter::new(raw));
            for (id, name, agent, first) in names {
                let name = NAMES[name].unwrap_or(long.as_str());
                for writer in [&mut cached, &mut fresh] {
                    if !first {
                        writer.word_field("GET");
                    }
                }
                if agent {
                    let id = AgentId::from_index(id as usize).unwrap();
                    cached.agent_field(id, name);
                } else {
                    let id = OriginId::from_index(id as usize).unwrap();
                    cached.origin_field(id, name);
                }
                fresh.field(name.as_bytes());
                for writer in [&mut cached, &mut fresh] {
                    writer.end_row();
                }
            }
            proptest::prop_assert_eq!(cached.rows(), fresh.rows());
        }

        /// A judgement's verdict cells copied from the writer's cache are the cells written
        /// afresh, whatever the outcome, the version (a file's, a failed fetch's, none) and the
        /// rule, including rules that need quotes or neutralising, and with the cache starting
        /// again when full.
        #[test]
        fn verdict_cells_from_the_cache_are_the_cells_written_afresh(
            raw in proptest::bool::ANY,
            judgements in proptest::collection::vec((0usize..6, 0usize..4, 0u32..6), 1..80),
        ) {
            let mut robots = VersionSet::new();
            let bodies = [
                "User-agent: *\nDisallow: /a,b\nAllow: /\"q\"\nDisallow: =cmd\nDisallow: /x\n",
                "User-agent: *\nDisallow: /\n",
            ];
            let mut versions = vec![None];
            for (at, (body, status)) in [
                (bodies[0], FetchStatus::Http(200)),
                (bodies[1], FetchStatus::Http(200)),
                ("", FetchStatus::Http(503)),
            ]
            .into_iter()
            .enumerate()
            {
                let id = robots
                    .add(crate::versions::Version {
                        origin: "a.example".into(),
                        valid_from: Some(Timestamp::from_second(at as i64).unwrap()),
                        status,
                        robots: (status == FetchStatus::Http(200))
                            .then(|| Robots::parse(body.as_bytes()).into()),
                        source: "test".into(),
                        bytes: body.len() as u64,
                        sha256: None,
                    })
                    .unwrap();
                versions.push(Some(id));
            }
            let outcomes = [
                Outcome::Allowed,
                Outcome::Disallowed,
                Outcome::Grace,
                Outcome::Exempt,
                Outcome::Unjudged,
                Outcome::RobotsFetch,
            ];
            let (mut cached, mut fresh) = (RowWriter::new(raw), RowWriter::new(raw));
            for (n, (outcome, version, rule)) in judgements.into_iter().enumerate() {
                if n % 17 == 16 {
                    // Fills the cache under a version no judgement names: the next cells kept
                    // empty it.
                    let unused = VersionId::from_index(99).unwrap();
                    cached.verdicts.keep(
                        (Outcome::Allowed, Some(unused), Decider::Nothing),
                        &vec![b'x'; VERDICT_CELL_BYTES],
                    );
                }
                let decider = match rule {
                    0 => Decider::Nothing,
                    1 => Decider::Status,
                    rule => Decider::Rule(rule - 2),
                };
                let judgement = Judgement {
                    outcome: outcomes[outcome],
                    version: versions[version],
                    decider,
                    ..Judgement::unjudged()
                };
                for writer in [&mut cached, &mut fresh] {
                    writer.word_field("GET");
                }
                cached.verdict_fields(&robots, &judgement);
                fresh.word_field(judgement.outcome.as_str());
                fresh.rule_fields(&robots, &judgement, false);
                fresh.version_field(&robots, &judgement);
                for writer in [&mut cached, &mut fresh] {
                    writer.end_row();
                }
            }
            proptest::prop_assert_eq!(cached.rows(), fresh.rows());
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
