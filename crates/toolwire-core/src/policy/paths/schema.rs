//! Path parameters found through a tool's schema, the way validation applies it: local `$ref`s
//! are followed and `allOf`/`anyOf`/`oneOf` branches walked (what TypeBox `Intersect`, zod
//! `.and` and discriminated unions emit), into nested objects (`properties`,
//! `additionalProperties`) and array items (`items`, `prefixItems`).

use std::collections::{HashSet, VecDeque};

use indexmap::IndexMap;
use serde_json::Value;

use super::names::is_path_name;
use super::param::{PathParam, Segment};
use crate::schema::{applied, ref_target};

/// How deep a parameter is looked for (in segments).
const MAX_PARAM_DEPTH: usize = 32;

/// The most schemas visited while looking for parameters; past it the search stops (the
/// arguments' path-named keys are checked anyway).
const MAX_VISITS: usize = 4096;

/// How deep `$ref`s and applicators are followed to decide [`may_hold_strings`].
const MAX_TYPE_DEPTH: usize = 64;

/// The path-named properties ([`is_path_name`]) `schema` declares anywhere, whose schema does
/// not rule out a string ([`may_hold_strings`]), in declaration order. A recursive schema is
/// walked once per branch.
pub fn schema_path_params(schema: &Value) -> Vec<PathParam> {
    let mut found = Vec::new();
    let mut seen: HashSet<PathParam> = HashSet::new();
    let mut visits = 0usize;
    // Breadth first, so the shallow parameters come first and survive the visit budget:
    // (the schemas applied at a place, the place, the schemas on the way there).
    let mut queue: VecDeque<Place> = VecDeque::from([(vec![schema], Vec::new(), Vec::new())]);
    while let Some((schemas, prefix, mut ancestors)) = queue.pop_front() {
        if prefix.len() > MAX_PARAM_DEPTH {
            continue;
        }
        let reached: Vec<&Value> = applied(schema, &schemas)
            .into_iter()
            .filter(|schema| !ancestors.contains(&(*schema as *const Value)))
            .collect();
        visits += reached.len();
        if reached.is_empty() || visits > MAX_VISITS {
            continue;
        }
        ancestors.extend(reached.iter().map(|schema| *schema as *const Value));
        let child = |segment: Segment| child_of(&prefix, segment);
        for (name, subs) in properties(&reached) {
            let at = child(Segment::Key(name.to_string()));
            if is_path_name(name) {
                let mut add = |segments: Vec<Segment>| {
                    let param = PathParam { segments };
                    if seen.insert(param.clone()) {
                        found.push(param);
                    }
                };
                if subs.iter().any(|sub| may_hold_strings(schema, sub)) {
                    add(at.clone());
                }
                // A map of paths: `paths: { additionalProperties: { type: string } }`.
                let values = object_values(&applied(schema, &subs));
                if values.iter().any(|sub| may_hold_strings(schema, sub)) {
                    add(child_of(&at, Segment::Any));
                }
            }
            queue.push_back((subs, at, ancestors.clone()));
        }
        let members = members(&reached);
        if !members.is_empty() {
            queue.push_back((members, child(Segment::Any), ancestors));
        }
    }
    found
}

/// `prefix` and one more segment.
fn child_of(prefix: &[Segment], segment: Segment) -> Vec<Segment> {
    let mut out = prefix.to_vec();
    out.push(segment);
    out
}

/// A place of the schema walk: the schemas applied there, the way there, and the schemas on the
/// way (to stop at recursion).
type Place<'d> = (Vec<&'d Value>, Vec<Segment>, Vec<*const Value>);

/// The `properties` of `reached`, by name, with every schema given for each.
fn properties<'d>(reached: &[&'d Value]) -> IndexMap<&'d str, Vec<&'d Value>> {
    let mut by_name: IndexMap<&'d str, Vec<&'d Value>> = IndexMap::new();
    for schema in reached {
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, sub) in properties {
                by_name.entry(name.as_str()).or_default().push(sub);
            }
        }
    }
    by_name
}

