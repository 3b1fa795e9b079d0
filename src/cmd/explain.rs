//! `robots-audit explain`: every step of the judgement of one log line, as text or JSON.
//!
//! The options are the audit's that act on one request; the verdict comes from the audit's own
//! code path (see `src/audit/explain.rs`).

use std::ffi::OsString;
use std::io::{Cursor, Write};
use std::sync::{Mutex, PoisonError};

use clap::Args;
use robots_audit::audit::AuditConfig;
use robots_audit::audit::explain::Explainer;
use robots_audit::audit::schedule::{UNDETECTED, input_parser};
use robots_audit::error::{EXIT_OK, Error};
use robots_audit::logs::{Block, LineParser, LogReader, Source};
use robots_audit::shown::json_visible;
use robots_audit::versions::source::{LoadOptions, load};

use super::audit::{DNS, DnsArgs, JudgeArgs, RangeFile, load_verifier};
use super::{load_catalog, usage};

/// What `robots-audit explain` does, for `--help`.
pub const ABOUT: &str = "Every step of the judgement of one log line (text or --json)";

/// `robots-audit explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The log line to explain; of several lines, the last, read after the others. Its bytes
    /// are read as given, UTF-8 or not, as the audit reads a log's.
    #[arg(
        value_name = "LINE",
        required_unless_present = "line",
        conflicts_with = "line"
    )]
    pub text: Option<OsString>,
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

/// Which line of an input to explain.
#[derive(Debug, Clone, Copy)]
enum Wanted {
    /// Line N, counted from 1.
    Line(u64),
    /// The input's last line (a line given as an argument, after the lines before it).
    Last,
}

/// The line to explain: its source name and number, the block of lines it is in (the audit
/// reads a line after the lines of its block before it), and the parser the audit reads its
/// input with.
struct Located {
    source: String,
    line_no: u64,
    block: Block,
    parser: LineParser,
}

/// Reads `reader`, the input `source`, as the audit reads it, up to the block that holds the
/// `wanted` line: the parser is chosen on the first block by the audit's own
/// [`input_parser`], so that an input the audit does not read (no format detected) is refused
/// here too, with the audit's reason.
fn locate(
    mut reader: LogReader,
    source: String,
    wanted: Wanted,
    config: &AuditConfig,
) -> Result<Located, Error> {
    let mut parser = None;
    let mut last = None;
    loop {
        let block = reader
            .next_block()
            .map_err(|e| Error::Fatal(format!("cannot read {source}: {e}")))?;
        let Some(block) = block else { break };
        if parser.is_none() {
            parser = Some(
                input_parser(&mut reader, &block, config.format, &config.fields)
                    .ok_or_else(|| Error::Fatal(UNDETECTED.into()))?,
            );
        }
        match wanted {
            Wanted::Line(n) if block.lines().any(|(line_no, _)| line_no == n) => {
                last = Some((n, block));
                break;
            }
            Wanted::Line(_) => {}
            Wanted::Last => {
                last = block
                    .lines()
                    .last()
                    .map(|(line_no, _)| line_no)
                    .map(|line_no| (line_no, block));
            }
        }
    }
    match (last, parser) {
        (Some((line_no, block)), Some(parser)) => Ok(Located {
            source,
            line_no,
            block,
            parser,
        }),
        _ => Err(Error::Fatal(match wanted {
            Wanted::Line(n) => format!("{source} ends before line {n}"),
            Wanted::Last => "the LINE given holds no line".into(),
        })),
    }
}

/// Reads the block that holds line `n` of the file `--line` names.
fn read_line(spec: &str, config: &AuditConfig) -> Result<Located, Error> {
    let (file, n) = spec
        .rsplit_once(':')
        .and_then(|(f, n)| Some((f, n.parse::<u64>().ok().filter(|&n| n > 0)?)))
        .ok_or_else(|| usage(format!("--line {spec:?}: write FILE:N, N counted from 1")))?;
    let source = Source::from_arg(file.as_ref());
    let reader =
        LogReader::open(&source).map_err(|e| Error::Fatal(format!("cannot open {file}: {e}")))?;
    locate(reader, file.to_owned(), Wanted::Line(n), config)
}

/// Runs `robots-audit explain`.
pub fn run(args: ExplainArgs) -> Result<u8, Error> {
    // The audit's own reading of the shared options.
    let config = args.judging.config()?;
    let located = match (&args.line, &args.text) {
        (Some(spec), _) => read_line(spec, &config)?,
        // The last line of the text, read as the audit reads a file of these bytes: after the
        // lines before it (the pieces of a record), a record it ends inside of read at its end.
        (None, Some(text)) => {
            let bytes = Cursor::new(text.as_encoded_bytes().to_vec());
            let reader = LogReader::from_reader(bytes)
                .map_err(|e| Error::Fatal(format!("cannot read the LINE given: {e}")))?;
            locate(reader, "-".into(), Wanted::Last, &config)?
        }
        (None, None) => return Err(usage("give a LINE or --line FILE:N".into())),
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
            &located.parser,
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
