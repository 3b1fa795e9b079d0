//! `robots-audit explain`: every step of the judgement of one log line, as text or JSON.
//!
//! The options are the audit's that act on one request; the verdict comes from the audit's own
//! code path (see `src/audit/explain.rs`).

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use clap::Args;
use robots_audit::audit::explain::Explainer;
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::logs::{Block, Format, LogReader, Source};
use robots_audit::shown::json_visible;
use robots_audit::versions::source::{LoadOptions, load};

use super::audit::{DNS, DnsArgs, JudgeArgs, RangeFile, load_verifier};
use super::{load_catalog, usage};

/// What `robots-audit explain` does, for `--help`.
pub const ABOUT: &str = "Every step of the judgement of one log line (text or --json)";

/// `robots-audit explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The log line to explain; of several lines, the last, read after the others.
    #[arg(
        value_name = "LINE",
        required_unless_present = "line",
        conflicts_with = "line"
    )]
    pub text: Option<String>,
    /// Line N of a log file (compressed or not), counted from 1, read after the lines before it
    /// as the audit reads it.
    #[arg(long, value_name = "FILE:N")]
    pub line: Option<String>,
    /// The audit's options that shape the verdict.
    #[command(flatten)]
    pub judging: JudgeArgs,
    /// The audit's `--dns-*` options: with `--verify dns` the client is checked as the audit
    /// checks it, and the cache is written back as the audit writes it.
    #[command(flatten)]
    pub dns: DnsArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The line to explain: its source name and number, and the block of lines it is in (the
/// audit reads a line after the lines of its block before it).
struct Located {
    source: String,
    line_no: u64,
    block: Block,
    /// Detected from the file's first block (as the audit does).
    detected: Option<Format>,
}

/// Reads the block that holds line `n` of `file`, cut as the audit cuts it.
fn read_line(spec: &str, auto: bool) -> Result<Located, Error> {
    let (file, n) = spec
        .rsplit_once(':')
        .and_then(|(f, n)| Some((f, n.parse::<u64>().ok().filter(|&n| n > 0)?)))
        .ok_or_else(|| usage(format!("--line {spec:?}: write FILE:N, N counted from 1")))?;
    let source = Source::from_arg(file.as_ref());
    let mut reader =
        LogReader::open(&source).map_err(|e| Error::Fatal(format!("cannot open {file}: {e}")))?;
    let mut detected = None;
    let mut first = true;
    loop {
        let block = reader
            .next_block()
            .map_err(|e| Error::Fatal(format!("cannot read {file}: {e}")))?;
        let Some(block) = block else {
            return Err(Error::Fatal(format!("{file} ends before line {n}")));
        };
        if first && auto {
            detected = reader.detect_format(&block);
        }
        first = false;
        if block.lines().any(|(line_no, _)| line_no == n) {
            return Ok(Located {
                source: file.to_owned(),
                line_no: n,
                block,
                detected,
            });
        }
    }
}

/// Runs `robots-audit explain`.
pub fn run(args: ExplainArgs) -> Result<u8, Error> {
    // The audit's own reading of the shared options.
    let config = args.judging.config()?;
    let located = match (&args.line, &args.text) {
        (Some(spec), _) => read_line(spec, config.format.is_none())?,
        // The last line of the text, after the lines before it (the pieces of a record).
        (None, Some(text)) => {
            let mut data = text.as_bytes().to_vec();
            if data.last() != Some(&b'\n') {
                data.push(b'\n');
            }
            // Explained as the audit reads a file of this text: a record it ends inside of
            // is read at its end.
            let block = Block {
                data,
                first_line: 1,
                ends_input: true,
                ..Block::default()
            };
            Located {
                source: "-".into(),
                line_no: block.line_count(),
                block,
                detected: None,
            }
        }
        (None, None) => return Err(usage("give a LINE or --line FILE:N".into())),
    };
    let (format, detected) = match config.format {
        Some(format) => (format, false),
        None => {
            let format = located
                .detected
                .or_else(|| Format::detect(&located.block.data))
                .ok_or_else(|| {
                    Error::Fatal("could not detect the log format; name it with --format".into())
                })?;
            (format, true)
        }
    };
    let dns = args.dns.verifier(&args.judging)?.map(Mutex::new);
    let verify: Vec<RangeFile> = args
        .judging
        .verify
        .iter()
        .filter(|a| *a != DNS)
        .map(|a| RangeFile::parse(a))
        .collect();
    let catalog = load_catalog(&args.judging.bots)?;
    let verifier = load_verifier(&catalog, &verify)?;
    let policy = load(
        &args.judging.robots,
        &LoadOptions {
            origin: config.origin.clone(),
            ..LoadOptions::default()
        },
    )
    .map_err(|e| Error::Fatal(e.0))?;
    let explainer = Explainer {
        config: &config,
        catalog: &catalog,
        verifier: &verifier,
        policy: &policy,
        dns: dns.as_ref(),
    };
    let explanation = explainer
        .explain_lines(
            format,
            detected,
            &located.block,
            &located.source,
            |line_no| line_no == located.line_no,
        )
        .pop()
        .map(|(_, explanation)| explanation)
        .ok_or_else(|| Error::Fatal(format!("no line {}", located.line_no)))?;
    if let Some(dns) = dns {
        args.dns
            .save(&dns.into_inner().unwrap_or_else(PoisonError::into_inner))?;
    }
    let text = if args.json {
        // The values as read, escaped so that none acts on a terminal (`json_visible`).
        format!("{}\n", json_visible(&explanation.to_json().to_string()))
    } else {
        explanation.to_text()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::output)?;
    Ok(EXIT_OK)
}
