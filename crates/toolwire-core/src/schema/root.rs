//! The rewrites every target gets at the root: tool parameters are one object schema. A root
//! union of object schemas is merged into one object, a root without `type` becomes an object,
//! and a root that cannot be an object is refused. For Anthropic a root `allOf` is merged too
//! (QUIRKS 25: a top-level `oneOf/anyOf/allOf` in `input_schema` rejects the request).

use serde_json::Value;

use super::merge::{describe, flatten_union, merge_all_of, ObjectUnion};
use super::node::{child, short, show, Node, Obj, Val};
use super::report::Report;
use crate::error::{Error, ErrorCode, Result};

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

/// The root made one object schema; `merge_all_of` also merges a root `allOf` (Anthropic).
pub(crate) fn fix_root(root: Node, merge_root_all_of: bool, report: &mut Report) -> Result<Obj> {
    let mut obj = match root {
        Node::Bool(true) => Obj::empty("".into()),
        Node::Bool(false) => {
            return Err(invalid(
                "the root schema is false (it accepts nothing); tool parameters must be an object schema"
                    .to_owned(),
            ))
        }
        Node::Obj(obj) => obj,
    };
    if merge_root_all_of && obj.has("allOf") {
        merge_all_of(&mut obj, report).map_err(|refusal| {
            invalid(format!(
                "the root allOf has a part at {} that is not an object schema ({}); the root must be one object",
                show(&refusal.at),
                refusal.what
            ))
        })?;
    }
    for key in ["anyOf", "oneOf"] {
        merge_root_union(&mut obj, key, report)?;
    }
    fix_type(&mut obj, report)?;
    Ok(obj)
}

/// Merges a root `anyOf`/`oneOf` whose variants are all object schemas into the root.
fn merge_root_union(obj: &mut Obj, key: &str, report: &mut Report) -> Result<()> {
    let Some(word) = obj.words.shift_remove(key) else {
        return Ok(());
    };
    let at = child(&word.at, key);
    let Val::List(variants) = word.val else {
        return Err(invalid(format!(
            "the root {key} at {at} is not a list of schemas"
        )));
    };
    let mut union = ObjectUnion::default();
    for variant in flatten_union(variants) {
        match variant {
            Node::Bool(false) => {}
            Node::Bool(true) => union.add(None),
            Node::Obj(v) => match v.data("type") {
                None => union.add(Some(v)),
                Some(Value::String(t)) if t == "object" => union.add(Some(v)),
                Some(_) => {
                    let what = describe(&Node::Obj(v.clone()));
                    return Err(invalid(format!(
                        "the root {key} has a variant at {} that is not an object schema ({what}); the root must be one object",
                        show(&v.at)
                    )));
                }
            },
        }
    }
    if union.variants() == 0 {
        return Err(invalid(format!(
            "the root {key} at {at} has no variant that accepts anything; the root must be one object"
        )));
    }
    let count = union.variants();
    union.merge_into(obj);
    report.removed_at(obj.at.to_string(), key);
    report.warn(format!(
        "{at}: the root {key} of {count} object schemas is merged into one object; their properties are accepted together and only those required by every variant stay required"
    ));
    Ok(())
}

