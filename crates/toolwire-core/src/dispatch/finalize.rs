//! The finalize stage's sanitization: results bounded and scrubbed for the model, views for the
//! events, and the batch's shared text budget.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::dispatch::view::{content_view, put_field_view, result_view};
use crate::envelope::{ContentBlock, ToolResult};
use crate::output::{OutputShape, ToolOutcome};
use crate::registry::ToolSpec;
use crate::sanitize::content::water_fill;
use crate::sanitize::joined::holds_secret_across;
use crate::sanitize::report::{CutScope, Truncation};
use crate::sanitize::text::{keep_text, recut, utf16_len, TextSource};
use crate::sanitize::values::{has_secret, scrub_keyed_text, scrub_keys, scrub_value};
use crate::sanitize::{InputBlock, ResultRules, SanitizedBlock};

use super::{BatchText, CallRequest};

/// Sanitizes a result in place: content for the model (unless the driver already did, off the
/// JavaScript thread), the error (see [`sanitize_error`]), and secrets in details, data and the
/// paths of effects. What changed is
/// added to `result.sanitization`.
pub(super) fn sanitize_result(rules: &ResultRules, result: &mut ToolResult, content_done: bool) {
    let sanitizer = &rules.sanitizer;
    let mut report = result.sanitization.take().unwrap_or_default();
    if !content_done {
        let blocks: Vec<InputBlock<'_>> = result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text } => InputBlock::Text(TextSource::Whole(text)),
                ContentBlock::Image { data, mime_type } => InputBlock::Image { data, mime_type },
            })
            .collect();
        let content = sanitizer.content(&blocks, false, &mut report);
        result.content = content
            .into_iter()
            .map(SanitizedBlock::into_content)
            .collect();
    }
    if let Some(scanner) = sanitizer.scanner() {
        for value in [&mut result.details, &mut result.data]
            .into_iter()
            .flatten()
        {
            scrub_value(value, scanner, &mut report.scrubbed);
        }
        if let Some(effects) = &mut result.effects {
            let renamed = effects
                .renamed
                .iter_mut()
                .flat_map(|r| [&mut r.from, &mut r.to]);
            for path in [
                &mut effects.created,
                &mut effects.modified,
                &mut effects.deleted,
            ]
            .into_iter()
            .flatten()
            .chain(renamed)
            {
                if let Some(scrubbed) = scanner.scrub_from(path, 0, &mut report.scrubbed) {
                    *path = scrubbed;
                }
            }
        }
    }
    result.sanitization = (!report.is_empty()).then_some(report);
    sanitize_error(rules, result);
}

/// Sanitizes a result's error: its message bounded and scrubbed, its details scrubbed (keys
/// included). Every result passes here as it leaves dispatch, also when its output was
/// sanitized before a hook failed and replaced it with an error (the hook's message is the
/// hook's text, and may quote anything).
pub(super) fn sanitize_error(rules: &ResultRules, result: &mut ToolResult) {
    let Some(error) = &mut result.error else {
        return;
    };
    let sanitizer = &rules.sanitizer;
    let mut report = result.sanitization.take().unwrap_or_default();
    // A failed result's content is its message (`ToolResult::fail`): it changes with it.
    let echoed = matches!(result.content.as_slice(), [ContentBlock::Text { text }] if *text == error.message);
    error.message = sanitizer.message(&error.message, &mut report);
    if echoed {
        result.content = vec![ContentBlock::text(error.message.clone())];
    }
    if let (Some(scanner), Some(details)) = (sanitizer.scanner(), &mut error.details) {
        scrub_value(details, scanner, &mut report.scrubbed);
    }
    result.sanitization = (!report.is_empty()).then_some(report);
}

