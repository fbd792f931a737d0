//! The size and depth limits of a normalization, and the walk over the schema objects of a
//! JSON document that checks the depth.

use std::io;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::node::{child, input_children, show};
use crate::error::{Error, ErrorCode, Result};

/// An `io::Write` that only counts, and fails once past its cap.
struct Counter {
    written: usize,
    cap: usize,
}

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written = self.written.saturating_add(buf.len());
        if self.written > self.cap {
            Err(io::Error::other("over the cap"))
        } else {
            Ok(buf.len())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `value` as compact JSON text, or `None` when it is longer than `cap` (the
/// count stops there, so the cost is at most `cap`).
pub(crate) fn json_len(value: &Value, cap: usize) -> Option<usize> {
    let mut counter = Counter { written: 0, cap };
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.written)
}

/// `LIMIT_EXCEEDED` unless `value` (`what`) is at most `max_bytes` of JSON text.
pub(crate) fn check_size(value: &Value, max_bytes: usize, what: &str) -> Result<()> {
    match json_len(value, max_bytes) {
        Some(_) => Ok(()),
        None => Err(Error::caller(
            ErrorCode::LimitExceeded,
            format!("{what} is larger than maxBytes {max_bytes} bytes of JSON text"),
        )),
    }
}

/// A schema object met by [`walk_schemas`].
pub(crate) struct Visit<'v, 'p> {
    /// Its pointer.
    pub at: &'p str,
    /// The pointer of the schema resource it belongs to (the nearest object with a `$id`).
    pub base: &'p str,
    /// Its members.
    pub map: &'v Map<String, Value>,
}

/// Visits every schema object of `doc` (the root and the subschemas under schema keywords), in
/// document order, without recursion. `LIMIT_EXCEEDED` naming the pointer when one is nested
/// deeper than `max_depth` (the root is level 1); `what` names the document in that message.
pub(crate) fn walk_schemas(
    doc: &Value,
    max_depth: usize,
    what: &str,
    mut visit: impl FnMut(Visit<'_, '_>) -> Result<()>,
) -> Result<()> {
    let root: Rc<str> = Rc::from("");
    let mut stack: Vec<(&Value, String, Rc<str>, usize)> = vec![(doc, String::new(), root, 1)];
    while let Some((value, at, base, depth)) = stack.pop() {
        if depth > max_depth {
            return Err(Error::caller(
                ErrorCode::LimitExceeded,
                format!(
                    "{what} nests schemas deeper than maxDepth {max_depth} at {}",
                    show(&at)
                ),
            ));
        }
        let Value::Object(map) = value else { continue };
        let base = match map.get("$id").and_then(Value::as_str) {
            Some(id) if !at.is_empty() && !id.starts_with('#') => Rc::from(at.as_str()),
            _ => base,
        };
        visit(Visit {
            at: &at,
            base: &base,
            map,
        })?;
        let children = input_children(map);
        for (name, token, sub) in children.into_iter().rev() {
            let mut sub_at = child(&at, name);
            if let Some(token) = token {
                sub_at = child(&sub_at, &token);
            }
            stack.push((sub, sub_at, base.clone(), depth + 1));
        }
    }
    Ok(())
}

/// The depth of the deepest schema object of `doc` (for tests).
#[cfg(test)]
pub(crate) fn schema_depth(doc: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(doc, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if let Value::Object(map) = value {
            for (_, _, sub) in input_children(map) {
                stack.push((sub, depth + 1));
            }
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_len_counts_and_stops_at_the_cap() {
        let value = json!({"a": [1, 2, 3]});
        assert_eq!(json_len(&value, 100), Some(value.to_string().len()));
        assert_eq!(json_len(&value, 5), None);
        assert!(check_size(&value, 5, "the schema")
            .unwrap_err()
            .message
            .contains("maxBytes 5"));
    }

    #[test]
    fn the_walk_is_in_document_order_and_checks_depth() {
        let doc = json!({
            "properties": {"b": {"items": {"type": "string"}}, "a": {}},
            "anyOf": [{"not": {}}],
            "enum": [{"properties": {"x": {}}}]
        });
        let mut seen = Vec::new();
        walk_schemas(&doc, 8, "the schema", |v| {
            seen.push(v.at.to_owned());
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                "",
                "/properties/b",
                "/properties/b/items",
                "/properties/a",
                "/anyOf/0",
                "/anyOf/0/not"
            ]
        );
        assert_eq!(schema_depth(&doc), 3);
        let err = walk_schemas(&doc, 2, "the schema", |_| Ok(())).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(
            err.message.contains("maxDepth 2 at /properties/b/items"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_embedded_id_starts_a_resource() {
        let doc = json!({"$id": "urn:root", "properties": {"a": {"$id": "urn:a", "items": {}}}});
        let mut bases = Vec::new();
        walk_schemas(&doc, 8, "the schema", |v| {
            bases.push((v.at.to_owned(), v.base.to_owned()));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            bases,
            [
                ("".to_owned(), "".to_owned()),
                ("/properties/a".to_owned(), "/properties/a".to_owned()),
                ("/properties/a/items".to_owned(), "/properties/a".to_owned()),
            ]
        );
    }
}
