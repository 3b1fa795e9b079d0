//! Reading the public crawler-user-agents list (an array of `{"pattern", "instances", ...}`):
//! each `pattern` is a regular expression (the list's own tests search for it in each header,
//! as Python's `re.search` does; its syntax is the subset that regex-syntax shares), and the
//! bots are the products its matches fall in, read in its `instances` as written.
//!
//! Naming a bot after the pattern's text would name it after a fragment: the list's `arabot`
//! matches `Clarabot/1.4`, and its `psbot` matches `psbot-image` and `psbot/0.1` alike, so a
//! robots.txt group for the real product would no longer apply. The product of an instance is
//! therefore the product word the pattern's match falls in (`psbot-image`, `psbot`); where the
//! match falls in no product (inside a contact URL, as `msnbot` in
//! `+http://search.msn.com/msnbot.htm`), the instance names no product for this pattern.

use serde::Deserialize;
use serde_json::Value;

use crate::declared;
use crate::error::{LoadError, Position};
use crate::identify::{Pattern, Syntax, compile_pattern};
use crate::naming::{longest_word, name_around};

/// One entry of the list; its other fields (`url`, `description`, `tags`, ...) are not needed.
#[derive(Deserialize)]
struct Entry {
    pattern: String,
    #[serde(default)]
    instances: Vec<String>,
}

/// One pattern of the list and the products it names.
pub(crate) struct Imported {
    /// Compiled as imported (it finds where it matches).
    pub(crate) pattern: Pattern,
    /// Never empty. The first is the product the pattern belongs to: the one most of its
    /// instances show (the earliest on a tie); else the product the instances declare around a
    /// match that fell in no product; else the longest word of the pattern. The others are the
    /// further products its instances show.
    pub(crate) products: Vec<String>,
}

/// Reads the entries of a list; errors name `file` and the entry.
pub(crate) fn read(items: Vec<Value>, file: &str) -> Result<Vec<Imported>, LoadError> {
    let mut imported = Vec::with_capacity(items.len());
    for (position, item) in items.into_iter().enumerate() {
        let at = |message: String| LoadError::new(file, Some(Position::Entry(position)), message);
        let entry: Entry = serde_json::from_value(item).map_err(|error| at(error.to_string()))?;
        let pattern = compile_pattern(&entry.pattern, Syntax::Regex)
            .and_then(Pattern::into_imported)
            .map_err(|e| at(format!("pattern {:?}: {e}", entry.pattern)))?;
        let products = products(&entry.pattern, &pattern, &entry.instances);
        if products.is_empty() {
            return Err(at(format!(
                "pattern {:?}: no product name can be read from it or its instances",
                entry.pattern
            )));
        }
        imported.push(Imported { pattern, products });
    }
    Ok(imported)
}

/// The products `pattern` names (see [`Imported::products`]).
fn products(source: &str, pattern: &Pattern, instances: &[String]) -> Vec<String> {
    // (name, votes, first seen), for matches inside a product and for the others.
    let mut inside: Vec<(&str, usize)> = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    for instance in instances {
        let bytes = instance.as_bytes();
        let Some((start, end)) = pattern.locate(bytes) else {
            continue;
        };
        match name_around(bytes, start, end) {
            Some(name) => match inside
                .iter_mut()
                .find(|(seen, _)| seen.eq_ignore_ascii_case(name))
            {
                Some((_, votes)) => *votes += 1,
                None => inside.push((name, 1)),
            },
            None => declared.extend(declared::product_of(bytes)),
        }
    }
    // `max_by_key` keeps the last of equal maxima; reversing keeps the earliest.
    let owner = inside
        .iter()
        .rev()
        .max_by_key(|(_, votes)| *votes)
        .map(|(name, _)| (*name).to_owned())
        .or_else(|| declared.into_iter().next())
        .or_else(|| longest_word(source));
    let mut products: Vec<String> = owner.into_iter().collect();
    for (name, _) in inside {
        if !products.iter().any(|seen| seen.eq_ignore_ascii_case(name)) {
            products.push(name.to_owned());
        }
    }
    products
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_come_from_the_instances() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "Googlebot\\/",
                &["Googlebot/2.1 (+http://www.google.com/bot.html)"],
                &["Googlebot"],
            ),
            (
                "[wW]get",
                &[
                    "WGETbot/1.0 (+http://wget.alanreed.org)",
                    "Wget/1.14 (linux-gnu)",
                    "Wget/1.21",
                ],
                &["Wget", "WGETbot"],
            ),
            (
                "msnbot",
                &[
                    "adidxbot/1.1 (+http://search.msn.com/msnbot.htm)",
                    "msnbot/2.0b",
                    "msnbot-media/1.1",
                ],
                &["msnbot", "msnbot-media"],
            ),
            (
                "psbot",
                &[
                    "psbot-image (+http://www.picsearch.com/bot.html)",
                    "psbot-page (+http://www.picsearch.com/bot.html)",
                    "psbot/0.1 (+http://www.picsearch.com/bot.html)",
                ],
                &["psbot-image", "psbot-page", "psbot"],
            ),
            (
                "AdsBot-Google([^-]|$)",
                &["AdsBot-Google (+http://www.google.com/adsbot.html)"],
                &["AdsBot-Google"],
            ),
            (
                "Slurp",
                &[
                    "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
                ],
                &["Slurp"],
            ),
            // Only a URL matches: the product the instance declares.
            (
                "yandex\\.com\\/bots",
                &["Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)"],
                &["YandexBot"],
            ),
            // No instance: the pattern's own longest word.
            ("archive\\.org_bot", &[], &["archive.org_bot"]),
            ("arabot", &[], &["arabot"]),
            ("^Seekbot", &["nothing that matches"], &["Seekbot"]),
            (
                "008\\/",
                &["Mozilla/5.0 (compatible; 008/0.83; http://www.80legs.com/webcrawler.html)"],
                &["008"],
            ),
        ];
        for &(source, instances, expected) in cases {
            let pattern = compile_pattern(source, Syntax::Regex)
                .and_then(Pattern::into_imported)
                .unwrap();
            let instances: Vec<String> = instances.iter().map(|s| (*s).to_owned()).collect();
            assert_eq!(products(source, &pattern, &instances), expected, "{source}");
        }
    }

    #[test]
    fn a_pattern_naming_nothing_is_an_error() {
        let items = vec![serde_json::json!({"pattern": "\\d+\\.\\d+", "instances": []})];
        let error = read(items, "list.json").err().unwrap();
        assert_eq!(error.position, Some(Position::Entry(0)));
    }
}
