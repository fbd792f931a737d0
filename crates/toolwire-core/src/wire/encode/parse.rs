//! Reading the caller's JSON for the encoders: the results to send and the assistant turn to
//! put back into history. Malformed input is the caller's error, naming the index and field.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{HistoryThinking, HistoryTurn, ResultInput};
use crate::envelope::ContentBlock;
use crate::error::{Error, ErrorCode, Result};
use crate::json_input::repair_surrogates;
use crate::json_text::json_string;

/// The keys of a result [`parse_results`] reads; the JavaScript driver sends only these
/// (generated for it as `ENCODED_RESULT_KEYS`, see `crate::contract`).
pub const RESULT_KEYS: &[&str] = &[
    "callId",
    "toolCallId",
    "tool",
    "toolName",
    "isError",
    "ok",
    "status",
    "content",
    "error",
];

/// Parses a JSON array of results. Each element is a toolwire `ToolResult` or a pi-ai
/// `ToolResultMessage`:
/// - the call id is `callId`, else `toolCallId`; the tool is `tool`, else `toolName` (both
///   required strings);
/// - `content` is an array of `{type:"text", text}` / `{type:"image", data, mimeType}` blocks (a
///   string is one text block; missing or `null` is no blocks);
/// - the result is an error when `isError` is true, else when `ok` is false, else when `status`
///   is not `"ok"`; with none of the three it is a success;
/// - an error result with no non-empty text block gets its `error.message` (or a string
///   `error`) as its text, so the model reads what went wrong.
///
/// Every other key is ignored ([`RESULT_KEYS`] lists the ones read). A malformed element is a
/// caller error naming it, e.g. `results[2].content[0].mimeType: expected a string, got 3`.
pub fn parse_results(json: &str) -> Result<Vec<ResultInput>> {
    let json = repair_surrogates(json);
    match super::fast_results::read_results(&json) {
        Some(results) => Ok(results),
        None => parse_results_exactly(&json),
    }
}

/// [`parse_results`] through a `Value` of the whole input: slower, and the reading that names
/// what is wrong (the quick reading gives way to it for anything but well-formed input).
pub(super) fn parse_results_exactly(json: &str) -> Result<Vec<ResultInput>> {
    let value: Value = serde_json::from_str(json)
        .map_err(|e| invalid(format!("results are not valid JSON: {e}")))?;
    let Value::Array(items) = value else {
        return Err(invalid(format!(
            "results: expected a JSON array of results, got {}",
            describe(&value)
        )));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            result_input(item).map_err(|e| invalid(e.within(&format!("results[{i}]")).to_string()))
        })
        .collect()
}

/// Parses the assistant turn to put back: either a JSON array of calls (`ModelToolCall`s or
/// `AssembledToolCall`s) or a turn object (an `AssembledTurn`, or `{text?, thinking?, calls?}`;
/// the calls are `calls`, else `toolCalls`). Unknown keys are ignored. A malformed part is a
/// caller error naming the list and index, e.g. "toolCalls[1]: missing field `id`".
pub fn parse_history_turn(json: &str) -> Result<HistoryTurn> {
    let value: Value = serde_json::from_str(&repair_surrogates(json))
        .map_err(|e| invalid(format!("history turn is not valid JSON: {e}")))?;
    match value {
        Value::Array(items) => Ok(HistoryTurn {
            calls: elements(items, "calls")?,
            ..HistoryTurn::default()
        }),
        Value::Object(mut map) => {
            let text = match map.remove("text") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(text)) => text,
                Some(other) => {
                    return Err(invalid(format!(
                        "text: expected a string, got {}",
                        describe(&other)
                    )))
                }
            };
            let thinking: Vec<HistoryThinking> = list(map.remove("thinking"), "thinking")?;
            let calls = match map.remove("calls").filter(|v| !v.is_null()) {
                Some(calls) => list(Some(calls), "calls")?,
                None => list(map.remove("toolCalls"), "toolCalls")?,
            };
            Ok(HistoryTurn {
                text,
                thinking,
                calls,
            })
        }
        other => Err(invalid(format!(
            "history turn: expected an array of calls or a turn object, got {}",
            describe(&other)
        ))),
    }
}

