//! Records the log cannot hold whole, made writable: nothing a call carries may cost its record.
//!
//! A line is read back with serde_json, which refuses JSON nested deeper than its recursion
//! limit and escaped lone UTF-16 surrogates (`"\ud83d"`, what `JSON.stringify` writes for a
//! string cut inside an emoji). So before a record is written:
//!
//! - containers nested deeper than [`MAX_LINE_DEPTH`] are cut: each is replaced by the string
//!   [`CUT_PLACEHOLDER`], and the record gets an [`INCOMPLETE`] field saying why and how many
//!   values were cut, which [`verify_run`](super::verify_run) reports;
//! - escaped lone surrogates become `\ufffd` (U+FFFD), as everywhere text enters the engine.
//!
//! Both work on values ([`cut_deep`]) and on JSON text ([`repair_json_text`]), in one pass
//! without recursion deeper than the limit, so any depth costs linear time and no stack.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::record::MAX_LINE_DEPTH;
use crate::json_input::{depth_of, string_end};

/// What replaces a container nested deeper than [`MAX_LINE_DEPTH`] levels in a written line.
pub const CUT_PLACEHOLDER: &str = "[audit: cut, nested deeper than 127 levels]";

/// Field of a record that was not written whole: `{ reason, cut? }`.
pub const INCOMPLETE: &str = "auditIncomplete";

/// `value` with every container that would sit deeper than `max_depth` levels replaced by
/// [`CUT_PLACEHOLDER`] (the top-level container is level 1), and how many were replaced.
///
/// Recursion stops at `max_depth`, so a value of any depth is safe to pass.
pub fn cut_deep(value: &Value, max_depth: usize) -> (Value, usize) {
    let mut cut = 0;
    let value = cut_walk(value, 1, max_depth, &mut cut);
    (value, cut)
}

fn cut_walk(value: &Value, depth: usize, max_depth: usize, cut: &mut usize) -> Value {
    match value {
        Value::Array(_) | Value::Object(_) if depth > max_depth => {
            *cut += 1;
            Value::String(CUT_PLACEHOLDER.to_string())
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| cut_walk(item, depth + 1, max_depth, cut))
                .collect(),
        ),
        Value::Object(map) => Value::Object(cut_entries(map, depth + 1, max_depth, cut)),
        scalar => scalar.clone(),
    }
}

/// The entries of an object whose values sit at level `depth`, cut as [`cut_deep`] does.
fn cut_entries(
    map: &Map<String, Value>,
    depth: usize,
    max_depth: usize,
    cut: &mut usize,
) -> Map<String, Value> {
    map.iter()
        .map(|(k, v)| (k.clone(), cut_walk(v, depth, max_depth, cut)))
        .collect()
}

/// The [`INCOMPLETE`] marker: why the record is not whole, and how many values were cut.
pub fn incomplete(reason: &str, cut: usize) -> Value {
    let mut marker = Map::new();
    marker.insert("reason".into(), Value::String(reason.to_string()));
    if cut > 0 {
        marker.insert("cut".into(), Value::from(cut));
    }
    Value::Object(marker)
}

/// The [`INCOMPLETE`] marker of a record that had `cut` more values cut, given the marker it
/// had (`None` or a marker of [`incomplete`]): the counts add up, another reason is kept.
pub fn mark_cut(before: Option<&Value>, cut: usize) -> Value {
    let cut_before = before
        .and_then(|m| m.get("cut"))
        .and_then(Value::as_u64)
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let total = cut_before.saturating_add(cut);
    let reason = cut_reason(total);
    match before.and_then(|m| m.get("reason")).and_then(Value::as_str) {
        Some(other) if cut_before == 0 => incomplete(&format!("{other}; {reason}"), total),
        _ => incomplete(&reason, total),
    }
}

