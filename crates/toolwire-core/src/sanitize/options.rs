//! The sanitization settings: `sanitize`, `limits` and `redaction`, given on the runtime and
//! overridable per dispatch, each value checked and a bad one named.

use serde_json::{Map, Value};

use super::images::ImageLimits;
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretPattern;

/// The `sanitize` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SanitizeOptions {
    /// The most text one result keeps (UTF-16 code units of strings, characters of bytes).
    pub max_result_chars: u64,
    /// The most text the results of one dispatch keep together; `None` for no batch budget.
    pub max_batch_chars: Option<u64>,
    /// Remove ANSI escape sequences from text.
    pub strip_ansi: bool,
    /// The most text of a result an event carries.
    pub event_text_chars: u64,
    /// The share of a cut text's budget taken from its start.
    pub head_ratio: f64,
    /// Scrub secrets.
    pub secrets: bool,
    /// The user's own secret patterns, after the built-in kinds.
    pub patterns: Vec<SecretPattern>,
    /// Image limits.
    pub images: ImageLimits,
}

/// Defaults named in the README.
pub const DEFAULT_MAX_RESULT_CHARS: u64 = 32_768;
/// Four results at the full per-result budget.
pub const DEFAULT_MAX_BATCH_CHARS: u64 = 131_072;
/// Text in events.
pub const DEFAULT_EVENT_TEXT_CHARS: u64 = 8_000;
/// The smallest text budget accepted: room for a marker and some text on each side.
pub const MIN_TEXT_BUDGET: u64 = 100;

impl Default for SanitizeOptions {
    fn default() -> Self {
        SanitizeOptions {
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            max_batch_chars: Some(DEFAULT_MAX_BATCH_CHARS),
            strip_ansi: false,
            event_text_chars: DEFAULT_EVENT_TEXT_CHARS,
            head_ratio: 0.5,
            secrets: true,
            patterns: Vec::new(),
            images: ImageLimits::default(),
        }
    }
}

/// The `limits` settings: inputs over them are refused with `LIMIT_EXCEEDED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest tool-call id, in characters.
    pub max_id_chars: u64,
    /// The largest arguments, in bytes of JSON text.
    pub max_arguments_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_id_chars: 128,
            max_arguments_bytes: 1 << 20,
        }
    }
}

/// What reaches events and audit records of a tool that declared no redaction allowlist.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RedactionMode {
    /// Its details are withheld, and a `redaction_failed` event says so.
    #[default]
    Strict,
    /// Its details pass (secrets still scrubbed).
    Permissive,
}

impl SanitizeOptions {
    /// These options with the keys of `value` (a `sanitize` object) applied over them.
    pub fn with(&self, value: &Value, at: &str) -> Result<SanitizeOptions> {
        let mut options = self.clone();
        let map = object(value, at)?;
        for (key, value) in map {
            let at = format!("{at}.{key}");
            match key.as_str() {
                "maxResultChars" => options.max_result_chars = budget(value, &at)?,
                "maxBatchChars" => {
                    options.max_batch_chars = match value {
                        Value::Null => None,
                        value => Some(budget(value, &at)?),
                    }
                }
                "stripAnsi" => options.strip_ansi = boolean(value, &at)?,
                "eventTextChars" => options.event_text_chars = budget(value, &at)?,
                "headRatio" => match value.as_f64() {
                    Some(ratio) if (0.0..=1.0).contains(&ratio) => options.head_ratio = ratio,
                    _ => return Err(invalid(&at, "a number from 0 to 1", value)),
                },
                "secrets" => {
                    for (key, value) in object(value, &at)? {
                        let at = format!("{at}.{key}");
                        match key.as_str() {
                            "enabled" => options.secrets = boolean(value, &at)?,
                            "patterns" => options.patterns = patterns(value, &at)?,
                            _ => return Err(unknown(&at, key, &["enabled", "patterns"])),
                        }
                    }
                }
                "images" if !cfg!(feature = "image") => {
                    return Err(Error::caller(
                        ErrorCode::PreconditionFailed,
                        format!("{at}: {}", super::images::IMAGE_FEATURE_ABSENT),
                    ))
                }
                "images" => {
                    for (key, value) in object(value, &at)? {
                        let at = format!("{at}.{key}");
                        let images = &mut options.images;
                        match key.as_str() {
                            "maxWidth" => {
                                images.max_width = whole(value, &at, 1, u32::MAX as u64)? as u32
                            }
                            "maxHeight" => {
                                images.max_height = whole(value, &at, 1, u32::MAX as u64)? as u32
                            }
                            "maxBytes" => {
                                images.max_bytes = whole(value, &at, 1, u32::MAX as u64)? as usize
                            }
                            "maxPixels" => {
                                images.max_pixels = whole(value, &at, 1, u64::MAX >> 12)?
                            }
                            _ => {
                                return Err(unknown(
                                    &at,
                                    key,
                                    &["maxWidth", "maxHeight", "maxBytes", "maxPixels"],
                                ))
                            }
                        }
                    }
                }
                _ => return Err(unknown(&at, key, &SANITIZE_KEYS)),
            }
        }
        Ok(options)
    }
}

