//! Options objects of the public API refuse keys they do not know: a typo (`concurrancy`,
//! `timeout` for `timeoutMs`) is named, with the closest known key, instead of being ignored.
//! Objects read with serde get the same words: [`from_json_text`] names the field a serde error
//! is about (`pathParams: expected an array, got string "x"`), never a line and column.

use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorCode, Result};
use crate::json_text::quoted_name;
use crate::suggest::did_you_mean;

/// The error of an unknown key of the options object `what` (`"ToolRuntime: options"`): names
/// the key (bounded), the keys there are and the closest of them.
pub fn unknown_option(what: &str, key: &str, known: &[&str]) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!(
            "{what} has unknown key {} (expected one of: {}){}",
            quoted_name(key),
            known.join(", "),
            did_you_mean(key, known.iter().copied())
        ),
    )
}

/// Checks every key of `object` against `known`; the first unknown one is refused (see
/// [`unknown_option`]).
pub fn check_option_keys<'k>(
    what: &str,
    keys: impl IntoIterator<Item = &'k str>,
    known: &[&str],
) -> Result<()> {
    match keys.into_iter().find(|key| !known.contains(key)) {
        Some(key) => Err(unknown_option(what, key, known)),
        None => Ok(()),
    }
}

/// Reads `text` (the JSON object `what`, e.g. `register: tool "x"`) as a `T`. A serde error
/// becomes a VALIDATION_ERROR naming the field at fault by its path (`approval.ask`,
/// `steps[0].id`) in plain words: an unknown field as [`unknown_option`] names it, a wrong type
/// as `expected an array, got string "x"`; never serde's line and column. The value quoted is
/// bounded.
pub fn from_json_text<T: DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|error| serde_error(what, text, &error))
}

/// The error of `error`, met reading `text` (the JSON object `what`): see [`from_json_text`].
pub fn serde_error(what: &str, text: &str, error: &serde_json::Error) -> Error {
    let code = if error.to_string().starts_with("recursion limit exceeded") {
        ErrorCode::LimitExceeded
    } else {
        ErrorCode::ValidationError
    };
    if error.is_syntax() || error.is_eof() {
        return Error::caller(code, format!("{what} is not valid JSON: {}", bare(error)));
    }
    let path = path_at(text, offset_of(text, error.line(), error.column()));
    let at = if path.is_empty() {
        what.to_owned()
    } else {
        format!("{what}: {path}")
    };
    let message = bare(error);
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((key, expected)) = rest.split_once('`') {
            let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            let parent = at.strip_suffix(&format!(".{key}")).unwrap_or(&at);
            let parent = parent.strip_suffix(&format!(": {key}")).unwrap_or(parent);
            return unknown_option(parent, key, &known);
        }
    }
    let plain = match message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|rest| rest.rsplit_once(", expected "))
    {
        Some((got, expected)) => format!("expected {}, got {}", words(expected), words(got)),
        None => words(&message),
    };
    Error::caller(code, format!("{at}: {}", bounded(&plain)))
}

/// serde's message without its ` at line L column C`.
fn bare(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(end) => text[..end].to_owned(),
        None => text,
    }
}

/// serde's names for JSON kinds in JavaScript's words.
fn words(text: &str) -> String {
    match text {
        "map" => "object".to_owned(),
        "sequence" => "array".to_owned(),
        _ => text
            .replace("a sequence", "an array")
            .replace("a map", "an object")
            .replace("struct ", "object "),
    }
}

/// `text` cut to about 300 bytes (a megabyte string value never reaches a message).
fn bounded(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_owned();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The byte offset of serde_json's 1-based `line` and byte `column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start = text
        .match_indices('\n')
        .nth(line.saturating_sub(2))
        .map_or(0, |(i, _)| if line > 1 { i + 1 } else { 0 });
    (start + column).min(text.len())
}

/// One open container of the scan in [`path_at`].
enum Open {
    /// An object and the key last read in it.
    Object(Option<String>),
    /// An array and the index of its current element.
    Array(usize),
}

