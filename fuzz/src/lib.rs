//! Helpers shared by the fuzz targets: the input header that chooses split points and decoder
//! options, JSON checks, and the decoder harness used by every `decode_*` target.
//!
//! Input layout of every target: a few header bytes, then the body. The header is padded with
//! zeros when the input is shorter, so every input is used. `fuzz/seed.sh` prepends a header of
//! zeros to the fixtures it copies into the corpus.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use toolwire_core::provider::{Provider, Wire};
use toolwire_core::wire::decoder::{parse_decoder_options, StreamDecoder};

/// Splits `data` into an `N`-byte header (zero-padded) and the body.
pub fn header<const N: usize>(data: &[u8]) -> ([u8; N], &[u8]) {
    let mut head = [0u8; N];
    let n = data.len().min(N);
    head[..n].copy_from_slice(&data[..n]);
    (head, &data[n..])
}

/// xorshift32: a tiny deterministic generator for split points.
struct Rng(u32);

impl Rng {
    fn new(seed: u8) -> Self {
        Rng((0x9E37_79B9 ^ u32::from(seed).wrapping_mul(0x0100_0193)) | 1)
    }

    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
}

/// The end offsets of the pieces `len` bytes are cut into (non-decreasing, the last is `len`;
/// empty pieces happen).
///
/// `seed` seeds the generator; `shape` bounds the piece length: its low 7 bits give a maximum
/// of 1 to 128 bytes, and its high bit multiplies that by 64 (few, large pieces). At most
/// `2 * len + 8` pieces are made; the rest of the input then goes in one piece.
pub fn cut_points(len: usize, seed: u8, shape: u8) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let max = (usize::from(shape & 0x7f) + 1) << if shape & 0x80 != 0 { 6 } else { 0 };
    let budget = 2 * len + 8;
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < len && cuts.len() + 1 < budget {
        at = (at + rng.next() as usize % (max + 1)).min(len);
        cuts.push(at);
    }
    if cuts.last() != Some(&len) {
        cuts.push(len);
    }
    cuts
}

/// `bytes` cut at [`cut_points`].
pub fn byte_pieces(bytes: &[u8], seed: u8, shape: u8) -> Vec<&[u8]> {
    let mut start = 0;
    cut_points(bytes.len(), seed, shape)
        .into_iter()
        .map(|end| {
            let piece = &bytes[start..end];
            start = end;
            piece
        })
        .collect()
}

/// `text` cut at [`cut_points`], each cut moved down to a char boundary.
pub fn str_pieces(text: &str, seed: u8, shape: u8) -> Vec<&str> {
    let mut start = 0;
    cut_points(text.len(), seed, shape)
        .into_iter()
        .map(|mut end| {
            while end > start && !text.is_char_boundary(end) {
                end -= 1;
            }
            let piece = &text[start..end];
            start = end;
            piece
        })
        .collect()
}

/// Whether `text` is one JSON text per the JSON grammar: serde_json's syntax-only pass, which
/// accepts numbers of any magnitude (JavaScript's `JSON.parse` reads `1e999` as `Infinity`),
/// any nesting depth, and unpaired `\u` surrogate escapes.
pub fn is_json(text: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(text).is_ok()
}

/// Panics unless `text` is one JSON text (see [`is_json`]).
pub fn assert_json(what: &str, text: &str) {
    if let Err(error) = serde_json::from_str::<IgnoredAny>(text) {
        panic!("{what} is not JSON ({error}): {text:?}");
    }
}

/// Whether `text` is one JSON text (through serde_json into a `Value`) in which no object has
/// the same key twice. Returns `None` when serde_json cannot build the `Value` (out-of-range
/// numbers, unpaired surrogates, nesting deeper than 128).
pub fn parse_without_duplicate_keys(text: &str) -> Option<(Value, bool)> {
    let value: Value = serde_json::from_str(text).ok()?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let unique = NoDuplicateKeys.deserialize(&mut deserializer).is_ok();
    Some((value, unique))
}

/// A seed that walks a JSON value and fails on a duplicated object key.
#[derive(Clone, Copy)]
struct NoDuplicateKeys;

