//! Listing the catalog as it stands after loading (`robots-audit bots`): a text table for
//! people, and JSON in the catalog's own format for programs.

use serde::Serialize;

use crate::bot::Bot;
use crate::catalog::Catalog;
use crate::identify::Syntax;

/// One catalog entry as `--json` prints it: the catalog format, plus the patterns that came
/// from a crawler-user-agents list.
#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    bot: &'a Bot,
    patterns: Vec<&'a str>,
    regexes: Vec<&'a str>,
    /// Output only: a crawler-user-agents list is loaded again as a list, since its patterns
    /// rank below every catalog pattern and name the product they match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    imported_regexes: Vec<&'a str>,
    examples: &'a [String],
}

#[derive(Serialize)]
struct Listing<'a> {
    bots: Vec<Listed<'a>>,
}

impl Catalog {
    fn listed<'a>(&'a self, index: usize, bot: &'a Bot) -> Listed<'a> {
        let mut listed = Listed {
            bot,
            patterns: Vec::new(),
            regexes: Vec::new(),
            imported_regexes: Vec::new(),
            examples: self.examples(index),
        };
        for pattern in self.patterns(index) {
            let source = pattern.source.as_str();
            match (pattern.locator.is_some(), pattern.syntax) {
                (true, _) => listed.imported_regexes.push(source),
                (false, Syntax::Literal) => listed.patterns.push(source),
                (false, Syntax::Regex) => listed.regexes.push(source),
            }
        }
        listed
    }

    /// Every entry in the catalog's own JSON format (`{"bots": [...]}`, pretty-printed), in
    /// catalog order. Patterns imported from a crawler-user-agents list appear under
    /// `imported_regexes`, a field for reading only. Without imported patterns the output loads
    /// back (with `--bots`) into the same catalog.
    ///
    /// ```
    /// use robots_audit_bots::Catalog;
    ///
    /// let json = Catalog::builtin().render_json();
    /// let mut reloaded = Catalog::empty();
    /// reloaded.extend_from_bytes(json.as_bytes(), "listing").unwrap();
    /// assert_eq!(reloaded.bots(), Catalog::builtin().bots());
    /// ```
    pub fn render_json(&self) -> String {
        let listing = Listing {
            bots: self
                .bots()
                .iter()
                .enumerate()
                .map(|(index, bot)| self.listed(index, bot))
                .collect(),
        };
        // Serialising strings, string arrays and string-keyed structs cannot fail; the fallback
        // keeps this total without a panic path.
        let mut json = serde_json::to_string_pretty(&listing)
            .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
        json.push('\n');
        json
    }

    /// One line per bot, in catalog order, under a header: name, operator, category, robots.txt
    /// tokens in fallback order (joined by `,`), and how many patterns, imported patterns and
    /// examples the entry has; columns padded with spaces.
    ///
    /// ```
    /// use robots_audit_bots::Catalog;
    ///
    /// let table = Catalog::builtin().render_table();
    /// let mut lines = table.lines();
    /// assert!(lines.next().unwrap().starts_with("name "));
    /// assert!(table.lines().any(|line| line.starts_with("Googlebot-Image ")
    ///     && line.contains(" googlebot-image,googlebot ")));
    /// ```
    pub fn render_table(&self) -> String {
        let header = [
            "name", "operator", "category", "tokens", "patterns", "imported", "examples",
        ];
        let mut rows: Vec<[String; 7]> = vec![header.map(str::to_owned)];
        for (index, bot) in self.bots().iter().enumerate() {
            let listed = self.listed(index, bot);
            rows.push([
                bot.name.clone(),
                if bot.operator.is_empty() {
                    "-".to_owned()
                } else {
                    bot.operator.clone()
                },
                bot.category.as_str().to_owned(),
                bot.tokens.join(","),
                (listed.patterns.len() + listed.regexes.len()).to_string(),
                listed.imported_regexes.len().to_string(),
                listed.examples.len().to_string(),
            ]);
        }
        let mut widths = [0usize; 7];
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let mut table = String::new();
        for row in &rows {
            let mut line = String::new();
            for (column, (cell, width)) in row.iter().zip(widths).enumerate() {
                if column > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
            }
            table.push_str(line.trim_end());
            table.push('\n');
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use crate::Catalog;

    #[test]
    fn imported_patterns_are_listed_apart() {
        let mut catalog = Catalog::empty();
        catalog
            .extend_from_bytes(
                br#"{"bots": [{"name": "Zed", "category": "seo", "tokens": ["zed"],
                     "patterns": ["Zed/"], "regexes": ["^Zed-[0-9]"], "examples": ["Zed/1"]}]}"#,
                "own.json",
            )
            .unwrap();
        catalog
            .extend_from_bytes(
                br#"[{"pattern": "[zZ]ed\\b", "instances": ["Zed 2"]}, {"pattern": "Fetchit", "instances": ["Fetchit/1"]}]"#,
                "list.json",
            )
            .unwrap();
        let json: serde_json::Value = serde_json::from_str(&catalog.render_json()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"bots": [
                {"name": "Zed", "tokens": ["zed"], "operator": "", "category": "seo",
                 "patterns": ["Zed/"], "regexes": ["^Zed-[0-9]"],
                 "imported_regexes": ["[zZ]ed\\b"], "examples": ["Zed/1"]},
                {"name": "Fetchit", "tokens": ["fetchit"], "operator": "", "category": "other",
                 "patterns": [], "regexes": [], "imported_regexes": ["Fetchit"], "examples": []}
            ]})
        );
        assert_eq!(
            catalog.render_table(),
            "name     operator  category  tokens   patterns  imported  examples\n\
             Zed      -         seo       zed      2         1         1\n\
             Fetchit  -         other     fetchit  0         1         0\n"
        );
    }

    #[test]
    fn documented_policy_is_listed_and_loads_back() {
        let entry = br#"{"bots": [{"name": "Zed", "operator": "Zed Inc", "category": "search",
             "tokens": ["zed"], "patterns": ["Zed/"],
             "robots": "ignores_global", "robots_source": "https://zed.example/bot",
             "dns_suffixes": ["crawl.zed.example"], "dns_source": "https://zed.example/dns",
             "ranges": [], "honours_crawl_delay": true,
             "crawl_delay_source": "https://zed.example/delay"}]}"#;
        let mut catalog = Catalog::empty();
        catalog.extend_from_bytes(entry, "own.json").unwrap();
        let json: serde_json::Value = serde_json::from_str(&catalog.render_json()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"bots": [
                {"name": "Zed", "tokens": ["zed"], "operator": "Zed Inc", "category": "search",
                 "robots": "ignores_global", "robots_source": "https://zed.example/bot",
                 "dns_suffixes": ["crawl.zed.example"], "dns_source": "https://zed.example/dns",
                 "ranges": [], "honours_crawl_delay": true,
                 "crawl_delay_source": "https://zed.example/delay",
                 "patterns": ["Zed/"], "regexes": [], "examples": []}
            ]})
        );
        let mut reloaded = Catalog::empty();
        reloaded
            .extend_from_bytes(catalog.render_json().as_bytes(), "listing")
            .unwrap();
        assert_eq!(reloaded.bots(), catalog.bots());
    }
}
