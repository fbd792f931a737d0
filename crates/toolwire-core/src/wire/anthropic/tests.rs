//! The Anthropic decoder's own rules: a whole message cut by `max_tokens`, block events without
//! an `index`, and a block started twice. (The provider quirks have their named tests in
//! `quirk_tests/anthropic.rs`, the repairs in `repair_tests/anthropic.rs`.)

use serde_json::{json, Value};

use crate::provider::Wire;
use crate::wire::test_support::{decode_body, decode_values, Decoded};
use crate::wire::turn::DecoderOptions;

fn decode(events: &[Value]) -> Decoded {
    decode_values(Wire::Anthropic, DecoderOptions::default(), events)
}

fn message_start() -> Value {
    json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}})
}

fn tool_start(index: Option<u64>, id: &str, name: &str) -> Value {
    with_index(
        json!({"type": "content_block_start",
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        index,
    )
}

fn text_start(index: Option<u64>) -> Value {
    with_index(
        json!({"type": "content_block_start", "content_block": {"type": "text", "text": ""}}),
        index,
    )
}

fn input_delta(index: Option<u64>, partial: &str) -> Value {
    with_index(
        json!({"type": "content_block_delta",
            "delta": {"type": "input_json_delta", "partial_json": partial}}),
        index,
    )
}

fn text_delta(index: Option<u64>, text: &str) -> Value {
    with_index(
        json!({"type": "content_block_delta", "delta": {"type": "text_delta", "text": text}}),
        index,
    )
}

fn block_stop(index: Option<u64>) -> Value {
    with_index(json!({"type": "content_block_stop"}), index)
}

/// A whole `tool_use` block at `index`: its start, its arguments in one fragment, its stop.
fn call_block(index: u64, id: &str, name: &str, arguments: &str) -> [Value; 3] {
    [
        tool_start(Some(index), id, name),
        input_delta(Some(index), arguments),
        block_stop(Some(index)),
    ]
}

/// The blocks, one after the other.
fn blocks<const N: usize>(blocks: &[[Value; N]]) -> Vec<Value> {
    blocks.iter().flatten().cloned().collect()
}

fn with_index(mut event: Value, index: Option<u64>) -> Value {
    if let Some(index) = index {
        event["index"] = json!(index);
    }
    event
}

fn message_end(stop: &str) -> [Value; 2] {
    [
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 20}}),
        json!({"type": "message_stop"}),
    ]
}

/// The events, then the message's end with `stop`.
fn stream(events: &[Value], stop: &str) -> Vec<Value> {
    let mut all = vec![message_start()];
    all.extend_from_slice(events);
    all.extend(message_end(stop));
    all
}

fn repair_kinds(decoded: &Decoded) -> Vec<(String, Option<u64>)> {
    decoded.turn["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["callIndex"].as_u64(),
            )
        })
        .collect()
}

fn repair(kind: &str, call: Option<u64>) -> (String, Option<u64>) {
    (kind.to_owned(), call)
}

fn error_kinds(decoded: &Decoded) -> Vec<&str> {
    decoded.turn["errorKinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect()
}

// --- A whole message stopped by max_tokens ---------------------------------------------------

#[test]
fn a_whole_max_tokens_message_keeps_every_tool_use_input_and_cuts_only_the_last_block() {
    // A non-streamed message is read as its stream: every block but the last was followed by
    // another, so its stream closed it (content_block_stop); the last one the limit may have cut
    // mid-input, as a streamed max_tokens cut does (fixture incomplete_partial_json_response).
    let message = json!({"id": "msg_1", "type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Writing both."},
        {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {"path": "a", "text": "x"}},
        {"type": "tool_use", "id": "toolu_2", "name": "write", "input": {"path": "b"}}],
        "stop_reason": "max_tokens", "usage": {"input_tokens": 5, "output_tokens": 100}});
    let d = decode_body(Wire::Anthropic, &[message.to_string().as_bytes()]);
    let calls = d.calls();
    assert_eq!(calls[0]["arguments"], r#"{"path":"a","text":"x"}"#);
    assert_eq!(calls[0]["complete"], true);
    assert_eq!(
        calls[1]["arguments"], r#"{"path":"b"}"#,
        "the input is kept"
    );
    assert_eq!(calls[1]["complete"], false);
    assert_eq!(calls[1]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    assert_eq!(d.stop(), "length");
    assert_eq!(d.turn["rawStopReason"], "max_tokens");
    assert_eq!(d.turn["text"], "Writing both.");
    assert_eq!(repair_kinds(&d), vec![repair("whole-response", None)]);
}

#[test]
fn a_whole_max_tokens_message_ending_in_text_keeps_its_calls_complete() {
    let message = json!({"id": "msg_1", "type": "message", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
        {"type": "text", "text": "and then I"}],
        "stop_reason": "max_tokens"});
    let d = decode_body(Wire::Anthropic, &[message.to_string().as_bytes()]);
    assert_eq!(
        d.summary(),
        vec![(
            "toolu_1".into(),
            "read".into(),
            r#"{"path":"a"}"#.into(),
            true
        )]
    );
    assert_eq!(d.stop(), "length");
}

