//! Log formats: their names, detection from a file's first lines, and the line parser.

use std::fmt;
use std::str::FromStr;

use crate::chunk::{Block, MAX_LINE_LEN};
use crate::formats::clf::{self, ClfLayout};
use crate::formats::header::Layout;
use crate::formats::json::{self, FieldMap, JsonParser};
use crate::formats::{alb, cloudfront, crawl, w3c};
use crate::record::Request;
use crate::time::ClfMinute;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many lines [`Format::detect`] looks at.
const DETECT_LINES: usize = 100;

/// A log format `--format` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// NCSA combined (Apache, nginx default): common plus quoted referer and user-agent; extra
    /// quoted fields after the user-agent (nginx `$http_x_forwarded_for`) are ignored.
    Combined,
    /// NCSA common: no referer, no user-agent.
    Common,
    /// Apache `vhost_combined`: `%v:%p` (or `%v` alone) before the combined fields.
    VhostCombined,
    /// W3C extended (IIS, NetScaler), laid out by `#Fields:`.
    W3c,
    /// Amazon CloudFront standard logs.
    Cloudfront,
    /// AWS Application Load Balancer (and Classic Load Balancer) access logs.
    Alb,
    /// Caddy v2 JSON access logs.
    Caddy,
    /// JSON lines, read through `--field` mappings and built-in names (Cloudflare Logpush,
    /// nginx `escape=json`, Fastly).
    Json,
    /// Crawler fetch logs: Heritrix `crawl.log`, or JSON lines with an absolute `url`.
    Crawl,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 9] = [
        Format::Combined,
        Format::Common,
        Format::VhostCombined,
        Format::W3c,
        Format::Cloudfront,
        Format::Alb,
        Format::Caddy,
        Format::Json,
        Format::Crawl,
    ];

    /// Whether lines of this format are laid out by a `#Fields:` directive, which blocks then
    /// carry ([`Block::header`](crate::Block::header)).
    ///
    /// ```
    /// use robots_audit_logs::Format;
    /// assert!(Format::W3c.reads_headers());
    /// assert!(!Format::Combined.reads_headers());
    /// ```
    pub fn reads_headers(&self) -> bool {
        matches!(self, Format::W3c | Format::Cloudfront)
    }

    /// The name `--format` and `inputs.csv` use.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Combined => "combined",
            Format::Common => "common",
            Format::VhostCombined => "vhost_combined",
            Format::W3c => "w3c",
            Format::Cloudfront => "cloudfront",
            Format::Alb => "alb",
            Format::Caddy => "caddy",
            Format::Json => "json",
            Format::Crawl => "crawl",
        }
    }

    /// The format called `name` (exactly as [`Format::name`] writes it).
    ///
    /// ```
    /// use robots_audit_logs::Format;
    ///
    /// assert_eq!(Format::from_name("vhost_combined"), Some(Format::VhostCombined));
    /// assert_eq!(Format::from_name("auto"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name)
    }

    /// The format of a log, judged from its first lines (`sample` is the start of the
    /// decompressed input, such as its first block). A `#Fields:` directive decides at once
    /// (CloudFront when it names CloudFront's own fields such as `x-edge-location`, W3C
    /// otherwise); otherwise each of the first
    /// 100 lines votes for the format it parses as, and the most votes win. `None` when no line
    /// is recognised.
    ///
    /// Cloudflare Logpush lines are detected as [`Format::Json`]: the generic JSON parser knows
    /// Logpush's field names.
    ///
    /// ```
    /// use robots_audit_logs::Format;
    ///
    /// let combined = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "curl/8""#;
    /// assert_eq!(Format::detect(combined), Some(Format::Combined));
    /// assert_eq!(Format::detect(b"#Software: IIS\n#Fields: date time cs-uri-stem\n"), Some(Format::W3c));
    /// assert_eq!(Format::detect(b"\x00\x01binary"), None);
    /// ```
    pub fn detect(sample: &[u8]) -> Option<Format> {
        let sample = sample.strip_prefix(BOM).unwrap_or(sample);
        let mut votes = [0usize; Format::ALL.len()];
        for line in sample.split(|&b| b == b'\n').take(DETECT_LINES) {
            let line = line.trim_ascii_end();
            if line.trim_ascii_start().is_empty() {
                continue;
            }
            if let Some(names) = line.strip_prefix(b"#Fields:") {
                let cloudfront = [
                    &b"x-edge-location"[..],
                    b"x-host-header",
                    b"x-edge-request-id",
                ]
                .iter()
                .any(|name| memchr::memmem::find(names, name).is_some());
                return Some(if cloudfront {
                    Format::Cloudfront
                } else {
                    Format::W3c
                });
            }
            if line.starts_with(b"#") {
                continue;
            }
            if let Some(format) = classify(line)
                && let Some(count) = votes.get_mut(format as usize)
            {
                *count += 1;
            }
        }
        let mut best: Option<(Format, usize)> = None;
        for (format, &count) in Format::ALL.iter().zip(&votes) {
            if count > 0 && best.is_none_or(|(_, most)| count > most) {
                best = Some((*format, count));
            }
        }
        best.map(|(format, _)| format)
    }
}

