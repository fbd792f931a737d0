//! What a tool and the hooks after it return, turned into the result envelope: an AgentToolResult
//! (`{ content, details }`), a string, or any JSON value, each checked before it is trusted.

use serde_json::{Map, Value};

use crate::args::validate_output;
use crate::envelope::{ContentBlock, ToolError, ToolResult, ToolStatus};
use crate::error::ErrorCode;
use crate::json_input::{TooDeep, MAX_VALUE_DEPTH};
use crate::json_text::json_type;
use crate::registry::ToolSpec;

/// The text a call that returned nothing gives the model.
pub const NO_OUTPUT: &str = "(no output)";

/// How a tool's execution ended, as the driver observed it.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolOutcome {
    /// The tool returned (or resolved with) this JSON value.
    Returned(Value),
    /// The tool returned `undefined`.
    ReturnedNothing,
    /// The tool threw or rejected; the error's message.
    Threw(String),
    /// The tool threw or rejected with an error marked `retryable = false`; its message. The
    /// result's `error.retryable` is `false`, so a plan does not try the call again.
    ThrewNotRetryable(String),
    /// The returned value cannot be serialized (a BigInt, a cycle); why.
    Unserializable(String),
    /// The tool's implementation was gone when the call was to start.
    Missing,
    /// The returned value nests deeper than [`crate::json_input::MAX_VALUE_DEPTH`]: refused
    /// before parsing.
    TooDeep,
    /// What the tool sent was refused over a limit on the way (a remote tool's callback larger
    /// than `maxCallbackBytes`); the message, naming the limit. `LIMIT_EXCEEDED`, not retried.
    OverLimit(String),
}

crate::codes! {
    /// How a successful result was derived from the value the tool returned. When a result is
    /// exactly its tool's value in one of these shapes, the driver can rebuild it from the value it
    /// still holds instead of receiving it again.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum OutputShape {
        /// An AgentToolResult: `content` and `details` as returned.
        AgentResult = 0,
        /// A string: one text block.
        Text = 1,
        /// Another JSON value: its JSON text as one text block, and the value as `data`.
        Json = 2,
        /// `undefined`: the text `(no output)`.
        Nothing = 3,
    }
}

/// The verdict on what a tool returned, reached without building anything: the shape of a
/// valid value, and whether it reports an error itself (`isError: true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// How the result is derived from the value.
    pub shape: OutputShape,
    /// The value is an AgentToolResult with `isError: true`.
    pub reports_error: bool,
}

/// Checks a tool's outcome: a value that is not a valid result, or an outcome that is not a
/// value, gives the error the result must carry.
pub fn check_outcome(spec: &ToolSpec, outcome: &ToolOutcome) -> Result<Verdict, ToolError> {
    let tool = &spec.name;
    let shape = |shape| Verdict {
        shape,
        reports_error: false,
    };
    match outcome {
        ToolOutcome::Returned(value @ Value::String(_)) => {
            validate_output(spec, value).map(|()| shape(OutputShape::Text))
        }
        ToolOutcome::Returned(Value::Object(map))
            if map.get("content").is_some_and(Value::is_array) =>
        {
            check_content(tool, "returned", map.get("content"))?;
            check_effects(tool, map.get("effects"))?;
            if let Some(flag) = map.get("terminate").filter(|flag| !flag.is_boolean()) {
                return Err(ToolError::new(
                    ErrorCode::ExecutionError,
                    format!(
                        "Tool \"{tool}\" returned invalid terminate: it must be true or false, got {}",
                        json_type(flag)
                    ),
                ));
            }
            let reports_error = map.get("isError") == Some(&Value::Bool(true));
            // The outputSchema describes a success: an error the tool reports keeps its own
            // text and details, whatever their shape.
            match map.get("details") {
                _ if reports_error => {}
                Some(details) => validate_output(spec, details)?,
                None if spec.output_validator().is_some() => {
                    return Err(ToolError::new(
                        ErrorCode::ExecutionError,
                        format!(
                            "Tool \"{tool}\" declares an outputSchema but returned no details."
                        ),
                    ))
                }
                None => {}
            }
            Ok(Verdict {
                shape: OutputShape::AgentResult,
                reports_error,
            })
        }
        ToolOutcome::Returned(value) => {
            validate_output(spec, value).map(|()| shape(OutputShape::Json))
        }
        ToolOutcome::ReturnedNothing => {
            validate_output(spec, &Value::Null).map(|()| shape(OutputShape::Nothing))
        }
        ToolOutcome::Threw(message) => Err(thrown(tool, message)),
        ToolOutcome::ThrewNotRetryable(message) => Err(ToolError {
            retryable: Some(false),
            ..thrown(tool, message)
        }),
        ToolOutcome::Unserializable(why) => Err(ToolError::new(
            ErrorCode::ExecutionError,
            format!("Tool \"{tool}\" returned a value that cannot be serialized to JSON: {why}"),
        )),
        ToolOutcome::TooDeep => Err(ToolError::new(
            ErrorCode::LimitExceeded,
            format!(
                "Tool \"{tool}\" returned a value that cannot be used: {}",
                TooDeep
            ),
        )
        .with_details(serde_json::json!({ "limit": MAX_VALUE_DEPTH }))),
        ToolOutcome::OverLimit(message) => Err(ToolError {
            code: ErrorCode::LimitExceeded,
            retryable: Some(false),
            ..thrown(tool, message)
        }),
        ToolOutcome::Missing => Err(ToolError::new(
            ErrorCode::NotFound,
            format!("Tool \"{tool}\" was unregistered before this call could start."),
        )),
    }
}

