//! OpenAI Responses encoding (`input` items).
//!
//! - Definitions are flat: `{type:"function", name, description?, parameters, strict}`, with
//!   `strict` always present (a bool).
//! - Calls: first each reasoning item of the turn, `{type:"reasoning", id, summary:
//!   [{type:"summary_text", text}], encrypted_content?}` (a thinking block with its `rs_` id; the
//!   signature is the encrypted content, needed with `store: false`); then a `{type:"message",
//!   role:"assistant", content:[{type:"output_text", text}]}` item when the turn has text; then
//!   per call `{type:"function_call", call_id, name, arguments}` (empty arguments sent as `"{}"`)
//!   or `{type:"custom_tool_call", call_id, name, input}`, plus `id` (the provider's `fc_`/`ctc_`
//!   item id, `providerMetadata.itemId`; a function_call item id that is not `fc_…` is made so
//!   as `repairHistory` would) when there is one.
//! - The API refuses an `fc_` item id whose reasoning item is missing (400 "Item 'fc_…' of type
//!   'function_call' was provided without its required 'reasoning' item", e.g.
//!   cline/cline#12242, continuedev/continue#10018). So when a thinking block of the turn has no
//!   item id to send it under (it did not come from a Responses stream), the calls go without
//!   their item ids: they are then new items matched to their outputs by `call_id` alone.
//! - Results: per result `{type:"function_call_output", call_id, output}`; `output` is the
//!   joined text when the result has no images, else a list of `input_text` / `input_image`
//!   (`detail:"auto"`) parts in the order of the result's blocks (empty text blocks dropped).
//!   A result for a custom call cannot be told apart and is a `function_call_output` too.

use super::json_out::{push_string_member, Elements};
use serde_json::{json, Map, Value};

use super::{data_url, description, non_empty_text, HistoryTurn, ResultInput, ToolDefinitionInput};
use crate::envelope::ContentBlock;
use crate::ids::normalize_item_id;

/// The `tools` array.
pub fn definitions(tools: &[ToolDefinitionInput], strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut definition = Map::new();
            definition.insert("type".into(), json!("function"));
            definition.insert("name".into(), json!(tool.name));
            if let Some(description) = description(tool) {
                definition.insert("description".into(), json!(description));
            }
            definition.insert("parameters".into(), tool.parameters.clone());
            definition.insert("strict".into(), json!(strict));
            Value::Object(definition)
        })
        .collect()
}

/// The items of the turn: its text message, then its calls (the turn has at least one call).
pub fn tool_calls(turn: &HistoryTurn) -> Vec<Value> {
    let mut items = Vec::with_capacity(turn.thinking.len() + turn.calls.len() + 1);
    for block in &turn.thinking {
        let Some(id) = block.id.as_deref().filter(|id| !id.is_empty()) else {
            continue;
        };
        let summary = if block.text.is_empty() {
            json!([])
        } else {
            json!([{"type": "summary_text", "text": block.text}])
        };
        let mut item = Map::new();
        item.insert("type".into(), json!("reasoning"));
        item.insert("id".into(), json!(id));
        item.insert("summary".into(), summary);
        if let Some(encrypted) = block.signature.as_deref().filter(|s| !s.is_empty()) {
            item.insert("encrypted_content".into(), json!(encrypted));
        }
        items.push(Value::Object(item));
    }
    if !turn.text.is_empty() {
        items.push(json!({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": turn.text}],
        }));
    }
    let item_ids_allowed = turn
        .thinking
        .iter()
        .all(|block| block.id.as_deref().is_some_and(|id| !id.is_empty()));
    for call in &turn.calls {
        let mut item = Map::new();
        if call.is_custom() {
            item.insert("type".into(), json!("custom_tool_call"));
            item.insert("call_id".into(), json!(call.id));
            item.insert("name".into(), json!(call.name));
            item.insert("input".into(), json!(call.arguments));
        } else {
            item.insert("type".into(), json!("function_call"));
            item.insert("call_id".into(), json!(call.id));
            item.insert("name".into(), json!(call.name));
            item.insert("arguments".into(), json!(call.arguments_json_text()));
        }
        if let Some(item_id) = call.metadata_str("itemId").filter(|_| item_ids_allowed) {
            // A function_call item id must look like `fc_…` (see `ids::normalize_item_id`);
            // custom call ids (`ctc_…`) go as they are.
            let item_id = if call.is_custom() {
                item_id.to_owned()
            } else {
                normalize_item_id(item_id)
            };
            item.insert("id".into(), json!(item_id));
        }
        items.push(Value::Object(item));
    }
    items
}

