//! Parse and check costs of this engine, the `robotstxt` crate and `texting_robots`, measured in
//! one run on the same robots.txt files and URLs.
//!
//! Files come from `ROBOTS_BENCH_DIR` (a directory of robots.txt files) if set, else from the
//! project's shared corpus of 4,231 real files (`robots/protego_real_robots_4231.tar.gz` in
//! `ROBOTS_AUDIT_DATA`, else in `../shared/data` beside the repository root) unpacked into a
//! temporary directory, else from generated files. URLs are derived from each file's own rules plus a few common paths.
//!
//! `cargo bench -p robots-audit-engine --bench matcher -- --warm-up-time 1 --measurement-time 3`
//!
//! `long_literals` and `long_paths` time one verdict of a hostile robots.txt on a hostile path
//! (see their functions).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use robots_audit_engine::{Robots, Selection, TokenMatch, path_params_query};

const AGENT: &str = "Googlebot";
/// The shared corpus: in `ROBOTS_AUDIT_DATA`, else in `../shared/data` beside the repository root.
fn shared_corpus() -> PathBuf {
    std::env::var_os("ROBOTS_AUDIT_DATA")
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
            PathBuf::from,
        )
        .join("robots/protego_real_robots_4231.tar.gz")
}
/// Every how many files one is used for the check benchmark: `robotstxt` re-parses the whole
/// body for each URL, so the full corpus would take seconds per iteration.
const CHECK_SAMPLE_EVERY: usize = 8;
const URLS_PER_FILE: usize = 8;

struct File {
    body: Vec<u8>,
    /// The body as `robotstxt` needs it.
    text: String,
    urls: Vec<String>,
}

fn load_dir(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
        .iter()
        .filter(|path| path.is_file())
        .filter_map(|path| std::fs::read(path).ok())
        .collect()
}

fn load_shared_corpus() -> Option<Vec<Vec<u8>>> {
    let archive = shared_corpus();
    if !archive.is_file() {
        return None;
    }
    let dir = tempfile::tempdir().ok()?;
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(archive)
        .arg("-C")
        .arg(dir.path())
        .status()
        .ok()?;
    status
        .success()
        .then(|| load_dir(&dir.path().join("test_data")))
}

/// Files shaped like real ones, for machines without the corpus.
fn generated() -> Vec<Vec<u8>> {
    (0..500)
        .map(|i| {
            let mut body = String::from("# generated\nUser-agent: *\n");
            for r in 0..(5 + i % 60) {
                let rule = match r % 5 {
                    0 => format!("Disallow: /private-{r}/\n"),
                    1 => format!("Disallow: /*?session={r}\n"),
                    2 => format!("Allow: /public/{r}/*.css$\n"),
                    3 => format!("Disallow: /search/{r}\n"),
                    _ => format!("Disallow: /tmp/{i}/{r}*\n"),
                };
                body.push_str(&rule);
            }
            if i % 3 == 0 {
                body.push_str("\nUser-agent: Googlebot\nDisallow: /nogoogle/\nAllow: /\n");
            }
            body.push_str("\nSitemap: https://example.com/sitemap.xml\n");
            body.into_bytes()
        })
        .collect()
}

fn urls_for(robots: &Robots) -> Vec<String> {
    let mut paths: Vec<String> = robots
        .rules()
        .iter()
        .filter(|rule| !rule.pattern.is_empty())
        .take(URLS_PER_FILE - 4)
        .map(|rule| {
            let pattern = String::from_utf8_lossy(&rule.pattern);
            let path = pattern.trim_end_matches('$').replace('*', "x");
            if path.starts_with('/') {
                path
            } else {
                format!("/{path}")
            }
        })
        .collect();
    paths.extend(
        [
            "/",
            "/index.html",
            "/search?q=robots",
            "/products/123/reviews?page=2&sort=new",
        ]
        .map(str::to_owned),
    );
    paths.truncate(URLS_PER_FILE);
    paths
        .into_iter()
        .map(|path| format!("https://example.com{path}"))
        .collect()
}

fn corpus() -> (&'static str, Vec<File>) {
    let (source, bodies) = match std::env::var_os("ROBOTS_BENCH_DIR") {
        Some(dir) => ("ROBOTS_BENCH_DIR", load_dir(Path::new(&dir))),
        None => match load_shared_corpus() {
            Some(bodies) => ("protego_real_robots_4231", bodies),
            None => ("generated", generated()),
        },
    };
    let files = bodies
        .into_iter()
        // texting_robots rejects a few bodies; all three libraries get the same files.
        .filter(|body| texting_robots::Robot::new(AGENT, body).is_ok())
        .map(|body| {
            let urls = urls_for(&Robots::parse(&body));
            let text = String::from_utf8_lossy(&body).into_owned();
            File { body, text, urls }
        })
        .collect();
    (source, files)
}

