//! Secrets scrubbed from a JSON value: every string and every object key, at any depth. This is
//! the one walker every value that leaves the engine goes through (a result's details, data and
//! error details, the arguments events and records show, partial results, audit records).
//!
//! A string under a key is searched with its key before it (`Authorization: Bearer t` for
//! `{"Authorization": "Bearer t"}`), so a secret that its key makes recognizable in JSON text is
//! recognized in the value as well; only the string's part is replaced. Linear in the value: each
//! string is searched once (with its key), each key once.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::secrets::SecretScanner;

/// Replaces the secrets in every string and object key of `value`, counting them per kind;
/// returns whether anything changed. A key that becomes equal to another key of its object gets
/// a ` #2`, ` #3`, ... suffix, so no entry is lost.
pub fn scrub_value(
    value: &mut Value,
    scanner: &SecretScanner,
    scrubbed: &mut BTreeMap<String, u64>,
) -> bool {
    let mut walker = Walker {
        scanner,
        counts: scrubbed,
        context: String::new(),
    };
    walker.value(value, None)
}

/// Whether any string or object key of `value` holds a secret (nothing is built).
pub fn has_secret(value: &Value, scanner: &SecretScanner) -> bool {
    let mut context = String::new();
    holds_secret(value, None, scanner, &mut context)
}

/// The separator between a key and its string value in the text a value is searched in.
const KEY_SEPARATOR: &str = ": ";

/// Fills `context` with `key: text` and returns where `text` starts in it.
fn with_key(context: &mut String, key: &str, text: &str) -> usize {
    context.clear();
    context.push_str(key);
    context.push_str(KEY_SEPARATOR);
    let from = context.len();
    context.push_str(text);
    from
}

fn holds_secret(
    value: &Value,
    key: Option<&str>,
    scanner: &SecretScanner,
    context: &mut String,
) -> bool {
    match value {
        Value::String(text) => match key {
            Some(key) => {
                let from = with_key(context, key, text);
                scanner.has_secret_from(context, from)
            }
            None => !scanner.find(text).is_empty(),
        },
        Value::Array(items) => items
            .iter()
            .any(|item| holds_secret(item, None, scanner, context)),
        Value::Object(map) => map.iter().any(|(key, item)| {
            !scanner.find(key).is_empty() || holds_secret(item, Some(key), scanner, context)
        }),
        _ => false,
    }
}

/// One walk: the scanner, the counts, and a buffer reused for `key: text`.
struct Walker<'a> {
    scanner: &'a SecretScanner,
    counts: &'a mut BTreeMap<String, u64>,
    context: String,
}

impl Walker<'_> {
    fn value(&mut self, value: &mut Value, key: Option<&str>) -> bool {
        match value {
            Value::String(text) => {
                let replaced = match key {
                    Some(key) => {
                        let from = with_key(&mut self.context, key, text);
                        self.scanner.scrub_from(&self.context, from, self.counts)
                    }
                    None => self.scanner.scrub_from(text, 0, self.counts),
                };
                match replaced {
                    Some(replaced) => {
                        *text = replaced;
                        true
                    }
                    None => false,
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.value(item, None) | changed),
            Value::Object(map) => self.object(map),
            _ => false,
        }
    }

    fn object(&mut self, map: &mut Map<String, Value>) -> bool {
        let mut changed = false;
        for (key, item) in map.iter_mut() {
            changed |= self.value(item, Some(key));
        }
        scrub_keys(map, self.scanner, self.counts) | changed
    }
}

/// Replaces the secrets in the keys of `map` (not of the values inside it), keeping the order
/// of its entries; returns whether a key changed. A key that becomes equal to another key gets a
/// ` #2`, ` #3`, ... suffix, so no entry is lost.
pub fn scrub_keys(
    map: &mut Map<String, Value>,
    scanner: &SecretScanner,
    counts: &mut BTreeMap<String, u64>,
) -> bool {
    if map.keys().all(|key| scanner.find(key).is_empty()) {
        return false;
    }
    let entries = std::mem::take(map);
    for (key, item) in entries {
        let key = scanner.scrub(&key, counts).into_owned();
        let key = if map.contains_key(&key) {
            (2..)
                .map(|n| format!("{key} #{n}"))
                .find(|candidate| !map.contains_key(candidate))
                .expect("a free suffix")
        } else {
            key
        };
        map.insert(key, item);
    }
    true
}

/// `text` with the secrets replaced that it holds as the value of `key` (`Bearer t` under
/// `Authorization`), or alone; `None` when it holds none.
pub fn scrub_keyed_text(
    key: &str,
    text: &str,
    scanner: &SecretScanner,
    counts: &mut BTreeMap<String, u64>,
) -> Option<String> {
    let mut context = String::new();
    let from = with_key(&mut context, key, text);
    scanner.scrub_from(&context, from, counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn github() -> String {
        format!("ghp_{}", "a1B2c3D4".repeat(5))
    }

    #[test]
    fn keys_and_strings_are_scrubbed_at_any_depth_keeping_order() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let token = github();
        let mut value = json!({
            "plain": 1,
            token.clone(): {"nested": [token.clone(), {token.clone(): true}]},
            "last": "x",
        });
        assert!(has_secret(&value, &scanner));
        let mut counts = BTreeMap::new();
        assert!(scrub_value(&mut value, &scanner, &mut counts));
        assert_eq!(
            value,
            json!({
                "plain": 1,
                "[redacted:github-token]": {"nested": ["[redacted:github-token]", {"[redacted:github-token]": true}]},
                "last": "x",
            })
        );
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["plain", "[redacted:github-token]", "last"]);
        assert_eq!(counts["github-token"], 3);
        assert!(!has_secret(&value, &scanner));
    }

    #[test]
    fn keys_that_scrub_alike_keep_every_entry() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let other = format!("ghp_{}", "Z9y8X7w6".repeat(5));
        let mut value = json!({ github(): 1, other: 2, "[redacted:github-token] #2": 3 });
        scrub_value(&mut value, &scanner, &mut BTreeMap::new());
        let map = value.as_object().unwrap();
        assert_eq!(map.len(), 3);
        assert_eq!(map["[redacted:github-token]"], 1);
        assert_eq!(map["[redacted:github-token] #2"], 2);
        assert_eq!(map["[redacted:github-token] #2 #2"], 3);
    }

    #[test]
    fn a_value_is_searched_with_its_key_and_only_the_value_changes() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let cases = [
            (
                json!({"Authorization": "Bearer abcdefgh12345678"}),
                json!({"Authorization": "Bearer [redacted:bearer-token]"}),
            ),
            (
                json!({"headers": {"proxy-authorization": "bearer abcdefgh12345678"}}),
                json!({"headers": {"proxy-authorization": "bearer [redacted:bearer-token]"}}),
            ),
            // Without the key, the same text is no secret.
            (
                json!(["Bearer abcdefgh12345678"]),
                json!(["Bearer abcdefgh12345678"]),
            ),
            (
                json!({"author": "Jane Bearer"}),
                json!({"author": "Jane Bearer"}),
            ),
        ];
        for (mut value, expected) in cases {
            let input = value.clone();
            assert_eq!(has_secret(&input, &scanner), input != expected, "{input}");
            scrub_value(&mut value, &scanner, &mut BTreeMap::new());
            assert_eq!(value, expected, "{input}");
        }
    }
}
