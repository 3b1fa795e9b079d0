//! Past versions of `ORIGIN/robots.txt` from the Wayback Machine (or any CDX-compatible
//! service).
//!
//! The CDX index (`/cdx/search/cdx?url=…&output=json&fl=timestamp,statuscode,digest`) lists the
//! captures; one observation is made per change of status or digest, from the archived copy at
//! `/web/<timestamp>id_/<URL>` (`id_`: the bytes as archived, without the archive's banner).
//! Captures with a 4xx or 5xx status need no copy: the status is the observation. A capture
//! whose status is `-` is a revisit (the archive saw content it already holds): its copy is
//! read like any other, and the status is the one the archive replays. A 3xx capture is a
//! redirect, not a robots.txt: it is skipped (Google would have followed it to another URL,
//! whose history is that URL's own), and counted so the user knows.
//!
//! The index is asked twice, with `collapse=digest` and with `collapse=statuscode`, and the
//! captures are the rows of both answers. `collapse=digest` alone drops a capture whose digest
//! is the one before it whatever its status: an empty 503 and an empty 200 have the same digest,
//! so the site's return from the 503 would be lost and the history would disallow everything
//! from then on. Not collapsing at all lists every capture of the period, and the Wayback
//! Machine answers at most 150,000 rows: the later versions of a robots.txt captured more often
//! would be cut off without a word. A capture whose status or digest differs from the one
//! before it is kept by the answer collapsed on the field that changed, so every change is in
//! one of the two answers, and each answer holds only the changes of its field. Captures are
//! still compared here, by status and digest (a service may not collapse), and each answer is
//! read only up to 64 MiB: a longer one fails the origin's import, saying so, where its rows cut
//! off would be a JSON error of no meaning to the user.
//!
//! Streaming: each observation is pushed into the history as it is made, so memory does not
//! grow with the number of copies. Of each content read, only its status and SHA-256 are kept
//! (in the directory's [`CopyLog`], for the next runs too); when the archive replays it again
//! (a revisit, or a change back, or a capture an earlier run read), its body is read back from
//! the history ([`Record::recorded_body`]) instead of asking the archive again.
//!
//! Bounds: a site can make its archived history as long as it likes (Save Page Now, with
//! content that changes each time), and each copy may be 500 KiB. At most `max_copies` copies
//! of one origin are read in one run, which bounds the files it writes and its requests; the
//! import then stops before the next capture that needs a copy, and records what came before.
//! The next run knows every copy read so far from the copy log, reads none of them again, and
//! goes on where this one stopped: runs until none stops end with the rows of one run without
//! a cap.
//!
//! Politeness: requests are sequential, at least `delay` apart; a 429, a 5xx or a transport
//! error is retried a bounded number of times, each after the longer of a back-off that doubles
//! each time and the service's `Retry-After` (at most a minute, and never doubled); then the
//! import of that origin fails with an error that says why.
//!
//! Redirects: a site decides what the archive replays of it, a redirect included (a revisit of
//! a capture that was one), and a copy's content is trusted for every capture of its digest. So
//! a copy follows redirects only while they stay on the service's origin and under its `/web/`
//! path, and the index only on its origin; a redirect elsewhere fails the origin's import as a
//! missing copy does. At most [`MAX_REDIRECTS`] are followed, each a request of its own.

use std::borrow::Cow;
use std::fmt;
use std::thread::sleep;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use jiff::civil::DateTime;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

use super::copies::CopyLog;
use super::error::{CdxError, PeriodError, RequestFailure, WaybackError};
use super::fetch::MAX_REDIRECTS;
use super::{HistoryError, Observation, PerSecond, Record, read_prefix, robots_url, sha256};
use crate::origin::Origin;
use crate::shown::shown;
use crate::versions::FetchStatus;
use robots_audit_engine::GOOGLEBOT_MAX_BYTES;

/// The Wayback Machine.
pub const DEFAULT_SERVICE: &str = "https://web.archive.org";

/// The most copies of one origin read in one run unless `--max-copies` says otherwise. At most
/// 500 KiB each, that is at most 512 MB of files and, at the default `--delay` of 1 s, at least
/// 17 minutes of a night per origin: a history of up to 1,000 distinct contents is read in one
/// run, a longer one over several, and one a site grows by thousands of copies a day never takes
/// more than that of a night.
pub const DEFAULT_MAX_COPIES: usize = 1000;

/// The largest CDX answer read (a collapsed listing of one robots.txt is far smaller); a
/// longer one is an error rather than rows cut off mid-way.
pub const MAX_INDEX_BYTES: usize = 64 << 20;