/// The path (`approval.ask`, `steps[0].id`) of the value being read at byte `offset` of the
/// JSON text `text`: one pass over `text[..offset]`, keeping the open containers.
fn path_at(text: &str, offset: usize) -> String {
    let bytes = &text.as_bytes()[..offset];
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => open.push(Open::Object(None)),
            b'[' => open.push(Open::Array(0)),
            b'}' | b']' => {
                open.pop();
            }
            b',' => {
                if let Some(Open::Array(index)) = open.last_mut() {
                    *index += 1;
                }
            }
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let end = i.min(bytes.len());
                let whole = text.as_bytes();
                let mut next = end + 1;
                while next < whole.len() && whole[next].is_ascii_whitespace() {
                    next += 1;
                }
                if let (Some(Open::Object(key)), Some(b':')) = (open.last_mut(), whole.get(next)) {
                    let raw = &whole[start - 1..(end + 1).min(whole.len())];
                    *key = Some(serde_json::from_slice::<String>(raw).unwrap_or_else(|_| {
                        String::from_utf8_lossy(&whole[start..end]).into_owned()
                    }));
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for container in &open {
        match container {
            Open::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Open::Object(None) => {}
            Open::Array(index) => path.push_str(&format!("[{index}]")),
        }
    }
    bounded(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named_with_the_closest_known_one() {
        let known = ["concurrency", "timeoutMs", "onEvent", "workspaceRoot"];
        let cases: &[(&str, Option<&str>)] = &[
            ("concurrancy", Some("concurrency")),
            ("timeout", Some("timeoutMs")),
            ("workspaceroot", Some("workspaceRoot")),
            ("zzzzzzzz", None),
        ];
        crate::suggest::assert_suggestions(
            |key| {
                check_option_keys("ToolRuntime: options", [key], &known)
                    .unwrap_err()
                    .message
            },
            |key| format!("ToolRuntime: options has unknown key \"{key}\" (expected one of: "),
            cases,
        );
        let error = unknown_option("x", "k", &known);
        assert_eq!(error.code, ErrorCode::ValidationError);
        assert!(check_option_keys("x", ["onEvent", "timeoutMs"], &known).is_ok());
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    #[allow(dead_code)]
    struct Declaration {
        name: String,
        #[serde(default)]
        path_params: Vec<String>,
        #[serde(default)]
        approval: Option<Approval>,
        #[serde(default)]
        steps: Vec<Approval>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Approval {
        ask: Option<bool>,
        security: Option<String>,
    }

    #[test]
    fn serde_errors_name_the_field_never_a_position() {
        let cases = [
            (
                r#"{"name":"x","pathParams":"x"}"#,
                r#"tool "x": pathParams: expected an array, got string "x""#,
            ),
            (
                "{\n  \"name\": \"x\",\n  \"pathParams\": [\"a\", 5]\n}",
                r#"tool "x": pathParams[1]: expected a string, got integer `5`"#,
            ),
            (
                r#"{"name":"x","approval":{"ask":"yes"}}"#,
                r#"tool "x": approval.ask: expected a boolean, got string "yes""#,
            ),
            (
                r#"{"name":"x","steps":[{"ask":true},{"asks":true}]}"#,
                r#"tool "x": steps[1] has unknown key "asks" (expected one of: ask, security); did you mean "ask"?"#,
            ),
            (
                r#"{"name":"x","pathParam":[]}"#,
                r#"tool "x" has unknown key "pathParam" (expected one of: name, pathParams, approval, steps); did you mean "pathParams"?"#,
            ),
            (
                r#"{"name":5}"#,
                r#"tool "x": name: expected a string, got integer `5`"#,
            ),
            (r#"{"pathParams":[]}"#, r#"tool "x": missing field `name`"#),
            (
                r#"{"name":"a\"b","pathParams":{}}"#,
                r#"tool "x": pathParams: expected an array, got object"#,
            ),
            (
                r#"{"name":"#,
                "tool \"x\" is not valid JSON: EOF while parsing a value",
            ),
        ];
        for (text, want) in cases {
            let error = from_json_text::<Declaration>("tool \"x\"", text).unwrap_err();
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert_eq!(error.message, want, "{text}");
        }
        let huge = format!(
            r#"{{"name":"{}","pathParams":"{}"}}"#,
            "n".repeat(1 << 20),
            "p".repeat(1 << 20)
        );
        let error = from_json_text::<Declaration>("t", &huge).unwrap_err();
        assert!(error.message.len() < 400, "{}", error.message.len());
        assert!(
            error
                .message
                .starts_with("t: pathParams: expected an array"),
            "{}",
            &error.message[..80]
        );
    }
}
