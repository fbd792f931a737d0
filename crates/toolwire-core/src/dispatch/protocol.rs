//! The conversation between the dispatcher and its driver (the JavaScript layer): calls and
//! options in, [`Action`]s out, [`Completion`]s back in. Everything crosses as one JSON text per
//! batch of messages, never one crossing per call.
//!
//! Actions are JSON arrays whose first element is the action's code:
//!
//! | code | action | elements after the code |
//! |---|---|---|
//! | 0 | start event | batch, slot, args?, id?, name?, repeats? |
//! | 1 | run `beforeToolCall` | batch, slot, token, args, call (a [`ToolCall`]) |
//! | 2 | compute `concurrencyKey(args)` | batch, slot, token, args |
//! | 3 | run the tool | batch, slot, token, tool id, args? |
//! | 4 | abort the tool's signal | batch, slot, reason (`"timeout"` or `"cancelled"`) |
//! | 5 | run `afterToolCall` | batch, slot, token, result |
//! | 6 | run `onPersist` | batch, slot, token, result |
//! | 7 | the call ended | batch, slot, result, view?, repeats? |
//! | 8 | the batch ended | batch |
//! | 9 | arm the timer | delay in ms, or -1 to disarm |
//! | 10 | the call ended with its value as returned | batch, slot, startedAt, endedAt, durationMs, shape, JSON text (shape 2 only, else null when a view follows), view? |
//! | 11 | emit `redaction_failed` | batch, slot |
//! | 12 | cut the batch's text further (`maxBatchChars`) | batch, slot, `[[block, text], ...]`, truncations |
//! | 13 | emit `loop_warning` | batch, slot, count |
//! | 14 | ask `onApproval(request)` | batch, slot, token, request |
//! | 15 | warn (`process.emitWarning`) | batch, slot, message |
//!
//! `repeats?` (codes 0 and 7) marks a call whose id an earlier call of its batch has: the slot
//! of that first call. Such a call is refused unrun (VALIDATION_ERROR with `duplicateOf`); the
//! engine alone decides which slots these are, and the driver records no call and no result of
//! their own for them (the audit log matches results to calls by id), only their events. When
//! `repeats` is there, the elements before it are too: `args`, then `id` and `name` as `null`
//! when not scrubbed, then `view` as `null` when there is none.
//!
//! `view?` (codes 7 and 10) is what events carry instead of the result where they differ: an
//! object with any of `content`, `details`, `detailsWithheld: true` and `args` (see
//! [`crate::dispatch::view::result_view`]).
//!
//! `args?` is left out when the arguments are exactly the call's own (its JSON text parsed, or the
//! object passed): the driver then uses those, parsing the text once. Code 10 is the common end
//! of a successful call: the result is the tool's value in the [`OutputShape`] given, with the
//! arguments the tool received, so the driver rebuilds it from what it holds instead of parsing
//! the whole envelope again.
//!
//! Completions are JSON arrays `[batch, slot, token, kind]` with `kind` from
//! [`CompletionKind`]'s codes, each with its payload as a JSON text of its own (see
//! [`parse_completions`]): what one tool or hook returned can fail that call only.

use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;

use crate::envelope::{ToolCall, ToolResult};
use crate::error::{Error, Result};
use crate::json_input::{InputError, Parsed};
use crate::output::{OutputShape, ToolOutcome};
use crate::policy::approvals::{ApprovalDecision, ApprovalRequest, ApprovalSettings, Grant};
use crate::policy::tools::PolicyContext;
use crate::registry::positive_millis;
use crate::sanitize::report::{SanitizeReport, Truncation};
use crate::sanitize::RuleOptions;

/// The largest batch id a driver may choose: batch ids cross as `u32`.
pub const MAX_BATCH_ID: u32 = u32::MAX;

crate::codes! {
    /// The code each [`Action`] crosses as, its first element (see the module documentation).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum ActionCode {
        /// Emit `tool_execution_start`: batch, slot, args?, id?, name?, repeats?.
        StartEvent = 0,
        /// Run `beforeToolCall`: batch, slot, token, args, call.
        BeforeHook = 1,
        /// Compute `concurrencyKey(args)`: batch, slot, token, args.
        ConcurrencyKey = 2,
        /// Run the tool: batch, slot, token, tool id, running timeout (ms), args?.
        RunTool = 3,
        /// Abort the tool's signal: batch, slot, reason (`"timeout"` or `"cancelled"`).
        Abort = 4,
        /// Run `afterToolCall`: batch, slot, token, result.
        AfterHook = 5,
        /// Run `onPersist`: batch, slot, token, result.
        PersistHook = 6,
        /// The call ended: batch, slot, result, view?, repeats?.
        End = 7,
        /// The batch ended: batch.
        BatchDone = 8,
        /// Arm the timer: delay in ms, or -1 to disarm.
        Timer = 9,
        /// The call ended with its value as returned: batch, slot, startedAt, endedAt, durationMs, shape, text?, view?.
        EndAsReturned = 10,
        /// Emit `redaction_failed`: batch, slot.
        RedactionFailed = 11,
        /// Cut the batch's text further (`maxBatchChars`): batch, slot, blocks, truncations.
        Trim = 12,
        /// Emit `loop_warning`: batch, slot, count.
        LoopWarning = 13,
        /// Ask `onApproval(request)`: batch, slot, token, request.
        Approval = 14,
        /// Warn (`process.emitWarning`): batch, slot, message.
        Warning = 15,
    }
}

crate::codes! {
    /// The kind of a [`Completion`], as the driver writes it (see [`CompletionKind`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum CompletionCode {
        /// `beforeToolCall` returned this (`null` for nothing).
        BeforeAnswered = 0,
        /// `beforeToolCall` threw or rejected: its message.
        BeforeFailed = 1,
        /// `concurrencyKey` returned this key (`null` for none).
        Key = 2,
        /// `concurrencyKey` threw: its message.
        KeyFailed = 3,
        /// The tool returned this value.
        Returned = 4,
        /// The tool returned `undefined`.
        ReturnedNothing = 5,
        /// The tool threw or rejected: its message.
        Threw = 6,
        /// The tool's value has no JSON form: why.
        Unserializable = 7,
        /// The tool is no longer registered in the driver.
        Missing = 8,
        /// `afterToolCall` returned this.
        AfterAnswered = 9,
        /// `afterToolCall` threw or rejected: its message.
        AfterFailed = 10,
        /// `onPersist` returned this.
        PersistAnswered = 11,
        /// `onPersist` threw or rejected: its message.
        PersistFailed = 12,
        /// The tool returned a value the driver had sanitized off the JavaScript thread: `[value, report]`.
        ReturnedSanitized = 13,
        /// `onApproval` answered this.
        ApprovalAnswered = 14,
        /// `onApproval` threw or rejected: its message.
        ApprovalFailed = 15,
        /// The tool threw an error marked `retryable = false`: its message.
        ThrewNotRetryable = 16,
        /// The tool's value nests deeper than the engine takes.
        TooDeep = 17,
        /// `beforeToolCall` answered params holding a number JSON cannot carry: `[pointer, number]`.
        BeforeParamsNotFinite = 18,
        /// What the tool sent was refused over a limit on the way: the message.
        OverLimit = 19,
        /// The tool returned `{ content: [{ type: 'text', text }] }` and nothing else, the
        /// commonest value: the payload is `text` itself, well-formed and not JSON text.
        ReturnedText = 20,
    }
}

