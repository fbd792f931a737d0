//! `StreamDecoder::push_event` on any events: the body (decoded lossily as UTF-8) is cut at
//! newlines into JSON texts, each fed with `push_event`. Header: `[wire, options]` (wire: byte
//! modulo 5 over Chat, Responses, Anthropic, Gemini, Mistral).
//! - no panic; every answer is JSON; the turn keeps its invariants;
//! - when every non-blank line is one JSON object, pushing the lines as events gives the same
//!   turn as pushing the body as NDJSON bytes (generated call ids blanked, and the quoted
//!   beginning of a body no wire understood: events are quoted side by side).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::provider::Wire;
use toolwire_fuzz::{
    assert_json, blank_body_quotes, blank_generated_ids, decode, finish, header, is_json,
    new_decoder,
};

const WIRES: [Wire; 5] = Wire::ALL;

fuzz_target!(|data: &[u8]| {
    let ([wire, flags], body) = header::<2>(data);
    let wire = WIRES[usize::from(wire) % WIRES.len()];
    let text = String::from_utf8_lossy(body);

    let mut decoder = new_decoder(wire, flags);
    for line in text.split('\n') {
        assert_json("push_event() events", &decoder.push_event(line));
    }
    finish(&mut decoder);

    let events: Vec<&str> = text
        .split('\n')
        .map(|line| line.trim_matches(|c| matches!(c, ' ' | '\t' | '\r')))
        .filter(|line| !line.is_empty())
        .collect();
    if events.iter().all(|e| e.starts_with('{') && is_json(e)) {
        let mut decoder = new_decoder(wire, flags);
        for event in &events {
            assert_json("push_event() events", &decoder.push_event(event));
        }
        let from_events = blank_body_quotes(&blank_generated_ids(&finish(&mut decoder)));
        let from_bytes = blank_body_quotes(&blank_generated_ids(&decode(
            wire,
            flags,
            &[text.as_bytes()],
        )));
        assert!(
            from_events == from_bytes,
            "push_event and NDJSON push disagree\n events: {from_events}\n  bytes: {from_bytes}"
        );
    }
});
