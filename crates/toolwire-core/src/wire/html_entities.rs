//! Decoding of tool-call arguments that a provider (Grok) sent HTML-entity-encoded.
//!
//! [`decode_entities`] decodes HTML character references in plain text; [`decode_entities_in_json`]
//! does it in JSON text so that the result is still JSON meaning what the model intended.
//!
//! A reference is decoded only in its strict, semicolon-terminated form: `&name;` for one of the
//! 2,125 named character references of the WHATWG HTML standard (the table comes from the
//! `html-escape` crate), `&#123;` (decimal) and `&#x7B;` / `&#X7B;` (hexadecimal). Anything
//! else, `&` alone, `&bogus;`, `&amp` without its `;`, `&#;`, is left as written: a bare `&` in
//! a URL query such as `?a=1&copy=2` must survive, which is why the legacy forms that browsers
//! accept without `;` are not decoded. A numeric reference to an invalid code point (0, a
//! surrogate, past U+10FFFF) becomes U+FFFD; other code points, control characters included,
//! are decoded as themselves (no Windows-1252 remapping of 0x80..=0x9F).
//!
//! Both functions are linear in the input and return [`Cow::Borrowed`] when nothing changed.

use crate::json_text::push_json_escaped;

use std::borrow::Cow;

use html_escape::NAMED_ENTITIES;

/// Length of the longest named reference in the table (`CounterClockwiseContourIntegral`).
const MAX_NAME_LEN: usize = 31;

/// Past the largest code point: numeric values are clamped here while their digits are read.
const TOO_LARGE: u32 = 0x11_0000;

/// What a reference decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decoded {
    /// A named reference: one or two characters.
    Named(&'static str),
    /// A numeric reference.
    Char(char),
}

impl Decoded {
    /// Appends the decoded text to `out`.
    fn push_to(self, out: &mut String) {
        match self {
            Decoded::Named(text) => out.push_str(text),
            Decoded::Char(c) => out.push(c),
        }
    }

    /// Appends the decoded text to `out` escaped as the content of a JSON string.
    fn push_json_escaped_to(self, out: &mut String) {
        let mut buf = [0u8; 4];
        let text = match self {
            Decoded::Named(text) => text,
            Decoded::Char(c) => &*c.encode_utf8(&mut buf),
        };
        push_json_escaped(out, text);
    }
}

/// Tries to decode the reference whose `&` is at `bytes[amp]`.
///
/// Returns what it decodes to and the index just past its `;`, or, when there is no valid
/// reference there, the index to resume scanning from (never past a `&`, `"` or `\`, since
/// only alphanumerics, `#` and `x` are skipped).
fn decode_at(bytes: &[u8], amp: usize) -> Result<(Decoded, usize), usize> {
    let mut i = amp + 1;
    if bytes.get(i) == Some(&b'#') {
        i += 1;
        let hex = matches!(bytes.get(i), Some(b'x' | b'X'));
        if hex {
            i += 1;
        }
        let digits_start = i;
        let mut value: u32 = 0;
        while let Some(&b) = bytes.get(i) {
            let digit = match (b as char).to_digit(if hex { 16 } else { 10 }) {
                Some(digit) => digit,
                None => break,
            };
            value = (value * if hex { 16 } else { 10 } + digit).min(TOO_LARGE);
            i += 1;
        }
        if i == digits_start || bytes.get(i) != Some(&b';') {
            return Err(i);
        }
        // 0, surrogates and values past U+10FFFF are not characters.
        let c = match value {
            0 => char::REPLACEMENT_CHARACTER,
            v => char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER),
        };
        return Ok((Decoded::Char(c), i + 1));
    }
    let name_start = i;
    while i - name_start <= MAX_NAME_LEN && bytes.get(i).is_some_and(u8::is_ascii_alphanumeric) {
        i += 1;
    }
    let name = &bytes[name_start..i];
    if name.is_empty() || name.len() > MAX_NAME_LEN || bytes.get(i) != Some(&b';') {
        return Err(i);
    }
    match NAMED_ENTITIES.binary_search_by(|(entry, _)| (*entry).cmp(name)) {
        Ok(index) => Ok((Decoded::Named(NAMED_ENTITIES[index].1), i + 1)),
        Err(_) => Err(i),
    }
}

/// Builds the output lazily: nothing is allocated until the first change.
struct Output<'a> {
    text: &'a str,
    out: Option<String>,
    /// `text[..copied]` is accounted for in `out`.
    copied: usize,
}

impl<'a> Output<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            out: None,
            copied: 0,
        }
    }

    /// Replaces `text[start..end]` by what `write` appends.
    fn replace(&mut self, start: usize, end: usize, write: impl FnOnce(&mut String)) {
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.text.len()));
        out.push_str(&self.text[self.copied..start]);
        write(out);
        self.copied = end;
    }

    fn finish(self) -> Cow<'a, str> {
        match self.out {
            None => Cow::Borrowed(self.text),
            Some(mut out) => {
                out.push_str(&self.text[self.copied..]);
                Cow::Owned(out)
            }
        }
    }
}

