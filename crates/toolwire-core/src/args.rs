//! The model's arguments: parsed from the JSON text it sent, checked against the tool's schema,
//! and every failure described so the model can correct itself.

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::{json, Value};

use crate::envelope::ToolError;
use crate::error::ErrorCode;
use crate::json_input::{self, InputError, Parsed, MAX_VALUE_DEPTH};
use crate::json_text::json_string;
use crate::json_text::json_type;
use crate::params::{normalize_arguments, suggest_property, Normalization};
#[cfg(test)]
use crate::quote::MAX_QUOTED_ARGS;
use crate::quote::{bounded, bounded_to, quote_arguments, quoted_json};
use crate::registry::ToolSpec;
use crate::schema::denormalize_strict;

/// The most one failure's message may run to: its own words plus a bounded quote of the value
/// and of the schema keyword's operand (an `enum`'s options, a `pattern`).
const MAX_FAILURE_MESSAGE: usize = 3 * crate::quote::MAX_QUOTED_BYTES;

/// The most validation failures listed in one message.
const MAX_LISTED_FAILURES: usize = 20;

/// Parses the arguments as a model sent them (or as the caller's object serialized). Empty or
/// whitespace-only text means `{}`. The text goes through [`crate::json_input`] first, so an
/// escaped lone surrogate is accepted as `JSON.parse` accepts it and becomes U+FFFD (`repaired`
/// then says the value differs from the text), and arguments nested deeper than
/// [`MAX_VALUE_DEPTH`] are `LIMIT_EXCEEDED`, refused before parsing. A number no double holds
/// (`1e999`, which `JSON.parse` reads as `Infinity`) is a `VALIDATION_ERROR` at its path, so the
/// model can send a finite one.
///
/// The error message never echoes the text: it may hold anything, including secrets.
pub fn parse_arguments(tool: &str, text: &str) -> Result<Parsed, ToolError> {
    if text.trim().is_empty() {
        return Ok(Parsed {
            value: Value::Object(Default::default()),
            repaired: false,
        });
    }
    json_input::parse(text).map_err(|error| match error {
        InputError::TooDeep => ToolError::new(
            ErrorCode::LimitExceeded,
            format!(
                "The arguments for tool \"{tool}\" cannot be used: {error}, so the call was not \
                 run. Send flatter arguments."
            ),
        )
        .with_details(json!({ "limit": MAX_VALUE_DEPTH })),
        InputError::OutOfRange(number) => number_error(
            tool,
            number.pointer.clone(),
            format!(
                "the number {} is out of range: no double holds it (JSON.parse reads it as \
                 {}Infinity); send a finite number",
                number.literal,
                if number.literal.starts_with('-') {
                    "-"
                } else {
                    ""
                }
            ),
        ),
        InputError::Invalid(error) => ToolError::new(
            ErrorCode::InvalidJson,
            format!(
                "The arguments for tool \"{tool}\" are not valid JSON ({error}). \
                 Send the arguments again as one complete JSON object."
            ),
        ),
    })
}

/// The arguments a caller passed as an object hold a number JSON cannot carry (`Infinity`,
/// `-Infinity` or `NaN`, which `JSON.stringify` would write as `null`) at `pointer`: the same
/// `VALIDATION_ERROR` at that path as a number out of range in argument text, so one rule holds
/// however the arguments arrive (text from a model, an object from the caller, a plan step).
pub fn non_finite_error(tool: &str, pointer: &str, value: &str) -> ToolError {
    number_error(
        tool,
        pointer.to_owned(),
        format!(
            "the number {} cannot be sent: JSON has no such number (JSON.stringify writes it as \
             null); send a finite number",
            bounded_to(value, 16)
        ),
    )
}

