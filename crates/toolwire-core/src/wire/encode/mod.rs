//! Encoding in the other direction: what toolwire sends back to a provider after it decoded a
//! tool turn and ran the calls.
//!
//! One file per wire format holds its exact shapes (`openai_chat.rs`, which also serves
//! Mistral, `openai_responses.rs`, `anthropic.rs`, `gemini.rs`; each file's doc states them);
//! which of them a wire uses is said by its provider ([`crate::provider`]). The shared rules sit
//! here, in three entry points:
//! - [`encode_definitions`]: the `tools` array of the request in a [`DefinitionFormat`], from
//!   definitions whose `parameters` the caller already normalized for the target;
//! - [`encode_tool_calls`]: the assistant message (or Responses items) that carried the calls,
//!   for the conversation history, through a wire's [`HistoryEncoder`];
//! - [`encode_results`]: the messages (or items) that hand the results to the model, likewise.
//!
//! Each returns a list of JSON values to append to the request (`tools`, `messages`,
//! `contents` or `input`); an empty input gives `[]`, never an empty message. The caller's JSON
//! is read by [`parse_results`] and [`parse_history_turn`], which name the offending index and
//! field when it is malformed.

pub mod anthropic;
mod fast_results;
pub mod gemini;
pub mod json_out;
pub mod openai_chat;
pub mod openai_responses;
mod parse;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::envelope::marked_error_text;
use crate::envelope::ContentBlock;
use crate::ids::{is_valid_tool_call_id, normalize_tool_call_id, IdTarget};

pub use parse::{parse_history_turn, parse_results, RESULT_KEYS};

/// Which definition shape (the provider index maps wires and schema targets to one:
/// [`crate::provider::DefinitionTarget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinitionFormat {
    /// Chat Completions `{type:"function", function:{…}}`; `strict: true` only when strict.
    ChatCompletions {
        /// Whether the definitions ask for strict (structured-output) arguments.
        strict: bool,
    },
    /// Responses flat `{type:"function", name, …, strict}`.
    Responses {
        /// The value of the (always present) `strict` key.
        strict: bool,
    },
    /// Anthropic `{name, description?, input_schema}`.
    Anthropic,
    /// Gemini `functionDeclarations`, with `parameters` (OpenAPI subset) or
    /// `parametersJsonSchema` (full JSON Schema) when `json_schema`.
    Gemini {
        /// Whether the schema goes in `parametersJsonSchema` instead of `parameters`.
        json_schema: bool,
    },
}

/// One tool to define; `parameters` is ALREADY normalized for the target by the caller.
#[derive(Clone, Copy, Debug)]
pub struct ToolDefinitionInput<'a> {
    /// The tool name as the provider will see it.
    pub name: &'a str,
    /// What the tool does; omitted from the definition when `None` or empty.
    pub description: Option<&'a str>,
    /// The parameters schema, put in the definition as is.
    pub parameters: &'a Value,
}

/// The `tools` array for `format`: one definition per tool, in order, except Gemini, which
/// wraps all of them in ONE `{functionDeclarations:[…]}` element. An empty tool list gives `[]`
/// for every format (never `[{functionDeclarations:[]}]`).
pub fn encode_definitions(format: DefinitionFormat, tools: &[ToolDefinitionInput]) -> Vec<Value> {
    match format {
        DefinitionFormat::ChatCompletions { strict } => openai_chat::definitions(tools, strict),
        DefinitionFormat::Responses { strict } => openai_responses::definitions(tools, strict),
        DefinitionFormat::Anthropic => anthropic::definitions(tools),
        DefinitionFormat::Gemini { json_schema } => gemini::definitions(tools, json_schema),
    }
}

/// A call to put back into history (from a decoded `AssembledToolCall` or a caller's
/// `ModelToolCall`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryCall {
    /// The call id the result references.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as JSON text (free text for custom calls). A `ModelToolCall` may give them
    /// as a JSON value instead: it is written as JSON text; `null` or missing is `""`.
    #[serde(default, deserialize_with = "arguments_text")]
    pub arguments: String,
    /// `"custom"` for a Responses / Chat custom tool call (free-text input).
    #[serde(default)]
    pub kind: Option<String>,
    /// What the provider needs back: `itemId`, `thoughtSignature`, `caller`, `type`.
    #[serde(default)]
    pub provider_metadata: Option<Map<String, Value>>,
}

