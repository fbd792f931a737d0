//! The walk over one call's arguments that renames keys, joins structured text blocks and
//! coerces scalars, following the schema through `properties` and array items.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{Map, Number, Value};

use super::names::{canonical_form, item_schema, properties, resolve};
use super::{Coercion, Normalization, ParamRules, Rename, RenameReason};
use crate::pointer::push_token;

/// How deep the walk follows nested objects and arrays; deeper values are left as they are.
pub(crate) const MAX_DEPTH: usize = 64;

/// The largest magnitude below which every integer is exact in an `f64` (2^53).
const MAX_EXACT_FLOAT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Normalizes `args` in place against `schema` (the tool's root schema) and `rules`, recording
/// every change in `out`.
pub(crate) fn normalize(schema: &Value, rules: &ParamRules, args: &mut Value) -> Normalization {
    let mut walker = Walker {
        root: schema,
        rules,
        out: Normalization::default(),
        indexes: HashMap::new(),
    };
    walker.value(args, schema, &mut String::new(), 0);
    walker.out
}

/// Canonical form -> the one property with that form, or `None` when several share it.
type CanonicalIndex<'s> = HashMap<String, Option<&'s str>>;

/// The state of one walk: the rules, the report so far and the indexes built.
struct Walker<'s, 'r> {
    /// The tool's root schema, for local `$ref`s.
    root: &'s Value,
    rules: &'r ParamRules,
    out: Normalization,
    /// Canonical indexes of the `properties` maps met so far, by the map's address, so an array of
    /// many objects indexes its item schema once.
    indexes: HashMap<*const Map<String, Value>, CanonicalIndex<'s>>,
}

impl<'s> Walker<'s, '_> {
    /// Normalizes one value whose schema is `schema`; `path` is its JSON pointer.
    fn value(&mut self, value: &mut Value, schema: &'s Value, path: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let schema = resolve(self.root, schema);
        // Only an array (text blocks) or a value to coerce can change here: most values skip
        // reading the schema's types.
        let may_change = value.is_array() || self.rules.coerce;
        let types = if may_change {
            simple_types(schema)
        } else {
            None
        };
        if let Some(types) = types {
            if types.contains(&"string") {
                if let Some(text) = join_text_blocks(value) {
                    *value = Value::String(text);
                    self.coerced(path, "text-blocks", "string");
                    return;
                }
            }
            if self.rules.coerce && !types.iter().any(|t| has_type(value, t)) {
                if let Some((coerced, to)) = coerce(value, &types) {
                    let from = type_name(value);
                    *value = coerced;
                    self.coerced(path, from, to);
                    return;
                }
            }
        }
        match value {
            Value::Object(map) => self.object(map, schema, path, depth),
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    let Some(item_schema) = item_schema(self.root, schema, index) else {
                        // A tuple ran out of schemas; the rest have none either.
                        break;
                    };
                    let len = path.len();
                    // Writing to a String cannot fail.
                    let _ = write!(path, "/{index}");
                    self.value(item, item_schema, path, depth + 1);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// Renames the keys of one object, then normalizes the values of its declared properties.
    fn object(
        &mut self,
        map: &mut Map<String, Value>,
        schema: &'s Value,
        path: &mut String,
        depth: usize,
    ) {
        let declared = properties(self.root, schema);
        let renames = self.renames(map, declared, depth == 0);
        if !renames.is_empty() {
            apply_renames(map, &renames);
            for (from, (to, by)) in renames {
                self.out.renamed.push(Rename {
                    from,
                    to,
                    by,
                    path: path.clone(),
                });
            }
        }
        let Some(declared) = declared else {
            return;
        };
        for (key, child) in map.iter_mut() {
            if let Some(child_schema) = declared.get(key) {
                let len = path.len();
                push_token(path, key);
                self.value(child, child_schema, path, depth + 1);
                path.truncate(len);
            }
        }
    }

    /// The renames one object needs, `from -> (to, reason)`, sorted by `from`. Aliases (at the
    /// root only) and case matches are candidates when their target is absent; a target claimed
    /// by more than one key is ambiguous and none of them is renamed.
    fn renames(
        &mut self,
        map: &Map<String, Value>,
        declared: Option<&'s Map<String, Value>>,
        at_root: bool,
    ) -> Vec<(String, (String, RenameReason))> {
        let rules = self.rules;
        let mut by_target: HashMap<&str, Vec<(&str, RenameReason)>> = HashMap::new();
        if at_root {
            for (from, to) in &rules.aliases {
                if map.contains_key(from) && !map.contains_key(to) {
                    by_target
                        .entry(to)
                        .or_default()
                        .push((from, RenameReason::Alias));
                }
            }
        }
        if let Some(declared) = declared {
            let is_alias_source =
                |key: &str| at_root && rules.aliases.iter().any(|(from, _)| from == key);
            let unknown: Vec<&String> = map
                .keys()
                .filter(|key| !declared.contains_key(*key) && !is_alias_source(key))
                .collect();
            if !unknown.is_empty() {
                let index = self.index(declared);
                for key in unknown {
                    if let Some(&Some(target)) = index.get(&canonical_form(key)) {
                        if !map.contains_key(target) {
                            by_target
                                .entry(target)
                                .or_default()
                                .push((key, RenameReason::Case));
                        }
                    }
                }
            }
        }
        let mut renames: Vec<(String, (String, RenameReason))> = by_target
            .into_iter()
            .filter_map(|(to, sources)| match sources[..] {
                [(from, by)] => Some((from.to_owned(), (to.to_owned(), by))),
                _ => None,
            })
            .collect();
        renames.sort_by(|a, b| a.0.cmp(&b.0));
        renames
    }

    /// The canonical index of a `properties` map, built once per map.
    fn index(&mut self, declared: &'s Map<String, Value>) -> &CanonicalIndex<'s> {
        self.indexes
            .entry(std::ptr::from_ref(declared))
            .or_insert_with(|| {
                let mut index = CanonicalIndex::new();
                for name in declared.keys() {
                    index
                        .entry(canonical_form(name))
                        .and_modify(|unique| *unique = None)
                        .or_insert(Some(name.as_str()));
                }
                index
            })
    }

    fn coerced(&mut self, path: &str, from: &str, to: &str) {
        self.out.coerced.push(Coercion {
            path: path.to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
        });
    }
}

/// Rebuilds `map` with the renamed keys, every other entry kept as it was.
fn apply_renames(map: &mut Map<String, Value>, renames: &[(String, (String, RenameReason))]) {
    let old = std::mem::take(map);
    for (key, value) in old {
        let key = match renames.binary_search_by(|(from, _)| from.as_str().cmp(&key)) {
            Ok(found) => renames[found].1 .0.clone(),
            Err(_) => key,
        };
        map.insert(key, value);
    }
}

/// The names of a schema's `type` when it is a string or an array of strings.
pub(crate) fn simple_types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => names.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// The texts of an array of `{"type": "text", "text": ...}` blocks (and nothing else) joined
/// with newlines; `None` for anything else, an empty array included.
fn join_text_blocks(value: &Value) -> Option<String> {
    let blocks = value.as_array().filter(|blocks| !blocks.is_empty())?;
    let mut texts = Vec::with_capacity(blocks.len());
    for block in blocks {
        let block = block.as_object().filter(|block| block.len() == 2)?;
        if block.get("type").and_then(Value::as_str) != Some("text") {
            return None;
        }
        texts.push(block.get("text")?.as_str()?);
    }
    Some(texts.join("\n"))
}

/// Whether `value` is an instance of the JSON Schema type `name`.
pub(crate) fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "integer" => value.as_number().is_some_and(is_integral),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn is_integral(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The JSON type of a value as a report names it; whole numbers are `"integer"`.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `value` converted to the first of `types` it parses as, with that type's name.
fn coerce(value: &Value, types: &[&str]) -> Option<(Value, &'static str)> {
    types.iter().find_map(|&target| match (target, value) {
        ("integer", Value::String(text)) => parse_integer(text).map(|n| (n, "integer")),
        ("number", Value::String(text)) => parse_number(text).map(|n| (n, "number")),
        ("boolean", Value::String(text)) => parse_boolean(text).map(|b| (b, "boolean")),
        ("string", Value::Number(number)) => Some((Value::String(number.to_string()), "string")),
        ("string", Value::Bool(flag)) => Some((Value::String(flag.to_string()), "string")),
        _ => None,
    })
}

/// A JSON number literal, surrounding whitespace allowed.
fn parse_number(text: &str) -> Option<Value> {
    text.trim().parse::<Number>().ok().map(Value::Number)
}

/// A JSON number literal with an integral value (`5`, `5.0`, `1e3`), surrounding whitespace
/// allowed; a non-integer or one too large to be exact is refused.
fn parse_integer(text: &str) -> Option<Value> {
    let number = text.trim().parse::<Number>().ok()?;
    if number.is_i64() || number.is_u64() {
        return Some(Value::Number(number));
    }
    let float = number.as_f64()?;
    (float.fract() == 0.0 && float.abs() <= MAX_EXACT_FLOAT_INTEGER)
        .then(|| Value::from(float as i64))
}

/// `true` or `false` in any case, surrounding whitespace allowed.
fn parse_boolean(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("true") {
        Some(Value::Bool(true))
    } else if text.eq_ignore_ascii_case("false") {
        Some(Value::Bool(false))
    } else {
        None
    }
}
