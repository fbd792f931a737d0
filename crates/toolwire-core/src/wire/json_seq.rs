//! Framing of response bodies that are JSON values rather than Server-Sent Events.
//!
//! Three shapes are met: Gemini without `alt=sse` streams one JSON array incrementally
//! (`[{...}\n,\r\n{...}\n]`, each element pretty-printed over many lines); some recorded bodies
//! are newline-delimited JSON (one value per line); a non-streaming response is one, possibly
//! pretty-printed, JSON object. [`JsonSeqFramer`] cuts all three into the texts of their
//! elements or values without parsing them: it only tracks nesting depth, whether it is inside
//! a string and whether the previous byte was a backslash escape.
//!
//! The framer is linear in its input (each byte is looked at once), keeps only the bytes of the
//! value being read (at most 64 MiB; a larger one is dropped and reported through
//! [`JsonSeqFramer::take_error`]) and panics on no input.

use std::mem;

use super::decode_error::DecodeErrorKind;
use crate::json_text::utf8_lossy;

/// Largest element or value, in bytes (64 MiB).
const MAX_VALUE: usize = 64 * 1024 * 1024;

/// Capacity above which the value buffer is freed rather than kept for reuse.
const KEEP_CAPACITY: usize = 1024 * 1024;

/// How the body is framed; decided by its first non-whitespace byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Nothing but whitespace seen yet.
    Start,
    /// The body is one array; its elements are emitted.
    Array,
    /// The array's closing `]` was seen; anything but whitespace after it is leftover.
    Closed,
    /// The body is a sequence of values separated by whitespace.
    Sequence,
}

/// What kind of value is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Between values.
    None,
    /// An object or array: complete when its depth returns to 0.
    Nested,
    /// A top-level string: complete at its closing quote.
    String,
    /// A number, a literal or stray text: complete at whitespace or a structural byte.
    Scalar,
    /// Text after the array's closing `]`: never complete, reported by `finish`.
    Trailing,
}

/// Incremental framer of a JSON array stream, a JSON sequence (NDJSON) or a single JSON value.
///
/// The mode is decided by the first non-whitespace byte: `[` means array mode (each top-level
/// element of the array is emitted, elements being separated by `,` and whitespace), anything
/// else means sequence mode (each top-level value is emitted, values being separated by
/// whitespace). Texts are emitted exactly as received, from the first byte of the value to its
/// last (lossily converted to UTF-8 once the value is complete, so a value may be split inside a
/// UTF-8 character across pushes).
///
/// Robustness rule of sequence mode: a line that begins with `{` at column 0 (right after a LF
/// or a CR) while a previous value is still open means that the previous value was truncated (a
/// broken NDJSON line). The previous text is emitted as it is, without its trailing whitespace
/// (the caller fails to parse it and reports it), and a new value starts at this `{`. Pretty
/// printed values never have `{` at column 0 except at top level, so this does not fire on them.
///
/// Stray bytes where a value should start (`}`, or `]` and `,` in sequence mode) are emitted as
/// values of their own, so the caller reports them rather than having them vanish. Commas are not
/// counted in array mode: `[1,,2]` gives `1` and `2`.
#[derive(Debug)]
pub struct JsonSeqFramer {
    mode: Mode,
    kind: Kind,
    /// Open `{` / `[` in the current value.
    depth: usize,
    in_string: bool,
    /// The previous byte, inside a string, was an escaping backslash.
    escape: bool,
    /// The next byte is at column 0 (start of body, or right after LF or CR).
    col0: bool,
    /// The bytes of the current value received in earlier pushes.
    buf: Vec<u8>,
    /// The current value grew past the limit: its bytes are not kept and it is not emitted.
    discarding: bool,
    error: Option<(DecodeErrorKind, String)>,
    /// Largest value, in bytes.
    limit: usize,
}