impl HistoryCall {
    /// Whether this is a custom (free-text) call.
    fn is_custom(&self) -> bool {
        self.kind.as_deref() == Some("custom")
    }

    /// A non-empty string value of `providerMetadata[key]`.
    fn metadata_str(&self, key: &str) -> Option<&str> {
        self.provider_metadata
            .as_ref()?
            .get(key)?
            .as_str()
            .filter(|s| !s.is_empty())
    }

    /// The arguments text for a wire that carries it as a string: `"{}"` when empty (a call
    /// without arguments; several servers parse this text and reject `""`).
    fn arguments_json_text(&self) -> &str {
        if self.arguments.trim().is_empty() {
            "{}"
        } else {
            &self.arguments
        }
    }

    /// The arguments as an object for a wire that carries them parsed (Anthropic, Gemini):
    /// empty, unparseable or non-object text gives `{}`. Such a call was refused, and its error
    /// result tells the model what was wrong with what it sent.
    fn arguments_object(&self) -> Value {
        match serde_json::from_str::<Value>(&crate::json_input::repair_surrogates(&self.arguments))
        {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::Object(Map::new()),
        }
    }
}

/// Reads `arguments` as JSON text whatever JSON value the caller gave.
fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(text) => text,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

/// One thinking (reasoning) block of the turn, as the decoder assembled it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct HistoryThinking {
    /// The thinking text.
    #[serde(default)]
    pub text: String,
    /// The provider's signature of the block (Anthropic, Gemini).
    pub signature: Option<String>,
    /// The opaque data of an Anthropic redacted thinking block.
    pub redacted: Option<String>,
    /// The provider's id of the block: a Responses reasoning item's `rs_` id.
    #[serde(default)]
    pub id: Option<String>,
}

/// The assistant turn that carried the calls: optional text and thinking blocks (the decoded
/// `AssembledTurn`'s `text` and `thinking`), then the calls.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct HistoryTurn {
    /// The turn's text ("" when none).
    #[serde(default)]
    pub text: String,
    /// The turn's thinking blocks, in order.
    #[serde(default)]
    pub thinking: Vec<HistoryThinking>,
    /// The calls, in order.
    #[serde(default, alias = "toolCalls")]
    pub calls: Vec<HistoryCall>,
}

/// How one wire writes the history of a tool turn: its own encoders, and whether its results
/// carry a failure flag. The provider index ([`crate::provider::Provider::history`]) holds one
/// per wire; [`encode_tool_calls`] and [`encode_results`] apply the rules shared by all.
#[derive(Clone, Copy)]
pub struct HistoryEncoder {
    /// The assistant message (Responses: items) that carried the calls of a turn with calls,
    /// whose ids are already valid for the wire.
    pub calls: fn(&HistoryTurn) -> Vec<Value>,
    /// The messages (Responses: items) that hand non-empty results to the model, whose ids are
    /// valid for the wire and whose failures are already marked when [`Self::error_flag`] is
    /// not set.
    pub results: fn(&[ResultInput], &mut json_out::Elements),
    /// Whether the wire has its own mark for a failed result (Anthropic's `is_error`, Gemini's
    /// `response.error`); the others carry a failure as text only.
    pub error_flag: bool,
}

/// The assistant message (Responses: items) that carried the turn's calls, for the history, in
/// the wire of `encoder`. A turn without calls gives `[]`: it is a plain assistant message, not
/// this function's concern.
///
/// Call ids are made valid for the wire's rule `ids` (`wire_id`) the same way
/// [`encode_results`] makes the results' ids valid, so the two stay paired; valid ids are kept
/// unchanged.
pub fn encode_tool_calls(
    encoder: &HistoryEncoder,
    ids: IdTarget,
    turn: &HistoryTurn,
) -> Vec<Value> {
    if turn.calls.is_empty() {
        return Vec::new();
    }
    let remapped;
    let turn = if turn.calls.iter().any(|c| wire_id(ids, &c.id).is_some()) {
        let mut copy = turn.clone();
        for call in &mut copy.calls {
            if let Some(id) = wire_id(ids, &call.id) {
                call.id = id;
            }
        }
        remapped = copy;
        &remapped
    } else {
        turn
    };
    (encoder.calls)(turn)
}

