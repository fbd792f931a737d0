//! Anthropic Messages decoding.
//!
//! A `tool_use` block opens at `content_block_start`, grows by `input_json_delta` fragments and
//! ends at `content_block_stop`. Real streams also send: the whole input in
//! `content_block_start` with no fragments (programmatic tool calling), a `tool_use` inside
//! `message_start.message.content` followed directly by `message_stop`, a lone
//! `partial_json: ""` meaning `{}`, whitespace padding inside the JSON, thinking blocks whose
//! text and signature must be kept, a duplicate `message_start` (ignored) and a second
//! `message_start` spliced into an open message (an error: nothing of it is taken).
//!
//! A whole (non-streamed) response, `{type: "message", content, stop_reason, usage}`, is read as
//! the `message_start` of a message holding every block, followed by its `message_stop`: it
//! decodes to the turn its stream would give. Every `tool_use` keeps its `input` as its
//! arguments. Each block followed by another is ended (its stream closed it before the next
//! began: `content_block_stop`); the last block ends with the message. So under `max_tokens` the
//! calls before the last block are complete and a `tool_use` that is the last block is cut
//! (`INCOMPLETE_ARGUMENTS`, its input kept to read), as a streamed `max_tokens` cut leaves the
//! block it cut without its `content_block_stop` (fixture incomplete_partial_json_response): the
//! limit may have cut that input mid-way, and nothing in the message says it did not.
//!
//! Each of these repairs is recorded on the turn ([`RepairKind`]) where it is made.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::decode_error::DecodeErrorKind;
use super::decoder::WireDecoder;
use super::repair::RepairKind;
use super::turn::{CallHandle, CallKind, Executor, StopReason, Turn};
use crate::json_text::{compact, json_string};

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    content_block: Option<Block<'a>>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Vec<Block<'a>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    caller: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct AnthropicUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Clone, Copy)]
enum BlockState {
    Text,
    Thinking,
    Call(CallHandle),
    Other,
}

/// The Anthropic Messages decoder.
pub struct AnthropicDecoder {
    /// The open message's id, once `message_start` came.
    message_id: Option<String>,
    /// Whether any block of the open message began (a repeated `message_start` after that is a
    /// splice, not a duplicate).
    has_blocks: bool,
    blocks: Vec<(u64, BlockState)>,
    /// A spliced second message broke the stream: everything after is ignored.
    broken: bool,
    /// An event of this wire was read (for telling a body that is not the wire at all).
    recognized: bool,
    events: usize,
}

impl AnthropicDecoder {
    /// A decoder.
    pub fn new() -> Self {
        AnthropicDecoder {
            message_id: None,
            has_blocks: false,
            blocks: Vec::new(),
            broken: false,
            recognized: false,
            events: 0,
        }
    }

