//! Helpers shared by the integration tests: reading generated files back and parsing lines with
//! small independent parsers (deliberately not the project's log readers, so the tests check the
//! generator against the documented layouts rather than against another crate's reading).

#![allow(dead_code)] // Each test binary uses a different subset of the helpers.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use jiff::Timestamp;
use robots_audit_synth::{SynthConfig, SynthFormat};

/// One parsed log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub host: String,
    pub ip: String,
    /// As logged: a path with query, or (ALB) an absolute URL.
    pub target: String,
    pub user_agent: String,
    pub micros: i64,
    pub status: u16,
}

/// The decompressed content of a generated log file (compression from the extension).
pub fn read_log(path: &Path) -> Vec<u8> {
    let raw = std::fs::read(path).expect("readable log file");
    let name = path.to_string_lossy();
    let mut plain = Vec::new();
    if name.ends_with(".gz") {
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut plain)
            .expect("valid gzip");
    } else if name.ends_with(".zst") {
        zstd::stream::read::Decoder::new(&raw[..])
            .and_then(|mut d| d.read_to_end(&mut plain))
            .expect("valid zstd");
    } else {
        plain = raw;
    }
    plain
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).expect("opening delimiter") + open.len();
    let end = text[start..].find(close).expect("closing delimiter") + start;
    &text[start..end]
}

/// Parses one line of `format`; `origin` is the host for the host-less combined layout.
pub fn parse_line(format: SynthFormat, line: &str, origin: &str) -> Parsed {
    match format {
        SynthFormat::VhostCombined => {
            let (vhost, rest) = line.split_once(' ').expect("vhost field");
            let host = vhost.strip_suffix(":443").expect("port 443");
            parse_combined(rest, host)
        }
        SynthFormat::Combined => parse_combined(line, origin),
        SynthFormat::Alb => {
            let fields: Vec<&str> = line.splitn(13, ' ').collect();
            let client = fields[3];
            let ip = client.rsplit_once(':').expect("client:port").0;
            let quoted: Vec<&str> = line.split('"').collect();
            let request: Vec<&str> = quoted[1].split(' ').collect();
            let url = request[1];
            let host = between(url, "https://", ":443");
            Parsed {
                host: host.to_owned(),
                ip: ip.to_owned(),
                target: url.to_owned(),
                user_agent: quoted[3].to_owned(),
                micros: fields[1]
                    .parse::<Timestamp>()
                    .expect("ALB time")
                    .as_microsecond(),
                status: fields[8].parse().expect("status"),
            }
        }
        SynthFormat::Caddy => {
            let value: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            let request = &value["request"];
            let ts = between(line, "\"ts\":", ",");
            let (seconds, fraction) = ts.split_once('.').expect("fractional ts");
            assert_eq!(fraction.len(), 6);
            let micros = seconds.parse::<i64>().expect("seconds") * 1_000_000
                + fraction.parse::<i64>().expect("micros");
            Parsed {
                host: request["host"].as_str().expect("host").to_owned(),
                ip: request["client_ip"].as_str().expect("client_ip").to_owned(),
                target: request["uri"].as_str().expect("uri").to_owned(),
                user_agent: request["headers"]["User-Agent"][0]
                    .as_str()
                    .expect("User-Agent")
                    .to_owned(),
                micros,
                status: value["status"].as_u64().expect("status") as u16,
            }
        }
    }
}

fn parse_combined(line: &str, host: &str) -> Parsed {
    let ip = line.split(' ').next().expect("ip");
    let time = between(line, "[", "]");
    let micros = jiff::fmt::strtime::parse("%d/%b/%Y:%H:%M:%S %z", time)
        .and_then(|t| t.to_timestamp())
        .expect("CLF time")
        .as_microsecond();
    let request = between(line, "\"", "\"");
    let target = request.split(' ').nth(1).expect("request target");
    let after_request = &line[line.find("\" ").expect("end of request") + 2..];
    let status = after_request
        .split(' ')
        .next()
        .expect("status")
        .parse()
        .expect("numeric status");
    let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| i).collect();
    let user_agent = &line[quotes[quotes.len() - 2] + 1..quotes[quotes.len() - 1]];
    Parsed {
        host: host.to_owned(),
        ip: ip.to_owned(),
        target: target.to_owned(),
        user_agent: user_agent.to_owned(),
        micros,
        status,
    }
}

/// Every line of a run, in file order.
pub fn all_lines(summary: &robots_audit_synth::Summary, config: &SynthConfig) -> Vec<Parsed> {
    let origin = summary.origins[0].trim_start_matches("https://").to_owned();
    let mut lines = Vec::new();
    for file in &summary.files {
        let text = String::from_utf8(read_log(file)).expect("generated logs are UTF-8");
        assert!(text.is_empty() || text.ends_with('\n'));
        for line in text.lines() {
            lines.push(parse_line(config.format, line, &origin));
        }
    }
    lines
}

/// One row of a truth file: the key columns and the seven counters.
pub type TruthRows = BTreeMap<Vec<String>, [u64; 8]>;

/// Reads `truth.csv` (key: agent, origin) or `truth-agents.csv` (key: agent).
pub fn read_truth(path: &Path, key_columns: usize) -> TruthRows {
    let mut reader = csv::Reader::from_path(path).expect("truth file");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(&header[key_columns..], robots_audit_synth::TRUTH_COUNTERS);
    let mut rows = TruthRows::new();
    for record in reader.records() {
        let record = record.expect("row");
        let key: Vec<String> = record.iter().take(key_columns).map(str::to_owned).collect();
        let mut values = [0u64; 8];
        for (slot, field) in values.iter_mut().zip(record.iter().skip(key_columns)) {
            *slot = field.parse().expect("count");
        }
        assert!(rows.insert(key, values).is_none(), "duplicate truth row");
    }
    rows
}

/// A small run of `format` into a fresh temporary directory.
pub fn small_config(dir: &Path, format: SynthFormat) -> SynthConfig {
    SynthConfig {
        out: dir.to_path_buf(),
        lines: 12_000,
        origins: 12,
        bots: 34,
        files: 3,
        format,
        seed: 7,
        browser_share: 0.3,
        ..SynthConfig::default()
    }
}