/// A result to encode. Read from a toolwire `ToolResult` (`callId`, `tool`, `ok`/`status`,
/// `content`, `error`) or a pi-ai `ToolResultMessage` (`toolCallId`, `toolName`, `content`,
/// `isError`); see [`parse_results`] for the rules.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Value")]
pub struct ResultInput {
    /// The id of the call this result answers.
    pub call_id: String,
    /// The tool name.
    pub tool: String,
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Whether the call failed: `isError`, else `!ok`, else `status != "ok"`, else false.
    pub is_error: bool,
}

/// The providers' limit on a function name (OpenAI, Gemini and Mistral: 64 characters).
const MAX_ECHOED_NAME_BYTES: usize = 64;

impl ResultInput {
    /// The tool name as a result echoes it to the provider (Gemini's `functionResponse.name`,
    /// Mistral's `name`): at most [`MAX_ECHOED_NAME_BYTES`] bytes, cut on a char boundary. A
    /// registered name is within the providers' limit; a name the model made up (a megabyte of
    /// it) is never echoed whole.
    fn echoed_tool(&self) -> &str {
        crate::quote::prefix_at_char_boundary(&self.tool, MAX_ECHOED_NAME_BYTES)
    }

    /// The non-empty text blocks joined with `"\n"`.
    fn text(&self) -> String {
        let mut out = String::new();
        for text in self.content.iter().filter_map(non_empty_text) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
        out
    }

    /// The image blocks as `(mime_type, data)`, in order.
    fn images(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::Image { data, mime_type } => Some((mime_type.as_str(), data.as_str())),
            ContentBlock::Text { .. } => None,
        })
    }
}

/// The messages (Responses: items) that hand `results` to the model, in order, in the wire of
/// `encoder` whose ids follow `ids`. An empty list gives `[]`.
///
/// An error result is recognizable as one on every wire: Anthropic's `is_error` and Gemini's
/// `{error}` carry the flag ([`HistoryEncoder::error_flag`]); on the wires without one (OpenAI
/// Chat, OpenAI Responses, Mistral) its text starts with
/// [`ERROR_TEXT_PREFIX`](crate::envelope::ERROR_TEXT_PREFIX) ([`marked_error_text`]).
pub fn encode_results(
    encoder: &HistoryEncoder,
    ids: IdTarget,
    results: &[ResultInput],
) -> Vec<Value> {
    let text = encode_results_text(encoder, ids, results);
    serde_json::from_str(&text).expect("the result encoders write JSON")
}

/// [`encode_results`] as the JSON text of the array, written straight (no tree is built).
pub fn encode_results_text(
    encoder: &HistoryEncoder,
    ids: IdTarget,
    results: &[ResultInput],
) -> String {
    if results.is_empty() {
        return "[]".to_owned();
    }
    let needs_mark = |r: &ResultInput| r.is_error && !encoder.error_flag;
    let remapped: Vec<ResultInput>;
    let results = if results
        .iter()
        .any(|r| needs_mark(r) || wire_id(ids, &r.call_id).is_some())
    {
        remapped = results
            .iter()
            .map(|r| ResultInput {
                call_id: wire_id(ids, &r.call_id).unwrap_or_else(|| r.call_id.clone()),
                content: if needs_mark(r) {
                    marked_error_content(&r.content)
                } else {
                    r.content.clone()
                },
                ..r.clone()
            })
            .collect();
        &remapped
    } else {
        results
    };
    let mut out = String::with_capacity(64 + 96 * results.len());
    out.push('[');
    (encoder.results)(results, &mut json_out::Elements::new(&mut out));
    out.push(']');
    out
}