/// The longest `Retry-After` honoured; a longer one waits this long.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How to read the archive.
#[derive(Debug, Clone)]
pub struct WaybackOptions {
    /// The service's base URL: the index is at `<service>/cdx/search/cdx`, copies at
    /// `<service>/web/`.
    pub service: String,
    /// The first moment of the period (a CDX timestamp prefix, 1 to 14 digits).
    pub from: Option<String>,
    /// The last moment of the period (a CDX timestamp prefix, 1 to 14 digits, inclusive).
    pub to: Option<String>,
    /// The least time between two requests to the service.
    pub delay: Duration,
    /// How many times a request answered 429, 5xx or not at all is tried again.
    pub retries: u32,
    /// The wait before the first retry; it doubles for each next one.
    pub backoff: Duration,
    /// The longest one request may take.
    pub timeout: Duration,
    /// The `User-Agent` header sent.
    pub user_agent: String,
    /// The most archived copies read for one origin in one run.
    pub max_copies: usize,
}

impl Default for WaybackOptions {
    fn default() -> WaybackOptions {
        WaybackOptions {
            service: DEFAULT_SERVICE.to_owned(),
            from: None,
            to: None,
            delay: Duration::from_secs(1),
            retries: 4,
            backoff: Duration::from_secs(2),
            timeout: Duration::from_secs(30),
            user_agent: super::default_user_agent(),
            max_copies: DEFAULT_MAX_COPIES,
        }
    }
}

/// One row of the CDX index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The capture's 14-digit timestamp, as the archive writes it.
    pub stamp: String,
    /// The same moment.
    pub at: Timestamp,
    /// The archived status; `None` for `-` (a revisit).
    pub status: Option<u16>,
    /// The archive's digest of the content.
    pub digest: String,
}

/// What an import of one origin found (its observations went into the history).
#[derive(Debug, Clone, Copy, Default)]
pub struct Imported {
    /// Observations made: one per change of status or digest in the period.
    pub observations: usize,
    /// Captures listed by the index in the period (by either of its two answers, once).
    pub captures: usize,
    /// 3xx captures skipped.
    pub redirects: usize,
    /// Archived copies read.
    pub copies: usize,
    /// Captures of the period not gone through: `max_copies` copies were read and the next one
    /// needed one more. The next import goes through them.
    pub left: usize,
    /// The time of the first capture left.
    pub resume: Option<Timestamp>,
}

/// Turns `--from`/`--to` into a CDX timestamp prefix: `2024`, `2024-05`, `2024-05-01`, an
/// RFC 3339 time (converted to UTC), or 1 to 14 digits as the CDX API takes them.
pub fn cdx_time(text: &str) -> Result<String, PeriodError> {
    let text = text.trim();
    if !text.is_empty() && text.len() <= 14 && text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(text.to_owned());
    }
    if let Ok(t) = text.parse::<Timestamp>() {
        return Ok(t.strftime("%Y%m%d%H%M%S").to_string());
    }
    let parts: Vec<&str> = text.split('-').collect();
    let valid = matches!(parts.len(), 2 | 3)
        && parts[0].len() == 4
        && parts[1..].iter().all(|p| p.len() == 2)
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if valid {
        let date = if parts.len() == 3 {
            text.to_owned()
        } else {
            format!("{text}-01")
        };
        date.parse::<jiff::civil::Date>()
            .map_err(|source| PeriodError::NoSuchDate {
                text: text.to_owned(),
                source,
            })?;
        return Ok(parts.concat());
    }
    Err(PeriodError::Unreadable(text.to_owned()))
}

/// Reads a CDX answer (`output=json`): an array of rows whose first row names the fields
/// (`timestamp`, `statuscode`, `digest`, in any order). An empty answer lists no capture.
///
/// The rows are read one at a time and only the three fields are kept, so what the answer
/// costs is its captures, whatever else it holds: a row of many fields or many empty rows cost
/// nothing beyond their reading.
pub fn parse_index(body: &[u8]) -> Result<Vec<Capture>, CdxError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let mut fault = None;
    let mut reader = serde_json::Deserializer::from_slice(body);
    let read = serde::Deserializer::deserialize_seq(&mut reader, Index { fault: &mut fault })
        .and_then(|captures| reader.end().map(|()| captures));
    match read {
        Ok(mut captures) => {
            captures.sort_by(|a, b| a.stamp.cmp(&b.stamp));
            Ok(captures)
        }
        Err(error) => Err(fault.unwrap_or(CdxError::NotRows(error))),
    }
}

/// The outer array of a CDX answer. A fault of the CDX format found while reading is left in
/// `fault`, and the reading stopped with a JSON error that stands for it.
struct Index<'f> {
    fault: &'f mut Option<CdxError>,
}

