//! The names of the log formats. Below everything but the errors: the parsers
//! ([`crate::formats`]), detection ([`crate::detect`]) and the line parser ([`crate::parser`])
//! all name formats through it.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// A log format `--format` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// NCSA combined (Apache, nginx default): common plus quoted referer and user-agent; extra
    /// quoted fields after the user-agent (nginx `$http_x_forwarded_for`) are ignored.
    Combined,
    /// NCSA common: no referer, no user-agent.
    Common,
    /// Apache `vhost_combined`: `%v:%p` (or `%v` alone) before the combined fields.
    VhostCombined,
    /// W3C extended (IIS, NetScaler), laid out by `#Fields:`.
    W3c,
    /// Amazon CloudFront standard logs.
    Cloudfront,
    /// AWS Application Load Balancer (and Classic Load Balancer) access logs.
    Alb,
    /// Caddy v2 JSON access logs.
    Caddy,
    /// JSON lines, read through `--field` mappings and built-in names (Cloudflare Logpush,
    /// nginx `escape=json`, Fastly).
    Json,
    /// Crawler fetch logs: Heritrix `crawl.log`, or JSON lines with an absolute `url`.
    Crawl,
    /// HAProxy `option httplog` lines (usually behind a syslog prefix).
    Haproxy,
    /// Envoy's default access log (and Istio's).
    Envoy,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 11] = [
        Format::Combined,
        Format::Common,
        Format::VhostCombined,
        Format::W3c,
        Format::Cloudfront,
        Format::Alb,
        Format::Caddy,
        Format::Json,
        Format::Crawl,
        Format::Haproxy,
        Format::Envoy,
    ];

    /// Whether lines of this format are laid out by a `#Fields:` directive, which blocks then
    /// carry ([`Block::header`](crate::Block::header)).
    ///
    /// ```
    /// use robots_audit_logs::Format;
    /// assert!(Format::W3c.reads_headers());
    /// assert!(!Format::Combined.reads_headers());
    /// ```
    pub fn reads_headers(&self) -> bool {
        matches!(self, Format::W3c | Format::Cloudfront)
    }

    /// The name `--format` and `inputs.csv` use.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Combined => "combined",
            Format::Common => "common",
            Format::VhostCombined => "vhost_combined",
            Format::W3c => "w3c",
            Format::Cloudfront => "cloudfront",
            Format::Alb => "alb",
            Format::Caddy => "caddy",
            Format::Json => "json",
            Format::Crawl => "crawl",
            Format::Haproxy => "haproxy",
            Format::Envoy => "envoy",
        }
    }

    /// The format called `name` (exactly as [`Format::name`] writes it).
    ///
    /// ```
    /// use robots_audit_logs::Format;
    ///
    /// assert_eq!(Format::from_name("vhost_combined"), Some(Format::VhostCombined));
    /// assert_eq!(Format::from_name("auto"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    /// Parses a `--format` value; the error lists the valid names.
    fn from_str(name: &str) -> Result<Format, Error> {
        Format::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(Format::name).collect();
            Error::UnknownFormat {
                name: name.to_owned(),
                known: names.join(", "),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        assert!(
            "Combined"
                .parse::<Format>()
                .unwrap_err()
                .to_string()
                .contains("known formats: combined, common")
        );
    }
}
