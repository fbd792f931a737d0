//! The vocabulary shared by the history repair and its per-wire adapters: the calls and results
//! an adapter finds in a history, the plan the pairing makes of them, and the checks that turn a
//! wrong-typed field into a caller error naming the message and the field.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, Result};

/// The text of every synthetic result.
pub(super) const NO_RESULT: &str = "No result provided";

/// Whether an entry is a tool call or a tool result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A call the model made.
    Call,
    /// A result the caller sent back.
    Result,
}

/// One call or result found in a history: where it sits and what identifies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// Call or result.
    pub role: Role,
    /// Index of the message (or Responses item) holding it.
    pub message: usize,
    /// Index inside the message's array (`tool_calls`, `content`, `parts`); 0 when the message
    /// is the entry itself.
    pub part: usize,
    /// The raw id; `None` only for Gemini calls and responses sent without one.
    pub id: Option<String>,
    /// The tool name, when the wire carries it there.
    pub name: Option<String>,
}

/// What the repair does to one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// Leave it as it is.
    Keep,
    /// Write this id into it.
    SetId(String),
    /// Remove it (a result with no call).
    Remove,
}

/// A synthetic result owed to a call that got none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Synthetic {
    /// Index of the call in the entries.
    pub call: usize,
    /// The call's id after the repair.
    pub id: Option<String>,
    /// The call's tool name.
    pub name: Option<String>,
}

/// The pairing's decisions: one action per entry, and the synthetic results in history order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Parallel to the entries.
    pub actions: Vec<Action>,
    /// One per unanswered call, in the order of the calls.
    pub synthetic: Vec<Synthetic>,
}

/// The JSON type of a value, for error messages.
fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "nothing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

/// The caller error for `messages[index]<path>` not being `expected`.
pub(super) fn invalid(index: usize, path: &str, expected: &str, got: Option<&Value>) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!(
            "messages[{index}]{path} must be {expected}, got {}",
            type_name(got)
        ),
    )
}

/// Message `index` as an object.
pub(super) fn message_object(message: &Value, index: usize) -> Result<&Map<String, Value>> {
    message
        .as_object()
        .ok_or_else(|| invalid(index, "", "an object", Some(message)))
}

/// `value` as an object, or an error naming `messages[index]<path>`.
pub(super) fn object_at<'a>(
    value: &'a Value,
    index: usize,
    path: &dyn Fn() -> String,
) -> Result<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| invalid(index, &path(), "an object", Some(value)))
}

/// The string at `object[key]`, or an error naming `messages[index]<path>.<key>`.
pub(super) fn required_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    index: usize,
    path: &dyn Fn() -> String,
) -> Result<&'a str> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s),
        other => Err(invalid(
            index,
            &format!("{}.{key}", path()),
            "a string",
            other,
        )),
    }
}

/// The string at `object[key]`, `None` when absent or null; any other type is an error naming
/// `messages[index]<path>.<key>`.
pub(super) fn optional_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    index: usize,
    path: &dyn Fn() -> String,
) -> Result<Option<&'a str>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        other => Err(invalid(
            index,
            &format!("{}.{key}", path()),
            "a string",
            other,
        )),
    }
}

/// The array at `object[key]`, `None` when absent or null; any other type is an error naming
/// `messages[index].<key>`.
pub(super) fn optional_array<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    index: usize,
) -> Result<Option<&'a Vec<Value>>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        other => Err(invalid(index, &format!(".{key}"), "an array", other)),
    }
}

/// Writes `object[key] = value` when `target` is an object (the scan guarantees it is).
pub(super) fn set_field(target: Option<&mut Value>, key: &str, value: String) {
    if let Some(object) = target.and_then(Value::as_object_mut) {
        object.insert(key.to_owned(), Value::String(value));
    }
}

/// For each index, the last index of the run of messages after it that satisfy `continues`
/// (the index itself when the next message does not).
pub(super) fn run_ends(messages: &[Value], continues: fn(&Value) -> bool) -> Vec<usize> {
    let mut ends: Vec<usize> = (0..messages.len()).collect();
    for i in (0..messages.len().saturating_sub(1)).rev() {
        if continues(&messages[i + 1]) {
            ends[i] = ends[i + 1];
        }
    }
    ends
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn errors_name_the_message_and_the_field() {
        let object = json!({"id": 7, "name": null});
        let map = object.as_object().unwrap();
        let path = || ".tool_calls[1]".to_owned();
        let cases = [
            (
                required_str(map, "id", 3, &path).unwrap_err().message,
                "messages[3].tool_calls[1].id must be a string, got a number",
            ),
            (
                required_str(map, "missing", 0, &path).unwrap_err().message,
                "messages[0].tool_calls[1].missing must be a string, got nothing",
            ),
            (
                optional_str(map, "id", 2, &path).unwrap_err().message,
                "messages[2].tool_calls[1].id must be a string, got a number",
            ),
            (
                message_object(&json!("hi"), 5).unwrap_err().message,
                "messages[5] must be an object, got a string",
            ),
            (
                optional_array(map, "id", 4).unwrap_err().message,
                "messages[4].id must be an array, got a number",
            ),
        ];
        for (got, expected) in cases {
            assert_eq!(got, expected);
        }
        assert_eq!(optional_str(map, "name", 0, &path).unwrap(), None);
        assert_eq!(
            required_str(map, "id", 0, &path).unwrap_err().code,
            ErrorCode::ValidationError
        );
    }

    #[test]
    fn run_ends_extend_over_following_matches() {
        let messages = [json!(1), json!(0), json!(0), json!(1), json!(0)];
        let ends = run_ends(&messages, |v| v == &json!(0));
        assert_eq!(ends, vec![2, 2, 2, 4, 4]);
        assert!(run_ends(&[], |_| true).is_empty());
    }
}
