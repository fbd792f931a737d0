//! `StreamDecoder`: one provider response in, assembled tool calls and stream events out.
//!
//! The body is framed first (SSE, or JSON values when it starts with `{` or `[`: Gemini's
//! JSON-array stream, NDJSON, a non-streamed response), then each event goes to the decoder of
//! the wire, which drives the shared [`Turn`].

use crate::error::{Error, ErrorCode, Result};
use crate::json_input::repair_surrogates;

use super::decode_error::DecodeErrorKind;

use super::json_seq::JsonSeqFramer;
use super::repair::RepairKind;
use super::sse::{SseEvent, SseFramer};
use super::turn::{CumulativeArguments, DecoderOptions, PartialMode, Turn};
use crate::json_text::{json_string, quoted_name, utf8_lossy};

/// What every wire decoder does with one framed event.
pub trait WireDecoder {
    /// Handles one event: `name` is the SSE `event:` field if any, `data` its data.
    fn event(&mut self, turn: &mut Turn, name: Option<&str>, data: &str);

    /// The body ended: write out what the decoder still holds (the turn then cuts what is open).
    fn end_of_body(&mut self, _turn: &mut Turn) {}

    /// Whether any event of this wire was read: `false` at the end of a body means the body was
    /// not this wire at all (an HTML login page, plain text, another API's JSON).
    fn recognized(&self) -> bool;
}

/// How many bytes of the body an error about its shape quotes.
const HEAD_BYTES: usize = 120;

enum Framing {
    /// Nothing but whitespace seen yet.
    Undecided,
    Sse(SseFramer),
    Json(JsonSeqFramer),
}

/// Decodes one streamed response.
pub struct StreamDecoder {
    /// The wire's name, for the errors that say the body is not of it.
    wire: &'static str,
    framing: Framing,
    /// The first bytes of the body (or of the first events), quoted when it is not the wire.
    head: Vec<u8>,
    /// Bytes (or event text) received in all.
    received: usize,
    decoder: Box<dyn WireDecoder + Send>,
    turn: Turn,
    sse_events: Vec<SseEvent>,
    json_values: Vec<String>,
    /// How many JSON values the body held (outside an array).
    json_count: usize,
    finished: bool,
}

impl StreamDecoder {
    /// A decoder of the wire named `wire` whose events `decoder` reads. A wire's decoder comes
    /// from its provider: `Provider::of(wire).stream_decoder(options)`
    /// ([`crate::provider::Provider::stream_decoder`]).
    pub fn new(
        wire: &'static str,
        decoder: Box<dyn WireDecoder + Send>,
        options: DecoderOptions,
    ) -> Self {
        StreamDecoder {
            wire,
            framing: Framing::Undecided,
            head: Vec::new(),
            received: 0,
            decoder,
            turn: Turn::new(options),
            sse_events: Vec::new(),
            json_values: Vec::new(),
            json_count: 0,
            finished: false,
        }
    }

