//! The assembled turn that every decoder builds: tool calls, text, thinking, stop reason, usage
//! and errors, and the stream events that report each change as it happens.
//!
//! A decoder translates its provider's chunks into calls on [`Turn`]; the turn owns the rules that
//! are the same for every wire:
//! - a call is `complete` only when the stream signalled its end (its own end, or a terminal
//!   event that is not a length stop) and its arguments parse as one JSON object;
//! - a call cut off (no end, or a `length` stop) carries `INCOMPLETE_ARGUMENTS`;
//! - a call that ended with arguments that are not a JSON object carries `INVALID_JSON`;
//! - `stopReason` is `toolUse` whenever a complete call is present, whatever the provider said;
//! - a turn whose stop reason says tool calls (`tool_calls`, `tool_use`) but that holds none is
//!   an error: the calls were lost on the way, and an empty `stop` would hide it;
//! - a body that ends before its terminal event is cut off: its open calls are incomplete;
//! - input lost before the terminal event (an event that could not be read, one dropped for its
//!   size, one whose call data has no place: [`Turn::lost_input`]) breaks the turn as a cut
//!   does: it ends with stop reason `error`, and no call ends complete after the loss (each is
//!   cut, `INCOMPLETE_ARGUMENTS`): the lost event may have held part of a call, a whole call or
//!   the stop reason;
//! - a cut call keeps what arrived of its arguments (the whole input its start carried too), for
//!   the reader: it is never run;
//! - ids are unique within a turn: a call sent without an id, or under the id of a call that
//!   started before it, gets a generated one (`missing-id`, `duplicate-call-id`), fixed when the
//!   call starts (its `toolcall_start`), for every wire alike.
//!
//! Events are written as JSON text into a buffer the caller drains after each push.
//!
//! A decoder that copes with a provider quirk says so with [`Turn::repair`], where it makes the
//! repair: the turn keeps each kind once per call (`repairs`) and reports it as a `repair` event
//! the first time.

use std::collections::HashSet;

use crate::error::ErrorCode;

use super::decode_error::DecodeErrorKind;
use super::partial_json::{ParseState, PartialJson, PartialOp};
use super::repair::RepairKind;
use crate::json_text::{json_string, object_problem, push_json_string};

/// Why a call is cut after input was lost.
const LOST: &str = "part of the stream was lost before its end";

/// How much of the partially streamed arguments the decoder reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialMode {
    /// Only the raw fragments.
    None,
    /// Raw fragments plus what changed (`partial: { path, append }` or `{ path, value }`).
    Delta,
    /// As `Delta`; the JavaScript side also keeps the partial object up to date.
    Object,
}

/// Whether the provider resends the cumulative arguments in every chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CumulativeArguments {
    /// Detected per call: a fragment that strictly extends everything received is a resend.
    Auto,
    /// Every fragment is the whole arguments so far.
    Always,
    /// Every fragment is appended as it is.
    Never,
}

/// Decoder options, parsed from the JavaScript options object.
#[derive(Clone, Debug)]
pub struct DecoderOptions {
    /// Partial-argument reporting.
    pub partial: PartialMode,
    /// Resent-arguments handling (Chat Completions wires).
    pub cumulative_arguments: CumulativeArguments,
    /// Decode HTML entities in arguments (Grok).
    pub decode_html_entities: bool,
    /// The body's content type when the caller knows it (the response headers), named by the
    /// error of a body that is not the wire at all.
    pub content_type: Option<String>,
}

impl Default for DecoderOptions {
    fn default() -> Self {
        DecoderOptions {
            partial: PartialMode::Delta,
            cumulative_arguments: CumulativeArguments::Auto,
            decode_html_entities: false,
            content_type: None,
        }
    }
}

/// The normalized reason a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The model finished without asking for tools.
    Stop,
    /// The turn holds complete tool calls to run.
    ToolUse,
    /// The output limit cut the turn.
    Length,
    /// The provider reported an error, refused, or the stream broke off.
    Error,
}

impl StopReason {
    /// The name used on the JavaScript side.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::ToolUse => "toolUse",
            StopReason::Length => "length",
            StopReason::Error => "error",
        }
    }
}

/// Whether a call is a function call with JSON arguments or a custom tool call with free text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// JSON arguments.
    Function,
    /// Free-text input (Responses custom tools).
    Custom,
}

/// Who runs a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Executor {
    /// The client: it goes to `toolCalls`.
    Client,
    /// The provider (Anthropic `server_tool_use`, Responses built-in tools): `serverToolCalls`.
    Server,
}

/// A handle to a call of the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallHandle(usize);