/// A `VALIDATION_ERROR` of one number at `path`, saying `message`.
fn number_error(tool: &str, path: String, message: String) -> ToolError {
    let failures = [Failure {
        path,
        keyword: "number".to_owned(),
        message,
    }];
    ToolError::new(
        ErrorCode::ValidationError,
        format!(
            "Validation failed for tool \"{tool}\":\n{}Fix the arguments and call the tool again.",
            list_failures(&failures)
        ),
    )
    .with_details(failures_json(&failures))
}

/// Checks parsed arguments against the tool's schema. Arguments must be a JSON object.
pub fn validate_arguments(spec: &ToolSpec, args: &Value) -> Result<(), ToolError> {
    if !args.is_object() {
        let failures = vec![Failure {
            path: String::new(),
            keyword: "type".to_owned(),
            message: format!("expected an object of arguments, got {}", json_type(args)),
        }];
        return Err(validation_error(&spec.name, args, failures));
    }
    let validator = spec.validator();
    if validator.is_valid(args) {
        return Ok(());
    }
    let failures = validator
        .iter_errors(args)
        .flat_map(|error| describe(error, &spec.parameters, args))
        .collect();
    Err(validation_error(&spec.name, args, failures))
}

/// What [`prepare_arguments`] did besides validating.
pub struct Prepared {
    /// The renames and coercions, for the result.
    pub normalization: Normalization,
    /// Whether the arguments may differ from the model's (so the driver must be sent them).
    pub changed: bool,
}

/// Makes the model's arguments what the tool's own schema means, then validates them against
/// it: the nulls OpenAI's strict form forced are stripped (for tools sent in that form),
/// parameters are renamed, text blocks joined, values coerced ([`normalize_arguments`]) and the
/// required groups checked.
pub fn prepare_arguments(spec: &ToolSpec, args: &mut Value) -> Result<Prepared, ToolError> {
    let stripped = spec.strict_sent();
    if stripped {
        *args = denormalize_strict(&spec.parameters, std::mem::take(args));
    }
    let normalization = normalize_arguments(&spec.name, &spec.parameters, &spec.rules, args)?;
    validate_arguments(spec, args)?;
    Ok(Prepared {
        changed: stripped || !normalization.is_empty(),
        normalization,
    })
}

/// Checks a tool's structured output against its declared output schema.
pub fn validate_output(spec: &ToolSpec, output: &Value) -> Result<(), ToolError> {
    let (Some(validator), Some(schema)) = (spec.output_validator(), spec.output_schema.as_ref())
    else {
        return Ok(());
    };
    if validator.is_valid(output) {
        return Ok(());
    }
    let failures: Vec<Failure> = validator
        .iter_errors(output)
        .flat_map(|error| describe(error, schema, output))
        .collect();
    let listed = list_failures(&failures);
    Err(ToolError::new(
        ErrorCode::ExecutionError,
        format!(
            "Tool \"{}\" returned output that does not match its outputSchema:\n{listed}",
            spec.name
        ),
    )
    .with_details(failures_json(&failures)))
}

/// One failing place in the arguments.
struct Failure {
    /// JSON pointer into the arguments.
    path: String,
    /// The schema keyword that failed.
    keyword: String,
    /// What was expected.
    message: String,
}

/// Turns one validator error into failures with pointers to the exact property: a missing
/// required property is reported at its own path, and so is each unexpected one, with a
/// `Did you mean "x"?` when a property the schema declares there is close to it. `schema` and
/// `instance` are what was validated.
fn describe(
    error: jsonschema::ValidationError<'_>,
    schema: &Value,
    instance: &Value,
) -> Vec<Failure> {
    let base = error.instance_path().to_string();
    let keyword = error.kind().keyword().to_owned();
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            vec![Failure {
                path: bounded(&child_pointer(&base, &name)),
                keyword,
                message: "required property is missing".to_owned(),
            }]
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let location: Vec<String> = error
                .instance_path()
                .iter()
                .map(|segment| match segment {
                    LocationSegment::Property(name) => name.into_owned(),
                    LocationSegment::Index(index) => index.to_string(),
                })
                .collect();
            unexpected
                .iter()
                .map(|name| {
                    let name = name.as_str();
                    let mut message =
                        "property is not allowed (the schema allows no additional properties)"
                            .to_owned();
                    if let Some(near) = suggest_property(schema, instance, &location, name) {
                        message.push_str(&format!(" Did you mean {}?", json_string(near)));
                    }
                    Failure {
                        path: bounded(&child_pointer(&base, name)),
                        keyword: keyword.clone(),
                        message,
                    }
                })
                .collect()
        }
        _ => vec![Failure {
            path: bounded(&base),
            keyword,
            message: failure_message(&error),
        }],
    }
}

