//! The way back from the strict form: the model's arguments for a strict schema carry a `null`
//! for every optional property it left out; those nulls are removed so the arguments validate
//! against the original schema (which validation always uses).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::refs::{applied, ref_target};

/// Nesting of the arguments beyond which they are left as they are.
const MAX_ARGS_DEPTH: usize = 256;

/// Strips from the model's arguments the nulls that the strict form forced: a property whose
/// value is null, that the ORIGINAL schema does not require and whose original schema does not
/// allow null, is removed (recursively through nested objects/arrays following the original
/// schema's properties/items, and through inlined local $refs). Everything else is unchanged.
pub fn denormalize_strict(original: &Value, args: Value) -> Value {
    let mut args = args;
    let mut schemas = Schemas {
        doc: original,
        required: HashMap::new(),
        nullable: HashMap::new(),
    };
    schemas.strip(&[original], &mut args, 0);
    args
}

/// A schema object's address, to remember what was worked out for it.
type Key = *const Value;

struct Schemas<'d> {
    doc: &'d Value,
    /// `required` names per schema (with its `$ref`s and applicators); `None` while in progress.
    required: HashMap<Key, Option<HashSet<&'d str>>>,
    /// Whether each schema allows null; `None` while in progress.
    nullable: HashMap<Key, Option<bool>>,
}