#[derive(Debug)]
struct Call {
    /// Position in `toolCalls` (or `serverToolCalls`).
    index: usize,
    executor: Executor,
    kind: CallKind,
    /// The id the call is known by (`toolCalls[i].id`): the provider's, or one generated when it
    /// sent none or one an earlier call of the turn has.
    id: String,
    /// The provider's id when a generated one replaced it (a duplicate): what its later
    /// fragments still carry, so the decoder matches them to the call.
    sent_id: Option<String>,
    name: String,
    arguments: String,
    /// Arguments that arrived whole before any fragment (Anthropic `content_block_start.input`),
    /// and the repair to record if they are used.
    initial_arguments: Option<(String, Option<RepairKind>)>,
    /// An argument fragment arrived (an empty one too).
    had_fragment: bool,
    started: bool,
    ended: bool,
    complete: bool,
    error: Option<(ErrorCode, String)>,
    /// `(key, JSON text)` pairs of `providerMetadata`.
    metadata: Vec<(&'static str, String)>,
    parser: Option<PartialJson>,
}

/// One thinking (reasoning) block.
#[derive(Debug, Default)]
struct Thinking {
    text: String,
    signature: Option<String>,
    redacted: Option<String>,
    /// The provider's id of the block (a Responses reasoning item's `rs_` id).
    id: Option<String>,
}

/// A repair a decoder made: its kind, the call it concerns, what it was about.
#[derive(Debug)]
struct Repair {
    kind: RepairKind,
    call: Option<CallHandle>,
    detail: Option<String>,
}

/// Token usage as the provider reported it.
#[derive(Debug, Default)]
pub struct Usage {
    /// Tokens read.
    pub input_tokens: Option<u64>,
    /// Tokens written.
    pub output_tokens: Option<u64>,
    /// The provider's own usage object, as JSON text.
    pub raw: Option<String>,
}

/// The turn being assembled, and the events not yet handed out.
#[derive(Debug)]
pub struct Turn {
    options: DecoderOptions,
    calls: Vec<Call>,
    client_calls: usize,
    server_calls: usize,
    text: String,
    thinking: Vec<Thinking>,
    stop: Option<StopReason>,
    raw_stop: Option<String>,
    usage: Usage,
    errors: Vec<String>,
    error_kinds: Vec<DecodeErrorKind>,
    repairs: Vec<Repair>,
    /// The ids of the calls that started (were announced): no two calls share one.
    started_ids: HashSet<String>,
    terminated: bool,
    /// Input was lost before the terminal event ([`Turn::lost_input`]): the turn is broken.
    lost: bool,
    events: String,
    ops: Vec<PartialOp>,
}

impl Turn {
    /// An empty turn.
    pub fn new(options: DecoderOptions) -> Self {
        Turn {
            options,
            calls: Vec::new(),
            client_calls: 0,
            server_calls: 0,
            text: String::new(),
            thinking: Vec::new(),
            stop: None,
            raw_stop: None,
            usage: Usage::default(),
            errors: Vec::new(),
            error_kinds: Vec::new(),
            repairs: Vec::new(),
            started_ids: HashSet::new(),
            terminated: false,
            lost: false,
            events: String::new(),
            ops: Vec::new(),
        }
    }

    /// The options the decoder was made with.
    pub fn options(&self) -> &DecoderOptions {
        &self.options
    }

    /// Whether a terminal event was seen (no more calls are taken after it).
    pub fn is_terminated(&self) -> bool {
        self.terminated
    }

    /// Opens a call. An empty `id` is given a generated one when the call ends.
    pub fn open_call(
        &mut self,
        executor: Executor,
        kind: CallKind,
        id: &str,
        name: &str,
    ) -> CallHandle {
        let index = match executor {
            Executor::Client => {
                self.client_calls += 1;
                self.client_calls - 1
            }
            Executor::Server => {
                self.server_calls += 1;
                self.server_calls - 1
            }
        };
        let parser =
            (kind == CallKind::Function && executor == Executor::Client).then(|| self.new_parser());
        self.calls.push(Call {
            index,
            executor,
            kind,
            id: id.to_owned(),
            sent_id: None,
            name: name.to_owned(),
            arguments: String::new(),
            initial_arguments: None,
            had_fragment: false,
            started: false,
            ended: false,
            complete: false,
            error: None,
            metadata: Vec::new(),
            parser,
        });
        CallHandle(self.calls.len() - 1)
    }

    /// The call's id so far as the provider sent it (may be empty): a duplicate the turn replaced
    /// with a generated id is still the provider's id here, so fragments carrying it match.
    pub fn id(&self, call: CallHandle) -> &str {
        let c = &self.calls[call.0];
        c.sent_id.as_deref().unwrap_or(&c.id)
    }

    /// The call's position among the turn's calls of its executor (`index` in `toolCalls`).
    pub fn call_index(&self, call: CallHandle) -> usize {
        self.calls[call.0].index
    }

