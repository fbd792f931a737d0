//! Secrets scrubbed from a JSON value: every string and every object key, at any depth. This is
//! the one walker every value that leaves the engine goes through (a result's details, data and
//! error details, the arguments events and records show, partial results, audit records).
//!
//! A string is searched with its context before it: the key it is under (`Authorization: Bearer
//! t` for `{"Authorization": "Bearer t"}`, also for the items of an array under that key) and
//! the string just before it in its array or object (`Authorization, Bearer t` for Node's
//! `["Authorization", "Bearer t"]`, `Authorization, value: Bearer t` for HAR's `{"name":
//! "Authorization", "value": "Bearer t"}`), so a secret that its surroundings make recognizable
//! in JSON text is recognized in the value as well; only the string's part is replaced. Linear in
//! the value: each string is searched once (with at most 128 bytes of key and of sibling before
//! it), each key once.

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
    walker.value(value, Place::default())
}

/// Whether any string or object key of `value` holds a secret (nothing is built).
pub fn has_secret(value: &Value, scanner: &SecretScanner) -> bool {
    let mut context = String::new();
    holds_secret(value, Place::default(), scanner, &mut context)
}

/// The separator between a key and its string value in the text a value is searched in.
const KEY_SEPARATOR: &str = ": ";

/// The separator after the string before a value (its previous sibling) in that text.
const SIBLING_SEPARATOR: &str = ", ";

/// How much of a key or of the string before a value is context: more than any header name, and
/// bounded, so a long key over many items costs nothing per item.
const MAX_CONTEXT_BYTES: usize = 128;

/// Where a string sits in its value: the key it is under (an array's items are under the
/// array's key: `{"Authorization": ["Bearer t"]}`) and the string just before it in its array
/// or object (`["Authorization", "Bearer t"]`, `{"name": "Authorization", "value": "Bearer
/// t"}`).
#[derive(Clone, Copy, Default)]
struct Place<'v> {
    key: Option<&'v str>,
    before: Option<&'v str>,
    /// The key is the array's (it comes before the sibling: `key: before, text`), not the
    /// string's own (`before, key: text`).
    inherited: bool,
}

/// The last at most [`MAX_CONTEXT_BYTES`] of `text`, on a char boundary.
fn context_tail(text: &str) -> &str {
    let mut start = text.len().saturating_sub(MAX_CONTEXT_BYTES);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Fills `context` with `before, key: text` (the parts `place` has) and returns where `text`
/// starts in it.
fn in_context(context: &mut String, place: Place<'_>, text: &str) -> usize {
    context.clear();
    let key = |context: &mut String| {
        if let Some(key) = place.key {
            context.push_str(context_tail(key));
            context.push_str(KEY_SEPARATOR);
        }
    };
    if place.inherited {
        key(context);
    }
    if let Some(before) = place.before {
        context.push_str(context_tail(before));
        context.push_str(SIBLING_SEPARATOR);
    }
    if !place.inherited {
        key(context);
    }
    let from = context.len();
    context.push_str(text);
    from
}

/// Fills `context` with `key: text` and returns where `text` starts in it.
fn with_key(context: &mut String, key: &str, text: &str) -> usize {
    let place = Place {
        key: Some(key),
        ..Place::default()
    };
    in_context(context, place, text)
}

/// The keys under which an object names the header its `value` holds (HAR, Postman, header
/// lists written by hand).
const HEADER_NAME_KEYS: [&str; 3] = ["name", "key", "header"];

/// The header an object names (the string under `name`, `key` or `header`), which is the
/// context of its `value` wherever the two stand: `{"value": "Bearer t", "name":
/// "Authorization"}` is read as `Authorization, value: Bearer t` (the attack review's 15).
fn named_header(map: &Map<String, Value>) -> Option<&str> {
    map.iter()
        .find(|(key, item)| {
            item.is_string()
                && HEADER_NAME_KEYS
                    .iter()
                    .any(|name| key.eq_ignore_ascii_case(name))
        })
        .and_then(|(_, item)| item.as_str())
}

/// The string before the entry under `key`: the header its object names when `key` is `value`,
/// else its previous sibling.
fn before_entry<'v>(
    key: &str,
    header: Option<&'v str>,
    sibling: Option<&'v str>,
) -> Option<&'v str> {
    match header {
        Some(header) if key.eq_ignore_ascii_case("value") => Some(header),
        _ => sibling,
    }
}

/// The string value of `value`, if it is one (the context of the value after it).
fn as_before(value: &Value) -> Option<&str> {
    value.as_str()
}