impl<'d> Schemas<'d> {
    fn target(&self, schema: &'d Value) -> Option<&'d Value> {
        ref_target(self.doc, schema)
    }

    fn reach(&self, schemas: &[&'d Value]) -> Vec<&'d Value> {
        applied(self.doc, schemas)
    }

    /// The names `schema` surely requires: its own, its `$ref`'s and every `allOf` branch's,
    /// and those every `anyOf`/`oneOf` variant requires.
    fn required(&mut self, schema: &'d Value) -> HashSet<&'d str> {
        let key = schema as Key;
        match self.required.get(&key) {
            Some(Some(done)) => return done.clone(),
            Some(None) => return HashSet::new(),
            None => {}
        }
        self.required.insert(key, None);
        let mut names: HashSet<&'d str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if let Some(target) = self.target(schema) {
            names.extend(self.required(target));
        }
        if let Some(Value::Array(branches)) = schema.get("allOf") {
            for branch in branches {
                names.extend(self.required(branch));
            }
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = schema.get(union) {
                let mut common: Option<HashSet<&'d str>> = None;
                for variant in variants {
                    let these = self.required(variant);
                    common = Some(match common {
                        None => these,
                        Some(prev) => prev.intersection(&these).copied().collect(),
                    });
                }
                names.extend(common.unwrap_or_default());
            }
        }
        self.required.insert(key, Some(names.clone()));
        names
    }

    /// Whether `schema` accepts `null` (when unsure: yes, so the value is kept).
    fn allows_null(&mut self, schema: &'d Value) -> bool {
        let Value::Object(map) = schema else {
            return schema != &Value::Bool(false);
        };
        let key = schema as Key;
        match self.nullable.get(&key) {
            Some(Some(done)) => return *done,
            Some(None) => return true,
            None => {}
        }
        self.nullable.insert(key, None);
        let mut ok = match map.get("type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => true,
        };
        if let Some(Value::Array(values)) = map.get("enum") {
            ok &= values.iter().any(Value::is_null);
        }
        if let Some(value) = map.get("const") {
            ok &= value.is_null();
        }
        if ok {
            if let Some(target) = self.target(schema) {
                ok = self.allows_null(target);
            }
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            for branch in branches {
                ok = ok && self.allows_null(branch);
            }
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = map.get(union) {
                if ok {
                    let mut any = false;
                    for variant in variants {
                        any = any || self.allows_null(variant);
                    }
                    ok = any;
                }
            }
        }
        self.nullable.insert(key, Some(ok));
        ok
    }

    /// Strips the forced nulls from `value`, whose schema is each of `schemas` (alternatives).
    fn strip(&mut self, schemas: &[&'d Value], value: &mut Value, depth: usize) {
        if depth > MAX_ARGS_DEPTH || schemas.is_empty() {
            return;
        }
        match value {
            Value::Object(members) => {
                let reached = self.reach(schemas);
                let mut props: HashMap<&str, Vec<&'d Value>> = HashMap::new();
                for schema in &reached {
                    if let Some(Value::Object(properties)) = schema.get("properties") {
                        for (name, sub) in properties {
                            props.entry(name.as_str()).or_default().push(sub);
                        }
                    }
                }
                let mut required: Option<HashSet<&'d str>> = None;
                for schema in schemas {
                    let these = self.required(schema);
                    required = Some(match required {
                        None => these,
                        Some(prev) => prev.intersection(&these).copied().collect(),
                    });
                }
                let required = required.unwrap_or_default();
                let mut forced: Vec<String> = Vec::new();
                for (name, member) in members.iter() {
                    if !member.is_null() || required.contains(name.as_str()) {
                        continue;
                    }
                    let Some(subs) = props.get(name.as_str()) else {
                        continue;
                    };
                    let subs = subs.clone();
                    if !subs.into_iter().any(|s| self.allows_null(s)) {
                        forced.push(name.clone());
                    }
                }
                for name in forced {
                    members.remove(&name);
                }
                for (name, member) in members.iter_mut() {
                    if let Some(subs) = props.get(name.as_str()) {
                        let subs = subs.clone();
                        self.strip(&subs, member, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                let reached = self.reach(schemas);
                for (i, item) in items.iter_mut().enumerate() {
                    let subs = item_schemas(&reached, i);
                    self.strip(&subs, item, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The schemas of item `i` of an array, from `prefixItems`/`items` (tuple `items` and
/// `additionalItems` too).
fn item_schemas<'d>(reached: &[&'d Value], i: usize) -> Vec<&'d Value> {
    let mut out = Vec::new();
    for schema in reached {
        let (tuple, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Value::Array(prefix)), items) => (Some(prefix), items),
            (None, Some(Value::Array(items))) => (Some(items), schema.get("additionalItems")),
            (_, items) => (None, items),
        };
        match tuple.and_then(|t| t.get(i)) {
            Some(sub) => out.push(sub),
            None => out.extend(rest.filter(|r| r.is_object() || r.is_boolean())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forced_nulls_are_stripped_and_real_ones_kept() {
        let original = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "note": {"type": ["string", "null"]},
                "must": {"type": "string"},
                "any": {},
                "place": {"$ref": "#/$defs/Place"},
                "stops": {"type": "array", "items": {"$ref": "#/$defs/Place"}},
                "pair": {"type": "array", "prefixItems": [{"$ref": "#/$defs/Place"}, {"type": "integer"}]}
            },
            "required": ["city", "must"],
            "$defs": {"Place": {"type": "object", "properties": {
                "lat": {"type": "number"},
                "label": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "near": {"$ref": "#/$defs/Place"}
            }, "required": ["lat"]}}
        });
        let cases = [
            (
                json!({"city": "Oslo", "unit": null, "note": null, "must": null, "any": null}),
                json!({"city": "Oslo", "note": null, "must": null, "any": null}),
            ),
            (
                json!({"city": "Oslo", "place": {"lat": null, "label": null, "near": {"lat": 1, "near": null, "label": null}}}),
                json!({"city": "Oslo", "place": {"lat": null, "label": null, "near": {"lat": 1, "label": null}}}),
            ),
            (
                json!({"stops": [{"lat": 1, "near": null}, null], "pair": [{"near": null}, null], "extra": null}),
                json!({"stops": [{"lat": 1}, null], "pair": [{}, null], "extra": null}),
            ),
            (json!("not an object"), json!("not an object")),
        ];
        for (args, expected) in cases {
            assert_eq!(
                denormalize_strict(&original, args.clone()),
                expected,
                "{args}"
            );
        }
    }

    #[test]
    fn unions_merged_at_the_root_follow_every_variant() {
        let original = json!({"anyOf": [
            {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
            {"properties": {"a": {"type": "string"}, "c": {"type": "boolean"}}, "required": ["a"]}
        ]});
        let args = json!({"a": null, "b": null, "c": null});
        assert_eq!(denormalize_strict(&original, args), json!({"a": null}));
    }

    #[test]
    fn recursive_schemas_end() {
        let original =
            json!({"allOf": [{"$ref": "#"}], "properties": {"x": {"$ref": "#/properties/x"}}});
        let args = json!({"x": null});
        assert_eq!(denormalize_strict(&original, args.clone()), args);
    }
}
