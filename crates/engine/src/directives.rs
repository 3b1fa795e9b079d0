//! Directives beyond Google's rules: crawl rate (`Crawl-delay`, `Request-rate`, `Visit-time`)
//! and usage preferences (`Content-Signal`, `Content-Usage`), described in docs/robots-txt.md.
//!
//! Invariants:
//! - Google's tokenizer classifies every one of these keys as unknown, and the parser hands a
//!   line over only after that classification, so these lines never start or end a group and
//!   never touch Allow/Disallow verdicts: they attach to the group the streaming matcher is in.
//! - A directive's value is parsed once, at parse time; the per-selection accessors on
//!   [`Robots`](crate::Robots) walk the selected groups' directives without allocating.
//! - A line whose value cannot be read takes no effect and is listed in
//!   [`Robots::ignored_directives`](crate::Robots::ignored_directives) with its reason.

use std::ops::Range;
use std::time::Duration;

use crate::GroupId;
use crate::ascii::{is_space, trim};
use crate::pattern::{escape_pattern, glob_matches_parts};

/// Which extension directive a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DirectiveKind {
    /// `Crawl-delay: N`, seconds between two requests.
    CrawlDelay,
    /// `Request-rate: R/S`, at most `R` requests per `S` seconds.
    RequestRate,
    /// `Visit-time: HHMM-HHMM`, a UTC window in which to crawl.
    VisitTime,
    /// `Content-Signal: [path] search=yes, ai-input=no, ai-train=no` (Cloudflare's Content
    /// Signals Policy).
    ContentSignal,
    /// `Content-Usage: <path> <preferences>` (IETF aipref attachment draft).
    ContentUsage,
}

impl DirectiveKind {
    /// Every kind, in the order of this enum.
    pub const ALL: [DirectiveKind; 5] = [
        DirectiveKind::CrawlDelay,
        DirectiveKind::RequestRate,
        DirectiveKind::VisitTime,
        DirectiveKind::ContentSignal,
        DirectiveKind::ContentUsage,
    ];

    /// The directive's name as usually written, such as `Crawl-delay`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DirectiveKind::CrawlDelay => "Crawl-delay",
            DirectiveKind::RequestRate => "Request-rate",
            DirectiveKind::VisitTime => "Visit-time",
            DirectiveKind::ContentSignal => "Content-Signal",
            DirectiveKind::ContentUsage => "Content-Usage",
        }
    }

    /// The kind a key names: the whole key, ASCII case-insensitive (no prefix matching and no
    /// typos: none were found in the real files, and a loose match could take over keys that
    /// mean something else).
    pub(crate) fn of_key(key: &[u8]) -> Option<DirectiveKind> {
        DirectiveKind::ALL
            .into_iter()
            .find(|kind| kind.name().as_bytes().eq_ignore_ascii_case(key))
    }
}

/// `Request-rate: R/S`: at most `requests` per `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestRate {
    /// Requests allowed in each period, at least 1.
    pub requests: u32,
    /// The period, more than zero.
    pub per: Duration,
}

impl RequestRate {
    /// The interval this rate leaves between two requests (`per / requests`).
    #[must_use]
    pub fn interval(&self) -> Duration {
        self.per / self.requests.max(1)
    }

    /// Whether `self` allows fewer requests per unit of time than `other`.
    fn stricter_than(&self, other: &RequestRate) -> bool {
        // requests / per < other.requests / other.per, without division.
        u128::from(self.requests) * other.per.as_nanos()
            < u128::from(other.requests) * self.per.as_nanos()
    }
}

/// `Visit-time: HHMM-HHMM`: a window of the UTC day, in minutes since midnight. A window whose
/// end is before its start wraps past midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VisitTime {
    /// First minute of the window (0 to 1439).
    pub start: u16,
    /// Minute the window ends, exclusive (1 to 1440).
    pub end: u16,
}

impl VisitTime {
    /// Whether the window holds `second_of_day` (0 to 86,399, UTC).
    #[must_use]
    pub fn contains(&self, second_of_day: u32) -> bool {
        let minute = second_of_day / 60 % 1440;
        let (start, end) = (u32::from(self.start), u32::from(self.end));
        if start < end {
            (start..end).contains(&minute)
        } else {
            minute >= start || minute < end
        }
    }
}

/// A stated preference: allow (`yes`, `y`) or disallow (`no`, `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stance {
    /// The use is allowed.
    Yes,
    /// The use is withheld.
    No,
}

/// A use of content that a preference can speak about, as the audit asks it.
///
/// Content-Signal names each directly (`ai-train`, `ai-input`, `search`). For Content-Usage the
/// vocabulary's labels are looked up from the narrowest to the broadest category, and the first
/// one stated decides (see [`Use::usage_labels`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Use {
    /// Training or fine-tuning AI models.
    TrainAi,
    /// Content given to an AI model at answer time (retrieval, grounding, assistants).
    AiInput,
    /// Building a search index and showing links and excerpts.
    Search,
}

