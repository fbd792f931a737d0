//! Arguments checked as text. Most tools take a flat object of scalars (`{"path": "a.txt",
//! "limit": 10}`), and most calls send exactly what the schema asks. For such a tool the call's
//! argument text is read once, left to right, each value checked by its property's own compiled
//! validator, and no tree is built: building one (an ordered map per object, every key hashed)
//! and walking it for normalization was most of the engine's time per call.
//!
//! The check only ever says "these arguments are valid and normalization leaves them as they are",
//! or "don't know"; for "don't know" (a key with an escape, a nested value, an unknown or repeated
//! key, a value a property refuses, anything unusual) the call takes the full path, which parses,
//! normalizes, validates and explains. A property test holds the promise: whatever text the check
//! accepts, the full path parses without repair, changes nothing and finds valid.
//!
//! A schema is flat when its root is `{"type": "object", "properties": {...}, "required": [...],
//! "additionalProperties": bool}` (annotations aside), at most 64 properties, each a schema
//! object or `true` that refers to nothing (no `$ref`, `$id`, anchors, `$defs`, `$schema`), and
//! the tool declares no aliases or required groups.

use jsonschema::Validator;
use serde_json::{Map, Value};

use crate::json_input;
use crate::params::{has_type, simple_types, ParamRules};

/// The most properties a flat schema has: which were seen is one bit each.
const MAX_PROPERTIES: usize = 64;

/// Root keywords that leave a flat schema flat: what it validates, and annotations.
const ROOT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "title",
    "description",
    "$comment",
    "examples",
    "default",
    "$schema",
];

/// Keywords that tie a subschema to the document around it: a property holding one (at any
/// depth) is not checked on its own. `id` is draft 4's `$id`.
const CONTEXT_KEYWORDS: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$defs",
    "definitions",
    "$schema",
    "$vocabulary",
];

/// A flat object schema, compiled for checking argument text (see the module documentation).
#[derive(Debug)]
pub struct FlatSchema {
    properties: Vec<FlatProperty>,
    /// One bit per property the schema requires.
    required: u64,
    /// Whether values of another type would be coerced (then such a value takes the full path).
    coerce: bool,
}

/// One declared property.
#[derive(Debug)]
struct FlatProperty {
    name: String,
    /// Its schema compiled on its own; `None` for `true`, which admits every value.
    validator: Option<Validator>,
    /// Its `type` names as normalization reads them, when coercion is on.
    types: Option<Vec<String>>,
}

