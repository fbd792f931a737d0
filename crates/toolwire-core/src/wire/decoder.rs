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
