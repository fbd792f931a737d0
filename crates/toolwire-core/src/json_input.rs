//! JSON text entering the engine from outside (the JavaScript driver, a remote tool server, a
//! model), made safe to parse in one linear pass before any parser sees it:
//!
//! - escaped lone UTF-16 surrogates (`"\ud83d"`, what `JSON.stringify` writes for half an emoji
//!   and what `JSON.parse` accepts) become `\ufffd` (U+FFFD), as `String::from_utf16_lossy`
//!   would decode them; a valid escaped pair is kept;
//! - nesting deeper than [`MAX_VALUE_DEPTH`] arrays and objects is refused with [`TooDeep`],
//!   so no value that could reach serde_json's recursion limit (128) is ever parsed, and every
//!   envelope the engine wraps around an accepted value still parses and serializes.
//!
//! Text that needs no replacement is returned as is, without a copy. The pass does not validate
//! the text otherwise: what is not JSON is left for the parser to refuse.
//!
//! `JSON.parse` parity: a duplicate key keeps its last value (as serde_json's `Value` does); a
//! number literal no double holds (`1e400`, which `JSON.parse` reads as `Infinity`) cannot be
//! carried by JSON at all, so it is refused as [`InputError::OutOfRange`], naming the literal
//! and its JSON pointer; one that underflows (`1e-400`) is 0, as in `JSON.parse`.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

/// The deepest nesting of arrays and objects a value entering the engine may have: a tool's
/// result, a hook's answer, a call's arguments, a partial result, a plan, a RAP message. `{}`
/// and `[]` are depth 1, `{"a":[1]}` depth 2, a scalar depth 0. Well below serde_json's own
/// limit of 128, so that the envelopes built around a value (results, events, audit records)
/// stay parseable.
pub const MAX_VALUE_DEPTH: usize = 64;

// Below serde_json's recursion limit, with room for the envelopes around a value.
const _: () = assert!(MAX_VALUE_DEPTH + 32 < 128);

/// The text nests arrays and objects deeper than [`MAX_VALUE_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep;

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "it nests arrays and objects deeper than {MAX_VALUE_DEPTH} levels \
             (the limit on a value's depth, MAX_VALUE_DEPTH)"
        )
    }
}

impl std::error::Error for TooDeep {}

/// Why JSON text from outside could not become a value.
#[derive(Debug)]
pub enum InputError {
    /// Nested deeper than [`MAX_VALUE_DEPTH`]; refused before parsing.
    TooDeep,
    /// A number literal out of the range of a double (`JSON.parse` would read it as
    /// `Infinity`, which no JSON value holds).
    OutOfRange(OutOfRange),
    /// Not JSON.
    Invalid(serde_json::Error),
}

/// A number literal no double holds, and where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    /// The literal as written, cut to [`MAX_QUOTED_LITERAL`] bytes.
    pub literal: String,
    /// Its JSON pointer (`""` for the whole text, `/a/0` for the first item under `a`), cut to
    /// [`crate::quote::MAX_QUOTED_BYTES`] bytes.
    pub pointer: String,
}

/// The most of an out-of-range number literal quoted back, in bytes.
pub const MAX_QUOTED_LITERAL: usize = 64;

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.pointer.is_empty() {
            "the top level".to_owned()
        } else {
            format!("{:?}", self.pointer)
        };
        let infinity = if self.literal.starts_with('-') {
            "-Infinity"
        } else {
            "Infinity"
        };
        write!(
            f,
            "the number {} at {place} is out of range: no double holds it (JSON.parse reads it \
             as {infinity}, which JSON cannot carry)",
            self.literal
        )
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::TooDeep => TooDeep.fmt(f),
            InputError::OutOfRange(number) => number.fmt(f),
            InputError::Invalid(error) => write!(f, "it is not valid JSON ({error})"),
        }
    }
}

impl std::error::Error for InputError {}

impl From<TooDeep> for InputError {
    fn from(_: TooDeep) -> Self {
        InputError::TooDeep
    }
}

/// A value parsed from outside, and whether its text had lone surrogates replaced (so the value
/// differs from what the sender holds).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The value.
    pub value: Value,
    /// Some lone surrogate became U+FFFD.
    pub repaired: bool,
}

