//! The history adapter of Gemini `contents`: calls are `functionCall` parts of `role:"model"`
//! contents, results are `functionResponse` parts of the other contents (user). Ids are
//! optional: calls and responses without one pair by function name, in order, and only ids that
//! are present are rewritten. Synthetic responses carry `response:{error}` and go into the user
//! content after the calls (after its leading functionResponse parts).

use serde_json::{json, Map, Value};

use super::blocks::{self, BlockLayout};
use super::history::{
    message_object, object_at, optional_array, optional_str, required_str, set_field, Entry, Plan,
    Role, Synthetic, NO_RESULT,
};
use crate::error::Result;

const CALL: &str = "functionCall";
const RESPONSE: &str = "functionResponse";

fn is_model(content: &Value) -> bool {
    content.get("role").and_then(Value::as_str) == Some("model")
}

/// Finds the functionCall and functionResponse parts of a Gemini history, in order.
pub(super) fn scan(contents: &[Value]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for (index, content) in contents.iter().enumerate() {
        let object = message_object(content, index)?;
        let (role, key) = if is_model(content) {
            (Role::Call, CALL)
        } else {
            (Role::Result, RESPONSE)
        };
        let Some(parts) = optional_array(object, "parts", index)? else {
            continue;
        };
        for (part, value) in parts.iter().enumerate() {
            let part_path = || format!(".parts[{part}]");
            let value = object_at(value, index, &part_path)?;
            let Some(inner) = value.get(key).filter(|v| !v.is_null()) else {
                continue;
            };
            let path = || format!(".parts[{part}].{key}");
            let inner: &Map<String, Value> = object_at(inner, index, &path)?;
            let name = required_str(inner, "name", index, &path)?;
            let id = optional_str(inner, "id", index, &path)?;
            entries.push(Entry {
                role,
                message: index,
                part,
                id: id.map(str::to_owned),
                name: Some(name.to_owned()),
            });
        }
    }
    Ok(entries)
}

/// Applies `plan` to a Gemini history.
pub(super) fn apply(contents: Vec<Value>, entries: &[Entry], plan: &Plan) -> Vec<Value> {
    let layout = BlockLayout {
        key: "parts",
        carries_results: |content| content.is_object() && !is_model(content),
        is_result: |part| part.get(RESPONSE).is_some(),
        set_id,
        synthetic,
        blocks_of,
        new_message,
    };
    blocks::apply(contents, entries, plan, &layout)
}

fn set_id(part: &mut Value, role: Role, id: String) {
    let key = match role {
        Role::Call => CALL,
        Role::Result => RESPONSE,
    };
    set_field(part.get_mut(key), "id", id);
}

fn synthetic(synthetic: &Synthetic) -> Value {
    let mut response = Map::new();
    response.insert(
        "name".to_owned(),
        Value::String(synthetic.name.clone().unwrap_or_default()),
    );
    if let Some(id) = &synthetic.id {
        response.insert("id".to_owned(), Value::String(id.clone()));
    }
    response.insert("response".to_owned(), json!({"error": NO_RESULT}));
    json!({ RESPONSE: response })
}