impl<'de> Visitor<'de> for Index<'_> {
    type Value = Vec<Capture>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut rows: A) -> Result<Vec<Capture>, A::Error> {
        let Some(header) = rows.next_element_seed(HeaderSeed)? else {
            return Ok(Vec::new());
        };
        let columns = header.columns().map_err(|fault| stop(self.fault, fault))?;
        let mut captures = Vec::new();
        while let Some(row) = rows.next_element_seed(RowSeed(columns))? {
            let capture = row
                .capture(header.width)
                .map_err(|fault| stop(self.fault, fault))?;
            captures.push(capture);
        }
        Ok(captures)
    }
}

/// Keeps `fault` and returns the error that stops the reading.
fn stop<E: de::Error>(slot: &mut Option<CdxError>, fault: CdxError) -> E {
    let error = E::custom(&fault);
    *slot = Some(fault);
    error
}

/// The most names of a header a [`CdxError::MissingField`] shows.
const SHOWN_HEADER_FIELDS: usize = 16;

/// The header row: where the three fields are, and how many it names.
struct Header {
    /// The first position of `timestamp`, `statuscode` and `digest`.
    positions: [Option<usize>; 3],
    width: usize,
    /// Its first names, as an error shows them.
    shown: Vec<String>,
}

/// The fields read, in [`Header::positions`]' order.
const FIELDS: [&str; 3] = ["timestamp", "statuscode", "digest"];

impl Header {
    fn columns(&self) -> Result<[usize; 3], CdxError> {
        let mut columns = [0; 3];
        for ((column, position), name) in columns.iter_mut().zip(self.positions).zip(FIELDS) {
            *column = position.ok_or_else(|| CdxError::MissingField {
                name,
                header: self.shown.clone(),
            })?;
        }
        Ok(columns)
    }
}

struct HeaderSeed;

impl<'de> DeserializeSeed<'de> for HeaderSeed {
    type Value = Header;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Header, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for HeaderSeed {
    type Value = Header;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a header row of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut names: A) -> Result<Header, A::Error> {
        let mut header = Header {
            positions: [None; 3],
            width: 0,
            shown: Vec::new(),
        };
        while let Some(Cell(name)) = names.next_element()? {
            for (position, field) in header.positions.iter_mut().zip(FIELDS) {
                if position.is_none() && name == field {
                    *position = Some(header.width);
                }
            }
            if header.shown.len() < SHOWN_HEADER_FIELDS {
                header.shown.push(shown(&name));
            }
            header.width += 1;
        }
        Ok(header)
    }
}

/// A string of a row; borrowed from the answer unless it holds escapes.
struct Cell<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Cell<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Cell<'de>, D::Error> {
        d.deserialize_str(CellVisitor)
    }
}

struct CellVisitor;

impl<'de> Visitor<'de> for CellVisitor {
    type Value = Cell<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Cell<'de>, E> {
        Ok(Cell(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Cell<'de>, E> {
        Ok(Cell(Cow::Owned(text.to_owned())))
    }
}

/// A row of captures, reading the fields at the header's three columns.
struct RowSeed([usize; 3]);

/// The three fields of a row, and how many it has.
struct Row<'de> {
    fields: [Option<Cell<'de>>; 3],
    width: usize,
}

impl<'de> DeserializeSeed<'de> for RowSeed {
    type Value = Row<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Row<'de>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RowSeed {
    type Value = Row<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut cells: A) -> Result<Row<'de>, A::Error> {
        let mut row = Row {
            fields: [None, None, None],
            width: 0,
        };
        while let Some(cell) = cells.next_element::<Cell<'de>>()? {
            if let Some(at) = self.0.iter().position(|&column| column == row.width) {
                row.fields[at] = Some(cell);
            }
            row.width += 1;
        }
        Ok(row)
    }
}

impl Row<'_> {
    fn capture(self, header_width: usize) -> Result<Capture, CdxError> {
        let found = self.width;
        let [stamp, status, digest] = self.fields.map(|field| {
            field.map(|Cell(text)| text).ok_or(CdxError::ShortRow {
                found,
                expected: header_width,
            })
        });
        let stamp = stamp?;
        let at = parse_stamp(&stamp)?;
        let status = match &*status? {
            "-" | "" => None,
            code => Some(
                code.parse::<u16>()
                    .ok()
                    .filter(|c| (100..=599).contains(c))
                    .ok_or_else(|| CdxError::Status(shown(code)))?,
            ),
        };
        Ok(Capture {
            stamp: stamp.into_owned(),
            at,
            status,
            digest: digest?.into_owned(),
        })
    }
}

