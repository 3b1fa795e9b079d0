//! What parsing carries from line to line: reusable buffers ([`Scratch`]) and what is known
//! within a block ([`BlockState`]). A leaf below the parsers: they read and update it, it
//! names none of them.

use crate::format::Format;
use crate::formats::header::Layout;
use crate::prefix::{OpenRecords, Prefix};
use crate::time::ClfMinute;
use crate::zone::ZoneMinute;

/// Reusable buffers for the values a line cannot lend (JSON strings with escapes, lines that
/// are not valid UTF-8, unescaped targets, joined records). One per worker thread; the buffers grow to the largest line's needs
/// and are then reused.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    /// For the first reading of a line.
    pub(crate) first: Buffers,
    /// For a second reading in another format, when the first found the line of another
    /// format's shape: the first reading's buffers may still be lent to its result.
    pub(crate) retry: Buffers,
    /// The messages of prefixed records that are joined or unescaped (CRI's partial records,
    /// docker's JSON), one per output stream.
    pub(crate) records: [Vec<u8>; 2],
}

/// One set of buffers a JSON reading of a line unescapes and repairs into.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffers {
    pub(crate) lossy: Vec<u8>,
    pub(crate) unescaped: Vec<u8>,
}

impl Scratch {
    /// Empty buffers.
    pub fn new() -> Scratch {
        Scratch::default()
    }
}

/// What a parser carries from one line of a block to the next: for the header-driven formats,
/// the `#Fields:` layout, the `#GMT-Offset:` and whether the `#Software:` writer quotes fields,
/// which a directive line can change mid-block; the minute of the last CLF time and of the last
/// time read in an assumed zone; the prefix of the lines and the records they leave open; and,
/// for a parser that decides the format per line, the format the last line of another format
/// was read in.
#[derive(Debug, Clone, Default)]
pub struct BlockState {
    pub(crate) layout: Option<Layout>,
    /// The offset, in seconds east of UTC, a W3C `#GMT-Offset:` directive declared: `None`
    /// without one, `Some(None)` when its value is no offset (the times it declares are then
    /// read as none, not as UTC).
    pub(crate) gmt_offset: Option<Option<i64>>,
    /// Whether the W3C writer a `#Software:` directive named never quotes a field (IIS), so
    /// that a quote the client wrote cannot join fields and shift the columns after it.
    pub(crate) unquoted: bool,
    pub(crate) clf_minute: ClfMinute,
    /// The last minute of a time without an offset read in the parser's zone.
    pub(crate) zone_minute: ZoneMinute,
    /// The format lines are tried in first, when it is not the parser's own: a stream that
    /// changed format keeps its new format from line to line without being detected again.
    pub(crate) current: Option<Format>,
    /// The prefix the block's lines have had so far.
    pub(crate) prefix: Option<Prefix>,
    /// The prefixed records of each stream that later lines of the block continue.
    pub(crate) open_records: OpenRecords,
}

impl BlockState {
    /// A state with no layout, for parsing lines that come from no [`Block`](crate::Block).
    pub fn new() -> BlockState {
        BlockState::default()
    }
}
