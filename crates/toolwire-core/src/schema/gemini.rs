//! The Gemini `parameters` form: an OpenAPI 3.0 subset (WIRE.md §4, QUIRKS 28). Keywords
//! Gemini rejects are dropped and reported, `const` becomes a one-value `enum` (an untyped
//! `enum` of one scalar type gets that `type`), a `type` list becomes one type with `nullable`
//! (or an `anyOf` of types), literal unions become one `enum`, a union with `{"type": "null"}`
//! becomes `nullable`, `oneOf` becomes `anyOf`, `allOf` is merged (or dropped), and `required`
//! names that are not properties are dropped.

use std::collections::HashSet;

use serde_json::Value;

use super::merge::{drop_unfit, flatten_union, merge_or_drop_all_of, one_of_as_any_of};
use super::node::{child, json_type, short, show, At, Node, Obj, Val, Word};
use super::report::Report;
use crate::error::{Error, ErrorCode, Result};

/// The keywords Gemini's `Schema` has (all others are dropped).
const KEEP: [&str; 13] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "anyOf",
    "propertyOrdering",
    "default",
    "example",
];

/// The `format`s Gemini accepts on a string.
const FORMATS: [&str; 2] = ["enum", "date-time"];

/// Rewrites the (already inlined, root-fixed) schema for Gemini `parameters`; `limit` bounds
/// the nesting the rewrite may reach.
pub(crate) fn apply(root: Obj, limit: usize, report: &mut Report) -> Result<Obj> {
    Gemini { report, limit }.object(root, 1)
}

struct Gemini<'r> {
    report: &'r mut Report,
    limit: usize,
}

/// Whether `node` is exactly `{"type": "null"}`.
fn is_null_type(node: &Node) -> bool {
    node.as_obj()
        .is_some_and(|o| o.words.len() == 1 && o.type_name() == Some("null"))
}

