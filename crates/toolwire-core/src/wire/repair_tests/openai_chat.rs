//! Chat Completions repairs (and Mistral's, the same decoder). Where each quirk was seen is said
//! in fixtures/QUIRKS.md (the number after "QUIRK").

use serde_json::{json, Value};

use super::{check, check_clean, sse, Case};
use crate::provider::Wire;
use crate::wire::repair::RepairKind as K;

/// A chunk whose delta carries these tool call fragments.
fn calls(tool_calls: Value) -> Value {
    json!({"id": "c1", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]})
}

fn fragment(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut function = json!({"arguments": arguments});
    if let Some(name) = name {
        function["name"] = json!(name);
    }
    let mut call = json!({"index": index, "type": "function", "function": function});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    call
}

fn finish(reason: &str) -> Value {
    json!({"id": "c1", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

/// The chunks, then `finish_reason: tool_calls` and `[DONE]`.
fn body(chunks: &[Value]) -> String {
    let mut events = chunks.to_vec();
    events.push(finish("tool_calls"));
    sse(&events) + "data: [DONE]\n\n"
}

fn case(kind: K, chunks: &[Value], expected: &[(K, Option<u64>)]) -> Case {
    Case {
        kind,
        wire: Wire::OpenAiChat,
        body: body(chunks),
        expected: expected.to_vec(),
    }
}

/// One call, `read {"path":"a"}`, in three fragments.
fn clean() -> Vec<Value> {
    vec![
        calls(json!([fragment(0, Some("call_1"), Some("read"), "")])),
        calls(json!([fragment(0, None, None, "{\"path\":")])),
        calls(json!([fragment(0, None, None, "\"a\"}")])),
    ]
}

fn missing_index() -> Case {
    // QUIRK 2: Ollama < 0.4.7, Gemini's OpenAI-compatible endpoint, Mistral.
    let call =
        json!({"id": "call_1", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}});
    case(
        K::MissingIndex,
        &[calls(json!([call]))],
        &[(K::MissingIndex, Some(0))],
    )
}

fn mistral_missing_index() -> Case {
    // QUIRK 2 on the Mistral wire (fixture mistral-tool-call): the same decoder, the same repair.
    Case {
        wire: Wire::Mistral,
        ..missing_index()
    }
}

fn index_offset() -> Case {
    // QUIRK 3: Anthropic's OpenAI-compatible endpoint starts at 1 (vercel/ai#18382).
    case(
        K::IndexOffset,
        &[calls(json!([fragment(
            1,
            Some("call_1"),
            Some("read"),
            "{}"
        )]))],
        &[(K::IndexOffset, Some(0))],
    )
}

fn index_reused() -> Case {
    // QUIRK 1: Ollama 0.20 sends parallel calls on index 0, each with its own id.
    case(
        K::IndexReused,
        &[
            calls(json!([fragment(
                0,
                Some("call_a"),
                Some("read"),
                "{\"path\":\"a\"}"
            )])),
            calls(json!([fragment(
                0,
                Some("call_b"),
                Some("read"),
                "{\"path\":\"b\"}"
            )])),
        ],
        &[(K::IndexReused, Some(1))],
    )
}

fn empty_string_fields() -> Case {
    // QUIRK 4: Qwen/DashScope and GLM send `id: ""` and `name: ""` in continuation fragments.
    case(
        K::EmptyStringFields,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":"
            )])),
            calls(json!([fragment(0, Some(""), Some(""), "\"a\"}")])),
        ],
        &[(K::EmptyStringFields, Some(0))],
    )
}

fn unstable_id() -> Case {
    // QUIRK 6: Poolside sends one id on the name fragment, another on the arguments.
    case(
        K::UnstableId,
        &[
            calls(json!([fragment(0, Some("call_1"), Some("read"), "{\"pa")])),
            calls(json!([fragment(0, Some("call_2"), None, "th\":\"a\"}")])),
        ],
        &[(K::UnstableId, Some(0))],
    )
}

fn name_repeated() -> Case {
    // QUIRK 8: MiniMax M2.7 via NVIDIA NIM repeats the name in every fragment.
    case(
        K::NameRepeated,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":"
            )])),
            calls(json!([fragment(0, None, Some("read"), "\"a\"}")])),
        ],
        &[(K::NameRepeated, Some(0))],
    )
}

