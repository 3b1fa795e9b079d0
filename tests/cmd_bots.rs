//! `robots-audit bots`: the catalog as a table, or as JSON entries with `--json`, after the same
//! `--bots` files an audit would load.

use crate::common::*;
use predicates::prelude::*;

#[test]
fn the_table_lists_every_bot_with_its_tokens() {
    let output = robots_audit()
        .arg("bots")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(output).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "name", "operator", "category", "tokens", "patterns", "imported", "examples"
        ]
    );
    let googlebot_image: Vec<&str> = table
        .lines()
        .find(|line| line.starts_with("Googlebot-Image "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        googlebot_image,
        [
            "Googlebot-Image",
            "Google",
            "search",
            "googlebot-image,googlebot",
            "1",
            "0",
            "1"
        ]
    );
    let json = robots_audit()
        .args(["bots", "--json"])
        .output()
        .unwrap()
        .stdout;
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(lines.count(), json["bots"].as_array().unwrap().len());
}

#[test]
fn json_entries_are_the_catalog_format_and_include_loaded_files() {
    let dir = tempfile::tempdir().unwrap();
    let extra = write(
        dir.path(),
        "extra.json",
        r#"{"bots": [{"name": "ZedBot", "operator": "Zed", "category": "seo", "tokens": ["zedbot"],
                     "patterns": ["ZedBot/"], "examples": ["ZedBot/1.0"]}]}"#,
    );
    let list = write(
        dir.path(),
        "list.json",
        r#"[{"pattern": "[Ff]etchit", "instances": ["Fetchit/2.1"]}]"#,
    );
    let output = robots_audit()
        .args(["bots", "--json", "--bots"])
        .arg(&extra)
        .arg("--bots")
        .arg(&list)
        .output()
        .unwrap();
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let bots = json["bots"].as_array().unwrap();
    let find = |name: &str| bots.iter().find(|bot| bot["name"] == name).unwrap().clone();
    assert_eq!(
        find("ZedBot"),
        serde_json::json!({"name": "ZedBot", "operator": "Zed", "category": "seo",
            "tokens": ["zedbot"], "patterns": ["ZedBot/"], "regexes": [], "examples": ["ZedBot/1.0"]})
    );
    assert_eq!(
        find("Fetchit")["imported_regexes"],
        serde_json::json!(["[Ff]etchit"])
    );
    assert_eq!(
        find("Googlebot-Image")["tokens"],
        serde_json::json!(["googlebot-image", "googlebot"])
    );
}

#[test]
fn a_bad_bots_file_is_fatal_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.json", "{");
    robots_audit()
        .args(["bots", "--bots"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.json"));
}
