//! What the check reads: robots.txt bodies from directories, request targets from access logs,
//! and the crawled URLs of a host (a directory of files named by host, one URL a line).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Every regular file under `root`, sorted, so that runs are reproducible.
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            found.push(dir);
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The request targets of every access log under `root`: the second word of a quoted request
/// line (`"GET /a?b HTTP/1.1"`), Caddy's JSON `"uri"`, or a W3C log's `cs-uri-stem` with its
/// `cs-uri-query`. Deduplicated, in byte order.
pub fn log_targets(root: &Path) -> Vec<Vec<u8>> {
    let mut targets = BTreeSet::new();
    for file in files_under(root) {
        let Ok(bytes) = fs::read(&file) else { continue };
        let mut w3c_columns: Option<(usize, Option<usize>)> = None;
        for line in bytes.split(|&byte| byte == b'\n') {
            if let Some(fields) = line.strip_prefix(b"#Fields:") {
                let names: Vec<&[u8]> = words(fields).collect();
                let column = |name: &[u8]| names.iter().position(|field| *field == name);
                w3c_columns = column(b"cs-uri-stem").map(|stem| (stem, column(b"cs-uri-query")));
                continue;
            }
            if let Some(target) = quoted_request_target(line).or_else(|| caddy_uri(line)) {
                targets.insert(target.to_vec());
            } else if let Some((stem, query)) = w3c_columns
                && !line.starts_with(b"#")
            {
                let fields: Vec<&[u8]> = words(line).collect();
                if let Some(stem) = fields.get(stem) {
                    let mut target = stem.to_vec();
                    if let Some(query) = query.and_then(|query| fields.get(query))
                        && *query != b"-"
                    {
                        target.push(b'?');
                        target.extend_from_slice(query);
                    }
                    targets.insert(target);
                }
            }
        }
    }
    targets.into_iter().collect()
}

fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|byte| byte.is_ascii_whitespace())
        .filter(|word| !word.is_empty())
}

fn quoted_request_target(line: &[u8]) -> Option<&[u8]> {
    for method in [
        &b"\"GET "[..],
        b"\"HEAD ",
        b"\"POST ",
        b"\"PUT ",
        b"\"OPTIONS ",
    ] {
        if let Some(at) = find(line, method) {
            let rest = &line[at + method.len()..];
            let end = rest.iter().position(|&byte| byte == b' ' || byte == b'"')?;
            return Some(&rest[..end]);
        }
    }
    None
}

fn caddy_uri(line: &[u8]) -> Option<&[u8]> {
    let key = b"\"uri\":\"";
    let rest = &line[find(line, key)? + key.len()..];
    let end = rest.iter().position(|&byte| byte == b'"')?;
    Some(&rest[..end])
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The URLs listed for `host` under `links`, if there is such a file.
pub fn host_links(links: Option<&Path>, host: &str) -> Vec<Vec<u8>> {
    let Some(bytes) = links.and_then(|dir| fs::read(dir.join(host)).ok()) else {
        return Vec::new();
    };
    bytes
        .split(|&byte| byte == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}