/// The schemas of the items of an array and of the undeclared values of an object:
/// `items`, `prefixItems`, `additionalItems`, `additionalProperties`, `patternProperties`.
fn members<'d>(reached: &[&'d Value]) -> Vec<&'d Value> {
    let mut out = Vec::new();
    for schema in reached {
        for key in [
            "items",
            "prefixItems",
            "additionalItems",
            "additionalProperties",
        ] {
            match schema.get(key) {
                Some(Value::Array(tuple)) => out.extend(tuple.iter()),
                Some(sub @ Value::Object(_)) => out.push(sub),
                _ => {}
            }
        }
        if let Some(Value::Object(patterns)) = schema.get("patternProperties") {
            out.extend(patterns.values());
        }
    }
    out
}

/// The schemas of the undeclared values of an object: `additionalProperties`,
/// `patternProperties`.
fn object_values<'d>(reached: &[&'d Value]) -> Vec<&'d Value> {
    let mut out = Vec::new();
    for schema in reached {
        if let Some(sub @ Value::Object(_)) = schema.get("additionalProperties") {
            out.push(sub);
        }
        if let Some(Value::Object(patterns)) = schema.get("patternProperties") {
            out.extend(patterns.values());
        }
    }
    out
}

/// Whether `param` can name a value of arguments valid against `schema`: each name is a
/// property of the schemas applied there (through `$ref`, `allOf`, `anyOf`, `oneOf`, and array
/// items on the way), or those schemas declare no properties and allow any.
pub fn declares(schema: &Value, param: &PathParam) -> bool {
    let mut current = vec![schema];
    for segment in &param.segments {
        let mut reached = applied(schema, &current);
        // Arrays on the way are entered item by item, as the check does.
        for _ in 0..MAX_PARAM_DEPTH {
            let named = match segment {
                Segment::Key(name) => !properties_named(&reached, name).is_empty(),
                Segment::Any => true,
            };
            let items = array_items(&reached);
            if named || items.is_empty() {
                break;
            }
            if let Segment::Key(name) = segment {
                if name.parse::<usize>().is_ok() {
                    break;
                }
            }
            reached = applied(schema, &items);
        }
        current = match segment {
            Segment::Any => members(&reached),
            Segment::Key(name) => {
                let named = properties_named(&reached, name);
                if !named.is_empty() {
                    named
                } else if name.parse::<usize>().is_ok() && !array_items(&reached).is_empty() {
                    array_items(&reached)
                } else {
                    return is_open(&reached);
                }
            }
        };
        if current.is_empty() {
            return true;
        }
    }
    true
}

/// The schemas `reached` give property `name`.
fn properties_named<'d>(reached: &[&'d Value], name: &str) -> Vec<&'d Value> {
    reached
        .iter()
        .filter_map(|schema| schema.get("properties")?.get(name))
        .collect()
}

/// The item schemas of `reached` (`items`, `prefixItems`, `additionalItems`).
fn array_items<'d>(reached: &[&'d Value]) -> Vec<&'d Value> {
    let mut out = Vec::new();
    for schema in reached {
        for key in ["items", "prefixItems", "additionalItems"] {
            match schema.get(key) {
                Some(Value::Array(tuple)) => out.extend(tuple.iter()),
                Some(sub @ Value::Object(_)) => out.push(sub),
                _ => {}
            }
        }
    }
    out
}

/// Whether `reached` leave any property name open: each may be an object (by `type`, `const`
/// and `enum`) and none declares `properties`, `patternProperties` or
/// `additionalProperties: false`.
fn is_open(reached: &[&Value]) -> bool {
    reached.iter().all(|schema| {
        let declared = schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| !properties.is_empty());
        let may_be_object = match schema.get("type") {
            None => true,
            Some(Value::String(kind)) => kind == "object",
            Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
            Some(_) => false,
        };
        let values_allow = schema.get("const").is_none_or(Value::is_object)
            && match schema.get("enum") {
                Some(Value::Array(values)) => values.iter().any(Value::is_object),
                _ => true,
            };
        !declared
            && may_be_object
            && values_allow
            && schema.get("patternProperties").is_none()
            && schema.get("additionalProperties") != Some(&Value::Bool(false))
    })
}