crate::codes! {
    /// How a call's arguments text is read: the third element of its row (see [`parse_calls`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum ArgumentKind {
        /// The model's JSON text, crossing unescaped.
        Text = 0,
        /// The JSON text of an object the caller passed.
        Object = 1,
        /// Why an object the caller passed could not be serialized.
        Unserializable = 2,
        /// A call a StreamDecoder marked incomplete: refused with INCOMPLETE_ARGUMENTS, never run.
        Incomplete = 3,
        /// An object holding a number JSON cannot carry: `[pointer, number]`, refused at that path.
        NotFinite = 4,
    }
}

/// A call's place: its batch and its index in that batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallRef {
    /// The batch id the driver chose.
    pub batch: u32,
    /// The index of the call in its batch.
    pub slot: u32,
}

/// Why a running tool's signal is aborted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortReason {
    /// Its deadline passed.
    Timeout,
    /// The dispatch was cancelled.
    Cancelled,
}

/// Something the driver must do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Emit `tool_execution_start`.
    StartEvent {
        /// The call.
        call: CallRef,
        /// Its parsed arguments (`null` when they were not JSON); `None` when they are the
        /// call's own (never with `ids`).
        args: Option<Value>,
        /// The call's id and tool name as events carry them, when they hold secrets (see
        /// `finalize::scrubbed_ids`); encoded after the arguments.
        ids: Option<Box<(String, String)>>,
        /// The slot of the earlier call of the batch with the same id, when this call repeats it
        /// (it is refused; see the module documentation).
        repeats: Option<u32>,
    },
    /// Run the `beforeToolCall` hook.
    BeforeHook {
        /// The call.
        call: CallRef,
        /// Echoed back in the completion.
        token: u32,
        /// The validated arguments.
        args: Value,
        /// The call's envelope.
        envelope: Box<ToolCall>,
    },
    /// Compute the tool's `concurrencyKey(args)` (synchronously).
    ConcurrencyKey {
        /// The call.
        call: CallRef,
        /// Echoed back.
        token: u32,
        /// The arguments the tool will receive.
        args: Value,
    },
    /// Run the tool.
    Start {
        /// The call.
        call: CallRef,
        /// Echoed back.
        token: u32,
        /// The registration id of the tool's implementation.
        tool_id: u64,
        /// The running stage's deadline, in milliseconds from the crossing's moment: calls of one
        /// batch started in one answer with the same value end by the same deadline, so the driver
        /// gives them one AbortSignal.
        timeout_ms: u64,
        /// The arguments; `None` when they are the call's own.
        args: Option<Value>,
    },
    /// Abort the running tool's signal; its late outcome is ignored.
    Abort {
        /// The call.
        call: CallRef,
        /// Why.
        reason: AbortReason,
    },
    /// Run the `afterToolCall` hook.
    AfterHook {
        /// The call.
        call: CallRef,
        /// Echoed back.
        token: u32,
        /// The result so far.
        result: Box<ToolResult>,
    },
    /// Run the `onPersist` hook.
    Persist {
        /// The call.
        call: CallRef,
        /// Echoed back.
        token: u32,
        /// The result so far.
        result: Box<ToolResult>,
    },
    /// The call ended with this result: emit `tool_execution_end` and keep it.
    End {
        /// The call.
        call: CallRef,
        /// The final result.
        result: Box<ToolResult>,
        /// What events carry instead, where it differs.
        view: Option<Value>,
        /// The slot of the earlier call of the batch with the same id, when this call repeats it.
        repeats: Option<u32>,
    },
    /// The call ended successfully and its result is the tool's value as returned, in this
    /// shape: the driver builds the result from the value it holds.
    EndAsReturned {
        /// The call.
        call: CallRef,
        /// When the tool started, in milliseconds since the Unix epoch.
        started_at: u64,
        /// When it ended.
        ended_at: u64,
        /// How long it ran, in milliseconds.
        duration_ms: f64,
        /// How the result derives from the value.
        shape: OutputShape,
        /// For [`OutputShape::Json`]: the value's JSON text, which becomes the text block.
        text: Option<String>,
        /// What events carry instead, where it differs.
        view: Option<Value>,
    },
    /// A tool without a redaction allowlist returned details, withheld from events (strict
    /// redaction): emit `redaction_failed`.
    RedactionFailed {
        /// The call.
        call: CallRef,
    },
    /// The batch's text is over `maxBatchChars`: these text blocks of the call's result are cut
    /// further.
    Trim {
        /// The call.
        call: CallRef,
        /// `(block index, new text)`.
        blocks: Vec<(usize, String)>,
        /// What was cut, for the result's report.
        truncations: Vec<Truncation>,
    },
    /// The run made this call (same tool, same arguments) `count` times: emit `loop_warning`.
    LoopWarning {
        /// The call.
        call: CallRef,
        /// How many times, this call included.
        count: u32,
    },
    /// Ask the runtime's `onApproval(request)`; the answer comes back as code 14 or 15.
    Approval {
        /// The call.
        call: CallRef,
        /// Echoed back.
        token: u32,
        /// What `onApproval` receives.
        request: Box<ApprovalRequest>,
    },
    /// Something went wrong that does not change the call's result (an `allow-always` grant
    /// that could not be saved): tell the developer.
    Warning {
        /// The call.
        call: CallRef,
        /// What happened.
        message: String,
    },
    /// Every call of the batch has ended.
    BatchDone {
        /// The batch.
        batch: u32,
    },
    /// Arm the one timer to call `tick` after this many milliseconds; `None` disarms it.
    Timer {
        /// The delay.
        delay_ms: Option<u64>,
    },
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let head = |seq: &mut S::SerializeSeq, code: ActionCode, call: &CallRef| {
            seq.serialize_element(&(code as u8))?;
            seq.serialize_element(&call.batch)?;
            seq.serialize_element(&call.slot)
        };
        match self {
            Action::StartEvent {
                call,
                args,
                ids,
                repeats,
            } => {
                head(&mut seq, ActionCode::StartEvent, call)?;
                if args.is_some() || ids.is_some() || repeats.is_some() {
                    seq.serialize_element(args.as_ref().unwrap_or(&Value::Null))?;
                }
                match (ids, repeats) {
                    (Some(ids), _) => {
                        seq.serialize_element(&ids.0)?;
                        seq.serialize_element(&ids.1)?;
                    }
                    (None, Some(_)) => {
                        seq.serialize_element(&())?;
                        seq.serialize_element(&())?;
                    }
                    (None, None) => {}
                }
                if let Some(first) = repeats {
                    seq.serialize_element(first)?;
                }
            }
            Action::BeforeHook {
                call,
                token,
                args,
                envelope,
            } => {
                head(&mut seq, ActionCode::BeforeHook, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(args)?;
                seq.serialize_element(envelope)?;
            }
            Action::ConcurrencyKey { call, token, args } => {
                head(&mut seq, ActionCode::ConcurrencyKey, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(args)?;
            }
            Action::Start {
                call,
                token,
                tool_id,
                timeout_ms,
                args,
            } => {
                head(&mut seq, ActionCode::RunTool, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(tool_id)?;
                seq.serialize_element(timeout_ms)?;
                if let Some(args) = args {
                    seq.serialize_element(args)?;
                }
            }
            Action::Abort { call, reason } => {
                head(&mut seq, ActionCode::Abort, call)?;
                seq.serialize_element(match reason {
                    AbortReason::Timeout => "timeout",
                    AbortReason::Cancelled => "cancelled",
                })?;
            }
            Action::AfterHook {
                call,
                token,
                result,
            } => {
                head(&mut seq, ActionCode::AfterHook, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(result)?;
            }
            Action::Persist {
                call,
                token,
                result,
            } => {
                head(&mut seq, ActionCode::PersistHook, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(result)?;
            }
            Action::EndAsReturned {
                call,
                started_at,
                ended_at,
                duration_ms,
                shape,
                text,
                view,
            } => {
                head(&mut seq, ActionCode::EndAsReturned, call)?;
                seq.serialize_element(started_at)?;
                seq.serialize_element(ended_at)?;
                seq.serialize_element(duration_ms)?;
                seq.serialize_element(&(*shape as u8))?;
                if text.is_some() || view.is_some() {
                    seq.serialize_element(text)?;
                }
                if let Some(view) = view {
                    seq.serialize_element(view)?;
                }
            }
            Action::End {
                call,
                result,
                view,
                repeats,
            } => {
                head(&mut seq, ActionCode::End, call)?;
                seq.serialize_element(result)?;
                if view.is_some() || repeats.is_some() {
                    seq.serialize_element(view.as_ref().unwrap_or(&Value::Null))?;
                }
                if let Some(first) = repeats {
                    seq.serialize_element(first)?;
                }
            }
            Action::RedactionFailed { call } => head(&mut seq, ActionCode::RedactionFailed, call)?,
            Action::Trim {
                call,
                blocks,
                truncations,
            } => {
                head(&mut seq, ActionCode::Trim, call)?;
                seq.serialize_element(blocks)?;
                seq.serialize_element(truncations)?;
            }
            Action::LoopWarning { call, count } => {
                head(&mut seq, ActionCode::LoopWarning, call)?;
                seq.serialize_element(count)?;
            }
            Action::Approval {
                call,
                token,
                request,
            } => {
                head(&mut seq, ActionCode::Approval, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(request)?;
            }
            Action::Warning { call, message } => {
                head(&mut seq, ActionCode::Warning, call)?;
                seq.serialize_element(message)?;
            }
            Action::BatchDone { batch } => {
                seq.serialize_element(&(ActionCode::BatchDone as u8))?;
                seq.serialize_element(batch)?;
            }
            Action::Timer { delay_ms } => {
                seq.serialize_element(&(ActionCode::Timer as u8))?;
                match delay_ms {
                    Some(ms) => seq.serialize_element(ms)?,
                    None => seq.serialize_element(&-1)?,
                }
            }
        }
        seq.end()
    }
}

/// The actions as one JSON text. (In this crate's tests, each is checked against its declared
/// layout, [`super::layout::ACTION_LAYOUTS`], which the driver's types are generated from.)
pub fn actions_to_json(actions: &[Action]) -> String {
    let text = serde_json::to_string(actions).expect("actions always serialize");
    #[cfg(test)]
    {
        let parsed: Vec<Value> = serde_json::from_str(&text).expect("actions are JSON");
        for action in &parsed {
            if let Some(why) = super::layout::misfit(action) {
                panic!("an action does not fit its layout: {why}");
            }
        }
    }
    text
}

/// One call as the model sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRequest {
    /// The model's id for the call.
    pub id: String,
    /// The tool name the model asked for.
    pub name: String,
    /// The arguments as sent.
    pub arguments: RawArguments,
    /// Where the call stands in a plan, stamped on its result.
    pub stamp: Option<Box<CallStamp>>,
    /// The id exactly as the caller wrote it when it is not well-formed UTF-16: its JSON
    /// literal, lone surrogates escaped (`"a\ud800"`), while `id` holds U+FFFD for each. Ids
    /// are told apart by it (`a\ud800` and `a\ufffd` are two calls) and a digest of it marks
    /// the id events and the audit log show. `None` for a well-formed id.
    pub exact_id: Option<String>,
}

/// A plan's marks on a call: its step, attempt, loop and confirmation.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallStamp {
    /// The plan step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// The attempt, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// The `foreach` loop the call is an iteration of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// The confirmation the plan ran under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_id: Option<String>,
}

/// A row of the calls' metadata: `[id, name, kind]` or `[id, name, kind, stamp]`.
#[derive(serde::Deserialize)]
struct CallRow(String, String, u8, #[serde(default)] Option<Box<CallStamp>>);

/// A call's arguments as the caller passed them.
#[derive(Clone, Debug, PartialEq)]
pub enum RawArguments {
    /// JSON text, as models send it; empty or whitespace-only means `{}`.
    Text(String),
    /// The JSON text of a value the caller passed as an object (`null` means `{}`).
    Object(String),
    /// An object the caller passed that could not be serialized (a cycle, a BigInt); why.
    Unserializable(String),
    /// The decoder marked the call incomplete (its arguments were cut off); never run.
    Incomplete,
    /// An object the caller passed holds a number JSON cannot carry: `(JSON pointer, the
    /// number as JavaScript prints it: Infinity, -Infinity or NaN)`; refused at that path.
    NotFinite(String, String),
}

/// Parses the calls of a batch. `meta` is `[[id, name, kind, stamp?], ...]` (see [`CallStamp`])
/// and `arguments` holds each
/// call's arguments text, so that the model's JSON text crosses unescaped: kind 0 for the model's
/// JSON text, 1 for the JSON text of an object the caller passed, 2 for an object that could not
/// be serialized (the text is then the reason), 3 for a call the decoder marked incomplete
/// (`complete: false`: its arguments were cut off; the text is ignored), 4 for an object holding
/// a number JSON cannot carry (the text is `[pointer, "Infinity" | "-Infinity" | "NaN"]`).
pub fn parse_calls(meta: &str, arguments: Vec<String>) -> Result<Vec<CallRequest>> {
    // Ids, names and marks are the caller's text: a lone surrogate in one is U+FFFD, not a
    // malformed batch.
    let repaired = crate::json_input::repair_surrogates(meta);
    let rows: Vec<CallRow> = serde_json::from_str(&repaired)
        .map_err(|e| Error::internal(format!("malformed calls from the driver: {e}")))?;
    let mut exact_ids = match repaired {
        std::borrow::Cow::Borrowed(_) => Vec::new(),
        std::borrow::Cow::Owned(_) => exact_ids(meta)?,
    }
    .into_iter();
    if rows.len() != arguments.len() {
        return Err(Error::internal(format!(
            "malformed calls from the driver: {} calls but {} argument texts",
            rows.len(),
            arguments.len()
        )));
    }
    rows.into_iter()
        .zip(arguments)
        .map(|(CallRow(id, name, kind, stamp), text)| {
            let arguments = match ArgumentKind::from_code(kind) {
                Some(ArgumentKind::Text) => RawArguments::Text(text),
                Some(ArgumentKind::Object) => RawArguments::Object(text),
                Some(ArgumentKind::Unserializable) => RawArguments::Unserializable(text),
                Some(ArgumentKind::Incomplete) => RawArguments::Incomplete,
                Some(ArgumentKind::NotFinite) => {
                    let (pointer, number): (String, String) =
                        serde_json::from_str(&crate::json_input::repair_surrogates(&text))
                            .map_err(|e| {
                                Error::internal(format!(
                                    "malformed call from the driver: a non-finite number's \
                                     place: {e}"
                                ))
                            })?;
                    RawArguments::NotFinite(pointer, number)
                }
                None => {
                    return Err(Error::internal(format!(
                        "malformed call from the driver: argument kind {kind}"
                    )))
                }
            };
            Ok(CallRequest {
                id,
                name,
                arguments,
                stamp,
                exact_id: exact_ids.next().flatten(),
            })
        })
        .collect()
}

/// Each row's id literal as the driver wrote it (`JSON.stringify`, so one text per JavaScript
/// string) when it escapes a lone surrogate, else `None`: read from the text before repair
/// (a raw value keeps the escapes).
fn exact_ids(meta: &str) -> Result<Vec<Option<String>>> {
    let rows: Vec<Vec<&serde_json::value::RawValue>> = serde_json::from_str(meta)
        .map_err(|e| Error::internal(format!("malformed calls from the driver: {e}")))?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let literal = row.first()?.get();
            let lone = matches!(
                crate::json_input::repair_surrogates(literal),
                std::borrow::Cow::Owned(_)
            );
            lone.then(|| literal.to_owned())
        })
        .collect())
}

