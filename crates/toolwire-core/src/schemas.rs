//! JSON Schemas of the public envelopes, generated from the Rust types and shipped in the npm
//! package under `schemas/`. A test keeps the committed files equal to what the types generate;
//! `npm run schemas` rewrites them.

use schemars::schema_for;
use serde_json::Value;

use crate::envelope::{ToolCall, ToolExecutionEvent, ToolResult};

/// Each schema with the file name it is shipped under.
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("tool-call.json", schema_for!(ToolCall).to_value()),
        ("tool-result.json", schema_for!(ToolResult).to_value()),
        (
            "tool-execution-event.json",
            schema_for!(ToolExecutionEvent).to_value(),
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
