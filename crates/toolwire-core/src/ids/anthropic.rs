//! The history adapter of Anthropic Messages: calls are `tool_use` blocks of assistant messages,
//! results are `tool_result` blocks of user messages, and synthetic results are `is_error`
//! tool_result blocks in the user message after the calls (tool_result blocks first). Server
//! tools (`server_tool_use`, `*_tool_result`) are paired by the provider and pass through.

use serde_json::{json, Value};

use super::blocks::{self, BlockLayout};
use super::history::{
    invalid, message_object, object_at, optional_str, required_str, set_field, Entry, Plan, Role,
    Synthetic, NO_RESULT,
};
use crate::error::Result;

/// Finds the tool_use and tool_result blocks of a Messages history, in order.
pub(super) fn scan(messages: &[Value]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let object = message_object(message, index)?;
        let (role, wanted) = match object.get("role").and_then(Value::as_str) {
            Some("assistant") => (Role::Call, "tool_use"),
            Some("user") => (Role::Result, "tool_result"),
            _ => continue,
        };
        let blocks = match object.get("content") {
            None | Some(Value::Null | Value::String(_)) => continue,
            Some(Value::Array(blocks)) => blocks,
            other => {
                return Err(invalid(index, ".content", "a string or an array", other));
            }
        };
        for (part, block) in blocks.iter().enumerate() {
            let path = || format!(".content[{part}]");
            let block = object_at(block, index, &path)?;
            if block.get("type").and_then(Value::as_str) != Some(wanted) {
                continue;
            }
            let (id, name) = match role {
                Role::Call => (
                    required_str(block, "id", index, &path)?,
                    optional_str(block, "name", index, &path)?,
                ),
                Role::Result => (required_str(block, "tool_use_id", index, &path)?, None),
            };
            entries.push(Entry {
                role,
                message: index,
                part,
                id: Some(id.to_owned()),
                name: name.map(str::to_owned),
            });
        }
    }
    Ok(entries)
}

/// Applies `plan` to a Messages history.
pub(super) fn apply(messages: Vec<Value>, entries: &[Entry], plan: &Plan) -> Vec<Value> {
    let layout = BlockLayout {
        key: "content",
        carries_results: is_user_message,
        is_result: is_tool_result,
        set_id,
        synthetic,
        blocks_of,
        new_message,
    };
    blocks::apply(messages, entries, plan, &layout)
}

fn is_user_message(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("user")
}

fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

fn set_id(block: &mut Value, role: Role, id: String) {
    let key = match role {
        Role::Call => "id",
        Role::Result => "tool_use_id",
    };
    set_field(Some(block), key, id);
}

fn synthetic(synthetic: &Synthetic) -> Value {
    json!({"type": "tool_result", "tool_use_id": synthetic.id, "content": NO_RESULT, "is_error": true})
}

/// String content becomes a text block (none when empty: the API rejects empty text blocks).
fn blocks_of(content: Value) -> Vec<Value> {
    match content {
        Value::Null => Vec::new(),
        Value::String(text) if text.is_empty() => Vec::new(),
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        other => vec![other],
    }
}