/// Which hooks a dispatch has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hooks {
    /// `beforeToolCall`.
    pub before: bool,
    /// `afterToolCall`.
    pub after: bool,
    /// `onPersist`.
    pub persist: bool,
}

/// The per-dispatch options the engine needs (the functions stay in the driver).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchOptions {
    /// Overrides the runtime's default deadline (a tool's own `timeoutMs` still wins).
    pub timeout_ms: Option<u64>,
    /// Stamped on every result.
    pub run_id: Option<String>,
    /// Which hooks to run.
    pub hooks: Hooks,
    /// Whether the driver wants start events.
    pub events: bool,
    /// The signal was already aborted: run nothing.
    pub cancelled: bool,
    /// `sanitize`, `limits` and `redaction` given for this dispatch.
    pub overrides: RuleOptions,
    /// Who calls, through which provider: what the tool policy judges.
    pub context: PolicyContext,
    /// `approval: { security, ask }` for these calls (over the tool's and the runtime's).
    pub approval: ApprovalSettings,
    /// `tools`: the registered tools this dispatch may run (`None`: all). A call to any other
    /// name ends NOT_FOUND, as a call to an unregistered one, and its text names only these.
    pub tools: Option<AllowedTools>,
    /// Set only by [`super::Dispatcher::resume`], never parsed: the batch is one call that
    /// waited for `resolveApproval`, and this is the answer.
    pub resumed: Option<Box<Resumed>>,
}

