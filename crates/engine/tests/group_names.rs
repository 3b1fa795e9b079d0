//! Group names on the real corpus: the version 1 rule, the audit's rule now
//! ([`TokenMatch::ProductName`]) and Google's reduction ([`TokenMatch::Google`]), compared on
//! every user-agent line of the 4,231 real files. Needs the shared corpus:
//! `cargo test --release -p robots-audit-engine --test tests group_names:: -- --ignored --nocapture`.

use crate::corpus;

use std::collections::BTreeSet;

use robots_audit_engine::{Robots, TokenMatch};

/// Google's reduction: the leading `[A-Za-z_-]` run.
fn google(value: &[u8]) -> &[u8] {
    leading(value, |b| {
        b.is_ascii_alphabetic() || matches!(b, b'_' | b'-')
    })
}

/// The audit's product name: the leading run of letters, digits, `_`, `-` and `.`.
fn product(value: &[u8]) -> &[u8] {
    leading(value, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
    })
}

/// Version 1's name: the value up to the first whitespace, `/`, `*` or `;`.
fn version_1(value: &[u8]) -> &[u8] {
    leading(value, |b| {
        !(b.is_ascii_whitespace() || b == 0x0B || matches!(b, b'/' | b'*' | b';'))
    })
}

fn leading(value: &[u8], keep: impl Fn(u8) -> bool) -> &[u8] {
    let end = value.iter().position(|&b| !keep(b)).unwrap_or(value.len());
    &value[..end]
}

fn is_global(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => next.is_ascii_whitespace() || *next == 0x0B,
        _ => false,
    }
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Lines and distinct values (lowercased) that one comparison counts.
#[derive(Default)]
struct Count {
    lines: usize,
    values: BTreeSet<Vec<u8>>,
}

impl Count {
    fn add(&mut self, value: &[u8]) {
        self.lines += 1;
        self.values.insert(value.to_ascii_lowercase());
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (lines, distinct) = (self.lines, self.values.len());
        write!(f, "{lines} lines, {distinct} distinct values")?;
        let examples: Vec<_> = self
            .values
            .iter()
            .step_by((distinct / 4).max(1))
            .take(4)
            .map(|value| String::from_utf8_lossy(value).into_owned())
            .collect();
        write!(f, " (such as {examples:?})")
    }
}

#[test]
#[ignore = "needs the shared corpus"]
fn group_names_on_real_files() {
    let Some(files) = corpus::real_files() else {
        return;
    };
    let mut all = Count::default();
    let mut version_1_differs_from_google = Count::default();
    let mut product_differs_from_google = Count::default();
    let mut version_1_differs_from_product = Count::default();
    let mut google_missed_by_version_1 = Count::default();
    let mut tokens_checked = 0usize;
    for (name, body) in &files {
        let robots = Robots::parse(body);
        let mut tokens = BTreeSet::new();
        for value in robots.groups().iter().flat_map(|group| &group.agents) {
            if is_global(value) {
                continue;
            }
            all.add(value);
            let (google, product, old) = (google(value), product(value), version_1(value));
            if !same(old, google) {
                version_1_differs_from_google.add(value);
                if !google.is_empty() {
                    google_missed_by_version_1.add(value);
                }
            }
            if !same(product, google) {
                product_differs_from_google.add(value);
            }
            if !same(old, product) {
                version_1_differs_from_product.add(value);
            }
            if !google.is_empty() {
                tokens.insert(google.to_ascii_lowercase());
            }
        }
        // Every token that Google's reduction names is named by the audit's rule, in the
        // same groups or more.
        for token in &tokens {
            let by_google = robots.select(&[token], TokenMatch::Google);
            let by_audit = robots.select(&[token], TokenMatch::ProductName);
            assert!(!by_google.is_global() && !by_audit.is_global(), "{name}");
            for group in by_google.groups() {
                assert!(
                    by_audit.groups().contains(group),
                    "{name}: {:?} names group {group} for Google only",
                    String::from_utf8_lossy(token)
                );
            }
            tokens_checked += 1;
        }
    }
    eprintln!(
        "{} files; user-agent values other than `*`: {all}",
        files.len()
    );
    eprintln!("version 1 name != Google's reduction: {version_1_differs_from_google}");
    eprintln!(
        "  of which Google's non-empty reduction names a token version 1 did not: \
         {google_missed_by_version_1}"
    );
    eprintln!("product name != Google's reduction: {product_differs_from_google}");
    eprintln!("version 1 name != product name: {version_1_differs_from_product}");
    eprintln!("Google's reductions checked: {tokens_checked}, every group they name is named now");
    assert!(files.len() > 4_000);
    assert!(tokens_checked > 4_000);
}
