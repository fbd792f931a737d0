//! Chat Completions decoding (OpenAI and the many servers that speak its shape; Mistral too).
//!
//! Tool calls arrive as fragments in `choices[0].delta.tool_calls[]`. The rules, each from a
//! real provider (see QUIRKS.md and the tests below):
//! - a fragment's slot is its `index`, or when `index` is missing its position in the delta;
//! - `""` in `id`, `name` or `arguments` means absent;
//! - a new non-empty id on an occupied slot starts a new call only when the call there already
//!   has a name and arguments that are one whole JSON value; otherwise it is the same call
//!   changing its id, and the first id is kept;
//! - a name equal to the name so far is a resend, any other fragment before the arguments begin
//!   is appended (a name split across chunks);
//! - arguments resent cumulatively, or resent whole after the fragments, are recognised and not
//!   duplicated ([`CumulativeArguments`]);
//! - `finish_reason` (whatever its value) or `[DONE]` ends the turn; `length` cuts its calls;
//! - a whole (non-streamed) `chat.completion` carries `choices[].message` where a chunk carries
//!   `delta`: it is read the same way, so it decodes to the turn its stream would give; its
//!   `tool_calls` have no `index` (a message is no fragment), so each is keyed by its position
//!   without a `missing-index` repair;
//! - one decoder decodes one response. A relay may change the chunk `id` mid-stream (seen in a
//!   real recording: the role chunk with one id, every later chunk with another), so the id of
//!   the chunk that finished the turn is what a later chunk is compared with: after the finish,
//!   a chunk with another id that carries choices is a second response (reported, and the rest
//!   of the stream ignored); a chunk without choices (the usage trailer of `include_usage`) is
//!   this response's, whatever its id.
//!
//! Each of these repairs is recorded on the turn ([`RepairKind`]) where it is made.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::decode_error::DecodeErrorKind;
use super::decoder::WireDecoder;
use super::repair::RepairKind;
use super::turn::{CallHandle, CallKind, CumulativeArguments, Executor, StopReason, Turn};
use crate::json_text::{is_json_object, json_string, non_empty};

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    /// Azure's content-filter results of the prompt (on a chunk with no choices).
    #[serde(default)]
    prompt_filter_results: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    /// A whole `chat.completion` response: the message where a chunk has its delta.
    #[serde(borrow, default)]
    message: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
    /// Azure's content-filter data (on a choice with no delta).
    #[serde(default)]
    content_filter_results: Option<IgnoredAny>,
    #[serde(default)]
    content_filter_offsets: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

#[derive(Deserialize)]
struct ToolCallDelta<'a> {
    #[serde(default)]
    index: Option<i64>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<FunctionDelta<'a>>,
    #[serde(borrow, default)]
    custom: Option<CustomDelta<'a>>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "arguments_text")]
    arguments: Option<Cow<'a, str>>,
}

/// A function's `arguments`: JSON text in a string, as the wire sends it (borrowed when it holds
/// no escape), or the value itself (Mistral's SDK types `arguments` as a string or an object; a
/// whole message replayed through it carries an object): its JSON text. `null` is none.
fn arguments_text<'de, D>(deserializer: D) -> Result<Option<Cow<'de, str>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    deserializer.deserialize_any(ArgumentsVisitor)
}

/// The visitor of [`arguments_text`].
struct ArgumentsVisitor;

impl<'de> serde::de::Visitor<'de> for ArgumentsVisitor {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("arguments as JSON text in a string, or as an object")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(text)))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let value: serde_json::Value =
            Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(Some(Cow::Owned(value.to_string())))
    }
}

#[derive(Deserialize)]
struct CustomDelta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

/// Where a fragment goes: the provider's `index`, or its position inside the delta.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotKey {
    Index(i64),
    Position(usize),
}

struct Slot {
    key: SlotKey,
    call: CallHandle,
    /// The provider resends the whole arguments each time (detected or configured).
    cumulative: bool,
}

