//! JSON text from JavaScript into values, with errors that say which argument was malformed.

use serde_json::Value;
use toolwire_core::{Error, ErrorCode};

/// Parses JSON text that the JavaScript layer produced for `what`.
/// JSON nested deeper than serde_json's limit (128 levels) is a `LIMIT_EXCEEDED` error.
pub fn parse_json(what: &str, text: &str) -> toolwire_core::Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        if e.to_string().starts_with("recursion limit exceeded") {
            Error::caller(
                ErrorCode::LimitExceeded,
                format!("{what} nests deeper than 128 levels of JSON: {e}"),
            )
        } else {
            Error::caller(
                ErrorCode::ValidationError,
                format!("{what} is not valid JSON: {e}"),
            )
        }
    })
}