fn name_split() -> Case {
    // QUIRK 9: a name split across fragments (Gemini-backed and local servers).
    case(
        K::NameSplit,
        &[
            calls(json!([fragment(0, Some("call_1"), Some("get_wea"), "")])),
            calls(json!([fragment(0, None, Some("ther"), "")])),
            calls(json!([fragment(0, None, None, "{\"city\":\"Paris\"}")])),
        ],
        &[(K::NameSplit, Some(0))],
    )
}

fn name_after_arguments() -> Case {
    // A name fragment once the arguments began: the call was announced with its first name.
    case(
        K::NameAfterArguments,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":"
            )])),
            calls(json!([fragment(0, None, Some("write"), "\"a\"}")])),
        ],
        &[(K::NameAfterArguments, Some(0))],
    )
}

fn arguments_resent() -> Case {
    // QUIRK 10: the whole arguments re-emitted after the deltas (elizaOS/eliza#16973).
    case(
        K::ArgumentsResent,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":\"a\"}"
            )])),
            calls(json!([fragment(0, None, None, "{\"path\":\"a\"}")])),
        ],
        &[(K::ArgumentsResent, Some(0))],
    )
}

fn cumulative_arguments() -> Case {
    // QUIRK 7: DeepSeek and Baidu Qianfan resend the arguments so far in every fragment.
    case(
        K::CumulativeArguments,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":"
            )])),
            calls(json!([fragment(0, None, None, "{\"path\":\"a")])),
            calls(json!([fragment(0, None, None, "{\"path\":\"a\"}")])),
        ],
        &[(K::CumulativeArguments, Some(0))],
    )
}

fn missing_id() -> Case {
    // QUIRK 5: servers that send no id at all.
    case(
        K::MissingId,
        &[calls(json!([fragment(0, None, Some("read"), "{}")]))],
        &[(K::MissingId, Some(0))],
    )
}

fn finish_stop_with_calls() -> Case {
    // QUIRK 13: OpenAI with a named tool_choice, vLLM, SGLang end tool turns with "stop".
    let mut events = clean();
    events.push(finish("stop"));
    Case {
        kind: K::FinishStopWithCalls,
        wire: Wire::OpenAiChat,
        body: sse(&events) + "data: [DONE]\n\n",
        expected: vec![(K::FinishStopWithCalls, None)],
    }
}

fn filter_only_chunk() -> Case {
    // QUIRK 15: Azure's first chunk has no choices, only the prompt's filter results.
    let mut chunks = vec![json!({"id": "", "object": "", "choices": [],
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]})];
    chunks.extend(clean());
    case(K::FilterOnlyChunk, &chunks, &[(K::FilterOnlyChunk, None)])
}

fn filter_only_choice() -> Case {
    // QUIRK 15: Azure's late chunk holds a choice with content-filter offsets and no delta.
    let mut chunks = clean();
    chunks.push(
        json!({"id": "c1", "choices": [{"index": 0, "finish_reason": null,
        "content_filter_offsets": {"check_offset": 0, "start_offset": 0, "end_offset": 9}}]}),
    );
    case(K::FilterOnlyChunk, &chunks, &[(K::FilterOnlyChunk, None)])
}

fn trailing_empty_fragment() -> Case {
    // QUIRK 11: `arguments: ""` with a repeated `id: ""` after the finish (vercel/ai's test).
    let mut events = clean();
    events.push(finish("tool_calls"));
    events.push(calls(json!([fragment(0, Some(""), None, "")])));
    Case {
        kind: K::TrailingEmptyFragment,
        wire: Wire::OpenAiChat,
        body: sse(&events) + "data: [DONE]\n\n",
        expected: vec![(K::TrailingEmptyFragment, None)],
    }
}

fn whole_response() -> Case {
    // A server that ignores `stream: true` answers one `chat.completion` (issue 19). Its message's
    // tool calls carry no `index`, as OpenAI's do: that is no missing index.
    let call = |id: &str, path: &str| {
        json!({"id": id, "type": "function",
            "function": {"name": "read", "arguments": format!("{{\"path\":\"{path}\"}}")}})
    };
    let completion = json!({"id": "c1", "object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null,
            "tool_calls": [call("call_1", "a"), call("call_2", "b")]},
        "finish_reason": "tool_calls"}]});
    Case {
        kind: K::WholeResponse,
        wire: Wire::OpenAiChat,
        body: completion.to_string(),
        expected: vec![(K::WholeResponse, None)],
    }
}

