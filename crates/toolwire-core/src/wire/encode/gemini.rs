//! Google Gemini encoding (`contents` and `tools`).
//!
//! - Definitions: ONE `{functionDeclarations:[{name, description?, parameters |
//!   parametersJsonSchema}]}` element (the two schema keys are mutually exclusive); no tools
//!   gives `[]`.
//! - Calls: ONE `{role:"model", parts:[…]}`: the thinking blocks as `{text, thought:true}` plus
//!   `thoughtSignature` when they have a signature (redacted blocks are Anthropic's and blocks
//!   with neither text nor signature say nothing: both are left out), then `{text}` when the
//!   turn has text, then per call `{functionCall:{name, args, id}}` with `args` the parsed
//!   arguments object (`{}` when unusable) and `id` left out when empty (Gemini often sends
//!   none). `thoughtSignature` is a SIBLING of `functionCall` in the part, only on the calls
//!   that came with one (QUIRK 26: for parallel calls only the first has one; none is
//!   invented).
//! - Results: ONE `{role:"user", parts:[…]}`: per result `{functionResponse:{name, id,
//!   response:{output: <text>}}}` (an error result: `response:{error: <text>}`), then every
//!   image of the batch as `{inlineData:{mimeType, data}}` parts, in order. A result with
//!   images says in its text that they follow the function responses.

use super::json_out::{push_string_member, Elements};
use crate::json_text::push_json_string;
use serde_json::{json, Map, Value};

use super::{description, with_image_note, HistoryTurn, ResultInput, ToolDefinitionInput};

/// Where the text of a result with images says they went.
const IMAGE_LOCATION: &str = "attached after the function responses";

/// The `tools` array: one element holding every declaration, or `[]`.
pub fn definitions(tools: &[ToolDefinitionInput], json_schema: bool) -> Vec<Value> {
    if tools.is_empty() {
        return Vec::new();
    }
    let schema_key = if json_schema {
        "parametersJsonSchema"
    } else {
        "parameters"
    };
    let declarations: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut declaration = Map::new();
            declaration.insert("name".into(), json!(tool.name));
            if let Some(description) = description(tool) {
                declaration.insert("description".into(), json!(description));
            }
            declaration.insert(schema_key.into(), tool.parameters.clone());
            Value::Object(declaration)
        })
        .collect();
    vec![json!({"functionDeclarations": declarations})]
}

/// The model content that carried the calls (the turn has at least one call).
pub fn tool_calls(turn: &HistoryTurn) -> Vec<Value> {
    let mut parts = Vec::with_capacity(turn.thinking.len() + turn.calls.len() + 1);
    for block in &turn.thinking {
        let signature = block.signature.as_deref().filter(|s| !s.is_empty());
        if block.redacted.is_some() || (block.text.is_empty() && signature.is_none()) {
            continue;
        }
        let mut part = Map::new();
        part.insert("text".into(), json!(block.text));
        part.insert("thought".into(), json!(true));
        if let Some(signature) = signature {
            part.insert("thoughtSignature".into(), json!(signature));
        }
        parts.push(Value::Object(part));
    }
    if !turn.text.is_empty() {
        parts.push(json!({"text": turn.text}));
    }
    for call in &turn.calls {
        let mut function_call = Map::new();
        function_call.insert("name".into(), json!(call.name));
        function_call.insert("args".into(), call.arguments_object());
        if !call.id.is_empty() {
            function_call.insert("id".into(), json!(call.id));
        }
        let mut part = Map::new();
        part.insert("functionCall".into(), Value::Object(function_call));
        if let Some(signature) = call.metadata_str("thoughtSignature") {
            part.insert("thoughtSignature".into(), json!(signature));
        }
        parts.push(Value::Object(part));
    }
    vec![json!({"role": "model", "parts": parts})]
}

