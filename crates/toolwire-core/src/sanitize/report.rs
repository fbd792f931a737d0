//! What sanitization did to a result: the text it cut, the secrets it scrubbed, the images it
//! kept, resized or omitted.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::images::ImageReport;
use super::text::CutUnit;

/// Which budget cut a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CutScope {
    /// The per-result budget (`maxResultChars`).
    Result,
    /// The per-dispatch budget (`maxBatchChars`).
    Batch,
}

/// One text block that was cut.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// The content block's index; `-1` for the error message.
    pub block: i64,
    /// What `cut` counts.
    pub unit: CutUnit,
    /// How much was cut, in total.
    pub cut: u64,
    /// The budget the text was kept within.
    pub budget: u64,
    /// Which budget it was.
    pub scope: CutScope,
}

/// What sanitization did to one result. Empty when it changed nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SanitizeReport {
    /// The text blocks that were cut.
    #[serde(default)]
    pub truncated: Vec<Truncation>,
    /// The secrets replaced, per kind.
    #[serde(default)]
    pub scrubbed: BTreeMap<String, u64>,
    /// What happened to each image: `{ block, action: 'kept' | 'resized' | 'omitted', mimeType,
    /// width, height, bytes, original?, quality?, reason?, declaredMimeType? }` (an
    /// [`ImageEntry`], kept as the JSON it wrote).
    #[serde(default)]
    #[schemars(with = "Vec<ImageEntry>")]
    pub images: Vec<Value>,
    /// ANSI escape sequences removed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ansi: u64,
}

/// One image of a [`SanitizeReport`]: its block's index and what happened to it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ImageEntry {
    /// The content block's index.
    pub block: i64,
    /// What happened to it.
    #[serde(flatten)]
    pub image: ImageReport,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SanitizeReport {
    /// Whether nothing was changed or checked.
    pub fn is_empty(&self) -> bool {
        self.truncated.is_empty()
            && self.scrubbed.is_empty()
            && self.images.is_empty()
            && self.ansi == 0
    }

    /// Whether the content differs from what the tool returned (an image kept as it was with
    /// its declared type does not count).
    pub fn changed(&self) -> bool {
        !self.truncated.is_empty()
            || !self.scrubbed.is_empty()
            || self.ansi > 0
            || self.images.iter().any(|image| {
                image.get("action").and_then(Value::as_str) != Some("kept")
                    || image.get("declaredMimeType").is_some()
            })
    }

    /// Adds another report's findings to this one.
    pub fn merge(&mut self, other: SanitizeReport) {
        self.truncated.extend(other.truncated);
        for (kind, count) in other.scrubbed {
            *self.scrubbed.entry(kind).or_default() += count;
        }
        self.images.extend(other.images);
        self.ansi += other.ansi;
    }

    /// Counts one secret of `kind`.
    pub fn count_secret(&mut self, kind: &str, count: u64) {
        *self.scrubbed.entry(kind.to_owned()).or_default() += count;
    }
}
