//! Local `$ref` inlining. Every `$ref` of the input is local (`#`, `#/json/pointer`, `#anchor`;
//! anything else is refused, never fetched); each is replaced by a copy of its target with the
//! `$ref`'s siblings merged over it, a reference back into a schema it is inside is cut (it
//! becomes `{}`, reported), and `$defs`/`definitions` are dropped (reported). The output is
//! capped by depth and by an estimate of its JSON size kept while it is built, so a schema that
//! would blow up exponentially fails after at most `max_bytes` of work.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::limits::{json_len, walk_schemas};
use super::node::{child, is_prefix, shape, show, At, Name, Node, Obj, Shape, Val, Word};
use super::report::Report;
use super::target::NormalizeOptions;
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_string;

/// Anchors of the input by (resource pointer, name) → pointer of the schema that has them.
type Anchors = HashMap<(String, String), String>;

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

fn too_big(message: String) -> Error {
    Error::caller(ErrorCode::LimitExceeded, message)
}

/// Checks the depth of the input and that every `$ref` is a local string; collects the anchors.
fn survey(doc: &Value, max_depth: usize) -> Result<Anchors> {
    let mut anchors = Anchors::new();
    walk_schemas(doc, max_depth, "the schema", |visit| {
        match visit.map.get("$ref") {
            None => {}
            Some(Value::String(r)) if r.starts_with('#') => {}
            Some(Value::String(r)) => {
                return Err(invalid(format!(
                    "remote $ref {} at {} is not fetched; inline it",
                    json_string(r),
                    show(visit.at)
                )))
            }
            Some(other) => {
                return Err(invalid(format!(
                    "$ref at {} must be a string, got {}",
                    show(visit.at),
                    super::node::short(other)
                )))
            }
        }
        let mut add = |name: &str| {
            anchors
                .entry((visit.base.to_owned(), name.to_owned()))
                .or_insert_with(|| visit.at.to_owned());
        };
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(name) = visit.map.get(key).and_then(Value::as_str) {
                add(name);
            }
        }
        if let Some(name) = visit.map.get("$id").and_then(Value::as_str) {
            if let Some(name) = name.strip_prefix('#').filter(|n| !n.is_empty()) {
                add(name);
            }
        }
        Ok(())
    })?;
    Ok(anchors)
}

