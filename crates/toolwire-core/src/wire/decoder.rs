//! `StreamDecoder`: one provider response in, assembled tool calls and stream events out.
//!
//! The body is framed first (SSE, or JSON values when it starts with `{` or `[`: Gemini's
//! JSON-array stream, NDJSON, a non-streamed response), then each event goes to the decoder of
//! the wire, which drives the shared [`Turn`].

use crate::error::{Error, ErrorCode, Result};

use super::json_seq::JsonSeqFramer;
use super::sse::{SseEvent, SseFramer};
use super::turn::{CumulativeArguments, DecoderOptions, PartialMode, Turn};
use super::{anthropic, gemini, openai_chat, openai_responses};

/// The provider wire APIs toolwire decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions and compatible servers.
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
    /// Mistral's chat API (Chat Completions shape, calls without `index`).
    Mistral,
}

impl Wire {
    /// Every wire.
    pub const ALL: [Wire; 5] = [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
        Wire::Mistral,
    ];

    /// Parses a wire name as JavaScript passes it.
    pub fn parse(name: &str) -> Result<Wire> {
        Ok(match name {
            "openai-chat" => Wire::OpenAiChat,
            "openai-responses" => Wire::OpenAiResponses,
            "anthropic" => Wire::Anthropic,
            "gemini" => Wire::Gemini,
            "mistral" => Wire::Mistral,
            other => {
                return Err(Error::caller(
                    ErrorCode::PreconditionFailed,
                    format!(
                        "unknown wire {other:?}: expected one of \"openai-chat\", \
                         \"openai-responses\", \"anthropic\", \"gemini\", \"mistral\""
                    ),
                ))
            }
        })
    }
}

/// What every wire decoder does with one framed event.
pub trait WireDecoder {
    /// Handles one event: `name` is the SSE `event:` field if any, `data` its data.
    fn event(&mut self, turn: &mut Turn, name: Option<&str>, data: &str);

    /// The body ended: write out what the decoder still holds (the turn then cuts what is open).
    fn end_of_body(&mut self, _turn: &mut Turn) {}
}

enum Framing {
    /// Nothing but whitespace seen yet.
    Undecided,
    Sse(SseFramer),
    Json(JsonSeqFramer),
}

/// Decodes one streamed response.
pub struct StreamDecoder {
    framing: Framing,
    decoder: Box<dyn WireDecoder + Send>,
    turn: Turn,
    sse_events: Vec<SseEvent>,
    json_values: Vec<String>,
    finished: bool,
}

impl StreamDecoder {
    /// A decoder for `wire`.
    pub fn new(wire: Wire, options: DecoderOptions) -> Self {
        let decoder: Box<dyn WireDecoder + Send> = match wire {
            Wire::OpenAiChat => Box::new(openai_chat::ChatDecoder::new(false)),
            Wire::Mistral => Box::new(openai_chat::ChatDecoder::new(true)),
            Wire::OpenAiResponses => Box::new(openai_responses::ResponsesDecoder::new()),
            Wire::Anthropic => Box::new(anthropic::AnthropicDecoder::new()),
            Wire::Gemini => Box::new(gemini::GeminiDecoder::new()),
        };
        StreamDecoder {
            framing: Framing::Undecided,
            decoder,
            turn: Turn::new(options),
            sse_events: Vec::new(),
            json_values: Vec::new(),
            finished: false,
        }
    }