    /// The call's name so far.
    pub fn name(&self, call: CallHandle) -> &str {
        &self.calls[call.0].name
    }

    /// The call's arguments so far.
    pub fn arguments(&self, call: CallHandle) -> &str {
        &self.calls[call.0].arguments
    }

    /// Whether the call has ended.
    pub fn is_ended(&self, call: CallHandle) -> bool {
        self.calls[call.0].ended
    }

    /// Whether the arguments so far are already one whole JSON value (a next call may begin).
    /// Client function calls always have a parser (a validator when no previews are wanted), so
    /// this costs nothing per fragment; free-text and provider-executed calls are never "whole".
    pub fn arguments_look_whole(&self, call: CallHandle) -> bool {
        self.calls[call.0]
            .parser
            .as_ref()
            .is_some_and(|parser| *parser.state() == ParseState::Complete)
    }

    /// The incremental parser of a new client call: reporting previews, or only validating.
    fn new_parser(&self) -> PartialJson {
        match self.options.partial {
            PartialMode::None => PartialJson::validator(),
            PartialMode::Delta | PartialMode::Object => PartialJson::new(),
        }
    }

    /// Sets the id of a call that has none yet.
    pub fn set_id(&mut self, call: CallHandle, id: &str) {
        let call = &mut self.calls[call.0];
        if call.id.is_empty() {
            call.id = id.to_owned();
        }
    }

    /// Adds to the name: a fragment equal to the whole name so far is a resend and ignored, and
    /// so is one after the arguments began (the call was announced with its name).
    pub fn add_name(&mut self, handle: CallHandle, fragment: &str) {
        let call = &mut self.calls[handle.0];
        if fragment.is_empty() {
            return;
        }
        if fragment == call.name {
            self.repair(RepairKind::NameRepeated, Some(handle));
            return;
        }
        if call.started {
            self.repair_with(RepairKind::NameAfterArguments, Some(handle), || {
                format!("{} ignored", json_string(fragment))
            });
            return;
        }
        if !call.name.is_empty() {
            let before = json_string(&call.name);
            call.name.push_str(fragment);
            self.repair_with(RepairKind::NameSplit, Some(handle), || {
                format!("{before} + {}", json_string(fragment))
            });
            return;
        }
        call.name.push_str(fragment);
    }

    /// Sets provider metadata (`value_json` is JSON text). A key set twice keeps the last value.
    pub fn set_metadata(&mut self, call: CallHandle, key: &'static str, value_json: String) {
        let metadata = &mut self.calls[call.0].metadata;
        match metadata.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value_json,
            None => metadata.push((key, value_json)),
        }
    }

    /// Arguments that arrived whole when the call opened; used only if no fragment follows, and
    /// then `repair` (if any) is recorded.
    pub fn set_initial_arguments(
        &mut self,
        call: CallHandle,
        arguments: String,
        repair: Option<RepairKind>,
    ) {
        self.calls[call.0].initial_arguments = Some((arguments, repair));
    }

    /// Appends an argument fragment and reports it.
    pub fn append_arguments(&mut self, call: CallHandle, fragment: &str) {
        if self.calls[call.0].ended {
            return;
        }
        self.calls[call.0].had_fragment = true;
        if fragment.is_empty() {
            return;
        }
        self.ensure_started(call);
        let c = &mut self.calls[call.0];
        c.arguments.push_str(fragment);
        if c.executor == Executor::Server {
            return;
        }
        self.ops.clear();
        if let Some(parser) = c.parser.as_mut() {
            parser.push(fragment, &mut self.ops);
        }
        let index = c.index;
        self.write_delta(index, fragment);
    }

    /// Applies partial operations computed by the decoder itself (Gemini `partialArgs`).
    pub fn report_partial(&mut self, call: CallHandle, ops: Vec<PartialOp>) {
        self.ensure_started(call);
        if self.options.partial == PartialMode::None {
            return;
        }
        let index = self.calls[call.0].index;
        self.ops = ops;
        self.write_delta(index, "");
    }

    /// Replaces the arguments with an authoritative full text (a `.done` event). Equal text is a
    /// no-op; text that extends what arrived is reported as the missing fragment.
    pub fn replace_arguments(&mut self, call: CallHandle, full: &str) {
        let current = &self.calls[call.0].arguments;
        if full == current || self.calls[call.0].ended {
            return;
        }
        if let Some(rest) = full.strip_prefix(current.as_str()) {
            let rest = rest.to_owned();
            self.append_arguments(call, &rest);
            return;
        }
        self.ensure_started(call);
        let mut parser = self.new_parser();
        let c = &mut self.calls[call.0];
        c.arguments = full.to_owned();
        if c.parser.is_some() {
            // The fragments were wrong; the previews are re-based on the full text silently.
            parser.push(full, &mut Vec::new());
            c.parser = Some(parser);
        }
    }

