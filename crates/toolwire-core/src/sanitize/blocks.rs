//! Content as the driver sends it for sanitization: a small JSON description of the blocks, the
//! strings beside it, and bytes that were never JavaScript strings. Each block is a JSON array,
//! its code first ([`BlockCode`]), as [`super::layout`] declares; one that does not fit is
//! refused, naming it.

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

crate::codes! {
    /// The code each block of a description crosses as, its first element (layouts:
    /// [`super::layout`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum BlockCode {
        /// A whole string: text index.
        Whole = 0,
        /// A long string's two ends: head's text index, tail's text index, whole length.
        Ends = 1,
        /// UTF-8 bytes: buffer index.
        Bytes = 2,
        /// A base64 image: its data's text index, its declared MIME type.
        Image = 3,
    }
}

/// One block of the description, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BlockRef {
    /// A whole string: `texts[i]`.
    Whole { i: usize },
    /// A long string's ends: `texts[h]` and `texts[e]`, and its length.
    Ends { h: usize, e: usize, n: u64 },
    /// Bytes: `buffers[i]`.
    Bytes { i: usize },
    /// A base64 image: data `texts[i]`, declared type `m`.
    Image { i: usize, m: String },
}

/// The blocks of a description, each read through its layout; the first that does not fit is
/// refused, naming it (the driver wrote it wrong: an `INTERNAL_ERROR`).
pub(crate) fn parse_blocks(blocks: &[Value]) -> Result<Vec<BlockRef>> {
    blocks
        .iter()
        .enumerate()
        .map(|(n, block)| parse_block(n, block))
        .collect()
}

fn parse_block(n: usize, block: &Value) -> Result<BlockRef> {
    let refuse = |why: String| {
        Error::internal(format!(
            "content description: blocks[{n}] does not fit its layout: {why}"
        ))
    };
    if let Some(why) = super::layout::misfit(block) {
        return Err(refuse(why));
    }
    // It fits: an array of a known code, each element holding the JSON its layout declares.
    let items = block.as_array().map(Vec::as_slice).unwrap_or_default();
    let number = |at: usize| items.get(at).and_then(Value::as_u64);
    let index = |at: usize| {
        number(at)
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| refuse(format!("element {at} of {block} is no index")))
    };
    let code = number(0).and_then(BlockCode::from_code);
    Ok(match code {
        Some(BlockCode::Whole) => BlockRef::Whole { i: index(1)? },
        Some(BlockCode::Ends) => BlockRef::Ends {
            h: index(1)?,
            e: index(2)?,
            n: number(3).ok_or_else(|| refuse(format!("{block} has no length")))?,
        },
        Some(BlockCode::Bytes) => BlockRef::Bytes { i: index(1)? },
        Some(BlockCode::Image) => BlockRef::Image {
            i: index(1)?,
            m: items
                .get(2)
                .and_then(Value::as_str)
                .ok_or_else(|| refuse(format!("{block} has no MIME type")))?
                .to_owned(),
        },
        None => return Err(refuse(format!("{block} has no known code"))),
    })
}

/// The description: `{ blocks: [[code, ...], ...], details?: value, rest?: object }`.
#[derive(Deserialize)]
struct Description {
    blocks: Vec<Value>,
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
    /// `{ blocks, details?, rest? }` as JSON text (each block as [`super::layout`] declares).
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
    let parsed = parse_blocks(&described.blocks)?;
    let blocks = parsed
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
                description: r#"{"blocks":[[0,0],[1,1,2,100000],[2,0]],"details":{"a":1}}"#,
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
            description: r#"{"blocks":[[0,9]]}"#,
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
        let bare = output(r#"{"blocks":[[2,0]]}"#);
        assert!(bare[0].as_str().unwrap().contains("bytes cut"));
        assert_eq!(bare[1]["truncated"][0]["unit"], "bytes");
        // Two blocks of bare text stay content.
        let two = output(r#"{"blocks":[[2,0],[2,0]]}"#);
        assert_eq!(two[0]["content"].as_array().unwrap().len(), 2);
        // The value's other fields are kept around the new content.
        let object = output(r#"{"blocks":[[2,0]],"rest":{"details":{"exit":0}}}"#);
        assert_eq!(object[0]["details"], json!({"exit": 0}));
        assert_eq!(object[0]["content"][0]["type"], "text");
    }

    /// A block off its layout is refused as the driver's mistake, naming the block and why.
    #[test]
    fn a_block_that_does_not_fit_is_refused_naming_it() {
        let sanitizer = small_budget();
        let texts = vec!["short".to_owned()];
        let cases = [
            (
                r#"{"blocks":[[0,0],{"t":"s","i":0}]}"#,
                "blocks[1]",
                "not an array",
            ),
            (r#"{"blocks":[[9,0]]}"#, "blocks[0]", "no layout for code 9"),
            (r#"{"blocks":[[0]]}"#, "blocks[0]", "Whole: 0 elements"),
            (r#"{"blocks":[[0,-1]]}"#, "blocks[0]", "`text` holds -1"),
            (
                r#"{"blocks":[[1,0,0,1.5]]}"#,
                "blocks[0]",
                "`length` holds 1.5",
            ),
            (r#"{"blocks":[[3,0,7]]}"#, "blocks[0]", "`mimeType` holds 7"),
        ];
        for (description, at, why) in cases {
            let input = Described {
                description,
                texts: &texts,
                buffers: &[],
            };
            let error = sanitize_described(&sanitizer, input).unwrap_err();
            assert_eq!(error.code, ErrorCode::InternalError, "{description}");
            assert!(
                error.message.contains(at) && error.message.contains(why),
                "{description}: {}",
                error.message
            );
        }
    }
}
