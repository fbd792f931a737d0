//! Test support shared by the decoders' tests: drive a [`StreamDecoder`] and read what it said.

use serde_json::Value;

use super::decoder::{parse_decoder_options, StreamDecoder};
use super::turn::DecoderOptions;
use crate::provider::{Provider, Wire};

/// What a decoder produced: every event, and the turn.
pub struct Decoded {
    pub events: Vec<Value>,
    pub turn: Value,
}

impl Decoded {
    /// The client tool calls.
    pub fn calls(&self) -> &Vec<Value> {
        self.turn["toolCalls"].as_array().expect("toolCalls")
    }

    /// `(id, name, arguments, complete)` of each client call.
    pub fn summary(&self) -> Vec<(String, String, String, bool)> {
        self.calls()
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_owned(),
                    c["name"].as_str().unwrap().to_owned(),
                    c["arguments"].as_str().unwrap().to_owned(),
                    c["complete"].as_bool().unwrap(),
                )
            })
            .collect()
    }

    /// The turn's stop reason.
    pub fn stop(&self) -> &str {
        self.turn["stopReason"].as_str().unwrap()
    }

    /// The events of one type.
    pub fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }
}

/// Decodes chunks given as JSON texts through `pushEvent`, with options as JSON text.
pub fn decode_events(wire: Wire, options: &str, chunks: &[&str]) -> Decoded {
    decode_with(wire, parse_decoder_options(options).unwrap(), chunks)
}

/// Decodes chunks given as JSON values through `pushEvent`.
pub fn decode_values(wire: Wire, options: DecoderOptions, chunks: &[Value]) -> Decoded {
    let texts: Vec<String> = chunks.iter().map(Value::to_string).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    decode_with(wire, options, &refs)
}

/// Decodes chunks given as JSON texts through `pushEvent`.
pub fn decode_with(wire: Wire, options: DecoderOptions, chunks: &[&str]) -> Decoded {
    let mut decoder = Provider::of(wire).stream_decoder(options);
    let mut events = Vec::new();
    for chunk in chunks {
        let pushed: Vec<Value> = serde_json::from_str(&decoder.push_event(chunk)).unwrap();
        events.extend(pushed);
    }
    finish(decoder, events)
}

/// Decodes a raw body pushed in the given pieces.
pub fn decode_body(wire: Wire, pieces: &[&[u8]]) -> Decoded {
    let mut decoder = Provider::of(wire).stream_decoder(Default::default());
    let mut events = Vec::new();
    for piece in pieces {
        let pushed: Vec<Value> = serde_json::from_str(&decoder.push(piece)).unwrap();
        events.extend(pushed);
    }
    finish(decoder, events)
}

fn finish(mut decoder: StreamDecoder, mut events: Vec<Value>) -> Decoded {
    let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
    let last: Vec<Value> = serde_json::from_str(&decoder.take_events()).unwrap();
    events.extend(last);
    Decoded { events, turn }
}
