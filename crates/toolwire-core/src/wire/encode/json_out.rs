//! JSON text written straight by the result encoders: building a `serde_json::Value` per message
//! (an ordered map per object, each key allocated and hashed) only to print it was most of
//! `encodeResults`' time. The encoders write their keys in the order the tree had them.

use crate::json_text::push_json_string;

/// The elements of one JSON array, written one after another into `out`.
pub struct Elements<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Elements<'o> {
    /// The elements of an array whose `[` is already in `out`.
    pub fn new(out: &'o mut String) -> Self {
        Elements { out, first: true }
    }

    /// The text to write the next element into (after its separator).
    pub fn element(&mut self) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out
    }

    /// Whether no element was written.
    pub fn is_empty(&self) -> bool {
        self.first
    }
}

/// Writes `,"key":` then `value` as a JSON string (`key` is a literal without escapes).
pub fn push_string_member(out: &mut String, key: &str, value: &str) {
    out.push_str(",\"");
    out.push_str(key);
    out.push_str("\":");
    push_json_string(out, value);
}
