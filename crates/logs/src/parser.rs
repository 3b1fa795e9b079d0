//! The line parser: one format's reader of lines, or, for a detected format, a reader that
//! also reads lines of the other formats a stream changes to; either reads lines behind the
//! prefixes collectors add ([`crate::prefix`]).

use crate::captures::HaproxyCaptures;
use crate::chunk::Block;
use crate::detect;
use crate::directives;
use crate::format::Format;
use crate::formats::clf::{self, ClfLayout};
use crate::formats::header::Layout;
use crate::formats::json::{FieldMap, JsonParser};
use crate::formats::{alb, cloudfront, crawl, envoy, haproxy, w3c};
use crate::limits::MAX_LINE_LEN;
use crate::prefix::{self, Assembled, OpenRecords, Prefix};
use crate::record::Request;
use crate::scratch::{BlockState, Buffers, Scratch};
use crate::skip::SkipReason;
use crate::time;
use crate::zone::LocalZone;

const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone)]
enum Kind {
    Clf(ClfLayout),
    W3c,
    Cloudfront,
    Alb,
    Json(Box<JsonParser>),
    Crawl(Box<JsonParser>),
    Haproxy(Option<HaproxyCaptures>),
    Envoy,
}

/// Parses the lines of one format. Immutable and `Sync`: one parser serves every worker
/// thread, each with its own [`BlockState`] and [`Scratch`].
///
/// ```
/// use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch};
///
/// let parser = LineParser::new(Format::Combined, &FieldMap::new());
/// let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
/// let line = br#"66.249.66.1 - - [17/May/2015:10:05:03 +0000] "GET /robots.txt HTTP/1.1" 200 - "-" "Googlebot/2.1""#;
/// let request = parser.parse(line, &mut state, &mut scratch).unwrap().unwrap();
/// assert_eq!(request.target, b"/robots.txt");
/// assert_eq!(request.user_agent.raw, b"Googlebot/2.1");
/// ```
#[derive(Debug, Clone)]
pub struct LineParser {
    format: Format,
    kind: Kind,
    /// The zone of times written without an offset.
    local_zone: LocalZone,
    /// The prefix the input's lines were detected with: each block starts with it.
    prefix: Option<Prefix>,
    /// For a detected format: the readers of the formats a line of another shape may be in.
    others: Option<Box<[(Format, Kind)]>>,
}

impl LineParser {
    /// A parser for `format`. `fields` maps JSON paths for `json`, `caddy` and JSON crawl logs
    /// (see [`FieldMap`]); the other formats ignore it.
    pub fn new(format: Format, fields: &FieldMap) -> LineParser {
        LineParser {
            format,
            kind: Kind::of(format, fields),
            local_zone: fields.local_zone().clone(),
            prefix: None,
            others: None,
        }
    }

    /// A parser for a file whose format was detected as `format`: a line that does not have
    /// that format's shape ([`SkipReason::WrongFormat`]) is read in the format it has, if
    /// detection recognises one, and the lines after it are tried in that format first, until
    /// one is not of it. A file of one format costs nothing more than with [`LineParser::new`].
    ///
    /// ```
    /// use robots_audit_logs::{BlockState, FieldMap, Format, LineParser, Scratch};
    ///
    /// let parser = LineParser::detected(Format::VhostCombined, &FieldMap::new());
    /// let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
    /// let plain = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1 "-" "UA""#;
    /// let request = parser.parse(plain, &mut state, &mut scratch).unwrap().unwrap();
    /// assert_eq!((request.client_ip, request.origin.host), (&b"1.2.3.4"[..], None));
    /// ```
    pub fn detected(format: Format, fields: &FieldMap) -> LineParser {
        let others = Format::ALL
            .into_iter()
            // W3C lines need their directive, which only a W3C file's blocks carry.
            .filter(|&other| other != format && other != Format::W3c)
            .map(|other| (other, Kind::of(other, fields)))
            .collect();
        LineParser {
            format,
            kind: Kind::of(format, fields),
            local_zone: fields.local_zone().clone(),
            prefix: None,
            others: Some(others),
        }
    }

