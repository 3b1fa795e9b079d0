//! IP verification: range file formats, address forms, keys, and key inference.

use std::fs;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use robots_audit_bots::{Bot, Catalog, Category, Position, Verification, Verifier};

use Verification::{Spoofed, Unverified, Verified};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn bot(name: &str, operator: &str) -> Bot {
    Bot {
        name: name.to_owned(),
        tokens: vec![name.to_ascii_lowercase()],
        operator: operator.to_owned(),
        category: Category::Search,
        policy: Default::default(),
    }
}

/// Whether a crawler can send requests from `ip` (the verifier judges only those).
fn is_public(ip: Ipv4Addr) -> bool {
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

fn load(key: &str, file: &str) -> Verifier {
    let mut verifier = Verifier::new();
    let bytes = fs::read(fixture(file)).unwrap();
    verifier.add_ranges(key, &bytes, file).unwrap();
    verifier
}

fn check(verifier: &Verifier, bot: &Bot, cases: &[(&str, Verification)]) {
    for &(ip, expected) in cases {
        assert_eq!(
            verifier.verify(bot, ip.as_bytes()),
            expected,
            "{ip} for {}",
            bot.name
        );
    }
}

#[test]
fn google_style_json() {
    let mut verifier = Verifier::new();
    let bytes = fs::read(fixture("google_style.json")).unwrap();
    // Five objects, one of them with both keys: six prefixes, one of them twice.
    assert_eq!(
        verifier.add_ranges("Googlebot", &bytes, "google_style.json"),
        Ok(6)
    );
    check(
        &verifier,
        &bot("Googlebot", "Google"),
        &[
            ("192.0.2.0", Verified),
            ("192.0.2.31", Verified),
            ("192.0.2.32", Spoofed),
            ("198.51.100.70", Verified),
            ("198.51.100.70:443", Verified),
            ("::ffff:198.51.100.70", Verified),
            ("[::ffff:198.51.100.70]:8443", Verified),
            ("203.0.113.5", Verified),
            ("203.0.113.6", Spoofed),
            ("2001:db8:4801:10::1", Verified),
            ("[2001:db8:4801:10:ffff:ffff:ffff:ffff]", Verified),
            ("[2001:db8:4801:20::abcd]:443", Verified),
            ("2001:db8:4801:30::1", Spoofed),
            ("-", Unverified),
            ("", Unverified),
            ("not-an-ip", Unverified),
        ],
    );
}

#[test]
fn misp_warning_list() {
    let verifier = load("ExampleBot", "misp_list.json");
    check(
        &verifier,
        &bot("ExampleBot", "Example"),
        &[
            ("192.0.2.128", Verified),
            ("192.0.2.255", Verified),
            ("192.0.2.127", Spoofed),
            ("198.51.100.200", Verified),
            ("198.51.100.201", Spoofed),
            ("2001:db8:77:ffff::1", Verified),
            ("2001:db8:78::1", Spoofed),
        ],
    );
}

#[test]
fn plain_cidr_list() {
    let mut verifier = Verifier::new();
    let bytes = fs::read(fixture("plain_list.txt")).unwrap();
    assert_eq!(
        verifier.add_ranges("ExampleBot", &bytes, "plain_list.txt"),
        Ok(4)
    );
    check(
        &verifier,
        &bot("examplebot", ""),
        &[
            ("192.0.2.64", Verified),
            ("192.0.2.127", Verified),
            ("192.0.2.128", Spoofed),
            ("198.51.100.7", Verified),
            ("198.51.100.8", Spoofed),
            ("2001:db8:99::1", Verified),
            ("2001:db8:99::2", Spoofed),
            ("2001:db8:aa:ff::9", Verified),
        ],
    );
}

#[test]
fn operator_keys_cover_all_their_bots_and_bot_keys_only_one() {
    let mut verifier = Verifier::new();
    verifier
        .add_ranges("google", b"192.0.2.0/24\n", "google.txt")
        .unwrap();
    verifier
        .add_ranges("GPTBot", b"198.51.100.0/24\n", "gptbot.txt")
        .unwrap();
    let googlebot = bot("Googlebot", "Google");
    let image = bot("Googlebot-Image", "Google");
    let gptbot = bot("GPTBot", "OpenAI");
    let chatgpt = bot("ChatGPT-User", "OpenAI");
    let unknown = bot("FooBot", "");
    check(
        &verifier,
        &googlebot,
        &[("192.0.2.1", Verified), ("198.51.100.1", Spoofed)],
    );
    check(
        &verifier,
        &image,
        &[("192.0.2.1", Verified), ("198.51.100.1", Spoofed)],
    );
    check(
        &verifier,
        &gptbot,
        &[("198.51.100.1", Verified), ("192.0.2.1", Spoofed)],
    );
    check(
        &verifier,
        &chatgpt,
        &[("198.51.100.1", Unverified), ("192.0.2.1", Unverified)],
    );
    check(&verifier, &unknown, &[("192.0.2.1", Unverified)]);
    assert_eq!(verifier.keys().collect::<Vec<_>>(), ["google", "GPTBot"]);
}

#[test]
fn a_bot_is_verified_by_its_own_or_its_operators_ranges() {
    let mut verifier = Verifier::new();
    verifier
        .add_ranges("Google", b"192.0.2.0/24", "common.txt")
        .unwrap();
    verifier
        .add_ranges("AdsBot-Google", b"198.51.100.0/24", "special.txt")
        .unwrap();
    let adsbot = bot("AdsBot-Google", "Google");
    check(
        &verifier,
        &adsbot,
        &[
            ("192.0.2.9", Verified),
            ("198.51.100.9", Verified),
            ("203.0.113.9", Spoofed),
        ],
    );
}

#[test]
fn only_ranges_of_the_clients_family_can_spoof() {
    let verifier = load("Googlebot", "plain_list.txt");
    let googlebot = bot("Googlebot", "Google");
    let mut v4_only = Verifier::new();
    v4_only
        .add_ranges("Googlebot", b"192.0.2.0/24", "v4.txt")
        .unwrap();
    check(&verifier, &googlebot, &[("2001:db8:1::1", Spoofed)]);
    check(
        &v4_only,
        &googlebot,
        &[
            ("2001:db8:1::1", Unverified),
            ("192.0.3.1", Spoofed),
            ("garbage", Unverified),
        ],
    );
}

#[test]
fn several_files_for_one_key_add_up() {
    let mut verifier = Verifier::new();
    verifier
        .add_ranges("Googlebot", b"192.0.2.0/25", "a.txt")
        .unwrap();
    verifier
        .add_ranges("GOOGLEBOT", b"192.0.2.128/25", "b.txt")
        .unwrap();
    assert_eq!(verifier.keys().count(), 1);
    check(
        &verifier,
        &bot("Googlebot", ""),
        &[
            ("192.0.2.1", Verified),
            ("192.0.2.200", Verified),
            ("192.0.3.0", Spoofed),
        ],
    );
}

#[test]
fn range_file_errors() {
    let cases: &[(&[u8], Option<Position>, &str)] = &[
        (
            b"192.0.2.0/24\n192.0.2.0/99\n",
            Some(Position::Line(2)),
            "\"192.0.2.0/99\" is not an IP",
        ),
        (
            b"# header\n\n<html>\n",
            Some(Position::Line(3)),
            "\"<html>\" is not an IP",
        ),
        (
            b"192.0.2.1\n\xff\xfe\n",
            Some(Position::Line(2)),
            "not UTF-8",
        ),
        (
            br#"{"prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv4Prefix": "x"}]}"#,
            Some(Position::Entry(1)),
            "\"x\" is not an IP",
        ),
        (
            br#"{"prefixes": [{"ipv4Prefix": 7}]}"#,
            Some(Position::Entry(0)),
            "must be a string",
        ),
        (
            br#"{"prefixes": [{"service": "Googlebot"}]}"#,
            Some(Position::Entry(0)),
            "expected an `ipv4Prefix` or `ipv6Prefix`",
        ),
        (br#"{"prefixes": {}}"#, None, "`prefixes` must be an array"),
        (
            br#"{"list": ["192.0.2.0/24", "example.com"]}"#,
            Some(Position::Entry(1)),
            "\"example.com\" is not an IP",
        ),
        (
            br#"{"list": [1]}"#,
            Some(Position::Entry(0)),
            "expected a string",
        ),
        (
            br#"{"list": "192.0.2.0/24"}"#,
            None,
            "`list` must be an array",
        ),
        (br#"{"ranges": []}"#, None, "expected a `prefixes` array"),
        (b"{ not json", None, "not valid JSON"),
        // A broken list's catch-all would verify every client: refused, naming the entry.
        (
            br#"{"prefixes": [{"ipv4Prefix": "66.249.66.0/24"}, {"ipv4Prefix": "0.0.0.0/0"}]}"#,
            Some(Position::Entry(1)),
            "\"0.0.0.0/0\" is wider than any operator's network (shorter than /8)",
        ),
        (
            b"2001:4860:4801:10::/64\n::/0\n",
            Some(Position::Line(2)),
            "shorter than /16",
        ),
    ];
    for &(bytes, position, needle) in cases {
        let mut verifier = Verifier::new();
        let error = verifier
            .add_ranges("Googlebot", bytes, "ranges.txt")
            .unwrap_err();
        assert_eq!(error.file, "ranges.txt");
        assert_eq!(error.position, position, "{error}");
        assert!(
            error.message.contains(needle),
            "{:?} lacks {needle:?}",
            error.message
        );
        assert_eq!(verifier.keys().count(), 0, "nothing is added on error");
    }
    let error = Verifier::new()
        .add_ranges("  ", b"192.0.2.0/24", "x.txt")
        .unwrap_err();
    assert!(error.message.contains("key"), "{error}");
}

#[test]
fn empty_and_comment_only_files_load_nothing() {
    for bytes in [
        &b""[..],
        b"# nothing yet\n\n",
        b"\xEF\xBB\xBF",
        br#"{"creationTime": "x", "prefixes": []}"#,
    ] {
        let mut verifier = Verifier::new();
        assert_eq!(verifier.add_ranges("Googlebot", bytes, "empty"), Ok(0));
        assert_eq!(
            verifier.verify(&bot("Googlebot", ""), b"192.0.2.1"),
            Unverified
        );
    }
}

#[test]
fn keys_inferred_from_file_names() {
    let catalog = Catalog::builtin();
    let cases: &[(&str, Option<&str>)] = &[
        ("googlebot.json", Some("Google")),
        ("/etc/robots-audit/ranges/googlebot.json", Some("Google")),
        ("common-crawlers.json", Some("Google")),
        ("special-crawlers.json", Some("Google")),
        ("user-triggered-fetchers.json", Some("Google")),
        ("user-triggered-fetchers-google.json", Some("Google")),
        ("gptbot.json", Some("OpenAI")),
        ("bingbot.json", Some("Bingbot")),
        ("lord-alfred_googlebot_ipv4.txt", Some("Google")),
        ("lord-alfred_googlebot_ipv6.txt", Some("Google")),
        ("jonhadfield_googlebot.json", Some("Google")),
        ("misp_googlebot_list.json", Some("Google")),
        ("misp_openai-gptbot_list.json", Some("OpenAI")),
        ("lord-alfred_openai_ipv4.txt", Some("OpenAI")),
        ("lord-alfred_perplexity_ipv4.txt", Some("Perplexity")),
        ("lord-alfred_duckduckbot_ipv4.txt", Some("DuckDuckGo")),
        ("perplexitybot.json", Some("Perplexity")),
        ("chatgpt-user.json", Some("OpenAI")),
        ("searchbot.json", Some("OpenAI")),
        ("oai-searchbot.json", Some("OAI-SearchBot")),
        ("googlebot-image.txt", Some("Googlebot-Image")),
        ("archive.org_bot.txt", Some("archive.org_bot")),
        ("GOOGLE_special_crawlers.json", Some("Google")),
        ("lord-alfred_bing_ipv4.txt", None),
        ("mygooglebotlist.txt", None),
        ("ranges.txt", None),
        ("", None),
    ];
    for &(file, expected) in cases {
        assert_eq!(
            Verifier::key_from_file_name(&catalog, Path::new(file)).as_deref(),
            expected,
            "{file}"
        );
    }
}

#[test]
fn inferred_keys_verify_the_bots_they_name() {
    let catalog = Catalog::builtin();
    let path = fixture("google_style.json");
    let key = Verifier::key_from_file_name(&catalog, Path::new("googlebot.json")).unwrap();
    let mut verifier = Verifier::new();
    verifier
        .add_ranges(&key, &fs::read(path).unwrap(), "googlebot.json")
        .unwrap();
    let googlebot = &catalog.bots()[catalog.find("Googlebot").unwrap()];
    assert_eq!(verifier.verify(googlebot, b"192.0.2.3"), Verified);
}

proptest! {
    #[test]
    fn lookup_agrees_with_a_linear_scan(
        nets in proptest::collection::vec((any::<u32>(), 8u8..=32), 0..40),
        probes in proptest::collection::vec(any::<u32>(), 1..40),
    ) {
        let text: String = nets.iter().map(|(ip, len)| format!("{}/{len}\n", Ipv4Addr::from(*ip))).collect();
        let mut verifier = Verifier::new();
        verifier.add_ranges("Bot", text.as_bytes(), "p.txt").unwrap();
        let bot = bot("Bot", "");
        let near: Vec<u32> = nets.iter().map(|(ip, _)| *ip).collect();
        for probe in probes.iter().chain(&near) {
            let inside = nets.iter().any(|&(ip, len)| {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                probe & mask == ip & mask
            });
            let expected = if nets.is_empty() || !is_public(Ipv4Addr::from(*probe)) {
                Unverified
            } else if inside {
                Verified
            } else {
                Spoofed
            };
            prop_assert_eq!(verifier.verify(&bot, Ipv4Addr::from(*probe).to_string().as_bytes()), expected);
        }
    }

    #[test]
    fn every_spelling_of_an_address_verifies_alike(ip in any::<u32>(), port in 1u16.., inside_net in any::<bool>()) {
        let address = Ipv4Addr::from(ip);
        let net = if inside_net { format!("{address}/24") } else { format!("{}/24", Ipv4Addr::from(ip ^ 0x8000_0000)) };
        let mut verifier = Verifier::new();
        verifier.add_ranges("Bot", net.as_bytes(), "n.txt").unwrap();
        let bot = bot("Bot", "");
        let expected = if !is_public(address) { Unverified } else if inside_net { Verified } else { Spoofed };
        let mapped = address.to_ipv6_mapped();
        let spellings = [
            address.to_string(),
            format!("{address}:{port}"),
            format!(" {address}\t"),
            mapped.to_string(),
            format!("[{mapped}]"),
            format!("[{mapped}]:{port}"),
            format!("::ffff:{address}"),
        ];
        for spelling in spellings {
            prop_assert_eq!(verifier.verify(&bot, spelling.as_bytes()), expected, "{}", spelling);
        }
    }

    #[test]
    fn verify_never_panics(raw in proptest::collection::vec(any::<u8>(), 0..64), v6 in any::<u128>()) {
        let mut verifier = Verifier::new();
        verifier.add_ranges("Bot", format!("{}/64\n", Ipv6Addr::from(v6)).as_bytes(), "v6.txt").unwrap();
        let result = verifier.verify(&bot("Bot", ""), &raw);
        prop_assert!(matches!(result, Verified | Spoofed | Unverified));
        let address = Ipv6Addr::from(v6);
        let first = address.segments()[0];
        let public = !(address.is_loopback()
            || address.is_unspecified()
            || address.is_multicast()
            || (first & 0xfe00) == 0xfc00
            || (first & 0xffc0) == 0xfe80
            || address.to_ipv4_mapped().is_some());
        let expected = if public { Verified } else { Unverified };
        prop_assert_eq!(verifier.verify(&bot("Bot", ""), address.to_string().as_bytes()), expected);
    }
}

fn builtin_bot<'a>(catalog: &'a Catalog, name: &str) -> &'a Bot {
    &catalog.bots()[catalog
        .find(name)
        .unwrap_or_else(|| panic!("{name} is in the catalog"))]
}

fn google_list(prefix: &str) -> Vec<u8> {
    format!(r#"{{"creationTime": "2025-06-01T00:00:00.000000", "prefixes": [{{"ipv4Prefix": "{prefix}"}}]}}"#)
        .into_bytes()
}

/// Google's lists each cover their own crawlers: with only the common crawlers' list (under
/// its current name or its former `googlebot.json`), Googlebot outside it is spoofed, but
/// FeedFetcher, AdsBot and Google Favicon, whose addresses Google publishes elsewhere (or not
/// at all), are not judged.
#[test]
fn a_list_judges_only_the_bots_it_covers() {
    let catalog = Catalog::builtin();
    for file in ["common-crawlers.json", "googlebot.json"] {
        let mut verifier = Verifier::new();
        verifier
            .add_ranges("Google", &google_list("192.0.2.0/24"), file)
            .unwrap();
        let cases: &[(&str, &str, Verification)] = &[
            ("Googlebot", "192.0.2.9", Verified),
            ("Googlebot", "203.0.113.9", Spoofed),
            ("Googlebot-Image", "203.0.113.9", Spoofed),
            ("GoogleOther", "192.0.2.9", Verified),
            ("FeedFetcher-Google", "203.0.113.9", Unverified),
            ("FeedFetcher-Google", "192.0.2.9", Unverified),
            ("Google Favicon", "203.0.113.9", Unverified),
            ("AdsBot-Google", "203.0.113.9", Unverified),
            ("Google-Safety", "203.0.113.9", Unverified),
            ("Chrome-Lighthouse", "203.0.113.9", Unverified),
            ("GPTBot", "203.0.113.9", Unverified),
        ];
        for &(name, ip, expected) in cases {
            let bot = builtin_bot(&catalog, name);
            assert_eq!(
                verifier.verify(bot, ip.as_bytes()),
                expected,
                "{file}: {name} from {ip}"
            );
        }
    }
}

/// Google's four current file names, given with `Google=`, each verify their crawlers.
#[test]
fn googles_file_names_are_recognised() {
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    let files = [
        ("ranges/common-crawlers.json", "192.0.2.0/26"),
        ("ranges/special-crawlers.json", "192.0.2.64/26"),
        ("ranges/user-triggered-fetchers.json", "192.0.2.128/26"),
        (
            "ranges/user-triggered-fetchers-google.json",
            "192.0.2.192/26",
        ),
    ];
    for (file, prefix) in files {
        assert_eq!(
            Verifier::key_from_file_name(&catalog, Path::new(file)).as_deref(),
            Some("Google"),
            "{file}"
        );
        verifier
            .add_ranges("Google", &google_list(prefix), file)
            .unwrap();
    }
    let cases: &[(&str, &str, Verification)] = &[
        ("Googlebot", "192.0.2.1", Verified),
        ("Googlebot", "192.0.2.65", Spoofed),
        ("AdsBot-Google", "192.0.2.65", Verified),
        ("AdsBot-Google", "192.0.2.1", Spoofed),
        ("Mediapartners-Google", "192.0.2.70", Verified),
        ("Google-Safety", "192.0.2.70", Verified),
        ("FeedFetcher-Google", "192.0.2.130", Verified),
        ("FeedFetcher-Google", "192.0.2.200", Verified),
        ("FeedFetcher-Google", "192.0.2.1", Spoofed),
        ("Google-Read-Aloud", "192.0.2.200", Verified),
        ("Google-Site-Verification", "192.0.2.65", Spoofed),
        ("Google Favicon", "198.51.100.1", Unverified),
    ];
    for &(name, ip, expected) in cases {
        let bot = builtin_bot(&catalog, name);
        assert_eq!(
            verifier.verify(bot, ip.as_bytes()),
            expected,
            "{name} from {ip}"
        );
    }
    let lists: Vec<String> = verifier.lists().into_iter().map(|list| list.list).collect();
    assert_eq!(
        lists,
        [
            "common-crawlers",
            "special-crawlers",
            "user-triggered-fetchers",
            "user-triggered-fetchers-google"
        ]
    );
}

/// OpenAI's three lists each cover one bot.
#[test]
fn openai_lists_cover_one_bot_each() {
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    verifier
        .add_ranges("OpenAI", b"192.0.2.0/24", "gptbot.json")
        .unwrap();
    let gptbot = builtin_bot(&catalog, "GPTBot");
    let chatgpt = builtin_bot(&catalog, "ChatGPT-User");
    let search = builtin_bot(&catalog, "OAI-SearchBot");
    assert_eq!(verifier.verify(gptbot, b"203.0.113.1"), Spoofed);
    assert_eq!(verifier.verify(chatgpt, b"203.0.113.1"), Unverified);
    assert_eq!(verifier.verify(search, b"203.0.113.1"), Unverified);
    verifier
        .add_ranges("OpenAI", b"203.0.113.0/24", "chatgpt-user.json")
        .unwrap();
    assert_eq!(verifier.verify(chatgpt, b"203.0.113.1"), Verified);
    assert_eq!(verifier.verify(chatgpt, b"192.0.2.1"), Spoofed);
    assert_eq!(verifier.verify(gptbot, b"203.0.113.1"), Spoofed);
}

/// A client field that is not one address is never spoofed: a list is judged by its first
/// public address, a host name under the bot's DNS suffixes needs forward DNS, anything else
/// (another name, `-`, `unknown`, a private address) is unverified.
#[test]
fn clients_that_are_not_an_address() {
    use robots_audit_bots::RangeCheck;
    let catalog = Catalog::builtin();
    let googlebot = builtin_bot(&catalog, "Googlebot");
    let mut verifier = Verifier::new();
    verifier
        .add_ranges(
            "Google",
            &google_list("66.249.64.0/19"),
            "common-crawlers.json",
        )
        .unwrap();
    let ranges = verifier.ranges_for(googlebot);
    let time: jiff::Timestamp = "2025-06-02T00:00:00Z".parse().unwrap();
    let done = RangeCheck::Done;
    let cases: &[(&[u8], RangeCheck<'_>)] = &[
        (b"66.249.66.1", done(Verified)),
        (b"203.0.113.9", done(Spoofed)),
        (b"66.249.66.1, 10.0.0.1", done(Verified)),
        (b"10.0.0.1, 66.249.66.1", done(Verified)),
        (b"10.0.0.1,66.249.66.1", done(Verified)),
        (b"203.0.113.9, 66.249.66.1", done(Unverified)),
        (b"66.249.66.1, 203.0.113.9", done(Unverified)),
        (b"10.0.0.1, 192.168.1.1", done(Unverified)),
        (b"unknown, 66.249.66.1", done(Verified)),
        (b"10.0.0.1", done(Unverified)),
        (b"127.0.0.1", done(Unverified)),
        (b"::1", done(Unverified)),
        (b"fd00::1", done(Unverified)),
        (
            b"crawl-66-249-66-1.googlebot.com",
            RangeCheck::ForwardDns(b"crawl-66-249-66-1.googlebot.com"),
        ),
        (
            b"CRAWL-66-249-66-1.GOOGLEBOT.COM.",
            RangeCheck::ForwardDns(b"CRAWL-66-249-66-1.GOOGLEBOT.COM"),
        ),
        (b"crawl.googlebot.com.evil.example", done(Unverified)),
        (b"host-203-0-113-9.example.net", done(Unverified)),
        (b"-", done(Unverified)),
        (b"unknown", done(Unverified)),
        (b"", done(Unverified)),
        (b", ,", done(Unverified)),
        (b"\xff\xfe", done(Unverified)),
    ];
    for &(client, expected) in cases {
        let label = String::from_utf8_lossy(client);
        assert_eq!(ranges.check_at(client, time), expected, "{label}");
        assert_eq!(
            ranges.verify_at(client, time),
            expected.without_dns(),
            "{label}"
        );
        if expected != done(Spoofed) {
            assert_ne!(verifier.verify(googlebot, client), Spoofed, "{label}");
        }
    }
    // A bot without DNS suffixes: a host name is simply unverified.
    let gptbot = builtin_bot(&catalog, "GPTBot");
    assert_eq!(
        verifier
            .ranges_for(gptbot)
            .check_at(b"crawl-66-249-66-1.googlebot.com", time),
        done(Unverified)
    );
}

fn at(text: &str) -> jiff::Timestamp {
    text.parse().unwrap()
}

/// Dated snapshots: each is in force from its time until the next; before the first nothing
/// is; a timeless file for the same list is in force throughout.
#[test]
fn snapshots_in_force_at_the_request_time() {
    let catalog = Catalog::builtin();
    let googlebot = builtin_bot(&catalog, "Googlebot");
    let mut verifier = Verifier::new();
    let snapshot = |prefix: &str| format!("{prefix}\n").into_bytes();
    verifier
        .add_snapshot(
            "Google",
            "common-crawlers",
            at("2025-01-01T00:00:00Z"),
            &snapshot("192.0.2.0/25"),
            "jan.txt",
        )
        .unwrap();
    verifier
        .add_snapshot(
            "Google",
            "common-crawlers",
            at("2025-02-01T00:00:00Z"),
            &snapshot("192.0.2.128/25"),
            "feb.txt",
        )
        .unwrap();
    let ranges = verifier.ranges_for(googlebot);
    let cases: &[(&str, &str, Verification)] = &[
        ("2024-12-31T23:59:59Z", "192.0.2.1", Unverified),
        ("2025-01-01T00:00:00Z", "192.0.2.1", Verified),
        ("2025-01-31T23:59:59Z", "192.0.2.1", Verified),
        ("2025-01-31T23:59:59Z", "192.0.2.200", Spoofed),
        ("2025-02-01T00:00:00Z", "192.0.2.1", Spoofed),
        ("2025-02-01T00:00:00Z", "192.0.2.200", Verified),
        ("2030-01-01T00:00:00Z", "192.0.2.200", Verified),
    ];
    for &(time, ip, expected) in cases {
        assert_eq!(
            ranges.verify_at(ip.as_bytes(), at(time)),
            expected,
            "{ip} at {time}"
        );
        assert_eq!(
            verifier.verify_at(googlebot, ip.as_bytes(), at(time)),
            expected
        );
    }
    // Without a time, the latest snapshot.
    assert_eq!(ranges.verify(b"192.0.2.200"), Verified);
    assert_eq!(ranges.verify(b"192.0.2.1"), Spoofed);

    // A timeless file of the same list adds to every snapshot, and before the first.
    verifier
        .add_ranges("Google", b"198.51.100.0/24", "common-crawlers.txt")
        .unwrap();
    let ranges = verifier.ranges_for(googlebot);
    assert_eq!(
        ranges.verify_at(b"198.51.100.7", at("2020-01-01T00:00:00Z")),
        Verified
    );
    assert_eq!(
        ranges.verify_at(b"192.0.2.1", at("2020-01-01T00:00:00Z")),
        Spoofed
    );
    assert_eq!(
        ranges.verify_at(b"198.51.100.7", at("2025-03-01T00:00:00Z")),
        Verified
    );
    let info = verifier.lists();
    assert_eq!(info.len(), 1);
    assert_eq!(
        info[0].snapshots,
        [at("2025-01-01T00:00:00Z"), at("2025-02-01T00:00:00Z")]
    );
}

/// A snapshot's own `creationTime` is its time, whatever it was loaded as.
#[test]
fn creation_time_dates_a_snapshot() {
    let catalog = Catalog::builtin();
    let gptbot = builtin_bot(&catalog, "GPTBot");
    let mut verifier = Verifier::new();
    let json = br#"{"creationTime": "2025-03-10T12:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}]}"#;
    verifier
        .add_snapshot(
            "OpenAI",
            "gptbot",
            at("2025-01-01T00:00:00Z"),
            json,
            "x.json",
        )
        .unwrap();
    let ranges = verifier.ranges_for(gptbot);
    assert_eq!(
        ranges.verify_at(b"192.0.2.1", at("2025-03-10T11:59:59Z")),
        Unverified
    );
    assert_eq!(
        ranges.verify_at(b"192.0.2.1", at("2025-03-10T12:00:00Z")),
        Verified
    );
    let bad = br#"{"creationTime": "yesterday", "prefixes": []}"#;
    let error = verifier
        .add_snapshot(
            "OpenAI",
            "gptbot",
            at("2025-01-01T00:00:00Z"),
            bad,
            "bad.json",
        )
        .unwrap_err();
    assert!(error.message.contains("creationTime"), "{error}");
    // A file in force at every time does not need a valid one.
    assert_eq!(verifier.add_ranges("OpenAI", bad, "gptbot.json"), Ok(0));
}

/// `DIR/<list, bot or operator>/<time>.json`, as `--verify DIR` reads it.
#[test]
fn snapshot_directories() {
    let catalog = Catalog::builtin();
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, content: &[u8]| {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    };
    write(
        "common-crawlers/2025-01-01T00:00:00Z.json",
        br#"{"prefixes": [{"ipv4Prefix": "192.0.2.0/25"}]}"#,
    );
    // Named 1 February, but created 15 February.
    write(
        "common-crawlers/2025-02-01.json",
        br#"{"creationTime": "2025-02-15T00:00:00.000000", "prefixes": [{"ipv4Prefix": "192.0.2.128/25"}]}"#,
    );
    write("GPTBot/2025-01-01T00:00:00+01:00.txt", b"198.51.100.0/24\n");
    write(".DS_Store", b"junk");
    let mut verifier = Verifier::new();
    assert_eq!(verifier.add_snapshot_dir(&catalog, dir.path()), Ok(3));
    let googlebot = builtin_bot(&catalog, "Googlebot");
    let feedfetcher = builtin_bot(&catalog, "FeedFetcher-Google");
    let gptbot = builtin_bot(&catalog, "GPTBot");
    let cases: &[(&Bot, &str, &str, Verification)] = &[
        (googlebot, "2025-01-10T00:00:00Z", "192.0.2.1", Verified),
        (googlebot, "2025-02-10T00:00:00Z", "192.0.2.1", Verified),
        (googlebot, "2025-02-10T00:00:00Z", "192.0.2.200", Spoofed),
        (googlebot, "2025-02-15T00:00:00Z", "192.0.2.200", Verified),
        (googlebot, "2025-02-15T00:00:00Z", "192.0.2.1", Spoofed),
        (
            feedfetcher,
            "2025-02-15T00:00:00Z",
            "203.0.113.1",
            Unverified,
        ),
        (gptbot, "2024-12-31T23:00:00Z", "198.51.100.1", Verified),
        (gptbot, "2024-12-31T22:59:59Z", "198.51.100.1", Unverified),
        (gptbot, "2025-06-01T00:00:00Z", "203.0.113.1", Spoofed),
    ];
    for &(bot, time, ip, expected) in cases {
        assert_eq!(
            verifier.verify_at(bot, ip.as_bytes(), at(time)),
            expected,
            "{} {ip} at {time}",
            bot.name
        );
    }
    let keys: Vec<&str> = verifier.keys().collect();
    // `GPTBot` is also the name of OpenAI's list for it.
    assert_eq!(keys, ["OpenAI", "Google"]);

    // What does not fit is an error naming it, and nothing is loaded.
    for (path, needle) in [
        ("NoSuchBot/2025-01-01.json", "names no bot"),
        ("common-crawlers/latest.json", "is not a time"),
        ("stray.json", "expected a directory"),
    ] {
        let bad = tempfile::tempdir().unwrap();
        let full = bad.path().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(&full, google_list("192.0.2.0/24")).unwrap();
        let mut verifier = Verifier::new();
        let error = verifier.add_snapshot_dir(&catalog, bad.path()).unwrap_err();
        assert!(error.message.contains(needle), "{path}: {error}");
        assert_eq!(verifier.keys().count(), 0);
    }
}

proptest! {
    /// The period lookup agrees with reading the snapshot in force directly.
    #[test]
    fn snapshot_lookup_agrees_with_a_linear_scan(
        snapshots in proptest::collection::vec((0i64..1_000, any::<u8>()), 1..8),
        probes in proptest::collection::vec((-10i64..1_100, any::<u8>()), 1..40),
    ) {
        let catalog = Catalog::builtin();
        let gptbot = builtin_bot(&catalog, "GPTBot");
        let base = 1_700_000_000i64;
        let mut verifier = Verifier::new();
        for &(offset, octet) in &snapshots {
            let from = jiff::Timestamp::from_second(base + offset * 3600).unwrap();
            verifier
                .add_snapshot("OpenAI", "gptbot", from, format!("192.0.{octet}.0/24").as_bytes(), "s.txt")
                .unwrap();
        }
        let ranges = verifier.ranges_for(gptbot);
        for &(offset, octet) in &probes {
            let time = jiff::Timestamp::from_second(base + offset * 3600).unwrap();
            // The snapshots of the latest time not after the probe (several may share it).
            let latest = snapshots.iter().map(|s| s.0).filter(|&t| t <= offset).max();
            let expected = match latest {
                None => Unverified,
                Some(t) if snapshots.iter().any(|&(s, o)| s == t && o == octet) => Verified,
                Some(_) => Spoofed,
            };
            let ip = format!("192.0.{octet}.1");
            prop_assert_eq!(ranges.verify_at(ip.as_bytes(), time), expected, "{} at {}", ip, offset);
        }
    }
}

/// `--verify [KEY=]PATH`: a file with or without a key, or a snapshot directory.
#[test]
fn paths_as_the_command_line_gives_them() {
    let catalog = Catalog::builtin();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("special-crawlers.json");
    fs::write(&file, google_list("192.0.2.0/24")).unwrap();
    let snapshots = dir.path().join("snapshots");
    fs::create_dir_all(snapshots.join("chatgpt-user")).unwrap();
    fs::write(
        snapshots.join("chatgpt-user/2025-01-01.txt"),
        b"198.51.100.0/24\n",
    )
    .unwrap();
    let mut verifier = Verifier::new();
    assert_eq!(verifier.add_path(&catalog, None, &file), Ok(1));
    assert_eq!(verifier.add_path(&catalog, None, &snapshots), Ok(1));
    let adsbot = builtin_bot(&catalog, "AdsBot-Google");
    let chatgpt = builtin_bot(&catalog, "ChatGPT-User");
    assert_eq!(verifier.verify(adsbot, b"192.0.2.1"), Verified);
    assert_eq!(verifier.verify(adsbot, b"203.0.113.1"), Spoofed);
    assert_eq!(
        verifier.verify_at(chatgpt, b"198.51.100.1", at("2025-01-02T00:00:00Z")),
        Verified
    );
    assert_eq!(verifier.keys().collect::<Vec<_>>(), ["Google", "OpenAI"]);

    let unnamed = dir.path().join("ranges.txt");
    fs::write(&unnamed, b"192.0.2.0/24\n").unwrap();
    let error = verifier.add_path(&catalog, None, &unnamed).unwrap_err();
    assert!(error.message.contains("KEY="), "{error}");
    assert_eq!(verifier.add_path(&catalog, Some("GPTBot"), &unnamed), Ok(1));
    let error = verifier
        .add_path(&catalog, Some("Google"), &snapshots)
        .unwrap_err();
    assert!(error.message.contains("names its lists itself"), "{error}");
    let missing = dir.path().join("missing.json");
    let error = verifier
        .add_path(&catalog, Some("Google"), &missing)
        .unwrap_err();
    assert!(error.message.contains("cannot read"), "{error}");
}