/// An error result's blocks with its first non-empty text marked by [`marked_error_text`] (a
/// result of images only gets a marked text block first).
fn marked_error_content(content: &[ContentBlock]) -> Vec<ContentBlock> {
    let mut marked = content.to_vec();
    match marked.iter_mut().find_map(|block| match block {
        ContentBlock::Text { text } if !text.is_empty() => Some(text),
        _ => None,
    }) {
        Some(text) => *text = marked_error_text(text),
        None => marked.insert(0, ContentBlock::text(marked_error_text(""))),
    }
    marked
}

/// The id a call must carry on a wire whose ids follow `ids` when `id` breaks that rule
/// (Mistral: exactly nine alphanumerics), or `None` when `id` is fine as it is. Deterministic,
/// so calls and results encoded separately stay paired. An empty id stays empty (Gemini sends
/// none).
fn wire_id(ids: IdTarget, id: &str) -> Option<String> {
    (!id.is_empty() && !is_valid_tool_call_id(id, ids)).then(|| normalize_tool_call_id(id, ids))
}

/// A definition's description when it has one worth sending.
fn description<'a>(tool: &ToolDefinitionInput<'a>) -> Option<&'a str> {
    tool.description.filter(|d| !d.is_empty())
}

/// The text of a non-empty text block.
fn non_empty_text(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text { text } if !text.is_empty() => Some(text),
        _ => None,
    }
}

/// An image as a `data:` URL.
fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

/// `text` followed by a bracketed note on its own line saying where the result's `count`
/// images went, e.g. `[2 images of this result are attached in the next user message]`.
fn with_image_note(text: String, count: usize, location: &str) -> String {
    let note = if count == 1 {
        format!("[1 image of this result is {location}]")
    } else {
        format!("[{count} images of this result are {location}]")
    };
    if text.is_empty() {
        note
    } else {
        format!("{text}\n{note}")
    }
}

/// Builders shared by the wire tests.
#[cfg(test)]
mod fixtures {
    use serde_json::{json, Value};

    use super::{HistoryCall, HistoryThinking, HistoryTurn, ResultInput, ToolDefinitionInput};
    use crate::envelope::ContentBlock;
    use crate::provider::{Provider, Wire};

    /// The message(s) carrying `turn`'s calls on `wire`, as its provider encodes them.
    pub(super) fn calls_on(wire: Wire, turn: &HistoryTurn) -> Vec<Value> {
        Provider::of(wire).encode_tool_calls(turn)
    }

    /// The messages handing `results` to the model on `wire`, as its provider encodes them.
    pub(super) fn results_on(wire: Wire, results: &[ResultInput]) -> Vec<Value> {
        Provider::of(wire).encode_results(results)
    }

