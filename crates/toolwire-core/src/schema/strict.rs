//! The OpenAI strict form (WIRE.md §6): every object closed with `additionalProperties: false`
//! and every property required, an optional property made nullable instead; only the keywords
//! strict mode supports are kept; `oneOf` becomes `anyOf`, `allOf` is merged (or dropped); and
//! the limits of strict mode (5000 properties, 10 levels of objects, 1000 enum values) are
//! errors.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::merge::{drop_unfit, merge_or_drop_all_of, one_of_as_any_of};
use super::node::{child, short, show, At, Name, Node, Obj, Val, Word};
use super::report::Report;
use crate::error::{Error, ErrorCode, Result};

/// The keywords strict mode supports (all others are dropped).
const KEEP: [&str; 20] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
    "default",
];

/// Most properties in the whole schema.
pub(crate) const MAX_PROPERTIES: usize = 5000;
/// Most levels of nested objects.
pub(crate) const MAX_OBJECT_LEVELS: usize = 10;
/// Most values of one `enum`.
pub(crate) const MAX_ENUM_VALUES: usize = 1000;

/// The keywords that only constrain objects: a schema without `type` that has one is an object.
const OBJECT_WORDS: [&str; 7] = [
    "properties",
    "additionalProperties",
    "patternProperties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyNames",
];

fn limit(message: String) -> Error {
    Error::caller(ErrorCode::LimitExceeded, message)
}

/// Rewrites the (already inlined, root-fixed) schema for OpenAI strict mode; `depth_limit`
/// bounds the nesting the rewrite may reach.
pub(crate) fn apply(root: Obj, depth_limit: usize, report: &mut Report) -> Result<Obj> {
    Strict {
        report,
        depth_limit,
        properties: 0,
    }
    .object(root, 1, 0)
}

struct Strict<'r> {
    report: &'r mut Report,
    depth_limit: usize,
    /// Properties met so far.
    properties: usize,
}

/// Whether `node` accepts `null`.
fn allows_null(node: &Node) -> bool {
    let Node::Obj(obj) = node else {
        return matches!(node, Node::Bool(true));
    };
    let type_ok = match obj.data("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => true,
    };
    let enum_ok = match obj.data("enum") {
        Some(Value::Array(values)) => values.iter().any(Value::is_null),
        _ => true,
    };
    let const_ok = match obj.data("const") {
        Some(value) => value.is_null(),
        None => true,
    };
    let any_ok = match obj.words.get("anyOf") {
        Some(Word {
            val: Val::List(variants),
            ..
        }) => variants.iter().any(allows_null),
        _ => true,
    };
    type_ok && enum_ok && const_ok && any_ok
}

/// Whether `obj` is an object schema: its `type` has `"object"`, or it has no `type` and an
/// object keyword.
fn is_object(obj: &Obj) -> bool {
    match obj.data("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => OBJECT_WORDS.iter().any(|w| obj.has(w)),
    }
}