/// The Chat Completions decoder.
pub struct ChatDecoder {
    mistral: bool,
    slots: Vec<Slot>,
    /// The chunk `id` of the response being decoded: the latest one until the turn finished,
    /// then the id of the chunk that finished it.
    response_id: Option<String>,
    /// A second response followed the finished one: everything after is ignored.
    ignoring: bool,
    /// A chunk of this wire was read (for telling a body that is not the wire at all).
    recognized: bool,
    /// A choice other than the first was met (and reported once): only choice 0 is decoded.
    other_choice: bool,
    events: usize,
}

impl ChatDecoder {
    /// A decoder; `mistral` only changes the wording of errors.
    pub fn new(mistral: bool) -> Self {
        ChatDecoder {
            mistral,
            slots: Vec::new(),
            response_id: None,
            ignoring: false,
            recognized: false,
            other_choice: false,
            events: 0,
        }
    }

    fn wire_name(&self) -> &'static str {
        if self.mistral {
            "Mistral"
        } else {
            "Chat Completions"
        }
    }

    /// One tool call fragment, at `position` in its delta; `whole`: a whole response's message,
    /// whose calls carry no `index` by design (so keying them by position is no repair).
    fn tool_call(
        &mut self,
        turn: &mut Turn,
        position: usize,
        delta: ToolCallDelta<'_>,
        whole: bool,
    ) {
        let key = match delta.index {
            Some(index) => SlotKey::Index(index),
            None => SlotKey::Position(position),
        };
        let id = non_empty(&delta.id);
        let custom = delta.kind.as_deref() == Some("custom") || delta.custom.is_some();
        let (name, arguments, raw_name) = match (&delta.function, &delta.custom) {
            (Some(f), _) => (
                non_empty(&f.name),
                non_empty(&f.arguments),
                f.name.as_deref(),
            ),
            (None, Some(c)) => (non_empty(&c.name), non_empty(&c.input), c.name.as_deref()),
            (None, None) => (None, None, None),
        };
        let occupied = self.slots.iter().position(|s| s.key == key);
        let slot = match occupied {
            Some(i) if !starts_new_call(turn, self.slots[i].call, id, name, arguments) => i,
            _ => {
                let kind = if custom {
                    CallKind::Custom
                } else {
                    CallKind::Function
                };
                let call = turn.open_call(Executor::Client, kind, id.unwrap_or(""), "");
                let cumulative = turn.options().cumulative_arguments == CumulativeArguments::Always;
                self.slots.retain(|s| s.key != key);
                self.slots.push(Slot {
                    key,
                    call,
                    cumulative,
                });
                let position = turn.call_index(call);
                match key {
                    // Ollama 0.20: parallel calls on one index, each with a new id.
                    _ if occupied.is_some() => {
                        turn.repair_with(RepairKind::IndexReused, Some(call), || match key {
                            SlotKey::Index(index) => format!("index {index}"),
                            SlotKey::Position(at) => format!("position {at} without index"),
                        })
                    }
                    // Anthropic's OpenAI-compatible endpoint starts at 1.
                    SlotKey::Index(index) if index != position as i64 => {
                        turn.repair_with(RepairKind::IndexOffset, Some(call), || {
                            format!("index {index} is call {position}")
                        })
                    }
                    _ => {}
                }
                self.slots.len() - 1
            }
        };
        let call = self.slots[slot].call;
        if let (SlotKey::Position(_), false) = (key, whole) {
            turn.repair(RepairKind::MissingIndex, Some(call));
        }
        if delta.id.as_deref() == Some("") || raw_name == Some("") {
            turn.repair(RepairKind::EmptyStringFields, Some(call));
        }
        if let Some(id) = id {
            let kept = turn.id(call);
            if !kept.is_empty() && kept != id {
                // Poolside, LM Studio: one call, a new id on its later fragments.
                let detail = format!("{} kept, {} ignored", json_string(kept), json_string(id));
                turn.repair_with(RepairKind::UnstableId, Some(call), || detail);
            }
            turn.set_id(call, id);
        }
        if let Some(name) = name {
            turn.add_name(call, name);
        }
        if let Some(fragment) = arguments {
            self.arguments(turn, slot, fragment);
        }
    }

    fn arguments(&mut self, turn: &mut Turn, slot: usize, fragment: &str) {
        let call = self.slots[slot].call;
        let mode = turn.options().cumulative_arguments;
        let current = turn.arguments(call);
        if self.slots[slot].cumulative {
            turn.replace_arguments(call, fragment);
            return;
        }
        if mode == CumulativeArguments::Auto && !current.is_empty() {
            if fragment.len() > current.len() && fragment.starts_with(current) {
                // Cumulative resend (DeepSeek, Baidu Qianfan): the fragment holds everything.
                self.slots[slot].cumulative = true;
                turn.replace_arguments(call, fragment);
                turn.repair(RepairKind::CumulativeArguments, Some(call));
                return;
            }
            if turn.arguments_look_whole(call) {
                if fragment == current {
                    // The whole arguments sent again after the fragments: a no-op.
                    turn.repair(RepairKind::ArgumentsResent, Some(call));
                    return;
                }
                if is_json_object(fragment) {
                    // A consolidated final chunk that differs only in spacing: nothing may
                    // follow a whole JSON value, so it replaces rather than appends.
                    turn.replace_arguments(call, fragment);
                    turn.repair(RepairKind::ArgumentsResent, Some(call));
                    return;
                }
            }
        }
        turn.append_arguments(call, fragment);
    }
}