/// The format one data line parses as, if any.
fn classify(line: &[u8]) -> Option<Format> {
    if line.trim_ascii_start().starts_with(b"{") {
        return json::classify(line);
    }
    clf::classify(line)
        .or_else(|| alb::looks_like(line).then_some(Format::Alb))
        .or_else(|| crawl::looks_like(line).then_some(Format::Crawl))
        .or_else(|| cloudfront::looks_like(line).then_some(Format::Cloudfront))
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    /// Parses a `--format` value; the error lists the valid names.
    fn from_str(name: &str) -> Result<Format, String> {
        Format::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(Format::name).collect();
            format!(
                "unknown log format {name:?}; known formats: {}",
                names.join(", ")
            )
        })
    }
}

/// Why a line was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// The time is missing its parts or is not a valid date.
    BadTime,
    /// The request line is `-`, binary junk, or has no target.
    BadRequestLine,
    /// The status is not a number from 0 to 999.
    BadStatus,
    /// The byte count is not a number or `-`.
    BadBytes,
    /// A quoted field has no closing quote.
    BadQuoting,
    /// A field the format needs is not there.
    MissingField,
    /// The line is not a JSON object.
    BadJson,
    /// An absolute URL was expected and the field holds neither a URL nor a path.
    BadUrl,
    /// A line that records something other than an HTTP or FTP request: a crawler's `dns:`
    /// lookup, a load balancer's TCP-listener entry.
    NotHttp,
    /// The line is [`MAX_LINE_LEN`] bytes or longer.
    TooLong,
    /// A W3C data line with no `#Fields:` directive before it.
    NoFieldsHeader,
}

impl SkipReason {
    /// Every reason.
    pub const ALL: [SkipReason; 11] = [
        SkipReason::BadTime,
        SkipReason::BadRequestLine,
        SkipReason::BadStatus,
        SkipReason::BadBytes,
        SkipReason::BadQuoting,
        SkipReason::MissingField,
        SkipReason::BadJson,
        SkipReason::BadUrl,
        SkipReason::NotHttp,
        SkipReason::TooLong,
        SkipReason::NoFieldsHeader,
    ];