impl Gemini<'_> {
    fn node(&mut self, node: Node, at: &str, depth: usize) -> Result<Node> {
        match node {
            Node::Bool(true) => Ok(Node::Obj(Obj::empty(At::from(at)))),
            Node::Bool(false) => {
                self.report.warn(format!(
                    "{}: the schema false (no value allowed) has no Gemini form; any value is accepted there",
                    show(at)
                ));
                Ok(Node::Obj(Obj::empty(At::from(at))))
            }
            Node::Obj(obj) => Ok(Node::Obj(self.object(obj, depth)?)),
        }
    }

    fn object(&mut self, mut obj: Obj, depth: usize) -> Result<Obj> {
        if depth > self.limit {
            return Err(Error::caller(
                ErrorCode::LimitExceeded,
                format!(
                    "the Gemini form nests deeper than {} levels at {}",
                    self.limit,
                    show(&obj.at)
                ),
            ));
        }
        merge_or_drop_all_of(&mut obj, self.report);
        one_of_as_any_of(&mut obj, self.report, "Gemini takes one union");
        self.children(&mut obj, depth)?;
        if let Some(word) = obj.words.shift_remove("anyOf") {
            match word.val {
                Val::List(variants) => {
                    let mut out = Vec::with_capacity(variants.len());
                    let list_at = child(&word.at, "anyOf");
                    for (i, variant) in variants.into_iter().enumerate() {
                        out.push(self.node(
                            variant,
                            &child(&list_at, &i.to_string()),
                            depth + 1,
                        )?);
                    }
                    self.union(&mut obj, word.at, flatten_union(out));
                }
                val => {
                    obj.words
                        .insert("anyOf".to_owned(), Word { at: word.at, val });
                }
            }
        }
        const_to_enum(&mut obj);
        type_enum(&mut obj);
        self.type_list(&mut obj);
        if obj.has("anyOf") {
            if let Some(word) = obj.words.shift_remove("type") {
                self.report.dropped(&word.at, "type");
            }
        }
        self.format(&mut obj);
        self.filter(&mut obj);
        self.prune_required(&mut obj);
        Ok(obj)
    }

    /// Rewrites the subschemas under `properties` and `items`.
    fn children(&mut self, obj: &mut Obj, depth: usize) -> Result<()> {
        if let Some(mut word) = obj.words.shift_remove("properties") {
            if let Val::Map(props) = &mut word.val {
                let base = child(&word.at, "properties");
                for (key, node) in props.iter_mut() {
                    let taken = std::mem::replace(node, Node::Bool(true));
                    *node = self.node(taken, &child(&base, key), depth + 1)?;
                }
            }
            obj.words.insert("properties".to_owned(), word);
        }
        if let Some(mut word) = obj.words.shift_remove("items") {
            if let Val::One(node) = &mut word.val {
                let taken = std::mem::replace(&mut **node, Node::Bool(true));
                **node = self.node(taken, &child(&word.at, "items"), depth + 1)?;
            }
            obj.words.insert("items".to_owned(), word);
        }
        Ok(())
    }

    /// The rewritten variants of an `anyOf` (at `at`) put back into `obj`, or one of its
    /// shorter forms: one variant with `nullable`, or one `enum`.
    fn union(&mut self, obj: &mut Obj, at: At, variants: Vec<Node>) {
        let (nulls, rest): (Vec<Node>, Vec<Node>) = variants.into_iter().partition(is_null_type);
        let nullable = !nulls.is_empty();
        if rest.is_empty() {
            obj.words.insert(
                "anyOf".to_owned(),
                Word {
                    at,
                    val: Val::List(nulls),
                },
            );
            return;
        }
        if rest.len() == 1 && nullable {
            if let Some(Node::Obj(variant)) = rest.into_iter().next() {
                self.collapse(obj, variant);
            }
            obj.set("nullable", Val::Data(Value::Bool(true)));
            return;
        }
        if let Some((kind, values, nullable_value)) = literal_union(&rest) {
            for variant in rest.iter().filter_map(Node::as_obj) {
                for (name, word) in &variant.words {
                    if name != "type" && name != "enum" {
                        self.report.dropped(&word.at, name);
                    }
                }
            }
            let enum_at = rest
                .iter()
                .filter_map(Node::as_obj)
                .find_map(|v| v.words.get("enum").map(|w| w.at.clone()))
                .unwrap_or(at);
            obj.set("type", Val::Data(Value::String(kind.to_owned())));
            obj.words.insert(
                "enum".to_owned(),
                Word {
                    at: enum_at,
                    val: Val::Data(Value::Array(values)),
                },
            );
            if nullable || nullable_value {
                obj.set("nullable", Val::Data(Value::Bool(true)));
            }
            return;
        }
        obj.words.insert(
            "anyOf".to_owned(),
            Word {
                at,
                val: Val::List(rest),
            },
        );
        if nullable {
            obj.set("nullable", Val::Data(Value::Bool(true)));
        }
    }

    /// Merges the one non-null variant of a union into `obj` (whose own keywords win).
    fn collapse(&mut self, obj: &mut Obj, variant: Obj) {
        for (name, word) in variant.words {
            match obj.words.get(&name) {
                None => {
                    obj.words.insert(name, word);
                }
                Some(own) => {
                    if own.val.to_value() != word.val.to_value() {
                        self.report.dropped(&word.at, &name);
                    }
                }
            }
        }
    }

    /// A `type` list becomes one type (with `nullable` when it has `"null"`), or an `anyOf`
    /// of the types.
    fn type_list(&mut self, obj: &mut Obj) {
        let Some(Value::Array(types)) = obj.data("type") else {
            return;
        };
        let has_null = types.iter().any(|t| t == "null");
        let mut names: Vec<String> = Vec::new();
        for t in types.iter().filter_map(Value::as_str) {
            if t != "null" && !names.iter().any(|n| n == t) {
                names.push(t.to_owned());
            }
        }
        let Some(word) = obj.words.shift_remove("type") else {
            return;
        };
        match names.len() {
            0 => {
                let null = Val::Data(Value::String("null".to_owned()));
                obj.words.insert(
                    "type".to_owned(),
                    Word {
                        at: word.at,
                        val: null,
                    },
                );
            }
            1 => {
                let one = Val::Data(Value::String(names.remove(0)));
                obj.words.insert(
                    "type".to_owned(),
                    Word {
                        at: word.at,
                        val: one,
                    },
                );
            }
            _ if obj.has("anyOf") => self.report.dropped(&word.at, "type"),
            _ => {
                let variants = names
                    .into_iter()
                    .map(|name| {
                        let mut variant = Obj::empty(obj.at.clone());
                        variant.set("type", Val::Data(Value::String(name)));
                        Node::Obj(variant)
                    })
                    .collect();
                obj.words.insert(
                    "anyOf".to_owned(),
                    Word {
                        at: word.at,
                        val: Val::List(variants),
                    },
                );
            }
        }
        if has_null {
            obj.set("nullable", Val::Data(Value::Bool(true)));
        }
    }

    fn format(&mut self, obj: &mut Obj) {
        let Some(word) = obj.words.get("format") else {
            return;
        };
        let allowed = matches!(&word.val, Val::Data(Value::String(f)) if FORMATS.contains(&f.as_str()))
            && obj.type_name() == Some("string");
        if !allowed {
            let at = word.at.clone();
            obj.words.shift_remove("format");
            self.report.dropped(&at, "format");
        }
    }

    /// Drops every keyword Gemini's `Schema` lacks, and kept keywords of the wrong shape.
    fn filter(&mut self, obj: &mut Obj) {
        drop_unfit(
            obj,
            self.report,
            &KEEP,
            "has no Gemini equivalent",
            |name, val| match (name, val) {
                ("type", Val::Data(Value::String(_))) => true,
                ("title" | "description" | "format", Val::Data(Value::String(_))) => true,
                ("nullable", Val::Data(Value::Bool(_))) => true,
                ("enum", Val::Data(Value::Array(_))) => true,
                ("properties", Val::Map(_)) => true,
                ("required", Val::Names(_)) => true,
                ("items", Val::One(_)) => true,
                ("anyOf", Val::List(_)) => true,
                ("propertyOrdering", Val::Data(Value::Array(names))) => {
                    names.iter().all(Value::is_string)
                }
                ("default" | "example", _) => true,
                _ => false,
            },
        );
    }

    /// Drops the `required` names that are not properties.
    fn prune_required(&mut self, obj: &mut Obj) {
        let props: HashSet<String> = match obj.words.get("properties") {
            Some(Word {
                val: Val::Map(props),
                ..
            }) => props.keys().cloned().collect(),
            _ => HashSet::new(),
        };
        let Some(Word {
            at,
            val: Val::Names(names),
        }) = obj.words.get_mut("required")
        else {
            return;
        };
        let list_at = child(at, "required");
        let report = &mut *self.report;
        names.retain(|name| {
            if props.contains(&name.name) {
                return true;
            }
            let path = name
                .at
                .as_deref()
                .map_or_else(|| list_at.clone(), str::to_owned);
            report.removed_at(path.clone(), "required");
            report.warn(format!(
                "{path}: required {} is not among the properties and is dropped",
                short(&Value::String(name.name.clone()))
            ));
            false
        });
    }
}

