//! Secrets scrubbed from a JSON value: every string and every object key, at any depth. This is
//! the one walker every value that leaves the engine goes through (a result's details, data and
//! error details, the arguments events and records show, partial results, audit records).
//!
//! The value is searched as its JSON text, the text a model reads of a tool's object return
//! (`JSON.stringify` of it, as serde_json writes it: compact, keys in order): the same finder
//! over the same text, so a secret is replaced in the value exactly where it is replaced in the
//! text. Each string's and key's place in the text is kept with its escapes, and what a secret
//! covers of each string it touches is replaced in that string (`[redacted:<kind>]` in each,
//! counted once). So a string is read with its surroundings: the key it is under
//! (`{"Authorization": "Bearer t"}`), the string before it (Node's `["Authorization", "Bearer
//! t"]`, HAR's `{"name": "X-Api-Key", "value": "t"}` and `{"value": "t", "name": ...}`), the
//! escapes the text spells it with (`=\r\n` of a mail body is `=\\r\\n` there: a soft line break
//! once read), and a secret spread over several strings (a private key's lines as an array).
//! Linear in the value: one text, one search, and each string's escapes walked once.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::json_text::push_json_escaped;
use crate::secrets::{redaction_label, SecretMatch, SecretScanner};

/// Replaces the secrets in every string and object key of `value`, counting them per kind;
/// returns whether anything changed. A key that becomes equal to another key of its object gets
/// a ` #2`, ` #3`, ... suffix, so no entry is lost.
pub fn scrub_value(
    value: &mut Value,
    scanner: &SecretScanner,
    scrubbed: &mut BTreeMap<String, u64>,
) -> bool {
    let parts = secret_parts(value, scanner, Some(scrubbed));
    if parts.is_empty() {
        return false;
    }
    let mut apply = Apply {
        parts: &parts,
        next: 0,
        index: 0,
    };
    apply.value(value);
    true
}

/// Whether any string or object key of `value` holds a secret.
pub fn has_secret(value: &Value, scanner: &SecretScanner) -> bool {
    !secret_parts(value, scanner, None).is_empty()
}

/// A value's JSON text and where each of its strings (keys and string values, in the order the
/// text holds them) is spelled there.
#[derive(Default)]
struct Spelling {
    text: String,
    strings: Vec<Spot>,
}

/// One string in the JSON text: its content's byte range (quotes excluded), whether it is an
/// object's key, and its escapes.
struct Spot {
    start: usize,
    end: usize,
    key: bool,
    /// Each escape's offset from `start` and length (`\n`: 2, `\u001b`: 6); each stands for one
    /// byte of the string.
    escapes: Vec<(usize, usize)>,
}

/// What one secret covers of one string: the string's index (in text order), the byte range
/// in the string itself, and the kind.
struct Part {
    string: usize,
    from: usize,
    to: usize,
    kind: Arc<str>,
}

impl Spelling {
    fn of(value: &Value) -> Spelling {
        let mut spelling = Spelling::default();
        spelling.write(value);
        spelling
    }

    fn write(&mut self, value: &Value) {
        match value {
            Value::String(text) => self.string(text, false),
            Value::Array(items) => {
                self.text.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        self.text.push(',');
                    }
                    self.write(item);
                }
                self.text.push(']');
            }
            Value::Object(map) => {
                self.text.push('{');
                for (index, (key, item)) in map.iter().enumerate() {
                    if index > 0 {
                        self.text.push(',');
                    }
                    self.string(key, true);
                    self.text.push(':');
                    self.write(item);
                }
                self.text.push('}');
            }
            scalar => self.text.push_str(&scalar.to_string()),
        }
    }

    fn string(&mut self, text: &str, key: bool) {
        self.text.push('"');
        let start = self.text.len();
        push_json_escaped(&mut self.text, text);
        let end = self.text.len();
        self.text.push('"');
        let mut escapes = Vec::new();
        if end - start > text.len() {
            let spelled = &self.text.as_bytes()[start..end];
            let mut at = 0;
            while let Some(found) = spelled[at..].iter().position(|&b| b == b'\\') {
                let offset = at + found;
                let len = if spelled.get(offset + 1) == Some(&b'u') {
                    6
                } else {
                    2
                };
                escapes.push((offset, len));
                at = offset + len;
            }
        }
        self.strings.push(Spot {
            start,
            end,
            key,
            escapes,
        });
    }
}