#[test]
fn a_whole_message_with_another_stop_keeps_every_input_complete() {
    let message = json!({"id": "msg_1", "type": "message", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}],
        "stop_reason": "tool_use"});
    let d = decode_body(Wire::Anthropic, &[message.to_string().as_bytes()]);
    let args: Vec<(&str, bool)> = d
        .calls()
        .iter()
        .map(|c| (c["arguments"].as_str().unwrap(), c["complete"] == true))
        .collect();
    assert_eq!(args, vec![(r#"{"path":"a"}"#, true), ("{}", true)]);
    assert_eq!(d.stop(), "toolUse");
}

#[test]
fn a_streamed_call_cut_by_max_tokens_keeps_the_input_its_start_carried() {
    // Programmatic tool calling puts the input whole in content_block_start; a max_tokens stop
    // before its content_block_stop cuts the call, and what arrived is still shown.
    let start = json!({"type": "content_block_start", "index": 0, "content_block":
        {"type": "tool_use", "id": "toolu_1", "name": "roll", "input": {"player": "p1"}}});
    let d = decode(&stream(&[start], "max_tokens"));
    assert_eq!(d.calls()[0]["arguments"], r#"{"player":"p1"}"#);
    assert_eq!(d.calls()[0]["complete"], false);
    assert_eq!(d.calls()[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
}

// --- Events without an index -----------------------------------------------------------------

#[test]
fn sequential_blocks_without_indexes_decode_as_with_them() {
    // Each block opens after the one before it closed: every event belongs to the one open block.
    let events = |index: fn(u64) -> Option<u64>| {
        stream(
            &[
                text_start(index(0)),
                text_delta(index(0), "Reading."),
                block_stop(index(0)),
                tool_start(index(1), "toolu_1", "read"),
                input_delta(index(1), ""),
                input_delta(index(1), "{\"path\":"),
                input_delta(index(1), "\"a\"}"),
                block_stop(index(1)),
                tool_start(index(2), "toolu_2", "list"),
                input_delta(index(2), "{}"),
                block_stop(index(2)),
            ],
            "tool_use",
        )
    };
    let with = decode(&events(Some));
    let without = decode(&events(|_| None));
    assert_eq!(without.summary(), with.summary());
    assert_eq!(without.turn["text"], "Reading.");
    assert_eq!(without.stop(), "toolUse");
    assert_eq!(error_kinds(&without), Vec::<&str>::new());
    assert_eq!(
        repair_kinds(&without),
        vec![
            repair("missing-index", None),
            repair("missing-index", Some(0)),
            repair("missing-index", Some(1)),
        ]
    );
    assert_eq!(repair_kinds(&with), vec![]);
}

#[test]
fn a_block_start_without_index_takes_the_next_index_so_indexed_events_find_it() {
    let mut events = call_block(0, "toolu_1", "read", "{}").to_vec();
    events.push(tool_start(None, "toolu_2", "list"));
    events.push(input_delta(Some(1), "{\"dir\":\"/\"}"));
    events.push(block_stop(Some(1)));
    let d = decode(&stream(&events, "tool_use"));
    assert_eq!(d.calls()[1]["arguments"], "{\"dir\":\"/\"}");
    assert_eq!(d.calls()[1]["complete"], true);
    assert_eq!(repair_kinds(&d), vec![repair("missing-index", Some(1))]);
}

#[test]
fn an_argument_fragment_without_index_among_two_open_calls_cuts_both() {
    // Which call lost the fragment cannot be told: neither may run with arguments it never got.
    let d = decode(&stream(
        &[
            tool_start(Some(0), "toolu_1", "read"),
            tool_start(Some(1), "toolu_2", "read"),
            input_delta(Some(0), "{\"path\":"),
            input_delta(None, "\"a\"}"),
            input_delta(Some(1), "{}"),
            block_stop(Some(0)),
            block_stop(Some(1)),
        ],
        "tool_use",
    ));
    assert_eq!(error_kinds(&d), vec!["missing-block-index"]);
    let message = d.turn["errors"][0].as_str().unwrap();
    assert!(message.contains("content_block_delta"), "{message}");
    for call in d.calls() {
        assert_eq!(call["complete"], false, "{call}");
        assert_eq!(call["error"]["code"], "INCOMPLETE_ARGUMENTS");
    }
    assert_ne!(d.stop(), "toolUse");
}

#[test]
fn an_argument_fragment_without_index_and_no_open_call_is_an_error() {
    let mut events = call_block(0, "toolu_1", "read", "{}").to_vec();
    events.push(input_delta(None, "{\"path\":\"b\"}"));
    let d = decode(&stream(&events, "tool_use"));
    assert_eq!(error_kinds(&d), vec!["missing-block-index"]);
    assert_eq!(d.calls()[0]["arguments"], "{}");
}

#[test]
fn an_argument_fragment_for_a_block_never_started_is_an_error() {
    let mut events = call_block(0, "toolu_1", "read", "{}").to_vec();
    events.push(input_delta(Some(4), "{\"path\":\"b\"}"));
    let d = decode(&stream(&events, "tool_use"));
    assert_eq!(error_kinds(&d), vec!["arguments-for-unknown-item"]);
    assert!(d.turn["errors"][0].as_str().unwrap().contains("index 4"));
}

#[test]
fn text_without_index_is_kept_whatever_blocks_are_open() {
    // The turn's text is one string: a text delta means the same wherever it belongs.
    let d = decode(&stream(
        &[
            text_start(Some(0)),
            tool_start(Some(1), "toolu_1", "read"),
            text_delta(None, "Hello"),
            text_delta(Some(0), " there"),
            input_delta(Some(1), "{}"),
            block_stop(Some(0)),
            block_stop(Some(1)),
        ],
        "tool_use",
    ));
    assert_eq!(d.turn["text"], "Hello there");
    assert_eq!(d.calls()[0]["complete"], true);
    assert_eq!(repair_kinds(&d), vec![repair("missing-index", None)]);
    assert_eq!(error_kinds(&d), Vec::<&str>::new());
}

#[test]
fn a_block_stop_without_index_among_two_open_blocks_is_an_error_and_closes_none() {
    let d = decode(&stream(
        &[
            tool_start(Some(0), "toolu_1", "read"),
            tool_start(Some(1), "toolu_2", "read"),
            input_delta(Some(0), "{}"),
            input_delta(Some(1), "{}"),
            block_stop(None),
        ],
        "tool_use",
    ));
    assert_eq!(error_kinds(&d), vec!["missing-block-index"]);
    assert!(d.turn["errors"][0]
        .as_str()
        .unwrap()
        .contains("content_block_stop"));
    // Every fragment arrived; the message's end ends both (block-not-closed).
    assert!(d.calls().iter().all(|c| c["complete"] == true));
    assert_eq!(
        repair_kinds(&d),
        vec![
            repair("block-not-closed", Some(0)),
            repair("block-not-closed", Some(1))
        ]
    );
}

#[test]
fn an_event_without_its_block_or_delta_is_reported() {
    let d = decode(&stream(
        &[
            json!({"type": "content_block_start", "index": 0}),
            json!({"type": "content_block_delta", "index": 0}),
        ],
        "end_turn",
    ));
    assert_eq!(
        error_kinds(&d),
        vec!["unreadable-event", "unreadable-event"]
    );
}

// --- A block started twice -------------------------------------------------------------------

#[test]
fn a_repeated_tool_use_start_is_one_call() {
    // The same content_block_start sent twice (a relay repeating an event): like a Responses
    // item announced twice, or an OpenAI Chat call opened twice, it is one call.
    let d = decode(&stream(
        &[
            tool_start(Some(0), "toolu_1", "read"),
            tool_start(Some(0), "toolu_1", "read"),
            input_delta(Some(0), "{\"path\":\"a\"}"),
            block_stop(Some(0)),
        ],
        "tool_use",
    ));
    assert_eq!(
        d.summary(),
        vec![(
            "toolu_1".into(),
            "read".into(),
            "{\"path\":\"a\"}".into(),
            true
        )]
    );
    assert_eq!(repair_kinds(&d), vec![repair("repeated-start", Some(0))]);
    assert_eq!(d.of_type("toolcall_start").len(), 1);
}

#[test]
fn a_repeated_thinking_start_keeps_one_block() {
    let thinking = json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "thinking", "thinking": ""}});
    let d = decode(&stream(
        &[
            thinking.clone(),
            thinking,
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "signature_delta", "signature": "sig"}}),
            block_stop(Some(0)),
        ],
        "end_turn",
    ));
    assert_eq!(
        d.turn["thinking"],
        json!([{"text": "hmm", "signature": "sig"}])
    );
    assert_eq!(repair_kinds(&d), vec![repair("repeated-start", None)]);
}