    /// Feeds raw body bytes, split anywhere; returns the events they caused as a JSON array.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        if self.finished {
            return self.after_finish();
        }
        self.keep_head(bytes);
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
                // An event dropped for its size is lost to the turn (no event is read in part).
                if let Some(error) = framer.take_error() {
                    self.turn.lost_input(DecodeErrorKind::OversizedEvent, error);
                }
            }
            Framing::Json(framer) => {
                framer.push(bytes, &mut self.json_values);
                if let Some((kind, error)) = framer.take_error() {
                    self.turn.lost_input(kind, error);
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
        self.keep_head(json.as_bytes());
        feed(&mut *self.decoder, &mut self.turn, None, json);
        self.turn.take_events()
    }

    /// Ends the body and returns the assembled turn as JSON text (`AssembledTurn`). Calling it
    /// again returns the same turn.
    pub fn finish(&mut self) -> String {
        if !self.finished {
            self.finished = true;
            let mut json_values = false;
            match &mut self.framing {
                Framing::Sse(framer) => framer.finish(&mut self.sse_events),
                Framing::Json(framer) => {
                    // (asked first: finishing readies the framer for a new body)
                    json_values = !framer.is_array();
                    if let Some(leftover) = framer.finish() {
                        self.json_values.push(leftover);
                    }
                }
                Framing::Undecided => {}
            }
            self.drain_framed();
            if json_values && self.json_count == 1 && self.turn.is_terminated() {
                // One JSON value that is a whole response (a server that ignored `stream: true`,
                // Gemini's unary body): decoded as its stream would be.
                self.turn.repair(RepairKind::WholeResponse, None);
            }
            self.decoder.end_of_body(&mut self.turn);
            if self.turn.is_terminated() || self.decoder.recognized() {
                self.turn.end_of_body();
            } else {
                let why = self.not_the_wire();
                self.turn
                    .end_of_body_because(DecodeErrorKind::NotTheWire, &why);
            }
        }
        self.turn.to_json()
    }

    fn keep_head(&mut self, bytes: &[u8]) {
        self.received = self.received.saturating_add(bytes.len());
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// The error of a body in which the wire found nothing of its own: what it was (its content
    /// type when the caller said, its first bytes, escaped and bounded).
    fn not_the_wire(&self) -> String {
        let content_type = match &self.turn.options().content_type {
            Some(content_type) => {
                format!(" (content type {})", quoted_name(content_type))
            }
            None => String::new(),
        };
        let head = utf8_lossy(&self.head);
        let head = head.trim_start();
        if head.trim().is_empty() {
            return format!(
                "the body{content_type} is empty: no {} response arrived",
                self.wire
            );
        }
        let more = if self.received > self.head.len() {
            format!("… ({} bytes in all)", self.received)
        } else {
            String::new()
        };
        format!(
            "the body{content_type} is not a response of the {} wire: nothing in it was \
             understood; it begins with {}{more}",
            self.wire,
            json_string(head)
        )
    }

    /// The events written by `finish` (the end of a cut-off stream), as a JSON array.
    pub fn take_events(&mut self) -> String {
        self.turn.take_events()
    }

    fn drain_framed(&mut self) {
        for event in self.sse_events.drain(..) {
            feed(
                &mut *self.decoder,
                &mut self.turn,
                event.event.as_deref(),
                &event.data,
            );
        }
        self.json_count += self.json_values.len();
        for value in self.json_values.drain(..) {
            feed(&mut *self.decoder, &mut self.turn, None, &value);
        }
    }

    fn after_finish(&mut self) -> String {
        self.turn.error(
            DecodeErrorKind::InputAfterFinish,
            "input after finish() was ignored: a decoder decodes one response",
        );
        self.turn.take_events()
    }
}

/// Hands one event to the wire's decoder, its escaped lone surrogates (`"\ud83d"`, half an emoji
/// that `JSON.parse` accepts and an SDK yields when a string was cut) replaced by U+FFFD first:
/// every event of every wire, framed from bytes or pushed parsed, goes through here, so no chunk
/// is lost to serde_json refusing the escape.
fn feed(decoder: &mut dyn WireDecoder, turn: &mut Turn, name: Option<&str>, data: &str) {
    decoder.event(turn, name, &repair_surrogates(data));
}

/// The keys of the decoder options.
const DECODER_OPTIONS: [&str; 4] = [
    "partial",
    "cumulativeArguments",
    "decodeHtmlEntities",
    "contentType",
];

/// Parses the JavaScript options object (JSON text; empty for defaults).
pub fn parse_decoder_options(json: &str) -> Result<DecoderOptions> {
    let mut options = DecoderOptions::default();
    if json.trim().is_empty() {
        return Ok(options);
    }
    let value: serde_json::Value = serde_json::from_str(json).map_err(|error| {
        Error::caller(
            ErrorCode::ValidationError,
            format!("decoder options are not valid JSON: {error}"),
        )
    })?;
    let Some(object) = value.as_object() else {
        return Err(Error::caller(
            ErrorCode::ValidationError,
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
            "contentType" => {
                options.content_type = match value {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) => Some(s.clone()),
                    _ => return Err(bad_option("contentType", value, "a string")),
                }
            }
            "decodeHtmlEntities" => {
                options.decode_html_entities = value
                    .as_bool()
                    .ok_or_else(|| bad_option("decodeHtmlEntities", value, "true or false"))?
            }
            other => {
                return Err(crate::options::unknown_option(
                    "StreamDecoder: options",
                    other,
                    &DECODER_OPTIONS,
                ))
            }
        }
    }
    Ok(options)
}

fn bad_option(name: &str, value: &serde_json::Value, expected: &str) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!("decoder option {name} is {value}: expected {expected}"),
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::super::test_support::{decode_body, Decoded};
    use super::*;
    use crate::provider::{Provider, Wire};

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
    pub(super) fn decode(wire: Wire, body: &[u8], cuts: &[u16]) -> Decoded {
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
        let mut decoder = Provider::of(Wire::Anthropic).stream_decoder(DecoderOptions::default());
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
        let mut decoder = Provider::of(Wire::OpenAiChat).stream_decoder(DecoderOptions::default());
        decoder.finish();
        let events: Value = serde_json::from_str(&decoder.push(b"data: {}\n\n")).unwrap();
        assert_eq!(events[0]["type"], "error");
    }
}