    /// Sets the arguments of a call whose changes were already reported as partial operations
    /// (Gemini `partialArgs`): no fragment is reported again.
    pub fn set_final_arguments(&mut self, call: CallHandle, arguments: String) {
        self.ensure_started(call);
        let c = &mut self.calls[call.0];
        if !c.ended {
            c.arguments = arguments;
        }
    }

    /// Ends a call: it is complete when its arguments are one JSON object (custom calls: always).
    /// After input was lost ([`Turn::lost_input`]) it is cut instead: what was lost may have been
    /// part of it.
    pub fn end_call(&mut self, call: CallHandle) {
        if self.lost {
            self.cut_call(call, LOST);
            return;
        }
        self.end_whole_call(call);
    }

    /// Ends a call whose whole arguments came in the event that ends it (a Responses
    /// `output_item.done`, a Gemini `functionCall` part): as [`Turn::end_call`], but input lost
    /// elsewhere in the stream was no part of them, so it is complete after a loss too (the
    /// turn still ends with stop reason `error`).
    pub fn end_whole_call(&mut self, call: CallHandle) {
        if self.calls[call.0].ended {
            return;
        }
        self.take_initial_arguments(call);
        self.ensure_started(call);
        let decode = self.options.decode_html_entities;
        let c = &mut self.calls[call.0];
        c.ended = true;
        if c.kind == CallKind::Custom {
            c.complete = true;
        } else {
            if c.arguments.trim().is_empty() {
                // A call that ended with no argument text takes no arguments.
                let blank_fragments = c.had_fragment;
                c.arguments = "{}".to_owned();
                if blank_fragments {
                    self.repair(RepairKind::EmptyToolInput, Some(call));
                }
            }
            let c = &mut self.calls[call.0];
            if decode {
                let decoded =
                    super::html_entities::decode_entities_in_json(&c.arguments).into_owned();
                c.arguments = decoded;
            }
            // The parser already knows when the text is one object; only a problem is worth a
            // second parse, for its message.
            let whole = !decode && c.parser.as_ref().is_some_and(PartialJson::is_object);
            match if whole {
                None
            } else {
                object_problem(&c.arguments)
            } {
                None => c.complete = true,
                Some(problem) => {
                    c.error = Some((
                        ErrorCode::InvalidJson,
                        format!("The call ended but {problem}; nothing was run."),
                    ))
                }
            }
        }
        self.write_end(call);
    }

    /// Arguments that arrived whole when the call opened, and no fragment after them: they are
    /// the call's arguments, whether it ends or is cut (a cut call shows what arrived).
    fn take_initial_arguments(&mut self, call: CallHandle) {
        let c = &mut self.calls[call.0];
        if !c.arguments.is_empty() {
            return;
        }
        if let Some((initial, repair)) = c.initial_arguments.take() {
            let initial = if initial.trim().is_empty() {
                "{}".to_owned()
            } else {
                initial
            };
            self.append_arguments(call, &initial);
            if let Some(kind) = repair {
                self.repair(kind, Some(call));
            }
        }
    }

    /// Leaves a call cut off: not complete, with `INCOMPLETE_ARGUMENTS`. What arrived of its
    /// arguments stays, for the reader (the call is never run).
    pub fn cut_call(&mut self, call: CallHandle, why: &str) {
        if self.calls[call.0].ended {
            return;
        }
        self.take_initial_arguments(call);
        self.ensure_started(call);
        let c = &mut self.calls[call.0];
        c.ended = true;
        c.complete = false;
        c.error = Some((
            ErrorCode::IncompleteArguments,
            format!(
                "The arguments of this call were cut off ({why}); it was not run. \
                 Call the tool again with complete arguments."
            ),
        ));
        self.write_end(call);
    }

    /// Appends visible text.
    pub fn text(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.text.push_str(delta);
        self.events.push_str(",{\"type\":\"text_delta\",\"delta\":");
        push_json_string(&mut self.events, delta);
        self.events.push('}');
    }

    /// Starts a new thinking block (the next thinking text and signature go to it), with the
    /// provider's id of it when it has one (it must be sent back with the block).
    pub fn start_thinking(&mut self, id: Option<&str>) {
        self.thinking.push(Thinking {
            id: id.map(str::to_owned),
            ..Thinking::default()
        });
    }

    /// Appends thinking text to the current block (opening one if none is open).
    pub fn thinking(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.current_thinking().text.push_str(delta);
        self.events
            .push_str(",{\"type\":\"thinking_delta\",\"delta\":");
        push_json_string(&mut self.events, delta);
        self.events.push('}');
    }

