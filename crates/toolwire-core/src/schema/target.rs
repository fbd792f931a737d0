//! The schema dialects a tool schema can be normalized for, and the options of a normalization.

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::json_text::{json_string, quoted_name};
use crate::suggest::did_you_mean;

/// A provider's schema dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaTarget {
    /// OpenAI function parameters (non-strict).
    Openai,
    /// OpenAI structured outputs / `strict: true` function parameters.
    OpenaiStrict,
    /// Anthropic `input_schema` (no union or `allOf` at the root).
    Anthropic,
    /// Gemini `parameters` (an OpenAPI 3.0 subset), or `parametersJsonSchema` with
    /// [`NormalizeOptions::json_schema`].
    Gemini,
    /// xAI function parameters.
    Xai,
    /// Mistral function parameters.
    Mistral,
    /// llama.cpp grammar-constrained tool parameters.
    Llamacpp,
    /// The portable subset: a report of what is outside it; the schema is left unchanged.
    P0,
}

impl SchemaTarget {
    /// Every target, in the order of their names in [`SchemaTarget::parse`].
    pub const ALL: [SchemaTarget; 8] = [
        SchemaTarget::Openai,
        SchemaTarget::OpenaiStrict,
        SchemaTarget::Anthropic,
        SchemaTarget::Gemini,
        SchemaTarget::Xai,
        SchemaTarget::Mistral,
        SchemaTarget::Llamacpp,
        SchemaTarget::P0,
    ];

    /// The target of a name: `"openai"`, `"openai-strict"`, `"anthropic"`, `"gemini"`, `"xai"`,
    /// `"mistral"`, `"llamacpp"` or `"p0"`; `None` for any other name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|target| target.as_str() == name)
    }

    /// The target of a name, or a caller error naming it (bounded), the targets there are and
    /// the closest of them (`"gemni"`: did you mean `"gemini"`).
    pub fn parse_named(name: &str) -> Result<Self> {
        Self::parse(name).ok_or_else(|| {
            let names = Self::ALL.map(Self::as_str);
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "unknown schema target {}: expected one of {}{}",
                    quoted_name(name),
                    names.map(json_string).join(", "),
                    did_you_mean(name, names)
                ),
            )
        })
    }

    /// The name of the target, as accepted by [`SchemaTarget::parse`].
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaTarget::Openai => "openai",
            SchemaTarget::OpenaiStrict => "openai-strict",
            SchemaTarget::Anthropic => "anthropic",
            SchemaTarget::Gemini => "gemini",
            SchemaTarget::Xai => "xai",
            SchemaTarget::Mistral => "mistral",
            SchemaTarget::Llamacpp => "llamacpp",
            SchemaTarget::P0 => "p0",
        }
    }
}

/// The largest `max_depth` accepted: deeper schemas would risk the stack of the compiler.
pub const MAX_DEPTH_CEILING: usize = 256;

/// How a schema is normalized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalizeOptions {
    /// Gemini only: produce the `parametersJsonSchema` form (only the rewrites every target
    /// gets) instead of the OpenAPI `parameters` form.
    pub json_schema: bool,
    /// The deepest nesting of schema objects allowed (the root is level 1), in the input and in
    /// the output; at most [`MAX_DEPTH_CEILING`]. Default 64.
    pub max_depth: usize,
    /// The largest JSON text allowed, in bytes, for the input and for the output. Default 1 MiB.
    pub max_bytes: usize,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            json_schema: false,
            max_depth: 64,
            max_bytes: 1_048_576,
        }
    }
}

impl NormalizeOptions {
    /// `Ok` when the limits are usable: `max_depth` in `1..=MAX_DEPTH_CEILING`, `max_bytes` ≥ 1.
    pub(crate) fn check(&self) -> Result<()> {
        if self.max_depth == 0 || self.max_depth > MAX_DEPTH_CEILING {
            return Err(bad_option(format!(
                "maxDepth must be a whole number from 1 to {MAX_DEPTH_CEILING}, got {}",
                self.max_depth
            )));
        }
        if self.max_bytes == 0 {
            return Err(bad_option("maxBytes must be at least 1, got 0".to_owned()));
        }
        Ok(())
    }
}

fn bad_option(message: String) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!("normalize option {message}"),
    )
}

