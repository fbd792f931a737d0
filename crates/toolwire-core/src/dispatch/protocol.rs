//! The conversation between the dispatcher and its driver (the JavaScript layer): calls and
//! options in, [`Action`]s out, [`Completion`]s back in. Everything crosses as one JSON text per
//! batch of messages, never one crossing per call.
//!
//! Actions are JSON arrays whose first element is the action's code:
//!
//! | code | action | elements after the code |
//! |---|---|---|
//! | 0 | start event | batch, slot, args? |
//! | 1 | run `beforeToolCall` | batch, slot, token, args, call (a [`ToolCall`]) |
//! | 2 | compute `concurrencyKey(args)` | batch, slot, token, args |
//! | 3 | run the tool | batch, slot, token, tool id, args? |
//! | 4 | abort the tool's signal | batch, slot, reason (`"timeout"` or `"cancelled"`) |
//! | 5 | run `afterToolCall` | batch, slot, token, result |
//! | 6 | run `onPersist` | batch, slot, token, result |
//! | 7 | the call ended | batch, slot, result |
//! | 8 | the batch ended | batch |
//! | 9 | arm the timer | delay in ms, or -1 to disarm |
//! | 10 | the call ended with its value as returned | batch, slot, startedAt, endedAt, durationMs, shape, JSON text (shape 2 only, else null when a view follows), view? |
//! | 11 | emit `redaction_failed` | batch, slot |
//! | 12 | cut the batch's text further (`maxBatchChars`) | batch, slot, `[[block, text], ...]`, truncations |
//! | 13 | emit `loop_warning` | batch, slot, count |
//! | 14 | ask `onApproval(request)` | batch, slot, token, request |
//! | 15 | warn (`process.emitWarning`) | batch, slot, message |
//!
//! `view?` (codes 7 and 10) is what events carry instead of the result where they differ: an
//! object with any of `content`, `details`, `detailsWithheld: true` and `args` (see
//! [`crate::sanitize::view::result_view`]).
//!
//! `args?` is left out when the arguments are exactly the call's own (its JSON text parsed, or the
//! object passed): the driver then uses those, parsing the text once. Code 10 is the common end
//! of a successful call: the result is the tool's value in the [`OutputShape`] given, with the
//! arguments the tool received, so the driver rebuilds it from what it holds instead of parsing
//! the whole envelope again.
//!
//! Completions are JSON arrays `[batch, slot, token, kind, payload]`, `kind` from
//! [`CompletionKind`]'s codes.

use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;

