//! What a normalization tells its caller: the keywords it dropped and what changed meaning.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use super::node::child;

/// A keyword dropped from the schema.
///
/// `path` is a JSON pointer into the input schema (RFC 6901): for a dropped keyword, the
/// pointer of the keyword itself (`/properties/a/maxLength`; inside an inlined definition, the
/// place in the definition, `/$defs/Foo/minLength`); for a dropped `required` entry, the entry
/// (`/required/2`); for a union merged into the root object, the root (`""`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Removed {
    /// Where it was in the input schema.
    pub path: String,
    /// The keyword.
    pub keyword: String,
}

/// A schema rewritten for one target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Normalized {
    /// The schema to send.
    pub schema: Value,
    /// The keywords dropped, without duplicates, in the order of the input document.
    pub removed: Vec<Removed>,
    /// What changed meaning, one sentence each, naming the pointer.
    pub warnings: Vec<String>,
}

/// What the unit tests of a pass look at: the output, the removed `(path, keyword)` pairs and
/// the warnings.
#[cfg(test)]
pub(crate) type Outcome = (Value, Vec<(String, String)>, Vec<String>);

/// Collects the dropped keywords and the warnings of one normalization.
#[derive(Default)]
pub(crate) struct Report {
    removed: Vec<Removed>,
    seen: HashSet<Removed>,
    warnings: Vec<String>,
    said: HashSet<String>,
}

impl Report {
    /// Records a dropped keyword at exactly `path`.
    pub(crate) fn removed_at(&mut self, path: impl Into<String>, keyword: &str) {
        let entry = Removed {
            path: path.into(),
            keyword: keyword.to_owned(),
        };
        if self.seen.insert(entry.clone()) {
            self.removed.push(entry);
        }
    }

    /// Records keyword `name` of the input schema object at `at` as dropped.
    pub(crate) fn dropped(&mut self, at: &str, name: &str) {
        self.removed_at(child(at, name), name);
    }

    /// Records a warning (once).
    pub(crate) fn warn(&mut self, text: String) {
        if self.said.insert(text.clone()) {
            self.warnings.push(text);
        }
    }

    /// The warnings so far.
    #[cfg(test)]
    pub(crate) fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The removed entries in the order of `input` (the document they point into) and the
    /// warnings in the order they were said.
    pub(crate) fn finish(self, input: &Value) -> (Vec<Removed>, Vec<String>) {
        let mut keyed: Vec<(Vec<Step>, Removed)> = self
            .removed
            .into_iter()
            .map(|entry| (document_position(input, &entry.path), entry))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        (keyed.into_iter().map(|(_, e)| e).collect(), self.warnings)
    }
}

/// One step of a pointer, ordered as the document iterates it: array items and object members
/// by position (serde_json keeps members in their order), a step past the document by name.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Index(usize),
    Key(String),
}

/// The position of `pointer` in `doc`, comparable in document (pre-)order.
fn document_position(doc: &Value, pointer: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut here = Some(doc);
    for raw in pointer.split('/').skip(1) {
        let token = crate::pointer::unescape(raw).into_owned();
        here = match here {
            Some(Value::Array(items)) => match token.parse::<usize>() {
                Ok(i) => {
                    steps.push(Step::Index(i));
                    items.get(i)
                }
                Err(_) => {
                    steps.push(Step::Key(token));
                    None
                }
            },
            Some(Value::Object(map)) => match map.iter().position(|(key, _)| *key == token) {
                Some(i) => {
                    steps.push(Step::Index(i));
                    map.get(&token)
                }
                None => {
                    steps.push(Step::Key(token));
                    None
                }
            },
            _ => {
                steps.push(Step::Key(token));
                None
            }
        };
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn removed_is_deduplicated_and_in_document_order() {
        let doc = json!({
            "required": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"],
            "properties": {"b": {"maxLength": 1}, "a": {"minLength": 1}},
            "$defs": {"X": {"pattern": "x"}}
        });
        let mut report = Report::default();
        report.removed_at("/required/10", "required");
        report.dropped("/properties/b", "maxLength");
        report.removed_at("/required/2", "required");
        report.dropped("/$defs/X", "pattern");
        report.dropped("/properties/a", "minLength");
        report.dropped("/properties/b", "maxLength");
        report.removed_at("", "anyOf");
        let (removed, _) = report.finish(&doc);
        let paths: Vec<&str> = removed.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "",
                "/required/2",
                "/required/10",
                "/properties/b/maxLength",
                "/properties/a/minLength",
                "/$defs/X/pattern",
            ]
        );
    }

    #[test]
    fn warnings_are_said_once() {
        let mut report = Report::default();
        report.warn("x".into());
        report.warn("x".into());
        report.warn("y".into());
        assert_eq!(report.finish(&json!({})).1, ["x", "y"]);
    }
}