impl TryFrom<Value> for ResultInput {
    type Error = String;

    /// The same rules as [`parse_results`], for one element.
    fn try_from(value: Value) -> std::result::Result<Self, String> {
        result_input(value).map_err(|e| e.to_string())
    }
}

/// A problem at a path inside one element (the path is empty for the element itself).
struct Located {
    path: String,
    problem: String,
}

impl Located {
    /// A problem with the element itself.
    fn here(problem: String) -> Self {
        Located {
            path: String::new(),
            problem,
        }
    }

    /// A problem with one field of the element.
    fn field(name: &str, problem: String) -> Self {
        Located {
            path: name.to_owned(),
            problem,
        }
    }

    /// The same problem seen from the element's container, which calls it `prefix`.
    fn within(self, prefix: &str) -> Self {
        let path = if self.path.is_empty() {
            prefix.to_owned()
        } else {
            format!("{prefix}.{}", self.path)
        };
        Located {
            path,
            problem: self.problem,
        }
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}

/// One result element.
fn result_input(value: Value) -> std::result::Result<ResultInput, Located> {
    let Value::Object(mut map) = value else {
        return Err(Located::here(format!(
            "expected a result object, got {}",
            describe(&value)
        )));
    };
    let call_id = first_string(&map, "callId", "toolCallId")?;
    let tool = first_string(&map, "tool", "toolName")?;
    let is_error = is_error(&map)?;
    let content = match map.remove("content") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) => vec![ContentBlock::Text { text }],
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| content_block(item).map_err(|e| e.within(&format!("content[{i}]"))))
            .collect::<std::result::Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(Located::field(
                "content",
                format!(
                    "expected an array of content blocks, got {}",
                    describe(&other)
                ),
            ))
        }
    };
    let message = match map.get("error") {
        Some(Value::String(message)) => Some(message.as_str()),
        Some(Value::Object(error)) => error.get("message").and_then(Value::as_str),
        _ => None,
    };
    Ok(ResultInput {
        call_id,
        tool,
        content: with_error_text(content, is_error, message),
        is_error,
    })
}

/// An error result with no non-empty text block gets its error's message (when not empty) as
/// its first block, so the model reads what went wrong.
pub(super) fn with_error_text(
    mut content: Vec<ContentBlock>,
    is_error: bool,
    message: Option<&str>,
) -> Vec<ContentBlock> {
    let has_text = content
        .iter()
        .any(|block| matches!(block, ContentBlock::Text { text } if !text.is_empty()));
    if is_error && !has_text {
        if let Some(message) = message.filter(|m| !m.is_empty()) {
            content.insert(0, ContentBlock::text(message));
        }
    }
    content
}

/// The string under `key`, else under `alias`; `null` counts as absent.
fn first_string(
    map: &Map<String, Value>,
    key: &str,
    alias: &str,
) -> std::result::Result<String, Located> {
    for name in [key, alias] {
        match map.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => return Ok(s.clone()),
            Some(other) => {
                return Err(Located::field(
                    name,
                    format!("expected a string, got {}", describe(other)),
                ))
            }
        }
    }
    Err(Located::here(format!("missing {key} (or {alias})")))
}

/// `isError`, else `!ok`, else `status != "ok"`, else false.
fn is_error(map: &Map<String, Value>) -> std::result::Result<bool, Located> {
    for (name, error_when) in [("isError", true), ("ok", false)] {
        match map.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => return Ok(*b == error_when),
            Some(other) => {
                return Err(Located::field(
                    name,
                    format!("expected a boolean, got {}", describe(other)),
                ))
            }
        }
    }
    match map.get("status") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::String(status)) => Ok(status != "ok"),
        Some(other) => Err(Located::field(
            "status",
            format!("expected a string, got {}", describe(other)),
        )),
    }
}

