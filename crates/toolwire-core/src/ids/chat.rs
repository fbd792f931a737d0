//! The history adapter of OpenAI Chat Completions and Mistral: calls are the `tool_calls` of
//! assistant messages, results are `role:"tool"` messages with a `tool_call_id`, and a synthetic
//! result is a tool message placed after the tool messages that follow the assistant message.

use serde_json::{json, Map, Value};

use super::flat::{self, FlatLayout};
use super::history::{
    message_object, object_at, optional_array, optional_str, required_str, set_field, Entry, Plan,
    Role, Synthetic, NO_RESULT,
};
use crate::envelope::marked_error_text;
use crate::error::Result;

/// Finds the calls and results of a Chat Completions history, in order.
pub(super) fn scan(messages: &[Value]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let object = message_object(message, index)?;
        match object.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let Some(calls) = optional_array(object, "tool_calls", index)? else {
                    continue;
                };
                for (part, call) in calls.iter().enumerate() {
                    let path = || format!(".tool_calls[{part}]");
                    let call = object_at(call, index, &path)?;
                    let id = required_str(call, "id", index, &path)?;
                    entries.push(Entry {
                        role: Role::Call,
                        message: index,
                        part,
                        id: Some(id.to_owned()),
                        name: tool_name(call, index, part)?,
                    });
                }
            }
            Some("tool") => {
                let id = required_str(object, "tool_call_id", index, &String::new)?;
                entries.push(Entry {
                    role: Role::Result,
                    message: index,
                    part: 0,
                    id: Some(id.to_owned()),
                    name: None,
                });
            }
            _ => {}
        }
    }
    Ok(entries)
}

/// The name of a tool call: `function.name`, or `custom.name` for custom tools.
fn tool_name(call: &Map<String, Value>, index: usize, part: usize) -> Result<Option<String>> {
    for key in ["function", "custom"] {
        let Some(inner) = call.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        let path = || format!(".tool_calls[{part}].{key}");
        let inner = object_at(inner, index, &path)?;
        if let Some(name) = optional_str(inner, "name", index, &path)? {
            return Ok(Some(name.to_owned()));
        }
    }
    Ok(None)
}

/// Applies `plan` to a Chat Completions (or, when `mistral`, Mistral) history.
pub(super) fn apply(
    messages: Vec<Value>,
    entries: &[Entry],
    plan: &Plan,
    mistral: bool,
) -> Vec<Value> {
    let layout = FlatLayout {
        continues_batch: is_tool_message,
        set_id,
        synthetic: if mistral {
            mistral_synthetic
        } else {
            chat_synthetic
        },
    };
    flat::apply(messages, entries, plan, &layout)
}

fn is_tool_message(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("tool")
}

fn set_id(message: &mut Value, entry: &Entry, id: String) {
    match entry.role {
        Role::Call => set_field(
            message
                .get_mut("tool_calls")
                .and_then(|calls| calls.get_mut(entry.part)),
            "id",
            id,
        ),
        Role::Result => set_field(Some(message), "tool_call_id", id),
    }
}

fn chat_synthetic(_: &Value, synthetic: &Synthetic) -> Value {
    json!({"role": "tool", "tool_call_id": synthetic.id, "content": marked_error_text(NO_RESULT)})
}

