//! Reading the client field of a log line: one address (with the port, brackets or zone logs
//! put around it), an `X-Forwarded-For` list, a host name, or nothing usable; and whether an
//! address is one a crawler can send requests from.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// What a logged client field holds (see [`client_address`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAddress<'a> {
    /// A public address: the field's only address, or the only public one of a list.
    Public(IpAddr),
    /// Addresses, none of them public (a private, loopback, link-local, multicast or
    /// unspecified address): the logging proxy's, not the client's.
    NotPublic,
    /// An `X-Forwarded-For` list of more than one public address. Each proxy appends the
    /// address it was reached from, so the entries before the ones trusted proxies appended are
    /// whatever the client sent: `66.249.66.1, 203.0.113.5` is as likely a stranger at the
    /// second address claiming the first. Which entry is the client depends on which proxies
    /// are trusted, which the log does not say, so none is checked: verified from a forged
    /// entry would pin the stranger's requests on the crawler, spoofed from a CDN's would
    /// accuse the crawler's own.
    Several,
    /// A host name, as `HostnameLookups On` logs it (trailing dot removed).
    HostName(&'a [u8]),
    /// Anything else: `-`, `unknown`, empty, garbage.
    Unknown,
}

/// Reads a logged client field: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]:443`,
/// `fe80::1%eth0`, IPv4-mapped `::ffff:192.0.2.1` (read as IPv4), an `X-Forwarded-For` list
/// `198.51.100.7, 10.0.0.1` (its only public address; with more, [`ClientAddress::Several`]),
/// or a host name.
///
/// ```
/// use std::net::IpAddr;
/// use robots_audit_bots::{ClientAddress, client_address};
///
/// let ip: IpAddr = "66.249.66.1".parse().unwrap();
/// assert_eq!(client_address(b"66.249.66.1"), ClientAddress::Public(ip));
/// assert_eq!(client_address(b"10.0.0.3, 66.249.66.1"), ClientAddress::Public(ip));
/// assert_eq!(client_address(b"66.249.66.1, 203.0.113.5"), ClientAddress::Several);
/// assert_eq!(client_address(b"10.0.0.3"), ClientAddress::NotPublic);
/// assert_eq!(
///     client_address(b"crawl-66-249-66-1.googlebot.com"),
///     ClientAddress::HostName(b"crawl-66-249-66-1.googlebot.com")
/// );
/// assert_eq!(client_address(b"-"), ClientAddress::Unknown);
/// ```
pub fn client_address(raw: &[u8]) -> ClientAddress<'_> {
    if let Some(ip) = parse_client_ip(raw) {
        return public(ip);
    }
    if raw.contains(&b',') {
        let mut any = false;
        let mut public = None;
        for item in raw.split(|&b| b == b',') {
            if let Some(ip) = parse_client_ip(item.trim_ascii()) {
                any = true;
                if is_public(ip) {
                    if public.is_some_and(|first| first != ip) {
                        return ClientAddress::Several;
                    }
                    public = Some(ip);
                }
            }
        }
        return match (public, any) {
            (Some(ip), _) => ClientAddress::Public(ip),
            (None, true) => ClientAddress::NotPublic,
            (None, false) => ClientAddress::Unknown,
        };
    }
    let trimmed = raw.trim_ascii();
    match host_name(trimmed) {
        Some(host) => ClientAddress::HostName(host),
        None => ClientAddress::Unknown,
    }
}

/// [`client_address`] of a field that is a plain dotted quad, `None` for any other field. It
/// reads nothing but the field's bytes, so a caller that keeps recent readings can answer most
/// fields of real logs before looking into its cache, whose lookup may miss the CPU's.
///
/// ```
/// use robots_audit_bots::{ClientAddress, client_address, dotted_quad_address};
///
/// assert_eq!(dotted_quad_address(b"66.249.66.1"), Some(client_address(b"66.249.66.1")));
/// assert_eq!(dotted_quad_address(b"10.0.0.1"), Some(ClientAddress::NotPublic));
/// assert_eq!(dotted_quad_address(b"2001:db8::1"), None);
/// assert_eq!(dotted_quad_address(b"66.249.66.1:443"), None);
/// ```
pub fn dotted_quad_address(raw: &[u8]) -> Option<ClientAddress<'static>> {
    parse_dotted_quad(raw).map(|ip| public(IpAddr::V4(ip)))
}