/// Fills a result from a tool's outcome and the verdict [`check_outcome`] gave on it: a valid
/// value becomes content (and details or data), anything else an `EXECUTION_ERROR` saying what
/// is wrong.
pub fn apply_verdict(
    result: &mut ToolResult,
    spec: &ToolSpec,
    outcome: ToolOutcome,
    verdict: Result<Verdict, ToolError>,
) {
    let verdict = match verdict {
        Ok(verdict) => verdict,
        Err(error) => {
            result.details = None;
            result.data = None;
            return result.fail(ToolStatus::Error, error);
        }
    };
    match outcome {
        ToolOutcome::Returned(Value::String(text)) => {
            result.content = vec![ContentBlock::text(text)]
        }
        ToolOutcome::Returned(Value::Object(mut map))
            if verdict.shape == OutputShape::AgentResult =>
        {
            let blocks = map.remove("content");
            let blocks = blocks.as_ref().and_then(Value::as_array).map(Vec::as_slice);
            result.content = blocks
                .unwrap_or_default()
                .iter()
                .filter_map(content_block)
                .collect();
            result.details = map.remove("details");
            result.effects = map
                .remove("effects")
                .and_then(|effects| serde_json::from_value(effects).ok());
            result.terminate = (map.get("terminate") == Some(&Value::Bool(true))).then_some(true);
        }
        ToolOutcome::Returned(value) => {
            result.content = vec![ContentBlock::text(value.to_string())];
            result.data = Some(value);
        }
        _ => result.content = vec![ContentBlock::text(NO_OUTPUT)],
    }
    if verdict.reports_error {
        let message = first_text(&result.content)
            .unwrap_or_else(|| format!("Tool \"{}\" reported an error.", spec.name));
        result.status = ToolStatus::Error;
        result.ok = false;
        result.error = Some(ToolError::new(ErrorCode::ExecutionError, message));
    }
}

/// Checks a returned `effects`: `{ created?, modified?, deleted?: string[], renamed?: [{ from,
/// to }] }`, naming what is wrong.
/// The error of a tool that threw `message`.
fn thrown(tool: &str, message: &str) -> ToolError {
    if message.trim().is_empty() {
        ToolError::new(
            ErrorCode::ExecutionError,
            format!("Tool \"{tool}\" failed without an error message."),
        )
    } else {
        ToolError::new(ErrorCode::ExecutionError, message)
    }
}

fn check_effects(tool: &str, effects: Option<&Value>) -> Result<(), ToolError> {
    let Some(effects) = effects.filter(|e| !e.is_null()) else {
        return Ok(());
    };
    serde_json::from_value::<crate::envelope::Effects>(effects.clone())
        .map(|_| ())
        .map_err(|e| {
            ToolError::new(
                ErrorCode::ExecutionError,
                format!(
                    "Tool \"{tool}\" returned invalid effects ({e}); expected {{ created?, \
                     modified?, deleted?: string[], renamed?: [{{ from, to }}] }}"
                ),
            )
        })
}