    /// Feeds raw body bytes, split anywhere; returns the events they caused as a JSON array.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        if self.finished {
            return self.after_finish();
        }
        let mut bytes = bytes;
        if let Framing::Undecided = self.framing {
            let start = bytes
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            match start {
                None => return self.turn.take_events(),
                Some(start) => {
                    bytes = &bytes[start..];
                    self.framing = if matches!(bytes[0], b'{' | b'[') {
                        Framing::Json(JsonSeqFramer::new())
                    } else {
                        Framing::Sse(SseFramer::new())
                    };
                }
            }
        }
        match &mut self.framing {
            Framing::Sse(framer) => {
                framer.push(bytes, &mut self.sse_events);
                if let Some(error) = framer.take_error() {
                    self.turn.error(error);
                }
            }
            Framing::Json(framer) => {
                framer.push(bytes, &mut self.json_values);
                if let Some(error) = framer.take_error() {
                    self.turn.error(error);
                }
            }
            Framing::Undecided => {}
        }
        self.drain_framed();
        self.turn.take_events()
    }

    /// Feeds one already-parsed provider chunk as JSON text; returns the events it caused.
    pub fn push_event(&mut self, json: &str) -> String {
        if self.finished {
            return self.after_finish();
        }
        self.decoder.event(&mut self.turn, None, json);
        self.turn.take_events()
    }

    /// Ends the body and returns the assembled turn as JSON text (`AssembledTurn`). Calling it
    /// again returns the same turn.
    pub fn finish(&mut self) -> String {
        if !self.finished {
            self.finished = true;
            match &mut self.framing {
                Framing::Sse(framer) => framer.finish(&mut self.sse_events),
                Framing::Json(framer) => {
                    if let Some(leftover) = framer.finish() {
                        self.json_values.push(leftover);
                    }
                }
                Framing::Undecided => {}
            }
            self.drain_framed();
            self.decoder.end_of_body(&mut self.turn);
            self.turn.end_of_body();
        }
        self.turn.to_json()
    }

    /// The events written by `finish` (the end of a cut-off stream), as a JSON array.
    pub fn take_events(&mut self) -> String {
        self.turn.take_events()
    }

    fn drain_framed(&mut self) {
        for event in self.sse_events.drain(..) {
            self.decoder
                .event(&mut self.turn, event.event.as_deref(), &event.data);
        }
        for value in self.json_values.drain(..) {
            self.decoder.event(&mut self.turn, None, &value);
        }
    }

    fn after_finish(&mut self) -> String {
        self.turn
            .error("input after finish() was ignored: a decoder decodes one response");
        self.turn.take_events()
    }
}

/// Parses the JavaScript options object (JSON text; empty for defaults).
pub fn parse_decoder_options(json: &str) -> Result<DecoderOptions> {
    let mut options = DecoderOptions::default();
    if json.trim().is_empty() {
        return Ok(options);
    }
    let value: serde_json::Value = serde_json::from_str(json).map_err(|error| {
        Error::caller(
            ErrorCode::PreconditionFailed,
            format!("decoder options are not valid JSON: {error}"),
        )
    })?;
    let Some(object) = value.as_object() else {
        return Err(Error::caller(
            ErrorCode::PreconditionFailed,
            "decoder options must be an object",
        ));
    };
    for (key, value) in object {
        match key.as_str() {
            "partial" => {
                options.partial = match value.as_str() {
                    Some("none") => PartialMode::None,
                    Some("delta") => PartialMode::Delta,
                    Some("object") => PartialMode::Object,
                    _ => {
                        return Err(bad_option(
                            "partial",
                            value,
                            "\"none\", \"delta\" or \"object\"",
                        ))
                    }
                }
            }
            "cumulativeArguments" => {
                options.cumulative_arguments = match value {
                    serde_json::Value::String(s) if s == "auto" => CumulativeArguments::Auto,
                    serde_json::Value::Bool(true) => CumulativeArguments::Always,
                    serde_json::Value::Bool(false) => CumulativeArguments::Never,
                    _ => {
                        return Err(bad_option(
                            "cumulativeArguments",
                            value,
                            "\"auto\", true or false",
                        ))
                    }
                }
            }
            "decodeHtmlEntities" => {
                options.decode_html_entities = value
                    .as_bool()
                    .ok_or_else(|| bad_option("decodeHtmlEntities", value, "true or false"))?
            }
            other => {
                return Err(Error::caller(
                    ErrorCode::PreconditionFailed,
                    format!(
                        "unknown decoder option {other:?}: expected partial, \
                         cumulativeArguments or decodeHtmlEntities"
                    ),
                ))
            }
        }
    }
    Ok(options)
}