    /// Adds to the signature of the current thinking block.
    pub fn thinking_signature(&mut self, signature: &str) {
        if signature.is_empty() {
            return;
        }
        self.current_thinking()
            .signature
            .get_or_insert_with(String::new)
            .push_str(signature);
    }

    /// Records a redacted thinking block (its opaque data must be sent back unchanged).
    pub fn redacted_thinking(&mut self, data: &str) {
        self.thinking.push(Thinking {
            redacted: Some(data.to_owned()),
            ..Thinking::default()
        });
    }

    fn current_thinking(&mut self) -> &mut Thinking {
        if self.thinking.is_empty() {
            self.thinking.push(Thinking::default());
        }
        self.thinking.last_mut().expect("just ensured")
    }

    /// Records the provider's own stop value and what it means.
    pub fn set_stop(&mut self, raw: Option<&str>, reason: StopReason) {
        self.raw_stop = raw.map(str::to_owned);
        self.stop = Some(reason);
    }

    /// The usage record, for the decoder to fill.
    pub fn usage_mut(&mut self) -> &mut Usage {
        &mut self.usage
    }

    /// Records a repair of `kind`, about `call` if it concerns one: kept once per kind and call,
    /// and reported as a `repair` event the first time. A decoder calls it where it makes the
    /// repair.
    pub fn repair(&mut self, kind: RepairKind, call: Option<CallHandle>) {
        self.record_repair(kind, call, None::<fn() -> String>);
    }

    /// As [`Turn::repair`], with what it was about (`detail`, computed only the first time).
    pub fn repair_with(
        &mut self,
        kind: RepairKind,
        call: Option<CallHandle>,
        detail: impl FnOnce() -> String,
    ) {
        self.record_repair(kind, call, Some(detail));
    }

    fn record_repair(
        &mut self,
        kind: RepairKind,
        call: Option<CallHandle>,
        detail: Option<impl FnOnce() -> String>,
    ) {
        if self
            .repairs
            .iter()
            .any(|r| r.kind == kind && r.call == call)
        {
            return;
        }
        let detail = match (detail, call) {
            (Some(detail), _) => Some(detail()),
            // A call the provider runs has no place in `toolCalls`: it is named in the detail.
            (None, Some(handle)) if self.calls[handle.0].executor == Executor::Server => {
                let c = &self.calls[handle.0];
                Some(format!(
                    "provider-run call {} ({})",
                    c.index,
                    json_string(&c.name)
                ))
            }
            (None, _) => None,
        };
        let repair = Repair { kind, call, detail };
        let mut events = std::mem::take(&mut self.events);
        events.push_str(",{\"type\":\"repair\",");
        self.write_repair_fields(&mut events, &repair);
        events.push('}');
        self.events = events;
        self.repairs.push(repair);
    }

    /// `"kind":…` and, when there are some, `"callIndex":…` and `"detail":…`.
    fn write_repair_fields(&self, out: &mut String, repair: &Repair) {
        out.push_str("\"kind\":\"");
        out.push_str(repair.kind.as_str());
        out.push('"');
        if let Some(handle) = repair.call {
            let c = &self.calls[handle.0];
            if c.executor == Executor::Client {
                out.push_str(",\"callIndex\":");
                push_number(out, c.index);
            }
        }
        if let Some(detail) = &repair.detail {
            out.push_str(",\"detail\":");
            push_json_string(out, detail);
        }
    }

    /// Reports an error in the stream, of `kind` (the turn goes on unless the decoder
    /// terminates it): the `error` event and the turn carry the kind's name next to the message.
    pub fn error(&mut self, kind: DecodeErrorKind, message: impl Into<String>) {
        let message = message.into();
        self.events.push_str(",{\"type\":\"error\",\"kind\":\"");
        self.events.push_str(kind.as_str());
        self.events.push_str("\",\"message\":");
        push_json_string(&mut self.events, &message);
        self.events.push('}');
        self.errors.push(message);
        self.error_kinds.push(kind);
    }

    /// Reports input the decoder could not read or had to drop, of `kind`: an event that is not
    /// valid JSON or not of the wire's shape, one over the size limit, call data that belongs to
    /// no call. Before the terminal event the turn has lost data (part of a call, a whole call,
    /// the stop reason: which, nothing tells), so it is broken, as a stream cut off is: it ends
    /// with stop reason `error`, every call not yet ended is cut (`INCOMPLETE_ARGUMENTS`), and
    /// a call's end after the loss cuts it too. After the terminal event it is only reported:
    /// the turn was whole, and what follows its end is not part of it.
    pub fn lost_input(&mut self, kind: DecodeErrorKind, message: impl Into<String>) {
        self.error(kind, message);
        if !self.terminated {
            self.lost = true;
        }
    }

