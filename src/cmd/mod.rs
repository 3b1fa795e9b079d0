//! One module per command: its arguments (clap) and `run`, which returns the exit code.

pub mod fetch;
pub mod import;

use std::time::Duration;

use robots_audit::error::Error;
use robots_audit::origin::Origin;

/// A duration flag (`10s`, `500ms`, `1m30s`) as a std duration; `positive` refuses zero.
fn duration_flag(flag: &str, text: &str, positive: bool) -> Result<Duration, Error> {
    let duration = crate::cli::parse_duration(flag, text)?;
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
