//! One module per command: its arguments (clap), its usage text and its `run`, which turns the
//! arguments into the library's configuration, loads what the command needs and returns the
//! exit code. What several commands share (durations, the bot catalog, lists of names in
//! messages) is here.

pub mod audit;
pub mod bots;
pub mod check;
pub mod explain;
pub mod fetch;
pub mod import;
pub mod merge;
pub mod synth;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use robots_audit::bots::Catalog;
use robots_audit::commit::{self, OutDir, OutLock, Owned, Staging};
use robots_audit::error::{EXIT_INPUT_ERRORS, EXIT_NOTHING_JUDGED, EXIT_OK, Error};
use robots_audit::history::manifest::Manifest;
use robots_audit::origin::Origin;
use robots_audit::report::summary::nothing_judged;
use robots_audit::report::{View, files};
use robots_audit::shown::visible;

/// Writes `message` on standard error as one line, with its control characters written visibly
/// ([`visible`]): a message may carry a stranger's text (a file's error, a name read from a
/// report directory's `state.json`, a server's answer), which must not act on the terminal or
/// start a line of its own.
pub fn say(message: std::fmt::Arguments<'_>) {
    to_stderr(&format!("{}\n", visible(&message.to_string())));
}

/// Writes `text` on standard error, ignoring a failure: when its reader went away (`2>&1 |
/// head -1`), the run goes on and exits with its own code (`docs/contract.md`, "Standard error
/// and standard output"), where `eprint!` would panic.
pub fn to_stderr(text: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
}

/// The exit code of a run's reports (`audit` and `merge` alike). Standard error names each
/// input that had an error, and says why nothing was judged when that is the reason, even with
/// `--quiet`, as errors are: a scheduled job must learn why it gets exit 3.
fn exit_code(view: &View<'_>) -> u8 {
    report_input_errors(view);
    if let Some(why) = nothing_judged(view) {
        say(format_args!("robots-audit: {why}"));
        return EXIT_NOTHING_JUDGED;
    }
    if view.state.input_errors() {
        EXIT_INPUT_ERRORS
    } else {
        EXIT_OK
    }
}

/// How many inputs with errors standard error names; `inputs.csv` lists them all.
const INPUT_ERRORS_SHOWN: usize = 10;

/// Names each input that had an error, and the error, on standard error.
fn report_input_errors(view: &View<'_>) {
    let failed: Vec<_> = view.files().filter(|f| f.error.is_some()).collect();
    for file in failed.iter().take(INPUT_ERRORS_SHOWN) {
        say(format_args!(
            "robots-audit: {}: {}",
            file.name,
            file.error.as_deref().unwrap_or_default()
        ));
    }
    if failed.len() > INPUT_ERRORS_SHOWN {
        say(format_args!(
            "robots-audit: and {} more inputs with errors (see inputs.csv)",
            failed.len() - INPUT_ERRORS_SHOWN
        ));
    }
}

/// The names of a report set the tool owns: never carried from the old `--out` into the new.
const OWNED: Owned = Owned(files::ALL);

/// Takes the lock of `--out` (waiting for its holder with `wait`) and clears what killed runs
/// left beside it: the run's hold on `--out`, from which its staging directory is made.
fn lock_out(out: &Path, wait: bool) -> Result<OutLock, Error> {
    let dir = OutDir::resolve(out)?;
    let shown = dir.shown();
    let lock = OutLock::take(dir, wait, |holder| {
        say(format_args!(
            "robots-audit: waiting for {holder}, which is writing {shown}"
        ));
    })?;
    for note in commit::recover(&lock, OWNED)? {
        say(format_args!("robots-audit: {note}"));
    }
    Ok(lock)
}

/// Opens the history directory `--into` with its lock, waiting for its holder with `wait`.
fn open_history(into: &Path, wait: bool) -> Result<Manifest, Error> {
    let manifest = if wait {
        Manifest::open_waiting(into, |holder| {
            say(format_args!(
                "robots-audit: waiting for {holder}, which is updating {}",
                into.display()
            ));
        })
    } else {
        Manifest::open(into)
    };
    Ok(manifest?)
}

/// Commits the staging directory as `--out` unless a signal asked the run to stop; a warning
/// when the previous set could not be removed.
fn commit_out(staging: Staging<'_>, interrupt: &AtomicBool) -> Result<(), Error> {
    if interrupt.load(Ordering::SeqCst) {
        return Err(Error::Interrupted);
    }
    if let Some(warning) = staging.commit(OWNED)? {
        say(format_args!("robots-audit: warning: {warning}"));
    }
    Ok(())
}

