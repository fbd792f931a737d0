//! Schema functions: `normalizeSchema`, its strict inverse, and tool-name rules.

use napi_derive::napi;
use toolwire_core::provider::DefinitionTarget;
use toolwire_core::schema::{
    denormalize_strict, normalize_schema, parse_normalize_options, SchemaTarget,
};
use toolwire_core::Error;

use crate::convert::parse_json;
use crate::error::guard;

/// Normalizes a JSON Schema (JSON text) for `target`; `options` is JSON text (empty for
/// defaults). Returns `{ schema, removed, warnings }` as JSON text.
#[napi(js_name = "normalizeSchema")]
pub fn normalize_schema_json(
    schema: String,
    target: String,
    options: String,
) -> crate::error::Result<String> {
    guard(|| {
        let target = SchemaTarget::parse_named(&target)?;
        let options = parse_normalize_options(&options)?;
        let schema = parse_json("normalizeSchema: schema", &schema)?;
        let normalized = normalize_schema(&schema, target, &options)?;
        serde_json::to_string(&normalized).map_err(|e| Error::internal(e.to_string()))
    })
}

/// Strips from `args` (JSON text) the nulls that the strict form of `original` forced.
#[napi(js_name = "denormalizeStrict")]
pub fn denormalize_strict_json(original: String, args: String) -> crate::error::Result<String> {
    guard(|| {
        let original = parse_json("denormalize: schema", &original)?;
        let args = parse_json("denormalize: args", &args)?;
        Ok(denormalize_strict(&original, args).to_string())
    })
}

/// `null` when `name` is a valid tool name for `target` (a wire or a schema target), else why not
/// (for an unknown target: why it is unknown).
#[napi(js_name = "validateToolName")]
pub fn validate_tool_name_js(name: String, target: String) -> crate::error::Result<Option<String>> {
    guard(|| {
        Ok(DefinitionTarget::parse(&target)
            .and_then(|target| target.validate_tool_name(&name))
            .err())
    })
}
