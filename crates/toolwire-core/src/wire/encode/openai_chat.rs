//! Chat Completions encoding (OpenAI and compatible servers; Mistral with two differences).
//!
//! - Definitions: `{type:"function", function:{name, description?, parameters, strict?}}`,
//!   `strict: true` only for strict targets (the key is omitted otherwise).
//! - Calls: ONE `{role:"assistant", content, tool_calls:[…]}`; `content` is the turn's text, or
//!   `null` when there is none (Mistral: `""`, keeping it a string). Function calls are
//!   `{id, type:"function", function:{name, arguments}}` (empty arguments are sent as `"{}"`),
//!   custom calls `{id, type:"custom", custom:{name, input}}`. Thinking is not sent on Chat.
//! - Results: one `{role:"tool", tool_call_id, content}` per result, in order (Mistral adds
//!   `name`); `content` is the text blocks joined with `"\n"`. Tool messages carry no images,
//!   so a result with images says so in its text and ALL images of the batch follow in ONE
//!   user message after the tool messages, each result's images preceded by a text part naming
//!   the tool and the call.

use super::json_out::{push_string_member, Elements};
use crate::json_text::push_json_string;
use serde_json::{json, Map, Value};

use super::{
    data_url, description, with_image_note, HistoryTurn, ResultInput, ToolDefinitionInput,
};

/// Where the text of a result with images says they went.
const IMAGE_LOCATION: &str = "attached in the next user message";

/// The `tools` array.
pub fn definitions(tools: &[ToolDefinitionInput], strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            if let Some(description) = description(tool) {
                function.insert("description".into(), json!(description));
            }
            function.insert("parameters".into(), tool.parameters.clone());
            if strict {
                function.insert("strict".into(), json!(true));
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

/// The assistant message that carried the calls (the turn has at least one call).
pub fn tool_calls(turn: &HistoryTurn, mistral: bool) -> Vec<Value> {
    let content = if !turn.text.is_empty() {
        json!(turn.text)
    } else if mistral {
        json!("")
    } else {
        Value::Null
    };
    let calls: Vec<Value> = turn
        .calls
        .iter()
        .map(|call| {
            if call.is_custom() {
                json!({
                    "id": call.id,
                    "type": "custom",
                    "custom": {"name": call.name, "input": call.arguments},
                })
            } else {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json_text()},
                })
            }
        })
        .collect();
    vec![json!({"role": "assistant", "content": content, "tool_calls": calls})]
}

