//! `repair_history`: makes a history a provider accepts out of one with bad, duplicate or
//! unpaired tool-call ids, in the wire's own message format.
//!
//! The wire's adapter finds the calls and results ([`Entry`](super::history::Entry)s), the
//! pairing decides every id and which results are missing or orphaned, and the adapter writes the
//! decisions back, placing synthetic results where that wire expects them.

use serde::Serialize;
use serde_json::Value;

use super::history::{Entry, Plan};
use super::normalize::IdTarget;
use super::{anthropic, chat, gemini, pairing, responses};
use crate::error::Result;

/// One call id the repair rewrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IdRename {
    /// The id the call had.
    pub from: String,
    /// The id it has now (its results were rewritten to match).
    pub to: String,
}

/// What [`repair_history`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairReport {
    /// Calls whose id was rewritten, once per call, in history order.
    pub renamed: Vec<IdRename>,
    /// Ids (after renaming) of the calls given a synthetic `No result provided` result; for a
    /// Gemini call without an id, its function name.
    pub synthesized: Vec<String>,
    /// Raw ids of the results removed for answering no earlier call; for a Gemini response
    /// without an id, its function name.
    pub removed: Vec<String>,
}

impl RepairReport {
    /// Whether the repair changed nothing.
    pub fn is_empty(&self) -> bool {
        self.renamed.is_empty() && self.synthesized.is_empty() && self.removed.is_empty()
    }
}

/// A wire's message format as the repair reads and writes it: how its calls and results are
/// found, and how the decisions are written back (where a synthetic result goes, what it looks
/// like). Which format a wire's history is in is said by its provider
/// ([`crate::provider::Provider::history_format`]).
#[derive(Clone, Copy)]
pub struct HistoryFormat {
    /// The calls and results of a history, in order.
    scan: fn(&[Value]) -> Result<Vec<Entry>>,
    /// The history with the plan's renames, removals and synthetic results applied.
    apply: fn(Vec<Value>, &[Entry], &Plan) -> Vec<Value>,
}

impl HistoryFormat {
    /// OpenAI Chat Completions: `tool_calls` of assistant messages, `role:"tool"` results.
    pub const CHAT_COMPLETIONS: HistoryFormat = HistoryFormat {
        scan: chat::scan,
        apply: |messages, entries, plan| chat::apply(messages, entries, plan, false),
    };
    /// Mistral: Chat Completions, with a synthetic result naming its tool (`name`).
    pub const MISTRAL: HistoryFormat = HistoryFormat {
        scan: chat::scan,
        apply: |messages, entries, plan| chat::apply(messages, entries, plan, true),
    };
    /// OpenAI Responses: `function_call` and `function_call_output` items.
    pub const RESPONSES: HistoryFormat = HistoryFormat {
        scan: responses::scan,
        apply: responses::apply,
    };
    /// Anthropic Messages: `tool_use` and `tool_result` content blocks.
    pub const ANTHROPIC: HistoryFormat = HistoryFormat {
        scan: anthropic::scan,
        apply: anthropic::apply,
    };
    /// Gemini: `functionCall` and `functionResponse` parts.
    pub const GEMINI: HistoryFormat = HistoryFormat {
        scan: gemini::scan,
        apply: gemini::apply,
    };
}

