//! Secrets scrubbed from the strings of a JSON value (details, data, arguments in events).

use std::collections::BTreeMap;

use serde_json::Value;

use super::secrets::SecretScanner;

/// Replaces the secrets in every string of `value`, counting them per kind; returns whether
/// anything changed. Object keys are left alone.
pub fn scrub_value(
    value: &mut Value,
    scanner: &SecretScanner,
    scrubbed: &mut BTreeMap<String, u64>,
) -> bool {
    match value {
        Value::String(text) => {
            let replaced = match scanner.scrub(text, scrubbed) {
                std::borrow::Cow::Borrowed(_) => None,
                std::borrow::Cow::Owned(replaced) => Some(replaced),
            };
            match replaced {
                Some(replaced) => {
                    *text = replaced;
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            scrub_value(item, scanner, scrubbed) | changed
        }),
        Value::Object(map) => map.values_mut().fold(false, |changed, item| {
            scrub_value(item, scanner, scrubbed) | changed
        }),
        _ => false,
    }
}

/// Whether any string of `value` holds a secret (nothing is built).
pub fn has_secret(value: &Value, scanner: &SecretScanner) -> bool {
    match value {
        Value::String(text) => !scanner.find(text).is_empty(),
        Value::Array(items) => items.iter().any(|item| has_secret(item, scanner)),
        Value::Object(map) => map.values().any(|item| has_secret(item, scanner)),
        _ => false,
    }
}
