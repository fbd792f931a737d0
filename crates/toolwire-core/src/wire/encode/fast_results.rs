//! The quick reading of the results to encode: straight into typed fields, skipping every key the
//! encoders do not read (arguments, details, timestamps) without building it, instead of a
//! `serde_json::Value` tree of the whole result. It reads only input that is well-formed by
//! [`parse_results`](super::parse_results)'s rules and gives up (`None`) on anything else: a wrong
//! type, a missing id, an unknown block type, a repeated key. The exact reading then runs and
//! names what is wrong, so the errors are its own and the output is the same either way (a
//! property test holds the two readings equal).

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

use super::ResultInput;
use crate::envelope::ContentBlock;

/// The results of a JSON array, or `None` where the exact reading must decide.
pub(super) fn read_results(json: &str) -> Option<Vec<ResultInput>> {
    let results: Vec<QuickResult> = serde_json::from_str(json).ok()?;
    results.into_iter().map(QuickResult::into_input).collect()
}

/// One result's fields that the encoders read; `null` reads as absent, as in the exact reading.
#[derive(Deserialize)]
struct QuickResult {
    #[serde(rename = "callId")]
    call_id: Option<String>,
    #[serde(rename = "toolCallId")]
    tool_call_id: Option<String>,
    tool: Option<String>,
    #[serde(rename = "toolName")]
    tool_name: Option<String>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    ok: Option<bool>,
    status: Option<String>,
    content: Option<QuickContent>,
    error: Option<ErrorMessage>,
}

impl QuickResult {
    /// The result as the exact reading gives it, or `None` when that reading would refuse it.
    fn into_input(self) -> Option<ResultInput> {
        let call_id = self.call_id.or(self.tool_call_id)?;
        let tool = self.tool.or(self.tool_name)?;
        let is_error = match (self.is_error, self.ok, self.status) {
            (Some(is_error), _, _) => is_error,
            (None, Some(ok), _) => !ok,
            (None, None, Some(status)) => status != "ok",
            (None, None, None) => false,
        };
        let content = match self.content {
            None => Vec::new(),
            Some(QuickContent::Text(text)) => vec![ContentBlock::Text { text }],
            Some(QuickContent::Blocks(blocks)) => blocks
                .into_iter()
                .map(QuickBlock::into_block)
                .collect::<Option<Vec<_>>>()?,
        };
        let message = self.error.and_then(|e| e.0);
        Some(ResultInput {
            call_id,
            tool,
            content: super::parse::with_error_text(content, is_error, message.as_deref()),
            is_error,
        })
    }
}

/// `content`: a string (one text block) or an array of blocks.
enum QuickContent {
    Text(String),
    Blocks(Vec<QuickBlock>),
}

impl<'de> Deserialize<'de> for QuickContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = QuickContent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<QuickContent, E> {
                Ok(QuickContent::Text(text.to_owned()))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<QuickContent, E> {
                Ok(QuickContent::Text(text))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<QuickContent, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(QuickContent::Blocks(blocks))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// A content block's fields; which of them a block needs depends on its `type`.
#[derive(Deserialize)]
struct QuickBlock {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    data: Option<String>,
    #[serde(rename = "mimeType")]
    mime_type: Option<String>,
}

impl QuickBlock {
    /// The block, or `None` when its type is unknown or a field it needs is missing.
    fn into_block(self) -> Option<ContentBlock> {
        match self.kind.as_str() {
            "text" => Some(ContentBlock::Text { text: self.text? }),
            "image" => Some(ContentBlock::Image {
                data: self.data?,
                mime_type: self.mime_type?,
            }),
            _ => None,
        }
    }
}

/// The message the exact reading takes from `error`: the string itself, or an object's string
/// `message` (the last one, as a JSON object with a repeated key keeps); anything else has none.
struct ErrorMessage(Option<String>);

impl<'de> Deserialize<'de> for ErrorMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(MessageVisitor { in_object: true })
            .map(ErrorMessage)
    }
}

/// A string value, or `None` for any other JSON value (read and skipped): an error object's
/// `message`.
struct AnyString(Option<String>);

impl<'de> Deserialize<'de> for AnyString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(MessageVisitor { in_object: false })
            .map(AnyString)
    }
}