impl FlatSchema {
    /// The flat form of a tool's `parameters` (see the module documentation), or `None`.
    pub fn of(parameters: &Value, rules: &ParamRules) -> Option<FlatSchema> {
        let root = parameters.as_object()?;
        if !rules.aliases.is_empty() || !rules.required_groups.is_empty() {
            return None;
        }
        if !root.keys().all(|key| ROOT_KEYWORDS.contains(&key.as_str())) {
            return None;
        }
        if root.get("type").and_then(Value::as_str) != Some("object") {
            return None;
        }
        if !matches!(
            root.get("additionalProperties"),
            None | Some(Value::Bool(_))
        ) {
            return None;
        }
        let empty = Map::new();
        let declared = match root.get("properties") {
            None => &empty,
            Some(Value::Object(declared)) if declared.len() <= MAX_PROPERTIES => declared,
            Some(_) => return None,
        };
        let dialect = root.get("$schema");
        let properties = declared
            .iter()
            .map(|(name, schema)| FlatProperty::of(name, schema, dialect, rules.coerce))
            .collect::<Option<Vec<_>>>()?;
        let mut required = 0u64;
        match root.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for name in names {
                    let index = properties
                        .iter()
                        .position(|p| Some(p.name.as_str()) == name.as_str())?;
                    required |= 1 << index;
                }
            }
            Some(_) => return None,
        }
        Some(FlatSchema {
            properties,
            required,
            coerce: rules.coerce,
        })
    }

    /// Whether `text` is one JSON object whose keys are declared properties, each once, with
    /// scalar values its property admits as they are, and every required property present.
    /// `false` means only that the full path must decide.
    pub fn accepts(&self, text: &str) -> bool {
        self.read(text.as_bytes(), text).unwrap_or(false)
    }

    /// [`FlatSchema::accepts`], `None` where the text leaves the flat form.
    fn read(&self, bytes: &[u8], text: &str) -> Option<bool> {
        let mut at = skip_whitespace(bytes, 0);
        expect(bytes, at, b'{')?;
        at = skip_whitespace(bytes, at + 1);
        let mut seen = 0u64;
        // models mostly write the properties in the schema's order: the one after the last is
        // tried first
        let mut next = 0;
        if bytes.get(at) == Some(&b'}') {
            at += 1;
        } else {
            loop {
                let (key, after) = plain_string(bytes, at)?;
                let index = match self.properties.get(next) {
                    Some(p) if p.name.as_bytes() == key => next,
                    _ => self
                        .properties
                        .iter()
                        .position(|p| p.name.as_bytes() == key)?,
                };
                next = index + 1;
                if seen & (1 << index) != 0 {
                    return None;
                }
                seen |= 1 << index;
                at = skip_whitespace(bytes, after);
                expect(bytes, at, b':')?;
                at = skip_whitespace(bytes, at + 1);
                let (value, after) = scalar(bytes, text, at)?;
                if !self.properties[index].admits(&value, self.coerce) {
                    return None;
                }
                at = skip_whitespace(bytes, after);
                match bytes.get(at)? {
                    b',' => at = skip_whitespace(bytes, at + 1),
                    b'}' => {
                        at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        Some(skip_whitespace(bytes, at) == bytes.len() && seen & self.required == self.required)
    }
}

impl FlatProperty {
    /// `name`'s schema compiled on its own (with the root's `$schema`, so it reads in the same
    /// dialect), or `None` when it cannot be checked apart from the document.
    fn of(
        name: &str,
        schema: &Value,
        dialect: Option<&Value>,
        coerce: bool,
    ) -> Option<FlatProperty> {
        let validator = match schema {
            Value::Bool(true) => None,
            Value::Object(keywords) => {
                if refers_outside(schema) {
                    return None;
                }
                let mut alone = keywords.clone();
                if let Some(dialect) = dialect {
                    alone.insert("$schema".to_owned(), dialect.clone());
                }
                Some(
                    jsonschema::options()
                        .should_validate_formats(true)
                        .build(&Value::Object(alone))
                        .ok()?,
                )
            }
            _ => return None,
        };
        let types = coerce
            .then(|| {
                simple_types(schema).map(|types| types.into_iter().map(str::to_owned).collect())
            })
            .flatten();
        Some(FlatProperty {
            name: name.to_owned(),
            validator,
            types,
        })
    }

    /// Whether `value` passes as it is: normalization would not coerce it, and it is valid.
    fn admits(&self, value: &Value, coerce: bool) -> bool {
        if coerce {
            if let Some(types) = &self.types {
                if !types.iter().any(|t| has_type(value, t)) {
                    return false;
                }
            }
        }
        self.validator.as_ref().is_none_or(|v| v.is_valid(value))
    }
}

/// Whether `schema` holds, at any depth, a keyword tying it to the document around it.
fn refers_outside(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| CONTEXT_KEYWORDS.contains(&key.as_str()) || refers_outside(value)),
        Value::Array(items) => items.iter().any(refers_outside),
        _ => false,
    }
}

/// The index of the first byte at or after `at` that is not JSON whitespace.
fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// `Some` when the byte at `at` is `byte`.
fn expect(bytes: &[u8], at: usize, byte: u8) -> Option<()> {
    (bytes.get(at) == Some(&byte)).then_some(())
}

/// The string starting at `at` when it has no escape and no control character: its content's
/// bytes and the index after its closing quote.
fn plain_string(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    expect(bytes, at, b'"')?;
    let start = at + 1;
    let end = start + memchr::memchr2(b'"', b'\\', &bytes[start..])?;
    let content = &bytes[start..end];
    if bytes[end] != b'"' || content.iter().any(|&b| b < 0x20) {
        return None;
    }
    Some((content, end + 1))
}

/// The scalar value starting at `at` and the index after it; `None` for an object, an array, or
/// what only the full parser should judge (an escaped string, a malformed token).
fn scalar(bytes: &[u8], text: &str, at: usize) -> Option<(Value, usize)> {
    match bytes.get(at)? {
        b'"' => match plain_string(bytes, at) {
            // (between two ASCII quotes of UTF-8 text: whole characters)
            Some((content, after)) => Some((
                Value::String(text[at + 1..at + 1 + content.len()].to_owned()),
                after,
            )),
            None => escaped_string(bytes, text, at),
        },
        b't' => literal(bytes, at, b"true", Value::Bool(true)),
        b'f' => literal(bytes, at, b"false", Value::Bool(false)),
        b'n' => literal(bytes, at, b"null", Value::Null),
        b'-' | b'0'..=b'9' => {
            let end = at
                + bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .unwrap_or(bytes.len() - at);
            Some((Value::Number(number(&text[at..end])?), end))
        }
        _ => None,
    }
}

/// The JSON number `token` as serde_json reads it (an integer as `u64` or `i64` when it fits, else
/// an `f64`), or `None` when it is no JSON number or out of range. A short integer, the common
/// case, is read here; anything else by serde_json.
fn number(token: &str) -> Option<serde_json::Number> {
    let digits = token.strip_prefix('-').unwrap_or(token).as_bytes();
    let short_integer = !digits.is_empty()
        && digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1);
    if !short_integer {
        return serde_json::from_str(token).ok();
    }
    let magnitude = digits
        .iter()
        .fold(0i64, |n, digit| n * 10 + i64::from(digit - b'0'));
    Some(match token.starts_with('-') {
        // serde_json reads -0 as the float -0.0
        true if magnitude == 0 => serde_json::Number::from_f64(-0.0)?,
        true => (-magnitude).into(),
        false => (magnitude as u64).into(),
    })
}

/// The string with escapes starting at `at`, read by the full parser, and the index after it;
/// `None` when the parser refuses it or had to repair it (an escaped lone surrogate).
fn escaped_string(bytes: &[u8], text: &str, at: usize) -> Option<(Value, usize)> {
    let mut end = at + 1;
    loop {
        end += memchr::memchr2(b'"', b'\\', &bytes[end..])?;
        if bytes[end] == b'"' {
            break;
        }
        end += 2;
        if end >= bytes.len() {
            return None;
        }
    }
    let parsed = json_input::parse(&text[at..=end]).ok()?;
    (parsed.value.is_string() && !parsed.repaired).then_some((parsed.value, end + 1))
}

/// The literal `word` at `at` as `value`.
fn literal(bytes: &[u8], at: usize, word: &[u8], value: Value) -> Option<(Value, usize)> {
    bytes[at..]
        .starts_with(word)
        .then(|| (value, at + word.len()))
}

#[cfg(test)]
mod tests;