fn public(ip: IpAddr) -> ClientAddress<'static> {
    if is_public(ip) {
        ClientAddress::Public(ip)
    } else {
        ClientAddress::NotPublic
    }
}

/// Whether a crawler can send requests from `ip`: not private, shared (100.64.0.0/10),
/// loopback, link-local, multicast, broadcast or unspecified. Documentation ranges count as
/// public (tests and examples use them).
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_private()
                || ip.is_loopback()
                || ip.is_link_local()
                || ip.is_multicast()
                || ip.is_broadcast()
                || ip.is_unspecified()
                || (a == 100 && (64..128).contains(&b))
                || a == 0)
        }
        IpAddr::V6(ip) => {
            let first = ip.segments()[0];
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// `raw` without a trailing dot when it is a host name: at most 253 bytes, two or more labels
/// of letters, digits, `-` and `_`, with a letter somewhere (so that no malformed address is
/// taken for a name).
fn host_name(raw: &[u8]) -> Option<&[u8]> {
    let name = raw.strip_suffix(b".").unwrap_or(raw);
    let labels_ok = name.split(|&b| b == b'.').all(|label| {
        (1..=63).contains(&label.len())
            && label
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    let shaped = name.len() <= 253
        && name.contains(&b'.')
        && name.iter().any(u8::is_ascii_alphabetic)
        && labels_ok;
    shaped.then_some(name)
}

/// Parses a logged client address (see [`client_address`]).
fn parse_client_ip(raw: &[u8]) -> Option<IpAddr> {
    // Most logged addresses are a plain dotted quad or plain IPv6 in hex groups. std's parser
    // takes about 200 instructions for the first and 1,600 for the second; these small readers
    // accept only text std reads the same way, and leave everything else to std.
    if let Some(ip) = parse_dotted_quad(raw) {
        return Some(IpAddr::V4(ip));
    }
    if raw.len() <= 15 && raw.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
        // Digits and dots that are no dotted quad: no address either, however read.
        return None;
    }
    if let Some(ip) = parse_hex_ipv6(raw) {
        return Some(ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4));
    }
    parse_decorated_ip(raw)
}

/// A client address with what logs put around it (brackets, a port, a zone, spaces), read by
/// std.
fn parse_decorated_ip(raw: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(raw).ok()?.trim();
    let host = if let Some(bracketed) = text.strip_prefix('[') {
        let (inner, rest) = bracketed.split_once(']')?;
        if !rest.is_empty() && !rest.strip_prefix(':').is_some_and(is_port) {
            return None;
        }
        inner
    } else {
        match text.split_once(':') {
            // One colon after a dotted address is a port; IPv6 has at least two colons.
            Some((host, port)) if host.contains('.') && !port.contains(':') => {
                if !is_port(port) {
                    return None;
                }
                host
            }
            _ => text,
        }
    };
    let host = host
        .split_once('%')
        .map_or(host, |(address, _zone)| address);
    match IpAddr::from_str(host).ok()? {
        IpAddr::V6(ip) => Some(ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4)),
        v4 => Some(v4),
    }
}