    /// The short snake_case name `skipped_lines.csv` writes.
    pub fn as_str(&self) -> &'static str {
        match self {
            SkipReason::BadTime => "bad_time",
            SkipReason::BadRequestLine => "bad_request_line",
            SkipReason::BadStatus => "bad_status",
            SkipReason::BadBytes => "bad_bytes",
            SkipReason::BadQuoting => "bad_quoting",
            SkipReason::MissingField => "missing_field",
            SkipReason::BadJson => "bad_json",
            SkipReason::BadUrl => "bad_url",
            SkipReason::NotHttp => "not_http",
            SkipReason::TooLong => "too_long",
            SkipReason::NoFieldsHeader => "no_fields_header",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reusable buffers for the values a line cannot lend (JSON strings with escapes, lines that
/// are not valid UTF-8). One per worker thread; the buffers grow to the largest line's needs
/// and are then reused.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    pub(crate) lossy: Vec<u8>,
    pub(crate) unescaped: Vec<u8>,
}

impl Scratch {
    /// Empty buffers.
    pub fn new() -> Scratch {
        Scratch::default()
    }
}

/// What a parser carries from one line of a block to the next: the `#Fields:` layout of the
/// header-driven formats, which a directive line can change mid-block.
#[derive(Debug, Clone, Default)]
pub struct BlockState {
    pub(crate) layout: Option<Layout>,
    pub(crate) clf_minute: ClfMinute,
}

impl BlockState {
    /// A state with no layout, for parsing lines that come from no [`Block`].
    pub fn new() -> BlockState {
        BlockState::default()
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Clf(ClfLayout),
    W3c,
    Cloudfront,
    Alb,
    Json(Box<JsonParser>),
    Crawl(Box<JsonParser>),
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
}

impl LineParser {
    /// A parser for `format`. `fields` maps JSON paths for `json`, `caddy` and JSON crawl logs
    /// (see [`FieldMap`]); the other formats ignore it.
    pub fn new(format: Format, fields: &FieldMap) -> LineParser {
        let kind = match format {
            Format::Combined | Format::Common | Format::VhostCombined => {
                Kind::Clf(ClfLayout::of(format))
            }
            Format::W3c => Kind::W3c,
            Format::Cloudfront => Kind::Cloudfront,
            Format::Alb => Kind::Alb,
            Format::Caddy | Format::Json => Kind::Json(Box::new(JsonParser::new(format, fields))),
            Format::Crawl => Kind::Crawl(Box::new(JsonParser::new(format, fields))),
        };
        LineParser { format, kind }
    }

    /// The format this parser reads.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The state to parse `block` with: the layout of the `#Fields:` line before it, for
    /// W3C and CloudFront.
    pub fn block_state(&self, block: &Block) -> BlockState {
        let layout = match self.kind {
            Kind::W3c | Kind::Cloudfront => block.header.as_deref().map(Layout::parse),
            _ => None,
        };
        BlockState {
            layout,
            clf_minute: ClfMinute::default(),
        }
    }

    /// Parses one line (with or without its `\n` or `\r\n`). `Ok(None)` for a blank line, a
    /// comment or a directive (which may update `state`); `Err` says why a line was skipped.
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
        match &self.kind {
            Kind::W3c => w3c::parse(line, state),
            Kind::Cloudfront => cloudfront::parse(line, state),
            _ if line.starts_with(b"#") => Ok(None),
            Kind::Clf(layout) => clf::parse(line, *layout, &mut state.clf_minute).map(Some),
            Kind::Alb => alb::parse(line).map(Some),
            Kind::Json(parser) => parser.parse(line, scratch).map(Some),
            Kind::Crawl(parser) if line.trim_ascii_start().starts_with(b"{") => {
                parser.parse(line, scratch).map(Some)
            }
            Kind::Crawl(_) => crawl::parse(line).map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        assert!(
            "Combined"
                .parse::<Format>()
                .unwrap_err()
                .contains("known formats: combined, common")
        );
        let reasons: std::collections::HashSet<&str> =
            SkipReason::ALL.iter().map(SkipReason::as_str).collect();
        assert_eq!(reasons.len(), SkipReason::ALL.len());
        assert!(
            reasons
                .iter()
                .all(|r| r.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        );
    }

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
    fn detection_votes() {
        let common = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326"#;
        let combined =
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "UA""#;
        let mostly_common = [&common[..], common, combined, b"junk"].join(&b'\n');
        assert_eq!(Format::detect(&mostly_common), Some(Format::Common));
        let mostly_combined = [&combined[..], b"", combined, common].join(&b'\n');
        assert_eq!(Format::detect(&mostly_combined), Some(Format::Combined));
        assert_eq!(Format::detect(b""), None);
        assert_eq!(
            Format::detect(b"#Version: 1.0\n#Fields: date time x-edge-location c-ip\n"),
            Some(Format::Cloudfront)
        );
    }
}
