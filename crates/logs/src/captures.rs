//! The request headers an HAProxy frontend captures, as the operator declares them
//! (`--haproxy-captures`). A log line writes the captured values in the order of haproxy.cfg's
//! `capture request header` lines and never names them, so only the configuration says which
//! value is which: a client can send any header with any value. A leaf below the parsers: the
//! order is resolved here once, into the positions the HAProxy parser reads.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The captured request headers of an HAProxy frontend, in the order of its `capture request
/// header` lines: which of a line's `|`-separated values is the User-Agent and which the Host.
/// Header names are case-insensitive; a header other than these two holds a place and is not
/// read.
///
/// ```
/// use robots_audit_logs::HaproxyCaptures;
///
/// let captures: HaproxyCaptures = "X-Forwarded-For, Host, User-Agent".parse()?;
/// assert_eq!(captures.values(), 3);
/// assert_eq!((captures.host(), captures.user_agent()), (Some(1), Some(2)));
/// assert_eq!(captures.to_string(), "x-forwarded-for,host,user-agent");
/// assert!("referer,accept-language".parse::<HaproxyCaptures>().is_err());
/// # Ok::<(), robots_audit_logs::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaproxyCaptures {
    /// The header names, lower-cased.
    names: Vec<String>,
    user_agent: Option<usize>,
    host: Option<usize>,
}

impl HaproxyCaptures {
    /// How many values a block of captured request headers of this configuration holds.
    pub fn values(&self) -> usize {
        self.names.len()
    }

    /// The position of the User-Agent among the values, from 0.
    pub fn user_agent(&self) -> Option<usize> {
        self.user_agent
    }

    /// The position of the Host among the values, from 0.
    pub fn host(&self) -> Option<usize> {
        self.host
    }
}

/// Whether `byte` may stand in a header name (RFC 9110's `tchar`).
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

impl FromStr for HaproxyCaptures {
    type Err = Error;

    /// Parses a comma-separated list of header names, such as `--haproxy-captures` gives.
    ///
    /// # Errors
    ///
    /// [`Error`] for the user when the list is empty, a name is empty, is no header name or
    /// comes twice, or when neither `host` nor `user-agent` is named (nothing would be read).
    fn from_str(spec: &str) -> Result<HaproxyCaptures, Error> {
        let invalid = |problem: String| Error::InvalidCaptures {
            spec: spec.to_owned(),
            problem,
        };
        if spec.trim().is_empty() {
            return Err(invalid(
                "name the captured request headers in their configured order".to_owned(),
            ));
        }
        let mut names = Vec::new();
        let mut seen = HashSet::new();
        for name in spec.split(',') {
            let name = name.trim();
            if name.is_empty() {
                return Err(invalid("a header name is empty".to_owned()));
            }
            if !name.bytes().all(is_token_byte) {
                return Err(invalid(format!("{name:?} is not a header name")));
            }
            let name = name.to_ascii_lowercase();
            if !seen.insert(name.clone()) {
                return Err(invalid(format!(
                    "{name} is named twice; name each capture once, in order"
                )));
            }
            names.push(name);
        }
        let at = |wanted: &str| names.iter().position(|name| name == wanted);
        let (user_agent, host) = (at("user-agent"), at("host"));
        if user_agent.is_none() && host.is_none() {
            return Err(invalid(
                "it names neither host nor user-agent, the only headers read".to_owned(),
            ));
        }
        Ok(HaproxyCaptures {
            names,
            user_agent,
            host,
        })
    }
}

/// The names lower-cased, comma-separated: one spelling for every way of writing the same
/// configuration.
impl fmt::Display for HaproxyCaptures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_resolve_to_positions() {
        type Case = (
            &'static str,
            &'static str,
            usize,
            Option<usize>,
            Option<usize>,
        );
        let cases: &[Case] = &[
            ("host,user-agent", "host,user-agent", 2, Some(1), Some(0)),
            ("User-Agent", "user-agent", 1, Some(0), None),
            ("HOST", "host", 1, None, Some(0)),
            (
                " Referer , User-Agent,Host ",
                "referer,user-agent,host",
                3,
                Some(1),
                Some(2),
            ),
            (
                "x-forwarded-for,host,user-agent,accept-language",
                "x-forwarded-for,host,user-agent,accept-language",
                4,
                Some(2),
                Some(1),
            ),
        ];
        for &(spec, canonical, values, user_agent, host) in cases {
            let captures: HaproxyCaptures = spec.parse().unwrap();
            assert_eq!(
                (
                    captures.to_string().as_str(),
                    captures.values(),
                    captures.user_agent(),
                    captures.host()
                ),
                (canonical, values, user_agent, host),
                "{spec:?}"
            );
        }
    }

    #[test]
    fn wrong_declarations_say_what_is_wrong() {
        let cases = [
            ("", "name the captured request headers"),
            ("  ", "name the captured request headers"),
            ("host,,user-agent", "a header name is empty"),
            ("host,user-agent,", "a header name is empty"),
            (",host", "a header name is empty"),
            (
                "host user-agent",
                "\"host user-agent\" is not a header name",
            ),
            ("host;user-agent", "is not a header name"),
            ("host,User-Agent,user-agent", "user-agent is named twice"),
            ("referer,referer,host", "referer is named twice"),
            (
                "referer,x-forwarded-for",
                "names neither host nor user-agent",
            ),
        ];
        for (spec, want) in cases {
            let message = spec.parse::<HaproxyCaptures>().unwrap_err().to_string();
            assert!(
                message.starts_with(&format!("--haproxy-captures {spec:?}: ")),
                "{message}"
            );
            assert!(message.contains(want), "{spec:?}: {message}");
        }
    }
}
