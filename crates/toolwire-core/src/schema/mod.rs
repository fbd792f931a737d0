//! Per-target JSON Schema normalization: one tool schema rewritten into the dialect each
//! provider accepts, with a report of what was dropped and what changed meaning.
//!
//! [`normalize_schema`] runs, for every target but [`SchemaTarget::P0`]:
//! 1. the limits on the input (size, nesting) and a check against its meta-schema;
//! 2. local `$ref` inlining, cycles cut, `$defs` dropped (`refs`);
//! 3. the root made one object schema: root unions merged, `type: "object"` added, the root
//!    `allOf` merged for Anthropic (and for Gemini and strict mode, which merge every `allOf`)
//!    (`root`, `merge`);
//! 4. the target's own rewrite: Gemini's OpenAPI subset (`gemini`), OpenAI strict mode
//!    (`strict`), the keyword drops of xAI and llama.cpp (`subset`); OpenAI, Mistral and
//!    Gemini's `parametersJsonSchema` form take steps 1–3 only;
//! 5. the limits on the output, and (except Gemini's OpenAPI form) a compile check.
//!
//! `P0` only reports what is outside the portable subset. Normalizing a normalized schema
//! again changes nothing and drops nothing. [`denormalize_strict`] maps the model's arguments
//! for a strict schema back to the original; [`schema_hash`] and [`validate_tool_name`] serve
//! the caller's caching and name checks.

mod denormalize;
mod gemini;
mod hash;
mod limits;
mod merge;
mod node;
mod refs;
mod report;
mod root;
mod strict;
mod subset;
mod target;
mod tool_name;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub use denormalize::denormalize_strict;
pub use hash::schema_hash;
pub(crate) use refs::{applied, ref_target};
pub use report::{Normalized, Removed};
pub use target::{parse_normalize_options, NormalizeOptions, SchemaTarget, MAX_DEPTH_CEILING};
pub use tool_name::validate_tool_name;

use crate::error::{Error, ErrorCode, Result};
use node::{short, show};
use report::Report;

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

/// Whether `schema` (a tool's parameters) can be sent to every target as one object schema:
/// its root, `$ref`s resolved, is an object, a union of objects or untyped (what every target's
/// normalization makes of it). Checked when a tool is registered, so a root such as `{type:
/// 'string'}` is refused there, not at the first model call. Errors as [`normalize_schema`]'s.
pub fn check_object_root(schema: &Value) -> Result<()> {
    let options = NormalizeOptions::default();
    let mut report = Report::default();
    let tree = refs::inline(schema, &options, &mut report)?;
    root::fix_root(tree, false, &mut report).map(|_| ())
}

/// Rewrites `schema` (a tool's parameters) for `target`; see the module documentation.
///
/// Errors: `LIMIT_EXCEEDED` for a schema (or its output) past `options`' depth or size, or past
/// a limit of strict mode; `VALIDATION_ERROR` for a schema that is not an object or boolean,
/// is not valid JSON Schema, has a remote or unresolvable `$ref`, or whose root cannot be made
/// one object schema. Each message names the value and its JSON pointer.
pub fn normalize_schema(
    schema: &Value,
    target: SchemaTarget,
    options: &NormalizeOptions,
) -> Result<Normalized> {
    options.check()?;
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(invalid(format!(
            "a schema must be a JSON object or boolean, got {}",
            short(schema)
        )));
    }
    limits::check_size(schema, options.max_bytes, "the schema")?;
    let mut report = Report::default();
    if target == SchemaTarget::P0 {
        subset::p0_findings(schema, options.max_depth, &mut report)?;
        meta_check(schema)?;
        let (_, warnings) = report.finish(schema);
        return Ok(Normalized {
            schema: schema.clone(),
            removed: Vec::new(),
            warnings,
        });
    }
    let tree = refs::inline(schema, options, &mut report)?;
    meta_check(schema)?;
    let openapi = target == SchemaTarget::Gemini && !options.json_schema;
    // Targets that merge every `allOf` merge the root's first, so that what it brings to the
    // root (a union, a `const`) gets the root rules.
    let merge_root_all_of =
        openapi || matches!(target, SchemaTarget::Anthropic | SchemaTarget::OpenaiStrict);
    let root = root::fix_root(tree, merge_root_all_of, &mut report)?;
    let limit = 2 * options.max_depth + 8;
    let root = match target {
        SchemaTarget::Gemini if openapi => gemini::apply(root, limit, &mut report)?,
        SchemaTarget::OpenaiStrict => strict::apply(root, limit, &mut report)?,
        SchemaTarget::Xai => subset::xai(root, limit, &mut report)?,
        SchemaTarget::Llamacpp => subset::llamacpp(root, limit, &mut report)?,
        _ => root,
    };
    let output = root.to_value();
    let what = format!("the {} form of the schema", target.as_str());
    limits::walk_schemas(&output, options.max_depth, &what, |_| Ok(()))?;
    limits::check_size(&output, options.max_bytes, &what)?;
    if !openapi {
        if let Err(e) = jsonschema::validator_for(&output) {
            return Err(invalid(format!(
                "{what} does not compile at {}: {e}",
                show(&e.instance_path().to_string())
            )));
        }
    }
    let (removed, warnings) = report.finish(schema);
    Ok(Normalized {
        schema: output,
        removed,
        warnings,
    })
}

/// `VALIDATION_ERROR` unless `schema` is valid against its meta-schema.
fn meta_check(schema: &Value) -> Result<()> {
    jsonschema::meta::validate(schema).map_err(|e| {
        invalid(format!(
            "the schema is not valid JSON Schema at {}: {e}",
            show(&e.instance_path().to_string())
        ))
    })
}