/// Parses `{"jsonSchema"?: bool, "maxDepth"?: number, "maxBytes"?: number}` (absent or `null`
/// members keep their defaults); any other member or a bad value is the caller's
/// `VALIDATION_ERROR`, naming it.
pub fn parse_normalize_options(json: &str) -> Result<NormalizeOptions> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        Error::caller(
            ErrorCode::ValidationError,
            format!("normalize options are not JSON: {e}"),
        )
    })?;
    let Value::Object(members) = value else {
        return Err(bad_option(format!(
            "text must be a JSON object, got {}",
            crate::schema::node::short(&value)
        )));
    };
    let mut options = NormalizeOptions::default();
    for (key, value) in &members {
        if value.is_null() {
            continue;
        }
        match key.as_str() {
            "jsonSchema" => {
                options.json_schema = value.as_bool().ok_or_else(|| {
                    bad_option(format!(
                        "jsonSchema must be a boolean, got {}",
                        crate::schema::node::short(value)
                    ))
                })?;
            }
            "maxDepth" => options.max_depth = whole(key, value, MAX_DEPTH_CEILING as u64)?,
            "maxBytes" => options.max_bytes = whole(key, value, u64::from(u32::MAX))?,
            other => {
                return Err(crate::options::unknown_option(
                    "options",
                    other,
                    &["jsonSchema", "maxDepth", "maxBytes"],
                ))
            }
        }
    }
    options.check()?;
    Ok(options)
}

/// A whole number from 1 to `max`.
fn whole(key: &str, value: &Value, max: u64) -> Result<usize> {
    let n = value.as_f64().filter(|n| n.fract() == 0.0 && *n >= 1.0);
    match n {
        Some(n) if n <= max as f64 => Ok(n as usize),
        _ => Err(bad_option(format!(
            "{key} must be a whole number from 1 to {max}, got {}",
            crate::schema::node::short(value)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_schema_targets_are_named_with_the_closest() {
        crate::suggest::assert_suggestions(
            |name| SchemaTarget::parse_named(name).unwrap_err().message,
            |name| format!("unknown schema target \"{name}\": expected one of \"openai\""),
            &[
                ("gemni", Some("gemini")),
                ("openai_strict", Some("openai-strict")),
                ("llama.cpp", Some("llamacpp")),
                ("OpenAI", Some("openai")),
                ("cohere", None),
            ],
        );
        assert_eq!(SchemaTarget::parse_named("xai").unwrap(), SchemaTarget::Xai);
    }

    #[test]
    fn names_round_trip() {
        for target in SchemaTarget::ALL {
            assert_eq!(SchemaTarget::parse(target.as_str()), Some(target));
        }
        for bad in ["", "OpenAI", "openai_strict", "claude", "p1"] {
            assert_eq!(SchemaTarget::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn options_parse_or_name_the_bad_value() {
        // (text, Ok((jsonSchema, maxDepth, maxBytes)) or a fragment of the error)
        type Expected = Result<(bool, usize, usize), &'static str>;
        let cases: &[(&str, Expected)] = &[
            ("{}", Ok((false, 64, 1_048_576))),
            (
                r#"{"jsonSchema":true,"maxDepth":8,"maxBytes":4096}"#,
                Ok((true, 8, 4096)),
            ),
            (r#"{"maxDepth":null}"#, Ok((false, 64, 1_048_576))),
            (r#"{"maxDepth":0}"#, Err("maxDepth must be a whole number")),
            (r#"{"maxDepth":2.5}"#, Err("got 2.5")),
            (r#"{"maxDepth":1000}"#, Err("got 1000")),
            (r#"{"maxBytes":"big"}"#, Err("got \"big\"")),
            (
                r#"{"jsonSchema":1}"#,
                Err("jsonSchema must be a boolean, got 1"),
            ),
            (
                r#"{"depth":3}"#,
                Err(
                    "options has unknown key \"depth\" (expected one of: jsonSchema, maxDepth, \
                     maxBytes); did you mean \"maxDepth\"?",
                ),
            ),
            ("[]", Err("must be a JSON object")),
            ("{", Err("not JSON")),
        ];
        for (text, expected) in cases {
            let got = parse_normalize_options(text);
            match (got, expected) {
                (Ok(o), Ok((js, depth, bytes))) => {
                    assert_eq!(
                        (o.json_schema, o.max_depth, o.max_bytes),
                        (*js, *depth, *bytes)
                    )
                }
                (Err(e), Err(fragment)) => {
                    assert_eq!(e.code, ErrorCode::ValidationError, "{text}");
                    assert!(e.message.contains(fragment), "{text}: {}", e.message);
                }
                (got, _) => panic!("{text}: unexpected {got:?}"),
            }
        }
    }
}
