//! Google Gemini decoding (`streamGenerateContent` as SSE or as a JSON array, and the unary
//! `generateContent` body, which arrives as one event).
//!
//! Every event is a whole `GenerateContentResponse`; only `candidates[0]` is read. The rules,
//! each from a real recording (see QUIRKS.md and the tests below):
//! - a `functionCall` part with a `name` is a whole call (`args` kept as the provider wrote them,
//!   compacted; missing `args` is `{}`), never fragmented. Its `id` is used when present and
//!   not already used by an earlier call of the turn, else the call gets a generated one (ids are
//!   often absent; Gemini 3 sends them);
//! - a `thoughtSignature` next to a `functionCall` belongs to that call only
//!   (`providerMetadata.thoughtSignature`); for parallel calls only the first carries one and it
//!   must go back on that same call (QUIRK 26). A signature on a text or thought part is the
//!   signature of the current thinking block;
//! - Vertex `streamFunctionCallArguments`: `{name, willContinue:true}` opens a streamed call;
//!   nameless parts with `partialArgs` (`jsonPath` + `stringValue` | `numberValue` | `boolValue`
//!   | `nullValue`) fill it in, a string whose piece has `willContinue` is continued by the
//!   following pieces at the same path, and a nameless part without `willContinue` (the empty
//!   `{}`, or the last `partialArgs` part when the terminator is missing) closes the call. The
//!   arguments are built as an ordered tree (keys in first-seen order) and written once when the
//!   call closes; previews are reported as partial operations while it streams;
//! - nameless `functionCall` parts are never calls of their own (QUIRK 27);
//! - `finishReason` ends the turn: `STOP` (also for tool turns), `MAX_TOKENS` (length: open calls
//!   are cut), anything else is an error; `promptFeedback.blockReason` and a top-level `error`
//!   object end it with an error.
//!
//! Each of these repairs is recorded on the turn ([`RepairKind`]) where it is made.

use std::borrow::Cow;

use serde::de::{Deserializer, IgnoredAny};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::decode_error::DecodeErrorKind;
use super::decoder::WireDecoder;
use super::gemini_args::{parse_path, place, Node, Object};
use super::partial_json::{PartialOp, PathSegment};
use super::repair::RepairKind;
use super::turn::{CallHandle, CallKind, Executor, StopReason, Turn};
use crate::json_text::{compact, json_string, non_empty, push_json_string};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GenerateContentResponse<'a> {
    #[serde(borrow, default)]
    candidates: Option<Vec<Candidate<'a>>>,
    #[serde(borrow, default)]
    usage_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    prompt_feedback: Option<PromptFeedback<'a>>,
    #[serde(borrow, default)]
    response_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    finish_message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, default)]
    parts: Option<Vec<Part<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(borrow, default)]
    thought_signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function_call: Option<FunctionCall<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    partial_args: Option<Vec<PartialArg<'a>>>,
    #[serde(default)]
    will_continue: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartialArg<'a> {
    #[serde(borrow, default)]
    json_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    string_value: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    number_value: Option<&'a RawValue>,
    #[serde(default)]
    bool_value: Option<bool>,
    /// Present at all (`"nullValue": null` or `"NULL_VALUE"`).
    #[serde(default, deserialize_with = "present")]
    null_value: bool,
    #[serde(default)]
    will_continue: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback<'a> {
    #[serde(borrow, default)]
    block_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    block_reason_message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GeminiUsage {
    #[serde(default)]
    prompt_token_count: Option<u64>,
    #[serde(default)]
    candidates_token_count: Option<u64>,
    #[serde(default)]
    total_token_count: Option<u64>,
}

#[derive(Deserialize)]
struct ErrorBody<'a> {
    #[serde(borrow, default)]
    code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

/// `true` whenever the field is there, whatever its value (`null` included).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// A `numberValue` written as serde_json writes it, integers without a fraction.
fn number_json(raw: &RawValue) -> Option<String> {
    let value: f64 = serde_json::from_str(raw.get()).ok()?;
    if !value.is_finite() {
        return None;
    }
    if value.fract() == 0.0 && value.abs() <= 9_007_199_254_740_992.0 {
        return Some(format!("{}", value as i64));
    }
    serde_json::to_string(&value).ok()
}

/// The string being continued by pieces at the same path.
struct OpenString {
    path: Vec<PathSegment>,
    /// Whether any characters were reported for it (else it is reported whole when it ends).
    appended: bool,
}

/// A call whose arguments arrive as `partialArgs`.
struct Streaming {
    call: CallHandle,
    root: Node,
    string: Option<OpenString>,
    /// A path conflict was reported already.
    conflict_reported: bool,
}

/// How a streamed call ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// By its own end: the empty `functionCall` terminator, or whole in one part.
    Terminator,
    /// By its last `partialArgs` part (no `willContinue`): the terminator should still follow.
    LastPart,
    /// Ended by what followed (the next call, the finish) without its terminator.
    Implicit,
    /// Not ended: the turn cuts it (an error, a length stop, the end of the body).
    Cut,
}

/// The Gemini decoder.
pub struct GeminiDecoder {
    streaming: Option<Streaming>,
    /// A streamed call ended by its last `partialArgs` part, whose empty `functionCall` has not
    /// come yet: if anything else comes first, the terminator is missing.
    unterminated: Option<CallHandle>,
    /// Whether the current thinking block is still receiving thought text.
    in_thought: bool,
    /// Whether the current thinking block already holds a signature.
    block_signed: bool,
    response_id: Option<String>,
    /// A second response followed the finished one: everything after is ignored.
    ignoring: bool,
    /// A response of this wire was read (for telling a body that is not the wire at all).
    recognized: bool,
    events: usize,
}