/// Whether a value valid against the property schema `property` (in schema `doc`) can be a
/// string, or an array holding strings: the schema does not rule them out. `true`, `{}` and a
/// schema without `type` can; `type` must name `string` (or `array` with items that can);
/// `anyOf` and `oneOf` need a branch that can, `allOf` and a `$ref` every one; `enum` and
/// `const` need a string value. A schema that is not an object or boolean rules everything out.
pub fn may_hold_strings(doc: &Value, property: &Value) -> bool {
    may_hold(doc, property, 0)
}

fn may_hold(doc: &Value, property: &Value, depth: usize) -> bool {
    if depth > MAX_TYPE_DEPTH {
        return true;
    }
    let object = match property {
        Value::Bool(allowed) => return *allowed,
        Value::Object(object) => object,
        _ => return false,
    };
    let next = |schema: &Value| may_hold(doc, schema, depth + 1);
    let type_allows = |kind: &str| match kind {
        "string" => true,
        "array" => object.get("items").is_none_or(next),
        _ => false,
    };
    let types = match object.get("type") {
        None => true,
        Some(Value::String(kind)) => type_allows(kind),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .any(|kind| kind.as_str().is_some_and(type_allows)),
        Some(_) => false,
    };
    let some_branch = |key: &str| match object.get(key) {
        None => true,
        Some(Value::Array(branches)) => branches.iter().any(next),
        Some(_) => false,
    };
    let every_branch = match object.get("allOf") {
        None => true,
        Some(Value::Array(branches)) => branches.iter().all(next),
        Some(_) => false,
    };
    let referenced = ref_target(doc, property).is_none_or(next);
    let enum_allows = match object.get("enum") {
        None => true,
        Some(Value::Array(values)) => values.iter().any(Value::is_string),
        Some(_) => false,
    };
    let const_allows = object.get("const").is_none_or(Value::is_string);
    types
        && some_branch("anyOf")
        && some_branch("oneOf")
        && every_branch
        && referenced
        && enum_allows
        && const_allows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(schema: &Value) -> Vec<String> {
        schema_path_params(schema)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn property_schemas_that_may_hold_paths() {
        let schema = json!({
            "type": "object",
            "$defs": { "p": { "type": "string" }, "n": { "type": "integer" } },
            "properties": {
                "path": { "type": "string" },
                "file_path": { "type": "string" },
                "filePath": { "type": ["string", "null"] },
                "dir": {},
                "cwd": true,
                "outputPath": { "anyOf": [{ "type": "null" }, { "type": "string" }] },
                "sourcePath": { "type": "array", "items": { "type": "string" } },
                "inputPath": { "oneOf": [{ "type": "integer" }, { "type": "string" }] },
                "basePath": { "description": "no type at all" },
                "listPath": { "type": "array" },
                "modePath": { "enum": ["a", 1] },
                "refPath": { "$ref": "#/$defs/p" },
                "countRefPath": { "$ref": "#/$defs/n" },
                "countPath": { "type": "integer" },
                "numberPath": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "flagPath": { "oneOf": [{ "type": "boolean" }] },
                "boolPath": { "type": ["boolean", "null"] },
                "numbersPath": { "type": "array", "items": { "type": "number" } },
                "onePath": { "const": 1 },
                "neverPath": false,
                "bothPath": { "allOf": [{ "type": "string" }, { "type": "integer" }] },
                "name": { "type": "string" },
                "paths": { "type": "array", "items": { "type": "string" } },
            }
        });
        assert_eq!(
            shown(&schema),
            [
                "path",
                "file_path",
                "filePath",
                "dir",
                "cwd",
                "outputPath",
                "sourcePath",
                "inputPath",
                "basePath",
                "listPath",
                "modePath",
                "refPath",
                "paths"
            ]
        );
        assert!(shown(&json!({ "type": "string" })).is_empty());
        assert!(shown(&json!(true)).is_empty());
    }

    /// The root shapes schema libraries emit, each holding a `path` somewhere.
    #[test]
    fn path_params_are_found_through_every_root_shape() {
        let rows = [
            (
                "a $ref root (zod-to-json-schema with $refStrategy, TypeBox Ref)",
                json!({ "$ref": "#/$defs/Args", "$defs": { "Args": {
                    "type": "object", "properties": { "path": { "type": "string" } } } } }),
                vec!["path"],
            ),
            (
                "TypeBox Intersect / zod .and: allOf of objects",
                json!({ "allOf": [
                    { "type": "object", "properties": { "source_path": { "type": "string" } } },
                    { "type": "object", "properties": { "outputPath": { "type": "string" } } } ] }),
                vec!["source_path", "outputPath"],
            ),
            (
                "zod discriminatedUnion: anyOf of objects with a literal tag",
                json!({ "anyOf": [
                    { "type": "object", "properties": { "op": { "const": "read" },
                        "path": { "type": "string" } } },
                    { "type": "object", "properties": { "op": { "const": "copy" },
                        "from": { "type": "string" }, "destination": { "type": "string" } } } ] }),
                vec!["path", "from", "destination"],
            ),
            (
                "oneOf (TypeBox Union)",
                json!({ "oneOf": [
                    { "type": "object", "properties": { "dir": { "type": "string" } } },
                    { "$ref": "#/definitions/B" } ],
                    "definitions": { "B": { "properties": { "file": { "type": "string" } } } } }),
                vec!["dir", "file"],
            ),
            (
                "nested objects and arrays of objects",
                json!({ "type": "object", "properties": {
                    "options": { "type": "object", "properties": {
                        "output": { "type": "object", "properties": { "dir": { "type": "string" } } } } },
                    "files": { "type": "array", "items": { "$ref": "#/$defs/F" } },
                    "pair": { "type": "array", "prefixItems": [ { "type": "object",
                        "properties": { "cwd": { "type": "string" } } } ] },
                    "byName": { "type": "object", "additionalProperties": {
                        "type": "object", "properties": { "path": { "type": "string" } } } },
                    "paths": { "type": "object", "additionalProperties": { "type": "string" } } },
                    "$defs": { "F": { "type": "object", "properties": {
                        "path": { "type": "string" }, "content": { "type": "string" } } } } }),
                vec![
                    "paths.*",
                    "options.output.dir",
                    "files.*.path",
                    "pair.*.cwd",
                    "byName.*.path",
                ],
            ),
            (
                "a recursive tree is walked once per branch",
                json!({ "$ref": "#/$defs/Node", "$defs": { "Node": { "type": "object",
                    "properties": { "path": { "type": "string" },
                        "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } } } } } }),
                vec!["path"],
            ),
        ];
        for (shape, schema, expected) in rows {
            assert_eq!(shown(&schema), expected, "{shape}");
        }
    }

    #[test]
    fn an_exponential_schema_stays_bounded() {
        // Each level refers to the next twice: 2^40 ways down, visited a bounded number of times.
        let mut defs = serde_json::Map::new();
        for level in 0..40 {
            let next = json!({ "$ref": format!("#/$defs/L{}", level + 1) });
            defs.insert(
                format!("L{level}"),
                json!({ "properties": { "a": next, "b": next, "path": {} } }),
            );
        }
        defs.insert("L40".into(), json!({ "type": "string" }));
        let schema = json!({ "$ref": "#/$defs/L0", "$defs": defs });
        let found = schema_path_params(&schema);
        assert!(found.len() <= MAX_VISITS, "{}", found.len());
        assert_eq!(found[0].to_string(), "path");
    }

    #[test]
    fn declared_params_are_looked_up_through_the_schema() {
        let schema = json!({ "allOf": [
            { "$ref": "#/$defs/A" },
            { "type": "object", "properties": {
                "files": { "type": "array", "items": { "type": "object",
                    "properties": { "location": { "type": "string" } } } },
                "map": { "type": "object", "additionalProperties": { "type": "string" } } } } ],
            "$defs": { "A": { "type": "object", "properties": { "from": { "type": "string" } } } } });
        for (param, declared) in [
            ("from", true),
            ("files.*.location", true),
            ("files.location", true),
            ("/files/*/location", true),
            ("files.0.location", true),
            ("map.*", true),
            ("nope", false),
            ("files.*.nope", false),
        ] {
            let param = PathParam::parse(param).unwrap();
            assert_eq!(declares(&schema, &param), declared, "{param}");
        }
        let open = json!({ "type": "object", "properties": {} });
        assert!(declares(&open, &PathParam::parse("any.thing").unwrap()));
        let closed = json!({ "type": "object", "additionalProperties": false });
        assert!(!declares(&closed, &PathParam::key("target")));
    }
}