/// `const` becomes a one-value `enum`, with `type` inferred when absent.
fn const_to_enum(obj: &mut Obj) {
    let Some(word) = obj.words.shift_remove("const") else {
        return;
    };
    let Val::Data(value) = word.val else {
        return;
    };
    if !obj.has("type") && !value.is_null() {
        obj.set(
            "type",
            Val::Data(Value::String(json_type(&value).to_owned())),
        );
    }
    obj.words.insert(
        "enum".to_owned(),
        Word {
            at: word.at,
            val: Val::Data(Value::Array(vec![value])),
        },
    );
}

/// When every variant is only an `enum` of scalars (with an optional `type`, `title`,
/// `description`) and the values are of one type: that type, the values, and whether a `null`
/// was among them.
fn literal_union(variants: &[Node]) -> Option<(&'static str, Vec<Value>, bool)> {
    let mut values: Vec<Value> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut has_null = false;
    for variant in variants {
        let obj = variant.as_obj()?;
        let only_literal = obj
            .words
            .keys()
            .all(|k| matches!(k.as_str(), "type" | "enum" | "title" | "description"));
        let Some(Value::Array(listed)) = obj.data("enum") else {
            return None;
        };
        if !only_literal || listed.is_empty() {
            return None;
        }
        for value in listed {
            if value.is_null() {
                has_null = true;
            } else if seen.insert(value.to_string()) {
                values.push(value.clone());
            }
        }
    }
    Some((scalar_type(&values)?, values, has_null))
}

/// The one scalar type of `values` (`number` for integers mixed with other numbers); `None`
/// when they are empty, of several types, or not scalars.
fn scalar_type(values: &[Value]) -> Option<&'static str> {
    let mut kind: Option<&'static str> = None;
    for value in values {
        let this = match json_type(value) {
            t @ ("string" | "boolean" | "integer" | "number") => t,
            _ => return None,
        };
        kind = Some(match (kind, this) {
            (None, t) => t,
            (Some(a), b) if a == b => a,
            (Some("integer" | "number"), "integer" | "number") => "number",
            _ => return None,
        });
    }
    kind
}