/// How long a stopped run may take to wind down before the process exits anyway (a thread
/// blocked reading a pipe cannot notice the request to stop).
const STOP_GRACE: Duration = Duration::from_secs(2);

/// What a stopped run still does if it has not returned in time, just before its process
/// exits, and how much longer than [`STOP_GRACE`] it waits for the run first.
pub(super) struct LastWords {
    wait: Duration,
    say: Box<dyn FnOnce() + Send>,
}

/// On SIGINT, SIGTERM or SIGHUP: ask the run to stop (it then commits nothing and its staging
/// directory is removed); if it has not returned after [`STOP_GRACE`] (and the wait of
/// `last_words`), say the last words, remove the staging directory (after a commit under way,
/// if any) and exit with code 130.
fn on_interrupt(last_words: Option<LastWords>) -> Result<Arc<AtomicBool>, Error> {
    let flag = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&flag);
    let mut last_words = last_words;
    ctrlc::set_handler(move || {
        if seen.swap(true, Ordering::SeqCst) {
            return;
        }
        let last_words = last_words.take();
        std::thread::spawn(move || {
            let wait = last_words.as_ref().map_or(Duration::ZERO, |last| last.wait);
            std::thread::sleep(STOP_GRACE.saturating_add(wait));
            if let Some(last) = last_words {
                (last.say)();
            }
            let _no_commit_now = commit::abandon();
            say(format_args!("robots-audit: {}", Error::Interrupted));
            std::process::exit(i32::from(Error::Interrupted.exit_code()));
        });
    })
    .map_err(|e| Error::Fatal(format!("cannot install the signal handler: {e}")))?;
    Ok(flag)
}

/// A usage error (exit code 2).
fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// Parses a duration such as `24h`, `90m`, `1d` or `1w` (see [`robots_audit::duration`]).
fn parse_duration(flag: &str, text: &str) -> Result<jiff::SignedDuration, Error> {
    robots_audit::duration::parse(text).map_err(|e| usage(format!("{flag} {text:?}: {e}")))
}

/// The `--user-agent` of `fetch` and `import --wayback`, or the default one: a header value (no
/// line break or other control character), which ureq panics on otherwise, and which would
/// otherwise write a header of the user's own into every request.
fn user_agent_flag(value: Option<String>) -> Result<String, Error> {
    let agent = value.unwrap_or_else(robots_audit::history::default_user_agent);
    match ureq::http::HeaderValue::from_str(&agent) {
        Ok(_) => Ok(agent),
        Err(_) => Err(usage(format!(
            "--user-agent {:?}: a header value is one line, without control characters",
            robots_audit::shown::shown(&agent)
        ))),
    }
}

/// A duration flag (`10s`, `500ms`, `1m30s`) as a std duration; `positive` refuses zero.
fn duration_flag(flag: &str, text: &str, positive: bool) -> Result<Duration, Error> {
    let duration = parse_duration(flag, text)?;
    let duration =
        Duration::try_from(duration).map_err(|e| Error::Usage(format!("{flag} {text:?}: {e}")))?;
    if positive && duration.is_zero() {
        return Err(Error::Usage(format!(
            "{flag} {text:?} must be more than zero"
        )));
    }
    Ok(duration)
}

/// Parses origins given on the command line or in a file, each once (the first time it is
/// named), in the order given.
fn parse_origins(texts: &[(String, String)]) -> Result<Vec<Origin>, Error> {
    let mut origins: Vec<Origin> = Vec::new();
    for (text, place) in texts {
        let origin = Origin::parse(text).map_err(|e| {
            Error::Usage(format!(
                "{place}: {text:?} is not an origin such as https://example.com: {e}"
            ))
        })?;
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    Ok(origins)
}

/// `a, b or c`: the valid values of a flag, for help texts and messages.
fn one_of<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The built-in catalog, extended by `--bots` files.
fn load_catalog(files: &[PathBuf]) -> Result<Catalog, Error> {
    let mut catalog = Catalog::builtin();
    for file in files {
        catalog
            .extend_from_file(file)
            .map_err(|e| Error::Fatal(format!("--bots {}: {e}", file.display())))?;
    }
    Ok(catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_messages() {
        assert_eq!(one_of(["a"]), "a");
        assert_eq!(one_of(["a", "b", "c"]), "a, b or c");
        assert_eq!(one_of([]), "");
    }
}