impl<'de> DeserializeSeed<'de> for NoDuplicateKeys {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicateKeys {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key) {
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

/// Decoder options from one header byte, as the JavaScript side would pass them (0: defaults).
///
/// Bits 0-1: `partial` (0 default, 1 `none`, 2 `delta`, 3 `object`); bits 2-3:
/// `cumulativeArguments` (0 default, 1 `"auto"`, 2 `true`, 3 `false`); bit 4:
/// `decodeHtmlEntities: true`.
pub fn options_json(flags: u8) -> String {
    let mut members = Vec::new();
    match flags & 3 {
        1 => members.push(r#""partial":"none""#),
        2 => members.push(r#""partial":"delta""#),
        3 => members.push(r#""partial":"object""#),
        _ => {}
    }
    match (flags >> 2) & 3 {
        1 => members.push(r#""cumulativeArguments":"auto""#),
        2 => members.push(r#""cumulativeArguments":true"#),
        3 => members.push(r#""cumulativeArguments":false"#),
        _ => {}
    }
    if flags & 0x10 != 0 {
        members.push(r#""decodeHtmlEntities":true"#);
    }
    if members.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", members.join(","))
    }
}

/// A decoder for `wire` with the options of `flags` (see [`options_json`]).
pub fn new_decoder(wire: Wire, flags: u8) -> StreamDecoder {
    let options = parse_decoder_options(&options_json(flags))
        .unwrap_or_else(|e| panic!("options {:?} refused: {e:?}", options_json(flags)));
    Provider::of(wire).stream_decoder(options)
}

/// Feeds `pieces` to a fresh decoder, checking that every answer is JSON; returns the turn.
pub fn decode(wire: Wire, flags: u8, pieces: &[&[u8]]) -> String {
    let mut decoder = new_decoder(wire, flags);
    for piece in pieces {
        assert_json("push() events", &decoder.push(piece));
    }
    finish(&mut decoder)
}

/// Ends `decoder`, checking the turn, the closing events and that a second `finish` agrees.
pub fn finish(decoder: &mut StreamDecoder) -> String {
    let turn = decoder.finish();
    assert_json("finish() turn", &turn);
    assert_json("take_events() after finish()", &decoder.take_events());
    assert_eq!(decoder.finish(), turn, "a second finish() changed the turn");
    check_turn(&turn);
    turn
}

/// Invariants of an `AssembledTurn` that hold for any input.
pub fn check_turn(turn: &str) {
    // Turns holding numbers serde_json cannot represent are only checked as JSON text.
    let Ok(value) = serde_json::from_str::<Value>(turn) else {
        return;
    };
    let mut any_complete_client_call = false;
    for (list, client) in [("toolCalls", true), ("serverToolCalls", false)] {
        let calls = value[list]
            .as_array()
            .unwrap_or_else(|| panic!("turn without a {list} array: {turn}"));
        for (position, call) in calls.iter().enumerate() {
            assert_eq!(
                call["index"].as_u64(),
                Some(position as u64),
                "{list}[{position}] has the wrong index: {turn}"
            );
            assert!(call["id"].is_string(), "call without an id: {turn}");
            assert!(call["name"].is_string(), "call without a name: {turn}");
            let complete = call["complete"]
                .as_bool()
                .unwrap_or_else(|| panic!("call without complete: {turn}"));
            let arguments = call["arguments"]
                .as_str()
                .unwrap_or_else(|| panic!("call without arguments: {turn}"));
            if complete && call.get("kind").and_then(Value::as_str) != Some("custom") {
                assert!(
                    arguments.trim_start().starts_with('{') && is_json(arguments),
                    "a complete call's arguments are not one JSON object: {arguments:?}"
                );
                assert!(
                    call.get("error").is_none(),
                    "complete call with an error: {turn}"
                );
            }
            if !complete {
                assert!(
                    call.get("error").is_some(),
                    "incomplete call without an error: {turn}"
                );
            }
            any_complete_client_call |= client && complete;
        }
    }
    let stop = value["stopReason"]
        .as_str()
        .unwrap_or_else(|| panic!("turn without stopReason: {turn}"));
    assert!(
        matches!(stop, "stop" | "toolUse" | "length" | "error" | "aborted"),
        "unknown stopReason {stop:?}"
    );
    if stop == "toolUse" {
        assert!(
            any_complete_client_call,
            "toolUse without a complete call: {turn}"
        );
    }
    assert!(value["errors"].is_array(), "turn without errors: {turn}");
}

/// `turn` with every generated call id (`"id":"call_"` and 24 hex digits) blanked to
/// `"id":"call_"`: a call the provider sent without an id gets a fresh random one per decoder.
pub fn blank_generated_ids(turn: &str) -> String {
    const KEY: &str = "\"id\":\"call_";
    let mut out = String::with_capacity(turn.len());
    let mut rest = turn;
    while let Some(at) = rest.find(KEY) {
        let (before, after) = rest.split_at(at + KEY.len());
        out.push_str(before);
        rest = after;
        let hex = rest.as_bytes().iter().take(24);
        if rest.len() > 24
            && hex.clone().count() == 24
            && hex.clone().all(u8::is_ascii_hexdigit)
            && rest.as_bytes()[24] == b'"'
        {
            rest = &rest[24..];
        }
    }
    out.push_str(rest);
    out
}

/// `turn` with the quoted beginning of a body no wire understood (the error "the body is not a
/// response of the <wire> wire: ... it begins with ...") cut after "it begins with": events given
/// one by one are quoted side by side and counted without the newlines that separate them in
/// NDJSON bytes, so the quote and the byte count differ while the turn is the same.
pub fn blank_body_quotes(turn: &str) -> String {
    const BEGINS: &str = "it begins with ";
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(turn) else {
        return turn.to_string();
    };
    if let Some(errors) = value["errors"].as_array_mut() {
        for error in errors.iter_mut() {
            if let Some(text) = error.as_str() {
                if text.contains("is not a response of the") {
                    if let Some(at) = text.find(BEGINS) {
                        *error = serde_json::Value::from(&text[..at + BEGINS.len()]);
                    }
                }
            }
        }
    }
    value.to_string()
}

/// The whole check of a `decode_*` target: header `[options, seed, shape]`, then the body,
/// pushed whole and in pieces; both turns must agree once generated ids are blanked.
pub fn check_decoder(wire: Wire, data: &[u8]) {
    let ([flags, seed, shape], body) = header::<3>(data);
    let whole = decode(wire, flags, &[body]);
    let split = decode(wire, flags, &byte_pieces(body, seed, shape));
    let (whole, split) = (blank_generated_ids(&whole), blank_generated_ids(&split));
    assert!(
        whole == split,
        "the turn depends on the split points\n whole: {whole}\n split: {split}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_quotes_are_cut_after_their_lead_in_only() {
        let turn = r#"{"errors":["the body is not a response of the openai-chat wire: nothing in it was understood; it begins with \"{}{}\"… (9 bytes in all)","other"],"text":"it begins with x"}"#;
        let blanked: serde_json::Value = serde_json::from_str(&blank_body_quotes(turn)).unwrap();
        assert_eq!(
            blanked["errors"][0],
            "the body is not a response of the openai-chat wire: nothing in it was understood; it begins with "
        );
        assert_eq!(blanked["errors"][1], "other");
        assert_eq!(blanked["text"], "it begins with x");
    }

    #[test]
    fn pieces_cover_the_input() {
        let text = "aé😀b".repeat(10);
        for seed in 0..=255u8 {
            for shape in [0u8, 1, 7, 0x80, 0xff] {
                assert_eq!(str_pieces(&text, seed, shape).concat(), text);
                let bytes = text.as_bytes();
                assert_eq!(byte_pieces(bytes, seed, shape).concat(), bytes);
            }
        }
    }

    #[test]
    fn generated_ids_are_blanked() {
        let turn = r#"{"id":"call_0123456789abcdef01234567","x":"call_0123456789abcdef01234567","id":"call_1"}"#;
        assert_eq!(
            blank_generated_ids(turn),
            r#"{"id":"call_","x":"call_0123456789abcdef01234567","id":"call_1"}"#
        );
    }
}
