//! OpenAI Responses repairs. Where each quirk was seen is said in fixtures/QUIRKS.md.

use serde_json::{json, Value};

use super::{check, check_clean, named_sse, Case};
use crate::provider::Wire;
use crate::wire::repair::RepairKind as K;

fn created() -> Value {
    json!({"type": "response.created", "response": {"id": "r1", "status": "in_progress", "output": []}})
}

fn completed() -> Value {
    json!({"type": "response.completed", "response": {"id": "r1", "status": "completed"}})
}

/// The function call item `read {"path":"a"}` as `output_item.added` or `.done` carry it.
fn item(call_id: Option<&str>, arguments: &str) -> Value {
    let mut item =
        json!({"type": "function_call", "id": "fc_1", "name": "read", "arguments": arguments});
    if let Some(call_id) = call_id {
        item["call_id"] = json!(call_id);
    }
    item
}

fn added(call_id: Option<&str>) -> Value {
    json!({"type": "response.output_item.added", "output_index": 0, "item": item(call_id, "")})
}

fn delta(item_id: &str, delta: &str) -> Value {
    json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": item_id, "delta": delta})
}

fn arguments_done(arguments: &str) -> Value {
    json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": arguments})
}

fn item_done(call_id: Option<&str>) -> Value {
    json!({"type": "response.output_item.done", "output_index": 0, "item": item(call_id, "{\"path\":\"a\"}")})
}

/// created, the given events, completed.
fn body(events: &[Value]) -> String {
    let mut all = vec![created()];
    all.extend_from_slice(events);
    all.push(completed());
    named_sse(&all)
}

fn clean() -> Vec<Value> {
    vec![
        added(Some("call_1")),
        delta("fc_1", "{\"path\":"),
        delta("fc_1", "\"a\"}"),
        arguments_done("{\"path\":\"a\"}"),
        item_done(Some("call_1")),
    ]
}

fn case(kind: K, events: &[Value], expected: &[(K, Option<u64>)]) -> Case {
    Case {
        kind,
        wire: Wire::OpenAiResponses,
        body: body(events),
        expected: expected.to_vec(),
    }
}

fn item_id_rotation() -> Case {
    // QUIRK 18: GitHub Copilot sends a new item_id on every event of one item.
    case(
        K::ItemIdRotation,
        &[
            added(Some("call_1")),
            delta("fc_2", "{\"path\":"),
            delta("fc_3", "\"a\"}"),
            item_done(Some("call_1")),
        ],
        &[(K::ItemIdRotation, Some(0))],
    )
}

fn no_argument_deltas() -> Case {
    // QUIRK 19: LM Studio sends no deltas, only the `.done` events.
    case(
        K::NoArgumentDeltas,
        &[
            added(Some("call_1")),
            arguments_done("{\"path\":\"a\"}"),
            item_done(Some("call_1")),
        ],
        &[(K::NoArgumentDeltas, Some(0))],
    )
}

fn arguments_corrected() -> Case {
    // Deltas that the `.done` text contradicts: the final text wins.
    case(
        K::ArgumentsCorrected,
        &[
            added(Some("call_1")),
            delta("fc_1", "{\"path\":\"b\"}"),
            arguments_done("{\"path\":\"a\"}"),
            item_done(Some("call_1")),
        ],
        &[(K::ArgumentsCorrected, Some(0))],
    )
}

fn missing_id() -> Case {
    // A server that sends a function call without its call_id.
    let mut events = clean();
    events[0] = added(None);
    events[4] = item_done(None);
    case(K::MissingId, &events, &[(K::MissingId, Some(0))])
}

fn whole_response() -> Case {
    // A server that answers one `response` object (issue 19).
    let response = json!({"id": "r1", "object": "response", "status": "completed",
        "output": [item(Some("call_1"), "{\"path\":\"a\"}")]});
    Case {
        kind: K::WholeResponse,
        wire: Wire::OpenAiResponses,
        body: response.to_string(),
        expected: vec![(K::WholeResponse, None)],
    }
}

fn duplicate_call_id() -> Case {
    // Two function call items under one call_id: the second gets a generated id.
    let second = |event: Value| {
        let mut event = event;
        event["output_index"] = json!(1);
        event["item"]["id"] = json!("fc_2");
        event
    };
    case(
        K::DuplicateCallId,
        &[
            added(Some("call_1")),
            item_done(Some("call_1")),
            second(added(Some("call_1"))),
            second(item_done(Some("call_1"))),
        ],
        &[
            (K::NoArgumentDeltas, Some(0)),
            (K::NoArgumentDeltas, Some(1)),
            (K::DuplicateCallId, Some(1)),
        ],
    )
}

fn repeated_start() -> Case {
    // An `output_item.added` sent twice (a stream without sequence numbers): one call.
    let mut events = clean();
    events.insert(1, added(Some("call_1")));
    case(K::RepeatedStart, &events, &[(K::RepeatedStart, Some(0))])
}

fn repeated_event() -> Case {
    // An argument delta sent twice under its sequence_number (a relay repeating an event).
    let numbered = |event: Value, n: u64| {
        let mut event = event;
        event["sequence_number"] = json!(n);
        event
    };
    let mut all = vec![numbered(created(), 0)];
    for (n, event) in clean().into_iter().enumerate() {
        all.push(numbered(event.clone(), n as u64 + 1));
        if n == 1 {
            all.push(numbered(event, n as u64 + 1));
        }
    }
    all.push(numbered(completed(), 6));
    Case {
        kind: K::RepeatedEvent,
        wire: Wire::OpenAiResponses,
        body: named_sse(&all),
        expected: vec![(K::RepeatedEvent, None)],
    }
}

/// Every stream of this wire.
pub(super) fn cases() -> Vec<Case> {
    vec![
        item_id_rotation(),
        no_argument_deltas(),
        arguments_corrected(),
        missing_id(),
        whole_response(),
        duplicate_call_id(),
        repeated_start(),
        repeated_event(),
    ]
}

#[test]
fn a_clean_stream_reports_no_repair() {
    check_clean(Wire::OpenAiResponses, &body(&clean()));
}

#[test]
fn item_id_rotation_is_reported() {
    check(&item_id_rotation());
}

#[test]
fn no_argument_deltas_are_reported() {
    check(&no_argument_deltas());
}

#[test]
fn a_call_read_whole_from_output_item_done_is_no_repair() {
    // No `added`: the item is opened and ended by its `done` (what `response.completed` holds).
    check_clean(Wire::OpenAiResponses, &body(&[item_done(Some("call_1"))]));
}

#[test]
fn arguments_corrected_are_reported() {
    check(&arguments_corrected());
}

#[test]
fn missing_id_is_reported() {
    check(&missing_id());
}

#[test]
fn whole_response_is_reported() {
    check(&whole_response());
}

#[test]
fn duplicate_call_id_is_reported() {
    check(&duplicate_call_id());
}

#[test]
fn repeated_start_is_reported() {
    check(&repeated_start());
}

#[test]
fn repeated_event_is_reported() {
    check(&repeated_event());
}
