//! Property names and where they live in a schema: the canonical form two spellings of one name
//! share, the closest declared property to a wrong name, and the schema (and its `properties`)
//! found along a path of the arguments.

use serde_json::{Map, Value};

use crate::suggest::edit_distance;

/// Names longer than this (in chars) are only matched by canonical form, never by edit distance,
/// so a huge key costs linear time.
const MAX_FUZZY_NAME_CHARS: usize = 128;

/// The canonical form of a property name: lowercase ASCII with `_` and `-` removed, so
/// `filePath`, `file_path` and `FILE-PATH` all become `filepath`.
pub(crate) fn canonical_form(name: &str) -> String {
    name.chars()
        .filter(|&c| c != '_' && c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The schema a node stands for: the node itself or, when it is a local `$ref` to
/// `#/$defs/...` or `#/definitions/...` of `root`, its target. Followed one level only; a ref
/// that does not resolve leaves the node as it is.
pub(crate) fn resolve<'s>(root: &'s Value, node: &'s Value) -> &'s Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(target) if target.starts_with("#/$defs/") || target.starts_with("#/definitions/") => {
            root.pointer(&target[1..]).unwrap_or(node)
        }
        _ => node,
    }
}

/// The `properties` a schema node declares (after [`resolve`]), when it declares any.
pub(crate) fn properties<'s>(root: &'s Value, node: &'s Value) -> Option<&'s Map<String, Value>> {
    resolve(root, node).get("properties")?.as_object()
}

/// The schema of element `index` of an array whose schema is `node`: `items` when it is one
/// schema, the `index`th of `items` (or `prefixItems`) when it is a tuple.
pub(crate) fn item_schema<'s>(root: &'s Value, node: &'s Value, index: usize) -> Option<&'s Value> {
    let node = resolve(root, node);
    let prefix = node.get("prefixItems").and_then(Value::as_array);
    if let Some(item) = prefix.and_then(|tuple| tuple.get(index)) {
        return Some(item);
    }
    match node.get("items")? {
        Value::Array(tuple) => tuple.get(index),
        items @ (Value::Object(_) | Value::Bool(_)) => Some(items),
        _ => None,
    }
}

/// The declared property closest to `name`, for a "did you mean" hint: one with the same
/// canonical form first, else the one with the smallest case-insensitive edit distance, if that
/// distance is at most `max(2, chars/3)` and short of rewriting the whole name. Ties go to the
/// alphabetically first candidate.
pub(crate) fn closest_property<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let canonical = canonical_form(name);
    let lower = name.to_lowercase();
    let chars = lower.chars().count();
    let threshold = (chars / 3).max(2);
    let fuzzy = chars <= MAX_FUZZY_NAME_CHARS;
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let score = if canonical_form(candidate) == canonical {
            0
        } else if fuzzy {
            let candidate_lower = candidate.to_lowercase();
            let candidate_chars = candidate_lower.chars().count();
            if candidate_chars.abs_diff(chars) > threshold {
                continue;
            }
            let distance = edit_distance(&lower, &candidate_lower);
            if distance > threshold || distance >= chars.max(candidate_chars) {
                continue;
            }
            // Rank any edit-distance match after every canonical-form match.
            distance + 1
        } else {
            continue;
        };
        if best.is_none_or(|(best_score, best_name)| (score, candidate) < (best_score, best_name)) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The declared property closest to `unexpected`, a key of the object at `location` (the path
/// segments from the root of `instance`), among the properties the schema declares there that
/// the object does not already hold. `None` when the path leaves the schema's `properties` and
/// `items`, or when nothing is close.
pub(crate) fn suggest_property<'s>(
    schema: &'s Value,
    instance: &Value,
    location: &[String],
    unexpected: &str,
) -> Option<&'s str> {
    let mut node = schema;
    let mut value = instance;
    for segment in location {
        match value {
            Value::Object(map) => {
                node = properties(schema, node)?.get(segment)?;
                value = map.get(segment)?;
            }
            Value::Array(items) => {
                let index: usize = segment.parse().ok()?;
                node = item_schema(schema, node, index)?;
                value = items.get(index)?;
            }
            _ => return None,
        }
    }
    let present = value.as_object()?;
    let declared = properties(schema, node)?;
    closest_property(
        unexpected,
        declared
            .keys()
            .map(String::as_str)
            .filter(|name| !present.contains_key(*name)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_ignores_case_and_separators() {
        for (name, canonical) in [
            ("filePath", "filepath"),
            ("file_path", "filepath"),
            ("FILE-PATH", "filepath"),
            ("path", "path"),
            ("", ""),
            ("Ünï_x", "Ünïx"),
        ] {
            assert_eq!(canonical_form(name), canonical, "{name}");
        }
    }

    #[test]
    fn closest_property_ranks_canonical_matches_then_distance() {
        let names = ["path", "file_path", "content", "x", "y"];
        for (wanted, expected) in [
            ("filePath", Some("file_path")),
            ("FILE-PATH", Some("file_path")),
            ("pth", Some("path")),
            ("PATHS", Some("path")),
            ("contnet", Some("content")),
            ("z", None),
            ("zz", None),
            ("unrelated", None),
            (&"q".repeat(500), None),
        ] {
            assert_eq!(closest_property(wanted, names), expected, "{wanted}");
        }
    }

    #[test]
    fn local_refs_are_followed_one_level() {
        let schema = json!({
            "$defs": {"point": {"properties": {"x": {}}}, "alias": {"$ref": "#/$defs/point"}},
            "definitions": {"old": {"properties": {"y": {}}}}
        });
        let names = |node: &Value| -> Vec<String> {
            properties(&schema, node)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        };
        assert_eq!(names(&json!({"$ref": "#/$defs/point"})), ["x"]);
        assert_eq!(names(&json!({"$ref": "#/definitions/old"})), ["y"]);
        assert!(names(&json!({"$ref": "#/$defs/alias"})).is_empty());
        assert!(names(&json!({"$ref": "#/$defs/missing"})).is_empty());
        assert!(names(&json!({"$ref": "https://example.invalid/s"})).is_empty());
    }

    #[test]
    fn suggestions_follow_properties_and_items_and_skip_present_names() {
        let schema = json!({
            "properties": {
                "path": {},
                "file": {"properties": {"name": {}}},
                "list": {"items": {"$ref": "#/$defs/entry"}}
            },
            "$defs": {"entry": {"properties": {"label": {}}}}
        });
        let args = json!({"pth": 1, "file": {"nmae": 1}, "list": [{"lable": 1}]});
        let path = |segments: &[&str]| segments.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (location, unexpected, expected) in [
            (path(&[]), "pth", Some("path")),
            (path(&["file"]), "nmae", Some("name")),
            (path(&["list", "0"]), "lable", Some("label")),
            (path(&["list", "7"]), "lable", None),
            (path(&["missing"]), "x", None),
        ] {
            assert_eq!(
                suggest_property(&schema, &args, &location, unexpected),
                expected,
                "{location:?}"
            );
        }
        let with_path = json!({"path": "a", "pth": 1});
        assert_eq!(suggest_property(&schema, &with_path, &[], "pth"), None);
    }
}