    /// This parser, reading each block's lines behind `prefix` from the start (the prefix
    /// detection found, [`Detection::prefix`](crate::Detection::prefix)). Without it, the first
    /// prefixed line of each block has its prefix recognised on its own, at a little more cost.
    #[must_use]
    pub fn with_prefix(mut self, prefix: Option<Prefix>) -> LineParser {
        self.prefix = prefix;
        self
    }

    /// The prefix each block's lines are first read behind ([`LineParser::with_prefix`]).
    pub fn prefix(&self) -> Option<Prefix> {
        self.prefix
    }

    /// Whether this parser reads lines of other formats too ([`LineParser::detected`]).
    pub fn reads_other_formats(&self) -> bool {
        self.others.is_some()
    }

    /// The format this parser reads.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The zone this parser reads times written without an offset in (see
    /// [`Request::zone_assumed`]): the [`FieldMap`]'s, UTC unless the user named one.
    pub fn local_zone(&self) -> &LocalZone {
        &self.local_zone
    }

    /// The state to parse `block` with: for W3C and CloudFront, the layout of the `#Fields:`
    /// line before it, the offset a `#GMT-Offset:` line declared and whether the writer a
    /// `#Software:` line named quotes fields; for every format, the records of a container
    /// runtime the block starts inside of ([`Block::cut_records`]).
    pub fn block_state(&self, block: &Block) -> BlockState {
        let header = match self.kind {
            Kind::W3c | Kind::Cloudfront => block.header.as_deref(),
            _ => None,
        };
        BlockState {
            layout: header.and_then(directives::fields_line).map(Layout::parse),
            gmt_offset: header
                .and_then(directives::gmt_offset)
                .map(time::offset_seconds),
            unquoted: header
                .and_then(directives::software)
                .is_some_and(w3c::never_quotes),
            prefix: self.prefix,
            open_records: OpenRecords::cut(block.cut_records),
            ..BlockState::default()
        }
    }