/// The id rule and the name rule for an occupied slot.
fn starts_new_call(
    turn: &Turn,
    call: CallHandle,
    id: Option<&str>,
    name: Option<&str>,
    arguments: Option<&str>,
) -> bool {
    if turn.is_ended(call) {
        return true;
    }
    let differs_by_id = id.is_some_and(|id| !turn.id(call).is_empty() && id != turn.id(call));
    let differs_by_name = id.is_none()
        && name.is_some_and(|name| name != turn.name(call) && !turn.arguments(call).is_empty());
    // Same index, no ids, same tool (Ollama): a named chunk carrying another whole object.
    let another_whole_call = id.is_none()
        && name.is_some()
        && arguments.is_some_and(|a| a != turn.arguments(call) && is_json_object(a));
    (differs_by_id || differs_by_name || another_whole_call)
        && !turn.name(call).is_empty()
        && turn.arguments_look_whole(call)
}

impl WireDecoder for ChatDecoder {
    fn recognized(&self) -> bool {
        self.recognized
    }

    fn event(&mut self, turn: &mut Turn, _name: Option<&str>, data: &str) {
        self.events += 1;
        let data = data.trim();
        if self.ignoring {
            return;
        }
        if data == "[DONE]" {
            self.recognized = true;
            turn.terminate();
            return;
        }
        if data.is_empty() {
            return;
        }
        let chunk: Chunk = match serde_json::from_str(data) {
            Ok(chunk) => chunk,
            Err(error) => {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "{} event {} is not a valid chunk ({error}); it was skipped",
                        self.wire_name(),
                        self.events
                    ),
                );
                return;
            }
        };
        if chunk.choices.is_some() || chunk.usage.is_some() || chunk.error.is_some() {
            self.recognized = true;
        }
        if let Some(error) = chunk.error {
            turn.error(
                DecodeErrorKind::ProviderError,
                format!("the provider reported an error: {}", error.get()),
            );
            turn.set_stop(None, StopReason::Error);
            turn.terminate();
            return;
        }
        if let Some(id) = non_empty(&chunk.id) {
            let has_choices = chunk.choices.as_ref().is_some_and(|c| !c.is_empty());
            match &self.response_id {
                Some(current) if current != id && turn.is_terminated() && has_choices => {
                    turn.error(
                        DecodeErrorKind::SeveralResponses,
                        format!(
                            "a second response (chunk id {id:?}) followed the finished response \
                         {current:?} in the same stream and was ignored: decode each response \
                         with its own decoder"
                        ),
                    );
                    self.ignoring = true;
                    return;
                }
                // A relay that forwards chunks under a new id (or a usage trailer under its own)
                // is still this response.
                _ if turn.is_terminated() => {}
                _ => self.response_id = Some(id.to_owned()),
            }
        }
        if let Some(usage) = chunk.usage {
            if let Ok(parsed) = serde_json::from_str::<ChatUsage>(usage.get()) {
                let record = turn.usage_mut();
                record.input_tokens = parsed.prompt_tokens;
                record.output_tokens = parsed.completion_tokens;
                record.raw = Some(crate::json_text::compact(usage.get()));
            }
        }
        let Some(choices) = chunk.choices else {
            return;
        };
        if choices.is_empty() && chunk.prompt_filter_results.is_some() {
            // Azure: a first chunk with `choices: []` and the prompt's filter results.
            turn.repair(RepairKind::FilterOnlyChunk, None);
        }
        for choice in choices {
            if choice.index.unwrap_or(0) != 0 {
                // `n` > 1: one turn is one choice; the others are said to be left, never dropped
                // in silence (issue 19 round 5, attack review r1.mjs).
                if !self.other_choice {
                    self.other_choice = true;
                    turn.error(DecodeErrorKind::SeveralChoices, format!(
                        "the response holds more than one choice (`n` > 1): only choice 0 was read, choice {} and any others were ignored; ask for one choice",
                        choice.index.unwrap_or(0)
                    ));
                }
                continue;
            }
            if choice.delta.is_none()
                && choice.message.is_none()
                && (choice.content_filter_results.is_some()
                    || choice.content_filter_offsets.is_some())
            {
                // Azure: a late choice holding only content-filter data, no delta.
                turn.repair(RepairKind::FilterOnlyChunk, None);
            }
            let whole = choice.delta.is_none() && choice.message.is_some();
            if whole {
                // A whole `chat.completion`: its message is read as the stream's deltas.
                turn.repair(RepairKind::WholeResponse, None);
            }
            if let Some(delta) = choice.delta.or(choice.message) {
                if turn.is_terminated() {
                    let has_content = delta.tool_calls.as_ref().is_some_and(|calls| {
                        calls.iter().any(|c| {
                            c.function.as_ref().is_some_and(|f| {
                                non_empty(&f.arguments).is_some() || non_empty(&f.name).is_some()
                            })
                        })
                    });
                    if has_content {
                        turn.error(
                            DecodeErrorKind::FragmentAfterFinish,
                            "a tool call fragment arrived after the turn finished and was ignored",
                        );
                    } else if delta.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) {
                        // `arguments: ""` (or a repeated `id: ""`) after the end: a no-op.
                        turn.repair(RepairKind::TrailingEmptyFragment, None);
                    }
                    continue;
                }
                if let Some(text) = non_empty(&delta.content) {
                    turn.text(text);
                }
                if let Some(thinking) =
                    non_empty(&delta.reasoning_content).or(non_empty(&delta.reasoning))
                {
                    turn.thinking(thinking);
                }
                if let Some(calls) = delta.tool_calls {
                    for (position, call) in calls.into_iter().enumerate() {
                        self.tool_call(turn, position, call, whole);
                    }
                }
            }
            if let Some(reason) = non_empty(&choice.finish_reason) {
                if !turn.is_terminated() {
                    let stop = stop_reason(reason);
                    turn.set_stop(Some(reason), stop);
                    turn.terminate();
                    if stop == StopReason::Stop && turn.final_stop() == StopReason::ToolUse {
                        // OpenAI with a named tool_choice, vLLM, SGLang: the calls decide.
                        turn.repair_with(RepairKind::FinishStopWithCalls, None, || {
                            format!("finish_reason {}", json_string(reason))
                        });
                    }
                }
            }
        }
    }
}

fn stop_reason(raw: &str) -> StopReason {
    match raw {
        "length" => StopReason::Length,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" => StopReason::Error,
        _ => StopReason::Stop,
    }
}
