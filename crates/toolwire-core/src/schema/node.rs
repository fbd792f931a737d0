//! The schema tree the normalizer rewrites. Every keyword remembers the schema object of the
//! input it came from, so that a keyword dropped from an inlined or merged copy is reported at
//! its place in the input.

use indexmap::IndexMap;
use std::borrow::Cow;
use std::rc::Rc;

use serde_json::{Map, Value};

/// A JSON pointer (RFC 6901, escaped) into the input schema.
pub(crate) type At = Rc<str>;

/// A schema: a boolean or an object of keywords.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// `true` (anything) or `false` (nothing).
    Bool(bool),
    /// A schema object.
    Obj(Obj),
}

/// A schema object.
#[derive(Clone, Debug)]
pub(crate) struct Obj {
    /// Where this schema object is in the input (for a `$ref`, the place of the `$ref`).
    pub at: At,
    /// Its keywords by name.
    pub words: IndexMap<String, Word>,
}

/// One keyword of a schema object.
#[derive(Clone, Debug)]
pub(crate) struct Word {
    /// The schema object of the input that holds this keyword.
    pub at: At,
    /// Its value.
    pub val: Val,
}

/// The value of a keyword, by the shape of what it holds.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// One subschema (`items`, `not`, `additionalProperties`, ...).
    One(Box<Node>),
    /// Subschemas by name (`properties`, `patternProperties`, `$defs`, ...).
    Map(IndexMap<String, Node>),
    /// A list of subschemas (`anyOf`, `oneOf`, `allOf`, `prefixItems`, tuple `items`).
    List(Vec<Node>),
    /// The names of `required`.
    Names(Vec<Name>),
    /// Anything else, kept as JSON.
    Data(Value),
}

/// One entry of `required`.
#[derive(Clone, Debug)]
pub(crate) struct Name {
    /// The property name.
    pub name: String,
    /// The pointer of this entry in the input (`.../required/3`); `None` when added by us.
    pub at: Option<At>,
}

/// How a keyword's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    One,
    Map,
    List,
    Names,
    Data,
}

fn is_schema(value: &Value) -> bool {
    value.is_object() || value.is_boolean()
}

/// The shape of keyword `name` with this value (a malformed value is plain data).
pub(crate) fn shape(name: &str, value: &Value) -> Shape {
    match name {
        "additionalProperties"
        | "additionalItems"
        | "contains"
        | "propertyNames"
        | "not"
        | "if"
        | "then"
        | "else"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => {
            if is_schema(value) {
                Shape::One
            } else {
                Shape::Data
            }
        }
        "items" => match value {
            Value::Array(items) if items.iter().all(is_schema) => Shape::List,
            v if is_schema(v) => Shape::One,
            _ => Shape::Data,
        },
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => match value {
            Value::Object(map) if map.values().all(is_schema) => Shape::Map,
            _ => Shape::Data,
        },
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
            Value::Array(items) if items.iter().all(is_schema) => Shape::List,
            _ => Shape::Data,
        },
        "required" => match value {
            Value::Array(items) if items.iter().all(Value::is_string) => Shape::Names,
            _ => Shape::Data,
        },
        _ => Shape::Data,
    }
}

/// The subschemas directly under a schema object of the input, in document order, each with
/// the pointer tokens that lead to it.
pub(crate) fn input_children<'v>(
    map: &'v Map<String, Value>,
) -> Vec<(&'v str, Option<Cow<'v, str>>, &'v Value)> {
    let mut out = Vec::new();
    for (name, value) in map {
        match shape(name, value) {
            Shape::One => out.push((name.as_str(), None, value)),
            Shape::Map => {
                if let Value::Object(entries) = value {
                    for (key, sub) in entries {
                        out.push((name.as_str(), Some(Cow::Borrowed(key.as_str())), sub));
                    }
                }
            }
            Shape::List => {
                if let Value::Array(items) = value {
                    for (i, sub) in items.iter().enumerate() {
                        out.push((name.as_str(), Some(Cow::Owned(i.to_string())), sub));
                    }
                }
            }
            Shape::Names | Shape::Data => {}
        }
    }
    out
}

pub(crate) use crate::pointer::child;

/// A pointer as shown in messages: the root is `(root)`.
pub(crate) fn show(at: &str) -> &str {
    if at.is_empty() {
        "(root)"
    } else {
        at
    }
}

