//! End-to-end properties of `generate`: determinism, line counts, time bounds, and truth files
//! that add up and agree with the logs.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::common::{all_lines, read_log, read_truth, small_config};
use jiff::SignedDuration;
use robots_audit_bots::{Catalog, Identity};
use robots_audit_synth::{SynthCompression, SynthConfig, SynthFormat, generate};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(
                    path.strip_prefix(dir.as_path())
                        .map(Path::to_path_buf)
                        .unwrap_or(path),
                );
            }
        }
    }
    files.sort();
    files
}

fn relative_files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(root).expect("under root").to_path_buf();
                out.push((relative, std::fs::read(&path).expect("readable file")));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn same_seed_gives_byte_identical_output() {
    for compression in SynthCompression::ALL {
        let (a, b) = (
            tempfile::tempdir().expect("tmp"),
            tempfile::tempdir().expect("tmp"),
        );
        let config = |dir: &Path| SynthConfig {
            compression,
            ..small_config(dir, SynthFormat::VhostCombined)
        };
        generate(&config(a.path())).expect("first run");
        generate(&config(b.path())).expect("second run");
        let (left, right) = (relative_files(a.path()), relative_files(b.path()));
        assert!(left.len() > 10);
        assert_eq!(left.len(), right.len());
        for ((name_a, bytes_a), (name_b, bytes_b)) in left.iter().zip(&right) {
            assert_eq!(name_a, name_b);
            assert!(bytes_a == bytes_b, "{} differs", name_a.display());
        }
    }
}

#[test]
fn another_seed_gives_other_logs() {
    let (a, b) = (
        tempfile::tempdir().expect("tmp"),
        tempfile::tempdir().expect("tmp"),
    );
    let first = generate(&small_config(a.path(), SynthFormat::VhostCombined)).expect("run");
    let second = generate(&SynthConfig {
        seed: 8,
        ..small_config(b.path(), SynthFormat::VhostCombined)
    })
    .expect("run");
    assert_ne!(read_log(&first.files[0]), read_log(&second.files[0]));
}

#[test]
fn rerun_into_the_same_directory_replaces_the_previous_run() {
    let dir = tempfile::tempdir().expect("tmp");
    let many = SynthConfig {
        files: 5,
        ..small_config(dir.path(), SynthFormat::VhostCombined)
    };
    generate(&many).expect("first run");
    let few = SynthConfig {
        files: 2,
        origins: 3,
        compression: SynthCompression::Zstd,
        ..many
    };
    let summary = generate(&few).expect("second run");
    let logs = files_under(&dir.path().join("logs"));
    assert_eq!(logs.len(), 2);
    assert_eq!(files_under(&summary.robots_dir).len(), 3);
    let kept = dir.path().join("notes.txt");
    std::fs::write(&kept, "mine").expect("write");
    generate(&few).expect("third run");
    assert!(
        kept.exists(),
        "files outside the generated folders are left alone"
    );
}

#[test]
fn line_counts_bytes_and_file_names() {
    for (lines, files) in [(12_000u64, 3usize), (10, 4), (0, 2), (1, 1)] {
        let dir = tempfile::tempdir().expect("tmp");
        let config = SynthConfig {
            lines,
            files,
            ..small_config(dir.path(), SynthFormat::VhostCombined)
        };
        let summary = generate(&config).expect("run");
        assert_eq!(summary.lines, lines);
        assert_eq!(summary.files.len(), files);
        let mut total_lines = 0u64;
        let mut total_bytes = 0u64;
        for (index, file) in summary.files.iter().enumerate() {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            assert_eq!(name, format!("access-{index:03}.log.gz"));
            let data = read_log(file);
            let count = data.iter().filter(|&&b| b == b'\n').count() as u64;
            let expected = lines / files as u64 + u64::from((index as u64) < lines % files as u64);
            assert_eq!(count, expected, "{name}");
            total_lines += count;
            total_bytes += data.len() as u64;
        }
        assert_eq!(total_lines, lines);
        assert_eq!(summary.bytes, total_bytes);
    }
}

