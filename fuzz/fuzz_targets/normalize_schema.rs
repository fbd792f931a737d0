//! `normalize_schema` on any JSON text, for every target (and Gemini in both forms), with the
//! default limits and with small ones:
//! - no panic; an error is `VALIDATION_ERROR` or `LIMIT_EXCEEDED`;
//! - on `Ok`, the output is valid JSON Schema: it compiles with `jsonschema::validator_for`
//!   (`p0`, which returns its input, may keep a remote `$ref`: it only has to pass its
//!   meta-schema; Gemini's OpenAPI form only has to be an object), and every target but `p0`
//!   returns an object schema (`type: "object"`);
//! - normalizing the output again gives the same schema and drops nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_core::schema::{normalize_schema, NormalizeOptions, SchemaTarget};
use toolwire_core::ErrorCode;

fn check(schema: &Value, base: NormalizeOptions) {
    for target in SchemaTarget::ALL {
        for json_schema in [false, true] {
            if json_schema && target != SchemaTarget::Gemini {
                continue;
            }
            let options = NormalizeOptions {
                json_schema,
                ..base
            };
            let first = match normalize_schema(schema, target, &options) {
                Ok(first) => first,
                Err(e) => {
                    assert!(
                        matches!(
                            e.code,
                            ErrorCode::ValidationError | ErrorCode::LimitExceeded
                        ),
                        "{}: unexpected error {e}",
                        target.as_str()
                    );
                    continue;
                }
            };
            let openapi = target == SchemaTarget::Gemini && !json_schema;
            if target == SchemaTarget::P0 {
                assert_eq!(&first.schema, schema, "p0 changed the schema");
                assert!(first.removed.is_empty(), "p0 removed something");
                assert!(jsonschema::meta::validate(&first.schema).is_ok());
            } else {
                assert!(
                    first.schema.is_object(),
                    "{}: not an object",
                    target.as_str()
                );
                assert_eq!(first.schema["type"], "object", "{}", target.as_str());
                if !openapi {
                    if let Err(e) = jsonschema::validator_for(&first.schema) {
                        panic!(
                            "{} output does not compile: {e}\n{}",
                            target.as_str(),
                            first.schema
                        );
                    }
                }
            }
            let again = normalize_schema(&first.schema, target, &options).unwrap_or_else(|e| {
                panic!(
                    "{} second pass failed: {e}\n{}",
                    target.as_str(),
                    first.schema
                )
            });
            assert_eq!(
                again.schema,
                first.schema,
                "{} is not idempotent",
                target.as_str()
            );
            assert!(
                again.removed.is_empty(),
                "{} dropped more the second time: {:?}",
                target.as_str(),
                again.removed
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check(&schema, NormalizeOptions::default());
    check(
        &schema,
        NormalizeOptions {
            json_schema: false,
            max_depth: 6,
            max_bytes: 2048,
        },
    );
});