fn bench(c: &mut Criterion) {
    let (source, files) = corpus();
    let bytes: usize = files.iter().map(|file| file.body.len()).sum();
    let sample: Vec<&File> = files.iter().step_by(CHECK_SAMPLE_EVERY).collect();
    let urls: usize = sample.iter().map(|file| file.urls.len()).sum();
    eprintln!(
        "corpus: {source}, {} files, {bytes} bytes; check sample: {} files, {urls} URLs",
        files.len(),
        sample.len()
    );

    // Built before the parse benchmark churns the heap, as the audit loads its robots.txt
    // files before it judges requests.
    let ours: Vec<(Robots, Selection)> = sample
        .iter()
        .map(|file| {
            let robots = Robots::parse(&file.body);
            robots.compile();
            let selection = robots.select(&[AGENT.as_bytes()], TokenMatch::Google);
            (robots, selection)
        })
        .collect();
    let texting: Vec<Option<texting_robots::Robot>> = sample
        .iter()
        .map(|file| texting_robots::Robot::new(AGENT, &file.body).ok())
        .collect();

    let mut parse = c.benchmark_group("parse_all_files");
    parse.throughput(Throughput::Bytes(bytes as u64));
    parse.bench_function("robots_audit_parse_and_compile", |b| {
        b.iter(|| {
            for file in &files {
                let robots = Robots::parse(black_box(&file.body));
                robots.compile();
                black_box(&robots);
            }
        });
    });
    parse.bench_function("texting_robots_new", |b| {
        b.iter(|| {
            for file in &files {
                black_box(texting_robots::Robot::new(AGENT, black_box(&file.body)).ok());
            }
        });
    });
    parse.finish();

    let mut check = c.benchmark_group("check_sample_urls");
    check.throughput(Throughput::Elements(urls as u64));
    check.bench_function("robots_audit_verdict", |b| {
        b.iter(|| {
            for (file, (robots, selection)) in sample.iter().zip(&ours) {
                for url in &file.urls {
                    let path = path_params_query(black_box(url.as_bytes()));
                    black_box(robots.verdict(selection, &path));
                }
            }
        });
    });
    check.bench_function("texting_robots_allowed", |b| {
        b.iter(|| {
            for (file, robot) in sample.iter().zip(&texting) {
                if let Some(robot) = robot {
                    for url in &file.urls {
                        black_box(robot.allowed(black_box(url)));
                    }
                }
            }
        });
    });
    check.bench_function("robotstxt_one_agent_allowed", |b| {
        b.iter(|| {
            for file in &sample {
                for url in &file.urls {
                    let mut matcher = robotstxt::DefaultMatcher::default();
                    black_box(matcher.one_agent_allowed_by_robots(
                        &file.text,
                        AGENT,
                        black_box(url),
                    ));
                }
            }
        });
    });
    check.finish();

    long_literals(c);
    long_paths(c);
}

/// A stranger's robots.txt and a stranger's path together: 100 rules `Disallow: /*aaa…ab07`,
/// each a 5 KB literal (too long for an automaton), against a path of 100,000 `a` (and every
/// byte of the rules after them) that every rule nearly matches at each of its bytes.
/// Searching each literal at each occurrence of its first byte cost the product of the two
/// lengths.
fn long_literals(c: &mut Criterion) {
    let mut robots = String::from("User-agent: *\n");
    for rule in 0..100 {
        robots.push_str(&format!("Disallow: /*{}b{rule:02}\n", "a".repeat(4_990)));
    }
    let robots = Robots::parse(robots.as_bytes());
    robots.compile();
    let selection = robots.select(&[AGENT.as_bytes()], TokenMatch::Google);
    // Every byte the rules hold, so that no filter of the path's bytes rules them out.
    let path = format!("/{}b0z1z2z3z4z5z6z7z8z9q", "a".repeat(100_000));
    let mut group = c.benchmark_group("long_literals");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(path.len() as u64));
    group.bench_function("robots_audit_verdict", |b| {
        b.iter(|| black_box(robots.verdict(&selection, black_box(path.as_bytes()))));
    });
    group.finish();
}

/// A stranger's robots.txt and a stranger's path together again: 500 KiB of short rules
/// `Disallow: /*z*zq<n>` (23,773 of them, more than the automata take, so most are matched one
/// by one), against a path of 50,000 `zq` and every byte of the rules, which each rule scans to
/// its end and nearly matches at every other byte.
fn long_paths(c: &mut Criterion) {
    let mut robots = String::from("User-agent: *\n");
    let mut rule = 0;
    while robots.len() < 500 * 1024 - 100 {
        robots.push_str(&format!("Disallow: /*z*zq{rule}\n"));
        rule += 1;
    }
    let robots = Robots::parse(robots.as_bytes());
    robots.compile();
    let selection = robots.select(&[AGENT.as_bytes()], TokenMatch::Google);
    let path = format!("/{}q0123456789", "zq".repeat(50_000));
    let mut group = c.benchmark_group("long_paths");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(path.len() as u64));
    group.bench_function("robots_audit_verdict", |b| {
        b.iter(|| black_box(robots.verdict(&selection, black_box(path.as_bytes()))));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
