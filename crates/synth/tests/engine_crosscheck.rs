//! Cross-checks the truth built by construction against an independent computation: every bot
//! request of the logs is judged with the engine crate's matcher (group selection by product
//! name, Google precedence) and verified with the bots crate's range verifier, and the per
//! (agent, origin) totals must equal `truth.csv` exactly.

use std::collections::BTreeMap;

use crate::common::{all_lines, read_truth, small_config};
use robots_audit_bots::{Bot, Catalog, Identity, Verification, Verifier};
use robots_audit_engine::{Robots, Selection, TokenMatch, path_params_query};
use robots_audit_synth::{SynthConfig, SynthFormat, generate};

fn judge_run(config: &SynthConfig) {
    let summary = generate(config).expect("run");
    let catalog = Catalog::builtin();
    let mut verifier = Verifier::new();
    for (name, path) in &summary.ranges {
        // The file name alone must tie the file to its crawler, as `audit --verify FILE` does:
        // to the bot itself, or to its operator when the name is one of the operator's
        // published lists that covers the bot (`googlebot.json`).
        let key = Verifier::key_from_file_name(&catalog, path).expect("a key from the name");
        let named = &catalog.bots()[catalog.find(name).expect("a catalog bot")];
        let list = path.file_stem().expect("a file name").to_string_lossy();
        assert!(
            key == *name || (key == named.operator && named.policy.covered_by_list(&list)),
            "{} gives the key {key}, which does not cover {name}",
            path.display()
        );
        let bytes = std::fs::read(path).expect("ranges file");
        let count = verifier
            .add_ranges(name, &bytes, &path.to_string_lossy())
            .expect("ranges file loads");
        assert!(count > 0, "{name}");
    }
    let mut robots: BTreeMap<String, Robots> = BTreeMap::new();
    for origin in &summary.origins {
        let host = origin.trim_start_matches("https://");
        let body = std::fs::read(summary.robots_dir.join(format!("{host}.txt"))).expect("robots");
        robots.insert(host.to_owned(), Robots::parse(&body));
    }

    let mut judged: BTreeMap<Vec<String>, [u64; 8]> = BTreeMap::new();
    for line in all_lines(&summary, config) {
        let bot: Bot = match catalog.identify(line.user_agent.as_bytes()) {
            Identity::Known(index) => catalog.bots()[index].clone(),
            Identity::Unknown(bot) => bot,
            Identity::NotBot => continue,
        };
        let row = judged
            .entry(vec![bot.name.clone(), format!("https://{}", line.host)])
            .or_default();
        row[0] += 1;
        match verifier.verify(&bot, line.ip.as_bytes()) {
            Verification::Verified | Verification::VerifiedDns => row[5] += 1,
            Verification::Spoofed => row[6] += 1,
            Verification::Unverified => row[7] += 1,
        }
        let path = path_params_query(line.target.as_bytes());
        if path.as_ref() == b"/robots.txt" {
            row[1] += 1;
            continue;
        }
        let file = robots
            .get(&line.host)
            .expect("robots file of the line's host");
        let tokens: Vec<&[u8]> = bot.tokens.iter().map(|t| t.as_bytes()).collect();
        let mut selection = file.select(&tokens, TokenMatch::ProductName);
        // The catalog's robots policy: an `ignores_global` crawler is not judged by `*`, and a
        // disallowed request of a `user_triggered` or `ignores` one is `exempt`.
        if selection.is_global() && !bot.policy.robots.follows_global_group() {
            selection = Selection::default();
        }
        if file.verdict(&selection, &path).allowed {
            row[2] += 1;
        } else if bot.policy.robots.is_exempt() {
            row[4] += 1;
        } else {
            row[3] += 1;
        }
    }
    let truth = read_truth(&summary.truth, 2);
    for (key, expected) in &truth {
        assert_eq!(
            judged.get(key),
            Some(expected),
            "{}: {key:?}",
            config.format
        );
    }
    assert_eq!(judged.len(), truth.len(), "{}", config.format);
}

#[test]
fn engine_and_verifier_agree_with_the_truth_in_every_format() {
    for format in SynthFormat::ALL {
        let dir = tempfile::tempdir().expect("tmp");
        judge_run(&small_config(dir.path(), format));
    }
}

#[test]
fn engine_agrees_over_many_seeds_and_origins() {
    for seed in 0..4 {
        let dir = tempfile::tempdir().expect("tmp");
        judge_run(&SynthConfig {
            seed,
            origins: 40,
            lines: 12_000,
            browser_share: 0.0,
            ..small_config(dir.path(), SynthFormat::VhostCombined)
        });
    }
}
