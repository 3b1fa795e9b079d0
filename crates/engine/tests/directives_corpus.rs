//! How many real robots.txt files declare each crawl-rate and preference directive, and how
//! many of those lines the engine cannot read: the feature's reach, printed as the table of the
//! README ("Directives beyond Allow and Disallow").
//!
//! Needs the shared corpus, found at `../shared/data` beside the repository or in the directory
//! named by `ROBOTS_AUDIT_DATA`:
//! `cargo test -p robots-audit-engine --test tests directives_corpus:: -- --ignored --nocapture`.

use std::collections::{BTreeMap, BTreeSet};

use robots_audit_engine::{DirectiveKind, Robots};

use crate::corpus;

#[derive(Default)]
struct Tally {
    files: usize,
    lines: usize,
    files_with_ignored: usize,
    ignored: BTreeMap<&'static str, usize>,
    /// Distinct ignored lines, for the README's list of oddities.
    samples: BTreeSet<String>,
}

#[test]
#[ignore = "needs the shared corpus"]
fn directive_counts_in_real_files() {
    let Some(files) = corpus::real_files() else {
        return;
    };

    let mut tallies: BTreeMap<DirectiveKind, Tally> = BTreeMap::new();
    let mut any_directive = 0;
    // Groups with several Crawl-delay lines in effect, and the files holding them.
    let (mut several_delays, mut several_delay_files) = (0, 0);
    for (_, body) in &files {
        let robots = Robots::parse(body);
        any_directive += usize::from(!robots.directives().is_empty());
        let groups = (0..robots.groups().len())
            .filter(|group| {
                let directives = robots.group_directives(u32::try_from(*group).unwrap_or(u32::MAX));
                directives
                    .iter()
                    .filter(|d| d.value.kind() == DirectiveKind::CrawlDelay)
                    .count()
                    > 1
            })
            .count();
        several_delays += groups;
        several_delay_files += usize::from(groups > 0);
        for kind in DirectiveKind::ALL {
            let tally = tallies.entry(kind).or_default();
            let lines = robots
                .directives()
                .iter()
                .filter(|d| d.value.kind() == kind)
                .count();
            let ignored: Vec<_> = robots
                .ignored_directives()
                .iter()
                .filter(|i| i.kind == kind)
                .collect();
            tally.files += usize::from(lines > 0);
            tally.lines += lines;
            tally.files_with_ignored += usize::from(!ignored.is_empty());
            for line in ignored {
                *tally.ignored.entry(line.reason.name()).or_default() += 1;
                tally
                    .samples
                    .insert(format!("{} ({})", line.text, line.reason.name()));
            }
        }
    }

    println!(
        "{} files; {any_directive} declare at least one directive in effect\n",
        files.len()
    );
    println!(
        "| directive | files declaring it | lines in effect | files with ignored lines | ignored lines by reason |"
    );
    println!("|---|---:|---:|---:|---|");
    for (kind, tally) in &tallies {
        let reasons = if tally.ignored.is_empty() {
            "-".to_owned()
        } else {
            tally
                .ignored
                .iter()
                .map(|(reason, n)| format!("{reason} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "| `{}` | {} | {} | {} | {reasons} |",
            kind.name(),
            tally.files,
            tally.lines,
            tally.files_with_ignored
        );
    }
    println!(
        "\n{several_delays} groups in {several_delay_files} files hold several Crawl-delay lines"
    );
    println!("\nDistinct ignored lines:");
    for (kind, tally) in &tallies {
        for sample in &tally.samples {
            println!("- {}: `{sample}`", kind.name());
        }
    }
    assert!(files.len() > 4_000);
    // The corpus predates the preference directives but is full of crawl delays.
    let delays = tallies
        .get(&DirectiveKind::CrawlDelay)
        .map_or(0, |t| t.files);
    assert!(delays > 500, "{delays} files with a crawl delay");
}
