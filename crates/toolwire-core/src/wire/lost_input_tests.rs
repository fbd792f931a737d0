//! Input lost on the way (an event garbled by a proxy, one over the size limit, call data of a
//! shape that has no place) breaks the turn: for every wire and every framing, a stream with
//! calls decodes, with any one of its events garbled, either to the turn it gives whole (the
//! event came after the turn's end) or to a turn with stop reason `error` in which every call
//! that is complete is one of the stream's calls, as sent (a call sealed whole in one event,
//! before or after the loss). Never a turn that ends well with other calls, and never a
//! complete call with arguments the model did not send: found by an attack (`{"step":` + a
//! garbled `1` + `0}` ran a transfer with `{"step":0}`; on Chat Completions the middle of three
//! calls vanished and the turn ended `toolUse`).

use serde_json::{json, Value};

use super::test_support::{decode_body, decode_with, Decoded};
use super::turn::DecoderOptions;
use crate::provider::Wire;

/// How a stream's events travel.
#[derive(Clone, Copy, Debug)]
enum Framing {
    /// Each event pushed as parsed JSON text (`pushEvent`).
    Events,
    /// Server-Sent Events, a comment and a blank keep-alive between events.
    Sse,
    /// One JSON value per line.
    Ndjson,
    /// One JSON array of the events (Gemini's stream without `alt=sse`).
    JsonArray,
}

fn decode(wire: Wire, framing: Framing, events: &[String]) -> Decoded {
    let body = match framing {
        Framing::Events => {
            let texts: Vec<&str> = events.iter().map(String::as_str).collect();
            return decode_with(wire, DecoderOptions::default(), &texts);
        }
        Framing::Sse => events
            .iter()
            .map(|e| format!(": keep-alive\n\ndata: {e}\n\n"))
            .collect::<String>(),
        Framing::Ndjson => events.iter().map(|e| format!("{e}\n")).collect(),
        Framing::JsonArray => format!("[{}]", events.join(",\r\n")),
    };
    decode_body(wire, &[body.as_bytes()])
}

/// `(id, name, arguments)` of each complete client call, in the turn and in the
/// `toolcall_end` events (what a consumer of the events is handed).
fn complete_calls(d: &Decoded) -> Vec<(String, String, String)> {
    let ended = d.of_type("toolcall_end");
    let in_events = ended.iter().map(|e| &e["toolCall"]);
    d.calls()
        .iter()
        .chain(in_events)
        .filter(|c| c["complete"] == true)
        .map(|c| {
            let text = |key: &str| c[key].as_str().unwrap().to_owned();
            (text("id"), text("name"), text("arguments"))
        })
        .collect()
}

/// `text` cut after `percent` of its characters: never valid JSON for an object or array, nor
/// `[DONE]`.
fn cut(text: &str, percent: usize) -> String {
    let chars = text.chars().count();
    let keep = (chars * percent / 100).clamp(1, chars - 1);
    text.chars().take(keep).collect()
}

/// Garbles each event in turn, at three places, and checks what the turn says.
fn each_event_garbled(wire: Wire, framing: Framing, events: &[String]) {
    let whole = decode(wire, framing, events);
    let label = format!("{wire:?} {framing:?}");
    assert_ne!(whole.stop(), "error", "{label}: {}", whole.turn);
    assert_eq!(whole.turn["errors"], json!([]), "{label}");
    let sent = complete_calls(&whole);
    assert!(sent.len() >= 2, "{label}: {}", whole.turn);
    for at in 0..events.len() {
        for percent in [30, 50, 80] {
            let mut garbled = events.to_vec();
            garbled[at] = cut(&events[at], percent);
            let d = decode(wire, framing, &garbled);
            let what = format!("{label}, event {at} cut at {percent}%: {}", d.turn);
            assert!(
                !d.turn["errorKinds"].as_array().unwrap().is_empty(),
                "{what}"
            );
            if d.stop() == "error" {
                for call in complete_calls(&d) {
                    assert!(sent.contains(&call), "{what}: {call:?} was not sent");
                }
                for call in d.calls().iter().filter(|c| c["complete"] == false) {
                    assert!(call["error"]["code"].is_string(), "{what}");
                }
            } else {
                assert_eq!(d.summary(), whole.summary(), "{what}");
                assert_eq!(d.stop(), whole.stop(), "{what}");
            }
        }
    }
}

