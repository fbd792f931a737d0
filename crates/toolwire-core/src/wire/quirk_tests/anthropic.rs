//! Anthropic Messages quirks (QUIRKS.md 20-24, WIRE.md section 3).

use super::{decode_body, decode_events, Decoded};
use crate::provider::Wire;

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

fn tool_start(index: u32, id: &str, name: &str, input: &str) -> String {
    format!(
        r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}}}"#
    )
}

fn json_delta(index: u32, partial: &str) -> String {
    format!(
        r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta","partial_json":{}}}}}"#,
        serde_json::to_string(partial).unwrap()
    )
}

fn block_stop(index: u32) -> String {
    format!(r#"{{"type":"content_block_stop","index":{index}}}"#)
}

fn message_delta(stop: &str) -> String {
    format!(
        r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop}","stop_sequence":null}},"usage":{{"output_tokens":28}}}}"#
    )
}

fn anthropic(chunks: &[String]) -> Decoded {
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    decode_events(Wire::Anthropic, "", &refs)
}

fn call(id: &str, name: &str, arguments: &str) -> (String, String, String, bool) {
    (id.into(), name.into(), arguments.into(), true)
}

#[test]
fn quirk_20_empty_partial_json_means_an_empty_object() {
    // Every real recording of a no-argument tool (litellm#5063; fixture llm-anthropic-test-tools).
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "pelican", "{}"),
        json_delta(0, ""),
        block_stop(0),
        tool_start(1, "toolu_2", "pelican", "{}"),
        json_delta(1, ""),
        block_stop(1),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(
        d.summary(),
        vec![
            call("toolu_1", "pelican", "{}"),
            call("toolu_2", "pelican", "{}")
        ]
    );
    assert_eq!(d.stop(), "toolUse");
}

#[test]
fn quirk_21_fragments_are_joined_before_parsing() {
    // Parsing each fragment separately loses every multi-fragment input (ai-agent-book#194).
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "weather", "{}"),
        json_delta(0, ""),
        json_delta(0, "{\"location\": \"San Fra"),
        json_delta(0, "ncisco\"}"),
        block_stop(0),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(
        d.summary(),
        vec![call(
            "toolu_1",
            "weather",
            r#"{"location": "San Francisco"}"#
        )]
    );
}

#[test]
fn quirk_22_eager_streaming_invalid_json_is_reported_not_run() {
    // Fine-grained tool streaming gives invalid JSON (anthropic-sdk-python#794).
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "write", "{}"),
        json_delta(0, "{\"text\": \"unterminated"),
        block_stop(0),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(d.calls()[0]["complete"], false);
    assert_eq!(d.calls()[0]["error"]["code"], "INVALID_JSON");
    assert_eq!(d.stop(), "stop", "no complete call: not a tool turn");
}