/// The `tools` dispatch option: the names of the registered tools a dispatch may run.
#[derive(Clone, Debug, PartialEq)]
pub struct AllowedTools(std::collections::HashSet<String>);

impl AllowedTools {
    /// The tools named in `names`.
    pub fn new(names: Vec<String>) -> Self {
        Self(names.into_iter().collect())
    }

    /// Whether the tool named `name` may run.
    pub fn allows(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// Refuses names no tool of `registry` has (the caller's VALIDATION_ERROR, naming them and
    /// the registered name closest to the first).
    pub fn check(&self, registry: &crate::registry::Registry) -> Result<()> {
        self.check_option("dispatch: options.tools", registry)
    }

    /// [`AllowedTools::check`] for the option named `option` (`definitions: options.tools`).
    pub fn check_option(&self, option: &str, registry: &crate::registry::Registry) -> Result<()> {
        const NAMED: usize = 5;
        let mut unknown: Vec<&str> = self
            .0
            .iter()
            .map(String::as_str)
            .filter(|name| registry.get(name).is_none())
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort_unstable();
        let mut named: Vec<String> = unknown
            .iter()
            .take(NAMED)
            .map(|name| crate::json_text::quoted_name(name))
            .collect();
        if unknown.len() > NAMED {
            named.push(format!("and {} more", unknown.len() - NAMED));
        }
        let (what, verb) = if unknown.len() == 1 {
            ("a tool", "is")
        } else {
            ("tools", "are")
        };
        Err(Error::caller(
            crate::error::ErrorCode::ValidationError,
            format!(
                "{option} names {what} that {verb} not registered: {}{}",
                named.join(", "),
                crate::suggest::did_you_mean(unknown[0], registry.iter().map(|s| s.name.as_str()))
            ),
        ))
    }
}

/// The answer a resumed call carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Resumed {
    /// The decision.
    pub decision: ApprovalDecision,
    /// What `allow-always` remembers.
    pub grant: Grant,
}

/// Unknown keys are ignored: `deny_unknown_fields` does not combine with the flattened rules.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawBatchOptions {
    #[serde(default)]
    timeout_ms: Option<f64>,
    #[serde(default)]
    run_id: Option<String>,
    #[serde(default)]
    before_tool_call: bool,
    #[serde(default)]
    after_tool_call: bool,
    #[serde(default)]
    on_persist: bool,
    #[serde(default)]
    on_event: bool,
    #[serde(default)]
    aborted: bool,
    /// `{ provider, agentId, sender }` as the caller gave them.
    #[serde(default)]
    context: Value,
    #[serde(default)]
    approval: Value,
    #[serde(default)]
    tools: Option<Vec<String>>,
    #[serde(flatten)]
    rules: RuleOptions,
}

/// Parses dispatch options; a bad `timeoutMs` is the caller's error, naming the value.
pub fn parse_batch_options(text: &str) -> Result<BatchOptions> {
    // What the driver sends when no option is set (most dispatches): the defaults, unparsed
    if text == "{}" {
        return Ok(BatchOptions::default());
    }
    // The driver only wraps what the caller gave (`sanitize`, `approval`, `context`, ...): a
    // value it cannot read is the caller's error, thrown, and the runtime keeps serving.
    let raw: RawBatchOptions = crate::options::from_json_text(
        "dispatch: options",
        &crate::json_input::repair_surrogates(text),
    )?;
    let timeout_ms = match raw.timeout_ms {
        None => None,
        Some(ms) => Some(positive_millis(ms).ok_or_else(|| {
            Error::caller(
                crate::error::ErrorCode::ValidationError,
                format!(
                    "dispatch option timeoutMs must be a positive number of milliseconds, got {ms}"
                ),
            )
        })?),
    };
    Ok(BatchOptions {
        timeout_ms,
        run_id: raw.run_id,
        hooks: Hooks {
            before: raw.before_tool_call,
            after: raw.after_tool_call,
            persist: raw.on_persist,
        },
        events: raw.on_event,
        cancelled: raw.aborted,
        overrides: raw.rules,
        context: PolicyContext::from_json_at(&raw.context, "dispatch: options")?,
        approval: ApprovalSettings::from_json(&raw.approval, "dispatch: options.approval")?,
        tools: raw.tools.map(AllowedTools::new),
        resumed: None,
    })
}

/// What the driver reports back about one pending action.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    /// The call.
    pub call: CallRef,
    /// The token of the action this answers.
    pub token: u32,
    /// What happened.
    pub kind: CompletionKind,
    /// For a tool's completion: when the driver started the tool and saw it settle.
    pub ran: Option<Ran>,
}

/// When the driver started a tool and when it saw the tool settle, as `performance.now()`
/// readings (milliseconds) taken before the crossing that carries the completion. A crossing
/// happens when JavaScript is free, which can be long after a tool settled (another tool's
/// synchronous work in between): the result's times are these, not the crossing's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ran {
    /// The reading just before the tool was called.
    pub started_ms: f64,
    /// The reading when its value (or throw) was seen.
    pub settled_ms: f64,
}

