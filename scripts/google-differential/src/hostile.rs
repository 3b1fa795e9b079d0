//! Generated robots.txt bodies that stress the parser: odd and misspelt keys, missing colons,
//! every kind of line end, NUL bytes, byte order marks, lines around the 16,663-byte cap,
//! rules before any user-agent line, repeated and empty groups, `*` agents with more after
//! them, versions, non-UTF-8 bytes and patterns full of `*`, `$` and `%`.

use crate::cases::Random;

const KEYS: &[&[u8]] = &[
    b"User-agent",
    b"user-agent",
    b"USER-AGENT",
    b"useragent",
    b"user agent",
    b"User-Agents",
    b"user_agent",
    b"Allow",
    b"allow",
    b"ALLOW",
    b"allowance",
    b"alow",
    b"Disallow",
    b"disallow",
    b"disalow",
    b"dissallow",
    b"dissalow",
    b"diasllow",
    b"disallaw",
    b"disallowed",
    b"dis-allow",
    b"Sitemap",
    b"site-map",
    b"Crawl-delay",
    b"Noindex",
    b"",
    b"\xEF\xBB\xBFuser-agent",
];

const AGENTS: &[&[u8]] = &[
    b"*",
    b"* FooBot",
    b"*\tx",
    b"*Bot",
    b"*/1.0",
    b"Googlebot",
    b"googlebot",
    b"Googlebot/2.1",
    b"Googlebot-Image",
    b"Googlebot-News",
    b"GoogleBot-news/1",
    b"Bingbot",
    b"bingbot(at)microsoft.com",
    b"GPTBot",
    b"gptbot",
    b"FooBotUnknown",
    b"",
    b"Googlebot*",
    b"Google bot",
    b"\xE3\x83\x84Googlebot",
    b"Googlebot2",
    b"MJ12bot",
    b"Googlebot Googlebot-Image",
    b"googlebot-image,googlebot",
    b"\xFFGooglebot",
    b"Googlebot\xFF",
];

const PATTERNS: &[&[u8]] = &[
    b"/",
    b"",
    b"/a",
    b"/a/",
    b"/a$",
    b"/a*",
    b"/*",
    b"/*$",
    b"*",
    b"$",
    b"/a$b",
    b"/a$$",
    b"/a*b",
    b"/**/x",
    b"/*.pdf$",
    b"/%2F",
    b"/%2f",
    b"/a%2Fb",
    b"/\xC3\xA4",
    b"/%C3%A4",
    b"/%c3%a4",
    b"/\xFF",
    b"/\xC3",
    b"/a?b",
    b"/?",
    b"/a;b",
    b"/a b",
    b"/index.html",
    b"/d/index.htm",
    b"/d/index.html*",
    b"/d/index.htm5",
    b"/d/Index.html",
    b"/A",
    b"a",
    b"/a:b",
    b"/\x0B",
    b"/%",
    b"/%G1",
    b"/%2",
    b"*/a",
    b"/a/*/b$",
    b"/*?",
    b"/$",
    b"/x.pdf",
];

const SEPARATORS: &[&[u8]] = &[b": ", b":", b" : ", b" ", b"\t", b":\t", b"::", b"  "];
const LINE_ENDS: &[&[u8]] = &[b"\n", b"\r", b"\r\n", b"\n\r", b"\r\r\n", b"\n\n"];
const LEADING: &[&[u8]] = &[b"", b"", b"", b" ", b"\t", b"\x0B", b"\x0C"];
const BOMS: &[&[u8]] = &[
    b"",
    b"",
    b"",
    b"\xEF\xBB\xBF",
    b"\xEF\xBB",
    b"\xEF",
    b"\xEF\x11\xBF",
];

/// URLs every generated body is checked with, besides those made from its own values.
pub const FIXED_PATHS: &[&[u8]] = &[
    b"/",
    b"/a",
    b"/a/",
    b"/a/b",
    b"/a$b",
    b"/a$",
    b"/\xC3\xA4",
    b"/%C3%A4",
    b"/%c3%a4",
    b"/d/",
    b"/d/index.html",
    b"/d/?q",
    b"/x.pdf",
    b"/x.pdf?y",
    b"/a%2Fb",
    b"/a;b",
    b"/?",
    b"/A",
    b"http://h/a",
    b"//h/a",
    b"h/a",
    b"/a b",
    b"/\xFF",
    b"/zz/x",
    b"/a?b",
    b"",
    b"a",
    b"?a",
    b";a",
    b"#a",
    b"//",
    b"///a",
    b"http://h?x",
    b"h;x",
    b"http://h#/a",
    b"https://h/a#b?c",
    b"http:/a",
    b"http://h:80",
    b"//h?a",
    b"/a#b",
    b"http://h/a://b",
];

