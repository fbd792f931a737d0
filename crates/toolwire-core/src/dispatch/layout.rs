//! The layout of every [`Action`](super::protocol::Action) as it crosses (see [`crate::layout`]):
//! `crate::contract` generates the driver's tuple types from it (`ts/protocol.generated.ts`), and
//! in this crate's tests every action serialized is checked against it (and one of every
//! variant, below).

use super::protocol::ActionCode;
use crate::layout::{el, opt, Element, Holds, Layout};

const BATCH: Element = el("batch", "number", Holds::Number);
const SLOT: Element = el("slot", "number", Holds::Number);
const TOKEN: Element = el("token", "number", Holds::Number);

/// The layout of every action, in the order of their codes.
pub const ACTION_LAYOUTS: &[Layout] = &[
    Layout {
        code: ActionCode::StartEvent as u8,
        name: "StartEvent",
        doc: "Emit `tool_execution_start`. `args` is left out when they are the call's own; `id` and `name` are the ones events show when the engine scrubbed them (else null when `repeats` follows); `repeats`: the slot of the earlier call of the batch with this id.",
        elements: &[
            BATCH,
            SLOT,
            opt("args", "unknown", Holds::Any),
            opt("id", "string | null", Holds::TextOrNull),
            opt("name", "string | null", Holds::TextOrNull),
            opt("repeats", "number", Holds::Number),
        ],
    },
    Layout {
        code: ActionCode::BeforeHook as u8,
        name: "BeforeHook",
        doc: "Run `beforeToolCall` with the validated arguments and the call's envelope.",
        elements: &[
            BATCH,
            SLOT,
            TOKEN,
            el("args", "unknown", Holds::Any),
            el("call", "ToolCall", Holds::Object),
        ],
    },
    Layout {
        code: ActionCode::ConcurrencyKey as u8,
        name: "ConcurrencyKey",
        doc: "Compute the tool's `concurrencyKey(args)`, synchronously.",
        elements: &[BATCH, SLOT, TOKEN, el("args", "unknown", Holds::Any)],
    },
    Layout {
        code: ActionCode::RunTool as u8,
        name: "RunTool",
        doc: "Run the tool registered as `tool`; `args` is left out when they are the call's own. Calls of one batch started in one answer with the same `timeoutMs` (their running deadline, from now) end by the same deadline: they share one AbortSignal.",
        elements: &[
            BATCH,
            SLOT,
            TOKEN,
            el("tool", "number", Holds::Number),
            el("timeoutMs", "number", Holds::Number),
            opt("args", "unknown", Holds::Any),
        ],
    },
    Layout {
        code: ActionCode::Abort as u8,
        name: "Abort",
        doc: "Abort the running tool's signal; its late outcome is ignored.",
        elements: &[
            BATCH,
            SLOT,
            el(
                "reason",
                "'timeout' | 'cancelled'",
                Holds::OneOf(&["timeout", "cancelled"]),
            ),
        ],
    },
    Layout {
        code: ActionCode::AfterHook as u8,
        name: "AfterHook",
        doc: "Run `afterToolCall` with the result so far.",
        elements: &[BATCH, SLOT, TOKEN, el("result", "ToolResult", Holds::Object)],
    },
    Layout {
        code: ActionCode::PersistHook as u8,
        name: "PersistHook",
        doc: "Run `onPersist` with the result so far.",
        elements: &[BATCH, SLOT, TOKEN, el("result", "ToolResult", Holds::Object)],
    },
    Layout {
        code: ActionCode::End as u8,
        name: "End",
        doc: "The call ended with `result`: emit `tool_execution_end` and keep it. `view`: what events show instead, where it differs (null when `repeats` follows without one); `repeats`: as for the start event.",
        elements: &[
            BATCH,
            SLOT,
            el("result", "ToolResult", Holds::Object),
            opt("view", "ResultView | null", Holds::ObjectOrNull),
            opt("repeats", "number", Holds::Number),
        ],
    },
    Layout {
        code: ActionCode::BatchDone as u8,
        name: "BatchDone",
        doc: "Every call of the batch has ended.",
        elements: &[BATCH],
    },
    Layout {
        code: ActionCode::Timer as u8,
        name: "Timer",
        doc: "Arm the one timer to call `tick` after `delayMs` milliseconds; -1 disarms it.",
        elements: &[el("delayMs", "number", Holds::Number)],
    },
    Layout {
        code: ActionCode::EndAsReturned as u8,
        name: "EndAsReturned",
        doc: "The call ended successfully with the tool's value as returned, in `shape`: the driver builds the result from the value it holds. `text`: the value's JSON text for the JSON shape (else null when a view follows).",
        elements: &[
            BATCH,
            SLOT,
            el("startedAt", "number", Holds::Number),
            el("endedAt", "number", Holds::Number),
            el("durationMs", "number", Holds::Number),
            el(
                "shape",
                "(typeof OutputShape)[keyof typeof OutputShape]",
                Holds::Number,
            ),
            opt("text", "string | null", Holds::TextOrNull),
            opt("view", "ResultView", Holds::Object),
        ],
    },
    Layout {
        code: ActionCode::RedactionFailed as u8,
        name: "RedactionFailed",
        doc: "Details were withheld from events (strict redaction, no allowlist): emit `redaction_failed`.",
        elements: &[BATCH, SLOT],
    },
    Layout {
        code: ActionCode::Trim as u8,
        name: "Trim",
        doc: "The batch's text is over `maxBatchChars`: these text blocks of the call's result are cut further.",
        elements: &[
            BATCH,
            SLOT,
            el("blocks", "[index: number, text: string][]", Holds::Array),
            el("truncations", "SanitizeReport['truncated']", Holds::Array),
        ],
    },
    Layout {
        code: ActionCode::LoopWarning as u8,
        name: "LoopWarning",
        doc: "The run made this call (same tool, same arguments) `count` times: emit `loop_warning`.",
        elements: &[BATCH, SLOT, el("count", "number", Holds::Number)],
    },
    Layout {
        code: ActionCode::Approval as u8,
        name: "Approval",
        doc: "Ask the runtime's `onApproval(request)`.",
        elements: &[
            BATCH,
            SLOT,
            TOKEN,
            el("request", "ApprovalRequest", Holds::Object),
        ],
    },
    Layout {
        code: ActionCode::Warning as u8,
        name: "Warning",
        doc: "Tell the developer something that does not change the call's result (`process.emitWarning`).",
        elements: &[BATCH, SLOT, el("message", "string", Holds::Text)],
    },
];

