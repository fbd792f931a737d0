//! Local `$ref` inlining. Every `$ref` of the input is local: a fragment (`#`, `#/json/pointer`,
//! `#anchor`) of the schema resource it is in, or a URI that names a schema resource the
//! document itself declares with `$id` (the root or a nested one; relative URIs resolved against
//! the base URI of the resource the `$ref` is in, as JSON Schema resolves them: TypeBox's
//! `Type.Recursive` and `Type.Cyclic` refer to their schemas so), with a fragment of that
//! resource or none. Any other reference is remote and refused, never fetched. Each is replaced
//! by a copy of its target with the `$ref`'s siblings merged over it, a reference back into a
//! schema it is inside is cut (it becomes `{}`, reported), and `$defs`/`definitions` are dropped
//! (reported). The output is capped by depth and by an estimate of its JSON size kept while it
//! is built, so a schema that would blow up exponentially fails after at most `max_bytes` of
//! work.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use url::Url;

use super::limits::{json_len, walk_schemas};
use super::node::{child, is_prefix, shape, show, At, Name, Node, Obj, Shape, Val, Word};
use super::report::Report;
use super::target::NormalizeOptions;
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_string;

/// Anchors of the input by (resource pointer, name) → pointer of the schema that has them.
type Anchors = HashMap<(String, String), String>;

/// The base URI of a document that declares none (the root has no absolute `$id`): the one the
/// validator (`jsonschema`) takes, so both resolve a relative `$id` and `$ref` alike.
const DEFAULT_BASE: &str = "json-schema:///";

/// The schema resources a document declares: the root, and each schema with a `$id` that is
/// not a plain fragment, by pointer, with its absolute URI (its `$id` resolved against the URI
/// of the resource it is in).
#[derive(Debug, Default)]
pub(crate) struct Resources {
    /// `(pointer, URI without fragment)`, in document order, the root first.
    list: Vec<(String, Url)>,
}

impl Resources {
    /// The resources of `doc` (every schema object visited; no limit but the document's own).
    fn of(doc: &Value) -> Resources {
        let mut resources = Resources::default();
        // (a document deeper than this was refused when its tool was registered)
        let _ = walk_schemas(doc, usize::MAX, "the schema", |visit| {
            resources.visit(visit.at, visit.map);
            Ok(())
        });
        resources
    }

    /// Records the resource that the schema at `at` (visited in document order) declares.
    fn visit(&mut self, at: &str, map: &Map<String, Value>) {
        let id = map
            .get("$id")
            .and_then(Value::as_str)
            .filter(|id| !id.starts_with('#'));
        if !at.is_empty() && id.is_none() {
            return;
        }
        // The resource it is in: the latest recorded whose pointer encloses it (document order
        // puts the nearest last).
        let base = match self
            .list
            .iter()
            .rev()
            .find(|(p, _)| is_prefix(p, at) && p != at)
        {
            Some((_, uri)) => uri.clone(),
            None => Url::parse(DEFAULT_BASE).expect("a valid URI"),
        };
        let mut uri = match id {
            Some(id) => match base.join(id) {
                Ok(uri) => uri,
                // (not a URI reference: the meta-schema check names it)
                Err(_) if at.is_empty() => base,
                Err(_) => return,
            },
            None => base,
        };
        uri.set_fragment(None);
        self.list.push((at.to_owned(), uri));
    }

    /// The URI of the resource at pointer `base`.
    fn uri(&self, base: &str) -> Option<&Url> {
        self.list
            .iter()
            .find(|(p, _)| p == base)
            .map(|(_, uri)| uri)
    }

    /// Where `r`, met in the resource at pointer `base`, points: the pointer of the resource it
    /// names (`base` itself for a fragment alone) and its fragment (`#…`, `#` for none); `None`
    /// when it names a resource the document does not declare (remote).
    fn locate<'r>(&self, r: &'r str, base: &str) -> Option<(String, &'r str)> {
        let (uri, fragment) = match r.find('#') {
            Some(at) => (&r[..at], &r[at..]),
            None => (r, "#"),
        };
        if uri.is_empty() {
            return Some((base.to_owned(), fragment));
        }
        let mut target = self.uri(base)?.join(uri).ok()?;
        target.set_fragment(None);
        self.list
            .iter()
            .find(|(_, u)| *u == target)
            .map(|(p, _)| (p.clone(), fragment))
    }
}

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