    fn block(&self, index: Option<u64>) -> Option<BlockState> {
        let index = index?;
        self.blocks
            .iter()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, state)| *state)
    }

    /// A `message_start`, or the message of a whole response (`whole`: its blocks are no quirk).
    fn message_start(&mut self, turn: &mut Turn, message: Message<'_>, whole: bool) {
        let id = message.id.as_deref().unwrap_or("");
        if self.message_id.is_none() && turn.is_terminated() {
            // The first message_start was lost (unreadable) and its message already ended.
            self.message_id = Some(String::new());
        }
        if let Some(open) = &self.message_id {
            if open == id && !self.has_blocks && message.content.is_empty() {
                // The same message_start twice (vercel/ai#18402): ignore the repeat.
                turn.repair_with(RepairKind::DuplicateMessageStart, None, || {
                    format!("message {}", json_string(id))
                });
                return;
            }
            let (kind, message) = if turn.is_terminated() {
                (
                    DecodeErrorKind::SeveralResponses,
                    format!(
                    "a second message ({id:?}) followed the finished message {open:?} in the same \
                     stream and was ignored: decode each response with its own decoder"
                ),
                )
            } else {
                (
                    DecodeErrorKind::SplicedStream,
                    format!(
                        "a second message_start ({id:?}) arrived while message {open:?} was still \
                     open: two generations were spliced into one stream; the rest of the stream \
                     was ignored"
                    ),
                )
            };
            turn.error(kind, message);
            if !turn.is_terminated() {
                turn.set_stop(None, StopReason::Error);
                self.terminate(turn);
            }
            self.broken = true;
            return;
        }
        self.message_id = Some(id.to_owned());
        if whole {
            turn.repair(RepairKind::WholeResponse, None);
        }
        if let Some(usage) = message.usage {
            self.usage(turn, usage);
        }
        let blocks = message.content.len();
        for (at, block) in message.content.iter().enumerate() {
            // Whole blocks inside message_start (programmatic tool calling): they end with the
            // message.
            self.has_blocks = true;
            if let Some(call) = self.open_block(turn, block, None) {
                if !whole {
                    turn.repair(RepairKind::ToolUseInMessageStart, Some(call));
                } else if at + 1 < blocks {
                    // A whole message's block followed by another: its stream closed it.
                    turn.end_call(call);
                }
            }
        }
        if let Some(reason) = message.stop_reason.as_deref() {
            turn.set_stop(Some(reason), stop_reason(reason));
        }
    }

    /// Opens the state of a block; returns the call for tool blocks. `whole_input`: the repair
    /// to record if the call's input, given whole in the block, is what it ends with.
    fn open_block(
        &mut self,
        turn: &mut Turn,
        block: &Block<'_>,
        whole_input: Option<RepairKind>,
    ) -> Option<CallHandle> {
        match block.kind.as_ref() {
            "tool_use" | "server_tool_use" => {
                let executor = if block.kind == "tool_use" {
                    Executor::Client
                } else {
                    Executor::Server
                };
                let call = turn.open_call(
                    executor,
                    CallKind::Function,
                    block.id.as_deref().unwrap_or(""),
                    block.name.as_deref().unwrap_or(""),
                );
                if let Some(input) = block.input {
                    let input = compact(input.get());
                    if input != "{}" {
                        turn.set_initial_arguments(call, input, whole_input);
                    }
                }
                if executor == Executor::Server {
                    turn.set_metadata(call, "type", "\"server_tool_use\"".into());
                }
                if let Some(caller) = block.caller {
                    turn.set_metadata(call, "caller", compact(caller.get()));
                }
                Some(call)
            }
            "thinking" => {
                turn.start_thinking(None);
                if let Some(text) = block.thinking.as_deref() {
                    turn.thinking(text);
                }
                if let Some(signature) = block.signature.as_deref() {
                    turn.thinking_signature(signature);
                }
                None
            }
            "redacted_thinking" => {
                turn.redacted_thinking(block.data.as_deref().unwrap_or(""));
                None
            }
            "text" => {
                if let Some(text) = block.text.as_deref() {
                    turn.text(text);
                }
                None
            }
            _ => None,
        }
    }

    /// Ends the message: a tool block still open never got its `content_block_stop`, and the
    /// turn's end ends it (or cuts it, after a length stop or an error).
    fn terminate(&mut self, turn: &mut Turn) {
        self.unclosed_blocks(turn);
        turn.terminate();
    }

    fn unclosed_blocks(&self, turn: &mut Turn) {
        for (_, state) in &self.blocks {
            if let BlockState::Call(call) = *state {
                if !turn.is_ended(call) {
                    turn.repair(RepairKind::BlockNotClosed, Some(call));
                }
            }
        }
    }

    fn usage(&mut self, turn: &mut Turn, raw: &RawValue) {
        if let Ok(parsed) = serde_json::from_str::<AnthropicUsage>(raw.get()) {
            let usage = turn.usage_mut();
            if parsed.input_tokens.is_some() {
                usage.input_tokens = parsed.input_tokens;
            }
            if parsed.output_tokens.is_some() {
                usage.output_tokens = parsed.output_tokens;
            }
            usage.raw = Some(compact(raw.get()));
        }
    }
}

impl Default for AnthropicDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl WireDecoder for AnthropicDecoder {
    fn recognized(&self) -> bool {
        self.recognized
    }

