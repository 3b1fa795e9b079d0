//! The requests and crawlers each body is checked with: URLs built from the body's own values,
//! and agent lists both fixed and taken from the body's user-agent lines.

/// A small deterministic generator (SplitMix64), so that a seed reproduces a run.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.0;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    /// A number below `bound` (which must not be 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    /// One of `items` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Crawlers every body is checked for; each inner list is one call with several agents.
pub const FIXED_AGENTS: &[&[&[u8]]] = &[
    &[b"Googlebot"],
    &[b"Googlebot-Image"],
    &[b"Googlebot-News"],
    &[b"Bingbot"],
    &[b"GPTBot"],
    &[b"FooBotUnknown"],
    &[b"Googlebot/2.1"],
    &[b"Googlebot News"],
    &[b"MJ12bot"],
    &[b"*"],
    &[b""],
    &[b"Googlebot-Image", b"Googlebot"],
    &[b"Googlebot-News", b"Bingbot", b"GPTBot"],
    &[b"GOOGLEBOT"],
    &[b"googlebot "],
    &[b"Googlebot\0"],
    &[b"Google_bot-x"],
    &[b"\xE3\x83\x84"],
    &[b"\xFF"],
];

/// The values of a body's lines as a lenient reader sees them: after the first `:` (or the
/// second of two words), before any `#`, trimmed. Also says which were user-agent values.
pub fn line_values(body: &[u8]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut values = Vec::new();
    let mut agents = Vec::new();
    for line in body.split(|&byte| byte == b'\n' || byte == b'\r' || byte == 0) {
        let line = line.split(|&byte| byte == b'#').next().unwrap_or(line);
        let (key, value) = match line.iter().position(|&byte| byte == b':') {
            Some(colon) => (&line[..colon], &line[colon + 1..]),
            None => {
                let mut words = line.split(|&byte| byte == b' ' || byte == b'\t');
                let key = words.next().unwrap_or_default();
                (key, words.next_back().unwrap_or_default())
            }
        };
        let value = value.trim_ascii();
        if value.is_empty() {
            continue;
        }
        let key = key.trim_ascii().to_ascii_lowercase();
        if key.starts_with(b"user") {
            agents.push(value.to_vec());
        } else {
            values.push(value.to_vec());
        }
    }
    values.sort();
    values.dedup();
    agents.sort();
    agents.dedup();
    (values, agents)
}

/// Agent lists taken from a body's user-agent values: each value as written and reduced to
/// Google's `[A-Za-z_-]` run, at most `limit` values.
pub fn agents_from_values(
    values: &[Vec<u8>],
    limit: usize,
    random: &mut Random,
) -> Vec<Vec<Vec<u8>>> {
    let mut lists = Vec::new();
    for _ in 0..limit.min(values.len()) {
        let value = &values[random.below(values.len())];
        if value.as_slice() == b"*" {
            continue;
        }
        let reduced: Vec<u8> = value
            .iter()
            .copied()
            .take_while(|&byte| byte.is_ascii_alphabetic() || byte == b'-' || byte == b'_')
            .collect();
        lists.push(vec![value.clone()]);
        if reduced != *value && !reduced.is_empty() {
            lists.push(vec![reduced]);
        }
    }
    lists.sort();
    lists.dedup();
    lists
}

/// Values longer than this get three requests rather than twenty.
const LONG_VALUE: usize = 512;

/// Paths derived from one rule value: the value itself, prefixes and extensions of it, its
/// wildcards filled in, percent-encoded and decoded forms, non-ASCII, `%2F`, a query and
/// `/index.html`.
pub fn variants(value: &[u8]) -> Vec<Vec<u8>> {
    let base = if value.starts_with(b"/") || value.starts_with(b"*") {
        value.to_vec()
    } else {
        [b"/", value].concat()
    };
    let unanchored = base.strip_suffix(b"$").unwrap_or(&base).to_vec();
    if base.len() > LONG_VALUE {
        // Around the line cap: each check costs the library O(path x pattern), so a few
        // requests say whether the cut fell in the same place.
        let mut shorter = unanchored.clone();
        shorter.pop();
        return vec![[&unanchored[..], b"x"].concat(), unanchored, shorter];
    }
    let mut out = vec![base.clone(), unanchored.clone()];
    for filling in [&b""[..], b"zz/y.pdf", b"%2A"] {
        out.push(replace_all(&unanchored, b'*', filling));
    }
    for suffix in [
        &b"x"[..],
        b"/",
        b"?q=1",
        b"/index.html",
        b"\xC3\xA4",
        b"%C3%A4",
        b"$",
        b"*",
    ] {
        out.push([&unanchored[..], suffix].concat());
    }
    if unanchored.len() > 1 {
        out.push(unanchored[..unanchored.len() - 1].to_vec());
    }
    if let Some(slash) = unanchored.iter().rposition(|&byte| byte == b'/') {
        out.push(unanchored[..=slash].to_vec());
    }
    out.push(percent_encode_high(&unanchored));
    out.push(percent_decode(&unanchored));
    out.push(lowercase_escapes(&unanchored));
    let rest = unanchored.get(1..).unwrap_or_default();
    out.push([&b"/"[..], &replace_all(rest, b'/', b"%2F")].concat());
    out.push(unanchored.to_ascii_uppercase());
    out
}

fn replace_all(bytes: &[u8], from: u8, to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if byte == from {
            out.extend_from_slice(to);
        } else {
            out.push(byte);
        }
    }
    out
}

fn percent_encode_high(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &byte in bytes {
        if byte >= 0x80 {
            out.extend_from_slice(format!("%{byte:02X}").as_bytes());
        } else {
            out.push(byte);
        }
    }
    out
}

fn percent_decode(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes.get(at + 1..at + 3).and_then(|digits| {
            let text = std::str::from_utf8(digits).ok()?;
            u8::from_str_radix(text, 16).ok()
        });
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    out
}

fn lowercase_escapes(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for at in 0..out.len() {
        if out[at] == b'%' {
            for digit in out.iter_mut().skip(at + 1).take(2) {
                *digit = digit.to_ascii_lowercase();
            }
        }
    }
    out
}

/// The same path in one of the forms a request reaches the matcher in: as a path, an absolute
/// URL, a scheme-relative URL, or with a fragment.
pub fn as_request(path: &[u8], random: &mut Random) -> Vec<u8> {
    match random.below(6) {
        0 => [&b"https://example.com"[..], path].concat(),
        1 => [&b"http://user@example.com:8080"[..], path].concat(),
        2 => [&b"//example.com"[..], path].concat(),
        3 => [path, b"#fragment"].concat(),
        _ => path.to_vec(),
    }
}