/// A value as shown in messages: compact JSON, cut after 80 characters.
pub(crate) fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 80 {
        text
    } else {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    }
}

/// Whether pointer `prefix` is `at` or one of its ancestors.
pub(crate) fn is_prefix(prefix: &str, at: &str) -> bool {
    at == prefix || (at.starts_with(prefix) && at.as_bytes().get(prefix.len()) == Some(&b'/'))
}

impl Node {
    /// The node as JSON.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Bool(b) => Value::Bool(*b),
            Node::Obj(obj) => obj.to_value(),
        }
    }

    /// The schema object, if this is one.
    pub(crate) fn as_obj(&self) -> Option<&Obj> {
        match self {
            Node::Obj(obj) => Some(obj),
            Node::Bool(_) => None,
        }
    }
}

impl Val {
    /// The value as JSON.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Val::One(node) => node.to_value(),
            Val::Map(map) => Value::Object(
                map.iter()
                    .map(|(key, node)| (key.clone(), node.to_value()))
                    .collect(),
            ),
            Val::List(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Val::Names(names) => Value::Array(
                names
                    .iter()
                    .map(|n| Value::String(n.name.clone()))
                    .collect(),
            ),
            Val::Data(value) => value.clone(),
        }
    }
}

impl Obj {
    /// A schema object with no keywords.
    pub(crate) fn empty(at: At) -> Self {
        Obj {
            at,
            words: IndexMap::new(),
        }
    }

    /// The object as JSON.
    pub(crate) fn to_value(&self) -> Value {
        Value::Object(
            self.words
                .iter()
                .map(|(name, word)| (name.clone(), word.val.to_value()))
                .collect(),
        )
    }

    /// Whether keyword `name` is present.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.words.contains_key(name)
    }

    /// The JSON value of a data keyword.
    pub(crate) fn data(&self, name: &str) -> Option<&Value> {
        match self.words.get(name) {
            Some(Word {
                val: Val::Data(value),
                ..
            }) => Some(value),
            _ => None,
        }
    }

    /// `type` when it is one name.
    pub(crate) fn type_name(&self) -> Option<&str> {
        self.data("type").and_then(Value::as_str)
    }

    /// Sets a keyword that comes from this object (or from us).
    pub(crate) fn set(&mut self, name: &str, val: Val) {
        let at = self.at.clone();
        self.words.insert(name.to_owned(), Word { at, val });
    }

    /// Every subschema directly under this object, for passes that visit them all.
    pub(crate) fn children_mut(&mut self) -> Vec<&mut Node> {
        let mut out = Vec::new();
        for word in self.words.values_mut() {
            match &mut word.val {
                Val::One(node) => out.push(&mut **node),
                Val::Map(map) => out.extend(map.values_mut()),
                Val::List(items) => out.extend(items.iter_mut()),
                Val::Names(_) | Val::Data(_) => {}
            }
        }
        out
    }
}

/// The JSON type name of a value (`integer` for whole numbers).
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_follow_the_keyword_and_its_value() {
        let cases = [
            ("properties", json!({"a": {}}), Shape::Map),
            ("properties", json!({"a": 1}), Shape::Data),
            ("items", json!({}), Shape::One),
            ("items", json!([{}, true]), Shape::List),
            ("items", json!(3), Shape::Data),
            ("anyOf", json!([{}]), Shape::List),
            ("required", json!(["a"]), Shape::Names),
            ("required", json!([1]), Shape::Data),
            ("not", json!(false), Shape::One),
            ("enum", json!([{}]), Shape::Data),
            ("x-custom", json!({}), Shape::Data),
        ];
        for (name, value, expected) in cases {
            assert_eq!(shape(name, &value), expected, "{name} {value}");
        }
    }

    #[test]
    fn pointers_escape_and_compare_by_token() {
        assert_eq!(child("/properties", "a/b~c"), "/properties/a~1b~0c");
        assert!(is_prefix("", "/a"));
        assert!(is_prefix("/a", "/a"));
        assert!(is_prefix("/a", "/a/b"));
        assert!(!is_prefix("/a", "/ab"));
        assert_eq!(show(""), "(root)");
        assert!(short(&json!("x".repeat(200))).ends_with("..."));
    }
}