    /// The terminal event: ends every open call (cut, if the turn stopped for length or error,
    /// or lost input) and reports `done`. Later terminal events are ignored.
    pub fn terminate(&mut self) {
        if self.terminated {
            return;
        }
        self.terminated = true;
        if self.lost {
            self.stop = Some(StopReason::Error);
        }
        let stop = self.stop.unwrap_or(StopReason::Stop);
        for i in 0..self.calls.len() {
            let handle = CallHandle(i);
            match stop {
                StopReason::Length => self.cut_call(handle, "the output limit was reached"),
                StopReason::Error if self.lost => self.cut_call(handle, LOST),
                StopReason::Error => self.cut_call(handle, "the turn ended with an error"),
                StopReason::Stop | StopReason::ToolUse => self.end_call(handle),
            }
        }
        if stop == StopReason::ToolUse && self.client_calls == 0 {
            let raw = self.raw_stop.as_deref().unwrap_or("tool calls");
            self.error(
                DecodeErrorKind::ToolCallsLost,
                format!(
                "the stop reason {} says the turn holds tool calls, but none arrived: they were \
                 lost before reaching the decoder",
                crate::json_text::json_string(raw)
            ),
            );
            self.stop = Some(StopReason::Error);
        }
        self.write_done();
    }

    /// Ends the turn at the end of the body: a stream that never sent its terminal event is cut
    /// off, so its open calls are incomplete and the stop reason is `error`.
    pub fn end_of_body(&mut self) {
        self.end_of_body_because(
            DecodeErrorKind::StreamTruncated,
            "the stream ended before its terminal event: the response is incomplete",
        );
    }

    /// As [`Turn::end_of_body`], with the error to report when the terminal event is missing
    /// (the decoder knows better, e.g. that the body was not the wire at all).
    pub fn end_of_body_because(&mut self, kind: DecodeErrorKind, missing_end: &str) {
        if !self.terminated {
            self.error(kind, missing_end);
            if self.stop != Some(StopReason::Length) {
                self.stop = Some(StopReason::Error);
            }
            self.terminate();
        }
        // A call a decoder opened after the terminal event never saw an end.
        for i in 0..self.calls.len() {
            self.cut_call(CallHandle(i), "it arrived after the end of the turn");
        }
    }

    /// Hands out the events written since the last call, as a JSON array text.
    pub fn take_events(&mut self) -> String {
        let mut out = String::with_capacity(self.events.len() + 2);
        out.push('[');
        out.push_str(self.events.strip_prefix(',').unwrap_or(&self.events));
        out.push(']');
        self.events.clear();
        out
    }