    /// Parses one line (with or without its `\n` or `\r\n`). `Ok(None)` for a blank line, a
    /// comment or a directive (which may update `state`), and for a piece of a record that
    /// later lines continue; `Err` says why a line was skipped.
    ///
    /// A line may carry a collector's [`Prefix`]: the one the block's lines have had so far is
    /// split off first; a line without it, or without any, is read as it is; a line that does
    /// not have the format's shape then has its prefix (or its format, for a detected format)
    /// recognised anew, and the lines after it are read with that.
    // Always: with `#[inline]` alone, changes elsewhere in its callers' crate made the compiler
    // stop inlining it into the audit's line loop, 20 instructions more a line (callgrind).
    #[inline(always)]
    pub fn parse<'a>(
        &self,
        line: &'a [u8],
        state: &mut BlockState,
        scratch: &'a mut Scratch,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        if line.len() >= MAX_LINE_LEN {
            return Err(SkipReason::TooLong);
        }
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(BOM).unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let Scratch {
            first,
            retry,
            records,
        } = scratch;
        if let Some(prefix) = state.prefix
            && let Some(record) = prefix.split(line)
        {
            let message = match prefix::assemble(record, &mut state.open_records, records) {
                Assembled::Message(message) => message,
                Assembled::Pending => return Ok(None),
                Assembled::TooLong => return Err(SkipReason::TooLong),
            };
            if message.iter().all(u8::is_ascii_whitespace) {
                return Ok(None);
            }
            return match self.parse_current(message, state, first) {
                Err(SkipReason::WrongFormat) => self.parse_other_format(message, state, retry),
                read => read,
            };
        }
        match self.parse_current(line, state, first) {
            Err(reason) => self.parse_other(line, state, retry, records, reason),
            read => read,
        }
    }

    /// What is left of a block's lines in `state` once they are parsed, when the block
    /// [ends its input](Block::ends_input): a record of a container runtime still open (a log
    /// rotated between a partial record and its continuation) is read as what was joined of
    /// it, so that it is read or skipped as a line is, rather than counted nowhere. Each call
    /// closes one stream's record; `None` when none is open.
    #[cold]
    pub fn finish<'a>(
        &self,
        state: &mut BlockState,
        scratch: &'a mut Scratch,
    ) -> Option<Result<Option<Request<'a>>, SkipReason>> {
        let (stream, too_long) = state.open_records.close_first()?;
        if too_long {
            return Some(Err(SkipReason::TooLong));
        }
        let Scratch {
            first,
            retry,
            records,
        } = scratch;
        let message = records.get(stream).map_or(&[][..], Vec::as_slice);
        if message.iter().all(u8::is_ascii_whitespace) {
            return Some(Ok(None));
        }
        Some(match self.parse_current(message, state, first) {
            Err(SkipReason::WrongFormat) => self.parse_other_format(message, state, retry),
            read => read,
        })
    }

    /// Parses a line (or a prefixed line's message) in the format the block's lines are in.
    #[inline(always)]
    fn parse_current<'a>(
        &self,
        line: &'a [u8],
        state: &mut BlockState,
        buffers: &'a mut Buffers,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        let Some(others) = &self.others else {
            return self.kind.parse(line, state, buffers, &self.local_zone);
        };
        // Directives and comments belong to the file's own format (a `#Fields:` line lays out
        // the lines after it).
        let current = match state.current {
            Some(format) if !line.starts_with(b"#") => others
                .iter()
                .find(|(other, _)| *other == format)
                .map_or(&self.kind, |(_, kind)| kind),
            _ => &self.kind,
        };
        current.parse(line, state, buffers, &self.local_zone)
    }

    /// Reads a line the format it was tried in skipped for `reason`: behind the prefix it has,
    /// if it has one (a prefix is no part of any format, so a line that has one is never read
    /// as it stands), else, when it does not have the format's shape, in the format detection
    /// recognises it as.
    #[cold]
    fn parse_other<'a>(
        &self,
        line: &'a [u8],
        state: &mut BlockState,
        buffers: &'a mut Buffers,
        records: &'a mut [Vec<u8>; 2],
        reason: SkipReason,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        let Some((prefix, record)) = Prefix::detect(line) else {
            return match reason {
                SkipReason::WrongFormat => self.parse_other_format(line, state, buffers),
                reason => Err(reason),
            };
        };
        state.prefix = Some(prefix);
        let message = match prefix::assemble(record, &mut state.open_records, records) {
            Assembled::Message(message) => message,
            Assembled::Pending => return Ok(None),
            Assembled::TooLong => return Err(SkipReason::TooLong),
        };
        if message.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        if self.others.is_none() {
            // A named format reads every message in its own format.
            return self.kind.parse(message, state, buffers, &self.local_zone);
        }
        self.parse_other_format(message, state, buffers)
    }

    /// Reads a line (or message) in the format detection recognises it as, and remembers that
    /// format for the lines after it. A named format reads only its own.
    #[cold]
    fn parse_other_format<'a>(
        &self,
        line: &'a [u8],
        state: &mut BlockState,
        buffers: &'a mut Buffers,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        let format = detect::classify(line).ok_or(SkipReason::WrongFormat)?;
        let kind = match self
            .others
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|(other, _)| *other == format)
        {
            Some((_, kind)) => kind,
            None if format == self.format => &self.kind,
            None => return Err(SkipReason::WrongFormat),
        };
        state.current = (format != self.format).then_some(format);
        kind.parse(line, state, buffers, &self.local_zone)
    }
}

/// Whether `line` is one of docker's json-file records, which wrap a line of a log.
fn is_docker_record(line: &[u8]) -> bool {
    line.starts_with(b"{\"log\":\"") && Prefix::DockerJson.split(line).is_some()
}