impl Limits {
    /// These limits with the keys of `value` (a `limits` object) applied over them.
    pub fn with(&self, value: &Value, at: &str) -> Result<Limits> {
        let mut limits = *self;
        for (key, value) in object(value, at)? {
            let at = format!("{at}.{key}");
            match key.as_str() {
                "maxIdChars" => limits.max_id_chars = whole(value, &at, 1, u32::MAX as u64)?,
                "maxArgumentsBytes" => {
                    limits.max_arguments_bytes = whole(value, &at, 2, u64::MAX >> 12)?
                }
                _ => return Err(unknown(&at, key, &["maxIdChars", "maxArgumentsBytes"])),
            }
        }
        Ok(limits)
    }
}

impl RedactionMode {
    /// Reads `'strict'` or `'permissive'`.
    pub fn parse(value: &Value, at: &str) -> Result<RedactionMode> {
        match value.as_str() {
            Some("strict") => Ok(RedactionMode::Strict),
            Some("permissive") => Ok(RedactionMode::Permissive),
            _ => Err(invalid(at, "'strict' or 'permissive'", value)),
        }
    }
}

fn object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| invalid(at, "an object", value))
}

fn boolean(value: &Value, at: &str) -> Result<bool> {
    value
        .as_bool()
        .ok_or_else(|| invalid(at, "true or false", value))
}

fn budget(value: &Value, at: &str) -> Result<u64> {
    whole(value, at, MIN_TEXT_BUDGET, u64::MAX >> 12)
}

fn whole(value: &Value, at: &str, min: u64, max: u64) -> Result<u64> {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && n >= min as f64 && n <= max as f64 => Ok(n as u64),
        _ => Err(invalid(
            at,
            &format!("a whole number of at least {min}"),
            value,
        )),
    }
}

fn patterns(value: &Value, at: &str) -> Result<Vec<SecretPattern>> {
    let Value::Array(items) = value else {
        return Err(invalid(at, "an array of { kind, pattern }", value));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{at}[{i}]");
            let text = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_owned);
            match (text("kind"), text("pattern")) {
                (Some(kind), Some(pattern)) if item.as_object().is_some_and(|m| m.len() == 2) => {
                    Ok(SecretPattern { kind, pattern })
                }
                _ => Err(invalid(&at, "{ kind: string, pattern: string }", item)),
            }
        })
        .collect()
}

fn invalid(at: &str, expected: &str, got: &Value) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!(
            "{at} must be {expected}, got {}",
            crate::quote::quoted_json(got)
        ),
    )
}

/// The keys of a `sanitize` object.
const SANITIZE_KEYS: [&str; 7] = [
    "maxResultChars",
    "maxBatchChars",
    "stripAnsi",
    "eventTextChars",
    "headRatio",
    "secrets",
    "images",
];

