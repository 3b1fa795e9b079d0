//! Who a crawler is: the [`Bot`] every identification ends in and its [`Category`]. Above only
//! the policy module (what operators document about a bot): the catalog, the matcher and the
//! verifier all build on these types, and they depend on none of them.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::policy::{BotPolicy, ContentUse};

/// What a crawler is for. Reports group bots by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Builds a web search index (Googlebot, bingbot, YandexBot, ...).
    Search,
    /// Collects content to train AI models (GPTBot, ClaudeBot, CCBot, ...).
    AiTraining,
    /// Builds the index an AI search product answers from (OAI-SearchBot, PerplexityBot, ...).
    AiSearch,
    /// Fetches a page because a user asked an AI assistant to (ChatGPT-User, Claude-User, ...).
    AiAssistant,
    /// Link indexes and site audits for SEO tools (AhrefsBot, SemrushBot, MJ12bot, ...).
    Seo,
    /// Link previews for social networks and messengers (facebookexternalhit, Twitterbot, ...).
    Social,
    /// Web archives (archive.org_bot, ia_archiver).
    Archive,
    /// Uptime and performance monitors (UptimeRobot, Pingdom, Chrome-Lighthouse, ...).
    Monitor,
    /// Everything else, including every unknown self-declared bot.
    Other,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 9] = [
        Category::Search,
        Category::AiTraining,
        Category::AiSearch,
        Category::AiAssistant,
        Category::Seo,
        Category::Social,
        Category::Archive,
        Category::Monitor,
        Category::Other,
    ];

    /// The name used in catalog files and reports.
    ///
    /// ```
    /// use robots_audit_bots::Category;
    /// assert_eq!(Category::AiTraining.as_str(), "ai-training");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::AiTraining => "ai-training",
            Category::AiSearch => "ai-search",
            Category::AiAssistant => "ai-assistant",
            Category::Seo => "seo",
            Category::Social => "social",
            Category::Archive => "archive",
            Category::Monitor => "monitor",
            Category::Other => "other",
        }
    }

    /// The category with this [`as_str`](Category::as_str) name, if any.
    ///
    /// ```
    /// use robots_audit_bots::Category;
    /// assert_eq!(Category::from_name("seo"), Some(Category::Seo));
    /// assert_eq!(Category::from_name("SEO"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL
            .into_iter()
            .find(|category| category.as_str() == name)
    }

    /// The use that a usage preference about this category of crawler concerns, if any:
    /// `ai-training` -> [`ContentUse::AiTraining`]; `ai-search` and `ai-assistant` ->
    /// [`ContentUse::AiInput`]; `search` -> [`ContentUse::Search`]; other categories have none.
    ///
    /// ```
    /// use robots_audit_bots::{Category, ContentUse};
    /// assert_eq!(Category::AiAssistant.content_use(), Some(ContentUse::AiInput));
    /// assert_eq!(Category::AiTraining.content_use().map(ContentUse::aipref_label), Some("train-ai"));
    /// assert_eq!(Category::Seo.content_use(), None);
    /// ```
    pub fn content_use(self) -> Option<ContentUse> {
        match self {
            Category::Search => Some(ContentUse::Search),
            Category::AiTraining => Some(ContentUse::AiTraining),
            Category::AiSearch | Category::AiAssistant => Some(ContentUse::AiInput),
            Category::Seo
            | Category::Social
            | Category::Archive
            | Category::Monitor
            | Category::Other => None,
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One crawler: its canonical name and the robots.txt product tokens it answers to. Serialises
/// as the fields of a catalog entry (see [the catalog format](crate#the-catalog-format)).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Bot {
    /// Canonical name as the operator writes it, e.g. `Googlebot-Image`.
    pub name: String,
    /// robots.txt product tokens in fallback order, lower-case, e.g. `["googlebot-image",
    /// "googlebot"]`: the first one that some group of a robots.txt names selects the rules.
    pub tokens: Vec<String>,
    /// Who runs it, e.g. `Google`; empty for unknown bots.
    pub operator: String,
    /// What it is for.
    pub category: Category,
    /// What its operator documents about robots.txt, DNS, range lists and `Crawl-delay`
    /// (the default for bots nobody documented). Shared: agents clone bots freely. Serialised
    /// as the entry's policy fields, each left out while it has its default.
    #[serde(flatten)]
    pub policy: Arc<BotPolicy>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_names_round_trip() {
        for category in Category::ALL {
            assert_eq!(Category::from_name(category.as_str()), Some(category));
            assert_eq!(category.to_string(), category.as_str());
        }
    }

    #[test]
    fn category_uses() {
        let cases: &[(Category, Option<(&str, &str)>)] = &[
            (Category::Search, Some(("search", "search"))),
            (Category::AiTraining, Some(("ai-train", "train-ai"))),
            (Category::AiSearch, Some(("ai-input", "ai-use"))),
            (Category::AiAssistant, Some(("ai-input", "ai-use"))),
            (Category::Seo, None),
            (Category::Social, None),
            (Category::Archive, None),
            (Category::Monitor, None),
            (Category::Other, None),
        ];
        for &(category, expected) in cases {
            let found = category
                .content_use()
                .map(|used| (used.content_signal_key(), used.aipref_label()));
            assert_eq!(found, expected, "{category}");
        }
    }
}
