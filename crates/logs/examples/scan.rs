//! Runs logs through open + detect + parse and prints, per file, the detected format, the line
//! counts and the skipped lines by reason, with a few examples of each.
//!
//! `cargo run -p robots-audit-logs --release --example scan -- [--first] FILE_OR_DIR...`
//! (`--first` also prints the first request parsed from each file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use robots_audit_logs::{FieldMap, LineParser, LogReader, Scratch, Source};

/// Examples of each skip reason printed per file.
const EXAMPLES: usize = 2;

fn files(arg: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if arg.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(arg)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for entry in entries {
            files(&entry, out)?;
        }
    } else {
        out.push(arg.to_path_buf());
    }
    Ok(())
}

fn scan(path: &Path, show_first: bool) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let mut reader = LogReader::open(&Source::Path(path.to_path_buf()))?;
    let mut parser: Option<LineParser> = None;
    let mut scratch = Scratch::new();
    let (mut lines, mut parsed, mut other) = (0u64, 0u64, 0u64);
    let mut skipped: BTreeMap<&'static str, (u64, Vec<String>)> = BTreeMap::new();
    let mut error = None;
    println!("{}:", path.display());
    loop {
        let block = match reader.next_block() {
            Ok(Some(block)) => block,
            Ok(None) => break,
            Err(damage) => {
                error = Some(damage.to_string());
                break;
            }
        };
        let parser = match &parser {
            Some(parser) => parser,
            None => match reader.detect_format(&block) {
                Some(format) => parser.insert(LineParser::detected(format, &FieldMap::new())),
                None => {
                    println!(
                        "    undetected ({}), first block {} bytes",
                        reader.compression(),
                        block.data.len()
                    );
                    return Ok(());
                }
            },
        };
        let mut state = parser.block_state(&block);
        for (number, line) in block.lines() {
            lines += 1;
            match parser.parse(line, &mut state, &mut scratch) {
                Ok(Some(request)) => {
                    if show_first && parsed == 0 {
                        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
                        let origin = &request.origin;
                        println!(
                            "    first request (line {number}): time={} client={} method={} target={} query={:?} status={} fetch_status={:?} bytes={} user_agent={:?} ({:?}) origin={:?}/{:?}/{:?}",
                            request.time,
                            text(request.client_ip),
                            text(request.method),
                            text(request.target),
                            request.query.map(text),
                            request.status,
                            request.fetch_status,
                            request.bytes,
                            text(&request.user_agent.decode()),
                            request.user_agent.encoding,
                            origin.scheme.map(text),
                            origin.host.map(text),
                            origin.port,
                        );
                    }
                    parsed += 1;
                }
                Ok(None) => other += 1,
                Err(reason) => {
                    let (count, examples) = skipped.entry(reason.as_str()).or_default();
                    *count += 1;
                    if examples.len() < EXAMPLES {
                        let excerpt: String =
                            String::from_utf8_lossy(line).chars().take(160).collect();
                        examples.push(format!("line {number}: {excerpt}"));
                    }
                }
            }
        }
    }
    let format = parser.as_ref().map_or("-", |p| p.format().name());
    let requests = lines - other;
    let share = if requests == 0 {
        100.0
    } else {
        parsed as f64 * 100.0 / requests as f64
    };
    println!(
        "    format={format} compression={} lines={lines} parsed={parsed} headers/blank={other} skipped={} parsed_share={share:.3}% bytes={} time={:.1?}",
        reader.compression(),
        requests - parsed,
        reader.bytes(),
        started.elapsed(),
    );
    for (reason, (count, examples)) in &skipped {
        println!("    {reason}: {count}");
        for example in examples {
            println!("        {example}");
        }
    }
    if let Some(error) = error {
        println!("    read error: {error}");
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut paths = Vec::new();
    let mut show_first = false;
    for arg in std::env::args_os().skip(1) {
        if arg == "--first" {
            show_first = true;
        } else {
            files(Path::new(&arg), &mut paths)?;
        }
    }
    if paths.is_empty() {
        eprintln!("usage: scan FILE_OR_DIR...");
        std::process::exit(2);
    }
    for path in paths {
        if let Err(error) = scan(&path, show_first) {
            println!("{}: cannot read: {error}", path.display());
        }
    }
    Ok(())
}
