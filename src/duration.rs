//! Durations on the command line (`--grace`, and every other duration option).
//!
//! A duration is written in jiff's friendly format (`24h`, `90m`, `1h30m`, `0s`, `PT24H`) and may
//! also use days and weeks, which count as 24 and 168 hours: a grace period is a span of
//! elapsed time, not a calendar date, so no time zone or daylight-saving rule applies.

use jiff::{SignedDuration, Span, SpanRelativeTo};

/// Why a command-line duration was refused.
#[derive(Debug, thiserror::Error)]
pub enum DurationError {
    /// Not a span jiff reads, or one with calendar units (months, years) that have no fixed
    /// length.
    #[error("not a duration such as 24h, 90m, 1d or 1w: {0}")]
    Syntax(jiff::Error),
    /// A span back in time: no duration option means one.
    #[error("must not be negative")]
    Negative,
}

/// Parses a non-negative duration such as `24h`, `90m`, `1d` or `1w`.
///
/// ```
/// use robots_audit::duration::parse;
/// assert_eq!(parse("1d").unwrap().as_secs(), 86_400);
/// assert_eq!(parse("1w").unwrap().as_secs(), 7 * 86_400);
/// assert!(parse("-1h").is_err());
/// ```
pub fn parse(text: &str) -> Result<SignedDuration, DurationError> {
    let span: Span = text.trim().parse().map_err(DurationError::Syntax)?;
    let duration = span
        .to_duration(SpanRelativeTo::days_are_24_hours())
        .map_err(DurationError::Syntax)?;
    if duration.is_negative() {
        return Err(DurationError::Negative);
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let hour = 3600;
        let cases = [
            ("24h", 24 * hour),
            ("90m", 90 * 60),
            ("1h30m", 90 * 60),
            ("0s", 0),
            ("1d", 24 * hour),
            ("2d12h", 60 * hour),
            ("1w", 168 * hour),
            ("1 week", 168 * hour),
            ("PT24H", 24 * hour),
            ("P1D", 24 * hour),
            (" 24h ", 24 * hour),
        ];
        for (text, secs) in cases {
            assert_eq!(parse(text).map(|d| d.as_secs()).ok(), Some(secs), "{text}");
        }
        for bad in ["", "1mo", "1y", "soon", "24"] {
            let error = parse(bad).unwrap_err();
            assert!(matches!(error, DurationError::Syntax(_)), "{bad}: {error}");
            assert!(
                error
                    .to_string()
                    .starts_with("not a duration such as 24h, 90m, 1d or 1w: "),
                "{bad}: {error}"
            );
        }
        let negative = parse("-1h").unwrap_err();
        assert!(matches!(negative, DurationError::Negative));
        assert_eq!(negative.to_string(), "must not be negative");
    }
}
