//! The layout of every [`Action`](super::protocol::Action) as it crosses: the elements after its
//! code, each with its name, its TypeScript type and the JSON it holds. Declared once here:
//! `crate::contract` generates the driver's tuple types from it (`ts/protocol.generated.ts`), and
//! in this crate's tests every action serialized is checked against it, so the two cannot drift.

use super::protocol::ActionCode;

/// The JSON an element holds, as the check reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A number.
    Number,
    /// A string.
    Text,
    /// A string or `null`.
    TextOrNull,
    /// Any JSON value.
    Any,
    /// An object.
    Object,
    /// An object or `null`.
    ObjectOrNull,
    /// An array.
    Array,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

impl Holds {
    /// Whether `value` is JSON this element may hold.
    pub fn admits(self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match self {
            Holds::Number => value.is_number(),
            Holds::Text => value.is_string(),
            Holds::TextOrNull => value.is_string() || value.is_null(),
            Holds::Any => true,
            Holds::Object => value.is_object(),
            Holds::ObjectOrNull => value.is_object() || value.is_null(),
            Holds::Array => value.is_array(),
            Holds::OneOf(texts) => matches!(value, Value::String(s) if texts.contains(&s.as_str())),
        }
    }
}

/// One element of an action after its code.
#[derive(Clone, Copy, Debug)]
pub struct Element {
    /// Its name (the tuple member's label in TypeScript).
    pub name: &'static str,
    /// Its TypeScript type, in `ts/protocol.generated.ts`'s scope.
    pub ts: &'static str,
    /// The JSON it holds.
    pub holds: Holds,
    /// Whether it may be left out; then so is every element after it.
    pub optional: bool,
}

const fn el(name: &'static str, ts: &'static str, holds: Holds) -> Element {
    Element {
        name,
        ts,
        holds,
        optional: false,
    }
}

const fn opt(name: &'static str, ts: &'static str, holds: Holds) -> Element {
    Element {
        name,
        ts,
        holds,
        optional: true,
    }
}

const BATCH: Element = el("batch", "number", Holds::Number);
const SLOT: Element = el("slot", "number", Holds::Number);
const TOKEN: Element = el("token", "number", Holds::Number);

/// An action's layout: what it asks of the driver, and its elements after the code.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The action's code.
    pub code: ActionCode,
    /// What it asks (the generated type's doc comment).
    pub doc: &'static str,
    /// Its elements after the code, in order.
    pub elements: &'static [Element],
}