impl Use {
    /// Every use, in the order of this enum.
    pub const ALL: [Use; 3] = [Use::TrainAi, Use::AiInput, Use::Search];

    /// The Content-Signal key for this use.
    #[must_use]
    pub fn signal_key(self) -> &'static str {
        match self {
            Use::TrainAi => "ai-train",
            Use::AiInput => "ai-input",
            Use::Search => "search",
        }
    }

    /// The aipref vocabulary labels that speak about this use, narrowest first. `train-ai` and
    /// `search` are the categories of draft-ietf-aipref-vocab-07; `ai-use` (-02), `ai-output`
    /// (-04), `bots` (-03, -04) and `all` (-02) are categories of earlier revisions that still
    /// appear in deployed files, kept with the hierarchy those revisions gave them.
    #[must_use]
    pub fn usage_labels(self) -> &'static [&'static str] {
        match self {
            Use::TrainAi => &["train-ai", "bots", "all"],
            Use::AiInput => &["ai-use", "ai-output", "bots", "all"],
            Use::Search => &["search", "ai-output", "bots", "all"],
        }
    }

    fn index(self) -> usize {
        match self {
            Use::TrainAi => 0,
            Use::AiInput => 1,
            Use::Search => 2,
        }
    }
}

/// A path-scoped statement of preferences (one Content-Signal or Content-Usage line), resolved
/// per [`Use`] when parsed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Statement {
    /// The path pattern after [`escape_pattern`], empty when the line names none (then it
    /// applies to every path). Its length is the statement's priority, as for Allow and Disallow.
    pub pattern: Box<[u8]>,
    /// The stance for each use in [`Use::ALL`] order; `None` when the line says nothing.
    pub stances: [Option<Stance>; 3],
}

impl Statement {
    /// What the statement says about `use_`.
    #[must_use]
    pub fn stance(&self, use_: Use) -> Option<Stance> {
        self.stances.get(use_.index()).copied().flatten()
    }

    fn matches(&self, path: &[u8]) -> bool {
        match self.pattern.split_last() {
            Some((b'$', body)) => glob_matches_parts(body, true, path),
            _ => glob_matches_parts(&self.pattern, false, path),
        }
    }
}

/// The parsed value of a directive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DirectiveValue {
    /// The delay of a `Crawl-delay` line.
    CrawlDelay(Duration),
    /// A `Request-rate` line.
    RequestRate(RequestRate),
    /// A `Visit-time` line.
    VisitTime(VisitTime),
    /// A `Content-Signal` line.
    ContentSignal(Statement),
    /// A `Content-Usage` line.
    ContentUsage(Statement),
}

impl DirectiveValue {
    /// The kind of directive this value came from.
    #[must_use]
    pub fn kind(&self) -> DirectiveKind {
        match self {
            DirectiveValue::CrawlDelay(_) => DirectiveKind::CrawlDelay,
            DirectiveValue::RequestRate(_) => DirectiveKind::RequestRate,
            DirectiveValue::VisitTime(_) => DirectiveKind::VisitTime,
            DirectiveValue::ContentSignal(_) => DirectiveKind::ContentSignal,
            DirectiveValue::ContentUsage(_) => DirectiveKind::ContentUsage,
        }
    }
}

/// One extension directive that took effect, inside a group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Directive {
    /// The parsed value.
    pub value: DirectiveValue,
    /// The line as written, comment and outer whitespace removed (lossy UTF-8), such as
    /// `Crawl-delay: 10`.
    pub text: String,
    /// The line number, counted as Google counts them.
    pub line: u32,
    /// The group the directive belongs to.
    pub group: GroupId,
}

/// Why an extension line took no effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IgnoredReason {
    /// The line comes before any user-agent line, so it belongs to no group.
    OutsideGroup,
    /// The value is empty.
    Empty,
    /// The value cannot be read as this directive's syntax.
    Malformed,
    /// The value is read but states nothing this engine knows: only unknown keys or labels, or
    /// no `yes`/`no` value among the known ones.
    NothingKnown,
}

impl IgnoredReason {
    /// A short name for reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            IgnoredReason::OutsideGroup => "outside_group",
            IgnoredReason::Empty => "empty",
            IgnoredReason::Malformed => "malformed",
            IgnoredReason::NothingKnown => "nothing_known",
        }
    }
}

/// An extension line that took no effect.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IgnoredDirective {
    /// Which directive the key named.
    pub kind: DirectiveKind,
    /// Why it was ignored.
    pub reason: IgnoredReason,
    /// The line as written, comment and outer whitespace removed (lossy UTF-8).
    pub text: String,
    /// The line number.
    pub line: u32,
}

/// A preference in force for a path and a use, with the line that states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Preference<'a> {
    /// Allowed or withheld.
    pub value: Stance,
    /// Content-Signal or Content-Usage.
    pub kind: DirectiveKind,
    /// The line number of the deciding directive.
    pub line: u32,
    /// The deciding directive as written.
    pub text: &'a str,
}