impl GeminiDecoder {
    /// A decoder.
    pub fn new() -> Self {
        GeminiDecoder {
            streaming: None,
            unterminated: None,
            in_thought: false,
            block_signed: false,
            response_id: None,
            ignoring: false,
            recognized: false,
            events: 0,
        }
    }

    fn response(&mut self, turn: &mut Turn, response: GenerateContentResponse<'_>) {
        if response.candidates.is_some()
            || response.usage_metadata.is_some()
            || response.prompt_feedback.is_some()
            || response.error.is_some()
        {
            self.recognized = true;
        }
        if let Some(error) = response.error.filter(|e| e.get() != "null") {
            turn.error(
                DecodeErrorKind::ProviderError,
                format!("the provider reported an error: {}", error_text(error)),
            );
            self.flush(turn, Close::Cut);
            turn.set_stop(None, StopReason::Error);
            turn.terminate();
            return;
        }
        if let Some(id) = response.response_id.as_deref().filter(|id| !id.is_empty()) {
            // As on Chat Completions: the id of the chunk that finished the turn is what a later
            // chunk is compared with (a relay may change it mid-stream), and a chunk without
            // candidates (a usage trailer) is this response's.
            let has_candidates = response.candidates.as_ref().is_some_and(|c| !c.is_empty());
            match &self.response_id {
                Some(current) if current != id && turn.is_terminated() && has_candidates => {
                    turn.error(
                        DecodeErrorKind::SeveralResponses,
                        format!(
                        "a second response ({id:?}) followed the finished response {current:?} \
                         in the same stream and was ignored: decode each response with its own \
                         decoder"
                    ),
                    );
                    self.ignoring = true;
                    return;
                }
                _ if turn.is_terminated() => {}
                _ => self.response_id = Some(id.to_owned()),
            }
        }
        if let Some(usage) = response.usage_metadata {
            usage_from(turn, usage);
        }
        let terminated = turn.is_terminated();
        if let Some(feedback) = &response.prompt_feedback {
            if let Some(reason) = feedback.block_reason.as_deref().filter(|r| !r.is_empty()) {
                if !terminated {
                    let detail = feedback
                        .block_reason_message
                        .as_deref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default();
                    turn.error(
                        DecodeErrorKind::PromptBlocked,
                        format!("the prompt was blocked ({reason}){detail}"),
                    );
                    self.flush(turn, Close::Cut);
                    turn.set_stop(Some(reason), StopReason::Error);
                    turn.terminate();
                }
                return;
            }
        }
        let Some(candidate) = response.candidates.and_then(|c| c.into_iter().next()) else {
            return;
        };
        let parts = candidate.content.and_then(|c| c.parts).unwrap_or_default();
        if terminated {
            if parts.iter().any(|p| {
                p.function_call
                    .as_ref()
                    .is_some_and(|f| non_empty(&f.name).is_some())
            }) {
                turn.error(
                    DecodeErrorKind::FragmentAfterFinish,
                    "a function call arrived after the turn finished and was ignored",
                );
            }
            return;
        }
        for part in parts {
            self.part(turn, part);
        }
        if let Some(reason) = candidate.finish_reason.as_deref().filter(|r| !r.is_empty()) {
            let stop = match reason {
                "STOP" => StopReason::Stop,
                "MAX_TOKENS" => StopReason::Length,
                _ => StopReason::Error,
            };
            if stop == StopReason::Error {
                let detail = candidate
                    .finish_message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                turn.error(
                    DecodeErrorKind::AbnormalFinish,
                    format!("the model stopped with {reason}{detail}"),
                );
            }
            let close = if stop == StopReason::Stop {
                Close::Implicit
            } else {
                Close::Cut
            };
            self.flush(turn, close);
            turn.set_stop(Some(reason), stop);
            turn.terminate();
        }
    }

    fn part(&mut self, turn: &mut Turn, part: Part<'_>) {
        if let Some(call) = part.function_call {
            self.in_thought = false;
            self.function_call(turn, call, part.thought_signature.as_deref());
            return;
        }
        if let Some(text) = part.text.as_deref() {
            if part.thought == Some(true) {
                if !self.in_thought || (self.block_signed && !text.is_empty()) {
                    turn.start_thinking(None);
                    self.block_signed = false;
                }
                self.in_thought = true;
                turn.thinking(text);
            } else {
                self.in_thought = false;
                turn.text(text);
            }
        }
        if let Some(signature) = part.thought_signature.as_deref().filter(|s| !s.is_empty()) {
            if self.block_signed {
                // Each signature is a whole opaque value: never join two.
                turn.start_thinking(None);
            }
            turn.thinking_signature(signature);
            self.block_signed = true;
        }
    }