impl Spot {
    /// The offset in the string of the text's `at` (within the spot), counting the escapes
    /// before it from `*seen` on (advanced: asked in order, each escape is passed once). Inside
    /// an escape: its byte's start, or its end when `after`.
    fn decoded(&self, at: usize, after: bool, seen: &mut (usize, usize)) -> usize {
        let offset = at - self.start;
        let (index, saved) = seen;
        while let Some(&(escape, len)) = self.escapes.get(*index) {
            if escape + len > offset {
                if escape < offset {
                    return escape - *saved + usize::from(after);
                }
                break;
            }
            *saved += len - 1;
            *index += 1;
        }
        offset - *saved
    }
}

/// What the secrets of `value`'s JSON text cover of each string, in text order; each secret
/// that covers some is counted into `counts` once.
fn secret_parts(
    value: &Value,
    scanner: &SecretScanner,
    mut counts: Option<&mut BTreeMap<String, u64>>,
) -> Vec<Part> {
    let spelling = Spelling::of(value);
    let secrets = scanner.find(&spelling.text);
    let mut field_names = FieldNames::default();
    let mut parts = Vec::new();
    let mut first = 0;
    // Per string: the escapes already passed and the bytes they saved.
    let mut seen = (usize::MAX, (0, 0));
    for SecretMatch { start, end, kind } in secrets {
        while first < spelling.strings.len() && spelling.strings[first].end <= start {
            first += 1;
        }
        let mut covered = false;
        for (index, spot) in spelling.strings.iter().enumerate().skip(first) {
            if spot.start >= end {
                break;
            }
            if spot.key
                && start < spot.start
                && spot.end < end
                && field_names.is_field_name(&spelling, &spelling.text[spot.start..spot.end])
                && scanner
                    .find(&spelling.text[spot.start..spot.end])
                    .is_empty()
            {
                continue;
            }
            if seen.0 != index {
                seen = (index, (0, 0));
            }
            let from = spot.decoded(start.max(spot.start), false, &mut seen.1);
            let to = spot.decoded(end.min(spot.end), true, &mut seen.1);
            if from < to {
                covered = true;
                parts.push(Part {
                    string: index,
                    from,
                    to,
                    kind: Arc::clone(&kind),
                });
            }
        }
        if let (true, Some(counts)) = (covered, counts.as_deref_mut()) {
            *counts.entry(kind.to_string()).or_default() += 1;
        }
    }
    parts
}

/// How many objects of a value have each key, counted at the first question (a secret that
/// spans strings covers a key whole).
#[derive(Default)]
struct FieldNames<'t> {
    counts: Option<std::collections::HashMap<&'t str, usize>>,
}

impl<'t> FieldNames<'t> {
    /// Whether `key` (as spelled in the text) is a field name of records: a key of two objects
    /// or more. A secret spread over records (a private key's lines as `[{"line": 1, "text":
    /// ...}, ...]`) covers their field names whole; they are kept, not replaced (the object's
    /// keys stay `line` and `text`) unless one holds a secret of its own. A line used as a key
    /// is unique in its one object, and is replaced.
    fn is_field_name(&mut self, spelling: &'t Spelling, key: &str) -> bool {
        let counts = self.counts.get_or_insert_with(|| {
            let mut counts = std::collections::HashMap::new();
            for spot in spelling.strings.iter().filter(|spot| spot.key) {
                *counts
                    .entry(&spelling.text[spot.start..spot.end])
                    .or_default() += 1;
            }
            counts
        });
        counts.get(key).is_some_and(|&count| count >= 2)
    }
}

/// One walk over a value in its text's order, replacing the parts of each string.
struct Apply<'p> {
    parts: &'p [Part],
    /// The first part not applied yet.
    next: usize,
    /// The index of the next string met.
    index: usize,
}

