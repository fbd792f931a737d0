//! The layout of every [`PlanAction`](super::PlanAction) as it crosses (see [`crate::layout`]):
//! `crate::contract` generates the plan driver's tuple types from it, and in this crate's tests
//! every action the scheduler returns is serialized and checked against it.

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
    use super::*;
    use crate::boundary_enums::Codes;

    #[test]
    fn every_plan_action_code_has_one_layout_in_code_order() {
        let names: Vec<(u8, &str)> = PlanActionCode::ALL
            .iter()
            .map(|c| (c.code(), c.name()))
            .collect();
        crate::layout::check_table(PLAN_ACTION_LAYOUTS, &names);
    }
}
