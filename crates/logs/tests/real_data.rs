//! The real third-party logs of the shared data folder: each must be detected as the right
//! format and parse at least 99.9% of its request lines, and no line of a file may be skipped
//! as `wrong_format` that the file's own format could read. Ignored by default, since the data
//! is never copied into the repository: it is found at `../shared/data` relative to the
//! repository root, or where the `ROBOTS_AUDIT_DATA` variable points.
//!
//! `cargo test -p robots-audit-logs --test tests real_data:: -- --ignored --nocapture`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use robots_audit_logs::{
    BlockState, FieldMap, Format, LineParser, LogReader, Scratch, SkipReason, Source,
};

/// The shared data folder: `ROBOTS_AUDIT_DATA`, or `../shared/data` beside the repository.
fn data_root() -> PathBuf {
    match std::env::var_os("ROBOTS_AUDIT_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    }
}

#[derive(Debug, Default)]
struct Scan {
    format: Option<Format>,
    lines: u64,
    parsed: u64,
    skipped: BTreeMap<(u64, &'static str), ()>,
}

/// Reads a file as the audit does: the format detected past junk, each line that is not of
/// its shape read in the format it has.
fn scan(path: &Path) -> Scan {
    let mut reader = LogReader::open(&Source::Path(path.to_path_buf())).expect("opens");
    let mut scan = Scan::default();
    let mut scratch = Scratch::new();
    let mut parser: Option<LineParser> = None;
    while let Some(block) = reader.next_block().expect("no read error") {
        if parser.is_none() {
            scan.format = reader.detect_format(&block);
        }
        let Some(format) = scan.format else {
            return scan;
        };
        let parser = parser.get_or_insert_with(|| LineParser::detected(format, &FieldMap::new()));
        let mut state = parser.block_state(&block);
        for (number, line) in block.lines() {
            match parser.parse(line, &mut state, &mut scratch) {
                Ok(Some(_)) => {
                    scan.lines += 1;
                    scan.parsed += 1;
                }
                Ok(None) => {}
                Err(reason) => {
                    scan.lines += 1;
                    scan.skipped.insert((number, reason.as_str()), ());
                }
            }
        }
    }
    scan
}

/// Lines the named format skips as `wrong_format`, each with what the parser of the format
/// without the shape checks would have made of it: lines parsed by the detected parser in
/// another format are counted apart.
fn wrong_format_lines(path: &Path, format: Format) -> (u64, u64) {
    let mut reader = LogReader::open(&Source::Path(path.to_path_buf())).expect("opens");
    let named = LineParser::new(format, &FieldMap::new());
    let detected = LineParser::detected(format, &FieldMap::new());
    let (mut wrong, mut read_as_another) = (0, 0);
    let mut scratch = Scratch::new();
    while let Some(block) = reader.next_block().expect("no read error") {
        let mut state = named.block_state(&block);
        let mut other_state = BlockState::new();
        for (_, line) in block.lines() {
            if named.parse(line, &mut state, &mut scratch) == Err(SkipReason::WrongFormat) {
                wrong += 1;
                if let Ok(Some(_)) = detected.parse(line, &mut other_state, &mut scratch) {
                    read_as_another += 1;
                }
            }
        }
    }
    (wrong, read_as_another)
}

#[test]
#[ignore = "needs the shared data folder (../shared/data or ROBOTS_AUDIT_DATA)"]
fn every_real_log_is_detected_and_parsed() {
    let root = data_root().join("logs");
    assert!(root.is_dir(), "{} is not there", root.display());
    let root = root.as_path();
    // (file, expected format, request lines expected to be skipped, with their reasons)
    type Expected = (&'static str, Option<Format>, &'static [(u64, &'static str)]);
    let expected: &[Expected] = &[
        (
            "almhuette_raith_2019-10_last10000.log",
            Some(Format::Combined),
            &[],
        ),
        (
            "basjes_hackers_access_2015.log",
            Some(Format::Combined),
            &[],
        ),
        ("caddy_json_mirrors_tnonline.log", Some(Format::Caddy), &[]),
        (
            "elastic_apache_logs_semicomplete_2015.log",
            Some(Format::Combined),
            &[(8899, "bad_quoting")],
        ),
        ("iis_w3c_2015-01-13.log", Some(Format::W3c), &[]),
        (
            "secrepo_self_logs_2018-12-15.log",
            Some(Format::Combined),
            &[],
        ),
        (
            "secrepo_self_logs_2021_sample.log",
            Some(Format::Combined),
            &[],
        ),
        (
            "zanbil_shop_access_first1000.log",
            Some(Format::Combined),
            &[],
        ),
        ("format_samples/matomo_alb.log", Some(Format::Alb), &[]),
        (
            "format_samples/matomo_amazon_cloudfront_web.log",
            Some(Format::Cloudfront),
            &[],
        ),
        (
            "format_samples/matomo_common_vhost.log",
            Some(Format::VhostCombined),
            &[],
        ),
        // The second entry is a TCP listener's, which holds no HTTP request.
        (
            "format_samples/matomo_elb.log",
            Some(Format::Alb),
            &[(3, "not_http")],
        ),
        ("format_samples/matomo_iis.log", Some(Format::W3c), &[]),
        (
            "format_samples/matomo_netscaler.log",
            Some(Format::W3c),
            &[],
        ),
        (
            "format_samples/matomo_nginx_json.log",
            Some(Format::Json),
            &[],
        ),
        // Amazon S3 server access logs are not a supported format.
        ("format_samples/matomo_s3.log", None, &[]),
    ];
    let mut seen: Vec<PathBuf> = Vec::new();
    for (name, format, skips) in expected {
        let path = root.join(name);
        seen.push(path.clone());
        let scan = scan(&path);
        assert_eq!(scan.format, *format, "{name}");
        let skipped: Vec<(u64, &str)> = scan.skipped.keys().copied().collect();
        let (wrong, read_as_another) = format.map_or((0, 0), |f| wrong_format_lines(&path, f));
        println!(
            "{name}: {:?}, {} lines, {} parsed, {} skipped {:?}; named format: {wrong} wrong_format, {read_as_another} of them read in another format",
            scan.format,
            scan.lines,
            scan.parsed,
            skipped.len(),
            skipped.iter().take(5).collect::<Vec<_>>(),
        );
        assert_eq!(skipped, *skips, "{name}");
        // Every line the file's own format calls another format's is one.
        assert_eq!(wrong, read_as_another, "{name}");
        if format.is_some() {
            // Entries that record no HTTP request are not requests the parser could have read.
            let not_http = skips
                .iter()
                .filter(|(_, reason)| *reason == "not_http")
                .count() as u64;
            let requests = scan.lines - not_http;
            assert!(
                scan.parsed > 0 && scan.parsed * 1000 >= requests * 999,
                "{name}: {}/{requests}",
                scan.parsed
            );
        }
    }
    // A file added to the folder later must be added above.
    let mut present: Vec<PathBuf> = Vec::new();
    for dir in [root.to_path_buf(), root.join("format_samples")] {
        for entry in std::fs::read_dir(dir).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_file() {
                present.push(path);
            }
        }
    }
    present.sort();
    seen.sort();
    assert_eq!(present, seen);
}