    fn event(&mut self, turn: &mut Turn, _name: Option<&str>, data: &str) {
        self.events += 1;
        if self.broken || data.trim().is_empty() {
            return;
        }
        let event: Event = match serde_json::from_str(data) {
            Ok(event) => event,
            Err(error) => {
                turn.error(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Anthropic event {} is not a valid event ({error}); it was skipped",
                        self.events
                    ),
                );
                return;
            }
        };
        if matches!(
            event.kind.as_ref(),
            "message"
                | "message_start"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
                | "message_delta"
                | "message_stop"
                | "ping"
                | "error"
        ) {
            self.recognized = true;
        }
        match event.kind.as_ref() {
            "message" => {
                // A whole response: a message_start holding every block, then message_stop.
                match serde_json::from_str::<Message>(data) {
                    Ok(message) => {
                        let ended = message.stop_reason.is_some();
                        self.message_start(turn, message, true);
                        if ended && !self.broken {
                            self.terminate(turn);
                        }
                    }
                    Err(error) => turn.error(
                        DecodeErrorKind::UnreadableEvent,
                        format!(
                            "Anthropic event {} is a message that is not valid ({error}); it was \
                         skipped",
                            self.events
                        ),
                    ),
                }
            }
            "message_start" => {
                if let Some(message) = event.message {
                    self.message_start(turn, message, false);
                }
            }
            "content_block_start" => {
                if turn.is_terminated() {
                    return;
                }
                let Some(block) = event.content_block else {
                    return;
                };
                self.has_blocks = true;
                let whole_input = Some(RepairKind::WholeInputInBlockStart);
                let state = match self.open_block(turn, &block, whole_input) {
                    Some(call) => BlockState::Call(call),
                    None => match block.kind.as_ref() {
                        "text" => BlockState::Text,
                        "thinking" => BlockState::Thinking,
                        _ => BlockState::Other,
                    },
                };
                if let Some(index) = event.index {
                    self.blocks.push((index, state));
                }
            }
            "content_block_delta" => {
                if turn.is_terminated() {
                    return;
                }
                let (Some(delta), Some(state)) = (event.delta, self.block(event.index)) else {
                    return;
                };
                match (delta.kind.as_deref(), state) {
                    (Some("input_json_delta"), BlockState::Call(call)) => {
                        if let Some(fragment) = delta.partial_json.as_deref() {
                            turn.append_arguments(call, fragment);
                        }
                    }
                    (Some("text_delta"), _) => {
                        if let Some(text) = delta.text.as_deref() {
                            turn.text(text);
                        }
                    }
                    (Some("thinking_delta"), _) => {
                        if let Some(text) = delta.thinking.as_deref() {
                            turn.thinking(text);
                        }
                    }
                    (Some("signature_delta"), _) => {
                        if let Some(signature) = delta.signature.as_deref() {
                            turn.thinking_signature(signature);
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(BlockState::Call(call)) = self.block(event.index) {
                    if !turn.is_terminated() {
                        turn.end_call(call);
                    }
                }
            }
            "message_delta" => {
                if let Some(reason) = event.delta.as_ref().and_then(|d| d.stop_reason.as_deref()) {
                    turn.set_stop(Some(reason), stop_reason(reason));
                }
                if let Some(usage) = event.usage {
                    self.usage(turn, usage);
                }
            }
            "message_stop" => self.terminate(turn),
            "error" => {
                let detail = event.error.map(|e| compact(e.get())).unwrap_or_default();
                turn.error(
                    DecodeErrorKind::ProviderError,
                    format!("the provider reported an error: {detail}"),
                );
                turn.set_stop(None, StopReason::Error);
                self.terminate(turn);
            }
            _ => {}
        }
    }

    fn end_of_body(&mut self, turn: &mut Turn) {
        if !turn.is_terminated() {
            self.unclosed_blocks(turn);
        }
    }
}

fn stop_reason(raw: &str) -> StopReason {
    match raw {
        "max_tokens" | "model_context_window_exceeded" => StopReason::Length,
        "tool_use" => StopReason::ToolUse,
        "refusal" => StopReason::Error,
        _ => StopReason::Stop,
    }
}

#[cfg(test)]
mod tests;
