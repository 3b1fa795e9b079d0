//! Fuzz target `inputs`: arbitrary bytes through the readers of every input that is not a log
//! or a robots.txt: published range files, crawler lists, the DNS cache, a web archive's CDX
//! answer, and the state that `merge` reads from each report.
//!
//! The first byte selects the reader (`byte % 5`):
//! - 0: a range file (`Verifier::add_ranges`; bit 7 names it `.json`, else `.txt`), then
//!   addresses of both families checked against what it loaded;
//! - 1: a catalog file on top of the built-in catalog (`Catalog::extend_from_bytes`), then a few
//!   user-agents identified with it;
//! - 2: the DNS cache (`DnsCache::from_csv`); what it reads must write back and read again as the
//!   same cache;
//! - 3: a CDX answer (`wayback::parse_index`);
//! - 4: a `state.json` payload, wrapped in its envelope with the checksum that makes it pass,
//!   so that what follows the checksum is reached: the state is read, added to a merge twice
//!   (the second time as another report's) and summed; the merged state must write and read
//!   back as itself; then it is viewed, summarised, and its reports written (every CSV but the
//!   streamed ones, `report.html`, `state.json`) into a fresh directory in `/dev/shm`, removed
//!   after.
//!
//! Nothing may panic; each reader either loads or says why not.

#![no_main]
#![warn(missing_docs)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use robots_audit::bots::dns::DnsCache;
use robots_audit::bots::{Catalog, Identity, Verifier};
use robots_audit::commit::ReportDir;
use robots_audit::history::wayback;
use robots_audit::merge::Merger;
use robots_audit::report::output::render;
use robots_audit::report::{View, summary};
use robots_audit::state::json;
use sha2::{Digest, Sha256};

/// The built-in catalog, built once.
fn builtin() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(Catalog::builtin)
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    match selector % 5 {
        0 => ranges(rest, selector & 0x80 != 0),
        1 => catalog(rest),
        2 => dns_cache(rest),
        3 => {
            let _ = wayback::parse_index(rest);
        }
        _ => state(rest),
    }
});

fn ranges(bytes: &[u8], json: bool) {
    let catalog = builtin();
    let name = if json { "goog.json" } else { "googlebot.txt" };
    let mut verifier = Verifier::new();
    let Ok(_) = verifier.add_ranges("Google", bytes, name) else {
        return;
    };
    let _ = verifier.lists();
    for bot in catalog.bots().iter().take(8) {
        let ranges = verifier.ranges_for(bot);
        for client in [
            &b"66.249.66.1"[..],
            b"2001:4860:4801::1",
            b"[::ffff:66.249.66.1]:443",
            b"crawl-66-249-66-1.googlebot.com",
        ] {
            let _ = ranges.verify(client);
        }
    }
}

fn catalog(bytes: &[u8]) {
    let mut catalog = builtin().clone();
    if catalog.extend_from_bytes(bytes, "fuzz.json").is_err() {
        return;
    }
    for user_agent in [
        &b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"[..],
        b"Python-urllib/3.12",
        b"curl/8.0",
        b"",
    ] {
        if let Identity::Known(index) = catalog.identify(user_agent) {
            assert!(
                index < catalog.bots().len(),
                "a known bot is in the catalog"
            );
        }
    }
}

fn dns_cache(bytes: &[u8]) {
    let Ok(cache) = DnsCache::from_csv(bytes, "fuzz") else {
        return;
    };
    let written = cache.to_csv();
    let again = DnsCache::from_csv(&written, "again").expect("a written cache reads again");
    assert_eq!(again, cache, "the cache reads back as written");
}

fn state(payload: &[u8]) {
    let mut file = br#"{"format":"robots-audit-state","version":"#.to_vec();
    file.extend_from_slice(json::VERSION.to_string().as_bytes());
    file.extend_from_slice(br#","payload":"#);
    file.extend_from_slice(payload);
    file.extend_from_slice(br#","sha256":""#);
    let digest = Sha256::digest(payload);
    for byte in digest {
        file.extend_from_slice(format!("{byte:02x}").as_bytes());
    }
    file.extend_from_slice(br#""}"#);
    let Ok(state) = json::parse(&file) else {
        return;
    };
    // Merged with itself: the directory is only named in messages, and any existing one will do.
    let report = ReportDir::open(Path::new(".")).expect("the current directory opens");
    let mut merger = Merger::new();
    if merger.add(&report, state.clone()).is_err() || merger.add(&report, state).is_err() {
        return;
    }
    let Ok(merged) = merger.finish() else {
        return;
    };
    let mut written = Vec::new();
    json::write(&merged.state, &mut written).expect("writing to memory cannot fail");
    let again = json::parse(&written).expect("a merged state reads again");
    assert_eq!(
        again, merged.state,
        "the merged state reads back as written"
    );
    let Ok(view) = View::of(&merged.state) else {
        return;
    };
    let _ = summary::render(&view, "out");
    // The reports are written as into a staging directory: a new one, each file created new,
    // removed after, so that a run leaves nothing behind.
    let dir = reports_dir();
    std::fs::create_dir(&dir).expect("create the reports directory");
    render(&dir, &view, true, 1).expect("the reports of a state that merged are written");
    std::fs::remove_dir_all(&dir).expect("remove the reports directory");
}

/// Where the reports of a merged state are written: in memory where the machine has it.
fn reports_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    base.join(format!("robots-audit-fuzz-inputs-{}", std::process::id()))
}
