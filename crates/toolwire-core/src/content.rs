//! A result's content: the blocks a tool returns and the model reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One block of a result's content, in the shape pi-ai and most agents use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentBlock {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// The MIME type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }
}

/// A block of a result's content as events and audit records show it
/// ([`crate::dispatch::view`]): text (cut at `eventTextChars`), or an image's metadata in place
/// of its data, which events never carry.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ShownBlock {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image, its data left out.
    #[serde(rename_all = "camelCase")]
    Image {
        /// The MIME type, e.g. `image/png`.
        mime_type: String,
        /// Bytes of the image's data.
        bytes: u64,
        /// Width in pixels, when the sanitizer read it.
        #[serde(skip_serializing_if = "Option::is_none")]
        width: Option<u64>,
        /// Height in pixels, when the sanitizer read it.
        #[serde(skip_serializing_if = "Option::is_none")]
        height: Option<u64>,
        /// Always `true`: the data was left out.
        omitted: bool,
    },
}
