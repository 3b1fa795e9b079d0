//! The `robots-audit` command: parse arguments, call the library, map errors to exit codes.

mod cli;
mod cmd;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Parser;
use robots_audit::error::{EXIT_INPUT_ERRORS, EXIT_OK, Error};
use robots_audit::report::atomic::remove_temporaries;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("robots-audit: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// How long a stopped run may take to wind down before the process exits anyway (a thread
/// blocked reading a pipe cannot notice the request to stop).
const STOP_GRACE: Duration = Duration::from_secs(2);

/// On SIGINT or SIGTERM: ask the run to stop (it then writes no report); if it has not returned
/// after [`STOP_GRACE`], remove its temporary files and exit with code 130.
fn on_interrupt(out: PathBuf) -> Result<Arc<AtomicBool>, Error> {
    let flag = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if seen.swap(true, Ordering::SeqCst) {
            return;
        }
        let out = out.clone();
        std::thread::spawn(move || {
            std::thread::sleep(STOP_GRACE);
            remove_temporaries(&out);
            eprintln!("robots-audit: {}", Error::Interrupted);
            std::process::exit(i32::from(Error::Interrupted.exit_code()));
        });
    })
    .map_err(|e| Error::Fatal(format!("cannot install the signal handler: {e}")))?;
    Ok(flag)
}

fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Audit(args) => {
            let quiet = args.quiet;
            let mut config = args.into_config()?;
            config.interrupt = Some(on_interrupt(config.out.clone())?);
            let result = robots_audit::audit::run(&config)?;
            if !quiet {
                eprint!(
                    "{}",
                    robots_audit::report::summary::render(
                        &result,
                        &config.out.display().to_string()
                    )
                );
            }
            Ok(if result.input_errors() {
                EXIT_INPUT_ERRORS
            } else {
                EXIT_OK
            })
        }
        Command::Check(args) => {
            let config = args.into_config()?;
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            robots_audit::check::run(&config, &mut out)?;
            out.flush()
                .map_err(|e| Error::Fatal(format!("cannot write output: {e}")))?;
            Ok(EXIT_OK)
        }
        Command::Synth(args) => {
            let config = args.into_config()?;
            let summary = robots_audit::synth::generate(&config).map_err(|e| {
                Error::Fatal(format!(
                    "synth: cannot write into {}: {e}",
                    config.out.display()
                ))
            })?;
            eprintln!(
                "synth: {} lines ({} bytes) in {} files; robots in {}; ground truth in {}",
                summary.lines,
                summary.bytes,
                summary.files.len(),
                summary.robots_dir.display(),
                summary.truth.display()
            );
            Ok(EXIT_OK)
        }
        Command::Fetch(args) => cmd::fetch::run(args),
        Command::Import(args) => cmd::import::run(args),
    }
}