impl Apply<'_> {
    fn value(&mut self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Some(replaced) = self.string(text) {
                    *text = replaced;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.value(item)),
            Value::Object(map) => self.object(map),
            _ => {}
        }
    }

    fn object(&mut self, map: &mut Map<String, Value>) {
        let mut renamed = Vec::new();
        for (position, (key, item)) in map.iter_mut().enumerate() {
            if let Some(replaced) = self.string(key) {
                renamed.push((position, replaced));
            }
            self.value(item);
        }
        if renamed.is_empty() {
            return;
        }
        let mut renamed = renamed.into_iter().peekable();
        let entries = std::mem::take(map);
        for (position, (key, item)) in entries.into_iter().enumerate() {
            let key = match renamed.next_if(|(at, _)| *at == position) {
                Some((_, replaced)) => replaced,
                None => key,
            };
            insert_unique(map, key, item);
        }
    }

    /// The next string met, with its parts replaced; `None` when it has none.
    fn string(&mut self, text: &str) -> Option<String> {
        let index = self.index;
        self.index += 1;
        let first = self.next;
        while self.parts.get(self.next).is_some_and(|p| p.string == index) {
            self.next += 1;
        }
        let parts = &self.parts[first..self.next];
        if parts.is_empty() {
            return None;
        }
        let mut replaced = String::with_capacity(text.len());
        let mut copied = 0;
        for part in parts {
            replaced.push_str(&text[copied..part.from]);
            replaced.push_str(&redaction_label(&part.kind));
            copied = part.to;
        }
        replaced.push_str(&text[copied..]);
        Some(replaced)
    }
}

/// Inserts `item` under `key`, or under `key #2`, `key #3`, ... when `key` is taken.
fn insert_unique(map: &mut Map<String, Value>, key: String, item: Value) {
    let key = if map.contains_key(&key) {
        (2..)
            .map(|n| format!("{key} #{n}"))
            .find(|candidate| !map.contains_key(candidate))
            .expect("a free suffix")
    } else {
        key
    };
    map.insert(key, item);
}

/// Replaces the secrets in the keys of `map` (not of the values inside it), keeping the order
/// of its entries; returns whether a key changed. A key that becomes equal to another key gets a
/// ` #2`, ` #3`, ... suffix, so no entry is lost.
pub fn scrub_keys(
    map: &mut Map<String, Value>,
    scanner: &SecretScanner,
    counts: &mut BTreeMap<String, u64>,
) -> bool {
    if map.keys().all(|key| scanner.find(key).is_empty()) {
        return false;
    }
    let entries = std::mem::take(map);
    for (key, item) in entries {
        let key = scanner.scrub(&key, counts).into_owned();
        insert_unique(map, key, item);
    }
    true
}