use crate::envelope::{ToolCall, ToolResult};
use crate::error::{Error, Result};
use crate::output::{OutputShape, ToolOutcome};
use crate::policy::approvals::{ApprovalDecision, ApprovalRequest, ApprovalSettings, Grant};
use crate::policy::tools::PolicyContext;
use crate::registry::positive_millis;
use crate::sanitize::report::{SanitizeReport, Truncation};
use crate::sanitize::RuleOptions;

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
        /// call's own.
        args: Option<Value>,
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
        let head = |seq: &mut S::SerializeSeq, code: u8, call: &CallRef| {
            seq.serialize_element(&code)?;
            seq.serialize_element(&call.batch)?;
            seq.serialize_element(&call.slot)
        };
        match self {
            Action::StartEvent { call, args } => {
                head(&mut seq, 0, call)?;
                if let Some(args) = args {
                    seq.serialize_element(args)?;
                }
            }
            Action::BeforeHook {
                call,
                token,
                args,
                envelope,
            } => {
                head(&mut seq, 1, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(args)?;
                seq.serialize_element(envelope)?;
            }
            Action::ConcurrencyKey { call, token, args } => {
                head(&mut seq, 2, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(args)?;
            }
            Action::Start {
                call,
                token,
                tool_id,
                args,
            } => {
                head(&mut seq, 3, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(tool_id)?;
                if let Some(args) = args {
                    seq.serialize_element(args)?;
                }
            }
            Action::Abort { call, reason } => {
                head(&mut seq, 4, call)?;
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
                head(&mut seq, 5, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(result)?;
            }
            Action::Persist {
                call,
                token,
                result,
            } => {
                head(&mut seq, 6, call)?;
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
                head(&mut seq, 10, call)?;
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
            Action::End { call, result, view } => {
                head(&mut seq, 7, call)?;
                seq.serialize_element(result)?;
                if let Some(view) = view {
                    seq.serialize_element(view)?;
                }
            }
            Action::RedactionFailed { call } => head(&mut seq, 11, call)?,
            Action::Trim {
                call,
                blocks,
                truncations,
            } => {
                head(&mut seq, 12, call)?;
                seq.serialize_element(blocks)?;
                seq.serialize_element(truncations)?;
            }
            Action::LoopWarning { call, count } => {
                head(&mut seq, 13, call)?;
                seq.serialize_element(count)?;
            }
            Action::Approval {
                call,
                token,
                request,
            } => {
                head(&mut seq, 14, call)?;
                seq.serialize_element(token)?;
                seq.serialize_element(request)?;
            }
            Action::Warning { call, message } => {
                head(&mut seq, 15, call)?;
                seq.serialize_element(message)?;
            }
            Action::BatchDone { batch } => {
                seq.serialize_element(&8)?;
                seq.serialize_element(batch)?;
            }
            Action::Timer { delay_ms } => {
                seq.serialize_element(&9)?;
                match delay_ms {
                    Some(ms) => seq.serialize_element(ms)?,
                    None => seq.serialize_element(&-1)?,
                }
            }
        }
        seq.end()
    }
}

/// The actions as one JSON text.
pub fn actions_to_json(actions: &[Action]) -> String {
    serde_json::to_string(actions).expect("actions always serialize")
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
}

/// Parses the calls of a batch. `meta` is `[[id, name, kind, stamp?], ...]` (see [`CallStamp`])
/// and `arguments` holds each
/// call's arguments text, so that the model's JSON text crosses unescaped: kind 0 for the model's
/// JSON text, 1 for the JSON text of an object the caller passed, 2 for an object that could not
/// be serialized (the text is then the reason), 3 for a call the decoder marked incomplete
/// (`complete: false`: its arguments were cut off; the text is ignored).
pub fn parse_calls(meta: &str, arguments: Vec<String>) -> Result<Vec<CallRequest>> {
    let rows: Vec<CallRow> = serde_json::from_str(meta)
        .map_err(|e| Error::internal(format!("malformed calls from the driver: {e}")))?;
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
            let arguments = match kind {
                0 => RawArguments::Text(text),
                1 => RawArguments::Object(text),
                2 => RawArguments::Unserializable(text),
                3 => RawArguments::Incomplete,
                kind => {
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
            })
        })
        .collect()
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
    /// Set only by [`super::Dispatcher::resume`], never parsed: the batch is one call that
    /// waited for `resolveApproval`, and this is the answer.
    pub resumed: Option<Box<Resumed>>,
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
    #[serde(flatten)]
    rules: RuleOptions,
}

/// Parses dispatch options; a bad `timeoutMs` is the caller's error, naming the value.
pub fn parse_batch_options(text: &str) -> Result<BatchOptions> {
    let raw: RawBatchOptions = serde_json::from_str(text)
        .map_err(|e| Error::internal(format!("malformed dispatch options from the driver: {e}")))?;
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
    /// Codes 4 to 8, and 16 (it threw an error marked `retryable = false`): the tool ended.
    Tool(ToolOutcome),
    /// Code 9: `afterToolCall` returned this.
    AfterAnswered(Value),
    /// Code 10: `afterToolCall` threw or rejected.
    AfterFailed(String),
    /// Code 11: `onPersist` returned this.
    PersistAnswered(Value),
    /// Code 12: `onPersist` threw or rejected.
    PersistFailed(String),
    /// Code 13: the tool returned this value, whose content the driver already had sanitized
    /// off the JavaScript thread (big text, bytes, images), with that report.
    ToolSanitized(Value, Box<SanitizeReport>),
    /// Code 14: `onApproval` answered this.
    ApprovalAnswered(Value),
    /// Code 15: `onApproval` threw or rejected.
    ApprovalFailed(String),
}

/// Parses the completions the driver collected, in the order they happened.
pub fn parse_completions(text: &str) -> Result<Vec<Completion>> {
    let rows: Vec<(u32, u32, u32, u8, Value)> = serde_json::from_str(text)
        .map_err(|e| Error::internal(format!("malformed completions from the driver: {e}")))?;
    rows.into_iter()
        .map(|(batch, slot, token, code, payload)| {
            let message = |payload: Value| match payload {
                Value::String(message) => message,
                other => other.to_string(),
            };
            let kind = match code {
                0 => CompletionKind::BeforeAnswered(payload),
                1 => CompletionKind::BeforeFailed(message(payload)),
                2 => CompletionKind::Key(match payload {
                    Value::Null => None,
                    Value::String(key) => Some(key),
                    other => Some(other.to_string()),
                }),
                3 => CompletionKind::KeyFailed(message(payload)),
                4 => CompletionKind::Tool(ToolOutcome::Returned(payload)),
                5 => CompletionKind::Tool(ToolOutcome::ReturnedNothing),
                6 => CompletionKind::Tool(ToolOutcome::Threw(message(payload))),
                7 => CompletionKind::Tool(ToolOutcome::Unserializable(message(payload))),
                8 => CompletionKind::Tool(ToolOutcome::Missing),
                9 => CompletionKind::AfterAnswered(payload),
                10 => CompletionKind::AfterFailed(message(payload)),
                11 => CompletionKind::PersistAnswered(payload),
                12 => CompletionKind::PersistFailed(message(payload)),
                13 => {
                    let (value, report): (Value, SanitizeReport) = serde_json::from_value(payload)
                        .map_err(|e| {
                            Error::internal(format!("malformed sanitized completion: {e}"))
                        })?;
                    CompletionKind::ToolSanitized(value, Box::new(report))
                }
                14 => CompletionKind::ApprovalAnswered(payload),
                15 => CompletionKind::ApprovalFailed(message(payload)),
                16 => CompletionKind::Tool(ToolOutcome::ThrewNotRetryable(message(payload))),
                other => {
                    return Err(Error::internal(format!(
                        "malformed completion from the driver: kind {other}"
                    )))
                }
            };
            Ok(Completion {
                call: CallRef { batch, slot },
                token,
                kind,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actions_encode_as_compact_arrays() {
        let call = CallRef { batch: 2, slot: 5 };
        let actions = [
            Action::StartEvent {
                call,
                args: Some(json!({"a": 1})),
            },
            Action::StartEvent { call, args: None },
            Action::Start {
                call,
                token: 3,
                tool_id: 7,
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
            r#"[[0,2,5,{"a":1}],[0,2,5],[3,2,5,3,7],[4,2,5,"timeout"],[8,2],[9,-1],[9,12]]"#
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
            result: Box::new(result),
            view: None,
        };
        assert!(actions_to_json(&[full]).starts_with(r#"[[7,1,0,{"callId":"c""#));
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
        assert!(parse_calls(r#"[["a","b",9]]"#, vec![String::new()]).is_err());
        assert!(parse_calls(r#"[["a","b",0]]"#, vec![]).is_err());
        assert!(parse_calls("nope", vec![]).is_err());
    }

    #[test]
    fn completions_parse_every_kind() {
        let text = r#"[[1,0,1,0,null],[1,0,1,2,"k"],[1,0,2,4,{"x":1}],[1,0,2,5,null],[1,0,2,6,"boom"],[1,0,2,8,null],[1,0,2,16,"final"],[1,0,3,12,"bad"]]"#;
        let kinds: Vec<CompletionKind> = parse_completions(text)
            .unwrap()
            .into_iter()
            .map(|c| c.kind)
            .collect();
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
            ]
        );
        assert!(parse_completions("[[1,0,1,99,null]]").is_err());
    }

    #[test]
    fn batch_options_check_the_timeout() {
        let options =
            parse_batch_options(r#"{"timeoutMs":5,"onEvent":true,"beforeToolCall":true}"#).unwrap();
        assert_eq!(options.timeout_ms, Some(5));
        assert!(options.events && options.hooks.before && !options.hooks.after);
        let error = parse_batch_options(r#"{"timeoutMs":-1}"#).unwrap_err();
        assert!(error.message.contains("-1"));
    }
}