/// Gives the root `type: "object"` (and `properties: {}` when it has none) or refuses a root
/// that is another type.
fn fix_type(obj: &mut Obj, report: &mut Report) -> Result<()> {
    match obj.data("type") {
        Some(Value::String(t)) if t == "object" => {}
        Some(Value::Array(types)) if types.iter().any(|t| t == "object") => {
            report.warn(format!(
                "{}: the root type {} is narrowed to \"object\"",
                child(&obj.at, "type"),
                short(&Value::Array(types.clone()))
            ));
            obj.set("type", Val::Data(Value::String("object".to_owned())));
        }
        Some(other) => {
            return Err(invalid(format!(
                "the root schema has type {}; tool parameters must be an object schema",
                short(other)
            )))
        }
        None => {
            obj.set("type", Val::Data(Value::String("object".to_owned())));
            if !obj.has("properties") {
                obj.set("properties", Val::Map(Default::default()));
            }
        }
    }
    if let Some(c) = obj.data("const").filter(|c| !c.is_object()) {
        return Err(invalid(format!(
            "the root schema is const {}; tool parameters must be an object schema",
            short(c)
        )));
    }
    if let Some(Value::Array(values)) = obj.data("enum") {
        if !values.iter().any(Value::is_object) {
            return Err(invalid(format!(
                "the root schema is enum {} with no object; tool parameters must be an object schema",
                short(&Value::Array(values.clone()))
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::refs::inline;
    use crate::schema::report::Outcome;
    use serde_json::json;

    fn fix(schema: Value, all_of: bool) -> Result<Outcome> {
        let mut report = Report::default();
        let node = inline(&schema, &Default::default(), &mut report)?;
        let obj = fix_root(node, all_of, &mut report)?;
        let (removed, warnings) = report.finish(&schema);
        Ok((
            obj.to_value(),
            removed.into_iter().map(|r| (r.path, r.keyword)).collect(),
            warnings,
        ))
    }

    #[test]
    fn roots_become_objects() {
        let cases = [
            (json!({}), json!({"type": "object", "properties": {}})),
            (json!(true), json!({"type": "object", "properties": {}})),
            (
                json!({"properties": {"a": {}}}),
                json!({"type": "object", "properties": {"a": {}}}),
            ),
            (json!({"type": "object"}), json!({"type": "object"})),
            (
                json!({"type": ["object", "null"], "properties": {}}),
                json!({"type": "object", "properties": {}}),
            ),
        ];
        for (input, expected) in cases {
            let (output, removed, _) = fix(input.clone(), false).unwrap();
            assert_eq!(output, expected, "{input}");
            assert!(removed.is_empty(), "{input}: {removed:?}");
        }
    }

    #[test]
    fn a_root_union_of_objects_is_merged() {
        let schema = json!({
            "anyOf": [
                {"type": "object", "properties": {
                    "kind": {"type": "string", "const": "circle"},
                    "radius": {"type": "number"},
                    "label": {"type": "string"}
                }, "required": ["kind", "radius", "label"]},
                {"$ref": "#/$defs/Square"}
            ],
            "$defs": {"Square": {"type": "object", "properties": {
                "kind": {"type": "string", "enum": ["square"]},
                "side": {"type": "number"},
                "label": {"type": "integer"}
            }, "required": ["kind", "side"]}}
        });
        let (output, removed, warnings) = fix(schema, false).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "properties": {
                "kind": {"type": "string", "enum": ["circle", "square"]},
                "radius": {"type": "number"},
                "side": {"type": "number"},
                "label": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
            }, "required": ["kind"]})
        );
        assert_eq!(
            removed,
            [
                ("".to_owned(), "anyOf".to_owned()),
                ("/$defs".to_owned(), "$defs".to_owned())
            ]
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("/anyOf: the root anyOf of 2")),
            "{warnings:?}"
        );
    }

    #[test]
    fn nested_root_unions_and_one_of_merge_too() {
        let schema = json!({"oneOf": [
            {"anyOf": [{"properties": {"a": {}}, "required": ["a", "c"]}, {"properties": {"b": {}}, "required": ["c"]}]},
            {"properties": {"c": {}}, "required": ["c"]}
        ]});
        let (output, removed, _) = fix(schema, false).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "required": ["c"]})
        );
        assert_eq!(removed, [("".to_owned(), "oneOf".to_owned())]);
    }

    #[test]
    fn anthropic_merges_a_root_all_of() {
        let schema = json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]});
        let (output, _, _) = fix(schema.clone(), true).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
        );
        let (kept, _, _) = fix(schema, false).unwrap();
        assert!(kept.get("allOf").is_some());
    }

    #[test]
    fn roots_that_cannot_be_objects_are_refused() {
        let cases = [
            (
                json!({"type": "string"}),
                false,
                "the root schema has type \"string\"",
            ),
            (json!(false), false, "the root schema is false"),
            (
                json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
                false,
                "variant at /anyOf/1 that is not an object schema (type \"null\")",
            ),
            (
                json!({"allOf": [{"type": "object"}, {"type": "string"}]}),
                true,
                "the root allOf has a part at /allOf/1",
            ),
            (json!({"const": 3}), false, "the root schema is const 3"),
            (json!({"enum": ["a"]}), false, "enum [\"a\"] with no object"),
            (
                json!({"anyOf": [false]}),
                false,
                "no variant that accepts anything",
            ),
        ];
        for (schema, all_of, fragment) in cases {
            let err = fix(schema.clone(), all_of).unwrap_err();
            assert_eq!(err.code, ErrorCode::ValidationError, "{schema}");
            assert!(err.message.contains(fragment), "{schema}: {}", err.message);
        }
    }
}
