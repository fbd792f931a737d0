//! The request body of one model call, in a wire's own shape: the history under the wire's key,
//! the tool definitions, the tool choice, and what asks for a stream.
//!
//! The body is spliced from the JSON texts it is given: each is checked to be one JSON value (the
//! history and the tools an array) by a scan that builds nothing, then copied in as it is. A
//! history of megabytes is never parsed into values here, and no text can add a key or close the
//! body early.

use serde_json::value::RawValue;

use crate::error::{Error, ErrorCode, Result};

/// The shape of a model call's request body on one wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestShape {
    /// The key of the history: `messages`, `input` (Responses), `contents` (Gemini).
    pub history: &'static str,
    /// The key of the tool choice: `tool_choice`, `toolConfig` (Gemini).
    pub tool_choice: &'static str,
    /// Whether the body asks for a stream (`"stream": true`).
    pub stream: bool,
    /// Whether the body asks a stream to report the usage (`"stream_options": {"include_usage":
    /// true}`).
    pub stream_usage: bool,
}

/// The request body as JSON text, its keys in this order: the history (`messages` must be the
/// JSON text of an array) under [`RequestShape::history`]; `tools` when `tools` (the JSON text
/// of an array) is not empty; the tool choice under [`RequestShape::tool_choice`] when one is
/// given (any JSON value, `null` included); `"stream": true` and `"stream_options":
/// {"include_usage": true}` as the shape asks.
///
/// A text that is not one JSON value, or a history or tools that are not an array, is the
/// caller's `VALIDATION_ERROR` naming the argument and what it got.
pub fn request_body(
    shape: &RequestShape,
    messages: &str,
    tools: &str,
    tool_choice: Option<&str>,
) -> Result<String> {
    let messages = array("messages", messages)?;
    let tools = array("tools", tools)?;
    let tool_choice = tool_choice
        .map(|text| value("toolChoice", text))
        .transpose()?;
    let mut body = String::with_capacity(messages.len() + tools.len() + 96);
    body.push_str("{\"");
    body.push_str(shape.history);
    body.push_str("\":");
    body.push_str(messages);
    if !is_empty_array(tools) {
        body.push_str(",\"tools\":");
        body.push_str(tools);
    }
    if let Some(tool_choice) = tool_choice {
        body.push_str(",\"");
        body.push_str(shape.tool_choice);
        body.push_str("\":");
        body.push_str(tool_choice);
    }
    if shape.stream {
        body.push_str(",\"stream\":true");
    }
    if shape.stream_usage {
        body.push_str(",\"stream_options\":{\"include_usage\":true}");
    }
    body.push('}');
    Ok(body)
}

/// `text` without its surrounding whitespace when it is one JSON value (checked without
/// building it), else the caller's error naming `what`.
fn value<'a>(what: &str, text: &'a str) -> Result<&'a str> {
    serde_json::from_str::<&RawValue>(text)
        .map(RawValue::get)
        .map_err(|e| {
            Error::caller(
                ErrorCode::ValidationError,
                format!("requestBody: {what} is not valid JSON: {e}"),
            )
        })
}

/// As [`value`], for a value that must be an array.
fn array<'a>(what: &str, text: &'a str) -> Result<&'a str> {
    let raw = value(what, text)?;
    if raw.starts_with('[') {
        return Ok(raw);
    }
    Err(Error::caller(
        ErrorCode::ValidationError,
        format!("requestBody: {what} must be an array, got {}", kind(raw)),
    ))
}

/// What kind of JSON value `raw` (one valid JSON value) is, as error messages say it.
fn kind(raw: &str) -> &'static str {
    match raw.as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// Whether `raw` (one valid JSON array) has no element.