/// The reason given for `cut` values cut at [`MAX_LINE_DEPTH`].
pub fn cut_reason(cut: usize) -> String {
    let values = if cut == 1 { "value" } else { "values" };
    format!(
        "{cut} {values} nested deeper than {MAX_LINE_DEPTH} levels could not be written \
         (replaced by \"{CUT_PLACEHOLDER}\")"
    )
}

/// JSON text made readable: see [`repair_json_text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repaired {
    /// The text with deep containers cut and lone surrogates replaced.
    pub text: String,
    /// How many containers were replaced by [`CUT_PLACEHOLDER`].
    pub cut: usize,
    /// How many escaped lone surrogates became `\ufffd`.
    pub surrogates: usize,
}

/// `text` (JSON) with every container nested deeper than `max_depth` replaced by
/// [`CUT_PLACEHOLDER`] and every escaped lone surrogate by `\ufffd`; everything else is copied
/// byte for byte. One pass, no recursion: linear in the text whatever its depth.
///
/// Text that is not JSON stays not JSON (brackets inside strings are never counted).
pub fn repair_json_text(text: &str, max_depth: usize) -> Repaired {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut depth = 0usize;
    // > 0: inside a cut container, this many levels into it.
    let mut skipping = 0usize;
    let mut cut = 0;
    let mut surrogates = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if skipping == 0 {
                    surrogates += copy_string(&bytes[i..end], &mut out);
                }
                i = end;
                continue;
            }
            b'{' | b'[' if skipping > 0 => skipping += 1,
            b'{' | b'[' if depth >= max_depth => {
                skipping = 1;
                cut += 1;
            }
            open @ (b'{' | b'[') => {
                depth += 1;
                out.push(open);
            }
            b'}' | b']' if skipping > 0 => {
                skipping -= 1;
                if skipping == 0 {
                    out.push(b'"');
                    out.extend_from_slice(CUT_PLACEHOLDER.as_bytes());
                    out.push(b'"');
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                out.push(close);
            }
            _ if skipping > 0 => {}
            other => out.push(other),
        }
        i += 1;
    }
    // Only ASCII sequences were replaced or dropped whole, so the text stays UTF-8.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Repaired {
        text,
        cut,
        surrogates,
    }
}

/// Copies the JSON string `string` (quotes included) to `out`, writing each escaped lone
/// surrogate as `\ufffd`; returns how many there were.
fn copy_string(string: &[u8], out: &mut Vec<u8>) -> usize {
    let mut replaced = 0;
    let mut i = 0;
    while i < string.len() {
        if string[i] != b'\\' {
            out.push(string[i]);
            i += 1;
            continue;
        }
        let Some(unit) = escaped_unit(string, i) else {
            let end = (i + 2).min(string.len());
            out.extend_from_slice(&string[i..end]);
            i = end;
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                if let Some(0xDC00..=0xDFFF) = escaped_unit(string, i + 6) {
                    out.extend_from_slice(&string[i..i + 12]);
                    i += 12;
                    continue;
                }
            }
            0xDC00..=0xDFFF => {}
            _ => {
                out.extend_from_slice(&string[i..i + 6]);
                i += 6;
                continue;
            }
        }
        out.extend_from_slice(b"\\ufffd");
        replaced += 1;
        i += 6;
    }
    replaced
}