    fn function_call(&mut self, turn: &mut Turn, call: FunctionCall<'_>, signature: Option<&str>) {
        let signature = signature.filter(|s| !s.is_empty());
        let Some(name) = non_empty(&call.name) else {
            // QUIRK 27: a nameless part continues or closes the streamed call; never a call.
            let Some(streaming) = &self.streaming else {
                if call.partial_args.is_none() && call.args.is_none() {
                    // The terminator of a call its last part already ended.
                    self.unterminated = None;
                }
                if call.partial_args.as_ref().is_some_and(|a| !a.is_empty()) || call.args.is_some()
                {
                    turn.error(
                        DecodeErrorKind::NamelessFunctionCall,
                        format!(
                            "Gemini event {}: a functionCall part without a name and with no call \
                         streaming was ignored",
                            self.events
                        ),
                    );
                }
                return;
            };
            let handle = streaming.call;
            if let Some(signature) = signature {
                turn.set_metadata(handle, "thoughtSignature", json_string(signature));
            }
            // The empty `{}` is the terminator; after a last part with arguments it should follow.
            let close = if call.partial_args.is_some() || call.args.is_some() {
                Close::LastPart
            } else {
                Close::Terminator
            };
            if let Some(args) = call.partial_args {
                self.partial_args(turn, args);
            }
            if call.will_continue != Some(true) {
                self.flush(turn, close);
            }
            return;
        };
        // A new call: a streamed one still open ended without its terminator.
        self.flush(turn, Close::Implicit);
        // (an id an earlier call has is replaced by the turn, which says so: duplicate-call-id)
        let id = non_empty(&call.id).unwrap_or("");
        let handle = turn.open_call(Executor::Client, CallKind::Function, id, name);
        if let Some(signature) = signature {
            turn.set_metadata(handle, "thoughtSignature", json_string(signature));
        }
        if call.will_continue == Some(true) || call.partial_args.is_some() {
            // Vertex `streamFunctionCallArguments` (Gemini 3): nameless parts follow.
            turn.repair(RepairKind::PartialArgsStreaming, Some(handle));
            self.streaming = Some(Streaming {
                call: handle,
                root: Node::Object(Object::default()),
                string: None,
                conflict_reported: false,
            });
            if let Some(args) = call.partial_args {
                self.partial_args(turn, args);
            }
            if call.will_continue != Some(true) {
                self.flush(turn, Close::Terminator);
            }
        } else {
            if let Some(args) = call.args.filter(|a| a.get() != "null") {
                turn.append_arguments(handle, &compact(args.get()));
            }
            // One part is the whole call: nothing lost elsewhere was part of it.
            turn.end_whole_call(handle);
        }
    }

    fn partial_args(&mut self, turn: &mut Turn, args: Vec<PartialArg<'_>>) {
        let events = self.events;
        let Some(streaming) = self.streaming.as_mut() else {
            return;
        };
        let mut ops = Vec::new();
        let mut problems = Vec::new();
        for arg in args {
            let Some(path_text) = arg.json_path.as_deref() else {
                problems.push("a partial argument without jsonPath was ignored".to_owned());
                continue;
            };
            let path = match parse_path(path_text) {
                Ok(path) => path,
                Err(why) => {
                    problems.push(format!(
                        "the partial argument path {path_text:?} is not valid ({why}); it was \
                         ignored"
                    ));
                    continue;
                }
            };
            let value = if let Some(piece) = arg.string_value {
                Value::String(piece, arg.will_continue == Some(true))
            } else if let Some(number) = arg.number_value {
                match number_json(number) {
                    Some(json) => Value::Json(Node::Number(json.clone()), json),
                    None => {
                        problems.push(format!(
                            "the number at {path_text:?} is not a finite number; it was ignored"
                        ));
                        continue;
                    }
                }
            } else if let Some(value) = arg.bool_value {
                let json = if value { "true" } else { "false" };
                Value::Json(Node::Bool(value), json.to_owned())
            } else if arg.null_value {
                Value::Json(Node::Null, "null".to_owned())
            } else {
                // A path with no value: nothing to set.
                continue;
            };
            match streaming.apply(path, value, &mut ops) {
                Ok(()) => {}
                Err(Problem::Conflict) if streaming.conflict_reported => {}
                Err(Problem::Conflict) => {
                    streaming.conflict_reported = true;
                    problems.push(format!(
                        "the partial argument path {path_text:?} conflicts with an earlier value \
                         of another type, which was replaced"
                    ));
                }
                Err(Problem::IndexGap(index)) => problems.push(format!(
                    "the array index {index} in {path_text:?} is too far past the end of its \
                     array; the value was ignored"
                )),
            }
        }
        for problem in problems {
            turn.error(
                DecodeErrorKind::BadPartialArguments,
                format!("Gemini event {events}: {problem}"),
            );
        }
        if !ops.is_empty() {
            turn.report_partial(streaming.call, ops);
        }
    }

    /// Writes the arguments of the streamed call, and ends it unless `close` is `Cut` (then a
    /// terminal event that follows cuts it).
    fn flush(&mut self, turn: &mut Turn, close: Close) {
        // Something other than the terminator followed the call its last part ended.
        if let Some(call) = self.unterminated.take() {
            turn.repair(RepairKind::MissingTerminalFunctionCall, Some(call));
        }
        let Some(mut streaming) = self.streaming.take() else {
            return;
        };
        let mut ops = Vec::new();
        close_string(&mut streaming.string, &mut ops);
        if !ops.is_empty() {
            turn.report_partial(streaming.call, ops);
        }
        let mut arguments = String::new();
        streaming.root.write(&mut arguments);
        turn.set_final_arguments(streaming.call, arguments);
        match close {
            Close::Implicit => turn.repair(
                RepairKind::MissingTerminalFunctionCall,
                Some(streaming.call),
            ),
            Close::LastPart => self.unterminated = Some(streaming.call),
            Close::Terminator | Close::Cut => {}
        }
        if close != Close::Cut {
            turn.end_call(streaming.call);
        }
    }
}

/// Why a partial argument was not placed as sent.
enum Problem {
    /// An earlier value of another type was on the path; it was replaced.
    Conflict,
    /// An array index too far past the end of its array; the value was ignored.
    IndexGap(usize),
}

/// A value of one partial argument.
enum Value<'a> {
    /// A string piece, and whether more pieces follow.
    String(Cow<'a, str>, bool),
    /// A whole value and its JSON text.
    Json(Node, String),
}

/// Ends the string being continued; one that never grew is reported whole (`""`).
fn close_string(string: &mut Option<OpenString>, ops: &mut Vec<PartialOp>) {
    if let Some(open) = string.take() {
        if !open.appended {
            ops.push(PartialOp::Value {
                path: open.path,
                json: "\"\"".to_owned(),
            });
        }
    }
}

