//! Checks against the real third-party data (never copied into the repository): `../shared/data`
//! beside the repository root, or the directory named by `ROBOTS_AUDIT_DATA`. Ignored by default,
//! and skipped when the directory is missing. Run with
//! `cargo test -p robots-audit-bots --test tests real_data:: -- --ignored --nocapture` to see the census.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use robots_audit_bots::{Catalog, Identity, Verification, Verifier};

/// The third-party data: `ROBOTS_AUDIT_DATA`, else `../shared/data` beside the repository root.
fn data_root() -> PathBuf {
    std::env::var_os("ROBOTS_AUDIT_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

fn data(relative: &str) -> Option<PathBuf> {
    let path = data_root().join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: {} is missing", path.display());
        None
    }
}

/// The quoted fields of a log line, with `\"` and `\\` escapes kept as written.
fn quoted_fields(line: &[u8]) -> Vec<&[u8]> {
    let mut fields = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.iter().position(|&b| b == b'"') {
        let body = &rest[open + 1..];
        let mut escaped = false;
        let Some(close) = body.iter().position(|&b| {
            let end = b == b'"' && !escaped;
            escaped = b == b'\\' && !escaped;
            end
        }) else {
            break;
        };
        fields.push(&body[..close]);
        rest = &body[close + 1..];
    }
    fields
}

/// Client IP and User-Agent of a combined-format line (request, referer and user-agent are its
/// first three quoted fields; some logs append more).
fn client_and_agent(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let fields = quoted_fields(line);
    let agent = *fields.get(2)?;
    let client = line.split(|&b| b == b' ').next()?;
    Some((client, agent))
}

fn looks_like_a_bot(ua: &[u8]) -> bool {
    let lower = ua.to_ascii_lowercase();
    [&b"bot"[..], b"crawl", b"spider", b"slurp"]
        .iter()
        .any(|word| lower.windows(word.len()).any(|w| w == *word))
}

fn name_of(catalog: &Catalog, identity: &Identity) -> String {
    match identity {
        Identity::Known(index) => catalog.bots()[*index].name.clone(),
        Identity::Unknown(bot) => format!("unknown:{}", bot.name),
        Identity::NotBot => "-".to_owned(),
    }
}

#[test]
#[ignore = "needs ../shared/data or ROBOTS_AUDIT_DATA"]
fn crawler_user_agents_file_loads() {
    let Some(path) = data("bots/crawler-user-agents.json") else {
        return;
    };
    let mut catalog = Catalog::builtin();
    let before = catalog.bots().len();
    let started = Instant::now();
    let loaded = catalog.extend_from_file(&path).unwrap();
    let elapsed = started.elapsed();
    let added = catalog.bots().len() - before;
    eprintln!(
        "crawler-user-agents.json: {loaded} entries loaded in {elapsed:?}: {added} new bots, {} joined built-in bots",
        loaded - added
    );
    assert_eq!(loaded, 1498);

    let entries: Vec<serde_json::Value> =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let (mut instances, mut bots) = (0, 0);
    for entry in &entries {
        for instance in entry["instances"].as_array().into_iter().flatten() {
            instances += 1;
            bots += usize::from(
                catalog.identify(instance.as_str().unwrap().as_bytes()) != Identity::NotBot,
            );
        }
    }
    eprintln!("{bots} of {instances} instance user-agents identify as bots");
    assert!(bots * 100 >= instances * 99, "{bots} of {instances}");

    // The built-in examples keep their identity next to the imported patterns.
    let builtin = Catalog::builtin();
    let mut changed = Vec::new();
    for index in 0..builtin.bots().len() {
        for example in builtin.examples(index) {
            let after = name_of(&catalog, &catalog.identify(example.as_bytes()));
            if after != builtin.bots()[index].name {
                changed.push(format!("{example:?} -> {after}"));
            }
        }
    }
    eprintln!(
        "built-in examples identified differently after the import: {}",
        changed.len()
    );
    for line in &changed {
        eprintln!("  {line}");
    }
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

#[test]
#[ignore = "needs ../shared/data or ROBOTS_AUDIT_DATA"]
fn real_log_user_agents_census() {
    let Some(dir) = data("logs") else { return };
    let catalog = Catalog::builtin();
    let ranges = data("bots/ip_ranges");
    let mut verifier = Verifier::new();
    for entry in ranges.iter().flat_map(|dir| fs::read_dir(dir).unwrap()) {
        let path = entry.unwrap().path();
        let key =
            Verifier::key_from_file_name(&catalog, &path).unwrap_or_else(|| "Bingbot".to_owned());
        let count = verifier
            .add_ranges(&key, &fs::read(&path).unwrap(), &path.display().to_string())
            .unwrap();
        eprintln!(
            "ranges: {} -> key {key}: {count} prefixes",
            path.file_name().unwrap().to_string_lossy()
        );
    }

    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|path| path.extension().is_some_and(|ext| ext == "log"));
    files.sort();
    let mut all_bots: BTreeMap<String, usize> = BTreeMap::new();
    let mut missed: BTreeMap<String, usize> = BTreeMap::new();
    let mut distinct: BTreeMap<Vec<u8>, Identity> = BTreeMap::new();
    let mut checks: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut identify_time = std::time::Duration::ZERO;
    for file in &files {
        let content = fs::read(file).unwrap();
        let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
        let mut lines = 0;
        for line in content.split(|&b| b == b'\n') {
            let Some((client, agent)) = client_and_agent(line) else {
                continue;
            };
            lines += 1;
            let identity = distinct.entry(agent.to_vec()).or_insert_with(|| {
                let started = Instant::now();
                let identity = catalog.identify(agent);
                identify_time += started.elapsed();
                identity
            });
            match identity {
                Identity::NotBot if looks_like_a_bot(agent) => {
                    *missed
                        .entry(String::from_utf8_lossy(agent).into_owned())
                        .or_default() += 1;
                }
                Identity::NotBot => {}
                identity => {
                    let name = name_of(&catalog, identity);
                    *per_file.entry(name.clone()).or_default() += 1;
                    *all_bots.entry(name.clone()).or_default() += 1;
                    let verification = match identity {
                        Identity::Known(index) => verifier.verify(&catalog.bots()[*index], client),
                        Identity::Unknown(bot) => verifier.verify(bot, client),
                        Identity::NotBot => Verification::Unverified,
                    };
                    if verification != Verification::Unverified {
                        *checks.entry((name, verification.as_str())).or_default() += 1;
                    }
                }
            }
        }
        eprintln!(
            "\n{}: {lines} combined lines",
            file.file_name().unwrap().to_string_lossy()
        );
        for (name, count) in &per_file {
            eprintln!("  {count:6}  {name}");
        }
    }
    eprintln!(
        "\n{} distinct user-agents identified in {identify_time:?} ({:?} each)",
        distinct.len(),
        identify_time / u32::try_from(distinct.len().max(1)).unwrap()
    );
    eprintln!("\nverification (requests with ranges to check):");
    for ((name, verdict), count) in &checks {
        eprintln!("  {count:6}  {name}: {verdict}");
    }
    eprintln!("\nbot-looking user-agents left NotBot:");
    for (ua, count) in &missed {
        eprintln!("  {count:6}  {ua}");
    }
    for expected in [
        "Googlebot",
        "Bingbot",
        "AhrefsBot",
        "MJ12bot",
        "archive.org_bot",
        "Baiduspider",
        "SeznamBot",
        "YandexBot",
    ] {
        assert!(all_bots.contains_key(expected), "{expected} not found");
    }
    assert!(
        missed.len() <= 3,
        "{} bot-looking user-agents left NotBot",
        missed.len()
    );
}

/// Distinct user-agents of the real logs (and the crawler-user-agents instances).
fn sample_user_agents() -> Vec<Vec<u8>> {
    let mut agents = std::collections::BTreeSet::new();
    for entry in data("logs")
        .iter()
        .flat_map(|dir| fs::read_dir(dir).unwrap())
    {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "log") {
            continue;
        }
        let content = fs::read(path).unwrap();
        for line in content.split(|&b| b == b'\n') {
            if let Some((_, agent)) = client_and_agent(line) {
                agents.insert(agent.to_vec());
            }
        }
    }
    agents.into_iter().collect()
}