fn holds_secret(
    value: &Value,
    place: Place<'_>,
    scanner: &SecretScanner,
    context: &mut String,
) -> bool {
    match value {
        Value::String(text) => {
            let from = in_context(context, place, text);
            scanner.has_secret_from(context, from)
        }
        Value::Array(items) => {
            let mut before = None;
            items.iter().any(|item| {
                let place = Place {
                    key: place.key,
                    before,
                    inherited: true,
                };
                before = as_before(item);
                holds_secret(item, place, scanner, context)
            })
        }
        Value::Object(map) => {
            let mut before = None;
            let header = named_header(map);
            map.iter().any(|(key, item)| {
                let place = Place {
                    key: Some(key),
                    before: before_entry(key, header, before),
                    inherited: false,
                };
                before = as_before(item);
                !scanner.find(key).is_empty() || holds_secret(item, place, scanner, context)
            })
        }
        _ => false,
    }
}

/// One walk: the scanner, the counts, and a buffer reused for `before, key: text`.
struct Walker<'a> {
    scanner: &'a SecretScanner,
    counts: &'a mut BTreeMap<String, u64>,
    context: String,
}

impl Walker<'_> {
    fn value(&mut self, value: &mut Value, place: Place<'_>) -> bool {
        match value {
            Value::String(text) => {
                let from = in_context(&mut self.context, place, text);
                match self.scanner.scrub_from(&self.context, from, self.counts) {
                    Some(replaced) => {
                        *text = replaced;
                        true
                    }
                    None => false,
                }
            }
            Value::Array(items) => {
                let mut changed = false;
                let mut before: Option<String> = None;
                for item in items.iter_mut() {
                    let next = as_before(item).map(|text| context_tail(text).to_owned());
                    let place = Place {
                        key: place.key,
                        before: before.as_deref(),
                        inherited: true,
                    };
                    changed |= self.value(item, place);
                    before = next;
                }
                changed
            }
            Value::Object(map) => self.object(map),
            _ => false,
        }
    }

    fn object(&mut self, map: &mut Map<String, Value>) -> bool {
        let mut changed = false;
        let mut before: Option<String> = None;
        let header = named_header(map).map(|text| context_tail(text).to_owned());
        for (key, item) in map.iter_mut() {
            let next = as_before(item).map(|text| context_tail(text).to_owned());
            let place = Place {
                key: Some(key),
                before: before_entry(key, header.as_deref(), before.as_deref()),
                inherited: false,
            };
            changed |= self.value(item, place);
            before = next;
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
            // Without the key, a Bearer token is one by its scheme word (the user review's 9).
            (
                json!(["Bearer abcdefgh12345678"]),
                json!(["Bearer [redacted:bearer-token]"]),
            ),
            (
                json!({"author": "Jane Bearer"}),
                json!({"author": "Jane Bearer"}),
            ),
            // Header shapes whose name is not the value's own key: Go's http.Header
            // (`{"Authorization": ["Bearer t"]}`), Node's rawHeaders, HAR and Postman entries.
            (
                json!({"header": {"Authorization": ["Bearer abcdefgh12345678"]}}),
                json!({"header": {"Authorization": ["Bearer [redacted:bearer-token]"]}}),
            ),
            (
                json!({"rawHeaders": ["Host", "x", "Authorization", "Bearer abcdefgh12345678"]}),
                json!({"rawHeaders": ["Host", "x", "Authorization", "Bearer [redacted:bearer-token]"]}),
            ),
            (
                json!({"headers": [{"name": "X-Api-Key", "value": "abcdefgh12345678"}]}),
                json!({"headers": [{"name": "X-Api-Key", "value": "[redacted:credential-header]"}]}),
            ),
            (
                json!([{"key": "Cookie", "value": "sid=abcdefgh12345678", "type": "text"}]),
                json!([{"key": "Cookie", "value": "[redacted:credential-header]", "type": "text"}]),
            ),
            // The attack review's 15: `value` before `name` (HAR exports, headers written by
            // hand), and a field between them; the name under `name`, `key` or `header`.
            (
                json!([{"value": "Bearer abcdefgh12345678", "name": "Authorization"}]),
                json!([{"value": "Bearer [redacted:bearer-token]", "name": "Authorization"}]),
            ),
            (
                json!({"value": "sid=0123456789abcdef", "type": "text", "key": "Cookie"}),
                json!({"value": "[redacted:credential-header]", "type": "text", "key": "Cookie"}),
            ),
            (
                json!({"Value": "abcdefgh12345678", "x": 1, "Header": "X-Api-Key"}),
                json!({"Value": "[redacted:credential-header]", "x": 1, "Header": "X-Api-Key"}),
            ),
            // Another field than `value` is not the header's.
            (
                json!({"comment": "abcdefgh12345678", "name": "X-Api-Key"}),
                json!({"comment": "abcdefgh12345678", "name": "X-Api-Key"}),
            ),
            // Only the string just before is context: a header two entries back is not.
            (
                json!(["X-Api-Key", "x", "abcdefgh12345678"]),
                json!(["X-Api-Key", "x", "abcdefgh12345678"]),
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