/// One content block: `{type:"text", text}` or `{type:"image", data, mimeType}`.
fn content_block(value: Value) -> std::result::Result<ContentBlock, Located> {
    let Value::Object(mut map) = value else {
        return Err(Located::here(format!(
            "expected a content block object, got {}",
            describe(&value)
        )));
    };
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        None | Some(Value::Null) => return Err(Located::field("type", "missing".into())),
        Some(other) => {
            return Err(Located::field(
                "type",
                format!("expected a string, got {}", describe(other)),
            ))
        }
    };
    match kind {
        "text" => Ok(ContentBlock::Text {
            text: take_string(&mut map, "text")?,
        }),
        "image" => Ok(ContentBlock::Image {
            data: take_string(&mut map, "data")?,
            mime_type: take_string(&mut map, "mimeType")?,
        }),
        other => Err(Located::field(
            "type",
            format!(
                "unknown content block type {}: expected \"text\" or \"image\"",
                json_string(&truncated(other))
            ),
        )),
    }
}

/// The required string field `name`, moved out of `map`.
fn take_string(map: &mut Map<String, Value>, name: &str) -> std::result::Result<String, Located> {
    match map.remove(name) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Err(Located::field(name, "missing".into())),
        Some(other) => Err(Located::field(
            name,
            format!("expected a string, got {}", describe(&other)),
        )),
    }
}

/// A list field of the turn object: missing or `null` is empty, anything but an array is an
/// error naming the field.
fn list<T: DeserializeOwned>(value: Option<Value>, name: &str) -> Result<Vec<T>> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => elements(items, name),
        Some(other) => Err(invalid(format!(
            "{name}: expected an array, got {}",
            describe(&other)
        ))),
    }
}

/// Each element deserialized, an error naming `name[index]`.
fn elements<T: DeserializeOwned>(items: Vec<Value>, name: &str) -> Result<Vec<T>> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item).map_err(|e| invalid(format!("{name}[{i}]: {e}")))
        })
        .collect()
}

/// A caller error for malformed input.
fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