/// The outcome of a hook, key or tool run.
#[derive(Clone, Debug, PartialEq)]
pub enum CompletionKind {
    /// Code 0: `beforeToolCall` returned this (`null` for nothing).
    BeforeAnswered(Value),
    /// Code 1: `beforeToolCall` threw or rejected.
    BeforeFailed(String),
    /// Code 2: `concurrencyKey` returned this key (`None` for no key).
    Key(Option<String>),
    /// Code 3: `concurrencyKey` threw.
    KeyFailed(String),
    /// Codes 4 to 8, 16 (it threw an error marked `retryable = false`), 17 (its value nests
    /// deeper than [`crate::json_input::MAX_VALUE_DEPTH`], as the engine's sanitizer found) and
    /// 19 (what it sent was refused over a limit on the way; the message): the tool ended.
    Tool(ToolOutcome),
    /// Code 9: `afterToolCall` returned this.
    AfterAnswered(Value),
    /// Code 10: `afterToolCall` threw or rejected.
    AfterFailed(String),
    /// Code 11: `onPersist` returned this.
    PersistAnswered(Value),
    /// Code 12: `onPersist` threw or rejected.
    PersistFailed(String),
    /// Code 4 whose JSON text had lone surrogates replaced (U+FFFD): the driver does not hold
    /// this value, so its result is never rebuilt from the value as returned.
    ToolRepaired(ToolOutcome),
    /// Code 13: the tool returned this value, whose content the driver already had sanitized
    /// off the JavaScript thread (big text, bytes, images), with that report.
    ToolSanitized(Value, Box<SanitizeReport>),
    /// Code 14: `onApproval` answered this.
    ApprovalAnswered(Value),
    /// Code 15: `onApproval` threw or rejected.
    ApprovalFailed(String),
    /// Code 18: `beforeToolCall` answered `{ params }` holding a number JSON cannot carry
    /// (`Infinity`, `-Infinity`, `NaN`): `(its JSON pointer in params, the number)`. The call
    /// ends with the `VALIDATION_ERROR` arguments given as an object get (one rule).
    BeforeParamsNotFinite(String, String),
}

/// The numbers of one completion's head, in order: batch, slot, token, kind, and the length of
/// its payload in UTF-16 units (see [`crate::joined`]).
pub const COMPLETION_HEAD_LEN: usize = 5;

/// The clock readings of one completion, in order: when its tool started and when it settled
/// ([`Ran`]); `NaN` for both in a completion of anything but a tool.
pub const COMPLETION_READINGS_LEN: usize = 2;

/// Parses the completions the driver collected, in the order they happened: `heads` holds
/// [`COMPLETION_HEAD_LEN`] numbers per completion, written by the driver itself, and `payloads`
/// each completion's payload as JSON text (which carries values from tools and hooks), joined as
/// [`crate::joined`] describes. Each payload is parsed on its own through [`crate::json_input`]
/// (lone surrogates become U+FFFD, depth is bounded before parsing), so a payload that cannot be
/// read fails its own call only: a tool's as `LIMIT_EXCEEDED` or `EXECUTION_ERROR`, a hook's as
/// that hook failing. Only malformed heads or lengths, which the driver writes, are an internal
/// error.
pub fn parse_completions(
    heads: &[u32],
    readings: &[f64],
    payloads: &str,
) -> Result<Vec<Completion>> {
    let malformed =
        |what: String| Error::internal(format!("malformed completions from the driver: {what}"));
    if !heads.len().is_multiple_of(COMPLETION_HEAD_LEN) {
        return Err(malformed(format!(
            "{} head numbers, not a multiple of {COMPLETION_HEAD_LEN}",
            heads.len()
        )));
    }
    let heads = heads.chunks_exact(COMPLETION_HEAD_LEN);
    if readings.len() != heads.len() * COMPLETION_READINGS_LEN {
        return Err(malformed(format!(
            "{} clock readings for {} completions",
            readings.len(),
            heads.len()
        )));
    }
    let lengths: Vec<u32> = heads.clone().map(|head| head[4]).collect();
    let payloads = crate::joined::split(payloads, &lengths).map_err(malformed)?;
    heads
        .zip(readings.chunks_exact(COMPLETION_READINGS_LEN))
        .zip(payloads)
        .map(|((head, readings), payload)| {
            let code = u8::try_from(head[3]).map_err(|_| malformed(format!("kind {}", head[3])))?;
            let ran = (readings[0].is_finite() && readings[1].is_finite()).then_some(Ran {
                started_ms: readings[0],
                settled_ms: readings[1],
            });
            Ok(Completion {
                call: CallRef {
                    batch: head[0],
                    slot: head[1],
                },
                token: head[2],
                kind: completion_kind(code, payload)?,
                ran,
            })
        })
        .collect()
}