/// The extension directives of one body, with each group's share.
#[derive(Debug, Default)]
pub(crate) struct Directives {
    pub(crate) all: Vec<Directive>,
    /// Each group's directives in `all`, indexed by group; groups without any may be missing.
    by_group: Vec<Range<u32>>,
    /// Each group's effective crawl delay and request rate in `all`, precomputed.
    strictest: Vec<(Option<u32>, Option<u32>)>,
    pub(crate) ignored: Vec<IgnoredDirective>,
}

impl Directives {
    /// Reads an extension line; `group` is the group the streaming matcher is in, if any.
    /// Returns `None` when the key is not an extension, otherwise whether the line took effect.
    pub(crate) fn line(
        &mut self,
        number: u32,
        key: &[u8],
        value: &[u8],
        content: &[u8],
        group: Option<GroupId>,
    ) -> Option<bool> {
        let kind = DirectiveKind::of_key(key)?;
        let text = String::from_utf8_lossy(content).into_owned();
        let parsed = match group {
            None => Err(IgnoredReason::OutsideGroup),
            Some(_) if value.is_empty() => Err(IgnoredReason::Empty),
            Some(group) => parse_value(kind, value).map(|value| (value, group)),
        };
        match parsed {
            Ok((value, group)) => {
                self.push(Directive {
                    value,
                    text,
                    line: number,
                    group,
                });
                Some(true)
            }
            Err(reason) => {
                self.ignored.push(IgnoredDirective {
                    kind,
                    reason,
                    text,
                    line: number,
                });
                Some(false)
            }
        }
    }

    fn push(&mut self, directive: Directive) {
        let group = directive.group as usize;
        let index = u32::try_from(self.all.len()).unwrap_or(u32::MAX);
        if self.by_group.len() <= group {
            self.by_group.resize(group + 1, index..index);
            self.strictest.resize(group + 1, (None, None));
        }
        let (Some(range), Some(strictest)) =
            (self.by_group.get_mut(group), self.strictest.get_mut(group))
        else {
            return;
        };
        if range.start == range.end {
            *range = index..index;
        }
        range.end = index.saturating_add(1);
        match &directive.value {
            DirectiveValue::CrawlDelay(delay) => {
                let longer = strictest.0.and_then(|at| self.all.get(at as usize)).is_none_or(
                    |current| matches!(current.value, DirectiveValue::CrawlDelay(d) if *delay > d),
                );
                if longer {
                    strictest.0 = Some(index);
                }
            }
            DirectiveValue::RequestRate(rate) => {
                let stricter = strictest.1.and_then(|at| self.all.get(at as usize)).is_none_or(
                    |current| matches!(&current.value, DirectiveValue::RequestRate(r) if rate.stricter_than(r)),
                );
                if stricter {
                    strictest.1 = Some(index);
                }
            }
            _ => {}
        }
        self.all.push(directive);
    }

    /// The directives of `group`, in file order.
    pub(crate) fn of_group(&self, group: GroupId) -> &[Directive] {
        self.by_group
            .get(group as usize)
            .and_then(|range| self.all.get(range.start as usize..range.end as usize))
            .unwrap_or_default()
    }

    /// The longest crawl delay over `groups`, the first in file order among equal ones.
    pub(crate) fn crawl_delay(&self, groups: &[GroupId]) -> Option<(Duration, &Directive)> {
        let mut best: Option<(Duration, &Directive)> = None;
        for directive in groups.iter().filter_map(|group| {
            let at = self.strictest.get(*group as usize)?.0?;
            self.all.get(at as usize)
        }) {
            if let DirectiveValue::CrawlDelay(delay) = directive.value
                && best.is_none_or(|(longest, _)| delay > longest)
            {
                best = Some((delay, directive));
            }
        }
        best
    }

    /// The strictest request rate over `groups`, the first in file order among equal ones.
    pub(crate) fn request_rate(&self, groups: &[GroupId]) -> Option<(RequestRate, &Directive)> {
        let mut best: Option<(RequestRate, &Directive)> = None;
        for directive in groups.iter().filter_map(|group| {
            let at = self.strictest.get(*group as usize)?.1?;
            self.all.get(at as usize)
        }) {
            if let DirectiveValue::RequestRate(rate) = directive.value
                && best.is_none_or(|(strictest, _)| rate.stricter_than(&strictest))
            {
                best = Some((rate, directive));
            }
        }
        best
    }