/// Checks content blocks without building them, naming the first bad block.
fn check_content(tool: &str, source: &str, content: Option<&Value>) -> Result<(), ToolError> {
    let invalid = |what: String| {
        ToolError::new(
            ErrorCode::ExecutionError,
            format!("Tool \"{tool}\" {source} invalid content: {what}"),
        )
    };
    let Some(Value::Array(items)) = content else {
        return Err(invalid(format!(
            "content must be an array of blocks, got {}",
            content.map_or("nothing", json_type)
        )));
    };
    for (index, item) in items.iter().enumerate() {
        let text = |key: &str| item.get(key).is_some_and(Value::is_string);
        let problem = match item.get("type").and_then(Value::as_str) {
            Some("text") if text("text") => continue,
            Some("image") if text("data") && text("mimeType") => continue,
            Some("text") => format!("block {index} is a text block without a string \"text\""),
            Some("image") => format!(
                "block {index} is an image block without string \"data\" and \"mimeType\""
            ),
            Some(other) => format!(
                "block {index} has type \"{other}\"; only \"text\" and \"image\" blocks are supported"
            ),
            None => format!("block {index} is {} without a \"type\"", json_type(item)),
        };
        return Err(invalid(problem));
    }
    Ok(())
}

/// Parses content blocks, naming the first bad block.
pub fn parse_content(
    tool: &str,
    source: &str,
    content: Option<Value>,
) -> Result<Vec<ContentBlock>, ToolError> {
    check_content(tool, source, content.as_ref())?;
    let blocks = content
        .as_ref()
        .and_then(Value::as_array)
        .map(Vec::as_slice);
    Ok(blocks
        .unwrap_or_default()
        .iter()
        .filter_map(content_block)
        .collect())
}

/// One content block, read without copying the value; `None` when it is not a valid block.
fn content_block(item: &Value) -> Option<ContentBlock> {
    let text = |key: &str| item.get(key).and_then(Value::as_str);
    match text("type")? {
        "text" => Some(ContentBlock::text(text("text")?)),
        "image" => Some(ContentBlock::Image {
            data: text("data")?.to_owned(),
            mime_type: text("mimeType")?.to_owned(),
        }),
        _ => None,
    }
}

fn first_text(content: &[ContentBlock]) -> Option<String> {
    content.iter().find_map(|block| match block {
        ContentBlock::Text { text } if !text.trim().is_empty() => Some(text.clone()),
        _ => None,
    })
}

/// What a `beforeToolCall` hook decided.
#[derive(Clone, Debug, PartialEq)]
pub enum BeforeDecision {
    /// Run the call as prepared.
    Proceed,
    /// Block the call, with the hook's reason.
    Block(String),
    /// Run the call with these arguments instead (validated again).
    Replace(Value),
}

/// Reads a `beforeToolCall` answer: `{ block: true, reason }`, `{ params }`, or anything else to
/// proceed.
///
/// Only `block: true` blocks here: whether a hook's answer blocks is decided by the JavaScript
/// driver, by JavaScript's truthiness as pi-agent-core decides it (`ts/completion.ts`,
/// `beforeAnswer`), before the answer crosses, since JSON cannot carry every truthy value (a
/// function, a symbol). Every blocking answer crosses as `{ block: true, reason? }`; a `block`
/// that reaches this function as anything but `true` is one JavaScript reads as false.
pub fn before_decision(answer: Value) -> BeforeDecision {
    let Value::Object(mut map) = answer else {
        return BeforeDecision::Proceed;
    };
    if map.get("block") == Some(&Value::Bool(true)) {
        let reason = match map.remove("reason") {
            Some(Value::String(reason)) if !reason.trim().is_empty() => reason,
            _ => "blocked by the beforeToolCall hook".to_owned(),
        };
        return BeforeDecision::Block(reason);
    }
    match map.remove("params") {
        Some(params) => BeforeDecision::Replace(params),
        None => BeforeDecision::Proceed,
    }
}

/// Applies an `afterToolCall` answer: `content`, `details` and `isError` each replace the
/// original when present (no deep merge).
pub fn apply_after_answer(
    result: &mut ToolResult,
    tool: &str,
    answer: Value,
) -> Result<(), ToolError> {
    let Value::Object(mut map) = answer else {
        return Ok(());
    };
    if let Some(content) = map.remove("content") {
        result.content = parse_content(tool, "afterToolCall hook returned", Some(content))?;
    }
    if let Some(details) = map.remove("details") {
        result.details = Some(details);
    }
    match map.remove("isError") {
        Some(Value::Bool(true)) if result.ok => {
            let message = first_text(&result.content).unwrap_or_else(|| {
                format!("The afterToolCall hook marked tool \"{tool}\" as failed.")
            });
            result.status = ToolStatus::Error;
            result.ok = false;
            result.error = Some(ToolError::new(ErrorCode::ExecutionError, message));
        }
        Some(Value::Bool(false)) if !result.ok => {
            result.status = ToolStatus::Ok;
            result.ok = true;
            result.error = None;
        }
        _ => {}
    }
    Ok(())
}