#[test]
fn times_are_inside_the_window_and_ordered_across_files() {
    for format in SynthFormat::ALL {
        let dir = tempfile::tempdir().expect("tmp");
        let config = SynthConfig {
            start: "2026-11-21T10:00:00.250Z".parse().expect("time"),
            duration: SignedDuration::from_hours(6),
            ..small_config(dir.path(), format)
        };
        let summary = generate(&config).expect("run");
        let start = config.start.as_microsecond();
        let end = start + config.duration.as_micros() as i64;
        let lines = all_lines(&summary, &config);
        assert_eq!(lines.len() as u64, config.lines);
        let mut previous = i64::MIN;
        for line in &lines {
            assert!(
                line.micros >= start && line.micros < end,
                "{format}: {line:?}"
            );
            assert!(
                line.micros >= previous,
                "{format}: time went back at {line:?}"
            );
            previous = line.micros;
        }
        // The lines are spread over the whole window, not bunched at its start.
        assert!(lines.last().map(|l| l.micros).unwrap_or(0) > end - 3_600_000_000);
    }
}

#[test]
fn truth_rows_add_up() {
    let dir = tempfile::tempdir().expect("tmp");
    let summary = generate(&small_config(dir.path(), SynthFormat::VhostCombined)).expect("run");
    let rows = read_truth(&summary.truth, 2);
    let agents = read_truth(&summary.truth_agents, 1);
    assert!(rows.len() > 50, "a rich run has many (agent, origin) rows");
    let mut summed: BTreeMap<Vec<String>, [u64; 8]> = BTreeMap::new();
    for (
        key,
        [
            requests,
            fetches,
            allowed,
            disallowed,
            exempt,
            verified,
            spoofed,
            unverified,
        ],
    ) in &rows
    {
        assert!(*requests > 0);
        assert_eq!(
            *requests,
            fetches + allowed + disallowed + exempt,
            "{key:?}"
        );
        assert_eq!(*requests, verified + spoofed + unverified, "{key:?}");
        assert!(key[1].starts_with("https://"));
        let total = summed.entry(vec![key[0].clone()]).or_default();
        for (slot, value) in total.iter_mut().zip(rows[key]) {
            *slot += value;
        }
    }
    assert_eq!(summed, agents);
    let sum = |column: usize| agents.values().map(|v| v[column]).sum::<u64>();
    assert!(sum(1) > 0, "robots fetches");
    assert!(sum(2) > 0, "allowed");
    assert!(sum(3) > 0, "violations");
    assert!(
        sum(5) > 0 && sum(6) > 0 && sum(7) > 0,
        "verified, spoofed and unverified"
    );
}

#[test]
fn truth_matches_the_requests_in_the_logs() {
    for format in SynthFormat::ALL {
        let dir = tempfile::tempdir().expect("tmp");
        let config = small_config(dir.path(), format);
        let summary = generate(&config).expect("run");
        let catalog = Catalog::builtin();
        let mut seen: BTreeMap<Vec<String>, [u64; 2]> = BTreeMap::new();
        let mut browsers = 0u64;
        for line in all_lines(&summary, &config) {
            let name = match catalog.identify(line.user_agent.as_bytes()) {
                Identity::Known(index) => catalog.bots()[index].name.clone(),
                Identity::Unknown(bot) => bot.name,
                Identity::NotBot => {
                    browsers += 1;
                    continue;
                }
            };
            let entry = seen
                .entry(vec![name, format!("https://{}", line.host)])
                .or_default();
            entry[0] += 1;
            let path = line
                .target
                .trim_start_matches("https://")
                .trim_start_matches(&line.host);
            let path = path.trim_start_matches(":443");
            if path == "/robots.txt" {
                entry[1] += 1;
            }
        }
        let truth: BTreeMap<Vec<String>, [u64; 2]> = read_truth(&summary.truth, 2)
            .into_iter()
            .map(|(key, values)| (key, [values[0], values[1]]))
            .collect();
        assert_eq!(seen, truth, "{format}");
        let share = browsers as f64 / config.lines as f64;
        assert!(
            (share - config.browser_share).abs() < 0.02,
            "{format}: browser share {share}"
        );
    }
}