/// `text` with its escaped lone surrogates replaced by `\ufffd`, refused when it nests deeper
/// than [`MAX_VALUE_DEPTH`]. Borrowed when nothing was replaced.
pub fn prepare(text: &str) -> Result<Cow<'_, str>, TooDeep> {
    scan(text, MAX_VALUE_DEPTH)
}

/// `text` with its escaped lone surrogates replaced by `\ufffd`, whatever its depth: for
/// documents that are not one value (options, schemas, histories, audit records), which the
/// parser's own recursion limit bounds.
pub fn repair_surrogates(text: &str) -> Cow<'_, str> {
    // Most texts hold no `\u` escape at all: nothing to repair, found at memchr's speed.
    if memchr::memmem::find(text.as_bytes(), b"\\u").is_none() {
        return Cow::Borrowed(text);
    }
    match scan(text, usize::MAX) {
        Ok(text) => text,
        Err(TooDeep) => unreachable!("no text nests deeper than usize::MAX"),
    }
}

/// [`prepare`] for a text that wraps one value in `wrappers` levels of arrays or objects of
/// the engine's own (a description around a tool's value): the value inside still gets
/// [`MAX_VALUE_DEPTH`] levels.
pub fn prepare_wrapped(text: &str, wrappers: usize) -> Result<Cow<'_, str>, TooDeep> {
    scan(text, MAX_VALUE_DEPTH + wrappers)
}

/// The one pass behind [`prepare`], [`prepare_wrapped`] and [`repair_surrogates`].
fn scan(text: &str, max_depth: usize) -> Result<Cow<'_, str>, TooDeep> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut run_start = 0;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        if !in_string {
            match bytes[i] {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max_depth {
                        return Err(TooDeep);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
            continue;
        }
        // inside a string only a quote or a backslash matters: jump to the next one
        let Some(next) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
            break;
        };
        i += next;
        match bytes[i] {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'u') => match unit_at(bytes, i) {
                Some(0xD800..=0xDBFF) if matches!(unit_at(bytes, i + 6), Some(0xDC00..=0xDFFF)) => {
                    i += 12
                }
                Some(0xD800..=0xDFFF) => {
                    let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                    out.push_str(&text[run_start..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    run_start = i;
                }
                _ => i += 2,
            },
            // another escape (a backslash: memchr2 stops at nothing else)
            _ => i += 2,
        }
    }
    Ok(match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[run_start.min(text.len())..]);
            Cow::Owned(out)
        }
    })
}

/// Parses JSON text from outside after [`prepare`].
pub fn parse(text: &str) -> Result<Parsed, InputError> {
    parse_wrapped(text, 0)
}

/// Parses JSON text after [`prepare_wrapped`].
pub fn parse_wrapped(text: &str, wrappers: usize) -> Result<Parsed, InputError> {
    let prepared = prepare_wrapped(text, wrappers)?;
    let repaired = matches!(prepared, Cow::Owned(_));
    let value = serde_json::from_str(&prepared).map_err(|e| invalid(&prepared, e))?;
    Ok(Parsed { value, repaired })
}

/// Parses a JSON document from outside that is not one value of a call (a manifest, whose
/// schemas may nest deeper than [`MAX_VALUE_DEPTH`]) after [`repair_surrogates`]: serde_json's
/// own recursion limit bounds it, and a number no double holds is [`InputError::OutOfRange`].
pub fn parse_document(text: &str) -> Result<Value, InputError> {
    let repaired = repair_surrogates(text);
    serde_json::from_str(&repaired).map_err(|e| invalid(&repaired, e))
}

/// Parses JSON text from outside after [`prepare`], into any deserializable type.
pub fn parse_as<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, InputError> {
    let prepared = prepare(text)?;
    serde_json::from_str(&prepared).map_err(|e| invalid(&prepared, e))
}

/// The error for `text` the parser refused: [`InputError::OutOfRange`] naming the literal when
/// the parser stopped at a number no double holds, else [`InputError::Invalid`].
fn invalid(text: &str, error: serde_json::Error) -> InputError {
    if error.is_syntax() && error.to_string().starts_with("number out of range") {
        if let Some(number) = find_out_of_range(text) {
            return InputError::OutOfRange(number);
        }
    }
    InputError::Invalid(error)
}