    /// The preference of `kind` statements over `groups` for `path` and `use_`: among the
    /// statements whose pattern matches, the longest pattern decides; among equally long ones
    /// that speak about the use, a `No` wins; the first in file order is reported.
    pub(crate) fn preference(
        &self,
        groups: &[GroupId],
        kind: DirectiveKind,
        path: &[u8],
        use_: Use,
    ) -> Option<Preference<'_>> {
        // (priority, stance, directive) of the best statement so far; the stance is None when
        // the longest statement is silent about the use.
        let mut best: Option<(usize, Option<Stance>, &Directive)> = None;
        for directive in groups.iter().flat_map(|group| self.of_group(*group)) {
            let statement = match (&directive.value, kind) {
                (DirectiveValue::ContentSignal(s), DirectiveKind::ContentSignal)
                | (DirectiveValue::ContentUsage(s), DirectiveKind::ContentUsage) => s,
                _ => continue,
            };
            let priority = statement.pattern.len();
            if best.is_some_and(|(p, _, _)| priority < p) || !statement.matches(path) {
                continue;
            }
            let stance = statement.stance(use_);
            let replace = best.is_none_or(|(p, current, _)| {
                priority > p || stance_rank(stance) > stance_rank(current)
            });
            if replace {
                best = Some((priority, stance, directive));
            }
        }
        let (_, stance, directive) = best?;
        Some(Preference {
            value: stance?,
            kind,
            line: directive.line,
            text: &directive.text,
        })
    }
}

/// Silence < yes < no: the most restrictive statement wins a tie (aipref vocabulary, combining
/// preferences).
fn stance_rank(stance: Option<Stance>) -> u8 {
    match stance {
        None => 0,
        Some(Stance::Yes) => 1,
        Some(Stance::No) => 2,
    }
}

fn parse_value(kind: DirectiveKind, value: &[u8]) -> Result<DirectiveValue, IgnoredReason> {
    match kind {
        DirectiveKind::CrawlDelay => parse_crawl_delay(value).map(DirectiveValue::CrawlDelay),
        DirectiveKind::RequestRate => parse_request_rate(value).map(DirectiveValue::RequestRate),
        DirectiveKind::VisitTime => parse_visit_time(value).map(DirectiveValue::VisitTime),
        DirectiveKind::ContentSignal => {
            parse_content_signal(value).map(DirectiveValue::ContentSignal)
        }
        DirectiveKind::ContentUsage => parse_content_usage(value).map(DirectiveValue::ContentUsage),
    }
}

