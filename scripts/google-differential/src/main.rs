//! Compares the engine's verdicts with Google's C++ library, run through `google_driver.cc`,
//! on real and generated robots.txt bodies. See README.md in this directory for how to run it.

mod cases;
mod hostile;
mod inputs;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use robots_audit_engine::{ParseOptions, Robots, TokenMatch, path_params_query};

use cases::{FIXED_AGENTS, Random};

struct Options {
    driver: PathBuf,
    robots: Vec<PathBuf>,
    links: Option<PathBuf>,
    logs: Option<PathBuf>,
    hostile: u64,
    /// Bytes of body the C++ library may parse per body (it parses the body again per URL).
    budget: usize,
    /// Checks per body at most, whatever its size.
    max_checks: usize,
    seed: u64,
    report: PathBuf,
    /// Parse as the audit does, only the first 512,000 bytes (`ParseOptions::googlebot`),
    /// rather than the whole body as the library does.
    cut: bool,
}

const USAGE: &str = "usage: google-differential --driver PATH [--robots DIR]... [--links DIR] \
    [--logs DIR] [--hostile N] [--budget BYTES] [--max-checks N] [--seed N] [--report FILE] [--cut]";

fn options() -> Result<Options, String> {
    let mut options = Options {
        driver: PathBuf::new(),
        robots: Vec::new(),
        links: None,
        logs: None,
        hostile: 20_000,
        budget: 40_000_000,
        max_checks: 2_000,
        seed: 1,
        report: PathBuf::from("disagreements.txt"),
        cut: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--cut" {
            options.cut = true;
            continue;
        }
        let value = args.next().ok_or(USAGE)?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|error| format!("{flag}: {error}"))
        };
        match flag.as_str() {
            "--driver" => options.driver = value.into(),
            "--robots" => options.robots.push(value.into()),
            "--links" => options.links = Some(value.into()),
            "--logs" => options.logs = Some(value.into()),
            "--hostile" => options.hostile = number()?,
            "--budget" => options.budget = number()? as usize,
            "--max-checks" => options.max_checks = number()? as usize,
            "--seed" => options.seed = number()?,
            "--report" => options.report = value.into(),
            _ => return Err(USAGE.into()),
        }
    }
    if options.driver.as_os_str().is_empty() {
        return Err(USAGE.into());
    }
    Ok(options)
}

/// A body to check and where it came from.
struct Body {
    name: String,
    bytes: Vec<u8>,
    host_links: Vec<Vec<u8>>,
    /// Paths every check of this body includes, besides those made from its values.
    fixed_paths: Vec<Vec<u8>>,
}

/// The checks of one body, in the order they are sent: every URL for each agent list.
struct Checks {
    body: usize,
    agent_lists: Vec<Vec<Vec<u8>>>,
    requests: Vec<Vec<u8>>,
}

#[derive(Default)]
struct Tally {
    bodies: usize,
    /// Distinct URLs per body, summed over the bodies.
    urls: usize,
    agent_lists: BTreeSet<Vec<Vec<u8>>>,
    comparisons: u64,
    agreements: u64,
    /// Checks Google's library answered with "disallowed", and with a deciding rule.
    disallowed: u64,
    decided_by_rule: u64,
    by_kind: BTreeMap<&'static str, u64>,
}

fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let mut bodies = Vec::new();
    for root in &options.robots {
        for file in inputs::files_under(root) {
            let Ok(bytes) = fs::read(&file) else { continue };
            let host = file
                .file_name()
                .map(|name| name.to_string_lossy().into_owned());
            bodies.push(Body {
                name: file.display().to_string(),
                host_links: inputs::host_links(options.links.as_deref(), &host.unwrap_or_default()),
                bytes,
                fixed_paths: Vec::new(),
            });
        }
    }
    let real = bodies.len();
    for seed in 0..options.hostile {
        let seed = options.seed.wrapping_mul(1_000_003).wrapping_add(seed);
        bodies.push(Body {
            name: format!("hostile:{seed}"),
            bytes: hostile::body(seed),
            host_links: Vec::new(),
            fixed_paths: hostile::FIXED_PATHS
                .iter()
                .map(|path| path.to_vec())
                .collect(),
        });
    }
    let log_paths = options
        .logs
        .as_deref()
        .map(inputs::log_targets)
        .unwrap_or_default();
    eprintln!(
        "{real} real bodies, {} generated, {} distinct log targets",
        bodies.len() - real,
        log_paths.len()
    );

    let mut driver = Command::new(&options.driver)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", options.driver.display()));
    let to_driver = BufWriter::new(driver.stdin.take().expect("piped stdin"));
    let from_driver = BufReader::new(driver.stdout.take().expect("piped stdout"));
    // The writer runs ahead of the reader only by the bodies whose checks fit in the pipe and
    // stdio buffers between them (at least 1,000 bytes of records a body: a few hundred
    // bodies), far fewer than the channel holds, so it never waits on the channel while the
    // reader waits on it.
    let (sender, receiver) = sync_channel(1 << 16);
    let tally = thread::scope(|scope| {
        let bodies = &bodies;
        let log_paths = &log_paths;
        let options = &options;
        scope.spawn(move || send_checks(bodies, log_paths, options, to_driver, sender));
        let parse_options = if options.cut {
            ParseOptions::googlebot()
        } else {
            ParseOptions::default()
        };
        compare(
            bodies,
            receiver,
            from_driver,
            &parse_options,
            &options.report,
        )
    });
    let status = driver.wait().expect("driver exit status");
    assert!(status.success(), "the driver failed: {status}");
    println!("bodies: {} ({real} real files)", tally.bodies);
    println!("distinct URLs: {}", tally.urls);
    println!("agent lists: {}", tally.agent_lists.len());
    println!("comparisons: {}", tally.comparisons);
    println!(
        "of which Google disallowed {} and named a deciding rule in {}",
        tally.disallowed, tally.decided_by_rule
    );
    println!("agreements: {}", tally.agreements);
    for (kind, count) in &tally.by_kind {
        println!("disagreements, {kind}: {count}");
    }
    println!("details: {}", options.report.display());
}

/// Writes every check to the driver, and each body's list of them to `sender`.
fn send_checks(
    bodies: &[Body],
    log_paths: &[Vec<u8>],
    options: &Options,
    mut driver: impl Write,
    sender: SyncSender<Checks>,
) {
    let mut random = Random::new(options.seed);
    for (index, body) in bodies.iter().enumerate() {
        if index % 1000 == 0 {
            eprintln!("body {index} of {}", bodies.len());
        }
        let (values, agent_values) = cases::line_values(&body.bytes);
        let mut agent_lists: Vec<Vec<Vec<u8>>> = FIXED_AGENTS
            .iter()
            .map(|list| list.iter().map(|agent| agent.to_vec()).collect())
            .collect();
        agent_lists.extend(cases::agents_from_values(&agent_values, 4, &mut random));

        let checks =
            (options.budget / body.bytes.len().max(1)).clamp(200, options.max_checks.max(200));
        let url_count = (checks / agent_lists.len()).max(8);
        let mut urls: Vec<Vec<u8>> = body.fixed_paths.clone();
        let mut from_values: Vec<Vec<u8>> = values
            .iter()
            .flat_map(|value| cases::variants(value))
            .collect();
        from_values.sort();
        from_values.dedup();
        take_sample(&mut urls, &from_values, url_count / 2, &mut random);
        take_sample(&mut urls, &body.host_links, url_count / 4, &mut random);
        take_sample(&mut urls, log_paths, url_count / 4, &mut random);
        let mut requests: Vec<Vec<u8>> = urls
            .iter()
            .map(|path| cases::as_request(path, &mut random))
            .filter(|url| !url.contains(&0))
            .collect();
        requests.sort();
        requests.dedup();

        record(&mut driver, b'R', &body.bytes);
        for agents in &agent_lists {
            record(&mut driver, b'A', b"");
            for agent in agents {
                record(&mut driver, b'a', agent);
            }
            for url in &requests {
                record(&mut driver, b'U', url);
            }
        }
        let checks = Checks {
            body: index,
            agent_lists,
            requests,
        };
        if sender.send(checks).is_err() {
            return;
        }
    }
    driver.flush().expect("write to the driver");
}