/// One open array or object on the way to a value, for [`find_out_of_range`].
enum Frame {
    /// An array and the index of the item being read.
    Array(usize),
    /// An object, the key of the member being read, and whether a key comes next.
    Object {
        key: Option<String>,
        expect_key: bool,
    },
}

/// The first number literal in `text` that no double holds, with its JSON pointer: one linear
/// pass that reads keys and indices the way the parser does (run only after the parser
/// refused the text for such a number, so the text before it is JSON).
pub fn find_out_of_range(text: &str) -> Option<OutOfRange> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if let Some(Frame::Object {
                    key,
                    expect_key: expect @ true,
                }) = stack.last_mut()
                {
                    let raw = &text[i..end];
                    *key = Some(serde_json::from_str(raw).unwrap_or_else(|_| raw.to_owned()));
                    *expect = false;
                }
                i = end;
                continue;
            }
            b'{' => stack.push(Frame::Object {
                key: None,
                expect_key: true,
            }),
            b'[' => stack.push(Frame::Array(0)),
            b']' | b'}' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                None => {}
            },
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let literal = &text[start..i];
                if literal.parse::<f64>().is_ok_and(f64::is_infinite) {
                    return Some(OutOfRange {
                        literal: crate::quote::bounded_to(literal, MAX_QUOTED_LITERAL),
                        pointer: crate::quote::bounded(&pointer(&stack)),
                    });
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the JSON string starting at `start` (its opening quote), or the end of
/// `bytes` when it is not closed. Escapes are skipped whole, so `\"` does not close it.
pub fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The JSON pointer (RFC 6901) of the value the open frames lead to.
fn pointer(stack: &[Frame]) -> String {
    let mut out = String::new();
    for frame in stack {
        out.push('/');
        match frame {
            Frame::Array(index) => out.push_str(&index.to_string()),
            Frame::Object { key, .. } => out.push_str(
                &key.as_deref()
                    .unwrap_or("")
                    .replace('~', "~0")
                    .replace('/', "~1"),
            ),
        }
    }
    out
}

/// The UTF-16 code unit of the `\uXXXX` escape starting at `at` (the backslash), if there is one.
fn unit_at(bytes: &[u8], at: usize) -> Option<u16> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let mut unit = 0u16;
    for &digit in &escape[2..] {
        unit = unit << 4 | (char::from(digit).to_digit(16)? as u16);
    }
    Some(unit)
}

