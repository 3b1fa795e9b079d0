//! Which groups apply to a crawler: Google's group rules, and the audit's reading of group names
//! (`docs/robots-txt.md` and `docs/contract.md`).

use smallvec::SmallVec;

use crate::ascii::is_space;
use crate::{Group, GroupId};

/// How caller tokens are compared with the user-agent values of the groups.
///
/// ```
/// use robots_audit_engine::{Robots, TokenMatch};
///
/// let robots = Robots::parse(b"user-agent: MJ12bot\ndisallow: /\n");
/// // Google reduces the group's value to `MJ`, so `MJ12bot` is not named.
/// assert!(robots.select(&[b"MJ12bot"], TokenMatch::Google).is_empty());
/// // The audit also compares the whole product name.
/// assert!(!robots.select(&[b"MJ12bot"], TokenMatch::ProductName).is_empty());
///
/// // And it names every token Google's reduction names.
/// let robots = Robots::parse(b"user-agent: bingbot(at)microsoft.com\ndisallow: /\n");
/// assert!(!robots.select(&[b"bingbot"], TokenMatch::ProductName).is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenMatch {
    /// Google's matcher: a group's value is reduced to its leading `[A-Za-z_-]` run and compared
    /// ASCII case-insensitively with each token taken verbatim. Every group naming any of the
    /// tokens applies, and their rules merge.
    Google,
    /// The audit's rule: a group names a token when the token equals, ASCII case-insensitively,
    /// either Google's reduction of the value (its leading `[A-Za-z_-]` run) or the value's
    /// product name, its leading run of letters, digits, `_`, `-` and `.`. So `MJ12bot` and
    /// `archive.org_bot` name themselves whole (Google cuts them to `MJ` and `archive`), and
    /// `Baiduspider+(+http://www.baidu.com/search/spider.htm)`, `bingbot(at)microsoft.com` and
    /// `AhrefsBot,SlySearch` name `baiduspider`, `bingbot` and `ahrefsbot`, as for Google. The
    /// tokens are a fallback order: the first token that some group names selects every group
    /// naming it, and later tokens are not consulted.
    ProductName,
}

/// The groups that apply to one crawler in one robots.txt: the groups naming it, or the `*`
/// groups when nothing names it, or none.
///
/// A selection only makes sense with the [`Robots`](crate::Robots) that made it. Up to four
/// groups are held in place, so reading a selection's groups per request does not follow a
/// pointer; more are held on the heap. Callers that judge many requests still keep one per
/// crawler, since selecting compares every group's user-agent values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Selection {
    groups: GroupIds,
    global: bool,
}

impl Selection {
    /// The selected groups in file order.
    #[must_use]
    pub fn groups(&self) -> &[GroupId] {
        &self.groups
    }

    /// Whether the groups are the `*` groups, used because no group names the crawler.
    #[must_use]
    pub fn is_global(&self) -> bool {
        self.global
    }

    /// Whether no group applies, in which case everything is allowed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.groups().is_empty()
    }
}

/// How many group ids a [`Selection`] holds without allocating.
const INLINE_GROUPS: usize = 4;

/// Group ids in file order, in place while they fit.
type GroupIds = SmallVec<[GroupId; INLINE_GROUPS]>;

/// Google's test for a global value: `*` alone, or `*` followed by whitespace and anything.
pub(crate) fn is_global_agent(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => is_space(*next),
        _ => false,
    }
}

/// Google's `ExtractUserAgent`: the leading `[A-Za-z_-]` run.
pub(crate) fn google_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphabetic() || matches!(b, b'-' | b'_')))
        .unwrap_or(value.len());
    value.get(..end).unwrap_or_default()
}

/// The audit's product name: the leading run of letters, digits, `_`, `-` and `.`.
pub(crate) fn product_name(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
        .unwrap_or(value.len());
    value.get(..end).unwrap_or_default()
}

fn names(group: &Group, token: &[u8], mode: TokenMatch) -> bool {
    group
        .agents
        .iter()
        .filter(|agent| !is_global_agent(agent))
        .any(|agent| {
            google_token(agent).eq_ignore_ascii_case(token)
                || (mode == TokenMatch::ProductName
                    && product_name(agent).eq_ignore_ascii_case(token))
        })
}

fn ids(groups: &[Group], keep: impl Fn(&Group) -> bool) -> GroupIds {
    groups
        .iter()
        .zip(0..)
        .filter(|(group, _)| keep(group))
        .map(|(_, id)| id)
        .collect()
}

