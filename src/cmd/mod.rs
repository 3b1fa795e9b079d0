//! One module per command: its arguments (clap), its usage text and its `run`, which turns the
//! arguments into the library's configuration, loads what the command needs and returns the
//! exit code. What several commands share (durations, the bot catalog, lists of names in
//! messages) is here.

pub mod audit;
pub mod bots;
pub mod check;
pub mod synth;

use std::path::PathBuf;

use robots_audit::bots::Catalog;
use robots_audit::error::Error;

/// A usage error (exit code 2).
fn usage(message: String) -> Error {
    Error::Usage(message)
}

/// Parses a duration such as `24h`, `90m`, `1h30m`, `0s`.
fn parse_duration(flag: &str, text: &str) -> Result<jiff::SignedDuration, Error> {
    let duration: jiff::SignedDuration = text.parse().map_err(|e| {
        usage(format!(
            "{flag} {text:?} is not a duration such as 24h or 90m: {e}"
        ))
    })?;
    if duration.is_negative() {
        return Err(usage(format!("{flag} {text:?} must not be negative")));
    }
    Ok(duration)
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
