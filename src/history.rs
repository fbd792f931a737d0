//! History functions: tool-call ids, history repair, and the wire encoders of calls and results.

use napi_derive::napi;
use serde_json::{json, Value};
use toolwire_core::envelope::marked_error_text;
use toolwire_core::ids::normalize_tool_call_id;
use toolwire_core::provider::{id_target, Provider, Wire};
use toolwire_core::wire::encode::{parse_history_turn, parse_results};
use toolwire_core::{Error, ErrorCode};

use crate::convert::parse_json;
use crate::error::guard;

/// An id valid for `target` (a wire, `strict` or `strict9`); valid ids come back unchanged.
#[napi(js_name = "normalizeToolCallId")]
pub fn normalize_tool_call_id_js(id: String, target: String) -> crate::error::Result<String> {
    guard(|| Ok(normalize_tool_call_id(&id, id_target(&target)?)))
}

/// Repairs a history (JSON text of the wire's messages); returns `{ messages, report }`.
#[napi(js_name = "repairHistory")]
pub fn repair_history_js(messages: String, wire: String) -> crate::error::Result<String> {
    guard(|| {
        let wire = Wire::parse(&wire)?;
        let messages = match parse_json("repairHistory: messages", &messages)? {
            Value::Array(messages) => messages,
            other => {
                return Err(Error::caller(
                    ErrorCode::ValidationError,
                    format!(
                        "repairHistory: messages must be an array, got {}",
                        toolwire_core::json_text::json_type(&other)
                    ),
                ))
            }
        };
        let (messages, report) = Provider::of(wire).repair_history(messages)?;
        Ok(json!({ "messages": messages, "report": report }).to_string())
    })
}

/// The tool-result messages `wire` expects, for results given as JSON text.
#[napi(js_name = "encodeResults")]
pub fn encode_results_js(results: String, wire: String) -> crate::error::Result<String> {
    guard(|| {
        let wire = Wire::parse(&wire)?;
        let results = parse_results(&results)?;
        Ok(Provider::of(wire).encode_results_text(&results))
    })
}

/// A failed result's text as the wires without an error flag carry it (`Error: ` first), for
/// the adapters whose messages reach such a wire without `encodeResults`.
#[napi(js_name = "markedErrorText")]
pub fn marked_error_text_js(text: String) -> String {
    marked_error_text(&text)
}

/// The assistant message(s) that carried the calls, for history; `turn` is JSON text of an
/// array of calls or of a turn `{ text, thinking, toolCalls }`.
#[napi(js_name = "encodeToolCalls")]
pub fn encode_tool_calls_js(turn: String, wire: String) -> crate::error::Result<String> {
    guard(|| {
        let wire = Wire::parse(&wire)?;
        let turn = parse_history_turn(&turn)?;
        Ok(Value::Array(Provider::of(wire).encode_tool_calls(&turn)).to_string())
    })
}