fn duplicate_call_id() -> Case {
    // Two calls under one id (as Gemini sends them): the second gets a generated id.
    case(
        K::DuplicateCallId,
        &[
            calls(json!([fragment(
                0,
                Some("call_1"),
                Some("read"),
                "{\"path\":\"a\"}"
            )])),
            calls(json!([fragment(
                1,
                Some("call_1"),
                Some("read"),
                "{\"path\":\"b\"}"
            )])),
        ],
        &[(K::DuplicateCallId, Some(1))],
    )
}

/// Every stream of this wire.
pub(super) fn cases() -> Vec<Case> {
    vec![
        missing_index(),
        mistral_missing_index(),
        index_offset(),
        index_reused(),
        empty_string_fields(),
        unstable_id(),
        name_repeated(),
        name_split(),
        name_after_arguments(),
        arguments_resent(),
        cumulative_arguments(),
        missing_id(),
        finish_stop_with_calls(),
        filter_only_chunk(),
        filter_only_choice(),
        trailing_empty_fragment(),
        whole_response(),
        duplicate_call_id(),
    ]
}

#[test]
fn a_clean_stream_reports_no_repair() {
    check_clean(Wire::OpenAiChat, &body(&clean()));
    check_clean(Wire::Mistral, &body(&clean()));
}

#[test]
fn missing_index_is_reported() {
    check(&missing_index());
    check(&mistral_missing_index());
}

#[test]
fn index_offset_is_reported() {
    let got = check(&index_offset());
    assert_eq!(got[0].2.as_deref(), Some("index 1 is call 0"));
}

#[test]
fn index_reused_is_reported() {
    check(&index_reused());
}

#[test]
fn empty_string_fields_are_reported() {
    check(&empty_string_fields());
}

#[test]
fn unstable_id_is_reported() {
    let got = check(&unstable_id());
    assert_eq!(
        got[0].2.as_deref(),
        Some("\"call_1\" kept, \"call_2\" ignored")
    );
}

#[test]
fn name_repeated_is_reported() {
    check(&name_repeated());
}

#[test]
fn name_split_is_reported() {
    let got = check(&name_split());
    assert_eq!(got[0].2.as_deref(), Some("\"get_wea\" + \"ther\""));
}

#[test]
fn name_after_arguments_is_reported() {
    check(&name_after_arguments());
}

#[test]
fn arguments_resent_is_reported() {
    check(&arguments_resent());
}

#[test]
fn cumulative_arguments_are_reported() {
    check(&cumulative_arguments());
}

#[test]
fn missing_id_is_reported() {
    check(&missing_id());
}

#[test]
fn finish_stop_with_calls_is_reported() {
    check(&finish_stop_with_calls());
}

#[test]
fn finish_stop_without_calls_is_no_repair() {
    let text = json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": "hi"}}]});
    check_clean(Wire::OpenAiChat, &sse(&[text, finish("stop")]));
}

#[test]
fn filter_only_chunks_are_reported() {
    check(&filter_only_chunk());
    check(&filter_only_choice());
}

#[test]
fn a_usage_trailer_without_choices_is_no_filter_chunk() {
    let mut events = clean();
    events.push(finish("tool_calls"));
    events.push(
        json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}),
    );
    check_clean(Wire::OpenAiChat, &sse(&events));
}

#[test]
fn trailing_empty_fragment_is_reported() {
    check(&trailing_empty_fragment());
}

#[test]
fn whole_response_is_reported() {
    check(&whole_response());
}

#[test]
fn a_whole_mistral_response_reports_no_missing_index() {
    // The same whole `chat.completion` on the Mistral wire, whose streams do lack `index`.
    check(&Case {
        wire: Wire::Mistral,
        ..whole_response()
    });
}

#[test]
fn each_kind_is_reported_once_per_call() {
    // MiniMax repeats the name in every one of many fragments: one repair for the call.
    let mut chunks = vec![calls(json!([fragment(
        0,
        Some("call_1"),
        Some("read"),
        "{"
    )]))];
    for piece in ["\"path\"", ":", "\"a\"", "}"] {
        chunks.push(calls(json!([fragment(0, None, Some("read"), piece)])));
    }
    chunks.push(calls(json!([fragment(
        1,
        Some("call_2"),
        Some("list"),
        "{"
    )])));
    chunks.push(calls(json!([fragment(1, None, Some("list"), "}")])));
    check(&case(
        K::NameRepeated,
        &chunks,
        &[(K::NameRepeated, Some(0)), (K::NameRepeated, Some(1))],
    ));
}

#[test]
fn duplicate_call_id_is_reported() {
    check(&duplicate_call_id());
}