#[test]
fn quirk_22_max_tokens_cuts_an_open_tool_use() {
    // Fixture incomplete_partial_json_response: no content_block_stop for the cut block.
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "make_file", "{}"),
        json_delta(0, "{\"filename\": \"taxes.txt\", \"lines\": [\"# GUIDE"),
        message_delta("max_tokens"),
        STOP.into(),
    ]);
    assert_eq!(d.calls()[0]["complete"], false);
    assert_eq!(d.calls()[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    assert_eq!(d.stop(), "length");
    assert_eq!(d.turn["rawStopReason"], "max_tokens");
}

#[test]
fn quirk_23_duplicate_message_start_is_ignored() {
    // vercel/ai#18402 (fixture duplicate-message-start).
    let d = anthropic(&[
        START.into(),
        START.into(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            .into(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#
            .into(),
        block_stop(0),
        message_delta("end_turn"),
        STOP.into(),
    ]);
    assert_eq!(d.turn["text"], "Hello");
    assert!(d.turn["errors"].as_array().unwrap().is_empty());
    assert_eq!(d.stop(), "stop");
}

#[test]
fn quirk_23_a_spliced_second_message_is_an_error_and_nothing_of_it_is_taken() {
    // vercel/ai#18402 (fixture spliced-message-start).
    let second = START.replace("msg_1", "msg_2");
    let d = anthropic(&[
        START.into(),
        tool_start(1, "toolu_first", "test-tool", "{}"),
        json_delta(1, "{\"value\":\"Spark"),
        second,
        tool_start(1, "toolu_second", "test-tool", "{}"),
        json_delta(1, "{\"value\":\"Sparkle Day\"}"),
        block_stop(1),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(d.calls().len(), 1, "no call from the spliced message");
    assert_eq!(d.calls()[0]["id"], "toolu_first");
    assert_eq!(d.calls()[0]["complete"], false);
    assert_eq!(d.stop(), "error");
    assert!(d.turn["errors"][0].as_str().unwrap().contains("spliced"));
}

#[test]
fn quirk_24_thinking_text_and_signatures_are_kept() {
    // Thinking must be sent back unmodified (spring-ai#3513; fixture llm-anthropic-tool-chain-thinking).
    let d = anthropic(&[
        START.into(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#.into(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}"#.into(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":""}}"#.into(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" call it."}}"#.into(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EoQDsig"}}"#.into(),
        block_stop(0),
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}"#.into(),
        block_stop(1),
        tool_start(2, "toolu_1", "fixed_version", "{}"),
        json_delta(2, ""),
        block_stop(2),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(d.turn["thinking"][0]["text"], "Let me call it.");
    assert_eq!(d.turn["thinking"][0]["signature"], "EoQDsig");
    assert_eq!(d.turn["thinking"][1]["redacted"], "opaque");
    assert_eq!(d.of_type("thinking_delta").len(), 2);
    assert_eq!(d.summary(), vec![call("toolu_1", "fixed_version", "{}")]);
}

#[test]
fn input_that_arrives_whole_in_content_block_start_is_used() {
    // Programmatic tool calling (fixture anthropic-programmatic-tool-calling.1, message 0).
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "rollDie", r#"{"player": "player1"}"#),
        block_stop(0),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(
        d.summary(),
        vec![call("toolu_1", "rollDie", r#"{"player":"player1"}"#)]
    );
}

#[test]
fn a_tool_use_inside_message_start_then_message_stop_is_complete() {
    // Programmatic tool calling (fixture anthropic-programmatic-tool-calling.1, messages 1-13).
    let start = r#"{"type":"message_start","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_9","name":"rollDie","input":{"player":"player2"},"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_1"}}],"stop_reason":"tool_use"}}"#;
    let d = anthropic(&[start.into(), STOP.into()]);
    assert_eq!(
        d.summary(),
        vec![call("toolu_9", "rollDie", r#"{"player":"player2"}"#)]
    );
    assert_eq!(
        d.calls()[0]["providerMetadata"]["caller"]["type"],
        "code_execution_20250825"
    );
    assert_eq!(d.stop(), "toolUse");
}

#[test]
fn server_tool_use_goes_to_server_tool_calls() {
    // Tool search and code execution run at Anthropic (fixture pydantic-anthropic-native-tool-search-streaming).
    let d = anthropic(&[
        START.into(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_bm25","input":{}}}"#.into(),
        json_delta(0, "{\"query\": \"rates\"}"),
        block_stop(0),
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{}}}"#.into(),
        block_stop(1),
        tool_start(2, "toolu_1", "get_rate", "{}"),
        json_delta(2, "{}"),
        block_stop(2),
        message_delta("tool_use"),
        STOP.into(),
    ]);
    assert_eq!(d.summary(), vec![call("toolu_1", "get_rate", "{}")]);
    let server = d.turn["serverToolCalls"].as_array().unwrap();
    assert_eq!(server.len(), 1);
    assert_eq!(server[0]["arguments"], r#"{"query": "rates"}"#);
    assert_eq!(server[0]["providerMetadata"]["type"], "server_tool_use");
    assert!(d
        .of_type("toolcall_start")
        .iter()
        .all(|e| e["name"] != "tool_search_tool_bm25"));
}

#[test]
fn whitespace_padding_inside_event_json_is_harmless() {
    // Every real Anthropic SSE recording pads its JSON before the final brace.
    let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[]}}   \n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":{}}         }\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}       }\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0       }\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"   }\n\n";
    let d = decode_body(Wire::Anthropic, &[body.as_bytes()]);
    assert_eq!(d.summary(), vec![call("t", "n", "{}")]);
}

#[test]
fn a_mid_stream_error_event_ends_the_turn_as_error() {
    // `event: error` {"type":"error","error":{"type":"overloaded_error",...}} (WIRE.md section 0).
    let d = anthropic(&[
        START.into(),
        tool_start(0, "toolu_1", "w", "{}"),
        json_delta(0, "{\"a\":"),
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.into(),
    ]);
    assert_eq!(d.stop(), "error");
    assert_eq!(d.calls()[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    assert!(d.turn["errors"][0]
        .as_str()
        .unwrap()
        .contains("overloaded_error"));
}

#[test]
fn usage_combines_message_start_and_message_delta() {
    let d = anthropic(&[START.into(), message_delta("end_turn"), STOP.into()]);
    assert_eq!(d.turn["usage"]["inputTokens"], 10);
    assert_eq!(d.turn["usage"]["outputTokens"], 28);
}

#[test]
fn a_message_after_the_turn_ended_is_not_taken_even_when_the_first_start_was_unreadable() {
    // Found by the decode_anthropic fuzz target: a mangled first message_start, then a whole
    // second message (programmatic tool calling) after message_stop. The mangled event is lost:
    // the turn is broken, and its call, ended after the loss, is cut.
    let late = r#"{"type":"message_start","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_late","name":"rollDie","input":{"player":"p2"}}]}}"#;
    let d = anthropic(&[
        "{\"type\":\"message_start\",\"message\":{\"id\":\"m\u{1}".into(),
        tool_start(0, "toolu_1", "w", "{}"),
        json_delta(0, "{}"),
        block_stop(0),
        message_delta("tool_use"),
        STOP.into(),
        late.into(),
        STOP.into(),
    ]);
    let (id, name, arguments, complete) = d.summary().remove(0);
    assert_eq!(
        (id.as_str(), name.as_str(), arguments.as_str(), complete),
        ("toolu_1", "w", "{}", false)
    );
    assert_eq!(d.calls().len(), 1);
    assert_eq!(d.stop(), "error");
    assert!(d.turn["errors"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e.as_str().unwrap().contains("second message")));
}