fn is_empty_array(raw: &str) -> bool {
    raw[1..].trim_start().starts_with(']')
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::provider::{Provider, Wire};

    fn body(wire: Wire, messages: &Value, tools: &Value, tool_choice: Option<&Value>) -> Value {
        let text = Provider::of(wire)
            .request_body(
                &messages.to_string(),
                &tools.to_string(),
                tool_choice.map(Value::to_string).as_deref(),
            )
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Each wire's body, as the agent loop has always sent it: without tools or a tool choice,
    /// then with both.
    #[test]
    fn each_wire_has_its_own_shape() {
        let messages = json!([{"role": "user", "content": "hi"}]);
        let tools = json!([{"type": "function", "function": {"name": "read"}}]);
        let choice = json!("auto");
        // (wire, bare body, keys the tools and the choice add)
        let cases = [
            (
                Wire::OpenAiChat,
                json!({"messages": messages, "stream": true,
                       "stream_options": {"include_usage": true}}),
                json!({"tools": tools, "tool_choice": choice}),
            ),
            (
                Wire::OpenAiResponses,
                json!({"input": messages, "stream": true}),
                json!({"tools": tools, "tool_choice": choice}),
            ),
            (
                Wire::Anthropic,
                json!({"messages": messages, "stream": true}),
                json!({"tools": tools, "tool_choice": choice}),
            ),
            (
                Wire::Mistral,
                json!({"messages": messages, "stream": true}),
                json!({"tools": tools, "tool_choice": choice}),
            ),
            (
                Wire::Gemini,
                json!({"contents": messages}),
                json!({"tools": tools, "toolConfig": choice}),
            ),
        ];
        for (wire, bare, added) in cases {
            assert_eq!(body(wire, &messages, &json!([]), None), bare, "{wire:?}");
            let mut full = bare.clone();
            for (key, value) in added.as_object().unwrap() {
                full[key] = value.clone();
            }
            assert_eq!(
                body(wire, &messages, &tools, Some(&choice)),
                full,
                "{wire:?}"
            );
        }
    }

    #[test]
    fn keys_come_in_order_and_texts_are_copied_as_they_are() {
        let shape = Provider::of(Wire::OpenAiChat).request;
        let text = request_body(
            &shape,
            " [ {\"b\":1, \"a\":\"\\ud83d\"} ]\n",
            "[{\"name\":\"x\"}]",
            Some("{\"type\":\"none\"}"),
        )
        .unwrap();
        assert_eq!(
            text,
            "{\"messages\":[ {\"b\":1, \"a\":\"\\ud83d\"} ],\"tools\":[{\"name\":\"x\"}],\
             \"tool_choice\":{\"type\":\"none\"},\"stream\":true,\
             \"stream_options\":{\"include_usage\":true}}"
        );
    }

    #[test]
    fn empty_tools_are_left_out_and_a_null_choice_is_kept() {
        let shape = Provider::of(Wire::Anthropic).request;
        let text = request_body(&shape, "[]", "[ \n ]", Some("null")).unwrap();
        assert_eq!(text, r#"{"messages":[],"tool_choice":null,"stream":true}"#);
    }

    #[test]
    fn texts_that_are_not_one_json_value_of_their_kind_are_refused() {
        let shape = Provider::of(Wire::Gemini).request;
        // (messages, tools, choice, the error's start)
        let cases: [(&str, &str, Option<&str>, &str); 6] = [
            (
                "{}",
                "[]",
                None,
                "requestBody: messages must be an array, got an object",
            ),
            (
                "[]",
                "null",
                None,
                "requestBody: tools must be an array, got null",
            ),
            (
                "[], \"stream\": false, \"x\": [",
                "[]",
                None,
                "requestBody: messages is not valid JSON: trailing characters",
            ),
            ("[", "[]", None, "requestBody: messages is not valid JSON"),
            (
                "[]",
                "[]",
                Some(""),
                "requestBody: toolChoice is not valid JSON",
            ),
            (
                "[]",
                "[]",
                Some("1 2"),
                "requestBody: toolChoice is not valid JSON",
            ),
        ];
        for (messages, tools, choice, expected) in cases {
            let error = request_body(&shape, messages, tools, choice).unwrap_err();
            assert_eq!(error.code, ErrorCode::ValidationError, "{messages}");
            assert!(error.message.starts_with(expected), "{}", error.message);
        }
    }

    #[test]
    fn a_deep_history_is_copied_without_being_parsed() {
        let deep = format!("[{}{}]", "[".repeat(10_000), "]".repeat(10_000));
        let shape = Provider::of(Wire::OpenAiResponses).request;
        let text = request_body(&shape, &deep, "[]", None).unwrap();
        assert_eq!(text, format!("{{\"input\":{deep},\"stream\":true}}"));
    }
}