/// One `function_call_output` item per result.
pub fn results(results: &[ResultInput], out: &mut Elements) {
    for result in results {
        let item = out.element();
        item.push_str(r#"{"type":"function_call_output""#);
        push_string_member(item, "call_id", &result.call_id);
        if result.images().next().is_none() {
            push_string_member(item, "output", &result.text());
        } else {
            item.push_str(r#","output":["#);
            output_parts(&result.content, &mut Elements::new(item));
            item.push(']');
        }
        item.push('}');
    }
}

/// A result's blocks as `input_text` / `input_image` parts, in order.
fn output_parts(content: &[ContentBlock], parts: &mut Elements) {
    for block in content {
        match block {
            ContentBlock::Image { data, mime_type } => {
                let part = parts.element();
                part.push_str(r#"{"type":"input_image""#);
                push_string_member(part, "image_url", &data_url(mime_type, data));
                part.push_str(r#","detail":"auto"}"#);
            }
            ContentBlock::Text { .. } => {
                if let Some(text) = non_empty_text(block) {
                    let part = parts.element();
                    part.push_str(r#"{"type":"input_text""#);
                    push_string_member(part, "text", text);
                    part.push('}');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        call, call_with, custom_call, png, read_and_list, result, schema, text_result, thought,
    };
    use super::super::fixtures::{calls_on, results_on};
    use super::super::{encode_definitions, DefinitionFormat};
    use super::*;
    use crate::provider::Wire;

    #[test]
    fn definitions_golden_strict_always_present() {
        let parameters = schema();
        let tools = read_and_list(&parameters);
        for strict in [false, true] {
            assert_eq!(
                encode_definitions(DefinitionFormat::Responses { strict }, &tools),
                vec![
                    json!({"type": "function", "name": "read", "description": "Reads a file", "parameters": schema(), "strict": strict}),
                    json!({"type": "function", "name": "list", "parameters": schema(), "strict": strict}),
                ]
            );
        }
    }

    #[test]
    fn tool_calls_golden_text_item_then_calls_with_item_ids() {
        let mut first = call_with("call_1", "read", "itemId", json!("fc_1"));
        first.arguments = r#"{"path":"a"}"#.into();
        let turn = HistoryTurn {
            text: "Reading.".into(),
            thinking: vec![],
            calls: vec![first, call("call_2", "list", "")],
        };
        assert_eq!(
            calls_on(Wire::OpenAiResponses, &turn),
            vec![
                json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]}),
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "{\"path\":\"a\"}"}),
                json!({"type": "function_call", "call_id": "call_2", "name": "list", "arguments": "{}"}),
            ]
        );
    }

    #[test]
    fn custom_call_golden() {
        let mut sql = custom_call("call_7", "sql", "SELECT 1");
        sql.provider_metadata = call_with("x", "y", "itemId", json!("ctc_7")).provider_metadata;
        let turn = HistoryTurn {
            calls: vec![sql],
            ..HistoryTurn::default()
        };
        assert_eq!(
            calls_on(Wire::OpenAiResponses, &turn),
            vec![
                json!({"type": "custom_tool_call", "id": "ctc_7", "call_id": "call_7", "name": "sql", "input": "SELECT 1"})
            ]
        );
    }

    // Seen with every reasoning model (gpt-5, o3): an fc_ id sent without its rs_ reasoning
    // item is a 400 (cline/cline#12242, mastra-ai/mastra#8738). A thinking block with no item id
    // cannot be sent as a reasoning item, so the calls of that turn go without their item ids.
    #[test]
    fn quirk_item_ids_are_dropped_when_a_reasoning_item_cannot_be_sent() {
        let turn = HistoryTurn {
            text: String::new(),
            thinking: vec![thought("", None)],
            calls: vec![call_with("call_1", "read", "itemId", json!("fc_1"))],
        };
        assert_eq!(
            calls_on(Wire::OpenAiResponses, &turn),
            vec![
                json!({"type": "function_call", "call_id": "call_1", "name": "read", "arguments": "{}"})
            ]
        );
    }

    #[test]
    fn reasoning_items_go_first_with_their_ids_and_encrypted_content() {
        let mut reasoning = thought("**Plan** go", Some("gAAAA"));
        reasoning.id = Some("rs_1".into());
        let mut bare = thought("", None);
        bare.id = Some("rs_2".into());
        let turn = HistoryTurn {
            text: "Reading.".into(),
            thinking: vec![reasoning, bare],
            calls: vec![call_with("call_1", "read", "itemId", json!("fc_1"))],
        };
        assert_eq!(
            calls_on(Wire::OpenAiResponses, &turn),
            vec![
                json!({"type": "reasoning", "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "**Plan** go"}],
                    "encrypted_content": "gAAAA"}),
                json!({"type": "reasoning", "id": "rs_2", "summary": []}),
                json!({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Reading."}]}),
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
                    "arguments": "{}"}),
            ]
        );
    }

    #[test]
    fn non_string_or_empty_item_ids_are_ignored() {
        for item_id in [json!(""), json!(5), json!(null)] {
            let turn = HistoryTurn {
                calls: vec![call_with("call_1", "read", "itemId", item_id)],
                ..HistoryTurn::default()
            };
            assert_eq!(
                calls_on(Wire::OpenAiResponses, &turn),
                vec![
                    json!({"type": "function_call", "call_id": "call_1", "name": "read", "arguments": "{}"})
                ]
            );
        }
    }

    #[test]
    fn results_golden_string_output_error_and_list_output_with_images() {
        let results = [
            text_result("call_1", "read", "contents"),
            result(
                "call_2",
                "write",
                vec![ContentBlock::text("EACCES: permission denied")],
                true,
            ),
            result(
                "call_3",
                "shot",
                vec![
                    ContentBlock::text("before"),
                    png("AAAA"),
                    ContentBlock::text(""),
                    ContentBlock::text("after"),
                    png("BBBB"),
                ],
                false,
            ),
            result("call_4", "noop", vec![], false),
        ];
        assert_eq!(
            results_on(Wire::OpenAiResponses, &results),
            vec![
                json!({"type": "function_call_output", "call_id": "call_1", "output": "contents"}),
                json!({"type": "function_call_output", "call_id": "call_2", "output": "Error: EACCES: permission denied"}),
                json!({"type": "function_call_output", "call_id": "call_3", "output": [
                    {"type": "input_text", "text": "before"},
                    {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"},
                    {"type": "input_text", "text": "after"},
                    {"type": "input_image", "image_url": "data:image/png;base64,BBBB", "detail": "auto"},
                ]}),
                json!({"type": "function_call_output", "call_id": "call_4", "output": ""}),
            ]
        );
    }
}