/// `%XX`-decodes a URI fragment; `None` when an escape is malformed or the bytes not UTF-8.
fn percent_decode(fragment: &str) -> Option<String> {
    if !fragment.contains('%') {
        return Some(fragment.to_owned());
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = fragment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The pointer of the schema resource that `target` is in: the nearest object with a `$id` on
/// the way from the root (the root itself counts as pointer `""`).
fn resource_of(doc: &Value, target: &str) -> String {
    let mut base = String::new();
    let mut here = doc;
    let mut at = String::new();
    for token in target.split('/').skip(1) {
        let key = crate::pointer::unescape(token);
        let next = match here {
            Value::Object(map) => map.get(key.as_ref()),
            Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        let Some(next) = next else { break };
        at.push('/');
        at.push_str(token);
        if let Some(id) = next.get("$id").and_then(Value::as_str) {
            if !id.starts_with('#') {
                base.clone_from(&at);
            }
        }
        here = next;
    }
    base
}

/// Resolves local reference `r` (starting with `#`) within the resource at `base`: the target's
/// pointer and value, or the reason it does not resolve.
pub(crate) fn resolve<'d>(
    doc: &'d Value,
    anchors: Option<&Anchors>,
    r: &str,
    base: &str,
) -> std::result::Result<(String, &'d Value), String> {
    let fragment = r.strip_prefix('#').unwrap_or(r);
    let decoded = percent_decode(fragment).ok_or_else(|| "has a malformed %-escape".to_owned())?;
    let target = if decoded.is_empty() {
        base.to_owned()
    } else if decoded.starts_with('/') {
        format!("{base}{decoded}")
    } else {
        anchors
            .and_then(|a| a.get(&(base.to_owned(), decoded.clone())))
            .cloned()
            .ok_or_else(|| format!("names no anchor {}", json_string(&decoded)))?
    };
    match doc.pointer(&target) {
        Some(value) if value.is_object() || value.is_boolean() => Ok((target, value)),
        Some(value) => Err(format!(
            "points at {}, not a schema",
            super::node::short(value)
        )),
        None => Err("does not resolve".to_owned()),
    }
}

/// The schema the local `$ref` of `schema` points at in `doc`: `None` when it has none or it
/// does not resolve.
pub(crate) fn ref_target<'d>(doc: &'d Value, schema: &'d Value) -> Option<&'d Value> {
    let r = schema.get("$ref")?.as_str()?;
    resolve(doc, None, r, "").ok().map(|(_, value)| value)
}

/// `schemas` and every schema they apply through `$ref`, `allOf`, `anyOf` and `oneOf` (each
/// once, in order): the schemas whose `properties` and `items` an instance of them meets, as
/// validation applies them. Linear in the schemas reached.
pub(crate) fn applied<'d>(doc: &'d Value, schemas: &[&'d Value]) -> Vec<&'d Value> {
    let mut out = Vec::new();
    let mut seen: HashSet<*const Value> = HashSet::new();
    let mut stack: Vec<&'d Value> = schemas.iter().rev().copied().collect();
    while let Some(schema) = stack.pop() {
        if !schema.is_object() || !seen.insert(schema as *const Value) {
            continue;
        }
        out.push(schema);
        if let Some(target) = ref_target(doc, schema) {
            stack.push(target);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                stack.extend(branches.iter().rev());
            }
        }
    }
    out
}

/// Builds the node tree of `doc` with every local `$ref` inlined; see the module comment.
pub(crate) fn inline(doc: &Value, options: &NormalizeOptions, report: &mut Report) -> Result<Node> {
    let anchors = survey(doc, options.max_depth)?;
    let mut inliner = Inliner {
        doc,
        anchors,
        max_depth: options.max_depth,
        max_bytes: options.max_bytes,
        used: 0,
        sites: Vec::new(),
        report,
    };
    inliner.node(doc, "", "", 1)
}

struct Inliner<'d, 'r> {
    doc: &'d Value,
    anchors: Anchors,
    max_depth: usize,
    max_bytes: usize,
    /// A lower bound of the JSON size of the output built so far.
    used: usize,
    /// The places of the `$ref`s being expanded, outermost first.
    sites: Vec<String>,
    report: &'r mut Report,
}

impl Inliner<'_, '_> {
    fn charge(&mut self, bytes: usize, at: &str) -> Result<()> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.max_bytes {
            return Err(too_big(format!(
                "with its $refs inlined the schema grows past maxBytes {} bytes of JSON text (at {})",
                self.max_bytes,
                show(at)
            )));
        }
        Ok(())
    }

    fn node(&mut self, value: &Value, at: &str, base: &str, depth: usize) -> Result<Node> {
        if depth > self.max_depth {
            return Err(too_big(format!(
                "with its $refs inlined the schema nests deeper than maxDepth {} at {}",
                self.max_depth,
                show(at)
            )));
        }
        match value {
            Value::Bool(b) => {
                self.charge(5, at)?;
                Ok(Node::Bool(*b))
            }
            Value::Object(map) => self.object(map, at, base, depth),
            other => Err(invalid(format!(
                "the schema at {} is {}, not an object or a boolean",
                show(at),
                super::node::short(other)
            ))),
        }
    }

    fn object(
        &mut self,
        map: &Map<String, Value>,
        at: &str,
        base: &str,
        depth: usize,
    ) -> Result<Node> {
        let has_id = map
            .get("$id")
            .and_then(Value::as_str)
            .is_some_and(|id| !id.starts_with('#'));
        let base = if has_id { at } else { base };
        let target = match map.get("$ref") {
            Some(r) => Some(self.expand(r, at, base, depth)?),
            None => None,
        };
        if let Some(Node::Bool(false)) = target {
            return Ok(Node::Bool(false));
        }
        self.charge(2, at)?;
        let here: At = At::from(at);
        let mut own = Obj::empty(here.clone());
        for (name, value) in map {
            if name == "$ref" {
                continue;
            }
            if name == "$defs" || name == "definitions" {
                self.report.dropped(at, name);
                continue;
            }
            self.charge(name.len() + 4, at)?;
            let word_at = child(at, name);
            let val = match shape(name, value) {
                Shape::One => Val::One(Box::new(self.node(value, &word_at, base, depth + 1)?)),
                Shape::Map => {
                    let mut out = indexmap::IndexMap::new();
                    for (key, sub) in value.as_object().into_iter().flatten() {
                        self.charge(key.len() + 4, at)?;
                        let sub = self.node(sub, &child(&word_at, key), base, depth + 1)?;
                        out.insert(key.clone(), sub);
                    }
                    Val::Map(out)
                }
                Shape::List => {
                    let mut out = Vec::new();
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        self.charge(1, at)?;
                        out.push(self.node(
                            sub,
                            &child(&word_at, &i.to_string()),
                            base,
                            depth + 1,
                        )?);
                    }
                    Val::List(out)
                }
                Shape::Names => {
                    let mut out = Vec::new();
                    for (i, entry) in value.as_array().into_iter().flatten().enumerate() {
                        let entry = entry.as_str().unwrap_or_default();
                        self.charge(entry.len() + 3, at)?;
                        out.push(Name {
                            name: entry.to_owned(),
                            at: Some(At::from(child(&word_at, &i.to_string()))),
                        });
                    }
                    Val::Names(out)
                }
                Shape::Data => {
                    let room = self.max_bytes.saturating_sub(self.used);
                    let len = json_len(value, room).unwrap_or(room.saturating_add(1));
                    self.charge(len, at)?;
                    Val::Data(value.clone())
                }
            };
            own.words.insert(
                name.clone(),
                Word {
                    at: here.clone(),
                    val,
                },
            );
        }
        Ok(Node::Obj(match target {
            Some(Node::Obj(target)) => merge_over(target, own),
            _ => own,
        }))
    }

    /// The copy of the target of `r` (a `$ref` at `at`), or `{}` when it refers back into a
    /// schema being expanded.
    fn expand(&mut self, r: &Value, at: &str, base: &str, depth: usize) -> Result<Node> {
        let Some(r) = r.as_str().filter(|r| r.starts_with('#')) else {
            return Err(invalid(format!(
                "$ref {} at {} is not a local reference; inline it",
                super::node::short(r),
                show(at)
            )));
        };
        let (target, value) = resolve(self.doc, Some(&self.anchors), r, base)
            .map_err(|why| invalid(format!("$ref {} at {} {why}", json_string(r), show(at))))?;
        let cycle = is_prefix(&target, at) || self.sites.iter().any(|s| is_prefix(&target, s));
        if cycle {
            self.report.dropped(at, "$ref");
            self.report.warn(format!(
                "{}: the recursive $ref {} back to {} is cut; any value is accepted there",
                child(at, "$ref"),
                json_string(r),
                show(&target)
            ));
            return Ok(Node::Obj(Obj::empty(At::from(at))));
        }
        if self.sites.len() >= self.max_depth {
            return Err(too_big(format!(
                "more than maxDepth {} $refs are expanded inside each other at {}",
                self.max_depth,
                show(at)
            )));
        }
        let target_base = resource_of(self.doc, &target);
        self.sites.push(at.to_owned());
        let node = self.node(value, &target, &target_base, depth);
        self.sites.pop();
        node
    }
}