/// The completion of kind `code` with the JSON text `payload`; a payload that cannot be read
/// becomes the failure of what it answers.
fn completion_kind(code: u8, payload: &str) -> Result<CompletionKind> {
    use CompletionCode as C;
    let Some(kind) = CompletionCode::from_code(code) else {
        return Err(Error::internal(format!(
            "malformed completion from the driver: kind {code}"
        )));
    };
    // A sanitized value comes as `[value, report]`: one level of the engine's own.
    let wrappers = usize::from(kind == C::ReturnedSanitized);
    let parsed = match kind {
        // (the value is built, not parsed: its text crossed as it is)
        C::ReturnedText => Ok(Parsed {
            value: sole_text_block(payload),
            repaired: false,
        }),
        // What a tool returned, a hook gave for its result, or beforeToolCall for the arguments.
        C::BeforeAnswered
        | C::Returned
        | C::AfterAnswered
        | C::PersistAnswered
        | C::ReturnedSanitized => parse_result_value(payload, wrappers),
        _ => crate::json_input::parse_wrapped(payload, wrappers),
    };
    let unreadable = |error: &InputError| format!("its answer cannot be used: {error}");
    let message = |parsed: std::result::Result<Parsed, InputError>| match parsed {
        Ok(Parsed {
            value: Value::String(message),
            ..
        }) => message,
        Ok(Parsed { value, .. }) => value.to_string(),
        Err(error) => format!("(its message cannot be read: {error})"),
    };
    Ok(match (kind, parsed) {
        (C::BeforeAnswered, Ok(parsed)) => CompletionKind::BeforeAnswered(parsed.value),
        (C::BeforeAnswered, Err(error)) => CompletionKind::BeforeFailed(unreadable(&error)),
        (C::BeforeFailed, parsed) => CompletionKind::BeforeFailed(message(parsed)),
        (C::Key, Ok(Parsed { value, .. })) => CompletionKind::Key(match value {
            Value::Null => None,
            Value::String(key) => Some(key),
            other => Some(other.to_string()),
        }),
        (C::Key, Err(error)) => CompletionKind::KeyFailed(unreadable(&error)),
        (C::KeyFailed, parsed) => CompletionKind::KeyFailed(message(parsed)),
        (C::Returned | C::ReturnedText, Ok(Parsed { value, repaired })) => {
            let outcome = ToolOutcome::Returned(value);
            if repaired {
                CompletionKind::ToolRepaired(outcome)
            } else {
                CompletionKind::Tool(outcome)
            }
        }
        (C::Returned | C::ReturnedText | C::ReturnedSanitized, Err(error)) => {
            CompletionKind::Tool(unreadable_value(error))
        }
        (C::ReturnedNothing, _) => CompletionKind::Tool(ToolOutcome::ReturnedNothing),
        (C::Threw, parsed) => CompletionKind::Tool(ToolOutcome::Threw(message(parsed))),
        (C::Unserializable, parsed) => {
            CompletionKind::Tool(ToolOutcome::Unserializable(message(parsed)))
        }
        (C::Missing, _) => CompletionKind::Tool(ToolOutcome::Missing),
        (C::AfterAnswered, Ok(parsed)) => CompletionKind::AfterAnswered(parsed.value),
        (C::AfterAnswered, Err(error)) => CompletionKind::AfterFailed(unreadable(&error)),
        (C::AfterFailed, parsed) => CompletionKind::AfterFailed(message(parsed)),
        (C::PersistAnswered, Ok(parsed)) => CompletionKind::PersistAnswered(parsed.value),
        (C::PersistAnswered, Err(error)) => CompletionKind::PersistFailed(unreadable(&error)),
        (C::PersistFailed, parsed) => CompletionKind::PersistFailed(message(parsed)),
        (C::ReturnedSanitized, Ok(Parsed { value, .. })) => {
            match serde_json::from_value::<(Value, SanitizeReport)>(value) {
                Ok((value, report)) => CompletionKind::ToolSanitized(value, Box::new(report)),
                Err(e) => {
                    return Err(Error::internal(format!(
                        "malformed sanitized completion: {e}"
                    )))
                }
            }
        }
        (C::ApprovalAnswered, Ok(parsed)) => CompletionKind::ApprovalAnswered(parsed.value),
        (C::ApprovalAnswered, Err(error)) => CompletionKind::ApprovalFailed(unreadable(&error)),
        (C::ApprovalFailed, parsed) => CompletionKind::ApprovalFailed(message(parsed)),
        (C::ThrewNotRetryable, parsed) => {
            CompletionKind::Tool(ToolOutcome::ThrewNotRetryable(message(parsed)))
        }
        (C::TooDeep, _) => CompletionKind::Tool(ToolOutcome::TooDeep),
        (C::OverLimit, parsed) => CompletionKind::Tool(ToolOutcome::OverLimit(message(parsed))),
        (C::BeforeParamsNotFinite, Ok(Parsed { value, .. })) => {
            match serde_json::from_value::<(String, String)>(value) {
                Ok((pointer, number)) => CompletionKind::BeforeParamsNotFinite(pointer, number),
                Err(e) => {
                    return Err(Error::internal(format!(
                        "malformed completion from the driver: a non-finite number's place: {e}"
                    )))
                }
            }
        }
        (C::BeforeParamsNotFinite, Err(error)) => {
            return Err(Error::internal(format!(
                "malformed completion from the driver: a non-finite number's place: {error}"
            )))
        }
    })
}

/// `{ content: [{ type: "text", text }] }`, the value a [`CompletionCode::ReturnedText`] stands for.
fn sole_text_block(text: &str) -> Value {
    serde_json::json!({ "content": [{ "type": "text", "text": text }] })
}

/// Parses a value handed over as a result (`wrappers` levels inside the driver's own arrays)
/// with one depth count for every value: [`MAX_VALUE_DEPTH`] levels for the value, and for an
/// object shaped as a result or a hook's answer (a `content`, `details` or `params` key) for each
/// of its fields, the object being the envelope. So `{ content, details }` with `details` 64 levels deep passes as
/// a returned value or arguments of 64 levels do. The second, wider pass runs only on a value
/// the first refused.
///
/// [`MAX_VALUE_DEPTH`]: crate::json_input::MAX_VALUE_DEPTH
fn parse_result_value(payload: &str, wrappers: usize) -> std::result::Result<Parsed, InputError> {
    match crate::json_input::parse_wrapped(payload, wrappers) {
        Err(InputError::TooDeep) => {
            let parsed = crate::json_input::parse_wrapped(payload, wrappers + 1)?;
            let value = if wrappers == 0 {
                Some(&parsed.value)
            } else {
                parsed.value.get(0)
            };
            let shaped = value.and_then(Value::as_object).is_some_and(|map| {
                ["content", "details", "params"]
                    .iter()
                    .any(|key| map.contains_key(*key))
            });
            if shaped {
                Ok(parsed)
            } else {
                Err(InputError::TooDeep)
            }
        }
        other => other,
    }
}

