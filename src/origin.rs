//! Origin normalisation: the key under which requests and robots.txt files meet.
//!
//! As `docs/contract.md` ("Origins") says: scheme and host lower-cased, an internationalised host in its
//! punycode form, and the default port (80, 443, 21) dropped. A log line often says less than a URL does (a vhost with a
//! port, a bare Host header), so the scheme may be inferred; see [`Origin::from_parts`].

use std::fmt;

/// A normalised origin: `scheme://host[:port]`, with the port only when it is not the scheme's
/// default.
///
/// ```
/// use robots_audit::origin::Origin;
/// let o = Origin::parse("HTTPS://Bücher.Example:443/path").unwrap();
/// assert_eq!(o.to_string(), "https://xn--bcher-kva.example");
/// assert_eq!(o.host_key(), "xn--bcher-kva.example");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

/// Why a host or origin could not be normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginError(pub String);

impl fmt::Display for OriginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OriginError {}

/// The default port of a scheme, which normalisation drops.
pub fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

impl Origin {
    /// Builds an origin from its parts, normalising each of them.
    pub fn new(scheme: &str, host: &[u8], port: Option<u16>) -> Result<Origin, OriginError> {
        let scheme = scheme.to_ascii_lowercase();
        if scheme.is_empty()
            || !scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        {
            return Err(OriginError(format!("invalid scheme {scheme:?}")));
        }
        let host = normalize_host(host)?;
        let port = port.filter(|&p| Some(p) != default_port(&scheme));
        Ok(Origin { scheme, host, port })
    }

    /// Parses `scheme://host[:port][/...]`, or a bare `host[:port]` (taken as https).
    pub fn parse(text: &str) -> Result<Origin, OriginError> {
        let text = text.trim();
        let (scheme, rest) = match text.find("://") {
            Some(i) => (&text[..i], &text[i + 3..]),
            None => ("https", text),
        };
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_host_port(authority.as_bytes())?;
        if host.is_empty() {
            return Err(OriginError(format!("no host in {text:?}")));
        }
        Origin::new(scheme, host, port)
    }

    /// Builds the origin of a log line from what the line says.
    ///
    /// The scheme, when the line does not carry one, is inferred from the port: 80 means http,
    /// anything else (443, or no port at all) https, which is what a vhost log of a modern site
    /// means. A port inside the host (`example.com:8080`) wins over a separate port field.
    pub fn from_parts(
        scheme: Option<&[u8]>,
        host: &[u8],
        port: Option<u16>,
    ) -> Result<Origin, OriginError> {
        let (host, host_port) = split_host_port(host)?;
        if host.is_empty() {
            return Err(OriginError("empty host".into()));
        }
        let port = host_port.or(port);
        let scheme = match scheme {
            Some(s) if !s.is_empty() => String::from_utf8_lossy(s).into_owned(),
            _ if port == Some(80) => "http".to_owned(),
            _ => "https".to_owned(),
        };
        Origin::new(&scheme, host, port)
    }

    /// The origin of a line's host at the port the server logged apart from it (W3C's
    /// `s-port`), when the host carries a port of its own: `None` otherwise.
    ///
    /// The port inside a Host header is the client's word. Servers route by its name alone, so
    /// a crawler that writes `example.com:8443` or `example.com:+443` to port 443 is served
    /// example.com; the caller turns here when the host's own port names no robots source.
    pub fn at_server_port(scheme: Option<&[u8]>, host: &[u8], port: Option<u16>) -> Option<Origin> {
        let port = port?;
        let name = match host.first() {
            Some(b'[') => {
                let close = host.iter().position(|&b| b == b']')?;
                host.get(..=close).filter(|_| close + 1 < host.len())?
            }
            _ => host.get(..host.iter().position(|&b| b == b':')?)?,
        };
        if name.is_empty() {
            return None;
        }
        Origin::from_parts(scheme, name, Some(port)).ok()
    }

    /// The scheme, lower-case.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The host, lower-case, punycode.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port when it is not the scheme's default.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The scheme-less key `host[:port]`: robots sources that apply on any scheme use it.
    pub fn host_key(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.clone(),
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        Ok(())
    }
}

/// Splits `host[:port]` or `[v6][:port]`. A bare IPv6 address without brackets has no port.
fn split_host_port(authority: &[u8]) -> Result<(&[u8], Option<u16>), OriginError> {
    if authority.first() == Some(&b'[') {
        let Some(close) = authority.iter().position(|&b| b == b']') else {
            return Err(OriginError("unclosed '[' in host".into()));
        };
        let host = &authority[..=close];
        let rest = &authority[close + 1..];
        return match rest.strip_prefix(b":") {
            Some(p) => Ok((host, Some(parse_port(p)?))),
            None if rest.is_empty() => Ok((host, None)),
            None => Err(OriginError("junk after ']' in host".into())),
        };
    }
    let colons = authority.iter().filter(|&&b| b == b':').count();
    if colons == 1 {
        let i = authority.iter().position(|&b| b == b':').unwrap_or(0);
        let port = &authority[i + 1..];
        if port.is_empty() {
            return Ok((&authority[..i], None));
        }
        return Ok((&authority[..i], Some(parse_port(port)?)));
    }
    Ok((authority, None))
}

