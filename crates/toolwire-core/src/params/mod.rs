//! Parameter normalization: models send arguments under the wrong names and types. Before the
//! arguments are validated against the tool's original schema, they are normalized (keys renamed
//! by declared alias or by a unique case/separator match, structured text blocks joined, scalars
//! coerced when the tool allows it), required groups are checked, and what was done is reported
//! as a [`Normalization`].

mod groups;
mod names;
mod normalize;
mod rules;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;

pub(crate) use names::suggest_property;
pub(crate) use normalize::{has_type, simple_types};
pub use rules::parse_rules;

/// A tool's normalization rules, parsed once at registration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamRules {
    /// `{ from: to }`: another name the model may use for a property (e.g. file_path -> path).
    pub aliases: Vec<(String, String)>,
    /// Groups of which at least one name must be present (see [`RequiredGroup`]).
    pub required_groups: Vec<RequiredGroup>,
    /// Whether scalar types are coerced (off by default).
    pub coerce: bool,
}

impl ParamRules {
    /// The aliases as `{ from: to }` for `list()`, or `None` when there are none.
    pub fn aliases_json(&self) -> Option<Value> {
        (!self.aliases.is_empty()).then(|| {
            Value::Object(
                self.aliases
                    .iter()
                    .map(|(from, to)| (from.clone(), Value::String(to.clone())))
                    .collect(),
            )
        })
    }
}

/// Names of which at least one must be present in the root object of the arguments, with a
/// value that counts: not null and, unless `allow_empty`, not a blank (whitespace-only) string.
#[derive(Clone, Debug, PartialEq)]
pub struct RequiredGroup {
    /// The names, any one of which satisfies the group.
    pub names: Vec<String>,
    /// Whether an empty or whitespace-only string counts as present.
    pub allow_empty: bool,
}

/// What normalization did to one call's arguments. Serialized as
/// `{"renamed":[{"from":"file_path","to":"path","by":"alias","path":""}],
/// "coerced":[{"path":"/count","from":"string","to":"integer"}]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Normalization {
    /// The keys renamed, in the order they were met (parents before children).
    #[serde(default)]
    pub renamed: Vec<Rename>,
    /// The values converted to another type, in the order they were met.
    #[serde(default)]
    pub coerced: Vec<Coercion>,
}

impl Normalization {
    /// Whether nothing was changed.
    pub fn is_empty(&self) -> bool {
        self.renamed.is_empty() && self.coerced.is_empty()
    }
}

/// Why a key was renamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RenameReason {
    /// A declared alias.
    Alias,
    /// The only property with the same canonical form (case, `_` and `-` ignored).
    Case,
}

/// One renamed key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rename {
    /// The key as the model sent it.
    pub from: String,
    /// The property it became.
    pub to: String,
    /// Why.
    pub by: RenameReason,
    /// The JSON pointer of the object holding the key, `""` at the root.
    pub path: String,
}

/// One value converted to another JSON type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Coercion {
    /// The JSON pointer of the value.
    pub path: String,
    /// Its JSON type before (`"string"`, `"integer"`, `"number"`, `"boolean"`, ...), or
    /// `"text-blocks"` for an array of `{type: "text", text}` blocks.
    pub from: String,
    /// Its JSON type after.
    pub to: String,
}

/// Normalizes `args` (a JSON object; anything else is left alone and `Ok(empty)` returned, the
/// validator reports it) in place against `schema` and `rules`, then checks the required groups.
/// Err: a VALIDATION_ERROR [`ToolError`] listing every unmet required group.
pub fn normalize_arguments(
    tool: &str,
    schema: &Value,
    rules: &ParamRules,
    args: &mut Value,
) -> std::result::Result<Normalization, ToolError> {
    if !args.is_object() {
        return Ok(Normalization::default());
    }
    let normalization = normalize::normalize(schema, rules, args);
    if let Value::Object(map) = args {
        groups::check(tool, &rules.required_groups, map)?;
    }
    Ok(normalization)
}

#[cfg(test)]
mod tests;