    /// The assembled turn as JSON text (`AssembledTurn`).
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256 + self.text.len());
        out.push_str("{\"toolCalls\":[");
        self.write_calls(&mut out, Executor::Client);
        out.push_str("],\"serverToolCalls\":[");
        self.write_calls(&mut out, Executor::Server);
        out.push_str("],\"text\":");
        push_json_string(&mut out, &self.text);
        out.push_str(",\"thinking\":[");
        for (i, block) in self.thinking.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"text\":");
            push_json_string(&mut out, &block.text);
            if let Some(signature) = &block.signature {
                out.push_str(",\"signature\":");
                push_json_string(&mut out, signature);
            }
            if let Some(data) = &block.redacted {
                out.push_str(",\"redacted\":");
                push_json_string(&mut out, data);
            }
            if let Some(id) = &block.id {
                out.push_str(",\"id\":");
                push_json_string(&mut out, id);
            }
            out.push('}');
        }
        out.push_str("],\"stopReason\":");
        push_json_string(&mut out, self.final_stop().as_str());
        out.push_str(",\"rawStopReason\":");
        match &self.raw_stop {
            Some(raw) => push_json_string(&mut out, raw),
            None => out.push_str("null"),
        }
        if self.usage.input_tokens.is_some()
            || self.usage.output_tokens.is_some()
            || self.usage.raw.is_some()
        {
            out.push_str(",\"usage\":{");
            let mut first = true;
            for (key, value) in [
                ("inputTokens", self.usage.input_tokens),
                ("outputTokens", self.usage.output_tokens),
            ] {
                if let Some(value) = value {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&format!("\"{key}\":{value}"));
                }
            }
            if let Some(raw) = &self.usage.raw {
                if !first {
                    out.push(',');
                }
                out.push_str("\"raw\":");
                out.push_str(raw);
            }
            out.push('}');
        }
        out.push_str(",\"errors\":[");
        for (i, error) in self.errors.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(&mut out, error);
        }
        out.push_str("],\"errorKinds\":[");
        for (i, kind) in self.error_kinds.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(kind.as_str());
            out.push('"');
        }
        out.push_str("],\"repairs\":[");
        for (i, repair) in self.repairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('{');
            self.write_repair_fields(&mut out, repair);
            out.push('}');
        }
        out.push_str("]}");
        out
    }

    /// The stop reason the turn reports: `toolUse` whenever a complete client call is present
    /// and the turn was not cut or failed.
    pub fn final_stop(&self) -> StopReason {
        if self.lost {
            return StopReason::Error;
        }
        let stop = self.stop.unwrap_or(if self.terminated {
            StopReason::Stop
        } else {
            StopReason::Error
        });
        let has_complete_call = self
            .calls
            .iter()
            .any(|c| c.executor == Executor::Client && c.complete);
        match stop {
            StopReason::Stop | StopReason::ToolUse if has_complete_call => StopReason::ToolUse,
            StopReason::ToolUse => StopReason::Stop,
            other => other,
        }
    }

    fn ensure_started(&mut self, call: CallHandle) {
        let c = &mut self.calls[call.0];
        if c.started {
            return;
        }
        c.started = true;
        let generated = c.id.is_empty();
        if generated {
            c.id = generate_call_id();
        }
        // Ids are unique within a turn: results are matched to calls by id. A call under the id
        // of an earlier one gets a generated id (the provider's is kept for matching fragments).
        let mut duplicate = None;
        if !self.started_ids.insert(c.id.clone()) {
            let sent = std::mem::replace(&mut c.id, generate_call_id());
            self.started_ids.insert(c.id.clone());
            duplicate = Some(json_string(&sent));
            c.sent_id = Some(sent);
        }
        let c = &self.calls[call.0];
        if c.executor == Executor::Server {
            self.started_repairs(call, generated, duplicate);
            return;
        }
        self.events
            .push_str(",{\"type\":\"toolcall_start\",\"index\":");
        push_number(&mut self.events, c.index);
        self.events.push_str(",\"id\":");
        push_json_string(&mut self.events, &c.id);
        self.events.push_str(",\"name\":");
        push_json_string(&mut self.events, &c.name);
        if c.kind == CallKind::Custom {
            self.events.push_str(",\"kind\":\"custom\"");
        }
        self.events.push('}');
        self.started_repairs(call, generated, duplicate);
    }

    /// The repairs of a call's id, once it started: `generated` for a call sent without one,
    /// `duplicate` (the provider's id, as JSON) for one sent under an earlier call's id.
    fn started_repairs(&mut self, call: CallHandle, generated: bool, duplicate: Option<String>) {
        if generated {
            self.repair(RepairKind::MissingId, Some(call));
        }
        if let Some(sent) = duplicate {
            self.repair_with(RepairKind::DuplicateCallId, Some(call), || {
                format!("{sent} was an earlier call's id")
            });
        }
    }

    fn write_delta(&mut self, index: usize, fragment: &str) {
        let mut ops = std::mem::take(&mut self.ops);
        let mut fragment = fragment;
        if ops.is_empty() {
            if !fragment.is_empty() {
                self.write_delta_head(index, fragment);
                self.events.push('}');
            }
        } else {
            for op in ops.drain(..) {
                self.write_delta_head(index, fragment);
                fragment = "";
                self.events.push_str(",\"partial\":{\"path\":");
                match &op {
                    PartialOp::Append { path, text } => {
                        PartialJson::write_path_json(path, &mut self.events);
                        self.events.push_str(",\"append\":");
                        push_json_string(&mut self.events, text);
                    }
                    PartialOp::Value { path, json } => {
                        PartialJson::write_path_json(path, &mut self.events);
                        self.events.push_str(",\"value\":");
                        self.events.push_str(json);
                    }
                }
                self.events.push_str("}}");
            }
        }
        self.ops = ops;
    }

    fn write_delta_head(&mut self, index: usize, fragment: &str) {
        self.events
            .push_str(",{\"type\":\"toolcall_delta\",\"index\":");
        push_number(&mut self.events, index);
        self.events.push_str(",\"delta\":");
        push_json_string(&mut self.events, fragment);
    }

    fn write_end(&mut self, call: CallHandle) {
        let c = &self.calls[call.0];
        if c.executor == Executor::Server {
            return;
        }
        let mut out = std::mem::take(&mut self.events);
        out.push_str(",{\"type\":\"toolcall_end\",\"index\":");
        push_number(&mut out, c.index);
        out.push_str(",\"toolCall\":");
        write_call(&mut out, c);
        out.push('}');
        self.events = out;
    }

    fn write_done(&mut self) {
        let stop = self.final_stop();
        self.events.push_str(",{\"type\":\"done\",\"stopReason\":");
        push_json_string(&mut self.events, stop.as_str());
        self.events.push('}');
    }

    fn write_calls(&self, out: &mut String, executor: Executor) {
        let mut first = true;
        for call in self.calls.iter().filter(|c| c.executor == executor) {
            if !first {
                out.push(',');
            }
            first = false;
            write_call(out, call);
        }
    }
}

