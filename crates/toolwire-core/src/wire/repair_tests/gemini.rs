//! Gemini repairs. Where each quirk was seen is said in fixtures/QUIRKS.md.

use serde_json::{json, Value};

use super::{check, check_clean, sse, Case};
use crate::provider::Wire;
use crate::wire::repair::RepairKind as K;

fn chunk(parts: Value) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
}

fn last(parts: Value) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
}

fn call(id: Option<&str>, name: &str, args: Value) -> Value {
    let mut call = json!({"name": name, "args": args});
    if let Some(id) = id {
        call["id"] = json!(id);
    }
    json!({"functionCall": call})
}

fn case(kind: K, events: &[Value], expected: &[(K, Option<u64>)]) -> Case {
    Case {
        kind,
        wire: Wire::Gemini,
        body: sse(events),
        expected: expected.to_vec(),
    }
}

fn missing_id() -> Case {
    // Gemini before version 3 sends no ids.
    case(
        K::MissingId,
        &[last(json!([call(None, "read", json!({"path": "a"}))]))],
        &[(K::MissingId, Some(0))],
    )
}

fn duplicate_call_id() -> Case {
    // Two parallel calls under one id.
    case(
        K::DuplicateCallId,
        &[last(json!([
            call(Some("fc_1"), "read", json!({"path": "a"})),
            call(Some("fc_1"), "read", json!({"path": "b"}))
        ]))],
        &[(K::DuplicateCallId, Some(1))],
    )
}

/// A call streamed as partialArgs (Vertex `streamFunctionCallArguments`, Gemini 3).
fn streamed(terminator: bool) -> Vec<Value> {
    let mut events = vec![
        chunk(json!([{"functionCall": {"id": "fc_1", "name": "read", "willContinue": true}}])),
        chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.path", "stringValue": "a"}],
            "willContinue": true}}]),
        ),
    ];
    if terminator {
        events.push(chunk(json!([{"functionCall": {}}])));
    }
    events.push(last(json!([{"text": ""}])));
    events
}

fn partial_args_streaming() -> Case {
    // QUIRK 27 (fixtures google-stream-*): nameless parts continue the call.
    case(
        K::PartialArgsStreaming,
        &streamed(true),
        &[(K::PartialArgsStreaming, Some(0))],
    )
}

fn missing_terminal_function_call() -> Case {
    // Fixture google-stream-tool-call-array-arguments-missing-terminal-function-call: no `{}`.
    case(
        K::MissingTerminalFunctionCall,
        &streamed(false),
        &[
            (K::PartialArgsStreaming, Some(0)),
            (K::MissingTerminalFunctionCall, Some(0)),
        ],
    )
}

/// A streamed call whose last `partialArgs` part has no `willContinue`, then maybe the `{}`.
fn last_part(terminator: bool) -> Vec<Value> {
    let mut events = vec![
        chunk(json!([{"functionCall": {"name": "read", "id": "fc_1", "willContinue": true}}])),
        chunk(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.path", "stringValue": "a"}]}}]),
        ),
    ];
    if terminator {
        events.push(chunk(json!([{"functionCall": {}}])));
    }
    events.push(last(json!([{"text": ""}])));
    events
}

fn missing_terminal_after_the_last_part() -> Case {
    // The fixture's shape: the last partialArgs part ends the call, no `{}` follows it.
    case(
        K::MissingTerminalFunctionCall,
        &last_part(false),
        &[
            (K::PartialArgsStreaming, Some(0)),
            (K::MissingTerminalFunctionCall, Some(0)),
        ],
    )
}

fn whole_response() -> Case {
    // The unary `generateContent` body (fixture unary-success-function-call-*).
    Case {
        kind: K::WholeResponse,
        wire: Wire::Gemini,
        body: last(json!([call(Some("fc_1"), "read", json!({"path": "a"}))])).to_string(),
        expected: vec![(K::WholeResponse, None)],
    }
}

/// Every stream of this wire.
pub(super) fn cases() -> Vec<Case> {
    vec![
        missing_id(),
        duplicate_call_id(),
        partial_args_streaming(),
        missing_terminal_function_call(),
        missing_terminal_after_the_last_part(),
        whole_response(),
    ]
}

#[test]
fn a_clean_stream_reports_no_repair() {
    check_clean(
        Wire::Gemini,
        &sse(&[last(json!([call(
            Some("fc_1"),
            "read",
            json!({"path": "a"})
        )]))]),
    );
    // A JSON array stream is a stream, not a whole response.
    let array = format!(
        "[{}]",
        last(json!([call(Some("fc_1"), "read", json!({"path": "a"}))]))
    );
    check_clean(Wire::Gemini, &array);
}

#[test]
fn missing_id_is_reported() {
    check(&missing_id());
}

#[test]
fn duplicate_call_id_is_reported() {
    let got = check(&duplicate_call_id());
    assert_eq!(
        got[0].2.as_deref(),
        Some("\"fc_1\" was an earlier call's id")
    );
}

#[test]
fn partial_args_streaming_is_reported() {
    check(&partial_args_streaming());
}

#[test]
fn missing_terminal_function_call_is_reported() {
    check(&missing_terminal_function_call());
}

#[test]
fn missing_terminal_after_the_last_part_is_reported() {
    check(&missing_terminal_after_the_last_part());
}

#[test]
fn a_terminator_after_the_last_part_is_no_missing_terminal() {
    let decoded =
        crate::wire::test_support::decode_body(Wire::Gemini, &[sse(&last_part(true)).as_bytes()]);
    assert_eq!(
        decoded.turn["repairs"],
        json!([{"kind": "partial-args-streaming", "callIndex": 0}])
    );
    assert_eq!(decoded.calls()[0]["arguments"], "{\"path\":\"a\"}");
}

#[test]
fn a_streamed_call_cut_by_the_end_of_the_body_is_not_repaired() {
    // No finish and no terminator: the call is cut, nothing ended it.
    let mut events = streamed(false);
    events.pop();
    let decoded = crate::wire::test_support::decode_body(Wire::Gemini, &[sse(&events).as_bytes()]);
    assert_eq!(
        decoded.turn["repairs"],
        json!([{"kind": "partial-args-streaming", "callIndex": 0}])
    );
    assert_eq!(decoded.calls()[0]["complete"], false);
}

#[test]
fn whole_response_is_reported() {
    check(&whole_response());
}
