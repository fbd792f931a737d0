//! OpenAI Responses API decoding (OpenAI, Azure, LM Studio, DeepSeek, GitHub Copilot, AWS
//! Bedrock "mantle" and other servers that speak its event shape).
//!
//! Every event is `{type, sequence_number, ...}`; output items (messages, reasoning, calls)
//! open at `response.output_item.added` and close at `response.output_item.done`. The rules,
//! each from a real provider (see QUIRKS.md and the tests below):
//! - an item is keyed by its `output_index`, and by its id only when an index is absent:
//!   GitHub Copilot sends a new `item_id` on every event of the same item;
//! - the call's `id` is the item's `call_id` (what the result must reference) and its name comes
//!   from `output_item.added` only; argument deltas carry neither (QUIRK 17, 18). The item's own
//!   `id` (`fc_…`) is kept as `providerMetadata.itemId`;
//! - `response.function_call_arguments.done` and `output_item.done` carry the whole arguments and
//!   are authoritative: LM Studio sends no deltas at all, only these (QUIRK 19); an item seen first
//!   in `output_item.done` is opened and ended there;
//! - `custom_tool_call` items are custom calls with free-text input; every other `*_call` item
//!   (web search, file search, code interpreter, tool search, MCP, image generation, …) runs on
//!   the provider and goes to `serverToolCalls` with `providerMetadata.type`; a function call made
//!   by a program (programmatic tool calling) keeps its `caller`;
//! - a reasoning item starts a thinking block; its `encrypted_content` is the block's signature;
//! - the event type is the JSON `type`, or the SSE `event:` name when the JSON has none;
//! - `response.completed` ends the turn, `response.incomplete` stops it for length (or error for
//!   `content_filter`) and cuts open calls, `response.failed` and `error` events end it with an
//!   error;
//! - one decoder decodes one response: a second `response.created` after the end (recordings
//!   that concatenate several responses) is reported and everything after it is ignored;
//! - an event whose `sequence_number` its response already had is a repeat, and ignored
//!   (`repeated-event`): a number names one event of the response. Every real stream here
//!   numbers its events up by one from its `response.created`, never twice (several responses
//!   in one recording each start again from 0, so the numbers are kept per response); an event
//!   arriving out of order under a number not seen yet is new ([`SequenceNumbers`]); events
//!   without a number are all read;
//! - an output index holds one item: an item announced again at it is its repeat (one item,
//!   `repeated-start`), another call announced there while the first is open cuts the first
//!   (`block-index-reused`).
//!
//! Each of these repairs is recorded on the turn ([`RepairKind`]) where it is made.

use std::borrow::Cow;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::decode_error::DecodeErrorKind;
use super::decoder::WireDecoder;
use super::repair::RepairKind;
use super::sequence::SequenceNumbers;
use super::turn::{CallHandle, CallKind, Executor, StopReason, Turn};
use crate::json_text::{compact, json_string, non_empty, push_json_string};

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    output_index: Option<u64>,
    #[serde(borrow, default)]
    item_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    delta: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    response: Option<ResponseObject<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    /// The event's number in its response's stream (read leniently: a server that numbers
    /// its events otherwise loses nothing).
    #[serde(borrow, default)]
    sequence_number: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ResponseObject<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    /// `"response"` on a whole (non-streamed) response body.
    #[serde(borrow, default)]
    object: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    incomplete_details: Option<IncompleteDetails<'a>>,
}

#[derive(Deserialize)]
struct IncompleteDetails<'a> {
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct OutputItem<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// A string for function calls; an object for some built-in calls (tool search).
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    caller: Option<&'a RawValue>,
    #[serde(borrow, default)]
    encrypted_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    summary: Option<Vec<TextPart<'a>>>,
    #[serde(borrow, default)]
    content: Option<Vec<TextPart<'a>>>,
}

/// A summary or content part of a reasoning or message item.
#[derive(Deserialize)]
struct TextPart<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ErrorObject<'a> {
    #[serde(borrow, default)]
    code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ResponsesUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

/// Where an item's events go: its `output_index`, or its id when an index is missing on
/// either side (the item's `id`, the event's `item_id`).
#[derive(Clone)]
struct ItemKey {
    index: Option<u64>,
    id: Option<String>,
}

impl ItemKey {
    fn new(index: Option<u64>, id: Option<&str>) -> Option<ItemKey> {
        (index.is_some() || id.is_some()).then(|| ItemKey {
            index,
            id: id.map(str::to_owned),
        })
    }

    /// The same item: equal indices when both have one (ids rotate on GitHub Copilot), else
    /// equal ids.
    fn matches(&self, other: &ItemKey) -> bool {
        match (self.index, other.index) {
            (Some(a), Some(b)) => a == b,
            _ => self.id.is_some() && self.id == other.id,
        }
    }
}

#[derive(Clone, Copy)]
enum ItemState {
    Call(CallHandle),
    /// A reasoning item; `text_seen` once a thinking delta arrived for it.
    Reasoning {
        text_seen: bool,
    },
    /// A message item; `text_seen` once a text delta arrived for it.
    Message {
        text_seen: bool,
    },
    Other,
}

/// The OpenAI Responses decoder.
pub struct ResponsesDecoder {
    items: Vec<(ItemKey, ItemState)>,
    /// The id of the response being decoded, once `response.created` came.
    response_id: Option<String>,
    /// A second response followed: everything after is ignored.
    ignoring: bool,
    /// The `sequence_number`s of the response so far: an event under one of them is a repeat.
    sequence: SequenceNumbers,
    /// An event of this wire was read (for telling a body that is not the wire at all).
    recognized: bool,
    events: usize,
}

impl ResponsesDecoder {
    /// A decoder.
    pub fn new() -> Self {
        ResponsesDecoder {
            items: Vec::new(),
            response_id: None,
            ignoring: false,
            sequence: SequenceNumbers::new(),
            recognized: false,
            events: 0,
        }
    }

    fn key(event: &Event<'_>) -> Option<ItemKey> {
        ItemKey::new(event.output_index, non_empty(&event.item_id))
    }

    fn item_key(output_index: Option<u64>, item: &OutputItem<'_>) -> Option<ItemKey> {
        ItemKey::new(output_index, non_empty(&item.id))
    }

    fn state(&self, key: &Option<ItemKey>) -> Option<ItemState> {
        let key = key.as_ref()?;
        self.items
            .iter()
            .rev()
            .find(|(k, _)| k.matches(key))
            .map(|(_, state)| *state)
    }

    fn set_state(&mut self, key: &Option<ItemKey>, state: ItemState) {
        let Some(key) = key else {
            return;
        };
        if let Some(entry) = self.items.iter_mut().rev().find(|(k, _)| k.matches(key)) {
            entry.1 = state;
        }
    }

    /// GitHub Copilot: the event names its item by another id than the item's own; it is
    /// matched by `output_index` all the same (the lookups of [`ItemKey::matches`]).
    fn note_rotation(&self, turn: &mut Turn, key: &Option<ItemKey>) {
        let Some(ItemKey {
            index: Some(index),
            id: Some(id),
        }) = key
        else {
            return;
        };
        let stored = self
            .items
            .iter()
            .rev()
            .find(|(k, _)| k.index == Some(*index));
        if let Some((
            ItemKey {
                id: Some(stored), ..
            },
            state,
        )) = stored
        {
            if stored != id {
                let call = match state {
                    ItemState::Call(call) => Some(*call),
                    _ => None,
                };
                turn.repair(RepairKind::ItemIdRotation, call);
            }
        }
    }