fn parse_stamp(stamp: &str) -> Result<Timestamp, CdxError> {
    if stamp.len() != 14 || !stamp.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CdxError::StampDigits(shown(stamp)));
    }
    DateTime::strptime("%Y%m%d%H%M%S", stamp)
        .and_then(|dt| dt.to_zoned(jiff::tz::TimeZone::UTC))
        .map(|z| z.timestamp())
        .map_err(|source| CdxError::StampTime {
            stamp: stamp.to_owned(),
            source,
        })
}

/// Whether a capture's stamp is within `[from, to]` (prefixes, `to` inclusive).
fn in_period(stamp: &str, from: Option<&str>, to: Option<&str>) -> bool {
    let after_from = from.is_none_or(|f| stamp >= f);
    let before_to = to.is_none_or(|t| {
        let n = t.len().min(stamp.len());
        &stamp[..n] <= t
    });
    after_from && before_to
}

/// A client that is polite to one service: sequential, spaced, backing off.
#[derive(Debug)]
pub struct Client {
    agent: ureq::Agent,
    options: WaybackOptions,
    /// `options.service`, parsed: the origin every request and redirect stays on.
    service: url::Url,
    /// The path every copy and its redirects stay under: the service's, then `/web/`.
    copies: String,
    last: Option<Instant>,
}

/// An answer: the final status and its body (the first `limit` bytes).
struct Answer {
    status: u16,
    body: Vec<u8>,
}

/// What one request got: an answer, or a redirect to follow (its `Location`, as sent).
enum Reply {
    Answer(Answer),
    Redirect(String),
}

/// Where the redirects of a request may lead. A site controls what the archive replays of it,
/// a redirect included (a revisit of a capture that was one), so a redirect followed out of the
/// archive would record whatever another server sends as the archived robots.txt, and every
/// later capture of that digest would reuse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The index: the archive's origin.
    Archive,
    /// A copy: the archive's origin, under its `/web/` path.
    Copies,
}

