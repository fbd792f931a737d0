//! JSON Schemas of the public envelopes, generated from the Rust types and shipped in the npm
//! package under `schemas/`. A test keeps the committed files equal to what the types generate;
//! `npm run schemas` rewrites them. The types are the one declaration of the envelopes' fields:
//! the TypeScript declarations (`ts/types.ts`) are checked against these schemas, field by field
//! and event by event, by `__test__/envelope-schemas.test.ts`, which also validates what the
//! runtime emits against them.
//!
//! The schemas describe the envelopes as the runtime hands them out (serialized): a field
//! always written is required even where reading it back has a default.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::envelope::{ToolCall, ToolExecutionEvent, ToolResult};

/// The schema of `T` as it is serialized.
fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    absent_not_null(&mut schema);
    schema
}

/// A field the envelopes may leave out is left out, never written `null` (each is an `Option`
/// skipped when `None`): its schema loses the `null` schemars gives every `Option`, at any depth.
fn absent_not_null(schema: &mut Value) {
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(absent_not_null);
        }
        return;
    };
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        drop_null(property);
                    }
                    absent_not_null(property);
                }
            }
            ("$defs", Value::Object(definitions)) => {
                definitions.values_mut().for_each(absent_not_null);
            }
            (_, value) => absent_not_null(value),
        }
    }
}

/// `property` without the `null` an `Option` adds: `"type": ["string", "null"]` becomes
/// `"type": "string"`, `"anyOf": [{"$ref": ...}, {"type": "null"}]` the `$ref`.
fn drop_null(property: &mut Value) {
    let Value::Object(map) = property else {
        return;
    };
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|kind| kind != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
    }
    let null = serde_json::json!({"type": "null"});
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.retain(|variant| *variant != null);
        if variants.len() == 1 {
            if let Value::Object(only) = variants.remove(0) {
                map.remove("anyOf");
                for (key, value) in only {
                    map.entry(key).or_insert(value);
                }
            }
        }
    }
}

/// Each schema with the file name it is shipped under.
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("tool-call.json", schema_of::<ToolCall>()),
        ("tool-result.json", schema_of::<ToolResult>()),
        (
            "tool-execution-event.json",
            schema_of::<ToolExecutionEvent>(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn folder() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
    }

    /// Set `TOOLWIRE_WRITE_SCHEMAS=1` to rewrite the files instead of checking them.
    #[test]
    fn committed_schemas_match_the_types() {
        let write = std::env::var_os("TOOLWIRE_WRITE_SCHEMAS").is_some();
        for (name, schema) in schemas() {
            let path = folder().join(name);
            let text = format!("{}\n", serde_json::to_string_pretty(&schema).unwrap());
            if write {
                std::fs::create_dir_all(folder()).unwrap();
                std::fs::write(&path, text).unwrap();
            } else {
                let committed = std::fs::read_to_string(&path).unwrap_or_default();
                assert_eq!(
                    committed, text,
                    "{name} is stale: run `npm run schemas` to regenerate it"
                );
            }
        }
    }

    /// A field that may be left out is never `null`; one always written keeps the `null` it
    /// may have (an `audit_failed` event's `runId`).
    #[test]
    fn optional_fields_are_left_out_not_null() {
        let (_, result) = schemas().into_iter().nth(1).unwrap();
        assert_eq!(result["properties"]["runId"]["type"], "string");
        assert_eq!(result["properties"]["error"]["$ref"], "#/$defs/ToolError");
        assert!(result["properties"]["error"].get("anyOf").is_none());
        assert_eq!(
            result["$defs"]["ToolError"]["properties"]["retryable"]["type"],
            "boolean"
        );
        let image = &result["$defs"]["ImageEntry"]["properties"];
        assert_eq!(
            image["mimeType"]["type"],
            serde_json::json!(["string", "null"])
        );
        let (_, events) = schemas().into_iter().nth(2).unwrap();
        let audit_failed = events["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|variant| variant["properties"]["type"]["const"] == "audit_failed")
            .unwrap();
        assert_eq!(
            audit_failed["properties"]["runId"]["type"],
            serde_json::json!(["string", "null"])
        );
    }

    #[test]
    fn the_result_schema_requires_the_envelope_fields() {
        let (_, schema) = schemas().into_iter().nth(1).unwrap();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for field in [
            "callId",
            "tool",
            "args",
            "attempt",
            "status",
            "ok",
            "content",
            "startedAt",
            "endedAt",
            "durationMs",
        ] {
            assert!(required.contains(&field), "{field}");
        }
    }
}
