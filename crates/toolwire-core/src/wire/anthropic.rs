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
//! Blocks are placed by their `index`. An event without one is placed where that is not in
//! doubt (`missing-index`): a block start takes the next index; a text, thinking or signature
//! delta is taken as it comes (the turn's text is one string); an argument fragment goes to the
//! one open `tool_use` block, a block stop to the one open block. Where it is in doubt (several
//! open, or none) it is a `missing-block-index` error naming the event, and every open call the
//! fragment could have been part of is cut: no call runs with arguments it may not have received.
//! A block start repeated while the block is open (the same index and id) is one block
//! (`repeated-start`), as a Responses item announced twice is; a call under the id of an earlier
//! call gets a generated id (`duplicate-call-id`, by the turn, as on every wire); another block
//! started at the index of an open one cuts the open block's call (`block-index-reused`).
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

/// A block the stream started: where it is, what it is, whether its stop came.
struct BlockEntry {
    index: u64,
    /// The block's `type` (a repeat of its start has the same).
    kind: String,
    state: BlockState,
    open: bool,
}

impl BlockEntry {
    fn call(&self) -> Option<CallHandle> {
        match self.state {
            BlockState::Call(call) => Some(call),
            _ => None,
        }
    }
}

/// The Anthropic Messages decoder.
pub struct AnthropicDecoder {
    /// The open message's id, once `message_start` came.
    message_id: Option<String>,
    /// Whether any block of the open message began (a repeated `message_start` after that is a
    /// splice, not a duplicate).
    has_blocks: bool,
    blocks: Vec<BlockEntry>,
    /// The index a block start without one takes: one past the highest seen.
    next_index: u64,
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
            next_index: 0,
            broken: false,
            recognized: false,
            events: 0,
        }
    }

    /// The latest block started at `index`.
    fn block(&self, index: u64) -> Option<&BlockEntry> {
        self.blocks.iter().rev().find(|b| b.index == index)
    }

    /// The position in `blocks` of the open block at `index`.
    fn open_at(&self, index: u64) -> Option<usize> {
        self.blocks.iter().rposition(|b| b.index == index && b.open)
    }

    /// The positions in `blocks` of the open blocks, of calls only when `calls`.
    fn open_blocks(&self, turn: &Turn, calls: bool) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&i| {
                let block = &self.blocks[i];
                match block.call() {
                    Some(call) => block.open && !turn.is_ended(call),
                    None => block.open && !calls,
                }
            })
            .collect()
    }

    /// `content_block_start`.
    fn block_start(&mut self, turn: &mut Turn, index: Option<u64>, block: &Block<'_>) {
        self.has_blocks = true;
        let at = index.unwrap_or(self.next_index);
        let open = match index {
            Some(index) => self.open_at(index),
            // Without an index, only a tool_use under the open one's id is its repeat.
            None => self.blocks.iter().rposition(|b| b.open),
        };
        if let Some(open) = open {
            let entry = &self.blocks[open];
            // (sent without an id, a call is told by its name, at its index only)
            let same_call = entry.call().map(|call| {
                let id = block.id.as_deref().unwrap_or("");
                let same_name = turn.name(call) == block.name.as_deref().unwrap_or("");
                same_name
                    && if id.is_empty() {
                        index.is_some()
                    } else {
                        turn.id(call) == id
                    }
            });
            if entry.kind == block.kind && same_call.unwrap_or(index.is_some()) {
                // The same start sent again while its block is open: one block.
                let (call, at) = (entry.call(), entry.index);
                turn.repair_with(RepairKind::RepeatedStart, call, || {
                    format!("content_block_start at index {at}")
                });
                return;
            }
            if index.is_some() {
                turn.error(
                    DecodeErrorKind::BlockIndexReused,
                    format!(
                        "Anthropic event {}: a {} block began at index {at}, where a {} block \
                         was still open",
                        self.events,
                        json_string(&block.kind),
                        json_string(&entry.kind),
                    ),
                );
                if let Some(call) = entry.call() {
                    turn.cut_call(
                        call,
                        "another block began at its index before it was closed",
                    );
                }
                self.blocks[open].open = false;
            }
        }
        let reused = self.blocks.iter().any(|b| b.index == at);
        self.next_index = self.next_index.max(at.saturating_add(1));
        let whole_input = Some(RepairKind::WholeInputInBlockStart);
        let state = match self.open_block(turn, block, whole_input) {
            Some(call) => BlockState::Call(call),
            None => match block.kind.as_ref() {
                "text" => BlockState::Text,
                "thinking" => BlockState::Thinking,
                _ => BlockState::Other,
            },
        };
        let call = match state {
            BlockState::Call(call) => Some(call),
            _ => None,
        };
        if index.is_none() {
            turn.repair(RepairKind::MissingIndex, call);
        }
        if reused {
            if let Some(call) = call {
                turn.repair_with(RepairKind::IndexReused, Some(call), || {
                    format!("index {at}")
                });
            }
        }
        self.blocks.push(BlockEntry {
            index: at,
            kind: block.kind.clone().into_owned(),
            state,
            open: true,
        });
    }

    /// An `input_json_delta`: to its block's call, or without an index to the one open call.
    fn arguments_delta(&mut self, turn: &mut Turn, index: Option<u64>, fragment: &str) {
        let call = match index {
            Some(index) => match self.block(index) {
                Some(BlockEntry {
                    state: BlockState::Call(call),
                    open: false,
                    ..
                }) if !fragment.trim().is_empty() => {
                    // After its content_block_stop: the call ended as it stood (a whole object,
                    // or refused as not one), so nothing can be added to it.
                    let call = turn.call_index(*call);
                    turn.error(
                        DecodeErrorKind::FragmentAfterFinish,
                        format!(
                            "Anthropic event {}: an argument fragment for call {call} (index \
                             {index}) arrived after its block was closed and was ignored",
                            self.events
                        ),
                    );
                    return;
                }
                Some(BlockEntry {
                    state: BlockState::Call(call),
                    ..
                }) => *call,
                found => {
                    let what = match found {
                        Some(block) => format!("a {} block", json_string(&block.kind)),
                        None => "where no block began".to_owned(),
                    };
                    turn.lost_input(
                        DecodeErrorKind::ArgumentsForUnknownItem,
                        format!(
                            "Anthropic event {} carries arguments for index {index}, {what}; \
                             they were ignored",
                            self.events
                        ),
                    );
                    return;
                }
            },
            None => {
                let open = self.open_blocks(turn, true);
                match open.as_slice() {
                    [one] => {
                        let call = self.blocks[*one].call().expect("a call block");
                        turn.repair(RepairKind::MissingIndex, Some(call));
                        call
                    }
                    [] => {
                        turn.error(
                            DecodeErrorKind::MissingBlockIndex,
                            format!(
                                "Anthropic event {} (content_block_delta) carries arguments \
                                 without an index while no tool_use block is open; they were \
                                 ignored",
                                self.events
                            ),
                        );
                        return;
                    }
                    several => {
                        turn.error(
                            DecodeErrorKind::MissingBlockIndex,
                            format!(
                                "Anthropic event {} (content_block_delta) carries arguments \
                                 without an index while {} tool_use blocks are open: which call \
                                 they belong to cannot be told, so they were ignored and each of \
                                 those calls was cut",
                                self.events,
                                several.len()
                            ),
                        );
                        for &i in several {
                            if let Some(call) = self.blocks[i].call() {
                                turn.cut_call(
                                    call,
                                    "a fragment without an index may have been part of it",
                                );
                            }
                        }
                        return;
                    }
                }
            }
        };
        turn.append_arguments(call, fragment);
    }

    /// `content_block_stop`: ends its block, or without an index the one open block.
    fn block_stop(&mut self, turn: &mut Turn, index: Option<u64>) {
        let position = match index {
            Some(index) => self.open_at(index),
            None => {
                let open = self.open_blocks(turn, false);
                match open.as_slice() {
                    [one] => {
                        turn.repair(RepairKind::MissingIndex, self.blocks[*one].call());
                        Some(*one)
                    }
                    [] => None,
                    several => {
                        turn.error(
                            DecodeErrorKind::MissingBlockIndex,
                            format!(
                                "Anthropic event {} (content_block_stop) has no index while {} \
                                 blocks are open: none was closed by it (the message's end ends \
                                 them)",
                                self.events,
                                several.len()
                            ),
                        );
                        None
                    }
                }
            }
        };
        let Some(position) = position else {
            return;
        };
        self.blocks[position].open = false;
        if let Some(call) = self.blocks[position].call() {
            if !turn.is_terminated() {
                turn.end_call(call);
            }
        }
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
        self.next_index = blocks as u64;
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
        for block in &self.blocks {
            if let Some(call) = block.call() {
                if !turn.is_ended(call) {
                    turn.repair(RepairKind::BlockNotClosed, Some(call));
                }
            }
        }
    }

    /// An event of `kind` without its `field`: skipped, and lost to the turn
    /// ([`Turn::lost_input`]).
    fn unreadable(&self, turn: &mut Turn, kind: &str, field: &str) {
        turn.lost_input(
            DecodeErrorKind::UnreadableEvent,
            format!(
                "Anthropic event {} ({kind}) has no {field}; it was skipped",
                self.events
            ),
        );
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
                turn.lost_input(
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
                    Err(error) => turn.lost_input(
                        DecodeErrorKind::UnreadableEvent,
                        format!(
                            "Anthropic event {} is a message that is not valid ({error}); it was \
                         skipped",
                            self.events
                        ),
                    ),
                }
            }
            "message_start" => match event.message {
                Some(message) => self.message_start(turn, message, false),
                None => self.unreadable(turn, "message_start", "message"),
            },
            "content_block_start" => {
                if turn.is_terminated() {
                    return;
                }
                match event.content_block {
                    Some(block) => self.block_start(turn, event.index, &block),
                    None => self.unreadable(turn, "content_block_start", "content_block"),
                }
            }
            "content_block_delta" => {
                if turn.is_terminated() {
                    return;
                }
                let Some(delta) = event.delta else {
                    self.unreadable(turn, "content_block_delta", "delta");
                    return;
                };
                let text_like = matches!(
                    delta.kind.as_deref(),
                    Some("text_delta" | "thinking_delta" | "signature_delta")
                );
                if text_like && event.index.is_none() {
                    // Text and thinking mean the same whichever block they belong to.
                    turn.repair(RepairKind::MissingIndex, None);
                }
                match delta.kind.as_deref() {
                    Some("input_json_delta") => match delta.partial_json.as_deref() {
                        Some(fragment) => self.arguments_delta(turn, event.index, fragment),
                        None => self.unreadable(turn, "input_json_delta", "partial_json"),
                    },
                    Some("text_delta") => {
                        if let Some(text) = delta.text.as_deref() {
                            turn.text(text);
                        }
                    }
                    Some("thinking_delta") => {
                        if let Some(text) = delta.thinking.as_deref() {
                            turn.thinking(text);
                        }
                    }
                    Some("signature_delta") => {
                        if let Some(signature) = delta.signature.as_deref() {
                            turn.thinking_signature(signature);
                        }
                    }
                    // Arguments under a delta type that is not theirs: call data with no place.
                    _ if delta.partial_json.is_some() => self.unreadable(
                        turn,
                        "content_block_delta",
                        "known delta type for its partial_json",
                    ),
                    _ => {}
                }
            }
            "content_block_stop" => self.block_stop(turn, event.index),
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
            // An event of another type that carries a block or arguments: call data that has
            // no place (a garbled type); other unknown events carry nothing of a call.
            _ if event.content_block.is_some()
                || event
                    .delta
                    .as_ref()
                    .is_some_and(|d| d.partial_json.is_some()) =>
            {
                turn.lost_input(
                    DecodeErrorKind::UnreadableEvent,
                    format!(
                        "Anthropic event {} has the unknown type {} but carries a block or \
                         arguments; it could not be read",
                        self.events,
                        json_string(&event.kind)
                    ),
                );
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