/// The layout of every action, in the order of their codes.
pub const ACTION_LAYOUTS: &[Layout] = &[
    Layout {
        code: ActionCode::StartEvent,
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
        code: ActionCode::BeforeHook,
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
        code: ActionCode::ConcurrencyKey,
        doc: "Compute the tool's `concurrencyKey(args)`, synchronously.",
        elements: &[BATCH, SLOT, TOKEN, el("args", "unknown", Holds::Any)],
    },
    Layout {
        code: ActionCode::RunTool,
        doc: "Run the tool registered as `tool`; `args` is left out when they are the call's own.",
        elements: &[
            BATCH,
            SLOT,
            TOKEN,
            el("tool", "number", Holds::Number),
            opt("args", "unknown", Holds::Any),
        ],
    },
    Layout {
        code: ActionCode::Abort,
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
        code: ActionCode::AfterHook,
        doc: "Run `afterToolCall` with the result so far.",
        elements: &[BATCH, SLOT, TOKEN, el("result", "ToolResult", Holds::Object)],
    },
    Layout {
        code: ActionCode::PersistHook,
        doc: "Run `onPersist` with the result so far.",
        elements: &[BATCH, SLOT, TOKEN, el("result", "ToolResult", Holds::Object)],
    },
    Layout {
        code: ActionCode::End,
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
        code: ActionCode::BatchDone,
        doc: "Every call of the batch has ended.",
        elements: &[BATCH],
    },
    Layout {
        code: ActionCode::Timer,
        doc: "Arm the one timer to call `tick` after `delayMs` milliseconds; -1 disarms it.",
        elements: &[el("delayMs", "number", Holds::Number)],
    },
    Layout {
        code: ActionCode::EndAsReturned,
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
        code: ActionCode::RedactionFailed,
        doc: "Details were withheld from events (strict redaction, no allowlist): emit `redaction_failed`.",
        elements: &[BATCH, SLOT],
    },
    Layout {
        code: ActionCode::Trim,
        doc: "The batch's text is over `maxBatchChars`: these text blocks of the call's result are cut further.",
        elements: &[
            BATCH,
            SLOT,
            el("blocks", "[index: number, text: string][]", Holds::Array),
            el("truncations", "SanitizeReport['truncated']", Holds::Array),
        ],
    },
    Layout {
        code: ActionCode::LoopWarning,
        doc: "The run made this call (same tool, same arguments) `count` times: emit `loop_warning`.",
        elements: &[BATCH, SLOT, el("count", "number", Holds::Number)],
    },
    Layout {
        code: ActionCode::Approval,
        doc: "Ask the runtime's `onApproval(request)`.",
        elements: &[
            BATCH,
            SLOT,
            TOKEN,
            el("request", "ApprovalRequest", Holds::Object),
        ],
    },
    Layout {
        code: ActionCode::Warning,
        doc: "Tell the developer something that does not change the call's result (`process.emitWarning`).",
        elements: &[BATCH, SLOT, el("message", "string", Holds::Text)],
    },
];

/// The layout of the action with code `code`.
pub fn layout_of(code: u8) -> Option<&'static Layout> {
    ACTION_LAYOUTS
        .iter()
        .find(|layout| layout.code as u8 == code)
}

/// Why the serialized `action` does not fit its layout, if it does not: its code is unknown, it
/// has too few or too many elements, or an element holds other JSON than declared.
pub fn misfit(action: &serde_json::Value) -> Option<String> {
    let items = action.as_array()?;
    let Some(code) = items.first().and_then(|c| c.as_u64()) else {
        return Some(format!("no code: {action}"));
    };
    let Some(layout) = u8::try_from(code).ok().and_then(layout_of) else {
        return Some(format!("no layout for code {code}"));
    };
    let required = layout.elements.iter().filter(|e| !e.optional).count();
    let given = items.len() - 1;
    if given < required || given > layout.elements.len() {
        return Some(format!(
            "{:?}: {given} elements, its layout has {required} to {}: {action}",
            layout.code,
            layout.elements.len()
        ));
    }
    for (element, value) in layout.elements.iter().zip(&items[1..]) {
        if !element.holds.admits(value) {
            return Some(format!(
                "{:?}: `{}` holds {value}, not {:?}",
                layout.code, element.name, element.holds
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Codes;
    use serde_json::json;

    #[test]
    fn every_action_code_has_one_layout_in_code_order() {
        let codes: Vec<u8> = ACTION_LAYOUTS.iter().map(|l| l.code as u8).collect();
        let all: Vec<u8> = ActionCode::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(codes, all);
        for layout in ACTION_LAYOUTS {
            // optional elements only at the end
            let first_optional = layout.elements.iter().position(|e| e.optional);
            if let Some(first) = first_optional {
                assert!(
                    layout.elements[first..].iter().all(|e| e.optional),
                    "{:?}",
                    layout.code
                );
            }
        }
    }

    #[test]
    fn misfits_are_named() {
        assert_eq!(misfit(&json!([8, 2])), None);
        assert!(misfit(&json!([8])).unwrap().contains("0 elements"));
        assert!(misfit(&json!([4, 1, 2, "later"]))
            .unwrap()
            .contains("`reason`"));
        assert!(misfit(&json!([99, 1])).unwrap().contains("no layout"));
        assert!(misfit(&json!([0, 1, 2, null, null, null, 3, 4])).is_some());
    }
}