/// The code unit of the `\uXXXX` escape at `at`, when there is one.
fn escaped_unit(string: &[u8], at: usize) -> Option<u16> {
    let escape = string.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// A record given as JSON text, read as the writer can hold it.
#[derive(Debug)]
pub enum RecordText {
    /// The record, with its deep containers cut (`cut` of them) when it had any.
    Read {
        /// The record.
        value: Value,
        /// How many containers were cut at [`MAX_LINE_DEPTH`].
        cut: usize,
    },
    /// The text is not JSON even once repaired; the reason names the parse error.
    Unreadable(String),
}

/// Reads a record's JSON text: as it is when serde_json takes it, else repaired
/// ([`repair_json_text`] at [`MAX_LINE_DEPTH`]) and read again.
pub fn read_record_text(text: &str) -> RecordText {
    if let Ok(value) = serde_json::from_str(text) {
        return RecordText::Read { value, cut: 0 };
    }
    let repaired = repair_json_text(text, MAX_LINE_DEPTH);
    match serde_json::from_str(&repaired.text) {
        Ok(value) => RecordText::Read {
            value,
            cut: repaired.cut,
        },
        Err(e) => RecordText::Unreadable(format!("the record is not JSON: {e}")),
    }
}

/// Reads a record's JSON text as [`read_record_text`] does, marking a record whose containers
/// were cut with [`INCOMPLETE`]; the error is why the text is not JSON.
pub fn read_marked_text(text: &str) -> Result<Value, String> {
    match read_record_text(text) {
        RecordText::Read { value, cut: 0 } => Ok(value),
        RecordText::Read { value, cut } => {
            let marker = incomplete(&cut_reason(cut), cut);
            Ok(fit_record(&value, Some(marker)).0.into_owned())
        }
        RecordText::Unreadable(reason) => Err(reason),
    }
}

/// `record` as the log can hold it: when it nests deeper than [`MAX_LINE_DEPTH`], its deepest
/// containers cut ([`cut_deep`]) and the cut counted in its [`INCOMPLETE`] marker; `marker`
/// added when given (an object only: anything else is returned as it is). The flag says
/// whether anything was cut.
pub fn fit_record(record: &Value, marker: Option<Value>) -> (Cow<'_, Value>, bool) {
    let mut marker = marker;
    let mut owned = None;
    let cut = depth_of(record) > MAX_LINE_DEPTH;
    if cut {
        let (cut_record, count) = cut_deep(record, MAX_LINE_DEPTH);
        marker = Some(mark_cut(marker.as_ref(), count));
        owned = Some(cut_record);
    }
    if let Some(marker) = marker {
        if let Value::Object(fields) = owned.get_or_insert_with(|| record.clone()) {
            fields.insert(INCOMPLETE.into(), marker);
        }
    }
    let record = owned.map_or(Cow::Borrowed(record), Cow::Owned);
    (record, cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{write_json, KeyOrder};
    use serde_json::json;

    /// `[[[...1...]]]`, `depth` arrays deep.
    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn repairs_deep_text_and_lone_surrogates_and_nothing_else() {
        let p = format!("\"{CUT_PLACEHOLDER}\"");
        let cases: Vec<(String, usize, String, usize, usize)> = vec![
            // (text, max depth, expected, cut, surrogates)
            (
                r#"{"a":[1,{"b":2}]}"#.into(),
                3,
                r#"{"a":[1,{"b":2}]}"#.into(),
                0,
                0,
            ),
            (
                r#"{"a":[1,{"b":2}]}"#.into(),
                2,
                format!(r#"{{"a":[1,{p}]}}"#),
                1,
                0,
            ),
            (
                r#"{"a":[[1],[2]],"c":3}"#.into(),
                2,
                format!(r#"{{"a":[{p},{p}],"c":3}}"#),
                2,
                0,
            ),
            // Brackets and quotes inside strings are text.
            (
                r#"{"a":"[[{\"]"}"#.into(),
                1,
                r#"{"a":"[[{\"]"}"#.into(),
                0,
                0,
            ),
            (
                nested(200),
                127,
                format!("{}{p}{}", "[".repeat(127), "]".repeat(127)),
                1,
                0,
            ),
            (r#"["\ud83d"]"#.into(), 5, r#"["\ufffd"]"#.into(), 0, 1),
            (r#"["\udc00x"]"#.into(), 5, r#"["\ufffdx"]"#.into(), 0, 1),
            (
                r#"["\ud83d\ude00"]"#.into(),
                5,
                r#"["\ud83d\ude00"]"#.into(),
                0,
                0,
            ),
            (
                r#"["\ud83d\ud83d\ude00"]"#.into(),
                5,
                r#"["\ufffd\ud83d\ude00"]"#.into(),
                0,
                1,
            ),
            (r#"["\ud83d\n"]"#.into(), 5, r#"["\ufffd\n"]"#.into(), 0, 1),
            (r#"["\\ud83d"]"#.into(), 5, r#"["\\ud83d"]"#.into(), 0, 0),
            (r#"{"\ud83d":1}"#.into(), 5, r#"{"\ufffd":1}"#.into(), 0, 1),
            (r#"["é\u00e9"]"#.into(), 5, r#"["é\u00e9"]"#.into(), 0, 0),
            // A cut subtree takes its lone surrogates with it.
            (r#"[["\ud83d"]]"#.into(), 1, format!("[{p}]"), 1, 0),
        ];
        for (text, max, expected, cut, surrogates) in cases {
            let repaired = repair_json_text(&text, max);
            assert_eq!(repaired.text, expected, "{text}");
            assert_eq!(
                (repaired.cut, repaired.surrogates),
                (cut, surrogates),
                "{text}"
            );
            let value: Value = serde_json::from_str(&repaired.text).unwrap();
            let depth = write_json(&value, KeyOrder::AsHeld, &mut std::io::sink()).unwrap();
            assert!(depth <= max, "{text}: depth {depth}");
        }
    }

    #[test]
    fn text_at_any_depth_is_repaired_in_one_pass() {
        let text = format!("{{\"args\":{}}}", nested(1_000_000));
        let repaired = repair_json_text(&text, MAX_LINE_DEPTH);
        assert_eq!(repaired.cut, 1);
        let value: Value = serde_json::from_str(&repaired.text).unwrap();
        assert_eq!(
            write_json(&value, KeyOrder::AsHeld, &mut std::io::sink()).unwrap(),
            MAX_LINE_DEPTH
        );
    }

    #[test]
    fn cut_deep_matches_the_text_repair() {
        for depth in [1, 5, 126, 127, 128, 129, 140] {
            let mut deep = json!(1);
            for _ in 0..depth {
                deep = Value::Array(vec![deep]);
            }
            let value = json!({"a": deep, "b": [deep, 2]});
            let mut text = Vec::new();
            write_json(&value, KeyOrder::AsHeld, &mut text).unwrap();
            let repaired = repair_json_text(std::str::from_utf8(&text).unwrap(), MAX_LINE_DEPTH);
            let (cut_value, cut) = cut_deep(&value, MAX_LINE_DEPTH);
            assert_eq!(cut, repaired.cut, "depth {depth}");
            assert_eq!(
                cut_value,
                serde_json::from_str::<Value>(&repaired.text).unwrap(),
                "depth {depth}"
            );
        }
    }

    #[test]
    fn reads_record_text_whatever_it_holds() {
        let deep = format!("{{\"callId\":\"c\",\"args\":{}}}", nested(300));
        match read_record_text(&deep) {
            RecordText::Read { value, cut } => {
                assert_eq!(cut, 1);
                assert_eq!(value["callId"], "c");
            }
            other => panic!("{other:?}"),
        }
        match read_record_text(r#"{"callId":"c","text":"\ud83d"}"#) {
            RecordText::Read { value, cut } => {
                assert_eq!((value["text"].as_str(), cut), (Some("\u{fffd}"), 0));
            }
            other => panic!("{other:?}"),
        }
        match read_record_text(r#"{"callId":"c","n":1}"#) {
            RecordText::Read { value, cut } => {
                assert_eq!((value, cut), (json!({"callId": "c", "n": 1}), 0))
            }
            other => panic!("{other:?}"),
        }
        match read_record_text("{\"callId\":") {
            RecordText::Unreadable(reason) => assert!(reason.contains("not JSON"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}