/// The outcome of a tool whose value's JSON text cannot be read.
fn unreadable_value(error: InputError) -> ToolOutcome {
    match error {
        InputError::TooDeep => ToolOutcome::TooDeep,
        InputError::OutOfRange(number) => ToolOutcome::Unserializable(number.to_string()),
        InputError::Invalid(error) => {
            ToolOutcome::Unserializable(format!("its JSON text is not valid ({error})"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_input::MAX_VALUE_DEPTH;
    use serde_json::json;

    #[test]
    fn actions_encode_as_compact_arrays() {
        let call = CallRef { batch: 2, slot: 5 };
        let actions = [
            Action::StartEvent {
                call,
                args: Some(json!({"a": 1})),
                ids: None,
                repeats: None,
            },
            Action::StartEvent {
                call,
                args: None,
                ids: None,
                repeats: None,
            },
            Action::StartEvent {
                call,
                args: Some(json!({})),
                ids: Some(Box::new(("[redacted:jwt]".into(), "t".into()))),
                repeats: None,
            },
            // a call repeating slot 1's id: every element before the mark is there
            Action::StartEvent {
                call,
                args: Some(Value::Null),
                ids: None,
                repeats: Some(1),
            },
            Action::StartEvent {
                call,
                args: Some(Value::Null),
                ids: Some(Box::new(("[redacted:jwt]".into(), "t".into()))),
                repeats: Some(0),
            },
            Action::Start {
                call,
                token: 3,
                tool_id: 7,
                timeout_ms: 500,
                args: None,
            },
            Action::Abort {
                call,
                reason: AbortReason::Timeout,
            },
            Action::BatchDone { batch: 2 },
            Action::Timer { delay_ms: None },
            Action::Timer { delay_ms: Some(12) },
        ];
        assert_eq!(
            actions_to_json(&actions),
            r#"[[0,2,5,{"a":1}],[0,2,5],[0,2,5,{},"[redacted:jwt]","t"],[0,2,5,null,null,null,1],[0,2,5,null,"[redacted:jwt]","t",0],[3,2,5,3,7,500],[4,2,5,"timeout"],[8,2],[9,-1],[9,12]]"#
        );
    }

    #[test]
    fn a_result_as_returned_ends_compactly() {
        let call = CallRef { batch: 1, slot: 0 };
        let compact = Action::EndAsReturned {
            call,
            started_at: 10,
            ended_at: 12,
            duration_ms: 1.5,
            shape: OutputShape::Json,
            text: Some("[1,2]".into()),
            view: None,
        };
        assert_eq!(
            actions_to_json(&[compact]),
            r#"[[10,1,0,10,12,1.5,2,"[1,2]"]]"#
        );
        let result: ToolResult = serde_json::from_value(json!({
            "callId": "c", "tool": "t", "args": {}, "attempt": 1, "status": "ok", "ok": true,
            "content": [], "startedAt": 10, "endedAt": 12, "durationMs": 1.5
        }))
        .unwrap();
        let full = Action::End {
            call,
            result: Box::new(result.clone()),
            view: None,
            repeats: None,
        };
        let text = actions_to_json(&[full]);
        assert!(text.starts_with(r#"[[7,1,0,{"callId":"c""#));
        assert!(text.ends_with(r#""durationMs":1.5}]]"#), "{text}");
        // a call repeating slot 3's id: the view's place is held by null when there is none
        for (view, tail) in [
            (None, "null,3]]"),
            (Some(json!({"args": {}})), r#"{"args":{}},3]]"#),
        ] {
            let repeated = Action::End {
                call,
                result: Box::new(result.clone()),
                view,
                repeats: Some(3),
            };
            let text = actions_to_json(&[repeated]);
            assert!(
                text.ends_with(&format!(r#""durationMs":1.5}},{tail}"#)),
                "{text}"
            );
        }
    }

    #[test]
    fn calls_parse_all_argument_kinds() {
        let texts = vec![
            "{\"p\":1}".to_owned(),
            "{\"p\":2}".to_owned(),
            "cycle".to_owned(),
            "{\"action\":\"delete_all\"".to_owned(),
        ];
        let calls = parse_calls(
            r#"[["a","read",0],["b","x",1],["c","y",2],["d","z",3]]"#,
            texts,
        )
        .unwrap();
        assert_eq!(calls[0].arguments, RawArguments::Text("{\"p\":1}".into()));
        assert_eq!(calls[1].arguments, RawArguments::Object("{\"p\":2}".into()));
        assert_eq!(
            calls[2].arguments,
            RawArguments::Unserializable("cycle".into())
        );
        assert_eq!(calls[3].arguments, RawArguments::Incomplete);
        let calls = parse_calls(
            r#"[["e","x",4]]"#,
            vec![r#"["/a/0/n~1m","-Infinity"]"#.to_owned()],
        )
        .unwrap();
        assert_eq!(
            calls[0].arguments,
            RawArguments::NotFinite("/a/0/n~1m".into(), "-Infinity".into())
        );
        assert!(parse_calls(r#"[["e","x",4]]"#, vec!["{}".to_owned()]).is_err());
        // a caller's id or name holding a lone surrogate, as JSON.stringify escapes it
        let calls = parse_calls(r#"[["\ud83d","b\udc00",0]]"#, vec![String::new()]).unwrap();
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("\u{FFFD}", "b\u{FFFD}")
        );
        assert!(parse_calls(r#"[["a","b",9]]"#, vec![String::new()]).is_err());
        assert!(parse_calls(r#"[["a","b",0]]"#, vec![]).is_err());
        assert!(parse_calls("nope", vec![]).is_err());
    }

    /// Heads and joined payloads of `(kind, payload)` rows, as the driver sends them.
    fn completions(rows: &[(u32, &str)]) -> Result<Vec<CompletionKind>> {
        let heads: Vec<u32> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, (kind, payload))| {
                [1, 0, i as u32, *kind, payload.encode_utf16().count() as u32]
            })
            .collect();
        let payloads: Vec<&str> = rows.iter().map(|(_, p)| *p).collect();
        let joined = payloads.join(crate::joined::SEPARATOR);
        let readings = vec![f64::NAN; rows.len() * COMPLETION_READINGS_LEN];
        Ok(parse_completions(&heads, &readings, &joined)?
            .into_iter()
            .map(|c| c.kind)
            .collect())
    }

    #[test]
    fn completions_carry_a_tools_readings_and_none_for_anything_else() {
        let heads = [1, 0, 1, 5, 4, 1, 1, 2, 0, 4];
        let readings = [10.5, 12.25, f64::NAN, f64::NAN];
        let parsed = parse_completions(&heads, &readings, "null\u{0}null").unwrap();
        assert_eq!(
            parsed[0].ran,
            Some(Ran {
                started_ms: 10.5,
                settled_ms: 12.25
            })
        );
        assert_eq!(parsed[1].ran, None);
        // a reading that is no time (a broken clock) leaves the crossing's time in force
        let parsed = parse_completions(&heads[..5], &[f64::INFINITY, 3.0], "null").unwrap();
        assert_eq!(parsed[0].ran, None);
    }

    #[test]
    fn completions_parse_every_kind() {
        let kinds = completions(&[
            (0, "null"),
            (2, r#""k""#),
            (4, r#"{"x":1}"#),
            (5, "null"),
            (6, r#""boom""#),
            (8, "null"),
            (16, r#""final""#),
            (12, r#""bad""#),
            (17, "null"),
            (19, r#""too large""#),
            (20, "a \"raw\" text\u{0}"),
        ])
        .unwrap();
        assert_eq!(
            kinds,
            vec![
                CompletionKind::BeforeAnswered(Value::Null),
                CompletionKind::Key(Some("k".into())),
                CompletionKind::Tool(ToolOutcome::Returned(json!({"x": 1}))),
                CompletionKind::Tool(ToolOutcome::ReturnedNothing),
                CompletionKind::Tool(ToolOutcome::Threw("boom".into())),
                CompletionKind::Tool(ToolOutcome::Missing),
                CompletionKind::Tool(ToolOutcome::ThrewNotRetryable("final".into())),
                CompletionKind::PersistFailed("bad".into()),
                CompletionKind::Tool(ToolOutcome::TooDeep),
                CompletionKind::Tool(ToolOutcome::OverLimit("too large".into())),
                CompletionKind::Tool(ToolOutcome::Returned(
                    json!({"content": [{"type": "text", "text": "a \"raw\" text\u{0}"}]})
                )),
            ]
        );
        assert!(completions(&[(99, "null")]).is_err());
        assert!(completions(&[(300, "null")]).is_err());
        // a head without its payload, a payload longer than said, heads cut short
        let two = [f64::NAN; COMPLETION_READINGS_LEN];
        assert!(parse_completions(&[1, 0, 1, 4, 4], &two, "").is_err());
        assert!(parse_completions(&[1, 0, 1, 4, 1], &two, "null").is_err());
        assert!(parse_completions(&[1, 0, 1, 4], &[], "null").is_err());
        // readings of another number of completions than the heads
        assert!(parse_completions(&[1, 0, 1, 5, 4], &[], "null").is_err());
        assert!(parse_completions(&[1, 0, 1, 5, 4], &[1.0, 2.0, 3.0], "null").is_err());
        // a payload holding the separator raw (no JSON text does) is still read by its length
        let kinds = completions(&[(6, "\"a\u{0}b\""), (6, "\"c\"")]).unwrap();
        assert_eq!(kinds.len(), 2);
        assert_eq!(
            kinds[1],
            CompletionKind::Tool(ToolOutcome::Threw("c".into()))
        );
    }

    /// Seen by a new user (issue 19): `details` of depth 64 ended LIMIT_EXCEEDED while a returned
    /// value and arguments of depth 64 passed (the `{ content, details }` envelope was counted).
    #[test]
    fn details_get_the_same_depth_as_every_value() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let passes = |kind: &CompletionKind| {
            !matches!(kind, CompletionKind::Tool(ToolOutcome::TooDeep))
                && !matches!(kind, CompletionKind::AfterFailed(m) | CompletionKind::PersistFailed(m) | CompletionKind::BeforeFailed(m) if m.contains("deeper"))
        };
        let report = r#"{"truncated":[],"scrubbed":{},"images":[]}"#;
        for depth in [MAX_VALUE_DEPTH - 1, MAX_VALUE_DEPTH, MAX_VALUE_DEPTH + 1] {
            let ok = depth <= MAX_VALUE_DEPTH;
            let value = nested(depth);
            let details =
                format!(r#"{{"content":[{{"type":"text","text":"x"}}],"details":{value}}}"#);
            let only_details = format!(r#"{{"details":{value}}}"#);
            // (kind, payload, passes): a plain value, a result's details, a hook's answer
            let cases = [
                (4u8, value.clone()),
                (4, details.clone()),
                (4, only_details.clone()),
                (9, details.clone()),
                (11, details.clone()),
                (0, format!(r#"{{"params":{{"d":{}}}}}"#, nested(depth - 1))),
                (13, format!("[{value},{report}]")),
                (13, format!("[{details},{report}]")),
            ];
            for (code, payload) in cases {
                let kind = completion_kind(code, &payload).unwrap();
                assert_eq!(passes(&kind), ok, "kind {code} depth {depth}: {kind:?}");
            }
            // Not result-shaped: the object counts as a level.
            let other = format!(r#"{{"other":{value}}}"#);
            let kind = completion_kind(4, &other).unwrap();
            assert_eq!(
                passes(&kind),
                depth < MAX_VALUE_DEPTH,
                "other depth {depth}"
            );
        }
    }

    /// What a tool or hook hands over that the engine cannot read fails that completion's call
    /// only, as what it answers failing; the other completions of the batch are unaffected.
    #[test]
    fn an_unreadable_payload_fails_its_own_completion_only() {
        // past the limit even as `[value, report]` (kind 13)
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_VALUE_DEPTH + 2),
            "]".repeat(MAX_VALUE_DEPTH + 2)
        );
        let too_deep = |kind: &CompletionKind| -> bool {
            let message = match kind {
                CompletionKind::BeforeFailed(m)
                | CompletionKind::AfterFailed(m)
                | CompletionKind::PersistFailed(m)
                | CompletionKind::ApprovalFailed(m)
                | CompletionKind::KeyFailed(m) => m,
                other => return *other == CompletionKind::Tool(ToolOutcome::TooDeep),
            };
            message.contains(&MAX_VALUE_DEPTH.to_string())
        };
        for code in [0u8, 2, 4, 9, 11, 13, 14] {
            let kinds = completions(&[(code.into(), &deep), (4, r#""fine""#)]).unwrap();
            assert!(too_deep(&kinds[0]), "kind {code}: {:?}", kinds[0]);
            assert_eq!(
                kinds[1],
                CompletionKind::Tool(ToolOutcome::Returned(json!("fine")))
            );
        }
        let kinds = completions(&[(4, "{"), (9, "{"), (6, "{")]).unwrap();
        assert!(matches!(
            &kinds[0],
            CompletionKind::Tool(ToolOutcome::Unserializable(_))
        ));
        assert!(matches!(&kinds[1], CompletionKind::AfterFailed(_)));
        assert!(matches!(
            &kinds[2],
            CompletionKind::Tool(ToolOutcome::Threw(_))
        ));
    }

    /// `JSON.stringify` writes a lone surrogate (half an emoji cut by `slice`) as an escape
    /// serde_json refuses: it becomes U+FFFD, and a tool's value so repaired is marked, so its
    /// result is never rebuilt from the value the driver holds.
    #[test]
    fn lone_surrogates_in_payloads_become_replacement_characters() {
        let kinds = completions(&[
            (4, r#"{"t":"\ud83d"}"#),
            (4, r#"{"t":"\ud83d\ude00"}"#),
            (9, r#"{"content":[{"type":"text","text":"\udc00"}]}"#),
            (6, r#""thrown \ud83d""#),
        ])
        .unwrap();
        assert_eq!(
            kinds,
            vec![
                CompletionKind::ToolRepaired(ToolOutcome::Returned(json!({"t": "\u{FFFD}"}))),
                CompletionKind::Tool(ToolOutcome::Returned(json!({"t": "😀"}))),
                CompletionKind::AfterAnswered(
                    json!({"content": [{"type": "text", "text": "\u{FFFD}"}]})
                ),
                CompletionKind::Tool(ToolOutcome::Threw("thrown \u{FFFD}".into())),
            ]
        );
    }

    /// A sanitized value comes as `[value, report]`: the value inside gets the whole limit.
    #[test]
    fn a_sanitized_value_gets_the_whole_depth_limit() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let report = serde_json::to_string(&SanitizeReport::default()).unwrap();
        let at_limit = format!("[{},{report}]", nested(MAX_VALUE_DEPTH));
        let kinds = completions(&[(13, &at_limit)]).unwrap();
        assert!(matches!(kinds[0], CompletionKind::ToolSanitized(..)));
        let over = format!("[{},{report}]", nested(MAX_VALUE_DEPTH + 1));
        let kinds = completions(&[(13, &over)]).unwrap();
        assert_eq!(kinds[0], CompletionKind::Tool(ToolOutcome::TooDeep));
    }

    #[test]
    fn options_with_nothing_set_are_the_defaults_the_full_parse_gives() {
        // `{}` is taken without parsing: it must be what parsing says nothing set means
        let spelled_out = r#"{"beforeToolCall":false,"afterToolCall":false,"onPersist":false,"onEvent":false,"aborted":false}"#;
        for text in [spelled_out, "{ }", "{\"context\":null,\"approval\":null}"] {
            assert_eq!(
                parse_batch_options(text).unwrap(),
                parse_batch_options("{}").unwrap(),
                "{text}"
            );
        }
    }

    #[test]
    fn batch_options_read_the_tools_a_dispatch_may_run() {
        let options = parse_batch_options(r#"{"tools":["read","write"]}"#).unwrap();
        let tools = options.tools.unwrap();
        assert!(tools.allows("read") && tools.allows("write") && !tools.allows("admin"));
        assert_eq!(
            parse_batch_options(r#"{"tools":null}"#).unwrap().tools,
            None
        );
        assert_eq!(parse_batch_options("{}").unwrap().tools, None);
        for (text, message) in [
            (
                r#"{"tools":"read"}"#,
                "dispatch: options: tools: expected an array, got string \"read\"",
            ),
            (
                r#"{"tools":[1]}"#,
                "dispatch: options: tools[0]: expected a string, got integer `1`",
            ),
        ] {
            let error = parse_batch_options(text).unwrap_err();
            assert_eq!(error.fault, crate::error::Fault::Caller, "{text}");
            assert_eq!(error.message, message);
        }
    }

    #[test]
    fn batch_options_check_the_timeout() {
        let options =
            parse_batch_options(r#"{"timeoutMs":5,"onEvent":true,"beforeToolCall":true}"#).unwrap();
        assert_eq!(options.timeout_ms, Some(5));
        assert!(options.events && options.hooks.before && !options.hooks.after);
        let options = parse_batch_options(r#"{"runId":"run \ud83d"}"#).unwrap();
        assert_eq!(options.run_id.as_deref(), Some("run \u{FFFD}"));
        // options the caller nested too deep or typed wrong are the caller's error, not the
        // engine's (which would stop the runtime)
        let deep = format!(r#"{{"approval":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        for text in [deep.as_str(), r#"{"runId":5}"#] {
            let error = parse_batch_options(text).unwrap_err();
            assert_eq!(error.fault, crate::error::Fault::Caller, "{text}");
        }
        let error = parse_batch_options(r#"{"timeoutMs":-1}"#).unwrap_err();
        assert!(error.message.contains("-1"));
    }
}
