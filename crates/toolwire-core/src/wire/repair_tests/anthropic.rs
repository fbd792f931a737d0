//! Anthropic Messages repairs. Where each quirk was seen is said in fixtures/QUIRKS.md.

use serde_json::{json, Value};

use super::{check, check_clean, named_sse, Case};
use crate::provider::Wire;
use crate::wire::repair::RepairKind as K;

fn message_start(content: Value) -> Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "content": content, "stop_reason": null}})
}

fn block_start(input: Value) -> Value {
    json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": input}})
}

fn input_delta(partial: &str) -> Value {
    json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": partial}})
}

fn block_stop() -> Value {
    json!({"type": "content_block_stop", "index": 0})
}

/// message_start, the given events, then the `tool_use` stop and message_stop.
fn body(events: &[Value]) -> String {
    let mut all = vec![message_start(json!([]))];
    all.extend_from_slice(events);
    all.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
    all.push(json!({"type": "message_stop"}));
    named_sse(&all)
}

fn clean() -> Vec<Value> {
    vec![
        block_start(json!({})),
        input_delta("{\"path\":"),
        input_delta("\"a\"}"),
        block_stop(),
    ]
}

fn case(kind: K, events: &[Value], expected: &[(K, Option<u64>)]) -> Case {
    Case {
        kind,
        wire: Wire::Anthropic,
        body: body(events),
        expected: expected.to_vec(),
    }
}

fn duplicate_message_start() -> Case {
    // QUIRK 23: the same message_start twice (vercel/ai#18402, fixture duplicate-message-start).
    let mut events = vec![message_start(json!([]))];
    events.extend(clean());
    case(
        K::DuplicateMessageStart,
        &events,
        &[(K::DuplicateMessageStart, None)],
    )
}

fn tool_use_in_message_start() -> Case {
    // Programmatic tool calling: a whole tool_use inside message_start, no block events.
    let tool_use =
        json!([{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}}]);
    let all = [
        message_start(tool_use),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json!({"type": "message_stop"}),
    ];
    Case {
        kind: K::ToolUseInMessageStart,
        wire: Wire::Anthropic,
        body: named_sse(&all),
        expected: vec![(K::ToolUseInMessageStart, Some(0))],
    }
}

fn empty_tool_input() -> Case {
    // QUIRK 20: a tool without parameters streams only `partial_json: ""`.
    case(
        K::EmptyToolInput,
        &[block_start(json!({})), input_delta(""), block_stop()],
        &[(K::EmptyToolInput, Some(0))],
    )
}

fn whole_input_in_block_start() -> Case {
    // Programmatic tool calling: the input whole in content_block_start, no input_json_delta.
    case(
        K::WholeInputInBlockStart,
        &[block_start(json!({"path": "a"})), block_stop()],
        &[(K::WholeInputInBlockStart, Some(0))],
    )
}

fn block_not_closed() -> Case {
    // A tool_use block with no content_block_stop: the message's end ends it.
    case(
        K::BlockNotClosed,
        &[block_start(json!({})), input_delta("{\"path\":\"a\"}")],
        &[(K::BlockNotClosed, Some(0))],
    )
}

fn whole_response() -> Case {
    // A whole (non-streamed) message.
    let message = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}}],
        "stop_reason": "tool_use"});
    Case {
        kind: K::WholeResponse,
        wire: Wire::Anthropic,
        body: message.to_string(),
        expected: vec![(K::WholeResponse, None)],
    }
}

fn repeated_start() -> Case {
    // A content_block_start sent twice: one block, one call.
    let mut events = clean();
    events.insert(1, block_start(json!({})));
    case(K::RepeatedStart, &events, &[(K::RepeatedStart, Some(0))])
}

fn missing_index() -> Case {
    // Block events without `index`: each belongs to the one open block.
    let events: Vec<Value> = clean()
        .into_iter()
        .map(|mut event| {
            event.as_object_mut().unwrap().remove("index");
            event
        })
        .collect();
    case(K::MissingIndex, &events, &[(K::MissingIndex, Some(0))])
}

/// The clean call at `index`, under `id`.
fn call_at(index: u64, id: &str, path: &str) -> Vec<Value> {
    let at = |mut event: Value| {
        event["index"] = json!(index);
        event
    };
    let mut start = block_start(json!({}));
    start["content_block"]["id"] = json!(id);
    vec![
        at(start),
        at(input_delta(&format!("{{\"path\":\"{path}\"}}"))),
        at(block_stop()),
    ]
}

fn duplicate_call_id() -> Case {
    // Two blocks under one id: the second call gets a generated id.
    let mut events = call_at(0, "toolu_1", "a");
    events.extend(call_at(1, "toolu_1", "b"));
    case(
        K::DuplicateCallId,
        &events,
        &[(K::DuplicateCallId, Some(1))],
    )
}

fn index_reused() -> Case {
    // A new block at the index of a closed one: a call of its own.
    let mut events = call_at(0, "toolu_1", "a");
    events.extend(call_at(0, "toolu_2", "b"));
    case(K::IndexReused, &events, &[(K::IndexReused, Some(1))])
}

/// Every stream of this wire.
pub(super) fn cases() -> Vec<Case> {
    vec![
        duplicate_message_start(),
        tool_use_in_message_start(),
        empty_tool_input(),
        whole_input_in_block_start(),
        block_not_closed(),
        whole_response(),
        repeated_start(),
        missing_index(),
        duplicate_call_id(),
        index_reused(),
    ]
}

#[test]
fn a_clean_stream_reports_no_repair() {
    check_clean(Wire::Anthropic, &body(&clean()));
}

#[test]
fn duplicate_message_start_is_reported() {
    check(&duplicate_message_start());
}

#[test]
fn tool_use_in_message_start_is_reported() {
    check(&tool_use_in_message_start());
}

#[test]
fn empty_tool_input_is_reported() {
    check(&empty_tool_input());
}

#[test]
fn whole_input_in_block_start_is_reported() {
    check(&whole_input_in_block_start());
}

#[test]
fn block_not_closed_is_reported() {
    check(&block_not_closed());
}

#[test]
fn a_block_cut_by_the_end_of_the_body_is_reported_not_closed() {
    // The stream breaks off inside the block: the call is cut, and the block was never closed.
    let body = named_sse(&[
        message_start(json!([])),
        block_start(json!({})),
        input_delta("{\"pa"),
    ]);
    let decoded = crate::wire::test_support::decode_body(Wire::Anthropic, &[body.as_bytes()]);
    assert_eq!(
        decoded.turn["repairs"],
        json!([{"kind": "block-not-closed", "callIndex": 0}])
    );
    assert_eq!(decoded.calls()[0]["complete"], false);
}

#[test]
fn whole_response_is_reported() {
    check(&whole_response());
}

#[test]
fn repeated_start_is_reported() {
    check(&repeated_start());
}

#[test]
fn missing_index_is_reported() {
    check(&missing_index());
}

#[test]
fn duplicate_call_id_is_reported() {
    let got = check(&duplicate_call_id());
    assert_eq!(
        got[0].2.as_deref(),
        Some("\"toolu_1\" was an earlier call's id")
    );
}

#[test]
fn index_reused_is_reported() {
    check(&index_reused());
}