/// A short description of a value for an error message.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("the string {}", json_string(&truncated(s))),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// At most 40 characters of `s`, with `…` when cut.
fn truncated(s: &str) -> String {
    const MAX: usize = 40;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn keys_outside_result_keys_change_nothing() {
        use super::super::fixtures::results_on;
        use crate::provider::Wire;
        use serde_json::json;
        let full = json!([
            {"callId": "c1", "tool": "read", "args": {"p": 1}, "details": {"x": [1]}, "runId": "r",
             "startedAt": 1, "status": "ok", "ok": true, "content": [{"type": "text", "text": "hi"}]},
            {"role": "toolResult", "toolCallId": "c2", "toolName": "shot", "timestamp": 5,
             "content": "boom", "isError": true, "error": {"code": "EXECUTION_ERROR", "message": "m"}},
            {"callId": "c3", "tool": "t", "status": "timeout", "error": "too slow", "extra": {"status": "ok"}},
        ]);
        let kept: Vec<Value> = full
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                let map = result.as_object().unwrap();
                Value::Object(
                    map.iter()
                        .filter(|(key, _)| RESULT_KEYS.contains(&key.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            })
            .collect();
        for wire in Wire::ALL {
            let encode = |v: &Value| results_on(wire, &parse_results(&v.to_string()).unwrap());
            assert_eq!(
                encode(&full),
                encode(&Value::Array(kept.clone())),
                "{wire:?}"
            );
        }
    }
    use super::*;
    use crate::error::Fault;

    fn text(s: &str) -> ContentBlock {
        ContentBlock::text(s)
    }

    /// `result` is a caller's VALIDATION_ERROR whose message starts with `expected`.
    fn assert_caller_error(result: crate::error::Result<()>, json: &str, expected: &str) {
        let error = result.unwrap_err();
        assert_eq!(error.fault, Fault::Caller, "{json}");
        assert_eq!(error.code, ErrorCode::ValidationError, "{json}");
        assert!(
            error.message.starts_with(expected),
            "{json}: {:?} does not start with {expected:?}",
            error.message
        );
    }
    #[test]
    fn accepts_toolwire_results_and_pi_tool_result_messages() {
        let json = r#"[
            {"callId": "c1", "tool": "read", "args": {}, "attempt": 1, "status": "ok", "ok": true,
             "content": [{"type": "text", "text": "hi"}], "startedAt": 1, "endedAt": 2, "durationMs": 1},
            {"callId": "c2", "tool": "write", "status": "timeout", "ok": false,
             "content": [{"type": "text", "text": "too slow"}],
             "error": {"code": "TIMEOUT", "message": "too slow", "retryable": true}},
            {"role": "toolResult", "toolCallId": "c3", "toolName": "shot",
             "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
             "details": null, "isError": false, "timestamp": 5},
            {"role": "toolResult", "toolCallId": "c4", "toolName": "shot", "content": [], "isError": true},
            {"callId": "c5", "tool": "legacy", "status": "blocked", "content": "string content"},
            {"callId": "c6", "tool": "bare"}
        ]"#;
        let parsed = parse_results(json).unwrap();
        let expected = [
            ("c1", "read", vec![text("hi")], false),
            ("c2", "write", vec![text("too slow")], true),
            (
                "c3",
                "shot",
                vec![ContentBlock::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into(),
                }],
                false,
            ),
            ("c4", "shot", vec![], true),
            ("c5", "legacy", vec![text("string content")], true),
            ("c6", "bare", vec![], false),
        ];
        assert_eq!(parsed.len(), expected.len());
        for (result, (id, tool, content, is_error)) in parsed.iter().zip(expected) {
            assert_eq!(result.call_id, id);
            assert_eq!(result.tool, tool, "{id}");
            assert_eq!(result.content, content, "{id}");
            assert_eq!(result.is_error, is_error, "{id}");
        }
    }

    #[test]
    fn is_error_prefers_is_error_then_ok_then_status() {
        let cases = [
            (r#""isError": true, "ok": true, "status": "ok""#, true),
            (r#""isError": false, "ok": false, "status": "error""#, false),
            (r#""ok": false, "status": "ok""#, true),
            (r#""ok": true, "status": "error""#, false),
            (r#""status": "cancelled""#, true),
            (r#""status": "ok""#, false),
            (r#""isError": null, "ok": null, "status": null"#, false),
        ];
        for (fields, expected) in cases {
            let json = format!(r#"[{{"callId": "c", "tool": "t", {fields}}}]"#);
            assert_eq!(
                parse_results(&json).unwrap()[0].is_error,
                expected,
                "{fields}"
            );
        }
    }

    #[test]
    fn an_error_result_without_text_reads_its_error_message() {
        let cases = [
            (
                r#"{"callId":"c","tool":"t","ok":false,"content":[],"error":{"code":"EXECUTION_ERROR","message":"boom"}}"#,
                vec![text("boom")],
            ),
            (
                r#"{"callId":"c","tool":"t","isError":true,"content":[{"type":"text","text":""}],"error":"bad"}"#,
                vec![text("bad"), text("")],
            ),
            (
                r#"{"callId":"c","tool":"t","ok":false,"content":[{"type":"text","text":"own words"}],"error":{"message":"boom"}}"#,
                vec![text("own words")],
            ),
            (
                r#"{"callId":"c","tool":"t","ok":true,"content":[],"error":{"message":"ignored"}}"#,
                vec![],
            ),
        ];
        for (element, expected) in cases {
            let parsed = parse_results(&format!("[{element}]")).unwrap();
            assert_eq!(parsed[0].content, expected, "{element}");
        }
    }

    #[test]
    fn malformed_results_name_the_index_and_field() {
        let cases = [
            ("[", "results are not valid JSON"),
            (r#"{"callId":"c"}"#, "results: expected a JSON array of results, got an object"),
            ("[3]", "results[0]: expected a result object, got 3"),
            (
                r#"[{"callId":"a","tool":"t"},{"tool":"t"}]"#,
                "results[1]: missing callId (or toolCallId)",
            ),
            (r#"[{"callId":"a"}]"#, "results[0]: missing tool (or toolName)"),
            (
                r#"[{"callId":3,"tool":"t"}]"#,
                "results[0].callId: expected a string, got 3",
            ),
            (
                r#"[{"toolCallId":"a","toolName":["x"]}]"#,
                "results[0].toolName: expected a string, got an array of 1 items",
            ),
            (
                r#"[{"callId":"a","tool":"t","isError":"yes"}]"#,
                "results[0].isError: expected a boolean, got the string \"yes\"",
            ),
            (
                r#"[{"callId":"a","tool":"t","ok":1}]"#,
                "results[0].ok: expected a boolean, got 1",
            ),
            (
                r#"[{"callId":"a","tool":"t","status":false}]"#,
                "results[0].status: expected a string, got false",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":{"type":"text"}}]"#,
                "results[0].content: expected an array of content blocks, got an object",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":[{"type":"text","text":"x"},{"type":"image","data":"AA","mimeType":3}]}]"#,
                "results[0].content[1].mimeType: expected a string, got 3",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":[{"type":"image","data":"AA"}]}]"#,
                "results[0].content[0].mimeType: missing",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":[{"type":"audio"}]}]"#,
                "results[0].content[0].type: unknown content block type \"audio\": expected \"text\" or \"image\"",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":[{"text":"x"}]}]"#,
                "results[0].content[0].type: missing",
            ),
            (
                r#"[{"callId":"a","tool":"t","content":["x"]}]"#,
                "results[0].content[0]: expected a content block object, got the string \"x\"",
            ),
        ];
        for (json, expected) in cases {
            assert_caller_error(parse_results(json).map(|_| ()), json, expected);
        }
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = "x".repeat(100);
        let json = format!(r#"[{{"callId":"a","tool":"t","isError":"{long}"}}]"#);
        let message = parse_results(&json).unwrap_err().message;
        assert!(
            message.ends_with(&format!("\"{}…\"", "x".repeat(40))),
            "{message}"
        );
        assert_eq!(truncated("ééé"), "ééé");
    }

    #[test]
    fn result_input_deserializes_with_the_same_rules() {
        let result: ResultInput =
            serde_json::from_str(r#"{"toolCallId":"c","toolName":"t","isError":true}"#).unwrap();
        assert_eq!(result.call_id, "c");
        assert!(result.is_error);
        let error = serde_json::from_str::<ResultInput>(r#"{"tool":"t"}"#).unwrap_err();
        assert!(
            error.to_string().contains("missing callId (or toolCallId)"),
            "{error}"
        );
    }

    #[test]
    fn history_turn_from_an_assembled_turn() {
        let json = r#"{
            "toolCalls": [
                {"index": 0, "id": "toolu_1", "name": "read", "arguments": "{\"path\":\"a\"}", "complete": true},
                {"index": 1, "id": "call_2", "name": "sql", "arguments": "SELECT 1", "complete": true,
                 "kind": "custom", "providerMetadata": {"itemId": "ctc_2"}}
            ],
            "serverToolCalls": [],
            "text": "Reading.",
            "thinking": [{"text": "plan", "signature": "sig"}, {"text": "", "redacted": "DATA"}],
            "stopReason": "toolUse", "rawStopReason": "tool_use", "errors": [], "events": []
        }"#;
        let turn = parse_history_turn(json).unwrap();
        assert_eq!(turn.text, "Reading.");
        assert_eq!(
            turn.thinking,
            vec![
                HistoryThinking {
                    text: "plan".into(),
                    signature: Some("sig".into()),
                    ..HistoryThinking::default()
                },
                HistoryThinking {
                    text: String::new(),
                    redacted: Some("DATA".into()),
                    ..HistoryThinking::default()
                },
            ]
        );
        assert_eq!(turn.calls.len(), 2);
        assert_eq!(turn.calls[0].arguments, r#"{"path":"a"}"#);
        assert!(turn.calls[1].is_custom());
        assert_eq!(turn.calls[1].metadata_str("itemId"), Some("ctc_2"));
    }

    #[test]
    fn escaped_lone_surrogates_in_results_and_history_become_replacement_characters() {
        // JSON.stringify writes "\ud83d" for half an emoji: a result or turn holding one was
        // refused whole ("unexpected end of hex escape").
        let results = parse_results(
            r#"[{"callId":"c\ud83d","tool":"t","content":"cut \udc00 here","isError":false}]"#,
        )
        .unwrap();
        assert_eq!(results[0].call_id, "c\u{fffd}");
        assert_eq!(
            serde_json::to_value(&results[0].content).unwrap()[0]["text"],
            "cut \u{fffd} here"
        );
        let turn = parse_history_turn(
            r#"{"text":"a\ud83d","calls":[{"id":"x\uDFFF","name":"t","arguments":"{\"p\":\"\\ud83d\"}"}]}"#,
        )
        .unwrap();
        assert_eq!(turn.text, "a\u{fffd}");
        assert_eq!(turn.calls[0].id, "x\u{fffd}");
        // The arguments text holds the escape itself; a wire that carries parsed arguments reads it.
        assert_eq!(
            turn.calls[0].arguments_object(),
            serde_json::json!({"p": "\u{fffd}"})
        );
    }

    #[test]
    fn history_turn_from_an_array_of_model_tool_calls() {
        let json = r#"[
            {"id": "c1", "name": "read", "arguments": {"path": "a"}},
            {"id": "c2", "name": "list", "arguments": null},
            {"id": "c3", "name": "list"},
            {"id": "c4", "name": "count", "arguments": "{}", "providerMetadata": {"thoughtSignature": "s"}}
        ]"#;
        let turn = parse_history_turn(json).unwrap();
        let arguments: Vec<&str> = turn.calls.iter().map(|c| c.arguments.as_str()).collect();
        assert_eq!(arguments, [r#"{"path":"a"}"#, "", "", "{}"]);
        assert_eq!(turn.calls[3].metadata_str("thoughtSignature"), Some("s"));
        assert_eq!(turn.text, "");
        assert!(turn.thinking.is_empty());
    }

    #[test]
    fn history_turn_takes_calls_before_tool_calls() {
        let turn =
            parse_history_turn(r#"{"calls":[{"id":"a","name":"x"}],"toolCalls":[]}"#).unwrap();
        assert_eq!(turn.calls.len(), 1);
        let turn =
            parse_history_turn(r#"{"calls":null,"toolCalls":[{"id":"b","name":"y"}]}"#).unwrap();
        assert_eq!(turn.calls[0].id, "b");
    }

    #[test]
    fn malformed_history_turns_name_the_index_and_field() {
        let cases = [
            ("{", "history turn is not valid JSON"),
            (
                "7",
                "history turn: expected an array of calls or a turn object, got 7",
            ),
            (
                r#"[{"id":"a","name":"x"},{"name":"y"}]"#,
                "calls[1]: missing field `id`",
            ),
            (
                r#"{"toolCalls":[{"id":"a","name":"x"},{"id":"b"}]}"#,
                "toolCalls[1]: missing field `name`",
            ),
            (
                r#"{"toolCalls":{}}"#,
                "toolCalls: expected an array, got an object",
            ),
            (r#"{"text":5}"#, "text: expected a string, got 5"),
            (
                r#"{"thinking":[{"text":1}]}"#,
                "thinking[0]: invalid type: integer `1`",
            ),
            (
                r#"[{"id":"a","name":"x","providerMetadata":[]}]"#,
                "calls[0]: invalid type: sequence",
            ),
        ];
        for (json, expected) in cases {
            assert_caller_error(parse_history_turn(json).map(|_| ()), json, expected);
        }
    }
}