fn parse_port(digits: &[u8]) -> Result<u16, OriginError> {
    std::str::from_utf8(digits)
        .ok()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            OriginError(format!(
                "invalid port {:?}",
                String::from_utf8_lossy(digits)
            ))
        })
}

/// Normalises a host: ASCII lower case, IDNA to punycode, a trailing dot dropped. An IPv6
/// literal keeps its brackets and must hold an IPv6 address. A host that is empty or ends in an
/// empty label (`a..`) is an error: dropping only one of its dots would make normalising twice
/// differ from once.
pub fn normalize_host(host: &[u8]) -> Result<String, OriginError> {
    let host = host.strip_suffix(b".").unwrap_or(host);
    if host.is_empty() || host.ends_with(b".") {
        return Err(OriginError(format!(
            "invalid host {:?}",
            String::from_utf8_lossy(host)
        )));
    }
    if let Some(literal) = host.strip_prefix(b"[") {
        // Only an address: a logged `[a/b]` would print as an origin that reads back as `[a`.
        return literal
            .strip_suffix(b"]")
            .and_then(|inner| std::str::from_utf8(inner).ok())
            .filter(|inner| inner.parse::<std::net::Ipv6Addr>().is_ok())
            .map(|inner| format!("[{}]", inner.to_ascii_lowercase()))
            .ok_or_else(|| {
                OriginError(format!(
                    "invalid IPv6 host {:?}",
                    String::from_utf8_lossy(host)
                ))
            });
    }
    if host.is_ascii() {
        let valid = host
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-._~".contains(&b) || b == b'%');
        if valid
            && !host
                .get(..4)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case(b"xn--"))
            && !host.windows(5).any(|w| w.eq_ignore_ascii_case(b".xn--"))
        {
            return Ok(String::from_utf8_lossy(host).to_ascii_lowercase());
        }
    }
    // IDNA maps full-width and ideographic full stops to `.`, so the result is checked too.
    idna::domain_to_ascii_cow(host, idna::AsciiDenyList::URL)
        .ok()
        .filter(|ascii| !ascii.is_empty() && !ascii.ends_with('.'))
        .map(|cow| cow.into_owned())
        .ok_or_else(|| OriginError(format!("invalid host {:?}", String::from_utf8_lossy(host))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_table() {
        let cases = [
            ("https://example.com", "https://example.com"),
            ("HTTPS://EXAMPLE.COM:443/", "https://example.com"),
            ("http://example.com:80", "http://example.com"),
            ("http://example.com:443", "http://example.com:443"),
            ("https://example.com:8443/a?b", "https://example.com:8443"),
            ("ftp://files.example.org:21", "ftp://files.example.org"),
            ("example.com", "https://example.com"),
            ("Example.com.", "https://example.com"),
            ("https://user:pw@example.com", "https://example.com"),
            ("https://bücher.de", "https://xn--bcher-kva.de"),
            ("https://XN--BCHER-KVA.de", "https://xn--bcher-kva.de"),
            ("http://[2001:DB8::1]:8080", "http://[2001:db8::1]:8080"),
            ("https://[::1]", "https://[::1]"),
            ("http://127.0.0.1:80", "http://127.0.0.1"),
        ];
        for (input, want) in cases {
            assert_eq!(Origin::parse(input).unwrap().to_string(), want, "{input}");
        }
    }

    #[test]
    fn parse_errors() {
        for bad in [
            "https://",
            "https://:80",
            "https://example.com:99999",
            "https://exa mple.com",
            "https://[::1",
            "https://[zz]",
            "https://[192.0.2.1]",
            "https://[::1%25eth0]",
        ] {
            assert!(Origin::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn from_parts_infers_scheme() {
        let o = Origin::from_parts(None, b"WWW.Example.com", Some(443)).unwrap();
        assert_eq!(o.to_string(), "https://www.example.com");
        let o = Origin::from_parts(None, b"example.com", Some(80)).unwrap();
        assert_eq!(o.to_string(), "http://example.com");
        let o = Origin::from_parts(None, b"example.com:8080", Some(443)).unwrap();
        assert_eq!(o.to_string(), "https://example.com:8080");
        let o = Origin::from_parts(Some(b"http"), b"example.com", None).unwrap();
        assert_eq!(o.to_string(), "http://example.com");
        assert_eq!(o.host_key(), "example.com");
        assert!(Origin::from_parts(None, b"", None).is_err());
    }

    #[test]
    fn at_server_port_drops_the_hosts_own_port() {
        let cases: [(&[u8], Option<u16>, Option<&str>); 7] = [
            (b"example.com:8443", Some(443), Some("https://example.com")),
            (b"Example.com:+443", Some(443), Some("https://example.com")),
            (b"example.com:443:443", Some(80), Some("http://example.com")),
            (b"[2001:db8::1]:1", Some(443), Some("https://[2001:db8::1]")),
            (b"example.com", Some(443), None),
            (b"example.com:8443", None, None),
            (b":8443", Some(443), None),
        ];
        for (host, port, want) in cases {
            let got = Origin::at_server_port(None, host, port).map(|o| o.to_string());
            assert_eq!(got.as_deref(), want, "{}", String::from_utf8_lossy(host));
        }
    }
}
