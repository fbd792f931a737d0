//! `requestBody`: the request body of one model call, in the wire's own shape, built by the
//! core (`toolwire_core::provider::request`) from JSON texts; it comes back as JSON text.

use napi_derive::napi;
use toolwire_core::provider::{Provider, Wire};

use crate::error::guard;

/// The request body for `wire` as JSON text: the history (`messages`, the JSON text of an
/// array) under the wire's key, `tools` (JSON text of an array) when not empty, the tool choice
/// (JSON text, absent when not given) under the wire's key, and the stream flags.
#[napi(js_name = "requestBody")]
pub fn request_body_js(
    wire: String,
    messages: String,
    tools: String,
    tool_choice: Option<String>,
) -> crate::error::Result<String> {
    guard(|| {
        Provider::of(Wire::parse(&wire)?).request_body(&messages, &tools, tool_choice.as_deref())
    })
}