fn too_big(message: String) -> Error {
    Error::caller(ErrorCode::LimitExceeded, message)
}

/// What [`survey`] finds: the anchors and the schema resources of the input.
struct Survey {
    anchors: Anchors,
    resources: Resources,
}

/// Checks the depth of the input and that every `$ref` is a string that is local (a fragment,
/// or a URI of a resource the input declares); collects the anchors and resources.
fn survey(doc: &Value, max_depth: usize) -> Result<Survey> {
    let mut anchors = Anchors::new();
    let mut resources = Resources::default();
    // `$ref`s that name a URI, checked once every resource is known: (pointer, base, ref).
    let mut named = Vec::new();
    walk_schemas(doc, max_depth, "the schema", |visit| {
        resources.visit(visit.at, visit.map);
        match visit.map.get("$ref") {
            None => {}
            Some(Value::String(r)) if r.starts_with('#') => {}
            Some(Value::String(r)) => {
                named.push((visit.at.to_owned(), visit.base.to_owned(), r.clone()))
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
    for (at, base, r) in named {
        if resources.locate(&r, &base).is_none() {
            return Err(remote(&r, &at));
        }
    }
    Ok(Survey { anchors, resources })
}

/// The error of a `$ref` at `at` that names no resource of the document.
fn remote(r: &str, at: &str) -> Error {
    invalid(format!(
        "remote $ref {} at {} is not fetched; inline it (a $ref to a URI is local only when a \
         $id of the same schema declares it)",
        json_string(r),
        show(at)
    ))
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
/// does not resolve. A `$ref` naming a URI is resolved against the root's base URI (where
/// TypeBox's names are declared), the resources of `doc` found for it.
pub(crate) fn ref_target<'d>(doc: &'d Value, schema: &'d Value) -> Option<&'d Value> {
    let r = schema.get("$ref")?.as_str()?;
    if r.starts_with('#') {
        return resolve(doc, None, r, "").ok().map(|(_, value)| value);
    }
    let (base, fragment) = Resources::of(doc).locate(r, "")?;
    let anchors = (fragment.len() > 1 && !fragment.starts_with("#/")).then(|| anchors_of(doc));
    resolve(doc, anchors.as_ref(), fragment, &base)
        .ok()
        .map(|(_, value)| value)
}

/// The anchors of `doc` (for a `$ref` naming one in another resource).
fn anchors_of(doc: &Value) -> Anchors {
    survey(doc, usize::MAX)
        .map(|survey| survey.anchors)
        .unwrap_or_default()
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
    let Survey { anchors, resources } = survey(doc, options.max_depth)?;
    let mut inliner = Inliner {
        doc,
        anchors,
        resources,
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
    resources: Resources,
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
        let Some(r) = r.as_str() else {
            return Err(invalid(format!(
                "$ref {} at {} is not a local reference; inline it",
                super::node::short(r),
                show(at)
            )));
        };
        let (resource, fragment) = self
            .resources
            .locate(r, base)
            .ok_or_else(|| remote(r, at))?;
        let (target, value) = resolve(self.doc, Some(&self.anchors), fragment, &resource)
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

    /// A `$ref` to a URI that a `$id` of the same schema declares is local: TypeBox's
    /// `Type.Recursive` (0.34) refers to its root by its `$id`, `Type.Cyclic` (1.x) to `$defs`
    /// entries by theirs. The recursion is cut as a `#` one is; the validator resolves the
    /// same references in the original schema.
    #[test]
    fn refs_to_a_declared_id_are_local() {
        let recursive = json!({"$id": "T0", "type": "object", "required": ["id", "kids"],
            "properties": {"id": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "T0"}}}});
        let (output, removed, warnings) =
            run(recursive.clone(), NormalizeOptions::default()).unwrap();
        assert_eq!(
            output["properties"]["kids"],
            json!({"type": "array", "items": {}})
        );
        assert_eq!(
            removed,
            [("/properties/kids/items/$ref".to_owned(), "$ref".to_owned())]
        );
        assert!(
            warnings[0].contains("recursive $ref \"T0\""),
            "{warnings:?}"
        );

        let cyclic = json!({"$defs": {
                "A": {"$id": "A", "type": "object", "required": ["b"], "properties": {"b": {"$ref": "B"}}},
                "B": {"$id": "B", "type": "object", "properties": {"a": {"$ref": "A"}}}},
            "$ref": "A"});
        let (output, _, _) = run(cyclic.clone(), NormalizeOptions::default()).unwrap();
        assert_eq!(
            output,
            json!({"$id": "A", "type": "object", "required": ["b"], "properties": {"b":
                {"$id": "B", "type": "object", "properties": {"a": {}}}}})
        );

        for (schema, valid, invalid) in [
            (
                &recursive,
                json!({"id": "r", "kids": [{"id": "a", "kids": [{"id": "b", "kids": []}]}]}),
                json!({"id": "r", "kids": [{"id": "a", "kids": [{"id": 5, "kids": []}]}]}),
            ),
            (
                &cyclic,
                json!({"b": {"a": {"b": {}}}}),
                json!({"b": {"a": {"b": 5}}}),
            ),
        ] {
            let validator = jsonschema::validator_for(schema).unwrap();
            assert!(validator.is_valid(&valid), "{schema}");
            assert!(!validator.is_valid(&invalid), "{schema}");
        }
    }

    /// Relative references resolve against the base URI of the resource they are in, nested
    /// `$id`s against the one they are in; absolute ones name the resource outright.
    #[test]
    fn refs_resolve_against_their_base_uri() {
        let schema = json!({
            "$id": "https://example.com/schemas/root.json",
            "properties": {
                "item": {"$id": "item.json", "type": "string", "$anchor": "it"},
                "relative": {"$ref": "item.json"},
                "absolute": {"$ref": "https://example.com/schemas/item.json"},
                "pointer": {"$ref": "root.json#/properties/number"},
                "anchor": {"$ref": "item.json#it"},
                "number": {"type": "number"},
                "nested": {"$id": "sub/nested.json", "properties": {
                    "up": {"$ref": "../item.json"},
                    "own": {"$ref": "#/properties/local"},
                    "local": {"type": "boolean"}
                }}
            }
        });
        let (output, _, _) = run(schema, NormalizeOptions::default()).unwrap();
        let properties = &output["properties"];
        for name in ["relative", "absolute", "anchor"] {
            assert_eq!(properties[name]["type"], "string", "{name}: {output}");
        }
        assert_eq!(properties["pointer"], json!({"type": "number"}));
        assert_eq!(properties["nested"]["properties"]["up"]["type"], "string");
        assert_eq!(
            properties["nested"]["properties"]["own"],
            json!({"type": "boolean"})
        );

        // Without a base of its own, a relative `$id` names a resource all the same.
        let schema = json!({"properties": {"a": {"$id": "thing", "type": "integer"},
                                           "b": {"$ref": "thing"}}});
        let (output, _, _) = run(schema, NormalizeOptions::default()).unwrap();
        assert_eq!(
            output["properties"]["b"],
            json!({"$id": "thing", "type": "integer"})
        );
    }

    /// A reference to a URI no `$id` of the schema declares is remote, and refused naming it.
    #[test]
    fn refs_to_an_undeclared_id_are_remote() {
        let cases = [
            (
                json!({"$id": "T0", "properties": {"a": {"$ref": "T1"}}}),
                "remote $ref \"T1\" at /properties/a is not fetched",
            ),
            (
                json!({"$id": "https://example.com/a.json", "properties": {
                    "b": {"$id": "b.json"}, "c": {"$ref": "https://example.org/b.json"}}}),
                "remote $ref \"https://example.org/b.json\" at /properties/c",
            ),
            (
                json!({"properties": {"b": {"$id": "sub/b.json"}, "c": {"$ref": "b.json"}}}),
                "remote $ref \"b.json\" at /properties/c",
            ),
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