impl Strict<'_> {
    fn node(&mut self, node: Node, depth: usize, level: usize) -> Result<Node> {
        match node {
            Node::Bool(b) => Ok(Node::Bool(b)),
            Node::Obj(obj) => Ok(Node::Obj(self.object(obj, depth, level)?)),
        }
    }

    fn object(&mut self, mut obj: Obj, depth: usize, level: usize) -> Result<Obj> {
        if depth > self.depth_limit {
            return Err(limit(format!(
                "the openai-strict form nests deeper than {} levels at {}",
                self.depth_limit,
                show(&obj.at)
            )));
        }
        merge_or_drop_all_of(&mut obj, self.report);
        one_of_as_any_of(&mut obj, self.report, "strict mode has no oneOf");
        let object = is_object(&obj);
        let level = level + usize::from(object);
        if level > MAX_OBJECT_LEVELS {
            return Err(limit(format!(
                "openai-strict allows at most {MAX_OBJECT_LEVELS} levels of nested objects; the object at {} is level {level}",
                show(&obj.at)
            )));
        }
        if object && !obj.has("type") {
            obj.set("type", Val::Data(Value::String("object".to_owned())));
        }
        self.children(&mut obj, depth, level)?;
        self.filter(&mut obj);
        if let Some(Word {
            at,
            val: Val::Data(Value::Array(values)),
        }) = obj.words.get("enum")
        {
            if values.len() > MAX_ENUM_VALUES {
                return Err(limit(format!(
                    "{} has {} values; openai-strict allows at most {MAX_ENUM_VALUES}",
                    child(at, "enum"),
                    values.len()
                )));
            }
        }
        if object {
            self.close(&mut obj)?;
        }
        Ok(obj)
    }

    /// Rewrites the subschemas under `properties`, `items` and `anyOf`.
    fn children(&mut self, obj: &mut Obj, depth: usize, level: usize) -> Result<()> {
        for name in ["properties", "items", "anyOf"] {
            let Some(mut word) = obj.words.shift_remove(name) else {
                continue;
            };
            let nodes: Vec<&mut Node> = match &mut word.val {
                Val::One(node) => vec![&mut **node],
                Val::Map(map) => map.values_mut().collect(),
                Val::List(items) if name == "anyOf" => items.iter_mut().collect(),
                _ => Vec::new(),
            };
            for node in nodes {
                let taken = std::mem::replace(node, Node::Bool(true));
                *node = self.node(taken, depth + 1, level)?;
            }
            obj.words.insert(name.to_owned(), word);
        }
        Ok(())
    }

    /// Drops every keyword strict mode lacks, and kept keywords of the wrong shape.
    fn filter(&mut self, obj: &mut Obj) {
        drop_unfit(
            obj,
            self.report,
            &KEEP,
            "is not supported by strict mode",
            |name, val| {
                matches!(
                    (name, val),
                    ("type", Val::Data(Value::String(_) | Value::Array(_)))
                        | ("properties", Val::Map(_))
                        | ("required", Val::Names(_))
                        | ("additionalProperties" | "items", Val::One(_))
                        | ("anyOf", Val::List(_))
                        | ("enum", Val::Data(Value::Array(_)))
                        | (
                            "description" | "title" | "pattern" | "format",
                            Val::Data(Value::String(_))
                        )
                        | (
                            "multipleOf"
                                | "maximum"
                                | "exclusiveMaximum"
                                | "minimum"
                                | "exclusiveMinimum"
                                | "minItems"
                                | "maxItems",
                            Val::Data(Value::Number(_))
                        )
                        | ("const" | "default", Val::Data(_))
                )
            },
        );
    }

    /// Closes an object schema: `additionalProperties: false`, every property required, the
    /// optional ones made nullable.
    fn close(&mut self, obj: &mut Obj) -> Result<()> {
        match obj.words.get("additionalProperties") {
            None => obj.set(
                "additionalProperties",
                Val::One(Box::new(Node::Bool(false))),
            ),
            Some(Word {
                val: Val::One(node),
                ..
            }) if matches!(**node, Node::Bool(false)) => {}
            Some(word) => {
                let at = word.at.clone();
                let was = word.val.to_value();
                self.report.dropped(&at, "additionalProperties");
                self.report.warn(format!(
                    "{}: {} is replaced with false; keys that are not properties are now refused",
                    child(&at, "additionalProperties"),
                    short(&was)
                ));
                obj.words.insert(
                    "additionalProperties".to_owned(),
                    Word {
                        at,
                        val: Val::One(Box::new(Node::Bool(false))),
                    },
                );
            }
        }
        let old: Vec<Name> = match obj.words.shift_remove("required") {
            Some(Word {
                val: Val::Names(names),
                ..
            }) => names,
            _ => Vec::new(),
        };
        let Some(Word {
            at: props_at,
            val: Val::Map(props),
        }) = obj.words.get_mut("properties")
        else {
            self.drop_required(&obj.at, old, &HashSet::new());
            return Ok(());
        };
        let props_at = props_at.clone();
        self.properties += props.len();
        if self.properties > MAX_PROPERTIES {
            return Err(limit(format!(
                "the schema has more than {MAX_PROPERTIES} properties (counting those at {}); openai-strict allows at most {MAX_PROPERTIES}",
                child(&props_at, "properties")
            )));
        }
        // Where each originally required name was written, by name (one lookup per property).
        let mut required = HashMap::with_capacity(old.len());
        for name in &old {
            required.entry(name.name.as_str()).or_insert(&name.at);
        }
        let mut names = Vec::with_capacity(props.len());
        for (key, node) in props.iter_mut() {
            if !required.contains_key(key.as_str()) {
                let taken = std::mem::replace(node, Node::Bool(true));
                let at = child(&child(&props_at, "properties"), key);
                *node = make_nullable(taken, &at)?;
            }
            let original = required.get(key.as_str()).and_then(|at| (*at).clone());
            names.push(Name {
                name: key.clone(),
                at: original,
            });
        }
        let keys: HashSet<String> = props.keys().cloned().collect();
        self.drop_required(&obj.at, old, &keys);
        obj.set("required", Val::Names(names));
        Ok(())
    }

    /// Reports the `required` names that are not properties.
    fn drop_required(&mut self, at: &At, old: Vec<Name>, keys: &HashSet<String>) {
        for name in old {
            if keys.contains(&name.name) {
                continue;
            }
            let path = name
                .at
                .as_deref()
                .map_or_else(|| child(at, "required"), str::to_owned);
            self.report.removed_at(path.clone(), "required");
            self.report.warn(format!(
                "{path}: required {} is not among the properties and is dropped",
                short(&Value::String(name.name))
            ));
        }
    }
}