#[test]
#[ignore = "needs ../shared/data or ROBOTS_AUDIT_DATA; run with --release for meaningful numbers"]
fn measure_throughput() {
    let Some(cua) = data("bots/crawler-user-agents.json") else {
        return;
    };
    let agents = sample_user_agents();
    let started = Instant::now();
    let builtin = Catalog::builtin();
    eprintln!("Catalog::builtin(): {:?}", started.elapsed());
    let mut extended = builtin.clone();
    let started = Instant::now();
    extended.extend_from_file(&cua).unwrap();
    eprintln!("crawler-user-agents import: {:?}", started.elapsed());
    for (label, catalog) in [
        ("built-in, cold", &builtin),
        ("built-in, warm", &builtin),
        ("built-in + crawler-user-agents, cold", &extended),
        ("built-in + crawler-user-agents, warm", &extended),
    ] {
        let started = Instant::now();
        let bots = agents
            .iter()
            .filter(|ua| catalog.identify(ua) != Identity::NotBot)
            .count();
        let elapsed = started.elapsed();
        eprintln!(
            "identify ({label}): {} distinct user-agents ({bots} bots) in {elapsed:?}, {:?} each",
            agents.len(),
            elapsed / u32::try_from(agents.len()).unwrap()
        );
    }
    let mut verifier = Verifier::new();
    for entry in data("bots/ip_ranges")
        .iter()
        .flat_map(|dir| fs::read_dir(dir).unwrap())
    {
        let path = entry.unwrap().path();
        if let Some(key) = Verifier::key_from_file_name(&builtin, &path) {
            verifier
                .add_ranges(&key, &fs::read(&path).unwrap(), "ranges")
                .unwrap();
        }
    }
    let googlebot = &builtin.bots()[builtin.find("Googlebot").unwrap()];
    let addresses: Vec<String> = (0..1_000_000u32)
        .map(|i| std::net::Ipv4Addr::from(i.wrapping_mul(2_654_435_761)).to_string())
        .collect();
    let started = Instant::now();
    let verified = addresses
        .iter()
        .filter(|ip| verifier.verify(googlebot, ip.as_bytes()) == Verification::Verified)
        .count();
    let elapsed = started.elapsed();
    eprintln!(
        "verify: {} lookups ({verified} verified) in {elapsed:?}, {:?} each",
        addresses.len(),
        elapsed / 1_000_000
    );
}
