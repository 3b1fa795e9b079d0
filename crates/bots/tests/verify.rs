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
    }
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
            ("-", Spoofed),
            ("", Spoofed),
            ("not-an-ip", Spoofed),
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
            ("garbage", Spoofed),
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
        ("googlebot.json", Some("Googlebot")),
        ("/etc/robots-audit/ranges/googlebot.json", Some("Googlebot")),
        ("gptbot.json", Some("GPTBot")),
        ("bingbot.json", Some("Bingbot")),
        ("lord-alfred_googlebot_ipv4.txt", Some("Googlebot")),
        ("lord-alfred_googlebot_ipv6.txt", Some("Googlebot")),
        ("jonhadfield_googlebot.json", Some("Googlebot")),
        ("misp_googlebot_list.json", Some("Googlebot")),
        ("misp_openai-gptbot_list.json", Some("GPTBot")),
        ("lord-alfred_openai_ipv4.txt", Some("OpenAI")),
        ("lord-alfred_perplexity_ipv4.txt", Some("Perplexity")),
        ("lord-alfred_duckduckbot_ipv4.txt", Some("DuckDuckBot")),
        ("perplexitybot.json", Some("PerplexityBot")),
        ("chatgpt-user.json", Some("ChatGPT-User")),
        ("searchbot.json", None),
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
            let expected = if nets.is_empty() { Unverified } else if inside { Verified } else { Spoofed };
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
        let expected = if inside_net { Verified } else { Spoofed };
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
        prop_assert_eq!(verifier.verify(&bot("Bot", ""), Ipv6Addr::from(v6).to_string().as_bytes()), Verified);
    }
}