fn texts(events: &[Value]) -> Vec<String> {
    events.iter().map(Value::to_string).collect()
}

/// Three calls: one in fragments, one whole in one chunk, one in fragments after it.
fn chat_stream(mistral: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "r", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let call = |index: u64, head: bool, arguments: &str| {
        let mut c = json!({"function": {"arguments": arguments}});
        if !mistral {
            c["index"] = json!(index);
        }
        if head {
            c["id"] = json!(format!("call_{index}"));
            c["type"] = json!("function");
            c["function"]["name"] = json!("transfer");
        }
        chunk(json!({"tool_calls": [c]}), Value::Null)
    };
    let mut events = vec![
        chunk(
            json!({"role": "assistant", "content": "Moving "}),
            Value::Null,
        ),
        chunk(json!({"content": "money."}), Value::Null),
        call(0, true, ""),
        call(0, false, "{\"step\":"),
        call(0, false, "10}"),
    ];
    if mistral {
        // Mistral sends each call whole, without `index`.
        events.truncate(2);
        events.push(call(0, true, "{\"step\":10}"));
        events.push(call(1, true, "{\"step\":2}"));
        events.push(call(2, true, "{\"step\":3}"));
    } else {
        events.push(call(1, true, "{\"step\":2}"));
        events.push(call(2, true, "{\"st"));
        events.push(call(2, false, "ep\":3}"));
    }
    events.push(chunk(json!({}), json!("tool_calls")));
    events.push(
        json!({"id": "r", "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}),
    );
    let mut out = texts(&events);
    out.push("[DONE]".to_owned());
    out
}

/// A text block, a call in fragments, a call whose input came whole in its start, a ping.
fn anthropic_stream() -> Vec<String> {
    let delta = |index: u64, fragment: &str| {
        json!({"type": "content_block_delta", "index": index,
               "delta": {"type": "input_json_delta", "partial_json": fragment}})
    };
    texts(&[
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
            "role": "assistant", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Moving."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "transfer", "input": {}}}),
        delta(1, "{\"step\":"),
        delta(1, "1"),
        delta(1, "0}"),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block":
            {"type": "tool_use", "id": "toolu_2", "name": "transfer", "input": {}}}),
        delta(2, "{\"step\":2}"),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        json!({"type": "message_stop"}),
    ])
}

/// Two calls with deltas and `.done` events, a text item, unknown progress events.
fn responses_stream() -> Vec<String> {
    let mut events = vec![
        json!({"type": "response.created", "sequence_number": 0,
               "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        json!({"type": "response.in_progress", "sequence_number": 1,
               "response": {"id": "resp_1", "status": "in_progress"}}),
    ];
    let mut n = 2;
    let mut next = || {
        n += 1;
        n
    };
    for (index, (call_id, pieces)) in [
        ("call_1", ["{\"step\":", "1", "0}"]),
        ("call_2", ["{\"st", "ep\":", "2}"]),
    ]
    .iter()
    .enumerate()
    {
        let item_id = format!("fc_{index}");
        let item = |arguments: &str, status: &str| {
            json!({"type": "function_call", "id": item_id, "call_id": call_id,
                   "name": "transfer", "arguments": arguments, "status": status})
        };
        events.push(
            json!({"type": "response.output_item.added", "sequence_number": next(),
            "output_index": index, "item": item("", "in_progress")}),
        );
        for piece in pieces {
            events.push(json!({"type": "response.function_call_arguments.delta",
                "sequence_number": next(), "item_id": item_id, "output_index": index,
                "delta": piece}));
        }
        let full = pieces.concat();
        events.push(json!({"type": "response.function_call_arguments.done",
            "sequence_number": next(), "item_id": item_id, "output_index": index,
            "arguments": full}));
        events.push(
            json!({"type": "response.output_item.done", "sequence_number": next(),
            "output_index": index, "item": item(&full, "completed")}),
        );
    }
    events.push(
        json!({"type": "response.completed", "sequence_number": next(),
        "response": {"id": "resp_1", "status": "completed", "output": [],
                     "usage": {"input_tokens": 1, "output_tokens": 2}}}),
    );
    texts(&events)
}