    /// Sets a client call's arguments to the whole text of a `.done` event (authoritative);
    /// `announced`: the call was opened by its `output_item.added`.
    fn final_arguments(turn: &mut Turn, call: CallHandle, full: &str, announced: bool) {
        if turn.is_ended(call) {
            return;
        }
        let current = turn.arguments(call);
        if current.is_empty() {
            if announced && !full.is_empty() {
                // LM Studio: no deltas at all, only the `.done` events.
                turn.repair(RepairKind::NoArgumentDeltas, Some(call));
            }
        } else if !full.starts_with(current) {
            turn.repair(RepairKind::ArgumentsCorrected, Some(call));
        }
        turn.replace_arguments(call, full);
    }

    fn call(&self, key: &Option<ItemKey>) -> Option<CallHandle> {
        match self.state(key) {
            Some(ItemState::Call(call)) => Some(call),
            _ => None,
        }
    }

    /// Opens the state of an item (`output_item.added`, or a `done` with no `added`).
    fn open_item(&mut self, turn: &mut Turn, key: Option<ItemKey>, item: &OutputItem<'_>) {
        let kind = item.kind.as_deref().unwrap_or("");
        let state = match kind {
            "function_call" | "custom_tool_call" => {
                let call_kind = if kind == "custom_tool_call" {
                    CallKind::Custom
                } else {
                    CallKind::Function
                };
                let call = turn.open_call(
                    Executor::Client,
                    call_kind,
                    non_empty(&item.call_id).unwrap_or(""),
                    non_empty(&item.name).unwrap_or(""),
                );
                if let Some(id) = non_empty(&item.id) {
                    turn.set_metadata(call, "itemId", json_string(id));
                }
                if let Some(caller) = item.caller {
                    if caller.get() != "null" {
                        turn.set_metadata(call, "caller", compact(caller.get()));
                    }
                }
                let initial = match call_kind {
                    CallKind::Function => item.arguments.and_then(string_value),
                    CallKind::Custom => item.input.clone(),
                };
                if let Some(initial) = initial.filter(|s| !s.is_empty()) {
                    turn.set_initial_arguments(call, initial.into_owned(), None);
                }
                ItemState::Call(call)
            }
            "reasoning" => {
                turn.start_thinking(non_empty(&item.id));
                ItemState::Reasoning { text_seen: false }
            }
            "message" => ItemState::Message { text_seen: false },
            server if server.ends_with("_call") => {
                // Built-in tools run by the provider: web_search_call, file_search_call,
                // code_interpreter_call, tool_search_call, mcp_call, image_generation_call, …
                let name = non_empty(&item.name)
                    .unwrap_or_else(|| server.strip_suffix("_call").unwrap_or(server));
                let call = turn.open_call(
                    Executor::Server,
                    CallKind::Function,
                    non_empty(&item.call_id)
                        .or(non_empty(&item.id))
                        .unwrap_or(""),
                    name,
                );
                turn.set_metadata(call, "type", json_string(server));
                if let Some(id) = non_empty(&item.id) {
                    turn.set_metadata(call, "itemId", json_string(id));
                }
                ItemState::Call(call)
            }
            _ => ItemState::Other,
        };
        if let Some(key) = key {
            self.items.push((key, state));
        }
    }

    fn output_item_added(&mut self, turn: &mut Turn, output_index: Option<u64>, raw: &str) {
        let Some(item) = self.parse_item(turn, raw) else {
            return;
        };
        let key = Self::item_key(output_index, &item);
        // An output index holds one item: an item announced where one is, is its repeat (one
        // item, as an Anthropic block started twice), unless it is another call.
        let mut reused = None;
        match (self.state(&key), item.kind.as_deref().unwrap_or("")) {
            (Some(ItemState::Call(call)), _) if same_call(turn, call, &item) => {
                turn.repair(RepairKind::RepeatedStart, Some(call));
                return;
            }
            (Some(ItemState::Call(call)), _) if !turn.is_ended(call) => {
                turn.error(
                    DecodeErrorKind::BlockIndexReused,
                    format!(
                        "Responses event {}: another output item was announced at the output \
                         index of call {}, which was still open",
                        self.events,
                        turn.call_index(call)
                    ),
                );
                turn.cut_call(call, "another item was announced at its output index");
            }
            (Some(ItemState::Call(_)), _) => reused = output_index,
            (Some(ItemState::Reasoning { .. }), "reasoning")
            | (Some(ItemState::Message { .. }), "message") => {
                turn.repair(RepairKind::RepeatedStart, None);
                return;
            }
            _ => {}
        }
        self.open_item(turn, key.clone(), &item);
        if let (Some(index), Some(ItemState::Call(call))) = (reused, self.state(&key)) {
            turn.repair_with(RepairKind::IndexReused, Some(call), || {
                format!("output_index {index}")
            });
        }
    }

    fn output_item_done(&mut self, turn: &mut Turn, output_index: Option<u64>, raw: &str) {
        let Some(item) = self.parse_item(turn, raw) else {
            return;
        };
        let key = Self::item_key(output_index, &item);
        self.note_rotation(turn, &key);
        let state = match self.state(&key) {
            // The same item finished twice: the first one stands.
            Some(ItemState::Call(call)) if turn.is_ended(call) => return,
            other => other,
        };
        let announced = state.is_some();
        let state = match state {
            Some(state) => state,
            None => {
                // No `added` came for this item: open it here.
                self.open_item(turn, key.clone(), &item);
                match self.state(&key) {
                    Some(state) => state,
                    None => return,
                }
            }
        };
        let kind = item.kind.as_deref().unwrap_or("");
        match state {
            ItemState::Call(call) => {
                // The finished item carries the whole call: what was lost elsewhere in the
                // stream (a delta, another item) was no part of it. Without its arguments, it
                // ends with what the deltas brought, which a loss may have cut.
                let full = match kind {
                    "function_call" => item.arguments.and_then(string_value),
                    "custom_tool_call" => item.input.clone(),
                    _ => Some(Cow::Owned(server_arguments(raw))),
                };
                match full {
                    Some(full) if kind == "function_call" || kind == "custom_tool_call" => {
                        Self::final_arguments(turn, call, &full, announced);
                        turn.end_whole_call(call);
                    }
                    Some(full) => {
                        turn.replace_arguments(call, &full);
                        turn.end_whole_call(call);
                    }
                    None => turn.end_call(call),
                }
            }
            ItemState::Reasoning { text_seen } => {
                if !text_seen {
                    // Thinking that came whole in the item and not as deltas.
                    for part in item.summary.iter().chain(item.content.iter()).flatten() {
                        if let Some(text) = part.text.as_deref() {
                            turn.thinking(text);
                        }
                    }
                }
                if let Some(signature) = non_empty(&item.encrypted_content) {
                    turn.thinking_signature(signature);
                }
            }
            ItemState::Message { text_seen } => {
                if !text_seen {
                    for part in item.content.iter().flatten() {
                        if part.kind.as_deref() == Some("output_text") {
                            if let Some(text) = part.text.as_deref() {
                                turn.text(text);
                            }
                        }
                    }
                }
            }
            ItemState::Other => {}
        }
    }