/// Repairs a history in `format` (the `messages`, `input` or `contents` array a caller sends to
/// the provider): call ids become valid for `ids` and unique (results follow their calls' new
/// ids), a call without a result gets a synthetic error result, and a result answering no
/// earlier call is removed. Messages it does not understand pass through unchanged. Pure;
/// applying it to its own output changes nothing and reports nothing.
///
/// A message that is not an object, or a wrong-typed field where a call or result must be, is a
/// caller `VALIDATION_ERROR` naming the message index and the field.
pub fn repair_history(
    messages: Vec<Value>,
    format: HistoryFormat,
    ids: IdTarget,
) -> Result<(Vec<Value>, RepairReport)> {
    let entries = (format.scan)(&messages)?;
    let (plan, report) = pairing::plan(&entries, ids)?;
    Ok(((format.apply)(messages, &entries, &plan), report))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;
    use serde_json::json;

    use super::super::history::Role;
    use super::super::normalize::is_valid_tool_call_id;
    use super::*;
    use crate::provider::{Provider, Wire};

    /// The repair of `wire`'s history, as its provider wires it.
    fn repair(messages: Vec<Value>, wire: Wire) -> Result<(Vec<Value>, RepairReport)> {
        Provider::of(wire).repair_history(messages)
    }

    const WIRES: [Wire; 5] = Wire::ALL;

    /// Raw ids the generated histories draw from: valid, invalid, empty, and (Gemini) none.
    const POOL: [Option<&str>; 7] = [
        Some("a"),
        Some("a.b"),
        Some("0"),
        Some("call_1"),
        Some("abcDEF123"),
        Some(""),
        None,
    ];

    /// One step of a generated history: 0 a message of calls, 1 results, 2 plain text.
    fn message(wire: Wire, kind: u8, ids: &[usize]) -> Vec<Value> {
        let pick = |i: &usize| POOL[*i % POOL.len()];
        let id = |i: &usize| pick(i).unwrap_or("none");
        let name = |i: &usize| if i.is_multiple_of(2) { "f" } else { "g" };
        match (wire, kind) {
            (_, 2) => vec![json!({"role": "user", "content": "text"})],
            (Wire::OpenAiChat | Wire::Mistral, 0) => {
                vec![json!({"role": "assistant", "tool_calls":
                ids.iter().map(|i| json!({"id": id(i), "type": "function",
                    "function": {"name": name(i), "arguments": "{}"}})).collect::<Vec<_>>()})]
            }
            (Wire::OpenAiChat | Wire::Mistral, _) => ids
                .iter()
                .map(|i| json!({"role": "tool", "tool_call_id": id(i), "content": "r"}))
                .collect(),
            (Wire::OpenAiResponses, 0) => ids
                .iter()
                .map(|i| {
                    json!({"type": "function_call", "id": format!("fc_{}", id(i)),
                    "call_id": id(i), "name": name(i), "arguments": "{}"})
                })
                .collect(),
            (Wire::OpenAiResponses, _) => ids
                .iter()
                .map(|i| json!({"type": "function_call_output", "call_id": id(i), "output": "r"}))
                .collect(),
            (Wire::Anthropic, 0) => vec![json!({"role": "assistant", "content":
                ids.iter().map(|i| json!({"type": "tool_use", "id": id(i), "name": name(i),
                    "input": {}})).collect::<Vec<_>>()})],
            (Wire::Anthropic, _) => vec![json!({"role": "user", "content":
                ids.iter().map(|i| json!({"type": "tool_result", "tool_use_id": id(i),
                    "content": "r"})).collect::<Vec<_>>()})],
            (Wire::Gemini, 0) => vec![json!({"role": "model", "parts":
                ids.iter().map(|i| match pick(i) {
                    Some(id) => json!({"functionCall": {"name": name(i), "id": id, "args": {}}}),
                    None => json!({"functionCall": {"name": name(i), "args": {}}}),
                }).collect::<Vec<_>>()})],
            (Wire::Gemini, _) => vec![json!({"role": "user", "parts":
                ids.iter().map(|i| match pick(i) {
                    Some(id) => json!({"functionResponse": {"name": name(i), "id": id,
                        "response": {}}}),
                    None => json!({"functionResponse": {"name": name(i), "response": {}}}),
                }).collect::<Vec<_>>()})],
        }
    }

    proptest! {
        /// Any history of calls, results and text: the repair succeeds, leaves call ids valid and
        /// unique, and a second repair changes nothing.
        #[test]
        fn repaired_histories_are_valid_and_stable(
            steps in prop::collection::vec((0u8..3, prop::collection::vec(0usize..14, 0..4)), 0..12),
            w in 0usize..5,
        ) {
            let wire = WIRES[w];
            let history: Vec<Value> =
                steps.iter().flat_map(|(kind, ids)| message(wire, *kind, ids)).collect();
            let (out, _) = repair(history, wire).unwrap();
            let mut seen = HashSet::new();
            for entry in (Provider::of(wire).history_format.scan)(&out).unwrap() {
                if let (Role::Call, Some(id)) = (entry.role, entry.id) {
                    prop_assert!(is_valid_tool_call_id(&id, Provider::of(wire).ids), "{id:?}");
                    prop_assert!(seen.insert(id.clone()), "duplicate {id:?}");
                }
            }
            let (again, report) = repair(out.clone(), wire).unwrap();
            prop_assert_eq!(again, out);
            prop_assert!(report.is_empty(), "{:?}", report);
        }
    }

    #[test]
    fn report_serializes_in_camel_case() {
        let report = RepairReport {
            renamed: vec![IdRename {
                from: "a.b".into(),
                to: "ab".into(),
            }],
            synthesized: vec!["c".into()],
            removed: vec!["d".into()],
        };
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            json!({"renamed": [{"from": "a.b", "to": "ab"}], "synthesized": ["c"], "removed": ["d"]})
        );
        assert!(!report.is_empty());
        assert!(RepairReport::default().is_empty());
    }

    #[test]
    fn non_object_messages_are_rejected_on_every_wire() {
        for wire in [
            Wire::OpenAiChat,
            Wire::OpenAiResponses,
            Wire::Anthropic,
            Wire::Gemini,
            Wire::Mistral,
        ] {
            let err = repair(vec![json!({"role": "user"}), json!(42)], wire).unwrap_err();
            assert_eq!(
                err.code,
                crate::error::ErrorCode::ValidationError,
                "{wire:?}"
            );
            assert_eq!(err.message, "messages[1] must be an object, got a number");
        }
    }

    #[test]
    fn an_empty_history_is_fine() {
        let (messages, report) = repair(Vec::new(), Wire::Anthropic).unwrap();
        assert!(messages.is_empty());
        assert!(report.is_empty());
    }
}
