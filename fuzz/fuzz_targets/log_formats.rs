//! Fuzz target `log_formats`: arbitrary bytes through every log line parser and on through the
//! audit's per-request steps.
//!
//! The first byte's low six bits select the format (modulo the count, in `Format::ALL` order);
//! bit 7 makes the input's first line the block's `#Fields:` header (as the reader carries it
//! across blocks), and bit 6 parses JSON with the Logpush preset and HAProxy's captured headers
//! by a declared order (`host,user-agent`). The rest goes through `Format::detect` and then,
//! line by line, through `LineParser::parse`. Every parsed request continues as the audit would
//! take it: user-agent decoding and bot identification, IP verification, origin normalisation,
//! and the path the matcher sees. Nothing may panic, and the documented invariants must hold.

#![no_main]
#![warn(missing_docs)]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use robots_audit::audit::judge::match_path;
use robots_audit::bots::{Catalog, Identity, Verifier};
use robots_audit::logs::{Block, FieldMap, Format, LineParser, Request, Scratch};
use robots_audit::origin::Origin;

/// The built-in catalog and a verifier with IPv4 and IPv6 ranges for its first bot, built once.
fn bots() -> &'static (Catalog, Verifier) {
    static BOTS: OnceLock<(Catalog, Verifier)> = OnceLock::new();
    BOTS.get_or_init(|| {
        let catalog = Catalog::builtin();
        let mut verifier = Verifier::new();
        if let Some(bot) = catalog.bots().first() {
            verifier
                .add_ranges(&bot.name, b"66.249.64.0/19\n2001:4860:4801::/48\n", "fuzz")
                .expect("valid ranges");
        }
        (catalog, verifier)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    // The flag bits stay out of the choice, so that a seed's selector names the format it was
    // made for.
    let format = Format::ALL[usize::from(selector & 0x3F) % Format::ALL.len()];
    let _ = Format::detect(rest);
    let fields = if selector & 0x40 != 0 {
        let mut fields = FieldMap::logpush();
        fields.set_haproxy_captures(Some("host,user-agent".parse().expect("a valid order")));
        fields
    } else {
        FieldMap::new()
    };
    let parser = LineParser::new(format, &fields);
    let header = (selector & 0x80 != 0).then(|| {
        let first = rest.split(|&b| b == b'\n').next().unwrap_or_default();
        Arc::<[u8]>::from(first)
    });
    let block = Block {
        data: rest.to_vec(),
        first_line: 1,
        header,
        ends_input: true,
        ..Block::default()
    };
    let mut state = parser.block_state(&block);
    let mut scratch = Scratch::new();
    let mut path = Vec::new();
    let mut lines = 0u64;
    for (number, line) in block.lines() {
        lines += 1;
        assert_eq!(
            number, lines,
            "lines are numbered from the block's first line"
        );
        if let Ok(Some(request)) = parser.parse(line, &mut state, &mut scratch) {
            follow(&request, &mut path);
        }
    }
    assert_eq!(lines, block.line_count());
    // The records of a container runtime the input ended inside of, one per stream at most.
    let mut left_open = 0;
    while let Some(read) = parser.finish(&mut state, &mut scratch) {
        left_open += 1;
        assert!(left_open <= 2, "at most one record a stream is left open");
        if let Ok(Some(request)) = read {
            follow(&request, &mut path);
        }
    }
});

/// What the audit does with a parsed request, minus the robots.txt verdict.
fn follow(request: &Request<'_>, path: &mut Vec<u8>) {
    let (catalog, verifier) = bots();
    let user_agent = request.user_agent.decode();
    if let Identity::Known(index) = catalog.identify(&user_agent) {
        let bot = catalog
            .bots()
            .get(index)
            .expect("known bots are in the catalog");
        let _ = verifier.verify(bot, request.client_ip);
    }
    if let Some(host) = request.origin.host
        && let Ok(origin) = Origin::from_parts(request.origin.scheme, host, request.origin.port)
    {
        let shown = origin.to_string();
        let again = Origin::parse(&shown).expect("a normalised origin parses again");
        assert_eq!(again, origin, "normalising {shown:?} again changes it");
    }
    let matched = match_path(request.target, request.query, path);
    assert_eq!(
        matched.first(),
        Some(&b'/'),
        "the matched path starts with a slash"
    );
}
