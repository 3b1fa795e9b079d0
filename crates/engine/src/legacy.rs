//! The original 1994 reading of robots.txt, for the audit's `holds_under_1994` column.
//!
//! The 1994 document knew only Disallow lines compared as plain prefixes of the path: no Allow,
//! no wildcards, no end anchor.

use crate::select::Selection;
use crate::{Group, Rule, RuleId, RuleKind};

/// The first non-empty Disallow rule of the selected groups, in file order, whose escaped
/// pattern is a byte prefix of `path`.
pub(crate) fn disallowed_1994(
    groups: &[Group],
    rules: &[Rule],
    selection: &Selection,
    path: &[u8],
) -> Option<RuleId> {
    // Selections list their groups in file order, so the first hit is the first in the file.
    selection
        .groups()
        .iter()
        .filter_map(|&group| groups.get(group as usize))
        .flat_map(|group| group.rules.clone())
        .find(|&id| {
            rules
                .get(id as usize)
                .is_some_and(|rule| disallows_1994(rule, path))
        })
}

/// Whether `rule` on its own disallows `path` in the 1994 reading: a non-empty Disallow whose
/// escaped pattern is a byte prefix of the path.
pub(crate) fn disallows_1994(rule: &Rule, path: &[u8]) -> bool {
    rule.kind == RuleKind::Disallow && !rule.pattern.is_empty() && path.starts_with(&rule.pattern)
}

#[cfg(test)]
mod tests {
    use crate::{Robots, TokenMatch};

    #[test]
    fn prefix_of_disallow_lines_only() {
        let robots = Robots::parse(
            b"user-agent: a\ndisallow: /z\n\
              user-agent: *\nallow: /p\ndisallow:\ndisallow: /p*\ndisallow: /p\ndisallow: /q$\n\
              user-agent: *\ndisallow: /",
        );
        let all = robots.select(&[b"other"], TokenMatch::Google);
        let a = robots.select(&[b"a"], TokenMatch::Google);
        let cases: &[(&[u8], Option<u32>)] = &[
            (b"/p", Some(4)),
            (b"/p*x", Some(3)),
            (b"/q$", Some(5)),
            (b"/q", Some(6)),
            (b"/z", Some(6)),
        ];
        for (path, expected) in cases {
            assert_eq!(
                robots.disallowed_1994(&all, path),
                *expected,
                "path {path:?}"
            );
        }
        assert_eq!(robots.disallowed_1994(&a, b"/z"), Some(0));
        assert_eq!(robots.disallowed_1994(&a, b"/p"), None);
    }
}
