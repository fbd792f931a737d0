//! The tool list a provider is sent: each registered tool's schema normalized for the target
//! ([`crate::schema`]) and written in that wire's definition format ([`crate::wire::encode`]),
//! both as the target's provider says ([`DefinitionTarget`]), with a report of what
//! normalization changed.
//!
//! Validation never uses these schemas: the model's arguments are always checked against the
//! tool's own schema. A tool sent in OpenAI's strict form is marked, so that its calls have the
//! nulls that form forced stripped before validation.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::provider::DefinitionTarget;
use crate::registry::ToolSpec;
use crate::schema::{normalize_schema, NormalizeOptions, SchemaTarget};
use crate::wire::encode::{encode_definitions, ToolDefinitionInput};

/// The options of `definitions(target, options)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefinitionOptions {
    /// Gemini: send full JSON Schema as `parametersJsonSchema` instead of the OpenAPI subset.
    #[serde(default)]
    pub json_schema: bool,
    /// `openai-chat` / `openai-responses`: send the strict form (`strict: true`).
    #[serde(default)]
    pub strict: bool,
    /// Only these registered tools (as the `tools` option of a dispatch); `None`: every one.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
}

/// Parses the options as JSON text (empty for defaults); a bad value is the caller's error.
pub fn parse_definition_options(text: &str) -> Result<DefinitionOptions> {
    if text.trim().is_empty() {
        return Ok(DefinitionOptions::default());
    }
    crate::options::from_json_text("definitions: options", text)
}