/// `key` (at path `at`, which ends with it) is none of `known`.
fn unknown(at: &str, key: &str, known: &[&str]) -> Error {
    let parent = at
        .strip_suffix(key)
        .and_then(|p| p.strip_suffix('.'))
        .unwrap_or(at);
    crate::options::unknown_option(parent, key, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_the_documented_ones() {
        let options = SanitizeOptions::default();
        assert_eq!(options.max_result_chars, 32_768);
        assert_eq!(options.event_text_chars, 8_000);
        assert!(options.secrets && !options.strip_ansi);
        assert_eq!(options.images.max_width, 2000);
        assert_eq!(options.images.max_bytes, 5_000_000);
        assert_eq!(Limits::default().max_id_chars, 128);
    }

    /// A slim build (no `image` feature) refuses image limits, which it could not honour, as a
    /// precondition naming the feature; the other keys parse as before.
    #[cfg(not(feature = "image"))]
    #[test]
    fn slim_build_refuses_image_limits_naming_the_feature() {
        let base = SanitizeOptions::default();
        for images in [json!({"maxWidth": 800}), json!({}), json!(null)] {
            let error = base
                .with(
                    &json!({"maxResultChars": 1000, "images": images}),
                    "sanitize",
                )
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::PreconditionFailed, "{images}");
            assert!(error
                .message
                .starts_with("sanitize.images: image support is not in this build"));
            assert!(error.message.contains("cargo feature `image`"));
        }
        let options = base
            .with(&json!({"maxResultChars": 1000}), "sanitize")
            .unwrap();
        assert_eq!(options.max_result_chars, 1000);
    }

    #[test]
    fn keys_override_and_keep_the_rest() {
        let base = SanitizeOptions::default();
        let options = base
            .with(
                &json!({"maxResultChars": 1000, "stripAnsi": true, "maxBatchChars": null,
                        "secrets": {"patterns": [{"kind": "ticket", "pattern": "T-[0-9]+"}]},
                        "images": {"maxWidth": 800}}),
                "sanitize",
            )
            .unwrap();
        assert_eq!(options.max_result_chars, 1000);
        assert_eq!(options.max_batch_chars, None);
        assert!(options.strip_ansi && options.secrets);
        assert_eq!(options.patterns[0].kind, "ticket");
        assert_eq!(options.images.max_width, 800);
        assert_eq!(options.images.max_height, 2000);
        let limits = Limits::default()
            .with(&json!({"maxIdChars": 64}), "limits")
            .unwrap();
        assert_eq!(limits.max_id_chars, 64);
        assert_eq!(limits.max_arguments_bytes, 1 << 20);
    }

    #[test]
    fn bad_values_are_named() {
        let base = SanitizeOptions::default();
        for (value, expected) in [
            (
                json!({"maxResultChars": 10}),
                "sanitize.maxResultChars must be a whole number of at least 100, got 10",
            ),
            (json!({"maxResultChars": "big"}), "got \"big\""),
            (
                json!({"headRatio": 2}),
                "sanitize.headRatio must be a number from 0 to 1, got 2",
            ),
            (
                json!({"images": {"maxPixels": 0}}),
                "sanitize.images.maxPixels",
            ),
            (
                json!({"secrets": {"patterns": [{"kind": 1}]}}),
                "sanitize.secrets.patterns[0]",
            ),
            (
                json!({"maxResultChar": 1}),
                "sanitize has unknown key \"maxResultChar\" (expected one of: maxResultChars, \
                 maxBatchChars, stripAnsi, eventTextChars, headRatio, secrets, images); \
                 did you mean \"maxResultChars\"?",
            ),
            (
                json!({"images": {"maxWidht": 1}}),
                "sanitize.images has unknown key \"maxWidht\"",
            ),
            (json!([]), "sanitize must be an object"),
        ] {
            let error = base.with(&value, "sanitize").unwrap_err();
            assert!(error.message.contains(expected), "{}", error.message);
        }
        let error = RedactionMode::parse(&json!("loose"), "redaction").unwrap_err();
        assert!(error
            .message
            .contains("'strict' or 'permissive', got \"loose\""));
        let error = Limits::default()
            .with(&json!({"maxIdChars": -1}), "limits")
            .unwrap_err();
        assert!(error.message.contains("limits.maxIdChars"));
    }
}