/// `own` (the siblings of a `$ref`) merged over `target` (its inlined copy): `properties` are
/// merged by name and `required` united; any other keyword of `own` replaces the target's.
fn merge_over(mut target: Obj, own: Obj) -> Obj {
    target.at = own.at;
    for (name, word) in own.words {
        match (target.words.get_mut(&name), word.val) {
            (
                Some(Word {
                    val: Val::Map(base),
                    ..
                }),
                Val::Map(extra),
            ) if name == "properties" => base.extend(extra),
            (
                Some(Word {
                    val: Val::Names(base),
                    ..
                }),
                Val::Names(extra),
            ) if name == "required" => {
                for entry in extra {
                    if !base.iter().any(|b| b.name == entry.name) {
                        base.push(entry);
                    }
                }
            }
            (_, val) => {
                target.words.insert(name, Word { at: word.at, val });
            }
        }
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::report::Outcome;
    use serde_json::json;

    fn run(schema: Value, options: NormalizeOptions) -> Result<Outcome> {
        let mut report = Report::default();
        let node = inline(&schema, &options, &mut report)?;
        let (removed, warnings) = report.finish(&schema);
        Ok((
            node.to_value(),
            removed.into_iter().map(|r| (r.path, r.keyword)).collect(),
            warnings,
        ))
    }

    #[test]
    fn local_refs_are_inlined_with_their_siblings_merged_over() {
        let cases = [
            (
                json!({"properties": {"a": {"$ref": "#/$defs/S", "description": "d"}},
                       "$defs": {"S": {"type": "string", "description": "old"}}}),
                json!({"properties": {"a": {"type": "string", "description": "d"}}}),
            ),
            (
                json!({"properties": {"a": {"$ref": "#/definitions/O", "properties": {"y": {}}, "required": ["y"]}},
                       "definitions": {"O": {"properties": {"x": {}}, "required": ["x"]}}}),
                json!({"properties": {"a": {"properties": {"x": {}, "y": {}}, "required": ["x", "y"]}}}),
            ),
            (
                json!({"properties": {"a": {"type": "integer"}, "b": {"$ref": "#/properties/a"}}}),
                json!({"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
            ),
            (
                json!({"properties": {"a": {"$ref": "#/$defs/a%20b~1c"}}, "$defs": {"a b/c": {"type": "null"}}}),
                json!({"properties": {"a": {"type": "null"}}}),
            ),
            (
                json!({"properties": {"a": {"$ref": "#num"}}, "$defs": {"N": {"$anchor": "num", "type": "number"}}}),
                json!({"properties": {"a": {"$anchor": "num", "type": "number"}}}),
            ),
            (
                json!({"properties": {"a": {"$ref": "#/$defs/T"}, "b": {"$ref": "#/$defs/F", "type": "string"}},
                       "$defs": {"T": true, "F": false}}),
                json!({"properties": {"a": {}, "b": false}}),
            ),
            (
                json!({"properties": {"e": {"$id": "urn:e", "$ref": "#/$defs/X", "$defs": {"X": {"type": "string"}}}},
                       "$defs": {"X": {"type": "integer"}}}),
                json!({"properties": {"e": {"$id": "urn:e", "type": "string"}}}),
            ),
        ];
        for (input, expected) in cases {
            let (output, _, _) = run(input.clone(), NormalizeOptions::default()).unwrap();
            assert_eq!(output, expected, "{input}");
        }
    }

    /// A tree node referring to itself: the recursion is cut to `{}` and reported.
    #[test]
    fn a_cycle_is_cut_and_reported() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }}}
        });
        let (output, removed, warnings) = run(schema, NormalizeOptions::default()).unwrap();
        assert_eq!(
            output,
            json!({"type": "object", "properties": {
                "value": {"type": "string"},
                "children": {"type": "array", "items": {}}
            }})
        );
        assert_eq!(
            removed,
            [
                ("/$defs".to_owned(), "$defs".to_owned()),
                (
                    "/$defs/Node/properties/children/items/$ref".to_owned(),
                    "$ref".to_owned()
                ),
            ]
        );
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("#/$defs/Node"), "{}", warnings[0]);

        let root = json!({"properties": {"next": {"$ref": "#"}}});
        let (output, removed, _) = run(root, NormalizeOptions::default()).unwrap();
        assert_eq!(output, json!({"properties": {"next": {}}}));
        assert_eq!(
            removed,
            [("/properties/next/$ref".to_owned(), "$ref".to_owned())]
        );
    }

    #[test]
    fn bad_refs_are_validation_errors_naming_them() {
        let cases = [
            (
                json!({"properties": {"a": {"$ref": "https://x/y.json"}}}),
                "remote $ref \"https://x/y.json\" at /properties/a is not fetched; inline it",
            ),
            (
                json!({"$ref": "other.json#/a"}),
                "remote $ref \"other.json#/a\" at (root)",
            ),
            (
                json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}}),
                "$ref \"#/$defs/Missing\" at /properties/a does not resolve",
            ),
            (
                json!({"properties": {"a": {"$ref": "#/properties/a/x"}}}),
                "does not resolve",
            ),
            (
                json!({"properties": {"a": {"$ref": "#/enum"}}, "enum": [1]}),
                "points at [1], not a schema",
            ),
            (
                json!({"properties": {"a": {"$ref": "#nowhere"}}}),
                "names no anchor \"nowhere\"",
            ),
            (
                json!({"properties": {"a": {"$ref": "#/%zz"}}}),
                "malformed %-escape",
            ),
            (json!({"$ref": 5}), "$ref at (root) must be a string, got 5"),
        ];
        for (schema, fragment) in cases {
            let err = run(schema.clone(), NormalizeOptions::default()).unwrap_err();
            assert_eq!(err.code, ErrorCode::ValidationError, "{schema}");
            assert!(err.message.contains(fragment), "{schema}: {}", err.message);
        }
    }

    /// 30 definitions, each referring to the next twice: 2^30 copies if inlined naively.
    #[test]
    fn exponential_inlining_fails_fast() {
        let mut defs = Map::new();
        for i in 0..30 {
            let next = if i == 29 {
                json!({"type": "string"})
            } else {
                json!({"type": "object", "properties": {
                    "l": {"$ref": format!("#/$defs/D{}", i + 1)},
                    "r": {"$ref": format!("#/$defs/D{}", i + 1)}
                }})
            };
            defs.insert(format!("D{i}"), next);
        }
        let schema = json!({"$ref": "#/$defs/D0", "$defs": defs});
        let started = std::time::Instant::now();
        let err = run(
            schema,
            NormalizeOptions {
                max_depth: 256,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(err.message.contains("maxBytes 1048576"), "{}", err.message);
        assert!(
            started.elapsed().as_secs() < 5,
            "took {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn depth_is_checked_on_the_input_and_on_the_inlined_output() {
        let options = NormalizeOptions {
            max_depth: 3,
            ..Default::default()
        };
        let deep_input = json!({"properties": {"a": {"properties": {"b": {"not": {}}}}}});
        let err = run(deep_input, options).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(
            err.message.contains("/properties/a/properties/b/not"),
            "{}",
            err.message
        );

        let deep_output = json!({
            "properties": {"a": {"items": {"$ref": "#/$defs/A"}}},
            "$defs": {"A": {"items": {}}}
        });
        let err = run(deep_output, options).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded);
        assert!(err.message.contains("inlined"), "{}", err.message);

        let aliases = json!({"$ref": "#/$defs/A0", "$defs": {
            "A0": {"$ref": "#/$defs/A1"}, "A1": {"$ref": "#/$defs/A2"},
            "A2": {"$ref": "#/$defs/A3"}, "A3": {}
        }});
        let err = run(aliases, options).unwrap_err();
        assert!(
            err.message.contains("expanded inside each other"),
            "{}",
            err.message
        );
    }
}