/// Every tool of `tools` in `target`'s definition format: `{ tools, reports }`, where each
/// report is `{ tool, schemaHash, removed, warnings }`. A tool whose name breaks the target's
/// rule, or whose schema cannot be normalized, is an error naming the tool.
pub fn definitions<'a>(
    tools: impl Iterator<Item = &'a ToolSpec>,
    target: &str,
    options: &DefinitionOptions,
) -> Result<Value> {
    let target = DefinitionTarget::parse(target).map_err(|reason| {
        Error::caller(ErrorCode::ValidationError, format!("definitions: {reason}"))
    })?;
    let (schema_target, format) = target.definitions(options.strict, options.json_schema);
    let strict = schema_target == SchemaTarget::OpenaiStrict;
    let normalize_options = NormalizeOptions {
        json_schema: options.json_schema,
        ..NormalizeOptions::default()
    };
    let tools: Vec<&ToolSpec> = tools.collect();
    let mut schemas = Vec::with_capacity(tools.len());
    let mut reports = Vec::with_capacity(tools.len());
    for spec in &tools {
        target.validate_tool_name(&spec.name).map_err(|reason| {
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "definitions: tool \"{}\" cannot be sent to {}: {reason}",
                    spec.name,
                    target.name()
                ),
            )
        })?;
        let normalized = normalize_schema(&spec.parameters, schema_target, &normalize_options)
            .map_err(|e| Error {
                message: format!(
                    "definitions: the parameters of tool \"{}\" cannot be sent to {}: {}",
                    spec.name,
                    target.name(),
                    e.message
                ),
                ..e
            })?;
        reports.push(json!({
            "tool": spec.name,
            "schemaHash": spec.schema_hash,
            "removed": normalized.removed,
            "warnings": normalized.warnings,
        }));
        schemas.push(normalized.schema);
    }
    // Marked only once every tool passed, so a failed call marks nothing.
    if strict {
        tools.iter().for_each(|spec| spec.mark_strict_sent());
    }
    let inputs: Vec<ToolDefinitionInput> = tools
        .iter()
        .zip(&schemas)
        .map(|(spec, parameters)| ToolDefinitionInput {
            name: &spec.name,
            description: spec.description.as_deref(),
            parameters,
        })
        .collect();
    Ok(json!({
        "tools": encode_definitions(format, &inputs),
        "reports": reports,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Registry, ToolDeclaration};

    fn registry(tools: Value) -> Registry {
        let mut registry = Registry::new();
        for tool in tools.as_array().unwrap() {
            let declaration: ToolDeclaration = serde_json::from_value(tool.clone()).unwrap();
            registry.register(declaration).unwrap();
        }
        registry
    }

    fn weather() -> Registry {
        registry(json!([{
            "name": "weather",
            "description": "The weather in a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1},
                    "unit": {"type": "string", "enum": ["c", "f"]}
                },
                "required": ["city"]
            }
        }]))
    }

    fn defs(registry: &Registry, target: &str, options: DefinitionOptions) -> Result<Value> {
        definitions(registry.iter().map(|s| s.as_ref()), target, &options)
    }

    #[test]
    fn each_wire_gets_its_own_shape() {
        let registry = weather();
        let chat = defs(&registry, "openai-chat", Default::default()).unwrap();
        assert_eq!(chat["tools"][0]["type"], "function");
        assert_eq!(chat["tools"][0]["function"]["name"], "weather");
        let anthropic = defs(&registry, "anthropic", Default::default()).unwrap();
        assert_eq!(
            anthropic["tools"][0]["input_schema"]["required"],
            json!(["city"])
        );
        let gemini = defs(&registry, "gemini", Default::default()).unwrap();
        let declaration = &gemini["tools"][0]["functionDeclarations"][0];
        assert!(declaration["parameters"]["properties"]["city"]
            .get("minLength")
            .is_none());
        let report = &gemini["reports"][0];
        assert_eq!(report["tool"], "weather");
        assert_eq!(report["removed"][0]["keyword"], "minLength");
        assert_eq!(report["schemaHash"].as_str().unwrap().len(), 16);
    }

    #[test]
    fn strict_definitions_mark_the_tools() {
        let registry = weather();
        let spec = registry.get("weather").unwrap();
        defs(&registry, "openai-chat", Default::default()).unwrap();
        assert!(!spec.strict_sent());
        let strict = defs(&registry, "openai-strict", Default::default()).unwrap();
        assert_eq!(strict["tools"][0]["function"]["strict"], true);
        assert!(spec.strict_sent());
        let responses = defs(
            &registry,
            "openai-responses",
            DefinitionOptions {
                strict: true,
                ..DefinitionOptions::default()
            },
        )
        .unwrap();
        assert_eq!(responses["tools"][0]["strict"], true);
        assert_eq!(
            responses["tools"][0]["parameters"]["required"],
            json!(["city", "unit"])
        );
        // The strict option on Chat Completions sends the strict form with its flag (the schema
        // alone was once made strict and sent without `strict: true`).
        let strict_option = DefinitionOptions {
            strict: true,
            ..DefinitionOptions::default()
        };
        for target in ["openai-chat", "openai"] {
            let chat = defs(&registry, target, strict_option.clone()).unwrap();
            assert_eq!(chat["tools"][0]["function"]["strict"], true, "{target}");
            assert_eq!(
                chat["tools"][0]["function"]["parameters"]["required"],
                json!(["city", "unit"]),
                "{target}"
            );
        }
    }

    #[test]
    fn a_name_a_target_refuses_is_an_error_naming_the_tool() {
        let registry = registry(json!([{"name": "9lives"}]));
        let error = defs(&registry, "gemini", Default::default()).unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError);
        assert!(error.message.contains("\"9lives\""), "{}", error.message);
        assert!(defs(&registry, "anthropic", Default::default()).is_ok());
    }

    #[test]
    fn unknown_targets_and_options_are_refused() {
        let registry = weather();
        let error = defs(&registry, "cohere", Default::default()).unwrap_err();
        assert!(error.message.contains("\"cohere\""), "{}", error.message);
        let error = parse_definition_options(r#"{"strcit":true}"#).unwrap_err();
        assert!(error.message.contains("strcit"), "{}", error.message);
    }
}