impl Default for JsonSeqFramer {
    fn default() -> Self {
        Self::new()
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn trim_end_ws(mut bytes: &[u8]) -> &[u8] {
    while let [rest @ .., last] = bytes {
        if !is_ws(*last) {
            break;
        }
        bytes = rest;
    }
    bytes
}

impl JsonSeqFramer {
    /// Creates a framer at the start of a body. Mode decided by the first non-whitespace byte: '[' = array mode, otherwise sequence mode.
    pub fn new() -> Self {
        Self {
            mode: Mode::Start,
            kind: Kind::None,
            depth: 0,
            in_string: false,
            escape: false,
            col0: true,
            buf: Vec::new(),
            discarding: false,
            error: None,
            limit: MAX_VALUE,
        }
    }

    /// Whether the body is one JSON array whose elements are the events (Gemini's stream).
    pub fn is_array(&self) -> bool {
        matches!(self.mode, Mode::Array | Mode::Closed)
    }

    /// Appends the text of each top-level element (array mode) or top-level value (sequence mode) completed by these bytes.
    ///
    /// A bare number or literal at the top level is complete only once the byte after it is
    /// seen; one that ends the body is returned by [`JsonSeqFramer::finish`] as leftover.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<String>) {
        // Start, within `bytes`, of the current value's bytes not yet copied into `buf`.
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let col0 = mem::replace(&mut self.col0, b == b'\n' || b == b'\r');
            match self.kind {
                Kind::None => {}
                Kind::Trailing => continue,
                Kind::Scalar => {
                    if !(is_ws(b) || matches!(b, b',' | b'[' | b']' | b'{' | b'}' | b'"')) {
                        continue;
                    }
                    self.complete(&bytes[start..i], false, out);
                    // `b` is not part of the scalar: handled below, between values.
                }
                Kind::Nested | Kind::String => {
                    if col0 && b == b'{' && self.mode == Mode::Sequence {
                        // A broken line: the open value was truncated. `b` starts a new one.
                        self.complete(&bytes[start..i], true, out);
                    } else {
                        if self.in_string {
                            if self.escape {
                                self.escape = false;
                            } else if b == b'\\' {
                                self.escape = true;
                            } else if b == b'"' {
                                self.in_string = false;
                                if self.kind == Kind::String {
                                    self.complete(&bytes[start..=i], false, out);
                                }
                            }
                        } else {
                            match b {
                                b'"' => self.in_string = true,
                                b'{' | b'[' => self.depth += 1,
                                b'}' | b']' => {
                                    self.depth = self.depth.saturating_sub(1);
                                    if self.depth == 0 {
                                        self.complete(&bytes[start..=i], false, out);
                                    }
                                }
                                _ => {}
                            }
                        }
                        continue;
                    }
                }
            }
            // Between values.
            if is_ws(b) {
                continue;
            }
            match self.mode {
                Mode::Start if b == b'[' => {
                    self.mode = Mode::Array;
                    continue;
                }
                Mode::Start => self.mode = Mode::Sequence,
                Mode::Array if b == b',' => continue,
                Mode::Array if b == b']' => {
                    self.mode = Mode::Closed;
                    continue;
                }
                Mode::Closed => {
                    start = i;
                    self.kind = Kind::Trailing;
                    continue;
                }
                Mode::Array | Mode::Sequence => {}
            }
            start = i;
            match b {
                b'{' | b'[' => {
                    self.kind = Kind::Nested;
                    self.depth = 1;
                }
                b'"' => {
                    self.kind = Kind::String;
                    self.in_string = true;
                }
                b'}' | b']' | b',' => {
                    // Stray structural byte: a value of its own, which the caller reports.
                    self.kind = Kind::Scalar;
                    self.complete(&bytes[i..=i], false, out);
                }
                _ => self.kind = Kind::Scalar,
            }
        }
        if self.kind != Kind::None {
            self.keep(&bytes[start..]);
        }
    }

    /// End of body: returns the leftover text of an unfinished value (if not only whitespace) so the caller can report it; after `]` anything but whitespace is reported as leftover too.
    ///
    /// The leftover is the text as received without its trailing whitespace; a bare number or
    /// literal ending the body is returned here too. An array body that ends after a complete
    /// element but before its `]` leaves no leftover but sets an error for
    /// [`JsonSeqFramer::take_error`]. The framer is then back at the start of a new body (a
    /// pending error is kept).
    pub fn finish(&mut self) -> Option<String> {
        let leftover = if self.kind == Kind::None || self.discarding {
            None
        } else {
            let text = trim_end_ws(&self.buf);
            (!text.is_empty()).then(|| utf8_lossy(text).into_owned())
        };
        if self.mode == Mode::Array && leftover.is_none() && !self.discarding {
            self.set_error(
                DecodeErrorKind::StreamTruncated,
                "JSON array body ended before its closing ']'".to_owned(),
            );
        }
        *self = Self {
            error: self.error.take(),
            limit: self.limit,
            ..Self::new()
        };
        leftover
    }

    /// Returns and clears the pending error: an element larger than 64 MiB (dropped, the rest of
    /// the body still framed), or an array body that ended without its `]`.
    pub fn take_error(&mut self) -> Option<(DecodeErrorKind, String)> {
        self.error.take()
    }