    fn parse_item<'a>(&self, turn: &mut Turn, raw: &'a str) -> Option<OutputItem<'a>> {
        match serde_json::from_str(raw) {
            Ok(item) => Some(item),
            Err(error) => {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                    "the output item of Responses event {} is not valid ({error}); it was skipped",
                    self.events
                ),
                );
                None
            }
        }
    }

    fn arguments_event(&mut self, turn: &mut Turn, event: &Event<'_>, full: Option<&str>) {
        let key = Self::key(event);
        self.note_rotation(turn, &key);
        let Some(call) = self.call(&key) else {
            turn.lost_input(
                DecodeErrorKind::ArgumentsForUnknownItem,
                format!(
                    "Responses event {} carries arguments for an output item that was never \
                 announced; they were ignored",
                    self.events
                ),
            );
            return;
        };
        match full {
            Some(full) => Self::final_arguments(turn, call, full, true),
            None => {
                if let Some(delta) = event.delta.as_deref() {
                    turn.append_arguments(call, delta);
                }
            }
        }
    }

    fn response_created(&mut self, turn: &mut Turn, event: &Event<'_>) -> bool {
        let id = event
            .response
            .as_ref()
            .and_then(|r| r.id.as_deref())
            .unwrap_or("");
        let Some(open) = &self.response_id else {
            self.response_id = Some(id.to_owned());
            return true;
        };
        if !turn.is_terminated() && open == id {
            // The same response announced twice: nothing to do.
            return true;
        }
        let (kind, message) = if turn.is_terminated() {
            (
                DecodeErrorKind::SeveralResponses,
                format!(
                "a second response ({id:?}) followed the finished response {open:?} in the same \
                 stream and was ignored: decode each response with its own decoder"
            ),
            )
        } else {
            (
                DecodeErrorKind::SplicedStream,
                format!(
                    "a second response ({id:?}) began while response {open:?} was still open: two \
                 responses were spliced into one stream; the rest of the stream was ignored"
                ),
            )
        };
        turn.error(kind, message);
        if !turn.is_terminated() {
            turn.set_stop(None, StopReason::Error);
            turn.terminate();
        }
        self.ignoring = true;
        false
    }

    /// Whether `event` (a `response.created`) names the response being decoded, still open.
    fn is_open(&self, turn: &Turn, event: &Event<'_>) -> bool {
        let id = event.response.as_ref().and_then(|r| r.id.as_deref());
        !turn.is_terminated() && self.response_id.as_deref() == Some(id.unwrap_or(""))
    }

    fn usage(&mut self, turn: &mut Turn, response: Option<&ResponseObject<'_>>) {
        let Some(raw) = response.and_then(|r| r.usage) else {
            return;
        };
        if let Ok(parsed) = serde_json::from_str::<ResponsesUsage>(raw.get()) {
            let usage = turn.usage_mut();
            usage.input_tokens = parsed.input_tokens;
            usage.output_tokens = parsed.output_tokens;
            usage.raw = Some(compact(raw.get()));
        }
    }

    fn end(&mut self, turn: &mut Turn, kind: &str, response: Option<&ResponseObject<'_>>) {
        self.usage(turn, response);
        if self.items.is_empty() {
            // Nothing was streamed (a whole response body, or a server that sends only the
            // final response): take the items from its `output`.
            let output = response.and_then(|r| r.output.as_deref()).unwrap_or(&[]);
            for (index, item) in output.iter().enumerate() {
                self.output_item_done(turn, Some(index as u64), item.get());
            }
        }
        match kind {
            "response.completed" => turn.set_stop(Some("completed"), StopReason::Stop),
            "response.incomplete" => {
                let reason = response
                    .and_then(|r| r.incomplete_details.as_ref())
                    .and_then(|d| d.reason.as_deref())
                    .unwrap_or("incomplete");
                let stop = match reason {
                    "content_filter" => {
                        turn.error(
                            DecodeErrorKind::ContentFilter,
                            "the response was stopped by the provider's content filter",
                        );
                        StopReason::Error
                    }
                    _ => StopReason::Length,
                };
                turn.set_stop(Some(reason), stop);
            }
            _ => {
                // response.failed
                let detail = response
                    .and_then(|r| r.error)
                    .map(error_text)
                    .unwrap_or_else(|| "no details".to_owned());
                turn.error(
                    DecodeErrorKind::ResponseFailed,
                    format!("the response failed: {detail}"),
                );
                turn.set_stop(Some("failed"), StopReason::Error);
            }
        }
        turn.terminate();
    }

    /// A whole (non-streamed) response body: `{object: "response", status, output, usage}`.
    fn whole_response(&mut self, turn: &mut Turn, data: &str) -> bool {
        let Ok(response) = serde_json::from_str::<ResponseObject>(data) else {
            return false;
        };
        if response.object.as_deref() != Some("response") {
            return false;
        }
        let kind = match response.status.as_deref() {
            Some("completed") => "response.completed",
            Some("incomplete") => "response.incomplete",
            Some("failed") => "response.failed",
            _ => return false,
        };
        if self.response_id.is_some() || turn.is_terminated() {
            turn.error(
                DecodeErrorKind::SeveralResponses,
                format!(
                    "Responses event {}: a whole response followed the response already decoded \
                 and was ignored: decode each response with its own decoder",
                    self.events
                ),
            );
            self.ignoring = true;
            return true;
        }
        self.recognized = true;
        self.response_id = Some(response.id.as_deref().unwrap_or("").to_owned());
        turn.repair(RepairKind::WholeResponse, None);
        self.end(turn, kind, Some(&response));
        true
    }

    fn error_event(&mut self, turn: &mut Turn, event: &Event<'_>) {
        let detail = match (event.error, event.message.as_deref()) {
            (Some(error), _) if error.get() != "null" => error_text(error),
            (_, Some(message)) => match event.code.filter(|c| c.get() != "null") {
                Some(code) => format!("{} ({})", message, code.get()),
                None => message.to_owned(),
            },
            _ => "no details".to_owned(),
        };
        turn.error(
            DecodeErrorKind::ProviderError,
            format!("the provider reported an error: {detail}"),
        );
        turn.set_stop(Some("error"), StopReason::Error);
        turn.terminate();
    }

    fn mark_text_seen(&mut self, turn: &mut Turn, event: &Event<'_>) {
        let key = Self::key(event);
        self.note_rotation(turn, &key);
        match self.state(&key) {
            Some(ItemState::Reasoning { .. }) => {
                self.set_state(&key, ItemState::Reasoning { text_seen: true })
            }
            Some(ItemState::Message { .. }) => {
                self.set_state(&key, ItemState::Message { text_seen: true })
            }
            _ => {}
        }
    }
}

impl Default for ResponsesDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl WireDecoder for ResponsesDecoder {
    fn recognized(&self) -> bool {
        self.recognized
    }

