//! Anthropic Messages encoding.
//!
//! - Definitions: `{name, description?, input_schema}`.
//! - Calls: ONE `{role:"assistant", content:[…]}`: the thinking blocks first, unchanged and in
//!   order (QUIRK 24: dropping or editing them is a 400), as `{type:"thinking", thinking,
//!   signature}` or `{type:"redacted_thinking", data}`; a thinking block without a signature
//!   cannot be verified by the API (the field is required) and is left out. Then a
//!   `{type:"text", text}` block when the turn has text, then per call `{type:"tool_use", id,
//!   name, input}` with `input` the parsed arguments object (`{}` when they are empty,
//!   unparseable or not an object: the call's error result tells the model what was wrong).
//! - Results: ONE `{role:"user", content:[…]}` holding a `{type:"tool_result", tool_use_id,
//!   content:[…], is_error}` per result, in order. Its blocks are `{type:"text", text}` (empty
//!   ones dropped: the API rejects empty text blocks) and `{type:"image", source:{type:"base64",
//!   media_type, data}}`. A result left without blocks gets ONE `{type:"text", text:"(no
//!   output)"}` block: empty tool_result content is rejected by Anthropic-compatible endpoints
//!   (anomalyco/opencode#15371; Bedrock for error results), and the marker tells the model the
//!   tool said nothing.

use super::json_out::{push_string_member, Elements};
use serde_json::{json, Map, Value};

use super::{description, non_empty_text, HistoryTurn, ResultInput, ToolDefinitionInput};
use crate::envelope::ContentBlock;

/// The text of a result that has no content blocks to send.
const NO_OUTPUT: &str = "(no output)";

/// The `tools` array.
pub fn definitions(tools: &[ToolDefinitionInput]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut definition = Map::new();
            definition.insert("name".into(), json!(tool.name));
            if let Some(description) = description(tool) {
                definition.insert("description".into(), json!(description));
            }
            definition.insert("input_schema".into(), tool.parameters.clone());
            Value::Object(definition)
        })
        .collect()
}

/// The assistant message that carried the calls (the turn has at least one call).
pub fn tool_calls(turn: &HistoryTurn) -> Vec<Value> {
    let mut content = Vec::with_capacity(turn.thinking.len() + turn.calls.len() + 1);
    for block in &turn.thinking {
        if let Some(data) = &block.redacted {
            content.push(json!({"type": "redacted_thinking", "data": data}));
        } else if let Some(signature) = block.signature.as_deref().filter(|s| !s.is_empty()) {
            content
                .push(json!({"type": "thinking", "thinking": block.text, "signature": signature}));
        }
    }
    if !turn.text.is_empty() {
        content.push(json!({"type": "text", "text": turn.text}));
    }
    for call in &turn.calls {
        content.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": call.arguments_object(),
        }));
    }
    vec![json!({"role": "assistant", "content": content})]
}

/// ONE user message with every result of the batch.
pub fn results(results: &[ResultInput], out: &mut Elements) {
    let message = out.element();
    message.push_str(r#"{"role":"user","content":["#);
    let mut blocks = Elements::new(message);
    for result in results {
        let block = blocks.element();
        block.push_str(r#"{"type":"tool_result""#);
        push_string_member(block, "tool_use_id", &result.call_id);
        block.push_str(r#","content":["#);
        let mut content = Elements::new(block);
        for item in &result.content {
            content_block(item, &mut content);
        }
        if content.is_empty() {
            let block = content.element();
            block.push_str(r#"{"type":"text""#);
            push_string_member(block, "text", NO_OUTPUT);
            block.push('}');
        }
        block.push_str(if result.is_error {
            r#"],"is_error":true}"#
        } else {
            r#"],"is_error":false}"#
        });
    }
    message.push_str("]}");
}

/// One content block of a tool_result; nothing for an empty text block.
fn content_block(content: &ContentBlock, blocks: &mut Elements) {
    match content {
        ContentBlock::Image { data, mime_type } => {
            let block = blocks.element();
            block.push_str(r#"{"type":"image","source":{"type":"base64""#);
            push_string_member(block, "media_type", mime_type);
            push_string_member(block, "data", data);
            block.push_str("}}");
        }
        ContentBlock::Text { .. } => {
            if let Some(text) = non_empty_text(content) {
                let block = blocks.element();
                block.push_str(r#"{"type":"text""#);
                push_string_member(block, "text", text);
                block.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        call, png, read_and_list, redacted, result, schema, text_result, thought,
    };
    use super::super::fixtures::{calls_on, results_on};
    use super::super::{encode_definitions, DefinitionFormat};
    use super::*;
    use crate::provider::Wire;

    #[test]
    fn definitions_golden() {
        let parameters = schema();
        let tools = read_and_list(&parameters);
        assert_eq!(
            encode_definitions(DefinitionFormat::Anthropic, &tools),
            vec![
                json!({"name": "read", "description": "Reads a file", "input_schema": schema()}),
                json!({"name": "list", "input_schema": schema()}),
            ]
        );
    }

    // QUIRK 24 (spring-projects/spring-ai#3513): the thinking and redacted_thinking blocks go
    // back unchanged and in their order, before the text and the tool_use blocks.
    #[test]
    fn quirk_thinking_blocks_round_trip_in_order() {
        let turn = HistoryTurn {
            text: "I'll read both.".into(),
            thinking: vec![
                thought("First, the config.", Some("sig-1")),
                redacted("ENCRYPTED=="),
                thought("", Some("sig-2")),
                thought("unsigned, cannot be verified", None),
            ],
            calls: vec![
                call("toolu_1", "read", r#"{"path":"a"}"#),
                call("toolu_2", "read", r#"{"path":"b"}"#),
            ],
        };
        assert_eq!(
            calls_on(Wire::Anthropic, &turn),
            vec![json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "First, the config.", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "ENCRYPTED=="},
                {"type": "thinking", "thinking": "", "signature": "sig-2"},
                {"type": "text", "text": "I'll read both."},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
                {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b"}},
            ]})]
        );
    }

    #[test]
    fn unusable_arguments_become_an_empty_input() {
        let turn = HistoryTurn {
            calls: vec![
                call("toolu_1", "read", r#"{"path":"#),
                call("toolu_2", "read", ""),
                call("toolu_3", "read", "[1]"),
            ],
            ..HistoryTurn::default()
        };
        assert_eq!(
            calls_on(Wire::Anthropic, &turn),
            vec![json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
                {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}},
                {"type": "tool_use", "id": "toolu_3", "name": "read", "input": {}},
            ]})]
        );
    }

    #[test]
    fn results_golden_merged_with_an_error_an_image_and_an_empty_result() {
        let results = [
            text_result("toolu_1", "read", "contents"),
            result(
                "toolu_2",
                "write",
                vec![ContentBlock::text("EACCES: permission denied")],
                true,
            ),
            result(
                "toolu_3",
                "shot",
                vec![
                    ContentBlock::text("screen"),
                    ContentBlock::text(""),
                    png("AAAA"),
                ],
                false,
            ),
            result("toolu_4", "touch", vec![ContentBlock::text("")], false),
        ];
        assert_eq!(
            results_on(Wire::Anthropic, &results),
            vec![json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "contents"}], "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "EACCES: permission denied"}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "toolu_3", "content": [
                    {"type": "text", "text": "screen"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
                ], "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_4", "content": [{"type": "text", "text": "(no output)"}], "is_error": false},
            ]})]
        );
    }
}