fn new_message(blocks: Vec<Value>) -> Value {
    json!({"role": "user", "content": blocks})
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::normalize::{normalize_tool_call_id, IdTarget};
    use super::super::test_support::{check, check_errors, report, Case};
    use crate::provider::Wire;

    fn n(id: &str) -> String {
        normalize_tool_call_id(id, IdTarget::Word)
    }

    fn tool_use(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "f", "input": {}})
    }

    fn result(id: &str, content: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": content})
    }

    fn missing(id: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": "No result provided", "is_error": true})
    }

    fn text(text: &str) -> Value {
        json!({"type": "text", "text": text})
    }

    #[test]
    fn anthropic_histories() {
        let thinking = json!({"type": "thinking", "thinking": "hmm", "signature": "sig"});
        let cases = vec![
            Case {
                name: "valid ids, all answered: untouched",
                input: json!([
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [thinking, text("let me"), tool_use("toolu_1"), tool_use("toolu_2")]},
                    {"role": "user", "content": [result("toolu_1", "1"), result("toolu_2", "2"), text("and?")]},
                    {"role": "assistant", "content": "done"},
                ]),
                output: json!([
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [thinking, text("let me"), tool_use("toolu_1"), tool_use("toolu_2")]},
                    {"role": "user", "content": [result("toolu_1", "1"), result("toolu_2", "2"), text("and?")]},
                    {"role": "assistant", "content": "done"},
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "an invalid id is normalized in the tool_use and its tool_result",
                input: json!([
                    {"role": "assistant", "content": [tool_use("call.1:x")]},
                    {"role": "user", "content": [result("call.1:x", "1")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use(&n("call.1:x"))]},
                    {"role": "user", "content": [result(&n("call.1:x"), "1")]},
                ]),
                report: report(&[("call.1:x", &n("call.1:x"))], &[], &[]),
            },
            Case {
                name: "a duplicate raw id becomes two ids, results in order",
                input: json!([
                    {"role": "assistant", "content": [tool_use("toolu_1"), tool_use("toolu_1")]},
                    {"role": "user", "content": [result("toolu_1", "a"), result("toolu_1", "b")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("toolu_1"), tool_use(&n("toolu_1#2"))]},
                    {"role": "user", "content": [result("toolu_1", "a"), result(&n("toolu_1#2"), "b")]},
                ]),
                report: report(&[("toolu_1", &n("toolu_1#2"))], &[], &[]),
            },
            Case {
                name: "missing results join the next user message after its tool_results",
                input: json!([
                    {"role": "assistant", "content": [tool_use("a"), tool_use("b"), tool_use("c")]},
                    {"role": "user", "content": [result("b", "2"), text("go on")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("a"), tool_use("b"), tool_use("c")]},
                    {"role": "user", "content": [result("b", "2"), missing("a"), missing("c"), text("go on")]},
                ]),
                report: report(&[], &["a", "c"], &[]),
            },
            Case {
                name: "string content of the next user message becomes a text block after the results",
                input: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": "what now?"},
                    {"role": "assistant", "content": [tool_use("b")]},
                    {"role": "user", "content": ""},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [missing("a"), text("what now?")]},
                    {"role": "assistant", "content": [tool_use("b")]},
                    {"role": "user", "content": [missing("b")]},
                ]),
                report: report(&[], &["a", "b"], &[]),
            },
            Case {
                name: "a new user message when the next message is not a user message or there is none",
                input: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "assistant", "content": [text("more"), tool_use("b")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [missing("a")]},
                    {"role": "assistant", "content": [text("more"), tool_use("b")]},
                    {"role": "user", "content": [missing("b")]},
                ]),
                report: report(&[], &["a", "b"], &[]),
            },
            Case {
                name: "orphan tool_results are removed and a message they emptied is dropped",
                input: json!([
                    {"role": "user", "content": [result("ghost", "?")]},
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [result("a", "1"), result("a", "again"), result("nope", "x"), text("hi")]},
                    {"role": "assistant", "content": [text("ok")]},
                    {"role": "user", "content": [result("late", "x")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [result("a", "1"), text("hi")]},
                    {"role": "assistant", "content": [text("ok")]},
                ]),
                report: report(&[], &[], &["ghost", "a", "nope", "late"]),
            },
            Case {
                name: "a user message of orphans is refilled by the synthetic results instead of dropped",
                input: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [result("ghost", "?")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [tool_use("a")]},
                    {"role": "user", "content": [missing("a")]},
                ]),
                report: report(&[], &["a"], &["ghost"]),
            },
            Case {
                name: "server tools and other blocks pass through",
                input: json!([
                    {"role": "assistant", "content": [
                        {"type": "server_tool_use", "id": "srvtoolu.1", "name": "web_search", "input": {}},
                        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu.1", "content": []},
                        {"type": "redacted_thinking", "data": "abc"},
                    ]},
                    {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": ""}}]},
                    {"role": "system", "content": [result("x", "not a user message")]},
                ]),
                output: json!([
                    {"role": "assistant", "content": [
                        {"type": "server_tool_use", "id": "srvtoolu.1", "name": "web_search", "input": {}},
                        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu.1", "content": []},
                        {"type": "redacted_thinking", "data": "abc"},
                    ]},
                    {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": ""}}]},
                    {"role": "system", "content": [result("x", "not a user message")]},
                ]),
                report: report(&[], &[], &[]),
            },
        ];
        check(Wire::Anthropic, cases);
    }

    #[test]
    fn invalid_messages_name_index_and_field() {
        let cases = vec![
            (
                json!([{"role": "assistant", "content": 3}]),
                "messages[0].content must be a string or an array, got a number",
            ),
            (
                json!([{"role": "user", "content": "x"}, {"role": "assistant", "content": ["x"]}]),
                "messages[1].content[0] must be an object, got a string",
            ),
            (
                json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}]),
                "messages[0].content[0].id must be a string, got nothing",
            ),
            (
                json!([{"role": "user", "content": [text("a"), {"type": "tool_result", "tool_use_id": 1}]}]),
                "messages[0].content[1].tool_use_id must be a string, got a number",
            ),
            (json!([null]), "messages[0] must be an object, got null"),
        ];
        check_errors(Wire::Anthropic, cases);
    }
}