impl Client {
    /// A client for `options.service`, which must be an `http://` or `https://` URL.
    pub fn new(options: WaybackOptions) -> Result<Client, WaybackError> {
        let bad = |problem: &str| WaybackError::Service {
            url: shown(&options.service),
            problem: problem.to_owned(),
        };
        let service = url::Url::parse(options.service.trim_end_matches('/'))
            .map_err(|e| bad(&e.to_string()))?;
        if !matches!(service.scheme(), "http" | "https") || service.host().is_none() {
            return Err(bad("not an http:// or https:// URL with a host"));
        }
        let copies = format!("{}/web/", service.path().trim_end_matches('/'));
        // Redirects are followed here, one request at a time, each checked against its scope:
        // ureq's own following has no policy of where a redirect may lead.
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(options.timeout))
            .user_agent(options.user_agent.as_str())
            .build()
            .into();
        Ok(Client {
            agent,
            options,
            service,
            copies,
            last: None,
        })
    }

    /// GET, following at most [`MAX_REDIRECTS`] redirects while they stay in `scope`; a
    /// redirect out of it is an error, never a request.
    fn get(&mut self, url: &str, limit: usize, scope: Scope) -> Result<Answer, WaybackError> {
        let mut asked = url.to_owned();
        let mut followed = 0;
        loop {
            let location = match self.get_once(&asked, limit)? {
                Reply::Answer(answer) => return Ok(answer),
                Reply::Redirect(location) => location,
            };
            let next =
                self.inside(&asked, &location, scope)
                    .ok_or_else(|| WaybackError::Redirected {
                        url: url.to_owned(),
                        location: shown(&location),
                        scope: self.scope_text(scope),
                    })?;
            if followed == MAX_REDIRECTS {
                return Err(WaybackError::Redirects {
                    url: url.to_owned(),
                    followed,
                });
            }
            followed += 1;
            asked = next;
        }
    }

    /// `location` resolved against `asked`, when it is in `scope`. The check is made on the URL
    /// as the request will be sent, dot segments (`/web/../`, `%2e%2e`) resolved and user info
    /// split off the host.
    fn inside(&self, asked: &str, location: &str, scope: Scope) -> Option<String> {
        let next = url::Url::parse(asked).ok()?.join(location).ok()?;
        let path_ok = match scope {
            Scope::Archive => true,
            Scope::Copies => next.path().starts_with(&self.copies),
        };
        (next.origin() == self.service.origin() && path_ok).then(|| next.into())
    }

    /// What `scope` allows, as an error says it.
    fn scope_text(&self, scope: Scope) -> String {
        let origin = self.service.origin().ascii_serialization();
        match scope {
            Scope::Archive => origin,
            Scope::Copies => format!("{origin}{}", self.copies),
        }
    }

    /// One GET, with the delay and the retries; any status other than 429 and 5xx is an answer,
    /// a redirect (a 3xx but 304, with a `Location`, as ureq tells them) is returned unread.
    fn get_once(&mut self, url: &str, limit: usize) -> Result<Reply, WaybackError> {
        let mut backoff = Backoff::new(self.options.backoff);
        let mut attempt = 0;
        loop {
            if let Some(last) = self.last {
                let since = last.elapsed();
                if since < self.options.delay {
                    sleep(self.options.delay - since);
                }
            }
            self.last = Some(Instant::now());
            let mut asked_wait = None;
            let failure = match self.agent.get(url).call() {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let location = response
                        .headers()
                        .get("location")
                        .filter(|_| response.status().is_redirection() && status != 304)
                        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
                    if let Some(location) = location {
                        return Ok(Reply::Redirect(location));
                    }
                    if status != 429 && !(500..=599).contains(&status) {
                        match read_prefix(response.body_mut().as_reader(), limit) {
                            Ok(body) => return Ok(Reply::Answer(Answer { status, body })),
                            Err(e) => RequestFailure::CutOff(e),
                        }
                    } else {
                        asked_wait = retry_after(&response);
                        RequestFailure::Status(status)
                    }
                }
                Err(e) => RequestFailure::Transport(e),
            };
            if attempt >= self.options.retries {
                return Err(WaybackError::GaveUp {
                    url: url.to_owned(),
                    failure,
                    tries: attempt + 1,
                });
            }
            attempt += 1;
            sleep(backoff.next_wait(asked_wait));
        }
    }

    /// Reads the index for `origin`'s robots.txt and the copy of each change of content,
    /// pushing each observation into `history` as it is made. A copy `copies` knows (read by
    /// this run or an earlier one) is not read again; each one read is added to it. After
    /// `options.max_copies` copies, the import stops before the next capture that needs one
    /// ([`Imported::left`]).
    pub fn import<R: Record + ?Sized>(
        &mut self,
        origin: &Origin,
        history: &mut PerSecond<'_, R>,
        copies: &mut CopyLog,
    ) -> Result<Imported, HistoryError> {
        let target = match origin.port() {
            Some(port) => format!("{}:{port}/robots.txt", origin.host()),
            None => format!("{}/robots.txt", origin.host()),
        };
        let service = self.options.service.trim_end_matches('/').to_owned();
        let mut index_url = format!(
            "{service}/cdx/search/cdx?url={}&output=json&fl=timestamp,statuscode,digest",
            query_escape(&target)
        );
        if let Some(from) = &self.options.from {
            index_url.push_str(&format!("&from={from}"));
        }
        if let Some(to) = &self.options.to {
            index_url.push_str(&format!("&to={to}"));
        }
        let mut captures = Vec::new();
        for collapse in ["digest", "statuscode"] {
            let url = format!("{index_url}&collapse={collapse}");
            // One byte more than the limit tells a longer answer from one of exactly the limit.
            let index = self.get(&url, MAX_INDEX_BYTES + 1, Scope::Archive)?;
            if !(200..=299).contains(&index.status) {
                return Err(WaybackError::IndexStatus {
                    url,
                    status: index.status,
                }
                .into());
            }
            if index.body.len() > MAX_INDEX_BYTES {
                return Err(WaybackError::IndexTooLong {
                    url,
                    limit: MAX_INDEX_BYTES,
                }
                .into());
            }
            captures.extend(
                parse_index(&index.body).map_err(|source| WaybackError::Index { url, source })?,
            );
        }
        // Sorted on all three fields, a capture listed by both answers lies next to itself and
        // is kept once, and captures of one second keep one order whichever answer listed them.
        captures
            .sort_by(|a, b| (&a.stamp, a.status, &a.digest).cmp(&(&b.stamp, b.status, &b.digest)));
        captures.dedup();
        let (from, to) = (self.options.from.as_deref(), self.options.to.as_deref());
        captures.retain(|capture| in_period(&capture.stamp, from, to));
        let mut imported = Imported {
            captures: captures.len(),
            ..Imported::default()
        };
        let (service_key, origin_key) = (self.service.to_string(), origin.to_string());
        // The status and digest of the last observation: the same content with another status
        // (an empty 503, then an empty 200) is a change.
        let mut previous: Option<(u16, &str)> = None;
        for (at, capture) in captures.iter().enumerate() {
            if capture.status.is_some_and(|s| (300..=399).contains(&s)) {
                imported.redirects += 1;
                continue;
            }
            let digest = capture.digest.as_str();
            let read = copies.get(&service_key, &origin_key, digest);
            // A revisit's status is the replayed one: known without asking when that content
            // was read before.
            let known = capture.status.or(read.map(|(status, _)| status));
            if known.is_some_and(|status| previous == Some((status, digest))) {
                continue;
            }
            let (status, body) = match capture.status {
                Some(code) if !(200..=299).contains(&code) => (code, None),
                archived => {
                    let again = match read {
                        // Only a 2xx body is kept: the status is all that is needed.
                        Some((status, _)) if !(200..=299).contains(&status) => {
                            Some((status, Vec::new()))
                        }
                        Some((status, sha)) => history
                            .recorded_body(origin, &sha)?
                            .map(|body| (status, body)),
                        None => None,
                    };
                    let (status, body) = match again {
                        Some(known) => known,
                        None if imported.copies >= self.options.max_copies => {
                            imported.left = captures.len() - at;
                            imported.resume = Some(capture.at);
                            break;
                        }
                        None => {
                            let (status, body) = self.copy(capture, origin, archived)?;
                            imported.copies += 1;
                            let sha = if (200..=299).contains(&status) {
                                history.keep(origin, &body)?
                            } else {
                                sha256(&body)
                            };
                            copies.insert(&service_key, &origin_key, digest, (status, sha));
                            copies.save_now_and_then()?;
                            (status, body)
                        }
                    };
                    (status, Some(body))
                }
            };
            if previous == Some((status, digest)) {
                continue;
            }
            previous = Some((status, digest));
            imported.observations += 1;
            history.push(Observation::new(
                origin.clone(),
                capture.at,
                FetchStatus::Http(status),
                body,
            ))?;
        }
        Ok(imported)
    }

    /// The archived copy of a capture: its status (the index's, or for a revisit the replayed
    /// one) and content.
    fn copy(
        &mut self,
        capture: &Capture,
        origin: &Origin,
        archived: Option<u16>,
    ) -> Result<(u16, Vec<u8>), WaybackError> {
        let url = format!(
            "{}/web/{}id_/{}",
            self.options.service.trim_end_matches('/'),
            capture.stamp,
            robots_url(origin)
        );
        let answer = self.get(&url, GOOGLEBOT_MAX_BYTES, Scope::Copies)?;
        match archived {
            Some(code) if (200..=299).contains(&answer.status) => Ok((code, answer.body)),
            Some(code) => Err(WaybackError::CopyStatus {
                url,
                code,
                status: answer.status,
            }),
            None => Ok((answer.status, answer.body)),
        }
    }
}