/// `text` with the secrets replaced that it holds as the value of `key` (`Bearer t` under
/// `Authorization`), or alone; `None` when it holds none.
pub fn scrub_keyed_text(
    key: &str,
    text: &str,
    scanner: &SecretScanner,
    counts: &mut BTreeMap<String, u64>,
) -> Option<String> {
    let context = format!("{key}: {text}");
    scanner.scrub_from(&context, context.len() - text.len(), counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn github() -> String {
        format!("ghp_{}", "a1B2c3D4".repeat(5))
    }

    #[test]
    fn keys_and_strings_are_scrubbed_at_any_depth_keeping_order() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let token = github();
        let mut value = json!({
            "plain": 1,
            token.clone(): {"nested": [token.clone(), {token.clone(): true}]},
            "last": "x",
        });
        assert!(has_secret(&value, &scanner));
        let mut counts = BTreeMap::new();
        assert!(scrub_value(&mut value, &scanner, &mut counts));
        assert_eq!(
            value,
            json!({
                "plain": 1,
                "[redacted:github-token]": {"nested": ["[redacted:github-token]", {"[redacted:github-token]": true}]},
                "last": "x",
            })
        );
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["plain", "[redacted:github-token]", "last"]);
        assert_eq!(counts["github-token"], 3);
        assert!(!has_secret(&value, &scanner));
    }

    #[test]
    fn keys_that_scrub_alike_keep_every_entry() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let other = format!("ghp_{}", "Z9y8X7w6".repeat(5));
        let mut value = json!({ github(): 1, other: 2, "[redacted:github-token] #2": 3 });
        scrub_value(&mut value, &scanner, &mut BTreeMap::new());
        let map = value.as_object().unwrap();
        assert_eq!(map.len(), 3);
        assert_eq!(map["[redacted:github-token]"], 1);
        assert_eq!(map["[redacted:github-token] #2"], 2);
        assert_eq!(map["[redacted:github-token] #2 #2"], 3);
    }

    #[test]
    fn a_value_is_searched_with_its_key_and_only_the_value_changes() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let cases = [
            (
                json!({"Authorization": "Bearer abcdefgh12345678"}),
                json!({"Authorization": "Bearer [redacted:bearer-token]"}),
            ),
            (
                json!({"headers": {"proxy-authorization": "bearer abcdefgh12345678"}}),
                json!({"headers": {"proxy-authorization": "bearer [redacted:bearer-token]"}}),
            ),
            // Without the key, a Bearer token is one by its scheme word (the user review's 9).
            (
                json!(["Bearer abcdefgh12345678"]),
                json!(["Bearer [redacted:bearer-token]"]),
            ),
            (
                json!({"author": "Jane Bearer"}),
                json!({"author": "Jane Bearer"}),
            ),
            // Header shapes whose name is not the value's own key: Go's http.Header
            // (`{"Authorization": ["Bearer t"]}`), Node's rawHeaders, HAR and Postman entries.
            (
                json!({"header": {"Authorization": ["Bearer abcdefgh12345678"]}}),
                json!({"header": {"Authorization": ["Bearer [redacted:bearer-token]"]}}),
            ),
            (
                json!({"rawHeaders": ["Host", "x", "Authorization", "Bearer abcdefgh12345678"]}),
                json!({"rawHeaders": ["Host", "x", "Authorization", "Bearer [redacted:bearer-token]"]}),
            ),
            (
                json!({"headers": [{"name": "X-Api-Key", "value": "abcdefgh12345678"}]}),
                json!({"headers": [{"name": "X-Api-Key", "value": "[redacted:credential-header]"}]}),
            ),
            (
                json!([{"key": "Cookie", "value": "sid=abcdefgh12345678", "type": "text"}]),
                json!([{"key": "Cookie", "value": "[redacted:credential-header]", "type": "text"}]),
            ),
            // The attack review's 15: `value` before `name` (HAR exports, headers written by
            // hand), and a field between them; the name under `name`, `key` or `header`.
            // The whole value, as in the value's JSON text.
            (
                json!([{"value": "Bearer abcdefgh12345678", "name": "Authorization"}]),
                json!([{"value": "[redacted:credential-header]", "name": "Authorization"}]),
            ),
            (
                json!({"value": "sid=0123456789abcdef", "type": "text", "key": "Cookie"}),
                json!({"value": "[redacted:credential-header]", "type": "text", "key": "Cookie"}),
            ),
            (
                json!({"Value": "abcdefgh12345678", "x": 1, "Header": "X-Api-Key"}),
                json!({"Value": "[redacted:credential-header]", "x": 1, "Header": "X-Api-Key"}),
            ),
            // Another field than `value` is not the header's.
            (
                json!({"comment": "abcdefgh12345678", "name": "X-Api-Key"}),
                json!({"comment": "abcdefgh12345678", "name": "X-Api-Key"}),
            ),
            // Only the string just before is context: a header two entries back is not.
            (
                json!(["X-Api-Key", "x", "abcdefgh12345678"]),
                json!(["X-Api-Key", "x", "abcdefgh12345678"]),
            ),
        ];
        for (mut value, expected) in cases {
            let input = value.clone();
            assert_eq!(has_secret(&input, &scanner), input != expected, "{input}");
            scrub_value(&mut value, &scanner, &mut BTreeMap::new());
            assert_eq!(value, expected, "{input}");
        }
    }

    /// The strings of a value go through the finder as the value's JSON text (what the model
    /// reads of a tool's object return): a secret is replaced in each string exactly where the
    /// text's scrub replaces it. (value, what must not survive, the kind)
    #[test]
    fn a_value_is_scrubbed_as_its_json_text_is() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let gh = github();
        let body = "MIIEowIBAAKCAQEAvN0aXZ4b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";
        let tail = "AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBq5v3Jd5sFqVf1a8cGkD1mN0Tu";
        let lines = json!([
            "-----BEGIN PRIVATE KEY-----",
            body,
            tail,
            "-----END PRIVATE KEY-----"
        ]);
        let cases: Vec<(Value, &str, &str)> = vec![
            // The attack review's 12: a quoted-printable soft break (raw CRLF in the string,
            // `=\r\n` escaped in the text) inside a token in a mail body.
            (
                json!({"subject": "CI", "body": format!("token: {}=\r\n{}", &gh[..20], &gh[20..])}),
                &gh[20..],
                "github-token",
            ),
            (
                json!({"body": format!("token: {}=\n{}", &gh[..20], &gh[20..])}),
                &gh[20..],
                "github-token",
            ),
            // The attack review's 13: a key's lines as an array, at any depth.
            (
                json!({"file": "id.pem", "lines": lines.clone()}),
                &body[10..40],
                "private-key",
            ),
            (
                json!([{"x": {"lines": lines.clone()}}]),
                &tail[10..40],
                "private-key",
            ),
            // A secret after escapes of the text, and spread over a key and a value.
            (
                json!({"out": format!("a\"\\\t\u{1}{gh}")}),
                &gh[4..30],
                "github-token",
            ),
            (
                json!({"Authorization": "Bearer\tabcdefgh12345678"}),
                "abcdefgh12345678",
                "bearer-token",
            ),
            (json!({format!("k\n{gh}"): 1}), &gh[4..30], "github-token"),
        ];
        for (value, material, kind) in cases {
            let text = value.to_string();
            let mut text_counts = BTreeMap::new();
            let scrubbed_text = scanner.scrub(&text, &mut text_counts).into_owned();
            assert!(
                !scrubbed_text.contains(material),
                "text of {value}: {scrubbed_text}"
            );
            assert!(has_secret(&value, &scanner), "{value}");
            let mut scrubbed = value.clone();
            let mut counts = BTreeMap::new();
            assert!(scrub_value(&mut scrubbed, &scanner, &mut counts), "{value}");
            let data = scrubbed.to_string();
            assert!(!data.contains(material), "{value} -> {data}");
            assert!(
                data.contains(&format!("[redacted:{kind}]")),
                "{value} -> {data}"
            );
            assert_eq!(counts, text_counts, "{value}");
            assert!(!has_secret(&scrubbed, &scanner), "{data}");
            // A secret inside one string: the value's text is the text's scrub.
            if !matches!(kind, "private-key") {
                assert_eq!(data, scrubbed_text, "{value}");
            }
        }
        // The lines keep their places: each touched string holds the label.
        let mut value = json!({"lines": lines});
        scrub_value(&mut value, &scanner, &mut BTreeMap::new());
        assert_eq!(value, json!({"lines": vec!["[redacted:private-key]"; 4]}));
    }

    /// A private key spread over line records (`[{line, text}]` of read_file tools, pairs of
    /// other names, 2 records or many): every record keeps its keys, each `text` holds the label;
    /// a key that is a line (unique in its object) or holds a secret of its own is replaced.
    #[test]
    fn a_secret_spread_over_records_keeps_the_records_keys() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let body = "MIIEowIBAAKCAQEAvN0aXZ4b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";
        let pem = [
            "-----BEGIN PRIVATE KEY-----",
            body,
            "AAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBq5v3Jd5sFqVf1a8cGkD1mN0Tu",
            "-----END PRIVATE KEY-----",
        ];
        for (line_key, text_key, count) in [
            ("line", "text", 4),
            ("lineNumber", "content", 4),
            ("n", "value", 2),
        ] {
            let records: Vec<Value> = pem[..count]
                .iter()
                .enumerate()
                .map(|(n, line)| json!({ line_key: n + 1, text_key: line }))
                .collect();
            let mut value = json!({ "path": "id_rsa", "lines": records });
            let mut counts = BTreeMap::new();
            assert!(scrub_value(&mut value, &scanner, &mut counts));
            let lines = value["lines"].as_array().unwrap();
            for (n, record) in lines.iter().enumerate() {
                let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
                assert_eq!(keys, [line_key, text_key], "{value}");
                assert_eq!(record[line_key], json!(n + 1), "{value}");
                assert_eq!(record[text_key], json!("[redacted:private-key]"), "{value}");
            }
            assert_eq!(counts.get("private-key"), Some(&1), "{value}");
        }
        // The lines as the keys of one object: each is a line, replaced.
        let mut value = json!({ pem[0]: 1, body: 2, pem[3]: 3 });
        scrub_value(&mut value, &scanner, &mut BTreeMap::new());
        assert!(!value.to_string().contains(&body[10..40]), "{value}");
    }
}