/// Text, a whole call, a chunk with two whole calls, a call streamed with `partialArgs`, the
/// finish.
fn gemini_stream() -> Vec<String> {
    let parts =
        |parts: Value| json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
    let call = |id: &str, step: u64| json!({"functionCall": {"id": id, "name": "transfer", "args": {"step": step}}});
    texts(&[
        parts(json!([{"text": "Moving."}])),
        parts(json!([call("g1", 1)])),
        parts(json!([call("g2", 2), call("g3", 3)])),
        parts(json!([{"functionCall": {"id": "g4", "name": "transfer", "willContinue": true}}])),
        parts(
            json!([{"functionCall": {"partialArgs": [{"jsonPath": "$.step", "numberValue": 4}],
            "willContinue": true}}]),
        ),
        parts(json!([{"functionCall": {}}])),
        json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2}}),
    ])
}

#[test]
fn chat_completions_with_any_event_garbled() {
    for framing in [Framing::Events, Framing::Sse, Framing::Ndjson] {
        each_event_garbled(Wire::OpenAiChat, framing, &chat_stream(false));
        each_event_garbled(Wire::Mistral, framing, &chat_stream(true));
    }
}

#[test]
fn anthropic_with_any_event_garbled() {
    for framing in [Framing::Events, Framing::Sse, Framing::Ndjson] {
        each_event_garbled(Wire::Anthropic, framing, &anthropic_stream());
    }
}

#[test]
fn responses_with_any_event_garbled() {
    for framing in [Framing::Events, Framing::Sse, Framing::Ndjson] {
        each_event_garbled(Wire::OpenAiResponses, framing, &responses_stream());
    }
}

#[test]
fn gemini_with_any_event_garbled() {
    for framing in [
        Framing::Events,
        Framing::Sse,
        Framing::Ndjson,
        Framing::JsonArray,
    ] {
        each_event_garbled(Wire::Gemini, framing, &gemini_stream());
    }
}

