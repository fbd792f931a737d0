//! The history adapter of OpenAI Responses `input` items: calls are `function_call` and
//! `custom_tool_call` items (their `call_id`), results are `function_call_output` and
//! `custom_tool_call_output` items, and a synthetic output goes after the run of call and output
//! items its call belongs to. `fc_` item ids (`id` of `function_call` items) are normalized too.

use serde_json::{json, Value};

use super::flat::{self, FlatLayout};
use super::history::{
    message_object, optional_str, required_str, set_field, Entry, Plan, Role, Synthetic, NO_RESULT,
};
use super::normalize::normalize_item_id;
use crate::envelope::marked_error_text;
use crate::error::Result;

const FUNCTION_CALL: &str = "function_call";
const CUSTOM_CALL: &str = "custom_tool_call";
const FUNCTION_OUTPUT: &str = "function_call_output";
const CUSTOM_OUTPUT: &str = "custom_tool_call_output";

fn item_type(item: &Value) -> Option<&str> {
    item.get("type").and_then(Value::as_str)
}

/// Finds the calls and outputs of a Responses input, in order.
pub(super) fn scan(items: &[Value]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let object = message_object(item, index)?;
        let role = match item_type(item) {
            Some(FUNCTION_CALL | CUSTOM_CALL) => Role::Call,
            Some(FUNCTION_OUTPUT | CUSTOM_OUTPUT) => Role::Result,
            _ => continue,
        };
        let id = required_str(object, "call_id", index, &String::new)?;
        let name = match role {
            Role::Call => {
                optional_str(object, "id", index, &String::new)?;
                optional_str(object, "name", index, &String::new)?.map(str::to_owned)
            }
            Role::Result => None,
        };
        entries.push(Entry {
            role,
            message: index,
            part: 0,
            id: Some(id.to_owned()),
            name,
        });
    }
    Ok(entries)
}

/// Applies `plan` to a Responses input, and normalizes the item ids of its function calls.
pub(super) fn apply(mut items: Vec<Value>, entries: &[Entry], plan: &Plan) -> Vec<Value> {
    for entry in entries.iter().filter(|e| e.role == Role::Call) {
        let Some(item) = items.get_mut(entry.message) else {
            continue;
        };
        if item_type(item) != Some(FUNCTION_CALL) {
            continue;
        }
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            continue;
        };
        let normalized = normalize_item_id(id);
        if normalized != id {
            set_field(Some(item), "id", normalized);
        }
    }
    let layout = FlatLayout {
        continues_batch: is_batch_item,
        set_id,
        synthetic,
    };
    flat::apply(items, entries, plan, &layout)
}

fn is_batch_item(item: &Value) -> bool {
    matches!(
        item_type(item),
        Some(FUNCTION_CALL | CUSTOM_CALL | FUNCTION_OUTPUT | CUSTOM_OUTPUT)
    )
}

fn set_id(item: &mut Value, _: &Entry, id: String) {
    set_field(Some(item), "call_id", id);
}

