//! What events, the UI and audit records may carry of a result: details reduced to the tool's
//! redaction allowlist (or withheld), image data replaced by its metadata, text cut shorter.

use serde_json::{Map, Value};

use crate::content::ShownBlock;
use crate::envelope::{ContentBlock, ToolResult};
use crate::sanitize::options::RedactionMode;
use crate::sanitize::text::{recut, utf16_len, BudgetUnit, Kept};

/// How a result's details reach events.
#[derive(Clone, Debug, PartialEq)]
pub enum DetailsView {
    /// As they are.
    Same,
    /// Only the allowed fields.
    Filtered(Value),
    /// Withheld: the tool declared no allowlist and redaction is strict (or its details are not
    /// an object its allowlist can select from).
    Withheld,
}

/// The details as events may carry them. `allow`: the tool's allowlist (`None`: it declared
/// none). Fields are named by top-level key or dotted path (`stats.lines`); `*` allows all.
pub fn details_view(details: &Value, allow: Option<&[String]>, mode: RedactionMode) -> DetailsView {
    let Some(allow) = allow else {
        return match mode {
            RedactionMode::Strict => DetailsView::Withheld,
            RedactionMode::Permissive => DetailsView::Same,
        };
    };
    if allow.iter().any(|field| field == "*") {
        return DetailsView::Same;
    }
    let Value::Object(source) = details else {
        return DetailsView::Withheld;
    };
    let mut kept = Map::new();
    for field in allow {
        select(source, field, &mut kept);
    }
    if kept == *source {
        DetailsView::Same
    } else {
        DetailsView::Filtered(Value::Object(kept))
    }
}

/// Puts what events may carry of a result's `field` (`details`, or `data`: the value a tool
/// returned as plain JSON, redacted the same way) into a view delta: the allowed fields under
/// `field`, or `<field>Withheld: true`; nothing when it passes as it is. Returns whether it was
/// withheld for want of an allowlist (the caller emits `redaction_failed`).
pub fn put_field_view(
    delta: &mut Map<String, Value>,
    field: &str,
    value: &Value,
    allow: Option<&[String]>,
    mode: RedactionMode,
) -> bool {
    match details_view(value, allow, mode) {
        DetailsView::Same => false,
        DetailsView::Filtered(kept) => {
            delta.insert(field.into(), kept);
            false
        }
        DetailsView::Withheld => {
            delta.insert(format!("{field}Withheld"), Value::Bool(true));
            allow.is_none()
        }
    }
}

/// Copies the field at dotted `path` of `source` into `out`, creating the objects on the way.
fn select(source: &Map<String, Value>, path: &str, out: &mut Map<String, Value>) {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let Some(value) = source.get(head) else {
        return;
    };
    match (rest, value) {
        (None, value) => {
            out.insert(head.to_owned(), value.clone());
        }
        (Some(rest), Value::Object(inner)) => {
            let entry = out
                .entry(head.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(entry) = entry {
                select(inner, rest, entry);
            }
        }
        _ => {}
    }
}

/// The content as events carry it: image data replaced by `{ mimeType, bytes, width, height,
/// omitted: true }` (sizes from the sanitizer's report where it has them), text longer than
/// `text_chars` cut. `None` when nothing changes.
pub fn content_view(
    content: &[ContentBlock],
    images: &[Value],
    text_chars: u64,
    head_ratio: f64,
) -> Option<Vec<Value>> {
    let changes = content.iter().any(|block| match block {
        ContentBlock::Text { text } => utf16_len(text) > text_chars,
        ContentBlock::Image { .. } => true,
    });
    if !changes {
        return None;
    }
    let blocks = content
        .iter()
        .enumerate()
        .map(|(index, block)| match block {
            ContentBlock::Text { text } if utf16_len(text) > text_chars => {
                let kept = Kept {
                    text: text.clone(),
                    unit: BudgetUnit::Utf16,
                    cut: None,
                    ansi: 0,
                };
                ShownBlock::Text {
                    text: recut(&kept, text_chars, head_ratio).text,
                }
            }
            ContentBlock::Text { text } => ShownBlock::Text { text: text.clone() },
            ContentBlock::Image { data, mime_type } => {
                let report = images
                    .iter()
                    .find(|image| image.get("block").and_then(Value::as_i64) == Some(index as i64));
                let size = |key: &str| report.and_then(|r| r.get(key)).and_then(Value::as_u64);
                ShownBlock::Image {
                    mime_type: mime_type.clone(),
                    bytes: base64_len(data) as u64,
                    width: size("width"),
                    height: size("height"),
                    omitted: true,
                }
            }
        })
        .map(|block| serde_json::to_value(block).unwrap_or(Value::Null))
        .collect();
    Some(blocks)
}

/// The decoded size of base64 data.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    (data.len() / 4 * 3 + (data.len() % 4).saturating_sub(1)).saturating_sub(padding)
}