impl Kind {
    fn of(format: Format, fields: &FieldMap) -> Kind {
        match format {
            Format::Combined | Format::Common | Format::VhostCombined => {
                Kind::Clf(ClfLayout::of(format))
            }
            Format::W3c => Kind::W3c,
            Format::Cloudfront => Kind::Cloudfront,
            Format::Alb => Kind::Alb,
            Format::Caddy | Format::Json => Kind::Json(Box::new(JsonParser::new(format, fields))),
            Format::Crawl => Kind::Crawl(Box::new(JsonParser::new(format, fields))),
            Format::Haproxy => Kind::Haproxy(fields.haproxy_captures().cloned()),
            Format::Envoy => Kind::Envoy,
        }
    }

    /// Parses a line that is neither blank nor over-long, with its line end and BOM removed.
    /// Inlined into [`LineParser::parse`], so that a parsed request is not moved once more.
    #[inline(always)]
    fn parse<'a>(
        &self,
        line: &'a [u8],
        state: &mut BlockState,
        buffers: &'a mut Buffers,
        zone: &LocalZone,
    ) -> Result<Option<Request<'a>>, SkipReason> {
        match self {
            Kind::W3c => w3c::parse(line, state, zone),
            Kind::Cloudfront => cloudfront::parse(line, state),
            _ if line.starts_with(b"#") => Ok(None),
            Kind::Clf(layout) => {
                clf::parse(line, *layout, &mut state.clf_minute, &mut buffers.unescaped)
            }
            Kind::Alb => alb::parse(line),
            // A docker json-file record is an object too, but not of these formats' shape.
            Kind::Json(_) | Kind::Crawl(_) if is_docker_record(line) => {
                Err(SkipReason::WrongFormat)
            }
            Kind::Json(parser) => parser.parse(line, buffers, zone, &mut state.zone_minute),
            Kind::Crawl(parser) if line.trim_ascii_start().starts_with(b"{") => {
                parser.parse(line, buffers, zone, &mut state.zone_minute)
            }
            Kind::Crawl(_) => crawl::parse(line),
            Kind::Haproxy(captures) => {
                haproxy::parse(line, state, buffers, zone, captures.as_ref())
            }
            Kind::Envoy => envoy::parse(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_comment_bom_and_too_long_lines() {
        let parser = LineParser::new(Format::Combined, &FieldMap::new());
        let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
        for line in [&b""[..], b"\r\n", b"   ", b"# a comment", b"\xEF\xBB\xBF"] {
            assert_eq!(
                parser.parse(line, &mut state, &mut scratch),
                Ok(None),
                "{line:?}"
            );
        }
        let long = vec![b'a'; MAX_LINE_LEN];
        assert_eq!(
            parser.parse(&long, &mut state, &mut scratch),
            Err(SkipReason::TooLong)
        );
        let line = b"\xEF\xBB\xBF1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"-\" \"UA\"\r\n";
        assert_eq!(
            parser
                .parse(line, &mut state, &mut scratch)
                .unwrap()
                .unwrap()
                .client_ip,
            b"1.2.3.4"
        );
    }

    #[test]
    fn block_state_takes_the_header() {
        let block = Block {
            data: b"2015-01-13 00:32:17 GET /x 200\n".to_vec(),
            first_line: 5,
            header: Some(b"#Fields: date time cs-method cs-uri-stem sc-status"[..].into()),
            ..Block::default()
        };
        let parser = LineParser::new(Format::W3c, &FieldMap::new());
        let mut state = parser.block_state(&block);
        let mut scratch = Scratch::new();
        let request = parser
            .parse(&block.data, &mut state, &mut scratch)
            .unwrap()
            .unwrap();
        assert_eq!((request.target, request.status), (&b"/x"[..], 200));
        let mut fresh = BlockState::new();
        assert_eq!(
            parser.parse(&block.data, &mut fresh, &mut scratch),
            Err(SkipReason::NoFieldsHeader)
        );
        assert!(
            LineParser::new(Format::Combined, &FieldMap::new())
                .block_state(&block)
                .layout
                .is_none()
        );
    }

    #[test]
    fn block_state_takes_the_gmt_offset_before_the_block() {
        let block = Block {
            data: b"2026-11-20 17:00:00 /x\n".to_vec(),
            first_line: 9,
            header: Some(b"#GMT-Offset: -0800\n#Fields: date time cs-uri"[..].into()),
            ..Block::default()
        };
        let parser = LineParser::new(Format::W3c, &FieldMap::new());
        let mut state = parser.block_state(&block);
        let mut scratch = Scratch::new();
        let request = parser
            .parse(&block.data, &mut state, &mut scratch)
            .unwrap()
            .unwrap();
        assert_eq!(request.time.to_string(), "2026-11-21T01:00:00Z");
        assert!(!request.zone_assumed);
        assert_eq!(parser.local_zone().name(), "UTC");
        // Carried to a block after it, a directive that is no offset still reads no time.
        let block = Block {
            header: Some(b"#GMT-Offset: +9999\n#Fields: date time cs-uri"[..].into()),
            ..block
        };
        let mut state = parser.block_state(&block);
        assert_eq!(
            parser.parse(&block.data, &mut state, &mut scratch),
            Err(SkipReason::BadTime)
        );
    }

    const COMBINED: &[u8] =
        br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /c HTTP/1.0" 200 1 "-" "UA""#;
    const VHOST: &[u8] = br#"www.example.com:443 5.6.7.8 - - [10/Oct/2000:13:55:36 -0700] "GET /v HTTP/1.0" 200 1 "-" "UA""#;
    const CADDY: &[u8] = br#"{"ts":1716723772.5,"request":{"remote_ip":"9.9.9.9","method":"GET","host":"shop.example","uri":"/j","headers":{"User-Agent":["UA"]}},"status":200,"size":1}"#;

    /// A line read: its target and host.
    type Read = Result<(Vec<u8>, Option<Vec<u8>>), SkipReason>;

    fn read(parser: &LineParser, lines: &[&[u8]]) -> Vec<Read> {
        let (mut state, mut scratch) = (BlockState::new(), Scratch::new());
        lines
            .iter()
            .map(|line| {
                parser.parse(line, &mut state, &mut scratch).map(|r| {
                    let r = r.expect("a request");
                    (r.target.to_vec(), r.origin.host.map(<[u8]>::to_vec))
                })
            })
            .collect()
    }

    #[test]
    fn a_named_format_never_reads_another_formats_lines() {
        let parser = LineParser::new(Format::Combined, &FieldMap::new());
        let got = read(&parser, &[COMBINED, VHOST, CADDY, COMBINED]);
        assert_eq!(got[0], Ok((b"/c".to_vec(), None)));
        assert_eq!(got[1], Err(SkipReason::WrongFormat));
        assert_eq!(got[2], Err(SkipReason::WrongFormat));
        assert_eq!(got[3], Ok((b"/c".to_vec(), None)));
        let parser = LineParser::new(Format::VhostCombined, &FieldMap::new());
        assert_eq!(read(&parser, &[COMBINED])[0], Err(SkipReason::WrongFormat));
    }

    #[test]
    fn a_detected_format_reads_each_line_in_its_own_format() {
        let parser = LineParser::detected(Format::VhostCombined, &FieldMap::new());
        let got = read(
            &parser,
            &[VHOST, COMBINED, COMBINED, CADDY, VHOST, b"junk junk"],
        );
        assert_eq!(
            got,
            [
                Ok((b"/v".to_vec(), Some(b"www.example.com".to_vec()))),
                Ok((b"/c".to_vec(), None)),
                Ok((b"/c".to_vec(), None)),
                Ok((b"/j".to_vec(), Some(b"shop.example".to_vec()))),
                Ok((b"/v".to_vec(), Some(b"www.example.com".to_vec()))),
                Err(SkipReason::WrongFormat),
            ]
        );
        // A damaged line of the file's own format keeps its own reason.
        let damaged: &[u8] = br#"www.example.com:443 5.6.7.8 - - [10/Oct/2000:13:55:36 -0700] "GET /v HTTP/1.0" OK 1 "-" "UA""#;
        assert_eq!(read(&parser, &[damaged])[0], Err(SkipReason::BadStatus));
        assert_eq!(parser.format(), Format::VhostCombined);
    }
}