/// One tool message per result, then one user message with every image of the batch.
pub fn results(results: &[ResultInput], mistral: bool, out: &mut Elements) {
    let mut image_parts = String::new();
    let mut images = Elements::new(&mut image_parts);
    for result in results {
        let mut text = result.text();
        let image_count = result.images().count();
        if image_count > 0 {
            text = with_image_note(text, image_count, IMAGE_LOCATION);
            let part = images.element();
            part.push_str(r#"{"type":"text""#);
            let note = format!(
                "Images returned by tool {} (call {}):",
                result.echoed_tool(),
                result.call_id
            );
            push_string_member(part, "text", &note);
            part.push('}');
            for (mime_type, data) in result.images() {
                let part = images.element();
                part.push_str(r#"{"type":"image_url","image_url":{"url":"#);
                push_json_string(part, &data_url(mime_type, data));
                part.push_str("}}");
            }
        }
        let message = out.element();
        message.push_str(r#"{"role":"tool""#);
        push_string_member(message, "tool_call_id", &result.call_id);
        if mistral {
            push_string_member(message, "name", result.echoed_tool());
        }
        push_string_member(message, "content", &text);
        message.push('}');
    }
    if !images.is_empty() {
        let message = out.element();
        message.push_str(r#"{"role":"user","content":["#);
        message.push_str(&image_parts);
        message.push_str("]}");
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        call, custom_call, png, read_and_list, result, schema, text_result,
    };
    use super::super::fixtures::{calls_on, results_on};
    use super::super::{encode_definitions, DefinitionFormat, HistoryTurn};
    use super::*;
    use crate::envelope::ContentBlock;
    use crate::ids::{normalize_tool_call_id, IdTarget};
    use crate::provider::Wire;

    #[test]
    fn definitions_golden() {
        let parameters = schema();
        let tools = read_and_list(&parameters);
        let cases = [
            (
                false,
                vec![
                    json!({"type": "function", "function": {"name": "read", "description": "Reads a file", "parameters": schema()}}),
                    json!({"type": "function", "function": {"name": "list", "parameters": schema()}}),
                ],
            ),
            (
                true,
                vec![
                    json!({"type": "function", "function": {"name": "read", "description": "Reads a file", "parameters": schema(), "strict": true}}),
                    json!({"type": "function", "function": {"name": "list", "parameters": schema(), "strict": true}}),
                ],
            ),
        ];
        for (strict, expected) in cases {
            assert_eq!(
                encode_definitions(DefinitionFormat::ChatCompletions { strict }, &tools),
                expected,
                "strict {strict}"
            );
        }
    }

    #[test]
    fn tool_calls_golden_with_text_and_without() {
        let mut turn = HistoryTurn {
            text: "Let me look.".into(),
            thinking: vec![super::super::fixtures::thought("hidden", Some("sig"))],
            calls: vec![
                call("call_1", "read", r#"{"path":"a"}"#),
                call("call_2", "list", ""),
            ],
        };
        let expected_calls = json!([
            {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
            {"id": "call_2", "type": "function", "function": {"name": "list", "arguments": "{}"}},
        ]);
        assert_eq!(
            calls_on(Wire::OpenAiChat, &turn),
            vec![
                json!({"role": "assistant", "content": "Let me look.", "tool_calls": expected_calls})
            ]
        );
        turn.text.clear();
        assert_eq!(
            calls_on(Wire::OpenAiChat, &turn),
            vec![json!({"role": "assistant", "content": null, "tool_calls": expected_calls})]
        );
    }

    #[test]
    fn custom_call_golden() {
        let turn = HistoryTurn {
            calls: vec![custom_call("call_9", "sql", "SELECT 1")],
            ..HistoryTurn::default()
        };
        assert_eq!(
            calls_on(Wire::OpenAiChat, &turn),
            vec![json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [{"id": "call_9", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}],
            })]
        );
    }

    #[test]
    fn mistral_keeps_content_a_string() {
        let turn = HistoryTurn {
            calls: vec![call("abc123XYZ", "read", r#"{"path":"a"}"#)],
            ..HistoryTurn::default()
        };
        assert_eq!(
            calls_on(Wire::Mistral, &turn),
            vec![json!({
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "abc123XYZ", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}],
            })]
        );
    }

    #[test]
    fn results_golden_with_an_error_and_images_after_all_tool_messages() {
        let results = [
            text_result("call_1", "read", "file contents"),
            result(
                "call_2",
                "shot",
                vec![
                    ContentBlock::text("two screenshots"),
                    png("AAAA"),
                    png("BBBB"),
                ],
                false,
            ),
            result(
                "call_3",
                "write",
                vec![ContentBlock::text("EACCES: permission denied")],
                true,
            ),
            result("call_4", "camera", vec![png("CCCC")], false),
        ];
        assert_eq!(
            results_on(Wire::OpenAiChat, &results),
            vec![
                json!({"role": "tool", "tool_call_id": "call_1", "content": "file contents"}),
                json!({"role": "tool", "tool_call_id": "call_2", "content": "two screenshots\n[2 images of this result are attached in the next user message]"}),
                json!({"role": "tool", "tool_call_id": "call_3", "content": "Error: EACCES: permission denied"}),
                json!({"role": "tool", "tool_call_id": "call_4", "content": "[1 image of this result is attached in the next user message]"}),
                json!({"role": "user", "content": [
                    {"type": "text", "text": "Images returned by tool shot (call call_2):"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}},
                    {"type": "text", "text": "Images returned by tool camera (call call_4):"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,CCCC"}},
                ]}),
            ]
        );
    }

    #[test]
    fn results_with_empty_content_send_an_empty_string() {
        let results = [result("call_1", "touch", vec![], false)];
        assert_eq!(
            results_on(Wire::OpenAiChat, &results),
            vec![json!({"role": "tool", "tool_call_id": "call_1", "content": ""})]
        );
    }

    #[test]
    fn mistral_results_name_the_tool() {
        let results = [
            text_result("a1", "read", "x"),
            result("a2", "write", vec![ContentBlock::text("failed")], true),
        ];
        let id = |raw| normalize_tool_call_id(raw, IdTarget::Strict9);
        assert_eq!(
            results_on(Wire::Mistral, &results),
            vec![
                json!({"role": "tool", "tool_call_id": id("a1"), "name": "read", "content": "x"}),
                json!({"role": "tool", "tool_call_id": id("a2"), "name": "write", "content": "Error: failed"}),
            ]
        );
    }
}