/// Why the serialized `action` does not fit its layout, if it does not.
pub fn misfit(action: &serde_json::Value) -> Option<String> {
    crate::layout::misfit(ACTION_LAYOUTS, action)
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{actions_to_json, AbortReason, Action, CallRef};
    use super::*;
    use crate::output::OutputShape;
    use crate::policy::approvals::{ApprovalRequest, Ask, Security};
    use crate::ToolResult;
    use serde_json::{json, Value};

    #[test]
    fn every_action_code_has_one_layout_in_code_order() {
        crate::layout::check_codes::<ActionCode>(ACTION_LAYOUTS);
    }

    /// One action of every variant (with its optional values given and absent), serialized as
    /// the dispatcher hands them over (`actions_to_json`), fits its layout; together they cover
    /// every code.
    #[test]
    fn an_action_of_every_variant_fits_its_layout() {
        let call = CallRef { batch: 1, slot: 2 };
        let result = || Box::new(ToolResult::ok("c1".into(), "t".into(), json!({ "q": 1 })));
        let envelope = serde_json::from_value(json!({
            "callId": "c1", "tool": "t", "attempt": 1, "args": { "q": 1 }, "argsHash": "00",
            "timeoutMs": 1000, "cancellable": true, "createdAt": 0,
        }))
        .unwrap();
        let truncation = serde_json::from_value(json!({
            "block": 0, "unit": "characters", "cut": 10, "budget": 5, "scope": "batch",
        }))
        .unwrap();
        let actions = [
            Action::StartEvent {
                call,
                args: None,
                ids: None,
                repeats: None,
            },
            Action::StartEvent {
                call,
                args: None,
                ids: None,
                repeats: Some(0),
            },
            Action::StartEvent {
                call,
                args: Some(json!({ "q": "[redacted:token]" })),
                ids: Some(Box::new(("c1".into(), "t".into()))),
                repeats: None,
            },
            Action::BeforeHook {
                call,
                token: 3,
                args: json!({ "q": 1 }),
                envelope: Box::new(envelope),
            },
            Action::ConcurrencyKey {
                call,
                token: 4,
                args: json!({ "q": 1 }),
            },
            Action::Start {
                call,
                token: 5,
                tool_id: 7,
                timeout_ms: 30_000,
                args: None,
            },
            Action::Start {
                call,
                token: 5,
                tool_id: 7,
                timeout_ms: 30_000,
                args: Some(json!({ "q": 2 })),
            },
            Action::Abort {
                call,
                reason: AbortReason::Timeout,
            },
            Action::AfterHook {
                call,
                token: 6,
                result: result(),
            },
            Action::Persist {
                call,
                token: 7,
                result: result(),
            },
            Action::End {
                call,
                result: result(),
                view: None,
                repeats: None,
            },
            Action::End {
                call,
                result: result(),
                view: None,
                repeats: Some(0),
            },
            Action::End {
                call,
                result: result(),
                view: Some(json!({ "detailsWithheld": true })),
                repeats: None,
            },
            Action::BatchDone { batch: 1 },
            Action::Timer { delay_ms: Some(50) },
            Action::Timer { delay_ms: None },
            Action::EndAsReturned {
                call,
                started_at: 1,
                ended_at: 2,
                duration_ms: 1.0,
                shape: OutputShape::Text,
                text: None,
                view: None,
            },
            Action::EndAsReturned {
                call,
                started_at: 1,
                ended_at: 2,
                duration_ms: 1.0,
                shape: OutputShape::Json,
                text: Some("{}".into()),
                view: Some(json!({ "args": {} })),
            },
            Action::RedactionFailed { call },
            Action::Trim {
                call,
                blocks: vec![(0, "cut".into())],
                truncations: vec![truncation],
            },
            Action::LoopWarning { call, count: 3 },
            Action::Approval {
                call,
                token: 8,
                request: Box::new(ApprovalRequest {
                    approval_id: "a1".into(),
                    tool_call_id: "c1".into(),
                    tool_name: "t".into(),
                    args: json!({ "q": 1 }),
                    command: None,
                    analysis: None,
                    reason: "ask".into(),
                    security: Security::Allowlist,
                    ask: Ask::Always,
                }),
            },
            Action::Warning {
                call,
                message: "the grant was not saved".into(),
            },
        ];
        let crossing: Value = serde_json::from_str(&actions_to_json(&actions)).unwrap();
        let messages = crossing.as_array().unwrap();
        crate::layout::check_every_code(ACTION_LAYOUTS, messages);
        assert_eq!(messages[1], json!([0, 1, 2, null, null, null, 0]));
        assert_eq!(messages[15], json!([9, -1]));
    }
}
