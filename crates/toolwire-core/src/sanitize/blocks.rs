//! Content as the driver sends it for sanitization: a small JSON description of the blocks, the
//! strings beside it, and bytes that were never JavaScript strings.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::content::InputBlock;
use super::report::SanitizeReport;
use super::text::TextSource;
use super::values::scrub_value;
use super::{SanitizedBlock, Sanitizer};
use crate::content::ContentBlock;
use crate::error::{Error, ErrorCode, Result};
use crate::json_input;

/// One block of the description.
#[derive(Deserialize)]
#[serde(tag = "t")]
enum BlockRef {
    /// A whole string: `texts[i]`.
    #[serde(rename = "s")]
    Whole { i: usize },
    /// A long string's ends: `texts[h]` and `texts[e]`, and its length.
    #[serde(rename = "e")]
    Ends { h: usize, e: usize, n: u64 },
    /// Bytes: `buffers[i]`.
    #[serde(rename = "b")]
    Bytes { i: usize },
    /// A base64 image: data `texts[i]`, declared type `m`.
    #[serde(rename = "i")]
    Image { i: usize, m: String },
}

/// The description: `{ blocks: [...], details?: value, rest?: object }`.
#[derive(Deserialize)]
struct Description {
    blocks: Vec<BlockRef>,
    #[serde(default)]
    details: Option<Value>,
    /// For a tool's output ([`sanitize_output`]): the value's fields other than `content`;
    /// absent when the value was bare text or bytes.
    #[serde(default)]
    rest: Option<Map<String, Value>>,
}

/// Content as the driver sends it: the description's JSON text, and the strings and bytes its
/// blocks refer to by index.
#[derive(Clone, Copy)]
pub struct Described<'a> {
    /// `{ blocks, details?, rest? }` as JSON text.
    pub description: &'a str,
    /// The strings (whole texts, the ends of long ones, base64 image data).
    pub texts: &'a [String],
    /// The bytes (UTF-8 text that never became a JavaScript string).
    pub buffers: &'a [&'a [u8]],
}

/// Sanitizes described content (and scrubs `details`), returning the JSON text
/// `{ result: { content, details? }, report }` (what `sanitizeResult` returns). `MEDIA:` lines
/// stay text: standalone use trusts no tool.
pub fn sanitize_described(sanitizer: &Sanitizer, input: Described<'_>) -> Result<String> {
    let (described, content, mut report) = sanitize_blocks(sanitizer, input, false)?;
    let mut result = json!({ "content": content });
    if let Some(mut details) = described.details {
        if let Some(scanner) = sanitizer.scanner() {
            scrub_value(&mut details, scanner, &mut report.scrubbed);
        }
        result["details"] = details;
    }
    Ok(json!({ "result": result, "report": report }).to_string())
}

/// Sanitizes a tool's output for the runtime, returning the JSON text `[value, report]` that
/// the engine takes as a sanitized completion: the value rebuilt from `rest` (the description's
/// other fields of the value) and the sanitized content. Bare text or bytes (no `rest`) come back
/// as a string while the content is one text block. Secrets in `rest` are left to the engine,
/// which scrubs details and data of every result.
pub fn sanitize_output(
    sanitizer: &Sanitizer,
    input: Described<'_>,
    trusted_media: bool,
) -> Result<String> {
    let (described, mut content, report) = sanitize_blocks(sanitizer, input, trusted_media)?;
    let value = match described.rest {
        None if content.len() == 1 && matches!(content[0], ContentBlock::Text { .. }) => {
            match content.pop() {
                Some(ContentBlock::Text { text }) => Value::String(text),
                _ => unreachable!("checked to be one text block"),
            }
        }
        None => json!({ "content": content }),
        Some(mut rest) => {
            rest.insert("content".into(), json!(content));
            Value::Object(rest)
        }
    };
    Ok(json!([value, report]).to_string())
}

