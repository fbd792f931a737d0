//! Writing JSON text directly: string literals and compacted raw values.
//!
//! Decoders answer with JSON text that JavaScript parses once, so events and turns are written
//! straight into a `String` instead of being built as `serde_json::Value`s first.

/// Appends `s` as a JSON string literal (quotes included) to `out`.
pub fn push_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    push_json_escaped(out, s);
    out.push('"');
}

/// `s` as a JSON string literal (quotes included).
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

/// A name as an error quotes it: a JSON string literal of at most its first 100 characters
/// (then `…`), so a megabyte of input never ends up in a message.
pub fn quoted_name(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", json_string(&name[..end])),
        None => json_string(name),
    }
}

/// Appends `s` escaped as the content of a JSON string (no quotes), as serde_json writes it.
pub fn push_json_escaped(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut run_start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.push_str(&s[run_start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
        }
        run_start = i + 1;
    }
    out.push_str(&s[run_start..]);
}

/// The bytes as text: invalid UTF-8 becomes U+FFFD. Valid text (nearly always) takes the fast
/// validating path; `from_utf8_lossy` alone walks its chunks much more slowly.
pub fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(valid) => std::borrow::Cow::Borrowed(valid),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `raw` (valid JSON text) without the whitespace between tokens, as providers send it
/// pretty-printed or padded. Strings are copied exactly as written, escapes included.
pub fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut run_start = 0;
    for (i, &b) in raw.as_bytes().iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            out.push_str(&raw[run_start..i]);
            run_start = i + 1;
        }
    }
    out.push_str(&raw[run_start..]);
    out
}

/// `Some` when the string is there and not empty: providers send `""` for "absent".
pub fn non_empty<'s>(value: &'s Option<std::borrow::Cow<'_, str>>) -> Option<&'s str> {
    value.as_deref().filter(|s| !s.is_empty())
}

/// Whether `text` is exactly one JSON value that is an object (whitespace around it allowed).
pub fn is_json_object(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Why `text` is not one JSON object, in a sentence that never quotes the text itself.
pub fn object_problem(text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return Some("the arguments are empty".into());
    }
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(error) => Some(format!(
            "the arguments are not valid JSON ({} at line {} column {})",
            error_kind(&error),
            error.line(),
            error.column()
        )),
        Ok(_) if !text.trim_start().starts_with('{') => {
            Some("the arguments are JSON but not an object".into())
        }
        Ok(_) => None,
    }
}

fn error_kind(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Eof => "the text ends early",
        serde_json::error::Category::Syntax => "a syntax error",
        serde_json::error::Category::Data | serde_json::error::Category::Io => "unreadable data",
    }
}

/// The JSON type name of a value, for error messages.
pub fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_quotes_backslashes_and_control_characters() {
        let mut out = String::new();
        push_json_string(&mut out, "a\"b\\c\nd\u{1}\u{8}é😀");
        assert_eq!(out, r#""a\"b\\c\nd\u0001\bé😀""#);
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\"b\\c\nd\u{1}\u{8}é😀");
        assert_eq!(
            out,
            serde_json::to_string(&back).unwrap(),
            "as serde_json writes it"
        );
    }

    #[test]
    fn compact_removes_whitespace_between_tokens_only() {
        let raw = "{\n  \"y\": 3,\r\n  \"s\": \"a b\\\" c\",\t\"x\" : [ 1 , 2 ]\n}";
        assert_eq!(compact(raw), r#"{"y":3,"s":"a b\" c","x":[1,2]}"#);
    }

    #[test]
    fn object_check_names_the_problem_without_quoting_the_text() {
        assert!(is_json_object(" {\"a\":1} "));
        assert!(!is_json_object("[1]"));
        assert!(!is_json_object("{\"action\":\"delete_all\""));
        let problem = object_problem("{\"secret\":\"hunter2\"").unwrap();
        assert!(problem.contains("ends early"), "{problem}");
        assert!(!problem.contains("hunter2"));
        assert_eq!(
            object_problem("[1]").unwrap(),
            "the arguments are JSON but not an object"
        );
        assert_eq!(object_problem("").unwrap(), "the arguments are empty");
        assert!(object_problem("{}").is_none());
    }
}