/// An `enum` without `type` gets the one scalar type of its values (Gemini types its enums).
fn type_enum(obj: &mut Obj) {
    if obj.has("type") || obj.has("anyOf") {
        return;
    }
    if let Some(Value::Array(values)) = obj.data("enum") {
        if let Some(kind) = scalar_type(values) {
            obj.set("type", Val::Data(Value::String(kind.to_owned())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::refs::inline;
    use serde_json::json;

    fn gemini(schema: Value) -> (Value, Vec<(String, String)>, Vec<String>) {
        let mut report = Report::default();
        let node = inline(&schema, &Default::default(), &mut report).unwrap();
        let Node::Obj(obj) = node else {
            panic!("bool root")
        };
        let out = apply(obj, 64, &mut report).unwrap();
        let (removed, warnings) = report.finish(&schema);
        (
            out.to_value(),
            removed.into_iter().map(|r| (r.path, r.keyword)).collect(),
            warnings,
        )
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, k)| (p.to_string(), k.to_string()))
            .collect()
    }

    #[test]
    fn rewrites_for_gemini() {
        // (input, output, removed)
        type Case = (Value, Value, Vec<(String, String)>);
        let cases: Vec<Case> = vec![
            // A literal union (anyOf of consts) becomes one enum.
            (
                json!({"anyOf": [{"const": "c"}, {"const": "f"}, {"const": "k"}]}),
                json!({"type": "string", "enum": ["c", "f", "k"]}),
                vec![],
            ),
            // Nested unions of literals flatten into one enum; a null literal becomes nullable.
            (
                json!({"anyOf": [{"anyOf": [{"const": 1}, {"enum": [2]}]}, {"const": 2.5}, {"type": "null"}]}),
                json!({"type": "number", "enum": [1, 2, 2.5], "nullable": true}),
                vec![],
            ),
            // One variant plus null collapses to the variant with nullable.
            (
                json!({"description": "d", "anyOf": [{"type": "string", "maxLength": 4}, {"type": "null"}]}),
                json!({"description": "d", "type": "string", "nullable": true}),
                pairs(&[("/anyOf/0/maxLength", "maxLength")]),
            ),
            (
                json!({"type": ["string", "null"], "format": "date-time"}),
                json!({"type": "string", "nullable": true, "format": "date-time"}),
                vec![],
            ),
            (
                json!({"type": ["string", "integer", "null"]}),
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}),
                vec![],
            ),
            (
                json!({"const": 3}),
                json!({"type": "integer", "enum": [3]}),
                vec![],
            ),
            (
                json!({"properties": {"a": {"enum": ["x", "y"]}, "b": {"enum": [1, 2.5]}, "c": {"enum": ["x", 1]}}}),
                json!({"properties": {"a": {"type": "string", "enum": ["x", "y"]},
                                      "b": {"type": "number", "enum": [1, 2.5]}, "c": {"enum": ["x", 1]}}}),
                vec![],
            ),
            (
                json!({"type": "string", "format": "email", "maxLength": 6_700_000, "pattern": "x",
                       "$comment": "c", "readOnly": true, "contentMediaType": "text/plain", "examples": ["a"]}),
                json!({"type": "string"}),
                pairs(&[
                    ("/format", "format"),
                    ("/maxLength", "maxLength"),
                    ("/pattern", "pattern"),
                    ("/$comment", "$comment"),
                    ("/readOnly", "readOnly"),
                    ("/contentMediaType", "contentMediaType"),
                    ("/examples", "examples"),
                ]),
            ),
            (
                json!({"type": "integer", "format": "date-time"}),
                json!({"type": "integer"}),
                pairs(&[("/format", "format")]),
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"],
                       "additionalProperties": false, "patternProperties": {"x": {}}, "propertyNames": {"maxLength": 3},
                       "minProperties": 1, "$schema": "https://json-schema.org/draft/2020-12/schema"}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
                pairs(&[
                    ("/required/1", "required"),
                    ("/additionalProperties", "additionalProperties"),
                    ("/patternProperties", "patternProperties"),
                    ("/propertyNames", "propertyNames"),
                    ("/minProperties", "minProperties"),
                    ("/$schema", "$schema"),
                ]),
            ),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "type": "string"}),
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
                pairs(&[("/type", "type")]),
            ),
            (
                json!({"allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
                                 {"properties": {"b": {"type": "integer", "minimum": 0}}}]}),
                json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}),
                pairs(&[("/allOf/1/properties/b/minimum", "minimum")]),
            ),
            (
                json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
                json!({}),
                pairs(&[("/allOf", "allOf")]),
            ),
            (
                json!({"type": "array", "items": [{"type": "string"}], "minItems": 1, "uniqueItems": true, "not": {}}),
                json!({"type": "array"}),
                pairs(&[
                    ("/items", "items"),
                    ("/minItems", "minItems"),
                    ("/uniqueItems", "uniqueItems"),
                    ("/not", "not"),
                ]),
            ),
            (
                json!({"properties": {"a": {"$ref": "#/$defs/S"}, "b": {"$ref": "#/$defs/S"}}, "$defs": {"S": {"type": "string", "minLength": 2}}}),
                json!({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
                pairs(&[("/$defs", "$defs"), ("/$defs/S/minLength", "minLength")]),
            ),
        ];
        for (input, expected, removed) in cases {
            let (output, got_removed, _) = gemini(input.clone());
            assert_eq!(output, expected, "{input}");
            assert_eq!(got_removed, removed, "{input}");
        }
    }

    #[test]
    fn one_of_and_dropped_required_are_warned() {
        let (_, _, warnings) = gemini(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}));
        assert!(
            warnings[0].starts_with("/oneOf: sent as anyOf"),
            "{warnings:?}"
        );
        let (_, _, warnings) = gemini(json!({"properties": {}, "required": ["x"]}));
        assert!(
            warnings[0].contains("/required/0: required \"x\""),
            "{warnings:?}"
        );
    }
}