/// The waits before the retries of one request.
#[derive(Debug)]
struct Backoff {
    /// The back-off of the next retry: `--backoff`, doubled after each retry.
    next: Duration,
}

impl Backoff {
    fn new(first: Duration) -> Backoff {
        Backoff { next: first }
    }

    /// The wait before the next retry: the back-off, or the service's `Retry-After` (at most
    /// [`MAX_RETRY_AFTER`]) when that is longer. The `Retry-After` does not feed the doubling:
    /// a service asking for a minute each time gets a minute each time, not 2, 4 and 8.
    fn next_wait(&mut self, retry_after: Option<Duration>) -> Duration {
        let backoff = self.next;
        self.next = self.next.saturating_mul(2);
        retry_after.map_or(backoff, |asked| backoff.max(asked.min(MAX_RETRY_AFTER)))
    }
}

/// The `Retry-After` of a response, in its seconds form.
fn retry_after(response: &ureq::http::Response<ureq::Body>) -> Option<Duration> {
    response
        .headers()
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// Escapes a query value: everything but unreserved characters and `/` and `:`.
fn query_escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shown::SHOWN_CHARS;
    use proptest::strategy::Strategy;

    #[test]
    fn period_bounds() {
        let cases = [
            ("2024", Ok("2024")),
            ("2024-05", Ok("202405")),
            ("2024-05-01", Ok("20240501")),
            ("2024-05-01T12:30:00Z", Ok("20240501123000")),
            ("2024-05-01T12:30:00+02:00", Ok("20240501103000")),
            ("20240501123000", Ok("20240501123000")),
            ("2024-13", Err(())),
            ("2024-02-30", Err(())),
            ("yesterday", Err(())),
            ("202405011230001", Err(())),
        ];
        for (input, want) in cases {
            let got = cdx_time(input).map_err(|_| ());
            assert_eq!(got.as_deref().map_err(|_| ()), want, "{input}");
        }
        assert!(in_period("20240501000000", Some("2024"), Some("2024")));
        assert!(in_period("20241231235959", Some("2024"), Some("2024")));
        assert!(!in_period("20250101000000", Some("2024"), Some("2024")));
        assert!(!in_period("20231231235959", Some("2024"), None));
        assert!(in_period("20240615000000", None, Some("202406")));
        assert!(!in_period("20240701000000", None, Some("202406")));
    }

    /// Each capture's stamp, status and digest.
    fn fields(captures: &[Capture]) -> Vec<(&str, Option<u16>, &str)> {
        captures
            .iter()
            .map(|c| (c.stamp.as_str(), c.status, c.digest.as_str()))
            .collect()
    }

    #[test]
    fn index_rows() {
        let body = br#"[["timestamp","statuscode","digest"],
            ["20240102030405","200","AAA"],
            ["20240101000000","-","BBB"],
            ["20240103000000","404","CCC"]]"#;
        let captures = parse_index(body).unwrap();
        assert_eq!(
            fields(&captures),
            [
                ("20240101000000", None, "BBB"),
                ("20240102030405", Some(200), "AAA"),
                ("20240103000000", Some(404), "CCC"),
            ]
        );
        assert_eq!(captures[1].at.to_string(), "2024-01-02T03:04:05Z");
        assert!(parse_index(b"").unwrap().is_empty());
        assert!(parse_index(b"[]").unwrap().is_empty());
        for bad in [
            &b"<html>busy</html>"[..],
            br#"[["timestamp","digest"],["20240101000000","A"]]"#,
            br#"[["timestamp","statuscode","digest"],["2024","200","A"]]"#,
            br#"[["timestamp","statuscode","digest"],["20240101000000","OK","A"]]"#,
            br#"[["timestamp","statuscode","digest"],["20240101000000","200"]]"#,
        ] {
            assert!(
                parse_index(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn index_rows_are_read_by_the_header_s_columns_whatever_else_they_hold() {
        let body = br#"[["digest","x","timestamp","statuscode","timestamp"],
            ["AAA","\u0041 ignored","20240102030405","301","19990101000000","more"],
            ["B\"B","","20240101000000","-","?"]]"#;
        let captures = parse_index(body).unwrap();
        assert_eq!(
            fields(&captures),
            [
                ("20240101000000", None, "B\"B"),
                ("20240102030405", Some(301), "AAA"),
            ]
        );
        let header_only = br#"[["timestamp","statuscode","digest"]]"#;
        assert!(parse_index(header_only).unwrap().is_empty());
    }

    #[test]
    fn index_faults_name_what_is_wrong() {
        let fault = |body: &[u8]| parse_index(body).unwrap_err();
        let header = r#"["timestamp","statuscode","digest"]"#;
        assert!(matches!(
            fault(format!("[{header},[]]").as_bytes()),
            CdxError::ShortRow {
                found: 0,
                expected: 3
            }
        ));
        assert!(matches!(
            fault(format!(r#"[{header},["20240101000000","999","A"]]"#).as_bytes()),
            CdxError::Status(code) if code == "999"
        ));
        let long_stamp = "1".repeat(SHOWN_CHARS * 2);
        match fault(format!(r#"[{header},["{long_stamp}","200","A"]]"#).as_bytes()) {
            CdxError::StampDigits(shown) => assert_eq!(shown.chars().count(), SHOWN_CHARS + 1),
            other => panic!("{other}"),
        }
        let names = vec![format!("\"{}\"", "n".repeat(SHOWN_CHARS * 2)); 100].join(",");
        match fault(format!("[[{names}]]").as_bytes()) {
            CdxError::MissingField { name, header } => {
                assert_eq!(name, "timestamp");
                assert_eq!(header.len(), SHOWN_HEADER_FIELDS);
                assert!(header.iter().all(|n| n.chars().count() == SHOWN_CHARS + 1));
            }
            other => panic!("{other}"),
        }
        for not_rows in [
            format!(r#"[{header},["20240101000000","200",1]]"#),
            format!(r#"[{header},[["20240101000000"],"200","A"]]"#),
            format!(r#"[{header}] trailing"#),
            format!(r#"[{header},["20240101000000","200","A"]"#),
            r#"{"timestamp":"20240101000000"}"#.to_owned(),
        ] {
            assert!(
                matches!(fault(not_rows.as_bytes()), CdxError::NotRows(_)),
                "{not_rows}"
            );
        }
    }

    /// The index read whole, as a JSON array of arrays of strings, then row by row: what
    /// [`parse_index`] must find without holding it all.
    fn read_whole(body: &[u8]) -> Option<Vec<(String, Option<u16>, String)>> {
        let rows: Vec<Vec<String>> = serde_json::from_slice(body).ok()?;
        let Some((header, rows)) = rows.split_first() else {
            return Some(Vec::new());
        };
        let column = |name: &str| header.iter().position(|h| h == name);
        let (t, s, d) = (
            column("timestamp")?,
            column("statuscode")?,
            column("digest")?,
        );
        let mut captures = Vec::new();
        for row in rows {
            let (stamp, status, digest) = (row.get(t)?, row.get(s)?, row.get(d)?);
            parse_stamp(stamp).ok()?;
            let status = match status.as_str() {
                "-" | "" => None,
                code => Some(code.parse().ok().filter(|c| (100..=599).contains(c))?),
            };
            captures.push((stamp.clone(), status, digest.clone()));
        }
        captures.sort_by(|a, b| a.0.cmp(&b.0));
        Some(captures)
    }

    /// A header: the three fields in any order among other names, some of them again.
    fn headers() -> impl Strategy<Value = Vec<&'static str>> {
        let names = ["timestamp", "statuscode", "digest", "x", ""];
        (
            proptest::collection::vec(proptest::sample::select(names.to_vec()), 0..4),
            proptest::sample::subsequence(names[..3].to_vec(), 0..=3),
        )
            .prop_map(|(mut header, fields)| {
                header.extend(fields);
                header
            })
            .prop_shuffle()
    }

    /// A cell for a column named `name`: mostly what a capture holds there, sometimes what it
    /// must not.
    fn cell(name: &str) -> impl Strategy<Value = &'static str> + use<> {
        let fitting = match name {
            "timestamp" => vec!["20240101000000", "20231231235959", "19990101000000"],
            "statuscode" => vec!["200", "-", "", "404", "301"],
            _ => vec!["A", "b\"c", "\u{1b}[2J", "é", ""],
        };
        proptest::prop_oneof![
            12 => proptest::sample::select(fitting),
            1 => proptest::sample::select(vec!["2024", "20241301000000", "999", "OK"]),
        ]
    }

    /// A header and rows under it, some a cell short or long.
    fn answers() -> impl Strategy<Value = (Vec<&'static str>, Vec<Vec<&'static str>>)> {
        headers().prop_flat_map(|header| {
            let row = header.iter().map(|name| cell(name)).collect::<Vec<_>>();
            let rows = proptest::collection::vec((row, 0..12usize), 0..6).prop_map(|rows| {
                rows.into_iter()
                    .map(|(mut row, change)| {
                        match change {
                            0 => drop(row.pop()),
                            1 => row.push("more"),
                            _ => {}
                        }
                        row
                    })
                    .collect()
            });
            (proptest::strategy::Just(header), rows)
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(1000))]
        #[test]
        fn rows_read_one_at_a_time_are_the_rows_read_whole(
            (header, rows) in answers(),
            spoil in proptest::option::weighted(0.05, (0usize..6, 0usize..8)),
        ) {
            let mut value = serde_json::json!([header]);
            for row in &rows {
                value.as_array_mut().unwrap().push(serde_json::json!(row));
            }
            // A number where a string belongs makes the answer no rows of strings.
            if let Some((row, cell)) = spoil
                && let Some(cell) = value.get_mut(row + 1).and_then(|r| r.get_mut(cell))
            {
                *cell = serde_json::json!(7);
            }
            let body = serde_json::to_vec(&value).unwrap();
            let read = parse_index(&body).ok().map(|captures| {
                captures
                    .into_iter()
                    .map(|c| (c.stamp, c.status, c.digest))
                    .collect::<Vec<_>>()
            });
            proptest::prop_assert_eq!(read, read_whole(&body));
        }
    }

    #[test]
    fn a_retry_waits_the_longer_of_the_back_off_and_the_retry_after_capped() {
        let secs = Duration::from_secs;
        let waits = |first: Duration, asked: &[Option<Duration>]| {
            let mut backoff = Backoff::new(first);
            asked
                .iter()
                .map(|&after| backoff.next_wait(after))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            waits(secs(2), &[Some(secs(60)); 4]),
            [secs(60); 4],
            "a minute asked each time is a minute each time"
        );
        assert_eq!(
            waits(
                secs(2),
                &[Some(secs(3600)), Some(secs(10)), None, None, Some(secs(10))]
            ),
            [secs(60), secs(10), secs(8), secs(16), secs(32)],
            "the back-off doubles on its own; a Retry-After waits at most a minute"
        );
        assert_eq!(
            waits(secs(100), &[Some(secs(5)), Some(secs(0))]),
            [secs(100), secs(200)],
            "a shorter Retry-After does not shorten the back-off"
        );
    }

    #[test]
    fn query_values_are_escaped() {
        assert_eq!(
            query_escape("example.com:8080/robots.txt"),
            "example.com:8080/robots.txt"
        );
        assert_eq!(query_escape("[::1]/a b&c"), "%5B::1%5D/a%20b%26c");
    }
}
