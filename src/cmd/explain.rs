//! `robots-audit explain`: every step of the judgement of one log line, as text or JSON.
//!
//! The options are the audit's that act on one request; the verdict comes from the audit's own
//! code path (see `src/audit/explain.rs`).

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use clap::Args;
use robots_audit::audit::explain::Explainer;
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::logs::{Format, LogReader, Source};
use robots_audit::shown::json_visible;
use robots_audit::versions::source::{LoadOptions, load};

use super::audit::{DNS, DnsArgs, JudgeArgs, RangeFile, load_verifier};
use super::{load_catalog, usage};

/// What `robots-audit explain` does, for `--help`.
pub const ABOUT: &str = "Every step of the judgement of one log line (text or --json)";

/// At most this many directive lines (`#Fields:` ...) before the line are replayed to the parser.
const PREAMBLE_LINES: usize = 64;

/// `robots-audit explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The log line to explain.
    #[arg(
        value_name = "LINE",
        required_unless_present = "line",
        conflicts_with = "line"
    )]
    pub text: Option<String>,
    /// Line N of a log file (compressed or not), counted from 1.
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

/// The line to explain: its source name and number, its bytes, the directives before it.
struct Located {
    source: String,
    line_no: u64,
    line: Vec<u8>,
    preamble: Vec<Vec<u8>>,
    /// Detected from the file's first block (as the audit does).
    detected: Option<Format>,
}

/// Reads line `n` of `file`, with the directive lines before it.
fn read_line(spec: &str, auto: bool) -> Result<Located, Error> {
    let (file, n) = spec
        .rsplit_once(':')
        .and_then(|(f, n)| Some((f, n.parse::<u64>().ok().filter(|&n| n > 0)?)))
        .ok_or_else(|| usage(format!("--line {spec:?}: write FILE:N, N counted from 1")))?;
    let source = Source::from_arg(file.as_ref());
    let mut reader =
        LogReader::open(&source).map_err(|e| Error::Fatal(format!("cannot open {file}: {e}")))?;
    let mut preamble: Vec<Vec<u8>> = Vec::new();
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
        for (line_no, line) in block.lines() {
            if line_no == n {
                return Ok(Located {
                    source: file.to_owned(),
                    line_no,
                    line: line.to_vec(),
                    preamble,
                    detected,
                });
            }
            if line.first() == Some(&b'#') {
                if preamble.len() == PREAMBLE_LINES {
                    preamble.remove(0);
                }
                preamble.push(line.to_vec());
            }
        }
    }
}

/// Runs `robots-audit explain`.
pub fn run(args: ExplainArgs) -> Result<u8, Error> {
    // The audit's own reading of the shared options.
    let config = args.judging.config()?;
    let located = match (&args.line, &args.text) {
        (Some(spec), _) => read_line(spec, config.format.is_none())?,
        (None, Some(text)) => Located {
            source: "-".into(),
            line_no: 1,
            line: text.as_bytes().to_vec(),
            preamble: Vec::new(),
            detected: None,
        },
        (None, None) => return Err(usage("give a LINE or --line FILE:N".into())),
    };
    let (format, detected) = match config.format {
        Some(format) => (format, false),
        None => {
            let format = located
                .detected
                .or_else(|| Format::detect(&located.line))
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
    let preamble: Vec<&[u8]> = located.preamble.iter().map(Vec::as_slice).collect();
    let explanation = explainer.explain(
        format,
        detected,
        &preamble,
        (&located.source, located.line_no),
        &located.line,
    );
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
