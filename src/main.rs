//! The `robots-audit` command: parse the arguments, run the command, map errors to exit codes.

#![warn(missing_docs)]

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Audit(args) => cmd::audit::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Explain(args) => cmd::explain::run(args),
        Command::Merge(args) => cmd::merge::run(args),
        Command::Synth(args) => cmd::synth::run(args),
        Command::Bots(args) => cmd::bots::run(args),
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Import(args) => cmd::import::run(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("robots-audit: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
