//! The `robots-audit` command: parse the arguments, run the command, map errors to exit codes.

#![warn(missing_docs)]

mod cli;
mod cmd;
mod generate;

use std::process::ExitCode;

use clap::Parser;
use robots_audit::error::Error;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let command = match (cli.generate, cli.command) {
        (Some(kind), _) => return exit(generate::run(kind)),
        (None, Some(command)) => command,
        (None, None) => {
            return exit(Err(Error::Usage(
                "name a command: robots-audit --help lists them".into(),
            )));
        }
    };
    exit(match command {
        Command::Audit(args) => cmd::audit::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Merge(args) => cmd::merge::run(args),
        Command::Synth(args) => cmd::synth::run(args),
        Command::Bots(args) => cmd::bots::run(args),
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Import(args) => cmd::import::run(args),
    })
}

/// The exit code of a command's result; an error is named on standard error first, except a
/// closed standard output, which ends quietly with exit code 0 (as ripgrep does).
fn exit(result: Result<u8, Error>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        // The reader of the output went away (`| head`): nothing more to say.
        Err(Error::OutputClosed) => ExitCode::SUCCESS,
        Err(e) => {
            cmd::say(format_args!("robots-audit: {e}"));
            ExitCode::from(e.exit_code())
        }
    }
}