    fn set_error(&mut self, kind: DecodeErrorKind, message: String) {
        if self.error.is_none() {
            self.error = Some((kind, message));
        }
    }

    /// Keeps the bytes of the unfinished current value, within the limit.
    fn keep(&mut self, part: &[u8]) {
        if self.discarding {
            return;
        }
        if self.buf.len() + part.len() > self.limit {
            self.overflow();
        } else {
            self.buf.extend_from_slice(part);
        }
    }

    /// The current value went past the limit: drop it, keep framing.
    fn overflow(&mut self) {
        self.discarding = true;
        self.buf = Vec::new();
        let what = if self.kind == Kind::Trailing {
            "text after the JSON array"
        } else {
            "JSON value"
        };
        self.set_error(
            DecodeErrorKind::OversizedEvent,
            format!("{what} larger than {} bytes; dropped", self.limit),
        );
    }

    /// The current value ends with `tail`: emit it (unless dropped) and go between values.
    fn complete(&mut self, tail: &[u8], trim: bool, out: &mut Vec<String>) {
        if self.buf.is_empty() && !self.discarding && tail.len() <= self.limit {
            // The whole value arrived in this push: no copy into `buf`.
            let bytes = if trim { trim_end_ws(tail) } else { tail };
            out.push(utf8_lossy(bytes).into_owned());
        } else {
            self.keep(tail);
            if !self.discarding {
                let bytes = if trim {
                    trim_end_ws(&self.buf)
                } else {
                    &self.buf
                };
                out.push(utf8_lossy(bytes).into_owned());
            }
        }
        self.buf.clear();
        if self.buf.capacity() > KEEP_CAPACITY {
            self.buf = Vec::new();
        }
        self.discarding = false;
        self.kind = Kind::None;
        self.depth = 0;
        self.in_string = false;
        self.escape = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn frame_chunks(chunks: &[&[u8]]) -> (Vec<String>, Option<String>, Option<String>) {
        let mut framer = JsonSeqFramer::new();
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, &mut out);
        }
        let leftover = framer.finish();
        (
            out,
            leftover,
            framer.take_error().map(|(_, message)| message),
        )
    }

    fn frame(body: &str) -> (Vec<String>, Option<String>, Option<String>) {
        frame_chunks(&[body.as_bytes()])
    }

    const GEMINI: &str = "[{\n  \"candidates\": [\n    {\n      \"content\": {\n        \"parts\": [\n          {\n            \"text\": \"h\u{e9}llo {[\\\"x\\\"]}, \u{1F600}\"\n          }\n        ]\n      }\n    }\n  ]\n}\n,\r\n{\n  \"usageMetadata\": {\n    \"total\": 3\n  }\n}\n]";

    fn gemini_elements() -> Vec<String> {
        vec![
            "{\n  \"candidates\": [\n    {\n      \"content\": {\n        \"parts\": [\n          {\n            \"text\": \"h\u{e9}llo {[\\\"x\\\"]}, \u{1F600}\"\n          }\n        ]\n      }\n    }\n  ]\n}".to_owned(),
            "{\n  \"usageMetadata\": {\n    \"total\": 3\n  }\n}".to_owned(),
        ]
    }

    #[test]
    fn array_stream_gives_each_element_text() {
        assert_eq!(frame(GEMINI), (gemini_elements(), None, None));
    }

    #[test]
    fn array_stream_split_at_every_byte_equals_whole() {
        let body = GEMINI.as_bytes();
        for cut in 0..=body.len() {
            let got = frame_chunks(&[&body[..cut], &body[cut..]]);
            assert_eq!(got, (gemini_elements(), None, None), "cut {cut}");
        }
        let chunks: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(frame_chunks(&chunks), (gemini_elements(), None, None));
    }

    #[test]
    fn elements_parse_back_to_json() {
        for element in frame(GEMINI).0 {
            serde_json::from_str::<Value>(&element).expect("element is JSON");
        }
    }

    #[test]
    fn array_of_scalars_and_strings_gives_each_element() {
        let (out, leftover, error) = frame(" [1, -2.5e3 ,\"a,]\", true,null,[],{}] ");
        assert_eq!(out, ["1", "-2.5e3", "\"a,]\"", "true", "null", "[]", "{}"]);
        assert_eq!((leftover, error), (None, None));
    }

    #[test]
    fn empty_array_gives_nothing() {
        assert_eq!(frame("[]\n"), (vec![], None, None));
        assert_eq!(frame("  \r\n"), (vec![], None, None));
        assert_eq!(frame(""), (vec![], None, None));
    }

    #[test]
    fn ndjson_lines_give_one_value_each() {
        let body = "{\"a\":1}\n{\"b\":[1,2]}\r\n\n{\"c\":\"x\"}\n";
        let (out, leftover, error) = frame(body);
        assert_eq!(out, ["{\"a\":1}", "{\"b\":[1,2]}", "{\"c\":\"x\"}"]);
        assert_eq!((leftover, error), (None, None));
    }

    #[test]
    fn pretty_printed_single_object_is_one_value() {
        let value = serde_json::json!({"id": "x", "content": [{"type": "text", "text": "{\n}"}], "n": {"m": []}});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let (out, leftover, error) = frame(&format!("{text}\n"));
        assert_eq!(out, std::slice::from_ref(&text));
        assert_eq!((leftover, error), (None, None));
        // Without a trailing newline too.
        assert_eq!(frame(&text).0, [text]);
    }

    #[test]
    fn structural_characters_inside_strings_are_content() {
        let value = r#"{"s":"{ } [ ] , \" \\","t":"\\\\","u":"\\\"}"}"#;
        serde_json::from_str::<Value>(value).expect("test input is JSON");
        let body = format!("{value}\n{value}");
        assert_eq!(frame(&body).0, [value, value]);
        let array = format!("[{value},{value}]");
        assert_eq!(frame(&array).0, [value, value]);
    }

    #[test]
    fn top_level_strings_and_scalars_in_sequence_mode() {
        let (out, leftover, _) = frame("\"a b\" 1 true\n\"x\\\"y\"null\n42");
        assert_eq!(out, ["\"a b\"", "1", "true", "\"x\\\"y\"", "null"]);
        assert_eq!(leftover.as_deref(), Some("42"));
    }

    #[test]
    fn truncated_ndjson_line_is_emitted_before_the_next_line() {
        let (out, leftover, error) = frame("{\"a\":{\"b\":1}\n{\"c\":2}\n");
        assert_eq!(out, ["{\"a\":{\"b\":1}", "{\"c\":2}"]);
        assert_eq!((leftover, error), (None, None));
    }

    #[test]
    fn truncated_line_with_an_open_string_is_emitted_before_the_next_line() {
        let (out, _, _) = frame("{\"a\":\"unterminated\r\n{\"c\":2}");
        assert_eq!(out, ["{\"a\":\"unterminated", "{\"c\":2}"]);
    }

    #[test]
    fn indented_brace_does_not_trigger_the_truncation_rule() {
        let body = "{\n\"a\":\n  {\"b\": 1}\n}\n";
        assert_eq!(frame(body).0, ["{\n\"a\":\n  {\"b\": 1}\n}"]);
    }

    #[test]
    fn truncation_rule_does_not_apply_in_array_mode() {
        // In array mode a `{` at column 0 inside an element is just nesting.
        let body = "[{\"a\":\n{\"b\":1}}]";
        assert_eq!(frame(body).0, ["{\"a\":\n{\"b\":1}}"]);
    }

    #[test]
    fn utf8_character_split_across_pushes_is_kept_whole() {
        let body = "{\"t\":\"\u{1F600}\"}".as_bytes();
        for cut in 0..=body.len() {
            let (out, _, _) = frame_chunks(&[&body[..cut], &body[cut..]]);
            assert_eq!(out, ["{\"t\":\"\u{1F600}\"}"], "cut {cut}");
        }
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let (out, _, _) = frame_chunks(&[b"{\"t\":\"\xFF\"}\n"]);
        assert_eq!(out, ["{\"t\":\"\u{FFFD}\"}"]);
    }

    #[test]
    fn finish_returns_an_unfinished_value_as_leftover() {
        let (out, leftover, error) = frame("{\"a\":1}\n{\"b\":[1,  \n");
        assert_eq!(out, ["{\"a\":1}"]);
        assert_eq!(leftover.as_deref(), Some("{\"b\":[1,"));
        assert_eq!(error, None);
        let (out, leftover, _) = frame("[{\"a\":1},{\"b\"");
        assert_eq!(out, ["{\"a\":1}"]);
        assert_eq!(leftover.as_deref(), Some("{\"b\""));
    }

    #[test]
    fn text_after_the_closing_bracket_is_leftover() {
        let (out, leftover, error) = frame("[{\"a\":1}]\n  garbage {\n");
        assert_eq!(out, ["{\"a\":1}"]);
        assert_eq!(leftover.as_deref(), Some("garbage {"));
        assert_eq!(error, None);
        assert_eq!(frame("[1] \r\n\t").1, None);
    }

    #[test]
    fn array_ending_without_closing_bracket_is_an_error() {
        let (out, leftover, error) = frame("[{\"a\":1}\n,\r\n");
        assert_eq!(out, ["{\"a\":1}"]);
        assert_eq!(leftover, None);
        assert!(error.unwrap().contains("']'"));
    }

    #[test]
    fn stray_closing_bytes_are_emitted_as_values() {
        let (out, _, _) = frame("{\"a\":1}}\n]\n");
        assert_eq!(out, ["{\"a\":1}", "}", "]"]);
    }

    #[test]
    fn finish_resets_the_framer_for_a_new_body() {
        let mut framer = JsonSeqFramer::new();
        let mut out = Vec::new();
        framer.push(b"[1,", &mut out);
        assert!(framer.finish().is_none());
        assert!(framer.take_error().is_some());
        framer.push(b"{\"a\":1}", &mut out);
        assert_eq!(framer.finish(), None);
        assert_eq!(framer.take_error(), None);
        assert_eq!(out, ["1", "{\"a\":1}"]);
    }

    #[test]
    fn oversized_value_is_dropped_and_reported_and_framing_continues() {
        let mut framer = JsonSeqFramer {
            limit: 16,
            ..JsonSeqFramer::new()
        };
        let mut out = Vec::new();
        framer.push(b"[{\"a\":1},{\"big\":\"0123456789", &mut out);
        framer.push(b"0123456789\"},{\"b\":2}]", &mut out);
        assert_eq!(framer.finish(), None);
        assert_eq!(out, ["{\"a\":1}", "{\"b\":2}"]);
        let (kind, message) = framer.take_error().unwrap();
        assert_eq!(kind, DecodeErrorKind::OversizedEvent);
        assert!(message.contains("16 bytes"));
        assert_eq!(framer.take_error(), None);
    }

    #[test]
    fn oversized_value_arriving_whole_is_dropped() {
        let mut framer = JsonSeqFramer {
            limit: 8,
            ..JsonSeqFramer::new()
        };
        let mut out = Vec::new();
        framer.push(b"{\"a\":\"0123456789\"}\n{\"b\":2}\n", &mut out);
        assert_eq!(out, ["{\"b\":2}"]);
        assert!(framer.take_error().is_some());
    }

    #[test]
    fn deep_nesting_and_odd_bytes_do_not_panic() {
        let mut body = vec![b'['; 100_000];
        body.extend_from_slice(b"\xFF\x00\\\"]]]}}}");
        let mut framer = JsonSeqFramer::new();
        let mut out = Vec::new();
        framer.push(&body, &mut out);
        framer.push(&[b'}'; 10], &mut out);
        let _ = framer.finish();
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[{}\\[\\],\"\\\\: \n]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 24, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z{}\"\\\\]{0,4}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn split(body: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(body.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(body[start..cut].to_vec());
            start = cut;
        }
        chunks.push(body[start..].to_vec());
        chunks
    }

    fn texts(values: &[Value], pretty: &[bool]) -> Vec<String> {
        values
            .iter()
            .zip(pretty.iter().cycle())
            .map(|(v, &p)| {
                if p {
                    serde_json::to_string_pretty(v).unwrap()
                } else {
                    serde_json::to_string(v).unwrap()
                }
            })
            .collect()
    }

    proptest! {
        #[test]
        fn random_values_in_array_mode_split_anywhere_are_framed(
            values in proptest::collection::vec(json_value(), 0..6),
            pretty in proptest::collection::vec(any::<bool>(), 1..4),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let texts = texts(&values, &pretty);
            let body = format!("[{}\n]", texts.join("\n,\r\n"));
            let chunks = split(body.as_bytes(), &cuts);
            let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(frame_chunks(&chunks), (texts, None, None));
        }

        #[test]
        fn random_values_in_sequence_mode_split_anywhere_are_framed(
            values in proptest::collection::vec(json_value(), 1..6),
            pretty in proptest::collection::vec(any::<bool>(), 1..4),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            // A first value that is an array would switch to array mode: wrap it.
            let mut values = values;
            if values[0].is_array() {
                values[0] = serde_json::json!({ "wrapped": values[0].clone() });
            }
            let texts = texts(&values, &pretty);
            let body = format!("{}\n", texts.join("\n"));
            let chunks = split(body.as_bytes(), &cuts);
            let chunks: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(frame_chunks(&chunks), (texts, None, None));
        }
    }
}