/// A dotted quad read exactly as `Ipv4Addr::from_str` reads one: four decimal octets of 1 to 3
/// digits, at most 255, without a leading zero (which could be meant as octal). `None` for
/// anything else.
fn parse_dotted_quad(raw: &[u8]) -> Option<Ipv4Addr> {
    // The longest is `255.255.255.255`.
    if raw.len() > 15 {
        return None;
    }
    let mut octets = [0u8; 4];
    let mut parts = raw.split(|&b| b == b'.');
    for octet in &mut octets {
        *octet = decimal_octet(parts.next()?)?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(Ipv4Addr::from(octets))
}

/// One octet of a dotted quad: 1 to 3 decimal digits, at most 255, no leading zero. Read by its
/// length, so that each byte is looked at once.
fn decimal_octet(text: &[u8]) -> Option<u8> {
    let digit = |b: u8| {
        let value = b.wrapping_sub(b'0');
        (value < 10).then_some(value)
    };
    match *text {
        [ones] => digit(ones),
        [tens, ones] if tens != b'0' => Some(digit(tens)? * 10 + digit(ones)?),
        [hundreds, tens, ones] if hundreds != b'0' => u8::try_from(
            u16::from(digit(hundreds)?) * 100
                + u16::from(digit(tens)?) * 10
                + u16::from(digit(ones)?),
        )
        .ok(),
        _ => None,
    }
}

/// IPv6 written in hex groups and colons only (`2001:db8:0:0:0:0:0:1`, `2001:db8::1`, `::`):
/// eight groups of 1 to 4 hex digits, or fewer with one `::` standing for at least one zero
/// group. Such text `Ipv6Addr::from_str` reads as the same address. `None` for anything else,
/// valid or not (an embedded IPv4 tail, a zone, brackets): the caller then asks std.
fn parse_hex_ipv6(raw: &[u8]) -> Option<Ipv6Addr> {
    let mut groups = [0u16; 8];
    let mut count = 0;
    // Where `::` stands: how many groups come before it.
    let mut gap = None;
    let mut rest = raw;
    if let Some(after) = rest.strip_prefix(b"::") {
        gap = Some(0);
        rest = after;
    }
    while !rest.is_empty() {
        // One group of 1 to 4 hex digits, read in the pass that finds its end; then a `:` or
        // `::` unless the text ends.
        let mut group: u16 = 0;
        let mut digits = 0;
        while let Some((&b, after)) = rest.split_first() {
            let Some(digit) = hex_value(b) else {
                break;
            };
            if digits == 4 {
                return None;
            }
            group = (group << 4) | u16::from(digit);
            digits += 1;
            rest = after;
        }
        if digits == 0 {
            return None;
        }
        *groups.get_mut(count)? = group;
        count += 1;
        rest = match rest {
            [] => rest,
            [b':', b':', more @ ..] if gap.is_none() => {
                gap = Some(count);
                more
            }
            [b':', more @ ..] if !more.is_empty() => more,
            _ => return None,
        };
    }
    let mut address = [0u16; 8];
    match gap {
        None if count == 8 => address = groups,
        Some(before) if count < 8 => {
            let after = count - before;
            address[..before].copy_from_slice(&groups[..before]);
            address[8 - after..].copy_from_slice(&groups[before..count]);
        }
        _ => return None,
    }
    Some(Ipv6Addr::from(address))
}

/// The value of a hex digit, `None` for any other byte.
fn hex_value(b: u8) -> Option<u8> {
    let value = HEX_VALUES[usize::from(b)];
    (value != NOT_HEX).then_some(value)
}

/// [`HEX_VALUES`]' entry for a byte that is no hex digit.
const NOT_HEX: u8 = u8::MAX;

/// Each byte's value as a hex digit: one load per byte of an IPv6 address, where three range
/// tests cost a branch each.
const HEX_VALUES: [u8; 256] = {
    let mut values = [NOT_HEX; 256];
    let mut b = 0;
    while b < 256 {
        values[b] = match b as u8 {
            digit @ b'0'..=b'9' => digit - b'0',
            lower @ b'a'..=b'f' => lower - b'a' + 10,
            upper @ b'A'..=b'F' => upper - b'A' + 10,
            _ => NOT_HEX,
        };
        b += 1;
    }
    values
};

/// 1 to 5 digits.
fn is_port(text: &str) -> bool {
    (1..=5).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Strategy, any, prop_oneof};

    #[test]
    fn client_addresses() {
        let v4 = |a, b, c, d| Some(IpAddr::V4(Ipv4Addr::new(a, b, c, d)));
        let v6 = |s: &str| Some(IpAddr::V6(Ipv6Addr::from_str(s).unwrap()));
        let cases: &[(&[u8], Option<IpAddr>)] = &[
            (b"66.249.66.1", v4(66, 249, 66, 1)),
            (b" 66.249.66.1 \t", v4(66, 249, 66, 1)),
            (b"66.249.66.1:443", v4(66, 249, 66, 1)),
            (b"::ffff:66.249.66.1", v4(66, 249, 66, 1)),
            (b"[::ffff:66.249.66.1]:8080", v4(66, 249, 66, 1)),
            (b"2001:4860:4801:10::1", v6("2001:4860:4801:10::1")),
            (b"[2001:4860:4801:10::1]", v6("2001:4860:4801:10::1")),
            (b"[2001:4860:4801:10::1]:443", v6("2001:4860:4801:10::1")),
            (b"fe80::1%eth0", v6("fe80::1")),
            (b"66.249.66.1:", None),
            (b"66.249.66.1:123456", None),
            (b"66.249.66.1:80:80", None),
            (b"[2001:db8::1]x", None),
            (b"[2001:db8::1", None),
            (b"66.249.66", None),
            (b"123.123.123.123", v4(123, 123, 123, 123)),
            (b"999.1.1.1", None),
            (b"1.2.3.4.5", None),
            (b"...", None),
            (b"-", None),
            (b"", None),
            (b"\xff\xfe", None),
            (b"example.com", None),
        ];
        for &(raw, expected) in cases {
            assert_eq!(
                parse_client_ip(raw),
                expected,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    /// `parse_client_ip` as it was before the fast readers, std doing all the parsing: the
    /// reference they must agree with.
    fn reference_client_ip(raw: &[u8]) -> Option<IpAddr> {
        if raw.len() <= 15 && raw.iter().all(|&b| b.is_ascii_digit() || b == b'.') {
            let text = std::str::from_utf8(raw).ok()?;
            return Ipv4Addr::from_str(text).ok().map(IpAddr::V4);
        }
        parse_decorated_ip(raw)
    }

    fn std_v4(text: &str) -> Option<Ipv4Addr> {
        Ipv4Addr::from_str(text).ok()
    }

    /// Every octet spelling of 1 to 4 digits (leading zeros, 256 and up included), in every
    /// position of a quad.
    #[test]
    fn dotted_quads_read_as_std_reads_them() {
        for len in 1..=4u32 {
            for n in 0..10u32.pow(len) {
                let octet = format!("{n:0width$}", width = len as usize);
                for position in 0..4 {
                    let mut parts = ["1", "22", "0", "255"];
                    parts[position] = &octet;
                    let text = parts.join(".");
                    assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(&text), "{text}");
                }
            }
        }
        for text in [
            "",
            ".",
            "1.2.3",
            "1.2.3.",
            ".1.2.3",
            "1..2.3",
            "1.2.3.4.",
            "1.2.3.4.5",
            "1.2.3.4 ",
            "+1.2.3.4",
            "1.2.3.-4",
            "0.0.0.0",
            "255.255.255.255",
            "1.2.3.4\0",
        ] {
            assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(text), "{text:?}");
        }
    }

    #[test]
    fn hex_ipv6_reads_as_std_reads_it() {
        let cases = [
            "::",
            "::1",
            "1::",
            "1::2",
            "2001:db8::",
            "2001:DB8:0:0:0:0:0:1",
            "2001:4860:4801:10:2af5:2afa:9f44:bee2",
            "0001:0002:0003:0004:0005:0006:0007:0008",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1:2:3::5:6:7:8",
            "::ffff:c000:0201",
        ];
        for text in cases {
            let want = Ipv6Addr::from_str(text).ok();
            assert!(want.is_some(), "{text}");
            assert_eq!(parse_hex_ipv6(text.as_bytes()), want, "{text}");
        }
        // Refused here (std may still read some: the caller asks it then).
        let refused = [
            "",
            ":",
            ":::",
            "1:::2",
            "1::2::3",
            ":1::",
            "1:",
            ":1",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7:8::",
            "::1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::8",
            "12345::",
            "1:2:3:4:5:6:7",
            "::ffff:1.2.3.4",
            "fe80::1%eth0",
            "[::1]",
            "g::",
            " ::1",
        ];
        for text in refused {
            assert_eq!(parse_hex_ipv6(text.as_bytes()), None, "{text:?}");
        }
    }

    /// An address in the forms logs write it: std's shortest text, or all eight groups with
    /// random zero padding and case.
    fn ipv6_text() -> impl Strategy<Value = String> {
        let full = (any::<[u16; 8]>(), any::<[bool; 8]>(), any::<bool>()).prop_map(
            |(groups, padded, upper)| {
                let text = groups
                    .iter()
                    .zip(padded)
                    .map(|(g, pad)| {
                        if pad {
                            format!("{g:04x}")
                        } else {
                            format!("{g:x}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(":");
                if upper { text.to_uppercase() } else { text }
            },
        );
        // Runs of zero groups, so that std's shortest form uses `::` in every position.
        let sparse = (any::<[u16; 8]>(), any::<u8>()).prop_map(|(mut groups, zeros)| {
            for (i, group) in groups.iter_mut().enumerate() {
                if zeros & (1 << i) != 0 {
                    *group = 0;
                }
            }
            Ipv6Addr::from(groups).to_string()
        });
        prop_oneof![
            full,
            sparse,
            any::<u128>().prop_map(|n| Ipv6Addr::from(n).to_string())
        ]
    }

    /// Mostly four parts of one to three bytes joined by dots, so that most draws have a
    /// quad's shape; the bytes mostly digits (leading zeros, values past 255), sometimes a byte
    /// next to the digits, a sign, a space, NUL, a dot or invalid UTF-8; sometimes a part too
    /// few, too many, empty or too long.
    fn near_dotted_quad() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            16 => b'0'..=b'9',
            2 => proptest::sample::select(b"/:".to_vec()),
            1 => proptest::sample::select(b"+- \0.\xff".to_vec()),
        ];
        let part = prop_oneof![
            6 => proptest::collection::vec(byte.clone(), 1..4),
            1 => proptest::collection::vec(byte, 0..5),
        ];
        let parts = prop_oneof![
            6 => proptest::collection::vec(part.clone(), 4..=4),
            1 => proptest::collection::vec(part, 3..6),
        ];
        parts.prop_map(|parts| parts.join(&b'.'))
    }

    proptest::proptest! {
        #[test]
        fn dotted_quads_of_any_address(n in any::<u32>()) {
            let text = Ipv4Addr::from(n).to_string();
            proptest::prop_assert_eq!(parse_dotted_quad(text.as_bytes()), Some(Ipv4Addr::from(n)));
        }

        #[test]
        fn dotted_quads_of_random_text(text in "[0-9.]{0,17}") {
            proptest::prop_assert_eq!(parse_dotted_quad(text.as_bytes()), std_v4(&text));
        }

        /// Dotted quads and near misses of them (see [`near_dotted_quad`]): read as std reads
        /// them, or not at all.
        #[test]
        fn dotted_quads_of_near_misses(field in near_dotted_quad()) {
            let want = std::str::from_utf8(&field).ok().and_then(std_v4);
            proptest::prop_assert_eq!(parse_dotted_quad(&field), want);
        }

        #[test]
        fn hex_ipv6_of_any_address(text in ipv6_text()) {
            let want = Ipv6Addr::from_str(&text).ok();
            proptest::prop_assert!(want.is_some());
            proptest::prop_assert_eq!(parse_hex_ipv6(text.as_bytes()), want);
        }

        #[test]
        fn hex_ipv6_of_random_text(text in "[0-9a-fA-F:]{0,42}") {
            if let Some(ip) = parse_hex_ipv6(text.as_bytes()) {
                proptest::prop_assert_eq!(Some(ip), Ipv6Addr::from_str(&text).ok());
            }
        }

        /// The whole client address reader against the std-only reference, on text made of
        /// the bytes addresses, ports, brackets and zones are written with.
        #[test]
        fn client_addresses_agree_with_std(
            text in "[0-9a-fA-F:.\\[\\]% x]{0,45}",
            ip in ipv6_text(),
            v4 in any::<u32>(),
            form in 0..6usize,
        ) {
            let v4 = Ipv4Addr::from(v4).to_string();
            let texts = [
                text.clone(),
                ip.clone(),
                format!("[{ip}]:443"),
                format!("::ffff:{v4}"),
                format!("{v4}:8080"),
                format!(" {ip} "),
            ];
            for raw in [&texts[form], &text, &ip, &v4] {
                proptest::prop_assert_eq!(
                    parse_client_ip(raw.as_bytes()),
                    reference_client_ip(raw.as_bytes()),
                    "{:?}",
                    raw
                );
            }
        }
    }

    #[test]
    fn client_fields() {
        let ip = |text: &str| ClientAddress::Public(IpAddr::from_str(text).unwrap());
        let cases: &[(&[u8], ClientAddress<'_>)] = &[
            (b"66.249.66.1", ip("66.249.66.1")),
            (b"[2001:4860:4801:10::1]:443", ip("2001:4860:4801:10::1")),
            (b"::ffff:66.249.66.1", ip("66.249.66.1")),
            (b"10.1.2.3", ClientAddress::NotPublic),
            (b"172.16.0.1", ClientAddress::NotPublic),
            (b"192.168.0.1", ClientAddress::NotPublic),
            (b"100.64.0.1", ClientAddress::NotPublic),
            (b"169.254.0.1", ClientAddress::NotPublic),
            (b"0.0.0.0", ClientAddress::NotPublic),
            (b"255.255.255.255", ClientAddress::NotPublic),
            (b"224.0.0.1", ClientAddress::NotPublic),
            (b"fe80::1%eth0", ClientAddress::NotPublic),
            (b"fc00::1", ClientAddress::NotPublic),
            (b"ff02::1", ClientAddress::NotPublic),
            (b"100.128.0.1", ip("100.128.0.1")),
            (b"66.249.66.1, 10.0.0.1", ip("66.249.66.1")),
            (
                b"10.0.0.1, 66.249.66.1, 203.0.113.9",
                ClientAddress::Several,
            ),
            (b"66.249.66.1, 203.0.113.9", ClientAddress::Several),
            (b"66.249.66.1, 10.0.0.1, 66.249.66.1", ip("66.249.66.1")),
            (b"2001:db8::7, 66.249.66.1", ClientAddress::Several),
            (b"10.0.0.1 ,  [2001:db8::7]:80", ip("2001:db8::7")),
            (b"10.0.0.1, 127.0.0.1", ClientAddress::NotPublic),
            (b"unknown, -", ClientAddress::Unknown),
            (
                b"crawl-1-2-3-4.googlebot.com",
                ClientAddress::HostName(b"crawl-1-2-3-4.googlebot.com"),
            ),
            (b" host.example. ", ClientAddress::HostName(b"host.example")),
            (
                b"my_host.example",
                ClientAddress::HostName(b"my_host.example"),
            ),
            (b"localhost", ClientAddress::Unknown),
            (b"1.2.3", ClientAddress::Unknown),
            (b"1.2.3.4.5", ClientAddress::Unknown),
            (b"a..b", ClientAddress::Unknown),
            (b"-", ClientAddress::Unknown),
            (b"unknown", ClientAddress::Unknown),
            (b"", ClientAddress::Unknown),
            (b"h\xc3\xa9.example", ClientAddress::Unknown),
        ];
        for &(raw, expected) in cases {
            assert_eq!(
                client_address(raw),
                expected,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    proptest::proptest! {
        /// Whatever the field, it is read without panicking, and only a public address is ever
        /// given as the client's.
        #[test]
        fn client_fields_of_any_bytes(raw in proptest::collection::vec(any::<u8>(), 0..80)) {
            if let ClientAddress::Public(ip) = client_address(&raw) {
                proptest::prop_assert!(is_public(ip));
            }
        }

        /// In a list, the only public address is the client, wherever it stands among private
        /// ones; a second public address, before or after it, leaves the client unknown.
        #[test]
        fn the_only_public_address_of_a_list(
            before in proptest::collection::vec(any::<u8>(), 0..4),
            after in proptest::collection::vec(any::<u8>(), 0..4),
            public in any::<u32>(),
            other in proptest::option::of((any::<u32>(), any::<bool>())),
        ) {
            let public = Ipv4Addr::from(public);
            proptest::prop_assume!(is_public(IpAddr::V4(public)));
            let private = |n: &u8| format!("10.0.0.{n}");
            let mut items: Vec<String> = before.iter().map(private).collect();
            items.push(public.to_string());
            items.extend(after.iter().map(private));
            let mut expected = ClientAddress::Public(IpAddr::V4(public));
            if let Some((other, first)) = other {
                let other = Ipv4Addr::from(other);
                if is_public(IpAddr::V4(other)) && other != public {
                    expected = ClientAddress::Several;
                }
                if first {
                    items.insert(0, other.to_string());
                } else {
                    items.push(other.to_string());
                }
            }
            let field = items.join(", ");
            proptest::prop_assert_eq!(client_address(field.as_bytes()), expected);
        }
    }
}