/// Whether a successful tool value passes sanitization unchanged, checked without building
/// anything: its text is within the budget, holds no secret and (when they are stripped) no
/// escape sequence, it has no image to check, and its details hold no secret. `json_text`: the
/// value's JSON text for [`OutputShape::Json`]. Returns the text's length in UTF-16 units when
/// it passes.
pub(super) fn passes_unchanged(
    rules: &ResultRules,
    outcome: &ToolOutcome,
    shape: OutputShape,
    json_text: Option<&str>,
) -> Option<u64> {
    let options = &rules.sanitizer.options;
    let scanner = rules.sanitizer.scanner();
    let mut total = 0;
    // Over the budget already: no need to look for secrets.
    let mut clean = |text: &str| {
        total += utf16_len(text);
        total <= options.max_result_chars
            && !(options.strip_ansi && text.contains(['\u{1b}', '\u{9b}']))
            && scanner.is_none_or(|s| s.find(text).is_empty())
    };
    let texts_clean = match (shape, outcome) {
        (OutputShape::Text, ToolOutcome::Returned(Value::String(text))) => clean(text),
        (OutputShape::Json, _) => json_text.is_some_and(&mut clean),
        (OutputShape::AgentResult, ToolOutcome::Returned(Value::Object(map))) => {
            let blocks = map.get("content").and_then(Value::as_array);
            // Only a bare `{ type: "text", text }` block passes as returned: any other field
            // (`annotations`, `_meta`, ...) is left to the rebuilt result, which keeps the block's
            // type and text only, as every other lane of a tool's value does.
            let content_clean = blocks.is_some_and(|blocks| {
                blocks.iter().all(|block| match block {
                    Value::Object(fields) if fields.len() == 2 => {
                        match (fields.get("type"), fields.get("text")) {
                            (Some(Value::String(kind)), Some(Value::String(text))) => {
                                kind == "text" && clean(text)
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                })
            });
            // Blocks clean one by one may hold a secret read together, as the model reads them.
            let joined_clean = || {
                let texts: Vec<&str> = blocks
                    .into_iter()
                    .flatten()
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .filter(|text| !text.is_empty())
                    .collect();
                scanner.is_none_or(|s| !holds_secret_across(&texts, s))
            };
            content_clean
                && joined_clean()
                && scanner.is_none_or(|s| {
                    ["details", "effects"]
                        .iter()
                        .all(|key| map.get(*key).is_none_or(|v| !has_secret(v, s)))
                })
        }
        (OutputShape::Nothing, _) => true,
        _ => false,
    };
    (texts_clean && total <= options.max_result_chars).then_some(total)
}

/// The arguments as events carry them: `Some` with the secrets replaced when they hold any.
pub(super) fn scrubbed_args(rules: &ResultRules, args: &Value) -> Option<Value> {
    let scanner = rules.sanitizer.scanner()?;
    if !has_secret(args, scanner) {
        return None;
    }
    let mut args = args.clone();
    scrub_value(&mut args, scanner, &mut Default::default());
    Some(args)
}

/// The call's id and tool name as events and the audit log carry them: `Some((id, name))` when
/// either is changed (the model writes both, and can put anything there). A name holding a
/// secret has it replaced. An id holding a secret has it replaced, and an id that is not
/// well-formed UTF-16 has U+FFFD for each lone surrogate; either way it is marked with a digest of
/// the id as written (see [`id_digest`]), so two ids that read the same once changed (two tokens
/// redacted alike, `a\ud800` and `a\ufffd`) stay two: the audit log matches results to calls by
/// it. The result keeps the exact id: a wire pairs a result with its call by it, and the model
/// that wrote it has it already.
pub(super) fn scrubbed_ids(
    rules: &ResultRules,
    request: &CallRequest,
    name: &str,
) -> Option<(String, String)> {
    let id = request.id.as_str();
    let scanner = rules.sanitizer.scanner();
    let mut counts = Default::default();
    let shown_id = scanner.and_then(|s| s.scrub_from(id, 0, &mut counts));
    let shown_name = scanner.and_then(|s| s.scrub_from(name, 0, &mut counts));
    let exact = request.exact_id.as_deref();
    let shown_id = match (shown_id, exact) {
        (None, None) => None,
        (shown, exact) => Some(format!(
            "{}{ID_DIGEST_MARK}{}",
            shown.as_deref().unwrap_or(id),
            id_digest(exact.unwrap_or(id))
        )),
    };
    if shown_id.is_none() && shown_name.is_none() {
        return None;
    }
    Some((
        shown_id.unwrap_or_else(|| id.to_owned()),
        shown_name.unwrap_or_else(|| name.to_owned()),
    ))
}

/// Separates a changed id from the digest marking it: `call_[REDACTED:github-token]~3f0c...`.
const ID_DIGEST_MARK: char = '~';

/// A digest of an id as the caller wrote it: 16 hex digits of SipHash under a key drawn at
/// random once per process. Keyed, so a secret in an id cannot be guessed back from it (a
/// short password could, from a plain hash); per process, so one id reads the same in every
/// event and record this process writes.
pub(super) fn id_digest(id: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    let mut hasher = KEY.get_or_init(Default::default).build_hasher();
    hasher.write(id.as_bytes());
    format!("{:016x}", hasher.finish())
}

/// The view of a built result for events, and whether `redaction_failed` is due.
pub(super) fn end_view(
    rules: &ResultRules,
    spec: Option<&ToolSpec>,
    result: &ToolResult,
) -> (Option<Value>, bool) {
    let options = &rules.sanitizer.options;
    let args = scrubbed_args(rules, &result.args);
    result_view(
        result,
        spec.and_then(|s| s.redaction_allow.as_deref()),
        rules.redaction,
        options.event_text_chars,
        options.head_ratio,
        args,
    )
}

/// The view of a result as returned (a value that passed unchanged, so it has no image), for
/// events; `content` builds its blocks when a text is longer than events carry.
pub(super) fn returned_view(
    rules: &ResultRules,
    spec: &ToolSpec,
    outcome: &ToolOutcome,
    json_text: Option<&str>,
    args: &Value,
    content: impl FnOnce() -> Vec<ContentBlock>,
) -> (Option<Value>, bool) {
    let options = &rules.sanitizer.options;
    let mut delta = Map::new();
    let texts: Vec<&str> = match outcome {
        _ if json_text.is_some() => json_text.into_iter().collect(),
        ToolOutcome::Returned(Value::String(text)) => vec![text],
        ToolOutcome::Returned(Value::Object(map)) => map
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text")?.as_str())
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let long = texts
        .iter()
        .any(|text| utf16_len(text) > options.event_text_chars);
    if long {
        let result = ToolResult {
            content: content(),
            ..ToolResult::ok(String::new(), String::new(), Value::Null)
        };
        let (view, _) = result_view(
            &result,
            None,
            crate::sanitize::RedactionMode::Permissive,
            options.event_text_chars,
            options.head_ratio,
            None,
        );
        if let Some(Value::Object(view)) = view {
            delta.extend(view);
        }
    }
    let allow = spec.redaction_allow.as_deref();
    let failed = match outcome {
        // A plain JSON value is the result's `data`, redacted as details are.
        ToolOutcome::Returned(value) if json_text.is_some() => {
            put_field_view(&mut delta, "data", value, allow, rules.redaction)
        }
        ToolOutcome::Returned(Value::Object(map)) => map.get("details").is_some_and(|details| {
            put_field_view(&mut delta, "details", details, allow, rules.redaction)
        }),
        _ => false,
    };
    if let Some(args) = scrubbed_args(rules, args) {
        delta.insert("args".into(), args);
    }
    ((!delta.is_empty()).then_some(Value::Object(delta)), failed)
}

/// What the batch budget changed in one result: its slot, `(block, new text)`, what was cut.
pub(super) type BatchTrim = (usize, Vec<(usize, String)>, Vec<Truncation>);

/// Cuts the results of a batch further when their text together is over `budget`: the largest
/// results first, and in each result its largest texts first. Returns, per slot that changed,
/// the new texts and what was cut.
pub(super) fn trim_batch(texts: Vec<BatchText>, budget: u64, head_ratio: f64) -> Vec<BatchTrim> {
    let sizes: Vec<u64> = texts.iter().map(BatchText::size).collect();
    let Some(shares) = water_fill(&sizes, budget) else {
        return Vec::new();
    };
    let mut trims = Vec::new();
    for (slot, text) in texts.into_iter().enumerate() {
        // Texts of at most MIN_SHARE units (only their sizes kept) are never cut.
        let BatchText::Blocks(blocks) = text else {
            continue;
        };
        if sizes[slot] <= shares[slot] {
            continue;
        }
        let block_sizes: Vec<u64> = blocks.iter().map(|(_, k)| k.size()).collect();
        let Some(block_shares) = water_fill(&block_sizes, shares[slot]) else {
            continue;
        };
        let mut changed = Vec::new();
        let mut truncations = Vec::new();
        for ((index, kept), share) in blocks.into_iter().zip(block_shares) {
            if kept.size() <= share {
                continue;
            }
            let cut = recut(&kept, share, head_ratio);
            if let Some(c) = &cut.cut {
                truncations.push(Truncation {
                    block: index as i64,
                    unit: c.unit,
                    cut: c.count,
                    budget: share,
                    scope: CutScope::Batch,
                });
            }
            changed.push((index, cut.text));
        }
        if !changed.is_empty() {
            trims.push((slot, changed, truncations));
        }
    }
    trims
}

/// A tool's partial result (what it passed to `onUpdate`) as a `tool_execution_update` event
/// carries it: text scrubbed and cut to the events' length, images as metadata, details
/// reduced to the tool's allowlist (withheld without one under strict redaction). Any other
/// value keeps its shape, its strings scrubbed and cut.
pub fn partial_view(rules: &ResultRules, spec: Option<&ToolSpec>, value: Value) -> Value {
    let sanitizer = &rules.sanitizer;
    let options = &sanitizer.options;
    let mut scrubbed = Default::default();
    let (content, details) = match value {
        Value::Object(mut map) if map.get("content").is_some_and(Value::is_array) => {
            let content = map.remove("content").unwrap_or_default();
            (content, map.remove("details"))
        }
        other => return event_value(other, rules, &mut scrubbed),
    };
    let blocks: Vec<Value> = content
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(
            |block| match (block.get("type").and_then(Value::as_str), block) {
                (Some("text"), _) => {
                    let text = block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let kept = keep_text(
                        TextSource::Whole(text),
                        options.event_text_chars,
                        &sanitizer.text_rules(),
                        &mut scrubbed,
                    );
                    json!({ "type": "text", "text": kept.text })
                }
                (Some("image"), _) => {
                    let blocks = [ContentBlock::Image {
                        data: block
                            .get("data")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                        mime_type: block
                            .get("mimeType")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    }];
                    content_view(&blocks, &[], options.event_text_chars, options.head_ratio)
                        .and_then(|mut v| v.pop())
                        .unwrap_or(Value::Null)
                }
                _ => json!({ "type": "text", "text": "[unsupported block omitted]" }),
            },
        )
        .collect();
    let mut view = Map::new();
    view.insert("content".into(), Value::Array(blocks));
    if let Some(mut details) = details {
        if let Some(scanner) = sanitizer.scanner() {
            scrub_value(&mut details, scanner, &mut scrubbed);
        }
        let allow = spec.and_then(|s| s.redaction_allow.as_deref());
        put_field_view(&mut view, "details", &details, allow, rules.redaction);
        if !view.contains_key("details") && !view.contains_key("detailsWithheld") {
            view.insert("details".into(), details);
        }
    }
    Value::Object(view)
}

/// A partial result that is not `{ content }` (a progress object, a number, a string) keeps its
/// shape in the event: every string scrubbed (with its key, see [`scrub_keyed_text`]) and cut to
/// the events' length, every key scrubbed.
fn event_value(value: Value, rules: &ResultRules, scrubbed: &mut BTreeMap<String, u64>) -> Value {
    event_entry(value, None, rules, scrubbed)
}

fn event_entry(
    value: Value,
    key: Option<&str>,
    rules: &ResultRules,
    scrubbed: &mut BTreeMap<String, u64>,
) -> Value {
    let sanitizer = &rules.sanitizer;
    match value {
        Value::String(text) => {
            let keyed = key
                .zip(sanitizer.scanner())
                .and_then(|(key, scanner)| scrub_keyed_text(key, &text, scanner, scrubbed));
            let text = keyed.unwrap_or(text);
            let kept = keep_text(
                TextSource::Whole(&text),
                sanitizer.options.event_text_chars,
                &sanitizer.text_rules(),
                scrubbed,
            );
            Value::String(kept.text)
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| event_entry(item, None, rules, scrubbed))
                .collect(),
        ),
        Value::Object(map) => {
            let mut map: Map<String, Value> = map
                .into_iter()
                .map(|(key, item)| {
                    let item = event_entry(item, Some(&key), rules, scrubbed);
                    (key, item)
                })
                .collect();
            if let Some(scanner) = sanitizer.scanner() {
                scrub_keys(&mut map, scanner, scrubbed);
            }
            Value::Object(map)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::text::kept_again;

    fn batch_text(texts: &[(usize, String)]) -> BatchText {
        BatchText::Blocks(
            texts
                .iter()
                .map(|(index, text)| (*index, kept_again(text.clone())))
                .collect(),
        )
    }

    #[test]
    fn a_batch_over_its_budget_cuts_the_largest_results() {
        let texts = vec![
            batch_text(&[(0, "a".repeat(100))]),
            batch_text(&[(0, "b".repeat(5000)), (1, "c".repeat(5000))]),
            batch_text(&[(0, "d".repeat(3000))]),
            BatchText::Small(60),
        ];
        let trims = trim_batch(texts, 2000, 0.5);
        assert_eq!(trims.len(), 2);
        let (slot, blocks, truncations) = &trims[0];
        assert_eq!(*slot, 1);
        assert_eq!(blocks.len(), 2);
        assert!(blocks.iter().all(|(_, t)| utf16_len(t) <= 475));
        assert_eq!(truncations[0].scope, CutScope::Batch);
        let (slot, blocks, _) = &trims[1];
        assert_eq!(*slot, 2);
        assert!(utf16_len(&blocks[0].1) <= 950);
        assert!(trim_batch(vec![batch_text(&[(0, "x".repeat(100))])], 2000, 0.5).is_empty());
    }

    #[test]
    fn an_error_set_after_sanitization_is_scrubbed_as_it_leaves() {
        use crate::envelope::{ToolError, ToolStatus};
        use crate::error::ErrorCode;
        let rules = ResultRules::default();
        let key = format!("ghp_{}", "a1B2".repeat(9));
        // (message, details): a hook's message quoting a secret after an escape, details keyed
        // by secrets and holding a header value.
        let cases = [
            (
                format!("hook saw line\\n{key}"),
                json!({ "args": { key.clone(): 1 } }),
            ),
            (
                format!("hook saw {key}"),
                json!({ "Authorization": "Bearer abcdefgh12345678" }),
            ),
        ];
        for (message, details) in cases {
            let mut result = ToolResult::ok("c".into(), "t".into(), Value::Null);
            result.fail(
                ToolStatus::Error,
                ToolError::new(ErrorCode::ExecutionError, message.clone()).with_details(details),
            );
            sanitize_error(&rules, &mut result);
            let text = serde_json::to_string(&result).unwrap();
            assert!(
                !text.contains(&key) && !text.contains("abcdefgh12345678"),
                "{text}"
            );
            let error = result.error.as_ref().unwrap();
            assert_eq!(result.content, [ContentBlock::text(error.message.clone())]);
            assert!(error.message.contains("[redacted:"), "{text}");
        }
    }

    #[test]
    fn effects_paths_are_scrubbed_and_a_value_with_a_secret_in_them_is_not_returned_as_is() {
        use crate::envelope::{Effects, Renamed};
        let rules = ResultRules::default();
        let key = format!("ghp_{}", "a1B2".repeat(9));
        let path = format!("/tmp/upload_{key}.txt");
        let value = json!({
            "content": [{ "type": "text", "text": "done" }],
            "effects": { "created": [path.clone()] },
        });
        let outcome = ToolOutcome::Returned(value);
        assert_eq!(
            passes_unchanged(&rules, &outcome, OutputShape::AgentResult, None),
            None
        );
        let mut result = ToolResult::ok("c".into(), "t".into(), Value::Null);
        result.effects = Some(Effects {
            created: vec![path.clone()],
            renamed: vec![Renamed {
                from: "/a".into(),
                to: path.clone(),
            }],
            ..Effects::default()
        });
        sanitize_result(&rules, &mut result, true);
        let text = serde_json::to_string(&result).unwrap();
        assert!(!text.contains(&key), "{text}");
        assert_eq!(
            result.effects.unwrap().created,
            ["/tmp/upload_[redacted:github-token].txt"]
        );
    }

    #[test]
    fn only_bare_text_blocks_pass_as_returned() {
        let rules = ResultRules::default();
        let key = format!("ghp_{}", "a1B2".repeat(9));
        let passes = |block: Value| {
            let outcome = ToolOutcome::Returned(json!({ "content": [block] }));
            passes_unchanged(&rules, &outcome, OutputShape::AgentResult, None).is_some()
        };
        assert!(passes(json!({ "type": "text", "text": "ok" })));
        let rebuilt = [
            // Fields the rebuilt block does not keep, holding a secret or not.
            json!({ "type": "text", "text": "ok", "annotations": { "k": key } }),
            json!({ "type": "text", "text": "ok", "_meta": { "audience": ["user"] } }),
            json!({ "type": "text", "text": "ok", (key.as_str()): 1 }),
            // Not a text block.
            json!({ "type": "resource", "text": "ok" }),
            json!({ "text": "ok", "kind": "text" }),
        ];
        for block in rebuilt {
            assert!(!passes(block.clone()), "{block}");
        }
    }

    #[test]
    fn a_progress_partial_keeps_its_shape_with_strings_scrubbed_and_cut() {
        let rules = ResultRules::default();
        let key = format!("ghp_{}", "a1B2".repeat(9));
        let partial = json!({ "step": 2, "log": [format!("token {key}"), "x".repeat(9000)] });
        let view = partial_view(&rules, None, partial);
        assert_eq!(view["step"], 2);
        assert_eq!(view["log"][0], "token [redacted:github-token]");
        let cut = view["log"][1].as_str().unwrap();
        assert!(utf16_len(cut) <= 8000 && cut.contains("characters cut"));
        assert_eq!(partial_view(&rules, None, json!(0.5)), json!(0.5));
    }
}