/// The schema of an optional property made to accept `null` too.
fn make_nullable(node: Node, at: &str) -> Result<Node> {
    if allows_null(&node) {
        return Ok(node);
    }
    let mut obj = match node {
        Node::Obj(obj) => obj,
        Node::Bool(_) => {
            let mut null = Obj::empty(At::from(at));
            null.set("type", Val::Data(Value::String("null".to_owned())));
            return Ok(Node::Obj(null));
        }
    };
    let simple = matches!(obj.data("type"), Some(Value::String(_) | Value::Array(_)))
        && !obj.has("const")
        && !obj.has("anyOf");
    if !simple {
        let mut null = Obj::empty(obj.at.clone());
        null.set("type", Val::Data(Value::String("null".to_owned())));
        let mut wrapper = Obj::empty(obj.at.clone());
        wrapper.set("anyOf", Val::List(vec![Node::Obj(obj), Node::Obj(null)]));
        return Ok(Node::Obj(wrapper));
    }
    if let Some(Word {
        val: Val::Data(kind),
        ..
    }) = obj.words.get_mut("type")
    {
        match kind {
            Value::String(t) if t != "null" => {
                *kind = Value::Array(vec![Value::String(t.clone()), "null".into()]);
            }
            Value::Array(types) if !types.iter().any(|t| t == "null") => types.push("null".into()),
            _ => {}
        }
    }
    if let Some(Word {
        at: enum_at,
        val: Val::Data(Value::Array(values)),
    }) = obj.words.get_mut("enum")
    {
        if values.len() >= MAX_ENUM_VALUES {
            return Err(limit(format!(
                "{} has {} values and the optional property needs null as well; openai-strict allows at most {MAX_ENUM_VALUES}",
                child(enum_at, "enum"),
                values.len()
            )));
        }
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    Ok(Node::Obj(obj))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::refs::inline;
    use crate::schema::report::Outcome;
    use serde_json::json;

    fn strict(schema: Value) -> Result<Outcome> {
        let mut report = Report::default();
        let node = inline(&schema, &Default::default(), &mut report)?;
        let Node::Obj(obj) = node else {
            panic!("bool root")
        };
        let out = apply(obj, 200, &mut report)?;
        let (removed, warnings) = report.finish(&schema);
        Ok((
            out.to_value(),
            removed.into_iter().map(|r| (r.path, r.keyword)).collect(),
            warnings,
        ))
    }

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 6_700_000},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "tags": {"type": ["array"], "items": {"type": "string"}},
            "note": {"type": ["string", "null"]},
            "kind": {"const": "x"},
            "any": {},
            "mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "nothing": false,
            "inner": {"type": "object", "properties": {"z": {"type": "integer"}}, "required": ["z"]},
            "both": {"allOf": [{"type": ["string", "null"]}, {"enum": ["x", "y"]}]}
        }, "required": ["name"]});
        let (output, removed, _) = strict(schema).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "additionalProperties": false, "properties": {
                "name": {"type": "string"},
                "unit": {"type": ["string", "null"], "enum": ["c", "f", null]},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}},
                "note": {"type": ["string", "null"]},
                "kind": {"anyOf": [{"const": "x"}, {"type": "null"}]},
                "any": {},
                "mode": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]},
                "nothing": {"type": "null"},
                "inner": {"type": ["object", "null"], "additionalProperties": false,
                          "properties": {"z": {"type": "integer"}}, "required": ["z"]},
                // Found by the property test: "null" is not added to the type twice.
                "both": {"type": ["string", "null"], "enum": ["x", "y", null]}
            }, "required": ["name", "unit", "tags", "note", "kind", "any", "mode", "nothing", "inner", "both"]})
        );
        assert_eq!(
            removed,
            [(
                "/properties/name/maxLength".to_owned(),
                "maxLength".to_owned()
            )]
        );
    }

    #[test]
    fn unsupported_keywords_are_dropped_and_open_objects_closed() {
        let schema = json!({"type": "object", "properties": {
            "a": {"oneOf": [{"type": "string"}, {"type": "integer"}], "not": {"const": 1}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "s": {"type": "string", "minLength": 1, "pattern": "^x", "format": "email"}
        }, "required": ["a", "m", "s", "ghost"], "patternProperties": {"^x": {}}, "if": {}, "then": {}});
        let (output, removed, warnings) = strict(schema).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "additionalProperties": false, "properties": {
                "a": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "m": {"type": "object", "additionalProperties": false},
                "s": {"type": "string", "pattern": "^x", "format": "email"}
            }, "required": ["a", "m", "s"]})
        );
        let paths: Vec<&str> = removed.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/properties/a/not",
                "/properties/m/additionalProperties",
                "/properties/s/minLength",
                "/required/3",
                "/patternProperties",
                "/if",
                "/then"
            ]
        );
        assert!(warnings
            .iter()
            .any(|w| w.starts_with("/properties/a/oneOf: sent as anyOf")));
        assert!(warnings
            .iter()
            .any(|w| w.contains("keys that are not properties are now refused")));
    }

    #[test]
    fn strict_limits_are_errors_naming_the_number_and_place() {
        let mut nested = json!({"type": "string"});
        for _ in 0..11 {
            nested = json!({"type": "object", "properties": {"n": nested}, "required": ["n"]});
        }
        let many: serde_json::Map<String, Value> = (0..5001)
            .map(|i| (format!("p{i}"), json!({"type": "integer"})))
            .collect();
        let values: Vec<Value> = (0..1001).map(|i| json!(i)).collect();
        let full: Vec<Value> = (0..1000).map(|i| json!(i)).collect();
        let cases = [
            (nested, "the object at /properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n/properties/n is level 11"),
            (json!({"type": "object", "properties": many}), "more than 5000 properties"),
            (json!({"type": "object", "properties": {"e": {"enum": values}}, "required": ["e"]}), "/properties/e/enum has 1001 values"),
            (json!({"type": "object", "properties": {"e": {"type": "integer", "enum": full}}}), "/properties/e/enum has 1000 values and the optional property needs null"),
        ];
        for (schema, fragment) in cases {
            let err = strict(schema).unwrap_err();
            assert_eq!(err.code, ErrorCode::LimitExceeded);
            assert!(err.message.contains(fragment), "{}", err.message);
        }
    }
}