/// A `function_call_output`, or a `custom_tool_call_output` for a custom tool call.
fn synthetic(call: &Value, synthetic: &Synthetic) -> Value {
    let kind = if item_type(call) == Some(CUSTOM_CALL) {
        CUSTOM_OUTPUT
    } else {
        FUNCTION_OUTPUT
    };
    json!({"type": kind, "call_id": synthetic.id, "output": marked_error_text(NO_RESULT)})
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::normalize::{normalize_item_id, normalize_tool_call_id, IdTarget};
    use super::super::test_support::{check, check_errors, report, Case};
    use crate::provider::Wire;

    fn n(id: &str) -> String {
        normalize_tool_call_id(id, IdTarget::WordOrItem)
    }

    fn fc(item_id: &str, call_id: &str) -> Value {
        json!({"type": "function_call", "id": item_id, "call_id": call_id, "name": "f", "arguments": "{}", "status": "completed"})
    }

    fn out(call_id: &str, output: &str) -> Value {
        json!({"type": "function_call_output", "call_id": call_id, "output": output})
    }

    fn missing(call_id: &str) -> Value {
        out(call_id, "Error: No result provided")
    }

    #[test]
    fn responses_histories() {
        let user = json!({"role": "user", "content": "hi"});
        let reasoning =
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"});
        let answer = json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]});
        let cases = vec![
            Case {
                name: "valid ids, all answered: untouched",
                input: json!([
                    user,
                    reasoning,
                    fc("fc_1", "call_a"),
                    fc("fc_2", "call_b"),
                    out("call_a", "1"),
                    out("call_b", "2"),
                    answer
                ]),
                output: json!([
                    user,
                    reasoning,
                    fc("fc_1", "call_a"),
                    fc("fc_2", "call_b"),
                    out("call_a", "1"),
                    out("call_b", "2"),
                    answer
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "call ids normalized in call and output; fc_ item ids normalized",
                input: json!([
                    fc("fc_1.2", "call:1"),
                    out("call:1", "1"),
                    fc("item9", "call_2"),
                    out("call_2", "2")
                ]),
                output: json!([
                    fc(&normalize_item_id("fc_1.2"), &n("call:1")),
                    out(&n("call:1"), "1"),
                    fc(&normalize_item_id("item9"), "call_2"),
                    out("call_2", "2"),
                ]),
                report: report(&[("call:1", &n("call:1"))], &[], &[]),
            },
            Case {
                name: "a duplicate call_id becomes two ids, outputs in order",
                input: json!([
                    fc("fc_1", "call_0"),
                    fc("fc_2", "call_0"),
                    out("call_0", "a"),
                    out("call_0", "b")
                ]),
                output: json!([
                    fc("fc_1", "call_0"),
                    fc("fc_2", &n("call_0#2")),
                    out("call_0", "a"),
                    out(&n("call_0#2"), "b")
                ]),
                report: report(&[("call_0", &n("call_0#2"))], &[], &[]),
            },
            Case {
                name:
                    "missing outputs go after the turn's outputs; custom calls get custom outputs",
                input: json!([
                    fc("fc_1", "a"),
                    {"type": "custom_tool_call", "id": "ctc_1", "call_id": "b", "name": "sh", "input": "ls"},
                    fc("fc_3", "c"),
                    out("c", "3"),
                    user,
                ]),
                output: json!([
                    fc("fc_1", "a"),
                    {"type": "custom_tool_call", "id": "ctc_1", "call_id": "b", "name": "sh", "input": "ls"},
                    fc("fc_3", "c"),
                    out("c", "3"),
                    missing("a"),
                    {"type": "custom_tool_call_output", "call_id": "b", "output": "Error: No result provided"},
                    user,
                ]),
                report: report(&[], &["a", "b"], &[]),
            },
            Case {
                name: "orphan outputs are removed",
                input: json!([user, out("ghost", "?"), fc("fc_1", "a"), out("a", "1"), {"type": "custom_tool_call_output", "call_id": "a", "output": "2"}, answer]),
                output: json!([user, fc("fc_1", "a"), out("a", "1"), answer]),
                report: report(&[], &[], &["ghost", "a"]),
            },
            Case {
                name: "items it does not understand pass through",
                input: json!([
                    {"type": "item_reference", "id": "fc_x.y"},
                    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
                    {"type": "message", "role": "system", "content": "x"},
                    {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                ]),
                output: json!([
                    {"type": "item_reference", "id": "fc_x.y"},
                    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
                    {"type": "message", "role": "system", "content": "x"},
                    {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                ]),
                report: report(&[], &[], &[]),
            },
        ];
        check(Wire::OpenAiResponses, cases);
    }

    #[test]
    fn invalid_items_name_index_and_field() {
        let cases = vec![
            (
                json!([{"type": "function_call", "name": "f"}]),
                "messages[0].call_id must be a string, got nothing",
            ),
            (
                json!([{"role": "user"}, {"type": "function_call", "call_id": "a", "id": 3}]),
                "messages[1].id must be a string, got a number",
            ),
            (
                json!([{"type": "function_call_output", "call_id": null}]),
                "messages[0].call_id must be a string, got null",
            ),
            (
                json!([{"type": "custom_tool_call", "call_id": "a", "name": []}]),
                "messages[0].name must be a string, got an array",
            ),
            (
                json!(["function_call"]),
                "messages[0] must be an object, got a string",
            ),
        ];
        check_errors(Wire::OpenAiResponses, cases);
    }
}