/// Writes one `AssembledToolCall` as JSON text. A call still open is reported as it stands,
/// incomplete.
fn write_call(out: &mut String, call: &Call) {
    out.push_str("{\"index\":");
    push_number(out, call.index);
    out.push_str(",\"id\":");
    push_json_string(out, &call.id);
    out.push_str(",\"name\":");
    push_json_string(out, &call.name);
    out.push_str(",\"arguments\":");
    push_json_string(out, &call.arguments);
    out.push_str(",\"complete\":");
    out.push_str(if call.complete { "true" } else { "false" });
    if call.kind == CallKind::Custom {
        out.push_str(",\"kind\":\"custom\"");
    }
    if let Some((code, message)) = &call.error {
        out.push_str(",\"error\":{\"code\":");
        push_json_string(out, code.as_str());
        out.push_str(",\"message\":");
        push_json_string(out, message);
        out.push('}');
    }
    if !call.metadata.is_empty() {
        out.push_str(",\"providerMetadata\":{");
        for (i, (key, value)) in call.metadata.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(out, key);
            out.push(':');
            out.push_str(value);
        }
        out.push('}');
    }
    out.push('}');
}

/// Appends a number without allocating.
fn push_number(out: &mut String, n: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

/// A fresh call id for a call the provider sent without one: `call_` and 24 hex digits, unique
/// within the process and unpredictable across processes.
pub fn generate_call_id() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static SEED: RandomState = RandomState::new();
    }
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let (high, low) = SEED.with(|seed| {
        let mut a = seed.build_hasher();
        a.write_u64(count);
        let mut b = seed.build_hasher();
        b.write_u64(!count);
        (a.finish(), b.finish())
    });
    format!("call_{:016x}{:08x}", high, low as u32)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn json(turn: &Turn) -> Value {
        serde_json::from_str(&turn.to_json()).unwrap()
    }

    #[test]
    fn every_call_ends_with_complete_or_an_error() {
        let mut turn = Turn::new(DecoderOptions::default());
        let whole = turn.open_call(Executor::Client, CallKind::Function, "a", "t");
        turn.append_arguments(whole, "{}");
        turn.set_stop(Some("tool_calls"), StopReason::ToolUse);
        turn.terminate();
        // A decoder that opens a call after the terminal event: it never saw an end.
        let late = turn.open_call(Executor::Client, CallKind::Function, "b", "t");
        turn.append_arguments(late, "{}");
        turn.end_of_body();
        let calls = json(&turn)["toolCalls"].clone();
        assert_eq!(calls[0]["complete"], true);
        assert_eq!(calls[1]["complete"], false);
        assert_eq!(calls[1]["error"]["code"], "INCOMPLETE_ARGUMENTS");
    }

    #[test]
    fn the_stop_reason_follows_the_calls() {
        let mut turn = Turn::new(DecoderOptions::default());
        turn.set_stop(Some("tool_calls"), StopReason::ToolUse);
        turn.terminate();
        assert_eq!(
            turn.final_stop(),
            StopReason::Error,
            "tool_calls without a call: the calls were lost"
        );
        assert!(json(&turn)["errors"][0]
            .as_str()
            .unwrap()
            .contains("\"tool_calls\" says the turn holds tool calls, but none arrived"));
        let mut turn = Turn::new(DecoderOptions::default());
        let call = turn.open_call(Executor::Client, CallKind::Function, "a", "t");
        turn.append_arguments(call, "{}");
        turn.set_stop(Some("end_turn"), StopReason::Stop);
        turn.terminate();
        assert_eq!(turn.final_stop(), StopReason::ToolUse);
        let mut turn = Turn::new(DecoderOptions::default());
        turn.end_of_body();
        assert_eq!(json(&turn)["stopReason"], "error");
        assert_eq!(json(&turn)["rawStopReason"], Value::Null);
    }

    #[test]
    fn custom_calls_are_complete_with_free_text() {
        let mut turn = Turn::new(DecoderOptions::default());
        let call = turn.open_call(Executor::Client, CallKind::Custom, "c", "sql");
        turn.append_arguments(call, "SELECT 1");
        turn.end_call(call);
        let call = &json(&turn)["toolCalls"][0];
        assert_eq!(call["complete"], true);
        assert_eq!(call["kind"], "custom");
        assert_eq!(call["arguments"], "SELECT 1");
    }

    #[test]
    fn generated_ids_are_unique() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| generate_call_id()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 29 && id.starts_with("call_")));
    }
}