/// The view of a result for events, as the fields that differ from the result: `content`,
/// `details`, `detailsWithheld: true`, `data`, `dataWithheld: true` and `args`. `None` when the view is the result itself.
/// The second value is whether details were withheld for want of an allowlist (the caller emits
/// `redaction_failed`).
pub fn result_view(
    result: &ToolResult,
    allow: Option<&[String]>,
    mode: RedactionMode,
    text_chars: u64,
    head_ratio: f64,
    args: Option<Value>,
) -> (Option<Value>, bool) {
    let mut delta = Map::new();
    let images = result
        .sanitization
        .as_ref()
        .map_or(&[][..], |report| report.images.as_slice());
    if let Some(content) = content_view(&result.content, images, text_chars, head_ratio) {
        delta.insert("content".into(), Value::Array(content));
    }
    let mut failed = false;
    for (field, value) in [("details", &result.details), ("data", &result.data)] {
        if let Some(value) = value {
            failed |= put_field_view(&mut delta, field, value, allow, mode);
        }
    }
    if let Some(args) = args {
        delta.insert("args".into(), args);
    }
    ((!delta.is_empty()).then_some(Value::Object(delta)), failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn allow(fields: &[&str]) -> Vec<String> {
        fields.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn allowlists_select_fields_and_paths() {
        let details = json!({"path": "/a", "token": "x", "stats": {"lines": 3, "raw": "y"}});
        assert_eq!(
            details_view(
                &details,
                Some(&allow(&["path", "stats.lines", "missing"])),
                RedactionMode::Strict
            ),
            DetailsView::Filtered(json!({"path": "/a", "stats": {"lines": 3}}))
        );
        assert_eq!(
            details_view(
                &details,
                Some(&allow(&["path", "token", "stats"])),
                RedactionMode::Strict
            ),
            DetailsView::Same
        );
        assert_eq!(
            details_view(&details, Some(&allow(&["*"])), RedactionMode::Strict),
            DetailsView::Same
        );
        assert_eq!(
            details_view(&json!([1]), Some(&allow(&["a"])), RedactionMode::Strict),
            DetailsView::Withheld
        );
    }

    #[test]
    fn no_allowlist_withholds_in_strict_mode_only() {
        let details = json!({"a": 1});
        assert_eq!(
            details_view(&details, None, RedactionMode::Strict),
            DetailsView::Withheld
        );
        assert_eq!(
            details_view(&details, None, RedactionMode::Permissive),
            DetailsView::Same
        );
    }

    #[test]
    fn details_and_data_are_redacted_alike() {
        // A tool returning a plain JSON value (its `data`) had it reach events and the audit log
        // whole under strict redaction, while the same value as `details` was withheld.
        let value = json!({"name": "Ada", "ssn": "078-05-1120"});
        let cases: &[(Option<&[&str]>, RedactionMode, Value, bool)] = &[
            (
                None,
                RedactionMode::Strict,
                json!({"{f}Withheld": true}),
                true,
            ),
            (None, RedactionMode::Permissive, Value::Null, false),
            (
                Some(&["name"]),
                RedactionMode::Strict,
                json!({"{f}": {"name": "Ada"}}),
                false,
            ),
            (Some(&["*"]), RedactionMode::Strict, Value::Null, false),
        ];
        for field in ["details", "data"] {
            for (allowed, mode, expected, failed) in cases {
                let mut result = ToolResult::ok("c".into(), "t".into(), Value::Null);
                match field {
                    "details" => result.details = Some(value.clone()),
                    _ => result.data = Some(value.clone()),
                }
                let allowed = allowed.map(allow);
                let (view, withheld) =
                    result_view(&result, allowed.as_deref(), *mode, 8000, 0.5, None);
                let expected: Value =
                    serde_json::from_str(&expected.to_string().replace("{f}", field)).unwrap();
                assert_eq!(
                    view.unwrap_or(Value::Null),
                    expected,
                    "{field} {allowed:?} {mode:?}"
                );
                assert_eq!(withheld, *failed, "{field} {allowed:?} {mode:?}");
            }
        }
    }

    #[test]
    fn images_become_metadata_and_long_text_is_cut() {
        let content = vec![
            ContentBlock::text("x".repeat(9000)),
            ContentBlock::Image {
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            },
            ContentBlock::text("short"),
        ];
        let images = vec![json!({"block": 1, "width": 4, "height": 3, "action": "kept"})];
        let view = content_view(&content, &images, 8000, 0.5).unwrap();
        assert!(utf16_len(view[0]["text"].as_str().unwrap()) <= 8000);
        assert!(view[0]["text"].as_str().unwrap().contains("characters cut"));
        assert_eq!(
            view[1],
            json!({"type": "image", "mimeType": "image/png", "bytes": 8, "width": 4, "height": 3, "omitted": true})
        );
        assert_eq!(view[2], json!({"type": "text", "text": "short"}));
        assert_eq!(
            content_view(&[ContentBlock::text("ok")], &[], 8000, 0.5),
            None
        );
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(base64_len(""), 0);
        assert_eq!(base64_len("QQ=="), 1);
        assert_eq!(base64_len("QUI="), 2);
        assert_eq!(base64_len("QUJD"), 3);
    }
}
