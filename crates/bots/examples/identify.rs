//! Prints how the catalog identifies each User-Agent header read from standard input, one header
//! a line: `known`, `unknown` or `-` (not a bot), the bot's name and its robots.txt tokens, and
//! the header, TAB-separated. The catalog is the built-in one, extended by the catalog files given
//! as arguments (as `--bots FILE` does).
//!
//! Run it over the distinct headers of a set of logs before and after a change of the rules, and
//! `diff` the two outputs to see every header whose name, tokens or bot status changed:
//!
//! ```text
//! cargo run --release -p robots-audit-bots --example identify < headers.txt > after.tsv
//! ```

use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use robots_audit_bots::{Catalog, Identity};

fn main() -> ExitCode {
    let mut catalog = Catalog::builtin();
    for file in std::env::args_os().skip(1) {
        if let Err(error) = catalog.extend_from_file(Path::new(&file)) {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    }
    match run(&catalog) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

fn run(catalog: &Catalog) -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.split(b'\n') {
        let line = line?;
        let header = line.strip_suffix(b"\r").unwrap_or(&line);
        let (kind, bot) = match catalog.identify(header) {
            Identity::Known(index) => ("known", catalog.bots().get(index).cloned()),
            Identity::Unknown(bot) => ("unknown", Some(bot)),
            Identity::NotBot => ("-", None),
        };
        let (name, tokens) = bot.map_or_else(
            || (String::new(), String::new()),
            |bot| (bot.name, bot.tokens.join(",")),
        );
        write!(out, "{kind}\t{name}\t{tokens}\t")?;
        out.write_all(header)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