/// Applies an `onPersist` answer: a replacement result whose `content`, `details` and `data`
/// replace the original's where present. Identity, status and timing stay the engine's.
pub fn apply_persist_answer(
    result: &mut ToolResult,
    tool: &str,
    answer: Value,
) -> Result<(), ToolError> {
    let Value::Object(mut map) = answer else {
        return Ok(());
    };
    if let Some(content) = map.remove("content") {
        result.content = parse_content(tool, "onPersist hook returned", Some(content))?;
    }
    replace_field(&mut map, "details", &mut result.details);
    replace_field(&mut map, "data", &mut result.data);
    Ok(())
}

fn replace_field(map: &mut Map<String, Value>, key: &str, field: &mut Option<Value>) {
    if let Some(value) = map.remove(key) {
        *field = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Registry, ToolDeclaration};
    use serde_json::json;
    use std::sync::Arc;

    fn spec(output_schema: Option<Value>) -> Arc<ToolSpec> {
        let mut raw = json!({"name": "t", "parameters": {"type": "object"}});
        if let Some(schema) = output_schema {
            raw["outputSchema"] = schema;
        }
        let declaration: ToolDeclaration = serde_json::from_value(raw).unwrap();
        Registry::new().register(declaration).unwrap()
    }

    fn blank() -> ToolResult {
        ToolResult::ok("c".into(), "t".into(), json!({}))
    }

    fn outcome(spec: &ToolSpec, outcome: ToolOutcome) -> ToolResult {
        let mut result = blank();
        let verdict = check_outcome(spec, &outcome);
        apply_verdict(&mut result, spec, outcome, verdict);
        result
    }

    #[test]
    fn effects_and_terminate_are_kept_and_checked() {
        let spec = spec(None);
        let kept = outcome(
            &spec,
            ToolOutcome::Returned(json!({
                "content": [{ "type": "text", "text": "moved" }],
                "effects": { "created": ["a"], "renamed": [{ "from": "b", "to": "c" }] },
                "terminate": true
            })),
        );
        assert!(kept.ok);
        let effects = kept.effects.expect("effects");
        assert_eq!(effects.created, vec!["a".to_string()]);
        assert_eq!(effects.renamed[0].to, "c");
        assert_eq!(kept.terminate, Some(true));
        let rows = [
            (
                json!({ "deleted": "x" }),
                json!(false),
                "returned invalid effects",
            ),
            (
                json!({ "moved": [] }),
                json!(false),
                "returned invalid effects",
            ),
            (json!(null), json!("yes"), "returned invalid terminate"),
        ];
        for (effects, terminate, expected) in rows {
            let value = json!({ "content": [], "effects": effects, "terminate": terminate });
            let result = outcome(&spec, ToolOutcome::Returned(value));
            let error = result.error.expect("refused");
            assert_eq!(error.code, ErrorCode::ExecutionError);
            assert!(error.message.contains(expected), "{}", error.message);
        }
        let plain = outcome(&spec, ToolOutcome::Returned(json!({ "content": [] })));
        assert_eq!((plain.effects, plain.terminate), (None, None));
    }

    #[test]
    fn the_verdict_gives_the_shape_of_valid_values_only() {
        let shape = |o| {
            check_outcome(&spec(None), &o)
                .ok()
                .filter(|v| !v.reports_error)
                .map(|v| v.shape)
        };
        assert_eq!(
            shape(ToolOutcome::Returned(json!({"content": []}))),
            Some(OutputShape::AgentResult)
        );
        assert_eq!(
            shape(ToolOutcome::Returned(json!("s"))),
            Some(OutputShape::Text)
        );
        assert_eq!(
            shape(ToolOutcome::Returned(json!(1))),
            Some(OutputShape::Json)
        );
        assert_eq!(
            shape(ToolOutcome::ReturnedNothing),
            Some(OutputShape::Nothing)
        );
        assert_eq!(
            shape(ToolOutcome::Returned(
                json!({"content": [], "isError": true})
            )),
            None
        );
        assert_eq!(shape(ToolOutcome::Threw("x".into())), None);
        assert_eq!(
            shape(ToolOutcome::Returned(json!({"content": [{"type": "x"}]}))),
            None
        );
    }

    #[test]
    fn an_agent_tool_result_keeps_content_and_details() {
        let result = outcome(
            &spec(None),
            ToolOutcome::Returned(
                json!({"content": [{"type": "text", "text": "hi"}], "details": {"n": 1}}),
            ),
        );
        assert!(result.ok);
        assert_eq!(result.content, vec![ContentBlock::text("hi")]);
        assert_eq!(result.details, Some(json!({"n": 1})));
        assert_eq!(result.data, None);
    }

    #[test]
    fn a_string_is_one_text_block() {
        let result = outcome(&spec(None), ToolOutcome::Returned(json!("plain")));
        assert_eq!(result.content, vec![ContentBlock::text("plain")]);
        assert_eq!(result.data, None);
    }

    #[test]
    fn any_other_value_is_json_text_and_data() {
        for value in [
            json!({"a": [1, 2]}),
            json!([1]),
            json!(3.5),
            json!(null),
            json!(true),
        ] {
            let result = outcome(&spec(None), ToolOutcome::Returned(value.clone()));
            assert!(result.ok);
            assert_eq!(result.content, vec![ContentBlock::text(value.to_string())]);
            assert_eq!(result.data, Some(value));
        }
    }

    #[test]
    fn undefined_gives_no_output_text() {
        let result = outcome(&spec(None), ToolOutcome::ReturnedNothing);
        assert_eq!(result.content, vec![ContentBlock::text(NO_OUTPUT)]);
        assert!(result.ok);
    }

    #[test]
    fn a_throw_keeps_the_tools_message() {
        let result = outcome(&spec(None), ToolOutcome::Threw("disk full".into()));
        assert_eq!(result.status, ToolStatus::Error);
        assert_eq!(
            result.error.as_ref().unwrap().code,
            ErrorCode::ExecutionError
        );
        assert_eq!(result.content, vec![ContentBlock::text("disk full")]);
        let result = outcome(&spec(None), ToolOutcome::Threw(" ".into()));
        assert!(first_text(&result.content)
            .unwrap()
            .contains("without an error message"));
    }

    #[test]
    fn a_throw_marked_not_retryable_says_so() {
        let cases = [
            (ToolOutcome::Threw("flaky".into()), Some(true), "flaky"),
            (
                ToolOutcome::ThrewNotRetryable("gone".into()),
                Some(false),
                "gone",
            ),
            (
                ToolOutcome::ThrewNotRetryable("".into()),
                Some(false),
                "without an error message",
            ),
        ];
        for (thrown, retryable, text) in cases {
            let result = outcome(&spec(None), thrown);
            let error = result.error.as_ref().unwrap();
            assert_eq!(error.code, ErrorCode::ExecutionError);
            assert_eq!(error.retryable, retryable, "{text}");
            assert!(first_text(&result.content).unwrap().contains(text));
        }
    }

    /// A remote tool's result refused over `maxCallbackBytes` on its way is the limit's error,
    /// not the tool's throw: LIMIT_EXCEEDED with the transport's message, not retried.
    #[test]
    fn a_value_refused_over_a_limit_on_its_way_is_limit_exceeded() {
        let message = "Error: the callback is larger than maxCallbackBytes (16777216 bytes)";
        let result = outcome(&spec(None), ToolOutcome::OverLimit(message.into()));
        let error = result.error.as_ref().unwrap();
        assert_eq!(error.code, ErrorCode::LimitExceeded);
        assert_eq!(error.retryable, Some(false));
        assert_eq!(result.content, vec![ContentBlock::text(message)]);
    }

    #[test]
    fn unserializable_values_say_so() {
        let result = outcome(
            &spec(None),
            ToolOutcome::Unserializable("Do not know how to serialize a BigInt".into()),
        );
        assert_eq!(
            result.error.as_ref().unwrap().code,
            ErrorCode::ExecutionError
        );
        assert!(first_text(&result.content)
            .unwrap()
            .contains("cannot be serialized"));
    }

    #[test]
    fn bad_content_blocks_are_named() {
        for (content, expected) in [
            (
                json!([{"type": "audio", "data": "x"}]),
                "block 0 has type \"audio\"",
            ),
            (
                json!([{"type": "text", "text": "a"}, {"type": "text"}]),
                "block 1 is a text block",
            ),
            (
                json!([{"type": "image", "data": "x"}]),
                "block 0 is an image block",
            ),
            (json!(["bare"]), "block 0 is a string without a \"type\""),
        ] {
            let result = outcome(
                &spec(None),
                ToolOutcome::Returned(json!({"content": content})),
            );
            assert!(!result.ok);
            let text = first_text(&result.content).unwrap();
            assert!(text.contains(expected), "{text}");
        }
    }

    #[test]
    fn is_error_true_marks_the_result_failed() {
        let result = outcome(
            &spec(None),
            ToolOutcome::Returned(
                json!({"content": [{"type": "text", "text": "nope"}], "isError": true}),
            ),
        );
        assert_eq!(result.status, ToolStatus::Error);
        assert_eq!(result.error.unwrap().message, "nope");
    }

    #[test]
    fn output_schema_checks_details_and_values() {
        let spec = spec(Some(json!({"type": "object", "required": ["n"]})));
        let ok = outcome(
            &spec,
            ToolOutcome::Returned(json!({"content": [], "details": {"n": 1}})),
        );
        assert!(ok.ok);
        let bad = outcome(&spec, ToolOutcome::Returned(json!({"m": 1})));
        assert!(!bad.ok);
        assert_eq!(bad.data, None);
        let missing = outcome(&spec, ToolOutcome::Returned(json!({"content": []})));
        assert!(first_text(&missing.content)
            .unwrap()
            .contains("returned no details"));
    }

    #[test]
    fn a_reported_error_is_not_held_to_the_output_schema() {
        // Seen with MCP servers: `isError: true` with a message and no structured content.
        let spec = spec(Some(json!({"type": "object", "required": ["n"]})));
        for reported in [
            json!({"content": [{"type": "text", "text": "quota exceeded"}], "isError": true}),
            json!({"content": [{"type": "text", "text": "quota exceeded"}], "isError": true, "details": {"retryAfter": 3}}),
        ] {
            let result = outcome(&spec, ToolOutcome::Returned(reported));
            assert_eq!(result.status, ToolStatus::Error);
            assert_eq!(result.error.unwrap().message, "quota exceeded");
        }
    }

    #[test]
    fn before_answers_are_read() {
        assert_eq!(before_decision(json!(null)), BeforeDecision::Proceed);
        assert_eq!(
            before_decision(json!({"block": false})),
            BeforeDecision::Proceed
        );
        assert_eq!(
            before_decision(json!({"block": true, "reason": "no"})),
            BeforeDecision::Block("no".into())
        );
        assert!(
            matches!(before_decision(json!({"block": true})), BeforeDecision::Block(r) if r.contains("beforeToolCall"))
        );
        assert_eq!(
            before_decision(json!({"params": {"a": 1}})),
            BeforeDecision::Replace(json!({"a": 1}))
        );
    }

    #[test]
    fn after_answers_replace_without_merging() {
        let mut result = blank();
        result.content = vec![ContentBlock::text("orig")];
        result.details = Some(json!({"a": 1, "b": 2}));
        apply_after_answer(&mut result, "t", json!({"details": {"c": 3}})).unwrap();
        assert_eq!(result.details, Some(json!({"c": 3})));
        assert_eq!(result.content, vec![ContentBlock::text("orig")]);
        apply_after_answer(&mut result, "t", json!({"isError": true})).unwrap();
        assert_eq!(result.status, ToolStatus::Error);
        assert_eq!(
            result.error.as_ref().unwrap().code,
            ErrorCode::ExecutionError
        );
        apply_after_answer(
            &mut result,
            "t",
            json!({"isError": false, "content": [{"type": "text", "text": "fixed"}]}),
        )
        .unwrap();
        assert!(result.ok);
        assert!(result.error.is_none());
        assert!(apply_after_answer(&mut result, "t", json!({"content": "x"})).is_err());
    }

    #[test]
    fn persist_answers_replace_content_details_and_data() {
        let mut result = blank();
        result.content = vec![ContentBlock::text("secret")];
        apply_persist_answer(&mut result, "t", json!({"content": [{"type": "text", "text": "[scrubbed]"}], "status": "error", "data": 1})).unwrap();
        assert_eq!(result.content, vec![ContentBlock::text("[scrubbed]")]);
        assert_eq!(result.data, Some(json!(1)));
        assert!(result.ok, "status stays the engine's");
    }
}