/// Decimal seconds: `10`, `0.5`, `.5`, `10.` ; up to nine fractional digits are kept.
fn parse_seconds(value: &[u8]) -> Option<Duration> {
    let (whole, fraction) = match memchr::memchr(b'.', value) {
        Some(dot) => (value.get(..dot)?, value.get(dot + 1..)?),
        None => (value, &b""[..]),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.iter().chain(fraction).all(u8::is_ascii_digit) {
        return None;
    }
    let mut seconds: u64 = 0;
    for digit in whole {
        seconds = seconds
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    let mut nanos: u32 = 0;
    for position in 0..9 {
        let digit = fraction.get(position).map_or(0, |d| u32::from(d - b'0'));
        nanos = nanos * 10 + digit;
    }
    Some(Duration::new(seconds, nanos))
}

/// Splits a trailing unit word off a number: `10s`, `10 sec`, `5m`.
fn split_unit(value: &[u8]) -> (&[u8], &[u8]) {
    let unit_start = value
        .iter()
        .rposition(|b| !b.is_ascii_alphabetic())
        .map_or(0, |last| last + 1);
    let (number, unit) = value.split_at(unit_start);
    (trim(number), unit)
}

/// `N` seconds, fractions allowed; the `10s` form seen in the wild is read as seconds.
fn parse_crawl_delay(value: &[u8]) -> Result<Duration, IgnoredReason> {
    let (number, unit) = split_unit(value);
    let is_seconds = unit.is_empty()
        || [&b"s"[..], b"sec", b"secs", b"second", b"seconds"]
            .iter()
            .any(|word| unit.eq_ignore_ascii_case(word));
    if !is_seconds {
        return Err(IgnoredReason::Malformed);
    }
    parse_seconds(number).ok_or(IgnoredReason::Malformed)
}

/// `R/S`: `R` a positive integer, `S` positive seconds, optionally with a unit `s`, `m` or `h`
/// (`1/10s`, `1/5m`).
fn parse_request_rate(value: &[u8]) -> Result<RequestRate, IgnoredReason> {
    let slash = memchr::memchr(b'/', value).ok_or(IgnoredReason::Malformed)?;
    let requests = trim(value.get(..slash).unwrap_or_default());
    let (period, unit) = split_unit(trim(value.get(slash + 1..).unwrap_or_default()));
    let scale: u32 = match unit.to_ascii_lowercase().as_slice() {
        b"" | b"s" => 1,
        b"m" => 60,
        b"h" => 3_600,
        _ => return Err(IgnoredReason::Malformed),
    };
    let requests: u32 = std::str::from_utf8(requests)
        .ok()
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
        .filter(|n| *n > 0)
        .ok_or(IgnoredReason::Malformed)?;
    let per = parse_seconds(period)
        .and_then(|seconds| seconds.checked_mul(scale))
        .filter(|per| !per.is_zero())
        .ok_or(IgnoredReason::Malformed)?;
    Ok(RequestRate { requests, per })
}

/// `HHMM-HHMM` or `HH:MM-HH:MM`, UTC. `2400` or `0000` may end a window at midnight; a window
/// whose start equals its end is malformed, except `0000-2400`, the whole day.
fn parse_visit_time(value: &[u8]) -> Result<VisitTime, IgnoredReason> {
    fn minute(clock: &[u8]) -> Option<u16> {
        let digits = match clock {
            [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => [*h1, *h2, *m1, *m2],
            _ => return None,
        };
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let [h1, h2, m1, m2] = digits.map(|d| u16::from(d - b'0'));
        let (hours, minutes) = (h1 * 10 + h2, m1 * 10 + m2);
        match (hours, minutes) {
            (24, 0) => Some(1440),
            (0..=23, 0..=59) => Some(hours * 60 + minutes),
            _ => None,
        }
    }
    let dash = memchr::memchr(b'-', value).ok_or(IgnoredReason::Malformed)?;
    let start = minute(trim(value.get(..dash).unwrap_or_default()));
    let end = minute(trim(value.get(dash + 1..).unwrap_or_default()));
    match (start, end) {
        (Some(start), Some(end)) if start < 1440 => {
            let end = if end == 0 { 1440 } else { end };
            if start == end {
                Err(IgnoredReason::Malformed)
            } else {
                Ok(VisitTime { start, end })
            }
        }
        _ => Err(IgnoredReason::Malformed),
    }
}

/// Splits an optional leading path (a first token starting with `/`) from the rest. An absent
/// path is the empty pattern: it matches every path, at priority 0, below any rule naming a
/// path (draft-ietf-aipref-attach-05 section 3.2: paths are compared by their encoded length).
fn split_path(value: &[u8]) -> (Box<[u8]>, &[u8]) {
    if value.first() != Some(&b'/') {
        return (Box::default(), value);
    }
    let end = value
        .iter()
        .position(|b| matches!(b, b' ' | b'\t'))
        .unwrap_or(value.len());
    let (path, rest) = value.split_at(end);
    (escape_pattern(path).into_owned().into(), trim(rest))
}

/// `[path] key=value, key=value`: keys and `yes`/`no` values ASCII case-insensitive, spaces
/// around `,` and `=` allowed; unknown keys and other values are ignored.
fn parse_content_signal(value: &[u8]) -> Result<Statement, IgnoredReason> {
    let (pattern, entries) = split_path(value);
    if entries.is_empty() {
        return Err(IgnoredReason::Empty);
    }
    let mut stances = [None; 3];
    for entry in entries.split(|b| *b == b',').map(trim) {
        if entry.is_empty() {
            continue;
        }
        let equals = memchr::memchr(b'=', entry).ok_or(IgnoredReason::Malformed)?;
        let key = trim(entry.get(..equals).unwrap_or_default());
        let stance = trim(entry.get(equals + 1..).unwrap_or_default());
        if key.is_empty() || key.iter().any(|b| is_space(*b)) {
            return Err(IgnoredReason::Malformed);
        }
        let stance = if stance.eq_ignore_ascii_case(b"yes") {
            Stance::Yes
        } else if stance.eq_ignore_ascii_case(b"no") {
            Stance::No
        } else {
            continue;
        };
        if let Some(use_) = Use::ALL
            .into_iter()
            .find(|use_| use_.signal_key().as_bytes().eq_ignore_ascii_case(key))
            && let Some(slot) = stances.get_mut(use_.index())
        {
            *slot = Some(stance);
        }
    }
    if stances.iter().all(Option::is_none) {
        return Err(IgnoredReason::NothingKnown);
    }
    Ok(Statement { pattern, stances })
}

/// `<path> <preferences>`, the preferences a Structured Fields Dictionary (RFC 9651) whose
/// values `y` and `n` are tokens. Without a path (a value not starting with `/`) the line
/// applies to every path.
fn parse_content_usage(value: &[u8]) -> Result<Statement, IgnoredReason> {
    let (pattern, preferences) = split_path(value);
    if preferences.is_empty() {
        return Err(IgnoredReason::Empty);
    }
    let members = sf_dictionary(preferences).ok_or(IgnoredReason::Malformed)?;
    let stance_of = |label: &str| {
        // The last member with a key wins (RFC 9651 section 4.2.2).
        let value = members
            .iter()
            .rev()
            .find(|(key, _)| *key == label.as_bytes())?
            .1?;
        match value {
            b"y" => Some(Stance::Yes),
            b"n" => Some(Stance::No),
            _ => None,
        }
    };
    let mut stances = [None; 3];
    for use_ in Use::ALL {
        // The narrowest category stated decides (the revisions that had a hierarchy).
        let stance = use_
            .usage_labels()
            .iter()
            .find_map(|label| stance_of(label));
        if let Some(slot) = stances.get_mut(use_.index()) {
            *slot = stance;
        }
    }
    if stances.iter().all(Option::is_none) {
        return Err(IgnoredReason::NothingKnown);
    }
    Ok(Statement { pattern, stances })
}

/// A dictionary member: its key and, when its value is a Token, the token.
type SfMember<'a> = (&'a [u8], Option<&'a [u8]>);

/// Parses a Structured Fields Dictionary (RFC 9651 section 4.2.2). Each member is its key and,
/// when its value is a Token, the token; `None` for a failed parse.
fn sf_dictionary(input: &[u8]) -> Option<Vec<SfMember<'_>>> {
    let mut parser = SfParser { input, at: 0 };
    let mut members = Vec::new();
    parser.skip(|b| b == b' ');
    while parser.at < input.len() {
        let key = parser.key()?;
        let token = if parser.eat(b'=') {
            parser.item_or_inner_list()?
        } else {
            parser.parameters()?;
            None
        };
        members.push((key, token));
        parser.skip(|b| b == b' ' || b == b'\t');
        if parser.at >= input.len() {
            return Some(members);
        }
        if !parser.eat(b',') {
            return None;
        }
        parser.skip(|b| b == b' ' || b == b'\t');
        if parser.at >= input.len() {
            return None;
        }
    }
    Some(members)
}

struct SfParser<'a> {
    input: &'a [u8],
    at: usize,
}

impl<'a> SfParser<'a> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn skip(&mut self, what: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&what) {
            self.at += 1;
        }
    }

    fn take(&mut self, what: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.at;
        self.skip(what);
        self.input.get(start..self.at).unwrap_or_default()
    }

    fn key(&mut self) -> Option<&'a [u8]> {
        let first = self.peek()?;
        if !(first.is_ascii_lowercase() || first == b'*') {
            return None;
        }
        Some(self.take(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'*')
        }))
    }

    fn parameters(&mut self) -> Option<()> {
        while self.eat(b';') {
            self.skip(|b| b == b' ');
            self.key()?;
            if self.eat(b'=') {
                self.bare_item()?;
            }
        }
        Some(())
    }

    /// A member value; the token when it is one.
    fn item_or_inner_list(&mut self) -> Option<Option<&'a [u8]>> {
        if self.eat(b'(') {
            loop {
                self.skip(|b| b == b' ');
                if self.eat(b')') {
                    break;
                }
                self.bare_item()?;
                self.parameters()?;
                if !matches!(self.peek(), Some(b' ' | b')')) {
                    return None;
                }
            }
            self.parameters()?;
            return Some(None);
        }
        let token = self.bare_item()?;
        self.parameters()?;
        Some(token)
    }

    /// A bare item; `Some(token)` for a Token, `Some(None)` for any other valid item.
    fn bare_item(&mut self) -> Option<Option<&'a [u8]>> {
        let first = self.peek()?;
        match first {
            b'-' | b'0'..=b'9' => self.number().map(|()| None),
            b'"' => self.string().map(|()| None),
            b'*' | b'A'..=b'Z' | b'a'..=b'z' => {
                Some(Some(self.take(|b| is_tchar(b) || b == b':' || b == b'/')))
            }
            b':' => {
                self.at += 1;
                self.take(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
                self.eat(b':').then_some(None)
            }
            b'?' => {
                self.at += 1;
                (self.eat(b'0') || self.eat(b'1')).then_some(None)
            }
            b'@' => {
                self.at += 1;
                self.number().map(|()| None)
            }
            b'%' => {
                self.at += 1;
                self.string().map(|()| None)
            }
            _ => None,
        }
    }

    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        let whole = self.take(|b| b.is_ascii_digit()).len();
        if whole == 0 {
            return None;
        }
        if self.eat(b'.') {
            let fraction = self.take(|b| b.is_ascii_digit()).len();
            (whole <= 12 && (1..=3).contains(&fraction)).then_some(())
        } else {
            (whole <= 15).then_some(())
        }
    }

    fn string(&mut self) -> Option<()> {
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => {
                    self.at += 1;
                    if !matches!(self.peek()?, b'"' | b'\\') {
                        return None;
                    }
                    self.at += 1;
                }
                0x20..=0x7E => self.at += 1,
                _ => return None,
            }
        }
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    #[test]
    fn crawl_delays_in_every_form() {
        let cases: &[(&[u8], Result<Duration, IgnoredReason>)] = &[
            (b"10", Ok(ms(10_000))),
            (b"0", Ok(ms(0))),
            (b"0.5", Ok(ms(500))),
            (b".5", Ok(ms(500))),
            (b"10.", Ok(ms(10_000))),
            (b"10.0", Ok(ms(10_000))),
            (b"1.25", Ok(ms(1_250))),
            (b"0.0000000019", Ok(Duration::from_nanos(1))),
            (b"10s", Ok(ms(10_000))),
            (b"10 s", Ok(ms(10_000))),
            (b"10 seconds", Ok(ms(10_000))),
            (b"2SEC", Ok(ms(2_000))),
            (b"2000", Ok(ms(2_000_000))),
            (b"10m", Err(IgnoredReason::Malformed)),
            (b"[5]", Err(IgnoredReason::Malformed)),
            (b"-1", Err(IgnoredReason::Malformed)),
            (b"1,5", Err(IgnoredReason::Malformed)),
            (b".", Err(IgnoredReason::Malformed)),
            (b"s", Err(IgnoredReason::Malformed)),
            (b"ten", Err(IgnoredReason::Malformed)),
            (b"1e3", Err(IgnoredReason::Malformed)),
            (b"99999999999999999999999", Err(IgnoredReason::Malformed)),
            (b"5 10", Err(IgnoredReason::Malformed)),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_crawl_delay(value), *expected, "value {value:?}");
        }
    }

    #[test]
    fn request_rates_in_every_form() {
        let rate = |requests, per| Ok(RequestRate { requests, per });
        let cases: &[(&[u8], Result<RequestRate, IgnoredReason>)] = &[
            (b"1/10", rate(1, ms(10_000))),
            (b"1/5", rate(1, ms(5_000))),
            (b"5/1", rate(5, ms(1_000))),
            (b"1/10s", rate(1, ms(10_000))),
            (b"1 / 10 s", rate(1, ms(10_000))),
            (b"1/5m", rate(1, ms(300_000))),
            (b"100/1h", rate(100, ms(3_600_000))),
            (b"1/0.5", rate(1, ms(500))),
            (b"10", Err(IgnoredReason::Malformed)),
            (b"0/10", Err(IgnoredReason::Malformed)),
            (b"1/0", Err(IgnoredReason::Malformed)),
            (b"1/", Err(IgnoredReason::Malformed)),
            (b"/10", Err(IgnoredReason::Malformed)),
            (b"1.5/10", Err(IgnoredReason::Malformed)),
            (b"1/10d", Err(IgnoredReason::Malformed)),
            (b"a/b", Err(IgnoredReason::Malformed)),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_request_rate(value), *expected, "value {value:?}");
        }
        let slow = RequestRate {
            requests: 1,
            per: ms(10_000),
        };
        let fast = RequestRate {
            requests: 5,
            per: ms(1_000),
        };
        assert!(slow.stricter_than(&fast) && !fast.stricter_than(&slow));
        assert_eq!(fast.interval(), ms(200));
    }

    #[test]
    fn visit_times_in_every_form() {
        let window = |start, end| Ok(VisitTime { start, end });
        let cases: &[(&[u8], Result<VisitTime, IgnoredReason>)] = &[
            (b"0400-0845", window(240, 525)),
            (b"1400-2200", window(840, 1320)),
            (b"0030-0300", window(30, 180)),
            (b"04:00-08:45", window(240, 525)),
            (b"0400 - 0845", window(240, 525)),
            (b"2200-0600", window(1320, 360)),
            (b"2200-2400", window(1320, 1440)),
            (b"2200-0000", window(1320, 1440)),
            (b"0000-2400", window(0, 1440)),
            (b"0000-0000", window(0, 1440)),
            (b"1200-1200", Err(IgnoredReason::Malformed)),
            (b"2400-0100", Err(IgnoredReason::Malformed)),
            (b"0460-0500", Err(IgnoredReason::Malformed)),
            (b"2500-0100", Err(IgnoredReason::Malformed)),
            (b"400-845", Err(IgnoredReason::Malformed)),
            (b"0400", Err(IgnoredReason::Malformed)),
            (b"04:0-08:45", Err(IgnoredReason::Malformed)),
            (b"0400-0845 UTC", Err(IgnoredReason::Malformed)),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_visit_time(value), *expected, "value {value:?}");
        }
        let night = VisitTime {
            start: 1320,
            end: 360,
        };
        let contains: Vec<bool> = [0, 21 * 3600 + 3599, 22 * 3600, 5 * 3600 + 3599, 6 * 3600]
            .into_iter()
            .map(|second| night.contains(second))
            .collect();
        assert_eq!(contains, [true, false, true, true, false]);
    }

    type Stances = [Option<Stance>; 3];
    const Y: Option<Stance> = Some(Stance::Yes);
    const N: Option<Stance> = Some(Stance::No);

    #[test]
    fn content_signals_in_every_form() {
        let ok = |pattern: &[u8], stances: Stances| {
            Ok(Statement {
                pattern: pattern.into(),
                stances,
            })
        };
        let cases: &[(&[u8], Result<Statement, IgnoredReason>)] = &[
            (b"search=yes, ai-input=no, ai-train=no", ok(b"", [N, N, Y])),
            (b"ai-train=no,search=yes", ok(b"", [N, None, Y])),
            (b"ai-train = no ,  search= yes", ok(b"", [N, None, Y])),
            (b"AI-Train=NO", ok(b"", [N, None, None])),
            (b"ai-train=no,", ok(b"", [N, None, None])),
            (b"ai-train=no, ai-train=yes", ok(b"", [Y, None, None])),
            (b"ai-train=no, foo=bar, x=no", ok(b"", [N, None, None])),
            (b"search=maybe, ai-input=yes", ok(b"", [None, Y, None])),
            (b"/blog/ ai-train=no", ok(b"/blog/", [N, None, None])),
            (
                b"/caf\xC3\xA9 ai-input=no",
                ok(b"/caf%C3%A9", [None, N, None]),
            ),
            (
                b"/private/*.pdf$ search=no",
                ok(b"/private/*.pdf$", [None, None, N]),
            ),
            (b"foo=bar", Err(IgnoredReason::NothingKnown)),
            (b"ai-train=maybe", Err(IgnoredReason::NothingKnown)),
            (b"ai_train=no", Err(IgnoredReason::NothingKnown)),
            (b"/blog/", Err(IgnoredReason::Empty)),
            (b"ai-train", Err(IgnoredReason::Malformed)),
            (b"ai-train no", Err(IgnoredReason::Malformed)),
            (b"=no", Err(IgnoredReason::Malformed)),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_content_signal(value), *expected, "value {value:?}");
        }
    }

    #[test]
    fn content_usage_in_every_form() {
        let ok = |pattern: &[u8], stances: Stances| {
            Ok(Statement {
                pattern: pattern.into(),
                stances,
            })
        };
        let cases: &[(&[u8], Result<Statement, IgnoredReason>)] = &[
            (b"/ train-ai=n", ok(b"/", [N, None, None])),
            (b"/ai-ok/ train-ai=y", ok(b"/ai-ok/", [Y, None, None])),
            (b"/\ttrain-ai=n,search=y", ok(b"/", [N, None, Y])),
            (b"train-ai=n", ok(b"", [N, None, None])),
            (b"/ train-ai=n, search=y", ok(b"/", [N, None, Y])),
            // The vocabulary's hierarchy: the narrowest stated category decides.
            (b"/ bots=n", ok(b"/", [N, N, N])),
            (b"/ bots=n, search=y", ok(b"/", [N, N, Y])),
            (b"/ all=n, train-ai=y", ok(b"/", [Y, N, N])),
            (b"/ ai-output=n", ok(b"/", [None, N, N])),
            (b"/ ai-output=n, search=y", ok(b"/", [None, N, Y])),
            (b"/ ai-use=n", ok(b"/", [None, N, None])),
            // Structured Fields: the last value of a key wins, parameters are ignored, a
            // value that is not the token y or n states nothing.
            (b"/ train-ai=y, train-ai=n", ok(b"/", [N, None, None])),
            (b"/ train-ai;x=1;y, search=n", ok(b"/", [None, None, N])),
            (b"/ train-ai=n;reason=\"no\"", ok(b"/", [N, None, None])),
            (b"/ train-ai=\"n\", search=y", ok(b"/", [None, None, Y])),
            (b"/ train-ai=(n y), search=n", ok(b"/", [None, None, N])),
            (b"/ train-ai=?0, search=n", ok(b"/", [None, None, N])),
            (b"/ train-ai=1, search=n", ok(b"/", [None, None, N])),
            (b"/ train-ai=yes", Err(IgnoredReason::NothingKnown)),
            (b"/ future-use=n", Err(IgnoredReason::NothingKnown)),
            (b"/ train-ai", Err(IgnoredReason::NothingKnown)),
            (b"/", Err(IgnoredReason::Empty)),
            (b"/private/", Err(IgnoredReason::Empty)),
            // Keys are lowercase; a failed dictionary parse states nothing at all.
            (b"/ Train-AI=n", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=n,", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=n search=y", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=n;", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=\"n", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=n, , search=y", Err(IgnoredReason::Malformed)),
            (b"/ train-ai=\xC3\xA9", Err(IgnoredReason::Malformed)),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_content_usage(value), *expected, "value {value:?}");
        }
    }

    #[test]
    fn keys_match_whole_and_case_insensitively() {
        let cases: &[(&[u8], Option<DirectiveKind>)] = &[
            (b"Crawl-delay", Some(DirectiveKind::CrawlDelay)),
            (b"CRAWL-DELAY", Some(DirectiveKind::CrawlDelay)),
            (b"crawl-delays", None),
            (b"crawl delay", None),
            (b"Request-rate", Some(DirectiveKind::RequestRate)),
            (b"visit-time", Some(DirectiveKind::VisitTime)),
            (b"Content-Signal", Some(DirectiveKind::ContentSignal)),
            (b"content-usage", Some(DirectiveKind::ContentUsage)),
            (b"Content-Usages", None),
            (b"host", None),
        ];
        for (key, expected) in cases {
            assert_eq!(DirectiveKind::of_key(key), *expected, "key {key:?}");
        }
    }
}
