//! Streaming readers for web access logs and crawler fetch logs.
//!
//! A [`LogReader`] opens a file or standard input, detects gzip, zstd, xz, bzip2 or plain text from
//! the magic bytes, and cuts the decompressed stream into [`Block`]s of whole lines. A
//! [`LineParser`] for the log's [`Format`] (given, or [`Format::detect`]ed from the first block)
//! turns each line into a borrowed [`Request`] without allocating, or says why it skipped the line;
//! [`LineParser::finish`] reads what the last block of an input leaves open. Blocks carry what they
//! need to be parsed on their own, so they can be handed to worker threads. Lines may carry a
//! collector's [`Prefix`] (syslog, journald, docker, Kubernetes), split off before the format's
//! parser sees them ([`LogReader::detect`] finds it with the format); times written without an
//! offset are read in the [`LocalZone`] the user names, and the requests read so say it; HAProxy's
//! captured headers are read by the order the user declares ([`HaproxyCaptures`]).
//!
//! ```
//! use robots_audit_logs::{FieldMap, Format, LineParser, LogReader, Scratch};
//!
//! let log = &b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a HTTP/1.1\" 200 5 \"-\" \"ExampleBot/1.0\"\n\
//!              damaged line\n"[..];
//! let mut reader = LogReader::from_reader(log)?;
//! let mut scratch = Scratch::new();
//! let mut parser = None;
//! while let Some(block) = reader.next_block()? {
//!     let parser = parser.get_or_insert_with(|| {
//!         let format = Format::detect(&block.data).unwrap_or(Format::Combined);
//!         LineParser::new(format, &FieldMap::new())
//!     });
//!     let mut state = parser.block_state(&block);
//!     for (number, line) in block.lines() {
//!         match parser.parse(line, &mut state, &mut scratch) {
//!             Ok(Some(request)) => assert_eq!(request.user_agent.raw, b"ExampleBot/1.0"),
//!             Ok(None) => {}
//!             Err(reason) => assert_eq!((number, reason.as_str()), (2, "wrong_format")),
//!         }
//!     }
//!     // A container runtime's record the input ended inside of: read as what was joined.
//!     if block.ends_input {
//!         assert!(parser.finish(&mut state, &mut scratch).is_none());
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod captures;
mod chunk;
mod detect;
mod directives;
mod error;
mod format;
mod formats;
mod gzip;
mod limits;
mod open;
mod parser;
mod prefix;
mod record;
mod scratch;
mod skip;
pub mod time;
mod zone;

pub use captures::HaproxyCaptures;
pub use chunk::{Block, DEFAULT_BLOCK_SIZE, Lines, LogReader, ReadError};
pub use detect::{DETECT_MAX_BYTES, DETECT_MAX_LINES, Detection, Detector};
pub use error::Error;
pub use format::Format;
pub use formats::json::{FieldMap, FieldName};
pub use formats::lex::memchr_near;
pub use gzip::{Decoding, PARALLEL_FROM};
pub use limits::MAX_LINE_LEN;
pub use open::{Compression, Source};
pub use parser::LineParser;
pub use prefix::Prefix;
pub use record::{OriginParts, Request, TargetForm, Text, TextEncoding};
pub use scratch::{BlockState, Scratch};
pub use skip::SkipReason;
pub use zone::LocalZone;