#[test]
fn combined_format_uses_one_origin() {
    let dir = tempfile::tempdir().expect("tmp");
    let summary = generate(&small_config(dir.path(), SynthFormat::Combined)).expect("run");
    assert_eq!(summary.origins.len(), 1);
    assert_eq!(files_under(&summary.robots_dir).len(), 1);
    let rows = read_truth(&summary.truth, 2);
    assert!(rows.keys().all(|k| k[1] == summary.origins[0]));
}

#[test]
fn robots_and_range_files_are_written() {
    let dir = tempfile::tempdir().expect("tmp");
    let config = small_config(dir.path(), SynthFormat::VhostCombined);
    let summary = generate(&config).expect("run");
    assert_eq!(summary.origins.len(), config.origins);
    for origin in &summary.origins {
        let host = origin.strip_prefix("https://").expect("https origin");
        let body =
            std::fs::read(summary.robots_dir.join(format!("{host}.txt"))).expect("robots file");
        let text = String::from_utf8_lossy(&body).to_ascii_lowercase();
        assert!(text.contains("user-agent"), "{host}");
        assert!(text.contains("sitemap: https://"), "{host}");
    }
    let sizes: Vec<usize> = summary
        .origins
        .iter()
        .map(|o| {
            let host = o.trim_start_matches("https://");
            std::fs::metadata(summary.robots_dir.join(format!("{host}.txt")))
                .map(|m| m.len() as usize)
                .unwrap_or(0)
        })
        .collect();
    assert!(
        sizes.iter().max() > Some(&(sizes.iter().min().copied().unwrap_or(0) * 5)),
        "{sizes:?}"
    );

    assert!(summary.ranges.len() >= 5);
    for (name, path) in &summary.ranges {
        let value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).expect("ranges file")).expect("JSON");
        assert!(value["creationTime"].is_string(), "{name}");
        let prefixes = value["prefixes"].as_array().expect("prefixes");
        assert!(!prefixes.is_empty());
        for prefix in prefixes {
            let cidr = prefix["ipv4Prefix"]
                .as_str()
                .or(prefix["ipv6Prefix"].as_str());
            assert!(cidr.is_some_and(|c| c.contains('/')), "{name}: {prefix}");
        }
    }
}

#[test]
fn impossible_configs_are_rejected() {
    let dir = tempfile::tempdir().expect("tmp");
    let base = small_config(dir.path(), SynthFormat::VhostCombined);
    let cases = [
        SynthConfig {
            files: 0,
            ..base.clone()
        },
        SynthConfig {
            origins: 0,
            ..base.clone()
        },
        SynthConfig {
            browser_share: 1.5,
            ..base.clone()
        },
        SynthConfig {
            browser_share: f64::NAN,
            ..base.clone()
        },
        SynthConfig {
            duration: SignedDuration::ZERO,
            ..base.clone()
        },
        SynthConfig {
            start: "2026-11-21T00:00:00.2Z".parse().expect("time"),
            duration: SignedDuration::from_millis(500),
            ..base.clone()
        },
    ];
    for config in cases {
        let error = generate(&config).expect_err("must be rejected");
        assert_eq!(error.kind(), ErrorKind::InvalidInput, "{config:?}");
    }
}

#[test]
fn only_browsers_or_only_bots() {
    for (share, bots) in [(1.0, 30), (0.0, 30), (0.5, 0)] {
        let dir = tempfile::tempdir().expect("tmp");
        let config = SynthConfig {
            browser_share: share,
            bots,
            lines: 2_000,
            ..small_config(dir.path(), SynthFormat::VhostCombined)
        };
        let summary = generate(&config).expect("run");
        let requests: u64 = read_truth(&summary.truth_agents, 1)
            .values()
            .map(|v| v[0])
            .sum();
        let expected = if share == 0.0 && bots > 0 {
            config.lines
        } else {
            0
        };
        assert_eq!(requests, expected, "share {share}, bots {bots}");
    }
}