impl Streaming {
    /// Sets one partial argument in the tree and records its preview in `ops`.
    fn apply(
        &mut self,
        path: Vec<PathSegment>,
        value: Value<'_>,
        ops: &mut Vec<PartialOp>,
    ) -> Result<(), Problem> {
        let continuing = self.string.as_ref().is_some_and(|open| open.path == path);
        if !continuing {
            close_string(&mut self.string, ops);
        }
        let mut replaced = false;
        let node = place(&mut self.root, &path, ops, &mut replaced).map_err(Problem::IndexGap)?;
        match value {
            Value::Json(whole, json) => {
                if continuing {
                    self.string = None;
                }
                *node = whole;
                ops.push(PartialOp::Value { path, json });
            }
            Value::String(piece, more) if continuing => {
                match node {
                    Node::String(text) => text.push_str(&piece),
                    other => *other = Node::String(piece.clone().into_owned()),
                }
                if !piece.is_empty() {
                    if let Some(open) = self.string.as_mut() {
                        open.appended = true;
                    }
                    ops.push(PartialOp::Append {
                        path,
                        text: piece.into_owned(),
                    });
                }
                if !more {
                    close_string(&mut self.string, ops);
                }
            }
            Value::String(piece, true) => {
                let appended = !piece.is_empty();
                *node = Node::String(piece.clone().into_owned());
                if appended {
                    ops.push(PartialOp::Append {
                        path: path.clone(),
                        text: piece.into_owned(),
                    });
                }
                self.string = Some(OpenString { path, appended });
            }
            Value::String(piece, false) => {
                let mut json = String::with_capacity(piece.len() + 2);
                push_json_string(&mut json, &piece);
                *node = Node::String(piece.into_owned());
                ops.push(PartialOp::Value { path, json });
            }
        }
        if replaced {
            return Err(Problem::Conflict);
        }
        Ok(())
    }
}

impl Default for GeminiDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl WireDecoder for GeminiDecoder {
    fn recognized(&self) -> bool {
        self.recognized
    }

    fn event(&mut self, turn: &mut Turn, _name: Option<&str>, data: &str) {
        self.events += 1;
        let data = data.trim();
        if self.ignoring || data.is_empty() || data == "[DONE]" {
            return;
        }
        if data.starts_with('[') {
            // A whole JSON-array body handed over as one event.
            match serde_json::from_str::<Vec<&RawValue>>(data) {
                Ok(items) => {
                    for item in items {
                        self.one(turn, item.get());
                    }
                }
                Err(error) => turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Gemini event {} is not a valid response ({error}); it was skipped",
                        self.events
                    ),
                ),
            }
            return;
        }
        self.one(turn, data);
    }

    fn end_of_body(&mut self, turn: &mut Turn) {
        // A streamed call still open: write what arrived (the turn then cuts the call).
        self.flush(turn, Close::Cut);
    }
}

impl GeminiDecoder {
    fn one(&mut self, turn: &mut Turn, data: &str) {
        if self.ignoring {
            return;
        }
        match serde_json::from_str::<GenerateContentResponse>(data) {
            Ok(response) => self.response(turn, response),
            Err(error) => turn.lost_input(
                DecodeErrorKind::UnreadableEvent,
                format!(
                    "Gemini event {} is not a valid response ({error}); it was skipped",
                    self.events
                ),
            ),
        }
    }
}

fn usage_from(turn: &mut Turn, raw: &RawValue) {
    let Ok(parsed) = serde_json::from_str::<GeminiUsage>(raw.get()) else {
        return;
    };
    if parsed.prompt_token_count.is_none()
        && parsed.candidates_token_count.is_none()
        && parsed.total_token_count.is_none()
    {
        // Streams send a usage object without counts in every chunk but the last.
        return;
    }
    let usage = turn.usage_mut();
    usage.input_tokens = parsed.prompt_token_count;
    usage.output_tokens = parsed.candidates_token_count;
    usage.raw = Some(compact(raw.get()));
}