    fn event(&mut self, turn: &mut Turn, name: Option<&str>, data: &str) {
        self.events += 1;
        if self.ignoring || data.trim().is_empty() {
            return;
        }
        if data.trim() == "[DONE]" {
            return;
        }
        let event: Event = match serde_json::from_str(data) {
            Ok(event) => event,
            Err(error) => {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Responses event {} is not a valid event ({error}); it was skipped",
                        self.events
                    ),
                );
                return;
            }
        };
        // Some servers name the event only in the SSE `event:` field.
        let kind = match non_empty(&event.kind).or(name.filter(|n| !n.is_empty())) {
            Some(kind) => kind.to_owned(),
            None if self.whole_response(turn, data) => return,
            None => {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Responses event {} has no type; it was skipped",
                        self.events
                    ),
                );
                return;
            }
        };
        if kind.starts_with("response.") || kind == "error" {
            self.recognized = true;
        }
        let sequence = event
            .sequence_number
            .and_then(|n| n.get().parse::<u64>().ok());
        if kind == "response.created" && !self.is_open(turn, &event) {
            // A response begins (or a second one, reported): its numbering starts again.
            if self.response_created(turn, &event) {
                self.sequence = SequenceNumbers::new();
                if let Some(number) = sequence {
                    self.sequence.insert(number);
                }
            }
            return;
        }
        if let Some(number) = sequence {
            if !self.sequence.insert(number) {
                // A number is one event of the response: seen before, this is that event again.
                turn.repair_with(RepairKind::RepeatedEvent, None, || {
                    format!("sequence_number {number} ({kind})")
                });
                return;
            }
        }
        if kind == "response.created" {
            // The open response announced again, under a new number: nothing to do.
            return;
        }
        if turn.is_terminated() {
            return;
        }
        match kind.as_str() {
            "response.output_item.added" => {
                if let Some(item) = event.item {
                    self.output_item_added(turn, event.output_index, item.get());
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.item {
                    self.output_item_done(turn, event.output_index, item.get());
                }
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                self.arguments_event(turn, &event, None)
            }
            "response.function_call_arguments.done" => {
                if let Some(full) = event.arguments.as_deref() {
                    self.arguments_event(turn, &event, Some(full));
                }
            }
            "response.custom_tool_call_input.done" => {
                if let Some(full) = event.input.as_deref() {
                    self.arguments_event(turn, &event, Some(full));
                }
            }
            "response.output_text.delta" => {
                self.mark_text_seen(turn, &event);
                if let Some(delta) = event.delta.as_deref() {
                    turn.text(delta);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.mark_text_seen(turn, &event);
                if let Some(delta) = event.delta.as_deref() {
                    turn.thinking(delta);
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.end(turn, &kind, event.response.as_ref())
            }
            "error" => self.error_event(turn, &event),
            // An event of a call's or an item's family under a type not known, carrying an
            // item or arguments: call data that has no place (a garbled type). Other unknown
            // events (progress, annotations, provider-run calls' own events) carry no client
            // call's data.
            other
                if [
                    "response.function_call",
                    "response.custom_tool_call",
                    "response.output_item.",
                ]
                .iter()
                .any(|family| other.starts_with(family))
                    && (event.item.is_some()
                        || event.delta.is_some()
                        || event.arguments.is_some()
                        || event.input.is_some()) =>
            {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Responses event {} has the unknown type {} but carries a call's data; \
                         it could not be read",
                        self.events,
                        json_string(other)
                    ),
                );
            }
            _ => {}
        }
    }
}

/// Whether `item` is the call `call` announced again: the same `call_id`, or (sent without
/// one) the same name.
fn same_call(turn: &Turn, call: CallHandle, item: &OutputItem<'_>) -> bool {
    match non_empty(&item.call_id) {
        Some(id) => turn.id(call) == id,
        None => turn.name(call) == non_empty(&item.name).unwrap_or(""),
    }
}

/// The text of a JSON string value (`None` when the value is not a string).
fn string_value(raw: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str::<Cow<'_, str>>(raw.get()).ok()
}

/// `{code, message}` (or anything else) as one line of text.
fn error_text(raw: &RawValue) -> String {
    match serde_json::from_str::<ErrorObject>(raw.get()) {
        Ok(ErrorObject {
            message: Some(message),
            code,
        }) => match code.filter(|c| c.get() != "null") {
            Some(code) => format!("{} ({})", message, code.get()),
            None => message.into_owned(),
        },
        _ => compact(raw.get()),
    }
}

/// The fields of a JSON object in the order written.
struct OrderedFields<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for OrderedFields<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldsVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for FieldsVisitor<'a> {
            type Value = OrderedFields<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key::<Cow<'a, str>>()? {
                    let value: &'a RawValue = map.next_value()?;
                    fields.push((key, value));
                }
                Ok(OrderedFields(fields))
            }
        }
        deserializer.deserialize_map(FieldsVisitor(std::marker::PhantomData))
    }
}

