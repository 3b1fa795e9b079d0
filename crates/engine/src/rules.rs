//! The parts of a parsed robots.txt: groups and their allow and disallow rules. Plain data,
//! produced by the parser and read by group selection, the compiled matcher, the 1994 reading
//! and [`Robots`](crate::Robots), which owns them; this module imports none of those.

use std::ops::Range;

use crate::pattern::glob_matches;

/// Index of a group in [`Robots::groups`](crate::Robots::groups).
pub type GroupId = u32;
/// Index of a rule in [`Robots::rules`](crate::Robots::rules), which is also its rank in file order.
pub type RuleId = u32;

/// A group: a run of user-agent lines and the rules that follow them, up to the next user-agent
/// line that comes after a rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Group {
    /// The user-agent values as written (trimmed, comment removed), in file order.
    pub agents: Vec<Box<[u8]>>,
    /// Line of the group's first user-agent line.
    pub line: u32,
    /// The group's rules in [`Robots::rules`](crate::Robots::rules).
    pub rules: Range<RuleId>,
}

/// Whether a rule allows or disallows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// An `allow` line.
    Allow,
    /// A `disallow` line, or one of its accepted typos.
    Disallow,
}

/// An allow or disallow line inside a group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Allow or disallow.
    pub kind: RuleKind,
    /// The value after [`escape_pattern`](crate::escape_pattern); its length is the rule's
    /// priority. Empty for an empty value, which never decides anything.
    pub pattern: Box<[u8]>,
    /// The line as written, with its comment and outer whitespace removed (lossy UTF-8), such as
    /// `Disallow: /private/`.
    pub text: String,
    /// The line number, counted as Google counts them.
    pub line: u32,
    /// The group the rule belongs to.
    pub group: GroupId,
}

impl Rule {
    /// Whether the rule's pattern matches `path` (the output of
    /// [`path_params_query`](crate::path_params_query)) on its own, before precedence: from the
    /// start of the path, `*` matching any bytes and a final `$` anchoring the end. An empty
    /// pattern matches nothing, as it never decides anything. Which matching rule decides is
    /// [`Robots::verdict`](crate::Robots::verdict)'s business (the longest pattern, allow on a
    /// tie, and Google's index.htm rewrite of allow rules).
    ///
    /// ```
    /// use robots_audit_engine::Robots;
    ///
    /// let robots = Robots::parse(b"user-agent: *\ndisallow: /a*.pdf$\nallow:\n");
    /// let [pdf, empty] = robots.rules() else { panic!() };
    /// assert!(pdf.matches(b"/a/b.pdf"));
    /// assert!(!pdf.matches(b"/a/b.pdf?x"));
    /// assert!(!empty.matches(b"/"));
    /// ```
    #[must_use]
    pub fn matches(&self, path: &[u8]) -> bool {
        !self.pattern.is_empty() && glob_matches(&self.pattern, path)
    }
}