/// Appends up to `count` items of `from`, chosen at random, to `into`.
fn take_sample(into: &mut Vec<Vec<u8>>, from: &[Vec<u8>], count: usize, random: &mut Random) {
    if from.len() <= count {
        into.extend_from_slice(from);
    } else {
        into.extend((0..count).map(|_| from[random.below(from.len())].clone()));
    }
}

fn record(driver: &mut impl Write, tag: u8, payload: &[u8]) {
    let length = u32::try_from(payload.len()).expect("a record under 4 GiB");
    driver
        .write_all(&[tag])
        .and_then(|()| driver.write_all(&length.to_le_bytes()))
        .and_then(|()| driver.write_all(payload))
        .expect("write to the driver");
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads the driver's answers in order and compares each with the engine's.
fn compare(
    bodies: &[Body],
    receiver: Receiver<Checks>,
    mut driver: impl BufRead,
    parse_options: &ParseOptions,
    report: &Path,
) -> Tally {
    let mut tally = Tally::default();
    let mut report = BufWriter::new(fs::File::create(report).expect("create the report"));
    let mut line = String::new();
    for checks in receiver {
        let body = &bodies[checks.body];
        let robots = Robots::parse_with(&body.bytes, parse_options);
        tally.bodies += 1;
        tally.urls += checks.requests.len();
        for agents in &checks.agent_lists {
            tally.agent_lists.insert(agents.clone());
            let tokens: Vec<&[u8]> = agents.iter().map(Vec::as_slice).collect();
            let selection = robots.select(&tokens, TokenMatch::Google);
            for url in &checks.requests {
                line.clear();
                driver
                    .read_line(&mut line)
                    .expect("read the driver's answer");
                let google = Answer::read(&line);
                let path = path_params_query(url);
                let verdict = robots.verdict(&selection, &path);
                let engine = Answer {
                    allowed: verdict.allowed,
                    line: verdict
                        .rule
                        .map_or(0, |rule| robots.rules()[rule as usize].line),
                    path: (path.len(), fnv1a(&path)),
                };
                tally.comparisons += 1;
                tally.disallowed += u64::from(!google.allowed);
                tally.decided_by_rule += u64::from(google.line != 0);
                let kind = if google.path != engine.path {
                    "url to path"
                } else if google.allowed != engine.allowed {
                    "verdict"
                } else if google.line != engine.line {
                    "deciding line only"
                } else {
                    tally.agreements += 1;
                    continue;
                };
                *tally.by_kind.entry(kind).or_default() += 1;
                let agents: Vec<String> = agents.iter().map(|agent| escaped(agent)).collect();
                writeln!(
                    report,
                    "{kind}\t{}\t[{}]\t{}\tengine {} line {}\tgoogle {} line {}",
                    body.name,
                    agents.join(", "),
                    escaped(url),
                    engine.allowed,
                    engine.line,
                    google.allowed,
                    google.line
                )
                .expect("write the report");
            }
        }
    }
    report.flush().expect("write the report");
    tally
}

/// One side's answer to a check.
struct Answer {
    allowed: bool,
    line: u32,
    /// Length and hash of the path the URL was reduced to.
    path: (usize, u64),
}

impl Answer {
    /// Reads the driver's `<allowed> <line> <path length> <path hash>`.
    fn read(line: &str) -> Answer {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [allowed, deciding_line, path_length, path_hash] = fields[..] else {
            panic!("unexpected driver answer {line:?}");
        };
        Answer {
            allowed: allowed == "1",
            line: deciding_line.parse().expect("a line number"),
            path: (
                path_length.parse().expect("a length"),
                u64::from_str_radix(path_hash, 16).expect("a hash"),
            ),
        }
    }
}

/// Bytes as text: printable ASCII as is, anything else as `\xNN`.
fn escaped(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}