/// The attack's two streams: the lost fragment and the lost middle call.
#[test]
fn the_attack_streams_run_nothing() {
    let mut events = anthropic_stream();
    events[7] = cut(&events[7], 80);
    let d = decode(Wire::Anthropic, Framing::Sse, &events);
    assert_eq!(d.stop(), "error");
    assert_eq!(d.calls()[0]["arguments"], "{\"step\":0}");
    assert_eq!(d.calls()[0]["complete"], false);
    assert_eq!(d.calls()[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    assert!(d.calls()[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("part of the stream was lost"));
    assert_eq!(d.turn["errorKinds"], json!(["unreadable-event"]));
    assert_eq!(d.of_type("done")[0]["stopReason"], "error");

    let mut events = chat_stream(false);
    events[5] = cut(&events[5], 80);
    let d = decode(Wire::OpenAiChat, Framing::Sse, &events);
    assert_eq!(d.stop(), "error");
    assert!(complete_calls(&d).is_empty(), "{}", d.turn);
    assert_eq!(d.turn["rawStopReason"], "tool_calls");
}

/// An event over the size limit is dropped: the turn lost it.
#[test]
fn an_oversized_event_breaks_the_turn() {
    let mut events = chat_stream(false);
    events.insert(4, format!("{{\"pad\":\"{}\"}}", "x".repeat(16 << 20)));
    let d = decode(Wire::OpenAiChat, Framing::Sse, &events);
    assert_eq!(d.stop(), "error");
    assert!(complete_calls(&d).is_empty(), "{}", d.turn["toolCalls"]);
    assert_eq!(d.turn["errorKinds"], json!(["oversized-event"]));
}

/// Call data under a shape that has no place is lost; unknown events without any are not.
#[test]
fn call_data_of_an_unknown_shape_breaks_the_turn_and_nothing_else_does() {
    let lost = [
        (
            Wire::Anthropic,
            7,
            json!({"type": "content_block_delta", "index": 1,
                   "delta": {"type": "input_json_dleta", "partial_json": "1"}}),
        ),
        (
            Wire::Anthropic,
            7,
            json!({"type": "content_block_dleta", "index": 1,
                   "delta": {"type": "input_json_delta", "partial_json": "1"}}),
        ),
        (
            Wire::Anthropic,
            7,
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta"}}),
        ),
        (
            Wire::Anthropic,
            10,
            json!({"type": "content_block_strat", "index": 2, "content_block":
                {"type": "tool_use", "id": "toolu_2", "name": "transfer", "input": {}}}),
        ),
        (Wire::Anthropic, 0, json!({"type": "message_start"})),
        (
            Wire::OpenAiResponses,
            4,
            json!({"type": "response.function_call_arguments.dleta",
                   "item_id": "fc_0", "output_index": 0, "delta": "1"}),
        ),
        (
            Wire::OpenAiResponses,
            4,
            json!({"item_id": "fc_0", "output_index": 0, "delta": "1"}),
        ),
    ];
    for (wire, at, replacement) in lost {
        let mut events = match wire {
            Wire::Anthropic => anthropic_stream(),
            _ => responses_stream(),
        };
        events[at] = replacement.to_string();
        let d = decode(wire, Framing::Events, &events);
        assert_eq!(d.stop(), "error", "{replacement}: {}", d.turn);
        // (the fragments of a call whose start was lost follow: they are lost too)
        assert_eq!(d.turn["errorKinds"][0], "unreadable-event", "{replacement}");
    }
    let benign = [
        (Wire::Anthropic, json!({"type": "ping"})),
        (
            Wire::Anthropic,
            json!({"type": "future_event", "detail": {"a": 1}}),
        ),
        (
            Wire::OpenAiResponses,
            json!({"type": "response.content_part.added", "item_id": "msg_1", "output_index": 9,
                   "part": {"type": "output_text", "text": ""}}),
        ),
        (
            Wire::OpenAiResponses,
            json!({"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 9}),
        ),
        (
            Wire::OpenAiChat,
            json!({"id": "r", "object": "chat.completion.chunk", "choices": [],
                   "prompt_filter_results": []}),
        ),
    ];
    for (wire, extra) in benign {
        let mut events = match wire {
            Wire::Anthropic => anthropic_stream(),
            Wire::OpenAiResponses => responses_stream(),
            _ => chat_stream(false),
        };
        let whole = decode(wire, Framing::Sse, &events);
        events.insert(2, extra.to_string());
        let d = decode(wire, Framing::Sse, &events);
        assert_eq!(d.summary(), whole.summary(), "{extra}");
        assert_eq!(d.stop(), "toolUse", "{extra}: {}", d.turn);
        assert_eq!(d.turn["errors"], json!([]), "{extra}");
    }
}

/// Lost after the turn's end, an event is only reported: the turn was whole.
#[test]
fn an_event_lost_after_the_end_is_only_reported() {
    let mut events = anthropic_stream();
    let whole = decode(Wire::Anthropic, Framing::Sse, &events);
    events.push("{\"type\":\"message_st".to_owned());
    let d = decode(Wire::Anthropic, Framing::Sse, &events);
    assert_eq!(d.summary(), whole.summary());
    assert_eq!(d.stop(), "toolUse");
    assert_eq!(d.turn["errorKinds"], json!(["unreadable-event"]));
}