fn bad_option(name: &str, value: &serde_json::Value, expected: &str) -> Error {
    Error::caller(
        ErrorCode::PreconditionFailed,
        format!("decoder option {name} is {value}: expected {expected}"),
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::super::test_support::{decode_body, Decoded};
    use super::*;

    /// Random JSON objects: the arguments of a generated call.
    fn arguments() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(|n| json!(n)),
            "[a-z \"\\\\é😀\n]{0,12}".prop_map(Value::String),
        ];
        let value = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,5}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop::collection::btree_map("[a-z]{1,6}", value, 0..5)
            .prop_map(|m| Value::Object(m.into_iter().collect()).to_string())
    }

    /// `text` cut at the given fractions, on character boundaries.
    fn fragments(text: &str, cuts: &[u16]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|c| *c as usize * chars.len() / 1000)
            .collect();
        points.push(chars.len());
        points.sort_unstable();
        let mut out = Vec::new();
        let mut from = 0;
        for to in points {
            out.push(chars[from..to].iter().collect());
            from = to;
        }
        out
    }

    fn line_end(pick: u8) -> &'static str {
        ["\n", "\r\n", "\r"][pick as usize % 3]
    }

    /// A Chat Completions SSE body for the calls, and the calls it must decode to.
    fn chat_body(calls: &[(String, Vec<u16>)], ends: u8) -> String {
        let nl = line_end(ends);
        let mut body = String::new();
        for (i, (args, cuts)) in calls.iter().enumerate() {
            for (j, fragment) in fragments(args, cuts).iter().enumerate() {
                let mut call = json!({"index": i, "function": {"arguments": fragment}});
                if j == 0 {
                    call["id"] = json!(format!("call_{i}"));
                    call["function"]["name"] = json!(format!("tool_{i}"));
                }
                let chunk =
                    json!({"id": "r", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]});
                body.push_str(&format!("data: {chunk}{nl}{nl}"));
            }
        }
        let last = json!({"id": "r", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
        body.push_str(&format!("data: {last}{nl}{nl}data: [DONE]{nl}{nl}"));
        body
    }

    /// An Anthropic SSE body for the calls.
    fn anthropic_body(calls: &[(String, Vec<u16>)], ends: u8) -> String {
        let nl = line_end(ends);
        let mut body = String::new();
        let mut event = |name: &str, data: Value| {
            body.push_str(&format!("event: {name}{nl}data: {data}{nl}{nl}"));
        };
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "content": []}}),
        );
        for (i, (args, cuts)) in calls.iter().enumerate() {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": format!("tool_{i}"), "input": {}}}),
            );
            for fragment in fragments(args, cuts) {
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": fragment}}),
                );
            }
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": i}),
            );
        }
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        );
        event("message_stop", json!({"type": "message_stop"}));
        body
    }

    /// Decodes `body` cut at the given thousandths of its length.
    fn decode(wire: Wire, body: &[u8], cuts: &[u16]) -> Decoded {
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|c| *c as usize * body.len() / 1000)
            .collect();
        points.push(body.len());
        points.sort_unstable();
        let mut from = 0;
        let pieces: Vec<&[u8]> = points
            .into_iter()
            .map(|to| {
                let piece = &body[from..to];
                from = to;
                piece
            })
            .collect();
        decode_body(wire, &pieces)
    }

    /// Generated calls (arguments and where to cut them), a line-end choice, body cut points.
    type Generated = (Vec<(String, Vec<u16>)>, u8, Vec<u16>);

    fn generated() -> impl Strategy<Value = Generated> {
        (
            prop::collection::vec((arguments(), prop::collection::vec(0u16..1000, 0..6)), 1..4),
            any::<u8>(),
            prop::collection::vec(0u16..1000, 0..40),
        )
    }

    proptest! {
        #[test]
        fn chat_streams_decode_the_same_however_the_body_is_split((calls, ends, cuts) in generated()) {
            let body = chat_body(&calls, ends);
            let whole = decode(Wire::OpenAiChat, body.as_bytes(), &[]);
            let split = decode(Wire::OpenAiChat, body.as_bytes(), &cuts);
            let expected: Vec<_> = calls.iter().enumerate()
                .map(|(i, (args, _))| (format!("call_{i}"), format!("tool_{i}"), args.clone(), true))
                .collect();
            prop_assert_eq!(whole.summary(), expected);
            prop_assert_eq!(&split.turn, &whole.turn);
        }

        #[test]
        fn anthropic_streams_decode_the_same_however_the_body_is_split((calls, ends, cuts) in generated()) {
            let body = anthropic_body(&calls, ends);
            let whole = decode(Wire::Anthropic, body.as_bytes(), &[]);
            let split = decode(Wire::Anthropic, body.as_bytes(), &cuts);
            let expected: Vec<_> = calls.iter().enumerate()
                .map(|(i, (args, _))| (format!("toolu_{i}"), format!("tool_{i}"), args.clone(), true))
                .collect();
            prop_assert_eq!(whole.summary(), expected);
            prop_assert_eq!(&split.turn, &whole.turn);
        }

        #[test]
        fn any_bytes_decode_without_panic_on_every_wire(bytes in prop::collection::vec(any::<u8>(), 0..400), cuts in prop::collection::vec(0u16..1000, 0..8)) {
            for wire in [Wire::OpenAiChat, Wire::OpenAiResponses, Wire::Anthropic, Wire::Gemini, Wire::Mistral] {
                let decoded = decode(wire, &bytes, &cuts);
                for call in decoded.calls() {
                    // Every call ends complete or with the error that says why not.
                    prop_assert!(call["complete"] == true || call["error"]["code"].is_string(), "{}", call);
                }
                prop_assert_eq!(decoded.of_type("done").len(), 1, "exactly one done");
            }
        }
    }

    #[test]
    fn a_megabyte_argument_in_ten_byte_deltas_streams_its_appends() {
        // The issue's linear-time case: the appends add up to the content, one per delta.
        let content: String = "abcdefghij".repeat(100_000);
        let args = json!({ "content": content }).to_string();
        let mut decoder = StreamDecoder::new(Wire::Anthropic, DecoderOptions::default());
        decoder.push_event(r#"{"type":"message_start","message":{"id":"m","content":[]}}"#);
        decoder.push_event(r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"write","input":{}}}"#);
        let mut appended = String::new();
        let mut deltas = 0;
        for piece in args.as_bytes().chunks(10) {
            let piece = std::str::from_utf8(piece).unwrap();
            let event = json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece}});
            let events: Vec<Value> =
                serde_json::from_str(&decoder.push_event(&event.to_string())).unwrap();
            for e in events.iter().filter(|e| e["type"] == "toolcall_delta") {
                deltas += 1;
                if let Some(text) = e["partial"]["append"].as_str() {
                    appended.push_str(text);
                }
            }
        }
        decoder.push_event(r#"{"type":"content_block_stop","index":0}"#);
        decoder.push_event(r#"{"type":"message_stop"}"#);
        let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(appended, content);
        assert_eq!(deltas, args.len().div_ceil(10));
        assert_eq!(
            turn["toolCalls"][0]["arguments"].as_str().unwrap().len(),
            args.len()
        );
        assert_eq!(turn["toolCalls"][0]["complete"], true);
    }

    #[test]
    fn unknown_wires_and_options_are_refused_by_name() {
        let error = Wire::parse("openai").unwrap_err();
        assert!(error.message.contains("\"openai\""), "{}", error.message);
        let error = parse_decoder_options(r#"{"partial":"full"}"#).unwrap_err();
        assert!(
            error.message.contains("partial is \"full\""),
            "{}",
            error.message
        );
        let error = parse_decoder_options(r#"{"partials":"none"}"#).unwrap_err();
        assert!(error.message.contains("\"partials\""), "{}", error.message);
        assert!(parse_decoder_options("[]").is_err());
    }

    #[test]
    fn input_after_finish_is_reported_not_decoded() {
        let mut decoder = StreamDecoder::new(Wire::OpenAiChat, DecoderOptions::default());
        decoder.finish();
        let events: Value = serde_json::from_str(&decoder.push(b"data: {}\n\n")).unwrap();
        assert_eq!(events[0]["type"], "error");
    }
}
