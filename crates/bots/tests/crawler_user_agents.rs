//! Loading a crawler-user-agents list never changes who the built-in catalog says a header is:
//! every header the built-in catalog identifies as a bot (a catalog bot or a declared one) keeps
//! the same name and robots.txt tokens once the list is loaded, so no robots.txt group stops
//! applying. Checked over the list's own instances and the real headers of
//! `fixtures/top_user_agents.tsv`, for the fixture list and (ignored: it needs the real data)
//! the published list at `../shared/data/bots/crawler-user-agents.json` relative to the
//! repository root, or under the directory `ROBOTS_AUDIT_DATA` names.

use std::path::{Path, PathBuf};

use robots_audit_bots::{Catalog, Identity};

const TOP_USER_AGENTS: &str = include_str!("fixtures/top_user_agents.tsv");

/// The bot's name and tokens, or `None` when not a bot.
fn resolved(catalog: &Catalog, header: &str) -> Option<(String, Vec<String>)> {
    match catalog.identify(header.as_bytes()) {
        Identity::Known(index) => {
            let bot = &catalog.bots()[index];
            Some((bot.name.clone(), bot.tokens.clone()))
        }
        Identity::Unknown(bot) => Some((bot.name, bot.tokens)),
        Identity::NotBot => None,
    }
}

/// The list's instances followed by the real headers.
fn headers(list: &[u8]) -> Vec<String> {
    let entries: Vec<serde_json::Value> = serde_json::from_slice(list).unwrap();
    let instances = entries
        .iter()
        .flat_map(|entry| entry["instances"].as_array().cloned().unwrap_or_default())
        .map(|instance| instance.as_str().unwrap().to_owned());
    let real = TOP_USER_AGENTS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.splitn(3, '\t').nth(2))
        .map(str::to_owned);
    instances.chain(real).collect()
}

/// Loads `list` over the built-in catalog and returns every header whose identity changed.
fn changed_by(list: &[u8]) -> (usize, Vec<String>) {
    let builtin = Catalog::builtin();
    let mut extended = builtin.clone();
    extended.extend_from_bytes(list, "list.json").unwrap();
    let mut checked = 0;
    let mut changed = Vec::new();
    for header in headers(list) {
        let Some(before) = resolved(&builtin, &header) else {
            continue;
        };
        checked += 1;
        let after = resolved(&extended, &header);
        if after.as_ref() != Some(&before) {
            changed.push(format!("{header:?}: {before:?} -> {after:?}"));
        }
    }
    (checked, changed)
}

#[test]
fn the_fixture_list_changes_no_identified_header() {
    let list = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crawler_user_agents.json"),
    )
    .unwrap();
    let (checked, changed) = changed_by(&list);
    assert!(checked >= 60, "only {checked} headers identified");
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

/// `ROBOTS_AUDIT_DATA`, else `../shared/data` beside the repository.
fn data_dir() -> PathBuf {
    std::env::var_os("ROBOTS_AUDIT_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

#[test]
#[ignore = "needs the real data at ../shared/data (or ROBOTS_AUDIT_DATA)"]
fn the_published_list_changes_no_identified_header() {
    let path = data_dir().join("bots/crawler-user-agents.json");
    let list = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (checked, changed) = changed_by(&list);
    eprintln!(
        "{checked} identified headers checked, {} changed",
        changed.len()
    );
    assert!(checked >= 1_500, "only {checked} headers identified");
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

mod any_list {
    use super::*;
    use proptest::prelude::*;
    use std::sync::LazyLock;

    static REAL: LazyLock<Vec<String>> = LazyLock::new(|| headers(b"[]"));
    static BUILTIN: LazyLock<Catalog> = LazyLock::new(Catalog::builtin);

    /// A list entry whose pattern is a piece of a real header (the way list patterns are
    /// fragments of product names: `arabot` of `Clarabot`), with that header as its instance.
    fn entry() -> impl Strategy<Value = serde_json::Value> {
        (0..REAL.len(), 0usize..200, 3usize..12, any::<bool>()).prop_filter_map(
            "a piece with a letter",
            |(row, start, len, anchored)| {
                let header = &REAL[row];
                let start = start % header.len().max(1);
                let piece = header.get(start..(start + len).min(header.len()))?;
                piece
                    .bytes()
                    .any(|b| b.is_ascii_alphabetic())
                    .then_some(())?;
                let caret = if anchored { "^" } else { "" };
                Some(serde_json::json!({
                    "pattern": format!("{caret}{}", regex_syntax::escape(piece)),
                    "instances": [header],
                }))
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn no_list_renames_an_identified_header(entries in proptest::collection::vec(entry(), 1..8)) {
            let list = serde_json::to_vec(&entries).unwrap();
            let mut extended = BUILTIN.clone();
            extended.extend_from_bytes(&list, "list.json").unwrap();
            for header in REAL.iter() {
                let Some(before) = resolved(&BUILTIN, header) else { continue };
                prop_assert_eq!(resolved(&extended, header), Some(before), "{}", header);
            }
        }
    }
}