#[test]
fn a_later_block_under_an_earlier_calls_id_gets_a_generated_id() {
    // Two calls under one id: results are matched to calls by id, so the second gets a new one
    // (as Gemini's, Responses' and OpenAI Chat's duplicate ids do).
    let d = decode(&stream(
        &blocks(&[
            call_block(0, "toolu_1", "read", "{\"path\":\"a\"}"),
            call_block(1, "toolu_1", "read", "{\"path\":\"b\"}"),
        ]),
        "tool_use",
    ));
    let calls = d.calls();
    assert_eq!(calls[0]["id"], "toolu_1");
    let second = calls[1]["id"].as_str().unwrap();
    assert!(
        second.starts_with("call_") && second.len() == 29,
        "{second}"
    );
    assert_eq!(calls[1]["arguments"], "{\"path\":\"b\"}");
    assert!(calls.iter().all(|c| c["complete"] == true));
    assert_eq!(
        d.turn["repairs"],
        json!([{"kind": "duplicate-call-id", "callIndex": 1,
            "detail": "\"toolu_1\" was an earlier call's id"}])
    );
}

#[test]
fn a_start_at_the_index_of_an_open_call_for_another_block_cuts_the_open_call() {
    let d = decode(&stream(
        &[
            tool_start(Some(0), "toolu_1", "read"),
            input_delta(Some(0), "{\"path\":"),
            tool_start(Some(0), "toolu_2", "list"),
            input_delta(Some(0), "{}"),
            block_stop(Some(0)),
        ],
        "tool_use",
    ));
    assert_eq!(error_kinds(&d), vec!["block-index-reused"]);
    let calls = d.calls();
    assert_eq!(calls[0]["complete"], false);
    assert_eq!(calls[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    assert_eq!(calls[1]["id"], "toolu_2");
    assert_eq!(calls[1]["complete"], true);
}

#[test]
fn a_block_on_the_index_of_a_closed_block_is_a_call_of_its_own() {
    let d = decode(&stream(
        &blocks(&[
            call_block(0, "toolu_1", "read", "{}"),
            call_block(0, "toolu_2", "list", "{}"),
        ]),
        "tool_use",
    ));
    let ids: Vec<&str> = d
        .calls()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["toolu_1", "toolu_2"]);
    assert!(d.calls().iter().all(|c| c["complete"] == true));
    assert_eq!(repair_kinds(&d), vec![repair("index-reused", Some(1))]);
}