fn error_text(raw: &RawValue) -> String {
    match serde_json::from_str::<ErrorBody>(raw.get()) {
        Ok(ErrorBody {
            message: Some(message),
            code,
            status,
        }) => {
            let mut label = Vec::new();
            if let Some(code) = code.filter(|c| c.get() != "null") {
                label.push(code.get().to_owned());
            }
            if let Some(status) = status.as_deref() {
                label.push(status.to_owned());
            }
            if label.is_empty() {
                message.into_owned()
            } else {
                format!("{message} ({})", label.join(" "))
            }
        }
        _ => compact(raw.get()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::decode_values;
    use super::super::turn::{DecoderOptions, PartialMode};
    use super::*;
    use crate::provider::{Provider, Wire};
    use serde_json::{json, Value as Json};

    /// Pushes each chunk, then finishes; returns all events and the turn.
    fn run_with(options: DecoderOptions, chunks: &[Json]) -> (Vec<Json>, Json) {
        let decoded = decode_values(Wire::Gemini, options, chunks);
        (decoded.events, decoded.turn)
    }

    fn run(chunks: &[Json]) -> (Vec<Json>, Json) {
        run_with(DecoderOptions::default(), chunks)
    }

    fn chunk(parts: Json) -> Json {
        json!({"candidates":[{"content":{"role":"model","parts":parts}}]})
    }

    fn last(parts: Json, reason: &str) -> Json {
        json!({"candidates":[{"content":{"role":"model","parts":parts},"finishReason":reason}],
            "usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":7,"totalTokenCount":19}})
    }

    fn arg(path: &str, value: Json) -> Json {
        let mut arg = json!({"jsonPath": path});
        for (k, v) in value.as_object().unwrap() {
            arg[k] = v.clone();
        }
        arg
    }

    fn partial(args: Json) -> Json {
        chunk(json!([{"functionCall":{"partialArgs":args,"willContinue":true}}]))
    }

    fn start(name: &str) -> Json {
        chunk(json!([{"functionCall":{"name":name,"willContinue":true}}]))
    }

    fn end() -> Json {
        chunk(json!([{"functionCall":{}}]))
    }

    fn partial_ops(events: &[Json]) -> Vec<Json> {
        events
            .iter()
            .filter(|e| e["type"] == "toolcall_delta")
            .filter_map(|e| e.get("partial").cloned())
            .collect()
    }

    #[test]
    fn gemini_whole_call_keeps_provider_key_order() {
        // unary-success-function-call-different-parallel-calls.json / llm-gemini-gemini3: args
        // written {"y":…,"x":…} stay in that order. The raw text keeps the order json! would sort.
        let body = r#"{"candidates":[{"content":{"role":"model","parts":[
            {"functionCall":{"name":"sum","args":{ "y": 1, "x": 2 }}},
            {"functionCall":{"name":"multiply","args":{"y":3,"x":4}}}]},"finishReason":"STOP","index":0}]}"#;
        let mut decoder = Provider::of(Wire::Gemini).stream_decoder(DecoderOptions::default());
        decoder.push(body.as_bytes());
        let turn: Json = serde_json::from_str(&decoder.finish()).unwrap();
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0]["name"], "sum");
        assert_eq!(calls[0]["arguments"], "{\"y\":1,\"x\":2}");
        assert_eq!(calls[1]["arguments"], "{\"y\":3,\"x\":4}");
        assert!(calls.iter().all(|c| c["complete"] == true));
        assert_eq!(turn["stopReason"], "toolUse");
        assert_eq!(turn["rawStopReason"], "STOP");
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn gemini_whole_calls_get_unique_ids() {
        // Gemini omits functionCall.id (google-tool-call, unary parallel calls): generate them.
        let (_, turn) = run(&[
            chunk(json!([{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b"}}])),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        let a = calls[0]["id"].as_str().unwrap();
        let b = calls[1]["id"].as_str().unwrap();
        assert!(!a.is_empty() && !b.is_empty());
        assert_ne!(a, b);
        // Missing args mean no arguments.
        assert_eq!(calls[1]["arguments"], "{}");
        assert_eq!(calls[1]["complete"], true);
    }

    #[test]
    fn gemini_provider_id_is_kept() {
        // pydantic-google-native-output-with-function-tools-stream.0: "id":"96c1su3s".
        let (_, turn) = run(&[
            chunk(json!([{"functionCall":{"name":"get_user_country","args":{},"id":"96c1su3s"}}])),
            last(json!([{"text":""}]), "STOP"),
        ]);
        assert_eq!(turn["toolCalls"][0]["id"], "96c1su3s");
    }

    #[test]
    fn gemini_duplicate_ids_are_replaced() {
        let (_, turn) = run(&[
            chunk(json!([{"functionCall":{"name":"a","args":{},"id":"x1"}}])),
            chunk(json!([{"functionCall":{"name":"b","args":{},"id":"x1"}}])),
            last(json!([]), "STOP"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls[0]["id"], "x1");
        let second = calls[1]["id"].as_str().unwrap();
        assert!(!second.is_empty());
        assert_ne!(second, "x1");
    }

    #[test]
    fn gemini_thought_signature_stays_on_its_call() {
        // QUIRK 26 (googleapis/js-genai#1275; fixture google-stream-no-args-tool-call): only the
        // first of parallel calls carries the signature, and it must stay on that call.
        let (_, turn) = run(&[
            chunk(json!([{"text":"**Plan**","thought":true}])),
            chunk(json!([{"functionCall":{"name":"read_theme"},"thoughtSignature":"SIG1"}])),
            chunk(json!([{"functionCall":{"name":"read_screen","args":{"id":"A"}}}])),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls[0]["providerMetadata"]["thoughtSignature"], "SIG1");
        assert!(calls[1].get("providerMetadata").is_none());
        // The call's signature is not a thinking signature.
        assert_eq!(turn["thinking"], json!([{"text":"**Plan**"}]));
    }

    #[test]
    fn gemini_text_and_thought_signatures_go_to_thinking() {
        // streaming-success-thinking-function-call-thought-summary-signature: thought parts;
        // Gemini 3 puts signatures on text parts too. Two signatures are never joined.
        let (_, turn) = run(&[
            chunk(json!([{"text":"**Calculating**\n\nI've","thought":true}])),
            chunk(json!([{"text":" got it","thought":true,"thoughtSignature":"S1"}])),
            chunk(json!([{"text":"Answer"}])),
            last(json!([{"text":"","thoughtSignature":"S2"}]), "STOP"),
        ]);
        assert_eq!(turn["text"], "Answer");
        assert_eq!(
            turn["thinking"],
            json!([{"text":"**Calculating**\n\nI've got it","signature":"S1"},{"text":"","signature":"S2"}])
        );
        assert_eq!(turn["stopReason"], "stop");
        assert_eq!(turn["usage"]["inputTokens"], 12);
        assert_eq!(turn["usage"]["outputTokens"], 7);
        assert_eq!(turn["usage"]["raw"]["totalTokenCount"], 19);
    }

    #[test]
    fn gemini_partial_args_stream_strings() {
        // google-stream-tool-call-arguments: one string per call, closed by {functionCall:{}}.
        let (events, turn) = run(&[
            chunk(
                json!([{"functionCall":{"name":"getWeather","willContinue":true},"thoughtSignature":"SIG"}]),
            ),
            partial(json!([arg(
                "$.location",
                json!({"stringValue":"Bos","willContinue":true})
            )])),
            partial(json!([arg(
                "$.location",
                json!({"stringValue":"ton","willContinue":true})
            )])),
            partial(json!([arg("$.location", json!({"stringValue":""}))])),
            end(),
            start("getWeather"),
            partial(json!([arg(
                "$.location",
                json!({"stringValue":"San Francisco"})
            )])),
            end(),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0]["arguments"], "{\"location\":\"Boston\"}");
        assert_eq!(calls[0]["providerMetadata"]["thoughtSignature"], "SIG");
        assert_eq!(calls[1]["arguments"], "{\"location\":\"San Francisco\"}");
        assert!(calls[1].get("providerMetadata").is_none());
        assert!(calls.iter().all(|c| c["complete"] == true));
        assert_eq!(turn["stopReason"], "toolUse");
        let ops = partial_ops(&events);
        assert_eq!(ops[0], json!({"path":["location"],"append":"Bos"}));
        assert_eq!(ops[1], json!({"path":["location"],"append":"ton"}));
        // A string that came whole is one value.
        assert!(ops.contains(&json!({"path":["location"],"value":"San Francisco"})));
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn gemini_partial_args_nested_paths() {
        // google-vertex-stream-tool-call-arguments-nested.1: nested keys and indices, strings
        // split across chunks, {functionCall:{willContinue:true}} separators.
        let (events, turn) = run(&[
            chunk(json!([{"functionCall":{"name":"cookRecipe","willContinue":true}}])),
            partial(json!([arg(
                "$.recipe.ingredients[0].amount",
                json!({"stringValue":"16 oz","willContinue":true})
            )])),
            partial(json!([arg(
                "$.recipe.ingredients[0].amount",
                json!({"stringValue":""})
            )])),
            partial(json!([arg(
                "$.recipe.ingredients[0].name",
                json!({"stringValue":"Noodles"})
            )])),
            chunk(json!([{"functionCall":{"willContinue":true}}])),
            partial(json!([arg(
                "$.recipe.ingredients[1]['name']",
                json!({"stringValue":"Beef"})
            )])),
            partial(json!([arg(
                "$.recipe[\"name\"]",
                json!({"stringValue":"Lasagna"})
            )])),
            partial(json!([arg(
                "$.recipe.steps[0]",
                json!({"stringValue":"Preheat to 375°F.","willContinue":true})
            )])),
            partial(json!([arg("$.recipe.steps[0]", json!({"stringValue":""}))])),
            partial(json!([arg(
                "$.recipe.steps[1]",
                json!({"stringValue":"Layer \"noodles\"","willContinue":true})
            )])),
            partial(json!([arg(
                "$.recipe.steps[1]",
                json!({"stringValue":".","willContinue":true})
            )])),
            partial(json!([arg("$.recipe.steps[1]", json!({"stringValue":""}))])),
            partial(json!([
                arg("$.recipe.servings", json!({"numberValue":8.0})),
                arg("$.recipe.ratio", json!({"numberValue":0.5})),
                arg("$.recipe.vegan", json!({"boolValue":false})),
                arg("$.recipe.notes", json!({"nullValue":null}))
            ])),
            chunk(json!([{"functionCall":{}}])),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(
            call["arguments"],
            "{\"recipe\":{\"ingredients\":[{\"amount\":\"16 oz\",\"name\":\"Noodles\"},{\"name\":\"Beef\"}],\
             \"name\":\"Lasagna\",\"steps\":[\"Preheat to 375°F.\",\"Layer \\\"noodles\\\".\"],\
             \"servings\":8,\"ratio\":0.5,\"vegan\":false,\"notes\":null}}"
        );
        assert_eq!(call["complete"], true);
        let ops = partial_ops(&events);
        assert_eq!(
            ops[0],
            json!({"path":["recipe","ingredients",0,"amount"],"append":"16 oz"})
        );
        assert_eq!(
            ops[1],
            json!({"path":["recipe","ingredients",0,"name"],"value":"Noodles"})
        );
        assert!(ops.contains(&json!({"path":["recipe","steps",1],"append":"."})));
        assert!(ops.contains(&json!({"path":["recipe","servings"],"value":8})));
        assert!(ops.contains(&json!({"path":["recipe","notes"],"value":null})));
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn gemini_partial_previews_rebuild_the_arguments() {
        // Applying the previews gives the same value as the final arguments.
        let (events, turn) = run(&[
            start("f"),
            partial(json!([arg(
                "$.a[0]",
                json!({"stringValue":"x","willContinue":true})
            )])),
            partial(json!([arg(
                "$.a[0]",
                json!({"stringValue":"y","willContinue":true})
            )])),
            partial(json!([arg("$.a[0]", json!({"stringValue":""}))])),
            partial(json!([arg(
                "$.a[2]",
                json!({"stringValue":"","willContinue":true})
            )])),
            partial(json!([arg("$.b", json!({"numberValue":3}))])),
            end(),
            last(json!([]), "STOP"),
        ]);
        let mut value = json!({});
        for op in partial_ops(&events) {
            let mut target = &mut value;
            for segment in op["path"].as_array().unwrap() {
                target = match segment {
                    Json::String(key) => {
                        if !target.is_object() {
                            *target = json!({});
                        }
                        target
                            .as_object_mut()
                            .unwrap()
                            .entry(key.clone())
                            .or_insert(Json::Null)
                    }
                    Json::Number(n) => {
                        let i = n.as_u64().unwrap() as usize;
                        if !target.is_array() {
                            *target = json!([]);
                        }
                        let items = target.as_array_mut().unwrap();
                        while items.len() <= i {
                            items.push(Json::Null);
                        }
                        &mut items[i]
                    }
                    _ => unreachable!(),
                };
            }
            if let Some(text) = op.get("append") {
                let mut s = target.as_str().unwrap_or("").to_owned();
                s.push_str(text.as_str().unwrap());
                *target = Json::String(s);
            } else {
                *target = op["value"].clone();
            }
        }
        let arguments: Json =
            serde_json::from_str(turn["toolCalls"][0]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"a":["xy",null,""],"b":3}));
        assert_eq!(value, arguments);
    }

    #[test]
    fn gemini_missing_terminal_function_call() {
        // google-stream-tool-call-array-arguments-missing-terminal-function-call: the last
        // partialArgs part has no willContinue and no {functionCall:{}} follows.
        let (_, turn) = run(&[
            chunk(json!([{"functionCall":{"name":"writeItems","willContinue":true}}])),
            partial(json!([arg(
                "$.operations[0].action",
                json!({"stringValue":"add","willContinue":true})
            )])),
            partial(json!([arg(
                "$.operations[0].action",
                json!({"stringValue":""})
            )])),
            partial(json!([arg(
                "$.operations[0].price",
                json!({"numberValue":0.5})
            )])),
            chunk(
                json!([{"functionCall":{"partialArgs":[{"jsonPath":"$.operations[1].price","numberValue":0.3}]}}]),
            ),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(
            call["arguments"],
            "{\"operations\":[{\"action\":\"add\",\"price\":0.5},{\"price\":0.3}]}"
        );
        assert_eq!(call["complete"], true);
        assert_eq!(turn["stopReason"], "toolUse");
    }

    #[test]
    fn gemini_streamed_call_open_at_stop_is_ended() {
        // No terminator at all before finishReason STOP.
        let (_, turn) = run(&[
            start("f"),
            partial(json!([arg(
                "$.q",
                json!({"stringValue":"abc","willContinue":true})
            )])),
            last(json!([]), "STOP"),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"q\":\"abc\"}");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
    }

    #[test]
    fn gemini_nameless_parts_are_not_calls() {
        // QUIRK 27 (smallmain/vscode-unify-chat-provider#49; fixtures google-stream-*): the
        // continuation and terminator parts have no name and must not become calls.
        let (_, turn) = run(&[
            start("read_screen"),
            partial(json!([arg("$.id", json!({"stringValue":"A"}))])),
            end(),
            end(),
            chunk(json!([{"functionCall":{"willContinue":true}}])),
            last(json!([{"text":""}]), "STOP"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0]["name"], "read_screen");
        assert_eq!(calls[0]["arguments"], "{\"id\":\"A\"}");
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn gemini_orphan_partial_args_are_reported() {
        let (_, turn) = run(&[
            partial(json!([arg("$.x", json!({"stringValue":"1"}))])),
            last(json!([]), "STOP"),
        ]);
        assert!(turn["toolCalls"].as_array().unwrap().is_empty());
        assert_eq!(turn["errors"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn gemini_stop_with_calls_is_tool_use() {
        // Gemini reports STOP for tool turns too (WIRE.md §4; streaming-success-function-call-short
        // has the call and STOP in the same chunk).
        let (events, turn) = run(&[last(
            json!([{"functionCall":{"name":"getTemperature","args":{"city":"San Jose"}}}]),
            "STOP",
        )]);
        assert_eq!(turn["stopReason"], "toolUse");
        assert_eq!(turn["rawStopReason"], "STOP");
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"city\":\"San Jose\"}");
        assert_eq!(events.last().unwrap()["stopReason"], "toolUse");
    }

    #[test]
    fn gemini_max_tokens_cuts_streaming_call() {
        let (_, turn) = run(&[
            start("write"),
            partial(json!([arg(
                "$.text",
                json!({"stringValue":"Once upon","willContinue":true})
            )])),
            last(json!([]), "MAX_TOKENS"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["complete"], false);
        assert_eq!(call["error"]["code"], "INCOMPLETE_ARGUMENTS");
        // What arrived is kept for inspection.
        assert_eq!(call["arguments"], "{\"text\":\"Once upon\"}");
        assert_eq!(turn["stopReason"], "length");
        assert_eq!(turn["rawStopReason"], "MAX_TOKENS");
    }

    #[test]
    fn gemini_body_cut_mid_call_keeps_what_arrived_and_runs_nothing() {
        let (_, turn) = run(&[
            start("write"),
            partial(json!([arg(
                "$.text",
                json!({"stringValue":"Once","willContinue":true})
            )])),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["complete"], false);
        assert_eq!(call["error"]["code"], "INCOMPLETE_ARGUMENTS");
        assert_eq!(call["arguments"], "{\"text\":\"Once\"}");
        assert_eq!(turn["stopReason"], "error");
    }

    #[test]
    fn gemini_other_finish_reasons_are_errors() {
        let (_, turn) = run(&[json!({"candidates":[{"content":{"parts":[]},
            "finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: foo("}]})]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["rawStopReason"], "MALFORMED_FUNCTION_CALL");
        let error = turn["errors"][0].as_str().unwrap();
        assert!(
            error.contains("MALFORMED_FUNCTION_CALL") && error.contains("Malformed function call")
        );
    }

    #[test]
    fn gemini_prompt_block_is_an_error() {
        let (_, turn) = run(&[json!({"promptFeedback":{"blockReason":"SAFETY"}})]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["rawStopReason"], "SAFETY");
        assert!(turn["errors"][0].as_str().unwrap().contains("SAFETY"));
    }

    #[test]
    fn gemini_error_object_ends_the_turn() {
        let (_, turn) = run(&[
            start("f"),
            json!({"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}),
        ]);
        assert_eq!(turn["stopReason"], "error");
        let error = turn["errors"][0].as_str().unwrap();
        assert!(error.contains("Resource exhausted") && error.contains("429"));
        assert_eq!(turn["toolCalls"][0]["complete"], false);
    }

    #[test]
    fn gemini_a_relay_that_changes_the_response_id_is_one_response() {
        // The Chat Completions relay of issue 19, on Gemini's `responseId`: a proxy that forwards
        // later chunks under its own id, and a usage-only trailer after the finish.
        let (_, turn) = run(&[
            json!({"candidates": [{"content": {"parts": [{"text": "a"}]}}], "responseId": "r1"}),
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]}, "finishReason": "STOP"}], "responseId": "relay-2"}),
            json!({"usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}, "responseId": "relay-3"}),
        ]);
        assert_eq!(turn["errors"], json!([]));
        assert_eq!(turn["toolCalls"][0]["name"], "f");
        assert_eq!(turn["usage"]["inputTokens"], 3);
        // A second response after the finish is still reported.
        let (_, turn) = run(&[
            json!({"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"}], "responseId": "r1"}),
            json!({"candidates": [{"content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"}], "responseId": "r2"}),
        ]);
        assert_eq!(turn["text"], "a");
        assert!(turn["errors"][0]
            .as_str()
            .unwrap()
            .contains("second response"));
    }

    #[test]
    fn gemini_json_array_stream_and_unary_body() {
        // llm-gemini-test-tools.0.json-array-stream (no alt=sse) and the unary body.
        let body = "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hm\",\"thought\":true}]}}]}\n,\r\n\
                    {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"pelican\",\"args\":{}},\"thoughtSignature\":\"S\"}]},\
                    \"finishReason\":\"STOP\",\"finishMessage\":\"Model generated function call(s).\"}]}\n]";
        let mut decoder = Provider::of(Wire::Gemini).stream_decoder(DecoderOptions::default());
        decoder.push(body.as_bytes());
        let turn: Json = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["toolCalls"][0]["name"], "pelican");
        assert_eq!(
            turn["toolCalls"][0]["providerMetadata"]["thoughtSignature"],
            "S"
        );
        assert_eq!(turn["stopReason"], "toolUse");
        assert_eq!(turn["errors"], json!([]));
        // The whole array handed over as one event works the same.
        let mut decoder = Provider::of(Wire::Gemini).stream_decoder(DecoderOptions::default());
        decoder.push_event(body);
        let turn: Json = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["toolCalls"][0]["name"], "pelican");
        assert_eq!(turn["stopReason"], "toolUse");
    }

    #[test]
    fn gemini_without_partial_reporting() {
        let options = DecoderOptions {
            partial: PartialMode::None,
            ..DecoderOptions::default()
        };
        let (events, turn) = run_with(
            options,
            &[
                start("f"),
                partial(json!([arg("$.q", json!({"stringValue":"v"}))])),
                end(),
                last(json!([]), "STOP"),
            ],
        );
        assert!(partial_ops(&events).is_empty());
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"q\":\"v\"}");
    }

    #[test]
    fn gemini_unparseable_event_breaks_the_turn() {
        // What the event held (a call, the finish reason) is lost: the turn is not whole.
        let mut decoder = Provider::of(Wire::Gemini).stream_decoder(DecoderOptions::default());
        let events: Json = serde_json::from_str(&decoder.push_event("{\"candidates\":")).unwrap();
        assert!(events[0]["message"].as_str().unwrap().contains("event 1"));
        decoder.push_event(&last(json!([{"text":"hi"}]), "STOP").to_string());
        let turn: Json = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["text"], "hi");
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["errorKinds"], json!(["unreadable-event"]));
    }

    #[test]
    fn gemini_json_paths_parse() {
        let key = |s: &str| PathSegment::Key(s.to_owned());
        assert_eq!(parse_path("$").unwrap(), vec![]);
        assert_eq!(
            parse_path("$.a.b[0]['c.d'][\"e\\\"f\"][12]").unwrap(),
            vec![
                key("a"),
                key("b"),
                PathSegment::Index(0),
                key("c.d"),
                key("e\"f"),
                PathSegment::Index(12)
            ]
        );
        assert_eq!(parse_path("$.ключ").unwrap(), vec![key("ключ")]);
        for bad in [
            "a.b",
            "$..a",
            "$[x]",
            "$['a'",
            "$[1",
            "$a",
            "$[99999999999999999999999]",
        ] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn gemini_numbers_are_written_like_serde_json() {
        let number = |raw: &str| number_json(&RawValue::from_string(raw.to_owned()).unwrap());
        assert_eq!(number("3").as_deref(), Some("3"));
        assert_eq!(number("3.0").as_deref(), Some("3"));
        assert_eq!(number("-0.0").as_deref(), Some("0"));
        assert_eq!(number("0.5").as_deref(), Some("0.5"));
        // Beyond 2^53 (or with a fraction) serde_json's own float text.
        assert_eq!(number("1e300"), serde_json::to_string(&1e300f64).ok());
        assert_eq!(
            number("9007199254740993").as_deref(),
            Some("9007199254740992")
        );
        assert_eq!(number("1e16"), serde_json::to_string(&1e16f64).ok());
        assert_eq!(number("\"NaN\""), None);
    }

    #[test]
    fn gemini_path_conflicts_and_gaps_are_reported_not_fatal() {
        let (_, turn) = run(&[
            start("f"),
            partial(json!([arg("$.a", json!({"stringValue":"x"}))])),
            partial(json!([arg("$.a.b", json!({"boolValue":true}))])),
            partial(json!([arg("$.c[100000]", json!({"boolValue":true}))])),
            end(),
            last(json!([]), "STOP"),
        ]);
        assert_eq!(
            turn["toolCalls"][0]["arguments"],
            "{\"a\":{\"b\":true},\"c\":[]}"
        );
        assert_eq!(turn["errors"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn gemini_many_keys_keep_first_seen_order() {
        let args: Vec<Json> = (0..40)
            .rev()
            .map(|i| arg(&format!("$.k{i}"), json!({"numberValue": i})))
            .collect();
        let (_, turn) = run(&[
            start("f"),
            partial(Json::Array(args)),
            partial(json!([arg("$.k5", json!({"numberValue":55}))])),
            end(),
            last(json!([]), "STOP"),
        ]);
        let text = turn["toolCalls"][0]["arguments"].as_str().unwrap();
        assert!(text.starts_with("{\"k39\":39,\"k38\":38"), "{text}");
        assert!(text.contains("\"k5\":55"));
        assert_eq!(text.matches("\"k5\"").count(), 1);
    }
}