/// The blocks of a description, sanitized, with the description's other fields and the report.
fn sanitize_blocks(
    sanitizer: &Sanitizer,
    input: Described<'_>,
    trusted_media: bool,
) -> Result<(Description, Vec<ContentBlock>, SanitizeReport)> {
    let Described {
        description,
        texts,
        buffers,
    } = input;
    // `{ details, rest: { details, ... } }`: details one level down, and the tool's value (whose
    // own level is the result's envelope, see dispatch::protocol) two, each with the depth of
    // every value. Too deep is the tool's fault (its call ends LIMIT_EXCEEDED), never the
    // engine's.
    let too_deep = |too_deep: json_input::TooDeep| {
        Error::caller(
            ErrorCode::LimitExceeded,
            format!("the value cannot be used: {too_deep}"),
        )
    };
    let description = json_input::prepare_wrapped(description, 2).map_err(too_deep)?;
    let mut described: Description = serde_json::from_str(&description)
        .map_err(|e| Error::internal(format!("malformed content description: {e}")))?;
    if described
        .details
        .as_ref()
        .is_some_and(|details| crate::json_input::depth_of(details) > json_input::MAX_VALUE_DEPTH)
    {
        return Err(too_deep(json_input::TooDeep));
    }
    let text = |i: usize| {
        texts
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| Error::internal(format!("content description names text {i}")))
    };
    let blocks = described
        .blocks
        .iter()
        .map(|block| {
            Ok(match block {
                BlockRef::Whole { i } => InputBlock::Text(TextSource::Whole(text(*i)?)),
                BlockRef::Ends { h, e, n } => InputBlock::Text(TextSource::Ends {
                    head: text(*h)?,
                    tail: text(*e)?,
                    length: *n,
                }),
                BlockRef::Bytes { i } => {
                    let bytes = buffers.get(*i).ok_or_else(|| {
                        Error::internal(format!("content description names buffer {i}"))
                    })?;
                    InputBlock::Text(TextSource::Bytes(bytes))
                }
                BlockRef::Image { i, m } => InputBlock::Image {
                    data: text(*i)?,
                    mime_type: m,
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut report = SanitizeReport::default();
    let content: Vec<ContentBlock> = sanitizer
        .content(&blocks, trusted_media, &mut report)
        .into_iter()
        .map(SanitizedBlock::into_content)
        .collect();
    described.blocks = Vec::new();
    Ok((described, content, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::SanitizeOptions;

    /// A sanitizer keeping 200 characters of a result.
    fn small_budget() -> Sanitizer {
        Sanitizer::new(SanitizeOptions {
            max_result_chars: 200,
            ..SanitizeOptions::default()
        })
        .unwrap()
    }

    #[test]
    fn described_blocks_are_sanitized_in_order() {
        let sanitizer = small_budget();
        let texts = vec!["short".to_owned(), "h".repeat(5000), "t".repeat(5000)];
        let bytes = "b".repeat(10_000).into_bytes();
        let out = sanitize_described(
            &sanitizer,
            Described {
                description: r#"{"blocks":[{"t":"s","i":0},{"t":"e","h":1,"e":2,"n":100000},{"t":"b","i":0}],"details":{"a":1}}"#,
                texts: &texts,
                buffers: &[&bytes],
            },
        )
        .unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        let content = out["result"]["content"].as_array().unwrap();
        assert_eq!(content[0]["text"], "short");
        assert!(content[1]["text"]
            .as_str()
            .unwrap()
            .contains("characters cut"));
        assert!(content[2]["text"].as_str().unwrap().contains("bytes cut"));
        assert_eq!(out["result"]["details"], json!({"a": 1}));
        assert_eq!(out["report"]["truncated"].as_array().unwrap().len(), 2);
        let missing = Described {
            description: r#"{"blocks":[{"t":"s","i":9}]}"#,
            texts: &texts,
            buffers: &[],
        };
        assert!(sanitize_described(&sanitizer, missing).is_err());
    }

    #[test]
    fn a_tool_output_is_rebuilt_around_its_sanitized_content() {
        let sanitizer = small_budget();
        let bytes = "b".repeat(10_000).into_bytes();
        let output = |description: &str| -> Value {
            let input = Described {
                description,
                texts: &[],
                buffers: &[&bytes],
            };
            let out = sanitize_output(&sanitizer, input, false).unwrap();
            serde_json::from_str(&out).unwrap()
        };
        // Bare bytes come back as text, with the report beside them.
        let bare = output(r#"{"blocks":[{"t":"b","i":0}]}"#);
        assert!(bare[0].as_str().unwrap().contains("bytes cut"));
        assert_eq!(bare[1]["truncated"][0]["unit"], "bytes");
        // Two blocks of bare text stay content.
        let two = output(r#"{"blocks":[{"t":"b","i":0},{"t":"b","i":0}]}"#);
        assert_eq!(two[0]["content"].as_array().unwrap().len(), 2);
        // The value's other fields are kept around the new content.
        let object = output(r#"{"blocks":[{"t":"b","i":0}],"rest":{"details":{"exit":0}}}"#);
        assert_eq!(object[0]["details"], json!({"exit": 0}));
        assert_eq!(object[0]["content"][0]["type"], "text");
    }
}