/// Reads any JSON value for the string it gives: itself when a string, and with `in_object` an
/// object's string `message`; `None` otherwise.
struct MessageVisitor {
    in_object: bool,
}

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, message: &str) -> Result<Option<String>, E> {
        Ok(Some(message.to_owned()))
    }
    fn visit_string<E: de::Error>(self, message: String) -> Result<Option<String>, E> {
        Ok(Some(message))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let mut message = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if self.in_object && key == "message" {
                message = map.next_value::<AnyString>()?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(message)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::read_results;
    use crate::wire::encode::parse::parse_results_exactly;

    /// A JSON text of any kind, as the values of a result's fields may be.
    fn any_json() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("3".to_owned()),
            Just("-1.5".to_owned()),
            Just("\"ok\"".to_owned()),
            Just("\"\"".to_owned()),
            Just("\"error\"".to_owned()),
            Just("\"caf\\u00e9 \\\"q\\\" \\n\"".to_owned()),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec((key(), inner), 0..4).prop_map(|pairs| object(&pairs)),
            ]
        })
    }

    /// The keys the encoders read, some they ignore, and the keys of blocks and errors.
    fn key() -> impl Strategy<Value = String> {
        let keys = super::super::RESULT_KEYS
            .iter()
            .copied()
            .chain([
                "args", "details", "type", "text", "data", "mimeType", "message", "code",
            ])
            .collect::<Vec<_>>();
        prop::sample::select(keys).prop_map(str::to_owned)
    }

    /// A JSON object of these pairs, in order (a repeated key stays repeated).
    fn object(pairs: &[(String, String)]) -> String {
        let fields: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        format!("{{{}}}", fields.join(","))
    }

    /// A content block: well-formed or not (a wrong type, a missing field, an extra key).
    fn block() -> impl Strategy<Value = String> {
        prop_oneof![
            any_json()
                .prop_map(|t| object(&[("type".into(), "\"text\"".into()), ("text".into(), t)])),
            (any_json(), any_json()).prop_map(|(d, m)| object(&[
                ("type".into(), "\"image\"".into()),
                ("data".into(), d),
                ("mimeType".into(), m),
            ])),
            prop::collection::vec((key(), any_json()), 0..4).prop_map(|pairs| object(&pairs)),
            Just(r#"{"type":"text","text":"a","extra":[1,{"x":2}]}"#.to_owned()),
            Just(r#"{"type":"image","data":"QUFB","mimeType":"image/png","text":7}"#.to_owned()),
        ]
    }

    /// A value for one field of a result: anything, or the shapes its field takes.
    fn field(key: &str) -> BoxedStrategy<String> {
        match key {
            "content" => prop_oneof![
                any_json(),
                prop::collection::vec(block(), 0..4).prop_map(|b| format!("[{}]", b.join(","))),
            ]
            .boxed(),
            "error" => prop_oneof![
                any_json(),
                (any_json(), any_json())
                    .prop_map(|(m, c)| object(&[("code".into(), c), ("message".into(), m)])),
            ]
            .boxed(),
            _ => any_json().boxed(),
        }
    }

    /// A result object of any of the keys with any values (repeated keys included).
    fn result() -> impl Strategy<Value = String> {
        prop::collection::vec(key(), 0..9).prop_flat_map(|keys| {
            let fields: Vec<BoxedStrategy<(String, String)>> = keys
                .into_iter()
                .map(|k| field(&k).prop_map(move |v| (k.clone(), v)).boxed())
                .collect();
            fields.prop_map(|pairs| object(&pairs))
        })
    }

    /// A well-formed content block (an unknown key beside its fields, of any value, included).
    fn good_block() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z \\u{e9}]{0,8}".prop_map(|t| format!(r#"{{"type":"text","text":"{t}"}}"#)),
            Just(r#"{"type":"image","data":"QUFB","mimeType":"image/png"}"#.to_owned()),
            any_json().prop_map(|v| format!(r#"{{"type":"text","text":"a","extra":{v}}}"#)),
        ]
    }

    /// A well-formed result as toolwire or pi-ai makes one.
    fn well_formed() -> impl Strategy<Value = String> {
        (
            "[a-z_0-9]{1,12}",
            prop::sample::select(vec!["callId", "toolCallId"]),
            prop::sample::select(vec!["tool", "toolName"]),
            prop::sample::select(vec![
                r#""ok":true,"status":"ok""#,
                r#""ok":false,"status":"error""#,
                r#""isError":true"#,
                r#""isError":false"#,
                r#""status":"timeout""#,
                "",
            ]),
            prop::collection::vec(good_block(), 0..3),
            prop::sample::select(vec![
                "",
                r#","error":{"code":"TIMEOUT","message":"too slow","retryable":true}"#,
                r#","error":"plain""#,
                r#","args":{"p":[1,2,{"q":null}]},"details":{"d":"x"},"startedAt":1,"durationMs":0.5"#,
            ]),
        )
            .prop_map(|(id, id_key, tool_key, flags, blocks, rest)| {
                let flags = if flags.is_empty() { String::new() } else { format!(",{flags}") };
                format!(
                    r#"{{"{id_key}":"{id}","{tool_key}":"t"{flags},"content":[{}]{rest}}}"#,
                    blocks.join(",")
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever the quick reading accepts, the exact reading reads the same.
        #[test]
        fn the_quick_reading_agrees_with_the_exact_one(results in prop::collection::vec(result(), 0..4)) {
            let json = format!("[{}]", results.join(","));
            if let Some(quick) = read_results(&json) {
                prop_assert_eq!(Ok(quick), parse_results_exactly(&json).map_err(|e| e.message), "{}", json);
            }
        }

        /// Well-formed results always take the quick reading, and it gives what the exact
        /// reading gives. (A known field of the wrong type, even one the block's type does not
        /// use, makes the quick reading give way: the exact one decides, by design.)
        #[test]
        fn well_formed_results_are_read_quickly(results in prop::collection::vec(well_formed(), 0..5)) {
            let json = format!("[{}]", results.join(","));
            let quick = read_results(&json);
            prop_assert!(quick.is_some(), "quick reading gave way on {}", json);
            prop_assert_eq!(Ok(quick.unwrap()), parse_results_exactly(&json).map_err(|e| e.message), "{}", json);
        }
    }

    /// The shapes toolwire's own results take are read quickly, not by the exact reading.
    #[test]
    fn toolwire_results_take_the_quick_reading() {
        for json in [
            r#"[{"callId":"c1","runId":"r","tool":"t0","args":{"p0":1},"attempt":1,"status":"ok","ok":true,"content":[{"type":"text","text":"ok"}],"startedAt":1,"endedAt":2,"durationMs":1}]"#,
            r#"[{"callId":"c2","tool":"t","status":"timeout","ok":false,"content":[],"error":{"code":"TIMEOUT","message":"too slow"}}]"#,
            r#"[{"role":"toolResult","toolCallId":"c3","toolName":"shot","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"details":null,"isError":false,"timestamp":5}]"#,
        ] {
            let quick = read_results(json).expect(json);
            assert_eq!(
                Ok(quick),
                parse_results_exactly(json).map_err(|e| e.message)
            );
        }
    }
}