fn mistral_synthetic(call_message: &Value, synthetic: &Synthetic) -> Value {
    let mut message = chat_synthetic(call_message, synthetic);
    if let (Some(object), Some(name)) = (message.as_object_mut(), &synthetic.name) {
        object.insert("name".to_owned(), Value::String(name.clone()));
    }
    message
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::normalize::{normalize_tool_call_id, IdTarget};
    use super::super::test_support::{check, check_errors, report, Case};
    use crate::provider::Wire;

    fn n(id: &str) -> String {
        normalize_tool_call_id(id, IdTarget::Word)
    }

    fn m(id: &str) -> String {
        normalize_tool_call_id(id, IdTarget::Strict9)
    }

    fn call(id: &str, name: &str) -> serde_json::Value {
        json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}})
    }

    fn tool(id: &str, content: &str) -> serde_json::Value {
        json!({"role": "tool", "tool_call_id": id, "content": content})
    }

    fn missing(id: &str) -> serde_json::Value {
        json!({"role": "tool", "tool_call_id": id, "content": "Error: No result provided"})
    }

    #[test]
    fn chat_histories() {
        let bad = "call.1/x";
        let cases = vec![
            Case {
                name: "valid ids, all answered: untouched",
                input: json!([
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": null, "tool_calls": [call("call_a", "f"), call("call_b", "g")]},
                    tool("call_a", "1"),
                    tool("call_b", "2"),
                    {"role": "assistant", "content": "done"},
                ]),
                output: json!([
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": null, "tool_calls": [call("call_a", "f"), call("call_b", "g")]},
                    tool("call_a", "1"),
                    tool("call_b", "2"),
                    {"role": "assistant", "content": "done"},
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "an invalid id is normalized in the call and its result",
                input: json!([
                    {"role": "assistant", "tool_calls": [call(bad, "f")]},
                    tool(bad, "1"),
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call(&n(bad), "f")]},
                    tool(&n(bad), "1"),
                ]),
                report: report(&[(bad, &n(bad))], &[], &[]),
            },
            Case {
                name: "a duplicate raw id in one batch becomes two ids, results in order",
                input: json!([
                    {"role": "assistant", "tool_calls": [call("0", "f"), call("0", "g")]},
                    tool("0", "first"),
                    tool("0", "second"),
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call("0", "f"), call(&n("0#2"), "g")]},
                    tool("0", "first"),
                    tool(&n("0#2"), "second"),
                ]),
                report: report(&[("0", &n("0#2"))], &[], &[]),
            },
            Case {
                name: "a raw id reused by the next turn",
                input: json!([
                    {"role": "assistant", "tool_calls": [call("0", "f")]},
                    tool("0", "first"),
                    {"role": "user", "content": "again"},
                    {"role": "assistant", "tool_calls": [call("0", "f")]},
                    tool("0", "second"),
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call("0", "f")]},
                    tool("0", "first"),
                    {"role": "user", "content": "again"},
                    {"role": "assistant", "tool_calls": [call(&n("0#2"), "f")]},
                    tool(&n("0#2"), "second"),
                ]),
                report: report(&[("0", &n("0#2"))], &[], &[]),
            },
            Case {
                name: "missing results go after the batch's tool messages, in call order",
                input: json!([
                    {"role": "assistant", "tool_calls": [call("a", "f"), call("b", "f"), call("c", "f")]},
                    tool("b", "2"),
                    {"role": "user", "content": "next"},
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call("a", "f"), call("b", "f"), call("c", "f")]},
                    tool("b", "2"),
                    missing("a"),
                    missing("c"),
                    {"role": "user", "content": "next"},
                ]),
                report: report(&[], &["a", "c"], &[]),
            },
            Case {
                name: "a missing result at the end of the history",
                input: json!([
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "tool_calls": [call(bad, "f")]},
                ]),
                output: json!([
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "tool_calls": [call(&n(bad), "f")]},
                    missing(&n(bad)),
                ]),
                report: report(&[(bad, &n(bad))], &[&n(bad)], &[]),
            },
            Case {
                name: "orphan results are removed: unknown id, second answer, before the call",
                input: json!([
                    tool("early", "?"),
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "tool_calls": [call("a", "f"), call("early", "f")]},
                    tool("a", "1"),
                    tool("a", "again"),
                    tool("ghost", "boo"),
                    {"role": "assistant", "content": "done"},
                ]),
                output: json!([
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "tool_calls": [call("a", "f"), call("early", "f")]},
                    tool("a", "1"),
                    missing("early"),
                    {"role": "assistant", "content": "done"},
                ]),
                report: report(&[], &["early"], &["early", "a", "ghost"]),
            },
            Case {
                name: "messages it does not understand pass through",
                input: json!([
                    {"role": "developer", "content": [{"type": "text", "text": "x"}]},
                    {"role": "assistant", "content": "hi", "tool_calls": null},
                    {"role": "assistant", "function_call": {"name": "old", "arguments": "{}"}},
                    {"content": "no role"},
                    {"role": 7},
                ]),
                output: json!([
                    {"role": "developer", "content": [{"type": "text", "text": "x"}]},
                    {"role": "assistant", "content": "hi", "tool_calls": null},
                    {"role": "assistant", "function_call": {"name": "old", "arguments": "{}"}},
                    {"content": "no role"},
                    {"role": 7},
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "custom tool calls are calls too",
                input: json!([
                    {"role": "assistant", "tool_calls": [{"id": "c:1", "type": "custom", "custom": {"name": "sh", "input": "ls"}}]},
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [{"id": n("c:1"), "type": "custom", "custom": {"name": "sh", "input": "ls"}}]},
                    missing(&n("c:1")),
                ]),
                report: report(&[("c:1", &n("c:1"))], &[&n("c:1")], &[]),
            },
        ];
        check(Wire::OpenAiChat, cases);
    }

    #[test]
    fn mistral_histories() {
        let long = "call_abc123";
        let cases = vec![
            Case {
                name: "nine-character ids are kept",
                input: json!([
                    {"role": "assistant", "tool_calls": [call("abcDEF123", "f")]},
                    {"role": "tool", "name": "f", "tool_call_id": "abcDEF123", "content": "1"},
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call("abcDEF123", "f")]},
                    {"role": "tool", "name": "f", "tool_call_id": "abcDEF123", "content": "1"},
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "other ids become nine characters in the call and its result",
                input: json!([
                    {"role": "assistant", "tool_calls": [call(long, "f")]},
                    {"role": "tool", "name": "f", "tool_call_id": long, "content": "1"},
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call(&m(long), "f")]},
                    {"role": "tool", "name": "f", "tool_call_id": m(long), "content": "1"},
                ]),
                report: report(&[(long, &m(long))], &[], &[]),
            },
            Case {
                name: "a synthetic result carries the tool name",
                input: json!([
                    {"role": "assistant", "tool_calls": [call("abcDEF123", "f"), call("abcDEF123", "g")]},
                    {"role": "tool", "name": "f", "tool_call_id": "abcDEF123", "content": "1"},
                    {"role": "user", "content": "next"},
                ]),
                output: json!([
                    {"role": "assistant", "tool_calls": [call("abcDEF123", "f"), call(&m("abcDEF123#2"), "g")]},
                    {"role": "tool", "name": "f", "tool_call_id": "abcDEF123", "content": "1"},
                    {"role": "tool", "name": "g", "tool_call_id": m("abcDEF123#2"), "content": "Error: No result provided"},
                    {"role": "user", "content": "next"},
                ]),
                report: report(
                    &[("abcDEF123", &m("abcDEF123#2"))],
                    &[&m("abcDEF123#2")],
                    &[],
                ),
            },
        ];
        check(Wire::Mistral, cases);
    }

    #[test]
    fn invalid_chat_messages_name_index_and_field() {
        let cases = vec![
            (
                json!([{"role": "assistant", "tool_calls": {}}]),
                "messages[0].tool_calls must be an array, got an object",
            ),
            (
                json!([{"role": "user"}, {"role": "assistant", "tool_calls": [1]}]),
                "messages[1].tool_calls[0] must be an object, got a number",
            ),
            (
                json!([{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]),
                "messages[0].tool_calls[0].id must be a string, got nothing",
            ),
            (
                json!([{"role": "assistant", "tool_calls": [{"id": "a", "function": "f"}]}]),
                "messages[0].tool_calls[0].function must be an object, got a string",
            ),
            (
                json!([{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": 1}}]}]),
                "messages[0].tool_calls[0].function.name must be a string, got a number",
            ),
            (
                json!([{"role": "user"}, {"role": "tool", "tool_call_id": 5}]),
                "messages[1].tool_call_id must be a string, got a number",
            ),
            (json!([[]]), "messages[0] must be an object, got an array"),
        ];
        check_errors(Wire::OpenAiChat, cases);
    }
}