/// The validator's words for one failure, the failing value quoted at most
/// [`MAX_QUOTED_BYTES`](crate::quote::MAX_QUOTED_BYTES) long (the validator's own text would
/// echo the whole value), and the whole message bounded.
fn failure_message(error: &jsonschema::ValidationError<'_>) -> String {
    let message = match error.kind() {
        ValidationErrorKind::PropertyNames { error: inner } => {
            return failure_message(inner);
        }
        _ => error.masked_with(quoted_json(error.instance())).to_string(),
    };
    bounded_to(&message, MAX_FAILURE_MESSAGE)
}

/// The JSON pointer of property `name` of the object at pointer `base`.
pub(crate) fn child_pointer(base: &str, name: &str) -> String {
    crate::pointer::child(base, name)
}

fn list_failures(failures: &[Failure]) -> String {
    let mut listed = String::new();
    for failure in failures.iter().take(MAX_LISTED_FAILURES) {
        let path = if failure.path.is_empty() {
            "(root)"
        } else {
            &failure.path
        };
        listed.push_str(&format!("  - {path}: {}\n", failure.message));
    }
    if failures.len() > MAX_LISTED_FAILURES {
        listed.push_str(&format!(
            "  ... and {} more\n",
            failures.len() - MAX_LISTED_FAILURES
        ));
    }
    listed
}

/// The failures as an error's `details`, bounded as the message is: the first
/// [`MAX_LISTED_FAILURES`] (each path and message already bounded), then, when there were more,
/// one entry of keyword `truncated` saying how many were left out. So a call with thousands of
/// failing properties costs a few kilobytes in events and the audit log, not its own size.
fn failures_json(failures: &[Failure]) -> Value {
    let mut listed: Vec<Value> = failures
        .iter()
        .take(MAX_LISTED_FAILURES)
        .map(|f| json!({"path": f.path, "keyword": f.keyword, "message": f.message}))
        .collect();
    if failures.len() > MAX_LISTED_FAILURES {
        let more = failures.len() - MAX_LISTED_FAILURES;
        listed.push(json!({
            "path": "",
            "keyword": "truncated",
            "message": format!(
                "and {more} more failures not listed (at most {MAX_LISTED_FAILURES} are)"
            ),
        }));
    }
    Value::Array(listed)
}