pub(crate) fn select(groups: &[Group], tokens: &[&[u8]], mode: TokenMatch) -> Selection {
    let specific = match mode {
        TokenMatch::Google => ids(groups, |group| {
            tokens.iter().any(|token| names(group, token, mode))
        }),
        TokenMatch::ProductName => tokens
            .iter()
            .map(|token| ids(groups, |group| names(group, token, mode)))
            .find(|named| !named.is_empty())
            .unwrap_or_default(),
    };
    if !specific.is_empty() {
        return Selection {
            groups: specific,
            global: false,
        };
    }
    let global = ids(groups, |group| {
        group.agents.iter().any(|agent| is_global_agent(agent))
    });
    Selection {
        global: !global.is_empty(),
        groups: global,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_ids_are_the_same_in_place_or_on_the_heap() {
        for len in 0..=INLINE_GROUPS as GroupId * 3 {
            let expected: Vec<GroupId> = (0..len).map(|id| id * 7).collect();
            let ids: GroupIds = expected.iter().copied().collect();
            assert_eq!(ids.as_slice(), expected, "{len} ids");
            assert_eq!(ids.is_empty(), len == 0, "{len} ids");
            assert_eq!(!ids.spilled(), len as usize <= INLINE_GROUPS, "{len} ids");
        }
    }

    #[test]
    fn a_selection_of_many_groups_merges_them_all() {
        let mut text = Vec::new();
        for group in 0..=INLINE_GROUPS * 2 {
            text.extend_from_slice(
                format!("User-agent: FooBot\nDisallow: /g{group}\n\n").as_bytes(),
            );
        }
        text.extend_from_slice(b"User-agent: *\nDisallow: /\n");
        let robots = crate::Robots::parse(&text);
        for mode in [TokenMatch::Google, TokenMatch::ProductName] {
            let selection = robots.select(&[b"FooBot"], mode);
            let expected: Vec<GroupId> = (0..=INLINE_GROUPS as GroupId * 2).collect();
            assert_eq!(selection.groups(), expected, "{mode:?}");
            assert!(!selection.is_global() && !selection.is_empty());
            for (group, rule) in expected.iter().zip(0..) {
                let verdict = robots.verdict(&selection, format!("/g{group}/page").as_bytes());
                assert_eq!(
                    (verdict.allowed, verdict.rule),
                    (false, Some(rule)),
                    "/g{group}"
                );
            }
            assert!(robots.verdict(&selection, b"/elsewhere").allowed);
        }
    }

    #[test]
    fn global_detection_is_googles() {
        let cases: &[(&[u8], bool)] = &[
            (b"*", true),
            (b"* FooBot", true),
            (b"*\tx", true),
            (b"*\x0bx", true),
            (b"*Bot", false),
            (b"*/1.0", false),
            (b"**", false),
            (b"", false),
            (b"Foo *", false),
        ];
        for (value, expected) in cases {
            assert_eq!(is_global_agent(value), *expected, "value {value:?}");
        }
    }

    #[test]
    fn google_token_is_the_leading_letter_run() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"FooBot/1.2", b"FooBot"),
            (b"Foo Bar", b"Foo"),
            (b"Foo2Bot", b"Foo"),
            (b"FooBot*", b"FooBot"),
            (b"*Bot", b""),
            ("ツFoo".as_bytes(), b""),
            (b"Googlebot-News_x", b"Googlebot-News_x"),
            (b"MJ12bot", b"MJ"),
        ];
        for (value, expected) in cases {
            assert_eq!(google_token(value), *expected, "value {value:?}");
        }
    }

    #[test]
    fn product_name_keeps_digits_and_dots() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"MJ12bot", b"MJ12bot"),
            (b"archive.org_bot", b"archive.org_bot"),
            (b"360Spider", b"360Spider"),
            (b"FooBot/1.2", b"FooBot"),
            (b"Foo Bar", b"Foo"),
            (b"Foo\tBar", b"Foo"),
            (b"FooBot*", b"FooBot"),
            (b"FooBot;x", b"FooBot"),
            (b"*Bot", b""),
            (
                b"Baiduspider+(+http://www.baidu.com/search/spider.htm)",
                b"Baiduspider",
            ),
            (b"bingbot(at)microsoft.com", b"bingbot"),
            (b"AhrefsBot,SlySearch", b"AhrefsBot"),
            (b"Googlebot-Image/1.0", b"Googlebot-Image"),
            (b"Mozilla/5.0 (compatible; FooBot/1.0)", b"Mozilla"),
            ("Bötbot".as_bytes(), b"B"),
        ];
        for (value, expected) in cases {
            assert_eq!(product_name(value), *expected, "value {value:?}");
        }
    }
}
