//! JSON text from JavaScript into values, with errors that say which argument was malformed.
//! Every text goes through `toolwire_core::json_input` first: escaped lone surrogates (what
//! `JSON.stringify` writes for half an emoji) become U+FFFD.

use serde_json::Value;
use toolwire_core::json_input::{self, InputError, MAX_VALUE_DEPTH};
use toolwire_core::{Error, ErrorCode};

/// Parses JSON text that the JavaScript layer produced for `what` (options, schemas, histories,
/// records: documents bounded by serde_json's own limit). JSON nested deeper than that limit
/// (128 levels) is a `LIMIT_EXCEEDED` error; a number no double holds (`1e999` in a model's
/// arguments given as text) is a `VALIDATION_ERROR` naming the literal, its JSON pointer and
/// the limit (as `json_input` names it everywhere JSON enters).
pub fn parse_json(what: &str, text: &str) -> toolwire_core::Result<Value> {
    let text = json_input::repair_surrogates(text);
    serde_json::from_str(&text).map_err(|e| {
        let out_of_range = (e.is_syntax() && e.to_string().starts_with("number out of range"))
            .then(|| json_input::find_out_of_range(&text))
            .flatten();
        if let Some(number) = out_of_range {
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "{what} cannot be used: {number}; a JSON number must lie within \
                     ±{:e}, the largest double",
                    f64::MAX
                ),
            )
        } else if e.to_string().starts_with("recursion limit exceeded") {
            Error::caller(
                ErrorCode::LimitExceeded,
                format!("{what} nests deeper than 128 levels of JSON: {e}"),
            )
        } else {
            Error::caller(
                ErrorCode::ValidationError,
                format!("{what} is not valid JSON: {e}"),
            )
        }
    })
}

/// Parses the JSON text of one value that a tool, hook or caller handed over for `what` (a
/// partial result, a plan): nested deeper than `MAX_VALUE_DEPTH` is a `LIMIT_EXCEEDED` error
/// naming the limit, refused before parsing.
pub fn parse_value(what: &str, text: &str) -> toolwire_core::Result<Value> {
    json_input::parse(text)
        .map(|parsed| parsed.value)
        .map_err(|error| match error {
            InputError::TooDeep => Error::caller(
                ErrorCode::LimitExceeded,
                format!("{what} cannot be used: {error} (limit {MAX_VALUE_DEPTH})"),
            ),
            InputError::OutOfRange(number) => Error::caller(
                ErrorCode::ValidationError,
                format!("{what} cannot be used: {number}"),
            ),
            InputError::Invalid(e) => Error::caller(
                ErrorCode::ValidationError,
                format!("{what} is not valid JSON: {e}"),
            ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text the caller hands over: a number no double holds is named with its literal, its
    /// JSON pointer and the limit (it was a bare "number out of range at line 1 column 8").
    #[test]
    fn an_out_of_range_number_is_named_with_its_path_and_the_limit() {
        let cases: &[(&str, ErrorCode, &[&str])] = &[
            (
                r#"{"x":1e999}"#,
                ErrorCode::ValidationError,
                &["what", "1e999", "\"/x\"", "1.7976931348623157e308"],
            ),
            (
                r#"{"a":[0,{"b":-1e400}]}"#,
                ErrorCode::ValidationError,
                &["-1e400", "\"/a/1/b\"", "-Infinity"],
            ),
            ("1e999", ErrorCode::ValidationError, &["the top level"]),
            (
                "{\"x\":",
                ErrorCode::ValidationError,
                &["is not valid JSON"],
            ),
            (
                &format!("{}1{}", "[".repeat(200), "]".repeat(200)),
                ErrorCode::LimitExceeded,
                &["deeper than 128"],
            ),
        ];
        for (text, code, says) in cases {
            let error = parse_json("what", text).expect_err(text);
            assert_eq!(error.code, *code, "{text}: {}", error.message);
            for part in *says {
                assert!(error.message.contains(part), "{text}: {}", error.message);
            }
            assert!(error.message.len() < 1024, "{text}: bounded");
        }
        assert_eq!(
            parse_json("what", r#"{"x":1e-400,"y":"\ud800"}"#).unwrap(),
            serde_json::json!({"x": 0.0, "y": "\u{FFFD}"})
        );
    }
}