fn validation_error(tool: &str, args: &Value, failures: Vec<Failure>) -> ToolError {
    let listed = list_failures(&failures);
    let quoted = quote_arguments(args);
    ToolError::new(
        ErrorCode::ValidationError,
        format!(
            "Validation failed for tool \"{tool}\":\n{listed}\nReceived arguments:\n{quoted}\n\
             Fix the arguments and call the tool again."
        ),
    )
    .with_details(failures_json(&failures))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Registry, ToolDeclaration};
    use std::sync::Arc;

    fn spec(parameters: Value) -> Arc<ToolSpec> {
        let declaration: ToolDeclaration =
            serde_json::from_value(json!({"name": "edit", "parameters": parameters})).unwrap();
        Registry::new().register(declaration).unwrap()
    }

    fn edit_spec() -> Arc<ToolSpec> {
        spec(json!({
            "type": "object",
            "required": ["filePath", "count"],
            "additionalProperties": false,
            "properties": {
                "filePath": {"type": "string"},
                "count": {"type": "integer", "minimum": 1},
                "nested": {"type": "object", "properties": {"a~b/c": {"type": "string"}}}
            }
        }))
    }

    #[test]
    fn empty_and_whitespace_text_mean_an_empty_object() {
        for text in ["", "  ", "\n\t "] {
            assert_eq!(parse_arguments("t", text).unwrap().value, json!({}));
        }
    }

    /// `JSON.parse('{"q":"\\ud83d"}')` succeeds (half an emoji, as `text.slice` leaves it), so
    /// the model's text is accepted too, the surrogate becoming U+FFFD.
    #[test]
    fn escaped_lone_surrogates_are_accepted_as_replacement_characters() {
        let parsed = parse_arguments("t", r#"{"q":"\ud83d","\udc00":1}"#).unwrap();
        assert_eq!(parsed.value, json!({"q": "\u{FFFD}", "\u{FFFD}": 1}));
        assert!(parsed.repaired);
        let parsed = parse_arguments("t", r#"{"q":"\ud83d\ude00"}"#).unwrap();
        assert_eq!(parsed.value, json!({"q": "😀"}));
        assert!(!parsed.repaired);
    }

    #[test]
    fn arguments_past_the_depth_limit_are_limit_exceeded() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let at_limit = format!("{{\"a\":{}}}", nested(MAX_VALUE_DEPTH - 1));
        assert!(parse_arguments("t", &at_limit).is_ok());
        let over = format!("{{\"a\":{}}}", nested(MAX_VALUE_DEPTH));
        let error = parse_arguments("deep", &over).unwrap_err();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert!(error.message.contains(&MAX_VALUE_DEPTH.to_string()));
        assert_eq!(error.details, Some(json!({ "limit": MAX_VALUE_DEPTH })));
    }

    /// A model's number that `JSON.parse` reads as ±Infinity (`{"x":1e999}`, seen in the attack
    /// review as a bare INVALID_JSON) is a VALIDATION_ERROR naming it at its path; one that
    /// underflows is 0, as `JSON.parse` reads it.
    #[test]
    fn out_of_range_numbers_are_validation_errors_at_their_path() {
        let huge = format!("{{\"n\":[1,{}]}}", "9".repeat(400));
        let refused: &[(&str, &str, &str)] = &[
            (r#"{"x":1e999}"#, "/x", "1e999 is out of range"),
            (r#"{"x":{"y":-1e400}}"#, "/x/y", "-Infinity"),
            (&huge, "/n/1", "99999"),
        ];
        for (text, path, says) in refused {
            let error = parse_arguments("n", text).unwrap_err();
            assert_eq!(error.code, ErrorCode::ValidationError, "{text}");
            assert!(error.message.contains(says), "{}", error.message);
            assert!(
                error.message.contains(&format!("{path}: ")),
                "{}",
                error.message
            );
            assert!(error.message.len() < 1024, "bounded: {}", error.message);
            assert_eq!(error.details.unwrap()[0]["path"], *path, "{text}");
        }
        let underflow = parse_arguments("n", r#"{"x":1e-400,"y":-1e-400}"#).unwrap();
        assert_eq!(underflow.value, json!({"x": 0.0, "y": -0.0}));
    }

    #[test]
    fn invalid_json_never_echoes_the_text() {
        let secret = "{\"token\": \"sk-live-SECRET\"";
        let error = parse_arguments("read", secret).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidJson);
        assert!(!error.message.contains("SECRET"));
        assert!(error.message.contains("\"read\""));
        assert_eq!(error.retryable, Some(false));
    }

    #[test]
    fn missing_required_property_is_reported_at_its_own_pointer() {
        let error = validate_arguments(&edit_spec(), &json!({"count": 2})).unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError);
        assert!(error
            .message
            .contains("/filePath: required property is missing"));
        assert_eq!(error.details.unwrap()[0]["path"], "/filePath");
    }

    #[test]
    fn every_failure_is_listed_with_its_pointer() {
        let args = json!({"filePath": 3, "count": 0, "extra": true, "nested": {"a~b/c": 1}});
        let error = validate_arguments(&edit_spec(), &args).unwrap_err();
        let paths: Vec<String> = error
            .details
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect();
        for expected in ["/filePath", "/count", "/extra", "/nested/a~0b~1c"] {
            assert!(
                paths.contains(&expected.to_owned()),
                "{expected} in {paths:?}"
            );
        }
        assert!(error.message.contains("Received arguments:"));
    }

    #[test]
    fn unexpected_keys_suggest_the_close_property() {
        let spec = spec(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "filePath": {"type": "string"},
                "content": {"type": "string"},
                "options": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"maxDepth": {"type": "integer"}}
                },
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}}
            },
            "$defs": {"edit": {
                "type": "object",
                "additionalProperties": false,
                "properties": {"oldText": {"type": "string"}}
            }}
        }));
        // (arguments, pointer of the unexpected key, the suggestion expected there)
        for (args, path, expected) in [
            (json!({"file_path": "a"}), "/file_path", Some("filePath")),
            (json!({"FILEPATH": "a"}), "/FILEPATH", Some("filePath")),
            (json!({"contnet": "a"}), "/contnet", Some("content")),
            (json!({"filePath": "a", "filepath": "b"}), "/filepath", None),
            (json!({"zzz": 1}), "/zzz", None),
            (
                json!({"options": {"max_depth": 1}}),
                "/options/max_depth",
                Some("maxDepth"),
            ),
            (
                json!({"edits": [{"oldText": "a"}, {"old_text": "b"}]}),
                "/edits/1/old_text",
                Some("oldText"),
            ),
        ] {
            let error = validate_arguments(&spec, &args).unwrap_err();
            let details = error.details.unwrap();
            let failure = details
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"] == path)
                .unwrap_or_else(|| panic!("{path} in {details}"));
            let message = failure["message"].as_str().unwrap();
            assert!(message.starts_with("property is not allowed"), "{message}");
            match expected {
                Some(name) => assert!(
                    message.ends_with(&format!(" Did you mean \"{name}\"?")),
                    "{message}"
                ),
                None => assert!(!message.contains("Did you mean"), "{message}"),
            }
            assert!(error.message.contains(message), "{}", error.message);
        }
    }

    #[test]
    fn arguments_must_be_an_object() {
        let error = validate_arguments(&edit_spec(), &json!([1, 2])).unwrap_err();
        assert!(error
            .message
            .contains("(root): expected an object of arguments, got an array"));
    }

    #[test]
    fn quoted_arguments_are_capped_at_one_kilobyte() {
        let args = json!({"filePath": "é".repeat(5000), "count": 0});
        let error = validate_arguments(&edit_spec(), &args).unwrap_err();
        let quoted = error.message.split("Received arguments:\n").nth(1).unwrap();
        let quoted = quoted.split("... (").next().unwrap();
        assert!(quoted.len() <= MAX_QUOTED_ARGS, "{}", quoted.len());
        assert!(error.message.contains("more bytes not shown"));
    }

    /// Every keyword whose message would quote the value: with a 20 KB string (or key) at
    /// fault, the message and each failure of the details quote at most about a kilobyte of it.
    #[test]
    fn no_failure_quotes_more_than_a_kilobyte_of_a_value() {
        let big = "é".repeat(10_000);
        let key = format!("k{big}");
        // (schema of property "v", the value sent for it)
        let cases = [
            (json!({"type": "integer"}), json!(big)),
            (json!({"enum": ["a", "b"]}), json!(big)),
            (json!({"const": "a"}), json!(big)),
            (json!({"pattern": "^[a-z]+$"}), json!(big)),
            (json!({"maxLength": 3}), json!(big)),
            (json!({"format": "email"}), json!(big)),
            (json!({"not": {"type": "string"}}), json!(big)),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}),
                json!(big),
            ),
            (
                json!({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}),
                json!(big),
            ),
            (json!({"type": "array", "maxItems": 1}), json!([big, big])),
            (
                json!({"type": "array", "uniqueItems": true}),
                json!([big, big]),
            ),
            (
                json!({"type": "object", "propertyNames": {"maxLength": 3}}),
                json!({ key.clone(): 1 }),
            ),
            (
                json!({"type": "object", "additionalProperties": false}),
                json!({ key.clone(): 1 }),
            ),
            (
                json!({"type": "object", "unevaluatedProperties": false}),
                json!({ key.clone(): 1 }),
            ),
            (
                json!({"type": "object", "additionalProperties": {
                    "type": "object", "properties": {"n": {"type": "integer"}}
                }}),
                json!({ key.clone(): {"n": big} }),
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "integer"}}),
                json!({ key.clone(): big }),
            ),
        ];
        for (schema, value) in cases {
            let spec = spec(json!({"type": "object", "properties": {"v": schema}}));
            let error = validate_arguments(&spec, &json!({ "v": value }))
                .expect_err(&format!("{schema} fails"));
            assert_eq!(error.code, ErrorCode::ValidationError, "{schema}");
            // The failures, the quoted arguments and the fixed words: a few kilobytes at most.
            assert!(
                error.message.len() < 8 * MAX_QUOTED_ARGS,
                "{schema}: {} bytes",
                error.message.len()
            );
            assert!(error.message.contains("more bytes not shown"), "{schema}");
            for failure in error.details.unwrap().as_array().unwrap() {
                let size = failure.to_string().len();
                assert!(size < 6 * MAX_QUOTED_ARGS, "{schema}: {size}");
            }
        }
    }

    #[test]
    fn error_details_list_at_most_twenty_failures_and_say_how_many_more() {
        // Seen by a new user (issue 19): 2000 extra properties (229 KB of arguments) gave 271 KB
        // of details, carried by events and the audit log, while the message was bounded.
        let closed =
            spec(json!({"type": "object", "properties": {}, "additionalProperties": false}));
        let typed = spec(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        for count in [1usize, 20, 21, 2000] {
            let args: serde_json::Map<String, Value> = (0..count)
                .map(|i| (format!("extra{i}"), json!("v".repeat(100))))
                .collect();
            for spec in [&closed, &typed] {
                let error = validate_arguments(spec, &Value::Object(args.clone())).unwrap_err();
                let details = error.details.unwrap();
                let details = details.as_array().unwrap();
                let listed = count.min(MAX_LISTED_FAILURES);
                let more = count.saturating_sub(MAX_LISTED_FAILURES);
                assert_eq!(details.len(), listed + usize::from(more > 0), "{count}");
                if more > 0 {
                    assert_eq!(details[listed]["keyword"], "truncated");
                    assert!(details[listed]["message"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("and {more} more")));
                }
                let size = Value::Array(details.clone()).to_string().len();
                assert!(size < 8 * MAX_QUOTED_ARGS, "{count}: {size} bytes");
            }
        }
    }

    #[test]
    fn valid_arguments_pass() {
        assert!(validate_arguments(&edit_spec(), &json!({"filePath": "a", "count": 1})).is_ok());
    }

    #[test]
    fn output_is_checked_against_the_output_schema() {
        let declaration: ToolDeclaration = serde_json::from_value(json!({
            "name": "t",
            "parameters": {"type": "object"},
            "outputSchema": {"type": "object", "required": ["n"], "properties": {"n": {"type": "number"}}}
        }))
        .unwrap();
        let spec = Registry::new().register(declaration).unwrap();
        assert!(validate_output(&spec, &json!({"n": 1})).is_ok());
        let error = validate_output(&spec, &json!({"n": "x"})).unwrap_err();
        assert_eq!(error.code, ErrorCode::ExecutionError);
        assert!(error.message.contains("/n"));
    }
}