/// The arguments of a built-in (provider-run) call, from its finished item: its `arguments` (a
/// JSON string for MCP calls, an object for tool search), else its `action` (web search), else
/// the item's input fields (code interpreter `code`, file search `queries`, …) without its
/// identity, status and results.
fn server_arguments(raw: &str) -> String {
    const NOT_INPUT: &[&str] = &[
        "id",
        "type",
        "status",
        "name",
        "call_id",
        "execution",
        "output",
        "outputs",
        "result",
        "results",
        "error",
    ];
    let Ok(OrderedFields(fields)) = serde_json::from_str::<OrderedFields>(raw) else {
        return "{}".to_owned();
    };
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, v)| k == name && v.get() != "null")
            .map(|(_, v)| *v)
    };
    if let Some(arguments) = field("arguments") {
        return match string_value(arguments) {
            Some(text) if !text.trim().is_empty() => text.into_owned(),
            Some(_) => "{}".to_owned(),
            None => compact(arguments.get()),
        };
    }
    if let Some(action) = field("action") {
        if action.get().trim_start().starts_with('{') {
            return compact(action.get());
        }
    }
    let mut out = String::from("{");
    for (key, value) in fields
        .iter()
        .filter(|(k, v)| !NOT_INPUT.contains(&k.as_ref()) && v.get() != "null")
    {
        if out.len() > 1 {
            out.push(',');
        }
        push_json_string(&mut out, key);
        out.push(':');
        out.push_str(&compact(value.get()));
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::decode_values;
    use super::super::turn::DecoderOptions;
    use crate::provider::{Provider, Wire};
    use serde_json::{json, Value};

    fn decoder() -> super::super::decoder::StreamDecoder {
        Provider::of(Wire::OpenAiResponses).stream_decoder(DecoderOptions::default())
    }

    /// Pushes each event (JSON values), then finishes; returns all events and the turn.
    fn run(events: &[Value]) -> (Vec<Value>, Value) {
        let decoded = decode_values(Wire::OpenAiResponses, DecoderOptions::default(), events);
        (decoded.events, decoded.turn)
    }

    fn created(id: &str) -> Value {
        json!({"type":"response.created","response":{"id":id,"status":"in_progress","output":[],"usage":null}})
    }

    fn completed(id: &str) -> Value {
        json!({"type":"response.completed","response":{"id":id,"status":"completed",
            "usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}})
    }

    fn fc_added(index: u64, item_id: &str, call_id: &str, name: &str) -> Value {
        json!({"type":"response.output_item.added","output_index":index,
            "item":{"type":"function_call","id":item_id,"call_id":call_id,"name":name,
                "arguments":"","status":"in_progress"}})
    }

    fn fc_delta(index: u64, item_id: &str, delta: &str) -> Value {
        json!({"type":"response.function_call_arguments.delta","item_id":item_id,
            "output_index":index,"delta":delta})
    }

    fn fc_args_done(index: u64, item_id: &str, arguments: &str) -> Value {
        json!({"type":"response.function_call_arguments.done","item_id":item_id,
            "output_index":index,"arguments":arguments})
    }

    fn fc_done(index: u64, item_id: &str, call_id: &str, name: &str, arguments: &str) -> Value {
        json!({"type":"response.output_item.done","output_index":index,
            "item":{"type":"function_call","id":item_id,"call_id":call_id,"name":name,
                "arguments":arguments,"status":"completed"}})
    }

    #[test]
    fn responses_single_call_with_deltas() {
        // Seen in azure-tool-call.1 / pydantic-openai-responses-stream.0.
        let (events, turn) = run(&[
            created("resp_1"),
            fc_added(0, "fc_1", "call_1", "weather"),
            fc_delta(0, "fc_1", "{\"location\":"),
            fc_delta(0, "fc_1", "\"San Francisco\"}"),
            fc_args_done(0, "fc_1", "{\"location\":\"San Francisco\"}"),
            fc_done(
                0,
                "fc_1",
                "call_1",
                "weather",
                "{\"location\":\"San Francisco\"}",
            ),
            completed("resp_1"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["id"], "call_1");
        assert_eq!(call["name"], "weather");
        assert_eq!(call["arguments"], "{\"location\":\"San Francisco\"}");
        assert_eq!(call["complete"], true);
        assert_eq!(call["providerMetadata"]["itemId"], "fc_1");
        assert_eq!(turn["stopReason"], "toolUse");
        assert_eq!(turn["rawStopReason"], "completed");
        assert_eq!(turn["usage"]["inputTokens"], 10);
        assert_eq!(turn["usage"]["outputTokens"], 5);
        assert_eq!(turn["usage"]["raw"]["total_tokens"], 15);
        assert_eq!(turn["errors"], json!([]));
        let deltas: String = events
            .iter()
            .filter(|e| e["type"] == "toolcall_delta")
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(deltas, "{\"location\":\"San Francisco\"}");
        assert_eq!(events.last().unwrap()["type"], "done");
    }

    #[test]
    fn responses_item_id_rotation_is_keyed_by_output_index() {
        // GitHub Copilot (fixture github-copilot-id-rotation.1): item_id differs on every event.
        let (_, turn) = run(&[
            created("capture-id-1"),
            fc_added(1, "capture-id-3", "call_7", "count"),
            fc_delta(1, "capture-id-4", "{\"letter\":"),
            fc_delta(1, "capture-id-5", "\"r\"}"),
            fc_args_done(1, "capture-id-6", "{\"letter\":\"r\"}"),
            fc_done(1, "capture-id-7", "call_7", "count", "{\"letter\":\"r\"}"),
            completed("capture-id-8"),
        ]);
        assert_eq!(turn["toolCalls"].as_array().unwrap().len(), 1);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["arguments"], "{\"letter\":\"r\"}");
        assert_eq!(call["complete"], true);
        assert_eq!(call["providerMetadata"]["itemId"], "capture-id-3");
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_item_id_is_the_key_without_output_index() {
        // Servers that omit output_index: fall back to item_id.
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added",
                "item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"f"}}),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_a","delta":"{}"}),
            json!({"type":"response.output_item.done",
                "item":{"type":"function_call","id":"fc_a","call_id":"call_a","name":"f","arguments":"{}"}}),
            completed("r"),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{}");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_delta_without_index_finds_its_item_by_id() {
        let (_, turn) = run(&[
            created("r"),
            fc_added(3, "fc_a", "call_a", "f"),
            json!({"type":"response.function_call_arguments.delta","item_id":"fc_a","delta":"{\"k\":1}"}),
            completed("r"),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"k\":1}");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_name_only_in_output_item_added() {
        // QUIRK 17 (voocel/litellm#4): deltas and .done carry neither name nor call_id.
        let (events, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_abc", "get_capital"),
            fc_delta(0, "fc_1", "{\"country\":\"France\"}"),
            json!({"type":"response.function_call_arguments.done","item_id":"fc_1",
                "output_index":0,"arguments":"{\"country\":\"France\"}"}),
            json!({"type":"response.output_item.done","output_index":0,
                "item":{"type":"function_call","id":"fc_1","arguments":"{\"country\":\"France\"}"}}),
            completed("r"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["name"], "get_capital");
        assert_eq!(call["id"], "call_abc");
        let start = events
            .iter()
            .find(|e| e["type"] == "toolcall_start")
            .unwrap();
        assert_eq!(start["name"], "get_capital");
        assert_eq!(start["id"], "call_abc");
    }

    #[test]
    fn responses_no_deltas_takes_done_arguments() {
        // LM Studio (fixtures lmstudio-tool-call.1/.2): no argument deltas, only the .done events.
        let (events, turn) = run(&[
            created("r"),
            fc_added(2, "fc_z", "call_2025", "weather"),
            fc_args_done(2, "fc_z", "{\"location\":\"San Francisco\"}"),
            fc_done(
                2,
                "fc_z",
                "call_2025",
                "weather",
                "{\"location\":\"San Francisco\"}",
            ),
            completed("r"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["arguments"], "{\"location\":\"San Francisco\"}");
        assert_eq!(call["complete"], true);
        assert_eq!(turn["stopReason"], "toolUse");
        // The .done text is reported once as a delta, not again by output_item.done.
        let deltas: Vec<&str> = events
            .iter()
            .filter(|e| e["type"] == "toolcall_delta")
            .filter_map(|e| e["delta"].as_str())
            .filter(|d| !d.is_empty())
            .collect();
        assert_eq!(deltas, vec!["{\"location\":\"San Francisco\"}"]);
    }

    #[test]
    fn responses_done_without_added_opens_and_ends_the_call() {
        let (_, turn) = run(&[
            created("r"),
            fc_done(0, "fc_1", "call_1", "lookup", "{\"q\":1}"),
            completed("r"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["id"], "call_1");
        assert_eq!(call["name"], "lookup");
        assert_eq!(call["arguments"], "{\"q\":1}");
        assert_eq!(call["complete"], true);
    }

    #[test]
    fn responses_done_arguments_replace_wrong_deltas() {
        let (_, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_1", "f"),
            fc_delta(0, "fc_1", "{\"a\":1"),
            fc_done(0, "fc_1", "call_1", "f", "{\"a\":2}"),
            completed("r"),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"a\":2}");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
    }

    #[test]
    fn responses_interleaved_calls() {
        // QUIRK 18: a single "current item" misroutes interleaved deltas; output_index keys them.
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"type":"reasoning","id":"rs_1","summary":[]}}),
            json!({"type":"response.output_item.done","output_index":0,
                "item":{"type":"reasoning","id":"rs_1","summary":[]}}),
            fc_added(1, "fc_a", "call_a", "alpha"),
            fc_added(2, "fc_b", "call_b", "beta"),
            fc_delta(1, "fc_a", "{\"x\":"),
            fc_delta(2, "fc_b", "{\"y\":"),
            fc_delta(2, "fc_b", "2}"),
            fc_delta(1, "fc_a", "1}"),
            fc_done(2, "fc_b", "call_b", "beta", "{\"y\":2}"),
            fc_done(1, "fc_a", "call_a", "alpha", "{\"x\":1}"),
            completed("r"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0]["name"], "alpha");
        assert_eq!(calls[0]["arguments"], "{\"x\":1}");
        assert_eq!(calls[1]["name"], "beta");
        assert_eq!(calls[1]["arguments"], "{\"y\":2}");
        assert!(calls.iter().all(|c| c["complete"] == true));
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_custom_tool_call_keeps_free_text() {
        // openai-custom-tool.1: custom_tool_call with free-text input deltas.
        let (events, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"type":"custom_tool_call","id":"ct_1","call_id":"call_sql","name":"write_sql","input":""}}),
            json!({"type":"response.custom_tool_call_input.delta","item_id":"ct_1","output_index":0,"delta":"SELECT * "}),
            json!({"type":"response.custom_tool_call_input.delta","item_id":"ct_1","output_index":0,"delta":"FROM users"}),
            json!({"type":"response.output_item.done","output_index":0,
                "item":{"type":"custom_tool_call","id":"ct_1","call_id":"call_sql","name":"write_sql",
                    "input":"SELECT * FROM users","status":"completed"}}),
            completed("r"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["kind"], "custom");
        assert_eq!(call["id"], "call_sql");
        assert_eq!(call["name"], "write_sql");
        assert_eq!(call["arguments"], "SELECT * FROM users");
        assert_eq!(call["complete"], true);
        assert!(call.get("error").is_none());
        assert_eq!(turn["stopReason"], "toolUse");
        let start = events
            .iter()
            .find(|e| e["type"] == "toolcall_start")
            .unwrap();
        assert_eq!(start["kind"], "custom");
    }

    #[test]
    fn responses_custom_tool_input_done_event() {
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"type":"custom_tool_call","id":"ct_1","call_id":"c","name":"patch","input":""}}),
            json!({"type":"response.custom_tool_call_input.done","item_id":"ct_1","output_index":0,"input":"*** Begin"}),
            completed("r"),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "*** Begin");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
    }

    #[test]
    fn responses_builtin_tools_are_server_calls() {
        // openai-tool-search.1: tool_search_call has object arguments; web_search_call an action.
        let (events, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"id":"tsc_1","type":"tool_search_call","status":"in_progress","arguments":{},"call_id":null,"execution":"server"}}),
            json!({"type":"response.output_item.done","output_index":0,
                "item":{"id":"tsc_1","type":"tool_search_call","status":"completed","arguments":{"paths":["get_weather"]},"call_id":null,"execution":"server"}}),
            json!({"type":"response.output_item.added","output_index":1,
                "item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}),
            json!({"type":"response.web_search_call.searching","output_index":1,"item_id":"ws_1"}),
            json!({"type":"response.output_item.done","output_index":1,
                "item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"weather sf"}}}),
            json!({"type":"response.output_item.done","output_index":2,
                "item":{"id":"ci_1","type":"code_interpreter_call","status":"completed","code":"print(1)","container_id":"cntr","outputs":[{"type":"logs","logs":"1"}]}}),
            json!({"type":"response.output_item.done","output_index":3,
                "item":{"id":"mcp_1","type":"mcp_call","name":"roll","server_label":"dice","arguments":"{\"sides\":6}","output":"4"}}),
            fc_added(4, "fc_1", "call_1", "get_weather"),
            fc_done(4, "fc_1", "call_1", "get_weather", "{}"),
            completed("r"),
        ]);
        let server = turn["serverToolCalls"].as_array().unwrap();
        assert_eq!(server.len(), 4);
        assert_eq!(server[0]["name"], "tool_search");
        assert_eq!(server[0]["arguments"], "{\"paths\":[\"get_weather\"]}");
        assert_eq!(server[0]["providerMetadata"]["type"], "tool_search_call");
        assert_eq!(server[0]["id"], "tsc_1");
        assert_eq!(server[1]["name"], "web_search");
        let arguments = |i: usize| -> Value {
            serde_json::from_str(server[i]["arguments"].as_str().unwrap()).unwrap()
        };
        assert_eq!(arguments(1), json!({"type":"search","query":"weather sf"}));
        assert_eq!(server[2]["name"], "code_interpreter");
        // Identity, status and results are left out.
        assert_eq!(
            arguments(2),
            json!({"code":"print(1)","container_id":"cntr"})
        );
        assert_eq!(server[3]["name"], "roll");
        assert_eq!(server[3]["arguments"], "{\"sides\":6}");
        assert!(server.iter().all(|c| c["complete"] == true));
        let client = turn["toolCalls"].as_array().unwrap();
        assert_eq!(client.len(), 1);
        assert_eq!(client[0]["index"], 0);
        assert_eq!(turn["stopReason"], "toolUse");
        // Server calls make no toolcall events.
        let starts: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "toolcall_start")
            .collect();
        assert_eq!(starts.len(), 1);
    }

    #[test]
    fn responses_programmatic_call_keeps_caller() {
        // programmatic-tool-calling.1: function_call with caller {type:"program", caller_id}.
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":1,
                "item":{"type":"program","id":"prg_1"}}),
            json!({"type":"response.output_item.added","output_index":2,
                "item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_v",
                    "caller":{"type":"program","caller_id":"call_p"},"name":"getInventory"}}),
            fc_delta(2, "fc_1", "{\"sku\":\"sku_123\"}"),
            json!({"type":"response.output_item.done","output_index":2,
                "item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"{\"sku\":\"sku_123\"}",
                    "call_id":"call_v","caller":{"type":"program","caller_id":"call_p"},"name":"getInventory"}}),
            completed("r"),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(
            call["providerMetadata"]["caller"],
            json!({"type":"program","caller_id":"call_p"})
        );
        assert_eq!(call["providerMetadata"]["itemId"], "fc_1");
        assert_eq!(call["complete"], true);
        assert!(turn["serverToolCalls"].as_array().unwrap().is_empty());
    }

    #[test]
    fn responses_incomplete_max_output_tokens_cuts_calls() {
        let (_, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_1", "write"),
            fc_delta(0, "fc_1", "{\"text\":\"abc"),
            json!({"type":"response.incomplete","response":{"id":"r","status":"incomplete",
                "incomplete_details":{"reason":"max_output_tokens"},
                "usage":{"input_tokens":3,"output_tokens":100}}}),
        ]);
        let call = &turn["toolCalls"][0];
        assert_eq!(call["complete"], false);
        assert_eq!(call["error"]["code"], "INCOMPLETE_ARGUMENTS");
        assert_eq!(call["arguments"], "{\"text\":\"abc");
        assert_eq!(turn["stopReason"], "length");
        assert_eq!(turn["rawStopReason"], "max_output_tokens");
        assert_eq!(turn["usage"]["outputTokens"], 100);
    }

    #[test]
    fn responses_incomplete_content_filter_is_an_error() {
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.incomplete","response":{"id":"r",
                "incomplete_details":{"reason":"content_filter"}}}),
        ]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["rawStopReason"], "content_filter");
        assert_eq!(turn["errors"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn responses_failed_reports_the_error() {
        let (events, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_1", "f"),
            fc_delta(0, "fc_1", "{\"a\":"),
            json!({"type":"response.failed","response":{"id":"r","status":"failed",
                "error":{"code":"server_error","message":"The model crashed"}}}),
        ]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["rawStopReason"], "failed");
        let errors = turn["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].as_str().unwrap().contains("The model crashed"));
        assert!(errors[0].as_str().unwrap().contains("server_error"));
        assert_eq!(
            turn["toolCalls"][0]["error"]["code"],
            "INCOMPLETE_ARGUMENTS"
        );
        assert_eq!(events.last().unwrap()["stopReason"], "error");
    }

    #[test]
    fn responses_error_event_ends_the_turn() {
        // WIRE.md §0: Responses mid-stream errors are `type: "error"` events.
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null}),
            json!({"type":"response.output_text.delta","output_index":0,"delta":"ignored"}),
        ]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["text"], "");
        let errors = turn["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].as_str().unwrap().contains("Slow down"));
    }

    #[test]
    fn responses_text_and_reasoning_with_encrypted_content() {
        // openai-reasoning-encrypted-content.1 / lmstudio-tool-call.1 (reasoning_text deltas).
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"type":"reasoning","id":"rs_1","summary":[]}}),
            json!({"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","delta":"**Plan**"}),
            json!({"type":"response.reasoning_text.delta","output_index":0,"item_id":"rs_1","delta":" go"}),
            json!({"type":"response.output_item.done","output_index":0,
                "item":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Plan** go"}],
                    "encrypted_content":"gAAAA"}}),
            json!({"type":"response.output_item.added","output_index":1,
                "item":{"type":"reasoning","id":"rs_2","summary":[]}}),
            json!({"type":"response.output_item.done","output_index":1,
                "item":{"type":"reasoning","id":"rs_2","summary":[{"type":"summary_text","text":"whole"}],
                    "encrypted_content":"gBBBB"}}),
            json!({"type":"response.output_item.added","output_index":2,
                "item":{"type":"message","id":"msg_1","content":[]}}),
            json!({"type":"response.output_text.delta","output_index":2,"item_id":"msg_1","delta":"Hello"}),
            json!({"type":"response.output_text.delta","output_index":2,"item_id":"msg_1","delta":" there"}),
            json!({"type":"response.output_item.done","output_index":2,
                "item":{"type":"message","id":"msg_1","content":[{"type":"output_text","text":"Hello there"}]}}),
            completed("r"),
        ]);
        assert_eq!(turn["text"], "Hello there");
        assert_eq!(
            turn["thinking"],
            json!([{"text":"**Plan** go","signature":"gAAAA","id":"rs_1"},{"text":"whole","signature":"gBBBB","id":"rs_2"}])
        );
        assert_eq!(turn["stopReason"], "stop");
        assert_eq!(turn["rawStopReason"], "completed");
    }

    #[test]
    fn responses_type_only_in_sse_event_name() {
        // Servers that put the event type only in the SSE `event:` field.
        let body = "event: response.created\ndata: {\"response\":{\"id\":\"r\"}}\n\n\
                    event: response.output_item.added\ndata: {\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"f\"}}\n\n\
                    data: {\"output_index\":0,\"delta\":\"{}\"}\nevent: response.function_call_arguments.delta\n\n\
                    event: response.output_item.done\ndata: {\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{}\"}}\n\n\
                    event: response.completed\ndata: {\"response\":{\"id\":\"r\",\"status\":\"completed\"}}\n\n";
        let mut decoder = decoder();
        decoder.push(body.as_bytes());
        let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["toolCalls"][0]["arguments"], "{}");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
        assert_eq!(turn["rawStopReason"], "completed");
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_second_response_is_ignored() {
        // Recordings that concatenate several responses (openai-reasoning-encrypted-content.1),
        // and Bedrock "mantle" reusing call_0 / call_1 across responses.
        let (_, turn) = run(&[
            created("r1"),
            fc_added(0, "fc_1", "call_0", "first_tool"),
            fc_done(0, "fc_1", "call_0", "first_tool", "{}"),
            completed("r1"),
            created("r2"),
            fc_added(0, "fc_2", "call_0", "second_tool"),
            fc_done(0, "fc_2", "call_0", "second_tool", "{}"),
            completed("r2"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0]["name"], "first_tool");
        let errors = turn["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].as_str().unwrap().contains("second response"));
        assert_eq!(turn["stopReason"], "toolUse");
    }

    #[test]
    fn responses_unparseable_event_breaks_the_turn() {
        // parallel-tool-call-wrapper.1 has lines that are not valid JSON. What the event held is
        // lost, so the turn is not whole.
        let mut decoder = decoder();
        decoder.push_event(&created("r").to_string());
        let events: Value =
            serde_json::from_str(&decoder.push_event("{\"type\":\"response.output_text.delta\","))
                .unwrap();
        assert!(events[0]["message"].as_str().unwrap().contains("event 2"));
        decoder.push_event(&completed("r").to_string());
        let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["errorKinds"], json!(["unreadable-event"]));
    }

    #[test]
    fn responses_whole_body_is_decoded() {
        // A non-streamed response (`stream: false`): one JSON object, no `type`.
        let body = r#"{"id":"resp_1","object":"response","status":"completed","output":[
            {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"enc"},
            {"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Sure."}]},
            {"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"location\":\"Paris\"}","status":"completed"}],
            "usage":{"input_tokens":4,"output_tokens":9}}"#;
        let mut decoder = decoder();
        decoder.push(body.as_bytes());
        let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
        assert_eq!(turn["toolCalls"][0]["id"], "call_1");
        assert_eq!(
            turn["toolCalls"][0]["arguments"],
            "{\"location\":\"Paris\"}"
        );
        assert_eq!(turn["toolCalls"][0]["complete"], true);
        assert_eq!(turn["text"], "Sure.");
        assert_eq!(
            turn["thinking"],
            json!([{"text":"think","signature":"enc","id":"rs_1"}])
        );
        assert_eq!(turn["stopReason"], "toolUse");
        assert_eq!(turn["usage"]["outputTokens"], 9);
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_completed_output_is_used_when_nothing_streamed() {
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.completed","response":{"id":"r","status":"completed","output":[
                {"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}]}}),
        ]);
        assert_eq!(turn["toolCalls"][0]["name"], "f");
        assert_eq!(turn["toolCalls"][0]["complete"], true);
        assert_eq!(turn["stopReason"], "toolUse");
    }

    /// The events numbered from 0 by `sequence_number`, as real streams number them.
    fn numbered(events: &[Value]) -> Vec<Value> {
        events
            .iter()
            .enumerate()
            .map(|(n, event)| {
                let mut event = event.clone();
                event["sequence_number"] = json!(n);
                event
            })
            .collect()
    }

    /// `events` with the one at `place` sent twice in a row.
    fn repeated(mut events: Vec<Value>, place: usize) -> Vec<Value> {
        let again = events[place].clone();
        events.insert(place + 1, again);
        events
    }

    fn text_item(index: u64) -> [Value; 3] {
        [
            json!({"type":"response.output_item.added","output_index":index,
                "item":{"type":"message","id":"msg_1","content":[]}}),
            json!({"type":"response.output_text.delta","output_index":index,"item_id":"msg_1","delta":"Hello"}),
            json!({"type":"response.output_item.done","output_index":index,
                "item":{"type":"message","id":"msg_1","content":[{"type":"output_text","text":"Hello"}]}}),
        ]
    }

    fn call_stream() -> Vec<Value> {
        let mut events = vec![created("r")];
        events.extend(text_item(0));
        events.extend([
            fc_added(1, "fc_1", "call_1", "read"),
            fc_delta(1, "fc_1", "{\"path\":"),
            fc_delta(1, "fc_1", "\"a\"}"),
            fc_done(1, "fc_1", "call_1", "read", "{\"path\":\"a\"}"),
            completed("r"),
        ]);
        events
    }

    #[test]
    fn responses_a_repeated_event_is_dropped_by_its_sequence_number() {
        // A relay that sends an event twice: its number says it is the same event. Without
        // the number a repeated text delta would repeat its text, and a repeated argument delta
        // would corrupt the arguments of a stream that ends before its `.done` events.
        let stream = numbered(&call_stream());
        let clean = run(&stream).1;
        for place in 1..stream.len() {
            let (_, turn) = run(&repeated(stream.clone(), place));
            assert_eq!(turn["text"], clean["text"], "event {place}");
            assert_eq!(turn["toolCalls"], clean["toolCalls"], "event {place}");
            assert_eq!(turn["stopReason"], "toolUse", "event {place}");
            assert_eq!(turn["errors"], json!([]), "event {place}");
            let kind = stream[place]["type"].as_str().unwrap();
            assert_eq!(
                turn["repairs"],
                json!([{"kind": "repeated-event", "detail": format!("sequence_number {place} ({kind})")}]),
                "event {place}"
            );
        }
        // Cut after a repeated argument delta: the arguments are still what was sent once.
        let cut: Vec<Value> = repeated(stream.clone(), 5).into_iter().take(8).collect();
        let (_, turn) = run(&cut);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"path\":\"a\"}");
        assert_eq!(turn["toolCalls"][0]["complete"], false);
    }

    #[test]
    fn responses_events_out_of_order_are_not_repeats() {
        // Parallel calls whose events a relay interleaved, keeping their numbers: each number
        // is new once, so nothing is dropped (the done events carry the arguments).
        let mut events = vec![created("r")];
        events.extend([
            fc_added(0, "fc_1", "call_1", "read"),
            fc_delta(0, "fc_1", "{\"path\":\"a\"}"),
            fc_done(0, "fc_1", "call_1", "read", "{\"path\":\"a\"}"),
            fc_added(1, "fc_2", "call_2", "list"),
            fc_delta(1, "fc_2", "{\"dir\":\"b\"}"),
            fc_done(1, "fc_2", "call_2", "list", "{\"dir\":\"b\"}"),
            completed("r"),
        ]);
        let events = numbered(&events);
        let clean = run(&events).1;
        let mixed: Vec<Value> = [0, 1, 4, 2, 5, 3, 6, 7]
            .iter()
            .map(|&i| events[i].clone())
            .collect();
        let (_, turn) = run(&mixed);
        assert_eq!(turn["toolCalls"], clean["toolCalls"]);
        assert_eq!(turn["repairs"], json!([]));
        assert_eq!(turn["errors"], json!([]));
    }

    #[test]
    fn responses_numbering_restarts_with_each_response() {
        // openai-reasoning-encrypted-content.1 holds several responses, each numbered from 0:
        // the second is still found and reported, not taken for repeats.
        let mut events = numbered(&call_stream());
        let mut second = call_stream();
        second[0] = created("r2");
        events.extend(numbered(&second));
        let (_, turn) = run(&events);
        assert_eq!(turn["toolCalls"].as_array().unwrap().len(), 1);
        assert_eq!(turn["repairs"], json!([]));
        assert_eq!(turn["errorKinds"], json!(["several-responses"]));
    }

    #[test]
    fn responses_events_without_numbers_are_all_read() {
        // pydantic-openai-responses-stream, openai-custom-tool: no sequence_number at all.
        let (_, turn) = run(&repeated(call_stream(), 2));
        assert_eq!(
            turn["text"], "HelloHello",
            "nothing tells a repeated delta from new text"
        );
        assert_eq!(turn["repairs"], json!([]));
    }

    #[test]
    fn responses_an_item_announced_again_is_one_call() {
        // Unnumbered, an `output_item.added` repeated before or after the item's end: one call,
        // never a second one that would run with arguments it never received.
        for place in [5, 8] {
            let mut events = call_stream();
            events.insert(place, fc_added(1, "fc_1", "call_1", "read"));
            let (_, turn) = run(&events);
            let calls = turn["toolCalls"].as_array().unwrap();
            assert_eq!(calls.len(), 1, "{turn}");
            assert_eq!(calls[0]["arguments"], "{\"path\":\"a\"}");
            assert_eq!(calls[0]["complete"], true);
            assert_eq!(
                turn["repairs"],
                json!([{"kind": "repeated-start", "callIndex": 0}])
            );
        }
        // A repeated message item keeps its text once.
        let mut events = call_stream();
        events.insert(2, text_item(0)[0].clone());
        assert_eq!(run(&events).1["text"], "Hello");
    }

    #[test]
    fn responses_another_call_at_an_open_calls_index_cuts_it() {
        let (_, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_1", "read"),
            fc_delta(0, "fc_1", "{\"path\":"),
            fc_added(0, "fc_2", "call_2", "list"),
            fc_done(0, "fc_2", "call_2", "list", "{}"),
            completed("r"),
        ]);
        let calls = turn["toolCalls"].as_array().unwrap();
        assert_eq!(calls[0]["complete"], false);
        assert_eq!(calls[0]["error"]["code"], "INCOMPLETE_ARGUMENTS");
        assert_eq!(calls[1]["id"], "call_2");
        assert_eq!(calls[1]["complete"], true);
        assert_eq!(turn["errorKinds"], json!(["block-index-reused"]));
    }

    #[test]
    fn responses_incomplete_keeps_the_arguments_an_item_was_announced_with() {
        // A cut call shows what arrived, the arguments of its `output_item.added` too.
        let (_, turn) = run(&[
            created("r"),
            json!({"type":"response.output_item.added","output_index":0,
                "item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f",
                    "arguments":"{\"a\":1}","status":"in_progress"}}),
            json!({"type":"response.incomplete","response":{"id":"r","status":"incomplete",
                "incomplete_details":{"reason":"max_output_tokens"}}}),
        ]);
        assert_eq!(turn["toolCalls"][0]["arguments"], "{\"a\":1}");
        assert_eq!(turn["toolCalls"][0]["complete"], false);
        assert_eq!(turn["stopReason"], "length");
    }

    #[test]
    fn responses_stream_without_terminal_event_is_an_error() {
        let (_, turn) = run(&[
            created("r"),
            fc_added(0, "fc_1", "call_1", "f"),
            fc_delta(0, "fc_1", "{\"a\":1}"),
        ]);
        assert_eq!(turn["stopReason"], "error");
        assert_eq!(turn["toolCalls"][0]["complete"], false);
    }
}