/// Decodes HTML character references in `text` (named, `&#123;`, `&#x7B;`), leaving unknown or malformed ones as written.
///
/// Returns [`Cow::Borrowed`] when `text` has no reference to decode.
pub fn decode_entities(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut output = Output::new(text);
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'&') {
        let amp = i + offset;
        match decode_at(bytes, amp) {
            Ok((decoded, end)) => {
                output.replace(amp, end, |out| decoded.push_to(out));
                i = end;
            }
            Err(resume) => i = resume,
        }
    }
    output.finish()
}

/// Decodes entities in JSON text so that the result is still JSON with the meaning the model intended.
///
/// If the raw text contains at least one literal `"`, its structure is raw JSON and entities
/// are content: they are decoded only inside string literals, and what they produce is escaped
/// for JSON (`&quot;` becomes `\"`, a decoded `\` becomes `\\`, control characters become
/// `\uXXXX`); text outside strings is left alone. If it contains no literal `"` (for instance
/// `{&quot;q&quot;:&quot;x&quot;}`, where the whole text was encoded, or `&#34;`-encoded text),
/// it has no string content to protect and everything is decoded plainly. Returns
/// [`Cow::Borrowed`] when nothing changed.
pub fn decode_entities_in_json(text: &str) -> Cow<'_, str> {
    if !text.contains('"') {
        return decode_entities(text);
    }
    let bytes = text.as_bytes();
    let mut output = Output::new(text);
    let mut in_string = false;
    let mut escape = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        if escape {
            escape = false;
            i += 1;
            continue;
        }
        match b {
            b'\\' => escape = true,
            b'"' => in_string = false,
            b'&' => match decode_at(bytes, i) {
                Ok((decoded, end)) => {
                    output.replace(i, end, |out| decoded.push_json_escaped_to(out));
                    i = end;
                    continue;
                }
                Err(resume) => {
                    i = resume;
                    continue;
                }
            },
            _ => {}
        }
        i += 1;
    }
    output.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The borrowed text, or `None` when the result was allocated.
    fn borrowed(cow: Cow<'_, str>) -> Option<&str> {
        match cow {
            Cow::Borrowed(text) => Some(text),
            Cow::Owned(_) => None,
        }
    }

    #[test]
    fn basic_entities_in_json_strings_are_decoded() {
        let decoded = decode_entities_in_json(r#"{"q":"a &lt; b &amp;&amp; c &gt; d"}"#);
        assert_eq!(decoded, r#"{"q":"a < b && c > d"}"#);
    }

    #[test]
    fn quot_inside_a_json_string_becomes_an_escaped_quote() {
        let decoded = decode_entities_in_json(r#"{"q":"say &quot;hi&quot;"}"#);
        assert_eq!(decoded, r#"{"q":"say \"hi\""}"#);
        let value: Value = serde_json::from_str(&decoded).expect("still JSON");
        assert_eq!(value["q"], "say \"hi\"");
    }

    #[test]
    fn wholly_encoded_json_is_decoded_plainly() {
        let decoded = decode_entities_in_json("{&quot;q&quot;:&quot;x&quot;}");
        assert_eq!(decoded, r#"{"q":"x"}"#);
        let decoded = decode_entities_in_json("{&#34;q&#x22;:[1,&quot;a &amp; b&quot;]}");
        assert_eq!(decoded, r#"{"q":[1,"a & b"]}"#);
    }

    #[test]
    fn backslash_and_control_characters_are_json_escaped_inside_strings() {
        let decoded = decode_entities_in_json(r#"{"p":"C:&#92;dir&#10;&Tab;x"}"#);
        assert_eq!(decoded, r#"{"p":"C:\\dir\n\tx"}"#);
        let value: Value = serde_json::from_str(&decoded).expect("still JSON");
        assert_eq!(value["p"], "C:\\dir\n\tx");
    }

    #[test]
    fn entities_outside_json_strings_are_left_alone() {
        let text = r#"{"a":"&lt;"} &amp; [1] &quot;"#;
        assert_eq!(
            decode_entities_in_json(text),
            r#"{"a":"<"} &amp; [1] &quot;"#
        );
    }

    #[test]
    fn escaped_quotes_in_json_strings_keep_string_tracking() {
        let text = r#"{"a":"x\"&amp;\\","b":"&gt;"}&lt;"#;
        assert_eq!(
            decode_entities_in_json(text),
            r#"{"a":"x\"&\\","b":">"}&lt;"#
        );
    }

    #[test]
    fn decimal_hex_and_named_references_decode_alike() {
        assert_eq!(decode_entities("&#60;&#x3C;&lt;"), "<<<");
        assert_eq!(decode_entities("&#X3c;&#0060;"), "<<");
    }

    #[test]
    fn named_entities_beyond_the_basic_five_are_decoded() {
        assert_eq!(
            decode_entities("caf&eacute;&nbsp;ok&hellip; &euro;&frac12;&NotNestedGreaterGreater;"),
            "caf\u{e9}\u{a0}ok\u{2026} \u{20ac}\u{bd}\u{2aa2}\u{338}"
        );
        assert_eq!(
            decode_entities("&CounterClockwiseContourIntegral;"),
            "\u{2233}"
        );
    }

    #[test]
    fn unknown_named_reference_is_kept() {
        assert_eq!(
            borrowed(decode_entities("a &bogus; b")),
            Some("a &bogus; b")
        );
        assert_eq!(decode_entities("&Amp;&AMP;"), "&Amp;&");
    }

    #[test]
    fn lone_and_malformed_ampersands_are_kept() {
        for text in [
            "&",
            "a & b",
            "&&",
            "&;",
            "&#;",
            "&#x;",
            "&#12",
            "&#x1g;",
            "&amp",
            "&lt &gt",
            "?a=1&copy=2",
            "&#-1;",
            "&# 1;",
            "&#x;&",
        ] {
            assert_eq!(borrowed(decode_entities(text)), Some(text));
        }
    }

    #[test]
    fn malformed_reference_does_not_hide_a_following_one() {
        assert_eq!(decode_entities("&amp&lt;"), "&amp<");
        assert_eq!(decode_entities("&#12&#x41;"), "&#12A");
        assert_eq!(decode_entities("&&amp;"), "&&");
        assert_eq!(
            decode_entities("&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa&lt;"),
            "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa<"
        );
    }

    #[test]
    fn invalid_code_points_become_replacement_characters() {
        assert_eq!(
            decode_entities("&#0;&#xD800;&#xDFFF;&#x110000;&#99999999999999999999;"),
            "\u{FFFD}".repeat(5)
        );
        assert_eq!(
            decode_entities("&#x10FFFF;&#x80;&#1;"),
            "\u{10FFFF}\u{80}\u{1}"
        );
    }

    #[test]
    fn unchanged_text_is_borrowed() {
        for text in ["", "plain", r#"{"q":"no entities"}"#, r#"{"q":1} &lt;"#] {
            assert_eq!(borrowed(decode_entities_in_json(text)), Some(text));
        }
        assert_eq!(
            borrowed(decode_entities("no entities &here")),
            Some("no entities &here")
        );
        assert_eq!(borrowed(decode_entities("&lt;")), None);
    }

    #[test]
    fn non_ascii_text_around_references_is_preserved() {
        assert_eq!(
            decode_entities("\u{e9}&amp;\u{1F600}&#x1F600;"),
            "\u{e9}&\u{1F600}\u{1F600}"
        );
        let json = "{\"k\":\"\u{e9}&lt;\u{1F600}\"}";
        assert_eq!(
            decode_entities_in_json(json),
            "{\"k\":\"\u{e9}<\u{1F600}\"}"
        );
    }

    #[test]
    fn entity_table_is_sorted_for_binary_search() {
        assert!(NAMED_ENTITIES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(NAMED_ENTITIES
            .iter()
            .all(|(name, _)| name.len() <= MAX_NAME_LEN));
        assert_eq!(NAMED_ENTITIES.len(), 2125);
    }

    proptest! {
        #[test]
        fn decoding_encoded_json_string_content_keeps_the_meaning(s in any::<String>()) {
            // Encode the content the way a provider might, then embed it in JSON.
            let encoded: String = s
                .chars()
                .map(|c| match c {
                    '&' => "&amp;".to_owned(),
                    '<' => "&lt;".to_owned(),
                    '"' => "&quot;".to_owned(),
                    '\\' => "&#92;".to_owned(),
                    c if (c as u32) < 0x20 => format!("&#x{:x};", c as u32),
                    c => c.to_string(),
                })
                .collect();
            let json = format!("{{\"q\":\"{encoded}\"}}");
            let decoded = decode_entities_in_json(&json);
            let value: Value = serde_json::from_str(&decoded).expect("decoded text is JSON");
            prop_assert_eq!(value["q"].as_str(), Some(s.as_str()));
        }

        #[test]
        fn arbitrary_text_never_panics_and_is_unchanged_without_ampersands(s in any::<String>()) {
            let plain = borrowed(decode_entities(&s));
            let json = borrowed(decode_entities_in_json(&s));
            if !s.contains('&') {
                prop_assert_eq!(plain, Some(s.as_str()));
                prop_assert_eq!(json, Some(s.as_str()));
            }
        }
    }
}