fn blocks_of(parts: Value) -> Vec<Value> {
    match parts {
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

fn new_message(parts: Vec<Value>) -> Value {
    json!({"role": "user", "parts": parts})
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

    fn call(name: &str, id: Option<&str>) -> Value {
        match id {
            Some(id) => json!({"functionCall": {"name": name, "args": {}, "id": id}}),
            None => json!({"functionCall": {"name": name, "args": {}}}),
        }
    }

    fn response(name: &str, id: Option<&str>) -> Value {
        match id {
            Some(id) => {
                json!({"functionResponse": {"name": name, "id": id, "response": {"output": 1}}})
            }
            None => json!({"functionResponse": {"name": name, "response": {"output": 1}}}),
        }
    }

    fn missing(name: &str, id: Option<&str>) -> Value {
        match id {
            Some(id) => {
                json!({"functionResponse": {"name": name, "id": id, "response": {"error": "No result provided"}}})
            }
            None => {
                json!({"functionResponse": {"name": name, "response": {"error": "No result provided"}}})
            }
        }
    }

    fn model(parts: Value) -> Value {
        json!({"role": "model", "parts": parts})
    }

    fn user(parts: Value) -> Value {
        json!({"role": "user", "parts": parts})
    }

    #[test]
    fn gemini_histories() {
        let signed = json!({"functionCall": {"name": "f", "args": {"a": 1}, "id": "96c1su3s"}, "thoughtSignature": "c2ln"});
        let cases = vec![
            Case {
                name: "answered calls with and without ids: untouched",
                input: json!([
                    user(json!([{"text": "hi"}])),
                    model(json!([signed, call("g", Some("x2")), call("h", None)])),
                    user(json!([
                        response("f", Some("96c1su3s")),
                        response("g", Some("x2")),
                        response("h", None)
                    ])),
                    model(json!([{"text": "done"}])),
                ]),
                output: json!([
                    user(json!([{"text": "hi"}])),
                    model(json!([signed, call("g", Some("x2")), call("h", None)])),
                    user(json!([
                        response("f", Some("96c1su3s")),
                        response("g", Some("x2")),
                        response("h", None)
                    ])),
                    model(json!([{"text": "done"}])),
                ]),
                report: report(&[], &[], &[]),
            },
            Case {
                name: "an invalid id is normalized in the call and its response",
                input: json!([
                    model(json!([call("f", Some("a.b"))])),
                    user(json!([response("f", Some("a.b"))])),
                ]),
                output: json!([
                    model(json!([call("f", Some(&n("a.b")))])),
                    user(json!([response("f", Some(&n("a.b")))])),
                ]),
                report: report(&[("a.b", &n("a.b"))], &[], &[]),
            },
            Case {
                name: "a duplicate id becomes two ids, responses in order",
                input: json!([
                    model(json!([call("f", Some("c1")), call("g", Some("c1"))])),
                    user(json!([
                        response("f", Some("c1")),
                        response("g", Some("c1"))
                    ])),
                ]),
                output: json!([
                    model(json!([call("f", Some("c1")), call("g", Some(&n("c1#2")))])),
                    user(json!([
                        response("f", Some("c1")),
                        response("g", Some(&n("c1#2")))
                    ])),
                ]),
                report: report(&[("c1", &n("c1#2"))], &[], &[]),
            },
            Case {
                name: "id-less calls pair by name in order; the unanswered one gets a response",
                input: json!([
                    model(json!([
                        call("f", None),
                        call("f", None),
                        call("g", Some("i9"))
                    ])),
                    user(json!([response("f", None), {"text": "note"}])),
                ]),
                output: json!([
                    model(json!([
                        call("f", None),
                        call("f", None),
                        call("g", Some("i9"))
                    ])),
                    user(
                        json!([response("f", None), missing("f", None), missing("g", Some("i9")), {"text": "note"}])
                    ),
                ]),
                report: report(&[], &["f", "i9"], &[]),
            },
            Case {
                // Found by the repair property test: the synthetic id-less response must go back
                // to the id-less call on a second repair, not to the call with an id.
                name: "a response matched by id leaves the id-less call of the same name owed",
                input: json!([
                    model(json!([call("g", Some("a.b")), call("g", None)])),
                    user(json!([response("f", Some("a.b"))])),
                ]),
                output: json!([
                    model(json!([call("g", Some(&n("a.b"))), call("g", None)])),
                    user(json!([response("f", Some(&n("a.b"))), missing("g", None)])),
                ]),
                report: report(&[("a.b", &n("a.b"))], &["g"], &[]),
            },
            Case {
                name: "a new user content when the next content is the model's or there is none",
                input: json!([
                    model(json!([call("f", Some("a"))])),
                    model(json!([call("g", None)])),
                ]),
                output: json!([
                    model(json!([call("f", Some("a"))])),
                    user(json!([missing("f", Some("a"))])),
                    model(json!([call("g", None)])),
                    user(json!([missing("g", None)])),
                ]),
                report: report(&[], &["a", "g"], &[]),
            },
            Case {
                name: "orphan responses are removed and a content they emptied is dropped",
                input: json!([
                    user(json!([response("f", Some("ghost"))])),
                    model(json!([call("f", Some("a"))])),
                    user(json!([response("f", Some("a")), response("h", None), {"text": "more"}])),
                    {"parts": [response("f", Some("a"))]},
                ]),
                output: json!([
                    model(json!([call("f", Some("a"))])),
                    user(json!([response("f", Some("a")), {"text": "more"}])),
                ]),
                report: report(&[], &[], &["ghost", "h", "a"]),
            },
            Case {
                name: "contents it does not understand pass through",
                input: json!([
                    {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": ""}}]},
                    {"role": "model", "parts": [{"text": "x", "thought": true}, response("f", Some("not.a.call"))]},
                    {"role": "user"},
                    {"role": "user", "parts": [call("f", Some("not.a.response"))]},
                ]),
                output: json!([
                    {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": ""}}]},
                    {"role": "model", "parts": [{"text": "x", "thought": true}, response("f", Some("not.a.call"))]},
                    {"role": "user"},
                    {"role": "user", "parts": [call("f", Some("not.a.response"))]},
                ]),
                report: report(&[], &[], &[]),
            },
        ];
        check(Wire::Gemini, cases);
    }

    #[test]
    fn invalid_contents_name_index_and_field() {
        let cases = vec![
            (
                json!([{"role": "model", "parts": {}}]),
                "messages[0].parts must be an array, got an object",
            ),
            (
                json!([{"role": "user", "parts": ["x"]}]),
                "messages[0].parts[0] must be an object, got a string",
            ),
            (
                json!([{"role": "model", "parts": [{"functionCall": "f"}]}]),
                "messages[0].parts[0].functionCall must be an object, got a string",
            ),
            (
                json!([{"role": "model", "parts": [{"text": "a"}, {"functionCall": {"args": {}}}]}]),
                "messages[0].parts[1].functionCall.name must be a string, got nothing",
            ),
            (
                json!([{"role": "user", "parts": [{"functionResponse": {"name": "f", "id": 4}}]}]),
                "messages[0].parts[0].functionResponse.id must be a string, got a number",
            ),
            (
                json!([true]),
                "messages[0] must be an object, got a boolean",
            ),
        ];
        check_errors(Wire::Gemini, cases);
    }
}