/// ONE user content with every function response of the batch, then its images.
pub fn results(results: &[ResultInput], out: &mut Elements) {
    let content = out.element();
    content.push_str(r#"{"role":"user","parts":["#);
    let mut parts = Elements::new(content);
    for result in results {
        let mut text = result.text();
        let image_count = result.images().count();
        if image_count > 0 {
            text = with_image_note(text, image_count, IMAGE_LOCATION);
        }
        let part = parts.element();
        part.push_str(r#"{"functionResponse":{"name":"#);
        push_json_string(part, result.echoed_tool());
        if !result.call_id.is_empty() {
            push_string_member(part, "id", &result.call_id);
        }
        part.push_str(r#","response":{"#);
        push_json_string(part, if result.is_error { "error" } else { "output" });
        part.push(':');
        push_json_string(part, &text);
        part.push_str("}}}");
    }
    for result in results {
        for (mime_type, data) in result.images() {
            let part = parts.element();
            part.push_str(r#"{"inlineData":{"mimeType":"#);
            push_json_string(part, mime_type);
            push_string_member(part, "data", data);
            part.push_str("}}");
        }
    }
    content.push_str("]}");
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{
        call, call_with, png, read_and_list, redacted, result, schema, text_result, thought,
    };
    use super::super::fixtures::{calls_on, results_on};
    use super::super::{encode_definitions, DefinitionFormat};
    use super::*;
    use crate::envelope::ContentBlock;
    use crate::provider::Wire;

    #[test]
    fn definitions_golden_in_one_element() {
        let parameters = schema();
        let tools = read_and_list(&parameters);
        let cases = [(false, "parameters"), (true, "parametersJsonSchema")];
        for (json_schema, key) in cases {
            let mut read = json!({"name": "read", "description": "Reads a file"});
            read[key] = schema();
            let mut list = json!({"name": "list"});
            list[key] = schema();
            assert_eq!(
                encode_definitions(DefinitionFormat::Gemini { json_schema }, &tools),
                vec![json!({"functionDeclarations": [read, list]})],
                "{key}"
            );
        }
    }

    // QUIRK 26 (googleapis/js-genai#1275): only the first of parallel calls carries a
    // thoughtSignature, and it must come back on that same part; the others get none.
    #[test]
    fn quirk_thought_signature_only_on_the_part_that_had_it() {
        let mut first = call_with("96c1su3s", "read", "thoughtSignature", json!("CiQB…sig"));
        first.arguments = r#"{"path":"a"}"#.into();
        let turn = HistoryTurn {
            text: String::new(),
            thinking: vec![],
            calls: vec![first, call("k2", "read", r#"{"path":"b"}"#)],
        };
        assert_eq!(
            calls_on(Wire::Gemini, &turn),
            vec![json!({"role": "model", "parts": [
                {"functionCall": {"name": "read", "args": {"path": "a"}, "id": "96c1su3s"}, "thoughtSignature": "CiQB…sig"},
                {"functionCall": {"name": "read", "args": {"path": "b"}, "id": "k2"}},
            ]})]
        );
    }

    #[test]
    fn tool_calls_golden_with_thoughts_text_and_unusable_arguments() {
        let turn = HistoryTurn {
            text: "Checking.".into(),
            thinking: vec![
                thought("Plan the read.", Some("sig-t")),
                thought("unsigned thought", None),
                thought("", None),
                redacted("ANTHROPIC-ONLY"),
            ],
            calls: vec![
                call("", "read", r#"{"path":"#),
                call("c2", "list", "not json"),
            ],
        };
        assert_eq!(
            calls_on(Wire::Gemini, &turn),
            vec![json!({"role": "model", "parts": [
                {"text": "Plan the read.", "thought": true, "thoughtSignature": "sig-t"},
                {"text": "unsigned thought", "thought": true},
                {"text": "Checking."},
                {"functionCall": {"name": "read", "args": {}}},
                {"functionCall": {"name": "list", "args": {}, "id": "c2"}},
            ]})]
        );
    }

    #[test]
    fn results_golden_merged_with_an_error_and_images_after_the_responses() {
        let results = [
            text_result("c1", "read", "contents"),
            result(
                "c2",
                "write",
                vec![ContentBlock::text("EACCES: permission denied")],
                true,
            ),
            result(
                "c3",
                "shot",
                vec![ContentBlock::text("screen"), png("AAAA")],
                false,
            ),
            result("", "camera", vec![png("BBBB")], false),
        ];
        assert_eq!(
            results_on(Wire::Gemini, &results),
            vec![json!({"role": "user", "parts": [
                {"functionResponse": {"name": "read", "id": "c1", "response": {"output": "contents"}}},
                {"functionResponse": {"name": "write", "id": "c2", "response": {"error": "EACCES: permission denied"}}},
                {"functionResponse": {"name": "shot", "id": "c3", "response": {"output": "screen\n[1 image of this result is attached after the function responses]"}}},
                {"functionResponse": {"name": "camera", "response": {"output": "[1 image of this result is attached after the function responses]"}}},
                {"inlineData": {"mimeType": "image/png", "data": "AAAA"}},
                {"inlineData": {"mimeType": "image/png", "data": "BBBB"}},
            ]})]
        );
    }
}