/// The deepest nesting of arrays and objects in `value` (0 for a scalar, 1 for `{}` or `[1]`),
/// found without recursion.
pub fn depth_of(value: &serde_json::Value) -> usize {
    let mut stack = vec![(value, 1)];
    let mut deepest = 0;
    while let Some((value, depth)) = stack.pop() {
        match value {
            serde_json::Value::Array(items) => {
                deepest = deepest.max(depth);
                stack.extend(items.iter().map(|item| (item, depth + 1)));
            }
            serde_json::Value::Object(map) => {
                deepest = deepest.max(depth);
                stack.extend(map.values().map(|item| (item, depth + 1)));
            }
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let cases: &[(&str, &str)] = &[
            (r#""\ud83d""#, r#""\ufffd""#),
            (r#""\uD83D""#, r#""\ufffd""#),
            (r#""\ude00""#, r#""\ufffd""#),
            (r#""a\ud83db""#, r#""a\ufffdb""#),
            (r#""\ud83d\ud83d""#, r#""\ufffd\ufffd""#),
            (r#""\ude00\ud83d""#, r#""\ufffd\ufffd""#),
            (r#""\ud83d\u0041""#, r#""\ufffd\u0041""#),
            (r#""\ud83d\n""#, r#""\ufffd\n""#),
            (r#"{"\ud800":"x"}"#, r#"{"\ufffd":"x"}"#),
            (r#"["\ud83d",1,"\udfff"]"#, r#"["\ufffd",1,"\ufffd"]"#),
            // the last unit of a text cut off mid-pair
            (r#""\ud83d"#, r#""\ufffd"#),
        ];
        for (input, expected) in cases {
            assert_eq!(prepare(input).unwrap(), *expected, "{input}");
        }
    }

    #[test]
    fn text_without_lone_surrogates_is_borrowed() {
        let cases = [
            r#""\ud83d\ude00""#,
            r#""\uD83D\uDE00""#,
            r#""😀""#,
            r#""\\ud83d""#,
            r#""\\\\ud83d""#,
            r#""\u0041\"\ud83d\ude00""#,
            r#"{"a":[1,2,{"b":null}]}"#,
            r#""\u12""#,
            r#""\"#,
            "",
            "not json at all \\ud83d",
        ];
        for input in cases {
            assert!(
                matches!(prepare(input), Ok(Cow::Borrowed(_))),
                "{input} was copied"
            );
        }
    }

    #[test]
    fn repairing_alone_ignores_depth() {
        let deep = format!("{}\"\\ud83d\"{}", "[".repeat(500), "]".repeat(500));
        let repaired = repair_surrogates(&deep);
        assert_eq!(repaired.matches("\\ufffd").count(), 1);
        assert!(matches!(prepare(&deep), Err(TooDeep)));
    }

    #[test]
    fn depth_is_refused_past_the_limit_only() {
        let nested = |depth: usize, open: &str, close: &str| {
            format!("{}{}", open.repeat(depth), close.repeat(depth))
        };
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let at_limit = if open == "[" {
                nested(MAX_VALUE_DEPTH, open, close)
            } else {
                format!(
                    "{}1{}",
                    open.repeat(MAX_VALUE_DEPTH),
                    close.repeat(MAX_VALUE_DEPTH)
                )
            };
            assert!(parse(&at_limit).is_ok(), "{open} at the limit");
            let over = format!("[{at_limit}]");
            assert_eq!(prepare(&over), Err(TooDeep), "{open} over the limit");
        }
        // brackets inside strings do not count
        let quoted = format!("\"{}\"", "[{".repeat(1000));
        assert!(parse(&quoted).is_ok());
        // siblings do not add up
        let wide = format!("[{}[]]", "[[[]]],".repeat(1000));
        assert!(parse(&wide).is_ok());
        // a million levels are refused early, without recursion
        let deep = "[".repeat(1_000_000);
        assert!(matches!(parse(&deep), Err(InputError::TooDeep)));
    }

    #[test]
    fn the_error_names_the_limit() {
        let message = InputError::TooDeep.to_string();
        assert!(message.contains(&MAX_VALUE_DEPTH.to_string()), "{message}");
        assert!(message.contains("MAX_VALUE_DEPTH"), "{message}");
    }

    #[test]
    fn parse_reports_whether_text_was_repaired() {
        let parsed = parse(r#"{"q":"\ud83d"}"#).unwrap();
        assert_eq!(parsed.value, json!({"q": "\u{FFFD}"}));
        assert!(parsed.repaired);
        let parsed = parse(r#"{"q":"\ud83d\ude00"}"#).unwrap();
        assert_eq!(parsed.value, json!({"q": "😀"}));
        assert!(!parsed.repaired);
        assert!(matches!(parse("{"), Err(InputError::Invalid(_))));
    }

    /// Numbers as `JSON.parse` reads them: in range (and underflowing to 0) they parse; out of
    /// range (`JSON.parse` gives ±Infinity, which no JSON value holds) they are refused naming
    /// the literal and its pointer, wherever they stand. Found by the attack review (a model
    /// argument `{"x":1e999}` was a bare "not valid JSON").
    #[test]
    fn numbers_out_of_range_are_named_with_their_pointer() {
        let huge_int = format!("1{}", "0".repeat(400));
        let accepted: &[(&str, Value)] = &[
            ("1e-400", json!(0.0)),
            ("-1e-400", json!(-0.0)),
            ("[1.7976931348623157e308]", json!([f64::MAX])),
            ("18446744073709551616", json!(18446744073709551616.0)),
            (r#"{"a":1,"a":2}"#, json!({"a": 2})),
            (r#"{"__proto__":{"x":1}}"#, json!({"__proto__": {"x": 1}})),
        ];
        for (text, want) in accepted {
            assert_eq!(&parse(text).unwrap().value, want, "{text}");
        }
        let refused: &[(&str, &str, &str)] = &[
            ("1e400", "1e400", ""),
            ("-1e400", "-1e400", ""),
            (r#"{"x":1e999}"#, "1e999", "/x"),
            (r#"{"x":[0,"1e999",{"y":-2E+400}]}"#, "-2E+400", "/x/2/y"),
            (&huge_int, &huge_int[..MAX_QUOTED_LITERAL], ""),
            (r#"{"a/b":{"t~":[1,1.8e308]}}"#, "1.8e308", "/a~1b/t~0/1"),
            (r#"{"\"k\\":{"s":"a,b[","n":1e400}}"#, "1e400", "/\"k\\/n"),
            (r#"{"\ud83d":1e400}"#, "1e400", "/\u{FFFD}"),
            (r#"{"a":1,"b":[1e400"#, "1e400", "/b/0"),
        ];
        for (text, literal, pointer) in refused {
            let Err(InputError::OutOfRange(number)) = parse(text) else {
                panic!("{text}: {:?}", parse(text))
            };
            assert!(number.literal.starts_with(literal), "{text}: {number:?}");
            assert!(
                number.literal.len() < MAX_QUOTED_LITERAL + 40,
                "{text}: bounded"
            );
            assert_eq!(number.pointer, *pointer, "{text}");
            let message = number.to_string();
            assert!(message.contains("out of range"), "{message}");
            let want = if literal.starts_with('-') {
                "-Infinity"
            } else {
                "Infinity"
            };
            assert!(message.contains(want), "{message}");
        }
        // a document (deeper than a value may be) says the same
        let deep = format!("{}1e400{}", "[".repeat(100), "]".repeat(100));
        let Err(InputError::OutOfRange(number)) = parse_document(&deep) else {
            panic!("a document with 1e400")
        };
        assert_eq!(number.pointer, "/0".repeat(100));
        assert!(parse_document(&deep.replace("1e400", "1")).is_ok());
        // parse_as says the same
        let error = parse_as::<Value>(r#"{"x":1e999}"#).unwrap_err();
        assert!(
            matches!(&error, InputError::OutOfRange(n) if n.pointer == "/x"),
            "{error}"
        );
    }

    /// A string of UTF-16 `units` as JSON.stringify writes it (lone surrogates escaped, pairs
    /// raw), or with every unit escaped when `escape_all`.
    fn stringify(units: &[u16], escape_all: bool) -> String {
        let mut out = String::from("\"");
        for decoded in char::decode_utf16(units.iter().copied()) {
            match decoded {
                Ok(c) if escape_all => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                Ok(c) => {
                    let mut buf = String::new();
                    crate::json_text::push_json_escaped(&mut buf, c.encode_utf8(&mut [0; 4]));
                    out.push_str(&buf);
                }
                Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
            }
        }
        out.push('"');
        out
    }

    /// Code units weighted towards surrogates and the characters JSON escapes.
    fn unit() -> impl Strategy<Value = u16> {
        prop_oneof![
            0xD800u16..=0xDBFF,
            0xDC00u16..=0xDFFF,
            Just(u16::from(b'"')),
            Just(u16::from(b'\\')),
            Just(u16::from(b'u')),
            0u16..0x80,
            any::<u16>(),
        ]
    }

    proptest! {
        #[test]
        fn any_utf16_string_parses_as_its_lossy_decoding(
            units in proptest::collection::vec(unit(), 0..40),
            escape_all in any::<bool>(),
        ) {
            let text = stringify(&units, escape_all);
            let parsed = parse(&text).unwrap();
            prop_assert_eq!(parsed.value, Value::String(String::from_utf16_lossy(&units)));
            let lone = char::decode_utf16(units.iter().copied()).any(|c| c.is_err());
            prop_assert_eq!(parsed.repaired, lone);
        }

        #[test]
        fn depth_is_measured_exactly(
            shape in proptest::collection::vec(any::<bool>(), 0..(MAX_VALUE_DEPTH + 8)),
            sibling in any::<bool>(),
        ) {
            // a path of arrays and objects, `shape.len()` deep, with scalar siblings
            let mut text = String::new();
            for &object in &shape {
                text.push_str(if object { "{\"k\":" } else { "[" });
            }
            text.push_str(if sibling { "\"]}[{\"" } else { "0" });
            for &object in shape.iter().rev() {
                text.push_str(if object { ",\"s\":1}" } else { ",1]" });
            }
            let result = parse(&text);
            if shape.len() <= MAX_VALUE_DEPTH {
                prop_assert!(result.is_ok(), "{} levels refused", shape.len());
            } else {
                prop_assert!(matches!(result, Err(InputError::TooDeep)));
            }
        }
    }
}