/// A whole (non-streamed) response decodes to the turn its stream gives, on every wire; a body
/// that is not the wire at all is an error naming what it was.
#[cfg(test)]
mod whole_response_tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::super::test_support::{decode_body, decode_events, Decoded};
    use super::*;
    use crate::provider::{Provider, Wire};

    /// What a turn says, without what only a stream has (events, the provider's raw usage).
    fn essence(decoded: &Decoded) -> Value {
        let turn = &decoded.turn;
        json!({
            "toolCalls": turn["toolCalls"],
            "text": turn["text"],
            "stopReason": turn["stopReason"],
            "rawStopReason": turn["rawStopReason"],
            "inputTokens": turn["usage"]["inputTokens"],
            "outputTokens": turn["usage"]["outputTokens"],
            "errors": turn["errors"],
        })
    }

    /// An SSE body of `events`; with `named`, each block has the `event:` line of its JSON `type`
    /// (Anthropic, Responses).
    fn sse(events: &[Value], named: bool) -> String {
        events
            .iter()
            .map(|data| match data["type"].as_str().filter(|_| named) {
                Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                None => format!("data: {data}\n\n"),
            })
            .collect()
    }

    fn chat_stream() -> String {
        let mut body = sse(
            &[
                json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me look."}}]}),
                json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":"}}]}}]}),
                json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"a.txt\"}"}}]}}]}),
                json!({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_2", "type": "function", "function": {"name": "list", "arguments": "{}"}}]}}]}),
                json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
            ],
            false,
        );
        body.push_str("data: [DONE]\n\n");
        body
    }

    fn chat_whole() -> Value {
        json!({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Let me look.",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "list", "arguments": "{}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    }

    fn mistral_stream() -> String {
        let mut body = sse(
            &[
                json!({"id": "m", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me look."}}]}),
                json!({"id": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{"id": "abcdefghi", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}}]}, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
            ],
            false,
        );
        body.push_str("data: [DONE]\n\n");
        body
    }

    fn mistral_whole() -> Value {
        json!({"id": "m", "object": "chat.completion", "model": "mistral-large-latest",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Let me look.",
                "tool_calls": [{"id": "abcdefghi", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    }

    /// An Anthropic `tool_use` block streamed as `content_block_start`, one delta per fragment,
    /// and `content_block_stop`.
    fn anthropic_tool_use(index: u32, id: &str, name: &str, fragments: &[&str]) -> Vec<Value> {
        let mut events = vec![json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})];
        for fragment in fragments {
            events.push(json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": fragment}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
        events
    }

    fn anthropic_stream() -> String {
        let mut events = vec![
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}}),
            json!({"type": "content_block_stop", "index": 0}),
        ];
        events.extend(anthropic_tool_use(
            1,
            "toolu_1",
            "read",
            &["{\"path\":", "\"a.txt\"}"],
        ));
        events.extend(anthropic_tool_use(2, "toolu_2", "list", &[""]));
        events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 5}}));
        events.push(json!({"type": "message_stop"}));
        sse(&events, true)
    }

    fn anthropic_whole() -> Value {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "toolu_2", "name": "list", "input": {}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}})
    }

    fn responses_items() -> (Value, Value) {
        let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}]});
        let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
            "arguments": "{\"path\":\"a.txt\"}", "status": "completed"});
        (message, call)
    }

    fn responses_stream() -> String {
        let (message, call) = responses_items();
        let usage = json!({"input_tokens": 10, "output_tokens": 5, "total_tokens": 15});
        sse(
            &[
                json!({"type": "response.created", "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
                json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
                json!({"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": "Let me look."}),
                json!({"type": "response.output_item.done", "output_index": 0, "item": message}),
                json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": ""}}),
                json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "{\"path\":"}),
                json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "\"a.txt\"}"}),
                json!({"type": "response.output_item.done", "output_index": 1, "item": call}),
                json!({"type": "response.completed", "response": {"id": "resp_1", "object": "response", "status": "completed", "output": [message, call], "usage": usage}}),
            ],
            true,
        )
    }

    fn responses_whole() -> Value {
        let (message, call) = responses_items();
        json!({"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5",
            "output": [message, call], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}})
    }

    fn gemini_stream() -> String {
        sse(
            &[
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me look."}]}}], "responseId": "r1"}),
                json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "g1", "name": "read", "args": {"path": "a.txt"}}}]}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "responseId": "r1"}),
            ],
            false,
        )
    }

    fn gemini_whole() -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me look."}, {"functionCall": {"id": "g1", "name": "read", "args": {"path": "a.txt"}}}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}, "responseId": "r1"})
    }

    #[test]
    fn a_whole_response_decodes_to_the_turn_of_its_stream_on_every_wire() {
        let cases: Vec<(Wire, String, Value, usize)> = vec![
            (Wire::OpenAiChat, chat_stream(), chat_whole(), 2),
            (Wire::Mistral, mistral_stream(), mistral_whole(), 1),
            (Wire::Anthropic, anthropic_stream(), anthropic_whole(), 2),
            (
                Wire::OpenAiResponses,
                responses_stream(),
                responses_whole(),
                1,
            ),
            (Wire::Gemini, gemini_stream(), gemini_whole(), 1),
        ];
        for (wire, stream, whole, calls) in cases {
            let streamed = essence(&decode_body(wire, &[stream.as_bytes()]));
            assert_eq!(streamed["errors"], json!([]), "{wire:?} stream: {streamed}");
            assert_eq!(streamed["stopReason"], "toolUse", "{wire:?} stream");
            assert_eq!(streamed["text"], "Let me look.", "{wire:?} stream");
            assert_eq!(streamed["inputTokens"], 10, "{wire:?} stream");
            let calls_seen = streamed["toolCalls"].as_array().unwrap();
            assert_eq!(calls_seen.len(), calls, "{wire:?} stream");
            assert!(calls_seen.iter().all(|c| c["complete"] == true), "{wire:?}");
            let pretty = serde_json::to_string_pretty(&whole).unwrap();
            let bodies: Vec<(&str, Decoded)> = vec![
                (
                    "whole body",
                    decode_body(wire, &[whole.to_string().as_bytes()]),
                ),
                ("pretty body split in 7-byte pieces", {
                    let pieces: Vec<&[u8]> = pretty.as_bytes().chunks(7).collect();
                    decode_body(wire, &pieces)
                }),
                ("pushEvent", decode_events(wire, "", &[&whole.to_string()])),
            ];
            for (how, decoded) in bodies {
                assert_eq!(essence(&decoded), streamed, "{wire:?} {how}");
            }
        }
        // Gemini's JSON array of one whole response, too.
        let array = format!("[{}]", gemini_whole());
        let decoded = decode_body(Wire::Gemini, &[array.as_bytes()]);
        assert_eq!(
            essence(&decoded),
            essence(&decode_body(Wire::Gemini, &[gemini_stream().as_bytes()]))
        );
    }

    /// `json` (a body or an event) with its text, argument value and call ids holding `escape`
    /// (`\ud83d`, a lone surrogate, or `\ufffd`), as JSON escapes.
    fn with_escape(json: &str, escape: &str) -> String {
        let mut out = json
            .replace("Let me look.", &format!("Let me look{escape}"))
            .replace("a.txt", &format!("a{escape}.txt"));
        for id in ["call_1", "toolu_1", "g1", "abcdefghi"] {
            out = out.replace(&format!("\"{id}\""), &format!("\"{id}{escape}\""));
        }
        out
    }

    /// The data of each event of an SSE body, `[DONE]` left out.
    fn event_data(body: &str) -> Vec<String> {
        body.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter(|data| *data != "[DONE]")
            .map(str::to_owned)
            .collect()
    }

    /// Every way a body reaches a decoder: bytes whole, bytes in 5-byte pieces (cutting the
    /// escapes), and its events pushed one by one.
    fn every_way(wire: Wire, body: &str) -> Vec<(&'static str, Decoded)> {
        let data = event_data(body);
        let events: Vec<&str> = if data.is_empty() {
            vec![body]
        } else {
            data.iter().map(String::as_str).collect()
        };
        let pieces: Vec<&[u8]> = body.as_bytes().chunks(5).collect();
        vec![
            ("bytes", decode_body(wire, &[body.as_bytes()])),
            ("5-byte pieces", decode_body(wire, &pieces)),
            ("pushEvent", decode_events(wire, "", &events)),
        ]
    }

    #[test]
    fn escaped_lone_surrogates_in_text_ids_and_arguments_become_replacement_characters_on_every_wire(
    ) {
        // Seen from SDK iterators that cut a string mid-emoji: JSON.parse accepts "\ud83d", serde
        // refused the whole chunk ("unexpected end of hex escape") and its text and call were lost.
        let cases: Vec<(Wire, String, Value)> = vec![
            (Wire::OpenAiChat, chat_stream(), chat_whole()),
            (Wire::Mistral, mistral_stream(), mistral_whole()),
            (Wire::Anthropic, anthropic_stream(), anthropic_whole()),
            (Wire::OpenAiResponses, responses_stream(), responses_whole()),
            (Wire::Gemini, gemini_stream(), gemini_whole()),
        ];
        for (wire, stream, whole) in cases {
            for (shape, body) in [("stream", stream), ("whole", whole.to_string())] {
                let expected = essence(&decode_body(
                    wire,
                    &[with_escape(&body, "\\ufffd").as_bytes()],
                ));
                assert_eq!(
                    expected["errors"],
                    json!([]),
                    "{wire:?} {shape}: {expected}"
                );
                assert_eq!(expected["stopReason"], "toolUse", "{wire:?} {shape}");
                assert_eq!(expected["text"], "Let me look\u{fffd}", "{wire:?} {shape}");
                let calls = expected["toolCalls"].as_array().unwrap();
                let arguments: Value =
                    serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
                assert_eq!(arguments["path"], "a\u{fffd}.txt", "{wire:?} {shape}");
                assert!(
                    calls[0]["id"].as_str().unwrap().ends_with('\u{fffd}'),
                    "{wire:?} {shape}: {}",
                    calls[0]["id"]
                );
                for escape in ["\\ud83d", "\\udc00", "\\uDFFF"] {
                    let lone = with_escape(&body, escape);
                    for (how, decoded) in every_way(wire, &lone) {
                        let got = essence(&decoded);
                        assert_eq!(got, expected, "{wire:?} {shape} {escape} by {how}");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn a_stream_with_lone_surrogates_decodes_the_same_however_it_is_split(
            pieces in prop::collection::vec(prop_oneof![
                // (as sent, as it must decode): a lone high (kept apart from a low by the x), a
                // lone low, a valid pair, an escaped backslash before u, plain text.
                Just(("\\ud83dx", "\\ufffdx")),
                Just(("\\udc00", "\\ufffd")),
                Just(("\\ud83d\\ude00", "😀")),
                Just(("\\\\u", "\\\\u")),
                Just(("é", "é")),
            ], 0..12),
            cuts in prop::collection::vec(0u16..1000, 0..20),
        ) {
            let sent: String = pieces.iter().map(|p| p.0).collect();
            let meant: String = pieces.iter().map(|p| p.1).collect();
            let expected = essence(&decode_body(
                Wire::OpenAiChat,
                &[chat_stream().replace("Let me look.", &meant).as_bytes()],
            ));
            prop_assert_eq!(&expected["errors"], &json!([]));
            let body = chat_stream().replace("Let me look.", &sent);
            prop_assert_eq!(essence(&super::tests::decode(Wire::OpenAiChat, body.as_bytes(), &cuts)), expected);
        }
    }

    #[test]
    fn a_stop_reason_that_says_tool_calls_without_any_is_an_error() {
        let chat_chunk = json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "tool_calls"}]}).to_string();
        let chat_whole = json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "tool_calls"}]}).to_string();
        let anthropic_whole = json!({"id": "m", "type": "message", "content": [{"type": "text", "text": "ok"}], "stop_reason": "tool_use"}).to_string();
        let anthropic_stream = [
            json!({"type": "message_start", "message": {"id": "m", "content": []}}).to_string(),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}).to_string(),
            json!({"type": "message_stop"}).to_string(),
        ];
        let cases: Vec<(Wire, Vec<&str>, &str)> = vec![
            (
                Wire::OpenAiChat,
                vec![&chat_chunk, "[DONE]"],
                "\"tool_calls\"",
            ),
            (Wire::OpenAiChat, vec![&chat_whole], "\"tool_calls\""),
            (Wire::Mistral, vec![&chat_whole], "\"tool_calls\""),
            (Wire::Anthropic, vec![&anthropic_whole], "\"tool_use\""),
            (
                Wire::Anthropic,
                anthropic_stream.iter().map(String::as_str).collect(),
                "\"tool_use\"",
            ),
        ];
        for (wire, chunks, raw) in cases {
            let decoded = decode_events(wire, "", &chunks);
            assert_eq!(decoded.stop(), "error", "{wire:?} {chunks:?}");
            assert_eq!(decoded.calls().len(), 0);
            let errors = decoded.turn["errors"].as_array().unwrap();
            assert_eq!(errors.len(), 1, "{wire:?}: {errors:?}");
            let error = errors[0].as_str().unwrap();
            assert!(
                error.contains(&format!("stop reason {raw} says the turn holds tool calls")),
                "{wire:?}: {error}"
            );
            assert_eq!(decoded.of_type("done")[0]["stopReason"], "error");
        }
    }

    #[test]
    fn a_body_that_is_not_the_wire_is_an_error_naming_its_content_type_and_first_bytes() {
        let login = format!(
            "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>{}</body></html>",
            "<p>\"please\" log in</p>".repeat(50_000)
        );
        let bodies: [(&str, &str, &str); 4] = [
            (
                login.as_str(),
                "<!DOCTYPE html>\\n<html><head><title>Sign in",
                "text/html; charset=utf-8",
            ),
            (
                "Unauthorized: missing API key\n",
                "Unauthorized: missing API key\\n",
                "text/plain",
            ),
            (
                "{\"detail\":\"Not authenticated\"}",
                "{\\\"detail\\\":\\\"Not authenticated\\\"}",
                "application/json",
            ),
            (
                "\u{1b}[31mbad gateway\u{0}",
                "\\u001b[31mbad gateway\\u0000",
                "text/plain",
            ),
        ];
        for wire in Wire::ALL {
            for (body, head, content_type) in bodies {
                let options = json!({ "contentType": content_type }).to_string();
                let mut decoder =
                    Provider::of(wire).stream_decoder(parse_decoder_options(&options).unwrap());
                for piece in body.as_bytes().chunks(64 * 1024) {
                    decoder.push(piece);
                }
                let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
                assert_eq!(turn["stopReason"], "error", "{wire:?}");
                let errors: Vec<&str> = turn["errors"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_str().unwrap())
                    .collect();
                let error = errors
                    .iter()
                    .find(|e| e.contains("is not a response of the"))
                    .unwrap_or_else(|| panic!("{wire:?} {head}: {errors:?}"));
                assert!(
                    error.contains(&format!("the {} wire", wire.as_str())),
                    "{error}"
                );
                assert!(
                    error.contains(&format!("(content type \"{content_type}\")")),
                    "{error}"
                );
                assert!(error.contains(head), "{wire:?}: {error}");
                assert!(error.len() < 400, "bounded: {} bytes", error.len());
                assert!(
                    !errors.iter().any(|e| e.contains("terminal event")),
                    "one error says what happened: {errors:?}"
                );
                if body.len() > 200 {
                    assert!(
                        error.contains(&format!("({} bytes in all)", body.len())),
                        "{error}"
                    );
                }
            }
            // An empty body, and no content type known.
            let decoded = decode_body(wire, &[b"  \r\n"]);
            assert_eq!(
                decoded.turn["errors"][0],
                format!("the body is empty: no {} response arrived", wire.as_str())
            );
        }
        // A real stream cut off after its first event is not "not the wire".
        let cut = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\n";
        let decoded = decode_body(Wire::OpenAiChat, &[cut.as_bytes()]);
        assert_eq!(decoded.turn["errors"].as_array().unwrap().len(), 1);
        assert!(decoded.turn["errors"][0]
            .as_str()
            .unwrap()
            .contains("ended before its terminal event"));
    }
}