    /// A function call with these arguments and no metadata.
    pub(super) fn call(id: &str, name: &str, arguments: &str) -> HistoryCall {
        HistoryCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            ..HistoryCall::default()
        }
    }

    /// A custom (free-text) call.
    pub(super) fn custom_call(id: &str, name: &str, input: &str) -> HistoryCall {
        HistoryCall {
            kind: Some("custom".into()),
            ..call(id, name, input)
        }
    }

    /// A call with one provider metadata entry.
    pub(super) fn call_with(id: &str, name: &str, key: &str, value: Value) -> HistoryCall {
        let mut metadata = serde_json::Map::new();
        metadata.insert(key.into(), value);
        HistoryCall {
            provider_metadata: Some(metadata),
            ..call(id, name, "{}")
        }
    }

    /// A signed thinking block.
    pub(super) fn thought(text: &str, signature: Option<&str>) -> HistoryThinking {
        HistoryThinking {
            text: text.into(),
            signature: signature.map(Into::into),
            ..HistoryThinking::default()
        }
    }

    /// A redacted thinking block.
    pub(super) fn redacted(data: &str) -> HistoryThinking {
        HistoryThinking {
            redacted: Some(data.into()),
            ..HistoryThinking::default()
        }
    }

    /// A result with these blocks.
    pub(super) fn result(
        id: &str,
        tool: &str,
        content: Vec<ContentBlock>,
        is_error: bool,
    ) -> ResultInput {
        ResultInput {
            call_id: id.into(),
            tool: tool.into(),
            content,
            is_error,
        }
    }

    /// A successful text-only result.
    pub(super) fn text_result(id: &str, tool: &str, text: &str) -> ResultInput {
        result(id, tool, vec![ContentBlock::text(text)], false)
    }

    /// A PNG image block.
    pub(super) fn png(data: &str) -> ContentBlock {
        ContentBlock::Image {
            data: data.into(),
            mime_type: "image/png".into(),
        }
    }

    /// Two definitions sharing `parameters`: `read` with a description, `list` without.
    pub(super) fn read_and_list(parameters: &Value) -> [ToolDefinitionInput<'_>; 2] {
        [
            ToolDefinitionInput {
                name: "read",
                description: Some("Reads a file"),
                parameters,
            },
            ToolDefinitionInput {
                name: "list",
                description: None,
                parameters,
            },
        ]
    }

    /// A parameters schema.
    pub(super) fn schema() -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{call, calls_on, png, result, results_on, schema, text_result};
    use super::*;
    use crate::provider::{Provider, Wire};
    use serde_json::json;

    const WIRES: [Wire; 5] = Wire::ALL;

    #[test]
    fn results_are_written_as_json_text_with_their_keys_in_each_wires_order() {
        // The result encoders write text straight (json_out); the goldens elsewhere compare
        // values, blind to key order: here the exact text, escapes included, on every wire.
        let results = [
            text_result("call_1", "read", "line \"one\"\n"),
            result("call_2", "shot", vec![png("AAAA")], true),
        ];
        let text = |wire: Wire| Provider::of(wire).encode_results_text(&results);
        assert_eq!(
            text(Wire::OpenAiChat),
            concat!(
                r#"[{"role":"tool","tool_call_id":"call_1","content":"line \"one\"\n"},"#,
                r#"{"role":"tool","tool_call_id":"call_2","content":"Error: the tool failed without a message\n[1 image of this result is attached in the next user message]"},"#,
                r#"{"role":"user","content":[{"type":"text","text":"Images returned by tool shot (call call_2):"},"#,
                r#"{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]"#
            )
        );
        assert_eq!(
            text(Wire::Anthropic),
            concat!(
                r#"[{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"line \"one\"\n"}],"is_error":false},"#,
                r#"{"type":"tool_result","tool_use_id":"call_2","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],"is_error":true}]}]"#
            )
        );
        for wire in WIRES {
            let written: Vec<Value> = serde_json::from_str(&text(wire)).unwrap();
            assert_eq!(written, results_on(wire, &results), "{wire:?}");
            assert_eq!(Provider::of(wire).encode_results_text(&[]), "[]");
        }
    }

    #[test]
    fn empty_inputs_give_no_messages_on_every_wire() {
        let formats = [
            DefinitionFormat::ChatCompletions { strict: true },
            DefinitionFormat::Responses { strict: true },
            DefinitionFormat::Anthropic,
            DefinitionFormat::Gemini { json_schema: false },
            DefinitionFormat::Gemini { json_schema: true },
        ];
        for format in formats {
            assert_eq!(
                encode_definitions(format, &[]),
                Vec::<Value>::new(),
                "{format:?}"
            );
        }
        let text_only = HistoryTurn {
            text: "thinking out loud".into(),
            ..HistoryTurn::default()
        };
        for wire in WIRES {
            assert!(calls_on(wire, &HistoryTurn::default()).is_empty());
            assert!(calls_on(wire, &text_only).is_empty());
            assert!(results_on(wire, &[]).is_empty());
        }
    }

    #[test]
    fn ids_a_wire_refuses_are_rewritten_alike_in_calls_and_results() {
        let turn = HistoryTurn {
            calls: vec![call("functions.read:0", "read", "{}")],
            ..HistoryTurn::default()
        };
        let results = [text_result("functions.read:0", "read", "ok")];
        for wire in WIRES {
            let calls = Value::Array(calls_on(wire, &turn)).to_string();
            let encoded = Value::Array(results_on(wire, &results)).to_string();
            let id = normalize_tool_call_id("functions.read:0", Provider::of(wire).ids);
            assert!(
                is_valid_tool_call_id(&id, Provider::of(wire).ids),
                "{wire:?}"
            );
            assert!(calls.contains(&format!("\"{id}\"")), "{wire:?}: {calls}");
            assert!(
                encoded.contains(&format!("\"{id}\"")),
                "{wire:?}: {encoded}"
            );
            assert!(!calls.contains("functions.read:0"), "{wire:?}");
        }
    }

    #[test]
    fn each_wire_dispatches_to_its_own_shape() {
        // An id every wire takes as it is (Mistral wants exactly nine alphanumerics).
        let turn = HistoryTurn {
            calls: vec![call("c1234567a", "read", "{}")],
            ..HistoryTurn::default()
        };
        let results = [text_result("c1234567a", "read", "ok")];
        let cases: &[(Wire, Value, Value)] = &[
            (
                Wire::OpenAiChat,
                json!({"role": "assistant", "content": null}),
                json!({"role": "tool", "tool_call_id": "c1234567a", "content": "ok"}),
            ),
            (
                Wire::Mistral,
                json!({"role": "assistant", "content": ""}),
                json!({"role": "tool", "tool_call_id": "c1234567a", "name": "read", "content": "ok"}),
            ),
            (
                Wire::OpenAiResponses,
                json!({"type": "function_call"}),
                json!({"type": "function_call_output", "call_id": "c1234567a", "output": "ok"}),
            ),
            (
                Wire::Anthropic,
                json!({"role": "assistant"}),
                json!({"role": "user"}),
            ),
            (
                Wire::Gemini,
                json!({"role": "model"}),
                json!({"role": "user"}),
            ),
        ];
        for (wire, call_keys, result_message) in cases {
            let calls = calls_on(*wire, &turn);
            assert_eq!(calls.len(), 1, "{wire:?}");
            for (key, value) in call_keys.as_object().unwrap() {
                assert_eq!(&calls[0][key], value, "{wire:?} {key}");
            }
            let encoded = results_on(*wire, &results);
            assert_eq!(encoded.len(), 1, "{wire:?}");
            for (key, value) in result_message.as_object().unwrap() {
                assert_eq!(&encoded[0][key], value, "{wire:?} {key}");
            }
        }
    }

    #[test]
    fn arguments_object_falls_back_to_an_empty_object() {
        let cases = [
            (r#"{"a":1}"#, json!({"a": 1})),
            ("", json!({})),
            ("   ", json!({})),
            (r#"{"a":"#, json!({})),
            ("[1,2]", json!({})),
            ("42", json!({})),
            ("not json", json!({})),
        ];
        for (arguments, expected) in cases {
            assert_eq!(
                call("c", "t", arguments).arguments_object(),
                expected,
                "{arguments}"
            );
        }
    }

    #[test]
    fn arguments_json_text_is_braces_when_empty() {
        for (arguments, expected) in [
            ("", "{}"),
            (" \n", "{}"),
            (r#"{"a":1}"#, r#"{"a":1}"#),
            ("{bad", "{bad"),
        ] {
            assert_eq!(call("c", "t", arguments).arguments_json_text(), expected);
        }
    }

    #[test]
    fn an_unknown_tool_name_is_echoed_within_the_providers_64_character_limit() {
        // A model can call a tool by any name; Gemini (functionResponse.name) and Mistral
        // (the tool message's name) echo it back, and refuse names over 64 characters.
        let long = format!("{}\u{e9}{}", "n".repeat(63), "x".repeat(1 << 20));
        let results = [
            text_result("c1", &long, "unknown tool"),
            text_result("c2", "read", "ok"),
        ];
        for wire in [Wire::Gemini, Wire::Mistral, Wire::OpenAiChat] {
            let encoded = serde_json::to_string(&results_on(wire, &results)).unwrap();
            assert!(encoded.len() < 4096, "{wire:?}: {} bytes", encoded.len());
            assert!(!encoded.contains(&"n".repeat(64)), "{wire:?}");
        }
        let gemini = results_on(Wire::Gemini, &results);
        let names: Vec<&str> = gemini[0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|part| part["functionResponse"]["name"].as_str().unwrap())
            .collect();
        // Cut on a char boundary: the two-byte character at byte 63 does not fit.
        assert_eq!(names, [&"n".repeat(63)[..], "read"]);
    }

    #[test]
    fn result_text_joins_non_empty_text_blocks() {
        let r = result(
            "c",
            "t",
            vec![
                ContentBlock::text("a"),
                ContentBlock::text(""),
                png("AAAA"),
                ContentBlock::text("b"),
            ],
            false,
        );
        assert_eq!(r.text(), "a\nb");
        assert_eq!(r.images().collect::<Vec<_>>(), vec![("image/png", "AAAA")]);
    }

    #[test]
    fn image_note_counts_and_keeps_the_text() {
        assert_eq!(
            with_image_note(String::new(), 1, "below"),
            "[1 image of this result is below]"
        );
        assert_eq!(
            with_image_note("shot".into(), 2, "below"),
            "shot\n[2 images of this result are below]"
        );
    }

    /// Decodes `chunks` of `wire`, hands the assembled turn to [`parse_history_turn`] as its
    /// JSON text and encodes it back.
    fn round_trip(wire: Wire, chunks: &[Value]) -> Vec<Value> {
        let texts: Vec<String> = chunks.iter().map(Value::to_string).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let decoded = crate::wire::test_support::decode_events(wire, "", &refs);
        let turn = parse_history_turn(&decoded.turn.to_string()).unwrap();
        calls_on(wire, &turn)
    }

    // QUIRK 24: a decoded Anthropic turn goes back with its thinking blocks as they came.
    #[test]
    fn anthropic_decoded_turn_round_trips() {
        let encoded = round_trip(
            Wire::Anthropic,
            &[
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Plan."}}),
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "SIG"}}),
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "OPAQUE"}}),
                json!({"type": "content_block_stop", "index": 1}),
                json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
                json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Reading."}}),
                json!({"type": "content_block_stop", "index": 2}),
                json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}}),
                json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"a\"}"}}),
                json!({"type": "content_block_stop", "index": 3}),
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 9}}),
                json!({"type": "message_stop"}),
            ],
        );
        assert_eq!(
            encoded,
            vec![json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Plan.", "signature": "SIG"},
                {"type": "redacted_thinking", "data": "OPAQUE"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
            ]})]
        );
    }

    // QUIRK 26: of two decoded parallel Gemini calls only the first had a signature, and only
    // the first gets one back.
    #[test]
    fn gemini_decoded_turn_round_trips() {
        let parts =
            |parts: Value| json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
        let encoded = round_trip(
            Wire::Gemini,
            &[
                parts(
                    json!([{"functionCall": {"name": "read", "args": {"path": "a"}, "id": "g1"}, "thoughtSignature": "SIG1"}]),
                ),
                parts(
                    json!([{"functionCall": {"name": "read", "args": {"path": "b"}, "id": "g2"}}]),
                ),
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]}),
            ],
        );
        assert_eq!(
            encoded,
            vec![json!({"role": "model", "parts": [
                {"functionCall": {"name": "read", "args": {"path": "a"}, "id": "g1"}, "thoughtSignature": "SIG1"},
                {"functionCall": {"name": "read", "args": {"path": "b"}, "id": "g2"}},
            ]})]
        );
    }

    #[test]
    fn responses_decoded_turn_round_trips_with_its_item_id() {
        let encoded = round_trip(
            Wire::OpenAiResponses,
            &[
                json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
                json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "", "status": "in_progress"}}),
                json!({"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "fc_1", "output_index": 0, "delta": "{\"path\":\"a\"}"}),
                json!({"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "{\"path\":\"a\"}", "status": "completed"}}),
                json!({"type": "response.completed", "sequence_number": 4, "response": {"id": "resp_1", "status": "completed", "output": []}}),
            ],
        );
        assert_eq!(
            encoded,
            vec![
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "{\"path\":\"a\"}"})
            ]
        );
    }

    #[test]
    fn definitions_omit_an_empty_description() {
        let parameters = schema();
        let tool = ToolDefinitionInput {
            name: "read",
            description: Some(""),
            parameters: &parameters,
        };
        assert_eq!(
            encode_definitions(DefinitionFormat::Anthropic, &[tool]),
            vec![json!({"name": "read", "input_schema": schema()})]
        );
    }

    /// Whether the model reads an encoded result (the one result of `encoded`) as a failure: the
    /// wire's own flag where it has one, else the text's opening words.
    fn reads_as_error(wire: Wire, encoded: &[Value]) -> bool {
        let first = &encoded[0];
        match wire {
            Wire::Anthropic => first["content"][0]["is_error"] == json!(true),
            Wire::Gemini => first["parts"][0]["functionResponse"]["response"]
                .get("error")
                .is_some(),
            Wire::OpenAiChat | Wire::Mistral => first["content"]
                .as_str()
                .is_some_and(|t| t.starts_with("Error: ")),
            Wire::OpenAiResponses => {
                let output = &first["output"];
                output.as_str().map_or_else(
                    || {
                        output[0]["text"]
                            .as_str()
                            .unwrap_or_default()
                            .starts_with("Error: ")
                    },
                    |t| t.starts_with("Error: "),
                )
            }
        }
    }

    #[test]
    fn an_error_result_reads_as_an_error_on_every_wire_and_a_success_never_does() {
        // Seen in the r9 user review (17-error-text): `throw new Error('42')` reached OpenAI
        // Chat, Responses and Mistral as the tool message "42", a success to the model.
        let blocks: [(&str, Vec<ContentBlock>); 6] = [
            ("a number", vec![ContentBlock::text("42")]),
            (
                "an errno text",
                vec![ContentBlock::text("ENOENT: no such file")],
            ),
            ("JSON", vec![ContentBlock::text(r#"{"ok":true}"#)]),
            ("no text", vec![]),
            ("an empty text", vec![ContentBlock::text("")]),
            ("an image only", vec![png("AAAA")]),
        ];
        for wire in WIRES {
            for (what, content) in &blocks {
                let failed = [result("call_1", "t", content.clone(), true)];
                assert!(
                    reads_as_error(wire, &results_on(wire, &failed)),
                    "{wire:?}: a failed result with {what} reads as a success"
                );
                if !content.is_empty()
                    && !matches!(&content[0], ContentBlock::Text { text } if text.is_empty())
                {
                    let ok = [result("call_1", "t", content.clone(), false)];
                    assert!(
                        !reads_as_error(wire, &results_on(wire, &ok)),
                        "{wire:?}: a successful result with {what} reads as an error"
                    );
                }
            }
        }
    }

    #[test]
    fn marked_error_text_opens_with_error_once() {
        let cases = [
            ("42", "Error: 42"),
            ("Error: disk full", "Error: disk full"),
            ("Error:x", "Error:x"),
            ("error: lower case", "Error: error: lower case"),
            ("TypeError: x", "Error: TypeError: x"),
            ("", "Error: the tool failed without a message"),
        ];
        for (text, want) in cases {
            assert_eq!(marked_error_text(text), want, "{text:?}");
        }
    }

    #[test]
    fn the_error_mark_is_on_the_text_only_where_the_wire_has_no_flag() {
        let failed = [result("call_1", "t", vec![ContentBlock::text("42")], true)];
        let texts: Vec<(Wire, Value)> = WIRES
            .iter()
            .map(|&wire| {
                let encoded = results_on(wire, &failed);
                let text = match wire {
                    Wire::OpenAiChat | Wire::Mistral => encoded[0]["content"].clone(),
                    Wire::OpenAiResponses => encoded[0]["output"].clone(),
                    Wire::Anthropic => encoded[0]["content"][0]["content"][0]["text"].clone(),
                    Wire::Gemini => {
                        encoded[0]["parts"][0]["functionResponse"]["response"]["error"].clone()
                    }
                };
                (wire, text)
            })
            .collect();
        for (wire, text) in texts {
            let want = if Provider::of(wire).history.error_flag {
                "42"
            } else {
                "Error: 42"
            };
            assert_eq!(text, json!(want), "{wire:?}");
        }
    }
}
