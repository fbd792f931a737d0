//! The layout of every [`PlanAction`](super::PlanAction) as it crosses (see [`crate::layout`]):
//! `crate::contract` generates the plan driver's tuple types from it, and in this crate's tests
//! every action the scheduler returns is serialized and checked against it (and one of every
//! variant, below).

use super::PlanActionCode;
use crate::layout::{el, Element, Holds, Layout};

const STEP_ID: Element = el("stepId", "string", Holds::Text);
const LOOP_ID: Element = el("loopId", "string | null", Holds::TextOrNull);
const INDEX: Element = el("index", "number | null", Holds::NumberOrNull);
const CONFIRMATION_REQUIRED: Element = el("confirmationRequired", "boolean", Holds::Bool);

/// The layout of every plan action, in the order of their codes.
pub const PLAN_ACTION_LAYOUTS: &[Layout] = &[
    Layout {
        code: PlanActionCode::Dispatch as u8,
        name: "Dispatch",
        doc: "Run one call through the dispatcher; feed its result to `completed` with the same `callId` (`<runId>:<stepId>[:<index>]`, the same for all its attempts). `args` has its references resolved; `attempt` counts from 1; `loopId` and `index` mark a `foreach` step's iteration.",
        elements: &[
            STEP_ID,
            el("callId", "string", Holds::Text),
            el("tool", "string", Holds::Text),
            el("args", "unknown", Holds::Any),
            el("attempt", "number", Holds::Number),
            LOOP_ID,
            INDEX,
            el("timeoutMs", "number | null", Holds::NumberOrNull),
            el("preview", "boolean", Holds::Bool),
            CONFIRMATION_REQUIRED,
        ],
    },
    Layout {
        code: PlanActionCode::Wait as u8,
        name: "Wait",
        doc: "Sleep `delayMs` before a retry, then call `retryDue` with the step and index; `attempt` is the one that will run.",
        elements: &[
            STEP_ID,
            INDEX,
            el("attempt", "number", Holds::Number),
            el("delayMs", "number", Holds::Number),
        ],
    },
    Layout {
        code: PlanActionCode::StepEvent as u8,
        name: "StepEvent",
        doc: "Something happened to a step: emit it as `step.<kind>`.",
        elements: &[
            el(
                "kind",
                "'scheduled' | 'started' | 'finished' | 'failed' | 'skipped' | 'cancelled'",
                Holds::OneOf(&["scheduled", "started", "finished", "failed", "skipped", "cancelled"]),
            ),
            STEP_ID,
            el("tool", "string", Holds::Text),
            LOOP_ID,
            CONFIRMATION_REQUIRED,
            el("problem", "{ code: PlanStepErrorCode; message: string } | null", Holds::ObjectOrNull),
        ],
    },
    Layout {
        code: PlanActionCode::Finished as u8,
        name: "Finished",
        doc: "The plan is over: each step's status, its results as indexes into the results fed back, and its problem.",
        elements: &[
            el("runId", "string", Holds::Text),
            el("status", "'ok' | 'failed' | 'cancelled'", Holds::OneOf(&["ok", "failed", "cancelled"])),
            el(
                "steps",
                "Record<string, { status: 'ok' | 'failed' | 'skipped' | 'cancelled'; results: number[]; error?: { code: PlanStepErrorCode; message: string } }>",
                Holds::Object,
            ),
        ],
    },
    Layout {
        code: PlanActionCode::Fault as u8,
        name: "Fault",
        doc: "The binding could not serialize an action: fail the plan with `message`.",
        elements: &[el("message", "string", Holds::Text)],
    },
];

/// Why the serialized `action` does not fit its layout, if it does not.
pub fn misfit(action: &serde_json::Value) -> Option<String> {
    crate::layout::misfit(PLAN_ACTION_LAYOUTS, action)
}

#[cfg(test)]
mod tests {
    use super::super::actions::fault;
    use super::super::{
        actions_json, PlanAction, PlanOutcomeSummary, PlanStatus, StepEventKind, StepOutcome,
        StepProblem, StepStatus,
    };
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn every_plan_action_code_has_one_layout_in_code_order() {
        crate::layout::check_codes::<PlanActionCode>(PLAN_ACTION_LAYOUTS);
    }

    /// One action of every variant (the optional values both given and absent), serialized as
    /// the binding hands them over (`actions_json`), and the binding's fault, fit their layouts;
    /// together they cover every code.
    #[test]
    fn an_action_of_every_variant_fits_its_layout() {
        let problem = StepProblem {
            code: "REFERENCE_ERROR".into(),
            message: "step b: no step a".into(),
        };
        let actions = [
            PlanAction::Dispatch {
                step_id: "a".into(),
                call_id: "r:a:0".into(),
                tool: "t".into(),
                args: json!({ "q": 1 }),
                attempt: 1,
                loop_id: Some("r:a".into()),
                index: Some(0),
                timeout_ms: Some(1000),
                preview: false,
                confirmation_required: true,
            },
            PlanAction::Dispatch {
                step_id: "b".into(),
                call_id: "r:b".into(),
                tool: "t".into(),
                args: Value::Null,
                attempt: 2,
                loop_id: None,
                index: None,
                timeout_ms: None,
                preview: true,
                confirmation_required: false,
            },
            PlanAction::Wait {
                step_id: "b".into(),
                index: None,
                attempt: 2,
                delay_ms: 250,
            },
            PlanAction::StepEvent {
                kind: StepEventKind::Skipped,
                step_id: "b".into(),
                tool: "t".into(),
                loop_id: None,
                confirmation_required: false,
                problem: Some(problem.clone()),
            },
            PlanAction::StepEvent {
                kind: StepEventKind::Started,
                step_id: "a".into(),
                tool: "t".into(),
                loop_id: Some("r:a".into()),
                confirmation_required: true,
                problem: None,
            },
            PlanAction::Finished(PlanOutcomeSummary {
                run_id: "r".into(),
                status: PlanStatus::Failed,
                steps: vec![
                    StepOutcome {
                        id: "a".into(),
                        status: StepStatus::Ok,
                        results: vec![0],
                        problem: None,
                    },
                    StepOutcome {
                        id: "b".into(),
                        status: StepStatus::Skipped,
                        results: Vec::new(),
                        problem: Some(problem),
                    },
                ],
                results: vec![json!({ "status": "ok" })],
            }),
        ];
        let crossing: Value = serde_json::from_str(&actions_json(&actions)).unwrap();
        let mut messages = crossing.as_array().unwrap().clone();
        messages.push(fault("unserializable plan action: why"));
        crate::layout::check_every_code(PLAN_ACTION_LAYOUTS, &messages);
        assert_eq!(messages[5][3]["b"]["error"]["code"], "REFERENCE_ERROR");
        assert_eq!(messages[6], json!([4, "unserializable plan action: why"]));
    }
}