/// One generated body; `seed` reproduces it. One in eight is a large one.
pub fn body(seed: u64) -> Vec<u8> {
    let mut random = Random::new(seed);
    if random.below(8) == 0 {
        return large_body(&mut random);
    }
    let mut body = random.pick(BOMS).to_vec();
    let lines = 1 + random.below(24);
    for _ in 0..lines {
        body.extend_from_slice(random.pick(LEADING));
        match random.below(12) {
            0..=3 => user_agent_line(&mut body, &mut random),
            4..=8 => rule_line(&mut body, &mut random),
            9 => body.extend_from_slice(b"# a comment: disallow: /"),
            10 => odd_line(&mut body, &mut random),
            _ => {}
        }
        if random.below(6) == 0 {
            body.extend_from_slice(b" # trailing");
        }
        if random.below(40) == 0 {
            let at = random.below(body.len() + 1);
            body.insert(at, 0);
        }
        body.extend_from_slice(random.pick(LINE_ENDS));
    }
    if random.below(3) == 0 {
        let cut = random.below(body.len() + 1);
        body.truncate(cut);
    }
    body
}

fn user_agent_line(body: &mut Vec<u8>, random: &mut Random) {
    let key: &[u8] = match random.below(4) {
        0 => random.pick(KEYS),
        _ => b"User-agent",
    };
    body.extend_from_slice(key);
    body.extend_from_slice(random.pick(SEPARATORS));
    body.extend_from_slice(random.pick(AGENTS));
}

fn rule_line(body: &mut Vec<u8>, random: &mut Random) {
    let key: &[u8] = match random.below(4) {
        0 => random.pick(KEYS),
        1 => b"Allow",
        _ => b"Disallow",
    };
    body.extend_from_slice(key);
    body.extend_from_slice(random.pick(SEPARATORS));
    body.extend_from_slice(random.pick(PATTERNS));
    if random.below(4) == 0 {
        body.extend_from_slice(random.pick(PATTERNS));
    }
}

/// A line around the 16,663-byte cap, or a rule with many wildcards.
fn odd_line(body: &mut Vec<u8>, random: &mut Random) {
    match random.below(3) {
        0 => {
            let length = 16_660 + random.below(6);
            let start = body.len();
            body.extend_from_slice(b"Disallow: /");
            while body.len() - start < length {
                body.push(if random.below(8) == 0 { b'*' } else { b'a' });
            }
            body.extend_from_slice(b"/tail");
        }
        1 => {
            body.extend_from_slice(b"Disallow: ");
            for _ in 0..random.below(30) {
                body.extend_from_slice(random.pick(&[&b"/a"[..], b"*", b"b", b"$", b"%2F"]));
            }
        }
        _ => {
            body.extend_from_slice(b"User-agent ");
            body.extend_from_slice(random.pick(AGENTS));
            body.extend_from_slice(b" extra");
        }
    }
}

const SEGMENTS: &[&[u8]] = &[
    b"/a",
    b"/b",
    b"/ab",
    b"/a/b",
    b"/x",
    b".pdf",
    b".php",
    b"?",
    b"?id=",
    b"=",
    b"&",
    b"*",
    b"*",
    b"%2F",
    b"%c3%a4",
    b"\xC3\xA4",
    b"$",
    b"/index.html",
    b";",
    b"-",
    b"_",
    b"0",
    b"1",
];

/// A body with groups of tens to hundreds of rules, so that the engine's automata, literal
/// tables and their fallbacks (crates/engine/src/compile.rs) are compared too, not only its
/// short-group scan.
fn large_body(random: &mut Random) -> Vec<u8> {
    let mut body = Vec::new();
    for _ in 0..1 + random.below(3) {
        for _ in 0..1 + random.below(2) {
            body.extend_from_slice(b"User-agent: ");
            body.extend_from_slice(random.pick(AGENTS));
            body.push(b'\n');
        }
        let rules = 20 + random.below(700);
        for _ in 0..rules {
            body.extend_from_slice(random.pick(&[&b"Allow: "[..], b"Disallow: "]));
            match random.below(200) {
                0 => {
                    // Longer than 4 KiB, or with more than 16 wildcards.
                    for _ in 0..random.below(1_200) {
                        body.extend_from_slice(random.pick(&[&b"/a"[..], b"*", b"bc"]));
                    }
                }
                _ => {
                    for _ in 0..1 + random.below(6) {
                        body.extend_from_slice(random.pick(SEGMENTS));
                    }
                }
            }
            body.push(b'\n');
        }
    }
    body
}
